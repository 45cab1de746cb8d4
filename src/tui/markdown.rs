//! Placeholder Markdown document until the real renderer lands: wraps the source as text.

use ratatui::style::Style;
use ratatui::text::Line;

#[derive(Default)]
pub struct MarkdownDoc {
    source: String,
    cache: Option<(u16, Vec<Line<'static>>)>,
}

impl MarkdownDoc {
    pub fn push_str(&mut self, delta: &str) {
        self.source.push_str(&crate::sanitize::sanitize(delta));
        self.cache = None;
    }
    pub fn source(&self) -> &str {
        &self.source
    }
    fn layout(&mut self, width: u16) -> &[Line<'static>] {
        if self.cache.as_ref().map(|(w, _)| *w) != Some(width) {
            let lines = super::wrap::wrap(&self.source, width, Style::default(), "", "", Style::default());
            self.cache = Some((width, lines));
        }
        self.cache.as_ref().map(|(_, l)| l.as_slice()).unwrap_or(&[])
    }
    pub fn height(&mut self, width: u16) -> usize {
        self.layout(width).len()
    }
    pub fn lines(&mut self, width: u16, start: usize, count: usize) -> Vec<Line<'static>> {
        self.layout(width).iter().skip(start).take(count).cloned().collect()
    }
}
