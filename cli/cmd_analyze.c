/* SPDX-License-Identifier: MIT */
/*
 * gpuhier analyze: apply the rules to a report, store the findings and
 * kernel summaries in it (the only command that writes them), and print
 * the ranked findings as a table or JSON (docs/cmd-analyze.md).
 *
 * A report that cannot be written (read-only file or directory) is
 * analyzed in memory instead: the output is the same, nothing is saved,
 * and a warning says so.
 */
#include "analyzer/analyzer.h"
#include "cli/cli.h"
#include "export/export.h"
#include "export/sanitize.h"
#include "schema/store.h"
#include "schema/store_view.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: gpuhier analyze report.db [--rules DIR] [--format text|json] [--top N] [--all]\n"
    "\n"
    "  --rules DIR       read rules from DIR instead of the installed rules/\n"
    "  --format F        text (default: a ranked table) or json\n"
    "  --top N           show the N top-ranked findings (default 20; 0: all)\n"
    "  --all             text: also the notes with no time lost\n"
    "\n"
    "Stores findings and kernel summaries in the report; see 'gpuhier help analyze'.\n";

/* ------------------------------------------------------------------ */
/* JSON                                                                 */
/* ------------------------------------------------------------------ */

static json_t *
jstr(const char *s)
{
    if (!s)
        return json_null();
    char *clean = sanitize_text(s, 0);
    json_t *j = json_string(clean);
    free(clean);
    return j ? j : json_null();
}

static json_t *
jcol(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER:
        return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT:
        return json_real(sqlite3_column_double(st, i));
    case SQLITE_TEXT:
        return jstr((const char *)sqlite3_column_text(st, i));
    default:
        return json_null();
    }
}

/* Each row of `sql` as an object keyed by column name. */
static json_t *
rows_json(sqlite3 *db, const char *sql, int n_bind, long long bind)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db, sql, &st))
        return NULL;
    if (n_bind)
        sqlite3_bind_int64(st, 1, bind);
    json_t *arr = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_object();
        for (int i = 0; i < sqlite3_column_count(st); i++)
            json_object_set_new(o, sqlite3_column_name(st, i), jcol(st, i));
        json_array_append_new(arr, o);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

static int
print_json(sqlite3 *db, const char *path, int top, int saved)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("gpuhier-analyze/1"));
    json_object_set_new(root, "report", jstr(path));
    json_object_set_new(root, "saved", json_boolean(saved));
    json_t *a = rows_json(db,
                          "SELECT ruleset_version, tool_version, analyzed_ns, run_gpu_ns, "
                          "rules_dir FROM analysis LIMIT 1",
                          0, 0);
    json_object_set_new(root, "analysis",
                        a && json_array_size(a) ? json_incref(json_array_get(a, 0)) : json_null());
    json_decref(a);
    json_t *findings = rows_json(
        db,
        "SELECT f.id, f.rank, f.rule_id, f.title, f.tier, f.severity, f.kernel_id, f.config_id,"
        " k.short_name AS kernel, k.demangled_name AS kernel_demangled,"
        " c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z, c.dynamic_smem_bytes,"
        " f.message, f.remedy, f.doc_ref, f.time_lost_ns_per_launch, f.time_lost_ns, "
        "f.time_lost_raw_ns,"
        " f.share_pct, f.launches, f.profiled_launch_id"
        " FROM finding f LEFT JOIN kernel k ON k.id = f.kernel_id LEFT JOIN config c ON c.id = "
        "f.config_id"
        " WHERE ?1 <= 0 OR f.rank <= ?1 ORDER BY f.rank",
        1, top);
    if (!findings) {
        json_decref(root);
        return store_set_error("cannot read findings: %s", store_error());
    }
    size_t i;
    json_t *fobj;
    json_array_foreach(findings, i, fobj)
    {
        long long id = json_integer_value(json_object_get(fobj, "id"));
        json_t *ev =
            rows_json(db,
                      "SELECT name, value, text_value, unit, threshold, op FROM finding_evidence"
                      " WHERE finding_id = ? ORDER BY seq",
                      1, id);
        json_object_set_new(fobj, "evidence", ev ? ev : json_array());
        json_t *ob = rows_json(
            db, "SELECT kind, object_id FROM finding_object WHERE finding_id = ? LIMIT 100", 1, id);
        json_object_set_new(fobj, "objects", ob ? ob : json_array());
    }
    json_object_set_new(root, "findings", findings);
    json_t *rules = rows_json(
        db, "SELECT rule_id, title, tier, status, note, findings FROM rule_run ORDER BY rule_id", 0,
        0);
    json_object_set_new(root, "rules", rules ? rules : json_array());
    json_t *kernels = rows_json(db,
                                "SELECT s.*, k.short_name AS kernel FROM kernel_summary s JOIN "
                                "kernel k ON k.id = s.kernel_id"
                                " WHERE s.config_id IS NULL ORDER BY s.total_ns DESC, s.kernel_id",
                                0, 0);
    json_object_set_new(root, "kernels", kernels ? kernels : json_array());
    long long aside = 0, aside_cfg = 0;
    if (analyzer_profiles_set_aside(db, &aside, &aside_cfg) == 0)
        json_object_set_new(root, "profiles_set_aside",
                            json_pack("{s:I,s:I}", "profiles", (json_int_t)aside, "configurations",
                                      (json_int_t)aside_cfg));
    long long gm = 0;
    double gm_pct = 0;
    if (analyzer_groups_missing(db, &gm, &gm_pct) == 0)
        json_object_set_new(
            root, "groups_missing",
            json_pack("{s:I,s:f}", "configurations", (json_int_t)gm, "gpu_pct", gm_pct));
    struct store_coverage cov;
    if (store_counter_coverage(db, &cov) == 0)
        json_object_set_new(root, "hardware_deferred",
                            json_pack("{s:I,s:f,s:b}", "configurations",
                                      (json_int_t)cov.deferred_configs, "gpu_pct", cov.deferred_pct,
                                      "of_repeated_work", cov.setup_counts));
    int rc =
        json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    fputc('\n', stdout);
    json_decref(root);
    return rc ? store_set_error("cannot write JSON output") : 0;
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

static int
print_text(sqlite3 *db, const char *path, int top, int all)
{
    sqlite3_stmt *st = NULL;
    char *p = sanitize_text(path, 0);
    long long nf = 0, ran = 0, skipped = 0, kernels = 0, hidden = 0;
    double run_ns = 0;
    if (store_prepare(db,
                      "SELECT (SELECT COUNT(*) FROM finding), (SELECT COUNT(*) FROM rule_run WHERE "
                      "status = 'ran'),"
                      " (SELECT COUNT(*) FROM rule_run WHERE status = 'skipped'),"
                      " (SELECT COUNT(*) FROM kernel_summary WHERE config_id IS NULL),"
                      " (SELECT run_gpu_ns FROM analysis LIMIT 1),"
                      " (SELECT COUNT(*) FROM finding WHERE NOT (" EXPORT_FINDING_SHOWN "))",
                      &st) == 0 &&
        sqlite3_step(st) == SQLITE_ROW) {
        nf = sqlite3_column_int64(st, 0);
        ran = sqlite3_column_int64(st, 1);
        skipped = sqlite3_column_int64(st, 2);
        kernels = sqlite3_column_int64(st, 3);
        run_ns = sqlite3_column_double(st, 4);
        hidden = all ? 0 : sqlite3_column_int64(st, 5);
    }
    sqlite3_finalize(st);
    char gpu_ms[32];
    printf("%s: %lld finding%s on %lld kernel%s, %s ms of GPU time; %lld rules ran, %lld "
           "skipped\n\n",
           p, nf, nf == 1 ? "" : "s", kernels, kernels == 1 ? "" : "s",
           export_fmt_number(gpu_ms, sizeof gpu_ms, run_ns / 1e6, 3), ran, skipped);
    free(p);
    long long aside = 0, aside_cfg = 0;
    if (analyzer_profiles_set_aside(db, &aside, &aside_cfg) == 0 && aside > 0)
        printf(
            "note: %lld profiled launch%s of %lld configuration%s did other work than the "
            "configuration's first profiled launch (a kernel whose work depends on its "
            "arguments); the counters and findings of %s describe the first (docs/analyzer.md)\n\n",
            aside, aside == 1 ? "" : "es", aside_cfg, aside_cfg == 1 ? "" : "s",
            aside_cfg == 1 ? "it" : "each");
    long long gm = 0;
    double gm_pct = 0;
    if (analyzer_groups_missing(db, &gm, &gm_pct) == 0 && gm > 0)
        printf("note: %lld configuration%s (%.1f %% of the %s kernel time) got only some of the "
               "one-pass counter groups (launched fewer times than there are groups, deferred by "
               "the budget, waiting for their group's run, or too small a share of the time for "
               "a warning: docs/sampling.md); "
               "the rules that read the missing counters did not judge %s "
               "(v_config_groups lists them; docs/analyzer.md)\n\n",
               gm, gm == 1 ? "" : "s", gm_pct, store_has_waiting(db) ? "working" : "traced",
               gm == 1 ? "it" : "them");
    /* configurations left without any hardware counter by a sampling choice: not judged by those rules */
    struct store_coverage cov;
    if (store_counter_coverage(db, &cov) == 0 && cov.deferred_counts)
        printf("note: %lld configuration%s (%.1f %% of the %s kernel time) got no hardware "
               "counters: %s launches were deferred (" STORE_DEFERRED_WHY
               "), so the rules that read hardware counters did not judge %s; "
               "`gpuhier run --sample all` profiles every launch\n\n",
               cov.deferred_configs, cov.deferred_configs == 1 ? "" : "s", cov.deferred_pct,
               cov.setup_counts        ? "repeated work's"
               : store_has_waiting(db) ? "working"
                                       : "traced",
               cov.deferred_configs == 1 ? "its" : "their",
               cov.deferred_configs == 1 ? "it" : "them");
    /* Kernels that wait are left out of the ranking (docs/analyzer.md "Kernels that wait"): say so once. */
    if (store_prepare(db,
                      "SELECT COUNT(*), SUM(total_ns) FROM kernel_summary WHERE config_id IS NULL"
                      " AND bound_tier = 'waiting'",
                      &st) == 0 &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
        long long n = sqlite3_column_int64(st, 0);
        char wait_ms[32];
        printf("note: %lld kernel%s wait%s instead of working (%s ms): not counted as work and "
               "not ranked (idle-kernel; --all shows %s)\n\n",
               n, n == 1 ? "" : "s", n == 1 ? "s" : "",
               export_fmt_number(wait_ms, sizeof wait_ms, sqlite3_column_double(st, 1) / 1e6, 3),
               n == 1 ? "its note" : "their notes");
    }
    sqlite3_finalize(st);
    st = NULL;
    if (analyzer_print_top(db, stdout, top, all))
        return store_set_error("%s", analyzer_error());
    if (top > 0 && nf - hidden > top)
        printf("(%lld more; --top 0 shows all)\n", nf - hidden - top);
    if (hidden > 0)
        printf("(%lld note%s with no time lost not shown; --all shows them)\n", hidden,
               hidden == 1 ? "" : "s");
    if (store_prepare(
            db, "SELECT rule_id, note FROM rule_run WHERE status = 'skipped' ORDER BY rule_id",
            &st))
        return 0;
    int first = 1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (first)
            printf("\nskipped rules:\n");
        first = 0;
        char *id = sanitize_text((const char *)sqlite3_column_text(st, 0), 0);
        char *note = sanitize_text((const char *)sqlite3_column_text(st, 1), 0);
        printf("  %-26s %s\n", id ? id : "", note ? note : "");
        free(id);
        free(note);
    }
    sqlite3_finalize(st);
    return 0;
}

/* Did the analysis fail on a lock another connection holds (SQLITE_BUSY)? */
static int
is_busy(const char *msg)
{
    return strstr(msg, "database is locked") != NULL;
}

/* Can we write the report and create its journal beside it? */
static int
writable(const char *path)
{
    char *dir = strdup(path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    int ok;
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    ok = access(path, W_OK) == 0 && access(slash ? dir : ".", W_OK) == 0;
    free(dir);
    return ok;
}

static int
parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v > 1000000000)
        return -1;
    *out = (int)v;
    return 0;
}

int
cmd_analyze(int argc, const char **argv)
{
    const char *path = NULL, *format = "text";
    struct analyzer_opts o = {0};
    int top = 20, all = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return GH_EXIT_OK;
        } else if (!strcmp(a, "--rules") || !strcmp(a, "--format") || !strcmp(a, "--top")) {
            if (i + 1 >= argc) {
                error("option '%s' needs a value", a);
                return GH_EXIT_USAGE;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--rules"))
                o.rules_dir = v;
            else if (!strcmp(a, "--format"))
                format = v;
            else if (parse_int(v, &top)) {
                error("--top: '%s' is not a non-negative number", v);
                return GH_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--all")) {
            all = 1;
        } else if (!strncmp(a, "--rules=", 8)) {
            o.rules_dir = a + 8;
        } else if (!strncmp(a, "--format=", 9)) {
            format = a + 9;
        } else if (!strncmp(a, "--top=", 6)) {
            if (parse_int(a + 6, &top)) {
                error("--top: '%s' is not a non-negative number", a + 6);
                return GH_EXIT_USAGE;
            }
        } else if (a[0] == '-' && a[1]) {
            error("unknown option '%s'", a);
            fputs(usage_text, stderr);
            return GH_EXIT_USAGE;
        } else if (!path) {
            path = a;
        } else {
            error("more than one report given ('%s' and '%s')", path, a);
            return GH_EXIT_USAGE;
        }
    }
    if (!path) {
        fputs(usage_text, stderr);
        return GH_EXIT_USAGE;
    }
    if (strcmp(format, "text") && strcmp(format, "json")) {
        error("--format: '%s' is not text or json", format);
        return GH_EXIT_USAGE;
    }
    /* Rules first: a broken rule file is reported before the report is touched. */
    struct ruleset *rs = ruleset_load(o.rules_dir);
    if (!rs) {
        error("%s", analyzer_error());
        return GH_EXIT_RULES;
    }
    ruleset_free(rs);

    sqlite3 *db = NULL;
    int saved = 1;
    /*
     * A report another process has open (the collector still writing it)
     * is analyzed as a snapshot in memory: writing the findings would
     * need the writer's lock, and taking it would stall the collector.
     */
    long live = store_live_pid(path);
    if (!live && store_open(path, STORE_READ_WRITE, &db)) {
        enum store_failure why = store_failure();
        if (why != STORE_ERR_IO || access(path, R_OK) || writable(path)) {
            error("%s", store_error());
            return cli_store_exit_code();
        }
        db = NULL;
    }
    if (db)
        cli_store_note();
    if (db && analyzer_analyze(db, &o)) {
        int busy = is_busy(analyzer_error());
        sqlite3_close(db);
        db = NULL;
        /* Only a report we may not write, or one a writer holds, falls back to memory. */
        if (!busy && writable(path))
            return cli_analyzer_failed(path);
        live = busy ? -1 : 0;
    }
    if (!db) {
        if (store_open_memory_copy(path, &db)) {
            error("%s", store_error());
            return cli_store_exit_code();
        }
        if (!live)
            cli_store_note();
        if (analyzer_analyze(db, &o)) {
            sqlite3_close(db);
            return cli_analyzer_failed(path);
        }
        saved = 0;
        if (live > 0)
            note("report '%s' is open in process %ld (the collector still writing it?): analyzed "
                 "a snapshot in memory; findings shown, not saved",
                 path, live);
        else if (live)
            note("report '%s' is being written by another process: analyzed a snapshot in "
                 "memory; findings shown, not saved",
                 path);
        else
            warning("report '%s' is not writable: findings shown, not saved", path);
    }
    int ret =
        !strcmp(format, "json") ? print_json(db, path, top, saved) : print_text(db, path, top, all);
    sqlite3_close(db);
    if (ret && ferror(stdout)) {
        error("%s", store_error());
        return GH_EXIT_OUTPUT;
    }
    return ret ? cli_report_failed(path, NULL, GH_EXIT_INTERNAL, store_error()) : GH_EXIT_OK;
}
