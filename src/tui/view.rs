//! Drawing `App`: the layout (conversation, tool log and context panes, composer, status
//! line) and the command popup; the approval dialog draws itself (`approval.rs`). Wide
//! terminals (≥ 100 columns) get a side column; narrow ones stack the panes.

use super::app::{Activity, App, Focus, PaneRects};
use super::context_panel::short_count;
use super::wrap::truncate;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::Frame;
use std::time::Instant;
use unicode_width::UnicodeWidthStr;

/// Columns from which the tool log and context panel sit beside the conversation.
const WIDE: u16 = 100;

impl App {
    pub fn draw(&mut self, frame: &mut Frame) {
        let area = frame.area();
        let now = self.clock.now();
        self.render(area, frame.buffer_mut(), now);
    }

    /// Lays out and draws everything into `buf`.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, now: Instant) {
        if area.width < 20 || area.height < 8 {
            buf.set_string(area.x, area.y, truncate("window too small", usize::from(area.width)), self.theme.dim());
            return;
        }
        let composer_h = self.composer.height().min(area.height.saturating_sub(6));
        let [main, composer, status] =
            Layout::vertical([Constraint::Min(3), Constraint::Length(composer_h), Constraint::Length(1)]).areas(area);
        let rects = self.pane_rects(main, composer);
        self.rects = rects;
        let theme = self.theme;
        let title = if self.busy { "conversation · Esc interrupts" } else { "conversation" };
        let highlight = matches!(self.focus, Focus::Conversation | Focus::Tools);
        self.history.render(rects.conversation, buf, &theme, self.focus == Focus::Conversation, highlight, title);
        self.tools.render(rects.tools, buf, &theme, self.focus == Focus::Tools, now);
        if let Some(context) = rects.context {
            self.context.render(context, buf, &theme, self.focus == Focus::Context);
        }
        let prompt_title = if self.queued > 0 { format!("prompt · {} queued", self.queued) } else { "prompt".into() };
        self.composer.render(composer, buf, &theme, self.focus == Focus::Composer, &prompt_title);
        self.render_status(status, buf, now);
        if self.focus == Focus::Composer {
            self.composer.render_popup(composer, buf, &theme);
        }
        if let Some(help) = self.help.as_mut() {
            help.render(area, buf, &theme, self.composer.commands());
        }
        self.render_approval(area, buf);
    }

    fn pane_rects(&self, main: Rect, composer: Rect) -> PaneRects {
        if main.width >= WIDE {
            let side = (main.width * 36 / 100).clamp(32, 64);
            let [conversation, right] = Layout::horizontal([Constraint::Min(20), Constraint::Length(side)]).areas(main);
            if self.show_context {
                let tools_h = (right.height * 2 / 5).max(5);
                let [tools, context] = Layout::vertical([Constraint::Length(tools_h), Constraint::Min(3)]).areas(right);
                PaneRects { conversation, tools, context: Some(context), composer }
            } else {
                PaneRects { conversation, tools: right, context: None, composer }
            }
        } else {
            let tools_h = (main.height / 3).clamp(3, 7);
            if self.show_context {
                let context_h = main.height / 2;
                let [conversation, tools, context] = Layout::vertical([
                    Constraint::Min(3),
                    Constraint::Length(tools_h.min(4)),
                    Constraint::Length(context_h),
                ])
                .areas(main);
                PaneRects { conversation, tools, context: Some(context), composer }
            } else {
                let [conversation, tools] =
                    Layout::vertical([Constraint::Min(3), Constraint::Length(tools_h)]).areas(main);
                PaneRects { conversation, tools, context: None, composer }
            }
        }
    }

    fn activity_text(&self, now: Instant) -> String {
        const SPIN: [&str; 4] = ["◐", "◓", "◑", "◒"];
        let spin = SPIN[(now.saturating_duration_since(self.started).as_millis() / 150) as usize % SPIN.len()];
        match &self.activity {
            Activity::Idle => "idle".into(),
            Activity::Thinking => format!("{spin} thinking"),
            Activity::Responding => format!("{spin} responding"),
            Activity::RunningTool(name) => format!("{spin} running {name}"),
            Activity::Retrying { attempt, max, until } => {
                let secs = until.saturating_duration_since(now).as_secs_f64().ceil();
                format!("retrying in {secs}s (attempt {attempt}/{max})")
            }
            Activity::Approving => "waiting for your approval".into(),
        }
    }

    fn render_status(&mut self, area: Rect, buf: &mut Buffer, now: Instant) {
        let theme = self.theme;
        buf.set_style(area, theme.status());
        if self.notice.as_ref().is_some_and(|(_, until)| *until <= Instant::now()) {
            self.notice = None;
        }
        let tokens = if self.usage.input_tokens + self.usage.output_tokens > 0 {
            format!(
                "↑{} ↓{} tok",
                short_count(self.usage.input_tokens as usize),
                short_count(self.usage.output_tokens as usize)
            )
        } else {
            format!("ctx ~{} tok", short_count(self.context.total_tokens()))
        };
        let mut left = format!(" {} · {} │ {} │ {tokens}", self.provider, self.model, self.activity_text(now));
        if self.yolo {
            left.push_str(" │ YOLO: no approvals");
        }
        if let Some((notice, _)) = &self.notice {
            left.push_str(&format!(" │ {notice}"));
        }
        let hints = if self.busy {
            "Esc interrupt · Tab focus · ^O context · ? help "
        } else {
            "Tab focus · ^O context · ? help "
        };
        let width = usize::from(area.width);
        let left = truncate(&crate::sanitize::sanitize(&left), width);
        buf.set_string(area.x, area.y, &left, theme.status());
        if left.width() + hints.width() + 2 <= width {
            buf.set_string(area.x + (width - hints.width()) as u16, area.y, hints, theme.status());
        }
    }
}
