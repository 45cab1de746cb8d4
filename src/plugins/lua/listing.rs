//! What each plugin file registered, or why it did not load: kept by each file for
//! `/plugins` and `elelem plugins`.

use std::fmt::Write as _;
use std::path::Path;

/// What one load of a file added to the session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Registered {
    /// `name` or `name (alias, ...)`.
    pub tools: Vec<String>,
    /// `before execute`, `after *`.
    pub hooks: Vec<String>,
    /// `/hello`.
    pub commands: Vec<String>,
    pub providers: Vec<String>,
    /// Observed event names.
    pub events: Vec<String>,
}

impl Registered {
    pub fn extend(&mut self, more: &Registered) {
        self.tools.extend(more.tools.iter().cloned());
        self.hooks.extend(more.hooks.iter().cloned());
        self.commands.extend(more.commands.iter().cloned());
        self.providers.extend(more.providers.iter().cloned());
        self.events.extend(more.events.iter().cloned());
    }
}

/// How a file's last load went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    NotLoaded,
    Loaded(Registered),
    /// `<line>: <message>`.
    Failed(String),
    /// The file was deleted since startup.
    Removed,
}

/// The listing of `/plugins`: each file with what it registered, then the project folder
/// that was skipped, if any.
pub fn render(files: &[(String, Status)], skipped: Option<(&Path, usize)>) -> String {
    let mut text = String::new();
    if files.is_empty() {
        text.push_str("No plugin files loaded (looked in ~/.agents/plugins and .agents/plugins).\n");
    }
    for (path, status) in files {
        let _ = writeln!(text, "{path}");
        match status {
            Status::NotLoaded => text.push_str("    not loaded yet\n"),
            Status::Removed => text.push_str("    removed\n"),
            Status::Failed(failure) => {
                let _ = writeln!(text, "    failed: {failure}");
            }
            Status::Loaded(r) => {
                let parts = [
                    ("tools", &r.tools),
                    ("hooks", &r.hooks),
                    ("commands", &r.commands),
                    ("providers", &r.providers),
                    ("events", &r.events),
                ];
                let mut any = false;
                for (label, names) in parts.into_iter().filter(|(_, names)| !names.is_empty()) {
                    any = true;
                    let _ = writeln!(text, "    {label}: {}", names.join(", "));
                }
                if !any {
                    text.push_str("    registered nothing\n");
                }
            }
        }
    }
    if let Some((dir, count)) = skipped {
        let _ = writeln!(text, "{}", skipped_notice(dir, count));
    }
    text.trim_end().to_string()
}

/// Why a project's plugin files were not loaded, and how to load them.
pub fn skipped_notice(dir: &Path, count: usize) -> String {
    let files = if count == 1 { "1 plugin file".to_string() } else { format!("{count} plugin files") };
    format!(
        "{} ({files}) not loaded: this project is not trusted. Run with --trust to load its plugins.",
        dir.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_names_what_each_file_registered_and_each_failure() {
        let loaded = Registered {
            tools: vec!["shout (yell)".into()],
            hooks: vec!["before execute".into()],
            ..Registered::default()
        };
        let files = vec![
            ("/h/.agents/plugins/a.lua".to_string(), Status::Loaded(loaded)),
            ("/h/.agents/plugins/b.lua".to_string(), Status::Failed("3: boom".into())),
        ];
        assert_eq!(
            render(&files, None),
            "/h/.agents/plugins/a.lua\n    tools: shout (yell)\n    hooks: before execute\n\
             /h/.agents/plugins/b.lua\n    failed: 3: boom"
        );
    }
}
