#!/usr/bin/env bash
# tests/mutation/run.sh — mutation testing of the verifiers: disable ONE rejecting check
# at a time in a scratch copy of the tree, rebuild, run the tests; a check whose removal
# leaves every test green ("survived") is a check no test guards. On demand, not part of
# `make check` (each mutant costs a rebuild and a test run).
#
#   tests/mutation/run.sh [--quick] [ID...]     all mutants of tests/mutation/mutants.txt,
#                                               or the named ones
#   --quick   run the unit runner only (tests/check_einzk), not the end-to-end scripts
#
# mutants.txt, one mutant per line (# comments): ID | SNIPPET | REPLACEMENT | WHAT
# SNIPPET is an exact piece of code that occurs exactly once in lib/, runtime/ and
# compiler/ (so the list survives files being split or moved); REPLACEMENT is what it
# becomes (typically a condition made false: the check never fires). The scratch copy is
# build-mutation/src; the report, with the kill rate, goes to stdout and
# build-mutation/report.txt. Exit 0 when the kill rate is at least 95 %.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
quick=0
if [ "${1:-}" = --quick ]; then
    quick=1
    shift
fi
dir="$top/build-mutation"
src="$dir/src"
list="$top/tests/mutation/mutants.txt"
mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard | grep -zv '^build-' | tar --null -T - -cf - |
    tar -xf - -C "$src"
cd "$src"
if [ ! -f config.status ]; then
    autoreconf -fi >/dev/null 2>&1
    ./configure CFLAGS="-O1 -g" >"$dir/build.log" 2>&1
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs" >>"$dir/build.log" 2>&1
make -j"$jobs" tests/check_einzk >>"$dir/build.log" 2>&1
run_tests() {
    if [ "$quick" = 1 ]; then
        ./tests/check_einzk >/dev/null 2>&1 </dev/null
    else
        make -j"$jobs" check >/dev/null 2>&1 </dev/null
    fi
}
echo "mutation: baseline (the unmodified tree must pass)"
run_tests || { echo "mutation: the baseline fails; fix the tests first" >&2; exit 2; }
killed=0 survived=0 invalid=0
report="$dir/report.txt"
: >"$report"
while IFS='|' read -r id snippet repl what; do
    id=$(echo "$id" | xargs)
    case "$id" in '' | \#*) continue ;; esac
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$id"; then continue; fi
    snippet=$(echo "$snippet" | sed 's/^ //; s/ $//')
    repl=$(echo "$repl" | sed 's/^ //; s/ $//')
    files=$(grep -rlF -- "$snippet" lib runtime compiler --include='*.c' || true)
    n=$(printf '%s' "$files" | grep -c . || true)
    if [ "$n" -ne 1 ] || [ "$(grep -cF -- "$snippet" "$files")" -ne 1 ]; then
        echo "INVALID  $id: the snippet is not unique ($n files)" | tee -a "$report"
        invalid=$((invalid + 1))
        continue
    fi
    cp "$files" "$dir/orig"
    /usr/bin/python3 - "$files" "$snippet" "$repl" <<'PY'
import sys
p, a, b = sys.argv[1:]
s = open(p).read()
open(p, "w").write(s.replace(a, b, 1))
PY
    if ! make -j"$jobs" >/dev/null 2>&1 || ! make -j"$jobs" tests/check_einzk >/dev/null 2>&1; then
        echo "INVALID  $id: does not build ($what)" | tee -a "$report"
        invalid=$((invalid + 1))
    elif run_tests; then
        echo "SURVIVED $id: $what ($files)" | tee -a "$report"
        survived=$((survived + 1))
    else
        echo "killed   $id: $what" | tee -a "$report"
        killed=$((killed + 1))
    fi
    cp "$dir/orig" "$files"
    touch "$files"
done <"$list"
make -j"$jobs" >/dev/null 2>&1 || true
total=$((killed + survived))
rate=$(awk -v k=$killed -v t=$total 'BEGIN { printf "%.1f", t ? 100 * k / t : 0 }')
echo "mutation: $killed killed, $survived survived, $invalid invalid; kill rate $rate %" | tee -a "$report"
awk -v r="$rate" 'BEGIN { exit (r + 0 >= 95) ? 0 : 1 }'
