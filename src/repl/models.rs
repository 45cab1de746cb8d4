//! `/models` in the line REPL: the provider's models as lines, the one in use marked `*`,
//! each with its window and price where known; names sanitized (they come from a server or
//! a plugin file).

use crate::sanitize::sanitize;

/// `/models` as lines: the one in use marked `*`, each with what is known of it.
pub(super) fn text(provider: &str, current: &str, listed: &Result<Vec<crate::protocol::ModelInfo>, String>) -> String {
    let models = match listed {
        Ok(models) => models,
        Err(error) => return format!("Error: cannot list the models of {}: {}\n", sanitize(provider), sanitize(error)),
    };
    let mut text = format!("Models of {} (/model NAME switches):\n", sanitize(provider));
    let width = models.iter().map(|m| m.id.chars().count()).max().unwrap_or(0).min(48);
    for model in models {
        let mark = if model.id == current { "*" } else { " " };
        let line = format!("{mark} {:<width$}  {}", sanitize(&model.id), model.details());
        text.push_str(line.trim_end());
        text.push('\n');
    }
    if models.is_empty() {
        text.push_str("  (none listed)\n");
    }
    text
}
