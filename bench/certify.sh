#!/usr/bin/env bash
# bench/certify.sh — sequence certification: one pass against one proof per step.
#
#   bench/certify.sh [EINZK] [TOKENS...]        (default ./einzk, 8 16 32 64)
#
# For the trained char LM (examples/charlm.ein, its shipped weights) and
# examples/nanogpt.ein (the shape of Jolt Atlas's nanoGPT benchmark; random weights from
# `einzk gen`), both at context 64: certify n generated tokens after a one-token prompt,
# once as ONE pass (`certify`) and once per step (`certify --per-step`), and verify each
# certificate. One JSON line per row on stdout:
#   {"model", "mode": "one-pass"|"per-step", "tokens", "passes", "positions",
#    "prove_seconds", "prove_cpu_seconds", "certificate_bytes", "verify_seconds",
#    "peak_rss_bytes"}
# then the one-pass/per-step ratios, and a plot (docs/img/certify.png) when matplotlib is
# installed (python3-matplotlib). The machine is shared: compare the ratios of one run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
E=${1:-$top/einzk}
shift || true
tokens=("$@")
[ ${#tokens[@]} -gt 0 ] || tokens=(8 16 32 64)
out=$top/out/bench-certify
mkdir -p "$out"
py=/usr/bin/python3
rows=$out/rows.jsonl
: >"$rows"

prepare() { # NAME SOURCE [WEIGHTS]
    local name=$1 src=$2 w=${3:-}
    "$E" compile "$src" -o "$out/$name.einc" >&2
    if [ -z "$w" ]; then
        w=$out/$name.safetensors
        "$E" gen "$out/$name.einc" --seed 1 --weights "$w" --input "$out/$name.in.json" >&2
    fi
    "$E" setup "$out/$name.einc" --weights "$w" --vk "$out/$name.vk" --pk "$out/$name.pk" >&2
}

measure() { # NAME N MODE
    local name=$1 n=$2 mode=$3 flag=""
    [ "$mode" = per-step ] && flag=--per-step
    # shellcheck disable=SC2086 # flag is empty or one word
    "$E" certify "$out/$name.einc" --pk "$out/$name.pk" --prompt-tokens 1 --max-new "$n" $flag \
        -o "$out/$name.cert" --json >"$out/c.json"
    "$E" verify --vk "$out/$name.vk" "$out/$name.cert" --json >"$out/v.json"
    "$py" - "$name" "$mode" "$out/c.json" "$out/v.json" <<'PY' | tee -a "$rows"
import json, sys
name, mode, c, v = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
assert v["accepted"], v
print(json.dumps({"model": name, "mode": mode, "tokens": len(c["output_tokens"]), "passes": c["passes"],
                  "positions": c["positions"], "prove_seconds": round(c["prove_seconds"], 4),
                  "prove_cpu_seconds": round(c["prove_cpu_seconds"], 4),
                  "certificate_bytes": c["certificate_bytes"], "verify_seconds": round(v["verify_seconds"], 4),
                  "peak_rss_bytes": c["peak_rss_bytes"]}))
PY
}

prepare charlm "$top/examples/charlm.ein" "$top/examples/charlm.safetensors"
prepare nanogpt "$top/examples/nanogpt.ein"
for name in charlm nanogpt; do
    for n in "${tokens[@]}"; do
        measure "$name" "$n" one-pass
        measure "$name" "$n" per-step
    done
done

"$py" - "$rows" "$top/docs/img/certify.png" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {}
for r in rows:
    by.setdefault((r["model"], r["tokens"]), {})[r["mode"]] = r
print("model     tokens  one-pass s  per-step s  ratio   one-pass CPU s  per-step CPU s  CPU ratio")
for (m, n), d in sorted(by.items()):
    if "one-pass" in d and "per-step" in d:
        a, b = d["one-pass"], d["per-step"]
        print(f"{m:<9} {n:6d}  {a['prove_seconds']:10.3f}  {b['prove_seconds']:10.3f}  {b['prove_seconds']/a['prove_seconds']:5.1f}x"
              f"  {a['prove_cpu_seconds']:14.3f}  {b['prove_cpu_seconds']:14.3f}  {b['prove_cpu_seconds']/a['prove_cpu_seconds']:8.1f}x")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("(no plot: install python3-matplotlib)", file=sys.stderr)
    sys.exit(0)
fig, ax = plt.subplots(figsize=(6.4, 4.2))
for m, style in (("charlm", "o"), ("nanogpt", "s")):
    for mode, ls in (("one-pass", "-"), ("per-step", "--")):
        pts = sorted((r["tokens"], r["prove_cpu_seconds"]) for r in rows if r["model"] == m and r["mode"] == mode)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ls, marker=style, label=f"{m}, {mode}")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("generated tokens (one-token prompt, context 64)")
ax.set_ylabel("prove CPU seconds")
ax.set_title("Certifying a generated text: one pass vs one proof per step")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print(f"plot: {sys.argv[2]}", file=sys.stderr)
PY
