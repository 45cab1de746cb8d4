//! Secret-bearing environment variables: which ones `execute` removes from the
//! environment of the processes it starts, and whose values the redaction hook hides.
//!
//! A variable is secret when its name looks like a credential (it contains `SECRET`,
//! `PASSWORD`, `PASSWD` or `CREDENTIAL`, or ends in `_KEY`, `_TOKEN` or `_APIKEY`; the
//! provider keys `ANTHROPIC_API_KEY` and `OPENAI_API_KEY` are among them) or is named in
//! `ELELEM_EXECUTE_SCRUB_ENV`. `ELELEM_EXECUTE_KEEP_ENV` lets named variables through to
//! tool processes; their values are still redacted from tool results.
//!
//! A contained command also loses the variables that lead to a socket of the user's session
//! (`SOCKET_VARS`, issue 37): through them a command that runs without approval would reach
//! code outside the sandbox (`tmux run-shell`, `screen -X stuff`, an editor's or window
//! manager's remote control, `systemd-run --user` on the session bus), sign with the user's
//! keys (`SSH_AUTH_SOCK`) or run containers (`DOCKER_HOST`). `DISPLAY` and
//! `WAYLAND_DISPLAY` go too: an X client may read the clipboard and type into the user's
//! terminal window, and a contained command has no business opening windows. The keep list
//! lets one through. A command outside the sandbox (`!command`, an approved
//! `"sandbox": false`) keeps them all.
//!
//! A child could still read the keys from elelem itself: `/proc/<elelem>/environ` shows
//! the environment block elelem started with, whatever it removes or sets later.
//! `scrub_initial_environ` gives each secret variable a copy of its own and overwrites its
//! value in that block (what works even for root, whom nothing else stops), and
//! `protect_process` makes elelem not dumpable, so its `/proc` files belong to root and its
//! memory cannot be read by other processes of the same user (its children included).

use std::ffi::OsString;
#[cfg(unix)]
use std::os::unix::ffi::OsStrExt;

/// Names (comma-separated) removed from tool processes besides the ones that look secret.
pub const SCRUB_VAR: &str = "ELELEM_EXECUTE_SCRUB_ENV";
/// Names (comma-separated) passed to tool processes even though they look secret.
pub const KEEP_VAR: &str = "ELELEM_EXECUTE_KEEP_ENV";

/// Parts of a name that mark a credential, anywhere in it (upper case).
const SECRET_WORDS: &[&str] = &["SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"];
/// Endings of a name that mark a credential (upper case); `_KEY` covers `*_API_KEY`.
const SECRET_ENDINGS: &[&str] = &["_KEY", "_TOKEN", "_APIKEY"];

/// Variables that name a socket (or a server behind one) of the user's session: terminal
/// multiplexers and emulators, agents, container engines, the session bus, display servers,
/// editors and window managers with a remote control, sound servers.
pub const SOCKET_VARS: &[&str] = &[
    "TMUX",
    "TMUX_PANE",
    "STY",
    "ZELLIJ",
    "ZELLIJ_SESSION_NAME",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "DOCKER_HOST",
    "CONTAINER_HOST",
    "DBUS_SESSION_BUS_ADDRESS",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "KITTY_LISTEN_ON",
    "WEZTERM_UNIX_SOCKET",
    "ALACRITTY_SOCKET",
    "NVIM",
    "NVIM_LISTEN_ADDRESS",
    "EMACS_SOCKET_NAME",
    "VSCODE_IPC_HOOK",
    "VSCODE_IPC_HOOK_CLI",
    "VSCODE_GIT_IPC_HANDLE",
    "SWAYSOCK",
    "I3SOCK",
    "NIRI_SOCKET",
    "HYPRLAND_INSTANCE_SIGNATURE",
    "PULSE_SERVER",
    "PIPEWIRE_REMOTE",
];

/// Which variables are secret, and which of those tool processes may still see.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SecretPolicy {
    scrub: Vec<String>,
    keep: Vec<String>,
}

impl SecretPolicy {
    /// From the two lists (comma-separated names).
    pub fn new(scrub: &str, keep: &str) -> Self {
        let names = |list: &str| list.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect();
        SecretPolicy { scrub: names(scrub), keep: names(keep) }
    }

    /// From `ELELEM_EXECUTE_SCRUB_ENV` and `ELELEM_EXECUTE_KEEP_ENV`.
    pub fn from_env() -> Self {
        let var = |name| std::env::var(name).unwrap_or_default();
        Self::new(&var(SCRUB_VAR), &var(KEEP_VAR))
    }

    /// Whether the variable holds a secret (its name looks like a credential, or it is on
    /// the scrub list).
    pub fn is_secret(&self, name: &str) -> bool {
        let upper = name.to_ascii_uppercase();
        SECRET_WORDS.iter().any(|w| upper.contains(w))
            || SECRET_ENDINGS.iter().any(|e| upper.ends_with(e))
            || matches!(upper.as_str(), "KEY" | "TOKEN" | "APIKEY")
            || self.scrub.iter().any(|n| n == name)
    }

    /// Whether tool processes start without the variable.
    pub fn removes(&self, name: &str) -> bool {
        self.is_secret(name) && !self.keep.iter().any(|n| n == name)
    }

    /// The variables of this process that tool processes must not see.
    pub fn removed_names(&self) -> Vec<OsString> {
        std::env::vars_os()
            .map(|(name, _)| name)
            .filter(|name| name.to_str().is_some_and(|n| self.removes(n)))
            .collect()
    }

    /// Whether a contained command starts without the variable: a secret or a socket's
    /// (`SOCKET_VARS`), not on the keep list.
    pub fn removes_contained(&self, name: &str) -> bool {
        (self.is_secret(name) || SOCKET_VARS.contains(&name)) && !self.keep.iter().any(|n| n == name)
    }

    /// The variables of this process that a contained command must not see.
    pub fn removed_names_contained(&self) -> Vec<OsString> {
        std::env::vars_os()
            .map(|(name, _)| name)
            .filter(|name| name.to_str().is_some_and(|n| self.removes_contained(n)))
            .collect()
    }

    /// The values of this process's secret variables (kept ones too), for redaction.
    pub fn secret_values(&self) -> Vec<String> {
        std::env::vars_os()
            .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
            .filter(|(name, _)| self.is_secret(name))
            .map(|(_, value)| value)
            .collect()
    }
}

/// Values shorter than this are not masked (they would hide ordinary text).
pub const MIN_MASKED_LEN: usize = 8;
/// What a masked value becomes.
pub const MASK: &str = "***";

/// `text` with every value (of `MIN_MASKED_LEN` characters or more) replaced by `MASK`,
/// the longest first so a value holding another is masked whole.
pub fn mask(mut text: String, values: &[String]) -> String {
    let mut values: Vec<&String> = values.iter().filter(|v| v.chars().count() >= MIN_MASKED_LEN).collect();
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    for value in values {
        if text.contains(value.as_str()) {
            text = text.replace(value.as_str(), MASK);
        }
    }
    text
}

/// Overwrites with NUL bytes the value of every secret variable in the environment block
/// the process started with (`/proc/<pid>/environ` reads that memory), after `setenv`
/// gave the variable a copy elsewhere, so `std::env::var` still finds the value. Returns
/// how many values were overwritten. Call it first in `main`, before any thread starts.
#[cfg(unix)]
pub fn scrub_initial_environ() -> usize {
    let Some(block) = initial_env_block() else { return 0 };
    let policy = SecretPolicy::from_env();
    let mut found = Vec::new();
    // SAFETY: `environ` is the NULL-terminated array of NUL-terminated strings libc keeps;
    // no other thread runs yet, so nothing changes it while it is read.
    unsafe {
        let mut entry = environ();
        while !entry.is_null() && !(*entry).is_null() {
            let text = std::ffi::CStr::from_ptr(*entry).to_bytes();
            let at = *entry as usize;
            if let Some(eq) = text.iter().position(|b| *b == b'=') {
                let name = String::from_utf8_lossy(&text[..eq]).into_owned();
                if policy.is_secret(&name) && block.contains(&at) && block.contains(&(at + text.len())) {
                    found.push((
                        *entry,
                        eq,
                        text.len(),
                        std::ffi::OsStr::from_bytes(&text[eq + 1..]).to_os_string(),
                        name,
                    ));
                }
            }
            entry = entry.add(1);
        }
    }
    let mut scrubbed = 0;
    for (entry, eq, len, value, name) in found {
        std::env::set_var(&name, &value);
        // SAFETY: as above; `entry` points at `len` bytes inside the initial block, which
        // libc no longer uses for this variable once setenv replaced it (checked).
        unsafe {
            let Ok(c_name) = std::ffi::CString::new(name) else { continue };
            if libc::getenv(c_name.as_ptr()) == entry.add(eq + 1) {
                continue;
            }
            std::ptr::write_bytes(entry.add(eq + 1), 0, len - eq - 1);
        }
        scrubbed += 1;
    }
    scrubbed
}

/// No `/proc` on Windows, and another process reads elelem's environment block only with
/// the debugging rights: nothing is overwritten.
#[cfg(windows)]
pub fn scrub_initial_environ() -> usize {
    0
}

/// The array of environment strings libc keeps (`environ`).
#[cfg(all(unix, not(target_os = "macos")))]
fn environ() -> *mut *mut libc::c_char {
    // SAFETY: reading the pointer libc keeps; callers read it before any thread starts.
    unsafe { libc::environ }
}

/// The array of environment strings libc keeps (`_NSGetEnviron`: a program's `environ`
/// is not a symbol a library may name on macOS).
#[cfg(target_os = "macos")]
fn environ() -> *mut *mut libc::c_char {
    // SAFETY: _NSGetEnviron returns the address of the process's `environ` pointer.
    unsafe { *libc::_NSGetEnviron() }
}

/// The addresses of the environment block the process started with: where the strings
/// that `environ` points at lie before anything was set. Without `/proc` (macOS) it is
/// read from what elelem itself holds, the span of those strings, which is the initial
/// block as long as nothing set a variable yet (`scrub_initial_environ` runs first in
/// `main`); a string `setenv` made lies elsewhere and is never written.
#[cfg(all(unix, not(target_os = "linux")))]
fn initial_env_block() -> Option<std::ops::Range<usize>> {
    let (mut start, mut end) = (usize::MAX, 0usize);
    // SAFETY: as in `scrub_initial_environ`: the NULL-terminated array libc keeps, read
    // before any thread starts.
    unsafe {
        let mut entry = environ();
        while !entry.is_null() && !(*entry).is_null() {
            let at = *entry as usize;
            start = start.min(at);
            end = end.max(at + std::ffi::CStr::from_ptr(*entry).to_bytes().len());
            entry = entry.add(1);
        }
    }
    (start < end).then_some(start..end + 1)
}

/// The addresses of the environment block the process started with (`env_start` and
/// `env_end` of `/proc/self/stat`).
#[cfg(target_os = "linux")]
fn initial_env_block() -> Option<std::ops::Range<usize>> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 50 and 51 of proc_pid_stat(5); `rest` starts at field 3.
    let start = fields.get(47)?.parse::<usize>().ok()?;
    let end = fields.get(48)?.parse::<usize>().ok()?;
    (start > 0 && start < end).then_some(start..end)
}

/// Makes this process not dumpable (`PR_SET_DUMPABLE` 0): `/proc/<pid>/environ`, `mem`
/// and the like become root's, and no process of the same user may ptrace it. Processes
/// it starts are dumpable again once they exec. Call it first thing in `main`.
#[cfg(target_os = "linux")]
pub fn protect_process() -> std::io::Result<()> {
    // SAFETY: prctl(2) with PR_SET_DUMPABLE only sets a flag of this process.
    let done = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0 as libc::c_ulong, 0, 0, 0) };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Elsewhere (macOS) there is no `/proc`, and a process's memory is another's to read
/// only with the debugging right: nothing to do.
#[cfg(not(target_os = "linux"))]
pub fn protect_process() -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_look_like_credentials_are_secret() {
        let policy = SecretPolicy::default();
        for name in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "client_secret",
            "STRIPE_APIKEY",
            "GOOGLE_APPLICATION_CREDENTIALS",
        ] {
            assert!(policy.is_secret(name), "{name}");
        }
        for name in ["PATH", "HOME", "TERM", "KEYBOARD_LAYOUT", "AWS_ACCESS_KEY_ID", "TOKENIZERS_PARALLELISM"] {
            assert!(!policy.is_secret(name), "{name}");
        }
    }

    #[test]
    fn the_lists_add_secrets_and_let_some_through() {
        let policy = SecretPolicy::new("DATABASE_URL, ", "GITHUB_TOKEN");
        assert!(policy.removes("DATABASE_URL"));
        assert!(policy.is_secret("GITHUB_TOKEN"));
        assert!(!policy.removes("GITHUB_TOKEN"));
        assert!(policy.removes("NPM_TOKEN"));
    }

    #[test]
    fn contained_commands_also_lose_the_sockets_of_the_session() {
        let policy = SecretPolicy::new("", "DOCKER_HOST");
        for name in ["TMUX", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "GITHUB_TOKEN"] {
            assert!(policy.removes_contained(name), "{name}");
        }
        assert!(!policy.removes("TMUX") && !policy.removes("SSH_AUTH_SOCK"), "a command outside keeps them");
        assert!(!policy.removes_contained("DOCKER_HOST"), "the keep list lets one through");
        assert!(!policy.removes_contained("PATH") && !policy.removes_contained("TERM"));
    }

    #[test]
    fn mask_hides_long_values_whole_and_leaves_short_ones() {
        let values = ["abcdefgh".to_string(), "abcdefgh-ijklmnop".to_string(), "short".to_string()];
        assert_eq!(mask("x abcdefgh-ijklmnop y abcdefgh short".into(), &values), "x *** y *** short");
    }
}
