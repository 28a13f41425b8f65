/* prove_gather — the GATHER reduction (an embedding lookup with PUBLIC token ids;
 * runtime/prove.h; docs/protocol.md §5.4).
 *
 *     out[s.., d..] = table[tok[s..], d..]  =  sum_w onehot[s.., w] table[w, d..]
 *
 * A contraction with the public one-hot matrix O[s, w] = [tok[s] = w] (DESIGN §2). Given
 * out~(r_s, r_d) = v (r_s: the token tensor's indices, r_d: the table's other indices):
 *     v = sum_w H(w) T'(w),   H(w) = sum_{s real} eq(r_s, s) [tok[s] = w],  T'(w) = table~(w, r_d)
 * (the output's padding is zero on both sides: s ranges over real positions, table~ is
 * zero-padded in d). One degree-2 sumcheck over the vocabulary variables. At its end the
 * verifier evaluates H~(p) = sum_s eq(r_s, s) eq(p, tok[s]) itself from the public tokens
 * (O(S (log S + log V))) and the table claim is table~(p, r_d) = the T' evaluation. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/prove/prove.h"

ez_status ez_op_gather_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d)
{
    (void)L;
    const ez_plan_op *o = &p->ops[op];
    if (o->nin != 2 || o->shift != 0 || (o->in_fixed[0] & 1) || o->in_fixed[1] ||
        p->tensors[o->in[1]].kind != EZ_TENSOR_TOKENS) {
        ez_diag_set(d, "op '%s' (gather): this gather is not provable", o->label);
        return EZ_ERR_UNSUPPORTED;
    }
    return EZ_OK;
}

typedef struct {
    unsigned nw, ns;                       /* vocabulary and token-point variables */
    ez_fe2 rs[EZ_PROVE_MAX_VARS];          /* r over the token tensor's axes */
    ez_fe2 rd[EZ_PROVE_MAX_VARS];          /* r over the table's axes 1.. (slice order) */
    unsigned nd;
    const ez_fe2 *rd_axis[EZ_MAX_RANK];    /* per table (slice) axis: its block, NULL for axis 0 */
} gather_shape;

static ez_status gather_shape_build(gather_shape *s, const ez_opview *v, const ez_plan_op *o,
                                    const ez_plan_tensor *to, const ez_claim *out)
{
    unsigned off[EZ_MAX_IDX] = {0}, nv[EZ_MAX_IDX] = {0}, o_nv = 0;
    bool in_out[EZ_MAX_IDX] = {false};
    for (unsigned a = 0; a < to->rank; a++) {
        unsigned x = o->out_axes[a];
        in_out[x] = true;
        off[x] = o_nv;
        nv[x] = ez_log2_ceil(o->idx_size[x]);
        o_nv += nv[x];
    }
    if (o_nv != out->nvars)
        return EZ_ERR_INVALID;
    const ez_plan_tensor *tt = &v->tensors[0], *tk = &v->tensors[1];
    bool used[EZ_MAX_IDX] = {false};
    s->ns = 0;
    for (unsigned a = 0; a < tk->rank; a++) {
        unsigned x = v->op.in_axes[1][a];
        if (!in_out[x] || used[x])
            return EZ_ERR_INVALID;
        used[x] = true;
        memcpy(s->rs + s->ns, out->point + off[x], nv[x] * sizeof(ez_fe2));
        s->ns += nv[x];
    }
    s->nw = ez_log2_ceil(tt->dims[0]);
    s->nd = 0;
    s->rd_axis[0] = NULL;
    for (unsigned a = 1; a < tt->rank; a++) {
        unsigned x = v->op.in_axes[0][a];
        if (!in_out[x] || used[x])
            return EZ_ERR_INVALID;
        used[x] = true;
        s->rd_axis[a] = s->rd + s->nd;
        memcpy(s->rd + s->nd, out->point + off[x], nv[x] * sizeof(ez_fe2));
        s->nd += nv[x];
    }
    for (unsigned a = 0; a < to->rank; a++)
        if (!used[o->out_axes[a]])
            return EZ_ERR_INVALID; /* an output index named by neither operand */
    return EZ_OK;
}

/* H~(p) from the public tokens (both sides use it; the prover only for self-checks). */
static ez_status gather_h_eval(const gather_shape *s, const ez_plan_tensor *tk, const int64_t *tok,
                               const ez_fe2 *p, ez_fe2 *out)
{
    uint64_t stride[EZ_MAX_RANK];
    ez_advice_strides(tk, stride);
    size_t N = (size_t)1 << s->ns;
    ez_fe2 *eqs = ez_alloc_aligned(N, sizeof *eqs);
    if (eqs == NULL)
        return EZ_ERR_NOMEM;
    ez_eq_table(eqs, s->rs, s->ns);
    uint64_t n = ez_plan_tensor_numel(tk);
    ez_fe2 acc = ez_fe2_zero(), one = ez_fe2_one();
    for (uint64_t e = 0; e < n; e++) {
        uint64_t rest = e, pos = 0;
        for (unsigned a = tk->rank; a-- > 0;) {
            pos += (rest % tk->dims[a]) * stride[a];
            rest /= tk->dims[a];
        }
        ez_fe2 q = one;
        uint64_t w = (uint64_t)tok[e];
        for (unsigned b = 0; b < s->nw; b++) {
            bool bit = (w >> (s->nw - 1 - b)) & 1;
            q = ez_fe2_mul(q, bit ? p[b] : ez_fe2_sub(one, p[b]));
        }
        acc = ez_fe2_add(acc, ez_fe2_mul(eqs[pos], q));
    }
    free(eqs);
    *out = acc;
    return EZ_OK;
}

static ez_status gather_reduce(ez_pctx *c, size_t i, const ez_claim *out)
{
    const ez_plan *p = c->plan;
    const ez_plan_op *o = &p->ops[i];
    const ez_plan_tensor *to = &p->tensors[o->out];
    ez_opview v;
    ez_status st = ez_opview_init(&v, p, i, c->prover ? c->tr : NULL);
    if (st != EZ_OK)
        return st;
    gather_shape s;
    ez_fe2 *h = NULL, *tw = NULL, *fold = NULL, *eqs = NULL;
    ez_sumcheck_proof proof;
    ez_claim kc = {0};
    memset(&proof, 0, sizeof proof);
    if ((st = gather_shape_build(&s, &v, o, to, out)) != EZ_OK)
        goto out;
    const ez_plan_tensor *tt = &v.tensors[0], *tk = &v.tensors[1];
    const ez_stmt_tensor *toks = ez_statement_find(c->stmt, o->in[1]);
    if (toks == NULL || toks->n != ez_plan_tensor_numel(tk)) {
        st = EZ_ERR_INVALID;
        goto out;
    }
    ez_claim_absorb(c->t, "gather/out", out);
    ez_sumcheck_desc desc;
    ez_sumcheck_desc_init(&desc, s.nw, 2);
    ez_fe2 point[EZ_PROVE_MAX_VARS], evals[2];
    if (c->prover) {
        size_t N = (size_t)1 << s.nw, V = (size_t)tt->dims[0];
        h = ez_alloc_aligned(N, sizeof *h);
        tw = ez_alloc_aligned(N, sizeof *tw);
        fold = ez_alloc_aligned(V, sizeof *fold);
        eqs = ez_alloc_aligned((size_t)1 << s.ns, sizeof *eqs);
        if (!h || !tw || !fold || !eqs) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        /* T'(w) = table folded at r_d over axes 1.. */
        size_t dims[EZ_MAX_RANK];
        for (unsigned a = 0; a < tt->rank; a++)
            dims[a] = (size_t)tt->dims[a];
        ez_fe *tab = ez_alloc_aligned(ez_plan_tensor_numel(tt), sizeof *tab);
        if (tab == NULL) {
            st = EZ_ERR_NOMEM;
            goto out;
        }
        for (uint64_t e = 0; e < ez_plan_tensor_numel(tt); e++)
            tab[e] = ez_fe_from_i64(v.data[0][e]);
        st = ez_mle_fold_fe(fold, tab, dims, tt->rank, s.rd_axis);
        free(tab);
        if (st != EZ_OK)
            goto out;
        memset(tw, 0, N * sizeof *tw);
        memcpy(tw, fold, V * sizeof *tw);
        /* H(w) = sum over real token positions of eq(r_s, position) */
        uint64_t stride[EZ_MAX_RANK];
        ez_advice_strides(tk, stride);
        ez_eq_table(eqs, s.rs, s.ns);
        memset(h, 0, N * sizeof *h);
        const int64_t *tok = toks->v;
        for (uint64_t e = 0; e < toks->n; e++) {
            uint64_t rest = e, pos = 0;
            for (unsigned a = tk->rank; a-- > 0;) {
                pos += (rest % tk->dims[a]) * stride[a];
                rest /= tk->dims[a];
            }
            if (tok[e] < 0 || (uint64_t)tok[e] >= V) {
                st = EZ_ERR_INVALID;
                goto out;
            }
            h[tok[e]] = ez_fe2_add(h[tok[e]], eqs[pos]);
        }
        ez_sumcheck_factor f[2] = {{NULL, h}, {NULL, tw}};
        if ((st = ez_sumcheck_prove(c->t, &desc, NULL, NULL, f, out->value, &proof, point, evals)) != EZ_OK)
            goto out;
        ez_sumcheck_proof_write(c->w, &proof);
    } else {
        st = ez_sumcheck_proof_read(c->r, &desc, &proof);
        if (st == EZ_OK)
            st = ez_sumcheck_verify(c->t, &desc, NULL, NULL, out->value, &proof, point, evals);
        ez_fe2 hp;
        if (st == EZ_OK && (st = gather_h_eval(&s, tk, toks->v, point, &hp)) == EZ_OK && !ez_fe2_eq(hp, evals[0]))
            st = EZ_ERR_REJECT;
        if (st != EZ_OK) {
            ez_diag_set(c->d, "the one-hot sumcheck failed");
            st = st == EZ_ERR_NOMEM ? st : EZ_ERR_REJECT;
            goto out;
        }
    }
    /* the table claim at (p, r_d) in the table's (slice) axis order */
    ez_fe2 tp[EZ_PROVE_MAX_VARS];
    memcpy(tp, point, s.nw * sizeof *tp);
    memcpy(tp + s.nw, s.rd, s.nd * sizeof *tp);
    if ((st = ez_claim_set(&kc, tp, s.nw + s.nd, evals[1])) != EZ_OK)
        goto out;
    st = ez_opview_claim(c, &v, i, 0, &kc);
out:
    ez_claim_clear(&kc);
    ez_sumcheck_proof_clear(&proof);
    free(h);
    free(tw);
    free(fold);
    free(eqs);
    ez_opview_clear(&v);
    return st;
}

ez_status ez_op_gather_prove(ez_pctx *c, size_t op, const ez_claim *out)
{
    return gather_reduce(c, op, out);
}

ez_status ez_op_gather_verify(ez_pctx *c, size_t op, const ez_claim *out)
{
    return gather_reduce(c, op, out);
}
