/* proofio — the binary formats of proofs, verifying keys and proving keys
 * (docs/protocol.md §9 "File formats"; byte layout in docs/protocol.md §9).
 *
 * Every file: 4-byte magic | u16 major | u16 minor | sections, each
 *     u32 tag | u64 payload length | payload          (little-endian)
 * with the tags of the file kind in increasing order, each exactly once. Readers treat
 * the bytes as untrusted: an unknown major version, a missing, repeated or out-of-order
 * section, a length beyond the file, a section not consumed exactly, trailing bytes,
 * or a non-canonical field element is EZ_ERR_FORMAT with a reason, never a crash.
 * (Unknown tags are skipped only in a vk or pk of a newer minor version; a proof of a
 * newer minor version is refused, since a verifier must not skip argument bytes.)
 *
 *   proof "EZPF": 1 statement (public inputs and claimed outputs, integers in their
 *                   fewest bytes), then the
 *                   binding (1.1): the plan digest and the weight commitment's root the
 *                   prover used, so a verifier can say first what the proof is for
 *                 2 advice commitment | 3 lookups | 4 walk | 5 weight opening
 *                 6 advice opening      (2..6: opaque argument bytes, parsed by verify)
 *                 7 strategy: u8, how the walk reduces contractions (runtime/prove/strategy.h;
 *                   its value is checked by verify)
 *   vk    "EZVK": 1 plan (the .einc bytes; the digest is re-derived) | 2 weight commitment
 *                 | 3 weight range proof (opaque here; checked by ez_verify)
 *   pk    "EZPK": 1 plan digest | 2 weights (quantized, in their width's bytes: 1.2)
 *                 | 3 PCS prover data */
#ifndef EZ_RUNTIME_PROOFIO_H
#define EZ_RUNTIME_PROOFIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/plan.h"
#include "lib/pcs.h"
#include "lib/util.h"

#define EZ_PROOF_MAGIC "EZPF"
#define EZ_VK_MAGIC "EZVK"
#define EZ_PK_MAGIC "EZPK"
#define EZ_PROOF_MAJOR 1
/* 1.1: the binding after the statement; section 7, the proving strategy. 1.2: with WHIR
 * the weight commitment also holds the weight range proof's advice, the vk keeps that
 * proof up to its final claims, which every proof's opening proves (a deferred range
 * proof, docs/protocol.md §6.4); the pk's section 4; a pk's weights in their width's bytes
 * (ez_pk_weight_bytes) instead of i64. Vks and pks before 1.2 are refused (run setup
 * again). 1.3: the statement's values in their tensor's fewest bytes (ez_stmt_width),
 * on the wire and in the transcript; vks and pks as in 1.2. 1.4: Merkle digests are
 * SHA-256 truncated to 26 bytes (lib/merkle.h): every commitment root and opening
 * changes; vks and pks before 1.4 are refused (run setup again). 1.5: a batched WHIR
 * opening shares one chain up to 2^25 stacked entries (it fell back to one opening per
 * instance above 2^22): the openings of commitments above 2^27 entries in all change,
 * the vk's range proof among them; a commitment's lengths are runs in LEB128
 * (lib/pcs.h): every serialized commitment changes; vks and pks before 1.5 are refused.
 * 1.6: the range table's pair regions and its trees (docs/protocol-kernel-logup.md §2,
 * §2a): narrow limbs looked up two per leaf; the transcripts' version string is
 * einzk-protocol-5, so vks and pks before 1.6 (their weight range proof) are refused
 * (run setup again). 1.7: a WHIR commitment whose parts share oracle 0 has one Merkle
 * tree over them (joined parts, docs/protocol-kernel-pcs.md §9c): its root and every
 * opening of it change (GPT-2's weights); vks and pks before 1.7 are refused (run setup
 * again). 1.8: WHIR at m = 22 folds into an oracle 1 at rate 1/4 (was 1/8,
 * docs/protocol-kernel-pcs.md §9): openings of 2^22-entry instances and batched chains
 * whose later oracles come from that row change (a vk's range proof may be one); vks
 * and pks before 1.8 are refused (run setup again). 1.9: SOFTMAX divides by a per-row
 * reciprocal (docs/protocol-softmax.md): its committed polys and walk messages change; and
 * every LogUp tree runs on a transcript of its own, forked after the table's alpha and
 * gamma and joined at the end, with every table's statement and challenges before any
 * tree (docs/protocol-kernel-logup.md §4b): every lookup proof changes, the vk's weight
 * range proof among them; the version string is einzk-protocol-6; vks and pks before 1.9
 * are refused (run setup again). Also in 1.9: FUNC's table input x' - 2^16 h is a virtual
 * lookup column when x is in the output's layout (docs/protocol-elementwise.md §2.2): A
 * is not committed, the lookup sends the column's extra atoms (`tuple/atoms`), the
 * function's sumcheck ends in x instead of A, H and R. 1.10: an EINSUM whose output only a
 * causal SOFTMAX reads (the plan's live mark, .einc 2.1) commits its remainder and
 * range-checks its output on the softmax's live support only, and proves the claim on its
 * output restricted to that support by one more sumcheck (`live/rem`, then the live-support
 * sumcheck; docs/protocol-einsum.md "On the causal support"); the deepprove strategy's
 * zeroifier is not run for such an op. Vks and pks as in 1.9. */
#define EZ_PROOF_MINOR 10
/* The oldest minor version of a vk this build reads. */
#define EZ_KEY_MIN_MINOR 9
/* The pk's minor version, its own from 1.11 on (proofs and vks stay at EZ_PROOF_MINOR:
 * their bytes are unchanged). 1.11: the pk no longer stores the WHIR stacked vector S (8
 * bytes per committed entry); the reader rebuilds it from section 2's weights in the
 * commitment's layout (runtime/prove/weights.h ez_wsource). A pk before 1.11 is refused
 * (run einzk setup again): reading its S would be a second reader for one release's
 * keys, and setup rebuilds a pk in minutes. */
#define EZ_PK_MINOR 11
#define EZ_PK_MIN_MINOR 11

enum {
    EZ_PF_SEC_STATEMENT = 1,
    EZ_PF_SEC_ADVICE = 2,
    EZ_PF_SEC_LOOKUPS = 3,
    EZ_PF_SEC_WALK = 4,
    EZ_PF_SEC_OPEN_W = 5,
    EZ_PF_SEC_OPEN_A = 6,
    EZ_PF_SEC_STRATEGY = 7,
    EZ_PF_NSEC = 7
};

/* The public statement: for every INPUT and TOKENS tensor, then every output tensor, in
 * plan order, its integer values (row-major, real extents), held one of two ways:
 *   v    the values as int64 (owned): a statement built by the prover (from a trace);
 *   raw  the values as the proof file carries them, w bytes each, two's complement
 *        little-endian (borrowed from the bytes ez_proof_decode read, v NULL): a decoded
 *        statement. GPT-2 at 512 tokens holds 25.7 M logits: as int64 that was 206 MB of
 *        fresh pages, decoded, checked, hashed and evaluated in five passes; as bytes it
 *        is read where the file lies and streamed (runtime/prove/statement.h).
 * Read the values through ez_stmt_get / ez_stmt_values, which take either. */
typedef struct {
    unsigned tensor;
    uint64_t n;
    int64_t *v;
    const uint8_t *raw;
    unsigned w; /* raw's bytes per value (1..8), the fewest that hold them all */
} ez_stmt_tensor;

typedef struct {
    size_t n;
    ez_stmt_tensor *t;
} ez_statement;

void ez_statement_clear(ez_statement *s);

/* Build the statement of plan p from a trace's tensor arrays (t[i] = values of tensor i).
 * Returns EZ_OK or EZ_ERR_NOMEM. */
ez_status ez_statement_from_trace(ez_statement *s, const ez_plan *p, int64_t *const *t);

/* Check a (decoded, untrusted) statement against the plan: exactly the inputs and tokens
 * then the outputs, in plan order, with their element counts; inputs within their signed
 * width, tokens in [0, token_limit). EZ_ERR_FORMAT with a reason otherwise. */
ez_status ez_statement_check(const ez_statement *s, const ez_plan *p, ez_diag *d);

/* The fewest bytes (1..8) that hold every one of the n values in two's complement: a
 * statement tensor's width on the wire and in the transcript (1.3). */
unsigned ez_stmt_width(const int64_t *v, uint64_t n);
/* Write n values, w bytes each, little-endian two's complement, to out (n * w bytes). */
void ez_stmt_put(uint8_t *out, const int64_t *v, size_t n, unsigned w);

/* Values [off, off + n) of x into out (off + n <= x->n): copied from v or decoded from raw.
 * O(n). */
void ez_stmt_get(const ez_stmt_tensor *x, uint64_t off, size_t n, int64_t *out);
/* All of x's values as int64: x->v itself, or a decoded copy in *tmp (the caller frees
 * *tmp, NULL when nothing was allocated). NULL on allocation failure. For the small
 * tensors (tokens, inputs, a public argmax's result) whose consumers want an array. */
const int64_t *ez_stmt_values(const ez_stmt_tensor *x, int64_t **tmp);
/* x's width on the wire and in the transcript: x->w (raw) or ez_stmt_width(x->v). */
unsigned ez_stmt_tensor_width(const ez_stmt_tensor *x);

/* The values of tensor `tensor` in s, or NULL. */
const ez_stmt_tensor *ez_statement_find(const ez_statement *s, unsigned tensor);

/* What a proof says it is for (untrusted when decoded: the transcript binds the real
 * digest and commitment, so a lying binding only makes the proof fail later). */
typedef struct {
    uint8_t digest[32];  /* the plan digest the prover proved */
    bool has_weights;
    uint8_t wroot[32];   /* the weight commitment's root (has_weights) */
} ez_proof_binding;

typedef struct {
    ez_statement stmt;
    ez_proof_binding bind;         /* written after the statement, in section 1 */
    ez_writer sec[EZ_PF_NSEC + 1]; /* sec[2..6]: raw payloads (sec[1] unused: stmt; sec[7]
                                      unused: strategy) */
    uint8_t strategy;              /* section 7 (an ez_strategy; untrusted when decoded) */
} ez_proof;

/* Fill b from the plan proven and the weight commitment (NULL: no weights). */
void ez_proof_bind(ez_proof_binding *b, const ez_plan *p, const ez_pcs_commitment *wcom);
/* Check a proof's binding against the plan being verified and the vk's weight commitment
 * (NULL: none): EZ_OK, or EZ_ERR_REJECT with a message showing both values ("the proof is
 * for model digest X, the verifying key is for Y"; "the proof was made with other
 * weights: commitment X, the vk's Y"). What a verifier checks first. */
ez_status ez_proof_binding_check(const ez_proof_binding *b, const ez_plan *p, const ez_pcs_commitment *wcom,
                                 ez_diag *d);

void ez_proof_init(ez_proof *p);
void ez_proof_clear(ez_proof *p);

/* Encode; *stmt_bytes (may be NULL) gets the size of the statement section incl. its
 * 12-byte header. Errors only EZ_ERR_NOMEM. */
ez_status ez_proof_encode(ez_writer *w, const ez_proof *p, size_t *stmt_bytes);
/* Decode untrusted bytes. The statement's values are NOT copied: each tensor's raw points
 * into data, which must outlive p (every other section is copied). Every value's encoding
 * is checked here (width 1..8, the fewest bytes: one encoding per statement); their ranges
 * are ez_statement_check's. EZ_ERR_FORMAT with a reason. */
ez_status ez_proof_decode(ez_proof *p, const uint8_t *data, size_t len, ez_diag *d);

/* ---- verifying key ---- */
typedef struct {
    ez_plan plan;
    bool has_weights;
    ez_pcs_commitment wcom;
    uint8_t *wrange;        /* the weight range proof (runtime/prove.h), owned */
    size_t wrange_len;
} ez_vk;

void ez_vk_init(ez_vk *vk);
void ez_vk_clear(ez_vk *vk);
/* Encode plan p (re-encoded as .einc; its digest is set), the weight commitment (NULL
 * when the model has no weights) and the weight range proof bytes. */
ez_status ez_vk_encode(ez_writer *w, ez_plan *p, const ez_pcs_commitment *wcom, const uint8_t *wrange,
                       size_t wrange_len, ez_diag *d);
/* Parse the bytes: the plan through ez_einc_decode (digest checked), the commitment
 * through ez_pcs_commitment_read (present iff the plan has weights), the range proof's
 * bytes copied. Whether the commitment's shape is the plan's weight layout is the
 * prover's knowledge: runtime/prove/keys.h ez_vk_decode parses and checks it.
 * EZ_ERR_FORMAT with a reason, EZ_ERR_NOMEM. */
ez_status ez_vk_parse(ez_vk *vk, const uint8_t *data, size_t len, ez_diag *d);

/* ---- proving key ---- */
typedef struct {
    uint8_t digest[32];
    size_t nweights;
    ez_stmt_tensor *weights;   /* every WEIGHT tensor in plan order */
    ez_pcs_prover *pcs;        /* NULL when the model has no weights; with a deferred
                                  range proof its standing claims are set (section 4) */
} ez_pk;

void ez_pk_init(ez_pk *pk);
void ez_pk_clear(ez_pk *pk);
/* Encode from a plan, a trace holding its weights, the weight prover and the weight range
 * proof (the vk's section 3 bytes: section 4, from which the decoder derives the standing
 * claims of a deferred range proof). */
ez_status ez_pk_encode(ez_writer *w, const ez_plan *p, int64_t *const *t, const ez_pcs_prover *pcs,
                       const uint8_t *wrange, size_t wrange_len);
/* Bytes per weight in a pk (1.2) for a declared width of `bits` (1..63): ceil(bits / 8). */
unsigned ez_pk_weight_bytes(unsigned bits);
/* What ez_pk_parse leaves to runtime/prove/keys.h ez_pk_decode (views into the bytes):
 * section 3's PCS prover data after its `u8 present` (pcs NULL when absent), read there
 * because the stacked vector it opens is rebuilt from the weights in the commitment's
 * layout (1.11); section 4, the weight range proof. */
typedef struct {
    const uint8_t *pcs, *wrange;
    size_t pcs_len, wrange_len;
} ez_pk_rest;
/* Parse against plan p: version at least EZ_PK_MIN_MINOR, digest equal, the weights and
 * their counts in plan order within their widths. The PCS prover data, the weight-shape
 * checks and the standing claims are ez_pk_decode's (*rest). EZ_ERR_FORMAT (or
 * EZ_ERR_INPUT for a pk of another model) with a reason. */
ez_status ez_pk_parse(ez_pk *pk, const ez_plan *p, const uint8_t *data, size_t len, ez_pk_rest *rest, ez_diag *d);

#endif
