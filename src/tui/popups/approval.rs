//! The approval dialog: the question (`Allow edit?`), what the call would do (a diff in
//! colour, a command, the arguments), scrollable and full-screen for long diffs, and the
//! answers — 1 yes, 2 always this session, 3 no, 4 no with a reason typed on one line that
//! the model receives in the refusal (Esc and Ctrl+C also say no).
//!
//! No ordinary typing can answer: the dialog takes keys only once it is *armed*, after
//! `APPROVAL_GUARD` since it opened and `APPROVAL_PAUSE` since the user last typed. Until
//! then every key is typing meant for the prompt and goes there; once armed, the answers
//! are digits (never letters, which any sentence is full of), and a letter still goes to the
//! prompt and disarms the dialog again (the user went on typing after a pause).
//! A digit pressed before the dialog is armed while the user was *not* typing (it came with
//! the dialog, a reflex) is neither: `keys.rs` drops it and the dialog says so (`early`)
//! until it is answered, so it never lands in the prompt. Whether the dialog is armed shows
//! on its last row: "typing goes to the prompt" until then, the answers after.
//!
//! The project-trust question (`PreviewKind::Trust`) is answered the same way, with its
//! own choices: 1 yes, 2 no (not asked again), 3 not now (Esc and Ctrl+C too); no reason,
//! since no model is involved.

use crate::agent::input::{Approval, ApprovalRequest, NEVER_ASK_AGAIN};
use crate::agent::PreviewKind;
use crate::tui::intent::Intent;
use crate::tui::text::diff::{diff_lines, is_diff};
use crate::tui::text::theme::Theme;
use crate::tui::wrap::{truncate, wrap};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// How long after an approval dialog opens its keys are still taken as typing meant for
/// the prompt: keys already in flight when it appeared.
pub const APPROVAL_GUARD: Duration = Duration::from_millis(300);

/// How long the user must have stopped typing before the dialog takes keys: someone typing
/// the next prompt (a key every 50-300 ms) keeps typing into the prompt.
pub const APPROVAL_PAUSE: Duration = Duration::from_millis(1000);

/// A question waiting for the user's answer.
pub struct PendingApproval {
    pub request: ApprovalRequest,
    pub reply: oneshot::Sender<Approval>,
    /// When the dialog opened: keys typed within `APPROVAL_GUARD` of it are not answers.
    pub opened: Instant,
    /// First preview row shown.
    pub scroll: usize,
    /// The dialog covers the whole screen (Ctrl+F).
    pub full_screen: bool,
    /// The reason being typed after `4`, if the user is giving one.
    pub reason: Option<String>,
    /// A digit pressed before the dialog took answers (and not while typing): dropped, and
    /// the dialog says to press it again.
    pub early: Option<char>,
    /// Preview rows that fit at the last draw (for paging).
    view_rows: usize,
}

impl PendingApproval {
    pub fn new(request: ApprovalRequest, reply: oneshot::Sender<Approval>, opened: Instant) -> Self {
        PendingApproval {
            request,
            reply,
            opened,
            scroll: 0,
            full_screen: false,
            reason: None,
            early: None,
            view_rows: 1,
        }
    }

    /// The preview as lines for `width`: a diff in colour, anything else plain.
    fn body(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let preview = crate::sanitize::sanitize_visible(&self.request.preview.text);
        if self.is_trust() {
            // What trusting turns on, item by item: each line wraps under its own indent.
            return preview
                .lines()
                .flat_map(|line| {
                    let text = line.trim_start();
                    let indent = " ".repeat(line.len() - text.len());
                    wrap(text, width, theme.text(), &indent, &format!("{indent}  "), theme.text())
                })
                .collect();
        }
        if self.request.preview.kind == PreviewKind::Diff || is_diff(&preview) {
            diff_lines(&preview, width, theme, "")
        } else {
            wrap(&preview, width, theme.text(), "", "", theme.text())
        }
    }

    /// The project-trust question, not a tool call.
    pub fn is_trust(&self) -> bool {
        self.request.preview.kind == PreviewKind::Trust
    }

    fn scroll_by(&mut self, rows: isize) {
        self.scroll = self.scroll.saturating_add_signed(rows);
    }

    /// What the status line says once `approval` answered this question.
    pub fn answered(&self, approval: &Approval) -> String {
        let word = match (approval, self.is_trust()) {
            (Approval::Yes | Approval::Always, true) => "trusted",
            (Approval::NoBecause(_), true) => "not trusted",
            (Approval::No, true) => "not trusted for now",
            (Approval::Yes, false) => "allowed",
            (Approval::No, false) => "denied",
            (Approval::NoBecause(_), false) => "denied, with your reason",
            (Approval::Always, false) => "always allowed",
        };
        format!("{} {word}", self.request.tool)
    }

    /// Whether the dialog takes keys as answers at `now`: it has been open for
    /// `APPROVAL_GUARD` and the user has not typed (`last_typed`) for `APPROVAL_PAUSE`.
    pub fn armed(&self, now: Instant, last_typed: Option<Instant>) -> bool {
        now.duration_since(self.opened) >= APPROVAL_GUARD
            && last_typed.is_none_or(|typed| now.duration_since(typed) >= APPROVAL_PAUSE)
    }

    /// Every key goes here while the dialog is open: `Answer`, `Handled`, or `Ignored` when
    /// the key is typing meant for the prompt (the caller handles it as if no dialog were
    /// open).
    pub fn handle_key(&mut self, key: KeyEvent, armed: bool) -> Intent {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        // Deliberate at any time: never produced by typing a sentence.
        match key.code {
            KeyCode::Char('c') if ctrl => return Intent::Answer(Approval::No),
            KeyCode::Char('f') if ctrl => {
                self.full_screen = !self.full_screen;
                return Intent::Handled;
            }
            KeyCode::Up => self.scroll_by(-1),
            KeyCode::Down => self.scroll_by(1),
            KeyCode::PageUp => self.scroll_by(-(self.view_rows.saturating_sub(1).max(1) as isize)),
            KeyCode::PageDown => self.scroll_by(self.view_rows.saturating_sub(1).max(1) as isize),
            _ => {}
        }
        if matches!(key.code, KeyCode::Up | KeyCode::Down | KeyCode::PageUp | KeyCode::PageDown) {
            return Intent::Handled;
        }
        if let Some(reason) = self.reason.as_mut() {
            match key.code {
                KeyCode::Enter => {
                    let reason = reason.trim().to_string();
                    return Intent::Answer(if reason.is_empty() { Approval::No } else { Approval::NoBecause(reason) });
                }
                KeyCode::Esc => self.reason = None,
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Char(c) if !ctrl => reason.push(c),
                _ => {}
            }
            return Intent::Handled;
        }
        if !armed {
            // Typing under way: it stays typing, whatever the letters are. Esc is not
            // typing, but an interrupt here would leave the question open: it waits too.
            return if key.code == KeyCode::Esc { Intent::Handled } else { Intent::Ignored };
        }
        if self.is_trust() {
            return match key.code {
                KeyCode::Char('1') => Intent::Answer(Approval::Yes),
                KeyCode::Char('2') => Intent::Answer(Approval::NoBecause(NEVER_ASK_AGAIN.into())),
                KeyCode::Char('3') | KeyCode::Esc => Intent::Answer(Approval::No),
                KeyCode::Home => self.scroll_to(0),
                KeyCode::End => self.scroll_to(usize::MAX),
                _ => Intent::Ignored,
            };
        }
        match key.code {
            KeyCode::Char('1') => Intent::Answer(Approval::Yes),
            KeyCode::Char('2') => Intent::Answer(Approval::Always),
            KeyCode::Char('3') | KeyCode::Esc => Intent::Answer(Approval::No),
            KeyCode::Char('4') => {
                self.reason = Some(String::new());
                Intent::Handled
            }
            KeyCode::Home => self.scroll_to(0),
            KeyCode::End => self.scroll_to(usize::MAX),
            // Anything else is the user typing again after a pause.
            _ => Intent::Ignored,
        }
    }

    fn scroll_to(&mut self, row: usize) -> Intent {
        self.scroll = row;
        Intent::Handled
    }

    /// A paste while the dialog asks for a reason goes into the reason (its first line).
    pub fn paste(&mut self, text: &str) {
        if let Some(reason) = self.reason.as_mut() {
            reason.push_str(text.lines().next().unwrap_or(""));
        }
    }

    /// Draws the dialog over `area`; `armed` says whether it takes answers yet.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, armed: bool) {
        let pending = self;
        let rect = if pending.full_screen {
            area
        } else {
            let width = (area.width * 4 / 5).clamp(20, 100).min(area.width);
            Rect { x: area.x + (area.width - width) / 2, width, ..area }
        };
        let body = pending.body(rect.width.saturating_sub(2), theme);
        // Borders and the answers line take 3 rows; a centred dialog leaves a margin.
        let room = usize::from(rect.height.saturating_sub(if pending.full_screen { 3 } else { 6 })).max(1);
        let shown = body.len().clamp(1, room);
        pending.view_rows = shown;
        pending.scroll = pending.scroll.min(body.len().saturating_sub(shown));
        let height = (shown as u16 + 4).min(rect.height);
        let rect = Rect { y: rect.y + (rect.height - height) / 2, height, ..rect };
        Clear.render(rect, buf);
        let block = Block::default().borders(Borders::ALL).border_style(theme.approval()).title(Span::styled(
            format!(" {} {}? ", if pending.is_trust() { "Trust" } else { "Allow" }, pending.request.tool),
            theme.approval(),
        ));
        let inner = block.inner(rect);
        block.render(rect, buf);
        for (row, line) in body.iter().skip(pending.scroll).take(shown).enumerate() {
            buf.set_line(inner.x, inner.y + row as u16, line, inner.width);
        }
        if body.len() > shown {
            let last = (pending.scroll + shown).min(body.len());
            let more =
                format!(" lines {}-{last} of {} · ↑↓ PgUp PgDn · Ctrl+F full screen ", pending.scroll + 1, body.len());
            theme.draw_badge(rect, buf, &truncate(&more, usize::from(rect.width.saturating_sub(2))));
        }
        let answers = match &pending.reason {
            Some(reason) => Line::from(vec![
                Span::styled("Reason: ", theme.approval()),
                Span::raw(reason.clone()),
                Span::styled("▏", theme.approval()),
                Span::styled("  Enter sends · Esc back", theme.dim()),
            ]),
            None if !armed => Line::from(vec![
                Span::styled("typing goes to the prompt", theme.dim()),
                Span::raw(" · stop typing to answer with "),
                Span::styled(if pending.is_trust() { "1-3" } else { "1-4" }, theme.approval()),
            ]),
            None if pending.is_trust() => {
                let key = |k: &str| Span::styled(k.to_string(), theme.approval());
                Line::from(vec![
                    key("[1]"),
                    Span::raw(" yes, trust it  "),
                    key("[2]"),
                    Span::raw(" no, do not ask again  "),
                    key("[3]"),
                    Span::raw(" not now"),
                ])
            }
            None => {
                let key = |k: &str| Span::styled(k.to_string(), theme.approval());
                Line::from(vec![
                    key("[1]"),
                    Span::raw(" yes  "),
                    key("[2]"),
                    Span::raw(" always this session  "),
                    key("[3]"),
                    Span::raw(" no  "),
                    key("[4]"),
                    Span::raw(" no, tell it why"),
                ])
            }
        };
        buf.set_line(inner.x, inner.y + inner.height.saturating_sub(1), &answers, inner.width);
        // On the row between the preview and the answers.
        if let Some(digit) = pending.early.filter(|_| pending.reason.is_none() && inner.height >= shown as u16 + 2) {
            let note = early_note(digit, armed);
            let note = truncate(&note, usize::from(inner.width));
            buf.set_line(inner.x, inner.y + shown as u16, &Line::styled(note, theme.approval()), inner.width);
        }
    }
}

/// What a dialog says about a digit pressed before it took answers.
pub fn early_note(digit: char, armed: bool) -> String {
    if armed {
        format!("“{digit}” came too early: not taken · press it again")
    } else {
        format!("“{digit}” came too early: not taken · press it again in a moment")
    }
}
