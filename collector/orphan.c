/* SPDX-License-Identifier: MIT */
/*
 * Why the next image closes the report: exec() runs no exit handler, and
 * the collector, injected with CUDA_INJECTION64_PATH, cannot interpose
 * execve. What the previous image committed (its writer commits at least
 * every 0.5 s) is in the WAL; SQLite recovers it when the file is opened
 * here, once the previous image's descriptors (O_CLOEXEC) and locks are gone.
 */
#include "collector/orphan.h"

#include <sqlite3.h>
#include <stdio.h>
#include <time.h>

static int
fail(sqlite3 *db, const char *what, char *err, size_t n)
{
    snprintf(err, n, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return -1;
}

static long long
count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long v = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int
orphan_close(const char *path, const char *next, long long *launches, long long *profiled,
             char *err, size_t n)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        return fail(db, "open", err, n);
    sqlite3_busy_timeout(db, 2000);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    char msg[4400];
    snprintf(msg, sizeof(msg),
             "the program replaced itself with exec(); its exit handlers never ran, so the records "
             "of its last moments (at most its last 0.5 s) may be missing%s%s",
             next ? "; the program it started writes " : "", next ? next : "");
    sqlite3_stmt *st = NULL;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, "begin", err, n);
    if (sqlite3_prepare_v2(db, "UPDATE run SET end_ns = ?1, clean_exit = 0 WHERE end_ns IS NULL",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(db, "update run", err, n);
    sqlite3_bind_int64(st, 1, now);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return fail(db, "update run", err, n);
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO event(time_ns, level, code, message) "
                           "VALUES (?1, 'warning', 'exec', ?2)",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(db, "insert event", err, n);
    sqlite3_bind_int64(st, 1, now);
    sqlite3_bind_text(st, 2, msg, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return fail(db, "insert event", err, n);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, "commit", err, n);
    *launches = count(db, "SELECT count(*) FROM launch");
    *profiled = count(db, "SELECT count(*) FROM launch WHERE profiled = 1");
    if (sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, "checkpoint", err, n);
    if (sqlite3_close(db) != SQLITE_OK)
        return fail(db, "close", err, n);
    return 0;
}
