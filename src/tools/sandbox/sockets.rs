//! The Unix sockets of the user's session that a contained command must not reach (issue
//! 37), hidden in its mount namespace: an empty read-only tmpfs over the folders that hold
//! them, `/dev/null` over a socket file. Landlock cannot refuse `connect` to a socket file
//! before ABI 9 (Linux 7.1), and a command that knows where a socket lives needs no
//! variable to find it: tmux's (`tmux run-shell` runs a command outside the sandbox),
//! screen's, the X server's (it types into the user's terminal window), the SSH and GPG
//! agents', the container engines' and everything in the user's runtime directory (session
//! bus, Wayland, sound, rootless Docker or Podman, editors' servers).
//!
//! `Hidden::for_command` lists them in elelem (what exists now, never a folder that holds the
//! project, the working directory, the temp directory or the home); `Hidden::hide` mounts
//! them in the child, system calls only. Without a mount namespace (`contain`) nothing is
//! hidden: the variables are gone (`secret_env`), the sockets are not.

use std::ffi::{CString, OsStr};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// What to hide: folders (under an empty tmpfs) and socket files (under `/dev/null`).
#[derive(Debug, Default, PartialEq)]
pub struct Hidden {
    folders: Vec<CString>,
    files: Vec<CString>,
}

/// Socket files that grant a lot to whoever may connect: the container engines run by root.
const SYSTEM_SOCKETS: &[&str] = &[
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/podman/podman.sock",
    "/run/containerd/containerd.sock",
    "/run/buildkit/buildkitd.sock",
];

/// The folders under `/tmp` (or `$TMUX_TMPDIR`) that hold the sockets of the user's
/// terminal multiplexers and X server.
fn session_folders(uid: u32) -> Vec<PathBuf> {
    let tmux = std::env::var_os("TMUX_TMPDIR").filter(|d| !d.is_empty()).map_or_else(|| "/tmp".into(), PathBuf::from);
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|d| !d.is_empty())
        .map_or_else(|| PathBuf::from(format!("/run/user/{uid}")), PathBuf::from);
    let mut folders = vec![
        runtime,
        PathBuf::from(format!("/run/user/{uid}")),
        tmux.join(format!("tmux-{uid}")),
        PathBuf::from(format!("/tmp/tmux-{uid}")),
        PathBuf::from(format!("/tmp/zellij-{uid}")),
        PathBuf::from("/tmp/.X11-unix"),
        PathBuf::from("/run/screen"),
        PathBuf::from("/var/run/screen"),
    ];
    folders.extend(std::env::var_os("SCREENDIR").filter(|d| !d.is_empty()).map(PathBuf::from));
    folders
}

/// The socket paths named by the variables of `SOCKET_VARS` in `vars`: the absolute paths in
/// their values (`unix://PATH`, `unix:path=PATH,guid=…`, `PATH,PID,N`, `PATH:PID:1`).
fn named_sockets<'a>(vars: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<PathBuf> {
    vars.filter(|(name, _)| super::super::secret_env::SOCKET_VARS.contains(name))
        .flat_map(|(_, value)| value.split([',', ';', ':']))
        .map(|piece| piece.strip_prefix("path=").unwrap_or(piece))
        .filter(|piece| piece.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

impl Hidden {
    /// What to hide from a command run in `dir` of `project`: the socket files named by
    /// `vars` (the variables the command loses), the engines' sockets, the session's
    /// folders; each as it exists now, resolved, and never one that is or holds a place the
    /// command works in (`project`, `dir`, the temp directory, the home).
    pub fn for_command(project: &Path, dir: &Path, vars: &[(String, String)]) -> io::Result<Hidden> {
        // SAFETY: getuid only returns a number.
        let uid = unsafe { libc::getuid() };
        let named = named_sockets(vars.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        let work: Vec<PathBuf> = [Some(project.to_path_buf()), Some(dir.to_path_buf()), Some(std::env::temp_dir())]
            .into_iter()
            .chain([std::env::var_os("HOME").map(PathBuf::from)])
            .flatten()
            .map(|p| p.canonicalize().unwrap_or(p))
            .collect();
        let usable = |path: &Path| !work.iter().any(|w| w.starts_with(path));
        let mut hidden = Hidden::default();
        let mut folders: Vec<PathBuf> = Vec::new();
        for folder in session_folders(uid) {
            let Ok(folder) = folder.canonicalize() else { continue };
            if folder.is_dir() && usable(&folder) && !folders.contains(&folder) {
                folders.push(folder);
            }
        }
        let mut files: Vec<PathBuf> = Vec::new();
        for socket in named.into_iter().chain(SYSTEM_SOCKETS.iter().map(PathBuf::from)) {
            let Ok(socket) = socket.canonicalize() else { continue };
            let is_socket = std::fs::symlink_metadata(&socket).is_ok_and(|m| m.file_type().is_socket());
            if is_socket && !folders.iter().any(|f| socket.starts_with(f)) && !files.contains(&socket) {
                files.push(socket);
            }
        }
        hidden.folders = folders.iter().map(|p| c_path(p)).collect::<io::Result<_>>()?;
        hidden.files = files.iter().map(|p| c_path(p)).collect::<io::Result<_>>()?;
        Ok(hidden)
    }

    /// In the child, in its own mount namespace, before Landlock: the mounts. A path gone
    /// since `for_command` is skipped.
    pub fn hide(&self) -> io::Result<()> {
        for folder in &self.folders {
            skip_gone(empty_tmpfs_onto(folder))?;
        }
        for file in &self.files {
            skip_gone(dev_null_onto(file))?;
        }
        Ok(())
    }
}

fn skip_gone(result: io::Result<()>) -> io::Result<()> {
    match result {
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(()),
        other => other,
    }
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(OsStr::as_bytes(path.as_os_str())).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

const FSOPEN_CLOEXEC: libc::c_uint = 1;
const FSCONFIG_SET_STRING: libc::c_uint = 1;
const FSCONFIG_CMD_CREATE: libc::c_uint = 6;
const FSMOUNT_CLOEXEC: libc::c_uint = 1;
const MOUNT_ATTR_RDONLY: libc::c_uint = 0x1;
const MOUNT_ATTR_NOSUID: libc::c_uint = 0x2;
const MOUNT_ATTR_NODEV: libc::c_uint = 0x4;
const MOUNT_ATTR_NOEXEC: libc::c_uint = 0x8;
const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;

/// The result of a system call that returns a descriptor (closed when dropped).
struct Fd(libc::c_int);

impl Fd {
    fn new(result: libc::c_long) -> io::Result<Fd> {
        if result < 0 {
            return Err(io::Error::last_os_error());
        }
        libc::c_int::try_from(result).map(Fd).map_err(|_| io::Error::from(io::ErrorKind::InvalidData))
    }
}

impl Drop for Fd {
    fn drop(&mut self) {
        // SAFETY: closes a descriptor this struct owns.
        unsafe {
            libc::close(self.0);
        }
    }
}

/// Mounts an empty, read-only tmpfs onto the folder `path` (the final component is not
/// followed if it is a link). System calls only.
fn empty_tmpfs_onto(path: &CString) -> io::Result<()> {
    // SAFETY: the calls read NUL-terminated strings that outlive them; the descriptors are
    // closed on every path.
    unsafe {
        let fs = Fd::new(libc::syscall(libc::SYS_fsopen, c"tmpfs".as_ptr(), FSOPEN_CLOEXEC))?;
        let mode = libc::syscall(libc::SYS_fsconfig, fs.0, FSCONFIG_SET_STRING, c"mode".as_ptr(), c"0".as_ptr(), 0);
        if mode != 0 {
            return Err(io::Error::last_os_error());
        }
        let size = libc::syscall(libc::SYS_fsconfig, fs.0, FSCONFIG_SET_STRING, c"size".as_ptr(), c"4k".as_ptr(), 0);
        if size != 0 || libc::syscall(libc::SYS_fsconfig, fs.0, FSCONFIG_CMD_CREATE, 0usize, 0usize, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        let attributes = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
        let mount = Fd::new(libc::syscall(libc::SYS_fsmount, fs.0, FSMOUNT_CLOEXEC, attributes))?;
        move_onto(&mount, path)
    }
}

/// Mounts a copy of `/dev/null` onto the socket file `path`: a `connect` to it is refused.
fn dev_null_onto(path: &CString) -> io::Result<()> {
    let flags = OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint;
    // SAFETY: open_tree reads a NUL-terminated string; the descriptor is closed on drop.
    let null = Fd::new(unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, c"/dev/null".as_ptr(), flags) })?;
    move_onto(&null, path)
}

fn move_onto(mount: &Fd, path: &CString) -> io::Result<()> {
    // SAFETY: move_mount reads NUL-terminated strings that outlive it.
    let moved = unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            mount.0,
            c"".as_ptr(),
            libc::AT_FDCWD,
            path.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    };
    if moved != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Abstract names (`abstract=`, `@`) are no paths: Landlock scopes those.
    #[test]
    fn the_variables_name_their_sockets_in_every_spelling() {
        let vars = [
            ("TMUX", "/tmp/tmux-1000/default,4242,0"),
            ("SSH_AUTH_SOCK", "/tmp/ssh-XYZ/agent.77"),
            ("DOCKER_HOST", "unix:///run/user/1000/docker.sock"),
            ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus,guid=abc;unix:abstract=/tmp/dbus-1"),
            ("GPG_AGENT_INFO", "/run/user/1000/gnupg/S.gpg-agent:0:1"),
            ("KITTY_LISTEN_ON", "unix:@kitty"),
            ("DISPLAY", ":0"),
            ("PATH", "/usr/bin:/bin"),
        ];
        let named = named_sockets(vars.into_iter());
        let want: Vec<PathBuf> = [
            "/tmp/tmux-1000/default",
            "/tmp/ssh-XYZ/agent.77",
            "///run/user/1000/docker.sock",
            "/run/user/1000/bus",
            "/run/user/1000/gnupg/S.gpg-agent",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(named, want);
    }

    /// A socket file named by a variable is hidden (once), a plain file it names is not, and
    /// no folder hidden holds the project or the temp directory.
    #[test]
    fn what_is_hidden_leaves_the_places_a_command_works_in() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let socket = root.join("agent.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        std::fs::write(root.join("plain"), "").unwrap();
        let project = root.join("p");
        std::fs::create_dir_all(&project).unwrap();
        let text = |p: &Path| p.to_str().unwrap().to_string();
        let vars = [
            ("SSH_AUTH_SOCK".to_string(), text(&socket)),
            ("TMUX".to_string(), format!("{},1,0", text(&socket))),
            ("WEZTERM_UNIX_SOCKET".to_string(), text(&root.join("plain"))),
        ];
        let hidden = Hidden::for_command(&project, &project, &vars).unwrap();
        assert_eq!(hidden.files.iter().filter(|f| f.as_bytes() == socket.as_os_str().as_bytes()).count(), 1);
        assert!(!hidden.files.iter().any(|f| f.as_bytes().ends_with(b"plain")));
        let path = |f: &CString| PathBuf::from(OsStr::from_bytes(f.as_bytes()));
        assert!(!hidden.folders.iter().any(|f| project.starts_with(path(f))));
        assert!(!hidden.folders.iter().any(|f| std::env::temp_dir().starts_with(path(f))));
    }
}
