//! Model prices in US dollars per million tokens: a built-in table for the models elelem
//! knows, overridden (or extended) by the user's `~/.agents/prices.json`:
//!
//! ```json
//! {"my-model": {"input": 3, "output": 15, "cache_write": 3.75, "cache_read": 0.3}}
//! ```
//!
//! A model name matches the longest key it starts with (`claude-sonnet-4-5-20250929` takes
//! `claude-sonnet-4-5`). The built-in prices are the providers' published list prices at
//! the time of writing, for an estimate; cache writes are priced at the five-minute rate.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Bytes of `prices.json` read at most.
const FILE_LIMIT: u64 = 1024 * 1024;

/// Dollars per million tokens of each kind.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// Defaults to the input price (a provider without cache writes).
    #[serde(default)]
    pub cache_write: Option<f64>,
    /// Defaults to the input price.
    #[serde(default)]
    pub cache_read: Option<f64>,
}

/// (model prefix, input, output, cache write, cache read)
const BUILT_IN: &[(&str, f64, f64, f64, f64)] = &[
    ("claude-opus-4-5", 5.0, 25.0, 6.25, 0.50),
    ("claude-opus-4", 15.0, 75.0, 18.75, 1.50),
    ("claude-sonnet-4", 3.0, 15.0, 3.75, 0.30),
    ("claude-3-7-sonnet", 3.0, 15.0, 3.75, 0.30),
    ("claude-haiku-4-5", 1.0, 5.0, 1.25, 0.10),
    ("claude-3-5-haiku", 0.80, 4.0, 1.0, 0.08),
    ("gpt-4.1-nano", 0.10, 0.40, 0.10, 0.025),
    ("gpt-4.1-mini", 0.40, 1.60, 0.40, 0.10),
    ("gpt-4.1", 2.0, 8.0, 2.0, 0.50),
    ("gpt-4o-mini", 0.15, 0.60, 0.15, 0.075),
    ("gpt-4o", 2.50, 10.0, 2.50, 1.25),
    ("gpt-5-mini", 0.25, 2.0, 0.25, 0.025),
    ("gpt-5", 1.25, 10.0, 1.25, 0.125),
    ("o4-mini", 1.10, 4.40, 1.10, 0.275),
    ("o3", 2.0, 8.0, 2.0, 0.50),
];

/// The prices to use: the built-in table and the user's file on top of it.
#[derive(Clone, Debug, Default)]
pub struct PriceTable {
    prices: BTreeMap<String, Price>,
}

impl PriceTable {
    pub fn built_in() -> Self {
        let prices = BUILT_IN
            .iter()
            .map(|&(model, input, output, write, read)| {
                (model.to_string(), Price { input, output, cache_write: Some(write), cache_read: Some(read) })
            })
            .collect();
        PriceTable { prices }
    }

    /// The built-in table with `file` (if it exists) on top; a file that cannot be read is
    /// an error naming it. Only a regular file of at most `FILE_LIMIT` bytes is read, opened
    /// without waiting (a FIFO or a device is refused at once).
    pub fn with_file(file: &Path) -> Result<Self, String> {
        let mut table = Self::built_in();
        let text = match crate::safe_file::read_text(file, FILE_LIMIT) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(table),
            Err(e) => return Err(format!("{}: {e}", file.display())),
        };
        let user: BTreeMap<String, Price> =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        for (model, price) in user {
            let valid = [Some(price.input), Some(price.output), price.cache_write, price.cache_read]
                .into_iter()
                .flatten()
                .all(|p| p.is_finite() && p >= 0.0);
            if !valid {
                return Err(format!("{}: {model}: prices must be numbers ≥ 0", file.display()));
            }
            table.prices.insert(model, price);
        }
        Ok(table)
    }

    /// The price of `model`: the longest key it starts with.
    pub fn price(&self, model: &str) -> Option<Price> {
        self.prices
            .iter()
            .filter(|(key, _)| model.starts_with(key.as_str()))
            .max_by_key(|(key, _)| key.len())
            .map(|(_, p)| *p)
    }
}

impl Price {
    /// Dollars for these token counts.
    pub fn cost(&self, uncached: u64, written: u64, read: u64, output: u64) -> f64 {
        let per = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        per(uncached, self.input)
            + per(written, self.cache_write.unwrap_or(self.input))
            + per(read, self.cache_read.unwrap_or(self.input))
            + per(output, self.output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dated_model_takes_the_longest_prefix() {
        let table = PriceTable::built_in();
        assert_eq!(table.price("claude-sonnet-4-5-20250929").map(|p| p.input), Some(3.0));
        assert_eq!(table.price("gpt-4.1-mini").map(|p| p.input), Some(0.40));
        assert_eq!(table.price("gpt-4.1").map(|p| p.input), Some(2.0));
        assert_eq!(table.price("llama3.2"), None);
    }

    #[test]
    fn cost_prices_each_kind_of_token() {
        let price = Price { input: 3.0, output: 15.0, cache_write: Some(3.75), cache_read: Some(0.3) };
        let dollars = price.cost(1_000_000, 1_000_000, 1_000_000, 1_000_000);
        assert!((dollars - (3.0 + 3.75 + 0.3 + 15.0)).abs() < 1e-9);
    }

    #[test]
    fn the_users_file_overrides_and_bad_files_say_which() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("prices.json");
        assert!(PriceTable::with_file(&file).is_ok(), "no file: the built-in table");
        std::fs::write(&file, r#"{"stub": {"input": 1, "output": 2}}"#).unwrap();
        let table = PriceTable::with_file(&file).unwrap();
        assert_eq!(table.price("stub-demo").map(|p| p.output), Some(2.0));
        std::fs::write(&file, r#"{"stub": {"input": -1, "output": 2}}"#).unwrap();
        assert!(PriceTable::with_file(&file).unwrap_err().contains("prices.json"));
        std::fs::write(&file, "not json").unwrap();
        assert!(PriceTable::with_file(&file).unwrap_err().contains("prices.json"));
    }
}
