#!/bin/sh
# prove_tamper — end to end with the real CLI on the provable examples (linear, masked):
# compile, gen, setup, prove, then verify ACCEPTS with no weights file present; then every
# tampering is rejected with exit 1, never a crash: bytes flipped across every section of
# the proof, truncations, trailing bytes, the vk of another model, one public input value
# or one claimed output value changed inside the proof, `verify --input` with a different
# input. Also: prove/setup refuse an op that is not provable yet (exit 4, op named), and
# `verify -o` writes exactly the outputs `run` computes.
set -eu
me=prove_tamper
. "$(dirname "$0")/common.sh"
need_built "$EINZK"

for m in linear masked; do
    d="$work/$m"
    mkdir -p "$d"
    expect 0 "compile $m" -- "$EINZK" compile "$top_srcdir/examples/$m.ein" -o "$d/m.einc"
    expect 0 "gen $m" -- "$EINZK" gen "$d/m.einc" --seed 7 --weights "$d/w.safetensors" --input "$d/in.json"
    expect 0 "gen $m (other input)" -- "$EINZK" gen "$d/m.einc" --seed 8 --weights "$d/w2.safetensors" \
        --input "$d/in2.json"
    expect 0 "run $m" -- "$EINZK" run "$d/m.einc" --weights "$d/w.safetensors" --input "$d/in.json" -o "$d/run.json"
    expect 0 "setup $m" -- "$EINZK" setup "$d/m.einc" --weights "$d/w.safetensors" --vk "$d/m.vk" --pk "$d/m.pk"
    # the prover needs no weights file with --pk: remove it
    rm -f "$d/w.safetensors" "$d/w2.safetensors"
    expect 0 "prove $m" -- "$EINZK" prove "$d/m.einc" --pk "$d/m.pk" --input "$d/in.json" -o "$d/m.proof" --json
    "$PY" - "$work/out.txt" <<'PYEOF' || fail "prove --json of $m"
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("proof_bytes", "statement_bytes", "prove_seconds", "peak_rss_bytes", "ops", "phases"):
    assert k in j, k
assert set(j["phases"]) == {"witness", "commit", "lookups", "sumchecks", "openings"}, j["phases"]
assert j["proof_bytes"] > 0 and j["statement_bytes"] > 0
base = {"name", "kind", "seconds", "bytes"}
assert all(set(o) in (base, base | {"sumchecks", "touched", "real"}) for o in j["ops"]), j["ops"]
assert any("sumchecks" in o for o in j["ops"]), "no op reports its sumcheck work"
PYEOF
    expect 0 "prove $m (second input)" -- "$EINZK" prove "$d/m.einc" --pk "$d/m.pk" --input "$d/in2.json" \
        -o "$d/m2.proof"
    expect 0 "verify $m" -- "$EINZK" verify --vk "$d/m.vk" "$d/m.proof" --json
    grep -q '"accepted": *true' "$work/out.txt" || fail "verify --json of $m did not say accepted"
    expect 0 "verify $m --input" -- "$EINZK" verify --vk "$d/m.vk" "$d/m.proof" --input "$d/in.json" -o "$d/out.json"
    "$PY" - "$d/run.json" "$d/out.json" <<'PYEOF' || fail "verify -o of $m differs from run"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a == b, (a, b)
PYEOF
    expect 1 "verify $m with a different --input" -- "$EINZK" verify --vk "$d/m.vk" "$d/m.proof" --input "$d/in2.json"
    grep -q "differs" "$work/out.txt" || fail "different input: no reason"
    expect 1 "verify $m --json of a rejected proof" -- "$EINZK" verify --vk "$d/m.vk" "$d/m.proof" \
        --input "$d/in2.json" --json
    grep -q '"accepted": *false' "$work/out.txt" || fail "rejected --json does not say accepted false"
done
echo "prove_tamper: linear and masked prove and verify without weights; verify -o matches run"

# the vk of another model
expect 1 "linear proof with the masked vk" -- "$EINZK" verify --vk "$work/masked/m.vk" "$work/linear/m.proof"
expect 1 "masked proof with the linear vk" -- "$EINZK" verify --vk "$work/linear/m.vk" "$work/masked/m.proof"

# mutations of the proof file: every section, truncations, trailing bytes, statement values
for m in linear masked; do
    d="$work/$m"
    "$PY" - "$d/m.proof" "$d/mut" <<'PYEOF'
import sys
from mutate import Mutations, added, flipped, read_file, statement
data, secs = read_file(sys.argv[1])
assert [s[0] for s in secs] == [1, 2, 3, 4, 5, 6, 7], secs
m = Mutations(sys.argv[2])
# headers: magic, version, every section header
for off in [0, 4, 6] + [s[1] for s in secs] + [s[1] + 4 for s in secs]:
    m.put(flipped(data, off, 0), "hdr%d" % off)
# bytes spread over every section's payload
for tag, h, p, ln in secs:
    for k in range(8):
        if ln == 0:
            break
        off = p + (ln * (2 * k + 1)) // 16
        for bit in (0, 7):
            m.put(flipped(data, off, bit), "s%d_%d_%d" % (tag, off, bit))
# truncations and trailing bytes
for frac in (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 99):
    m.put(data[: len(data) * frac // 100], "trunc%d" % frac)
m.put(data[:-1], "trunc_last")
m.put(data + b"\0", "trail")
# one public input value and one claimed output value (each w bytes inside the statement)
for t, (tid, first, num, w) in enumerate(statement(data, secs)):
    for which in (0, num // 2, num - 1):
        m.put(added(data, first + w * which, 1, w), "stmt_t%d_e%d" % (t, which))
PYEOF
    each_file_rejected "$m: mutated proof" "$d/mut" "$EINZK" verify --vk "$d/m.vk" {}
    echo "prove_tamper: $m: $count mutated proofs all rejected (exit 1)"
    # the original still verifies (the mutations worked on copies)
    expect 0 "verify $m again" -- "$EINZK" verify --vk "$d/m.vk" "$d/m.proof"
done

# a corrupted vk is a rejection too; a missing file is an I/O error
d="$work/linear"
"$PY" - "$d/m.vk" "$d/bad.vk" <<'PYEOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 0x04
open(sys.argv[2], "wb").write(data)
PYEOF
expect 1 "corrupted vk" -- "$EINZK" verify --vk "$d/bad.vk" "$d/m.proof"
# bytes spread over every section of the vk (plan, weight commitment, weight range proof)
"$PY" - "$d/m.vk" "$d/vkmut" <<'PYEOF'
import sys
from mutate import Mutations, flipped, read_file
data, secs = read_file(sys.argv[1])
assert [s[0] for s in secs] == [1, 2, 3], secs
m = Mutations(sys.argv[2])
for tag, h, p, ln in secs:
    for k in range(10):
        m.put(flipped(data, p + (ln * (2 * k + 1)) // 20, k % 8))
m.put(data[:-1], "trunc")
m.put(data + b"\0", "trail")
PYEOF
each_file_rejected "mutated vk" "$d/vkmut" "$EINZK" verify --vk {} "$d/m.proof"
vcount=$count
expect 4 "missing proof" -- "$EINZK" verify --vk "$d/m.vk" "$d/nope.proof"
expect 2 "verify without --vk" -- "$EINZK" verify "$d/m.proof"
echo "prove_tamper: the vk of another model and $vcount corrupted vks are rejected"

# argmax indices are integers: verify -o writes them as JSON integers, so the output
# file can be fed back as a token input
cat >"$work/sm.ein" <<'EOF'
model sm
param S = 4
input a[S, S]
weight w[S, S]
b[s, t] = a[s, u] * w[u, t]
p[s] = argmax[t](b[s, t])
output p
EOF
expect 0 "compile sm" -- "$EINZK" compile "$work/sm.ein" -o "$work/sm.einc"
expect 0 "gen sm" -- "$EINZK" gen "$work/sm.einc" --seed 1 --weights "$work/sm.safetensors" --input "$work/sm.json"
expect 0 "setup argmax" -- "$EINZK" setup "$work/sm.einc" --weights "$work/sm.safetensors" --vk "$work/sm.vk" \
    --pk "$work/sm.pk"
expect 0 "prove argmax" -- "$EINZK" prove "$work/sm.einc" --pk "$work/sm.pk" --input "$work/sm.json" \
    -o "$work/sm.proof"
expect 0 "verify argmax" -- "$EINZK" verify --vk "$work/sm.vk" "$work/sm.proof" -o "$work/sm.out.json"
"$PY" - "$work/sm.out.json" <<'PYEOF' || fail "argmax output is not a list of JSON integers"
import json, sys
d = json.load(open(sys.argv[1]))["p"]["data"]
assert d and all(type(x) is int and 0 <= x < 4 for x in d), d
PYEOF
echo "prove_tamper: argmax proves and verifies; its output file holds integers"
