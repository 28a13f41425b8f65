/* prove_fixture — a model compiled from source, run on seeded random data, its weights
 * committed, proven and verified in memory: the whole pipeline the CLI runs, for the
 * op and soundness suites (tests/check_prove*.c, check_margins.c, check_ops*.c). */
#ifndef EZ_TESTS_PROVE_FIXTURE_H
#define EZ_TESTS_PROVE_FIXTURE_H

#include <stdbool.h>

#include "compiler/plan.h"
#include "lib/pcs.h"
#include "lib/sumcheck.h"
#include "runtime/exec/exec.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/pctx.h"
#include "tests/testutil.h"

typedef struct {
    ez_plan plan;
    ez_trace tr;
    ez_pcs_prover *w;
    ez_pcs_commitment wcom;
    ez_writer wrange; /* the weight range proof of the vk */
} ez_pfx;

/* Compile src (fails the test on a compile error). The plan is scheduled and has its
 * digest; the soundness checks are NOT run (a test may build an unsound plan on purpose). */
void ez_pfx_compile(ez_pfx *f, const char *src);
/* The index of p's last op of kind `kind` (asserted present). */
size_t ez_pfx_last_op(const ez_plan *p, ez_op_kind kind);
/* The value of element e of tensor t, from r, a fresh word of the test's generator (one
 * per element, in order, so a fill replays from its seed). ctx: the test's own. */
typedef int64_t (*ez_pfx_value_fn)(void *ctx, const ez_plan_tensor *t, uint64_t e, uint64_t r);

/* Initialise tr for p, set every tensor the model does not compute (inputs, weights,
 * tokens; plan order) to value(ctx, t, e, r) for its elements e in order, and run the
 * model; a failure fails the test, naming seed. Each op suite chooses its inputs'
 * hard cases in `value`; the filling and running is this one loop. */
void ez_pfx_fill_run(const ez_plan *p, ez_trace *tr, const char *seed, ez_pfx_value_fn value, void *ctx);
/* ez_pfx_fill_run on f, then commit the weights and prove their range (ez_pfx_commit). */
void ez_pfx_run_values(ez_pfx *f, const char *seed, ez_pfx_value_fn value, void *ctx);
/* Random inputs and weights in [-lim, lim] (clamped to each tensor's bound; tokens
 * uniform), run the model, commit the weights and prove their range. */
void ez_pfx_run(ez_pfx *f, const char *seed, int64_t lim);
/* An honest prover end to end: compile src, check the plan's soundness, fill and run it
 * with value (NULL: ez_pfx_run's uniform values in [-*(int64_t *)ctx, ...]), prove
 * (checked) and verify; a failure fails the test, naming seed. */
void ez_pfx_honest(const char *src, const char *seed, ez_pfx_value_fn value, void *ctx);
/* Commit the trace's weights again (after a test changed them or the plan). */
void ez_pfx_commit(ez_pfx *f);
/* A vk borrowing f's plan and commitment (not to be cleared). */
ez_vk ez_pfx_vk(ez_pfx *f);
/* Prove (unchecked: values outside their ranges go through, a proof to be rejected). */
void ez_pfx_prove(ez_pfx *f, bool unchecked, ez_proof *pf);
/* The same, returning the prover's status (its message in d) for a test that expects a
 * refusal; *pf is initialised either way (ez_proof_clear). */
ez_status ez_pfx_prove_status(ez_pfx *f, bool unchecked, ez_proof *pf, ez_diag *d);
/* Verify pf through the byte format; the verdict, reason in why. */
bool ez_pfx_verify(ez_pfx *f, const ez_proof *pf, ez_diag *why);
bool ez_pfx_prove_verify(ez_pfx *f, bool unchecked, ez_diag *why);
/* A fresh run of f's inputs and weights into t (ez_trace_clear). */
void ez_pfx_copy_trace(ez_pfx *f, ez_trace *t);
/* A prover whose commitments are not its walk's witness: the advice and the looked-up
 * columns from wit, the output claims, the backward walk and the statement from walk
 * (ez_prove_opts.walk_tr), unchecked; verified through the bytes: the verdict. */
bool ez_pfx_prove_split(ez_pfx *f, ez_trace *wit, ez_trace *walk, ez_diag *why);
/* The proving key of f's plan, weights and commitment, through its byte format
 * (ez_pk_clear). */
void ez_pfx_pk(ez_pfx *f, ez_pk *pk);
void ez_pfx_free(ez_pfx *f);

/* ---- an honest proof tampered with, for the op suites' changed-message tests --------
 * Each changed copy must be rejected by f's verifier (ez_pfx_verify); the proof is
 * restored after each change and accepted again at the end. */

/* Flip bit 0 of bytes first, first + stride, first + 2 stride, ... of section sec of pf,
 * one at a time. Returns the bytes flipped. */
size_t ez_pfx_flip_section(ez_pfx *f, ez_proof *pf, unsigned sec, size_t first, size_t stride);
/* The statement's values of tensor t in pf (NULL: t is not public). */
ez_stmt_tensor *ez_pfx_stmt_tensor(ez_proof *pf, unsigned t);
/* Element e of the public tensor st (in pf's statement) plus 1. */
void ez_pfx_changed_stmt(ez_pfx *f, ez_proof *pf, ez_stmt_tensor *st, uint64_t e);

/* pf must be rejected by f's verifier with a reason containing needle. */
void ez_pfx_expect_rejected(ez_pfx *f, const ez_proof *pf, const char *needle);
/* f's proof (unchecked: values outside their ranges go through) must be rejected with a
 * reason containing needle. */
void ez_pfx_expect_prove_rejected(ez_pfx *f, bool unchecked, const char *needle);
/* A malicious trace: the checked prover refuses it with `refusal` in its message (NULL:
 * it finds nothing out of range and proves), and the unchecked proof is rejected with
 * `reason` in the verifier's. */
void ez_pfx_expect_refused(ez_pfx *f, const char *refusal, const char *reason);

/* A prover cheating on ONE factor of ONE op sumcheck (ez_prove_opts.sumcheck_hook), so
 * that only the verifier's own check of that factor's final value can catch it: the
 * `call`-th op sumcheck of the proof (0-based, in proving order) with `nfactors` factors
 * (asserted, so a changed op is noticed) has factor `factor` changed at two entries x0,
 * x1 by +w(x1) and -w(x0), where w(x) = eq(x) sum_t c_t prod_{i in t, i != factor} f_i(x)
 * is that factor's weight in the sum at x. The sum, hence the sumcheck, still holds; the
 * factor's value at the final point is no longer the op's table's (a public factor: no
 * longer the verifier's own evaluation; a committed one: no longer the committed poly's).
 * The factor must occur at most once in each term. EZ_FORGE_TRACE=1 in the environment lists
 * the sumchecks the hook sees (call, factors, terms, variables) on stderr, to find `call`. */
typedef struct {
    unsigned call, nfactors, factor; /* in */
    unsigned seen;                   /* op sumchecks seen */
    bool forged;                     /* the target was reached and changed */
    ez_fe2 *table;                   /* the changed factor (owned) */
    ez_sumcheck_factor f[8];
} ez_pfx_forge;
/* Prove f with the forgery and the options of base (NULL: the defaults; its hook is
 * replaced), verify through the bytes;
 * the verdict, the reason in why. Asserts the target sumcheck was reached. */
bool ez_pfx_prove_forged(ez_pfx *f, const ez_prove_opts *base, unsigned call, unsigned nfactors, unsigned factor, ez_diag *why);

/* A claim on tensor t at a point drawn from rng, with t's MLE there of the values vals
 * (NULL: the value left 0, for the test to set). Free with ez_claim_clear. */
void ez_pfx_random_claim(ez_claim *out, const ez_plan_tensor *t, const int64_t *vals, ez_rng *rng);

/* ---- one op proven alone --------------------------------------------------------------
 * The op suites attack an op's prover directly, everything outside its own walk taken
 * as ideal (tests/check_ops_*.c, check_prove_softmax.c). */
typedef struct {
    const char *label;         /* the transcripts' label */
    const ez_statement *stmt;  /* the public statement both sides read, or NULL */
    const ez_statement *vstmt; /* the verifier's own statement when it differs, or NULL */
    /* the prover: NULL for the op's own (ez_op_def.prove); ctx is passed through */
    ez_status (*prove)(ez_pctx *c, size_t op, const ez_claim *out, void *ctx);
    void *ctx;
} ez_pfx_alone;

/* The advice of an op-alone test: *L, the layout of p, and its polys from tr — the
 * framework's values, then op `op`'s own fill, unchecked (values outside their ranges go
 * through, for a test to tamper with). Free with ez_pfx_advice_free. */
ez_fe **ez_pfx_advice(ez_advice_layout *L, const ez_plan *p, const ez_trace *tr, size_t op);
void ez_pfx_advice_free(ez_advice_layout *L, ez_fe **polys);
/* The index in L of op `op`'s first op-owned poly (asserted present). */
size_t ez_pfx_first_op_poly(const ez_advice_layout *L, size_t op);
/* Whether the advice polys (possibly tampered with) pass the lookups op `op` registered
 * in L, ideally: every range-checked column entry in [0, 2^bits) and every looked-up
 * tuple a row of its function table (a tensor atom's values from tr). */
bool ez_pfx_lookups_hold(const ez_advice_layout *L, ez_fe *const *polys, const ez_plan *p, const ez_trace *tr,
                         size_t op);

/* Prove op `op` of p alone over layout L and advice polys (the prover's values, possibly
 * tampered with) from the output claim out, then verify the walk from the same claim in
 * a fresh transcript. Returns the verdict (accepted, every byte read; why: the reason).
 * *claims_ok: whether every claim the verifier left holds — on advice polys (their MLE),
 * and only on the op's first operand (tr's values); NULL: not checked (polys may then be
 * NULL). *walk: the bytes the prover wrote (NULL: not wanted). A prover error fails the
 * test. */
bool ez_pfx_op_alone(const ez_plan *p, const ez_trace *tr, const ez_advice_layout *L, ez_fe **polys, size_t op,
                     const ez_claim *out, const ez_pfx_alone *a, bool *claims_ok, size_t *walk, ez_diag *why);

#endif
