//! What `/sandbox` shows and does: the sandbox in force for this run (mode, where a
//! contained command may write, the network, the protected and the unreadable paths), and
//! the switch to another mode for the rest of the session, which the user typed.

use super::{kernel_abi, rules, seals, settings, Mode};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The sandbox in force for commands run in `project`, in a few lines.
pub fn describe(project: &Path) -> String {
    let settings = settings();
    let project = project.canonicalize().unwrap_or_else(|_| project.to_path_buf());
    let mut text = format!("Sandbox for execute: {}", settings.mode.word());
    if settings.mode != Mode::Off && !super::active() {
        let _ = write!(text, ", unavailable here (Landlock ABI {} < 4): commands are asked about", kernel_abi());
    } else if settings.mode == Mode::Off {
        text.push_str(": commands run with your rights and are asked about");
    }
    text.push('\n');
    let list = |paths: &[PathBuf]| paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    let writable = match settings.mode {
        Mode::WorkspaceWrite => list(&rules::writable_roots(&project, &settings)),
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
        format!(" (but the sandbox is unavailable here, Landlock ABI {} < 4: commands are asked about)", kernel_abi())
    } else {
        String::new()
    };
    if before == mode {
        return Ok(format!("The sandbox was already {}: {after}{unavailable}.", mode.word()));
    }
    Ok(format!("Sandbox: {} → {} for this session: {after}{unavailable}.", before.word(), mode.word()))
}
