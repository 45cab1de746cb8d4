//! Lua plugin files that attack elelem, through the real binary: binary chunks (mutated
//! bytecode used to crash it), calls that end or block the process from C, and a file
//! registering tens of thousands of tools.

use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::home::elelem;

/// A temporary home with `~/.agents/plugins` and a project.
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

    fn plugin(&self, name: &str, source: &str) -> PathBuf {
        let path = self.home.join(".agents/plugins").join(name);
        std::fs::write(&path, source).unwrap();
        path
    }

    fn command(&self, args: &[&str], script: Value) -> Command {
        let script_path = self.home.join("script.json");
        std::fs::write(&script_path, script.to_string()).unwrap();
        let mut cmd = elelem(&self.project, &self.home);
        cmd.args(args)
            .env("XDG_DATA_HOME", &self.home)
            .env("ELELEM_STUB_SCRIPT", &script_path)
            .env_remove("ELELEM_LUA_TIMEOUT_MS")
            // 20,000 tool definitions are more than any model's window (elelem would refuse
            // to send them); the stub has no real window, and these tests are about plugins.
            .env("ELELEM_CONTEXT_WINDOW", "100000000")
            .stdin(Stdio::null());
        cmd
    }

    /// `elelem ask --json -p stub go`: the JSON lines and the process's output.
    fn ask(&self, script: Value) -> (Vec<Value>, Output) {
        let output = self.command(&["ask", "--json", "-p", "stub", "go"], script).output().unwrap();
        let lines = String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (lines, output)
    }
}

/// One model call asking for `tool` with `args`, then one that answers `done`.
fn call(tool: &str, args: Value) -> Value {
    json!([
        {"events": [{"type": "doing", "id": "c0", "name": tool, "arguments": args}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ])
}

fn result(lines: &[Value]) -> Value {
    lines.iter().find(|l| l["type"] == "result").map(|l| l["result"].clone()).unwrap_or(Value::Null)
}

/// A tool `try` whose handler runs `body` (a Lua chunk returning a string) and returns
/// `{content = what it returned}`.
fn trying(body: &str) -> String {
    format!(
        "elelem.setup(function(session)\n  session.toolbox:add({{ name = 'try', read_only = true,\n    \
         handler = function(args)\n{body}\n    end }})\nend)\n"
    )
}

#[test]
fn binary_chunks_are_refused_by_load_loadfile_dofile_and_require() {
    let env = Env::new();
    let dir = env.home.display().to_string();
    let body = format!(
        r#"
      local dumped = string.dump(function() return 42 end)
      -- A mutated copy: Lua does not verify bytecode, so loading it could crash elelem.
      local mutated = dumped:sub(1, 20) .. string.rep("\255", 64) .. dumped:sub(85)
      local file = io.open("{dir}/chunk.lua", "wb"); file:write(dumped); file:close()
      package.path = "{dir}/?.lua"
      local said = {{}}
      for _, attempt in ipairs({{
        function() return load(dumped) end,
        function() return load(mutated, "m", "b") end,
        function() return load(dumped, "m", "bt", {{}}) end,
        function() return loadfile("{dir}/chunk.lua") end,
        function() return loadfile("{dir}/chunk.lua", "b") end,
        function() return dofile("{dir}/chunk.lua") end,
        function() return require("chunk") end,
      }}) do
        local ok, f, message = pcall(attempt)
        if ok and type(f) == "function" then return "a binary chunk loaded" end
        said[#said + 1] = tostring(ok and message or f):find("binary chunk") and "refused" or tostring(f)
      end
      -- Text still loads, with or without an environment.
      said[#said + 1] = load("return 1 + 1")() .. load("return x", "x", "t", {{x = 3}})()
      return table.concat(said, " ")"#
    );
    env.plugin("bin.lua", &trying(&body));
    let (lines, output) = env.ask(call("try", json!({})));
    assert!(output.status.success(), "{output:?}");
    let refused = ["refused"; 7].join(" ");
    assert_eq!(result(&lines), json!({"content": format!("{refused} 23"), "ok": true}));
}

#[test]
fn a_plugin_file_that_is_a_binary_chunk_is_refused() {
    let env = Env::new();
    env.plugin(
        "a_make.lua",
        &format!(
            "local f = io.open('{}/.agents/plugins/b_dumped.lua', 'wb')\n\
             f:write(string.dump(function() elelem.setup(function() end) end)); f:close()\n",
            env.home.display()
        ),
    );
    // The first run writes the dumped file; the second loads it.
    env.ask(json!([{"events": [{"type": "saying", "text": "done"}]}]));
    let (lines, output) = env.ask(json!([{"events": [{"type": "saying", "text": "done"}]}]));
    assert!(output.status.success(), "{output:?}");
    let errors: Vec<&str> =
        lines.iter().filter(|l| l["type"] == "error").filter_map(|l| l["message"].as_str()).collect();
    assert!(errors.iter().any(|e| e.contains("b_dumped.lua") && e.contains("binary chunk")), "{errors:?}");
}

#[test]
fn os_exit_execute_and_popen_raise_instead_of_ending_or_blocking_elelem() {
    let env = Env::new();
    let body = r#"
      local said = {}
      for _, f in ipairs({ function() os.exit(3) end, function() os.execute("sleep 5") end,
                           function() io.popen("sleep 5") end }) do
        local ok, message = pcall(f)
        said[#said + 1] = ok and "ran" or message:match("(%S+ is not available to plugins)")
      end
      return table.concat(said, "; ")"#;
    env.plugin("exit.lua", &trying(body));
    let started = Instant::now();
    let (lines, output) = env.ask(call("try", json!({})));
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
    assert!(output.status.success(), "{output:?}");
    let expected = "os.exit is not available to plugins; os.execute is not available to plugins; \
                    io.popen is not available to plugins";
    assert_eq!(result(&lines), json!({"content": expected, "ok": true}));
    assert_eq!(lines.last().unwrap(), &json!({"type": "reply", "text": "done"}));
}

#[test]
fn twenty_thousand_tools_start_in_seconds() {
    let env = Env::new();
    env.plugin(
        "many.lua",
        "elelem.setup(function(session)\n  for i = 1, 20000 do\n    \
         session.toolbox:add({ name = 't' .. i, read_only = true, handler = function() return 'x' .. i end })\n  \
         end\nend)\n",
    );
    let started = Instant::now();
    let (lines, output) = env.ask(call("t20000", json!({})));
    let took = started.elapsed();
    eprintln!("20,000 tools: {took:?}");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(result(&lines), json!({"content": "x20000", "ok": true}));
    // Registering them was quadratic: 71 s on a loaded two-core machine (debug), now ~3 s.
    assert!(took < Duration::from_secs(25), "took {took:?}");
}

/// A `string.find` that backtracks for longer than anyone will wait, in C (no hook runs).
const STUCK_IN_C: &str = r#"string.find(string.rep("a", 40), string.rep("a*", 40) .. "b")"#;

#[test]
fn calls_the_hook_cannot_stop_are_abandoned_and_the_plugin_disabled() {
    let stuck = [
        ("c_find.lua", format!("{STUCK_IN_C}\n      return 'finished'")),
        (
            "c_gc.lua",
            "setmetatable({}, {__gc = function() while true do end end}); collectgarbage()\n      return 'finished'"
                .into(),
        ),
        (
            "c_handler.lua",
            "xpcall(function() error('x') end, function() while true do end end)\n      return 'finished'".into(),
        ),
    ];
    for (file, body) in stuck {
        let env = Env::new();
        env.plugin(file, &trying(&body));
        env.plugin(
            "d_other.lua",
            "elelem.setup(function(s) s.toolbox:add({name = 'other', read_only = true, \
             handler = function() return 'fine' end}) end)\n",
        );
        let script = json!([
            {"events": [{"type": "doing", "id": "c0", "name": "try", "arguments": {}}]},
            {"events": [{"type": "doing", "id": "c1", "name": "try", "arguments": {}},
                        {"type": "doing", "id": "c2", "name": "other", "arguments": {}}]},
            {"events": [{"type": "saying", "text": "done"}]}
        ]);
        let started = Instant::now();
        let mut cmd = env.command(&["ask", "--json", "-p", "stub", "go"], script);
        let output = cmd.env("ELELEM_LUA_TIMEOUT_MS", "300").output().unwrap();
        let took = started.elapsed();
        let lines: Vec<Value> =
            String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let results: Vec<Value> = lines.iter().filter(|l| l["type"] == "result").map(|l| l["result"].clone()).collect();
        eprintln!("{file}: {took:?} {results:?}");
        assert!(output.status.success(), "{file}: {output:?}");
        assert!(took < Duration::from_secs(10), "{file}: took {took:?}");
        assert_eq!(lines.last().unwrap(), &json!({"type": "reply", "text": "done"}), "{file}");
        let disabled = format!(
            "plugin {file} is disabled: a call into it ran past the 300 ms limit and could not be stopped \
             (/reload loads it again)"
        );
        assert_eq!(results[0]["error"], disabled, "{file}");
        assert_eq!(results[1]["error"], disabled, "{file}: later calls fail at once");
        assert_eq!(results[2], json!({"content": "fine", "ok": true}), "{file}: other plugins still work");
    }
}

#[test]
fn a_looping_finalizer_does_not_hang_exit() {
    let env = Env::new();
    env.plugin("gc.lua", "KEEP = setmetatable({}, {__gc = function() while true do end end})\n");
    let started = Instant::now();
    let (lines, output) = env.ask(json!([{"events": [{"type": "saying", "text": "done"}]}]));
    assert!(output.status.success(), "{output:?}");
    assert_eq!(lines.last().unwrap(), &json!({"type": "reply", "text": "done"}));
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[test]
fn ctrl_c_ends_ask_promptly_while_a_handler_is_stuck_in_c() {
    let env = Env::new();
    env.plugin("stuck.lua", &trying(&format!("{STUCK_IN_C}\n      return 'finished'")));
    let mut child = env
        .command(&["ask", "--json", "-p", "stub", "go"], call("try", json!({})))
        .env("ELELEM_LUA_TIMEOUT_MS", "60000")
        .spawn()
        .unwrap();
    // Wait for the call to start, then interrupt.
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let doing = lines.by_ref().map_while(Result::ok).find(|l| l.contains("\"type\":\"doing\""));
    assert!(doing.is_some(), "the call started");
    std::thread::sleep(Duration::from_millis(300));
    let interrupted = Instant::now();
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    let took = interrupted.elapsed();
    eprintln!("exit {took:?} after SIGINT");
    assert_eq!(status.code(), Some(130), "{rest:?}");
    assert!(took < Duration::from_secs(2), "exit took {took:?} after SIGINT");
}

#[test]
fn plugins_lists_an_abandoned_file_as_failed_with_why() {
    let env = Env::new();
    let path = env.plugin("stuck.lua", &trying(&format!("{STUCK_IN_C}\n      return 'finished'")));
    let mut child = env
        .command(&["chat", "--plain", "-p", "stub"], call("try", json!({})))
        .env("ELELEM_LUA_TIMEOUT_MS", "300")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"go\n/plugins\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    let listed = format!(
        "{}\n    failed: plugin stuck.lua is disabled: a call into it ran past the 300 ms limit",
        path.display()
    );
    assert!(out.contains(&listed), "{out}");
}
