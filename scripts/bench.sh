#!/usr/bin/env bash
# The benchmark table (issue 13): every measure of docs/performance.md, one
# Markdown table on stdout, medians of several runs.
#   - headless `ask` and `ask --json` against a local OpenAI-protocol server
#     (examples/sse_mock.rs) streaming a ~1 MB Markdown reply in 32-character SSE events,
#     one event per write, and the line REPL on the same: wall, CPU (user+sys) and peak RSS;
#   - the TUI in a pseudo-terminal (benches/e2e/): launch to prompt, idle CPU, the same
#     1 MB over HTTP as a burst and 1 ms apart, a width change of it, a 200 KB code block,
#     long blocks of each shape against short paragraphs (CPU, memory, frames, bytes), and
#     keystroke → frame latency (p50/p99/max) while the paced reply streams;
#   - the `grep` tool against GNU `grep -rn` on a generated ~10k-file tree
#     (scripts/bench_grep.sh).
#
#   scripts/bench.sh [--runs 5] [--pace-ms 0] [--no-build] [--headless-only]
#
# Builds target/release/elelem and the mock first (unless --no-build); ELELEM=path and
# SSE_MOCK=path run other builds (e.g. a saved binary from before a change). CPU times
# come from wait4 (scripts/rusage.py, Python 3), to the microsecond.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS=5
PACE_MS=0
BUILD=1
HEADLESS_ONLY=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --pace-ms) PACE_MS="$2"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --headless-only) HEADLESS_ONLY=1; shift ;;
        *) echo "usage: $0 [--runs N] [--pace-ms MS] [--no-build] [--headless-only]" >&2; exit 2 ;;
    esac
done

cd "$ROOT"
if [[ $BUILD == 1 ]]; then
    cargo build --release --quiet --bin elelem --example sse_mock
fi
ELELEM="${ELELEM:-$ROOT/target/release/elelem}"
MOCK="${SSE_MOCK:-$ROOT/target/release/examples/sse_mock}"

WORK="$(mktemp -d)"
MOCK_PID=""
cleanup() {
    if [[ -n "$MOCK_PID" ]]; then kill "$MOCK_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

"$MOCK" --pace-ms "$PACE_MS" >"$WORK/url" &
MOCK_PID=$!
for _ in $(seq 100); do
    [[ -s "$WORK/url" ]] && break
    sleep 0.05
done
URL="$(head -1 "$WORK/url")"
[[ -n "$URL" ]] || { echo "the mock server did not start" >&2; exit 1; }

# The median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One row: runs `elelem ask` with the given extra flags HEADLESS_RUNS times (`--repl`: the
# line REPL instead, the prompt on its stdin). A run takes ~0.1 s, and its CPU time depends
# on how the mock's writes interleave with its reads on two cores (0.056-0.095 s over 20
# runs of one build): three times as many runs as the TUI rows.
measure() {
    local label="$1"; shift
    local args=(ask -p openai "$@" "write a long reply") stdin=()
    if [[ "${1:-}" == --repl ]]; then
        args=(-p openai)
        stdin=(--stdin "$WORK/prompt")
    fi
    : >"$WORK/times"
    for _ in $(seq "$HEADLESS_RUNS"); do
        env -i PATH="$PATH" HOME="$WORK" OPENAI_BASE_URL="$URL" OPENAI_API_KEY=x \
            python3 "$ROOT/scripts/rusage.py" "$WORK/times" "${stdin[@]}" -- \
            "$ELELEM" "${args[@]}" >"$WORK/out" 2>"$WORK/err" || {
            echo "$label: elelem failed:" >&2; cat "$WORK/err" >&2; exit 1; }
        grep -q "END-OF-REPLY" "$WORK/out" || { echo "$label: the reply is incomplete" >&2; exit 1; }
    done
    local wall cpu rss
    wall=$(awk '{ print $1 }' "$WORK/times" | median)
    cpu=$(awk '{ print $2 }' "$WORK/times" | median)
    range=$(awk 'NR == 1 || $2 < lo { lo = $2 } NR == 1 || $2 > hi { hi = $2 } END { printf "%.3f–%.3f", lo, hi }' "$WORK/times")
    rss=$(awk '{ print $3 / 1024 }' "$WORK/times" | median)
    printf '| %s | %.3f s wall, %.3f s CPU (%s), %.1f MB peak | %s |\n' "$label" "$wall" "$cpu" "$range" "$rss" "$GOAL"
}

pace="burst"
[[ "$PACE_MS" != 0 ]] && pace="paced ${PACE_MS} ms"
cpu_model="$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
memory="$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($cpu_model), $memory, $(uname -sr);"
HEADLESS_RUNS=$((RUNS * 3))
echo "elelem $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), medians of $RUNS runs ($HEADLESS_RUNS for the headless rows)."
echo
echo "| measure | result | goal |"
echo "|---|---|---|"
GOAL="≤ 0.1 s wall, ≤ 0.08 s CPU, ≤ 15 MB"
measure "headless \`ask\` 1 MB, 32-char SSE events, $pace"
measure "headless \`ask --json\` 1 MB, 32-char SSE events, $pace" --json
echo "write a long reply" >"$WORK/prompt"
measure "line REPL (stdin not a terminal) 1 MB, 32-char SSE events, $pace" --repl
[[ $HEADLESS_ONLY == 1 ]] && exit 0
# The TUI rows: the e2e bench drives the release binary in a pseudo-terminal.
ELELEM_BENCH_BIN="$ELELEM" ELELEM_SSE_MOCK="$MOCK" ELELEM_BENCH_RUNS="$RUNS" \
    cargo bench --quiet --bench e2e 2>"$WORK/bench-err" | grep '^|' || {
    echo "the TUI bench failed:" >&2; cat "$WORK/bench-err" >&2; exit 1; }
"$ROOT/scripts/bench_grep.sh" "${GREP_TREE:-/tmp/elelem-grep-tree}" "$RUNS" | grep '^|'
