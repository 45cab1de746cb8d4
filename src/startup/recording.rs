//! The session recording part of startup: the session file a run records into (a new
//! one, or a resumed one opened and locked once, `sessions::open::resume`), the `Recorder`
//! wrapped around the front end's output and the `Journal` plugins append to, a resumed
//! session's conversation and history put back, and the rows the resume picker lists.

use crate::agent::output::Output;
use crate::agent::Session;
use crate::plugins::checkpoints::Journal;
use anyhow::Context as _;
use std::path::Path;
use std::sync::Arc;

/// Where a run's events are recorded, and what it starts from.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SessionChoice {
    /// A new session file.
    #[default]
    New,
    /// The newest session of the working directory (`--continue`); a new one if none.
    Continue,
    /// The session with this id (`--resume ID`).
    Resume(String),
    /// Nothing recorded (tests, embedders).
    Off,
}

/// A recorded session as the resume picker lists it. All of it comes from files anyone
/// could have written: a front end sanitizes it before drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRow {
    pub id: String,
    /// `YYYY-MM-DD HH:MM` (UTC) it started.
    pub date: String,
    pub turns: usize,
    pub first_prompt: String,
    /// The last exchange: its prompt and reply, first lines.
    pub last_prompt: String,
    pub last_reply: String,
}

/// An id for a session that could not be recorded (no data directory), for a front end
/// that names its sessions (ACP, MCP): unique in this process.
pub fn unrecorded_id() -> String {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    format!("unrecorded-{}-{}", std::process::id(), N.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// The recorded sessions of `cwd`, newest first (at most 200).
pub fn sessions_in(cwd: &Path) -> Vec<SessionRow> {
    let cwd = cwd.to_string_lossy();
    let Some(store) = crate::sessions::Store::default_location() else { return Vec::new() };
    store
        .list()
        .into_iter()
        .filter(|s| s.cwd == cwd && s.turns > 0)
        .take(200)
        .map(|s| SessionRow {
            id: s.file.id,
            date: crate::dates::date_time(s.started),
            turns: s.turns,
            first_prompt: s.first_prompt,
            last_prompt: s.last_prompt,
            last_reply: s.last_reply,
        })
        .collect()
}

/// A session being resumed: its file and what it held.
pub(super) struct Resumed {
    pub(super) file: crate::sessions::SessionFile,
    pub(super) replayed: crate::sessions::Replayed,
    /// The output without the recorder, to show the history without recording it again.
    pub(super) plain_output: Arc<dyn Output>,
}

/// Where a run records: what a resumed session held, the output to use, and where plugins
/// append records of their own.
pub(super) struct Recording {
    pub(super) resumed: Option<Resumed>,
    pub(super) output: Arc<dyn Output>,
    pub(super) journal: Option<Journal>,
    /// The file recorded into (new or resumed), when there is one.
    pub(super) file: Option<crate::sessions::SessionFile>,
}

/// Wraps `output` in a recorder for the chosen session; returns what a resumed session held
/// and where plugins append records of their own (file checkpoints).
pub(super) fn record(
    choice: &SessionChoice,
    cwd: &std::path::Path,
    output: Arc<dyn Output>,
) -> anyhow::Result<Recording> {
    use crate::sessions::{open, replay, Recorder, Store};
    let Some(store) = Store::default_location().filter(|_| *choice != SessionChoice::Off) else {
        return Ok(Recording { resumed: None, output, journal: None, file: None });
    };
    let existing = match choice {
        SessionChoice::Continue => store.latest_in(cwd),
        SessionChoice::Resume(id) => Some(store.find(id).with_context(|| store.not_found(id))?),
        _ => None,
    };
    if let Some(info) = existing {
        // One descriptor, locked before it is read: what is read back is what is appended
        // to, and no other elelem writes between.
        let opened = open::resume(&info.file.path).map_err(|error| match error.get_ref() {
            Some(e) if e.is::<open::InUse>() => anyhow::anyhow!(
                "session {} is open in another elelem, which records into it; \
                 end that one first, or start a new session",
                info.file.id
            ),
            _ => anyhow::Error::new(error).context(format!("cannot open session {}", info.file.path.display())),
        })?;
        let open::Resume { file, unwritable } = opened;
        let replayed = replay::read_from(&file, &info.file.path)
            .with_context(|| format!("cannot read session {}", info.file.path.display()))?;
        if let Some(error) = unwritable {
            // As when the disk fills during a run: the session goes on, unrecorded, and says so.
            output.emit(crate::agent::AgentEvent::Warning(format!(
                "session {} is resumed but not recorded: its file cannot be written to ({error}); \
                 what this run adds will not be kept",
                info.file.id
            )));
            let resumed = Resumed { file: info.file, replayed, plain_output: output.clone() };
            return Ok(Recording { resumed: Some(resumed), output, journal: None, file: None });
        }
        let recorder = Arc::new(Recorder::new(output.clone(), file, replayed.messages.clone()));
        let journal = journal_of(&recorder);
        let file = Some(info.file.clone());
        let resumed = Resumed { file: info.file, replayed, plain_output: output };
        return Ok(Recording { resumed: Some(resumed), output: recorder, journal: Some(journal), file });
    }
    if *choice == SessionChoice::Continue {
        output.emit(crate::agent::AgentEvent::Warning(format!(
            "no earlier session in {}; starting a new one",
            cwd.display()
        )));
    }
    match store.create() {
        Ok((file, handle)) => {
            let recorder = Arc::new(Recorder::new(output, handle, Vec::new()));
            recorder.header(&file.id, &cwd.to_string_lossy());
            let journal = journal_of(&recorder);
            Ok(Recording { resumed: None, output: recorder, journal: Some(journal), file: Some(file) })
        }
        Err(error) => {
            output.emit(crate::agent::AgentEvent::Warning(format!("this session is not recorded: {error}")));
            Ok(Recording { resumed: None, output, journal: None, file: None })
        }
    }
}

fn journal_of(recorder: &Arc<crate::sessions::Recorder>) -> Journal {
    let recorder = recorder.clone();
    Arc::new(move |record| recorder.append(record))
}

/// Puts a resumed session's conversation back and shows its history (or a summary).
pub(super) fn restore(session: &mut Session, resumed: Resumed, replay_history: bool) {
    let Resumed { file, replayed, plain_output } = resumed;
    for warning in &replayed.warnings {
        plain_output.emit(crate::agent::AgentEvent::Info(format!("warning: {warning}")));
    }
    if replay_history {
        for event in replayed.events {
            plain_output.emit(event);
        }
    } else if let Some(plan) = replayed.events.into_iter().rfind(|e| matches!(e, crate::agent::AgentEvent::Plan(_))) {
        // Without the history, the model's newest plan still comes back.
        plain_output.emit(plan);
    }
    let mut messages = replayed.messages;
    for warning in crate::sessions::images::reload(&mut messages) {
        plain_output.emit(crate::agent::AgentEvent::Warning(warning));
    }
    let conversation = session.conversation_mut();
    conversation.clear();
    for message in messages {
        let _ = conversation.push(message);
    }
    plain_output.emit(crate::agent::AgentEvent::Info(format!(
        "Resumed session {} ({} turn{}, {} message{} kept).",
        file.id,
        replayed.kept_turns,
        if replayed.kept_turns == 1 { "" } else { "s" },
        session.conversation().len(),
        if session.conversation().len() == 1 { "" } else { "s" }
    )));
}
