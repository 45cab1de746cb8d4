//! Lays out `Node`s (`nodes.rs`) at a width: wraps text under its list/quote prefixes, indents
//! and (only when too long) wraps code, draws rules and tables (`table.rs`). Owns the width
//! guarantee: no line it returns is wider than the width. It must not parse Markdown or colour
//! code (a code node `paint` left as source is laid out plain).

use ratatui::text::{Line, Span};

use super::nodes::{Code, Node, Prefix};
use super::style::Palette;
use super::table::layout_table;
use crate::tui::highlight::plain_code;
use crate::tui::wrap::{line_width, spans_width, truncate_line, wrap_spans};

/// Columns of indentation before code lines.
const CODE_INDENT: &str = "  ";

pub(crate) fn layout(nodes: &[Node], width: usize, palette: Palette) -> Vec<Line<'static>> {
    layout_nodes(nodes, width, palette).0
}

/// `layout`, and the first line of each node (one more entry at the end: the line count).
pub(crate) fn layout_nodes(nodes: &[Node], width: usize, palette: Palette) -> (Vec<Line<'static>>, Vec<usize>) {
    if width == 0 {
        return (Vec::new(), vec![0; nodes.len() + 1]);
    }
    let mut out = Vec::new();
    let mut starts = Vec::with_capacity(nodes.len() + 1);
    for node in nodes {
        starts.push(out.len());
        match node {
            Node::Text { prefix, spans } => {
                let body = wrap_spans(spans, available(prefix, width));
                push_prefixed(&mut out, prefix, body);
            }
            Node::Code { prefix, code } => {
                let plain;
                let lines = match code {
                    Code::Lines(lines) => lines.as_slice(),
                    Code::Source { text, .. } => {
                        plain = plain_code(text, palette.color);
                        plain.as_slice()
                    }
                };
                let room = available(prefix, width).saturating_sub(CODE_INDENT.len()).max(1);
                let mut body = Vec::with_capacity(lines.len());
                for line in lines.iter() {
                    let wrapped =
                        if line_width(line) <= room { vec![line.spans.clone()] } else { wrap_spans(&line.spans, room) };
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
    }
    starts.push(out.len());
    (out.into_iter().map(|line| truncate_line(line, width)).collect(), starts)
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
