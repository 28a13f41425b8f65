/* io: safetensors reading/validation/writing, JSON inputs and outputs, quantization.
 * Every malformed case checks the status AND that the message names the file and the
 * field, because those messages are what a user sees. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/io/quant.h"
#include "runtime/io/safetensors.h"
#include "runtime/io/tensorio.h"
#include "tests/testutil.h"

/* ---- helpers ------------------------------------------------------------------- */

#define ck_assert_msg_has(d, sub)                                                        \
    ck_assert_msg(strstr((d).msg, (sub)) != NULL, "message \"%s\" lacks \"%s\"", (d).msg, (sub))

/* A safetensors image from a header text and a data area, with an explicit header
 * length field (normally strlen(header)). malloc'd, for ez_safetensors_parse. */
static uint8_t *mk_file_len(uint64_t hlen_field, const char *header, const void *data, size_t dlen,
                            size_t *len)
{
    size_t hl = strlen(header);
    *len = 8 + hl + dlen;
    uint8_t *b = malloc(*len);
    ck_assert_ptr_nonnull(b);
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(hlen_field >> (8 * i));
    memcpy(b + 8, header, hl);
    if (dlen)
        memcpy(b + 8 + hl, data, dlen);
    return b;
}

static uint8_t *mk_file(const char *header, const void *data, size_t dlen, size_t *len)
{
    return mk_file_len(strlen(header), header, data, dlen, len);
}

/* Parse a header with a zero-filled data area of dlen bytes. */
static ez_status parse_header(const char *header, size_t dlen, ez_diag *d)
{
    uint8_t *zeros = calloc(1, dlen + 1);
    size_t len;
    uint8_t *b = mk_file(header, zeros, dlen, &len);
    free(zeros);
    ez_safetensors st;
    memset(d->msg, 0, sizeof d->msg);
    ez_status s = ez_safetensors_parse(&st, b, len, "bad.safetensors", d);
    ez_safetensors_free(&st);
    return s;
}

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

static ez_tensor_spec spec(const char *name, unsigned rank, uint64_t d0, uint64_t d1, uint64_t d2)
{
    ez_tensor_spec s = {.name = name, .rank = rank};
    s.dims[0] = d0;
    s.dims[1] = d1;
    s.dims[2] = d2;
    return s;
}

static ez_tensor_spec token_spec(const char *name, uint64_t n, int64_t limit)
{
    ez_tensor_spec s = {.name = name, .rank = 1, .is_token = true, .token_limit = limit};
    s.dims[0] = n;
    return s;
}

/* ---- safetensors: round trip ------------------------------------------------------ */

START_TEST(test_st_roundtrip)
{
    ez_rng r = ez_rng_for("st_roundtrip");
    char dir[] = "/tmp/ezio-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/w.safetensors", dir);

    float a[2 * 3 * 4], b[5], c[1];
    for (size_t i = 0; i < 24; i++)
        a[i] = (float)((int64_t)(ez_rng_next(&r) % 2001) - 1000) / 7.0f;
    b[0] = -0.0f;
    b[1] = INFINITY;
    b[2] = NAN;
    b[3] = 1e-45f; /* smallest subnormal */
    b[4] = 3.4028235e38f;
    c[0] = 42.5f;
    const char *names[] = {"wq", "bias", "scalar", "empty"};
    const unsigned ranks[] = {3, 1, 0, 2};
    const uint64_t da[] = {2, 3, 4}, db[] = {5}, de[] = {3, 0};
    const uint64_t *dims[] = {da, db, NULL, de};
    const float *data[] = {a, b, c, NULL};
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_safetensors_write(path, 4, names, ranks, dims, data, &d), EZ_OK);

    ez_safetensors st;
    ck_assert_int_eq(ez_safetensors_load(&st, path, &d), EZ_OK);
    ck_assert_uint_eq(st.n, 4);
    /* header padded so the data area starts 8-aligned */
    uint64_t hl = 0;
    for (int i = 0; i < 8; i++)
        hl |= (uint64_t)st.bytes[i] << (8 * i);
    ck_assert_uint_eq(hl % 8, 0);

    const ez_st_tensor *t = ez_safetensors_find(&st, "wq");
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->dtype, EZ_ST_F32);
    EZ_TEST_DIMS(t->rank, t->dims, 2, 3, 4);
    ck_assert_uint_eq(t->numel, 24);
    ck_assert_uint_eq(t->nbytes, 96);
    double out[24];
    ck_assert_int_eq(ez_st_tensor_to_f64(t, out, &d), EZ_OK);
    for (size_t i = 0; i < 24; i++)
        ck_assert(out[i] == (double)a[i]);

    t = ez_safetensors_find(&st, "bias");
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(ez_st_tensor_to_f64(t, out, &d), EZ_OK);
    for (size_t i = 0; i < 5; i++)
        ck_assert(same_bits(out[i], (double)b[i]));
    ck_assert(signbit(out[0]));

    t = ez_safetensors_find(&st, "scalar");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(t->rank, 0);
    ck_assert_uint_eq(t->numel, 1);
    ck_assert_int_eq(ez_st_tensor_to_f64(t, out, &d), EZ_OK);
    ck_assert(out[0] == 42.5);

    t = ez_safetensors_find(&st, "empty");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(t->numel, 0);
    ck_assert_uint_eq(t->nbytes, 0);
    ck_assert_ptr_null(ez_safetensors_find(&st, "nope"));

    ez_tensor_spec specs[] = {spec("scalar", 0, 0, 0, 0), spec("wq", 3, 2, 3, 4),
                              spec("empty", 2, 3, 0, 0), spec("bias", 1, 5, 0, 0)};
    ck_assert_int_eq(ez_safetensors_check(&st, specs, 4, &d), EZ_OK);
    ez_safetensors_free(&st);
    ez_safetensors_free(&st); /* idempotent */

    /* the writer refuses what it could not write faithfully */
    const char *dup[] = {"w", "w"};
    const unsigned r1[] = {1, 1};
    const uint64_t *d1[] = {db, db};
    const float *p1[] = {b, b};
    ck_assert_int_eq(ez_safetensors_write(path, 2, dup, r1, d1, p1, &d), EZ_ERR_INVALID);
    ck_assert_msg_has(d, "duplicate");
    const char *meta[] = {"__metadata__"};
    ck_assert_int_eq(ez_safetensors_write(path, 1, meta, r1, d1, p1, &d), EZ_ERR_INVALID);

    ck_assert_int_eq(ez_safetensors_load(&st, "/nonexistent/x.safetensors", &d), EZ_ERR_IO);
    ck_assert_msg_has(d, "/nonexistent/x.safetensors");
    unlink(path);
    rmdir(dir);
}
END_TEST

/* ---- safetensors: checking against the model ------------------------------------ */

START_TEST(test_st_check)
{
    float z[24] = {0};
    const char *names[] = {"wq", "wo", "junk1", "junk2"};
    const unsigned ranks[] = {3, 2, 1, 1};
    const uint64_t da[] = {2, 3, 4}, db[] = {4, 2}, dc[] = {1};
    const uint64_t *dims[] = {da, db, dc, dc};
    const float *data[] = {z, z, z, z};
    ez_writer w;
    ez_writer_init(&w);
    ez_diag d = {{0}};
    ck_assert_int_eq(ez_safetensors_serialize(&w, 4, names, ranks, dims, data, &d), EZ_OK);
    ez_safetensors st;
    uint8_t *copy = malloc(w.len);
    memcpy(copy, w.data, w.len);
    ck_assert_int_eq(ez_safetensors_parse(&st, copy, w.len, "W.safetensors", &d), EZ_OK);
    ez_writer_clear(&w);

    ez_tensor_spec ok[] = {spec("wq", 3, 2, 3, 4), spec("wo", 2, 4, 2, 0)};
    ck_assert_int_eq(ez_safetensors_check(&st, ok, 2, &d), EZ_ERR_INPUT);
    ck_assert_str_eq(d.msg, "W.safetensors: 2 tensors not declared by the model: 'junk1', 'junk2'");

    ez_tensor_spec all[] = {spec("wq", 3, 2, 3, 4), spec("wo", 2, 4, 2, 0),
                            spec("junk1", 1, 1, 0, 0), spec("junk2", 1, 1, 0, 0)};
    ck_assert_int_eq(ez_safetensors_check(&st, all, 4, &d), EZ_OK);

    all[1] = spec("wo", 2, 2, 4, 0); /* transposed */
    ck_assert_int_eq(ez_safetensors_check(&st, all, 4, &d), EZ_ERR_INPUT);
    ck_assert_str_eq(d.msg, "W.safetensors: tensor 'wo': shape [4, 2], but the model declares "
                            "weight wo[2, 4]");
    all[1] = spec("wo", 3, 4, 2, 1); /* rank */
    ck_assert_int_eq(ez_safetensors_check(&st, all, 4, &d), EZ_ERR_INPUT);
    ck_assert_msg_has(d, "tensor 'wo': shape [4, 2]");
    all[1] = spec("wk", 2, 4, 2, 0); /* missing */
    ck_assert_int_eq(ez_safetensors_check(&st, all, 4, &d), EZ_ERR_INPUT);
    ck_assert_str_eq(d.msg, "W.safetensors: missing tensor 'wk' (the model declares weight wk[4, 2])");
    ez_safetensors_free(&st);
}
END_TEST

/* ---- safetensors: malformed files ------------------------------------------------ */

START_TEST(test_st_malformed)
{
    ez_diag d;
    static const struct {
        const char *header;
        size_t dlen;
        const char *want; /* a substring of the message */
    } cases[] = {
        {"[1, 2]", 0, "bad.safetensors: header: the JSON header is an array, expected an object"},
        {"{\"w\": 5}", 0, "bad.safetensors: tensor 'w': entry is an integer, expected an object"},
        {"{\"w\": {\"dtype\": \"F33\", \"shape\": [1], \"data_offsets\": [0, 4]}}", 4,
         "bad.safetensors: tensor 'w': dtype: unknown dtype 'F33'"},
        {"{\"w\": {\"dtype\": 32, \"shape\": [1], \"data_offsets\": [0, 4]}}", 4,
         "tensor 'w': dtype: an integer, expected a string"},
        {"{\"w\": {\"dtype\": \"F32\", \"data_offsets\": [0, 4]}}", 4,
         "bad.safetensors: tensor 'w': missing field 'shape'"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [1]}}", 4,
         "tensor 'w': missing field 'data_offsets'"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4], \"x\": 1}}", 4,
         "tensor 'w': unknown field 'x'"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": 1, \"data_offsets\": [0, 4]}}", 4,
         "tensor 'w': shape: an integer, expected an array"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [2, -1], \"data_offsets\": [0, 4]}}", 4,
         "bad.safetensors: tensor 'w': shape[1]: a negative integer"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [2.5], \"data_offsets\": [0, 4]}}", 4,
         "tensor 'w': shape[0]: a real number, expected a non-negative integer"},
        {"{\"w\": {\"dtype\": \"U8\", \"shape\": [1,1,1,1,1,1,1,1,1], \"data_offsets\": [0, 1]}}",
         1, "tensor 'w': shape: rank 9 exceeds the maximum 8"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4, 8]}}", 8,
         "tensor 'w': data_offsets: expected [begin, end]"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [-4, 0]}}", 8,
         "tensor 'w': data_offsets: expected [begin, end]"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [0], \"data_offsets\": [8, 4]}}", 8,
         "tensor 'w': data_offsets: begin 8 is after end 4"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [3], \"data_offsets\": [0, 12]}}", 8,
         "tensor 'w': data_offsets: end 12 is past the end of the data area (8 bytes)"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [0, 20]}}", 24,
         "tensor 'w': data_offsets: [0, 20] holds 20 bytes but F32 [2, 3] needs 24"},
        {"{\"w\": {\"dtype\": \"F64\", \"shape\": [4294967296, 4294967296], \"data_offsets\": [0, 0]}}",
         0, "tensor 'w': shape: F64 [4294967296, 4294967296] has more bytes than fit in 64 bits"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [4611686018427387904], \"data_offsets\": [0, 0]}}",
         0, "more bytes than fit in 64 bits"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
         " \"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [4, 12]}}",
         12, "bad.safetensors: tensor 'b': data_offsets: [4, 12] overlap tensor 'a' at [0, 8]"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
         " \"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}",
         8, "overlap tensor"},
        {"{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},"
         " \"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}",
         8, "bad.safetensors: header: invalid JSON at line 1, column"},
        {"{\"__metadata__\": [1]}", 0, "header: __metadata__ is an array, expected an object"},
        {"{\"__metadata__\": {\"k\": 1}}", 0, "header: __metadata__ 'k' is an integer"},
        {"{\"w\": {\"dtype\": \"F32\", ", 0, "bad.safetensors: header: invalid JSON"},
        {"", 0, "bad.safetensors: header: invalid JSON"},
        {"{\"w\\u0000x\": 1}", 0, "bad.safetensors: header: invalid JSON"},
        {"{\"\\u0001\\u001b[2J\": 5}", 0, "tensor '??[2J': entry is an integer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ez_status s = parse_header(cases[i].header, cases[i].dlen, &d);
        ck_assert_msg(s == EZ_ERR_FORMAT, "case %zu: status %d (%s)", i, (int)s, d.msg);
        ck_assert_msg(strstr(d.msg, cases[i].want) != NULL, "case %zu: \"%s\" lacks \"%s\"", i,
                      d.msg, cases[i].want);
    }
    /* the duplicate-name message says what is wrong */
    ck_assert_int_eq(parse_header("{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": "
                                  "[0, 4]}, \"w\": 1}", 8, &d),
                     EZ_ERR_FORMAT);
    ck_assert_msg_has(d, "duplicate object key");

    /* header length field: absurd, past the end, file shorter than the length field */
    size_t len;
    ez_safetensors st;
    uint8_t *b = mk_file_len(UINT64_C(1) << 63, "{}", NULL, 0, &len);
    ck_assert_int_eq(ez_safetensors_parse(&st, b, len, "bad.safetensors", &d), EZ_ERR_FORMAT);
    ck_assert_msg_has(d, "bad.safetensors: header: length 9223372036854775808 exceeds the limit");
    b = mk_file_len(UINT64_MAX, "{}", NULL, 0, &len);
    ck_assert_int_eq(ez_safetensors_parse(&st, b, len, "bad.safetensors", &d), EZ_ERR_FORMAT);
    b = mk_file_len(3, "{}", NULL, 0, &len);
    ck_assert_int_eq(ez_safetensors_parse(&st, b, len, "bad.safetensors", &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "bad.safetensors: header: length 3 runs past the end of the file "
                            "(10 bytes)");
    b = malloc(5);
    memset(b, 0, 5);
    ck_assert_int_eq(ez_safetensors_parse(&st, b, 5, "bad.safetensors", &d), EZ_ERR_FORMAT);
    ck_assert_msg_has(d, "bad.safetensors: header: file is 5 bytes, too short");
    ck_assert_int_eq(ez_safetensors_parse(&st, NULL, 0, NULL, &d), EZ_ERR_FORMAT);
    ck_assert_msg_has(d, "<memory>: header: file is 0 bytes");

    /* accepted: empty header object, metadata, gaps, trailing bytes, empty tensors that
     * sit inside or at the edge of other ranges, trailing spaces after the JSON */
    ck_assert_int_eq(parse_header("{}", 0, &d), EZ_OK);
    ck_assert_int_eq(parse_header("{\"__metadata__\": {\"format\": \"pt\"}}  ", 0, &d), EZ_OK);
    ck_assert_int_eq(parse_header("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": "
                                  "[8, 12]}, \"e\": {\"dtype\": \"I8\", \"shape\": [0, 5], "
                                  "\"data_offsets\": [9, 9]}, \"z\": {\"dtype\": \"BOOL\", "
                                  "\"shape\": [0], \"data_offsets\": [20, 20]}}",
                                  20, &d),
                     EZ_OK);
}
END_TEST

/* Every truncation of a valid file fails cleanly, and single byte flips never crash
 * (their status may be anything). */
START_TEST(test_st_truncations)
{
    float v[6] = {1, 2, 3, 4, 5, 6};
    const char *names[] = {"a", "bb"};
    const unsigned ranks[] = {2, 1};
    const uint64_t da[] = {2, 2}, db[] = {2};
    const uint64_t *dims[] = {da, db};
    const float *data[] = {v, v + 4};
    ez_writer w;
    ez_writer_init(&w);
    ez_diag d;
    ck_assert_int_eq(ez_safetensors_serialize(&w, 2, names, ranks, dims, data, &d), EZ_OK);
    for (size_t n = 0; n <= w.len; n++) {
        uint8_t *b = malloc(n ? n : 1);
        memcpy(b, w.data, n);
        ez_safetensors st;
        ez_status s = ez_safetensors_parse(&st, b, n, "t.safetensors", &d);
        ck_assert_int_eq(s, n == w.len ? EZ_OK : EZ_ERR_FORMAT);
        if (s != EZ_OK)
            ck_assert_msg(strncmp(d.msg, "t.safetensors: ", 15) == 0, "%s", d.msg);
        ez_safetensors_free(&st);
    }
    for (size_t i = 0; i < w.len; i++) {
        uint8_t *b = malloc(w.len);
        memcpy(b, w.data, w.len);
        b[i] ^= 0x5A;
        ez_safetensors st;
        if (ez_safetensors_parse(&st, b, w.len, "t.safetensors", &d) == EZ_OK) {
            double out[8];
            for (size_t k = 0; k < st.n; k++) {
                ck_assert_uint_le(st.tensors[k].numel, 8);
                (void)ez_st_tensor_to_f64(&st.tensors[k], out, &d);
            }
        }
        ez_safetensors_free(&st);
    }
    ez_writer_clear(&w);
}
END_TEST

/* ---- conversions ------------------------------------------------------------------ */

START_TEST(test_f16_bf16_bits)
{
    /* binary16 known answers */
    ck_assert(ez_f16_to_f64(0x3C00) == 1.0);
    ck_assert(ez_f16_to_f64(0xC000) == -2.0);
    ck_assert(ez_f16_to_f64(0x7BFF) == 65504.0);
    ck_assert(ez_f16_to_f64(0x3555) == 0.333251953125);
    ck_assert(ez_f16_to_f64(0x0001) == ldexp(1, -24)); /* smallest subnormal */
    ck_assert(ez_f16_to_f64(0x03FF) == 1023 * ldexp(1, -24)); /* largest subnormal */
    ck_assert(ez_f16_to_f64(0x0400) == ldexp(1, -14)); /* smallest normal */
    ck_assert(ez_f16_to_f64(0x8001) == -ldexp(1, -24));
    ck_assert(ez_f16_to_f64(0x0000) == 0.0 && !signbit(ez_f16_to_f64(0x0000)));
    ck_assert(ez_f16_to_f64(0x8000) == 0.0 && signbit(ez_f16_to_f64(0x8000)));
    ck_assert(isinf(ez_f16_to_f64(0x7C00)) && ez_f16_to_f64(0x7C00) > 0);
    ck_assert(isinf(ez_f16_to_f64(0xFC00)) && ez_f16_to_f64(0xFC00) < 0);
    ck_assert(isnan(ez_f16_to_f64(0x7E00)));
    ck_assert(isnan(ez_f16_to_f64(0x7C01))); /* signalling payload stays a NaN */
    ck_assert(isnan(ez_f16_to_f64(0xFFFF)));
    /* bfloat16 known answers */
    ck_assert(ez_bf16_to_f64(0x3F80) == 1.0);
    ck_assert(ez_bf16_to_f64(0x4049) == 3.140625);
    ck_assert(ez_bf16_to_f64(0xC2F7) == -123.5);
    ck_assert(ez_bf16_to_f64(0x7F7F) == ldexp(255, 120)); /* largest finite */
    ck_assert(ez_bf16_to_f64(0x0001) == ldexp(1, -133)); /* smallest subnormal */
    ck_assert(ez_bf16_to_f64(0x0080) == ldexp(1, -126));
    ck_assert(signbit(ez_bf16_to_f64(0x8000)) && ez_bf16_to_f64(0x8000) == 0);
    ck_assert(isinf(ez_bf16_to_f64(0xFF80)) && ez_bf16_to_f64(0xFF80) < 0);
    ck_assert(isnan(ez_bf16_to_f64(0x7FC0)));
    ck_assert(isnan(ez_bf16_to_f64(0x7F81)));
    /* 8-bit floats */
    ck_assert(ez_f8e4m3_to_f64(0x38) == 1.0);
    ck_assert(ez_f8e4m3_to_f64(0x7E) == 448.0);
    ck_assert(ez_f8e4m3_to_f64(0xFE) == -448.0);
    ck_assert(ez_f8e4m3_to_f64(0x01) == ldexp(1, -9));
    ck_assert(ez_f8e4m3_to_f64(0x78) == 256.0); /* all-ones exponent is finite in E4M3 */
    ck_assert(isnan(ez_f8e4m3_to_f64(0x7F)) && isnan(ez_f8e4m3_to_f64(0xFF)));
    ck_assert(ez_f8e5m2_to_f64(0x3C) == 1.0);
    ck_assert(ez_f8e5m2_to_f64(0x7B) == 57344.0);
    ck_assert(ez_f8e5m2_to_f64(0x01) == ldexp(1, -16));
    ck_assert(isinf(ez_f8e5m2_to_f64(0x7C)) && isnan(ez_f8e5m2_to_f64(0x7D)));

    /* Exhaustive, against independent conversions: bfloat16 is the top half of a
     * binary32; binary16 against the compiler's _Float16 where it exists. */
    for (uint32_t u = 0; u < 65536; u++) {
        uint32_t f32 = u << 16;
        float f;
        memcpy(&f, &f32, 4);
        ck_assert_msg(same_bits(ez_bf16_to_f64((uint16_t)u), (double)f), "bf16 %04x", u);
#ifdef __FLT16_MAX__
        uint16_t h16 = (uint16_t)u;
        _Float16 h;
        memcpy(&h, &h16, 2);
        ck_assert_msg(same_bits(ez_f16_to_f64(h16), (double)h), "f16 %04x", u);
#endif
    }
}
END_TEST

START_TEST(test_st_dtypes)
{
    /* one tensor per dtype, hand-written little-endian bytes */
    uint8_t data[128];
    size_t o = 0;
    const double f64v = -1.0 / 3.0;
    memcpy(data + o, &f64v, 8); /* F64 [0, 8) */
    o += 8;
    const uint8_t f16[] = {0x00, 0x3C, 0x01, 0x80}; /* 1, -2^-24 ; F16 [8, 12) */
    memcpy(data + o, f16, 4);
    o += 4;
    const uint8_t bf16[] = {0x49, 0x40, 0x80, 0xFF}; /* 3.140625, -inf ; BF16 [12, 16) */
    memcpy(data + o, bf16, 4);
    o += 4;
    const uint8_t i64[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xDF, 0xFF}; /* -2^53 - 1 */
    memcpy(data + o, i64, 8); /* I64 [16, 24) */
    o += 8;
    const uint8_t i32[] = {0xFE, 0xFF, 0xFF, 0xFF}; /* -2 ; I32 [24, 28) */
    memcpy(data + o, i32, 4);
    o += 4;
    const uint8_t i16[] = {0x00, 0x80}; /* -32768 ; I16 [28, 30) */
    memcpy(data + o, i16, 2);
    o += 2;
    const uint8_t i8[] = {0x80, 0x7F}; /* -128, 127 ; I8 [30, 32) */
    memcpy(data + o, i8, 2);
    o += 2;
    const uint8_t u8[] = {0xFF}; /* U8 [32, 33) */
    memcpy(data + o, u8, 1);
    o += 1;
    const uint8_t bl[] = {0, 1}; /* BOOL [33, 35) */
    memcpy(data + o, bl, 2);
    o += 2;
    const uint8_t u16[] = {0xFF, 0xFF}; /* U16 [35, 37) */
    memcpy(data + o, u16, 2);
    o += 2;
    const uint8_t f32[] = {0x00, 0x00, 0xC0, 0x3F}; /* 1.5 ; F32 [37, 41), unaligned */
    memcpy(data + o, f32, 4);
    o += 4;
    const char *hdr =
        "{\"f64\": {\"dtype\": \"F64\", \"shape\": [], \"data_offsets\": [0, 8]},"
        " \"f16\": {\"dtype\": \"F16\", \"shape\": [2], \"data_offsets\": [8, 12]},"
        " \"bf16\": {\"dtype\": \"BF16\", \"shape\": [2, 1], \"data_offsets\": [12, 16]},"
        " \"i64\": {\"dtype\": \"I64\", \"shape\": [1], \"data_offsets\": [16, 24]},"
        " \"i32\": {\"dtype\": \"I32\", \"shape\": [1], \"data_offsets\": [24, 28]},"
        " \"i16\": {\"dtype\": \"I16\", \"shape\": [1], \"data_offsets\": [28, 30]},"
        " \"i8\": {\"dtype\": \"I8\", \"shape\": [2], \"data_offsets\": [30, 32]},"
        " \"u8\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [32, 33]},"
        " \"b\": {\"dtype\": \"BOOL\", \"shape\": [2], \"data_offsets\": [33, 35]},"
        " \"u16\": {\"dtype\": \"U16\", \"shape\": [1], \"data_offsets\": [35, 37]},"
        " \"f32\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [37, 41]}}";
    size_t len;
    uint8_t *b = mk_file(hdr, data, o, &len);
    ez_safetensors st;
    ez_diag d;
    ck_assert_int_eq(ez_safetensors_parse(&st, b, len, "dt.safetensors", &d), EZ_OK);
    ck_assert_uint_eq(st.n, 11);
    static const struct {
        const char *name;
        ez_st_dtype t;
        size_t n;
        double v[2];
    } want[] = {
        {"f64", EZ_ST_F64, 1, {-1.0 / 3.0}},
        {"f16", EZ_ST_F16, 2, {1.0, -0x1p-24}},
        {"bf16", EZ_ST_BF16, 2, {3.140625, -INFINITY}},
        {"i64", EZ_ST_I64, 1, {0}},
        {"i32", EZ_ST_I32, 1, {-2}},
        {"i16", EZ_ST_I16, 1, {-32768}},
        {"i8", EZ_ST_I8, 2, {-128, 127}},
        {"u8", EZ_ST_U8, 1, {255}},
        {"b", EZ_ST_BOOL, 2, {0, 1}},
        {"u16", EZ_ST_U16, 1, {65535}},
        {"f32", EZ_ST_F32, 1, {1.5}},
    };
    double out[2];
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const ez_st_tensor *t = ez_safetensors_find(&st, want[i].name);
        ck_assert_ptr_nonnull(t);
        ck_assert_int_eq(t->dtype, want[i].t);
        static const char *const dtname[] = {"F64", "F16", "BF16", "I64", "I32", "I16",
                                             "I8",  "U8",  "BOOL", "U16", "F32"};
        ck_assert_str_eq(ez_st_dtype_name(t->dtype), dtname[i]);
        ck_assert_uint_eq(t->numel, want[i].n);
        ez_status s = ez_st_tensor_to_f64(t, out, &d);
        if (want[i].t == EZ_ST_I64) {
            /* 0xFFDFFFFFFFFFFFFF = -2^53 - 1: not a double */
            ck_assert_int_eq(s, EZ_ERR_NUMERIC);
            ck_assert_str_eq(d.msg, "dt.safetensors: tensor 'i64'[0]: I64 value -9007199254740993 "
                                    "is not exactly representable (|v| > 2^53)");
            continue;
        }
        ck_assert_msg(s == EZ_OK, "%s: %s", want[i].name, d.msg);
        for (size_t k = 0; k < want[i].n; k++)
            ck_assert_msg(same_bits(out[k], want[i].v[k]), "%s[%zu] = %.17g", want[i].name, k,
                          out[k]);
    }
    /* I64 at the edge converts; a BOOL byte of 2 is malformed */
    b = mk_file("{\"x\": {\"dtype\": \"I64\", \"shape\": [2], \"data_offsets\": [0, 16]},"
                " \"y\": {\"dtype\": \"BOOL\", \"shape\": [2, 2], \"data_offsets\": [16, 20]}}",
                (const uint8_t[]){0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0xE0, 0xFF,
                                  1, 0, 0, 2},
                20, &len);
    ez_safetensors st2;
    ck_assert_int_eq(ez_safetensors_parse(&st2, b, len, "dt.safetensors", &d), EZ_OK);
    double o4[4];
    ck_assert_int_eq(ez_st_tensor_to_f64(ez_safetensors_find(&st2, "x"), o4, &d), EZ_OK);
    ck_assert(o4[0] == 0x1p53 && o4[1] == -0x1p53);
    ck_assert_int_eq(ez_st_tensor_to_f64(ez_safetensors_find(&st2, "y"), o4, &d), EZ_ERR_FORMAT);
    ck_assert_str_eq(d.msg, "dt.safetensors: tensor 'y'[1, 1]: BOOL byte 2 is neither 0 nor 1");
    ez_safetensors_free(&st2);
    ez_safetensors_free(&st);
}
END_TEST

/* ---- JSON inputs ------------------------------------------------------------------ */

static ez_status parse_in(const char *json, const ez_tensor_spec *specs, size_t n,
                          ez_tensor_value *out, ez_diag *d)
{
    memset(d->msg, 0, sizeof d->msg);
    return ez_inputs_parse((const uint8_t *)json, strlen(json), "in.json", specs, n, out, d);
}

START_TEST(test_inputs_forms)
{
    ez_tensor_spec specs[] = {spec("x", 2, 2, 3, 0), token_spec("tok", 4, 10),
                              spec("s", 0, 0, 0, 0), spec("e", 2, 2, 0, 0)};
    ez_tensor_value v[4];
    ez_diag d;
    const char *nested = "{\"tok\": [0, 9, 3, 3], \"x\": [[1, -2.5, 0.1], [3e2, 0, -0.0]],"
                         " \"s\": 7.25, \"e\": [[], []]}";
    const char *flat = "{\"x\": {\"shape\": [2, 3], \"data\": [1, -2.5, 0.1, 3e2, 0, -0.0]},"
                       " \"tok\": {\"data\": [0, 9, 3, 3], \"shape\": [4]},"
                       " \"s\": {\"shape\": [], \"data\": [7.25]},"
                       " \"e\": {\"shape\": [2, 0], \"data\": []}}";
    const char *forms[] = {nested, flat};
    for (int f = 0; f < 2; f++) {
        ck_assert_msg(parse_in(forms[f], specs, 4, v, &d) == EZ_OK, "%s", d.msg);
        ck_assert_uint_eq(v[0].numel, 6);
        ck_assert_ptr_null(v[0].tok);
        const double want[] = {1, -2.5, 0.1, 300, 0, -0.0};
        for (int i = 0; i < 6; i++)
            ck_assert(same_bits(v[0].f[i], want[i]));
        ck_assert_ptr_null(v[1].f);
        const int64_t wt[] = {0, 9, 3, 3};
        for (int i = 0; i < 4; i++)
            ck_assert_int_eq(v[1].tok[i], wt[i]);
        ck_assert_uint_eq(v[2].numel, 1);
        ck_assert(v[2].f[0] == 7.25);
        ck_assert_uint_eq(v[3].numel, 0);
        ez_tensor_values_clear(v, 4);
    }

    /* the real file path: ez_inputs_load */
    char dir[] = "/tmp/ezio-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/in.json", dir);
    FILE *f = fopen(path, "w");
    fputs(nested, f);
    fclose(f);
    ck_assert_int_eq(ez_inputs_load(path, specs, 4, v, &d), EZ_OK);
    ck_assert(v[0].f[1] == -2.5);
    ez_tensor_values_clear(v, 4);
    unlink(path);
    ck_assert_int_eq(ez_inputs_load(path, specs, 4, v, &d), EZ_ERR_IO);
    ck_assert_msg_has(d, path);
    rmdir(dir);
}
END_TEST

START_TEST(test_inputs_errors)
{
    ez_tensor_spec specs[] = {spec("x", 2, 4, 64, 0), token_spec("tok", 3, 100)};
    ez_tensor_value v[2];
    ez_diag d;

    /* a row with 63 entries: build the text */
    char *buf = malloc(8192);
    size_t o = (size_t)sprintf(buf, "{\"tok\": [1, 2, 3], \"x\": [");
    for (int r = 0; r < 4; r++) {
        o += (size_t)sprintf(buf + o, "%s[", r ? ", " : "");
        for (int c = 0; c < (r == 3 ? 63 : 64); c++)
            o += (size_t)sprintf(buf + o, "%s%d", c ? ", " : "", r * c);
        o += (size_t)sprintf(buf + o, "]");
    }
    sprintf(buf + o, "]}");
    ck_assert_int_eq(parse_in(buf, specs, 2, v, &d), EZ_ERR_INPUT);
    ck_assert_str_eq(d.msg, "in.json: input 'x': row 3 has 63 entries, expected 64");
    ck_assert_ptr_null(v[0].f); /* nothing left to free on failure */
    ck_assert_ptr_null(v[1].tok);
    free(buf);

    ez_tensor_spec s3[] = {spec("x", 3, 2, 2, 2), token_spec("tok", 3, 100)};
    static const struct {
        const char *json;
        const char *msg; /* the exact message */
    } cases[] = {
        {"{\"tok\": [1, 2, 3]}", "in.json: missing input 'x' (declared x[2, 2, 2])"},
        {"{\"x\": [[[1,2],[3,4]],[[5,6],[7,8]]], \"tok\": [1,2,3], \"y\": 1}",
         "in.json: unknown input 'y' (the model's inputs: x, tok)"},
        {"{\"x\": [[[1,2],[3,4]]], \"tok\": [1,2,3]}",
         "in.json: input 'x': has 1 entries along axis 0, expected 2 (declared x[2, 2, 2])"},
        {"{\"x\": [[[1,2],[3,4]],[[5,6],[7,8,9]]], \"tok\": [1,2,3]}",
         "in.json: input 'x': row [1, 1] has 3 entries, expected 2"},
        {"{\"x\": [[[1,2],[3,4]],[[5,6],7]], \"tok\": [1,2,3]}",
         "in.json: input 'x': row [1, 1] is an integer, expected an array of 2 entries"},
        {"{\"x\": [[[1,2],[3,4]],5], \"tok\": [1,2,3]}",
         "in.json: input 'x': row 1 is an integer, expected an array of 2 entries"},
        {"{\"x\": [[[1,2],[3,\"4\"]],[[5,6],[7,8]]], \"tok\": [1,2,3]}",
         "in.json: input 'x': entry [0, 1, 1] is a string, expected a number"},
        {"{\"x\": [[[1,2],[3,[4]]],[[5,6],[7,8]]], \"tok\": [1,2,3]}",
         "in.json: input 'x': entry [0, 1, 1] is an array, expected a number"},
        {"{\"x\": [[[1,2],[3,null]],[[5,6],[7,8]]], \"tok\": [1,2,3]}",
         "in.json: input 'x': entry [0, 1, 1] is null, expected a number"},
        {"{\"x\": 3, \"tok\": [1,2,3]}",
         "in.json: input 'x': value is an integer, expected nested arrays of the declared shape "
         "x[2, 2, 2] or {\"shape\": [...], \"data\": [...]}"},
        {"{\"x\": [[[1,2],[3,4]],[[5,6],[7,8]]], \"tok\": [1,2,100]}",
         "in.json: input 'tok': entry [2] = 100 is outside the token range [0, 100)"},
        {"{\"x\": [[[1,2],[3,4]],[[5,6],[7,8]]], \"tok\": [1,-1,3]}",
         "in.json: input 'tok': entry [1] = -1 is outside the token range [0, 100)"},
        {"{\"x\": [[[1,2],[3,4]],[[5,6],[7,8]]], \"tok\": [1,2.0,3]}",
         "in.json: input 'tok': entry [1] is a real number, expected an integer token"},
        {"{\"x\": {\"shape\": [2, 4], \"data\": [1,2,3,4,5,6,7,8]}, \"tok\": [1,2,3]}",
         "in.json: input 'x': shape [2, 4] does not match the declared x[2, 2, 2]"},
        {"{\"x\": {\"shape\": [2, 2, 2], \"data\": [1,2,3,4,5,6,7]}, \"tok\": [1,2,3]}",
         "in.json: input 'x': data has 7 entries, expected 8 (declared x[2, 2, 2])"},
        {"{\"x\": {\"shape\": [2, 2, 2], \"data\": [1,2,3,4,5,6,7,true]}, \"tok\": [1,2,3]}",
         "in.json: input 'x': data[7] is a boolean, expected a number"},
        {"{\"x\": {\"shape\": [2, 2, 2]}, \"tok\": [1,2,3]}",
         "in.json: input 'x': missing field 'data'"},
        {"{\"x\": {\"shape\": [2, 2, 2], \"data\": [], \"dtype\": \"F32\"}, \"tok\": [1,2,3]}",
         "in.json: input 'x': unknown field 'dtype' (expected only \"shape\" and \"data\")"},
        {"{\"x\": {\"shape\": [2, -2, 2], \"data\": []}, \"tok\": [1,2,3]}",
         "in.json: input 'x': shape[1] is negative, expected a non-negative integer"},
        {"{\"x\": {\"shape\": [1,1,1,1,1,1,1,1,1,1], \"data\": [1]}, \"tok\": [1,2,3]}",
         "in.json: input 'x': shape of rank 10 does not match the declared x[2, 2, 2]"},
        {"[1, 2]", "in.json: the file holds an array, expected a JSON object mapping input "
                   "names to values"},
        {"{\"x\": [1, 2", "in.json:1:11: invalid JSON: ']' expected near end of file"},
        {"", "in.json:1:0: invalid JSON: '[' or '{' expected near end of file"},
        {"{\"tok\": [1,2,3], \"tok\": [1,2,3]}", "in.json:1:22: invalid JSON: duplicate object "
                                                  "key near '\"tok\"'"},
        {"{\"x\": [1e999]}", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ez_status s = parse_in(cases[i].json, s3, 2, v, &d);
        ck_assert_msg(s == EZ_ERR_INPUT, "case %zu: status %d (%s)", i, (int)s, d.msg);
        if (cases[i].msg)
            ck_assert_msg(strcmp(d.msg, cases[i].msg) == 0, "case %zu: got \"%s\"\nwant \"%s\"",
                          i, d.msg, cases[i].msg);
        else
            ck_assert_msg(strncmp(d.msg, "in.json:", 8) == 0, "case %zu: %s", i, d.msg);
    }

    /* a rank-0 input that is not a number; a model without inputs */
    ez_tensor_spec s0[] = {spec("s", 0, 0, 0, 0)};
    ck_assert_int_eq(parse_in("{\"s\": [1]}", s0, 1, v, &d), EZ_ERR_INPUT);
    ck_assert_str_eq(d.msg, "in.json: input 's': the value is an array, expected a number");
    ck_assert_int_eq(parse_in("{}", NULL, 0, NULL, &d), EZ_OK);
    ck_assert_int_eq(parse_in("{\"a\": 1}", NULL, 0, NULL, &d), EZ_ERR_INPUT);
    ck_assert_str_eq(d.msg, "in.json: unknown input 'a' (the model's inputs: none)");
    /* a spec the file could not possibly hold is refused before allocating */
    ez_tensor_spec huge[] = {spec("h", 2, UINT64_C(1) << 31, UINT64_C(1) << 31, 0)};
    ck_assert_int_eq(parse_in("{\"h\": []}", huge, 1, v, &d), EZ_ERR_INPUT);
    ck_assert_msg_has(d, "too small to hold h[2147483648, 2147483648]");
    /* bad specs are the caller's bug */
    ez_tensor_spec dup[] = {spec("a", 0, 0, 0, 0), spec("a", 0, 0, 0, 0)};
    ck_assert_int_eq(parse_in("{}", dup, 2, v, &d), EZ_ERR_INVALID);
}
END_TEST

/* ---- JSON outputs ----------------------------------------------------------------- */

START_TEST(test_outputs)
{
    ez_tensor_spec specs[] = {spec("y", 2, 2, 2, 0), spec("s", 0, 0, 0, 0)};
    const double y[] = {1.0, -0.5, 0.000244140625, -3};
    const double s[] = {1e22};
    const double *data[] = {y, s};
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    ez_diag d;
    ck_assert_int_eq(ez_outputs_write(f, specs, 2, data, &d), EZ_OK);
    fclose(f);
    ck_assert_str_eq(text, "{\"y\": {\"shape\": [2, 2], \"data\": [1.0, -0.5, 0.000244140625, "
                           "-3.0]}, \"s\": {\"shape\": [], \"data\": [1e22]}}\n");
    free(text);

    /* random doubles, and dequantized values, read back bit for bit */
    ez_rng r = ez_rng_for("outputs");
    enum { N = 300 };
    double *v = malloc(N * sizeof *v);
    for (size_t i = 0; i < N; i++) {
        uint64_t u = ez_rng_next(&r);
        if (i % 3 == 0) {
            memcpy(&v[i], &u, 8);
            if (!isfinite(v[i]))
                v[i] = (double)(u >> 11);
        } else if (i % 3 == 1) {
            v[i] = ez_dequantize((int64_t)(u >> 40) - (INT64_C(1) << 23), 12);
        } else {
            v[i] = ldexp((double)(u >> 11), -60) - 0.25;
        }
    }
    ez_tensor_spec sp[] = {spec("out", 3, 3, 10, 10)};
    const double *dv[] = {v};
    text = NULL;
    f = open_memstream(&text, &tlen);
    ck_assert_int_eq(ez_outputs_write(f, sp, 1, dv, &d), EZ_OK);
    fclose(f);
    ez_tensor_value back[1];
    ck_assert_int_eq(ez_inputs_parse((uint8_t *)text, tlen, "out.json", sp, 1, back, &d), EZ_OK);
    for (size_t i = 0; i < N; i++)
        ck_assert_msg(same_bits(back[0].f[i], v[i]), "%zu: %.17g vs %.17g", i, back[0].f[i], v[i]);
    ez_tensor_values_clear(back, 1);
    free(text);

    /* via a file */
    char dir[] = "/tmp/ezio-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/out.json", dir);
    ck_assert_int_eq(ez_outputs_save(path, sp, 1, dv, &d), EZ_OK);
    ck_assert_int_eq(ez_inputs_load(path, sp, 1, back, &d), EZ_OK);
    ck_assert(back[0].f[N - 1] == v[N - 1]);
    ez_tensor_values_clear(back, 1);
    unlink(path);
    rmdir(dir);
    ck_assert_int_eq(ez_outputs_save("/nonexistent/o.json", sp, 1, dv, &d), EZ_ERR_IO);
    ck_assert_msg_has(d, "/nonexistent/o.json");

    /* non-finite values are a caller bug */
    v[17] = NAN;
    f = fopen("/dev/null", "w");
    ck_assert_int_eq(ez_outputs_write(f, sp, 1, dv, &d), EZ_ERR_INVALID);
    ck_assert_str_eq(d.msg, "output 'out': element 17 is not finite");
    fclose(f);
    free(v);
}
END_TEST

/* ---- quantization ----------------------------------------------------------------- */

START_TEST(test_quant_edges)
{
    int64_t q = 12345;
    /* ties away from zero, exactly */
    ck_assert_int_eq(ez_quantize(0.5, 0, 8, &q), EZ_OK);
    ck_assert_int_eq(q, 1);
    ck_assert_int_eq(ez_quantize(-0.5, 0, 8, &q), EZ_OK);
    ck_assert_int_eq(q, -1);
    ck_assert_int_eq(ez_quantize(2.5, 0, 8, &q), EZ_OK);
    ck_assert_int_eq(q, 3);
    ck_assert_int_eq(ez_quantize(-2.5, 0, 8, &q), EZ_OK);
    ck_assert_int_eq(q, -3);
    ck_assert_int_eq(ez_quantize(0.49999999999999994, 0, 8, &q), EZ_OK);
    ck_assert_int_eq(q, 0);
    ck_assert_int_eq(ez_quantize(1.0 / 8192, 12, 16, &q), EZ_OK); /* half an ulp of scale 12 */
    ck_assert_int_eq(q, 1);
    ck_assert_int_eq(ez_quantize(-1.0 / 8192, 12, 16, &q), EZ_OK);
    ck_assert_int_eq(q, -1);
    ck_assert_int_eq(ez_quantize(3.0 / 8192, 12, 16, &q), EZ_OK);
    ck_assert_int_eq(q, 2);
    ck_assert_int_eq(ez_quantize(0.1, 12, 16, &q), EZ_OK);
    ck_assert_int_eq(q, 410); /* 409.6 */
    ck_assert_int_eq(ez_quantize(-0.0, 12, 16, &q), EZ_OK);
    ck_assert_int_eq(q, 0);

    /* 16 bits at scale 12: [-8, 8 - 2^-12] */
    ck_assert_int_eq(ez_quantize(-8.0, 12, 16, &q), EZ_OK);
    ck_assert_int_eq(q, -32768);
    ck_assert_int_eq(ez_quantize(8.0 - 1.0 / 4096, 12, 16, &q), EZ_OK);
    ck_assert_int_eq(q, 32767);
    ck_assert_int_eq(ez_quantize(8.0 - 1.0 / 8192 - 1e-12, 12, 16, &q), EZ_OK); /* rounds down */
    ck_assert_int_eq(q, 32767);
    q = 99;
    ck_assert_int_eq(ez_quantize(8.0 - 1.0 / 8192, 12, 16, &q), EZ_ERR_NUMERIC); /* tie up: 32768 */
    ck_assert_int_eq(q, 99); /* untouched on failure */
    ck_assert_int_eq(ez_quantize(8.0, 12, 16, &q), EZ_ERR_NUMERIC);
    ck_assert_int_eq(ez_quantize(-8.0 - 1.0 / 8192, 12, 16, &q), EZ_ERR_NUMERIC); /* -32769 */
    ck_assert_int_eq(ez_quantize(-8.0 - 1.0 / 8192 + 1e-12, 12, 16, &q), EZ_OK);
    ck_assert_int_eq(q, -32768);
    ck_assert_int_eq(ez_quantize(NAN, 12, 16, &q), EZ_ERR_NUMERIC);
    ck_assert_int_eq(ez_quantize(INFINITY, 12, 16, &q), EZ_ERR_NUMERIC);
    ck_assert_int_eq(ez_quantize(-INFINITY, 12, 16, &q), EZ_ERR_NUMERIC);
    ck_assert_int_eq(ez_quantize(1e308, 62, 63, &q), EZ_ERR_NUMERIC); /* v*2^62 overflows */
    ck_assert_int_eq(ez_quantize(4.9e-324, 62, 63, &q), EZ_OK);
    ck_assert_int_eq(q, 0);

    /* the widest width: [-2^62, 2^62 - 1] */
    ck_assert_int_eq(ez_quantize(-0x1p62, 0, 63, &q), EZ_OK);
    ck_assert_int_eq(q, -(INT64_C(1) << 62));
    ck_assert_int_eq(ez_quantize(0x1p62, 0, 63, &q), EZ_ERR_NUMERIC);
    ck_assert_int_eq(ez_quantize(0x1p62 - 1024, 0, 63, &q), EZ_OK); /* largest double below */
    ck_assert_int_eq(q, (INT64_C(1) << 62) - 1024);
    ck_assert_int_eq(ez_quantize(-0x1p62 - 2048, 0, 63, &q), EZ_ERR_NUMERIC);
    /* 1 bit: {-1, 0} */
    ck_assert_int_eq(ez_quantize(-1, 0, 1, &q), EZ_OK);
    ck_assert_int_eq(q, -1);
    ck_assert_int_eq(ez_quantize(0.5, 0, 1, &q), EZ_ERR_NUMERIC);
    /* parameters */
    ck_assert_int_eq(ez_quantize(1, 63, 16, &q), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_quantize(1, 0, 0, &q), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_quantize(1, 0, 64, &q), EZ_ERR_INVALID);

    /* dequantize */
    ck_assert(ez_dequantize(410, 12) == 410.0 / 4096);
    ck_assert(ez_dequantize(-32768, 12) == -8.0);
    ck_assert(ez_dequantize(INT64_C(1) << 53, 0) == 0x1p53);
    for (int64_t k = -5000; k <= 5000; k++) {
        ck_assert_int_eq(ez_quantize(ez_dequantize(k, 12), 12, 16, &q), EZ_OK);
        ck_assert_int_eq(q, k);
    }
}
END_TEST

START_TEST(test_quant_tensor)
{
    enum { N = 2 * 3 * 4 };
    double v[N];
    int64_t out[N];
    for (int i = 0; i < N; i++)
        v[i] = (i - 12) * 0.25;
    const uint64_t dims[] = {2, 3, 4};
    ez_diag d;
    ck_assert_int_eq(ez_quantize_tensor("input 'x'", v, N, dims, 3, 4, 8, out, &d), EZ_OK);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(out[i], (i - 12) * 4);
    v[1 * 12 + 2 * 4 + 1] = 9.5; /* [1, 2, 1] */
    v[1 * 12 + 2 * 4 + 3] = NAN; /* later: not reported */
    ck_assert_int_eq(ez_quantize_tensor("input 'x'", v, N, dims, 3, 12, 16, out, &d),
                     EZ_ERR_NUMERIC);
    ck_assert_str_eq(d.msg, "input 'x'[1, 2, 1] = 9.5: does not fit 16 signed bits at scale 12 "
                            "(representable range [-8, 7.999755859375])");
    v[1 * 12 + 2 * 4 + 1] = 0;
    ck_assert_int_eq(ez_quantize_tensor("W.safetensors: tensor 'wq'", v, N, dims, 3, 12, 16, out,
                                        &d),
                     EZ_ERR_NUMERIC);
    ck_assert_str_eq(d.msg, "W.safetensors: tensor 'wq'[1, 2, 3] = nan: not a finite number");
    double sc[] = {-INFINITY};
    ck_assert_int_eq(ez_quantize_tensor("input 's'", sc, 1, NULL, 0, 12, 16, out, &d),
                     EZ_ERR_NUMERIC);
    ck_assert_str_eq(d.msg, "input 's' = -inf: not a finite number");
    ck_assert_int_eq(ez_quantize_tensor("input 's'", sc, 1, NULL, 0, 70, 16, out, &d),
                     EZ_ERR_INVALID);

    /* a larger tensor through the parallel loop: the FIRST bad index is reported */
    enum { M = 100000 };
    double *big = malloc(M * sizeof *big);
    int64_t *bq = malloc(M * sizeof *bq);
    ez_rng r = ez_rng_for("quant_tensor");
    for (size_t i = 0; i < M; i++)
        big[i] = ((double)(ez_rng_next(&r) >> 11) * 0x1p-53 - 0.5) * 8;
    ck_assert_int_eq(ez_quantize_tensor("t", big, M, (const uint64_t[]){M}, 1, 12, 16, bq, &d),
                     EZ_OK);
    for (size_t i = 0; i < M; i += 997)
        ck_assert_int_eq(bq[i], (int64_t)round(big[i] * 4096));
    big[77777] = 100;
    big[88888] = 100;
    ck_assert_int_eq(ez_quantize_tensor("t", big, M, (const uint64_t[]){M}, 1, 12, 16, bq, &d),
                     EZ_ERR_NUMERIC);
    ck_assert_msg_has(d, "t[77777] = 100:");
    free(big);
    free(bq);
}
END_TEST

Suite *ez_suite_io(void)
{
    Suite *s = suite_create("io");
    const TTest *safetensors[] = {test_st_roundtrip, test_st_check, test_st_malformed, test_st_truncations,
        test_f16_bf16_bits, test_st_dtypes};
    ez_tcase_add(s, "safetensors", 0, safetensors, sizeof safetensors / sizeof safetensors[0]);
    const TTest *json[] = {test_inputs_forms, test_inputs_errors, test_outputs};
    ez_tcase_add(s, "json", 0, json, sizeof json / sizeof json[0]);
    const TTest *quant[] = {test_quant_edges, test_quant_tensor};
    ez_tcase_add(s, "quant", 0, quant, sizeof quant / sizeof quant[0]);
    return s;
}
