/* pctx — the proof context: the state one side (prover or verifier) carries through a
 * proof, and what every op's prove/verify hook uses (docs/protocol.md §5 "The claim flow";
 * docs/protocol.md §2). An op talks to the proof only through this header:
 *   ez_pctx_msg             one prover message: written by the prover, read (and checked
 *                           canonical) by the verifier, absorbed by both;
 *   ez_pctx_claim_tensor /  the claims an op's reduction leaves on its operands and on
 *   ez_pctx_claim_advice    committed advice;
 *   ez_opview_*             an op rewritten over its operands' layer slices.
 * Both sides run the same hook code with c->prover telling them apart. */
#ifndef EZ_RUNTIME_PROVE_PCTX_H
#define EZ_RUNTIME_PROVE_PCTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/field.h"
#include "lib/pcs.h"
#include "lib/sumcheck.h"
#include "lib/transcript.h"
#include "lib/util.h"
#include "runtime/exec/exec.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/advice.h"
#include "runtime/prove/claim.h"
#include "runtime/prove/strategy.h"

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
    const ez_plan *wplan;      /* the plan the weights were committed under, when it is not
                                  `plan` (a shorter certified pass, docs/certify.md); NULL
                                  means `plan` */
    ez_strategy strategy;      /* how contractions are reduced (runtime/prove/strategy.h) */
    ez_work *work;             /* prover: the current op's work counters (NULL: not counted) */
    void (*msg_hook)(void *ctx, const char *label, ez_fe2 *v, size_t n); /* prover, TESTING
                                  ONLY: may change each message before it is sent (prove.h) */
    void *msg_hook_ctx;
    const ez_sumcheck_factor *(*sumcheck_hook)(void *ctx, const ez_sumcheck_desc *d, const ez_fe2 *coeffs,
                                               const ez_fe2 *eq_point,
                                               const ez_sumcheck_factor *f); /* prover, TESTING ONLY:
                                  other tables for an op sumcheck (prove.h) */
    void *sumcheck_hook_ctx;
    ez_table **tables;         /* the function tables built for this proof (ez_pctx_table) */
    size_t ntables;
    ez_diag *d;
} ez_pctx;

/* The function table of (kind, f, scales): the prover's trace's (the run built it), else
 * one built once per proof and kept in c (the verifier needs each table's rows in the
 * lookups and its constants in every op using it: GPT-2 has twelve GELUs). *out is
 * borrowed until ez_pctx_free. EZ_ERR_INVALID (no such table), EZ_ERR_NOMEM. */
ez_status ez_pctx_table(ez_pctx *c, ez_fn_table_kind kind, ez_func f, unsigned in_scale, unsigned out_scale,
                        const ez_table **out);

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

/* Allocate claim lists for every tensor and advice poly. */
ez_status ez_pctx_alloc(ez_pctx *c, const ez_plan *p, const ez_advice_layout *L);
void ez_pctx_free(ez_pctx *c);

/* Phase 1: init the transcript and absorb version, the proving strategy, digest, weight
 * commitment (NULL when the model has none) and the statement. */
void ez_proof_transcript_start(ez_transcript *t, const ez_plan *p, const ez_pcs_commitment *wcom,
                               const ez_statement *s, ez_strategy strategy);

/* Phase 4: per output tensor (plan order) draw a point and add the claim "output MLE at
 * the point = the statement's values' MLE" to its list. */
ez_status ez_proof_output_claims(ez_pctx *c, const ez_statement *s);

#endif
