/* SPDX-License-Identifier: MIT */
/* Unit tests of schema/store: create, open, refuse newer/older/non-reports. */
#include "schema/store.h"
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

static const struct check_test tests[] = {
    {"test_store_create_and_open", test_store_create_and_open},
    {"test_store_refuse_newer", test_store_refuse_newer},
    {"test_store_refuse_older", test_store_refuse_older},
    {"test_store_refuse_non_report", test_store_refuse_non_report},
    {"test_store_truncated", test_store_truncated},
    {"test_store_memory_copy", test_store_memory_copy},
};

int
main(int argc, char **argv)
{
    return check_run_in_tmpdir(dir, tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
