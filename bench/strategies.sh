#!/bin/sh
# bench/strategies.sh — the three proving strategies (einsum, deepprove, per-head) side by
# side on attention layers (bench/strategies.c: head widths 64, 80, 96, 128; 4, 12, 16
# heads; S = 128 and 512; GQA), then the plot docs/img/strategies.png
# (tools/plot_strategies.py). Not part of `make check`.
#
# usage: bench/strategies.sh [OUT.jsonl] [--quick]
#   OUT.jsonl  where the JSON lines go (default bench/strategies.jsonl); the table goes to
#              OUT.txt beside it and to stderr.
# Environment: OMP_NUM_THREADS as you like (default: every core); OMP_WAIT_POLICY defaults
# to passive here, so that idle OpenMP threads do not spin and CPU seconds count work.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
out=${1:-bench/strategies.jsonl}
shift 2>/dev/null || true
py=/usr/bin/python3
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
[ -x "$py" ] || py=python3

make -s bench/strategies >/dev/null
echo "# $(uname -n) $(nproc) cpus, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}; load at start:$(uptime | sed 's/.*load average://')" >&2
./bench/strategies "$@" >"$out" 2>"${out%.jsonl}.txt" || true
cat "${out%.jsonl}.txt" >&2
"$py" "$src/tools/plot_strategies.py" "$out" "$src/docs/img/strategies.png"
