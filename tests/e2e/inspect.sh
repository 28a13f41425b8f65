#!/bin/sh
# inspect — `einzk inspect FILE [--vk VK] [--json]` says what an .einc, vk, pk or proof
# holds (the certificate: tests/e2e/certify.sh): kind, format version, sections, the
# model's digest, statement shapes, the commitment scheme, a proof's binding; with --vk
# a proof's statement gets names and shapes. Files that are no einzk file, or truncated,
# exit 4; --vk with something other than a proof exits 2.
set -eu
me=inspect
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
cd "$work"

expect 0 "compile" -- "$EINZK" compile "$top_srcdir/examples/linear.ein" -o l.einc
dig=$(sed -n 's/.*digest \([0-9a-f]*\)).*/\1/p' out.txt)
expect 0 "gen" -- "$EINZK" gen l.einc --seed 1 --weights w.st --input in.json
expect 0 "setup" -- "$EINZK" setup l.einc --weights w.st --vk l.vk --pk l.pk --pcs ligero
expect 0 "prove" -- "$EINZK" prove l.einc --pk l.pk --input in.json -o l.proof

for f in l.einc l.vk l.pk l.proof; do
    expect 0 "inspect $f --json" -- "$EINZK" inspect "$f" --json
    cp out.txt "$f.json"
    expect 0 "inspect $f" -- "$EINZK" inspect "$f"
    grep -q "^digest  *$dig" out.txt || fail "inspect $f: no digest $dig in the text"
done
expect 0 "inspect proof --vk" -- "$EINZK" inspect l.proof --vk l.vk --json
cp out.txt named.json
"$PY" - "$dig" <<'PYEOF' || fail "inspect --json"
import json, sys
dig = sys.argv[1]
e, v, k, p, n = (json.load(open(f + ".json")) for f in ("l.einc", "l.vk", "l.pk", "l.proof", "named"))
stmt = [{"name": "x", "role": "input", "shape": [8, 32], "count": 256},
        {"name": "y", "role": "output", "shape": [8, 32], "count": 256}]
assert e["kind"] == "compiled model (.einc)" and e["format"] == "2.1" and e["model"] == "linear", e
assert [s["name"] for s in e["sections"]] == ["model", "tensors", "ops", "schedule", "digest"], e
assert e["digest"].startswith(dig) and e["statement"] == stmt and e["weights"]["tensors"] == 4, e
assert v["kind"] == "verifying key" and v["format"] == "1.10" and v["statement"] == stmt, v
assert v["weight_commitment"]["scheme"] == "ligero (proximity tested once)", v
assert v["weight_range_proof_bytes"] == v["sections"][2]["bytes"] > 0, v
assert k["kind"] == "proving key" and k["digest"] == e["digest"], k
assert k["weights"] == {"tensors": 4, "elements": e["weights"]["elements"]}, k
assert p["kind"] == "proof" and p["digest"] == e["digest"], p
assert p["weight_root"] == v["weight_commitment"]["root"], p
assert [s["count"] for s in p["statement"]] == [256, 256] and "name" not in p["statement"][0], p
assert p["advice_scheme"] == "ligero" and p["strategy"] == "einsum", p
assert sum(s["bytes"] + 12 for s in p["sections"]) + 8 == p["bytes"], p
assert [(s["name"], s["shape"]) for s in n["statement"]] == [("x", [8, 32]), ("y", [8, 32])], n
PYEOF
echo "inspect: .einc, vk, pk and proof described (kind, version, sections, digest, statement, scheme)"

head -c 100 l.proof >t.proof
expect 4 "truncated" -- "$EINZK" inspect t.proof
grep -q "truncated section" err.txt || fail "truncated: no reason"
expect 4 "not einzk" -- "$EINZK" inspect in.json --json
grep -q '"code":4' out.txt || fail "--json error object"
expect 2 "--vk with a vk" -- "$EINZK" inspect l.vk --vk l.vk
echo "inspect: other files exit 4, --vk with a non-proof exits 2"
