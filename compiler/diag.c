/* diag — recording and rendering source diagnostics (see diag.h for the format). */
#include "compiler/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ez_diag_list_init(ez_diag_list *l, const char *path, const char *src, size_t len)
{
    memset(l, 0, sizeof *l);
    l->path = path ? path : "<input>";
    l->src = src ? src : "";
    l->len = src ? len : 0;
}

void ez_diag_list_clear(ez_diag_list *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].msg);
        free(l->items[i].help);
        free(l->items[i].note);
    }
    free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
    l->nerrors = 0;
    l->nwarnings = 0;
    l->nomem = false;
}

static char *vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* Store a new item (the caller counts it). NULL when memory runs out. */
static ez_diag_item *add_item(ez_diag_list *l, ez_span sp, const char *fmt, va_list ap)
{
    ez_diag_item *room = ez_array_room(l->items, l->n, &l->cap, sizeof *room, 8);
    if (room == NULL) {
        l->nomem = true;
        return NULL;
    }
    l->items = room;
    char *msg = vformat(fmt, ap);
    if (msg == NULL) {
        l->nomem = true;
        return NULL;
    }
    ez_diag_item *it = &l->items[l->n++];
    memset(it, 0, sizeof *it);
    it->span = sp;
    it->msg = msg;
    return it;
}

ez_diag_item *ez_diag_verror(ez_diag_list *l, ez_span sp, const char *fmt, va_list ap)
{
    l->nerrors++;
    if (l->n - l->nwarnings >= EZ_DIAG_MAX_ERRORS)
        return NULL;
    return add_item(l, sp, fmt, ap);
}

ez_diag_item *ez_diag_warning(ez_diag_list *l, ez_span sp, const char *fmt, ...)
{
    if (l->nwarnings >= EZ_DIAG_MAX_ERRORS)
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    ez_diag_item *it = add_item(l, sp, fmt, ap);
    va_end(ap);
    if (it) {
        it->warning = true;
        l->nwarnings++;
    }
    return it;
}

ez_diag_item *ez_diag_error(ez_diag_list *l, ez_span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ez_diag_item *it = ez_diag_verror(l, sp, fmt, ap);
    va_end(ap);
    return it;
}

/* Replace *text (an item's help or note) with the formatted sentence. False, with the
 * old text kept and l->nomem set, when memory runs out. */
static bool replace_text(ez_diag_list *l, char **text, const char *fmt, va_list ap)
{
    char *s = vformat(fmt, ap);
    if (s == NULL) {
        l->nomem = true;
        return false;
    }
    free(*text);
    *text = s;
    return true;
}

void ez_diag_help(ez_diag_list *l, ez_diag_item *it, const char *fmt, ...)
{
    if (it == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    replace_text(l, &it->help, fmt, ap);
    va_end(ap);
}

void ez_diag_note(ez_diag_list *l, ez_diag_item *it, ez_span sp, const char *fmt, ...)
{
    if (it == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (replace_text(l, &it->note, fmt, ap))
        it->note_span = sp;
    va_end(ap);
}

ez_span ez_span_join(ez_span a, ez_span b)
{
    if (a.first_line == 0)
        return b;
    if (b.first_line == 0)
        return a;
    ez_span r = a;
    r.last_line = b.last_line;
    r.last_column = b.last_column;
    return r;
}

/* ---- rendering -------------------------------------------------------------------- */

/* Find line `line` (1-based) of the source: start offset and length (without '\n'). */
static bool find_line(const ez_diag_list *l, int line, size_t *start, size_t *len)
{
    if (line < 1)
        return false;
    size_t pos = 0;
    for (int cur = 1; cur < line; cur++) {
        const char *nl = memchr(l->src + pos, '\n', l->len - pos);
        if (nl == NULL)
            return false;
        pos = (size_t)(nl - l->src) + 1;
    }
    if (pos > l->len)
        return false;
    const char *nl = memchr(l->src + pos, '\n', l->len - pos);
    size_t end = nl ? (size_t)(nl - l->src) : l->len;
    if (end > pos && l->src[end - 1] == '\r')
        end--;
    *start = pos;
    *len = end - pos;
    return true;
}

/* Echo the source line of sp and a caret line under the span (^ then ~ for the rest of
 * the span on that line). Non-printable bytes are shown as '?' so a stray control byte
 * cannot garble the terminal; tabs are kept in both lines so the caret lines up. */
static void render_snippet(ez_writer *b, const ez_diag_list *l, ez_span sp)
{
    size_t start, len;
    if (!find_line(l, sp.first_line, &start, &len))
        return;
    char num[24];
    int w = snprintf(num, sizeof num, "%d", sp.first_line);
    if (w < 4)
        w = 4;
    ez_writer_printf(b, " %*d | ", w, sp.first_line);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)l->src[start + i];
        char o = (c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80) ? (char)c : '?';
        ez_writer_bytes(b, &o, 1);
    }
    ez_writer_bytes(b, "\n", 1);
    ez_writer_printf(b, " %*s | ", w, "");
    /* The scanner gives a leading byte-order mark no column. */
    bool bom = start == 0 && len >= 3 && memcmp(l->src, "\xef\xbb\xbf", 3) == 0;
    size_t c0 = (sp.first_column >= 1 ? (size_t)sp.first_column - 1 : 0) + (bom ? 3 : 0);
    if (c0 > len)
        c0 = len;
    size_t c1 = (sp.last_line == sp.first_line && sp.last_column >= sp.first_column)
                    ? (size_t)sp.last_column + (bom ? 3 : 0)
                    : len;
    if (c1 > len)
        c1 = len;
    for (size_t i = 0; i < c0; i++) {
        unsigned char ch = (unsigned char)l->src[start + i];
        /* tabs are kept; UTF-8 continuation bytes and a byte-order mark take no column */
        if (ch == '\t')
            ez_writer_bytes(b, "\t", 1);
        else if ((ch & 0xc0) != 0x80 && !(bom && i == 0))
            ez_writer_bytes(b, " ", 1);
    }
    ez_writer_bytes(b, "^", 1);
    for (size_t i = c0 + 1; i < c1; i++)
        ez_writer_bytes(b, "~", 1);
    ez_writer_bytes(b, "\n", 1);
}

ez_status ez_diag_render(const ez_diag_list *l, char **out)
{
    ez_writer b;
    ez_writer_init(&b);
    *out = NULL;
    for (size_t i = 0; i < l->n; i++) {
        const ez_diag_item *it = &l->items[i];
        const char *kind = it->warning ? "warning" : "error";
        if (it->span.first_line > 0)
            ez_writer_printf(&b, "%s:%d:%d: %s: %s\n", l->path, it->span.first_line, it->span.first_column, kind,
                             it->msg);
        else
            ez_writer_printf(&b, "%s: %s: %s\n", l->path, kind, it->msg);
        render_snippet(&b, l, it->span);
        if (it->note) {
            if (it->note_span.first_line > 0)
                ez_writer_printf(&b, "%s:%d:%d: note: %s\n", l->path, it->note_span.first_line,
                                 it->note_span.first_column, it->note);
            else
                ez_writer_printf(&b, "%s: note: %s\n", l->path, it->note);
            render_snippet(&b, l, it->note_span);
        }
        if (it->help)
            ez_writer_printf(&b, "help: %s\n", it->help);
    }
    size_t stored = l->n - l->nwarnings;
    if (l->nerrors > stored)
        ez_writer_printf(&b, "%s: too many errors: %zu more not shown (stopped after %d)\n", l->path,
                         l->nerrors - stored, EZ_DIAG_MAX_ERRORS);
    if (l->nerrors > 0)
        ez_writer_printf(&b, "%zu error%s\n", l->nerrors, l->nerrors == 1 ? "" : "s");
    else if (l->nwarnings > 0)
        ez_writer_printf(&b, "%zu warning%s\n", l->nwarnings, l->nwarnings == 1 ? "" : "s");
    *out = ez_writer_take_text(&b);
    return *out ? EZ_OK : EZ_ERR_NOMEM;
}
