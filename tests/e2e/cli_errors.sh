#!/bin/sh
# cli_errors — what the command line says when something is wrong:
#   - a proof of another model or of other weights is rejected (exit 1) saying so first,
#     with both digests / both weight commitments;
#   - a file of the wrong kind (a vk as --pk, a proof as --input, a .einc given to check,
#     a .ein given to run, ...) is an operator error: exit 4 naming what the file is;
#   - under --json an error is ONE object {"error": {"code", "message"[, "file", "line",
#     "column"]}} on stdout and nothing else, code = the exit code (usage errors too);
#   - --scale/--bits override the source's defaults (check, compile, verify --model);
#   - --threads above the CPU count is capped with a note;
#   - EZ_SPILL_DIR that is not a writable directory is an error (exit 4), not a silent
#     fallback to memory; unset, it is chosen ($TMPDIR) when the prover's estimate exceeds
#     EZ_SPILL_BUDGET (a bad budget: exit 4).
set -eu
me=cli_errors
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
cd "$work"

# say PATTERN [FILE]: FILE (default out.txt) holds PATTERN
say() {
    grep -q -e "$1" "$work/${2:-out.txt}" || {
        cat "$work/out.txt" "$work/err.txt" >&2
        fail "expected '$1' in ${2:-out.txt}"
    }
}

expect 0 "compile linear" -- "$EINZK" compile "$top_srcdir/examples/linear.ein" -o l.einc
ldig=$(sed -n 's/.*digest \([0-9a-f]*\)).*/\1/p' out.txt)
expect 0 "compile masked" -- "$EINZK" compile "$top_srcdir/examples/masked.ein" -o m.einc
mdig=$(sed -n 's/.*digest \([0-9a-f]*\)).*/\1/p' out.txt)
expect 0 "gen 1" -- "$EINZK" gen l.einc --seed 1 --weights w1.st --input in.json
expect 0 "gen 2" -- "$EINZK" gen l.einc --seed 2 --weights w2.st --input in2.json
expect 0 "gen masked" -- "$EINZK" gen m.einc --seed 1 --weights mw.st --input min.json
expect 0 "setup 1" -- "$EINZK" setup l.einc --weights w1.st --vk l1.vk --pk l1.pk
expect 0 "setup 2" -- "$EINZK" setup l.einc --weights w2.st --vk l2.vk --pk l2.pk
expect 0 "setup masked" -- "$EINZK" setup m.einc --weights mw.st --vk m.vk --pk m.pk
expect 0 "prove" -- "$EINZK" prove l.einc --pk l1.pk --input in.json -o l.proof

# 1. rejections say what the proof is for, first, with both values
expect 1 "another model's vk" -- "$EINZK" verify --vk m.vk l.proof
say "rejected: the proof is for another model: its plan digest is $ldig, the verifying key's is $mdig"
expect 1 "other weights" -- "$EINZK" verify --vk l2.vk l.proof
say "rejected: the proof was made with other weights: weight commitment [0-9a-f]\{16\}, the verifying key's [0-9a-f]\{16\}"
expect 4 "a pk of another model" -- "$EINZK" prove l.einc --pk m.pk --input in.json -o x.proof
say "its plan digest is $mdig, the model's is $ldig" err.txt
echo "cli_errors: another model and other weights are rejected saying so, with both values"

# 2. files of the wrong kind: exit 4, what the file is
wrong() { # PATTERN -- command...
    pat=$1
    shift 2
    expect 4 "$*" -- "$@"
    say "$pat" err.txt
}
wrong "l1.vk is a verifying key, not a proving key" -- "$EINZK" prove l.einc --pk l1.vk --input in.json -o x.proof
wrong "l1.vk is a verifying key, not a proving key" -- "$EINZK" certify l.einc --pk l1.vk --prompt-tokens 1 \
    --max-new 1 -o x.cert
wrong "l1.vk is a verifying key, not a compiled model (.einc)" -- "$EINZK" info l1.vk
wrong "l.proof is a proof, not a compiled model (.einc)" -- "$EINZK" run l.proof --weights w1.st --input in.json
wrong "l1.pk is a proving key, not a safetensors weights file" -- "$EINZK" run l.einc --weights l1.pk --input in.json
wrong "l.proof is a proof, not a JSON input" -- "$EINZK" prove l.einc --pk l1.pk --input l.proof -o x.proof
wrong "l1.vk is a verifying key, not a safetensors weights file" -- "$EINZK" setup l.einc --weights l1.vk \
    --vk x.vk --pk x.pk
wrong "l.einc is a compiled model (.einc), not a .ein source" -- "$EINZK" check l.einc
wrong "l1.pk is a proving key, not a verifying key" -- "$EINZK" verify --vk l1.pk l.proof
wrong "l1.pk is a proving key, not a proof or a certificate" -- "$EINZK" verify --vk l1.vk l1.pk
cp "$top_srcdir/examples/linear.ein" src.ein
wrong "src.ein is a .ein source, not a compiled model (.einc) (einzk compile src.ein" -- \
    "$EINZK" gen src.ein --seed 1 --weights x.st --input x.json
[ ! -e x.proof ] && [ ! -e x.vk ] && [ ! -e x.st ] || fail "a refused command wrote a file"
echo "cli_errors: files of the wrong kind exit 4 naming what they are"

# 5. --json: one error object on stdout, its code the exit code
json_error() { # CODE FIELDS... -- command...: FIELDS are key=value the object must have
    code=$1
    shift
    fields=
    while [ "$1" != -- ]; do
        fields="$fields $1"
        shift
    done
    shift
    expect "$code" "$*" -- "$@"
    "$PY" - "$work/out.txt" "$code" $fields <<'PYEOF' || fail "--json error of: $*"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
e = json.loads(lines[0])
assert list(e) == ["error"], e
e = e["error"]
assert e["code"] == int(sys.argv[2]), e
assert isinstance(e["message"], str) and e["message"], e
for kv in sys.argv[3:]:
    k, v = kv.split("=", 1)
    assert str(e.get(k)) == v, (k, v, e)
PYEOF
}
printf 'model bad\ninput x[4]\ny[i] = x[i] +\noutput y\n' >bad.ein
printf '{"x": {"shape": [8, 32],\n  "data": [1, 2,,]}}\n' >broken.json
json_error 3 file=bad.ein line=4 -- "$EINZK" check bad.ein --json
json_error 3 file=bad.ein -- "$EINZK" compile bad.ein -o x.einc --json
json_error 2 -- "$EINZK" compile src.ein -o x.einc --json --jsn
json_error 2 -- "$EINZK" info --json
json_error 4 file=nope.einc -- "$EINZK" info nope.einc --json
json_error 4 file=broken.json line=2 -- "$EINZK" prove l.einc --pk l1.pk --input broken.json -o x.proof --json
json_error 4 file=l1.pk -- "$EINZK" verify --vk l1.pk l.proof --json
json_error 4 file=l1.vk -- "$EINZK" certify l.einc --pk l1.vk --prompt-tokens 1 --max-new 1 -o x.cert --json
json_error 4 -- "$EINZK" generate l.einc --weights nope.st --prompt-tokens 1 --max-new 1 --json
# a rejection is a verdict, not an error
expect 1 "verify --json, rejected" -- "$EINZK" verify --vk l2.vk l.proof --json
say '"accepted": *false'
say '"reason": *"the proof was made with other weights'
# without --json stdout stays empty on errors
expect 4 "info, no json" -- "$EINZK" info nope.einc
[ ! -s out.txt ] || fail "an error without --json printed on stdout"
echo "cli_errors: --json errors are one object on stdout with the exit code"

# 3. --scale / --bits override the source's defaults
expect 0 "compile --scale 10" -- "$EINZK" compile "$top_srcdir/examples/linear.ein" -o s10.einc --scale 10 --bits 20
sdig=$(sed -n 's/.*digest \([0-9a-f]*\)).*/\1/p' out.txt)
[ "$sdig" != "$ldig" ] || fail "--scale did not change the plan"
expect 0 "dump s10" -- "$EINZK" run s10.einc --dump-plan
"$PY" - "$work/out.txt" <<'PYEOF' || fail "--scale 10 --bits 20: the plan's input x"
import json, sys
p = json.load(open(sys.argv[1]))
x = [t for t in p["tensors"] if t["name"] == "x"][0]
assert x["scale"] == 10 and x["bits"] == 20, x
PYEOF
expect 2 "--bits 1" -- "$EINZK" check "$top_srcdir/examples/linear.ein" --bits 1
say "--bits needs a whole number from 2 to 62" err.txt
expect 2 "--scale 61" -- "$EINZK" compile "$top_srcdir/examples/linear.ein" -o x.einc --scale 61
expect 0 "gen s10" -- "$EINZK" gen s10.einc --seed 1 --weights s10.st --input s10.json
expect 0 "setup s10" -- "$EINZK" setup s10.einc --weights s10.st --vk s10.vk --pk s10.pk
expect 0 "prove s10" -- "$EINZK" prove s10.einc --pk s10.pk --input s10.json -o s10.proof
expect 0 "verify --model --scale" -- "$EINZK" verify --vk s10.vk s10.proof --model src.ein --scale 10 --bits 20
expect 1 "verify --model without --scale" -- "$EINZK" verify --vk s10.vk s10.proof --model src.ein
say "the verifying key is not src.ein's"
expect 2 "--scale without --model" -- "$EINZK" verify --vk s10.vk s10.proof --scale 10
echo "cli_errors: --scale and --bits override the source's defaults"

# --threads above the CPU count: capped, with a note
expect 0 "run --threads 1024" -- "$EINZK" run l.einc --weights w1.st --input in.json --threads 1024
say "note: --threads 1024 is more than the [0-9]* CPUs; using [0-9]*" err.txt
echo "cli_errors: --threads above the CPU count is capped with a note"

# EZ_SPILL_DIR must be a writable directory (setup, prove, certify): exit 4 up front
: >"$work/not-a-dir"
EZ_SPILL_DIR="$work/missing" expect 4 "prove with a missing EZ_SPILL_DIR" -- "$EINZK" prove l.einc --pk l1.pk --input in.json -o x.proof
say "einzk prove: error: EZ_SPILL_DIR=.*missing is not a writable directory" err.txt
EZ_SPILL_DIR="$work/not-a-dir" expect 4 "setup with a file as EZ_SPILL_DIR" -- "$EINZK" setup l.einc --weights w1.st --vk x.vk --pk x.pk
say "is not a writable directory (not a directory)" err.txt
mkdir -p "$work/spill"
EZ_SPILL_DIR="$work/spill" expect 0 "prove with EZ_SPILL_DIR" -- "$EINZK" prove l.einc --pk l1.pk --input in.json -o x.proof
expect 0 "verify the spilled prover's proof" -- "$EINZK" verify --vk l1.vk x.proof
[ -z "$(ls -A "$work/spill")" ] || fail "EZ_SPILL_DIR left files behind: $(ls "$work/spill")"
echo "cli_errors: EZ_SPILL_DIR must be a writable directory; the spilled prover's proof verifies"

# EZ_SPILL_DIR unset: the prover spills on its own when its estimate (24 B per committed
# entry) exceeds EZ_SPILL_BUDGET (default half the memory), to $TMPDIR, and says so; an
# empty EZ_SPILL_DIR keeps everything in memory; a budget that is no number is exit 4
EZ_SPILL_BUDGET=lots expect 4 "prove with a bad EZ_SPILL_BUDGET" -- env -u EZ_SPILL_DIR "$EINZK" prove l.einc --pk l1.pk --input in.json -o x.proof
say "einzk prove: error: EZ_SPILL_BUDGET=lots is not a positive number of bytes" err.txt
mkdir -p "$work/spill2"
TMPDIR="$work/spill2" EZ_SPILL_BUDGET=1 expect 0 "prove over a 1-byte budget" -- env -u EZ_SPILL_DIR "$EINZK" prove l.einc --pk l1.pk --input in.json -o x.proof
say "einzk prove: note: the prover needs about .* committed entries), more than the budget of 0.0 GB: its WHIR data is spilled to .*spill2" err.txt
expect 0 "verify the automatically spilled prover's proof" -- "$EINZK" verify --vk l1.vk x.proof
[ -z "$(ls -A "$work/spill2")" ] || fail "the automatic spill left files behind: $(ls "$work/spill2")"
EZ_SPILL_DIR= EZ_SPILL_BUDGET=1 expect 0 "prove over a 1-byte budget, EZ_SPILL_DIR empty" -- "$EINZK" prove l.einc --pk l1.pk --input in.json -o x.proof
grep -q "spilled" "$work/err.txt" && fail "an empty EZ_SPILL_DIR still spilled"
expect 0 "prove within the default budget" -- env -u EZ_SPILL_DIR -u EZ_SPILL_BUDGET "$EINZK" prove l.einc --pk l1.pk --input in.json -o x.proof
grep -q "spilled" "$work/err.txt" && fail "a small model spilled under the default budget"
echo "cli_errors: over its budget an unset EZ_SPILL_DIR spills to \$TMPDIR with a note; empty keeps memory"
