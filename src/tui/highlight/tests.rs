use super::*;

const DARK: CodeColors = CodeColors::DARK;
const NONE: CodeColors = CodeColors { color: false, light: false };

fn text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[test]
fn rust_code_gets_several_colours() {
    let lines = Highlighter::default().code("fn main() {\n    let x = \"hi\";\n}\n", "rust", DARK);
    assert_eq!(lines.len(), 3);
    assert_eq!(text(&lines[1]), "    let x = \"hi\";");
    let colours: std::collections::HashSet<_> = lines.iter().flat_map(|l| l.spans.iter().map(|s| s.style.fg)).collect();
    assert!(colours.len() > 2, "{colours:?}");
}

#[test]
fn unknown_language_is_plain_code() {
    let lines = Highlighter::default().code("a b\nc", "no-such-lang", DARK);
    assert_eq!(lines.len(), 2);
    assert!(lines.iter().all(|l| l.spans.iter().all(|s| s.style == plain_code_style(DARK))));
}

#[test]
fn without_colour_no_span_has_a_colour() {
    let lines = Highlighter::default().code("fn main() {}\n", "rust", NONE);
    assert!(lines.iter().all(|l| l.spans.iter().all(|s| s.style.fg.is_none() && s.style.bg.is_none())));
}

#[test]
fn plain_code_has_the_same_text_as_highlighted_code() {
    let code = "fn main() {\n\tlet x = 1;\n}\n";
    let plain: Vec<String> = plain_code(code, DARK).iter().map(text).collect();
    let coloured: Vec<String> = Highlighter::default().code(code, "rust", DARK).iter().map(text).collect();
    assert_eq!(plain, coloured);
}

#[test]
fn tabs_become_spaces() {
    let lines = Highlighter::default().code("\tx", "", DARK);
    assert_eq!(text(&lines[0]), "    x");
}

#[test]
fn same_block_is_served_from_the_cache() {
    let highlighter = Highlighter::default();
    let a = highlighter.code("let cached = 1;", "rust", DARK);
    let b = highlighter.clone().code("let cached = 1;", "rust", DARK);
    assert!(Arc::ptr_eq(&a, &b));
}

/// Two highlighters (two panes) share nothing: each has its own caches.
#[test]
fn two_highlighters_keep_caches_of_their_own() {
    let (one, other) = (Highlighter::default(), Highlighter::default());
    let a = one.code("let mine = 1;", "rust", DARK);
    let b = other.code("let mine = 1;", "rust", DARK);
    assert_eq!(a, b);
    assert!(!Arc::ptr_eq(&a, &b));
    assert_eq!(other.inject().lines_highlighted(), 1);
}

/// The light palette is the one passed with the block, not one set beforehand.
#[test]
fn the_colours_passed_are_the_colours_given() {
    let highlighter = Highlighter::default();
    let dark = highlighter.code("fn main() {}\n", "rust", DARK);
    let light = highlighter.code("fn main() {}\n", "rust", CodeColors::LIGHT);
    assert_ne!(dark, light);
    assert_eq!(*light, Highlighter::default().uncached("fn main() {}\n", "rust", CodeColors::LIGHT));
    assert_eq!(plain_code("x", CodeColors::LIGHT)[0].spans[0].style, plain_code_style(CodeColors::LIGHT));
}

#[test]
fn a_syntect_panic_makes_the_whole_block_plain_and_is_known_to_be_caught() {
    let highlighter = Highlighter::default();
    let code = "fn main() {\n    BOOM();\n}\n";
    let highlighted = highlighter.uncached(code, "rust", DARK);
    let _panic = highlighter.panic_on("BOOM");
    assert_ne!(highlighted, plain_code(code, DARK));
    assert_eq!(highlighter.uncached(code, "rust", DARK), plain_code(code, DARK));
    assert_eq!(line::guarded(crate::panics::panic_is_caught), Some(true));
    assert!(!crate::panics::panic_is_caught());
}

/// Inputs that differ in anything the lines depend on (code, language, colour, theme) get
/// different cache keys; the width is no part of them (highlighting does not wrap).
#[test]
fn inputs_that_differ_get_different_keys() {
    let codes = ["", "\n", "fn a() {}", "fn a() {}\n", "fn a() {}\n\n", "\tx", "    x", "é", "e\u{301}"];
    let langs = ["", "rust", "rs", "Rust", "python", "rust "];
    let mut keys = std::collections::HashMap::new();
    for light in [false, true] {
        for code in codes {
            for lang in langs {
                for color in [false, true] {
                    let colors = CodeColors { color, light };
                    let key = cache_key(code, lang, colors);
                    assert_eq!(key, cache_key(code, lang, colors), "a key is stable");
                    if let Some(other) = keys.insert(key, (code, lang, color, light)) {
                        panic!("{other:?} and {:?} share a key", (code, lang, color, light));
                    }
                }
            }
        }
    }
}

#[test]
fn odd_inputs_do_not_panic() {
    let highlighter = Highlighter::default();
    for lang in ["rust", "python", "html", "c", "bash", "json"] {
        for code in ["", "\n", "\"unterminated", "/* open comment", "<<<EOF\n", "\u{0}\u{7f}é漢字🎉", "}}}}{{{{"] {
            let _ = highlighter.uncached(code, lang, DARK);
        }
    }
}
