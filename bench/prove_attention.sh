#!/bin/sh
# bench/prove_attention — end-to-end proving cost with the real CLI: compile, gen, setup,
# `einzk run`, `einzk prove --json`, `einzk verify --json`, all in the same run.
#
# usage: bench/prove_attention.sh [EINZK] [THREADS] [all]
#   EINZK    the binary (default ./einzk); THREADS sets OMP_NUM_THREADS (default: unset);
#   all      also the masked-attention and MLP rows (slower).
#
# Rows (issue 5's target is the GPT-2 row):
#   attention S=64 D=256 H=4 E=64   — examples/attention.ein at its default sizes;
#   attention S=128 D=768 H=12 E=64 — the GPT-2-small attention layer (causal softmax);
#   with `all`: masked S x D, E (examples/masked.ein, no softmax) and linear S x D x F
#   (examples/linear.ein, a 2-layer MLP with residual).
# Columns: setup seconds (wall, whole process), proof (argument) bytes, prove seconds
# (`prove_seconds`: from the loaded pk and input to the written proof, the integer
# inference included), the same in process CPU seconds (all threads; on a shared machine
# the wall clock also counts other jobs), the wall-clock phases (witness = inference +
# advice fill + lookup columns and multiplicities; commit; lookups; sumchecks = output
# claims + walk; openings), verify milliseconds (`verify_seconds`, the vk's weight range
# proof included), peak RSS of prove, the wall time of one `einzk run` process (weights
# and input loaded, inference, output written) and ratio = prove_seconds / run seconds.
# A JSON line per row follows the table (all numbers, and the per-op walk times).
# Not part of `make check` (the GPT-2 row takes tens of seconds on a loaded machine).
set -eu

einzk=${1:-./einzk}
threads=${2:-}
rows=${3:-}
. "$(dirname "$0")/common.sh"
[ -n "$threads" ] && export OMP_NUM_THREADS="$threads"

work=$(mktemp -d "${TMPDIR:-/tmp}/ezbench-prove.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

echo "# $(uname -n) $(nproc) cpus, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}; load at start:$(uptime | sed 's/.*load average://')"
printf '%-32s %7s %9s %7s %7s %7s %7s %7s %7s %7s %8s %7s %7s %6s\n' model setup_s proof prove_s cpu_s witness \
    commit lookups sumchk opening verify_ms rss_MiB run_s ratio

one() {
    label=$1
    model=$2
    shift 2
    if ! bench_prepare "$work/m" "$model" "$@"; then
        printf '%-32s skipped: %s\n' "$label" "$(sed 's/^einzk setup: error: //' "$work/m.err")"
        return 0
    fi
    "$einzk" run "$work/m.einc" --weights "$work/m.safetensors" --input "$work/m.json" -o "$work/out.json"
    t2=$(now)
    "$einzk" prove "$work/m.einc" --pk "$work/m.pk" --input "$work/m.json" -o "$work/m.proof" --json >"$work/p.json"
    t3=$(now)
    "$einzk" verify --vk "$work/m.vk" "$work/m.proof" --json >"$work/v.json"
    "$py" - "$label" "$work/p.json" "$work/v.json" "$t0" "$t1" "$t2" "$t3" "$(wc -c <"$work/m.vk")" \
        "$(wc -c <"$work/m.pk")" <<'PYEOF'
import json, sys
label = sys.argv[1]
p, v = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
t0, t1, t2, t3 = map(float, sys.argv[4:8])
assert v["accepted"], v
ph = p["phases"]
setup_s, run_s, prove_wall = t1 - t0, t2 - t1, t3 - t2
ratio = p["prove_seconds"] / run_s
print("%-32s %7.2f %9d %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %8.1f %7.0f %7.3f %6.1f" % (
    label, setup_s, p["proof_bytes"], p["prove_seconds"], p["prove_cpu_seconds"], ph["witness"], ph["commit"],
    ph["lookups"], ph["sumchecks"], ph["openings"], v["verify_seconds"] * 1e3, p["peak_rss_bytes"] / 2**20, run_s,
    ratio))
row = {"model": label, "setup_seconds": round(setup_s, 3), "vk_bytes": int(sys.argv[8]), "pk_bytes": int(sys.argv[9]),
       "proof_bytes": p["proof_bytes"], "statement_bytes": p["statement_bytes"],
       "prove_seconds": round(p["prove_seconds"], 3), "prove_process_seconds": round(prove_wall, 3),
       "phases": {k: round(x, 3) for k, x in ph.items()}, "prove_cpu_seconds": round(p["prove_cpu_seconds"], 3),
       "phases_cpu": {k: round(x, 3) for k, x in p["phases_cpu"].items()},
       "verify_seconds": round(v["verify_seconds"], 4),
       "prove_peak_rss_bytes": p["peak_rss_bytes"], "run_process_seconds": round(run_s, 3),
       "prove_over_run": round(ratio, 1), "ops": {o["name"]: round(o["seconds"], 3) for o in p["ops"]}}
open(sys.argv[2] + ".rows", "a").write(json.dumps(row) + "\n")
PYEOF
    cat "$work/p.json.rows" >>"$work/rows.jsonl"
    rm -f "$work/p.json.rows"
}

one "attention S=64 D=256 H=4 E=64" attention
one "attention S=128 D=768 H=12 E=64" attention -D S=128 -D D=768 -D H=12 -D E=64
if [ "$rows" = all ]; then
    one "masked S=64 D=256 E=64" masked -D S=64 -D D=256 -D E=64
    one "masked S=128 D=768 E=64" masked -D S=128 -D D=768 -D E=64
    one "linear S=64 D=256 F=1024" linear -D S=64 -D D=256 -D F=1024
    one "linear S=128 D=768 F=3072" linear -D S=128 -D D=768 -D F=3072
fi
echo "# load at end:$(uptime | sed 's/.*load average://')"
cat "$work/rows.jsonl"
