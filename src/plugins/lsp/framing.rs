//! JSON-RPC framing over a language server's stdio: each message is a header block
//! (`Content-Length: N`, other headers ignored, lines ending in `\r\n`, an empty line
//! ending the block) followed by N bytes of JSON. Reading is bounded: a header block past
//! `MAX_HEADER` bytes, a length that is missing, malformed or past the reader's cap is an
//! error, never an allocation; bytes may arrive in any pieces.

use tokio::io::{AsyncRead, AsyncReadExt};

/// Bytes one header block may take, its ending included.
pub const MAX_HEADER: usize = 8 * 1024;
/// The largest message body read by default (a server's biggest diagnostics list fits
/// many times over).
pub const MAX_BODY: usize = 16 * 1024 * 1024;
/// How much is asked of the pipe at a time.
const CHUNK: usize = 64 * 1024;

/// Why no further message can be read.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("closed its output")]
    Closed,
    #[error("closed its output in the middle of a message")]
    Truncated,
    #[error("sent a header block longer than {MAX_HEADER} bytes")]
    HeaderTooLong,
    #[error("sent a header without a valid Content-Length ({0})")]
    BadLength(String),
    #[error("sent a message of {0} bytes (at most {1} are read)")]
    TooLarge(u64, usize),
    #[error("could not be read: {0}")]
    Io(String),
}

/// Reads framed messages from `inner`.
pub struct Reader<R> {
    inner: R,
    /// Bytes read and not yet returned.
    buf: Vec<u8>,
    max_body: usize,
}

impl<R: AsyncRead + Unpin> Reader<R> {
    pub fn new(inner: R) -> Self {
        Reader::with_cap(inner, MAX_BODY)
    }

    /// A reader refusing bodies over `max_body` bytes.
    pub fn with_cap(inner: R, max_body: usize) -> Self {
        Reader { inner, buf: Vec::new(), max_body }
    }

    /// The next message's body. After an error the stream is out of step: stop reading.
    pub async fn next(&mut self) -> Result<Vec<u8>, FrameError> {
        let (header_end, length) = loop {
            if let Some(end) = memchr::memmem::find(&self.buf, b"\r\n\r\n") {
                if end + 4 > MAX_HEADER {
                    return Err(FrameError::HeaderTooLong);
                }
                break (end + 4, content_length(&self.buf[..end], self.max_body)?);
            }
            if self.buf.len() >= MAX_HEADER {
                return Err(FrameError::HeaderTooLong);
            }
            if self.fill(MAX_HEADER - self.buf.len()).await? == 0 {
                return Err(if self.buf.iter().all(u8::is_ascii_whitespace) {
                    FrameError::Closed
                } else {
                    FrameError::Truncated
                });
            }
        };
        let total = header_end + length;
        while self.buf.len() < total {
            if self.fill(total - self.buf.len()).await? == 0 {
                return Err(FrameError::Truncated);
            }
        }
        let body = self.buf[header_end..total].to_vec();
        self.buf.drain(..total);
        Ok(body)
    }

    /// Reads at most `want` bytes (and at most `CHUNK`) onto the buffer; 0 at the end.
    async fn fill(&mut self, want: usize) -> Result<usize, FrameError> {
        let start = self.buf.len();
        self.buf.resize(start + want.clamp(1, CHUNK), 0);
        let read = self.inner.read(&mut self.buf[start..]).await;
        let n = *read.as_ref().unwrap_or(&0);
        self.buf.truncate(start + n);
        read.map_err(|e| FrameError::Io(e.to_string()))
    }
}

/// The `Content-Length` of a header block (without its final empty line).
fn content_length(header: &[u8], max_body: usize) -> Result<usize, FrameError> {
    let text = std::str::from_utf8(header).map_err(|_| FrameError::BadLength("not text".into()))?;
    let mut found = None;
    for line in text.split("\r\n") {
        let Some((name, value)) = line.split_once(':') else {
            return Err(FrameError::BadLength(format!("a header line without a colon: {:?}", cut(line))));
        };
        if !name.trim().eq_ignore_ascii_case("content-length") {
            continue;
        }
        if found.is_some() {
            return Err(FrameError::BadLength("two Content-Length headers".into()));
        }
        let value = value.trim();
        let length: u64 = value
            .parse()
            .ok()
            .filter(|_| value.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| FrameError::BadLength(format!("{:?}", cut(value))))?;
        if length > max_body as u64 {
            return Err(FrameError::TooLarge(length, max_body));
        }
        found = Some(length as usize);
    }
    found.ok_or_else(|| FrameError::BadLength("none given".into()))
}

/// At most 40 characters of `text`, for a message.
fn cut(text: &str) -> String {
    text.chars().take(40).collect()
}

/// `body` framed for a server's stdin.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tokio::io::ReadBuf;

    /// Hands out its pieces one read at a time.
    struct Pieces(Vec<Vec<u8>>);

    impl AsyncRead for Pieces {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            if self.0.is_empty() {
                return Poll::Ready(Ok(()));
            }
            let piece = &mut self.0[0];
            let n = piece.len().min(buf.remaining());
            buf.put_slice(&piece[..n]);
            piece.drain(..n);
            if piece.is_empty() {
                self.0.remove(0);
            }
            Poll::Ready(Ok(()))
        }
    }

    fn reader(pieces: &[&[u8]]) -> Reader<Pieces> {
        Reader::new(Pieces(pieces.iter().map(|p| p.to_vec()).collect()))
    }

    async fn all(mut reader: Reader<Pieces>) -> (Vec<String>, FrameError) {
        let mut bodies = Vec::new();
        loop {
            match reader.next().await {
                Ok(body) => bodies.push(String::from_utf8(body).unwrap()),
                Err(e) => return (bodies, e),
            }
        }
    }

    #[tokio::test]
    async fn reads_messages_given_whole_or_together() {
        let two = [frame(b"{\"a\":1}"), frame(b"{}")].concat();
        let (bodies, end) = all(reader(&[&two])).await;
        assert_eq!(bodies, ["{\"a\":1}", "{}"]);
        assert_eq!(end, FrameError::Closed);
    }

    #[tokio::test]
    async fn reads_a_message_given_byte_by_byte() {
        let framed = frame("{\"é\":\"x\"}".as_bytes());
        let bytes: Vec<&[u8]> = framed.chunks(1).collect();
        let (bodies, end) = all(reader(&bytes)).await;
        assert_eq!(bodies, ["{\"é\":\"x\"}"]);
        assert_eq!(end, FrameError::Closed);
    }

    #[tokio::test]
    async fn other_headers_and_any_case_are_accepted() {
        let text = b"content-type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-LENGTH:  2 \r\n\r\n{}";
        let (bodies, _) = all(reader(&[text])).await;
        assert_eq!(bodies, ["{}"]);
    }

    #[tokio::test]
    async fn a_bad_content_length_is_an_error() {
        for header in [
            &b"Content-Length: abc\r\n\r\n{}"[..],
            b"Content-Length: -2\r\n\r\n{}",
            b"Content-Length: +2\r\n\r\n{}",
            b"Content-Type: x\r\n\r\n{}",
            b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
            b"garbage\r\n\r\n{}",
            b"Content-Length: 99999999999999999999999\r\n\r\n",
        ] {
            let (bodies, end) = all(reader(&[header])).await;
            assert!(bodies.is_empty());
            assert!(matches!(end, FrameError::BadLength(_)), "{end:?} for {:?}", String::from_utf8_lossy(header));
        }
    }

    #[tokio::test]
    async fn a_length_past_the_cap_is_refused_before_reading_it() {
        let mut r = Reader::with_cap(Pieces(vec![b"Content-Length: 1000001\r\n\r\n".to_vec()]), 1_000_000);
        assert_eq!(r.next().await, Err(FrameError::TooLarge(1_000_001, 1_000_000)));
        let mut r = reader(&[b"Content-Length: 18446744073709551615\r\n\r\n"]);
        assert_eq!(r.next().await, Err(FrameError::TooLarge(u64::MAX, MAX_BODY)));
    }

    #[tokio::test]
    async fn a_huge_header_is_refused_without_reading_on() {
        let endless = vec![b'x'; 1024 * 1024];
        let mut r = reader(&[b"Content-Length: 2\r\nX-Pad: ", &endless]);
        assert_eq!(r.next().await, Err(FrameError::HeaderTooLong));
        assert!(r.buf.len() <= MAX_HEADER, "read {} bytes", r.buf.len());
        let mut long = b"Content-Length: 2\r\nX-Pad: ".to_vec();
        long.extend(vec![b'x'; MAX_HEADER]);
        long.extend(b"\r\n\r\n{}");
        let (_, end) = all(reader(&[&long])).await;
        assert_eq!(end, FrameError::HeaderTooLong);
    }

    #[tokio::test]
    async fn an_end_inside_a_message_is_truncated() {
        let (_, end) = all(reader(&[b"Content-Length: 10\r\n\r\n{\"a\""])).await;
        assert_eq!(end, FrameError::Truncated);
        let (_, end) = all(reader(&[b"Content-Len"])).await;
        assert_eq!(end, FrameError::Truncated);
    }
}
