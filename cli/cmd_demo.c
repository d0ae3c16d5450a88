/* SPDX-License-Identifier: MIT */
/* gpuhier demo: placeholder until its issue lands. */
#include "cli/cli.h"

int
cmd_demo(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    error("'demo' is not implemented yet");
    return GH_EXIT_INTERNAL;
}
