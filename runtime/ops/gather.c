/* prove_gather — the GATHER reduction (an embedding lookup with PUBLIC token ids;
 * runtime/prove.h; docs/protocol.md §5.4).
 *
 *     out[s.., d..] = table[tok[s..], d..]  =  sum_w onehot[s.., w] table[w, d..]
 *
 * A contraction with the public one-hot matrix O[s, w] = [tok[s] = w] (docs/language.md). Given
 * out~(r_s, r_d) = v (r_s: the token tensor's indices, r_d: the table's other indices):
 *     v = sum_w H(w) T'(w),   H(w) = sum_{s real} eq(r_s, s) [tok[s] = w],  T'(w) = table~(w, r_d)
 * (the output's padding is zero on both sides: s ranges over real positions, table~ is
 * zero-padded in d). One degree-2 sumcheck over the vocabulary variables. At its end the
 * verifier evaluates H~(p) = sum_s eq(r_s, s) eq(p, tok[s]) itself from the public tokens
 * (O(S (log S + log V))) and the table claim is table~(p, r_d) = the T' evaluation. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "runtime/ops/op.h"

static ez_status gather_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    (void)sh;
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
    ez_point_blocks ob; /* the output point's block per index */
    ez_plan_point_blocks(&ob, o, o->out_axes, to->rank);
    if (ob.nvars != out->nvars)
        return EZ_ERR_INVALID;
    const ez_plan_tensor *tt = &v->tensors[0], *tk = &v->tensors[1];
    bool used[EZ_MAX_IDX] = {false};
    s->ns = 0;
    for (unsigned a = 0; a < tk->rank; a++) {
        unsigned x = v->op.in_axes[1][a];
        if (!ob.has[x] || used[x])
            return EZ_ERR_INVALID;
        used[x] = true;
        memcpy(s->rs + s->ns, out->point + ob.off[x], ob.nv[x] * sizeof(ez_fe2));
        s->ns += ob.nv[x];
    }
    s->nw = ez_log2_ceil(tt->dims[0]);
    s->nd = 0;
    s->rd_axis[0] = NULL;
    for (unsigned a = 1; a < tt->rank; a++) {
        unsigned x = v->op.in_axes[0][a];
        if (!ob.has[x] || used[x])
            return EZ_ERR_INVALID;
        used[x] = true;
        s->rd_axis[a] = s->rd + s->nd;
        memcpy(s->rd + s->nd, out->point + ob.off[x], ob.nv[x] * sizeof(ez_fe2));
        s->nd += ob.nv[x];
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

static ez_status gather_reduce(ez_pctx *c, size_t i, const ez_op_shape *sh, const ez_claim *out)
{
    const ez_plan_op *o = sh->o;
    const ez_plan_tensor *to = sh->to;
    const ez_opview *v = &sh->v;
    ez_status st = EZ_OK;
    gather_shape s;
    ez_fe2 *h = NULL, *tw = NULL, *fold = NULL, *eqs = NULL;
    int64_t *toktmp = NULL;
    ez_sumcheck_proof proof;
    ez_claim kc = {0};
    memset(&proof, 0, sizeof proof);
    if ((st = gather_shape_build(&s, v, o, to, out)) != EZ_OK)
        goto out;
    const ez_plan_tensor *tt = &v->tensors[0], *tk = &v->tensors[1];
    const ez_stmt_tensor *toks = ez_statement_find(c->stmt, o->in[1]);
    if (toks == NULL || toks->n != ez_plan_tensor_numel(tk)) {
        st = EZ_ERR_INVALID;
        goto out;
    }
    const int64_t *tok = ez_stmt_values(toks, &toktmp); /* the positions' tokens, small */
    if (tok == NULL) {
        st = EZ_ERR_NOMEM;
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
            tab[e] = ez_fe_from_i64(v->data[0][e]);
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
        if (st == EZ_OK && (st = gather_h_eval(&s, tk, tok, point, &hp)) == EZ_OK && !ez_fe2_eq(hp, evals[0]))
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
    st = ez_opview_claim(c, v, i, 0, &kc);
out:
    free(toktmp);
    ez_claim_clear(&kc);
    ez_sumcheck_proof_clear(&proof);
    free(h);
    free(tw);
    free(fold);
    free(eqs);
    return st;
}

static ez_status gather_exec(ez_exec_ctx *c)
{
    const ez_plan *p = c->p;
    const ez_plan_op *op = c->op;
    const ez_plan_tensor *tt = &p->tensors[op->in[0]];
    const ez_plan_tensor *tk = &p->tensors[op->in[1]];
    const ez_plan_tensor *to = &p->tensors[op->out];
    const uint64_t n = ez_plan_tensor_numel(to);
    /* table strides over its axes 1.. (axis 0 is the gathered one, addressed by the token) */
    int64_t st_tab[EZ_MAX_IDX], st_tok[EZ_MAX_IDX], base_tab, base_tok;
    ez_exec_strides(p, op, 0, st_tab, NULL, &base_tab);
    ez_exec_strides(p, op, 1, st_tok, NULL, &base_tok);
    int64_t row_stride = 1;
    for (unsigned a = 1; a < tt->rank; a++)
        row_stride *= (int64_t)tt->dims[a];
    unsigned grp[EZ_MAX_RANK] = {0};
    for (unsigned a = 0; a < to->rank; a++)
        grp[a] = op->out_axes[a];
    int64_t *otab = NULL, *otok = NULL;
    ez_status st = EZ_OK;
    if (ez_exec_group_offsets(&otab, op->idx_size, grp, to->rank, st_tab) != EZ_OK ||
        ez_exec_group_offsets(&otok, op->idx_size, grp, to->rank, st_tok) != EZ_OK) {
        ez_diag_set(c->d, "out of memory in '%s'", op->label);
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const int64_t *tab = c->tr->t[op->in[0]] + base_tab, *tok = c->tr->t[op->in[1]] + base_tok;
    int64_t *out = c->tr->t[op->out];
    const int64_t rows = (int64_t)tt->dims[0];
    uint64_t bad = UINT64_MAX;
#pragma omp parallel for reduction(min : bad) schedule(static) if (n > 65536)
    for (uint64_t e = 0; e < n; e++) {
        int64_t t = tok[otok[e]];
        if (t < 0 || t >= rows) {
            bad = e < bad ? e : bad;
            out[e] = 0;
            continue;
        }
        out[e] = tab[t * row_stride + otab[e]];
    }
    if (bad != UINT64_MAX) {
        ez_diag_set(c->d, "token %" PRId64 " of '%s' is outside the %" PRId64 " rows of '%s'",
                    tok[otok[bad]], tk->name, rows, tt->name);
        st = EZ_ERR_INPUT;
    }
out:
    free(otab);
    free(otok);
    return st;
}

static ez_status gather_floatref(const ez_plan *p, const ez_plan_op *op, ez_ftrace *ft, ez_diag *d)
{
    const ez_plan_tensor *tt = &p->tensors[op->in[0]], *tk = &p->tensors[op->in[1]];
    const ez_plan_tensor *to = &p->tensors[op->out];
    const uint64_t n = ez_plan_tensor_numel(to);
    int64_t st_tok[EZ_MAX_IDX], st_tab[EZ_MAX_IDX], base_tok, base_tab, row_stride = 1;
    ez_exec_strides(p, op, 1, st_tok, NULL, &base_tok);
    ez_exec_strides(p, op, 0, st_tab, NULL, &base_tab);
    for (unsigned a = 1; a < tt->rank; a++)
        row_stride *= (int64_t)tt->dims[a];
    for (uint64_t e = 0; e < n; e++) {
        uint64_t coord[EZ_MAX_IDX];
        ez_exec_out_coords(p, op, e, coord);
        int64_t ot = base_tok, otab = base_tab;
        for (unsigned i = 0; i < op->nidx; i++)
            ot += (int64_t)coord[i] * st_tok[i], otab += (int64_t)coord[i] * st_tab[i];
        double tokv = ft->t[op->in[1]][ot];
        if (!(tokv >= 0 && tokv < (double)tt->dims[0])) {
            ez_diag_set(d, "token %g of '%s' is outside the table '%s'", tokv, tk->name, tt->name);
            return EZ_ERR_INPUT;
        }
        ft->t[op->out][e] = ft->t[op->in[0]][(int64_t)tokv * row_stride + otab];
    }
    return EZ_OK;
}

static uint64_t gather_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    (void)sh;
    const ez_plan_op *o = &p->ops[op];
    (void)L;
    /* a degree-2 sumcheck over the vocabulary variables and its two final evaluations */
    unsigned nv = ez_log2_ceil(p->tensors[o->in[0]].dims[0]);
    return ((uint64_t)2 * nv + 2) * EZ_OP_FE2_BYTES;
}

/* one claim on the table; the token tensor is public (its one-hot MLE is evaluated by the
 * verifier, never claimed) */
static unsigned gather_claims(const ez_plan *p, size_t op, const ez_op_shape *sh, unsigned operand)
{
    (void)sh;
    (void)p, (void)op;
    return operand == 0;
}

const ez_op_def ez_op_gather = {
    .exec = gather_exec,
    .floatref = gather_floatref,
    .shape_size = sizeof(ez_op_shape),
    .layout = gather_layout,
    .prove = gather_reduce,
    .verify = gather_reduce,
    .walk_bytes = gather_walk_bytes,
    .claims = gather_claims,
};
