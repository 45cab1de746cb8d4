//! Sentences more than one place shows, so they always say the same: what happens to tool
//! output after a turn (the help, the context panel and the first screen's welcome).

/// A turn's tool output is not kept unless asked, and how to ask.
pub const KEEP_HINT: &str = "A turn's tool calls and their output are dropped from what the model sees when \
                             the turn ends; /context lists them, /context keep K keeps the K-th.";
