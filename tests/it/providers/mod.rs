//! The providers over real HTTP: each one's documented stream replayed by a local server, the requests we send, caching and cost.

mod aimock;
mod anthropic;
mod cache_props;
mod cli;
mod effort;
mod images;
pub mod model_server;
mod models;
mod ollama;
mod openai;
mod prompt_cache;
mod web_search;
