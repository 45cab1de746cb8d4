//! Telling the user a long turn is done while they look elsewhere: when a turn that took
//! at least `NOTIFY_AFTER` ends and the terminal does not have focus (focus events), the
//! app rings the bell or sends an OSC 9 desktop notification. `ELELEM_NOTIFY=bell|osc9|off`
//! chooses (default `bell`).

use std::time::Duration;

/// Turns shorter than this end without a notification.
pub const NOTIFY_AFTER: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotifyMode {
    Bell,
    Osc9,
    Off,
}

impl NotifyMode {
    /// The mode `ELELEM_NOTIFY` names; anything unknown is the default, the bell.
    pub fn parse(value: Option<&str>) -> NotifyMode {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            Some("off" | "none" | "0") => NotifyMode::Off,
            Some("osc9" | "osc") => NotifyMode::Osc9,
            _ => NotifyMode::Bell,
        }
    }

    pub fn from_env() -> NotifyMode {
        NotifyMode::parse(std::env::var("ELELEM_NOTIFY").ok().as_deref())
    }

    /// The bytes to write to the terminal for `message`, if any.
    pub fn sequence(self, message: &str) -> Option<String> {
        match self {
            NotifyMode::Off => None,
            NotifyMode::Bell => Some("\x07".into()),
            NotifyMode::Osc9 => {
                let text: String = message.chars().filter(|c| !c.is_control()).collect();
                Some(format!("\x1b]9;{text}\x07"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mode_comes_from_its_name_and_osc9_carries_a_clean_message() {
        assert_eq!(NotifyMode::parse(None), NotifyMode::Bell);
        assert_eq!(NotifyMode::parse(Some("OSC9")), NotifyMode::Osc9);
        assert_eq!(NotifyMode::parse(Some("off")), NotifyMode::Off);
        assert_eq!(NotifyMode::Off.sequence("done"), None);
        assert_eq!(NotifyMode::Bell.sequence("done").as_deref(), Some("\x07"));
        assert_eq!(NotifyMode::Osc9.sequence("done\x1b[2J").as_deref(), Some("\x1b]9;done[2J\x07"));
    }
}
