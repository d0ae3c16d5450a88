/* SPDX-License-Identifier: MIT */
/* gpuhier run: placeholder until its issue lands. */
#include "cli/cli.h"

int
cmd_run(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    error("'run' is not implemented yet");
    return GH_EXIT_INTERNAL;
}
