//! Terminal setup and, above all, restoring it: raw mode, the alternate screen, bracketed
//! paste, focus reporting, mouse capture and keyboard-enhancement flags are undone on every exit path —
//! normal quit, error (the guard's `Drop`), panic (the hook restores first, then prints),
//! and SIGTERM/SIGHUP/SIGQUIT (the event loop quits, then the guard drops). `FrameWriter` makes a
//! frame one write.

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste, EnableFocusChange,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The terminal's output: buffered, and while its flushes are held (`hold_flushes`), the
/// flush ratatui does at the end of its draw is put off, so a frame and the
/// synchronized-update markers around it go out in one write (not two: half the syscalls,
/// and one wake of the terminal per frame).
pub struct FrameWriter<W: Write> {
    out: std::io::BufWriter<W>,
    held: bool,
}

impl<W: Write> FrameWriter<W> {
    pub fn new(out: W) -> Self {
        FrameWriter { out: std::io::BufWriter::with_capacity(1 << 16, out), held: false }
    }

    /// Holds (`true`) or again lets through (`false`) this writer's flushes.
    pub fn hold_flushes(&mut self, held: bool) {
        self.held = held;
    }
}

impl<W: Write> Write for FrameWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.out.write(bytes)
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.held {
            return Ok(());
        }
        self.out.flush()
    }
}

/// Mouse capture of what the app uses: clicks, the wheel and drags with a button down
/// (`?1000h`, `?1002h`, in SGR encoding `?1006h`) for the conversation's own selection, and
/// nothing more: no all-motion reporting (`?1003h`, which crossterm's `EnableMouseCapture`
/// turns on), and the terminal's own selection still works with Shift-drag.
/// `DisableMouseCapture` undoes it (it turns every mode off).
pub struct CaptureMouse;

/// The sequence `CaptureMouse` writes.
pub const CAPTURE_MOUSE: &str = "\x1b[?1000h\x1b[?1002h\x1b[?1006h";

impl crossterm::Command for CaptureMouse {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str(CAPTURE_MOUSE)
    }
}

/// Restores the terminal when dropped.
pub struct TerminalGuard;

impl TerminalGuard {
    pub fn enter(mouse: bool) -> std::io::Result<TerminalGuard> {
        enter_modes(mouse)?;
        Ok(TerminalGuard)
    }
}

/// Gives the terminal back for a while (the user's editor runs): every mode undone, frames
/// not drawn until `resume`.
pub fn suspend() {
    restore();
}

/// Takes the terminal again after `suspend`.
pub fn resume(mouse: bool) -> std::io::Result<()> {
    enter_modes(mouse)
}

fn enter_modes(mouse: bool) -> std::io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = std::io::stdout();
    execute!(
        out,
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableFocusChange,
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES),
        cursor::Hide
    )?;
    if mouse {
        execute!(out, CaptureMouse)?;
    }
    Ok(())
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

pub fn set_mouse(on: bool) {
    let mut out = std::io::stdout();
    let _ = if on { execute!(out, CaptureMouse) } else { execute!(out, DisableMouseCapture) };
}

/// Puts the terminal back the way it was; safe to call more than once.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    undo_modes();
}

/// Held while a frame is written, and by the panic hook while it restores the terminal: a
/// frame the UI thread is writing cannot land after the restore (re-entrant, so a panic
/// inside a frame on the UI thread itself does not wait for itself).
static WRITING: parking_lot::ReentrantMutex<()> = parking_lot::const_reentrant_mutex(());

/// Taken for the length of one frame.
pub fn frame_guard() -> parking_lot::ReentrantMutexGuard<'static, ()> {
    WRITING.lock()
}

/// Whether the app owns the terminal (not yet restored); frames are drawn only then.
pub fn active() -> bool {
    ACTIVE.load(Ordering::SeqCst)
}

fn undo_modes() {
    let mut out = std::io::stdout();
    let _ = execute!(
        out,
        DisableMouseCapture,
        PopKeyboardEnhancementFlags,
        DisableFocusChange,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
    let _ = out.flush();
}

/// A panic hook that restores the terminal before the panic is printed. Panics a tool
/// catches (they become tool results, on whichever thread the tool runs) or the
/// highlighter catches (the code is shown plain) leave the terminal alone. Any other
/// panic, on any thread, ends the app: a UI whose agent task or helper thread died would
/// only pretend to work.
pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if crate::panics::panic_is_caught() {
            return;
        }
        // Let a frame being written finish first (bounded: a stuck terminal must not keep
        // the app from exiting).
        let _writing = WRITING.try_lock_for(std::time::Duration::from_millis(500));
        restore();
        previous(info);
        crate::startup::shutdown();
        // Another thread may have drawn a frame since: undo the modes once more.
        undo_modes();
        std::process::exit(101);
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that records each write it gets.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl Write for Writes {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.push(bytes.to_vec());
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_held_flush_waits_for_the_frames_end_and_the_frame_is_one_write() {
        let mut out = FrameWriter::new(Writes::default());
        out.write_all(b"begin ").unwrap();
        out.hold_flushes(true);
        out.write_all(b"cells ").unwrap();
        out.flush().unwrap();
        out.hold_flushes(false);
        assert!(out.out.get_ref().0.is_empty(), "flushed inside the frame");
        out.write_all(b"end").unwrap();
        out.flush().unwrap();
        assert_eq!(out.out.get_ref().0, [b"begin cells end".to_vec()]);
    }
}
