#!/bin/sh
# Parser robustness: deterministic mutations of every example and golden model
# (truncations, byte flips, token deletions and duplications; 8 per file) are fed to
# `einzk check`, which must exit 0 (valid) or 3 (diagnostics) and never crash, hang or
# print on stdout. When the replay harness tests/fuzz/fuzz_parser is built, the same
# cases also run through it, which checks the checked program's invariants.
set -u
me=parser_fuzz
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
command -v "$PY" >/dev/null 2>&1 || { echo "parser_fuzz.sh: python3 not found, skipping" >&2; exit 77; }

"$PY" - "$work" "$top_srcdir"/examples/*.ein "$top_srcdir"/tests/golden/*.ein <<'PY' || exit 99
import os, random, re, sys
out = sys.argv[1]
tok = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|\.\.|@[A-Za-z_]+|\S")
n = 0
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    base = os.path.basename(path)[:-4]
    rng = random.Random("einzk-parser-fuzz:" + base)  # deterministic per file
    spans = [m.span() for m in tok.finditer(data)]
    cases = []
    for _ in range(2):                                   # truncations
        cases.append(data[: rng.randrange(len(data) + 1)])
    for _ in range(2):                                   # byte flips (1 to 3 bytes)
        b = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            if b:
                i = rng.randrange(len(b))
                b[i] ^= 1 << rng.randrange(8)
        cases.append(bytes(b))
    for _ in range(2):                                   # token deletions
        if spans:
            s, e = spans[rng.randrange(len(spans))]
            cases.append(data[:s] + data[e:])
    for _ in range(2):                                   # token duplications
        if spans:
            s, e = spans[rng.randrange(len(spans))]
            cases.append(data[:e] + b" " + data[s:e] + data[e:])
    for k, c in enumerate(cases):
        with open(os.path.join(out, "%s.%d.ein" % (base, k)), "wb") as f:
            f.write(c)
        n += 1
print("parser_fuzz.sh: %d mutated models" % n)
PY

# a hang is a failure too: coreutils timeout exits 124 (the limits are generous for
# slow sanitizer builds on a loaded machine)
to1="" to2=""
if command -v timeout >/dev/null 2>&1; then
    to1="timeout 60" to2="timeout 600"
fi
fail=0 total=0 valid=0
for f in "$work"/*.ein; do
    total=$((total + 1))
    $to1 "$EINZK" check "$f" >"$work/stdout" 2>"$work/stderr"
    rc=$?
    if [ $rc -eq 0 ]; then
        valid=$((valid + 1))
    elif [ $rc -ne 3 ]; then
        echo "FAIL $(basename "$f"): einzk check exited $rc"
        tail -5 "$work/stderr"
        fail=$((fail + 1))
        continue
    fi
    if [ -s "$work/stdout" ]; then
        echo "FAIL $(basename "$f"): output on stdout"
        fail=$((fail + 1))
    fi
done
if [ -x "$top_builddir/tests/fuzz/fuzz_parser" ]; then
    if ! $to2 "$top_builddir/tests/fuzz/fuzz_parser" "$work"/*.ein >"$work/replay" 2>&1; then
        echo "FAIL fuzz_parser replay:"
        tail -5 "$work/replay"
        fail=$((fail + 1))
    fi
fi
echo "parser fuzz: $total cases, $valid valid, $fail failures"
[ $fail -eq 0 ]
