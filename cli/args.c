/* args — the table-driven command-line parser (contract in args.h). */
#include "cli/args.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report.h"

/* ---- help and usage, from the table ------------------------------------------------ */

#define WRAP 88

/* Append one usage word to a line of f, wrapping before WRAP columns (indent: where
 * continuation lines start). */
static void word(FILE *f, size_t *col, size_t indent, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void word(FILE *f, size_t *col, size_t indent, const char *fmt, ...)
{
    char w[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w, sizeof w, fmt, ap);
    va_end(ap);
    size_t n = strlen(w);
    if (*col + 1 + n > WRAP && *col > indent) {
        fprintf(f, "\n%*s", (int)indent, "");
        *col = indent;
    } else {
        fputc(' ', f);
        (*col)++;
    }
    fputs(w, f);
    *col += n;
}

static void opt_word(FILE *f, size_t *col, size_t indent, const ez_cli_opt *o)
{
    const char *open = o->flags & EZ_CLI_REQUIRED ? "" : "[";
    const char *close = o->flags & EZ_CLI_REQUIRED ? "" : "]";
    const char *more = o->flags & EZ_CLI_REPEAT ? "..." : "";
    if (o->value)
        word(f, col, indent, "%s%s %s%s%s", open, o->name, o->value, close, more);
    else
        word(f, col, indent, "%s%s%s%s", open, o->name, close, more);
}

size_t ez_cli_nopts(const ez_cli_cmd *cmd)
{
    size_t n = 0;
    while (cmd->opts[n].name)
        n++;
    return n;
}

void ez_cli_print_usage(FILE *f, const ez_cli_cmd *cmd)
{
    size_t col = (size_t)fprintf(f, "usage: einzk %s", cmd->name);
    size_t indent = col + 1;
    word(f, &col, indent, "%s", cmd->operand);
    /* required options first, then the others, each group in table order */
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; cmd->opts[k].name; k++)
            if (((cmd->opts[k].flags & EZ_CLI_REQUIRED) == 0) == (pass == 1))
                opt_word(f, &col, indent, &cmd->opts[k]);
    fputc('\n', f);
}

void ez_cli_print_help(FILE *f, const ez_cli_cmd *cmd)
{
    ez_cli_print_usage(f, cmd);
    fprintf(f, "\n%s\n\noptions:\n", cmd->summary);
    size_t width = strlen("-h, --help");
    for (size_t k = 0; cmd->opts[k].name; k++) {
        const ez_cli_opt *o = &cmd->opts[k];
        size_t w = strlen(o->name) + (o->value ? 1 + strlen(o->value) : 0);
        width = w > width ? w : width;
    }
    for (size_t k = 0; cmd->opts[k].name; k++) {
        const ez_cli_opt *o = &cmd->opts[k];
        char left[96];
        snprintf(left, sizeof left, "%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
        fprintf(f, "  %-*s  %s%s%s\n", (int)width, left, o->help, o->flags & EZ_CLI_REQUIRED ? " (required)" : "",
                o->flags & EZ_CLI_REPEAT ? " (repeatable)" : "");
    }
    fprintf(f, "  %-*s  %s\n", (int)width, "-h, --help", "print this help and exit");
    if (cmd->notes)
        fprintf(f, "\n%s\n", cmd->notes);
    fprintf(f, "\nA long option's value may also follow '=' (--input=IN.json), a one-letter option's\n"
               "directly (-oOUT, -DS=128). Exit codes: einzk --help.\n");
}

int ez_cli_usage_error(const ez_cli_cmd *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "einzk %s: error: %s\n", cmd->name, msg);
    ez_cli_print_usage(stderr, cmd);
    fprintf(stderr, "(einzk help %s lists the options)\n", cmd->name);
    ez_cli_report_json_error(EZ_EXIT_USAGE, msg, NULL, 0, 0);
    return EZ_EXIT_USAGE;
}

/* ---- parsing ------------------------------------------------------------------------ */

/* The row for argument arg (an option word), and where its attached value starts
 * (*attached, NULL if none): "--name", "--name=V", "-x", "-xV". -1 if unknown. */
static int find_opt(const ez_cli_cmd *cmd, const char *arg, const char **attached)
{
    *attached = NULL;
    for (size_t k = 0; cmd->opts[k].name; k++) {
        const char *name = cmd->opts[k].name;
        size_t n = strlen(name);
        if (strncmp(arg, name, n) != 0)
            continue;
        if (arg[n] == 0)
            return (int)k;
        bool one_letter = name[1] != '-';
        if (one_letter && cmd->opts[k].value) { /* -oVALUE, -DNAME=V */
            *attached = arg + n;
            return (int)k;
        }
        if (!one_letter && arg[n] == '=') {
            *attached = arg + n + 1;
            return (int)k;
        }
    }
    return -1;
}

static int unknown_option(const ez_cli_cmd *cmd, const char *arg)
{
    char want[64];
    snprintf(want, sizeof want, "%.*s", (int)strcspn(arg, "="), arg);
    ez_suggest s;
    ez_suggest_init(&s, want);
    for (size_t k = 0; cmd->opts[k].name; k++)
        ez_suggest_try(&s, cmd->opts[k].name);
    ez_suggest_try(&s, "--help");
    if (s.best)
        return ez_cli_usage_error(cmd, "unknown option '%s'; did you mean '%s'?", arg, s.best);
    return ez_cli_usage_error(cmd, "unknown option '%s'", arg);
}

int ez_cli_parse(ez_cli_args *a, const ez_cli_cmd *cmd, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    ez_cli_report_begin(cmd, argc, argv);
    EZ_VERIFY_CHECK(ez_cli_nopts(cmd) <= EZ_CLI_MAX_OPTS);
    bool operands_only = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!operands_only && !strcmp(arg, "--")) {
            operands_only = true;
            continue;
        }
        if (operands_only || arg[0] != '-' || arg[1] == 0) { /* "-" alone is an operand */
            if (a->operand != NULL)
                return ez_cli_usage_error(cmd, "more than one %s ('%s' and '%s')", cmd->operand_noun, a->operand,
                                          arg);
            a->operand = arg;
            continue;
        }
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            ez_cli_print_help(stdout, cmd);
            return EZ_EXIT_OK;
        }
        const char *val = NULL;
        int k = find_opt(cmd, arg, &val);
        if (k < 0)
            return unknown_option(cmd, arg);
        const ez_cli_opt *o = &cmd->opts[k];
        if (o->value == NULL && val != NULL)
            return ez_cli_usage_error(cmd, "%s takes no value (got '%s')", o->name, arg);
        if (o->value != NULL && val == NULL) {
            if (i + 1 >= argc)
                return ez_cli_usage_error(cmd, "%s needs a value: %s %s", o->name, o->name, o->value);
            val = argv[++i];
        }
        if (a->n[k] > 0 && !(o->flags & EZ_CLI_REPEAT))
            return ez_cli_usage_error(cmd, "%s is given twice", o->name);
        a->n[k]++;
        a->value[k] = val;
        if ((o->flags & EZ_CLI_REPEAT) && val != NULL) {
            if (a->nvals == EZ_CLI_MAX_VALUES)
                return ez_cli_usage_error(cmd, "more than %d options", EZ_CLI_MAX_VALUES);
            a->vals[a->nvals].opt = (unsigned)k;
            a->vals[a->nvals++].value = val;
        }
    }
    if (a->operand == NULL)
        return ez_cli_usage_error(cmd, "missing %s", cmd->operand);
    for (size_t k = 0; cmd->opts[k].name; k++)
        if ((cmd->opts[k].flags & EZ_CLI_REQUIRED) && a->n[k] == 0)
            return ez_cli_usage_error(cmd, "missing %s %s", cmd->opts[k].name,
                                      cmd->opts[k].value ? cmd->opts[k].value : "");
    return EZ_CLI_RUN;
}

/* ---- values ------------------------------------------------------------------------- */

bool ez_cli_uint(const ez_cli_args *a, unsigned opt, int base, uint64_t lo, uint64_t hi, uint64_t *out)
{
    const char *s = a->value[opt];
    if (s == NULL)
        return true;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, base);
    /* strtoull accepts a sign and leading blanks: neither is a count */
    if (!isdigit((unsigned char)s[0]) || *end != 0 || errno == ERANGE || v < lo || v > hi) {
        ez_cli_usage_error(a->cmd, "%s needs a whole number from %llu to %llu, got '%s'", a->cmd->opts[opt].name,
                           (unsigned long long)lo, (unsigned long long)hi, s);
        return false;
    }
    *out = v;
    return true;
}

static bool ident_ok(const char *s, size_t n)
{
    if (n == 0 || n >= EZ_MAX_NAME || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t k = 1; k < n; k++)
        if (!(isalnum((unsigned char)s[k]) || s[k] == '_'))
            return false;
    return true;
}

bool ez_cli_defines_get(ez_cli_defines *d, const ez_cli_args *a, unsigned opt)
{
    const char *name = a->cmd->opts[opt].name;
    memset(d, 0, sizeof *d);
    d->scale = d->bits = -1;
    for (size_t i = 0; i < a->nvals; i++) {
        if (a->vals[i].opt != opt)
            continue;
        const char *spec = a->vals[i].value, *eq = strchr(spec, '=');
        if (eq == NULL || !ident_ok(spec, (size_t)(eq - spec))) {
            ez_cli_usage_error(a->cmd, "malformed %s '%s' (expected NAME=VALUE, e.g. %s S=128)", name, spec, name);
            return false;
        }
        errno = 0;
        char *end = NULL;
        long long v = strtoll(eq + 1, &end, 10);
        if (eq[1] == 0 || isspace((unsigned char)eq[1]) || *end != 0 || errno == ERANGE) {
            ez_cli_usage_error(a->cmd, "%s %s: '%s' is not an integer", name, spec, eq + 1);
            return false;
        }
        size_t nlen = (size_t)(eq - spec);
        for (size_t k = 0; k < d->n; k++)
            if (strlen(d->names[k]) == nlen && !strncmp(d->names[k], spec, nlen)) {
                ez_cli_usage_error(a->cmd, "param '%s' is set twice (%s and %s %s); give each NAME once",
                                   d->names[k], d->texts[k], name, spec);
                return false;
            }
        if (d->n == EZ_CLI_MAX_DEFINES) {
            ez_cli_usage_error(a->cmd, "more than %d %s options", EZ_CLI_MAX_DEFINES, name);
            return false;
        }
        size_t k = d->n++;
        memcpy(d->names[k], spec, nlen);
        d->names[k][nlen] = 0;
        snprintf(d->texts[k], sizeof d->texts[k], "%s %.*s=%lld", name, (int)nlen, spec, v);
        d->defs[k].name = d->names[k];
        d->defs[k].value = (int64_t)v;
        d->defs[k].text = d->texts[k];
    }
    return true;
}

bool ez_cli_overrides_get(ez_cli_defines *d, const ez_cli_args *a, unsigned first)
{
    const unsigned odefine = first, oscale = first + 1, obits = first + 2;
    uint64_t v;
    if (!ez_cli_defines_get(d, a, odefine))
        return false;
    if (a->value[oscale]) {
        if (!ez_cli_uint(a, oscale, 10, 0, 60, &v))
            return false;
        d->scale = (int)v;
    }
    if (a->value[obits]) {
        if (!ez_cli_uint(a, obits, 10, 2, 62, &v))
            return false;
        d->bits = (int)v;
    }
    return true;
}
