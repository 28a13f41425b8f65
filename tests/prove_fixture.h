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
/* Random inputs and weights in [-lim, lim] (clamped to each tensor's bound; tokens
 * uniform), run the model, commit the weights and prove their range. */
void ez_pfx_run(ez_pfx *f, const char *seed, int64_t lim);
/* Commit the trace's weights again (after a test changed them or the plan). */
void ez_pfx_commit(ez_pfx *f);
/* A vk borrowing f's plan and commitment (not to be cleared). */
ez_vk ez_pfx_vk(ez_pfx *f);
/* Prove (unchecked: values outside their ranges go through, a proof to be rejected). */
void ez_pfx_prove(ez_pfx *f, bool unchecked, ez_proof *pf);
/* Verify pf through the byte format; the verdict, reason in why. */
bool ez_pfx_verify(ez_pfx *f, const ez_proof *pf, ez_diag *why);
bool ez_pfx_prove_verify(ez_pfx *f, bool unchecked, ez_diag *why);
/* The proving key of f's plan, weights and commitment, through its byte format
 * (ez_pk_clear). */
void ez_pfx_pk(ez_pfx *f, ez_pk *pk);
void ez_pfx_free(ez_pfx *f);

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

#endif
