#!/bin/sh
# bench/gpt2 — GPT-2 small (examples/gpt2.ein, 124M parameters) end to end with the real
# CLI: compile at S = TOKENS, random weights of realistic scale (`einzk gen`), the
# float-vs-integer error (`einzk run --compare-float`), setup, prove --json, verify --json.
#
# usage: bench/gpt2.sh [EINZK] [TOKENS...]      (default: ./einzk 64 512)
# environment:
#   GPT2_DEFS     extra compile flags, e.g. "-D L=1" for one block (default: none, L = 12)
#   GPT2_PCS      setup's --pcs (default: setup's default, WHIR)
#   GPT2_KEEP     a directory to keep the files in (default: a temporary one, removed)
#   EZ_SPILL_DIR  a directory on disk for the WHIR prover data of setup and prove
#                 (docs/cli.md; default: unset, which spills to $TMPDIR or /tmp when the
#                 prover's estimate exceeds half the memory — the 512-token row at L = 12
#                 — and keeps the rest in memory; empty: never spill)
#   OMP_NUM_THREADS as usual (default: all cores); OMP_WAIT_POLICY=passive keeps libgomp's
#                 spin-waits out of the CPU seconds (about half of them on this 2-core VM
#                 under load: docs/performance.md)
#
# Output: a human-readable line per row, then one JSON line per row with
#   tokens, threads (OMP_NUM_THREADS, else the cpu count), setup_seconds, setup_cpu_seconds, setup_peak_rss_bytes, prove_seconds (from the
#   loaded pk to the written proof, integer inference included), prove_cpu_seconds,
#   prove_process_seconds (pk loading included), prove_peak_rss_bytes, peak_rss_bytes (the
#   larger of setup's and prove's), verify_seconds, proof_bytes (the argument, statement
#   excluded), statement_bytes, vk_bytes, pk_bytes, phases / phases_cpu (witness, commit,
#   lookups, sumchecks, openings), classes (per op class: the walk seconds of each op —
#   its merge and reduction — summed; the commitment and lookups are shared phases and
#   are not split by op), advice (committed entries per class, from `einzk info`),
#   float_worst_rel (the worst op's relative error of the integer run against float64),
#   argmax_max_index_diff (the largest |integer argmax - float64 argmax| over the positions:
#   0 when every next token agrees).
# tools/plot_gpt2.py ROWS.jsonl OUT.png draws the rows (docs/img/gpt2.png).
# Op classes (from the op names examples/gpt2.ein produces and their kinds):
#   embedding (token + position), norms (layernorm, gain, bias), projections (q, k, v and
#   the attention's output projection with its residual add), attention_scores (q . k),
#   softmax, attention_values (p . v), mlp (fc, gelu, proj and its residual add),
#   lm_head (z . wte^T), argmax.
# Not part of `make check` (minutes per row; the 512-token row at L = 12 spills its WHIR
# data to disk to stay within 16 GB, on its own unless EZ_SPILL_DIR says otherwise).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
einzk=${1:-./einzk}
[ $# -gt 0 ] && shift
tokens=${*:-64 512}
py=/usr/bin/python3
[ -x "$py" ] || py=python3
case $einzk in /*) ;; *) einzk=$(pwd)/$einzk ;; esac

if [ -n "${GPT2_KEEP:-}" ]; then
    work=$GPT2_KEEP
    mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/ezbench-gpt2.XXXXXX")
    trap 'rm -rf "$work"' EXIT INT TERM
fi
pcs=
[ -n "${GPT2_PCS:-}" ] && pcs="--pcs $GPT2_PCS"

echo "# $(uname -n) $(nproc) cpus, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}, OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}, EZ_SPILL_DIR=${EZ_SPILL_DIR:-unset}, defs: ${GPT2_DEFS:-none}; load at start:$(uptime | sed 's/.*load average://')"
printf '%6s %8s %8s %8s %8s %9s %8s %8s %9s %9s %9s\n' tokens setup_s prove_s cpu_s verify_s proof_B vk_MB pk_MB \
    rss_set_MB rss_prv_MB worst_rel

for s in $tokens; do
    d=$work/s$s
    mkdir -p "$d"
    # shellcheck disable=SC2086
    "$einzk" compile "$src/examples/gpt2.ein" -D S="$s" ${GPT2_DEFS:-} -o "$d/m.einc" >/dev/null
    "$einzk" info "$d/m.einc" >"$d/info.txt"
    [ -f "$d/w.safetensors" ] || "$einzk" gen "$d/m.einc" --seed 1 --weights "$d/w.safetensors" --input "$d/in.json" 2>/dev/null
    "$einzk" run "$d/m.einc" --weights "$d/w.safetensors" --input "$d/in.json" -o "$d/out.json" --compare-float \
        2>"$d/float.txt"
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %U %S %M' -o "$d/setup.time" "$einzk" setup "$d/m.einc" --weights "$d/w.safetensors" \
        --vk "$d/m.vk" --pk "$d/m.pk" $pcs >/dev/null
    /usr/bin/time -f '%e %U %S %M' -o "$d/prove.time" "$einzk" prove "$d/m.einc" --pk "$d/m.pk" --input "$d/in.json" \
        -o "$d/m.proof" --json >"$d/p.json"
    "$einzk" verify --vk "$d/m.vk" "$d/m.proof" --json >"$d/v.json"
    "$py" - "$s" "$d" "$(wc -c <"$d/m.vk")" "$(wc -c <"$d/m.pk")" <<'PYEOF'
import json, os, re, sys
s, d, vkb, pkb = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
p, v = json.load(open(d + "/p.json")), json.load(open(d + "/v.json"))
assert v["accepted"], v
st = open(d + "/setup.time").read().split()
pt = open(d + "/prove.time").read().split()

def cls(name, kind):
    base = re.split(r"[.']", name)[0]
    if kind == "argmax":
        return "argmax"
    if base == "logits":
        return "lm_head"
    if kind == "layernorm" or base in ("n", "z"):
        return "norms"
    if kind == "softmax":
        return "softmax"
    if base == "a":
        return "attention_scores"
    if base == "c":
        return "attention_values"
    if base in ("q", "k", "v"):
        return "projections"
    if base == "u":
        return "mlp"
    if base == "x":
        m = re.match(r"x'(\d+)", name)
        if not m:
            return "embedding"
        return "projections" if int(m.group(1)) % 2 == 1 else "mlp"
    return "other"

classes, advice = {}, {}
for o in p["ops"]:
    c = cls(o["name"], o["kind"])
    classes[c] = classes.get(c, 0.0) + o["seconds"]
for line in open(d + "/info.txt"):
    f = line.split()
    if len(f) > 10 and f[0].isdigit() and f[3] in ("yes", "no"):
        c = cls(f[1], f[2])
        advice[c] = advice.get(c, 0) + int(f[9])
worst, mism = None, None
for line in open(d + "/float.txt"):
    m = re.match(r"worst op: .*relative error ([0-9.eE+-]+)", line)
    if m:
        worst = float(m.group(1))
    f = line.split()
    if len(f) > 3 and f[2] == "argmax":
        mism = float(f[3])
threads = int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count())
row = {"tokens": s, "threads": threads, "setup_seconds": float(st[0]), "setup_cpu_seconds": round(float(st[1]) + float(st[2]), 2),
       "setup_peak_rss_bytes": int(st[3]) * 1024,
       "prove_seconds": round(p["prove_seconds"], 3), "prove_cpu_seconds": round(p["prove_cpu_seconds"], 3),
       "prove_process_seconds": float(pt[0]), "prove_process_cpu_seconds": round(float(pt[1]) + float(pt[2]), 2),
       "prove_peak_rss_bytes": p["peak_rss_bytes"],
       "peak_rss_bytes": max(p["peak_rss_bytes"], int(st[3]) * 1024),
       "verify_seconds": round(v["verify_seconds"], 4), "proof_bytes": p["proof_bytes"],
       "statement_bytes": p["statement_bytes"], "vk_bytes": vkb, "pk_bytes": pkb,
       "phases": {k: round(x, 3) for k, x in p["phases"].items()},
       "phases_cpu": {k: round(x, 3) for k, x in p["phases_cpu"].items()},
       "classes": {k: round(x, 3) for k, x in sorted(classes.items())},
       "advice": dict(sorted(advice.items())), "float_worst_rel": worst,
       "argmax_max_index_diff": mism}
print("%6d %8.1f %8.1f %8.1f %8.3f %9d %8.1f %8.1f %9.0f %9.0f %9.2g" % (
    s, row["setup_seconds"], row["prove_seconds"], row["prove_cpu_seconds"], row["verify_seconds"],
    row["proof_bytes"], vkb / 1e6, pkb / 1e6, row["setup_peak_rss_bytes"] / 2**20, row["prove_peak_rss_bytes"] / 2**20,
    worst or 0))
open(d + "/row.json", "w").write(json.dumps(row) + "\n")
PYEOF
    cat "$d/row.json" >>"$work/rows.jsonl"
done
echo "# load at end:$(uptime | sed 's/.*load average://')"
cat "$work/rows.jsonl"
