//! The file of a new session the user leaves for another (`--resume` without an id, or
//! `/resume`) before it held a turn: removed, so the picker's choice leaves no empty
//! session behind (and `--continue` does not land on it). The session is built on a
//! blocking thread that cannot be stopped, so whichever of the two comes second — the
//! build recording the file's id, or the switch abandoning the session — removes it.

use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Slot {
    /// The id of the file the new session records into, once it is built.
    id: Option<String>,
    /// The user left the session for another.
    abandoned: bool,
}

/// Shared by the run loop and the session's builder.
#[derive(Clone, Default)]
pub struct NewSession(Arc<Mutex<Slot>>);

impl NewSession {
    /// The session was built and records into the file `id`.
    pub fn recorded(&self, id: Option<String>) {
        let Ok(mut slot) = self.0.lock() else { return };
        if slot.abandoned {
            drop(slot);
            discard(id);
        } else {
            slot.id = id;
        }
    }

    /// The user chose another session: this one's file goes if it holds no turn.
    pub fn abandon(&self) {
        let Ok(mut slot) = self.0.lock() else { return };
        slot.abandoned = true;
        let id = slot.id.take();
        drop(slot);
        discard(id);
    }
}

fn discard(id: Option<String>) {
    if let Some(id) = id {
        crate::startup::discard_empty_session(&id);
    }
}
