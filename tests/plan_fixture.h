/* Hand-built plans for the "plan" and "einc" suites: ops written as equation strings,
 * so tests do not depend on the front end. Test code only (static functions). */
#ifndef EZ_TESTS_PLAN_FIXTURE_H
#define EZ_TESTS_PLAN_FIXTURE_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/plan.h"

/* Size of index `name` in a list like "h=12 s=16 e=80"; 0 if absent. */
static inline uint64_t ez_fx_size(const char *sizes, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = sizes; *p;) {
        while (*p == ' ')
            p++;
        if (!strncmp(p, name, n) && p[n] == '=')
            return strtoull(p + n + 1, NULL, 10);
        while (*p && *p != ' ')
            p++;
    }
    return 0;
}

static inline int ez_fx_tensor(ez_plan *p, const char *name, ez_tensor_kind kind)
{
    int t = ez_plan_find_tensor(p, name);
    if (t >= 0)
        return t;
    p->tensors = realloc(p->tensors, (p->ntensors + 1) * sizeof *p->tensors);
    ez_plan_tensor *x = &p->tensors[p->ntensors];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    snprintf(x->source_name, sizeof x->source_name, "%s", name);
    x->kind = kind;
    x->scale = 12;
    x->bits = kind == EZ_TENSOR_ACT ? 24 : 16;
    x->bound = (uint64_t)1 << (x->bits - 1);
    x->producer = -1;
    return (int)p->ntensors++;
}

/* Parse "name[i,j,...]" at *s: tensor name and index names; advances *s. */
static inline int ez_fx_ref(const char **s, char *name, char idx[][EZ_MAX_NAME])
{
    const char *p = *s;
    int n = 0, k = 0;
    while (*p == ' ')
        p++;
    while (*p && *p != '[')
        name[n++] = *p++;
    name[n] = 0;
    if (*p == '[')
        p++;
    while (*p && *p != ']') {
        int m = 0;
        while (*p == ' ' || *p == ',')
            p++;
        while (*p && *p != ',' && *p != ']' && *p != ' ')
            idx[k][m++] = *p++;
        idx[k][m] = 0;
        if (m)
            k++;
        while (*p == ' ')
            p++;
    }
    if (*p == ']')
        p++;
    *s = p;
    return k;
}

static inline unsigned ez_fx_index(ez_plan_op *op, const char *name, const char *sizes)
{
    for (unsigned x = 0; x < op->nidx; x++)
        if (!strcmp(op->idx_name[x], name))
            return x;
    size_t n = strlen(name);
    n = n < EZ_MAX_NAME - 1 ? n : EZ_MAX_NAME - 1;
    memcpy(op->idx_name[op->nidx], name, n);
    op->idx_name[op->nidx][n] = 0;
    op->idx_size[op->nidx] = ez_fx_size(sizes, name);
    return op->nidx++;
}

/* An empty plan of model `model` (free with ez_plan_clear). */
static inline void ez_fx_plan(ez_plan *p, const char *model)
{
    ez_plan_init(p);
    snprintf(p->model, sizeof p->model, "%s", model);
}

/* Append one op "out[..] = a[..] (* or +) b[..] ..." of the given kind. Operands that do
 * not exist yet become inputs (names starting with 'w' become weights); the output a
 * new activation whose dims come from `sizes`. Returns the op index. The caller sets
 * kind-specific fields (axis, mask, func, shift) afterwards. */
static inline unsigned ez_fx_op(ez_plan *p, ez_op_kind kind, const char *eq, const char *sizes)
{
    char name[EZ_MAX_NAME], idx[EZ_MAX_RANK][EZ_MAX_NAME];
    const char *s = eq;
    p->ops = realloc(p->ops, (p->nops + 1) * sizeof *p->ops);
    ez_plan_op *op = &p->ops[p->nops];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->mul = 1;
    snprintf(op->equation, sizeof op->equation, "%s", eq);

    int rank = ez_fx_ref(&s, name, idx);
    int out = ez_fx_tensor(p, name, EZ_TENSOR_ACT);
    ez_plan_tensor *o = &p->tensors[out];
    o->rank = (unsigned)rank;
    o->producer = (int)p->nops;
    snprintf(op->label, sizeof op->label, "%s", name);
    op->out = (unsigned)out;
    for (int a = 0; a < rank; a++) {
        op->out_axes[a] = ez_fx_index(op, idx[a], sizes);
        o->dims[a] = ez_fx_size(sizes, idx[a]);
    }
    while (*s == ' ' || *s == '=')
        s++;
    while (*s) {
        int r = ez_fx_ref(&s, name, idx);
        int t = ez_fx_tensor(p, name, name[0] == 'w' ? EZ_TENSOR_WEIGHT : EZ_TENSOR_INPUT);
        ez_plan_tensor *x = &p->tensors[t];
        if (x->kind != EZ_TENSOR_ACT) {
            x->rank = (unsigned)r;
            for (int a = 0; a < r; a++)
                x->dims[a] = ez_fx_size(sizes, idx[a]);
        }
        unsigned k = op->nin++;
        op->in[k] = (unsigned)t;
        op->coef[k] = kind == EZ_OP_ADD ? 1 : 0;
        for (int a = 0; a < r; a++)
            op->in_axes[k][a] = ez_fx_index(op, idx[a], sizes);
        while (*s == ' ' || *s == '*' || *s == '+')
            s++;
    }
    op->in_scale = p->tensors[op->in[0]].scale;
    op->out_scale = p->tensors[out].scale;
    return (unsigned)p->nops++;
}

static inline unsigned ez_fx_idx(const ez_plan_op *op, const char *name)
{
    for (unsigned x = 0; x < op->nidx; x++)
        if (!strcmp(op->idx_name[x], name))
            return x;
    return 999;
}

/* Append a softmax "out[h,s,t] = in[h,s,t]" over t, masked causally on (s, t) (the
 * attention's scores); returns the op index. */
static inline unsigned ez_fx_masked_softmax(ez_plan *p, const char *eq, const char *sizes)
{
    unsigned i = ez_fx_op(p, EZ_OP_SOFTMAX, eq, sizes);
    ez_plan_op *op = &p->ops[i];
    op->axis = ez_fx_idx(op, "t");
    op->masked = true;
    op->mask_row = ez_fx_idx(op, "s");
    op->mask_col = op->axis;
    return i;
}

#endif
