/* public — ops the verifier checks by executing them on the statement (docs/protocol.md
 * §5.10 "Public ops").
 *
 * An op is PUBLIC when its result is an output of the model and every operand is an
 * output too (ACT tensors in the statement, proven by the claim flow), read whole (no
 * layer slice), and its execution is linear in its operands and result (every kind but
 * EINSUM, whose contraction may cost far more than its tensors): GPT-2's
 * `next = argmax(logits)` with `output logits, next`. Such an op commits nothing, looks
 * nothing up and takes no part in the walk: its result gets no output claim, the
 * verifier runs the op's integer semantics (its exec hook) on the statement's operand
 * values and requires the statement's result to equal it. Claims that reach its result
 * from consumers are checked on the statement like claims on public inputs. Sound: the
 * operands are the model's values (their claims are proven), so the recomputed result is
 * the model's result; the prover has no freedom at all.
 *
 * Decided from the plan alone (prover, verifier and `info` agree). Public inputs are not
 * operands of a public op: an op on an input is proven as before. */
#ifndef EZ_RUNTIME_PROVE_PUBLIC_H
#define EZ_RUNTIME_PROVE_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>

#include "compiler/plan.h"
#include "lib/util.h"
#include "runtime/formats/proofio.h"
#include "runtime/prove/claim.h"

/* Whether op i of p is public (above). O(operands). */
bool ez_op_is_public(const ez_plan *p, size_t i);

/* Whether tensor t is the result of a public op. O(ops). */
bool ez_tensor_is_public_result(const ez_plan *p, size_t t);

/* Verifier: execute every public op of p on the statement s (already checked with
 * ez_statement_check) and compare. *ok false with d naming the op and element on a
 * mismatch. Returns EZ_OK (verdict in *ok), EZ_ERR_NOMEM, or the executor's error on a
 * statement it cannot run (EZ_ERR_NUMERIC: a rejection too, *ok false).
 * Cost: the public ops' execution (GPT-2 at 512 tokens: an argmax over 25.7 M logits). */
ez_status ez_public_ops_check(const ez_plan *p, const ez_statement *s, bool *ok, ez_diag *d);

/* Verifier: claims l on tensor t (a public op's result) checked against the statement's
 * values. *ok false (d says which) if one is false or the values are missing. Returns
 * EZ_OK or EZ_ERR_NOMEM. O(numel) per claim. */
ez_status ez_public_claims_check(const ez_plan *p, const ez_statement *s, size_t t, const ez_claim_list *l, bool *ok,
                                 ez_diag *d);

#endif
