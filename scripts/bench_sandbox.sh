#!/usr/bin/env bash
# What the sandbox for `execute` costs per command (issue 29): one `ask` run whose stub
# script makes N `execute` calls of `true`, one per model step, timed with the sandbox off
# (`--sandbox off --allow execute`) and on (the default, workspace-write); prints the wall
# time per command of each and the difference. The rule set is built once per session, so
# the difference is the per-command part: namespaces, mounts, restriction (the child is
# started by clone(CLONE_VM|CLONE_VFORK), and its leftover jobs end with its PID namespace). ROUNDS runs of each, interleaved (off, on, off, on, ...) so a
# busy machine weighs on both alike; prints the median and the spread (min-max).
#
#   scripts/bench_sandbox.sh [N=100] [ROUNDS=5] [ELELEM=target/debug/elelem]
set -euo pipefail

N="${1:-100}"
ROUNDS="${2:-5}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ELELEM="$(realpath "${ELELEM:-$ROOT/target/debug/elelem}")"
[ -x "$ELELEM" ] || { echo "no elelem binary at $ELELEM (cargo build first)" >&2; exit 1; }
# Not in the temp directory: a home there would be split out of the temp grant (see
# src/tools/sandbox/rules.rs), which a real home is not.
WORK="$(mktemp -d -p "$ROOT/target")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/home" "$WORK/project/.git/hooks" "$WORK/project/src"
python3 - "$N" > "$WORK/script.json" <<'PY'
import json, sys
n = int(sys.argv[1])
steps = [{"events": [{"type": "doing", "id": f"t{i}", "name": "execute", "arguments": {"command": "true"}}]}
         for i in range(n)]
steps.append({"events": [{"type": "saying", "text": "done"}]})
print(json.dumps(steps))
PY

run() {
    local start end
    start=$(date +%s%N)
    (cd "$WORK/project" && HOME="$WORK/home" ELELEM_STUB_SCRIPT="$WORK/script.json" ELELEM_MAX_STEPS=$((N + 5)) \
        "$ELELEM" -p stub ask "$@" go > /dev/null 2>&1)
    end=$(date +%s%N)
    echo $(( (end - start) / 1000 ))
}

offs=()
ons=()
for _ in $(seq "$ROUNDS"); do
    offs+=("$(run --sandbox off --allow execute)")
    ons+=("$(run)")
done
# Median, min and max per command (µs totals in, ms per command out).
stats() {
    printf '%s\n' "$@" | sort -n | awk -v n="$N" '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.3f ms (min %.3f, max %.3f)", m / n / 1000, v[1] / n / 1000, v[NR] / n / 1000 }'
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf 'commands: %d, rounds: %d (interleaved)\n' "$N" "$ROUNDS"
printf 'sandbox off: %s per command\n' "$(stats "${offs[@]}")"
printf 'sandbox on:  %s per command\n' "$(stats "${ons[@]}")"
awk -v on="$(median "${ons[@]}")" -v off="$(median "${offs[@]}")" -v n="$N" \
    'BEGIN { printf "difference of the medians: %.3f ms per command\n", (on - off) / n / 1000 }'
