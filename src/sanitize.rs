//! Strips terminal control sequences from model and tool text before it is drawn or
//! printed, so output cannot move the cursor, change modes or retitle the terminal.
//! Keeps newlines and tabs; drops every other C0/C1 control and whole ESC sequences.

use std::borrow::Cow;

/// Text safe to put on a terminal.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
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
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c)
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
    use super::sanitize;

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
}
