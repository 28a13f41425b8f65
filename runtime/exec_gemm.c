/* exec_gemm — see exec_gemm.h. The micro-kernels are written once as a macro over the
 * element type and use GCC vector extensions, so the same source compiles to AVX-512
 * (8 x 24 tile, 24 zmm accumulators) or AVX2 (4 x 12) code. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "runtime/exec_gemm.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define NV (EZ_GEMM_NR / EZ_GEMM_VLEN)

typedef double ez_vd __attribute__((vector_size(EZ_GEMM_VLEN * 8)));
typedef int64_t ez_vi __attribute__((vector_size(EZ_GEMM_VLEN * 8)));
#if EZ_GEMM_VLEN == 8
#define EZ_SPLAT(x) {x, x, x, x, x, x, x, x}
#else
#define EZ_SPLAT(x) {x, x, x, x}
#endif

/* c (MR x NR, row-major) [+]= sum over kc of a[k*MR + i] * b[k*NR + j].
 * a and b are 64-byte aligned packed panels; c is a 64-byte aligned tile buffer. */
#define EZ_GEMM_KERNEL(NAME, T, VT)                                                           \
    static void NAME(size_t kc, const T *restrict a, const T *restrict b, T *restrict c,    \
                     bool accumulate)                                                       \
    {                                                                                       \
        VT acc[EZ_GEMM_MR][NV];                                                             \
        _Pragma("GCC unroll 8") for (int i = 0; i < EZ_GEMM_MR; i++)                        \
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++)                            \
        {                                                                                   \
            if (accumulate)                                                                 \
                memcpy(&acc[i][j], c + i * EZ_GEMM_NR + j * EZ_GEMM_VLEN, sizeof(VT));      \
            else                                                                            \
                acc[i][j] = (VT){0};                                                        \
        }                                                                                   \
        for (size_t k = 0; k < kc; k++) {                                                   \
            VT bv[NV];                                                                      \
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++)                            \
                bv[j] = *(const VT *)(b + k * EZ_GEMM_NR + j * EZ_GEMM_VLEN);               \
            _Pragma("GCC unroll 8") for (int i = 0; i < EZ_GEMM_MR; i++)                    \
            {                                                                               \
                const T as = a[k * EZ_GEMM_MR + i];            \
                VT av = (VT)EZ_SPLAT(as);                                                                                \
                _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) acc[i][j] += av * bv[j]; \
            }                                                                               \
        }                                                                                   \
        _Pragma("GCC unroll 8") for (int i = 0; i < EZ_GEMM_MR; i++)                        \
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++)                            \
                memcpy(c + i * EZ_GEMM_NR + j * EZ_GEMM_VLEN, &acc[i][j], sizeof(VT));      \
    }

EZ_GEMM_KERNEL(kernel_f64, double, ez_vd)
EZ_GEMM_KERNEL(kernel_i64, int64_t, ez_vi)

/* Rows of C one job covers: enough to reuse a B micro-panel, few enough that the jobs
 * spread over the threads when the batch and column counts are small. */
#define EZ_GEMM_MCHUNK (16 * EZ_GEMM_MR)

#define EZ_GEMM_DRIVER(NAME, T, KERNEL, STORE_T)                                             \
    ez_status NAME(uint64_t nb, uint64_t m, uint64_t n, uint64_t k, const T *ap, const T *bp, \
                   STORE_T store, void *ctx)                                                 \
    {                                                                                        \
        const uint64_t mp = (m + EZ_GEMM_MR - 1) / EZ_GEMM_MR;                               \
        const uint64_t np = (n + EZ_GEMM_NR - 1) / EZ_GEMM_NR;                               \
        const uint64_t chunk_panels = EZ_GEMM_MCHUNK / EZ_GEMM_MR;                           \
        const uint64_t mc = (mp + chunk_panels - 1) / chunk_panels;                          \
        const uint64_t njobs = nb * np * mc;                                                 \
        if (njobs == 0)                                                                      \
            return EZ_OK;                                                                    \
        const size_t tile = (size_t)chunk_panels * EZ_GEMM_MR * EZ_GEMM_NR;                  \
        bool failed = false;                                                                 \
        _Pragma("omp parallel")                                                              \
        {                                                                                    \
            T *cbuf = ez_alloc_aligned(tile, sizeof(T));                                     \
            if (cbuf == NULL) {                                                              \
                _Pragma("omp atomic write") failed = true;                                   \
            }                                                                                \
            _Pragma("omp for schedule(dynamic, 1)")                                          \
            for (uint64_t job = 0; job < njobs; job++) {                                     \
                if (cbuf == NULL)                                                            \
                    continue;                                                                \
                uint64_t b = job / (np * mc);                                                \
                uint64_t rest = job % (np * mc);                                             \
                uint64_t jp = rest / mc, ic = rest % mc;                                     \
                uint64_t p0 = ic * chunk_panels;                                             \
                uint64_t p1 = p0 + chunk_panels < mp ? p0 + chunk_panels : mp;               \
                const T *bpan = bp + (b * np + jp) * k * EZ_GEMM_NR;                         \
                for (uint64_t k0 = 0; k0 < k; k0 += EZ_GEMM_KC) {                            \
                    size_t kc = k - k0 < EZ_GEMM_KC ? (size_t)(k - k0) : EZ_GEMM_KC;         \
                    for (uint64_t ip = p0; ip < p1; ip++) {                                  \
                        const T *apan = ap + (b * mp + ip) * k * EZ_GEMM_MR;                 \
                        KERNEL(kc, apan + k0 * EZ_GEMM_MR, bpan + k0 * EZ_GEMM_NR,           \
                               cbuf + (ip - p0) * EZ_GEMM_MR * EZ_GEMM_NR, k0 > 0);          \
                    }                                                                        \
                }                                                                            \
                if (k == 0)                                                                  \
                    memset(cbuf, 0, tile * sizeof(T));                                       \
                uint64_t n0 = jp * EZ_GEMM_NR;                                               \
                unsigned nr = (unsigned)(n - n0 < EZ_GEMM_NR ? n - n0 : EZ_GEMM_NR);         \
                for (uint64_t ip = p0; ip < p1; ip++) {                                      \
                    uint64_t m0 = ip * EZ_GEMM_MR;                                           \
                    unsigned mr = (unsigned)(m - m0 < EZ_GEMM_MR ? m - m0 : EZ_GEMM_MR);     \
                    store(ctx, b, m0, mr, n0, nr, cbuf + (ip - p0) * EZ_GEMM_MR * EZ_GEMM_NR); \
                }                                                                            \
            }                                                                                \
            free(cbuf);                                                                      \
        }                                                                                    \
        return failed ? EZ_ERR_NOMEM : EZ_OK;                                                \
    }

EZ_GEMM_DRIVER(ez_gemm_f64, double, kernel_f64, ez_gemm_store_f64)
EZ_GEMM_DRIVER(ez_gemm_i64, int64_t, kernel_i64, ez_gemm_store_i64)

/* Packers (see exec_gemm.h), one macro over destination and source types. Two loop
 * orders, chosen by the source layout, so the source is always read sequentially:
 *  - rows adjacent in memory (a weight [d][n] packed as B: orow[1] = orow[0] + 1):
 *    k outer, every panel's rows inner -- each source row is one sequential run;
 *  - otherwise (an activation [s][d] packed as A, k contiguous): panel outer, then
 *    each row's k run read sequentially into the panel (K x w, cache resident).
 * (Walking a [d][n] weight panel by panel would jump a whole row per element: a TLB
 * and cache miss each, as slow as the product itself.) */
#define EZ_PACK_ONE(DT, ST, d, bk, rowoff, r)                                                  \
    do {                                                                                       \
        if (plain) {                                                                           \
            d = (DT)bk[rowoff[r]];                                                             \
        } else {                                                                               \
            ST acc_ = 0;                                                                       \
            for (uint64_t s_ = 0; s_ < ns; s_++)                                               \
                acc_ += bk[rowoff[r] + os[s_]];                                                \
            d = (DT)acc_;                                                                      \
        }                                                                                      \
    } while (0)

#define EZ_PACK(NAME, DT, ST)                                                                  \
    void NAME(DT *dst, unsigned w, const ST *src, uint64_t nb, uint64_t rows, uint64_t k,     \
              const int64_t *ob, const int64_t *orow, const int64_t *ok, const int64_t *os,    \
              uint64_t ns)                                                                     \
    {                                                                                          \
        const uint64_t np = (rows + w - 1) / w;                                                \
        const bool plain = ns == 1 && os[0] == 0;                                              \
        const bool rows_adjacent = rows > 1 && orow[1] == orow[0] + 1;                         \
        if (rows_adjacent) {                                                                   \
            _Pragma("omp parallel for collapse(2) schedule(static)")                           \
            for (uint64_t b = 0; b < nb; b++)                                                  \
                for (uint64_t kk = 0; kk < k; kk++) {                                          \
                    const ST *bk = src + ob[b] + ok[kk];                                       \
                    for (uint64_t p = 0; p < np; p++) {                                        \
                        DT *dk = dst + ((b * np + p) * k + kk) * w;                            \
                        const int64_t *rowoff = orow + p * w;                                  \
                        const unsigned valid = (unsigned)(rows - p * w < w ? rows - p * w : w); \
                        for (unsigned r = 0; r < valid; r++)                                   \
                            EZ_PACK_ONE(DT, ST, dk[r], bk, rowoff, r);                         \
                        for (unsigned r = valid; r < w; r++)                                   \
                            dk[r] = 0;                                                         \
                    }                                                                          \
                }                                                                              \
            return;                                                                            \
        }                                                                                      \
        _Pragma("omp parallel for collapse(2) schedule(static)")                               \
        for (uint64_t b = 0; b < nb; b++)                                                      \
            for (uint64_t p = 0; p < np; p++) {                                                \
                DT *d = dst + (b * np + p) * k * w;                                            \
                const unsigned valid = (unsigned)(rows - p * w < w ? rows - p * w : w);        \
                const int64_t *rowoff = orow + p * w;                                          \
                for (unsigned r = 0; r < w; r++) {                                             \
                    if (r >= valid) {                                                          \
                        for (uint64_t kk = 0; kk < k; kk++)                                    \
                            d[kk * w + r] = 0;                                                 \
                        continue;                                                              \
                    }                                                                          \
                    const ST *bk = src + ob[b];                                                \
                    for (uint64_t kk = 0; kk < k; kk++)                                        \
                        EZ_PACK_ONE(DT, ST, d[kk * w + r], (bk + ok[kk]), rowoff, r);          \
                }                                                                              \
            }                                                                                  \
    }

EZ_PACK(ez_gemm_pack_i64_f64, double, int64_t)
EZ_PACK(ez_gemm_pack_i64_i64, int64_t, int64_t)
EZ_PACK(ez_gemm_pack_f64_f64, double, double)
