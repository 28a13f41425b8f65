/* certificate — see certificate.h. */
#include "config.h"

#include "runtime/formats/certificate.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/formats/sections.h"

#define MAX_TOKENS (UINT64_C(1) << 32)
#define MAX_PASSES (UINT64_C(1) << 32)

void ez_certificate_init(ez_certificate *c)
{
    memset(c, 0, sizeof *c);
}

void ez_certificate_clear(ez_certificate *c)
{
    if (c == NULL)
        return;
    ez_generation_clear(&c->gen);
    for (size_t i = 0; i < c->npass; i++)
        free(c->pass[i].proof);
    free(c->pass);
    memset(c, 0, sizeof *c);
}

ez_status ez_certificate_add_pass(ez_certificate *c, uint64_t length, uint64_t first, uint64_t last,
                                  const uint8_t *proof, size_t proof_len)
{
    ez_cert_pass *np = realloc(c->pass, (c->npass + 1) * sizeof *np);
    if (np == NULL)
        return EZ_ERR_NOMEM;
    c->pass = np;
    uint8_t *copy = malloc(proof_len ? proof_len : 1);
    if (copy == NULL)
        return EZ_ERR_NOMEM;
    memcpy(copy, proof, proof_len);
    c->pass[c->npass++] = (ez_cert_pass){length, first, last, copy, proof_len};
    return EZ_OK;
}

ez_status ez_certificate_encode(ez_writer *w, const ez_certificate *c)
{
    const ez_generation *g = &c->gen;
    ez_writer gen, passes;
    ez_writer_init(&gen);
    ez_writer_init(&passes);
    ez_writer_u64(&gen, g->nprompt);
    ez_writer_u64(&gen, g->ngen);
    ez_writer_i64(&gen, g->eos);
    ez_writer_u64(&gen, g->max_new);
    ez_writer_u8(&gen, (uint8_t)g->stop);
    for (uint64_t i = 0; i < g->nprompt + g->ngen; i++)
        ez_writer_i64(&gen, g->tokens[i]);
    ez_writer_u64(&passes, c->npass);
    for (size_t i = 0; i < c->npass; i++) {
        const ez_cert_pass *ps = &c->pass[i];
        ez_writer_u64(&passes, ps->length);
        ez_writer_u64(&passes, ps->first);
        ez_writer_u64(&passes, ps->last);
        ez_writer_u64(&passes, ps->proof_len);
        ez_writer_bytes(&passes, ps->proof, ps->proof_len);
    }
    ez_sections_write_header(w, EZ_CERT_MAGIC);
    ez_sections_write(w, 1, &gen);
    ez_sections_write(w, 2, &passes);
    ez_writer_clear(&gen);
    ez_writer_clear(&passes);
    return w->failed ? EZ_ERR_NOMEM : EZ_OK;
}

static ez_status decode_generation(ez_generation *g, const ez_section_view *sec, ez_diag *d)
{
    ez_reader r;
    ez_reader_init(&r, sec->data, sec->len);
    g->nprompt = ez_reader_u64(&r);
    g->ngen = ez_reader_u64(&r);
    g->eos = ez_reader_i64(&r);
    g->max_new = ez_reader_u64(&r);
    uint8_t stop = ez_reader_u8(&r);
    if (r.failed || g->nprompt > MAX_TOKENS || g->ngen > MAX_TOKENS || stop > EZ_STOP_CONTEXT) {
        ez_diag_set(d, "certificate: malformed generation header");
        return EZ_ERR_FORMAT;
    }
    g->stop = (ez_stop_rule)stop;
    const uint64_t n = g->nprompt + g->ngen;
    if (n > ez_reader_remaining(&r) / 8) {
        ez_diag_set(d, "certificate: %llu tokens announced, fewer stored", (unsigned long long)n);
        return EZ_ERR_FORMAT;
    }
    g->tokens = ez_alloc_array(n ? n : 1, sizeof *g->tokens);
    if (g->tokens == NULL)
        return EZ_ERR_NOMEM;
    for (uint64_t i = 0; i < n; i++)
        g->tokens[i] = ez_reader_i64(&r);
    if (r.failed || !ez_reader_done(&r)) {
        ez_diag_set(d, "certificate: the generation section has trailing bytes");
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

static ez_status decode_passes(ez_certificate *c, const ez_section_view *sec, ez_diag *d)
{
    ez_reader r;
    ez_reader_init(&r, sec->data, sec->len);
    uint64_t npass = ez_reader_count(&r, MAX_PASSES, 32);
    for (uint64_t i = 0; i < npass && !r.failed; i++) {
        uint64_t length = ez_reader_u64(&r), first = ez_reader_u64(&r), last = ez_reader_u64(&r);
        uint64_t nbytes = ez_reader_u64(&r);
        if (r.failed || nbytes > ez_reader_remaining(&r))
            break;
        const uint8_t *proof = ez_reader_view(&r, (size_t)nbytes);
        if (ez_certificate_add_pass(c, length, first, last, proof ? proof : (const uint8_t *)"", (size_t)nbytes) != EZ_OK)
            return EZ_ERR_NOMEM;
    }
    if (r.failed || c->npass != npass || !ez_reader_done(&r)) {
        ez_diag_set(d, "certificate: the passes section is truncated or has trailing bytes");
        return EZ_ERR_FORMAT;
    }
    return EZ_OK;
}

ez_status ez_certificate_decode(ez_certificate *c, const uint8_t *data, size_t len, ez_diag *d)
{
    ez_section_view sec[3];
    ez_certificate_init(c);
    ez_status st = ez_sections_read(data, len, EZ_CERT_MAGIC, "certificate", 2, true, sec, d);
    if (st == EZ_OK)
        st = decode_generation(&c->gen, &sec[1], d);
    if (st == EZ_OK)
        st = decode_passes(c, &sec[2], d);
    if (st != EZ_OK)
        ez_certificate_clear(c);
    return st;
}

bool ez_certificate_is(const uint8_t *data, size_t len)
{
    return len >= 4 && memcmp(data, EZ_CERT_MAGIC, 4) == 0;
}
