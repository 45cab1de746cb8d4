//! Quick reading of Chat Completions chunks, two ways before serde. `Template`: a chunk
//! that is the last text chunk with only its delta's text changed (the same bytes before
//! and after that string) is read as that string alone. `Cursor`: any other chunk gets one
//! pass over its bytes that finds string ends with `memchr` and skips values it does not
//! need (`id`, `model`, ...) without looking inside.
//!
//! Both give what serde gives, or nothing: anything they are not sure of (a duplicate key,
//! a float, an escape in a key, a control character, a tool call, deep nesting) returns
//! `None` and the caller reads the chunk with serde as before. The property tests below
//! hold them to serde.

use super::{ChunkUsage, TextChoice, TextChunk, TextDelta};
use crate::protocol::ProviderEvent;
use serde::de::IgnoredAny;
use std::borrow::Cow;

/// Nesting skipped inside a value before giving up (serde's own limit is 128).
const MAX_DEPTH: usize = 32;

/// Reads `text` as a plain text chunk, or says it cannot.
#[cfg(test)]
fn read(text: &str) -> Option<TextChunk<'_>> {
    read_spanned(text).map(|(chunk, _)| chunk)
}

/// `read`, and where the delta's texts were.
fn read_spanned(text: &str) -> Option<(TextChunk<'_>, Spans)> {
    let mut cursor = Cursor { text, at: 0, spans: [None; 3] };
    let chunk = cursor.chunk()?;
    cursor.ws();
    (cursor.at == text.len()).then_some((chunk, cursor.spans))
}

/// The end of a JSON string's text (the index of its closing quote) in `rest`, which starts
/// just after the opening quote.
fn string_end(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut at = 0;
    loop {
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        if bytes[at] == b'"' {
            return Some(at);
        }
        at += 2;
    }
}

/// A JSON string's text (between its quotes): borrowed when it has no escapes, decoded by
/// serde when it has, `None` when JSON forbids it (raw control characters, bad escapes).
fn decode(inner: &str) -> Option<Cow<'_, str>> {
    use crate::bytes::all_bytes;
    // Most text: one pass finds neither a control character nor an escape.
    if all_bytes(inner.as_bytes(), |b| b >= 0x20 && b != b'\\') {
        return Some(Cow::Borrowed(inner));
    }
    if !all_bytes(inner.as_bytes(), |b| b >= 0x20) {
        return None;
    }
    serde_json::from_str::<String>(&format!("\"{inner}\"")).ok().map(Cow::Owned)
}

/// The rest of a stream's chunks, learned from one: when a chunk is the last one with only
/// its delta's text changed (same id, model, index, same bytes before and after the text),
/// that text is all there is to read. Most chunks of a stream are such chunks.
#[derive(Default)]
pub(super) struct Template {
    /// Up to and including the text's opening quote; empty until a chunk is learned.
    prefix: String,
    /// From the text's closing quote to the end.
    suffix: String,
    thinking: bool,
}

/// What a chunk that fits the template says.
#[derive(Debug, PartialEq)]
pub(super) enum Said<'a> {
    Saying(Cow<'a, str>),
    Thinking(Cow<'a, str>),
}

impl Said<'_> {
    /// The event it is, as `TextChunk::emit` gives it (none for empty text).
    pub(super) fn event(self) -> Option<ProviderEvent> {
        match self {
            Said::Saying(text) if !text.is_empty() => Some(ProviderEvent::Saying(text.into_owned())),
            Said::Thinking(text) if !text.is_empty() => Some(ProviderEvent::Thinking(text.into_owned())),
            _ => None,
        }
    }
}

impl Template {
    /// `text` read as a chunk that differs from the learned one in its delta's text only.
    pub(super) fn read<'a>(&self, text: &'a str) -> Option<Said<'a>> {
        if self.prefix.is_empty() {
            return None;
        }
        let rest = text.strip_prefix(self.prefix.as_str())?;
        let end = string_end(rest)?;
        if rest[end..] != *self.suffix {
            return None;
        }
        let said = decode(&rest[..end])?;
        Some(if self.thinking { Said::Thinking(said) } else { Said::Saying(said) })
    }

    /// Reads `text` (as `read` does) and learns it as the template when it is one choice's
    /// text and nothing else: no usage, no finish, no error, no tool call, no other text.
    /// Otherwise the template stays what it was: any chunk the reader took is a fair one.
    pub(super) fn learn<'a>(&mut self, text: &'a str) -> Option<TextChunk<'a>> {
        let (chunk, spans) = read_spanned(text)?;
        let fits = chunk.usage.is_none()
            && chunk.error.is_none()
            && matches!(chunk.choices.as_slice(), [choice] if choice.finish_reason.is_none());
        let Some(delta) = chunk.choices.first().and_then(|c| c.delta.as_ref()).filter(|d| d.tool_calls.is_none())
        else {
            return Some(chunk);
        };
        let said = |text: &Option<Cow<str>>| text.as_deref().is_some_and(|t| !t.is_empty());
        let texts = [&delta.content, &delta.reasoning_content, &delta.reasoning];
        // The content, unless a reasoning text is there too; or the one reasoning text.
        let varying = match texts.map(said) {
            [_, false, false] => 0,
            [false, true, false] => 1,
            [false, false, true] => 2,
            _ => return Some(chunk),
        };
        if let (true, Some((start, end))) = (fits, spans[varying]) {
            self.prefix.clear();
            self.prefix.push_str(&text[..=start]);
            self.suffix.clear();
            self.suffix.push_str(&text[end - 1..]);
            self.thinking = varying > 0;
        }
        Some(chunk)
    }
}

/// Where the last delta's `content`, `reasoning_content` and `reasoning` strings were (start
/// and end, quotes included).
type Spans = [Option<(usize, usize)>; 3];

struct Cursor<'a> {
    text: &'a str,
    at: usize,
    spans: Spans,
}

impl<'a> Cursor<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.at).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
        }
    }

    /// Skips whitespace and takes `byte` if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        self.ws();
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    fn literal(&mut self, word: &str) -> Option<()> {
        self.ws();
        self.text[self.at..].starts_with(word).then(|| self.at += word.len())
    }

    /// `null` next (consumed) or not (nothing consumed but whitespace).
    fn null(&mut self) -> bool {
        self.literal("null").is_some()
    }

    /// The members of an object, each key handed to `member` with the cursor on its value.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        if !self.eat(b'{') {
            return None;
        }
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            self.ws();
            let key = self.key()?;
            if !self.eat(b':') {
                return None;
            }
            member(self, key)?;
            if self.eat(b'}') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// The items of an array, each read by `item`.
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if !self.eat(b'[') {
            return None;
        }
        if self.eat(b']') {
            return Some(());
        }
        loop {
            item(self)?;
            if self.eat(b']') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// A key without escapes (serde matches field names on decoded text; an escaped key is
    /// left to it).
    fn key(&mut self) -> Option<&'a str> {
        match self.string()? {
            Cow::Borrowed(key) => Some(key),
            Cow::Owned(_) => None,
        }
    }

    /// A string, borrowed when it has no escapes, decoded by serde when it has.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let rest = self.text.get(self.at + 1..)?;
        let end = string_end(rest)?;
        self.at += end + 2;
        decode(&rest[..end])
    }

    /// A string or `null`; anything else is not for the quick reader.
    fn text(&mut self) -> Option<Option<Cow<'a, str>>> {
        self.ws();
        if self.null() {
            return Some(None);
        }
        self.string().map(Some)
    }

    /// `text`, noting where its string was as the delta's field `field`.
    fn spanned_text(&mut self, field: usize) -> Option<Option<Cow<'a, str>>> {
        self.ws();
        let start = self.at;
        let text = self.text()?;
        self.spans[field] = text.as_ref().map(|_| (start, self.at));
        Some(text)
    }

    /// A whole number without sign, fraction or exponent, as serde reads a `u64`.
    fn count(&mut self) -> Option<u64> {
        self.ws();
        let digits = self.bytes()[self.at..].iter().take_while(|b| b.is_ascii_digit()).count();
        let number = &self.text[self.at..self.at + digits];
        if digits == 0 || (digits > 1 && number.starts_with('0')) {
            return None;
        }
        self.at += digits;
        if matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        number.parse().ok()
    }

    /// A count or `null`.
    fn maybe_count(&mut self) -> Option<Option<u64>> {
        if self.null() {
            return Some(None);
        }
        self.count().map(Some)
    }

    /// Skips any value this reader accepts: strings, whole numbers, literals, and objects
    /// and arrays of them.
    fn skip(&mut self, depth: usize) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' if depth < MAX_DEPTH => self.object(|cursor, _| cursor.skip(depth + 1)),
            b'[' if depth < MAX_DEPTH => self.array(|cursor| cursor.skip(depth + 1)),
            b'n' => self.literal("null"),
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'-' => {
                self.at += 1;
                self.count().map(drop)
            }
            b'0'..=b'9' => self.count().map(drop),
            _ => None,
        }
    }

    /// `null` as `None`, any other value skipped as `Some`: serde's `Option<IgnoredAny>`.
    fn ignored(&mut self) -> Option<Option<IgnoredAny>> {
        if self.null() {
            return Some(None);
        }
        self.skip(0).map(|()| Some(IgnoredAny))
    }

    fn chunk(&mut self) -> Option<TextChunk<'a>> {
        let mut choices = None;
        let mut usage = None;
        let mut error = None;
        self.object(|cursor, key| match key {
            "choices" => once(&mut choices, cursor.choices()?),
            "usage" => once(&mut usage, if cursor.null() { None } else { Some(cursor.usage()?) }),
            "error" => once(&mut error, cursor.ignored()?),
            _ => cursor.skip(0),
        })?;
        Some(TextChunk { choices: choices.unwrap_or_default(), usage: usage.flatten(), error: error.flatten() })
    }

    fn choices(&mut self) -> Option<Vec<TextChoice<'a>>> {
        let mut choices = Vec::with_capacity(1);
        self.array(|cursor| {
            choices.push(cursor.choice()?);
            Some(())
        })?;
        Some(choices)
    }

    fn choice(&mut self) -> Option<TextChoice<'a>> {
        let mut finish_reason = None;
        let mut delta = None;
        self.object(|cursor, key| match key {
            "finish_reason" => once(&mut finish_reason, cursor.ignored()?),
            "delta" => once(&mut delta, if cursor.null() { None } else { Some(cursor.delta()?) }),
            _ => cursor.skip(0),
        })?;
        Some(TextChoice { finish_reason: finish_reason.flatten(), delta: delta.flatten() })
    }

    fn delta(&mut self) -> Option<TextDelta<'a>> {
        let (mut content, mut reasoning_content, mut reasoning, mut tool_calls) = (None, None, None, None);
        self.object(|cursor, key| match key {
            "content" => once(&mut content, cursor.spanned_text(0)?),
            "reasoning_content" => once(&mut reasoning_content, cursor.spanned_text(1)?),
            "reasoning" => once(&mut reasoning, cursor.spanned_text(2)?),
            "tool_calls" => once(&mut tool_calls, cursor.ignored()?),
            _ => cursor.skip(0),
        })?;
        Some(TextDelta {
            content: content.flatten(),
            reasoning_content: reasoning_content.flatten(),
            reasoning: reasoning.flatten(),
            tool_calls: tool_calls.flatten(),
        })
    }

    fn usage(&mut self) -> Option<ChunkUsage> {
        let (mut prompt_tokens, mut completion_tokens) = (None, None);
        self.object(|cursor, key| match key {
            "prompt_tokens" => once(&mut prompt_tokens, cursor.maybe_count()?),
            "completion_tokens" => once(&mut completion_tokens, cursor.maybe_count()?),
            // The cache's share is read the serde way (once per reply: no cost).
            "prompt_tokens_details" => None,
            _ => cursor.skip(0),
        })?;
        Some(ChunkUsage {
            prompt_tokens: prompt_tokens.flatten(),
            completion_tokens: completion_tokens.flatten(),
            prompt_tokens_details: None,
        })
    }
}

/// Sets a field the first time; a second time is serde's "duplicate field" error.
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn serde(text: &str) -> Option<TextChunk<'_>> {
        serde_json::from_str(text).ok()
    }

    #[test]
    fn reads_what_the_mock_and_real_servers_send() {
        let chunk = r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":null,"choices":[{"index":0,"delta":{"role":"assistant","content":"a \"b\"\n\u00e9"},"logprobs":null,"finish_reason":null}]}"#;
        let quick = read(chunk).expect("read");
        assert_eq!(quick, serde(chunk).expect("serde"));
        assert_eq!(quick.choices[0].delta.as_ref().and_then(|d| d.content.as_deref()), Some("a \"b\"\né"));
        let usage = r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":25,"total_tokens":35,"details":{"cached":[1,2]}}}"#;
        assert_eq!(read(usage), serde(usage));
        assert_eq!(read(usage).and_then(|c| c.usage).and_then(|u| u.completion_tokens), Some(25));
    }

    #[test]
    fn leaves_what_it_is_not_sure_of_to_serde() {
        for text in [
            r#"{"choices":[],"choices":[]}"#,
            r#"{"choices":[{"delta":{"content":"a","content":"b"}}]}"#,
            r#"{"created":1.5,"choices":[]}"#,
            r#"{"ch\u006fices":[]}"#,
            "{\"choices\":[{\"delta\":{\"content\":\"a\u{1}b\"}}]}",
            r#"{"choices":[{"delta":{"content":42}}]}"#,
            r#"{"choices":[]} x"#,
            r#"{"choices":[],}"#,
            r#"{"usage":{"prompt_tokens":-1}}"#,
            r#"{"usage":{"prompt_tokens":99999999999999999999}}"#,
            r#"{"choices":[{"delta":{"content":"unterminated}}]}"#,
        ] {
            assert_eq!(read(text), None, "{text}");
        }
        let deep = format!(r#"{{"x":{}{}}}"#, "[".repeat(40), "]".repeat(40));
        assert_eq!(read(&deep), None);
    }

    /// Pieces of chunks, right and wrong, glued together in any order.
    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\n",
            "\"",
            "\\",
            "\\n",
            "\\\"",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\x",
            "null",
            "true",
            "fals",
            "0",
            "01",
            "12",
            "-3",
            "1.5",
            "2e3",
            "18446744073709551616",
            "\"choices\"",
            "\"delta\"",
            "\"content\"",
            "\"reasoning\"",
            "\"reasoning_content\"",
            "\"tool_calls\"",
            "\"finish_reason\"",
            "\"usage\"",
            "\"prompt_tokens\"",
            "\"completion_tokens\"",
            "\"error\"",
            "\"id\"",
            "\"stop\"",
            "\"text é\"",
            "\u{1}",
        ])
    }

    /// A well-formed chunk with arbitrary text in its strings and optional fields.
    fn chunk() -> impl Strategy<Value = String> {
        let text = prop_oneof![Just("null".to_string()), any::<String>().prop_map(|s| Value::from(s).to_string())];
        let count = prop_oneof![Just("null".to_string()), any::<u64>().prop_map(|n| n.to_string())];
        (text.clone(), text.clone(), text, count, prop::bool::ANY, prop::bool::ANY).prop_map(
            |(content, reasoning, id, tokens, finish, tools)| {
                let finish = if finish { "\"stop\"" } else { "null" };
                let tools = if tools { r#","tool_calls":[{"index":0,"function":{"arguments":"{}"}}]"# } else { "" };
                format!(
                    r#"{{"id":{id},"created":7,"choices":[{{"index":0,"delta":{{"content":{content},"reasoning":{reasoning}{tools}}},"finish_reason":{finish}}}],"usage":{{"prompt_tokens":{tokens},"x":[true,false,-0]}}}}"#
                )
            },
        )
    }

    /// A chunk whose delta's `field` is `text` (JSON), framed as real servers frame it.
    fn with_text(field: &str, text: &str) -> String {
        format!(
            r#"{{"id":"c-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{"{field}":{text}}},"logprobs":null,"finish_reason":null}}]}}"#
        )
    }

    /// Serde's reading of `text` as events, if it is a plain chunk with no finish.
    fn serde_events(text: &str) -> Option<Vec<ProviderEvent>> {
        let chunk = serde(text).filter(TextChunk::is_plain)?;
        let (mut finished, mut out) = (false, Vec::new());
        chunk.emit(&mut finished, &mut out);
        (!finished).then_some(out)
    }

    #[test]
    fn a_template_is_learned_from_text_chunks_only() {
        let mut template = Template::default();
        let learned = |template: &mut Template, text: &str| {
            template.learn(text);
            template.read(text).is_some()
        };
        assert!(learned(&mut template, &with_text("content", r#""hi""#)));
        assert!(learned(&mut template, &with_text("reasoning", r#""hm""#)));
        assert!(!learned(&mut template, &with_text("content", "null")));
        assert!(!learned(&mut template, r#"{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}"#));
        assert!(!learned(&mut template, r#"{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1}}"#));
        assert!(!learned(&mut template, r#"{"choices":[{"delta":{"content":"a","reasoning":"b"}}]}"#));
        assert!(!learned(&mut template, r#"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}"#));
        assert!(learned(&mut template, r#"{"choices":[{"delta":{"content":"","reasoning":"b"}}]}"#));
        let next = r#"{"choices":[{"delta":{"content":"","reasoning":"c \"d\""}}]}"#;
        assert_eq!(template.read(next), Some(Said::Thinking("c \"d\"".into())));
        assert_eq!(template.read(r#"{"choices":[{"delta":{"content":"","reasoning":"c"}}]} "#), None);
        assert_eq!(template.read(r#"{"choices":[{"delta":{"content":"","reasoning":"c"}}],"x":1}"#), None);
    }

    proptest! {
        /// A chunk read by the template from the one before says what serde says it says;
        /// with a piece of JSON put anywhere in it, it still does or is not read.
        #[test]
        fn a_template_reads_what_serde_reads(
            field in prop::sample::select(vec!["content", "reasoning_content", "reasoning"]),
            first in any::<String>(),
            next in any::<String>(),
            at in any::<prop::sample::Index>(),
            inserted in piece(),
        ) {
            let mut template = Template::default();
            let learned_from = with_text(field, &Value::from(first.clone()).to_string());
            prop_assert_eq!(template.learn(&learned_from), serde(&learned_from));
            let text = with_text(field, &Value::from(next).to_string());
            let said = template.read(&text);
            prop_assert_eq!(said.is_some(), field == "content" || !first.is_empty());
            if let Some(said) = said {
                prop_assert_eq!(Some(said.event().into_iter().collect()), serde_events(&text));
            }
            let mut cut = at.index(text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            let changed = format!("{}{inserted}{}", &text[..cut], &text[cut..]);
            if let Some(said) = template.read(&changed) {
                prop_assert_eq!(Some(said.event().into_iter().collect()), serde_events(&changed), "{}", changed);
            }
        }
        /// On any text, the quick reader gives serde's chunk or nothing.
        #[test]
        fn gives_serdes_chunk_or_nothing(pieces in prop::collection::vec(piece(), 0..40)) {
            let text = pieces.concat();
            if let Some(quick) = read(&text) {
                prop_assert_eq!(Some(quick), serde(&text), "{}", text);
            }
        }

        /// On well-formed chunks it always reads, and reads what serde reads.
        #[test]
        fn reads_every_well_formed_chunk(text in chunk()) {
            prop_assert_eq!(read(&text), serde(&text), "{}", text);
            prop_assert!(read(&text).is_some(), "{}", text);
        }
    }
}
