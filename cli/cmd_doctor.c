/* SPDX-License-Identifier: MIT */
/* gpuhier doctor: placeholder until its issue lands. */
#include "cli/cli.h"

int
cmd_doctor(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    error("'doctor' is not implemented yet");
    return GH_EXIT_INTERNAL;
}
