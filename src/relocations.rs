//! The binary's dynamic relocation table, given back once the loader has applied it. The
//! default build does not pack relative relocations (a packed table needs glibc 2.36, see
//! README's install section), so the loader reads a `.rela.dyn` of about 1.3 MB at start
//! and never again: those file pages stayed resident for the whole run. `release` drops
//! them (`madvise(MADV_DONTNEED)` on a private, never-written mapping of the file: a later
//! read would fault them in again from the file, so nothing can break). A leaf.

/// Drops the resident pages of this process's own relocation table; does nothing where
/// there is none to drop (another system, a static or packed build).
pub fn release() {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    if let Some((start, len)) = linux::table() {
        linux::drop_pages(start, len);
    }
}

/// Where this process's relocation table lies in memory (its start and length), if it has one.
#[cfg(all(test, target_os = "linux", target_pointer_width = "64"))]
fn table() -> Option<(usize, usize)> {
    linux::table()
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
mod linux {
    /// `Elf64_Phdr`'s fields, as the loader left them in memory.
    #[repr(C)]
    struct ProgramHeader {
        kind: u32,
        flags: u32,
        offset: u64,
        vaddr: u64,
        paddr: u64,
        file_size: u64,
        mem_size: u64,
        align: u64,
    }

    /// `Elf64_Dyn`.
    #[repr(C)]
    struct Dynamic {
        tag: i64,
        value: u64,
    }

    const PT_DYNAMIC: u32 = 2;
    const PT_PHDR: u32 = 6;
    const DT_NULL: i64 = 0;
    const DT_RELA: i64 = 7;
    const DT_RELASZ: i64 = 8;

    pub(super) fn table() -> Option<(usize, usize)> {
        // SAFETY: getauxval only reads the auxiliary vector the kernel gave this process.
        let (phdr, count) = unsafe { (libc::getauxval(libc::AT_PHDR), libc::getauxval(libc::AT_PHNUM)) };
        if phdr == 0 || count == 0 || count > 256 {
            return None;
        }
        // SAFETY: AT_PHDR and AT_PHNUM describe the program headers of this executable,
        // mapped for the whole life of the process.
        let headers = unsafe { std::slice::from_raw_parts(phdr as usize as *const ProgramHeader, count as usize) };
        let bias = (phdr as usize).checked_sub(headers.iter().find(|h| h.kind == PT_PHDR)?.vaddr as usize)?;
        let dynamic = bias.checked_add(headers.iter().find(|h| h.kind == PT_DYNAMIC)?.vaddr as usize)?;
        let (mut rela, mut size) = (None, None);
        let mut entry = dynamic as *const Dynamic;
        for _ in 0..4096 {
            // SAFETY: the dynamic section is an array of entries ended by DT_NULL, mapped
            // for the life of the process; the loop stops at DT_NULL (or after a bound).
            let Dynamic { tag, value } = unsafe { std::ptr::read(entry) };
            match tag {
                DT_NULL => break,
                DT_RELA => rela = Some(value as usize),
                DT_RELASZ => size = Some(value as usize),
                _ => {}
            }
            // SAFETY: still inside the array: DT_NULL has not come yet.
            entry = unsafe { entry.add(1) };
        }
        let (rela, size) = (rela?, size?);
        // The loader may have moved the address by the load bias in place already.
        let start = if rela < bias { rela.checked_add(bias)? } else { rela };
        Some((start, size))
    }

    /// Drops the whole pages inside `start..start + len`.
    pub(super) fn drop_pages(start: usize, len: usize) {
        // SAFETY: sysconf only returns a number.
        let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
            page if page > 0 => page as usize,
            _ => return,
        };
        let Some(end) = start.checked_add(len) else { return };
        let first = start.div_ceil(page) * page;
        let last = end / page * page;
        if last > first {
            // SAFETY: the range is whole pages of the relocation table, a read-only private
            // mapping of the executable that nothing writes: dropping them only means a later
            // read (if any) faults them in from the file again.
            unsafe { libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_DONTNEED) };
        }
    }
}

#[cfg(all(test, target_os = "linux", target_pointer_width = "64"))]
mod tests {
    /// The resident size (KiB) of this process's mapping that holds `address`
    /// (`/proc/self/smaps`: mincore would tell the page cache's, not this process's).
    fn resident_kib(address: usize) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().and_then(|r| r.split_once('-'));
            if let Some((from, to)) = range.filter(|_| !line.ends_with(" kB")) {
                let (from, to) = (usize::from_str_radix(from, 16), usize::from_str_radix(to, 16));
                inside = matches!((from, to), (Ok(from), Ok(to)) if from <= address && address < to);
            } else if let Some(rss) = line.strip_prefix("Rss:").filter(|_| inside) {
                return rss.trim().trim_end_matches("kB").trim().parse().unwrap();
            }
        }
        panic!("no mapping holds {address:#x}")
    }

    #[test]
    fn the_relocation_table_is_found_and_its_pages_given_back() {
        // This test binary is linked like elelem (a position-independent executable).
        let Some((start, len)) = super::table() else { panic!("no relocation table found") };
        assert!(len > 64 * 1024, "a table of {len} bytes");
        // Read by the loader at start: resident before.
        let before = resident_kib(start);
        super::release();
        let after = resident_kib(start);
        let table_kib = (len / 1024) as u64;
        assert!(before >= table_kib, "the table was never resident: {before} KiB");
        assert!(
            after + table_kib * 9 / 10 <= before,
            "{before} KiB resident before, {after} after: table {table_kib} KiB"
        );
        // A read afterwards is served from the file again.
        // SAFETY: `start` is the table's first entry, 8-byte aligned, mapped for the process.
        let first = unsafe { std::ptr::read(start as *const u64) };
        assert!(first > 0);
    }
}
