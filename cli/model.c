/* model — loading a compiled model for a subcommand (contract in model.h). */
#include "cli/model.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli/cli.h"
#include "cli/report.h"
#include "compiler/diag.h"
#include "compiler/einc.h"
#include "compiler/lower.h"
#include "compiler/schedule.h"
#include "runtime/exec/exec.h"
#include "runtime/formats/sections.h"
#include "runtime/prove/layout.h"
#include "runtime/prove/margins.h"
#include "runtime/prove/prove.h"
#include "runtime/prove/weights.h"

json_t *ez_cli_diag_json(const ez_diag_list *l, const ez_diag_item *it)
{
    json_t *o = json_object();
    json_object_set_new(o, "message", json_string(it->msg));
    json_object_set_new(o, "file", json_string(l->path));
    if (it->span.first_line > 0) {
        json_object_set_new(o, "line", json_integer(it->span.first_line));
        json_object_set_new(o, "column", json_integer(it->span.first_column));
    }
    return o;
}

/* Under --json, the source's first error as the error object (cli/report.h). */
static void json_source_error(const ez_diag_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (!l->items[i].warning) {
            const ez_diag_item *it = &l->items[i];
            ez_cli_report_json_error(EZ_EXIT_SOURCE, it->msg, l->path, it->span.first_line, it->span.first_column);
            return;
        }
    ez_cli_report_json_error(EZ_EXIT_SOURCE, "the source has errors", l->path, 0, 0);
}

int ez_cli_front(const char *cmd, const char *path, const ez_cli_defines *defs, json_t *warnings, ez_program **prog)
{
    int rc = EZ_CLI_RUN;
    uint8_t *src = NULL;
    size_t len = 0;
    char *text = NULL;
    ez_diag d = {{0}};
    ez_diag_list diags;
    ez_diag_list_init(&diags, path, NULL, 0);
    *prog = NULL;
    ez_status st = ez_file_read(path, &src, &len, &d);
    if (st == EZ_OK)
        st = ez_cli_expect_kind(path, src, len, NULL, "a .ein source", &d);
    if (st != EZ_OK) {
        rc = ez_cli_error(cmd, st, &d);
        goto out;
    }
    ez_front_opts fo = {defs->defs, defs->n, defs->scale, defs->bits};
    st = ez_compile_front_opts(path, (const char *)src, len, &fo, &diags, prog);
    if ((st == EZ_ERR_SOURCE || st == EZ_OK) && diags.n > 0) {
        /* errors, or warnings of a valid source: both to stderr */
        if (ez_diag_render(&diags, &text) != EZ_OK) {
            ez_cli_error(cmd, EZ_ERR_NOMEM, NULL);
            rc = EZ_EXIT_INTERNAL;
            goto out;
        }
        fputs(text, stderr);
        for (size_t i = 0; warnings && st == EZ_OK && i < diags.n; i++)
            json_array_append_new(warnings, ez_cli_diag_json(&diags, &diags.items[i]));
    }
    if (st == EZ_ERR_SOURCE) {
        json_source_error(&diags);
        rc = EZ_EXIT_SOURCE;
    } else if (st != EZ_OK) {
        rc = ez_cli_error(cmd, st, NULL);
    }
out:
    if (rc != EZ_CLI_RUN) {
        ez_program_free(*prog);
        *prog = NULL;
    }
    free(text);
    ez_diag_list_clear(&diags);
    free(src);
    return rc;
}

ez_status ez_cli_expect_kind(const char *path, const uint8_t *data, size_t len, const char *kind, const char *noun,
                             ez_diag *d)
{
    const char *is = ez_file_kind(data, len);
    if (is == NULL && kind == NULL)
        return EZ_OK;
    if (is != NULL && kind != NULL && !strcmp(is, kind))
        return EZ_OK;
    if (is != NULL) {
        ez_diag_set(d, "%s is a %s, not %s (einzk inspect %s shows what it holds)", path, is, noun, path);
        return EZ_ERR_INPUT;
    }
    return EZ_OK; /* not an einzk file: the reader of `kind` says what is wrong */
}

ez_status ez_cli_expect_data(ez_diag *d, size_t n, const char *const *paths, const char *const *nouns)
{
    ez_status st = EZ_OK;
    for (size_t i = 0; i < n && st == EZ_OK; i++)
        if (paths[i])
            st = ez_cli_expect_kind_file(paths[i], NULL, nouns[i], d);
    return st;
}

ez_status ez_cli_expect_kind_file(const char *path, const char *kind, const char *noun, ez_diag *d)
{
    uint8_t head[8];
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return EZ_OK; /* the reader reports it */
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    ez_status st = ez_cli_expect_kind(path, head, n, kind, noun, d);
    size_t pl = strlen(path);
    if (st == EZ_OK && kind != NULL && !strcmp(kind, EZ_KIND_EINC) && pl > 4 && !strcmp(path + pl - 4, ".ein") &&
        ez_file_kind(head, n) == NULL) {
        ez_diag_set(d, "%s is a .ein source, not %s (einzk compile %s -o MODEL.einc makes one)", path, noun, path);
        st = EZ_ERR_INPUT;
    }
    return st;
}

ez_status ez_cli_plan_load(ez_plan *plan, const char *path, ez_cli_plan_use use, ez_diag *d)
{
    ez_plan_init(plan);
    ez_status st = ez_cli_expect_kind_file(path, EZ_KIND_EINC, "a compiled model (.einc)", d);
    if (st != EZ_OK)
        return st;
    st = ez_einc_read_file(plan, path, d);
    if (st != EZ_OK || use == EZ_CLI_PLAN_READ)
        return st;
    /* the compiler never writes a plan the executor cannot run: the file is bad */
    if (ez_exec_check_plan(plan, d) != EZ_OK)
        return EZ_ERR_FORMAT;
    if (use == EZ_CLI_PLAN_PROVE)
        return ez_prove_check_plan(plan, d);
    return EZ_OK;
}

void ez_cli_tune_malloc(void)
{
    (void)mallopt(M_MMAP_THRESHOLD, 1 << 30);
    (void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

/* EZ_SPILL_BUDGET as bytes: false unless it is a positive decimal integer. */
static bool spill_budget(const char *b, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(b, &end, 10);
    if (errno || end == b || *end || v == 0 || b[0] == '-')
        return false;
    *out = v;
    return true;
}

bool ez_cli_spill_dir_ok(const char *cmd)
{
    const char *dir = getenv("EZ_SPILL_DIR"), *budget = getenv("EZ_SPILL_BUDGET");
    uint64_t bv;
    if (budget != NULL && !spill_budget(budget, &bv)) {
        ez_cli_fail(cmd, EZ_EXIT_INPUT, "EZ_SPILL_BUDGET=%s is not a positive number of bytes", budget);
        return false;
    }
    struct stat sb;
    if (dir == NULL || dir[0] == 0)
        return true;
    const char *why = NULL;
    if (stat(dir, &sb) != 0)
        why = strerror(errno);
    else if (!S_ISDIR(sb.st_mode))
        why = "not a directory";
    else if (access(dir, W_OK | X_OK) != 0)
        why = strerror(errno);
    if (why)
        ez_cli_fail(cmd, EZ_EXIT_INPUT, "EZ_SPILL_DIR=%s is not a writable directory (%s)", dir, why);
    return why == NULL;
}

static bool writable_dir(const char *dir)
{
    struct stat sb;
    return dir && dir[0] && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) && access(dir, W_OK | X_OK) == 0;
}

void ez_cli_spill_auto(const char *cmd, const ez_plan *p, bool advice)
{
    if (getenv("EZ_SPILL_DIR") != NULL)
        return; /* the user's choice, empty (no spill) included */
    uint64_t budget = 0;
    const char *b = getenv("EZ_SPILL_BUDGET");
    if (b != NULL) {
        if (!spill_budget(b, &budget))
            return; /* refused by ez_cli_spill_dir_ok */
    } else {
        long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
        if (pages <= 0 || psz <= 0)
            return; /* unknown: leave it to the user */
        budget = (uint64_t)pages * (uint64_t)psz / 2;
    }
    uint64_t entries = 0;
    for (size_t t = 0; t < p->ntensors; t++)
        if (p->tensors[t].kind == EZ_TENSOR_WEIGHT)
            entries += ez_plan_tensor_numel(&p->tensors[t]);
    if (advice) {
        ez_layout_sizes z;
        ez_diag d = {{0}};
        if (ez_layout_sizes_compute(&z, p, &d) != EZ_OK)
            return; /* the prover reports it */
        entries += z.advice_elems;
        ez_layout_sizes_clear(&z);
    }
    const uint64_t need = entries > UINT64_MAX / 24 ? UINT64_MAX : entries * 24;
    if (need <= budget)
        return;
    const char *dir = getenv("TMPDIR");
    if (!writable_dir(dir))
        dir = "/tmp";
    if (!writable_dir(dir) || setenv("EZ_SPILL_DIR", dir, 1) != 0)
        return;
    fprintf(stderr,
            "einzk %s: note: the prover needs about %.1f GB (%llu committed entries), more than the budget of "
            "%.1f GB: its WHIR data is spilled to %s (EZ_SPILL_DIR; set it to choose, or empty to keep it in "
            "memory)\n",
            cmd, (double)need / 1e9, (unsigned long long)entries, (double)budget / 1e9, dir);
}

bool ez_cli_threads(const ez_cli_args *a, unsigned opt, uint64_t dflt)
{
    uint64_t n = dflt;
    if (!ez_cli_uint(a, opt, 10, 1, 1024, &n))
        return false;
    /* more threads than CPUs only adds switching: cap, and say so */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef _OPENMP
    cpus = omp_get_num_procs();
#endif
    if (a->value[opt] && cpus > 0 && n > (uint64_t)cpus) {
        fprintf(stderr, "einzk %s: note: --threads %llu is more than the %ld CPUs; using %ld\n", a->cmd->name,
                (unsigned long long)n, cpus, cpus);
        n = (uint64_t)cpus;
    }
#ifdef _OPENMP
    if (n > 0)
        omp_set_num_threads((int)n);
#endif
    return true;
}


int ez_cli_compile(const char *cmd, const char *in, const ez_cli_defines *defs, json_t *warnings, ez_plan *plan)
{
    ez_diag d = {{0}};
    ez_program *prog = NULL;
    char stem[EZ_MAX_NAME];
    ez_status st = EZ_OK;
    int rc;
    ez_plan_init(plan);
    if ((rc = ez_cli_front(cmd, in, defs, warnings, &prog)) != EZ_CLI_RUN)
        return rc;
    rc = EZ_CLI_RUN;
    ez_cli_file_stem(in, stem, sizeof stem);
    if ((st = ez_lower(plan, prog, stem, &d)) != EZ_OK || (st = ez_plan_schedule(plan, &d)) != EZ_OK) {
        /* the model breaks a plan limit (indices per op, sumcheck variables, ...) */
        if (st == EZ_ERR_INVALID) {
            fprintf(stderr, "%s: error: %s\n", in, d.msg);
            ez_cli_report_json_error(EZ_EXIT_SOURCE, d.msg, in, 0, 0);
            rc = EZ_EXIT_SOURCE;
            goto out;
        }
        goto fail;
    }
    /* every relation the proof will check must be unique over the integers (no wrap
     * modulo p): refuse the model otherwise, naming the statement and the widest width
     * that would fit (runtime/prove/margins.h) */
    size_t bad;
    if ((st = ez_plan_soundness(plan, &bad, &d)) == EZ_ERR_NUMERIC) {
        unsigned line = bad < plan->nops ? plan->ops[bad].line : 0;
        fprintf(stderr, "%s:%u: error: %s\n", in, line, d.msg);
        ez_cli_report_json_error(EZ_EXIT_SOURCE, d.msg, in, (int)line, 0);
        if (bad < plan->nops) {
            const ez_plan_tensor *t = &plan->tensors[plan->ops[bad].out];
            unsigned w = ez_margins_widest_width(plan, bad);
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
    if (st == EZ_OK)
        st = ez_plan_compute_digest(plan, &d);
    if (st == EZ_OK)
        goto out;
fail:
    /* a plan the compiler itself cannot encode is a bug, not a usage error */
    rc = st == EZ_ERR_INVALID ? EZ_EXIT_INTERNAL : ez_exit_for_status(st);
    ez_cli_fail(cmd, rc, "%s", d.msg[0] ? d.msg : ez_status_str(st));
out:
    if (rc != EZ_CLI_RUN)
        ez_plan_clear(plan);
    ez_program_free(prog);
    return rc;
}

bool ez_cli_pcs_scheme(const ez_cli_args *a, unsigned opt, unsigned *scheme)
{
    const char *v = a->value[opt];
    *scheme = EZ_PCS_DEFAULT_SCHEME;
    if (v == NULL)
        return true;
    if (!strcmp(v, "whir"))
        *scheme = EZ_PCS_SCHEME_WHIR;
    else if (!strcmp(v, "ligero"))
        *scheme = EZ_PCS_SCHEME_LIGERO_P1;
    else {
        ez_cli_usage_error(a->cmd, "%s must be ligero or whir, not '%s'", a->cmd->opts[opt].name, v);
        return false;
    }
    return true;
}

void ez_cli_file_stem(const char *path, char *out, size_t cap)
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
