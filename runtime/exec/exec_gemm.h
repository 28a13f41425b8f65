/* exec_gemm — the packed, blocked matrix-product kernel behind every contraction of the
 * executor (runtime/exec_einsum.c) and of the float reference (runtime/floatref.c).
 *
 *     C[b][m][n] = sum_k A[b][m][k] * B[b][n][k]      b < nb, m < M, n < N, k < K
 *
 * Layout. A is packed once, before the product, into panels of EZ_GEMM_MR rows (each
 * panel K x MR, the MR row values of one k adjacent; int16: MR16 rows, pairs of k). B is packed *inside* the product:
 * each job (batch b, a block of up to EZ_GEMM_NCB columns, a chunk of up to EZ_GEMM_MCH
 * rows) converts one EZ_GEMM_KC x NCB block of B at a time from its source layout into
 * a per-thread buffer that stays in L2 while the micro-kernel sweeps every A panel of
 * the chunk over it (an MR x NR tile of C in vector registers, a KC x NR micro-panel of
 * B in L1). B is the large operand of a projection (the weight): packing it on the fly
 * reads it once and never writes a packed copy to memory, which on the development VM
 * (about 7-15 GB/s per core) cost as much as a third of the product. Each finished
 * block (chunk rows x block columns, row-major in the thread's buffer) goes to a store
 * callback, so the caller's rescale runs on cache-resident values and writes whole
 * output rows.
 *
 * Kernels (ez_gemm_choose picks the fastest exact one from the operands' maxima):
 *  - int16 (AVX-512 VNNI), when |B| <= 32767 and A fits one int16 or splits into two:
 *    int32 lanes summing runs of k short enough to be exact, widened into int64;
 *  - double FMA, exact when every product and partial sum is an integer below 2^53
 *    (then double arithmetic, with or without FMA, in any order, is exact):
 *    max|A| * max|B| * K <= 2^53;
 *  - int64, always (the executor has bounded every sum below 2^62).
 * So C is the exact integer whichever kernel ran. Every element of C is summed by one
 * job in a fixed k order, so results are identical for any thread count anyway. */
#ifndef EZ_RUNTIME_EXEC_GEMM_H
#define EZ_RUNTIME_EXEC_GEMM_H

#include <stdbool.h>
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
#endif
#ifndef EZ_GEMM_KC_OVERRIDE
#define EZ_GEMM_KC 128
#else
#define EZ_GEMM_KC EZ_GEMM_KC_OVERRIDE
#endif
/* Columns of one job (a whole number of NR panels): long enough runs of a weight row
 * (768 bytes) for the hardware prefetcher and for the output rows the store writes,
 * small enough for several jobs per thread at N = 768. */
#define EZ_GEMM_NCB (4 * EZ_GEMM_NR)
/* Rows of one job (a whole number of MR panels): B is read and packed once per chunk
 * (512 rows: a GPT-2 projection at S = 512 was 9 % faster than with 256, the C block
 * of 512 x 96 int64 still fits L2 beside the A and B blocks). */
#define EZ_GEMM_MCH (64 * EZ_GEMM_MR)

/* Exact-double limit: max|A| * max|B| * K must not exceed this. */
#define EZ_GEMM_F64_EXACT ((uint64_t)1 << 53)

/* The int16 kernel (AVX-512 VNNI vpdpwssd: 32 int16 products per instruction, four
 * times the multiply-adds of a double FMA at the same issue rate): operands whose
 * packed values all satisfy |v| <= EZ_GEMM_I16_MAX. Each int32 lane sums a run of
 * consecutive k (ez_gemm_i16_chunk) and is then added into an int64 accumulator, so
 * every run's exact sum fits int32 (the instruction wraps; no intermediate value
 * matters, only that the run's true sum lies in [-2^31, 2^31)). The tile is
 * EZ_GEMM_MR16 x EZ_GEMM_NR16, k in pairs. Absent without AVX-512 VNNI/BW. */
#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512F__)
#define EZ_GEMM_HAVE_I16 1
#else
#define EZ_GEMM_HAVE_I16 0
#endif
#define EZ_GEMM_I16_MAX 32767
#define EZ_GEMM_MR16 8
#define EZ_GEMM_NR16 48
#define EZ_GEMM_KC16 256
/* One limb: below this run length the int32 -> int64 widening after every run costs
 * more than a second pass (measured on GPT-2 attention at scale 12: p.v, runs of 26,
 * one limb 0.60 ms, two 0.73; q.k, runs of 6, one limb 1.2 ms, two 0.83). */
#define EZ_GEMM_I16_MIN_CHUNK 16
/* Two limbs: the split is worth it when runs are at least this long (else double). */
#define EZ_GEMM_I16_SPLIT_MIN_CHUNK 64

/* The kernels. */
typedef enum {
    EZ_GEMM_I64 = 0, /* int64 multiply-adds: always exact below 2^63 */
    EZ_GEMM_F64,     /* double FMA: exact when max|A| max|B| K <= 2^53 */
    EZ_GEMM_I16,     /* int16 VNNI: |B| <= 32767, A in one or two int16 limbs */
} ez_gemm_kind;

/* How one product runs. For EZ_GEMM_I16, A is used whole (limbs = 1: |A| <= 32767) or
 * split (limbs = 2: A = hi * 2^split + lo with lo = A mod 2^split in [0, 2^split) and
 * |hi| <= 32767, two passes over B: 2^split * (hi . B) + lo . B); an int32 lane sums
 * at most `chunk` consecutive k of one limb before it is widened into the int64
 * accumulator. Other kinds: limbs = 1, split = chunk = 0. */
typedef struct {
    ez_gemm_kind kind;
    unsigned limbs;
    unsigned split;
    uint64_t chunk;
} ez_gemm_plan;

/* Longest run of k whose sum an int32 lane holds exactly: floor((2^31 - 1) /
 * (max|A| max|B|)) (UINT64_MAX when a maximum is 0). */
static inline uint64_t ez_gemm_i16_chunk(uint64_t maxa, uint64_t maxb)
{
    unsigned __int128 p = (unsigned __int128)maxa * maxb;
    return p == 0 ? UINT64_MAX : (uint64_t)(((UINT64_C(1) << 31) - 1) / p);
}

/* The fastest exact kernel for packed values bounded by maxa, maxb (after summing any
 * summed indices) and k terms: I16 with one limb when compiled in, both maxima <= 32767
 * and runs >= EZ_GEMM_I16_MIN_CHUNK (or all of k) fit int32; else I16 with two limbs
 * when |B| <= 32767 and the best split allows runs >= EZ_GEMM_I16_SPLIT_MIN_CHUNK (or
 * all of k); else F64 when maxa * maxb * k <= EZ_GEMM_F64_EXACT; else I64 (the caller
 * has checked that every partial sum stays below 2^62). */
void ez_gemm_choose(ez_gemm_plan *pl, uint64_t maxa, uint64_t maxb, uint64_t k);

/* An operand in its source layout (a tensor of the trace, a layer slice, ...):
 *     value(b, row, kk) = sum_{s < ns} src[ob[b] + orow[row] + ok[kk] + os[s]]
 * src holds int64_t values, or double values when src_f64 is set. The offset tables
 * come from ez_exec_group_offsets (batch, row, contracted and summed groups); ns >= 1
 * (os = {0} when nothing is summed). Borrowed by the calls below. */
typedef struct {
    const void *src;
    bool src_f64;
    const int64_t *ob, *orow, *ok, *os;
    uint64_t ns;
} ez_gemm_operand;

/* A finished block: rows [m0, m0 + mr) x columns [n0, n0 + nc) of batch b; c[i*ldc + j]
 * is C[b][m0+i][n0+j] (mr <= EZ_GEMM_MCH, nc <= EZ_GEMM_NCB). Called from OpenMP
 * threads, concurrently for different blocks (every element of C exactly once). */
typedef void (*ez_gemm_store_block_f64)(void *ctx, uint64_t b, uint64_t m0, unsigned mr,
                                        uint64_t n0, unsigned nc, const double *c, size_t ldc);
typedef void (*ez_gemm_store_block_i64)(void *ctx, uint64_t b, uint64_t m0, unsigned mr,
                                        uint64_t n0, unsigned nc, const int64_t *c, size_t ldc);

/* Packed size (elements) of one batch entry of A for the f64/i64 kernels (m rows
 * padded to MR, times k). */
static inline uint64_t ez_gemm_apack_len(uint64_t m, uint64_t k)
{
    return (m + EZ_GEMM_MR - 1) / EZ_GEMM_MR * EZ_GEMM_MR * k;
}

/* Bytes of packed A (all nb batches) for plan pl: 8 per value (f64, i64) or 2 per
 * value and limb (i16, rows padded to MR16 and k to even). */
uint64_t ez_gemm_apack_bytes(const ez_gemm_plan *pl, uint64_t nb, uint64_t m, uint64_t k);

/* Pack operand A (nb batches of m rows x k) for plan pl into dst (64-byte aligned,
 * ez_gemm_apack_bytes): panels of MR rows (MR16 for i16, one panel per limb), each
 * panel k x MR with the MR row values of one k adjacent (i16: pairs of k adjacent per
 * row), zeros for padding. Values must fit the plan (ez_gemm_choose); i16 and i64 need
 * an int64 source. OpenMP-parallel over panels; reads the source once and writes the
 * packed copy once: O(nb*m*k*ns). */
void ez_gemm_pack_a(const ez_gemm_plan *pl, void *dst, const ez_gemm_operand *a, uint64_t nb,
                    uint64_t m, uint64_t k);

/* Bytes of scratch ez_gemm_run_* needs with `threads` OpenMP threads (the per-thread
 * B block and C block; at most 0.5 MiB per thread on AVX-512). */
size_t ez_gemm_work_bytes(const ez_gemm_plan *pl, int threads, uint64_t m, uint64_t n, uint64_t k);

/* C = A B^T for A packed by ez_gemm_pack_a (ap, same plan) and B in its source layout
 * (b: nb batches of n rows x k), each finished block handed to `store`.
 * work: 64-byte aligned scratch of work_bytes >= ez_gemm_work_bytes(pl,
 * omp_get_max_threads(), m, n, k) bytes, contents undefined, not used after the call.
 * Exactness is the caller's (ez_gemm_choose): run_f64 needs the 2^53 rule; run_i64 an
 * int64 B and partial sums below 2^63; run_i16 an int64 B with |values| <= 32767, A as
 * the plan says, chunk >= 2 and every run of chunk k of a limb below 2^31.
 * Errors: EZ_ERR_INVALID (work too small, wrong source type or plan, i16 not compiled
 * in). Cost: nb*m*n*k multiply-adds (times limbs); B is read ceil(m / EZ_GEMM_MCH)
 * times. */
ez_status ez_gemm_run_f64(uint64_t nb, uint64_t m, uint64_t n, uint64_t k, const double *ap,
                          const ez_gemm_operand *b, ez_gemm_store_block_f64 store, void *ctx,
                          void *work, size_t work_bytes);
ez_status ez_gemm_run_i64(uint64_t nb, uint64_t m, uint64_t n, uint64_t k, const int64_t *ap,
                          const ez_gemm_operand *b, ez_gemm_store_block_i64 store, void *ctx,
                          void *work, size_t work_bytes);
ez_status ez_gemm_run_i16(const ez_gemm_plan *pl, uint64_t nb, uint64_t m, uint64_t n, uint64_t k,
                          const int16_t *ap, const ez_gemm_operand *b,
                          ez_gemm_store_block_i64 store, void *ctx, void *work, size_t work_bytes);

/* ---- both operands packed beforehand (the float reference, runtime/floatref.c) ---- */

/* Packed size (elements) of one batch entry of B (n rows padded to NR, times k). */
static inline uint64_t ez_gemm_bpack_len(uint64_t n, uint64_t k)
{
    return (n + EZ_GEMM_NR - 1) / EZ_GEMM_NR * EZ_GEMM_NR * k;
}

/* A finished MR x NR tile: rows [m0, m0 + mr) x columns [n0, n0 + nr) of batch b;
 * c[i*NR + j] is C[b][m0+i][n0+j]. Called from OpenMP threads, concurrently. */
typedef void (*ez_gemm_store_f64)(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0,
                                  unsigned nr, const double *c);

/* Pack a double operand (per batch b < nb) into panels of w = EZ_GEMM_MR (operand A) or
 * EZ_GEMM_NR (operand B) rows:
 *     dst[((b*np + p)*k + kk)*w + r] = sum_{s < ns} src[ob[b] + orow[p*w + r] + ok[kk] + os[s]]
 * with np = ceil(rows / w) and zeros for padding rows. dst must hold
 * nb * ez_gemm_[ab]pack_len elements. OpenMP-parallel over panels; O(nb*rows*k*ns). */
void ez_gemm_pack_f64_f64(double *dst, unsigned w, const double *src, uint64_t nb, uint64_t rows,
                          uint64_t k, const int64_t *ob, const int64_t *orow, const int64_t *ok,
                          const int64_t *os, uint64_t ns);

/* Run the product on packed operands (ap: nb * apack_len, bp: nb * bpack_len, 64-byte
 * aligned), one tile at a time to `store`. Errors: EZ_ERR_NOMEM (scratch).
 * Cost: nb*M*N*K MACs. */
ez_status ez_gemm_f64(uint64_t nb, uint64_t m, uint64_t n, uint64_t k, const double *ap,
                      const double *bp, ez_gemm_store_f64 store, void *ctx);

#endif
