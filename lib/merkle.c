/* merkle — see merkle.h. */
#include "lib/merkle.h"

#include <nettle/sha2.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Columns are hashed straight from memory: an ez_fe in memory IS its canonical
 * little-endian encoding on the hosts we build for. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "merkle leaf hashing assumes a little-endian host");

enum { EZ_MERKLE_LEAF_TAG = 0x00, EZ_MERKLE_NODE_TAG = 0x01, EZ_MERKLE_JOIN_TAG = 0x02 };

/* ---- two SHA-256 computations side by side (SHA-NI) ------------------------------------
 * One SHA-256 compression is a chain of dependent sha256rnds2 instructions, so a core
 * finishes it far below its throughput; two independent messages interleaved run in
 * less than twice the time of one. Used for many equal-length messages (the leaves of a
 * tree, the nodes of a level); the digests are exactly SHA-256's (tests compare with
 * nettle), and builds without SHA-NI (or not GCC) use nettle for everything.
 *
 * The SHA-NI instructions exist only in legacy-SSE encoding; code around them compiled
 * to VEX (as -march=native does) ran 100x slower on the development VM (SSE/AVX
 * transitions inside the round loop). So these functions are compiled for plain SSE
 * (target "no-avx") and written with GCC's vector extensions and __builtin_ia32_*
 * builtins: the <immintrin.h> wrappers, compiled for the file's AVX target, cannot be
 * inlined into them. */
/* SHA-256's round constants and initial state (FIPS 180-4 §4.2.2, §5.3.3), for the SHA-NI
 * and the sixteen-lane paths below (unused when neither is built) */
static const uint32_t sha_k[64] __attribute__((aligned(16), unused)) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
static const uint32_t sha_h0[8] __attribute__((aligned(16), unused)) = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
#if defined(__SHA__) && defined(__SSE4_1__) && defined(__GNUC__) && !defined(__clang__)
#define EZ_MERKLE_SHANI 1
#define EZ_SHA_FN __attribute__((target("no-avx,sse4.1,sha")))

typedef int sha_v4 __attribute__((vector_size(16)));   /* what the builtins take */
typedef unsigned sha_u4 __attribute__((vector_size(16))); /* for wrapping additions */
typedef long long sha_v2 __attribute__((vector_size(16)));
typedef char sha_v16 __attribute__((vector_size(16)));
typedef short sha_v8 __attribute__((vector_size(16)));

/* pshufb mask reversing the bytes of each 32-bit word */
static const unsigned char sha_bswap[16] __attribute__((aligned(16))) = {3, 2, 1, 0, 7, 6, 5, 4,
                                                                          11, 10, 9, 8, 15, 14, 13, 12};

#define SHA_LOAD(p) ((sha_v4)__builtin_ia32_loaddqu((const char *)(p)))
#define SHA_STORE(p, v) __builtin_ia32_storedqu((char *)(p), (sha_v16)(v))
#define SHA_BSWAP(v) ((sha_v4)__builtin_ia32_pshufb128((sha_v16)(v), *(const sha_v16 *)sha_bswap))
#define SHA_PSHUFD(v, imm) ((sha_v4)__builtin_ia32_pshufd((sha_v4)(v), (imm)))
/* _mm_alignr_epi8(hi, lo, 4) */
#define SHA_ALIGNR4(hi, lo) ((sha_v4)__builtin_ia32_palignr128((sha_v2)(hi), (sha_v2)(lo), 32))
#define SHA_ALIGNR8(hi, lo) ((sha_v4)__builtin_ia32_palignr128((sha_v2)(hi), (sha_v2)(lo), 64))
#define SHA_ADD(a, b) ((sha_v4)((sha_u4)(a) + (sha_u4)(b)))
#define SHA_BLEND_F0(a, b) ((sha_v4)__builtin_ia32_pblendw128((sha_v8)(a), (sha_v8)(b), 0xF0))

/* The SHA-NI state pair (ABEF, CDGH) of the initial hash value. */
EZ_SHA_FN static inline void sha_init2(sha_v4 st[2])
{
    sha_v4 t = SHA_PSHUFD(SHA_LOAD(sha_h0), 0xB1);     /* CDAB */
    sha_v4 u = SHA_PSHUFD(SHA_LOAD(sha_h0 + 4), 0x1B); /* EFGH */
    st[0] = SHA_ALIGNR8(t, u);                          /* ABEF */
    st[1] = SHA_BLEND_F0(u, t);                         /* CDGH */
}

/* Compress one 64-byte block into each of the two states (a and b interleaved). The
 * message schedule keeps a rolling window of 4 vectors per lane, so both lanes fit the
 * 16 registers of legacy-SSE code. */
EZ_SHA_FN static inline void sha_compress2(sha_v4 sa[2], sha_v4 sb[2], const uint8_t *ba, const uint8_t *bb)
{
    sha_v4 wa[4], wb[4];
    sha_v4 a0 = sa[0], a1 = sa[1], b0 = sb[0], b1 = sb[1];
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) {
        if (i < 4) {
            wa[i] = SHA_BSWAP(SHA_LOAD(ba + 16 * i));
            wb[i] = SHA_BSWAP(SHA_LOAD(bb + 16 * i));
        } else {
            /* W[t..t+3] = msg2(msg1(W[t-16..], W[t-12..]) + W[t-7..t-4], W[t-4..t-1]) */
            int j = i & 3;
            sha_v4 xa = SHA_ADD(__builtin_ia32_sha256msg1(wa[j], wa[(i + 1) & 3]),
                                SHA_ALIGNR4(wa[(i + 3) & 3], wa[(i + 2) & 3]));
            sha_v4 xb = SHA_ADD(__builtin_ia32_sha256msg1(wb[j], wb[(i + 1) & 3]),
                                SHA_ALIGNR4(wb[(i + 3) & 3], wb[(i + 2) & 3]));
            wa[j] = __builtin_ia32_sha256msg2(xa, wa[(i + 3) & 3]);
            wb[j] = __builtin_ia32_sha256msg2(xb, wb[(i + 3) & 3]);
        }
        sha_v4 k = *(const sha_v4 *)(sha_k + 4 * i);
        sha_v4 ma = SHA_ADD(wa[i & 3], k), mb = SHA_ADD(wb[i & 3], k);
        a1 = __builtin_ia32_sha256rnds2(a1, a0, ma);
        b1 = __builtin_ia32_sha256rnds2(b1, b0, mb);
        a0 = __builtin_ia32_sha256rnds2(a0, a1, SHA_PSHUFD(ma, 0x0E));
        b0 = __builtin_ia32_sha256rnds2(b0, b1, SHA_PSHUFD(mb, 0x0E));
    }
    sa[0] = SHA_ADD(sa[0], a0);
    sa[1] = SHA_ADD(sa[1], a1);
    sb[0] = SHA_ADD(sb[0], b0);
    sb[1] = SHA_ADD(sb[1], b1);
}

/* The 32-byte big-endian digest of a SHA-NI state pair. */
EZ_SHA_FN static inline void sha_final(uint8_t out[32], const sha_v4 st[2])
{
    sha_v4 t = SHA_PSHUFD(st[0], 0x1B);  /* FEBA */
    sha_v4 u = SHA_PSHUFD(st[1], 0xB1);  /* DCHG */
    sha_v4 abcd = SHA_BLEND_F0(t, u);    /* DCBA */
    sha_v4 efgh = SHA_ALIGNR8(u, t);     /* HGFE */
    SHA_STORE(out, SHA_BSWAP(abcd));
    SHA_STORE(out + 16, SHA_BSWAP(efgh));
}

/* H (SHA-256 truncated to EZ_MERKLE_DIGEST_BYTES, zero tail) of two messages of the same
 * length len, each a tag byte followed by len - 1 bytes (the Merkle leaf and node
 * formats). */
EZ_SHA_FN __attribute__((noinline)) static void sha_tagged2(uint8_t oa[32], uint8_t ob[32], uint8_t tag,
                                                             const uint8_t *ma, const uint8_t *mb, size_t len)
{
    sha_v4 sa[2], sb[2];
    sha_init2(sa);
    sha_init2(sb);
    uint8_t blka[64], blkb[64];
    size_t done = 0; /* message bytes consumed (the tag is byte 0) */
    uint64_t bits = (uint64_t)len * 8;
    while (done + 64 <= len) {
        if (done == 0) {
            blka[0] = blkb[0] = tag;
            memcpy(blka + 1, ma, 63);
            memcpy(blkb + 1, mb, 63);
            sha_compress2(sa, sb, blka, blkb);
        } else {
            sha_compress2(sa, sb, ma + done - 1, mb + done - 1);
        }
        done += 64;
    }
    /* the tail, 0x80, zeros, the bit length (one or two blocks) */
    uint8_t ta[128], tb[128];
    size_t rest = len - done, tl = rest + 9 <= 64 ? 64 : 128;
    memset(ta, 0, tl);
    memset(tb, 0, tl);
    if (rest > 0) {
        if (done == 0) {
            ta[0] = tb[0] = tag;
            memcpy(ta + 1, ma, rest - 1);
            memcpy(tb + 1, mb, rest - 1);
        } else {
            memcpy(ta, ma + done - 1, rest);
            memcpy(tb, mb + done - 1, rest);
        }
    }
    ta[rest] = tb[rest] = 0x80;
    for (int i = 0; i < 8; i++)
        ta[tl - 1 - i] = tb[tl - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t o = 0; o < tl; o += 64)
        sha_compress2(sa, sb, ta + o, tb + o);
    sha_final(oa, sa);
    sha_final(ob, sb);
    memset(oa + EZ_MERKLE_DIGEST_BYTES, 0, 32 - EZ_MERKLE_DIGEST_BYTES);
    memset(ob + EZ_MERKLE_DIGEST_BYTES, 0, 32 - EZ_MERKLE_DIGEST_BYTES);
}
#else
#define EZ_MERKLE_SHANI 0
#endif

/* ---- sixteen SHA-256 computations side by side (AVX-512) -------------------------------
 * Lane i of each 512-bit register holds a 32-bit word of message i's state or schedule:
 * the rounds are plain integer operations (native rotates, ternary logic for Ch, Maj and
 * the three-way XORs), ~1,600 operations per block for 16 messages, i.e. ~50 cycles per
 * block and message on a core that runs two 512-bit operations per cycle. On the
 * development VM that is about half of SHA-NI's time per block (perf of a 2^22 WHIR
 * commitment: 1,189 against ~2,300 samples for the same blocks), whose SHA unit, not the
 * round chain's latency, is the limit (sha_tagged2's two messages interleaved are only
 * ~8 % faster per block than nettle's one). The digests are exactly SHA-256's (tests
 * compare with nettle). */
#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#define EZ_MERKLE_SHA16 1

#define SHA16_XOR3(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0x96)

/* One block into each of the 16 states st[0..7] (a..h); w: the block's 16 big-endian
 * words, lane i from message i. */
static inline void sha16_compress(__m512i st[8], const __m512i win[16])
{
    __m512i w[16];
    for (int t = 0; t < 16; t++)
        w[t] = win[t];
    __m512i a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
#pragma GCC unroll 64
    for (int t = 0; t < 64; t++) {
        if (t >= 16) {
            __m512i x = w[(t - 15) & 15], y = w[(t - 2) & 15];
            __m512i s0 = SHA16_XOR3(_mm512_ror_epi32(x, 7), _mm512_ror_epi32(x, 18), _mm512_srli_epi32(x, 3));
            __m512i s1 = SHA16_XOR3(_mm512_ror_epi32(y, 17), _mm512_ror_epi32(y, 19), _mm512_srli_epi32(y, 10));
            w[t & 15] = _mm512_add_epi32(_mm512_add_epi32(w[t & 15], s0), _mm512_add_epi32(w[(t - 7) & 15], s1));
        }
        __m512i S1 = SHA16_XOR3(_mm512_ror_epi32(e, 6), _mm512_ror_epi32(e, 11), _mm512_ror_epi32(e, 25));
        __m512i ch = _mm512_ternarylogic_epi32(e, f, g, 0xCA);
        __m512i t1 = _mm512_add_epi32(_mm512_add_epi32(h, S1),
                                      _mm512_add_epi32(ch, _mm512_add_epi32(w[t & 15], _mm512_set1_epi32((int)sha_k[t]))));
        __m512i S0 = SHA16_XOR3(_mm512_ror_epi32(a, 2), _mm512_ror_epi32(a, 13), _mm512_ror_epi32(a, 22));
        __m512i mj = _mm512_ternarylogic_epi32(a, b, c, 0xE8);
        h = g;
        g = f;
        f = e;
        e = _mm512_add_epi32(d, t1);
        d = c;
        c = b;
        b = a;
        a = _mm512_add_epi32(t1, _mm512_add_epi32(S0, mj));
    }
    st[0] = _mm512_add_epi32(st[0], a);
    st[1] = _mm512_add_epi32(st[1], b);
    st[2] = _mm512_add_epi32(st[2], c);
    st[3] = _mm512_add_epi32(st[3], d);
    st[4] = _mm512_add_epi32(st[4], e);
    st[5] = _mm512_add_epi32(st[5], f);
    st[6] = _mm512_add_epi32(st[6], g);
    st[7] = _mm512_add_epi32(st[7], h);
}

static inline void sha16_init(__m512i st[8])
{
    for (int j = 0; j < 8; j++)
        st[j] = _mm512_set1_epi32((int)sha_h0[j]);
}

/* The 32-bit words at byte offsets idx + off (lanes) of base, read big-endian. */
static inline __m512i sha16_word(const uint8_t *base, __m512i idx, int off)
{
    const __m512i bswap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
    __m512i v = _mm512_i32gather_epi32(_mm512_add_epi32(idx, _mm512_set1_epi32(off)), (const void *)base, 1);
    return _mm512_shuffle_epi8(v, bswap);
}

/* The 16 truncated digests (zero tail) of the states. */
static void sha16_final(ez_digest *out, size_t ostride, const __m512i st[8])
{
    uint32_t wv[8][16];
    for (int j = 0; j < 8; j++)
        _mm512_storeu_si512((void *)wv[j], st[j]);
    for (int i = 0; i < 16; i++) {
        uint8_t full[32];
        for (int j = 0; j < 8; j++) {
            uint32_t x = wv[j][i];
            full[4 * j] = (uint8_t)(x >> 24);
            full[4 * j + 1] = (uint8_t)(x >> 16);
            full[4 * j + 2] = (uint8_t)(x >> 8);
            full[4 * j + 3] = (uint8_t)x;
        }
        ez_digest *o = out + i * ostride;
        memcpy(o->h, full, EZ_MERKLE_DIGEST_BYTES);
        memset(o->h + EZ_MERKLE_DIGEST_BYTES, 0, 32 - EZ_MERKLE_DIGEST_BYTES);
    }
}

/* H of 16 messages tag || m_i (len bytes each, m_i = base + i stride bytes). */
static void sha16_tagged(ez_digest *out, uint8_t tag, const uint8_t *base, size_t stride, size_t len)
{
    __m512i st[8], w[16];
    sha16_init(st);
    const __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32((int)stride));
    size_t L = len + 1, nfull = L / 64; /* blocks of message bytes only */
    for (size_t b = 0; b < nfull; b++) {
        for (int t = 0; t < 16; t++) {
            if (b == 0 && t == 0) /* tag, m[0..2]: m[0..3] shifted down a byte (m[-1] may not exist) */
                w[0] = _mm512_or_si512(_mm512_srli_epi32(sha16_word(base, idx, 0), 8),
                                       _mm512_set1_epi32((int)((uint32_t)tag << 24)));
            else /* message bytes 64 b + 4 t .. + 3 are m[64 b + 4 t - 1 ..] */
                w[t] = sha16_word(base, idx, (int)(64 * b + 4 * (size_t)t) - 1);
        }
        sha16_compress(st, w);
    }
    /* the tail, 0x80, zeros, the bit length (one or two blocks), built per message */
    size_t rest = L - 64 * nfull, tl = rest + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)L * 8;
    uint8_t buf[16][128];
    for (int i = 0; i < 16; i++) {
        uint8_t *q = buf[i];
        const uint8_t *m = base + (size_t)i * stride;
        memset(q, 0, tl);
        if (rest > 0) {
            if (nfull == 0) {
                q[0] = tag;
                memcpy(q + 1, m, rest - 1);
            } else {
                memcpy(q, m + 64 * nfull - 1, rest);
            }
        }
        q[rest] = 0x80;
        for (int k = 0; k < 8; k++)
            q[tl - 1 - k] = (uint8_t)(bits >> (8 * k));
    }
    const __m512i bidx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                            _mm512_set1_epi32(128));
    for (size_t o = 0; o < tl; o += 64) {
        for (int t = 0; t < 16; t++)
            w[t] = sha16_word(&buf[0][0], bidx, (int)o + 4 * t);
        sha16_compress(st, w);
    }
    sha16_final(out, 1, st);
}

/* dst[k .. k + 15] from their children src[2k ..] (one block each: 0x01 || l || r, padded). */
static void sha16_nodes(ez_digest *dst, const ez_digest *src, size_t k)
{
    enum { LEN = 1 + 2 * EZ_MERKLE_DIGEST_BYTES };
    _Static_assert(LEN + 9 <= 64, "a node message is one block");
    uint8_t buf[16][64];
    for (int i = 0; i < 16; i++) {
        uint8_t *q = buf[i];
        memset(q, 0, 64);
        q[0] = EZ_MERKLE_NODE_TAG;
        memcpy(q + 1, src[2 * (k + i)].h, EZ_MERKLE_DIGEST_BYTES);
        memcpy(q + 1 + EZ_MERKLE_DIGEST_BYTES, src[2 * (k + i) + 1].h, EZ_MERKLE_DIGEST_BYTES);
        q[LEN] = 0x80;
        q[62] = (uint8_t)((LEN * 8) >> 8);
        q[63] = (uint8_t)(LEN * 8);
    }
    const __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32(64));
    __m512i st[8], w[16];
    sha16_init(st);
    for (int t = 0; t < 16; t++)
        w[t] = sha16_word(&buf[0][0], idx, 4 * t);
    sha16_compress(st, w);
    sha16_final(dst + k, 1, st);
}
#else
#define EZ_MERKLE_SHA16 0
#endif

/* Levels with at least this many nodes are hashed in parallel. */
#define EZ_MERKLE_PAR_MIN 4096

struct ez_merkle {
    unsigned depth;
    ez_digest *node; /* 2^(depth+1) entries: node[1] root, children of k at 2k, 2k+1,
                        leaf i at node[2^depth + i]; node[0] unused */
    bool spilled;    /* node is an ez_spill_copy or ez_spill_alloc mapping (freed with ez_spill_free) */
    bool paths;      /* the inner nodes are built (ez_merkle_build), not only the root */
};

void ez_merkle_hash_leaf(ez_digest *out, const ez_fe *col, size_t m)
{
    struct sha256_ctx h;
    uint8_t tag = EZ_MERKLE_LEAF_TAG;
    sha256_init(&h);
    sha256_update(&h, 1, &tag);
    if (m)
        sha256_update(&h, m * sizeof *col, (const uint8_t *)col);
    memset(out->h, 0, sizeof out->h);
    sha256_digest(&h, EZ_MERKLE_DIGEST_BYTES, out->h);
}

void ez_merkle_hash_digests(ez_digest *out, const ez_digest *d, size_t n)
{
    struct sha256_ctx h;
    uint8_t tag = EZ_MERKLE_JOIN_TAG;
    sha256_init(&h);
    sha256_update(&h, 1, &tag);
    for (size_t i = 0; i < n; i++)
        sha256_update(&h, EZ_MERKLE_DIGEST_BYTES, d[i].h);
    memset(out->h, 0, sizeof out->h);
    sha256_digest(&h, EZ_MERKLE_DIGEST_BYTES, out->h);
}

/* The node message 0x01 || l || r (l, r truncated): NODE_LEN bytes. */
enum { NODE_LEN = 1 + 2 * EZ_MERKLE_DIGEST_BYTES };

static void node_message(uint8_t buf[NODE_LEN], const ez_digest *l, const ez_digest *r)
{
    buf[0] = EZ_MERKLE_NODE_TAG;
    memcpy(buf + 1, l->h, EZ_MERKLE_DIGEST_BYTES);
    memcpy(buf + 1 + EZ_MERKLE_DIGEST_BYTES, r->h, EZ_MERKLE_DIGEST_BYTES);
}

void ez_merkle_hash_node(ez_digest *out, const ez_digest *l, const ez_digest *r)
{
    uint8_t buf[NODE_LEN];
    node_message(buf, l, r);
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, sizeof buf, buf);
    memset(out->h, 0, sizeof out->h);
    sha256_digest(&h, EZ_MERKLE_DIGEST_BYTES, out->h);
}

void ez_merkle_digests_write(ez_writer *w, const ez_digest *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ez_writer_bytes(w, d[i].h, EZ_MERKLE_DIGEST_BYTES);
}

bool ez_merkle_digests_canonical(const ez_digest *d, size_t n)
{
    uint8_t bad = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = EZ_MERKLE_DIGEST_BYTES; j < sizeof d->h; j++)
            bad |= d[i].h[j];
    return bad == 0;
}

bool ez_merkle_digests_read(ez_reader *r, ez_digest *d, size_t n)
{
    if (n == 0) /* nothing to read (an empty reader's view is NULL) */
        return !r->failed;
    if (n > SIZE_MAX / EZ_MERKLE_DIGEST_BYTES) {
        r->failed = true;
        return false;
    }
    const uint8_t *b = ez_reader_view(r, n * EZ_MERKLE_DIGEST_BYTES);
    if (b == NULL)
        return false;
    for (size_t i = 0; i < n; i++) {
        memcpy(d[i].h, b + i * EZ_MERKLE_DIGEST_BYTES, EZ_MERKLE_DIGEST_BYTES);
        memset(d[i].h + EZ_MERKLE_DIGEST_BYTES, 0, 32 - EZ_MERKLE_DIGEST_BYTES);
    }
    return true;
}

/* leaves_only: only the leaf level and the root's page are faulted in (ez_merkle_build_root
 * writes nothing else). */
static ez_status tree_alloc(ez_merkle **out, unsigned depth, bool spilled, bool leaves_only)
{
    *out = NULL;
    if (depth > EZ_MERKLE_MAX_DEPTH || depth >= 8 * sizeof(size_t) - 7)
        return EZ_ERR_INVALID;
    ez_merkle *t = calloc(1, sizeof *t);
    if (t == NULL)
        return EZ_ERR_NOMEM;
    size_t nl = (size_t)1 << depth;
    t->depth = depth;
    t->node = spilled ? ez_spill_alloc(2 * nl * sizeof *t->node) : NULL;
    t->spilled = t->node != NULL;
    if (t->node == NULL)
        t->node = ez_alloc_huge(2 * nl, sizeof *t->node);
    if (t->node == NULL) {
        free(t);
        return EZ_ERR_NOMEM;
    }
    if (leaves_only) /* the root's page, then the leaves */
        ez_populate(t->node + nl, nl * sizeof *t->node);
    else
        ez_populate(t->node, 2 * nl * sizeof *t->node); /* every caller fills the whole tree */
    memset(t->node, 0, 2 * sizeof *t->node);
    *out = t;
    return EZ_OK;
}

ez_status ez_merkle_alloc(ez_merkle **out, unsigned depth)
{
    return tree_alloc(out, depth, false, false);
}

ez_status ez_merkle_alloc_spilled(ez_merkle **out, unsigned depth)
{
    return tree_alloc(out, depth, true, false);
}

ez_status ez_merkle_alloc_leaves(ez_merkle **out, unsigned depth, bool spilled)
{
    return tree_alloc(out, depth, spilled, true);
}

ez_digest *ez_merkle_leaves_mut(ez_merkle *t)
{
    return t->node + ((size_t)1 << t->depth);
}

void ez_merkle_hash_leaves(ez_digest *out, const ez_fe *cols, size_t m, size_t stride, size_t n)
{
    size_t i = 0;
#if EZ_MERKLE_SHA16
    if ((15 * stride + m) * sizeof *cols < INT32_MAX) /* the gathers' 32-bit offsets */
        for (; i + 16 <= n; i += 16)
            sha16_tagged(out + i, EZ_MERKLE_LEAF_TAG, (const uint8_t *)(cols + i * stride), stride * sizeof *cols,
                         m * sizeof *cols);
#endif
#if EZ_MERKLE_SHANI
    for (; i + 2 <= n; i += 2)
        sha_tagged2(out[i].h, out[i + 1].h, EZ_MERKLE_LEAF_TAG, (const uint8_t *)(cols + i * stride),
                    (const uint8_t *)(cols + (i + 1) * stride), 1 + m * sizeof *cols);
#endif
    for (; i < n; i++)
        ez_merkle_hash_leaf(&out[i], cols + i * stride, m);
}

/* dst[k] for k in [k0, k1): the parents of src[2 k0 .. 2 k1) (dst may be src). */
static void hash_nodes(ez_digest *dst, const ez_digest *src, size_t k0, size_t k1)
{
    size_t k = k0;
#if EZ_MERKLE_SHA16
    for (; k + 16 <= k1; k += 16)
        sha16_nodes(dst, src, k);
#endif
#if EZ_MERKLE_SHANI
    for (; k + 2 <= k1; k += 2) {
        uint8_t a[NODE_LEN], b[NODE_LEN];
        node_message(a, &src[2 * k], &src[2 * k + 1]);
        node_message(b, &src[2 * k + 2], &src[2 * k + 3]);
        sha_tagged2(dst[k].h, dst[k + 1].h, EZ_MERKLE_NODE_TAG, a + 1, b + 1, NODE_LEN);
    }
#endif
    for (; k < k1; k++)
        ez_merkle_hash_node(&dst[k], &src[2 * k], &src[2 * k + 1]);
}

/* The inner levels over t's leaves into inner[1 .. 2^depth) (t->node itself, or the
 * caller's scratch: then only the lowest level reads t). */
static void build_into(const ez_merkle *t, ez_digest *inner)
{
    size_t nl = (size_t)1 << t->depth;
    const size_t chunk = 1024;
    for (size_t w = nl / 2; w >= 1; w /= 2) {
        size_t nch = (w + chunk - 1) / chunk;
        const ez_digest *src = w == nl / 2 ? t->node : inner;
#pragma omp parallel for schedule(static) if (w >= EZ_MERKLE_PAR_MIN)
        for (size_t c = 0; c < nch; c++) {
            size_t k0 = w + c * chunk, k1 = k0 + chunk < 2 * w ? k0 + chunk : 2 * w;
            hash_nodes(inner, src, k0, k1);
        }
    }
}

void ez_merkle_build(ez_merkle *t)
{
    build_into(t, t->node);
    t->paths = true;
}

void ez_merkle_build_root(ez_merkle *t, ez_digest *scratch)
{
    if (t->depth == 0) { /* the leaf is the root */
        t->paths = true;
        return;
    }
    build_into(t, scratch);
    t->node[1] = scratch[1];
    t->paths = false;
}

ez_status ez_merkle_new(ez_merkle **out, const ez_digest *leaves, unsigned depth)
{
    ez_status st = ez_merkle_alloc(out, depth);
    if (st != EZ_OK)
        return st;
    memcpy(ez_merkle_leaves_mut(*out), leaves, ((size_t)1 << depth) * sizeof *leaves);
    ez_merkle_build(*out);
    return EZ_OK;
}

void ez_merkle_free(ez_merkle *t)
{
    if (t == NULL)
        return;
    if (t->spilled)
        ez_spill_free(t->node, ((size_t)2 << t->depth) * sizeof *t->node);
    else
        free(t->node);
    free(t);
}

void ez_merkle_spill(ez_merkle *t)
{
    if (t == NULL || t->spilled)
        return;
    ez_digest *m = ez_spill_copy(t->node, ((size_t)2 << t->depth) * sizeof *t->node);
    if (m == NULL)
        return;
    free(t->node);
    t->node = m;
    t->spilled = true;
}

void ez_merkle_release(const ez_merkle *t)
{
    if (t != NULL && t->spilled)
        ez_spill_release(t->node, ((size_t)2 << t->depth) * sizeof *t->node);
}

void ez_merkle_release_leaves(const ez_merkle *t, uint64_t first, uint64_t n)
{
    if (t != NULL && t->spilled && n > 0 && first < ((uint64_t)1 << t->depth))
        ez_spill_release(t->node + ((size_t)1 << t->depth) + first, (size_t)n * sizeof *t->node);
}

unsigned ez_merkle_depth(const ez_merkle *t)
{
    return t->depth;
}

const ez_digest *ez_merkle_root(const ez_merkle *t)
{
    return &t->node[1];
}

const ez_digest *ez_merkle_leaves(const ez_merkle *t)
{
    return t->node + ((size_t)1 << t->depth);
}

void ez_merkle_path(const ez_merkle *t, uint64_t idx, ez_digest *path)
{
    EZ_VERIFY_CHECK(idx < ((uint64_t)1 << t->depth));
    EZ_VERIFY_CHECK(t->paths);
    size_t k = ((size_t)1 << t->depth) + (size_t)idx;
    for (unsigned l = 0; l < t->depth; l++, k /= 2)
        path[l] = t->node[k ^ 1];
}

bool ez_merkle_path_verify(const ez_digest *root, unsigned depth, uint64_t idx, const ez_digest *leaf,
                           const ez_digest *path)
{
    if (depth > EZ_MERKLE_MAX_DEPTH || (idx >> depth) != 0)
        return false;
    ez_digest cur = *leaf;
    for (unsigned l = 0; l < depth; l++, idx >>= 1) {
        if (idx & 1)
            ez_merkle_hash_node(&cur, &path[l], &cur);
        else
            ez_merkle_hash_node(&cur, &cur, &path[l]);
    }
    return memcmp(cur.h, root->h, 32) == 0;
}

/* Positions valid for a batch: strictly increasing and < 2^depth. */
static bool positions_ok(unsigned depth, const uint64_t *idx, size_t n)
{
    if (n == 0 || depth > EZ_MERKLE_MAX_DEPTH)
        return false;
    for (size_t k = 0; k < n; k++)
        if ((idx[k] >> depth) != 0 || (k > 0 && idx[k] <= idx[k - 1]))
            return false;
    return true;
}

size_t ez_merkle_batch_count(unsigned depth, const uint64_t *idx, size_t n)
{
    if (!positions_ok(depth, idx, n))
        return SIZE_MAX;
    /* At level l the known nodes are the distinct values of idx[k] >> l (non-decreasing
     * in k). A node needs a proof sibling unless its sibling is the next known node. */
    size_t count = 0;
    for (unsigned l = 0; l < depth; l++) {
        size_t k = 0;
        while (k < n) {
            uint64_t v = idx[k] >> l;
            size_t k2 = k;
            while (k2 < n && (idx[k2] >> l) == v)
                k2++;
            if ((v & 1) == 0 && k2 < n && (idx[k2] >> l) == v + 1) {
                /* pair with the next node: skip past it too */
                while (k2 < n && (idx[k2] >> l) == v + 1)
                    k2++;
            } else {
                count++;
            }
            k = k2;
        }
    }
    return count;
}

/* Both sides walk the levels the same way: the known nodes of a level are kept as
 * increasing positions (in place, m of them); a node pairs with the next known node
 * when that is its sibling, otherwise its sibling is the next proof digest; the parents
 * replace them. */
ez_status ez_merkle_batch_open(const ez_merkle *t, const uint64_t *idx, size_t n, ez_digest *out)
{
    if (!t->paths || !positions_ok(t->depth, idx, n))
        return EZ_ERR_INVALID;
    uint64_t *pos = ez_alloc_array(n, sizeof *pos);
    if (pos == NULL)
        return EZ_ERR_NOMEM;
    memcpy(pos, idx, n * sizeof *pos);
    size_t used = 0, m = n;
    for (unsigned l = 0; l < t->depth; l++) {
        size_t w = 0;
        for (size_t k = 0; k < m; w++) {
            uint64_t v = pos[k];
            if ((v & 1) == 0 && k + 1 < m && pos[k + 1] == v + 1) {
                k += 2;
            } else {
                out[used++] = t->node[((size_t)1 << (t->depth - l)) + (size_t)(v ^ 1)];
                k += 1;
            }
            pos[w] = v >> 1;
        }
        m = w;
    }
    free(pos);
    return EZ_OK;
}

ez_status ez_merkle_batch_verify(const ez_digest *root, unsigned depth, const uint64_t *idx,
                                 const ez_digest *leaves, size_t n, const ez_digest *proof, size_t nproof)
{
    ez_status st = EZ_ERR_REJECT;
    uint64_t *pos = NULL;
    ez_digest *hash = NULL;
    if (!positions_ok(depth, idx, n))
        goto out;
    st = EZ_ERR_NOMEM;
    pos = ez_alloc_array(n, sizeof *pos);
    hash = ez_alloc_array(n, sizeof *hash);
    if (pos == NULL || hash == NULL)
        goto out;
    memcpy(pos, idx, n * sizeof *pos);
    memcpy(hash, leaves, n * sizeof *hash);
    st = EZ_ERR_REJECT;
    size_t used = 0, m = n;
    for (unsigned l = 0; l < depth; l++) {
        size_t w = 0;
        for (size_t k = 0; k < m; w++) {
            uint64_t v = pos[k];
            const ez_digest *s;
            bool pair = (v & 1) == 0 && k + 1 < m && pos[k + 1] == v + 1;
            if (pair) {
                s = &hash[k + 1];
            } else {
                if (used >= nproof)
                    goto out;
                s = &proof[used++];
            }
            /* w <= k: writing hash[w] never clobbers a node still to be read. */
            if (v & 1)
                ez_merkle_hash_node(&hash[w], s, &hash[k]);
            else
                ez_merkle_hash_node(&hash[w], &hash[k], s);
            k += pair ? 2 : 1;
            pos[w] = v >> 1;
        }
        m = w;
    }
    if (used != nproof)
        goto out;
    if (memcmp(hash[0].h, root->h, 32) != 0)
        goto out;
    st = EZ_OK;
out:
    free(pos);
    free(hash);
    return st;
}
