//! The process's TLS provider, a leaf: reqwest (the providers', the MCP client's and
//! `web_fetch`'s) is built without one (Cargo.toml), so each installs rustls' ring through
//! here before building a client.

/// Makes rustls' ring the process's TLS provider, once.
pub fn use_ring() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err only when a provider is installed already, which is what this wants.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
