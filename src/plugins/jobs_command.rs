//! `/jobs`: the session's background jobs (number, running or how it ended, output size,
//! command), and `/jobs stop N` to stop one with everything it started. Works in every
//! front end (a slash command): the list goes out as `AgentEvent::Jobs`, its text for the
//! line REPL and its rows for the TUI's jobs popup (which stops a job by sending
//! `/jobs stop N`). The table is the built-in tools' (`tools/jobs/`), handed in by
//! `startup` as functions (plugins do not import tools).

use crate::agent::output::AgentEvent;
use crate::agent::{Flow, Plugin, Session};
use crate::protocol::events::JobRow;
use std::sync::Arc;

type List = dyn Fn() -> (String, Vec<JobRow>) + Send + Sync;
type Stop = dyn Fn(u64) -> Result<String, String> + Send + Sync;

/// The plugin that adds `/jobs`.
pub struct JobsCommand {
    list: Arc<List>,
    stop: Arc<Stop>,
}

impl JobsCommand {
    /// `list` gives the jobs' listing and rows, `stop` stops one (what to tell the user).
    pub fn new(
        list: impl Fn() -> (String, Vec<JobRow>) + Send + Sync + 'static,
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
                [] => {
                    let (text, rows) = list();
                    session.output().emit(AgentEvent::Jobs { text, rows });
                }
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
