# shellcheck shell=sh disable=SC2154,SC2034 # $einzk is the caller's; setup_s, t0, t1 are for it
# bench/common.sh — sourced by the end-to-end bench scripts (models.sh, prove_attention.sh)
# after they set $einzk: the paths, python and clock they share, and one model's
# preparation (compile, gen, setup), which each of them did in its own words.
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=python3

now() { "$py" -c 'import time; print("%.6f" % time.time())'; }

# bench_prepare BASE MODEL [-D ...]: compile examples/MODEL.ein (with the -D flags) to
# BASE.einc; gen (--seed 1) its weights BASE.safetensors and input BASE.json; setup
# (with $setup_args, word-split; empty: the defaults) its BASE.vk and BASE.pk, timed from
# t0 to t1 (setup_s: the seconds). Returns setup's status; its stderr is in BASE.err.
bench_prepare() {
    base=$1
    model=$2
    shift 2
    "$einzk" compile "$src/examples/$model.ein" "$@" -o "$base.einc" >/dev/null
    "$einzk" gen "$base.einc" --seed 1 --weights "$base.safetensors" --input "$base.json" 2>/dev/null
    t0=$(now)
    # shellcheck disable=SC2086 # the setup options are words
    "$einzk" setup "$base.einc" --weights "$base.safetensors" --vk "$base.vk" --pk "$base.pk" ${setup_args:-} \
        >/dev/null 2>"$base.err" || return 1
    t1=$(now)
    setup_s=$("$py" -c "print(round($t1 - $t0, 3))")
}
