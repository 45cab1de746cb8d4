//! The agent shows each provider event as it comes, in order, and merges nothing. Merging is
//! the paced provider's (composed as `startup` does for a front end with a pace, through
//! `elelem::pacing`): a burst or a trickle read through it comes in few deltas.

use elelem::agent::output::{AgentEvent, Delta, TurnEnd};
use elelem::protocol::{EventStream, Provider, ProviderError, ProviderEvent, Request, Usage};
use futures::StreamExt;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// A model whose whole answer is ready at once.
struct ReadyModel {
    answer: Mutex<Vec<Result<ProviderEvent, ProviderError>>>,
}

impl ReadyModel {
    fn new(answer: Vec<Result<ProviderEvent, ProviderError>>) -> Arc<Self> {
        Arc::new(ReadyModel { answer: Mutex::new(answer) })
    }
}

impl Provider for ReadyModel {
    fn name(&self) -> &str {
        "ready"
    }
    fn model(&self) -> &str {
        "ready-1"
    }
    fn fetch(&self, _request: Request) -> EventStream {
        futures::stream::iter(std::mem::take(&mut *self.answer.lock().unwrap())).boxed()
    }
}

/// What the output showed, with consecutive deltas of one kind joined, and how many
/// delta events it took.
fn shown(events: &[AgentEvent]) -> (Vec<String>, usize) {
    let mut lines: Vec<String> = Vec::new();
    let mut deltas = 0;
    for event in events {
        let (kind, text) = match event {
            AgentEvent::Delta(Delta::Saying(t)) => ("saying", t.clone()),
            AgentEvent::Delta(Delta::Thinking(t)) => ("thinking", t.clone()),
            AgentEvent::Usage(u) => ("usage", u.output_tokens.to_string()),
            AgentEvent::Error(e) => ("error", e.clone()),
            _ => continue,
        };
        deltas += usize::from(matches!(event, AgentEvent::Delta(_)));
        match lines.last_mut() {
            Some(last) if kind != "usage" && kind != "error" && last.starts_with(&format!("{kind}: ")) => {
                last.push_str(&text)
            }
            _ => lines.push(format!("{kind}: {text}")),
        }
    }
    (lines, deltas)
}

/// 1,000 said pieces, three thought, one said, usage, one said.
fn mixed_answer() -> Vec<Result<ProviderEvent, ProviderError>> {
    let mut answer: Vec<_> = (0..1000).map(|_| Ok(ProviderEvent::Saying("ab".into()))).collect();
    answer.extend((0..3).map(|_| Ok(ProviderEvent::Thinking("t".into()))));
    answer.push(Ok(ProviderEvent::Saying("z".into())));
    answer.push(Ok(ProviderEvent::Usage(Usage { input_tokens: 1, output_tokens: 7, ..Default::default() })));
    answer.push(Ok(ProviderEvent::Saying("end".into())));
    answer
}

/// What a mixed answer shows, in order.
fn mixed_shown() -> Vec<String> {
    let said = format!("saying: {}", "ab".repeat(1000));
    vec![said, "thinking: ttt".into(), "saying: z".into(), "usage: 7".into(), "saying: end".into()]
}

#[tokio::test]
async fn the_agent_shows_each_event_as_it_comes_in_order() {
    let (mut agent, output) = crate::support::agent(ReadyModel::new(mixed_answer()));
    let outcome = agent.turn("go", CancellationToken::new()).await;
    assert_eq!(outcome.end, TurnEnd::Done);
    assert_eq!(outcome.reply, format!("{}zend", "ab".repeat(1000)));
    let (lines, deltas) = shown(&output.events());
    assert_eq!(lines, mixed_shown());
    assert_eq!(deltas, 1005, "the agent merged text itself");
}

/// A model that streams ahead whose whole answer is ready at once (a burst in a socket).
struct ReadyAhead(Arc<ReadyModel>);

impl Provider for ReadyAhead {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn model(&self) -> &str {
        self.0.model()
    }
    fn streams_ahead(&self) -> bool {
        true
    }
    fn fetch(&self, request: Request) -> EventStream {
        self.0.fetch(request)
    }
}

#[tokio::test]
async fn a_paced_provider_hands_waiting_text_over_merged_and_in_order() {
    let output = Arc::new(PacedOutput(Default::default()));
    let model = Arc::new(ReadyAhead(ReadyModel::new(mixed_answer())));
    let mut agent = agent_for(model, std::time::Duration::from_millis(20), output.clone());
    let outcome = agent.turn("go", CancellationToken::new()).await;
    assert_eq!(outcome.reply, format!("{}zend", "ab".repeat(1000)));
    let (lines, deltas) = shown(&output.0.events());
    assert_eq!(lines, mixed_shown());
    assert!(deltas <= 8, "{deltas} delta events for 1005 provider events");
}

#[tokio::test]
async fn text_before_an_error_is_shown_before_it() {
    let answer = vec![
        Ok(ProviderEvent::Saying("a".into())),
        Ok(ProviderEvent::Saying("b".into())),
        Err(ProviderError::Network("cut".into())),
    ];
    let (mut agent, output) = crate::support::agent(ReadyModel::new(answer));
    let outcome = agent.turn("go", CancellationToken::new()).await;
    assert_eq!((outcome.end, outcome.reply.as_str()), (TurnEnd::Failed, "Error: cut"));
    assert_eq!(shown(&output.events()), (vec!["saying: ab".to_string(), "error: cut".to_string()], 2));
}

/// A model that sends one event every millisecond, as a real API trickles a reply.
struct TricklingModel {
    answer: Mutex<Vec<Result<ProviderEvent, ProviderError>>>,
}

impl Provider for TricklingModel {
    fn name(&self) -> &str {
        "trickle"
    }
    fn model(&self) -> &str {
        "trickle-1"
    }
    fn fetch(&self, _request: Request) -> EventStream {
        let answer = std::mem::take(&mut *self.answer.lock().unwrap());
        futures::stream::iter(answer)
            .then(|event| async move {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                event
            })
            .boxed()
    }
}

/// An output for a front end that wants text at most every 20 ms (as the full-screen app does).
struct PacedOutput(elelem::agent::output::RecordingOutput);

impl elelem::agent::output::Output for PacedOutput {
    fn emit(&self, event: AgentEvent) {
        self.0.emit(event)
    }
}

/// An agent with no tools whose provider is paced at 20 ms, composed as `startup` does for a
/// front end with a pace: every stream the provider fetches is paced.
fn paced_agent(model: Arc<dyn Provider>) -> (elelem::agent::Agent, Arc<PacedOutput>) {
    let output = Arc::new(PacedOutput(Default::default()));
    (agent_for(model, std::time::Duration::from_millis(20), output.clone()), output)
}

/// An agent with no tools showing through `output`, its provider paced at `pace`
/// (`pacing::paced`).
fn agent_for(
    model: Arc<dyn Provider>,
    pace: std::time::Duration,
    output: Arc<dyn elelem::agent::output::Output>,
) -> elelem::agent::Agent {
    let prompt = elelem::agent::system_prompt::SystemPrompt::new(std::env::temp_dir());
    let transcript = elelem::agent::transcript::Transcript::new(prompt);
    let model = elelem::pacing::paced(model, pace);
    elelem::agent::Agent::new(model, elelem::agent::toolbox::Toolbox::new(), output, transcript)
}

/// A paced output gets a trickling stream's text merged into a few deltas, in order, with
/// other events where they came; without a pace every event is its own delta.
#[tokio::test]
async fn a_paced_output_gets_a_trickle_in_few_deltas_and_in_order() {
    let answer = || {
        let mut answer: Vec<_> = (0..200).map(|i| Ok(ProviderEvent::Saying(format!("{i} ")))).collect();
        answer.insert(100, Ok(ProviderEvent::Usage(Usage { input_tokens: 1, output_tokens: 5, ..Default::default() })));
        answer
    };
    let text: String = (0..200).map(|i| format!("{i} ")).collect();
    let model = Arc::new(TricklingModel { answer: Mutex::new(answer()) });
    let (mut agent, output) = paced_agent(model);
    let outcome = agent.turn("go", CancellationToken::new()).await;
    assert_eq!((outcome.end, outcome.reply.as_str()), (TurnEnd::Done, text.as_str()));
    let (lines, deltas) = shown(&output.0.events());
    let first: String = (0..100).map(|i| format!("{i} ")).collect();
    let rest: String = (100..200).map(|i| format!("{i} ")).collect();
    assert_eq!(lines, [format!("saying: {first}"), "usage: 5".into(), format!("saying: {rest}")]);
    assert!(deltas <= 80, "{deltas} deltas for 200 events 1 ms apart at a 20 ms pace");

    let (mut agent, output) = crate::support::agent(Arc::new(TricklingModel { answer: Mutex::new(answer()) }));
    agent.turn("go", CancellationToken::new()).await;
    let (_, unpaced) = shown(&output.events());
    assert!(unpaced > 150, "without a pace the trickle is shown as it comes: {unpaced}");
}

/// A model whose events are due 1 ms apart from the start of the stream whether or not it is
/// polled (as a socket buffers a network stream), counting how often a poll found nothing
/// ready (each such poll is a wake-up later).
struct ScheduledModel {
    events: usize,
    ahead: bool,
    polls: Arc<std::sync::atomic::AtomicUsize>,
}

impl Provider for ScheduledModel {
    fn name(&self) -> &str {
        "scheduled"
    }
    fn model(&self) -> &str {
        "scheduled-1"
    }
    fn streams_ahead(&self) -> bool {
        self.ahead
    }
    fn fetch(&self, _request: Request) -> EventStream {
        let start = tokio::time::Instant::now();
        let mut inner = futures::stream::unfold(0, move |i| async move {
            tokio::time::sleep_until(start + std::time::Duration::from_millis(i as u64 + 1)).await;
            Some((Ok(ProviderEvent::Saying(format!("{i} "))), i + 1))
        })
        .take(self.events)
        .boxed();
        let polls = self.polls.clone();
        futures::stream::poll_fn(move |cx| {
            let poll = inner.poll_next_unpin(cx);
            if poll.is_pending() {
                polls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            poll
        })
        .boxed()
    }
}

/// For a paced output, a stream that streams ahead is read on the read-ahead thread, left
/// alone between intervals and taken in batches: a few empty polls (wake-ups) per interval,
/// not one per event; a stream that does not stream ahead is still read as it comes.
#[tokio::test]
async fn a_paced_output_leaves_a_stream_that_streams_ahead_alone_between_intervals() {
    let text: String = (0..300).map(|i| format!("{i} ")).collect();
    let mut polls = Vec::new();
    for ahead in [true, false] {
        let counter = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let model = Arc::new(ScheduledModel { events: 300, ahead, polls: counter.clone() });
        let (mut agent, output) = paced_agent(model);
        let outcome = agent.turn("go", CancellationToken::new()).await;
        assert_eq!((outcome.end, outcome.reply.as_str()), (TurnEnd::Done, text.as_str()));
        let (lines, _) = shown(&output.0.events());
        assert_eq!(lines, [format!("saying: {text}")]);
        polls.push(counter.load(std::sync::atomic::Ordering::Relaxed));
    }
    // ~15 intervals, a few empty looks each (the reader looks again before giving up),
    // against about one empty poll per event when it is read as it comes (fewer on a
    // loaded machine, whose late timers find several events due at once: 233 was seen).
    assert!(polls[0] < 150, "{} empty polls for 300 events 1 ms apart at a 20 ms pace", polls[0]);
    assert!(
        polls[1] > 2 * polls[0],
        "a stream that does not stream ahead is read as it comes: {} empty polls, against {} read ahead",
        polls[1],
        polls[0]
    );
}

/// A model that streams ahead in bursts of one reader's batch (256 events, ready at once),
/// each burst only once the output has shown every burst before it.
struct BurstModel {
    bursts: usize,
    shown: tokio::sync::watch::Receiver<usize>,
}

impl BurstModel {
    fn burst(k: usize) -> Vec<Result<ProviderEvent, ProviderError>> {
        (0..256).map(|i| Ok(ProviderEvent::Saying(format!("{k}.{i} ")))).collect()
    }
    fn text(bursts: usize) -> String {
        (0..bursts)
            .flat_map(Self::burst)
            .map(|e| match e {
                Ok(ProviderEvent::Saying(t)) => t,
                _ => String::new(),
            })
            .collect()
    }
}

impl Provider for BurstModel {
    fn name(&self) -> &str {
        "bursts"
    }
    fn model(&self) -> &str {
        "bursts-1"
    }
    fn streams_ahead(&self) -> bool {
        true
    }
    fn fetch(&self, _request: Request) -> EventStream {
        let shown = self.shown.clone();
        futures::stream::iter(0..self.bursts)
            .then(move |k| {
                let mut shown = shown.clone();
                async move {
                    let before = BurstModel::text(k).len();
                    let _ = shown.wait_for(|&n| n >= before).await;
                    futures::stream::iter(BurstModel::burst(k))
                }
            })
            .flatten()
            .boxed()
    }
}

/// An output for a pace far longer than the test, telling the model how much text it showed.
struct SlowPacedOutput {
    events: elelem::agent::output::RecordingOutput,
    shown: tokio::sync::watch::Sender<usize>,
}

impl elelem::agent::output::Output for SlowPacedOutput {
    fn emit(&self, event: AgentEvent) {
        if let AgentEvent::Delta(Delta::Saying(text)) = &event {
            self.shown.send_modify(|n| *n += text.len());
        }
        self.events.emit(event)
    }
}

/// With a stream read ahead, the reading thread is the only clock: each batch it hands
/// over is shown as it comes, whatever the pace (the agent holds nothing of its own, so text
/// is never a second interval late). Here the model sends its next burst only once the last
/// was shown: an agent holding text for the pace would never show the second.
#[tokio::test]
async fn a_stream_read_ahead_is_shown_batch_by_batch_as_it_comes() {
    let (tx, rx) = tokio::sync::watch::channel(0);
    let output = Arc::new(SlowPacedOutput { events: Default::default(), shown: tx });
    let model = Arc::new(BurstModel { bursts: 3, shown: rx });
    let mut agent = agent_for(model, std::time::Duration::from_secs(3600), output.clone());
    let turn = agent.turn("go", CancellationToken::new());
    // Not a time budget: without the change this waits for the hour-long pace.
    let outcome = tokio::time::timeout(std::time::Duration::from_secs(60), turn)
        .await
        .expect("a batch read ahead waited for the pace");
    let text = BurstModel::text(3);
    assert_eq!((outcome.end, outcome.reply.as_str()), (TurnEnd::Done, text.as_str()));
    let (lines, deltas) = shown(&output.events.events());
    assert_eq!(lines, [format!("saying: {text}")]);
    assert_eq!(deltas, 3, "one delta per burst");
}

/// A reply whose events all arrive at once over real HTTP, each in its own chunk (as a
/// server flushes them): the HTTP client hands a body over one chunk at a time, yet read
/// through the pace a front end asks for it is shown in a few deltas, not one per event.
#[tokio::test]
async fn a_burst_over_http_is_shown_in_few_deltas() {
    use elelem::providers::openai::{OpenAiConfig, OpenAiProvider};
    let events = 1000;
    let mut body = String::new();
    for i in 0..events {
        let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": format!("w{i} ")}}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    let event_size = body.len() / events;
    let server = crate::support::Server::start(vec![crate::support::Reply::sse(&body).burst(event_size)]).await;
    let mut config = OpenAiConfig::new(&format!("{}/v1", server.url), Some("sk-test"), "gpt-test");
    config.http = crate::support::fast_http();
    let output = Arc::new(PacedOutput(Default::default()));
    let model = Arc::new(OpenAiProvider::new(config).unwrap());
    let mut agent = agent_for(model, std::time::Duration::from_millis(8), output.clone());
    let outcome = agent.turn("go", CancellationToken::new()).await;
    assert_eq!(outcome.end, TurnEnd::Done);
    let expected: String = (0..events).map(|i| format!("w{i} ")).collect();
    assert_eq!(outcome.reply, expected);
    let (_, deltas) = shown(&output.0.events());
    assert!(deltas <= events / 20, "{deltas} delta events for {events} events sent at once");
}
