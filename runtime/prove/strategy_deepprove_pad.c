/* strategy_deepprove_pad — DeepProve's projections around attention (deep-prove
 * zkml/docs "QKV" and "MHA": "Padding", "Prove Proper Padding", "Unpadding").
 *
 * DeepProve's activations are matrices: Q = X W_Q is [s, d] with the heads concatenated
 * in the hidden axis, j = h m + e (d = 2^ceil(log2(h m))). Its v1 pads the heads to the
 * next power of two with a 0/1 padding matrix P (Q^ = Q P, [s, hbar mbar]) proven by a
 * sumcheck, and unpads the attention output with U (O = O^ U) before the output
 * projection. Here the head axis of q[s, h, e] is split; its flat view Q[s, j] is the
 * same integers, and the flat MLE IS the split one when every flat index after the first
 * has a power-of-two extent (e.g. h x 64): then no padding matrix exists and the
 * projections are plain (aggregated) contractions. Otherwise (width 80, 96):
 *
 * Q/K/V (PROJ_IN ops reading the same x, proven together by the last of them):
 *   1. per member, the rescale (acc~(r) = 2^k v + R~(r));
 *   2. P: for the members with the same flat axis, lambdas drawn and ONE sumcheck
 *        sum_m lambda_m acc_m~(r_m) = sum_j sum_m lambda_m Acc_m(r_m,row; j) P_m(j),
 *        P_m(j) = [j < F] eq(r_m,flat, split(j))   (P(j, r_c) of DeepProve's "Prove Proper
 *      Padding"; the verifier evaluates P_m~ itself, O(F)) -> flat claims at one point p_j;
 *   3. the QKV sumcheck (DeepProve's QKV layer, aggregated): lambdas and ONE sumcheck
 *        sum_m lambda'_m acc_m(r_m,row; p_m) = sum_y sum_m lambda'_m mul_m X(r_m,row, y) W_m(y; p_m)
 *      with W_m(y; p) the weight's flat view folded at the flat point -> claims on x (one
 *      per member, merged by the framework like DeepProve's same-poly accumulation) and on
 *      the weights' flat views;
 *   4. the weights' flat views back to their committed split form: ONE sumcheck with
 *        U(x) = [x real] eq(p_j, flat(x)):   sum_m lambda''_m W_m(p_y; p_j) = sum_x U(x) sum_m lambda''_m W^_m(p_y, x).
 *      DeepProve commits its weights flat and does not pay this step; every strategy here
 *      shares ONE verifying key with split weights, so its flat weight claims need it.
 * The output projection (PROJ_OUT: y = c W_O with the heads contracted):
 *   1. rescale; 2. the flat matmul acc~(r_row, r_col) = mul sum_j O(r_row; j) W(j; r_col)
 *   (DeepProve's final dense layer); 3. ONE U sumcheck for both flat claims (DeepProve's
 *   "Unpadding" of O, and the weight's flat view as in step 4 above):
 *        O(p_j) + lambda W(p_j) = sum_x U(x) [c^(r_row, x) + lambda W^(x, r_col)].
 * Soundness: every step is a sumcheck (error <= deg n / |K|) after a random linear
 * combination of claims fixed before its lambdas (<= M / |K|); P~ and U~ are computed by
 * the verifier, whose check of the factor values at the final point stands in for
 * trusting them. */
#include "config.h"

#include "runtime/prove/strategy_deepprove.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/prove/contraction.h"
#include "runtime/prove/strategy_util.h"

/* ---- flat views ------------------------------------------------------------------------ */

/* The tensor (data, real dims[0..rank)) with axes [m0, m1) merged into one axis (the flat
 * axis: compact index, row-major), every axis then zero padded to a power of two, and the
 * axes with points[a] != NULL (indexed by the MERGED axes) folded there. Out: *out — the
 * folded table over the kept merged axes (padded, in order), allocated; *reads += the
 * padded entries read. */
static ez_status fold_view(const int64_t *data, const uint64_t *dims, unsigned rank, unsigned m0, unsigned m1,
                           const ez_fe2 *const *points, ez_fe2 **out, uint64_t *reads)
{
    size_t md[EZ_MAX_RANK];
    unsigned mr = 0;
    uint64_t inner[EZ_MAX_RANK]; /* per original axis: its stride inside its merged axis */
    for (unsigned a = 0; a < rank;) {
        if (a == m0 && m1 > m0) {
            uint64_t f = 1;
            for (unsigned b = m1; b-- > m0;) {
                inner[b] = f;
                f *= dims[b];
            }
            md[mr++] = (size_t)f;
            a = m1;
        } else {
            inner[a] = 1;
            md[mr++] = (size_t)dims[a];
            a++;
        }
    }
    size_t pd[EZ_MAX_RANK];
    uint64_t mstride[EZ_MAX_RANK], n = 1, kept = 1;
    for (unsigned a = mr; a-- > 0;) {
        pd[a] = (size_t)1 << ez_log2_ceil(md[a]);
        mstride[a] = n;
        n *= pd[a];
        if (!points[a])
            kept *= pd[a];
    }
    uint64_t stride[EZ_MAX_RANK];
    for (unsigned a = 0; a < rank; a++) {
        unsigned ma = a < m0 || m1 <= m0 ? a : a < m1 ? m0 : a - (m1 - m0) + 1; /* its merged axis */
        stride[a] = mstride[ma] * inner[a];
    }
    ez_fe *pad = ez_alloc_array(n, sizeof *pad);
    *out = ez_alloc_aligned(kept, sizeof **out);
    ez_status st = pad && *out ? EZ_OK : EZ_ERR_NOMEM;
    if (st == EZ_OK) {
        ez_claim_layout_i64(pad, data, dims, rank, stride);
        *reads += n;
        st = ez_mle_fold_fe(*out, pad, pd, mr, points);
    }
    free(pad);
    if (st != EZ_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

/* The flat extents ext[0..k): nv[a] = ceil(log2 ext[a]) variables each, *total of them;
 * returns F = prod ext[a], the flat index's extent. */
static uint64_t flat_extent(const uint64_t *ext, unsigned k, unsigned *nv, unsigned *total)
{
    uint64_t F = 1;
    *total = 0;
    for (unsigned a = 0; a < k; a++) {
        F *= ext[a];
        nv[a] = ez_log2_ceil(ext[a]);
        *total += nv[a];
    }
    return F;
}

/* sum_{j < F} eq(pj, j) prod_a eq(r_a, coord_a(j)): both DeepProve's P~(pj; r) and its
 * U~(r; pj), with coord the mixed-radix digits of j over the flat extents ext[0..k). O(F)
 * plus the eq tables. */
static ez_status flat_map_mle(const ez_fe2 *pj, unsigned fv, const uint64_t *ext, unsigned k, const ez_fe2 *r,
                              ez_fe2 *out)
{
    unsigned nv[EZ_MAX_IDX], total;
    const uint64_t F = flat_extent(ext, k, nv, &total);
    ez_fe2 *ej = ez_alloc_aligned((size_t)1 << fv, sizeof *ej), *ea = ez_alloc_aligned((size_t)2 << total, sizeof *ea);
    if (!ej || !ea) {
        free(ej);
        free(ea);
        return EZ_ERR_NOMEM;
    }
    ez_eq_table(ej, pj, fv);
    ez_fe2 *tab[EZ_MAX_IDX];
    for (unsigned a = 0, off = 0, roff = 0; a < k; a++) {
        tab[a] = ea + off;
        ez_eq_table(tab[a], r + roff, nv[a]);
        off += (unsigned)1 << nv[a];
        roff += nv[a];
    }
    ez_fe2 s = ez_fe2_zero();
    for (uint64_t j = 0; j < F; j++) {
        ez_fe2 w = ej[j];
        uint64_t rest = j;
        for (unsigned a = k; a-- > 0;) {
            w = ez_fe2_mul(w, tab[a][rest % ext[a]]);
            rest /= ext[a];
        }
        s = ez_fe2_add(s, w);
    }
    free(ej);
    free(ea);
    *out = s;
    return EZ_OK;
}

/* The unpadding sumcheck's last step on both sides: U~ at its point px (flat_map_mle), which
 * the verifier compares with the prover's final evaluation ev0; `what` names the matrix in
 * the rejection. */
static ez_status unpad_value_check(ez_pctx *c, const ez_fe2 *pj, unsigned fv, const uint64_t *ext, unsigned k,
                                   const ez_fe2 *px, ez_fe2 ev0, const char *what)
{
    ez_fe2 uval;
    ez_status st = flat_map_mle(pj, fv, ext, k, px, &uval);
    if (st == EZ_OK && !c->prover && !ez_fe2_eq(uval, ev0)) {
        ez_diag_set(c->d, "the %s value is wrong", what);
        st = EZ_ERR_REJECT;
    }
    return st;
}

/* The table of P(j) = [j < F] prod_a eq(r_a, coord_a(j)) over 2^fv entries (pj NULL), or
 * of U(x) = [x real] eq(pj, flat(x)) over the split cube (pj set, r unused). */
static ez_status flat_map_table(const ez_fe2 *pj, unsigned fv, const uint64_t *ext, unsigned k, const ez_fe2 *r,
                                ez_fe2 **out)
{
    unsigned nv[EZ_MAX_IDX], total;
    const uint64_t F = flat_extent(ext, k, nv, &total);
    const uint64_t size = pj ? UINT64_C(1) << total : UINT64_C(1) << fv;
    ez_fe2 *t = ez_alloc_array(size, sizeof *t);
    ez_fe2 *eqs = ez_alloc_aligned(pj ? (size_t)1 << fv : (size_t)2 << total, sizeof *eqs);
    if (!t || !eqs) {
        free(t);
        free(eqs);
        return EZ_ERR_NOMEM;
    }
    ez_fe2 *tab[EZ_MAX_IDX];
    if (pj) {
        ez_eq_table(eqs, pj, fv);
    } else {
        for (unsigned a = 0, off = 0, roff = 0; a < k; a++) {
            tab[a] = eqs + off;
            ez_eq_table(tab[a], r + roff, nv[a]);
            off += (unsigned)1 << nv[a];
            roff += nv[a];
        }
    }
    for (uint64_t j = 0; j < F; j++) {
        uint64_t rest = j, x = 0, shift = 0;
        ez_fe2 w = ez_fe2_one();
        for (unsigned a = k; a-- > 0;) {
            uint64_t c = rest % ext[a];
            rest /= ext[a];
            if (pj)
                x |= c << shift;
            else
                w = ez_fe2_mul(w, tab[a][c]);
            shift += nv[a];
        }
        if (pj)
            t[x] = eqs[j];
        else
            t[j] = w;
    }
    free(eqs);
    *out = t;
    return EZ_OK;
}

/* ---- the output projection ---------------------------------------------------------------- */

ez_status ez_deepprove_proj_out(ez_pctx *c, size_t op, ez_opview *v, const ez_heads *h, const ez_claim *out)
{
    const ez_plan_op *o = &v->op;
    const ez_plan_tensor *ta = &v->tensors[0], *tb = &v->tensors[1];
    ez_status st;
    ez_fe2 *of = NULL, *wf = NULL, *ch = NULL, *wh = NULL, *u = NULL;
    ez_point_blocks ob;
    ez_plan_point_blocks(&ob, o, o->out_axes, v->tensors[o->out].rank);
    uint64_t ext[EZ_MAX_IDX];
    for (unsigned a = 0; a < h->nflat; a++)
        ext[a] = o->idx_size[h->flat[a]];
    const unsigned fv = h->flat_vars, nA = ta->rank, nB = tb->rank, k = h->nflat;
    unsigned sv = 0;
    for (unsigned a = 0; a < k; a++)
        sv += ez_log2_ceil(ext[a]);

    ez_claim_absorb(c->t, "deepprove/out", out);
    ez_fe2 acc;
    if ((st = ez_su_rescale(c, op, out, false, "deepprove/rem", &acc)) != EZ_OK)
        return st;
    /* 2. the flat matmul */
    const ez_fe2 *pa[EZ_MAX_RANK] = {NULL}, *pb[EZ_MAX_RANK] = {NULL};
    for (unsigned a = 0; a + k < nA; a++)
        pa[a] = out->point + ob.off[o->in_axes[0][a]];
    for (unsigned a = k; a < nB; a++)
        pb[a - k + 1] = out->point + ob.off[o->in_axes[1][a]];
    if (c->prover) {
        uint64_t reads = 0;
        if ((st = fold_view(v->data[0], ta->dims, nA, nA - k, nA, pa, &of, &reads)) != EZ_OK ||
            (st = fold_view(v->data[1], tb->dims, nB, 0, k, pb, &wf, &reads)) != EZ_OK)
            goto out;
        ez_work_add(c->work, 0, reads, ez_einsum_real_work(o, v->tensors));
    }
    ez_sumcheck_desc d;
    ez_sumcheck_desc_init(&d, fv, 2);
    const ez_fe2 coef = ez_fe2_from_fe(ez_fe_from_i64(o->mul));
    ez_sumcheck_factor f[2] = {{NULL, of}, {NULL, wf}};
    ez_fe2 pj[EZ_SC_MAX_VARS], ev[3];
    if ((st = ez_su_sumcheck(c, "the output projection's flat sumcheck", &d, &coef, NULL, f, acc, pj, ev)) != EZ_OK)
        goto out;
    /* 3. unpadding: both flat claims to the split tensors */
    ez_fe2 lambda = ez_transcript_challenge_fe2(c->t, "deepprove/lambda-u");
    ez_fe2 claim = ez_fe2_add(ev[0], ez_fe2_mul(lambda, ev[1]));
    if (c->prover) {
        /* c^ folded over its rows, w^ over its columns, both over the split cube */
        const ez_fe2 *qa[EZ_MAX_RANK] = {NULL}, *qb[EZ_MAX_RANK] = {NULL};
        for (unsigned a = 0; a + k < nA; a++)
            qa[a] = pa[a];
        for (unsigned a = k; a < nB; a++)
            qb[a] = pb[a - k + 1];
        uint64_t reads = 0;
        if ((st = fold_view(v->data[0], ta->dims, nA, 0, 0, qa, &ch, &reads)) != EZ_OK ||
            (st = fold_view(v->data[1], tb->dims, nB, 0, 0, qb, &wh, &reads)) != EZ_OK ||
            (st = flat_map_table(pj, fv, ext, k, NULL, &u)) != EZ_OK)
            goto out;
        ez_work_add(c->work, 0, reads, 0);
    }
    ez_sumcheck_desc du;
    ez_su_desc(&du, sv, 3, 2);
    du.term[0].nf = 2, du.term[0].f[0] = 0, du.term[0].f[1] = 1;
    du.term[1].nf = 2, du.term[1].f[0] = 0, du.term[1].f[1] = 2;
    ez_fe2 cu[2] = {ez_fe2_one(), lambda}, px[EZ_SC_MAX_VARS];
    ez_sumcheck_factor fu[3] = {{NULL, u}, {NULL, ch}, {NULL, wh}};
    if ((st = ez_su_sumcheck(c, "the unpadding sumcheck", &du, cu, NULL, fu, claim, px, ev)) != EZ_OK)
        goto out;
    if ((st = unpad_value_check(c, pj, fv, ext, k, px, ev[0], "unpadding matrix")) != EZ_OK)
        goto out;
    ez_su_blocks bl;
    memset(&bl, 0, sizeof bl);
    for (unsigned a = 0, off = 0; a < k; a++) {
        bl.at[h->flat[a]] = px + off;
        off += ez_log2_ceil(ext[a]);
    }
    for (unsigned a = 0; a < h->nrow; a++)
        bl.at[h->row[a]] = out->point + ob.off[h->row[a]];
    for (unsigned a = 0; a < h->ncol; a++)
        bl.at[h->col[a]] = out->point + ob.off[h->col[a]];
    for (unsigned x = 0; x < 2 && st == EZ_OK; x++) {
        ez_fe2 pnt[EZ_PROVE_MAX_VARS];
        unsigned nv;
        if ((st = ez_su_operand_point(o, v->tensors, x, &bl, pnt, &nv)) != EZ_OK)
            break;
        ez_claim cl = {.nvars = nv, .point = pnt, .value = ev[1 + x]};
        st = ez_opview_claim(c, v, op, x, &cl);
    }
out:
    free(of);
    free(wf);
    free(ch);
    free(wh);
    free(u);
    return st;
}

/* ---- Q, K, V ------------------------------------------------------------------------------ */

typedef struct {
    size_t op;
    ez_opview v;
    ez_heads h;
    ez_claim cl;         /* the merged claim on the output */
    ez_fe2 acc;          /* the accumulator's value at cl.point */
    ez_fe2 flat[EZ_PROVE_MAX_VARS]; /* the flat claim's point on the flat axis, and value */
    ez_fe2 flatv;
    unsigned cls;        /* P / U class: members with the same flat axis */
} member;

/* The merged claim on member m's output: the walk's for the leader, else the member's
 * claim list merged here (as the walk would) and cleared. */
static ez_status member_claim(ez_pctx *c, member *m, const ez_claim *leader_claim)
{
    if (leader_claim)
        return ez_claim_copy(&m->cl, leader_claim);
    const ez_plan_op *op = &c->plan->ops[m->op];
    const ez_plan_tensor *to = &c->plan->tensors[op->out];
    ez_claim_list *l = &c->tclaims[op->out];
    ez_status st;
    if (l->n == 1) {
        st = ez_claim_copy(&m->cl, &l->items[0]);
    } else if (c->prover) {
        uint64_t touched = 0;
        st = ez_claim_merge_prove_ex(c->t, c->tr->t[op->out], to->dims, to->rank, l->items, l->n, true, c->w, &m->cl,
                                     &touched);
        ez_work_add(c->work, 1, touched, ez_claim_merge_work(to->dims, to->rank, l->n, false));
    } else {
        st = ez_claim_merge_verify(c->t, to->dims, to->rank, l->items, l->n, c->r, &m->cl);
        if (st == EZ_ERR_REJECT)
            ez_diag_set(c->d, "the fan-out merge of '%s' failed", op->label);
    }
    ez_claim_list_clear(l);
    return st;
}

/* acc = 2^shift out + rem of member m's op (prover). */
static int64_t *member_acc(const ez_pctx *c, const member *m)
{
    const ez_plan_op *op = &c->plan->ops[m->op];
    uint64_t n = ez_plan_tensor_numel(&c->plan->tensors[op->out]);
    int64_t *a = ez_alloc_array(n ? n : 1, sizeof *a);
    const int64_t *q = c->tr->t[op->out], *r = op->shift ? ez_trace_aux(c->tr, m->op, EZ_AUX_REM, NULL) : NULL;
    if (a)
        for (uint64_t i = 0; i < n; i++)
            a[i] = (int64_t)((uint64_t)q[i] << op->shift) + (r ? r[i] : 0);
    return a;
}

/* The members of class `cls`: their indices into ms, in order, into idx (returns how many)
 * and the class's flat extents ext[0..nflat) (its first member's; the members share them). */
static unsigned class_members(const member *ms, unsigned nm, unsigned cls, unsigned *idx, uint64_t *ext)
{
    unsigned n = 0;
    for (unsigned i = 0; i < nm; i++)
        if (ms[i].cls == cls)
            idx[n++] = i;
    const ez_heads *h = &ms[idx[0]].h;
    for (unsigned a = 0; a < h->nflat; a++)
        ext[a] = ms[idx[0]].v.op.idx_size[h->flat[a]];
    return n;
}

/* 2. P for the members of class `cls`: flat claims at one point. */
static ez_status pad_sumcheck(ez_pctx *c, member *ms, unsigned nm, unsigned cls)
{
    unsigned idx[EZ_HEADS_MAX_GROUP];
    uint64_t ext[EZ_MAX_IDX];
    const unsigned n = class_members(ms, nm, cls, idx, ext);
    const ez_heads *h = &ms[idx[0]].h;
    const unsigned fv = h->flat_vars, k = h->nflat;
    ez_fe2 lam[EZ_HEADS_MAX_GROUP], claim = ez_fe2_zero();
    ez_transcript_challenges_fe2(c->t, "deepprove/lambda-p", lam, n);
    ez_fe2 *tabs[2 * EZ_HEADS_MAX_GROUP] = {NULL};
    ez_status st = EZ_OK;
    ez_sumcheck_desc d;
    ez_su_desc(&d, fv, 2 * n, n);
    for (unsigned t = 0; t < n; t++) {
        member *m = &ms[idx[t]];
        claim = ez_fe2_add(claim, ez_fe2_mul(lam[t], m->acc));
        d.term[t].nf = 2, d.term[t].f[0] = 2 * t, d.term[t].f[1] = 2 * t + 1;
        if (!c->prover)
            continue;
        const ez_plan_tensor *to = &m->v.tensors[m->v.op.out];
        ez_point_blocks ob;
        ez_plan_point_blocks(&ob, &m->v.op, m->v.op.out_axes, to->rank);
        const ez_fe2 *pts[EZ_MAX_RANK] = {NULL};
        ez_fe2 rf[EZ_PROVE_MAX_VARS];
        unsigned nrow = to->rank - k;
        for (unsigned a = 0; a < nrow; a++)
            pts[a] = m->cl.point + ob.off[m->v.op.out_axes[a]];
        for (unsigned a = 0, off = 0; a < k; a++) {
            unsigned x = m->v.op.out_axes[nrow + a];
            memcpy(rf + off, m->cl.point + ob.off[x], ob.nv[x] * sizeof *rf);
            off += ob.nv[x];
        }
        int64_t *acc = member_acc(c, m);
        uint64_t reads = 0;
        st = acc ? fold_view(acc, to->dims, to->rank, nrow, to->rank, pts, &tabs[2 * t], &reads) : EZ_ERR_NOMEM;
        free(acc);
        if (st == EZ_OK)
            st = flat_map_table(NULL, fv, ext, k, rf, &tabs[2 * t + 1]);
        ez_work_add(c->work, 0, reads, 0);
        if (st != EZ_OK)
            goto out;
    }
    ez_sumcheck_factor f[2 * EZ_HEADS_MAX_GROUP];
    for (unsigned j = 0; j < 2 * n; j++)
        f[j] = (ez_sumcheck_factor){NULL, tabs[j]};
    ez_fe2 pj[EZ_SC_MAX_VARS], ev[2 * EZ_HEADS_MAX_GROUP];
    if ((st = ez_su_sumcheck(c, "the padding sumcheck", &d, lam, NULL, f, claim, pj, ev)) != EZ_OK)
        goto out;
    for (unsigned t = 0; t < n && st == EZ_OK; t++) {
        member *m = &ms[idx[t]];
        const ez_plan_tensor *to = &m->v.tensors[m->v.op.out];
        ez_point_blocks ob;
        ez_plan_point_blocks(&ob, &m->v.op, m->v.op.out_axes, to->rank);
        ez_fe2 rf[EZ_PROVE_MAX_VARS], pv;
        for (unsigned a = 0, off = 0; a < k; a++) {
            unsigned x = m->v.op.out_axes[to->rank - k + a];
            memcpy(rf + off, m->cl.point + ob.off[x], ob.nv[x] * sizeof *rf);
            off += ob.nv[x];
        }
        if ((st = flat_map_mle(pj, fv, ext, k, rf, &pv)) != EZ_OK)
            break;
        if (!c->prover && !ez_fe2_eq(pv, ev[2 * t + 1])) {
            ez_diag_set(c->d, "the padding matrix value is wrong");
            st = EZ_ERR_REJECT;
            break;
        }
        memcpy(m->flat, pj, fv * sizeof *pj);
        m->flatv = ev[2 * t];
    }
out:
    for (unsigned j = 0; j < 2 * EZ_HEADS_MAX_GROUP; j++)
        free(tabs[j]);
    return st;
}

/* 4. the flat weight claims W_m(p_y; p_j) of class cls back to the split weights. */
static ez_status mirror_sumcheck(ez_pctx *c, member *ms, unsigned nm, unsigned cls, const ez_fe2 *py,
                                 const ez_fe2 *wv)
{
    unsigned idx[EZ_HEADS_MAX_GROUP];
    uint64_t ext[EZ_MAX_IDX];
    const unsigned n = class_members(ms, nm, cls, idx, ext);
    const ez_heads *h = &ms[idx[0]].h;
    unsigned sv = 0;
    for (unsigned a = 0; a < h->nflat; a++)
        sv += ez_log2_ceil(ext[a]);
    const unsigned fv = h->flat_vars, k = h->nflat;
    const ez_fe2 *pj = ms[idx[0]].flat;
    ez_fe2 lam[EZ_HEADS_MAX_GROUP], claim = ez_fe2_zero();
    ez_transcript_challenges_fe2(c->t, "deepprove/lambda-w", lam, n);
    ez_fe2 *tabs[1 + EZ_HEADS_MAX_GROUP] = {NULL};
    ez_status st = EZ_OK;
    ez_sumcheck_desc d;
    ez_su_desc(&d, sv, 1 + n, n);
    if (c->prover && (st = flat_map_table(pj, fv, ext, k, NULL, &tabs[0])) != EZ_OK)
        goto out;
    for (unsigned t = 0; t < n; t++) {
        member *m = &ms[idx[t]];
        claim = ez_fe2_add(claim, ez_fe2_mul(lam[t], wv[idx[t]]));
        d.term[t].nf = 2, d.term[t].f[0] = 0, d.term[t].f[1] = 1 + t;
        if (!c->prover)
            continue;
        const ez_plan_tensor *tb = &m->v.tensors[1];
        const ez_fe2 *pts[EZ_MAX_RANK] = {NULL};
        for (unsigned a = 0, off = 0; a + k < tb->rank; a++) {
            pts[a] = py + off;
            off += ez_log2_ceil(tb->dims[a]);
        }
        uint64_t reads = 0;
        st = fold_view(m->v.data[1], tb->dims, tb->rank, 0, 0, pts, &tabs[1 + t], &reads);
        ez_work_add(c->work, 0, reads, 0);
        if (st != EZ_OK)
            goto out;
    }
    ez_sumcheck_factor f[1 + EZ_HEADS_MAX_GROUP];
    for (unsigned j = 0; j <= n; j++)
        f[j] = (ez_sumcheck_factor){NULL, tabs[j]};
    ez_fe2 px[EZ_SC_MAX_VARS], ev[1 + EZ_HEADS_MAX_GROUP];
    if ((st = ez_su_sumcheck(c, "the weights' unpadding sumcheck", &d, lam, NULL, f, claim, px, ev)) != EZ_OK)
        goto out;
    if ((st = unpad_value_check(c, pj, fv, ext, k, px, ev[0], "weights' unpadding matrix")) != EZ_OK)
        goto out;
    for (unsigned t = 0; t < n && st == EZ_OK; t++) {
        member *m = &ms[idx[t]];
        ez_fe2 pnt[EZ_PROVE_MAX_VARS];
        const ez_plan_tensor *tb = &m->v.tensors[1];
        unsigned off = 0;
        for (unsigned a = 0; a + k < tb->rank; a++)
            off += ez_log2_ceil(tb->dims[a]);
        memcpy(pnt, py, off * sizeof *pnt);
        memcpy(pnt + off, px, sv * sizeof *pnt);
        ez_claim cl = {.nvars = off + sv, .point = pnt, .value = ev[1 + t]};
        st = ez_opview_claim(c, &m->v, m->op, 1, &cl);
    }
out:
    for (unsigned j = 0; j <= EZ_HEADS_MAX_GROUP; j++)
        free(tabs[j]);
    return st;
}

ez_status ez_deepprove_proj_in(ez_pctx *c, size_t op, const ez_claim *out)
{
    bool *live = ez_alloc_array(c->plan->ntensors, sizeof *live);
    member ms[EZ_HEADS_MAX_GROUP];
    size_t ids[EZ_HEADS_MAX_GROUP];
    unsigned nm = 0, ncls = 0;
    ez_status st = EZ_OK;
    ez_fe2 *xt[EZ_HEADS_MAX_GROUP] = {NULL}, *wt[EZ_HEADS_MAX_GROUP] = {NULL};
    memset(ms, 0, sizeof ms);
    if (!live)
        return EZ_ERR_NOMEM;
    for (size_t t = 0; t < c->plan->ntensors; t++)
        live[t] = c->tclaims[t].n > 0;
    live[c->plan->ops[op].out] = true;
    ez_heads_group(c->plan, op, live, ids, &nm);
    free(live);
    if (ids[nm - 1] != op)
        return EZ_ERR_INTERNAL; /* the walk reaches the last member first */
    for (unsigned i = 0; i < nm; i++) {
        member *m = &ms[i];
        m->op = ids[i];
        if ((st = ez_opview_init(&m->v, c->plan, m->op, c->prover ? c->tr : NULL)) != EZ_OK)
            goto out;
        ez_heads_classify(&m->v.op, m->v.tensors, &m->h);
        /* the class: the first member with the same flat extents */
        m->cls = ncls;
        for (unsigned j = 0; j < i; j++) {
            bool same = ms[j].h.nflat == m->h.nflat;
            for (unsigned a = 0; same && a < m->h.nflat; a++)
                same = ms[j].v.op.idx_size[ms[j].h.flat[a]] == m->v.op.idx_size[m->h.flat[a]];
            if (same) {
                m->cls = ms[j].cls;
                break;
            }
        }
        if (m->cls == ncls)
            ncls++;
    }
    /* 1. every member's claim, then its rescale */
    for (unsigned i = 0; i < nm && st == EZ_OK; i++) {
        member *m = &ms[i];
        if ((st = member_claim(c, m, m->op == op ? out : NULL)) != EZ_OK)
            goto out;
        ez_claim_absorb(c->t, "deepprove/out", &m->cl);
        if ((st = ez_su_rescale(c, m->op, &m->cl, false, "deepprove/rem", &m->acc)) != EZ_OK)
            goto out;
        if (c->prover)
            ez_work_add(c->work, 0, 0, ez_einsum_real_work(&m->v.op, m->v.tensors));
    }
    /* 2. the padding matrices, one sumcheck per class; with split == flat the member's
     * own claim is its flat claim */
    for (unsigned cl = 0; cl < ncls && st == EZ_OK; cl++) {
        unsigned first = 0;
        while (ms[first].cls != cl)
            first++;
        if (!ms[first].h.flat_is_split) {
            st = pad_sumcheck(c, ms, nm, cl);
            continue;
        }
        for (unsigned i = 0; i < nm; i++) {
            member *m = &ms[i];
            if (m->cls != cl)
                continue;
            const ez_plan_tensor *to = &m->v.tensors[m->v.op.out];
            ez_point_blocks ob;
            ez_plan_point_blocks(&ob, &m->v.op, m->v.op.out_axes, to->rank);
            for (unsigned a = 0, off = 0; a < m->h.nflat; a++) {
                unsigned x = m->v.op.out_axes[to->rank - m->h.nflat + a];
                memcpy(m->flat + off, m->cl.point + ob.off[x], ob.nv[x] * sizeof *m->flat);
                off += ob.nv[x];
            }
            m->flatv = m->acc;
        }
    }
    if (st != EZ_OK)
        goto out;
    /* 3. the aggregated QKV sumcheck over the contracted variables */
    const ez_heads *h0 = &ms[0].h;
    unsigned cv = 0;
    for (unsigned a = 0; a < h0->ncon; a++)
        cv += ez_log2_ceil(ms[0].v.op.idx_size[h0->con[a]]);
    ez_fe2 lam[EZ_HEADS_MAX_GROUP], coef[EZ_HEADS_MAX_GROUP], claim = ez_fe2_zero();
    ez_transcript_challenges_fe2(c->t, "deepprove/lambda-qkv", lam, nm);
    ez_sumcheck_desc d;
    ez_su_desc(&d, cv, 2 * nm, nm);
    for (unsigned i = 0; i < nm; i++) {
        member *m = &ms[i];
        claim = ez_fe2_add(claim, ez_fe2_mul(lam[i], m->flatv));
        coef[i] = ez_fe2_mul(lam[i], ez_fe2_from_fe(ez_fe_from_i64(m->v.op.mul)));
        d.term[i].nf = 2, d.term[i].f[0] = 2 * i, d.term[i].f[1] = 2 * i + 1;
        if (!c->prover)
            continue;
        const ez_plan_tensor *ta = &m->v.tensors[0], *tb = &m->v.tensors[1], *to = &m->v.tensors[m->v.op.out];
        ez_point_blocks ob;
        ez_plan_point_blocks(&ob, &m->v.op, m->v.op.out_axes, to->rank);
        const ez_fe2 *pa[EZ_MAX_RANK] = {NULL}, *pb[EZ_MAX_RANK] = {NULL};
        for (unsigned a = 0; a < ta->rank; a++) {
            unsigned x = m->v.op.in_axes[0][a];
            bool row = false;
            for (unsigned r = 0; r < m->h.nrow; r++)
                row = row || m->h.row[r] == x;
            pa[a] = row ? m->cl.point + ob.off[x] : NULL;
        }
        const unsigned k = m->h.nflat, nb = tb->rank;
        pb[nb - k] = m->flat; /* the merged flat axis of the weight */
        uint64_t reads = 0;
        if ((st = fold_view(m->v.data[0], ta->dims, ta->rank, 0, 0, pa, &xt[i], &reads)) != EZ_OK ||
            (st = fold_view(m->v.data[1], tb->dims, nb, nb - k, nb, pb, &wt[i], &reads)) != EZ_OK)
            goto out;
        ez_work_add(c->work, 0, reads, 0);
    }
    ez_sumcheck_factor f[2 * EZ_HEADS_MAX_GROUP];
    for (unsigned i = 0; i < nm; i++) {
        f[2 * i] = (ez_sumcheck_factor){NULL, xt[i]};
        f[2 * i + 1] = (ez_sumcheck_factor){NULL, wt[i]};
    }
    ez_fe2 py[EZ_SC_MAX_VARS], ev[2 * EZ_HEADS_MAX_GROUP];
    if ((st = ez_su_sumcheck(c, "the QKV sumcheck", &d, coef, NULL, f, claim, py, ev)) != EZ_OK)
        goto out;
    /* claims on x (one per member) and, split == flat, on the weights directly */
    ez_fe2 wv[EZ_HEADS_MAX_GROUP];
    for (unsigned i = 0; i < nm && st == EZ_OK; i++) {
        member *m = &ms[i];
        const ez_plan_tensor *to = &m->v.tensors[m->v.op.out];
        ez_point_blocks ob;
        ez_plan_point_blocks(&ob, &m->v.op, m->v.op.out_axes, to->rank);
        ez_su_blocks bl;
        memset(&bl, 0, sizeof bl);
        for (unsigned r = 0; r < m->h.nrow; r++)
            bl.at[m->h.row[r]] = m->cl.point + ob.off[m->h.row[r]];
        for (unsigned a = 0, off = 0; a < m->h.ncon; a++) {
            bl.at[m->h.con[a]] = py + off;
            off += ez_log2_ceil(m->v.op.idx_size[m->h.con[a]]);
        }
        for (unsigned a = 0, off = 0; a < m->h.nflat; a++) {
            bl.at[m->h.flat[a]] = m->flat + off; /* meaningful only when split == flat */
            off += ez_log2_ceil(m->v.op.idx_size[m->h.flat[a]]);
        }
        ez_fe2 pnt[EZ_PROVE_MAX_VARS];
        unsigned nv;
        if ((st = ez_su_operand_point(&m->v.op, m->v.tensors, 0, &bl, pnt, &nv)) != EZ_OK)
            break;
        ez_claim xc = {.nvars = nv, .point = pnt, .value = ev[2 * i]};
        if ((st = ez_opview_claim(c, &m->v, m->op, 0, &xc)) != EZ_OK)
            break;
        wv[i] = ev[2 * i + 1];
        if (m->h.flat_is_split) {
            if ((st = ez_su_operand_point(&m->v.op, m->v.tensors, 1, &bl, pnt, &nv)) != EZ_OK)
                break;
            ez_claim wc = {.nvars = nv, .point = pnt, .value = wv[i]};
            st = ez_opview_claim(c, &m->v, m->op, 1, &wc);
        }
    }
    /* 4. the weights' flat views back to their split form */
    for (unsigned cl = 0; cl < ncls && st == EZ_OK; cl++) {
        unsigned first = 0;
        while (ms[first].cls != cl)
            first++;
        if (!ms[first].h.flat_is_split)
            st = mirror_sumcheck(c, ms, nm, cl, py, wv);
    }
out:
    for (unsigned i = 0; i < nm; i++) {
        ez_claim_clear(&ms[i].cl);
        ez_opview_clear(&ms[i].v);
        free(xt[i]);
        free(wt[i]);
    }
    return st;
}
