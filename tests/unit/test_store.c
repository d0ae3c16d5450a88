/* SPDX-License-Identifier: MIT */
/* Unit tests of schema/store: create, open, refuse newer/older/non-reports. */
#include "schema/store.h"
#include "schema/store_view.h"
#include "tests/check.h"

#include <stdio.h>
#include <unistd.h>

static char dir[] = "/tmp/gh_store_XXXXXX";

static void
path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

static void
test_store_create_and_open(void)
{
    char p[256];
    sqlite3 *db = NULL;
    path_in(p, sizeof(p), "a.db");
    CHECK(store_create(p, "test", &db) == 0);
    CHECK_EQ_INT(store_user_version(db), STORE_SCHEMA_VERSION);
    char *v = store_meta_get(db, "created_by");
    CHECK_STR(v, "test");
    free(v);
    sqlite3_close(db);
    CHECK(store_open(p, STORE_READ_ONLY, &db) == 0);
    /* read-only connections refuse writes */
    CHECK(store_exec(db, "INSERT INTO meta VALUES ('x','y')") == -1);
    sqlite3_close(db);
    CHECK(store_create(p, "test", &db) == -1); /* never overwrites */
}

static void
test_store_refuse_newer(void)
{
    char p[256];
    sqlite3 *db = NULL;
    path_in(p, sizeof(p), "newer.db");
    CHECK(store_create(p, "test", &db) == 0);
    CHECK(store_exec(db, "PRAGMA user_version = 99") == 0);
    sqlite3_close(db);
    CHECK(store_open(p, STORE_READ_ONLY, &db) == -1);
    CHECK(db == NULL);
    CHECK_EQ_INT(store_failure(), STORE_ERR_NEWER);
    CHECK(strstr(store_error(), "newer") != NULL);
}

static void
test_store_refuse_older(void)
{
    char p[256];
    sqlite3 *db = NULL;
    path_in(p, sizeof(p), "older.db");
    CHECK(store_create(p, "test", &db) == 0);
    CHECK(store_exec(db, "PRAGMA user_version = 0") == 0);
    sqlite3_close(db);
    CHECK(store_open(p, STORE_READ_ONLY, &db) == -1);
    CHECK_EQ_INT(store_failure(), STORE_ERR_OLDER);
}

static void
test_store_refuse_non_report(void)
{
    char p[256];
    sqlite3 *db = NULL;
    path_in(p, sizeof(p), "missing.db");
    CHECK(store_open(p, STORE_READ_ONLY, &db) == -1);
    CHECK_EQ_INT(store_failure(), STORE_ERR_MISSING);

    path_in(p, sizeof(p), "text.db");
    FILE *f = fopen(p, "w");
    fputs("this is not a database, just some text long enough to look like a header\n", f);
    fclose(f);
    CHECK(store_open(p, STORE_READ_ONLY, &db) == -1);
    CHECK_EQ_INT(store_failure(), STORE_ERR_NOT_REPORT);

    path_in(p, sizeof(p), "other.db");
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    CHECK(store_exec(db, "CREATE TABLE t(x)") == 0);
    sqlite3_close(db);
    CHECK(store_open(p, STORE_READ_ONLY, &db) == -1);
    CHECK_EQ_INT(store_failure(), STORE_ERR_NOT_REPORT);
}

static void
test_store_truncated(void)
{
    char p[256], cmd[600];
    sqlite3 *db = NULL;
    path_in(p, sizeof(p), "trunc.db");
    CHECK(store_create(p, "test", &db) == 0);
    CHECK(store_exec(db, "PRAGMA journal_mode=DELETE") == 0);
    for (int i = 0; i < 2000; i++) {
        char sql[128];
        snprintf(sql, sizeof(sql),
                 "INSERT INTO event(time_ns, level, code, message) VALUES (%d,'info','x','padding "
                 "padding padding')",
                 i);
        store_exec(db, sql);
    }
    sqlite3_close(db);
    snprintf(cmd, sizeof(cmd), "truncate -s 20000 %s", p);
    CHECK(system(cmd) == 0);
    CHECK(store_open(p, STORE_READ_ONLY, &db) == -1);
    CHECK(store_failure() == STORE_ERR_CORRUPT || store_failure() == STORE_ERR_NOT_REPORT);
}

static void
test_store_memory_copy(void)
{
    char p[256];
    sqlite3 *db = NULL, *mem = NULL;
    path_in(p, sizeof(p), "copy.db");
    CHECK(store_create(p, "test", &db) == 0);
    sqlite3_close(db);
    CHECK(store_open_memory_copy(p, &mem) == 0);
    CHECK(store_exec(mem, "INSERT INTO meta VALUES ('k','v')") == 0);
    sqlite3_close(mem);
    CHECK(store_open(p, STORE_READ_ONLY, &db) == 0);
    char *v = store_meta_get(db, "k");
    CHECK(v == NULL); /* the file was not modified */
    free(v);
    sqlite3_close(db);
}

static long long
one_int(sqlite3 *db, const char *sql)
{
    return store_query_int(db, sql, -1);
}

/*
 * store_profile_coverage: configurations with a profile and the share of
 * the traced GPU time they took (synthetic rows).
 */
static void
test_store_profile_coverage(void)
{
    char p[256];
    sqlite3 *db = NULL;
    path_in(p, sizeof(p), "coverage.db");
    CHECK(store_create(p, "test", &db) == 0);
    long long all = -1, prof = -1;
    double pct = -1;
    CHECK_EQ_INT(store_profile_coverage(db, &all, &prof, &pct), 0); /* an empty report */
    CHECK_EQ_INT(all, 0);
    CHECK_EQ_INT(prof, 0);
    CHECK(pct == 0);
    CHECK_EQ_INT(
        store_exec(db, "INSERT INTO kernel (id, mangled_name) VALUES (1, 'k');"
                       "INSERT INTO config (id, kernel_id, total_ns) VALUES"
                       " (1, 1, 750), (2, 1, 200), (3, 1, 50);"
                       "INSERT INTO launch (id, kernel_id, config_id) VALUES"
                       " (1, 1, 1), (2, 1, 1), (3, 1, 2), (4, 1, 3);"
                       "INSERT INTO profile (launch_id, passes) VALUES (1, 3), (2, 3), (4, 3);"),
        0);
    CHECK_EQ_INT(store_profile_coverage(db, &all, &prof, &pct), 0);
    CHECK_EQ_INT(all, 3);
    CHECK_EQ_INT(prof, 2);             /* configurations 1 and 3, once each */
    CHECK(pct > 79.99 && pct < 80.01); /* (750 + 50) of 1000 */
    sqlite3_close(db);
}

/* store_query_int: a value, or the fallback for no row, a NULL and bad SQL. */
static void
test_store_query_int(void)
{
    sqlite3 *db = NULL;
    CHECK_EQ_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
    CHECK_EQ_INT(store_query_int(db, "SELECT 42", -1), 42);
    CHECK_EQ_INT(store_query_int(db, "SELECT 9000000000", -1), 9000000000LL);
    CHECK_EQ_INT(store_query_int(db, "SELECT NULL", -7), -7);
    CHECK_EQ_INT(store_query_int(db, "SELECT 1 WHERE 0", -7), -7);
    CHECK_EQ_INT(store_query_int(db, "SELECT FROM nowhere", -7), -7);
    CHECK(strstr(store_error(), "nowhere") != NULL);
    sqlite3_close(db);
}

/*
 * A view's SELECT from this build's schema runs on a report that lacks
 * the view (recorded before it was added) and gives the rows the view
 * gives; a name that is the prefix of another view's (v_profile,
 * v_profiled) finds its own.
 */
static void
test_store_view_query(void)
{
    sqlite3 *db = NULL;
    CHECK(store_create(":memory:", "test", &db) == 0);
    CHECK(store_exec(db,
                     "INSERT INTO kernel (id, mangled_name) VALUES (1, 'k');"
                     "INSERT INTO config (id, kernel_id) VALUES (1, 1);"
                     "INSERT INTO launch (id, kernel_id, config_id, profiled) VALUES"
                     " (1, 1, 1, 1), (2, 1, 1, 1), (3, 1, 1, 1);"
                     "INSERT INTO profile (launch_id, metric_set) VALUES"
                     " (1, 'core'), (2, 'tie+atomic'), (3, 'core');"
                     "INSERT INTO metric_name (id, name) VALUES (1, 'smsp__inst_executed.sum');"
                     "INSERT INTO metric VALUES (1, 1, 1000), (2, 1, 1500), (3, 1, 1005);") == 0);
    char *sql = store_view_query("v_profile", "SELECT group_concat(launch_id) FROM ",
                                 " WHERE set_aside = 1");
    CHECK(sql != NULL);
    CHECK_EQ_INT(one_int(db, "SELECT group_concat(launch_id) FROM v_profile WHERE set_aside = 1"),
                 2);
    CHECK(store_exec(db, "DROP VIEW v_profile") == 0);
    CHECK_EQ_INT(sql ? one_int(db, sql) : -1, 2);
    free(sql);
    sql = store_view_query("v_profiled", "SELECT count(achieved_occupancy_pct) FROM ", "");
    CHECK_EQ_INT(sql ? one_int(db, sql) : -1, 0);
    free(sql);
    CHECK(store_view_query("v_nosuch", "", "") == NULL);
    CHECK(strstr(store_error(), "'v_nosuch'") != NULL);
    sqlite3_close(db);
}

static const struct check_test tests[] = {
    {"test_store_create_and_open", test_store_create_and_open},
    {"test_store_refuse_newer", test_store_refuse_newer},
    {"test_store_refuse_older", test_store_refuse_older},
    {"test_store_refuse_non_report", test_store_refuse_non_report},
    {"test_store_truncated", test_store_truncated},
    {"test_store_memory_copy", test_store_memory_copy},
    {"test_store_view_query", test_store_view_query},
    {"store_query_int", test_store_query_int},
    {"store_profile_coverage", test_store_profile_coverage},
};

int
main(int argc, char **argv)
{
    return check_run_in_tmpdir(dir, tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
