//! The integration tests, one module per area, linked as one test binary so the
//! suite builds and links the crate once.

mod support;

mod extensions;
mod frontends;
mod kernel;
mod providers;
mod repo;
mod security;
mod sessions;
mod tools;
mod tui;
