//! `AGENTS.md` from the project root down, through the real binary: run in `proj/pkg`, the
//! system prompt holds `proj/AGENTS.md` then `proj/pkg/AGENTS.md`; a folder's
//! `AGENTS.override.md` takes its place; a read in `proj/sub/` brings `proj/sub/AGENTS.md`
//! into the conversation once, without touching the system prompt.

use crate::support::home::Tree;
use serde_json::{json, Value};

/// `root/proj` (a git project) with `pkg/` to run in, and `root/home`.
struct Setup(Tree);

impl std::ops::Deref for Setup {
    type Target = Tree;
    fn deref(&self) -> &Tree {
        &self.0
    }
}

impl Setup {
    fn new() -> Self {
        Setup(Tree::with(&["proj/.git", "proj/pkg", "home"]))
    }

    /// `chat --plain` in `proj/pkg`; its stdout, after checking it ended well.
    fn chat(&self, script: Value, stdin: &str) -> String {
        let out = self.run("proj/pkg", &["chat", "--plain"], &script, stdin, &[]);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        stdout
    }
}

/// The JSON array `/context json` printed (the first one).
fn context_json(stdout: &str) -> Value {
    let start = stdout.find("> /context json\n[\n").expect("a /context json listing") + "> /context json\n".len();
    let mut stream = serde_json::Deserializer::from_str(&stdout[start..]).into_iter::<Value>();
    stream.next().unwrap().unwrap()
}

#[test]
fn every_agents_md_from_the_root_down_root_first_and_overrides_win() {
    let s = Setup::new();
    s.write("proj/AGENTS.md", "ROOT-RULES");
    s.write("proj/pkg/AGENTS.md", "PKG-RULES");
    s.write("proj/other/AGENTS.md", "OTHER-RULES");
    let stdout = s.chat(json!([]), "/context json\n");
    let system = context_json(&stdout)[0]["content"].as_str().unwrap().to_string();
    let (root, pkg) = (system.find("ROOT-RULES").expect(&system), system.find("PKG-RULES").expect(&system));
    assert!(root < pkg, "root first: {system}");
    assert!(!system.contains("OTHER-RULES"), "{system}");

    s.write("proj/pkg/AGENTS.override.md", "PKG-OVERRIDE");
    let stdout = s.chat(json!([]), "/context json\n");
    let system = context_json(&stdout)[0]["content"].as_str().unwrap().to_string();
    assert!(system.contains("ROOT-RULES") && system.contains("PKG-OVERRIDE"), "{system}");
    assert!(!system.contains("PKG-RULES"), "the override takes the folder's place: {system}");
}

#[test]
fn a_read_in_a_subfolder_brings_its_agents_md_in_once() {
    let s = Setup::new();
    s.write("proj/AGENTS.md", "ROOT-RULES");
    s.write("proj/sub/AGENTS.md", "SUB-RULES");
    s.write("proj/sub/x.rs", "fn x() {}\n");
    s.write("proj/sub/y.rs", "fn y() {}\n");
    let read = |id: &str, path: &str| json!({"type": "doing", "id": id, "name": "read", "arguments": {"path": path}});
    let script = json!([
        {"events": [read("r1", "../sub/x.rs"), read("r2", "../sub/y.rs")]},
        {"events": [{"type": "saying", "text": "read them"}]},
        {"events": [read("r3", "../sub/x.rs")]},
        {"events": [{"type": "saying", "text": "again"}]},
        {"events": [{"type": "saying", "text": "third"}]}
    ]);
    let stdout = s.chat(script, "look\nlook again\n/context json\nthird\n/context json\n");
    let context = context_json(&stdout);
    let system = context[0]["content"].as_str().unwrap();
    assert!(system.contains("ROOT-RULES") && !system.contains("SUB-RULES"), "the system prompt stays put: {system}");
    let text = context.to_string();
    assert_eq!(text.matches("SUB-RULES").count(), 1, "once: {text}");
    let second_prompt =
        context.as_array().unwrap().iter().find(|m| m["content"].as_str().is_some_and(|c| c.contains("look again")));
    let second_prompt = second_prompt.expect(&text)["content"].as_str().unwrap();
    assert!(second_prompt.find("SUB-RULES") < second_prompt.find("look again"), "a note before the next prompt");
    let later = &stdout[stdout.rfind("> /context json\n").unwrap()..];
    assert_eq!(later.matches("SUB-RULES").count(), 1, "still once, later on: {later}");
}
