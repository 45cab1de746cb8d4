//! A job's pipe handles on Windows: each end served by a thread of its own
//! (`tools/pipe_thread.rs`: an anonymous pipe cannot be waited on).

use crate::tools::pipe_thread::{Reader, Writer};
use std::io;
use std::os::windows::io::OwnedHandle;
use std::time::Duration;
use tokio::io::AsyncReadExt as _;
use tokio::sync::Mutex;

/// One end of a job's pipes: its output (read) or its input (written).
pub struct Fd {
    reader: Mutex<Option<Reader>>,
    writer: Mutex<Option<Writer>>,
    handle: std::sync::Mutex<Option<OwnedHandle>>,
}

impl Fd {
    /// `handle`, served by a thread once it is first read or written.
    pub fn new(handle: OwnedHandle) -> io::Result<Self> {
        Ok(Fd { reader: Mutex::new(None), writer: Mutex::new(None), handle: std::sync::Mutex::new(Some(handle)) })
    }

    /// The handle, once: to the first reader or writer.
    fn take(&self) -> io::Result<OwnedHandle> {
        self.handle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
            .ok_or_else(|| io::Error::other("the pipe is read and written at once"))
    }

    /// Reads once; 0 at the end (the job's side closed).
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        let mut reader = self.reader.lock().await;
        if reader.is_none() {
            *reader = Some(Reader::new(self.take()?)?);
        }
        match reader.as_mut() {
            Some(reader) => reader.read(buf).await,
            None => Ok(0),
        }
    }

    /// Writes all of `bytes`, for at most `limit`; how many were written (fewer when the
    /// job did not read them in time).
    pub async fn write_all(&self, bytes: &[u8], limit: Duration) -> io::Result<usize> {
        let mut writer = self.writer.lock().await;
        if writer.is_none() {
            *writer = Some(Writer::new(self.take()?)?);
        }
        match writer.as_ref() {
            Some(writer) => writer.write_all(bytes, limit).await,
            None => Ok(0),
        }
    }
}
