//! Turns one block of Markdown source into width-independent `Node`s (`nodes.rs`): styled
//! inline text with its list/quote prefixes, code as its source, tables, rules and blank
//! separators, and the `Marks` the open block's strategies need. Owns the pulldown-cmark event
//! walk; it must not colour code (`paint`), wrap or measure (`lines`), and never panics.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use unicode_width::UnicodeWidthStr;

use super::nodes::{Code, Node, Prefix, Table};
use super::style::{spaces, Palette};
use crate::tui::highlight::fence_lang;
use std::borrow::Cow;

enum Container {
    Quote,
    /// `width`: the marker's columns.
    Item {
        marker: Cow<'static, str>,
        width: usize,
        used: bool,
    },
}

/// What the open block's incremental layout (`open::block`) learns from a parse besides the
/// nodes: where the items of lists at the top level of the block start, and how those lists
/// are spaced. Offsets are into the parsed (sanitized) text.
#[derive(Debug, Default)]
pub(crate) struct Marks {
    pub items: Vec<ItemMark>,
    /// One per top-level list, in order.
    pub lists: Vec<Spacing>,
    /// The first top-level block, when it is a paragraph or a table.
    pub first: Option<FirstBlock>,
}

/// A top-level list item: its byte offset and the index of its first node (after the blank
/// separator before it, if any).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ItemMark {
    pub offset: usize,
    pub node: usize,
    /// Index into `Marks::lists`.
    pub list: usize,
}

/// How a top-level list was parsed: a paragraph directly in an item (a loose list) or inline
/// text directly in an item (a tight one). A list with neither looks the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Spacing {
    pub loose: bool,
    pub tight: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FirstBlock {
    Paragraph,
    Table,
    Other,
}

struct Walker {
    palette: Palette,
    nodes: Vec<Node>,
    containers: Vec<Container>,
    /// Next number of each open list (`None` for bullets).
    lists: Vec<Option<u64>>,
    styles: Vec<Style>,
    spans: Vec<Span<'static>>,
    /// Open links and images: target and where their text starts in `spans`.
    links: Vec<(String, usize)>,
    need_blank: bool,
    code: Option<(String, String)>,
    table: Option<Table>,
    row: Vec<Vec<Span<'static>>>,
    marks: Marks,
    /// Offset of the current event.
    at: usize,
    /// A top-level item started at this offset and has no node yet.
    pending_item: Option<usize>,
    /// Paragraphs, headings, code, HTML and tables open around the current event.
    blocks: usize,
}

/// The parser options of every render.
pub(crate) const OPTIONS: Options =
    Options::ENABLE_TABLES.union(Options::ENABLE_STRIKETHROUGH).union(Options::ENABLE_TASKLISTS);

/// Parses `source` (already sanitized) into nodes, code left as its source.
pub(crate) fn parse(source: &str, palette: Palette) -> Vec<Node> {
    parse_marked(source, palette).0
}

/// `parse`, and the `Marks` of the parse.
pub(crate) fn parse_marked(source: &str, palette: Palette) -> (Vec<Node>, Marks) {
    let events: Vec<(Event<'_>, std::ops::Range<usize>)> =
        Parser::new_ext(source, OPTIONS).into_offset_iter().collect();
    let last_content = events.iter().rposition(|(e, _)| !matches!(e, Event::End(_))).unwrap_or(0);
    let mut walker = Walker {
        palette,
        nodes: Vec::new(),
        containers: Vec::new(),
        lists: Vec::new(),
        styles: Vec::new(),
        spans: Vec::new(),
        links: Vec::new(),
        need_blank: false,
        code: None,
        table: None,
        row: Vec::new(),
        marks: Marks::default(),
        at: 0,
        pending_item: None,
        blocks: 0,
    };
    for (i, (event, range)) in events.into_iter().enumerate() {
        walker.at = range.start;
        walker.event(event, i >= last_content);
    }
    walker.flush(false);
    (walker.nodes, walker.marks)
}

impl Walker {
    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, add: Style) {
        self.styles.push(self.style().patch(add));
    }

    fn text(&mut self, text: &str, style: Style) {
        if let Some((_, code)) = self.code.as_mut() {
            code.push_str(text);
            return;
        }
        if self.blocks == 0 && self.in_top_item() {
            if let Some(list) = self.marks.lists.last_mut() {
                list.tight = true;
            }
        }
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.spans.push(Span::styled(text.to_string(), style)),
        }
    }

    /// `at_end`: no content comes after this event (only the ends of what is open).
    fn event(&mut self, event: Event<'_>, at_end: bool) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag, at_end),
            Event::Text(text) => self.text(&text, self.style()),
            Event::Code(code) => {
                let style = self.style().patch(self.palette.inline_code());
                if self.palette.color {
                    self.text(&code, style);
                } else {
                    self.text(&format!("`{code}`"), style);
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html, self.style()),
            Event::InlineMath(t) | Event::DisplayMath(t) | Event::FootnoteReference(t) => self.text(&t, self.style()),
            Event::SoftBreak => self.text(" ", self.style()),
            Event::HardBreak => self.text("\n", self.style()),
            Event::Rule => {
                self.flush(false);
                let prefix = self.prefix();
                self.nodes.push(Node::Rule { prefix });
                self.need_blank = true;
            }
            Event::TaskListMarker(done) => {
                if done {
                    self.text("[✓]", self.style().patch(self.palette.task_done()));
                    self.text(" ", self.style());
                } else {
                    self.text("[ ] ", self.style());
                }
            }
        }
    }

    /// Directly inside an item of a top-level list.
    fn in_top_item(&self) -> bool {
        self.lists.len() == 1 && matches!(self.containers.as_slice(), [Container::Item { .. }])
    }

    /// Bookkeeping for `Marks` before a start tag is handled.
    fn mark(&mut self, tag: &Tag<'_>) {
        let top = self.containers.is_empty() && self.lists.is_empty() && self.blocks == 0;
        if top && self.marks.first.is_none() {
            self.marks.first = Some(match tag {
                Tag::Paragraph => FirstBlock::Paragraph,
                Tag::Table(_) => FirstBlock::Table,
                _ => FirstBlock::Other,
            });
        }
        match tag {
            Tag::List(_) if top => self.marks.lists.push(Spacing::default()),
            Tag::Item if self.containers.is_empty() && self.lists.len() == 1 => self.pending_item = Some(self.at),
            Tag::Paragraph if self.blocks == 0 && self.in_top_item() => {
                if let Some(list) = self.marks.lists.last_mut() {
                    list.loose = true;
                }
            }
            _ => {}
        }
        if matches!(tag, Tag::Paragraph | Tag::Heading { .. } | Tag::CodeBlock(_) | Tag::HtmlBlock | Tag::Table(_)) {
            self.blocks += 1;
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        self.mark(&tag);
        match tag {
            Tag::Paragraph | Tag::DefinitionList | Tag::DefinitionListTitle | Tag::DefinitionListDefinition => {
                self.flush(false)
            }
            Tag::Heading { level, .. } => {
                self.flush(false);
                self.push_style(self.palette.heading(heading_level(level)));
            }
            Tag::BlockQuote(_) => {
                self.flush(false);
                self.containers.push(Container::Quote);
                self.push_style(self.palette.quote());
            }
            Tag::CodeBlock(kind) => {
                self.flush(false);
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => fence_lang(&info).to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::HtmlBlock => self.flush(false),
            Tag::List(start) => {
                self.flush(false);
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush(false);
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let marker = format!("{n}. ");
                        *n = n.saturating_add(1);
                        Cow::Owned(marker)
                    }
                    _ => Cow::Borrowed(["• ", "◦ ", "▪ "][depth % 3]),
                };
                let width = marker.width();
                self.containers.push(Container::Item { marker, width, used: false });
            }
            Tag::Table(aligns) => {
                self.flush(false);
                self.table = Some(Table { aligns, ..Table::default() });
            }
            Tag::TableHead | Tag::TableRow => self.row.clear(),
            Tag::TableCell => self.spans.clear(),
            Tag::Emphasis => self.push_style(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Superscript | Tag::Subscript => self.push_style(Style::new()),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.push_style(self.palette.link());
                self.links.push((dest_url.to_string(), self.spans.len()));
            }
            Tag::FootnoteDefinition(_) | Tag::MetadataBlock(_) => self.flush(false),
        }
    }

    fn end(&mut self, tag: TagEnd, at_end: bool) {
        if matches!(tag, TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::CodeBlock | TagEnd::HtmlBlock | TagEnd::Table)
        {
            self.blocks = self.blocks.saturating_sub(1);
        }
        match tag {
            TagEnd::Paragraph | TagEnd::DefinitionListTitle | TagEnd::DefinitionListDefinition => {
                self.flush(false);
                self.need_blank = true;
            }
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.flush(false);
                self.need_blank = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush(false);
                self.styles.pop();
                self.containers.pop();
                self.need_blank = true;
            }
            TagEnd::CodeBlock => {
                if let Some((lang, text)) = self.code.take() {
                    let label = Some(code_label(&lang).to_string());
                    let code = Code::Source { lang, text, at_end };
                    self.emit(|prefix| Node::Code { prefix, code, label });
                    self.need_blank = true;
                }
            }
            TagEnd::HtmlBlock => {
                if let Some(last) = self.spans.last_mut() {
                    let trimmed = last.content.trim_end_matches('\n').len();
                    last.content.to_mut().truncate(trimmed);
                }
                self.flush(false);
                self.need_blank = true;
            }
            TagEnd::List(_) => {
                self.flush(false);
                self.lists.pop();
                if self.lists.is_empty() {
                    self.need_blank = true;
                }
            }
            TagEnd::Item => {
                let unused = matches!(self.containers.last(), Some(Container::Item { used: false, .. }));
                self.flush(unused);
                self.containers.pop();
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.emit(|prefix| Node::Table { prefix, table });
                    self.need_blank = true;
                }
            }
            TagEnd::TableHead => {
                if let Some(table) = self.table.as_mut() {
                    table.header = std::mem::take(&mut self.row);
                }
            }
            TagEnd::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.rows.push(std::mem::take(&mut self.row));
                }
            }
            TagEnd::TableCell => self.row.push(std::mem::take(&mut self.spans)),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Superscript | TagEnd::Subscript => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => {
                self.styles.pop();
                if let Some((dest, start)) = self.links.pop() {
                    let text: String =
                        self.spans.get(start..).unwrap_or(&[]).iter().map(|s| s.content.as_ref()).collect();
                    let bare = dest.strip_prefix("mailto:").unwrap_or(&dest);
                    if !dest.is_empty() && text != dest && text != bare {
                        let style = self.palette.dim();
                        self.text(&format!(" ({dest})"), style);
                    }
                }
            }
            TagEnd::FootnoteDefinition | TagEnd::MetadataBlock(_) | TagEnd::DefinitionList => self.flush(false),
        }
    }

    /// Emits pending inline text as a node; `force` emits even when empty (an empty list item
    /// still shows its marker).
    fn flush(&mut self, force: bool) {
        if self.table.is_some() || (self.spans.is_empty() && !force) {
            return;
        }
        let spans = std::mem::take(&mut self.spans);
        self.emit(|prefix| Node::Text { prefix, spans });
    }

    fn emit(&mut self, node: impl FnOnce(Prefix) -> Node) {
        if self.need_blank && !self.nodes.is_empty() {
            let prefix = self.blank_prefix();
            self.nodes.push(Node::Blank { prefix });
        }
        self.need_blank = false;
        if let Some(offset) = self.pending_item.take() {
            let list = self.marks.lists.len().saturating_sub(1);
            self.marks.items.push(ItemMark { offset, node: self.nodes.len(), list });
        }
        let prefix = self.prefix();
        self.nodes.push(node(prefix));
    }

    /// The prefix for the next node; list markers are shown once, on the first line of an item.
    fn prefix(&mut self) -> Prefix {
        let gutter = self.palette.quote();
        let marker_style = self.palette.marker();
        let mut prefix = Prefix::default();
        for container in &mut self.containers {
            match container {
                Container::Quote => {
                    prefix.first.push(Span::styled("│ ", gutter));
                    prefix.rest.push(Span::styled("│ ", gutter));
                }
                Container::Item { marker, width, used } => {
                    let pad = spaces(*width);
                    if *used {
                        prefix.first.push(Span::raw(pad.clone()));
                    } else {
                        prefix.first.push(Span::styled(marker.clone(), marker_style));
                        *used = true;
                    }
                    prefix.rest.push(Span::raw(pad));
                }
            }
        }
        prefix
    }

    fn blank_prefix(&self) -> Vec<Span<'static>> {
        let depth = self.containers.iter().rposition(|c| matches!(c, Container::Quote));
        let Some(depth) = depth else { return Vec::new() };
        let mut spans = Vec::new();
        for container in &self.containers[..=depth] {
            match container {
                Container::Quote => spans.push(Span::styled("│ ", self.palette.quote())),
                Container::Item { width, .. } => spans.push(Span::raw(spaces(*width))),
            }
        }
        if let Some(last) = spans.last_mut() {
            last.content = "│".into();
        }
        spans
    }
}

/// What a code block's label says: its fence's language, or `code`.
pub(crate) fn code_label(lang: &str) -> &str {
    if lang.is_empty() {
        "code"
    } else {
        lang
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}
