/* SPDX-License-Identifier: MIT */
/*
 * ranks: the analysis across the ranks of a merged job report
 * (`gpuhier merge`, schema.sql job_rank): each rank's GPU time and wait,
 * the straggler, each kernel's time per rank. It writes rank_summary and
 * rank_kernel; engine.c writes rank_finding with the severity scale it
 * owns. A report of one process has no job_rank rows and none of this
 * runs.
 *
 * Every row of rank R has an id in [R << 32, (R + 1) << 32), so a rank's
 * configurations, copies and profiles are id ranges: no join through a
 * mapping table, and the primary keys answer each range.
 */
#include "analyzer/analyzer_int.h"

#include "schema/store.h"

#include <string.h>

int
an_ranks_present(sqlite3 *db)
{
    return store_query_int(
               db,
               "SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name IN"
               " ('job_rank', 'rank_summary', 'rank_kernel', 'rank_finding')",
               0) == 4 &&
           store_query_int(db, "SELECT count(*) FROM main.job_rank", 0) > 0;
}

/*
 * Communication kernels: they wait on other ranks (schema.sql
 * rank_summary). By name and by the waiting rules, from the kernel and
 * configuration tables only: a test of launch.launch_type (cooperative
 * multi-device launches, deprecated since CUDA 11) read every launch of
 * every kernel at random, seconds per million launches.
 */
static const char comm_sql[] =
    "DROP TABLE IF EXISTS temp.comm_kernel;\n"
    "CREATE TEMP TABLE comm_kernel (kernel_id INTEGER PRIMARY KEY);\n"
    "INSERT INTO temp.comm_kernel SELECT id FROM main.kernel k\n"
    "WHERE k.mangled_name LIKE '%nccl%' OR k.mangled_name LIKE '%nvshmem%'\n"
    "   OR coalesce(k.demangled_name, '') LIKE '%nccl%'\n"
    "   OR coalesce(k.demangled_name, '') LIKE '%nvshmem%'\n"
    "   OR EXISTS (SELECT 1 FROM temp.cfg c WHERE c.kernel_id = k.id\n"
    "              AND c.config_id IN (SELECT config_id FROM temp.waiting));\n";

/* Per rank: its part of the run's GPU time, by the analyzer's own totals, and its wall time. */
static const char rank_gpu_sql[] =
    "DROP TABLE IF EXISTS temp.rank_gpu;\n"
    "CREATE TEMP TABLE rank_gpu AS\n"
    "SELECT j.rank AS rank,\n"
    "  COALESCE((SELECT SUM(s.total_ns) FROM temp.lstat2 s\n"
    "     WHERE s.config_id >= j.rank << 32 AND s.config_id < (j.rank + 1) << 32\n"
    "       AND s.config_id NOT IN (SELECT config_id FROM temp.waiting)), 0)\n"
    "  + COALESCE((SELECT SUM(c.end_ns - c.start_ns) FROM main.copy c\n"
    "     WHERE c.id >= j.rank << 32 AND c.id < (j.rank + 1) << 32 AND c.end_ns >= c.start_ns), "
    "0)\n"
    "    AS gpu_ns,\n"
    "  (SELECT CASE WHEN r.end_ns > r.start_ns THEN r.end_ns - r.start_ns\n"
    "     - COALESCE((SELECT SUM(p.overhead_ns) FROM main.profile p\n"
    "        WHERE p.launch_id >= j.rank << 32 AND p.launch_id < (j.rank + 1) << 32), 0) END\n"
    "   FROM main.run r WHERE r.id = j.run_id) AS wall_ns\n"
    "FROM main.job_rank j;\n"
    "CREATE UNIQUE INDEX temp.rank_gpu_by_rank ON rank_gpu(rank);\n";

int
an_ranks_prepare(sqlite3 *db)
{
    if (store_exec(db, "CREATE TEMP TABLE IF NOT EXISTS waiting (config_id INTEGER PRIMARY KEY)") ||
        store_exec(db, comm_sql) || store_exec(db, rank_gpu_sql))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot prepare the ranks: %s", store_error());
    return 0;
}

/*
 * rank_kernel, then rank_summary: work and communication per rank, the
 * lag behind the median rank, the straggler. Straggler test (docs/
 * analyzer.md "Across ranks"): in a job whose ranks meet at collectives,
 * a collective ends when its last rank arrives, and a rank that arrives
 * early spends the difference inside its communication kernel. The rank
 * the others wait for is then the one with the most work (kernels and
 * copies that do not wait) and, for the same reason, the least time in
 * communication. It is named only when both hold: its work is above the
 * median rank's by at least 5 % (and 1 us: below that is jitter) and the
 * other ranks' mean communication time is above its own.
 */
static const char rank_write_sql[] =
    "DELETE FROM main.rank_kernel; DELETE FROM main.rank_summary;\n"
    "INSERT INTO main.rank_kernel (kernel_id, rank, launches, total_ns, is_comm)\n"
    "SELECT s.kernel_id, s.config_id >> 32, SUM(s.launches), SUM(s.total_ns),\n"
    "  s.kernel_id IN (SELECT kernel_id FROM temp.comm_kernel)\n"
    "FROM temp.lstat2 s WHERE s.config_id IS NOT NULL\n"
    "  AND (s.config_id >> 32) IN (SELECT rank FROM main.job_rank)\n"
    "GROUP BY s.kernel_id, s.config_id >> 32;\n"
    "INSERT INTO main.rank_summary (rank, gpu_ns, work_ns, comm_ns, launches, comm_launches,\n"
    "  wall_ns, lag_ns, is_straggler, findings, worst_severity)\n"
    "SELECT g.rank, g.gpu_ns,\n"
    "  g.gpu_ns - COALESCE((SELECT SUM(s.total_ns) FROM temp.lstat2 s\n"
    "     WHERE s.config_id >= g.rank << 32 AND s.config_id < (g.rank + 1) << 32\n"
    "       AND s.kernel_id IN (SELECT kernel_id FROM temp.comm_kernel)\n"
    "       AND s.config_id NOT IN (SELECT config_id FROM temp.waiting)), 0),\n"
    "  COALESCE((SELECT SUM(total_ns) FROM main.rank_kernel rk WHERE rk.rank = g.rank\n"
    "     AND rk.is_comm), 0),\n"
    "  COALESCE((SELECT SUM(launches) FROM main.rank_kernel rk WHERE rk.rank = g.rank), 0),\n"
    "  COALESCE((SELECT SUM(launches) FROM main.rank_kernel rk WHERE rk.rank = g.rank\n"
    "     AND rk.is_comm), 0),\n"
    "  g.wall_ns, NULL, 0,\n"
    "  (SELECT COUNT(*) FROM main.rank_finding rf WHERE rf.rank = g.rank),\n"
    "  (SELECT rf.severity FROM main.rank_finding rf WHERE rf.rank = g.rank\n"
    "     ORDER BY CASE rf.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END LIMIT 1)\n"
    "FROM temp.rank_gpu g;\n"
    /* the median of work_ns: the middle row, or the mean of the two middle rows */
    "DROP TABLE IF EXISTS temp.rank_median;\n"
    "CREATE TEMP TABLE rank_median AS SELECT AVG(work_ns) AS ns FROM (\n"
    "  SELECT work_ns FROM main.rank_summary ORDER BY work_ns\n"
    "  LIMIT 2 - (SELECT COUNT(*) FROM main.rank_summary) % 2\n"
    "  OFFSET ((SELECT COUNT(*) FROM main.rank_summary) - 1) / 2);\n"
    "UPDATE main.rank_summary SET lag_ns = work_ns - (SELECT ns FROM temp.rank_median);\n"
    "UPDATE main.rank_summary SET is_straggler = 1\n"
    "WHERE rank = (SELECT rank FROM main.rank_summary ORDER BY work_ns DESC, rank LIMIT 1)\n"
    "  AND (SELECT COUNT(*) FROM main.rank_summary) >= 2\n"
    "  AND lag_ns >= 1000 AND lag_ns >= 0.05 * (SELECT ns FROM temp.rank_median)\n"
    "  AND (SELECT AVG(o.comm_ns) FROM main.rank_summary o WHERE o.rank <> rank_summary.rank)\n"
    "      > comm_ns;\n"
    "DROP TABLE temp.rank_median;\n";

int
an_ranks_write(sqlite3 *db)
{
    if (store_exec(db, rank_write_sql))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot write the rank summaries: %s", store_error());
    return 0;
}

void
an_ranks_unprepare(sqlite3 *db)
{
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.comm_kernel; DROP TABLE IF EXISTS temp.rank_gpu;",
                 NULL, NULL, NULL);
}
