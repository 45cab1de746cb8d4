//! The terminal's clipboard: OSC 52 carries text to the system clipboard through the
//! terminal itself, so it works over SSH and in tmux (with `set-clipboard` on). Under tmux,
//! which may not pass OSC 52 on, `tmux_load_buffer` also puts the text in tmux's own paste
//! buffer.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Bytes handed to `tmux load-buffer` at most.
pub const TMUX_CAP: usize = 4 << 20;
/// How long `tmux load-buffer` may take before it is killed.
const TMUX_WAIT: Duration = Duration::from_secs(2);

/// Whether elelem runs inside tmux (`$TMUX` set and not empty).
pub fn in_tmux() -> bool {
    std::env::var_os("TMUX").is_some_and(|v| !v.is_empty())
}

/// Runs `tmux load-buffer -` (found on `PATH`, no shell) with `text` on its stdin, cut at
/// `TMUX_CAP` bytes on a character boundary; waits at most `TMUX_WAIT`. The error says why
/// it did not work, in a few words.
pub fn tmux_load_buffer(text: &str) -> Result<(), String> {
    let mut end = text.len().min(TMUX_CAP);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut child = Command::new("tmux")
        .args(["load-buffer", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("could not run tmux: {e}"))?;
    let stdin = child.stdin.take();
    let body = text.as_bytes()[..end].to_vec();
    // Written on a thread of its own: a tmux that does not read must not hold us past the wait.
    let writer = std::thread::spawn(move || stdin.map(|mut input| input.write_all(&body)));
    let deadline = Instant::now() + TMUX_WAIT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("tmux load-buffer did not finish in 2 s".into());
            }
            Err(e) => return Err(format!("tmux load-buffer: {e}")),
        }
    };
    let _ = writer.join();
    if status.success() {
        Ok(())
    } else {
        Err(format!("tmux load-buffer failed ({status})"))
    }
}

/// The OSC 52 sequence that puts `text` on the system clipboard.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64("héllo\n".as_bytes()), "aMOpbGxvCg==");
    }

    #[test]
    fn osc52_wraps_the_text_for_the_clipboard() {
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
    }
}
