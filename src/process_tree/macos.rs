//! The processes of the machine as macOS lists them (`proc_listallpids`, and
//! `proc_pidinfo(PROC_PIDTBSDINFO)` for each): the same `Proc` that Linux reads from `/proc`,
//! so finding and killing a command's tree works alike. macOS has no child subreaper: an
//! orphan goes to launchd, so only what is still below elelem, or in the command's process
//! group, is found.

use super::Proc;

/// The process `pid`, if it exists (and this user may look at it).
pub fn read(pid: i32) -> Option<Proc> {
    if pid <= 0 {
        return None;
    }
    // SAFETY: `info` is a plain C struct of integers, valid when zeroed; proc_pidinfo writes
    // at most `size` bytes into it and returns how many it wrote.
    let info = unsafe {
        let mut info: libc::proc_bsdinfo = std::mem::zeroed();
        let size = i32::try_from(std::mem::size_of::<libc::proc_bsdinfo>()).ok()?;
        let wrote = libc::proc_pidinfo(pid, libc::PROC_PIDTBSDINFO, 0, (&raw mut info).cast(), size);
        if wrote != size {
            return None;
        }
        info
    };
    // SAFETY: getsid(2) only reads the session id of the process named.
    let sid = unsafe { libc::getsid(pid) };
    Some(Proc {
        pid,
        ppid: i32::try_from(info.pbi_ppid).ok()?,
        pgrp: i32::try_from(info.pbi_pgid).ok()?,
        sid: if sid < 0 { 0 } else { sid },
        zombie: info.pbi_status == libc::SZOMB,
        start: info.pbi_start_tvsec.saturating_mul(1_000_000).saturating_add(info.pbi_start_tvusec),
    })
}

/// Every process listed now.
pub fn snapshot() -> Vec<Proc> {
    // SAFETY: with a null buffer proc_listallpids only returns how many processes there are.
    let count = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) };
    let Ok(count) = usize::try_from(count) else { return Vec::new() };
    // Room for the processes started between the two calls.
    let mut pids: Vec<libc::pid_t> = vec![0; count + 64];
    let Ok(bytes) = i32::try_from(pids.len() * std::mem::size_of::<libc::pid_t>()) else { return Vec::new() };
    // SAFETY: the buffer holds `bytes` bytes; the call writes at most that many pids and
    // returns how many it wrote.
    let listed = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast(), bytes) };
    let Ok(listed) = usize::try_from(listed) else { return Vec::new() };
    pids.truncate(listed.min(pids.len()));
    pids.into_iter().filter_map(read).collect()
}
