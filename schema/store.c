/* SPDX-License-Identifier: MIT */
/*
 * store: open, create and version-check reports. The only file that reads
 * sqlite3_errmsg(): everything else gets -1 and a message from here.
 */
#include "schema/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern const char store_schema_text[]; /* generated from schema.sql */

static _Thread_local char last_error[1024];
static _Thread_local enum store_failure last_failure;

const char *
store_schema_sql(void)
{
    return store_schema_text;
}

int
store_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    return -1;
}

const char *
store_error(void)
{
    return last_error;
}

enum store_failure
store_failure(void)
{
    return last_failure;
}

int
store_fail(sqlite3 *db, int rc, const char *context)
{
    const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    return store_set_error("%s: %s", context, msg ? msg : sqlite3_errstr(rc));
}

int
store_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        store_set_error("sql failed: %s", msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

int
store_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **stmt)
{
    int rc = sqlite3_prepare_v2(db, sql, -1, stmt, NULL);
    if (rc != SQLITE_OK) {
        *stmt = NULL;
        return store_set_error("cannot prepare '%.80s': %s", sql, sqlite3_errmsg(db));
    }
    return 0;
}

int
store_user_version(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) {
        store_fail(db, SQLITE_ERROR, "cannot read schema version");
        return -1;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    else
        store_fail(db, rc, "cannot read schema version");
    sqlite3_finalize(st);
    return v;
}

int
store_meta_set(sqlite3 *db, const char *key, const char *value)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db, "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)", &st))
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_fail(db, rc, "cannot write meta");
    return 0;
}

long long
store_query_int(sqlite3 *db, const char *sql, long long fallback)
{
    sqlite3_stmt *st = NULL;
    long long v = fallback;
    if (store_prepare(db, sql, &st))
        return fallback;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int
store_profile_coverage(sqlite3 *db, long long *configs, long long *profiled, double *gpu_pct)
{
    sqlite3_stmt *st = NULL;
    *configs = *profiled = 0;
    *gpu_pct = 0;
    if (store_prepare(db,
                      "WITH p AS (SELECT DISTINCT l.config_id AS id FROM profile f"
                      " JOIN launch l ON l.id = f.launch_id)"
                      " SELECT (SELECT count(*) FROM config), (SELECT count(*) FROM p),"
                      " (SELECT total(total_ns) FROM config),"
                      " (SELECT total(total_ns) FROM config WHERE id IN (SELECT id FROM p))",
                      &st))
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *configs = sqlite3_column_int64(st, 0);
        *profiled = sqlite3_column_int64(st, 1);
        double all = sqlite3_column_double(st, 2), cov = sqlite3_column_double(st, 3);
        *gpu_pct = all > 0 ? 100.0 * cov / all : 0;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : store_fail(db, rc, "reading the profiles' coverage");
}

char *
store_meta_get(sqlite3 *db, const char *key)
{
    sqlite3_stmt *st = NULL;
    char *out = NULL;
    if (store_prepare(db, "SELECT value FROM meta WHERE key = ?1", &st))
        return NULL;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return out;
}

int
store_apply_schema(sqlite3 *db)
{
    if (store_exec(db, "BEGIN") || store_exec(db, store_schema_text)) {
        char msg[1024];
        snprintf(msg, sizeof(msg), "%s", store_error());
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return store_set_error("cannot create schema: %s", msg);
    }
    return store_exec(db, "COMMIT");
}

int
store_create(const char *path, const char *created_by, sqlite3 **out)
{
    sqlite3 *db = NULL;
    int ret = -1;
    *out = NULL;
    last_failure = STORE_ERR_IO;
    int rc = sqlite3_open_v2(
        path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        store_set_error("cannot create report '%s': %s", path,
                        db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        goto out;
    }
    if (store_user_version(db) != 0) {
        store_set_error("cannot create report '%s': file already holds a database", path);
        goto out;
    }
    if (strcmp(path, ":memory:") != 0 && store_exec(db, "PRAGMA journal_mode=WAL"))
        goto out;
    if (store_apply_schema(db))
        goto out;
    char v[16];
    snprintf(v, sizeof(v), "%d", STORE_SCHEMA_VERSION);
    if (store_meta_set(db, "schema_version", v) ||
        store_meta_set(db, "tool_version", GPUHIER_VERSION) ||
        store_meta_set(db, "created_by", created_by ? created_by : "unknown"))
        goto out;
    last_failure = STORE_OK;
    ret = 0;
out:
    if (ret) {
        sqlite3_close(db);
        return -1;
    }
    *out = db;
    return 0;
}

static int
has_table(sqlite3 *db, const char *name, int *err)
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    *err = 0;
    int rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) {
        *err = rc;
        return 0;
    }
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        found = 1;
    else if (rc != SQLITE_DONE)
        *err = rc;
    sqlite3_finalize(st);
    return found;
}

static int
check_report(sqlite3 *db, const char *path)
{
    int err = 0;
    int is_report = has_table(db, "meta", &err) && has_table(db, "run", &err);
    if (err) {
        last_failure = (err == SQLITE_NOTADB) ? STORE_ERR_NOT_REPORT : STORE_ERR_CORRUPT;
        if (err == SQLITE_NOTADB)
            return store_set_error(
                "cannot open report '%s': not a gpuhier report (not an SQLite database)", path);
        return store_set_error("cannot open report '%s': file is damaged (%s)", path,
                               sqlite3_errstr(err));
    }
    if (!is_report) {
        last_failure = STORE_ERR_NOT_REPORT;
        return store_set_error(
            "cannot open report '%s': not a gpuhier report (no 'run' and 'meta' tables)", path);
    }
    int v = store_user_version(db);
    if (v < 0) {
        last_failure = STORE_ERR_CORRUPT;
        return -1;
    }
    if (v > STORE_SCHEMA_VERSION) {
        last_failure = STORE_ERR_NEWER;
        return store_set_error(
            "cannot open report '%s': schema version %d is newer than this gpuhier "
            "understands (%d); upgrade gpuhier",
            path, v, STORE_SCHEMA_VERSION);
    }
    if (v < STORE_SCHEMA_VERSION) {
        last_failure = STORE_ERR_OLDER;
        return store_set_error("cannot open report '%s': schema version %d is older than %d; "
                               "no migration exists for it yet",
                               path, v, STORE_SCHEMA_VERSION);
    }
    /*
     * Catch truncated files early with a clear message, cheaply: the
     * header's page count must fit in the file. PRAGMA quick_check would
     * read every page (0.3 s on a 90 MB report, the TUI's whole first-paint
     * budget); damage inside pages still surfaces as SQLITE_CORRUPT on the
     * first read that meets it. A report still in WAL mode (a crashed
     * collector) may keep pages in its -wal file, so the check is skipped
     * when one exists.
     */
    long long pages = 0, page_size = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT * FROM pragma_page_count(), pragma_page_size()", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        pages = sqlite3_column_int64(st, 0);
        page_size = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    struct stat sb;
    char wal[4096];
    snprintf(wal, sizeof(wal), "%s-wal", path);
    if (pages <= 0 || page_size <= 0) {
        last_failure = STORE_ERR_CORRUPT;
        return store_set_error("cannot open report '%s': file is damaged (no page count)", path);
    }
    if (stat(wal, &sb) != 0 && stat(path, &sb) == 0 && (long long)sb.st_size < pages * page_size) {
        last_failure = STORE_ERR_CORRUPT;
        return store_set_error("cannot open report '%s': file is truncated (%lld of %lld bytes)",
                               path, (long long)sb.st_size, pages * page_size);
    }
    return 0;
}

int
store_open(const char *path, enum store_mode mode, sqlite3 **out)
{
    sqlite3 *db = NULL;
    struct stat sb;
    *out = NULL;
    last_failure = STORE_ERR_IO;
    if (stat(path, &sb) != 0) {
        last_failure = errno == ENOENT ? STORE_ERR_MISSING : STORE_ERR_IO;
        return store_set_error("cannot open report '%s': %s", path, strerror(errno));
    }
    if (S_ISDIR(sb.st_mode)) {
        last_failure = STORE_ERR_NOT_REPORT;
        return store_set_error("cannot open report '%s': is a directory", path);
    }
    int flags = (mode == STORE_READ_ONLY ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) |
                SQLITE_OPEN_NOMUTEX;
    int rc = sqlite3_open_v2(path, &db, flags, NULL);
    if (rc != SQLITE_OK) {
        store_set_error("cannot open report '%s': %s", path,
                        db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, 2000);
    if (check_report(db, path)) {
        sqlite3_close(db);
        return -1;
    }
    if (mode == STORE_READ_ONLY)
        sqlite3_exec(db, "PRAGMA query_only=1", NULL, NULL, NULL);
    last_failure = STORE_OK;
    *out = db;
    return 0;
}

int
store_open_memory_copy(const char *path, sqlite3 **out)
{
    sqlite3 *src = NULL, *dst = NULL;
    *out = NULL;
    if (store_open(path, STORE_READ_ONLY, &src))
        return -1;
    int rc = sqlite3_open_v2(":memory:", &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_close(src);
        sqlite3_close(dst);
        return store_set_error("cannot open in-memory copy of '%s': %s", path, sqlite3_errstr(rc));
    }
    sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
    if (!b) {
        store_fail(dst, SQLITE_ERROR, "cannot copy report into memory");
        sqlite3_close(src);
        sqlite3_close(dst);
        return -1;
    }
    rc = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    sqlite3_close(src);
    if (rc != SQLITE_DONE) {
        sqlite3_close(dst);
        return store_set_error("cannot copy report '%s' into memory: %s", path, sqlite3_errstr(rc));
    }
    *out = dst;
    return 0;
}
