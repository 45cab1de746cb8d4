//! `/cost`: what this session's model calls took, by model — input tokens sent uncached,
//! written to the prompt cache and read from it, output tokens, the share read from the
//! cache, and an estimate in dollars from the price table (`prices.rs`). Totals follow the
//! `Usage` events every provider reports; they survive `/reload` (the plugin keeps them).

pub mod prices;

use crate::agent::output::AgentEvent;
use crate::agent::{Flow, Plugin, Session};
use crate::protocol::Usage;
use parking_lot::Mutex;
use prices::PriceTable;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

/// Token totals by model, and which model is answering now.
#[derive(Default)]
struct Totals {
    model: String,
    by_model: BTreeMap<String, Usage>,
}

#[derive(Clone)]
pub struct CostPlugin {
    totals: Arc<Mutex<Totals>>,
    /// `~/.agents/prices.json`.
    prices: Option<PathBuf>,
}

impl CostPlugin {
    pub fn new(home: Option<PathBuf>) -> Self {
        CostPlugin { totals: Arc::default(), prices: home.map(|h| h.join(".agents/prices.json")) }
    }
}

impl Plugin for CostPlugin {
    fn name(&self) -> &str {
        "cost"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        self.totals.lock().model = session.provider().model().to_string();
        let totals = self.totals.clone();
        // A sub-agent's usage (`AgentEvent::SubAgent`) is billed like the agent's own.
        let wanted =
            |event: &AgentEvent| event.billed_usage().is_some() || matches!(event, AgentEvent::ProviderChanged { .. });
        session.observe_only(
            wanted,
            Arc::new(move |event: &AgentEvent| {
                let mut totals = totals.lock();
                if let AgentEvent::ProviderChanged { model, .. } = event {
                    totals.model = model.clone();
                } else if let Some(usage) = event.billed_usage() {
                    let model = totals.model.clone();
                    totals.by_model.entry(model).or_default().add(usage);
                }
            }),
        );
        let this = self.clone();
        session.commands_mut().add(
            "cost",
            "",
            "tokens of this session (cached, uncached, output) and an estimated price",
            move |session, _| {
                let table = match &this.prices {
                    Some(file) => PriceTable::with_file(file).map_err(anyhow::Error::msg)?,
                    None => PriceTable::built_in(),
                };
                session.show(report(&this.totals.lock().by_model, &table, this.prices.as_deref()));
                Ok(Flow::Continue)
            },
        );
        Ok(())
    }
}

/// `12,345`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The `/cost` text.
fn report(by_model: &BTreeMap<String, Usage>, table: &PriceTable, prices: Option<&std::path::Path>) -> String {
    if by_model.values().all(|u| u.input_tokens + u.output_tokens == 0) {
        return "No tokens reported yet this session.".into();
    }
    let mut text = String::new();
    let mut total = Some(0.0);
    for (model, usage) in by_model {
        let (uncached, written, read) = (usage.uncached_input(), usage.cache_write_tokens, usage.cache_read_tokens);
        let _ = writeln!(text, "{model}:");
        let _ = writeln!(
            text,
            "  input   {} uncached · {} written to cache · {} read from cache",
            grouped(uncached),
            grouped(written),
            grouped(read)
        );
        let _ = writeln!(text, "  output  {}", grouped(usage.output_tokens));
        if usage.input_tokens > 0 {
            let _ = writeln!(text, "  cache   {}% of input read from cache", usage.cache_read_percent());
        }
        match table.price(model) {
            Some(price) => {
                let dollars = price.cost(uncached, written, read, usage.output_tokens);
                total = total.map(|t| t + dollars);
                let _ = writeln!(
                    text,
                    "  cost    ≈ ${dollars:.4} (per million: input ${}, output ${}, cache write ${}, cache read ${})",
                    price.input,
                    price.output,
                    price.cache_write.unwrap_or(price.input),
                    price.cache_read.unwrap_or(price.input)
                );
            }
            None => {
                total = None;
                let file = prices.map_or("a prices file".into(), |p| p.display().to_string());
                let _ = writeln!(text, "  cost    no price known for {model} (add it to {file})");
            }
        }
    }
    if let (Some(total), true) = (total, by_model.len() > 1) {
        let _ = writeln!(text, "total ≈ ${total:.4}");
    }
    text.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_shows_each_kind_of_token_the_cache_share_and_a_price() {
        let usage =
            Usage { input_tokens: 100_000, output_tokens: 2_000, cache_read_tokens: 90_000, cache_write_tokens: 8_000 };
        let by_model = BTreeMap::from([("claude-sonnet-4-5".to_string(), usage)]);
        let text = report(&by_model, &PriceTable::built_in(), None);
        assert!(text.contains("2,000 uncached · 8,000 written to cache · 90,000 read from cache"), "{text}");
        assert!(text.contains("90% of input read from cache"), "{text}");
        // 2k × $3 + 8k × $3.75 + 90k × $0.30 + 2k × $15, per million.
        assert!(text.contains("≈ $0.0930"), "{text}");
        let unknown = BTreeMap::from([("llama3".to_string(), usage)]);
        assert!(report(&unknown, &PriceTable::built_in(), None).contains("no price known for llama3"));
        assert_eq!(report(&BTreeMap::new(), &PriceTable::built_in(), None), "No tokens reported yet this session.");
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(1234567), "1,234,567");
        assert_eq!(grouped(999), "999");
    }
}
