#!/bin/sh
# prove_examples — every bundled model proves and verifies: for each examples/*.ein, at
# the small sizes its "# test-args: -D ..." line names (none: its own sizes), compile,
# gen (seeded), setup, prove (each op's bytes within 10 % of `info --json`'s: issue 9),
# then verify with the vk alone (exit 0); then every claimed
# output is tampered with (one value of it + 1 in the proof's statement) and the verifier
# must reject each (exit 1). One thread per command: the script's budget is CPU time on a
# shared machine, where spinning OpenMP threads waste it.
set -eu
me=prove_examples
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
OMP_NUM_THREADS=1
export OMP_NUM_THREADS

n=0
for src in "$top_srcdir"/examples/*.ein; do
    m=$(basename "$src" .ein)
    args=$(sed -n 's/^# test-args: //p' "$src")
    d="$work/$m"
    mkdir -p "$d"
    # shellcheck disable=SC2086 # the -D flags are words
    expect 0 "compile $m" -- "$EINZK" compile "$src" $args -o "$d/m.einc"
    expect 0 "gen $m" -- "$EINZK" gen "$d/m.einc" --seed 3 --weights "$d/w.safetensors" --input "$d/in.json"
    expect 0 "setup $m" -- "$EINZK" setup "$d/m.einc" --weights "$d/w.safetensors" --vk "$d/m.vk" --pk "$d/m.pk"
    expect 0 "prove $m" -- "$EINZK" prove "$d/m.einc" --pk "$d/m.pk" --input "$d/in.json" -o "$d/m.proof" --json
    cp "$work/out.txt" "$d/prove.json"
    # `info` sizes the proof from the plan alone: each op's bytes within 10 % of what prove wrote
    expect 0 "info $m" -- "$EINZK" info --json "$d/m.einc"
    "$PY" - "$work/out.txt" "$d/prove.json" "$m" <<'PYEOF'
import json, sys
info, prove = (json.load(open(p))["ops"] for p in sys.argv[1:3])
assert len(info) == len(prove), "%s: info has %d ops, prove %d" % (sys.argv[3], len(info), len(prove))
for i, p in zip(info, prove):
    assert i["name"] == p["name"], (i["name"], p["name"])
    assert abs(i["proof_bytes"] - p["bytes"]) <= 0.1 * p["bytes"], \
        "%s op %s: info says %d bytes, prove wrote %d" % (sys.argv[3], p["name"], i["proof_bytes"], p["bytes"])
PYEOF
    expect 0 "verify $m" -- "$EINZK" verify --vk "$d/m.vk" "$d/m.proof"
    # the claimed outputs follow the inputs in the statement (one entry per input name)
    "$PY" - "$d/m.proof" "$d/in.json" "$d/mut" <<'PYEOF'
import json, sys
from mutate import Mutations, added, read_file, statement
data, secs = read_file(sys.argv[1])
ninputs = len(json.load(open(sys.argv[2])))
st = statement(data, secs)
assert len(st) > ninputs, "no claimed output in the statement"
m = Mutations(sys.argv[3])
for tid, off, num, w in st[ninputs:]:
    m.put(added(data, off + w * (num // 2), 1, w), "output%d" % tid)
PYEOF
    each_file_rejected "$m: a tampered claimed output" "$d/mut" "$EINZK" verify --vk "$d/m.vk" {}
    grep -q "reject" "$work/out.txt" || fail "$m: the rejection gives no reason: $(cat "$work/out.txt")"
    echo "prove_examples: $m${args:+ ($args)}: proves and verifies; $count tampered claimed output(s) rejected"
    rm -f "$d/w.safetensors" "$d/m.pk" # keep the temporary directory small
    n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no examples found in $top_srcdir/examples"
echo "prove_examples: all $n examples prove and verify"
