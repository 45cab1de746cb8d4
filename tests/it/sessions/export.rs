//! `/export` through the real binary: the transcript as the user saw it — prompts, replies,
//! each tool call with its arguments and its result, thinking marked — written by default to
//! `exports/<session id>.md` in the data directory (never the work tree), or to a path given;
//! it says where. A long result is cut, control sequences are dropped.

use crate::support::home::Home;
use serde_json::json;
use std::io::Write;

fn run(home: &Home, steps: serde_json::Value, stdin: &str) -> String {
    let script = home.script(steps);
    let mut child = home.command(&["chat", "--plain", "--yolo"], &script).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn export_writes_prompts_replies_and_tool_calls_with_results_into_the_data_directory() {
    let home = Home::new();
    std::fs::write(home.dir.path().join("README.md"), "# Export demo\n\nThe \x1b[31mred\x1b[0m line.\n").unwrap();
    let long = "x".repeat(10_000);
    let steps = json!([
        {"events": [
            {"type": "thinking", "text": "secret musings"},
            {"type": "saying", "text": "Let me look."},
            {"type": "doing", "id": "r1", "name": "read", "arguments": {"path": "README.md"}},
            {"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "big.txt", "content": long}}
        ]},
        {"events": [{"type": "saying", "text": "It is the **Export demo**."}]}
    ]);
    let stdout = run(&home, steps, "what is this?\n/export\n");
    let exports = home.dir.path().join("data/elelem/exports");
    let files: Vec<_> = std::fs::read_dir(&exports).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(files.len(), 1, "{files:?}\n{stdout}");
    let path = &files[0];
    let session = home.session_files().pop().unwrap();
    let id = session.file_stem().unwrap().to_string_lossy().into_owned();
    assert!(path.file_name().unwrap().to_string_lossy().contains(&id), "named after the session {id}: {path:?}");
    assert!(stdout.contains(&format!("Wrote the transcript (1 turn) to {}.", path.display())), "{stdout}");
    let md = std::fs::read_to_string(path).unwrap();
    for part in [
        "## You\n\nwhat is this?",
        "_(thinking omitted)_",
        "## elelem\n\nLet me look.",
        "### Tool call: read\n\n```\n{\"path\":\"README.md\"}\n```",
        "# Export demo",
        "\"lines\":3}\n     1\t# Export demo",
        "The [31mred[0m line.",
        "### Tool call: write",
        "more bytes)",
        "## elelem\n\nIt is the **Export demo**.",
    ] {
        assert!(md.contains(part), "{part:?} missing:\n{md}");
    }
    assert!(!md.contains("secret musings") && !md.contains('\x1b'), "{md}");
    assert!(md.len() < 9_000, "the long write's arguments or result are not cut? {} bytes", md.len());
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(path).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let in_tree: Vec<_> = std::fs::read_dir(home.dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md") && e.file_name() != "README.md")
        .collect();
    assert!(in_tree.is_empty(), "nothing written in the work tree: {in_tree:?}");
}

#[test]
fn export_to_a_given_path_writes_there_and_says_so() {
    let home = Home::new();
    let stdout = run(
        &home,
        json!([{"events": [{"type": "saying", "text": "**Bold** answer."}]}]),
        "a question\n/export notes.md\n",
    );
    let path = home.dir.path().join("notes.md");
    assert!(stdout.contains(&format!("Wrote the transcript (1 turn) to {}.", path.display())), "{stdout}");
    let written = std::fs::read_to_string(path).unwrap();
    assert_eq!(written, "# elelem transcript\n\n## You\n\na question\n\n## elelem\n\n**Bold** answer.\n");
}
