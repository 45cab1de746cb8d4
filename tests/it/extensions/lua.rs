//! Lua plugin files end to end: the real binary (`ask --json`, `chat --plain`, `plugins`)
//! with plugin files in a temporary home and project, driven by stub scripts (and a local
//! OpenAI-compatible server for a declared provider).

use crate::support::home::elelem;
use crate::support::{Reply, Server};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Arc;

/// A temporary home (with `~/.agents/plugins`) and project.
struct Env {
    _root: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl Env {
    fn new() -> Env {
        let root = tempfile::tempdir().unwrap();
        let (home, project) = (root.path().join("home"), root.path().join("project"));
        std::fs::create_dir_all(home.join(".agents/plugins")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        Env { _root: root, home, project }
    }

    /// Writes `~/.agents/plugins/<name>`.
    fn user_plugin(&self, name: &str, source: &str) -> PathBuf {
        write(&self.home.join(".agents/plugins").join(name), source)
    }

    /// Writes `.agents/plugins/<name>` in the project.
    fn project_plugin(&self, name: &str, source: &str) -> PathBuf {
        write(&self.project.join(".agents/plugins").join(name), source)
    }

    fn command(&self, args: &[&str], script: Value) -> Command {
        let script_path = self.home.join("script.json");
        std::fs::write(&script_path, script.to_string()).unwrap();
        let mut cmd = elelem(&self.project, &self.home);
        cmd.args(args).env("ELELEM_STUB_SCRIPT", &script_path).env_remove("ELELEM_LUA_TIMEOUT_MS");
        cmd
    }

    /// `elelem ask --json -p stub go <flags>`: the JSON lines and stderr.
    fn ask(&self, flags: &[&str], script: Value) -> (Vec<Value>, String) {
        self.ask_with(flags, script, &[])
    }

    fn ask_with(&self, flags: &[&str], script: Value, envs: &[(&str, &str)]) -> (Vec<Value>, String) {
        let mut args = vec!["ask", "--json", "-p", "stub"];
        args.extend_from_slice(flags);
        args.push("go");
        let mut cmd = self.command(&args, script);
        cmd.envs(envs.iter().copied());
        let output = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let lines = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (lines, String::from_utf8_lossy(&output.stderr).into_owned())
    }

    /// `elelem chat --plain -p stub` with `stdin`: stdout.
    fn chat(&self, stdin: &str, script: Value) -> String {
        let mut child = self.command(&["chat", "--plain", "-p", "stub"], script).spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        let output = child.wait_with_output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

fn write(path: &Path, source: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, source).unwrap();
    path.to_path_buf()
}

/// One model call asking for these tool calls, then one that answers `done`.
fn calls(calls: &[(&str, Value)]) -> Value {
    let doing: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| json!({"type": "doing", "id": format!("c{i}"), "name": name, "arguments": args}))
        .collect();
    json!([{"events": doing}, {"events": [{"type": "saying", "text": "done"}]}])
}

/// The results of the tool calls, in call order (read-only calls run together and may
/// finish in any order).
fn results(lines: &[Value]) -> Vec<Value> {
    let mut results: Vec<&Value> = lines.iter().filter(|l| l["type"] == "result").collect();
    results.sort_by_key(|l| l["id"].as_str().map(|id| (id.len(), id.to_string())));
    results.into_iter().map(|l| l["result"].clone()).collect()
}

const SHOUT: &str = r#"
elelem.setup(function(session)
  session.toolbox:add({
    name = "shout", description = "Upper-case some text",
    params = { text = { type = "string", description = "what to shout" } },
    required = { "text" }, aliases = { "yell" }, read_only = true,
    summary = function(args) return args.text end,
    handler = function(args) return { content = string.upper(args.text) } end,
  })
end)
"#;

#[test]
fn a_plugin_tool_is_called_by_its_alias_and_validated_by_its_schema() {
    let env = Env::new();
    env.user_plugin("shout.lua", SHOUT);
    let (lines, _) = env.ask(&[], calls(&[("yell", json!({"text": "hey"})), ("shout", json!({}))]));
    let doing: Vec<&Value> = lines.iter().filter(|l| l["type"] == "doing").map(|l| &l["name"]).collect();
    assert_eq!(doing, ["shout", "shout"]);
    assert_eq!(
        results(&lines),
        [
            json!({"content": "HEY", "ok": true}),
            json!({"error": "object at root is missing required properties: text", "ok": false}),
        ]
    );
}

const TRACED: &str = r#"
local trace = {}
elelem.setup(function(session)
  trace = {}
  session.toolbox:add({ name = "note", description = "writes a note",
    params = { text = { type = "string" } }, required = { "text" },
    handler = function(args) table.insert(trace, "handler"); return { content = args.text } end })
  session.toolbox:add({ name = "trace", description = "what ran", read_only = true,
    handler = function() return { content = table.concat(trace, ", ") } end })
  session.toolbox:before("note", function() table.insert(trace, "before note") end)
  session.toolbox:before("*", function(args, name) if name == "note" then table.insert(trace, "before *") end end)
  session.toolbox:after("note", function(args, result)
    table.insert(trace, "after note")
    result.trace = table.concat(trace, ", ")
    return result
  end)
  session.toolbox:after("*", function(args, result, name) if name == "note" then table.insert(trace, "after *") end end)
end)
"#;

#[test]
fn hooks_run_after_the_permissions_gate_global_first_then_per_tool() {
    let env = Env::new();
    env.user_plugin("traced.lua", TRACED);
    let script = calls(&[("note", json!({"text": "hi"})), ("trace", json!({}))]);

    // A plugin tool that is not read-only is `ask`: headless, the gate refuses it before
    // any plugin hook runs.
    let (lines, _) = env.ask(&[], script.clone());
    let refused = &results(&lines)[0];
    assert_eq!(refused["ok"], false);
    assert!(refused["error"].as_str().unwrap().contains("--allow note"), "{refused}");
    assert_eq!(results(&lines)[1], json!({"content": "", "ok": true}));

    let (lines, _) = env.ask(&["--allow", "note"], script);
    assert_eq!(
        results(&lines)[0],
        json!({"content": "hi", "trace": "before *, before note, handler, after *, after note", "ok": true})
    );
}

#[test]
fn a_before_hook_returning_an_error_refuses_the_call() {
    let env = Env::new();
    env.user_plugin(
        "guard.lua",
        r#"elelem.setup(function(session)
             session.toolbox:before("execute", function(args)
               if args.command:find("rm %-rf") then return { error = "refused by plugin" } end
             end)
           end)"#,
    );
    std::fs::write(env.project.join("victim"), "still here").unwrap();
    let script = calls(&[("execute", json!({"command": "rm -rf victim"})), ("execute", json!({"command": "echo ok"}))]);
    let (lines, _) = env.ask(&["--yolo"], script);
    let results = results(&lines);
    assert_eq!(results[0], json!({"error": "refused by plugin", "ok": false}));
    assert_eq!(results[1]["ok"], true);
    assert!(env.project.join("victim").exists());
}

#[test]
fn a_raising_handler_or_hook_fails_the_call_with_the_message_name_and_arguments() {
    let env = Env::new();
    env.user_plugin(
        "raises.lua",
        r#"elelem.setup(function(session)
  session.toolbox:add({ name = "boom", description = "raises", read_only = true,
    handler = function(args) error("kaboom") end })
  session.toolbox:add({ name = "guarded", description = "guarded", read_only = true,
    handler = function(args) return "fine" end })
  session.toolbox:before("guarded", function(args) error("the guard fell over") end)
end)"#,
    );
    let (lines, _) = env.ask(&[], calls(&[("boom", json!({"k": 1})), ("guarded", json!({"k": 2}))]));
    assert_eq!(
        results(&lines),
        [
            json!({"error": "raises.lua:3: kaboom", "name": "boom", "args": {"k": 1}, "ok": false}),
            json!({"error": "raises.lua:6: the guard fell over", "name": "guarded", "args": {"k": 2}, "ok": false}),
        ]
    );
}

#[test]
fn a_file_that_fails_to_load_is_reported_and_the_others_still_load() {
    let env = Env::new();
    let broken = env.user_plugin("a_broken.lua", "local x = 1\nx = = 2\n");
    let raising =
        env.user_plugin("b_raising.lua", "elelem.setup(function(session)\n  error('no setup for you')\nend)\n");
    let taken = env.user_plugin(
        "c_taken.lua",
        "elelem.setup(function(s) s.toolbox:add({name = 'half', handler = print}) end)\n\
         elelem.provider({name = 'openai', wire = 'openai'})\n",
    );
    env.user_plugin("d_shout.lua", SHOUT);
    let (lines, stderr) = env.ask(&[], calls(&[("shout", json!({"text": "still"})), ("half", json!({}))]));
    let failures = [
        format!("failed to load plugin {}: 2: unexpected symbol near '='", broken.display()),
        format!("failed to load plugin {}: 2: no setup for you", raising.display()),
        format!("failed to load plugin {}: provider openai: that name belongs to a built-in provider", taken.display()),
    ];
    for (line, failure) in lines.iter().zip(&failures) {
        assert_eq!(*line, json!({"type": "error", "message": failure}));
        assert!(stderr.contains(failure.as_str()), "{stderr}");
    }
    let results = results(&lines);
    assert_eq!(results[0], json!({"content": "STILL", "ok": true}));
    let unknown = results[1]["error"].as_str().unwrap();
    assert!(unknown.starts_with("unknown tool: \"half\""), "nothing of a failed file stays: {unknown}");
}

/// A session with the plugin files of `env`, set up in this process.
fn session_with_plugins(env: &Env) -> elelem::agent::Session {
    use elelem::plugins::lua::{Folders, LuaSettings, PluginFiles};
    let providers = elelem::providers::builtin().unwrap();
    let settings = elelem::protocol::ProviderSettings::default();
    let provider = providers.build("stub", &settings).unwrap();
    let output = Arc::new(elelem::agent::output::RecordingOutput::default());
    let prompt = elelem::agent::system_prompt::SystemPrompt::new(env.project.clone());
    let agent = elelem::agent::Agent::new(provider, Default::default(), output, elelem::agent::Transcript::new(prompt));
    let input = Box::new(elelem::repl::StdinInput::default());
    let approver = Arc::new(elelem::agent::input::DenyAll);
    let mut session = elelem::agent::Session::new(agent, input, providers, settings, approver);
    let plugin = PluginFiles::new(LuaSettings {
        folders: Folders::new(Some(&env.home), &env.project, false),
        cwd: env.project.clone(),
        wires: Arc::new(|_, _| Err(elelem::protocol::ProviderError::Config("no wires here".into()))),
        limit: std::time::Duration::from_secs(2),
        stderr_notices: false,
    });
    session.add_plugin(Arc::new(plugin)).unwrap();
    session
}

#[test]
fn a_plugin_tool_describes_itself_like_a_built_in() {
    let env = Env::new();
    env.user_plugin("shout.lua", SHOUT);
    env.user_plugin(
        "plain.lua",
        r#"elelem.setup(function(session)
  session.toolbox:add({ name = "plain", description = "changes things",
    summary = function(args) error("no summary today") end, handler = function() end })
end)"#,
    );
    let session = session_with_plugins(&env);
    let toolbox = session.toolbox();
    assert_eq!(toolbox.summarize("yell", &json!({"text": "hey"})), "hey");
    assert!(toolbox.get("yell").unwrap().read_only);
    let plain = toolbox.get("plain").unwrap();
    assert!(!plain.read_only);
    assert_eq!(plain.summarize(&json!({"a": 1})), r#"{"a":1}"#, "a failing summary falls back to the arguments");
    assert_eq!(plain.parameters, json!({"type": "object", "properties": {}, "required": []}));
}

#[test]
fn a_looping_handler_or_file_is_stopped_by_the_time_limit() {
    let env = Env::new();
    env.user_plugin("a_loops_at_load.lua", "while true do end\n");
    env.user_plugin(
        "b_spin.lua",
        r#"elelem.setup(function(session)
  session.toolbox:add({ name = "spin", description = "loops", read_only = true,
    handler = function(args) while true do end end })
end)"#,
    );
    env.user_plugin("c_shout.lua", SHOUT);
    let script = calls(&[("spin", json!({})), ("shout", json!({"text": "after"}))]);
    let (lines, _) = env.ask_with(&[], script, &[("ELELEM_LUA_TIMEOUT_MS", "200")]);
    assert!(
        lines[0]["message"].as_str().unwrap().ends_with("a_loops_at_load.lua: 1: timed out after 200 ms"),
        "{}",
        lines[0]
    );
    assert_eq!(
        results(&lines),
        [
            json!({"error": "b_spin.lua:3: timed out after 200 ms", "name": "spin", "args": {}, "ok": false}),
            json!({"content": "AFTER", "ok": true}),
        ]
    );
}

#[test]
fn an_observer_sees_events_and_can_read_the_session() {
    let env = Env::new();
    env.user_plugin(
        "observer.lua",
        r#"elelem.setup(function(session)
  session:on("turn_finished", function(event)
    session.output:say(string.format("observed %s (%s) after %d messages on %s",
      event.reply, event["end"], #session.conversation, session.provider.name))
  end)
  session:on("tool_finished", function(event) session.output:say("tool " .. event.name) end)
end)"#,
    );
    let (lines, _) = env.ask(&[], calls(&[("glob", json!({"pattern": "*"}))]));
    let infos: Vec<&str> = lines.iter().filter(|l| l["type"] == "info").filter_map(|l| l["text"].as_str()).collect();
    assert_eq!(infos, ["tool glob", "observed done (done) after 2 messages on stub"]);
    assert_eq!(lines.last().unwrap()["type"], "info", "the observer runs after the reply is shown");
}

#[test]
fn reload_reads_an_edited_file_and_keeps_the_conversation() {
    let env = Env::new();
    let source = |word: &str| {
        format!(
            r#"elelem.setup(function(session)
  session.commands:register({{ name = "version", description = "which",
    handler = function() return "{word} after " .. #session.conversation .. " messages" end }})
end)"#
        )
    };
    let file = env.user_plugin("version.lua", &source("first"));
    let script = json!([{"events": [{"type": "saying", "text": "hello back"}]}]);
    let mut child: Child = env.command(&["chat", "--plain", "-p", "stub"], script).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(b"hello\n/version\n").unwrap();
    let mut seen = String::new();
    while !seen.contains("first after 2 messages") {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "no answer to /version: {seen}");
        seen.push_str(&line);
    }
    write(&file, &source("second"));
    stdin.write_all(b"/reload\n/version\n").unwrap();
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    child.wait().unwrap();
    assert!(rest.contains("Reloaded:"), "{rest}");
    assert!(rest.contains("second after 2 messages"), "{rest}");
}

#[test]
fn project_plugins_load_only_in_a_trusted_project_and_say_why_not() {
    let env = Env::new();
    env.project_plugin("shout.lua", SHOUT);
    let script = calls(&[("shout", json!({"text": "x"}))]);
    let (lines, stderr) = env.ask(&[], script.clone());
    let notice = lines[0]["message"].as_str().unwrap();
    assert_eq!(lines[0]["type"], "warning");
    assert!(notice.contains(".agents/plugins (1 plugin file) not loaded: this project is not trusted"), "{notice}");
    assert!(notice.contains("--trust"), "{notice}");
    assert!(stderr.contains(notice), "{stderr}");
    assert_eq!(results(&lines)[0]["ok"], false);

    let (lines, _) = env.ask(&["--trust"], script.clone());
    assert_eq!(results(&lines), [json!({"content": "X", "ok": true})]);

    // Trusted once (the answer remembered in the trust store): no --trust needed.
    let store = env.home.join(".local/share/elelem/trusted.json");
    std::fs::create_dir_all(store.parent().unwrap()).unwrap();
    let root = std::fs::canonicalize(&env.project).unwrap();
    std::fs::write(&store, json!({"trusted": [root]}).to_string()).unwrap();
    let (lines, _) = env.ask(&[], script);
    assert_eq!(results(&lines), [json!({"content": "X", "ok": true})]);
}

#[test]
fn a_command_can_queue_a_turn_and_read_the_session() {
    let env = Env::new();
    env.user_plugin(
        "turns.lua",
        r#"elelem.setup(function(session)
  session.commands:register({ name = "again", description = "ask again",
    handler = function(arg) session:turn("again: " .. (arg or "")) end })
  session.commands:register({ name = "where", description = "cwd and provider",
    handler = function() session.output:say(session.provider.name .. " in " .. session.cwd) end })
end)"#,
    );
    let script = json!([{"events": [{"type": "saying", "text": "answered"}]}]);
    let out = env.chat("/again please\n/context\n/where\n", script);
    assert!(out.contains("answered"), "{out}");
    assert!(out.contains("user: again: please"), "{out}");
    assert!(out.contains(&format!("stub in {}", env.project.display())), "{out}");
}

#[test]
fn elelem_plugins_lists_each_file_with_what_it_registered() {
    let env = Env::new();
    let shout = env.user_plugin("shout.lua", SHOUT);
    env.user_plugin("traced.lua", TRACED);
    let output = env.command(&["plugins"], json!([])).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    assert!(out.contains(&format!("{}\n    tools: shout (yell)\n", shout.display())), "{out}");
    assert!(out.contains("    hooks: before note, before *, after note, after *\n"), "{out}");
}

/// A Chat Completions stream whose whole reply is `text`.
fn openai_reply(text: &str) -> String {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    [chunk(json!({"role": "assistant", "content": text}), None), chunk(json!({}), Some("stop"))]
        .iter()
        .map(|c| format!("data: {c}\n\n"))
        .collect::<String>()
        + "data: [DONE]\n\n"
}

/// A provider declared by a user plugin, used with `-p NAME`: the request goes to its
/// base URL with the key from its `key_env` and its model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_provider_is_used_with_p_name() {
    let server = Server::start(vec![Reply::sse(&openai_reply("Hi from local"))]).await;
    let env = Env::new();
    env.user_plugin(
        "local.lua",
        &format!(
            r#"elelem.provider({{ name = "local", wire = "openai", base_url = "{}/v1",
  key_env = "LOCAL_TEST_KEY", model = "tiny-model" }})"#,
            server.url
        ),
    );
    let mut cmd = env.command(&["ask", "--json", "-p", "local", "hello"], json!([]));
    cmd.env("LOCAL_TEST_KEY", "sk-local-123");
    let output = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains(r#"{"type":"reply","text":"Hi from local"}"#), "{stdout}");
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer sk-local-123"));
    assert_eq!(sent.body["model"], "tiny-model");
}

/// A provider declared with `default = true` is used when `-p` names none; one whose key is
/// missing is reported and the session keeps the provider it had.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_default_provider_is_used_without_p() {
    let server = Server::start(vec![Reply::sse(&openai_reply("Hi by default"))]).await;
    let env = Env::new();
    env.user_plugin(
        "local.lua",
        &format!(
            r#"elelem.provider({{ name = "local", wire = "openai", base_url = "{}/v1",
  key_env = "LOCAL_TEST_KEY", model = "tiny-model", default = true }})"#,
            server.url
        ),
    );
    let mut cmd = env.command(&["ask", "--json", "hello"], json!([]));
    cmd.env("LOCAL_TEST_KEY", "sk-local-123");
    let output = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains(r#"{"type":"reply","text":"Hi by default"}"#), "{stdout}");
    assert_eq!(server.requests()[0].body["model"], "tiny-model");

    env.user_plugin(
        "local.lua",
        r#"elelem.provider({ name = "cloud", wire = "anthropic", key_env = "CLOUD_TEST_KEY", default = true })"#,
    );
    let script = json!([{"events": [{"type": "saying", "text": "stub here"}]}]);
    let mut cmd = env.command(&["ask", "--json", "hello"], script);
    cmd.env_remove("CLOUD_TEST_KEY");
    let output = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("default provider cloud from a plugin file"), "{stdout}");
    assert!(stdout.contains("CLOUD_TEST_KEY is not set"), "{stdout}");
    assert!(stdout.contains(r#"{"type":"reply","text":"stub here"}"#), "{stdout}");
}
