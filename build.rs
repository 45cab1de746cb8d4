//! Build script: packs the binary's relative relocations (`-z pack-relative-relocs`, DT_RELR)
//! only when asked (`ELELEM_PACK_RELOCS=1`) and the target is Linux with glibc. A packed
//! binary needs glibc 2.36 (`GLIBC_ABI_DT_RELR`), so the default build starts on older
//! systems too (Ubuntu 22.04's 2.35, RHEL 9's 2.34); docs/performance.md gives the
//! RSS it saves.

fn main() {
    println!("cargo:rerun-if-env-changed=ELELEM_PACK_RELOCS");
    let asked = std::env::var("ELELEM_PACK_RELOCS").is_ok_and(|v| v == "1");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if asked && os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
