//! The layout the user chose, remembered between runs in `$XDG_DATA_HOME/elelem/tui.json`
//! (mode 0600): how wide the side column is, which pane, if any, is zoomed, and the palette
//! `/theme` chose. A missing
//! or unreadable file gives the defaults; a failed write is ignored (it is a convenience).
//! Read and written through `safe_file`: a regular file of at most `FILE_LIMIT` bytes,
//! opened without waiting (a FIFO or a link to `/dev/zero` gives the defaults at once),
//! written to a temporary file renamed over a regular one, never through a link.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Share of the screen the side column (wide layout) or the tool log (stacked) takes, in
/// percent, and its bounds.
pub const DEFAULT_SPLIT: u16 = 36;
pub const MIN_SPLIT: u16 = 20;
pub const MAX_SPLIT: u16 = 70;
/// How much one resize key moves the split.
pub const SPLIT_STEP: u16 = 4;

/// Bytes of `tui.json` read at most.
const FILE_LIMIT: u64 = 64 * 1024;

/// A pane shown on the whole screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Zoom {
    Conversation,
    Tools,
    Context,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LayoutPrefs {
    pub split: u16,
    pub zoom: Option<Zoom>,
    /// `/theme light|dark|auto`; unset until the user chose.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<crate::tui::text::background::ThemeChoice>,
}

impl Default for LayoutPrefs {
    fn default() -> Self {
        LayoutPrefs { split: DEFAULT_SPLIT, zoom: None, theme: None }
    }
}

impl LayoutPrefs {
    /// The file they live in, under the XDG data directory.
    pub fn path() -> Option<PathBuf> {
        crate::data_dir::data_dir().map(|dir| dir.join("tui.json"))
    }

    pub fn load(path: &Path) -> LayoutPrefs {
        let text = crate::safe_file::read_text(path, FILE_LIMIT).ok();
        let prefs: LayoutPrefs = text.and_then(|text| serde_json::from_str(&text).ok()).unwrap_or_default();
        LayoutPrefs { split: prefs.split.clamp(MIN_SPLIT, MAX_SPLIT), ..prefs }
    }

    /// Writes the file (0600, created with that mode so it is never readable by others):
    /// a new file renamed over a regular one; a link, FIFO or device there is an error.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            crate::data_dir::create_private_dir(dir)?;
        }
        crate::safe_file::replace(path, serde_json::to_string(self).unwrap_or_default().as_bytes(), 0o600)
    }

    /// The split moved by `steps` resize steps, kept in bounds.
    pub fn resized(self, steps: i32) -> LayoutPrefs {
        let split =
            (i32::from(self.split) + steps * i32::from(SPLIT_STEP)).clamp(i32::from(MIN_SPLIT), i32::from(MAX_SPLIT));
        LayoutPrefs { split: split as u16, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::PermissionsExt;

    #[cfg(unix)]
    #[test]
    fn saved_prefs_load_back_and_the_file_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("elelem/tui.json");
        assert_eq!(LayoutPrefs::load(&path), LayoutPrefs::default());
        let prefs = LayoutPrefs {
            split: 52,
            zoom: Some(Zoom::Tools),
            theme: Some(crate::tui::text::background::ThemeChoice::Light),
        };
        prefs.save(&path).unwrap();
        assert_eq!(LayoutPrefs::load(&path), prefs);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn the_split_stays_in_bounds_even_from_a_bad_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tui.json");
        std::fs::write(&path, r#"{"split": 999}"#).unwrap();
        assert_eq!(LayoutPrefs::load(&path).split, MAX_SPLIT);
        std::fs::write(&path, "not json").unwrap();
        assert_eq!(LayoutPrefs::load(&path), LayoutPrefs::default());
        assert_eq!(LayoutPrefs::default().resized(-100).split, MIN_SPLIT);
    }
}
