//! Lays out `Node`s (`nodes.rs`) at a width: wraps text under its list/quote prefixes, puts a
//! code block under its label row (its language and `[copy]`), indents and (only when too
//! long) wraps code, draws rules and tables (`table.rs`); for a copy, says how each row reads
//! back as text (`layout_rows`). Owns the width
//! guarantee: no line it returns is wider than the width. It must not parse Markdown or colour
//! code (a code node `paint` left as source is laid out plain).

use ratatui::text::{Line, Span};

use super::nodes::{Code, Node, Prefix};
use super::style::Palette;
use super::table::layout_table;
use crate::tui::highlight::plain_code;
use crate::tui::text::row_text::{joins_of, Join, RowText};
use crate::tui::wrap::{line_width, spans_width, str_width, truncate_line, wrap_spans};

/// Columns of indentation before code lines.
const CODE_INDENT: &str = "  ";
/// What a code block's label row offers after its language (a click on the row copies it).
pub(crate) const COPY_BUTTON: &str = "[copy]";

pub(crate) fn layout(nodes: &[Node], width: usize, palette: Palette) -> Vec<Line<'static>> {
    layout_nodes(nodes, width, palette).0
}

/// `layout`, and the first line of each node (one more entry at the end: the line count).
pub(crate) fn layout_nodes(nodes: &[Node], width: usize, palette: Palette) -> (Vec<Line<'static>>, Vec<usize>) {
    lay_out(nodes, width, palette, None)
}

/// `layout`, and how each line reads back as text (`RowText`), for a copy: only when
/// something is copied, never while drawing.
pub(crate) fn layout_rows(nodes: &[Node], width: usize, palette: Palette) -> (Vec<Line<'static>>, Vec<RowText>) {
    let mut rows = Vec::new();
    let (lines, _) = lay_out(nodes, width, palette, Some(&mut rows));
    rows.resize(lines.len(), RowText::default());
    (lines, rows)
}

fn lay_out(
    nodes: &[Node],
    width: usize,
    palette: Palette,
    mut rows: Option<&mut Vec<RowText>>,
) -> (Vec<Line<'static>>, Vec<usize>) {
    if width == 0 {
        return (Vec::new(), vec![0; nodes.len() + 1]);
    }
    let mut out = Vec::new();
    let mut starts = Vec::with_capacity(nodes.len() + 1);
    let mut blocks = 0;
    for node in nodes {
        starts.push(out.len());
        match node {
            Node::Text { prefix, spans } => {
                let body = wrap_spans(spans, available(prefix, width));
                if let Some(rows) = rows.as_deref_mut() {
                    let source: String = spans.iter().map(|s| s.content.as_ref()).collect();
                    let rest = spans_width(&prefix.rest);
                    for (i, join) in joins_of(&source, &texts(&body)).into_iter().enumerate() {
                        rows.push(RowText::joined(join, if i == 0 { 0 } else { rest }));
                    }
                }
                push_prefixed(&mut out, prefix, body);
            }
            Node::Code { prefix, code, label } => {
                let plain;
                let lines = match code {
                    Code::Lines(lines) => lines.as_slice(),
                    Code::Source { text, .. } => {
                        plain = plain_code(text, palette.code_colors());
                        plain.as_slice()
                    }
                };
                let room = available(prefix, width).saturating_sub(CODE_INDENT.len()).max(1);
                let mut body = Vec::with_capacity(lines.len() + 1);
                if let Some(label) = label {
                    body.push(label_row(label, available(prefix, width), palette));
                    if let Some(rows) = rows.as_deref_mut() {
                        rows.push(RowText { label: Some(blocks), ..RowText::default() });
                    }
                    blocks += 1;
                }
                // Code's rows, the label's aside, hang under the prefix's continuation.
                let skip = spans_width(if body.is_empty() { &prefix.first } else { &prefix.rest }) + CODE_INDENT.len();
                for line in lines.iter() {
                    let wrapped =
                        if line_width(line) <= room { vec![line.spans.clone()] } else { wrap_spans(&line.spans, room) };
                    if let Some(rows) = rows.as_deref_mut() {
                        let source: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
                        let joins =
                            if wrapped.len() == 1 { vec![Join::Line] } else { joins_of(&source, &texts(&wrapped)) };
                        rows.extend(joins.into_iter().map(|join| RowText::joined(join, skip)));
                    }
                    for mut spans in wrapped {
                        spans.insert(0, Span::raw(CODE_INDENT));
                        body.push(spans);
                    }
                }
                push_prefixed(&mut out, prefix, body);
            }
            Node::Table { prefix, table } => {
                let body = layout_table(table, available(prefix, width), palette);
                push_prefixed(&mut out, prefix, body.into_iter().map(|l| l.spans).collect());
            }
            Node::Rule { prefix } => {
                let rule = Span::styled("─".repeat(available(prefix, width)), palette.dim());
                push_prefixed(&mut out, prefix, vec![vec![rule]]);
            }
            Node::Blank { prefix } => out.push(Line::from(prefix.clone())),
        }
        if let Some(rows) = rows.as_deref_mut() {
            rows.resize(out.len(), RowText::default());
        }
    }
    starts.push(out.len());
    (out.into_iter().map(|line| truncate_line(line, width)).collect(), starts)
}

/// A code block's label row in `room` columns: its language, and the copy button when it fits.
fn label_row(label: &str, room: usize, palette: Palette) -> Vec<Span<'static>> {
    let mut row = vec![Span::raw(CODE_INDENT), Span::styled(label.to_string(), palette.marker())];
    if CODE_INDENT.len() + str_width(label) + 2 + COPY_BUTTON.len() <= room {
        row.extend([Span::raw("  "), Span::styled(COPY_BUTTON, palette.dim())]);
    }
    row
}

/// The text of wrapped rows.
fn texts(rows: &[Vec<Span<'static>>]) -> Vec<String> {
    rows.iter().map(|row| row.iter().map(|s| s.content.as_ref()).collect()).collect()
}

fn available(prefix: &Prefix, width: usize) -> usize {
    width.saturating_sub(spans_width(&prefix.first)).max(1)
}

fn push_prefixed(out: &mut Vec<Line<'static>>, prefix: &Prefix, body: Vec<Vec<Span<'static>>>) {
    for (i, spans) in body.into_iter().enumerate() {
        let mut line = if i == 0 { prefix.first.clone() } else { prefix.rest.clone() };
        line.extend(spans);
        out.push(Line::from(line));
    }
}
