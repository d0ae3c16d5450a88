/* SPDX-License-Identifier: MIT */
/* gpuhier analyze: placeholder until its issue lands. */
#include "cli/cli.h"

int
cmd_analyze(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    error("'analyze' is not implemented yet");
    return GH_EXIT_INTERNAL;
}
