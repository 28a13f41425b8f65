/* recheck — re-derive a plan's bounds and range-check flags (recheck.h). */
#include "compiler/recheck.h"

#include <gmp.h>
#include <stdlib.h>

#include "compiler/bounds.h"
#include "compiler/builtins.h"

/* The bound a declared tensor has by definition (0 for computed ones). */
static uint64_t declared_bound(const ez_plan_tensor *t)
{
    if (t->kind == EZ_TENSOR_INPUT || t->kind == EZ_TENSOR_WEIGHT)
        return UINT64_C(1) << (t->bits - 1);
    if (t->kind == EZ_TENSOR_TOKENS)
        return (uint64_t)t->token_limit - 1;
    return 0;
}

/* Walk the plan in order deriving every bound and `checked` flag. With write, store them
 * into p; else compare with what p stores. */
static ez_status derive(ez_plan *p, bool write, ez_diag *d)
{
    ez_status st = EZ_OK;
    for (size_t i = 0; i < p->ntensors && st == EZ_OK; i++) {
        ez_plan_tensor *t = &p->tensors[i];
        if (t->kind == EZ_TENSOR_ACT)
            continue;
        uint64_t want = declared_bound(t);
        if (write) {
            t->bound = want;
        } else if (t->bound != want) {
            ez_diag_set(d, "tensor '%s': stored bound %llu, but its declaration gives %llu", t->name,
                        (unsigned long long)t->bound, (unsigned long long)want);
            st = EZ_ERR_FORMAT;
        }
    }
    mpz_t in[EZ_MAX_OPERANDS], raw, bound, lim;
    mpz_srcptr ib[EZ_MAX_OPERANDS];
    for (unsigned k = 0; k < EZ_MAX_OPERANDS; k++) {
        mpz_init(in[k]);
        ib[k] = in[k];
    }
    mpz_inits(raw, bound, lim, NULL);
    mpz_setbit(lim, EZ_BOUND_LIMIT_BITS);
    for (size_t i = 0; i < p->nops && st == EZ_OK; i++) {
        ez_plan_op *op = &p->ops[i];
        ez_plan_tensor *out = &p->tensors[op->out];
        for (unsigned k = 0; k < op->nin; k++)
            mpz_set_ui(in[k], (unsigned long)p->tensors[op->in[k]].bound);
        ez_builtin_op_bound(p, op, ib, raw, bound);
        bool checked = op->kind == EZ_OP_ADD && op->shift == 0 && ez_bound_exceeds_width(raw, out->bits);
        if (mpz_cmp(raw, lim) >= 0 || mpz_cmp(bound, lim) >= 0) {
            ez_diag_set(d, "op '%s' (line %u): its values can reach 2^%.1f, beyond the field's safe range 2^%d",
                        op->label, op->line, ez_bound_log2(mpz_cmp(raw, bound) > 0 ? raw : bound),
                        EZ_BOUND_LIMIT_BITS);
            st = EZ_ERR_FORMAT;
        } else if (write) {
            out->bound = mpz_get_ui(bound);
            if (op->kind == EZ_OP_ADD && op->shift == 0)
                op->checked = checked;
        } else if (mpz_cmp_ui(bound, (unsigned long)out->bound) != 0) {
            ez_diag_set(d, "tensor '%s': stored bound %llu, but op '%s' (line %u) gives %lu", out->name,
                        (unsigned long long)out->bound, op->label, op->line, mpz_get_ui(bound));
            st = EZ_ERR_FORMAT;
        } else if (op->kind == EZ_OP_ADD && op->shift == 0 && op->checked != checked) {
            ez_diag_set(d, "op '%s' (line %u): the sum is %srange-checked to its width, but its bound says %s",
                        op->label, op->line, op->checked ? "" : "not ", checked ? "it must be" : "it fits without");
            st = EZ_ERR_FORMAT;
        }
    }
    for (unsigned k = 0; k < EZ_MAX_OPERANDS; k++)
        mpz_clear(in[k]);
    mpz_clears(raw, bound, lim, NULL);
    return st;
}

ez_status ez_plan_recheck(const ez_plan *p, ez_diag *d)
{
    return derive((ez_plan *)p, false, d); /* compare only: nothing is written */
}

ez_status ez_plan_rederive(ez_plan *p, ez_diag *d)
{
    return derive(p, true, d);
}
