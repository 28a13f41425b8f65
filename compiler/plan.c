/* plan — shared helpers over the plan data (see plan.h). The scheduler that fills the
 * proving plan lives in compiler/schedule.c. */
#include "compiler/plan.h"

#include <stdlib.h>
#include <string.h>

void ez_plan_point_blocks(ez_point_blocks *b, const ez_plan_op *op, const unsigned *axes, unsigned rank)
{
    memset(b, 0, sizeof *b);
    for (unsigned a = 0; a < rank; a++) {
        unsigned x = axes[a];
        b->has[x] = true;
        b->off[x] = b->nvars;
        b->nv[x] = ez_log2_ceil(op->idx_size[x]);
        b->nvars += b->nv[x];
    }
}

void ez_plan_init(ez_plan *p)
{
    memset(p, 0, sizeof *p);
}

void ez_plan_clear(ez_plan *p)
{
    if (p == NULL)
        return;
    free(p->tensors);
    free(p->ops);
    memset(p, 0, sizeof *p);
}

bool ez_plan_tensor_is_index(const ez_plan *p, size_t t)
{
    const ez_plan_tensor *x = &p->tensors[t];
    return x->kind == EZ_TENSOR_TOKENS ||
           (x->kind == EZ_TENSOR_ACT && x->producer >= 0 && p->ops[x->producer].kind == EZ_OP_ARGMAX);
}

uint64_t ez_plan_tensor_numel(const ez_plan_tensor *t)
{
    uint64_t n = 1;
    for (unsigned a = 0; a < t->rank; a++)
        n *= t->dims[a];
    return n;
}

const char *ez_op_kind_name(ez_op_kind k)
{
    switch (k) {
    case EZ_OP_EINSUM: return "einsum";
    case EZ_OP_ADD: return "add";
    case EZ_OP_CAUSAL: return "causal";
    case EZ_OP_SOFTMAX: return "softmax";
    case EZ_OP_MAX: return "max";
    case EZ_OP_ARGMAX: return "argmax";
    case EZ_OP_LAYERNORM: return "layernorm";
    case EZ_OP_RMSNORM: return "rmsnorm";
    case EZ_OP_FUNC: return "func";
    case EZ_OP_GATHER: return "gather";
    case EZ_OP_RELU: return "relu";
    case EZ_OP_RSQRT: return "rsqrt";
    case EZ_OP_ROPE: return "rope";
    }
    return "?";
}

const char *ez_func_name(ez_func f)
{
    switch (f) {
    case EZ_FN_NONE: return "none";
    case EZ_FN_RELU: return "relu";
    case EZ_FN_GELU: return "gelu";
    case EZ_FN_SILU: return "silu";
    case EZ_FN_SIGMOID: return "sigmoid";
    case EZ_FN_TANH: return "tanh";
    case EZ_FN_EXP: return "exp";
    case EZ_FN_RSQRT: return "rsqrt";
    case EZ_FN_GELU_TANH: return "gelu_tanh";
    }
    return "?";
}

const char *ez_idx_class_name(ez_idx_class c)
{
    switch (c) {
    case EZ_IDX_BATCH: return "batch";
    case EZ_IDX_CONTRACTED: return "contracted";
    case EZ_IDX_FREE_A: return "free-A";
    case EZ_IDX_FREE_B: return "free-B";
    case EZ_IDX_SUMMED_A: return "summed-A";
    case EZ_IDX_SUMMED_B: return "summed-B";
    case EZ_IDX_BROADCAST: return "broadcast";
    }
    return "?";
}

const char *ez_tensor_kind_name(ez_tensor_kind k)
{
    switch (k) {
    case EZ_TENSOR_INPUT: return "input";
    case EZ_TENSOR_TOKENS: return "tokens";
    case EZ_TENSOR_WEIGHT: return "weight";
    case EZ_TENSOR_ACT: return "activation";
    }
    return "?";
}

int ez_plan_find_tensor(const ez_plan *p, const char *name)
{
    for (size_t i = 0; i < p->ntensors; i++)
        if (!strcmp(p->tensors[i].name, name))
            return (int)i;
    return -1;
}
