//! Drawing `App`: the panes where `regions.rs` puts them, the plan and queue strips, the
//! question asked above the prompt, the prompt and the status line; the popups on top,
//! in the stack's order (`popups/stack.rs`).

use super::App;
use crate::tui::intent::Focus;
use crate::tui::panes::status::{Around, Status};
use crate::tui::popups::confirm::Confirm;
use crate::tui::popups::stack::{Areas, Around as PopupAround, Kind};
use crate::tui::wrap::truncate;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Clear, Widget};
use std::time::Instant;

impl App {
    pub fn draw(&mut self, frame: &mut ratatui::Frame) {
        let area = frame.area();
        let now = self.clock.now();
        self.render(area, frame.buffer_mut(), now);
    }

    /// Lays out and draws everything into `buf`: the panes where `regions.rs` puts them,
    /// the prompt and the status line; the popups on top.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, now: Instant) {
        if area.width < 20 || area.height < 8 {
            buf.set_string(area.x, area.y, truncate("window too small", usize::from(area.width)), self.theme.dim());
            return;
        }
        // The jobs popup shows the jobs as they are now.
        if let Some(popup) = self.popups.jobs_mut() {
            if let Some(rows) = self.jobs.rows() {
                popup.set_rows(rows);
            }
        }
        let theme = self.theme;
        // The status line first: a notice it has no room for goes whole above the prompt,
        // with the question asked there.
        let around = Around {
            started: self.started,
            context_tokens: self.context.total_tokens(),
            approving: self.popups.contains(Kind::Approval),
            tools_running: self.tools.running(),
            esc_interrupts: self.esc_interrupts(),
            queued: self.queue.len(),
            queue_held: self.queue.held() && self.focus == Focus::Composer,
        };
        let status_line = self.status.compose(area.width, now, &around);
        self.drop_stale_confirm();
        let asked = crate::tui::popups::confirm::lines(
            self.confirm.as_ref(),
            status_line.overflow.as_deref(),
            area.width,
            &theme,
        );
        let composer_h = self.composer.height().min(area.height.saturating_sub(6));
        let asked_h = (asked.len() as u16).min(area.height.saturating_sub(composer_h + 5));
        let plan_h = self.plan.height(area.height.saturating_sub(composer_h + asked_h + 1));
        let queue_h = self.queue.height(area.height).min(area.height.saturating_sub(composer_h + plan_h + asked_h + 4));
        let [main, plan, queue, asked_area, composer, status] = Layout::vertical([
            Constraint::Min(3),
            Constraint::Length(plan_h),
            Constraint::Length(queue_h),
            Constraint::Length(asked_h),
            Constraint::Length(composer_h),
            Constraint::Length(1),
        ])
        .areas(area);
        let rects = self.regions.lay_out(main, composer, area.height);
        let title = if self.esc_interrupts() { "conversation · Esc interrupts" } else { "conversation" };
        let highlight = matches!(self.focus, Focus::Conversation | Focus::Tools);
        if !rects.conversation.is_empty() {
            self.history.render(rects.conversation, buf, &theme, self.focus == Focus::Conversation, highlight, title);
        }
        if !rects.tools.is_empty() {
            self.tools.render(rects.tools, buf, &theme, self.focus == Focus::Tools, now);
        }
        if let Some(context) = rects.context {
            // Over the other panes when the screen is small.
            Clear.render(context, buf);
            self.context.render(context, buf, &theme, self.focus == Focus::Context);
        }
        self.plan.render(plan, buf, &theme);
        let pasted = &self.pasted_prompts;
        let shown = |line: &str| pasted.iter().find(|(sent, _)| sent == line).map(|(_, shown)| shown.clone());
        self.queue.render(queue, buf, &theme, shown);
        let queued = self.queue.len();
        let mut prompt_title = if queued > 0 { format!("prompt · {queued} queued") } else { "prompt".into() };
        if self.status.mode() != crate::protocol::mode::Mode::Ask {
            prompt_title.push_str(&format!(" · {}", self.status.mode().label()));
        }
        crate::tui::popups::confirm::render(&asked, asked_area, buf);
        self.composer.render(composer, buf, &theme, self.focus == Focus::Composer, &prompt_title);
        Status::draw(&status_line, status, buf, &theme);
        if !self.popups.covers_prompt() && self.focus == Focus::Composer {
            self.composer.render_popup(composer, buf, &theme);
            let mention = self.mention();
            self.files.render(composer, buf, &theme, mention);
        }
        // The popups over it all, lowest first: the one with the keys on top.
        let around = PopupAround {
            now: self.clock.now(),
            last_typed: self.last_typed,
            history: self.composer.history_entries(),
            commands: self.composer.commands(),
        };
        let areas = Areas { screen: area, prompt: composer, plan };
        for popup in self.popups.iter_mut() {
            popup.render(areas, buf, &theme, &around);
        }
    }

    /// Esc interrupts only from the prompt while a turn runs (from a pane it goes back to
    /// the prompt), so only then do the title and the status line offer it.
    fn esc_interrupts(&self) -> bool {
        self.status.busy() && self.focus == Focus::Composer
    }

    /// A question that no longer holds goes: Ctrl+C's second press came too late, the
    /// prompt no longer says `/clear`, or the user typed on instead of quitting.
    fn drop_stale_confirm(&mut self) {
        let stale = match &self.confirm {
            Some(Confirm::Clear) => self.composer.text().trim() != "/clear",
            // Typing something else leaves the question.
            Some(Confirm::QuitRunning) => !self.composer.is_empty(),
            Some(confirm) => confirm.expired(Instant::now()),
            None => false,
        };
        if stale {
            self.confirm = None;
        }
    }
}
