//! The HTTP side shared by the network providers: the client's options (`options.rs`), one
//! model call and the redaction of its secrets (`call.rs`), and the text of what went
//! wrong (`error_text.rs`). The driver that runs a call lives in `driver.rs`, the parsers'
//! interface next to the framing (`parser.rs`).

pub(crate) mod call;
pub(crate) mod error_text;
pub(crate) mod options;

/// What a provider's config holds (`config.http`), named where it always was.
pub use options::HttpOptions;

/// Makes rustls' ring the process's TLS provider, once: reqwest (ours and the MCP client's)
/// is built without one (Cargo.toml), so every client is built after this.
pub fn use_ring_tls() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err only when a provider is installed already, which is what this wants.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
