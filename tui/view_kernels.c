/* SPDX-License-Identifier: MIT */
/*
 * view_kernels: one row per kernel, or per launch configuration ('c'),
 * from kernel_summary. A report the analyzer never saw has no summaries;
 * then the rows come from the collector's per-configuration totals and
 * the finding columns stay empty.
 */
#include "tui/tui_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_NAME, K_LAUNCHES, K_TOTAL, K_MEAN, K_FLOOR, K_LOST, K_WORST, K_CONFIG };

static const struct column kernel_cols[] = {
    [K_NAME] = {"Kernel", COL_TEXT, 0, false},  [K_LAUNCHES] = {"Launches", COL_COUNT, 9, true},
    [K_TOTAL] = {"Total", COL_NS, 8, true},     [K_MEAN] = {"Mean", COL_NS, 8, true},
    [K_FLOOR] = {"Floor", COL_RATIO, 6, true},  [K_LOST] = {"Lost", COL_NS, 8, true},
    [K_WORST] = {"Worst", COL_TEXT, 12, false},
};

static const struct column config_cols[] = {
    [K_NAME] = {"Kernel", COL_TEXT, 0, false},  [K_LAUNCHES] = {"Launches", COL_COUNT, 9, true},
    [K_TOTAL] = {"Total", COL_NS, 8, true},     [K_MEAN] = {"Mean", COL_NS, 8, true},
    [K_FLOOR] = {"Floor", COL_RATIO, 6, true},  [K_LOST] = {"Lost", COL_NS, 8, true},
    [K_WORST] = {"Worst", COL_TEXT, 12, false}, [K_CONFIG] = {"Grid/Block", COL_TEXT, 12, false},
};

/*
 * Both queries return the same columns; ?1 = 1 for per-configuration rows;
 * ?2 an NVTX range filter (NULL: none): only kernels (configurations)
 * with a launch whose path matches; ?3 = 1 (--all) names a worst finding
 * that the findings view hides (a note of no time lost), else it is left
 * blank: the column then names only findings the list shows. A total of
 * 0 is no traced time (the configuration's only launches were instrumented,
 * whose patched runs keep none), shown "-" as its mean is: "0 ns" beside a
 * time lost read as a contradiction (tk_unseen's fill_particles, 0 ns and
 * 62.6 us lost on the H100 report of 2026-12-07 10:19 UTC). A time lost
 * of 0 is "-" too where no counters of either engine came: nothing
 * judged the kernel's memory (a trace-mode report read "0 ns" lost on
 * every kernel beside a floor of "-").
 */
static const char summary_sql[] =
    "SELECT k.id, ks.config_id, coalesce(gh_kname(k.id), k.short_name, k.demangled_name,"
    " k.mangled_name), ks.launches, nullif(ks.total_ns, 0), ks.mean_ns, ks.floor_ratio,"
    " CASE WHEN coalesce(ks.time_lost_ns, 0) > 0 OR coalesce(ks.profiled_launches, 0) > 0"
    " OR EXISTS (SELECT 1 FROM inst_launch i WHERE i.kernel_id = k.id"
    " AND (ks.config_id IS NULL OR i.config_id = ks.config_id)) THEN ks.time_lost_ns END,"
    " CASE WHEN ?3 OR NOT (ks.worst_severity = 'note' AND coalesce(ks.time_lost_ns, 0) <= 0)"
    " THEN ks.worst_severity END,"
    " CASE WHEN ?3 OR NOT (ks.worst_severity = 'note' AND coalesce(ks.time_lost_ns, 0) <= 0)"
    " THEN ks.worst_rule_id END, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y,"
    " c.block_z, coalesce(k.demangled_name, k.mangled_name), ks.bound_tier"
    " FROM kernel_summary ks JOIN kernel k ON k.id = ks.kernel_id"
    " LEFT JOIN config c ON c.id = ks.config_id"
    " WHERE ((?1 = 0 AND ks.config_id IS NULL) OR (?1 = 1 AND ks.config_id IS NOT NULL))"
    " AND (?2 IS NULL OR EXISTS (SELECT 1 FROM launch l WHERE l.kernel_id = k.id"
    " AND (ks.config_id IS NULL OR l.config_id = ks.config_id)"
    " AND gh_nvtx_match(l.nvtx_path, ?2)))";

static const char raw_sql[] =
    "SELECT k.id, CASE WHEN ?1 = 1 THEN c.id END, coalesce(gh_kname(k.id), k.short_name,"
    " k.demangled_name, k.mangled_name), sum(c.launches), nullif(sum(c.total_ns), 0),"
    " CASE WHEN sum(c.launches) > 0 THEN CAST(nullif(sum(c.total_ns), 0) AS REAL) / sum(c.launches)"
    " END,"
    " NULL, NULL, NULL, NULL, min(c.grid_x), min(c.grid_y), min(c.grid_z), min(c.block_x),"
    " min(c.block_y), min(c.block_z), coalesce(k.demangled_name, k.mangled_name), NULL"
    " FROM config c JOIN kernel k ON k.id = c.kernel_id"
    " WHERE ?2 IS NULL OR EXISTS (SELECT 1 FROM launch l WHERE l.config_id = c.id"
    " AND gh_nvtx_match(l.nvtx_path, ?2))"
    " GROUP BY k.id, CASE WHEN ?1 = 1 THEN c.id END";

static void
dims(char *buf, size_t n, sqlite3_stmt *st, int col)
{
    long long x = sqlite3_column_int64(st, col), y = sqlite3_column_int64(st, col + 1),
              z = sqlite3_column_int64(st, col + 2);
    if (y <= 1 && z <= 1)
        snprintf(buf, n, "%lld", x);
    else if (z <= 1)
        snprintf(buf, n, "%lldx%lld", x, y);
    else
        snprintf(buf, n, "%lldx%lldx%lld", x, y, z);
}

static int
kernels_open(struct view *v)
{
    sqlite3_stmt *st = NULL;
    bool analyzed = tui_has_rows(v->db, "SELECT 1 FROM kernel_summary LIMIT 1");
    if (tui_prepare(v->db, analyzed ? summary_sql : raw_sql, &st))
        return -1;
    sqlite3_bind_int(st, 1, v->mode);
    if (v->nvtx)
        sqlite3_bind_text(st, 2, v->nvtx, -1, SQLITE_STATIC);
    if (analyzed)
        sqlite3_bind_int(st, 3, view_show_all);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct row *r = view_add_row(v);
        r->target = TARGET_KERNEL;
        r->id = sqlite3_column_int64(st, 0);
        r->id2 = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
        value_set_text(&r->v[K_NAME], (const char *)sqlite3_column_text(st, 2), 0);
        r->note = xsanitize((const char *)sqlite3_column_text(st, 16), 0);
        value_set_num(&r->v[K_LAUNCHES], st, 3);
        value_set_num(&r->v[K_TOTAL], st, 4);
        value_set_num(&r->v[K_MEAN], st, 5);
        value_set_num(&r->v[K_FLOOR], st, 6);
        value_set_num(&r->v[K_LOST], st, 7);
        const char *sev = (const char *)sqlite3_column_text(st, 8);
        r->type = line_of_severity(sev);
        /* A kernel that waits (idle-kernel's marks: waiting) is labelled, not ranked. */
        const char *bound = (const char *)sqlite3_column_text(st, 17);
        if (bound && !strcmp(bound, "waiting")) {
            value_set_text(&r->v[K_WORST], "waiting", 0);
            r->type = LINE_DIM;
        } else {
            value_set_text(&r->v[K_WORST], (const char *)sqlite3_column_text(st, 9), 0);
        }
        if (v->mode) {
            char g[48], b[48], both[100];
            dims(g, sizeof(g), st, 10);
            dims(b, sizeof(b), st, 13);
            snprintf(both, sizeof(both), "%s/%s", g, b);
            value_set_text(&r->v[K_CONFIG], both, 0);
        }
    }
    sqlite3_finalize(st);
    if (!analyzed && !v->message)
        v->message = xstrdup("not analyzed: no findings or floors; run 'gpuhier analyze'");
    return rc == SQLITE_DONE ? 0 : -1;
}

static void
kernels_title(struct view *v, char *buf, size_t n)
{
    const char *what = v->mode ? "Kernel configurations" : "Kernels";
    if (v->nvtx) {
        char *re = xsanitize(v->nvtx, 160);
        snprintf(buf, n, "%s in NVTX /%s/ (%zu)", what, re, v->nrows);
        free(re);
    } else {
        snprintf(buf, n, "%s (%zu)", what, v->nrows);
    }
}

static enum request
kernels_request(struct view *v, enum request req)
{
    if (req != REQ_TOGGLE_CONFIG)
        return req;
    view_reset_rows(v);
    v->mode = !v->mode;
    v->ops = v->mode ? &configs_ops : &kernels_ops;
    v->pos = v->offset = 0;
    view_load(v);
    return REQ_NONE;
}

const struct view_ops kernels_ops = {
    .name = "kernels",
    .open = kernels_open,
    .title = kernels_title,
    .request = kernels_request,
    .cols = kernel_cols,
    .ncols = sizeof(kernel_cols) / sizeof(kernel_cols[0]),
    .default_sort = K_TOTAL,
};

const struct view_ops configs_ops = {
    .name = "kernels",
    .open = kernels_open,
    .title = kernels_title,
    .request = kernels_request,
    .cols = config_cols,
    .ncols = sizeof(config_cols) / sizeof(config_cols[0]),
    .default_sort = K_TOTAL,
};
