#!/usr/bin/env bash
# The main job of ./quickstart: compile, generate data for, set up, prove and verify the
# bundled attention example, then print a one-screen summary. Usage (from the top of a
# built tree): bench/quickstart.sh [MODEL.ein] [-D NAME=VALUE]...
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-examples/attention.ein}
shift || true
out=out/quickstart
mkdir -p "$out"
name=$(basename "$model" .ein)
E=./einzk
py=/usr/bin/python3

step() { printf '== %s\n' "$*" >&2; }
step "compile $model $*"
$E compile "$model" "$@" -o "$out/$name.einc" >&2
step "gen (seed 1)"
$E gen "$out/$name.einc" --seed 1 --weights "$out/$name.safetensors" --input "$out/$name.input.json"
step "setup (commit the weights)"
t0=$(date +%s.%N)
$E setup "$out/$name.einc" --weights "$out/$name.safetensors" --vk "$out/$name.vk" --pk "$out/$name.pk" >&2
t1=$(date +%s.%N)
step "run (integer inference, for the prove/run ratio)"
$E run "$out/$name.einc" --weights "$out/$name.safetensors" --input "$out/$name.input.json" -o "$out/$name.out.json"
t2=$(date +%s.%N)
step "prove"
$E prove "$out/$name.einc" --pk "$out/$name.pk" --input "$out/$name.input.json" -o "$out/$name.proof" --json > "$out/prove.json"
step "verify (vk + proof only)"
set +e
$E verify --vk "$out/$name.vk" "$out/$name.proof" --input "$out/$name.input.json" --json > "$out/verify.json"
vrc=$?
set -e

$py - "$out" "$name" "$t0" "$t1" "$t2" "$vrc" <<'PY'
import json, os, sys
out, name, t0, t1, t2, vrc = sys.argv[1:]
p = json.load(open(os.path.join(out, "prove.json")))
v = json.load(open(os.path.join(out, "verify.json")))
setup = float(t1) - float(t0)
run = float(t2) - float(t1)
mib = lambda b: b / 2**20
print(f"einzk quickstart: {name}")
print(f"  setup            {setup:8.3f} s   vk {os.path.getsize(os.path.join(out, name + '.vk')):,} B")
print(f"  run (integer)    {run:8.3f} s   (whole process, incl. file I/O)")
print(f"  prove            {p['prove_seconds']:8.3f} s   peak RSS {mib(p['peak_rss_bytes']):.0f} MiB")
print(f"  proof            {p['proof_bytes']:,} B argument + {p['statement_bytes']:,} B statement")
print(f"  verify           {v['verify_seconds']*1000:8.1f} ms  accepted: {v['accepted']}")
ops = sorted(p.get("ops", []), key=lambda o: -o.get("seconds", 0))[:6]
if ops:
    print("  slowest ops:")
    for o in ops:
        print(f"    {o['name']:<14} {o['kind']:<10} {o['seconds']*1000:8.1f} ms {o.get('bytes', 0):>10,} B")
sys.exit(0 if v["accepted"] and vrc == "0" else 1)
PY
