//! A shell command as permission rules read it: parsed with a real shell parser
//! (brush-parser, bash syntax) into the simple commands it would run — through pipelines,
//! `&&`, `||`, `;`, `&`, subshells, `{ …; }`, `if`/`while`/`for`/`case` bodies, functions,
//! `$(…)` and backticks (in arguments and double quotes too), process substitutions and
//! `bash|sh|zsh|dash|ksh -c STRING` / `eval` — each with the words it would get.
//!
//! A word is literal (quotes and backslashes taken off: `\git`, `'git'` and `g"it"` are
//! all `git`) or dynamic (a variable, a substitution, a glob: its value is unknown here).
//! Wrappers are unwrapped into more readings of the same command (`wrappers.rs`). This
//! module only reads; `matcher.rs` decides. Whatever it cannot read is reported as
//! `unreadable`, never guessed.

use super::wrappers::{readings, Reading, Word};
use brush_parser::ast::{self, CommandPrefixOrSuffixItem as Item};
use brush_parser::word::{TildeExpr, WordPiece, WordPieceWithSource};
use brush_parser::ParserOptions;
use std::panic::AssertUnwindSafe;

/// `bash -c` inside `bash -c` … deeper than this is not read.
const MAX_DEPTH: usize = 8;
/// Shells whose `-c STRING` is read as a command.
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash"];

/// One simple command, with its readings (outermost first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleCommand {
    pub readings: Vec<Reading>,
    /// A shell running a string (`bash -c S`, `eval S`): what it runs is in the list on
    /// its own, so this one counts only when a rule names it.
    pub transparent: bool,
}

/// Everything a command line would run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedCommand {
    pub commands: Vec<SimpleCommand>,
    /// Some input or output goes to or comes from a file (`>`, `<`, `>>`, here-documents;
    /// not `2>&1` or `>/dev/null`).
    pub redirected: bool,
    /// Why some of it could not be read, when so.
    pub unreadable: Option<String>,
}

impl ParsedCommand {
    pub fn parse(command: &str) -> ParsedCommand {
        let mut walker = Walker::default();
        walker.program(command, 0);
        walker.out
    }
}

#[derive(Default)]
struct Walker {
    out: ParsedCommand,
}

impl Walker {
    fn unreadable(&mut self, why: impl Into<String>) {
        self.out.unreadable.get_or_insert_with(|| why.into());
    }

    fn program(&mut self, text: &str, depth: usize) {
        if depth > MAX_DEPTH {
            return self.unreadable("commands nested too deeply");
        }
        let options = ParserOptions::default();
        // The parser is a dependency: a panic in it means "cannot read", not a crash.
        let parsed = std::panic::catch_unwind(AssertUnwindSafe(|| {
            brush_parser::Parser::new(text.as_bytes(), &options).parse_program()
        }));
        match parsed {
            Ok(Ok(program)) => program.complete_commands.iter().for_each(|list| self.list(list, depth)),
            Ok(Err(error)) => self.unreadable(format!("not valid shell syntax ({error})")),
            Err(_) => self.unreadable("the shell parser failed on it"),
        }
    }

    fn list(&mut self, list: &ast::CompoundList, depth: usize) {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            self.pipeline(&and_or.first, depth);
            for next in &and_or.additional {
                let (ast::AndOr::And(pipeline) | ast::AndOr::Or(pipeline)) = next;
                self.pipeline(pipeline, depth);
            }
        }
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline, depth: usize) {
        pipeline.seq.iter().for_each(|command| self.command(command, depth));
    }

    fn command(&mut self, command: &ast::Command, depth: usize) {
        match command {
            ast::Command::Simple(simple) => self.simple(simple, depth),
            ast::Command::Compound(compound, redirects) => {
                self.redirects(redirects.as_ref(), depth);
                self.compound(compound, depth);
            }
            ast::Command::Function(function) => {
                self.redirects(function.body.1.as_ref(), depth);
                self.compound(&function.body.0, depth);
            }
            ast::Command::ExtendedTest(test, redirects) => {
                self.redirects(redirects.as_ref(), depth);
                self.test(&test.expr, depth);
            }
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand, depth: usize) {
        use ast::CompoundCommand as C;
        match compound {
            C::Arithmetic(arithmetic) => self.arithmetic(&arithmetic.expr.value, depth),
            C::ArithmeticForClause(clause) => {
                for expr in [&clause.initializer, &clause.condition, &clause.updater].into_iter().flatten() {
                    self.arithmetic(&expr.value, depth);
                }
                self.list(&clause.body.list, depth);
            }
            C::BraceGroup(group) => self.list(&group.list, depth),
            C::Subshell(subshell) => self.list(&subshell.list, depth),
            C::ForClause(clause) => {
                for word in clause.values.iter().flatten() {
                    self.word(word, depth);
                }
                self.list(&clause.body.list, depth);
            }
            C::CaseClause(clause) => {
                self.word(&clause.value, depth);
                for case in &clause.cases {
                    case.patterns.iter().for_each(|word| drop(self.word(word, depth)));
                    if let Some(list) = &case.cmd {
                        self.list(list, depth);
                    }
                }
            }
            C::IfClause(clause) => {
                self.list(&clause.condition, depth);
                self.list(&clause.then, depth);
                for other in clause.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.list(condition, depth);
                    }
                    self.list(&other.body, depth);
                }
            }
            C::WhileClause(clause) | C::UntilClause(clause) => {
                self.list(&clause.0, depth);
                self.list(&clause.1.list, depth);
            }
            C::Coprocess(coprocess) => self.command(&coprocess.body, depth),
        }
    }

    fn test(&mut self, expr: &ast::ExtendedTestExpr, depth: usize) {
        use ast::ExtendedTestExpr as T;
        match expr {
            T::And(a, b) | T::Or(a, b) => {
                self.test(a, depth);
                self.test(b, depth);
            }
            T::Not(a) | T::Parenthesized(a) => self.test(a, depth),
            T::UnaryTest(_, word) => drop(self.word(word, depth)),
            T::BinaryTest(_, a, b) => {
                self.word(a, depth);
                self.word(b, depth);
            }
        }
    }

    /// `$(( … ))` and `(( … ))` run nothing, unless a substitution hides inside or it is
    /// not arithmetic at all (bash reads `( ( cmd ) )` as nested subshells): then the text
    /// is read as commands, which finds both.
    fn arithmetic(&mut self, text: &str, depth: usize) {
        // Variables (`$x`, `${x}`) are names to the arithmetic grammar.
        let names = text.replace("${", "").replace(['}', '$'], "");
        let arithmetic = std::panic::catch_unwind(|| brush_parser::arithmetic::parse(&names).is_ok());
        if !matches!(arithmetic, Ok(true)) || has_substitution(text) {
            self.program(&format!("( {text} )"), depth + 1);
        }
    }

    fn simple(&mut self, simple: &ast::SimpleCommand, depth: usize) {
        let mut words = Vec::new();
        let prefix = simple.prefix.iter().flat_map(|p| p.0.iter());
        for item in prefix {
            match item {
                // `FOO=$(…) cmd`: the value runs its substitutions, but is not a word.
                Item::AssignmentWord(_, word) => drop(self.word(word, depth)),
                other => self.item(other, &mut words, depth),
            }
        }
        if let Some(name) = &simple.word_or_name {
            let word = self.word(name, depth);
            words.push(word);
        }
        for item in simple.suffix.iter().flat_map(|s| s.0.iter()) {
            self.item(item, &mut words, depth);
        }
        if !words.is_empty() {
            self.run(words, depth);
        }
    }

    fn item(&mut self, item: &Item, words: &mut Vec<Word>, depth: usize) {
        match item {
            Item::IoRedirect(redirect) => self.redirect(redirect, depth),
            Item::Word(word) | Item::AssignmentWord(_, word) => {
                let word = self.word(word, depth);
                words.push(word);
            }
            Item::ProcessSubstitution(_, subshell) => {
                self.list(&subshell.list, depth);
                words.push(Word::Dynamic("<(…)".into()));
            }
        }
    }

    /// Records a simple command with its readings, and reads the string a shell or `eval`
    /// would run.
    fn run(&mut self, words: Vec<Word>, depth: usize) {
        let (readings, why) = readings(words);
        if let Some(why) = why {
            self.unreadable(why);
        }
        let inner = readings.last().map(|r| r.words.as_slice()).map(shell_string).unwrap_or(Inner::None);
        let transparent = !matches!(inner, Inner::None);
        self.out.commands.push(SimpleCommand { readings, transparent });
        match inner {
            Inner::None => {}
            Inner::Text(text) => self.program(&text, depth + 1),
            Inner::Unreadable(why) => self.unreadable(why),
        }
    }

    fn redirects(&mut self, redirects: Option<&ast::RedirectList>, depth: usize) {
        for redirect in redirects.iter().flat_map(|r| r.0.iter()) {
            self.redirect(redirect, depth);
        }
    }

    fn redirect(&mut self, redirect: &ast::IoRedirect, depth: usize) {
        use ast::IoFileRedirectTarget as Target;
        match redirect {
            ast::IoRedirect::File(_, _, target) => match target {
                Target::Fd(_) => {}
                Target::Duplicate(word) => {
                    let target = self.word(word, depth);
                    if !matches!(&target, Word::Literal(fd) if fd == "-" || fd.chars().all(|c| c.is_ascii_digit())) {
                        self.out.redirected = true;
                    }
                }
                Target::Filename(word) => {
                    if self.word(word, depth) != Word::Literal("/dev/null".into()) {
                        self.out.redirected = true;
                    }
                }
                Target::ProcessSubstitution(_, subshell) => {
                    self.out.redirected = true;
                    self.list(&subshell.list, depth);
                }
            },
            ast::IoRedirect::HereDocument(_, doc) => {
                self.out.redirected = true;
                if doc.requires_expansion {
                    self.word(&doc.doc, depth);
                }
            }
            ast::IoRedirect::HereString(_, word) | ast::IoRedirect::OutputAndError(word, _) => {
                self.out.redirected = true;
                self.word(word, depth);
            }
        }
    }

    /// A word's literal value, or `Dynamic`; runs into every substitution inside it.
    fn word(&mut self, word: &ast::Word, depth: usize) -> Word {
        let options = ParserOptions::default();
        let pieces = std::panic::catch_unwind(AssertUnwindSafe(|| brush_parser::word::parse(&word.value, &options)));
        let Ok(Ok(pieces)) = pieces else {
            self.unreadable(format!("cannot read the word {}", word.value));
            return Word::Dynamic(word.value.clone());
        };
        let mut text = String::new();
        let mut dynamic = false;
        self.pieces(&pieces, &word.value, false, &mut text, &mut dynamic, depth);
        if dynamic {
            Word::Dynamic(word.value.clone())
        } else {
            Word::Literal(text)
        }
    }

    fn pieces(
        &mut self,
        pieces: &[WordPieceWithSource],
        source: &str,
        quoted: bool,
        text: &mut String,
        dynamic: &mut bool,
        depth: usize,
    ) {
        for piece in pieces {
            match &piece.piece {
                WordPiece::Text(s) => {
                    // Globs, brace and extglob patterns expand to names unknown here.
                    *dynamic |= !quoted && s.contains(['*', '?', '[', '{', '(']);
                    text.push_str(s);
                }
                WordPiece::SingleQuotedText(s) => text.push_str(s),
                WordPiece::AnsiCQuotedText(s) => {
                    *dynamic |= s.contains('\\');
                    text.push_str(s);
                }
                WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(inner, source, true, text, dynamic, depth);
                }
                WordPiece::TildeExpansion(TildeExpr::Home) => text.push('~'),
                WordPiece::TildeExpansion(TildeExpr::UserHome(user)) => text.push_str(&format!("~{user}")),
                WordPiece::TildeExpansion(_) => *dynamic = true,
                WordPiece::ParameterExpansion(_) => {
                    *dynamic = true;
                    let inside = source.get(piece.start_index..piece.end_index).unwrap_or(source);
                    if has_substitution(inside) {
                        self.unreadable(format!("a command inside {inside}"));
                    }
                }
                WordPiece::ArithmeticExpression(expr) => {
                    *dynamic = true;
                    self.arithmetic(&expr.value, depth);
                }
                WordPiece::CommandSubstitution(inner) => {
                    *dynamic = true;
                    self.program(inner, depth + 1);
                }
                WordPiece::BackquotedCommandSubstitution(inner) => {
                    *dynamic = true;
                    self.program(&unescape_backquoted(inner), depth + 1);
                }
                WordPiece::EscapeSequence(s) => text.push_str(&unescape(s, quoted)),
            }
        }
    }
}

/// What a backslash sequence stands for: unquoted, the character itself; in double
/// quotes, only `$ ` " \` and newline lose their backslash.
fn unescape(sequence: &str, quoted: bool) -> String {
    let escaped = sequence.strip_prefix('\\').unwrap_or(sequence);
    match escaped {
        "\n" => String::new(),
        _ if !quoted || matches!(escaped, "$" | "`" | "\"" | "\\") => escaped.to_string(),
        _ => sequence.to_string(),
    }
}

/// Inside backticks, `\\`, `` \` `` and `\$` stand for the character.
fn unescape_backquoted(text: &str) -> String {
    text.replace("\\\\", "\u{0}").replace("\\`", "`").replace("\\$", "$").replace('\u{0}', "\\")
}

fn has_substitution(text: &str) -> bool {
    ["$(", "`", "<(", ">("].iter().any(|s| text.contains(s))
}

/// The string a shell or `eval` would run, when `words` is one.
enum Inner {
    None,
    Text(String),
    Unreadable(String),
}

/// `bash -c STRING …` (options before, `-o OPT` taking a value) or `eval WORDS…`.
fn shell_string(words: &[Word]) -> Inner {
    let Some(Word::Literal(name)) = words.first() else { return Inner::None };
    if name == "eval" {
        let mut text = Vec::new();
        for word in &words[1..] {
            match word {
                Word::Literal(word) => text.push(word.as_str()),
                Word::Dynamic(word) => return Inner::Unreadable(format!("eval of {word}")),
            }
        }
        return Inner::Text(text.join(" "));
    }
    if !SHELLS.contains(&name.as_str()) {
        return Inner::None;
    }
    let (mut command_string, mut i) = (false, 1);
    while let Some(word) = words.get(i) {
        let Word::Literal(arg) = word else {
            return Inner::Unreadable(format!("{name} with an option that is not known until it runs"));
        };
        match arg.as_str() {
            "--" | "-" => {
                i += 1;
                break;
            }
            "--rcfile" | "--init-file" => i += 2,
            long if long.starts_with("--") => i += 1,
            short if short.len() > 1 && (short.starts_with('-') || short.starts_with('+')) => {
                command_string |= short.starts_with('-') && short.contains('c');
                i += if short.contains(['o', 'O']) { 2 } else { 1 };
            }
            _ => break,
        }
    }
    match (command_string, words.get(i)) {
        (false, _) | (true, None) => Inner::None,
        (true, Some(Word::Literal(text))) => Inner::Text(text.clone()),
        (true, Some(Word::Dynamic(text))) => Inner::Unreadable(format!("{name} -c {text}")),
    }
}

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
