//! The built-in tools through the toolbox, as the model sees them: exact success and failure
//! results, caps, atomic writes, edits, gitignore handling, aliases, and `execute` leaving no
//! process behind on timeout or cancel (checked in /proc).

use elelem::agent::output::{AgentEvent, Delta, RecordingOutput};
use elelem::agent::{ToolContext, Toolbox};
use serde_json::{json, Value};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn toolbox() -> Toolbox {
    let mut toolbox = Toolbox::new();
    for tool in elelem::tools::all() {
        toolbox.add(tool);
    }
    toolbox
}

async fn run(name: &str, args: Value) -> Value {
    toolbox().run(name, args, ToolContext::detached()).await.to_value()
}

fn p(dir: &Path, rel: &str) -> String {
    dir.join(rel).to_string_lossy().into_owned()
}

fn put(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Makes a FIFO (named pipe) at `dir/rel`; opening it for reading would block forever.
fn fifo(dir: &Path, rel: &str) -> String {
    let path = p(dir, rel);
    let name = std::ffi::CString::new(path.clone()).unwrap();
    // SAFETY: mkfifo(3) reads a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    path
}

fn not_regular(path: &str, kind: &str) -> String {
    format!("{path} is {kind}, not a regular file; the tools only read and write regular files")
}

// ---- read ----

#[tokio::test]
async fn read_numbers_lines_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.txt", "hello\nworld\n");
    let path = p(dir.path(), "a.txt");
    assert_eq!(
        run("read", json!({"path": path})).await,
        json!({"content": "     1\thello\n     2\tworld\n", "path": path, "lines": 2, "ok": true})
    );
}

#[tokio::test]
async fn read_a_window_says_how_to_read_further() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.txt", "l1\nl2\nl3\nl4\nl5\n");
    let path = p(dir.path(), "a.txt");
    assert_eq!(
        run("cat", json!({"path": path, "offset": 2, "limit": 2})).await,
        json!({
            "content": "     2\tl2\n     3\tl3\n\n[showing lines 2-3 of 5; call read with offset=4 to read further]",
            "path": path, "lines": 5, "ok": true
        })
    );
}

#[tokio::test]
async fn read_refuses_binary_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.bin"), [0u8, 1, 2, 3]).unwrap();
    let bin = p(dir.path(), "b.bin");
    assert_eq!(
        run("read", json!({"path": bin})).await,
        json!({"error": format!("{bin} is a binary file (4 bytes); not shown"), "path": bin, "ok": false})
    );
    let missing = p(dir.path(), "nope.txt");
    assert_eq!(
        run("read", json!({"path": missing})).await,
        json!({"error": format!("cannot read {missing}: No such file or directory (os error 2)"), "path": missing, "ok": false})
    );
}

#[tokio::test]
async fn read_cuts_big_files_at_the_byte_cap() {
    let dir = tempfile::tempdir().unwrap();
    let line = "x".repeat(999);
    put(dir.path(), "big.txt", &format!("{line}\n").repeat(1000)); // ~1 MB, 1000 lines
    let result = run("read", json!({"path": p(dir.path(), "big.txt")})).await;
    let content = result["content"].as_str().unwrap();
    assert!(content.len() <= elelem::tools::read::BYTE_CAP + 200, "{}", content.len());
    assert!(content.ends_with("call read with offset=261 to read further]"), "{}", &content[content.len() - 100..]);
    assert_eq!(result["lines"], 1000);
}

#[tokio::test]
async fn read_refuses_a_fifo_instead_of_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = fifo(dir.path(), "pipe");
    assert_eq!(
        run("read", json!({"path": pipe})).await,
        json!({"error": not_regular(&pipe, "a FIFO (named pipe)"), "path": pipe, "ok": false})
    );
}

#[tokio::test]
async fn read_refuses_a_device_instead_of_reading_forever() {
    assert_eq!(
        run("read", json!({"path": "/dev/zero"})).await,
        json!({"error": not_regular("/dev/zero", "a character device"), "path": "/dev/zero", "ok": false})
    );
}

#[tokio::test]
async fn read_far_into_a_big_file_counts_every_line() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (1..=100_000).map(|i| format!("line {i}\n")).collect();
    put(dir.path(), "big.txt", &text);
    let path = p(dir.path(), "big.txt");
    assert_eq!(
        run("read", json!({"path": path, "offset": 99_999, "limit": 5})).await,
        json!({"content": " 99999\tline 99999\n100000\tline 100000\n", "path": path, "lines": 100_000, "ok": true})
    );
}

#[tokio::test]
async fn a_missing_argument_names_the_property() {
    assert_eq!(
        run("read", json!({})).await,
        json!({"error": "object at root is missing required properties: path", "ok": false})
    );
}

// ---- write ----

#[tokio::test]
async fn write_creates_parent_directories() {
    let dir = tempfile::tempdir().unwrap();
    let path = p(dir.path(), "deep/er/new.txt");
    assert_eq!(
        run("write", json!({"path": path, "content": "hi\n"})).await,
        json!({"bytes": 3, "path": path, "ok": true})
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "hi\n");
}

#[tokio::test]
async fn write_over_a_file_returns_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.txt", "one\ntwo\n");
    let path = p(dir.path(), "a.txt");
    assert_eq!(
        run("write", json!({"path": path, "content": "one\n2\n"})).await,
        json!({"bytes": 6, "path": path, "diff": format!("--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"), "ok": true})
    );
}

#[tokio::test]
async fn write_into_a_file_as_directory_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "f", "x");
    let path = p(dir.path(), "f/child.txt");
    let result = run("write", json!({"path": path, "content": "x"})).await;
    assert_eq!(result["ok"], false);
    assert!(
        result["error"].as_str().unwrap().starts_with(&format!("cannot create {}", p(dir.path(), "f"))),
        "{result}"
    );
}

#[tokio::test]
async fn write_and_edit_refuse_a_fifo_instead_of_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = fifo(dir.path(), "pipe");
    assert_eq!(
        run("write", json!({"path": pipe, "content": "x"})).await,
        json!({"error": not_regular(&pipe, "a FIFO (named pipe)"), "path": pipe, "ok": false})
    );
    assert_eq!(
        run("edit", json!({"path": pipe, "old": "a", "new": "b"})).await,
        json!({"error": not_regular(&pipe, "a FIFO (named pipe)"), "ok": false})
    );
    let preview = toolbox().get("write").unwrap().preview(&json!({"path": pipe, "content": "x"})).await;
    assert_eq!(preview, Err(not_regular(&pipe, "a FIFO (named pipe)")));
    assert!(std::fs::metadata(&pipe).unwrap().file_type().is_fifo(), "the FIFO is left as it was");
}

#[tokio::test]
async fn writing_through_a_symlink_updates_the_file_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "real/target.txt", "old\n");
    let link = p(dir.path(), "link.txt");
    std::os::unix::fs::symlink("real/target.txt", &link).unwrap();
    assert_eq!(run("write", json!({"path": link, "content": "new\n"})).await["ok"], true);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is still a link");
    assert_eq!(std::fs::read_to_string(dir.path().join("real/target.txt")).unwrap(), "new\n");
    assert_eq!(run("edit", json!({"path": link, "old": "new", "new": "edited"})).await["ok"], true);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(dir.path().join("real/target.txt")).unwrap(), "edited\n");
    let names: Vec<String> = std::fs::read_dir(dir.path().join("real"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["target.txt"], "no temporary file is left behind");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_is_atomic_readers_see_old_or_new_never_half() {
    let dir = tempfile::tempdir().unwrap();
    let path = p(dir.path(), "big.txt");
    let size = 4 * 1024 * 1024;
    std::fs::write(&path, "a".repeat(size)).unwrap();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (path, stop) = (path.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut reads = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let text = std::fs::read(&path).unwrap();
                assert_eq!(text.len(), size, "a reader saw a partial file");
                assert!(text.iter().all(|&b| b == text[0]), "a reader saw a mix of old and new");
                reads += 1;
            }
            reads
        })
    };
    for i in 0..12 {
        let content = if i % 2 == 0 { "b" } else { "a" }.repeat(size);
        assert_eq!(run("write", json!({"path": path, "content": content})).await["ok"], true);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(reader.join().unwrap() > 0);
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, vec!["big.txt"], "no temporary file is left behind");
}

// ---- edit ----

#[tokio::test]
async fn edit_replaces_once_and_returns_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "m.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    let path = p(dir.path(), "m.rs");
    assert_eq!(
        run("str_replace", json!({"path": path, "old": "\"hi\"", "new": "\"hello\""})).await,
        json!({
            "path": path, "replacements": 1,
            "diff": format!("--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n fn main() {{\n-    println!(\"hi\");\n+    println!(\"hello\");\n }}\n"),
            "ok": true
        })
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "fn main() {\n    println!(\"hello\");\n}\n");
}

#[tokio::test]
async fn edit_refuses_an_ambiguous_old_and_lists_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.txt", "x = 1\ny = 2\nx = 1\n");
    let path = p(dir.path(), "a.txt");
    assert_eq!(
        run("edit", json!({"path": path, "old": "x = 1", "new": "x = 3"})).await,
        json!({
            "error": format!("`old` was found 2 times in {path}; include more surrounding lines to make it unique, or pass replace_all: true. Found at:\n     1\tx = 1\n     3\tx = 1"),
            "ok": false
        })
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "x = 1\ny = 2\nx = 1\n", "nothing was written");
    let all = run("edit", json!({"path": path, "old": "x = 1", "new": "x = 3", "replace_all": true})).await;
    assert_eq!(all["replacements"], 2);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "x = 3\ny = 2\nx = 3\n");
}

#[tokio::test]
async fn edit_shows_the_nearest_lines_when_old_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.rs", "use std::io;\n\nfn run(x: u32) -> u32 {\n    x + 1\n}\n");
    let path = p(dir.path(), "a.rs");
    assert_eq!(
        run("edit", json!({"path": path, "old": "fn run(x: i32) -> i32 {\n    x + 1", "new": "y"})).await,
        json!({
            "error": format!("`old` was not found in {path}. The nearest lines are:\n     3\tfn run(x: u32) -> u32 {{\n     4\t    x + 1"),
            "ok": false
        })
    );
}

#[tokio::test]
async fn edit_with_a_long_missing_old_points_at_the_nearest_long_line() {
    let dir = tempfile::tempdir().unwrap();
    let long = "let x = 1; ".repeat(200); // ~2,200 characters
    let mut lines: Vec<String> = (1..=5000).map(|i| format!("line {i}")).collect();
    lines[2499] = long.clone();
    put(dir.path(), "f.rs", &(lines.join("\n") + "\n"));
    let path = p(dir.path(), "f.rs");
    let old = format!("{}\nline 2501 changed", long.replace("1;", "2;"));
    assert_eq!(
        run("edit", json!({"path": path, "old": old, "new": "y"})).await,
        json!({
            "error": format!("`old` was not found in {path}. The nearest lines are:\n  2500\t{long}\n  2501\tline 2501"),
            "ok": false
        })
    );
}

#[tokio::test]
async fn edit_planning_stops_when_the_call_is_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "f.txt", &"abcdefgh ".repeat(1000));
    let cancel = CancellationToken::new();
    cancel.cancel();
    let args = json!({"path": p(dir.path(), "f.txt"), "old": "zzz", "new": "y"});
    assert_eq!(elelem::tools::edit::plan(&args, &cancel).await, Err("interrupted".to_string()));
}

#[tokio::test]
async fn edit_fails_clearly_on_a_missing_file_or_a_no_op() {
    let dir = tempfile::tempdir().unwrap();
    let path = p(dir.path(), "none.txt");
    assert_eq!(
        run("edit", json!({"path": path, "old": "a", "new": "b"})).await,
        json!({"error": format!("cannot read {path}: No such file or directory (os error 2)"), "ok": false})
    );
    assert_eq!(
        run("edit", json!({"path": path, "old": "a", "new": "a"})).await,
        json!({"error": "`old` and `new` are the same; nothing to change", "ok": false})
    );
}

// ---- execute ----

#[tokio::test]
async fn a_failing_command_is_a_normal_result_with_its_status() {
    assert_eq!(
        run("bash", json!({"command": "echo out; echo err >&2; exit 3"})).await,
        json!({"exit_status": 3, "content": "out\nerr\n", "ok": true})
    );
}

#[tokio::test]
async fn execute_runs_in_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().canonicalize().unwrap();
    let result = run("exec", json!({"command": "pwd", "cwd": real.to_str().unwrap()})).await;
    assert_eq!(result, json!({"exit_status": 0, "content": format!("{}\n", real.display()), "ok": true}));
}

#[tokio::test]
async fn execute_keeps_head_and_tail_of_long_output() {
    let result = run("sh", json!({"command": "printf 'A%.0s' $(seq 20000); head -c 60000 /dev/zero | tr '\\0' b; printf 'Z%.0s' $(seq 20000)"})).await;
    let content = result["content"].as_str().unwrap();
    let note = "\n[... 67232 bytes cut from the middle of 100000 bytes of output ...]\n";
    assert_eq!(content, format!("{}{note}{}", "A".repeat(16384), "Z".repeat(16384)));
    assert_eq!(result["exit_status"], 0);
}

#[tokio::test]
async fn execute_streams_output_live() {
    let output = Arc::new(RecordingOutput::default());
    let ctx = ToolContext::new("c1", CancellationToken::new(), Some(output.clone()));
    let result = toolbox().run("execute", json!({"command": "echo one; sleep 0.2; echo two"}), ctx).await.to_value();
    assert_eq!(result["content"], "one\ntwo\n");
    let chunks: Vec<String> = output
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Delta(Delta::ToolOutput { id, chunk }) if id == "c1" => Some(chunk),
            _ => None,
        })
        .collect();
    assert_eq!(chunks, vec!["one\n", "two\n"], "each piece arrives as it is printed");
}

/// Waits up to two seconds for every process carrying `marker` to be gone.
async fn assert_no_process_left(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left = crate::support::marked_processes(marker);
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "processes left behind: {left:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits (up to 10 s, polling) until both sleeps of the command marked `marker` run.
async fn wait_for_both_sleeps(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while crate::support::marked_processes(marker).len() < 2 {
        assert!(Instant::now() < deadline, "both sleeps are running (bash may have exec-ed the last one)");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn marker(name: &str) -> String {
    format!("ELELEM_TEST_MARK={name}_{}_{}", std::process::id(), Instant::now().elapsed().as_nanos())
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let mark = marker("timeout");
    let command = format!("export {mark}; echo started; sleep 1000 & sleep 1000");
    let started = Instant::now();
    let running = tokio::spawn(async move { run("execute", json!({"command": command, "timeout_secs": 1})).await });
    wait_for_both_sleeps(&mark).await;
    let result = running.await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        result,
        json!({"error": "timed out after 1s; the command and its children were killed", "content": "started\n", "ok": false})
    );
    assert_no_process_left(&mark).await;
}

#[tokio::test]
async fn cancel_kills_the_whole_process_group() {
    let mark = marker("cancel");
    let command = format!("export {mark}; echo started; sleep 1000 & sleep 1000");
    let cancel = CancellationToken::new();
    let ctx = ToolContext::new("c", cancel.clone(), None);
    let running =
        tokio::spawn(async move { toolbox().run("execute", json!({"command": command}), ctx).await.to_value() });
    wait_for_both_sleeps(&mark).await;
    cancel.cancel();
    let result = tokio::time::timeout(Duration::from_secs(5), running).await.unwrap().unwrap();
    assert_eq!(
        result,
        json!({"error": "interrupted by the user; the command was killed", "content": "started\n", "ok": false})
    );
    assert_no_process_left(&mark).await;
}

// ---- glob, grep, list ----

/// A small project with a .gitignore (not a git repository: it is honoured anyway).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), ".gitignore", "target/\n*.log\n");
    put(dir.path(), "Cargo.toml", "[package]\nname = \"demo\"\n");
    put(dir.path(), "src/main.rs", "fn main() {\n    // TODO: greet\n    println!(\"Hello\");\n}\n");
    put(dir.path(), "src/util/mod.rs", "pub fn hello() -> &'static str {\n    \"hello\"\n}\n");
    put(dir.path(), "target/debug/gen.rs", "fn hello() {}\n");
    put(dir.path(), "run.log", "hello log\n");
    put(dir.path(), ".git/config", "hello\n");
    dir
}

#[tokio::test]
async fn glob_matches_names_and_paths_and_skips_ignored_files() {
    let dir = project();
    let root = dir.path().to_str().unwrap();
    assert_eq!(
        run("glob", json!({"pattern": "*.rs", "path": root})).await,
        json!({"paths": [p(dir.path(), "src/main.rs"), p(dir.path(), "src/util/mod.rs")], "count": 2, "ok": true})
    );
    assert_eq!(
        run("find", json!({"pattern": "src/*.rs", "path": root})).await,
        json!({"paths": [p(dir.path(), "src/main.rs")], "count": 1, "ok": true})
    );
    assert_eq!(
        run("glob", json!({"pattern": "*.log", "path": root})).await,
        json!({"paths": [], "count": 0, "ok": true}),
        "run.log is ignored by .gitignore"
    );
    assert_eq!(
        run("glob", json!({"pattern": "src/[", "path": root})).await,
        json!({"error": "invalid glob pattern \"src/[\": unclosed character class; missing ']'", "ok": false})
    );
}

#[tokio::test]
async fn grep_returns_file_line_text_and_skips_ignored_files() {
    let dir = project();
    let root = dir.path().to_str().unwrap();
    let main = p(dir.path(), "src/main.rs");
    let util = p(dir.path(), "src/util/mod.rs");
    assert_eq!(
        run("grep", json!({"pattern": "hello", "path": root, "ignore_case": true})).await,
        json!({
            "content": format!("{main}:3:    println!(\"Hello\");\n{util}:1:pub fn hello() -> &'static str {{\n{util}:2:    \"hello\""),
            "matches": 3, "files": 2, "ok": true
        })
    );
    assert_eq!(
        run("search", json!({"pattern": "hello", "path": root, "glob": "main.rs"})).await,
        json!({"content": "", "matches": 0, "files": 0, "ok": true}),
        "case-sensitive by default"
    );
    assert_eq!(
        run("grep", json!({"pattern": "TODO", "path": main})).await,
        json!({"content": format!("{main}:2:    // TODO: greet"), "matches": 1, "files": 1, "ok": true})
    );
    assert_eq!(
        run("grep", json!({"pattern": "(", "path": root})).await,
        json!({"error": "invalid regex \"(\": regex parse error:\n    (\n    ^\nerror: unclosed group", "ok": false})
    );
}

#[tokio::test]
async fn grep_caps_matches_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "many.txt", &"match me\n".repeat(250));
    let result = run("grep", json!({"pattern": "match", "path": dir.path().to_str().unwrap()})).await;
    assert_eq!(result["content"].as_str().unwrap().lines().count(), 200);
    assert_eq!(result["matches"], 250);
    assert_eq!(result["note"], "showing the first 200 of 250 matches; 50 left out. Narrow the pattern, path or glob.");
}

#[tokio::test]
async fn list_draws_a_tree_to_a_depth_without_ignored_entries() {
    let dir = project();
    let root = dir.path().to_str().unwrap();
    assert_eq!(
        run("ls", json!({"path": root})).await,
        json!({"content": ".gitignore\nCargo.toml\nsrc/\n  main.rs\n  util/\n", "path": root, "entries": 5, "ok": true})
    );
    assert_eq!(
        run("list", json!({"path": root, "depth": 1})).await,
        json!({"content": ".gitignore\nCargo.toml\nsrc/\n", "path": root, "entries": 3, "ok": true})
    );
    let missing = p(dir.path(), "nope");
    assert_eq!(
        run("list", json!({"path": missing})).await,
        json!({"error": format!("cannot read {missing}: No such file or directory (os error 2)"), "path": missing, "ok": false})
    );
}

// ---- names ----

#[test]
fn common_names_resolve_to_the_tools() {
    let toolbox = toolbox();
    assert_eq!(
        toolbox.names(),
        vec![
            "read",
            "write",
            "edit",
            "execute",
            "job_output",
            "job_input",
            "job_stop",
            "glob",
            "grep",
            "list",
            "web_fetch",
            "plan",
            "task"
        ]
    );
    for (alias, tool) in [
        ("bash", "execute"),
        ("sh", "execute"),
        ("exec", "execute"),
        ("open", "read"),
        ("cat", "read"),
        ("ls", "list"),
        ("fetch", "web_fetch"),
        ("todo_write", "plan"),
        ("Task", "task"),
        ("search", "grep"),
        ("str_replace", "edit"),
    ] {
        assert_eq!(toolbox.resolve(alias), tool, "{alias}");
    }
}
