/* exec_gemm — see exec_gemm.h. The f64/i64 micro-kernels, the packers and the driver
 * are written once as macros over the element types and use GCC vector extensions, so
 * the same source compiles to AVX-512 (8 x 24 tile, 24 zmm accumulators) or AVX2
 * (4 x 12) code; the int16 kernel (8 x 48, 24 zmm accumulators) needs AVX-512 VNNI. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "runtime/exec/exec_gemm.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if EZ_GEMM_HAVE_I16
#include <immintrin.h>
#endif

#define NV (EZ_GEMM_NR / EZ_GEMM_VLEN)

typedef double ez_vd __attribute__((vector_size(EZ_GEMM_VLEN * 8)));
typedef int64_t ez_vi __attribute__((vector_size(EZ_GEMM_VLEN * 8)));
#if EZ_GEMM_VLEN == 8
#define EZ_SPLAT(x) {x, x, x, x, x, x, x, x}
#else
#define EZ_SPLAT(x) {x, x, x, x}
#endif

static inline uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static int max_threads(void)
{
#ifdef _OPENMP
    int t = omp_get_max_threads();
    return t > 0 ? t : 1;
#else
    return 1;
#endif
}

static int thread_num(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* ---- micro-kernels ------------------------------------------------------------------ */

/* c (MR x NR, row stride ldc) [+]= sum over kc of a[k*MR + i] * b[k*NR + j].
 * a and b are 64-byte aligned packed panels; c is 8-byte aligned. */
#define EZ_GEMM_KERNEL(NAME, T, VT)                                                           \
    static void NAME(size_t kc, const T *restrict a, const T *restrict b, T *restrict c,    \
                     size_t ldc, bool accumulate, size_t chunk, unsigned shift)             \
    {                                                                                       \
        (void)chunk, (void)shift;                                                           \
        VT acc[EZ_GEMM_MR][NV];                                                             \
        _Pragma("GCC unroll 8") for (int i = 0; i < EZ_GEMM_MR; i++)                        \
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++)                            \
        {                                                                                   \
            if (accumulate)                                                                 \
                memcpy(&acc[i][j], c + i * ldc + j * EZ_GEMM_VLEN, sizeof(VT));             \
            else                                                                            \
                acc[i][j] = (VT){0};                                                        \
        }                                                                                   \
        for (size_t k = 0; k < kc; k++) {                                                   \
            VT bv[NV];                                                                      \
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++)                            \
                bv[j] = *(const VT *)(b + k * EZ_GEMM_NR + j * EZ_GEMM_VLEN);               \
            _Pragma("GCC unroll 8") for (int i = 0; i < EZ_GEMM_MR; i++)                    \
            {                                                                               \
                const T as = a[k * EZ_GEMM_MR + i];                                         \
                VT av = (VT)EZ_SPLAT(as);                                                   \
                _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) acc[i][j] += av * bv[j]; \
            }                                                                               \
        }                                                                                   \
        _Pragma("GCC unroll 8") for (int i = 0; i < EZ_GEMM_MR; i++)                        \
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++)                            \
                memcpy(c + i * ldc + j * EZ_GEMM_VLEN, &acc[i][j], sizeof(VT));             \
    }

EZ_GEMM_KERNEL(kernel_f64, double, ez_vd)
EZ_GEMM_KERNEL(kernel_i64, int64_t, ez_vi)

#if EZ_GEMM_HAVE_I16
_Static_assert(EZ_GEMM_NCB % EZ_GEMM_NR16 == 0 && EZ_GEMM_MCH % EZ_GEMM_MR16 == 0,
               "int16 tiles must divide the job blocks");
#define NV16 (EZ_GEMM_NR16 / 16)

/* acc += pairwise products of av and bv (vpdpwssd). Inline assembly: with the
 * intrinsic, GCC 12 copies every accumulator through another register or the stack
 * (the kernel ran at half speed). */
#define EZ_DPWSSD(acc, av, bv) __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(av), "v"(bv))

/* One run of pairs [t0, t1): a separate function so the 24 accumulators live in
 * registers (inlined into the chunk loop, GCC spilled them to the stack). */
static __attribute__((noinline)) void kernel_i16_run(size_t t0, size_t t1,
                                                      const int32_t *restrict a,
                                                      const int16_t *restrict b16,
                                                      int64_t *restrict c, size_t ldc, bool add,
                                                      unsigned shift)
{
    const __m128i sh = _mm_cvtsi32_si128((int)shift);
    __m512i acc[EZ_GEMM_MR16][NV16];
#pragma GCC unroll 8
    for (int i = 0; i < EZ_GEMM_MR16; i++)
#pragma GCC unroll 4
        for (int j = 0; j < NV16; j++)
            acc[i][j] = _mm512_setzero_si512();
    for (size_t t = t0; t < t1; t++) {
        __m512i bv[NV16];
#pragma GCC unroll 4
        for (int j = 0; j < NV16; j++)
            bv[j] = _mm512_load_si512((const void *)(b16 + (t * EZ_GEMM_NR16 + j * 16) * 2));
#pragma GCC unroll 8
        for (int i = 0; i < EZ_GEMM_MR16; i++) {
            const __m512i av = _mm512_set1_epi32(a[t * EZ_GEMM_MR16 + i]);
#pragma GCC unroll 4
            for (int j = 0; j < NV16; j++)
                EZ_DPWSSD(acc[i][j], av, bv[j]);
        }
    }
    /* widen: lanes 0-7 are columns j*16 + 0..7, lanes 8-15 the next eight */
#pragma GCC unroll 8
    for (int i = 0; i < EZ_GEMM_MR16; i++)
#pragma GCC unroll 4
        for (int j = 0; j < NV16; j++) {
            int64_t *cp = c + i * ldc + j * 16;
            __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(acc[i][j]));
            __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(acc[i][j], 1));
            lo = _mm512_sll_epi64(lo, sh); /* the high limb's weight 2^split (else 0) */
            hi = _mm512_sll_epi64(hi, sh);
            if (add) {
                lo = _mm512_add_epi64(lo, _mm512_loadu_si512((const void *)cp));
                hi = _mm512_add_epi64(hi, _mm512_loadu_si512((const void *)(cp + 8)));
            }
            _mm512_storeu_si512((void *)cp, lo);
            _mm512_storeu_si512((void *)(cp + 8), hi);
        }
}

/* c (MR16 x NR16 int64, row stride ldc) [+]= 2^shift * sum over kc k of a * b, k in pairs:
 * a[t*MR16 + i] holds rows i's values at k = 2t, 2t+1 as two int16 (one int32);
 * b[(t*NR16 + j)*2 + h] column j's value at k = 2t + h. One vpdpwssd per 16 columns
 * and row adds both products of a pair into an int32 lane; every `chunk` pairs the
 * lanes are widened into the int64 tile, so no run exceeds what int32 holds exactly. */
static void kernel_i16(size_t kc, const int16_t *restrict a16, const int16_t *restrict b16,
                       int64_t *restrict c, size_t ldc, bool accumulate, size_t chunk,
                       unsigned shift)
{
    const int32_t *a = (const int32_t *)(const void *)a16;
    const size_t kp = (kc + 1) / 2;
    for (size_t t0 = 0; t0 < kp; t0 += chunk) {
        const size_t t1 = kp - t0 < chunk ? kp : t0 + chunk;
        kernel_i16_run(t0, t1, a, b16, c, ldc, accumulate || t0 > 0, shift);
    }
}
#endif

/* ---- packers ------------------------------------------------------------------------ */

/* What the packers need to know about an operand, computed once per call. */
typedef struct {
    uint64_t rows, k; /* extents of one batch entry */
    bool plain;       /* nothing summed: ns == 1, os[0] == 0 */
    bool unit_rows;   /* orow[r] == orow[0] + r: a row block is one contiguous run */
    bool unit_k;      /* ok[kk] == ok[0] + kk: a row's k values are one contiguous run */
    unsigned lshift;  /* int16 packer: the limb (v >> lshift) & lmask of each value */
    int64_t lmask;
} pack_shape;

static void pack_shape_init(pack_shape *s, const ez_gemm_operand *o, uint64_t rows, uint64_t k)
{
    s->rows = rows;
    s->k = k;
    s->plain = o->ns == 1 && o->os[0] == 0;
    s->unit_rows = rows > 1;
    for (uint64_t r = 1; s->unit_rows && r < rows; r++)
        s->unit_rows = o->orow[r] == o->orow[0] + (int64_t)r;
    s->unit_k = true;
    for (uint64_t kk = 1; s->unit_k && kk < k; kk++)
        s->unit_k = o->ok[kk] == o->ok[0] + (int64_t)kk;
    s->lshift = 0;
    s->lmask = -1;
}

/* How many rows ahead the row-block packer prefetches (each row of a weight block is
 * NCB * 8 = 768 bytes, 12 cache lines, a page or more from the previous one, so the
 * hardware prefetcher does not follow: without this every line is a demand miss). */
#define EZ_PACK_PF_ROWS 8
/* k values a row-wise packer writes before moving to the next row (W x 64 x 8 bytes of
 * the panel stay in L1 while the W source rows are read sequentially). */
#define EZ_PACK_KB 64

/* Pack npan panels of W rows (rows r0 ..; rows >= sh->rows are zero) x k in
 * [k0, k0 + kc) of batch b: panel p at dst + p*kc*W, element (kk, r) at [kk*W + r].
 * Three loop orders, chosen so the source is read sequentially:
 *  - rows contiguous (a weight [d][n] as B: k outer, the block's rows one run each);
 *  - k contiguous (an activation [s][d]: W rows at a time, EZ_PACK_KB values each);
 *  - otherwise, or with summed indices: element by element through the tables. */
#define EZ_PACK_PANELS(NAME, DT, ST, W)                                                       \
    static void NAME(DT *restrict dst, const ez_gemm_operand *o, const pack_shape *sh,      \
                     uint64_t b, uint64_t r0, uint64_t npan, uint64_t k0, size_t kc)        \
    {                                                                                       \
        const ST *src = (const ST *)o->src + o->ob[b];                                      \
        const uint64_t nrows = sh->rows;                                                    \
        const size_t pstride = kc * (W);                                                    \
        const uint64_t nvalid = min_u64(nrows - r0, npan * (W));                            \
        if (sh->plain && sh->unit_rows) {                                                   \
            const ST *rowbase = src + o->orow[0] + r0;                                      \
            for (size_t kk = 0; kk < kc; kk++) {                                            \
                const ST *run = rowbase + o->ok[k0 + kk];                                   \
                if (k0 + kk + EZ_PACK_PF_ROWS < sh->k) {                                    \
                    uintptr_t pf = (uintptr_t)(rowbase + o->ok[k0 + kk + EZ_PACK_PF_ROWS]); \
                    uintptr_t end = pf + nvalid * sizeof(ST);                               \
                    for (pf &= ~(uintptr_t)63; pf < end; pf += 64)                          \
                        __builtin_prefetch((const void *)pf);                               \
                }                                                                           \
                for (uint64_t p = 0; p < npan; p++) {                                       \
                    DT *restrict d = dst + p * pstride + kk * (W);                          \
                    const ST *s = run + p * (W);                                            \
                    if ((p + 1) * (W) <= nvalid) {                                          \
                        _Pragma("GCC unroll 4") for (unsigned r = 0; r < (W); r++)          \
                            d[r] = (DT)s[r];                                                \
                    } else {                                                                \
                        for (unsigned r = 0; r < (W); r++)                                  \
                            d[r] = p * (W) + r < nvalid ? (DT)s[r] : (DT)0;                 \
                    }                                                                       \
                }                                                                           \
            }                                                                               \
            return;                                                                         \
        }                                                                                   \
        if (sh->plain && sh->unit_k) {                                                      \
            for (uint64_t p = 0; p < npan; p++)                                             \
                for (size_t kb = 0; kb < kc; kb += EZ_PACK_KB) {                            \
                    const size_t ke = kc - kb < EZ_PACK_KB ? kc : kb + EZ_PACK_KB;          \
                    for (unsigned r = 0; r < (W); r++) {                                    \
                        const uint64_t row = p * (W) + r;                                   \
                        DT *restrict d = dst + p * pstride + r;                             \
                        if (row >= nvalid) {                                                \
                            for (size_t kk = kb; kk < ke; kk++)                             \
                                d[kk * (W)] = 0;                                            \
                            continue;                                                       \
                        }                                                                   \
                        const ST *s = src + o->orow[r0 + row] + o->ok[k0];                  \
                        for (size_t kk = kb; kk < ke; kk++)                                 \
                            d[kk * (W)] = (DT)s[kk];                                        \
                    }                                                                       \
                }                                                                           \
            return;                                                                         \
        }                                                                                   \
        for (uint64_t p = 0; p < npan; p++)                                                 \
            for (size_t kk = 0; kk < kc; kk++) {                                            \
                DT *restrict d = dst + p * pstride + kk * (W);                              \
                for (unsigned r = 0; r < (W); r++) {                                        \
                    const uint64_t row = p * (W) + r;                                       \
                    if (row >= nvalid) {                                                    \
                        d[r] = 0;                                                           \
                        continue;                                                           \
                    }                                                                       \
                    const ST *s = src + o->orow[r0 + row] + o->ok[k0 + kk];                 \
                    ST acc = 0;                                                             \
                    for (uint64_t q = 0; q < o->ns; q++)                                    \
                        acc += s[o->os[q]];                                                 \
                    d[r] = (DT)acc;                                                         \
                }                                                                           \
            }                                                                               \
    }

EZ_PACK_PANELS(pack_f64_i64_mr, double, int64_t, EZ_GEMM_MR)
EZ_PACK_PANELS(pack_f64_i64_nr, double, int64_t, EZ_GEMM_NR)
EZ_PACK_PANELS(pack_f64_f64_mr, double, double, EZ_GEMM_MR)
EZ_PACK_PANELS(pack_f64_f64_nr, double, double, EZ_GEMM_NR)
EZ_PACK_PANELS(pack_i64_i64_mr, int64_t, int64_t, EZ_GEMM_MR)
EZ_PACK_PANELS(pack_i64_i64_nr, int64_t, int64_t, EZ_GEMM_NR)

/* The int16 packer: as EZ_PACK_PANELS with W = MR16 or NR16, but k in pairs, element
 * (kk, r) at [(kk/2)*2W + 2r + kk%2] and panels ceil(kc/2)*2W apart (an odd kc gets a
 * zero partner), and each value v replaced by its limb (v >> lshift) & lmask (the
 * whole value, the low limb v mod 2^split or the high limb floor(v / 2^split)).
 * Exact: the caller bounded every limb by EZ_GEMM_I16_MAX. */
#define EZ_LIMB(v) ((int16_t)(((v) >> lsh) & lmk))
/* the limbs of row[2t] (low half) and row[2t + 1] (high half) as one int32 pair */
#define EZ_PAIR(row, t)                                                                       \
    ((uint32_t)(uint16_t)EZ_LIMB((row)[2 * (t)]) |                                          \
     (uint32_t)(uint16_t)EZ_LIMB((row)[2 * (t) + 1]) << 16)
#define EZ_PACK_PANELS16(NAME, W)                                                             \
    static void NAME(int16_t *restrict dst, const ez_gemm_operand *o, const pack_shape *sh, \
                     uint64_t b, uint64_t r0, uint64_t npan, uint64_t k0, size_t kc)        \
    {                                                                                       \
        const int64_t *src = (const int64_t *)o->src + o->ob[b];                            \
        const unsigned lsh = sh->lshift;                                                    \
        const int64_t lmk = sh->lmask;                                                      \
        const size_t kp = (kc + 1) / 2;                                                     \
        const size_t pstride = kp * 2 * (W);                                                \
        const uint64_t nvalid = min_u64(sh->rows - r0, npan * (W));                         \
        if (sh->plain && sh->unit_rows) {                                                   \
            const int64_t *rowbase = src + o->orow[0] + r0;                                 \
            for (size_t t = 0; t < kp; t++) {                                               \
                const int64_t *s0 = rowbase + o->ok[k0 + 2 * t];                            \
                const bool two = 2 * t + 1 < kc;                                            \
                const int64_t *s1 = two ? rowbase + o->ok[k0 + 2 * t + 1] : s0;             \
                for (unsigned h = 0; h < 2; h++)                                            \
                    if (k0 + 2 * t + h + EZ_PACK_PF_ROWS < sh->k) {                         \
                        uintptr_t pf =                                                      \
                            (uintptr_t)(rowbase + o->ok[k0 + 2 * t + h + EZ_PACK_PF_ROWS]); \
                        uintptr_t end = pf + nvalid * sizeof(int64_t);                      \
                        for (pf &= ~(uintptr_t)63; pf < end; pf += 64)                      \
                            __builtin_prefetch((const void *)pf);                           \
                    }                                                                       \
                for (uint64_t p = 0; p < npan; p++) {                                       \
                    int16_t *restrict d = dst + p * pstride + t * 2 * (W);                  \
                    const int64_t *a0 = s0 + p * (W), *a1 = s1 + p * (W);                   \
                    if ((p + 1) * (W) <= nvalid && two) {                                   \
                        for (unsigned r = 0; r < (W); r++) {                                \
                            d[2 * r] = EZ_LIMB(a0[r]);                                      \
                            d[2 * r + 1] = EZ_LIMB(a1[r]);                                  \
                        }                                                                   \
                    } else {                                                                \
                        for (unsigned r = 0; r < (W); r++) {                                \
                            bool ok = p * (W) + r < nvalid;                                 \
                            d[2 * r] = ok ? EZ_LIMB(a0[r]) : 0;                             \
                            d[2 * r + 1] = ok && two ? EZ_LIMB(a1[r]) : 0;                  \
                        }                                                                   \
                    }                                                                       \
                }                                                                           \
            }                                                                               \
            return;                                                                         \
        }                                                                                   \
        if (sh->plain && sh->unit_k && (kc & 1) == 0) {                                     \
            /* rows with contiguous k: W rows at a time, one int32 pair per row and t */     \
            for (uint64_t p = 0; p < npan; p++) {                                           \
                const int64_t *rows[(W)];                                                   \
                uint64_t nr = 0;                                                            \
                for (unsigned r = 0; r < (W); r++)                                          \
                    if (p * (W) + r < nvalid)                                               \
                        rows[nr++] = src + o->orow[r0 + p * (W) + r] + o->ok[k0];           \
                uint32_t *restrict d = (uint32_t *)(void *)(dst + p * pstride);             \
                if (nr == (W)) { /* the common case, without a test per value */          \
                    for (size_t t = 0; t < kp; t++)                                         \
                        for (unsigned r = 0; r < (W); r++)                                  \
                            d[t * (W) + r] = EZ_PAIR(rows[r], t);                           \
                } else {                                                                    \
                    for (size_t t = 0; t < kp; t++)                                         \
                        for (unsigned r = 0; r < (W); r++)                                  \
                            d[t * (W) + r] = r < nr ? EZ_PAIR(rows[r], t) : 0;              \
                }                                                                           \
            }                                                                               \
            return;                                                                         \
        }                                                                                   \
        for (uint64_t p = 0; p < npan; p++)                                                 \
            for (size_t tb = 0; tb < kp; tb += EZ_PACK_KB / 2) {                            \
                const size_t te = kp - tb < EZ_PACK_KB / 2 ? kp : tb + EZ_PACK_KB / 2;      \
                for (unsigned r = 0; r < (W); r++) {                                        \
                    const uint64_t row = p * (W) + r;                                       \
                    int16_t *restrict d = dst + p * pstride + 2 * r;                        \
                    if (row >= nvalid) {                                                    \
                        for (size_t t = tb; t < te; t++)                                    \
                            d[t * 2 * (W)] = d[t * 2 * (W) + 1] = 0;                        \
                        continue;                                                           \
                    }                                                                       \
                    const int64_t *s = src + o->orow[r0 + row];                             \
                    for (size_t t = tb; t < te; t++)                                        \
                        for (unsigned h = 0; h < 2; h++) {                                  \
                            const size_t kk = 2 * t + h;                                    \
                            int64_t v = 0;                                                  \
                            if (kk < kc && sh->plain && sh->unit_k) {                       \
                                v = s[o->ok[k0] + (int64_t)kk];                             \
                            } else if (kk < kc) {                                           \
                                for (uint64_t q = 0; q < o->ns; q++)                        \
                                    v += s[o->ok[k0 + kk] + o->os[q]];                      \
                            }                                                               \
                            d[t * 2 * (W) + h] = kk < kc ? EZ_LIMB(v) : 0;                  \
                        }                                                                   \
                }                                                                           \
            }                                                                               \
    }

#if EZ_GEMM_HAVE_I16
EZ_PACK_PANELS16(pack_i16_mr, EZ_GEMM_MR16)
EZ_PACK_PANELS16(pack_i16_nr, EZ_GEMM_NR16)
#endif

typedef void (*pack_i16_fn)(int16_t *restrict dst, const ez_gemm_operand *o, const pack_shape *sh,
                            uint64_t b, uint64_t r0, uint64_t npan, uint64_t k0, size_t kc);
typedef void (*pack_f64_fn)(double *restrict dst, const ez_gemm_operand *o, const pack_shape *sh,
                            uint64_t b, uint64_t r0, uint64_t npan, uint64_t k0, size_t kc);
typedef void (*pack_i64_fn)(int64_t *restrict dst, const ez_gemm_operand *o, const pack_shape *sh,
                            uint64_t b, uint64_t r0, uint64_t npan, uint64_t k0, size_t kc);

/* Panels a whole-operand pack hands to one call (contiguous runs of a few panels for
 * the row-contiguous layout; still many calls to spread over the threads). */
#define EZ_PACK_GROUP 4

/* Pack a whole operand (every batch, all of k; panels w rows by klen, klen = k or k
 * rounded up to even for pairs), OpenMP-parallel over panel groups. */
#define EZ_PACK_ALL(NAME, DT, FN_T)                                                           \
    static void NAME(DT *dst, unsigned w, FN_T fn, const ez_gemm_operand *o, uint64_t nb,    \
                     uint64_t rows, uint64_t k, uint64_t klen)                              \
    {                                                                                       \
        pack_shape sh;                                                                      \
        pack_shape_init(&sh, o, rows, k);                                                   \
        const uint64_t np = ceil_div(rows, w), ng = ceil_div(np, EZ_PACK_GROUP);            \
        _Pragma("omp parallel for collapse(2) schedule(static) if (nb * rows * k > 32768)") \
        for (uint64_t b = 0; b < nb; b++)                                                   \
            for (uint64_t gi = 0; gi < ng; gi++) {                                          \
                uint64_t p0 = gi * EZ_PACK_GROUP, p1 = min_u64(p0 + EZ_PACK_GROUP, np);     \
                fn(dst + (b * np + p0) * klen * w, o, &sh, b, p0 * w, p1 - p0, 0, (size_t)k); \
            }                                                                               \
    }

EZ_PACK_ALL(pack_all_f64, double, pack_f64_fn)
EZ_PACK_ALL(pack_all_i64, int64_t, pack_i64_fn)
#if EZ_GEMM_HAVE_I16
EZ_PACK_ALL(pack_all_i16, int16_t, pack_i16_fn)
#endif

uint64_t ez_gemm_apack_bytes(const ez_gemm_plan *pl, uint64_t nb, uint64_t m, uint64_t k)
{
    if (pl->kind == EZ_GEMM_I16)
        return nb * pl->limbs * ceil_div(m, EZ_GEMM_MR16) * EZ_GEMM_MR16 * (k + (k & 1)) * 2;
    return nb * ez_gemm_apack_len(m, k) * 8;
}

#if EZ_GEMM_HAVE_I16
/* A for the int16 kernel: panel (b, p) of limb l at index (b*mp + p)*limbs + l. */
static void pack_a_i16(int16_t *dst, const ez_gemm_plan *pl, const ez_gemm_operand *a, uint64_t nb,
                       uint64_t m, uint64_t k)
{
    if (pl->limbs == 1) {
        pack_all_i16(dst, EZ_GEMM_MR16, pack_i16_mr, a, nb, m, k, k + (k & 1));
        return;
    }
    pack_shape sh[2];
    pack_shape_init(&sh[0], a, m, k);
    sh[1] = sh[0];
    sh[0].lmask = ((int64_t)1 << pl->split) - 1; /* lo = v mod 2^split */
    sh[1].lshift = pl->split;                     /* hi = floor(v / 2^split) */
    const uint64_t mp = ceil_div(m, EZ_GEMM_MR16), klen = k + (k & 1);
#pragma omp parallel for collapse(2) schedule(static) if (nb * m * k > 32768)
    for (uint64_t b = 0; b < nb; b++)
        for (uint64_t p = 0; p < mp; p++)
            for (unsigned l = 0; l < 2; l++)
                pack_i16_mr(dst + ((b * mp + p) * 2 + l) * klen * EZ_GEMM_MR16, a, &sh[l], b,
                            p * EZ_GEMM_MR16, 1, 0, (size_t)k);
}
#endif

void ez_gemm_pack_a(const ez_gemm_plan *pl, void *dst, const ez_gemm_operand *a, uint64_t nb,
                    uint64_t m, uint64_t k)
{
    switch (pl->kind) {
    case EZ_GEMM_F64:
        pack_all_f64(dst, EZ_GEMM_MR, a->src_f64 ? pack_f64_f64_mr : pack_f64_i64_mr, a, nb, m, k,
                     k);
        break;
    case EZ_GEMM_I64: pack_all_i64(dst, EZ_GEMM_MR, pack_i64_i64_mr, a, nb, m, k, k); break;
    case EZ_GEMM_I16:
#if EZ_GEMM_HAVE_I16
        pack_a_i16(dst, pl, a, nb, m, k);
#endif
        break;
    }
}

void ez_gemm_pack_f64_f64(double *dst, unsigned w, const double *src, uint64_t nb, uint64_t rows,
                          uint64_t k, const int64_t *ob, const int64_t *orow, const int64_t *ok,
                          const int64_t *os, uint64_t ns)
{
    ez_gemm_operand o = {.src = src, .src_f64 = true, .ob = ob, .orow = orow, .ok = ok, .os = os,
                         .ns = ns};
    pack_all_f64(dst, w, w == EZ_GEMM_MR ? pack_f64_f64_mr : pack_f64_f64_nr, &o, nb, rows, k, k);
}

/* ---- the driver ---------------------------------------------------------------------- */

/* Job geometry: jobs are (batch, column block of ncbp panels, row chunk of mcp panels);
 * each k block is kc values (kpad: k rounded up to pairs for the int16 kernel). */
typedef struct {
    unsigned mr, nr, kc, kpad;
    uint64_t mp, np;      /* row / column panels */
    uint64_t mcp, mc;     /* panels per row chunk, row chunks */
    uint64_t ncbp, nbk;   /* panels per column block, column blocks */
    uint64_t klen;        /* k rounded up to kpad: length of a packed A panel */
    size_t bbuf, cbuf;    /* elements of the per-thread B block and C block */
    size_t per_thread;    /* bytes of scratch per thread (64-byte multiple) */
} gemm_geom;

static void gemm_geom_init(gemm_geom *g, ez_gemm_kind kind, uint64_t m, uint64_t n, uint64_t k)
{
    const bool i16 = kind == EZ_GEMM_I16;
    g->mr = i16 ? EZ_GEMM_MR16 : EZ_GEMM_MR;
    g->nr = i16 ? EZ_GEMM_NR16 : EZ_GEMM_NR;
    g->kc = i16 ? EZ_GEMM_KC16 : EZ_GEMM_KC;
    g->kpad = i16 ? 2 : 1;
    g->mp = ceil_div(m, g->mr);
    g->np = ceil_div(n, g->nr);
    g->mcp = min_u64(EZ_GEMM_MCH / g->mr, g->mp ? g->mp : 1);
    g->mc = ceil_div(g->mp, g->mcp);
    g->ncbp = min_u64(EZ_GEMM_NCB / g->nr, g->np ? g->np : 1);
    g->nbk = ceil_div(g->np, g->ncbp);
    g->klen = ceil_div(k, g->kpad) * g->kpad;
    size_t kc = (size_t)min_u64(g->kc, g->klen ? g->klen : g->kpad);
    g->bbuf = kc * g->ncbp * g->nr;
    g->cbuf = (size_t)(g->mcp * g->mr * g->ncbp * g->nr);
    const size_t bsize = i16 ? 2 : 8;
    g->per_thread = ((g->bbuf * bsize + 63) & ~(size_t)63) + ((g->cbuf * 8 + 63) & ~(size_t)63);
}

size_t ez_gemm_work_bytes(const ez_gemm_plan *pl, int threads, uint64_t m, uint64_t n, uint64_t k)
{
    gemm_geom g;
    gemm_geom_init(&g, pl->kind, m, n, k);
    return (size_t)(threads > 0 ? threads : 1) * g.per_thread;
}

void ez_gemm_choose(ez_gemm_plan *pl, uint64_t maxa, uint64_t maxb, uint64_t k)
{
    *pl = (ez_gemm_plan){.kind = EZ_GEMM_I64, .limbs = 1, .split = 0, .chunk = 0};
    if (EZ_GEMM_HAVE_I16 && maxb <= EZ_GEMM_I16_MAX) {
        if (maxa <= EZ_GEMM_I16_MAX) {
            uint64_t run = ez_gemm_i16_chunk(maxa, maxb);
            if (run >= EZ_GEMM_I16_MIN_CHUNK || run >= k) {
                *pl = (ez_gemm_plan){.kind = EZ_GEMM_I16, .limbs = 1, .split = 0, .chunk = run};
                return;
            }
        }
        /* two limbs: the split with the longest runs (lo < 2^s, |hi| <= ceil(maxa / 2^s)) */
        uint64_t best = 0;
        unsigned best_s = 0;
        for (unsigned sp = 1; sp <= 15; sp++) {
            uint64_t lo = ((uint64_t)1 << sp) - 1, hi = (maxa + lo) >> sp;
            if (hi > EZ_GEMM_I16_MAX)
                continue;
            uint64_t rl = ez_gemm_i16_chunk(lo, maxb); /* -1 has lo = 2^s - 1 */
            uint64_t rh = ez_gemm_i16_chunk(hi, maxb);
            uint64_t run = rl < rh ? rl : rh;
            if (run > best)
                best = run, best_s = sp;
        }
        if (best >= 2 && (best >= EZ_GEMM_I16_SPLIT_MIN_CHUNK || best >= k)) {
            *pl = (ez_gemm_plan){.kind = EZ_GEMM_I16, .limbs = 2, .split = best_s, .chunk = best};
            return;
        }
    }
    if ((unsigned __int128)maxa * maxb * k <= EZ_GEMM_F64_EXACT)
        pl->kind = EZ_GEMM_F64;
}

/* One product. A is packed (AT, panels of g.mr); B comes either in its source layout
 * (bo, packed per job by packb into BT) or packed beforehand (bp, f64 only: nb *
 * bpack_len elements as ez_gemm_pack_f64_f64 writes it); C accumulates in CT. */
#define EZ_GEMM_DRIVER(NAME, KIND, AT, BT, CT, KERNEL, PACK_T, STORE_T)                       \
    static ez_status NAME(uint64_t nb, uint64_t m, uint64_t n, uint64_t k, const AT *ap,     \
                          const ez_gemm_operand *bo, PACK_T packb, const BT *bp, size_t chunk, \
                          unsigned limbs, unsigned split, STORE_T store, void *ctx,          \
                          void *work, size_t work_bytes)                                     \
    {                                                                                        \
        gemm_geom g;                                                                         \
        gemm_geom_init(&g, KIND, m, n, k);                                                   \
        const uint64_t njobs = nb * g.nbk * g.mc;                                            \
        if (njobs == 0)                                                                      \
            return EZ_OK;                                                                    \
        const int threads = max_threads();                                                   \
        if (work == NULL || work_bytes < (size_t)threads * g.per_thread)                     \
            return EZ_ERR_INVALID;                                                           \
        pack_shape sh = {0};                                                                 \
        if (bp == NULL)                                                                      \
            pack_shape_init(&sh, bo, n, k);                                                  \
        const size_t cbuf_off = (g.bbuf * sizeof(BT) + 63) & ~(size_t)63;                    \
        _Pragma("omp parallel num_threads(threads) if (njobs > 1)")                          \
        {                                                                                    \
            char *mine = (char *)work + (size_t)thread_num() * g.per_thread;                 \
            BT *bbuf = (BT *)(void *)mine;                                                   \
            CT *cbuf = (CT *)(void *)(mine + cbuf_off);                                      \
            _Pragma("omp for schedule(dynamic, 1)")                                          \
            for (uint64_t job = 0; job < njobs; job++) {                                     \
                const uint64_t b = job / (g.nbk * g.mc), rest = job % (g.nbk * g.mc);        \
                const uint64_t q0 = rest / g.mc * g.ncbp, q1 = min_u64(q0 + g.ncbp, g.np);   \
                const uint64_t p0 = rest % g.mc * g.mcp, p1 = min_u64(p0 + g.mcp, g.mp);     \
                const size_t ldc = (size_t)(q1 - q0) * g.nr;                                 \
                for (uint64_t k0 = 0; k0 < k; k0 += g.kc) {                                  \
                    const size_t kc = (size_t)min_u64(k - k0, g.kc);                         \
                    const size_t kcp = (kc + g.kpad - 1) / g.kpad * g.kpad;                  \
                    const BT *bblk;                                                          \
                    size_t bstride;                                                          \
                    if (bp != NULL) {                                                        \
                        bblk = bp + ((b * g.np + q0) * k + k0) * g.nr;                       \
                        bstride = (size_t)k * g.nr;                                          \
                    } else {                                                                 \
                        packb(bbuf, bo, &sh, b, q0 * g.nr, q1 - q0, k0, kc);                 \
                        bblk = bbuf;                                                         \
                        bstride = kcp * g.nr;                                                \
                    }                                                                        \
                    /* the B micro-panel stays in L1 while the chunk's A panels stream */    \
                    for (uint64_t q = q0; q < q1; q++)                                       \
                        for (uint64_t ip = p0; ip < p1; ip++)                                \
                            for (unsigned l = 0; l < limbs; l++) /* lo limb, then hi */      \
                                KERNEL(kc,                                                   \
                                       ap + (((b * g.mp + ip) * limbs + l) * g.klen + k0) * g.mr, \
                                       bblk + (q - q0) * bstride,                            \
                                       cbuf + (ip - p0) * g.mr * ldc + (q - q0) * g.nr, ldc, \
                                       k0 > 0 || l > 0, chunk, l ? split : 0);               \
                }                                                                            \
                if (k == 0)                                                                  \
                    memset(cbuf, 0, (size_t)(p1 - p0) * g.mr * ldc * sizeof(CT));            \
                const uint64_t m0 = p0 * g.mr, n0 = q0 * g.nr;                               \
                store(ctx, b, m0, (unsigned)(min_u64(m, p1 * g.mr) - m0), n0,                \
                      (unsigned)(min_u64(n, q1 * g.nr) - n0), cbuf, ldc);                    \
            }                                                                                \
        }                                                                                    \
        return EZ_OK;                                                                        \
    }

EZ_GEMM_DRIVER(gemm_f64, EZ_GEMM_F64, double, double, double, kernel_f64, pack_f64_fn,
               ez_gemm_store_block_f64)
EZ_GEMM_DRIVER(gemm_i64, EZ_GEMM_I64, int64_t, int64_t, int64_t, kernel_i64, pack_i64_fn,
               ez_gemm_store_block_i64)
#if EZ_GEMM_HAVE_I16
EZ_GEMM_DRIVER(gemm_i16, EZ_GEMM_I16, int16_t, int16_t, int64_t, kernel_i16, pack_i16_fn,
               ez_gemm_store_block_i64)
#endif

ez_status ez_gemm_run_f64(uint64_t nb, uint64_t m, uint64_t n, uint64_t k, const double *ap,
                          const ez_gemm_operand *b, ez_gemm_store_block_f64 store, void *ctx,
                          void *work, size_t work_bytes)
{
    return gemm_f64(nb, m, n, k, ap, b, b->src_f64 ? pack_f64_f64_nr : pack_f64_i64_nr, NULL, 0, 1,
                    0, store, ctx, work, work_bytes);
}

ez_status ez_gemm_run_i64(uint64_t nb, uint64_t m, uint64_t n, uint64_t k, const int64_t *ap,
                          const ez_gemm_operand *b, ez_gemm_store_block_i64 store, void *ctx,
                          void *work, size_t work_bytes)
{
    if (b->src_f64)
        return EZ_ERR_INVALID;
    return gemm_i64(nb, m, n, k, ap, b, pack_i64_i64_nr, NULL, 0, 1, 0, store, ctx, work,
                    work_bytes);
}

ez_status ez_gemm_run_i16(const ez_gemm_plan *pl, uint64_t nb, uint64_t m, uint64_t n, uint64_t k,
                          const int16_t *ap, const ez_gemm_operand *b,
                          ez_gemm_store_block_i64 store, void *ctx, void *work, size_t work_bytes)
{
#if EZ_GEMM_HAVE_I16
    if (b->src_f64 || pl->kind != EZ_GEMM_I16 || pl->chunk < 2 || pl->limbs < 1 || pl->limbs > 2 ||
        (pl->limbs == 2 && (pl->split < 1 || pl->split > 15)))
        return EZ_ERR_INVALID;
    /* the kernel counts pairs of k */
    size_t pairs = pl->chunk / 2 < EZ_GEMM_KC16 ? (size_t)(pl->chunk / 2) : EZ_GEMM_KC16;
    return gemm_i16(nb, m, n, k, ap, b, pack_i16_nr, NULL, pairs, pl->limbs, pl->split, store, ctx,
                    work, work_bytes);
#else
    (void)pl, (void)nb, (void)m, (void)n, (void)k, (void)ap, (void)b, (void)store, (void)ctx;
    (void)work, (void)work_bytes;
    return EZ_ERR_INVALID;
#endif
}

/* ---- both operands packed beforehand ----------------------------------------------------- */

typedef struct {
    ez_gemm_store_f64 store;
    void *ctx;
} tile_adapter;

/* Hand a block to a per-tile store, one MR x NR tile (row stride NR) at a time. */
static void store_tiles(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0, unsigned nc,
                        const double *c, size_t ldc)
{
    const tile_adapter *t = ctx;
    double tile[EZ_GEMM_MR * EZ_GEMM_NR];
    for (unsigned i0 = 0; i0 < mr; i0 += EZ_GEMM_MR)
        for (unsigned j0 = 0; j0 < nc; j0 += EZ_GEMM_NR) {
            unsigned ti = mr - i0 < EZ_GEMM_MR ? mr - i0 : EZ_GEMM_MR;
            unsigned tj = nc - j0 < EZ_GEMM_NR ? nc - j0 : EZ_GEMM_NR;
            for (unsigned i = 0; i < ti; i++)
                memcpy(tile + i * EZ_GEMM_NR, c + (i0 + i) * ldc + j0, tj * sizeof *c);
            t->store(t->ctx, b, m0 + i0, ti, n0 + j0, tj, tile);
        }
}

ez_status ez_gemm_f64(uint64_t nb, uint64_t m, uint64_t n, uint64_t k, const double *ap,
                      const double *bp, ez_gemm_store_f64 store, void *ctx)
{
    const ez_gemm_plan pl = {.kind = EZ_GEMM_F64, .limbs = 1};
    size_t bytes = ez_gemm_work_bytes(&pl, max_threads(), m, n, k);
    void *work = ez_alloc_aligned(bytes, 1);
    if (work == NULL)
        return EZ_ERR_NOMEM;
    tile_adapter t = {.store = store, .ctx = ctx};
    ez_status st = gemm_f64(nb, m, n, k, ap, NULL, NULL, bp, 0, 1, 0, store_tiles, &t, work, bytes);
    free(work);
    return st;
}
