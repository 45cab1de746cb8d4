#!/usr/bin/env bash
# What one long streamed block of each shape costs the TUI's state and drawing, in-process
# (benches/shapes.rs: four turns of 3,000 one-line chunks through App, a 120x40 frame every
# 65 chunks), against short paragraphs: the median time of several runs and, where valgrind
# is installed, the instructions counted by callgrind (the same for the same build and input,
# however busy the machine is). Prints one Markdown table.
#
#   scripts/bench_shapes.sh [--runs 5] [--profile bench|quick]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS=5
PROFILE=bench
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --profile) PROFILE="$2"; shift 2 ;;
        *) echo "usage: $0 [--runs N] [--profile bench|quick]" >&2; exit 2 ;;
    esac
done

cd "$ROOT"
BIN="$(cargo bench --profile "$PROFILE" --bench shapes --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "shapes":
        print(m["executable"])')"
[[ -x "$BIN" ]] || { echo "could not build benches/shapes.rs" >&2; exit 1; }

# The bench prints a line a shape, short paragraphs first: "shape NAME: MS ms ...".
declare -A TIME INSNS
SHAPES=()
while read -r _ shape ms _; do
    SHAPES+=("${shape%:}")
    TIME[${shape%:}]="$ms"
done < <(SHAPE_RUNS="$RUNS" "$BIN")
if command -v valgrind >/dev/null; then
    for shape in "${SHAPES[@]}"; do
        out="$(mktemp)"
        SHAPE="$shape" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" 2>"$out" >/dev/null
        INSNS[$shape]="$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out")"
        rm -f "$out"
    done
fi

echo "| shape (4 turns x 3,000 chunks, in-process) | time, median of $RUNS | x paragraphs | instructions | x paragraphs |"
echo "|---|---|---|---|---|"
for shape in "${SHAPES[@]}"; do
    python3 - "$shape" "${TIME[$shape]}" "${TIME[paragraphs]}" "${INSNS[$shape]:-}" "${INSNS[paragraphs]:-}" <<'PY'
import sys
shape, ms, base_ms, insns, base_insns = sys.argv[1:]
ms, base_ms = float(ms), float(base_ms)
cells = [shape, f"{ms:.1f} ms", f"{ms / base_ms:.2f}"]
if insns and base_insns:
    cells += [f"{int(insns) / 1e6:.1f} M", f"{int(insns) / int(base_insns):.2f}"]
else:
    cells += ["(no valgrind)", ""]
print("| " + " | ".join(cells) + " |")
PY
done
