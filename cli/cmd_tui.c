/* SPDX-License-Identifier: MIT */
/*
 * gpuhier tui: browse a report in the terminal (tui/tui.h).
 *
 * Also holds cli_open_for_reading(), shared with `report` and `demo`:
 * the TUI never links the analyzer, so a report that was never analyzed
 * (or analyzed by an older rule set) is handed over as the analyzed
 * in-memory copy analyzer_open_report() makes. When analysis is
 * impossible the report is shown without findings, with a warning.
 */
#include "cli/cli.h"

#include "analyzer/analyzer.h"
#include "export/export.h"
#include "schema/store.h"
#include "tui/tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
cli_open_for_reading(const char *path, int raw, sqlite3 **out)
{
    *out = NULL;
    sqlite3 *db = NULL;
    if (!raw) {
        /* One open, one integrity check: analyzer_open_report() does both. */
        if (analyzer_open_report(path, NULL, &db) == 0) {
            cli_store_note();
            *out = db;
            return GH_EXIT_OK;
        }
        /* Rules failing on a damaged report: the report's fault, not the rules'. */
        if (analyzer_failure() == ANALYZER_ERR_REPORT || store_diagnose(path))
            return cli_analyzer_failed(path);
        warning("cannot analyze '%s': %s; showing what it holds", path, analyzer_error());
    }
    if (store_open(path, STORE_READ_ONLY, &db)) {
        error("%s", store_error());
        return cli_store_exit_code();
    }
    if (raw)
        cli_store_note();
    *out = db;
    return GH_EXIT_OK;
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: gpuhier tui [-C] [--mouse] [--ascii] [--raw] [--all] [--view V]\n"
               "                   [--nvtx REGEX] report.db\n"
               "       gpuhier tui [options] before.db after.db   the diff: did the fix work\n"
               "  -C, --monochrome  no colours (also when NO_COLOR is set)\n"
               "  --mouse           clicks select, the wheel scrolls\n"
               "  --ascii           draw with ASCII only (automatic outside UTF-8 locales)\n"
               "  --raw             do not analyze a report that was never analyzed\n"
               "  --view V          start in summary, kernels, findings or copies\n"
               "  --all             also list the notes with no time lost\n"
               "  --nvtx REGEX      kernels and findings run in NVTX ranges whose path matches\n"
               "  --map OLD=NEW     two reports: kernel OLD of before.db is NEW in after.db\n"
               "Press ? in the browser for the keys; 'gpuhier help tui' has the details.\n");
}

/* `owned` collects the copies --map makes (freed by the caller); map has argc entries. */
static int
run_tui(int argc, const char **argv, struct export_diff_map *map, char **owned)
{
    struct tui_opts o = {.map = map};
    const char *path = NULL, *after = NULL;
    int raw = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return GH_EXIT_OK;
        } else if (!strcmp(a, "-C") || !strcmp(a, "--monochrome")) {
            o.monochrome = 1;
        } else if (!strcmp(a, "--mouse")) {
            o.mouse = 1;
        } else if (!strcmp(a, "--ascii")) {
            o.ascii = 1;
        } else if (!strcmp(a, "--raw")) {
            raw = 1;
        } else if (!strcmp(a, "--all")) {
            o.all = 1;
        } else if (!strcmp(a, "--view") && i + 1 < argc) {
            o.start_view = argv[++i];
        } else if (!strncmp(a, "--view=", 7)) {
            o.start_view = a + 7;
        } else if (!strcmp(a, "--nvtx") && i + 1 < argc) {
            o.nvtx = argv[++i];
        } else if (!strncmp(a, "--nvtx=", 7)) {
            o.nvtx = a + 7;
        } else if ((!strcmp(a, "--map") && i + 1 < argc) || !strncmp(a, "--map=", 6)) {
            /* As `gpuhier diff --map`: kernel OLD of before.db is NEW in after.db. */
            const char *v = a[5] == '=' ? a + 6 : argv[++i], *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1]) {
                error("--map wants OLD=NEW, not '%s'", v);
                return GH_EXIT_USAGE;
            }
            owned[o.n_map] = strndup(v, (size_t)(eq - v));
            if (!owned[o.n_map])
                abort();
            map[o.n_map] = (struct export_diff_map){owned[o.n_map], eq + 1};
            o.n_map++;
        } else if (a[0] == '-' && a[1]) {
            error("unknown option '%s'", a);
            usage(stderr);
            return GH_EXIT_USAGE;
        } else if (!path) {
            path = a;
        } else if (!after) {
            after = a;
        } else {
            error("one report, or two to compare ('%s', '%s' and '%s')", path, after, a);
            return GH_EXIT_USAGE;
        }
    }
    if (!path) {
        usage(stderr);
        return GH_EXIT_USAGE;
    }
    if (o.start_view && strcmp(o.start_view, "summary") && strcmp(o.start_view, "kernels") &&
        strcmp(o.start_view, "findings") && strcmp(o.start_view, "copies")) {
        error("unknown view '%s' (summary, kernels, findings, copies)", o.start_view);
        return GH_EXIT_USAGE;
    }
    if (o.nvtx && cli_check_regex("tui: --nvtx", o.nvtx))
        return GH_EXIT_USAGE;
    if (o.nvtx && after) {
        error("--nvtx filters one report, not the diff of two");
        return GH_EXIT_USAGE;
    }
    if (o.n_map && !after) {
        error("--map pairs the kernels of two reports");
        return GH_EXIT_USAGE;
    }
    sqlite3 *db, *before = NULL;
    int rc;
    if (after) {
        /* Two reports: the first is before, the second after (as `gpuhier diff`). */
        rc = cli_open_for_reading(path, raw, &before);
        if (rc)
            return rc;
        rc = cli_open_for_reading(after, raw, &db);
        if (rc) {
            sqlite3_close(before);
            return rc;
        }
        o.before = before;
    } else {
        rc = cli_open_for_reading(path, raw, &db);
        if (rc)
            return rc;
    }
    /* After the report checks, so a missing report says so first. */
    const char *nd = getenv("GPUHIER_TUI_NO_DISPLAY");
    if (!(nd && *nd && strcmp(nd, "0")) && !isatty(STDOUT_FILENO)) {
        if (after)
            error("the TUI needs a terminal; 'gpuhier diff %s %s' prints the diff as text", path,
                  after);
        else
            error("the TUI needs a terminal; 'gpuhier report %s' prints its views as text", path);
        sqlite3_close(db);
        sqlite3_close(before);
        return GH_EXIT_USAGE;
    }
    const char *slash = strrchr(path, '/');
    char *both = NULL;
    o.report_name = slash ? slash + 1 : path;
    if (after) {
        const char *s2 = strrchr(after, '/');
        size_t n = strlen(o.report_name) + strlen(after) + 8;
        both = malloc(n);
        if (!both)
            abort();
        snprintf(both, n, "%s -> %s", o.report_name, s2 ? s2 + 1 : after);
        o.report_name = both;
    }
    rc = tui_main(db, &o) ? GH_EXIT_INTERNAL : GH_EXIT_OK;
    sqlite3_close(db);
    sqlite3_close(before);
    free(both);
    /* The browser prints its own message; a damaged report gets the report's. */
    if (rc && (store_diagnose(path) || (after && store_diagnose(after)))) {
        error("%s", store_error());
        rc = cli_store_exit_code();
    }
    return rc;
}

int
cmd_tui(int argc, const char **argv)
{
    struct export_diff_map *map = calloc((size_t)argc + 1, sizeof(*map));
    char **owned = calloc((size_t)argc + 1, sizeof(*owned));
    if (!map || !owned)
        abort();
    int rc = run_tui(argc, argv, map, owned);
    for (int i = 0; i < argc; i++)
        free(owned[i]);
    free(owned);
    free(map);
    return rc;
}
