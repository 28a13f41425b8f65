/* transcript — see transcript.h; the byte format is specified in
 * docs/protocol-kernel-sumcheck.md §1 and pinned by tests/check_transcript.c. */
#include "config.h"

#include "lib/transcript.h"

#include <nettle/sha2.h>
#include <string.h>

#include "lib/util.h"

/* One-byte record tags: a record of one type can never be parsed as another. */
enum {
    EZ_TR_TAG_INIT = 0x01,
    EZ_TR_TAG_BYTES = 0x02,
    EZ_TR_TAG_U64 = 0x03,
    EZ_TR_TAG_FE = 0x04,
    EZ_TR_TAG_FE2 = 0x05,
    EZ_TR_TAG_CHAL_FE2 = 0x06,
    EZ_TR_TAG_CHAL_INDEX = 0x07,
    /* Output stream blocks of a squeeze: SHA256(state || 0x80 || u64 block). Never a
     * record, so the stream is independent of every later state. */
    EZ_TR_TAG_STREAM = 0x80
};

/* The fixed name of the format, absorbed by init before the caller's domain. */
#define EZ_TR_FORMAT "einzk-transcript-sha256-v1"

static void put_u64(uint8_t out[8], uint64_t v)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t in[8])
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | in[i];
    return v;
}

/* Start a record: hash state || tag || len(label) || label || len(data). The caller
 * then feeds exactly data_len bytes and finishes with record_end. */
static void record_begin(struct sha256_ctx *h, const ez_transcript *t, uint8_t tag,
                         const char *label, uint64_t data_len)
{
    uint8_t buf[8];
    size_t llen = label ? strlen(label) : 0;
    sha256_init(h);
    sha256_update(h, sizeof t->state, t->state);
    sha256_update(h, 1, &tag);
    put_u64(buf, (uint64_t)llen);
    sha256_update(h, 8, buf);
    if (llen)
        sha256_update(h, llen, (const uint8_t *)label);
    put_u64(buf, data_len);
    sha256_update(h, 8, buf);
}

static void record_end(struct sha256_ctx *h, ez_transcript *t)
{
    sha256_digest(h, sizeof t->state, t->state);
    t->nmsg++;
}

static void absorb_record(ez_transcript *t, uint8_t tag, const char *label, const void *data,
                          size_t len)
{
    struct sha256_ctx h;
    record_begin(&h, t, tag, label, (uint64_t)len);
    if (len)
        sha256_update(&h, len, (const uint8_t *)data);
    record_end(&h, t);
}

void ez_transcript_init(ez_transcript *t, const char *domain)
{
    memset(t->state, 0, sizeof t->state);
    t->nmsg = 0;
    size_t dlen = domain ? strlen(domain) : 0;
    absorb_record(t, EZ_TR_TAG_INIT, EZ_TR_FORMAT, domain, dlen);
}

void ez_transcript_absorb_bytes(ez_transcript *t, const char *label, const void *data, size_t len)
{
    absorb_record(t, EZ_TR_TAG_BYTES, label, data, len);
}

void ez_transcript_absorb_u64(ez_transcript *t, const char *label, uint64_t v)
{
    uint8_t buf[8];
    put_u64(buf, v);
    absorb_record(t, EZ_TR_TAG_U64, label, buf, 8);
}

/* One record of n base (fe) or extension (fe2) elements, exactly one non-NULL, 8 or 16
 * bytes each. Encoded in batches of 256 bytes: nettle buffers internally, this only
 * saves calls. */
static void absorb_elems(ez_transcript *t, uint8_t tag, const char *label, const ez_fe *fe, const ez_fe2 *fe2,
                         size_t n)
{
    struct sha256_ctx h;
    uint8_t buf[256];
    const size_t size = fe ? 8 : 16, batch = sizeof buf / size;
    record_begin(&h, t, tag, label, (uint64_t)n * size);
    for (size_t i = 0; i < n;) {
        size_t m = n - i < batch ? n - i : batch;
        for (size_t j = 0; j < m; j++) {
            if (fe)
                ez_fe_encode(buf + 8 * j, fe[i + j]);
            else
                ez_fe2_encode(buf + 16 * j, fe2[i + j]);
        }
        sha256_update(&h, size * m, buf);
        i += m;
    }
    record_end(&h, t);
}

void ez_transcript_absorb_fe(ez_transcript *t, const char *label, const ez_fe *v, size_t n)
{
    absorb_elems(t, EZ_TR_TAG_FE, label, v, NULL, n);
}

void ez_transcript_absorb_fe2(ez_transcript *t, const char *label, const ez_fe2 *v, size_t n)
{
    absorb_elems(t, EZ_TR_TAG_FE2, label, NULL, v, n);
}

/* A stream of 64-bit words derived from the (already updated) state. */
typedef struct {
    const ez_transcript *t;
    uint64_t block;
    uint8_t buf[32];
    unsigned used; /* words of buf consumed; 4 = empty */
} ez_tr_stream;

static uint64_t stream_word(ez_tr_stream *s)
{
    if (s->used == 4) {
        struct sha256_ctx h;
        uint8_t tag = EZ_TR_TAG_STREAM, blk[8];
        put_u64(blk, s->block++);
        sha256_init(&h);
        sha256_update(&h, sizeof s->t->state, s->t->state);
        sha256_update(&h, 1, &tag);
        sha256_update(&h, 8, blk);
        sha256_digest(&h, sizeof s->buf, s->buf);
        s->used = 0;
    }
    return get_u64(s->buf + 8 * s->used++);
}

/* Uniform in [0, p): rejection of words >= p (probability 2^-32 - 2^-64 each). */
static ez_fe stream_fe(ez_tr_stream *s)
{
    for (;;) {
        uint64_t w = stream_word(s);
        if (w < EZ_P)
            return w;
    }
}

void ez_transcript_challenges_fe2(ez_transcript *t, const char *label, ez_fe2 *out, size_t n)
{
    /* The record binds the label and the count, so squeezing n at once is a distinct
     * event from squeezing fewer; the new state keys the output stream. */
    uint8_t buf[8];
    put_u64(buf, (uint64_t)n);
    absorb_record(t, EZ_TR_TAG_CHAL_FE2, label, buf, 8);
    ez_tr_stream s = {.t = t, .block = 0, .used = 4};
    for (size_t i = 0; i < n; i++) {
        out[i].c0 = stream_fe(&s);
        out[i].c1 = stream_fe(&s);
    }
}

ez_fe2 ez_transcript_challenge_fe2(ez_transcript *t, const char *label)
{
    ez_fe2 c;
    ez_transcript_challenges_fe2(t, label, &c, 1);
    return c;
}

uint64_t ez_transcript_challenge_index(ez_transcript *t, const char *label, uint64_t bound)
{
    EZ_VERIFY_CHECK(bound > 0);
    uint8_t buf[8];
    put_u64(buf, bound);
    absorb_record(t, EZ_TR_TAG_CHAL_INDEX, label, buf, 8);
    if (bound <= 1)
        return 0;
    /* Accept w < limit, the largest multiple of bound <= 2^64; then w % bound is
     * uniform. (2^64 - bound) % bound == 2^64 % bound. */
    uint64_t rem = (0 - bound) % bound;
    ez_tr_stream s = {.t = t, .block = 0, .used = 4};
    for (;;) {
        uint64_t w = stream_word(&s);
        if (rem == 0 || w < 0 - rem)
            return w % bound;
    }
}
