/* statement — the public statement's values read where the proof file holds them
 * (docs/protocol.md §1, §2; docs/performance.md "Verify at 512 tokens in one pass").
 *
 * A decoded statement keeps each tensor as the file's w-byte integers (proofio.h
 * ez_stmt_tensor.raw); these are the verifier's passes over them that need no int64 copy:
 * the MLE of a tensor at a point, and the transcript's hash of the statement on a thread
 * of its own while the statement's checks run. */
#ifndef EZ_RUNTIME_PROVE_STATEMENT_H
#define EZ_RUNTIME_PROVE_STATEMENT_H

#include "compiler/plan.h"
#include "lib/field.h"
#include "lib/util.h"
#include "runtime/formats/proofio.h"

/* The MLE of statement tensor x (plan tensor t: x->n must be its element count) at point
 * (ez_claim_tensor_nvars coordinates), from x->v or straight from x->raw (one eq table per
 * axis, rows unpacked a block at a time: ez_mle_eval_tensor_packed). EZ_OK, or
 * EZ_ERR_INVALID when x's count is not t's. */
ez_status ez_stmt_eval(ez_fe2 *out, const ez_stmt_tensor *x, const ez_plan_tensor *t, const ez_fe2 *point);

/* The statement's size in bytes as the transcript absorbs its values (sum of n * w). */
uint64_t ez_statement_bytes(const ez_statement *s);

/* Statements of at least this many bytes are hashed on a second thread (below it, waking
 * one costs more than the hash: ~1 ms of SHA-256 at 1 MB). */
#define EZ_STMT_HASH_THREAD_MIN (UINT64_C(1) << 20)

#endif
