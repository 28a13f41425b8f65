/* diag — source diagnostics of the .ein compiler (docs/language.md, last rule).
 *
 * Every error is rendered as
 *
 *     FILE:LINE:COL: error: MESSAGE
 *        LINE | the source line
 *             |     ^~~~
 *     FILE:LINE:COL: note: NOTE            (optional: a second place, e.g. a first use)
 *        LINE | the source line
 *             | ^
 *     help: HELP                           (optional: a suggested fix)
 *
 * The list collects every error of one run up to EZ_DIAG_MAX_ERRORS; later errors are
 * counted but not stored, and the rendering ends with a line saying how many were
 * dropped. Errors without a source position (a bad -D on the command line) print as
 * `FILE: error: MESSAGE`. Library code never prints: ez_diag_render builds the text and
 * the CLI writes it to stderr.
 *
 * Warnings (ez_diag_warning) render the same way with `warning:`; they are not errors
 * (ez_diag_any ignores them) and a list holds at most EZ_DIAG_MAX_ERRORS of them. */
#ifndef EZ_COMPILER_DIAG_H
#define EZ_COMPILER_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

#define EZ_DIAG_MAX_ERRORS 20

/* A source span: 1-based lines and columns (columns count bytes), inclusive at both
 * ends, so a one-character token at column 5 is {L, 5, L, 5}. The field names are the
 * ones Bison's default YYLLOC_DEFAULT uses, so this is also the parser's location type.
 * first_line == 0 means "no source position". */
typedef struct {
    int first_line, first_column, last_line, last_column;
} ez_span;

typedef struct {
    ez_span span;
    char *msg;        /* the error sentence, no trailing period */
    char *help;       /* NULL or a suggested fix */
    ez_span note_span;
    char *note;       /* NULL or a sentence about note_span (e.g. where something was first used) */
    bool warning;     /* a warning, not an error */
} ez_diag_item;

typedef struct {
    const char *path;  /* borrowed: the file name printed in front of every message */
    const char *src;   /* borrowed: the source text, len bytes (need not be NUL-terminated) */
    size_t len;
    ez_diag_item *items;
    size_t n, cap;
    size_t nerrors;    /* all errors reported, including those beyond the cap */
    size_t nwarnings;  /* warnings stored (at most EZ_DIAG_MAX_ERRORS; more are dropped) */
    bool nomem;        /* an allocation failed while recording (some text may be missing) */
} ez_diag_list;

/* Start an empty list over one source text. path and src are borrowed and must outlive
 * the list. O(1), no allocation. */
void ez_diag_list_init(ez_diag_list *l, const char *path, const char *src, size_t len);
/* Free every item. Accepts a zeroed or already-cleared list. */
void ez_diag_list_clear(ez_diag_list *l);

/* Record an error at sp (printf-style message). Returns the stored item so the caller
 * may attach a help line and a note, or NULL when the cap is reached or memory ran out
 * (the error is still counted). Messages are single sentences without trailing period. */
ez_diag_item *ez_diag_error(ez_diag_list *l, ez_span sp, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
ez_diag_item *ez_diag_verror(ez_diag_list *l, ez_span sp, const char *fmt, va_list ap);
/* Record a warning at sp: as ez_diag_error, but not an error (NULL beyond the cap). */
ez_diag_item *ez_diag_warning(ez_diag_list *l, ez_span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Attach (replace) the help line / the note of an item. it may be NULL: then nothing
 * happens, so callers can chain without checking the cap. */
void ez_diag_help(ez_diag_list *l, ez_diag_item *it, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ez_diag_note(ez_diag_list *l, ez_diag_item *it, ez_span sp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* True iff at least one error was reported. */
static inline bool ez_diag_any(const ez_diag_list *l)
{
    return l->nerrors > 0;
}

/* Render every stored item, in the order reported, into a new NUL-terminated string
 * (free()); the caller prints it. Tabs in echoed source lines are kept and the caret
 * line reproduces them so carets line up in a terminal. O(total text). EZ_ERR_NOMEM on
 * allocation failure (then *out is NULL). */
ez_status ez_diag_render(const ez_diag_list *l, char **out);

/* A span covering a and b (from the start of a to the end of b). */
ez_span ez_span_join(ez_span a, ez_span b);

#endif
