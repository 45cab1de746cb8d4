//! What the built `elelem` binary asks of the system it starts on: by default no packed
//! relocations (`GLIBC_ABI_DT_RELR`, glibc 2.36+), so a binary built on an older
//! distribution (Ubuntu 22.04's glibc 2.35, RHEL 9's 2.34) starts there; `build.rs` packs
//! them only when asked with `ELELEM_PACK_RELOCS=1`.

/// The version needs of an ELF file that name glibc, as the dynamic string table holds
/// them (`GLIBC_2.34`, `GLIBC_ABI_DT_RELR`).
fn glibc_names(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|b| *b == 0)
        .filter(|s| s.starts_with(b"GLIBC_"))
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect()
}

#[test]
fn the_binary_needs_no_packed_relocations_unless_asked() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_elelem")).unwrap();
    let names = glibc_names(&bytes);
    assert!(names.iter().any(|n| n.starts_with("GLIBC_2.")), "no glibc version needs found: {names:?}");
    let packed = names.iter().any(|n| n == "GLIBC_ABI_DT_RELR");
    let asked = option_env!("ELELEM_PACK_RELOCS") == Some("1");
    assert_eq!(packed, asked, "GLIBC_ABI_DT_RELR needed: {packed}, ELELEM_PACK_RELOCS=1 at build: {asked}");
}

#[test]
fn the_scan_finds_version_names_between_nul_bytes() {
    let table = b"\0libc.so.6\0GLIBC_2.34\0GLIBC_ABI_DT_RELR\0memcpy\0";
    assert_eq!(glibc_names(table), ["GLIBC_2.34", "GLIBC_ABI_DT_RELR"]);
}
