#!/bin/sh
# calibrate — `einzk calibrate` chooses scale and widths from samples:
#   - every scale of the range is reported with its width, committed advice and
#     relative error; the recommendation is the cheapest scale within the tolerance (or,
#     when none is, the most accurate one);
#   - -o writes the source with `scale`/`bits` and an @bits on every declaration and
#     definition — existing ones updated in place, loops and comments kept — which
#     checks, compiles and runs within the tolerance on the samples;
#   - a range no scale of which holds the data exits 5; a bad --scales exits 2.
set -eu
me=calibrate
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
cd "$work"

src=$top_srcdir/examples/linear.ein
expect 0 "compile" -- "$EINZK" compile "$src" -o l.einc
for s in 1 2 3; do
    expect 0 "gen $s" -- "$EINZK" gen l.einc --seed $s --weights w$s.st --input in$s.json
done
expect 0 "calibrate" -- "$EINZK" calibrate "$src" --weights w1.st --input in1.json --input in2.json \
    --input in3.json --scales 8..10 -o ann.ein --json
"$PY" - out.txt ann.ein <<'PYEOF' || fail "calibrate --json or the annotated source"
import json, re, sys
j = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read()
rows = j["scales"]
assert [r["scale"] for r in rows] == [8, 9, 10] and all(r["feasible"] for r in rows), rows
# finer scales: smaller errors, wider values
assert rows[0]["max_rel_error"] > rows[1]["max_rel_error"] > rows[2]["max_rel_error"], rows
assert rows[0]["bits"] < rows[1]["bits"] < rows[2]["bits"], rows
ok = [r for r in rows if r["max_rel_error"] <= j["tolerance"]]
best = min(ok, key=lambda r: r["advice_elems"])
rec = j["recommended"]
assert j["within_tolerance"] and rec["scale"] == best["scale"] and rec["bits"] == best["bits"], (rec, best)
assert re.search(r"^scale %d$" % rec["scale"], src, re.M) and re.search(r"^bits %d$" % rec["bits"], src, re.M), src
for d in rec["declarations"]:
    assert re.search(r"\b%s\[[^]]*\] @bits\(%d\)" % (d["name"], d["bits"]), src), (d, src)
assert src.count("@bits(") == len(rec["declarations"]) + len(rec["definitions"]) == 8, src
assert "# residual" in src, src
PYEOF
tol_scale=$("$PY" -c 'import json; print(json.load(open("out.txt"))["recommended"]["scale"])')
expect 0 "check the annotated source" -- "$EINZK" check ann.ein
[ ! -s err.txt ] || fail "the annotated source has warnings: $(cat err.txt)"
expect 0 "compile the annotated source" -- "$EINZK" compile ann.ein -o ann.einc
expect 0 "run it" -- "$EINZK" run ann.einc --weights w1.st --input in2.json --compare-float
"$PY" - err.txt <<'PYEOF' || fail "the annotated model is not within the tolerance"
import re, sys
rel = float(re.search(r"relative error ([0-9.e+-]+)", open(sys.argv[1]).read()).group(1))
assert rel <= 0.01, rel
PYEOF
echo "calibrate: linear: scale $tol_scale recommended; the annotated source runs within the tolerance"

# an existing scale/bits line and @bits are updated, a loop's statement annotated once
cat >m.ein <<'EOF2'
model m
param S = 4, D = 8
scale 12
bits 24
input x[S, D] @scale(10) @bits(30)
weight w[D, D]
h[s, e] @bits(26) = x[s, d] * w[d, e]   # keep me
for l in 0..2 {
  h[s, e] = h[s, e] + x[s, e]
}
output h
EOF2
expect 0 "gen m" -- sh -c "'$EINZK' compile m.ein -o m.einc && '$EINZK' gen m.einc --seed 1 --weights mw.st --input min.json"
expect 0 "calibrate m" -- "$EINZK" calibrate m.ein --weights mw.st --input min.json --scales 9..9 --tolerance 1 -o mann.ein
grep -q "^scale 9$" mann.ein && grep -q "^bits [0-9]*$" mann.ein || fail "defaults not updated: $(cat mann.ein)"
grep -q "^input x\[S, D\] @scale(10) @bits([0-9]*)$" mann.ein || fail "declaration: $(grep input mann.ein)"
grep -q "^h\[s, e\] @bits([0-9]*) = x\[s, d\] \* w\[d, e\]   # keep me$" mann.ein || fail "definition: $(cat mann.ein)"
grep -q "^  h\[s, e\] @bits([0-9]*) = h\[s, e\] + x\[s, e\]$" mann.ein || fail "loop: $(cat mann.ein)"
[ "$(grep -c "@bits(" mann.ein)" = 4 ] || fail "@bits count: $(cat mann.ein)"
expect 0 "check mann" -- "$EINZK" check mann.ein
echo "calibrate: existing defaults and @bits updated in place, loops annotated"

expect 0 "tiny tolerance" -- "$EINZK" calibrate "$src" --weights w1.st --input in1.json --scales 8..9 \
    --tolerance 1e-9 --json
grep -q '"within_tolerance":false' out.txt || fail "tiny tolerance: $(cat out.txt)"
grep -q '"recommended":{"scale":9' out.txt || fail "tiny tolerance: not the most accurate: $(cat out.txt)"
expect 5 "no scale holds the data" -- "$EINZK" calibrate "$src" --weights w1.st --input in1.json --scales 60..60
grep -q "no scale in 60..60 holds the samples" err.txt || fail "no reason: $(cat err.txt)"
expect 2 "bad --scales" -- "$EINZK" calibrate "$src" --weights w1.st --input in1.json --scales 9..8
expect 4 "a vk as a sample" -- "$EINZK" calibrate "$src" --weights w1.st --input l.einc
echo "calibrate: tolerance misses, impossible ranges and bad arguments"
