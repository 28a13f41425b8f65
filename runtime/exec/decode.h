/* decode — greedy generation in the integer runtime with a KV cache (`einzk generate`).
 *
 * A certifiable plan (compiler/causality.h) computes position s from positions <= s only.
 * The decoder keeps the whole trace of the plan at its full context as the cache: to add
 * the token at position s it runs every op on the WINDOW of position s alone — the op
 * rewritten over its operands' slices at row s and their key axes cut to [0, s] (the
 * masked entries beyond are zero anyway), executed by the op's own exec hook — and
 * writes the window back into the trace. A new token costs one position of every op, not
 * a re-run; the result is bit-identical to running the plan on the whole sequence
 * (tests/check_decode.c compares them). Ops that depend on no position (weights only)
 * run once. */
#ifndef EZ_RUNTIME_EXEC_DECODE_H
#define EZ_RUNTIME_EXEC_DECODE_H

#include <stdint.h>

#include "compiler/causality.h"
#include "compiler/plan.h"
#include "lib/util.h"
#include "runtime/exec/exec.h"

typedef struct {
    const ez_plan *plan;   /* borrowed: a certifiable plan at its full context */
    ez_positions pos;      /* its analysis */
    ez_trace *tr;          /* borrowed: weights set; holds the cache */
    uint64_t next_pos;     /* the position the next step fills */
} ez_decoder;

/* Start decoding plan p over trace tr (every WEIGHT of tr set).
 * Returns EZ_OK; EZ_ERR_UNSUPPORTED when p is not certifiable (d says why); EZ_ERR_NOMEM;
 * the errors of ez_exec_op for the ops that depend on weights only (run here once). */
ez_status ez_decoder_init(ez_decoder *g, const ez_plan *p, ez_trace *tr, ez_diag *d);
void ez_decoder_clear(ez_decoder *g);

/* Feed `token` at position g->next_pos and run that position through every op.
 * Out: *next — the model's argmax at that position (the next token).
 * Returns EZ_OK; EZ_ERR_INPUT (the context is full, or a token outside the vocabulary);
 * the errors of ez_exec_op (a value outside its range at this position). */
ez_status ez_decoder_step(ez_decoder *g, int64_t token, int64_t *next, ez_diag *d);

#endif
