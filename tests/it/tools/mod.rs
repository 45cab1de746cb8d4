//! The built-in tools and the processes they start.

mod builtin;
mod jobs;
mod processes;
mod web_fetch;
