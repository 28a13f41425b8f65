/* strategy_util — see strategy_util.h. */
#include "config.h"

#include "runtime/prove/strategy_util.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/ops/op.h"

ez_status ez_su_heads_view(ez_pctx *c, size_t op, ez_opview *v, ez_heads *h)
{
    h->role = EZ_HEAD_NONE;
    ez_status st = ez_opview_init(v, c->plan, op, c->prover ? c->tr : NULL);
    if (st == EZ_OK && v->op.nin == 2)
        ez_heads_classify(&v->op, v->tensors, h);
    return st;
}

ez_status ez_su_rescale(ez_pctx *c, size_t op, const ez_claim *out, bool on_acc, const char *label, ez_fe2 *acc)
{
    const ez_plan_op *o = &c->plan->ops[op];
    ez_fe2 rho;
    *acc = out->value;
    if (o->shift == 0 || on_acc)
        return EZ_OK;
    /* acc = 2^shift C + R entrywise, and the MLE is linear */
    ez_status st = ez_op_unrescale(c, op, &c->plan->tensors[o->out], out, (int)o->shift, label, acc, &rho);
    return st == EZ_OK ? ez_op_rem_claim(c, op, out, rho) : st;
}

ez_status ez_su_operand_point(const ez_plan_op *op, const ez_plan_tensor *tensors, unsigned k,
                              const ez_su_blocks *b, ez_fe2 *dst, unsigned *nv)
{
    const ez_plan_tensor *t = &tensors[op->in[k]];
    unsigned o = 0;
    for (unsigned a = 0; a < t->rank; a++) {
        unsigned i = op->in_axes[k][a], n = ez_log2_ceil(op->idx_size[i]);
        if (b->at[i] == NULL && n > 0)
            return EZ_ERR_INVALID;
        if (n > 0)
            memcpy(dst + o, b->at[i], n * sizeof *dst);
        o += n;
    }
    *nv = o;
    return EZ_OK;
}

uint64_t ez_su_padded_numel(const ez_plan_tensor *t)
{
    uint64_t n = 1;
    for (unsigned a = 0; a < t->rank; a++)
        n <<= ez_log2_ceil(t->dims[a]);
    return n;
}

bool ez_su_head_coords(const ez_plan_op *op, const ez_heads *h, uint64_t i, uint64_t *coord)
{
    bool real = true;
    for (unsigned j = h->nhead; j-- > 0;) {
        unsigned x = h->head[j], n = ez_log2_ceil(op->idx_size[x]);
        coord[j] = i & ((UINT64_C(1) << n) - 1);
        i >>= n;
        real = real && coord[j] < op->idx_size[x];
    }
    return real;
}

ez_status ez_su_head_tables(const ez_plan_op *op, const ez_plan_tensor *tensors, const ez_heads *h, unsigned k,
                            const int64_t *data, const ez_fe2 *out_point, ez_fe2 **table, uint64_t *reads)
{
    const ez_plan_tensor *t = &tensors[op->in[k]];
    const unsigned rank = t->rank, *axes = op->in_axes[k];
    const unsigned *fold = k == 0 ? h->row : h->col, nfold = k == 0 ? h->nrow : h->ncol;
    ez_status st = EZ_OK;
    ez_fe *pad = NULL;
    ez_fe2 *folded = NULL;
    *table = NULL;
    ez_point_blocks ob;
    ez_plan_point_blocks(&ob, op, op->out_axes, tensors[op->out].rank);

    /* the operand padded per axis: its padded dims, row-major strides */
    size_t pdims[EZ_MAX_RANK];
    uint64_t d64[EZ_MAX_RANK], pstride[EZ_MAX_RANK];
    uint64_t pn = 1;
    for (unsigned a = rank; a-- > 0;) {
        d64[a] = t->dims[a];
        pdims[a] = (size_t)1 << ez_log2_ceil(t->dims[a]);
        pstride[a] = pn;
        pn *= pdims[a];
    }
    pad = ez_alloc_array(pn, sizeof *pad);
    if (!pad)
        return EZ_ERR_NOMEM;
    ez_claim_layout_i64(pad, data, d64, rank, pstride);
    *reads += pn;

    /* fold the row/column axes at the output point's blocks; the kept axes stay in the
     * operand's order, padded */
    const ez_fe2 *points[EZ_MAX_RANK];
    uint64_t kstride[EZ_MAX_IDX];
    bool kept[EZ_MAX_IDX] = {false};
    uint64_t kn = 1;
    for (unsigned a = 0; a < rank; a++) {
        unsigned i = axes[a];
        bool f = false;
        for (unsigned j = 0; j < nfold; j++)
            f = f || fold[j] == i;
        points[a] = f ? out_point + ob.off[i] : NULL;
        kept[i] = !f;
    }
    for (unsigned a = rank; a-- > 0;)
        if (kept[axes[a]]) {
            kstride[axes[a]] = kn;
            kn *= pdims[a];
        }
    folded = ez_alloc_aligned(kn, sizeof *folded);
    if (!folded) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if ((st = ez_mle_fold_fe(folded, pad, pdims, rank, points)) != EZ_OK)
        goto out;

    /* scatter into [head][contracted] */
    const uint64_t nh = UINT64_C(1) << h->head_vars, nx = UINT64_C(1) << h->con_vars;
    *table = ez_alloc_array(nh * nx, sizeof **table);
    if (!*table) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    for (uint64_t i = 0; i < nh; i++) {
        uint64_t hc[EZ_MAX_IDX], off = 0;
        ez_su_head_coords(op, h, i, hc);
        bool zero = false;
        for (unsigned j = 0; j < h->nhead; j++) {
            unsigned x = h->head[j];
            if (kept[x]) /* the operand's own head index */
                off += hc[j] * kstride[x];
            else if (hc[j] >= op->idx_size[x])
                zero = true; /* a replicated index' padding: a dummy head */
        }
        if (zero)
            continue;
        for (uint64_t x = 0; x < nx; x++) {
            uint64_t rest = x, o2 = off;
            for (unsigned j = h->ncon; j-- > 0;) {
                unsigned ci = h->con[j], n = ez_log2_ceil(op->idx_size[ci]);
                o2 += (rest & ((UINT64_C(1) << n) - 1)) * kstride[ci];
                rest >>= n;
            }
            (*table)[i * nx + x] = folded[o2];
        }
    }
out:
    free(pad);
    free(folded);
    if (st != EZ_OK) {
        free(*table);
        *table = NULL;
    }
    return st;
}

ez_status ez_su_sumcheck(ez_pctx *c, const char *what, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                         const ez_fe2 *eq_point, const ez_sumcheck_factor *factors, ez_fe2 claim, ez_fe2 *pt,
                         ez_fe2 *ev)
{
    ez_sumcheck_proof sp;
    ez_status st;
    memset(&sp, 0, sizeof sp);
    if (c->prover) {
        const ez_sumcheck_factor *g = c->sumcheck_hook ? c->sumcheck_hook(c->sumcheck_hook_ctx, d, coeffs, eq_point, factors) : NULL;
        if ((st = ez_sumcheck_prove(c->t, d, coeffs, eq_point, g ? g : factors, claim, &sp, pt, ev)) == EZ_OK) {
            ez_sumcheck_proof_write(c->w, &sp);
            ez_work_add(c->work, 1, d->nvars ? (UINT64_C(2) << d->nvars) - 2 : 1, 0);
            if (c->w->failed)
                st = EZ_ERR_NOMEM;
        }
    } else {
        if ((st = ez_sumcheck_proof_read(c->r, d, &sp)) == EZ_OK)
            st = ez_sumcheck_verify(c->t, d, coeffs, eq_point, claim, &sp, pt, ev);
        if (st == EZ_ERR_REJECT)
            ez_diag_set(c->d, "%s failed", what);
    }
    ez_sumcheck_proof_clear(&sp);
    return st;
}

void ez_su_desc(ez_sumcheck_desc *d, unsigned nvars, unsigned nfactors, unsigned nterms)
{
    memset(d, 0, sizeof *d);
    d->nvars = nvars;
    d->nfactors = nfactors;
    d->nterms = nterms;
    for (unsigned j = 0; j < nvars && j < EZ_SC_MAX_VARS; j++)
        d->order[j] = j;
}
