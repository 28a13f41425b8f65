/* strategy_describe — what each strategy's walk holds and costs, per op, from the plan
 * alone (strategy.h ez_strategy_describe). It replays the walk's claim census (as
 * runtime/prove/layout.c does for the einsum strategy) with each strategy's own claims,
 * bytes and work; the formulas mirror strategy_einsum.c, strategy_perhead.c,
 * strategy_deepprove.c and strategy_deepprove_pad.c, and tests/check_strategies.c holds
 * them to the prover's counts. */
#include "config.h"

#include "runtime/prove/strategy.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/ops/op.h"
#include "runtime/prove/claim.h"
#include "runtime/prove/contraction.h"
#include "runtime/prove/heads.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/live.h"
#include "runtime/prove/rangecheck.h"
#include "runtime/prove/strategy_util.h"

#define FE 16u /* bytes of one extension element */

/* table entries a dense sumcheck over nv variables reads (ez_su_sumcheck's count) */
static uint64_t sc_reads(unsigned nv)
{
    return nv ? (UINT64_C(2) << nv) - 2 : 1;
}

/* the rescale's bytes: rho and the remainder's limbs beyond the first */
static uint64_t rem_bytes(const ez_plan_op *op)
{
    return op->shift ? FE + (uint64_t)(ez_rc_nlimbs(op->shift) - 1) * FE : 0;
}

/* entries of a tensor with axes [m0, m1) merged, every axis padded (fold_view's reads) */
static uint64_t merged_padded(const ez_plan_tensor *t, unsigned m0, unsigned m1)
{
    uint64_t n = 1, f = 1;
    for (unsigned a = 0; a < t->rank; a++) {
        if (a >= m0 && a < m1)
            f *= t->dims[a];
        else
            n <<= ez_log2_ceil(t->dims[a]);
    }
    return m1 > m0 ? n << ez_log2_ceil(f) : n;
}

static void add_work(ez_work *w, uint64_t s, uint64_t t, uint64_t r)
{
    w->sumchecks += s;
    w->touched += t;
    w->real += r;
}

/* the fan-out merge of n claims (padded: the padded strategies' dense merge) */
static void merge_cost(const ez_plan *p, size_t op, uint64_t n, bool padded, ez_strategy_op *o)
{
    const ez_plan_tensor *to = &p->tensors[p->ops[op].out];
    if (n <= 1)
        return;
    o->walk_bytes += ((uint64_t)2 * ez_claim_tensor_nvars(to->dims, to->rank) + 2) * FE;
    add_work(&o->work, 1, ez_claim_merge_work(to->dims, to->rank, n, padded),
             ez_claim_merge_work(to->dims, to->rank, n, false));
}

/* the plain contraction (strategy_einsum.c ez_strategy_plain_reduce) */
static void plain_cost(const ez_plan_op *vop, const ez_plan_tensor *vt, bool dense, ez_strategy_op *o)
{
    o->walk_bytes += ez_einsum_proof_size(vop, vt, NULL);
    if (vop->shift)
        o->walk_bytes += (uint64_t)(ez_rc_nlimbs(vop->shift) - 1) * FE;
    ez_work w = ez_einsum_work(vop, vt, dense);
    add_work(&o->work, w.sumchecks, w.touched, w.real);
}

/* strategy_perhead.c */
static void perhead_cost(const ez_plan_op *vop, const ez_plan_tensor *vt, const ez_heads *h, ez_strategy_op *o)
{
    uint64_t H = h->nheads, cv = h->con_vars;
    o->walk_bytes += rem_bytes(vop) + H * FE + H * (2 * cv + 2) * FE;
    add_work(&o->work, H, ez_su_padded_numel(&vt[0]) + ez_su_padded_numel(&vt[1]) + H * sc_reads(h->con_vars),
             ez_einsum_real_work(vop, vt));
}

/* strategy_deepprove.c: the zeroifier (masked) and the stacked heads */
static void dp_mix_cost(const ez_plan_op *vop, const ez_plan_tensor *vt, const ez_heads *h, bool masked,
                        ez_strategy_op *o)
{
    const ez_plan_tensor *to = &vt[vop->out];
    unsigned n = ez_claim_tensor_nvars(to->dims, to->rank);
    uint64_t nh = UINT64_C(1) << h->head_vars;
    if (masked) {
        o->walk_bytes += FE + ((uint64_t)3 * n + 2) * FE;
        add_work(&o->work, 1, (UINT64_C(1) << n) + sc_reads(n), 0);
    }
    o->walk_bytes += rem_bytes(vop) + (uint64_t)2 * h->con_vars * FE + 2 * nh * FE;
    uint64_t rounds = h->con_vars ? nh * ((UINT64_C(2) << h->con_vars) - 2) : 0;
    add_work(&o->work, 1, ez_su_padded_numel(&vt[0]) + ez_su_padded_numel(&vt[1]) + rounds,
             ez_einsum_real_work(vop, vt));
}

/* the split variables of a flat axis */
static unsigned split_vars(const ez_plan_op *vop, const ez_heads *h)
{
    unsigned sv = 0;
    for (unsigned a = 0; a < h->nflat; a++)
        sv += ez_log2_ceil(vop->idx_size[h->flat[a]]);
    return sv;
}

/* strategy_deepprove_pad.c ez_deepprove_proj_out */
static void dp_out_cost(const ez_plan_op *vop, const ez_plan_tensor *vt, const ez_heads *h, ez_strategy_op *o)
{
    const unsigned k = h->nflat, fv = h->flat_vars, sv = split_vars(vop, h);
    const ez_plan_tensor *ta = &vt[0], *tb = &vt[1];
    o->walk_bytes += rem_bytes(vop) + ((uint64_t)2 * fv + 2) * FE + ((uint64_t)2 * sv + 3) * FE;
    add_work(&o->work, 2,
             merged_padded(ta, ta->rank - k, ta->rank) + merged_padded(tb, 0, k) + sc_reads(fv) +
                 ez_su_padded_numel(ta) + ez_su_padded_numel(tb) + sc_reads(sv),
             ez_einsum_real_work(vop, vt));
}

/* strategy_deepprove_pad.c ez_deepprove_proj_in: the group op closes, its members' claims
 * consumed (census) */
static ez_status dp_in_cost(const ez_plan *p, size_t op, uint64_t *claims, ez_strategy_op *ops)
{
    bool *live = ez_alloc_array(p->ntensors, sizeof *live);
    size_t ids[EZ_HEADS_MAX_GROUP];
    unsigned nm;
    if (!live)
        return EZ_ERR_NOMEM;
    for (size_t t = 0; t < p->ntensors; t++)
        live[t] = claims[t] > 0;
    live[p->ops[op].out] = true;
    ez_heads_group(p, op, live, ids, &nm);
    free(live);
    ez_strategy_op *o = &ops[op];
    struct {
        ez_opview v;
        ez_heads h;
        unsigned cls;
    } m[EZ_HEADS_MAX_GROUP];
    unsigned ncls = 0;
    ez_status st = EZ_OK;
    for (unsigned i = 0; i < nm; i++) {
        if ((st = ez_opview_init(&m[i].v, p, ids[i], NULL)) != EZ_OK) {
            nm = i;
            goto out;
        }
        ez_heads_classify(&m[i].v.op, m[i].v.tensors, &m[i].h);
        m[i].cls = ncls;
        for (unsigned j = 0; j < i; j++) {
            bool same = m[j].h.nflat == m[i].h.nflat;
            for (unsigned a = 0; same && a < m[i].h.nflat; a++)
                same = m[j].v.op.idx_size[m[j].h.flat[a]] == m[i].v.op.idx_size[m[i].h.flat[a]];
            if (same) {
                m[i].cls = m[j].cls;
                break;
            }
        }
        if (m[i].cls == ncls)
            ncls++;
    }
    /* members: their merges (the leader's was counted by the walk), rescales, real work */
    for (unsigned i = 0; i < nm; i++) {
        const ez_plan_op *mo = &p->ops[ids[i]];
        if (ids[i] != op) {
            ops[ids[i]].out_claims = (unsigned)claims[mo->out];
            merge_cost(p, ids[i], claims[mo->out], true, o);
            claims[mo->out] = 0;
        }
        o->walk_bytes += rem_bytes(mo);
        add_work(&o->work, 0, 0, ez_einsum_real_work(&m[i].v.op, m[i].v.tensors));
    }
    /* padding and unpadding per class, the QKV sumcheck */
    unsigned cv = 0;
    for (unsigned a = 0; a < m[0].h.ncon; a++)
        cv += ez_log2_ceil(m[0].v.op.idx_size[m[0].h.con[a]]);
    for (unsigned cl = 0; cl < ncls; cl++) {
        unsigned n = 0, f = 0;
        for (unsigned i = 0; i < nm; i++)
            if (m[i].cls == cl && n++ == 0)
                f = i;
        const ez_heads *h = &m[f].h;
        if (h->flat_is_split)
            continue;
        const unsigned fv = h->flat_vars, sv = split_vars(&m[f].v.op, h);
        o->walk_bytes += ((uint64_t)2 * fv + 2 * n) * FE + ((uint64_t)2 * sv + 1 + n) * FE;
        add_work(&o->work, 2, sc_reads(fv) + sc_reads(sv), 0);
        for (unsigned i = 0; i < nm; i++) {
            if (m[i].cls != cl)
                continue;
            const ez_plan_tensor *to = &m[i].v.tensors[m[i].v.op.out];
            add_work(&o->work, 0, merged_padded(to, to->rank - h->nflat, to->rank) +
                                      ez_su_padded_numel(&m[i].v.tensors[1]), 0);
        }
    }
    o->walk_bytes += ((uint64_t)2 * cv + 2 * nm) * FE;
    add_work(&o->work, 1, sc_reads(cv), 0);
    for (unsigned i = 0; i < nm; i++) {
        const ez_plan_tensor *tb = &m[i].v.tensors[1];
        add_work(&o->work, 0,
                 ez_su_padded_numel(&m[i].v.tensors[0]) + merged_padded(tb, tb->rank - m[i].h.nflat, tb->rank), 0);
        claims[p->ops[ids[i]].in[0]]++;
        claims[p->ops[ids[i]].in[1]]++;
    }
out:
    for (unsigned i = 0; i < nm; i++)
        ez_opview_clear(&m[i].v);
    return st;
}

/* One EINSUM op under strategy s: its role, bytes, work, and the claims it leaves. */
static ez_status einsum_cost(const ez_plan *p, const ez_advice_layout *L, size_t i, ez_strategy s, uint64_t *claims,
                             ez_strategy_op *ops)
{
    const ez_plan_op *op = &p->ops[i];
    ez_strategy_op *o = &ops[i];
    ez_opview v;
    ez_status st = ez_opview_init(&v, p, i, NULL);
    if (st != EZ_OK)
        return st;
    ez_heads h;
    memset(&h, 0, sizeof h);
    if (op->nin == 2)
        ez_heads_classify(&v.op, v.tensors, &h);
    unsigned mr, mc;
    uint64_t each = 1;
    /* the live step (runtime/prove/live.h) sends the rescale's messages and removes the
     * causal mask: the strategy proves a claim on the accumulator */
    const bool live = ez_live_support_of(L, p, i) >= 0;
    if (live) {
        uint64_t sc, touched;
        o->walk_bytes += ez_live_bytes(p, i);
        ez_live_work(p, i, &sc, &touched);
        add_work(&o->work, sc, touched, 0);
        v.op.shift = 0;
    }
    if (s == EZ_STRATEGY_PER_HEAD && h.role == EZ_HEAD_MIX) {
        o->role = h.role;
        perhead_cost(&v.op, v.tensors, &h, o);
        each = h.nheads;
    } else if (s == EZ_STRATEGY_DEEPPROVE && h.role == EZ_HEAD_MIX) {
        o->role = h.role;
        dp_mix_cost(&v.op, v.tensors, &h, !live && ez_heads_mask(p, i, &mr, &mc), o);
    } else if (s == EZ_STRATEGY_DEEPPROVE && h.role == EZ_HEAD_PROJ_OUT && !h.flat_is_split) {
        o->role = h.role;
        dp_out_cost(&v.op, v.tensors, &h, o);
    } else if (s == EZ_STRATEGY_DEEPPROVE && h.role == EZ_HEAD_PROJ_IN) {
        o->role = h.role;
        st = dp_in_cost(p, i, claims, ops);
        ez_opview_clear(&v);
        return st; /* it placed its own claims */
    } else {
        plain_cost(&v.op, v.tensors, s != EZ_STRATEGY_EINSUM, o);
    }
    for (unsigned k = 0; k < op->nin; k++)
        claims[op->in[k]] += each;
    ez_opview_clear(&v);
    return EZ_OK;
}

void ez_strategy_plan_clear(ez_strategy_plan *sp)
{
    if (sp == NULL)
        return;
    free(sp->ops);
    memset(sp, 0, sizeof *sp);
}

ez_status ez_strategy_describe(ez_strategy_plan *sp, const ez_plan *p, ez_strategy s, ez_diag *d)
{
    ez_layout_sizes z;
    ez_advice_layout L;
    uint64_t *claims = NULL;
    bool *prov = NULL;
    memset(sp, 0, sizeof *sp);
    ez_advice_layout_init(&L);
    if ((unsigned)s >= EZ_STRATEGY_COUNT)
        return EZ_ERR_INVALID;
    ez_status st = ez_layout_sizes_compute(&z, p, d);
    if (st != EZ_OK)
        return st;
    sp->strategy = s;
    sp->nops = p->nops;
    sp->ops = ez_alloc_array(p->nops ? p->nops : 1, sizeof *sp->ops);
    claims = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *claims);
    prov = ez_alloc_array(p->nops ? p->nops : 1, sizeof *prov);
    if (!sp->ops || !claims || !prov) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    if ((st = ez_advice_layout_build_lenient(&L, p, prov, d)) != EZ_OK)
        goto out;
    sp->provable = z.provable;
    sp->committed = z.advice_elems;
    /* the census's sources, as runtime/prove/layout.c: outputs, lookup columns on tensors */
    for (size_t t = 0; t < p->ntensors; t++)
        claims[t] = p->tensors[t].is_output;
    for (size_t j = 0; j < L.ncols; j++)
        if (L.cols[j].atom.is_tensor)
            claims[L.cols[j].atom.id] += (uint64_t)__builtin_popcountll(L.cols[j].len);
    for (size_t j = 0; j < L.ntuples; j++)
        for (unsigned w = 0; w < EZ_LOOKUP_FUNC_WIDTH; w++)
            if (L.tuples[j].atom[w].is_tensor)
                claims[L.tuples[j].atom[w].id]++;
    for (size_t i = p->nops; i-- > 0;) {
        const ez_plan_op *op = &p->ops[i];
        ez_strategy_op *o = &sp->ops[i];
        o->provable = z.ops[i].provable;
        o->committed = z.ops[i].advice_elems;
        if (!o->provable || claims[op->out] == 0)
            continue;
        o->out_claims = (unsigned)claims[op->out];
        merge_cost(p, i, claims[op->out], s != EZ_STRATEGY_EINSUM, o);
        claims[op->out] = 0;
        if (op->kind == EZ_OP_EINSUM) {
            if ((st = einsum_cost(p, &L, i, s, claims, sp->ops)) != EZ_OK)
                goto out;
        } else {
            o->walk_bytes += ez_op_walk_bytes(p, &L, i);
            for (unsigned k = 0; k < op->nin; k++)
                claims[op->in[k]] += ez_op_claims(p, i, k);
        }
    }
    for (size_t i = 0; i < p->nops; i++) {
        sp->walk_bytes += sp->ops[i].walk_bytes;
        add_work(&sp->work, sp->ops[i].work.sumchecks, sp->ops[i].work.touched, sp->ops[i].work.real);
    }
out:
    free(claims);
    free(prov);
    ez_advice_layout_clear(&L);
    ez_layout_sizes_clear(&z);
    if (st != EZ_OK)
        ez_strategy_plan_clear(sp);
    return st;
}
