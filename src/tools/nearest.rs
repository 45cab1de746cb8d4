//! Where an edit's `old` nearly is: when the text is not in the file, the lines most like
//! it, numbered, as a hint for the model.
//!
//! Bounded by construction, so a long `old` against a file of long lines cannot stall a
//! turn: a few anchor lines of `old` (its first non-empty ones) are compared with the
//! file's lines, each side by its first `PREFIX` characters only, with a linear-time score
//! (shared character pairs, Dice's coefficient) instead of a diff; at most `SCAN_LINES`
//! lines are looked at, and the search gives up at a deadline or on cancellation.

use std::fmt::Write as _;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Characters of a line compared at most.
const PREFIX: usize = 256;
/// Lines of `old` used as anchors.
const ANCHORS: usize = 3;
/// Lines of the file looked at (bigger files: the first ones).
const SCAN_LINES: usize = 20_000;
/// How alike (0 to 1) at least one anchor must be to its line to count as near.
const THRESHOLD: f32 = 0.5;
/// Longest the search may take before it answers with what it has.
const DEADLINE: Duration = Duration::from_millis(200);

/// The hint shown after "`old` was not found": the nearest lines, or a request to read
/// the file. `None` when cancelled.
pub fn hint(text: &str, old: &str, cancel: &CancellationToken) -> Option<String> {
    let lines: Vec<&str> = text.lines().take(SCAN_LINES).collect();
    let anchors: Vec<(usize, Pairs)> = old
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .take(ANCHORS)
        .map(|(i, l)| (i, Pairs::of(l)))
        .collect();
    let Some(&(first, _)) = anchors.first() else {
        return Some(NOTHING_ALIKE.to_string());
    };
    let scores = score_lines(&lines, &anchors, cancel)?;
    // `at`: the line where the first anchor would be; the others follow at their offsets.
    let best = (0..scores.len())
        .filter_map(|at| {
            let (mut sum, mut max) = (0.0f32, 0.0f32);
            for (k, (offset, _)) in anchors.iter().enumerate() {
                let score = scores.get(at + offset - first).map_or(0.0, |s| s[k]);
                sum += score;
                max = max.max(score);
            }
            (max >= THRESHOLD).then_some((at, sum / anchors.len() as f32))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    let Some((at, _)) = best else {
        return Some(NOTHING_ALIKE.to_string());
    };
    let start = at.saturating_sub(first);
    let span = old.lines().count().max(1);
    let mut hint = String::from("The nearest lines are:");
    for (i, line) in lines.iter().enumerate().skip(start).take(span) {
        let _ = write!(hint, "\n{:>6}\t{line}", i + 1);
    }
    Some(hint)
}

const NOTHING_ALIKE: &str = "No similar lines; read the file to see its current text.";

/// For each line (until the deadline), how alike it is to each anchor. `None` when
/// cancelled.
fn score_lines(lines: &[&str], anchors: &[(usize, Pairs)], cancel: &CancellationToken) -> Option<Vec<Vec<f32>>> {
    let started = Instant::now();
    let mut scores = Vec::with_capacity(lines.len());
    let mut pairs = Pairs::default();
    for (i, line) in lines.iter().enumerate() {
        if i % 256 == 0 {
            if cancel.is_cancelled() {
                return None;
            }
            if started.elapsed() > DEADLINE {
                break;
            }
        }
        pairs.fill(line);
        scores.push(anchors.iter().map(|(_, anchor)| anchor.likeness(&pairs)).collect());
    }
    Some(scores)
}

/// The character pairs of a trimmed line's first `PREFIX` characters, sorted (a multiset).
#[derive(Default)]
struct Pairs {
    text: String,
    pairs: Vec<u64>,
}

impl Pairs {
    fn of(line: &str) -> Self {
        let mut pairs = Pairs::default();
        pairs.fill(line);
        pairs
    }

    fn fill(&mut self, line: &str) {
        self.text.clear();
        self.text.extend(line.trim().chars().take(PREFIX));
        self.pairs.clear();
        let mut chars = self.text.chars();
        let Some(mut previous) = chars.next() else { return };
        for c in chars {
            self.pairs.push((u64::from(previous) << 21) | u64::from(c));
            previous = c;
        }
        self.pairs.sort_unstable();
    }

    /// Dice's coefficient over character pairs: 1.0 for equal text, 0.0 for nothing shared.
    fn likeness(&self, other: &Pairs) -> f32 {
        let total = self.pairs.len() + other.pairs.len();
        if total == 0 || self.pairs.is_empty() || other.pairs.is_empty() {
            return if self.text == other.text && !self.text.is_empty() { 1.0 } else { 0.0 };
        }
        let (mut i, mut j, mut shared) = (0, 0, 0usize);
        while i < self.pairs.len() && j < other.pairs.len() {
            match self.pairs[i].cmp(&other.pairs[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        (2 * shared) as f32 / total as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nearest(text: &str, old: &str) -> String {
        hint(text, old, &CancellationToken::new()).unwrap()
    }

    #[test]
    fn points_at_the_closest_lines() {
        let text = "fn a() {}\nfn main() {\n    println!(\"hi\");\n}\n";
        let hint = nearest(text, "fn main () {\n    println!(\"hello\");");
        assert_eq!(hint, "The nearest lines are:\n     2\tfn main() {\n     3\t    println!(\"hi\");");
    }

    #[test]
    fn later_anchor_lines_pick_between_equal_first_lines() {
        let text = "}\nfn a() {\n    one();\n}\nfn b() {\n    two();\n}\n";
        let hint = nearest(text, "}\nfn b () {\n    two(1);");
        assert_eq!(hint, "The nearest lines are:\n     4\t}\n     5\tfn b() {\n     6\t    two();");
    }

    #[test]
    fn leading_blank_lines_of_old_widen_the_window_upwards() {
        let hint = nearest("a\nlet x = 1;\nb\n", "\nlet x = 2;");
        assert_eq!(hint, "The nearest lines are:\n     1\ta\n     2\tlet x = 1;");
    }

    #[test]
    fn nothing_alike_says_so() {
        assert_eq!(nearest("abc\n", "zzzzzzzzzz"), NOTHING_ALIKE);
        assert_eq!(nearest("abc\n", "\n  \n"), NOTHING_ALIKE);
    }

    #[test]
    fn a_cancelled_search_gives_no_hint() {
        let cancel = CancellationToken::new();
        cancel.cancel();
        assert_eq!(hint("a\n", "a", &cancel), None);
    }

    #[test]
    fn likeness_ranks_closer_strings_higher() {
        let x1 = Pairs::of("let x = 1;");
        assert!(x1.likeness(&Pairs::of("let x = 2;")) > x1.likeness(&Pairs::of("fn main() {}")));
        assert_eq!(Pairs::of("}").likeness(&Pairs::of("}")), 1.0);
        assert_eq!(Pairs::of("}").likeness(&Pairs::of("{")), 0.0);
    }
}
