//! The real binary in a temporary home: a `Command` for `elelem` with the environment every
//! end-to-end test starts from (no provider keys, no reachable Ollama, no stub script unless
//! given), `Home`, a temporary home that is also the working directory, with the session
//! files the binary records there, and `Tree`, a temporary tree of a project and a home.

use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// `elelem` run in `cwd` with `home` as `HOME`: no API keys, Ollama pointed at a closed port,
/// no stub script, stdin, stdout and stderr piped. Callers add what their test is about.
pub fn elelem(cwd: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_elelem"));
    cmd.current_dir(cwd)
        .env("HOME", home)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ELELEM_STUB_SCRIPT")
        .env("OLLAMA_HOST", "http://127.0.0.1:9")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// A stub script that answers one model call with `text`.
pub fn reply(text: &str) -> Value {
    json!([{"events": [{"type": "saying", "text": text}]}])
}

/// A temporary directory that is the home, the working directory and (under `data/`) the
/// data directory of the runs made from it.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Home {
        Home { dir: tempfile::tempdir().unwrap() }
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.dir.path().join("data/elelem/sessions")
    }

    /// The recorded session files, sorted.
    pub fn session_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(self.sessions_dir()).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        files.sort();
        files
    }

    /// Writes a stub script (a file of its own each call) and returns its path.
    pub fn script(&self, steps: Value) -> PathBuf {
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = self.dir.path().join(format!("script-{}.json", N.fetch_add(1, Ordering::Relaxed)));
        std::fs::write(&path, steps.to_string()).unwrap();
        path
    }

    /// `elelem ARGS` here, answering from `script`.
    pub fn command(&self, args: &[&str], script: &Path) -> Command {
        let mut cmd = elelem(self.dir.path(), self.dir.path());
        cmd.args(args).env("XDG_DATA_HOME", self.dir.path().join("data")).env("ELELEM_STUB_SCRIPT", script);
        cmd
    }
}

/// A temporary tree of folders (a project `proj/`, a home `home/`, ...) named by paths
/// relative to its root, and the real binary run in one of them.
pub struct Tree {
    pub dir: tempfile::TempDir,
}

impl Tree {
    /// A tree with these folders made.
    pub fn with(dirs: &[&str]) -> Tree {
        let dir = tempfile::tempdir().unwrap();
        for sub in dirs {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Tree { dir }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `text` to `rel`, making its folders.
    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// What `rel` holds, or nothing when it is missing.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_default()
    }

    /// `elelem ARGS` run in `cwd` with `home/` as the home (its data under
    /// `home/.local/share`), answering from `script`, with `stdin` written and closed.
    pub fn run(&self, cwd: &str, args: &[&str], script: &Value, stdin: &str, env: &[(&str, &Path)]) -> Output {
        let script_path = self.path("script.json");
        std::fs::write(&script_path, script.to_string()).unwrap();
        let mut command = elelem(&self.path(cwd), &self.path("home"));
        command
            .args(args)
            .env("XDG_DATA_HOME", self.path("home/.local/share"))
            .env("ELELEM_STUB_SCRIPT", &script_path)
            .envs(env.iter().copied());
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }
}
