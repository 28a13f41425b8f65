/* transcript: SHA-256 known answers through nettle, a pinned transcript known answer
 * (so the byte format cannot drift silently), determinism, and sensitivity of the
 * challenges to every absorbed byte, label, type and message boundary. */
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>

#include "lib/transcript.h"
#include "tests/testutil.h"

static void hex(char *out, const uint8_t *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = 0;
}

/* FIPS 180-2 Appendix B.1 and B.2. */
START_TEST(test_sha256_kat)
{
    struct sha256_ctx h;
    uint8_t d[32];
    char s[65];
    sha256_init(&h);
    sha256_update(&h, 3, (const uint8_t *)"abc");
    sha256_digest(&h, 32, d);
    hex(s, d, 32);
    ck_assert_str_eq(s, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_init(&h);
    sha256_update(&h, strlen(m2), (const uint8_t *)m2);
    sha256_digest(&h, 32, d);
    hex(s, d, 32);
    ck_assert_str_eq(s, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

/* The init record, recomputed by hand from the documented format:
 * SHA256(0^32 || 0x01 || u64 len || "einzk-transcript-sha256-v1" || u64 len || domain). */
START_TEST(test_init_format)
{
    const char *fmt = "einzk-transcript-sha256-v1", *dom = "kat";
    uint8_t buf[128], d[32];
    size_t n = 0;
    memset(buf, 0, 32);
    n = 32;
    buf[n++] = 0x01;
    uint64_t l = strlen(fmt);
    for (int i = 0; i < 8; i++)
        buf[n++] = (uint8_t)(l >> (8 * i));
    memcpy(buf + n, fmt, l);
    n += l;
    l = strlen(dom);
    for (int i = 0; i < 8; i++)
        buf[n++] = (uint8_t)(l >> (8 * i));
    memcpy(buf + n, dom, l);
    n += l;
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, n, buf);
    sha256_digest(&h, 32, d);
    ez_transcript t;
    ez_transcript_init(&t, dom);
    ck_assert_mem_eq(t.state, d, 32);
    ck_assert_uint_eq(t.nmsg, 1);
    /* A u64 absorb: SHA256(state || 0x03 || u64 5 || "label" || u64 8 || LE(v)). */
    n = 0;
    memcpy(buf, t.state, 32);
    n = 32;
    buf[n++] = 0x03;
    buf[n++] = 5;
    memset(buf + n, 0, 7);
    n += 7;
    memcpy(buf + n, "label", 5);
    n += 5;
    buf[n++] = 8;
    memset(buf + n, 0, 7);
    n += 7;
    uint64_t v = UINT64_C(0x0102030405060708);
    for (int i = 0; i < 8; i++)
        buf[n++] = (uint8_t)(v >> (8 * i));
    sha256_init(&h);
    sha256_update(&h, n, buf);
    sha256_digest(&h, 32, d);
    ez_transcript_absorb_u64(&t, "label", v);
    ck_assert_mem_eq(t.state, d, 32);
}
END_TEST

/* Computed by an independent Python (hashlib) model of the format in
 * docs/protocol-kernel-sumcheck.md §1, not by this library. */
#define KAT_STATE "26e5aeefdcc3157d4dcafdb8aa3690275837e4a35a2723599e2fd2127c6b1818"
#define KAT_C0_0 UINT64_C(18087675415989870772)
#define KAT_C0_1 UINT64_C(5431564178159395278)
#define KAT_C2_0 UINT64_C(6143800918220326111)
#define KAT_C2_1 UINT64_C(17603355391682060801)
#define KAT_IDX 689

/* A fixed script whose outputs are pinned: any change of the byte format, the tags or
 * the sampling changes these constants. */
static void kat_script(ez_transcript *t, ez_fe2 *c, uint64_t *idx)
{
    ez_transcript_init(t, "einzk/test/kat");
    ez_transcript_absorb_bytes(t, "bytes", "hello", 5);
    ez_transcript_absorb_u64(t, "u64", 42);
    ez_fe v[3] = {1, 2, EZ_P - 1};
    ez_transcript_absorb_fe(t, "fe", v, 3);
    ez_fe2 w[2] = {{3, 4}, {EZ_P - 5, 6}};
    ez_transcript_absorb_fe2(t, "fe2", w, 2);
    c[0] = ez_transcript_challenge_fe2(t, "c0");
    ez_transcript_challenges_fe2(t, "c12", c + 1, 2);
    *idx = ez_transcript_challenge_index(t, "idx", 1000);
}

START_TEST(test_transcript_kat)
{
    ez_transcript t;
    ez_fe2 c[3];
    uint64_t idx;
    kat_script(&t, c, &idx);
    char s[65];
    hex(s, t.state, 32);
    ck_assert_str_eq(s, KAT_STATE);
    ck_assert_uint_eq(c[0].c0, KAT_C0_0);
    ck_assert_uint_eq(c[0].c1, KAT_C0_1);
    ck_assert_uint_eq(c[2].c0, KAT_C2_0);
    ck_assert_uint_eq(c[2].c1, KAT_C2_1);
    ck_assert_uint_eq(idx, KAT_IDX);
    ck_assert_uint_eq(t.nmsg, 8);
}
END_TEST

START_TEST(test_determinism_and_fork)
{
    ez_transcript a, b;
    ez_fe2 ca[3], cb[3];
    uint64_t ia, ib;
    kat_script(&a, ca, &ia);
    kat_script(&b, cb, &ib);
    ck_assert_mem_eq(a.state, b.state, 32);
    ck_assert_mem_eq(ca, cb, sizeof ca);
    ck_assert_uint_eq(ia, ib);
    /* Copying the struct forks it: both copies continue identically. */
    ez_transcript f = a;
    ez_fe2 x = ez_transcript_challenge_fe2(&a, "x"), y = ez_transcript_challenge_fe2(&f, "x");
    ck_assert(ez_fe2_eq(x, y));
    /* Two challenges in a row differ, and so do the states. */
    ez_fe2 z = ez_transcript_challenge_fe2(&a, "x");
    ck_assert(!ez_fe2_eq(x, z));
    /* A batch of n is not n singles (it is its own event), but each is canonical. */
    ez_fe2 many[64];
    ez_transcript_challenges_fe2(&a, "many", many, 64);
    for (int i = 0; i < 64; i++) {
        ck_assert_uint_lt(many[i].c0, EZ_P);
        ck_assert_uint_lt(many[i].c1, EZ_P);
        for (int j = 0; j < i; j++)
            ck_assert(!ez_fe2_eq(many[i], many[j]));
    }
}
END_TEST

static ez_fe2 chal_after_bytes(const char *dom, const char *label, const uint8_t *msg, size_t n)
{
    ez_transcript t;
    ez_transcript_init(&t, dom);
    ez_transcript_absorb_bytes(&t, label, msg, n);
    return ez_transcript_challenge_fe2(&t, "c");
}

START_TEST(test_every_byte_matters)
{
    ez_rng r = ez_rng_for("every_byte_matters");
    uint8_t msg[80];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)ez_rng_next(&r);
    ez_fe2 base = chal_after_bytes("d", "m", msg, sizeof msg);
    for (size_t i = 0; i < sizeof msg; i++)
        for (int bit = 0; bit < 8; bit += 3) {
            msg[i] ^= (uint8_t)(1u << bit);
            ck_assert(!ez_fe2_eq(base, chal_after_bytes("d", "m", msg, sizeof msg)));
            msg[i] ^= (uint8_t)(1u << bit);
        }
    /* Length, label and domain are bound too. */
    ck_assert(!ez_fe2_eq(base, chal_after_bytes("d", "m", msg, sizeof msg - 1)));
    ck_assert(!ez_fe2_eq(base, chal_after_bytes("d", "n", msg, sizeof msg)));
    ck_assert(!ez_fe2_eq(base, chal_after_bytes("e", "m", msg, sizeof msg)));
    ck_assert(ez_fe2_eq(base, chal_after_bytes("d", "m", msg, sizeof msg)));
}
END_TEST

START_TEST(test_boundaries_and_types)
{
    ez_transcript a, b;
    /* "ab" in one message differs from "a" then "b". */
    ez_transcript_init(&a, "d");
    ez_transcript_init(&b, "d");
    ez_transcript_absorb_bytes(&a, "m", "ab", 2);
    ez_transcript_absorb_bytes(&b, "m", "a", 1);
    ez_transcript_absorb_bytes(&b, "m", "b", 1);
    ck_assert(!ez_fe2_eq(ez_transcript_challenge_fe2(&a, "c"), ez_transcript_challenge_fe2(&b, "c")));
    /* Label/data boundary: label "ab" + data "c" vs label "a" + data "bc". */
    ez_transcript_init(&a, "d");
    ez_transcript_init(&b, "d");
    ez_transcript_absorb_bytes(&a, "ab", "c", 1);
    ez_transcript_absorb_bytes(&b, "a", "bc", 2);
    ck_assert(!ez_fe2_eq(ez_transcript_challenge_fe2(&a, "c"), ez_transcript_challenge_fe2(&b, "c")));
    /* The same 8 bytes as a u64, as bytes, and as a field element are three events. */
    uint8_t le[8] = {7, 0, 0, 0, 0, 0, 0, 0};
    ez_fe seven = 7;
    ez_fe2 out[3];
    for (int k = 0; k < 3; k++) {
        ez_transcript_init(&a, "d");
        if (k == 0)
            ez_transcript_absorb_u64(&a, "v", 7);
        else if (k == 1)
            ez_transcript_absorb_bytes(&a, "v", le, 8);
        else
            ez_transcript_absorb_fe(&a, "v", &seven, 1);
        out[k] = ez_transcript_challenge_fe2(&a, "c");
    }
    ck_assert(!ez_fe2_eq(out[0], out[1]));
    ck_assert(!ez_fe2_eq(out[0], out[2]));
    ck_assert(!ez_fe2_eq(out[1], out[2]));
    /* fe2 {a, b} differs from fe {a, b}; an empty absorb still counts. */
    ez_fe2 e2 = {1, 2};
    ez_fe e1[2] = {1, 2};
    ez_transcript_init(&a, "d");
    ez_transcript_init(&b, "d");
    ez_transcript_absorb_fe2(&a, "v", &e2, 1);
    ez_transcript_absorb_fe(&b, "v", e1, 2);
    ck_assert(!ez_fe2_eq(ez_transcript_challenge_fe2(&a, "c"), ez_transcript_challenge_fe2(&b, "c")));
    ez_transcript_init(&a, "d");
    ez_transcript_init(&b, "d");
    ez_transcript_absorb_bytes(&a, "v", NULL, 0);
    ck_assert_uint_eq(a.nmsg, 2);
    ck_assert(!ez_fe2_eq(ez_transcript_challenge_fe2(&a, "c"), ez_transcript_challenge_fe2(&b, "c")));
    /* The challenge label matters too. */
    ez_transcript_init(&a, "d");
    ez_transcript_init(&b, "d");
    ck_assert(!ez_fe2_eq(ez_transcript_challenge_fe2(&a, "c"), ez_transcript_challenge_fe2(&b, "C")));
}
END_TEST

START_TEST(test_challenge_index)
{
    ez_transcript t;
    ez_transcript_init(&t, "index");
    ck_assert_uint_eq(ez_transcript_challenge_index(&t, "i", 1), 0);
    /* Uniformity, roughly: 6 buckets x 6000 draws, each within 5 sigma of 1000. */
    unsigned cnt[6] = {0};
    for (int i = 0; i < 6000; i++) {
        uint64_t x = ez_transcript_challenge_index(&t, "i", 6);
        ck_assert_uint_lt(x, 6);
        cnt[x]++;
    }
    for (int k = 0; k < 6; k++) {
        ck_assert_uint_gt(cnt[k], 1000 - 5 * 29);
        ck_assert_uint_lt(cnt[k], 1000 + 5 * 29);
    }
    /* A bound just above 2^63 rejects almost half the words: still in range. */
    uint64_t big = (UINT64_C(1) << 63) + 12345;
    for (int i = 0; i < 200; i++)
        ck_assert_uint_lt(ez_transcript_challenge_index(&t, "i", big), big);
    ck_assert_uint_lt(ez_transcript_challenge_index(&t, "i", UINT64_MAX), UINT64_MAX);
}
END_TEST

/* A long vector of field elements is absorbed in batches (lib/transcript.c): every
 * element, in every batch, changes the challenge — a verifier absorbing only a prefix
 * of a long message (a statement, an evaluation row) would let the rest be chosen after
 * the challenges. */
static ez_fe2 chal_after_elems(const ez_fe *fe, const ez_fe2 *fe2, size_t n)
{
    ez_transcript t;
    ez_transcript_init(&t, "d");
    if (fe)
        ez_transcript_absorb_fe(&t, "v", fe, n);
    else
        ez_transcript_absorb_fe2(&t, "v", fe2, n);
    return ez_transcript_challenge_fe2(&t, "c");
}

START_TEST(test_every_element_matters)
{
    enum { N = 150 }; /* several 256-byte batches of either size */
    ez_rng r = ez_rng_for("every_element_matters");
    ez_fe fe[N];
    ez_fe2 fe2[N];
    for (size_t i = 0; i < N; i++) {
        fe[i] = ez_rng_fe(&r);
        fe2[i] = ez_rng_fe2(&r);
    }
    ez_fe2 b1 = chal_after_elems(fe, NULL, N), b2 = chal_after_elems(NULL, fe2, N);
    for (size_t i = 0; i < N; i++) {
        ez_fe keep = fe[i];
        fe[i] = ez_fe_add(keep, 1);
        ck_assert_msg(!ez_fe2_eq(b1, chal_after_elems(fe, NULL, N)), "base element %zu not bound", i);
        fe[i] = keep;
        ez_fe2 keep2 = fe2[i];
        fe2[i] = ez_fe2_add(keep2, ez_fe2_make(0, 1)); /* the second coordinate too */
        ck_assert_msg(!ez_fe2_eq(b2, chal_after_elems(NULL, fe2, N)), "extension element %zu not bound", i);
        fe2[i] = keep2;
    }
    ck_assert(ez_fe2_eq(b1, chal_after_elems(fe, NULL, N)));
    ck_assert(ez_fe2_eq(b2, chal_after_elems(NULL, fe2, N)));
}
END_TEST

/* Index challenges reject the tail of the word range that would bias w % bound: with
 * bound = 3 * 2^62 a plain remainder would land in [0, 2^62) half the time instead of a
 * third. 3000 draws from a fixed transcript (deterministic): a third is 1000 +- 26. */
START_TEST(test_challenge_index_unbiased)
{
    ez_transcript t;
    ez_transcript_init(&t, "index-bias");
    const uint64_t bound = UINT64_C(3) << 62;
    unsigned low = 0;
    for (int i = 0; i < 3000; i++) {
        uint64_t x = ez_transcript_challenge_index(&t, "i", bound);
        ck_assert_uint_lt(x, bound);
        low += x < (UINT64_C(1) << 62);
    }
    ck_assert_uint_gt(low, 1000 - 5 * 26);
    ck_assert_uint_lt(low, 1000 + 5 * 26);
}
END_TEST

/* Challenges are canonical: an output word >= p is rejected and the next one taken
 * (lib/transcript.c stream_fe). Such a word comes once in ~2^31 draws, so the transcript
 * below was found by an offline search (domain "einzk/test/canonical", u64 "k" = 1751,
 * then 65536 challenges "c"): word 0 of stream block 27844 is >= p. Without the
 * rejection that word would be a challenge coordinate outside [0, p). */
START_TEST(test_challenges_canonical)
{
    enum { N = 65536 };
    ez_fe2 *c = malloc(N * sizeof *c);
    ck_assert_ptr_nonnull(c);
    ez_transcript t;
    ez_transcript_init(&t, "einzk/test/canonical");
    ez_transcript_absorb_u64(&t, "k", 1751);
    ez_transcript_challenges_fe2(&t, "c", c, N);
    for (size_t i = 0; i < N; i++)
        ck_assert_msg(c[i].c0 < EZ_P && c[i].c1 < EZ_P, "challenge %zu is not canonical", i);
    free(c);
}
END_TEST

Suite *ez_suite_transcript(void)
{
    const TTest *tests[] = {test_sha256_kat, test_init_format, test_transcript_kat, test_determinism_and_fork,
        test_every_byte_matters, test_boundaries_and_types, test_challenge_index, test_every_element_matters,
        test_challenge_index_unbiased, test_challenges_canonical};
    return ez_test_suite("transcript", "sha256", 0, tests, sizeof tests / sizeof tests[0]);
}
