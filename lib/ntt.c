/* ntt — see ntt.h.
 *
 * Two in-place kernels do all the work:
 *   dif: Gentleman–Sande (decimation in frequency), natural order in, bit-reversed out;
 *        stages with half-width h = n/2, n/4, ..., 1: (u, v) -> (u + v, (u - v) w^j).
 *   dit: Cooley–Tukey (decimation in time), bit-reversed in, natural out; stages
 *        h = 1, 2, ..., n/2: (u, v) -> (u + v w^j, u - v w^j).
 * Pairing them (dif with inverse twiddles, then dit with forward twiddles) gives the
 * low-degree extension without any bit-reversal permutation.
 *
 * Twiddle layout: tw[h + j] = w_{2h}^j for every power of two h < 2^max_log and j < h,
 * so the stage of half-width h reads tw[h .. 2h-1] sequentially (tw[0] is unused).
 *
 * Large transforms are cache-blocked: the stages with h >= EZ_NTT_BLOCK are whole-array
 * passes (parallel over butterflies), the rest run block by block inside a cache-sized
 * block (parallel over blocks). */
#include "lib/ntt.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "lib/fe_vec.h"

/* EZ_FE_VEC (AVX-512 or AVX2): the lane kernels run eight elements at a time
 * (lib/fe_vec.h); EZ_NTT_AVX512: also the in-register permutations of the three smallest
 * stages and of the Möbius transform's low bits. */
#define EZ_NTT_AVX512 EZ_FE_VEC_AVX512

/* 2^14 entries = 128 KiB: one block stays in L2 for all its stages. */
#define EZ_NTT_LOG_BLOCK 14u
#define EZ_NTT_BLOCK (1u << EZ_NTT_LOG_BLOCK)
/* Transforms at least this large use OpenMP (outside parallel regions). */
#define EZ_NTT_PAR_MIN (1u << 14)

struct ez_ntt {
    unsigned max_log;
    ez_fe *tw;  /* forward twiddles, 2^max_log entries */
    ez_fe *itw; /* inverse twiddles */
};

/* What an RS encoder and an LDE plan both hold: the NTT of n = 2^logn points and the
 * scale factors of the B - 1 cosets k = 1 .. B - 1 (B = 2^logb). */
typedef struct {
    unsigned logn, logb;
    ez_ntt *ntt;  /* tables for size 2^logn */
    ez_fe *scale; /* (B-1) n entries, cosets_init */
} cosets;

struct ez_ntt_rs {
    cosets c; /* scale[(k-1) n + u] = w_{Bn}^(k u) */
    /* pow2[i] = e when twiddle c.ntt->tw[i] = 2^e with e < 64, else 255 (i < 64: the
     * stages h <= 32, whose twiddles are 64th roots of unity, powers of 2) */
    unsigned char pow2[64];
};

struct ez_ntt_lde {
    cosets c; /* scale[(k-1) n + m] = (w_{Bn}^k)^brev(m) / n */
};

/* ---- butterflies ---------------------------------------------------------------- */

#if EZ_NTT_AVX512
/* Lane permutations for the three smallest stages (h = 4, 2, 1), where a butterfly's
 * two inputs share one 8-lane register: two registers (16 entries) are split into
 * the u-halves and v-halves of their blocks, and merged back afterwards. Index 0-7
 * selects from the first register, 8-15 from the second (vpermt2q). */
static const uint64_t perm_u[3][8] = {
    {0, 1, 2, 3, 8, 9, 10, 11}, /* h = 4 */
    {0, 1, 4, 5, 8, 9, 12, 13}, /* h = 2 */
    {0, 2, 4, 6, 8, 10, 12, 14} /* h = 1 */
};
static const uint64_t perm_v[3][8] = {
    {4, 5, 6, 7, 12, 13, 14, 15},
    {2, 3, 6, 7, 10, 11, 14, 15},
    {1, 3, 5, 7, 9, 11, 13, 15},
};
static const uint64_t perm_lo[3][8] = {
    {0, 1, 2, 3, 8, 9, 10, 11},
    {0, 1, 8, 9, 2, 3, 10, 11},
    {0, 8, 1, 9, 2, 10, 3, 11},
};
static const uint64_t perm_hi[3][8] = {
    {4, 5, 6, 7, 12, 13, 14, 15},
    {4, 5, 12, 13, 6, 7, 14, 15},
    {4, 12, 5, 13, 6, 14, 7, 15},
};

/* One small stage (s = 0: h = 4, 1: h = 2, 2: h = 1) on the 16 entries in (*x, *y). */
static inline void v_small_stage(__m512i *x, __m512i *y, int s, __m512i w, int dif)
{
    __m512i iu = v_load(perm_u[s]), iv = v_load(perm_v[s]);
    __m512i u = _mm512_permutex2var_epi64(*x, iu, *y);
    __m512i v = _mm512_permutex2var_epi64(*x, iv, *y);
    __m512i nu, nv;
    if (dif) {
        nu = v_add(u, v);
        nv = s == 2 ? v_sub(u, v) : v_mul(v_sub(u, v), w); /* h = 1: w = 1 */
    } else {
        __m512i vw = s == 2 ? v : v_mul(v, w);
        nu = v_add(u, vw);
        nv = v_sub(u, vw);
    }
    *x = _mm512_permutex2var_epi64(nu, v_load(perm_lo[s]), nv);
    *y = _mm512_permutex2var_epi64(nu, v_load(perm_hi[s]), nv);
}

static inline __m512i small_tw(const ez_fe *tw, int s)
{
    if (s == 0)
        return _mm512_setr_epi64((long long)tw[4], (long long)tw[5], (long long)tw[6], (long long)tw[7],
                                 (long long)tw[4], (long long)tw[5], (long long)tw[6], (long long)tw[7]);
    return _mm512_setr_epi64((long long)tw[2], (long long)tw[3], (long long)tw[2], (long long)tw[3],
                             (long long)tw[2], (long long)tw[3], (long long)tw[2], (long long)tw[3]);
}
#elif EZ_FE_VEC
/* AVX2: the three smallest stages inside one ez_v8 of 8 entries. Its halves are the
 * h = 4 pairs; for h = 2 the 128-bit halves of the two registers pair up, for h = 1 their
 * even and odd lanes: s = 0, 1, 2 (h = 4, 2, 1) moves u and v into two registers... */
static inline void v4_split(__m256i lo, __m256i hi, int s, __m256i *u, __m256i *v)
{
    *u = s == 0 ? lo : s == 1 ? _mm256_permute2x128_si256(lo, hi, 0x20) : _mm256_unpacklo_epi64(lo, hi);
    *v = s == 0 ? hi : s == 1 ? _mm256_permute2x128_si256(lo, hi, 0x31) : _mm256_unpackhi_epi64(lo, hi);
}

/* ... and back (the same shuffles invert each other) */
static inline void v4_merge(__m256i u, __m256i v, int s, ez_v8 *x)
{
    v4_split(u, v, s, &x->h[0], &x->h[1]);
}

/* Stages h = 4, 2, 1 (dif) or 1, 2, 4 (dit) of the 8 entries x; twiddles tw[4 .. 7] for
 * h = 4, tw[2 .. 3] for h = 2, and 1 for h = 1 (no product). */
static inline void v_small3(ez_v8 *x, const ez_fe *tw, int dif)
{
    const __m256i w4 = _mm256_loadu_si256((const __m256i *)(tw + 4));
    const __m256i w2 = _mm256_setr_epi64x((long long)tw[2], (long long)tw[3], (long long)tw[2], (long long)tw[3]);
    for (int st = 0; st < 3; st++) {
        int s = dif ? st : 2 - st;
        __m256i u, v, w = s == 0 ? w4 : w2;
        v4_split(x->h[0], x->h[1], s, &u, &v);
        if (dif) {
            __m256i d = v4_sub(u, v);
            u = v4_add(u, v);
            v = s == 2 ? d : v4_mul(d, w);
        } else {
            __m256i t = s == 2 ? v : v4_mul(v, w);
            v = v4_sub(u, t);
            u = v4_add(u, t);
        }
        v4_merge(u, v, s, x);
    }
}
#endif

/* The butterflies of one stage on a run u[j..jend), v[j..jend) of a block (v = u + h),
 * twiddles w[j..jend): DIF (u, v) <- (u + v, (u - v) w), DIT (u, v) <- (u + v w, u - v w),
 * and the Möbius transform's v <- v - u (no twiddles). */
enum { RUN_DIF, RUN_DIT, RUN_MOBIUS };

static inline __attribute__((always_inline)) void butterfly_run(ez_fe *u, ez_fe *v, const ez_fe *w, size_t j,
                                                                size_t jend, int kind)
{
#if EZ_FE_VEC
    for (; j + 8 <= jend; j += 8) {
        ez_v8 x = v_load(u + j), y = v_load(v + j);
        if (kind == RUN_DIF) {
            v_store(u + j, v_add(x, y));
            v_store(v + j, v_mul(v_sub(x, y), v_load(w + j)));
        } else if (kind == RUN_DIT) {
            y = v_mul(y, v_load(w + j));
            v_store(u + j, v_add(x, y));
            v_store(v + j, v_sub(x, y));
        } else {
            v_store(v + j, v_sub(y, x));
        }
    }
#endif
    for (; j < jend; j++) {
        ez_fe x = u[j], y = v[j];
        if (kind == RUN_DIF) {
            u[j] = ez_fe_add(x, y);
            v[j] = ez_fe_mul(ez_fe_sub(x, y), w[j]);
        } else if (kind == RUN_DIT) {
            y = ez_fe_mul(y, w[j]);
            u[j] = ez_fe_add(x, y);
            v[j] = ez_fe_sub(x, y);
        } else {
            v[j] = ez_fe_sub(y, x);
        }
    }
}

/* One stage of half-width h over butterflies [q0, q1) of an array (q numbers the n/2
 * butterflies of the stage: block q / h, offset q % h), run by run within the blocks.
 * One walk for the three kinds; each caller passes a constant kind, so each inlined copy
 * is its own loop. tw: the stage twiddles at tw + h (NULL for the Möbius transform). */
static inline __attribute__((always_inline)) void stage_runs(ez_fe *a, size_t h, const ez_fe *tw, size_t q0,
                                                             size_t q1, int kind)
{
    const ez_fe *w = kind == RUN_MOBIUS ? NULL : tw + h;
    size_t q = q0;
    while (q < q1) {
        size_t j = q % h, s = (q / h) * 2 * h;
        size_t jend = h - j < q1 - q ? h : j + (q1 - q);
        butterfly_run(a + s, a + s + h, w, j, jend, kind);
        q = s / 2 + jend;
    }
}

static void dif_stage(ez_fe *a, size_t h, const ez_fe *tw, size_t q0, size_t q1)
{
    stage_runs(a, h, tw, q0, q1, RUN_DIF);
}

static void dit_stage(ez_fe *a, size_t h, const ez_fe *tw, size_t q0, size_t q1)
{
    stage_runs(a, h, tw, q0, q1, RUN_DIT);
}

/* All stages of a block of n = 2^logn <= EZ_NTT_BLOCK entries (h = n/2 .. 1). */
static void dif_block(ez_fe *a, unsigned logn, const ez_fe *tw)
{
    size_t n = (size_t)1 << logn;
#if EZ_NTT_AVX512
    if (n >= 16) {
        for (size_t h = n / 2; h >= 8; h /= 2)
            dif_stage(a, h, tw, 0, n / 2);
        __m512i w4 = small_tw(tw, 0), w2 = small_tw(tw, 1);
        for (size_t i = 0; i < n; i += 16) {
            __m512i x = v_load(a + i), y = v_load(a + i + 8);
            v_small_stage(&x, &y, 0, w4, 1);
            v_small_stage(&x, &y, 1, w2, 1);
            v_small_stage(&x, &y, 2, w2, 1);
            v_store(a + i, x);
            v_store(a + i + 8, y);
        }
        return;
    }
#elif EZ_FE_VEC
    if (n >= 8) {
        for (size_t h = n / 2; h >= 8; h /= 2)
            dif_stage(a, h, tw, 0, n / 2);
        for (size_t i = 0; i < n; i += 8) {
            ez_v8 x = v_load(a + i);
            v_small3(&x, tw, 1);
            v_store(a + i, x);
        }
        return;
    }
#endif
    for (size_t h = n / 2; h >= 1; h /= 2)
        dif_stage(a, h, tw, 0, n / 2);
}

/* dit on a block; if scale != NULL the input is src[m] * scale[m] (fused into the first
 * pass, which then reads src and writes a), else src must be NULL and a is the input. */
static void dit_block(ez_fe *a, unsigned logn, const ez_fe *tw, const ez_fe *src, const ez_fe *scale)
{
    size_t n = (size_t)1 << logn;
#if EZ_NTT_AVX512
    if (n >= 16) {
        __m512i w4 = small_tw(tw, 0), w2 = small_tw(tw, 1);
        for (size_t i = 0; i < n; i += 16) {
            __m512i x, y;
            if (scale) {
                x = v_mul(v_load(src + i), v_load(scale + i));
                y = v_mul(v_load(src + i + 8), v_load(scale + i + 8));
            } else {
                x = v_load(a + i);
                y = v_load(a + i + 8);
            }
            v_small_stage(&x, &y, 2, w2, 0);
            v_small_stage(&x, &y, 1, w2, 0);
            v_small_stage(&x, &y, 0, w4, 0);
            v_store(a + i, x);
            v_store(a + i + 8, y);
        }
        for (size_t h = 8; h < n; h *= 2)
            dit_stage(a, h, tw, 0, n / 2);
        return;
    }
#elif EZ_FE_VEC
    if (n >= 8) {
        for (size_t i = 0; i < n; i += 8) {
            ez_v8 x = scale ? v_mul(v_load(src + i), v_load(scale + i)) : v_load(a + i);
            v_small3(&x, tw, 0);
            v_store(a + i, x);
        }
        for (size_t h = 8; h < n; h *= 2)
            dit_stage(a, h, tw, 0, n / 2);
        return;
    }
#endif
    if (scale)
        for (size_t i = 0; i < n; i++)
            a[i] = ez_fe_mul(src[i], scale[i]);
    for (size_t h = 1; h < n; h *= 2)
        dit_stage(a, h, tw, 0, n / 2);
}

static int use_threads(size_t n)
{
#ifdef _OPENMP
    return n >= EZ_NTT_PAR_MIN && !omp_in_parallel() && omp_get_max_threads() > 1;
#else
    (void)n;
    return 0;
#endif
}

/* Whole-array stage, split into chunks of butterflies for the threads. */
static void stage_par(ez_fe *a, size_t n, size_t h, const ez_fe *tw, int dif, int par)
{
    const size_t chunk = 2048;
    size_t nq = n / 2, nchunks = (nq + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (par)
    for (size_t c = 0; c < nchunks; c++) {
        size_t q0 = c * chunk, q1 = q0 + chunk < nq ? q0 + chunk : nq;
        if (dif)
            dif_stage(a, h, tw, q0, q1);
        else
            dit_stage(a, h, tw, q0, q1);
    }
}

static void dif_full(ez_fe *a, unsigned logn, const ez_fe *tw)
{
    if (logn <= EZ_NTT_LOG_BLOCK) {
        dif_block(a, logn, tw);
        return;
    }
    size_t n = (size_t)1 << logn;
    int par = use_threads(n);
    for (size_t h = n / 2; h >= EZ_NTT_BLOCK; h /= 2)
        stage_par(a, n, h, tw, 1, par);
    size_t nb = n >> EZ_NTT_LOG_BLOCK;
#pragma omp parallel for schedule(static) if (par)
    for (size_t b = 0; b < nb; b++)
        dif_block(a + (b << EZ_NTT_LOG_BLOCK), EZ_NTT_LOG_BLOCK, tw);
}

/* dit of a (see dit_block for src/scale: the input scaling is fused into the block pass). */
static void dit_full(ez_fe *a, unsigned logn, const ez_fe *tw, const ez_fe *src, const ez_fe *scale)
{
    if (logn <= EZ_NTT_LOG_BLOCK) {
        dit_block(a, logn, tw, src, scale);
        return;
    }
    size_t n = (size_t)1 << logn;
    int par = use_threads(n);
    size_t nb = n >> EZ_NTT_LOG_BLOCK;
#pragma omp parallel for schedule(static) if (par)
    for (size_t b = 0; b < nb; b++) {
        size_t o = b << EZ_NTT_LOG_BLOCK;
        dit_block(a + o, EZ_NTT_LOG_BLOCK, tw, scale ? src + o : NULL, scale ? scale + o : NULL);
    }
    for (size_t h = EZ_NTT_BLOCK; h < n; h *= 2)
        stage_par(a, n, h, tw, 0, par);
}

static uint64_t bitrev(uint64_t x, unsigned bits)
{
    if (bits == 0)
        return 0;
    x = ((x >> 1) & UINT64_C(0x5555555555555555)) | ((x & UINT64_C(0x5555555555555555)) << 1);
    x = ((x >> 2) & UINT64_C(0x3333333333333333)) | ((x & UINT64_C(0x3333333333333333)) << 2);
    x = ((x >> 4) & UINT64_C(0x0F0F0F0F0F0F0F0F)) | ((x & UINT64_C(0x0F0F0F0F0F0F0F0F)) << 4);
    x = __builtin_bswap64(x);
    return x >> (64 - bits);
}

static void bitrev_permute(ez_fe *a, unsigned logn)
{
    size_t n = (size_t)1 << logn;
    /* Each swap pair (i, brev(i)) is handled only by its smaller index: disjoint writes. */
#pragma omp parallel for schedule(static) if (use_threads(n))
    for (size_t i = 0; i < n; i++) {
        size_t r = (size_t)bitrev(i, logn);
        if (i < r) {
            ez_fe t = a[i];
            a[i] = a[r];
            a[r] = t;
        }
    }
}

static void scale_all(ez_fe *a, size_t n, ez_fe c)
{
#pragma omp parallel for schedule(static) if (use_threads(n))
    for (size_t i = 0; i < n; i++)
        a[i] = ez_fe_mul(a[i], c);
}

/* ---- public --------------------------------------------------------------------- */

static void fill_twiddles(ez_fe *tw, unsigned max_log, ez_fe root)
{
    size_t n = (size_t)1 << max_log;
    tw[0] = 0;
    if (max_log == 0)
        return;
    /* Top stage (h = n/2): powers of the primitive n-th root; every smaller stage takes
     * every other entry of the one above (w_{2h}^j = w_{4h}^{2j}). */
    size_t h = n / 2;
    ez_fe x = 1;
    for (size_t j = 0; j < h; j++) {
        tw[h + j] = x;
        x = ez_fe_mul(x, root);
    }
    for (h = n / 4; h >= 1; h /= 2)
        for (size_t j = 0; j < h; j++)
            tw[h + j] = tw[2 * h + 2 * j];
}

ez_status ez_ntt_new(ez_ntt **out, unsigned max_log)
{
    ez_status st = EZ_ERR_NOMEM;
    *out = NULL;
    if (max_log > EZ_NTT_MAX_LOG)
        return EZ_ERR_INVALID;
    ez_ntt *t = calloc(1, sizeof *t);
    if (t == NULL)
        goto out;
    size_t n = (size_t)1 << max_log;
    t->max_log = max_log;
    t->tw = ez_alloc_aligned(n < 8 ? 8 : n, sizeof(ez_fe));
    t->itw = ez_alloc_aligned(n < 8 ? 8 : n, sizeof(ez_fe));
    if (t->tw == NULL || t->itw == NULL)
        goto out;
    ez_fe w = ez_fe_root_of_unity(max_log);
    fill_twiddles(t->tw, max_log, w);
    fill_twiddles(t->itw, max_log, ez_fe_inv(w));
    *out = t;
    t = NULL;
    st = EZ_OK;
out:
    ez_ntt_free(t);
    return st;
}

void ez_ntt_free(ez_ntt *t)
{
    if (t == NULL)
        return;
    free(t->tw);
    free(t->itw);
    free(t);
}

unsigned ez_ntt_max_log(const ez_ntt *t)
{
    return t->max_log;
}

void ez_ntt_forward(const ez_ntt *t, ez_fe *a, unsigned logn)
{
    EZ_VERIFY_CHECK(logn <= t->max_log);
    dif_full(a, logn, t->tw);
    bitrev_permute(a, logn);
}

void ez_ntt_inverse(const ez_ntt *t, ez_fe *a, unsigned logn)
{
    EZ_VERIFY_CHECK(logn <= t->max_log);
    dif_full(a, logn, t->itw);
    bitrev_permute(a, logn);
    scale_all(a, (size_t)1 << logn, ez_fe_inv((ez_fe)1 << logn));
}

void ez_ntt_coset_forward(const ez_ntt *t, ez_fe *a, unsigned logn, ez_fe shift)
{
    size_t n = (size_t)1 << logn;
    /* a[i] *= shift^i; chunks start from their own power so threads are independent. */
    const size_t chunk = 4096;
    size_t nchunks = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (use_threads(n))
    for (size_t c = 0; c < nchunks; c++) {
        size_t i0 = c * chunk, i1 = i0 + chunk < n ? i0 + chunk : n;
        ez_fe x = ez_fe_pow(shift, i0);
        for (size_t i = i0; i < i1; i++) {
            a[i] = ez_fe_mul(a[i], x);
            x = ez_fe_mul(x, shift);
        }
    }
    ez_ntt_forward(t, a, logn);
}

/* The NTT of 2^logn points and the coset scale factors scale[(k - 1) n + i] = first gk^i
 * for k = 1 .. 2^logb - 1 (gk = g^k, g the primitive 2^(logn + logb)-th root of unity), at
 * position i, or bitrev(i) with brev. c zeroed by the caller; cosets_clear on failure too.
 * EZ_OK or EZ_ERR_NOMEM. */
static ez_status cosets_init(cosets *c, unsigned logn, unsigned logb, ez_fe first, bool brev)
{
    c->logn = logn;
    c->logb = logb;
    size_t n = (size_t)1 << logn, nb = ((size_t)1 << logb) - 1;
    ez_status st = ez_ntt_new(&c->ntt, logn);
    if (st != EZ_OK)
        return st;
    c->scale = ez_alloc_aligned(nb * n, sizeof(ez_fe));
    if (c->scale == NULL)
        return EZ_ERR_NOMEM;
    /* coset k's scales first * gk^i, gk = g^k, in chunks that start from a power of
     * their own: one chain of multiplies per chunk, chunks side by side (a commitment's
     * 3 x 2^16 scales were a millisecond of one thread) */
    ez_fe g = ez_fe_root_of_unity(logn + logb);
    const size_t chunk = (size_t)1 << 12, nch = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (nb * n >= ((size_t)1 << 15))
    for (size_t job = 0; job < nb * nch; job++) {
        size_t k = job / nch + 1, i0 = (job % nch) * chunk, i1 = i0 + chunk < n ? i0 + chunk : n;
        ez_fe gk = ez_fe_pow(g, k), x = ez_fe_mul(first, ez_fe_pow(gk, i0)), *sc = c->scale + (k - 1) * n;
        for (size_t i = i0; i < i1; i++) {
            sc[brev ? bitrev(i, logn) : i] = x;
            x = ez_fe_mul(x, gk);
        }
    }
    return EZ_OK;
}

static void cosets_clear(cosets *c)
{
    ez_ntt_free(c->ntt);
    free(c->scale);
}

ez_status ez_ntt_lde_new(ez_ntt_lde **out, unsigned logn, unsigned log_blowup)
{
    *out = NULL;
    if (logn < 1 || log_blowup < 1 || log_blowup > 4 || logn + log_blowup > EZ_NTT_MAX_LOG)
        return EZ_ERR_INVALID;
    ez_ntt_lde *p = calloc(1, sizeof *p);
    /* pw[i] = gk^i / n in natural order, stored at the bit-reversed position */
    ez_status st = p ? cosets_init(&p->c, logn, log_blowup, ez_fe_inv((ez_fe)1 << logn), true) : EZ_ERR_NOMEM;
    if (st == EZ_OK)
        *out = p;
    else
        ez_ntt_lde_free(p);
    return st;
}

void ez_ntt_lde_free(ez_ntt_lde *p)
{
    if (p == NULL)
        return;
    cosets_clear(&p->c);
    free(p);
}

unsigned ez_ntt_lde_logn(const ez_ntt_lde *p)
{
    return p->c.logn;
}

unsigned ez_ntt_lde_log_blowup(const ez_ntt_lde *p)
{
    return p->c.logb;
}

void ez_ntt_lde_apply(const ez_ntt_lde *p, ez_fe *out, const ez_fe *in, ez_fe *scratch)
{
    size_t n = (size_t)1 << p->c.logn, nb = ((size_t)1 << p->c.logb) - 1;
    /* scratch = bit-reversed n * coefficients (unnormalised inverse DFT). */
    memcpy(scratch, in, n * sizeof *scratch);
    dif_full(scratch, p->c.logn, p->c.ntt->itw);
    if (out != in)
        memcpy(out, in, n * sizeof *out);
    /* Coset k: coefficients c_i = a_i g^(k i) (the 1/n folded into the scale table),
     * then a forward dit from bit-reversed coefficients to natural evaluations. */
    for (size_t k = 1; k <= nb; k++) {
        ez_fe *dst = out + k * n;
        const ez_fe *sc = p->c.scale + (k - 1) * n;
        dit_full(dst, p->c.logn, p->c.ntt->tw, scratch, sc);
    }
}

/* ---- Reed–Solomon encoding from coefficients ------------------------------------ */

ez_status ez_ntt_rs_new(ez_ntt_rs **out, unsigned logn, unsigned log_blowup)
{
    *out = NULL;
    if (log_blowup < 1 || log_blowup > 4 || logn + log_blowup > EZ_NTT_MAX_LOG)
        return EZ_ERR_INVALID;
    ez_ntt_rs *p = calloc(1, sizeof *p);
    ez_status st = p ? cosets_init(&p->c, logn, log_blowup, 1, false) : EZ_ERR_NOMEM;
    if (st != EZ_OK) {
        ez_ntt_rs_free(p);
        return st;
    }
    size_t ntw = (size_t)1 << logn;
    for (size_t i = 0; i < 64; i++) {
        p->pow2[i] = 255;
        ez_fe t = 1;
        for (unsigned e = 0; e < 64 && i > 0 && i < ntw; e++, t = ez_fe_add(t, t))
            if (p->c.ntt->tw[i] == t)
                p->pow2[i] = (unsigned char)e;
    }
    *out = p;
    return EZ_OK;
}

void ez_ntt_rs_free(ez_ntt_rs *p)
{
    if (p == NULL)
        return;
    cosets_clear(&p->c);
    free(p);
}

void ez_ntt_rs_coset(const ez_ntt_rs *p, ez_fe *out, const ez_fe *a, unsigned k)
{
    size_t n = (size_t)1 << p->c.logn;
    EZ_VERIFY_CHECK(k < (1u << p->c.logb));
    if (k == 0) {
        memcpy(out, a, n * sizeof *out);
    } else {
        /* coefficients of P(w^k X): a_u w^(k u) */
        const ez_fe *sc = p->c.scale + (size_t)(k - 1) * n;
        size_t u = 0;
#if EZ_FE_VEC
        for (; u + 8 <= n; u += 8)
            v_store(out + u, v_mul(v_load(a + u), v_load(sc + u)));
#endif
        for (; u < n; u++)
            out[u] = ez_fe_mul(a[u], sc[u]);
    }
    /* natural-order coefficients -> bit-reversed evaluations on <w_n> */
    dif_full(out, p->c.logn, p->c.ntt->tw);
}

/* ---- Möbius transform ------------------------------------------------------------ */

/* One bit h of the Möbius transform over pairs [q0, q1) (pair q: block q / h, offset
 * q % h, as the NTT stages number their butterflies). */
static void mobius_pairs(ez_fe *a, size_t h, size_t q0, size_t q1)
{
    stage_runs(a, h, NULL, q0, q1, RUN_MOBIUS);
}

#if EZ_NTT_AVX512
/* Bits 0..2 of the Möbius transform inside each 8-lane register: lanes with bit b set
 * minus the lane with it clear (a permute brings that lane over, a mask keeps the
 * upper lanes). */
static void mobius_low3(ez_fe *a, size_t n)
{
    const __m512i p1 = _mm512_setr_epi64(0, 0, 2, 2, 4, 4, 6, 6);
    const __m512i p2 = _mm512_setr_epi64(0, 1, 0, 1, 4, 5, 4, 5);
    const __m512i p4 = _mm512_setr_epi64(0, 1, 2, 3, 0, 1, 2, 3);
    for (size_t i = 0; i + 8 <= n; i += 8) {
        __m512i x = v_load(a + i);
        x = _mm512_mask_mov_epi64(x, 0xAA, v_sub(x, _mm512_permutexvar_epi64(p1, x)));
        x = _mm512_mask_mov_epi64(x, 0xCC, v_sub(x, _mm512_permutexvar_epi64(p2, x)));
        x = _mm512_mask_mov_epi64(x, 0xF0, v_sub(x, _mm512_permutexvar_epi64(p4, x)));
        v_store(a + i, x);
    }
}
#elif EZ_FE_VEC
/* The same with AVX2: per bit, v -= u on v_small3's pairs. */
static void mobius_low3(ez_fe *a, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        ez_v8 x = v_load(a + i);
        for (int s = 2; s >= 0; s--) {
            __m256i u, v;
            v4_split(x.h[0], x.h[1], s, &u, &v);
            v4_merge(u, v4_sub(v, u), s, &x);
        }
        v_store(a + i, x);
    }
}
#endif

/* Bits lo .. hi-1 of one block of bsz entries. */
static void mobius_block(ez_fe *a, size_t bsz, unsigned lo, unsigned hi)
{
    unsigned b = lo;
#if EZ_FE_VEC
    if (lo == 0 && hi >= 3 && bsz >= 8) {
        mobius_low3(a, bsz);
        b = 3;
    }
#endif
    for (; b < hi; b++)
        mobius_pairs(a, (size_t)1 << b, 0, bsz / 2);
}

void ez_ntt_mobius(ez_fe *a, unsigned lo, unsigned nbits)
{
    unsigned hi = lo + nbits;
    size_t total = (size_t)1 << hi, npairs = total / 2;
    int par = use_threads(total);
    /* bits below the cache block: all of them block by block (one pass over memory) */
    unsigned lb = hi < EZ_NTT_LOG_BLOCK ? hi : EZ_NTT_LOG_BLOCK;
    if (lo < lb) {
        size_t bsz = (size_t)1 << lb, nb = total >> lb;
#pragma omp parallel for schedule(static) if (par)
        for (size_t blk = 0; blk < nb; blk++)
            mobius_block(a + blk * bsz, bsz, lo, lb);
    }
    /* the rest: whole-array passes, split into chunks of pairs */
    const size_t chunk = 4096;
    size_t nchunks = (npairs + chunk - 1) / chunk;
    for (unsigned b = lo > lb ? lo : lb; b < hi; b++) {
        size_t h = (size_t)1 << b;
#pragma omp parallel for schedule(static) if (par)
        for (size_t c = 0; c < nchunks; c++) {
            size_t q0 = c * chunk, q1 = q0 + chunk < npairs ? q0 + chunk : npairs;
            mobius_pairs(a, h, q0, q1);
        }
    }
}

/* ---- eight small encodings at once (lib/whir.c's queried leaves) ------------------ */

void ez_ntt_small_twiddles(ez_fe *tw, unsigned logM)
{
    size_t half = ((size_t)1 << logM) / 2;
    ez_fe w = ez_fe_root_of_unity(logM), x = 1;
    for (size_t k = 0; k < half; k++, x = ez_fe_mul(x, w))
        tw[k] = x;
    /* tw[half + k]: e if tw[k] = 2^e, 64 + e if tw[k] = -2^e (e < 64), else 255 */
    for (size_t k = 0; k < half; k++) {
        tw[half + k] = 255;
        ez_fe t = 1;
        for (unsigned e = 0; e < 64; e++, t = ez_fe_add(t, t)) {
            if (tw[k] == t)
                tw[half + k] = e;
            else if (tw[k] == ez_fe_neg(t))
                tw[half + k] = 64 + e;
        }
    }
}

/* One DIT butterfly of ez_ntt_rs_small8 on the 8 lanes at out[8 i], out[8 (i + h)], twiddle
 * w_{2h}^k = tw[k step]. Always inlined: a call per 8 lanes cost a fifth of the slices'
 * encoding, and inlined the full stages' loops read each twiddle's code once per k. */
static inline __attribute__((always_inline)) void small_butterfly(ez_fe *out, size_t i, size_t h, size_t k,
                                                                   size_t step, size_t M, const ez_fe *tw)
{
    ez_fe *u = out + 8 * i, *v = out + 8 * (i + h);
#if EZ_FE_VEC
    /* k = 0: w = 1, no product; w = +-2^e (2h <= 64 and some others): a shift, and
     * -2^e swaps the butterfly's sum and difference instead of negating */
    unsigned code = k == 0 ? 0 : (unsigned)tw[M / 2 + k * step], e = code & 63;
    int neg = code >= 64 && code < 128;
    ez_v8 t = v_load(v), a = v_load(u);
    if (code >= 128)
        t = v_mul(t, v_set1(tw[k * step]));
    else if (e != 0)
        t = e <= 32 ? v_mul_pow2_small(t, e) : v_mul_pow2(t, e, 0);
    v_store(u, neg ? v_sub(a, t) : v_add(a, t));
    v_store(v, neg ? v_add(a, t) : v_sub(a, t));
#else
    (void)M;
    for (size_t l = 0; l < 8; l++) {
        ez_fe t = ez_fe_mul(v[l], tw[k * step]), a = u[l];
        u[l] = ez_fe_add(a, t);
        v[l] = ez_fe_sub(a, t);
    }
#endif
}

size_t ez_ntt_small_plan(uint16_t *plan, const uint8_t *need, unsigned logM)
{
    size_t M = (size_t)1 << logM, n = 0, h = M / 2;
    /* the last stage's butterfly k (points k, k + M/2); then the second last's, at
     * positions i, i + M/4 for i mod M/2 < M/4: needed if one of its outputs feeds a
     * needed last-stage butterfly */
    size_t c1 = n++;
    for (size_t k = 0; k < h; k++)
        if (need[k] || need[k + h])
            plan[n++] = (uint16_t)k;
    plan[c1] = (uint16_t)(n - c1 - 1);
    size_t c2 = n++;
    for (size_t i = 0; i < M && M >= 4; i++) {
        size_t k = i % h;
        if (k < h / 2 && (need[k] || need[k + h] || need[k + h / 2] || need[k + h / 2 + h]))
            plan[n++] = (uint16_t)i;
    }
    plan[c2] = (uint16_t)(n - c2 - 1);
    return n;
}

void ez_ntt_rs_small8(ez_fe *out, ez_fe *x, unsigned lb, unsigned c, const ez_fe *tw, const uint16_t *plan)
{
    size_t n = (size_t)1 << lb, B = (size_t)1 << c, M = n << c;
    /* Möbius over the lb bits, lane-wise */
    for (size_t h = 1; h < n; h <<= 1)
        for (size_t b = 0; b < n; b++)
            if (!(b & h)) {
#if EZ_FE_VEC
                v_store(x + 8 * (b + h), v_sub(v_load(x + 8 * (b + h)), v_load(x + 8 * b)));
#else
                for (size_t l = 0; l < 8; l++)
                    x[8 * (b + h) + l] = ez_fe_sub(x[8 * (b + h) + l], x[8 * b + l]);
#endif
            }
    /* radix-2 DIT on the zero-padded coefficients: after the bit-reversal the first c
     * stages only copy coefficient brev(g) into its group g of B entries */
    for (size_t g = 0; g < n; g++) {
        size_t i = 0;
        for (unsigned bit = 0; bit < lb; bit++)
            i |= ((g >> bit) & 1) << (lb - 1 - bit);
        for (size_t r = 0; r < B; r++)
            memcpy(out + 8 * (g * B + r), x + 8 * i, 8 * sizeof *x);
    }
    /* with a plan, the last two stages (if they come after the copies) only compute the
     * butterflies whose outputs lead to a needed point */
    int use = plan != NULL && lb >= 1; /* lb = 0: no stages at all */
    size_t pruned = !use ? M : M / 4 >= B ? M / 4 : M / 2;
    for (size_t h = B; h < pruned; h <<= 1) {
        size_t step = M / (2 * h); /* w_{2h}^k = w_M^(k step) */
        for (size_t k = 0; k < h; k++)
            for (size_t j = 0; j < M; j += 2 * h)
                small_butterfly(out, j + k, h, k, step, M, tw);
    }
    if (!use)
        return;
    const uint16_t *last = plan + 1, *second = last + plan[0] + 1;
    if (pruned == M / 4)
        for (size_t q = 0; q < second[-1]; q++)
            small_butterfly(out, second[q], M / 4, second[q] % (M / 2), 2, M, tw);
    for (size_t q = 0; q < plan[0]; q++)
        small_butterfly(out, last[q], M / 2, last[q], 1, M, tw);
}

void ez_ntt_mac8(ez_fe *acc, size_t stride, const ez_fe *v, const size_t *pos, const ez_fe *e, size_t np)
{
    size_t j = 0;
#if EZ_FE_VEC
    for (; j < np; j++) {
        ez_fe *a = acc + j * stride;
        ez_v8 t = v_mul(v_load(v + 8 * pos[j]), v_set1(e[j]));
        v_store(a, v_add(v_load(a), t));
    }
#endif
    for (; j < np; j++)
        for (size_t l = 0; l < 8; l++)
            acc[j * stride + l] = ez_fe_add(acc[j * stride + l], ez_fe_mul(e[j], v[8 * pos[j] + l]));
}

/* ---- interleaved encodings (lanes) ------------------------------------------------ */

/* Entries of a cache block: 512 KiB (a block's stages run in L2), up to 2 MiB when a
 * column would otherwise hold more than 2^6 vectors (its strided vectors are each on
 * their own page: at 2^26 entries, 2 MiB blocks made the commitment ~20 % faster); and
 * of a group of vectors whose stages run together (16 KiB: in L1). */
#define EZ_NTT_LANES_BLOCK_LOG 16u
#define EZ_NTT_LANES_BLOCK_MAX_LOG 18u
#define EZ_NTT_LANES_COLUMN_LOG 6u
#define EZ_NTT_LANES_GROUP_LOG 11u

unsigned ez_ntt_lanes_block_log(unsigned logn, unsigned lw)
{
    unsigned lo = lw < EZ_NTT_LANES_BLOCK_LOG ? EZ_NTT_LANES_BLOCK_LOG - lw : 0;
    unsigned hi = lw < EZ_NTT_LANES_BLOCK_MAX_LOG ? EZ_NTT_LANES_BLOCK_MAX_LOG - lw : 0;
    unsigned want = logn > EZ_NTT_LANES_COLUMN_LOG ? logn - EZ_NTT_LANES_COLUMN_LOG : 0;
    unsigned b = want < lo ? lo : want < hi ? want : hi;
    return b < logn ? b : logn;
}

/* Stages per group: at least one, so wide vectors still make progress. */
static unsigned lanes_group_log(unsigned lw)
{
    return lw + 1 < EZ_NTT_LANES_GROUP_LOG ? EZ_NTT_LANES_GROUP_LOG - lw : 1;
}

/* y -= x on W lanes. */
static inline void lanes_sub(ez_fe *y, const ez_fe *x, size_t W)
{
    size_t r = 0;
#if EZ_FE_VEC
    for (; r + 8 <= W; r += 8)
        v_store(y + r, v_sub(v_load(y + r), v_load(x + r)));
#endif
    for (; r < W; r++)
        y[r] = ez_fe_sub(y[r], x[r]);
}

/* dst = c src on W lanes (c = 1: a copy; dst may equal src). */
static inline void lanes_scale(ez_fe *dst, const ez_fe *src, size_t W, ez_fe c)
{
    if (c == 1) {
        if (dst != src)
            memcpy(dst, src, W * sizeof *dst);
        return;
    }
    size_t r = 0;
#if EZ_FE_VEC
    ez_v8 cv = v_set1(c);
    for (; r + 8 <= W; r += 8)
        v_store(dst + r, v_mul(v_load(src + r), cv));
#endif
    for (; r < W; r++)
        dst[r] = ez_fe_mul(src[r], c);
}

/* The DIF butterfly (x, y) -> (x + y, (x - y) w) on W lanes; e: w = 2^e if e < 64
 * (e = 0: no product, else a shift), 255 for a general w. */
static inline void lanes_dif(ez_fe *x, ez_fe *y, size_t W, ez_fe w, unsigned e)
{
    size_t r = 0;
#if EZ_FE_VEC
    ez_v8 wv = v_set1(w);
    for (; r + 8 <= W; r += 8) {
        ez_v8 a = v_load(x + r), b = v_load(y + r), d = v_sub(a, b);
        v_store(x + r, v_add(a, b));
        v_store(y + r, e == 0 ? d : e <= 32 ? v_mul_pow2_small(d, e) : e < 64 ? v_mul_pow2(d, e, 0) : v_mul(d, wv));
    }
#else
    (void)e;
#endif
    for (; r < W; r++) {
        ez_fe a = x[r], b = y[r];
        x[r] = ez_fe_add(a, b);
        y[r] = ez_fe_mul(ez_fe_sub(a, b), w);
    }
}

/* Möbius bits t0 .. t1-1 of the vector index on the group base + i 2^t0, i < 2^(t1-t0)
 * (base has those bits clear). */
static void lanes_mobius_group(ez_fe *a, size_t W, size_t base, unsigned t0, unsigned t1)
{
    size_t G = (size_t)1 << (t1 - t0);
    for (size_t hs = 1; hs < G; hs <<= 1)
        for (size_t i0 = 0; i0 < G; i0 += 2 * hs)
            for (size_t i = i0; i < i0 + hs; i++) {
                size_t u = base + (i << t0), v = u + (hs << t0);
                lanes_sub(a + v * W, a + u * W, W);
            }
}

/* The code lanes_dif takes for twiddle tw[x] (pow2 as struct ez_ntt_rs's). */
static inline unsigned tw_code(const ez_fe *tw, const unsigned char *pow2, size_t x)
{
    return x < 64 ? pow2[x] : tw[x] == 1 ? 0 : 255;
}

#if EZ_FE_VEC
/* d w, w = 2^e for a code e < 64 (as lanes_dif's). */
EZ_V8_FN ez_v8 v_mul_code(ez_v8 d, ez_v8 w, unsigned e)
{
    return e == 0 ? d : e <= 32 ? v_mul_pow2_small(d, e) : e < 64 ? v_mul_pow2(d, e, 0) : v_mul(d, w);
}
#endif

/* Two DIF stages (half-widths 2q and q) on the four vectors x0..x3 at u, u + q, u + 2q,
 * u + 3q, u mod 2q = j < q: with w = w_{4q}^j and i = w_{4q}^q (a 4th root of unity),
 * a = x0 + x2, b = x0 - x2, c = x1 + x3, d = (x1 - x3) i give (a + c, (a - c) w^2,
 * (b + d) w, (b - d) w^3) — the radix-2 stages' values with three products instead of
 * four. ti: codes and twiddles {i, w, w^2, w^3}; neg3: w^3 is -t[3]. */
static inline void lanes_dif4(ez_fe *x0, ez_fe *x1, ez_fe *x2, ez_fe *x3, size_t W, const ez_fe t[4],
                              const unsigned e[4], int neg3)
{
    size_t r = 0;
#if EZ_FE_VEC
    ez_v8 w0 = v_set1(t[0]), w1 = v_set1(t[1]);
    ez_v8 w2 = v_set1(t[2]), w3 = v_set1(t[3]);
    for (; r + 8 <= W; r += 8) {
        ez_v8 y0 = v_load(x0 + r), y1 = v_load(x1 + r), y2 = v_load(x2 + r), y3 = v_load(x3 + r);
        ez_v8 a = v_add(y0, y2), b = v_sub(y0, y2), c = v_add(y1, y3), d = v_mul_code(v_sub(y1, y3), w0, e[0]);
        v_store(x0 + r, v_add(a, c));
        v_store(x1 + r, v_mul_code(v_sub(a, c), w2, e[2]));
        v_store(x2 + r, v_mul_code(v_add(b, d), w1, e[1]));
        v_store(x3 + r, v_mul_code(neg3 ? v_sub(d, b) : v_sub(b, d), w3, e[3]));
    }
#else
    (void)e;
#endif
    for (; r < W; r++) {
        ez_fe a = ez_fe_add(x0[r], x2[r]), b = ez_fe_sub(x0[r], x2[r]), c = ez_fe_add(x1[r], x3[r]);
        ez_fe d = ez_fe_mul(ez_fe_sub(x1[r], x3[r]), t[0]);
        x0[r] = ez_fe_add(a, c);
        x1[r] = ez_fe_mul(ez_fe_sub(a, c), t[2]);
        x2[r] = ez_fe_mul(ez_fe_add(b, d), t[1]);
        x3[r] = ez_fe_mul(neg3 ? ez_fe_sub(d, b) : ez_fe_sub(b, d), t[3]);
    }
}

/* DIF stages h = 2^(t1-1) .. 2^t0 on the group base + i 2^t0 (as lanes_mobius_group),
 * two at a time where it can; tw as struct ez_ntt's (tw[h + j] = w_{2h}^j), pow2 as
 * struct ez_ntt_rs's. */
static void lanes_dif_group(ez_fe *a, size_t W, const ez_fe *tw, const unsigned char *pow2, size_t base,
                            unsigned t0, unsigned t1)
{
    size_t G = (size_t)1 << (t1 - t0);
    size_t hs = G / 2;
    for (; hs >= 2; hs >>= 2) { /* stages 2q and q, 2q = hs 2^t0 */
        size_t h = hs << t0, q = h / 2;
        ez_fe t[4];
        unsigned e[4];
        t[0] = tw[3]; /* w_4 */
        e[0] = tw_code(tw, pow2, 3);
        for (size_t i0 = 0; i0 < G; i0 += 2 * hs)
            for (size_t i = i0; i < i0 + hs / 2; i++) {
                size_t u = base + (i << t0), j = u & (h - 1); /* j < q */
                size_t x3 = 3 * j < h ? h + 3 * j : 3 * j; /* w^3j = -w_{2h}^(3j - h) past h */
                t[1] = tw[h + j];
                t[2] = tw[q + j];
                t[3] = tw[x3];
                e[1] = tw_code(tw, pow2, h + j);
                e[2] = tw_code(tw, pow2, q + j);
                e[3] = tw_code(tw, pow2, x3);
                lanes_dif4(a + u * W, a + (u + q) * W, a + (u + h) * W, a + (u + h + q) * W, W, t, e, 3 * j >= h);
            }
    }
    if (hs == 1) { /* an odd stage count: the last (h = 2^t0) alone */
        size_t h = (size_t)1 << t0;
        for (size_t i = 0; i < G; i += 2) {
            size_t u = base + (i << t0), x = h + (u & (h - 1));
            lanes_dif(a + u * W, a + (u + h) * W, W, tw[x], tw_code(tw, pow2, x));
        }
    }
}

/* Bits (or DIF stages) hi-1 .. lo of the vectors base0 + i 2^lo, i < 2^(hi - lo) (base0
 * has those bits clear), in passes of at most lanes_group_log bits from the top, each
 * pass group by group (a group's vectors stay in L1 across its stages); rs NULL: Möbius. */
static void lanes_bits(ez_fe *a, unsigned lw, const ez_ntt_rs *rs, size_t base0, unsigned lo, unsigned hi)
{
    size_t W = (size_t)1 << lw;
    unsigned g = lanes_group_log(lw);
    for (unsigned t1 = hi; t1 > lo;) {
        unsigned t0 = t1 > lo + g ? t1 - g : lo;
        for (size_t outer = 0; outer < ((size_t)1 << (hi - t1)); outer++)
            for (size_t inner = 0; inner < ((size_t)1 << (t0 - lo)); inner++) {
                size_t base = base0 + (outer << t1) + (inner << lo);
                if (rs)
                    lanes_dif_group(a, W, rs->c.ntt->tw, rs->pow2, base, t0, t1);
                else
                    lanes_mobius_group(a, W, base, t0, t1);
            }
        t1 = t0;
    }
}

void ez_ntt_lanes_mobius_block(ez_fe *dst, const ez_fe *src, unsigned lw, unsigned B, size_t b)
{
    size_t len = (size_t)1 << (B + lw);
    if (dst != src)
        memcpy(dst + b * len, src + b * len, len * sizeof *dst);
    lanes_bits(dst, lw, NULL, b << B, 0, B);
}

void ez_ntt_lanes_mobius_column(ez_fe *a, unsigned lw, unsigned logn, unsigned B, size_t q)
{
    lanes_bits(a, lw, NULL, q, B, logn);
}

void ez_ntt_rs_lanes_column(const ez_ntt_rs *p, ez_fe *out, const ez_fe *a, unsigned k, unsigned lw, unsigned B,
                            size_t q)
{
    unsigned logn = p->c.logn;
    size_t W = (size_t)1 << lw, G = (size_t)1 << (logn - B);
    EZ_VERIFY_CHECK(k < (1u << p->c.logb) && B <= logn);
    /* coefficients of P(w^k X): a_u w^(k u), the same factor on every lane */
    const ez_fe *sc = k > 0 ? p->c.scale + (size_t)(k - 1) * ((size_t)1 << logn) : NULL;
    for (size_t i = 0; i < G; i++) {
        size_t u = q + (i << B);
        lanes_scale(out + u * W, a + u * W, W, sc ? sc[u] : 1);
    }
    lanes_bits(out, lw, p, q, B, logn);
}

void ez_ntt_rs_lanes_block(const ez_ntt_rs *p, ez_fe *out, unsigned lw, unsigned B, size_t b)
{
    lanes_bits(out, lw, p, b << B, 0, B);
}
