//! Pacing, a stream adapter outside the kernel: takes a provider's `EventStream` and a pace
//! and returns an `EventStream` that hands text over in merged batches at most about once
//! per interval. The kernel knows nothing of it: `startup` composes it into the agent
//! (`Agent::set_stream_adapter`) for an output that asks for a pace (`Output::pace`: the
//! TUI, the line REPL, `ask`), and the agent shows each event it reads as it comes.
//!
//! Two ways, chosen by the provider: a stream that `streams_ahead` (its events keep arriving
//! while nobody polls it: the network providers, the stub's schedule) is read on the
//! read-ahead thread (`read_ahead`, which owns that thread and is then the only clock); any
//! other is read as it comes on the reader's task and its text held (`hold`). Both join
//! text by the one rule of `protocol::joined`.

mod hold;
mod read_ahead;

use std::sync::Arc;
use std::time::Duration;

use crate::agent::output::Output;
use crate::agent::StreamAdapter;
use crate::protocol::EventStream;

/// `stream` paced at `pace`: read ahead on the reading thread when it `streams_ahead` (and
/// that thread could be started), otherwise read as it comes with its text held.
pub fn pace(stream: EventStream, pace: Duration, streams_ahead: bool) -> EventStream {
    if !streams_ahead {
        return hold::hold(stream, pace);
    }
    match read_ahead::read_ahead(stream, pace) {
        Ok(batches) => batches,
        Err(stream) => hold::hold(stream, pace),
    }
}

/// The adapter that paces every provider stream at `pace`.
pub fn adapter(pace: Duration) -> StreamAdapter {
    Arc::new(move |stream, provider| self::pace(stream, pace, provider.streams_ahead()))
}

/// The adapter `output` asks for (`Output::pace`), if any.
pub fn for_output(output: &dyn Output) -> Option<StreamAdapter> {
    output.pace().map(adapter)
}
