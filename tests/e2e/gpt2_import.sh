#!/bin/sh
# gpt2_import — tools/import_hf_gpt2.py end to end on a small random checkpoint in Hugging
# Face's GPT-2 layout (2 layers, 4 heads, n_embd 64, vocab 512, 32 positions; written by
# tests/e2e/gpt2_import.py): the importer prints the -D flags of the config, the tensor
# prefix `transformer.` makes no difference, examples/gpt2.ein compiles with the flags,
# `einzk run` on the converted weights agrees with an independent numpy float64 forward
# pass on the HF tensors (logits within 0.5 % of max |logit|, observed ~0.1 %; argmax equal
# wherever numpy's top-two margin exceeds that, at >= 3/4 of the positions), also with
# --seq 16; swapping wq and wk makes the comparison fail (it can fail); a missing tensor,
# a wrong shape and a bad --seq exit 1 with a message naming file and tensor.
set -eu
me=gpt2_import
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
need_numpy
py=$PY
helper="$top_srcdir/tests/e2e/gpt2_import.py"
import="$top_srcdir/tools/import_hf_gpt2.py"
model="$top_srcdir/examples/gpt2.ein"
BOUND=0.005

"$py" "$helper" make "$work/ck" || fail "writing the checkpoint"
"$py" "$helper" make "$work/ckp" --prefix || fail "writing the prefixed checkpoint"
flags=$("$py" "$import" "$work/ck" -o "$work/w.safetensors") || fail "import"
[ "$flags" = "-D V=512 -D S=32 -D D=64 -D H=4 -D L=2 -D F=256" ] || fail "import printed '$flags'"
flagsp=$("$py" "$import" "$work/ckp" -o "$work/wp.safetensors" 2>/dev/null) || fail "import (prefix)"
[ "$flagsp" = "$flags" ] || fail "prefixed checkpoint: '$flagsp'"
cmp -s "$work/w.safetensors" "$work/wp.safetensors" || fail "the transformer. prefix changes the weights"
echo "gpt2_import: import prints $flags (same with the transformer. prefix)"

# run_compare NAME EINC WEIGHTS NTOK SEED: einzk run, then the numpy comparison
run_compare() {
    "$py" "$helper" tokens "$4" "$5" "$work/$1.in.json"
    "$EINZK" run "$2" --weights "$3" --input "$work/$1.in.json" -o "$work/$1.out.json" \
        --compare-float 2>"$work/$1.cmp" || { cat "$work/$1.cmp" >&2; fail "$1: einzk run"; }
    grep '^worst op' "$work/$1.cmp" || fail "$1: no --compare-float summary"
    "$py" "$helper" compare "$work/ck" "$work/$1.in.json" "$work/$1.out.json" "$BOUND"
}

# shellcheck disable=SC2086 # the flags are words
"$EINZK" compile "$model" $flags -o "$work/m.einc" >/dev/null || fail "compile gpt2.ein $flags"
run_compare s32 "$work/m.einc" "$work/w.safetensors" 32 1 || fail "S=32 differs from numpy"

flags16=$("$py" "$import" "$work/ck" -o "$work/w16.safetensors" --seq 16 2>/dev/null) || fail "import --seq 16"
[ "$flags16" = "-D V=512 -D S=16 -D D=64 -D H=4 -D L=2 -D F=256" ] || fail "--seq 16 printed '$flags16'"
# shellcheck disable=SC2086
"$EINZK" compile "$model" $flags16 -o "$work/m16.einc" >/dev/null || fail "compile gpt2.ein $flags16"
run_compare s16 "$work/m16.einc" "$work/w16.safetensors" 16 2 || fail "--seq 16 differs from numpy"

# negative control: the comparison notices a Q/K mix-up
"$py" - "$top_srcdir/tools" "$work/w.safetensors" "$work/swap.safetensors" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
from safetensors_np import SafeTensors, write_f32
st = SafeTensors(sys.argv[2])
swap = {"wq": "wk", "wk": "wq"}
write_f32(sys.argv[3], [(n, st.get(swap.get(n, n))) for n in st.names()])
PYEOF
if run_compare swap "$work/m.einc" "$work/swap.safetensors" 32 1 >"$work/swap.txt"; then
    cat "$work/swap.txt" >&2
    fail "swapping wq and wk went unnoticed"
fi
echo "gpt2_import: wq and wk swapped: the comparison fails, as it must"

# error paths: exit 1, the file and the tensor named, no output left behind
expect_error() { # DIR PATTERN [ARGS...]
    dir=$1
    pat=$2
    shift 2
    rc=0
    "$py" "$import" "$dir" -o "$work/bad.safetensors" "$@" >"$work/out.txt" 2>"$work/err.txt" || rc=$?
    [ "$rc" -eq 1 ] || { cat "$work/err.txt" >&2; fail "$dir $*: exit $rc, expected 1"; }
    grep -q -- "$pat" "$work/err.txt" || { cat "$work/err.txt" >&2; fail "message does not match '$pat'"; }
    [ ! -s "$work/out.txt" ] || fail "$dir: flags printed despite the error"
    [ ! -e "$work/bad.safetensors" ] || fail "$dir: output written despite the error"
    sed 's/^/  /' "$work/err.txt"
}
"$py" "$helper" make "$work/missing" --prefix --omit h.1.mlp.c_fc.bias
expect_error "$work/missing" "missing/model.safetensors: missing tensor 'h.1.mlp.c_fc.bias'"
"$py" "$helper" make "$work/shape" --reshape h.0.attn.c_attn.weight
expect_error "$work/shape" "shape/model.safetensors: tensor 'h.0.attn.c_attn.weight': shape \[64, 191\], expected \[64, 192\]"
expect_error "$work/ck" "--seq 33: must be in \[1, 32\]" --seq 33
rm "$work/shape/config.json"
expect_error "$work/shape" "shape/config.json: No such file"
echo "gpt2_import: ok"
