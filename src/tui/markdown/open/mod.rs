//! The block still streaming in at the end of a reply, laid out at a cost of what arrived
//! rather than of the block's length: `block::OpenBlock` chooses a strategy (`list`,
//! `paragraph`, `table`) for a long block, `code::OpenCode` highlights and lays out a code
//! block as it grows. `whole` is the render they all share and fall back to; `inline` and `plain_row` are
//! their helpers (when text before a break can
//! no longer change, which table rows need no parser). Every strategy gives exactly the lines
//! of a whole render.

pub(super) mod block;
pub(super) mod code;
mod inline;
mod list;
mod paragraph;
mod plain_row;
pub(super) mod table;
pub(super) mod whole;
