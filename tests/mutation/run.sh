#!/usr/bin/env bash
# tests/mutation/run.sh — mutation testing of the verifiers: disable ONE rejecting check
# at a time in a scratch copy of the tree, rebuild, run the tests; a check whose removal
# leaves every test green ("survived") is a check no test guards. On demand, not part of
# `make check` (each mutant costs a rebuild and a test run).
#
#   tests/mutation/run.sh [--quick] [--redundant] [ID...]
#                         all mutants of tests/mutation/mutants.txt, or the named ones
#   tests/mutation/run.sh --check      validate the list against this tree (no build)
#   --quick      run the unit runner only (tests/check_einzk), not the end-to-end scripts
#   --triage     run only each mutant's SUITES hint (a quick first pass while writing
#                tests: a survivor here may still be killed by another suite)
#                (EZ_MUTATION_NO_BASELINE=1 skips the baseline run, for iterating)
#   --redundant  run the mutants marked redundant ("#=" lines) instead: they are expected
#                to survive, and are never counted in the kill rate
#
# The list's format is in tests/mutation/mutants.py: ID | SNIPPET | REPLACEMENT | WHAT
# [| SUITES]. SNIPPET is an exact piece of code that occurs exactly once in the .c files
# of lib/, runtime/ and compiler/ (so the list survives files being split or moved);
# REPLACEMENT is what it becomes (typically a condition made false: the check never
# fires). The unit runner runs fail-fast (EZ_TEST_FAILFAST), the SUITES hint first; in
# the full mode a mutant the unit runner does not kill also runs the end-to-end scripts
# (make check's other TESTS). The scratch copy is build-mutation/src; the report, with
# the kill rate, goes to stdout and build-mutation/report.txt. Exit 0 when the kill rate
# is at least 95 %.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
quick=0 redundant=0 triage=0
list="$top/tests/mutation/mutants.txt"
py="/usr/bin/python3 $top/tests/mutation/mutants.py"
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --redundant) redundant=1 ;;
    --triage) triage=1 quick=1 ;;
    --check) exec $py check "$list" "$top" ;;
    *) break ;;
    esac
    shift
done
dir="$top/build-mutation"
src="$dir/src"
mkdir -p "$src"
$py check "$list" "$top" >/dev/null || { $py check "$list" "$top"; exit 2; }
$py sync "$top" "$src" >/dev/null
cd "$src"
if [ ! -f config.status ]; then
    autoreconf -fi >/dev/null 2>&1
    ./configure CFLAGS="-O1 -g" >"$dir/build.log" 2>&1
fi
jobs=$(nproc 2>/dev/null || echo 2)
build() {
    # the unit runner alone (quick) or everything make check needs
    if [ "$quick" = 1 ]; then
        make -j"$jobs" tests/check_einzk >>"$dir/build.log" 2>&1
    else
        make -j"$jobs" >>"$dir/build.log" 2>&1 && make -j"$jobs" tests/check_einzk >>"$dir/build.log" 2>&1
    fi
}
build || { echo "mutation: the scratch copy does not build (see $dir/build.log)" >&2; exit 2; }
# make check's scripts other than the unit runner
e2e=$(make -s -f Makefile -f <(printf 'ez-print-tests:\n\t@echo $(TESTS)\n') ez-print-tests |
    tr ' ' '\n' | grep -v '^tests/check_einzk$' | tr '\n' ' ')
killer=""
# run_tests HINT: 0 when every test passes; else sets killer to what failed
run_tests() {
    local only="" tap="$dir/tap" out="$dir/out" pid rc
    [ "$triage" = 1 ] && [ -n "$1" ] && only="$1"
    : >"$tap"
    # Check writes a TAP line as each test ends: the first "not ok" stops the runner (its
    # own session, so the forked test processes go too) rather than finishing the suite
    EZ_TEST_FAILFAST=1 EZ_TEST_FIRST="$1" EZ_TEST_ONLY="$only" CK_TAP_LOG_FILE_NAME="$tap" \
        setsid timeout 3600 ./tests/check_einzk </dev/null >"$out" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if grep -q '^not ok' "$tap"; then
            kill -- -"$pid" 2>/dev/null || true
            break
        fi
        sleep 1
    done
    rc=0
    wait "$pid" || rc=$?
    if [ "$rc" != 0 ] || grep -q '^not ok' "$tap"; then
        # "not ok 3 - tests/check_pcs.c:ligero:test_x: ..." -> "pcs:test_x"
        killer=$(sed -n 's/^not ok [0-9]* - tests\/check_\([a-z0-9_]*\)\.c:[^:]*:\([^:]*\):.*/\1:\2/p' "$tap" | head -1)
        # an assertion in a shared helper (tests/prove_fixture.c, testutil.c): "case:test"
        killer=${killer:-$(sed -n 's/^not ok [0-9]* - tests\/[a-z0-9_]*\.c:\([^:]*\):\([^:]*\):.*/\1:\2/p' "$tap" | head -1)}
        killer=${killer:-$(sed -n 's/^failfast: suite \(.*\) failed$/\1/p' "$out" | head -1)}
        killer=${killer:-unit runner}
        return 1
    fi
    if [ "$quick" = 0 ] && ! timeout 7200 make -j"$jobs" check TESTS="$e2e" >/dev/null 2>&1 </dev/null; then
        killer="end-to-end"
        return 1
    fi
    return 0
}
echo "mutation: baseline (the unmodified tree must pass)"
[ -n "${EZ_MUTATION_NO_BASELINE:-}" ] || run_tests "" || { echo "mutation: the baseline fails ($killer); fix the tests first" >&2; exit 2; }
killed=0 survived=0 invalid=0 nredundant=0
report="$dir/report.txt"
: >"$report"
want_kind=mutant
[ "$redundant" = 1 ] && want_kind=redundant
# the list on fd 3: a command in the loop that reads stdin cannot swallow its lines
while IFS=$'\t' read -r -u 3 kind id hint what; do
    if [ "$kind" = redundant ] && [ "$redundant" = 0 ]; then
        nredundant=$((nredundant + 1))
        continue
    fi
    [ "$kind" = "$want_kind" ] || continue
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx -- "$id"; then continue; fi
    [ "$hint" = - ] && hint=""
    file=$($py locate "$list" "$id" "$src" 2>/dev/null) || {
        echo "INVALID  $id: the snippet is not unique" | tee -a "$report"
        invalid=$((invalid + 1))
        continue
    }
    cp "$file" "$dir/orig"
    trap 'cp "$dir/orig" "$src/$file"; touch "$src/$file"' EXIT
    $py apply "$list" "$id" "$src" >/dev/null
    t0=$(date +%s)
    if ! build; then
        echo "INVALID  $id: does not build ($what)" | tee -a "$report"
        invalid=$((invalid + 1))
    elif run_tests "$hint"; then
        echo "SURVIVED $id: $what ($file)" | tee -a "$report"
        survived=$((survived + 1))
    else
        echo "killed   $id [$killer, $(($(date +%s) - t0)) s]: $what" | tee -a "$report"
        killed=$((killed + 1))
    fi
    cp "$dir/orig" "$file"
    touch "$file"
    trap - EXIT
done 3< <($py list "$list")
build || true
total=$((killed + survived))
rate=$(awk -v k=$killed -v t=$total 'BEGIN { printf "%.1f", t ? 100 * k / t : 0 }')
if [ "$redundant" = 1 ]; then
    echo "mutation (redundant mutants): $killed killed, $survived survived, $invalid invalid" | tee -a "$report"
    exit 0
fi
echo "mutation: $killed killed, $survived survived, $invalid invalid ($nredundant redundant, not counted);" \
    "kill rate $rate %" | tee -a "$report"
awk -v r="$rate" -v i=$invalid 'BEGIN { exit (r + 0 >= 95 && i == 0) ? 0 : 1 }'
