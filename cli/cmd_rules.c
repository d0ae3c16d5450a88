/* SPDX-License-Identifier: MIT */
/* gpuhier rules: placeholder until its issue lands. */
#include "cli/cli.h"

int
cmd_rules(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    error("'rules' is not implemented yet");
    return GH_EXIT_INTERNAL;
}
