/* Shared helpers for the Check suites (testutil.h): tampered proofs, plans from source. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/diag.h"
#include "compiler/einc.h"
#include "compiler/lower.h"
#include "compiler/schedule.h"
#include "compiler/sema.h"

size_t ez_tamper_bytes(const uint8_t *proof, size_t len, const ez_tamper_opts *o, ez_tamper_accepts_fn accepts,
                       void *ctx, const char *what)
{
    uint8_t *buf = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(buf);
    size_t n = 0;
    for (size_t i = 0; i < len; i += o->stride ? o->stride : 1, n++) {
        memcpy(buf, proof, len);
        uint8_t m = o->mask ? o->mask : (uint8_t)(1u << (o->rng ? ez_rng_next(o->rng) % 8 : i % 8));
        buf[i] ^= m;
        ez_status st = EZ_OK;
        ck_assert_msg(!accepts(ctx, buf, len, &st), "%s: byte %zu ^ 0x%02x accepted", what, i, m);
        if (o->must_reject)
            ck_assert_msg(st == EZ_ERR_REJECT, "%s: byte %zu ^ 0x%02x: status %d, expected a rejection", what, i,
                          m, (int)st);
    }
    free(buf);
    return n;
}

void ez_tamper_truncations(const uint8_t *proof, size_t len, bool must_reject, ez_tamper_accepts_fn accepts,
                           void *ctx, const char *what)
{
    for (size_t l = 0; l < len; l++) {
        uint8_t *cut = malloc(l ? l : 1); /* an exact-size copy: ASan sees overreads */
        ck_assert_ptr_nonnull(cut);
        memcpy(cut, proof, l);
        ez_status st = EZ_OK;
        bool ok = accepts(ctx, cut, l, &st);
        free(cut);
        ck_assert_msg(!ok, "%s: the first %zu bytes accepted", what, l);
        if (must_reject)
            ck_assert_msg(st == EZ_ERR_REJECT, "%s: the first %zu bytes: status %d, expected a rejection", what,
                          l, (int)st);
    }
}

void ez_tamper_fe2(uint8_t *p)
{
    ez_fe2 v;
    ck_assert_msg(ez_fe2_decode(&v, p), "not an encoded extension element");
    ez_fe2_encode(p, ez_fe2_add(v, ez_fe2_one()));
}

void ez_test_compile_plan(ez_plan *plan, const char *src)
{
    ez_plan_init(plan);
    ez_diag_list diags;
    ez_program *prog = NULL;
    ez_diag d = {{0}};
    ez_status st = ez_compile_front("test.ein", src, strlen(src), NULL, 0, &diags, &prog);
    if (st != EZ_OK) {
        char *text = NULL;
        if (ez_diag_render(&diags, &text) == EZ_OK && text)
            fprintf(stderr, "%s", text);
        free(text);
    }
    ck_assert_int_eq(st, EZ_OK);
    ck_assert_msg(ez_lower(plan, prog, "test", &d) == EZ_OK, "%s", d.msg);
    ck_assert_msg(ez_plan_schedule(plan, &d) == EZ_OK, "%s", d.msg);
    ck_assert_int_eq(ez_plan_compute_digest(plan, &d), EZ_OK);
    ez_program_free(prog);
    ez_diag_list_clear(&diags);
}
