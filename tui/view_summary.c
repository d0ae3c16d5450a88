/* SPDX-License-Identifier: MIT */
/*
 * view_summary: the run at a glance: program, devices, totals, the top
 * findings by time lost, and the run's time split by kernel. Totals come
 * from the per-configuration counters and kernel_summary, never from a
 * scan of the launch table (a million launches must not cost a second).
 */
#include "tui/tui_int.h"

#include "export/export.h"
#include "schema/store.h"
#include "schema/store_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LABEL 11
#define TOP 8

static const char *
text(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

/*
 * Why the report did not end cleanly, as the collector recorded it: the
 * signal that ended the program, an exec() that replaced it, the writer's
 * first failure (docs/collector.md); else it was never closed.
 */
static void
add_unclean(struct view *v)
{
    sqlite3_stmt *st = NULL;
    int said = 0;
    if (tui_prepare(v->db,
                    "SELECT message FROM event WHERE code IN ('signal', 'exec', 'writer_error') "
                    "ORDER BY id LIMIT 3",
                    &st) == 0) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            view_add_wrapped(v, LINE_WARNING, LABEL, said ? "" : "Ended", text(st, 0), 66);
            said = 1;
        }
        sqlite3_finalize(st);
    }
    if (!said)
        view_printf(v, LINE_WARNING,
                    "%-*s the program did not exit cleanly: the report may be partial", LABEL,
                    "Warning");
}

static void
add_run(struct view *v)
{
    sqlite3_stmt *st = NULL;
    if (tui_prepare(
            v->db,
            "SELECT program, command_line, host, pid, tool_version, mode, profiling_limited,"
            " clean_exit, records_dropped + activity_dropped + ranges_dropped FROM run ORDER BY id "
            "LIMIT 1",
            &st))
        return;
    if (sqlite3_step(st) != SQLITE_ROW) {
        view_printf(v, LINE_DIM, "%-*s (no run recorded)", LABEL, "Program");
        sqlite3_finalize(st);
        return;
    }
    view_add_wrapped(v, LINE_SECTION, LABEL, "Program", text(st, 0) ? text(st, 0) : "-", 66);
    /* The command line as `gpuhier run ...`, shell-quoted, secrets redacted (export module). */
    char *repro = export_repro_command(v->db, 1);
    if (repro) {
        view_add_wrapped(v, LINE_DEFAULT, LABEL, "Rerun", repro, 66);
    } else if (text(st, 1)) {
        /* Never the raw text: it may hold secrets the redaction could not parse out. */
        char *argv = export_redact_argv(text(st, 1));
        view_add_wrapped(v, argv ? LINE_DEFAULT : LINE_DIM, LABEL, "Command",
                         argv ? argv : "(not a JSON argument list; see the run table)", 66);
        free(argv);
    }
    free(repro);
    struct tline *l = view_add_line(v);
    line_add(l, LINE_LABEL, LABEL, "Host");
    line_add_untrusted(l, LINE_DEFAULT, 0, text(st, 2), 128);
    line_add(l, LINE_DEFAULT, 0, "  pid %lld  mode ", (long long)sqlite3_column_int64(st, 3));
    line_add_untrusted(l, LINE_DEFAULT, 0, text(st, 5), 32);
    line_add(l, LINE_DIM, 0, "  recorded by gpuhier ");
    line_add_untrusted(l, LINE_DIM, 0, text(st, 4), 32);
    if (text(st, 6))
        view_add_wrapped(v, LINE_WARNING, LABEL, "Limited", text(st, 6), 66);
    int unclean = sqlite3_column_type(st, 7) != SQLITE_NULL && sqlite3_column_int(st, 7) == 0;
    long long dropped = sqlite3_column_int64(st, 8);
    sqlite3_finalize(st);
    if (unclean)
        add_unclean(v);
    if (dropped > 0)
        view_printf(v, LINE_WARNING, "%-*s %lld records dropped", LABEL, "Warning", dropped);
}

/*
 * meta 'cache_control' (schema.sql): profiles taken after an L2 flush are
 * those of a cold, empty cache, which the reader must know; 'none' (the
 * default) and reports without the key say nothing.
 */
static void
add_cache_control(struct view *v)
{
    char *c = store_meta_get(v->db, "cache_control");
    if (c && !strcmp(c, "all"))
        view_add_wrapped(v, LINE_DEFAULT, LABEL, "Caches",
                         "L2 flushed before each profiled launch (--cache-control all): its "
                         "counters are those of a cold, empty L2, as Nsight Compute's default",
                         66);
    else if (c && !strncmp(c, "none: ", 6)) {
        char msg[300];
        snprintf(msg, sizeof(msg), "no L2 flush: %s (asked for --cache-control all)", c + 6);
        view_add_wrapped(v, LINE_WARNING, LABEL, "Caches", msg, 66);
    }
    free(c);
}

/*
 * Which counter engines ran (export_engines_load(), schema.sql's meta
 * 'engines'): one line each, a warning when one was refused, failed or
 * got stuck, so a run without counter permission says which engine
 * still gave counts. Only for reports whose collector wrote the keys.
 */
static void
add_engines(struct view *v)
{
    struct export_engines x;
    export_engines_load(v->db, &x);
    if (x.derived) {
        /* a report from before the engine keys (or no clean exit): the tables say it already */
        export_engines_release(&x);
        return;
    }
    for (size_t i = 0; i < 2; i++) {
        const char *st = x.e[i].state;
        int bad = !strncmp(st, "refused", 7) || !strncmp(st, "failed", 6) ||
                  !strncmp(st, "stuck", 5) || !strncmp(st, "off", 3);
        char *line = export_engine_line(&x.e[i]);
        view_add_wrapped(v, bad ? LINE_WARNING : LINE_DEFAULT, LABEL, i ? "" : "Engines", line, 66);
        free(line);
    }
    export_engines_release(&x);
}

static void
add_devices(struct view *v)
{
    sqlite3_stmt *st = NULL;
    if (tui_prepare(v->db,
                    "SELECT id, name, chip, cc_major, cc_minor, sm_count, global_mem_bytes,"
                    " peak_dram_bw_bytes_per_s, measured_copy_bw_bytes_per_s FROM device"
                    " WHERE id < 4294967296 ORDER BY id", /* rank 0's: a job report has 64 ranks' */
                    &st))
        return;
    while (sqlite3_step(st) == SQLITE_ROW) {
        char mem[32], bw[32], mbw[32];
        fmt_bytes(mem, sizeof(mem), tui_col_num(st, 6));
        fmt_bw(bw, sizeof(bw), tui_col_num(st, 7));
        fmt_bw(mbw, sizeof(mbw), tui_col_num(st, 8));
        struct tline *l = view_add_line(v);
        line_add(l, LINE_LABEL, LABEL, "Device %lld", (long long)sqlite3_column_int64(st, 0));
        line_add_untrusted(l, LINE_DEFAULT, 0, text(st, 1), 128);
        line_add(l, LINE_DEFAULT, 0, "  ");
        line_add_untrusted(l, LINE_DIM, 0, text(st, 2), 32);
        line_add(l, LINE_DEFAULT, 0, "  sm_%lld%lld  %lld SMs  %s  %s (copy %s)",
                 (long long)sqlite3_column_int64(st, 3), (long long)sqlite3_column_int64(st, 4),
                 (long long)sqlite3_column_int64(st, 5), mem, bw, mbw);
    }
    sqlite3_finalize(st);
    ranks_summary_lines(v);
}

/*
 * When only some configurations were profiled (--profile-budget, -k,
 * --launch-count, busy counters): how much of the traced kernel time the
 * profiled ones took, which is how much the counter-based findings can
 * speak for. Reads the small profile table, not the launch table.
 */
static void
add_coverage(struct view *v)
{
    long long all = 0, prof = 0;
    double pct = 0;
    if (store_profile_coverage(v->db, &all, &prof, &pct) == 0 && prof > 0 && prof < all)
        view_printf(v, LINE_DEFAULT,
                    "%-*s %lld of %lld configurations; they took %.1f %% of the %s kernel time",
                    LABEL, "Profiled", prof, all, pct,
                    store_has_waiting(v->db) ? "working" : "traced");
}

/*
 * Counter coverage by kernel time (store_counter_coverage(): pattern and
 * hardware counters, complete or partial), when something is missing or
 * the report was taken in one-pass groups, whose configurations may
 * hold only some groups; a fully profiled kernel-replay report says
 * nothing more than its Launches line.
 */
static void
add_counter_coverage(struct view *v)
{
    struct store_coverage c;
    if (store_counter_coverage(v->db, &c) || c.gpu_ns <= 0 ||
        (c.hardware_configs == 0 && c.pattern_configs == 0 && c.graph_only_configs == 0))
        return;
    int grouped =
        store_query_int(v->db, "SELECT 1 FROM profile WHERE metric_set LIKE 'group%/%' LIMIT 1",
                        0) == 1;
    if (!grouped && c.pattern_pct >= 99.95 && c.hardware_pct >= 99.95 && c.complete_pct >= 99.95)
        return;
    /* analyzed, kernels that wait are not work: left out, as from the run's GPU time */
    view_printf(v, LINE_DEFAULT,
                "%-*s pattern %.1f %% of the %s kernel time, hardware %.1f %% (%.1f %% with all "
                "five state counters)",
                LABEL, "Counters", c.pattern_pct, store_has_waiting(v->db) ? "working" : "traced",
                c.hardware_pct, c.complete_pct);
    if (c.setup_counts)
        view_printf(v, LINE_DIM,
                    "%-*s repeated work alone (set-up left out): pattern %.1f %%, hardware %.1f %%",
                    LABEL, "", c.repeated_pattern_pct, c.repeated_hardware_pct);
    if (c.graph_only_configs > 0)
        view_printf(v, LINE_DIM,
                    "%-*s %.1f %% ran only in CUDA graphs, without counters (%lld "
                    "configuration%s): graphs the instrumentation engine could not arm",
                    LABEL, "", c.graph_only_pct, c.graph_only_configs,
                    c.graph_only_configs == 1 ? "" : "s");
    if (c.groups_partial > 0)
        view_printf(v, LINE_DIM,
                    "%-*s %lld configuration%s got only some one-pass groups (v_config_groups)",
                    LABEL, "", c.groups_partial, c.groups_partial == 1 ? "" : "s");
    if (c.deferred_counts)
        view_printf(v, LINE_DIM,
                    "%-*s %.1f %%%s in %lld configuration%s without hardware counters, "
                    "their launches deferred: `gpuhier run --sample all` profiles every launch",
                    LABEL, "", c.deferred_pct, c.setup_counts ? " of the repeated work" : "",
                    c.deferred_configs, c.deferred_configs == 1 ? "" : "s");
}

static void
add_totals(struct view *v, double *gpu_ns)
{
    sqlite3_stmt *st = NULL;
    /*
     * Kernel time from kernel_summary when analyzed: config.total_ns counts
     * traced launches only, so a kernel whose every launch was profiled
     * (a one-kernel program) read 0 ns there while its own line said 265 us.
     */
    if (tui_prepare(v->db,
                    "SELECT coalesce((SELECT sum(launches) FROM kernel_summary WHERE config_id IS "
                    "NULL), (SELECT sum(launches) FROM config), 0),"
                    " coalesce((SELECT sum(total_ns) FROM kernel_summary WHERE config_id IS NULL),"
                    " (SELECT sum(total_ns) FROM config), 0),"
                    " (SELECT count(*) FROM kernel), (SELECT count(*) FROM config),"
                    " (SELECT count(*) FROM profile), (SELECT count(*) FROM copy),"
                    " (SELECT coalesce(sum(bytes), 0) FROM copy), (SELECT coalesce(sum(end_ns - "
                    "start_ns), 0) FROM copy),"
                    " (SELECT count(*) FROM launch_failure)",
                    &st))
        return;
    if (sqlite3_step(st) == SQLITE_ROW) {
        char a[32], b[32], c[32], d[32], e[32], f[32];
        fmt_count(a, sizeof(a), tui_col_num(st, 0));
        fmt_count(b, sizeof(b), tui_col_num(st, 4));
        fmt_ns(c, sizeof(c), tui_col_num(st, 1));
        *gpu_ns = tui_col_num(st, 1);
        long long kernels = sqlite3_column_int64(st, 2), configs = sqlite3_column_int64(st, 3);
        view_printf(v, LINE_DEFAULT,
                    "%-*s %s launch%s (%s profiled) of %lld kernel%s in %lld configuration%s",
                    LABEL, "Launches", a, tui_col_num(st, 0) == 1 ? "" : "es", b, kernels,
                    kernels == 1 ? "" : "s", configs, configs == 1 ? "" : "s");
        fmt_count(d, sizeof(d), tui_col_num(st, 5));
        fmt_bytes(e, sizeof(e), tui_col_num(st, 6));
        fmt_ns(f, sizeof(f), tui_col_num(st, 7));
        struct tline *cl =
            view_printf(v, LINE_DEFAULT, "%-*s %s kernel time; %s cop%s moving %s in %s", LABEL,
                        "GPU time", c, d, tui_col_num(st, 5) == 1 ? "y" : "ies", e, f);
        cl->target = TARGET_COPIES;
        if (sqlite3_column_int64(st, 8) > 0)
            view_printf(v, LINE_ERROR, "%-*s %lld launch%s failed (see the launch_failure table)",
                        LABEL, "Failures", (long long)sqlite3_column_int64(st, 8),
                        sqlite3_column_int64(st, 8) == 1 ? "" : "es");
    }
    sqlite3_finalize(st);
}

static void
add_findings(struct view *v, double gpu_ns)
{
    if (!tui_has_rows(v->db, "SELECT 1 FROM analysis LIMIT 1")) {
        view_printf(v, LINE_WARNING, "%-*s not analyzed: run 'gpuhier analyze' for findings", LABEL,
                    "Findings");
        return;
    }
    sqlite3_stmt *st = NULL;
    if (tui_prepare(v->db,
                    "SELECT count(*), sum(severity = 'error'), sum(severity = 'warning'),"
                    " sum(severity = 'note'), sum(time_lost_ns) FROM finding",
                    &st))
        return;
    if (sqlite3_step(st) == SQLITE_ROW) {
        char lost[32], share[32];
        fmt_ns(lost, sizeof(lost), tui_col_num(st, 4));
        /* The denominator of every finding's share: kernels and copies (analysis.run_gpu_ns). */
        double run_ns = tui_query_num(v->db, "SELECT run_gpu_ns FROM analysis WHERE ?1 >= 0", 0);
        if (!(run_ns > 0))
            run_ns = gpu_ns;
        fmt_pct(share, sizeof(share), run_ns > 0 ? 100 * tui_col_num(st, 4) / run_ns : NAN);
        struct tline *l = view_add_line(v);
        l->target = TARGET_FINDINGS;
        line_add(l, LINE_LABEL, LABEL, "Findings");
        line_add(l, LINE_DEFAULT, 0, "%lld: ", (long long)sqlite3_column_int64(st, 0));
        line_add(l, LINE_ERROR, 0, "%lld error", (long long)sqlite3_column_int64(st, 1));
        line_add(l, LINE_DEFAULT, 0, ", ");
        line_add(l, LINE_WARNING, 0, "%lld warning", (long long)sqlite3_column_int64(st, 2));
        line_add(l, LINE_DEFAULT, 0, ", ");
        line_add(l, LINE_NOTE, 0, "%lld note", (long long)sqlite3_column_int64(st, 3));
        line_add(l, LINE_DEFAULT, 0, "; %s lost (%s)", lost, share);
        /* The lists below hide the notes with no time lost: say how many. */
        double hidden =
            view_show_all
                ? 0
                : tui_query_num(v->db,
                                "SELECT count(*) FROM finding WHERE NOT (" EXPORT_FINDING_SHOWN
                                ") AND ?1 >= 0",
                                0);
        if (hidden > 0)
            line_add(l, LINE_DIM, 0, "; %.0f at 0 ns hidden", hidden);
    }
    sqlite3_finalize(st);
    /* Kernels that wait are left out of the shares and the ranking: say so once. */
    double nwait = tui_query_num(v->db,
                                 "SELECT count(*) FROM kernel_summary WHERE config_id IS NULL"
                                 " AND bound_tier = 'waiting' AND ?1 >= 0",
                                 0);
    if (nwait > 0) {
        char w[32];
        fmt_ns(w, sizeof(w),
               tui_query_num(v->db,
                             "SELECT sum(total_ns) FROM kernel_summary WHERE config_id IS NULL"
                             " AND bound_tier = 'waiting' AND ?1 >= 0",
                             0));
        view_printf(v, LINE_DIM,
                    "%-*s %.0f kernel%s (%s) wait instead of working: not counted as work, not "
                    "ranked (idle-kernel)",
                    LABEL, "Waiting", nwait, nwait == 1 ? "" : "s", w);
    }
    /*
     * One-time set-up (docs/analyzer.md): how much of the work ran only
     * before the program's repeated work (a JAX program's compilation and
     * autotuning). kernel_summary.one_time is absent from reports analyzed
     * before it existed: the query fails, no line.
     */
    if (tui_prepare(v->db,
                    "SELECT count(*), sum(total_ns),"
                    " 100.0 * sum(total_ns) / (SELECT run_gpu_ns FROM analysis)"
                    " FROM kernel_summary WHERE config_id IS NOT NULL AND one_time = 1"
                    " AND bound_tier IS NOT 'waiting'",
                    &st) == 0 &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
        long long nset = sqlite3_column_int64(st, 0);
        double pct = sqlite3_column_double(st, 2);
        char w[32];
        fmt_ns(w, sizeof(w), sqlite3_column_double(st, 1));
        view_printf(
            v, LINE_DIM,
            "%-*s %lld configuration%s (%s, %.1f %% of the working GPU time) ran only before "
            "the program's repeated work: one-time set-up (docs/analyzer.md)",
            LABEL, "Set-up", nset, nset == 1 ? "" : "s", w, isfinite(pct) ? pct : 0.0);
    }
    sqlite3_finalize(st);
    st = NULL;
    view_printf(v, LINE_DEFAULT, "%s", "");
    view_printf(v, LINE_SECTION, "Top findings by time lost");
    /*
     * A one-time set-up's finding ranks after the repeated work's unless it
     * holds a tenth of the wall time (docs/analyzer.md "One-time set-up"),
     * so a list by rank can show 2 ms lost under 2 us: the line says
     * "one-time" (kernel_summary.one_time of its configuration, else of its
     * kernel; reports analyzed before the column existed: no tag).
     */
#define TOP_FINDINGS(ONCE)                                                                         \
    "SELECT id, rank, severity, time_lost_ns, share_pct, rule_id,"                                 \
    " coalesce(gh_kname(kernel_id), short_name, demangled_name, mangled_name, '(run)'), " ONCE     \
    " FROM v_finding f WHERE ?1 OR " EXPORT_FINDING_SHOWN " ORDER BY rank LIMIT 8"
    if (tui_prepare(v->db,
                    TOP_FINDINGS("coalesce((SELECT ks.one_time FROM kernel_summary ks"
                                 " WHERE ks.config_id = f.config_id), (SELECT ks.one_time"
                                 " FROM kernel_summary ks WHERE ks.config_id IS NULL"
                                 " AND ks.kernel_id = f.kernel_id), 0)"),
                    &st) &&
        tui_prepare(v->db, TOP_FINDINGS("0"), &st))
        return;
#undef TOP_FINDINGS
    sqlite3_bind_int(st, 1, view_show_all);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        char lost[32], share[32];
        fmt_ns(lost, sizeof(lost), tui_col_num(st, 3));
        fmt_pct(share, sizeof(share), tui_col_num(st, 4));
        struct tline *l = view_add_line(v);
        l->target = TARGET_FINDING;
        l->id = sqlite3_column_int64(st, 0);
        line_add(l, LINE_DEFAULT, 4, "%3lld", (long long)sqlite3_column_int64(st, 1));
        line_add_untrusted(l, line_of_severity(text(st, 2)), 8, text(st, 2), 16);
        line_add_right(l, LINE_DEFAULT, 8, lost);
        line_add(l, LINE_DEFAULT, 1, " ");
        line_add_right(l, LINE_DEFAULT, 6, share);
        line_add(l, LINE_DEFAULT, 1, " ");
        line_add_untrusted(l, LINE_LABEL, 24, text(st, 5), 64);
        line_add_untrusted(l, LINE_DEFAULT, 0, text(st, 6), 0);
        if (sqlite3_column_int(st, 7) == 1)
            line_add(l, LINE_DIM, 0, "  (one-time set-up)");
        n++;
    }
    sqlite3_finalize(st);
    char hidden[128];
    if (n == 0 && tui_hidden_notes(v->db, hidden, sizeof(hidden)) > 0)
        view_printf(v, LINE_DEFAULT, "  none that loses time; %s", hidden);
    else if (n == 0)
        view_printf(v, LINE_GOOD, "  none: every rule passed");
}

static void
add_time_split(struct view *v, double gpu_ns)
{
    sqlite3_stmt *st = NULL;
    /*
     * kernel_summary when analyzed, else the collector's configuration
     * totals. Analyzed, the shares are of the run's GPU time, which leaves
     * out the kernels that wait (bound_tier 'waiting', counted once on the
     * Waiting line): listed here they would take a share of a total they
     * are not in (XLA's DelayKernel read 248 % of a JAX run).
     */
    bool analyzed = tui_has_rows(v->db, "SELECT 1 FROM kernel_summary LIMIT 1");
    if (tui_prepare(v->db,
                    analyzed
                        ? "SELECT k.id, coalesce(gh_kname(k.id), k.short_name, k.demangled_name, "
                          "k.mangled_name), "
                          "ks.total_ns"
                          " FROM kernel_summary ks JOIN kernel k ON k.id = ks.kernel_id"
                          " WHERE ks.config_id IS NULL AND coalesce(ks.bound_tier, '') <> 'waiting'"
                          " ORDER BY ks.total_ns DESC LIMIT 9"
                        : "SELECT k.id, coalesce(gh_kname(k.id), k.short_name, k.demangled_name,"
                          " k.mangled_name),"
                          " sum(c.total_ns) AS t FROM config c JOIN kernel k ON k.id = c.kernel_id"
                          " GROUP BY k.id ORDER BY t DESC LIMIT 9",
                    &st))
        return;
    view_printf(v, LINE_DEFAULT, "%s", "");
    view_printf(v, LINE_SECTION, "Time by kernel");
    double shown = 0;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        double t = tui_col_num(st, 2);
        char tt[32], pct[32];
        fmt_ns(tt, sizeof(tt), t);
        double frac = gpu_ns > 0 ? t / gpu_ns : NAN;
        fmt_pct(pct, sizeof(pct), 100 * frac);
        struct tline *l = view_add_line(v);
        l->target = TARGET_KERNEL;
        l->id = sqlite3_column_int64(st, 0);
        line_add(l, LINE_DEFAULT, 1, " ");
        line_add_bar(l, isnan(frac) ? -1 : frac, 12);
        line_add_right(l, LINE_DEFAULT, 6, pct);
        line_add(l, LINE_DEFAULT, 1, " ");
        line_add_right(l, LINE_DEFAULT, 8, tt);
        line_add(l, LINE_DEFAULT, 1, " ");
        line_add_untrusted(l, LINE_DEFAULT, 0, text(st, 1), 0);
        shown += isnan(t) ? 0 : t;
        n++;
    }
    sqlite3_finalize(st);
    /*
     * The kernels not listed are the kernels' total less those shown; what
     * the denominator holds beyond all kernels is the copies' and memsets'
     * time (analysis.run_gpu_ns counts it): lumped with the kernels, a run of
     * 34.5 ms of kernels and 21.3 ms of copies read "the other kernels: 40.8%".
     */
    double kernels =
        tui_query_num(v->db,
                      analyzed ? "SELECT sum(total_ns) FROM kernel_summary WHERE config_id IS NULL"
                                 " AND coalesce(bound_tier, '') <> 'waiting' AND ?1 >= 0"
                               : "SELECT sum(total_ns) FROM config WHERE ?1 >= 0",
                      0);
    if (isnan(kernels) || kernels < shown)
        kernels = shown;
    if (n == 0)
        view_printf(v, LINE_DIM, "  no kernel launches in this report");
    else if (kernels > shown * 1.0001 && gpu_ns > 0)
        /* the same words in the TUI, its dump ('P') and `gpuhier report`, where no key works */
        view_printf(v, LINE_DIM,
                    "  ... the other kernels: %.1f%% (key 2, or gpuhier report --view kernels)",
                    100 * (kernels - shown) / gpu_ns);
    if (n > 0 && gpu_ns > kernels * 1.0001 && tui_has_rows(v->db, "SELECT 1 FROM copy LIMIT 1"))
        view_printf(v, LINE_DIM, "  ... copies and memsets: %.1f%%",
                    100 * (gpu_ns - kernels) / gpu_ns);
}

static int
summary_open(struct view *v)
{
    double gpu_ns = NAN;
    add_run(v);
    add_cache_control(v);
    add_engines(v);
    add_devices(v);
    add_totals(v, &gpu_ns);
    add_coverage(v);
    add_counter_coverage(v);
    char *created = store_meta_get(v->db, "created_by");
    if (created && !strcmp(created, "synthetic")) {
        char *prov = store_meta_get(v->db, "provenance");
        view_add_wrapped(v, LINE_WARNING, LABEL, "Synthetic", prov ? prov : "made-up report", 66);
        free(prov);
    }
    free(created);
    /*
     * Shares use the analysis's own denominator when there is one, so
     * they match the findings' share_pct; else the configuration totals.
     */
    double run_gpu_ns =
        tui_query_num(v->db, "SELECT run_gpu_ns FROM analysis ORDER BY id DESC LIMIT 1", 0);
    if (!isnan(run_gpu_ns) && run_gpu_ns > 0)
        gpu_ns = run_gpu_ns;
    add_findings(v, gpu_ns);
    add_time_split(v, gpu_ns);
    return 0;
}

static void
summary_title(struct view *v, char *buf, size_t n)
{
    snprintf(buf, n, "Summary");
}

const struct view_ops summary_ops = {
    .name = "summary",
    .open = summary_open,
    .title = summary_title,
};
