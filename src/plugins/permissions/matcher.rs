//! Command prefix rules against a parsed command. Per simple command, the longest
//! matching prefix (in words, on word boundaries) wins, deny winning ties; a command is
//! denied if any simple command in it is, allowed only if every one is allowed and
//! nothing is redirected, and asked about otherwise — including whenever a dynamic word
//! (`$X`, `$(…)`, a glob) stands where a rule would need to see it, or the parser could
//! not read something (`uncertain`).

use super::shell::{ParsedCommand, SimpleCommand};
use super::wrappers::{program_name, Reading, Word};
use super::Policy;

/// `"execute": {"allow": ["cargo test"], "deny": ["git push"], "default": "ask"}`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CommandRules {
    /// Each prefix as words (the first cut to the program's name), with its policy.
    pub prefixes: Vec<(Vec<String>, Policy)>,
    pub default: Option<Policy>,
}

/// What the rules say about a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judgement {
    pub policy: Policy,
    /// Part of the command could not be read or might match a deny rule: the user has to
    /// look (even `--yolo` does not run it when the tool has deny rules).
    pub uncertain: bool,
}

/// Does a rule prefix match a reading's words?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Match {
    Yes,
    /// A dynamic word stands where the prefix needs a literal one.
    Maybe,
    No,
}

impl CommandRules {
    /// A prefix as written in a permissions file: words split on white space, the first
    /// cut to its program name (`/usr/bin/git push` is `git push`).
    pub fn prefix_words(prefix: &str) -> Vec<String> {
        let mut words: Vec<String> = prefix.split_whitespace().map(str::to_string).collect();
        if let Some(first) = words.first_mut() {
            *first = program_name(first);
        }
        words
    }

    pub fn has_deny(&self) -> bool {
        self.default == Some(Policy::Deny) || self.prefixes.iter().any(|(_, p)| *p == Policy::Deny)
    }

    /// The rules' verdict on `command`; `fallback` is the tool's default without a rule.
    pub fn judge(&self, command: &ParsedCommand, fallback: Policy) -> Judgement {
        let default = self.default.unwrap_or(fallback);
        let mut uncertain = command.unreadable.is_some();
        let mut all_allowed = !command.commands.is_empty() && !command.redirected;
        let mut denied = false;
        for simple in &command.commands {
            let (policy, maybe) = self.simple(simple, default);
            uncertain |= maybe;
            denied |= policy == Some(Policy::Deny);
            all_allowed &= policy.is_none_or(|p| p == Policy::Allow);
        }
        let policy = if denied {
            Policy::Deny
        } else if command.commands.is_empty() && !uncertain && !command.redirected {
            default
        } else if all_allowed && !uncertain {
            Policy::Allow
        } else {
            Policy::Ask
        };
        Judgement { policy, uncertain: uncertain && policy != Policy::Deny }
    }

    /// The rules' verdict on a host a call reaches (`docs.rs`, `127.0.0.1:8080`): each rule
    /// is a host (any port), a host with its port, `*.example.org` (the domain and its
    /// subdomains) or `*`; the strictest matching rule wins, else the default.
    pub fn judge_host(&self, host: &str, fallback: Policy) -> Judgement {
        let matching = self.prefixes.iter().filter(|(words, _)| words.len() == 1 && host_matches(&words[0], host));
        let policy = matching.map(|(_, policy)| *policy).max().unwrap_or(self.default.unwrap_or(fallback));
        Judgement { policy, uncertain: false }
    }

    /// The policy of one simple command (`None`: a transparent shell no rule named) and
    /// whether a deny or ask rule might match it.
    fn simple(&self, simple: &SimpleCommand, default: Policy) -> (Option<Policy>, bool) {
        let mut found: Option<Policy> = None;
        let mut maybe = false;
        for reading in &simple.readings {
            let (policy, unsure) = self.reading(reading);
            maybe |= unsure;
            // Inside sudo, only a rule naming the privileged form allows.
            let policy = policy.filter(|p| !(reading.privileged && *p == Policy::Allow));
            found = found.max(policy);
        }
        match found {
            Some(policy) => (Some(policy), maybe),
            None if simple.transparent => (None, maybe),
            None => (Some(default), maybe),
        }
    }

    /// The longest prefix matching `reading` (ties: the stricter), and whether a stricter
    /// rule might match once dynamic words are known.
    fn reading(&self, reading: &Reading) -> (Option<Policy>, bool) {
        let mut best: Option<(usize, Policy)> = None;
        let mut unsure = false;
        for (prefix, policy) in &self.prefixes {
            match matches(prefix, &reading.words) {
                Match::Yes => best = best.max(Some((prefix.len(), *policy))),
                Match::Maybe => unsure |= *policy != Policy::Allow,
                Match::No => {}
            }
        }
        (best.map(|(_, policy)| policy), unsure)
    }
}

fn matches(prefix: &[String], words: &[Word]) -> Match {
    if prefix.is_empty() {
        return Match::No;
    }
    for (i, expected) in prefix.iter().enumerate() {
        match words.get(i) {
            Some(Word::Literal(word)) if word == expected => {}
            Some(Word::Dynamic(_)) => return Match::Maybe,
            _ => return Match::No,
        }
    }
    Match::Yes
}

/// Whether host rule `pattern` covers `host` (see `CommandRules::judge_host`).
fn host_matches(pattern: &str, host: &str) -> bool {
    let pattern = pattern.trim().trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return false;
    }
    if pattern == "*" || pattern == host {
        return true;
    }
    let name = match host.find(']') {
        Some(end) => &host[..=end],
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    match pattern.strip_prefix("*.") {
        Some(domain) => name == domain || name.ends_with(&format!(".{domain}")),
        None => pattern == name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(prefixes: &[(&str, Policy)]) -> CommandRules {
        CommandRules {
            prefixes: prefixes.iter().map(|(p, policy)| (CommandRules::prefix_words(p), *policy)).collect(),
            default: None,
        }
    }

    #[test]
    fn host_rules_match_a_host_its_port_and_subdomains_strictest_first() {
        let rules = CommandRules {
            prefixes: vec![
                (vec!["docs.rs".into()], Policy::Allow),
                (vec!["*.python.org".into()], Policy::Allow),
                (vec!["127.0.0.1:8080".into()], Policy::Allow),
                (vec!["evil.python.org".into()], Policy::Deny),
            ],
            default: None,
        };
        let policy = |host: &str| rules.judge_host(host, Policy::Ask).policy;
        assert_eq!(policy("docs.rs"), Policy::Allow);
        assert_eq!(policy("docs.rs:443"), Policy::Allow, "a host rule covers any port");
        assert_eq!(policy("notdocs.rs"), Policy::Ask);
        assert_eq!(policy("docs.rs.evil.com"), Policy::Ask);
        assert_eq!(policy("python.org"), Policy::Allow);
        assert_eq!(policy("docs.python.org"), Policy::Allow);
        assert_eq!(policy("evilpython.org"), Policy::Ask);
        assert_eq!(policy("evil.python.org"), Policy::Deny, "deny wins over a wildcard allow");
        assert_eq!(policy("127.0.0.1:8080"), Policy::Allow);
        assert_eq!(policy("127.0.0.1:8081"), Policy::Ask, "a rule with a port covers that port");
        assert_eq!(policy(""), Policy::Ask, "no host: the default");
    }

    fn judge(rules: &CommandRules, command: &str) -> Judgement {
        rules.judge(&ParsedCommand::parse(command), Policy::Ask)
    }

    fn policy(rules: &CommandRules, command: &str) -> Policy {
        judge(rules, command).policy
    }

    #[test]
    fn the_longest_prefix_wins_on_word_boundaries() {
        let r = rules(&[("git", Policy::Allow), ("git push", Policy::Deny), ("git push --dry-run", Policy::Allow)]);
        assert_eq!(policy(&r, "git status"), Policy::Allow);
        assert_eq!(policy(&r, "git push origin"), Policy::Deny);
        assert_eq!(policy(&r, "git push --dry-run"), Policy::Allow);
        assert_eq!(policy(&r, "gitk"), Policy::Ask);
        assert_eq!(policy(&r, "git pushx"), Policy::Allow, "`git pushx` is not `git push`");
    }

    #[test]
    fn every_part_must_be_allowed_and_nothing_redirected() {
        let r = rules(&[("cargo test", Policy::Allow), ("echo", Policy::Allow)]);
        assert_eq!(policy(&r, "cargo test && echo ok | echo"), Policy::Allow);
        assert_eq!(policy(&r, "cargo test 2>&1 >/dev/null"), Policy::Allow, "no file is written");
        assert_eq!(policy(&r, "cargo test; rm -rf ~"), Policy::Ask);
        assert_eq!(policy(&r, "cargo test > out"), Policy::Ask);
        assert_eq!(policy(&r, "echo $(rm -rf x)"), Policy::Ask);
        assert_eq!(policy(&r, "bash -c 'cargo test'"), Policy::Allow, "the shell runs only what is allowed");
        assert_eq!(policy(&r, "sudo cargo test"), Policy::Ask, "not with raised privileges");
    }

    #[test]
    fn a_dynamic_word_where_a_deny_rule_looks_is_uncertain() {
        let r = rules(&[("git push", Policy::Deny), ("echo", Policy::Allow)]);
        assert_eq!(judge(&r, "git $SUB"), Judgement { policy: Policy::Ask, uncertain: true });
        assert_eq!(judge(&r, "$GIT push"), Judgement { policy: Policy::Ask, uncertain: true });
        assert_eq!(judge(&r, "echo $HOME"), Judgement { policy: Policy::Allow, uncertain: false });
        assert_eq!(judge(&r, "git status $X"), Judgement { policy: Policy::Ask, uncertain: false });
        assert_eq!(judge(&r, "echo 'unclosed"), Judgement { policy: Policy::Ask, uncertain: true });
    }

    #[test]
    fn the_default_applies_to_commands_no_prefix_names() {
        let mut r = rules(&[("rm", Policy::Deny)]);
        r.default = Some(Policy::Allow);
        assert_eq!(policy(&r, "ls && pwd"), Policy::Allow);
        assert_eq!(policy(&r, "ls; rm x"), Policy::Deny);
        assert_eq!(policy(&r, ""), Policy::Allow);
        assert!(r.has_deny());
    }
}
