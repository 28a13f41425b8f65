/* claim — see claim.h. The fan-out merge is the standard "reduce many evaluation claims
 * to one" step of GKR-style provers (Thaler, "Proofs, Arguments, and Zero-Knowledge",
 * §4.5.2, here with a random linear combination and one sumcheck instead of a line
 * through the points, so it works for any number of claims). Protocol text and
 * soundness: docs/protocol-einsum.md. */
#include "config.h"

#include "runtime/prove/claim.h"

#include <stdlib.h>
#include <string.h>

#include "compiler/plan.h"
#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "lib/sumcheck_box.h"

/* Layout loops below this many entries run on one thread. */
#define EZ_CLAIM_PAR_MIN 65536

ez_status ez_claim_init(ez_claim *c, unsigned nvars)
{
    memset(c, 0, sizeof *c);
    if (nvars > 0) {
        c->point = ez_alloc_array(nvars, sizeof(ez_fe2));
        if (!c->point)
            return EZ_ERR_NOMEM;
    }
    c->nvars = nvars;
    return EZ_OK;
}

ez_status ez_claim_set(ez_claim *c, const ez_fe2 *point, unsigned nvars, ez_fe2 value)
{
    ez_status st = ez_claim_init(c, nvars);
    if (st != EZ_OK)
        return st;
    if (nvars > 0)
        memcpy(c->point, point, nvars * sizeof *point);
    c->value = value;
    return EZ_OK;
}

ez_status ez_claim_copy(ez_claim *dst, const ez_claim *src)
{
    return ez_claim_set(dst, src->point, src->nvars, src->value);
}

void ez_claim_clear(ez_claim *c)
{
    if (!c)
        return;
    free(c->point);
    memset(c, 0, sizeof *c);
}

void ez_claim_absorb(ez_transcript *t, const char *label, const ez_claim *c)
{
    /* One record per claim: the length prefix of the point is the record's own, so the
     * u64 nvars is redundant but keeps the record self-describing. */
    ez_transcript_absorb_u64(t, label, c->nvars);
    ez_transcript_absorb_fe2(t, label, c->point, c->nvars);
    ez_transcript_absorb_fe2(t, label, &c->value, 1);
}

unsigned ez_claim_tensor_nvars(const uint64_t *dims, unsigned rank)
{
    unsigned n = 0;
    for (unsigned a = 0; a < rank; a++)
        n += ez_log2_ceil(dims[a]);
    return n;
}

/* ---- lists ----------------------------------------------------------------------------- */

void ez_claim_list_init(ez_claim_list *l)
{
    memset(l, 0, sizeof *l);
}

void ez_claim_list_clear(ez_claim_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        ez_claim_clear(&l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

static ez_status list_grow(ez_claim_list *l)
{
    ez_claim *room = ez_array_room(l->items, l->n, &l->cap, sizeof *room, 4);
    if (room == NULL)
        return EZ_ERR_NOMEM;
    l->items = room;
    return EZ_OK;
}

ez_status ez_claim_list_add(ez_claim_list *l, const ez_claim *c)
{
    ez_status st = list_grow(l);
    if (st != EZ_OK)
        return st;
    st = ez_claim_copy(&l->items[l->n], c);
    if (st != EZ_OK)
        return st;
    l->n++;
    return EZ_OK;
}

ez_status ez_claim_list_add_owned(ez_claim_list *l, ez_claim *c)
{
    ez_status st = list_grow(l);
    if (st != EZ_OK)
        return st;
    l->items[l->n++] = *c;
    memset(c, 0, sizeof *c);
    return EZ_OK;
}

/* ---- layout ------------------------------------------------------------------------------ */

/* Rows are all axes but the last; each row's destination base is recomputed from its
 * row number (at most 7 divisions), so rows are independent and parallel. */
static inline uint64_t row_base(uint64_t row, const uint64_t *dims, unsigned rank, const uint64_t *stride)
{
    uint64_t base = 0;
    for (unsigned a = rank - 1; a-- > 0;) {
        base += (row % dims[a]) * stride[a];
        row /= dims[a];
    }
    return base;
}

static uint64_t layout_rows(const uint64_t *dims, unsigned rank)
{
    uint64_t rows = 1;
    for (unsigned a = 0; a + 1 < rank; a++)
        rows *= dims[a];
    return rows;
}

/* The layout's walk, once for both element types (C has no generics): row-major src[]
 * element (row, j) goes to dst[row_base(row) + j * stride[rank - 1]] as ELEM(value). */
#define LAYOUT_WALK(dst, src, dims, rank, stride, ELEM)                                                        \
    do {                                                                                                       \
        if ((rank) == 0) {                                                                                     \
            (dst)[0] = ELEM((src)[0]);                                                                         \
            break;                                                                                             \
        }                                                                                                      \
        const uint64_t inner = (dims)[(rank)-1], is = (stride)[(rank)-1], rows = layout_rows(dims, rank);      \
        _Pragma("omp parallel for schedule(static) if (rows * inner >= EZ_CLAIM_PAR_MIN)")                   \
        for (uint64_t row = 0; row < rows; row++) {                                                            \
            uint64_t base = row_base(row, dims, rank, stride);                                                 \
            for (uint64_t j = 0; j < inner; j++)                                                               \
                (dst)[base + j * is] = ELEM((src)[row * inner + j]);                                           \
        }                                                                                                      \
    } while (0)

#define AS_IS(x) (x)

void ez_claim_layout_i64(ez_fe *dst, const int64_t *src, const uint64_t *dims, unsigned rank,
                         const uint64_t *stride)
{
    LAYOUT_WALK(dst, src, dims, rank, stride, ez_fe_from_i64);
}

void ez_claim_layout_fe2(ez_fe2 *dst, const ez_fe2 *src, const uint64_t *dims, unsigned rank,
                         const uint64_t *stride)
{
    LAYOUT_WALK(dst, src, dims, rank, stride, AS_IS);
}

/* ---- fan-out merge ------------------------------------------------------------------------ */

/* Both sides' first step: out zeroed (when there is one), then the side's own argument
 * checks (args_ok) and the claims against nv, the tensor's variable count. *done when one
 * claim is the whole merge (out is its copy: no proof). */
static ez_status merge_begin(ez_claim *out, bool args_ok, unsigned nv, const ez_claim *claims, size_t n, bool *done)
{
    *done = false;
    if (!out)
        return EZ_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!args_ok || !claims || n == 0 || nv > EZ_SC_MAX_VARS)
        return EZ_ERR_INVALID;
    for (size_t i = 0; i < n; i++)
        if (claims[i].nvars != nv || (nv > 0 && !claims[i].point))
            return EZ_ERR_INVALID;
    *done = n == 1;
    return n == 1 ? ez_claim_copy(out, &claims[0]) : EZ_OK;
}

/* The transcript prefix both sides share: the statement, then the combination
 * coefficients. Returns sum_i lambda_i v_i. */
static ez_fe2 merge_start(ez_transcript *t, const ez_claim *claims, size_t n, ez_fe2 *lambda)
{
    ez_transcript_absorb_u64(t, "claim/merge/n", n);
    for (size_t i = 0; i < n; i++)
        ez_claim_absorb(t, "claim/merge/claim", &claims[i]);
    ez_transcript_challenges_fe2(t, "claim/merge/lambda", lambda, n);
    ez_fe2 sum = ez_fe2_zero();
    for (size_t i = 0; i < n; i++)
        sum = ez_fe2_add(sum, ez_fe2_mul(lambda[i], claims[i].value));
    return sum;
}

static void merge_desc(ez_sumcheck_desc *d, unsigned nv)
{
    /* factor 0 = W (ext), factor 1 = T (base); one term W * T; no eq factor. */
    ez_sumcheck_desc_init(d, nv, 2);
}

/* The tensor as a sumcheck box (per axis its variables and extent); returns its entry
 * count, zero padded per axis (padded) or the real entries. */
static uint64_t merge_box(ez_sumcheck_box *box, const uint64_t *dims, unsigned rank, bool padded)
{
    uint64_t numel = 1;
    box->nblocks = rank;
    for (unsigned a = 0; a < rank; a++) {
        box->bits[a] = ez_log2_ceil(dims[a]);
        box->ext[a] = dims[a];
        numel *= padded ? UINT64_C(1) << box->bits[a] : dims[a];
    }
    return numel;
}

uint64_t ez_claim_merge_work(const uint64_t *dims, unsigned rank, size_t n, bool padded)
{
    ez_sumcheck_box box;
    const uint64_t numel = merge_box(&box, dims, rank, padded);
    uint64_t sc = rank ? ez_sumcheck_box_touched(&box, padded) : 1;
    return (uint64_t)n * numel + sc;
}

/* W[x] += lambda * eq(r, x) for every REAL index x of the tensor (row-major, compact):
 * per-axis eq tables, a prefix product per row, one multiply per entry. */
static ez_status add_eq_compact(ez_fe2 *w, const uint64_t *dims, unsigned rank, const ez_fe2 *r, ez_fe2 lambda)
{
    unsigned nv[EZ_MAX_RANK], off[EZ_MAX_RANK], total = 0;
    size_t tabsz = 0;
    for (unsigned a = 0; a < rank; a++) {
        nv[a] = ez_log2_ceil(dims[a]);
        off[a] = total;
        total += nv[a];
        tabsz += (size_t)1 << nv[a];
    }
    ez_fe2 *tab = ez_alloc_aligned(tabsz ? tabsz : 1, sizeof *tab), *ta[EZ_MAX_RANK];
    if (!tab)
        return EZ_ERR_NOMEM;
    for (unsigned a = 0, o = 0; a < rank; a++) {
        ta[a] = tab + o;
        ez_eq_table(ta[a], r + off[a], nv[a]);
        o += 1u << nv[a];
    }
    const uint64_t inner = dims[rank - 1], rows = layout_rows(dims, rank);
    /* A claim at a point with boolean coordinates (a lookup column's piece: its fixed
     * bits) has eq(r, x) = 0 off its subcube: the rows and entries whose eq factor is
     * zero add nothing and are skipped (the same W; a GPT-2 score tensor's 31 piece
     * claims then cost their pieces, not 31 times the tensor). */
    const ez_fe2 *last = ta[rank - 1];
#pragma omp parallel for schedule(static) if (rows * inner >= EZ_CLAIM_PAR_MIN)
    for (uint64_t row = 0; row < rows; row++) {
        ez_fe2 pre = lambda;
        uint64_t rest = row;
        for (unsigned a = rank - 1; a-- > 0;) {
            pre = ez_fe2_mul(pre, ta[a][rest % dims[a]]);
            rest /= dims[a];
        }
        if (ez_fe2_is_zero(pre))
            continue;
        ez_fe2 *dst = w + row * inner;
        for (uint64_t j = 0; j < inner; j++)
            if (!ez_fe2_is_zero(last[j]))
                dst[j] = ez_fe2_add(dst[j], ez_fe2_mul(pre, last[j]));
    }
    free(tab);
    return EZ_OK;
}

ez_status ez_claim_merge_prove(ez_transcript *t, const int64_t *data, const uint64_t *dims, unsigned rank,
                               const ez_claim *claims, size_t n, ez_writer *proof, ez_claim *out)
{
    return ez_claim_merge_prove_ex(t, data, dims, rank, claims, n, false, proof, out, NULL);
}

/* Zero the entries of w[0 .. len) (indices x0 .. x0 + len of the padded layout) that are
 * padding of some axis: W is zero there, like T. */
static void weights_unpad(ez_fe2 *w, uint64_t x0, size_t len, const uint64_t *dims, unsigned rank)
{
    for (size_t j = 0; j < len; j++) {
        uint64_t x = x0 + j;
        unsigned sh = 0;
        bool real = true;
        for (unsigned a = rank; a-- > 0;) {
            unsigned b = ez_log2_ceil(dims[a]);
            real = real && ((x >> sh) & ((UINT64_C(1) << b) - 1)) < dims[a];
            sh += b;
        }
        if (!real)
            w[j] = ez_fe2_zero();
    }
}

/* The merge's weights of at least this many entries are built by blocks in one parallel
 * region: the walk's tensors (2^12-2^14 entries, two to four claims each) were built
 * one eq table and one serial sum per claim. */
#define EZ_CLAIM_W_PAR_MIN 4096
#define EZ_CLAIM_W_SPLIT_BITS 4

/* Dense W = sum_i lambda_i eq(r_i, .) over 2^nv entries (zero on the padding when pad):
 * eq(r, (c, y)) = eq(r_top, c) eq(r_low, y), so each block c of the top
 * EZ_CLAIM_W_SPLIT_BITS variables is the sum of the claims' low tables, each scaled by
 * lambda_i eq(r_i,top, c): the blocks are independent, one region for all claims. The
 * field is exact, so W is the same whatever the split. eq: 2^nv entries of scratch. */
static ez_status merge_weights(ez_fe2 *w, ez_fe2 *eq, const ez_claim *claims, const ez_fe2 *lambda, size_t n,
                               unsigned nv, const uint64_t *dims, unsigned rank, bool pad)
{
    const size_t size = (size_t)1 << nv;
    if (size < EZ_CLAIM_W_PAR_MIN) {
        for (size_t i = 0; i < n; i++) {
            /* lambda_i eq(r_i, .) built scaled: the first claim's straight into W */
            ez_eq_table_scaled(i == 0 ? w : eq, claims[i].point, nv, lambda[i]);
            for (size_t x = 0; i > 0 && x < size; x++)
                w[x] = ez_fe2_add(w[x], eq[x]);
        }
        if (pad)
            weights_unpad(w, 0, size, dims, rank);
        return EZ_OK;
    }
    const unsigned hb = EZ_CLAIM_W_SPLIT_BITS, low = nv - hb;
    const size_t nblk = (size_t)1 << hb, blk = (size_t)1 << low;
    ez_fe2 *top = ez_alloc_array(n << hb, sizeof *top);
    if (top == NULL)
        return EZ_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        ez_eq_table_scaled(top + (i << hb), claims[i].point, hb, lambda[i]);
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < nblk; c++) {
        ez_fe2 *wc = w + c * blk, *ec = eq + c * blk; /* block c of the scratch: this thread's */
        for (size_t i = 0; i < n; i++) {
            ez_eq_table_scaled(i == 0 ? wc : ec, claims[i].point + hb, low, top[(i << hb) + c]);
            for (size_t x = 0; i > 0 && x < blk; x++)
                wc[x] = ez_fe2_add(wc[x], ec[x]);
        }
        if (pad)
            weights_unpad(wc, (uint64_t)c * blk, blk, dims, rank);
    }
    free(top);
    return EZ_OK;
}

ez_status ez_claim_merge_prove_ex(ez_transcript *t, const int64_t *data, const uint64_t *dims, unsigned rank,
                                  const ez_claim *claims, size_t n, bool dense, ez_writer *proof, ez_claim *out,
                                  uint64_t *touched)
{
    ez_status st = EZ_OK;
    ez_fe2 *lambda = NULL, *w = NULL, *eq = NULL;
    ez_fe *tab = NULL;
    ez_sumcheck_proof sp;
    memset(&sp, 0, sizeof sp);
    bool args_ok = t && data && (rank == 0 || dims) && rank <= EZ_MAX_RANK && proof, done;
    for (unsigned a = 0; a < rank && args_ok; a++)
        args_ok = dims[a] != 0;
    const unsigned nv = args_ok ? ez_claim_tensor_nvars(dims, rank) : 0;
    if ((st = merge_begin(out, args_ok, nv, claims, n, &done)) != EZ_OK || done)
        return st;

    /* The tables: dense (2^nv, zero padded) or compact (the real entries, row-major) —
     * the same sums, so the same proof (lib/sumcheck_box.h). */
    ez_sumcheck_box box;
    const uint64_t numel = merge_box(&box, dims, rank, false);
    const bool compact = !dense && rank > 0 && numel < (UINT64_C(1) << nv);
    const size_t size = compact ? (size_t)numel : (size_t)1 << nv;
    lambda = ez_alloc_array(n, sizeof *lambda);
    tab = ez_alloc_array(size, sizeof *tab); /* zero: the padding */
    w = ez_alloc_array(size, sizeof *w);
    eq = compact ? NULL : ez_alloc_aligned(size, sizeof *eq);
    if (!lambda || !tab || !w || (!compact && !eq)) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    ez_fe2 sum = merge_start(t, claims, n, lambda);

    /* T padded per axis (axis a's stride is 2^(variables of the later axes)), or compact */
    uint64_t stride[EZ_MAX_RANK];
    unsigned low = 0;
    uint64_t cs = 1;
    for (unsigned a = rank; a-- > 0;) {
        stride[a] = compact ? cs : UINT64_C(1) << low;
        low += ez_log2_ceil(dims[a]);
        cs *= dims[a];
    }
    ez_claim_layout_i64(tab, data, dims, rank, stride);

    /* W = sum_i lambda_i eq(r_i, .) */
    if (compact)
        for (size_t i = 0; i < n && st == EZ_OK; i++)
            st = add_eq_compact(w, dims, rank, claims[i].point, lambda[i]);
    else
        st = merge_weights(w, eq, claims, lambda, n, nv, dims, rank, numel < size);
    if (st != EZ_OK)
        goto out;
    if (touched)
        *touched += (uint64_t)n * size;

    ez_sumcheck_desc d;
    merge_desc(&d, nv);
    ez_sumcheck_factor f[2] = {{NULL, w}, {tab, NULL}};
    ez_fe2 pt[EZ_SC_MAX_VARS], ev[2];
    if (compact) {
        st = ez_sumcheck_prove_box(t, &d, NULL, NULL, &box, f, sum, &sp, pt, ev, touched);
    } else {
        st = ez_sumcheck_prove(t, &d, NULL, NULL, f, sum, &sp, pt, ev);
        if (touched)
            *touched += nv ? (UINT64_C(2) << nv) - 2 : 1;
    }
    if (st != EZ_OK)
        goto out;
    ez_sumcheck_proof_write(proof, &sp);
    if (proof->failed) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    st = ez_claim_set(out, pt, nv, ev[1]);
out:
    ez_sumcheck_proof_clear(&sp);
    free(lambda);
    free(tab);
    free(w);
    free(eq);
    return st;
}

ez_status ez_claim_merge_verify(ez_transcript *t, const uint64_t *dims, unsigned rank, const ez_claim *claims,
                                size_t n, ez_reader *proof, ez_claim *out)
{
    const unsigned nvars = ez_claim_tensor_nvars(dims, rank);
    ez_status st = EZ_OK;
    ez_fe2 *lambda = NULL;
    ez_sumcheck_proof sp;
    memset(&sp, 0, sizeof sp);
    bool done;
    if ((st = merge_begin(out, t && proof, nvars, claims, n, &done)) != EZ_OK || done)
        return st;

    lambda = ez_alloc_array(n, sizeof *lambda);
    if (!lambda)
        return EZ_ERR_NOMEM;
    ez_fe2 sum = merge_start(t, claims, n, lambda);
    ez_sumcheck_desc d;
    merge_desc(&d, nvars);
    if ((st = ez_sumcheck_proof_read(proof, &d, &sp)) != EZ_OK)
        goto out;
    ez_fe2 pt[EZ_SC_MAX_VARS], ev[2];
    if ((st = ez_sumcheck_verify(t, &d, NULL, NULL, sum, &sp, pt, ev)) != EZ_OK)
        goto out;
    /* The W evaluation is a prover message like any other: recompute it (public: the
     * lambdas and the claim points) and reject a mismatch. */
    ez_fe2 wp = ez_fe2_zero();
    for (size_t i = 0; i < n; i++) {
        /* W = sum_i lambda_i eq(r_i, .) on the real entries, 0 on the padding: per axis
         * sum_{x < d_a} eq(r_i,a, x) eq(p_a, x) */
        ez_fe2 e = ez_fe2_one();
        for (unsigned a = 0, off = 0; a < rank; a++) {
            unsigned b = ez_log2_ceil(dims[a]);
            e = ez_fe2_mul(e, ez_mle_prefix_dot(claims[i].point + off, pt + off, b, dims[a]));
            off += b;
        }
        wp = ez_fe2_add(wp, ez_fe2_mul(lambda[i], e));
    }
    st = ez_fe2_eq(wp, ev[0]) ? ez_claim_set(out, pt, nvars, ev[1]) : EZ_ERR_REJECT;
out:
    ez_sumcheck_proof_clear(&sp);
    free(lambda);
    return st;
}
