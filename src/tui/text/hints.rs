//! What more than one pane must agree on, so they always say the same: what happens to
//! tool output after a turn (the help, the context panel and the first screen's welcome)
//! and when a prompt is long enough to show as a `[pasted N lines]` chip (the prompt, the
//! conversation).

/// A turn's tool output is not kept unless asked, and how to ask.
pub const KEEP_HINT: &str = "A turn's tool calls and their output are dropped from what the model sees when \
                             the turn ends; /context list numbers the last turn's (k1, k2…), /context keep K \
                             keeps the K-th.";

/// `KEEP_HINT` in one plain sentence, for the first screen's welcome.
pub const KEEP_SHORT: &str =
    "The model sees earlier prompts and replies, not their tool output (to keep one: /context list).";

/// A paste (or a prompt) of more lines than this shows as `[pasted N lines]`.
pub const PASTE_LINES: usize = 10;

/// The chip a long paste or prompt of `lines` lines shows as.
pub fn paste_chip(lines: usize) -> String {
    format!("[pasted {lines} lines]")
}
