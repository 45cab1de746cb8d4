//! The accept-plan dialog: when a turn in plan mode ends with a plan (`AgentEvent::Plan`),
//! it asks whether to go ahead — `[1]` in ask mode, `[2]` accepting edits, `[3]` keep
//! planning. Like the approval dialog it takes keys only once armed (open for
//! `APPROVAL_GUARD`, the user not typing for `APPROVAL_PAUSE`), and then only digits (and
//! Esc, which keeps planning), so typing never answers it; a digit pressed before it is
//! armed, while the user was not typing, is dropped and the dialog says so (`early`).

use crate::protocol::mode::Mode;
use crate::tui::intent::Intent;
use crate::tui::popups::approval::{APPROVAL_GUARD, APPROVAL_PAUSE};
use crate::tui::text::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use std::time::Instant;

/// The prompt sent when the user accepts the plan.
pub const GO_AHEAD: &str = "The plan is accepted: go ahead with the plan.";

/// The open dialog: when it opened and the plan it is about.
pub struct PlanAccept {
    opened: Instant,
    steps: usize,
    /// The plan's lines, sent back with the go-ahead (the turn's tool calls are gone from
    /// the conversation by then).
    lines: Vec<String>,
    /// A digit pressed before it took answers (and not while typing): dropped.
    pub early: Option<char>,
}

impl PlanAccept {
    pub fn new(now: Instant, plan: &crate::protocol::plan::Plan) -> Self {
        PlanAccept { opened: now, steps: plan.steps.len(), lines: plan.lines(), early: None }
    }

    /// The prompt that goes ahead with the plan.
    pub fn go_ahead(&self) -> String {
        format!("{GO_AHEAD}\n{}", self.lines.join("\n"))
    }

    /// Whether digits answer it at `now`.
    pub fn armed(&self, now: Instant, last_typed: Option<Instant>) -> bool {
        now.duration_since(self.opened) >= APPROVAL_GUARD
            && last_typed.is_none_or(|typed| now.duration_since(typed) >= APPROVAL_PAUSE)
    }

    /// `AcceptPlan(Some(mode))` to switch and go ahead, `AcceptPlan(None)` to keep planning;
    /// `Ignored` for every other key (typing goes on to the prompt).
    pub fn handle_key(&self, key: KeyEvent, armed: bool) -> Intent {
        match key.code {
            KeyCode::Esc => Intent::AcceptPlan(None),
            KeyCode::Char('1') if armed => Intent::AcceptPlan(Some(Mode::Ask)),
            KeyCode::Char('2') if armed => Intent::AcceptPlan(Some(Mode::Edits)),
            KeyCode::Char('3') if armed => Intent::AcceptPlan(None),
            _ => Intent::Ignored,
        }
    }

    /// Drawn just above `below` (the plan strip, or the prompt), across its width.
    pub fn render(&self, below: Rect, buf: &mut Buffer, theme: &Theme, armed: bool) {
        let height = if self.early.is_some() { 4 } else { 3 };
        if below.y < height {
            return;
        }
        let rect = Rect { y: below.y - height, height, ..below };
        Clear.render(rect, buf);
        let plural = if self.steps == 1 { "" } else { "s" };
        let title = format!(" Accept the plan ({} step{plural})? ", self.steps);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.approval())
            .title(Span::styled(title, theme.approval()));
        let inner = block.inner(rect);
        block.render(rect, buf);
        let key = |k: &str| Span::styled(k.to_string(), theme.approval());
        let line = if armed {
            Line::from(vec![
                key("[1]"),
                Span::raw(" yes, ask before changes  "),
                key("[2]"),
                Span::raw(" yes, accept edits  "),
                key("[3]"),
                Span::raw(" keep planning"),
            ])
        } else {
            Line::from(vec![
                Span::styled("typing goes to the prompt", theme.dim()),
                Span::raw(" · stop typing to answer with "),
                key("1-3"),
            ])
        };
        buf.set_line(inner.x, inner.y, &line, inner.width);
        if let Some(digit) = self.early {
            let note = crate::tui::popups::approval::early_note(digit, armed);
            buf.set_line(inner.x, inner.y + 1, &Line::styled(note, theme.approval()), inner.width);
        }
    }
}
