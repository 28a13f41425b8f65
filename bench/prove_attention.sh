#!/bin/sh
# bench/prove_attention — end-to-end proving cost of attention-shaped models with the
# real CLI: compile, gen, setup, then `einzk prove --json` and `einzk verify --json`.
#
# usage: bench/prove_attention.sh [EINZK] [THREADS]     (default ./einzk, the default count)
#
# Rows:
#   masked S x D, E — examples/masked.ein (Q/K/V projections, scores, causal mask,
#                     masked mixing: attention without softmax, provable today);
#   linear S x D x F — examples/linear.ein (a 2-layer MLP with residual);
#   attention       — examples/attention.ein at GPT-2-small widths, once the prover
#                     supports softmax (until then it prints why it is skipped).
# Columns: proof (argument) bytes, statement bytes, prove seconds and its phases
# (witness, commit, lookups, sumchecks, openings), verify milliseconds, peak RSS.
# Not part of `make check` (sizes up to GPT-2-small widths take tens of seconds).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
einzk=${1:-./einzk}
threads=${2:-}
py=/usr/bin/python3
[ -x "$py" ] || py=python3
[ -n "$threads" ] && export OMP_NUM_THREADS="$threads"

work=$(mktemp -d "${TMPDIR:-/tmp}/ezbench-prove.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

printf '%-30s %10s %10s %8s %8s %8s %8s %8s %8s %9s %8s\n' model proof stmt prove_s witness commit lookups sumchk \
    openings verify_ms rss_MiB

one() {
    label=$1
    model=$2
    shift 2
    "$einzk" compile "$src/examples/$model.ein" "$@" -o "$work/m.einc" >/dev/null
    "$einzk" gen "$work/m.einc" --seed 1 --weights "$work/w.safetensors" --input "$work/in.json" 2>/dev/null
    if ! "$einzk" setup "$work/m.einc" --weights "$work/w.safetensors" --vk "$work/m.vk" --pk "$work/m.pk" \
        >/dev/null 2>"$work/err.txt"; then
        printf '%-30s skipped: %s\n' "$label" "$(sed 's/^einzk setup: error: //' "$work/err.txt")"
        return 0
    fi
    "$einzk" prove "$work/m.einc" --pk "$work/m.pk" --input "$work/in.json" -o "$work/m.proof" --json >"$work/p.json"
    "$einzk" verify --vk "$work/m.vk" "$work/m.proof" --json >"$work/v.json"
    "$py" - "$label" "$work/p.json" "$work/v.json" <<'PYEOF'
import json, sys
p, v = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
assert v["accepted"], v
ph = p["phases"]
print("%-30s %10d %10d %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %9.2f %8.1f" % (
    sys.argv[1], p["proof_bytes"], p["statement_bytes"], p["prove_seconds"], ph["witness"], ph["commit"],
    ph["lookups"], ph["sumchecks"], ph["openings"], v["verify_seconds"] * 1e3, p["peak_rss_bytes"] / 2**20))
PYEOF
}

one "masked S=64 D=256 E=64" masked -D S=64 -D D=256 -D E=64
one "masked S=128 D=768 E=64" masked -D S=128 -D D=768 -D E=64
one "masked S=128 D=768 E=80" masked -D S=128 -D D=768 -D E=80
one "linear S=64 D=256 F=1024" linear -D S=64 -D D=256 -D F=1024
one "linear S=128 D=768 F=3072" linear -D S=128 -D D=768 -D F=3072
one "attention S=128 D=768 H=12 E=64" attention -D S=128 -D D=768 -D H=12 -D E=64
