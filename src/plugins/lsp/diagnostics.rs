//! What an edit's result carries of a server's diagnostics: the errors and warnings of
//! the edited file (information and hints left out), by line, at most N, each message
//! cleaned of control and bidirectional-override characters and cut to
//! `MESSAGE_CHARS`, so a hostile or chatty server cannot fill the context or the terminal.

use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString};
use serde_json::{json, Value};

/// Characters of one message kept at most.
pub const MESSAGE_CHARS: usize = 300;
/// Diagnostics of one file kept from one publication at most (before the edit's own cap):
/// a flood is cut as it is read.
pub const KEPT: usize = 200;

/// One diagnostic as the model gets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    /// 1-based.
    pub line: u32,
    pub error: bool,
    pub message: String,
}

impl Diag {
    pub fn to_json(&self) -> Value {
        json!({"line": self.line, "severity": if self.error { "error" } else { "warning" }, "message": self.message})
    }
}

/// The errors and warnings among `published`, errors first within a line, by line, at
/// most `KEPT`; and how many errors and warnings there were in all.
pub fn kept(published: &[Diagnostic]) -> (Vec<Diag>, usize) {
    let mut kept: Vec<Diag> = published
        .iter()
        .filter_map(|d| {
            // No severity: the client decides; an unlabelled diagnostic is taken as an error.
            let error = match d.severity {
                None | Some(DiagnosticSeverity::ERROR) => true,
                Some(DiagnosticSeverity::WARNING) => false,
                Some(_) => return None,
            };
            Some((d, error))
        })
        .take(KEPT * 4)
        .map(|(d, error)| Diag { line: d.range.start.line.saturating_add(1), error, message: message(d) })
        .collect();
    let total = published
        .iter()
        .filter(|d| matches!(d.severity, None | Some(DiagnosticSeverity::ERROR) | Some(DiagnosticSeverity::WARNING)))
        .count();
    kept.sort_by_key(|d| (d.line, !d.error));
    kept.dedup();
    kept.truncate(KEPT);
    (kept, total)
}

/// The message with its source and code (`Type … [reportAssignmentType]`), cleaned and cut.
fn message(d: &Diagnostic) -> String {
    let mut text = clean(&d.message);
    let code = match &d.code {
        Some(NumberOrString::String(code)) => Some(clean(code)),
        Some(NumberOrString::Number(code)) => Some(code.to_string()),
        None => None,
    };
    if let Some(code) = code.filter(|c| !c.is_empty()) {
        text.push_str(&format!(" [{code}]"));
    }
    if text.chars().count() > MESSAGE_CHARS {
        text = text.chars().take(MESSAGE_CHARS - 1).collect::<String>() + "…";
    }
    text
}

/// `text` without control characters (a line break or tab becomes a space, runs of
/// spaces one) or bidirectional overrides and isolates, trimmed. Reads at most 4×
/// `MESSAGE_CHARS` characters.
pub fn clean(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().take(MESSAGE_CHARS * 4) {
        let c = if c.is_whitespace() { ' ' } else { c };
        if c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}') {
            continue;
        }
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(c);
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn diag(line: u32, severity: Option<DiagnosticSeverity>, message: &str) -> Diagnostic {
        Diagnostic {
            range: Range::new(Position::new(line, 0), Position::new(line, 1)),
            severity,
            message: message.to_string(),
            ..Diagnostic::default()
        }
    }

    #[test]
    fn errors_and_warnings_by_line_hints_left_out() {
        let (kept, total) = kept(&[
            diag(4, Some(DiagnosticSeverity::WARNING), "unused"),
            diag(1, Some(DiagnosticSeverity::HINT), "hint"),
            diag(4, Some(DiagnosticSeverity::ERROR), "bad"),
            diag(0, None, "plain"),
        ]);
        let lines: Vec<(u32, bool, &str)> = kept.iter().map(|d| (d.line, d.error, d.message.as_str())).collect();
        assert_eq!(lines, [(1, true, "plain"), (5, true, "bad"), (5, false, "unused")]);
        assert_eq!(total, 3);
        assert_eq!(kept[2].to_json(), json!({"line": 5, "severity": "warning", "message": "unused"}));
    }

    #[test]
    fn messages_are_cleaned_and_cut() {
        let mut d = diag(0, None, "Type \"x\"\n  is not\x1b[31m red\u{202e}evil\t!");
        d.code = Some(NumberOrString::String("reportX\x07".into()));
        let (kept, _) = kept(&[d]);
        assert_eq!(kept[0].message, "Type \"x\" is not[31m redevil ! [reportX]");
        let (kept, _) = super::kept(&[diag(0, None, &"é".repeat(10_000))]);
        assert_eq!(kept[0].message.chars().count(), MESSAGE_CHARS);
    }

    #[test]
    fn a_flood_is_cut() {
        let many: Vec<Diagnostic> = (0..100_000).map(|i| diag(i, None, "x")).collect();
        let (kept, total) = kept(&many);
        assert_eq!((kept.len(), total), (KEPT, 100_000));
    }
}
