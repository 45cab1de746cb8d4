//! The nesting pass's picture of the HTML parser's state (`nesting.rs`): the stack of
//! open elements and the list of active formatting elements, with the operations
//! html5ever's tree builder performs on them — popping to an element, the scope searches,
//! reopening the formatting elements before text (reconstruction), the adoption agency —
//! as far as they decide how deep the stack gets. Pops are planned on a length first
//! (`len`: the stack as it would be) so a tag can be dropped before anything changes.

use super::elements::{integration_point, Name, Tag};
use std::collections::HashSet;

/// Elements open at once, at most (as far as the pass follows the parser).
pub const MAX_DEPTH: usize = 256;
/// Formatting elements the parser may reopen (since the last table cell, caption or
/// object), at most.
pub const MAX_FORMATTING: usize = 32;

/// An element the parser holds open.
#[derive(Clone, Copy, Debug)]
pub struct Open {
    pub name: Name,
    /// SVG or MathML.
    pub foreign: bool,
    /// Tells this element from others of its name (set when pushed).
    id: u32,
}

impl Open {
    pub fn html(name: Name) -> Self {
        Open { name, foreign: false, id: 0 }
    }

    pub fn foreign(name: Name) -> Self {
        Open { name, foreign: true, id: 0 }
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    pub fn is(&self, tag: Tag) -> bool {
        !self.foreign && self.name.tag == tag
    }

    pub fn integration_point(&self) -> bool {
        self.foreign && integration_point(self.name.hash)
    }

    pub fn special(&self) -> bool {
        if self.foreign {
            self.integration_point()
        } else {
            self.name.tag.special()
        }
    }

    /// A boundary of the default scope; a `<frameset>` (which the parser may have
    /// ignored) is one too, so that no search reaches below it.
    pub fn scope_boundary(&self) -> bool {
        if self.foreign {
            self.integration_point()
        } else {
            self.name.tag.scope_boundary() || self.name.tag == Tag::Frameset
        }
    }
}

/// An entry of the list of active formatting elements: a marker, or an element (its name,
/// its attributes' hash, the id of its element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Marker,
    Element { name: Name, attributes: u64, id: u32 },
}

impl Entry {
    fn id(&self) -> Option<u32> {
        match self {
            Entry::Marker => None,
            Entry::Element { id, .. } => Some(*id),
        }
    }
}

/// Where the adoption agency puts the new element's entry.
enum Bookmark {
    Replace,
    After(u32),
}

/// The stack of open elements and the list of active formatting elements.
#[derive(Clone, Default)]
pub struct OpenElements {
    stack: Vec<Open>,
    formatting: Vec<Entry>,
    /// The ids on the stack.
    ids: HashSet<u32>,
    /// How many HTML elements of the tags scopes look for are open (`slot`), so a search
    /// for one that is not open costs nothing.
    counts: [u32; SLOTS],
    next_id: u32,
}

const SLOTS: usize = 18;

/// Where `tag` is counted.
fn slot(tag: Tag) -> Option<usize> {
    let tags = [
        Tag::P,
        Tag::Li,
        Tag::Dd,
        Tag::Dt,
        Tag::Button,
        Tag::Select,
        Tag::Table,
        Tag::Template,
        Tag::Nobr,
        Tag::Heading,
        Tag::Form,
        Tag::Td,
        Tag::Th,
        Tag::Caption,
        Tag::Tr,
        Tag::Tbody,
        Tag::Thead,
        Tag::Tfoot,
    ];
    tags.iter().position(|t| *t == tag)
}

impl OpenElements {
    pub fn len(&self) -> usize {
        self.stack.len()
    }

    pub fn get(&self, i: usize) -> Option<&Open> {
        self.stack.get(i)
    }

    pub fn top(&self) -> Option<&Open> {
        self.stack.last()
    }

    /// Whether an SVG or MathML element, or a `<frameset>`, is open.
    pub fn any_foreign_or_frameset(&self) -> bool {
        self.stack.iter().any(|o| o.foreign || o.is(Tag::Frameset))
    }

    /// The index of the topmost element below `len` that `found` accepts, searching down
    /// until `stop` says the search ends.
    pub fn search(&self, len: usize, found: impl Fn(&Open) -> bool, stop: impl Fn(&Open) -> bool) -> Option<usize> {
        for i in (0..len.min(self.stack.len())).rev() {
            let open = &self.stack[i];
            if found(open) {
                return Some(i);
            }
            if stop(open) {
                return None;
            }
        }
        None
    }

    /// An HTML element of `tag` in the default scope (plus `extra` boundaries).
    pub fn in_scope(&self, len: usize, tag: Tag, extra: &[Tag]) -> Option<usize> {
        if slot(tag).is_some_and(|i| self.counts[i] == 0) {
            return None;
        }
        self.search(len, |o| o.is(tag), |o| o.scope_boundary() || (!o.foreign && extra.contains(&o.name.tag)))
    }

    /// The topmost HTML element named `hash` below `len` that no special element covers:
    /// where "any other end tag" pops to.
    pub fn any_other_end(&self, len: usize, hash: u64) -> usize {
        self.search(len, |o| !o.foreign && o.name.hash == hash, Open::special).unwrap_or(len)
    }

    /// Pops to `len`, then pushes `pushes` — after reopening the formatting elements when
    /// `reconstruct` — unless that opens more than `MAX_DEPTH` elements: then nothing
    /// changes and the answer is false.
    pub fn apply(&mut self, len: usize, reconstruct: bool, pushes: &[Open]) -> bool {
        let reopen = if reconstruct { self.to_reopen(len, &[]) } else { 0 };
        if len + reopen + pushes.len() > MAX_DEPTH {
            return false;
        }
        self.pop_to(len);
        self.reopen(reopen);
        for open in pushes {
            self.push(*open);
        }
        true
    }

    /// Reopens the formatting elements that are closed (text is coming), whatever the
    /// depth: the parser does.
    pub fn reconstruct(&mut self) {
        let reopen = self.to_reopen(self.stack.len(), &[]);
        self.reopen(reopen);
    }

    /// How many formatting elements reconstruction would reopen now.
    pub fn closed_formatting(&self) -> usize {
        self.to_reopen(self.stack.len(), &[])
    }

    /// Pops the elements from `len` up; a table cell, caption or object popped clears the
    /// formatting elements back to its marker.
    pub fn pop_to(&mut self, len: usize) {
        while self.stack.len() > len {
            let Some(open) = self.stack.pop() else { break };
            self.forget_open(&open);
            if !open.foreign && open.name.tag.marker() {
                while let Some(entry) = self.formatting.pop() {
                    if entry == Entry::Marker {
                        break;
                    }
                }
            }
        }
    }

    /// Takes the element at `i` out of the stack, leaving those above it.
    pub fn remove(&mut self, i: usize) {
        if i < self.stack.len() {
            let open = self.stack.remove(i);
            self.forget_open(&open);
        }
    }

    fn count(&mut self, open: &Open, up: bool) {
        if let Some(i) = slot(open.name.tag).filter(|_| !open.foreign) {
            self.counts[i] = if up { self.counts[i] + 1 } else { self.counts[i].saturating_sub(1) };
        }
    }

    fn forget_open(&mut self, open: &Open) {
        self.ids.remove(&open.id);
        self.count(open, false);
    }

    fn fresh_id(&mut self) -> u32 {
        self.next_id = self.next_id.wrapping_add(1);
        self.next_id
    }

    fn push(&mut self, open: Open) {
        let id = self.fresh_id();
        self.stack.push(Open { id, ..open });
        self.ids.insert(id);
        self.count(&open, true);
        if !open.foreign && open.name.tag.marker() {
            self.formatting.push(Entry::Marker);
        }
    }

    /// How many entries at the end of the list reconstruction would reopen with the stack
    /// cut to `len` and the entries `gone` forgotten.
    fn to_reopen(&self, len: usize, gone: &[usize]) -> usize {
        let cut = self.stack.get(len..).unwrap_or_default();
        let closed = |(i, entry): &(usize, &Entry)| match entry.id() {
            None => false,
            Some(id) => gone.contains(i) || !self.ids.contains(&id) || cut.iter().any(|o| o.id == id),
        };
        let trailing = self.formatting.iter().enumerate().rev().take_while(|e| closed(e));
        trailing.filter(|(i, _)| !gone.contains(i)).count()
    }

    /// Reopens the last `count` entries of the list (new elements, the entries pointing
    /// at them).
    fn reopen(&mut self, count: usize) {
        let from = self.formatting.len().saturating_sub(count);
        for i in from..self.formatting.len() {
            if let Entry::Element { name, .. } = self.formatting[i] {
                self.push(Open::html(name));
                let id = self.next_id;
                if let Entry::Element { id: entry, .. } = &mut self.formatting[i] {
                    *entry = id;
                }
            }
        }
    }

    /// Where the element `id` has its entry.
    fn entry_of(&self, id: u32) -> Option<usize> {
        self.formatting.iter().rposition(|e| e.id() == Some(id))
    }

    /// The last entry named `hash` since the last marker.
    pub fn last_formatting(&self, hash: u64) -> Option<usize> {
        for (i, entry) in self.formatting.iter().enumerate().rev() {
            match entry {
                Entry::Marker => return None,
                Entry::Element { name, .. } if name.hash == hash => return Some(i),
                Entry::Element { .. } => {}
            }
        }
        None
    }

    /// Entries since the last marker.
    pub fn formatting_open(&self) -> usize {
        self.formatting.iter().rev().take_while(|e| **e != Entry::Marker).count()
    }

    /// Whether a formatting element named `name` with `attributes` may be opened: the
    /// entry it pushes out (the oldest of three alike: the parser keeps no more), or `None`
    /// past `MAX_FORMATTING`.
    pub fn formatting_room(&self, name: Name, attributes: u64) -> Option<Option<usize>> {
        let since = self.formatting.len() - self.formatting_open();
        let alike = |i: &usize| matches!(self.formatting[*i], Entry::Element { name: n, attributes: a, .. } if n == name && a == attributes);
        let mut alike = (since..self.formatting.len()).filter(alike);
        let oldest = alike.next().filter(|_| alike.nth(1).is_some());
        let after = self.formatting_open() - usize::from(oldest.is_some());
        (after < MAX_FORMATTING).then_some(oldest)
    }

    /// Opens a formatting element at `len`, the entry `gone` forgotten and the others
    /// reopened first; false (nothing changed) when it would open too many elements.
    pub fn open_formatting(&mut self, len: usize, name: Name, attributes: u64, gone: Option<usize>) -> bool {
        let gone: Vec<usize> = gone.into_iter().collect();
        let reopen = self.to_reopen(len, &gone);
        if len + reopen + 1 > MAX_DEPTH {
            return false;
        }
        self.pop_to(len);
        self.reopen(reopen);
        if let Some(&i) = gone.first() {
            if i < self.formatting.len() {
                self.formatting.remove(i);
            }
        }
        self.push(Open::html(name));
        let id = self.next_id;
        self.formatting.push(Entry::Element { name, attributes, id });
        true
    }

    /// Forgets the element `id`: its entry and its place on the stack (an `<a>` that a new
    /// one closes).
    pub fn forget(&mut self, id: u32) {
        if let Some(i) = self.entry_of(id) {
            self.formatting.remove(i);
        }
        if let Some(i) = self.stack.iter().rposition(|o| o.id == id) {
            self.remove(i);
        }
    }

    /// The id of the element of entry `i`.
    pub fn entry_id(&self, i: usize) -> Option<u32> {
        self.formatting.get(i).and_then(Entry::id)
    }

    /// The adoption agency, as html5ever runs it for a formatting element's end tag (or an
    /// `<a>` or `<nobr>` that closes an open one): what it pops, removes and moves.
    pub fn adoption(&mut self, subject: u64) {
        if let Some(top) = self.stack.last() {
            if !top.foreign && top.name.hash == subject && self.entry_of(top.id).is_none() {
                self.pop_to(self.stack.len() - 1);
                return;
            }
        }
        for _ in 0..8 {
            let Some(entry) = self.last_formatting(subject) else {
                let to = self.any_other_end(self.stack.len(), subject);
                self.pop_to(to);
                return;
            };
            let Entry::Element { name, attributes, id: element } = self.formatting[entry] else { return };
            let Some(at) = self.stack.iter().rposition(|o| o.id == element) else {
                self.formatting.remove(entry);
                return;
            };
            if self.stack[at + 1..].iter().any(Open::scope_boundary) {
                return;
            }
            let Some(furthest) = (at + 1..self.stack.len()).find(|&i| self.stack[i].special()) else {
                self.pop_to(at);
                self.formatting.remove(entry);
                return;
            };
            let furthest_id = self.stack[furthest].id;
            let mut bookmark = Bookmark::Replace;
            let mut node = furthest;
            let mut last_is_furthest = true;
            for inner in 1.. {
                node -= 1;
                let id = self.stack[node].id;
                if id == element {
                    break;
                }
                let listed = self.entry_of(id);
                if inner > 3 || listed.is_none() {
                    if let Some(i) = listed {
                        self.formatting.remove(i);
                    }
                    self.remove(node);
                    continue;
                }
                let copy = self.fresh_id();
                self.ids.remove(&id);
                self.ids.insert(copy);
                self.stack[node].id = copy;
                if let Some(Entry::Element { id, .. }) = listed.and_then(|i| self.formatting.get_mut(i)) {
                    *id = copy;
                }
                if last_is_furthest {
                    bookmark = Bookmark::After(copy);
                }
                last_is_furthest = false;
            }
            let copy = self.fresh_id();
            let new_entry = Entry::Element { name, attributes, id: copy };
            match bookmark {
                Bookmark::Replace => {
                    if let Some(i) = self.entry_of(element) {
                        self.formatting[i] = new_entry;
                    }
                }
                Bookmark::After(previous) => {
                    if let Some(i) = self.entry_of(previous) {
                        self.formatting.insert(i + 1, new_entry);
                    }
                    if let Some(i) = self.entry_of(element) {
                        self.formatting.remove(i);
                    }
                }
            }
            if let Some(i) = self.stack.iter().rposition(|o| o.id == element) {
                self.remove(i);
            }
            let furthest = self.stack.iter().position(|o| o.id == furthest_id).unwrap_or(self.stack.len());
            let at = (furthest + 1).min(self.stack.len());
            let open = Open { name, foreign: false, id: copy };
            self.stack.insert(at, open);
            self.ids.insert(copy);
            self.count(&open, true);
        }
    }
}
