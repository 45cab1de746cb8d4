//! Which tool lines share one line: a call that succeeded and printed nothing joins the
//! line just above it (nothing else shown between them, and of the same step: cells from
//! `first` on) when that line is a call that did too, whatever its tool, so twelve reads are
//! `+ read ×12` and a step's reads and globs one `+ read ×6, glob ×6` line. A failure, a
//! command's output, a change to a file, anything in between and a step's end keep calls
//! apart. Owns the merging only; `tool_line.rs` draws a group.

use crate::tui::panes::conversation::cells::{CellKind, HistoryCell};

/// The cells merged by one call to `regroup`: `from` was taken into `into`, and the call ids
/// it carried now live there.
pub struct Merged {
    pub from: usize,
    pub into: usize,
    pub ids: Vec<String>,
}

/// Merges the finished call in cell `i` with its quiet neighbours, the one above
/// first and then the one below (calls finish out of order when they run side by side); cells
/// before `first` belong to an earlier step and are left alone.
pub fn regroup(cells: &mut [HistoryCell], i: usize, first: usize) -> Vec<Merged> {
    let mut merged = Vec::new();
    let mut at = i;
    if let Some(above) = neighbour(cells, i, false).filter(|&j| j >= first && joinable(cells, j, i)) {
        merged.push(merge(cells, i, above));
        at = above;
    }
    if let Some(below) = neighbour(cells, at, true).filter(|&j| joinable(cells, at, j)) {
        merged.push(merge(cells, below, at));
    }
    merged
}

/// The nearest cell before (or after) `i` that shows anything.
fn neighbour(cells: &[HistoryCell], i: usize, after: bool) -> Option<usize> {
    if after {
        (i + 1..cells.len()).find(|&j| !matches!(cells[j].kind, CellKind::Gone))
    } else {
        (0..i).rev().find(|&j| !matches!(cells[j].kind, CellKind::Gone))
    }
}

/// Whether the calls in cells `first` and `second` may share a line.
fn joinable(cells: &[HistoryCell], first: usize, second: usize) -> bool {
    match (&cells[first].kind, &cells[second].kind) {
        (CellKind::Tool(a), CellKind::Tool(b)) => {
            a.groupable() && a.group.iter().all(|c| c.groupable()) && b.groupable()
        }
        _ => false,
    }
}

/// Moves the call (and its group) in cell `from` into cell `into`'s group, in order.
fn merge(cells: &mut [HistoryCell], from: usize, into: usize) -> Merged {
    let CellKind::Tool(mut taken) = std::mem::replace(&mut cells[from].kind, CellKind::Gone) else {
        return Merged { from, into, ids: Vec::new() };
    };
    cells[from].touch();
    let rest = std::mem::take(&mut taken.group);
    let mut ids: Vec<String> = vec![taken.id.clone()];
    ids.extend(rest.iter().map(|c| c.id.clone()));
    if let CellKind::Tool(line) = &mut cells[into].kind {
        line.group.push(taken);
        line.group.extend(rest);
    }
    cells[into].touch();
    Merged { from, into, ids }
}
