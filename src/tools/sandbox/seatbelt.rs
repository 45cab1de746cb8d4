//! The macOS sandbox for `execute` (issue 41): a Seatbelt profile made for each command,
//! run as `/usr/bin/sandbox-exec -p PROFILE -DNAME=PATH… bash -c COMMAND`, as Codex does.
//! The same promises as Landlock's on Linux (`rules.rs`): everything readable but the
//! user's secrets, the unreadable paths (elelem's data directory, `paths.deny`) and the
//! terminals; writes only in the writable places (the project, the temp directories, the
//! settings' writable directories) and not in the protected paths (`PROTECTED`, the
//! settings folders of `SETTINGS_DIRS`) nor the unreadable ones; no network unless it is
//! allowed; signals only inside the sandbox.
//!
//! `profile` is pure (`Places` in, the text and its parameters out) and snapshot-tested on
//! every system; `places` gathers them for a command (home, temp directories, protected
//! paths of its working directory), reading the file system. Paths never enter the text:
//! each is a parameter (`(param "W0")`, given as `-DW0=/path`), so no path can change the
//! profile's meaning. Seatbelt matches paths as written at each call, so the protected
//! paths need not exist (one made later is refused as well) and the directories on the way
//! to them are kept from being renamed or removed (a rename would carry a protected path
//! out of its name: `pinned`). Rules are written so their order does not matter: each
//! `allow` says what it leaves out (`require-not`).

use super::{Mode, SETTINGS_DIRS};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The program that applies a profile to the command it starts.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// What one command's profile is made of; every path absolute and resolved (Seatbelt sees
/// real paths: `/private/tmp`, not `/tmp`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Places {
    /// Writes are granted here (workspace-write only).
    pub writable: Vec<PathBuf>,
    /// Neither read nor written.
    pub unreadable: Vec<PathBuf>,
    /// Read, never written (nor made, when missing).
    pub protected: Vec<PathBuf>,
}

/// A profile: its text, and the parameters it names (`-DNAME=PATH` for `sandbox-exec`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    pub text: String,
    pub params: Vec<(String, PathBuf)>,
}

impl Profile {
    /// `sandbox-exec`'s arguments before the program: `-p TEXT` and one `-D` per parameter.
    pub fn args(&self) -> Vec<std::ffi::OsString> {
        let mut args = vec!["-p".into(), self.text.clone().into()];
        for (name, path) in &self.params {
            let mut arg = std::ffi::OsString::from(format!("-D{name}="));
            arg.push(path.as_os_str());
            args.push(arg);
        }
        args
    }
}

/// What every command may do whatever the mode: run programs, fork, signal and inspect its
/// own processes, read the system's settings, talk to the few system services a program's
/// start needs (user and group lookups, logging, notifications), use POSIX shared memory
/// and semaphores, and write the harmless devices.
const BASE: &str = r#"(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow ipc-posix-sem)
(allow ipc-posix-shm)
(allow mach-lookup
    (global-name "com.apple.system.opendirectoryd.libinfo")
    (global-name "com.apple.system.notification_center")
    (global-name "com.apple.system.logger")
    (global-name "com.apple.logd")
    (global-name "com.apple.coreservices.launchservicesd"))
(allow file-read* file-write-data file-ioctl
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/random")
    (literal "/dev/urandom")
    (literal "/dev/dtracehelper"))
(allow file-read* file-write-data (regex #"^/dev/fd/[0-9]+$"))
"#;

/// With the network allowed: any connection, and the services that resolve names and
/// check certificates.
const NETWORK: &str = r#"(allow network-outbound)
(allow network-inbound)
(allow network-bind)
(allow system-socket)
(allow mach-lookup
    (global-name "com.apple.dnssd.service")
    (global-name "com.apple.SystemConfiguration.configd")
    (global-name "com.apple.trustd.agent")
    (global-name "com.apple.networkd"))
"#;

/// The user's terminals (`/dev/tty`, `/dev/ttys…`) and the pseudo-terminal master: reading
/// one would take what the user types (a job's own terminal is given to it already open).
const TERMINALS: &str = r#"(regex #"^/dev/tty") (literal "/dev/ptmx")"#;

/// The profile for a command in `mode` (never `Off`: nothing is sandboxed then; it reads
/// as read-only), the network allowed or not, with `places`.
pub fn profile(mode: Mode, network: bool, places: &Places) -> Profile {
    let mut params: Vec<(String, PathBuf)> = Vec::new();
    let mut param = |prefix: char, path: &Path| {
        let name = format!("{prefix}{}", params.iter().filter(|(n, _)| n.starts_with(prefix)).count());
        params.push((name.clone(), path.to_path_buf()));
        name
    };
    let unreadable: Vec<String> = places.unreadable.iter().map(|p| param('U', p)).collect();
    let mut text = String::from(BASE);
    text.push_str("; everything readable but the secrets, the unreadable paths and the terminals\n");
    text.push_str("(allow file-read*\n    (require-all\n        (subpath \"/\")\n");
    for name in &unreadable {
        let _ = writeln!(text, "        (require-not (subpath (param \"{name}\")))");
    }
    let _ = writeln!(text, "        (require-not (require-any {TERMINALS}))))");
    if mode == Mode::WorkspaceWrite && !places.writable.is_empty() {
        let writable: Vec<String> = places.writable.iter().map(|p| param('W', p)).collect();
        let protected: Vec<String> = places.protected.iter().map(|p| param('P', p)).collect();
        let pinned: Vec<String> = pinned(places).iter().map(|p| param('A', p)).collect();
        text.push_str("; writes in the writable places, but not in the protected or unreadable paths, nor\n");
        text.push_str("; renaming a directory on the way to a protected path\n");
        text.push_str("(allow file-write*\n    (require-all\n        (require-any");
        for name in &writable {
            let _ = write!(text, "\n            (subpath (param \"{name}\"))");
        }
        text.push(')');
        for name in unreadable.iter().chain(&protected) {
            let _ = write!(text, "\n        (require-not (subpath (param \"{name}\")))");
        }
        for name in &pinned {
            let _ = write!(text, "\n        (require-not (literal (param \"{name}\")))");
        }
        text.push_str("))\n");
    }
    if network {
        text.push_str("; the network, allowed\n");
        text.push_str(NETWORK);
    }
    Profile { text, params }
}

/// The directories on the way to a protected path that a command could rename or remove
/// (they lie in a writable place, up to and including it): renaming `.git` would carry its
/// `hooks/` out from under the protected name.
fn pinned(places: &Places) -> Vec<PathBuf> {
    let mut pinned: Vec<PathBuf> = Vec::new();
    for path in &places.protected {
        for dir in path.ancestors().skip(1) {
            if places.writable.iter().any(|w| dir.starts_with(w)) && !pinned.iter().any(|p| p == dir) {
                pinned.push(dir.to_path_buf());
            }
        }
    }
    pinned
}

/// The places for a command run in `dir` of `project` (both resolved) under the settings
/// in force: the unreadable paths as Linux's rule set has them (`secrets.rs`), the writable
/// roots (`rules::writable_roots`), the protected paths of `dir` (`seals::protected`) and
/// the user's settings folders.
pub fn places(settings: &super::Settings, project: &Path, dir: &Path) -> Places {
    let home = super::secrets::home();
    let (unreadable, _) = super::secrets::unreadable(home.as_deref(), &settings.unreadable);
    let mut protected = super::seals::protected(project, dir);
    if let Some(home) = &home {
        protected.extend(SETTINGS_DIRS.iter().map(|d| super::secrets::resolve(&home.join(d))));
    }
    let mut writable = super::rules::writable_roots(project, settings);
    writable.dedup();
    Places { writable, unreadable, protected }
}

/// Whether `sandbox-exec` is there to use.
pub fn available() -> bool {
    Path::new(SANDBOX_EXEC).is_file()
}

#[cfg(test)]
mod tests {
    use super::super::PROTECTED;
    use super::*;

    fn places() -> Places {
        let project = PathBuf::from("/Users/me/src/app");
        let protected = PROTECTED
            .iter()
            .map(|p| project.join(p))
            .chain(SETTINGS_DIRS.iter().map(|d| Path::new("/Users/me").join(d)))
            .collect();
        Places {
            writable: vec![
                project.clone(),
                PathBuf::from("/private/tmp"),
                PathBuf::from("/private/var/folders/xy/T/elelem-sandbox-42"),
            ],
            unreadable: vec![
                PathBuf::from("/Users/me/.ssh"),
                PathBuf::from("/Users/me/.aws"),
                PathBuf::from("/Users/me/Library/Application Support/elelem"),
            ],
            protected,
        }
    }

    /// The profile and its parameters as one text, for a snapshot.
    fn shown(profile: &Profile) -> String {
        let mut text = profile.text.clone();
        text.push_str(";; parameters\n");
        for (name, path) in &profile.params {
            let _ = writeln!(text, ";; {name} = {}", path.display());
        }
        text
    }

    #[test]
    fn workspace_write_without_network() {
        insta::assert_snapshot!(shown(&profile(Mode::WorkspaceWrite, false, &places())));
    }

    #[test]
    fn workspace_write_with_network() {
        insta::assert_snapshot!(shown(&profile(Mode::WorkspaceWrite, true, &places())));
    }

    #[test]
    fn read_only_without_network() {
        insta::assert_snapshot!(shown(&profile(Mode::ReadOnly, false, &places())));
    }

    #[test]
    fn read_only_with_network() {
        insta::assert_snapshot!(shown(&profile(Mode::ReadOnly, true, &places())));
    }

    #[test]
    fn paths_are_parameters_never_text() {
        let mut hostile = places();
        hostile.writable.push(PathBuf::from("/tmp/x\")) (allow default) (\""));
        hostile.unreadable.push(PathBuf::from("/Users/me/\n(allow default)"));
        let profile = profile(Mode::WorkspaceWrite, false, &hostile);
        assert!(!profile.text.contains("allow default"), "{}", profile.text);
        assert!(!profile.text.contains("/Users"), "{}", profile.text);
        let args = profile.args();
        assert_eq!(args[0], "-p");
        assert!(args.iter().any(|a| a == "-DW3=/tmp/x\")) (allow default) (\""), "{args:?}");
    }

    #[test]
    fn every_protected_path_and_each_directory_on_its_way_is_kept() {
        let profile = profile(Mode::WorkspaceWrite, false, &places());
        let named = |path: &str| profile.params.iter().filter(|(_, p)| p == Path::new(path)).count();
        for name in PROTECTED {
            assert_eq!(named(&format!("/Users/me/src/app/{name}")), 1, "{name}");
        }
        // `.git` and the project itself may not be renamed away; `.git/objects` neither
        // (it holds `info/alternates`). Nothing outside the writable places is listed.
        for dir in ["/Users/me/src/app/.git", "/Users/me/src/app/.git/objects", "/Users/me/src/app"] {
            assert!(profile.params.iter().any(|(n, p)| n.starts_with('A') && p == Path::new(dir)), "{dir}");
        }
        assert!(!profile.params.iter().any(|(n, p)| n.starts_with('A') && p == Path::new("/Users/me")));
    }

    #[test]
    fn read_only_grants_no_write_but_the_devices() {
        let profile = profile(Mode::ReadOnly, false, &places());
        assert!(!profile.text.contains("(allow file-write*"), "{}", profile.text);
        assert!(!profile.text.contains("network"), "{}", profile.text);
        assert!(profile.params.iter().all(|(n, _)| n.starts_with('U')));
    }
}
