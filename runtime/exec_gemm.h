/* exec_gemm — the packed, blocked matrix-product kernel behind every contraction of the
 * executor (runtime/exec_einsum.c) and of the float reference (runtime/floatref.c).
 *
 *     C[b][m][n] = sum_k A[b][m][k] * B[b][n][k]      b < nb, m < M, n < N, k < K
 *
 * Operands are packed by the caller (ez_gemm_pack_*): A in panels of EZ_GEMM_MR rows,
 * each panel K x MR with the MR row values of one k adjacent; B in panels of
 * EZ_GEMM_NR columns, K x NR. Padding rows/columns are zero. The micro-kernel keeps an
 * MR x NR tile of C in vector registers and streams K (blocked by EZ_GEMM_KC so a B
 * micro-panel stays in L1); jobs (b, column panel, row chunk) run OpenMP-parallel and
 * hand each finished tile to a store callback.
 *
 * Exactness (why doubles are allowed in an integer executor): when every |A| * |B|
 * product and every partial sum of the K products is an integer of magnitude <= 2^53,
 * double arithmetic (with or without FMA, in any order) is exact. The caller checks
 * max|A| * max|B| * K <= 2^53 and otherwise uses the int64 kernel, so the result is
 * the exact integer either way and identical for any thread count. */
#ifndef EZ_RUNTIME_EXEC_GEMM_H
#define EZ_RUNTIME_EXEC_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

#if defined(__AVX512F__)
#define EZ_GEMM_VLEN 8
#define EZ_GEMM_MR 8
#define EZ_GEMM_NR 24
#else
#define EZ_GEMM_VLEN 4
#define EZ_GEMM_MR 4
#define EZ_GEMM_NR 12
/* Pack one operand (per batch b < nb) into panels of w = EZ_GEMM_MR (operand A) or
 * EZ_GEMM_NR (operand B) rows:
 *     dst[((b*np + p)*k + kk)*w + r] = sum_{s < ns} src[ob[b] + orow[p*w + r] + ok[kk] + os[s]]
 * with np = ceil(rows / w) and zeros for padding rows. The offsets come from
 * ez_exec_group_offsets (batch, row, contracted and summed groups). dst must hold
 * nb * ez_gemm_[ab]pack_len elements. OpenMP-parallel over panels; O(nb*rows*k*ns). */
void ez_gemm_pack_i64_f64(double *dst, unsigned w, const int64_t *src, uint64_t nb, uint64_t rows,
                          uint64_t k, const int64_t *ob, const int64_t *orow, const int64_t *ok,
                          const int64_t *os, uint64_t ns);
void ez_gemm_pack_i64_i64(int64_t *dst, unsigned w, const int64_t *src, uint64_t nb,
                          uint64_t rows, uint64_t k, const int64_t *ob, const int64_t *orow,
                          const int64_t *ok, const int64_t *os, uint64_t ns);
void ez_gemm_pack_f64_f64(double *dst, unsigned w, const double *src, uint64_t nb, uint64_t rows,
                          uint64_t k, const int64_t *ob, const int64_t *orow, const int64_t *ok,
                          const int64_t *os, uint64_t ns);

#endif
#ifndef EZ_GEMM_KC_OVERRIDE
#define EZ_GEMM_KC 128
#else
#define EZ_GEMM_KC EZ_GEMM_KC_OVERRIDE
#endif

/* Exact-double limit: max|A| * max|B| * K must not exceed this. */
#define EZ_GEMM_F64_EXACT ((uint64_t)1 << 53)

/* Packed sizes (elements) of one batch entry. */
static inline uint64_t ez_gemm_apack_len(uint64_t m, uint64_t k)
{
    return (m + EZ_GEMM_MR - 1) / EZ_GEMM_MR * EZ_GEMM_MR * k;
}
static inline uint64_t ez_gemm_bpack_len(uint64_t n, uint64_t k)
{
    return (n + EZ_GEMM_NR - 1) / EZ_GEMM_NR * EZ_GEMM_NR * k;
}

/* A finished tile: rows [m0, m0 + mr) x columns [n0, n0 + nr) of batch b; c[i*NR + j]
 * is C[b][m0+i][n0+j]. Called from OpenMP threads, concurrently for different tiles. */
typedef void (*ez_gemm_store_f64)(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0,
                                  unsigned nr, const double *c);
typedef void (*ez_gemm_store_i64)(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0,
                                  unsigned nr, const int64_t *c);

/* Run the product on packed operands (ap: nb * apack_len, bp: nb * bpack_len, 64-byte
 * aligned). Errors: EZ_ERR_NOMEM (per-thread tile buffers). Cost: nb*M*N*K MACs. */
ez_status ez_gemm_f64(uint64_t nb, uint64_t m, uint64_t n, uint64_t k, const double *ap,
                      const double *bp, ez_gemm_store_f64 store, void *ctx);
ez_status ez_gemm_i64(uint64_t nb, uint64_t m, uint64_t n, uint64_t k, const int64_t *ap,
                      const int64_t *bp, ez_gemm_store_i64 store, void *ctx);

/* Pack one operand (per batch b < nb) into panels of w = EZ_GEMM_MR (operand A) or
 * EZ_GEMM_NR (operand B) rows:
 *     dst[((b*np + p)*k + kk)*w + r] = sum_{s < ns} src[ob[b] + orow[p*w + r] + ok[kk] + os[s]]
 * with np = ceil(rows / w) and zeros for padding rows. The offsets come from
 * ez_exec_group_offsets (batch, row, contracted and summed groups). dst must hold
 * nb * ez_gemm_[ab]pack_len elements. OpenMP-parallel over panels; O(nb*rows*k*ns). */
void ez_gemm_pack_i64_f64(double *dst, unsigned w, const int64_t *src, uint64_t nb, uint64_t rows,
                          uint64_t k, const int64_t *ob, const int64_t *orow, const int64_t *ok,
                          const int64_t *os, uint64_t ns);
void ez_gemm_pack_i64_i64(int64_t *dst, unsigned w, const int64_t *src, uint64_t nb,
                          uint64_t rows, uint64_t k, const int64_t *ob, const int64_t *orow,
                          const int64_t *ok, const int64_t *os, uint64_t ns);
void ez_gemm_pack_f64_f64(double *dst, unsigned w, const double *src, uint64_t nb, uint64_t rows,
                          uint64_t k, const int64_t *ob, const int64_t *orow, const int64_t *ok,
                          const int64_t *os, uint64_t ns);

#endif
