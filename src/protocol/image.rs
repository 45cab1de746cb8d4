//! Images as a message carries them: the media type read from the file's first bytes
//! (png, jpeg, gif, webp; never the extension), the size in pixels read from the header,
//! the bytes as base64 (never written to a session file: `Serialize` keeps only the
//! reference — path, size, digest — and a resumed session reads the file again).
//! Providers encode an `Image` per their own request format; the text path never sees it.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The largest image elelem sends (Anthropic's limit for one image).
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// One image attached to a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Image {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The path as the user or the tool named it (shown, and read again on resume).
    pub path: String,
    /// The file's resolved path at the time it was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real: Option<String>,
    pub bytes: u64,
    /// The SHA-256 of the bytes, hex: a resumed session sends the file only if it still matches.
    pub sha256: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// The bytes, base64: present when read, absent in a session file until read again.
    #[serde(skip)]
    pub data: Option<Arc<str>>,
}

/// Why bytes are not an image elelem sends.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("not a png, jpeg, gif or webp image")]
    NotAnImage,
    #[error("the image is {size} bytes; the limit is {limit} bytes (5 MB, Anthropic's limit for one image)", size = .0, limit = MAX_IMAGE_BYTES)]
    TooLarge(usize),
}

impl Image {
    /// An image of `bytes` read from `path` (`real`: where it resolved), with its digest.
    pub fn from_bytes(path: &str, real: Option<String>, bytes: &[u8]) -> Result<Image, ImageError> {
        let media_type = sniff(bytes).ok_or(ImageError::NotAnImage)?;
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(ImageError::TooLarge(bytes.len()));
        }
        let (width, height) = dimensions(bytes).map_or((None, None), |(w, h)| (Some(w), Some(h)));
        Ok(Image {
            media_type: media_type.to_string(),
            path: path.to_string(),
            real,
            bytes: bytes.len() as u64,
            sha256: sha256(bytes),
            width,
            height,
            data: Some(base64::engine::general_purpose::STANDARD.encode(bytes).into()),
        })
    }

    /// The base64 data, or "" when the file was not read again (never sent so: providers
    /// skip an image without data).
    pub fn base64(&self) -> &str {
        self.data.as_deref().unwrap_or("")
    }

    /// `data:image/png;base64,…` (OpenAI's `image_url`).
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.base64())
    }

    /// The chip shown for it: `[image shot.png 34 KB]`.
    pub fn chip(&self) -> String {
        let name = self.path.rsplit('/').next().unwrap_or(&self.path);
        format!("[image {name} {}]", human_size(self.bytes))
    }

    /// Tokens it costs, by Anthropic's rule of thumb: width × height / 750, the image first
    /// scaled to fit 1568 pixels on its long side (as the API does). 1,600 when the size is unknown.
    pub fn estimate_tokens(&self) -> u64 {
        let (Some(w), Some(h)) = (self.width, self.height) else { return 1_600 };
        let (w, h) = (u64::from(w), u64::from(h));
        let long = w.max(h).max(1);
        let (w, h) = match long > 1568 {
            true => (w * 1568 / long, h * 1568 / long),
            false => (w, h),
        };
        (w * h / 750).max(1)
    }
}

/// The hex SHA-256 of `bytes` (how a session knows the file it names is unchanged).
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// `12 KB`, `1.4 MB`, `900 B`.
pub fn human_size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{} KB", b.div_ceil(1024)),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// The media type by the first bytes.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Width and height from the header; `None` for anything unreadable (never a panic).
pub fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let be32 = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let be16 = |at: usize| bytes.get(at..at + 2).map(|b| u32::from(u16::from_be_bytes([b[0], b[1]])));
    let le16 = |at: usize| bytes.get(at..at + 2).map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])));
    let le24 = |at: usize| bytes.get(at..at + 3).map(|b| u32::from_le_bytes([b[0], b[1], b[2], 0]));
    match sniff(bytes)? {
        "image/png" => Some((be32(16)?, be32(20)?)),
        "image/gif" => Some((le16(6)?, le16(8)?)),
        "image/webp" => match bytes.get(12..16)? {
            b"VP8 " => Some((le16(26)? & 0x3FFF, le16(28)? & 0x3FFF)),
            b"VP8L" => {
                let b = bytes.get(21..25)?;
                let bits = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
            }
            b"VP8X" => Some((le24(24)? + 1, le24(27)? + 1)),
            _ => None,
        },
        _ => {
            // JPEG: walk the segments to a start-of-frame marker.
            let mut at = 2;
            loop {
                while *bytes.get(at)? == 0xFF && *bytes.get(at + 1)? == 0xFF {
                    at += 1;
                }
                if *bytes.get(at)? != 0xFF {
                    return None;
                }
                let marker = *bytes.get(at + 1)?;
                let length = be16(at + 2)? as usize;
                let frame = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
                if frame {
                    return Some((be16(at + 7)?, be16(at + 5)?));
                }
                at += 2 + length;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1×1 PNG.
    const PNG: &[u8] = &[
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R', 0, 0, 0x03, 0x20, 0, 0,
        0x02, 0x58, 8, 6, 0, 0, 0,
    ];

    #[test]
    fn sniffs_by_bytes_and_reads_sizes() {
        assert_eq!(sniff(PNG), Some("image/png"));
        assert_eq!(dimensions(PNG), Some((800, 600)));
        assert_eq!(sniff(b"GIF89a\x10\x00\x20\x00"), Some("image/gif"));
        assert_eq!(dimensions(b"GIF89a\x10\x00\x20\x00"), Some((16, 32)));
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 17, 8, 0, 48, 0, 64];
        assert_eq!(sniff(&jpeg), Some("image/jpeg"));
        assert_eq!(dimensions(&jpeg), Some((64, 48)));
        assert_eq!(sniff(b"hello"), None);
        assert_eq!(dimensions(&[0xFF, 0xD8, 0xFF, 0xE0, 0xFF]), None);
    }

    #[test]
    fn truncated_or_hostile_headers_give_no_size_and_never_panic() {
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 17, 8, 0, 48, 0, 64];
        let webp = *b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\0\0\0\0\xff\xff\xff\xff\xff\xff";
        for sample in [PNG, &jpeg[..], &webp[..], b"GIF89a\x10\x00\x20\x00"] {
            for end in 0..sample.len() {
                let _ = dimensions(&sample[..end]);
            }
        }
        // A zero-length JPEG segment and runs of fill bytes still end.
        assert_eq!(dimensions(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0, 0xFF, 0xFF, 0xFF]), None);
        let huge =
            Image { width: Some(u32::MAX), height: Some(u32::MAX), ..Image::from_bytes("a", None, PNG).unwrap() };
        assert_eq!(huge.estimate_tokens(), 1568 * 1568 / 750);
    }

    #[test]
    fn keeps_a_reference_not_the_bytes_and_estimates_tokens() {
        let image = Image::from_bytes("shots/a.png", None, PNG).unwrap();
        assert_eq!(image.chip(), "[image a.png 29 B]");
        assert_eq!(image.estimate_tokens(), 800 * 600 / 750);
        let json = serde_json::to_string(&image).unwrap();
        assert!(!json.contains(image.base64()), "{json}");
        let back: Image = serde_json::from_str(&json).unwrap();
        assert_eq!(back.data, None);
        let big = [PNG, &vec![0u8; MAX_IMAGE_BYTES]].concat();
        assert!(matches!(Image::from_bytes("b.png", None, &big), Err(ImageError::TooLarge(_))));
    }
}
