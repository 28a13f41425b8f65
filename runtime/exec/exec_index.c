/* exec_index — see exec_index.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "runtime/exec/exec_index.h"

#include <stdlib.h>
#include <string.h>

void ez_exec_strides(const ez_plan *p, const ez_plan_op *op, int k, int64_t stride[EZ_MAX_IDX],
                     bool present[EZ_MAX_IDX], int64_t *base)
{
    const ez_plan_tensor *t = &p->tensors[k < 0 ? op->out : op->in[k]];
    const unsigned *axes = k < 0 ? op->out_axes : op->in_axes[k];
    unsigned fixed = k < 0 ? 0 : op->in_fixed[k];
    if (op->kind == EZ_OP_GATHER && k == 0)
        fixed |= 1; /* the gathered axis: addressed by the token, not by an index */
    for (unsigned i = 0; i < EZ_MAX_IDX; i++) {
        stride[i] = 0;
        if (present)
            present[i] = false;
    }
    int64_t s = 1, b = 0;
    for (unsigned a = t->rank; a-- > 0;) {
        if ((fixed >> a) & 1) {
            if (!(op->kind == EZ_OP_GATHER && k == 0 && a == 0))
                b += (int64_t)op->in_pos[k][a] * s;
        } else if (axes[a] < EZ_MAX_IDX) {
            stride[axes[a]] += s;
            if (present)
                present[axes[a]] = true;
        }
        s *= (int64_t)t->dims[a];
    }
    if (base)
        *base = b;
}

ez_status ez_exec_group_offsets(int64_t **out, const uint64_t *size, const unsigned *grp,
                                unsigned ng, const int64_t *stride)
{
    uint64_t count = 1;
    for (unsigned j = 0; j < ng; j++)
        count *= size[grp[j]];
    int64_t *off = ez_alloc_array(count ? count : 1, sizeof *off);
    if (off == NULL)
        return EZ_ERR_NOMEM;
    /* Build by doubling out the group from the fastest index: off for the suffix
     * grp[j..] is known; prepend grp[j-1]. */
    uint64_t have = 1;
    off[0] = 0;
    for (unsigned j = ng; j-- > 0;) {
        uint64_t n = size[grp[j]];
        int64_t st = stride[grp[j]];
        /* fill blocks c = n-1 .. 1 first so block 0 (the source) is read intact */
        for (uint64_t c = n; c-- > 1;)
            for (uint64_t q = 0; q < have; q++)
                off[c * have + q] = off[q] + (int64_t)c * st;
        have *= n;
    }
    *out = off;
    return EZ_OK;
}

void ez_exec_rows_clear(ez_exec_rows *r)
{
    if (r == NULL)
        return;
    free(r->in_off);
    free(r->out_off);
    free(r->mrow);
    free(r->mcol);
    memset(r, 0, sizeof *r);
}

ez_status ez_exec_rows_init(ez_exec_rows *r, const ez_plan *p, const ez_plan_op *op,
                            bool want_mask, ez_diag *d)
{
    memset(r, 0, sizeof *r);
    const ez_plan_tensor *tout = &p->tensors[op->out];
    int64_t sin[EZ_MAX_IDX], sout[EZ_MAX_IDX], base;
    bool pin[EZ_MAX_IDX], pout[EZ_MAX_IDX];
    ez_exec_strides(p, op, 0, sin, pin, &base);
    ez_exec_strides(p, op, EZ_EXEC_OUT, sout, pout, NULL);
    for (unsigned i = 0; i < op->nidx; i++) {
        if (i == op->axis)
            continue;
        if (pin[i] != pout[i]) {
            ez_diag_set(d, "op '%s': index '%s' must appear in both the operand and the result",
                        op->label, op->idx_name[i]);
            return EZ_ERR_INVALID;
        }
    }
    if (!pin[op->axis]) {
        ez_diag_set(d, "op '%s': the reduced index '%s' is not an index of the operand", op->label,
                    op->idx_name[op->axis]);
        return EZ_ERR_INVALID;
    }
    /* the row group: output axes except the reduced index, in output order */
    unsigned grp[EZ_MAX_RANK] = {0};
    unsigned ng = 0;
    for (unsigned a = 0; a < tout->rank; a++) {
        unsigned i = op->out_axes[a];
        if (i == op->axis)
            continue;
        bool dup = false;
        for (unsigned j = 0; j < ng; j++)
            dup |= grp[j] == i;
        if (!dup)
            grp[ng++] = i;
    }
    r->len = op->idx_size[op->axis];
    r->in_step = sin[op->axis];
    r->out_step = sout[op->axis];
    ez_status st = ez_exec_group_offsets(&r->in_off, op->idx_size, grp, ng, sin);
    if (st == EZ_OK)
        st = ez_exec_group_offsets(&r->out_off, op->idx_size, grp, ng, sout);
    r->nrows = 1;
    for (unsigned j = 0; j < ng; j++)
        r->nrows *= op->idx_size[grp[j]];
    for (uint64_t q = 0; st == EZ_OK && q < r->nrows; q++)
        r->in_off[q] += base;
    if (st == EZ_OK && want_mask) {
        /* coordinate of one index = offsets under a unit stride on that index alone */
        int64_t unit[EZ_MAX_IDX];
        memset(unit, 0, sizeof unit);
        unit[op->mask_row] = 1;
        st = ez_exec_group_offsets(&r->mrow, op->idx_size, grp, ng, unit);
        unit[op->mask_row] = 0;
        unit[op->mask_col] = 1;
        if (st == EZ_OK)
            st = ez_exec_group_offsets(&r->mcol, op->idx_size, grp, ng, unit);
        if (st == EZ_OK) {
            for (uint64_t q = 0; q < r->nrows; q++) {
                if (op->mask_row == op->axis)
                    r->mrow[q] = -1;
                if (op->mask_col == op->axis)
                    r->mcol[q] = -1;
            }
        }
    }
    if (st != EZ_OK) {
        ez_exec_rows_clear(r);
        ez_diag_set(d, "out of memory indexing op '%s'", op->label);
    }
    return st;
}

ez_status ez_exec_elem_offsets(int64_t **out, const ez_plan *p, const ez_plan_op *op,
                               unsigned k, ez_diag *d)
{
    const ez_plan_tensor *tout = &p->tensors[op->out];
    int64_t sin[EZ_MAX_IDX], sout[EZ_MAX_IDX], base;
    bool pin[EZ_MAX_IDX], pout[EZ_MAX_IDX];
    ez_exec_strides(p, op, (int)k, sin, pin, &base);
    ez_exec_strides(p, op, EZ_EXEC_OUT, sout, pout, NULL);
    for (unsigned i = 0; i < op->nidx; i++) {
        if (pin[i] && !pout[i]) {
            ez_diag_set(d, "op '%s': operand index '%s' is not an index of the result", op->label,
                        op->idx_name[i]);
            return EZ_ERR_INVALID;
        }
    }
    /* The output axes in order; a repeated output index (diagonal) is walked once. */
    unsigned grp[EZ_MAX_RANK] = {0};
    unsigned ng = 0;
    for (unsigned a = 0; a < tout->rank; a++) {
        bool dup = false;
        for (unsigned j = 0; j < ng; j++)
            dup |= grp[j] == op->out_axes[a];
        if (dup) {
            ez_diag_set(d, "op '%s': repeated result index '%s' is not supported here", op->label,
                        op->idx_name[op->out_axes[a]]);
            return EZ_ERR_INVALID;
        }
        grp[ng++] = op->out_axes[a];
    }
    if (ez_exec_group_offsets(out, op->idx_size, grp, ng, sin) != EZ_OK) {
        ez_diag_set(d, "out of memory indexing op '%s'", op->label);
        return EZ_ERR_NOMEM;
    }
    uint64_t n = ez_plan_tensor_numel(tout);
    for (uint64_t q = 0; q < n; q++)
        (*out)[q] += base;
    return EZ_OK;
}

void ez_exec_out_coords(const ez_plan *p, const ez_plan_op *op, uint64_t flat,
                        uint64_t coord[EZ_MAX_IDX])
{
    const ez_plan_tensor *tout = &p->tensors[op->out];
    memset(coord, 0, sizeof(uint64_t) * EZ_MAX_IDX);
    for (unsigned a = tout->rank; a-- > 0;) {
        uint64_t n = tout->dims[a];
        coord[op->out_axes[a]] = n ? flat % n : 0;
        flat = n ? flat / n : 0;
    }
}

static uint64_t group_size(const ez_plan_op *op, const unsigned *g, unsigned n)
{
    uint64_t s = 1;
    for (unsigned j = 0; j < n; j++)
        s *= op->idx_size[g[j]];
    return s;
}

void ez_exec_classify(const ez_plan *p, const ez_plan_op *op, const bool *pa, const bool *pb,
                      const bool *po, ez_exec_groups *g)
{
    memset(g, 0, sizeof *g);
    const ez_plan_tensor *to = &p->tensors[op->out];
    const ez_plan_tensor *ta = &p->tensors[op->in[0]];
    for (unsigned a = 0; a < to->rank; a++) {
        unsigned i = op->out_axes[a];
        if (pa[i] && pb[i])
            g->b[g->nb++] = i;
        else if (pa[i])
            g->m[g->nm++] = i;
        else if (pb[i])
            g->n[g->nn++] = i;
        else
            g->r[g->nr++] = i;
    }
    bool seen[EZ_MAX_IDX] = {false};
    for (unsigned a = 0; a < ta->rank; a++) {
        unsigned i = op->in_axes[0][a];
        if (((op->in_fixed[0] >> a) & 1) || seen[i] || po[i])
            continue;
        seen[i] = true;
        if (pb[i])
            g->k[g->nk++] = i;
        else
            g->sa[g->nsa++] = i;
    }
    if (op->nin == 2) {
        const ez_plan_tensor *tb = &p->tensors[op->in[1]];
        for (unsigned a = 0; a < tb->rank; a++) {
            unsigned i = op->in_axes[1][a];
            if (((op->in_fixed[1] >> a) & 1) || seen[i] || po[i])
                continue;
            seen[i] = true;
            g->sb[g->nsb++] = i; /* in B only (A's were taken above) */
        }
    }
    g->B = group_size(op, g->b, g->nb);
    g->M = group_size(op, g->m, g->nm);
    g->N = group_size(op, g->n, g->nn);
    g->K = group_size(op, g->k, g->nk);
    g->SA = group_size(op, g->sa, g->nsa);
    g->SB = group_size(op, g->sb, g->nsb);
    g->R = group_size(op, g->r, g->nr);
}
