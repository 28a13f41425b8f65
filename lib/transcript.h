/* transcript — the Fiat–Shamir transcript of einzk (docs/protocol-kernel-sumcheck.md §1).
 *
 * A transcript is a 32-byte chaining state plus a message counter. Every absorb and
 * every squeeze replaces the state by one SHA-256 (nettle) over a self-delimiting
 * record, so two different message sequences never hash the same bytes:
 *
 *   state' = SHA256(state || tag || u64 len(label) || label || u64 len(data) || data)
 *
 * with a one-byte type tag (init, bytes, u64, fe, fe2, challenge, index), lengths as
 * u64 little-endian and field elements in their canonical 8/16-byte encodings. The
 * exact byte format is in docs/protocol-kernel-sumcheck.md and pinned by a
 * known-answer test in tests/check_transcript.c.
 *
 * Challenges are drawn from the quadratic extension by rejection sampling, so every
 * coefficient is uniform in [0, p) given the state (no modular bias).
 *
 * A transcript is a plain value: copying the struct forks it. No allocation anywhere.
 * Labels are NUL-terminated strings (NULL counts as ""). */
#ifndef EZ_TRANSCRIPT_H
#define EZ_TRANSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/field.h"

typedef struct {
    uint8_t state[32]; /* chaining value */
    uint64_t nmsg;     /* number of records hashed so far (absorbs + squeezes) */
} ez_transcript;

/* Start a transcript for one protocol instance.
 * In:  domain — a protocol/domain name such as "einzk/v1/proof"; transcripts with
 *      different domains never produce related challenges.
 * Out: *t initialised (state = SHA256 of the init record over an all-zero state).
 * Cost: one SHA-256 compression or two. */
void ez_transcript_init(ez_transcript *t, const char *domain);

/* Absorb len raw bytes under a label. data may be NULL iff len == 0.
 * Cost: SHA-256 over ~len + label + 49 bytes. */
void ez_transcript_absorb_bytes(ez_transcript *t, const char *label, const void *data, size_t len);

/* Absorb one u64 (8 bytes little-endian, its own type tag). */
void ez_transcript_absorb_u64(ez_transcript *t, const char *label, uint64_t v);

/* Absorb n base-field elements (canonical encodings). v may be NULL iff n == 0.
 * The record's data length is 8n, so absorbing n elements once differs from absorbing
 * them in two calls. */
void ez_transcript_absorb_fe(ez_transcript *t, const char *label, const ez_fe *v, size_t n);

/* Absorb n extension elements (16-byte canonical encodings, c0 then c1). */
void ez_transcript_absorb_fe2(ez_transcript *t, const char *label, const ez_fe2 *v, size_t n);

/* Squeeze one extension challenge.
 * Out: c0, c1 each uniform in [0, p) (rejection sampling of 64-bit words from a
 *      SHA-256 stream keyed by the state); the state is then updated, so two
 *      challenges in a row differ.
 * Cost: two SHA-256 calls (more with probability ~2^-31). */
ez_fe2 ez_transcript_challenge_fe2(ez_transcript *t, const char *label);

/* Squeeze n extension challenges as one record (out[0..n-1]); equivalent in
 * distribution to n single challenges but one state update. out may be NULL iff n == 0.
 * Cost: about n/2 + 1 SHA-256 calls. */
void ez_transcript_challenges_fe2(ez_transcript *t, const char *label, ez_fe2 *out, size_t n);

/* Squeeze an index uniform in [0, bound). Precondition: bound > 0 (bound == 0 returns 0,
 * with a verify-check failure in test builds). Rejection-sampled: no modulo bias.
 * Cost: two SHA-256 calls in expectation. */
uint64_t ez_transcript_challenge_index(ez_transcript *t, const char *label, uint64_t bound);

#endif
