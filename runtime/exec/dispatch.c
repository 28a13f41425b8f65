/* dispatch — the one place that runs the ops of a plan in order, each through its row of
 * the op table (runtime/ops/op.h): the integer executor (exec.h) with the range check of
 * every result, and the float reference (floatref.h). This is the only module of
 * runtime/exec/ that knows the ops; the ops know only exec_op.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/schedule.h"
#include "runtime/exec/exec.h"
#include "runtime/exec/exec_op.h"
#include "runtime/exec/floatref.h"
#include "runtime/ops/op.h"

/* The plan as the executor needs it: the compiler's structural validation, every op kind
 * known to this build with an exec hook. */
ez_status ez_exec_check_plan(const ez_plan *p, ez_diag *d)
{
    ez_status st = ez_plan_validate_graph(p, d);
    if (st != EZ_OK)
        return EZ_ERR_INVALID;
    for (size_t i = 0; i < p->nops; i++) {
        const ez_op_def *def = ez_op_def_of(p->ops[i].kind);
        if (def == NULL || def->exec == NULL || def->floatref == NULL) {
            ez_diag_set(d, "plan op %zu ('%s'): kind %d is unknown to this build", i, p->ops[i].label,
                        (int)p->ops[i].kind);
            return EZ_ERR_INVALID;
        }
    }
    return EZ_OK;
}

/* Every computed value must lie within the compiler's bound; a rescaled value (the
 * prover range-checks it, docs/protocol.md) must also fit the tensor's width. */
static ez_status check_result(ez_exec_ctx *c)
{
    const ez_plan_op *op = c->op;
    const ez_plan_tensor *t = &c->p->tensors[op->out];
    const int64_t *v = c->tr->t[op->out];
    uint64_t n = ez_plan_tensor_numel(t);
    bool width = ez_plan_op_width_checked(op);
    int64_t lo = -(int64_t)(UINT64_C(1) << (t->bits - 1));
    int64_t hi = (int64_t)((UINT64_C(1) << (t->bits - 1)) - 1);
    uint64_t bound = t->bound;
    uint64_t first = UINT64_MAX, m = 0;
#pragma omp parallel for reduction(min : first) reduction(max : m) schedule(static) if (n > 65536)
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = v[i] < 0 ? -(uint64_t)v[i] : (uint64_t)v[i];
        m = a > m ? a : m;
        if (a > bound || (width && (v[i] < lo || v[i] > hi)))
            first = i < first ? i : first;
    }
    c->tr->maxabs[op->out] = m; /* the contractions' exactness test reads it */
    if (first == UINT64_MAX)
        return EZ_OK;
    char where[256];
    ez_exec_format_elem(where, sizeof where, t, first);
    int64_t x = v[first];
    if (width && (x < lo || x > hi))
        ez_diag_set(c->d,
                    "%s = %" PRId64 " (%.6g) is outside its %u-bit range [%" PRId64 ", %" PRId64
                    "] in line %u: %s\n"
                    "help: give the statement more bits (@bits(N)) or a smaller scale",
                    where, x, (double)x / (double)(UINT64_C(1) << t->scale), t->bits, lo, hi,
                    op->line, op->equation);
    else
        ez_diag_set(c->d,
                    "%s = %" PRId64 " exceeds its proven bound %" PRIu64 " (%s, line %u: %s)", where,
                    x, bound, ez_op_kind_name(op->kind), op->line, op->equation);
    return EZ_ERR_NUMERIC;
}

ez_status ez_exec_op(const ez_plan *p, size_t oi, ez_trace *tr, ez_diag *d)
{
    if (tr->plan != p || oi >= p->nops) {
        ez_diag_set(d, "trace does not belong to this plan");
        return EZ_ERR_INVALID;
    }
    const ez_plan_op *op = &p->ops[oi];
    for (unsigned k = 0; k < op->nin; k++) {
        if (op->in[k] >= p->ntensors || !tr->ready[op->in[k]]) {
            const char *nm = op->in[k] < p->ntensors ? p->tensors[op->in[k]].name : "?";
            ez_diag_set(d, "op '%s': operand '%s' has no values (inputs and weights must be set)",
                        op->label, nm);
            return EZ_ERR_INVALID;
        }
    }
    ez_exec_ctx c = {.p = p, .op = op, .oi = oi, .tr = tr, .d = d, .aux_used = 0};
    ez_op_trace *ot = &tr->ops[oi];
    ot->macs = 0;
    ot->exact_f64 = false;
    double t0 = ez_now();
    ez_status st;
    const ez_op_def *def = ez_op_def_of(op->kind);
    if (def == NULL || def->exec == NULL) {
        ez_diag_set(d, "op '%s': unknown kind %d", op->label, (int)op->kind);
        st = EZ_ERR_INVALID;
    } else {
        st = def->exec(&c);
    }
    if (st == EZ_OK)
        st = check_result(&c);
    ot->seconds = ez_now() - t0;
    for (int k = 0; k < EZ_AUX_COUNT; k++) /* arrays a previous run left and this one did not */
        if (!((c.aux_used >> k) & 1) || st != EZ_OK) {
            free(ot->aux[k]);
            ot->aux[k] = NULL;
            ot->naux[k] = 0;
        }
    if (st == EZ_OK)
        tr->ready[op->out] = true;
    return st;
}

/* What a whole run (integer or float) checks first: the trace is p's (trace_plan, its
 * `noun` in the message), p is valid, and every tensor no op computes has its values. */
static ez_status run_ready(const ez_plan *p, const ez_plan *trace_plan, const bool *ready, const char *noun,
                           ez_diag *d)
{
    if (trace_plan != p) {
        ez_diag_set(d, "%s does not belong to this plan", noun);
        return EZ_ERR_INVALID;
    }
    ez_status st = ez_exec_check_plan(p, d);
    if (st != EZ_OK)
        return st;
    for (size_t i = 0; i < p->ntensors; i++) {
        if (p->tensors[i].kind != EZ_TENSOR_ACT && !ready[i]) {
            ez_diag_set(d, "%s '%s' has no values", ez_tensor_kind_name(p->tensors[i].kind),
                        p->tensors[i].name);
            return EZ_ERR_INVALID;
        }
    }
    return EZ_OK;
}

ez_status ez_exec_run(const ez_plan *p, ez_trace *tr, ez_diag *d)
{
    ez_status st = run_ready(p, tr->plan, tr->ready, "trace", d);
    if (st != EZ_OK)
        return st;
    for (size_t oi = 0; oi < p->nops; oi++) {
        st = ez_exec_op(p, oi, tr, d);
        if (st != EZ_OK)
            return st;
    }
    return EZ_OK;
}

ez_status ez_floatref_run(const ez_plan *p, ez_ftrace *ft, ez_diag *d)
{
    ez_status st = run_ready(p, ft->plan, ft->ready, "float trace", d);
    for (size_t oi = 0; oi < p->nops && st == EZ_OK; oi++) {
        const ez_plan_op *op = &p->ops[oi];
        st = ez_op_def_of(op->kind)->floatref(p, op, ft, d);
        if (st == EZ_OK)
            ft->ready[op->out] = true;
    }
    return st;
}
