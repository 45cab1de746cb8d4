//! Agent Skills and Markdown slash commands through the real binary: project and user
//! folders (`.agents/`, `.claude/`), an untrusted project, bad front matter, a FIFO where a
//! file should be, and the `skill` tool called by a scripted model.

use crate::support::home::Tree;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};

/// `root/proj` (a git project, untrusted) with `pkg/` to run in, and `root/home`.
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

    fn elelem(&self, args: &[&str], script: Value, stdin: &str) -> Output {
        self.run("proj/pkg", args, &script, stdin, &[])
    }
}

fn skill(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n")
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

fn skills_setup() -> Setup {
    let s = Setup::new();
    s.write(
        "proj/.agents/skills/pdf-forms/SKILL.md",
        &skill("pdf-forms", "Fill PDF forms with scripts/fill.py", "BODY-MARKER-PDF: run scripts/fill.py"),
    );
    s.write(
        "proj/pkg/.claude/skills/near/SKILL.md",
        &skill("near", "A skill next to the working directory", "BODY-MARKER-NEAR"),
    );
    s.write("home/.claude/skills/user-one/SKILL.md", &skill("user-one", "The user's own skill", "BODY-MARKER-USER"));
    s.write("proj/.agents/skills/Bad/SKILL.md", &skill("Bad", "Upper case is not a name", "x"));
    s.write("proj/.agents/skills/broken/SKILL.md", "---\nname: broken\nthis line is not yaml\n---\nx\n");
    s.write("proj/.agents/skills/other/SKILL.md", &skill("not-other", "Name differs from the folder", "x"));
    mkfifo(&s.path("proj/.agents/skills/fifo/SKILL.md"));
    s
}

#[test]
fn skills_names_and_descriptions_are_in_the_prompt_and_bodies_are_not() {
    let s = skills_setup();
    let out = s.elelem(
        &["chat", "--plain"],
        json!([{"events": [{"type": "saying", "text": "ok"}]}]),
        "/context json\n/skills\n",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // Untrusted project: its skills are there anyway.
    assert!(stdout.contains("- pdf-forms: Fill PDF forms with scripts/fill.py"), "{stdout}");
    assert!(stdout.contains("- near: A skill next to the working directory"), "{stdout}");
    assert!(stdout.contains("- user-one: The user's own skill"), "{stdout}");
    assert!(!stdout.contains("BODY-MARKER"), "bodies stay out of the prompt: {stdout}");
    // `/skills` lists them with their folders and reports the bad ones with file and line.
    assert!(stdout.contains("user-one (user)"), "{stdout}");
    assert!(stdout.contains("pdf-forms (project)"), "{stdout}");
    let bad = s.path("proj/.agents/skills");
    let bad = std::fs::canonicalize(bad).unwrap();
    assert!(
        stdout.contains(&format!("{}:2: name \\\"Bad\\\"", bad.join("Bad/SKILL.md").display()))
            || stdout.contains(&format!("{}:2: name \"Bad\"", bad.join("Bad/SKILL.md").display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("{}:3: expected `key: value`", bad.join("broken/SKILL.md").display())),
        "{stdout}"
    );
    assert!(stdout.contains("differs from its folder \"other\""), "{stdout}");
    assert!(stdout.contains(&format!("{}: not a regular file", bad.join("fifo/SKILL.md").display())), "{stdout}");
    assert!(!stdout.contains("- not-other"), "{stdout}");
}

#[test]
fn the_skill_tool_returns_the_body_and_the_folder() {
    let s = skills_setup();
    let script = json!([
        {"events": [{"type": "doing", "id": "t1", "name": "skill", "arguments": {"name": "pdf-forms"}},
                    {"type": "doing", "id": "t2", "name": "skill", "arguments": {"name": "nope"}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let out = s.elelem(&["ask", "--json", "fill the form"], script, "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let folder = std::fs::canonicalize(s.path("proj/.agents/skills/pdf-forms")).unwrap();
    assert!(stdout.contains("BODY-MARKER-PDF: run scripts/fill.py"), "{stdout}");
    assert!(stdout.contains(&folder.display().to_string()), "{stdout}");
    assert!(stdout.contains("no skill named \\\"nope\\\""), "{stdout}");
}

#[test]
fn a_prompt_with_many_skills_stays_bounded() {
    let s = Setup::new();
    for i in 0..200 {
        let name = format!("skill-{i:03}");
        s.write(&format!("proj/.agents/skills/{name}/SKILL.md"), &skill(&name, &"long description ".repeat(30), "b"));
    }
    let out = s.elelem(&["chat", "--plain"], json!([]), "/context 1\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let section = stdout.split("Skills: ").nth(1).expect("a skills section");
    assert!(section.len() < 4096 + 200 * 12 + 500, "{}", section.len());
    assert!(section.contains("More skills (by name; load one to read it):"), "{section}");
    assert!(section.contains("skill-199"), "every skill is at least named");
}

#[test]
fn markdown_commands_fill_arguments_and_never_shadow_built_ins() {
    let s = Setup::new();
    s.write(
        "proj/.agents/commands/review.md",
        "---\ndescription: Review a file\nargument-hint: FILE\n---\nPlease review $ARGUMENTS carefully; first=$1 second=$2.\n",
    );
    s.write("proj/.claude/commands/plain.md", "# Say hello\nHello there.\n");
    s.write("home/.agents/commands/help.md", "---\ndescription: mine\n---\nshadow\n");
    s.write("home/.agents/commands/review.md", "---\ndescription: the user's review\n---\nUSER REVIEW\n");
    mkfifo(&s.path("home/.agents/commands/fifo.md"));
    let script =
        json!([{"events": [{"type": "saying", "text": "ok"}]}, {"events": [{"type": "saying", "text": "ok"}]}]);
    let out = s.elelem(
        &["chat", "--plain"],
        script,
        "/help\n/review src/lib.rs now\n/context 2\n/plain extra words\n/context 4\n",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("/review FILE"), "{stdout}");
    assert!(stdout.contains("Review a file [from project, untrusted]"), "{stdout}");
    assert!(stdout.contains("Say hello [from project, untrusted]"), "{stdout}");
    assert!(stdout.contains("/help is a built-in command"), "{stdout}");
    assert!(stdout.contains("list commands"), "the built-in /help still runs: {stdout}");
    assert!(!stdout.contains("USER REVIEW"), "the project's nearer file wins: {stdout}");
    assert!(stdout.contains("fifo.md: not a regular file"), "{stdout}");
    assert!(stdout.contains("Please review src/lib.rs now carefully; first=src/lib.rs second=now."), "{stdout}");
    assert!(stdout.contains("Hello there.\n\nextra words"), "{stdout}");
}
