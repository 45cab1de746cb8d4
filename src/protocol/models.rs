//! What is known about models by name: the size of their context window, for the status
//! line's share in use and the warning before a request would not fit, and whether they
//! read images. Unknown models have
//! no known window (overridable with `ELELEM_CONTEXT_WINDOW`). `ModelInfo` is one entry of
//! a provider's list of models (`Provider::list_models`).

/// One model a provider offers: its id and what is known of it.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInfo {
    pub id: String,
    /// In tokens, where the server or the table here knows it.
    pub context_window: Option<u64>,
    /// Dollars per million input and output tokens, where known (filled in by whoever
    /// holds a price table).
    pub price: Option<(f64, f64)>,
}

impl ModelInfo {
    /// What is known of it in a few words: `200k window · $3.00 / $15.00 per M tokens`.
    pub fn details(&self) -> String {
        let window = self.context_window.map(|w| match w {
            w if w >= 1_000_000 && w % 1_000_000 == 0 => format!("{}M window", w / 1_000_000),
            w if w >= 1_000 => format!("{}k window", w / 1_000),
            w => format!("{w} window"),
        });
        let price = self.price.map(|(input, output)| format!("${input:.2} / ${output:.2} per M tokens"));
        [window, price].into_iter().flatten().collect::<Vec<_>>().join(" · ")
    }

    /// `id` with the window this table knows for it.
    pub fn named(id: impl Into<String>) -> Self {
        let id = id.into();
        let context_window = context_window(&id);
        ModelInfo { id, context_window, price: None }
    }
}

/// Context windows by model-name prefix, most specific first.
const WINDOWS: &[(&str, u64)] = &[
    ("claude-", 200_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-5", 400_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("llama3.1", 128_000),
    ("llama3.2", 128_000),
    ("llama3.3", 128_000),
    ("llama-3.3", 128_000),
    ("llama3", 8_192),
    ("qwen2.5", 32_768),
    ("qwen3", 40_960),
    ("mistral", 32_768),
    ("gemma3", 128_000),
    ("deepseek", 128_000),
    ("stub", 200_000),
];

/// The context window of `model` in tokens: `ELELEM_CONTEXT_WINDOW` when set, else the
/// known size for its name.
pub fn context_window(model: &str) -> Option<u64> {
    if let Some(tokens) = std::env::var("ELELEM_CONTEXT_WINDOW").ok().and_then(|v| v.trim().parse().ok()) {
        return Some(tokens);
    }
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    WINDOWS.iter().find(|(prefix, _)| name.starts_with(prefix)).map(|(_, tokens)| *tokens)
}

/// Model-name prefixes of models that read images.
const VISION: &[&str] = &[
    "claude-",
    "gpt-4o",
    "gpt-4.1",
    "gpt-4-turbo",
    "gpt-5",
    "o1",
    "o3",
    "o4",
    "llava",
    "bakllava",
    "gemma3",
    "llama3.2-vision",
    "llama4",
    "qwen2.5vl",
    "qwen2.5-vl",
    "minicpm-v",
    "moondream",
    "mistral-small3",
];

/// Whether `model` reads images: `ELELEM_IMAGES=on|off` when set, else by its name.
pub fn accepts_images(model: &str) -> bool {
    match std::env::var("ELELEM_IMAGES").ok().map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("1" | "on" | "true" | "yes") => return true,
        Some("0" | "off" | "false" | "no") => return false,
        _ => {}
    }
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    VISION.iter().any(|prefix| name.starts_with(prefix))
}

/// A rough token count of `text` (about four characters a token).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_by_prefix_and_provider_path() {
        assert_eq!(context_window("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(context_window("openai/gpt-4o-mini"), Some(128_000));
        assert_eq!(context_window("llama3:8b"), Some(8_192));
        assert_eq!(context_window("something-new"), None);
    }
}
