/* fe_vec — eight Goldilocks elements side by side (lib/field.h's arithmetic, lane-wise),
 * for the NTT's and WHIR's lane kernels (lib/ntt.c, lib/whir_prove.c) and the extension
 * loops of the sumcheck and LogUp-GKR provers (lib/fe2_vec.c: an extension element's c0
 * and c1 in two lane vectors, v2_load / v2_store).
 *
 * With AVX-512 an ez_v8 is one 512-bit register (carries and borrows are mask
 * registers: AVX-512 has unsigned compares). With AVX2 only (the AMD EPYC hosts: no
 * AVX-512) it is two 256-bit registers of four lanes; AVX2 compares only signed 64-bit
 * integers, so an unsigned a < b is (a ^ 2^63) < (b ^ 2^63) signed, and a carry becomes
 * an all-ones lane ANDed with the value to add. Every function returns the canonical
 * result (< p) for canonical inputs, exactly lib/field.h's value: the vector and scalar
 * paths give the same bytes (tests/check_ntt.c test_fe_vec compares them lane by lane).
 * Without either, EZ_FE_VEC is 0 and nothing is defined. */
#ifndef EZ_FE_VEC_H
#define EZ_FE_VEC_H

#include "lib/field.h"

/* Always inlined: an AVX2 ez_v8 (64 bytes) passed to a call goes through memory. */
#define EZ_V8_FN static inline __attribute__((always_inline))

#if defined(__AVX512F__)
#include <immintrin.h>
#define EZ_FE_VEC 1
#define EZ_FE_VEC_AVX512 1

typedef __m512i ez_v8;

EZ_V8_FN ez_v8 v_load(const ez_fe *p)
{
    return _mm512_loadu_si512((const void *)p);
}

EZ_V8_FN void v_store(ez_fe *p, ez_v8 v)
{
    _mm512_storeu_si512((void *)p, v);
}

EZ_V8_FN ez_v8 v_set1(ez_fe x)
{
    return _mm512_set1_epi64((long long)x);
}

EZ_V8_FN ez_v8 v_add(ez_v8 a, ez_v8 b)
{
    const __m512i eps = _mm512_set1_epi64((long long)EZ_EPSILON);
    const __m512i p = _mm512_set1_epi64((long long)EZ_P);
    __m512i s = _mm512_add_epi64(a, b);
    /* carry: s + 2^64 = s + EPS; s >= p: s - p = s + EPS (mod 2^64). Never both. */
    __mmask8 m = _mm512_cmplt_epu64_mask(s, a) | _mm512_cmpge_epu64_mask(s, p);
    return _mm512_mask_add_epi64(s, m, s, eps);
}

EZ_V8_FN ez_v8 v_sub(ez_v8 a, ez_v8 b)
{
    const __m512i eps = _mm512_set1_epi64((long long)EZ_EPSILON);
    __m512i d = _mm512_sub_epi64(a, b);
    /* borrow: d + 2^64 - EPS = a - b + p. */
    return _mm512_mask_sub_epi64(d, _mm512_cmplt_epu64_mask(a, b), d, eps);
}

/* lo + 2^64 hi (mod p), canonical: lo + hi_lo 2^64 + hi_hi 2^96 = lo + hi_lo (2^32 - 1)
 * - hi_hi, as in ez_fe_reduce128. */
EZ_V8_FN ez_v8 v_reduce128(ez_v8 lo, ez_v8 hi)
{
    const __m512i eps = _mm512_set1_epi64((long long)EZ_EPSILON);
    const __m512i p = _mm512_set1_epi64((long long)EZ_P);
    __m512i hhi = _mm512_srli_epi64(hi, 32);
    __m512i t0 = _mm512_sub_epi64(lo, hhi);
    t0 = _mm512_mask_sub_epi64(t0, _mm512_cmplt_epu64_mask(lo, hhi), t0, eps);
    __m512i t1 = _mm512_mul_epu32(hi, eps); /* hi_lo * (2^32 - 1) < 2^64 */
    __m512i r = _mm512_add_epi64(t0, t1);
    r = _mm512_mask_add_epi64(r, _mm512_cmplt_epu64_mask(r, t1), r, eps);
    return _mm512_mask_sub_epi64(r, _mm512_cmpge_epu64_mask(r, p), r, p);
}

EZ_V8_FN ez_v8 v_mul(ez_v8 a, ez_v8 b)
{
    const __m512i m32 = _mm512_set1_epi64((long long)0xFFFFFFFFu);
    /* 128-bit product from four 32x32 products (vpmuludq reads the low halves). */
    __m512i ah = _mm512_srli_epi64(a, 32), bh = _mm512_srli_epi64(b, 32);
    __m512i ll = _mm512_mul_epu32(a, b);
    __m512i lh = _mm512_mul_epu32(a, bh);
    __m512i hl = _mm512_mul_epu32(ah, b);
    __m512i hh = _mm512_mul_epu32(ah, bh);
    __m512i t = _mm512_add_epi64(hl, _mm512_srli_epi64(ll, 32));  /* <= 2^64 - 2^32 */
    __m512i t2 = _mm512_add_epi64(lh, _mm512_and_si512(t, m32)); /* < 2^64 */
    /* (t2 << 32) | (ll & m32) in one ternary-logic op: bits from ll where m32 is set. */
    __m512i lo = _mm512_ternarylogic_epi64(m32, ll, _mm512_slli_epi64(t2, 32), 0xCA);
    __m512i hi = _mm512_add_epi64(hh, _mm512_add_epi64(_mm512_srli_epi64(t, 32), _mm512_srli_epi64(t2, 32)));
    return v_reduce128(lo, hi);
}

/* x 2^e for e < 64, negated if neg: the 128-bit shift reduced as a product (the twiddles
 * of a transform of at most 64 points are +-2^e, all 64th roots of unity being powers of
 * 8 = 2^3; 2^96 = -1). About half of v_mul's instructions, no 32x32 products but one. */
EZ_V8_FN ez_v8 v_mul_pow2(ez_v8 x, unsigned e, int neg)
{
    __m512i lo = _mm512_sll_epi64(x, _mm_cvtsi32_si128((int)e));
    __m512i hi = _mm512_srl_epi64(x, _mm_cvtsi32_si128((int)(64 - e))); /* a count of 64 gives 0 */
    __m512i r = v_reduce128(lo, hi);
    return neg ? v_sub(_mm512_setzero_si512(), r) : r;
}

/* x 2^e for 0 < e <= 32: the high half of the shift is below 2^32, so the reduction is
 * lo + hi (2^32 - 1) with hi (2^32 - 1) = (hi << 32) - hi exact (v_mul_pow2 less its
 * 2^96 term and its 32x32 product). */
EZ_V8_FN ez_v8 v_mul_pow2_small(ez_v8 x, unsigned e)
{
    const __m512i eps = _mm512_set1_epi64((long long)EZ_EPSILON);
    const __m512i p = _mm512_set1_epi64((long long)EZ_P);
    __m512i lo = _mm512_sll_epi64(x, _mm_cvtsi32_si128((int)e));
    __m512i hi = _mm512_srl_epi64(x, _mm_cvtsi32_si128((int)(64 - e)));
    __m512i t = _mm512_sub_epi64(_mm512_slli_epi64(hi, 32), hi);
    __m512i r = _mm512_add_epi64(lo, t);
    /* a carry: r + 2^64 = r + EPS, and r < t <= 2^64 - 2^33 leaves room for it */
    r = _mm512_mask_add_epi64(r, _mm512_cmplt_epu64_mask(r, t), r, eps);
    return _mm512_mask_sub_epi64(r, _mm512_cmpge_epu64_mask(r, p), r, p);
}

/* Eight extension elements p[0..8) (c0, c1 interleaved) as their c0 lanes and c1 lanes,
 * in the lane order 0 4 1 5 2 6 3 7 (unpack within 128-bit lanes); v2_store undoes it.
 * Lane-wise arithmetic does not see the order, and a sum over lanes does not either. */
EZ_V8_FN void v2_load(const ez_fe2 *p, ez_v8 *c0, ez_v8 *c1)
{
    __m512i x = _mm512_loadu_si512((const void *)p), y = _mm512_loadu_si512((const void *)(p + 4));
    *c0 = _mm512_unpacklo_epi64(x, y);
    *c1 = _mm512_unpackhi_epi64(x, y);
}

EZ_V8_FN void v2_store(ez_fe2 *p, ez_v8 c0, ez_v8 c1)
{
    _mm512_storeu_si512((void *)p, _mm512_unpacklo_epi64(c0, c1));
    _mm512_storeu_si512((void *)(p + 4), _mm512_unpackhi_epi64(c0, c1));
}

/* Eight base elements p[0..8) in v2_load's lane order. */
EZ_V8_FN ez_v8 v_load_v2(const ez_fe *p)
{
    return _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7), _mm512_loadu_si512((const void *)p));
}

#elif defined(__AVX2__)
#include <immintrin.h>
#define EZ_FE_VEC 1
#define EZ_FE_VEC_AVX512 0

typedef struct {
    __m256i h[2]; /* lanes 0-3, 4-7 */
} ez_v8;

/* ---- four lanes ----
 * Unsigned compares as signed ones on x ^ 2^63 ("flipped" values). The flip is + 2^63
 * (mod 2^64), so a flipped value plus or minus a plain one is the flipped sum or
 * difference, and the difference of two flipped values is the plain one: each function
 * flips what it compares once and works on the flipped values from there. */

EZ_V8_FN __m256i v4_flip(__m256i a)
{
    return _mm256_xor_si256(a, _mm256_set1_epi64x(INT64_MIN));
}

/* EPSILON = 2^32 - 1 = 2^64 - p in the lanes where m is all ones */
EZ_V8_FN __m256i v4_eps(__m256i m)
{
    return _mm256_and_si256(m, _mm256_set1_epi64x((long long)EZ_EPSILON));
}

/* a + b = a - t with t = p - b in [1, p] (b < p): a - t borrows iff a + b < p, and then
 * the wrapped difference less EPS is a - t + p = a + b; else it is a + b - p. One
 * comparison where a carry and a ">= p" took two. */
EZ_V8_FN __m256i v4_add(__m256i a, __m256i b)
{
    __m256i as = v4_flip(a);
    __m256i ts = _mm256_sub_epi64(_mm256_set1_epi64x((long long)(EZ_P ^ UINT64_C(0x8000000000000000))), b);
    return _mm256_sub_epi64(_mm256_sub_epi64(as, ts), v4_eps(_mm256_cmpgt_epi64(ts, as)));
}

EZ_V8_FN __m256i v4_sub(__m256i a, __m256i b)
{
    __m256i d = _mm256_sub_epi64(a, b);
    /* borrow (a < b): d + 2^64 - EPS = a - b + p. */
    return _mm256_sub_epi64(d, v4_eps(_mm256_cmpgt_epi64(v4_flip(b), v4_flip(a))));
}

/* xs + t for a flipped xs (x any 64 bits) and t < 2^64 - 2^33 + 2, reduced to canonical:
 * a carry (the sum below x) adds 2^64 = EPS, a sum >= p adds EPS too (- p mod 2^64), never
 * both: a carried sum is below x - 2^33 + 2, so below p - EPS. */
EZ_V8_FN __m256i v4_add_reduce(__m256i xs, __m256i t)
{
    const __m256i pm = _mm256_set1_epi64x((long long)((EZ_P - 1) ^ UINT64_C(0x8000000000000000)));
    __m256i rs = _mm256_add_epi64(xs, t);
    __m256i m = _mm256_or_si256(_mm256_cmpgt_epi64(xs, rs), _mm256_cmpgt_epi64(rs, pm));
    return v4_flip(_mm256_add_epi64(rs, v4_eps(m)));
}

/* lo + 2^64 hi (mod p), canonical: lo - hi_hi + hi_lo (2^32 - 1), as ez_fe_reduce128 */
EZ_V8_FN __m256i v4_reduce128(__m256i lo, __m256i hi)
{
    __m256i hhi = _mm256_srli_epi64(hi, 32);
    __m256i ls = v4_flip(lo), t0s = _mm256_sub_epi64(ls, hhi);
    /* a borrow (lo < hi_hi < 2^32) leaves t0 > 2^64 - 2^32: less EPS it is lo - hi_hi + p,
     * with no second borrow */
    t0s = _mm256_sub_epi64(t0s, v4_eps(_mm256_cmpgt_epi64(t0s, ls)));
    return v4_add_reduce(t0s, _mm256_mul_epu32(hi, _mm256_set1_epi64x((long long)EZ_EPSILON)));
}

EZ_V8_FN __m256i v4_mul(__m256i a, __m256i b)
{
    const __m256i m32 = _mm256_set1_epi64x((long long)0xFFFFFFFFu);
    __m256i ah = _mm256_srli_epi64(a, 32), bh = _mm256_srli_epi64(b, 32);
    __m256i ll = _mm256_mul_epu32(a, b);
    __m256i lh = _mm256_mul_epu32(a, bh);
    __m256i hl = _mm256_mul_epu32(ah, b);
    __m256i hh = _mm256_mul_epu32(ah, bh);
    __m256i t = _mm256_add_epi64(hl, _mm256_srli_epi64(ll, 32));  /* <= 2^64 - 2^32 */
    __m256i t2 = _mm256_add_epi64(lh, _mm256_and_si256(t, m32)); /* < 2^64 */
    /* (t2 << 32) | (ll & m32): the low dwords from ll */
    __m256i lo = _mm256_blend_epi32(_mm256_slli_epi64(t2, 32), ll, 0x55);
    __m256i hi = _mm256_add_epi64(hh, _mm256_add_epi64(_mm256_srli_epi64(t, 32), _mm256_srli_epi64(t2, 32)));
    return v4_reduce128(lo, hi);
}

EZ_V8_FN __m256i v4_mul_pow2(__m256i x, unsigned e, int neg)
{
    __m256i lo = _mm256_sll_epi64(x, _mm_cvtsi32_si128((int)e));
    __m256i hi = _mm256_srl_epi64(x, _mm_cvtsi32_si128((int)(64 - e))); /* a count of 64 gives 0 */
    __m256i r = v4_reduce128(lo, hi);
    return neg ? v4_sub(_mm256_setzero_si256(), r) : r;
}

EZ_V8_FN __m256i v4_mul_pow2_small(__m256i x, unsigned e)
{
    __m256i lo = _mm256_sll_epi64(x, _mm_cvtsi32_si128((int)e));
    __m256i hi = _mm256_srl_epi64(x, _mm_cvtsi32_si128((int)(64 - e))); /* < 2^32 */
    return v4_add_reduce(v4_flip(lo), _mm256_sub_epi64(_mm256_slli_epi64(hi, 32), hi));
}

/* ---- eight lanes: the same on both halves (two independent chains per call) ---- */

EZ_V8_FN ez_v8 v_load(const ez_fe *p)
{
    ez_v8 r = {{_mm256_loadu_si256((const __m256i *)p), _mm256_loadu_si256((const __m256i *)(p + 4))}};
    return r;
}

EZ_V8_FN void v_store(ez_fe *p, ez_v8 v)
{
    _mm256_storeu_si256((__m256i *)p, v.h[0]);
    _mm256_storeu_si256((__m256i *)(p + 4), v.h[1]);
}

EZ_V8_FN ez_v8 v_set1(ez_fe x)
{
    __m256i b = _mm256_set1_epi64x((long long)x);
    ez_v8 r = {{b, b}};
    return r;
}

#define EZ_V8_2(f, a, b)                                                                                             \
    ez_v8 r = {{f((a).h[0], (b).h[0]), f((a).h[1], (b).h[1])}};                                                    \
    return r

EZ_V8_FN ez_v8 v_add(ez_v8 a, ez_v8 b)
{
    EZ_V8_2(v4_add, a, b);
}

EZ_V8_FN ez_v8 v_sub(ez_v8 a, ez_v8 b)
{
    EZ_V8_2(v4_sub, a, b);
}

EZ_V8_FN ez_v8 v_mul(ez_v8 a, ez_v8 b)
{
    EZ_V8_2(v4_mul, a, b);
}
#undef EZ_V8_2

EZ_V8_FN ez_v8 v_mul_pow2(ez_v8 x, unsigned e, int neg)
{
    ez_v8 r = {{v4_mul_pow2(x.h[0], e, neg), v4_mul_pow2(x.h[1], e, neg)}};
    return r;
}

EZ_V8_FN ez_v8 v_mul_pow2_small(ez_v8 x, unsigned e)
{
    ez_v8 r = {{v4_mul_pow2_small(x.h[0], e), v4_mul_pow2_small(x.h[1], e)}};
    return r;
}

/* Eight extension elements p[0..8) (c0, c1 interleaved) as their c0 lanes and c1 lanes,
 * in the lane order 0 2 1 3 4 6 5 7 (unpack within 128-bit lanes); v2_store undoes it.
 * Lane-wise arithmetic does not see the order, and a sum over lanes does not either. */
EZ_V8_FN void v2_load(const ez_fe2 *p, ez_v8 *c0, ez_v8 *c1)
{
    for (int k = 0; k < 2; k++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(p + 4 * k));
        __m256i y = _mm256_loadu_si256((const __m256i *)(p + 4 * k + 2));
        c0->h[k] = _mm256_unpacklo_epi64(x, y);
        c1->h[k] = _mm256_unpackhi_epi64(x, y);
    }
}

EZ_V8_FN void v2_store(ez_fe2 *p, ez_v8 c0, ez_v8 c1)
{
    for (int k = 0; k < 2; k++) {
        _mm256_storeu_si256((__m256i *)(p + 4 * k), _mm256_unpacklo_epi64(c0.h[k], c1.h[k]));
        _mm256_storeu_si256((__m256i *)(p + 4 * k + 2), _mm256_unpackhi_epi64(c0.h[k], c1.h[k]));
    }
}

/* Eight base elements p[0..8) in v2_load's lane order. */
EZ_V8_FN ez_v8 v_load_v2(const ez_fe *p)
{
    ez_v8 r = {{_mm256_permute4x64_epi64(_mm256_loadu_si256((const __m256i *)p), 0xD8),
                _mm256_permute4x64_epi64(_mm256_loadu_si256((const __m256i *)(p + 4)), 0xD8)}};
    return r;
}

#else
#define EZ_FE_VEC 0
#define EZ_FE_VEC_AVX512 0
#endif

#if EZ_FE_VEC
/* 7 x (the extension's X^2 = 7) as 8x - x: a shift's reduction and a subtraction. */
EZ_V8_FN ez_v8 v_mul_w(ez_v8 x)
{
    return v_sub(v_mul_pow2_small(x, 3), x);
}

/* (a0 + a1 X)(b0 + b1 X) = (a0 b0 + 7 a1 b1) + (a0 b1 + a1 b0) X, lane-wise. */
EZ_V8_FN void v2_mul(ez_v8 *c0, ez_v8 *c1, ez_v8 a0, ez_v8 a1, ez_v8 b0, ez_v8 b1)
{
    *c0 = v_add(v_mul(a0, b0), v_mul_w(v_mul(a1, b1)));
    *c1 = v_add(v_mul(a0, b1), v_mul(a1, b0));
}
#endif

#endif
