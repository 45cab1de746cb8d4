//! Paths outside the project: `write ../x`, `/tmp/…`, `$HOME/.profile` and a read of
//! `$HOME/.ssh/id_rsa` are refused headless (with the path and how to allow it) and asked
//! about interactively even when the tool is allowed; `--yolo` and a `paths` rule allow
//! them; paths inside the project are unaffected; a symlink in the project that points
//! outside counts as outside.

use crate::support::permissions::*;
use elelem::agent::input::Approval;
use serde_json::{json, Value};

fn write_to(path: &str) -> Value {
    doing(&[("t1", "write", json!({"path": path, "content": "x"}))])
}

fn error_of(run: &Run) -> String {
    run.results()[0]["result"]["error"].as_str().unwrap_or("ran").to_string()
}

/// A place outside the project, under the test's own temp directory.
fn outside(dirs: &Dirs) -> std::path::PathBuf {
    let dir = std::fs::canonicalize(dirs.root.path()).unwrap().join("elsewhere");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn writes_outside_the_project_are_refused_headless_even_when_write_is_allowed() {
    let dirs = Dirs::new(None, None);
    let root = std::fs::canonicalize(&dirs.project).unwrap();
    let home = std::fs::canonicalize(&dirs.home).unwrap();
    let elsewhere = outside(&dirs);
    let cases = [
        ("../x".to_string(), root.parent().unwrap().join("x")),
        (elsewhere.join("tmp-file").display().to_string(), elsewhere.join("tmp-file")),
        (format!("{}/.profile", dirs.home.display()), home.join(".profile")),
    ];
    for (path, resolved) in cases {
        let run = run_ask(&dirs.project, &dirs.home, write_to(&path), &["--allow", "write"], &[]);
        assert_eq!(
            error_of(&run),
            format!(
                "Permission denied: write {}: the path is outside the project ({}), and a headless run cannot ask. \
                 Allow the directory with \"paths\": {{\"allow\": [\"{}\"]}} in ~/.agents/permissions.json, or \
                 run with --yolo",
                resolved.display(),
                root.display(),
                resolved.parent().unwrap().display()
            )
        );
        assert!(!resolved.exists(), "{path}");
    }
}

#[test]
fn reading_a_key_under_home_is_refused_headless_and_allowed_by_yolo() {
    let dirs = Dirs::new(None, None);
    std::fs::create_dir_all(dirs.home.join(".ssh")).unwrap();
    std::fs::write(dirs.home.join(".ssh/id_rsa"), "SECRET\n").unwrap();
    let key = dirs.home.join(".ssh/id_rsa").display().to_string();
    let script = doing(&[("t1", "read", json!({"path": key})), ("t2", "read", json!({"path": "~/.ssh/id_rsa"}))]);
    let run = run_ask(&dirs.project, &dirs.home, script.clone(), &[], &[]);
    for result in run.results() {
        let error = result["result"]["error"].as_str().unwrap();
        assert!(
            error.starts_with("Permission denied: read ") && error.contains(".ssh/id_rsa: the path is outside"),
            "{error}"
        );
    }
    let yolo = run_ask(&dirs.project, &dirs.home, script, &["--yolo"], &[]);
    assert_eq!(yolo.results()[0]["result"]["content"], "     1\tSECRET\n");
}

#[test]
fn paths_inside_the_project_are_unaffected() {
    let dirs = Dirs::new(None, None);
    std::fs::create_dir_all(dirs.project.join("src")).unwrap();
    let absolute = dirs.project.join("src/b.txt").display().to_string();
    let script = doing(&[
        ("t1", "write", json!({"path": "src/a.txt", "content": "x"})),
        ("t2", "write", json!({"path": absolute, "content": "x"})),
        ("t3", "read", json!({"path": "src/../src/a.txt"})),
        ("t4", "list", json!({})),
    ]);
    let run = run_ask(&dirs.project, &dirs.home, script, &["--allow", "write"], &[]);
    let oks: Vec<Value> = run.results().iter().map(|r| r["result"]["ok"].clone()).collect();
    assert_eq!(oks, vec![json!(true); 4]);
}

#[test]
fn a_symlink_in_the_project_that_points_outside_is_outside() {
    let dirs = Dirs::new(None, None);
    let elsewhere = outside(&dirs);
    std::os::unix::fs::symlink(&elsewhere, dirs.project.join("link")).unwrap();
    let run = run_ask(&dirs.project, &dirs.home, write_to("link/x"), &["--allow", "write"], &[]);
    assert!(error_of(&run).starts_with(&format!("Permission denied: write {}: ", elsewhere.join("x").display())));
    assert!(!elsewhere.join("x").exists());
}

#[test]
fn a_paths_rule_names_directories_outside_the_project() {
    let dirs = Dirs::new(None, None);
    let elsewhere = outside(&dirs);
    let rules = json!({"paths": {"allow": [elsewhere], "deny": ["~/.ssh"]}}).to_string();
    std::fs::write(dirs.home.join(".agents/permissions.json"), rules).unwrap();
    let target = elsewhere.join("notes.md").display().to_string();
    let run = run_ask(&dirs.project, &dirs.home, write_to(&target), &["--allow", "write"], &[]);
    assert_eq!(error_of(&run), "ran");
    assert!(elsewhere.join("notes.md").exists());

    let read_key = doing(&[("t1", "read", json!({"path": "~/.ssh/id_rsa"}))]);
    let run = run_ask(&dirs.project, &dirs.home, read_key, &["--yolo"], &[]);
    assert!(error_of(&run).ends_with(".ssh/id_rsa: a paths rule denies it"), "{}", error_of(&run));
}

#[test]
fn an_untrusted_project_cannot_allow_paths_outside_itself() {
    let dirs = Dirs::new(None, None);
    let elsewhere = outside(&dirs);
    let rules = json!({"paths": {"allow": [elsewhere]}}).to_string();
    std::fs::write(dirs.project.join(".agents/permissions.json"), rules).unwrap();
    let target = elsewhere.join("x").display().to_string();
    let run = run_ask(&dirs.project, &dirs.home, write_to(&target), &["--allow", "write"], &[]);
    assert!(error_of(&run).contains("the path is outside the project"));
    assert!(run.infos()[0].contains(&format!("ignored: paths allow {}", elsewhere.display())));
    let trusted = run_ask(&dirs.project, &dirs.home, write_to(&target), &["--allow", "write", "--trust"], &[]);
    assert_eq!(error_of(&trusted), "ran");
}

#[tokio::test]
async fn an_allowed_tool_is_asked_about_a_path_outside_the_project() {
    let dirs = Dirs::new(Some(r#"{"write": "allow"}"#), None);
    let elsewhere = outside(&dirs);
    let answers = Answers::new(&[Approval::Yes, Approval::No]);
    let mut session = dirs.session(interactive(), answers.clone()).unwrap();
    let target = elsewhere.join("a.txt");
    let inside = call(&mut session, "write", json!({"path": dirs.file("in.txt"), "content": "x"})).await;
    assert_eq!(inside["ok"], true);
    assert!(answers.asked().is_empty(), "inside the project the rule is enough");
    let first = call(&mut session, "write", json!({"path": target, "content": "x"})).await;
    assert_eq!(first["ok"], true);
    let root = std::fs::canonicalize(&dirs.project).unwrap();
    let asked = &answers.asked()[0];
    assert!(
        asked.preview.text.starts_with(&format!("{} is outside the project ({})\n", target.display(), root.display())),
        "{}",
        asked.preview.text
    );
    let second = call(&mut session, "read", json!({"path": target})).await;
    assert_eq!(second, json!({"error": "User denied permission: read", "ok": false}), "read-only tools too");
}
