//! The `Approver` of an ACP session: whatever the permissions gate would ask becomes a
//! `session/request_permission` to the client, and the turn waits for its answer. Only an
//! option we offered allows anything: `cancelled`, an unknown option, an error or a client
//! gone away all refuse.

use super::updates::{kind_of, text, title, AcpOutput, Link, ToolKind};
use crate::agent::input::{Approval, ApprovalRequest, Approver, NEVER_ASK_AGAIN};
use crate::agent::PreviewKind;
use futures::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;

pub struct AcpApprover {
    link: Arc<Link>,
    /// The session's output, which holds the changes the calls' previews reported.
    output: Arc<AcpOutput>,
}

impl AcpApprover {
    pub fn new(link: Arc<Link>, output: Arc<AcpOutput>) -> AcpApprover {
        AcpApprover { link, output }
    }
}

/// The options offered for a request: (optionId, name, kind, what choosing it means).
fn options(trust: bool) -> Vec<(&'static str, &'static str, &'static str, Approval)> {
    if trust {
        vec![
            ("allow_once", "Trust this project", "allow_once", Approval::Yes),
            ("reject_always", "Do not trust", "reject_always", Approval::NoBecause(NEVER_ASK_AGAIN.into())),
            ("reject_once", "Not now", "reject_once", Approval::No),
        ]
    } else {
        vec![
            ("allow_once", "Allow", "allow_once", Approval::Yes),
            ("allow_always", "Always allow", "allow_always", Approval::Always),
            ("reject_once", "Reject", "reject_once", Approval::No),
        ]
    }
}

/// The request's parameters (without the session id). A change the call's preview
/// reported whole (`change`, ACP `diff` content) is shown as such, after any notice the
/// permission gate put before the unified diff (outside the project, a symlink's target).
pub fn tool_call(request: &ApprovalRequest, change: Option<Value>) -> Value {
    let kind = match request.preview.kind {
        PreviewKind::Diff => ToolKind::Edit,
        PreviewKind::Command => ToolKind::Execute,
        _ => kind_of(None, &request.args),
    };
    let content = match change.filter(|_| request.preview.kind == PreviewKind::Diff) {
        Some(change) => {
            let notices = notices(&request.preview.text);
            let mut content = Vec::new();
            if !notices.is_empty() {
                content.push(json!({"type": "content", "content": text(&notices)}));
            }
            content.push(change);
            content
        }
        None => vec![json!({"type": "content", "content": text(&shown(request))})],
    };
    json!({
        "toolCallId": request.call_id,
        "title": title(&request.tool, &request.summary),
        "kind": kind,
        "status": "pending",
        "rawInput": request.args,
        "content": content,
    })
}

/// The lines of a diff preview before its unified diff (`--- a/…`).
fn notices(preview: &str) -> String {
    let lines: Vec<&str> = preview.lines().take_while(|line| !line.starts_with("--- ")).collect();
    lines.join("\n")
}

/// The preview as text: a diff or a command fenced.
fn shown(request: &ApprovalRequest) -> String {
    match request.preview.kind {
        PreviewKind::Diff => format!("```diff\n{}\n```", request.preview.text.trim_end()),
        PreviewKind::Command => format!("```sh\n{}\n```", request.preview.text.trim_end()),
        _ => request.preview.text.clone(),
    }
}

/// The answer the client's response means.
pub fn answer(response: &Value, trust: bool) -> Approval {
    let outcome = &response["outcome"];
    if outcome["outcome"].as_str() != Some("selected") {
        return Approval::No;
    }
    let chosen = outcome["optionId"].as_str().unwrap_or_default();
    options(trust).into_iter().find(|option| option.0 == chosen).map_or(Approval::No, |option| option.3)
}

impl Approver for AcpApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, Approval> {
        let link = self.link.clone();
        let change = self.output.change_of(&request.call_id);
        Box::pin(async move {
            let Some(session_id) = link.id() else { return Approval::No };
            let trust = request.preview.kind == PreviewKind::Trust;
            let offered: Vec<Value> = options(trust)
                .into_iter()
                .map(|(id, name, kind, _)| json!({"optionId": id, "name": name, "kind": kind}))
                .collect();
            let params = json!({"sessionId": session_id, "toolCall": tool_call(&request, change), "options": offered});
            match link.peer.request("session/request_permission", params).await {
                Ok(response) => answer(&response, trust),
                Err(error) => {
                    super::updates::log(&format!("session/request_permission failed: {error}"));
                    Approval::No
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_offered_option_allows() {
        let selected = |id: &str| json!({"outcome": {"outcome": "selected", "optionId": id}});
        assert_eq!(answer(&selected("allow_once"), false), Approval::Yes);
        assert_eq!(answer(&selected("allow_always"), false), Approval::Always);
        assert_eq!(answer(&selected("reject_once"), false), Approval::No);
        assert_eq!(answer(&selected("allow_everything"), false), Approval::No);
        assert_eq!(answer(&selected("allow_always"), true), Approval::No);
        assert_eq!(
            answer(&json!({"outcome": {"outcome": "cancelled", "optionId": "allow_once"}}), false),
            Approval::No
        );
        assert_eq!(answer(&json!({}), false), Approval::No);
        assert_eq!(answer(&json!("allow_once"), false), Approval::No);
    }
}
