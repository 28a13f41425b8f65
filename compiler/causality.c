/* causality — position axes and certifiability of a plan (causality.h). */
#include "compiler/causality.h"

#include <stdlib.h>
#include <string.h>

#include "compiler/builtins.h"
#include "compiler/recheck.h"
#include "compiler/schedule.h"

#include <nettle/sha2.h>

void ez_positions_clear(ez_positions *ps)
{
    if (ps == NULL)
        return;
    free(ps->row_axis);
    free(ps->key_axis);
    free(ps->masked);
    free(ps->op_row);
    memset(ps, 0, sizeof *ps);
}

static ez_status refuse(ez_diag *d, const ez_plan_op *op, const char *why)
{
    ez_diag_set(d, "not certifiable: op '%s' (%s, line %u) %s", op->label, ez_op_kind_name(op->kind), op->line, why);
    return EZ_ERR_UNSUPPORTED;
}

/* The output axis labelled by index x, or -1. */
static int out_axis(const ez_plan *p, const ez_plan_op *op, int x)
{
    for (unsigned a = 0; x >= 0 && a < p->tensors[op->out].rank; a++)
        if ((int)op->out_axes[a] == x)
            return (int)a;
    return -1;
}

/* Operand k's row and key position indices (index ids, -1 if none). A position axis
 * fixed at one position (a slice) picks one position for every row: refused. */
static bool operand_positions(const ez_positions *ps, const ez_plan_op *op, unsigned k, int *row, int *key)
{
    unsigned t = op->in[k];
    *row = *key = -1;
    int ax[2] = {ps->row_axis[t], ps->key_axis[t]};
    for (int w = 0; w < 2; w++) {
        if (ax[w] < 0)
            continue;
        if ((op->in_fixed[k] >> ax[w]) & 1)
            return false;
        *(w ? key : row) = (int)op->in_axes[k][ax[w]];
    }
    return true;
}

/* A contraction or a sum: positions summed only as a masked operand's key. */
static ez_status combine(ez_positions *ps, const ez_plan *p, size_t i, const int *rows, const int *keys,
                         int *row, int *key, bool *masked, ez_diag *d)
{
    const ez_plan_op *op = &p->ops[i];
    int idx[2 * EZ_MAX_OPERANDS], n = 0;
    for (unsigned k = 0; k < op->nin; k++) {
        int c[2] = {rows[k], keys[k]};
        for (int w = 0; w < 2; w++) {
            bool seen = c[w] < 0;
            for (int j = 0; j < n && !seen; j++)
                seen = idx[j] == c[w];
            if (!seen)
                idx[n++] = c[w];
        }
    }
    int kept[2], nk = 0;
    for (int j = 0; j < n; j++) {
        if (out_axis(p, op, idx[j]) >= 0) {
            if (nk == 2)
                return refuse(d, op, "keeps three sequence positions");
            kept[nk++] = idx[j];
            continue;
        }
        bool ok = false; /* summed: only over the key axis of a masked operand */
        for (unsigned k = 0; k < op->nin && !ok; k++)
            ok = keys[k] == idx[j] && ps->masked[op->in[k]];
        if (!ok)
            return refuse(d, op, "sums over sequence positions that are not causally masked: a position would "
                                 "depend on later ones");
    }
    *row = *key = -1;
    *masked = false;
    if (nk == 0)
        return EZ_OK;
    /* the row: operand A's row if kept, else the first kept index that is some row */
    int r = rows[0] >= 0 && out_axis(p, op, rows[0]) >= 0 ? rows[0] : -1;
    for (unsigned k = 0; r < 0 && k < op->nin; k++)
        if (rows[k] >= 0 && out_axis(p, op, rows[k]) >= 0)
            r = rows[k];
    if (r < 0)
        return refuse(d, op, "keeps a key position without its query position");
    *row = r;
    if (nk == 2)
        *key = kept[0] == r ? kept[1] : kept[0];
    if (*key >= 0) {
        /* products keep a masked factor's zeros; a sum needs every term with the key masked */
        bool any = false, all = true;
        for (unsigned k = 0; k < op->nin; k++)
            if (keys[k] == *key) {
                any |= ps->masked[op->in[k]];
                all &= ps->masked[op->in[k]];
            }
        *masked = op->kind == EZ_OP_EINSUM ? any : all;
    }
    return EZ_OK;
}

static ez_status op_positions(ez_positions *ps, const ez_plan *p, size_t i, ez_diag *d)
{
    const ez_plan_op *op = &p->ops[i];
    int rows[EZ_MAX_OPERANDS], keys[EZ_MAX_OPERANDS], row = -1, key = -1;
    bool masked = false;
    for (unsigned k = 0; k < op->nin; k++)
        if (!operand_positions(ps, op, k, &rows[k], &keys[k]))
            return refuse(d, op, "selects one sequence position for all of them");
    const ez_builtin *bi = ez_builtin_of(op->kind, op->func);
    ez_status st = EZ_OK;
    switch (op->kind) {
    case EZ_OP_GATHER:
        row = rows[1];
        break;
    case EZ_OP_EINSUM:
    case EZ_OP_ADD:
        st = combine(ps, p, i, rows, keys, &row, &key, &masked, d);
        break;
    case EZ_OP_CAUSAL:
        row = rows[0], key = keys[0];
        if (row == (int)op->mask_row && key == (int)op->mask_col)
            masked = true;
        else if (row == (int)op->mask_row || row == (int)op->mask_col || key == (int)op->mask_row ||
                 key == (int)op->mask_col)
            st = refuse(d, op, "masks sequence positions other than (query, key)");
        break;
    default: /* the built-in functions */
        row = rows[0], key = keys[0];
        if (bi->naxes == 1 && ((int)op->axis == row || (int)op->axis == key)) {
            if (op->kind == EZ_OP_SOFTMAX && op->masked && (int)op->axis == key && (int)op->mask_row == row)
                masked = true;
            else if (op->kind == EZ_OP_SOFTMAX && (int)op->axis == key)
                st = refuse(d, op, "is a softmax over key positions without the causal mask (bidirectional "
                                   "attention): a position would see later ones");
            else
                st = refuse(d, op, "reduces over sequence positions");
        } else {
            masked = ps->masked[op->in[0]] && bi->keeps_zero; /* a masked entry stays exactly zero */
        }
        break;
    }
    if (st != EZ_OK)
        return st;
    ps->op_row[i] = row;
    ps->row_axis[op->out] = out_axis(p, op, row);
    ps->key_axis[op->out] = out_axis(p, op, key);
    ps->masked[op->out] = masked && key >= 0;
    return EZ_OK;
}

ez_status ez_positions_analyze(ez_positions *ps, const ez_plan *p, ez_diag *d)
{
    memset(ps, 0, sizeof *ps);
    ps->ntensors = p->ntensors;
    ps->nops = p->nops;
    ps->row_axis = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *ps->row_axis);
    ps->key_axis = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *ps->key_axis);
    ps->masked = ez_alloc_array(p->ntensors ? p->ntensors : 1, sizeof *ps->masked);
    ps->op_row = ez_alloc_array(p->nops ? p->nops : 1, sizeof *ps->op_row);
    if (!ps->row_axis || !ps->key_axis || !ps->masked || !ps->op_row) {
        ez_positions_clear(ps);
        return EZ_ERR_NOMEM;
    }
    size_t ntok = 0;
    for (size_t t = 0; t < p->ntensors; t++) {
        ps->row_axis[t] = ps->key_axis[t] = -1;
        const ez_plan_tensor *x = &p->tensors[t];
        if (x->kind == EZ_TENSOR_INPUT) {
            ez_diag_set(d, "not certifiable: the input '%s' is not a token input (a generated token can only "
                           "extend `input tok[S] : token`)", x->source_name);
            return EZ_ERR_UNSUPPORTED;
        }
        if (x->kind == EZ_TENSOR_TOKENS) {
            ps->tokens = t;
            ps->row_axis[t] = 0;
            ntok++;
            if (x->rank != 1) {
                ez_diag_set(d, "not certifiable: the token input '%s' must have one axis, the sequence",
                            x->source_name);
                return EZ_ERR_UNSUPPORTED;
            }
        }
    }
    if (ntok != 1) {
        ez_diag_set(d, "not certifiable: it needs exactly one token input `tok[S] : token`, not %zu", ntok);
        return EZ_ERR_UNSUPPORTED;
    }
    for (size_t i = 0; i < p->nops; i++) {
        ez_status st = op_positions(ps, p, i, d);
        if (st != EZ_OK)
            return st;
    }
    for (size_t t = 0; t < p->ntensors; t++) {
        const ez_plan_tensor *x = &p->tensors[t];
        if (x->is_output && x->kind == EZ_TENSOR_ACT && p->ops[x->producer].kind == EZ_OP_ARGMAX && x->rank == 1 &&
            ps->row_axis[t] == 0 && ps->key_axis[t] < 0) {
            ps->next = t;
            return EZ_OK;
        }
    }
    ez_diag_set(d, "not certifiable: no output is an argmax at every position (e.g. `next[s] = argmax[w](logits[s, "
                   "w])` with `output next`)");
    return EZ_ERR_UNSUPPORTED;
}

/* ---- the plan of a shorter pass -------------------------------------------------------- */

static bool is_position(const ez_positions *ps, const ez_plan *p, size_t i, unsigned x);

int ez_positions_index_kind(const ez_positions *ps, const ez_plan *p, size_t i, unsigned x)
{
    if (ps->op_row[i] == (int)x)
        return 1;
    return is_position(ps, p, i, x) ? 2 : 0;
}

/* Is index x of op i a position index (a row or key of an operand or of the result)? */
static bool is_position(const ez_positions *ps, const ez_plan *p, size_t i, unsigned x)
{
    const ez_plan_op *op = &p->ops[i];
    for (unsigned k = 0; k < op->nin; k++) {
        int row, key;
        if (operand_positions(ps, op, k, &row, &key) && (row == (int)x || key == (int)x))
            return true;
    }
    int ro = ps->row_axis[op->out], ko = ps->key_axis[op->out];
    return (ro >= 0 && op->out_axes[ro] == x) || (ko >= 0 && op->out_axes[ko] == x);
}

ez_status ez_plan_restrict(ez_plan *out, const ez_plan *p, const ez_positions *ps, uint64_t length, ez_diag *d)
{
    ez_plan_init(out);
    const uint64_t S = p->tensors[ps->tokens].dims[0];
    if (length == 0 || length > S || (length != S && (length & (length - 1)) != 0)) {
        ez_diag_set(d, "a pass of %llu positions: it must be the context %llu or a power of two below it",
                    (unsigned long long)length, (unsigned long long)S);
        return EZ_ERR_INVALID;
    }
    *out = *p;
    out->tensors = ez_alloc_array(p->ntensors, sizeof *out->tensors);
    out->ops = ez_alloc_array(p->nops ? p->nops : 1, sizeof *out->ops);
    if (!out->tensors || !out->ops) {
        free(out->tensors);
        free(out->ops);
        ez_plan_init(out);
        return EZ_ERR_NOMEM;
    }
    memcpy(out->tensors, p->tensors, p->ntensors * sizeof *out->tensors);
    memcpy(out->ops, p->ops, p->nops * sizeof *out->ops);
    out->tensors[ps->tokens].dims[0] = length;
    for (size_t i = 0; i < p->nops; i++) {
        ez_plan_op *op = &out->ops[i];
        for (unsigned x = 0; x < op->nidx; x++) {
            if (!is_position(ps, p, i, x))
                continue;
            op->idx_size[x] = length;
            /* every axis the index labels, in the operands and the result */
            for (unsigned k = 0; k < op->nin; k++)
                for (unsigned a = 0; a < p->tensors[op->in[k]].rank; a++)
                    if (!((op->in_fixed[k] >> a) & 1) && op->in_axes[k][a] == x)
                        out->tensors[op->in[k]].dims[a] = length;
            for (unsigned a = 0; a < p->tensors[op->out].rank; a++)
                if (op->out_axes[a] == x)
                    out->tensors[op->out].dims[a] = length;
        }
    }
    for (size_t t = 0; t < p->ntensors; t++)
        out->tensors[t].is_output = t == ps->next;
    ez_status st = ez_plan_rederive(out, d);
    if (st == EZ_OK)
        st = ez_plan_schedule(out, d);
    if (st != EZ_OK) {
        ez_plan_clear(out);
        return st == EZ_ERR_FORMAT ? EZ_ERR_INVALID : st;
    }
    struct sha256_ctx h;
    uint8_t len8[8];
    for (int b = 0; b < 8; b++)
        len8[b] = (uint8_t)(length >> (8 * b));
    sha256_init(&h);
    sha256_update(&h, 14, (const uint8_t *)"einzk/restrict");
    sha256_update(&h, sizeof p->digest, p->digest);
    sha256_update(&h, 8, len8);
    sha256_digest(&h, sizeof out->digest, out->digest);
    return EZ_OK;
}
