//! Characters typed in a row, as one input: the keys of one read that are plain characters
//! (no Ctrl or Alt, Shift only on capitals, as `decode.rs` makes them) and follow each
//! other become one `Input::Typed`, so the app can insert them at once (issue 37: text
//! typed into the terminal without bracketed paste, or keys typed ahead, came key by key,
//! each key laying the whole prompt out again). A key typed alone stays a key event.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

/// What the terminal sent, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Event(Event),
    /// Two or more characters typed in a row: the keys `typed_key` gives for each.
    Typed(String),
}

/// The key event of `c` typed alone (what the decoder gives for it).
pub fn typed_key(c: char) -> KeyEvent {
    let modifiers = if c.is_uppercase() { KeyModifiers::SHIFT } else { KeyModifiers::NONE };
    KeyEvent::new(KeyCode::Char(c), modifiers)
}

/// The character of a key that types it and nothing else.
fn typed_char(event: &Event) -> Option<char> {
    let Event::Key(key) = event else { return None };
    let KeyCode::Char(c) = key.code else { return None };
    (!c.is_control() && *key == typed_key(c)).then_some(c)
}

/// `events` in order, each run of typed characters joined.
pub fn group(events: impl IntoIterator<Item = Event>) -> Vec<Input> {
    let mut out = Vec::new();
    let mut run = String::new();
    for event in events {
        match typed_char(&event) {
            Some(c) => run.push(c),
            None => {
                end_run(&mut out, &mut run);
                out.push(Input::Event(event));
            }
        }
    }
    end_run(&mut out, &mut run);
    out
}

/// The characters of `run` onto `out`: one alone as its key, more as `Typed`.
fn end_run(out: &mut Vec<Input>, run: &mut String) {
    let mut chars = run.chars();
    match (chars.next(), chars.next()) {
        (None, _) => {}
        (Some(c), None) => out.push(Input::Event(Event::Key(typed_key(c)))),
        _ => out.push(Input::Typed(std::mem::take(run))),
    }
    run.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
        Event::Key(KeyEvent::new(code, modifiers))
    }

    #[test]
    fn runs_of_typed_characters_are_joined_and_everything_else_stays_in_order() {
        let c = |c: char| Event::Key(typed_key(c));
        let enter = key(KeyCode::Enter, KeyModifiers::NONE);
        let ctrl_a = key(KeyCode::Char('a'), KeyModifiers::CONTROL);
        let events = [c('H'), c('i'), c(' '), c('é'), enter.clone(), c('x'), ctrl_a.clone(), c('y'), c('z')];
        assert_eq!(
            group(events),
            [
                Input::Typed("Hi é".into()),
                Input::Event(enter),
                Input::Event(c('x')),
                Input::Event(ctrl_a),
                Input::Typed("yz".into())
            ]
        );
        // Not as the decoder types them: a lower-case letter with Shift (kitty), a release.
        let shifted = key(KeyCode::Char('a'), KeyModifiers::SHIFT);
        let mut release = typed_key('b');
        release.kind = crossterm::event::KeyEventKind::Release;
        let events = [c('a'), shifted.clone(), Event::Key(release), c('c')];
        let expected =
            [Input::Event(c('a')), Input::Event(shifted), Input::Event(Event::Key(release)), Input::Event(c('c'))];
        assert_eq!(group(events), expected);
        assert_eq!(group([]), []);
    }
}
