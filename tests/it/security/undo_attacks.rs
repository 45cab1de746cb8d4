//! `/undo` against a hostile file system and session file (issue 26): a changed file
//! replaced by a symlink to a file outside the project, a checkpoint whose content no
//! longer matches its SHA-256, and records naming paths outside the project. Undo restores
//! only regular files inside the project, replacing a link rather than writing through it.

use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;

/// A temp HOME holding the project (`project/`), a place outside it (`outside/`) and the
/// data directory.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(dir.path().join("project/a.txt"), "original\n").unwrap();
        Setup { dir }
    }

    fn project(&self, name: &str) -> PathBuf {
        self.dir.path().join("project").join(name)
    }

    fn outside(&self, name: &str) -> PathBuf {
        self.dir.path().join("outside").join(name)
    }

    /// `elelem chat --plain ARGS` in the project with `stdin`; stdout and stderr together.
    fn chat(&self, args: &[&str], script: Value, stdin: &str) -> String {
        let script_path = self.dir.path().join("script.json");
        std::fs::write(&script_path, script.to_string()).unwrap();
        let mut child = crate::support::home::elelem(&self.dir.path().join("project"), self.dir.path())
            .arg("chat")
            .arg("--plain")
            .args(args)
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env("ELELEM_STUB_SCRIPT", &script_path)
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    }

    /// A turn that writes `changed\n` to a.txt (which held `original\n`).
    fn change_a(&self) {
        let script = json!([
            {"events": [{"type": "doing", "id": "t1", "name": "write", "arguments": {"path": "a.txt", "content": "changed\n"}}]},
            {"events": [{"type": "saying", "text": "done"}]}
        ]);
        let text = self.chat(&["--yolo"], script, "change a\n");
        assert_eq!(std::fs::read_to_string(self.project("a.txt")).unwrap(), "changed\n", "{text}");
    }

    /// The one session file.
    fn session_file(&self) -> PathBuf {
        let dir = self.dir.path().join("data/elelem/sessions");
        let files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        assert_eq!(files.len(), 1, "{files:?}");
        files[0].clone()
    }

    /// Rewrites the session file's records with `f`, and appends `extra`.
    fn edit_session(&self, f: impl Fn(&mut Value), extra: &[Value]) {
        let path = self.session_file();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut out = String::new();
        for line in text.lines() {
            let mut record: Value = serde_json::from_str(line).unwrap();
            f(&mut record);
            out.push_str(&record.to_string());
            out.push('\n');
        }
        for record in extra {
            out.push_str(&record.to_string());
            out.push('\n');
        }
        std::fs::write(&path, out).unwrap();
    }

    fn undo(&self, commands: &str) -> String {
        self.chat(&["--continue"], json!([{"events": [{"type": "saying", "text": ""}]}]), commands)
    }
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn undo_replaces_a_symlink_instead_of_writing_through_it() {
    let setup = Setup::new();
    setup.change_a();
    // The outside file even holds what elelem wrote, so nothing looks changed through the link.
    std::fs::write(setup.outside("victim.txt"), "changed\n").unwrap();
    std::fs::remove_file(setup.project("a.txt")).unwrap();
    std::os::unix::fs::symlink(setup.outside("victim.txt"), setup.project("a.txt")).unwrap();

    let text = setup.undo("/undo\n");
    assert!(text.contains("changed outside elelem") && text.contains("a.txt"), "{text}");
    assert_eq!(std::fs::read_to_string(setup.outside("victim.txt")).unwrap(), "changed\n", "{text}");

    let text = setup.undo("/undo --force\n");
    assert!(text.contains("a.txt: restored"), "{text}");
    assert_eq!(std::fs::read_to_string(setup.outside("victim.txt")).unwrap(), "changed\n", "written through: {text}");
    let meta = std::fs::symlink_metadata(setup.project("a.txt")).unwrap();
    assert!(meta.is_file(), "the link was replaced by the file");
    assert_eq!(std::fs::read_to_string(setup.project("a.txt")).unwrap(), "original\n");
}

#[test]
fn a_checkpoint_whose_content_does_not_match_its_hash_is_not_restored() {
    let setup = Setup::new();
    setup.change_a();
    setup.edit_session(
        |record| {
            if record["type"] == "file_before" {
                record["text"] = json!("EVIL\n");
            }
        },
        &[],
    );
    let text = setup.undo("/undo --force\n");
    assert!(text.contains("does not match its SHA-256"), "{text}");
    assert_eq!(std::fs::read_to_string(setup.project("a.txt")).unwrap(), "changed\n", "{text}");
}

#[test]
fn records_naming_paths_outside_the_project_are_refused() {
    let setup = Setup::new();
    setup.change_a();
    std::fs::write(setup.outside("keep.txt"), "keep\n").unwrap();
    std::fs::write(setup.outside("dots.txt"), "dots\n").unwrap();
    let project = setup.project("");
    let dots = format!("{}/../outside/dots.txt", project.display().to_string().trim_end_matches('/'));
    let evil = "EVIL\n";
    setup.edit_session(
        |_| {},
        &[
            json!({"type": "file_before", "turn": 1, "path": setup.outside("keep.txt"), "missing": true}),
            json!({"type": "file_before", "turn": 1, "path": dots, "hash": sha256(evil.as_bytes()), "text": evil}),
        ],
    );
    let text = setup.undo("/undo --force\n");
    assert!(text.contains("outside the project"), "{text}");
    assert_eq!(std::fs::read_to_string(setup.outside("keep.txt")).unwrap(), "keep\n", "deleted: {text}");
    assert_eq!(std::fs::read_to_string(setup.outside("dots.txt")).unwrap(), "dots\n", "overwritten: {text}");
    assert_eq!(std::fs::read_to_string(setup.project("a.txt")).unwrap(), "original\n", "{text}");
}

#[test]
fn a_file_changed_outside_the_project_in_the_session_is_not_restored() {
    let setup = Setup::new();
    let script = json!([
        {"events": [{"type": "doing", "id": "t1", "name": "write", "arguments": {"path": "../outside/new.txt", "content": "new\n"}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let text = setup.chat(&["--yolo"], script, "write outside\n/undo\n");
    assert!(text.contains("new.txt: outside the project"), "{text}");
    assert_eq!(std::fs::read_to_string(setup.outside("new.txt")).unwrap(), "new\n", "{text}");
}
