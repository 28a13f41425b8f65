/* progress — see progress.h. */
#include "cli/progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/util.h"

void ez_cli_progress_init(ez_cli_progress *p, const char *cmd, double delay)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->on = isatty(2);
    p->t0 = ez_now();
    p->delay = delay;
    p->pct = -1;
}

void ez_cli_progress_fn(void *ctx, const char *phase, double frac)
{
    ez_cli_progress *p = ctx;
    if (!p->on)
        return;
    if (!strcmp(phase, "done")) {
        ez_cli_progress_end(p);
        return;
    }
    if (p->delay > 0 && ez_now() - p->t0 < p->delay)
        return;
    int pct = (int)(frac < 0 ? 0 : frac > 1 ? 100 : frac * 100);
    if (pct == p->pct && !strncmp(phase, p->phase, sizeof p->phase))
        return;
    snprintf(p->phase, sizeof p->phase, "%s", phase);
    p->pct = pct;
    fprintf(stderr, "\reinzk %s: %-10s %3d%%", p->cmd, phase, pct);
    fflush(stderr);
    p->open = true;
}

void ez_cli_progress_end(ez_cli_progress *p)
{
    if (p->open)
        fputc('\n', stderr);
    p->open = false;
    p->pct = -1;
}

int ez_cli_progress_error(ez_cli_progress *p, ez_status st, const ez_diag *d)
{
    ez_cli_progress_end(p);
    return ez_cli_error(p->cmd, st, d);
}
