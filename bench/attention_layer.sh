#!/bin/sh
# bench/attention_layer — the GPT-2-small attention layer (S=128, D=768, H=12, E=64,
# causal; examples/attention.ein with -D overrides) run by `einzk run` in exact integer
# arithmetic next to the same layer in numpy float64, in the same run (issue 4: "no
# slower than numpy for the same layer").
#
# usage: bench/attention_layer.sh [EINZK] [REPEATS]      (default ./einzk, 20)
# Prints, for 1 thread (per core) and for 2 threads (OMP_NUM_THREADS and
# OPENBLAS_NUM_THREADS):
#   - einzk: fastest of REPEATS whole-layer executions (`einzk run --repeat`, excluding
#     file I/O), the contraction kernels' MAC/s per core, and the wall time of one
#     complete `einzk run` process (read plan + weights + input, quantize, run, write JSON);
#   - numpy: fastest of REPEATS layer evaluations (excluding file I/O) in numpy's faster
#     formulation (bench/attention_layer.py), twice:
#       numpy_auto  with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (both, in that
#                   command only): OpenBLAS picks its kernels from the CPU id;
#       numpy_core  with OPENBLAS_CORETYPE=SkylakeX (AVX-512 CPUs; Haswell with AVX2
#                   only): the kernels OpenBLAS would pick if it knew this CPU model.
#                   OpenBLAS 0.3.21 (Debian 12) does not know recent Xeons (e.g. family
#                   6 model 207) and falls back to its SSE3 "Prescott" kernels, four
#                   times slower: numpy_auto alone would flatter einzk.
#   - ratio = min(numpy_auto, numpy_core) / einzk (> 1 means einzk is faster).
# At 1 thread also the CPU time per layer, which other processes sharing the core do
# not inflate (on a busy machine a 40 ms run is preempted more often than an 8 ms one,
# so best-of wall times favour the shorter): einzk_cpu from `attention_layer.py
# --einzk-cpu` (5 * REPEATS executions), numpy_cpu the mean process CPU time per layer
# of the faster numpy; cpu_ratio = numpy_cpu / einzk_cpu.
# The load average is printed before and after: other processes inflate wall times.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
einzk=${1:-./einzk}
reps=${2:-20}
py=/usr/bin/python3

work=$(mktemp -d "${TMPDIR:-/tmp}/ezbench-att.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

core=""
if grep -qw avx512f /proc/cpuinfo; then
    core=SkylakeX
elif grep -qw avx2 /proc/cpuinfo; then
    core=Haswell
fi

"$einzk" compile "$src/examples/attention.ein" -D S=128 -D D=768 -D H=12 -D E=64 -o "$work/att.einc" >/dev/null
"$einzk" gen "$work/att.einc" --seed 1 --weights "$work/w.safetensors" --input "$work/in.json" 2>/dev/null
macs=$("$einzk" run "$work/att.einc" --weights "$work/w.safetensors" --input "$work/in.json" -o "$work/out.json" --profile 2>&1 >/dev/null \
    | sed -n 's/.*contractions \([0-9]*\) MACs.*/\1/p')
echo "GPT-2-small attention layer: S=128 D=768 H=12 E=64 causal; $macs contraction MACs; best of $reps"
echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
row() {
    printf '%-7s %9s %12s %10s %11s %11s %6s %10s %10s %9s\n' "$@"
}
row threads einzk_ms GMAC/s/core process_ms numpy_auto numpy_core ratio einzk_cpu numpy_cpu cpu_ratio

jfield() {
    echo "$1" | $py -c "import json,sys; d=json.load(sys.stdin); print($2)"
}

for threads in 1 2; do
    set -- OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads MKL_NUM_THREADS=$threads
    env "$@" "$einzk" run "$work/att.einc" --weights "$work/w.safetensors" --input "$work/in.json" \
        -o "$work/out.json" --profile --repeat "$reps" 2>"$work/prof$threads.txt"
    line=$(grep '^exec' "$work/prof$threads.txt")
    ex_ms=$(echo "$line" | awk '{printf "%.3f", $2 * 1000}')
    per_core=$(echo "$line" | sed -n 's/.*(\([0-9]*\) threads\{0,1\}, \([0-9.]*\) GMAC\/s per thread).*/\2/p')
    t0=$($py -c 'import time; print(time.time())')
    env "$@" "$einzk" run "$work/att.einc" --weights "$work/w.safetensors" --input "$work/in.json" -o "$work/out.json"
    t1=$($py -c 'import time; print(time.time())')
    proc_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) * 1000}')
    np_auto=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@" $py "$here/attention_layer.py" \
        "$work/w.safetensors" "$work/in.json" "$work/out.json" "$reps")
    auto_ms=$(jfield "$np_auto" '"%.3f" % d["numpy_ms"]')
    core_ms=-
    best=$auto_ms
    if [ -n "$core" ]; then
        np_core=$(env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=$core "$@" $py "$here/attention_layer.py" \
            "$work/w.safetensors" "$work/in.json" "$work/out.json" "$reps")
        core_ms=$(jfield "$np_core" '"%.3f" % d["numpy_ms"]')
        best=$(awk -v a="$auto_ms" -v b="$core_ms" 'BEGIN {print (a < b ? a : b)}')
    fi
    ratio=$(awk -v a="$best" -v b="$ex_ms" 'BEGIN {printf "%.2f", a / b}')
    ecpu=- ncpu=- cratio=-
    if [ "$threads" = 1 ]; then
        ecpu=$(env "$@" $py "$here/attention_layer.py" --einzk-cpu "$einzk" "$work" $((5 * reps)))
        ncpu=$(jfield "$np_auto" '"%.3f" % d["numpy_cpu_ms"]')
        if [ -n "$core" ]; then
            ncpu=$(jfield "$np_core" '"%.3f" % min(d["numpy_cpu_ms"], '"$ncpu"')')
        fi
        cratio=$(awk -v a="$ncpu" -v b="$ecpu" 'BEGIN {printf "%.2f", a / b}')
    fi
    row "$threads" "$ex_ms" "$per_core" "$proc_ms" "$auto_ms" "$core_ms" "$ratio" "$ecpu" "$ncpu" "$cratio"
    if [ "$threads" = 1 ]; then
        blas_auto=$(jfield "$np_auto" 'd["blas"] + ", " + d["formulation"] + " form (einsum form %.1f ms)" % d["einsum_ms"]')
        [ -n "$core" ] && blas_core=$(jfield "$np_core" 'd["blas"] + ", " + d["formulation"] + " form (einsum form %.1f ms)" % d["einsum_ms"]')
        diff=$(jfield "$np_auto" '"%.3g / %.3g" % (d["max_abs_diff_vs_einzk"], d["max_abs_ref"])')
    fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "numpy_auto (1 thread): $blas_auto"
[ -n "$core" ] && echo "numpy_core (1 thread): $blas_core"
echo "einzk output vs numpy float64: max |diff| / max |y| = $diff"
for threads in 1 2; do
    echo "einzk per-op profile, $threads thread(s) (fastest of $reps runs per op):"
    cat "$work/prof$threads.txt"
done
