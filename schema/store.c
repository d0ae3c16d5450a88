/* SPDX-License-Identifier: MIT */
/*
 * store: open, create and version-check reports. The only file that reads
 * sqlite3_errmsg(): everything else gets -1 and a message from here.
 */
#include "schema/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

extern const char store_schema_text[]; /* generated from schema.sql */

static _Thread_local char last_error[1024];
static _Thread_local enum store_failure last_failure;
static _Thread_local char last_note[1024];

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

const char *
store_note(void)
{
    return last_note;
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
                      " JOIN launch l ON l.id = f.launch_id),"
                      " w (id) AS (" STORE_WAITING_CONFIGS "),"
                      " cn AS (" STORE_CONFIG_NS ")"
                      " SELECT (SELECT count(*) FROM config), (SELECT count(*) FROM p),"
                      " (SELECT total(ns) FROM cn WHERE id NOT IN (SELECT id FROM w)),"
                      " (SELECT total(ns) FROM cn WHERE id IN (SELECT id FROM p)"
                      "  AND id NOT IN (SELECT id FROM w))",
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

int
store_has_waiting(sqlite3 *db)
{
    return store_query_int(
               db, "SELECT EXISTS (SELECT 1 FROM kernel_summary WHERE bound_tier = 'waiting')",
               0) == 1;
}

int
store_has_column(sqlite3 *db, const char *table, const char *col)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db, "SELECT 1 FROM pragma_table_info(?1, 'main') WHERE name = ?2", &st))
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
    int has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return has;
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

/*
 * What an SQLite result code says about the file, for the message and
 * the exit code: damaged, not a database, unreadable where it is, or
 * still being written.
 */
static enum store_failure
failure_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_NOTADB:
        return STORE_ERR_NOT_REPORT;
    case SQLITE_CORRUPT:
    case SQLITE_FORMAT:
    case SQLITE_ERROR:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
    case SQLITE_SCHEMA:
        return STORE_ERR_CORRUPT;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return STORE_ERR_INCOMPLETE;
    default:
        return STORE_ERR_IO;
    }
}

/* Set the failure and a message naming the file and the kind of problem. */
static int fail_file(const char *path, enum store_failure why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail_file(const char *path, enum store_failure why, const char *fmt, ...)
{
    static const char *const what[] = {
        [STORE_ERR_MISSING] = "",
        [STORE_ERR_NOT_REPORT] = "not a gpuhier report ",
        [STORE_ERR_NOT_FILE] = "",
        [STORE_ERR_CORRUPT] = "file is damaged ",
        [STORE_ERR_INCOMPLETE] = "incomplete ",
        [STORE_ERR_NEWER] = "",
        [STORE_ERR_OLDER] = "",
        [STORE_ERR_IO] = "unreadable where it is ",
    };
    char reason[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    last_failure = why;
    if (why == STORE_ERR_CORRUPT || why == STORE_ERR_NOT_REPORT || why == STORE_ERR_IO ||
        why == STORE_ERR_INCOMPLETE)
        return store_set_error("cannot open report '%s': %s(%s)", path, what[why], reason);
    return store_set_error("cannot open report '%s': %s", path, reason);
}

/* Fail with what SQLite said about `db` (its message holds more than the code's). */
static int
fail_sqlite(sqlite3 *db, const char *path, int rc)
{
    const char *msg = db ? sqlite3_errmsg(db) : NULL;
    if (!msg || !*msg || !strcmp(msg, "not an error"))
        msg = sqlite3_errstr(rc);
    if ((rc & 0xff) == SQLITE_NOTADB)
        return fail_file(path, STORE_ERR_NOT_REPORT, "not an SQLite database");
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        return fail_file(path, STORE_ERR_INCOMPLETE,
                         "a writer holds it: the collector is still running (%s)", msg);
    if ((rc & 0xff) == SQLITE_FULL)
        return fail_file(path, STORE_ERR_IO, "the disk is full: %s", msg);
    return fail_file(path, failure_of(rc), "%s", msg);
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

/*
 * Is the statement starting at `create` (in the compiled schema) marked
 * "(added: ...)", that is absent from reports recorded before it
 * (schema.sql "Compatibility")? The mark is in the block of comment lines
 * right above it.
 */
static int
is_marked(const char *create, const char *what)
{
    const char *s = store_schema_text, *line = create;
    while (line > s) {
        const char *prev = line - 1;
        while (prev > s && prev[-1] != '\n')
            prev--;
        if (strncmp(prev, "--", 2))
            break;
        line = prev;
    }
    const char *mark = strstr(line, what);
    return mark && mark < create;
}

static int
is_added_later(const char *create)
{
    return is_marked(create, "(added:");
}

/*
 * The schema version that brought the statement starting at `create`: N
 * when it is marked "(version N)" (absent from older reports, which get
 * it as an empty TEMP object: add_later_versions()), else 1.
 */
static int
version_of(const char *create)
{
    char mark[16];
    for (int v = STORE_SCHEMA_VERSION; v >= 2; v--) {
        snprintf(mark, sizeof(mark), "(version %d)", v);
        if (is_marked(create, mark))
            return v;
    }
    return 1;
}

/*
 * A report of version `version` lacks the tables and views schema.sql
 * marks with a later version (schema.sql "Version 2", "Version 3"):
 * create them, empty, in the connection's TEMP schema, where unqualified
 * names find them. The file is never written, and they vanish with the
 * connection. Statements are cut from the compiled schema as store_view.c
 * does (up to the first semicolon sqlite3_complete() accepts). Tables
 * come first, so that a view finds them. 0 or -1 with the message.
 */
static int
add_later_versions(sqlite3 *db, int version)
{
    static const char *const kinds[] = {"CREATE TABLE ", "CREATE VIEW "};
    const char *s = store_schema_text;
    char *sql = NULL;
    int ret = 0;
    for (size_t k = 0; k < 2 && !ret; k++) {
        for (const char *p = strstr(s, kinds[k]); p && !ret; p = strstr(p + 1, kinds[k])) {
            if ((p > s && p[-1] != '\n') || version_of(p) <= version)
                continue;
            const char *end = NULL;
            for (const char *semi = strchr(p, ';'); semi && !end; semi = strchr(semi + 1, ';')) {
                size_t n = (size_t)(semi + 1 - p);
                char *t = realloc(sql, n + 8);
                if (!t)
                    break;
                sql = t;
                /* "CREATE " + "TEMP " + the rest */
                memcpy(sql, "CREATE TEMP ", 12);
                memcpy(sql + 12, p + 7, n - 7);
                sql[n + 5] = '\0';
                if (sqlite3_complete(sql))
                    end = semi;
            }
            if (!end)
                ret = store_set_error("later-version statement without an end in the schema");
            else if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
                ret = store_fail(db, SQLITE_ERROR,
                                 "creating the later versions' objects of an older report");
        }
    }
    free(sql);
    return ret;
}

/*
 * The first table of the compiled schema, not marked as added later,
 * that `db` lacks: every report of this schema version holds it, and a
 * reader may query it without looking. NULL when none is missing; on
 * an SQLite error *err is set.
 */
static const char *
missing_table(sqlite3 *db, int version, int *err)
{
    static _Thread_local char name[64];
    const char *s = store_schema_text;
    *err = 0;
    for (const char *p = strstr(s, "CREATE TABLE "); p; p = strstr(p + 1, "CREATE TABLE ")) {
        if (p > s && p[-1] != '\n')
            continue;
        const char *n = p + strlen("CREATE TABLE ");
        size_t len = strspn(n, "abcdefghijklmnopqrstuvwxyz_0123456789");
        if (len == 0 || len >= sizeof(name) || is_added_later(p) || version_of(p) > version)
            continue;
        memcpy(name, n, len);
        name[len] = '\0';
        if (!has_table(db, name, err) || *err)
            return *err ? NULL : name;
    }
    return NULL;
}

static int
check_report(sqlite3 *db, const char *path, const char *real)
{
    int err = 0;
    int is_report = has_table(db, "meta", &err) && has_table(db, "run", &err);
    if (err)
        return fail_sqlite(db, path, err);
    if (!is_report)
        return fail_file(path, STORE_ERR_NOT_REPORT, "no 'run' and 'meta' tables");
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return fail_sqlite(db, path, rc);
    if (v > STORE_SCHEMA_VERSION) {
        last_failure = STORE_ERR_NEWER;
        return store_set_error(
            "cannot open report '%s': schema version %d is newer than this gpuhier "
            "understands (%d); upgrade gpuhier",
            path, v, STORE_SCHEMA_VERSION);
    }
    if (v < 0)
        return fail_file(path, STORE_ERR_CORRUPT, "schema version %d is not a version", v);
    /* Versions 1 and 2 are read as they are (schema.sql "Version 2", "Version 3"). */
    if (v < 1) {
        last_failure = STORE_ERR_OLDER;
        return store_set_error("cannot open report '%s': schema version %d is older than %d; "
                               "no migration exists for it yet",
                               path, v, STORE_SCHEMA_VERSION);
    }
    const char *missing = missing_table(db, v, &err);
    if (err)
        return fail_sqlite(db, path, err);
    if (missing)
        return fail_file(path, STORE_ERR_CORRUPT, "table '%s' is missing", missing);
    /*
     * Catch truncated files early with a clear message, cheaply: the
     * header's page count must fit in the file. PRAGMA quick_check would
     * read every page (0.3 s on a 90 MB report, the TUI's whole first-paint
     * budget); damage inside pages still surfaces as SQLITE_CORRUPT on the
     * first read that meets it, and store_diagnose() then names it. A
     * report still in WAL mode (a crashed collector) may keep pages in its
     * -wal file, so the check is skipped when one exists. `real` is the
     * path with symbolic links resolved: SQLite opens the -wal beside the
     * link's target, not beside the link.
     */
    long long pages = 0, page_size = 0;
    rc = sqlite3_prepare_v2(db, "SELECT * FROM pragma_page_count(), pragma_page_size()", -1, &st,
                            NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        pages = sqlite3_column_int64(st, 0);
        page_size = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return fail_sqlite(db, path, rc);
    if (pages <= 0 || page_size <= 0)
        return fail_file(path, STORE_ERR_CORRUPT, "no page count");
    if (!real)
        return 0;
    struct stat sb;
    char wal[PATH_MAX + 8];
    snprintf(wal, sizeof(wal), "%s-wal", real);
    if (stat(wal, &sb) != 0 && stat(real, &sb) == 0 && (long long)sb.st_size < pages * page_size)
        return fail_file(path, STORE_ERR_CORRUPT, "file is truncated: %lld of %lld bytes",
                         (long long)sb.st_size, pages * page_size);
    return 0;
}

/* The size of `path` + `suffix`, or -1 when it does not exist. */
static long long
sibling_size(const char *path, const char *suffix)
{
    char p[PATH_MAX + 16];
    struct stat sb;
    snprintf(p, sizeof(p), "%s%s", path, suffix);
    return stat(p, &sb) == 0 ? (long long)sb.st_size : -1;
}

static int
copy_file(const char *from, const char *to)
{
    int ret = -1;
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t n;
    if (!out)
        goto out;
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            goto out;
    ret = ferror(in) ? -1 : 0;
out:
    if (out && fclose(out) != 0)
        ret = -1;
    if (in)
        fclose(in);
    return ret;
}

/* Copy `db` into a new in-memory connection. */
static int
memory_copy(sqlite3 *db, sqlite3 **out)
{
    sqlite3 *dst = NULL;
    *out = NULL;
    int rc = sqlite3_open_v2(":memory:", &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    sqlite3_backup *b = rc == SQLITE_OK ? sqlite3_backup_init(dst, "main", db, "main") : NULL;
    if (!b) {
        sqlite3_close(dst);
        return rc == SQLITE_OK ? sqlite3_errcode(dst) : rc;
    }
    rc = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        sqlite3_close(dst);
        return rc;
    }
    *out = dst;
    return SQLITE_OK;
}

/*
 * Read a report that cannot be read in place read-only: a hot journal
 * needs a write to roll back; a WAL report on a read-only mount or a
 * full disk cannot get its -shm. Copy the file and its journal or WAL
 * (`suffix`; NULL for none) into a private directory, let SQLite roll
 * back or recover the copy, and keep an in-memory copy of the result.
 * The report itself is never written. On failure the message says what
 * the copy met.
 */
static int
open_private_copy(const char *path, const char *real, const char *suffix, sqlite3 **out)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX], db_path[PATH_MAX + 16], side[PATH_MAX + 32], from[PATH_MAX + 16];
    sqlite3 *db = NULL;
    int ret = -1;
    *out = NULL;
    snprintf(dir, sizeof(dir), "%s/gpuhier-recover-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return fail_file(path, STORE_ERR_IO,
                         "it cannot be read in place and no private copy can be made: %s",
                         strerror(errno));
    snprintf(db_path, sizeof(db_path), "%s/report.db", dir);
    snprintf(side, sizeof(side), "%s%s", db_path, suffix ? suffix : "");
    snprintf(from, sizeof(from), "%s%s", real, suffix ? suffix : "");
    if (copy_file(real, db_path) || (suffix && copy_file(from, side))) {
        fail_file(path, STORE_ERR_IO, "it cannot be read in place nor copied into '%s': %s", dir,
                  strerror(errno));
        goto out;
    }
    int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        fail_sqlite(db, path, rc);
        goto out;
    }
    sqlite3_extended_result_codes(db, 1);
    if (check_report(db, path, NULL))
        goto out;
    rc = memory_copy(db, out);
    if (rc != SQLITE_OK) {
        fail_sqlite(db, path, rc);
        goto out;
    }
    if (!suffix)
        snprintf(last_note, sizeof(last_note),
                 "report '%s' cannot be read in place (a WAL-mode report on a read-only mount or "
                 "a full disk): read through a private copy; the file is unchanged",
                 path);
    else
        snprintf(last_note, sizeof(last_note),
                 "report '%s' has a %s left by a writer that did not finish (killed, or still "
                 "running): read through a private copy where SQLite %s it; the file is unchanged",
                 path, !strcmp(suffix, "-wal") ? "write-ahead log" : "hot journal",
                 !strcmp(suffix, "-wal") ? "recovered" : "rolled back");
    ret = 0;
out:
    sqlite3_close(db);
    static const char *const parts[] = {"", "-journal", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        snprintf(side, sizeof(side), "%s%s", db_path, parts[i]);
        unlink(side);
    }
    rmdir(dir);
    return ret;
}

/* Is the file in WAL mode (header bytes 18 and 19, the read and write versions, are 2)? */
static int
is_wal_file(const char *real)
{
    unsigned char h[20];
    FILE *f = fopen(real, "rb");
    size_t n = f ? fread(h, 1, sizeof(h), f) : 0;
    if (f)
        fclose(f);
    return n == sizeof(h) && h[18] == 2 && h[19] == 2;
}

/* Refuse what is not a regular, readable file before SQLite opens it (a FIFO would block). */
static int
check_file(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        int e = errno;
        return fail_file(path, e == ENOENT ? STORE_ERR_MISSING : STORE_ERR_IO, "%s", strerror(e));
    }
    if (S_ISDIR(sb.st_mode))
        return fail_file(path, STORE_ERR_NOT_FILE, "is a directory");
    if (!S_ISREG(sb.st_mode))
        return fail_file(path, STORE_ERR_NOT_FILE, "not a regular file (%s)",
                         S_ISFIFO(sb.st_mode)   ? "a FIFO"
                         : S_ISCHR(sb.st_mode)  ? "a character device"
                         : S_ISBLK(sb.st_mode)  ? "a block device"
                         : S_ISSOCK(sb.st_mode) ? "a socket"
                                                : "a special file");
    if (access(path, R_OK) != 0)
        return fail_file(path, STORE_ERR_IO, "%s", strerror(errno));
    return 0;
}

int
store_open(const char *path, enum store_mode mode, sqlite3 **out)
{
    sqlite3 *db = NULL;
    char real[PATH_MAX];
    *out = NULL;
    last_failure = STORE_ERR_IO;
    last_note[0] = '\0';
    if (check_file(path))
        return -1;
    if (!realpath(path, real))
        return fail_file(path, STORE_ERR_IO, "%s", strerror(errno));
    long long journal = sibling_size(real, "-journal"), wal = sibling_size(real, "-wal");
    int flags = (mode == STORE_READ_ONLY ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) |
                SQLITE_OPEN_NOMUTEX;
    int rc = sqlite3_open_v2(path, &db, flags, NULL);
    if (rc != SQLITE_OK) {
        fail_sqlite(db, path, rc);
        sqlite3_close(db);
        db = NULL;
    } else {
        sqlite3_extended_result_codes(db, 1);
        sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
        if (check_report(db, path, real)) {
            sqlite3_close(db);
            db = NULL;
        }
    }
    if (!db) {
        enum store_failure why = last_failure;
        const char *suffix = wal > 0 ? "-wal" : journal > 0 ? "-journal" : NULL;
        int recoverable = suffix ? why == STORE_ERR_IO || why == STORE_ERR_CORRUPT ||
                                       why == STORE_ERR_INCOMPLETE || why == STORE_ERR_NOT_REPORT
                                 : why == STORE_ERR_IO && is_wal_file(real);
        if (mode != STORE_READ_ONLY || !recoverable)
            return -1;
        if (open_private_copy(path, real, suffix, &db))
            return -1;
    } else if (mode == STORE_READ_WRITE && journal > 0 && sibling_size(real, "-journal") <= 0) {
        snprintf(last_note, sizeof(last_note),
                 "report '%s' had a hot journal left by a writer that did not finish: SQLite "
                 "rolled the file back to its last complete transaction",
                 path);
    }
    int v = store_user_version(db);
    if (v < STORE_SCHEMA_VERSION && add_later_versions(db, v)) {
        char msg[1024];
        snprintf(msg, sizeof(msg), "%s", store_error());
        sqlite3_close(db);
        return fail_file(path, STORE_ERR_CORRUPT, "%s", msg);
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
    sqlite3 *src = NULL;
    *out = NULL;
    if (store_open(path, STORE_READ_ONLY, &src))
        return -1;
    int rc = memory_copy(src, out);
    if (rc != SQLITE_OK) {
        fail_sqlite(src, path, rc);
        sqlite3_close(src);
        return -1;
    }
    /* The backup copies the main schema only: an older copy needs its TEMP objects again. */
    int v = store_user_version(*out);
    if (v < STORE_SCHEMA_VERSION && add_later_versions(*out, v)) {
        sqlite3_close(*out);
        *out = NULL;
        sqlite3_close(src);
        return -1;
    }
    sqlite3_close(src);
    return 0;
}

/* Is the column defined on this line of a CREATE TABLE marked "(added: ...)"? */
static int
column_added_later(const char *table_sql, const char *column)
{
    size_t n = strlen(column);
    for (const char *line = table_sql; line; line = strchr(line, '\n')) {
        line += *line == '\n';
        const char *w = line + strspn(line, " \t");
        if (!strncmp(w, column, n) && (w[n] == ' ' || w[n] == '\t')) {
            const char *end = strchr(w, '\n');
            const char *mark = strstr(w, "(added:");
            return mark && (!end || mark < end);
        }
    }
    return 0;
}

/* Does this CREATE TABLE of the compiled schema carry the "(added: ...)" mark? */
static int
table_added_later(const char *name)
{
    char create[96];
    snprintf(create, sizeof(create), "\nCREATE TABLE %s ", name);
    const char *p = strstr(store_schema_text, create);
    return p && is_added_later(p + 1);
}

/*
 * The first column of the compiled schema's tables that `db` lacks, or
 * the first of its views that does not compile there; names it in the
 * message. 0 when the report has them all.
 */
static int
check_columns_and_views(sqlite3 *db, sqlite3 *ref, const char *path)
{
    sqlite3_stmt *cols = NULL, *have = NULL, *views = NULL;
    int ret = -1, rc;
    if (sqlite3_prepare_v2(ref,
                           "SELECT m.name, m.sql, p.name FROM sqlite_master m,"
                           " pragma_table_info(m.name) p WHERE m.type = 'table' ORDER BY m.rowid",
                           -1, &cols, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(ref, "SELECT name FROM sqlite_master WHERE type = 'view'", -1, &views,
                           NULL) != SQLITE_OK) {
        store_fail(ref, SQLITE_ERROR, "cannot read the compiled schema");
        goto out;
    }
    rc = sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &have,
                            NULL);
    if (rc != SQLITE_OK) {
        fail_sqlite(db, path, rc);
        goto out;
    }
    while (sqlite3_step(cols) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(cols, 0);
        const char *sql = (const char *)sqlite3_column_text(cols, 1);
        const char *col = (const char *)sqlite3_column_text(cols, 2);
        if (!table || !sql || !col || table_added_later(table) || column_added_later(sql, col))
            continue;
        sqlite3_reset(have);
        sqlite3_bind_text(have, 1, table, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(have, 2, col, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(have);
        if (rc == SQLITE_DONE) {
            fail_file(path, STORE_ERR_CORRUPT, "table '%s' has no column '%s'", table, col);
            goto out;
        }
        if (rc != SQLITE_ROW) {
            fail_sqlite(db, path, rc);
            goto out;
        }
    }
    while (sqlite3_step(views) == SQLITE_ROW) {
        const char *view = (const char *)sqlite3_column_text(views, 0);
        char sql[128];
        int err = 0;
        sqlite3_stmt *st = NULL;
        if (!view || strspn(view, "abcdefghijklmnopqrstuvwxyz_0123456789") != strlen(view))
            continue;
        /* The name is the compiled schema's own identifier, checked above. */
        snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\" LIMIT 0", view);
        int exists = sqlite3_prepare_v2(db,
                                        "SELECT 1 FROM sqlite_master WHERE type = 'view' AND "
                                        "name = ?1",
                                        -1, &st, NULL) == SQLITE_OK;
        if (exists) {
            sqlite3_bind_text(st, 1, view, -1, SQLITE_TRANSIENT);
            exists = sqlite3_step(st) == SQLITE_ROW;
        }
        sqlite3_finalize(st);
        st = NULL;
        if (exists && (err = sqlite3_prepare_v2(db, sql, -1, &st, NULL)) != SQLITE_OK) {
            fail_file(path, STORE_ERR_CORRUPT, "view '%s' is broken: %s", view, sqlite3_errmsg(db));
            sqlite3_finalize(st);
            goto out;
        }
        sqlite3_finalize(st);
    }
    ret = 0;
out:
    sqlite3_finalize(cols);
    sqlite3_finalize(have);
    sqlite3_finalize(views);
    return ret;
}

int
store_diagnose(const char *path)
{
    sqlite3 *db = NULL, *ref = NULL;
    sqlite3_stmt *st = NULL;
    int ret = -1;
    if (store_open(path, STORE_READ_ONLY, &db))
        return -1;
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(st, 0);
        if (r && strcmp(r, "ok")) {
            const char *head = "*** in database main ***\n";
            if (!strncmp(r, head, strlen(head)))
                r += strlen(head);
            fail_file(path, STORE_ERR_CORRUPT, "%s", r);
            goto out;
        }
    }
    if (rc != SQLITE_ROW) {
        fail_sqlite(db, path, rc);
        goto out;
    }
    if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
            SQLITE_OK ||
        store_apply_schema(ref))
        goto out;
    if (check_columns_and_views(db, ref, path))
        goto out;
    last_failure = STORE_OK;
    ret = 0;
out:
    sqlite3_finalize(st);
    sqlite3_close(ref);
    sqlite3_close(db);
    return ret;
}

long
store_live_pid(const char *path)
{
    char real[PATH_MAX], shm[PATH_MAX + 8];
    if (!realpath(path, real))
        return 0;
    snprintf(shm, sizeof(shm), "%s-shm", real);
    int fd = open(shm, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    /*
     * Every connection to a WAL database holds a shared lock on the
     * "dead-man switch", byte 128 of the -shm file, for as long as it is
     * open (sqlite.org/walformat.html, "the DMS"). Asking whether an
     * exclusive lock there would conflict finds one without taking any
     * lock, so the writer is never delayed. Locks of this process do not
     * conflict with it, so our own connections are not counted.
     */
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 128, .l_len = 1};
    long pid = 0;
    if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
        pid = fl.l_pid > 0 ? (long)fl.l_pid : -1;
    close(fd);
    return pid;
}
