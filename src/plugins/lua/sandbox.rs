//! One plugin file's Lua state and the rules of every call into it: one caller at a time
//! (re-entrant, so Lua calling Rust calling Lua on the same thread works), a deadline per
//! outermost call enforced by an instruction-count hook (a looping handler is stopped with
//! an error), and never on an async worker thread (`off_async`). Code is only ever loaded
//! as text (`load`, `loadfile`, `dofile`, `require` and the file itself): a binary chunk is
//! refused, since Lua does not check bytecode and a mutated one crashes the process. A
//! plugin may not end or block elelem from C: `os.exit`, `os.execute` and `io.popen` raise.

use mlua::chunk::ChunkMode;
use mlua::{HookTriggers, Lua, VmState};
use parking_lot::{Mutex, ReentrantMutex};
use std::cell::Cell;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one call into a plugin may run unless `ELELEM_LUA_TIMEOUT_MS` says otherwise.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(2);
/// VM instructions between two looks at the clock.
const CHECK_EVERY: u32 = 1000;

/// `ELELEM_LUA_TIMEOUT_MS`, else the default.
pub fn limit_from_env() -> Duration {
    std::env::var("ELELEM_LUA_TIMEOUT_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .map_or(DEFAULT_LIMIT, Duration::from_millis)
}

/// Run in every new state before any plugin code: loading is text only, and what would end
/// or block elelem from C is replaced by a function that raises.
const PRELUDE: &str = r##"
local load, loadfile, select, error, searchpath = load, loadfile, select, error, package.searchpath
local function text_only(loader)
  return function(chunk, name, mode, ...)
    -- An explicit nil environment is not the same as none: keep the arity.
    if select("#", ...) > 0 then return loader(chunk, name, "t", ...) end
    return loader(chunk, name, "t")
  end
end
_G.load = text_only(load)
local loadfile_t = function(file, mode, ...)
  if select("#", ...) > 0 then return loadfile(file, "t", ...) end
  return loadfile(file, "t")
end
_G.loadfile = loadfile_t
_G.dofile = function(file)
  local chunk, message = loadfile(file, "t")
  if not chunk then error(message, 2) end
  return chunk()
end
package.searchers[2] = function(name)
  local path, message = searchpath(name, package.path)
  if not path then return message end
  local chunk, failure = loadfile(path, "t")
  if not chunk then
    error(("error loading module '%s' from file '%s':\n\t%s"):format(name, path, failure), 2)
  end
  return chunk, path
end
local function refused(name)
  return function() error(name .. " is not available to plugins", 2) end
end
os.exit, os.execute, io.popen = refused("os.exit"), refused("os.execute"), refused("io.popen")
"##;

/// A Lua state with a time limit on every call.
pub struct Sandbox {
    lua: Lua,
    /// How deep this thread is in calls; the outermost call sets the deadline.
    depth: ReentrantMutex<Cell<u32>>,
    deadline: Arc<Mutex<Option<Instant>>>,
    limit: Duration,
}

impl Sandbox {
    pub fn new(limit: Duration) -> mlua::Result<Sandbox> {
        let lua = Lua::new();
        lua.load(PRELUDE).set_name("=elelem").set_mode(ChunkMode::Text).exec()?;
        let deadline: Arc<Mutex<Option<Instant>>> = Arc::new(Mutex::new(None));
        let watched = deadline.clone();
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
        Ok(Sandbox { lua, depth: ReentrantMutex::new(Cell::new(0)), deadline, limit })
    }

    /// Runs `f` against the state within the time limit (the limit of the outermost call
    /// when calls nest).
    pub fn call<R>(&self, f: impl FnOnce(&Lua) -> mlua::Result<R>) -> mlua::Result<R> {
        let depth = self.depth.lock();
        let outermost = depth.get() == 0;
        if outermost {
            *self.deadline.lock() = Some(Instant::now() + self.limit);
        }
        depth.set(depth.get() + 1);
        let _leave = Leave { depth: &depth, deadline: outermost.then_some(&*self.deadline) };
        f(&self.lua)
    }
}

/// Undoes `call`'s bookkeeping however `f` ends.
struct Leave<'a> {
    depth: &'a Cell<u32>,
    deadline: Option<&'a Mutex<Option<Instant>>>,
}

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.depth.set(self.depth.get().saturating_sub(1));
        if let Some(deadline) = self.deadline {
            *deadline.lock() = None;
        }
    }
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

    #[test]
    fn a_looping_call_is_stopped_and_the_state_stays_usable() {
        let sandbox = Sandbox::new(Duration::from_millis(50)).unwrap();
        let error = sandbox.call(|lua| lua.load("while true do end").set_name("@loop.lua").exec()).unwrap_err();
        assert_eq!(super::super::values::message(&error), "loop.lua:1: timed out after 50 ms");
        let two: i64 = sandbox.call(|lua| lua.load("return 1 + 1").eval()).unwrap();
        assert_eq!(two, 2);
    }

    #[test]
    fn a_loop_in_a_coroutine_or_behind_pcall_is_stopped_too() {
        let sandbox = Sandbox::new(Duration::from_millis(50)).unwrap();
        let code =
            "local co = coroutine.wrap(function() while true do pcall(function() while true do end end) end end) co()";
        assert!(sandbox.call(|lua| lua.load(code).exec()).is_err());
    }

    #[test]
    fn nested_calls_share_the_outer_deadline() {
        let sandbox = Arc::new(Sandbox::new(Duration::from_secs(5)).unwrap());
        let inner = sandbox.clone();
        let n = sandbox.call(|_| inner.call(|lua| lua.load("return 3").eval::<i64>())).unwrap();
        assert_eq!(n, 3);
        assert!(sandbox.deadline.lock().is_none());
    }
}
