/* report — errors on stderr, and as one JSON object on stdout under --json (report.h). */
#include "cli/report.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* The process's reporting mode (report.h: the one piece of state in cli/). */
static struct {
    bool json, printed;
    int argc;
    char **argv;
} mode;

void ez_cli_report_begin(const ez_cli_cmd *cmd, int argc, char **argv)
{
    bool has = false;
    mode.argc = argc;
    mode.argv = argv;
    for (size_t k = 0; cmd->opts[k].name; k++)
        has = has || !strcmp(cmd->opts[k].name, "--json");
    for (int i = 1; has && i < argc && strcmp(argv[i], "--") != 0; i++)
        if (!strcmp(argv[i], "--json"))
            mode.json = true;
}

bool ez_cli_report_json(void)
{
    return mode.json;
}

/* A decimal number at *s (advancing it), or 0. */
static int number(const char **s)
{
    int v = 0;
    if (!isdigit((unsigned char)**s))
        return 0;
    while (isdigit((unsigned char)**s) && v < 100000000)
        v = v * 10 + (*(*s)++ - '0');
    return v;
}

/* The command-line word msg starts with, followed by ':' or ' ' (the longest), or NULL;
 * line and column from "FILE:LINE:COL:" after it. */
static const char *file_of(const char *msg, int *line, int *column)
{
    const char *best = NULL;
    size_t blen = 0;
    for (int i = 1; i < mode.argc; i++) {
        const char *w = mode.argv[i];
        bool opt = w[0] == '-' && w[1] != 0;
        if (opt && w[1] == '-' && strchr(w, '=')) {
            w = strchr(w, '=') + 1; /* --opt=FILE */
            opt = false;
        }
        size_t n = strlen(w);
        if (!opt && n > blen && !strncmp(msg, w, n) && (msg[n] == ':' || msg[n] == ' '))
            best = w, blen = n;
    }
    if (best && msg[blen] == ':') {
        const char *s = msg + blen + 1;
        *line = number(&s);
        if (*line && *s == ':') {
            s++;
            *column = number(&s);
        }
    }
    return best;
}

void ez_cli_report_json_error(int code, const char *msg, const char *file, int line, int column)
{
    if (!mode.json || mode.printed)
        return;
    mode.printed = true;
    if (file == NULL)
        file = file_of(msg, &line, &column);
    json_t *e = json_object(), *o = json_object();
    json_object_set_new(e, "code", json_integer(code));
    json_object_set_new(e, "message", json_string(msg));
    if (file)
        json_object_set_new(e, "file", json_string(file));
    if (line > 0)
        json_object_set_new(e, "line", json_integer(line));
    if (column > 0)
        json_object_set_new(e, "column", json_integer(column));
    json_object_set_new(o, "error", e);
    json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    fflush(stdout);
    json_decref(o);
}

int ez_cli_error(const char *cmd, ez_status st, const ez_diag *d)
{
    const char *msg = d && d->msg[0] ? d->msg : ez_status_str(st);
    return ez_cli_fail(cmd, ez_exit_for_status(st), "%s", msg);
}

int ez_cli_fail(const char *cmd, int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "einzk %s: error: %s\n", cmd, msg);
    ez_cli_report_json_error(code, msg, NULL, 0, 0);
    return code;
}
