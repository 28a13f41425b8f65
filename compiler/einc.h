/* einc — the compiled-model artifact (.einc) and the plan digest (docs/cli.md;
 * byte layout in docs/plan.md).
 *
 *   "EINC" | u16 major | u16 minor | sections...
 *   section = u32 tag | u64 payload length | payload        (little-endian)
 *   tags, in this order: 1 model, 2 tensors, 3 ops, 4 schedule, 5 digest (last)
 *
 * The digest section holds SHA-256 (nettle) of every byte before it: the canonical
 * encoding of the plan, which is what ez_plan.digest is and what the prover's
 * transcript absorbs. Encoding is deterministic (same plan, same bytes).
 *
 * Reading treats the bytes as untrusted: every count is capped against what remains,
 * every string is length-checked and NUL-free, every enum, index and tensor id is range-
 * checked, producers come before consumers, each section is consumed exactly, nothing
 * trails the digest, the digest matches, and the EqSchedules equal what the compiler
 * derives from the equations (ez_plan_validate). Any failure is EZ_ERR_FORMAT with a
 * reason; reading never crashes or reads out of bounds. */
#ifndef EZ_COMPILER_EINC_H
#define EZ_COMPILER_EINC_H

#include <jansson.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/util.h"

#define EZ_EINC_MAGIC "EINC"
#define EZ_EINC_MAJOR 2
#define EZ_EINC_MINOR 1 /* 2.1: the schedule's live mark (compiler/plan.h) */

/* Section tags. A reader skips unknown tags only in files of a newer minor version. */
enum {
    EZ_EINC_SEC_MODEL = 1,
    EZ_EINC_SEC_TENSORS = 2,
    EZ_EINC_SEC_OPS = 3,
    EZ_EINC_SEC_SCHEDULE = 4,
    EZ_EINC_SEC_DIGEST = 5
};

/* Encode p as an .einc artifact appended to w, and set p->digest.
 * In:  p — a scheduled plan (ez_plan_validate holds; checked: EZ_ERR_INVALID with d set
 *      otherwise). Out: w gets the bytes; p->digest the SHA-256 of the canonical part.
 * Returns EZ_OK, EZ_ERR_INVALID or EZ_ERR_NOMEM. O(size of the plan). */
ez_status ez_einc_encode(ez_writer *w, ez_plan *p, ez_diag *d);

/* Compute p->digest without keeping the bytes (same value as ez_einc_encode sets). */
ez_status ez_plan_compute_digest(ez_plan *p, ez_diag *d);

/* Decode untrusted bytes into *p (initialised here; clear with ez_plan_clear, also on
 * failure it holds nothing). Returns EZ_OK, EZ_ERR_FORMAT with d giving the reason, or
 * EZ_ERR_NOMEM. data is not retained. */
ez_status ez_einc_decode(ez_plan *p, const uint8_t *data, size_t len, ez_diag *d);

/* File wrappers: EZ_ERR_IO with the path in d when the file cannot be read/written. */
ez_status ez_einc_write_file(const char *path, ez_plan *p, ez_diag *d);
ez_status ez_einc_read_file(ez_plan *p, const char *path, ez_diag *d);

/* Lower-case hex of the 32-byte digest into out (65 bytes incl. the NUL). */
void ez_plan_digest_hex(const ez_plan *p, char out[65]);

/* The plan as a JSON object (for `einzk info --json`):
 *   {"model", "digest", "format": "major.minor",
 *    "tensors": [{"name","source_name","kind","shape","scale","bits","bound",...}],
 *    "ops": [{"name","kind","equation","shape","sumcheck_vars","degree","eq_vars",
 *             "classes": {"h": "batch", ...}, "bind_order": ["h","e"],
 *             "shift", "checked", "line"}],
 *    "totals": {"ops","tensors","weight_elems","sumcheck_vars"}}
 * What the proof commits and looks up is the runtime's layout (runtime/prove/layout.h);
 * `einzk info --json` adds it per op.
 * Returns a new reference, or NULL when out of memory. */
json_t *ez_plan_to_json(const ez_plan *p);

#endif
