//! A pipe's end on Windows, served by a thread of its own. An anonymous pipe cannot be
//! waited on, and a read or write on tokio's blocking threads would hold the runtime's
//! shutdown (so elelem's exit) while any process keeps the pipe's other end open: a
//! background program a command started, say. These threads are detached, end with the
//! pipe, and never keep elelem from exiting.

use std::fs::File;
use std::io::{self, Read as _, Write as _};
use std::os::windows::io::OwnedHandle;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::{mpsc, oneshot};

/// Bytes read at once.
const CHUNK: usize = 16 * 1024;

/// The read end: what the thread read, in order; the end of the channel is the end of the
/// pipe (a broken pipe, Windows's way of saying every writer closed it, included).
pub struct Reader {
    chunks: mpsc::Receiver<io::Result<Vec<u8>>>,
    pending: Vec<u8>,
    at: usize,
}

impl Reader {
    /// Starts the thread that reads `handle`.
    pub fn new(handle: OwnedHandle) -> io::Result<Reader> {
        let (tx, chunks) = mpsc::channel(4);
        let mut file = File::from(handle);
        std::thread::Builder::new().name("pipe-reader".into()).spawn(move || loop {
            let mut buf = vec![0u8; CHUNK];
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    buf.truncate(n);
                    if tx.blocking_send(Ok(buf)).is_err() {
                        break;
                    }
                }
                Err(error) if error.kind() == io::ErrorKind::BrokenPipe => break,
                Err(error) => {
                    let _ = tx.blocking_send(Err(error));
                    break;
                }
            }
        })?;
        Ok(Reader { chunks, pending: Vec::new(), at: 0 })
    }
}

impl AsyncRead for Reader {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if self.at >= self.pending.len() {
            match std::task::ready!(self.chunks.poll_recv(cx)) {
                Some(Ok(chunk)) => {
                    self.pending = chunk;
                    self.at = 0;
                }
                Some(Err(error)) => return Poll::Ready(Err(error)),
                None => return Poll::Ready(Ok(())),
            }
        }
        let n = buf.remaining().min(self.pending.len() - self.at);
        let at = self.at;
        buf.put_slice(&self.pending[at..at + n]);
        self.at += n;
        Poll::Ready(Ok(()))
    }
}

/// Bytes for the writer thread: how many it wrote so far is counted in the second, the
/// third says when it is done.
type Write = (Vec<u8>, Arc<AtomicUsize>, oneshot::Sender<io::Result<()>>);

/// The write end: bytes handed to the thread, which writes them in order.
pub struct Writer {
    writes: std::sync::mpsc::Sender<Write>,
}

impl Writer {
    /// Starts the thread that writes to `handle`.
    pub fn new(handle: OwnedHandle) -> io::Result<Writer> {
        let (writes, rx) = std::sync::mpsc::channel::<Write>();
        let mut file = File::from(handle);
        std::thread::Builder::new().name("pipe-writer".into()).spawn(move || {
            for (bytes, written, done) in rx {
                let mut result = Ok(());
                for piece in bytes.chunks(4096) {
                    result = file.write_all(piece);
                    if result.is_err() {
                        break;
                    }
                    written.fetch_add(piece.len(), Ordering::Relaxed);
                }
                let _ = done.send(result);
            }
        })?;
        Ok(Writer { writes })
    }

    /// Writes all of `bytes`, waiting at most `limit`; how many were written by then (the
    /// rest is still written, in order, once the other side reads).
    pub async fn write_all(&self, bytes: &[u8], limit: Duration) -> io::Result<usize> {
        let written = Arc::new(AtomicUsize::new(0));
        let (done, finished) = oneshot::channel();
        self.writes
            .send((bytes.to_vec(), written.clone(), done))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the job's input is closed"))?;
        match tokio::time::timeout(limit, finished).await {
            Ok(Ok(Err(error))) => Err(error),
            _ => Ok(written.load(Ordering::Relaxed)),
        }
    }
}
