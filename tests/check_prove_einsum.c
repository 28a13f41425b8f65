/* prove_einsum and claim: honest proofs for a table of einsums covering every index
 * class (batch, contracted, free-A/B, summed-A/B, broadcast), rank-0 tensors, size-1
 * and non-power-of-two extents, a multiplier and a fused rescale with negative values;
 * malicious provers (changed operand, changed remainder, tampered bytes, wrong output
 * claim, truncation); the fan-out merge. The verifier "accepts" only if it returns
 * EZ_OK AND every claim it hands out is true for the honest operands and remainder
 * (that is how the claim flow catches a lie downstream). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/schedule.h"
#include "compiler/plan.h"
#include "lib/mle.h"
#include "lib/sumcheck.h"
#include "lib/transcript.h"
#include "runtime/prove/claim.h"
#include "runtime/prove/contraction.h"
#include "tests/testutil.h"

/* ---- the equation table ------------------------------------------------------------------ */

typedef struct {
    const char *name;
    const char *out, *a, *b; /* index letters; b NULL for one operand; "" = rank 0 */
    const char *sizes;       /* letter then extent, e.g. "h3s4t6e5" */
    int64_t mul;
    unsigned shift;
    int64_t lo, hi; /* operand values uniform in [lo, hi] */
} eq_case;

static const eq_case cases[] = {
    /* attention scores, h and e not powers of two; h batch, s free-A, t free-B, e contracted */
    {"attn_scores", "hst", "she", "the", "h3s4t6e5", 1, 3, -50, 50},
    /* value mixing: h batch, s free-A, e free-B, t contracted */
    {"value_mix", "she", "hst", "the", "h3s4t6e5", 1, 0, -50, 50},
    /* output projection: h and e contracted in ONE sumcheck */
    {"out_proj", "sn", "she", "hen", "s4h3e5n7", 1, 0, -50, 50},
    /* grouped-query attention: g batch, r s free-A, t free-B, e contracted */
    {"gqa", "grst", "sgre", "tge", "g2r3s4t5e3", 1, 2, -50, 50},
    {"elementwise", "ij", "ij", "ij", "i5j6", 1, 0, -50, 50},
    {"matvec", "i", "ij", "j", "i7j9", 1, 0, -50, 50},
    /* one operand: sum, transpose, broadcast, full reduction */
    {"sum", "i", "ij", NULL, "i5j6", 1, 0, -50, 50},
    {"transpose", "ji", "ij", NULL, "i5j3", 1, 0, -50, 50},
    {"broadcast", "ij", "i", NULL, "i5j3", 1, 0, -50, 50},
    {"sum_all_rescale", "", "ij", NULL, "i5j6", 5, 3, -50, 50},
    /* a shift of 12 with negative values (floor) and a multiplier */
    {"rescale12", "ik", "ij", "jk", "i4j6k5", 3, 12, -3000, 3000},
    {"summed_b", "i", "ij", "jk", "i4j5k3", 1, 0, -50, 50},
    {"summed_a", "k", "ij", "jk", "i4j5k3", -2, 1, -50, 50},
    {"broadcast2", "imj", "ij", "j", "i4j5m3", -2, 4, -50, 50},
    {"outer", "ij", "i", "j", "i5j3", 1, 0, -50, 50},
    {"dot", "", "i", "i", "i6", 1, 0, -50, 50},
    {"scalar_b", "i", "i", "", "i6", 7, 2, -50, 50},
    {"pow2_batched", "bij", "bik", "bkj", "b2i4j8k4", 1, 5, -50, 50},
    {"size1", "ij", "ij", "j", "i1j5", 1, 0, -50, 50},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* The case of that name (it must exist). */
static const eq_case *case_named(const char *name)
{
    size_t ci = 0;
    while (ci < NCASES && strcmp(cases[ci].name, name) != 0)
        ci++;
    ck_assert_msg(ci < NCASES, "no case %s", name);
    return &cases[ci];
}

/* One op (A = tensor 0, B = tensor 1, C = tensor 2) with its data. */
typedef struct {
    const eq_case *c;
    ez_plan_op op;
    ez_plan_tensor tn[3];
    size_t numel[3];
    int64_t *data[2]; /* honest operands */
    int64_t *out, *rem;
} fixture;

static unsigned letter_size(const char *sizes, char l)
{
    for (const char *p = sizes; *p; p++)
        if (*p == l)
            return (unsigned)strtoul(p + 1, NULL, 10);
    ck_abort_msg("no size for index %c", l);
    return 0;
}

static void set_tensor(fixture *f, unsigned ti, const char *letters, unsigned *axes)
{
    ez_plan_tensor *t = &f->tn[ti];
    t->kind = ti == 2 ? EZ_TENSOR_ACT : EZ_TENSOR_WEIGHT;
    t->rank = (unsigned)strlen(letters);
    t->producer = ti == 2 ? 0 : -1;
    f->numel[ti] = 1;
    for (unsigned a = 0; a < t->rank; a++) {
        unsigned i = 0;
        while (f->op.idx_name[i][0] != letters[a])
            i++;
        axes[a] = i;
        t->dims[a] = f->op.idx_size[i];
        f->numel[ti] *= (size_t)t->dims[a];
    }
}

static void add_letters(fixture *f, const char *letters)
{
    for (const char *p = letters; p && *p; p++) {
        unsigned i = 0;
        while (i < f->op.nidx && f->op.idx_name[i][0] != *p)
            i++;
        if (i == f->op.nidx) {
            f->op.idx_name[i][0] = *p;
            f->op.idx_size[i] = letter_size(f->c->sizes, *p);
            f->op.nidx++;
        }
    }
}

/* acc over every index assignment (exact, 128-bit), then C = floor(acc / 2^shift) and
 * R = acc - 2^shift C. */
static void reference(const fixture *f, int64_t *const *data, int64_t *out, int64_t *rem)
{
    const ez_plan_op *op = &f->op;
    __int128 *acc = calloc(f->numel[2], sizeof *acc);
    ck_assert_ptr_nonnull(acc);
    uint64_t idx[EZ_MAX_IDX] = {0};
    for (;;) {
        __int128 prod = op->mul;
        for (unsigned k = 0; k < op->nin; k++) {
            size_t off = 0;
            for (unsigned a = 0; a < f->tn[k].rank; a++)
                off = off * f->tn[k].dims[a] + idx[op->in_axes[k][a]];
            prod *= data[k][off];
        }
        size_t o = 0;
        for (unsigned a = 0; a < f->tn[2].rank; a++)
            o = o * f->tn[2].dims[a] + idx[op->out_axes[a]];
        acc[o] += prod;
        unsigned i = 0;
        while (i < op->nidx && ++idx[i] == op->idx_size[i])
            idx[i++] = 0;
        if (i == op->nidx)
            break;
    }
    for (size_t o = 0; o < f->numel[2]; o++) {
        __int128 q = acc[o] >> op->shift; /* arithmetic shift: floor */
        out[o] = (int64_t)q;
        rem[o] = (int64_t)(acc[o] - q * ((__int128)1 << op->shift));
        ck_assert(rem[o] >= 0 && rem[o] < ((int64_t)1 << op->shift));
    }
    free(acc);
}

static void fixture_build(fixture *f, const eq_case *c, ez_rng *rng)
{
    memset(f, 0, sizeof *f);
    f->c = c;
    f->op.kind = EZ_OP_EINSUM;
    f->op.nin = c->b ? 2 : 1;
    f->op.in[0] = 0;
    f->op.in[1] = 1;
    f->op.out = 2;
    f->op.mul = c->mul;
    f->op.shift = c->shift;
    snprintf(f->op.label, sizeof f->op.label, "%s", c->name);
    add_letters(f, c->a);
    add_letters(f, c->b);
    add_letters(f, c->out);
    set_tensor(f, 0, c->a, f->op.in_axes[0]);
    if (c->b)
        set_tensor(f, 1, c->b, f->op.in_axes[1]);
    set_tensor(f, 2, c->out, f->op.out_axes);
    /* the index classes, as the compiler's schedule decides them (the prover reads them
     * from the plan); the bind order stays the default unless a test sets one */
    ez_plan one = {.ntensors = 3, .tensors = f->tn, .nops = 1, .ops = &f->op};
    ez_eq_schedule sched;
    ez_diag d = {{0}};
    ck_assert_msg(ez_plan_classify(&one, &f->op, &sched, &d) == EZ_OK, "%s", d.msg);
    memcpy(f->op.sched.cls, sched.cls, sizeof sched.cls);
    for (unsigned k = 0; k < f->op.nin; k++) {
        f->data[k] = malloc(f->numel[k] * sizeof(int64_t));
        ck_assert_ptr_nonnull(f->data[k]);
        for (size_t i = 0; i < f->numel[k]; i++)
            f->data[k][i] = c->lo + (int64_t)(ez_rng_next(rng) % (uint64_t)(c->hi - c->lo + 1));
    }
    f->out = malloc(f->numel[2] * sizeof(int64_t));
    f->rem = malloc(f->numel[2] * sizeof(int64_t));
    ck_assert(f->out && f->rem);
    reference(f, f->data, f->out, f->rem);
}

static void fixture_free(fixture *f)
{
    free(f->data[0]);
    free(f->data[1]);
    free(f->out);
    free(f->rem);
}

/* ---- MLE helpers --------------------------------------------------------------------------- */

static ez_fe2 mle_i64(const int64_t *v, const ez_plan_tensor *t, const ez_fe2 *point)
{
    if (t->rank == 0)
        return ez_fe2_from_fe(ez_fe_from_i64(v[0]));
    size_t n = ez_plan_tensor_numel(t), dims[EZ_MAX_RANK];
    ez_fe *f = malloc(n * sizeof *f);
    ck_assert_ptr_nonnull(f);
    for (size_t i = 0; i < n; i++)
        f[i] = ez_fe_from_i64(v[i]);
    for (unsigned a = 0; a < t->rank; a++)
        dims[a] = (size_t)t->dims[a];
    ez_fe2 r = ez_mle_eval_tensor_fe(f, dims, t->rank, point);
    free(f);
    return r;
}

static unsigned tensor_nv(const ez_plan_tensor *t)
{
    return ez_claim_tensor_nvars(t->dims, t->rank);
}

/* A random claim on the output C (its true MLE at a random point). */
static void output_claim(const fixture *f, const int64_t *out, ez_rng *rng, ez_claim *c)
{
    unsigned nv = tensor_nv(&f->tn[2]);
    ck_assert_int_eq(ez_claim_init(c, nv), EZ_OK);
    for (unsigned j = 0; j < nv; j++)
        c->point[j] = ez_rng_fe2(rng);
    c->value = mle_i64(out, &f->tn[2], c->point);
}

/* The operands with operand k a copy (freed by the caller) whose one random entry moved
 * by sign * (1 to 5). */
static void operands_changed(const fixture *f, unsigned k, int sign, ez_rng *rng, int64_t *mod[2])
{
    mod[0] = f->data[0], mod[1] = f->data[1];
    mod[k] = malloc(f->numel[k] * sizeof(int64_t));
    ck_assert_ptr_nonnull(mod[k]);
    memcpy(mod[k], f->data[k], f->numel[k] * sizeof(int64_t));
    mod[k][ez_rng_next(rng) % f->numel[k]] += sign * (1 + (int64_t)(ez_rng_next(rng) % 5));
}

/* Are the claims true for the honest operands and remainder? */
static bool claims_true(const fixture *f, const ez_claim *in, const ez_claim *rem)
{
    for (unsigned k = 0; k < f->op.nin; k++) {
        if (in[k].nvars != tensor_nv(&f->tn[k]))
            return false;
        if (!ez_fe2_eq(in[k].value, mle_i64(f->data[k], &f->tn[k], in[k].point)))
            return false;
    }
    if (f->op.shift > 0) {
        if (rem->nvars != tensor_nv(&f->tn[2]))
            return false;
        if (!ez_fe2_eq(rem->value, mle_i64(f->rem, &f->tn[2], rem->point)))
            return false;
    }
    return true;
}

static bool claim_equal(const ez_claim *a, const ez_claim *b)
{
    if (a->nvars != b->nvars || !ez_fe2_eq(a->value, b->value))
        return false;
    for (unsigned j = 0; j < a->nvars; j++)
        if (!ez_fe2_eq(a->point[j], b->point[j]))
            return false;
    return true;
}

static void start(ez_transcript *t)
{
    ez_transcript_init(t, "einzk/test/einsum");
    ez_transcript_absorb_bytes(t, "test/statement", "x", 1);
}

/* Prove with the given operands / remainder; the proof bytes go to *w (caller clears),
 * the prover's claims to in / rem (caller clears). */
static void prove(const fixture *f, int64_t *const *data, const int64_t *remv, const ez_claim *oc, ez_writer *w,
                  ez_claim *in, ez_claim *rem)
{
    ez_transcript t;
    start(&t);
    ez_writer_init(w);
    const int64_t *d[2] = {data[0], data[1]};
    ck_assert_int_eq(ez_einsum_prove(&t, &f->op, f->tn, d, f->op.shift ? remv : NULL, oc, w, in, rem), EZ_OK);
    ck_assert(!w->failed);
}

static ez_status verify(const fixture *f, const ez_claim *oc, const uint8_t *bytes, size_t len, ez_claim *in,
                        ez_claim *rem, size_t *consumed)
{
    ez_transcript t;
    start(&t);
    ez_reader r;
    ez_reader_init(&r, bytes, len);
    ez_status st = ez_einsum_verify(&t, &f->op, f->tn, oc, &r, in, rem);
    if (consumed)
        *consumed = r.pos;
    return st;
}

/* The verdict a downstream caller reaches: accept iff OK and every claim true. */
static bool accepts(const fixture *f, const ez_claim *oc, const uint8_t *bytes, size_t len, ez_status *stp)
{
    ez_claim in[2], rem;
    memset(&rem, 0, sizeof rem);
    ez_status st = verify(f, oc, bytes, len, in, &rem, NULL);
    if (stp)
        *stp = st;
    bool ok = st == EZ_OK && claims_true(f, in, &rem);
    if (st == EZ_OK) {
        for (unsigned k = 0; k < f->op.nin; k++)
            ez_claim_clear(&in[k]);
        ez_claim_clear(&rem);
    } else {
        ck_assert_int_eq(st, EZ_ERR_REJECT);
        for (unsigned k = 0; k < f->op.nin; k++)
            ck_assert_ptr_null(in[k].point);
    }
    return ok;
}

static void clear3(const fixture *f, ez_claim *in, ez_claim *rem)
{
    for (unsigned k = 0; k < f->op.nin; k++)
        ez_claim_clear(&in[k]);
    ez_claim_clear(rem);
}

/* One run of the prover on the fixture's op: the output claim it starts from, the bytes
 * it writes and the claims it leaves on the operands and the remainder. */
typedef struct {
    ez_claim oc, in[2], rem;
    ez_writer w;
} proven;

/* A claim on the output values out at a point drawn from rng, proven from the operand
 * values data and the remainder values remv. Free with proven_clear. */
static void proven_make(proven *P, const fixture *f, const int64_t *out, int64_t *const *data, const int64_t *remv,
                        ez_rng *rng)
{
    memset(P, 0, sizeof *P);
    output_claim(f, out, rng, &P->oc);
    prove(f, data, remv, &P->oc, &P->w, P->in, &P->rem);
}

static void proven_clear(const fixture *f, proven *P)
{
    clear3(f, P->in, &P->rem);
    ez_claim_clear(&P->oc);
    ez_writer_clear(&P->w);
}

/* ---- honest ------------------------------------------------------------------------------ */

static void case_honest_table(fixture *f, ez_rng *rng)
{
    for (int rep = 0; rep < 3; rep++) {
        proven P;
        ez_claim vin[2], vrem = {0};
        proven_make(&P, f, f->out, f->data, f->rem, rng);
        ez_status est;
        ck_assert_uint_eq(P.w.len, ez_einsum_proof_size(&f->op, f->tn, &est));
        ck_assert_int_eq(est, EZ_OK);
        size_t used = 0;
        ck_assert_msg(verify(f, &P.oc, P.w.data, P.w.len, vin, &vrem, &used) == EZ_OK, "%s rejected", f->c->name);
        ck_assert_uint_eq(used, P.w.len);
        ck_assert_msg(claims_true(f, vin, &vrem), "%s: false claims", f->c->name);
        for (unsigned k = 0; k < f->op.nin; k++)
            ck_assert(claim_equal(&P.in[k], &vin[k]));
        if (f->op.shift > 0) {
            ck_assert(claim_equal(&P.rem, &vrem));
            ck_assert_uint_eq(vrem.nvars, P.oc.nvars);
        }
        clear3(f, vin, &vrem);
        proven_clear(f, &P);
    }
}

/* The plan's bind order, when filled, is the one used (here: reversed A order). */
START_TEST(test_sched_bind_order)
{
    ez_rng rng = ez_rng_for("einsum_sched");
    fixture f;
    fixture_build(&f, case_named("out_proj"), &rng); /* h, e contracted */
    unsigned h = f.op.in_axes[0][1], e = f.op.in_axes[0][2];
    size_t def_size = ez_einsum_proof_size(&f.op, f.tn, NULL);
    f.op.sched.nbind = 2;
    f.op.sched.bind_order[0] = e;
    f.op.sched.bind_order[1] = h;
    ck_assert_uint_eq(ez_einsum_proof_size(&f.op, f.tn, NULL), def_size);
    proven P;
    proven_make(&P, &f, f.out, f.data, f.rem, &rng);
    ck_assert(accepts(&f, &P.oc, P.w.data, P.w.len, NULL));
    /* e's block comes first in the sumcheck point: B = wo[h,e,n] gets p[0..2] on e */
    ck_assert(ez_fe2_eq(P.in[1].point[2], P.in[0].point[4]));
    /* the verifier with another order sees a different statement */
    f.op.sched.bind_order[0] = h;
    f.op.sched.bind_order[1] = e;
    ck_assert(!accepts(&f, &P.oc, P.w.data, P.w.len, NULL));
    /* a bind order that is not exactly the sumcheck indices is a bad op */
    f.op.sched.nbind = 1;
    ez_status st;
    ck_assert_uint_eq(ez_einsum_proof_size(&f.op, f.tn, &st), 0);
    ck_assert_int_eq(st, EZ_ERR_INVALID);
    f.op.sched.nbind = 2;
    f.op.sched.bind_order[1] = f.op.in_axes[0][0]; /* s is free-A */
    ez_claim vin[2], vrem = {0};
    ck_assert_int_eq(verify(&f, &P.oc, P.w.data, P.w.len, vin, &vrem, NULL), EZ_ERR_INVALID);
    proven_clear(&f, &P);
    fixture_free(&f);
}
END_TEST

/* The padding-free prover (compact tables, lib/sumcheck_box.h) and the dense one (tables
 * padded to powers of two, operands folded padded) write the same bytes and hand out the
 * same claims; the compact one reads exactly the real entries (folds over real extents,
 * the sumcheck's non-zero support), the dense one more whenever an extent is not a power
 * of two. */
static void case_compact_equals_dense(fixture *f, ez_rng *rng)
{
    if (f->op.nin == 1)
        return;
    ez_claim oc, in[2][2], rem[2] = {{0}};
    output_claim(f, f->out, rng, &oc);
    ez_writer w[2];
    ez_work work[2] = {{0}};
    for (int dense = 0; dense < 2; dense++) {
        ez_transcript t;
        start(&t);
        ez_writer_init(&w[dense]);
        const int64_t *d[2] = {f->data[0], f->data[1]};
        ez_einsum_opts o = {.dense = dense, .work = &work[dense]};
        ck_assert_int_eq(ez_einsum_prove_ex(&t, &f->op, f->tn, d, f->op.shift ? f->rem : NULL, &oc, &o, &w[dense],
                                            in[dense], &rem[dense]),
                         EZ_OK);
    }
    ck_assert_uint_eq(w[0].len, w[1].len);
    ck_assert_msg(memcmp(w[0].data, w[1].data, w[0].len) == 0, "%s: compact and dense proofs differ", f->c->name);
    for (unsigned k = 0; k < 2; k++)
        ck_assert(claim_equal(&in[0][k], &in[1][k]));
    ck_assert_uint_eq(work[0].sumchecks, 1);
    ck_assert_uint_eq(work[0].real, work[1].real);
    ck_assert_msg(work[0].touched == work[0].real, "%s: compact read %llu, real %llu", f->c->name,
                  (unsigned long long)work[0].touched, (unsigned long long)work[0].real);
    ck_assert_uint_ge(work[1].touched, work[1].real);
    clear3(f, in[0], &rem[0]);
    clear3(f, in[1], &rem[1]);
    ez_claim_clear(&oc);
    ez_writer_clear(&w[0]);
    ez_writer_clear(&w[1]);
}

/* ---- malicious ---------------------------------------------------------------------------- */

/* The prover changes one operand value and proves its own output consistently: the
 * proof verifies, but the claim on that operand is false (caught downstream), while the
 * other operand's claim stays true. */
static void case_changed_operand_consistent(fixture *f, ez_rng *rng)
{
    for (unsigned k = 0; k < f->op.nin; k++) {
        int64_t *mod[2];
        operands_changed(f, k, 1, rng, mod);
        int64_t *out2 = malloc(f->numel[2] * sizeof(int64_t)), *rem2 = malloc(f->numel[2] * sizeof(int64_t));
        reference(f, mod, out2, rem2);
        proven P;
        ez_claim vin[2], vrem = {0};
        proven_make(&P, f, out2, mod, rem2, rng);
        ck_assert_int_eq(verify(f, &P.oc, P.w.data, P.w.len, vin, &vrem, NULL), EZ_OK);
        ck_assert_msg(!ez_fe2_eq(vin[k].value, mle_i64(f->data[k], &f->tn[k], vin[k].point)),
                      "%s: changed operand %u not caught", f->c->name, k);
        ck_assert(!claims_true(f, vin, &vrem));
        if (f->op.nin == 2)
            ck_assert(ez_fe2_eq(vin[1 - k].value, mle_i64(f->data[1 - k], &f->tn[1 - k], vin[1 - k].point)));
        clear3(f, vin, &vrem);
        proven_clear(f, &P);
        free(mod[k]);
        free(out2);
        free(rem2);
    }
}

/* The prover changes one operand value but the output claim is the honest one: reject
 * (a two-operand sumcheck fails) or a false input claim. A one-operand proof does not
 * depend on the operand at all (the claim is a linear map of the output claim), so
 * there it must stay the honest proof and be accepted. */
static void case_changed_operand_inconsistent(fixture *f, ez_rng *rng)
{
    for (unsigned k = 0; k < f->op.nin; k++) {
        int64_t *mod[2];
        operands_changed(f, k, -1, rng, mod);
        proven P;
        proven_make(&P, f, f->out, mod, f->rem, rng);
        bool ok = accepts(f, &P.oc, P.w.data, P.w.len, NULL);
        ck_assert_msg(ok == (f->op.nin == 1), "%s: operand %u", f->c->name, k);
        proven_clear(f, &P);
        free(mod[k]);
    }
}

/* One remainder value changed. (a) alone: reject or false claims. (b) with the output
 * adjusted so that acc = 2^k C' + R' still holds (R' = R + 2^k, C' = C - 1, which only
 * the range check on R excludes): verifies, and the rem claim is false for the honest R
 * — it is exactly R'~(r), the value the advice opening and range check see. */
static void case_changed_remainder(fixture *f, ez_rng *rng)
{
    if (f->op.shift == 0)
        return;
    size_t j = ez_rng_next(rng) % f->numel[2];
    int64_t *rem2 = malloc(f->numel[2] * sizeof(int64_t)), *out2 = malloc(f->numel[2] * sizeof(int64_t));
    memcpy(rem2, f->rem, f->numel[2] * sizeof(int64_t));
    memcpy(out2, f->out, f->numel[2] * sizeof(int64_t));
    /* (a) */
    rem2[j] ^= 1;
    proven P;
    proven_make(&P, f, f->out, f->data, rem2, rng);
    ck_assert_msg(!accepts(f, &P.oc, P.w.data, P.w.len, NULL), "%s (a)", f->c->name);
    proven_clear(f, &P);
    /* (b) */
    rem2[j] = f->rem[j] + ((int64_t)1 << f->op.shift);
    out2[j] = f->out[j] - 1;
    proven_make(&P, f, out2, f->data, rem2, rng);
    ez_claim vin[2], vrem = {0};
    ck_assert_int_eq(verify(f, &P.oc, P.w.data, P.w.len, vin, &vrem, NULL), EZ_OK);
    ck_assert(!ez_fe2_eq(vrem.value, mle_i64(f->rem, &f->tn[2], vrem.point)));
    ck_assert(ez_fe2_eq(vrem.value, mle_i64(rem2, &f->tn[2], vrem.point)));
    for (unsigned k = 0; k < f->op.nin; k++) /* the operands are honest */
        ck_assert(ez_fe2_eq(vin[k].value, mle_i64(f->data[k], &f->tn[k], vin[k].point)));
    clear3(f, vin, &vrem);
    proven_clear(f, &P);
    free(rem2);
    free(out2);
}

/* accepts() for the tamper helpers: the einsum proof of fixture f for output claim oc. */
typedef struct {
    const fixture *f;
    const ez_claim *oc;
} fixture_claim;

static bool fixture_accepts(void *ctx, const uint8_t *p, size_t len, ez_status *st)
{
    const fixture_claim *fc = ctx;
    return accepts(fc->f, fc->oc, p, len, st);
}

/* Every single-byte change of an honest proof: two-operand proofs are rejected outright
 * (unless an operand is all zero); one-operand proofs (only rho) give REJECT or false claims. */
static void case_tampered_bytes(fixture *f, ez_rng *rng)
{
    proven P;
    proven_make(&P, f, f->out, f->data, f->rem, rng);
    fixture_claim fc = {f, &P.oc};
    /* an all-zero operand (scalar_b's B is 0 for ~1 seed in 100) makes the final check
     * coef * A(r) * 0 = 0 hold for any claimed A(r): that false claim is then only
     * caught downstream (accepts() checks it), not by the sumcheck itself */
    bool zero_operand = false;
    for (unsigned k = 0; k < f->op.nin; k++) {
        bool all0 = true;
        for (size_t j = 0; j < f->numel[k] && all0; j++)
            all0 = f->data[k][j] == 0;
        zero_operand |= all0;
    }
    ez_tamper_opts flips = {.rng = rng, .must_reject = f->op.nin == 2 && !zero_operand};
    ez_tamper_bytes(P.w.data, P.w.len, &flips, fixture_accepts, &fc, f->c->name);
    proven_clear(f, &P);
}

/* A wrong claimed output value: reject, or (one operand: a linear map) false claims. */
static void case_wrong_output(fixture *f, ez_rng *rng)
{
    ez_claim oc, pin[2], prem = {0};
    output_claim(f, f->out, rng, &oc);
    oc.value = ez_fe2_add(oc.value, ez_fe2_one());
    ez_writer w;
    prove(f, f->data, f->rem, &oc, &w, pin, &prem);
    ez_status st;
    ck_assert_msg(!accepts(f, &oc, w.data, w.len, &st), "%s", f->c->name);
    if (f->op.nin == 2)
        ck_assert_int_eq(st, EZ_ERR_REJECT);
    clear3(f, pin, &prem);
    ez_claim_clear(&oc);
    ez_writer_clear(&w);
}

/* A claim at a point where a broadcast index's factor vanishes (reduce_claim's beta:
 * the prefix MLE of m, 1 - r0 r1 for an extent 3, is 0 at (2, 1/2)) says nothing about
 * the contraction: acc(r) = beta * (...) = 0 whatever the output. Such a claim is
 * rejected outright; dividing by beta = 0 would turn any claimed value into the sum 0,
 * which the all-zero operands here (with an all-zero proof) then "prove" — every
 * operand and remainder claim true, the output claim 5 false. */
START_TEST(test_broadcast_factor_vanishes)
{
    ez_rng rng = ez_rng_for("einsum_beta_zero");
    fixture f;
    fixture_build(&f, case_named("broadcast2"), &rng);
    for (unsigned k = 0; k < 2; k++)
        memset(f.data[k], 0, f.numel[k] * sizeof(int64_t));
    reference(&f, f.data, f.out, f.rem);
    ez_claim oc;
    output_claim(&f, f.out, &rng, &oc); /* imj: i 2 vars, m (3) 2 vars, j 3 vars */
    ck_assert_uint_eq(oc.nvars, 7);
    oc.point[2] = ez_fe2_from_fe(2);
    oc.point[3] = ez_fe2_from_fe(ez_fe_inv(2));
    oc.value = ez_fe2_from_fe(5);
    ez_status st;
    size_t len = ez_einsum_proof_size(&f.op, f.tn, &st);
    ck_assert_int_eq(st, EZ_OK);
    uint8_t *zero = calloc(len, 1);
    ck_assert(!accepts(&f, &oc, zero, len, &st));
    free(zero);
    ez_claim_clear(&oc);
    fixture_free(&f);
}
END_TEST

/* Field elements in a proof are canonical (docs/protocol.md §7.1, checklist 3): the
 * remainder's value 0 (all-zero operands) written as p instead is rejected — a second
 * encoding of the same proof, which a verifier reducing modulo p would accept. */
START_TEST(test_remainder_non_canonical)
{
    ez_rng rng = ez_rng_for("einsum_rem_non_canonical");
    fixture f;
    fixture_build(&f, case_named("rescale12"), &rng);
    memset(f.data[0], 0, f.numel[0] * sizeof(int64_t));
    reference(&f, f.data, f.out, f.rem);
    proven P;
    proven_make(&P, &f, f.out, f.data, f.rem, &rng);
    ck_assert(accepts(&f, &P.oc, P.w.data, P.w.len, NULL));
    uint64_t pv = EZ_P, zero = 0;
    ck_assert_mem_eq(P.w.data, &zero, 8); /* rho = 0 */
    memcpy(P.w.data, &pv, 8);
    ez_status st;
    ck_assert(!accepts(&f, &P.oc, P.w.data, P.w.len, &st));
    ck_assert_int_eq(st, EZ_ERR_REJECT);
    proven_clear(&f, &P);
    fixture_free(&f);
}
END_TEST

/* Every truncation is rejected (no crash; ASan build checks bounds); trailing bytes are
 * left unread for the caller. */
static void case_truncated(fixture *f, ez_rng *rng)
{
    proven P;
    ez_claim vin[2], vrem = {0};
    proven_make(&P, f, f->out, f->data, f->rem, rng);
    fixture_claim fc = {f, &P.oc};
    ez_tamper_truncations(P.w.data, P.w.len, true, fixture_accepts, &fc, f->c->name);
    ez_writer_bytes(&P.w, "\0\0\0", 3);
    size_t used = 0;
    ck_assert_int_eq(verify(f, &P.oc, P.w.data, P.w.len, vin, &vrem, &used), EZ_OK);
    ck_assert_uint_eq(used, P.w.len - 3);
    clear3(f, vin, &vrem);
    proven_clear(f, &P);
}

START_TEST(test_invalid_ops)
{
    ez_rng rng = ez_rng_for("einsum_invalid");
    fixture f;
    fixture_build(&f, &cases[0], &rng);
    ez_claim oc, in[2], rem = {0};
    memset(in, 0, sizeof in);
    output_claim(&f, f.out, &rng, &oc);
    ez_writer w;
    ez_writer_init(&w);
    const int64_t *d[2] = {f.data[0], f.data[1]};
    ez_transcript t;
    ez_reader r;
    ez_plan_op good = f.op;
#define EXPECT_INVALID()                                                                                   \
    do {                                                                                                   \
        start(&t);                                                                                         \
        ck_assert_int_eq(ez_einsum_prove(&t, &f.op, f.tn, d, f.rem, &oc, &w, in, &rem), EZ_ERR_INVALID);   \
        start(&t);                                                                                         \
        ez_reader_init(&r, w.data, w.len);                                                                 \
        ck_assert_int_eq(ez_einsum_verify(&t, &f.op, f.tn, &oc, &r, in, &rem), EZ_ERR_INVALID);            \
        ck_assert_ptr_null(in[0].point);                                                                   \
        f.op = good;                                                                                       \
    } while (0)
    f.op.mul = 0;
    EXPECT_INVALID();
    f.op.nin = 3;
    EXPECT_INVALID();
    f.op.kind = EZ_OP_ADD;
    EXPECT_INVALID();
    f.op.in_axes[0][1] = f.op.in_axes[0][0]; /* q[s,s,e]: repeated index, wrong extent */
    EXPECT_INVALID();
    f.op.idx_size[0] += 1; /* extents no longer match the tensors */
    EXPECT_INVALID();
    f.op.shift = 63;
    EXPECT_INVALID();
    f.op.nidx++; /* an index no tensor names */
    f.op.idx_size[f.op.nidx - 1] = 2;
    EXPECT_INVALID();
    /* the claim must have the output's variable count */
    oc.nvars--;
    EXPECT_INVALID();
    oc.nvars++;
#undef EXPECT_INVALID
    /* rem must be given iff shift > 0 */
    start(&t);
    ck_assert_int_eq(ez_einsum_prove(&t, &f.op, f.tn, d, NULL, &oc, &w, in, &rem), EZ_ERR_INVALID);
    ck_assert_uint_eq(w.len, 0);
    ez_claim_clear(&oc);
    ez_writer_clear(&w);
    fixture_free(&f);
}
END_TEST

/* ---- claims and the fan-out merge -------------------------------------------------------- */

START_TEST(test_claim_list)
{
    ez_claim_list l;
    ez_claim_list_init(&l);
    ez_fe2 pt[3] = {{1, 2}, {3, 4}, {5, 6}};
    for (unsigned i = 0; i < 9; i++) {
        ez_claim c;
        ck_assert_int_eq(ez_claim_set(&c, pt, i % 4, ez_fe2_make(i, 0)), EZ_OK);
        if (i % 2) {
            ck_assert_int_eq(ez_claim_list_add_owned(&l, &c), EZ_OK);
            ck_assert_ptr_null(c.point);
        } else {
            ck_assert_int_eq(ez_claim_list_add(&l, &c), EZ_OK);
            ez_claim_clear(&c);
        }
    }
    ck_assert_uint_eq(l.n, 9);
    for (unsigned i = 0; i < 9; i++) {
        ck_assert_uint_eq(l.items[i].nvars, i % 4);
        ck_assert(ez_fe2_eq(l.items[i].value, ez_fe2_make(i, 0)));
        if (i % 4 == 3)
            ck_assert(ez_fe2_eq(l.items[i].point[2], pt[2]));
    }
    ez_claim_list_clear(&l);
    ck_assert_uint_eq(l.n, 0);
    ez_claim_list_clear(&l);
    ez_claim_clear(NULL);
}
END_TEST

typedef struct {
    uint64_t dims[3];
    unsigned rank;
} merge_shape;

static int64_t *random_tensor(ez_rng *rng, const merge_shape *m, size_t *n)
{
    *n = 1;
    for (unsigned a = 0; a < m->rank; a++)
        *n *= m->dims[a];
    int64_t *v = malloc(*n * sizeof *v);
    for (size_t i = 0; i < *n; i++)
        v[i] = (int64_t)(ez_rng_next(rng) % 2001) - 1000;
    return v;
}

static ez_fe2 merge_mle(const int64_t *v, const merge_shape *m, const ez_fe2 *pt)
{
    ez_plan_tensor t;
    memset(&t, 0, sizeof t);
    t.rank = m->rank;
    memcpy(t.dims, m->dims, sizeof m->dims);
    return mle_i64(v, &t, pt);
}

/* The claim merge's verifier for the tamper helpers: a refused proof leaves no claim. */
typedef struct {
    const merge_shape *m;
    const ez_claim *cl;
    size_t nc;
} merge_claims;

static bool merge_accepts(void *ctx, const uint8_t *p, size_t len, ez_status *st)
{
    const merge_claims *mc = ctx;
    ez_transcript t;
    ez_transcript_init(&t, "einzk/test/merge");
    ez_reader r;
    ez_reader_init(&r, p, len);
    ez_claim o;
    *st = ez_claim_merge_verify(&t, mc->m->dims, mc->m->rank, mc->cl, mc->nc, &r, &o);
    if (*st != EZ_OK) {
        ck_assert_ptr_null(o.point);
        return false;
    }
    ez_claim_clear(&o);
    return true;
}

START_TEST(test_merge)
{
    ez_rng rng = ez_rng_for("claim_merge");
    /* the last two: the weights built by blocks in one parallel region (claim.c
     * merge_weights, from 2^12 entries), padded (dense prover) and not */
    const merge_shape shapes[] = {{{3, 5, 6}, 3}, {{8, 4, 0}, 2}, {{7, 0, 0}, 1}, {{0, 0, 0}, 0},
                                  {{5, 33, 40}, 3}, {{16, 16, 32}, 3}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const merge_shape *m = &shapes[si];
        size_t n;
        int64_t *v = random_tensor(&rng, m, &n);
        unsigned nv = ez_claim_tensor_nvars(m->dims, m->rank);
        for (size_t nc = 1; nc <= 3; nc++) {
            ez_claim cl[3];
            for (size_t i = 0; i < nc; i++) {
                ck_assert_int_eq(ez_claim_init(&cl[i], nv), EZ_OK);
                for (unsigned j = 0; j < nv; j++)
                    cl[i].point[j] = ez_rng_fe2(&rng);
                cl[i].value = merge_mle(v, m, cl[i].point);
            }
            for (int bad = -1; bad < (int)nc; bad++) {
                ez_fe2 saved = ez_fe2_zero();
                if (bad >= 0) { /* one wrong claim value */
                    saved = cl[bad].value;
                    cl[bad].value = ez_fe2_add(saved, ez_fe2_make(0, 1));
                }
                ez_transcript tp, tv;
                ez_transcript_init(&tp, "einzk/test/merge");
                tv = tp;
                ez_writer w;
                ez_writer_init(&w);
                ez_claim po, vo;
                ck_assert_int_eq(ez_claim_merge_prove(&tp, v, m->dims, m->rank, cl, nc, &w, &po), EZ_OK);
                if (nc > 1) { /* the padded prover writes the same bytes, reading more */
                    ez_transcript td;
                    ez_transcript_init(&td, "einzk/test/merge");
                    ez_writer wd;
                    ez_writer_init(&wd);
                    ez_claim pd;
                    uint64_t tc = 0, tdn = 0;
                    ez_transcript tc2;
                    ez_transcript_init(&tc2, "einzk/test/merge");
                    ez_writer wc;
                    ez_writer_init(&wc);
                    ez_claim pc;
                    ck_assert_int_eq(ez_claim_merge_prove_ex(&td, v, m->dims, m->rank, cl, nc, true, &wd, &pd, &tdn), EZ_OK);
                    ck_assert_int_eq(ez_claim_merge_prove_ex(&tc2, v, m->dims, m->rank, cl, nc, false, &wc, &pc, &tc),
                                     EZ_OK);
                    ck_assert_uint_eq(wd.len, w.len);
                    ck_assert(memcmp(wd.data, w.data, w.len) == 0 && memcmp(wc.data, w.data, w.len) == 0);
                    ck_assert_uint_eq(tc, ez_claim_merge_work(m->dims, m->rank, nc, false));
                    ck_assert_uint_eq(tdn, ez_claim_merge_work(m->dims, m->rank, nc, true));
                    ck_assert_uint_le(tc, tdn);
                    ez_claim_clear(&pd);
                    ez_claim_clear(&pc);
                    ez_writer_clear(&wd);
                    ez_writer_clear(&wc);
                }
                ck_assert_uint_eq(w.len, nc == 1 ? 0 : 16 * (2 * (size_t)nv + 2));
                ck_assert_uint_eq(w.len, nc == 1 ? 0 : 16 * (2 * (size_t)nv + 2));
                ez_reader r;
                ez_reader_init(&r, w.data, w.len);
                ez_status st = ez_claim_merge_verify(&tv, m->dims, m->rank, cl, nc, &r, &vo);
                if (bad < 0) {
                    ck_assert_int_eq(st, EZ_OK);
                    ck_assert(ez_reader_done(&r));
                    ck_assert(claim_equal(&po, &vo));
                    ck_assert(ez_fe2_eq(vo.value, merge_mle(v, m, vo.point)));
                    /* tampering with any byte (W(p), T(p) or a round) is rejected */
                    merge_claims mc = {m, cl, nc};
                    ez_tamper_opts flips = {.mask = 0x10, .must_reject = true};
                    ez_tamper_bytes(w.data, w.len, &flips, merge_accepts, &mc, "claim merge");
                    ez_tamper_truncations(w.data, w.len, true, merge_accepts, &mc, "claim merge");
                    ez_claim_clear(&vo);
                } else if (nc == 1) {
                    /* no merge: the (false) claim passes through unchanged */
                    ck_assert_int_eq(st, EZ_OK);
                    ck_assert(!ez_fe2_eq(vo.value, merge_mle(v, m, vo.point)));
                    ez_claim_clear(&vo);
                } else {
                    ck_assert_int_eq(st, EZ_ERR_REJECT);
                    ck_assert_ptr_null(vo.point);
                }
                ez_claim_clear(&po);
                ez_writer_clear(&w);
                if (bad >= 0)
                    cl[bad].value = saved;
            }
            /* a claim with the wrong variable count is a caller error */
            if (nv > 0) {
                ez_transcript t2;
                ez_transcript_init(&t2, "x");
                ez_writer w;
                ez_writer_init(&w);
                ez_claim o2;
                cl[0].nvars--;
                ck_assert_int_eq(ez_claim_merge_prove(&t2, v, m->dims, m->rank, cl, nc, &w, &o2), EZ_ERR_INVALID);
                ez_reader r;
                ez_reader_init(&r, NULL, 0);
                ck_assert_int_eq(ez_claim_merge_verify(&t2, m->dims, m->rank, cl, nc, &r, &o2), EZ_ERR_INVALID);
                cl[0].nvars++;
                ez_writer_clear(&w);
            }
            for (size_t i = 0; i < nc; i++)
                ez_claim_clear(&cl[i]);
        }
        free(v);
    }
}
END_TEST

/* A merge whose claims come from two einsum proofs on one shared operand (x used by
 * y = W x and z = x x elementwise): the flow the runtime will run. */
/* The merge's W(r) (issue 8): W = sum_i lambda_i eq(r_i, .) is public, so the verifier
 * recomputes W(r) rather than trust the sumcheck's evaluation. A prover with one false
 * claim (value + delta) runs the sumcheck on W' = W + c eq(s, .), c = lambda_bad delta /
 * T~(s): sum_x W'(x) T(x) is exactly the false combination, every round checks, and the
 * merged claim T~(pt) it hands on is TRUE — so nothing downstream notices. Only the
 * recomputed W(pt) differs from W'(pt). (The lambdas are the verifier's: the prover
 * absorbs what ez_claim_merge_verify absorbs.) */
START_TEST(test_merge_forged_w)
{
    ez_rng rng = ez_rng_for("merge_forged_w");
    const unsigned nv = 4;
    const size_t N = (size_t)1 << nv, nc = 3;
    const uint64_t dims[1] = {N};
    ez_fe T[16];
    for (size_t x = 0; x < N; x++)
        T[x] = ez_fe_from_i64((int64_t)(ez_rng_next(&rng) % 2001) - 1000);
    for (size_t bad = 0; bad < nc; bad++) {
        ez_claim cl[3];
        for (size_t i = 0; i < nc; i++) {
            ck_assert_int_eq(ez_claim_init(&cl[i], nv), EZ_OK);
            for (unsigned j = 0; j < nv; j++)
                cl[i].point[j] = ez_rng_fe2(&rng);
            cl[i].value = ez_mle_eval_fe(T, N, cl[i].point, nv);
        }
        cl[bad].value = ez_fe2_add(cl[bad].value, ez_fe2_from_fe(1 + ez_rng_next(&rng) % 1000));
        ez_transcript tp, tv;
        ez_transcript_init(&tp, "einzk/test/merge");
        tv = tp;
        /* the verifier's prefix: n, the claims, the lambdas */
        ez_fe2 lambda[3], sum = ez_fe2_zero();
        ez_transcript_absorb_u64(&tp, "claim/merge/n", nc);
        for (size_t i = 0; i < nc; i++)
            ez_claim_absorb(&tp, "claim/merge/claim", &cl[i]);
        ez_transcript_challenges_fe2(&tp, "claim/merge/lambda", lambda, nc);
        for (size_t i = 0; i < nc; i++)
            sum = ez_fe2_add(sum, ez_fe2_mul(lambda[i], cl[i].value));
        /* W' = sum_i lambda_i eq(r_i, .) + c eq(s, .) */
        ez_fe2 W[16], eq[16], s[4];
        memset(W, 0, sizeof W);
        for (size_t i = 0; i < nc; i++) {
            ez_eq_table(eq, cl[i].point, nv);
            for (size_t x = 0; x < N; x++)
                W[x] = ez_fe2_add(W[x], ez_fe2_mul(lambda[i], eq[x]));
        }
        for (unsigned j = 0; j < nv; j++)
            s[j] = ez_rng_fe2(&rng);
        ez_fe2 ts = ez_mle_eval_fe(T, N, s, nv), delta = ez_fe2_sub(cl[bad].value, ez_mle_eval_fe(T, N, cl[bad].point, nv));
        ck_assert(!ez_fe2_is_zero(ts));
        ez_fe2 c = ez_fe2_mul(ez_fe2_mul(lambda[bad], delta), ez_fe2_inv(ts));
        ez_eq_table(eq, s, nv);
        for (size_t x = 0; x < N; x++)
            W[x] = ez_fe2_add(W[x], ez_fe2_mul(c, eq[x]));
        ez_sumcheck_desc d;
        ez_sumcheck_desc_init(&d, nv, 2);
        ez_sumcheck_factor f[2] = {{NULL, W}, {T, NULL}};
        ez_sumcheck_proof sp;
        ez_fe2 pt[4], ev[2];
        ck_assert_int_eq(ez_sumcheck_prove(&tp, &d, NULL, NULL, f, sum, &sp, pt, ev), EZ_OK);
        ck_assert(ez_fe2_eq(ev[1], ez_mle_eval_fe(T, N, pt, nv))); /* the merged claim is true */
        ez_writer w;
        ez_writer_init(&w);
        ez_sumcheck_proof_write(&w, &sp);
        ez_reader r;
        ez_reader_init(&r, w.data, w.len);
        ez_claim vo;
        ck_assert_int_eq(ez_claim_merge_verify(&tv, dims, 1, cl, nc, &r, &vo), EZ_ERR_REJECT);
        ez_writer_clear(&w);
        ez_sumcheck_proof_clear(&sp);
        for (size_t i = 0; i < nc; i++)
            ez_claim_clear(&cl[i]);
    }
}
END_TEST

/* The merged claims, with their values, are absorbed before the lambdas. A prover that
 * knew the lambdas first (those of a verifier blind to the claims — only n absorbed —
 * or to their values only) moves a lie between two claims, v0 + delta and
 * v1 - delta lambda0 / lambda1, keeping sum lambda_i v_i true: the honest merge prover
 * then proves it and the merged claim is true. */
START_TEST(test_merge_claims_after_lambdas)
{
    ez_rng rng = ez_rng_for("merge_claims_after_lambdas");
    const unsigned nv = 4;
    const uint64_t dims[1] = {16};
    int64_t data[16];
    ez_fe T[16];
    for (size_t x = 0; x < 16; x++) {
        data[x] = (int64_t)(ez_rng_next(&rng) % 2001) - 1000;
        T[x] = ez_fe_from_i64(data[x]);
    }
    for (int trial = 0; trial < 4; trial++) {
        ez_claim cl[2];
        for (size_t i = 0; i < 2; i++) {
            ck_assert_int_eq(ez_claim_init(&cl[i], nv), EZ_OK);
            for (unsigned j = 0; j < nv; j++)
                cl[i].point[j] = ez_rng_fe2(&rng);
            cl[i].value = ez_mle_eval_fe(T, 16, cl[i].point, nv);
        }
        ez_transcript tp, tv;
        ez_transcript_init(&tp, "einzk/test/merge-lambdas");
        tv = tp;
        ez_transcript blind = tp;
        ez_fe2 lambda[2], delta = ez_fe2_from_fe(1 + ez_rng_next(&rng) % 1000);
        ez_transcript_absorb_u64(&blind, "claim/merge/n", 2);
        if (trial % 2) /* blind to the values only */
            for (size_t i = 0; i < 2; i++) {
                ez_transcript_absorb_u64(&blind, "claim/merge/claim", nv);
                ez_transcript_absorb_fe2(&blind, "claim/merge/claim", cl[i].point, nv);
            }
        ez_transcript_challenges_fe2(&blind, "claim/merge/lambda", lambda, 2);
        cl[0].value = ez_fe2_add(cl[0].value, delta);
        cl[1].value = ez_fe2_sub(cl[1].value, ez_fe2_mul(ez_fe2_mul(delta, lambda[0]), ez_fe2_inv(lambda[1])));
        ez_writer w;
        ez_writer_init(&w);
        ez_claim po, vo;
        ck_assert_int_eq(ez_claim_merge_prove(&tp, data, dims, 1, cl, 2, &w, &po), EZ_OK);
        ez_reader r;
        ez_reader_init(&r, w.data, w.len);
        ck_assert_int_eq(ez_claim_merge_verify(&tv, dims, 1, cl, 2, &r, &vo), EZ_ERR_REJECT);
        ez_claim_clear(&po);
        ez_writer_clear(&w);
        for (size_t i = 0; i < 2; i++)
            ez_claim_clear(&cl[i]);
    }
}
END_TEST

START_TEST(test_merge_after_einsum)
{
    ez_rng rng = ez_rng_for("claim_merge_flow");
    fixture f1, f2;
    fixture_build(&f1, &cases[5], &rng); /* matvec: y[i] = W[i,j] x[j] */
    fixture_build(&f2, &cases[5], &rng);
    /* f2 reuses f1's x as its B operand */
    memcpy(f2.data[1], f1.data[1], f1.numel[1] * sizeof(int64_t));
    reference(&f2, f2.data, f2.out, f2.rem);
    ez_claim oc1, oc2, in1[2], in2[2], r1 = {0}, r2 = {0};
    output_claim(&f1, f1.out, &rng, &oc1);
    output_claim(&f2, f2.out, &rng, &oc2);
    ez_transcript tp, tv;
    ez_transcript_init(&tp, "einzk/test/flow");
    tv = tp;
    ez_writer w;
    ez_writer_init(&w);
    const int64_t *d1[2] = {f1.data[0], f1.data[1]}, *d2[2] = {f2.data[0], f2.data[1]};
    ck_assert_int_eq(ez_einsum_prove(&tp, &f1.op, f1.tn, d1, NULL, &oc1, &w, in1, &r1), EZ_OK);
    ck_assert_int_eq(ez_einsum_prove(&tp, &f2.op, f2.tn, d2, NULL, &oc2, &w, in2, &r2), EZ_OK);
    ez_claim xs[2], merged;
    ck_assert_int_eq(ez_claim_copy(&xs[0], &in1[1]), EZ_OK);
    ck_assert_int_eq(ez_claim_copy(&xs[1], &in2[1]), EZ_OK);
    ck_assert_int_eq(ez_claim_merge_prove(&tp, f1.data[1], f1.tn[1].dims, 1, xs, 2, &w, &merged), EZ_OK);
    ez_claim_clear(&merged);
    clear3(&f1, in1, &r1);
    clear3(&f2, in2, &r2);
    ez_claim_clear(&xs[0]);
    ez_claim_clear(&xs[1]);

    ez_reader r;
    ez_reader_init(&r, w.data, w.len);
    ck_assert_int_eq(ez_einsum_verify(&tv, &f1.op, f1.tn, &oc1, &r, in1, &r1), EZ_OK);
    ck_assert_int_eq(ez_einsum_verify(&tv, &f2.op, f2.tn, &oc2, &r, in2, &r2), EZ_OK);
    ck_assert_int_eq(ez_claim_copy(&xs[0], &in1[1]), EZ_OK);
    ck_assert_int_eq(ez_claim_copy(&xs[1], &in2[1]), EZ_OK);
    ck_assert_int_eq(ez_claim_merge_verify(&tv, f1.tn[1].dims, 1, xs, 2, &r, &merged), EZ_OK);
    ck_assert(ez_reader_done(&r));
    ck_assert(ez_fe2_eq(merged.value, mle_i64(f1.data[1], &f1.tn[1], merged.point)));
    ck_assert(claims_true(&f1, in1, &r1));
    ck_assert(claims_true(&f2, in2, &r2));
    ez_claim_clear(&merged);
    clear3(&f1, in1, &r1);
    clear3(&f2, in2, &r2);
    ez_claim_clear(&xs[0]);
    ez_claim_clear(&xs[1]);
    ez_claim_clear(&oc1);
    ez_claim_clear(&oc2);
    ez_writer_clear(&w);
    fixture_free(&f1);
    fixture_free(&f2);
}
END_TEST

/* Larger instances (the OpenMP paths of the folds and the sumcheck) with a loose time
 * bound: y[s,n] = x[s,d] W[d,n] (64 x 200 x 300) and an elementwise 256 x 384 product,
 * both with a shift of 12. */
START_TEST(test_larger)
{
    ez_rng rng = ez_rng_for("einsum_larger");
    static const eq_case big[] = {
        {"proj", "sn", "sd", "dn", "s64d200n300", 1, 12, -2000, 2000},
        {"elem", "ij", "ij", "ij", "i256j384", 1, 12, -2000, 2000},
    };
    for (size_t ci = 0; ci < 2; ci++) {
        fixture f;
        fixture_build(&f, &big[ci], &rng);
        proven P;
        double t0 = ez_now();
        proven_make(&P, &f, f.out, f.data, f.rem, &rng);
        double t1 = ez_now();
        ck_assert(accepts(&f, &P.oc, P.w.data, P.w.len, NULL));
        double t2 = ez_now();
        ck_assert_msg(t1 - t0 < 5 && t2 - t1 < 1, "prove %.3f s verify %.3f s", t1 - t0, t2 - t1);
        proven_clear(&f, &P);
        fixture_free(&f);
    }
}
END_TEST

/* ---- every check on every case ----------------------------------------------------------- */

/* The checks above, each run on every case of the table (one loop iteration each, _i the
 * check): its fixture built from one generator seeded by the check's name, freed after. */
static const struct {
    const char *seed;
    void (*check)(fixture *f, ez_rng *rng);
} case_checks[] = {
    {"einsum_honest", case_honest_table},
    {"einsum_compact_dense", case_compact_equals_dense},
    {"einsum_operand_consistent", case_changed_operand_consistent},
    {"einsum_operand_inconsistent", case_changed_operand_inconsistent},
    {"einsum_remainder", case_changed_remainder},
    {"einsum_tamper", case_tampered_bytes},
    {"einsum_wrong_output", case_wrong_output},
    {"einsum_truncated", case_truncated},
};

START_TEST(test_each_case)
{
    ez_rng rng = ez_rng_for(case_checks[_i].seed);
    for (size_t ci = 0; ci < NCASES; ci++) {
        fixture f;
        fixture_build(&f, &cases[ci], &rng);
        case_checks[_i].check(&f, &rng);
        fixture_free(&f);
    }
}
END_TEST

Suite *ez_suite_prove_einsum(void)
{
    const TTest *tests[] = {test_sched_bind_order, test_invalid_ops, test_claim_list, test_merge,
        test_merge_forged_w, test_broadcast_factor_vanishes, test_remainder_non_canonical,
        test_merge_claims_after_lambdas, test_merge_after_einsum, test_larger};
    Suite *s = ez_test_suite("prove_einsum", "prove_einsum", 60, tests, sizeof tests / sizeof tests[0]);
    TCase *tc = tcase_create("cases");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_each_case, 0, (int)(sizeof case_checks / sizeof case_checks[0]));
    suite_add_tcase(s, tc);
    return s;
}
