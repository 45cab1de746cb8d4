//! The kernel's contract: a turn, the objects, a tool call, batching, compaction and the context window.

mod auto_compact;
mod batching;
mod before_line;
mod briefing;
mod context_window;
mod contract;
mod extensions;
mod line_hooks;
mod many_tool_calls;
mod plan;
mod repeated_reads;
mod robustness_props;
mod system_prompt;
mod task;
