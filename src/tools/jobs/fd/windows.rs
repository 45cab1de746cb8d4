//! A job's pipe handles on Windows: an anonymous pipe cannot be waited on, so each read
//! and write runs on tokio's blocking threads (`tokio::fs::File`).

use std::io;
use std::os::windows::io::OwnedHandle;
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::sync::Mutex;

pub struct Fd(Mutex<tokio::fs::File>);

impl Fd {
    /// `handle`, read or written on the runtime's blocking threads.
    pub fn new(handle: OwnedHandle) -> io::Result<Self> {
        Ok(Fd(Mutex::new(tokio::fs::File::from_std(std::fs::File::from(handle)))))
    }

    /// Reads once; 0 at the end (the job's side closed; a broken pipe is the end too).
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.lock().await.read(buf).await {
            Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(0),
            other => other,
        }
    }

    /// Writes all of `bytes`, for at most `limit`; how many were written (fewer when the
    /// job did not read them in time).
    pub async fn write_all(&self, bytes: &[u8], limit: Duration) -> io::Result<usize> {
        let mut file = self.0.lock().await;
        let mut written = 0;
        let write = async {
            while written < bytes.len() {
                written += file.write(&bytes[written..]).await?;
                file.flush().await?;
            }
            Ok::<(), io::Error>(())
        };
        match tokio::time::timeout(limit, write).await {
            Ok(Err(error)) => Err(error),
            _ => Ok(written),
        }
    }
}
