//! The plan strip: the model's newest plan (`AgentEvent::Plan`), pinned above the prompt so
//! the conversation never scrolls it away. One line per step with its state (done steps
//! dimmed, the step in progress highlighted), under a header with the count; collapsed to
//! the header and the current step when the screen is short or the plan long. A plan whose
//! steps are all done unpins when the next turn starts (`turn_started`); `/plan` still
//! shows it (`listing`).

use crate::protocol::plan::{Plan, StepStatus};
use crate::sanitize::sanitize;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// Steps shown in full at most; a longer plan is collapsed.
const MAX_FULL_STEPS: usize = 8;
/// Rows the conversation keeps at least before the strip shows every step.
const MIN_CONVERSATION_ROWS: u16 = 12;

#[derive(Default)]
pub struct PlanStrip {
    plan: Option<Plan>,
    /// Whether the plan is drawn above the prompt: from when it is set until a turn starts
    /// after all its steps were done.
    pinned: bool,
}

impl PlanStrip {
    /// The newest plan replaces the one shown and is pinned; a plan without steps hides the
    /// strip.
    pub fn set(&mut self, plan: Plan) {
        self.plan = (!plan.steps.is_empty()).then_some(plan);
        self.pinned = self.plan.is_some();
    }

    /// A turn started: a plan whose steps are all done is no longer pinned (a later plan
    /// pins again; `/plan` still lists it).
    pub fn turn_started(&mut self) {
        if self.plan.as_ref().is_some_and(|plan| plan.steps.iter().all(|s| s.status == StepStatus::Completed)) {
            self.pinned = false;
        }
    }

    /// The pinned plan, if one is drawn.
    fn shown(&self) -> Option<&Plan> {
        self.plan.as_ref().filter(|_| self.pinned)
    }

    /// The newest plan as `/plan` lists it (pinned or not): its count, then a line per step.
    pub fn listing(&self) -> String {
        let Some(plan) = &self.plan else { return "No plan yet: the model makes one with its plan tool.".into() };
        let (done, all) = plan.progress();
        let mut text = format!("plan {done}/{all}");
        for line in plan.lines() {
            text.push_str(&format!("\n  {}", sanitize(&line)));
        }
        text
    }

    /// Rows the strip takes on a screen `height` rows high: none without a plan, one when
    /// collapsed, else the header and a row per step.
    pub fn height(&self, height: u16) -> u16 {
        let Some(plan) = self.shown() else { return 0 };
        let full = plan.steps.len() as u16 + 1;
        let fits = plan.steps.len() <= MAX_FULL_STEPS && height.saturating_sub(full) >= MIN_CONVERSATION_ROWS + 6;
        if fits {
            full
        } else {
            1
        }
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let Some(plan) = self.shown() else { return };
        if area.height == 0 || area.width == 0 {
            return;
        }
        let width = usize::from(area.width);
        let (done, all) = plan.progress();
        let header = format!("plan {done}/{all}");
        if area.height == 1 {
            let current = plan
                .current()
                .or_else(|| plan.steps.iter().find(|s| s.status == StepStatus::Pending))
                .map(|s| format!(" · {} {}", s.status.mark(), sanitize(&s.step)))
                .unwrap_or_else(|| " · all done".to_string());
            buf.set_string(area.x, area.y, truncate(&header, width), theme.title());
            let used = header.chars().count().min(width) as u16;
            let rest = truncate(&current, width.saturating_sub(usize::from(used)));
            buf.set_string(area.x + used, area.y, rest, theme.accent());
            return;
        }
        let explanation = plan.explanation.as_deref().map(|e| format!(" · {}", sanitize(e.trim()))).unwrap_or_default();
        buf.set_string(area.x, area.y, truncate(&header, width), theme.title());
        let used = header.chars().count().min(width) as u16;
        buf.set_string(area.x + used, area.y, truncate(&explanation, width - usize::from(used)), theme.dim());
        for (row, step) in plan.steps.iter().enumerate().take(usize::from(area.height - 1)) {
            let style = match step.status {
                StepStatus::Completed => theme.dim(),
                StepStatus::InProgress => theme.accent(),
                StepStatus::Pending => theme.text(),
            };
            let line = format!("  {} {}", step.status.mark(), sanitize(&step.step));
            buf.set_string(area.x, area.y + 1 + row as u16, truncate(&line, width), style);
        }
    }
}
