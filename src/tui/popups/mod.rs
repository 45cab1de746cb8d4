//! The popups: what opens over the panes for a while and takes keys first — the `@` file
//! picker (over `file_index.rs`), the model picker, the jobs popup (`jobs.rs`), Ctrl+R history search, the approval
//! dialog, the confirmations asked above the prompt (`confirm.rs`), the help overlay, the accept-plan dialog (`plan_accept.rs`), the rewind picker
//! (`rewind.rs`) and the resume picker (`resume_picker.rs`). Each keeps its own state, takes keys (returning an `Intent` that `App` applies)
//! and draws itself over the panes. Those open over the panes for a while are kept as one
//! stack (`stack.rs`), the top one taking keys first.

pub mod approval;
pub mod confirm;
pub mod file_index;
pub mod file_picker;
pub mod help;
pub mod jobs;
pub mod model_picker;
pub mod plan_accept;
pub mod resume_picker;
pub mod reverse_search;
pub mod rewind;
pub mod stack;
