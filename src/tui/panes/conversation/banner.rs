//! The banner's layout (`banner_lines`): `elelem v0.1.0 · sandbox: … · provider · model ·
//! ? for help`, broken only between its phrases, so no phrase is cut, `? for help` least of
//! all.

use ratatui::style::Style;
use ratatui::text::Line;

use crate::tui::runtime::welcome::BANNER_SEPARATOR;
use crate::tui::wrap::{str_width, wrap};

/// The banner (`elelem v0.1.0 · sandbox: … · provider · model · ? for help`) in `width`
/// columns, broken only between its phrases (a line that goes on below ends in ` ·`); a
/// phrase wider than a whole line alone is wrapped at its spaces.
pub fn banner_lines(text: &str, width: u16, style: Style) -> Vec<Line<'static>> {
    let room = usize::from(width.max(1));
    let sep = str_width(BANNER_SEPARATOR);
    let mut rows: Vec<String> = Vec::new();
    let mut current = String::new();
    for phrase in text.split(BANNER_SEPARATOR) {
        if current.is_empty() {
            current = phrase.to_string();
        } else if str_width(&current) + sep + str_width(phrase) <= room {
            current.push_str(BANNER_SEPARATOR);
            current.push_str(phrase);
        } else {
            let ended = std::mem::replace(&mut current, phrase.to_string());
            let mark = BANNER_SEPARATOR.trim_end();
            rows.push(match str_width(&ended) + str_width(mark) <= room {
                true => format!("{ended}{mark}"),
                false => ended,
            });
        }
    }
    rows.push(current);
    rows.iter().flat_map(|row| wrap(row, width, style, "", "", style)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str, width: u16) -> Vec<String> {
        banner_lines(text, width, Style::default()).iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn the_banner_breaks_only_between_phrases() {
        let banner = "elelem v0.1.0 · sandbox: workspace-write, no network · stub · stub-demo · ? for help";
        assert_eq!(
            rows(banner, 78),
            ["elelem v0.1.0 · sandbox: workspace-write, no network · stub · stub-demo ·", "? for help"]
        );
        assert_eq!(
            rows(banner, 58),
            ["elelem v0.1.0 · sandbox: workspace-write, no network ·", "stub · stub-demo · ? for help"]
        );
        assert_eq!(rows(banner, 120), [banner]);
        // A phrase wider than the line is wrapped at its spaces, never cut mid-word.
        assert_eq!(
            rows("elelem · sandbox: workspace-write, no network", 20),
            ["elelem ·", "sandbox:", "workspace-write, no", "network"]
        );
    }
}
