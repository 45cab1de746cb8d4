//! A settings file under `.agents/` that the user's home and a trusted project may both
//! hold (`mcp.json`, `lsp.json`): the user's first, then the project's — only when the
//! project is trusted (else a notice) and never through a link out of the project. Each is
//! a regular file of at most `limit` bytes, opened without waiting (a FIFO or a device is
//! a notice, at once); a missing file is no notice.

use std::path::{Path, PathBuf};

/// One file read: where it is, and its text.
pub struct Layer {
    pub path: PathBuf,
    pub text: String,
}

/// Which file: its name under `.agents/`, its size cap, the word that starts its notices,
/// and what an untrusted project's file is not used for ("not using", "not starting the
/// servers in").
#[derive(Clone, Copy)]
pub struct SettingsFile {
    pub name: &'static str,
    pub limit: u64,
    pub label: &'static str,
    pub untrusted: &'static str,
}

/// The texts of `<home>/.agents/<name>` and, when `trusted_project`, of
/// `<project>/.agents/<name>`, in that order; a project file left unread is a notice.
pub fn read_layers(
    file: &SettingsFile,
    home: Option<&Path>,
    project: &Path,
    trusted_project: bool,
    notices: &mut Vec<String>,
) -> Vec<Layer> {
    let SettingsFile { name, limit, label, untrusted } = *file;
    let mut layers = Vec::new();
    if let Some(home) = home {
        layers.extend(read(&home.join(".agents").join(name), None, limit, label, notices));
    }
    let project_file = project.join(".agents").join(name);
    if project_file.is_file() && Some(project) != home {
        if trusted_project {
            let root = crate::plugins::trust::project_root(project);
            layers.extend(read(&project_file, Some(&root), limit, label, notices));
        } else {
            notices.push(format!(
                "{label}: {untrusted} {} because this project is not trusted; run elelem --trust to trust it",
                project_file.display()
            ));
        }
    }
    layers
}

fn read(path: &Path, within: Option<&Path>, limit: u64, label: &str, notices: &mut Vec<String>) -> Option<Layer> {
    let reading = crate::safe_file::Reading::capped(limit);
    let reading = match within {
        Some(root) => reading.within(root),
        None => reading,
    };
    match reading.text(path) {
        Ok(text) => Some(Layer { path: path.to_path_buf(), text }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            notices.push(format!("{label}: cannot read {}: {error}", path.display()));
            None
        }
    }
}
