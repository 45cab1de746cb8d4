//! Unit tests of `rules.rs`: parsing, and how the user's and the project's rules combine.

use super::*;
use crate::agent::Tool;
use serde_json::json;

fn parse(text: &str) -> RuleSet {
    RuleSet::parse(text, Path::new("p.json"), Path::new("/project"), Some(Path::new("/home/u"))).unwrap()
}

fn user(text: &str) -> Permissions {
    Permissions { user: parse(text), ..Permissions::default() }
}

fn both(user: &str, project: &str, trusted: bool) -> Permissions {
    Permissions { user: parse(user), project: parse(project), trusted }
}

fn policy(p: &Permissions, tool: &str, read_only: bool, command: Option<&str>) -> Policy {
    let parsed = command.map(ParsedCommand::parse);
    p.decide(tool, read_only, parsed.as_ref().map(Subject::Command)).policy
}

#[test]
fn defaults_allow_looking_and_ask_for_changes() {
    let p = Permissions::default();
    assert_eq!(policy(&p, "anything", true, None), Policy::Allow);
    assert_eq!(policy(&p, "anything", false, None), Policy::Ask);
    assert_eq!(policy(&p, "anything", false, Some("ls")), Policy::Ask);
}

#[test]
fn the_longest_prefix_wins_and_deny_wins_ties() {
    let p = user(r#"{"run": {"allow": ["git", "cargo test"], "deny": ["git push", "cargo test"]}}"#);
    assert_eq!(policy(&p, "run", false, Some("git status")), Policy::Allow);
    assert_eq!(policy(&p, "run", false, Some("git push --force")), Policy::Deny);
    assert_eq!(policy(&p, "run", false, Some("cargo test")), Policy::Deny);
    assert_eq!(policy(&p, "run", false, Some("gitk")), Policy::Ask);
}

#[test]
fn an_allowed_prefix_does_not_cover_chained_commands() {
    let p = user(r#"{"run": {"allow": ["cargo test"]}}"#);
    assert_eq!(policy(&p, "run", false, Some("cargo test --lib")), Policy::Allow);
    assert_eq!(policy(&p, "run", false, Some("cargo test; rm -rf ~")), Policy::Ask);
    assert_eq!(policy(&p, "run", false, Some("cargo test && curl x | sh")), Policy::Ask);
    assert_eq!(policy(&p, "run", false, Some("cargo test > out")), Policy::Ask);
}

#[test]
fn a_star_rule_covers_unlisted_tools() {
    let p = user(r#"{"*": "deny", "look": "allow"}"#);
    assert_eq!(policy(&p, "look", true, None), Policy::Allow);
    assert_eq!(policy(&p, "search", true, None), Policy::Deny);
}

#[test]
fn an_untrusted_project_only_tightens() {
    let p = both(r#"{"run": "deny", "look": "allow"}"#, r#"{"run": "allow", "change": "allow", "look": "ask"}"#, false);
    assert_eq!(policy(&p, "run", false, Some("touch PWNED")), Policy::Deny);
    assert_eq!(policy(&p, "change", false, None), Policy::Ask, "the default for write is ask");
    assert_eq!(policy(&p, "look", true, None), Policy::Ask, "tightening applies");
    let p = both("{}", r#"{"run": {"allow": ["ls"], "deny": ["git push"]}}"#, false);
    assert_eq!(policy(&p, "run", false, Some("ls")), Policy::Ask);
    assert_eq!(policy(&p, "run", false, Some("git push")), Policy::Deny);
}

#[test]
fn a_trusted_project_loosens_but_the_users_deny_wins() {
    let p = both(r#"{"run": {"deny": ["git push"]}}"#, r#"{"run": "allow", "change": "allow"}"#, true);
    assert_eq!(policy(&p, "run", false, Some("ls")), Policy::Allow);
    assert_eq!(policy(&p, "run", false, Some("ls && git push")), Policy::Deny);
    assert_eq!(policy(&p, "change", false, None), Policy::Allow);
    let judged = p.decide("run", false, Some(Subject::Command(&ParsedCommand::parse("git $X"))));
    assert_eq!(judged, Judgement { policy: Policy::Ask, uncertain: true }, "a deny that might match still wins");
    let p = both(r#"{"run": "deny"}"#, r#"{"run": "allow"}"#, true);
    assert_eq!(policy(&p, "run", false, Some("touch PWNED")), Policy::Deny);
}

#[test]
fn what_an_untrusted_project_asked_for_in_vain_is_listed() {
    let tool = |name: &str| Tool::new(name, "", json!({"type": "object"}), |_, _| async { Ok(json!(null)) }).unwrap();
    let mut toolbox = Toolbox::new();
    toolbox.add(tool("look").read_only());
    toolbox.add(tool("run").runs_commands("command"));
    let project =
        r#"{"look": "allow", "run": {"allow": ["cargo test"], "deny": ["rm"]}, "paths": {"allow": ["/tmp"]}}"#;
    let p = both("{}", project, false);
    assert_eq!(p.ignored(&toolbox), vec!["run allow \"cargo test\"", "paths allow /tmp"]);
    assert!(both("{}", project, true).ignored(&toolbox).is_empty());
    assert!(p.has_deny("run") && !p.has_deny("look"));
}

#[test]
fn bad_entries_are_named() {
    let err = |text: &str| RuleSet::parse(text, Path::new("/x/p.json"), Path::new("/"), None).unwrap_err().to_string();
    assert_eq!(
        err("[]"),
        r#"invalid permissions file /x/p.json: expected an object such as {"execute": "ask", "read": "allow"}"#
    );
    assert_eq!(
        err(r#"{"look": "yes"}"#),
        r#"invalid permissions file /x/p.json: "look": expected "allow", "deny" or "ask", not "yes""#
    );
    assert_eq!(
        err(r#"{"run": {"allow": "cargo"}}"#),
        r#"invalid permissions file /x/p.json: "run".allow: expected a list of command prefixes"#
    );
    assert_eq!(
        err(r#"{"paths": {"allow": "/tmp"}}"#),
        r#"invalid permissions file /x/p.json: "paths".allow: expected a list of directories"#
    );
    assert!(err("{").starts_with("invalid permissions file /x/p.json: not valid JSON: "));
}

#[test]
fn command_prefixes_only_for_tools_that_run_commands() {
    let tool = |name: &str| Tool::new(name, "", json!({"type": "object"}), |_, _| async { Ok(json!(null)) }).unwrap();
    let mut toolbox = Toolbox::new();
    toolbox.add(tool("look").read_only());
    toolbox.add(tool("run").runs_commands("command").with_aliases(&["sh"]));
    let mut p = RuleSet::parse(r#"{"look": {"allow": ["x"]}}"#, Path::new("/x/p.json"), Path::new("/"), None).unwrap();
    assert_eq!(
        p.canonicalize(&toolbox).unwrap_err().to_string(),
        r#"invalid permissions file /x/p.json: "look": only tools that run shell commands or reach URLs (run) take lists of commands or hosts; use "allow", "deny" or "ask""#
    );
    let mut set = RuleSet::parse(r#"{"sh": {"deny": ["rm"]}}"#, Path::new("/x/p.json"), Path::new("/"), None).unwrap();
    set.canonicalize(&toolbox).unwrap();
    let p = Permissions { user: set, ..Permissions::default() };
    assert_eq!(policy(&p, "run", false, Some("rm -rf x")), Policy::Deny);
}
