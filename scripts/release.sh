#!/usr/bin/env bash
# Release binaries for Linux (issue 41), which a user installs without a Rust toolchain:
# x86_64 and aarch64, linked against glibc 2.31 (Ubuntu 20.04, Debian 11, RHEL 9 and
# everything newer start them) by zig through cargo-zigbuild (`ziglang` and
# `cargo-zigbuild` from PyPI, in a virtual environment), so the build host's glibc does
# not decide. Packed relocations stay off (build.rs: only with ELELEM_PACK_RELOCS=1, which
# needs glibc 2.36). Each binary's glibc version needs are read back and refused past the
# floor; each archive gets a SHA-256 line.
#
#   scripts/release.sh [TARGET...]
#     TARGET: x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu (default: both)
#     ZIG_VENV=target/cross/venv  OUT=target/dist  GLIBC=2.31  (CARGO_TARGET_DIR is followed)
#
# Writes OUT/elelem-VERSION-TARGET.tar.gz (the binary and README.md) and OUT/SHA256SUMS.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ZIG_VENV="${ZIG_VENV:-$ROOT/target/cross/venv}"
OUT="${OUT:-$ROOT/target/dist}"
GLIBC="${GLIBC:-2.31}"
TARGETS=("$@")
[ "${#TARGETS[@]}" -gt 0 ] || TARGETS=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu)
unset ELELEM_PACK_RELOCS

if [ ! -x "$ZIG_VENV/bin/cargo-zigbuild" ]; then
    [ -x "$ZIG_VENV/bin/python" ] || python3 -m venv "$ZIG_VENV"
    "$ZIG_VENV/bin/python" -m pip install --quiet ziglang cargo-zigbuild
fi
# cargo-zigbuild finds zig as `python3 -m ziglang`, the environment's python first.
export PATH="$ZIG_VENV/bin:$PATH"
rustup target add "${TARGETS[@]}" >/dev/null

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
mkdir -p "$OUT"
for target in "${TARGETS[@]}"; do
    echo "== $target, glibc $GLIBC"
    cargo-zigbuild zigbuild --locked --release --bin elelem --target "$target.$GLIBC"
    binary="${CARGO_TARGET_DIR:-target}/$target/release/elelem"
    # The newest glibc symbol version it asks for, and no GLIBC_ABI_DT_RELR.
    needs="$(readelf -V "$binary" | grep -o 'GLIBC_[0-9A-Z_.]*' | sort -u)"
    if grep -q GLIBC_ABI_DT_RELR <<<"$needs"; then
        echo "$binary needs GLIBC_ABI_DT_RELR (glibc 2.36)" >&2
        exit 1
    fi
    newest="$(grep -o '[0-9][0-9.]*$' <<<"$needs" | sort -V | tail -n 1)"
    if [ "$(printf '%s\n%s\n' "$newest" "$GLIBC" | sort -V | tail -n 1)" != "$GLIBC" ]; then
        echo "$binary needs glibc $newest, past the floor $GLIBC" >&2
        exit 1
    fi
    echo "   needs glibc $newest at most"
    stage="$(mktemp -d)"
    name="elelem-$version-$target"
    mkdir "$stage/$name"
    cp "$binary" README.md "$stage/$name/"
    tar -C "$stage" -czf "$OUT/$name.tar.gz" "$name"
    rm -rf "$stage"
    echo "   $OUT/$name.tar.gz"
done
(cd "$OUT" && sha256sum elelem-*.tar.gz >SHA256SUMS)
cat "$OUT/SHA256SUMS"
