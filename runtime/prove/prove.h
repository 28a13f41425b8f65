/* prove — the prover of a whole plan
 * (runtime/prove/verify.h). docs/protocol.md; the full protocol with its transcript order and the
 * soundness argument of every op is docs/protocol.md.
 *
 * Phases (both sides in this order; docs/protocol.md §2):
 *   1. transcript: protocol version, plan digest, weight commitment, public inputs,
 *      claimed outputs;
 *   2. advice: every poly of the layout (runtime/prove/advice.h) committed at once; the
 *      commitment is absorbed;
 *   3. lookups: one LogUp-GKR per table over all its columns (lib/logup.h); the column
 *      claims become atom claims, links run (runtime/prove/rangecheck.h);
 *   4. outputs: per output tensor a random point r and the public output's MLE at r;
 *   5. backward walk: ops in reverse order; the claims on an op's output are merged
 *      (runtime/prove/claim.h) and its `prove` reduces the merged claim to claims on its
 *      operands and advice;
 *   6. openings: claims on public tensors are evaluated by the verifier; claims on
 *      weights are opened against the vk commitment (their padding is zero, proven once
 *      in the vk, docs/protocol.md §6), claims on advice against the proof's advice
 *      commitment — one batched opening each.
 *
 * The per-op hooks (layout, fill, prove, verify) are in runtime/ops/op.h; the shared
 * phases in runtime/prove/session.h; the weight commitment and the vk's weight range
 * proof in runtime/prove/weights.h. An op whose output gets no claim at all is skipped
 * (nothing depends on it).
 */
#ifndef EZ_RUNTIME_PROVE_H
#define EZ_RUNTIME_PROVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/pcs.h"
#include "lib/sumcheck.h"
#include "lib/util.h"
#include "runtime/exec/exec.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/strategy.h"

/* ---- the prover -------------------------------------------------------------------------- */

/* EZ_OK if every op of p is provable and the plan is sound (ez_plan_soundness: its bounds
 * as derived, no relation able to wrap the field), else EZ_ERR_UNSUPPORTED with
 * "op 'p' (softmax) is not provable yet" (the first such op), or EZ_ERR_NUMERIC naming
 * the relation. Builds the layout. (ez_prove itself does not refuse an unsound plan:
 * tests use that to show the verifier rejects one.) */
ez_status ez_prove_check_plan(const ez_plan *p, ez_diag *d);

typedef struct {
    bool unchecked;       /* TESTING ONLY: do not stop on witness values outside their
                             ranges (ez_advice_fill, lookup multiplicities); emit the proof
                             the verifier must reject */
    bool progress;        /* report phases through progress_fn */
    void (*progress_fn)(void *ctx, const char *phase, double frac);
    void *progress_ctx;
    /* Called once, after the walk and before the openings, which read neither the trace
     * nor tr's tables: the caller may free the trace there (the CLI does; GPT-2 small at
     * 512 tokens holds ~5 GB of it). NULL = none. */
    void (*trace_done)(void *ctx);
    void *trace_done_ctx;
    const ez_plan *wplan; /* the plan the weights were committed under, when it is not the
                             plan proven: a certified pass over fewer positions
                             (compiler/causality.h ez_plan_restrict); NULL = the same */
    int64_t *const *stmt_from; /* TESTING ONLY: the tensors the statement (public inputs and
                                  outputs: absorbed, claimed, checked) is taken from instead
                                  of the trace's — a prover whose witness is not its
                                  statement, for the verifier to reject; NULL = the trace */
    const ez_trace *walk_tr;   /* TESTING ONLY: the trace the output claims and the backward
                                  walk (merges, reductions) use, while the committed advice
                                  and the looked-up columns come from tr — a prover whose
                                  commitments are not its reductions' witness; NULL = tr */
    ez_strategy strategy; /* how contractions are reduced (default 0: einsum); recorded in
                             the proof, which the verifier reads */
    /* TESTING ONLY: called with every message the prover sends through ez_pctx_msg
     * (runtime/prove/pctx.h), before it is written and absorbed; it may change the values —
     * a malicious prover that keeps its transcript consistent and goes on from what it
     * sent. NULL: none. */
    void (*msg_hook)(void *ctx, const char *label, ez_fe2 *v, size_t n);
    void *msg_hook_ctx;
    /* TESTING ONLY: called by ez_op_sumcheck (runtime/ops/op.h), ez_su_sumcheck
     * (runtime/prove/strategy_util.h) and ROPE's prover before each op or strategy sumcheck
     * the prover runs, with its shape, coefficients, eq point and factor tables; it may return
     * other tables (d->nfactors of them, alive until the proof ends) for the sumcheck to
     * run over — a prover cheating on one factor, e.g. one the verifier evaluates itself,
     * that keeps the sum and so the sumcheck intact. NULL return: the op's tables. NULL:
     * none. */
    const ez_sumcheck_factor *(*sumcheck_hook)(void *ctx, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                                               const ez_fe2 *eq_point, const ez_sumcheck_factor *f);
    void *sumcheck_hook_ctx;
} ez_prove_opts;

typedef struct {
    double seconds;       /* merge + reduction of this op */
    double cpu_seconds;   /* the same in process CPU seconds (all threads) */
    uint64_t bytes;       /* walk bytes of this op (merge + reduction) */
    ez_work work;         /* sumchecks and elements touched by its reduction (strategy.h),
                             the fan-out merge of its output's claims included */
} ez_op_stat;

typedef struct {
    double witness, commit, lookups, sumchecks, openings, total; /* seconds (wall clock) */
    /* the same phases in process CPU seconds (all threads): on a shared machine the
     * wall clock also counts the time other jobs hold the cores */
    double cpu_witness, cpu_commit, cpu_lookups, cpu_sumchecks, cpu_openings, cpu_total;
    size_t nops;
    ez_op_stat *ops;      /* nops entries (owned; ez_prove_stats_clear) */
    uint64_t proof_bytes, statement_bytes;
} ez_prove_stats;

void ez_prove_stats_clear(ez_prove_stats *s);

/* CPU seconds used by the whole process so far (all threads). */
double ez_prove_cpu_now(void);

/* Prove one inference.
 * In:  p — a provable plan (ez_prove_check_plan); tr — its executed trace (every tensor
 *      and the aux arrays; the caller may have altered it in tests); weights — the weight
 *      prover of ez_weights_commit or the pk (NULL iff the model has no weights; its
 *      layout is checked against the plan); opts may be NULL.
 * Out: proof — the proof (statement = the trace's inputs and outputs; sections owned by
 *      proof, ez_proof_clear); stats (may be NULL; clear with ez_prove_stats_clear).
 * Returns EZ_OK, EZ_ERR_UNSUPPORTED (an op not provable), EZ_ERR_NUMERIC (a witness value
 *      outside its proven range: d names it), EZ_ERR_INVALID (also: opts->strategy is not
 *      a strategy), EZ_ERR_NOMEM.
 * Cost: the trace is not recomputed; commitments O(advice), lookups O(columns), the walk
 *      O(activations + parameters) (docs/protocol.md §8). */
ez_status ez_prove(const ez_plan *p, const ez_trace *tr, ez_pcs_prover *weights, const ez_prove_opts *opts,
                   ez_proof *proof, ez_prove_stats *stats, ez_diag *d);

#endif
