//! The front ends other than the TUI: `ask`, the CLI verbs, ACP for editors, signals.

mod acp;
mod ask_trickle;
mod cli;
mod json_schema;
mod signals;
