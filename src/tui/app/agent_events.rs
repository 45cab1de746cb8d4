//! The agent's side of `App`: each `AgentEvent` fed to the panes it concerns, and the
//! approval questions the session asks, opened as the dialog on the popup stack and
//! answered back.

use super::{App, Focus};
use crate::agent::input::{Approval, ApprovalRequest};
use crate::agent::output::{AgentEvent, Delta, TurnEnd};
use crate::tui::panes::conversation::cells::CellKind;
use crate::tui::panes::status::{Activity, Lasts};
use crate::tui::popups::approval::PendingApproval;
use crate::tui::popups::confirm::Confirm;
use crate::tui::popups::model_picker::ModelPicker;
use crate::tui::popups::plan_accept::PlanAccept;
use crate::tui::popups::stack::{Kind, Popup};
use crate::tui::runtime::notify::NOTIFY_AFTER;
use std::time::Instant;
use tokio::sync::oneshot;

impl App {
    /// A question from the session: the approval dialog opens.
    pub fn ask(&mut self, request: ApprovalRequest, reply: oneshot::Sender<Approval>) {
        self.tools.waiting(&request.call_id, true);
        self.status.drop_turn_notice(); // the previous answer is not about this question
        self.popups.push(Popup::Approval(PendingApproval::new(request, reply, self.clock.now())));
        self.status.set_activity(Activity::Approving);
    }

    /// Answers the pending approval.
    pub fn answer(&mut self, approval: Approval) {
        if let Some(pending) = self.popups.take_approval() {
            self.answered(pending, approval);
        }
    }

    /// `pending`, closed, gets its answer.
    pub(in crate::tui) fn answered(&mut self, pending: PendingApproval, approval: Approval) {
        self.status.notify_for_turn(pending.answered(&approval));
        self.tools.waiting(&pending.request.call_id, false);
        let tool = pending.request.tool.clone();
        let _ = pending.reply.send(approval);
        self.status.set_activity(if self.status.busy() { Activity::RunningTool(tool) } else { Activity::Idle });
    }

    /// A turn ended: a long one, finished while the user looked elsewhere, rings or
    /// notifies (`runtime/notify.rs`).
    fn turn_finished(&mut self, ok: bool) {
        let Some(took) = self.status.turn_finished(self.clock.now(), ok) else { return };
        if !self.terminal_focused && took >= NOTIFY_AFTER {
            self.alert = self.notify_mode.sequence(&format!("elelem: done after {}s", took.as_secs()));
        }
    }

    pub fn handle_agent(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::TurnStarted { prompt } => {
                self.waiting = false;
                self.tools.turn_started();
                self.plan.turn_started();
                self.started_prompt(&prompt);
                self.status.turn_started(self.clock.now());
                match self.pasted_prompts.iter().position(|(sent, _)| *sent == prompt) {
                    Some(i) => {
                        let (sent, shown) = self.pasted_prompts.remove(i).unwrap_or_default();
                        self.history.user_pasted(&shown, &sent);
                    }
                    None => self.history.user(&prompt),
                }
            }
            AgentEvent::Delta(Delta::Thinking(delta)) => {
                self.status.drop_notice_of(&[Lasts::Retry]);
                self.status.set_activity(Activity::Thinking);
                self.status.streamed(delta.len());
                self.history.thinking(&delta);
            }
            AgentEvent::Delta(Delta::Saying(delta)) => {
                self.status.drop_notice_of(&[Lasts::Retry]);
                self.status.set_activity(Activity::Responding);
                self.status.streamed(delta.len());
                self.history.saying(&delta);
            }
            AgentEvent::ToolStarted { call, summary } => {
                self.status.drop_notice_of(&[Lasts::Retry]);
                self.status.set_activity(Activity::RunningTool(call.name.clone()));
                let summary_line = crate::sanitize::sanitize_visible(&summary).replace('\n', " ⏎ ");
                let name = crate::sanitize::sanitize_visible(&call.name);
                let label = format!("#{} {name} {summary_line}", self.tools.next_number());
                self.history.tool_started(&call.id, &name, label.trim_end());
                self.tools.started(&call.id, &call.name, &summary, &call.arguments);
            }
            AgentEvent::Delta(Delta::ToolOutput { id, chunk }) => {
                self.history.tool_output(&id, &chunk);
                self.tools.output(&id, &chunk);
            }
            AgentEvent::ToolFinished { call, result } => {
                self.history.tool_finished(&call.id, &result);
                self.tools.finished(&call.id, &result);
                self.status.set_activity(if self.status.busy() { Activity::Thinking } else { Activity::Idle });
            }
            AgentEvent::Usage(usage) => {
                self.history.step_ended();
                self.status.add_usage(usage);
            }
            AgentEvent::Retrying { attempt, max, delay, reason } => {
                self.status.set_activity(Activity::Retrying { attempt, max, until: Instant::now() + delay });
                self.status.notify_while(reason, Lasts::Retry);
            }
            AgentEvent::ProviderChanged { provider, model } => {
                self.status.set_model(provider, model);
            }
            AgentEvent::Context(snapshot) => self.context.set(snapshot),
            AgentEvent::Info(text) => {
                self.status.drop_notice_of(&[Lasts::Asking]);
                self.history.close();
                self.history.push(CellKind::Info(text));
                // `/sandbox` switched the mode (it says so in an Info): the banner follows.
                self.history.set_banner_sandbox(crate::startup::sandbox_label());
            }
            // A failure: said until a later turn succeeds (or its time is up).
            AgentEvent::Warning(text) => self.status.notify_while(text, Lasts::Warning),
            AgentEvent::Error(text) => {
                self.status.drop_notice_of(&[Lasts::Asking]);
                self.history.close();
                self.history.push(CellKind::Error(format!("Error: {text}")));
            }
            AgentEvent::TurnFinished { end, .. } => {
                if self.confirm == Some(Confirm::QuitRunning) {
                    // Asked only because a turn ran: with it over, the quit goes through.
                    self.quit = true;
                }
                self.turn_finished(end == TurnEnd::Done);
                let planned = self.planned.take();
                if let Some(plan) = planned.filter(|_| self.status.mode() == crate::protocol::mode::Mode::Plan) {
                    self.popups.push(Popup::PlanAccept(PlanAccept::new(self.clock.now(), &plan)));
                }
                if end == TurnEnd::Interrupted {
                    self.history.interrupted();
                }
                self.history.close();
                if end == TurnEnd::Interrupted {
                    self.history.push(CellKind::Notice("⏹ interrupted".into()));
                }
            }
            AgentEvent::Cleared => {
                self.prompts.clear();
                self.history.clear()
            }
            AgentEvent::Rewound { turns } => self.rewound(turns),
            AgentEvent::Exit => self.quit = true,
            AgentEvent::Clipboard(text) => self.terminal_writes.push(crate::clipboard::osc52(&text)),
            // The terminal shows a change as its result's unified diff.
            AgentEvent::FileChange { call_id, old, new, .. } => {
                self.history.file_changed(&call_id, old.is_none().then_some(new))
            }
            AgentEvent::Plan(plan) => {
                if self.status.busy() {
                    self.planned = Some(plan.clone());
                }
                self.plan.set(plan)
            }
            AgentEvent::SubAgent { call_id, event } => {
                // Its tokens count in the totals; its calls nest under its row in the tool log.
                if let Some(usage) = event.billed_usage() {
                    self.status.add_sub_usage(usage);
                }
                if let AgentEvent::Warning(text) = event.as_ref() {
                    self.notify(format!("sub-agent: {text}"));
                }
                self.tools.sub_agent(&call_id, *event);
            }
            AgentEvent::Models { provider, current, listed } => {
                // "asking … for its models" is answered.
                self.status.drop_notice_of(&[Lasts::Asking]);
                self.focus = Focus::Composer;
                self.popups.push(Popup::Models(ModelPicker::new(provider, current, listed)));
            }
            AgentEvent::Jobs { rows, .. } => {
                self.focus = Focus::Composer;
                self.popups.push(Popup::Jobs(crate::tui::popups::jobs::JobsPopup::new(rows)));
            }
            AgentEvent::Mode(mode) => {
                self.status.set_mode(mode);
                self.notify(mode.describe());
                if mode != crate::protocol::mode::Mode::Plan {
                    self.popups.remove(Kind::PlanAccept);
                }
            }
        }
    }
}
