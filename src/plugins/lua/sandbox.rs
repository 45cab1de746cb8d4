//! One plugin file's Lua state and the rules of every call into it. The state lives on a
//! thread of its own (the worker) and nothing else ever touches it: a call is a job sent
//! there, and Lua functions held elsewhere are only keys to the worker's table (`LuaFn`).
//! Each outermost call has a deadline, enforced twice: an instruction/call hook raises a
//! timeout in Lua code (the state stays usable), and the caller's watchdog gives up on a
//! call that is still running a moment after its deadline (a C function such as a
//! catastrophic `string.find`, a looping `__gc` finalizer or message handler, where no hook
//! runs): the state is abandoned — left to its thread, never waited for, never closed from
//! elsewhere — and every later call fails at once with a clear error until `/reload` makes
//! a new state. Calls made from the worker itself (Lua calling Rust calling Lua) run inline
//! under the outer call's deadline. Closing the state (its finalizers) happens on the
//! worker too, so neither exit nor a signal waits for plugin code.

use super::prelude::PRELUDE;
use crate::panics::catch_sync;
use mlua::chunk::ChunkMode;
use mlua::{Function, HookTriggers, Lua, VmState};
use parking_lot::Mutex;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// How long one call into a plugin may run unless `ELELEM_LUA_TIMEOUT_MS` says otherwise.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(2);
/// VM instructions between two looks at the clock.
const CHECK_EVERY: u32 = 1000;
/// How long after its deadline a call that the hook could not stop is abandoned.
const GRACE: Duration = Duration::from_millis(250);
/// How often a caller whose call has not started yet looks at the running one.
const POLL: Duration = Duration::from_millis(50);

/// `ELELEM_LUA_TIMEOUT_MS`, else the default.
pub fn limit_from_env() -> Duration {
    std::env::var("ELELEM_LUA_TIMEOUT_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .map_or(DEFAULT_LIMIT, Duration::from_millis)
}

type Job = Box<dyn FnOnce(&Lua) + Send>;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// What the sandbox and its callers share.
struct Shared {
    id: u64,
    label: String,
    limit: Duration,
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    /// The running outermost call's deadline (the hook reads it too).
    deadline: Arc<Mutex<Option<Instant>>>,
    /// Why the state was abandoned.
    abandoned: Mutex<Option<String>>,
}

impl Shared {
    fn submit(&self, job: Job) -> mlua::Result<()> {
        if let Some(why) = self.abandoned.lock().clone() {
            return Err(mlua::Error::runtime(why));
        }
        let sent = self.jobs.lock().as_ref().map(|jobs| jobs.send(job).is_ok());
        match sent {
            Some(true) => Ok(()),
            _ => Err(mlua::Error::runtime(format!("plugin {}: its Lua state is gone", self.label))),
        }
    }

    /// `Some(error)` once the call running now is past its deadline and the grace: the
    /// state is abandoned then.
    fn overdue(&self) -> Option<mlua::Error> {
        if let Some(why) = self.abandoned.lock().clone() {
            return Some(mlua::Error::runtime(why));
        }
        let deadline = (*self.deadline.lock())?;
        if Instant::now() < deadline + GRACE {
            return None;
        }
        let why = format!(
            "plugin {} is disabled: a call into it ran past the {} ms limit and could not be stopped \
             (/reload loads it again)",
            self.label,
            self.limit.as_millis()
        );
        *self.abandoned.lock() = Some(why.clone());
        // Nothing more is sent; the worker ends whenever it gets free.
        self.jobs.lock().take();
        Some(mlua::Error::runtime(why))
    }

    /// How long a waiting caller sleeps before it looks again.
    fn wait_step(&self) -> Duration {
        match *self.deadline.lock() {
            Some(deadline) => {
                (deadline + GRACE).saturating_duration_since(Instant::now()).max(Duration::from_millis(1))
            }
            None => POLL,
        }
    }
}

thread_local! {
    /// On a worker: its sandbox's id and state.
    static WORKER: RefCell<Option<(u64, Weak<Shared>, Lua)>> = const { RefCell::new(None) };
    /// On a worker: how deep it is in calls (the outermost sets the deadline).
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// On a worker: the Lua functions held by `LuaFn` keys.
    static HELD: RefCell<HashMap<u64, Function>> = RefCell::new(HashMap::new());
}

/// A Lua state on its own thread with a time limit on every call.
pub struct Sandbox {
    shared: Arc<Shared>,
}

impl Sandbox {
    /// A fresh state for the plugin `label` (named in errors), on a new worker thread.
    pub fn new(limit: Duration, label: &str) -> mlua::Result<Sandbox> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let shared = Arc::new(Shared {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            label: label.to_string(),
            limit,
            jobs: Mutex::new(Some(jobs)),
            deadline: Arc::default(),
            abandoned: Mutex::default(),
        });
        let (ready, started) = mpsc::channel();
        let worker = Arc::downgrade(&shared);
        let watched = shared.deadline.clone();
        std::thread::Builder::new()
            .name("lua plugin".into())
            .spawn(move || match new_state(limit, watched) {
                Ok(lua) => {
                    let _ = ready.send(Ok(()));
                    work(lua, worker, queue);
                }
                Err(error) => {
                    let _ = ready.send(Err(error));
                }
            })
            .map_err(|e| mlua::Error::runtime(format!("cannot start a thread for plugin {label}: {e}")))?;
        started.recv().map_err(|_| mlua::Error::runtime(format!("plugin {label}: its Lua thread ended")))??;
        Ok(Sandbox { shared })
    }

    /// Runs `f` against the state within the time limit, waiting on this thread (not an
    /// async worker: see `off_async`).
    pub fn call<R: Send + 'static>(&self, f: impl FnOnce(&Lua) -> mlua::Result<R> + Send + 'static) -> mlua::Result<R> {
        if let Some(lua) = self.inline() {
            return enter(&lua, &self.shared, f);
        }
        let (tx, rx) = mpsc::channel();
        self.shared.submit(job(&self.shared, f, move |r| drop(tx.send(r))))?;
        loop {
            match rx.recv_timeout(self.shared.wait_step()) {
                Ok(result) => return result,
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(self.gone()),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(error) = self.shared.overdue() {
                        return Err(error);
                    }
                }
            }
        }
    }

    /// `call` for async code: awaits the worker without holding a thread. Dropping the
    /// future (an interrupted turn) leaves the call to finish or be abandoned on its own.
    pub async fn run<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Lua) -> mlua::Result<R> + Send + 'static,
    ) -> mlua::Result<R> {
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        self.shared.submit(job(&self.shared, f, move |r| drop(tx.send(r))))?;
        loop {
            tokio::select! {
                result = &mut rx => return result.unwrap_or_else(|_| Err(self.gone())),
                _ = tokio::time::sleep(self.shared.wait_step()) => {
                    if let Some(error) = self.shared.overdue() {
                        return Err(error);
                    }
                }
            }
        }
    }

    /// Whether the state was abandoned.
    pub fn abandoned(&self) -> Option<String> {
        self.shared.abandoned.lock().clone()
    }

    /// The state, when this thread is its worker (a nested call).
    fn inline(&self) -> Option<Lua> {
        WORKER.with(|w| w.borrow().as_ref().filter(|(id, _, _)| *id == self.shared.id).map(|(_, _, lua)| lua.clone()))
    }

    fn gone(&self) -> mlua::Error {
        self.shared.overdue().unwrap_or_else(|| {
            mlua::Error::runtime(format!("plugin {}: the call ended without an answer", self.shared.label))
        })
    }
}

/// A Lua function kept on its sandbox's worker; this is only a key to it, so it may be
/// cloned, moved and dropped anywhere without touching the state.
#[derive(Clone)]
pub struct LuaFn(Arc<Key>);

struct Key {
    key: u64,
    owner: Weak<Shared>,
}

impl LuaFn {
    /// Keeps `function` (on its worker, where all Lua code runs).
    pub fn hold(function: Function) -> mlua::Result<LuaFn> {
        let owner = WORKER.with(|w| w.borrow().as_ref().map(|(_, owner, _)| owner.clone()));
        let owner = owner.ok_or_else(|| mlua::Error::runtime("a Lua function was kept off its plugin's thread"))?;
        let key = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        HELD.with(|held| held.borrow_mut().insert(key, function));
        Ok(LuaFn(Arc::new(Key { key, owner })))
    }

    /// The function, inside a call on its worker.
    pub fn get(&self) -> mlua::Result<Function> {
        HELD.with(|held| held.borrow().get(&self.0.key).cloned())
            .ok_or_else(|| mlua::Error::runtime("a plugin function was used outside its own plugin"))
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        if let Some(owner) = self.owner.upgrade() {
            let key = self.key;
            let _ = owner.submit(Box::new(move |_| drop(HELD.with(|held| held.borrow_mut().remove(&key)))));
        }
    }
}

/// The job for one call: runs `f` (panics caught) and hands the result to `answer`.
fn job<R: Send + 'static>(
    shared: &Arc<Shared>,
    f: impl FnOnce(&Lua) -> mlua::Result<R> + Send + 'static,
    answer: impl FnOnce(mlua::Result<R>) + Send + 'static,
) -> Job {
    let shared = shared.clone();
    Box::new(move |lua| {
        let result = catch_sync(|| enter(lua, &shared, f)).unwrap_or_else(|panic| Err(mlua::Error::runtime(panic)));
        answer(result)
    })
}

/// Runs `f` on the worker; the outermost call sets (and clears) the deadline.
fn enter<R>(lua: &Lua, shared: &Shared, f: impl FnOnce(&Lua) -> mlua::Result<R>) -> mlua::Result<R> {
    let outermost = DEPTH.get() == 0;
    if outermost {
        *shared.deadline.lock() = Some(Instant::now() + shared.limit);
    }
    DEPTH.set(DEPTH.get() + 1);
    let _leave = Leave { deadline: outermost.then_some(&*shared.deadline) };
    f(lua)
}

/// Undoes `enter`'s bookkeeping however `f` ends.
struct Leave<'a> {
    deadline: Option<&'a Mutex<Option<Instant>>>,
}

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        DEPTH.set(DEPTH.get().saturating_sub(1));
        if let Some(deadline) = self.deadline {
            *deadline.lock() = None;
        }
    }
}

/// A new state: the prelude run, the time-limit hook set.
fn new_state(limit: Duration, watched: Arc<Mutex<Option<Instant>>>) -> mlua::Result<Lua> {
    let lua = Lua::new();
    lua.load(PRELUDE).set_name("=elelem").set_mode(ChunkMode::Text).exec()?;
    // Counting instructions stops a plain loop; watching calls too stops a loop that
    // catches the timeout with `pcall` (the call to `pcall` itself is unprotected).
    // The global hook also covers coroutines.
    let triggers = HookTriggers::new().every_nth_instruction(CHECK_EVERY).on_calls();
    lua.set_global_hook(triggers, move |_, debug| match *watched.lock() {
        Some(deadline) if Instant::now() >= deadline => {
            let source = debug.source().short_src.map(|s| s.into_owned());
            let place = source.zip(debug.current_line()).map(|(s, l)| format!("{s}:{l}: ")).unwrap_or_default();
            Err(mlua::Error::runtime(format!("{place}timed out after {} ms", limit.as_millis())))
        }
        _ => Ok(VmState::Continue),
    })?;
    Ok(lua)
}

/// The worker: runs jobs until the sandbox is gone or abandoned, then closes the state here
/// (its finalizers may loop; nobody waits for this thread).
fn work(lua: Lua, shared: Weak<Shared>, queue: mpsc::Receiver<Job>) {
    let id = shared.upgrade().map_or(0, |s| s.id);
    WORKER.with(|w| *w.borrow_mut() = Some((id, shared.clone(), lua.clone())));
    while let Ok(job) = queue.recv() {
        if shared.upgrade().is_some_and(|s| s.abandoned.lock().is_some()) {
            break;
        }
        job(&lua);
    }
    HELD.with(|held| held.borrow_mut().clear());
    WORKER.with(|w| w.borrow_mut().take());
    drop(lua);
}

/// Runs synchronous plugin code (a command, an observer, a summary) so that it does not
/// hold up an async worker: on a multi-threaded runtime the worker hands its tasks to
/// another thread first; elsewhere (a blocking thread, no runtime, a test's current-thread
/// runtime) it just runs.
pub fn off_async<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox(ms: u64) -> Sandbox {
        Sandbox::new(Duration::from_millis(ms), "test.lua").unwrap()
    }

    #[test]
    fn a_looping_call_is_stopped_and_the_state_stays_usable() {
        let sandbox = sandbox(50);
        let error = sandbox.call(|lua| lua.load("while true do end").set_name("@loop.lua").exec()).unwrap_err();
        assert_eq!(super::super::values::message(&error), "loop.lua:1: timed out after 50 ms");
        let two: i64 = sandbox.call(|lua| lua.load("return 1 + 1").eval()).unwrap();
        assert_eq!(two, 2);
    }

    #[test]
    fn a_loop_in_a_coroutine_or_behind_pcall_is_stopped_too() {
        let sandbox = sandbox(50);
        let code =
            "local co = coroutine.wrap(function() while true do pcall(function() while true do end end) end end) co()";
        assert!(sandbox.call(move |lua| lua.load(code).exec()).is_err());
        assert!(sandbox.abandoned().is_none());
    }

    #[test]
    fn nested_calls_share_the_outer_deadline() {
        let sandbox = Arc::new(sandbox(5000));
        let inner = sandbox.clone();
        let n = sandbox.call(move |_| inner.call(|lua| lua.load("return 3").eval::<i64>())).unwrap();
        assert_eq!(n, 3);
        assert!(sandbox.shared.deadline.lock().is_none());
    }

    /// A FIFO nobody writes to: opening it blocks in C (asleep, so a stuck test thread costs
    /// no CPU while the other tests run).
    #[cfg(unix)]
    fn fifo() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        (dir, path.display().to_string())
    }

    /// Code no hook reaches: a C function that blocks, a finalizer, a message handler.
    #[cfg(unix)]
    #[test]
    fn a_call_the_hook_cannot_stop_is_abandoned_and_the_plugin_disabled() {
        let (_dir, fifo) = fifo();
        let stuck = [
            format!("io.open('{fifo}')"),
            // Bounded, so the abandoned thread stops burning CPU after a few seconds.
            "setmetatable({}, {__gc = function() local t = os.clock() + 3 while os.clock() < t do end end}) \
             collectgarbage()"
                .to_string(),
            "xpcall(function() error('x') end, function() while true do end end)".to_string(),
        ];
        for code in stuck {
            let sandbox = sandbox(100);
            let started = Instant::now();
            let run = code.clone();
            let error = sandbox.call(move |lua| lua.load(run).exec()).unwrap_err();
            assert!(started.elapsed() < Duration::from_secs(2), "{code}: {:?}", started.elapsed());
            let message = super::super::values::message(&error);
            assert!(
                message.starts_with("plugin test.lua is disabled: a call into it ran past the 100 ms limit"),
                "{code}: {message}"
            );
            assert!(sandbox.abandoned().is_some());
            let again = sandbox.call(|lua| lua.load("return 1").eval::<i64>()).unwrap_err();
            assert_eq!(super::super::values::message(&again), message, "later calls fail at once");
            drop(sandbox); // must not wait for the stuck thread
        }
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn an_async_call_is_abandoned_too_and_functions_are_kept_by_key() {
        let sandbox = sandbox(100);
        let f = sandbox.call(|lua| LuaFn::hold(lua.load("return function(x) return x * 2 end").eval()?)).unwrap();
        let g = f.clone();
        assert_eq!(sandbox.run(move |_| g.get()?.call::<i64>(21)).await.unwrap(), 42);
        let (_dir, fifo) = fifo();
        assert!(sandbox.run(move |lua| lua.load(format!("io.open('{fifo}')")).exec()).await.is_err());
        assert!(sandbox.abandoned().is_some());
        drop(f); // a key, dropped off the worker while the state is stuck
        assert!(sandbox.run(|_| Ok(())).await.is_err());
    }
}
