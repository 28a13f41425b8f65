/* exec_op — what an operator's exec hook may use (runtime/exec/dispatch.c calls the hooks, one file
 * per family of ops implements). Not a public header. */
#ifndef EZ_RUNTIME_EXEC_OP_H
#define EZ_RUNTIME_EXEC_OP_H

#include "runtime/exec/exec.h"
#include "runtime/exec/exec_index.h"

/* Everything an op executor needs. */
typedef struct {
    const ez_plan *p;
    const ez_plan_op *op;
    size_t oi;
    ez_trace *tr;
    ez_diag *d;
    unsigned aux_used; /* bit k: the op asked for aux array k in this run */
} ez_exec_ctx;

/* The aux array of kind k with n entries for the current op (new and zeroed, or the
 * array of the previous run of this op, NOT cleared: the op must write every entry).
 * NULL with a diag on allocation failure. */
int64_t *ez_exec_aux(ez_exec_ctx *c, ez_aux_kind k, uint64_t n);

/* The table (built on first use and kept in the trace). */
ez_status ez_exec_table(ez_exec_ctx *c, const ez_table **out, ez_fn_table_kind kind, ez_func f,
                        unsigned in_scale, unsigned out_scale);

/* Scratch slot 0 or 1 of at least `bytes` bytes, 64-byte aligned, owned by the trace
 * and reused by later ops (fresh pages cost a fault each: reusing them matters as much
 * as the kernel). Contents undefined. NULL with a diag on allocation failure. */
void *ez_exec_scratch(ez_exec_ctx *c, int slot, size_t bytes);

/* Largest |v| over v[0..n) (as uint64, so INT64_MIN is fine). OpenMP-parallel. */
uint64_t ez_exec_maxabs(const int64_t *v, uint64_t n);

/* Move x from scale `from` to scale `to` exactly: x * 2^(to-from) when to >= from, else
 * floor(x / 2^(from-to)) with the remainder in *rem (0 otherwise). The caller keeps
 * |x| * 2^(to-from) < 2^62 (validated against the bounds). */
static inline int64_t ez_exec_move_scale(int64_t x, unsigned from, unsigned to, int64_t *rem)
{
    if (to >= from) {
        *rem = 0;
        return (int64_t)((uint64_t)x << (to - from));
    }
    unsigned s = from - to;
    int64_t q = x >> s;
    *rem = x - (int64_t)((uint64_t)q << s);
    return q;
}

/* floor(v / 2^shift) and its remainder in [0, 2^shift) (arithmetic shift = floor,
 * also for negatives). shift <= 62. */
static inline int64_t ez_exec_floor_shift(int64_t v, unsigned shift, int64_t *rem)
{
    int64_t q = v >> shift;
    *rem = v - (int64_t)((uint64_t)q << shift);
    return q;
}

/* Values moving between scales without a table (causal, relu), one output element (n of
 * them) per element of operand 0: *off = operand 0's offset per output element (new
 * array, ez_exec_elem_offsets); exact when the scale grows, floor with a remainder (aux
 * REM, allocated here into *rem) when it shrinks; *rem is NULL otherwise. On failure
 * both are NULL. Errors: those of ez_exec_elem_offsets (diag in c->d), EZ_ERR_NOMEM. */
ez_status ez_exec_move_scale_prepare(ez_exec_ctx *c, uint64_t n, int64_t **off, int64_t **rem);

/* MAX and ARGMAX in one scan (runtime/exec/rows.c): the maximum along op->axis and its
 * lowest index; the result is the one the op kind asks for, the other goes to aux
 * (ROW_ARG for MAX, ROW_MAX for ARGMAX). */
ez_status ez_exec_maxarg(ez_exec_ctx *c);

/* One row of it: the maximum of x[0], x[step], ..., x[(len - 1) step] (len >= 1) and in
 * *arg its lowest index. The executor and the verifier's streamed check of a public
 * MAX/ARGMAX (runtime/prove/public.c) share it, so they share the semantics. */
static inline int64_t ez_exec_row_maxarg(const int64_t *x, uint64_t len, int64_t step, int64_t *arg)
{
    int64_t m = x[0], a = 0;
    for (uint64_t j = 1; j < len; j++) {
        int64_t v = x[(int64_t)j * step];
        if (v > m) /* strict: ties keep the lowest index */
            m = v, a = (int64_t)j;
    }
    *arg = a;
    return m;
}

/* E = max(1, round(EZ_NORM_EPS * 4^in_scale)), the epsilon of a normalisation at the
 * input's scale (docs/semantics.md). in_scale <= 31. */
int64_t ez_exec_norm_eps(unsigned in_scale);

#endif
