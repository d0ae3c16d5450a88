/* SPDX-License-Identifier: MIT */
/*
 * analyzer: error state, allocation helpers, where the rules live, and
 * the reader's entry point analyzer_open_report().
 */
#include "analyzer/analyzer_int.h"
#include "schema/store.h"

#include <limits.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Thread_local char last_error[2048];
static _Thread_local enum analyzer_failure last_failure;

const char *
analyzer_error(void)
{
    return last_error;
}

enum analyzer_failure
analyzer_failure(void)
{
    return last_failure;
}

int
an_fail(enum analyzer_failure f, const char *fmt, ...)
{
    va_list ap;
    char tmp[sizeof(last_error)];
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    memcpy(last_error, tmp, sizeof(tmp));
    last_failure = f;
    return -1;
}

static void *
oom(void *p)
{
    if (!p) {
        fputs("gpuhier: fatal: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *
an_xmalloc(size_t n)
{
    return oom(malloc(n ? n : 1));
}

void *
an_xcalloc(size_t n, size_t size)
{
    return oom(calloc(n ? n : 1, size ? size : 1));
}

void *
an_xrealloc(void *p, size_t n)
{
    return oom(realloc(p, n ? n : 1));
}

char *
an_xstrdup(const char *s)
{
    return oom(strdup(s));
}

/* GPUHIER_ANALYZE_TIMING=1: print each step's wall time to stderr (bench/analyze_speed.sh). */
void
an_lap(const char *what)
{
    static struct timespec last;
    static int on = -1;
    if (on < 0)
        on = getenv("GPUHIER_ANALYZE_TIMING") != NULL;
    struct timespec now;
    clock_gettime(getenv("GPUHIER_ANALYZE_TIMING_CPU") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC,
                  &now);
    if (on && what)
        fprintf(stderr, "analyze: %-28s %8.1f ms\n", what,
                (double)(now.tv_sec - last.tv_sec) * 1e3 +
                    (double)(now.tv_nsec - last.tv_nsec) / 1e6);
    last = now;
}

static int
is_dir(const char *p)
{
    return access(p, R_OK | X_OK) == 0;
}

char *
analyzer_default_rules_dir(void)
{
    char buf[PATH_MAX], self[PATH_MAX];
    const char *env = getenv("GPUHIER_RULES_DIR");
    if (env && *env)
        return an_xstrdup(env);
    env = getenv("GPUHIER_DATA_DIR");
    if (env && *env) {
        snprintf(buf, sizeof(buf), "%s/rules", env);
        return an_xstrdup(buf);
    }
    /* Beside or above the executable: build tree, then <prefix>/share/gpuhier. */
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        const char *rel[] = {"/rules", "/../rules", "/../share/gpuhier/rules", "/../../rules"};
        for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
            snprintf(buf, sizeof(buf), "%s%s", self, rel[i]);
            if (is_dir(buf))
                return an_xstrdup(buf);
        }
    }
#ifdef GPUHIER_SOURCE_DIR
    snprintf(buf, sizeof(buf), "%s/rules", GPUHIER_SOURCE_DIR);
    if (is_dir(buf))
        return an_xstrdup(buf);
#endif
    return NULL;
}

char *
analyzer_ruleset_version(const struct analyzer_opts *o)
{
    struct ruleset *rs = ruleset_load(o ? o->rules_dir : NULL);
    if (!rs)
        return NULL;
    char *v = an_xstrdup(rs->version);
    ruleset_free(rs);
    return v;
}

/* The ruleset_version stored in the report, or NULL when never analyzed. */
static char *
stored_version(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    char *v = NULL;
    if (sqlite3_prepare_v2(db, "SELECT ruleset_version FROM analysis ORDER BY id DESC LIMIT 1", -1,
                           &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = an_xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

int
analyzer_open_report(const char *path, const struct analyzer_opts *o, sqlite3 **out)
{
    sqlite3 *db = NULL;
    char *want = NULL, *have = NULL;
    int ret = -1;
    *out = NULL;
    struct ruleset *rs = ruleset_load(o ? o->rules_dir : NULL);
    if (!rs)
        return -1;
    want = an_xstrdup(rs->version);
    if (store_open(path, STORE_READ_ONLY, &db)) {
        an_fail(ANALYZER_ERR_REPORT, "%s", store_error());
        goto out;
    }
    have = stored_version(db);
    if (have && !strcmp(have, want)) {
        *out = db;
        db = NULL;
        ret = 0;
        goto out;
    }
    sqlite3_close(db);
    db = NULL;
    /* Never analyzed, or by another rule set: analyze a copy in memory. */
    if (store_open_memory_copy(path, &db)) {
        an_fail(ANALYZER_ERR_REPORT, "%s", store_error());
        goto out;
    }
    if (analyzer_analyze(db, o))
        goto out;
    *out = db;
    db = NULL;
    ret = 0;
out:
    sqlite3_close(db);
    ruleset_free(rs);
    free(want);
    free(have);
    return ret;
}
