//! `@path` mentions in a prompt: each names a file the model should see. A built-in plugin
//! (registered by `startup`): its `Plugin::attach` hook runs on each prompt before it is
//! sent. A mention of an existing text file (up to `CAP` bytes) attaches the file's
//! contents to the prompt, after it, so the prompt the model gets — and the context panel
//! shows — carries the file. Other `@words` stay as typed. A mention of an image (png,
//! jpeg, gif, webp, known by its first bytes) attaches the image itself (`protocol::Image`,
//! up to 5 MB) and a chip (`[image shot.png 34 KB]`) in the text; an image too large
//! refuses the prompt, so nothing is sent without the picture the user asked about.
//!
//! A mention passes the same checks as a tool's path: it is a call of the read-only
//! `mention` tool (never offered to the model) whose `path` goes through the toolbox's
//! before hooks (`Toolbox::check`), so the permissions gate refuses a path under
//! `paths.deny` and asks about one outside the project (refuses it when nobody can be
//! asked). The file opened is the path that was checked, no symlink followed after
//! (`paths::no_follow`), and only a regular file is read: a FIFO or a device is refused.

use crate::agent::output::{AgentEvent, Output};
use crate::agent::tool::{Tool, ToolContext};
use crate::agent::toolbox::Toolbox;
use crate::agent::{Plugin, Prompt, Session};
use crate::paths::{self, no_follow};
use crate::protocol::image::{self, Image, MAX_IMAGE_BYTES};
use futures::future::BoxFuture;
use serde_json::{json, Value};
use std::io::Read as _;
use std::path::Path;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The plugin: attaches what a prompt mentions, for every front end.
pub struct Mentions;

impl Plugin for Mentions {
    fn name(&self) -> &str {
        "mentions"
    }

    fn setup(&self, _session: &mut Session) -> anyhow::Result<()> {
        Ok(())
    }

    fn attach<'a>(
        &'a self,
        session: &'a mut Session,
        prompt: &'a mut Prompt,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            if !prompt.text.contains('@') {
                return Ok(());
            }
            let (cwd, provider, output) = (session.cwd(), session.provider().clone(), session.output());
            let no_images = (!provider.accepts_images()).then(|| provider.model());
            let to = For { cwd: &cwd, toolbox: session.toolbox(), cancel, output: &output, no_images };
            let attached = attach(&prompt.text, to).await?;
            prompt.text = attached.text;
            prompt.images.extend(attached.images);
            Ok(())
        })
    }
}

/// Bytes of one attached file at most.
const CAP: usize = 256 * 1024;

/// The name hooks and permission rules see a mention as.
pub const TOOL: &str = "mention";

/// The tool a mention is checked as: read-only, one path argument.
fn tool() -> Arc<Tool> {
    let parameters = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    let tool =
        Tool::builtin(TOOL, "a file the user mentioned with @path, attached to the prompt", parameters, |_, _| async {
            Ok(Value::Null)
        });
    Arc::new(tool.read_only().summarized_by("path").touches_paths(&["path"]))
}

/// A prompt with what it mentions attached.
#[derive(Debug, Default, PartialEq)]
pub struct Attached {
    /// The prompt, the text files after it, then a chip per image.
    pub text: String,
    pub images: Vec<Image>,
}

/// Who a prompt's mentions are attached for: the session's directory and toolbox, the
/// turn's cancel token and output, and whether the model reads images.
pub struct For<'a> {
    pub cwd: &'a Path,
    pub toolbox: &'a Toolbox,
    pub cancel: &'a CancellationToken,
    pub output: &'a Arc<dyn Output>,
    /// `None` when the model reads images; else its name, for the warning.
    pub no_images: Option<&'a str>,
}

/// `prompt` with the files it mentions attached. A mention the checks refuse, or that is
/// not a regular file, is left as typed and said so through `output` (so is an image for
/// a model that reads none); an image that cannot be sent (too large) is an `Err` with the
/// reason: the prompt is not sent.
pub async fn attach(prompt: &str, to: For<'_>) -> Result<Attached, String> {
    let For { cwd, toolbox, cancel, output, no_images } = to;
    let mut attached: Vec<String> = Vec::new();
    let mut out = prompt.to_string();
    let mut images = Vec::new();
    let (tool, home) = (tool(), paths::home());
    for word in prompt.split_whitespace() {
        let Some(mention) = word.strip_prefix('@') else { continue };
        let mention = mention.trim_end_matches([',', '.', ';', ':', ')', '?', '!']);
        if mention.is_empty() || attached.iter().any(|a| a == mention) {
            continue;
        }
        // Relative to the session's directory; `~` is home, as for the tools.
        let given = match mention.starts_with('~') || Path::new(mention).is_absolute() {
            true => mention.to_string(),
            false => cwd.join(mention).to_string_lossy().into_owned(),
        };
        if std::fs::symlink_metadata(paths::resolve(&given, cwd, home.as_deref())).is_err() {
            continue; // not a file: a word like any other (`@someone`)
        }
        let context = ToolContext::new(format!("mention-{}", attached.len() + 1), cancel.clone(), None);
        let checked = match toolbox.check(tool.clone(), json!({"path": given}), context).await {
            Ok(context) => context,
            Err(refusal) => {
                output.emit(AgentEvent::Warning(format!("@{mention} is not attached: {refusal}")));
                continue;
            }
        };
        let Some(real) = checked.path("path") else { continue };
        match read(real) {
            Ok(Some(Read::Text(text))) => {
                out.push_str(&format!("\n\n<file path=\"{mention}\">\n{}\n</file>", text.trim_end_matches('\n')));
                attached.push(mention.to_string());
            }
            Ok(Some(Read::Image(_) | Read::TooLarge(_))) if no_images.is_some() => {
                let model = no_images.unwrap_or_default();
                output.emit(AgentEvent::Warning(format!(
                    "@{mention} is not attached: {model} does not read images (ELELEM_IMAGES=on says it does)"
                )));
            }
            Ok(Some(Read::Image(bytes))) => {
                let real = Some(real.to_string_lossy().into_owned());
                let image = Image::from_bytes(mention, real, &bytes).map_err(|e| format!("@{mention}: {e}"))?;
                images.push(image);
                attached.push(mention.to_string());
            }
            Ok(Some(Read::TooLarge(size))) => {
                return Err(format!("@{mention}: {}", image::ImageError::TooLarge(size)));
            }
            Ok(None) => {}
            Err(why) => output.emit(AgentEvent::Warning(format!("@{mention} is not attached: {why}"))),
        }
    }
    for image in &images {
        out.push_str(&format!("\n\n{}", image.chip()));
    }
    Ok(Attached { text: out, images })
}

/// What a mentioned file holds.
enum Read {
    Text(String),
    Image(Vec<u8>),
    /// An image past `MAX_IMAGE_BYTES`, of this many bytes.
    TooLarge(usize),
}

/// The text or image of the regular file at `real` (opened without following a symlink,
/// without blocking); `None` for a text file too big or binary (left as typed, as before);
/// `Err` for anything but a regular file.
fn read(real: &Path) -> Result<Option<Read>, String> {
    let file = no_follow::open_read(real).map_err(|e| format!("cannot read {}: {e}", real.display()))?;
    let meta = file.metadata().map_err(|e| format!("cannot read {}: {e}", real.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is {}, not a regular file", real.display(), no_follow::kind_name(meta.file_type())));
    }
    let mut bytes = Vec::new();
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", real.display());
    let mut file = file;
    (&mut file).take(CAP as u64 + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if image::sniff(&bytes).is_some() {
        (&mut file)
            .take((MAX_IMAGE_BYTES + 1 - bytes.len().min(MAX_IMAGE_BYTES)) as u64)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        if bytes.len() > MAX_IMAGE_BYTES {
            return Ok(Some(Read::TooLarge((meta.len() as usize).max(bytes.len()))));
        }
        return Ok(Some(Read::Image(bytes)));
    }
    if bytes.len() > CAP || bytes.iter().take(8192).any(|&b| b == 0) {
        return Ok(None);
    }
    Ok(Some(Read::Text(String::from_utf8_lossy(&bytes).into_owned())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::output::RecordingOutput;

    fn at<'a>(
        cwd: &'a Path,
        toolbox: &'a Toolbox,
        cancel: &'a CancellationToken,
        output: &'a Arc<dyn Output>,
    ) -> For<'a> {
        For { cwd, toolbox, cancel, output, no_images: None }
    }

    #[tokio::test]
    async fn an_image_is_not_attached_for_a_model_that_reads_none() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("shot.png"), b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01").unwrap();
        let recording = Arc::new(RecordingOutput::default());
        let output: Arc<dyn Output> = recording.clone();
        let (toolbox, cancel) = (Toolbox::new(), CancellationToken::new());
        let to = For { no_images: Some("llama3"), ..at(dir.path(), &toolbox, &cancel, &output) };
        let attached = attach("what is @shot.png", to).await.unwrap();
        assert_eq!(attached, Attached { text: "what is @shot.png".into(), images: Vec::new() });
        let warned = AgentEvent::Warning(
            "@shot.png is not attached: llama3 does not read images (ELELEM_IMAGES=on says it does)".into(),
        );
        assert_eq!(recording.events(), vec![warned]);
        let attached = attach("what is @shot.png", at(dir.path(), &toolbox, &cancel, &output)).await.unwrap();
        assert_eq!(attached.images.len(), 1);
    }

    #[tokio::test]
    async fn attaches_mentioned_text_files_once_and_leaves_other_words() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn x() {}\n").unwrap();
        std::fs::write(dir.path().join("blob.bin"), [0u8, 1, 2]).unwrap();
        let prompt = "explain @src/lib.rs, and again @src/lib.rs; ask @someone about @blob.bin";
        let output: Arc<dyn Output> = Arc::new(RecordingOutput::default());
        let (toolbox, cancel) = (Toolbox::new(), CancellationToken::new());
        assert_eq!(
            attach(prompt, at(dir.path(), &toolbox, &cancel, &output)).await.unwrap().text,
            format!("{prompt}\n\n<file path=\"src/lib.rs\">\npub fn x() {{}}\n</file>")
        );
        let none = attach("no mentions", at(dir.path(), &toolbox, &cancel, &output)).await.unwrap();
        assert_eq!(none.text, "no mentions");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_fifo_is_refused_without_blocking_and_a_hook_sees_the_resolved_path() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) reads a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        std::fs::write(dir.path().join("secret"), "s\n").unwrap();
        let recording = Arc::new(RecordingOutput::default());
        let output: Arc<dyn Output> = recording.clone();
        let mut toolbox = Toolbox::new();
        toolbox.before(None, |call| async move {
            let real = call.context.path("path").unwrap().to_path_buf();
            match real.ends_with("secret") {
                true => Err(format!("denied {}", real.display())),
                false => Ok(()),
            }
        });
        let prompt = "@pipe @secret";
        assert_eq!(
            attach(prompt, at(dir.path(), &toolbox, &CancellationToken::new(), &output)).await.unwrap().text,
            prompt
        );
        let warnings: Vec<String> = recording
            .events()
            .into_iter()
            .filter_map(|e| match e {
                AgentEvent::Warning(w) => Some(w),
                _ => None,
            })
            .collect();
        assert!(
            warnings[0].starts_with("@pipe is not attached: ")
                && warnings[0].ends_with("is a FIFO (named pipe), not a regular file"),
            "{warnings:?}"
        );
        assert!(warnings[1].starts_with("@secret is not attached: denied "), "{warnings:?}");
    }
}
