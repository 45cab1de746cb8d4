//! Session files: recording, resuming, export.

mod basics;
mod export;
mod files;
mod resume_counts;
mod resume_prefix;
