//! A test harness, not a feature: the real full-screen app with two extra tools that fail
//! on purpose, so the end-to-end tests can check what a panic does without a test seam in
//! the production binary. `explode` panics on tokio's blocking pool (the app must keep
//! running, the call fails); `explode_uncaught` panics on a thread of its own, a panic
//! nothing catches (the terminal must be restored and the app must exit).

use elelem::agent::{SetupBlock, Tool};
use elelem::startup::{ExtraPlugins, Options};
use serde_json::{json, Value};

fn tools() -> anyhow::Result<Vec<Tool>> {
    let schema = json!({"type": "object"});
    let blocking = Tool::new("explode", "panics on the blocking pool", schema.clone(), |_: Value, ctx| async move {
        ctx.blocking(|| -> Value { panic!("boom in a blocking tool") }).await
    })?;
    let uncaught = Tool::new("explode_uncaught", "panics on its own thread", schema, |_: Value, _| async move {
        let _ = std::thread::spawn(|| panic!("uncaught test panic")).join();
        Ok(json!({"content": "unreachable"}))
    })?;
    Ok(vec![blocking.read_only(), uncaught.read_only()])
}

fn main() -> anyhow::Result<()> {
    elelem::startup::quiet_caught_panics();
    let plugin = SetupBlock::plugin("faults", |session| {
        for tool in tools()? {
            session.toolbox_mut().add(tool);
        }
        Ok(())
    });
    let options = Options { extra_plugins: ExtraPlugins(vec![plugin]), ..Options::default() };
    let tui = elelem::tui::TuiOptions {
        mouse: true,
        color: true,
        yolo: false,
        theme: None,
        first_prompt: None,
        pick_session: false,
    };
    tokio::runtime::Runtime::new()?.block_on(elelem::tui::run(&options, tui)).map(|_| ())
}
