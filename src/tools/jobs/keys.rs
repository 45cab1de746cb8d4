//! Named keys for `job_input` (`Enter`, `Ctrl+C`, `Up`, …): the bytes a terminal sends for
//! them. On a job without a terminal, `Ctrl+C` is SIGINT to its processes and `Ctrl+D`
//! closes its input (`jobs::Job::send`).

/// The bytes for the key named `name` (case does not matter), or the error listing the
/// names.
pub fn bytes(name: &str) -> Result<Vec<u8>, String> {
    let lower = name.trim().to_ascii_lowercase();
    let named: Option<&[u8]> = match lower.as_str() {
        "enter" | "return" => Some(b"\r"),
        "tab" => Some(b"\t"),
        "esc" | "escape" => Some(b"\x1b"),
        "backspace" => Some(b"\x7f"),
        "space" => Some(b" "),
        "up" => Some(b"\x1b[A"),
        "down" => Some(b"\x1b[B"),
        "right" => Some(b"\x1b[C"),
        "left" => Some(b"\x1b[D"),
        "home" => Some(b"\x1b[H"),
        "end" => Some(b"\x1b[F"),
        "pageup" => Some(b"\x1b[5~"),
        "pagedown" => Some(b"\x1b[6~"),
        "delete" => Some(b"\x1b[3~"),
        _ => None,
    };
    if let Some(bytes) = named {
        return Ok(bytes.to_vec());
    }
    let control =
        lower.strip_prefix("ctrl+").or_else(|| lower.strip_prefix("ctrl-")).or_else(|| lower.strip_prefix("c-"));
    match control.map(str::as_bytes) {
        Some([letter @ b'a'..=b'z']) => Ok(vec![letter - b'a' + 1]),
        Some(b"[") => Ok(vec![0x1b]),
        Some(b"\\") => Ok(vec![0x1c]),
        _ => Err(format!(
            "unknown key {name:?}: use Enter, Tab, Esc, Backspace, Space, Up, Down, Left, Right, Home, End, PageUp, \
             PageDown, Delete or Ctrl+A … Ctrl+Z"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::bytes;

    #[test]
    fn keys_are_named_as_people_write_them() {
        assert_eq!(bytes("Ctrl+C").unwrap(), vec![3]);
        assert_eq!(bytes("ctrl-d").unwrap(), vec![4]);
        assert_eq!(bytes("Enter").unwrap(), b"\r");
        assert_eq!(bytes("UP").unwrap(), b"\x1b[A");
        assert!(bytes("Hyper+Q").unwrap_err().contains("Ctrl+A"));
    }
}
