//! The parse memo: what parsing a short line from a given parser state gave, so a line seen
//! again in the same state (`}`, a blank line, `    }`, `} else {`) gets the scope changes
//! its first parse gave instead of a second parse. The parse is a function of (state, line),
//! so this changes nothing but the cost. A line is kept from its second sighting on (most
//! lines are seen once), a few states per line, and the whole memo starts over past
//! `MAX_ENTRIES`. One per `LineCaches` (so per `Highlighter`), used on the thread that owns
//! it: syntect's parse state with the Oniguruma engine is not `Send`.

use std::collections::HashMap;
use std::rc::Rc;

use syntect::parsing::{ParseState, ScopeStackOp};

/// Lines longer than this are never memoised: long lines rarely repeat.
const MAX_LINE: usize = 64;
/// States kept per line.
const MAX_STATES: usize = 4;
/// Remembered lines and parses before the memo starts over.
const MAX_ENTRIES: usize = 4096;

/// The scope changes of one line, shared between the memo and the line highlighted.
pub(super) type Ops = Rc<[(usize, ScopeStackOp)]>;

struct Parsed {
    before: ParseState,
    after: ParseState,
    ops: Ops,
}

#[derive(Default)]
pub(super) struct Memo {
    /// Each line seen (with its `\n`) and the parses kept for it (none: seen once).
    lines: HashMap<Box<str>, Vec<Parsed>>,
    entries: usize,
}

impl Memo {
    /// The scope changes of `line` (with its `\n`) parsed from `state`, which is advanced past
    /// it: from the memo when this line was parsed from this state before, else by
    /// `parse_now`. `None` when syntect cannot parse it.
    pub(super) fn parse(
        &mut self,
        state: &mut ParseState,
        line: &str,
        parse_now: impl FnOnce(&mut ParseState, &str) -> Option<Vec<(usize, ScopeStackOp)>>,
    ) -> Option<Ops> {
        if line.len() > MAX_LINE {
            return parse_now(state, line).map(Ops::from);
        }
        if let Some(known) = self.lines.get(line).and_then(|parsed| parsed.iter().find(|p| p.before == *state)) {
            *state = known.after.clone();
            return Some(Rc::clone(&known.ops));
        }
        let before = state.clone();
        let ops = Ops::from(parse_now(state, line)?);
        if self.entries >= MAX_ENTRIES {
            *self = Memo::default();
        }
        match self.lines.get_mut(line) {
            Some(parsed) if parsed.len() < MAX_STATES => {
                parsed.push(Parsed { before, after: state.clone(), ops: Rc::clone(&ops) });
                self.entries += 1;
            }
            Some(_) => {}
            None => {
                self.lines.insert(line.into(), Vec::new());
                self.entries += 1;
            }
        }
        Some(ops)
    }
}
