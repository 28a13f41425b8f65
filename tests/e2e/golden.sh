#!/bin/sh
# Golden diagnostics: every tests/golden/NAME.ein must make `einzk check` exit 3 with
# exactly the stderr in tests/golden/NAME.err. A first line `# args: ...` gives extra
# command-line arguments (e.g. -D X=3); a line `# expect: N` among the first two another
# exit code (0 for a valid model whose .err holds its warnings). Runs from the source tree so the file names in
# the messages are the relative paths tests/golden/NAME.ein.
#   top_srcdir, top_builddir: set by `make check`; default to this script's tree and cwd.
#   EZ_GOLDEN_UPDATE=1 rewrites the .err files from the current output (review the diff!).
set -u
me=golden
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
cd "$top_srcdir" || exit 99

pass=0 fail=0
for ein in tests/golden/*.ein; do
    name=${ein%.ein}
    args=$(sed -n '1s/^# args: //p' "$ein")
    want=$(sed -n '1,2s/^# expect: //p' "$ein")
    want=${want:-3}
    # shellcheck disable=SC2086 # args are split on purpose
    "$EINZK" check "$ein" $args >"$work/out" 2>"$work/err"
    rc=$?
    if [ "${EZ_GOLDEN_UPDATE:-0}" = 1 ]; then
        cp "$work/err" "$name.err"
    fi
    ok=1
    if [ $rc -ne "$want" ]; then
        echo "FAIL $ein: exit code $rc, expected $want"
        ok=0
    fi
    if [ -s "$work/out" ]; then
        echo "FAIL $ein: unexpected output on stdout:"
        cat "$work/out"
        ok=0
    fi
    if [ ! -f "$name.err" ]; then
        echo "FAIL $ein: missing $name.err"
        ok=0
    elif ! diff -u "$name.err" "$work/err" >"$work/diff"; then
        echo "FAIL $ein: stderr differs from $name.err:"
        cat "$work/diff"
        ok=0
    fi
    if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "golden diagnostics: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
