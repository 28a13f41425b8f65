/* sections — the container every einzk binary file shares (proof, vk, pk, certificate):
 *     4-byte magic | u16 major | u16 minor | sections, each u32 tag | u64 length | payload
 * little-endian, tags in increasing order, each exactly once (docs/protocol.md §9). */
#ifndef EZ_RUNTIME_FORMATS_SECTIONS_H
#define EZ_RUNTIME_FORMATS_SECTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

/* Magic and the format version (EZ_PROOF_MAJOR.EZ_PROOF_MINOR of proofio.h). */
void ez_sections_write_header(ez_writer *w, const char *magic);
/* The same with another minor version (the pk's, EZ_PK_MINOR). */
void ez_sections_write_header_minor(ez_writer *w, const char *magic, unsigned minor);
/* One section: tag, the payload's length and bytes. */
void ez_sections_write(ez_writer *w, uint32_t tag, const ez_writer *payload);

typedef struct {
    const uint8_t *data; /* into the parsed bytes */
    size_t len;
    bool present;
} ez_section_view;

/* Parse magic, version and sections 1..ntags (each exactly once, increasing order) of
 * untrusted bytes; `what` names the file kind in messages. strict_minor: refuse a newer
 * minor version (a verifier must not skip argument bytes); otherwise unknown tags of a
 * newer minor version are skipped. Out: sec[1..ntags] (sec has ntags + 1 entries).
 * Returns EZ_OK or EZ_ERR_FORMAT with a reason. */
ez_status ez_sections_read(const uint8_t *data, size_t len, const char *magic, const char *what, unsigned ntags,
                           bool strict_minor, ez_section_view *sec, ez_diag *d);

/* What einzk file data is, by its magic: "proof", "verifying key", "proving key",
 * "certificate", "compiled model (.einc)"; NULL when none (`verify` and `inspect` say
 * what a file given in the wrong place is). */
const char *ez_file_kind(const uint8_t *data, size_t len);

#endif
