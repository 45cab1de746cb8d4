//! Links and FIFOs where elelem expects a file (issue 37 point 8), through the real binary:
//! `/export` to a planted link, a FIFO or an existing file; a repository's command, skill
//! or `AGENTS.md` linked to a key or into a directory `paths.deny` names; FIFO settings
//! files (`hooks.json`, `prices.json`, `tui.json`) and `tui.json` linked to `/dev/zero`;
//! a Lua plugin file swapped for a FIFO or linked out of its project; an `AGENTS.md` under
//! a folder `paths.deny` names (or linked into one); `elelem files` on a FIFO.
//! Every run is bounded: a hang is a failure, not a stuck test.

use crate::support::home::{elelem, Home, Tree};
use crate::tui::pty::Tui;
use serde_json::{json, Value};
use std::io::{Read, Write as _};
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// How long a run may take before it counts as hung.
const LIMIT: Duration = Duration::from_secs(30);

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

fn read_all(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Runs `command` with `stdin` written and closed: its status and its stdout and stderr
/// together. Past `LIMIT` it is killed and the test fails.
fn bounded(mut command: Command, stdin: &str) -> (ExitStatus, String) {
    let mut child = command.spawn().unwrap();
    let (out, err) = (read_all(child.stdout.take().unwrap()), read_all(child.stderr.take().unwrap()));
    // A child that hangs before reading its input must not block the test either.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("elelem hung for {LIMIT:?}: {}\n{}", out.join().unwrap(), err.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, format!("{}\n{}", out.join().unwrap(), err.join().unwrap()))
}

/// `elelem ARGS` in `tree`'s `cwd` with `home/` as the home, answering from `script`.
fn in_tree(tree: &Tree, cwd: &str, args: &[&str], script: &Value) -> Command {
    let script_path = tree.path("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let mut command = elelem(&tree.path(cwd), &tree.path("home"));
    command
        .args(args)
        .env("XDG_DATA_HOME", tree.path("home/.local/share"))
        .env("ELELEM_STUB_SCRIPT", &script_path)
        .env("ELELEM_SANDBOX", "off");
    command
}

/// Everything elelem wrote under `dir` (session files, exports), as one text.
fn all_files(dir: &Path) -> String {
    let mut text = String::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).into_iter().flatten().flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                text.push_str(&String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    text
}

fn chat(home: &Home, stdin: &str) -> (ExitStatus, String) {
    let script = home.script(json!([{"events": [{"type": "saying", "text": "An answer."}]}]));
    bounded(home.command(&["chat", "--plain", "--yolo"], &script), stdin)
}

#[test]
fn export_to_a_planted_link_leaves_what_it_points_to_alone() {
    let home = Home::new();
    let outside = tempfile::tempdir().unwrap();
    let bashrc = outside.path().join("bashrc");
    std::fs::write(&bashrc, "precious\n").unwrap();
    symlink(&bashrc, home.dir.path().join("notes.md")).unwrap();
    let (status, out) = chat(&home, "a question\n/export notes.md\n/export notes.md --force\n");
    assert!(status.success(), "{out}");
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "precious\n", "written through the link: {out}");
    let path = home.dir.path().join("notes.md");
    let refusal = format!("{} is a symbolic link, not a regular file", path.display());
    assert_eq!(out.matches(&refusal).count(), 2, "refused with and without --force: {out}");
    assert!(std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink(), "the link is left as it was");
}

#[test]
fn export_to_a_fifo_is_refused_at_once() {
    let home = Home::new();
    let fifo = home.dir.path().join("pipe.md");
    mkfifo(&fifo);
    let start = Instant::now();
    let (status, out) = chat(&home, "a question\n/export pipe.md\n/export pipe.md --force\n");
    assert!(status.success(), "{out}");
    let refusal = format!("{} is a FIFO (named pipe), not a regular file", fifo.display());
    assert_eq!(out.matches(&refusal).count(), 2, "{out}");
    assert!(start.elapsed() < Duration::from_secs(15), "{:?}", start.elapsed());
}

#[test]
fn export_replaces_an_existing_file_only_when_told_to() {
    let home = Home::new();
    let path = home.dir.path().join("notes.md");
    std::fs::write(&path, "mine\n").unwrap();
    let (status, out) = chat(&home, "a question\n/export notes.md\n");
    assert!(status.success(), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine\n", "{out}");
    assert!(
        out.contains(&format!(
            "{} already exists; not replaced. To replace it: /export notes.md --force",
            path.display()
        )),
        "{out}"
    );
    let (status, out) = chat(&home, "a question\n/export notes.md --force\n/export\n/export\n");
    assert!(status.success(), "{out}");
    assert!(std::fs::read_to_string(&path).unwrap().contains("## You\n\na question"), "{out}");
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    // The default file in the data directory is elelem's own: exported again, it is replaced.
    assert_eq!(out.matches("Wrote the transcript (1 turn) to").count(), 3, "{out}");
}

/// `root/proj` (a git project, untrusted), `root/home` with a key in `.ssh/` and a private
/// folder its `permissions.json` denies.
fn project_with_secrets() -> Tree {
    let tree = Tree::with(&["proj/.git", "home/.ssh", "home/private"]);
    tree.write("home/.ssh/id_rsa", "-----BEGIN KEY-----\nSECRET-KEY-BYTES\n-----END KEY-----\n");
    tree.write("home/.agents/permissions.json", r#"{"paths": {"deny": ["~/private", "~/.ssh"]}}"#);
    tree
}

#[test]
fn a_command_file_linked_to_a_key_or_a_denied_file_is_not_sent() {
    let tree = project_with_secrets();
    tree.write("home/private/notes.md", "DENIED-NOTES\n");
    tree.write("proj/.agents/commands/fine.md", "FINE-COMMAND\n");
    symlink(tree.path("home/.ssh/id_rsa"), tree.path("proj/.agents/commands/review.md")).unwrap();
    // The user's own command may link anywhere, but not into what paths.deny names.
    std::fs::create_dir_all(tree.path("home/.agents/commands")).unwrap();
    symlink(tree.path("home/private/notes.md"), tree.path("home/.agents/commands/notes.md")).unwrap();
    let script = json!([
        {"events": [{"type": "saying", "text": "ok"}]},
        {"events": [{"type": "saying", "text": "ok"}]},
        {"events": [{"type": "saying", "text": "ok"}]}
    ]);
    let command = in_tree(&tree, "proj", &["chat", "--plain"], &script);
    let (status, out) = bounded(command, "/review\n/notes\n/fine\n/context json\n");
    assert!(status.success(), "{out}");
    assert!(out.contains("FINE-COMMAND"), "an ordinary command still works: {out}");
    assert!(!out.contains("SECRET-KEY") && !out.contains("DENIED-NOTES"), "{out}");
    let recorded = all_files(&tree.path("home/.local/share"));
    assert!(recorded.contains("FINE-COMMAND"), "the session file records what was sent");
    assert!(!recorded.contains("SECRET-KEY") && !recorded.contains("DENIED-NOTES"), "{recorded}");
    let review = std::fs::canonicalize(tree.path("proj")).unwrap().join(".agents/commands/review.md");
    assert!(out.contains(&format!("command skipped: {}: it leads to", review.display())), "{out}");
    assert!(out.contains("a link out of the project is not followed"), "{out}");
    assert!(out.contains("which a paths rule denies"), "{out}");
}

fn skill(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n")
}

#[test]
fn a_symlinked_skill_folder_does_not_return_a_denied_file() {
    let tree = project_with_secrets();
    tree.write("home/private/leak/SKILL.md", &skill("leak", "DESC-PROJECT-LINK", "BODY-PROJECT-LINK"));
    tree.write("home/private/mine/SKILL.md", &skill("mine", "DESC-USER-LINK", "BODY-USER-LINK"));
    tree.write("proj/.agents/skills/fine/SKILL.md", &skill("fine", "An ordinary skill", "BODY-FINE"));
    std::fs::create_dir_all(tree.path("home/.agents/skills")).unwrap();
    symlink(tree.path("home/private/leak"), tree.path("proj/.agents/skills/leak")).unwrap();
    symlink(tree.path("home/private/mine"), tree.path("home/.agents/skills/mine")).unwrap();
    let calls = json!([
        {"events": [
            {"type": "doing", "id": "t1", "name": "skill", "arguments": {"name": "leak"}},
            {"type": "doing", "id": "t2", "name": "skill", "arguments": {"name": "mine"}},
            {"type": "doing", "id": "t3", "name": "skill", "arguments": {"name": "fine"}}
        ]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let (status, out) = bounded(in_tree(&tree, "proj", &["ask", "--json", "load the skills"], &calls), "");
    assert!(status.success(), "{out}");
    assert!(out.contains("BODY-FINE"), "{out}");
    assert!(out.contains("no skill named \\\"leak\\\"") && out.contains("no skill named \\\"mine\\\""), "{out}");
    let (status, listed) =
        bounded(in_tree(&tree, "proj", &["chat", "--plain"], &json!([])), "/skills\n/context json\n");
    assert!(status.success(), "{listed}");
    assert!(listed.contains("- fine: An ordinary skill"), "{listed}");
    for text in [&out, &listed] {
        for secret in ["DESC-PROJECT-LINK", "BODY-PROJECT-LINK", "DESC-USER-LINK", "BODY-USER-LINK"] {
            assert!(!text.contains(secret), "{secret}: {text}");
        }
    }
    assert!(listed.contains("a link out of the project is not followed"), "{listed}");
    assert!(listed.contains("which a paths rule denies"), "{listed}");
}

#[test]
fn an_agents_md_linked_to_a_key_stays_out_of_the_system_prompt() {
    let tree = project_with_secrets();
    symlink(tree.path("home/.ssh/id_rsa"), tree.path("proj/AGENTS.md")).unwrap();
    tree.write("proj/docs/RULES.md", "LINKED-RULES\n");
    std::fs::create_dir_all(tree.path("proj/sub")).unwrap();
    symlink(tree.path("proj/docs/RULES.md"), tree.path("proj/sub/AGENTS.md")).unwrap();
    let (status, out) = bounded(in_tree(&tree, "proj/sub", &["chat", "--plain"], &json!([])), "/context json\n");
    assert!(status.success(), "{out}");
    assert!(!out.contains("SECRET-KEY"), "{out}");
    assert!(out.contains("LINKED-RULES"), "a link inside the project is followed: {out}");
}

#[test]
fn fifo_settings_files_do_not_hang_startup_or_a_command() {
    let tree = Tree::with(&["proj/.git", "home"]);
    mkfifo(&tree.path("home/.agents/hooks.json"));
    mkfifo(&tree.path("home/.agents/prices.json"));
    mkfifo(&tree.path("home/.agents/mcp.json"));
    mkfifo(&tree.path("home/.agents/permissions.json"));
    let script = json!([{"events": [{"type": "saying", "text": "HELLO-BACK"}]}]);
    let start = Instant::now();
    let (status, out) = bounded(in_tree(&tree, "proj", &["chat", "--plain"], &script), "hello\n/cost\n");
    let took = start.elapsed();
    // A FIFO permissions.json is an error (its rules cannot be known), said at once.
    assert!(!status.success(), "{out}");
    assert!(out.contains("permissions.json") && out.contains("not a regular file (a FIFO (named pipe))"), "{out}");
    assert!(took < Duration::from_secs(15), "{took:?}");
    std::fs::remove_file(tree.path("home/.agents/permissions.json")).unwrap();
    let start = Instant::now();
    let (status, out) = bounded(in_tree(&tree, "proj", &["chat", "--plain"], &script), "hello\n/cost\n");
    let took = start.elapsed();
    assert!(status.success(), "{out}");
    assert!(out.contains("HELLO-BACK"), "{out}");
    for file in ["hooks.json", "prices.json", "mcp.json"] {
        let said =
            format!("{}: not a regular file (a FIFO (named pipe))", tree.path("home/.agents").join(file).display());
        assert!(out.contains(&said), "{file}: {out}");
    }
    assert!(took < Duration::from_secs(15), "{took:?}");
}

/// The peak resident memory (`VmHWM`, KB) of the process whose environment holds `marker`.
fn peak_memory_kb(marker: &str) -> Option<u64> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        if !environ.split(|b| *b == 0).any(|var| var == marker.as_bytes()) {
            continue;
        }
        let status = std::fs::read_to_string(entry.path().join("status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        return line.split_whitespace().nth(1)?.parse().ok();
    }
    None
}

/// The full-screen app with `data/elelem/tui.json` made by `plant`, started under a 1 GB
/// address-space limit (so a read of `/dev/zero` cannot take the machine's memory): it
/// shows its prompt at once, having used no more memory than an app with no file.
fn tui_with(plant: fn(&Path)) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("data/elelem")).unwrap();
    plant(&dir.path().join("data/elelem/tui.json"));
    let marker = format!("ELELEM_STUB_SCRIPT={}", dir.path().join("script.json").display());
    let shell = "ulimit -v 1048576 && exec \"$0\"";
    let binary = env!("CARGO_BIN_EXE_elelem");
    let mut tui = Tui::launch(Path::new("/bin/sh"), dir, json!([]), 24, 80, &[], &["-c", shell, binary]);
    tui.wait_for("Ask elelem");
    let peak = peak_memory_kb(&marker).expect("the app's /proc entry");
    assert!(peak < 256 * 1024, "the app grew to {} MB", peak / 1024);
    tui.send("\x04"); // Ctrl+D
    assert!(tui.wait_exit().success());
}

#[test]
fn a_fifo_tui_json_does_not_hang_the_app() {
    tui_with(mkfifo);
}

#[test]
fn a_tui_json_linked_to_dev_zero_is_refused_not_read() {
    tui_with(|path| symlink("/dev/zero", path).unwrap());
}

/// `command` started, its stdout and stderr gathered as they come (`seen`), its stdin
/// left open for the test to write.
struct Running {
    child: std::process::Child,
    seen: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Running {
    fn start(mut command: Command) -> Running {
        let mut child = command.spawn().unwrap();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        for pipe in
            [Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>, Box::new(child.stderr.take().unwrap())]
        {
            let seen = seen.clone();
            std::thread::spawn(move || {
                let mut pipe = pipe;
                let mut buf = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    seen.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
        Running { child, seen }
    }

    fn seen(&self) -> String {
        self.seen.lock().unwrap().clone()
    }

    fn send(&mut self, text: &str) {
        self.child.stdin.as_mut().unwrap().write_all(text.as_bytes()).unwrap();
    }

    /// Waits until the output holds `text`; past `LIMIT` the child is killed and the test fails.
    fn wait_for(&mut self, text: &str) {
        let deadline = Instant::now() + LIMIT;
        while !self.seen().contains(text) {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("no {text:?} within {LIMIT:?}: {}", self.seen());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Closes stdin and waits for the exit; past `LIMIT` the child is killed and the test fails.
    fn finish(mut self) -> (ExitStatus, String) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + LIMIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(100));
                return (status, self.seen());
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("elelem hung for {LIMIT:?}: {}", self.seen());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn a_lua_plugin_file_swapped_for_a_fifo_does_not_hang_reload() {
    let tree = Tree::with(&["proj/.git", "home"]);
    tree.write("home/.agents/plugins/mine.lua", "-- a plugin that registers nothing\n");
    let mut run = Running::start(in_tree(&tree, "proj", &["chat", "--plain"], &json!([])));
    run.send("/plugins\n");
    run.wait_for("mine.lua");
    // Loaded once as a regular file; a FIFO in its place by the next /reload.
    let plugin = tree.path("home/.agents/plugins/mine.lua");
    std::fs::remove_file(&plugin).unwrap();
    mkfifo(&plugin);
    let start = Instant::now();
    run.send("/reload\n/plugins\n");
    let (status, out) = run.finish();
    assert!(status.success(), "{out}");
    assert!(start.elapsed() < Duration::from_secs(15), "{:?}", start.elapsed());
    let said = format!("failed to load plugin {}: not a regular file (a FIFO (named pipe))", plugin.display());
    assert!(out.contains(&said), "{out}");
}

#[test]
fn a_projects_lua_plugin_linked_out_of_the_project_is_not_run() {
    let tree = Tree::with(&["proj/.git", "proj/.agents/plugins", "home", "outside"]);
    tree.write("outside/evil.lua", "this is not Lua at all\n");
    symlink(tree.path("outside/evil.lua"), tree.path("proj/.agents/plugins/evil.lua")).unwrap();
    let (status, out) = bounded(in_tree(&tree, "proj", &["chat", "--plain", "--trust"], &json!([])), "/plugins\n");
    assert!(status.success(), "{out}");
    assert!(out.contains("failed to load plugin"), "{out}");
    assert!(out.contains("a link out of the project is not followed"), "the file was read: {out}");
    assert!(!out.contains("syntax error"), "the file was run: {out}");
}

/// `root/home/proj` (a git project) whose `secret/` the user's `paths.deny` names.
fn project_with_a_denied_folder() -> Tree {
    let tree = Tree::with(&["home/proj/.git", "home/proj/secret/work"]);
    tree.write("home/.agents/permissions.json", r#"{"paths": {"deny": ["~/proj/secret"]}}"#);
    tree.write("home/proj/secret/work/AGENTS.md", "INSIDE-DENIED-RULES\n");
    tree.write("home/proj/secret/RULES.md", "LINKED-DENIED-RULES\n");
    tree
}

#[test]
fn an_agents_md_under_a_denied_folder_stays_out_of_the_system_prompt() {
    let tree = project_with_a_denied_folder();
    symlink(tree.path("home/proj/secret/RULES.md"), tree.path("home/proj/AGENTS.md")).unwrap();
    let script = json!([{"events": [{"type": "saying", "text": "ok"}]}]);
    for cwd in ["home/proj/secret/work", "home/proj"] {
        let (status, out) = bounded(in_tree(&tree, cwd, &["chat", "--plain"], &script), "hello\n/context json\n");
        assert!(status.success(), "{cwd}: {out}");
        assert!(!out.contains("INSIDE-DENIED-RULES") && !out.contains("LINKED-DENIED-RULES"), "{cwd}: {out}");
        assert!(out.contains("which paths.deny names"), "{cwd}: said on screen: {out}");
        let recorded = all_files(&tree.path("home/.local/share"));
        assert!(!recorded.contains("INSIDE-DENIED-RULES") && !recorded.contains("LINKED-DENIED-RULES"), "{cwd}");
    }
}

#[test]
fn elelem_files_refuses_a_fifo_at_once() {
    let tree = Tree::with(&["proj", "home"]);
    mkfifo(&tree.path("proj/pipe"));
    let start = Instant::now();
    let (status, out) = bounded(in_tree(&tree, "proj", &["files", "pipe"], &json!([])), "");
    assert!(!status.success(), "{out}");
    assert!(out.contains("cannot read pipe") && out.contains("not a regular file"), "{out}");
    assert!(start.elapsed() < Duration::from_secs(15), "{:?}", start.elapsed());
}
