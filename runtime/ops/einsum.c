/* EINSUM — out = floor(mul * sum_{summed} prod_k in_k / 2^shift), one or two operands
 * (docs/protocol-einsum.md).
 *
 * exec/float  the contraction engine (runtime/exec/contract.h);
 * layout      a rescale (shift > 0) commits the remainder R in [0, 2^shift) and
 *             range-checks the quotient to its width — BOTH, so the floor division has
 *             one solution (runtime/prove/rangecheck.h ez_rc_rescale);
 * prove       by the proof's strategy (runtime/prove/strategies.h): by default the claim
 *             out~(r) = v becomes acc~(r) = 2^shift v + R~(r), then ONE sumcheck over the
 *             batch + contracted variables with an eq factor on the batch ones, leaving
 *             one claim per operand (runtime/prove/contraction.h; protocol and soundness
 *             in docs/protocol-einsum.md); deepprove and per-head restructure the
 *             contractions with head axes (docs/comparison.md). An op with the plan's
 *             live mark (its output read only by a causal softmax) first reduces the
 *             claim on its output restricted to the softmax's live support to a claim on
 *             the accumulator (runtime/prove/live.h), which the strategy then proves
 *             without a rescale. */
#include "config.h"

#include "runtime/exec/contract.h"
#include "runtime/ops/op.h"
#include "runtime/prove/contraction.h"
#include "runtime/prove/live.h"
#include "runtime/prove/rangecheck.h"
#include "runtime/prove/strategies.h"

static ez_status einsum_layout(ez_advice_layout *L, const ez_plan *p, size_t op, const ez_op_shape *sh, ez_diag *d)
{
    (void)sh; /* none: the prover's view would copy sliced operands the strategies never read */
    const ez_plan_op *o = &p->ops[op];
    ez_opview v;
    ez_status st = ez_opview_init(&v, p, op, NULL);
    if (st != EZ_OK)
        return st;
    /* the kernel's own preconditions, checked on the view (no data) */
    ez_status sz = EZ_OK;
    (void)ez_einsum_proof_size(&v.op, v.tensors, &sz);
    ez_opview_clear(&v);
    if (sz != EZ_OK) {
        ez_diag_set(d, "op '%s' (einsum): this contraction's shape is not provable", o->label);
        return EZ_ERR_UNSUPPORTED;
    }
    if (o->shift == 0)
        return EZ_OK;
    /* first the live support, so the remainder and the range check land on it */
    ez_status sl = ez_live_layout(L, p, op);
    return sl != EZ_OK ? sl : ez_rc_rescale(L, p, op, o->shift, d);
}

/* One function for both sides: the proof's strategy reduces the claim (one file each,
 * runtime/prove/strategies.h). */
static ez_status einsum_reduce(ez_pctx *c, size_t op, const ez_op_shape *sh, const ez_claim *out)
{
    (void)sh;
    ez_claim acc = {0};
    const ez_claim *cl = out;
    long sup = ez_live_support_of(c->adv, c->plan, op);
    ez_status st = EZ_OK;
    if (sup >= 0) {
        if ((st = ez_live_reduce(c, op, &c->adv->supports[sup], out, &acc)) != EZ_OK)
            goto out;
        cl = &acc;
    }
    const bool on_acc = sup >= 0;
    switch (c->strategy) {
    case EZ_STRATEGY_EINSUM:
        st = ez_strategy_einsum_reduce(c, op, cl, on_acc);
        break;
    case EZ_STRATEGY_DEEPPROVE:
        st = ez_strategy_deepprove_reduce(c, op, cl, on_acc);
        break;
    case EZ_STRATEGY_PER_HEAD:
        st = ez_strategy_perhead_reduce(c, op, cl, on_acc);
        break;
    default:
        st = EZ_ERR_INVALID;
    }
out:
    ez_claim_clear(&acc);
    return st;
}

static uint64_t einsum_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op, const ez_op_shape *sh)
{
    (void)sh;
    ez_opview v;
    if (ez_opview_init(&v, p, op, NULL) != EZ_OK)
        return 0;
    const bool live = ez_live_support_of(L, p, op) >= 0;
    if (live)
        v.op.shift = 0; /* the live step sends the rescale's messages */
    uint64_t b = ez_einsum_proof_size(&v.op, v.tensors, NULL);
    ez_opview_clear(&v);
    if (live)
        b += ez_live_bytes(p, op);
    else if (p->ops[op].shift > 0) /* the remainder's limbs beyond the first, at the claim point */
        b += (uint64_t)(ez_rc_nlimbs(p->ops[op].shift) - 1) * EZ_OP_FE2_BYTES;
    return b;
}

/* The fused rescale: acc = 2^shift q + r (the accumulator within its bound, q in the
 * output's width, r in [0, 2^shift)). */
static void einsum_relations(ez_margins *m, const ez_plan *p, size_t op, const ez_op_shape *sh)
{
    (void)sh;
    if (p->ops[op].shift > 0)
        ez_rel_rescale(m, p, op, p->ops[op].shift);
}

const ez_op_def ez_op_einsum = {
    .exec = ez_exec_contract,
    .floatref = ez_floatref_contract,
    .layout = einsum_layout,
    .prove = einsum_reduce,
    .verify = einsum_reduce,
    .walk_bytes = einsum_walk_bytes,
    .claims = ez_op_one_claim,
    .relations = einsum_relations,
};
