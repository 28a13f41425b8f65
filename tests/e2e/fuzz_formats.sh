#!/bin/sh
# fuzz_formats — seeded mutation of real proof, vk and pk files, replayed through
# tests/fuzz/fuzz_formats (the decoders and the verifier on untrusted bytes). Passing
# means: no crash, no sanitizer report, no changed proof or vk accepted, every rejection
# with a reason, the honest files accepted. Mutations (seeded; the seed is printed and
# EZ_FUZZ_SEED=<n> replays a run): byte flips, bit flips, truncations, extensions,
# overwritten length fields (every u64/u32 at a section header set to 0, 1, huge,
# off by one), spliced sections.
set -eu
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-/usr/bin/python3}
einzk="$top_builddir/einzk"
fz="$top_builddir/tests/fuzz/fuzz_formats"
[ -x "$fz" ] || { echo "fuzz_formats: $fz not built" >&2; exit 99; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ezfuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
seed=${EZ_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
n=${EZ_FUZZ_COUNT:-150}
echo "fuzz_formats: seed $seed ($n mutants per file; replay with EZ_FUZZ_SEED=$seed)"

# honest files of a small model with weights, interior padding and a softmax
cat >"$work/m.ein" <<'EIN'
model fz
param S = 4, D = 6, E = 3
input x[S, D]
weight wq[D, E], wk[D, E]
q[s, e] = x[s, d] * wq[d, e]
k[t, e] = x[t, d] * wk[d, e]
a[s, t] = q[s, e] * k[t, e] / 2
p[s, t] = softmax[t](causal[s, t](a[s, t]))
output p
EIN
"$einzk" compile "$work/m.ein" -o "$work/m.einc" >/dev/null
"$einzk" gen "$work/m.einc" --seed 3 --weights "$work/w.st" --input "$work/in.json" >/dev/null 2>&1
"$einzk" setup "$work/m.einc" --weights "$work/w.st" --vk "$work/m.vk" --pk "$work/m.pk" >/dev/null
"$einzk" prove "$work/m.einc" --pk "$work/m.pk" --input "$work/in.json" -o "$work/m.proof" >/dev/null

"$PYTHON3" - "$work" "$seed" "$n" <<'PYEOF'
import os, random, struct, sys
work, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)

def sections(b):
    """(offset of each u32 tag | u64 length header) after the 8-byte magic+version."""
    out, o = [], 8
    while o + 12 <= len(b):
        ln = struct.unpack_from("<Q", b, o + 4)[0]
        out.append(o)
        if ln > len(b):
            break
        o += 12 + ln
    return out

def newer_minor_only(b, m):
    """m is b with only a higher minor version: a vk or pk from a newer build, which is
    read by design (its unknown sections skipped), so its acceptance is no failure."""
    return (len(m) == len(b) and m[:6] == b[:6] and m[8:] == b[8:]
            and struct.unpack_from("<H", m, 6)[0] > struct.unpack_from("<H", b, 6)[0])

def mutants(b):
    secs = sections(b)
    for i in range(n):
        m = bytearray(b)
        k = rng.randrange(7)
        if k == 0:  # byte flips
            for _ in range(rng.randrange(1, 4)):
                p = rng.randrange(len(m)); m[p] ^= rng.randrange(1, 256)
        elif k == 1:  # one bit
            p = rng.randrange(len(m)); m[p] ^= 1 << rng.randrange(8)
        elif k == 2:  # truncation
            m = m[:rng.randrange(len(m))]
        elif k == 3:  # extension
            m += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        elif k == 4 and secs:  # a section length overwritten
            o = rng.choice(secs) + 4
            ln = struct.unpack_from("<Q", m, o)[0]
            v = rng.choice([0, 1, ln - 1, ln + 1, 2**32, 2**63, 2**64 - 1, rng.randrange(2**64)])
            struct.pack_into("<Q", m, o, v % 2**64)
        elif k == 5:  # a u64 anywhere inside a section set to a hostile count
            if len(m) > 16:
                o = rng.randrange(8, len(m) - 8)
                struct.pack_into("<Q", m, o, rng.choice([0, 1, 2**31, 2**40, 2**63, 2**64 - 1]))
        else:  # two regions swapped (a spliced section)
            if len(m) > 32:
                a = rng.randrange(len(m) - 16); c = rng.randrange(len(m) - 16); L = rng.randrange(1, 16)
                m[a:a + L], m[c:c + L] = m[c:c + L], m[a:a + L]
        if bytes(m) != b and not newer_minor_only(b, m):
            yield bytes(m)

for kind in ("proof", "vk", "pk"):
    src = open(os.path.join(work, "m." + kind), "rb").read()
    d = os.path.join(work, kind)
    os.makedirs(d)
    for i, m in enumerate(mutants(src)):
        open(os.path.join(d, "%04d" % i), "wb").write(m)
PYEOF

for kind in proof vk pk; do
    out=$("$fz" "$kind" "$work/m.vk" "$work/m.proof" "$work/m.einc" "$work/m.$kind")
    echo "$out" | grep -q ": 1 accepted" || { echo "fuzz_formats: the honest $kind is not accepted: $out" >&2; exit 1; }
    # shellcheck disable=SC2046 # the mutant list is split on purpose
    out=$("$fz" "$kind" "$work/m.vk" "$work/m.proof" "$work/m.einc" $(ls -d "$work/$kind"/*)) ||
        { echo "fuzz_formats: $kind replay failed (seed $seed)" >&2; exit 1; }
    echo "$out"
    if [ "$kind" != pk ]; then
        echo "$out" | grep -q ": 0 accepted" || { echo "fuzz_formats: a $kind mutant was accepted (seed $seed)" >&2; exit 1; }
    fi
done
echo "fuzz_formats: ok (seed $seed)"
