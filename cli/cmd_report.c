/* SPDX-License-Identifier: MIT */
/* gpuhier report: placeholder until its issue lands. */
#include "cli/cli.h"

int
cmd_report(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    error("'report' is not implemented yet");
    return GH_EXIT_INTERNAL;
}
