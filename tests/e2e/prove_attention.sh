#!/bin/sh
# prove_attention — end to end with the real CLI on the attention examples (causal softmax
# inside): examples/attention.ein, gqa.ein and attention80.ein at small sizes (extents that
# are not powers of two) compile, gen, setup, prove (the softmax op reports its bytes) and
# verify; then bytes flipped across the walk section (where the softmax's lookup and
# zero-checks live) and the openings are rejected with exit 1.
set -eu
me=prove_attention
. "$(dirname "$0")/common.sh"
need_built "$EINZK"

for spec in "attention -D S=12 -D D=32 -D H=3 -D E=8" \
    "gqa -D S=10 -D D=32 -D G=2 -D R=3 -D E=8" \
    "attention80 -D S=6 -D H=3 -D E=10"; do
    set -- $spec
    m=$1
    shift
    d="$work/$m"
    mkdir -p "$d"
    expect 0 "compile $m" -- "$EINZK" compile "$top_srcdir/examples/$m.ein" "$@" -o "$d/m.einc"
    expect 0 "gen $m" -- "$EINZK" gen "$d/m.einc" --seed 11 --weights "$d/w.safetensors" --input "$d/in.json"
    expect 0 "setup $m" -- "$EINZK" setup "$d/m.einc" --weights "$d/w.safetensors" --vk "$d/m.vk" --pk "$d/m.pk"
    expect 0 "prove $m" -- "$EINZK" prove "$d/m.einc" --pk "$d/m.pk" --input "$d/in.json" -o "$d/m.proof" --json
    "$PY" - "$work/out.txt" <<'PYEOF' || fail "prove --json of $m: no softmax op with bytes"
import json, sys
j = json.load(open(sys.argv[1]))
sm = [o for o in j["ops"] if o["kind"] == "softmax"]
assert len(sm) == 1 and sm[0]["bytes"] > 0, j["ops"]
print("prove_attention: %s: proof %d bytes, softmax %d bytes, %.3f s" %
      (j["model"], j["proof_bytes"], sm[0]["bytes"], j["prove_seconds"]))
PYEOF
    expect 0 "verify $m" -- "$EINZK" verify --vk "$d/m.vk" "$d/m.proof"
    "$PY" - "$d/m.proof" "$d/mut" <<'PYEOF'
import sys
from mutate import Mutations, flipped, read_file
data, secs = read_file(sys.argv[1])
m = Mutations(sys.argv[2])
for tag, h, p, ln in secs:
    if tag not in (4, 6) or ln == 0:
        continue
    for k in range(12 if tag == 4 else 3):
        m.put(flipped(data, p + (ln * (2 * k + 1)) // (24 if tag == 4 else 6), k % 8))
PYEOF
    each_file_rejected "$m: mutated proof" "$d/mut" "$EINZK" verify --vk "$d/m.vk" {}
    echo "prove_attention: $m proves and verifies; $count mutated proofs rejected"
done
