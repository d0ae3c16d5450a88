/* SPDX-License-Identifier: MIT */
/*
 * inst_restage REPORT...: re-writes each report's per-instruction counts
 * the way this build's collector writes them, in place, then vacuums it.
 *
 * For measuring a change to the counts' compact forms (schema.sql
 * inst_count, inst_run) on reports recorded on the device, without a GPU:
 * for every instrumented launch, its inst_count rows and its runs
 * expanded to one row per instruction go to the writer's stage
 * (store_inst_stage()), and store_inst_unstage() makes them compact and
 * moves them back, as the writer does after an instrumented record. Only
 * reports without masks (schema versions 2 and 3) are taken: a mask's
 * counts cannot be told apart again here. The report's user_version
 * becomes this build's, its stored views stay those of the build that
 * recorded it: read it with this build's gpuhier (which uses its own
 * v_inst) or measure its tables (bench/report_bytes.py). A meta row
 * 'inst_restaged' says so, so a re-written copy never passes for a
 * recording. Use it on copies.
 *
 * Exit 0, or 1 with a message on the first report it cannot re-write.
 */
#include "schema/store.h"

#include <sqlite3.h>
#include <stdio.h>

/* a launch's runs, one row per 16-byte instruction (schema.sql inst_run) */
static const char expand_sql[] =
    "WITH RECURSIVE r AS (SELECT function_id, metric_id, pc, value,"
    " LEAD(pc) OVER (PARTITION BY function_id, metric_id ORDER BY pc) AS end_pc"
    " FROM inst_run WHERE launch_id = ?1),"
    " i(function_id, metric_id, pc, value, end_pc) AS ("
    " SELECT function_id, metric_id, pc, value, end_pc FROM r"
    "  WHERE value <> 0 AND end_pc IS NOT NULL"
    " UNION ALL SELECT function_id, metric_id, pc + 16, value, end_pc FROM i WHERE pc + 16 < "
    "end_pc)"
    " INSERT INTO temp.inst_stage(launch_id, function_id, pc, metric_id, value)"
    " SELECT ?1, function_id, pc, metric_id, SUM(value) FROM i GROUP BY function_id, pc, metric_id"
    " ON CONFLICT DO UPDATE SET value = value + excluded.value";

static const char *const per_launch[] = {
    "INSERT INTO temp.inst_stage SELECT launch_id, function_id, pc, metric_id, value"
    " FROM inst_count WHERE launch_id = ?1",
    expand_sql,
    "DELETE FROM inst_count WHERE launch_id = ?1",
    "DELETE FROM inst_run WHERE launch_id = ?1",
};

static int
run_launch(sqlite3 *db, long long lid)
{
    for (size_t i = 0; i < sizeof(per_launch) / sizeof(per_launch[0]); i++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, per_launch[i], -1, &st, NULL) != SQLITE_OK)
            return -1;
        sqlite3_bind_int64(st, 1, lid);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return -1;
    }
    return store_inst_unstage(db, lid, 1) == 0 ? 0 : -1;
}

static int
restage(const char *path)
{
    sqlite3 *db = NULL;
    int ok = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK;
    const char *why = "cannot open it";
    if (ok && store_query_int(db,
                              "SELECT count(*) FROM inst_count c JOIN metric_name n"
                              " ON n.id = c.metric_id WHERE n.name = '" STORE_IMPLIED_METRIC "'",
                              -1) != 0) {
        ok = 0;
        why = "it has masks already (schema version 4 or later) or no inst_count";
    }
    if (ok && (store_inst_stage(db) || store_exec(db, "BEGIN"))) {
        ok = 0;
        why = "cannot set up the stage";
    }
    sqlite3_stmt *launches = NULL;
    if (ok && sqlite3_prepare_v2(db, "SELECT launch_id FROM inst_launch ORDER BY launch_id", -1,
                                 &launches, NULL) != SQLITE_OK)
        ok = 0;
    int n = 0;
    while (ok && sqlite3_step(launches) == SQLITE_ROW) {
        if (run_launch(db, sqlite3_column_int64(launches, 0))) {
            ok = 0;
            why = "a launch's counts could not be re-written";
        }
        n++;
    }
    sqlite3_finalize(launches);
    char sql[160];
    snprintf(sql, sizeof(sql),
             "INSERT OR REPLACE INTO meta(key, value) VALUES ('inst_restaged',"
             " 'bench/inst_restage, schema version %d, %d launches'); COMMIT",
             STORE_SCHEMA_VERSION, n);
    if (ok && store_exec(db, sql))
        ok = 0;
    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d; VACUUM", STORE_SCHEMA_VERSION);
    if (ok && store_exec(db, sql))
        ok = 0;
    if (!ok && db && sqlite3_errcode(db) != SQLITE_OK)
        fprintf(stderr, "inst_restage: '%s': %s (%s)\n", path, why, sqlite3_errmsg(db));
    else if (!ok)
        fprintf(stderr, "inst_restage: '%s': %s\n", path, why);
    sqlite3_close(db);
    return ok ? 0 : -1;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: inst_restage REPORT...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        if (restage(argv[i]))
            return 1;
    return 0;
}
