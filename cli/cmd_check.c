/* SPDX-License-Identifier: MIT */
/*
 * gpuhier check: the CI gate (docs/cmd-check.md). Exit 0 when no finding
 * reaches --fail-on, GH_EXIT_FINDINGS otherwise, one line per failing
 * finding on stdout; with --baseline only new or worse findings fail.
 * Both reports are only read (analyzed in memory when needed).
 */
#include "cli/cli.h"

#include "export/export.h"
#include "schema/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: gpuhier check report.db [--fail-on note|warning|error] [--rule ID] [--kernel "
            "REGEX]\n"
            "                     [--baseline before.db] [--tolerance PCT] [--raw] [--rules DIR]\n"
            "  --fail-on SEV      fail on findings of this severity or worse (default warning)\n"
            "  --rule ID          only this rule\n"
            "  --kernel REGEX     only kernels whose demangled name matches (POSIX extended)\n"
            "  --baseline B.db    fail only on findings new or worse than in B.db\n"
            "  --tolerance PCT    with --baseline: more time lost than the baseline by over PCT %% "
            "is worse (default 10)\n"
            "  --raw              use the findings stored in the reports; never analyze\n"
            "  --rules DIR        analyze with the rules in DIR\n"
            "Exit status: 0 clean, 1 findings, 2 usage, 3/4 report problems, 5 broken rules.\n");
}

int
cmd_check(int argc, const char **argv)
{
    struct export_check_opts o = {.fail_on = "warning", .tolerance_pct = 10};
    const char *path = NULL, *base_path = NULL, *rules_dir = NULL;
    int raw = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return GH_EXIT_OK;
        } else if (cli_opt_value(argc, argv, &i, "--fail-on", &v)) {
            o.fail_on = v;
        } else if (cli_opt_value(argc, argv, &i, "--rule", &v)) {
            o.rule = v;
        } else if (cli_opt_value(argc, argv, &i, "--kernel", &v)) {
            o.kernel_regex = v;
        } else if (cli_opt_value(argc, argv, &i, "--baseline", &v)) {
            base_path = v;
        } else if (cli_opt_value(argc, argv, &i, "--tolerance", &v)) {
            char *end;
            o.tolerance_pct = strtod(v, &end);
            if (*end || !(o.tolerance_pct >= 0) || o.tolerance_pct > 1e6) {
                error("--tolerance wants a percentage >= 0, not '%s'", v);
                return GH_EXIT_USAGE;
            }
        } else if (cli_opt_value(argc, argv, &i, "--rules", &v)) {
            rules_dir = v;
        } else if (!strcmp(a, "--raw")) {
            raw = 1;
        } else if (a[0] == '-' && a[1]) {
            error("unknown option '%s'", a);
            usage(stderr);
            return GH_EXIT_USAGE;
        } else if (!path) {
            path = a;
        } else {
            error("one report at a time ('%s' and '%s'); the other goes after --baseline", path, a);
            return GH_EXIT_USAGE;
        }
    }
    if (!path) {
        usage(stderr);
        return GH_EXIT_USAGE;
    }
    if (export_severity_rank(o.fail_on) == 0) {
        error("unknown severity '%s' (note, warning, error)", o.fail_on);
        return GH_EXIT_USAGE;
    }
    if (o.kernel_regex && cli_check_regex("--kernel", o.kernel_regex))
        return GH_EXIT_USAGE;
    sqlite3 *db = NULL, *base = NULL;
    int rc = cli_open_analyzed(path, raw, rules_dir, &db);
    if (rc)
        return rc;
    if (base_path && (rc = cli_open_analyzed(base_path, raw, rules_dir, &base))) {
        sqlite3_close(db);
        return rc;
    }
    int n = export_check(db, base, &o, stdout);
    if (n < 0) {
        rc = cli_report_failed(path, base_path, GH_EXIT_INTERNAL, store_error());
    } else if (n > 0) {
        fprintf(stderr, "gpuhier check: %d finding%s at or above %s%s\n", n, n == 1 ? "" : "s",
                o.fail_on, base ? " new or worse than the baseline" : "");
        rc = GH_EXIT_FINDINGS;
    } else {
        fprintf(stderr, "gpuhier check: clean (no finding at or above %s%s)\n", o.fail_on,
                base ? " new or worse than the baseline" : "");
        rc = GH_EXIT_OK;
    }
    sqlite3_close(base);
    sqlite3_close(db);
    return rc;
}
