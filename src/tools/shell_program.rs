//! The shell a command runs in: `bash` on Unix; on Windows Git Bash when it is installed
//! (never WSL's `bash.exe` launcher in the Windows folder), else Windows PowerShell
//! (`powershell.exe -NoProfile -NonInteractive -Command`).

/// `command` run by the shell: `argv` is bash's (`["bash", "-c", …]`), the command last.
#[cfg(unix)]
pub fn command(argv: &[&str], command: &str) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new("bash");
    cmd.args(argv.get(1..).unwrap_or_default()).arg(command);
    cmd
}

/// The shell's name, for messages and the system prompt.
#[cfg(unix)]
pub fn name() -> &'static str {
    "bash"
}

/// `command` run by Git Bash with bash's `argv`, or by PowerShell without it.
#[cfg(windows)]
pub fn command(argv: &[&str], command: &str) -> tokio::process::Command {
    match git_bash() {
        Some(bash) => {
            let mut cmd = tokio::process::Command::new(bash);
            cmd.args(argv.get(1..).unwrap_or_default()).arg(command);
            cmd
        }
        None => {
            let mut cmd = tokio::process::Command::new("powershell.exe");
            cmd.args(["-NoLogo", "-NoProfile", "-NonInteractive", "-Command"]).arg(command);
            cmd
        }
    }
}

/// The shell's name, for messages and the system prompt.
#[cfg(windows)]
pub fn name() -> &'static str {
    match git_bash() {
        Some(_) => "bash",
        None => "powershell",
    }
}

/// Git Bash's `bash.exe`: where Git for Windows installs it, else the first on PATH
/// outside the Windows folder (whose `bash.exe` starts WSL).
#[cfg(windows)]
fn git_bash() -> Option<&'static std::path::Path> {
    use std::path::PathBuf;
    static BASH: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    BASH.get_or_init(|| {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let installed = ["ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"]
            .iter()
            .filter_map(|name| var(name))
            .chain(var("LOCALAPPDATA").map(|dir| dir.join("Programs")))
            .map(|dir| dir.join("Git").join("bin").join("bash.exe"));
        let windows = var("SystemRoot").map(|dir| dir.to_string_lossy().to_lowercase());
        let on_path = std::env::var_os("PATH")
            .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|dir| windows.as_ref().is_none_or(|w| !dir.to_string_lossy().to_lowercase().starts_with(w)))
            .map(|dir| dir.join("bash.exe"));
        installed.chain(on_path).find(|path| path.is_file())
    })
    .as_deref()
}
