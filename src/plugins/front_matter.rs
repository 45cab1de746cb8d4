//! The small front matter of Markdown files other agents share (skills, commands): `key:
//! value` lines between a first line `---` and the next `---`, then the body. Enough YAML
//! for these files (quoted values, `|`/`>` blocks and indented continuation lines), parsed
//! here so no YAML crate is needed; anything else is an error naming its line.

use std::collections::BTreeMap;

/// A parsed file: the front matter's keys (lowercase as written) and the body after it.
#[derive(Debug, Default, PartialEq)]
pub struct Document {
    pub fields: BTreeMap<String, String>,
    pub body: String,
    /// Whether the file had front matter at all.
    pub has_front_matter: bool,
}

impl Document {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }
}

/// Why front matter could not be read: the 1-based line and what was wrong.
#[derive(Debug, PartialEq)]
pub struct FrontMatterError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for FrontMatterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Splits `text` into front matter and body. A file not starting with `---` has none.
pub fn parse(text: &str) -> Result<Document, FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else { return Ok(Document::default()) };
    if first.trim_end() != "---" {
        return Ok(Document { body: text.to_string(), ..Document::default() });
    }
    let mut fields: BTreeMap<String, String> = BTreeMap::new();
    let mut last: Option<String> = None;
    let mut consumed = first.len();
    let mut line_no = 1;
    for line in lines {
        line_no += 1;
        consumed += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if content.trim_end() == "---" {
            let body = text[consumed..].to_string();
            return Ok(Document { fields, body, has_front_matter: true });
        }
        if content.trim().is_empty() || content.trim_start().starts_with('#') {
            continue;
        }
        if content.starts_with([' ', '\t']) {
            // A continuation of the previous key's value (a block or a folded line).
            let Some(key) = &last else {
                return Err(FrontMatterError { line: line_no, message: "indented line outside a value".into() });
            };
            let value = fields.entry(key.clone()).or_default();
            if !value.is_empty() {
                value.push(' ');
            }
            value.push_str(content.trim());
            continue;
        }
        let Some((key, value)) = content.split_once(':') else {
            return Err(FrontMatterError {
                line: line_no,
                message: format!("expected `key: value`, found {content:?}"),
            });
        };
        let key = key.trim();
        if key.is_empty() || !key.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_') {
            return Err(FrontMatterError { line: line_no, message: format!("not a key: {key:?}") });
        }
        let value = value.trim();
        let value = if matches!(value, "|" | ">" | "|-" | ">-") { "" } else { unquote(value) };
        if fields.insert(key.to_string(), value.to_string()).is_some() {
            return Err(FrontMatterError { line: line_no, message: format!("`{key}` given twice") });
        }
        last = Some(key.to_string());
    }
    Err(FrontMatterError { line: line_no, message: "front matter has no closing `---`".into() })
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if value.len() >= 2 && value.starts_with(quote) && value.ends_with(quote) {
            return &value[1..value.len() - 1];
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_quotes_blocks_and_body() {
        let doc =
            parse("---\nname: pdf\ndescription: \"Fill PDF forms\"\nlong: >\n  one\n  two\n---\n# Body\n").unwrap();
        assert_eq!(doc.get("name"), Some("pdf"));
        assert_eq!(doc.get("description"), Some("Fill PDF forms"));
        assert_eq!(doc.get("long"), Some("one two"));
        assert_eq!(doc.body, "# Body\n");
        assert!(doc.has_front_matter);
    }

    #[test]
    fn no_front_matter_is_all_body() {
        let doc = parse("Just text $ARGUMENTS\n").unwrap();
        assert!(!doc.has_front_matter && doc.fields.is_empty());
        assert_eq!(doc.body, "Just text $ARGUMENTS\n");
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(parse("---\nname: a\nthis is not yaml\n---\n").unwrap_err().line, 3);
        assert_eq!(parse("---\nname: a\nname: b\n---\n").unwrap_err().line, 3);
        assert!(parse("---\nname: a\n").unwrap_err().message.contains("closing"));
    }
}
