/* model — loading a compiled model for a subcommand (contract in model.h). */
#include "cli/model.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli/cli.h"
#include "compiler/diag.h"
#include "compiler/einc.h"
#include "runtime/exec/exec.h"
#include "runtime/prove/prove.h"

int ez_cli_front(const char *cmd, const char *path, const ez_cli_defines *defs, ez_program **prog)
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
    if (st != EZ_OK) {
        ez_cli_error(cmd, st, &d);
        rc = ez_exit_for_status(st);
        goto out;
    }
    st = ez_compile_front(path, (const char *)src, len, defs->defs, defs->n, &diags, prog);
    if (st == EZ_ERR_SOURCE) {
        if (ez_diag_render(&diags, &text) != EZ_OK) {
            ez_cli_error(cmd, EZ_ERR_NOMEM, NULL);
            rc = EZ_EXIT_INTERNAL;
            goto out;
        }
        fputs(text, stderr);
        rc = EZ_EXIT_SOURCE;
    } else if (st != EZ_OK) {
        ez_cli_error(cmd, st, NULL);
        rc = ez_exit_for_status(st);
    }
out:
    free(text);
    ez_diag_list_clear(&diags);
    free(src);
    return rc;
}

ez_status ez_cli_plan_load(ez_plan *plan, const char *path, ez_cli_plan_use use, ez_diag *d)
{
    ez_plan_init(plan);
    ez_status st = ez_einc_read_file(plan, path, d);
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

bool ez_cli_threads(const ez_cli_args *a, unsigned opt, uint64_t dflt)
{
    uint64_t n = dflt;
    if (!ez_cli_uint(a, opt, 10, 1, 1024, &n))
        return false;
#ifdef _OPENMP
    if (n > 0)
        omp_set_num_threads((int)n);
#endif
    return true;
}
