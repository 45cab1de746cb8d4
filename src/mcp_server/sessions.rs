//! The sessions of an `elelem mcp` server and the turns run in them. A session is built
//! through `startup` like every front end's (same plugins, permissions and session files;
//! its id is the session file's, so `elelem --resume ID` continues it too), headless: what
//! would ask is refused unless the server was started with `--allow` or `--yolo`. A call
//! naming a session not open here resumes the recorded one, in the directory it recorded
//! unless the call names one.
//!
//! elelem works in its process's directory (tools, project settings, trust), so turns
//! run one at a time across the server: a turn moves the process to its session's
//! directory and holds `turns` until it ends. A call waiting for another's turn can be
//! cancelled while it waits.

use super::output::{CallSummary, McpOutput};
use super::roots::Roots;
use crate::agent::input::{DenyAll, NoLines};
use crate::agent::output::TurnEnd;
use crate::agent::{Interrupter, Session};
use crate::startup::{build_recorded_session, unrecorded_id, Options, SessionChoice};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// What a `prompt` call asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TurnRequest {
    pub prompt: String,
    pub cwd: Option<String>,
    pub session: Option<String>,
}

/// How a turn went, for the call's result.
#[derive(Debug)]
pub struct TurnResult {
    pub session: String,
    pub reply: String,
    pub end: TurnEnd,
    pub calls: Vec<CallSummary>,
}

/// Why a turn did not run.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error(transparent)]
    Root(#[from] super::roots::RootError),
    #[error("session {session} works in {works_in}, not {asked}")]
    OtherDirectory { session: String, works_in: String, asked: String },
    #[error("cannot work in {dir}: {source}")]
    Chdir { dir: String, source: std::io::Error },
    #[error("cannot start the session: {0}")]
    Build(String),
    #[error("no session {0:?} recorded here")]
    Unknown(String),
    #[error("cancelled before the turn began")]
    Cancelled,
    #[error("the server is stopping")]
    Closing,
}

/// One open session.
struct Slot {
    session: tokio::sync::Mutex<Session>,
    interrupter: Interrupter,
    output: Arc<McpOutput>,
    cwd: PathBuf,
}

/// The sessions of the server, by id.
pub struct Sessions {
    options: Options,
    roots: Roots,
    slots: Mutex<HashMap<String, Arc<Slot>>>,
    /// Held by the running turn (the process's directory is its session's).
    turns: tokio::sync::Mutex<()>,
    closing: AtomicBool,
}

/// Moves the process to `dir`, unless it is there.
fn enter(dir: &Path) -> Result<(), TurnError> {
    if std::env::current_dir().ok().as_deref() != Some(dir) {
        std::env::set_current_dir(dir).map_err(|source| TurnError::Chdir { dir: dir.display().to_string(), source })?;
    }
    Ok(())
}

impl Sessions {
    pub fn new(options: Options, roots: Roots) -> Sessions {
        Sessions {
            options,
            roots,
            slots: Mutex::default(),
            turns: tokio::sync::Mutex::new(()),
            closing: AtomicBool::new(false),
        }
    }

    /// Where calls may work.
    pub fn roots(&self) -> &Roots {
        &self.roots
    }

    /// The ids of the sessions open in this server.
    pub fn open_ids(&self) -> Vec<String> {
        self.slots.lock().map(|slots| slots.keys().cloned().collect()).unwrap_or_default()
    }

    fn open(&self, id: &str) -> Option<Arc<Slot>> {
        self.slots.lock().ok().and_then(|slots| slots.get(id).cloned())
    }

    /// Builds a session in `cwd` (the process is there already): new, or the recorded
    /// session `resume`.
    fn build(&self, cwd: &Path, resume: Option<&str>) -> Result<(String, Arc<Slot>), TurnError> {
        let output = Arc::new(McpOutput::default());
        let options = Options {
            session: resume.map_or(SessionChoice::New, |id| SessionChoice::Resume(id.to_string())),
            headless: true,
            ..self.options.clone()
        };
        let (session, recorded) =
            build_recorded_session(&options, output.clone(), Box::new(NoLines), Arc::new(DenyAll))
                .map_err(|error| TurnError::Build(format!("{error:#}")))?;
        let id = recorded.unwrap_or_else(unrecorded_id);
        let slot = Arc::new(Slot {
            interrupter: session.interrupter().clone(),
            session: tokio::sync::Mutex::new(session),
            output,
            cwd: cwd.to_path_buf(),
        });
        if let Ok(mut slots) = self.slots.lock() {
            slots.insert(id.clone(), slot.clone());
        }
        Ok((id, slot))
    }

    /// The directory recorded session `id` (that very id, not a prefix of it) worked in,
    /// when it is recorded; it must be inside the roots, whatever `cwd` the call names, so
    /// no call reads another project's conversation. Resumed without a `cwd`, it goes on
    /// there.
    fn recorded_dir(&self, id: &str) -> Result<Option<PathBuf>, TurnError> {
        let found = crate::sessions::Store::default_location().and_then(|store| store.find(id));
        let Some(info) = found.filter(|info| info.file.id == id) else { return Ok(None) };
        Ok(Some(self.roots.resolve(Some(&info.cwd))?))
    }

    /// Moves the process to `dir` and checks where it landed: a folder on the way that was
    /// swapped for a link since `dir` was resolved (a command of the turn before may do it
    /// while this call waits for its turn) leaves the process outside the roots.
    fn enter_inside(&self, dir: &Path) -> Result<(), TurnError> {
        enter(dir)?;
        let now =
            std::env::current_dir().map_err(|source| TurnError::Chdir { dir: dir.display().to_string(), source })?;
        self.roots.resolve(now.to_str())?;
        Ok(())
    }

    /// Runs one turn. The reply text goes to `stream` as it arrives; `cancel` (the call's
    /// cancellation) interrupts the turn, which stops the commands its tools run.
    pub async fn turn(
        &self,
        request: TurnRequest,
        stream: Option<UnboundedSender<String>>,
        cancel: CancellationToken,
    ) -> Result<TurnResult, TurnError> {
        let _turn = tokio::select! {
            guard = self.turns.lock() => guard,
            _ = cancel.cancelled() => return Err(TurnError::Cancelled),
        };
        if self.closing.load(Ordering::SeqCst) {
            return Err(TurnError::Closing);
        }
        // Resolved once the turn is this call's: nothing moves the folders on the way meanwhile.
        let asked = self.roots.resolve(request.cwd.as_deref())?;
        let (id, slot) = match request.session.as_deref().and_then(|id| self.open(id).map(|slot| (id, slot))) {
            Some((id, slot)) => {
                if request.cwd.is_some() && slot.cwd != asked {
                    return Err(TurnError::OtherDirectory {
                        session: id.to_string(),
                        works_in: slot.cwd.display().to_string(),
                        asked: asked.display().to_string(),
                    });
                }
                (id.to_string(), slot)
            }
            None => {
                let recorded = match &request.session {
                    Some(id) => Some(self.recorded_dir(id)?.ok_or_else(|| TurnError::Unknown(id.clone()))?),
                    None => None,
                };
                let dir = match (recorded, &request.cwd) {
                    (Some(dir), None) => dir,
                    _ => asked,
                };
                enter(&dir)?;
                self.build(&dir, request.session.as_deref())?
            }
        };
        self.enter_inside(&slot.cwd)?;
        let mut session = slot.session.lock().await;
        slot.output.begin(stream);
        let token = slot.interrupter.begin();
        // The call's cancellation, or the client going away (`close`), ends the turn.
        let linked = {
            let (cancel, token) = (cancel.clone(), token.clone());
            tokio::spawn(async move {
                cancel.cancelled().await;
                token.cancel();
            })
        };
        let outcome = if self.closing.load(Ordering::SeqCst) {
            token.cancel();
            crate::agent::TurnOutcome { reply: String::new(), end: TurnEnd::Interrupted }
        } else {
            session.turn(&request.prompt, token).await
        };
        linked.abort();
        slot.interrupter.end();
        let calls = slot.output.finish();
        Ok(TurnResult { session: id, reply: outcome.reply, end: outcome.end, calls })
    }

    /// The client went away: every running turn stops, and no other begins.
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        if let Ok(slots) = self.slots.lock() {
            for slot in slots.values() {
                slot.interrupter.interrupt();
            }
        }
    }

    /// Waits until no turn runs (after `close`, the interrupted ones have stopped their
    /// commands).
    pub async fn settled(&self) {
        let _turn = self.turns.lock().await;
    }
}
