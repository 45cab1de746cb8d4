//! `/jobs`: the session's background jobs (number, running or how it ended, output size,
//! command), and `/jobs stop N` to stop one with everything it started. Works in every
//! front end (a slash command). The table is the built-in tools' (`tools/jobs/`), handed
//! in by `startup` as two functions (plugins do not import tools).

use crate::agent::{Flow, Plugin, Session};
use std::sync::Arc;

type List = dyn Fn() -> String + Send + Sync;
type Stop = dyn Fn(u64) -> Result<String, String> + Send + Sync;

/// The plugin that adds `/jobs`.
pub struct JobsCommand {
    list: Arc<List>,
    stop: Arc<Stop>,
}

impl JobsCommand {
    pub fn new(
        list: impl Fn() -> String + Send + Sync + 'static,
        stop: impl Fn(u64) -> Result<String, String> + Send + Sync + 'static,
    ) -> Self {
        JobsCommand { list: Arc::new(list), stop: Arc::new(stop) }
    }
}

impl Plugin for JobsCommand {
    fn name(&self) -> &str {
        "jobs-command"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let (list, stop) = (self.list.clone(), self.stop.clone());
        session.commands_mut().add("jobs", "[stop N]", "background jobs; stop one", move |session, args| {
            let words: Vec<&str> = args.split_whitespace().collect();
            match words.as_slice() {
                [] => session.show(list()),
                ["stop", number] => {
                    let id = number.trim_start_matches('%').parse::<u64>().map_err(|_| usage(args))?;
                    session.show(stop(id).map_err(anyhow::Error::msg)?);
                }
                _ => return Err(usage(args)),
            }
            Ok(Flow::Continue)
        });
        Ok(())
    }
}

fn usage(args: &str) -> anyhow::Error {
    anyhow::anyhow!("usage: /jobs [stop N], not {:?}", args.trim())
}
