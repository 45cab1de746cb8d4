#!/usr/bin/env bash
# The shell steps of the GitHub Action (action.yml at the repository root), kept here so
# they can be run and tested outside GitHub (tests/it/repo/action.rs runs them with the
# environment variables a runner sets).
#
#   scripts/action.sh release   install the release binary for this runner, when one exists
#   scripts/action.sh build     else cargo install from this repository (its root cached)
#   scripts/action.sh run       elelem ask in the checked-out repository
#
# Read from the runner: RUNNER_OS (Linux, macOS, Windows), RUNNER_ARCH (X64, ARM64),
# RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE,
# GITHUB_ACTION_PATH (this repository, checked out by the runner), and from action.yml:
# ACTION_REPOSITORY / ACTION_REF (where the release is: github.action_repository and
# github.action_ref) and the inputs as INPUT_PROMPT, INPUT_PROVIDER, INPUT_MODEL,
# INPUT_JSON_SCHEMA, INPUT_ALLOW, INPUT_SANDBOX, INPUT_API_KEY.
# ELELEM_RELEASE_URL replaces the release download URL (a mirror, or file:// in tests).
set -euo pipefail

ACTION_PATH="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
ROOT="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/elelem"
# The step summary takes 1 MiB a step; the reply is cut well before.
SUMMARY_MAX=900000

die() {
    echo "::error::elelem action: $*" >&2
    exit 1
}

# `name=value` to GITHUB_OUTPUT, in the multi-line form with a delimiter the value lacks.
output() {
    local name="$1" value="$2" delimiter
    [ -n "${GITHUB_OUTPUT:-}" ] || die "GITHUB_OUTPUT is not set"
    delimiter="ELELEM_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
    while [[ "$value" == *"$delimiter"* ]]; do
        delimiter="${delimiter}_"
    done
    printf '%s<<%s\n%s\n%s\n' "$name" "$delimiter" "$value" "$delimiter" >>"$GITHUB_OUTPUT"
}

# The Rust target this runner's release binary is built for (empty: none is made).
target() {
    case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
        Linux/X64) echo x86_64-unknown-linux-gnu ;;
        Linux/ARM64) echo aarch64-unknown-linux-gnu ;;
        macOS/X64) echo x86_64-apple-darwin ;;
        macOS/ARM64) echo aarch64-apple-darwin ;;
        *) echo "" ;;
    esac
}

version() {
    sed -n 's/^version = "\(.*\)"$/\1/p' "$ACTION_PATH/Cargo.toml" | head -n 1
}

sha256() {
    if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

# Puts ROOT/bin on the PATH of the following steps (and of this one).
on_path() {
    [ -n "${GITHUB_PATH:-}" ] && echo "$ROOT/bin" >>"$GITHUB_PATH"
    export PATH="$ROOT/bin:$PATH"
}

# Installs elelem-VERSION-TARGET.tar.gz from the release, checked against its SHA256SUMS.
# Says installed=true or false, and the cache key and root the build step uses.
release() {
    local version target base name dir
    version="$(version)"
    target="$(target)"
    output cache-key "elelem-$version-${RUNNER_OS:-}-${RUNNER_ARCH:-}-$(sha256 "$ACTION_PATH/Cargo.lock")"
    output root "$ROOT"
    base="${ELELEM_RELEASE_URL:-}"
    if [ -z "$base" ] && [ -n "${ACTION_REPOSITORY:-}" ] && [ -n "${ACTION_REF:-}" ]; then
        base="https://github.com/$ACTION_REPOSITORY/releases/download/$ACTION_REF"
    fi
    name="elelem-$version-$target"
    if [ -z "$target" ] || [ -z "$base" ]; then
        echo "elelem: no release binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}; building it"
        output installed false
        return
    fi
    dir="$(mktemp -d)"
    if ! curl -fsSL --retry 2 -o "$dir/$name.tar.gz" "$base/$name.tar.gz" \
        || ! curl -fsSL --retry 2 -o "$dir/SHA256SUMS" "$base/SHA256SUMS"; then
        echo "elelem: no release $name at $base; building it"
        rm -rf "$dir"
        output installed false
        return
    fi
    local want
    want="$(awk -v f="$name.tar.gz" '$2 == f || $2 == "*" f { print $1 }' "$dir/SHA256SUMS")"
    [ -n "$want" ] || die "SHA256SUMS at $base has no line for $name.tar.gz"
    [ "$(sha256 "$dir/$name.tar.gz")" = "$want" ] || die "$name.tar.gz does not match its SHA-256 in SHA256SUMS"
    tar -xzf "$dir/$name.tar.gz" -C "$dir"
    mkdir -p "$ROOT/bin"
    install -m 755 "$dir/$name/elelem" "$ROOT/bin/elelem"
    rm -rf "$dir"
    on_path
    echo "elelem: installed $name from $base"
    output installed true
}

# cargo install from this repository into ROOT (which the action caches), unless the
# cached binary is already this version.
build() {
    local version
    version="$(version)"
    if [ -x "$ROOT/bin/elelem" ] && [ "$("$ROOT/bin/elelem" --version 2>/dev/null)" = "elelem $version" ]; then
        echo "elelem: $version from the cache"
    else
        command -v cargo >/dev/null || die "no release binary for this runner and no cargo to build one"
        cargo install --locked --path "$ACTION_PATH" --root "$ROOT" --bin elelem
    fi
    on_path
}

# The provider's key variable, from the api-key input.
key_variable() {
    case "${INPUT_PROVIDER:-}" in
        anthropic) echo ANTHROPIC_API_KEY ;;
        openai) echo OPENAI_API_KEY ;;
        *) echo "" ;;
    esac
}

# `elelem ask` in the workspace: the reply (or the JSON value) to the outputs and the job
# summary, elelem's exit status kept.
run() {
    local prompt="${INPUT_PROMPT:-}" args=(ask) status=0 out err reply item
    [ -n "${prompt//[[:space:]]/}" ] || die "the prompt input is empty"
    [ -n "${INPUT_PROVIDER:-}" ] && args+=(--provider "$INPUT_PROVIDER")
    [ -n "${INPUT_MODEL:-}" ] && args+=(--model "$INPUT_MODEL")
    [ -n "${INPUT_SANDBOX:-}" ] && args+=(--sandbox "$INPUT_SANDBOX")
    [ -n "${INPUT_JSON_SCHEMA:-}" ] && args+=(--json-schema "$INPUT_JSON_SCHEMA")
    # Tools to allow: one a line, or separated by commas on one line.
    local allow="${INPUT_ALLOW:-}"
    [[ "$allow" == *$'\n'* ]] || allow="${allow//,/$'\n'}"
    while IFS= read -r item; do
        item="${item#"${item%%[![:space:]]*}"}"
        item="${item%"${item##*[![:space:]]}"}"
        [ -n "$item" ] && args+=(--allow "$item")
    done <<<"$allow"
    if [ -n "${INPUT_API_KEY:-}" ]; then
        local variable
        variable="$(key_variable)"
        [ -n "$variable" ] || die "api-key needs the provider input: anthropic or openai"
        echo "::add-mask::$INPUT_API_KEY"
        export "$variable=$INPUT_API_KEY"
    fi
    command -v elelem >/dev/null || die "elelem is not installed (the release or build step did not run)"
    out="$(mktemp)"
    err="$(mktemp)"
    cd "${GITHUB_WORKSPACE:-.}"
    # Progress goes to the log as it comes (and is kept for the summary when the run fails).
    set +e
    elelem "${args[@]}" -- "$prompt" </dev/null 2>&1 >"$out" | tee "$err" >&2
    status="${PIPESTATUS[0]}"
    set -e
    reply="$(cat "$out")"
    output reply "$reply"
    if [ -n "${INPUT_JSON_SCHEMA:-}" ]; then
        output json "$reply"
    fi
    summary "$prompt" "$reply" "$status" "$err"
    rm -f "$out" "$err"
    return "$status"
}

# The job summary: the prompt, then the reply (JSON in a code block), or the failure and
# the end of what elelem said.
summary() {
    local prompt="$1" reply="$2" status="$3" err="$4"
    [ -n "${GITHUB_STEP_SUMMARY:-}" ] || return 0
    {
        echo "### elelem"
        echo
        printf '%s\n' "$prompt" | head -c 2000 | sed 's/^/> /'
        echo
        if [ "$status" -ne 0 ]; then
            echo "**elelem failed (exit $status).** The end of its log:"
            echo
            echo '```'
            tail -n 20 "$err" | head -c 20000
            echo '```'
        elif [ -n "${INPUT_JSON_SCHEMA:-}" ]; then
            echo '```json'
            printf '%s\n' "$reply" | head -c "$SUMMARY_MAX"
            echo '```'
        else
            printf '%s\n' "$reply" | head -c "$SUMMARY_MAX"
        fi
        echo
    } >>"$GITHUB_STEP_SUMMARY"
}

case "${1:-}" in
    release) release ;;
    build) build ;;
    run) run ;;
    *) die "usage: scripts/action.sh release|build|run" ;;
esac
