/* contract — the contraction engine of EINSUM (runtime/ops/einsum.c), in integers and in
 * double for the float reference: out = floor(mul * sum_{summed} prod_k in_k / 2^shift)
 * (docs/semantics.md "einsum").
 *
 * Two operands with enough work go to the packed matrix kernel (exec_gemm.h): indices
 * are grouped by class (docs/plan.md index-class table) into batch b, free-A m, free-B n, contracted k;
 * summed-A/B indices are summed while packing, broadcast indices are replicated when
 * the tiles are stored. Everything else (one operand, elementwise products, tiny or
 * matrix-vector shapes) runs a direct strided loop. Both are exact: products and sums
 * are bounded before anything runs (max|A| * max|B| * terms * |mul| < 2^62), and the
 * packed path picks its kernel (int16 VNNI, double, int64) from the operands' actual
 * maxima by the exactness rules of ez_gemm_choose, so the result is the same integer
 * whichever kernel ran, for any thread count. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "runtime/exec/exec_gemm.h"
#include "runtime/exec/contract.h"
#include "runtime/exec/exec_op.h"
#include "runtime/exec/floatref.h"

typedef unsigned __int128 ez_u128;

#define LIMIT62 ((ez_u128)1 << 62)

/* ---- the packed path ---------------------------------------------------------------- */

typedef struct {
    int64_t *out, *rem;
    int64_t mul;
    unsigned shift;
    const int64_t *ob, *om, *on, *orr;
    uint64_t nr;
} store_ctx;

/* Copy n int64 values to dst with non-temporal stores where whole aligned vectors fit:
 * the remainders are read again only by the prover, long after the run, so writing
 * them around the cache saves the read-for-ownership of every line and keeps the
 * activations the next ops read in L2 (measured: 1 ms of 15 per GPT-2 attention layer
 * at one thread; the same for the outputs themselves, which the range check and the
 * next op read at once, was no faster). */
static void stream_i64(int64_t *restrict dst, const int64_t *restrict src, unsigned n)
{
#if defined(__AVX512F__)
    unsigned j = 0;
    while (j < n && ((uintptr_t)(dst + j) & 63) != 0)
        dst[j] = src[j], j++;
    for (; j + 8 <= n; j += 8)
        _mm512_stream_si512((void *)(dst + j), _mm512_loadu_si512((const void *)(src + j)));
    for (; j < n; j++)
        dst[j] = src[j];
#elif defined(__AVX__)
    unsigned j = 0;
    while (j < n && ((uintptr_t)(dst + j) & 31) != 0)
        dst[j] = src[j], j++;
    for (; j + 4 <= n; j += 4)
        _mm256_stream_si256((__m256i *)(void *)(dst + j),
                            _mm256_loadu_si256((const __m256i *)(const void *)(src + j)));
    for (; j < n; j++)
        dst[j] = src[j];
#else
    memcpy(dst, src, n * sizeof *dst);
#endif
}

/* Make this thread's non-temporal stores visible before the parallel region ends. */
static inline void stream_fence(void)
{
#if defined(__AVX__) || defined(__AVX512F__)
    _mm_sfence();
#endif
}

/* The common case: no broadcast index and the free-B columns contiguous in the output
 * (on[j] = j), so each block row is one contiguous run of the output (and of rem). */
#define EZ_STORE_ROWS(NAME, T)                                                                \
    static void NAME(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0, unsigned nc, \
                     const T *c, size_t ldc)                                                 \
    {                                                                                        \
        const store_ctx *s = ctx;                                                            \
        const int64_t mul = s->mul;                                                          \
        const unsigned sh = s->shift;                                                        \
        int64_t r[EZ_GEMM_NCB];                                                              \
        for (unsigned i = 0; i < mr; i++) {                                                  \
            const int64_t base = s->ob[b] + s->om[m0 + i] + (int64_t)n0;                     \
            int64_t *restrict o = s->out + base;                                             \
            const T *restrict ci = c + i * ldc;                                              \
            if (s->rem == NULL) {                                                            \
                _Pragma("omp simd") for (unsigned j = 0; j < nc; j++)                        \
                    o[j] = (int64_t)ci[j] * mul;                                             \
                continue;                                                                    \
            }                                                                                \
            if (mul == 1) {                                                                  \
                _Pragma("omp simd") for (unsigned j = 0; j < nc; j++)                        \
                {                                                                            \
                    int64_t v = (int64_t)ci[j], q = v >> sh;                                 \
                    o[j] = q;                                                                \
                    r[j] = v - (int64_t)((uint64_t)q << sh);                                 \
                }                                                                            \
            } else {                                                                         \
                _Pragma("omp simd") for (unsigned j = 0; j < nc; j++)                        \
                {                                                                            \
                    int64_t v = (int64_t)ci[j] * mul, q = v >> sh;                           \
                    o[j] = q;                                                                \
                    r[j] = v - (int64_t)((uint64_t)q << sh);                                 \
                }                                                                            \
            }                                                                                \
            stream_i64(s->rem + base, r, nc);                                                \
        }                                                                                    \
        stream_fence();                                                                      \
    }

EZ_STORE_ROWS(store_rows_f64, double)
EZ_STORE_ROWS(store_rows_i64, int64_t)

static inline void store_one(const store_ctx *s, int64_t base, int64_t acc)
{
    int64_t v = acc * s->mul, r = 0;
    int64_t q = s->shift ? ez_exec_floor_shift(v, s->shift, &r) : v;
    for (uint64_t j = 0; j < s->nr; j++) {
        s->out[base + s->orr[j]] = q;
        if (s->rem)
            s->rem[base + s->orr[j]] = r;
    }
}

/* Any output layout: columns through their offsets, broadcast indices replicated. */
#define EZ_STORE_ANY(NAME, T)                                                                 \
    static void NAME(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0, unsigned nc, \
                     const T *c, size_t ldc)                                                 \
    {                                                                                        \
        const store_ctx *s = ctx;                                                            \
        for (unsigned i = 0; i < mr; i++) {                                                  \
            int64_t row = s->ob[b] + s->om[m0 + i];                                          \
            for (unsigned j = 0; j < nc; j++)                                                \
                store_one(s, row + s->on[n0 + j], (int64_t)c[i * ldc + j]);                  \
        }                                                                                    \
    }

EZ_STORE_ANY(store_any_f64, double)
EZ_STORE_ANY(store_any_i64, int64_t)

static ez_status run_packed(ez_exec_ctx *c, const ez_exec_groups *g, const int64_t *A,
                            const int64_t *B, const int64_t *sa, const int64_t *sb,
                            const int64_t *so, uint64_t pa_max, uint64_t pb_max, int64_t *rem)
{
    const ez_plan_op *op = c->op;
    int64_t *ab = NULL, *am = NULL, *ak = NULL, *as = NULL;
    int64_t *bb = NULL, *bn = NULL, *bk = NULL, *bs = NULL;
    int64_t *ob = NULL, *om = NULL, *on = NULL, *orr = NULL;
    ez_status st = EZ_ERR_NOMEM;
    if (ez_exec_group_offsets(&ab, op->idx_size, g->b, g->nb, sa) ||
        ez_exec_group_offsets(&am, op->idx_size, g->m, g->nm, sa) ||
        ez_exec_group_offsets(&ak, op->idx_size, g->k, g->nk, sa) ||
        ez_exec_group_offsets(&as, op->idx_size, g->sa, g->nsa, sa) ||
        ez_exec_group_offsets(&bb, op->idx_size, g->b, g->nb, sb) ||
        ez_exec_group_offsets(&bn, op->idx_size, g->n, g->nn, sb) ||
        ez_exec_group_offsets(&bk, op->idx_size, g->k, g->nk, sb) ||
        ez_exec_group_offsets(&bs, op->idx_size, g->sb, g->nsb, sb) ||
        ez_exec_group_offsets(&ob, op->idx_size, g->b, g->nb, so) ||
        ez_exec_group_offsets(&om, op->idx_size, g->m, g->nm, so) ||
        ez_exec_group_offsets(&on, op->idx_size, g->n, g->nn, so) ||
        ez_exec_group_offsets(&orr, op->idx_size, g->r, g->nr, so))
        goto out;
    /* The fastest exact kernel for these bounds (exec_gemm.h). A is packed once (every
     * column block sweeps it); B, the weight of a projection, is converted block by
     * block inside the product. */
    ez_gemm_plan pl;
    ez_gemm_choose(&pl, pa_max, pb_max, g->K);
    c->tr->ops[c->oi].exact_f64 = pl.kind != EZ_GEMM_I64;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    const uint64_t abytes = ez_gemm_apack_bytes(&pl, g->B, g->M, g->K);
    const size_t wbytes = ez_gemm_work_bytes(&pl, threads, g->M, g->N, g->K);
    void *ap = ez_exec_scratch(c, 0, abytes ? abytes : 8);
    void *work = ez_exec_scratch(c, 1, wbytes);
    if (ap == NULL || work == NULL)
        goto out;
    const ez_gemm_operand oa = {.src = A, .ob = ab, .orow = am, .ok = ak, .os = as, .ns = g->SA};
    const ez_gemm_operand obp = {.src = B, .ob = bb, .orow = bn, .ok = bk, .os = bs, .ns = g->SB};
    store_ctx s = {.out = c->tr->t[op->out], .rem = rem, .mul = op->mul, .shift = op->shift,
                   .ob = ob, .om = om, .on = on, .orr = orr, .nr = g->R};
    bool rows_contiguous = g->R == 1 && orr[0] == 0;
    for (uint64_t j = 0; rows_contiguous && j < g->N; j++)
        rows_contiguous = on[j] == (int64_t)j;
    ez_gemm_pack_a(&pl, ap, &oa, g->B, g->M, g->K);
    ez_gemm_store_block_i64 store_i64 = rows_contiguous ? store_rows_i64 : store_any_i64;
    switch (pl.kind) {
    case EZ_GEMM_I16:
        st = ez_gemm_run_i16(&pl, g->B, g->M, g->N, g->K, ap, &obp, store_i64, &s, work, wbytes);
        break;
    case EZ_GEMM_F64:
        st = ez_gemm_run_f64(g->B, g->M, g->N, g->K, ap, &obp,
                             rows_contiguous ? store_rows_f64 : store_any_f64, &s, work, wbytes);
        break;
    case EZ_GEMM_I64:
        st = ez_gemm_run_i64(g->B, g->M, g->N, g->K, ap, &obp, store_i64, &s, work, wbytes);
        break;
    }
    if (st == EZ_ERR_INVALID) {
        ez_diag_set(c->d, "contraction '%s': kernel setup rejected (internal error)", op->label);
        st = EZ_ERR_INTERNAL;
    }
out:
    if (st == EZ_ERR_NOMEM)
        ez_diag_set(c->d, "out of memory in contraction '%s'", op->label);
    free(ab), free(am), free(ak), free(as), free(bb), free(bn), free(bk), free(bs);
    free(ob), free(om), free(on), free(orr);
    return st;
}

/* ---- the direct path ---------------------------------------------------------------- */

/* Walk every index of the op (output, contracted, summed, broadcast): the outermost
 * loop runs over one output index in parallel (distinct values write distinct output
 * elements), the innermost over the largest remaining index. acc gets the exact sums. */
static void run_direct(const ez_plan *p, const ez_plan_op *op, const int64_t *A, const int64_t *B,
                       const int64_t *sa, const int64_t *sb, const int64_t *so, const bool *used,
                       const bool *po, int64_t *acc)
{
    unsigned order[EZ_MAX_IDX], n = 0;
    int par = -1, inner = -1;
    for (unsigned i = 0; i < op->nidx; i++) {
        if (!used[i])
            continue;
        if (po[i] && (par < 0 || op->idx_size[i] > op->idx_size[par]))
            par = (int)i;
    }
    for (unsigned i = 0; i < op->nidx; i++) {
        if (!used[i] || (int)i == par)
            continue;
        if (inner < 0 || op->idx_size[i] > op->idx_size[inner] ||
            (op->idx_size[i] == op->idx_size[inner] && (sa[i] == 1 || sb[i] == 1)))
            inner = (int)i;
    }
    for (unsigned i = 0; i < op->nidx; i++)
        if (used[i] && (int)i != par && (int)i != inner)
            order[n++] = i;
    const uint64_t npar = par >= 0 ? op->idx_size[par] : 1;
    const int64_t pa_s = par >= 0 ? sa[par] : 0, pb_s = par >= 0 ? sb[par] : 0;
    const int64_t po_s = par >= 0 ? so[par] : 0;
    const uint64_t nin = inner >= 0 ? op->idx_size[inner] : 1;
    const int64_t ia = inner >= 0 ? sa[inner] : 0, ib = inner >= 0 ? sb[inner] : 0;
    const int64_t io = inner >= 0 ? so[inner] : 0;
    uint64_t nmid = 1;
    for (unsigned j = 0; j < n; j++)
        nmid *= op->idx_size[order[j]];

#pragma omp parallel for schedule(static) if (npar * nmid * nin > 32768)
    for (uint64_t pi = 0; pi < npar; pi++) {
        uint64_t coord[EZ_MAX_IDX] = {0};
        int64_t oa = (int64_t)pi * pa_s, ob = (int64_t)pi * pb_s, oo = (int64_t)pi * po_s;
        for (uint64_t mi = 0; mi < nmid; mi++) {
            if (B == NULL) {
                if (io == 0) {
                    int64_t s = 0;
                    for (uint64_t t = 0; t < nin; t++)
                        s += A[oa + (int64_t)t * ia];
                    acc[oo] += s;
                } else {
                    for (uint64_t t = 0; t < nin; t++)
                        acc[oo + (int64_t)t * io] += A[oa + (int64_t)t * ia];
                }
            } else if (io == 0) {
                int64_t s = 0;
                for (uint64_t t = 0; t < nin; t++)
                    s += A[oa + (int64_t)t * ia] * B[ob + (int64_t)t * ib];
                acc[oo] += s;
            } else {
                for (uint64_t t = 0; t < nin; t++)
                    acc[oo + (int64_t)t * io] += A[oa + (int64_t)t * ia] * B[ob + (int64_t)t * ib];
            }
            /* odometer over the middle indices, last one fastest */
            for (unsigned j = n; j-- > 0;) {
                unsigned i = order[j];
                coord[i]++;
                oa += sa[i], ob += sb[i], oo += so[i];
                if (coord[i] < op->idx_size[i])
                    break;
                oa -= (int64_t)coord[i] * sa[i], ob -= (int64_t)coord[i] * sb[i];
                oo -= (int64_t)coord[i] * so[i];
                coord[i] = 0;
            }
        }
    }
}

/* ---- the op ---------------------------------------------------------------------------- */

/* Where every index of op stands in each operand and the output (strides and presence;
 * B's all absent for a one-operand op), the operands' origins (a fixed axis, a layer
 * slice, just moves them) and the product's index groups: what the integer run and the
 * float reference both read first. */
typedef struct {
    int64_t sa[EZ_MAX_IDX], sb[EZ_MAX_IDX], so[EZ_MAX_IDX], basea, baseb;
    bool pa[EZ_MAX_IDX], pb[EZ_MAX_IDX], po[EZ_MAX_IDX];
    ez_exec_groups g;
} contract_view;

static void contract_view_init(contract_view *v, const ez_plan *p, const ez_plan_op *op)
{
    memset(v, 0, sizeof *v);
    ez_exec_strides(p, op, 0, v->sa, v->pa, &v->basea);
    if (op->nin == 2)
        ez_exec_strides(p, op, 1, v->sb, v->pb, &v->baseb);
    ez_exec_strides(p, op, EZ_EXEC_OUT, v->so, v->po, NULL);
    ez_exec_classify(p, op, v->pa, v->pb, v->po, &v->g);
}

ez_status ez_exec_contract(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const ez_plan_tensor *to = &p->tensors[op->out];
    int64_t *out = c->tr->t[op->out];
    const uint64_t nout = ez_plan_tensor_numel(to);
    contract_view cv;
    contract_view_init(&cv, p, op);
    const int64_t *sa = cv.sa, *sb = cv.sb, *so = cv.so;
    const bool *pa = cv.pa, *pb = cv.pb, *po = cv.po;
    const ez_exec_groups g = cv.g;
    const int64_t *A = c->tr->t[op->in[0]] + cv.basea;
    const int64_t *B = op->nin == 2 ? c->tr->t[op->in[1]] + cv.baseb : NULL;

    /* Bound every partial sum before running: exactness and no int64 overflow. The
     * tensors' declared bounds (checked when set or computed) usually suffice; when
     * they do not, the actual maxima recorded in the trace decide. */
    /* the trace's recorded maxima respect the declared bounds (checked on entry/exit) */
    EZ_VERIFY_CHECK(c->tr->maxabs[op->in[0]] <= p->tensors[op->in[0]].bound);
    EZ_VERIFY_CHECK(B == NULL || c->tr->maxabs[op->in[1]] <= p->tensors[op->in[1]].bound);
    const uint64_t terms = g.K * g.SA * g.SB;
    const uint64_t amul = op->mul < 0 ? -(uint64_t)op->mul : (uint64_t)op->mul;
    uint64_t maxa = p->tensors[op->in[0]].bound;
    uint64_t maxb = B ? p->tensors[op->in[1]].bound : 1;
    for (int pass = 0; pass < 2; pass++) {
        ez_u128 worst = (ez_u128)maxa * maxb;
        bool overflow = worst >= LIMIT62 || (worst * terms) >= LIMIT62 ||
                        (worst * terms) * (amul ? amul : 1) >= LIMIT62;
        bool inexact = !overflow && (ez_u128)maxa * g.SA * maxb * g.SB * g.K > EZ_GEMM_F64_EXACT;
        if (!overflow && !inexact)
            break;
        if (pass == 1) {
            if (!overflow)
                break;
            ez_diag_set(c->d,
                        "contraction '%s' (line %u) could leave the safe range 2^62: max|A| = %" PRIu64
                        ", max|B| = %" PRIu64 ", %" PRIu64 " terms, multiplier %" PRId64,
                        op->label, op->line, maxa, maxb, terms, op->mul);
            return EZ_ERR_NUMERIC;
        }
        /* the whole tensors' maxima (a superset of a layer slice: a valid upper bound),
         * recorded when they were set or computed */
        uint64_t sa_max = c->tr->maxabs[op->in[0]];
        maxa = sa_max < maxa ? sa_max : maxa;
        if (B) {
            uint64_t sb_max = c->tr->maxabs[op->in[1]];
            maxb = sb_max < maxb ? sb_max : maxb;
        }
    }
    c->tr->ops[c->oi].macs = g.B * g.M * g.N * g.K * g.SA * g.SB * g.R;

    int64_t *rem = NULL;
    if (op->shift > 0 && (rem = ez_exec_aux(c, EZ_AUX_REM, nout)) == NULL)
        return EZ_ERR_NOMEM;

    bool packed = B != NULL && g.M >= 4 && g.N >= 4 && g.K >= 8 && g.B * g.M * g.N * g.K >= 16384;
    if (packed) {
        /* packing sums the summed indices first: bound the packed values (the kernel
         * choice needs the actual maxima, recorded in the trace, not the declared
         * bounds: a 24-bit tensor at scale 12 typically holds values below 2^15) */
        uint64_t ta = c->tr->maxabs[op->in[0]], tb = c->tr->maxabs[op->in[1]];
        ta = ta < maxa ? ta : maxa;
        tb = tb < maxb ? tb : maxb;
        ez_u128 pa_max = (ez_u128)ta * g.SA, pb_max = (ez_u128)tb * g.SB;
        /* both < 2^62 after the overflow check above */
        return run_packed(c, &g, A, B, sa, sb, so, (uint64_t)pa_max, (uint64_t)pb_max, rem);
    }

    bool used[EZ_MAX_IDX];
    for (unsigned i = 0; i < op->nidx; i++)
        used[i] = pa[i] || pb[i] || po[i];
    int64_t *acc = ez_alloc_array(nout ? nout : 1, sizeof *acc);
    if (acc == NULL) {
        ez_diag_set(c->d, "out of memory in contraction '%s'", op->label);
        return EZ_ERR_NOMEM;
    }
    run_direct(p, op, A, B, sa, sb, so, used, po, acc);
    const int64_t mul = op->mul;
    const unsigned shift = op->shift;
#pragma omp parallel for schedule(static) if (nout > 65536)
    for (uint64_t i = 0; i < nout; i++) {
        EZ_VERIFY_CHECK(acc[i] < ((int64_t)1 << 62) && acc[i] > -((int64_t)1 << 62));
        int64_t v = acc[i] * mul, r = 0;
        out[i] = shift ? ez_exec_floor_shift(v, shift, &r) : v;
        if (rem)
            rem[i] = r;
    }
    free(acc);
    return EZ_OK;
}

/* ---- the float reference ------------------------------------------------------------ */

typedef struct {
    double *out;
    double c;
    const int64_t *ob, *om, *on, *orr;
    uint64_t nr;
} fstore;

static void fstore_tile(void *ctx, uint64_t b, uint64_t m0, unsigned mr, uint64_t n0, unsigned nr,
                        const double *c)
{
    const fstore *s = ctx;
    for (unsigned i = 0; i < mr; i++)
        for (unsigned j = 0; j < nr; j++) {
            int64_t base = s->ob[b] + s->om[m0 + i] + s->on[n0 + j];
            for (uint64_t q = 0; q < s->nr; q++)
                s->out[base + s->orr[q]] = s->c * c[i * EZ_GEMM_NR + j];
        }
}

ez_status ez_floatref_contract(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    const ez_plan_tensor *to = &p->tensors[op->out];
    contract_view cv;
    contract_view_init(&cv, p, op);
    const int64_t *sa = cv.sa, *sb = cv.sb, *so = cv.so;
    const ez_exec_groups g = cv.g;
    const double *A = ft->t[op->in[0]] + cv.basea;
    const double *B = op->nin == 2 ? ft->t[op->in[1]] + cv.baseb : NULL;
    double *out = ft->t[op->out];
    int sc = (int)p->tensors[op->in[0]].scale + (B ? (int)p->tensors[op->in[1]].scale : 0) -
             (int)op->shift - (int)to->scale;
    const double cst = ldexp((double)op->mul, sc);
    /* Everything is a (batched) product here: a missing B is a K = 1 column of ones,
     * realised by treating the operand's own indices as rows and summing while packing. */
    int64_t *ab = NULL, *am = NULL, *ak = NULL, *as = NULL, *bb = NULL, *bn = NULL, *bk = NULL,
            *bs = NULL, *ob = NULL, *om = NULL, *on = NULL, *orr = NULL;
    double *ap = NULL, *bp = NULL, *ones = NULL;
    ez_status st = EZ_ERR_NOMEM;
    int64_t zero = 0;
    if (ez_exec_group_offsets(&ab, op->idx_size, g.b, g.nb, sa) ||
        ez_exec_group_offsets(&am, op->idx_size, g.m, g.nm, sa) ||
        ez_exec_group_offsets(&ak, op->idx_size, g.k, g.nk, sa) ||
        ez_exec_group_offsets(&as, op->idx_size, g.sa, g.nsa, sa) ||
        ez_exec_group_offsets(&bb, op->idx_size, g.b, g.nb, sb) ||
        ez_exec_group_offsets(&bn, op->idx_size, g.n, g.nn, sb) ||
        ez_exec_group_offsets(&bk, op->idx_size, g.k, g.nk, sb) ||
        ez_exec_group_offsets(&bs, op->idx_size, g.sb, g.nsb, sb) ||
        ez_exec_group_offsets(&ob, op->idx_size, g.b, g.nb, so) ||
        ez_exec_group_offsets(&om, op->idx_size, g.m, g.nm, so) ||
        ez_exec_group_offsets(&on, op->idx_size, g.n, g.nn, so) ||
        ez_exec_group_offsets(&orr, op->idx_size, g.r, g.nr, so))
        goto out;
    uint64_t alen = ez_gemm_apack_len(g.M, g.K) * g.B, blen = ez_gemm_bpack_len(g.N, g.K) * g.B;
    ap = ez_alloc_aligned(alen ? alen : 1, sizeof(double));
    bp = ez_alloc_aligned(blen ? blen : 1, sizeof(double));
    if (ap == NULL || bp == NULL)
        goto out;
    ez_gemm_pack_f64_f64(ap, EZ_GEMM_MR, A, g.B, g.M, g.K, ab, am, ak, as, g.SA);
    if (B) {
        ez_gemm_pack_f64_f64(bp, EZ_GEMM_NR, B, g.B, g.N, g.K, bb, bn, bk, bs, g.SB);
    } else {
        /* N = K = 1 and B == 1: a column of ones */
        ones = ez_alloc_array(1, sizeof(double));
        if (ones == NULL)
            goto out;
        ones[0] = 1.0;
        ez_gemm_pack_f64_f64(bp, EZ_GEMM_NR, ones, g.B, 1, 1, bb, &zero, &zero, &zero, 1);
    }
    fstore s = {.out = out, .c = cst, .ob = ob, .om = om, .on = on, .orr = orr, .nr = g.R};
    st = ez_gemm_f64(g.B, g.M, g.N, g.K, ap, bp, fstore_tile, &s);
out:
    if (st != EZ_OK)
        ez_diag_set(d, "out of memory in the float reference of '%s'", op->label);
    free(ab), free(am), free(ak), free(as), free(bb), free(bn), free(bk), free(bs);
    free(ob), free(om), free(on), free(orr), free(ap), free(bp), free(ones);
    return st;
}
