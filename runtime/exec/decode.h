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

/* ---- greedy generation (`einzk generate`, and the text `einzk certify` proves) ------------ */

/* Why generation stopped; the certificate's stop rule (docs/certify.md). */
typedef enum {
    EZ_STOP_MAX_NEW = 0, /* max_new tokens generated, none of them the EOS token */
    EZ_STOP_EOS = 1,     /* the last generated token is EOS, no earlier one is */
    EZ_STOP_CONTEXT = 2  /* the context is full (prompt + generated = context + 1), no EOS */
} ez_stop_rule;

const char *ez_stop_rule_name(ez_stop_rule s);

typedef struct {
    uint64_t nprompt, ngen;
    int64_t eos;       /* the EOS token, -1 for none */
    uint64_t max_new;
    ez_stop_rule stop;
    int64_t *tokens;   /* nprompt + ngen: the prompt, then the generated tokens (owned) */
} ez_generation;

void ez_generation_clear(ez_generation *g);

/* Does g's stop rule hold for its tokens, given the model's context? EZ_OK, or
 * EZ_ERR_REJECT with d saying what is wrong ("token 17 at position 9 is EOS, yet
 * generation went on"). Used by the certificate verifier. */
ez_status ez_generation_check_stop(const ez_generation *g, uint64_t context, ez_diag *d);

/* Greedy generation: feed the prompt, then append the argmax until EOS, max_new tokens,
 * or a full context.
 * In:  p certifiable; tr holds its weights (its activations are overwritten: the cache);
 *      prompt of 1..context tokens in the vocabulary; max_new >= 1; eos -1 or a token.
 * Out: *g (ez_generation_clear).
 * Returns EZ_OK, EZ_ERR_INPUT (bad prompt or arguments, d says which), EZ_ERR_UNSUPPORTED
 *      (p not certifiable), the errors of ez_decoder_step. Cost: one position of every op
 *      per token. */
ez_status ez_generate(ez_generation *g, const ez_plan *p, ez_trace *tr, const int64_t *prompt, size_t nprompt,
                      uint64_t max_new, int64_t eos, ez_diag *d);

#endif
