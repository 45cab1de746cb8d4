//! The `read` tool: a text file with line numbers, a window of lines (`offset`, `limit`),
//! the total line count, binary files refused, and big files cut with a note on how to
//! read further. Only regular files are opened (a FIFO or `/dev/zero` is refused), and the
//! file is streamed: only the window is held in memory, however big the file. The file
//! opened is the path resolved for the call (`~` is home), no symlink followed after it.
//! An image (png, jpeg, gif, webp by its first bytes) goes to a model that reads images as
//! the image itself (`ToolContext::attach_image`), up to 5 MB; other models get the refusal
//! a binary file gets, saying why.

use super::regular;
use crate::agent::{Tool, ToolContext};
use crate::protocol::image::{self, Image, ImageError, MAX_IMAGE_BYTES};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;
use tokio_util::sync::CancellationToken;

/// Lines returned when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 2000;
/// Bytes of numbered text returned at most per call.
pub const BYTE_CAP: usize = 256 * 1024;
/// Characters kept of one very long line.
pub const LINE_CAP: usize = 2000;
/// Bytes looked at to tell a binary file (one with a NUL byte) from text.
const SNIFF: usize = 8192;
/// Bytes of one line kept: always enough for `LINE_CAP + 1` characters.
const LINE_BYTES: usize = 4 * (LINE_CAP + 1);

pub fn tool() -> Tool {
    Tool::builtin(
        "read",
        "Read a text file as numbered lines (`N<tab>text`) with the total; `offset` (first \
         line) and `limit` (default 2000) for long files.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "offset": {"type": "integer", "minimum": 1},
                "limit": {"type": "integer", "minimum": 1}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        read,
    )
    .with_aliases(&["open", "cat", "read_file", "view"])
    .read_only()
    .summarized_by("path")
    .touches_paths(&["path"])
}

async fn read(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let (path, real) = super::path_arg(&args, &ctx, "path")?;
    let offset = args["offset"].as_u64().map_or(1, |n| usize::try_from(n).unwrap_or(usize::MAX)).max(1);
    let limit = args["limit"].as_u64().map_or(DEFAULT_LIMIT, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let scanned = match ctx.read_routed(&real).await {
        // The front end's text of the file (an editor's buffer, unsaved changes included).
        Some(Ok(text)) => {
            let mut window = Window::new(offset, limit);
            window.push(text.as_bytes());
            Ok(Scanned::Text(window.finish()))
        }
        Some(Err(error)) => Err(format!("cannot read {path}: {error:#}")),
        None => {
            let (shown, cancel, images) = (path.clone(), ctx.cancel.clone(), ctx.accepts_images());
            ctx.blocking(move || scan(Path::new(&shown), &real, offset, limit, images, &cancel)).await?
        }
    };
    let window = match scanned {
        Ok(Scanned::Text(window)) => window,
        Ok(Scanned::Image(image)) => {
            let content = format!("{} ({}, the image follows)", image.chip(), image.media_type);
            let media_type = image.media_type.clone();
            ctx.attach_image(image);
            return Ok(json!({"content": content, "path": path, "image": media_type}));
        }
        Err(message) => return Ok(json!({"error": message, "path": path})),
    };
    let mut content = window.content;
    if window.last < window.total {
        let _ = write!(
            content,
            "\n[showing lines {offset}-{} of {}; call read with offset={} to read further]",
            window.last,
            window.total,
            window.last + 1
        );
    }
    Ok(json!({"content": content, "path": path, "lines": window.total}))
}

/// What a file read as.
enum Scanned {
    Text(Window),
    Image(Image),
}

/// Opens `real` (a regular file; `path` as the model gave it) and numbers its window, or
/// reads it as an image when `images` (the model reads them); the error is for the model.
fn scan(
    path: &Path,
    real: &Path,
    offset: usize,
    limit: usize,
    images: bool,
    cancel: &CancellationToken,
) -> Result<Scanned, String> {
    let (mut file, meta) = regular::open_real(path, real).map_err(|e| e.to_string())?;
    let io = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut head = Vec::with_capacity(SNIFF);
    (&mut file).take(SNIFF as u64).read_to_end(&mut head).map_err(io)?;
    if let Some(media_type) = image::sniff(&head) {
        if !images {
            return Err(format!(
                "{} is an image ({media_type}, {} bytes); this model does not read images (ELELEM_IMAGES=on says it does)",
                path.display(),
                meta.len()
            ));
        }
        if meta.len() > MAX_IMAGE_BYTES as u64 {
            return Err(format!("{}: {}", path.display(), ImageError::TooLarge(meta.len() as usize)));
        }
        (&mut file).take(MAX_IMAGE_BYTES as u64 + 1 - head.len() as u64).read_to_end(&mut head).map_err(io)?;
        let shown = path.to_string_lossy();
        let image = Image::from_bytes(&shown, Some(real.to_string_lossy().into_owned()), &head)
            .map_err(|e| format!("{shown}: {e}"))?;
        return Ok(Scanned::Image(image));
    }
    if head.contains(&0) {
        return Err(format!("{} is a binary file ({} bytes); not shown", path.display(), meta.len()));
    }
    let mut window = Window::new(offset, limit);
    window.push(&head);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if cancel.is_cancelled() {
            return Err("interrupted".to_string());
        }
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => window.push(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(e)),
        }
    }
    Ok(Scanned::Text(window.finish()))
}

/// Lines `offset..offset+limit` (1-based) of a byte stream, numbered, stopping at
/// `BYTE_CAP`, and the count of all lines (as `str::lines` counts them). Holds only the
/// window and at most `LINE_BYTES` of the line being read.
#[derive(Debug, PartialEq)]
struct Window {
    first: usize,
    limit: usize,
    /// The numbered text so far.
    content: String,
    /// Number of the last line included (`first - 1` before any).
    last: usize,
    /// Lines completed so far; all lines after `finish`.
    total: usize,
    /// The BYTE_CAP was reached: no further line is included.
    full: bool,
    /// Kept bytes of the line being read, and whether it is longer than that.
    line: Vec<u8>,
    line_cut: bool,
}

impl Window {
    fn new(offset: usize, limit: usize) -> Self {
        let first = offset.max(1);
        Window {
            first,
            limit,
            content: String::new(),
            last: first - 1,
            total: 0,
            full: false,
            line: Vec::new(),
            line_cut: false,
        }
    }

    /// Whether the line being read (0-based `total`) may be shown.
    fn wanted(&self) -> bool {
        !self.full && self.total + 1 >= self.first && self.total + 1 - self.first < self.limit
    }

    fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let end = memchr::memchr(b'\n', bytes);
            let piece = &bytes[..end.unwrap_or(bytes.len())];
            if self.wanted() {
                let room = LINE_BYTES.saturating_sub(self.line.len());
                self.line.extend_from_slice(&piece[..piece.len().min(room)]);
                self.line_cut |= piece.len() > room;
            } else if !piece.is_empty() {
                // Outside the window only emptiness matters (a last line without `\n`).
                self.line_cut = true;
            }
            match end {
                Some(at) => {
                    self.end_line(true);
                    bytes = &bytes[at + 1..];
                }
                None => bytes = &[],
            }
        }
    }

    /// Ends the line being read; `newline` when a `\n` ended it (then `\r\n` counts as one).
    fn end_line(&mut self, newline: bool) {
        if self.wanted() {
            if newline && !self.line_cut && self.line.last() == Some(&b'\r') {
                self.line.pop();
            }
            let text = String::from_utf8_lossy(&self.line);
            let line = match text.char_indices().nth(LINE_CAP) {
                Some((cut, _)) => format!("{}… [line cut at {LINE_CAP} characters]", &text[..cut]),
                None => text.into_owned(),
            };
            if self.content.len() + line.len() > BYTE_CAP && self.last >= self.first {
                self.full = true;
            } else {
                let _ = writeln!(self.content, "{:>6}\t{line}", self.total + 1);
                self.last = self.total + 1;
            }
        }
        self.total += 1;
        self.line.clear();
        self.line_cut = false;
    }

    /// Counts an unfinished last line, as `str::lines` does.
    fn finish(mut self) -> Self {
        if !self.line.is_empty() || self.line_cut {
            self.end_line(false);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window as the whole-text version computed it (the reference).
    fn reference(text: &str, offset: usize, limit: usize) -> (String, usize, usize) {
        let mut out = String::new();
        let mut last = offset - 1;
        for (i, line) in text.lines().enumerate().skip(offset - 1).take(limit) {
            let line = match line.char_indices().nth(LINE_CAP) {
                Some((cut, _)) => format!("{}… [line cut at {LINE_CAP} characters]", &line[..cut]),
                None => line.to_string(),
            };
            if out.len() + line.len() > BYTE_CAP && last >= offset {
                break;
            }
            let _ = writeln!(out, "{:>6}\t{line}", i + 1);
            last = i + 1;
        }
        (out, last, text.lines().count())
    }

    fn streamed(text: &str, offset: usize, limit: usize, chunk: usize) -> (String, usize, usize) {
        let mut window = Window::new(offset, limit);
        for piece in text.as_bytes().chunks(chunk.max(1)) {
            window.push(piece);
        }
        let window = window.finish();
        (window.content, window.last, window.total)
    }

    #[test]
    fn streaming_gives_the_same_window_as_the_whole_text_however_it_is_split() {
        let long = "é".repeat(LINE_CAP + 7);
        let texts = [
            String::new(),
            "a".into(),
            "a\n".into(),
            "a\nb".into(),
            "\n\n".into(),
            "one\r\ntwo\r\nthree\r".into(),
            format!("short\n{long}\r\nafter\n{long}"),
            "x\n".repeat(50),
            format!("{}\n", "y".repeat(999)).repeat(400),
        ];
        for text in &texts {
            for (offset, limit) in [(1, DEFAULT_LIMIT), (2, 2), (3, 1), (40, 5), (1, 1)] {
                for chunk in [1, 3, 7, 4096] {
                    assert_eq!(
                        streamed(text, offset, limit, chunk),
                        reference(text, offset, limit),
                        "text of {} bytes, offset {offset}, limit {limit}, chunk {chunk}",
                        text.len()
                    );
                }
            }
        }
    }
}
