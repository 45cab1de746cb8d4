//! The one sanitiser for untrusted text (model replies, tool output, error bodies) on its way
//! to a terminal, in every front end. Strips terminal control sequences (whole ESC/CSI/OSC
//! sequences, C0 and C1 controls), so output cannot move the cursor, change modes or
//! retitle the terminal; keeps newlines and tabs. Bidirectional overrides and invisible
//! characters, which can make text read differently from what it is, are dropped from
//! prose (`sanitize`) and shown as `<U+202E>` where the user must see exactly what runs
//! (`sanitize_visible`: approval prompts, tool summaries). `escape_json_line` makes a JSON
//! line safe for a terminal without losing anything.

use std::borrow::Cow;

use crate::bytes::all_bytes;

/// Text safe to put on a terminal: control sequences, bidi controls and invisible
/// characters removed (a zero-width joiner stays: emoji need it).
pub fn sanitize(text: &str) -> Cow<'_, str> {
    clean(text, Invisible::Drop)
}

/// Like `sanitize`, but bidi controls and invisible characters are shown as `<U+XXXX>`, so
/// a command or path reads exactly as it will run.
pub fn sanitize_visible(text: &str) -> Cow<'_, str> {
    clean(text, Invisible::Show)
}

/// A serialised JSON line with every character a terminal could act on (C1 controls, bidi
/// controls, invisible characters, DEL) written as a `\uXXXX` escape. JSON already escapes
/// C0 controls; the decoded value is unchanged.
pub fn escape_json_line(json: &str) -> Cow<'_, str> {
    // Everything escaped is DEL or beyond ASCII: plain ASCII (most lines) needs one byte scan.
    if all_bytes(json.as_bytes(), |b| b < 0x7f) {
        return Cow::Borrowed(json);
    }
    if !json.chars().any(|c| c == '\u{7f}' || is_c1(c) || is_invisible(c)) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c == '\u{7f}' || is_c1(c) || is_invisible(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[derive(Clone, Copy, PartialEq)]
enum Invisible {
    Drop,
    Show,
}

fn clean(text: &str, invisible: Invisible) -> Cow<'_, str> {
    // Printable ASCII, newlines and tabs (most text) need one byte scan, no decoding.
    if all_bytes(text.as_bytes(), |b| (0x20..0x7f).contains(&b) | (b == b'\n') | (b == b'\t')) {
        return Cow::Borrowed(text);
    }
    let keep_zwj = invisible == Invisible::Drop;
    if !text.chars().any(|c| is_unsafe(c) || (is_invisible(c) && !(keep_zwj && c == ZWJ))) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => skip_escape(&mut chars),
            // C1 CSI and OSC introducers: skip like their ESC forms.
            '\u{9b}' => skip_until_final(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\r' => {
                // A lone CR would overwrite the line; treat CRLF as LF and drop other CRs.
            }
            c if is_unsafe(c) => {}
            ZWJ if keep_zwj => out.push(ZWJ),
            c if is_invisible(c) => {
                if invisible == Invisible::Show {
                    out.push_str(&format!("<U+{:04X}>", c as u32));
                }
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

const ZWJ: char = '\u{200d}';

fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_c1(c)
}

fn is_c1(c: char) -> bool {
    ('\u{80}'..='\u{9f}').contains(&c)
}

/// Bidirectional controls and characters that take no space: they change how text reads
/// without showing themselves.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{061c}' // Arabic letter mark
        | '\u{180e}' // Mongolian vowel separator
        | '\u{200b}'..='\u{200f}' // zero-width space/non-joiner/joiner, LRM, RLM
        | '\u{202a}'..='\u{202e}' // embeddings and overrides
        | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
        | '\u{2066}'..='\u{2069}' // isolates
        | '\u{feff}' // zero-width no-break space
    )
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

fn skip_escape(chars: &mut Chars<'_>) {
    match chars.next() {
        Some('[') => skip_until_final(chars),
        Some(']') | Some('P') | Some('X') | Some('^') | Some('_') => skip_string(chars),
        // ESC + intermediates + final (e.g. charset selection `ESC ( B`).
        Some(c) if (' '..='/').contains(&c) => {
            while let Some(&n) = chars.peek() {
                chars.next();
                if !(' '..='/').contains(&n) {
                    break;
                }
            }
        }
        _ => {}
    }
}

/// CSI: parameters and intermediates, then one final byte in `@..=~`.
fn skip_until_final(chars: &mut Chars<'_>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            break;
        }
    }
}

/// OSC/DCS/PM/APC: up to BEL or ST (`ESC \`).
fn skip_string(chars: &mut Chars<'_>) {
    while let Some(c) = chars.next() {
        match c {
            '\x07' | '\u{9c}' => break,
            '\x1b' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_and_invisible_characters_are_dropped_from_prose_and_shown_in_commands() {
        assert_eq!(sanitize("rm\u{202e}fr- \u{200b}x"), "rmfr- x");
        assert_eq!(sanitize_visible("ls \u{2066}a\u{2069}"), "ls <U+2066>a<U+2069>");
        assert_eq!(sanitize("👩\u{200d}💻"), "👩\u{200d}💻", "emoji keep their joiner");
        assert_eq!(sanitize_visible("a\u{200d}b"), "a<U+200D>b");
    }

    #[test]
    fn json_lines_escape_what_a_terminal_would_act_on() {
        let line = serde_json::json!({"text": "a\u{9b}31m\u{202e}b\u{7f}"}).to_string();
        let escaped = escape_json_line(&line);
        assert_eq!(escaped, r#"{"text":"a\u009b31m\u202eb\u007f"}"#);
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back["text"], "a\u{9b}31m\u{202e}b\u{7f}");
    }

    #[test]
    fn a_control_anywhere_in_a_long_text_is_found() {
        let long = "word ".repeat(100);
        for at in [0, 63, 64, 200, 499] {
            let mut text = long.clone();
            text.insert(at, '\x07');
            assert_eq!(sanitize(&text), long, "BEL at {at}");
        }
        assert!(matches!(sanitize(&long), Cow::Borrowed(_)));
    }

    #[test]
    fn plain_text_is_untouched() {
        assert_eq!(sanitize("hello\n\tworld ✓"), "hello\n\tworld ✓");
    }

    #[test]
    fn strips_csi_osc_and_controls() {
        assert_eq!(sanitize("a\x1b[2J\x1b[1;1Hb"), "ab");
        assert_eq!(sanitize("x\x1b]0;pwned\x07y"), "xy");
        assert_eq!(sanitize("x\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\y"), "xlinky");
        assert_eq!(sanitize("bell\x07 back\x08 cr\r\n"), "bell back cr\n");
        assert_eq!(sanitize("c1\u{9b}31mred"), "c1red");
        assert_eq!(sanitize("\x1b(Bok"), "ok");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Whatever comes in, nothing a terminal acts on comes out.
        #[test]
        fn output_never_carries_a_control_or_bidi_character(text in "(\\PC|[\\x00-\\x1f\\x7f-\\u{9f}\\u{200b}-\\u{200f}\\u{202a}-\\u{202e}\\u{2066}-\\u{2069}]|\\x1b\\[[0-9;]*[A-Za-z]|\\x1b\\][^\\x07]*\\x07){0,40}") {
            for clean in [sanitize(&text), sanitize_visible(&text)] {
                let bad: Vec<char> = clean
                    .chars()
                    .filter(|&c| (c.is_control() && c != '\n' && c != '\t') || (is_invisible(c) && c != ZWJ))
                    .collect();
                proptest::prop_assert!(bad.is_empty(), "{:?} -> {:?}", text, clean);
            }
            proptest::prop_assert!(!sanitize_visible(&text).contains(ZWJ));
        }

    }
}
