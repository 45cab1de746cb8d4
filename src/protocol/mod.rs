//! The shared vocabulary of elelem: messages, tool calls, tool specs and results, and the
//! `Provider` trait with its requests, events and errors. A leaf: it imports nothing from
//! the rest of the crate, so the kernel and the providers both depend on it and not on
//! each other.

pub mod events;
pub mod image;
pub mod joined;
pub mod message;
pub mod mode;
pub mod models;
pub mod plan;
pub mod provider;
pub mod readiness;
pub mod reply_schema;
pub mod tool;

pub use image::Image;
pub use message::{Message, Role, ThinkingBlock, ToolCall};
pub use models::ModelInfo;
pub use provider::{
    Effort, EventStream, Provider, ProviderError, ProviderEvent, ProviderFactory, ProviderSettings, Providers, Request,
    Usage,
};
pub use reply_schema::ReplySchema;
pub use tool::{ToolResult, ToolSpec};
