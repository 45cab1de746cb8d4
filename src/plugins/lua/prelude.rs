//! What a plugin's Lua state may do, set up before any plugin code runs: code is only ever
//! loaded as text (`load`, `loadfile`, `dofile`, `require`'s Lua searcher; the file itself
//! is loaded in text mode by `file.rs`), since Lua does not check bytecode and a mutated
//! binary chunk crashes the process; and `os.exit`, `os.execute` and `io.popen` raise, since
//! they end elelem with no cleanup or block it in C (and leave processes behind) where no
//! time limit or signal reaches.

/// Run in every new state before any plugin code: loading is text only, and what would end
/// or block elelem from C is replaced by a function that raises.
pub const PRELUDE: &str = r##"
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
