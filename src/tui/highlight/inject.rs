//! Test-only: a way to make syntect "panic" inside `guarded`, and counts of what was
//! highlighted and parsed, per `Highlighter` (kept in its `LineCaches`, never global).

use std::cell::Cell;
use std::rc::Rc;

use super::line::LineCaches;

#[derive(Default)]
pub(crate) struct Inject {
    panic_on: Cell<Option<&'static str>>,
    lines: Cell<usize>,
    parses: Cell<usize>,
}

impl Inject {
    pub(super) fn count_line(&self) {
        self.lines.set(self.lines.get() + 1);
    }

    pub(super) fn count_parse(&self) {
        self.parses.set(self.parses.get() + 1);
    }

    pub(super) fn check(&self, line: &str) {
        if self.panic_on.get().is_some_and(|marker| line.contains(marker)) {
            panic!("injected highlighter panic");
        }
    }

    /// Lines syntect has highlighted so far.
    pub(crate) fn lines_highlighted(&self) -> usize {
        self.lines.get()
    }

    /// Lines syntect has parsed so far (the memo answers the others).
    pub(crate) fn lines_parsed(&self) -> usize {
        self.parses.get()
    }
}

/// Injects panics while alive; dropping it stops them.
pub(crate) struct PanicOn(pub(super) Rc<LineCaches>);

impl Drop for PanicOn {
    fn drop(&mut self) {
        self.0.inject.panic_on.set(None);
    }
}

/// Until the returned guard is dropped, highlighting a line that contains `marker` with
/// `caches` panics.
pub(super) fn panic_on(caches: Rc<LineCaches>, marker: &'static str) -> PanicOn {
    caches.inject.panic_on.set(Some(marker));
    PanicOn(caches)
}
