//! Keeps a request inside the model's context window. Before each model call the request's
//! size is estimated; past a threshold of the window (85% unless `ELELEM_AUTO_COMPACT` says
//! another percentage, or `off`), the oldest tool results of this turn are cut down — the
//! call and its outcome stay, long fields become a note saying how much was dropped and how
//! to get it back — oldest first, the newest step's results last. The cut is made in the
//! turn's own messages, so the prefix is rewritten once, not on every request (a prompt
//! cache keeps reading it). A request that still does not fit the window is not sent.

use crate::protocol::models::{context_window, estimate_tokens};
use crate::protocol::{Message, Request, Role, ToolResult};
use serde_json::{Map, Value};

/// The share of the window a request may fill before older results are cut.
pub const DEFAULT_THRESHOLD_PCT: u64 = 85;

/// A result field longer than this is cut; shorter ones (path, exit code, ok) are kept.
const KEEP_FIELD_BYTES: usize = 200;

/// How large a request may be for the current model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The model's window, in tokens.
    pub window: u64,
    /// Past this many tokens, older results are cut.
    pub threshold: u64,
}

impl Budget {
    /// The budget for `model` (its known window, or `ELELEM_CONTEXT_WINDOW`) with the
    /// threshold of `ELELEM_AUTO_COMPACT`; `None` for an unknown window. With `off`, the
    /// threshold is the window itself: nothing is cut, an oversized request is still refused.
    pub fn for_model(model: &str) -> Option<Budget> {
        let window = context_window(model)?;
        let percent = match std::env::var("ELELEM_AUTO_COMPACT").ok().map(|v| v.trim().to_ascii_lowercase()) {
            Some(off) if off == "off" || off == "0" => 100,
            Some(pct) => pct
                .trim_end_matches('%')
                .parse::<u64>()
                .ok()
                .filter(|p| (1..=100).contains(p))
                .unwrap_or(DEFAULT_THRESHOLD_PCT),
            None => DEFAULT_THRESHOLD_PCT,
        };
        Some(Budget { window, threshold: window * percent / 100 })
    }
}

/// What fitting a request did.
#[derive(Debug, PartialEq, Eq)]
pub enum Fit {
    Fits,
    /// This many results of the turn were cut, dropping this many bytes.
    Cut {
        results: usize,
        bytes: usize,
    },
    /// Even with every older result cut, the request is ~`tokens`: it is not sent.
    TooBig {
        tokens: u64,
        window: u64,
    },
}

/// The estimated tokens of one message as sent (its images by their pixels).
fn message_tokens(message: &Message) -> u64 {
    estimate_tokens(&message.text()) + 4 + message.images.iter().map(|i| i.estimate_tokens()).sum::<u64>()
}

/// The estimated tokens of `request`.
pub fn request_tokens(request: &Request) -> u64 {
    let tools: u64 = request
        .tools
        .iter()
        .map(|t| estimate_tokens(&t.parameters.to_string()) + estimate_tokens(&t.description) + 20)
        .sum();
    request.messages.iter().map(message_tokens).sum::<u64>() + tools
}

/// Fits `request`, whose messages end with `scratch` (this turn's tool traffic), into
/// `budget`, cutting results in `scratch` as needed. The caller rebuilds the request from
/// `scratch` after a `Cut`.
pub fn fit(request: &Request, scratch: &mut [Message], budget: Budget) -> Fit {
    let mut tokens = request_tokens(request);
    if tokens <= budget.threshold {
        return Fit::Fits;
    }
    // The newest step's results are what the model just asked for: cut them last.
    let newest_step = scratch.iter().rposition(|m| m.role == Role::Assistant).unwrap_or(0);
    let order = (0..newest_step).chain(newest_step..scratch.len());
    let (mut results, mut bytes) = (0, 0);
    for index in order {
        if tokens <= budget.threshold {
            break;
        }
        let message = &mut scratch[index];
        let Some(result) = message.result.as_ref() else { continue };
        let before = message_tokens(message);
        let (cut, dropped) = cut_down(result, message.name.as_deref().unwrap_or("the tool"));
        if dropped == 0 {
            continue;
        }
        message.result = Some(cut);
        tokens = tokens.saturating_sub(before) + message_tokens(message);
        results += 1;
        bytes += dropped;
        if let Some(id) = message.tool_call_id.clone() {
            super::repeated_results::orphan(scratch, &id);
        }
    }
    if tokens > budget.window {
        return Fit::TooBig { tokens, window: budget.window };
    }
    if results == 0 {
        Fit::Fits
    } else {
        Fit::Cut { results, bytes }
    }
}

/// `result` with its long fields replaced by a note, and the bytes dropped.
fn cut_down(result: &ToolResult, tool: &str) -> (ToolResult, usize) {
    let mut fields = Map::new();
    let mut dropped = 0;
    for (key, value) in result.fields() {
        let size = value.to_string().len();
        if size <= KEEP_FIELD_BYTES || key == "error" && size <= 4 * KEEP_FIELD_BYTES {
            fields.insert(key.clone(), value.clone());
        } else {
            dropped += size;
        }
    }
    if dropped == 0 {
        return (result.clone(), 0);
    }
    let note = format!(
        "[cut by elelem to keep the request inside the model's context window: {dropped} bytes of this \
         result were dropped; call {tool} again if you need them]"
    );
    fields.insert("content".into(), Value::String(note));
    if !result.is_ok() && !fields.contains_key("error") {
        fields.insert("error".into(), Value::String("failed (details cut)".into()));
    }
    (ToolResult::from_value(Value::Object(fields)), dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ToolCall;
    use serde_json::json;

    fn read(id: &str, text: &str) -> [Message; 2] {
        let call = ToolCall { id: id.into(), name: "read".into(), arguments: json!({"path": id}) };
        let mut asked = Message::assistant("");
        asked.tool_calls = vec![call.clone()];
        let result = ToolResult::from_value(json!({"content": text, "path": id}));
        [asked, Message::tool_result(&call, result)]
    }

    fn request(scratch: &[Message]) -> Request {
        let mut messages = vec![Message::system("sys"), Message::user("go")];
        messages.extend_from_slice(scratch);
        Request { messages, ..Request::default() }
    }

    #[test]
    fn the_oldest_results_are_cut_first_and_the_newest_kept() {
        let big = "x".repeat(4_000); // ~1,000 tokens each
        let mut scratch: Vec<Message> = ["a", "b", "c", "d"].iter().flat_map(|id| read(id, &big)).collect();
        let budget = Budget { window: 3_000, threshold: 2_550 };
        let fit = fit(&request(&scratch), &mut scratch, budget);
        assert_eq!(fit, Fit::Cut { results: 2, bytes: 2 * 4_002 });
        let content =
            |i: usize| scratch[i].result.as_ref().unwrap().get("content").unwrap().as_str().unwrap().to_string();
        assert!(content(1).contains("4002 bytes of this result were dropped; call read again"), "{}", content(1));
        assert!(content(3).contains("dropped"));
        assert_eq!(content(5), big);
        assert_eq!(content(7), big);
        // The path and the outcome stay.
        assert_eq!(scratch[1].result.as_ref().unwrap().get("path"), Some(&json!("a")));
        assert!(scratch[1].result.as_ref().unwrap().is_ok());
        assert!(request_tokens(&request(&scratch)) <= budget.threshold);
    }

    #[test]
    fn a_request_that_cannot_fit_is_refused_and_a_small_one_untouched() {
        let mut scratch: Vec<Message> = read("a", &"x".repeat(400)).to_vec();
        let huge = Request { messages: vec![Message::user("y".repeat(40_000))], ..Request::default() };
        let budget = Budget { window: 1_000, threshold: 850 };
        assert!(matches!(fit(&huge, &mut scratch, budget), Fit::TooBig { window: 1_000, .. }));
        let mut small: Vec<Message> = read("a", "hello").to_vec();
        let before = small.clone();
        assert_eq!(fit(&request(&small), &mut small, budget), Fit::Fits);
        assert_eq!(small, before);
    }
}
