//! The nesting pass's rules for start tags (`mod.rs`): what each one closes, implies and
//! opens in the parser's stack, tables, formatting elements and foster parenting included.

use super::super::elements::{breaks_out, Name, RawKind, Tag};
use super::super::html_scan::{Tag as Token, MAX_ATTRIBUTES};
use super::super::open_elements::{Open, OpenElements, MAX_DEPTH, MAX_FORMATTING};
use super::{is_address_div_p, Action, Pass, INPUT, MAX_FOSTERED, SCRIPT, STYLE};

impl Pass<'_> {
    pub(super) fn start(&mut self, tag: &Token) -> Action {
        let name = tag.name;
        let open = &mut self.open;
        let mut len = open.len();
        if open.top().is_some_and(|top| top.foreign && !top.integration_point()) {
            let leaves = breaks_out(&name) || (name.tag == Tag::Font && tag.font_attributes);
            if !leaves {
                let pushes: &[Open] = if tag.self_closing { &[] } else { &[Open::foreign(name)] };
                return open.apply(len, false, pushes).into();
            }
            while open.get(len.wrapping_sub(1)).is_some_and(|o| o.foreign && !o.integration_point()) {
                len -= 1;
            }
        }
        let element = [Open::html(name)];
        let in_tables = matches!(
            name.tag,
            Tag::Caption
                | Tag::Col
                | Tag::Colgroup
                | Tag::Tbody
                | Tag::Thead
                | Tag::Tfoot
                | Tag::Tr
                | Tag::Td
                | Tag::Th
                | Tag::Table
                | Tag::Template
                | Tag::Form
        ) || [SCRIPT, STYLE].contains(&name.hash);
        if !in_tables && self.fostering() {
            // It, and the formatting elements reopened before it, go before the table.
            self.fostered += 1 + self.open.closed_formatting();
            if self.fostered > MAX_FOSTERED {
                return Action::Drop;
            }
        }
        let open = &mut self.open;
        match name.tag {
            // Each `<html>` or `<body>` adds its attributes to the element, which the tree
            // compares with all it has: past `MAX_ATTRIBUTES` in all, they come bare.
            Tag::Html | Tag::Body if tag.count > 0 => {
                self.merged += tag.count;
                match self.merged > MAX_ATTRIBUTES {
                    true => Action::Bare,
                    false => Action::Keep,
                }
            }
            Tag::Html | Tag::Head | Tag::Body | Tag::Col | Tag::Colgroup => open.apply(len, false, &[]).into(),
            Tag::Void | Tag::Br => {
                let len = if name.hash == INPUT { self.select_at(len).unwrap_or(len) } else { len };
                self.open.apply(len, true, &[]).into()
            }
            Tag::Hr => {
                let mut len = self.close_p(len);
                if self.select_at(len).is_some() {
                    len = self.implied_ends(len, None);
                }
                self.open.apply(len, false, &[]).into()
            }
            Tag::Select => match self.select_at(len) {
                Some(select) => self.open.apply(select, false, &[]).into(),
                None => self.open.apply(len, true, &element).into(),
            },
            Tag::Svg | Tag::Math => {
                let pushes: &[Open] = if tag.self_closing { &[] } else { &[Open::foreign(name)] };
                open.apply(len, true, pushes).into()
            }
            Tag::Plaintext => {
                let len = self.close_p(len);
                let raw = self.raw_text();
                match self.open.apply(len, false, &element) {
                    true if raw => Action::Stop,
                    kept => kept.into(),
                }
            }
            Tag::Raw(kind) => {
                let xmp = kind == RawKind::Xmp;
                let len = if xmp { self.close_p(len) } else { len };
                if !self.raw_text() {
                    // The parser may not read it as raw text here: count it as an element
                    // and scan its content for tags.
                    return self.open.apply(len, xmp, &element).into();
                }
                match self.open.apply(len, xmp, &[]) {
                    true => Action::Raw,
                    false => Action::Drop,
                }
            }
            Tag::Li | Tag::Dd | Tag::Dt => {
                let closes: &[Tag] = if name.tag == Tag::Li { &[Tag::Li] } else { &[Tag::Dd, Tag::Dt] };
                let stops = |o: &Open| o.special() && !is_address_div_p(o);
                let len = open.search(len, |o| closes.iter().any(|t| o.is(*t)), stops).unwrap_or(len);
                let len = self.close_p(len);
                self.open.apply(len, false, &element).into()
            }
            Tag::Heading => {
                let mut len = self.close_p(len);
                if self.open.get(len.wrapping_sub(1)).is_some_and(|o| o.is(Tag::Heading)) {
                    len -= 1;
                }
                self.open.apply(len, false, &element).into()
            }
            Tag::Form => {
                // A form inside the form the parser holds (outside a template) is ignored.
                let template = open.search(len, |o| o.is(Tag::Template), |_| false).is_some();
                if self.form.is_some() && !template {
                    return Action::Keep;
                }
                let len = self.close_p(len);
                let kept = self.open.apply(len, false, &element);
                if kept && !template {
                    self.form = self.open.top().map(Open::id);
                }
                kept.into()
            }
            Tag::P | Tag::ClosesP | Tag::Ol | Tag::Ul => {
                let len = self.close_p(len);
                self.open.apply(len, false, &element).into()
            }
            Tag::A | Tag::Nobr => self.start_a_or_nobr(tag, len),
            Tag::Formatting | Tag::Font => self.start_formatting(tag, len),
            Tag::Button => {
                let len = open.in_scope(len, Tag::Button, &[]).unwrap_or(len);
                open.apply(len, true, &element).into()
            }
            Tag::Option | Tag::Optgroup => {
                let len = match self.select_at(len) {
                    Some(_) => self.implied_ends(len, (name.tag == Tag::Option).then_some(Tag::Optgroup)),
                    None => len - usize::from(self.open.get(len.wrapping_sub(1)).is_some_and(|o| o.is(Tag::Option))),
                };
                self.open.apply(len, true, &element).into()
            }
            Tag::Table => {
                let nearest = open.search(len, |o| !o.foreign && o.name.tag.table_part(), |o| o.is(Tag::Frameset));
                let in_table = nearest
                    .and_then(|i| open.get(i))
                    .is_some_and(|o| matches!(o.name.tag, Tag::Table | Tag::Tbody | Tag::Thead | Tag::Tfoot | Tag::Tr));
                let len = match open.search(len, |o| o.is(Tag::Table), |o| o.is(Tag::Frameset)) {
                    Some(table) if in_table => table,
                    _ => len,
                };
                open.apply(len, false, &element).into()
            }
            Tag::Caption | Tag::Tbody | Tag::Thead | Tag::Tfoot | Tag::Tr | Tag::Td | Tag::Th => {
                self.table_start(len, element[0])
            }
            Tag::Applet | Tag::Marquee | Tag::Object | Tag::Other => open.apply(len, true, &element).into(),
            Tag::Template | Tag::Frameset => open.apply(len, false, &element).into(),
        }
    }

    /// A formatting element: dropped past `MAX_FORMATTING` (or the depth); otherwise its
    /// entry replaces the oldest of three the same.
    fn start_formatting(&mut self, tag: &Token, len: usize) -> Action {
        match self.open.formatting_room(tag.name, tag.attributes) {
            Some(gone) => self.open.open_formatting(len, tag.name, tag.attributes, gone).into(),
            None => Action::Drop,
        }
    }

    /// `<a>` closes an open `<a>` (the adoption agency, then whatever is left of it),
    /// `<nobr>` an open `<nobr>`, before opening. When the tag may be dropped, the state
    /// before it is kept to come back to.
    fn start_a_or_nobr(&mut self, tag: &Token, len: usize) -> Action {
        let open = &self.open;
        let near_cap =
            open.len() + open.formatting_open() + 2 > MAX_DEPTH || open.formatting_open() + 1 >= MAX_FORMATTING;
        let saved = (near_cap || len != open.len()).then(|| open.clone());
        self.open.pop_to(len);
        if tag.name.tag == Tag::A {
            if let Some(id) = self.open.last_formatting(tag.name.hash).and_then(|i| self.open.entry_id(i)) {
                self.open.adoption(tag.name.hash);
                self.open.forget(id);
            }
        } else {
            self.open.reconstruct();
            if self.open.in_scope(self.open.len(), Tag::Nobr, &[]).is_some() {
                self.open.adoption(tag.name.hash);
            }
        }
        let action = self.start_formatting(tag, self.open.len());
        if let (Action::Drop, Some(saved)) = (&action, saved) {
            self.open = saved;
        }
        action
    }

    /// `caption`, `tbody`, `thead`, `tfoot`, `tr`, `td`, `th`: the cell, row or caption
    /// they close, and the row and body they imply; outside a table the parser ignores them.
    pub(super) fn table_start(&mut self, len: usize, element: Open) -> Action {
        let open = &mut self.open;
        let nearest = |open: &OpenElements, len: usize| {
            open.search(len, |o| !o.foreign && o.name.tag.table_part(), |o| o.is(Tag::Frameset))
        };
        let part = |open: &OpenElements, at: usize| open.get(at).map_or(Tag::Other, |o| o.name.tag);
        let Some(mut at) = nearest(open, len) else { return open.apply(len, false, &[]).into() };
        let mut len = len;
        if matches!(part(open, at), Tag::Td | Tag::Th | Tag::Caption) {
            len = at;
            match nearest(open, len) {
                Some(next) => at = next,
                None => return open.apply(len, false, &[]).into(),
            }
        }
        if part(open, at) == Tag::Template {
            // In a template the parser may read them as a table's or ignore them (once it
            // reads the template as a body): counted as ignored; the template bounds every
            // search the parser makes.
            return open.apply(len, false, &[]).into();
        }
        let table = open.search(at + 1, |o| o.is(Tag::Table), |o| o.is(Tag::Frameset));
        let implied = |t: &[u8]| Open::html(Name::of(t));
        let kept = match (element.name.tag, part(open, at)) {
            (Tag::Caption | Tag::Tbody | Tag::Thead | Tag::Tfoot, _) => {
                open.apply(table.map_or(len, |t| t + 1), false, &[element])
            }
            (Tag::Tr, Tag::Tr) => open.apply(at, false, &[element]),
            (Tag::Tr, Tag::Table) => open.apply(at + 1, false, &[implied(b"tbody"), element]),
            (Tag::Tr, _) => open.apply(at + 1, false, &[element]),
            (_, Tag::Tr) => open.apply(at + 1, false, &[element]),
            (_, Tag::Table) => open.apply(at + 1, false, &[implied(b"tbody"), implied(b"tr"), element]),
            _ => open.apply(at + 1, false, &[implied(b"tr"), element]),
        };
        kept.into()
    }
}
