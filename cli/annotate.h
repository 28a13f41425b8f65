/* annotate — a .ein source rewritten with chosen widths (`einzk calibrate -o`): the
 * `scale N` and `bits N` defaults set (their lines updated, or inserted before the first
 * declaration), and an `@bits(n)` on declarations and definitions (an existing @bits
 * updated, else inserted after the declarator or the left side). Everything else — the
 * text, comments, layout — is kept byte for byte. */
#ifndef EZ_CLI_ANNOTATE_H
#define EZ_CLI_ANNOTATE_H

#include <stddef.h>

#include "compiler/plan.h"
#include "lib/util.h"

typedef struct {
    unsigned scale, bits;  /* the defaults */
    size_t ndecls;
    struct {
        char name[EZ_MAX_NAME]; /* an input or weight (token inputs take no attribute) */
        unsigned bits;
    } *decls;
    size_t nlines;
    struct {
        int line;          /* the first line of a definition */
        unsigned bits;
    } *lines;
} ez_cli_widths;

/* src[0..len) (a source that parses) with w applied, as a new NUL-terminated string
 * (*out, free()). Declarations and definitions w does not name are left as they are.
 * EZ_ERR_SOURCE when the source does not parse, EZ_ERR_NOMEM. */
ez_status ez_cli_annotate(const char *src, size_t len, const ez_cli_widths *w, char **out, ez_diag *d);

#endif
