#!/bin/sh
# strategies — `prove --strategy einsum|deepprove|per-head` on the head-width-80 attention
# example: one vk verifies all three (the proof records its strategy); `info --strategy`
# describes each; a bad name is a usage error.
set -eu
me=strategies
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
src="$top_srcdir/examples/attention80.ein"
expect 0 "compile" -- "$EINZK" compile "$src" -D S=16 -o "$work/m.einc"
expect 0 "gen" -- "$EINZK" gen "$work/m.einc" --seed 4 --weights "$work/w.st" --input "$work/in.json"
expect 0 "setup" -- "$EINZK" setup "$work/m.einc" --weights "$work/w.st" --vk "$work/m.vk" --pk "$work/m.pk"
for s in einsum deepprove per-head; do
    expect 0 "prove $s" -- "$EINZK" prove "$work/m.einc" --pk "$work/m.pk" --input "$work/in.json" \
        -o "$work/$s.proof" --strategy "$s"
    expect 0 "verify $s" -- "$EINZK" verify --vk "$work/m.vk" "$work/$s.proof"
    expect 0 "info $s" -- "$EINZK" info "$work/m.einc" --strategy "$s"
    grep -q "^strategy $s" "$work/out.txt" || fail "info --strategy $s does not describe it"
done
expect 0 "info all json" -- "$EINZK" info "$work/m.einc" --strategy all --json
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))["strategies"]; assert set(d)=={"einsum","deepprove","per-head"}, d' \
    "$work/out.txt" || fail "info --strategy all --json lacks a strategy"
expect 2 "bad strategy" -- "$EINZK" prove "$work/m.einc" --pk "$work/m.pk" --input "$work/in.json" \
    -o "$work/x.proof" --strategy zkml
echo "strategies: einsum, deepprove and per-head prove and verify with one vk; info describes each"
