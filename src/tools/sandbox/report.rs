//! What `/sandbox` shows and does: the sandbox in force for this run (mode, where a
//! contained command may write — as the grant has it, `writable_in_fact` —, the network,
//! the protected and the unreadable paths), and the switch to another mode for the rest of
//! the session, which the user typed.

use super::rules::WriteRoot;
use super::{rules, seals, settings, Mode, Settings};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The sandbox in force for commands run in `project`, in a few lines.
pub fn describe(project: &Path) -> String {
    let settings = settings();
    let project = project.canonicalize().unwrap_or_else(|_| project.to_path_buf());
    let mut text = format!("Sandbox for execute: {}", settings.mode.word());
    if settings.mode != Mode::Off && !super::active() {
        let _ = write!(text, ", unavailable here ({}): commands are asked about", super::unavailable_why());
    } else if settings.mode == Mode::Off {
        text.push_str(": commands run with your rights and are asked about");
    }
    text.push('\n');
    let list = |paths: &[PathBuf]| paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    let writable = match settings.mode {
        Mode::WorkspaceWrite => writable_in_fact(&project, &settings),
        Mode::ReadOnly => "nowhere (read-only)".to_string(),
        Mode::Off => "anywhere you may".to_string(),
    };
    let _ = writeln!(text, "  writable:   {writable}");
    let network = if settings.network || settings.mode == Mode::Off { "on" } else { "off" };
    let _ = writeln!(text, "  network:    {network}");
    let protected = seals::protected(&project, &project);
    let _ = writeln!(
        text,
        "  protected:  {} (and .agents/, .claude/ and .git in each folder a command runs in)",
        list(&protected)
    );
    let unreadable = rules::unreadable(&settings, &mut Vec::new());
    let _ = writeln!(text, "  unreadable: {}", list(&unreadable));
    text.push_str("Switch for this session with /sandbox off, /sandbox workspace-write or /sandbox read-only.");
    text
}

/// Where a contained command may write, as the grant has it (`rules::write_roots`, split
/// by `cover`): a place granted whole by its name (this run's temp directory marked
/// `$TMPDIR`); a place with holes inside (the system's temp directory holding the home)
/// as the folders already in it, since nothing new can be made in it itself; a place that
/// does not exist or lies in a hole, not at all.
fn writable_in_fact(project: &Path, settings: &Settings) -> String {
    let protected = seals::protected(project, project);
    let secrets = rules::unreadable(settings, &mut Vec::new());
    let temp = super::temp::dir(project);
    let mut places: Vec<String> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for WriteRoot { root, holes } in
        rules::write_roots(settings, project, &protected, seals::namespaces_work(), &secrets)
    {
        if seen.contains(&root) || !root.is_dir() || holes.iter().any(|hole| root.starts_with(hole)) {
            continue;
        }
        seen.push(root.clone());
        let inside: Vec<&PathBuf> = holes.iter().filter(|hole| hole.starts_with(&root)).collect();
        if inside.is_empty() {
            let mark = if temp.as_ref() == Some(&root) { " ($TMPDIR)" } else { "" };
            places.push(format!("{}{mark}", root.display()));
            continue;
        }
        // The outermost holes the user did not see listed as protected.
        let named: Vec<String> = inside
            .iter()
            .filter(|hole| !protected.contains(hole))
            .filter(|hole| !inside.iter().any(|other| other != *hole && hole.starts_with(other)))
            .map(|hole| hole.display().to_string())
            .collect();
        let but = match named.is_empty() {
            true => " but the protected paths".to_string(),
            false => format!(" but {}", named.join(", ")),
        };
        places.push(format!(
            "the folders already in {}{but} (nothing new in {} itself)",
            root.display(),
            root.display()
        ));
    }
    places.join(", ")
}

/// `/sandbox MODE`: switches to `word`'s mode for the rest of the session; what changed,
/// in a sentence (an error for an unknown mode).
pub fn switch(word: &str) -> Result<String, String> {
    let mode = Mode::parse(word)?;
    let before = settings().mode;
    super::set_mode(mode);
    let after = match mode {
        Mode::Off => "commands now run with your rights, and execute asks before each again",
        Mode::ReadOnly => "commands now run contained and may write nowhere",
        Mode::WorkspaceWrite => "commands now run contained and may write inside the project and the temp directory",
    };
    let unavailable = if mode != Mode::Off && !super::active() {
        format!(" (but the sandbox is unavailable here, {}: commands are asked about)", super::unavailable_why())
    } else {
        String::new()
    };
    if before == mode {
        return Ok(format!("The sandbox was already {}: {after}{unavailable}.", mode.word()));
    }
    Ok(format!("Sandbox: {} → {} for this session: {after}{unavailable}.", before.word(), mode.word()))
}
