/* prove — the prover of a whole plan, and the per-op interface shared with the verifier
 * (runtime/verify.h). DESIGN.md §3; the full protocol with its transcript order and the
 * soundness argument of every op is docs/protocol.md.
 *
 * Phases (both sides in this order; docs/protocol.md §2):
 *   1. transcript: protocol version, plan digest, weight commitment, public inputs,
 *      claimed outputs;
 *   2. advice: every poly of the layout (runtime/advice.h) committed at once; the
 *      commitment is absorbed;
 *   3. lookups: one LogUp-GKR per table over all its columns (lib/logup.h); the column
 *      claims become atom claims, links run (runtime/rangecheck.h);
 *   4. outputs: per output tensor a random point r and the public output's MLE at r;
 *   5. backward walk: ops in reverse order; the claims on an op's output are merged
 *      (runtime/claim.h) and its `prove` reduces the merged claim to claims on its
 *      operands and advice;
 *   6. openings: claims on public tensors are evaluated by the verifier; claims on
 *      weights are opened against the vk commitment (their padding is zero, proven once
 *      in the vk, docs/protocol.md §6), claims on advice against the proof's advice
 *      commitment — one batched opening each.
 *
 * PER-OP INTERFACE. Each provable op kind has one ez_op_prover entry (ez_op_prover_find):
 *   layout  — both sides, from the plan only: register the op's committed advice, lookup
 *             columns and links in the advice layout (use the builders of
 *             runtime/rangecheck.h: ez_rc_commit_value, ez_rc_check_tensor). Return
 *             EZ_ERR_UNSUPPORTED with a message for a shape the op cannot prove.
 *   prove   — prover: given the ONE merged claim on the op's output, append the op's
 *             messages (through ez_pctx_msg or a kernel prover writing to c->w, with the
 *             same transcript records as the verifier) and add the claims it leaves with
 *             ez_pctx_claim_tensor / ez_pctx_claim_advice / ez_rc_value_claim.
 *   verify  — verifier: the same, reading c->r; never touches data; any failed check
 *             returns EZ_ERR_REJECT with a reason in c->d.
 * A new op (e.g. SOFTMAX) adds one file with these three functions and one line in the
 * table in runtime/prove.c; the framework does the rest (commitment, lookups, merging,
 * openings). An op whose output gets no claim at all is skipped (nothing depends on it).
 */
#ifndef EZ_RUNTIME_PROVE_H
#define EZ_RUNTIME_PROVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/field.h"
#include "lib/pcs.h"
#include "lib/sumcheck.h"
#include "lib/transcript.h"
#include "lib/util.h"
#include "runtime/prove/advice.h"
#include "runtime/prove/claim.h"
#include "runtime/exec/exec.h"
#include "runtime/formats/proofio.h"

/* Upper bound on a tensor's MLE variables: padded layouts are capped at 2^40 entries
 * (EZ_ADV_MAX_PADLEN), so 64 coordinates hold any point. */
#define EZ_PROVE_MAX_VARS 64

/* The domain of every proof transcript. */
#define EZ_PROOF_DOMAIN "einzk/proof"

/* The state one side carries through the phases. */
typedef struct {
    bool prover;
    const ez_plan *plan;
    const ez_advice_layout *adv;
    ez_transcript *t;
    ez_writer *w;              /* prover: the section being written */
    ez_reader *r;              /* verifier: the section being read */
    const ez_statement *stmt;  /* both: public inputs and claimed outputs (NULL in the
                                  weight range proof, which has no statement) */
    const ez_trace *tr;        /* prover only */
    ez_fe *const *advice;      /* prover only: the advice polys' entries */
    ez_claim_list *tclaims;    /* plan->ntensors lists */
    ez_claim_list *aclaims;    /* adv->npolys lists */
    ez_diag *d;
} ez_pctx;

/* One prover message of n extension elements: the prover writes v[0..n) to c->w, the
 * verifier reads them from c->r into v (EZ_ERR_REJECT with a reason on short or
 * non-canonical bytes); both absorb them under label. */
ez_status ez_pctx_msg(ez_pctx *c, const char *label, ez_fe2 *v, size_t n);

/* Add the claim T~(point) = value on plan tensor `tensor` / advice poly `poly` (copied).
 * EZ_ERR_INVALID if nvars differs from the tensor's / poly's variable count; NOMEM. */
ez_status ez_pctx_claim_tensor(ez_pctx *c, size_t tensor, const ez_fe2 *point, unsigned nvars, ez_fe2 value);
ez_status ez_pctx_claim_advice(ez_pctx *c, size_t poly, const ez_fe2 *point, unsigned nvars, ez_fe2 value);

/* Prover: the MLE of an atom at point (its length's variable count). */
ez_status ez_pctx_eval_atom(const ez_pctx *c, ez_atom a, const ez_fe2 *point, ez_fe2 *out);

/* ---- operand views: layer slices -------------------------------------------------------
 * An operand axis fixed at a position (op->in_fixed) is removed: the op is rewritten over
 * "slice" tensors whose MLE equals the full tensor's with that axis block set to the
 * position's bits. Per-op code reduces claims on slices and lifts them with
 * ez_opview_claim. */
typedef struct {
    ez_plan_op op;                                /* in[k] = k, out = nin */
    ez_plan_tensor tensors[EZ_MAX_OPERANDS + 1];
    const int64_t *data[EZ_MAX_OPERANDS];         /* prover: slice values (maybe owned) */
    int64_t *owned[EZ_MAX_OPERANDS];
} ez_opview;

/* Build the view of op `i` of p; with tr non-NULL also the operand data (slices copied).
 * Returns EZ_OK, EZ_ERR_NOMEM. Free with ez_opview_clear. */
ez_status ez_opview_init(ez_opview *v, const ez_plan *p, size_t i, const ez_trace *tr);
void ez_opview_clear(ez_opview *v);
/* Add the claim on slice k (point over the slice's variables) to operand k's tensor. */
ez_status ez_opview_claim(ez_pctx *c, const ez_opview *v, size_t i, unsigned k, const ez_claim *slice_claim);

/* ---- the per-op table ---------------------------------------------------------------------- */

typedef struct ez_op_prover {
    ez_op_kind kind;
    ez_status (*layout)(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d);
    ez_status (*prove)(ez_pctx *c, size_t op, const ez_claim *out);
    ez_status (*verify)(ez_pctx *c, size_t op, const ez_claim *out);
    ez_status (*fill)(const ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op, bool unchecked,
                      ez_fe **polys, ez_diag *d);
} ez_op_prover;

/* The entry of an op kind, or NULL when the kind is not provable yet. */
const ez_op_prover *ez_op_prover_find(ez_op_kind kind);

/* EZ_OK if every op of p is provable, else EZ_ERR_UNSUPPORTED with
 * "op 'p' (softmax) is not provable yet" (the first such op). O(ops). */
ez_status ez_prove_check_plan(const ez_plan *p, ez_diag *d);

/* The ops of the table (one file each). */
ez_status ez_op_einsum_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d);
ez_status ez_op_einsum_prove(ez_pctx *c, size_t op, const ez_claim *out);
ez_status ez_op_einsum_verify(ez_pctx *c, size_t op, const ez_claim *out);
ez_status ez_op_add_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d);
ez_status ez_op_add_prove(ez_pctx *c, size_t op, const ez_claim *out);
ez_status ez_op_add_verify(ez_pctx *c, size_t op, const ez_claim *out);
ez_status ez_op_causal_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d);
ez_status ez_op_causal_prove(ez_pctx *c, size_t op, const ez_claim *out);
ez_status ez_op_causal_verify(ez_pctx *c, size_t op, const ez_claim *out);
ez_status ez_op_gather_layout(ez_advice_layout *L, const ez_plan *p, size_t op, ez_diag *d);
ez_status ez_op_gather_prove(ez_pctx *c, size_t op, const ez_claim *out);
ez_status ez_op_gather_verify(ez_pctx *c, size_t op, const ez_claim *out);

/* The MLE of the causal mask M[i, j] = [j <= i] over ni + nj variables (i's block first;
 * i in [0, 2^ni), j in [0, 2^nj), the whole cube) at (ri, rj), in O(ni + nj) multiplies:
 * M~ = 1 - sum_b E_b rj_b (1 - ri_b), bits aligned at the least significant end, E_b the
 * eq of the more significant bits (missing bits of the shorter index are 0). */
ez_fe2 ez_mle_causal(const ez_fe2 *ri, unsigned ni, const ez_fe2 *rj, unsigned nj);

/* ---- the weight commitment -------------------------------------------------------------- */

/* Lengths of the weight polys: the padded layout of every WEIGHT tensor, plan order.
 * *n gets the count (0 for a model without weights; lens may then be NULL). */
ez_status ez_weights_lens(const ez_plan *p, uint64_t **lens, size_t *n);

/* Commit the weights of tr (every WEIGHT tensor set) in their padded layouts, plan order.
 * Out: *out (NULL when the model has no weights) and *com (zeroed then).
 * Returns EZ_OK, EZ_ERR_UNSUPPORTED (sizes beyond the PCS limits), EZ_ERR_NOMEM. */
ez_status ez_weights_commit(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_plan *p, const ez_trace *tr,
                            ez_diag *d);

/* ---- the prover -------------------------------------------------------------------------- */

typedef struct {
    bool unchecked;       /* TESTING ONLY: do not stop on witness values outside their
                             ranges (ez_advice_fill, lookup multiplicities); emit the proof
                             the verifier must reject */
    bool progress;        /* report phases through progress_fn */
    void (*progress_fn)(void *ctx, const char *phase, double frac);
    void *progress_ctx;
} ez_prove_opts;

typedef struct {
    double seconds;       /* merge + reduction of this op */
    uint64_t bytes;       /* walk bytes of this op (merge + reduction) */
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
 *      outside its proven range: d names it), EZ_ERR_INVALID, EZ_ERR_NOMEM.
 * Cost: the trace is not recomputed; commitments O(advice), lookups O(columns), the walk
 *      O(activations + parameters) (docs/protocol.md §8). */
ez_status ez_prove(const ez_plan *p, const ez_trace *tr, ez_pcs_prover *weights, const ez_prove_opts *opts,
                   ez_proof *proof, ez_prove_stats *stats, ez_diag *d);

/* ---- the weight range proof (in the vk) ---------------------------------------------------
 * The verifier cannot see the weights, yet the compiler's bound analysis (no wrap-around
 * modulo p) assumes every weight lies in its declared width. `setup` therefore proves it
 * once: the same advice/lookup/opening machinery over a layout that range-checks every
 * WEIGHT tensor (ez_advice_layout_build_weights: weight + 2^(bits-1) in [0, 2^bits) on
 * its padded layout, padding included) and the zero padding of every weight with
 * interior padding (ez_weight_pad_desc), in its own transcript (domain
 * EZ_WRANGE_DOMAIN: version, plan digest, weight commitment, advice commitment, lookups,
 * padding zero-checks, openings). The bytes live in the vk; ez_verify checks them before
 * the proof (runtime/verify.h ez_verify_weight_range). docs/protocol.md §6.4.
 * Format: u8 present (0 for a model without weights), then 4 chunks (u64 length +
 * bytes): advice commitment, lookups + padding zero-checks, weight opening, advice
 * opening. */
#define EZ_WRANGE_DOMAIN "einzk/weights"

void ez_weight_range_transcript_start(ez_transcript *t, const ez_plan *p, const ez_pcs_commitment *wcom);

/* Prove the weights of tr (committed by `weights`, NULL iff the model has none) in range.
 * unchecked: testing only (emit a proof for out-of-range weights). Appends to out.
 * Returns EZ_OK, EZ_ERR_NUMERIC (a weight outside its width, d names it), EZ_ERR_INVALID
 * (weights do not match the plan), EZ_ERR_NOMEM. Cost: one advice commitment of the
 * weights' limbs (for widths > 16) and one LogUp-GKR over all weights. */
ez_status ez_prove_weight_range(const ez_plan *p, const ez_trace *tr, ez_pcs_prover *weights, bool unchecked,
                                ez_writer *out, ez_diag *d);

/* ---- shared by prove.c and verify.c ---------------------------------------------------- */

/* Phase 1: init the transcript and absorb version, digest, weight commitment (NULL when
 * the model has none) and the statement. */
void ez_proof_transcript_start(ez_transcript *t, const ez_plan *p, const ez_pcs_commitment *wcom,
                               const ez_statement *s);

/* Phase 4: per output tensor (plan order) draw a point and add the claim "output MLE at
 * the point = the statement's values' MLE" to its list. */
ez_status ez_proof_output_claims(ez_pctx *c, const ez_statement *s);

/* Zero padding of the committed weights (docs/protocol.md §6.4): a weight whose padded
 * layout has interior padding (ez_advice_interior_padding) is committed with zeros there,
 * and the vk's range proof shows it with one zero-check per such weight,
 *     0 = sum_x eq(rho, x) (1 - R(x)) P(x),  R = prod_a [x_a < d_a] (the real entries),
 * rho (nv coordinates, label "wpad/rho") drawn after the lookups. So P's MLE IS the
 * zero-padded tensor's, and claims on the tensor are openings of P (no masking).
 * The factor 1 - R has the closed-form MLE 1 - ez_weight_real_mle (O(nv)). */
void ez_weight_pad_desc(ez_sumcheck_desc *desc, unsigned nv);
/* R~(point) = prod_a ez_mle_prefix(point_a, ceil(log2 d_a), d_a). */
ez_fe2 ez_weight_real_mle(const ez_plan_tensor *tt, const ez_fe2 *point);

/* Allocate claim lists for every tensor and advice poly. */
ez_status ez_pctx_alloc(ez_pctx *c, const ez_plan *p, const ez_advice_layout *L);
void ez_pctx_free(ez_pctx *c);

#endif
