/* einzk compile MODEL.ein [-D NAME=VALUE]... -o MODEL.einc
 * .ein source -> checked program (compiler/sema.h) -> plan (compiler/lower.h) ->
 * proving plan (compiler/schedule.h) -> .einc artifact (compiler/einc.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "compiler/diag.h"
#include "compiler/einc.h"
#include "compiler/lower.h"
#include "compiler/schedule.h"
#include "compiler/sema.h"
#include "runtime/prove/margins.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: einzk compile MODEL.ein [-D NAME=VALUE]... -o MODEL.einc\n");
}

/* The model name when the source has none: the file name without directory and ".ein". */
static void file_stem(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".ein"))
        n -= 4;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, base, n);
    out[n] = 0;
}

int ez_cmd_compile(int argc, char **argv)
{
    const char *in = NULL, *outpath = NULL;
    ez_args_defines defs;
    ez_args_defines_init(&defs);
    for (int i = 1; i < argc; i++) {
        int r = ez_args_define(&defs, argc, argv, &i, "compile");
        if (r < 0)
            return EZ_EXIT_USAGE;
        if (r > 0)
            continue;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return EZ_EXIT_OK;
        } else if (!strcmp(argv[i], "-o")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "einzk compile: error: -o needs a file name\n");
                return EZ_EXIT_USAGE;
            }
            outpath = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != 0) {
            fprintf(stderr, "einzk compile: error: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return EZ_EXIT_USAGE;
        } else if (in == NULL) {
            in = argv[i];
        } else {
            fprintf(stderr, "einzk compile: error: more than one model file ('%s', '%s')\n", in, argv[i]);
            return EZ_EXIT_USAGE;
        }
    }
    if (in == NULL || outpath == NULL) {
        usage(stderr);
        return EZ_EXIT_USAGE;
    }

    int rc = EZ_EXIT_OK;
    uint8_t *src = NULL;
    size_t len = 0;
    ez_diag d = {{0}};
    ez_diag_list diags;
    ez_program *prog = NULL;
    ez_plan plan;
    char stem[EZ_MAX_NAME];
    bool have_diags = false;
    ez_plan_init(&plan);

    ez_status st = ez_file_read(in, &src, &len, &d);
    if (st != EZ_OK)
        goto fail;
    st = ez_compile_front(in, (const char *)src, len, defs.defs, defs.n, &diags, &prog);
    have_diags = true;
    if (st == EZ_ERR_SOURCE) {
        char *text = NULL;
        if (ez_diag_render(&diags, &text) == EZ_OK && text != NULL)
            fputs(text, stderr);
        free(text);
        rc = EZ_EXIT_SOURCE;
        goto out;
    }
    if (st != EZ_OK)
        goto fail;
    file_stem(in, stem, sizeof stem);
    if ((st = ez_lower(&plan, prog, stem, &d)) != EZ_OK || (st = ez_plan_schedule(&plan, &d)) != EZ_OK) {
        /* the model breaks a plan limit (indices per op, sumcheck variables, ...) */
        if (st == EZ_ERR_INVALID) {
            fprintf(stderr, "%s: error: %s\n", in, d.msg);
            rc = EZ_EXIT_SOURCE;
            goto out;
        }
        goto fail;
    }
    /* every relation the proof will check must be unique over the integers (no wrap
     * modulo p): refuse the model otherwise, naming the statement and the widest width
     * that would fit (runtime/prove/margins.h) */
    size_t bad;
    if ((st = ez_plan_soundness(&plan, &bad, &d)) == EZ_ERR_NUMERIC) {
        fprintf(stderr, "%s:%u: error: %s\n", in, bad < plan.nops ? plan.ops[bad].line : 0, d.msg);
        if (bad < plan.nops) {
            const ez_plan_tensor *t = &plan.tensors[plan.ops[bad].out];
            unsigned w = ez_margins_widest_width(&plan, bad);
            if (w > 0)
                fprintf(stderr, "help: '%s' has %u bits; at most %u bits fit (@bits(%u)), or use a smaller scale\n",
                        t->source_name, t->bits, w, w);
            else
                fprintf(stderr, "help: no width of '%s' fits: narrow its operands or use a smaller scale\n",
                        t->source_name);
        }
        rc = EZ_EXIT_SOURCE;
        goto out;
    }
    if (st != EZ_OK)
        goto fail;
    if ((st = ez_einc_write_file(outpath, &plan, &d)) != EZ_OK)
        goto fail;
    char hex[65];
    ez_plan_digest_hex(&plan, hex);
    printf("compiled %s: %zu ops, %zu tensors -> %s (digest %.16s)\n", plan.model, plan.nops, plan.ntensors, outpath,
           hex);
    goto out;
fail:
    ez_cli_error("compile", st, &d);
    rc = ez_exit_for_status(st);
    /* a plan the compiler itself cannot encode is a bug, not a usage error */
    if (st == EZ_ERR_INVALID)
        rc = EZ_EXIT_INTERNAL;
out:
    ez_plan_clear(&plan);
    ez_program_free(prog);
    if (have_diags)
        ez_diag_list_clear(&diags);
    free(src);
    return rc;
}
