//! What a stdio server's stdout may bring: its JSON-RPC lines pass through `Bounded` before
//! rmcp reads them. Every JSON string is cut to its first and last `STRING_KEEP` bytes with
//! a note in the middle (so a 17 MB text or a 50 MB image arrives as ~32 KB), a value nested
//! deeper than `MAX_DEPTH` becomes `null` (serde would refuse the whole message), and a line
//! still longer than `LINE_CAP` is replaced by a JSON-RPC error for its `id`, so the call it
//! answers ends with that error instead of waiting for an answer rmcp would drop. Memory
//! stays bounded by `LINE_CAP` whatever the server sends (a line that never ends included).

use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// Bytes kept at each end of a long JSON string (escaped form).
pub const STRING_KEEP: usize = 16 * 1024;
/// The longest line passed on (after strings were cut).
pub const LINE_CAP: usize = 32 * 1024 * 1024;
/// The deepest nesting passed on; deeper values become `null`.
pub const MAX_DEPTH: usize = 64;
/// The longest `id` remembered for an error answer.
const ID_CAP: usize = 128;

/// The note put in the middle of a cut string (JSON-escaped: `\n` is two bytes).
pub fn cut_note(cut: u64, total: u64) -> String {
    format!("\\n[... {cut} bytes cut from the middle of {total} bytes ...]\\n")
}

/// A string being read.
struct Str {
    /// Content bytes kept at the head.
    kept: usize,
    /// Content bytes seen.
    total: u64,
    /// Bytes of an escape still to come (`PENDING`: the letter after `\`).
    escape: u8,
    /// Past the head: later bytes go to `tail`.
    cut: bool,
    tail: Vec<u8>,
    /// Whether `tail[i]` starts a character or an escape.
    starts: Vec<bool>,
    /// The key at depth 1 being read (`Some` while it is short).
    key: Option<Vec<u8>>,
}

const PENDING: u8 = u8::MAX;

/// The line filter, fed bytes as they come.
#[derive(Default)]
pub struct Bounded {
    line: Vec<u8>,
    /// The line passed `LINE_CAP`: the rest of it is only scanned for its `id`.
    overflow: bool,
    depth: usize,
    /// Inside a value too deep: nesting left to skip, and the skipper's string state.
    skip: usize,
    skip_string: bool,
    skip_escape: bool,
    string: Option<Box<Str>>,
    /// At depth 1: whether the next string is a key, the last key, the `id` value.
    expect_key: bool,
    last_key_is_id: bool,
    capturing: bool,
    id: Option<Vec<u8>>,
    /// The top level is an object (only then is there an `id` to answer).
    object: bool,
}

impl Bounded {
    pub fn new() -> Self {
        Self::default()
    }

    /// Scans `input`; every line it completes is appended to `out` with its `\n`.
    pub fn feed(&mut self, mut input: &[u8], out: &mut Vec<u8>) {
        while !input.is_empty() {
            if self.string.is_some() && self.skip == 0 {
                // Plain string content runs up to the next quote, backslash or line end.
                let plain = memchr::memchr3(b'"', b'\\', b'\n', input).unwrap_or(input.len());
                let escape = self.string.as_ref().map_or(0, |s| s.escape);
                if plain > 0 && escape == 0 {
                    self.string_run(&input[..plain]);
                    input = &input[plain..];
                    continue;
                }
            }
            self.byte(input[0], out);
            input = &input[1..];
        }
    }

    fn byte(&mut self, b: u8, out: &mut Vec<u8>) {
        if b == b'\n' {
            return self.end_line(out);
        }
        if self.skip > 0 {
            return self.skip_byte(b);
        }
        if self.string.is_some() {
            return self.string_byte(b);
        }
        match b {
            b' ' | b'\t' | b'\r' => {}
            b'"' => {
                let key = (self.depth == 1 && self.expect_key && self.object).then(Vec::new);
                if key.is_some() {
                    self.last_key_is_id = false;
                }
                self.string = Some(Box::new(Str {
                    kept: 0,
                    total: 0,
                    escape: 0,
                    cut: false,
                    tail: Vec::new(),
                    starts: Vec::new(),
                    key,
                }));
                self.emit(b'"');
            }
            b'{' | b'[' if self.depth >= MAX_DEPTH => {
                self.skip = 1;
                self.emit_all(b"null");
            }
            b'{' | b'[' => {
                if self.depth == 0 {
                    self.object = b == b'{';
                }
                if self.depth == 1 && self.capturing {
                    // An `id` that is not a number or a string: none to answer.
                    self.capturing = false;
                    self.id = None;
                }
                self.depth += 1;
                self.expect_key = self.depth == 1 && b == b'{';
                self.emit(b);
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.capturing = false;
                }
                self.depth = self.depth.saturating_sub(1);
                self.emit(b);
            }
            b',' if self.depth == 1 => {
                self.capturing = false;
                self.expect_key = self.object;
                self.emit(b);
            }
            b':' if self.depth == 1 => {
                self.expect_key = false;
                self.emit(b);
                if self.last_key_is_id {
                    self.capturing = true;
                    self.id = Some(Vec::new());
                }
            }
            _ => self.emit(b),
        }
    }

    fn skip_byte(&mut self, b: u8) {
        if self.skip_string {
            if self.skip_escape {
                self.skip_escape = false;
            } else if b == b'\\' {
                self.skip_escape = true;
            } else if b == b'"' {
                self.skip_string = false;
            }
            return;
        }
        match b {
            b'"' => self.skip_string = true,
            b'{' | b'[' => self.skip += 1,
            b'}' | b']' => self.skip -= 1,
            _ => {}
        }
    }

    /// Content with no quote, backslash or line end in it.
    fn string_run(&mut self, run: &[u8]) {
        let Some(mut s) = self.string.take() else { return };
        s.total += run.len() as u64;
        if let Some(key) = &mut s.key {
            if key.len() + run.len() <= 8 {
                key.extend_from_slice(run);
            } else {
                s.key = None;
            }
        }
        let mut rest = run;
        if !s.cut {
            let mut take = rest.len().min(STRING_KEEP - s.kept);
            // Stop at a character's start.
            // Continuation bytes finish the character the head ends with (a pipe may split one).
            while take < rest.len() && is_continuation(rest[take]) {
                take += 1;
            }
            self.emit_all(&rest[..take]);
            s.kept += take;
            rest = &rest[take..];
            if !rest.is_empty() {
                s.cut = true;
            }
        }
        if s.cut && !rest.is_empty() {
            let keep = &rest[rest.len().saturating_sub(2 * STRING_KEEP)..];
            s.tail.extend_from_slice(keep);
            s.starts.extend(keep.iter().map(|b| !is_continuation(*b)));
            trim_tail(&mut s, 4 * STRING_KEEP, 2 * STRING_KEEP);
        }
        self.string = Some(s);
    }

    /// A quote, a backslash or a byte of an escape.
    fn string_byte(&mut self, b: u8) {
        let Some(mut s) = self.string.take() else { return };
        let start = match s.escape {
            0 if b == b'"' => return self.end_string(s),
            0 => {
                if b == b'\\' {
                    s.escape = PENDING;
                }
                true
            }
            PENDING => {
                s.escape = if b == b'u' { 4 } else { 0 };
                false
            }
            _ => {
                s.escape -= 1;
                false
            }
        };
        s.key = None;
        s.total += 1;
        if !s.cut && (s.kept < STRING_KEEP || !start) {
            self.emit(b);
            s.kept += 1;
        } else {
            s.cut = true;
            s.tail.push(b);
            s.starts.push(start);
            trim_tail(&mut s, 4 * STRING_KEEP, 2 * STRING_KEEP);
        }
        self.string = Some(s);
    }

    fn end_string(&mut self, mut s: Box<Str>) {
        if s.cut {
            trim_tail(&mut s, STRING_KEEP, STRING_KEEP);
            let cut = s.total - s.kept as u64 - s.tail.len() as u64;
            self.emit_all(cut_note(cut, s.total).as_bytes());
            self.emit_all(&s.tail);
        }
        self.emit(b'"');
        if self.depth == 1 && s.key.is_some() {
            self.last_key_is_id = s.key.as_deref() == Some(b"id");
        }
    }

    fn emit(&mut self, b: u8) {
        self.emit_all(&[b]);
    }

    fn emit_all(&mut self, bytes: &[u8]) {
        if self.capturing {
            if let Some(id) = &mut self.id {
                if id.len() + bytes.len() <= ID_CAP {
                    id.extend_from_slice(bytes);
                } else {
                    self.id = None;
                    self.capturing = false;
                }
            }
        }
        if self.overflow {
            return;
        }
        if self.line.len() + bytes.len() > LINE_CAP {
            self.overflow = true;
            self.line = Vec::new();
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    fn end_line(&mut self, out: &mut Vec<u8>) {
        if self.overflow {
            if let Some(id) = self.id.take().filter(|id| !id.is_empty()) {
                let id = String::from_utf8_lossy(&id).into_owned();
                let message = format!(
                    "elelem dropped this answer: it was over {} MB even with its long strings cut",
                    LINE_CAP / (1024 * 1024)
                );
                let error = format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"{message}"}}}}"#);
                out.extend_from_slice(error.as_bytes());
                out.push(b'\n');
            }
        } else if !self.line.is_empty() {
            if out.is_empty() {
                std::mem::swap(out, &mut self.line);
            } else {
                out.extend_from_slice(&self.line);
            }
            out.push(b'\n');
        }
        *self = Bounded { line: std::mem::take(&mut self.line), ..Bounded::default() };
        self.line.clear();
    }
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Once the tail holds over `over` bytes, keeps at most its last `keep`, starting at a
/// character or an escape (trimming in batches keeps a long string linear).
fn trim_tail(s: &mut Str, over: usize, keep: usize) {
    if s.tail.len() <= over {
        return;
    }
    let mut from = s.tail.len() - keep;
    while from < s.tail.len() && !s.starts[from] {
        from += 1;
    }
    s.tail.drain(..from);
    s.starts.drain(..from);
}

/// A reader of a server's stdout that passes on only what `Bounded` lets through.
pub struct BoundedReader<R> {
    inner: R,
    filter: Bounded,
    ready: Vec<u8>,
    at: usize,
    buf: Vec<u8>,
}

impl<R> BoundedReader<R> {
    pub fn new(inner: R) -> Self {
        BoundedReader { inner, filter: Bounded::new(), ready: Vec::new(), at: 0, buf: vec![0; 64 * 1024] }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for BoundedReader<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, out: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.at < this.ready.len() {
                let n = out.remaining().min(this.ready.len() - this.at);
                out.put_slice(&this.ready[this.at..this.at + n]);
                this.at += n;
                return Poll::Ready(Ok(()));
            }
            this.ready.clear();
            this.at = 0;
            let mut read = ReadBuf::new(&mut this.buf);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) if read.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => {
                    let filled = read.filled().len();
                    this.filter.feed(&this.buf[..filled], &mut this.ready);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn filter(input: &[u8]) -> Vec<Value> {
        let mut bounded = Bounded::new();
        let mut out = Vec::new();
        // Fed in small pieces, as a pipe may bring them.
        for piece in input.chunks(7) {
            bounded.feed(piece, &mut out);
        }
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    #[test]
    fn passes_ordinary_lines_unchanged() {
        let line = json!({"jsonrpc": "2.0", "id": 3, "result": {"text": "a \"quoted\" \\ é \u{1F600} \n"}});
        let input = format!("{line}\n  \n{line}\r\n");
        assert_eq!(filter(input.as_bytes()), vec![line.clone(), line]);
    }

    #[test]
    fn cuts_long_strings_keeping_head_and_tail_at_character_boundaries() {
        let text = format!("BEGIN{}é\\\"\u{1F600}{}END", "é".repeat(30_000), "\u{1F600}".repeat(20_000));
        let line = json!({"id": "a", "result": {"content": [{"type": "text", "text": text}]}});
        let got = filter(format!("{line}\n").as_bytes());
        let kept = got[0]["result"]["content"][0]["text"].as_str().unwrap();
        assert!(kept.starts_with("BEGINéé") && kept.ends_with("\u{1F600}END"), "{}", &kept[..20]);
        let escaped = serde_json::to_string(&text).unwrap().len() - 2;
        assert!(kept.contains(&format!("bytes cut from the middle of {escaped} bytes ...]\n")));
        assert!(kept.len() <= 2 * STRING_KEEP + 100, "{}", kept.len());
        assert_eq!(got[0]["id"], "a");
    }

    #[test]
    fn cuts_escapes_whole() {
        let text = "\\u00e9".repeat(10_000);
        let input = format!("{{\"id\":1,\"s\":\"{text}\"}}\n");
        let got = filter(input.as_bytes());
        let kept = got[0]["s"].as_str().unwrap();
        assert!(kept.starts_with("ééé") && kept.ends_with("ééé"));
    }

    #[test]
    fn replaces_too_deep_values_with_null() {
        // Written out: json! would copy the tree at every level.
        let deep = format!("{}\"leaf\"{}", "{\"x\":".repeat(3000), ",\"s\":\"}]\"}".repeat(3000));
        let line = format!("{{\"id\":9,\"result\":{{\"tools\":[{{\"name\":\"deep\",\"inputSchema\":{deep}}}]}}}}\n");
        let got = filter(line.as_bytes());
        assert_eq!(got[0]["id"], 9);
        let mut value = &got[0]["result"]["tools"][0]["inputSchema"];
        let mut depth = 4;
        while value.is_object() {
            value = &value["x"];
            depth += 1;
        }
        assert_eq!((value, depth), (&Value::Null, MAX_DEPTH));
    }

    #[test]
    fn answers_an_overlong_line_with_an_error_for_its_id() {
        // Strings under the cut, so only the line's length is over.
        let many = vec!["0123456789".repeat(1000); LINE_CAP / 10_000 + 10];
        let line =
            format!("{}\n{}\n", json!({"jsonrpc": "2.0", "result": {"parts": many}, "id": "call-7"}), json!({"id": 8}));
        let mut bounded = Bounded::new();
        let mut out = Vec::new();
        bounded.feed(line.as_bytes(), &mut out);
        let lines: Vec<Value> =
            String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["id"], "call-7");
        assert!(lines[0]["error"]["message"].as_str().unwrap().contains("over 32 MB"));
        assert_eq!(lines[1], json!({"id": 8}));
    }
}
