//! What one complete control sequence means: a CSI sequence (`ESC [ params final`) or an
//! SS3 key (`ESC O final`) as a crossterm `Event` — cursor, edit and function keys with
//! modifiers, kitty's `CSI code;mods u`, xterm's modifyOtherKeys `CSI 27;mods;code ~`, SGR
//! (and the older X10 and rxvt) mouse reports and focus. `None` is a sequence that means
//! nothing to the app (a terminal's answer, an unknown key): the caller skips it. The
//! framing (where a sequence ends) is `decode.rs`; kitty's numbers for functional keys are
//! `kitty_keys.rs`.

use super::kitty_keys;
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers, ModifierKeyCode, MouseButton, MouseEvent,
    MouseEventKind,
};

/// The key of `ESC O final` (application cursor keys, F1–F4).
pub fn ss3(last: u8) -> Option<Event> {
    let code = letter_key(last)?;
    Some(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

/// The event of `ESC [ params last` (`params` are the bytes between `[` and `last`).
pub fn csi(params: &[u8], last: u8) -> Option<Event> {
    match params.first() {
        Some(b'<') => return sgr_mouse(&params[1..], last),
        // Private answers (device attributes, keyboard flags): not input.
        Some(b'?' | b'>' | b'=') => return None,
        _ => {}
    }
    let fields = Fields::parse(params)?;
    match last {
        b'~' => tilde(&fields),
        b'u' => kitty(&fields),
        b'Z' => Some(key(KeyCode::BackTab, KeyModifiers::SHIFT | fields.modifiers(1), fields.kind(1), fields.state(1))),
        b'I' if params.is_empty() => Some(Event::FocusGained),
        b'O' if params.is_empty() => Some(Event::FocusLost),
        b'M' if !params.is_empty() => rxvt_mouse(&fields),
        // With numbers, `R` is a cursor position report, not F3.
        b'R' => None,
        _ => {
            let code = letter_key(last)?;
            // `CSI 1;5A`, and the older `CSI 5A` with the modifier alone.
            let at = if fields.len() == 1 { 0 } else { 1 };
            Some(key(code, fields.modifiers(at), fields.kind(at), fields.state(at)))
        }
    }
}

/// The X10 mouse report `ESC [ M cb cx cy` (each a byte offset by 32).
pub fn x10_mouse(cb: u8, cx: u8, cy: u8) -> Option<Event> {
    let (kind, modifiers) = mouse_button(cb.checked_sub(32)?)?;
    let column = u16::from(cx.saturating_sub(32)).saturating_sub(1);
    let row = u16::from(cy.saturating_sub(32)).saturating_sub(1);
    Some(Event::Mouse(MouseEvent { kind, column, row, modifiers }))
}

/// The key a cursor or function key's final letter names.
fn letter_key(last: u8) -> Option<KeyCode> {
    Some(match last {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'P' => KeyCode::F(1),
        b'Q' => KeyCode::F(2),
        b'R' => KeyCode::F(3),
        b'S' => KeyCode::F(4),
        _ => return None,
    })
}

/// `CSI n ~` keys (Home, Insert, Delete, End, PageUp/Down, F1–F20) and xterm's
/// modifyOtherKeys form `CSI 27 ; mods ; code ~` (what tmux's default `extended-keys-format`
/// sends for Shift+Enter, Ctrl+Shift+letter, …).
fn tilde(fields: &Fields) -> Option<Event> {
    let first = fields.number(0, 0)?;
    if first == 27 {
        let code = char::from_u32(fields.number(2, 0)?)?;
        let mut modifiers = fields.modifiers(1);
        if code.is_uppercase() {
            modifiers |= KeyModifiers::SHIFT;
        }
        let code = code_key(code, modifiers)?;
        return Some(key(code, modifiers, fields.kind(1), fields.state(1)));
    }
    let code = match first {
        1 | 7 => KeyCode::Home,
        2 => KeyCode::Insert,
        3 => KeyCode::Delete,
        4 | 8 => KeyCode::End,
        5 => KeyCode::PageUp,
        6 => KeyCode::PageDown,
        n @ 11..=15 => KeyCode::F((n - 10) as u8),
        n @ 17..=21 => KeyCode::F((n - 11) as u8),
        n @ 23..=26 => KeyCode::F((n - 12) as u8),
        n @ 28..=29 => KeyCode::F((n - 15) as u8),
        n @ 31..=34 => KeyCode::F((n - 17) as u8),
        _ => return None,
    };
    Some(key(code, fields.modifiers(1), fields.kind(1), fields.state(1)))
}

/// kitty's `CSI code[:shifted] ; mods[:kind] ; text u`, read as crossterm 0.29 reads it.
fn kitty(fields: &Fields) -> Option<Event> {
    let codepoint = fields.number(0, 0)?;
    let mut modifiers = fields.modifiers(1);
    let (mut code, keypad) = match kitty_keys::functional(codepoint) {
        Some(found) => found,
        None => (code_key(char::from_u32(codepoint)?, modifiers)?, false),
    };
    if let KeyCode::Modifier(which) = code {
        modifiers |= modifier_of(which);
    }
    // With "report alternate keys" a shifted key also names what it types.
    if modifiers.contains(KeyModifiers::SHIFT) {
        if let Some(shifted) = fields.number(0, 1).and_then(char::from_u32) {
            code = KeyCode::Char(shifted);
            modifiers.remove(KeyModifiers::SHIFT);
        }
    }
    let mut state = fields.state(1);
    if keypad {
        state |= KeyEventState::KEYPAD;
    }
    Some(key(code, modifiers, fields.kind(1), state))
}

/// The key a character code stands for in kitty's and xterm's forms.
fn code_key(code: char, modifiers: KeyModifiers) -> Option<KeyCode> {
    Some(match code {
        '\x1b' => KeyCode::Esc,
        '\r' => KeyCode::Enter,
        '\t' if modifiers.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
        '\t' => KeyCode::Tab,
        '\x7f' | '\x08' => KeyCode::Backspace,
        c => KeyCode::Char(c),
    })
}

/// The modifier a modifier key itself holds down.
fn modifier_of(which: ModifierKeyCode) -> KeyModifiers {
    use ModifierKeyCode as M;
    match which {
        M::LeftShift | M::RightShift => KeyModifiers::SHIFT,
        M::LeftControl | M::RightControl => KeyModifiers::CONTROL,
        M::LeftAlt | M::RightAlt => KeyModifiers::ALT,
        M::LeftSuper | M::RightSuper => KeyModifiers::SUPER,
        M::LeftHyper | M::RightHyper => KeyModifiers::HYPER,
        M::LeftMeta | M::RightMeta => KeyModifiers::META,
        _ => KeyModifiers::NONE,
    }
}

fn key(code: KeyCode, modifiers: KeyModifiers, kind: KeyEventKind, state: KeyEventState) -> Event {
    Event::Key(KeyEvent::new_with_kind_and_state(code, modifiers, kind, state))
}

/// SGR mouse: `CSI < b ; x ; y M` (pressed, moved) or `m` (released).
fn sgr_mouse(params: &[u8], last: u8) -> Option<Event> {
    if !matches!(last, b'M' | b'm') {
        return None;
    }
    let fields = Fields::parse(params)?;
    let (mut kind, modifiers) = mouse_button(fields.number(0, 0)?)?;
    if last == b'm' {
        if let MouseEventKind::Down(button) = kind {
            kind = MouseEventKind::Up(button);
        }
    }
    let column = to_u16(fields.number(1, 0)?).saturating_sub(1);
    let row = to_u16(fields.number(2, 0)?).saturating_sub(1);
    Some(Event::Mouse(MouseEvent { kind, column, row, modifiers }))
}

/// rxvt's mouse report `CSI cb ; x ; y M` (cb offset by 32).
fn rxvt_mouse(fields: &Fields) -> Option<Event> {
    let (kind, modifiers) = mouse_button(fields.number(0, 0)?.checked_sub(32)?)?;
    let column = to_u16(fields.number(1, 0)?).saturating_sub(1);
    let row = to_u16(fields.number(2, 0)?).saturating_sub(1);
    Some(Event::Mouse(MouseEvent { kind, column, row, modifiers }))
}

fn to_u16(n: u32) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// A mouse report's button byte: which button, what happened, and the modifiers held.
fn mouse_button(cb: impl TryInto<u8>) -> Option<(MouseEventKind, KeyModifiers)> {
    let cb: u8 = cb.try_into().ok()?;
    let button = (cb & 0b0000_0011) | ((cb & 0b1100_0000) >> 4);
    let dragging = cb & 0b0010_0000 != 0;
    let kind = match (button, dragging) {
        (0, false) => MouseEventKind::Down(MouseButton::Left),
        (1, false) => MouseEventKind::Down(MouseButton::Middle),
        (2, false) => MouseEventKind::Down(MouseButton::Right),
        (0, true) => MouseEventKind::Drag(MouseButton::Left),
        (1, true) => MouseEventKind::Drag(MouseButton::Middle),
        (2, true) => MouseEventKind::Drag(MouseButton::Right),
        (3, false) => MouseEventKind::Up(MouseButton::Left),
        (3..=5, true) => MouseEventKind::Moved,
        (4, false) => MouseEventKind::ScrollUp,
        (5, false) => MouseEventKind::ScrollDown,
        (6, false) => MouseEventKind::ScrollLeft,
        (7, false) => MouseEventKind::ScrollRight,
        _ => return None,
    };
    let mut modifiers = KeyModifiers::NONE;
    for (bit, modifier) in [(4, KeyModifiers::SHIFT), (8, KeyModifiers::ALT), (16, KeyModifiers::CONTROL)] {
        if cb & bit != 0 {
            modifiers |= modifier;
        }
    }
    Some((kind, modifiers))
}

/// A sequence's numbers: fields split by `;`, each of sub-fields split by `:`, an empty
/// one absent (`CSI ;5A` has no first number).
struct Fields(Vec<Vec<Option<u32>>>);

impl Fields {
    /// `None` when a sub-field is not a number (or too large for one).
    fn parse(params: &[u8]) -> Option<Fields> {
        let text = std::str::from_utf8(params).ok()?;
        if text.is_empty() {
            return Some(Fields(Vec::new()));
        }
        let mut fields = Vec::new();
        for field in text.split(';') {
            let mut subs = Vec::new();
            for sub in field.split(':') {
                subs.push(if sub.is_empty() { None } else { Some(sub.parse::<u32>().ok()?) });
            }
            fields.push(subs);
        }
        Some(Fields(fields))
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn number(&self, field: usize, sub: usize) -> Option<u32> {
        self.0.get(field)?.get(sub).copied().flatten()
    }

    /// The modifier mask in field `at` (1 + bits, as xterm and kitty send it).
    fn mask(&self, at: usize) -> u32 {
        self.number(at, 0).unwrap_or(1).saturating_sub(1)
    }

    fn modifiers(&self, at: usize) -> KeyModifiers {
        let mask = self.mask(at);
        let mut modifiers = KeyModifiers::NONE;
        for (bit, modifier) in [
            (1, KeyModifiers::SHIFT),
            (2, KeyModifiers::ALT),
            (4, KeyModifiers::CONTROL),
            (8, KeyModifiers::SUPER),
            (16, KeyModifiers::HYPER),
            (32, KeyModifiers::META),
        ] {
            if mask & bit != 0 {
                modifiers |= modifier;
            }
        }
        modifiers
    }

    fn state(&self, at: usize) -> KeyEventState {
        let mask = self.mask(at);
        let mut state = KeyEventState::NONE;
        if mask & 64 != 0 {
            state |= KeyEventState::CAPS_LOCK;
        }
        if mask & 128 != 0 {
            state |= KeyEventState::NUM_LOCK;
        }
        state
    }

    /// Press, repeat or release (kitty's `mods:kind`).
    fn kind(&self, at: usize) -> KeyEventKind {
        match self.number(at, 1) {
            Some(2) => KeyEventKind::Repeat,
            Some(3) => KeyEventKind::Release,
            _ => KeyEventKind::Press,
        }
    }
}
