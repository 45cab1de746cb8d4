//! The decoder against every form the app gets from a terminal, the same events however
//! the bytes are split across reads, and no panic on any bytes.

use super::decode::{Decoder, ESC_WAIT, MAX_SEQUENCE, MAX_STRING, PASTE_PIECE, PASTE_WAIT};
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers as M, MouseButton, MouseEvent, MouseEventKind,
};
use proptest::prelude::*;

/// The events of `bytes` read at once, with nothing after them.
fn decode(bytes: &[u8]) -> Vec<Event> {
    decode_in(&[bytes])
}

/// The events of `reads`, each read on its own, with nothing after them.
fn decode_in(reads: &[&[u8]]) -> Vec<Event> {
    let mut decoder = Decoder::default();
    let mut out = Vec::new();
    for read in reads {
        decoder.feed(read, &mut out);
    }
    decoder.timeout(&mut out);
    out
}

fn key(code: KeyCode, modifiers: M) -> Event {
    Event::Key(KeyEvent::new(code, modifiers))
}

fn ch(c: char) -> Event {
    key(KeyCode::Char(c), if c.is_uppercase() { M::SHIFT } else { M::NONE })
}

fn mouse(kind: MouseEventKind, column: u16, row: u16, modifiers: M) -> Event {
    Event::Mouse(MouseEvent { kind, column, row, modifiers })
}

#[track_caller]
fn check(bytes: &[u8], expected: &[Event]) {
    assert_eq!(decode(bytes), expected, "{:?}", String::from_utf8_lossy(bytes));
}

#[test]
fn text_is_typed_characters_with_shift_on_capitals() {
    let typed: Vec<Event> = "aZ é漢🙂".chars().map(ch).collect();
    check("aZ é漢🙂".as_bytes(), &typed);
}

#[test]
fn control_bytes_are_enter_tab_backspace_and_ctrl_keys() {
    check(b"\r", &[key(KeyCode::Enter, M::NONE)]);
    check(b"\t", &[key(KeyCode::Tab, M::NONE)]);
    check(b"\x7f\x08", &[key(KeyCode::Backspace, M::NONE), key(KeyCode::Backspace, M::NONE)]);
    check(b"\x01\x03\x04\x0a\x12", &[ch('a'), ch('c'), ch('d'), ch('j'), ch('r')].map(|e| ctrl(&e)));
    check(b"\x00", &[key(KeyCode::Char(' '), M::CONTROL)]);
    check(b"\x1c\x1f", &[key(KeyCode::Char('4'), M::CONTROL), key(KeyCode::Char('7'), M::CONTROL)]);
}

fn ctrl(event: &Event) -> Event {
    match event {
        Event::Key(k) => key(k.code, k.modifiers | M::CONTROL),
        other => other.clone(),
    }
}

#[test]
fn a_lone_esc_is_the_esc_key_once_nothing_follows_within_the_wait() {
    let mut decoder = Decoder::default();
    let mut out = Vec::new();
    decoder.feed(b"\x1b", &mut out);
    assert!(out.is_empty(), "the rest of a sequence may be on its way");
    assert_eq!(decoder.wait(), Some(ESC_WAIT));
    decoder.timeout(&mut out);
    assert_eq!(out, [key(KeyCode::Esc, M::NONE)]);
    assert_eq!(decoder.wait(), None, "nothing left to wait for");
}

#[test]
fn esc_before_a_key_is_alt_and_before_esc_or_a_control_key_is_esc() {
    check(b"\x1ba", &[key(KeyCode::Char('a'), M::ALT)]);
    check(b"\x1bA", &[key(KeyCode::Char('A'), M::ALT | M::SHIFT)]);
    check("\x1bé".as_bytes(), &[key(KeyCode::Char('é'), M::ALT)]);
    check(b"\x1b\r", &[key(KeyCode::Enter, M::ALT)]);
    check(b"\x1b\x7f", &[key(KeyCode::Backspace, M::ALT)]);
    check(b"\x1b\x1b", &[key(KeyCode::Esc, M::NONE), key(KeyCode::Esc, M::NONE)]);
    check(b"\x1b\x03", &[key(KeyCode::Esc, M::NONE), key(KeyCode::Char('c'), M::CONTROL)]);
    // The introducers alone, with nothing after them.
    check(b"\x1b[", &[key(KeyCode::Char('['), M::ALT)]);
    check(b"\x1bO", &[key(KeyCode::Char('O'), M::ALT | M::SHIFT)]);
    check(b"\x1b]", &[key(KeyCode::Char(']'), M::ALT)]);
}

#[test]
fn cursor_and_function_keys_with_modifiers() {
    check(
        b"\x1b[A\x1b[B\x1b[C\x1b[D",
        &[KeyCode::Up, KeyCode::Down, KeyCode::Right, KeyCode::Left].map(|c| key(c, M::NONE)),
    );
    check(b"\x1b[H\x1b[F", &[key(KeyCode::Home, M::NONE), key(KeyCode::End, M::NONE)]);
    check(b"\x1b[1;5A", &[key(KeyCode::Up, M::CONTROL)]);
    check(b"\x1b[1;2D", &[key(KeyCode::Left, M::SHIFT)]);
    check(b"\x1b[1;3H", &[key(KeyCode::Home, M::ALT)]);
    check(b"\x1b[1;5F", &[key(KeyCode::End, M::CONTROL)]);
    check(b"\x1b[1;2P", &[key(KeyCode::F(1), M::SHIFT)]);
    check(
        b"\x1bOA\x1bOD\x1bOH\x1bOF",
        &[KeyCode::Up, KeyCode::Left, KeyCode::Home, KeyCode::End].map(|c| key(c, M::NONE)),
    );
    check(b"\x1bOP\x1bOS", &[key(KeyCode::F(1), M::NONE), key(KeyCode::F(4), M::NONE)]);
    check(b"\x1b[3~", &[key(KeyCode::Delete, M::NONE)]);
    check(b"\x1b[2~", &[key(KeyCode::Insert, M::NONE)]);
    check(b"\x1b[5~\x1b[6~", &[key(KeyCode::PageUp, M::NONE), key(KeyCode::PageDown, M::NONE)]);
    check(b"\x1b[1~\x1b[4~", &[key(KeyCode::Home, M::NONE), key(KeyCode::End, M::NONE)]);
    check(b"\x1b[5;2~", &[key(KeyCode::PageUp, M::SHIFT)]);
    check(b"\x1b[3;5~", &[key(KeyCode::Delete, M::CONTROL)]);
    check(b"\x1b[15~\x1b[24;5~", &[key(KeyCode::F(5), M::NONE), key(KeyCode::F(12), M::CONTROL)]);
    check(b"\x1b[[A", &[key(KeyCode::F(1), M::NONE)]);
    let back_tab = Event::Key(KeyEvent::new_with_kind(KeyCode::BackTab, M::SHIFT, KeyEventKind::Press));
    check(b"\x1b[Z", &[back_tab]);
}

#[test]
fn kitty_keys_read_as_crossterm_reads_them() {
    check(b"\x1b[13;2u", &[key(KeyCode::Enter, M::SHIFT)]);
    check(b"\x1b[27u", &[key(KeyCode::Esc, M::NONE)]);
    check(b"\x1b[99;5u", &[key(KeyCode::Char('c'), M::CONTROL)]);
    check(b"\x1b[97;6u", &[key(KeyCode::Char('a'), M::CONTROL | M::SHIFT)]);
    check(b"\x1b[9;2u", &[key(KeyCode::BackTab, M::SHIFT)]);
    check(b"\x1b[127;3u", &[key(KeyCode::Backspace, M::ALT)]);
    check(b"\x1b[105;9u", &[key(KeyCode::Char('i'), M::SUPER)]);
    check(b"\x1b[97:65;2u", &[key(KeyCode::Char('A'), M::NONE)]);
    let keypad_enter =
        KeyEvent::new_with_kind_and_state(KeyCode::Enter, M::NONE, KeyEventKind::Press, KeyEventState::KEYPAD);
    check(b"\x1b[57414u", &[Event::Key(keypad_enter)]);
    check(b"\x1b[57376u", &[key(KeyCode::F(13), M::NONE)]);
    let release = KeyEvent::new_with_kind(KeyCode::Char('a'), M::NONE, KeyEventKind::Release);
    check(b"\x1b[97;1:3u", &[Event::Key(release)]);
    let caps =
        KeyEvent::new_with_kind_and_state(KeyCode::Char('a'), M::NONE, KeyEventKind::Press, KeyEventState::CAPS_LOCK);
    check(b"\x1b[97;65u", &[Event::Key(caps)]);
}

#[test]
fn xterm_modify_other_keys_are_keys_with_their_modifiers() {
    check(b"\x1b[27;2;13~", &[key(KeyCode::Enter, M::SHIFT)]);
    check(b"\x1b[27;3;13~", &[key(KeyCode::Enter, M::ALT)]);
    check(b"\x1b[27;5;13~", &[key(KeyCode::Enter, M::CONTROL)]);
    check(b"\x1b[27;5;99~", &[key(KeyCode::Char('c'), M::CONTROL)]);
    check(b"\x1b[27;6;65~", &[key(KeyCode::Char('A'), M::CONTROL | M::SHIFT)]);
    check(b"\x1b[27;6;97~", &[key(KeyCode::Char('a'), M::CONTROL | M::SHIFT)]);
    check(b"\x1b[27;2;9~", &[key(KeyCode::BackTab, M::SHIFT)]);
    check(b"\x1b[27;5;127~", &[key(KeyCode::Backspace, M::CONTROL)]);
    check(b"\x1b[27;5;27~", &[key(KeyCode::Esc, M::CONTROL)]);
    check(b"\x1b[27;5;32~", &[key(KeyCode::Char(' '), M::CONTROL)]);
    // Between typed text, nothing around it is lost.
    check(
        b"one\x1b[27;2;13~two",
        &[ch('o'), ch('n'), ch('e'), key(KeyCode::Enter, M::SHIFT), ch('t'), ch('w'), ch('o')],
    );
}

#[test]
fn sgr_mouse_presses_releases_drags_wheel_and_modifiers() {
    use MouseEventKind as K;
    let left = MouseButton::Left;
    check(b"\x1b[<0;10;5M", &[mouse(K::Down(left), 9, 4, M::NONE)]);
    check(b"\x1b[<0;10;5m", &[mouse(K::Up(left), 9, 4, M::NONE)]);
    check(b"\x1b[<2;1;1M", &[mouse(K::Down(MouseButton::Right), 0, 0, M::NONE)]);
    check(b"\x1b[<32;11;5M", &[mouse(K::Drag(left), 10, 4, M::NONE)]);
    check(b"\x1b[<35;11;5M", &[mouse(K::Moved, 10, 4, M::NONE)]);
    check(b"\x1b[<64;3;4M\x1b[<65;3;4M", &[mouse(K::ScrollUp, 2, 3, M::NONE), mouse(K::ScrollDown, 2, 3, M::NONE)]);
    check(b"\x1b[<4;1;1M", &[mouse(K::Down(left), 0, 0, M::SHIFT)]);
    check(b"\x1b[<24;1;1M", &[mouse(K::Down(left), 0, 0, M::ALT | M::CONTROL)]);
    check(b"\x1b[<0;300;200M", &[mouse(K::Down(left), 299, 199, M::NONE)]);
    check(b"\x1b[<0;0;0M", &[mouse(K::Down(left), 0, 0, M::NONE)]);
    // The older encodings.
    check(b"\x1b[M !!", &[mouse(K::Down(left), 0, 0, M::NONE)]);
    check(b"\x1b[32;2;3M", &[mouse(K::Down(left), 1, 2, M::NONE)]);
}

#[test]
fn a_bracketed_paste_is_one_event_however_it_is_read() {
    let pasted = Event::Paste("line one\r\nline \x1b two\ttab".into());
    check(b"\x1b[200~line one\r\nline \x1b two\ttab\x1b[201~", std::slice::from_ref(&pasted));
    let whole = b"x\x1b[200~line one\r\nline \x1b two\ttab\x1b[201~y";
    for at in 0..=whole.len() {
        for to in at..=whole.len() {
            let events = decode_in(&[&whole[..at], &whole[at..to], &whole[to..]]);
            assert_eq!(events, [ch('x'), pasted.clone(), ch('y')], "split at {at} and {to}");
        }
    }
    check(b"\x1b[200~\x1b[201~", &[Event::Paste(String::new())]);
}

#[test]
fn an_unterminated_paste_is_handed_over_after_its_wait_and_typing_goes_on() {
    let mut decoder = Decoder::default();
    let mut out = Vec::new();
    decoder.feed(b"\x1b[200~half a paste", &mut out);
    assert!(out.is_empty());
    assert_eq!(decoder.wait(), Some(PASTE_WAIT));
    decoder.timeout(&mut out);
    assert_eq!(out, [Event::Paste("half a paste".into())]);
    out.clear();
    decoder.feed(b"ok", &mut out);
    assert_eq!(out, [ch('o'), ch('k')]);
}

#[test]
fn a_paste_that_never_ends_comes_in_bounded_pieces() {
    let mut decoder = Decoder::default();
    let mut out = Vec::new();
    decoder.feed(b"\x1b[200~", &mut out);
    // Multi-byte characters across the piece boundary stay whole.
    let chunk = "é漢".repeat(4096);
    let mut sent = 0;
    while sent < 2 * PASTE_PIECE + 1 {
        decoder.feed(chunk.as_bytes(), &mut out);
        sent += chunk.len();
    }
    assert!(out.len() >= 2, "{} pieces", out.len());
    decoder.timeout(&mut out);
    let mut total = String::new();
    for event in &out {
        let Event::Paste(piece) = event else { panic!("not a paste: {event:?}") };
        assert!(piece.len() <= PASTE_PIECE);
        total.push_str(piece);
    }
    assert_eq!(total.len(), sent);
    assert!(!total.contains('\u{fffd}'), "a character was cut");
}

#[test]
fn focus_changes() {
    check(b"\x1b[I\x1b[O", &[Event::FocusGained, Event::FocusLost]);
}

#[test]
fn unknown_and_malformed_sequences_are_skipped_alone() {
    let around = |middle: &[u8]| [b"a".as_slice(), middle, b"b"].concat();
    for junk in [
        &b"\x1b[?62;22c"[..],                // a device attributes answer
        b"\x1b[?1u",                         // a keyboard flags answer
        b"\x1b[999~",                        // no such key
        b"\x1b[201~",                        // a paste end without a start
        b"\x1b[1;2;3;4x",                    // no such final
        b"\x1b[12;1R",                       // a cursor position report
        b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\", // a late background answer
        b"\x1b]11;rgb:0000/0000/0000\x07",
        b"\x1bP>|xterm(390)\x1b\\", // XTVERSION
        b"\x1b_Gi=1;OK\x1b\\",      // a kitty graphics answer
        b"\x1bOx",                  // no such SS3 key
        b"\x1b[<128;1;1M",          // no such mouse button
        b"\x1b[<0;=;1M",            // not a number
        b"\x1b[99999999999999999999u",
        b"\xff",
        b"\xc3",
        b"\xe2\x82",
    ] {
        assert_eq!(decode(&around(junk)), [ch('a'), ch('b')], "{:?}", String::from_utf8_lossy(junk));
    }
    // A sequence cut by another: the cut part goes, the next is read whole.
    check(b"a\x1b[12;\x1b[Ab", &[ch('a'), key(KeyCode::Up, M::NONE), ch('b')]);
    check(b"\x1b]11;rgb:0/0/0\x1b[A", &[key(KeyCode::Up, M::NONE)]);
    check(b"a\x1b[12;", &[ch('a')]);
}

#[test]
fn an_overlong_sequence_is_not_waited_for_and_is_dropped_whole() {
    let mut bytes = b"\x1b[".to_vec();
    bytes.extend(std::iter::repeat_n(b'1', 10_000));
    let mut decoder = Decoder::default();
    let mut out = Vec::new();
    decoder.feed(&bytes, &mut out);
    assert!(out.is_empty(), "typed: {:?}", &out[..3.min(out.len())]);
    assert!(decoder.held() <= MAX_SEQUENCE, "{} bytes held", decoder.held());
    decoder.feed(b"~ok", &mut out);
    assert_eq!(out, [ch('o'), ch('k')], "its final byte ends it");
    // However it is read, whatever ends it.
    let long = |body: usize, end: &[u8]| [b"a\x1b[".as_slice(), &b"1;".repeat(body / 2), end, b"b"].concat();
    for body in [MAX_SEQUENCE - 3, MAX_SEQUENCE, MAX_SEQUENCE + 1, 40_000] {
        for split in [1, 7, 4096, usize::MAX] {
            let bytes = long(body, b"m");
            let reads: Vec<&[u8]> = bytes.chunks(split.min(bytes.len())).collect();
            assert_eq!(decode_in(&reads), [ch('a'), ch('b')], "{body} bytes read {split} at a time");
            // Cut by another sequence, which is read whole.
            let bytes = long(body, b"\x1b[A");
            let reads: Vec<&[u8]> = bytes.chunks(split.min(bytes.len())).collect();
            let up = key(KeyCode::Up, M::NONE);
            assert_eq!(decode_in(&reads), [ch('a'), up, ch('b')], "{body} bytes read {split} at a time");
            // Cut by a control byte, which is read anew.
            let bytes = long(body, b"\r");
            let reads: Vec<&[u8]> = bytes.chunks(split.min(bytes.len())).collect();
            let enter = key(KeyCode::Enter, M::NONE);
            assert_eq!(decode_in(&reads), [ch('a'), enter, ch('b')], "{body} bytes read {split} at a time");
        }
    }
}

/// A terminal string of `kind` (`]`, `P`, `_`, `^`, `X`) with `body` bytes, ended by `end`,
/// between an `a` and a `b` typed.
fn string_between(kind: u8, body: usize, end: &[u8]) -> Vec<u8> {
    let text: Vec<u8> = (0..body).map(|i| b"0;some title text "[i % 18]).collect();
    [b"a\x1b".as_slice(), &[kind], &text, end, b"b"].concat()
}

#[test]
fn a_terminal_string_of_any_length_is_dropped_whole_never_typed() {
    for kind in *b"]P_^X" {
        for body in [10, MAX_STRING - 10, MAX_STRING + 1, 40_000, 1 << 20] {
            for end in [&b"\x07"[..], b"\x1b\\"] {
                let bytes = string_between(kind, body, end);
                for split in [4095, usize::MAX] {
                    let reads: Vec<&[u8]> = bytes.chunks(split.min(bytes.len())).collect();
                    let events = decode_in(&reads);
                    assert_eq!(events, [ch('a'), ch('b')], "{} with {body} bytes, {split} a read", kind as char);
                }
            }
            // Cut short by a key's sequence: the key is read.
            let bytes = string_between(kind, body, b"\x1b[A");
            assert_eq!(decode(&bytes), [ch('a'), key(KeyCode::Up, M::NONE), ch('b')]);
        }
    }
    // Byte by byte, too.
    let bytes = string_between(b']', 3 * MAX_STRING, b"\x07");
    let reads: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(decode_in(&reads), [ch('a'), ch('b')]);
}

#[test]
fn an_unterminated_terminal_string_ends_when_nothing_more_comes() {
    let mut decoder = Decoder::default();
    let mut out = Vec::new();
    let bytes = string_between(b']', 100_000, b"");
    decoder.feed(&bytes[..bytes.len() - 1], &mut out);
    assert_eq!(out, [ch('a')]);
    assert!(decoder.held() <= MAX_STRING + 1, "{} bytes held", decoder.held());
    assert_eq!(decoder.wait(), Some(ESC_WAIT));
    decoder.timeout(&mut out);
    assert_eq!(decoder.wait(), None);
    decoder.feed(b"ok", &mut out);
    assert_eq!(out, [ch('a'), ch('o'), ch('k')], "typing goes on after the wait");
}

#[test]
fn only_a_whole_background_answer_within_the_limit_is_kept() {
    let mut decoder = Decoder::default();
    let mut out = Vec::new();
    let answer = b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\";
    for read in answer.chunks(3) {
        decoder.feed(read, &mut out);
    }
    assert_eq!(decoder.take_answers(), [answer.to_vec()]);
    let long = [b"\x1b]11;rgb:".as_slice(), &b"f".repeat(MAX_STRING), b"\x07"].concat();
    decoder.feed(&long, &mut out);
    assert!(decoder.take_answers().is_empty(), "a string past the limit is no answer");
    assert!(out.is_empty());
}

/// What the decoder's work on `bytes` read `split` bytes at a time was: bytes examined.
fn work(bytes: &[u8], split: usize) -> usize {
    let mut decoder = Decoder::default();
    let mut out = Vec::new();
    let mut held = 0;
    for read in bytes.chunks(split) {
        decoder.feed(read, &mut out);
        held = held.max(decoder.held());
    }
    decoder.timeout(&mut out);
    assert!(held <= MAX_STRING + split, "{held} bytes held between reads");
    decoder.examined()
}

/// Bytes of about a given length.
type Make = dyn Fn(usize) -> Vec<u8>;

/// Issue 37: each byte is examined a bounded number of times however the bytes are split
/// (typed text, an over-long control sequence, a long terminal string, sequences just
/// under the limit and characters cut across reads), so 1 MB costs 100 times 10 KB.
#[test]
fn decoding_is_linear_in_the_bytes_however_they_are_read() {
    let typed = |n: usize| (0..n).map(|i| b'a' + (i % 26) as u8).collect::<Vec<u8>>();
    let long_csi = |n: usize| [b"\x1b[".as_slice(), &b"1".repeat(n), b"m"].concat();
    let osc = |n: usize| [b"\x1b]0;".as_slice(), &b"x".repeat(n), b"\x07"].concat();
    let apc = |n: usize| [b"\x1b_G".as_slice(), &b"x".repeat(n), b"\x1b\\"].concat();
    let near_limit = |n: usize| {
        let one = [b"\x1b[".as_slice(), &b"1".repeat(MAX_SEQUENCE - 2), b"~"].concat();
        one.repeat(n / one.len() + 1)
    };
    let wide = |n: usize| "漢🙂é".repeat(n / 9 + 1).into_bytes();
    let inputs: [(&str, &Make); 6] = [
        ("typed text", &typed),
        ("an over-long CSI", &long_csi),
        ("an OSC", &osc),
        ("an APC", &apc),
        ("sequences just under the limit", &near_limit),
        ("wide characters", &wide),
    ];
    for (what, make) in inputs {
        for split in [1, 3, 4096] {
            let (small, large) = (make(10_000), make(if split == 1 { 200_000 } else { 1 << 20 }));
            let (small_work, large_work) = (work(&small, split), work(&large, split));
            assert!(large_work <= 2 * large.len(), "{what}, {split} bytes a read: {large_work} for {}", large.len());
            let ratio = large_work as f64 / small_work as f64;
            let expected = large.len() as f64 / small.len() as f64;
            assert!(
                ratio < expected * 1.5,
                "{what}, {split} a read: {ratio:.1} times the work for {expected:.1} times the bytes"
            );
        }
    }
}

/// Sequences that end by themselves (no lone `ESC`), from every form above.
const WHOLE: &[&[u8]] = &[
    b"a",
    b"Z",
    "é".as_bytes(),
    "🙂".as_bytes(),
    b"\r",
    b"\t",
    b"\x7f",
    b"\x03",
    b"\x00",
    b"\x1ba",
    b"\x1b\r",
    b"\x1b\x1b[A",
    b"\x1b[A",
    b"\x1b[1;5A",
    b"\x1bOP",
    b"\x1b[3~",
    b"\x1b[5;2~",
    b"\x1b[Z",
    b"\x1b[13;2u",
    b"\x1b[27u",
    b"\x1b[99;5u",
    b"\x1b[27;2;13~",
    b"\x1b[27;6;65~",
    b"\x1b[<0;10;5M",
    b"\x1b[<64;3;4M",
    b"\x1b[<0;1;1m",
    b"\x1b[200~pasted \x1b text\x1b[201~",
    b"\x1b[I",
    b"\x1b[O",
    b"\x1b[?62;22c",
    b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\",
    b"\x1b[999~",
    b"\x1b[M !!",
    b"\xff",
];

#[test]
fn bytes_split_at_every_point_give_the_same_events() {
    let all: Vec<u8> = WHOLE.concat();
    let whole = decode(&all);
    assert!(whole.len() >= WHOLE.len() - 4, "{whole:?}");
    for at in 0..=all.len() {
        assert_eq!(decode_in(&[&all[..at], &all[at..]]), whole, "split at {at}");
    }
    let byte_by_byte: Vec<&[u8]> = all.chunks(1).collect();
    assert_eq!(decode_in(&byte_by_byte), whole);
}

proptest! {
    #[test]
    fn any_split_of_any_sequence_of_keys_gives_the_same_events(
        picks in prop::collection::vec(0..WHOLE.len(), 0..24),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let bytes: Vec<u8> = picks.iter().flat_map(|&i| WHOLE[i].iter().copied()).collect();
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut reads = Vec::new();
        let mut from = 0;
        for point in points {
            reads.push(&bytes[from..point]);
            from = point;
        }
        reads.push(&bytes[from..]);
        prop_assert_eq!(decode_in(&reads), decode(&bytes));
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        bytes in prop::collection::vec(
            prop_oneof![any::<u8>(), prop::sample::select(b"\x1b[]O;:<?~uMm0123456789\x07\\".to_vec())],
            0..200,
        ),
        cut in any::<prop::sample::Index>(),
    ) {
        let at = cut.index(bytes.len() + 1);
        let split = decode_in(&[&bytes[..at], &bytes[at..]]);
        prop_assert_eq!(split, decode(&bytes));
    }
}
