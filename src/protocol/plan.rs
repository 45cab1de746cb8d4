//! The model's plan: a short list of steps, each pending, in progress or completed, with an
//! optional explanation. A tool sets it whole (each update replaces the last) and emits it
//! as `AgentEvent::Plan`; front ends keep the newest one in view, session files record it
//! and a resumed session shows it again.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    pub step: String,
    pub status: StepStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    pub steps: Vec<PlanStep>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}

impl Plan {
    /// How many steps are completed, of how many.
    pub fn progress(&self) -> (usize, usize) {
        (self.steps.iter().filter(|s| s.status == StepStatus::Completed).count(), self.steps.len())
    }

    /// The step being worked on, if any.
    pub fn current(&self) -> Option<&PlanStep> {
        self.steps.iter().find(|s| s.status == StepStatus::InProgress)
    }

    /// The plan as plain lines (`✓ done`, `▸ doing`, `○ to do`), for text front ends.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.steps.iter().map(|s| format!("{} {}", s.status.mark(), s.step)).collect();
        if let Some(explanation) = self.explanation.as_deref().filter(|e| !e.trim().is_empty()) {
            lines.push(format!("  {}", explanation.trim()));
        }
        lines
    }
}

impl StepStatus {
    pub fn mark(self) -> &'static str {
        match self {
            StepStatus::Pending => "○",
            StepStatus::InProgress => "▸",
            StepStatus::Completed => "✓",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plan_reads_its_json_shape_and_writes_it_back() {
        let value = json!({"steps": [{"step": "read", "status": "completed"}, {"step": "fix", "status": "in_progress"},
                                      {"step": "test", "status": "pending"}], "explanation": "why"});
        let plan: Plan = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(plan.progress(), (1, 3));
        assert_eq!(plan.current().map(|s| s.step.as_str()), Some("fix"));
        assert_eq!(plan.lines(), ["✓ read", "▸ fix", "○ test", "  why"]);
        assert_eq!(serde_json::to_value(&plan).unwrap(), value);
        assert!(serde_json::from_value::<Plan>(json!({"steps": [{"step": "x", "status": "done"}]})).is_err());
    }
}
