#!/bin/sh
# oracle — `einzk run` against numpy (tests/oracle/oracle.py):
#   1. every example model: compile, `einzk gen` random weights/inputs, `einzk run`,
#      then a generic float64 numpy evaluation of the same plan; outputs must agree
#      within 2 % of each output's largest magnitude (observed: about 0.1-0.3 %);
#      argmax outputs may differ only at numpy near-ties. `--compare-float` must run.
#   2. random einsum equations at scale 0 (batch, contracted, free, summed indices,
#      three-operand products) must equal numpy.einsum exactly.
# Needs Debian's numpy (/usr/bin/python3); skipped (77) without it.
set -eu
me=oracle
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
oracle="$top_srcdir/tests/oracle/oracle.py"

py=""
for cand in /usr/bin/python3 "${PYTHON3:-}"; do
    if [ -n "$cand" ] && [ -x "$cand" ] && "$cand" -c 'import numpy' 2>/dev/null; then
        py=$cand
        break
    fi
done
if [ -z "$py" ]; then
    echo "oracle: no python3 with numpy (apt-get install python3-numpy); skipped" >&2
    exit 77
fi

fail=0
for ein in "$top_srcdir"/examples/*.ein; do
    m=$(basename "$ein" .ein)
    # an example too large to run here names smaller sizes: "# oracle-args: -D L=2 ..."
    args=$(sed -n 's/^# oracle-args: //p' "$ein")
    echo "== $m${args:+ $args}"
    # shellcheck disable=SC2086 # the -D flags are words
    if ! "$EINZK" compile "$ein" $args -o "$work/$m.einc" >/dev/null; then
        echo "oracle: $m does not compile" >&2
        fail=1
        continue
    fi
    "$EINZK" gen "$work/$m.einc" --seed 7 --weights "$work/$m.safetensors" --input "$work/$m.json" 2>/dev/null
    if ! "$EINZK" run "$work/$m.einc" --weights "$work/$m.safetensors" --input "$work/$m.json" \
        -o "$work/$m.out.json" --compare-float 2>"$work/$m.cmp"; then
        cat "$work/$m.cmp" >&2
        fail=1
        continue
    fi
    grep -q '^worst op' "$work/$m.cmp" || { echo "oracle: $m: no --compare-float table" >&2; fail=1; }
    "$py" "$oracle" model "$EINZK" "$work/$m.einc" "$work/$m.safetensors" "$work/$m.json" \
        "$work/$m.out.json" || fail=1
done

echo "== random einsum equations"
"$py" "$oracle" random "$EINZK" "$work/random" --count 40 --seed 11 || fail=1

exit $fail
