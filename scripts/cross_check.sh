#!/usr/bin/env bash
# `cargo check` of elelem for the systems it is not built on here (issue 41): macOS
# (x86_64-apple-darwin, aarch64-apple-darwin) and Windows (x86_64-pc-windows-gnu): the
# library and the binary users get, at clippy's level with warnings denied when
# RUSTC_WORKSPACE_WRAPPER and CLIPPY_ARGS say so (as .ci/run sets); for x86_64 macOS and for
# Windows the unit tests too. The integration tests drive the Linux binary (namespaces, Landlock, /proc)
# and are checked on Linux only.
#
# The C dependencies (Lua, oniguruma, ring) are compiled for macOS by zig (`python -m
# ziglang cc`, the `ziglang` package from PyPI, in the virtual environment ZIG_VENV) and
# for Windows by mingw-w64 (`x86_64-w64-mingw32-gcc`). Nothing is linked: a check only
# compiles. Installing them is the caller's part (.ci/run does it).
#
#   scripts/cross_check.sh [TARGET...]   (default: the three; CROSS_TARGET_DIR=target/cross)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ZIG_VENV="${ZIG_VENV:-$ROOT/target/cross/venv}"
TARGET_DIR="${CROSS_TARGET_DIR:-$ROOT/target/cross}"
TARGETS=("$@")
[ "${#TARGETS[@]}" -gt 0 ] || TARGETS=(x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu)

# zig as a C compiler for one target: cc-rs runs `$CC` with its own flags; a wrapper
# script gives zig its target (and drops the flags zig's clang does not take for it).
WRAP="$TARGET_DIR/cc-wrappers"
mkdir -p "$WRAP"
zig_wrapper() { # NAME ZIG_TARGET
    cat >"$WRAP/$1" <<EOF
#!/bin/sh
# cc-rs's --target=x86_64-apple-macosx is no target zig knows; -target says it instead.
for arg in "\$@"; do
    shift
    case "\$arg" in --target=*) ;; *) set -- "\$@" "\$arg" ;; esac
done
exec "$ZIG_VENV/bin/python" -m ziglang cc -target $2 "\$@"
EOF
    chmod +x "$WRAP/$1"
}
zig_ar() {
    cat >"$WRAP/zig-ar" <<EOF
#!/bin/sh
exec "$ZIG_VENV/bin/python" -m ziglang ar "\$@"
EOF
    chmod +x "$WRAP/zig-ar"
}

check() { # TARGET [--unit-tests]
    echo "== cargo check --target $1"
    cargo check --locked --lib --bins --target "$1" --target-dir "$TARGET_DIR"
    if [ "${2:-}" = --unit-tests ]; then
        echo "== cargo check --target $1 --lib --profile test (the unit tests)"
        cargo check --locked --lib --profile test --target "$1" --target-dir "$TARGET_DIR"
    fi
}

for target in "${TARGETS[@]}"; do
    case "$target" in
        *-apple-darwin)
            [ -x "$ZIG_VENV/bin/python" ] || { echo "no zig: pip install ziglang into $ZIG_VENV" >&2; exit 1; }
            arch="${target%%-*}"
            zig_wrapper "cc-$target" "$arch-macos"
            zig_ar
            var="${target//-/_}"
            # The unit tests once (Intel's): aarch64 differs from it in nothing they see.
            tests=""
            [ "$arch" = x86_64 ] && tests=--unit-tests
            (export "CC_$var=$WRAP/cc-$target" "AR_$var=$WRAP/zig-ar"; check "$target" $tests)
            ;;
        *-windows-gnu)
            command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "no mingw-w64 (gcc-mingw-w64-x86-64)" >&2; exit 1; }
            check "$target" --unit-tests
            ;;
        *)
            check "$target"
            ;;
    esac
done
