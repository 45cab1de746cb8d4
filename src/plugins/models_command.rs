//! `/models` (and `/model` without a name): asks the provider for its models
//! (`Provider::list_models`, bounded by the provider), adds the prices the cost table knows
//! (`cost/prices.rs`, with `~/.agents/prices.json` on top) and hands the list to the front
//! end as `AgentEvent::Models` — the line REPL prints it, the TUI opens its picker. A failed
//! listing is that event's error, never the session's end.
//!
//! Commands are synchronous, so the listing runs to its end on a thread of its own (with a
//! runtime of its own) while the session's task waits; the provider's time limit bounds the
//! wait, and the UI's task goes on drawing meanwhile.

use crate::agent::output::AgentEvent;
use crate::agent::{Flow, Session};
use crate::plugins::cost::prices::PriceTable;
use crate::protocol::{ModelInfo, ProviderError};
use futures::future::BoxFuture;

/// Lists the provider's models to the front end.
pub fn show_models(session: &mut Session, _args: &str) -> anyhow::Result<Flow> {
    let provider = session.provider().clone();
    let listed = wait_for(provider.list_models())
        .unwrap_or_else(|| Err(ProviderError::Network("listing the models stopped unexpectedly".into())));
    let listed = listed.map(with_prices).map_err(|error| error.to_string());
    session.output().emit(AgentEvent::Models {
        provider: provider.name().to_string(),
        current: provider.model().to_string(),
        listed,
    });
    Ok(Flow::Continue)
}

/// Each model with its price from the table, where it has one.
fn with_prices(mut models: Vec<ModelInfo>) -> Vec<ModelInfo> {
    let file = std::env::var_os("HOME").map(|home| std::path::PathBuf::from(home).join(".agents/prices.json"));
    let table = file.and_then(|f| PriceTable::with_file(&f).ok()).unwrap_or_else(PriceTable::built_in);
    for model in &mut models {
        model.price = table.price(&model.id).map(|p| (p.input, p.output));
    }
    models
}

/// Runs `future` to its end on a thread with a runtime of its own; `None` if that failed.
fn wait_for<T: Send + 'static>(future: BoxFuture<'static, T>) -> Option<T> {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
        Some(runtime.block_on(future))
    })
    .join()
    .ok()
    .flatten()
}
