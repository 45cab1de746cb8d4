//! Property tests over untrusted input (bounded cases, so `cargo test` stays fast): the SSE
//! and NDJSON decoders never panic on arbitrary bytes and give the same frames (and the
//! same error) however the bytes are split; tool-argument validation and summaries never
//! panic on arbitrary JSON.

use elelem::providers::frame::{Frame, FrameError};
use elelem::providers::ndjson::NdjsonDecoder;
use elelem::providers::sse::SseDecoder;
use proptest::prelude::*;
use serde_json::Value;

/// Bytes that look like a stream often enough to reach every rule: field names, line ends
/// of all three kinds, comments, a BOM, multi-byte and invalid UTF-8, JSON-ish text.
fn stream_bytes() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        4 => prop::sample::select(vec![
            &b"data: "[..], b"data:", b"event: ", b"id: 1", b"retry: 5", b": ping", b"\n", b"\r\n", b"\r",
            b"\n\n", b"{\"a\":1}", b"[DONE]", b"\xef\xbb\xbf", "é→".as_bytes(), b"\xff", b"\xe2\x86", b"x",
        ])
        .prop_map(<[u8]>::to_vec),
        1 => prop::collection::vec(any::<u8>(), 0..8),
    ];
    prop::collection::vec(token, 0..64).prop_map(|tokens| tokens.concat())
}

/// Cut points into a body of `len` bytes, in order.
fn cuts(bytes: &[u8], seeds: &[usize]) -> Vec<usize> {
    let mut cuts: Vec<usize> = seeds.iter().map(|s| s % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    cuts
}

type Push<D> = fn(&mut D, &[u8], &mut Vec<Frame>) -> Result<(), FrameError>;
type Finish<D> = fn(&mut D, &mut Vec<Frame>) -> Result<(), FrameError>;

/// Everything a decoder makes of `bytes` pushed in pieces: the frames, and the error that
/// stopped it (if any).
fn decode<D>(
    mut decoder: D,
    bytes: &[u8],
    cuts: &[usize],
    push: Push<D>,
    finish: Finish<D>,
) -> (Vec<Frame>, Option<FrameError>) {
    let mut frames = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain([bytes.len()].iter()) {
        if let Err(e) = push(&mut decoder, &bytes[start..cut], &mut frames) {
            return (frames, Some(e));
        }
        start = cut;
    }
    let error = finish(&mut decoder, &mut frames).err();
    (frames, error)
}

fn sse(limit: usize, bytes: &[u8], cuts: &[usize]) -> (Vec<Frame>, Option<FrameError>) {
    decode(SseDecoder::with_limit(limit), bytes, cuts, SseDecoder::push, SseDecoder::finish)
}

fn ndjson(limit: usize, bytes: &[u8], cuts: &[usize]) -> (Vec<Frame>, Option<FrameError>) {
    decode(NdjsonDecoder::with_limit(limit), bytes, cuts, NdjsonDecoder::push, NdjsonDecoder::finish)
}

/// Any JSON value, a few levels deep, with the keys tools use.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        prop::sample::select(vec!["path", "command", "old", "new", "content", "pattern", "offset", "limit", "glob"])
            .prop_map(str::to_string),
        ".{0,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,40}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 32, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn frames_do_not_depend_on_how_the_bytes_are_split(
        bytes in stream_bytes(),
        seeds in prop::collection::vec(any::<usize>(), 0..8),
        limit in prop::sample::select(vec![8usize, 64, 1 << 20]),
    ) {
        let byte_by_byte: Vec<usize> = (0..bytes.len()).collect();
        for run in [sse, ndjson] {
            let whole = run(limit, &bytes, &[]);
            prop_assert_eq!(run(limit, &bytes, &cuts(&bytes, &seeds)), whole.clone());
            prop_assert_eq!(run(limit, &bytes, &byte_by_byte), whole);
        }
    }

    #[test]
    fn decoders_survive_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let _ = sse(64, &bytes, &[bytes.len() / 2]);
        let _ = ndjson(64, &bytes, &[bytes.len() / 3]);
    }

    #[test]
    fn tool_arguments_are_validated_and_summarized_without_panicking(args in json_value()) {
        for tool in elelem::tools::all() {
            let _ = tool.validate(&args);
            let _ = tool.summarize(&args);
        }
    }
}
