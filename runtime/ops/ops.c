/* ops — the op table: one row per operator, each defined in its own file (op.h). */
#include "config.h"

#include "runtime/ops/op.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "runtime/prove/rangecheck.h"

static const struct {
    ez_op_kind kind;
    const ez_op_def *def;
} table[] = {
    {EZ_OP_EINSUM, &ez_op_einsum}, {EZ_OP_ADD, &ez_op_add},         {EZ_OP_CAUSAL, &ez_op_causal},
    {EZ_OP_GATHER, &ez_op_gather}, {EZ_OP_SOFTMAX, &ez_op_softmax}, {EZ_OP_MAX, &ez_op_maxarg},
    {EZ_OP_ARGMAX, &ez_op_maxarg}, {EZ_OP_LAYERNORM, &ez_op_norm},  {EZ_OP_RMSNORM, &ez_op_norm},
    {EZ_OP_FUNC, &ez_op_func},     {EZ_OP_RELU, &ez_op_relu},       {EZ_OP_RSQRT, &ez_op_rsqrt},
    {EZ_OP_ROPE, &ez_op_rope},
};

const ez_op_def *ez_op_def_of(ez_op_kind kind)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].kind == kind)
            return table[i].def;
    return NULL;
}

ez_status ez_op_shape_new(ez_op_shape **s, const ez_plan *p, size_t op, const ez_trace *tr, ez_diag *d)
{
    const ez_op_def *def = ez_op_def_of(p->ops[op].kind);
    *s = NULL;
    if (def == NULL || def->shape_size == 0)
        return EZ_OK;
    if ((*s = calloc(1, def->shape_size)) == NULL)
        return EZ_ERR_NOMEM;
    ez_status st = ez_opview_init(&(*s)->v, p, op, tr);
    if (st != EZ_OK)
        return st;
    (*s)->o = &p->ops[op];
    (*s)->ti = &(*s)->v.tensors[0];
    (*s)->to = &p->tensors[p->ops[op].out];
    return def->shape_init ? def->shape_init(*s, p, op, d) : EZ_OK;
}

void ez_op_shape_free(ez_op_shape *s)
{
    if (s == NULL)
        return;
    ez_opview_clear(&s->v);
    free(s);
}

ez_status ez_op_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d)
{
    ez_op_shape *s;
    ez_status st = ez_op_shape_new(&s, p, op, NULL, d);
    if (st == EZ_OK)
        st = ez_op_def_of(p->ops[op].kind)->layout(L, p, op, s, d);
    ez_op_shape_free(s);
    return st;
}

ez_status ez_op_fill(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op, bool unchecked,
                     ez_fe **polys, ez_diag *d)
{
    const ez_op_def *def = ez_op_def_of(p->ops[op].kind);
    if (def->fill == NULL)
        return EZ_OK;
    ez_op_shape *s;
    ez_status st = ez_op_shape_new(&s, p, op, tr, d);
    if (st == EZ_OK)
        st = def->fill(L, p, tr, op, s, unchecked, polys, d);
    ez_op_shape_free(s);
    return st;
}

/* prove or verify (hook): the shape on c's side (the prover's with the operands' values) */
static ez_status reduce(ez_pctx *c, size_t op, const ez_claim *out, bool prove)
{
    const ez_op_def *def = ez_op_def_of(c->plan->ops[op].kind);
    ez_op_shape *s;
    ez_status st = ez_op_shape_new(&s, c->plan, op, c->prover ? c->tr : NULL, c->d);
    if (st == EZ_OK)
        st = prove ? def->prove(c, op, s, out) : def->verify(c, op, s, out);
    ez_op_shape_free(s);
    return st;
}

ez_status ez_op_prove(ez_pctx *c, size_t op, const ez_claim *out)
{
    return reduce(c, op, out, true);
}

ez_status ez_op_verify(ez_pctx *c, size_t op, const ez_claim *out)
{
    return reduce(c, op, out, false);
}

/* The shape for a hook that reads the plan only: false when the op refuses it (the
 * layout reports why). */
static bool plan_shape(ez_op_shape **s, const ez_plan *p, size_t op)
{
    ez_diag d;
    return ez_op_shape_new(s, p, op, NULL, &d) == EZ_OK;
}

uint64_t ez_op_walk_bytes(const ez_plan *p, const ez_advice_layout *L, size_t op)
{
    ez_op_shape *s;
    uint64_t b = plan_shape(&s, p, op) ? ez_op_def_of(p->ops[op].kind)->walk_bytes(p, L, op, s) : 0;
    ez_op_shape_free(s);
    return b;
}

unsigned ez_op_claims(const ez_plan *p, size_t op, unsigned operand)
{
    ez_op_shape *s;
    unsigned n = plan_shape(&s, p, op) ? ez_op_def_of(p->ops[op].kind)->claims(p, op, s, operand) : 1;
    ez_op_shape_free(s);
    return n;
}

void ez_op_relations(ez_margins *m, const ez_plan *p, size_t op)
{
    const ez_op_def *def = ez_op_def_of(p->ops[op].kind);
    ez_op_shape *s = NULL;
    if (def && def->relations && plan_shape(&s, p, op))
        def->relations(m, p, op, s);
    ez_op_shape_free(s);
}

unsigned ez_op_one_claim(const ez_plan *p, size_t op, const ez_op_shape *s, unsigned operand)
{
    (void)p, (void)op, (void)s, (void)operand;
    return 1;
}

size_t ez_op_first_poly(const ez_advice_layout *L, size_t op)
{
    for (size_t q = 0; q < L->npolys; q++)
        if (L->polys[q].value == EZ_ADV_POLY_OP && L->polys[q].op == op)
            return q;
    return SIZE_MAX;
}

ez_status ez_op_polys_at(const ez_advice_layout *L, size_t op, unsigned n, size_t *first)
{
    *first = ez_op_first_poly(L, op);
    return *first == SIZE_MAX || *first + n <= L->npolys ? EZ_OK : EZ_ERR_INTERNAL;
}

ez_status ez_op_reduce_begin(ez_pctx *c, size_t op, unsigned npolys, unsigned nvars, const ez_claim *out,
                             const char *label, size_t *first)
{
    if (ez_op_polys_at(c->adv, op, npolys, first) != EZ_OK || *first == SIZE_MAX || out->nvars != nvars)
        return EZ_ERR_INVALID;
    ez_claim_absorb(c->t, label, out);
    return EZ_OK;
}

ez_status ez_op_add_polys(ez_advice_layout *L, size_t op, unsigned n, uint64_t len)
{
    ez_status st = EZ_OK;
    size_t first = L->npolys;
    for (unsigned q = 0; q < n && st == EZ_OK; q++) {
        size_t idx;
        st = ez_advice_add_poly(L, len, (unsigned)op, &idx);
        if (st == EZ_OK && idx != first + q)
            st = EZ_ERR_INTERNAL;
    }
    return st;
}

ez_op_axes ez_op_axes_pos(unsigned *pos, const ez_plan_op *o, const unsigned *ax, const ez_plan_tensor *ti,
                          const ez_plan_tensor *to, unsigned skip)
{
    unsigned used = skip;
    for (unsigned b = 0; b < to->rank; b++) {
        unsigned a = 0;
        while (a < ti->rank && ax[a] != o->out_axes[b])
            a++;
        if (a == ti->rank || ((used >> a) & 1))
            return EZ_OP_AXES_OTHER;
        if (ti->dims[a] != to->dims[b])
            return EZ_OP_AXES_EXTENT;
        used |= 1u << a;
        pos[b] = a;
    }
    return EZ_OP_AXES_OK;
}

bool ez_op_axes_distinct(const unsigned *ax, unsigned rank)
{
    for (unsigned a = 0; a < rank; a++)
        for (unsigned b = 0; b < a; b++)
            if (ax[a] == ax[b])
                return false;
    return true;
}

unsigned ez_op_axis_pos(const unsigned *ax, unsigned rank, unsigned x)
{
    unsigned a = 0;
    while (a < rank && ax[a] != x)
        a++;
    return a;
}

unsigned ez_op_axis_offsets(unsigned *off, const ez_plan_tensor *t)
{
    unsigned q = 0;
    for (unsigned a = 0; a < t->rank; a++) {
        off[a] = q;
        q += ez_log2_ceil(t->dims[a]);
    }
    return q;
}

ez_status ez_op_rem_msg(ez_pctx *c, size_t op, const ez_plan_tensor *to, const ez_fe2 *pt, const char *label,
                        ez_fe2 *rho)
{
    *rho = ez_fe2_zero();
    if (c->prover) {
        const int64_t *rem = ez_trace_aux(c->tr, op, EZ_AUX_REM, NULL);
        if (rem == NULL) {
            ez_diag_set(c->d, "op '%s': the trace has no remainder", c->plan->ops[op].label);
            return EZ_ERR_INVALID;
        }
        ez_status st = ez_advice_tensor_eval(rho, rem, to, pt);
        if (st != EZ_OK)
            return st;
    }
    return ez_pctx_msg(c, label, rho, 1);
}

ez_status ez_op_unrescale(ez_pctx *c, size_t op, const ez_plan_tensor *to, const ez_claim *out, int sh,
                          const char *label, ez_fe2 *value, ez_fe2 *rho)
{
    *rho = ez_fe2_zero();
    if (sh <= 0) {
        *value = ez_fe2_mul_fe(out->value, ez_fe_inv(ez_fe_pow(2, (uint64_t)-sh)));
        return EZ_OK;
    }
    ez_status st = ez_op_rem_msg(c, op, to, out->point, label, rho);
    if (st == EZ_OK)
        *value = ez_fe2_add(ez_fe2_mul_fe(out->value, ez_fe_pow(2, (uint64_t)sh)), *rho);
    return st;
}

ez_status ez_op_rem_claim(ez_pctx *c, size_t op, const ez_claim *out, ez_fe2 rho)
{
    ez_claim remc = {.nvars = out->nvars, .point = out->point, .value = rho};
    return ez_rc_value_claim(c, (size_t)c->adv->op_rem[op], &remc);
}

ez_status ez_op_unsupported(ez_diag *d, const ez_plan_op *o, const char *what, const char *why)
{
    ez_diag_set(d, "op '%s' (%s): %s", o->label, what, why);
    return EZ_ERR_UNSUPPORTED;
}

ez_status ez_op_reject(ez_pctx *c, const char *why)
{
    ez_diag_set(c->d, "%s", why);
    return EZ_ERR_REJECT;
}

ez_status ez_op_final_evals(ez_pctx *c, const ez_fe2 *want, const ez_fe2 *ev, size_t n, const char *fmt, ...)
{
    for (size_t j = 0; j < n; j++)
        if (!ez_fe2_eq(want[j], ev[j])) {
            va_list ap;
            va_start(ap, fmt);
            ez_diag_vset(c->d, fmt, ap);
            va_end(ap);
            return EZ_ERR_REJECT;
        }
    return EZ_OK;
}

ez_fe2 ez_op_limbs_combine(const ez_fe2 *limbs, unsigned nl)
{
    ez_fe2 v = ez_fe2_zero();
    for (unsigned l = nl; l-- > 0;)
        v = ez_fe2_add(ez_fe2_mul_fe(v, 1u << EZ_ADV_LIMB_BITS), limbs[l]);
    return v;
}

ez_status ez_op_atoms_msg(ez_pctx *c, size_t first, const char *label, const unsigned *qs, size_t nq,
                          const ez_fe2 *pt, ez_fe2 *vals)
{
    ez_status st;
    if (c->prover)
        for (size_t j = 0; j < nq; j++) /* a poly on a support: its cube MLE */
            vals[j] = ez_advice_poly_eval(c->adv, first + qs[j], c->advice[first + qs[j]], pt);
    if ((st = ez_pctx_msg(c, label, vals, nq)) != EZ_OK)
        return st;
    for (size_t j = 0; j < nq && st == EZ_OK; j++)
        st = ez_pctx_claim_advice(c, first + qs[j], pt, ez_advice_poly_nvars(c->adv, first + qs[j]), vals[j]);
    return st;
}

ez_status ez_op_sumcheck(ez_pctx *c, const ez_sumcheck_desc *desc, const ez_fe2 *coeffs, const ez_fe2 *eqp,
                         const ez_sumcheck_factor *f, ez_fe2 claim, ez_fe2 *point, ez_fe2 *evals)
{
    ez_sumcheck_proof proof;
    memset(&proof, 0, sizeof proof);
    ez_status st;
    const ez_fe2 *e = desc->eq_vars ? eqp : NULL;
    if (c->prover) {
        const ez_sumcheck_factor *g = c->sumcheck_hook ? c->sumcheck_hook(c->sumcheck_hook_ctx, desc, coeffs, e, f) : NULL;
        st = ez_sumcheck_prove(c->t, desc, coeffs, e, g ? g : f, claim, &proof, point, evals);
        if (st == EZ_OK)
            ez_sumcheck_proof_write(c->w, &proof);
    } else {
        st = ez_sumcheck_proof_read(c->r, desc, &proof);
        if (st == EZ_OK)
            st = ez_sumcheck_verify(c->t, desc, coeffs, e, claim, &proof, point, evals);
        if (st == EZ_ERR_INVALID)
            st = EZ_ERR_REJECT;
    }
    ez_sumcheck_proof_clear(&proof);
    return st;
}
