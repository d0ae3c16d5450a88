/* SPDX-License-Identifier: MIT */
/*
 * store_inst: the per-instruction counts' run form (schema.sql inst_run,
 * version 3).
 */
#include "schema/store.h"

#include <sqlite3.h>
#include <stddef.h>

/*
 * The metrics every instruction of a basic block shares, kept as runs.
 * The other SASS metrics are per memory instruction: runs of one.
 */
#define RUN_METRICS                                                                                \
    "(SELECT id FROM metric_name WHERE name IN ('smsp__sass_inst_executed', "                      \
    "'smsp__sass_thread_inst_executed'))"

/*
 * A run starts where the previous instruction with a count is not the one
 * 16 bytes before, or had another count; a run of 0 starts after every
 * instruction whose next one has no count (a gap, or the function's end),
 * which also ends the last run (schema.sql inst_run).
 */
static const char runs_sql[] =
    "WITH r AS ("
    " SELECT launch_id, function_id, metric_id, pc, value,"
    "        LAG(pc) OVER w AS prev_pc, LAG(value) OVER w AS prev_value, LEAD(pc) OVER w AS next_pc"
    " FROM inst_count WHERE launch_id = ?1 AND metric_id IN " RUN_METRICS
    " WINDOW w AS (PARTITION BY function_id, metric_id ORDER BY pc))"
    " INSERT INTO inst_run(launch_id, function_id, metric_id, pc, value)"
    " SELECT launch_id, function_id, metric_id, pc, value FROM r"
    "  WHERE prev_pc IS NULL OR pc - prev_pc <> 16 OR prev_value <> value"
    " UNION ALL"
    " SELECT launch_id, function_id, metric_id, pc + 16, 0 FROM r"
    "  WHERE next_pc IS NULL OR next_pc - pc <> 16";

/*
 * Runs `sql` once with ?1 = launch_id: 0, or -1 with the message; a query's
 * first column when `changes` is NULL and it returned a row; else the rows
 * it changed in *changes.
 */
static int
exec_launch(sqlite3 *db, const char *sql, long long launch_id, int *changes)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db, sql, &st))
        return -1;
    sqlite3_bind_int64(st, 1, launch_id);
    int rc = sqlite3_step(st);
    int ret = 0;
    if (rc == SQLITE_ROW && !changes)
        ret = sqlite3_column_int(st, 0);
    else if (rc != SQLITE_DONE)
        ret = store_fail(db, rc, "writing the instruction runs");
    if (changes && ret == 0)
        *changes = sqlite3_changes(db);
    sqlite3_finalize(st);
    return ret;
}

int
store_inst_runs(sqlite3 *db, long long launch_id)
{
    /*
     * A launch that has runs already keeps any later rows per instruction
     * (v_inst sums both forms); pcs that are not whole instructions of 16
     * bytes stay per instruction too, where expansion could not restore them.
     */
    int skip = exec_launch(db,
                           "SELECT EXISTS (SELECT 1 FROM inst_run WHERE launch_id = ?1)"
                           " OR EXISTS (SELECT 1 FROM inst_count WHERE launch_id = ?1"
                           " AND metric_id IN " RUN_METRICS " AND pc % 16 <> 0)",
                           launch_id, NULL);
    if (skip)
        return skip < 0 ? -1 : 0;
    int removed = 0;
    if (store_exec(db, "SAVEPOINT inst_runs"))
        return -1;
    if (exec_launch(db, runs_sql, launch_id, NULL) ||
        exec_launch(db, "DELETE FROM inst_count WHERE launch_id = ?1 AND metric_id IN " RUN_METRICS,
                    launch_id, &removed)) {
        sqlite3_exec(db, "ROLLBACK TO inst_runs; RELEASE inst_runs", NULL, NULL, NULL);
        return -1;
    }
    if (store_exec(db, "RELEASE inst_runs"))
        return -1;
    return removed;
}
