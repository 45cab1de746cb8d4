//! Images of a resumed session: the session file keeps each image's path, size and digest,
//! never its bytes (`protocol::Image`), so on resume the file is read again. An image whose
//! file is gone or changed is not sent: it is dropped from its message, whose text gets a
//! note saying so, and the user is told.

use crate::paths::no_follow;
use crate::protocol::image::{Image, MAX_IMAGE_BYTES};
use crate::protocol::Message;
use std::io::Read as _;
use std::path::Path;

/// Reads the images of `messages` again; a warning for each that could not be.
pub fn reload(messages: &mut [Message]) -> Vec<String> {
    let mut warnings = Vec::new();
    for message in messages.iter_mut().filter(|m| !m.images.is_empty()) {
        let mut kept = Vec::new();
        for mut image in std::mem::take(&mut message.images) {
            match read_again(&image) {
                Ok(data) => {
                    image.data = Some(data.into());
                    kept.push(image);
                }
                Err(why) => {
                    message.content.push_str(&format!(
                        "\n\n[The image {} was attached here; it is not sent now: {why}.]",
                        image.path
                    ));
                    warnings.push(format!("the image {} of this session is not sent again: {why}", image.path));
                }
            }
        }
        message.images = kept;
    }
    warnings
}

/// The image's bytes as base64, if its file still holds what was sent.
fn read_again(image: &Image) -> Result<String, String> {
    let path = image.real.as_deref().unwrap_or(&image.path);
    let gone = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => "the file is gone".to_string(),
        _ => format!("the file cannot be read ({e})"),
    };
    let file = no_follow::open_read(Path::new(path)).map_err(gone)?;
    let meta = file.metadata().map_err(gone)?;
    if !meta.is_file() {
        return Err(format!("the path is {} now", no_follow::kind_name(meta.file_type())));
    }
    let mut bytes = Vec::new();
    file.take(MAX_IMAGE_BYTES as u64 + 1).read_to_end(&mut bytes).map_err(gone)?;
    let again = Image::from_bytes(&image.path, None, &bytes).map_err(|_| "the file has changed".to_string())?;
    if again.sha256 != image.sha256 {
        return Err("the file has changed since".into());
    }
    Ok(again.data.as_deref().unwrap_or("").to_string())
}
