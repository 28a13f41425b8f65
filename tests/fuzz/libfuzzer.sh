#!/usr/bin/env bash
# tests/fuzz/libfuzzer.sh — coverage-guided fuzzing (libFuzzer, Debian's clang) of the
# .ein parser, the safetensors and JSON readers, and the proof/vk/pk decoders with the
# verifier, bounded in time. `./quickstart test` runs it after `make check`.
#
#   tests/fuzz/libfuzzer.sh [SECONDS]   per harness (default 15; EZ_LIBFUZZER_SECONDS too)
#
# The sources are copied to build-fuzz/src (like tests/sanitize.sh) and built with clang
# -fsanitize=fuzzer-no-link,address,undefined; each harness is linked with -fsanitize=fuzzer
# and started from a seed corpus of real files (examples, a model's honest proof, vk and
# pk, valid weight and input files). The libFuzzer seed is printed: `-seed=N` replays.
# Exit 0 when no harness found a crash, a sanitizer report or a broken property; 77 (the
# automake "skip" status) when clang or libFuzzer is not installed.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
secs=${1:-${EZ_LIBFUZZER_SECONDS:-15}}
dir="$top/build-fuzz"
if ! command -v clang >/dev/null 2>&1 ||
    ! echo 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){return 0;}' |
        clang -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
    echo "libfuzzer: clang with libFuzzer not available; skipped (the seeded replays in make check still ran)"
    exit 77
fi
mkdir -p "$dir/src" "$dir/corpus"
# --- the copy (tracked and new files) and a clang build of the three libraries ----------
git ls-files -z --cached --others --exclude-standard | grep -zv '^build-' |
    tar --null -T - -cf - | tar -xf - -C "$dir/src"
cd "$dir/src"
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
if [ ! -f config.status ]; then
    autoreconf -fi >/dev/null 2>&1
    ./configure CC=clang CFLAGS="-O1 -g $san" >"$dir/build.log" 2>&1
fi
make -j"$(nproc)" lib/libezkernel.a compiler/libezcompiler.a runtime/libezruntime.a grammar/parser.h \
    >>"$dir/build.log" 2>&1 || { echo "libfuzzer: the clang build failed; see $dir/build.log" >&2; exit 1; }
libs="runtime/libezruntime.a compiler/libezcompiler.a lib/libezkernel.a $(pkg-config --libs jansson nettle) -lgmp -lm -fopenmp"
for h in parser safetensors json formats; do
    clang -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DEZ_LIBFUZZER -I. -I"$dir/src" \
        "tests/fuzz/fuzz_$h.c" $libs -fopenmp -o "$dir/fuzz_$h" >>"$dir/build.log" 2>&1 ||
        { echo "libfuzzer: linking fuzz_$h failed; see $dir/build.log" >&2; exit 1; }
done
cd "$top"
# --- seed corpora from real files -----------------------------------------------------------
c="$dir/corpus"
mkdir -p "$c/parser" "$c/safetensors" "$c/json" "$c/proof" "$c/vk" "$c/pk"
cp examples/*.ein "$c/parser/"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
./einzk compile examples/masked.ein -o "$work/m.einc" >/dev/null
./einzk gen "$work/m.einc" --seed 1 --weights "$work/w.st" --input "$work/in.json" >/dev/null 2>&1
./einzk setup "$work/m.einc" --weights "$work/w.st" --vk "$work/m.vk" --pk "$work/m.pk" >/dev/null
./einzk prove "$work/m.einc" --pk "$work/m.pk" --input "$work/in.json" -o "$work/m.proof" >/dev/null
cp "$work/w.st" "$c/safetensors/"
cp "$work/in.json" "$c/json/"
cp "$work/m.proof" "$c/proof/"
cp "$work/m.vk" "$c/vk/"
cp "$work/m.pk" "$c/pk/"
# --- run, each harness for $secs seconds, nproc harnesses at a time ------------------------
seed=${EZ_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "libfuzzer: $secs s per harness, -seed=$seed (replay: EZ_FUZZ_SEED=$seed tests/fuzz/libfuzzer.sh $secs)"
export EZ_FUZZ_VK="$work/m.vk" EZ_FUZZ_PROOF="$work/m.proof" EZ_FUZZ_PLAN="$work/m.einc"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# the six runs side by side, nproc at a time (each is one process); each writes its verdict
# to a file, printed in order at the end
jobs=$(nproc 2>/dev/null || echo 2)
run() { # harness corpus [mode]
    local h=$1 corp=$2 log="$dir/$1${3:+-$3}.log"
    if EZ_FUZZ_MODE=${3:-} "$dir/fuzz_$h" -seed="$seed" -max_total_time="$secs" -max_len=1048576 \
        -artifact_prefix="$dir/crash-$h-" "$corp" >"$log" 2>&1; then
        echo "libfuzzer: fuzz_$h${3:+ ($3)}: $(grep -o 'Done [0-9]* runs' "$log" | tail -1), no crash" >"$log.verdict"
    else
        { echo "libfuzzer: fuzz_$h${3:+ ($3)} FAILED (seed $seed); see $log"; tail -20 "$log"; } >"$log.verdict"
        return 1
    fi
}
specs=("parser $c/parser" "safetensors $c/safetensors" "json $c/json" "formats $c/proof proof"
    "formats $c/vk vk" "formats $c/pk pk")
rm -f "$dir"/*.verdict
for spec in "${specs[@]}"; do
    # shellcheck disable=SC2086 # the spec is two or three words by construction
    run $spec &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
done
wait || true
# the verdicts in order; a run that wrote none (killed) counts as a failure
fail=0
for spec in "${specs[@]}"; do
    # shellcheck disable=SC2086
    set -- $spec
    v="$dir/$1${3:+-$3}.log.verdict"
    if [ ! -f "$v" ]; then
        echo "libfuzzer: fuzz_$1${3:+ ($3)} left no verdict (seed $seed)" >&2
        fail=1
    elif grep -q FAILED "$v"; then
        cat "$v" >&2
        fail=1
    else
        cat "$v"
    fi
done
exit $fail
