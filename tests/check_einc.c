/* einc: the .einc artifact round-trips, is canonical, and every truncation, byte flip,
 * bad version or trailing byte fails cleanly with EZ_ERR_FORMAT (never a crash). */
#include <jansson.h>
#include <nettle/sha2.h>
#include <string.h>

#include "compiler/einc.h"
#include "compiler/plan.h"
#include "compiler/schedule.h"
#include "tests/plan_fixture.h"
#include "tests/testutil.h"

/* A small model touching every op kind and the plan's optional fields. */
static void build(ez_plan *p)
{
    ez_diag d;
    ez_plan_init(p);
    snprintf(p->model, sizeof p->model, "tiny");
    const char *sz = "s=4 t=4 d=6 h=2 e=3 v=10 n=6 l=2";
    /* gather: x[s,d] = wte[tok[s], d] */
    int tok = ez_fx_tensor(p, "tok", EZ_TENSOR_TOKENS);
    p->tensors[tok].rank = 1;
    p->tensors[tok].dims[0] = 4;
    p->tensors[tok].token_limit = 10;
    unsigned g = ez_fx_op(p, EZ_OP_GATHER, "x[s,d] = wte[v,d] * tok[s]", sz);
    p->ops[g].in[1] = (unsigned)tok;
    ez_fx_op(p, EZ_OP_EINSUM, "q[s,h,e] = x[s,d] * wq[d,h,e]", sz);
    p->ops[p->nops - 1].shift = 12;
    ez_fx_op(p, EZ_OP_EINSUM, "k[t,h,e] = x[t,d] * wk[d,h,e]", "t=4 d=6 h=2 e=3");
    p->ops[p->nops - 1].shift = 12;
    /* k was computed with index t over x's s-axis: same size, fine */
    unsigned a = ez_fx_op(p, EZ_OP_EINSUM, "a[h,s,t] = q[s,h,e] * k[t,h,e]", sz);
    p->ops[a].shift = 13;
    p->ops[a].mul = 3;
    ez_fx_masked_softmax(p, "pr[h,s,t] = a[h,s,t]", sz);
    ez_fx_op(p, EZ_OP_EINSUM, "c[s,h,e] = pr[h,s,t] * k[t,h,e]", sz);
    p->ops[p->nops - 1].shift = 12;
    /* y[s,n] = c[s,h,e] * wo[l=1,h,e,n] : a fixed layer axis */
    unsigned y = ez_fx_op(p, EZ_OP_EINSUM, "y[s,n] = c[s,h,e] * wo[l,h,e,n]", sz);
    ez_plan_op *op = &p->ops[y];
    op->in_fixed[1] = 1;
    op->in_pos[1][0] = 1;
    op->in_axes[1][0] = 0;
    op->nidx--; /* l was the last index */
    op->shift = 12;
    unsigned r = ez_fx_op(p, EZ_OP_ADD, "r[s,n] = y[s,n] + x[s,n]", sz);
    p->ops[r].coef[1] = -2;
    unsigned ln = ez_fx_op(p, EZ_OP_LAYERNORM, "ln[s,n] = r[s,n]", sz);
    p->ops[ln].axis = ez_fx_idx(&p->ops[ln], "n");
    unsigned ge = ez_fx_op(p, EZ_OP_FUNC, "ge[s,n] = ln[s,n]", sz);
    p->ops[ge].func = EZ_FN_GELU;
    unsigned am = ez_fx_op(p, EZ_OP_ARGMAX, "o[s] = ge[s,n]", sz);
    p->ops[am].axis = ez_fx_idx(&p->ops[am], "n");
    p->tensors[p->ops[am].out].is_output = true;
    p->tensors[p->ops[am].out].scale = 0;
    p->ops[am].out_scale = 0;
    ez_status st = ez_plan_schedule(p, &d);
    ck_assert_msg(st == EZ_OK, "%s", d.msg);
}

static void encode(ez_plan *p, ez_writer *w)
{
    ez_diag d;
    ez_writer_init(w);
    ck_assert_int_eq(ez_einc_encode(w, p, &d), EZ_OK);
}

START_TEST(test_roundtrip)
{
    ez_plan p, q;
    ez_writer w, w2;
    ez_diag d;
    build(&p);
    encode(&p, &w);
    ck_assert(!memcmp(w.data, "EINC", 4));
    ck_assert_int_eq(ez_einc_decode(&q, w.data, w.len, &d), EZ_OK);
    ck_assert_str_eq(q.model, "tiny");
    ck_assert_uint_eq(q.ntensors, p.ntensors);
    ck_assert_uint_eq(q.nops, p.nops);
    ck_assert(!memcmp(q.digest, p.digest, 32));
    for (size_t i = 0; i < p.nops; i++) {
        ck_assert_str_eq(q.ops[i].equation, p.ops[i].equation);
        ck_assert_uint_eq(q.ops[i].sched.nvars, p.ops[i].sched.nvars);
        ck_assert_uint_eq(q.ops[i].checked, p.ops[i].checked);
        ck_assert_uint_eq(q.ops[i].in_fixed[1], p.ops[i].in_fixed[1]);
    }
    ck_assert_uint_eq(q.ops[6].in_pos[1][0], 1);
    ck_assert_int_eq(q.ops[7].coef[1], -2);
    /* canonical: encoding the decoded plan gives the same bytes */
    encode(&q, &w2);
    ck_assert_uint_eq(w2.len, w.len);
    ck_assert(!memcmp(w2.data, w.data, w.len));
    /* the digest is SHA-256 of everything before the 44-byte digest section */
    uint8_t h[32];
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, w.len - 44, w.data);
    sha256_digest(&ctx, 32, h);
    ck_assert(!memcmp(h, p.digest, 32));
    ck_assert(!memcmp(w.data + w.len - 32, h, 32));
    /* a different plan has a different digest */
    q.ops[3].shift++;
    ck_assert_int_eq(ez_plan_compute_digest(&q, &d), EZ_OK);
    ck_assert(memcmp(q.digest, p.digest, 32) != 0);
    ez_writer_clear(&w);
    ez_writer_clear(&w2);
    ez_plan_clear(&p);
    ez_plan_clear(&q);
}
END_TEST

START_TEST(test_truncations)
{
    ez_plan p, q;
    ez_writer w;
    ez_diag d;
    build(&p);
    encode(&p, &w);
    for (size_t n = 0; n < w.len; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* exact-size copy so ASan sees any overread */
        memcpy(copy, w.data, n);
        d.msg[0] = 0;
        ez_status st = ez_einc_decode(&q, copy, n, &d);
        ck_assert_msg(st == EZ_ERR_FORMAT, "prefix %zu: status %d", n, st);
        ck_assert_msg(d.msg[0] != 0, "prefix %zu: no reason", n);
        ck_assert_uint_eq(q.ntensors, 0);
        free(copy);
    }
    /* one trailing byte */
    uint8_t *longer = malloc(w.len + 1);
    memcpy(longer, w.data, w.len);
    longer[w.len] = 0;
    ck_assert_int_eq(ez_einc_decode(&q, longer, w.len + 1, &d), EZ_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(d.msg, "trailing"));
    free(longer);
    ez_writer_clear(&w);
    ez_plan_clear(&p);
}
END_TEST

/* Replace the digest so the flip reaches the structural checks. */
static void fix_digest(uint8_t *data, size_t len)
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, len - 44, data);
    sha256_digest(&ctx, 32, data + len - 32);
}

START_TEST(test_byte_flips)
{
    ez_rng rng = ez_rng_for("einc_byte_flips");
    ez_plan p, q;
    ez_writer w, w2;
    ez_diag d;
    build(&p);
    encode(&p, &w);
    uint8_t *buf = malloc(w.len);
    unsigned ok_count = 0, fail_count = 0;
    for (int trial = 0; trial < 2500; trial++) {
        memcpy(buf, w.data, w.len);
        int nflips = 1 + (int)(ez_rng_next(&rng) % 3);
        for (int f = 0; f < nflips; f++) {
            size_t pos = ez_rng_next(&rng) % (w.len - 44);
            uint8_t v = (uint8_t)ez_rng_next(&rng);
            if (ez_rng_next(&rng) & 1)
                v = (uint8_t)(buf[pos] ^ (1u << (v & 7))); /* single bit */
            buf[pos] = v;
        }
        bool fixed = trial % 4 != 0; /* most trials get a matching digest */
        if (fixed)
            fix_digest(buf, w.len);
        ez_status st = ez_einc_decode(&q, buf, w.len, &d);
        if (memcmp(buf, w.data, w.len) == 0) {
            ck_assert_int_eq(st, EZ_OK);
            ez_plan_clear(&q);
            continue;
        }
        if (!fixed) {
            ck_assert_int_eq(st, EZ_ERR_FORMAT); /* the digest catches it */
            continue;
        }
        ck_assert_msg(st == EZ_OK || st == EZ_ERR_FORMAT, "trial %d: status %d", trial, st);
        if (st == EZ_OK) {
            /* a flip that still decodes is a valid plan, and canonical */
            ok_count++;
            ck_assert_int_eq(ez_plan_validate(&q, &d), EZ_OK);
            /* a newer minor version is accepted; re-encoding writes ours */
            encode(&q, &w2);
            if (buf[6] != 0 || buf[7] != 0) {
                memcpy(buf + 6, w2.data + 6, 2);
                fix_digest(buf, w.len);
            }
            ck_assert_uint_eq(w2.len, w.len);
            for (size_t z = 0; z < w.len; z++)
                ck_assert_msg(w2.data[z] == buf[z], "trial %d: byte %zu re-encodes as %02x, file has %02x (orig %02x)",
                              trial, z, w2.data[z], buf[z], w.data[z]);
            ez_writer_clear(&w2);
            ez_plan_clear(&q);
        } else {
            fail_count++;
            ck_assert(d.msg[0] != 0);
        }
    }
    ck_assert_uint_gt(fail_count, 0);
    free(buf);
    ez_writer_clear(&w);
    ez_plan_clear(&p);
}
END_TEST

START_TEST(test_versions)
{
    ez_plan p, q;
    ez_writer w;
    ez_diag d;
    build(&p);
    encode(&p, &w);
    /* an unknown major version is a clear error */
    w.data[4] = EZ_EINC_MAJOR + 1;
    ck_assert_int_eq(ez_einc_decode(&q, w.data, w.len, &d), EZ_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(d.msg, "version 3.1"));
    w.data[4] = EZ_EINC_MAJOR;
    /* bad magic */
    w.data[0] = 'X';
    ck_assert_int_eq(ez_einc_decode(&q, w.data, w.len, &d), EZ_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(d.msg, "magic"));
    w.data[0] = 'E';

    /* a newer minor version may add sections: they are skipped (and covered by the
     * digest); the same extra section in a file of this minor version is an error */
    size_t body = w.len - 44;
    ez_writer x;
    ez_writer_init(&x);
    ez_writer_bytes(&x, w.data, body);
    ez_writer_u32(&x, 77);
    ez_writer_u64(&x, 3);
    ez_writer_bytes(&x, "abc", 3);
    ez_writer_bytes(&x, w.data + body, 44);
    x.data[6] = EZ_EINC_MINOR + 1; /* a newer minor */
    fix_digest(x.data, x.len);
    ck_assert_msg(ez_einc_decode(&q, x.data, x.len, &d) == EZ_OK, "%s", d.msg);
    ez_plan_clear(&q);
    x.data[6] = EZ_EINC_MINOR;
    fix_digest(x.data, x.len);
    ck_assert_int_eq(ez_einc_decode(&q, x.data, x.len, &d), EZ_ERR_FORMAT);
    ez_writer_clear(&x);
    ez_writer_clear(&w);
    ez_plan_clear(&p);
}
END_TEST

START_TEST(test_json)
{
    ez_plan p;
    build(&p);
    ez_diag d;
    ck_assert_int_eq(ez_plan_compute_digest(&p, &d), EZ_OK);
    json_t *j = ez_plan_to_json(&p);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "model")), "tiny");
    json_t *ops = json_object_get(j, "ops");
    ck_assert_uint_eq(json_array_size(ops), p.nops);
    json_t *a = json_array_get(ops, 3);
    ck_assert_str_eq(json_string_value(json_object_get(a, "name")), "a");
    ck_assert_str_eq(json_string_value(json_object_get(a, "kind")), "einsum");
    ck_assert_int_eq(json_integer_value(json_object_get(a, "sumcheck_vars")), 1 + 2);
    ck_assert_int_eq(json_integer_value(json_object_get(a, "degree")), 3);
    ck_assert_int_eq(json_integer_value(json_object_get(a, "eq_vars")), 1);
    ck_assert(json_is_boolean(json_object_get(a, "checked")));
    ck_assert_int_eq(json_array_size(json_object_get(a, "shape")), 3);
    json_t *tot = json_object_get(j, "totals");
    ck_assert_int_eq(json_integer_value(json_object_get(tot, "ops")), (json_int_t)p.nops);
    json_decref(j);
    ez_plan_clear(&p);
}
END_TEST

Suite *ez_suite_einc(void)
{
    const TTest *tests[] = {test_roundtrip, test_truncations, test_byte_flips, test_versions, test_json};
    return ez_test_suite("einc", "format", 30, tests, sizeof tests / sizeof tests[0]);
}
