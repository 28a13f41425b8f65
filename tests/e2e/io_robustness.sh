#!/bin/sh
# io_robustness — feed mutated weight files and input files through the fuzz replay
# programs (tests/fuzz/fuzz_*.c built without libFuzzer). Passing means: no crash, no
# sanitizer report, no broken property (the harnesses abort on one), valid seeds
# accepted. Mutations: every truncation of a small valid file, every byte inverted,
# random bit flips and splices (seeded, reproducible), and hand-made hostile headers
# (absurd header lengths such as 2^63, overlapping or out-of-range offsets, overflowing
# shapes, deep nesting, bad UTF-8, NUL bytes, huge numbers).
# Needs python3 (standard library only) to write the corpus.
set -eu
me=io_robustness
. "$(dirname "$0")/common.sh"
fz_st="$top_builddir/tests/fuzz/fuzz_safetensors"
fz_js="$top_builddir/tests/fuzz/fuzz_json"
need_built "$fz_st" "$fz_js"

"$PY" - "$work" <<'PYEOF'
import json, os, random, struct, sys

out = sys.argv[1]
rng = random.Random(20240607)  # fixed: the corpus is the same on every run

def st_file(header, data=b"", hlen=None):
    h = header if isinstance(header, bytes) else header.encode()
    return struct.pack("<Q", len(h) if hlen is None else hlen) + h + data

def st_valid():
    # a F32[2,2], bb F32[2], c F16[3], d I8[2,2], e BOOL[1], s F64[] and an empty U8[0]
    parts, hdr, off = [], {}, 0
    def add(name, dtype, shape, raw):
        nonlocal off
        hdr[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(raw)]}
        parts.append(raw)
        off += len(raw)
    add("a", "F32", [2, 2], struct.pack("<4f", 1.0, -2.5, 3.25, 0.0))
    add("bb", "F32", [2], struct.pack("<2f", 7.0, -0.0))
    add("c", "F16", [3], struct.pack("<3H", 0x3C00, 0x7C00, 0x0001))
    add("d", "I8", [2, 2], bytes([0x80, 0x7F, 0, 1]))
    add("e", "BOOL", [1], bytes([1]))
    add("s", "F64", [], struct.pack("<d", 1 / 3))
    add("z", "U8", [0], b"")
    hdr["__metadata__"] = {"format": "pt"}
    h = json.dumps(hdr).encode()
    h += b" " * (-(8 + len(h)) % 8)
    return st_file(h, b"".join(parts))

def write(sub, name, data):
    d = os.path.join(out, sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def mutate_all(sub, base, tag=""):
    n = 0
    for i in range(len(base)):              # every truncation
        write(sub, tag + "trunc%05d" % i, base[:i]); n += 1
    for i in range(len(base)):              # every byte inverted
        b = bytearray(base); b[i] ^= 0xFF
        write(sub, tag + "flip%05d" % i, bytes(b)); n += 1
    for k in range(400):                    # random bit flips, 1..4 per file
        b = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        write(sub, tag + "bits%05d" % k, bytes(b)); n += 1
    for k in range(200):                    # splices: cut a chunk, insert it elsewhere
        i, j = sorted(rng.sample(range(len(base) + 1), 2))
        at = rng.randrange(len(base) + 1)
        write(sub, tag + "splice%05d" % k, base[:at] + base[i:j] + base[at:]); n += 1
    return n

# ---- safetensors ------------------------------------------------------------------
base = st_valid()
write("st_seed", "valid", base)
mutate_all("st", base)
data = base[8 + struct.unpack("<Q", base[:8])[0]:]
hdr = base[8:8 + struct.unpack("<Q", base[:8])[0]]
for k, hl in enumerate([0, 1, 2, 7, 8, len(hdr) - 1, len(hdr) + 1, len(hdr) + len(data),
                        len(hdr) + len(data) + 1, 2**31, 2**32, 100 << 20, (100 << 20) + 1,
                        2**62, 2**63, 2**63 + 1, 2**64 - 1]):
    write("st", "hlen%02d" % k, st_file(hdr, data, hl))
E = lambda dt, sh, b, e: {"dtype": dt, "shape": sh, "data_offsets": [b, e]}
hostile = [
    {"a": E("F32", [2], 0, 8), "b": E("F32", [2], 4, 12)},                # overlap
    {"a": E("F32", [2], 0, 8), "b": E("F32", [2], 0, 8)},                 # identical
    {"a": E("F32", [4], 0, 16), "b": E("F32", [1], 4, 8)},                # nested
    {"a": E("F32", [2], 8, 0)},                                            # reversed
    {"a": E("F32", [2], 2**63, 2**63 + 8)},                                # past end
    {"a": E("F32", [2], -8, 0)},
    {"a": E("F32", [2**32, 2**32], 0, 0)},                                 # overflow
    {"a": E("F64", [2**61], 0, 0)},
    {"a": E("BOOL", [0, 2**63 - 1, 2**63 - 1], 0, 0)},                    # empty but huge
    {"a": E("U8", [1] * 9, 0, 1)},                                         # rank 9
    {"a": E("F32", [1.5], 0, 4)}, {"a": E("F32", ["1"], 0, 4)}, {"a": E("F32", None, 0, 4)},
    {"a": E("f32", [1], 0, 4)}, {"a": E("F8_E4M3", [4], 0, 4)}, {"a": E("F4", [1], 0, 1)},
    {"a": {"dtype": "F32", "shape": [1]}}, {"a": {"dtype": "F32", "shape": [1], "data_offsets": [0]}},
    {"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4], "extra": {}}},
    {"a": []}, {"a": None}, {"__metadata__": None}, {"__metadata__": {"k": {"n": 1}}},
    {"": E("F32", [1], 0, 4)}, {"\u0001\u001b[2J": E("F32", [1], 0, 4)},
    {"x" * 5000: E("F32", [1], 0, 4)}, [], "str", 5,
]
for k, h in enumerate(hostile):
    write("st", "hostile%03d" % k, st_file(json.dumps(h), bytes(16)))
raw = [b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}',
       b'{"a\\u0000b": 1}', b'{"a\x00b": 1}', b'{"\xff\xfe": 1}', b'{"a": {"dtype": "F32\xc0", "shape": [1], "data_offsets": [0, 4]}}',
       b"[" * 100000, b"{" * 5000, b'{"a": ' + b"[" * 3000 + b"]" * 3000 + b"}",
       b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 99999999999999999999999]}}',
       b'{"a": {"dtype": "F32", "shape": [1e400], "data_offsets": [0, 4]}}',
       b'{} trailing', b'   ', b'', b'{"a": NaN}', b'\xef\xbb\xbf{}']
for k, h in enumerate(raw):
    write("st", "raw%03d" % k, st_file(h, bytes(16)))

# ---- JSON inputs (fuzz_json's model: x[2,3], tok[4] < 50, s scalar, e[2,0]) --------
nested = b'{"x": [[1, -2.5, 0.1], [3e2, 0, -0.0]], "tok": [0, 49, 3, 3], "s": 7.25, "e": [[], []]}'
flat = (b'{"x": {"shape": [2, 3], "data": [1e-320, 2, 3, 4, 5, 1.7976931348623157e308]},'
        b' "tok": {"shape": [4], "data": [1, 2, 3, 4]}, "s": {"shape": [], "data": [-1]},'
        b' "e": {"shape": [2, 0], "data": []}}')
write("js_seed", "nested", nested)
write("js_seed", "flat", flat)
mutate_all("js", nested, "n_")
mutate_all("js", flat, "f_")
tail = b', "tok": [0, 1, 2, 3], "s": 1, "e": [[], []]}'
jraw = [b'{"x": [[1, 2, 3], [4, 5]]' + tail, b'{"x": [[1, 2, 3], [4, 5, 6, 7]]' + tail,
        b'{"x": [[1, 2, 3], 4]' + tail, b'{"x": [[1, 2, 3], [4, 5, [6]]]' + tail,
        b'{"x": [[1e999, 2, 3], [4, 5, 6]]' + tail, b'{"x": [[-1e999, 2, 3], [4, 5, 6]]' + tail,
        b'{"x": [[1e-400, 2, 3], [4, 5, 6]]' + tail,
        b'{"x": [[9223372036854775807, -9223372036854775808, 3], [4, 5, 6]]' + tail,
        b'{"x": [[99999999999999999999, 2, 3], [4, 5, 6]]' + tail,
        b'{"x": [[NaN, 2, 3], [4, 5, 6]]' + tail, b'{"x": [[Infinity, 2, 3], [4, 5, 6]]' + tail,
        b'{"x": [[1, 2, 3], [4, 5, 6]], "tok": [0, 50, 1, 1], "s": 1, "e": [[], []]}',
        b'{"x": [[1, 2, 3], [4, 5, 6]], "tok": [0, -1, 1, 1], "s": 1, "e": [[], []]}',
        b'{"x": [[1, 2, 3], [4, 5, 6]], "tok": [0, 1.0, 1, 1], "s": 1, "e": [[], []]}',
        b'{"x": [[1, 2, 3], [4, 5, 6]], "tok": [0, 9223372036854775807, 1, 1], "s": 1, "e": [[], []]}',
        b'{"x": [[1, 2, 3], [4, 5, 6]], "tok": [0, 1, 1, 1], "s": [1], "e": [[], []]}',
        b'{"x": [[1, 2, 3], [4, 5, 6]], "tok": [0, 1, 1, 1], "s": 1, "e": [[0], []]}',
        b'{"x": [[1, 2, 3], [4, 5, 6]], "tok": [0, 1, 1, 1], "s": 1, "e": [[], []], "y": 2}',
        b'{"x": [[1, 2, 3], [4, 5, 6]], "tok": [0, 1, 1, 1], "s": 1, "e": [[], []], "x": 2}',
        b'{"x": {"shape": [3, 2], "data": [1, 2, 3, 4, 5, 6]}' + tail,
        b'{"x": {"shape": [2, 3], "data": [1, 2, 3, 4, 5]}' + tail,
        b'{"x": {"shape": [2, 3], "data": [[1, 2, 3], [4, 5, 6]]}' + tail,
        b'{"x": {"shape": [2, 3, 1, 1, 1, 1, 1, 1, 1, 1], "data": [1, 2, 3, 4, 5, 6]}' + tail,
        b'{"x": {"shape": [-2, -3], "data": [1, 2, 3, 4, 5, 6]}' + tail,
        b'{"x": {"shape": [2, 3], "data": [1, 2, 3, 4, 5, 6], "more": 1}' + tail,
        b'{"x": {"data": [1, 2, 3, 4, 5, 6]}' + tail,
        b'{"x\\u0000": 1}', b'{"x\x00": 1}', b'{"\xff": 1}', b'"just a string"', b'[]', b'null',
        b"[" * 100000, b'{"x": ' + b"[" * 5000 + b"]" * 5000 + tail, b'', b' ', b'{}',
        b'{"x": [[1, 2, 3], [4, 5, 6]]' + tail + b' garbage',
        b'{"x": [' + b', '.join([b'[1, 2, 3]'] * 20000) + b']' + tail]
for k, j in enumerate(jraw):
    write("js", "raw%03d" % k, j)
PYEOF

fail=0
# run PROG DIR: replay every file of DIR; print the summary line; fail on a crash or a
# sanitizer report.
run() {
    prog=$1 dir=$2 log="$work/$(basename "$2").log"
    if ! find "$dir" -type f | sort | xargs "$prog" >"$log" 2>&1; then
        echo "FAIL: $(basename "$prog") crashed or reported an error on $dir:" >&2
        tail -n 30 "$log" >&2
        fail=1
        return
    fi
    if grep -q "runtime error\|AddressSanitizer\|LeakSanitizer\|UndefinedBehaviorSanitizer" "$log"; then
        echo "FAIL: sanitizer report from $(basename "$prog") on $dir:" >&2
        grep -m 5 -A 10 "runtime error\|Sanitizer" "$log" >&2
        fail=1
        return
    fi
    cat "$log"
}
# expect_all_accepted DIR LOG: the seed files must be accepted, or the test proves little
expect_all_accepted() {
    n=$(find "$1" -type f | wc -l)
    if ! grep -q ": $n accepted, 0 refused" "$work/$(basename "$1").log"; then
        echo "FAIL: valid seeds in $1 were refused" >&2
        fail=1
    fi
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
run "$fz_st" "$work/st_seed"
expect_all_accepted "$work/st_seed"
run "$fz_st" "$work/st"
run "$fz_js" "$work/js_seed"
expect_all_accepted "$work/js_seed"
run "$fz_js" "$work/js"

[ "$fail" -eq 0 ] && echo "io_robustness: ok"
exit "$fail"
