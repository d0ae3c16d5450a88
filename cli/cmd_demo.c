/* SPDX-License-Identifier: MIT */
/*
 * gpuhier demo: open the report that ships with gpuhier (demo/demo.db,
 * recorded on an H200 by scripts/record-demo.sh; demo/PROVENANCE.md says
 * how) in the TUI, or print one of its views with --report.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
cmd_demo(int argc, const char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: gpuhier demo [--path] [--report [--view V [NAME]]] [tui options]\n"
                   "  opens the shipped demo report (demo/demo.db) in the TUI;\n"
                   "  --report prints a view as text instead, --path prints where it is\n");
            return GH_EXIT_OK;
        }
    char *path = cli_data_path("demo/demo.db");
    if (!path) {
        error("the demo report is not installed (demo/demo.db); record it with "
              "scripts/record-demo.sh");
        return GH_EXIT_NO_REPORT;
    }
    int report = 0;
    const char **args = calloc((size_t)argc + 2, sizeof(*args));
    if (!args) {
        free(path);
        return GH_EXIT_INTERNAL;
    }
    int n = 0;
    args[n++] = "demo";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--path")) {
            printf("%s\n", path);
            free(path);
            free(args);
            return GH_EXIT_OK;
        }
        if (!strcmp(argv[i], "--report"))
            report = 1;
        else
            args[n++] = argv[i];
    }
    args[n++] = path;
    /* The report path goes last; `report` takes a NAME after it, so move it first there. */
    int rc;
    if (report) {
        memmove(args + 2, args + 1, (size_t)(n - 2) * sizeof(*args));
        args[1] = path;
        rc = cmd_report(n, args);
    } else {
        rc = cmd_tui(n, args);
    }
    free(path);
    free(args);
    return rc;
}
