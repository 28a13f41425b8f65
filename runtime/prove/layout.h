/* layout — the advice layout of a whole plan: decided once, from the plan alone, and read
 * by the prover, the verifier and `einzk info` alike (docs/architecture.md). Every op's layout hook (runtime/ops/op.h) registers what it commits and looks
 * up; the framework adds one multiplicity poly per table. The same module counts what a
 * proof of the plan will hold — per op, the bytes of its reduction and of the fan-out
 * merge of its output's claims — exactly, so `info` reports the prover's real sizes. */
#ifndef EZ_RUNTIME_PROVE_LAYOUT_H
#define EZ_RUNTIME_PROVE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/util.h"
#include "runtime/prove/advice.h"

/* Build the layout of plan p: every op's advice, columns and links (through its entry
 * in the per-op table, runtime/prove.h), then one multiplicity poly per used table.
 * Deterministic: a function of the plan only.
 * Returns EZ_OK; EZ_ERR_UNSUPPORTED with d naming the op when an op kind is not provable
 * ("op 'p' (softmax) is not provable yet") or a size exceeds the prover's limits;
 * EZ_ERR_NOMEM. On failure L is cleared. */
ez_status ez_advice_layout_build(ez_advice_layout *L, const ez_plan *p, ez_diag *d);

/* The layout of the weight range proof (runtime/prove.h): every WEIGHT tensor range-
 * checked to its signed width (weight + 2^(bits-1) in [0, 2^bits)), then the
 * multiplicity polys. Same errors as ez_advice_layout_build. */
ez_status ez_advice_layout_build_weights(ez_advice_layout *L, const ez_plan *p, ez_diag *d);

/* The layout of every provable op of p, the others left out: provable[i] (nops entries)
 * says which. For `info` and the compiler's checks on a plan that does not fully prove
 * yet. Returns EZ_OK or EZ_ERR_NOMEM. */
ez_status ez_advice_layout_build_lenient(ez_advice_layout *L, const ez_plan *p, bool *provable, ez_diag *d);

/* ---- sizes ------------------------------------------------------------------------------ */

typedef struct {
    bool provable;          /* the op has prove hooks and its shape is provable */
    uint64_t advice_elems;  /* committed entries it owns (its limbs and its own polys) */
    uint64_t lookup_rows;   /* rows it looks up in the range table */
    unsigned out_claims;    /* claims on its output when the proof runs (0: skipped) */
    uint64_t merge_bytes;   /* the fan-out merge of those claims */
    uint64_t walk_bytes;    /* its reduction */
} ez_layout_op_size;

typedef struct {
    size_t nops;
    ez_layout_op_size *ops;
    bool provable;          /* every op */
    uint64_t advice_elems;  /* the whole advice commitment, multiplicities included */
    uint64_t walk_bytes;    /* the walk section: every merge and reduction */
} ez_layout_sizes;

/* What a proof of p holds, from the plan alone — the same layout the prover builds, so the
 * per-op walk bytes (merge + reduction) are exactly what `prove` reports per op. Ops that
 * are not provable are marked and left out (their sizes are 0).
 * Returns EZ_OK or EZ_ERR_NOMEM. Clear with ez_layout_sizes_clear. */
ez_status ez_layout_sizes_compute(ez_layout_sizes *s, const ez_plan *p, ez_diag *d);
void ez_layout_sizes_clear(ez_layout_sizes *s);

#endif
