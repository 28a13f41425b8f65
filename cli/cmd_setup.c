/* einzk setup — not implemented yet in this build. */
#include <stdio.h>

#include "cli/cli.h"

int ez_cmd_setup(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "einzk setup: not implemented yet in this version\n");
    return EZ_EXIT_INTERNAL;
}
