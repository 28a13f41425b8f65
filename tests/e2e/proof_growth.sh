#!/bin/sh
# proof_growth — the proof is succinct: doubling the sequence length S of
# examples/attention.ein must not double the proof (issue 5; docs/protocol.md: sumcheck and
# GKR messages grow with log S, Ligero openings with sqrt of the committed size).
# Sizes are kept small for make check; the ratio is printed either way.
set -eu
me=proof_growth
. "$(dirname "$0")/common.sh"
need_built "$EINZK"

# proof_bytes S: the argument's size for attention at sequence length S
proof_bytes() {
    d="$work/s$1"
    mkdir -p "$d"
    set -e
    "$EINZK" compile "$top_srcdir/examples/attention.ein" -D S="$1" -D D=64 -D H=2 -D E=16 -o "$d/m.einc" >/dev/null 2>&1
    "$EINZK" gen "$d/m.einc" --seed 3 --weights "$d/w.safetensors" --input "$d/in.json" >/dev/null 2>&1
    "$EINZK" setup "$d/m.einc" --weights "$d/w.safetensors" --vk "$d/m.vk" --pk "$d/m.pk" >/dev/null 2>&1
    "$EINZK" prove "$d/m.einc" --pk "$d/m.pk" --input "$d/in.json" -o "$d/m.proof" --json 2>/dev/null >"$d/p.json"
    "$EINZK" verify --vk "$d/m.vk" "$d/m.proof" >/dev/null 2>&1
    "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["proof_bytes"])' "$d/p.json"
}

prev=""
for s in 32 64 128; do
    b=$(proof_bytes "$s") || b=""
    case "$b" in
    '' | *[!0-9]*) echo "proof_growth: FAIL: compile/gen/setup/prove/verify at S=$s failed" >&2; exit 1 ;;
    esac
    echo "proof_growth: S=$s proof_bytes=$b"
    if [ -n "$prev" ]; then
        # strictly less than double, with the ratio printed for the record
        "$PY" -c 'import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); r = b / a
print("proof_growth: ratio %.3f" % r); sys.exit(0 if r < 2.0 else 1)' "$prev" "$b" ||
            { echo "proof_growth: FAIL: doubling S from $((s / 2)) to $s doubled the proof" >&2; exit 1; }
    fi
    prev=$b
done
