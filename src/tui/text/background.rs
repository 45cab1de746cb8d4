//! Which palette fits the terminal: light or dark. Owns the choice only (the palettes are in
//! `theme.rs`): `--theme light|dark|auto`, then `ELELEM_THEME`, then what `/theme` saved in
//! `tui.json` (`runtime/prefs.rs`), then, for `auto`, the
//! terminal's own word — its answer to the OSC 11 query (`ESC ] 11 ; rgb:RRRR/GGGG/BBBB ST`,
//! asked by `runtime/background_query.rs` only when needed), else `COLORFGBG` (`fg;bg`, set by
//! rxvt, Konsole, iTerm2 and others) — and dark when nothing says.

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThemeChoice {
    Light,
    Dark,
    /// Follow the terminal's background.
    Auto,
}

impl ThemeChoice {
    /// `light`, `dark` or `auto` (any case, spaces around ignored); `None` for anything else.
    pub fn parse(text: &str) -> Option<ThemeChoice> {
        match text.trim().to_ascii_lowercase().as_str() {
            "light" => Some(ThemeChoice::Light),
            "dark" => Some(ThemeChoice::Dark),
            "auto" => Some(ThemeChoice::Auto),
            _ => None,
        }
    }
}

impl ThemeChoice {
    /// The word for it (`light`, `dark`, `auto`).
    pub fn name(self) -> &'static str {
        match self {
            ThemeChoice::Light => "light",
            ThemeChoice::Dark => "dark",
            ThemeChoice::Auto => "auto",
        }
    }
}

/// The choice in force: `flag` (`--theme`), else `ELELEM_THEME`, else what `/theme` saved,
/// else `auto` (an unknown `ELELEM_THEME` value counts as unset).
pub fn choice(flag: Option<ThemeChoice>, saved: Option<ThemeChoice>) -> ThemeChoice {
    choice_from(flag, std::env::var("ELELEM_THEME").ok().as_deref(), saved)
}

/// `choice` with the environment given.
pub fn choice_from(flag: Option<ThemeChoice>, setting: Option<&str>, saved: Option<ThemeChoice>) -> ThemeChoice {
    flag.or_else(|| setting.and_then(ThemeChoice::parse)).or(saved).unwrap_or(ThemeChoice::Auto)
}

/// Whether to use the light palette for `choice`: for `auto` the terminal's answer to
/// OSC 11 (`osc11`, if it came), then its `COLORFGBG`; dark when nothing says.
pub fn choose_light(choice: ThemeChoice, osc11: Option<&[u8]>) -> bool {
    light_for(choice, osc11, std::env::var("COLORFGBG").ok().as_deref())
}

/// `choose_light` with the environment given.
pub fn light_for(choice: ThemeChoice, osc11: Option<&[u8]>, colorfgbg: Option<&str>) -> bool {
    match choice {
        ThemeChoice::Light => true,
        ThemeChoice::Dark => false,
        ThemeChoice::Auto => {
            osc11.and_then(light_from_osc11).or_else(|| colorfgbg.and_then(light_from_colorfgbg)).unwrap_or(false)
        }
    }
}

/// Reads `COLORFGBG` (`15;0`, or `15;default;0`): the last field is the background's ANSI
/// colour number. 7 (light grey) and 9–15 except 8 are light backgrounds; `None` when the
/// value says nothing (`default`, not a number, empty).
pub fn light_from_colorfgbg(value: &str) -> Option<bool> {
    let bg: u8 = value.rsplit(';').next()?.trim().parse().ok()?;
    Some(matches!(bg, 7 | 9..=15))
}

/// Reads a terminal's answer to the OSC 11 query (`ESC ] 11 ; rgb:RRRR/GGGG/BBBB` ended by BEL
/// or `ESC \`; 1 to 4 hex digits a channel, also `rgba:`): whether that background is light
/// (relative luminance above one half). `None` for anything else.
pub fn light_from_osc11(answer: &[u8]) -> Option<bool> {
    let text = std::str::from_utf8(answer).ok()?;
    let start = text.find("\x1b]11;")? + 5;
    let rest = &text[start..];
    let end = rest.find(['\x07', '\x1b'])?;
    let spec = &rest[..end];
    let channels = spec.strip_prefix("rgb:").or_else(|| spec.strip_prefix("rgba:"))?;
    let mut values = channels.split('/').map(channel);
    let (r, g, b) = (values.next()??, values.next()??, values.next()??);
    Some(0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5)
}

/// One colour channel of 1 to 4 hex digits, scaled to 0..=1.
fn channel(hex: &str) -> Option<f64> {
    if hex.is_empty() || hex.len() > 4 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let value = u32::from_str_radix(hex, 16).ok()?;
    let max = (1u32 << (4 * hex.len())) - 1;
    Some(f64::from(value) / f64::from(max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colorfgbg_names_the_background_last() {
        assert_eq!(light_from_colorfgbg("0;15"), Some(true));
        assert_eq!(light_from_colorfgbg("0;7"), Some(true));
        assert_eq!(light_from_colorfgbg("15;0"), Some(false));
        assert_eq!(light_from_colorfgbg("15;default;0"), Some(false));
        assert_eq!(light_from_colorfgbg("12;8"), Some(false));
        assert_eq!(light_from_colorfgbg("0;default"), None);
        assert_eq!(light_from_colorfgbg(""), None);
        assert_eq!(light_from_colorfgbg("0;999"), None);
    }

    #[test]
    fn an_osc_11_answer_says_light_or_dark() {
        assert_eq!(light_from_osc11(b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"), Some(true));
        assert_eq!(light_from_osc11(b"\x1b]11;rgb:0000/0000/0000\x07"), Some(false));
        assert_eq!(light_from_osc11(b"\x1b]11;rgb:1e1e/2222/2a2a\x1b\\"), Some(false));
        assert_eq!(light_from_osc11(b"\x1b]11;rgb:fd/f6/e3\x07"), Some(true));
        assert_eq!(light_from_osc11(b"\x1b]11;rgba:ffff/ffff/ffff/ffff\x07"), Some(true));
        // Keys typed before the answer do not hide it.
        assert_eq!(light_from_osc11(b"ab\x1b]11;rgb:ffff/ffff/ffff\x1b\\"), Some(true));
    }

    #[test]
    fn odd_osc_11_answers_are_nothing() {
        for answer in [
            &b""[..],
            b"\x1b]11;rgb:ffff/ffff\x1b\\",
            b"\x1b]11;rgb:fffff/0/0\x07",
            b"\x1b]11;rgb:zz/00/00\x07",
            b"\x1b]11;rgb:ffff/ffff/ffff",
            b"\x1b]11;#ffffff\x07",
            b"\x1b]10;rgb:ffff/ffff/ffff\x07",
            b"\xff\xfe",
        ] {
            assert_eq!(light_from_osc11(answer), None, "{answer:?}");
        }
    }

    #[test]
    fn the_flag_wins_then_the_setting_then_what_was_saved_then_the_terminal() {
        use ThemeChoice::*;
        assert_eq!(choice_from(Some(Light), Some("dark"), Some(Dark)), Light);
        assert_eq!(choice_from(None, Some("light"), Some(Dark)), Light);
        assert_eq!(choice_from(None, Some("nonsense"), Some(Dark)), Dark);
        assert_eq!(choice_from(None, None, Some(Light)), Light);
        assert_eq!(choice_from(None, None, None), Auto);
        assert_eq!(choice_from(Some(Auto), Some("dark"), Some(Dark)), Auto);
        let white: &[u8] = b"\x1b]11;rgb:ffff/ffff/ffff\x07";
        assert!(light_for(Light, None, Some("15;0")));
        assert!(!light_for(Dark, Some(white), Some("0;15")));
        assert!(light_for(Auto, Some(white), Some("15;0")), "the terminal's answer wins over COLORFGBG");
        assert!(light_for(Auto, None, Some("0;15")));
        assert!(!light_for(Auto, None, None));
        assert!(!light_for(Auto, None, Some("default")));
    }
}
