//! The HTTP side shared by the network providers: the client's options (`options.rs`), one
//! model call and the redaction of its secrets (`call.rs`), and the text of what went
//! wrong (`error_text.rs`). The driver that runs a call lives in `driver.rs`, the parsers'
//! interface next to the framing (`parser.rs`).

pub(crate) mod call;
pub(crate) mod error_text;
pub(crate) mod options;

/// What a provider's config holds (`config.http`), named where it always was.
pub use options::HttpOptions;
