//! The client's files: when the client offers `fs.readTextFile` / `fs.writeTextFile` in
//! `initialize`, the file tools read and write through it (`fs/read_text_file`,
//! `fs/write_text_file`), so they see the editor's unsaved buffers and their writes land
//! in the editor. The paths are the ones the toolbox resolved and the permission gate
//! checked; only what the client offered is routed, the rest stays on the disk.

use super::updates::Link;
use crate::agent::FileAccess;
use futures::future::BoxFuture;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;

/// What the client said it can do with files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FsCapabilities {
    pub read: bool,
    pub write: bool,
}

impl FsCapabilities {
    /// From `initialize`'s `clientCapabilities` (anything but `true` is no).
    pub fn from_initialize(params: &Value) -> FsCapabilities {
        let fs = &params["clientCapabilities"]["fs"];
        FsCapabilities { read: fs["readTextFile"] == true, write: fs["writeTextFile"] == true }
    }
}

/// File access through the client of one session.
pub struct ClientFiles {
    link: Arc<Link>,
    offered: FsCapabilities,
}

impl ClientFiles {
    pub fn new(link: Arc<Link>, offered: FsCapabilities) -> ClientFiles {
        ClientFiles { link, offered }
    }
}

impl FileAccess for ClientFiles {
    fn read_text(&self, path: &Path) -> BoxFuture<'static, Option<anyhow::Result<String>>> {
        let (link, path, offered) = (self.link.clone(), path.display().to_string(), self.offered.read);
        Box::pin(async move {
            if !offered {
                return None;
            }
            let id = link.id()?;
            let answer = link.peer.request("fs/read_text_file", json!({"sessionId": id, "path": path})).await;
            Some(match answer {
                Ok(result) => match result.get("content").and_then(Value::as_str) {
                    Some(content) => Ok(content.to_string()),
                    None => Err(anyhow::anyhow!("the editor's answer has no text content")),
                },
                Err(error) => Err(anyhow::anyhow!("the editor says: {}", error.message)),
            })
        })
    }

    fn write_text(&self, path: &Path, text: &str) -> BoxFuture<'static, Option<anyhow::Result<()>>> {
        let (link, path, offered) = (self.link.clone(), path.display().to_string(), self.offered.write);
        let text = text.to_string();
        Box::pin(async move {
            if !offered {
                return None;
            }
            let id = link.id()?;
            let params = json!({"sessionId": id, "path": path, "content": text});
            Some(match link.peer.request("fs/write_text_file", params).await {
                Ok(_) => Ok(()),
                Err(error) => Err(anyhow::anyhow!("the editor says: {}", error.message)),
            })
        })
    }
}
