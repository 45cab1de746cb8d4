//! What the permission tests share: a temp home and project with permission files, a
//! session over them with a scripted approver, and `elelem ask --json` run in them.
#![allow(dead_code)]

use elelem::agent::input::{Approval, ApprovalRequest, Approver, Input};
use elelem::agent::output::RecordingOutput;
use elelem::agent::system_prompt::SystemPrompt;
use elelem::agent::ToolContext;
use elelem::agent::{Agent, Session, Toolbox, Transcript};
use elelem::plugins::permissions::{PermissionFlags, PermissionsPlugin};
use elelem::protocol::ProviderSettings;
use elelem::startup::Options;
use futures::future::BoxFuture;
use serde_json::{json, Value};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Answers from a list and keeps every question.
#[derive(Default)]
pub struct Answers {
    answers: Mutex<Vec<Approval>>,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl Answers {
    pub fn new(answers: &[Approval]) -> Arc<Self> {
        Arc::new(Answers { answers: Mutex::new(answers.to_vec()), asked: Mutex::default() })
    }
    pub fn asked(&self) -> Vec<ApprovalRequest> {
        self.asked.lock().unwrap().clone()
    }
}

impl Approver for Answers {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, Approval> {
        self.asked.lock().unwrap().push(request);
        let mut answers = self.answers.lock().unwrap();
        let answer = if answers.is_empty() { Approval::No } else { answers.remove(0) };
        Box::pin(async move { answer })
    }
}

pub struct NoInput;
impl Input for NoInput {
    fn read_line(&mut self, _prompt: &str) -> BoxFuture<'_, Option<String>> {
        Box::pin(async { None })
    }
}

/// A temp home and project, with optional permission files.
pub struct Dirs {
    pub root: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
}

impl Dirs {
    pub fn new(home_rules: Option<&str>, project_rules: Option<&str>) -> Dirs {
        let root = tempfile::tempdir().unwrap();
        let (home, project) = (root.path().join("home"), root.path().join("project"));
        for (dir, rules) in [(&home, home_rules), (&project, project_rules)] {
            std::fs::create_dir_all(dir.join(".agents")).unwrap();
            if let Some(rules) = rules {
                std::fs::write(dir.join(".agents/permissions.json"), rules).unwrap();
            }
        }
        Dirs { root, home, project }
    }

    pub fn file(&self, name: &str) -> String {
        self.project.join(name).to_string_lossy().into_owned()
    }

    pub fn session(&self, options: Options, approver: Arc<dyn Approver>) -> anyhow::Result<Session> {
        let providers = elelem::providers::builtin()?;
        let settings = ProviderSettings::default();
        let provider = providers.build("stub", &settings)?;
        let transcript = Transcript::new(SystemPrompt::new(self.project.clone()));
        let agent = Agent::new(provider, Toolbox::new(), Arc::new(RecordingOutput::default()), transcript);
        let mut session = Session::new(agent, Box::new(NoInput), providers, settings, approver);
        session.add_plugin(Arc::new(elelem::tools::BuiltinTools::default()))?;
        session.add_plugin(Arc::new(PermissionsPlugin::with_dirs(
            Some(self.home.clone()),
            self.project.clone(),
            PermissionFlags {
                allow: options.allow.clone(),
                yolo: options.yolo,
                headless: options.headless,
                trust: options.trust,
                ..PermissionFlags::default()
            },
        )))?;
        Ok(session)
    }
}

pub fn interactive() -> Options {
    Options::default()
}

pub fn headless() -> Options {
    Options { headless: true, ..Options::default() }
}

pub async fn call(session: &mut Session, name: &str, args: Value) -> Value {
    session.toolbox().run(name, args, ToolContext::detached()).await.to_value()
}

/// What one `elelem ask --json` run printed.
pub struct Run {
    /// Every JSON line of stdout.
    pub events: Vec<Value>,
    pub stderr: String,
    pub code: Option<i32>,
}

impl Run {
    /// The `result` lines, in call order (ids `t1`, `t2`, …): read-only calls run together
    /// and their results come in the order they end.
    pub fn results(&self) -> Vec<Value> {
        let mut results: Vec<Value> = self.events.iter().filter(|v| v["type"] == "result").cloned().collect();
        results.sort_by_key(|v| v["id"].as_str().map(|id| (id.len(), id.to_string())));
        results
    }

    /// The text of the `info` lines.
    pub fn infos(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|v| v["type"] == "info")
            .map(|v| v["text"].as_str().unwrap_or("").to_string())
            .collect()
    }
}

/// Runs `elelem ask --json FLAGS go` in `project` with the script, `HOME` set to `home`
/// and the data directory under it, plus `env`.
pub fn run_ask(project: &Path, home: &Path, script: Value, flags: &[&str], env: &[(&str, &str)]) -> Run {
    let script_path = home.join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["ask", "--json"])
        .args(flags)
        .arg("go")
        .current_dir(project)
        .env("HOME", home)
        .env("ELELEM_STUB_SCRIPT", &script_path)
        .env_remove("XDG_DATA_HOME")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let events =
        String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).collect();
    Run { events, stderr: String::from_utf8_lossy(&output.stderr).into_owned(), code: output.status.code() }
}

/// Runs `elelem ask --json go` in a temp project with the script; returns stdout's
/// `result` lines, stderr and the exit code.
pub fn ask(project: &Path, home: &Path, script: Value, flags: &[&str]) -> (Vec<Value>, String, Option<i32>) {
    let run = run_ask(project, home, script, flags, &[]);
    (run.results(), run.stderr, run.code)
}

pub fn doing(calls: &[(&str, &str, Value)]) -> Value {
    let events: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| json!({"type": "doing", "id": id, "name": name, "arguments": args}))
        .collect();
    json!([{"events": events}, {"events": [{"type": "saying", "text": "done"}]}])
}

/// A program in a pseudo-terminal (40x100, `NO_COLOR`, the stub script `HOME/script.json`),
/// its screen read with vt100.
pub struct Terminal {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: std::sync::Arc<std::sync::Mutex<Box<dyn std::io::Write + Send>>>,
    screen: std::sync::Arc<std::sync::Mutex<vt100::Parser>>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Terminal {
    pub fn start(project: &std::path::Path, home: &std::path::Path, args: &[&str]) -> Terminal {
        use portable_pty::{native_pty_system, CommandBuilder, PtySize};
        let (rows, cols) = (40, 100);
        let pair = native_pty_system().openpty(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 }).unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_elelem"));
        cmd.args(args);
        cmd.cwd(project);
        cmd.env("HOME", home);
        cmd.env("TERM", "xterm-256color");
        cmd.env("NO_COLOR", "1");
        cmd.env("ELELEM_STUB_SCRIPT", home.join("script.json"));
        cmd.env_remove("XDG_DATA_HOME");
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer: std::sync::Arc<std::sync::Mutex<Box<dyn std::io::Write + Send>>> =
            std::sync::Arc::new(std::sync::Mutex::new(pair.master.take_writer().unwrap()));
        let size = |n: u16| std::num::NonZeroU16::new(n).unwrap();
        let screen = std::sync::Arc::new(std::sync::Mutex::new(vt100::Parser::new(size(rows), size(cols), 0)));
        let (sink, answer) = (screen.clone(), writer.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                // Answer a cursor-position query, as a real terminal would.
                if buf[..n].windows(4).any(|w| w == b"\x1b[6n") {
                    let _ = answer.lock().unwrap().write_all(b"\x1b[1;1R");
                }
                sink.lock().unwrap().process(&buf[..n]);
            }
        });
        Terminal { child, writer, screen, _master: pair.master }
    }

    pub fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    pub fn send(&self, text: &str) {
        let mut writer = self.writer.lock().unwrap();
        writer.write_all(text.as_bytes()).unwrap();
        writer.flush().unwrap();
    }

    pub fn wait_until(&self, done: impl Fn(&str) -> bool) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::time::Instant::now() < deadline {
            if done(&self.contents()) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(30));
        }
        panic!("timed out; screen:\n{}", self.contents());
    }

    pub fn wait_for(&self, text: &str) {
        self.wait_until(|screen| screen.contains(text));
    }

    pub fn wait_exit(&mut self) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::time::Instant::now() < deadline {
            if self.child.try_wait().unwrap().is_some() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(30));
        }
        panic!("did not exit; screen:\n{}", self.contents());
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}
