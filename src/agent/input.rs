//! Reading the user: the `Input` trait for lines and the `Approver` trait for permission
//! questions. Front ends implement both; plugins may replace them.

use super::tool::Preview;
use futures::future::BoxFuture;
use serde_json::Value;

/// Reads the user's lines.
pub trait Input: Send {
    /// The next line, or `None` at end of input.
    fn read_line(&mut self, prompt: &str) -> BoxFuture<'_, Option<String>>;
}

/// A question to the user: may this tool call run?
#[derive(Clone, Debug, PartialEq)]
pub struct ApprovalRequest {
    /// The id of the tool call asked about, so a front end can show which call waits.
    pub call_id: String,
    /// Canonical tool name.
    pub tool: String,
    pub args: Value,
    /// The call in one line, as the tool summarises it.
    pub summary: String,
    /// What to show the user: the tool's preview (the command, the diff a write or edit
    /// would make, or the arguments).
    pub preview: Preview,
}

/// The reason that marks a trust question's "no" (`Approval::NoBecause`): untrusted, and
/// not asked again. A plain `Approval::No` (Esc, Ctrl+C, nobody to ask) is "not now".
pub const NEVER_ASK_AGAIN: &str = "no, and do not ask again";

/// The user's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Approval {
    Yes,
    No,
    /// No, and the model is told why (the user's words).
    NoBecause(String),
    /// Yes, and do not ask again for this tool in this session.
    Always,
}

/// Asks the user to approve tool calls.
pub trait Approver: Send + Sync {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, Approval>;
}

/// Opens text in the user's editor and returns what they saved (`/context edit N`). The
/// front end makes room for the editor — the full-screen app suspends its screen — and
/// blocks until it closes.
pub trait TextEditor: Send + Sync {
    fn edit(&self, text: &str) -> anyhow::Result<String>;
}

/// An approver that cannot ask anyone and says no (headless runs).
pub struct DenyAll;

impl Approver for DenyAll {
    fn approve(&self, _request: ApprovalRequest) -> BoxFuture<'static, Approval> {
        Box::pin(async { Approval::No })
    }
}

/// An input with no lines: the front end's prompts come as requests (ACP, MCP).
pub struct NoLines;

impl Input for NoLines {
    fn read_line(&mut self, _prompt: &str) -> BoxFuture<'_, Option<String>> {
        Box::pin(async { None })
    }
}
