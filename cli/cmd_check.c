/* SPDX-License-Identifier: MIT */
/* gpuhier check: placeholder until its issue lands. */
#include "cli/cli.h"

int
cmd_check(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    error("'check' is not implemented yet");
    return GH_EXIT_INTERNAL;
}
