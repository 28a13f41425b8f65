#!/bin/sh
# certify — sequence certification end to end on the project's trained char LM
# (examples/charlm.ein, docs/certify.md): `generate` and `certify` produce the same text,
# `verify` accepts the certificate with the vk alone and prints the text, and rejects:
# another prompt, a changed or dropped token, a truncated file, the vk of the same model
# with other weights. Also: an EOS stop, the per-step baseline, a bad output path failing
# before any work, text the vocabulary cannot encode.
set -eu
me=certify
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
ex="$top_srcdir/examples"
voc="$ex/charlm.vocab.json"

expect 0 "compile charlm" -- "$EINZK" compile "$ex/charlm.ein" -o "$work/c.einc"
expect 0 "setup charlm" -- "$EINZK" setup "$work/c.einc" --weights "$ex/charlm.safetensors" --vk "$work/c.vk" \
    --pk "$work/c.pk"

# the same tokens from generate (weights) and certify (pk)
expect 0 "generate" -- "$EINZK" generate "$work/c.einc" --weights "$ex/charlm.safetensors" --prompt "This License" \
    --vocab "$voc" --max-new 8 --json
mv "$work/out.txt" "$work/gen.json"
expect 0 "certify" -- "$EINZK" certify "$work/c.einc" --pk "$work/c.pk" --prompt "This License" --vocab "$voc" \
    --max-new 8 -o "$work/t.cert" --json
mv "$work/out.txt" "$work/cert.json"
expect 0 "verify certificate" -- "$EINZK" verify --vk "$work/c.vk" "$work/t.cert" --vocab "$voc" --json
mv "$work/out.txt" "$work/ver.json"
expect 0 "inspect certificate" -- "$EINZK" inspect "$work/t.cert" --json
mv "$work/out.txt" "$work/insp.json"
"$PY" - "$work/gen.json" "$work/cert.json" "$work/ver.json" "$work/insp.json" <<'PYEOF' || fail "generate, certify and verify disagree"
import json, sys
g, c, v, i = (json.load(open(p)) for p in sys.argv[1:5])
# einzk inspect sees the same text and the one pass
assert i["kind"] == "certificate" and i["stop"] == "max-new", i
assert i["prompt_tokens"] == g["prompt_tokens"] and i["output_tokens"] == g["output_tokens"], i
assert len(i["passes"]) == 1 and i["passes"][0]["positions"] == 32, i
assert v["accepted"] is True, v
assert len(g["output_tokens"]) == 8 and g["stop"] == "max-new", g
for k in ("prompt_tokens", "output_tokens", "text"):
    assert g[k] == c[k] == v[k], (k, g[k], c[k], v[k])
assert c["passes"] == 1 and c["positions"] == 32, c  # 12 + 8 - 1 = 19 positions: a pass of 32
PYEOF
text=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["text"])' "$work/gen.json")
echo "certify: \"This License\" -> \"$text\" generated, certified and verified"

# the prompt: the right one (as text and as ids) accepted, another one rejected
expect 0 "verify --prompt" -- "$EINZK" verify --vk "$work/c.vk" "$work/t.cert" --vocab "$voc" --prompt "This License"
ids=$("$PY" -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["prompt_tokens"])))' "$work/gen.json")
expect 0 "verify --prompt-tokens" -- "$EINZK" verify --vk "$work/c.vk" "$work/t.cert" --prompt-tokens "$ids"
expect 1 "another prompt" -- "$EINZK" verify --vk "$work/c.vk" "$work/t.cert" --vocab "$voc" --prompt "This license"
grep -q "prompt differs" "$work/out.txt" || fail "another prompt: the reason does not name the prompt"

# the certificate's tokens: each one changed, the last generated one dropped, the file cut
"$PY" - "$work/t.cert" "$work/mut" <<'PYEOF'
import os, struct, sys
data = open(sys.argv[1], "rb").read()
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
# header 8 bytes, section 1: tag u32, length u64, then nprompt, ngen, eos, max_new, stop
p0 = 8 + 12
nprompt, ngen = struct.unpack_from("<QQ", data, p0)
tok0 = p0 + 8 * 4 + 1
for i in range(nprompt + ngen):
    off = tok0 + 8 * i
    (t,) = struct.unpack_from("<q", data, off)
    m = bytearray(data)
    struct.pack_into("<q", m, off, (t + 1) % 76)
    open(f"{out}/token{i}", "wb").write(m)
open(f"{out}/trunc", "wb").write(data[: len(data) // 2])
PYEOF
each_file_rejected "mutated certificate" "$work/mut" "$EINZK" verify --vk "$work/c.vk" {}
echo "certify: $count certificates with one token changed or cut short are rejected"

# the vk of the same model with other weights
expect 0 "gen other weights" -- "$EINZK" gen "$work/c.einc" --seed 3 --weights "$work/o.safetensors" \
    --input "$work/o.json"
expect 0 "setup other" -- "$EINZK" setup "$work/c.einc" --weights "$work/o.safetensors" --vk "$work/o.vk" \
    --pk "$work/o.pk"
expect 1 "another model's vk" -- "$EINZK" verify --vk "$work/o.vk" "$work/t.cert"
echo "certify: another prompt and the vk of other weights are rejected"

# EOS: the third generated token as EOS stops generation there; per-step baseline
eos=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["output_tokens"][2])' "$work/gen.json")
expect 0 "certify --eos" -- "$EINZK" certify "$work/c.einc" --pk "$work/c.pk" --prompt "This License" \
    --vocab "$voc" --max-new 8 --eos "$eos" -o "$work/e.cert" --json
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["stop"]=="eos" and d["output_tokens"][-1]==int(sys.argv[2]) and len(d["output_tokens"])<=3, d' \
    "$work/out.txt" "$eos" || fail "--eos did not stop at the EOS token"
expect 0 "verify eos" -- "$EINZK" verify --vk "$work/c.vk" "$work/e.cert"
expect 0 "certify --per-step" -- "$EINZK" certify "$work/c.einc" --pk "$work/c.pk" --prompt-tokens "$ids" \
    --max-new 3 --per-step -o "$work/s.cert" --json
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["passes"]==3, d' "$work/out.txt" ||
    fail "--per-step did not make one pass per token"
expect 0 "verify per-step" -- "$EINZK" verify --vk "$work/c.vk" "$work/s.cert"
echo "certify: an EOS stop and the per-step baseline verify"

# operator errors: a bad output path before any work, text outside the vocabulary, a pk as vk
expect 4 "certify -o nowhere" -- "$EINZK" certify "$work/c.einc" --pk "$work/c.pk" --prompt-tokens 1 --max-new 1 \
    -o "$work/no/such/dir/x.cert"
grep -q "does not exist" "$work/err.txt" || fail "a bad -o is not named"
expect 4 "text outside the vocabulary" -- "$EINZK" generate "$work/c.einc" --weights "$ex/charlm.safetensors" \
    --prompt "naïve" --vocab "$voc" --max-new 1
grep -q "ï" "$work/err.txt" || fail "the character the vocabulary lacks is not named"
expect 4 "pk as vk" -- "$EINZK" verify --vk "$work/c.pk" "$work/t.cert"
grep -q "proving key, not a verifying key" "$work/err.txt" || fail "a pk given as vk is not named"
echo "certify: operator errors exit 4 and say what is wrong"
