/* einzk verify — not implemented yet in this build. */
#include <stdio.h>

#include "cli/cli.h"

int ez_cmd_verify(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "einzk verify: not implemented yet in this version\n");
    return EZ_EXIT_INTERNAL;
}
