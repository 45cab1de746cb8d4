//! Commands that run another command: `env [-i] [VAR=x]… cmd`, `command`, `builtin`,
//! `exec`, `nohup`, `time`, `nice`, `timeout`, `xargs`, `busybox`, and the privileged
//! `sudo` and `doas`. A simple command is read once as written (its program's path cut
//! to the name: `/usr/bin/git` is `git`) and once more for each wrapper taken off, so a
//! rule can name either form: `sudo env git push` reads as `sudo env git push`,
//! `env git push` and `git push`.
//!
//! Readings inside `sudo`/`doas` are marked privileged: a rule allowing `git status` does
//! not allow `sudo git status` (a rule allowing `sudo git status` does); deny rules match
//! every reading.

/// One word of a command: its literal value, or dynamic (the source text of a variable,
/// substitution or glob, whose value is only known when it runs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    Literal(String),
    Dynamic(String),
}

/// One way to read a simple command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    pub words: Vec<Word>,
    /// Runs with raised privileges (inside `sudo` or `doas`).
    pub privileged: bool,
}

/// How far to read before giving up on a pathological chain of wrappers.
const MAX_READINGS: usize = 32;

/// Every reading of `words`, outermost first, and why the chain could not be followed to
/// the end, when so (a dynamic word where a wrapper's command should be).
pub fn readings(mut words: Vec<Word>) -> (Vec<Reading>, Option<String>) {
    let mut out = Vec::new();
    let mut privileged = false;
    while out.len() < MAX_READINGS {
        let name = match words.first() {
            Some(Word::Literal(path)) => Some(program_name(path)),
            _ => None,
        };
        if let Some(name) = &name {
            words[0] = Word::Literal(name.clone());
        }
        out.push(Reading { words: words.clone(), privileged });
        let Some(name) = name else { break };
        match inner(&name, &words[1..]) {
            Ok(Some(skip)) if 1 + skip < words.len() => {
                privileged |= PRIVILEGED.contains(&name.as_str());
                words.drain(..1 + skip);
            }
            Ok(_) => break,
            Err(why) => return (out, Some(why)),
        }
    }
    (out, None)
}

/// `/usr/bin/git` and `./git` name `git`.
pub fn program_name(path: &str) -> String {
    path.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or(path).to_string()
}

const PRIVILEGED: &[&str] = &["sudo", "doas"];

/// The options of one wrapper: which short and long options take a value, how many
/// operands come before the command (`timeout DURATION cmd`), and whether `NAME=value`
/// words may come before it (`env`, `sudo`).
struct Wrapper {
    name: &'static str,
    short_values: &'static str,
    long_values: &'static [&'static str],
    operands: usize,
    assignments: bool,
}

const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "env",
        short_values: "uCS",
        long_values: &["--unset", "--chdir", "--split-string"],
        operands: 0,
        assignments: true,
    },
    Wrapper { name: "command", short_values: "", long_values: &[], operands: 0, assignments: false },
    Wrapper { name: "builtin", short_values: "", long_values: &[], operands: 0, assignments: false },
    Wrapper { name: "exec", short_values: "a", long_values: &[], operands: 0, assignments: false },
    Wrapper { name: "nohup", short_values: "", long_values: &[], operands: 0, assignments: false },
    Wrapper {
        name: "time",
        short_values: "fo",
        long_values: &["--format", "--output"],
        operands: 0,
        assignments: false,
    },
    Wrapper { name: "nice", short_values: "n", long_values: &["--adjustment"], operands: 0, assignments: false },
    Wrapper {
        name: "timeout",
        short_values: "sk",
        long_values: &["--signal", "--kill-after"],
        operands: 1,
        assignments: false,
    },
    Wrapper {
        name: "xargs",
        short_values: "adEILnPs",
        long_values: &[
            "--arg-file",
            "--delimiter",
            "--eof",
            "--replace",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        operands: 0,
        assignments: false,
    },
    Wrapper { name: "busybox", short_values: "", long_values: &[], operands: 0, assignments: false },
    Wrapper {
        name: "sudo",
        short_values: "ughpCDrtTU",
        long_values: &[
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--close-from",
            "--chdir",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
        ],
        operands: 0,
        assignments: true,
    },
    Wrapper { name: "doas", short_values: "uC", long_values: &[], operands: 0, assignments: false },
];

/// For a wrapper, how many words of `args` come before the command it runs; `None` for a
/// program that is not a wrapper.
fn inner(name: &str, args: &[Word]) -> Result<Option<usize>, String> {
    let Some(wrapper) = WRAPPERS.iter().find(|w| w.name == name) else { return Ok(None) };
    let unknown = || format!("{name} with an argument that is not known until it runs");
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Word::Literal(arg) = word else { return Err(unknown()) };
        if arg == "--" {
            i += 1;
            break;
        }
        if name == "env" && (arg == "-S" || arg.starts_with("--split-string") || is_cluster_with(arg, 'S')) {
            return Err("env -S (a command line split at run time)".into());
        }
        if arg.starts_with("--") {
            let takes_value = !arg.contains('=') && wrapper.long_values.contains(&arg.as_str());
            i += if takes_value { 2 } else { 1 };
        } else if arg.len() > 1 && arg.starts_with('-') && arg != "-" {
            // A cluster (`-iu NAME`): a value-taking letter ends it, its value attached
            // or in the next word.
            let letters: Vec<char> = arg.chars().skip(1).collect();
            let position = letters.iter().position(|c| wrapper.short_values.contains(*c));
            i += match position {
                Some(p) if p + 1 == letters.len() => 2,
                _ => 1,
            };
        } else if wrapper.assignments && (arg == "-" || is_assignment(arg)) {
            i += 1;
        } else {
            break;
        }
    }
    // Assignments may follow `--` as well.
    if wrapper.assignments {
        loop {
            match args.get(i) {
                Some(Word::Literal(arg)) if is_assignment(arg) => i += 1,
                Some(Word::Dynamic(_)) => return Err(unknown()),
                _ => break,
            }
        }
    }
    for _ in 0..wrapper.operands {
        match args.get(i) {
            Some(Word::Literal(_)) => i += 1,
            Some(Word::Dynamic(_)) => return Err(unknown()),
            None => return Ok(None),
        }
    }
    Ok(Some(i))
}

fn is_cluster_with(arg: &str, letter: char) -> bool {
    arg.starts_with('-') && !arg.starts_with("--") && arg.contains(letter)
}

/// `NAME=value`.
fn is_assignment(arg: &str) -> bool {
    arg.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Word> {
        text.split_whitespace().map(|w| Word::Literal(w.to_string())).collect()
    }

    fn read(text: &str) -> Vec<String> {
        let (readings, why) = readings(words(text));
        assert_eq!(why, None, "{text}");
        readings
            .iter()
            .map(|r| {
                let words: Vec<&str> =
                    r.words.iter().map(|w| if let Word::Literal(w) = w { w.as_str() } else { "?" }).collect();
                format!("{}{}", if r.privileged { "!" } else { "" }, words.join(" "))
            })
            .collect()
    }

    #[test]
    fn wrappers_are_taken_off_one_at_a_time() {
        assert_eq!(read("git push"), vec!["git push"]);
        assert_eq!(read("/usr/bin/git push"), vec!["git push"]);
        assert_eq!(read("env -i A=1 B=2 ./git push"), vec!["env -i A=1 B=2 ./git push", "git push"]);
        assert_eq!(read("command -p git push"), vec!["command -p git push", "git push"]);
        assert_eq!(
            read("nice -n 5 nohup time -p git push"),
            vec!["nice -n 5 nohup time -p git push", "nohup time -p git push", "time -p git push", "git push"]
        );
        assert_eq!(read("timeout -s KILL 5 git push"), vec!["timeout -s KILL 5 git push", "git push"]);
        assert_eq!(read("exec -a name git push"), vec!["exec -a name git push", "git push"]);
        assert_eq!(read("env -uHOME -- git push"), vec!["env -uHOME -- git push", "git push"]);
    }

    #[test]
    fn sudo_marks_what_it_runs_privileged() {
        assert_eq!(read("sudo -u root env git push"), vec!["sudo -u root env git push", "!env git push", "!git push"]);
        assert_eq!(read("doas git push"), vec!["doas git push", "!git push"]);
        assert_eq!(read("sudo A=1 git push"), vec!["sudo A=1 git push", "!git push"]);
    }

    #[test]
    fn a_wrapper_alone_is_just_itself() {
        assert_eq!(read("env"), vec!["env"]);
        assert_eq!(read("env A=1"), vec!["env A=1"]);
        assert_eq!(read("timeout 5"), vec!["timeout 5"]);
        assert_eq!(read("git env push"), vec!["git env push"]);
    }

    #[test]
    fn an_unknown_word_where_the_command_should_be_is_unreadable() {
        let mut w = words("env");
        w.push(Word::Dynamic("$X".into()));
        w.extend(words("git push"));
        let (readings, why) = readings(w);
        assert_eq!(readings.len(), 1);
        assert_eq!(why.as_deref(), Some("env with an argument that is not known until it runs"));
        assert!(readings_of("env -S 'git push'").1.is_some());
    }

    fn readings_of(text: &str) -> (Vec<Reading>, Option<String>) {
        readings(words(text))
    }
}
