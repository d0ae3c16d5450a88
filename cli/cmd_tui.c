/* SPDX-License-Identifier: MIT */
/* gpuhier tui: placeholder until its issue lands. */
#include "cli/cli.h"

int
cmd_tui(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    error("'tui' is not implemented yet");
    return GH_EXIT_INTERNAL;
}
