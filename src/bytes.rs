//! Byte scans over text that streams in by the megabyte, shared by the layers that read it
//! (the sanitiser, the providers' readers). A leaf: it imports nothing from the crate.

/// Whether every byte of `bytes` passes `test`, looked at 64 bytes at a time without an
/// early exit inside a block, so the compiler checks a block in a few vector instructions (a
/// byte-by-byte `all` cost about 12 instructions a byte of a streamed reply).
#[inline]
pub fn all_bytes(bytes: &[u8], test: impl Fn(u8) -> bool) -> bool {
    let mut blocks = bytes.chunks_exact(64);
    let whole = blocks.by_ref().all(|block| block.iter().fold(true, |ok, &b| ok & test(b)));
    // The rest (all of a short string) without an early exit either.
    whole && blocks.remainder().iter().fold(true, |ok, &b| ok & test(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_byte_at_a_block_edge_or_in_the_remainder_is_found() {
        let plain = vec![b'a'; 200];
        assert!(all_bytes(&plain, |b| b >= 0x20));
        for at in [0, 63, 64, 127, 128, 191, 192, 199] {
            let mut text = plain.clone();
            text[at] = 0x07;
            assert!(!all_bytes(&text, |b| b >= 0x20), "BEL at {at}");
        }
        assert!(all_bytes(b"", |_| false));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// The block-wise test agrees with a byte-by-byte one at any length.
        #[test]
        fn all_bytes_is_all(text in "[ -~\n\t\x00-\x1f\u{80}-\u{10ffff}]{0,300}") {
            let test = |b: u8| (0x20..0x7f).contains(&b);
            proptest::prop_assert_eq!(all_bytes(text.as_bytes(), test), text.bytes().all(test));
        }
    }
}
