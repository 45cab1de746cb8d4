//! The GitHub Action's shell steps (`scripts/action.sh`, called by `action.yml`) run as a
//! runner runs them: a clean environment with RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP,
//! GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE, GITHUB_ACTION_PATH and
//! the inputs as INPUT_*. `run` drives the real binary on the stub provider (and a fake
//! `elelem` that records its arguments), `release` installs from a file:// release, `build`
//! calls a fake `cargo` once and then takes the cached binary.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const REPO: &str = env!("CARGO_MANIFEST_DIR");
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A runner's files and folders for one job.
struct Runner {
    dir: tempfile::TempDir,
}

impl Runner {
    fn new() -> Runner {
        let runner = Runner { dir: tempfile::tempdir().unwrap() };
        for sub in ["workspace", "temp", "home", "bin"] {
            std::fs::create_dir_all(runner.path(sub)).unwrap();
        }
        for file in ["output", "path", "summary"] {
            std::fs::write(runner.path(file), "").unwrap();
        }
        runner
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_default()
    }

    /// An executable script at `rel`.
    fn script(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// `scripts/action.sh STEP` with the runner's variables, `path_first` before the system's
    /// PATH, and `env`.
    fn step(&self, step: &str, path_first: &[&Path], env: &[(&str, &str)]) -> Output {
        let mut path: Vec<String> = path_first.iter().map(|p| p.display().to_string()).collect();
        path.push("/usr/local/bin:/usr/bin:/bin".into());
        Command::new("bash")
            .arg(Path::new(REPO).join("scripts/action.sh"))
            .arg(step)
            .env_clear()
            .env("PATH", path.join(":"))
            .env("HOME", self.path("home"))
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("RUNNER_TEMP", self.path("temp"))
            .env("GITHUB_OUTPUT", self.path("output"))
            .env("GITHUB_PATH", self.path("path"))
            .env("GITHUB_STEP_SUMMARY", self.path("summary"))
            .env("GITHUB_WORKSPACE", self.path("workspace"))
            .env("GITHUB_ACTION_PATH", REPO)
            .envs(env.iter().copied())
            .output()
            .unwrap()
    }

    /// GITHUB_OUTPUT read back: `name<<DELIMITER`, the value's lines, `DELIMITER`.
    fn outputs(&self) -> BTreeMap<String, String> {
        let text = self.read("output");
        let mut lines = text.lines();
        let mut outputs = BTreeMap::new();
        while let Some(line) = lines.next() {
            let (name, delimiter) = line.split_once("<<").unwrap_or_else(|| panic!("not a heredoc output: {line:?}"));
            let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delimiter).collect();
            outputs.insert(name.to_string(), value.join("\n"));
        }
        outputs
    }
}

fn binary_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_elelem")).parent().unwrap().to_path_buf()
}

fn stub_script(runner: &Runner, texts: &[&str]) -> String {
    let steps: Vec<Value> = texts.iter().map(|t| json!({"events": [{"type": "saying", "text": t}]})).collect();
    let path = runner.path("stub.json");
    std::fs::write(&path, Value::Array(steps).to_string()).unwrap();
    path.display().to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn run_gives_the_json_value_as_outputs_and_in_the_job_summary() {
    let runner = Runner::new();
    let script = stub_script(&runner, &["Looks fine.", r#"{"verdict": "ok", "count": 3}"#]);
    let schema = r#"{"type":"object","required":["verdict","count"],"properties":{"count":{"type":"integer"}}}"#;
    let xdg = runner.path("home/data").display().to_string();
    let env = [
        ("INPUT_PROMPT", "Is this pull request ok?\nCount the files it changes."),
        ("INPUT_PROVIDER", "stub"),
        ("INPUT_JSON_SCHEMA", schema),
        ("ELELEM_STUB_SCRIPT", script.as_str()),
        ("XDG_DATA_HOME", xdg.as_str()),
    ];
    let out = runner.step("run", &[&binary_dir()], &env);
    assert!(out.status.success(), "{}", stderr(&out));
    let outputs = runner.outputs();
    assert_eq!(outputs.get("reply").map(String::as_str), Some(r#"{"verdict":"ok","count":3}"#));
    assert_eq!(outputs.get("json").map(String::as_str), Some(r#"{"verdict":"ok","count":3}"#));
    let summary = runner.read("summary");
    assert!(summary.contains("> Is this pull request ok?\n> Count the files it changes.\n"), "{summary}");
    assert!(summary.contains("```json\n{\"verdict\":\"ok\",\"count\":3}\n```"), "{summary}");
    // Progress went to the log (stderr), with the first reply's complaint.
    assert!(stderr(&out).contains("does not fit the JSON Schema"), "{}", stderr(&out));
}

#[test]
fn run_without_a_schema_gives_the_reply_and_a_failure_keeps_the_exit_status() {
    let runner = Runner::new();
    let script = stub_script(&runner, &["Two files changed.\nBoth fine."]);
    let xdg = runner.path("home/data").display().to_string();
    let env = [
        ("INPUT_PROMPT", "Summarise"),
        ("INPUT_PROVIDER", "stub"),
        ("ELELEM_STUB_SCRIPT", script.as_str()),
        ("XDG_DATA_HOME", xdg.as_str()),
    ];
    let out = runner.step("run", &[&binary_dir()], &env);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(runner.outputs().get("reply").map(String::as_str), Some("Two files changed.\nBoth fine."));
    assert!(!runner.outputs().contains_key("json"));
    assert!(runner.read("summary").contains("Two files changed.\nBoth fine.\n"));

    // A model that never fits the schema: the step fails, the summary says why.
    let runner = Runner::new();
    let script = stub_script(&runner, &["no", "no", "no"]);
    let env = [
        ("INPUT_PROMPT", "Verdict?"),
        ("INPUT_PROVIDER", "stub"),
        ("INPUT_JSON_SCHEMA", r#"{"type":"object"}"#),
        ("ELELEM_STUB_SCRIPT", script.as_str()),
        ("XDG_DATA_HOME", xdg.as_str()),
    ];
    let out = runner.step("run", &[&binary_dir()], &env);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(runner.outputs().get("json").map(String::as_str), Some(""));
    let summary = runner.read("summary");
    assert!(summary.contains("elelem failed (exit 1)") && summary.contains("JSON Schema"), "{summary}");
}

#[test]
fn run_passes_the_inputs_as_flags_and_the_key_as_the_providers_variable() {
    let runner = Runner::new();
    // A fake elelem: its arguments one a line, its directory and key, then a reply.
    runner.script(
        "bin/elelem",
        "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done >\"$RECORD\"\npwd >>\"$RECORD\"\n\
         echo \"key=$OPENAI_API_KEY\" >>\"$RECORD\"\necho 'the reply'\n",
    );
    let record = runner.path("record").display().to_string();
    let env = [
        ("INPUT_PROMPT", "--yolo is a prompt here"),
        ("INPUT_PROVIDER", "openai"),
        ("INPUT_MODEL", "gpt-test"),
        ("INPUT_SANDBOX", "read-only"),
        ("INPUT_ALLOW", " execute, write "),
        ("INPUT_API_KEY", "sk-action-0123456789"),
        ("RECORD", record.as_str()),
    ];
    let out = runner.step("run", &[&runner.path("bin")], &env);
    assert!(out.status.success(), "{}", stderr(&out));
    let workspace = runner.path("workspace").canonicalize().unwrap().display().to_string();
    let expected = [
        "ask",
        "--provider",
        "openai",
        "--model",
        "gpt-test",
        "--sandbox",
        "read-only",
        "--allow",
        "execute",
        "--allow",
        "write",
        "--",
        "--yolo is a prompt here",
        &workspace,
        "key=sk-action-0123456789",
    ];
    assert_eq!(runner.read("record").lines().collect::<Vec<_>>(), expected);
    // The key is masked in the log.
    assert!(String::from_utf8_lossy(&out.stdout).contains("::add-mask::sk-action-0123456789"));
    assert_eq!(runner.outputs().get("reply").map(String::as_str), Some("the reply"));
    // An empty prompt is refused before elelem runs.
    let env = [("INPUT_PROMPT", " \n "), ("RECORD", record.as_str())];
    let out = runner.step("run", &[&runner.path("bin")], &env);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("the prompt input is empty"));
}

/// A release folder holding `elelem-VERSION-TARGET.tar.gz` (a fake binary) and SHA256SUMS.
fn release_folder(runner: &Runner, target: &str) -> PathBuf {
    let name = format!("elelem-{VERSION}-{target}");
    let stage = runner.path("stage").join(&name);
    std::fs::create_dir_all(&stage).unwrap();
    runner.script(&format!("stage/{name}/elelem"), "#!/bin/sh\necho released\n");
    let release = runner.path("release");
    std::fs::create_dir_all(&release).unwrap();
    let tar = Command::new("tar")
        .args(["-czf", &release.join(format!("{name}.tar.gz")).display().to_string(), "-C"])
        .arg(runner.path("stage"))
        .arg(&name)
        .status()
        .unwrap();
    assert!(tar.success());
    let sums = Command::new("sha256sum").arg(format!("{name}.tar.gz")).current_dir(&release).output().unwrap();
    std::fs::write(release.join("SHA256SUMS"), sums.stdout).unwrap();
    release
}

#[test]
fn release_installs_the_binary_for_the_runner_when_there_is_one() {
    let runner = Runner::new();
    let release = release_folder(&runner, "x86_64-unknown-linux-gnu");
    let url = format!("file://{}", release.display());
    let out = runner.step("release", &[], &[("ELELEM_RELEASE_URL", &url)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let outputs = runner.outputs();
    assert_eq!(outputs.get("installed").map(String::as_str), Some("true"));
    let root = runner.path("temp/elelem");
    assert_eq!(outputs.get("root").map(PathBuf::from), Some(root.clone()));
    assert!(outputs["cache-key"].starts_with(&format!("elelem-{VERSION}-Linux-X64-")), "{outputs:?}");
    assert_eq!(runner.read("path"), format!("{}\n", root.join("bin").display()));
    let ran = Command::new(root.join("bin/elelem")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "released\n");

    // No release for this runner (an ARM64 runner here, Windows): built instead.
    for (os, arch) in [("Linux", "ARM64"), ("Windows", "X64")] {
        let runner = Runner::new();
        let env = [("ELELEM_RELEASE_URL", url.as_str()), ("RUNNER_OS", os), ("RUNNER_ARCH", arch)];
        let out = runner.step("release", &[], &env);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(runner.outputs().get("installed").map(String::as_str), Some("false"));
        assert_eq!(runner.read("path"), "");
    }

    // An archive that does not match its SHA-256 fails the step.
    let runner = Runner::new();
    let release = release_folder(&runner, "x86_64-unknown-linux-gnu");
    std::fs::write(
        release.join("SHA256SUMS"),
        format!("{}  elelem-{VERSION}-x86_64-unknown-linux-gnu.tar.gz\n", "0".repeat(64)),
    )
    .unwrap();
    let url = format!("file://{}", release.display());
    let out = runner.step("release", &[], &[("ELELEM_RELEASE_URL", &url)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("does not match its SHA-256"), "{}", stderr(&out));
    assert!(!runner.path("temp/elelem/bin/elelem").exists());
}

#[test]
fn build_runs_cargo_install_once_and_then_takes_the_cached_binary() {
    let runner = Runner::new();
    // A fake cargo: records its arguments and installs a binary of this version.
    runner.script(
        "bin/cargo",
        &format!(
            "#!/bin/sh\necho \"$@\" >>\"$RECORD\"\nroot=\"$6\"\nmkdir -p \"$root/bin\"\n\
             printf '#!/bin/sh\\necho \"elelem {VERSION}\"\\n' >\"$root/bin/elelem\"\nchmod +x \"$root/bin/elelem\"\n"
        ),
    );
    let record = runner.path("record").display().to_string();
    let env = [("RECORD", record.as_str())];
    for _ in 0..2 {
        let out = runner.step("build", &[&runner.path("bin")], &env);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let root = runner.path("temp/elelem");
    assert_eq!(
        runner.read("record"),
        format!("install --locked --path {REPO} --root {} --bin elelem\n", root.display()),
        "cargo ran once"
    );
    let bin = root.join("bin").display().to_string();
    assert_eq!(runner.read("path"), format!("{bin}\n{bin}\n"));
}

#[test]
fn action_yml_passes_every_input_to_the_script() {
    let action = std::fs::read_to_string(Path::new(REPO).join("action.yml")).unwrap();
    let script = std::fs::read_to_string(Path::new(REPO).join("scripts/action.sh")).unwrap();
    let inputs: Vec<&str> = action
        .split("\ninputs:\n")
        .nth(1)
        .and_then(|rest| rest.split("\noutputs:\n").next())
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("  ").filter(|l| !l.starts_with(' ')).and_then(|l| l.strip_suffix(':')))
        .collect();
    assert_eq!(inputs, ["prompt", "provider", "model", "api-key", "json-schema", "allow", "sandbox"]);
    for input in inputs {
        let variable = format!("INPUT_{}", input.to_uppercase().replace('-', "_"));
        assert!(action.contains(&format!("{variable}: ${{{{ inputs.{input} }}}}")), "{variable} in action.yml");
        assert!(script.contains(&variable), "{variable} in scripts/action.sh");
    }
    for step in ["release", "build", "run"] {
        assert!(action.contains(&format!("scripts/action.sh\" {step}'")), "{step}");
    }
}
