#!/bin/sh
# gpt2_tokenize — tools/gpt2_tokenize.py: GPT-2's word split against Python's `re` on
# ASCII text (and the `regex` module on any text when installed), the BPE on hand-worked
# merges, round trips (tests/e2e/gpt2_tokenize.py); then the whole path a user with a
# checkpoint takes: encode a prompt into einzk's input, `einzk run` examples/gpt2.ein on a
# small random checkpoint (tests/e2e/gpt2_import.py's), decode the prompt back from the
# input file and the model's next token from the output; errors exit 1 with a message.
set -eu
me=gpt2_tokenize
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
need_numpy
tool="$top_srcdir/tools/gpt2_tokenize.py"
helper="$top_srcdir/tests/e2e/gpt2_tokenize.py"

"$PY" "$helper" check "$work/vocab" || fail "the split or the BPE"

# a checkpoint with vocab 512, 32 positions, and the helper's 265-id vocabulary
"$PY" "$top_srcdir/tests/e2e/gpt2_import.py" make "$work/ck" || fail "writing the checkpoint"
cp "$work/vocab/vocab.json" "$work/vocab/merges.txt" "$work/ck/"
flags=$("$PY" "$top_srcdir/tools/import_hf_gpt2.py" "$work/ck" -o "$work/w.safetensors" 2>/dev/null) || fail "import"
# shellcheck disable=SC2086 # the flags are words
"$EINZK" compile "$top_srcdir/examples/gpt2.ein" $flags -o "$work/m.einc" >/dev/null || fail "compile"

prompt="the abc the é"
n=$("$PY" "$tool" "$work/ck" encode "$prompt" --seq 32 --pad 0 -o "$work/in.json") || fail "encode"
[ "$n" = 7 ] || fail "encode printed '$n' ids, expected 7 (t he Ġ a bc Ġthe ĠÃ©)"
back=$("$PY" "$tool" "$work/ck" decode "$work/in.json" --first "$n") || fail "decode the input"
[ "$back" = "$prompt" ] || fail "the prompt decodes to '$back'"
"$EINZK" run "$work/m.einc" --weights "$work/w.safetensors" --input "$work/in.json" -o "$work/out.json" \
    >/dev/null || fail "einzk run"
word=$("$PY" "$tool" "$work/ck" decode "$work/out.json" --field next --at $((n - 1))) || fail "decode next"
# the same id picked by hand from the output, decoded alone: --field and --at pick it
"$PY" - "$work/out.json" "$n" "$work/one.json" <<'PYEOF' || fail "reading next"
import json, sys
nxt = json.load(open(sys.argv[1]))["next"]
i = (nxt["data"] if isinstance(nxt, dict) else nxt)[int(sys.argv[2]) - 1]
json.dump({"tok": {"shape": [1], "data": [int(i)]}}, open(sys.argv[3], "w"))
PYEOF
alone=$("$PY" "$tool" "$work/ck" decode "$work/one.json") || fail "decode one id"
[ "$word" = "$alone" ] || fail "next[n-1] decodes to '$word', the id alone to '$alone'"
echo "gpt2_tokenize: prompt '$prompt' ($n ids), the random model's next token '$word'"

# errors: exit 1, one line naming the cause
expect 1 "--seq shorter than the text" -- "$PY" "$tool" "$work/ck" encode "$prompt" --seq 4 -o "$work/x.json"
grep -q "the text is 7 tokens; --seq 4" "$work/err.txt" || fail "message: $(cat "$work/err.txt")"
[ ! -e "$work/x.json" ] || fail "an input written despite the error"
expect 1 "no vocabulary" -- "$PY" "$tool" "$work" encode "x" -o "$work/x.json"
grep -q "vocab.json" "$work/err.txt" || fail "message: $(cat "$work/err.txt")"
expect 1 "a field the file lacks" -- "$PY" "$tool" "$work/ck" decode "$work/in.json" --field next
grep -q "no field 'next'" "$work/err.txt" || fail "message: $(cat "$work/err.txt")"
echo '{"tok": [3, 9999]}' >"$work/big.json"
expect 1 "an id outside the vocabulary" -- "$PY" "$tool" "$work/ck" decode "$work/big.json"
grep -q "no token has id 9999" "$work/err.txt" || fail "message: $(cat "$work/err.txt")"
echo "gpt2_tokenize: ok"
