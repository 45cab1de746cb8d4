//! Auto-compaction between turns: before a turn starts, when its first request (system
//! prompt, tools, conversation, the new prompt) would leave the turn too little room below
//! the window's threshold (`window::Budget`, 85% unless `ELELEM_AUTO_COMPACT` says
//! otherwise; `off` turns this off too) — a quarter of the window, so past 60% by default —
//! the older turns are summarised by the model, as `/compact` does, and replaced by that
//! summary; the newest turns that fit in half of that mark stay word for word. The summary
//! is shown (an `Info` event) and is the conversation's first message, so the context panel
//! shows it. The conversation is rewritten once: the requests after it share the new
//! prefix (and its cache) until the conversation fills up again.
//!
//! The summary request carries the older turns as one transcript text (no tool blocks, so
//! any provider takes it without tools), cut to fit the window: the longest messages lose
//! their middle first.

use super::output::{AgentEvent, Output};
use super::transcript::Transcript;
use super::window::{request_tokens, Budget};
use crate::protocol::models::estimate_tokens;
use crate::protocol::{EventStream, Message, Provider, ProviderEvent, Request, Role, ToolSpec};
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

/// The share of the window a turn's own tool traffic gets: compaction starts this far below
/// the threshold.
const ROOM_PCT: u64 = 25;
/// Tokens left for the summary request's instructions and the summary itself.
const SUMMARY_ROOM: u64 = 2_000;
/// The shortest a message is cut to in the summary request.
const MIN_ENTRY_CHARS: usize = 200;

/// What the summary request asks.
const ASK: &str = "Summarise the conversation above for your own later use: the goal, what was decided, \
                   what was done (files changed, commands run and their outcome), and what is left. Be \
                   complete but brief; this summary will replace those turns, and the latest turns \
                   follow it word for word.";

/// Compacts `transcript`'s conversation when a turn with `prompt` (and `tools` offered)
/// would pass `provider`'s threshold, asking `provider` for the summary and telling
/// `output`. `true` when the conversation was rewritten (the caller then publishes the new
/// context). A failure is shown as a warning and leaves the conversation as it was.
pub async fn before_turn(
    transcript: &mut Transcript,
    provider: &dyn Provider,
    tools: &[ToolSpec],
    output: &dyn Output,
    prompt: &str,
    cancel: &CancellationToken,
) -> bool {
    let Some(budget) = Budget::for_model(provider.model()) else { return false };
    if budget.threshold >= budget.window {
        return false;
    }
    let mut messages = transcript.messages(&[]);
    messages.push(Message::user(prompt));
    let before = request_tokens(&Request { messages, tools: tools.to_vec(), reply_schema: None });
    let mark = mark(budget);
    if before <= mark {
        return false;
    }
    let conversation = transcript.conversation.messages();
    let split = split_at(conversation, mark / 2);
    if split == 0 {
        return false;
    }
    let system = transcript.system_prompt.render();
    let room = budget.threshold.saturating_sub(estimate_tokens(&system) + SUMMARY_ROOM);
    let older = transcript_of(&conversation[..split], room as usize * 4);
    let request = Request {
        messages: vec![Message::system(system), Message::user(format!("{older}\n\n{ASK}"))],
        ..Request::default()
    };
    let turns = conversation[..split].iter().filter(|m| m.role == Role::User).count();
    let kept = conversation[split..].iter().filter(|m| m.role == Role::User).count();
    let summary = match collect_text(provider.fetch(request), cancel).await {
        Ok(summary) if !summary.trim().is_empty() => summary,
        Ok(_) => {
            output.emit(AgentEvent::Warning("auto-compaction: the model returned an empty summary".into()));
            return false;
        }
        Err(message) => {
            output.emit(AgentEvent::Warning(format!("auto-compaction failed: {message}")));
            return false;
        }
    };
    let mut compacted = vec![Message::user(format!(
        "Summary of the earlier conversation (compacted automatically to stay inside the context window; \
         the latest turns follow word for word):\n\n{}",
        summary.trim()
    ))];
    compacted.extend_from_slice(&conversation[split..]);
    transcript.conversation.replace_all(compacted);
    let mut messages = transcript.messages(&[]);
    messages.push(Message::user(prompt));
    let after = request_tokens(&Request { messages, tools: tools.to_vec(), reply_schema: None });
    output.emit(AgentEvent::Info(format!(
        "Compacted automatically: {turns} older turn(s) summarised, the latest {kept} kept word for word \
         (~{before} → ~{after} tokens of ~{}). Summary:\n\n{}",
        budget.window,
        summary.trim()
    )));
    true
}

/// Past this many tokens, a turn's first request has too little room left: a quarter of
/// the window below the threshold, but no lower than half the threshold.
fn mark(budget: Budget) -> u64 {
    budget.threshold.saturating_sub(budget.window * ROOM_PCT / 100).max(budget.threshold / 2)
}

/// The reply text of a stream without tools, or why there is none (a provider error, an
/// interrupt).
pub async fn collect_text(mut stream: EventStream, cancel: &CancellationToken) -> Result<String, String> {
    let mut text = String::new();
    loop {
        let event = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err("interrupted".into()),
            event = stream.next() => event,
        };
        match event {
            None => return Ok(text),
            Some(Ok(ProviderEvent::Saying(more))) => text.push_str(&more),
            Some(Ok(_)) => {}
            Some(Err(error)) => return Err(error.to_string()),
        }
    }
}

/// Where the kept turns begin: the earliest turn start (a user message) from which the rest
/// of `conversation` fits in `keep` tokens; the end when not even the last turn does.
fn split_at(conversation: &[Message], keep: u64) -> usize {
    let mut tokens = 0;
    let mut split = conversation.len();
    for (index, message) in conversation.iter().enumerate().rev() {
        tokens += estimate_tokens(&message.text()) + 4;
        if tokens > keep {
            break;
        }
        if message.role == Role::User {
            split = index;
        }
    }
    split
}

/// `messages` as one text for the summary request, at most about `chars` characters: when
/// longer, every message over a common cap loses its middle (the cap as large as fits),
/// and when even the shortest cap is too much, the oldest messages are left out.
fn transcript_of(messages: &[Message], chars: usize) -> String {
    let entries: Vec<String> = messages.iter().map(entry).collect();
    let total: usize = entries.iter().map(|e| e.chars().count()).sum();
    if total <= chars {
        return entries.join("\n\n");
    }
    let lengths: Vec<usize> = entries.iter().map(|e| e.chars().count()).collect();
    let fits = |cap: usize| lengths.iter().map(|&n| n.min(cap)).sum::<usize>() <= chars;
    let (mut low, mut high) = (MIN_ENTRY_CHARS, lengths.iter().copied().max().unwrap_or(0));
    while low < high {
        let mid = (low + high).div_ceil(2);
        if fits(mid) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let cap = low;
    let mut out: Vec<String> = entries.iter().map(|e| elide(e, cap)).collect();
    let mut left_out = 0;
    let mut size: usize = out.iter().map(|e| e.chars().count()).sum();
    while size > chars && out.len() > 1 {
        size -= out.remove(0).chars().count();
        left_out += 1;
    }
    if left_out > 0 {
        out.insert(0, format!("[{left_out} older message(s) left out: too long to summarise at once]"));
    }
    out.join("\n\n")
}

/// One message as transcript text.
fn entry(message: &Message) -> String {
    let mut text = match message.role {
        Role::User => format!("User: {}", message.content),
        Role::Assistant => format!("Assistant: {}", message.content),
        Role::Tool => format!("Result of {}: {}", message.name.as_deref().unwrap_or("a tool"), message.text()),
        Role::System => format!("System: {}", message.content),
    };
    for call in &message.tool_calls {
        text.push_str(&format!("\n(called {} with {})", call.name, call.arguments));
    }
    text
}

/// `text` cut to about `cap` characters by leaving out its middle.
fn elide(text: &str, cap: usize) -> String {
    let count = text.chars().count();
    if count <= cap {
        return text.to_string();
    }
    let half = cap.saturating_sub(60) / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!("{head}\n[… {} characters left out …]\n{tail}", count - 2 * half)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(prompt: &str, reply: &str) -> [Message; 2] {
        [Message::user(prompt), Message::assistant(reply)]
    }

    #[test]
    fn compaction_leaves_a_quarter_of_the_window_below_the_threshold() {
        assert_eq!(mark(Budget { window: 16_000, threshold: 13_600 }), 9_600);
        assert_eq!(mark(Budget { window: 16_000, threshold: 8_000 }), 4_000, "a low threshold halves");
    }

    #[test]
    fn the_newest_turns_that_fit_are_kept_and_a_turn_is_never_split() {
        let long = "x".repeat(4_000); // ~1,000 tokens
        let conversation: Vec<Message> =
            [turn("one", &long), turn("two", &long), turn("three", "short")].into_iter().flatten().collect();
        assert_eq!(split_at(&conversation, 500), 4, "only the last turn fits");
        assert_eq!(split_at(&conversation, 1_100), 2, "the last two fit");
        assert_eq!(split_at(&conversation, 2_000), 2, "the first turn does not: it is summarised");
        assert_eq!(split_at(&conversation, 10), 6, "not even the last: all are summarised");
        assert_eq!(split_at(&conversation, 100_000), 0);
    }

    #[test]
    fn a_long_transcript_loses_the_middle_of_its_longest_messages_first() {
        let long = "a".repeat(10_000) + &"z".repeat(10_000);
        let messages: Vec<Message> = [turn("short question", &long)].into_iter().flatten().collect();
        let text = transcript_of(&messages, 2_000);
        assert!(text.chars().count() <= 2_100, "{}", text.len());
        assert!(text.contains("User: short question"), "a short message stays whole");
        assert!(text.contains("Assistant: aaa") && text.ends_with("zzz") && text.contains("characters left out"));
        // Under the limit it is the messages as they are.
        assert_eq!(transcript_of(&messages[..1], 2_000), "User: short question");
    }

    #[test]
    fn too_many_messages_leave_the_oldest_out() {
        let messages: Vec<Message> = (0..100).map(|i| Message::user(format!("{i} {}", "w".repeat(400)))).collect();
        let text = transcript_of(&messages, 2_000);
        assert!(text.starts_with("[89 older message(s) left out"), "{}", &text[..80]);
        assert!(text.chars().count() <= 2_000 && text.contains("older message(s) left out"), "{}", &text[..80]);
        assert!(text.contains("User: 99 "));
    }
}
