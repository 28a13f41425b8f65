/* public — see public.h; docs/protocol.md §5.10. */
#include "config.h"

#include "runtime/prove/public.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec/exec.h"
#include "runtime/exec/exec_op.h"
#include "runtime/ops/op.h"
#include "runtime/prove/advice.h"
#include "runtime/prove/statement.h"

bool ez_op_is_public(const ez_plan *p, size_t i)
{
    const ez_plan_op *op = &p->ops[i];
    if (op->kind == EZ_OP_EINSUM || op->nin == 0 || op->out >= p->ntensors || !p->tensors[op->out].is_output)
        return false;
    for (unsigned k = 0; k < op->nin; k++) {
        if (op->in[k] >= p->ntensors || op->in_fixed[k] != 0)
            return false;
        const ez_plan_tensor *t = &p->tensors[op->in[k]];
        if (t->kind != EZ_TENSOR_ACT || !t->is_output)
            return false;
    }
    return true;
}

bool ez_tensor_is_public_result(const ez_plan *p, size_t t)
{
    for (size_t i = 0; i < p->nops; i++)
        if (p->ops[i].out == t)
            return ez_op_is_public(p, i);
    return false;
}

/* A public MAX or ARGMAX (whose exec hook is the row kernel ez_exec_row_maxarg) into
 * out[numel(result)], row by row from the statement's bytes: each row unpacked into one
 * reused buffer, then reduced by the executor's own kernel. GPT-2's next tokens from
 * 512 x 50,257 logits without an int64 copy of them (206 MB of fresh pages). */
static ez_status rows_result(const ez_plan *p, const ez_plan_op *op, const ez_stmt_tensor *x, int64_t *out,
                             ez_diag *d)
{
    ez_exec_rows rows;
    ez_status st = ez_exec_rows_init(&rows, p, op, false, d);
    if (st != EZ_OK)
        return st;
    int64_t *buf = ez_alloc_array(rows.len ? rows.len : 1, sizeof *buf);
    if (buf == NULL || rows.len == 0) {
        st = buf ? EZ_ERR_INVALID : EZ_ERR_NOMEM;
        goto out;
    }
    for (uint64_t r = 0; r < rows.nrows; r++) {
        if (rows.in_step == 1)
            ez_stmt_get(x, (uint64_t)rows.in_off[r], rows.len, buf);
        else
            for (uint64_t j = 0; j < rows.len; j++)
                ez_stmt_get(x, (uint64_t)(rows.in_off[r] + (int64_t)j * rows.in_step), 1, &buf[j]);
        int64_t arg, m = ez_exec_row_maxarg(buf, rows.len, 1, &arg);
        out[rows.out_off[r]] = op->kind == EZ_OP_MAX ? m : arg;
    }
out:
    free(buf);
    ez_exec_rows_clear(&rows);
    return st;
}

/* Any other public op into out[numel(result)]: its exec hook on a trace holding only its
 * operands, decoded from the statement (ez_stmt_values). */
static ez_status exec_result(const ez_plan *p, size_t i, const ez_statement *s, int64_t *out, ez_diag *d)
{
    const ez_plan_op *op = &p->ops[i];
    ez_trace tr;
    int64_t *tmp[EZ_MAX_OPERANDS] = {0};
    ez_status st = EZ_ERR_NOMEM;
    memset(&tr, 0, sizeof tr);
    tr.plan = p;
    tr.t = calloc(p->ntensors, sizeof *tr.t);
    tr.ready = calloc(p->ntensors, sizeof *tr.ready);
    tr.maxabs = calloc(p->ntensors, sizeof *tr.maxabs);
    tr.ops = calloc(p->nops ? p->nops : 1, sizeof *tr.ops);
    if (!tr.t || !tr.ready || !tr.maxabs || !tr.ops)
        goto out;
    /* the operands are borrowed from the statement or decoded (taken back before the clear) */
    for (unsigned k = 0; k < op->nin; k++) {
        const ez_stmt_tensor *x = ez_statement_find(s, op->in[k]);
        const int64_t *v = ez_stmt_values(x, &tmp[k]);
        if (v == NULL)
            goto out;
        tr.t[op->in[k]] = (int64_t *)v;
        tr.ready[op->in[k]] = true;
        tr.maxabs[op->in[k]] = ez_exec_maxabs(v, x->n);
    }
    tr.t[op->out] = out;
    st = ez_exec_op(p, i, &tr, d);
out:
    if (tr.t) {
        for (unsigned k = 0; k < op->nin; k++)
            tr.t[op->in[k]] = NULL;
        tr.t[op->out] = NULL;
    }
    for (unsigned k = 0; k < op->nin; k++)
        free(tmp[k]);
    ez_trace_clear(&tr);
    return st;
}

/* Run public op i on the statement's operands and compare its result. */
static ez_status check_one(const ez_plan *p, size_t i, const ez_statement *s, bool *ok, ez_diag *d)
{
    const ez_plan_op *op = &p->ops[i];
    const ez_stmt_tensor *res = ez_statement_find(s, op->out);
    uint64_t n = ez_plan_tensor_numel(&p->tensors[op->out]);
    int64_t *a = NULL, *btmp = NULL;
    ez_status st = EZ_OK;
    *ok = false;
    if (res == NULL || res->n != n) {
        ez_diag_set(d, "public op '%s': its result is not in the statement", op->label);
        return EZ_OK;
    }
    for (unsigned k = 0; k < op->nin; k++) {
        const ez_stmt_tensor *x = ez_statement_find(s, op->in[k]);
        if (x == NULL || x->n != ez_plan_tensor_numel(&p->tensors[op->in[k]])) {
            ez_diag_set(d, "public op '%s': an operand is not in the statement", op->label);
            return EZ_OK;
        }
    }
    const int64_t *b = ez_stmt_values(res, &btmp);
    if (b == NULL || (a = ez_alloc_array(n ? n : 1, sizeof *a)) == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    const ez_op_def *def = ez_op_def_of(op->kind);
    if (def && def->exec == ez_exec_maxarg && op->nin == 1)
        st = rows_result(p, op, ez_statement_find(s, op->in[0]), a, d);
    else
        st = exec_result(p, i, s, a, d);
    if (st == EZ_ERR_NUMERIC || st == EZ_ERR_INVALID) {
        ez_diag why = *d;
        ez_diag_set(d, "public op '%s' does not run on the statement: %s", op->label, why.msg);
        st = EZ_OK;
        goto out;
    }
    if (st != EZ_OK)
        goto out;
    uint64_t first = UINT64_MAX;
#pragma omp parallel for reduction(min : first) schedule(static) if (n > 65536)
    for (uint64_t e = 0; e < n; e++)
        if (a[e] != b[e] && e < first)
            first = e;
    if (first != UINT64_MAX) {
        char where[256];
        ez_exec_format_elem(where, sizeof where, &p->tensors[op->out], first);
        ez_diag_set(d, "public op '%s' (%s): the statement's %s = %" PRId64 " is not its result %" PRId64, op->label,
                    ez_op_kind_name(op->kind), where, b[first], a[first]);
    } else {
        *ok = true;
    }
out:
    free(a);
    free(btmp);
    return st;
}

ez_status ez_public_ops_check(const ez_plan *p, const ez_statement *s, bool *ok, ez_diag *d)
{
    *ok = true;
    for (size_t i = 0; i < p->nops; i++) {
        if (!ez_op_is_public(p, i))
            continue;
        ez_status st = check_one(p, i, s, ok, d);
        if (st != EZ_OK || !*ok)
            return st;
    }
    return EZ_OK;
}

ez_status ez_public_claims_check(const ez_plan *p, const ez_statement *s, size_t t, const ez_claim_list *l, bool *ok,
                                 ez_diag *d)
{
    const ez_plan_tensor *tt = &p->tensors[t];
    const ez_stmt_tensor *x = ez_statement_find(s, (unsigned)t);
    *ok = false;
    if (x == NULL || x->n != ez_plan_tensor_numel(tt)) {
        ez_diag_set(d, "a claim on the public result '%s' without its values", tt->name);
        return EZ_OK;
    }
    for (size_t j = 0; j < l->n; j++) {
        ez_fe2 v;
        if (l->items[j].nvars != ez_claim_tensor_nvars(tt->dims, tt->rank))
            return EZ_ERR_INVALID;
        ez_status st = ez_stmt_eval(&v, x, tt, l->items[j].point);
        if (st != EZ_OK)
            return st;
        if (!ez_fe2_eq(v, l->items[j].value)) {
            ez_diag_set(d, "a claim on the public result '%s' is false", tt->name);
            return EZ_OK;
        }
    }
    *ok = true;
    return EZ_OK;
}
