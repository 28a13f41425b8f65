/* progress — a progress line on stderr while a long command works, only when stderr is
 * a terminal (with --json too: the object goes to stdout). One line, redrawn in place:
 *
 *     einzk prove: lookups     67%
 *
 * A new phase, or a new whole percent of the same phase, redraws it; the line is ended
 * (newline) by ez_cli_progress_end, also before an error message. */
#ifndef EZ_CLI_PROGRESS_H
#define EZ_CLI_PROGRESS_H

#include <stdbool.h>

#include "lib/util.h"

typedef struct {
    const char *cmd;  /* "prove" */
    bool on;          /* stderr is a terminal */
    double t0, delay; /* nothing is drawn before t0 + delay seconds */
    char phase[24];   /* the phase drawn last */
    int pct;          /* its percent drawn last, -1: none */
    bool open;        /* a line is drawn and not ended */
} ez_cli_progress;

/* Start: on iff stderr is a terminal; draw nothing during the first delay seconds (a
 * short command shows no progress at all). */
void ez_cli_progress_init(ez_cli_progress *p, const char *cmd, double delay);

/* Report phase at fraction frac (0..1) of it; ctx is the ez_cli_progress (the signature
 * of ez_prove_opts.progress_fn). Phase "done" ends the line. */
void ez_cli_progress_fn(void *ctx, const char *phase, double frac);

/* End the line if one is open. */
void ez_cli_progress_end(ez_cli_progress *p);

/* A failed command's end: the line ended, then the error reported under p's command name
 * (ez_cli_error); returns its exit code. */
int ez_cli_progress_error(ez_cli_progress *p, ez_status st, const ez_diag *d);

#endif
