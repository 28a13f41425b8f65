/* args — shared command-line parsing (args.h). */
#include "cli/args.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ez_args_defines_init(ez_args_defines *d)
{
    memset(d, 0, sizeof *d);
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

int ez_args_define(ez_args_defines *d, int argc, char **argv, int *i, const char *cmd)
{
    const char *arg = argv[*i];
    if (strncmp(arg, "-D", 2) != 0)
        return 0;
    const char *spec = arg + 2;
    if (*spec == 0) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "einzk %s: error: -D needs NAME=VALUE\n", cmd);
            return -1;
        }
        spec = argv[++*i];
    }
    const char *eq = strchr(spec, '=');
    if (eq == NULL || !ident_ok(spec, (size_t)(eq - spec))) {
        fprintf(stderr, "einzk %s: error: malformed -D '%s' (expected NAME=VALUE, e.g. -D S=128)\n", cmd, spec);
        return -1;
    }
    errno = 0;
    char *end = NULL;
    long long v = strtoll(eq + 1, &end, 10);
    if (eq[1] == 0 || isspace((unsigned char)eq[1]) || *end != 0 || errno == ERANGE) {
        fprintf(stderr, "einzk %s: error: -D %s: '%s' is not an integer\n", cmd, spec, eq + 1);
        return -1;
    }
    size_t nlen = (size_t)(eq - spec);
    size_t k = 0;
    while (k < d->n && !(strlen(d->names[k]) == nlen && !strncmp(d->names[k], spec, nlen)))
        k++;
    if (k == EZ_ARGS_MAX_DEFINES) {
        fprintf(stderr, "einzk %s: error: more than %d -D options\n", cmd, EZ_ARGS_MAX_DEFINES);
        return -1;
    }
    memcpy(d->names[k], spec, nlen);
    d->names[k][nlen] = 0;
    snprintf(d->texts[k], sizeof d->texts[k], "-D %.*s=%lld", (int)nlen, spec, v);
    d->defs[k].name = d->names[k];
    d->defs[k].value = (int64_t)v;
    d->defs[k].text = d->texts[k];
    if (k == d->n)
        d->n++;
    return 1;
}
