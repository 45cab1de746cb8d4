//! Turning a fetched body into text within the fetch's time (issue 37): the work runs on a
//! thread of its own with a known, large stack (`STACK`), never on the async runtime's
//! workers, and the caller waits for it no later than the fetch's deadline. The HTML
//! parser is fed in pieces, checking the deadline (and whether the caller gave up) between
//! them, so a page that would parse for minutes is stopped; the steps after it are linear
//! (`nesting.rs`, `tree.rs`).

use markup5ever_rcdom::{Node, RcDom};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The conversion thread's stack: the converter recurses once per level of the tree, which
/// `tree::MAX_TREE_DEPTH` bounds; this leaves it tens of times the room that needs.
const STACK: usize = 64 * 1024 * 1024;
/// Bytes of HTML given to the parser at a time, between two looks at the clock.
const PIECE: usize = 16 * 1024;

/// Until when the work may go on.
#[derive(Clone)]
pub struct Until {
    deadline: Option<Instant>,
    given_up: Arc<AtomicBool>,
}

impl Until {
    pub fn deadline(deadline: Instant) -> Self {
        Until { deadline: Some(deadline), given_up: Arc::default() }
    }

    /// No limit (the tests of the conversion itself).
    #[cfg(test)]
    pub fn never() -> Self {
        Until { deadline: None, given_up: Arc::default() }
    }

    /// Whether the time is up or the caller gave up.
    pub fn passed(&self) -> bool {
        self.given_up.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Why a conversion did not finish.
#[derive(Debug, PartialEq)]
pub enum Unfinished {
    /// The deadline passed (or the caller gave up).
    TimeUp,
    /// It could not run: why.
    Failed(String),
}

/// Runs `work` on a thread of its own and waits for it until `until`'s deadline; dropping
/// the returned future tells the work to stop at its next look at the clock.
pub async fn off_thread<T: Send + 'static>(
    until: &Until,
    work: impl FnOnce(&Until) -> T + Send + 'static,
) -> Result<T, Unfinished> {
    let (send, receive) = tokio::sync::oneshot::channel();
    let theirs = until.clone();
    std::thread::Builder::new()
        .name("web_fetch convert".into())
        .stack_size(STACK)
        .spawn(move || {
            let _ = send.send(work(&theirs));
        })
        .map_err(|e| Unfinished::Failed(format!("cannot start the conversion: {e}")))?;
    let _give_up = GiveUp(until.given_up.clone());
    let answer = match until.deadline {
        Some(deadline) => tokio::time::timeout_at(deadline.into(), receive).await.map_err(|_| Unfinished::TimeUp)?,
        None => receive.await,
    };
    answer.map_err(|_| Unfinished::Failed("the conversion stopped without an answer".into()))
}

/// Tells the work to stop when the waiting ends, whichever way.
struct GiveUp(Arc<AtomicBool>);

impl Drop for GiveUp {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// `html` parsed the way htmd parses it (html5ever, scripting on), in pieces; `None` when
/// `until` passed first.
pub fn parse(html: &str, until: &Until) -> Option<Rc<Node>> {
    use html5ever::tendril::{StrTendril, TendrilSink};
    let options = html5ever::ParseOpts {
        tree_builder: html5ever::tree_builder::TreeBuilderOpts { scripting_enabled: true, ..Default::default() },
        ..Default::default()
    };
    let mut parser = html5ever::parse_document(RcDom::default(), options);
    let mut rest = html;
    while !rest.is_empty() {
        let mut end = rest.len().min(PIECE);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (piece, after) = rest.split_at(end);
        parser.process(StrTendril::from_slice(piece));
        rest = after;
        if until.passed() {
            return None;
        }
    }
    Some(parser.finish().document)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn pieces_parse_as_the_whole_does() {
        let html = format!("<p>{}</p><p>é{}</p>", "a &amp; b ".repeat(5000), "<b>x</b>".repeat(3000));
        let converter = htmd::HtmlToMarkdown::new();
        let document = parse(&html, &Until::never()).unwrap();
        assert_eq!(converter.tree_to_markdown(&document), converter.convert(&html).unwrap());
    }

    #[tokio::test]
    async fn the_wait_ends_at_the_deadline_and_tells_the_work_to_stop() {
        let until = Until::deadline(Instant::now() + Duration::from_millis(200));
        let (told, seen) = std::sync::mpsc::channel();
        let started = Instant::now();
        let answer = off_thread(&until, move |until: &Until| {
            // Stops only when told (not at the deadline itself, which would race the wait).
            while !until.given_up.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(5));
            }
            let _ = told.send(());
        })
        .await;
        assert_eq!(answer, Err(Unfinished::TimeUp));
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(seen.recv_timeout(Duration::from_secs(5)).is_ok());
    }
}
