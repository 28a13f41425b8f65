/* live — see live.h; protocol and soundness in docs/protocol-einsum.md "On the causal
 * support". */
#include "config.h"

#include "runtime/prove/live.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/ops/op.h"
#include "runtime/ops/rowaxis.h"
#include "runtime/prove/rangecheck.h"
#include "runtime/prove/strategy_util.h"

ez_status ez_live_layout(ez_advice_layout *L, const ez_plan *p, size_t op)
{
    const ez_plan_op *o = &p->ops[op];
    if (o->sched.live == 0 || o->sched.live > p->nops)
        return EZ_OK;
    const ez_plan_op *sm = &p->ops[o->sched.live - 1];
    const ez_plan_tensor *t = &p->tensors[o->out];
    unsigned at = ez_op_axis_pos(sm->in_axes[0], t->rank, sm->axis);
    unsigned ai = ez_op_axis_pos(sm->in_axes[0], t->rank, sm->mask_row);
    if (at >= t->rank || ai >= t->rank || at == ai)
        return EZ_OK; /* the softmax's layout refuses this shape by name */
    ez_rowaxis g;
    ez_rowaxis_init(&g, t, at);
    long idx = -1;
    ez_status st = ez_rowaxis_live_support(L, &g, true, ai, &idx);
    if (st == EZ_OK && idx >= 0) {
        L->supports[idx].tensor = o->out;
        L->supports[idx].live = true;
    }
    return st;
}

long ez_live_support_of(const ez_advice_layout *L, const ez_plan *p, size_t op)
{
    return p->ops[op].sched.live ? ez_advice_live_support(L, p->ops[op].out) : -1;
}

/* The prover's tables over the output's cube (2^n entries): the support's indicator and
 * the accumulator acc = 2^k a + R on EVERY entry (the masked ones included: its MLE at
 * the sumcheck's point is what the contraction proves). */
static ez_status live_tables(ez_pctx *c, size_t op, const ez_adv_support *s, unsigned n, ez_fe **ind, ez_fe **acc)
{
    const ez_plan_op *o = &c->plan->ops[op];
    const ez_plan_tensor *to = &c->plan->tensors[o->out];
    const uint64_t N = UINT64_C(1) << n, len = ez_advice_padlen(to);
    const int64_t *rem = ez_trace_aux(c->tr, op, EZ_AUX_REM, NULL);
    if (rem == NULL) {
        ez_diag_set(c->d, "op '%s': the trace has no remainder", o->label);
        return EZ_ERR_INVALID;
    }
    ez_fe *I = ez_alloc_array(N, sizeof *I), *A = ez_alloc_aligned(N, sizeof *A), *R = ez_alloc_aligned(len, sizeof *R);
    if (!I || !A || !R) {
        free(I);
        free(A);
        free(R);
        return EZ_ERR_NOMEM;
    }
    for (size_t j = 0; j < s->npieces; j++) {
        uint64_t m = UINT64_C(1) << s->bits[j];
        for (uint64_t k = 0; k < m; k++)
            I[ez_advice_piece_index(s, j, k)] = 1;
    }
    ez_advice_pad_i64(A, c->tr->t[o->out], to, 0);
    ez_advice_pad_i64(R, rem, to, 0);
    const ez_fe two_k = ez_fe_pow(2, o->shift);
#pragma omp parallel for schedule(static) if (len > 65536)
    for (uint64_t x = 0; x < len; x++)
        A[x] = ez_fe_add(ez_fe_mul(A[x], two_k), R[x]);
    memset(A + len, 0, (N - len) * sizeof *A);
    free(R);
    *ind = I;
    *acc = A;
    return EZ_OK;
}

ez_status ez_live_reduce(ez_pctx *c, size_t op, const ez_adv_support *s, const ez_claim *out, ez_claim *acc)
{
    const ez_plan_op *o = &c->plan->ops[op];
    const ez_plan_tensor *to = &c->plan->tensors[o->out];
    const unsigned n = out->nvars;
    if (n != s->nv || n == 0 || o->shift == 0)
        return EZ_ERR_INVALID;
    ez_status st = EZ_OK;
    ez_fe *I = NULL, *A = NULL;
    ez_claim_absorb(c->t, "live/out", out);
    /* 1. rho = (I . R)~(r): the committed remainder is zero outside the support */
    ez_fe2 rho = ez_fe2_zero();
    if (c->prover) {
        const int64_t *rem = ez_trace_aux(c->tr, op, EZ_AUX_REM, NULL);
        int64_t *rs = rem ? ez_advice_restrict_i64(rem, to, s) : NULL;
        if (rs == NULL) {
            ez_diag_set(c->d, "op '%s': the trace has no remainder", o->label);
            return rem ? EZ_ERR_NOMEM : EZ_ERR_INVALID;
        }
        st = ez_advice_tensor_eval(&rho, rs, to, out->point);
        free(rs);
        if (st != EZ_OK)
            return st;
    }
    if ((st = ez_pctx_msg(c, "live/rem", &rho, 1)) != EZ_OK || (st = ez_op_rem_claim(c, op, out, rho)) != EZ_OK)
        return st;
    ez_fe2 claim = ez_fe2_add(ez_fe2_mul_fe(out->value, ez_fe_pow(2, o->shift)), rho);
    /* 2. sum_x eq(r, x) I(x) acc(x) = 2^k v + rho */
    if (c->prover) {
        if ((st = live_tables(c, op, s, n, &I, &A)) != EZ_OK)
            return st;
        ez_work_add(c->work, 0, UINT64_C(1) << n, 0);
    }
    ez_sumcheck_desc d;
    ez_sumcheck_desc_init(&d, n, 2);
    d.eq_vars = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
    ez_sumcheck_factor f[2] = {{I, NULL}, {A, NULL}};
    ez_fe2 pt[EZ_SC_MAX_VARS], ev[2];
    st = ez_su_sumcheck(c, "the live-support sumcheck", &d, NULL, out->point, f, claim, pt, ev);
    free(I);
    free(A);
    if (st != EZ_OK)
        return st;
    if (!c->prover && !ez_fe2_eq(ev[0], ez_advice_support_indicator(s, pt))) {
        ez_diag_set(c->d, "the live-support sumcheck's indicator value is wrong");
        return EZ_ERR_REJECT;
    }
    return ez_claim_set(acc, pt, n, ev[1]);
}

uint64_t ez_live_bytes(const ez_plan *p, size_t op)
{
    const ez_plan_op *o = &p->ops[op];
    const ez_plan_tensor *to = &p->tensors[o->out];
    uint64_t n = ez_claim_tensor_nvars(to->dims, to->rank);
    /* rho, the remainder's limbs beyond the first, the degree-3 sumcheck and its two
     * final evaluations */
    return (1 + (uint64_t)(ez_rc_nlimbs(o->shift) - 1) + 3 * n + 2) * EZ_OP_FE2_BYTES;
}

void ez_live_work(const ez_plan *p, size_t op, uint64_t *sumchecks, uint64_t *touched)
{
    const ez_plan_tensor *to = &p->tensors[p->ops[op].out];
    unsigned n = ez_claim_tensor_nvars(to->dims, to->rank);
    *sumchecks = 1;
    *touched = (UINT64_C(1) << n) + (n ? (UINT64_C(2) << n) - 2 : 1);
}
