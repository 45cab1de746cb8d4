//! The live tail of a running command: the last few lines it printed, kept as its output
//! streams in (`Delta::ToolOutput` chunks), so the conversation can show them under the
//! call's line and the line REPL can print each line once it is complete. Only a bounded
//! tail is kept (`LIVE_LINES` lines of at most `LINE_CAP` bytes each, plus the line still
//! being written): the work for a chunk is proportional to the chunk, never to what the
//! command printed before. Lines are sanitized once, when they are complete, and the given
//! secret values masked in them (`***`), as the tool masks them in its result.

use crate::sanitize::sanitize;
use std::collections::VecDeque;

/// Lines of a running command's output shown under its line.
pub const LIVE_LINES: usize = 5;
/// Bytes kept of one line (a longer line is cut; nobody reads past a few screen widths).
pub const LINE_CAP: usize = 512;
/// Secret values shorter than this are not masked (they would hide ordinary text).
const MIN_MASKED: usize = 8;

/// The last lines of a running command's output.
#[derive(Clone, Debug, Default)]
pub struct LiveTail {
    /// The last complete non-blank lines, sanitized, oldest first.
    lines: VecDeque<String>,
    /// The line being written (no newline yet), raw, at most `LINE_CAP` bytes plus a chunk's
    /// last piece before it is cut.
    partial: String,
    /// Complete non-blank lines seen in all.
    seen: usize,
}

impl LiveTail {
    /// Adds a chunk of output.
    pub fn push(&mut self, chunk: &str, secrets: &[String]) {
        self.push_lines(chunk, secrets, |_| {});
    }

    /// Adds a chunk of output, calling `complete` with each non-blank line it completes
    /// (sanitized, a carriage-return-rewritten line as it last read).
    pub fn push_lines(&mut self, chunk: &str, secrets: &[String], mut complete: impl FnMut(&str)) {
        let mut pieces = chunk.split('\n');
        let last = pieces.next_back().unwrap_or_default();
        for piece in pieces {
            add_capped(&mut self.partial, piece);
            let line = mask_secrets(finished(&std::mem::take(&mut self.partial)), secrets);
            if line.trim().is_empty() {
                continue;
            }
            complete(&line);
            self.seen += 1;
            if self.lines.len() == LIVE_LINES {
                self.lines.pop_front();
            }
            self.lines.push_back(line);
        }
        add_capped(&mut self.partial, last);
    }

    /// What to show: the last `LIVE_LINES` non-blank lines, the one being written last.
    pub fn shown(&self, secrets: &[String]) -> Vec<String> {
        let current = mask_secrets(finished(&self.partial), secrets);
        let current = Some(current).filter(|c| !c.trim().is_empty());
        let keep = LIVE_LINES - usize::from(current.is_some());
        let skip = self.lines.len().saturating_sub(keep);
        self.lines.iter().skip(skip).cloned().chain(current).collect()
    }

    /// Complete lines printed before the ones `shown` returns.
    pub fn earlier(&self) -> usize {
        let current = usize::from(!finished(&self.partial).trim().is_empty());
        (self.seen + current).saturating_sub(LIVE_LINES)
    }

    /// Nothing printed yet.
    pub fn is_empty(&self) -> bool {
        self.seen == 0 && self.partial.trim().is_empty()
    }
}

/// `line` with each secret value (of `MIN_MASKED` characters or more) as `***`, the
/// longest first so a value holding another is masked whole.
pub fn mask_secrets(mut line: String, secrets: &[String]) -> String {
    let mut values: Vec<&String> = secrets.iter().filter(|v| v.chars().count() >= MIN_MASKED).collect();
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    for value in values {
        if line.contains(value.as_str()) {
            line = line.replace(value.as_str(), "***");
        }
    }
    line
}

/// A line as a terminal would leave it: after a carriage return, the text written last
/// (a progress bar's latest state), sanitized and cut to `LINE_CAP`.
fn finished(raw: &str) -> String {
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    let last = raw.rsplit('\r').find(|piece| !piece.trim().is_empty()).unwrap_or("");
    sanitize(cut(last, LINE_CAP)).into_owned()
}

/// Appends `piece` to the line being written, keeping it bounded: what a carriage return
/// overwrote is dropped, and past `LINE_CAP` bytes the rest of the line is.
fn add_capped(partial: &mut String, piece: &str) {
    let before_cr = |text: &str| text[..text.trim_end_matches('\r').len()].rfind('\r');
    let piece = match before_cr(piece) {
        Some(at) => {
            partial.clear();
            &piece[at + 1..]
        }
        None => piece,
    };
    partial.push_str(cut(piece, LINE_CAP));
    if let Some(at) = before_cr(partial) {
        partial.drain(..=at);
    }
    let end = cut(partial, LINE_CAP).len();
    partial.truncate(end);
}

/// The first `max` bytes of `text`, on a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_and_the_one_being_written() {
        let mut tail = LiveTail::default();
        let mut complete = Vec::new();
        for chunk in ["line1\nli", "ne2\n\n", "line3\nline4\nline5\nline6\npart"] {
            tail.push_lines(chunk, &[], |l| complete.push(l.to_string()));
        }
        assert_eq!(complete, ["line1", "line2", "line3", "line4", "line5", "line6"]);
        assert_eq!(tail.shown(&[]), ["line3", "line4", "line5", "line6", "part"]);
        assert_eq!(tail.earlier(), 2);
    }

    #[test]
    fn a_carriage_return_rewrites_the_line_and_crlf_ends_one() {
        let mut tail = LiveTail::default();
        tail.push("10%\r20%\r", &[]);
        tail.push("30%", &[]);
        assert_eq!(tail.shown(&[]), ["30%"]);
        tail.push("\r\ndone\r\n", &[]);
        assert_eq!(tail.shown(&[]), ["30%", "done"]);
    }

    #[test]
    fn secret_values_are_masked() {
        let secrets = ["sk-secret-0123456789".to_string(), "short".to_string()];
        let mut tail = LiveTail::default();
        let mut complete = Vec::new();
        tail.push_lines("key=sk-secret-0123456789 short\nkey=sk-secret-01", &secrets, |l| complete.push(l.to_string()));
        assert_eq!(complete, ["key=*** short"]);
        tail.push("23456789", &secrets);
        assert_eq!(tail.shown(&secrets), ["key=*** short", "key=***"]);
    }

    #[test]
    fn what_it_keeps_is_bounded_and_sanitized() {
        let mut tail = LiveTail::default();
        let long = "é".repeat(10_000);
        for _ in 0..100 {
            tail.push(&long, &[]);
        }
        assert!(tail.partial.len() <= LINE_CAP);
        tail.push("\n\x1b[31mred\x1b[0m\n", &[]);
        assert_eq!(tail.shown(&[]).last().map(String::as_str), Some("red"));
        for i in 0..10_000 {
            tail.push(&format!("{i}\n"), &[]);
        }
        assert_eq!(tail.lines.len(), LIVE_LINES);
        assert_eq!(tail.shown(&[]).last().map(String::as_str), Some("9999"));
    }
}
