/* SPDX-License-Identifier: MIT */
/*
 * gpuhier diff: did the fix work (docs/cmd-diff.md). Two reports, per
 * kernel and per finding, as text, JSON or the Markdown "fix verified"
 * comment. Both reports are only read.
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
    fprintf(
        f,
        "usage: gpuhier diff before.db after.db [--map OLD=NEW]... [--format text|json|md]\n"
        "                    [--rule ID] [--kernel REGEX] [--raw] [--rules DIR]\n"
        "  --map OLD=NEW      kernel OLD in before.db is NEW in after.db (demangled or short "
        "names)\n"
        "  --format F         text (default), json, or md (the ticket's \"fix verified\" comment)\n"
        "  --rule ID          only findings of this rule (the ticket's)\n"
        "  --kernel REGEX     only kernels whose demangled name matches (POSIX extended)\n"
        "  --raw              use the findings stored in the reports; never analyze\n"
        "  --rules DIR        analyze with the rules in DIR\n");
}

static const char *
base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int
cmd_diff(int argc, const char **argv)
{
    struct export_diff_opts o = {.format = "text"};
    const char *paths[2] = {NULL, NULL}, *rules_dir = NULL;
    struct export_diff_map *map = calloc((size_t)argc + 1, sizeof(*map));
    char **owned = calloc((size_t)argc + 1, sizeof(*owned));
    size_t n_map = 0;
    int raw = 0, rc = GH_EXIT_USAGE;
    sqlite3 *db[2] = {NULL, NULL};
    if (!map || !owned)
        abort();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            rc = GH_EXIT_OK;
            goto out;
        } else if (cli_opt_value(argc, argv, &i, "--format", &v)) {
            o.format = v;
        } else if (cli_opt_value(argc, argv, &i, "--map", &v)) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1]) {
                error("--map wants OLD=NEW, not '%s'", v);
                goto out;
            }
            owned[n_map] = strndup(v, (size_t)(eq - v));
            map[n_map] = (struct export_diff_map){owned[n_map], eq + 1};
            n_map++;
        } else if (cli_opt_value(argc, argv, &i, "--rule", &v)) {
            o.rule = v;
        } else if (cli_opt_value(argc, argv, &i, "--kernel", &v)) {
            o.kernel_regex = v;
        } else if (cli_opt_value(argc, argv, &i, "--rules", &v)) {
            rules_dir = v;
        } else if (!strcmp(a, "--raw")) {
            raw = 1;
        } else if (a[0] == '-' && a[1]) {
            error("unknown option '%s'", a);
            usage(stderr);
            goto out;
        } else if (!paths[0]) {
            paths[0] = a;
        } else if (!paths[1]) {
            paths[1] = a;
        } else {
            error("diff compares two reports, not three ('%s')", a);
            goto out;
        }
    }
    if (!paths[1]) {
        usage(stderr);
        goto out;
    }
    if (strcmp(o.format, "text") && strcmp(o.format, "json") && strcmp(o.format, "md") &&
        strcmp(o.format, "markdown")) {
        error("unknown format '%s' (text, json, md)", o.format);
        goto out;
    }
    if (o.kernel_regex && cli_check_regex("--kernel", o.kernel_regex))
        goto out;
    o.map = map;
    o.n_map = n_map;
    o.before_name = base_name(paths[0]);
    o.after_name = base_name(paths[1]);
    for (int k = 0; k < 2; k++)
        if ((rc = cli_open_analyzed(paths[k], raw, rules_dir, &db[k])))
            goto out;
    if (export_diff(db[0], db[1], &o, stdout)) {
        rc = cli_report_failed(paths[0], paths[1], GH_EXIT_INTERNAL, store_error());
    } else {
        rc = GH_EXIT_OK;
    }
out:
    sqlite3_close(db[0]);
    sqlite3_close(db[1]);
    for (size_t i = 0; i < n_map; i++)
        free(owned[i]);
    free(owned);
    free(map);
    return rc;
}
