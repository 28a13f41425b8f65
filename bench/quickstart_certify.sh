#!/usr/bin/env bash
# The first part of ./quickstart's main job: the project's own trained char LM
# (examples/charlm.ein, tools/train_charlm.py) writes a continuation of a prompt, and
# `einzk certify` proves with ONE forward pass that it is the model's greedy choice at
# every position; `einzk verify` checks it with the vk alone and prints the text.
# Usage (from the top of a built tree): bench/quickstart_certify.sh [PROMPT] [MAX_NEW]
set -euo pipefail
cd "$(dirname "$0")/.."
prompt=${1:-This License}
max_new=${2:-48}
out=out/quickstart
mkdir -p "$out"
E=./einzk
py=/usr/bin/python3
voc=examples/charlm.vocab.json

step() { printf '== %s\n' "$*" >&2; }
step "compile examples/charlm.ein (a 2-layer character LM trained on the GPL-3 text)"
$E compile examples/charlm.ein -o "$out/charlm.einc" >&2
step "setup (commit the trained weights)"
$E setup "$out/charlm.einc" --weights examples/charlm.safetensors --vk "$out/charlm.vk" --pk "$out/charlm.pk" >&2
step "certify: generate greedily and prove the whole text in one pass"
$E certify "$out/charlm.einc" --pk "$out/charlm.pk" --prompt "$prompt" --vocab "$voc" --max-new "$max_new" \
    -o "$out/charlm.cert" --json >"$out/certify.json"
step "verify (vk + certificate only)"
set +e
$E verify --vk "$out/charlm.vk" "$out/charlm.cert" --vocab "$voc" --prompt "$prompt" --json >"$out/verify_cert.json"
vrc=$?
set -e
$py - "$out" "$vrc" <<'PY'
import json, os, sys
out, vrc = sys.argv[1:]
c = json.load(open(os.path.join(out, "certify.json")))
v = json.load(open(os.path.join(out, "verify_cert.json")))
prompt = "".join(json.load(open("examples/charlm.vocab.json"))["alphabet"][t] for t in c["prompt_tokens"])
print("einzk quickstart: certified text (examples/charlm.ein)")
print(f"  prompt           {prompt!r}")
print(f"  certified text   {v.get('text', c.get('text'))!r}")
print(f"  tokens           {len(c['output_tokens'])} generated, one pass over {c['positions']} positions")
print(f"  generate         {c['generate_seconds']:8.3f} s   (integer runtime, KV cache)")
print(f"  prove            {c['prove_seconds']:8.3f} s   peak RSS {c['peak_rss_bytes'] / 2**20:.0f} MiB")
print(f"  certificate      {c['certificate_bytes']:,} B")
print(f"  verify           {v['verify_seconds']*1000:8.1f} ms  accepted: {v['accepted']}")
sys.exit(0 if v["accepted"] and vrc == "0" else 1)
PY
