/* Suite "certify": one proof certifies a greedy generation (runtime/prove/certify.h), and
 * every way of lying about the text, the prompt, the stop rule, the passes or the model is
 * rejected (issue 11's tampering list). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/causality.h"
#include "runtime/exec/decode.h"
#include "runtime/formats/sections.h"
#include "runtime/prove/certify.h"
#include "runtime/prove/layout.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

/* A one-layer char-LM: gather + learned positions, causal attention with 2 heads, a GELU
 * MLP, norms, an unembedding of its own (the tie test zeroes it), argmax. Context 16. */
static const char *lm_src =
    "model lm\nparam V = 13, S = 16, D = 8, H = 2, E = 4, F = 16\ninput tok[S] : token\n"
    "weight wte[V, D], wpe[S, D], g1[D], wq[D, H, E], wk[D, H, E], wv[D, H, E], wo[H, E, D]\n"
    "weight g2[D], w1[D, F], w2[F, D], wu[V, D]\n"
    "x[s, d] = wte[tok[s], d] + wpe[s, d]\n"
    "n[s, d] = layernorm[d](x[s, d]) * g1[d]\n"
    "q[s, h, e] = n[s, d] * wq[d, h, e]\nk[t, h, e] = n[t, d] * wk[d, h, e]\n"
    "v[t, h, e] = n[t, d] * wv[d, h, e]\na[h, s, t] = q[s, h, e] * k[t, h, e] / 2\n"
    "p[h, s, t] = softmax[t](causal[s, t](a[h, s, t]))\nc[s, h, e] = p[h, s, t] * v[t, h, e]\n"
    "x[s, d] = x[s, d] + c[s, h, e] * wo[h, e, d]\n"
    "u[s, f] = gelu(rmsnorm[d](x[s, d]) * g2[d] * w1[d, f])\n"
    "x[s, d] = x[s, d] + u[s, f] * w2[f, d]\n"
    "y[s, w] = layernorm[d](x[s, d]) * wu[w, d]\nnext[s] = argmax[w](y[s, w])\noutput next\n";

typedef struct {
    ez_pfx f;
    ez_pk pk;
    ez_generation gen;
} lm;

static void lm_open(lm *m, const char *seed)
{
    ez_pfx_compile(&m->f, lm_src);
    ez_pfx_run(&m->f, seed, 1 << 10);
    ez_pfx_pk(&m->f, &m->pk);
    memset(&m->gen, 0, sizeof m->gen);
}

static void lm_close(lm *m)
{
    ez_generation_clear(&m->gen);
    ez_pk_clear(&m->pk);
    ez_pfx_free(&m->f);
}

/* Greedy generation from prompt with the model's weights. */
static void lm_generate(lm *m, const int64_t *prompt, size_t P, uint64_t max_new, int64_t eos)
{
    ez_diag d = {{0}};
    ez_trace tr;
    const ez_plan *p = &m->f.plan;
    ck_assert_int_eq(ez_trace_init(&tr, p, &d), EZ_OK);
    for (size_t t = 0; t < p->ntensors; t++)
        if (p->tensors[t].kind == EZ_TENSOR_WEIGHT)
            ck_assert_int_eq(ez_trace_set(&tr, t, m->f.tr.t[t], ez_plan_tensor_numel(&p->tensors[t]), &d), EZ_OK);
    ez_generation_clear(&m->gen);
    ck_assert_msg(ez_generate(&m->gen, p, &tr, prompt, P, max_new, eos, &d) == EZ_OK, "%s", d.msg);
    ez_trace_clear(&tr);
}

static void lm_certify(lm *m, bool per_step, ez_certificate *c)
{
    ez_diag d = {{0}};
    ez_certify_opts o = {.per_step = per_step};
    ez_certify_stats st;
    ck_assert_msg(ez_certify(c, &m->f.plan, &m->pk, &m->gen, &o, &st, &d) == EZ_OK, "certify: %s", d.msg);
    ck_assert_uint_eq(st.npass, per_step ? m->gen.ngen : 1);
}

/* Verify c through its byte format under vk; the reason in why. */
static bool cert_verify(const ez_vk *vk, const ez_certificate *c, ez_diag *why)
{
    ez_writer w;
    ez_certificate back;
    ez_writer_init(&w);
    ck_assert_int_eq(ez_certificate_encode(&w, c), EZ_OK);
    ck_assert(ez_certificate_is(w.data, w.len));
    ck_assert_msg(ez_certificate_decode(&back, w.data, w.len, why) == EZ_OK, "%s", why->msg);
    bool ok = false;
    ck_assert_int_eq(ez_certify_verify(vk, &back, &ok, NULL, why), EZ_OK);
    ez_certificate_clear(&back);
    ez_writer_clear(&w);
    return ok;
}

static bool lm_verify(lm *m, const ez_certificate *c, ez_diag *why)
{
    ez_vk vk = ez_pfx_vk(&m->f); /* borrowed */
    return cert_verify(&vk, c, why);
}

#define EXPECT_REJECT(m, c, what)                                                                                      \
    do {                                                                                                               \
        ez_diag why_ = {{0}};                                                                                          \
        ck_assert_msg(!lm_verify(m, c, &why_), "accepted: %s", what);                                                 \
        ck_assert_msg(why_.msg[0] != 0, "rejected without a reason: %s", what);                                        \
    } while (0)

#define EXPECT_ACCEPT(m, c, what)                                                                                      \
    do {                                                                                                               \
        ez_diag why_ = {{0}};                                                                                          \
        ck_assert_msg(lm_verify(m, c, &why_), "%s rejected: %s", what, why_.msg);                                     \
    } while (0)

static const int64_t prompt[] = {3, 11, 5};

/* The "lm" case's checked fixture: the char-LM with its weights and pk, opened before
 * each test and closed after it (a test may change its weights or generation), and the
 * certificate the test makes. */
static struct {
    lm m;
    ez_certificate c; /* the test's certificate */
} fx;

static void lm_setup(void)
{
    lm_open(&fx.m, "certify");
    ez_certificate_init(&fx.c);
}

static void lm_teardown(void)
{
    ez_certificate_clear(&fx.c);
    lm_close(&fx.m);
}

START_TEST(test_certify_honest_one_pass_and_per_step)
{
    lm_generate(&fx.m, prompt, 3, 6, -1);
    ck_assert_uint_eq(fx.m.gen.ngen, 6);
    ck_assert_int_eq(fx.m.gen.stop, EZ_STOP_MAX_NEW);
    lm_certify(&fx.m, false, &fx.c);
    ck_assert_uint_eq(fx.c.pass[0].length, 8); /* positions 0..7: a pass of 8, not the context's 16 */
    EXPECT_ACCEPT(&fx.m, &fx.c, "one pass");
    ez_certificate_clear(&fx.c);
    lm_certify(&fx.m, true, &fx.c);
    EXPECT_ACCEPT(&fx.m, &fx.c, "per step");
    ez_certificate_clear(&fx.c);
    /* a text that fills the context: 3 + 14 tokens, the last pass over all 16 positions */
    lm_generate(&fx.m, prompt, 3, 100, -1);
    ck_assert_int_eq(fx.m.gen.stop, EZ_STOP_CONTEXT);
    ck_assert_uint_eq(fx.m.gen.nprompt + fx.m.gen.ngen, 17);
    lm_certify(&fx.m, false, &fx.c);
    ck_assert_uint_eq(fx.c.pass[0].length, 16);
    EXPECT_ACCEPT(&fx.m, &fx.c, "full context");
    ez_certificate_clear(&fx.c);
    /* a one-token prompt and a single generated token: a pass of one position */
    lm_generate(&fx.m, prompt, 1, 1, -1);
    lm_certify(&fx.m, false, &fx.c);
    ck_assert_uint_eq(fx.c.pass[0].length, 1);
    EXPECT_ACCEPT(&fx.m, &fx.c, "one token");
}
END_TEST

START_TEST(test_certify_rejects_text_and_prompt_changes)
{
    lm_generate(&fx.m, prompt, 3, 6, -1);
    lm_certify(&fx.m, false, &fx.c);
    int64_t *tok = fx.c.gen.tokens;
    const uint64_t P = fx.c.gen.nprompt, n = P + fx.c.gen.ngen;
    for (uint64_t i = 0; i < n; i++) {
        int64_t keep = tok[i];
        tok[i] = (tok[i] + 1) % 13;
        char what[64];
        snprintf(what, sizeof what, "token %llu changed", (unsigned long long)i);
        EXPECT_REJECT(&fx.m, &fx.c, what);
        tok[i] = keep;
    }
    /* the first prompt token dropped: the text shifts left */
    memmove(tok, tok + 1, (n - 1) * sizeof *tok);
    fx.c.gen.nprompt--;
    EXPECT_REJECT(&fx.m, &fx.c, "prompt token dropped");
    memmove(tok + 1, tok, (n - 1) * sizeof *tok);
    tok[0] = prompt[0];
    fx.c.gen.nprompt++;
    /* a prompt one token longer (the first generated token moved into the prompt) */
    fx.c.gen.nprompt++;
    fx.c.gen.ngen--;
    fx.c.gen.max_new--;
    EXPECT_REJECT(&fx.m, &fx.c, "prompt extended by a generated token");
    fx.c.gen.nprompt--;
    fx.c.gen.ngen++;
    fx.c.gen.max_new++;
    EXPECT_ACCEPT(&fx.m, &fx.c, "restored certificate");
}
END_TEST

START_TEST(test_certify_rejects_stop_rule_lies)
{
    lm_generate(&fx.m, prompt, 3, 8, -1);
    const uint64_t P = fx.m.gen.nprompt;
    /* an honest EOS stop: EOS = the fourth generated token, generation stops there */
    int64_t eos = fx.m.gen.tokens[P + 3];
    uint64_t first_eos = 0;
    while (fx.m.gen.tokens[P + first_eos] != eos)
        first_eos++;
    lm_generate(&fx.m, prompt, 3, 8, eos);
    ck_assert_int_eq(fx.m.gen.stop, EZ_STOP_EOS);
    ck_assert_uint_eq(fx.m.gen.ngen, first_eos + 1);
    lm_certify(&fx.m, false, &fx.c);
    EXPECT_ACCEPT(&fx.m, &fx.c, "EOS stop");
    /* stopped before EOS: the last token dropped, still claiming an EOS stop */
    if (fx.c.gen.ngen > 1) {
        fx.c.gen.ngen--;
        fx.c.pass[0].last--;
        EXPECT_REJECT(&fx.m, &fx.c, "EOS stop without EOS");
        fx.c.gen.stop = EZ_STOP_MAX_NEW;
        EXPECT_REJECT(&fx.m, &fx.c, "max-new stop before max-new");
        fx.c.gen.stop = EZ_STOP_EOS;
        fx.c.gen.ngen++;
        fx.c.pass[0].last++;
    }
    /* claiming another EOS: the honest text then continued past it or stopped without it */
    fx.c.gen.eos = (eos + 1) % 13;
    EXPECT_REJECT(&fx.m, &fx.c, "EOS stop at a token that is not EOS");
    fx.c.gen.eos = eos;
    fx.c.gen.stop = EZ_STOP_MAX_NEW;
    EXPECT_REJECT(&fx.m, &fx.c, "max-new stop on an EOS token");
    fx.c.gen.stop = EZ_STOP_CONTEXT;
    EXPECT_REJECT(&fx.m, &fx.c, "context stop with room left");
    ez_certificate_clear(&fx.c);
    /* continued past EOS: the 8-token text claimed under an EOS it contains */
    lm_generate(&fx.m, prompt, 3, 8, -1);
    lm_certify(&fx.m, false, &fx.c);
    fx.c.gen.eos = eos; /* occurs at first_eos < 7 (or is the last token: then a wrong stop) */
    EXPECT_REJECT(&fx.m, &fx.c, "generation continued past EOS");
}
END_TEST

START_TEST(test_certify_rejects_pass_changes)
{
    lm_generate(&fx.m, prompt, 3, 6, -1);
    ez_certificate other;
    lm_certify(&fx.m, true, &fx.c);
    ck_assert_uint_ge(fx.c.npass, 3);
    ez_cert_pass keep = fx.c.pass[1];
    /* a pass left out */
    fx.c.pass[1] = fx.c.pass[2];
    fx.c.pass[2] = keep;
    EXPECT_REJECT(&fx.m, &fx.c, "passes out of order");
    fx.c.pass[2] = fx.c.pass[1];
    fx.c.pass[1] = keep;
    fx.c.npass--;
    EXPECT_REJECT(&fx.m, &fx.c, "last pass left out");
    fx.c.npass++;
    /* a pass's length or range changed */
    fx.c.pass[1].length *= 2;
    EXPECT_REJECT(&fx.m, &fx.c, "pass length doubled");
    fx.c.pass[1].length = 5;
    EXPECT_REJECT(&fx.m, &fx.c, "pass length not a power of two");
    fx.c.pass[1].length = keep.length;
    fx.c.pass[1].last++;
    fx.c.pass[2].first++;
    EXPECT_REJECT(&fx.m, &fx.c, "pass ranges shifted");
    fx.c.pass[1] = keep;
    fx.c.pass[2].first = keep.last + 1;
    /* one proof byte flipped */
    fx.c.pass[1].proof[fx.c.pass[1].proof_len / 2] ^= 1;
    EXPECT_REJECT(&fx.m, &fx.c, "proof byte flipped");
    fx.c.pass[1].proof[fx.c.pass[1].proof_len / 2] ^= 1;
    EXPECT_ACCEPT(&fx.m, &fx.c, "restored certificate");
    /* the one-pass certificate's proof under a per-step certificate's header */
    lm_certify(&fx.m, false, &other);
    fx.c.pass[fx.c.npass - 1].first = other.pass[0].first;
    fx.c.pass[fx.c.npass - 1].length = other.pass[0].length;
    EXPECT_REJECT(&fx.m, &fx.c, "a pass covering positions already covered");
    ez_certificate_clear(&other);
}
END_TEST

START_TEST(test_certify_rejects_another_model)
{
    lm b;
    lm_open(&b, "certify-model-b"); /* the same plan, other weights */
    lm_generate(&fx.m, prompt, 3, 5, -1);
    lm_certify(&fx.m, false, &fx.c);
    EXPECT_ACCEPT(&fx.m, &fx.c, "an honest certificate");
    EXPECT_REJECT(&b, &fx.c, "the vk of another model");
    lm_close(&b);
}
END_TEST

/* With the unembedding zero every logit ties, the greedy token is 0 everywhere; a proof
 * that the model chose 1 (a later tied index) must fail in the argmax relation. */
START_TEST(test_certify_rejects_later_tied_index)
{
    ez_diag d = {{0}};
    const ez_plan *p = &fx.m.f.plan;
    int wu = ez_plan_find_tensor(p, "wu");
    ck_assert_int_ge(wu, 0);
    memset(fx.m.f.tr.t[wu], 0, ez_plan_tensor_numel(&p->tensors[wu]) * sizeof(int64_t));
    ck_assert_msg(ez_exec_run(p, &fx.m.f.tr, &d) == EZ_OK, "%s", d.msg);
    ez_pfx_commit(&fx.m.f);
    ez_pk_clear(&fx.m.pk);
    ez_pfx_pk(&fx.m.f, &fx.m.pk);
    lm_generate(&fx.m, prompt, 3, 4, -1);
    for (uint64_t i = 0; i < fx.m.gen.ngen; i++)
        ck_assert_int_eq(fx.m.gen.tokens[fx.m.gen.nprompt + i], 0);
    /* the pass by hand, so the trace can be altered: positions 0..5, a pass of 8 */
    ez_positions ps;
    ck_assert_int_eq(ez_positions_analyze(&ps, p, &d), EZ_OK);
    for (int lie = 0; lie < 2; lie++) {
        ez_plan rp;
        ck_assert_int_eq(ez_plan_restrict(&rp, p, &ps, 8, &d), EZ_OK);
        ez_trace tr;
        ck_assert_int_eq(ez_trace_init(&tr, &rp, &d), EZ_OK);
        int64_t tok[8] = {0};
        memcpy(tok, fx.m.gen.tokens, (fx.m.gen.nprompt + fx.m.gen.ngen) * sizeof *tok);
        ez_certificate c;
        ez_certificate_init(&c);
        ck_assert_int_eq(ez_trace_set(&tr, ps.tokens, tok, 8, &d), EZ_OK);
        for (size_t t = 0, k = 0; t < p->ntensors; t++)
            if (p->tensors[t].kind == EZ_TENSOR_WEIGHT) {
                uint64_t nw = ez_plan_tensor_numel(&rp.tensors[t]);
                int64_t *w = malloc(nw * sizeof *w);
                ez_exec_copy_box(w, &rp.tensors[t], fx.m.pk.weights[k++].v, &p->tensors[t], NULL);
                ck_assert_int_eq(ez_trace_set(&tr, t, w, nw, &d), EZ_OK);
                free(w);
            }
        ck_assert_msg(ez_exec_run(&rp, &tr, &d) == EZ_OK, "%s", d.msg);
        c.gen.nprompt = fx.m.gen.nprompt;
        c.gen.ngen = fx.m.gen.ngen;
        c.gen.eos = -1;
        c.gen.max_new = fx.m.gen.ngen;
        c.gen.stop = EZ_STOP_MAX_NEW;
        c.gen.tokens = malloc(8 * sizeof(int64_t));
        memcpy(c.gen.tokens, tok, 8 * sizeof(int64_t));
        if (lie) { /* the model "chose" 1 at the end of the prompt: a later tied index */
            tr.t[ps.next][fx.m.gen.nprompt - 1] = 1;
            c.gen.tokens[fx.m.gen.nprompt] = 1;
        }
        ez_prove_opts po = {.unchecked = true, .wplan = p};
        ez_proof pf;
        ez_writer w;
        ez_proof_init(&pf);
        ez_writer_init(&w);
        ez_status pst = ez_prove(&rp, &tr, fx.m.pk.pcs, &po, &pf, NULL, &d);
        ck_assert_msg(pst == EZ_OK, "lie %d: status %d: %s", lie, (int)pst, d.msg);
        ck_assert_int_eq(ez_proof_encode(&w, &pf, NULL), EZ_OK);
        ck_assert_int_eq(ez_certificate_add_pass(&c, 8, fx.m.gen.nprompt - 1, fx.m.gen.nprompt + fx.m.gen.ngen - 2, w.data, w.len),
                         EZ_OK);
        ez_diag why = {{0}};
        bool ok = lm_verify(&fx.m, &c, &why);
        if (lie)
            ck_assert_msg(!ok, "a later tied index was accepted");
        else
            ck_assert_msg(ok, "the honest hand-made pass was rejected: %s", why.msg);
        ez_writer_clear(&w);
        ez_proof_clear(&pf);
        ez_certificate_clear(&c);
        ez_trace_clear(&tr);
        ez_plan_clear(&rp);
    }
    ez_positions_clear(&ps);
}
END_TEST

/* Cost follows the text: a pass over a quarter of the context commits and walks at most
 * 35 % of what a pass over the whole context does (issue 11), counted exactly by the
 * layout (runtime/prove/layout.h). */
START_TEST(test_certify_cost_follows_length)
{
    ez_pfx f;
    ez_diag d = {{0}};
    /* at context 1024 and width 64 (the fixed function tables are then a small part) */
    char src[4096];
    snprintf(src, sizeof src, "%s", lm_src);
    char *at = strstr(src, "S = 16, D = 8");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "S=1024, D=64", 12);
    at[12] = ' ';
    ez_pfx_compile(&f, src);
    ez_positions ps;
    ck_assert_int_eq(ez_positions_analyze(&ps, &f.plan, &d), EZ_OK);
    ez_layout_sizes full, quarter;
    ez_plan r16, r4;
    ck_assert_int_eq(ez_plan_restrict(&r16, &f.plan, &ps, 1024, &d), EZ_OK);
    ck_assert_int_eq(ez_plan_restrict(&r4, &f.plan, &ps, 256, &d), EZ_OK);
    ck_assert_msg(ez_layout_sizes_compute(&full, &r16, &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_layout_sizes_compute(&quarter, &r4, &d) == EZ_OK, "%s", d.msg);
    ck_assert(full.provable && quarter.provable);
    ck_assert_msg(quarter.advice_elems * 100 <= full.advice_elems * 35, "advice %llu of %llu",
                  (unsigned long long)quarter.advice_elems, (unsigned long long)full.advice_elems);
    uint64_t rows_full = 0, rows_quarter = 0;
    for (size_t i = 0; i < full.nops; i++) {
        rows_full += full.ops[i].lookup_rows;
        rows_quarter += quarter.ops[i].lookup_rows;
    }
    ck_assert_msg(rows_quarter * 100 <= rows_full * 35, "lookup rows %llu of %llu", (unsigned long long)rows_quarter,
                  (unsigned long long)rows_full);
    ez_layout_sizes_clear(&full);
    ez_layout_sizes_clear(&quarter);
    ez_plan_clear(&r16);
    ez_plan_clear(&r4);
    ez_positions_clear(&ps);
    ez_pfx_free(&f);
}
END_TEST

/* A certificate over prompt {3, 11, 5} and 2 generated tokens {1, 2} (max-new 2, no EOS)
 * with one pass; the proof bytes are a placeholder (the checks below come first). */
static void cert_fake(ez_certificate *c, uint64_t length, uint64_t first, uint64_t last)
{
    static const int64_t toks[] = {3, 11, 5, 1, 2};
    ez_certificate_init(c);
    c->gen.nprompt = 3;
    c->gen.ngen = 2;
    c->gen.eos = -1;
    c->gen.max_new = 2;
    c->gen.stop = EZ_STOP_MAX_NEW;
    c->gen.tokens = malloc(sizeof toks);
    ck_assert_ptr_nonnull(c->gen.tokens);
    memcpy(c->gen.tokens, toks, sizeof toks);
    ck_assert_int_eq(ez_certificate_add_pass(c, length, first, last, (const uint8_t *)"EZPF", 4), EZ_OK);
}

/* CT-header, CT-gen-trailing, CT-passes: the container, each section edited in the one
 * field its check reads: an unknown stop rule; a byte after the tokens; a byte after the
 * last pass. (The sections: tag 1 the generation, tag 2 the passes.) */
START_TEST(test_certificate_decode_exact)
{
    ez_certificate c, back;
    ez_diag d = {{0}};
    ez_writer w, bad;
    cert_fake(&c, 8, 2, 3);
    ez_writer_init(&w);
    ck_assert_int_eq(ez_certificate_encode(&w, &c), EZ_OK);
    ck_assert_msg(ez_certificate_decode(&back, w.data, w.len, &d) == EZ_OK, "%s", d.msg);
    ck_assert_int_eq(back.gen.stop, EZ_STOP_MAX_NEW);
    ez_certificate_clear(&back);
    for (int k = 0; k < 3; k++) {
        ez_section_view sec[3];
        ck_assert_int_eq(ez_sections_read(w.data, w.len, EZ_CERT_MAGIC, "test", 2, true, sec, &d), EZ_OK);
        ez_writer_init(&bad);
        ez_sections_write_header(&bad, EZ_CERT_MAGIC);
        for (unsigned s = 1; s <= 2; s++) {
            ez_writer pw;
            ez_writer_init(&pw);
            ez_writer_bytes(&pw, sec[s].data, sec[s].len);
            if (k == 0 && s == 1)
                pw.data[4 * 8] = EZ_STOP_CONTEXT + 1; /* nprompt | ngen | eos | max_new | stop */
            if ((k == 1 && s == 1) || (k == 2 && s == 2))
                ez_writer_u8(&pw, 0);
            ez_sections_write(&bad, s, &pw);
            ez_writer_clear(&pw);
        }
        static const char *why[] = {"certificate: malformed generation header",
                                    "certificate: the generation section has trailing bytes",
                                    "certificate: the passes section is truncated or has trailing bytes"};
        ck_assert_int_eq(ez_certificate_decode(&back, bad.data, bad.len, &d), EZ_ERR_FORMAT);
        ck_assert_str_eq(d.msg, why[k]);
        ez_writer_clear(&bad);
    }
    ez_writer_clear(&w);
    ez_certificate_clear(&c);
}
END_TEST

/* CE-cover-length, CE-eos: the verifier's checks before any proof is read: a pass that
 * certifies a position at or past its own length (2..3 in a pass of 3 positions); an EOS
 * token outside the vocabulary (13 of 13). Each message is that check's. */
START_TEST(test_certify_verify_cover_and_eos)
{
    ez_pfx f;
    ez_certificate c;
    ez_diag why = {{0}};
    bool ok = true;
    ez_pfx_compile(&f, lm_src);
    ez_pfx_run(&f, "certify-cover", 1 << 10);
    ez_vk vk = ez_pfx_vk(&f); /* borrowed */
    cert_fake(&c, 3, 2, 3);
    ck_assert_int_eq(ez_certify_verify(&vk, &c, &ok, NULL, &why), EZ_OK);
    ck_assert(!ok);
    ck_assert_str_eq(why.msg, "pass 0 certifies positions 2..3 of 3; position 2 is next");
    ez_certificate_clear(&c);
    cert_fake(&c, 4, 2, 3);
    c.gen.eos = 13;
    ok = true;
    ck_assert_int_eq(ez_certify_verify(&vk, &c, &ok, NULL, &why), EZ_OK);
    ck_assert(!ok);
    ck_assert_str_eq(why.msg, "the EOS token 13 is outside the vocabulary");
    c.gen.eos = -2;
    ck_assert_int_eq(ez_certify_verify(&vk, &c, &ok, NULL, &why), EZ_OK);
    ck_assert(!ok);
    ck_assert_str_eq(why.msg, "the EOS token -2 is outside the vocabulary");
    ez_certificate_clear(&c);
    ez_pfx_free(&f);
}
END_TEST

Suite *ez_suite_certify(void)
{
    const TTest *tests[] = {test_certificate_decode_exact, test_certify_verify_cover_and_eos,
        test_certify_cost_follows_length};
    Suite *s = ez_test_suite("certify", "core", 120, tests, sizeof tests / sizeof tests[0]);
    const TTest *lm_tests[] = {test_certify_honest_one_pass_and_per_step, test_certify_rejects_text_and_prompt_changes,
        test_certify_rejects_stop_rule_lies, test_certify_rejects_pass_changes, test_certify_rejects_another_model,
        test_certify_rejects_later_tied_index};
    ez_tcase_add_fixture(s, "lm", 120, lm_setup, lm_teardown, lm_tests, sizeof lm_tests / sizeof lm_tests[0]);
    return s;
}
