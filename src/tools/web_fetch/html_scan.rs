//! A linear scan of HTML for its start and end tags, as the HTML tokenizer finds them
//! (comments, doctypes and processing instructions skipped; quoted attribute values
//! respected; a raw-text element's content skipped when asked), each with where it lies in
//! the text, so `nesting.rs` can drop or cut a tag without reading the page twice.

use super::elements::{hash, Name};

/// Attributes kept on one tag: the tokenizer checks each new one against all before it.
pub const MAX_ATTRIBUTES: usize = 128;

/// A start or end tag.
#[derive(Debug)]
pub struct Tag {
    pub name: Name,
    pub end_tag: bool,
    /// The byte offsets of its `<` and just past its `>`.
    pub start: usize,
    pub end: usize,
    pub self_closing: bool,
    /// Just past its name.
    pub name_end: usize,
    /// How many attributes it has.
    pub count: usize,
    /// Where its attributes past `MAX_ATTRIBUTES` begin, when it has more.
    pub cut: Option<usize>,
    /// A hash of its attributes (as written), to tell formatting elements apart.
    pub attributes: u64,
    /// It has a `color`, `face` or `size` attribute (a `font` that leaves SVG or MathML).
    pub font_attributes: bool,
    /// The text between it and the tag before, if any.
    pub text_before: Option<Text>,
}

/// A run of text between two tags: where it starts, and whether it is more than spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text {
    pub start: usize,
    pub solid: bool,
}

/// The scan: tags from `pos` on.
pub struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Text since the last tag.
    text: Option<Text>,
}

fn space(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | 0x0C | b'\r' | b' ')
}

impl<'a> Scanner<'a> {
    pub fn new(html: &'a str) -> Self {
        Scanner { bytes: html.as_bytes(), pos: 0, text: None }
    }

    /// The next tag; `None` at the end (a tag cut off by the end of the text is not one).
    pub fn next_tag(&mut self) -> Option<Tag> {
        let bytes = self.bytes;
        loop {
            let lt = self.pos + memchr::memchr(b'<', bytes.get(self.pos..)?)?;
            if lt > self.pos {
                let solid = bytes[self.pos..lt].iter().any(|b| !space(*b));
                self.note_text(self.pos, solid);
            }
            match (bytes.get(lt + 1), bytes.get(lt + 2)) {
                (Some(b'!'), _) => self.pos = self.markup_declaration(lt + 2),
                (Some(b'?'), _) => self.pos = self.after(b'>', lt + 2),
                (Some(b'/'), Some(c)) if c.is_ascii_alphabetic() => return self.tag(lt, lt + 2, true),
                (Some(b'/'), Some(b'>')) => self.pos = lt + 3,
                (Some(b'/'), Some(_)) => self.pos = self.after(b'>', lt + 2),
                (Some(c), _) if c.is_ascii_alphabetic() => return self.tag(lt, lt + 1, false),
                (Some(_), _) => {
                    self.note_text(lt, true);
                    self.pos = lt + 1;
                }
                (None, _) => return None,
            }
        }
    }

    /// Skips a raw-text element's content and its end tag (`</name`, any case), or the rest
    /// of the text when it has none.
    pub fn skip_raw_text(&mut self, name: &Name) {
        let bytes = self.bytes;
        let mut from = self.pos;
        while let Some(at) = memchr::memmem::find(bytes.get(from..).unwrap_or_default(), b"</") {
            let lt = from + at;
            let name_end = (lt + 2..bytes.len()).find(|&i| space(bytes[i]) || matches!(bytes[i], b'/' | b'>'));
            if let Some(name_end) = name_end {
                if hash(&bytes[lt + 2..name_end]) == name.hash {
                    self.pos = lt;
                    if self.next_tag().is_none() {
                        self.pos = bytes.len();
                    }
                    return;
                }
            }
            from = lt + 2;
        }
        self.pos = bytes.len();
    }

    fn note_text(&mut self, start: usize, solid: bool) {
        let text = self.text.get_or_insert(Text { start, solid: false });
        text.solid |= solid;
    }

    /// Stops: the rest is text (`<plaintext>`).
    pub fn stop(&mut self) {
        self.pos = self.bytes.len();
    }

    /// Just past the first `byte` at or after `from`, or the end.
    fn after(&self, byte: u8, from: usize) -> usize {
        match memchr::memchr(byte, self.bytes.get(from..).unwrap_or_default()) {
            Some(at) => from + at + 1,
            None => self.bytes.len(),
        }
    }

    /// Past a comment (`<!--` to `-->` or `--!>`) or a doctype or other `<!` declaration
    /// (to `>`), `from` just past the `<!`.
    fn markup_declaration(&self, from: usize) -> usize {
        let bytes = self.bytes;
        if !bytes.get(from..).is_some_and(|b| b.starts_with(b"--")) {
            return self.after(b'>', from);
        }
        let body = from + 2;
        if bytes.get(body) == Some(&b'>') {
            return body + 1;
        }
        if bytes.get(body..).is_some_and(|b| b.starts_with(b"->")) {
            return body + 2;
        }
        let mut at = body;
        while let Some(found) = memchr::memmem::find(bytes.get(at..).unwrap_or_default(), b"--") {
            let dashes = at + found;
            match (bytes.get(dashes + 2), bytes.get(dashes + 3)) {
                (Some(b'>'), _) => return dashes + 3,
                (Some(b'!'), Some(b'>')) => return dashes + 4,
                _ => at = dashes + 1,
            }
        }
        bytes.len()
    }

    /// The tag whose `<` is at `lt` and name begins at `name_start`.
    fn tag(&mut self, lt: usize, name_start: usize, end_tag: bool) -> Option<Tag> {
        let bytes = self.bytes;
        let len = bytes.len();
        let mut i = name_start;
        while i < len && !space(bytes[i]) && !matches!(bytes[i], b'/' | b'>') {
            i += 1;
        }
        let name = Name::of(&bytes[name_start..i]);
        let mut tag = Tag {
            name,
            end_tag,
            start: lt,
            end: len,
            self_closing: false,
            name_end: i,
            count: 0,
            cut: None,
            attributes: 0,
            font_attributes: false,
            text_before: self.text.take(),
        };
        let mut count = 0;
        loop {
            let Some(&byte) = bytes.get(i) else {
                self.pos = len;
                return None;
            };
            match byte {
                b'>' => {
                    tag.end = i + 1;
                    break;
                }
                b'/' if bytes.get(i + 1) == Some(&b'>') => {
                    tag.self_closing = true;
                    tag.end = i + 2;
                    break;
                }
                b'/' => i += 1,
                _ if space(byte) => i += 1,
                _ => {
                    let name_start = i;
                    i += 1; // a first `=` belongs to the name
                    while i < len && !space(bytes[i]) && !matches!(bytes[i], b'/' | b'>' | b'=') {
                        i += 1;
                    }
                    let attribute = &bytes[name_start..i];
                    while i < len && space(bytes[i]) {
                        i += 1;
                    }
                    if bytes.get(i) == Some(&b'=') {
                        i += 1;
                        while i < len && space(bytes[i]) {
                            i += 1;
                        }
                        match bytes.get(i) {
                            Some(&quote @ (b'"' | b'\'')) => match memchr::memchr(quote, &bytes[i + 1..]) {
                                Some(at) => i += at + 2,
                                None => {
                                    self.pos = len;
                                    return None;
                                }
                            },
                            Some(b'>') | None => {}
                            Some(_) => {
                                while i < len && !space(bytes[i]) && bytes[i] != b'>' {
                                    i += 1;
                                }
                            }
                        }
                    }
                    count += 1;
                    tag.attributes = tag.attributes.rotate_left(5) ^ hash(&bytes[name_start..i]);
                    tag.font_attributes |=
                        [&b"color"[..], b"face", b"size"].iter().any(|n| attribute.eq_ignore_ascii_case(n));
                    if count == MAX_ATTRIBUTES {
                        tag.cut = Some(i);
                    }
                }
            }
        }
        if count <= MAX_ATTRIBUTES {
            tag.cut = None;
        }
        tag.count = count;
        self.pos = tag.end;
        Some(tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::web_fetch::elements::Tag as T;

    fn tags(html: &str) -> Vec<(bool, T, usize, usize)> {
        let mut scanner = Scanner::new(html);
        std::iter::from_fn(|| scanner.next_tag()).map(|t| (t.end_tag, t.name.tag, t.start, t.end)).collect()
    }

    #[test]
    fn tags_comments_and_quoted_values() {
        let html = r#"<!doctype html><!-- <p> --><P class="a>b" x='<i>'>t</p><!--x--!><b/>"#;
        assert_eq!(tags(html), [(false, T::P, 27, 50), (true, T::P, 51, 55), (false, T::Formatting, 64, 68)]);
        assert_eq!(tags("a < b <3 </ x> <!--> <br"), []);
    }

    #[test]
    fn raw_text_is_skipped_with_its_end_tag() {
        let html = "<script>if (a<b) { x = '<div>' }</SCRIPT ><p>";
        let mut scanner = Scanner::new(html);
        let script = scanner.next_tag().unwrap();
        scanner.skip_raw_text(&script.name);
        assert_eq!(scanner.next_tag().map(|t| t.name.tag), Some(T::P));
    }

    #[test]
    fn attributes_past_the_limit_are_cut() {
        let many: String = (0..MAX_ATTRIBUTES + 5).map(|i| format!(" a{i}=\"v\"")).collect();
        let html = format!("<div{many}>");
        let tag = Scanner::new(&html).next_tag().unwrap();
        let cut = tag.cut.unwrap();
        assert!(html[..cut].ends_with(&format!(" a{}=\"v\"", MAX_ATTRIBUTES - 1)), "{}", &html[..cut]);
        assert!(Scanner::new("<div a b c>").next_tag().unwrap().cut.is_none());
    }
}
