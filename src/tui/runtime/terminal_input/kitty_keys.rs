//! kitty's keyboard protocol numbers its functional keys in Unicode's private use area
//! (57344 onwards): the keypad, F13–F35, media keys and the modifier keys themselves. Owns
//! only that table, read the way crossterm 0.29 reads it.

use crossterm::event::{KeyCode, MediaKeyCode, ModifierKeyCode};

/// The key kitty's `codepoint` stands for, and whether it is on the keypad.
pub fn functional(codepoint: u32) -> Option<(KeyCode, bool)> {
    if let Some(code) = keypad(codepoint) {
        return Some((code, true));
    }
    let code = match codepoint {
        57358 => KeyCode::CapsLock,
        57359 => KeyCode::ScrollLock,
        57360 => KeyCode::NumLock,
        57361 => KeyCode::PrintScreen,
        57362 => KeyCode::Pause,
        57363 => KeyCode::Menu,
        n @ 57376..=57398 => KeyCode::F((n - 57376 + 13) as u8),
        n @ 57428..=57440 => KeyCode::Media(MEDIA[(n - 57428) as usize]),
        n @ 57441..=57454 => KeyCode::Modifier(MODIFIERS[(n - 57441) as usize]),
        _ => return None,
    };
    Some((code, false))
}

/// The keypad's keys (57399–57427).
fn keypad(codepoint: u32) -> Option<KeyCode> {
    Some(match codepoint {
        n @ 57399..=57408 => KeyCode::Char(char::from(b'0' + (n - 57399) as u8)),
        n @ 57409..=57413 => KeyCode::Char(['.', '/', '*', '-', '+'][(n - 57409) as usize]),
        57414 => KeyCode::Enter,
        57415 => KeyCode::Char('='),
        57416 => KeyCode::Char(','),
        57417 => KeyCode::Left,
        57418 => KeyCode::Right,
        57419 => KeyCode::Up,
        57420 => KeyCode::Down,
        57421 => KeyCode::PageUp,
        57422 => KeyCode::PageDown,
        57423 => KeyCode::Home,
        57424 => KeyCode::End,
        57425 => KeyCode::Insert,
        57426 => KeyCode::Delete,
        57427 => KeyCode::KeypadBegin,
        _ => return None,
    })
}

/// Media keys, 57428 onwards.
const MEDIA: [MediaKeyCode; 13] = [
    MediaKeyCode::Play,
    MediaKeyCode::Pause,
    MediaKeyCode::PlayPause,
    MediaKeyCode::Reverse,
    MediaKeyCode::Stop,
    MediaKeyCode::FastForward,
    MediaKeyCode::Rewind,
    MediaKeyCode::TrackNext,
    MediaKeyCode::TrackPrevious,
    MediaKeyCode::Record,
    MediaKeyCode::LowerVolume,
    MediaKeyCode::RaiseVolume,
    MediaKeyCode::MuteVolume,
];

/// Modifier keys, 57441 onwards.
const MODIFIERS: [ModifierKeyCode; 14] = [
    ModifierKeyCode::LeftShift,
    ModifierKeyCode::LeftControl,
    ModifierKeyCode::LeftAlt,
    ModifierKeyCode::LeftSuper,
    ModifierKeyCode::LeftHyper,
    ModifierKeyCode::LeftMeta,
    ModifierKeyCode::RightShift,
    ModifierKeyCode::RightControl,
    ModifierKeyCode::RightAlt,
    ModifierKeyCode::RightSuper,
    ModifierKeyCode::RightHyper,
    ModifierKeyCode::RightMeta,
    ModifierKeyCode::IsoLevel3Shift,
    ModifierKeyCode::IsoLevel5Shift,
];
