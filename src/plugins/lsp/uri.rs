//! `file://` URIs for paths and back: every byte outside RFC 3986's unreserved set and
//! `/` percent-encoded, so any path (spaces, `#`, `%`, non-UTF-8 bytes) survives the trip;
//! what a server sends back is decoded and compared as a path.

use std::ffi::OsStr;
#[cfg(unix)]
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// `file:///…` for an absolute `path`.
pub fn from_path(path: &Path) -> String {
    let mut uri = String::from("file://");
    for &byte in path_bytes(path).iter() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// The path a `file:` URI names (`file:///p`, `file://localhost/p`); `None` for any other.
pub fn to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://").or_else(|| uri.strip_prefix("FILE://"))?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest).as_bytes();
    let mut bytes = Vec::with_capacity(rest.len());
    let mut i = 0;
    while i < rest.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (rest[i], rest.get(i + 1).copied().and_then(hex), rest.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(high), Some(low)) => {
                bytes.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                bytes.push(byte);
                i += 1;
            }
        }
    }
    bytes_path(bytes)
}

/// A path's bytes as a URI holds them.
#[cfg(unix)]
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
}

/// A path's bytes as a URI holds them: `/C:/dir/file` for `C:\dir\file`.
#[cfg(windows)]
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Owned(windows_uri_path(&path.to_string_lossy()).into_bytes())
}

/// A Windows path as a URI's path: `/` between names, a leading `/` before the drive, no
/// `\\?\` prefix (`C:\dir\file` is `/C:/dir/file`).
#[cfg(any(windows, test))]
fn windows_uri_path(path: &str) -> String {
    let text = path.replace('\\', "/");
    let text = text.strip_prefix("//?/").unwrap_or(&text);
    match text.starts_with('/') {
        true => text.to_string(),
        false => format!("/{text}"),
    }
}

/// The path a URI's decoded bytes name.
#[cfg(unix)]
fn bytes_path(bytes: Vec<u8>) -> Option<PathBuf> {
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// The path a URI's decoded bytes name (`/C:/dir/file` is `C:\dir\file`).
#[cfg(windows)]
fn bytes_path(bytes: Vec<u8>) -> Option<PathBuf> {
    Some(PathBuf::from(windows_path(&String::from_utf8(bytes).ok()?)))
}

/// A URI's path as a Windows path: `/C:/dir/file` is `C:\dir\file`.
#[cfg(any(windows, test))]
fn windows_path(uri_path: &str) -> String {
    let drive = uri_path.as_bytes().get(2) == Some(&b':');
    let text = if drive { &uri_path[1..] } else { uri_path };
    text.replace('/', "\\")
}

/// The file name's extension, lower-cased (`None` without one).
pub fn extension(path: &Path) -> Option<String> {
    path.extension().and_then(OsStr::to_str).map(str::to_ascii_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows paths (checked on every system: the conversion is text).
    #[test]
    fn windows_paths_become_uri_paths_and_back() {
        assert_eq!(windows_uri_path(r"C:\Users\me\src\main.rs"), "/C:/Users/me/src/main.rs");
        assert_eq!(windows_uri_path(r"\\?\C:\project\a b.py"), "/C:/project/a b.py");
        assert_eq!(windows_path("/C:/Users/me/src/main.rs"), r"C:\Users\me\src\main.rs");
        // A server's lower-case drive, its colon percent-decoded already.
        assert_eq!(windows_path("/c:/project/x.ts"), r"c:\project\x.ts");
    }

    #[cfg(unix)]
    #[test]
    fn paths_survive_the_round_trip() {
        for path in ["/tmp/a.py", "/tmp/with space/#x%y.py", "/tmp/é/ü.rs"] {
            let uri = from_path(Path::new(path));
            assert!(uri.is_ascii() && !uri[7..].contains([' ', '#']), "{uri}");
            assert_eq!(to_path(&uri).as_deref(), Some(Path::new(path)), "{uri}");
            assert!(uri.parse::<lsp_types::Uri>().is_ok(), "{uri} must parse as a URI");
        }
        let odd = PathBuf::from(std::ffi::OsString::from_vec(b"/tmp/\xff.py".to_vec()));
        assert_eq!(to_path(&from_path(&odd)), Some(odd));
    }

    #[test]
    fn servers_spellings_are_read() {
        assert_eq!(to_path("file:///tmp/a%3A.py"), Some(PathBuf::from("/tmp/a:.py")));
        assert_eq!(to_path("file://localhost/tmp/a.py"), Some(PathBuf::from("/tmp/a.py")));
        assert_eq!(to_path("file:///tmp/a%zz"), Some(PathBuf::from("/tmp/a%zz")));
        assert_eq!(to_path("untitled:1"), None);
        assert_eq!(to_path("file://host/tmp"), None);
    }
}
