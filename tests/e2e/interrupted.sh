#!/bin/sh
# interrupted — an interrupted run never leaves a partial file under the final name
# (lib/util.c ez_file_write: a temporary file in the same directory, then rename).
# `prove` and `setup` are killed (SIGKILL: no handler can tidy up) at points spread
# around the end of an uninterrupted run, where the output is being written; after each
# kill the output is either the old file, byte for byte, or a complete one (the proof
# verifies, the vk and pk prove and verify). At least one kill must land before the
# write, so the old file is seen kept.
set -eu
me=interrupted
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
# The sanitizer pass looks for memory errors; killing runs at chosen times adds none there
# and costs a minute of its budget (skip: automake's 77).
if [ "${EZ_SANITIZERS:-0}" = 1 ]; then
    echo "interrupted: skipped under the sanitizers (the plain make check runs it)"
    exit 77
fi
cd "$work"

expect 0 "compile" -- "$EINZK" compile "$top_srcdir/examples/attention.ein" -D S=16 -D D=64 -D E=16 -o a.einc
expect 0 "gen" -- "$EINZK" gen a.einc --seed 1 --weights w.st --input in.json
expect 0 "setup" -- "$EINZK" setup a.einc --weights w.st --vk a.vk --pk a.pk
expect 0 "prove" -- "$EINZK" prove a.einc --pk a.pk --input in.json -o good.proof

# kill points, as percentages of an uninterrupted run's wall time: early ones (the old
# file must be kept) and ones around the write
points="10 30 60 80 90 100 110"

# wall_ms CMD...: run CMD (stdout/stderr discarded), print its wall time in milliseconds
wall_ms() {
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || fail "uninterrupted run failed: $*"
    echo $((($(date +%s%N) - t0) / 1000000))
}

# kill_at MS CMD...: start CMD, SIGKILL it after MS milliseconds (if still running)
kill_at() {
    ms=$1
    shift
    "$@" >/dev/null 2>&1 &
    pid=$!
    sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# --- prove -o out.proof over an old file -------------------------------------------------
prove_cmd="$EINZK prove a.einc --pk a.pk --input in.json -o out.proof"
T=$(wall_ms $prove_cmd)
kept=0
for pct in $points; do
    echo "an old proof" >out.proof
    cp out.proof old.proof
    kill_at $((T * pct / 100)) $prove_cmd
    if cmp -s out.proof old.proof; then
        kept=$((kept + 1))
    else
        "$EINZK" verify --vk a.vk out.proof >/dev/null 2>&1 ||
            fail "prove killed at $pct% of ${T} ms left out.proof neither old nor a valid proof"
    fi
done
[ "$kept" -ge 1 ] || fail "prove: no kill landed before the write (runs of ${T} ms); the test shows nothing"
echo "interrupted: prove killed at $points % of ${T} ms: out.proof old ($kept) or a valid proof, never partial"

# --- setup --vk --pk over old files ---------------------------------------------------------
setup_cmd="$EINZK setup a.einc --weights w.st --vk n.vk --pk n.pk"
T=$(wall_ms $setup_cmd)
kept=0
for pct in $points; do
    echo "an old vk" >n.vk
    echo "an old pk" >n.pk
    cp n.vk old.vk
    cp n.pk old.pk
    kill_at $((T * pct / 100)) $setup_cmd
    cmp -s n.vk old.vk && kept=$((kept + 1))
    # each file is old or complete: a complete pk proves, a complete vk verifies that proof
    if ! cmp -s n.pk old.pk; then
        "$EINZK" prove a.einc --pk n.pk --input in.json -o n.proof >/dev/null 2>&1 ||
            fail "setup killed at $pct%: n.pk neither old nor a usable pk"
        "$EINZK" verify --vk a.vk n.proof >/dev/null 2>&1 ||
            fail "setup killed at $pct%: n.pk proves a proof a.vk rejects"
    fi
    if ! cmp -s n.vk old.vk; then
        "$EINZK" verify --vk n.vk good.proof >/dev/null 2>&1 ||
            fail "setup killed at $pct%: n.vk neither old nor a vk that verifies"
    fi
done
[ "$kept" -ge 1 ] || fail "setup: no kill landed before the write (runs of ${T} ms); the test shows nothing"
echo "interrupted: setup killed at $points % of ${T} ms: n.vk and n.pk old ($kept) or complete, never partial"
