/* causality — which axes of a plan carry sequence positions, and whether the plan is
 * CERTIFIABLE: whether one forward pass over prompt + generated text proves a greedy
 * generation (docs/certify.md).
 *
 * The argument: with `tok[S] : token` the only input and `next[s] = argmax[w](...)` an
 * output, if nothing computed at position s depends on a token at a later position, then
 * next[s] is a function of tok[0..s]; with ties going to the lowest index (ARGMAX proves
 * it) it is deterministic, so checking next[s] = tok[s + 1] from the end of the prompt on
 * certifies that every generated token is the model's greedy choice — in ONE pass, linear
 * in the length, instead of one proof per step.
 *
 * Positions flow from the token input through the ops. A tensor has a ROW position axis
 * (the position its values belong to: x[s, d], q[s, h, e]) and may have a KEY axis (a
 * second position it looks at: the scores a[h, s, t] of query s and key t). An op may sum
 * over a position index only where it is the key axis of a MASKED operand (its entries
 * with key > row are exactly zero: the output of causal[s, t] or of a causally masked
 * softmax), which is what attention's p[h, s, t] * v[t, h, e] does. Everything else that
 * mixes positions — an unmasked softmax over keys (bidirectional attention), a sum or
 * max over positions (mean pooling), a third position index — makes the plan not
 * certifiable, and the analysis says which op and why. */
#ifndef EZ_COMPILER_CAUSALITY_H
#define EZ_COMPILER_CAUSALITY_H

#include <stdbool.h>
#include <stddef.h>

#include "compiler/plan.h"
#include "lib/util.h"

typedef struct {
    size_t ntensors, nops;
    int *row_axis;    /* per tensor: its row position axis, -1 if it has none */
    int *key_axis;    /* per tensor: its key position axis, -1 if it has none */
    bool *masked;     /* per tensor: entries with key > row are exactly zero */
    int *op_row;      /* per op: the index id of its output's row position, -1 if none */
    size_t tokens;    /* the token input */
    size_t next;      /* the certified output: an ARGMAX with a row position */
} ez_positions;

void ez_positions_clear(ez_positions *ps);

/* Analyse p.
 * Out: *ps (clear with ez_positions_clear; filled even when the plan is not certifiable,
 *      as far as the analysis got).
 * Returns EZ_OK when the plan is certifiable; EZ_ERR_UNSUPPORTED with d naming the op,
 *      its line and the reason when it is not; EZ_ERR_NOMEM. O(plan). */
ez_status ez_positions_analyze(ez_positions *ps, const ez_plan *p, ez_diag *d);

/* How index x of op i of p relates to positions: 0 none, 1 the row, 2 a key. */
int ez_positions_index_kind(const ez_positions *ps, const ez_plan *p, size_t i, unsigned x);

/* The plan of a certified pass over `length` positions (docs/certify.md): every
 * position-sized axis of p (the token input's, and every axis an op labels with a
 * position index — weights such as learned positions wpe[S, D] included) shrunk to
 * length, the bounds re-derived, the EqSchedules recomputed, and the certified output
 * `next` the only output (the logits stay inside the proof). Its digest is
 * SHA-256("einzk/restrict" || p's digest || length): a function of the vk's plan and the
 * length, so one vk serves every length.
 * In:  p certifiable (ps its analysis, EZ_OK); length = p's context, or a power of two
 *      below it (so a restricted weight is the committed one's prefix: its MLE is the
 *      committed MLE with the top bits of the axis fixed to 0).
 * Out: *out (ez_plan_clear).
 * Returns EZ_OK, EZ_ERR_INVALID (bad length), EZ_ERR_NOMEM. */
ez_status ez_plan_restrict(ez_plan *out, const ez_plan *p, const ez_positions *ps, uint64_t length, ez_diag *d);

#endif
