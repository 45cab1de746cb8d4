//! Checks on the repository itself: the layers of ARCHITECTURE.md, the README, the built binary.

mod action;
mod architecture_paths;
mod binary_needs;
mod doc_links;
mod layers;
mod readme_keys;
