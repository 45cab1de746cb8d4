#!/usr/bin/env bash
# What the sandbox for `execute` costs per command (issue 29): one `ask` run whose stub
# script makes N `execute` calls of `true`, one per model step, timed with the sandbox off
# (`--sandbox off --allow execute`) and on (the default, workspace-write); prints the wall
# time per command of each and the difference. The rule set is built once per session, so
# the difference is the per-command part: namespaces, mounts, restriction, and ending the
# command's leftover jobs.
#
#   scripts/bench_sandbox.sh [N=100] [ELELEM=target/debug/elelem]
set -euo pipefail

N="${1:-100}"
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

off=$(run --sandbox off --allow execute)
on=$(run)
off2=$(run --sandbox off --allow execute)
on2=$(run)
off=$(( off < off2 ? off : off2 ))
on=$(( on < on2 ? on : on2 ))
printf 'commands: %d\n' "$N"
printf 'sandbox off: %d.%03d ms per command\n' $((off / N / 1000)) $((off / N % 1000))
printf 'sandbox on:  %d.%03d ms per command\n' $((on / N / 1000)) $((on / N % 1000))
printf 'difference:  %d.%03d ms per command\n' $(((on - off) / N / 1000)) $(((on - off) / N % 1000))
