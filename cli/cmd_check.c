/* einzk check MODEL.ein [-D NAME=VALUE]... — parse and check a model, print nothing on
 * success (DESIGN.md §4). Diagnostics go to stderr; exit 3 for errors in the source,
 * 2 for a bad command line, 4 when the file cannot be read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "compiler/diag.h"
#include "compiler/sema.h"

static void check_usage(FILE *f)
{
    fprintf(f, "usage: einzk check MODEL.ein [-D NAME=VALUE]...\n"
               "  Parse and check MODEL.ein; prints nothing and exits 0 when the model is valid.\n"
               "  -D NAME=VALUE   override `param NAME` (a positive integer)\n");
}

/* Parse "NAME=VALUE" into d (name points into arg, which is modified). */
static bool parse_define(char *arg, ez_define *d, const char *text)
{
    char *eq = strchr(arg, '=');
    if (eq == NULL || eq == arg)
        return false;
    *eq = '\0';
    const char *v = eq + 1;
    if (*v == '\0')
        return false;
    errno = 0;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    d->name = arg;
    d->value = x;
    d->text = text;
    return true;
}

int ez_cmd_check(int argc, char **argv)
{
    int rc = EZ_EXIT_INTERNAL;
    const char *path = NULL;
    ez_define *defs = NULL;
    char **texts = NULL;
    size_t ndefs = 0;
    uint8_t *src = NULL;
    size_t len = 0;
    ez_diag_list diags;
    ez_program *prog = NULL;
    char *rendered = NULL;
    ez_diag_list_init(&diags, "", NULL, 0);

    defs = ez_alloc_array((size_t)argc + 1, sizeof *defs);
    texts = ez_alloc_array((size_t)argc + 1, sizeof *texts);
    if (defs == NULL || texts == NULL) {
        fprintf(stderr, "einzk check: error: out of memory\n");
        goto out;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            check_usage(stdout);
            rc = EZ_EXIT_OK;
            goto out;
        }
        if (!strncmp(a, "-D", 2)) {
            const char *val = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (val == NULL) {
                fprintf(stderr, "einzk check: error: -D needs NAME=VALUE\n");
                rc = EZ_EXIT_USAGE;
                goto out;
            }
            size_t n = strlen(val);
            char *text = malloc(n + 4), *copy = ez_strdup(val);
            if (text == NULL || copy == NULL) {
                free(text);
                free(copy);
                fprintf(stderr, "einzk check: error: out of memory\n");
                goto out;
            }
            snprintf(text, n + 4, "-D %s", val);
            texts[ndefs] = text; /* freed at out, with the names */
            if (!parse_define(copy, &defs[ndefs], text)) {
                fprintf(stderr, "einzk check: error: bad option '%s': expected -D NAME=VALUE with an integer VALUE\n",
                        text);
                free(copy);
                ndefs++;
                rc = EZ_EXIT_USAGE;
                goto out;
            }
            ndefs++;
            continue;
        }
        if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "einzk check: error: unknown option '%s'\n", a);
            check_usage(stderr);
            rc = EZ_EXIT_USAGE;
            goto out;
        }
        if (path != NULL) {
            fprintf(stderr, "einzk check: error: more than one model file ('%s' and '%s')\n", path, a);
            rc = EZ_EXIT_USAGE;
            goto out;
        }
        path = a;
    }
    if (path == NULL) {
        check_usage(stderr);
        rc = EZ_EXIT_USAGE;
        goto out;
    }

    ez_diag fd = {{0}};
    ez_status st = ez_file_read(path, &src, &len, &fd);
    if (st != EZ_OK) {
        ez_cli_error("check", st, &fd);
        rc = EZ_EXIT_INPUT;
        goto out;
    }
    st = ez_compile_front(path, (const char *)src, len, defs, ndefs, &diags, &prog);
    if (st == EZ_ERR_SOURCE) {
        if (ez_diag_render(&diags, &rendered) != EZ_OK) {
            fprintf(stderr, "einzk check: error: out of memory\n");
            goto out;
        }
        fputs(rendered, stderr);
        rc = EZ_EXIT_SOURCE;
        goto out;
    }
    if (st != EZ_OK) {
        ez_cli_error("check", st, NULL);
        rc = ez_exit_for_status(st);
        goto out;
    }
    rc = EZ_EXIT_OK;
out:
    free(rendered);
    ez_program_free(prog);
    ez_diag_list_clear(&diags);
    free(src);
    if (defs)
        for (size_t i = 0; i < ndefs; i++)
            free((char *)defs[i].name);
    if (texts)
        for (size_t i = 0; i < ndefs; i++)
            free(texts[i]);
    free(defs);
    free(texts);
    return rc;
}
