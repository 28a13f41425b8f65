#!/bin/sh
# charlm_fidelity — the shipped tiny character LM (examples/charlm.ein with
# charlm.safetensors, trained by tools/train_charlm.py) run by `einzk run` on the fixed
# GPL-3 windows stored in examples/charlm.expect.json: the integer next-token argmax must
# equal torch's float argmax (stored at training time) on >= 95 % of the positions, and
# every disagreement must be a near-tie of torch's logits (top-two margin < 1 % of the
# window's max |logit|). Also: the vocab's alphabet encodes the stored text to the stored
# tokens, and `--compare-float` runs. Prints the agreement.
set -eu
me=charlm_fidelity
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
ex="$top_srcdir/examples"

"$EINZK" compile "$ex/charlm.ein" -o "$work/charlm.einc" >/dev/null || fail "compile charlm.ein"
# one einzk input per stored window
n=$("$PY" - "$ex" "$work" <<'PYEOF'
import json, os, sys
ex, work = sys.argv[1:]
exp = json.load(open(os.path.join(ex, "charlm.expect.json")))
vocab = json.load(open(os.path.join(ex, "charlm.vocab.json")))
alphabet = vocab["alphabet"] if "alphabet" in vocab else "".join(vocab["tokens"])
assert len(exp["cases"]) >= 2, "too few stored windows"
for i, c in enumerate(exp["cases"]):
    assert [alphabet.index(ch) for ch in c["text"]] == c["tokens"], f"window {i}: tokens differ from the text"
    json.dump({"tok": c["tokens"]}, open(os.path.join(work, f"in{i}.json"), "w"))
print(len(exp["cases"]))
PYEOF
) || fail "reading examples/charlm.expect.json"

i=0
while [ "$i" -lt "$n" ]; do
    cf=""
    [ "$i" -eq 0 ] && cf="--compare-float"
    # shellcheck disable=SC2086
    "$EINZK" run "$work/charlm.einc" --weights "$ex/charlm.safetensors" --input "$work/in$i.json" \
        -o "$work/out$i.json" $cf 2>"$work/cmp$i.txt" || { cat "$work/cmp$i.txt" >&2; fail "einzk run, window $i"; }
    i=$((i + 1))
done
grep '^worst op' "$work/cmp0.txt" || fail "no --compare-float summary"

"$PY" - "$ex" "$work" <<'PYEOF' || fail "argmax agreement"
import json, os, sys
ex, work = sys.argv[1:]
exp = json.load(open(os.path.join(ex, "charlm.expect.json")))
alphabet = json.load(open(os.path.join(ex, "charlm.vocab.json"))).get("alphabet")
agree = total = 0
ok = True
for i, c in enumerate(exp["cases"]):
    got = [int(v) for v in json.load(open(os.path.join(work, f"out{i}.json")))["next"]["data"]]
    assert len(got) == len(c["next"])
    for s, (g, want, m) in enumerate(zip(got, c["next"], c["margin"])):
        total += 1
        if g == want:
            agree += 1
            continue
        near = m < 0.01 * c["max_abs_logit"]
        ok &= near
        show = (lambda t: repr(alphabet[t])) if alphabet else str
        print(f"  window {i} position {s}: einzk {show(g)}, torch {show(want)}, torch margin {m:.4f}"
              f" ({'near-tie' if near else 'NOT a near-tie'})")
frac = agree / total
print(f"charlm_fidelity: next-token argmax: {agree}/{total} = {frac:.1%} equal to torch (need >= 95%)")
sys.exit(0 if ok and frac >= 0.95 else 1)
PYEOF
echo "charlm_fidelity: ok"
