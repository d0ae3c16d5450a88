/* SPDX-License-Identifier: MIT */
/*
 * view_findings: the ranked findings (a table; 't' tags rows for 'e'
 * export) and view_finding, the detail of one: evidence against the
 * thresholds, remedy, the documents' section, the launches concerned.
 */
#include "tui/tui_int.h"

#include "export/export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LABEL 12

enum { F_RANK, F_SEV, F_LOST, F_SHARE, F_RULE, F_TIER, F_KERNEL };

static const struct column finding_cols[] = {
    [F_RANK] = {"#", COL_RANK, 4, false},        [F_SEV] = {"Sev", COL_TEXT, 7, false},
    [F_LOST] = {"Lost", COL_NS, 8, true},        [F_SHARE] = {"Share", COL_PCT, 6, true},
    [F_RULE] = {"Rule", COL_TEXT, 20, false},    [F_TIER] = {"Tier", COL_TEXT, 9, false},
    [F_KERNEL] = {"Kernel", COL_TEXT, 0, false},
};

static int
findings_open(struct view *v)
{
    sqlite3_stmt *st = NULL;
    if (!tui_has_rows(v->db, "SELECT 1 FROM analysis LIMIT 1")) {
        if (!v->message)
            v->message = xstrdup("not analyzed: run 'gpuhier analyze' to get findings");
        return 0;
    }
    if (tui_prepare(v->db,
                    "SELECT id, rank, severity, time_lost_ns, share_pct, rule_id, tier,"
                    " coalesce(gh_kname(kernel_id), short_name, demangled_name, mangled_name, "
                    "'(run)'), message"
                    " FROM v_finding f WHERE (?1 OR " EXPORT_FINDING_SHOWN ")"
                    " AND (?2 IS NULL OR EXISTS (SELECT 1 FROM launch l"
                    " WHERE l.kernel_id = f.kernel_id"
                    " AND (f.config_id IS NULL OR l.config_id = f.config_id)"
                    " AND gh_nvtx_match(l.nvtx_path, ?2))) ORDER BY rank",
                    &st))
        return -1;
    sqlite3_bind_int(st, 1, view_show_all);
    /* An NVTX range filter keeps the findings whose kernel ran in the ranges. */
    if (v->nvtx)
        sqlite3_bind_text(st, 2, v->nvtx, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct row *r = view_add_row(v);
        r->target = TARGET_FINDING;
        r->id = sqlite3_column_int64(st, 0);
        value_set_num(&r->v[F_RANK], st, 1);
        const char *sev = (const char *)sqlite3_column_text(st, 2);
        value_set_text(&r->v[F_SEV], sev, 0);
        r->type = line_of_severity(sev);
        value_set_num(&r->v[F_LOST], st, 3);
        value_set_num(&r->v[F_SHARE], st, 4);
        value_set_text(&r->v[F_RULE], (const char *)sqlite3_column_text(st, 5), 0);
        value_set_text(&r->v[F_TIER], (const char *)sqlite3_column_text(st, 6), 0);
        value_set_text(&r->v[F_KERNEL], (const char *)sqlite3_column_text(st, 7), 0);
        r->note = xsanitize((const char *)sqlite3_column_text(st, 8), 0);
    }
    sqlite3_finalize(st);
    char m[128];
    if (tui_hidden_notes(v->db, m, sizeof(m)) > 0 && !v->message)
        v->message = xstrdup(m);
    if (v->nrows == 0 && !v->message)
        v->message = xstrdup(v->nvtx ? "no findings on kernels run in these NVTX ranges"
                                     : "no findings: every rule passed");
    return rc == SQLITE_DONE ? 0 : -1;
}

static void
findings_title(struct view *v, char *buf, size_t n)
{
    size_t tagged = 0;
    for (size_t i = 0; i < v->nrows; i++)
        tagged += v->rows[i].tagged;
    char in[200] = "";
    if (v->nvtx) {
        char *re = xsanitize(v->nvtx, 160);
        snprintf(in, sizeof(in), " in NVTX /%s/", re);
        free(re);
    }
    if (tagged)
        snprintf(buf, n, "Findings%s (%zu, %zu tagged)", in, v->nrows, tagged);
    else
        snprintf(buf, n, "Findings%s (%zu)", in, v->nrows);
}

static enum request
findings_request(struct view *v, enum request req)
{
    if (req == REQ_TAG) {
        struct row *r = view_row(v);
        if (r)
            r->tagged = !r->tagged;
        return REQ_MOVE_DOWN;
    }
    return req;
}

const struct view_ops findings_ops = {
    .name = "findings",
    .open = findings_open,
    .title = findings_title,
    .request = findings_request,
    .cols = finding_cols,
    .ncols = sizeof(finding_cols) / sizeof(finding_cols[0]),
    .default_sort = F_RANK,
    .has_tags = true,
};

/* ------------------------------------------------------------------ */
/* One finding                                                          */
/* ------------------------------------------------------------------ */

static const char *
col_text(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

static void
add_evidence(struct view *v)
{
    sqlite3_stmt *st = NULL;
    if (tui_prepare(v->db,
                    "SELECT name, value, text_value, unit, threshold, op FROM finding_evidence"
                    " WHERE finding_id = ?1 ORDER BY seq",
                    &st))
        return;
    sqlite3_bind_int64(st, 1, v->id);
    view_printf(v, LINE_SECTION, "Evidence");
    struct tline *h = view_add_line(v);
    line_add(h, LINE_HEADER, 28, "  metric");
    line_add(h, LINE_HEADER, 16, "value");
    line_add(h, LINE_HEADER, 0, "threshold");
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct tline *l = view_add_line(v);
        char val[64], thr[64];
        line_add(l, LINE_DEFAULT, 2, " ");
        line_add_untrusted(l, LINE_LABEL, 26, col_text(st, 0), 200);
        const char *unit = col_text(st, 3);
        char num[48], u[32];
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            snprintf(val, sizeof(val), "%s %.20s",
                     export_fmt_number(num, sizeof(num), tui_col_num(st, 1), 4),
                     export_unit_for(u, sizeof(u), tui_col_num(st, 1), unit));
        else
            snprintf(val, sizeof(val), "%.60s", col_text(st, 2) ? col_text(st, 2) : "not measured");
        line_add_untrusted(l, LINE_DEFAULT, 16, val, 0);
        if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
            const char *op = col_text(st, 5);
            snprintf(thr, sizeof(thr), "fires when %.3s %s", op ? op : "?",
                     export_fmt_number(num, sizeof(num), tui_col_num(st, 4), 4));
            line_add_untrusted(l, LINE_WARNING, 0, thr, 0);
        } else {
            line_add(l, LINE_DIM, 0, "(informative)");
        }
    }
    sqlite3_finalize(st);
}

static void
add_objects(struct view *v)
{
    sqlite3_stmt *st = NULL;
    if (tui_prepare(
            v->db,
            "SELECT o.kind, o.object_id, c.copy_kind, c.bytes, c.src_kind, c.dst_kind"
            " FROM finding_object o LEFT JOIN copy c ON o.kind = 'copy' AND c.id = o.object_id"
            " WHERE o.finding_id = ?1 ORDER BY o.kind, o.object_id LIMIT 21",
            &st))
        return;
    sqlite3_bind_int64(st, 1, v->id);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == 0)
            view_printf(v, LINE_SECTION, "Objects concerned");
        if (++n > 20) {
            view_printf(
                v, LINE_DIM,
                "  ... more (sqlite3: SELECT * FROM finding_object WHERE finding_id = %lld)",
                v->id);
            break;
        }
        struct tline *l = view_add_line(v);
        char b[32];
        fmt_bytes(b, sizeof(b), tui_col_num(st, 3));
        line_add_untrusted(l, LINE_LABEL, 16, col_text(st, 0), 32);
        line_add(l, LINE_DEFAULT, 10, "%lld", (long long)sqlite3_column_int64(st, 1));
        if (col_text(st, 2)) {
            line_add_untrusted(l, LINE_DEFAULT, 6, col_text(st, 2), 16);
            line_add(l, LINE_DEFAULT, 10, "%s", b);
            line_add_untrusted(l, LINE_DIM, 0, col_text(st, 4), 16);
            line_add(l, LINE_DIM, 0, "->");
            line_add_untrusted(l, LINE_DIM, 0, col_text(st, 5), 16);
        }
    }
    sqlite3_finalize(st);
}

static int
finding_open(struct view *v)
{
    sqlite3_stmt *st = NULL;
    if (tui_prepare(v->db,
                    "SELECT rank, severity, rule_id, title, tier, kernel_id, config_id, message,"
                    " remedy, doc_ref, time_lost_ns_per_launch, time_lost_ns, time_lost_raw_ns,"
                    " share_pct, launches, profiled_launch_id, demangled_name, mangled_name,"
                    " source_file, source_line, grid_x, grid_y, grid_z, block_x, block_y, block_z,"
                    " dynamic_smem_bytes, gh_kname(kernel_id) FROM v_finding WHERE id = ?1",
                    &st))
        return -1;
    sqlite3_bind_int64(st, 1, v->id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        view_printf(v, LINE_ERROR, "finding %lld is not in the report", v->id);
        return 0;
    }
    const char *sev = col_text(st, 1);
    v->id2 = sqlite3_column_int64(st, 0);
    struct tline *l = view_add_line(v);
    line_add(l, LINE_SECTION, 0, "Finding #%lld ", (long long)sqlite3_column_int64(st, 0));
    line_add_untrusted(l, line_of_severity(sev), 0, sev, 16);
    line_add(l, LINE_DEFAULT, 0, "  ");
    line_add_untrusted(l, LINE_LABEL, 0, col_text(st, 2), 64);
    line_add(l, LINE_DIM, 0, "  tier ");
    line_add_untrusted(l, LINE_DIM, 0, col_text(st, 4), 16);
    view_add_wrapped(v, LINE_DEFAULT, LABEL, "Title", col_text(st, 3), view_wrap(v));
    if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
        size_t first = v->nlines;
        /* The name every list shows; Enter on it opens the kernel with its full signature. */
        const char *full = col_text(st, 16) ? col_text(st, 16) : col_text(st, 17);
        view_add_wrapped(v, LINE_DEFAULT, LABEL, "Kernel",
                         col_text(st, 27) ? col_text(st, 27) : full, view_wrap(v));
        if (col_text(st, 27) && full && strcmp(col_text(st, 27), full))
            view_add_wrapped(v, LINE_DIM, LABEL, "Signature", full, view_wrap(v));
        for (size_t i = first; i < v->nlines; i++) {
            v->lines[i].target = TARGET_KERNEL;
            v->lines[i].id = sqlite3_column_int64(st, 5);
            v->lines[i].id2 =
                sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 6);
        }
        if (sqlite3_column_type(st, 20) != SQLITE_NULL)
            view_printf(
                v, LINE_DEFAULT,
                "%-*s grid %lldx%lldx%lld  block %lldx%lldx%lld  dynamic shared %lld B", LABEL,
                "Config", (long long)sqlite3_column_int64(st, 20),
                (long long)sqlite3_column_int64(st, 21), (long long)sqlite3_column_int64(st, 22),
                (long long)sqlite3_column_int64(st, 23), (long long)sqlite3_column_int64(st, 24),
                (long long)sqlite3_column_int64(st, 25), (long long)sqlite3_column_int64(st, 26));
        if (col_text(st, 18)) {
            struct tline *s = view_add_line(v);
            line_add(s, LINE_LABEL, LABEL, "Source");
            line_add_untrusted(s, LINE_DEFAULT, 0, col_text(st, 18), 1024);
            line_add(s, LINE_DEFAULT, 0, ":%lld", (long long)sqlite3_column_int64(st, 19));
        }
    }
    view_add_wrapped(v, line_of_severity(sev), LABEL, "Message", col_text(st, 7), view_wrap(v));
    char per[32], tot[32], raw[32], share[32], nl[32];
    fmt_ns(per, sizeof(per), tui_col_num(st, 10));
    fmt_ns(tot, sizeof(tot), tui_col_num(st, 11));
    fmt_ns(raw, sizeof(raw), tui_col_num(st, 12));
    fmt_pct(share, sizeof(share), tui_col_num(st, 13));
    fmt_count(nl, sizeof(nl), tui_col_num(st, 14));
    view_printf(v, LINE_DEFAULT, "%-*s %s (%s of the run's GPU time)", LABEL, "Time lost", tot,
                share);
    /* "before capping" only where the cap took something off (it read "5.74 ms before capping"
       beside a time lost of 5.74 ms) */
    double raw_ns = tui_col_num(st, 12), tot_ns = tui_col_num(st, 11);
    int capped = !isnan(raw_ns) && (isnan(tot_ns) || raw_ns > tot_ns * 1.0005 + 0.5);
    if (!isnan(tui_col_num(st, 10)) && capped)
        view_printf(v, LINE_DIM, "%-*s %s per launch; %s before capping to the kernel's floor",
                    LABEL, "", per, raw);
    else if (!isnan(tui_col_num(st, 10)))
        view_printf(v, LINE_DIM, "%-*s %s per launch", LABEL, "", per);
    else if (capped)
        view_printf(v, LINE_DIM, "%-*s %s before capping", LABEL, "", raw);
    if (sqlite3_column_type(st, 15) != SQLITE_NULL)
        view_printf(v, LINE_DEFAULT, "%-*s %s traced; evidence from profiled launch %lld", LABEL,
                    "Launches", nl, (long long)sqlite3_column_int64(st, 15));
    else if (!isnan(tui_col_num(st, 14)))
        view_printf(v, LINE_DEFAULT, "%-*s %s", LABEL, "Launches", nl);
    view_printf(v, LINE_DEFAULT, "%s", "");
    char *remedy = xstrdup(col_text(st, 8));
    char *doc = xstrdup(col_text(st, 9));
    sqlite3_finalize(st);
    add_evidence(v);
    view_printf(v, LINE_DEFAULT, "%s", "");
    view_add_wrapped(v, LINE_GOOD, LABEL, "Remedy", remedy, view_wrap(v));
    view_add_wrapped(v, LINE_DEFAULT, LABEL, "Documents", doc, view_wrap(v));
    free(remedy);
    free(doc);
    add_objects(v);
    return 0;
}

static void
finding_title(struct view *v, char *buf, size_t n)
{
    snprintf(buf, n, "Finding #%lld", v->id2);
}

const struct view_ops finding_ops = {
    .name = "finding",
    .open = finding_open,
    .title = finding_title,
};
