//! Terminal setup and, above all, restoring it: raw mode, the alternate screen, bracketed
//! paste, focus reporting, mouse capture and keyboard-enhancement flags are undone on every exit path —
//! normal quit, error (the guard's `Drop`), panic (the hook restores first, then prints),
//! and SIGTERM/SIGHUP (the event loop quits, then the guard drops).

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste, EnableFocusChange,
    EnableMouseCapture, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static ACTIVE: AtomicBool = AtomicBool::new(false);

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
        execute!(out, EnableMouseCapture)?;
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
    let _ = if on { execute!(out, EnableMouseCapture) } else { execute!(out, DisableMouseCapture) };
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
        if crate::agent::caught::panic_is_caught() {
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
