/* fe2_dot — see fe2_dot.h. The lanes' sums are exact integers; one reduction per output
 * (lane_value). */
#include "config.h"

#include "lib/fe2_dot.h"

#if EZ_FE2_DOT_LANES
#include <immintrin.h>
#endif

/* ---- the scalar loop: the reference ------------------------------------------------- */

bool ez_fe2_acc8_base_ref(ez_fe2 *out, const ez_fe2 *e, const ez_fe *x, size_t stride, size_t n)
{
    if (n > EZ_FE2_ACC8_MAX)
        return false;
    for (size_t l = 0; l < 8; l++) {
        ez_fe2 s = ez_fe2_zero();
        for (size_t u = 0; u < n; u++)
            s = ez_fe2_add(s, ez_fe2_mul_fe(e[u], x[u * stride + l]));
        out[l] = ez_fe2_add(out[l], s);
    }
    return true;
}

#if EZ_FE2_DOT_LANES

/* A lane's value from its twelve sums q[((c 3 + i) 2 + j) nl + lane] (limb i of x times
 * half j of coordinate c, weight 2^(22 i + 32 j)): per coordinate L = sum_i s[i][0]
 * 2^(22 i) and H = sum_i s[i][1] 2^(22 i) in 128 bits (each below 2^109), and
 * L + 2^32 H = L + 2^32 H_lo + 2^96 H_hi = L + 2^32 H_lo - H_hi (mod p). */
static ez_fe2 lane_value(const uint64_t *q, size_t nl, size_t lane)
{
    typedef unsigned __int128 u128;
    ez_fe v[2];
    for (int c = 0; c < 2; c++) {
        const uint64_t *s = q + (size_t)c * 6 * nl + lane;
        u128 L = (u128)s[0] + ((u128)s[2 * nl] << 22) + ((u128)s[4 * nl] << 44);
        u128 H = (u128)s[nl] + ((u128)s[3 * nl] << 22) + ((u128)s[5 * nl] << 44);
        ez_fe x = ez_fe_add(ez_fe_reduce128(L), ez_fe_reduce128((u128)(uint64_t)H << 32));
        v[c] = ez_fe_sub(x, ez_fe_from_u64((uint64_t)(H >> 64)));
    }
    return ez_fe2_make(v[0], v[1]);
}

#endif

#if defined(__AVX512F__)

/* Eight lanes in one register; s[c][i][j] sums the products of limb i of x and half j of
 * coordinate c (12 products and 12 additions per step, no shifts or masks on the
 * products). */
typedef struct {
    __m512i s[2][3][2];
} acc8;

static inline void acc8_step(acc8 *a, __m512i xv, ez_fe2 e)
{
    const __m512i m22 = _mm512_set1_epi64((long long)0x3FFFFF);
    __m512i xl[3] = {_mm512_and_si512(xv, m22), _mm512_and_si512(_mm512_srli_epi64(xv, 22), m22),
                     _mm512_srli_epi64(xv, 44)};
    uint64_t ev[2] = {e.c0, e.c1};
#pragma GCC unroll 2
    for (int c = 0; c < 2; c++) {
        /* vpmuludq reads the low 32 bits of each lane: e itself is its low half */
        __m512i el = _mm512_set1_epi64((long long)ev[c]), eh = _mm512_set1_epi64((long long)(ev[c] >> 32));
#pragma GCC unroll 3
        for (int i = 0; i < 3; i++) {
            a->s[c][i][0] = _mm512_add_epi64(a->s[c][i][0], _mm512_mul_epu32(xl[i], el));
            a->s[c][i][1] = _mm512_add_epi64(a->s[c][i][1], _mm512_mul_epu32(xl[i], eh));
        }
    }
}

bool ez_fe2_acc8_base(ez_fe2 *out, const ez_fe2 *e, const ez_fe *x, size_t stride, size_t n)
{
    if (n > EZ_FE2_ACC8_MAX)
        return false;
    acc8 a;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 3; i++)
            a.s[c][i][0] = a.s[c][i][1] = _mm512_setzero_si512();
    for (size_t u = 0; u < n; u++) {
        /* rows are far apart (stride 2^k0 entries): fetch ahead of the strided loads */
        _mm_prefetch((const char *)(x + (u + 32) * stride), _MM_HINT_T0);
        acc8_step(&a, _mm512_loadu_si512((const void *)(x + u * stride)), e[u]);
    }
    uint64_t q[12 * 8];
    for (int k = 0; k < 12; k++)
        _mm512_storeu_si512((void *)(q + 8 * k), a.s[k / 6][(k / 2) % 3][k % 2]);
    for (size_t l = 0; l < 8; l++)
        out[l] = ez_fe2_add(out[l], lane_value(q, 8, l));
    return true;
}

#endif

#if !defined(__AVX512F__) && EZ_FE2_DOT_LANES

/* Four lanes in one AVX2 register, one coordinate of e per pass: its six sums s[i][j]
 * (limb i of x, half j of the coordinate), the three limbs, the broadcast halves and a
 * product fit the sixteen registers (both coordinates at once spill two sums to the
 * stack). The second pass reads the rows from L1: callers lay them out contiguously
 * (stride 8), never 2^k0 or 2^10 entries apart, which maps every row to the same few
 * cache sets. q[(i 2 + j) 4 + lane] = the pass's sums, as lane_value reads them. */
static void acc4_pass(uint64_t *q, const ez_fe2 *e, int c, const ez_fe *x, size_t stride, size_t n)
{
    const __m256i m22 = _mm256_set1_epi64x((long long)0x3FFFFF);
    __m256i s[3][2];
    for (int i = 0; i < 3; i++)
        s[i][0] = s[i][1] = _mm256_setzero_si256();
    for (size_t u = 0; u < n; u++) {
        __m256i xv = _mm256_loadu_si256((const __m256i *)(x + u * stride));
        __m256i xl[3] = {_mm256_and_si256(xv, m22), _mm256_and_si256(_mm256_srli_epi64(xv, 22), m22),
                         _mm256_srli_epi64(xv, 44)};
        /* the coordinate's halves in every dword (vpmuludq reads each lane's low dword;
         * little-endian: the low half first) */
        const char *ec = (const char *)&e[u] + 8 * c;
        __m256i el = _mm256_broadcastd_epi32(_mm_loadu_si32(ec));
        __m256i eh = _mm256_broadcastd_epi32(_mm_loadu_si32(ec + 4));
#pragma GCC unroll 3
        for (int i = 0; i < 3; i++) {
            s[i][0] = _mm256_add_epi64(s[i][0], _mm256_mul_epu32(xl[i], el));
            s[i][1] = _mm256_add_epi64(s[i][1], _mm256_mul_epu32(xl[i], eh));
        }
    }
    for (int k = 0; k < 6; k++)
        _mm256_storeu_si256((__m256i *)(q + 4 * k), s[k / 2][k % 2]);
}

/* out[lane] += sum_u e[u] x[u stride + lane], lanes 0-3, n <= EZ_FE2_ACC8_MAX */
static void acc4(ez_fe2 *out, const ez_fe2 *e, const ez_fe *x, size_t stride, size_t n)
{
    uint64_t q[12 * 4];
    acc4_pass(q, e, 0, x, stride, n);
    acc4_pass(q + 24, e, 1, x, stride, n);
    for (size_t l = 0; l < 4; l++)
        out[l] = ez_fe2_add(out[l], lane_value(q, 4, l));
}

/* Eight lanes as two runs of four */
bool ez_fe2_acc8_base(ez_fe2 *out, const ez_fe2 *e, const ez_fe *x, size_t stride, size_t n)
{
    if (n > EZ_FE2_ACC8_MAX)
        return false;
    acc4(out, e, x, stride, n);
    acc4(out + 4, e, x + 4, stride, n);
    return true;
}

#elif !EZ_FE2_DOT_LANES

bool ez_fe2_acc8_base(ez_fe2 *out, const ez_fe2 *e, const ez_fe *x, size_t stride, size_t n)
{
    return ez_fe2_acc8_base_ref(out, e, x, stride, n);
}

#endif
