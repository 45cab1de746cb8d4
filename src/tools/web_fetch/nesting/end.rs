//! The nesting pass's rules for end tags (`mod.rs`): what each one pops from the parser's
//! stack, or takes out of it.

use super::super::elements::Tag;
use super::super::html_scan::Tag as Token;
use super::super::open_elements::Open;
use super::{implied_end, Action, Pass};

impl Pass<'_> {
    pub(super) fn end(&mut self, tag: &Token) -> Action {
        let name = tag.name;
        if let Some(dropped) = self.dropped.get_mut(&name.hash).filter(|n| **n > 0) {
            *dropped -= 1;
            return Action::Drop;
        }
        let open = &mut self.open;
        let len = open.len();
        if open.top().is_some_and(|top| top.foreign) {
            for i in (0..len).rev() {
                let Some(element) = open.get(i) else { break };
                if !element.foreign {
                    break;
                }
                if element.name.hash == name.hash {
                    open.pop_to(i);
                    return Action::Keep;
                }
            }
        }
        let open = &mut self.open;
        let same_name = |o: &Open| !o.foreign && o.name.hash == name.hash;
        let to = match name.tag {
            Tag::P => self.close_p(len),
            Tag::Br | Tag::Body | Tag::Html | Tag::Head => len,
            Tag::Li => open.in_scope(len, Tag::Li, &[Tag::Ol, Tag::Ul]).unwrap_or(len),
            Tag::Heading => open.search(len, |o| o.is(Tag::Heading), Open::scope_boundary).unwrap_or(len),
            Tag::A | Tag::Nobr | Tag::Formatting | Tag::Font => {
                open.adoption(name.hash);
                return Action::Keep;
            }
            Tag::Table | Tag::Tbody | Tag::Thead | Tag::Tfoot | Tag::Tr | Tag::Td | Tag::Th | Tag::Caption => {
                let table_scope = |o: &Open| o.is(Tag::Table) || o.is(Tag::Template) || o.is(Tag::Frameset);
                open.search(len, same_name, table_scope).unwrap_or(len)
            }
            Tag::Template => open.search(len, |o| o.is(Tag::Template), |o| o.is(Tag::Frameset)).unwrap_or(len),
            // The parser closes the elements with implied ends on top, then takes the form
            // out of the stack and leaves what it holds open.
            Tag::Form => {
                if open.search(len, |o| o.is(Tag::Template), |_| false).is_some() {
                    open.in_scope(len, Tag::Form, &[]).unwrap_or(len)
                } else {
                    let form = self.form.take();
                    if let Some(i) = form.and_then(|id| open.search(len, |o| o.id() == id, Open::scope_boundary)) {
                        let mut to = len;
                        while to > i + 1 && open.get(to - 1).is_some_and(implied_end) {
                            to -= 1;
                        }
                        open.pop_to(to);
                        open.remove(i);
                    }
                    return Action::Keep;
                }
            }
            // In a frameset it closes the current one; elsewhere it is an end tag like any.
            Tag::Frameset => open.any_other_end(len, name.hash),
            tag if tag.special() => open.search(len, same_name, Open::scope_boundary).unwrap_or(len),
            _ => open.any_other_end(len, name.hash),
        };
        self.open.pop_to(to);
        Action::Keep
    }
}
