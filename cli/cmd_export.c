/* SPDX-License-Identifier: MIT */
/* gpuhier export: placeholder until its issue lands. */
#include "cli/cli.h"

int
cmd_export(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    error("'export' is not implemented yet");
    return GH_EXIT_INTERNAL;
}
