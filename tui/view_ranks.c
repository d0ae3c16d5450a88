/* SPDX-License-Identifier: MIT */
/*
 * view_ranks: a merged job report across its ranks (`gpuhier merge`):
 * each rank's GPU time, work and communication, the straggler, the load
 * imbalance of each kernel and the findings that only some ranks have.
 * It reads the analyzer's rank_summary, v_rank_imbalance and
 * v_rank_partial; a report of one process says it has no ranks.
 */
#include "tui/tui_int.h"

#include <math.h>
#include <string.h>

/* Kernels listed under "Load imbalance", the most waited-for first. */
#define RANKS_TOP_KERNELS 20

static void
ns_cell(char *buf, size_t n, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        snprintf(buf, n, "-");
    else if (sqlite3_column_double(st, col) < 0 && n > 1) {
        buf[0] = '-';
        fmt_ns(buf + 1, n - 1, -sqlite3_column_double(st, col));
    } else
        fmt_ns(buf, n, sqlite3_column_double(st, col));
}

static int
ranks_table(struct view *v)
{
    sqlite3_stmt *st = NULL;
    if (tui_prepare(v->db,
                    "SELECT s.rank, j.host, s.gpu_ns, s.work_ns, s.comm_ns, s.lag_ns,"
                    " s.is_straggler, s.findings, s.worst_severity, s.comm_launches"
                    " FROM rank_summary s LEFT JOIN job_rank j ON j.rank = s.rank ORDER BY s.rank",
                    &st))
        return -1;
    view_printf(v, LINE_SECTION, "Ranks");
    view_printf(v, LINE_HEADER, "  %5s  %-10s %9s %9s %9s %9s  %-8s", "Rank", "Host", "GPU", "Work",
                "Comm", "Lag", "Worst");
    int rc;
    long long straggler = -1;
    double lag = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char g[32], w[32], c[32], l[32];
        ns_cell(g, sizeof(g), st, 2);
        ns_cell(w, sizeof(w), st, 3);
        ns_cell(c, sizeof(c), st, 4);
        ns_cell(l, sizeof(l), st, 5);
        const char *sev = (const char *)sqlite3_column_text(st, 8);
        int is_straggler = sqlite3_column_int(st, 6);
        struct tline *t = view_add_line(v);
        line_add(t, is_straggler ? LINE_WARNING : LINE_DEFAULT, 0, "  %5lld  ",
                 sqlite3_column_int64(st, 0));
        line_add_untrusted(t, LINE_DEFAULT, 10, (const char *)sqlite3_column_text(st, 1), 10);
        line_add(t, LINE_DEFAULT, 0, " %9s %9s %9s %9s  ", g, w, c, l);
        line_add(t, line_of_severity(sev), 0, "%-8s", sev ? sev : "-");
        if (is_straggler) {
            line_add(t, LINE_WARNING, 0, " straggler");
            straggler = sqlite3_column_int64(st, 0);
            lag = sqlite3_column_double(st, 5);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return -1;
    view_printf(v, LINE_DEFAULT, "%s", "");
    if (straggler >= 0) {
        char l[32];
        fmt_ns(l, sizeof(l), lag);
        view_printf(v, LINE_WARNING,
                    "Straggler: rank %lld, %s more work than the median rank, while the others "
                    "spend more time in communication kernels.",
                    straggler, l);
    } else {
        view_printf(v, LINE_GOOD,
                    "No straggler: no rank works 5 %% more than the median one "
                    "while the others wait in communication.");
    }
    view_printf(v, LINE_DIM,
                "Work: kernels and copies that do not wait. Comm: NCCL, NVSHMEM "
                "and waiting kernels. Lag: work - median work.");
    return 0;
}

static int
imbalance_table(struct view *v)
{
    sqlite3_stmt *st = NULL;
    if (tui_prepare(v->db,
                    "SELECT i.kernel_id, coalesce(gh_kname(k.id), k.short_name, k.demangled_name,"
                    " k.mangled_name), i.on_ranks, i.ranks, i.mean_ns, i.max_ns, i.max_rank,"
                    " i.wait_ns, i.imbalance_pct, i.is_comm"
                    " FROM v_rank_imbalance i JOIN kernel k ON k.id = i.kernel_id"
                    " ORDER BY i.wait_ns DESC, i.kernel_id LIMIT ?1",
                    &st))
        return -1;
    sqlite3_bind_int(st, 1, RANKS_TOP_KERNELS);
    view_printf(v, LINE_DEFAULT, "%s", "");
    view_printf(v, LINE_SECTION, "Load imbalance per kernel (the most waited-for first)");
    view_printf(v, LINE_HEADER, "  %-32s %7s %9s %9s %8s %9s %7s", "Kernel", "Ranks", "Mean", "Max",
                "Max rank", "Wait", "Imbal.");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char mean[32], max[32], wait[32], pct[32], on[32];
        ns_cell(mean, sizeof(mean), st, 4);
        ns_cell(max, sizeof(max), st, 5);
        ns_cell(wait, sizeof(wait), st, 7);
        if (sqlite3_column_type(st, 8) == SQLITE_NULL)
            snprintf(pct, sizeof(pct), "-");
        else
            fmt_pct(pct, sizeof(pct), sqlite3_column_double(st, 8));
        snprintf(on, sizeof(on), "%lld/%lld", sqlite3_column_int64(st, 2),
                 sqlite3_column_int64(st, 3));
        struct tline *t = view_add_line(v);
        line_add(t, LINE_DEFAULT, 0, "  ");
        line_add_untrusted(t, sqlite3_column_int(st, 9) ? LINE_DIM : LINE_DEFAULT, 32,
                           (const char *)sqlite3_column_text(st, 1), 32);
        line_add(t, LINE_DEFAULT, 0, " %7s %9s %9s %8lld %9s %7s", on, mean, max,
                 sqlite3_column_int64(st, 6), wait, pct);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return -1;
    view_printf(v, LINE_DIM,
                "Imbal.: (max - mean) / max; Wait: max - mean, ranks without the "
                "kernel count 0; dim: communication kernels.");
    return 0;
}

static int
partial_table(struct view *v)
{
    sqlite3_stmt *st = NULL;
    if (tui_prepare(v->db,
                    "SELECT p.rule_id, coalesce(gh_kname(k.id), k.short_name, k.demangled_name,"
                    " k.mangled_name, '(run)'), p.on_ranks, p.ranks, p.ranks_list,"
                    " p.worst_severity, p.time_lost_ns"
                    " FROM v_rank_partial p LEFT JOIN kernel k ON k.id = p.kernel_id"
                    " ORDER BY CASE p.worst_severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1"
                    " ELSE 2 END, p.time_lost_ns DESC, p.rule_id",
                    &st))
        return -1;
    view_printf(v, LINE_DEFAULT, "%s", "");
    view_printf(v, LINE_SECTION, "Findings on some ranks only");
    int rc, n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *sev = (const char *)sqlite3_column_text(st, 5);
        char lost[32];
        ns_cell(lost, sizeof(lost), st, 6);
        struct tline *t = view_add_line(v);
        line_add(t, line_of_severity(sev), 0, "  %-8s ", sev ? sev : "note");
        line_add_untrusted(t, LINE_DEFAULT, 0, (const char *)sqlite3_column_text(st, 0), 40);
        line_add(t, LINE_DEFAULT, 0, " ");
        line_add_untrusted(t, LINE_DEFAULT, 0, (const char *)sqlite3_column_text(st, 1), 48);
        line_add(t, LINE_DEFAULT, 0, ": %s lost, on %lld of %lld ranks (", lost,
                 sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3));
        line_add_untrusted(t, LINE_DEFAULT, 0, (const char *)sqlite3_column_text(st, 4), 200);
        line_add(t, LINE_DEFAULT, 0, ")");
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return -1;
    if (n == 0)
        view_printf(v, LINE_GOOD, "  none: every finding is on every rank");
    return 0;
}

void
ranks_summary_lines(struct view *v)
{
    long long n = tui_query_int(v->db, "SELECT count(*) FROM job_rank", 0, 0);
    if (n <= 0)
        return;
    long long hosts = tui_query_int(v->db, "SELECT count(DISTINCT host) FROM job_rank", 0, 0);
    long long devs =
        tui_query_int(v->db, "SELECT count(*) FROM device WHERE id >= 4294967296", 0, 0);
    if (devs > 0)
        view_printf(v, LINE_DIM, "%-11s %lld more on the other ranks (device id >> 32 is the rank)",
                    "Devices", devs);
    struct tline *t = view_add_line(v);
    line_add(t, LINE_LABEL, 11, "Job");
    line_add(t, LINE_DEFAULT, 0, "%lld ranks (%lld..%lld) on %lld host%s", n,
             tui_query_int(v->db, "SELECT min(rank) FROM job_rank", 0, 0),
             tui_query_int(v->db, "SELECT max(rank) FROM job_rank", 0, 0), hosts,
             hosts == 1 ? "" : "s");
    long long s = tui_query_int(v->db, "SELECT rank FROM rank_summary WHERE is_straggler", 0, -1);
    if (s >= 0)
        line_add(t, LINE_WARNING, 0, "; straggler: rank %lld", s);
    line_add(t, LINE_DIM, 0, " (key 5: ranks)");
}

static int
ranks_open(struct view *v)
{
    if (!tui_has_rows(v->db, "SELECT 1 FROM job_rank LIMIT 1")) {
        view_printf(v, LINE_DIM, "Not a job report: one process, no ranks to compare.");
        view_printf(v, LINE_DIM,
                    "'gpuhier merge rank*.db -o job.db' makes one from the "
                    "reports of a job's ranks.");
        return 0;
    }
    if (!tui_has_rows(v->db, "SELECT 1 FROM rank_summary LIMIT 1")) {
        view_printf(v, LINE_DIM, "%lld ranks; not analyzed: run 'gpuhier analyze'.",
                    tui_query_int(v->db, "SELECT count(*) FROM job_rank", 0, 0));
        return 0;
    }
    if (ranks_table(v) || imbalance_table(v) || partial_table(v))
        return -1;
    return 0;
}

static void
ranks_title(struct view *v, char *buf, size_t n)
{
    long long r = tui_query_int(v->db, "SELECT count(*) FROM job_rank", 0, 0);
    snprintf(buf, n, "Ranks (%lld)", r);
}

const struct view_ops ranks_ops = {
    .name = "ranks",
    .open = ranks_open,
    .title = ranks_title,
};
