#!/bin/sh
# bench/attention_layer — the GPT-2-small attention layer (S=128, D=768, H=12, E=64,
# causal; examples/attention.ein with -D overrides) run by `einzk run` in exact integer
# arithmetic next to the same layer in numpy float64, in the same run.
#
# usage: bench/attention_layer.sh [EINZK] [REPEATS]      (default ./einzk, 10)
# Prints, for 1 thread (per core) and for the default thread count:
#   - einzk: fastest of REPEATS whole-layer executions (`einzk run --repeat`, excluding
#     file I/O), the contraction kernels' MAC/s (per core), and the wall time of one
#     complete `einzk run` process (read plan + weights + input, quantize, run, write JSON);
#   - numpy: fastest of REPEATS layer evaluations (excluding file I/O) and its BLAS;
#   - ratio numpy / einzk (> 1 means einzk is faster).
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset only for the numpy command.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
einzk=${1:-./einzk}
reps=${2:-10}
py=/usr/bin/python3

work=$(mktemp -d "${TMPDIR:-/tmp}/ezbench-att.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

"$einzk" compile "$src/examples/attention.ein" -D S=128 -D D=768 -D H=12 -D E=64 -o "$work/att.einc" >/dev/null
"$einzk" gen "$work/att.einc" --seed 1 --weights "$work/w.safetensors" --input "$work/in.json" 2>/dev/null
macs=$("$einzk" run "$work/att.einc" --weights "$work/w.safetensors" --input "$work/in.json" -o "$work/out.json" --profile 2>&1 >/dev/null \
    | sed -n 's/.*contractions \([0-9]*\) MACs.*/\1/p')
echo "GPT-2-small attention layer: S=128 D=768 H=12 E=64 causal; $macs contraction MACs; best of $reps"
printf '%-8s %12s %14s %16s %12s %14s  %s\n' threads einzk_ms einzk_GMAC/s/core einzk_process_ms numpy_ms "numpy/einzk" blas

for threads in 1 default; do
    if [ "$threads" = 1 ]; then
        set -- OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
    else
        set --
    fi
    env "$@" "$einzk" run "$work/att.einc" --weights "$work/w.safetensors" --input "$work/in.json" \
        -o "$work/out.json" --profile --repeat "$reps" 2>"$work/prof.txt"
    line=$(grep '^exec' "$work/prof.txt")
    ex_ms=$(echo "$line" | awk '{printf "%.3f", $2 * 1000}')
    per_core=$(echo "$line" | sed -n 's/.*(\([0-9]*\) threads\{0,1\}, \([0-9.]*\) GMAC\/s per thread).*/\2/p')
    t0=$($py -c 'import time; print(time.time())')
    env "$@" "$einzk" run "$work/att.einc" --weights "$work/w.safetensors" --input "$work/in.json" -o "$work/out.json"
    t1=$($py -c 'import time; print(time.time())')
    proc_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) * 1000}')
    np_json=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@" $py "$here/attention_layer.py" \
        "$work/w.safetensors" "$work/in.json" "$work/out.json" "$reps")
    np_ms=$(echo "$np_json" | $py -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["numpy_ms"])')
    blas=$(echo "$np_json" | $py -c 'import json,sys; print(json.load(sys.stdin)["blas"])')
    diff=$(echo "$np_json" | $py -c 'import json,sys; d=json.load(sys.stdin); print("%.3g / %.3g" % (d["max_abs_diff_vs_einzk"], d["max_abs_ref"]))')
    ratio=$(awk -v a="$np_ms" -v b="$ex_ms" 'BEGIN {printf "%.2f", a / b}')
    printf '%-8s %12s %14s %16s %12s %14s  %s\n' "$threads" "$ex_ms" "$per_core" "$proc_ms" "$np_ms" "$ratio" "$blas"
done
echo "einzk output vs numpy float64: max |diff| / max |y| = $diff"
echo "per-op profile (default threads):"
cat "$work/prof.txt"
