/* SPDX-License-Identifier: MIT */
/*
 * store_inst: the per-instruction counts' compact forms: runs (schema.sql
 * inst_run, version 3) and implied counts (inst_count's
 * 'gpuhier_inst_implied' rows, version 4, each carrying one count since
 * version 5).
 */
#include "schema/store.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static const char runs_sql[] = /* @T: the table of counts (with_table()) */
    "WITH r AS ("
    " SELECT launch_id, function_id, metric_id, pc, value,"
    "        LAG(pc) OVER w AS prev_pc, LAG(value) OVER w AS prev_value, LEAD(pc) OVER w AS next_pc"
    " FROM @T WHERE launch_id = ?1 AND metric_id IN " RUN_METRICS
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

/* schema.sql inst_count's 'gpuhier_inst_implied' bits, in their order (store.h) */
const struct store_implied store_implied[STORE_IMPLIED_N] = {
    {"smsp__sass_inst_executed_op_global_ld", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_global_st", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_shared_ld", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_shared_st", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_local_ld", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_local_st", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_memory_8b", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_memory_16b", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_memory_32b", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_memory_64b", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_memory_128b", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_ldgsts", "smsp__sass_inst_executed"},
    {"smsp__sass_inst_executed_op_tma", "smsp__sass_inst_executed"},
    {"smsp__sass_sectors_mem_global_ideal", "smsp__sass_sectors_mem_global"},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
     "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"},
};

/*
 * `tmpl` with every "@T" replaced by the table `tbl`, into out[cap]: 0, or
 * -1 with the message when it does not fit.
 */
static int
with_table(char *out, size_t cap, const char *tmpl, const char *tbl)
{
    size_t n = 0, tl = strlen(tbl);
    for (const char *p = tmpl; *p; p++) {
        int at = p[0] == '@' && p[1] == 'T';
        size_t add = at ? tl : 1;
        if (n + add + 1 > cap)
            return store_set_error("an instruction counts' statement is too long");
        memcpy(out + n, at ? tbl : p, add);
        n += add;
        p += at;
    }
    out[n] = '\0';
    return 0;
}

/* A statement of `tmpl` on the table `tbl` (with_table()), run with ?1 = launch_id (exec_launch()). */
static int
exec_table(sqlite3 *db, const char *tmpl, const char *tbl, long long launch_id, int *changes)
{
    char sql[4096];
    if (with_table(sql, sizeof(sql), tmpl, tbl))
        return -1;
    return exec_launch(db, sql, launch_id, changes);
}

/*
 * `what` (an INSERT or DELETE on @T reading `hit`) after the CTE `hit`:
 * the launch's rows of table `tbl` whose count equals their base's at the
 * same pc, as (function_id, pc, metric_id, bit), the bits from
 * store_implied[].
 */
static int
exec_hits(sqlite3 *db, const char *tbl, const char *what, long long launch_id, int *changes)
{
    char sql[4096];
    size_t n = (size_t)snprintf(sql, sizeof(sql), "WITH b(bit, metric, base) AS (VALUES ");
    for (int b = 0; b < STORE_IMPLIED_N && n < sizeof(sql); b++)
        n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s(%d, '%s', '%s')", b ? ", " : "", b,
                              store_implied[b].metric, store_implied[b].base);
    if (n < sizeof(sql))
        n += (size_t)snprintf(
            sql + n, sizeof(sql) - n, "%s %s",
            "), k AS (SELECT b.bit, m.id AS mid, s.id AS bid FROM b"
            " JOIN metric_name m ON m.name = b.metric JOIN metric_name s ON s.name = b.base),"
            " hit AS (SELECT c.function_id, c.pc, c.metric_id, k.bit FROM @T c"
            " JOIN k ON k.mid = c.metric_id JOIN @T s ON s.launch_id = c.launch_id"
            " AND s.function_id = c.function_id AND s.pc = c.pc AND s.metric_id = k.bid"
            " AND s.value = c.value WHERE c.launch_id = ?1)",
            what);
    if (n >= sizeof(sql))
        return store_set_error("the implied counts' statement is too long");
    return exec_table(db, sql, tbl, launch_id, changes);
}

/*
 * One compact form of launch `launch_id`'s counts in table `tbl`: unless
 * `skip` (a query on @T) says the launch is left as it is, `body` inside a
 * savepoint, rolled back when it fails. Returns the rows `body` removed
 * (0 when skipped), or -1 with the message.
 */
static int
compact(sqlite3 *db, const char *tbl, long long launch_id, const char *skip,
        int (*body)(sqlite3 *, const char *, long long, int *))
{
    int skipped = exec_table(db, skip, tbl, launch_id, NULL);
    if (skipped)
        return skipped < 0 ? -1 : 0;
    int removed = 0;
    if (store_exec(db, "SAVEPOINT inst_compact"))
        return -1;
    if (body(db, tbl, launch_id, &removed)) {
        sqlite3_exec(db, "ROLLBACK TO inst_compact; RELEASE inst_compact", NULL, NULL, NULL);
        return -1;
    }
    if (store_exec(db, "RELEASE inst_compact"))
        return -1;
    return removed;
}

/* the mask row's metric id, as an SQL expression */
#define MASK_ID "(SELECT id FROM metric_name WHERE name = '" STORE_IMPLIED_METRIC "')"

/*
 * The metrics a mask row can carry, k = 1, 2, 3 in its bits 15-16
 * (schema.sql inst_count, version 5), as a CTE `carry(k, mid)` of their ids.
 */
#define CARRY_CTE                                                                                  \
    "carry(k, mid) AS (SELECT 1, (SELECT id FROM metric_name WHERE name = "                        \
    "'smsp__sass_sectors_mem_global') UNION ALL SELECT 2, (SELECT id FROM metric_name WHERE "      \
    "name = 'smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared') UNION ALL SELECT 3, (SELECT id "    \
    "FROM metric_name WHERE name = 'smsp__sass_sectors_mem_local'))"

/*
 * Version 5: each mask row takes in the instruction's first count of
 * CARRY_CTE's metrics (the lowest k it has), value | k << 15 | count << 17,
 * and that count's row goes. A count of 2^46 or more (never a launch's
 * sectors) keeps its row. Masks are below 2^15 and nothing is carried
 * twice: a launch is made compact once (implied_in()).
 */
static const char carry_sql[] = /* @T (with_table()) */
    "WITH " CARRY_CTE ","
    " c AS (SELECT x.function_id, x.pc, x.value, carry.k,"
    "        ROW_NUMBER() OVER (PARTITION BY x.function_id, x.pc ORDER BY carry.k) AS rn"
    "       FROM @T x JOIN carry ON carry.mid = x.metric_id"
    "       WHERE x.launch_id = ?1 AND x.value >= 0 AND x.value < (1 << 46))"
    " UPDATE @T AS t SET value = t.value | (c.k << 15) | (c.value << 17) FROM c"
    " WHERE t.launch_id = ?1 AND t.metric_id = " MASK_ID
    " AND c.function_id = t.function_id AND c.pc = t.pc AND c.rn = 1";

/* the rows the masks took in (carry_sql) removed */
static const char carried_sql[] = /* @T (with_table()) */
    "WITH " CARRY_CTE " DELETE FROM @T WHERE launch_id = ?1 AND (function_id, pc, metric_id) IN"
    " (SELECT m.function_id, m.pc, carry.mid FROM @T m JOIN carry ON carry.k = (m.value >> 15) & 3"
    "  WHERE m.launch_id = ?1 AND m.metric_id = " MASK_ID ")";

/*
 * The implied form's statements: a mask row per instruction with hits,
 * the hits' rows removed, then the count each mask carries (carry_sql)
 * moved into it.
 */
static int
implied_body(sqlite3 *db, const char *tbl, long long launch_id, int *removed)
{
    int carried = 0;
    int rc = store_exec(db, "INSERT OR IGNORE INTO metric_name(name) VALUES ('" STORE_IMPLIED_METRIC
                            "')") ||
             exec_hits(db, tbl,
                       "INSERT INTO @T(launch_id, function_id, pc, metric_id, value)"
                       " SELECT ?1, function_id, pc, " MASK_ID ", SUM(1 << bit) FROM hit"
                       " GROUP BY function_id, pc",
                       launch_id, NULL) ||
             exec_hits(db, tbl,
                       "DELETE FROM @T WHERE launch_id = ?1 AND (function_id, pc, metric_id) IN"
                       " (SELECT function_id, pc, metric_id FROM hit)",
                       launch_id, removed) ||
             exec_table(db, carry_sql, tbl, launch_id, NULL) ||
             exec_table(db, carried_sql, tbl, launch_id, &carried);
    *removed += carried;
    return rc;
}

/* The runs' statements: the runs written, then the rows they replace removed. */
static int
runs_body(sqlite3 *db, const char *tbl, long long launch_id, int *removed)
{
    return exec_table(db, runs_sql, tbl, launch_id, NULL) ||
           exec_table(db, "DELETE FROM @T WHERE launch_id = ?1 AND metric_id IN " RUN_METRICS, tbl,
                      launch_id, removed);
}

/*
 * A launch is made compact once, after all its rows: one with runs or
 * masks already is left as it is (an implied count is its base's count,
 * so a row added to the base later would change it too).
 */
static int
implied_in(sqlite3 *db, const char *tbl, long long launch_id)
{
    return compact(db, tbl, launch_id,
                   "SELECT EXISTS (SELECT 1 FROM inst_run WHERE launch_id = ?1)"
                   " OR EXISTS (SELECT 1 FROM @T c JOIN metric_name n"
                   " ON n.id = c.metric_id WHERE c.launch_id = ?1"
                   " AND n.name = '" STORE_IMPLIED_METRIC "')",
                   implied_body);
}

/*
 * A launch that has runs already keeps any later rows per instruction
 * (v_inst sums both forms); pcs that are not whole instructions of 16
 * bytes stay per instruction too, where expansion could not restore them.
 */
static int
runs_in(sqlite3 *db, const char *tbl, long long launch_id)
{
    return compact(db, tbl, launch_id,
                   "SELECT EXISTS (SELECT 1 FROM inst_run WHERE launch_id = ?1)"
                   " OR EXISTS (SELECT 1 FROM @T WHERE launch_id = ?1"
                   " AND metric_id IN " RUN_METRICS " AND pc % 16 <> 0)",
                   runs_body);
}

int
store_inst_implied(sqlite3 *db, long long launch_id)
{
    return implied_in(db, "inst_count", launch_id);
}

int
store_inst_runs(sqlite3 *db, long long launch_id)
{
    return runs_in(db, "inst_count", launch_id);
}

/* the writer's stage: inst_count's columns and key, in the connection's TEMP schema */
#define STAGE "temp.inst_stage"

int
store_inst_stage(sqlite3 *db)
{
    return store_exec(db,
                      "CREATE TEMP TABLE IF NOT EXISTS inst_stage ("
                      " launch_id INTEGER NOT NULL, function_id INTEGER NOT NULL,"
                      " pc INTEGER NOT NULL, metric_id INTEGER NOT NULL, value INTEGER NOT NULL,"
                      " PRIMARY KEY (launch_id, function_id, pc, metric_id)) WITHOUT ROWID");
}

int
store_inst_unstage(sqlite3 *db, long long launch_id, int make_compact)
{
    int failed =
        make_compact && (implied_in(db, STAGE, launch_id) < 0 || runs_in(db, STAGE, launch_id) < 0);
    char *kept = failed ? strdup(store_error()) : NULL;
    if (exec_table(db,
                   "INSERT INTO inst_count(launch_id, function_id, pc, metric_id, value)"
                   " SELECT launch_id, function_id, pc, metric_id, value FROM @T"
                   " WHERE launch_id = ?1 ORDER BY function_id, pc, metric_id"
                   " ON CONFLICT DO UPDATE SET value = value + excluded.value",
                   STAGE, launch_id, NULL) ||
        exec_table(db, "DELETE FROM @T WHERE launch_id = ?1", STAGE, launch_id, NULL)) {
        free(kept);
        return -2;
    }
    if (kept) /* the compaction's message, not the move's */
        store_set_error("%s", kept);
    free(kept);
    return failed ? -1 : 0;
}
