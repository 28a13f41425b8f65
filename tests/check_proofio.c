/* Suite "proofio": the decoders of the proof, vk and pk files and the statement check
 * (runtime/formats/proofio.h), each rejection on a file that differs from a valid one in
 * exactly the field that check reads. Truncations and byte flips (check_prove.c, the
 * fuzzers) show that *some* check rejects; these show that each one does (issue 8, the
 * mutation list tests/mutation/mutants.txt: ST-*, PF-*, VK-*, PK-*). A tiny model is
 * compiled, run and its weights committed (milliseconds); the pk's own tests also prove
 * it, with the committing prover and with the pk's. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/pcs_internal.h"
#include "lib/whir_internal.h"
#include "runtime/formats/proofio.h"
#include "runtime/formats/sections.h"
#include "runtime/prove/keys.h"
#include "runtime/prove/weights.h"
#include "tests/prove_fixture.h"
#include "tests/testutil.h"

/* x and y have the same shape (a statement entry can be swapped for the other), y's bound
 * 2 * 8 * 8 = 128 is far inside its 16-bit width, w is 4 bits wide. */
static const char *tiny_src = "model tiny\nparam S = 2, D = 2\nbits 16\nscale 0\ninput x[S, D] @bits(4)\n"
                              "weight w[D, D] @bits(4)\ny[s, e] = x[s, d] * w[d, e]\noutput y\n";

static void tiny_open(ez_pfx *f)
{
    ez_pfx_compile(f, tiny_src);
    ez_pfx_run(f, "proofio", 7);
}

/* f's pk (its trace's weights, its prover, its range proof) into a new writer. */
static void pk_bytes(ez_writer *w, const ez_pfx *f)
{
    ez_writer_init(w);
    ck_assert_int_eq(ez_pk_encode(w, &f->plan, f->tr.t, f->w, f->wrange.data, f->wrange.len), EZ_OK);
}

/* Section `tag` of pk bytes w (a view into w). */
static ez_section_view pk_section(const ez_writer *w, unsigned tag)
{
    ez_section_view sec[5];
    ez_diag d = {{0}};
    ck_assert_msg(ez_sections_read(w->data, w->len, EZ_PK_MAGIC, "test", 4, false, sec, &d) == EZ_OK, "%s", d.msg);
    return sec[tag];
}

/* The file `in` (ntags sections, magic) again with section `tag`'s payload replaced. */
static void resection(ez_writer *out, const ez_writer *in, const char *magic, unsigned ntags, unsigned tag,
                      const uint8_t *payload, size_t plen)
{
    ez_section_view sec[16];
    ez_diag d = {{0}};
    ck_assert_uint_lt(ntags, 16);
    ck_assert_msg(ez_sections_read(in->data, in->len, magic, "test", ntags, false, sec, &d) == EZ_OK, "%s", d.msg);
    ez_writer_init(out);
    ez_sections_write_header_minor(out, magic, in->data[6] | (unsigned)in->data[7] << 8); /* in's version */
    for (unsigned s = 1; s <= ntags; s++) {
        ez_writer pw;
        ez_writer_init(&pw);
        if (s == tag)
            ez_writer_bytes(&pw, payload, plen);
        else
            ez_writer_bytes(&pw, sec[s].data, sec[s].len);
        ez_sections_write(out, s, &pw);
        ez_writer_clear(&pw);
    }
    ck_assert(!out->failed);
}

/* Section `tag` of `in` with `extra` appended, or byte `at` set to `val` (extra == 0). */
static void edit_section(ez_writer *out, const ez_writer *in, const char *magic, unsigned ntags, unsigned tag,
                         size_t extra, size_t at, uint8_t val)
{
    ez_section_view sec[16];
    ez_diag d = {{0}};
    ck_assert_msg(ez_sections_read(in->data, in->len, magic, "test", ntags, false, sec, &d) == EZ_OK, "%s", d.msg);
    size_t n = sec[tag].len + extra;
    uint8_t *b = calloc(n ? n : 1, 1);
    ck_assert_ptr_nonnull(b);
    memcpy(b, sec[tag].data, sec[tag].len);
    if (extra == 0) {
        ck_assert_uint_lt(at, n);
        b[at] = val;
    }
    resection(out, in, magic, ntags, tag, b, n);
    free(b);
}

/* The statement check refuses s as a format error whose message contains why. */
static void expect_statement_refused(const ez_statement *s, const ez_plan *plan, const char *why)
{
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_statement_check(s, plan, &d), EZ_ERR_FORMAT);
    ck_assert_msg(strstr(d.msg, why) != NULL, "%s", d.msg);
}

/* ST-tensor: the statement's entries in another order, each with the right count (x and
 * y have the same shape): the check names the entry, not a count. */
START_TEST(test_statement_entry_swapped)
{
    ez_pfx f;
    ez_statement s;
    ez_diag d = {{0}};
    tiny_open(&f);
    ck_assert_int_eq(ez_statement_from_trace(&s, &f.plan, f.tr.t), EZ_OK);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_msg(ez_statement_check(&s, &f.plan, &d) == EZ_OK, "%s", d.msg);
    ck_assert_uint_eq(s.t[0].n, s.t[1].n);
    unsigned a = s.t[0].tensor;
    s.t[0].tensor = s.t[1].tensor;
    s.t[1].tensor = a;
    expect_statement_refused(&s, &f.plan, "statement: entry 0 should be x[2,2], the proof has y[2,2]");
    ez_statement_clear(&s);
    ez_pfx_free(&f);
}
END_TEST

/* ST-bound: an output value inside its 16-bit width but above its compiler bound (128). */
START_TEST(test_statement_output_above_bound)
{
    ez_pfx f;
    ez_statement s;
    ez_diag d = {{0}};
    tiny_open(&f);
    int y = ez_plan_find_tensor(&f.plan, "y");
    ck_assert_int_ge(y, 0);
    ck_assert_uint_eq(f.plan.tensors[y].bound, 128);
    ck_assert_int_eq(ez_statement_from_trace(&s, &f.plan, f.tr.t), EZ_OK);
    ck_assert_uint_eq(s.t[1].tensor, (unsigned)y);
    s.t[1].v[3] = 128;
    ck_assert_msg(ez_statement_check(&s, &f.plan, &d) == EZ_OK, "%s", d.msg);
    s.t[1].v[3] = -129;
    expect_statement_refused(&s, &f.plan, "output y[1, 1] = -129 is outside its range");
    ez_statement_clear(&s);
    ez_pfx_free(&f);
}
END_TEST

/* PF-stmt-trailing: one byte after the binding in the statement section; BD-present: the
 * binding's presence byte 2. */
START_TEST(test_proof_statement_trailing_byte)
{
    ez_pfx f;
    ez_proof pf, back;
    ez_diag d = {{0}};
    ez_writer w, bad;
    tiny_open(&f);
    ez_proof_init(&pf);
    ck_assert_int_eq(ez_statement_from_trace(&pf.stmt, &f.plan, f.tr.t), EZ_OK);
    ez_proof_bind(&pf.bind, &f.plan, ez_pcs_prover_commitment(f.w));
    ez_writer_init(&w);
    ck_assert_int_eq(ez_proof_encode(&w, &pf, NULL), EZ_OK);
    ck_assert_msg(ez_proof_decode(&back, w.data, w.len, &d) == EZ_OK, "%s", d.msg);
    ez_proof_clear(&back);
    edit_section(&bad, &w, EZ_PROOF_MAGIC, EZ_PF_NSEC, EZ_PF_SEC_STATEMENT, 1, 0, 0);
    ck_assert_int_eq(ez_proof_decode(&back, bad.data, bad.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "proof: trailing bytes in the statement");
    ez_writer_clear(&bad);
    /* BD-present: the binding's presence byte (the section's 33rd byte from the end,
     * before the weight root) 2 rather than 1: one encoding per binding */
    ez_section_view sec[16];
    ck_assert_int_eq(ez_sections_read(w.data, w.len, EZ_PROOF_MAGIC, "test", EZ_PF_NSEC, false, sec, &d), EZ_OK);
    size_t at = sec[EZ_PF_SEC_STATEMENT].len - 33;
    ck_assert_uint_eq(sec[EZ_PF_SEC_STATEMENT].data[at], 1);
    edit_section(&bad, &w, EZ_PROOF_MAGIC, EZ_PF_NSEC, EZ_PF_SEC_STATEMENT, 0, at, 2);
    ck_assert_int_eq(ez_proof_decode(&back, bad.data, bad.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "proof: malformed binding (plan digest, weight commitment)");
    ez_writer_clear(&bad);
    ez_writer_clear(&w);
    ez_proof_clear(&pf);
    ez_pfx_free(&f);
}
END_TEST

/* The statement section of a proof holding one tensor #3 of n values in w bytes each (as
 * docs/protocol.md §9 writes it, by hand), then a binding without weights. */
static void stmt_section(ez_writer *out, const int64_t *v, uint64_t n, unsigned w)
{
    ez_writer_init(out);
    ez_writer_u64(out, 1);
    ez_writer_u32(out, 3);
    ez_writer_u64(out, n);
    ez_writer_u8(out, (uint8_t)w);
    for (uint64_t i = 0; i < n; i++)
        for (unsigned b = 0; b < w; b++)
            ez_writer_u8(out, (uint8_t)((uint64_t)v[i] >> (8 * b)));
    uint8_t digest[32] = {0};
    ez_writer_bytes(out, digest, 32);
    ez_writer_u8(out, 0);
}

/* PF-stmt-width (1.3): a statement tensor's values travel in the fewest bytes that hold
 * them all. At each width's edges (-2^(8w-1) and 2^(8w-1) - 1 need w bytes, 2^(8w-1)
 * needs w + 1) the encoder picks that width and the values come back; a width one byte
 * wider than needed, a width of 0 or 9 and a count beyond the bytes are refused. */
START_TEST(test_statement_widths)
{
    ez_proof pf, back;
    ez_diag d = {{0}};
    for (unsigned w = 1; w <= 8; w++) {
        int64_t top = w == 8 ? INT64_MAX : (INT64_C(1) << (8 * w - 1)) - 1;
        int64_t v[3] = {-top - 1, top, 0};
        ck_assert_uint_eq(ez_stmt_width(v, 3), w);
        if (w < 8) {
            int64_t past[1] = {top + 1};
            ck_assert_uint_eq(ez_stmt_width(past, 1), w + 1);
        }
        ez_writer enc, sec, file;
        ez_proof_init(&pf);
        pf.stmt.n = 1;
        pf.stmt.t = calloc(1, sizeof *pf.stmt.t);
        pf.stmt.t[0] = (ez_stmt_tensor){.tensor = 3, .n = 3, .v = malloc(sizeof v)};
        memcpy(pf.stmt.t[0].v, v, sizeof v);
        ez_writer_init(&enc);
        ck_assert_int_eq(ez_proof_encode(&enc, &pf, NULL), EZ_OK);
        ck_assert_msg(ez_proof_decode(&back, enc.data, enc.len, &d) == EZ_OK, "%s", d.msg);
        ck_assert_uint_eq(back.stmt.n, 1);
        ck_assert_uint_eq(back.stmt.t[0].n, 3);
        /* decoded, the values stay the file's bytes (raw, in enc), read back through ez_stmt_get */
        ck_assert_ptr_null(back.stmt.t[0].v);
        ck_assert_uint_eq(back.stmt.t[0].w, w);
        for (int i = 0; i < 3; i++) {
            int64_t got;
            ez_stmt_get(&back.stmt.t[0], (uint64_t)i, 1, &got);
            ck_assert_int_eq(got, v[i]);
        }
        ez_proof_clear(&back);
        /* the one value that needs w bytes last (the decoder's width scan stops at the
         * first such value): accepted at w, refused at w + 1 */
        {
            int64_t late[3] = {0, -1, w % 2 ? top : -top - 1};
            ez_writer s2, f2;
            stmt_section(&s2, late, 3, w);
            resection(&f2, &enc, EZ_PROOF_MAGIC, EZ_PF_NSEC, EZ_PF_SEC_STATEMENT, s2.data, s2.len);
            ck_assert_msg(ez_proof_decode(&back, f2.data, f2.len, &d) == EZ_OK, "%s", d.msg);
            ez_proof_clear(&back);
            ez_writer_clear(&f2);
            ez_writer_clear(&s2);
            if (w < 8) {
                stmt_section(&s2, late, 3, w + 1);
                resection(&f2, &enc, EZ_PROOF_MAGIC, EZ_PF_NSEC, EZ_PF_SEC_STATEMENT, s2.data, s2.len);
                ck_assert_int_eq(ez_proof_decode(&back, f2.data, f2.len, &d), EZ_ERR_FORMAT);
                ez_writer_clear(&f2);
                ez_writer_clear(&s2);
            }
        }
        /* the hand-written section is the encoder's, byte for byte */
        stmt_section(&sec, v, 3, w);
        resection(&file, &enc, EZ_PROOF_MAGIC, EZ_PF_NSEC, EZ_PF_SEC_STATEMENT, sec.data, sec.len);
        ck_assert_uint_eq(file.len, enc.len);
        ck_assert(memcmp(file.data, enc.data, enc.len) == 0);
        ez_writer_clear(&file);
        ez_writer_clear(&sec);
        /* refused: one byte wider than needed (w < 8), widths 0 and 9 (once, at w = 8),
         * three values in the bytes of two */
        const unsigned bad[3] = {w + 1, 0, 9};
        for (int k = w < 8 ? 0 : 1; k < (w < 8 ? 2 : 3); k++) {
            /* width 9: a count of 3 with no value bytes behind it (9-byte values cannot
             * be written from int64) */
            stmt_section(&sec, v, bad[k] == 9 ? 0 : 3, bad[k]);
            if (bad[k] == 9)
                sec.data[12] = 3;
            resection(&file, &enc, EZ_PROOF_MAGIC, EZ_PF_NSEC, EZ_PF_SEC_STATEMENT, sec.data, sec.len);
            ck_assert_int_eq(ez_proof_decode(&back, file.data, file.len, &d), EZ_ERR_FORMAT);
            ck_assert_str_eq(d.msg, "proof: malformed statement (tensor 0)");
            ez_writer_clear(&file);
            ez_writer_clear(&sec);
        }
        stmt_section(&sec, v, 2, w);
        sec.data[12] = 3; /* the count says 3, two values follow */
        resection(&file, &enc, EZ_PROOF_MAGIC, EZ_PF_NSEC, EZ_PF_SEC_STATEMENT, sec.data, sec.len);
        ck_assert_int_eq(ez_proof_decode(&back, file.data, file.len, &d), EZ_ERR_FORMAT);
        ez_writer_clear(&file);
        ez_writer_clear(&sec);
        ez_writer_clear(&enc);
        ez_proof_clear(&pf);
    }
}
END_TEST

static void tiny_vk(ez_pfx *f, ez_writer *w)
{
    ez_diag d = {{0}};
    ez_vk vk;
    ez_writer_init(w);
    ck_assert_int_eq(
        ez_vk_encode(w, &f->plan, ez_pcs_prover_commitment(f->w), f->wrange.data, f->wrange.len, &d), EZ_OK);
    ck_assert_msg(ez_vk_decode(&vk, w->data, w->len, &d) == EZ_OK, "%s", d.msg);
    ez_vk_clear(&vk);
}

/* VK-present, VK-trailing, VK-lens: the weight-commitment section (2) of a vk: a presence
 * byte of 2; a byte after the commitment; "no weights" for a model with weights; one
 * committed length changed. */
START_TEST(test_vk_weight_section)
{
    ez_pfx f;
    ez_vk vk;
    ez_diag d = {{0}};
    ez_writer w, bad;
    tiny_open(&f);
    tiny_vk(&f, &w);
    /* the presence byte: 2 reads as "present" without the check */
    edit_section(&bad, &w, EZ_VK_MAGIC, 3, 2, 0, 0, 2);
    ck_assert_int_eq(ez_vk_decode(&vk, bad.data, bad.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "verifying key: malformed weight commitment");
    ez_writer_clear(&bad);
    edit_section(&bad, &w, EZ_VK_MAGIC, 3, 2, 1, 0, 0);
    ck_assert_int_eq(ez_vk_decode(&vk, bad.data, bad.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "verifying key: trailing bytes after the weight commitment");
    ez_writer_clear(&bad);
    /* no commitment at all for a model with a weight */
    const uint8_t none = 0;
    resection(&bad, &w, EZ_VK_MAGIC, 3, 2, &none, 1);
    ck_assert_int_eq(ez_vk_decode(&vk, bad.data, bad.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "the weight commitment does not match the model's weights");
    ez_writer_clear(&bad);
    /* lens[0]'s first byte: presence (1) | scheme (1) | lc (4) | [part_log (1), WHIR] |
     * npolys, runs, the first run's count (LEB128, lib/pcs.h: one byte each here) */
    ez_section_view sec[4];
    ck_assert_int_eq(ez_sections_read(w.data, w.len, EZ_VK_MAGIC, "test", 3, false, sec, &d), EZ_OK);
    const size_t np_at = 1 + 1 + 4 + (sec[2].data[1] == EZ_PCS_SCHEME_WHIR), at = np_at + 3;
    for (size_t i = np_at; i < at; i++)
        ck_assert_uint_lt(sec[2].data[i], 0x80);
    /* one weight poly, then (WHIR: a deferred range proof) the range proof's advice polys */
    ez_wshape W;
    ck_assert_int_eq(ez_wshape_build(&W, &f.plan, sec[2].data[1], &d), EZ_OK);
    ck_assert_uint_eq(W.nw, 1);
    ck_assert_uint_eq(sec[2].data[np_at], W.n);
    ck_assert_uint_eq(W.n, sec[2].data[1] == EZ_PCS_SCHEME_WHIR ? 1 + W.L.npolys : 1);
    ez_wshape_clear(&W);
    edit_section(&bad, &w, EZ_VK_MAGIC, 3, 2, 0, at, (uint8_t)(sec[2].data[at] ^ 1));
    ck_assert_int_eq(ez_vk_decode(&vk, bad.data, bad.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "the weight commitment does not match the model's weights");
    ez_writer_clear(&bad);
    ez_writer_clear(&w);
    ez_pfx_free(&f);
}
END_TEST

/* PK-digest, PK-width: a pk read against another model's digest; a pk holding a weight
 * one past its 4-bit width (8). */
START_TEST(test_pk_digest_and_width)
{
    ez_pfx f;
    ez_pk pk;
    ez_diag d = {{0}};
    ez_writer w;
    tiny_open(&f);
    pk_bytes(&w, &f);
    ck_assert_msg(ez_pk_decode(&pk, &f.plan, w.data, w.len, &d) == EZ_OK, "%s", d.msg);
    ez_pk_clear(&pk);
    f.plan.digest[5] ^= 1;
    ck_assert_int_eq(ez_pk_decode(&pk, &f.plan, w.data, w.len, &d), EZ_ERR_INPUT);
    ck_assert_msg(strstr(d.msg, "the proving key belongs to another model") != NULL, "%s", d.msg);
    f.plan.digest[5] ^= 1;
    ez_writer_clear(&w);
    int wt = ez_plan_find_tensor(&f.plan, "w");
    ck_assert_int_ge(wt, 0);
    const int64_t keep = f.tr.t[wt][2];
    f.tr.t[wt][2] = 8;
    pk_bytes(&w, &f);
    ck_assert_int_eq(ez_pk_decode(&pk, &f.plan, w.data, w.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "proving key: weight 'w' has a value outside its 4-bit width");
    ez_writer_clear(&w);
    f.tr.t[wt][2] = -9;
    pk_bytes(&w, &f);
    ck_assert_int_eq(ez_pk_decode(&pk, &f.plan, w.data, w.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "proving key: weight 'w' has a value outside its 4-bit width");
    ez_writer_clear(&w);
    f.tr.t[wt][2] = keep;
    ez_pfx_free(&f);
}
END_TEST

/* PK-compact (1.2): the weights take their width's bytes (1 for the 4-bit w: the section
 * is u64 count + u32 tensor + u64 n + u8 width + 4 bytes), sign-extended back exactly; a
 * width byte that is not the plan's, and a pk of 1.1, are refused with their reasons. */
START_TEST(test_pk_compact_weights)
{
    ez_pfx f;
    ez_pk pk;
    ez_diag d = {{0}};
    ez_writer w, bad;
    tiny_open(&f);
    int wt = ez_plan_find_tensor(&f.plan, "w");
    ck_assert_int_ge(wt, 0);
    const int64_t vals[4] = {-8, 7, -1, 0}; /* both ends of 4 bits, and the sign boundary */
    int64_t keep[4];
    for (int i = 0; i < 4; i++) {
        keep[i] = f.tr.t[wt][i];
        f.tr.t[wt][i] = vals[i];
    }
    pk_bytes(&w, &f);
    ez_section_view ws = pk_section(&w, 2);
    ck_assert_uint_eq(ws.len, 8 + 4 + 8 + 1 + 4);
    ck_assert_uint_eq(ws.data[20], 1);
    static const unsigned bytes_of_bits[][2] = {{4, 1}, {9, 2}, {16, 2}, {17, 3}, {24, 3}, {33, 5}, {63, 8}};
    for (size_t i = 0; i < sizeof bytes_of_bits / sizeof bytes_of_bits[0]; i++)
        ck_assert_uint_eq(ez_pk_weight_bytes(bytes_of_bits[i][0]), bytes_of_bits[i][1]);
    ck_assert_msg(ez_pk_decode(&pk, &f.plan, w.data, w.len, &d) == EZ_OK, "%s", d.msg);
    ck_assert_uint_eq(pk.nweights, 1);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pk.weights[0].v[i], vals[i]);
    ez_pk_clear(&pk);
    /* a width byte of 2 for the 4-bit weight */
    edit_section(&bad, &w, EZ_PK_MAGIC, 4, 2, 0, 20, 2);
    ck_assert_int_eq(ez_pk_decode(&pk, &f.plan, bad.data, bad.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "proving key: weight 'w' is malformed");
    ez_writer_clear(&bad);
    /* the same bytes labelled 1.1 */
    w.data[6] = 1;
    w.data[7] = 0;
    ck_assert_int_eq(ez_pk_decode(&pk, &f.plan, w.data, w.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "proving key: format version 1.1 predates this build's 1.11 (run einzk setup again)");
    ez_writer_clear(&w);
    for (int i = 0; i < 4; i++)
        f.tr.t[wt][i] = keep[i];
    ez_pfx_free(&f);
}
END_TEST

/* SE-wopen-done, SE-aopen-done: a byte after the weight opening (empty: the model has no
 * weights) and after the advice opening, on the unbatched path (no weight commitment to
 * batch with). */
START_TEST(test_opening_sections_trailing_byte)
{
    ez_pfx f;
    ez_diag why = {{0}};
    ez_pfx_compile(&f, "model nw\nparam S = 2, D = 4\nbits 8\nscale 0\ninput x[S, D] @bits(6)\n"
                       "y[s, d] = x[s, d] + x[s, d]\nz[s, e] = y[s, d] * x[s, e]\noutput z\n");
    ez_pfx_run(&f, "opening_trailing", 7);
    ck_assert_ptr_null(f.w);
    ez_proof pf;
    ez_pfx_prove(&f, false, &pf);
    ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "%s", why.msg);
    static const int sec[2] = {EZ_PF_SEC_OPEN_W, EZ_PF_SEC_OPEN_A};
    static const char *name[2] = {"weight opening", "advice opening"};
    for (int k = 0; k < 2; k++) {
        ez_writer_u8(&pf.sec[sec[k]], 0);
        ck_assert(!ez_pfx_verify(&f, &pf, &why));
        char want[64];
        snprintf(want, sizeof want, "%s: 1 unexpected trailing bytes", name[k]);
        ck_assert_msg(strstr(why.msg, want) != NULL && strstr(why.msg, "batched") == NULL, "%s", why.msg);
        pf.sec[sec[k]].len--;
    }
    ck_assert_msg(ez_pfx_verify(&f, &pf, &why), "%s", why.msg);
    ez_proof_clear(&pf);
    ez_pfx_free(&f);
}
END_TEST

/* The proof made with the pk's prover (its stacked vector rebuilt from the pk's weights,
 * 1.11) against the one made in memory by the prover that committed (f->w): the same
 * bytes, and accepted. scheme: the weight commitment's; with spill, the rebuilt vector
 * goes straight to EZ_SPILL_DIR. */
static void pk_proof_same(ez_pfx *f, unsigned scheme, bool spill)
{
    ez_diag d = {{0}};
    char dir[] = "/tmp/ez-pkvec.XXXXXX";
    if (scheme != EZ_PCS_DEFAULT_SCHEME) {
        ez_pcs_prover_free(f->w);
        ez_pcs_commitment_clear(&f->wcom);
        ez_writer_clear(&f->wrange);
        ck_assert_int_eq(ez_weights_commit_scheme(&f->w, &f->wcom, &f->plan, &f->tr, scheme, &d), EZ_OK);
        ez_writer_init(&f->wrange);
        ck_assert_msg(ez_prove_weight_range(&f->plan, &f->tr, f->w, false, &f->wrange, &d) == EZ_OK, "%s", d.msg);
    }
    ez_proof mem, fromkey;
    ez_writer a, b, w;
    ez_pfx_prove(f, false, &mem);
    ez_writer_init(&a);
    ck_assert_int_eq(ez_proof_encode(&a, &mem, NULL), EZ_OK);
    pk_bytes(&w, f);
    if (spill) {
        ck_assert_ptr_nonnull(mkdtemp(dir));
        ck_assert_int_eq(setenv("EZ_SPILL_DIR", dir, 1), 0);
    }
    ez_pk pk;
    ez_status st = ez_pk_decode(&pk, &f->plan, w.data, w.len, &d);
    if (spill)
        ck_assert_int_eq(unsetenv("EZ_SPILL_DIR"), 0);
    ck_assert_msg(st == EZ_OK, "%s", d.msg);
    if (spill && scheme == EZ_PCS_SCHEME_WHIR)
        ck_assert(pk.pcs->whir[0]->s_spilled);
    ez_pcs_prover *own = f->w;
    f->w = pk.pcs;
    ez_pfx_prove(f, false, &fromkey);
    f->w = own;
    ez_writer_init(&b);
    ck_assert_int_eq(ez_proof_encode(&b, &fromkey, NULL), EZ_OK);
    ck_assert_uint_eq(a.len, b.len);
    ck_assert_mem_eq(a.data, b.data, a.len);
    ck_assert_msg(ez_pfx_verify(f, &fromkey, &d), "%s", d.msg);
    ez_pk_clear(&pk);
    if (spill)
        ck_assert_int_eq(rmdir(dir), 0); /* every spill file unlinked */
    ez_proof_clear(&mem);
    ez_proof_clear(&fromkey);
    ez_writer_clear(&a);
    ez_writer_clear(&b);
    ez_writer_clear(&w);
}

/* PK-stack (1.11): the pk holds no stacked vector; its prover proves the same bytes as the
 * committing one, with WHIR (the tiny model's range proof deferred: the advice rebuilt
 * too) and with Ligero (its encoded matrix still stored), in memory and spilled. */
START_TEST(test_pk_rebuilds_stack)
{
    static const unsigned schemes[] = {EZ_PCS_SCHEME_WHIR, EZ_PCS_SCHEME_LIGERO_P1};
    for (int k = 0; k < 2; k++)
        for (int spill = 0; spill < 2; spill++) {
            ez_pfx f;
            tiny_open(&f);
            ck_assert(ez_weights_deferred(&f.plan, &f.wcom)); /* the advice is in S too */
            pk_proof_same(&f, schemes[k], spill);
            ez_pfx_free(&f);
        }
}
END_TEST

/* Weights at both ends of their width, -1 (the field's p - 1), 0 and 1, cycling. */
static int64_t edge_value(void *ctx, const ez_plan_tensor *t, uint64_t e, uint64_t r)
{
    (void)ctx;
    (void)r;
    if (t->kind != EZ_TENSOR_WEIGHT) /* x one-hot in d: y[s, e] = w[0, e], no overflow */
        return e % 3 == 0;
    int64_t top = (int64_t)((UINT64_C(1) << (t->bits - 1)) - 1), edges[5] = {-top - 1, top, -1, 0, 1};
    return edges[e % 5];
}

/* PK-widths: declared widths 2 to 59 bits (1 to 8 bytes in the pk; 59 the widest this
 * model compiles, the language allows 62), weights at their edges and negative, on a
 * 3 x 3 weight (interior padding: committed on its support): the pk's prover proves the
 * same bytes, which verify. */
START_TEST(test_pk_widths)
{
    static const unsigned widths[] = {2, 8, 9, 16, 17, 24, 32, 33, 40, 48, 56, 57, 59};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        char src[256];
        snprintf(src, sizeof src,
                 "model pkw\nparam S = 2, D = 3, E = 3\nbits 62\nscale 0\ninput x[S, D] @bits(2)\n"
                 "weight w[D, E] @bits(%u)\ny[s, e] = x[s, d] * w[d, e]\noutput y\n",
                 widths[i]);
        ez_pfx f;
        ez_pfx_compile(&f, src);
        ez_pfx_run_values(&f, "pk_widths", edge_value, NULL);
        pk_proof_same(&f, EZ_PCS_SCHEME_WHIR, false);
        ez_pfx_free(&f);
    }
}
END_TEST

/* PK-corrupt: a weight changed inside its width is read (the pk's weights are only
 * range-checked) and its prover's proof is rejected: the rebuilt vector is not the
 * committed one; a changed leaf digest is refused (its root); a pk of 1.10 (with the
 * stacked vector) is refused, saying to run setup again. */
START_TEST(test_pk_corrupt)
{
    ez_pfx f;
    ez_pk pk;
    ez_diag d = {{0}};
    ez_writer w, bad;
    tiny_open(&f);
    pk_bytes(&w, &f);
    ez_section_view ws = pk_section(&w, 2), pc = pk_section(&w, 3);
    /* the first weight's byte (u64 count, u32 tensor, u64 n, u8 width): another 4-bit value */
    uint8_t old = ws.data[21];
    edit_section(&bad, &w, EZ_PK_MAGIC, 4, 2, 0, 21, old == 7 ? 6 : (uint8_t)(old + 1) & 0x7);
    ck_assert_msg(ez_pk_decode(&pk, &f.plan, bad.data, bad.len, &d) == EZ_OK, "%s", d.msg);
    ez_pcs_prover *own = f.w;
    f.w = pk.pcs;
    ez_proof pf;
    ez_pfx_prove(&f, false, &pf);
    f.w = own;
    ck_assert(!ez_pfx_verify(&f, &pf, &d));
    ez_proof_clear(&pf);
    ez_pk_clear(&pk);
    ez_writer_clear(&bad);
    /* the last leaf digest's first byte (inside its 26 bytes: canonical, another root) */
    edit_section(&bad, &w, EZ_PK_MAGIC, 4, 3, 0, pc.len - 32, pc.data[pc.len - 32] ^ 1);
    ck_assert_int_eq(ez_pk_decode(&pk, &f.plan, bad.data, bad.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "proving key: malformed commitment data");
    ez_writer_clear(&bad);
    /* 1.10 */
    ck_assert_uint_eq(w.data[6], EZ_PK_MINOR);
    w.data[6] = 10;
    ck_assert_int_eq(ez_pk_decode(&pk, &f.plan, w.data, w.len, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "proving key: format version 1.10 predates this build's 1.11 (run einzk setup again)");
    ez_writer_clear(&w);
    ez_pfx_free(&f);
}
END_TEST

Suite *ez_suite_proofio(void)
{
    const TTest *tests[] = {test_statement_entry_swapped, test_statement_output_above_bound,
        test_proof_statement_trailing_byte, test_statement_widths, test_vk_weight_section, test_pk_digest_and_width,
        test_pk_compact_weights, test_opening_sections_trailing_byte, test_pk_rebuilds_stack, test_pk_widths,
        test_pk_corrupt};
    return ez_test_suite("proofio", "core", 0, tests, sizeof tests / sizeof tests[0]);
}
