//! A fetched body as text the model can read: HTML as Markdown (scripts, styles, forms and
//! navigation chrome dropped; the page's `<main>` or `<article>` when it has one), plain
//! text, Markdown, JSON and XML as they are; anything else refused by its type. HTML goes
//! through `nesting.rs` (nesting capped before the parser), `convert::parse` (in pieces,
//! within the fetch's time) and `tree.rs` (depth and merges bounded) before htmd writes
//! the Markdown; run it on `convert::off_thread`.

use super::convert::{self, Until};
use super::{nesting, tree};

/// Tags whose content is never part of the text.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "form", "button", "input",
    "select", "textarea", "nav", "footer", "aside", "head", "link", "meta",
];

/// Bytes of a `<title>` read.
const TITLE_BYTES: usize = 2048;

/// A body as text, and what the reader should know of how it was made.
#[derive(Debug)]
pub struct Rendered {
    pub text: String,
    pub note: Option<String>,
}

/// The body of a `content_type` response as text, or why it cannot be read.
pub fn render(content_type: &str, body: &[u8], until: &Until) -> Result<Rendered, String> {
    let mime = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    let text = String::from_utf8_lossy(body);
    let looks_like_html = mime.is_empty()
        && text.trim_start().get(..15).is_some_and(|h| {
            let h = h.to_ascii_lowercase();
            h.starts_with("<!doctype html") || h.starts_with("<html")
        });
    if mime == "text/html" || mime == "application/xhtml+xml" || looks_like_html {
        return html_to_markdown(&text, until);
    }
    let textual = mime.starts_with("text/")
        || mime.is_empty()
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || ["application/json", "application/xml", "application/javascript", "application/x-yaml", "application/toml"]
            .contains(&mime.as_str());
    if textual && !body.contains(&0) {
        return Ok(Rendered { text: text.into_owned(), note: None });
    }
    Err(format!("the response is {mime}, not text; web_fetch reads HTML, text and JSON"))
}

/// What the result says when the conversion ran out of time.
pub fn time_up() -> String {
    format!(
        "the page was read but converting its HTML to text did not end within {} s (the limit for fetching and \
         converting a page); nothing of it is shown",
        super::TIMEOUT.as_secs()
    )
}

/// HTML as Markdown: the `<main>` (else `<article>`, else `<body>`) without the dropped tags.
fn html_to_markdown(html: &str, until: &Until) -> Result<Rendered, String> {
    let converter = htmd::HtmlToMarkdown::builder().skip_tags(DROPPED.to_vec()).build();
    let part = main_part(html).unwrap_or(html);
    let capped = nesting::cap(part);
    let document = convert::parse(&capped.html, until).ok_or_else(time_up)?;
    let flattened = tree::prepare(&document, DROPPED);
    if until.passed() {
        return Err(time_up());
    }
    let markdown = converter.tree_to_markdown(&document);
    let title = title_of(html, until).filter(|t| !markdown.contains(t.as_str()));
    let text = match title {
        Some(title) => format!("# {title}\n\n{}", markdown.trim()),
        None => markdown.trim().to_string(),
    };
    let note = (capped.changed > 0 || flattened > 0).then(|| {
        format!(
            "the page nests deeper than web_fetch reads ({} elements open at once, {} formatting elements, {} \
             attributes on a tag); the markup past that was dropped and its text kept",
            nesting::MAX_DEPTH,
            nesting::MAX_FORMATTING,
            super::html_scan::MAX_ATTRIBUTES
        )
    });
    Ok(Rendered { text, note })
}

/// The page's `<main>…</main>` or `<article>…</article>`, when it has exactly one.
fn main_part(html: &str) -> Option<&str> {
    let lower = html.to_ascii_lowercase();
    for tag in ["main", "article"] {
        let open = format!("<{tag}");
        let close = format!("</{tag}>");
        let (Some(start), Some(end)) = (lower.find(&open), lower.rfind(&close)) else { continue };
        if lower.matches(&open).count() == 1 && start < end {
            return html.get(start..end + close.len());
        }
    }
    None
}

/// The text of the page's `<title>` (its first `TITLE_BYTES`), decoded by the converter.
fn title_of(html: &str, until: &Until) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let end = open_end + lower[open_end..].find("</title>")?;
    let mut cut = end.min(open_end + TITLE_BYTES);
    while !html.is_char_boundary(cut) {
        cut -= 1;
    }
    let paragraph = format!("<p>{}</p>", html.get(open_end..cut)?);
    let document = convert::parse(&nesting::cap(&paragraph).html, until)?;
    tree::prepare(&document, DROPPED);
    let title = htmd::HtmlToMarkdown::new().tree_to_markdown(&document);
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(content_type: &str, body: &[u8]) -> Result<String, String> {
        super::render(content_type, body, &Until::never()).map(|r| r.text)
    }

    const PAGE: &str = r#"<!doctype html><html><head><title>Fetch test</title>
        <style>.x { color: red }</style><script>var secret = "SCRIPT-TEXT";</script></head>
        <body><nav><a href="/">Home</a> NAV-TEXT</nav>
        <h1>Title</h1><p>Some <b>bold</b> text and a <a href="https://docs.rs">link</a>.</p>
        <ul><li>one</li><li>two</li></ul><pre><code>let x = 1;</code></pre>
        <footer>FOOTER-TEXT</footer></body></html>"#;

    #[test]
    fn html_becomes_markdown_without_scripts_styles_or_navigation() {
        let md = render("text/html; charset=utf-8", PAGE.as_bytes()).unwrap();
        assert!(md.contains("# Title"), "{md}");
        assert!(md.contains("**bold**"), "{md}");
        assert!(md.contains("[link](https://docs.rs)"), "{md}");
        assert!(md.contains("let x = 1;"), "{md}");
        assert!(md.contains("one") && md.contains("two"), "{md}");
        for gone in ["SCRIPT-TEXT", "color: red", "NAV-TEXT", "FOOTER-TEXT"] {
            assert!(!md.contains(gone), "{gone} in {md}");
        }
    }

    #[test]
    fn a_pages_main_part_is_what_is_read_and_the_title_leads() {
        let html = "<html><head><title>Docs &amp; more</title></head><body><div>MENU</div>\
                    <main><p>Body text</p></main></body></html>";
        let md = render("text/html", html.as_bytes()).unwrap();
        assert!(md.starts_with("# Docs & more"), "{md}");
        assert!(md.contains("Body text") && !md.contains("MENU"), "{md}");
    }

    #[test]
    fn text_and_json_are_returned_as_they_are_and_binary_is_refused() {
        assert_eq!(render("text/plain", b"a <b>b</b>").unwrap(), "a <b>b</b>");
        assert_eq!(render("application/json", br#"{"a": 1}"#).unwrap(), r#"{"a": 1}"#);
        assert!(render("image/png", b"\x89PNG\r\n").unwrap_err().contains("image/png"));
        assert!(render("", b"\x00\x01").is_err());
        assert!(render("", b"<!DOCTYPE html><p>hi</p>").unwrap().contains("hi"));
    }
}
