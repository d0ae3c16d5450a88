/* SPDX-License-Identifier: MIT */
/*
 * gpuhier demo: open a report that ships with gpuhier in the TUI, or
 * print one of its views with --report. demo/demo.db is the PyTorch
 * training benchmark recorded on an H200; demo/tk-<name>.db are single
 * testkernels. scripts/record-demo.sh records them and
 * demo/PROVENANCE.md says when, where and how.
 */
#include "cli/cli.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
usage(FILE *f)
{
    fprintf(f, "usage: gpuhier demo [--name NAME] [--path | --list | --report [--view V [ARG]]]\n"
               "                    [tui options]\n"
               "  opens the demo report recorded on an H200 (demo/demo.db) in the TUI\n"
               "  --name NAME  a testkernel demo instead (demo/tk-NAME.db; --list shows them)\n"
               "  --report     print a view as text (gpuhier report options follow)\n"
               "  --path       print the report's path\n");
}

static int
list_demos(void)
{
    char *dir = cli_data_path("demo");
    if (!dir)
        return error("no demo directory is installed");
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return error("cannot list the demo directory");
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 3 && !strcmp(e->d_name + n - 3, ".db"))
            printf("%.*s\n", (int)(n - 3), e->d_name);
    }
    closedir(d);
    free(dir);
    return 0;
}

int
cmd_demo(int argc, const char **argv)
{
    const char *name = NULL;
    int report = 0, want_path = 0;
    const char **args = calloc((size_t)argc + 2, sizeof(*args));
    if (!args)
        return GH_EXIT_INTERNAL;
    int n = 1, rc = GH_EXIT_OK;
    char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            goto out;
        } else if (!strcmp(a, "--list")) {
            rc = list_demos() ? GH_EXIT_NO_REPORT : GH_EXIT_OK;
            goto out;
        } else if (!strcmp(a, "--name") && i + 1 < argc) {
            name = argv[++i];
        } else if (!strcmp(a, "--report")) {
            report = 1;
        } else if (!strcmp(a, "--path")) {
            want_path = 1;
        } else {
            args[n++] = a;
        }
    }
    if (name && (strchr(name, '/') || !*name)) {
        error("'%s' is not a demo name (see gpuhier demo --list)", name);
        rc = GH_EXIT_USAGE;
        goto out;
    }
    char rel[256];
    snprintf(rel, sizeof(rel), name ? "demo/tk-%s.db" : "demo/demo.db", name);
    path = cli_data_path(rel);
    if (!path) {
        error("the demo report '%s' is not installed; record it with scripts/record-demo.sh", rel);
        rc = GH_EXIT_NO_REPORT;
        goto out;
    }
    if (want_path) {
        printf("%s\n", path);
        goto out;
    }
    if (report) {
        /* `report` wants the path first: its NAME argument comes after. */
        args[0] = "report";
        memmove(args + 2, args + 1, (size_t)(n - 1) * sizeof(*args));
        args[1] = path;
        rc = cmd_report(n + 1, args);
    } else {
        args[0] = "tui";
        args[n++] = path;
        rc = cmd_tui(n, args);
    }
out:
    free(path);
    free(args);
    return rc;
}
