//! Unit and property tests of `shell.rs` with `matcher.rs`: every rewording of a denied
//! command from issue 9 stays denied, alone and combined.

use super::super::matcher::CommandRules;
use super::super::rules::Policy;
use super::*;
use proptest::prelude::*;

/// Each simple command's innermost reading, words joined by `·` (`?` for dynamic words).
fn innermost(command: &str) -> Vec<String> {
    ParsedCommand::parse(command)
        .commands
        .iter()
        .map(|c| {
            let words = &c.readings.last().unwrap().words;
            words.iter().map(|w| if let Word::Literal(w) = w { w.as_str() } else { "?" }).collect::<Vec<_>>().join("·")
        })
        .collect()
}

fn deny(prefix: &str) -> CommandRules {
    CommandRules { prefixes: vec![(CommandRules::prefix_words(prefix), Policy::Deny)], default: None }
}

fn policy(rules: &CommandRules, command: &str) -> Policy {
    rules.judge(&ParsedCommand::parse(command), Policy::Ask).policy
}

#[test]
fn quotes_and_backslashes_come_off_words() {
    assert_eq!(innermost(r#"\git  'push' "or"ig\in"#), vec!["git·push·origin"]);
    assert_eq!(innermost(r#"echo "a \$b \x" 'c d'"#), vec![r"echo·a $b \x·c d"]);
    assert_eq!(innermost("ls ~ ~/x"), vec!["ls·~·~/x"]);
    assert_eq!(innermost("ls *.rs $HOME {a,b}"), vec!["ls·?·?·?"]);
}

#[test]
fn every_simple_command_is_found() {
    assert_eq!(innermost("a && b || c; d & e | f"), vec!["a", "b", "c", "d", "e", "f"]);
    assert_eq!(innermost("(a; { b; })"), vec!["a", "b"]);
    assert_eq!(innermost("echo $(a \"$(b)\") `c`"), vec!["b", "a·?", "c", "echo·?·?"]);
    assert_eq!(innermost("if a; then b; elif c; then d; else e; fi"), vec!["a", "b", "c", "d", "e"]);
    assert_eq!(innermost("for x in $(a); do b; done; while c; do d; done"), vec!["a", "b", "c", "d"]);
    assert_eq!(innermost("case $(a) in x) b;; esac"), vec!["a", "b"]);
    assert_eq!(innermost("f() { a; }; X=$(b) c"), vec!["a", "b", "c"]);
    assert_eq!(innermost("diff <(a) <(b)"), vec!["a", "b", "diff·?·?"]);
    assert_eq!(innermost("bash -lc 'a; b' && eval c d"), vec!["bash·-lc·a; b", "a", "b", "eval·c·d", "c·d"]);
    assert_eq!(innermost("sh script.sh"), vec!["sh·script.sh"]);
}

#[test]
fn redirections_are_noticed_but_not_joined_streams() {
    let redirected = |c: &str| ParsedCommand::parse(c).redirected;
    assert!(redirected("a > f") && redirected("a < f") && redirected("a >> f") && redirected("a &> f"));
    assert!(redirected("cat <<EOF\nx\nEOF") && redirected("cat <<< x") && redirected("(a) > f"));
    assert!(!redirected("a 2>&1") && !redirected("a >/dev/null 2>&1") && !redirected("a | b"));
}

#[test]
fn what_cannot_be_read_is_said() {
    let unreadable = |c: &str| ParsedCommand::parse(c).unreadable;
    assert!(unreadable("echo 'open").is_some());
    assert!(unreadable("bash -c \"$CMD\"").is_some());
    assert!(unreadable("eval $CMD").is_some());
    assert!(unreadable("echo ${X:-$(git push)}").is_some());
    assert_eq!(unreadable("echo $((1 + 2)) $((x))"), None, "arithmetic runs nothing");
    assert!(unreadable("env $OPTS git push").is_some());
    assert_eq!(unreadable("git push && ls"), None);
}

#[test]
fn substitutions_in_here_documents_are_read() {
    assert_eq!(innermost("cat <<EOF\n$(git push)\nEOF"), vec!["git·push", "cat"]);
    assert_eq!(innermost("cat <<'EOF'\n$(git push)\nEOF"), vec!["cat"]);
}

/// The rewordings of issue 9, each of which ran with a deny rule for `git push`.
const REWORDINGS: &[&str] = &[
    "git push",
    "git  push",
    "/usr/bin/git push",
    "command git push",
    "env git push",
    r"\git push",
    "bash -c 'git push'",
    r#"sh -c "git push origin""#,
    "git status && git push",
    "true; git push",
    "(git push)",
    "{ git push; }",
    "echo $(git push)",
    "echo \"`git push`\"",
    "FOO=1 git push",
    "env -i PATH=/bin git push",
    "sudo -u root git push",
    "sudo A=1 git push",
    "nohup nice -n 5 git push &",
    "time git push",
    "exec git push",
    "builtin command git push",
    "timeout 10 git push",
    "echo x | xargs git push",
    "zsh -c 'true; dash -c \"git push\"'",
    "if true; then git push; fi",
    "g'i't p\"ush\"",
    "cat <(git push)",
    "git push 2>&1 > /tmp/log",
];

#[test]
fn every_rewording_of_a_denied_command_is_denied() {
    let rules = deny("git push");
    for command in REWORDINGS {
        assert_eq!(policy(&rules, command), Policy::Deny, "{command}");
    }
    assert_eq!(policy(&rules, "git status"), Policy::Ask);
    assert_eq!(policy(&rules, "echo git push"), Policy::Ask, "an argument is not a command");
}

/// Ways to wrap a command that runs `inner`; the ones that need `inner` to start with
/// the program's name check it.
fn reword(inner: &str, how: usize) -> String {
    let starts_with_name = inner.starts_with("touch");
    // A wrapper runs a simple command; before `(`, `{` or `if` it is a syntax error.
    // So is an assignment after one (but `env` and `sudo` take them).
    let simple = !inner.starts_with(['(', '{']) && !inner.starts_with("if ") && !inner.starts_with("X=");
    match how {
        0 => inner.replace(' ', "  "),
        1 if starts_with_name => format!("/usr/bin/{inner}"),
        2 if starts_with_name => format!("\\{inner}"),
        3 if simple => format!("command {inner}"),
        4 if simple => format!("env -i A=1 {inner}"),
        5 => format!("bash -c '{}'", inner.replace('\'', r"'\''")),
        6 => format!(
            "sh -c \"{}\"",
            inner.replace('\\', r"\\").replace('"', "\\\"").replace('$', "\\$").replace('`', "\\`")
        ),
        7 => format!("true && {inner}"),
        8 => format!("true; {inner}"),
        9 => format!("( {inner} )"),
        10 => format!("{{ {inner}; }}"),
        11 => format!("echo $( {inner} )"),
        12 if simple => format!("nohup {inner}"),
        13 if simple => format!("sudo {inner}"),
        14 if simple => format!("X=1 {inner} | cat"),
        15 => format!("if true; then {inner}; fi"),
        16 if simple => format!("nice -n 5 {inner}"),
        17 => format!("false || {inner} 2>&1"),
        18 if !inner.ends_with('&') => format!("{{ {inner} & }}"),
        _ => inner.to_string(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_denied_command_stays_denied_however_it_is_reworded(hows in proptest::collection::vec(0usize..19, 1..5)) {
        let rules = deny("touch");
        let mut command = "touch PWNED".to_string();
        for how in hows {
            command = reword(&command, how);
        }
        prop_assert_eq!(policy(&rules, &command), Policy::Deny, "{}", command);
    }
}

#[test]
fn arithmetic_runs_nothing_but_nested_subshells_do() {
    assert_eq!(innermost("(( i++ )); echo $((1 + $x)) $(( ${y} * 2 ))"), vec!["echo·?·?"]);
    assert_eq!(innermost("for ((i=0; i<3; i++)); do echo; done"), vec!["echo"]);
    assert_eq!(innermost("( ( touch a ) ); ((touch b) )"), vec!["touch·a", "touch·b"]);
    assert_eq!(innermost("echo $(( $(git push) + 1 ))"), vec!["git·push", "?·+·1", "echo·?"]);
}
