/* SPDX-License-Identifier: MIT */
/*
 * view_kernel: one kernel (or one launch configuration of it): names and
 * source, launches and the floor, occupancy, the launch configuration,
 * and the memory hierarchy as a six-tier pyramid (registers, shared, L1,
 * L2, device memory, host link) with the traffic per launch, an
 * efficiency bar and the findings at each tier. 'm' adds every raw
 * metric (mean over the profiled launches).
 *
 * Bytes per tier come from kernel_summary when the analyzer wrote it;
 * efficiencies are computed here from the metric means, because they
 * are presentation (a ratio against the ideal), not analysis.
 */
#include "tui/tui_int.h"

#include "export/export.h"
#include "schema/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LABEL 12

struct metric_mean {
    char *name;
    double value;
};

struct kernel_priv {
    char *name; /* sanitized short name, for the title */
    struct metric_mean *m;
    size_t nm;
    long long *finding_ids;
    size_t nids;
};

static double
metric(const struct kernel_priv *p, const char *name)
{
    for (size_t i = 0; i < p->nm; i++)
        if (!strcmp(p->m[i].name, name))
            return p->m[i].value;
    return NAN;
}

static double
nz(double a)
{
    return isnan(a) ? 0 : a;
}

static void
priv_clear(struct kernel_priv *p)
{
    for (size_t i = 0; i < p->nm; i++)
        free(p->m[i].name);
    free(p->m);
    free(p->finding_ids);
    free(p->name);
    memset(p, 0, sizeof(*p));
}

static void
load_metrics(struct view *v, struct kernel_priv *p)
{
    sqlite3_stmt *st = NULL;
    /* The profile table holds only profiled launches: small even when launch is huge. */
    if (tui_prepare(
            v->db,
            "SELECT n.name, avg(m.value) FROM profile p JOIN launch l ON l.id = p.launch_id"
            " JOIN metric m ON m.launch_id = p.launch_id JOIN metric_name n ON n.id = m.metric_id"
            " WHERE l.kernel_id = ?1 AND (?2 < 0 OR l.config_id = ?2)"
            " GROUP BY n.name ORDER BY n.name",
            &st))
        return;
    sqlite3_bind_int64(st, 1, v->id);
    sqlite3_bind_int64(st, 2, v->id2);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (p->nm == cap) {
            cap = cap ? cap * 2 : 64;
            p->m = xrealloc(p->m, cap * sizeof(*p->m));
        }
        p->m[p->nm].name = xsanitize((const char *)sqlite3_column_text(st, 0), 256);
        p->m[p->nm].value = tui_col_num(st, 1);
        p->nm++;
    }
    sqlite3_finalize(st);
}

struct summary {
    bool has;
    double launches, profiled, total_ns, mean_ns, min_ns, max_ns, share_pct;
    double bytes[6]; /* registers (spill/local), shared, l1, l2, dram, host */
    double floor_ns, floor_measured_ns, floor_ratio, floor_ratio_measured;
    double theo_occ, ach_occ;
    char bound[32], limiter[32];
};

static void
load_summary(struct view *v, struct summary *s)
{
    memset(s, 0, sizeof(*s));
    sqlite3_stmt *st = NULL;
    if (tui_prepare(
            v->db,
            "SELECT launches, profiled_launches, total_ns, mean_ns, min_ns, max_ns, share_pct,"
            " local_bytes, shared_bytes, l1_bytes, l2_bytes, dram_bytes, host_bytes, floor_ns,"
            " floor_measured_ns, floor_ratio, floor_ratio_measured, bound_tier,"
            " theoretical_occupancy_pct, achieved_occupancy_pct, occupancy_limiter"
            " FROM kernel_summary WHERE kernel_id = ?1 AND config_id IS ?2 LIMIT 1",
            &st))
        return;
    sqlite3_bind_int64(st, 1, v->id);
    if (v->id2 >= 0)
        sqlite3_bind_int64(st, 2, v->id2);
    else
        sqlite3_bind_null(st, 2);
    if (sqlite3_step(st) == SQLITE_ROW) {
        s->has = true;
        s->launches = tui_col_num(st, 0);
        s->profiled = tui_col_num(st, 1);
        s->total_ns = tui_col_num(st, 2);
        s->mean_ns = tui_col_num(st, 3);
        s->min_ns = tui_col_num(st, 4);
        s->max_ns = tui_col_num(st, 5);
        s->share_pct = tui_col_num(st, 6);
        for (int i = 0; i < 6; i++)
            s->bytes[i] = tui_col_num(st, 7 + i);
        s->floor_ns = tui_col_num(st, 13);
        s->floor_measured_ns = tui_col_num(st, 14);
        s->floor_ratio = tui_col_num(st, 15);
        s->floor_ratio_measured = tui_col_num(st, 16);
        snprintf(s->bound, sizeof(s->bound), "%.20s",
                 (const char *)sqlite3_column_text(st, 17) ?: "-");
        s->theo_occ = tui_col_num(st, 18);
        s->ach_occ = tui_col_num(st, 19);
        snprintf(s->limiter, sizeof(s->limiter), "%.20s",
                 (const char *)sqlite3_column_text(st, 20) ?: "-");
    }
    sqlite3_finalize(st);
    if (!s->has) {
        /* Never analyzed: the collector's configuration totals. */
        if (tui_prepare(
                v->db,
                "SELECT sum(launches), sum(total_ns), min(theoretical_occupancy_pct),"
                " min(occupancy_limiter) FROM config WHERE kernel_id = ?1 AND (?2 < 0 OR id = ?2)",
                &st))
            return;
        sqlite3_bind_int64(st, 1, v->id);
        sqlite3_bind_int64(st, 2, v->id2);
        for (int i = 0; i < 6; i++)
            s->bytes[i] = NAN;
        s->min_ns = s->max_ns = s->share_pct = s->floor_ns = s->floor_measured_ns = NAN;
        s->floor_ratio = s->floor_ratio_measured = s->ach_occ = NAN;
        s->profiled =
            tui_query_num(v->db,
                          "SELECT count(*) FROM profile p JOIN launch l ON l.id = p.launch_id"
                          " WHERE l.kernel_id = ?1",
                          v->id);
        snprintf(s->bound, sizeof(s->bound), "-");
        if (sqlite3_step(st) == SQLITE_ROW) {
            s->launches = tui_col_num(st, 0);
            s->total_ns = tui_col_num(st, 1);
            s->mean_ns = s->launches > 0 ? s->total_ns / s->launches : NAN;
            s->theo_occ = tui_col_num(st, 2);
            snprintf(s->limiter, sizeof(s->limiter), "%.20s",
                     (const char *)sqlite3_column_text(st, 3) ?: "-");
        }
        sqlite3_finalize(st);
    }
}

static void
add_config(struct view *v)
{
    sqlite3_stmt *st = NULL;
    if (tui_prepare(
            v->db,
            "SELECT count(*) OVER (), grid_x, grid_y, grid_z, block_x, block_y, block_z,"
            " dynamic_smem_bytes, static_smem_bytes, registers_per_thread, local_bytes_per_thread,"
            " cluster_x, cluster_y, cluster_z, carveout_bytes, waves"
            " FROM config WHERE kernel_id = ?1 AND (?2 < 0 OR id = ?2) ORDER BY total_ns DESC "
            "LIMIT 1",
            &st))
        return;
    sqlite3_bind_int64(st, 1, v->id);
    sqlite3_bind_int64(st, 2, v->id2);
    if (sqlite3_step(st) == SQLITE_ROW) {
        long long n = sqlite3_column_int64(st, 0);
        if (n > 1)
            view_printf(v, LINE_DIM,
                        "%-*s %lld configurations; the busiest one ('c' in Kernels lists all):",
                        LABEL, "Config", n);
        view_printf(v, LINE_DEFAULT,
                    "%-*s grid %lldx%lldx%lld  block %lldx%lldx%lld  cluster %lldx%lldx%lld", LABEL,
                    n > 1 ? "" : "Config", (long long)sqlite3_column_int64(st, 1),
                    (long long)sqlite3_column_int64(st, 2), (long long)sqlite3_column_int64(st, 3),
                    (long long)sqlite3_column_int64(st, 4), (long long)sqlite3_column_int64(st, 5),
                    (long long)sqlite3_column_int64(st, 6), (long long)sqlite3_column_int64(st, 11),
                    (long long)sqlite3_column_int64(st, 12),
                    (long long)sqlite3_column_int64(st, 13));
        char carve[32], waves[32], local[32] = "-";
        fmt_bytes(carve, sizeof(carve), tui_col_num(st, 14));
        /* 3 significant digits, as latency-not-hidden's message gives them ("0.00 waves" for one block before) */
        export_fmt_number(waves, sizeof(waves), tui_col_num(st, 15), 3);
        /* NULL: only replayed launches were recorded (schema.sql, config) */
        if (!isnan(tui_col_num(st, 10)))
            snprintf(local, sizeof(local), "%lld B", (long long)sqlite3_column_int64(st, 10));
        view_printf(v, LINE_DEFAULT,
                    "%-*s shared %lld B dynamic + %lld B static, carveout %s; %lld regs/thread;"
                    " local %s/thread; %s waves",
                    LABEL, "", (long long)sqlite3_column_int64(st, 7),
                    (long long)sqlite3_column_int64(st, 8), carve,
                    (long long)sqlite3_column_int64(st, 9), local,
                    isnan(tui_col_num(st, 15)) ? "-" : waves);
    }
    sqlite3_finalize(st);
}

/* Peak host-link bandwidth from the PCIe generation and width, NAN when unknown. */
static double
host_peak(struct view *v)
{
    double gen = tui_query_num(v->db, "SELECT pcie_gen FROM device ORDER BY id LIMIT 1", 0);
    double lanes = tui_query_num(v->db, "SELECT pcie_width FROM device ORDER BY id LIMIT 1", 0);
    static const double per_lane[] = {0, 0.25e9, 0.5e9, 0.985e9, 1.969e9, 3.938e9, 7.877e9};
    if (isnan(gen) || isnan(lanes) || gen < 1 || gen > 6)
        return NAN;
    return per_lane[(int)gen] * lanes;
}

static void
add_findings_at(struct view *v, struct kernel_priv *p, const char *tier /* NULL: the others */)
{
    sqlite3_stmt *st = NULL;
    if (tui_prepare(v->db,
                    "SELECT id, severity, rule_id, time_lost_ns, message FROM finding"
                    " WHERE kernel_id = ?1 AND (?2 < 0 OR config_id = ?2 OR config_id IS NULL)"
                    " AND (tier = ?3 OR (?3 IS NULL AND (tier IS NULL OR tier NOT IN"
                    " ('registers', 'shared', 'l1', 'l2', 'dram', 'host'))))"
                    " AND (?4 OR " EXPORT_FINDING_SHOWN ") ORDER BY rank",
                    &st))
        return;
    sqlite3_bind_int(st, 4, view_show_all);
    sqlite3_bind_int64(st, 1, v->id);
    sqlite3_bind_int64(st, 2, v->id2);
    if (tier)
        sqlite3_bind_text(st, 3, tier, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 3);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *sev = (const char *)sqlite3_column_text(st, 1);
        char lost[32];
        fmt_ns(lost, sizeof(lost), tui_col_num(st, 3));
        struct tline *l = view_add_line(v);
        l->target = TARGET_FINDING;
        l->id = sqlite3_column_int64(st, 0);
        line_add(l, LINE_DEFAULT, 0, "      ! ");
        line_add_untrusted(l, line_of_severity(sev), 8, sev, 16);
        line_add_untrusted(l, LINE_LABEL, 0, (const char *)sqlite3_column_text(st, 2), 64);
        line_add(l, LINE_DIM, 0, "  lost %s: ", lost);
        line_add_untrusted(l, LINE_DEFAULT, 0, (const char *)sqlite3_column_text(st, 4), 512);
        p->finding_ids = xrealloc(p->finding_ids, (p->nids + 1) * sizeof(*p->finding_ids));
        p->finding_ids[p->nids++] = l->id;
    }
    sqlite3_finalize(st);
}

struct tier_line {
    const char *tier, *label;
    double bytes, frac;
    char detail[96];
};

static void
add_pyramid(struct view *v, struct kernel_priv *p, const struct summary *s)
{
    struct tier_line t[6] = {
        {"registers", "registers"}, {"shared", "shared"},  {"l1", "L1"}, {"l2", "L2"},
        {"dram", "DRAM"},           {"host", "host link"},
    };
    double b[6];
    for (int i = 0; i < 6; i++)
        b[i] = s->bytes[i];
    /* Without summaries, bytes straight from the metric means. */
    double lsec = nz(metric(p, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum")) +
                  nz(metric(p, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"));
    double shw = metric(p, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") +
                 nz(metric(p, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"));
    double shi = metric(p, "smsp__inst_executed_op_shared_ld.sum") +
                 nz(metric(p, "smsp__inst_executed_op_shared_st.sum"));
    double shc = metric(p, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum") +
                 nz(metric(p, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"));
    double gsec = metric(p, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    double greq = metric(p, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    double gbytes = metric(p, "smsp__sass_data_bytes_mem_global_op_ld.sum");
    double ginst = metric(p, "smsp__inst_executed_op_global_ld.sum");
    double l1hit = metric(p, "l1tex__t_sector_hit_rate.pct");
    /* exact counts (NaN where none, or where the query failed: the estimates then stand) */
    struct export_exact ex;
    (void)export_exact_counts(v->db, v->id, &ex);
    double l2h = metric(p, "lts__t_sectors_lookup_hit.sum"),
           l2m = metric(p, "lts__t_sectors_lookup_miss.sum");
    double dram = metric(p, "dram__bytes_read.sum") + nz(metric(p, "dram__bytes_write.sum"));
    /*
     * The SMs' own system-memory sectors, as the analyzer's host_bytes: the
     * all-unit counter reads about 25,000 sectors on the H200 whatever the
     * kernel (docs/agreement.md), which is no traffic of the kernel's.
     */
    double sys = metric(p, "lts__t_sectors_srcunit_tex_aperture_sysmem.sum");
    double dur = metric(p, "gpu__time_duration.sum");
    if (isnan(b[0]) && p->nm)
        b[0] = lsec * 32;
    if (isnan(b[1]))
        b[1] = shw * 128;
    if (isnan(b[2]))
        b[2] = (gsec + nz(metric(p, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")) + lsec) * 32;
    if (isnan(b[3]))
        b[3] = metric(p, "lts__t_sectors_srcunit_tex.sum") * 32;
    if (isnan(b[4]))
        b[4] = dram;
    if (isnan(b[5]))
        b[5] = sys * 32;
    double mean = !isnan(dur) ? dur : s->mean_ns;

    /*
     * registers: the share of L1 traffic that is spill, and the registers
     * per thread; a range when the kernel's configurations differ (an XLA
     * GEMM's 8 ran with 18 to 250, and the Config line's busiest one with 40)
     */
    double regs = tui_query_num(
        v->db, "SELECT max(registers_per_thread) FROM config WHERE kernel_id = ?1", v->id);
    double regs_min = tui_query_num(
        v->db, "SELECT min(registers_per_thread) FROM config WHERE kernel_id = ?1", v->id);
    char rg[48];
    if (!isnan(regs_min) && regs_min < regs)
        snprintf(rg, sizeof(rg), "%.0f-%.0f regs/thread by configuration", regs_min, regs);
    else
        snprintf(rg, sizeof(rg), "%.0f regs/thread", regs);
    if (!isnan(b[0]) && !isnan(b[2]) && b[2] > 0) {
        t[0].frac = 1 - b[0] / b[2];
        if (b[0] > 0) {
            char sb[32];
            fmt_bytes(sb, sizeof(sb), b[0]);
            snprintf(t[0].detail, sizeof(t[0].detail), "%s spilled; %s", sb, rg);
        } else {
            snprintf(t[0].detail, sizeof(t[0].detail), "no spill; %s", rg);
        }
    } else {
        t[0].frac = -1;
        snprintf(t[0].detail, sizeof(t[0].detail), "%s", rg);
    }
    /*
     * shared: n-way = wavefronts over the wavefronts without conflicts (the
     * hardware's conflict counters), between 1 and the 32 ways 32 banks allow;
     * wavefronts per instruction is no n-way (a conflict-free 128-bit access
     * takes 4, a partial warp less than 1), so without the conflict counters
     * only that ratio is shown, under its own name.
     */
    if (!isnan(shw) && !isnan(shc) && shw > 0) {
        double raw = shw > shc ? shw / (shw - shc) : INFINITY;
        double ways = raw < 1 ? 1 : raw > 32 ? 32 : raw;
        t[1].frac = 1 / ways;
        if (raw > 32)
            snprintf(t[1].detail, sizeof(t[1].detail),
                     "32-way conflicts (counters: %s; 32 banks allow 32)",
                     isinf(raw) ? "every wavefront a conflict" : "more");
        else
            snprintf(t[1].detail, sizeof(t[1].detail), "%.1f-way conflicts (ideal 1)", ways);
    } else if (!isnan(export_exact_ways(&ex))) {
        /* the exact counts, where no conflict counters came: wavefronts over their ideal */
        t[1].frac = 1 / export_exact_ways(&ex);
        snprintf(t[1].detail, sizeof(t[1].detail), "%.1f-way conflicts (ideal 1, exact)",
                 export_exact_ways(&ex));
    } else if (!isnan(shw) && !isnan(shi) && shi > 0) {
        t[1].frac = -1;
        snprintf(t[1].detail, sizeof(t[1].detail), "%.1f wavefronts/instruction", shw / shi);
    } else {
        t[1].frac = -1;
        snprintf(t[1].detail, sizeof(t[1].detail), "%s",
                 shi == 0 || export_exact_no_shared(&ex) ? "no shared-memory access"
                                                         : "not measured");
    }
    /*
     * L1: global load sectors against their ideal. Exact per-instruction
     * counts first, when the kernel has them (the instrumentation engine:
     * the ideal itself, not one guessed from the bytes asked); without
     * them, the range profiler's sectors per request. A PyTorch copy read
     * "no global loads measured" here beside its finding's exact 12.5 %.
     */
    double per_load, ideal_per_load;
    if (export_exact_loads(&ex, &per_load, &ideal_per_load, &t[2].frac)) {
        if (!isnan(l1hit))
            snprintf(t[2].detail, sizeof(t[2].detail),
                     "%.1f sectors/load (ideal %.1f, exact), hit %.0f%%", per_load, ideal_per_load,
                     l1hit);
        else
            snprintf(t[2].detail, sizeof(t[2].detail), "%.1f sectors/load (ideal %.1f, exact)",
                     per_load, ideal_per_load);
    } else if (!isnan(gsec) && !isnan(greq) && greq > 0) {
        double spr = gsec / greq;
        double ideal =
            (!isnan(gbytes) && !isnan(ginst) && ginst > 0) ? ceil(gbytes / ginst / 32) : 4;
        if (ideal < 1)
            ideal = 1;
        t[2].frac = spr > 0 ? ideal / spr : -1;
        snprintf(t[2].detail, sizeof(t[2].detail), "%.1f sectors/req (ideal %.0f), hit %.0f%%", spr,
                 ideal, nz(l1hit));
    } else {
        t[2].frac = -1;
        snprintf(t[2].detail, sizeof(t[2].detail), "%s", "no global loads measured");
    }
    /* L2: hit rate */
    if (!isnan(l2h) && !isnan(l2m) && l2h + l2m > 0) {
        t[3].frac = l2h / (l2h + l2m);
        /*
         * One-pass groups: hits and misses cannot share a pass on GH100, so
         * the rate joins two launches of the configuration, exact only if
         * both met the same cache state (docs/metrics.md "One-pass groups")
         */
        int spread =
            tui_query_num(v->db,
                          "SELECT count(*) FROM profile p JOIN launch l ON l.id = p.launch_id"
                          " WHERE l.kernel_id = ?1 AND p.metric_set LIKE 'group%/%'",
                          v->id) > 0;
        snprintf(t[3].detail, sizeof(t[3].detail), "hit rate %.0f%%%s", 100 * t[3].frac,
                 spread ? " (spread: hits, misses from 2 launches)" : "");
    } else {
        t[3].frac = -1;
        snprintf(t[3].detail, sizeof(t[3].detail), "%s", "not measured");
    }
    /* DRAM and host link: share of the peak bandwidth while the kernel runs */
    double peak =
        tui_query_num(v->db, "SELECT peak_dram_bw_bytes_per_s FROM device ORDER BY id LIMIT 1", 0);
    if (!isnan(b[4]) && mean > 0 && !isnan(peak) && peak > 0) {
        double bw = b[4] / (mean * 1e-9);
        char bws[32];
        fmt_bw(bws, sizeof(bws), bw);
        t[4].frac = bw / peak;
        snprintf(t[4].detail, sizeof(t[4].detail), "%s, %.0f%% of peak", bws, 100 * bw / peak);
    } else {
        t[4].frac = -1;
        snprintf(t[4].detail, sizeof(t[4].detail), "%s", "not measured");
    }
    double hpeak = host_peak(v);
    if (!isnan(b[5]) && b[5] > 0 && mean > 0 && !isnan(hpeak)) {
        double bw = b[5] / (mean * 1e-9);
        char bws[32];
        fmt_bw(bws, sizeof(bws), bw);
        t[5].frac = bw / hpeak;
        snprintf(t[5].detail, sizeof(t[5].detail), "%s, %.0f%% of the link", bws, 100 * bw / hpeak);
    } else {
        t[5].frac = -1;
        snprintf(t[5].detail, sizeof(t[5].detail), "%s",
                 isnan(b[5]) ? "not measured"
                 : b[5] == 0 ? "no host-memory access"
                             : "link speed unknown");
    }

    view_printf(v, LINE_SECTION, "Memory hierarchy        traffic/launch  efficiency");
    for (int i = 0; i < 6; i++) {
        struct tline *l = view_add_line(v);
        char by[32];
        fmt_bytes(by, sizeof(by), b[i]);
        /* The pyramid: each tier's box two cells wider than the one above, centred. */
        int box = 10 + 2 * i, label = (int)strlen(t[i].label);
        int left = (box - label) / 2;
        line_add(l, LINE_DEFAULT, 0, "%*s", 6 - i, "");
        line_add(l, LINE_TIER, 0, "%*s%s%*s", left, "", t[i].label, box - label - left, "");
        line_add(l, LINE_DEFAULT, 0, "%*s", 6 - i + 1, "");
        line_add(l, LINE_DEFAULT, 0, "%9s ", by);
        line_add_bar(l, t[i].frac, 10);
        line_add(l, t[i].frac >= 0 && t[i].frac < 0.5 ? LINE_WARNING : LINE_DEFAULT, 0, "%s",
                 t[i].detail);
        add_findings_at(v, p, t[i].tier);
    }
}

static void
add_raw_metrics(struct view *v, struct kernel_priv *p)
{
    view_printf(v, LINE_DEFAULT, "%s", "");
    if (!v->mode) {
        view_printf(v, LINE_DIM, "%zu raw metrics: press 'm' to list them", p->nm);
        return;
    }
    view_printf(v, LINE_SECTION, "Raw metrics (mean over the profiled launches)");
    if (p->nm == 0)
        view_printf(v, LINE_DIM, "  none: no launch of this kernel was profiled");
    for (size_t i = 0; i < p->nm; i++) {
        struct tline *l = view_add_line(v);
        line_add(l, LINE_DEFAULT, 2, " ");
        line_add(l, LINE_LABEL, 62, "%s", p->m[i].name);
        char num[64]; /* never in scientific notation: "%.6g" wrote 1.34235e+08 bytes */
        line_add(l, LINE_DEFAULT, 0, "%s", export_fmt_number(num, sizeof(num), p->m[i].value, 6));
    }
}

static int
kernel_open(struct view *v)
{
    struct kernel_priv *p = v->priv;
    if (!p)
        p = v->priv = xcalloc(1, sizeof(*p));
    priv_clear(p);
    sqlite3_stmt *st = NULL;
    int found =
        view_kernel_row(v,
                        "SELECT coalesce(gh_kname(id), short_name), demangled_name, mangled_name,"
                        " source_file,"
                        " source_line FROM kernel WHERE id = ?1",
                        &st);
    if (found <= 0)
        return found;
    const char *shortn = (const char *)sqlite3_column_text(st, 0);
    const char *dem = (const char *)sqlite3_column_text(st, 1);
    const char *mang = (const char *)sqlite3_column_text(st, 2);
    p->name = xsanitize(shortn ? shortn : dem ? dem : mang, 512);
    view_add_wrapped(v, LINE_SECTION, LABEL, "Kernel",
                     shortn ? shortn
                     : dem  ? dem
                            : mang,
                     view_wrap(v));
    /*
     * The full signature and mangled name come after the pyramid: a
     * templated library kernel's signature wraps over a whole screen and
     * would push the hierarchy out of sight.
     */
    char *dem_copy = dem ? xstrdup(dem) : NULL;
    char *mang_copy = mang ? xstrdup(mang) : NULL;
    if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
        struct tline *l = view_add_line(v);
        line_add(l, LINE_LABEL, LABEL, "Source");
        line_add_untrusted(l, LINE_DEFAULT, 0, (const char *)sqlite3_column_text(st, 3), 1024);
        line_add(l, LINE_DEFAULT, 0, ":%lld", (long long)sqlite3_column_int64(st, 4));
    } else {
        view_printf(v, LINE_DIM, "%-*s unknown (build with -lineinfo)", LABEL, "Source");
    }
    sqlite3_finalize(st);

    struct summary s;
    load_summary(v, &s);
    load_metrics(v, p);
    char a[32], b[32], c[32], d[32], e[32], f[32];
    fmt_count(a, sizeof(a), s.launches);
    fmt_count(b, sizeof(b), s.profiled);
    /* "0 profiled" beside exact counts read as none: the instrumented launches are counted apart */
    long long instrumented =
        store_user_version(v->db) >= 2
            ? tui_query_int(v->db, "SELECT count(*) FROM inst_launch WHERE kernel_id = ?1", v->id,
                            0)
            : 0;
    char pb[96];
    if (instrumented > 0)
        snprintf(pb, sizeof(pb), "%s profiled, %lld instrumented", b, instrumented);
    else
        snprintf(pb, sizeof(pb), "%s profiled", b);
    fmt_ns(c, sizeof(c), s.total_ns);
    fmt_ns(d, sizeof(d), s.mean_ns);
    fmt_pct(e, sizeof(e), s.share_pct);
    /* A kernel whose launches all ran instrumented has no traced time (a patched run keeps none):
       "0 ns total" beside a finding's time lost read as a contradiction. */
    if (isnan(s.mean_ns) && !(s.total_ns > 0))
        view_printf(v, LINE_DEFAULT,
                    "%-*s %s traced, %s; no traced time (its launches ran instrumented)", LABEL,
                    "Launches", a, pb);
    else
        view_printf(v, LINE_DEFAULT, "%-*s %s traced, %s; %s total (%s), mean %s", LABEL,
                    "Launches", a, pb, c, e, d);
    fmt_ns(a, sizeof(a), s.floor_ns);
    fmt_ratio(b, sizeof(b), s.floor_ratio);
    fmt_ns(c, sizeof(c), s.floor_measured_ns);
    fmt_ratio(d, sizeof(d), s.floor_ratio_measured);
    if (s.has && isnan(s.floor_ns)) {
        view_printf(v, LINE_DIM, "%-*s not measured (it got no hardware counters)", LABEL, "Floor");
    } else if (s.has && isnan(s.floor_ratio)) {
        view_printf(v, LINE_DEFAULT, "%-*s %s at peak bandwidth; no traced time to set against it",
                    LABEL, "Floor", a);
    } else if (s.has) {
        enum line_type ft = s.floor_ratio > 2 ? LINE_WARNING : LINE_DEFAULT;
        view_printf(v, ft, "%-*s %s at peak bandwidth: the mean is %s the floor", LABEL, "Floor", a,
                    b);
        /* Say which bandwidth the second floor used: without a measured copy it is the datasheet's. */
        double copy_bw = tui_query_num(v->db,
                                       "SELECT d.measured_copy_bw_bytes_per_s FROM config c JOIN "
                                       "device d ON d.id = c.device_id WHERE c.kernel_id = ?1 "
                                       "LIMIT 1",
                                       v->id);
        char bound[64];
        snprintf(bound, sizeof(bound), "bound by %s", s.bound);
        if (isnan(copy_bw))
            view_printf(v, ft, "%-*s copy bandwidth not measured: no second floor; %s", LABEL, "",
                        bound);
        else
            view_printf(v, ft, "%-*s %s at measured copy bandwidth (%s); %s", LABEL, "", c, d,
                        bound);
    } else
        view_printf(v, LINE_DIM, "%-*s not analyzed", LABEL, "Floor");
    fmt_pct(e, sizeof(e), s.theo_occ);
    double ach = !isnan(s.ach_occ) ? s.ach_occ
                                   : metric(p, "sm__warps_active.avg.pct_of_peak_sustained_active");
    fmt_pct(f, sizeof(f), ach);
    view_printf(v, LINE_DEFAULT, "%-*s theoretical %s, achieved %s, limited by %s", LABEL,
                "Occupancy", e, f, s.limiter[0] ? s.limiter : "-");
    add_config(v);
    view_printf(v, LINE_DEFAULT, "%s", "");
    add_pyramid(v, p, &s);
    /* Findings at no tier of the pyramid (NULL tier: other tiers): never hide one. */
    add_findings_at(v, p, NULL);
    view_printf(v, LINE_DEFAULT, "%s", "");
    if (dem_copy)
        view_add_wrapped(v, LINE_DEFAULT, LABEL, "Signature", dem_copy, view_wrap(v));
    view_add_wrapped(v, LINE_DIM, LABEL, "Mangled", mang_copy, view_wrap(v));
    free(dem_copy);
    free(mang_copy);
    add_raw_metrics(v, p);
    return 0;
}

static void
kernel_title(struct view *v, char *buf, size_t n)
{
    struct kernel_priv *p = v->priv;
    const char *name = p && p->name ? p->name : "?";
    if (v->id2 >= 0)
        snprintf(buf, n, "Kernel %s, configuration %lld", name, v->id2);
    else
        snprintf(buf, n, "Kernel %s", name);
}

static enum request
kernel_request(struct view *v, enum request req)
{
    if (req != REQ_TOGGLE_METRICS)
        return req;
    v->mode = !v->mode;
    view_load(v);
    return REQ_NONE;
}

static void
kernel_done(struct view *v)
{
    if (v->priv)
        priv_clear(v->priv);
    free(v->priv);
    v->priv = NULL;
}

size_t
kernel_view_finding_ids(struct view *v, const long long **ids)
{
    struct kernel_priv *p = v->priv;
    *ids = p ? p->finding_ids : NULL;
    return p ? p->nids : 0;
}

const struct view_ops kernel_ops = {
    .name = "kernel",
    .open = kernel_open,
    .title = kernel_title,
    .request = kernel_request,
    .done = kernel_done,
};
