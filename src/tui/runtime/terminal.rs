//! Terminal setup and, above all, restoring it: raw mode, the alternate screen, bracketed
//! paste, focus reporting, mouse capture and keyboard-enhancement flags are undone on every exit path —
//! normal quit, error (the guard's `Drop`), panic (the hook restores first, then prints),
//! and SIGTERM/SIGHUP/SIGQUIT (the event loop quits, then the guard drops). `FrameWriter` makes a
//! frame one write. The lock a frame is written under (`WriteLock`) is a value the guard
//! owns: the frame writer gets a handle to it, and the panic hook gets one from the guard
//! that installs it, so nothing here is a global lock.

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste, EnableFocusChange,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::{ReentrantMutex, ReentrantMutexGuard};

static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The full-screen terminal: frames are written through one buffer and flushed once, so a
/// frame is one `write`.
pub type Term = ratatui::Terminal<ratatui::backend::CrosstermBackend<FrameWriter<std::io::Stdout>>>;

/// The terminal's output: buffered, and while its flushes are held (`hold_flushes`), the
/// flush ratatui does at the end of its draw is put off, so a frame and the
/// synchronized-update markers around it go out in one write (not two: half the syscalls,
/// and one wake of the terminal per frame).
pub struct FrameWriter<W: Write> {
    out: std::io::BufWriter<W>,
    held: bool,
    /// What a frame holds while it is written (the guard's).
    lock: WriteLock,
}

impl<W: Write> FrameWriter<W> {
    /// A writer of frames to `out`, each written under `lock` (`TerminalGuard::write_lock`).
    pub fn new(out: W, lock: WriteLock) -> Self {
        FrameWriter { out: std::io::BufWriter::with_capacity(1 << 16, out), held: false, lock }
    }

    /// The lock to hold for the length of one frame (a handle: hold it with `WriteLock::hold`).
    pub fn write_lock(&self) -> WriteLock {
        self.lock.clone()
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

    /// The Windows console reports the mouse as its own events, once its input mode asks
    /// for them: crossterm's own mouse capture, never the escape sequences.
    #[cfg(windows)]
    fn execute_winapi(&self) -> std::io::Result<()> {
        crossterm::event::EnableMouseCapture.execute_winapi()
    }

    #[cfg(windows)]
    fn is_ansi_code_supported(&self) -> bool {
        false
    }
}

/// The input modes the app asks for (`InputModes(true)`): bracketed paste, focus reporting
/// and the keyboard enhancement that tells Esc and Alt keys apart, in that order;
/// `InputModes(false)` undoes them in the reverse order. On Windows none: the console
/// reports keys, pastes and focus as its own events (and crossterm's Windows API refuses
/// bracketed paste and keyboard enhancement).
struct InputModes(bool);

impl crossterm::Command for InputModes {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        if self.0 {
            EnableBracketedPaste.write_ansi(f)?;
            EnableFocusChange.write_ansi(f)?;
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES).write_ansi(f)
        } else {
            PopKeyboardEnhancementFlags.write_ansi(f)?;
            DisableFocusChange.write_ansi(f)?;
            DisableBracketedPaste.write_ansi(f)
        }
    }

    #[cfg(windows)]
    fn execute_winapi(&self) -> std::io::Result<()> {
        Ok(())
    }

    #[cfg(windows)]
    fn is_ansi_code_supported(&self) -> bool {
        false
    }
}

/// Held while a frame is written, and by the panic hook while it restores the terminal: a
/// frame the UI thread is writing cannot land after the restore (re-entrant, so a panic
/// inside a frame on the UI thread itself does not wait for itself). Cloning shares the lock.
#[derive(Clone, Default)]
pub struct WriteLock(Arc<ReentrantMutex<()>>);

impl WriteLock {
    /// Taken for the length of one frame.
    pub fn hold(&self) -> ReentrantMutexGuard<'_, ()> {
        self.0.lock()
    }
}

/// Restores the terminal when dropped; owns the lock frames are written under.
pub struct TerminalGuard {
    writing: WriteLock,
}

impl TerminalGuard {
    pub fn enter(mouse: bool) -> std::io::Result<TerminalGuard> {
        enter_modes(mouse)?;
        Ok(TerminalGuard { writing: WriteLock::default() })
    }

    /// The lock frames are written under, for the `FrameWriter`.
    pub fn write_lock(&self) -> WriteLock {
        self.writing.clone()
    }

    /// A panic hook that restores the terminal before the panic is printed, once a frame
    /// being written under this guard's lock is done. Panics a tool catches (they become
    /// tool results, on whichever thread the tool runs) or the highlighter catches (the code
    /// is shown plain) leave the terminal alone. Any other panic, on any thread, ends the
    /// app: a UI whose agent task or helper thread died would only pretend to work.
    pub fn install_panic_hook(&self) {
        let writing = self.write_lock();
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if crate::panics::panic_is_caught() {
                return;
            }
            // Let a frame being written finish first (bounded: a stuck terminal must not keep
            // the app from exiting).
            let _writing = writing.0.try_lock_for(std::time::Duration::from_millis(500));
            restore();
            previous(info);
            crate::startup::shutdown();
            // Another thread may have drawn a frame since: undo the modes once more.
            undo_modes();
            std::process::exit(101);
        }));
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
    execute!(out, EnterAlternateScreen, InputModes(true), cursor::Hide)?;
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

/// Whether the app owns the terminal (not yet restored); frames are drawn only then.
pub fn active() -> bool {
    ACTIVE.load(Ordering::SeqCst)
}

fn undo_modes() {
    let mut out = std::io::stdout();
    let _ = execute!(out, DisableMouseCapture, InputModes(false), LeaveAlternateScreen, cursor::Show);
    let _ = disable_raw_mode();
    let _ = out.flush();
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
        let mut out = FrameWriter::new(Writes::default(), WriteLock::default());
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

    /// A frame held through the writer's handle holds the lock the guard (and so the panic
    /// hook) has: another thread cannot take it meanwhile.
    #[test]
    fn a_frame_held_through_the_writer_holds_the_guards_lock() {
        let guards = WriteLock::default();
        let out = FrameWriter::new(Writes::default(), guards.clone());
        let handle = out.write_lock();
        let frame = handle.hold();
        let other = guards.clone();
        let try_take = move || other.0.try_lock_for(std::time::Duration::from_millis(20)).is_some();
        assert!(!std::thread::spawn(try_take.clone()).join().unwrap(), "taken during the frame");
        drop(frame);
        assert!(std::thread::spawn(try_take).join().unwrap(), "free after the frame");
    }
}
