/* SPDX-License-Identifier: MIT */
/*
 * prepare: the per-configuration table every rule and every kernel
 * summary starts from, built once per analysis.
 *
 * Rules must not scan launches or pivot metrics themselves: with a
 * million launches and 21 rules that would be 21 full scans. Instead the
 * launches are aggregated once (temp.lstat), the v_profiled pivot is
 * materialized once (temp.v_profiled, which shadows the report's view of
 * the same name: unqualified names resolve to temp first), and both are
 * joined with the configuration and device limits into temp.cfg, one row
 * per configuration with the derived quantities of DESIGN.md (useful
 * bytes, floor, bytes and time per tier, occupancy per limit).
 * docs/rules.md documents every column rules may use.
 *
 * The hardware facts used here (not thresholds; rules own those):
 *   - L1/shared: 128 bytes per cycle per SM (one 128-byte wavefront);
 *   - L2: twice the DRAM bandwidth (J "La pirámide": HBM -> L2 2x);
 *   - host link: PCIe per-lane rate x width, else 64 GB/s (H §4.1);
 *   - issue: 4 warp-instructions per cycle per SM (4 SMSPs);
 *   - registers: allocated per warp in reg_alloc_unit units, per SMSP
 *     quarter of the register file (the occupancy calculator's rule).
 */
#include "analyzer/analyzer_int.h"
#include "schema/store.h"

#include <stdlib.h>
#include <string.h>

static const char lstat_sql[] =
    "CREATE TEMP TABLE lstat AS\n"
    "SELECT kernel_id, config_id, COUNT(*) AS launches,\n"
    "  SUM(profiled = 1) AS profiled_launches,\n"
    "  SUM(CASE WHEN profiled IS NOT 1 AND end_ns >= start_ns THEN end_ns - start_ns END) AS unprof_ns,\n"
    "  SUM(CASE WHEN profiled IS NOT 1 AND end_ns >= start_ns THEN 1 END) AS unprof_n,\n"
    "  MIN(CASE WHEN profiled IS NOT 1 AND end_ns >= start_ns THEN end_ns - start_ns END) AS unprof_min,\n"
    "  MAX(CASE WHEN profiled IS NOT 1 AND end_ns >= start_ns THEN end_ns - start_ns END) AS unprof_max,\n"
    "  SUM(CASE WHEN end_ns >= start_ns THEN end_ns - start_ns END) AS all_ns,\n"
    "  SUM(CASE WHEN end_ns >= start_ns THEN 1 END) AS all_n,\n"
    "  MIN(CASE WHEN end_ns >= start_ns THEN end_ns - start_ns END) AS all_min,\n"
    "  MAX(CASE WHEN end_ns >= start_ns THEN end_ns - start_ns END) AS all_max\n"
    "FROM main.launch GROUP BY kernel_id, config_id";

/*
 * Durations come from unprofiled launches when there are any: a profiled
 * launch ran under kernel replay (DESIGN.md "Collection").
 */
static const char lstat2_sql[] =
    "CREATE TEMP TABLE lstat2 AS\n"
    "SELECT kernel_id, config_id, launches, profiled_launches,\n"
    "  COALESCE(unprof_ns * 1.0 / unprof_n, all_ns * 1.0 / all_n) AS mean_ns,\n"
    "  CASE WHEN unprof_n > 0 THEN unprof_min ELSE all_min END AS min_ns,\n"
    "  CASE WHEN unprof_n > 0 THEN unprof_max ELSE all_max END AS max_ns,\n"
    "  COALESCE(unprof_ns * 1.0 / unprof_n, all_ns * 1.0 / all_n) * launches AS total_ns\n"
    "FROM temp.lstat";

static const char cfg_sql[] =
    "CREATE TEMP TABLE cfg AS\n"
    "SELECT z.*,\n"
    "  CASE WHEN max_t_ns IS NULL OR mean_ns IS NULL THEN NULL\n"
    "       WHEN max_t_ns < 0.5 * mean_ns THEN 'latency'\n"
    "       WHEN max_t_ns = t_host_ns THEN 'host' WHEN max_t_ns = t_dram_ns THEN 'dram'\n"
    "       WHEN max_t_ns = t_l2_ns THEN 'l2' WHEN max_t_ns = t_l1_ns THEN 'l1'\n"
    "       WHEN max_t_ns = t_shared_ns THEN 'shared' ELSE 'compute' END AS bound_tier\n"
    "FROM (SELECT y.*,\n"
    "  useful_bytes * 1e9 / bw_dram AS floor_ns,\n"
    "  useful_bytes * 1e9 / bw_copy AS floor_measured_ns,\n"
    "  mean_ns / (useful_bytes * 1e9 / bw_dram) AS floor_ratio,\n"
    "  mean_ns / (useful_bytes * 1e9 / bw_copy) AS floor_ratio_measured,\n"
    "  COALESCE(useful_bytes * 1e9 / bw_copy, 0) AS floor_cap_ns,\n"
    "  MAX(0, mean_ns - COALESCE(useful_bytes * 1e9 / bw_copy, 0)) AS gap_ns,\n"
    "  dram_bytes * 1e9 / bw_dram AS t_dram_ns, l2_bytes * 1e9 / bw_l2 AS t_l2_ns,\n"
    "  l1_bytes * 1e9 / bw_l1 AS t_l1_ns, shared_bytes * 1e9 / bw_l1 AS t_shared_ns,\n"
    "  host_bytes * 1e9 / bw_host AS t_host_ns,\n"
    "  inst_executed * 1e9 / (4.0 * sm_count * sm_clock_khz * 1e3) AS t_compute_ns,\n"
    "  CASE WHEN COALESCE(dram_bytes, l2_bytes, l1_bytes, shared_bytes, host_bytes, inst_executed) IS NULL THEN NULL ELSE\n"
    "  MAX(COALESCE(dram_bytes * 1e9 / bw_dram, 0), COALESCE(l2_bytes * 1e9 / bw_l2, 0),\n"
    "      COALESCE(l1_bytes * 1e9 / bw_l1, 0), COALESCE(shared_bytes * 1e9 / bw_l1, 0),\n"
    "      COALESCE(host_bytes * 1e9 / bw_host, 0),\n"
    "      COALESCE(inst_executed * 1e9 / (4.0 * sm_count * sm_clock_khz * 1e3), 0)) END AS max_t_ns,\n"
    "  100.0 * dram_bytes * 1e9 / bw_dram / mean_ns AS util_dram_pct,\n"
    "  100.0 * l2_bytes * 1e9 / bw_l2 / mean_ns AS util_l2_pct,\n"
    "  100.0 * l1_bytes * 1e9 / bw_l1 / mean_ns AS util_l1_pct,\n"
    "  100.0 * shared_bytes * 1e9 / bw_l1 / mean_ns AS util_shared_pct,\n"
    "  100.0 * host_bytes * 1e9 / bw_host / mean_ns AS util_host_pct,\n"
    "  100.0 * MAX(COALESCE(dram_bytes * 1e9 / bw_dram, 0), COALESCE(l2_bytes * 1e9 / bw_l2, 0),\n"
    "      COALESCE(l1_bytes * 1e9 / bw_l1, 0), COALESCE(shared_bytes * 1e9 / bw_l1, 0)) / mean_ns AS util_mem_pct\n"
    "FROM (SELECT x.*,\n"
    "  CASE WHEN requested_bytes IS NOT NULL AND dram_bytes IS NOT NULL THEN MIN(requested_bytes, dram_bytes)\n"
    "       ELSE COALESCE(requested_bytes, dram_bytes) END AS useful_bytes,\n"
    "  MIN(lim_warps, lim_blocks, lim_regs, lim_smem) AS blocks_per_sm_calc,\n"
    "  100.0 * MIN(lim_warps, lim_blocks, lim_regs, lim_smem) * warps_per_block / max_warps_per_sm AS occupancy_calc_pct,\n"
    "  COALESCE(collector_occupancy_pct,\n"
    "    100.0 * MIN(lim_warps, lim_blocks, lim_regs, lim_smem) * warps_per_block / max_warps_per_sm) AS theoretical_occupancy_pct,\n"
    "  COALESCE(collector_limiter, CASE MIN(lim_warps, lim_blocks, lim_regs, lim_smem)\n"
    "    WHEN lim_regs THEN 'registers' WHEN lim_smem THEN 'shared_memory'\n"
    "    WHEN lim_warps THEN 'warps' ELSE 'blocks' END) AS occupancy_limiter,\n"
    "  100.0 * MIN(lim_warps, lim_blocks, lim_smem) * warps_per_block / max_warps_per_sm AS occ_without_regs_pct,\n"
    "  100.0 * MIN(lim_warps, lim_blocks, lim_regs) * warps_per_block / max_warps_per_sm AS occ_without_smem_pct,\n"
    "  COALESCE(collector_waves, blocks * 1.0 / (MIN(lim_warps, lim_blocks, lim_regs, lim_smem) * sm_count)) AS waves\n"
    "FROM (SELECT w.*,\n"
    "  CASE WHEN gld_requested_bytes IS NULL AND gst_requested_bytes IS NULL THEN NULL\n"
    "       ELSE COALESCE(gld_requested_bytes, 0) + COALESCE(gst_requested_bytes, 0) END AS requested_bytes,\n"
    "  CASE WHEN dram_read_bytes IS NULL AND dram_write_bytes IS NULL THEN NULL\n"
    "       ELSE COALESCE(dram_read_bytes, 0) + COALESCE(dram_write_bytes, 0) END AS dram_bytes,\n"
    "  CASE WHEN shld_wavefronts IS NULL AND shst_wavefronts IS NULL THEN NULL\n"
    "       ELSE 128.0 * (COALESCE(shld_wavefronts, 0) + COALESCE(shst_wavefronts, 0)) END AS shared_bytes,\n"
    "  CASE WHEN lld_sectors IS NULL AND lst_sectors IS NULL THEN NULL\n"
    "       ELSE 32.0 * (COALESCE(lld_sectors, 0) + COALESCE(lst_sectors, 0)) END AS local_bytes,\n"
    "  CASE WHEN COALESCE(gld_sectors, gst_sectors, lld_sectors, lst_sectors) IS NULL THEN NULL\n"
    "       ELSE 32.0 * (COALESCE(gld_sectors, 0) + COALESCE(gst_sectors, 0) + COALESCE(lld_sectors, 0) + COALESCE(lst_sectors, 0)) END AS l1_bytes,\n"
    "  CASE WHEN l2_hit_sectors IS NULL AND l2_miss_sectors IS NULL THEN NULL\n"
    "       ELSE 32.0 * (COALESCE(l2_hit_sectors, 0) + COALESCE(l2_miss_sectors, 0)) END AS l2_bytes,\n"
    "  32.0 * sysmem_sectors AS host_bytes,\n"
    "  100.0 * l2_hit_sectors / NULLIF(COALESCE(l2_hit_sectors, 0) + COALESCE(l2_miss_sectors, 0), 0) AS l2_hit_rate_pct,\n"
    "  peak_dram_bw_bytes_per_s AS bw_dram,\n"
    "  COALESCE(measured_copy_bw_bytes_per_s, peak_dram_bw_bytes_per_s) AS bw_copy,\n"
    "  2.0 * peak_dram_bw_bytes_per_s AS bw_l2,\n"
    "  128.0 * sm_count * sm_clock_khz * 1e3 AS bw_l1,\n"
    "  COALESCE(pcie_width * CASE pcie_gen WHEN 1 THEN 0.25e9 WHEN 2 THEN 0.5e9 WHEN 3 THEN 0.985e9\n"
    "    WHEN 4 THEN 1.969e9 WHEN 5 THEN 3.938e9 WHEN 6 THEN 7.563e9 END, 64e9) AS bw_host,\n"
    "  max_warps_per_sm / warps_per_block AS lim_warps,\n"
    "  max_blocks_per_sm AS lim_blocks,\n"
    "  CASE WHEN registers_per_thread > 0 THEN\n"
    "    4 * ((regs_per_sm / 4) / (((registers_per_thread * warp_size + reg_unit - 1) / reg_unit) * reg_unit))\n"
    "      / warps_per_block\n"
    "    ELSE max_blocks_per_sm END AS lim_regs,\n"
    "  CASE WHEN COALESCE(static_smem_bytes, 0) + COALESCE(dynamic_smem_bytes, 0) > 0 THEN\n"
    "    smem_per_sm_bytes / (COALESCE(static_smem_bytes, 0) + COALESCE(dynamic_smem_bytes, 0)\n"
    "      + COALESCE(smem_reserved_per_block_bytes, 0))\n"
    "    ELSE max_blocks_per_sm END AS lim_smem\n"
    "FROM (SELECT c.id AS config_id, c.kernel_id, c.device_id,\n"
    "  k.short_name, k.demangled_name, k.mangled_name,\n"
    "  c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z,\n"
    "  c.cluster_x, c.cluster_y, c.cluster_z,\n"
    "  COALESCE(c.dynamic_smem_bytes, 0) AS dynamic_smem_bytes, COALESCE(c.static_smem_bytes, 0) AS static_smem_bytes,\n"
    "  c.registers_per_thread, c.local_bytes_per_thread, c.carveout_bytes,\n"
    "  COALESCE(c.threads_per_block, c.block_x * c.block_y * c.block_z) AS threads_per_block,\n"
    "  COALESCE(c.blocks, c.grid_x * c.grid_y * c.grid_z) AS blocks,\n"
    "  (COALESCE(c.threads_per_block, c.block_x * c.block_y * c.block_z) + COALESCE(d.warp_size, 32) - 1)\n"
    "    / COALESCE(d.warp_size, 32) AS warps_per_block,\n"
    "  c.theoretical_occupancy_pct AS collector_occupancy_pct, c.occupancy_limiter AS collector_limiter,\n"
    "  c.blocks_per_sm AS collector_blocks_per_sm, c.waves AS collector_waves,\n"
    "  d.sm_count, COALESCE(d.warp_size, 32) AS warp_size, d.max_threads_per_block, d.max_threads_per_sm,\n"
    "  d.max_warps_per_sm, d.max_blocks_per_sm, d.regs_per_sm, d.regs_per_block,\n"
    "  COALESCE(d.reg_alloc_unit, 256) AS reg_unit, d.smem_per_sm_bytes, d.smem_per_block_bytes,\n"
    "  d.smem_per_block_optin_bytes, d.smem_reserved_per_block_bytes, d.l2_bytes AS l2_size_bytes,\n"
    "  d.sm_clock_khz, d.peak_dram_bw_bytes_per_s, d.measured_copy_bw_bytes_per_s, d.pcie_gen, d.pcie_width,\n"
    "  COALESCE(s.launches, 0) AS launches, COALESCE(s.profiled_launches, 0) AS profiled_launches,\n"
    "  s.mean_ns, s.min_ns, s.max_ns, COALESCE(s.total_ns, 0) AS total_ns,\n"
    "  p.*\n"
    "FROM main.config c JOIN main.kernel k ON k.id = c.kernel_id LEFT JOIN main.device d ON d.id = c.device_id\n"
    "LEFT JOIN temp.lstat2 s ON s.config_id = c.id AND s.kernel_id = c.kernel_id\n"
    "LEFT JOIN temp.pagg p ON p.pagg_config_id = c.id) w) x) y) z";

/* Build "AVG(col) AS col, ..." over temp.v_profiled's metric columns. */
static char *
pagg_sql(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    char *sql = NULL;
    size_t len = 0;
    if (store_prepare(db, "SELECT name FROM pragma_table_info('v_profiled', 'temp')", &st))
        return NULL;
    const char *head = "CREATE TEMP TABLE pagg AS SELECT config_id AS pagg_config_id, "
                       "COUNT(*) AS profiled_rows, MIN(launch_id) AS profiled_launch_id";
    sql = an_xstrdup(head);
    len = strlen(sql);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (!name || !strcmp(name, "launch_id") || !strcmp(name, "kernel_id") ||
            !strcmp(name, "config_id") || !strcmp(name, "device_id"))
            continue;
        /* Column names come from our own schema's view; quoted anyway. */
        size_t add = 2 * strlen(name) + 32;
        sql = an_xrealloc(sql, len + add);
        len += (size_t)snprintf(sql + len, add, ", AVG(\"%s\") AS \"%s\"", name, name);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(sql);
        an_fail(ANALYZER_ERR_INTERNAL, "cannot list v_profiled columns");
        return NULL;
    }
    const char *tail = " FROM temp.v_profiled GROUP BY config_id";
    sql = an_xrealloc(sql, len + strlen(tail) + 1);
    memcpy(sql + len, tail, strlen(tail) + 1);
    return sql;
}

void
an_unprepare(sqlite3 *db)
{
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.cfg; DROP TABLE IF EXISTS temp.pagg;"
                     "DROP TABLE IF EXISTS temp.v_profiled; DROP TABLE IF EXISTS temp.lstat2;"
                     "DROP TABLE IF EXISTS temp.lstat;",
                 NULL, NULL, NULL);
}

static int
exec(sqlite3 *db, const char *sql, const char *what)
{
    if (store_exec(db, sql))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot build %s: %s", what, store_error());
    return 0;
}

int
an_prepare(sqlite3 *db)
{
    int ret = -1;
    char *sql = NULL;
    an_unprepare(db);
    if (exec(db, lstat_sql, "launch statistics") || exec(db, lstat2_sql, "launch statistics") ||
        exec(db, "CREATE INDEX temp.lstat2_by_config ON lstat2(config_id)", "launch statistics") ||
        exec(db, "CREATE TEMP TABLE v_profiled AS SELECT * FROM main.v_profiled", "v_profiled") ||
        exec(db, "CREATE INDEX temp.v_profiled_by_config ON v_profiled(config_id)", "v_profiled"))
        goto out;
    if (!(sql = pagg_sql(db)) || exec(db, sql, "profiled averages") ||
        exec(db, "CREATE INDEX temp.pagg_by_config ON pagg(pagg_config_id)", "profiled averages") ||
        exec(db, cfg_sql, "configuration table") ||
        exec(db, "CREATE INDEX temp.cfg_by_config ON cfg(config_id)", "configuration table"))
        goto out;
    ret = 0;
out:
    free(sql);
    return ret;
}

double
an_run_gpu_ns(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    double v = -1;
    if (store_prepare(db,
            "SELECT COALESCE((SELECT SUM(total_ns) FROM temp.lstat2), 0)"
            " + COALESCE((SELECT SUM(end_ns - start_ns) FROM main.copy WHERE end_ns >= start_ns), 0)",
            &st)) {
        an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
        return -1;
    }
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    else
        an_fail(ANALYZER_ERR_INTERNAL, "cannot compute the run's GPU time");
    sqlite3_finalize(st);
    return v;
}

/*
 * kernel_summary: one row per configuration from temp.cfg, then one per
 * kernel (config_id NULL) aggregated over its configurations and over
 * launches with no configuration. Byte columns are per launch, weighted
 * by launches over the configurations that have counters; the kernel's
 * floor ratio compares the time and the floor of those same
 * configurations, so a kernel profiled in only one of its shapes is not
 * judged by the others' time.
 */
static const char summary_config_sql[] =
    "INSERT INTO main.kernel_summary (kernel_id, config_id, launches, profiled_launches, total_ns, mean_ns,\n"
    "  min_ns, max_ns, share_pct, shared_bytes, l1_bytes, l2_bytes, dram_bytes, host_bytes, local_bytes,\n"
    "  requested_bytes, useful_bytes, floor_ns, floor_measured_ns, floor_ratio, floor_ratio_measured,\n"
    "  bound_tier, theoretical_occupancy_pct, achieved_occupancy_pct, occupancy_limiter,\n"
    "  findings, worst_severity, worst_rule_id, time_lost_ns)\n"
    "SELECT c.kernel_id, c.config_id, c.launches, c.profiled_launches, CAST(ROUND(c.total_ns) AS INTEGER), c.mean_ns,\n"
    "  c.min_ns, c.max_ns, 100.0 * c.total_ns / NULLIF(:run_ns, 0), c.shared_bytes, c.l1_bytes, c.l2_bytes,\n"
    "  c.dram_bytes, c.host_bytes, c.local_bytes, c.requested_bytes, c.useful_bytes, c.floor_ns,\n"
    "  c.floor_measured_ns, c.floor_ratio, c.floor_ratio_measured, c.bound_tier,\n"
    "  c.theoretical_occupancy_pct, c.achieved_occupancy_pct, c.occupancy_limiter,\n"
    "  (SELECT COUNT(*) FROM main.finding f WHERE f.config_id = c.config_id),\n"
    "  (SELECT f.severity FROM main.finding f WHERE f.config_id = c.config_id\n"
    "     ORDER BY CASE f.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END LIMIT 1),\n"
    "  (SELECT f.rule_id FROM main.finding f WHERE f.config_id = c.config_id ORDER BY f.rank LIMIT 1),\n"
    "  (SELECT COALESCE(SUM(f.time_lost_ns), 0) FROM main.finding f WHERE f.config_id = c.config_id)\n"
    "FROM temp.cfg c ORDER BY c.kernel_id, c.config_id";

static const char summary_kernel_sql[] =
    "INSERT INTO main.kernel_summary (kernel_id, config_id, launches, profiled_launches, total_ns, mean_ns,\n"
    "  min_ns, max_ns, share_pct, shared_bytes, l1_bytes, l2_bytes, dram_bytes, host_bytes, local_bytes,\n"
    "  requested_bytes, useful_bytes, floor_ns, floor_measured_ns, floor_ratio, floor_ratio_measured,\n"
    "  bound_tier, theoretical_occupancy_pct, achieved_occupancy_pct, occupancy_limiter,\n"
    "  findings, worst_severity, worst_rule_id, time_lost_ns)\n"
    "SELECT k.id, NULL, COALESCE(s.launches, 0), COALESCE(s.profiled, 0), CAST(ROUND(COALESCE(s.total_ns, 0)) AS INTEGER),\n"
    "  s.total_ns / NULLIF(s.launches, 0), s.min_ns, s.max_ns, 100.0 * COALESCE(s.total_ns, 0) / NULLIF(:run_ns, 0),\n"
    "  a.shared_bytes, a.l1_bytes, a.l2_bytes, a.dram_bytes, a.host_bytes, a.local_bytes, a.requested_bytes,\n"
    "  a.useful_bytes, a.floor_ns, a.floor_measured_ns,\n"
    "  a.floored_total_ns / NULLIF(a.floor_total_ns, 0), a.floored_total_ns / NULLIF(a.floor_measured_total_ns, 0),\n"
    "  (SELECT c.bound_tier FROM temp.cfg c WHERE c.kernel_id = k.id AND c.bound_tier IS NOT NULL\n"
    "     ORDER BY c.total_ns DESC LIMIT 1),\n"
    "  a.theoretical_occupancy_pct, a.achieved_occupancy_pct,\n"
    "  (SELECT c.occupancy_limiter FROM temp.cfg c WHERE c.kernel_id = k.id ORDER BY c.total_ns DESC LIMIT 1),\n"
    "  (SELECT COUNT(*) FROM main.finding f WHERE f.kernel_id = k.id),\n"
    "  (SELECT f.severity FROM main.finding f WHERE f.kernel_id = k.id\n"
    "     ORDER BY CASE f.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END LIMIT 1),\n"
    "  (SELECT f.rule_id FROM main.finding f WHERE f.kernel_id = k.id ORDER BY f.rank LIMIT 1),\n"
    "  (SELECT COALESCE(SUM(f.time_lost_ns), 0) FROM main.finding f WHERE f.kernel_id = k.id)\n"
    "FROM main.kernel k\n"
    "LEFT JOIN (SELECT kernel_id, SUM(launches) AS launches, SUM(profiled_launches) AS profiled,\n"
    "    SUM(total_ns) AS total_ns, MIN(min_ns) AS min_ns, MAX(max_ns) AS max_ns\n"
    "  FROM temp.lstat2 GROUP BY kernel_id) s ON s.kernel_id = k.id\n"
    "LEFT JOIN (SELECT kernel_id,\n"
    "    SUM(shared_bytes * launches) / NULLIF(SUM(CASE WHEN shared_bytes IS NOT NULL THEN launches END), 0) AS shared_bytes,\n"
    "    SUM(l1_bytes * launches) / NULLIF(SUM(CASE WHEN l1_bytes IS NOT NULL THEN launches END), 0) AS l1_bytes,\n"
    "    SUM(l2_bytes * launches) / NULLIF(SUM(CASE WHEN l2_bytes IS NOT NULL THEN launches END), 0) AS l2_bytes,\n"
    "    SUM(dram_bytes * launches) / NULLIF(SUM(CASE WHEN dram_bytes IS NOT NULL THEN launches END), 0) AS dram_bytes,\n"
    "    SUM(host_bytes * launches) / NULLIF(SUM(CASE WHEN host_bytes IS NOT NULL THEN launches END), 0) AS host_bytes,\n"
    "    SUM(local_bytes * launches) / NULLIF(SUM(CASE WHEN local_bytes IS NOT NULL THEN launches END), 0) AS local_bytes,\n"
    "    SUM(requested_bytes * launches) / NULLIF(SUM(CASE WHEN requested_bytes IS NOT NULL THEN launches END), 0) AS requested_bytes,\n"
    "    SUM(useful_bytes * launches) / NULLIF(SUM(CASE WHEN useful_bytes IS NOT NULL THEN launches END), 0) AS useful_bytes,\n"
    "    SUM(floor_ns * launches) / NULLIF(SUM(CASE WHEN floor_ns IS NOT NULL THEN launches END), 0) AS floor_ns,\n"
    "    SUM(floor_measured_ns * launches) / NULLIF(SUM(CASE WHEN floor_measured_ns IS NOT NULL THEN launches END), 0) AS floor_measured_ns,\n"
    "    SUM(CASE WHEN floor_ns > 0 THEN total_ns END) AS floored_total_ns,\n"
    "    SUM(CASE WHEN floor_ns > 0 THEN floor_ns * launches END) AS floor_total_ns,\n"
    "    SUM(CASE WHEN floor_measured_ns > 0 THEN floor_measured_ns * launches END) AS floor_measured_total_ns,\n"
    "    SUM(theoretical_occupancy_pct * launches) / NULLIF(SUM(CASE WHEN theoretical_occupancy_pct IS NOT NULL THEN launches END), 0) AS theoretical_occupancy_pct,\n"
    "    SUM(achieved_occupancy_pct * launches) / NULLIF(SUM(CASE WHEN achieved_occupancy_pct IS NOT NULL THEN launches END), 0) AS achieved_occupancy_pct\n"
    "  FROM temp.cfg GROUP BY kernel_id) a ON a.kernel_id = k.id\n"
    "ORDER BY k.id";

int
an_write_summaries(sqlite3 *db, double run_gpu_ns)
{
    const char *sqls[] = {summary_config_sql, summary_kernel_sql};
    for (size_t i = 0; i < 2; i++) {
        sqlite3_stmt *st = NULL;
        if (store_prepare(db, sqls[i], &st))
            return an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
        sqlite3_bind_double(st, sqlite3_bind_parameter_index(st, ":run_ns"), run_gpu_ns);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return an_fail(ANALYZER_ERR_INTERNAL, "cannot write kernel summaries: %s", sqlite3_errstr(rc));
    }
    return 0;
}
