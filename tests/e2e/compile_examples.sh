#!/bin/sh
# compile_examples — every examples/*.ein compiles; `info` and `info --json` work on
# each artifact and the JSON parses; the 12-head x 80-wide attention plan shows ONE
# 11-variable, degree-3 sumcheck with 4 eq variables for the scores and 11 contracted
# variables for the output projection; corrupted, truncated or foreign .einc files
# give exit 4 with a reason; compile errors in the source give exit 3.
set -eu
me=compile_examples
. "$(dirname "$0")/common.sh"
need_built "$EINZK"

n=0
for src in "$top_srcdir"/examples/*.ein; do
    [ -e "$src" ] || continue
    base=$(basename "$src" .ein)
    out="$work/$base.einc"
    "$EINZK" compile "$src" -o "$out" >"$work/compile.log" 2>&1 || {
        cat "$work/compile.log" >&2
        fail "$src does not compile"
    }
    "$EINZK" info "$out" >"$work/info.txt" || fail "info $out"
    grep -q "^totals" "$work/info.txt" || fail "info $out has no totals"
    "$EINZK" info --json "$out" >"$work/info.json" || fail "info --json $out"
    "$PY" -c 'import json,sys; j=json.load(sys.stdin); assert set(["model","ops","totals"]) <= set(j), j.keys()' \
        <"$work/info.json" || fail "info --json $out is not the expected JSON object"
    n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no examples found in $top_srcdir/examples"
echo "compile_examples: $n examples compile; info and info --json work"

# 12 heads of width 80 (not powers of two): one sumcheck per contraction
att="$top_srcdir/examples/attention.ein"
[ -e "$top_srcdir/examples/attention80.ein" ] && att="$top_srcdir/examples/attention80.ein"
"$EINZK" compile "$att" -D H=12 -D E=80 -o "$work/att80.einc" >/dev/null || fail "attention with H=12 E=80"
"$EINZK" info --json "$work/att80.einc" >"$work/att80.json" || fail "info att80"
"$PY" - "$work/att80.json" <<'PYEOF' || fail "attention80 plan"
import json, sys
j = json.load(open(sys.argv[1]))
ops = {o["name"]: o for o in j["ops"]}
a = ops["a"]
assert a["kind"] == "einsum", a
assert (a["sumcheck_vars"], a["degree"], a["eq_vars"]) == (11, 3, 4), a
assert a["classes"]["h"] == "batch" and a["classes"]["e"] == "contracted", a["classes"]
assert a["bind_order"] == ["h", "e"], a["bind_order"]
y = ops["y"]
assert (y["sumcheck_vars"], y["degree"], y["eq_vars"]) == (11, 2, 0), y
assert y["classes"]["h"] == "contracted" and y["classes"]["e"] == "contracted", y["classes"]
sm = [o for o in j["ops"] if o["kind"] == "softmax"]
assert len(sm) == 1 and "causal" in sm[0]["equation"], sm  # causal mask fused
assert not any(o["kind"] == "causal" for o in j["ops"])
assert j["totals"]["walk_bytes"] > 0 and j["totals"]["advice_elems"] > 0 and j["totals"]["provable"], j["totals"]
assert a["provable"] and a["proof_bytes"] > 0 and a["advice_elems"] > 0, a
PYEOF
# (no pipe: a sanitizer abort after the output must not hide behind grep's status)
"$EINZK" info "$work/att80.einc" >"$work/att80.txt" || fail "info att80"
grep -E "^ +[0-9]+ +a +einsum .* 11 +3 +4 " "$work/att80.txt" >/dev/null ||
    fail "info table does not show the 11-variable degree-3 sumcheck with 4 eq vars"
echo "compile_examples: attention 12x80 -> 11 variables, degree 3, 4 eq variables"

# corrupted artifacts: exit 4 with a reason, never a crash
expect4() {
    rc=0
    "$EINZK" info "$1" >/dev/null 2>"$work/err.txt" || rc=$?
    [ "$rc" -eq 4 ] || fail "info $2: exit $rc, expected 4"
    grep -q "error:" "$work/err.txt" || fail "info $2: no reason given"
}
"$PY" - "$work/att80.einc" "$work" <<'PYEOF'
import random, sys
data = open(sys.argv[1], "rb").read()
out = sys.argv[2]
open(out + "/flip.einc", "wb").write(data[:100] + bytes([data[100] ^ 0x10]) + data[101:])
open(out + "/trunc.einc", "wb").write(data[: len(data) // 2])
open(out + "/major.einc", "wb").write(data[:4] + b"\x09\x00" + data[6:])
open(out + "/trail.einc", "wb").write(data + b"\x00")
open(out + "/empty.einc", "wb").write(b"")
open(out + "/text.einc", "wb").write(b"model attention\n")
PYEOF
for f in flip trunc major trail empty text; do
    expect4 "$work/$f.einc" "$f"
done
"$EINZK" info "$work/major.einc" >/dev/null 2>"$work/err.txt" || true # exit 4 checked above
grep -q "version 9.1 is not supported" "$work/err.txt" || fail "major version message"
expect4 "$work/does-not-exist.einc" "missing file"
echo "compile_examples: corrupted .einc files exit 4 with a reason"

# usage and source errors
rc=0
"$EINZK" compile "$att" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "compile without -o: exit $rc, expected 2"
printf 'model bad\ninput x[4]\ny[i] = x[i] * nope[i]\noutput y\n' >"$work/bad.ein"
rc=0
"$EINZK" compile "$work/bad.ein" -o "$work/bad.einc" 2>"$work/err.txt" || rc=$?
[ "$rc" -eq 3 ] || fail "compile of a bad source: exit $rc, expected 3"
grep -q "bad.ein:3:" "$work/err.txt" || fail "source error has no file:line:col"
[ ! -e "$work/bad.einc" ] || fail "a failed compile left an output file"
rc=0
"$EINZK" compile "$att" -D H=x -o "$work/x.einc" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "malformed -D: exit $rc, expected 2"
echo "compile_examples: usage errors exit 2, source errors exit 3"
