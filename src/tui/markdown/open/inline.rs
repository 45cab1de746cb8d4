//! Whether the inline text of a Markdown source is closed: nothing in it was left as literal
//! text that text after it could still turn into syntax. An unmatched `*`, `_` or `~` run
//! that can open emphasis, a backtick run, a `[` or a `<` starting a tag or autolink can all
//! pair with something later. Owns that rule only, for `paragraph.rs`; it errs on the side
//! of "not closed" (a character it is unsure about counts as punctuation that can open).

use pulldown_cmark::{Event, Parser};

use crate::tui::markdown::parse::OPTIONS;

/// True when no literal text of `source` (as the parser reads it) could open a construct
/// that text after `source` closes.
pub(crate) fn closed(source: &str) -> bool {
    Parser::new_ext(source, OPTIONS)
        .into_offset_iter()
        .filter(|(event, _)| matches!(event, Event::Text(_)))
        .all(|(_, range)| range.clone().all(|i| !opens(source, i)))
}

/// The byte at `i` (inside literal text) could open something.
fn opens(source: &str, i: usize) -> bool {
    let bytes = source.as_bytes();
    let Some(&b) = bytes.get(i) else { return false };
    if !matches!(b, b'`' | b'[' | b'<' | b'*' | b'_' | b'~') || escaped(bytes, i) {
        return false;
    }
    match b {
        b'`' | b'[' => true,
        b'<' => bytes.get(i + 1).is_some_and(|&n| n.is_ascii_alphabetic() || matches!(n, b'/' | b'!' | b'?')),
        _ => can_open(source, i),
    }
}

/// The byte at `i` follows an odd number of backslashes.
fn escaped(bytes: &[u8], i: usize) -> bool {
    bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// How a character next to a delimiter run reads (CommonMark's flanking rules). Anything that
/// is not ASCII counts as neither whitespace nor known: `Other`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Space,
    Punct,
    Alnum,
    Other,
}

fn side(c: Option<char>) -> Side {
    match c {
        None => Side::Space,
        Some(c) if c.is_ascii_whitespace() => Side::Space,
        Some(c) if c.is_ascii_punctuation() => Side::Punct,
        Some(c) if c.is_ascii_alphanumeric() => Side::Alnum,
        Some(_) => Side::Other,
    }
}

/// The delimiter run holding byte `i` may open emphasis (or strikethrough), erring towards yes.
fn can_open(source: &str, i: usize) -> bool {
    let bytes = source.as_bytes();
    let marker = bytes[i];
    let start = i - bytes[..i].iter().rev().take_while(|&&b| b == marker).count();
    let end = i + bytes[i..].iter().take_while(|&&b| b == marker).count();
    let before = side(source.get(..start).and_then(|s| s.chars().next_back()));
    let after = side(source.get(end..).and_then(|s| s.chars().next()));
    // Left-flanking, with unknown characters read the way that allows it.
    let left =
        after != Side::Space && (after != Side::Punct || matches!(before, Side::Space | Side::Punct | Side::Other));
    if marker != b'_' {
        return left;
    }
    // `_` also needs: not right-flanking, or punctuation before it; both fail only after a
    // letter or digit.
    left && before != Side::Alnum
}

#[cfg(test)]
mod tests {
    use super::closed;

    #[test]
    fn matched_syntax_is_closed() {
        assert!(closed("plain words, *emphasis*, **strong**, `code`, [a link](https://x.io) and <https://x.io>."));
        assert!(closed("snake_case_names and 2 * 3 and a_b"));
        assert!(closed("escaped \\* and \\[ and \\`"));
    }

    #[test]
    fn what_could_still_pair_is_open() {
        for source in ["an *opening", "a **strong", "a `tick", "a [bracket", "a <tag", "x*y", "_under", "~strike"] {
            assert!(!closed(source), "{source:?}");
        }
    }
}
