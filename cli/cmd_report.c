/* SPDX-License-Identifier: MIT */
/*
 * gpuhier report: the TUI's views as plain text, for scripts, tests and
 * terminals without curses. The rows come from the TUI's own views
 * (tui_report()), so both always agree.
 */
#include "cli/cli.h"

#include "schema/store.h"
#include "tui/tui.h"

#include <stdio.h>
#include <string.h>

static void
usage(FILE *f)
{
    fprintf(f, "usage: gpuhier report report.db [--raw] [--all] [--nvtx REGEX] [--view V] [NAME]\n"
               "  --view V   summary (default), kernels, configs, kernel NAME, profiles NAME,\n"
               "             source NAME, findings, finding RANK, copies, nvtx,\n"
               "             ranks (a merged job)\n"
               "  --nvtx REGEX  kernels, configs, findings: only those run in NVTX ranges\n"
               "             whose path matches\n"
               "  --raw      do not analyze a report that was never analyzed\n"
               "  --all      also the notes with no time lost\n");
}

int
cmd_report(int argc, const char **argv)
{
    const char *path = NULL, *view = "summary", *arg = NULL, *nvtx = NULL;
    int raw = 0, all = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return GH_EXIT_OK;
        } else if (!strcmp(a, "--view") && i + 1 < argc) {
            view = argv[++i];
        } else if (!strncmp(a, "--view=", 7)) {
            view = a + 7;
        } else if (!strcmp(a, "--nvtx") && i + 1 < argc) {
            nvtx = argv[++i];
        } else if (!strncmp(a, "--nvtx=", 7)) {
            nvtx = a + 7;
        } else if (!strcmp(a, "--raw")) {
            raw = 1;
        } else if (!strcmp(a, "--all")) {
            all = 1;
        } else if (!strcmp(a, "--")) {
            if (i + 1 < argc)
                arg = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            error("unknown option '%s'", a);
            usage(stderr);
            return GH_EXIT_USAGE;
        } else if (!path) {
            path = a;
        } else if (!arg) {
            arg = a;
        } else {
            error("unexpected argument '%s'", a);
            return GH_EXIT_USAGE;
        }
    }
    if (!path) {
        usage(stderr);
        return GH_EXIT_USAGE;
    }
    if ((!strcmp(view, "kernel") || !strcmp(view, "profiles") || !strcmp(view, "source") ||
         !strcmp(view, "finding")) &&
        !arg) {
        error("--view %s needs a %s", view,
              !strcmp(view, "finding") ? "finding rank" : "kernel name");
        return GH_EXIT_USAGE;
    }
    static const char *const views[] = {"summary",  "kernels", "configs",  "kernel",
                                        "profiles", "source",  "findings", "finding",
                                        "copies",   "nvtx",    "ranks"};
    int known = 0;
    for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
        known |= !strcmp(view, views[i]);
    if (!known) {
        error("unknown view '%s' (summary, kernels, configs, kernel, profiles, source, findings, "
              "finding, copies, nvtx, ranks)",
              view);
        return GH_EXIT_USAGE;
    }
    if (nvtx && strcmp(view, "kernels") && strcmp(view, "configs") && strcmp(view, "findings")) {
        error("--nvtx filters the kernels, configs and findings views, not '%s'", view);
        return GH_EXIT_USAGE;
    }
    if (nvtx && cli_check_regex("report: --nvtx", nvtx))
        return GH_EXIT_USAGE;
    sqlite3 *db;
    int rc = cli_open_for_reading(path, raw, &db);
    if (rc)
        return rc;
    if (tui_report_nvtx(db, view, arg, all, nvtx, stdout))
        rc = cli_report_failed(path, NULL, GH_EXIT_USAGE, store_error());
    sqlite3_close(db);
    return rc;
}
