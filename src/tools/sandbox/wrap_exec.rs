//! Running a prepared `Command`'s program through a wrapper program, from the child the
//! `Command` forked: `execve(wrapper, [wrapper, ARGS…, program, its args…], its env)`. The
//! `Command` keeps everything else it was given (standard streams, working directory,
//! process group, the caller's own `pre_exec` steps before this one). macOS contains a
//! command this way, the wrapper being `sandbox-exec` with the command's profile
//! (`macos.rs`); the arrays are made before the fork, so the child only calls `execve`.

use std::ffi::{CString, OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The wrapper's `execve`: its path, arguments and environment, as C arrays.
pub struct WrapExec {
    program: CString,
    /// Kept alive for the pointers below.
    _strings: Vec<CString>,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
}

// SAFETY: the pointers point into `_strings`, owned by the same value and never changed.
unsafe impl Send for WrapExec {}
// SAFETY: as above; nothing is written through them.
unsafe impl Sync for WrapExec {}

fn c_string(text: &OsStr) -> anyhow::Result<CString> {
    CString::new(text.as_bytes()).map_err(|_| anyhow::anyhow!("a NUL byte in {:?}", text.to_string_lossy()))
}

impl WrapExec {
    /// `wrapper` (a path) run with `args`, then `cmd`'s program and arguments, in the
    /// environment `cmd` was given (this process's, with `cmd`'s changes: set, removed).
    pub fn new(cmd: &std::process::Command, wrapper: &Path, args: &[OsString]) -> anyhow::Result<WrapExec> {
        let name = wrapper.file_name().unwrap_or(wrapper.as_os_str());
        let mut all: Vec<CString> = vec![c_string(name)?];
        for arg in args {
            all.push(c_string(arg)?);
        }
        all.push(c_string(cmd.get_program())?);
        for arg in cmd.get_args() {
            all.push(c_string(arg)?);
        }
        let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
        for (name, value) in cmd.get_envs() {
            env.retain(|(n, _)| n != name);
            if let Some(value) = value {
                env.push((name.to_os_string(), value.to_os_string()));
            }
        }
        let envs = env
            .into_iter()
            .map(|(mut pair, value)| {
                pair.push("=");
                pair.push(value);
                c_string(&pair)
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let argv = all.iter().map(|a| a.as_ptr()).chain([std::ptr::null()]).collect();
        let envp = envs.iter().map(|e| e.as_ptr()).chain([std::ptr::null()]).collect();
        let strings = all.into_iter().chain(envs).collect();
        Ok(WrapExec { program: c_string(wrapper.as_os_str())?, _strings: strings, argv, envp })
    }

    /// In the child: `execve`, which only returns on failure (its error).
    pub fn run(&self) -> std::io::Error {
        // SAFETY: NUL-terminated strings and NULL-terminated arrays made before the fork.
        unsafe { libc::execve(self.program.as_ptr(), self.argv.as_ptr(), self.envp.as_ptr()) };
        std::io::Error::last_os_error()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    /// `env NAME=VALUE program args…` stands in for `sandbox-exec -p PROFILE program args…`.
    #[test]
    fn the_program_runs_through_the_wrapper_with_its_arguments_environment_and_directory() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().canonicalize().unwrap();
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "echo \"$0|$1|$KEPT|${HOME-unset}|$WRAPPED\"; pwd", "zero", "a b"])
            .env("KEPT", "yes")
            .env_remove("HOME")
            .current_dir(&dir);
        let env = Path::new("/usr/bin/env");
        let exec = WrapExec::new(&cmd, env, &["WRAPPED=by env".into()]).unwrap();
        // SAFETY: the closure only calls execve on arrays made before the fork.
        unsafe {
            cmd.pre_exec(move || Err(exec.run()));
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text, format!("zero|a b|yes|unset|by env\n{}\n", dir.display()));
    }

    #[test]
    fn a_missing_wrapper_is_an_error_of_the_spawn() {
        let mut cmd = std::process::Command::new("true");
        let exec = WrapExec::new(&cmd, Path::new("/nonexistent/wrapper"), &[]).unwrap();
        // SAFETY: as above.
        unsafe {
            cmd.pre_exec(move || Err(exec.run()));
        }
        let error = cmd.status().unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    }
}
