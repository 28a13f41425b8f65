/* contraction — see contraction.h; protocol and soundness in docs/protocol-einsum.md.
 * Steps are numbered as there:
 *   1. rescale: acc~(r) = 2^shift v + R~(r), rho = R~(r) sent by the prover;
 *   2. index classes; 3. broadcast factor beta (closed form, divided out);
 *   4. free / summed axes folded into the operands (A'', B'');
 *   5. one sumcheck over the batch + contracted variables (eq factor on batch);
 *   6. the sumcheck's evaluations become the operand claims. */
#include "config.h"

#include "runtime/prove/contraction.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "lib/sumcheck_box.h"

/* The plan's limit on tensor sizes (compiler/schedule.h: numel <= 2^40); it keeps every
 * per-index variable count <= 40. */
#define EZ_EINSUM_MAX_EXTENT (UINT64_C(1) << 40)

/* 1/2 in F_p: (p + 1) / 2. */
#define EZ_HALF ((EZ_P + 1) / 2)

/* Everything both sides derive from the op alone. */
typedef struct {
    unsigned nin;
    unsigned rank[2];                /* operand ranks */
    size_t dims[2][EZ_MAX_RANK];     /* operand extents */
    unsigned out_rank;
    size_t out_dims[EZ_MAX_RANK];
    ez_idx_class cls[EZ_MAX_IDX];
    unsigned nv[EZ_MAX_IDX];         /* ceil(log2 size) */
    unsigned out_off[EZ_MAX_IDX];    /* the index's block in the output point (if in C) */
    unsigned sc_off[EZ_MAX_IDX];     /* its block in the sumcheck point (batch/contracted) */
    unsigned nbind, bind[EZ_MAX_IDX];
    unsigned nvars;                  /* sumcheck variables */
    uint64_t eq_mask;                /* sumcheck variables of batch indices */
    unsigned summed_nv;              /* variables of summed-A and summed-B indices */
    unsigned out_nv, in_nv[2];
} es_shape;

static bool is_sc(ez_idx_class c)
{
    return c == EZ_IDX_BATCH || c == EZ_IDX_CONTRACTED;
}

static bool is_summed(ez_idx_class c)
{
    return c == EZ_IDX_SUMMED_A || c == EZ_IDX_SUMMED_B;
}

/* Record one tensor's axes: extents must match idx_size, no index twice. */
static bool read_axes(const ez_plan_op *op, const ez_plan_tensor *tn, const unsigned *axes, size_t *dims,
                      bool *seen)
{
    bool mine[EZ_MAX_IDX] = {false};
    if (tn->rank > EZ_MAX_RANK)
        return false;
    for (unsigned a = 0; a < tn->rank; a++) {
        unsigned i = axes[a];
        if (i >= op->nidx || mine[i] || tn->dims[a] != op->idx_size[i] || tn->dims[a] == 0)
            return false;
        mine[i] = seen[i] = true;
        dims[a] = (size_t)tn->dims[a];
    }
    return true;
}

static ez_status shape_build(const ez_plan_op *op, const ez_plan_tensor *tensors, es_shape *s)
{
    memset(s, 0, sizeof *s);
    if (!op || !tensors || op->kind != EZ_OP_EINSUM || op->nin < 1 || op->nin > 2 || op->nidx > EZ_MAX_IDX ||
        op->mul == 0 || op->shift > 62)
        return EZ_ERR_INVALID;
    s->nin = op->nin;
    bool in_k[2][EZ_MAX_IDX] = {{false}}, in_o[EZ_MAX_IDX] = {false};
    for (unsigned k = 0; k < op->nin; k++) {
        const ez_plan_tensor *tn = &tensors[op->in[k]];
        if (!read_axes(op, tn, op->in_axes[k], s->dims[k], in_k[k]))
            return EZ_ERR_INVALID;
        s->rank[k] = tn->rank;
    }
    const ez_plan_tensor *to = &tensors[op->out];
    if (!read_axes(op, to, op->out_axes, s->out_dims, in_o))
        return EZ_ERR_INVALID;
    s->out_rank = to->rank;

    /* 2. classes: the plan's EqSchedule (decided once by compiler/schedule.c and checked
     * against the equation whenever a plan is read, ez_plan_validate); here only that
     * each class fits the operands the index appears in, so a bad plan cannot index out
     * of bounds */
    for (unsigned i = 0; i < op->nidx; i++) {
        bool a = in_k[0][i], b = in_k[1][i], c = in_o[i];
        s->cls[i] = op->sched.cls[i];
        bool fits;
        switch (s->cls[i]) {
        case EZ_IDX_BATCH: fits = a && b && c; break;
        case EZ_IDX_CONTRACTED: fits = a && b && !c; break;
        case EZ_IDX_FREE_A: fits = a && !b && c; break;
        case EZ_IDX_FREE_B: fits = !a && b && c; break;
        case EZ_IDX_SUMMED_A: fits = a && !b && !c; break;
        case EZ_IDX_SUMMED_B: fits = !a && b && !c; break;
        case EZ_IDX_BROADCAST: fits = !a && !b && c; break;
        default: fits = false;
        }
        if (!fits)
            return EZ_ERR_INVALID;
        if (op->idx_size[i] == 0 || op->idx_size[i] > EZ_EINSUM_MAX_EXTENT)
            return EZ_ERR_INVALID;
        s->nv[i] = ez_log2_ceil(op->idx_size[i]);
        if (is_summed(s->cls[i]))
            s->summed_nv += s->nv[i];
    }
    for (unsigned a = 0; a < to->rank; a++) {
        s->out_off[op->out_axes[a]] = s->out_nv;
        s->out_nv += s->nv[op->out_axes[a]];
    }
    for (unsigned k = 0; k < op->nin; k++)
        for (unsigned a = 0; a < s->rank[k]; a++)
            s->in_nv[k] += s->nv[op->in_axes[k][a]];

    /* Bind order: the plan's when filled (it must be exactly the sumcheck indices),
     * else operand A's axis order. */
    unsigned nsc = 0;
    for (unsigned i = 0; i < op->nidx; i++)
        nsc += is_sc(s->cls[i]);
    if (op->sched.nbind > 0) {
        bool used[EZ_MAX_IDX] = {false};
        if (op->sched.nbind != nsc)
            return EZ_ERR_INVALID;
        for (unsigned j = 0; j < nsc; j++) {
            unsigned i = op->sched.bind_order[j];
            if (i >= op->nidx || used[i] || !is_sc(s->cls[i]))
                return EZ_ERR_INVALID;
            used[i] = true;
            s->bind[j] = i;
        }
    } else {
        for (unsigned a = 0; a < s->rank[0]; a++)
            if (is_sc(s->cls[op->in_axes[0][a]]))
                s->bind[s->nbind++] = op->in_axes[0][a];
    }
    s->nbind = nsc;
    for (unsigned j = 0; j < nsc; j++) {
        unsigned i = s->bind[j];
        s->sc_off[i] = s->nvars;
        if (s->cls[i] == EZ_IDX_BATCH)
            for (unsigned b = 0; b < s->nv[i]; b++)
                s->eq_mask |= UINT64_C(1) << (s->nvars + b);
        s->nvars += s->nv[i];
        if (s->nvars > EZ_SC_MAX_VARS)
            return EZ_ERR_INVALID;
    }
    return EZ_OK;
}

/* Steps 1 and 3: the claim on acc' (acc with the broadcast factor divided out) and the
 * coefficient c = mul * 2^(summed vars) of the folded product. EZ_ERR_REJECT if the
 * broadcast factor vanishes at r. */
static ez_status reduce_claim(const ez_plan_op *op, const es_shape *s, const ez_claim *out, ez_fe2 rho,
                              ez_fe2 *claim, ez_fe2 *coef)
{
    ez_fe2 acc = ez_fe2_add(ez_fe2_mul_fe(out->value, ez_fe_pow(2, op->shift)), rho);
    ez_fe2 beta = ez_fe2_one();
    for (unsigned i = 0; i < op->nidx; i++)
        if (s->cls[i] == EZ_IDX_BROADCAST)
            beta = ez_fe2_mul(beta, ez_mle_prefix(out->point + s->out_off[i], s->nv[i], op->idx_size[i]));
    if (ez_fe2_is_zero(beta))
        return EZ_ERR_REJECT;
    *claim = ez_fe2_mul(acc, ez_fe2_inv(beta));
    *coef = ez_fe2_from_fe(ez_fe_mul(ez_fe_from_i64(op->mul), ez_fe_pow(2, s->summed_nv)));
    return EZ_OK;
}

static void sc_desc(const es_shape *s, ez_sumcheck_desc *d)
{
    /* factor 0 = A'', factor 1 = B''; one term A'' B''; variables in bind layout and
     * bound in that order (identity), MSB first inside each index. */
    ez_sumcheck_desc_init(d, s->nvars, 2);
    d->eq_vars = s->eq_mask;
}

/* r's blocks of the batch indices in bind order = the eq point, by increasing variable. */
static void eq_point(const es_shape *s, const ez_claim *out, ez_fe2 *ep)
{
    unsigned n = 0;
    for (unsigned j = 0; j < s->nbind; j++) {
        unsigned i = s->bind[j];
        if (s->cls[i] == EZ_IDX_BATCH)
            for (unsigned b = 0; b < s->nv[i]; b++)
                ep[n++] = out->point[s->out_off[i] + b];
    }
}

/* Step 6: operand k's claim point, per axis: batch/contracted -> the sumcheck point's
 * block, free -> r's block, summed -> (1/2, ..., 1/2). */
static ez_status operand_claim(const ez_plan_op *op, const es_shape *s, unsigned k, const ez_claim *out,
                               const ez_fe2 *pt, ez_fe2 value, ez_claim *c)
{
    ez_status st = ez_claim_init(c, s->in_nv[k]);
    if (st != EZ_OK)
        return st;
    unsigned off = 0;
    for (unsigned a = 0; a < s->rank[k]; a++) {
        unsigned i = op->in_axes[k][a];
        for (unsigned b = 0; b < s->nv[i]; b++) {
            ez_fe2 x;
            if (is_sc(s->cls[i]))
                x = pt[s->sc_off[i] + b];
            else if (is_summed(s->cls[i]))
                x = ez_fe2_from_fe(EZ_HALF);
            else
                x = out->point[s->out_off[i] + b];
            c->point[off++] = x;
        }
    }
    c->value = value;
    return EZ_OK;
}

/* Both sides, once rho (the remainder's MLE at the output point, a rescaled op's) is
 * exchanged and absorbed: the claim on the remainder, then reduce_claim; for one operand
 * (no sumcheck variables: acc'(r) = c * A''(), A''() being A's MLE at its point) also the
 * operand's claim, and *done. */
static ez_status rem_then_claim(const ez_plan_op *op, const es_shape *s, const ez_claim *out_claim, ez_fe2 rho,
                                ez_claim *rem_claim, ez_claim *in_claims, ez_fe2 *claim, ez_fe2 *coef, bool *done)
{
    *done = false;
    ez_status st = EZ_OK;
    if (op->shift > 0 && (st = ez_claim_set(rem_claim, out_claim->point, s->out_nv, rho)) != EZ_OK)
        return st;
    if ((st = reduce_claim(op, s, out_claim, rho, claim, coef)) != EZ_OK || s->nin != 1)
        return st;
    *done = true;
    return operand_claim(op, s, 0, out_claim, NULL, ez_fe2_mul(*claim, ez_fe2_inv(*coef)), &in_claims[0]);
}

static ez_status args_check(const ez_plan_op *op, const es_shape *s, const ez_claim *out_claim,
                            ez_claim *in_claims, ez_claim *rem_claim)
{
    if (!out_claim || !in_claims || (op->shift > 0 && !rem_claim) || out_claim->nvars != s->out_nv ||
        (s->out_nv > 0 && !out_claim->point))
        return EZ_ERR_INVALID;
    return EZ_OK;
}

static void zero_outputs(const ez_plan_op *op, ez_claim *in_claims, ez_claim *rem_claim)
{
    if (in_claims && op)
        for (unsigned k = 0; k < op->nin && k < 2; k++)
            memset(&in_claims[k], 0, sizeof in_claims[k]);
    if (rem_claim && op && op->shift > 0)
        memset(rem_claim, 0, sizeof *rem_claim);
}

static void clear_outputs(const ez_plan_op *op, ez_claim *in_claims, ez_claim *rem_claim)
{
    for (unsigned k = 0; k < op->nin; k++)
        ez_claim_clear(&in_claims[k]);
    if (op->shift > 0)
        ez_claim_clear(rem_claim);
}

/* ---- prover --------------------------------------------------------------------------- */

/* A tensor's MLE at point from int64 data (rank 0: the value). */
static ez_status mle_i64(const int64_t *data, const size_t *dims, unsigned rank, const ez_fe2 *point,
                         ez_fe2 *out)
{
    size_t n = 1;
    for (unsigned a = 0; a < rank; a++)
        n *= dims[a];
    if (rank == 0) {
        *out = ez_fe2_from_fe(ez_fe_from_i64(data[0]));
        return EZ_OK;
    }
    ez_fe *f = ez_alloc_aligned(n, sizeof *f);
    if (!f)
        return EZ_ERR_NOMEM;
#pragma omp parallel for schedule(static) if (n >= 65536)
    for (size_t i = 0; i < n; i++)
        f[i] = ez_fe_from_i64(data[i]);
    *out = ez_mle_eval_tensor_fe(f, dims, rank, point);
    free(f);
    return EZ_OK;
}

/* The box of the sumcheck tables: one block per bind-order index, its variables and real
 * extent (lib/sumcheck_box.h). */
static void sc_box(const ez_plan_op *op, const es_shape *s, ez_sumcheck_box *box)
{
    box->nblocks = s->nbind;
    for (unsigned j = 0; j < s->nbind; j++) {
        box->bits[j] = s->nv[s->bind[j]];
        box->ext[j] = op->idx_size[s->bind[j]];
    }
}

/* Operand k's entries as field elements, over its real extents (dims) or, dense, zero
 * padded to a power of two per axis (pdims). Returns the allocation (caller frees). */
static ez_fe *operand_fe(const es_shape *s, unsigned k, const int64_t *data, bool dense, size_t *dims, size_t *numel)
{
    uint64_t d64[EZ_MAX_RANK], stride[EZ_MAX_RANK];
    size_t n = 1;
    for (unsigned a = s->rank[k]; a-- > 0;) {
        d64[a] = s->dims[k][a];
        dims[a] = dense ? (size_t)1 << ez_log2_ceil(s->dims[k][a]) : s->dims[k][a];
        stride[a] = n;
        n *= dims[a];
    }
    ez_fe *f = dense ? ez_alloc_array(n ? n : 1, sizeof *f) : ez_alloc_aligned(n ? n : 1, sizeof *f);
    if (f)
        ez_claim_layout_i64(f, data, d64, s->rank[k], stride);
    *numel = n;
    return f;
}

/* Step 4: operand k as a sumcheck factor over the bind layout,
 * A''(b, c) = sum_{free f} eq(r_f, f) sum_{summed s} 2^{-nv_s} A(b, c, f, s), i.e. the
 * free axes folded at r's blocks and the summed axes at (1/2, ..). COMPACT (the einsum
 * strategy): the table is row-major over the REAL extents of the bind indices and the
 * folds read real entries only; dense: 2^nvars entries, zero padded, folded from the
 * operand padded per axis (how a prover that pads its tensors works). Without any axis
 * to fold the factor stays in the base field. Allocates *base or *ext (caller frees);
 * adds the operand entries read to *reads. */
static ez_status build_factor(const ez_plan_op *op, const es_shape *s, unsigned k, const int64_t *data,
                              const ez_claim *out, bool dense, ez_fe **base, ez_fe2 **ext, uint64_t *reads)
{
    ez_status st = EZ_OK;
    ez_fe *conv = NULL;
    ez_fe2 *folded = NULL;
    const unsigned rank = s->rank[k];
    ez_fe2 halves[40];
    for (unsigned b = 0; b < 40; b++)
        halves[b] = ez_fe2_from_fe(EZ_HALF);

    /* The table: per bind index its extent in the layout (real, or 2^nv dense), strides
     * row-major in bind order. */
    uint64_t bstride[EZ_MAX_IDX];
    size_t size = 1;
    for (unsigned j = s->nbind; j-- > 0;) {
        unsigned i = s->bind[j];
        bstride[i] = size;
        size *= dense ? (size_t)1 << s->nv[i] : (size_t)op->idx_size[i];
    }

    /* Per axis: its fold point (NULL = kept) and its stride in the table. */
    const ez_fe2 *points[EZ_MAX_RANK];
    uint64_t stride[EZ_MAX_RANK], kdims[EZ_MAX_RANK], kstride[EZ_MAX_RANK];
    unsigned nkept = 0;
    bool fold = false;
    size_t kept_numel = 1;
    for (unsigned a = 0; a < rank; a++) {
        unsigned i = op->in_axes[k][a];
        if (is_sc(s->cls[i])) {
            points[a] = NULL;
            stride[a] = bstride[i];
            kdims[nkept] = s->dims[k][a];
            kstride[nkept++] = stride[a];
            kept_numel *= s->dims[k][a];
        } else {
            points[a] = is_summed(s->cls[i]) ? halves : out->point + s->out_off[i];
            stride[a] = 0;
            fold = fold || s->dims[k][a] > 1;
        }
    }

    if (!fold) {
        /* every non-kept axis has extent 1: a pure relayout of the base values */
        *base = ez_alloc_array(size, sizeof **base);
        if (!*base)
            return EZ_ERR_NOMEM;
        uint64_t d64[EZ_MAX_RANK];
        for (unsigned a = 0; a < rank; a++)
            d64[a] = s->dims[k][a];
        ez_claim_layout_i64(*base, data, d64, rank, stride);
        *reads += dense ? size : kept_numel;
        return EZ_OK;
    }

    size_t cdims[EZ_MAX_RANK], cnumel;
    if ((conv = operand_fe(s, k, data, dense, cdims, &cnumel)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    *reads += cnumel;
    /* dense: the kept axes of the padded operand are 2^nv long */
    if (dense)
        for (unsigned j = 0; j < nkept; j++)
            kdims[j] = (uint64_t)1 << ez_log2_ceil(kdims[j]);
    kept_numel = 1;
    for (unsigned j = 0; j < nkept; j++)
        kept_numel *= kdims[j];
    /* If the kept axes are already the table's layout (in bind order), fold straight
     * into the factor. */
    bool direct = kept_numel == size;
    for (unsigned j = 0; direct && j < nkept; j++) {
        uint64_t natural = 1;
        for (unsigned l = j + 1; l < nkept; l++)
            natural *= kdims[l];
        direct = kstride[j] == natural;
    }
    *ext = ez_alloc_array(size, sizeof **ext);
    if (!*ext) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if (direct) {
        st = ez_mle_fold_fe(*ext, conv, cdims, rank, points);
        goto out;
    }
    folded = ez_alloc_aligned(kept_numel, sizeof *folded);
    if (!folded) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if ((st = ez_mle_fold_fe(folded, conv, cdims, rank, points)) != EZ_OK)
        goto out;
    ez_claim_layout_fe2(*ext, folded, kdims, nkept, kstride);
out:
    free(conv);
    free(folded);
    return st;
}

ez_status ez_einsum_prove(ez_transcript *t, const ez_plan_op *op, const ez_plan_tensor *tensors,
                          const int64_t *const *operand_data, const int64_t *rem, const ez_claim *out_claim,
                          ez_writer *proof, ez_claim *in_claims, ez_claim *rem_claim)
{
    return ez_einsum_prove_ex(t, op, tensors, operand_data, rem, out_claim, NULL, proof, in_claims, rem_claim);
}

ez_status ez_einsum_prove_ex(ez_transcript *t, const ez_plan_op *op, const ez_plan_tensor *tensors,
                             const int64_t *const *operand_data, const int64_t *rem, const ez_claim *out_claim,
                             const ez_einsum_opts *opts, ez_writer *proof, ez_claim *in_claims, ez_claim *rem_claim)
{
    ez_status st;
    es_shape s;
    ez_fe *base[2] = {NULL, NULL};
    ez_fe2 *ext[2] = {NULL, NULL};
    ez_sumcheck_proof sp;
    const bool dense = opts && opts->dense;
    ez_work *work = opts ? opts->work : NULL;
    memset(&sp, 0, sizeof sp);
    zero_outputs(op, in_claims, rem_claim);
    if (!t || !proof || !operand_data || (st = shape_build(op, tensors, &s)) != EZ_OK)
        return EZ_ERR_INVALID;
    if ((st = args_check(op, &s, out_claim, in_claims, rem_claim)) != EZ_OK)
        return st;
    if ((op->shift > 0) != (rem != NULL))
        return EZ_ERR_INVALID;
    for (unsigned k = 0; k < s.nin; k++)
        if (!operand_data[k])
            return EZ_ERR_INVALID;

    ez_claim_absorb(t, "einsum/out", out_claim);
    /* 1. The remainder's MLE at r, sent and absorbed before anything depends on it. */
    ez_fe2 rho = ez_fe2_zero();
    if (op->shift > 0) {
        if ((st = mle_i64(rem, s.out_dims, s.out_rank, out_claim->point, &rho)) != EZ_OK)
            goto out;
        uint8_t enc[16];
        ez_fe2_encode(enc, rho);
        ez_writer_bytes(proof, enc, sizeof enc);
        ez_transcript_absorb_fe2(t, "einsum/rem", &rho, 1);
    }
    ez_fe2 claim, coef;
    bool done;
    if ((st = rem_then_claim(op, &s, out_claim, rho, rem_claim, in_claims, &claim, &coef, &done)) != EZ_OK || done)
        goto out;

    /* 4.-5. */
    uint64_t reads = 0;
    for (unsigned k = 0; k < 2; k++)
        if ((st = build_factor(op, &s, k, operand_data[k], out_claim, dense, &base[k], &ext[k], &reads)) != EZ_OK)
            goto out;
    ez_sumcheck_desc d;
    sc_desc(&s, &d);
    ez_sumcheck_box box;
    sc_box(op, &s, &box);
    ez_fe2 ep[EZ_SC_MAX_VARS], pt[EZ_SC_MAX_VARS], ev[2];
    eq_point(&s, out_claim, ep);
    ez_sumcheck_factor f[2] = {{base[0], ext[0]}, {base[1], ext[1]}};
    if (dense || ez_sumcheck_box_size(&box) == (UINT64_C(1) << s.nvars)) {
        /* no padding (or a padding prover): the dense kernels */
        st = ez_sumcheck_prove(t, &d, &coef, s.eq_mask ? ep : NULL, f, claim, &sp, pt, ev);
        reads += ez_sumcheck_box_touched(&box, true);
    } else {
        st = ez_sumcheck_prove_box(t, &d, &coef, s.eq_mask ? ep : NULL, &box, f, claim, &sp, pt, ev, &reads);
    }
    if (st != EZ_OK)
        goto out;
    ez_work_add(work, 1, reads, ez_einsum_real_work(op, tensors));
    ez_sumcheck_proof_write(proof, &sp);
    /* 6. */
    for (unsigned k = 0; k < 2 && st == EZ_OK; k++)
        st = operand_claim(op, &s, k, out_claim, pt, ev[k], &in_claims[k]);
out:
    if (st == EZ_OK && proof->failed)
        st = EZ_ERR_NOMEM;
    if (st != EZ_OK)
        clear_outputs(op, in_claims, rem_claim);
    ez_sumcheck_proof_clear(&sp);
    for (unsigned k = 0; k < 2; k++) {
        free(base[k]);
        free(ext[k]);
    }
    return st;
}

/* ---- verifier ---------------------------------------------------------------------------- */

ez_status ez_einsum_verify(ez_transcript *t, const ez_plan_op *op, const ez_plan_tensor *tensors,
                           const ez_claim *out_claim, ez_reader *proof, ez_claim *in_claims,
                           ez_claim *rem_claim)
{
    ez_status st;
    es_shape s;
    ez_sumcheck_proof sp;
    memset(&sp, 0, sizeof sp);
    zero_outputs(op, in_claims, rem_claim);
    if (!t || !proof || (st = shape_build(op, tensors, &s)) != EZ_OK)
        return EZ_ERR_INVALID;
    if ((st = args_check(op, &s, out_claim, in_claims, rem_claim)) != EZ_OK)
        return st;

    ez_claim_absorb(t, "einsum/out", out_claim);
    ez_fe2 rho = ez_fe2_zero();
    if (op->shift > 0) {
        const uint8_t *enc = ez_reader_view(proof, 16);
        if (!enc || !ez_fe2_decode(&rho, enc))
            return EZ_ERR_REJECT;
        ez_transcript_absorb_fe2(t, "einsum/rem", &rho, 1);
    }
    ez_fe2 claim, coef;
    bool done;
    if ((st = rem_then_claim(op, &s, out_claim, rho, rem_claim, in_claims, &claim, &coef, &done)) != EZ_OK || done)
        goto out;
    ez_sumcheck_desc d;
    sc_desc(&s, &d);
    ez_fe2 ep[EZ_SC_MAX_VARS], pt[EZ_SC_MAX_VARS], ev[2];
    eq_point(&s, out_claim, ep);
    if ((st = ez_sumcheck_proof_read(proof, &d, &sp)) != EZ_OK)
        goto out;
    if ((st = ez_sumcheck_verify(t, &d, &coef, s.eq_mask ? ep : NULL, claim, &sp, pt, ev)) != EZ_OK)
        goto out;
    for (unsigned k = 0; k < 2 && st == EZ_OK; k++)
        st = operand_claim(op, &s, k, out_claim, pt, ev[k], &in_claims[k]);
out:
    if (st != EZ_OK)
        clear_outputs(op, in_claims, rem_claim);
    ez_sumcheck_proof_clear(&sp);
    return st;
}

size_t ez_einsum_proof_size(const ez_plan_op *op, const ez_plan_tensor *tensors, ez_status *st)
{
    es_shape s;
    ez_status e = shape_build(op, tensors, &s);
    if (st)
        *st = e;
    if (e != EZ_OK)
        return 0;
    size_t n = op->shift > 0 ? 16 : 0;
    if (s.nin == 2) {
        ez_sumcheck_desc d;
        sc_desc(&s, &d);
        n += 16 * ((size_t)s.nvars * ez_sumcheck_degree(&d) + 2);
    }
    return n;
}

uint64_t ez_einsum_real_work(const ez_plan_op *op, const ez_plan_tensor *tensors)
{
    es_shape s;
    if (shape_build(op, tensors, &s) != EZ_OK || s.nin != 2)
        return 0;
    uint64_t real = 0;
    for (unsigned k = 0; k < 2; k++) {
        uint64_t n = 1;
        for (unsigned a = 0; a < s.rank[k]; a++)
            n *= s.dims[k][a];
        real += n;
    }
    ez_sumcheck_box box;
    sc_box(op, &s, &box);
    return real + ez_sumcheck_box_touched(&box, false);
}

ez_work ez_einsum_work(const ez_plan_op *op, const ez_plan_tensor *tensors, bool dense)
{
    ez_work w = {0};
    es_shape s;
    if (shape_build(op, tensors, &s) != EZ_OK || s.nin != 2)
        return w;
    for (unsigned k = 0; k < 2; k++) {
        uint64_t n = 1;
        for (unsigned a = 0; a < s.rank[k]; a++)
            n *= dense ? UINT64_C(1) << ez_log2_ceil(s.dims[k][a]) : s.dims[k][a];
        w.touched += n;
    }
    ez_sumcheck_box box;
    sc_box(op, &s, &box);
    w.sumchecks = 1;
    w.touched += ez_sumcheck_box_touched(&box, dense);
    w.real = ez_einsum_real_work(op, tensors);
    return w;
}
