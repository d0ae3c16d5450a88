/* SPDX-License-Identifier: MIT */
/* gpuhier diff: placeholder until its issue lands. */
#include "cli/cli.h"

int
cmd_diff(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    error("'diff' is not implemented yet");
    return GH_EXIT_INTERNAL;
}
