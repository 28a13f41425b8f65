/* sections — see sections.h. */
#include "config.h"

#include "runtime/formats/sections.h"

#include "runtime/formats/proofio.h" /* the format version */

#include <string.h>

void ez_sections_write_header_minor(ez_writer *w, const char *magic, unsigned minor)
{
    uint8_t v[4] = {EZ_PROOF_MAJOR & 0xff, EZ_PROOF_MAJOR >> 8, (uint8_t)(minor & 0xff), (uint8_t)(minor >> 8)};
    ez_writer_bytes(w, magic, 4);
    ez_writer_bytes(w, v, 4);
}

void ez_sections_write_header(ez_writer *w, const char *magic)
{
    ez_sections_write_header_minor(w, magic, EZ_PROOF_MINOR);
}

void ez_sections_write(ez_writer *w, uint32_t tag, const ez_writer *payload)
{
    ez_writer_u32(w, tag);
    ez_writer_u64(w, payload->len);
    ez_writer_bytes(w, payload->data, payload->len);
    if (payload->failed)
        w->failed = true;
}

ez_status ez_sections_read(const uint8_t *data, size_t len, const char *magic, const char *what,
                          unsigned ntags, bool strict_minor, ez_section_view *sec, ez_diag *d)
{
    ez_reader r;
    ez_reader_init(&r, data, len);
    uint8_t m[4], v[4];
    memset(sec, 0, (ntags + 1) * sizeof *sec);
    if (!ez_reader_bytes(&r, m, 4) || memcmp(m, magic, 4) != 0) {
        ez_diag_set(d, "not a %s (bad magic)", what);
        return EZ_ERR_FORMAT;
    }
    if (!ez_reader_bytes(&r, v, 4)) {
        ez_diag_set(d, "%s: truncated header", what);
        return EZ_ERR_FORMAT;
    }
    unsigned major = v[0] | (unsigned)v[1] << 8, minor = v[2] | (unsigned)v[3] << 8;
    if (major != EZ_PROOF_MAJOR) {
        ez_diag_set(d, "%s: format version %u.%u is not supported (this build reads %d.x)", what, major, minor,
                    EZ_PROOF_MAJOR);
        return EZ_ERR_FORMAT;
    }
    if (strict_minor && minor > EZ_PROOF_MINOR) {
        /* a verifier cannot skip parts of an argument it does not understand */
        ez_diag_set(d, "%s: format version %u.%u is newer than this build's %d.%d", what, major, minor,
                    EZ_PROOF_MAJOR, EZ_PROOF_MINOR);
        return EZ_ERR_FORMAT;
    }
    uint32_t last = 0;
    while (ez_reader_remaining(&r) > 0) {
        uint32_t tag = ez_reader_u32(&r);
        uint64_t n = ez_reader_u64(&r);
        if (r.failed || n > ez_reader_remaining(&r)) {
            ez_diag_set(d, "%s: truncated section", what);
            return EZ_ERR_FORMAT;
        }
        const uint8_t *p = ez_reader_view(&r, (size_t)n);
        if (tag <= last) {
            ez_diag_set(d, "%s: section %u repeated or out of order", what, tag);
            return EZ_ERR_FORMAT;
        }
        last = tag;
        if (tag > ntags) {
            if (minor > EZ_PROOF_MINOR)
                continue; /* a newer minor version may add sections */
            ez_diag_set(d, "%s: unknown section %u", what, tag);
            return EZ_ERR_FORMAT;
        }
        sec[tag] = (ez_section_view){p ? p : (const uint8_t *)"", (size_t)n, true};
    }
    for (unsigned t = 1; t <= ntags; t++)
        if (!sec[t].present) {
            ez_diag_set(d, "%s: section %u is missing", what, t);
            return EZ_ERR_FORMAT;
        }
    return EZ_OK;
}

const char *ez_file_kind(const uint8_t *data, size_t len)
{
    static const struct {
        const char *magic, *kind;
    } kinds[] = {{"EZPF", "proof"},
                 {"EZVK", "verifying key"},
                 {"EZPK", "proving key"},
                 {"EZCT", "certificate"},
                 {"EINC", "compiled model (.einc)"}};
    for (size_t i = 0; len >= 4 && i < sizeof kinds / sizeof kinds[0]; i++)
        if (memcmp(data, kinds[i].magic, 4) == 0)
            return kinds[i].kind;
    return NULL;
}
