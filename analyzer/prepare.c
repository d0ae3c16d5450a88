/* SPDX-License-Identifier: MIT */
/*
 * prepare: the per-configuration table every rule and every kernel
 * summary starts from, built once per analysis.
 *
 * Rules must not scan launches or pivot metrics themselves: with a
 * million launches and 21 rules that would be 21 full scans. Instead the
 * launches are aggregated once (temp.lstat), the v_profiled pivot is
 * materialized once (temp.v_profiled, which shadows the report's view of
 * the same name: unqualified names resolve to temp first), and both are
 * joined with the configuration and device limits into temp.cfg, one row
 * per configuration with the derived quantities of DESIGN.md (useful
 * bytes, floor, bytes and time per tier, occupancy per limit): the SQL of
 * analyzer/derived.sql, which documents every column and the hardware
 * facts it uses. docs/rules.md documents every column rules may use.
 */
#include "analyzer/analyzer_int.h"
#include "schema/catalogue.h"
#include "schema/store.h"
#include "schema/store_view.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/*
 * Per (kernel, configuration) launch statistics, accumulated in C in one
 * pass over the launch table: a GROUP BY over a million launches makes
 * SQLite sort them (seconds); a hash on the pair does not.
 */
struct lacc {
    long long kernel_id, config_id; /* config_id LLONG_MIN: NULL */
    long long launches, profiled;
    long long unprof_n, all_n;
    double unprof_ns, all_ns;
    long long unprof_min, unprof_max, all_min, all_max;
    long long first_ns, last_ns; /* earliest start, latest end of the traced launches */
    int used;
};

struct ltab {
    struct lacc *v;
    size_t cap, n;
};

static size_t
lhash(long long k, long long c, size_t cap)
{
    unsigned long long h = (unsigned long long)k * 0x9E3779B97F4A7C15ULL ^
                           (unsigned long long)c * 0xC2B2AE3D27D4EB4FULL;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static struct lacc *
ltab_get(struct ltab *t, long long k, long long c)
{
    if (2 * (t->n + 1) > t->cap) {
        struct ltab nt = {.cap = t->cap ? 2 * t->cap : 1024};
        nt.v = an_xcalloc(nt.cap, sizeof(*nt.v));
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->v[i].used)
                continue;
            size_t j = lhash(t->v[i].kernel_id, t->v[i].config_id, nt.cap);
            while (nt.v[j].used)
                j = (j + 1) & (nt.cap - 1);
            nt.v[j] = t->v[i];
            nt.n++;
        }
        free(t->v);
        *t = nt;
    }
    size_t j = lhash(k, c, t->cap);
    while (t->v[j].used && (t->v[j].kernel_id != k || t->v[j].config_id != c))
        j = (j + 1) & (t->cap - 1);
    if (!t->v[j].used) {
        t->v[j] = (struct lacc){.kernel_id = k,
                                .config_id = c,
                                .used = 1,
                                .unprof_min = LLONG_MAX,
                                .all_min = LLONG_MAX,
                                .unprof_max = LLONG_MIN,
                                .first_ns = LLONG_MAX,
                                .last_ns = LLONG_MIN,
                                .all_max = LLONG_MIN};
        t->n++;
    }
    return &t->v[j];
}

static int
ltab_has(const struct ltab *t, long long k, long long c)
{
    if (!t->cap)
        return 0;
    size_t j = lhash(k, c, t->cap);
    while (t->v[j].used) {
        if (t->v[j].kernel_id == k && t->v[j].config_id == c)
            return 1;
        j = (j + 1) & (t->cap - 1);
    }
    return 0;
}

/* The ids of profiled launches (rows of the profile table), as a set. */
static int
load_profiled(sqlite3 *db, struct ltab *set)
{
    sqlite3_stmt *st = NULL;
    int rc;
    if (store_prepare(db, "SELECT launch_id FROM main.profile", &st))
        return an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ltab_get(set, sqlite3_column_int64(st, 0), 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return an_fail(ANALYZER_ERR_REPORT, "cannot read profiles: %s", sqlite3_errstr(rc));
    return 0;
}

static int
build_lstat(sqlite3 *db)
{
    sqlite3_stmt *rd = NULL, *wr = NULL;
    struct ltab t = {0}, prof_ids = {0};
    int ret = -1, rc;
    if (store_exec(
            db, "CREATE TEMP TABLE lstat (kernel_id INTEGER, config_id INTEGER, launches INTEGER,"
                " profiled_launches INTEGER, unprof_ns REAL, unprof_n INTEGER, unprof_min INTEGER,"
                " unprof_max INTEGER, all_ns REAL, all_n INTEGER, all_min INTEGER, all_max INTEGER,"
                " first_ns INTEGER, last_ns INTEGER)") ||
        store_prepare(db, "SELECT kernel_id, config_id, id, start_ns, end_ns FROM main.launch",
                      &rd) ||
        store_prepare(db, "INSERT INTO temp.lstat VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &wr)) {
        an_fail(ANALYZER_ERR_INTERNAL, "cannot build launch statistics: %s", store_error());
        goto out;
    }
    /*
     * Profiled launches come from the profile table (a few thousand rows)
     * rather than launch.profiled: reading that column would make SQLite
     * decode every launch record up to its 17th field.
     */
    if (load_profiled(db, &prof_ids))
        goto out;
    while ((rc = sqlite3_step(rd)) == SQLITE_ROW) {
        long long k = sqlite3_column_int64(rd, 0);
        long long c =
            sqlite3_column_type(rd, 1) == SQLITE_NULL ? LLONG_MIN : sqlite3_column_int64(rd, 1);
        struct lacc *a = ltab_get(&t, k, c);
        int prof = prof_ids.n && ltab_has(&prof_ids, sqlite3_column_int64(rd, 2), 0);
        a->launches++;
        a->profiled += prof;
        if (sqlite3_column_type(rd, 3) == SQLITE_NULL || sqlite3_column_type(rd, 4) == SQLITE_NULL)
            continue;
        /* A damaged or hostile report may hold any two 64-bit times: no overflow. */
        long long d;
        if (__builtin_sub_overflow(sqlite3_column_int64(rd, 4), sqlite3_column_int64(rd, 3), &d) ||
            d < 0)
            continue;
        a->all_n++;
        a->all_ns += (double)d;
        a->all_min = d < a->all_min ? d : a->all_min;
        a->all_max = d > a->all_max ? d : a->all_max;
        long long s0 = sqlite3_column_int64(rd, 3), e0 = sqlite3_column_int64(rd, 4);
        a->first_ns = s0 < a->first_ns ? s0 : a->first_ns;
        a->last_ns = e0 > a->last_ns ? e0 : a->last_ns;
        if (!prof) {
            a->unprof_n++;
            a->unprof_ns += (double)d;
            a->unprof_min = d < a->unprof_min ? d : a->unprof_min;
            a->unprof_max = d > a->unprof_max ? d : a->unprof_max;
        }
    }
    if (rc != SQLITE_DONE) {
        an_fail(ANALYZER_ERR_REPORT, "cannot read launches: %s", sqlite3_errstr(rc));
        goto out;
    }
    for (size_t i = 0; i < t.cap; i++) {
        struct lacc *a = &t.v[i];
        if (!a->used)
            continue;
        sqlite3_bind_int64(wr, 1, a->kernel_id);
        if (a->config_id != LLONG_MIN)
            sqlite3_bind_int64(wr, 2, a->config_id);
        sqlite3_bind_int64(wr, 3, a->launches);
        sqlite3_bind_int64(wr, 4, a->profiled);
        if (a->unprof_n) {
            sqlite3_bind_double(wr, 5, a->unprof_ns);
            sqlite3_bind_int64(wr, 6, a->unprof_n);
            sqlite3_bind_int64(wr, 7, a->unprof_min);
            sqlite3_bind_int64(wr, 8, a->unprof_max);
        }
        if (a->all_n) {
            sqlite3_bind_double(wr, 9, a->all_ns);
            sqlite3_bind_int64(wr, 10, a->all_n);
            sqlite3_bind_int64(wr, 11, a->all_min);
            sqlite3_bind_int64(wr, 12, a->all_max);
            sqlite3_bind_int64(wr, 13, a->first_ns);
            sqlite3_bind_int64(wr, 14, a->last_ns);
        }
        rc = sqlite3_step(wr);
        sqlite3_reset(wr);
        sqlite3_clear_bindings(wr);
        if (rc != SQLITE_DONE) {
            an_fail(ANALYZER_ERR_INTERNAL, "cannot build launch statistics: %s",
                    sqlite3_errstr(rc));
            goto out;
        }
    }
    ret = 0;
out:
    free(t.v);
    free(prof_ids.v);
    sqlite3_finalize(rd);
    sqlite3_finalize(wr);
    return ret;
}

/*
 * Durations come from unprofiled launches when there are any: a profiled
 * launch ran under kernel replay (DESIGN.md "Collection"), and the
 * collector leaves its start_ns/end_ns NULL. A configuration whose only
 * launches were profiled falls back to profile.duration_ns (the replayed
 * gpu__time_duration), the only duration the report has for it.
 */
static const char lstat2_sql[] =
    "CREATE TEMP TABLE lstat2 AS\n"
    "SELECT kernel_id, config_id, launches, profiled_launches,\n"
    "  COALESCE(unprof_ns * 1.0 / unprof_n, all_ns * 1.0 / all_n, pd.mean_ns) AS mean_ns,\n"
    "  CASE WHEN unprof_n > 0 THEN unprof_min WHEN all_n > 0 THEN all_min ELSE pd.min_ns END AS "
    "min_ns,\n"
    "  CASE WHEN unprof_n > 0 THEN unprof_max WHEN all_n > 0 THEN all_max ELSE pd.max_ns END AS "
    "max_ns,\n"
    "  COALESCE(unprof_ns * 1.0 / unprof_n, all_ns * 1.0 / all_n, pd.mean_ns) * launches AS "
    "total_ns,\n"
    "  MIN(COALESCE(first_ns, pa.api_first), COALESCE(pa.api_first, first_ns)) AS first_ns,\n"
    "  MAX(COALESCE(last_ns, pa.api_last), COALESCE(pa.api_last, last_ns)) AS last_ns\n"
    "FROM temp.lstat LEFT JOIN temp.papi pa\n"
    "  ON pa.pa_kernel_id = kernel_id AND pa.pa_config_id IS config_id\n"
    "LEFT JOIN (\n"
    "  SELECT l.config_id AS pd_config_id, l.kernel_id AS pd_kernel_id, AVG(p.duration_ns) AS "
    "mean_ns,\n"
    "         MIN(p.duration_ns) AS min_ns, MAX(p.duration_ns) AS max_ns\n"
    "  FROM main.profile p JOIN main.launch l ON l.id = p.launch_id\n"
    "  WHERE p.duration_ns > 0 GROUP BY l.config_id, l.kernel_id) pd\n"
    "  ON pd.pd_kernel_id = kernel_id AND pd.pd_config_id IS config_id\n"
    "  AND (unprof_n IS NULL OR unprof_n = 0) AND (all_n IS NULL OR all_n = 0)";

/* store_has_column(), its failure an analyzer error: 1, 0 or -1. */
static int
report_has_column(sqlite3 *db, const char *table, const char *col)
{
    int has = store_has_column(db, table, col);
    if (has < 0)
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot read the %s table: %s", table, store_error());
    return has;
}

/*
 * temp.papi: the API time of profiled launches without traced times, per
 * (kernel, configuration), so that a configuration sampled at its first
 * launch still has a first launch time. Reports recorded before
 * launch.api_ns existed get an empty table.
 */
static int
build_papi(sqlite3 *db)
{
    int has = report_has_column(db, "launch", "api_ns");
    if (has < 0)
        return -1;
    if (!has)
        return store_exec(db, "CREATE TEMP TABLE papi (pa_config_id INTEGER, pa_kernel_id INTEGER,"
                              " api_first INTEGER, api_last INTEGER)")
                   ? an_fail(ANALYZER_ERR_INTERNAL, "cannot build launch times: %s", store_error())
                   : 0;
    return store_exec(db, "CREATE TEMP TABLE papi AS SELECT l.config_id AS pa_config_id,"
                          " l.kernel_id AS pa_kernel_id, MIN(l.api_ns) AS api_first,"
                          " MAX(l.api_ns) AS api_last"
                          " FROM main.profile p JOIN main.launch l ON l.id = p.launch_id"
                          " WHERE l.start_ns IS NULL AND l.api_ns IS NOT NULL"
                          " GROUP BY l.config_id, l.kernel_id")
               ? an_fail(ANALYZER_ERR_INTERNAL, "cannot build launch times: %s", store_error())
               : 0;
}

/*
 * temp.phase: when the program's repeated work starts (docs/analyzer.md
 * "One-time set-up"). steady_start_ns: the first launch of the earliest
 * configuration launched more than once, a profiled launch counted at its
 * API time. Copies that end and configurations whose launches all end
 * before it are one-time set-up (a model upload, weight initialization).
 * NULL when no configuration repeats: then the whole run is the work.
 * loop_found (build_loop()): 1 when the launches show the program's loop,
 * found by repetition; temp.loop_cfg the configurations launched in the
 * loop or after it (the others ran before it), temp.setup_cfg those of
 * the others that are set-up (build_setup()).
 * NEEDSWORK: NVTX ranges (a training loop's "step" range) would say it
 * directly when the program has them; the report keeps them per launch.
 */
static const char phase_sql[] =
    "CREATE TEMP TABLE phase AS SELECT (SELECT MIN(first_ns) FROM temp.lstat2 WHERE launches >= 2)"
    " AS steady_start_ns, 0 AS loop_found";

/*
 * The loop (docs/analyzer.md "One-time set-up"): the longest run of
 * launches at the end of the program that repeats one block of launches
 * at least LOOP_MIN_REPEATS times, the block holding at least two
 * configurations (one kernel launched again and again is a benchmark's
 * phase, not a program's loop), with up to LOOP_TAIL_SKIP launches after
 * it let go (a last synchronization or clean-up). Launches in API order
 * (correlation id, then graph node), each named by its configuration. On
 * the H200 (2026-12-04) this finds a JAX training loop's step graph (a
 * block of 20 kernel nodes, 6 times) after XLA's compilation and
 * autotuning, and a PyTorch benchmark's step (297 launches, 20 times)
 * after the model's initialization. Read from the end with the prefix
 * function of the reversed sequence: at length L its smallest period is
 * L - pi[L-1]; at most the last LOOP_MAX_LAUNCHES launches are read.
 */
enum { LOOP_MIN_REPEATS = 3, LOOP_TAIL_SKIP = 64, LOOP_MAX_LAUNCHES = 2000000 };

/* Longest L with period(L) * LOOP_MIN_REPEATS <= L over r[0..n); its period in *period. */
static size_t
loop_length(const long long *r, size_t n, int *pi, size_t *period)
{
    size_t best = 0, k = 0;
    *period = 0;
    if (n == 0)
        return 0;
    pi[0] = 0;
    for (size_t i = 1; i < n; i++) {
        while (k && r[i] != r[k])
            k = (size_t)pi[k - 1];
        if (r[i] == r[k])
            k++;
        pi[i] = (int)k;
        size_t len = i + 1, p = len - k;
        if (p * LOOP_MIN_REPEATS <= len) {
            best = len;
            *period = p;
        }
    }
    return best;
}

static int
cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/*
 * Set-up before the loop (docs/analyzer.md "One-time set-up"), among the
 * configurations none of whose launches is in the loop or after it:
 * those launched fewer than LOOP_MIN_REPEATS times (an upload's kernel,
 * a candidate an autotuner times once or twice), then, until no more are
 * added, those whose launches set-up launches split into LOOP_MIN_REPEATS
 * stretches or more. The set-up repeats those as the loop repeats its
 * block: an autotuner checks its buffers and compares results around
 * each candidate, hundreds of times. Repetition alone does not tell
 * them from the program's own work before its loop (a benchmark's first
 * measurement, an evaluation pass, 20 times in a row), which runs in one
 * stretch, or two when a kernel the program needs once (a lazy
 * initialization) comes in its first pass. Nor does time: in the JAX
 * run of 2026-12-04 the autotuning held most of the kernel time, and
 * the loop was 6 steps of a run that would take thousands; severity
 * (engine.c) weighs a set-up finding's share of the wall time instead.
 * key[0 .. n) are the launches read, the last first; key[0 .. loop_end)
 * the loop and what follows it. Launch counts are those among the
 * launches read.
 */
/* Inserts ids[i] (each i with keep NULL or keep[i]) by `sql`, one parameter. Nonzero on failure. */
static int
insert_ids(sqlite3 *db, const char *sql, const long long *ids, size_t n, const int *keep)
{
    sqlite3_stmt *st = NULL;
    int rc = store_prepare(db, sql, &st);
    for (size_t i = 0; !rc && i < n; i++) {
        if (keep && !keep[i])
            continue;
        sqlite3_bind_int64(st, 1, ids[i]);
        rc = sqlite3_step(st) != SQLITE_DONE;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static int
build_setup(sqlite3 *db, const long long *key, size_t n, size_t loop_end)
{
    struct setup_cfg {
        size_t launches;
        size_t pieces; /* stretches of its launches that set-up launches split */
        size_t seen;   /* set-up launches before its last launch */
        int is_after;  /* launched in the loop or after it */
        int is_setup;
    };
    long long *ids = an_xmalloc((n ? n : 1) * sizeof *ids);
    size_t *at = an_xmalloc((n ? n : 1) * sizeof *at), m = 0;
    if (n)
        memcpy(ids, key, n * sizeof *ids);
    qsort(ids, n, sizeof *ids, cmp_ll);
    for (size_t i = 0; i < n; i++)
        if (!m || ids[m - 1] != ids[i])
            ids[m++] = ids[i];
    struct setup_cfg *c = an_xcalloc(m ? m : 1, sizeof *c);
    for (size_t i = 0; i < n; i++) {
        at[i] = (size_t)((const long long *)bsearch(key + i, ids, m, sizeof *ids, cmp_ll) - ids);
        c[at[i]].launches++;
        c[at[i]].is_after |= i < loop_end;
    }
    for (size_t j = 0; j < m; j++)
        c[j].is_setup = !c[j].is_after && c[j].launches < LOOP_MIN_REPEATS;
    for (int added = 1; added;) {
        added = 0;
        size_t seen = 0;
        for (size_t j = 0; j < m; j++)
            c[j].pieces = 0;
        for (size_t i = n; i-- > loop_end;) {
            struct setup_cfg *p = &c[at[i]];
            if (p->is_setup) {
                seen++;
            } else if (!p->is_after) {
                p->pieces += !p->pieces || p->seen < seen;
                p->seen = seen;
            }
        }
        for (size_t j = 0; j < m; j++)
            if (!c[j].is_after && !c[j].is_setup && c[j].pieces >= LOOP_MIN_REPEATS)
                c[j].is_setup = added = 1;
    }
    int *keep = an_xmalloc((m ? m : 1) * sizeof *keep);
    for (size_t j = 0; j < m; j++)
        keep[j] = c[j].is_setup;
    int rc = insert_ids(db, "INSERT INTO temp.setup_cfg VALUES (?)", ids, m, keep);
    free(keep);
    free(ids);
    free(at);
    free(c);
    return rc;
}

static int
build_loop(sqlite3 *db)
{
    if (store_exec(db, "CREATE TEMP TABLE loop_cfg (config_id INTEGER PRIMARY KEY);"
                       "CREATE TEMP TABLE setup_cfg (config_id INTEGER PRIMARY KEY)"))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot build the loop: %s", store_error());
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT COALESCE(config_id, -kernel_id) FROM main.launch"
             " ORDER BY correlation_id DESC, COALESCE(graph_node_id, 0) DESC, id DESC LIMIT %d",
             (int)LOOP_MAX_LAUNCHES);
    sqlite3_stmt *st = NULL;
    if (store_prepare(db, sql, &st))
        return an_fail(ANALYZER_ERR_REPORT, "cannot read the launches: %s", store_error());
    size_t n = 0, cap = 0;
    long long *key = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            key = an_xrealloc(key, cap * sizeof *key);
        }
        key[n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(key);
        return an_fail(ANALYZER_ERR_REPORT, "cannot read the launches: %s", sqlite3_errstr(rc));
    }
    int *pi = an_xmalloc((n ? n : 1) * sizeof *pi);
    /* the reversed sequence (key[0] the last launch), with up to LOOP_TAIL_SKIP of it let go */
    size_t best = 0, best_p = 0, best_s = 0,
           skip = n / 10 < LOOP_TAIL_SKIP ? n / 10 : LOOP_TAIL_SKIP;
    for (size_t s = 0; s <= skip && s < n; s++) {
        size_t p = 0, len = loop_length(key + s, n - s, pi, &p);
        if (len > best) {
            best = len;
            best_p = p;
            best_s = s;
        }
    }
    /* the block's earliest repetition, key[s+L-P .. s+L): two configurations at least */
    int distinct = 0;
    for (size_t i = best_s + best - best_p; best_p && i < best_s + best; i++)
        distinct |= key[i] != key[best_s + best - best_p];
    rc = 0;
    if (distinct) {
        /* the configurations of the loop and of what follows it: key[0 .. s+L) */
        rc = store_exec(db, "UPDATE temp.phase SET loop_found = 1") ||
             insert_ids(db, "INSERT OR IGNORE INTO temp.loop_cfg VALUES (?)", key, best_s + best,
                        NULL) ||
             build_setup(db, key, n, best_s + best);
    }
    free(key);
    free(pi);
    return rc ? an_fail(ANALYZER_ERR_INTERNAL, "cannot build the loop: %s", store_error()) : 0;
}

/*
 * temp.cfg, every derived column (the floor, bytes and time per tier,
 * occupancy per limit, the bound tier), is analyzer/derived.sql, embedded
 * at build time: each column documented there, with the hardware facts it
 * uses.
 */
extern const char an_derived_sql[];

/*
 * temp.prof_aside: profiled launches that did other work than their
 * configuration's first profile, set aside from its averages. The rule
 * and its reasons are schema.sql's v_profile (set_aside = 1), run as this
 * build defines it: readers (the TUI's profiles view) mark the same
 * profiles, and a report recorded before the view existed gets the rule
 * too.
 */
static char *
prof_aside_query(const char *head, const char *tail)
{
    char *sql = store_view_query("v_profile", head, tail);
    if (!sql)
        an_fail(ANALYZER_ERR_INTERNAL, "cannot read profiles: %s", store_error());
    return sql;
}

int
analyzer_profiles_set_aside(sqlite3 *db, long long *profiles, long long *configs)
{
    sqlite3_stmt *st = NULL;
    *profiles = *configs = 0;
    char *sql = prof_aside_query("SELECT COUNT(*), COUNT(DISTINCT config_id) FROM ",
                                 " WHERE set_aside = 1");
    if (!sql)
        return -1;
    int rc = store_prepare(db, sql, &st);
    free(sql);
    if (rc)
        return an_fail(ANALYZER_ERR_REPORT, "cannot read profiles: %s", store_error());
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *profiles = sqlite3_column_int64(st, 0);
        *configs = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW
               ? 0
               : an_fail(ANALYZER_ERR_REPORT, "cannot read profiles: %s", sqlite3_errstr(rc));
}

int
analyzer_groups_missing(sqlite3 *db, long long *configs, double *gpu_pct)
{
    sqlite3_stmt *st = NULL;
    *configs = 0;
    *gpu_pct = 0;
    /*
     * The share is of the coverage lines' time (store_counter_coverage()):
     * each configuration's analysis time where there is one, the kernels
     * that wait left out of both sides.
     */
    char *sql = store_groups_query("SELECT COUNT(*),"
                                   " (SELECT total(ns) FROM (" STORE_CONFIG_NS
                                   ") WHERE id NOT IN (" STORE_WAITING_CONFIGS ")),"
                                   " total((SELECT ns FROM (" STORE_CONFIG_NS
                                   ") cn WHERE cn.id = g.config_id"
                                   "  AND cn.id NOT IN (" STORE_WAITING_CONFIGS "))) FROM ",
                                   " g WHERE g.groups_collected < g.groups_total");
    if (!sql)
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot read one-pass groups: %s", store_error());
    int rc = store_prepare(db, sql, &st);
    free(sql);
    if (rc)
        return an_fail(ANALYZER_ERR_REPORT, "cannot read one-pass groups: %s", store_error());
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *configs = sqlite3_column_int64(st, 0);
        double all = sqlite3_column_double(st, 1);
        *gpu_pct = all > 0 ? 100.0 * sqlite3_column_double(st, 2) / all : 0;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0
                            : an_fail(ANALYZER_ERR_REPORT, "cannot read one-pass groups: %s",
                                      sqlite3_errstr(rc));
}

/*
 * A profile taken in a one-pass group under user replay (profile columns,
 * unqualified): where the range profiler reads SASS-patched metrics as 0.
 */
#define USER_REPLAY_GROUP "passes = 1 AND metric_set LIKE 'group%'"

/*
 * temp.patched_metric: the report's SASS-patched metrics
 * (catalogue_is_patched(): smsp__sass_*, sm__sass_*). Read by the range profiler in
 * a one-pass group under user replay (profile.passes 1, metric_set
 * 'groupK/N') they are no measurement: on the H200 (CUDA 13.0) every one
 * of them read 0 in every such group, for kernels that moved gigabytes,
 * while kernel replay gave real values (docs/metrics.md "SASS-patched
 * metrics under user replay"). build_cfg_metric() leaves those values out,
 * so the columns they feed (the requested bytes, the instructions by
 * width) are NULL, "not measured", rather than a 0 the rules would take
 * for an ideal of 0 bytes.
 */
static int
build_patched_metric(sqlite3 *db)
{
    sqlite3_stmt *rd = NULL, *wr = NULL;
    int rc = store_exec(db, "CREATE TEMP TABLE patched_metric (metric_id INTEGER PRIMARY KEY)");
    if (rc || store_prepare(db, "SELECT id, name FROM main.metric_name", &rd) ||
        store_prepare(db, "INSERT INTO temp.patched_metric VALUES (?)", &wr)) {
        sqlite3_finalize(rd);
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot list SASS-patched metrics: %s",
                       store_error());
    }
    while ((rc = sqlite3_step(rd)) == SQLITE_ROW) {
        if (!catalogue_is_patched((const char *)sqlite3_column_text(rd, 1)))
            continue;
        sqlite3_bind_int64(wr, 1, sqlite3_column_int64(rd, 0));
        int w = sqlite3_step(wr);
        sqlite3_reset(wr);
        if (w != SQLITE_DONE)
            break;
    }
    sqlite3_finalize(rd);
    sqlite3_finalize(wr);
    if (rc != SQLITE_DONE)
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot list SASS-patched metrics: %s",
                       sqlite3_errmsg(db));
    return 0;
}

/*
 * temp.cfg_metric: every metric of the report averaged per configuration
 * over its profiled launches (those not in temp.prof_aside), accumulated
 * in C in one pass over the metric rows of profiled launches (the
 * v_profiled pivot costs 45 CASE expressions per metric row; this costs
 * one hash lookup).
 */
static int
build_cfg_metric(sqlite3 *db)
{
    sqlite3_stmt *rd = NULL, *wr = NULL;
    struct ltab t = {0}; /* reused: kernel_id = config id, config_id = metric id */
    int ret = -1, rc;
    char *aside =
        prof_aside_query("CREATE TEMP TABLE prof_aside AS SELECT launch_id, config_id FROM ",
                         " WHERE set_aside = 1");
    if (!aside)
        goto out;
    rc = store_exec(db, aside);
    free(aside);
    if (rc || store_exec(db, "CREATE INDEX temp.prof_aside_by_launch ON prof_aside(launch_id)") ||
        build_patched_metric(db) ||
        store_exec(
            db, "CREATE TEMP TABLE cfg_metric_id (config_id INTEGER, metric_id INTEGER, value REAL,"
                " n INTEGER, first_launch_id INTEGER)") ||
        store_prepare(db,
                      "SELECT l.config_id, m.metric_id, m.value, l.id FROM main.profile p"
                      " CROSS JOIN main.launch l ON l.id = p.launch_id"
                      " CROSS JOIN main.metric m ON m.launch_id = p.launch_id"
                      " WHERE l.config_id IS NOT NULL AND m.value IS NOT NULL"
                      " AND p.launch_id NOT IN (SELECT launch_id FROM temp.prof_aside)"
                      " AND NOT (" USER_REPLAY_GROUP
                      "  AND m.metric_id IN (SELECT metric_id FROM temp.patched_metric))",
                      &rd) ||
        store_prepare(db, "INSERT INTO temp.cfg_metric_id VALUES (?,?,?,?,?)", &wr)) {
        an_fail(ANALYZER_ERR_INTERNAL, "cannot build metric averages: %s", store_error());
        goto out;
    }
    while ((rc = sqlite3_step(rd)) == SQLITE_ROW) {
        struct lacc *a = ltab_get(&t, sqlite3_column_int64(rd, 0), sqlite3_column_int64(rd, 1));
        long long lid = sqlite3_column_int64(rd, 3);
        a->all_n++;
        a->all_ns += sqlite3_column_double(rd, 2);
        a->all_min = lid < a->all_min ? lid : a->all_min;
    }
    if (rc != SQLITE_DONE) {
        an_fail(ANALYZER_ERR_REPORT, "cannot read metrics: %s", sqlite3_errstr(rc));
        goto out;
    }
    for (size_t i = 0; i < t.cap; i++) {
        struct lacc *a = &t.v[i];
        if (!a->used)
            continue;
        sqlite3_bind_int64(wr, 1, a->kernel_id);
        sqlite3_bind_int64(wr, 2, a->config_id);
        sqlite3_bind_double(wr, 3, a->all_ns / (double)a->all_n);
        sqlite3_bind_int64(wr, 4, a->all_n);
        sqlite3_bind_int64(wr, 5, a->all_min);
        rc = sqlite3_step(wr);
        sqlite3_reset(wr);
        if (rc != SQLITE_DONE) {
            an_fail(ANALYZER_ERR_INTERNAL, "cannot build metric averages: %s", sqlite3_errstr(rc));
            goto out;
        }
    }
    if (store_exec(db, "CREATE TEMP TABLE cfg_metric AS SELECT c.config_id, n.name AS metric, "
                       "c.value, c.n AS launches"
                       " FROM temp.cfg_metric_id c JOIN main.metric_name n ON n.id = c.metric_id;"
                       "CREATE INDEX temp.cfg_metric_by_config ON cfg_metric(config_id, metric)")) {
        an_fail(ANALYZER_ERR_INTERNAL, "cannot build metric averages: %s", store_error());
        goto out;
    }
    ret = 0;
out:
    free(t.v);
    sqlite3_finalize(rd);
    sqlite3_finalize(wr);
    return ret;
}

/*
 * Appends ", MAX(CASE WHEN metric = 'METRIC' THEN value END) AS COLUMN" to
 * *sql for each "... WHEN n.name = 'METRIC' THEN m.value END) AS COLUMN"
 * pair of the v_profiled SQL text p (up to pend), skipping columns already
 * in *sql. Returns the number of pairs added.
 */
static int
pivot_add(const char *p, const char *pend, char **sql, size_t *len)
{
    const char *key = "n.name = '";
    int n = 0;
    while ((p = strstr(p, key)) && (!pend || p < pend)) {
        const char *m = p + strlen(key), *mend = strchr(m, '\'');
        const char *as = mend ? strstr(mend, " AS ") : NULL;
        if (!mend || !as)
            break;
        const char *c = as + 4, *cend = c;
        while ((*cend >= 'a' && *cend <= 'z') || (*cend >= '0' && *cend <= '9') || *cend == '_')
            cend++;
        if (cend == c || (size_t)(mend - m) > 200 || memchr(m, '"', (size_t)(mend - m)))
            break;
        char col[80];
        snprintf(col, sizeof col, " AS \"%.*s\"", (int)(cend - c) < 60 ? (int)(cend - c) : 60, c);
        p = cend;
        if (strstr(*sql, col))
            continue;
        size_t add = (size_t)(mend - m) + (size_t)(cend - c) + 80;
        *sql = an_xrealloc(*sql, *len + add);
        *len += (size_t)snprintf(*sql + *len, add,
                                 ", MAX(CASE WHEN metric = '%.*s' THEN value END) AS \"%.*s\"",
                                 (int)(mend - m), m, (int)(cend - c), c);
        n++;
    }
    return n;
}

/*
 * The (column, metric) pairs of v_profiled, read from its SQL so the
 * schema stays the one place that names them: first this build's schema
 * (so a report recorded before a column was added still gets the column,
 * NULL when the report lacks the metric), then the report's own view for
 * any column this build does not know. Returns the number of pairs, or -1.
 */
static int
pivot_columns(sqlite3 *db, char **sql, size_t *len)
{
    sqlite3_stmt *st = NULL;
    int n = 0;
    const char *cur = store_schema_sql();
    const char *v = cur ? strstr(cur, "CREATE VIEW v_profiled") : NULL;
    if (v)
        n += pivot_add(v, strstr(v, "FROM launch"), sql, len);
    if (store_prepare(
            db, "SELECT sql FROM main.sqlite_master WHERE type = 'view' AND name = 'v_profiled'",
            &st))
        return -1;
    if (sqlite3_step(st) != SQLITE_ROW || !sqlite3_column_text(st, 0)) {
        sqlite3_finalize(st);
        return an_fail(ANALYZER_ERR_REPORT, "report has no v_profiled view");
    }
    n += pivot_add((const char *)sqlite3_column_text(st, 0), NULL, sql, len);
    sqlite3_finalize(st);
    return n;
}

/* Fallback: temp.pagg as AVG() of every column of a materialized v_profiled. */
static int
build_pagg_slow(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    char *sql = NULL;
    size_t len;
    int rc;
    if (an_prepare_profiled(db) ||
        store_prepare(db, "SELECT name FROM pragma_table_info('v_profiled', 'temp')", &st))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot list v_profiled columns: %s", store_error());
    sql = an_xstrdup("CREATE TEMP TABLE pagg AS SELECT config_id AS pagg_config_id, MIN(launch_id) "
                     "AS profiled_launch_id");
    len = strlen(sql);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (!name || !strcmp(name, "launch_id") || !strcmp(name, "kernel_id") ||
            !strcmp(name, "config_id") || !strcmp(name, "device_id") || strchr(name, '"'))
            continue;
        size_t add = 2 * strlen(name) + 32;
        sql = an_xrealloc(sql, len + add);
        len += (size_t)snprintf(sql + len, add, ", AVG(\"%s\") AS \"%s\"", name, name);
    }
    sqlite3_finalize(st);
    const char *tail = " FROM temp.v_profiled GROUP BY config_id";
    sql = an_xrealloc(sql, len + strlen(tail) + 1);
    memcpy(sql + len, tail, strlen(tail) + 1);
    rc = rc == SQLITE_DONE ? store_exec(db, sql) : -1;
    free(sql);
    return rc ? an_fail(ANALYZER_ERR_INTERNAL, "cannot build profiled averages: %s", store_error())
              : 0;
}

static int
build_pagg(sqlite3 *db)
{
    char *sql = an_xstrdup(
        "CREATE TEMP TABLE pagg AS SELECT config_id AS pagg_config_id,"
        " (SELECT MIN(first_launch_id) FROM temp.cfg_metric_id i WHERE i.config_id = o.config_id)"
        " AS profiled_launch_id");
    size_t len = strlen(sql);
    int n = pivot_columns(db, &sql, &len);
    if (n < 0) {
        free(sql);
        return -1;
    }
    if (n == 0) {
        /* The view's SQL did not read as expected: average the materialized view instead (slower). */
        free(sql);
        return build_pagg_slow(db);
    }
    /*
     * One-pass groups put the L2 hit and miss sectors in different groups
     * (they cannot share a pass on GH100), so a configuration's L2 hit
     * rate then joins two launches: l2_hit_rate_spread is 1 when no kept
     * profile holds both (docs/analyzer.md "One-pass groups"), 0 when one
     * does (kernel replay's core), NULL without both counters. Every
     * other ratio's halves share a group (collector/onepass.c bundles).
     */
    const char *tail =
        ", CASE WHEN MAX(o.metric = 'lts__t_sectors_lookup_hit.sum') = 1"
        " AND MAX(o.metric = 'lts__t_sectors_lookup_miss.sum') = 1"
        " THEN NOT EXISTS (SELECT 1 FROM main.launch l"
        "  JOIN main.profile p ON p.launch_id = l.id"
        "  JOIN main.metric mh ON mh.launch_id = l.id JOIN main.metric mm ON mm.launch_id = l.id"
        "  WHERE l.config_id = o.config_id AND mh.value IS NOT NULL AND mm.value IS NOT NULL"
        "  AND mh.metric_id = (SELECT id FROM main.metric_name"
        "   WHERE name = 'lts__t_sectors_lookup_hit.sum')"
        "  AND mm.metric_id = (SELECT id FROM main.metric_name"
        "   WHERE name = 'lts__t_sectors_lookup_miss.sum')"
        "  AND l.id NOT IN (SELECT launch_id FROM temp.prof_aside)) END AS l2_hit_rate_spread"
        " FROM temp.cfg_metric o GROUP BY config_id";
    sql = an_xrealloc(sql, len + strlen(tail) + 1);
    memcpy(sql + len, tail, strlen(tail) + 1);
    int rc = store_exec(db, sql);
    free(sql);
    if (rc)
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot build profiled averages: %s", store_error());
    return 0;
}

void
an_unprepare(sqlite3 *db)
{
    /* One statement each: on a version-1 report these names are the store's TEMP views. */
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.v_inst_line", NULL, NULL, NULL);
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.v_inst_config", NULL, NULL, NULL);
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.v_inst", NULL, NULL, NULL);
    sqlite3_exec(db,
                 "DROP TABLE IF EXISTS temp.cfg; DROP TABLE IF EXISTS temp.pagg;"
                 "DROP TABLE IF EXISTS temp.v_profiled; DROP TABLE IF EXISTS temp.lstat2;"
                 "DROP TABLE IF EXISTS temp.cfg_metric; DROP TABLE IF EXISTS temp.cfg_metric_id;"
                 "DROP TABLE IF EXISTS temp.prof_aside; DROP TABLE IF EXISTS temp.patched_metric;"
                 "DROP TABLE IF EXISTS temp.lstat; DROP TABLE IF EXISTS temp.footprint;"
                 "DROP TABLE IF EXISTS temp.waiting; DROP TABLE IF EXISTS temp.phase;"
                 "DROP TABLE IF EXISTS temp.papi; DROP TABLE IF EXISTS temp.loop_cfg;"
                 "DROP TABLE IF EXISTS temp.setup_cfg; DROP TABLE IF EXISTS temp.um_wait;",
                 NULL, NULL, NULL);
}

static int
exec(sqlite3 *db, const char *sql, const char *what)
{
    if (store_exec(db, sql))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot build %s: %s", what, store_error());
    return 0;
}

/*
 * In temp.v_profiled, the columns of SASS-patched metrics are NULL on the
 * launches profiled in a one-pass group under user replay, where the
 * range profiler read them as 0 (build_patched_metric()). Only the columns
 * the report's view has.
 */
static int
null_patched_columns(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db, "SELECT 1 FROM pragma_table_info('v_profiled', 'temp') WHERE name = ?",
                      &st))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot list v_profiled columns: %s", store_error());
    char *sql = an_xstrdup("UPDATE temp.v_profiled SET");
    size_t len = strlen(sql), ncol = 0;
    for (size_t i = 0; i < catalogue_nmetrics; i++) {
        const struct catalogue_metric *m = &catalogue_metrics[i];
        if (!m->column || !catalogue_is_patched(m->name))
            continue;
        sqlite3_bind_text(st, 1, m->column, -1, SQLITE_STATIC);
        int have = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_reset(st);
        if (!have)
            continue;
        size_t add = strlen(m->column) + 16;
        sql = an_xrealloc(sql, len + add);
        len += (size_t)snprintf(sql + len, add, "%s \"%s\" = NULL", ncol++ ? "," : "", m->column);
    }
    sqlite3_finalize(st);
    static const char tail[] = " WHERE launch_id IN (SELECT launch_id FROM main.profile"
                               " WHERE " USER_REPLAY_GROUP ")";
    sql = an_xrealloc(sql, len + sizeof tail);
    memcpy(sql + len, tail, sizeof tail);
    int rc = ncol ? exec(db, sql, "v_profiled") : 0;
    free(sql);
    return rc;
}

int
an_prepare_profiled(sqlite3 *db)
{
    /* built once per analysis: build_pagg_slow() and analyze_with() both ask */
    sqlite3_stmt *st = NULL;
    if (store_prepare(db, "SELECT 1 FROM temp.sqlite_master WHERE name = 'v_profiled'", &st) == 0) {
        int built = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
        if (built)
            return 0;
    }
    return exec(db, "CREATE TEMP TABLE IF NOT EXISTS v_profiled AS SELECT * FROM main.v_profiled",
                "v_profiled") ||
                   null_patched_columns(db) ||
                   exec(db,
                        "CREATE INDEX IF NOT EXISTS temp.v_profiled_by_config ON "
                        "v_profiled(config_id)",
                        "v_profiled")
               ? -1
               : 0;
}

/*
 * temp.footprint: per configuration, the device memory live when its
 * profiled launches were issued (the largest, when several were: an upper
 * bound must hold for each). From the report's v_launch_footprint, which
 * reports written before allocations were recorded lack (schema.sql
 * "Compatibility"): then the table stays empty, cfg.live_device_bytes is
 * NULL and the rules that use it fall back to the counters alone.
 */
static int
build_footprint(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db,
                      "SELECT 1 FROM main.sqlite_master WHERE type = 'view' AND "
                      "name = 'v_launch_footprint'",
                      &st))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot build footprints: %s", store_error());
    int rc = sqlite3_step(st);
    int has_view = rc == SQLITE_ROW;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return an_fail(ANALYZER_ERR_REPORT, "cannot read the report's schema");
    if (!has_view)
        return exec(db,
                    "CREATE TEMP TABLE footprint (fp_config_id INTEGER, live_device_bytes REAL)",
                    "footprints");
    return exec(db,
                "CREATE TEMP TABLE footprint AS SELECT f.config_id AS fp_config_id,"
                " MAX(f.live_device_bytes) AS live_device_bytes"
                " FROM main.v_launch_footprint f JOIN main.profile p ON p.launch_id = f.launch_id"
                " GROUP BY f.config_id",
                "footprints") ||
                   exec(db, "CREATE INDEX temp.footprint_by_config ON footprint(fp_config_id)",
                        "footprints")
               ? -1
               : 0;
}

/*
 * temp.um_wait: per configuration, its traced launches that overlapped
 * host-to-device migrations of managed memory the program did not ask for
 * (schema.sql um_event; cause other than 'user', a prefetch or copy it
 * made, or 'eviction'), how many migrations and bytes, and each launch's
 * faulting period: from its first such migration's start to its last
 * one's end, within the launch. The transfers alone are a lower bound of
 * the wait: between them the kernel waits for the driver to service its
 * next faults (GPU page faults are not recorded), and on an H100
 * (testkernels host managed, 2026-12-07) the transfers took 60 % of each
 * faulting launch and the period from the first to the last 98 %, the
 * kernel running at 220x its prefetched twin's time. What the kernel waited
 * for the host link (managed-migration; cfg.um_wait_ns takes it out of
 * the time the models of the other rules share out).
 * Reports recorded before the table existed (schema.sql "Compatibility")
 * get an empty one. Each launch looks only at migrations that started
 * within the longest migration before its start: um_event_by_start makes
 * that a short range.
 */
static const char um_wait_sql[] =
    "CREATE TEMP TABLE um_wait AS\n"
    "SELECT config_id AS um_config_id, COUNT(*) AS um_launches, SUM(migrations) AS um_migrations,\n"
    "       SUM(bytes) AS um_bytes, SUM(wait_ns) AS um_wait_total_ns, group_concat(launch_id) AS "
    "um_launch_ids\n"
    "FROM (SELECT l.id AS launch_id, l.config_id, COUNT(*) AS migrations, SUM(u.value) AS bytes,\n"
    "             MIN(l.end_ns, MAX(u.end_ns)) - MAX(l.start_ns, MIN(u.start_ns)) AS wait_ns\n"
    "      FROM main.launch l JOIN main.um_event u\n"
    "        ON u.start_ns < l.end_ns AND u.end_ns > l.start_ns\n"
    "       AND u.start_ns > l.start_ns - (SELECT MAX(end_ns - start_ns) FROM main.um_event WHERE "
    "kind = 'htod')\n"
    "      WHERE u.kind = 'htod' AND u.end_ns > u.start_ns AND COALESCE(u.cause, '') NOT IN "
    "('user', 'eviction')\n"
    "        AND l.config_id IS NOT NULL AND l.end_ns > l.start_ns\n"
    "        AND EXISTS (SELECT 1 FROM main.um_event WHERE kind = 'htod')\n"
    "      GROUP BY l.id)\n"
    "GROUP BY config_id";

static int
build_um_wait(sqlite3 *db)
{
    int has = store_has_column(db, "um_event", "kind");
    if (has < 0)
        return an_fail(ANALYZER_ERR_REPORT, "cannot read the report's schema");
    if (!has)
        return exec(db,
                    "CREATE TEMP TABLE um_wait (um_config_id INTEGER, um_launches INTEGER,"
                    " um_migrations INTEGER, um_bytes INTEGER, um_wait_total_ns INTEGER,"
                    " um_launch_ids TEXT)",
                    "managed-memory waits");
    return exec(db, um_wait_sql, "managed-memory waits") ||
                   exec(db, "CREATE INDEX temp.um_wait_by_config ON um_wait(um_config_id)",
                        "managed-memory waits")
               ? -1
               : 0;
}

/*
 * The per-instruction views, materialized once per analysis when the
 * report has counts: every pattern rule reads v_inst_config, and each of
 * their findings v_inst_line, and each reading of a view pivots all of
 * inst_count again (millions of rows on a framework's run). Each is this
 * build's view body (store_view_query()), so a report recorded by another
 * build is judged the same; temp.v_inst shadows the view, and the other
 * two read it.
 */
static int
build_inst(sqlite3 *db)
{
    if (store_query_int(
            db, "SELECT EXISTS (SELECT 1 FROM inst_count) OR EXISTS (SELECT 1 FROM inst_run)", 0) !=
        1)
        return 0;
    char *inst = store_view_query("v_inst", "CREATE TEMP TABLE v_inst AS SELECT * FROM ", "");
    char *config =
        store_view_query("v_inst_config", "CREATE TEMP TABLE v_inst_config AS SELECT * FROM ", "");
    char *line =
        store_view_query("v_inst_line", "CREATE TEMP TABLE v_inst_line AS SELECT * FROM ", "");
    int rc = !inst || !config || !line
                 ? an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error())
                 : exec(db, inst, "per-instruction counts") ||
                       exec(db, config, "per-instruction counts") ||
                       exec(db, line, "per-instruction counts") ||
                       exec(db, "CREATE INDEX temp.v_inst_line_by_config ON v_inst_line(config_id)",
                            "per-instruction counts");
    free(inst);
    free(config);
    free(line);
    return rc;
}

int
an_prepare(sqlite3 *db)
{
    int ret = -1;
    char *sql = NULL;
    an_unprepare(db);
    /* Temp tables in memory: a report on a slow disk should not pay for them twice. */
    sqlite3_exec(db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
    if (build_lstat(db))
        goto out;
    an_lap("  launch scan");
    if (build_papi(db) || exec(db, lstat2_sql, "launch statistics") ||
        exec(db, "CREATE INDEX temp.lstat2_by_config ON lstat2(config_id)", "launch statistics") ||
        exec(db, phase_sql, "the steady state's start") || build_loop(db) || build_cfg_metric(db))
        goto out;
    an_lap("  metric averages");
    if (build_pagg(db) || build_footprint(db) || build_um_wait(db) ||
        exec(db, "CREATE INDEX temp.pagg_by_config ON pagg(pagg_config_id)", "profiled averages"))
        goto out;
    /* before temp.cfg: its useful bytes read the instrumented counts (v_inst_config) */
    if (build_inst(db))
        goto out;
    an_lap("  per-instruction counts");
    if (exec(db, an_derived_sql, "configuration table") ||
        exec(db, "CREATE INDEX temp.cfg_by_config ON cfg(config_id)", "configuration table"))
        goto out;
    ret = 0;
out:
    free(sql);
    return ret;
}

/* The one number `sql` selects, or `dflt` when it selects none or NULL; -1 on an SQL error. */
static int
query_double(sqlite3 *db, const char *sql, double dflt, double *v)
{
    sqlite3_stmt *st = NULL;
    *v = dflt;
    if (store_prepare(db, sql, &st))
        return an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        *v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE
               ? 0
               : an_fail(ANALYZER_ERR_INTERNAL, "cannot read '%.40s...': %s", sql,
                         sqlite3_errstr(rc));
}

double
an_run_gpu_ns(sqlite3 *db)
{
    double v;
    if (query_double(db,
                     "SELECT COALESCE((SELECT SUM(total_ns) FROM temp.lstat2), 0)"
                     " + COALESCE((SELECT SUM(end_ns - start_ns) FROM main.copy WHERE end_ns >= "
                     "start_ns), 0)",
                     -1, &v))
        return -1;
    return v;
}

double
an_run_wall_ns(sqlite3 *db)
{
    double v;
    if (query_double(db,
                     /* A job report has a run per rank: the ranks' summed wall time
                        matches their summed GPU time; one rank without a span makes
                        it unknown. */
                     "SELECT CASE WHEN COUNT(*) > 0 AND SUM(r.end_ns > r.start_ns) = COUNT(*)"
                     " THEN SUM(r.end_ns - r.start_ns)"
                     " - COALESCE((SELECT SUM(overhead_ns) FROM main.profile), 0) END"
                     " FROM main.run r",
                     -1, &v))
        return -1;
    return v > 0 ? v : -1;
}

/*
 * kernel_summary: one row per configuration from temp.cfg, then one per
 * kernel (config_id NULL) aggregated over its configurations and over
 * launches with no configuration. Byte columns are per launch, weighted
 * by launches over the configurations that have counters; the kernel's
 * floor ratio compares the time and the floor of those same
 * configurations, so a kernel profiled in only one of its shapes is not
 * judged by the others' time.
 */
/* The columns both kernel_summary inserts fill, in order. */
#define SUMMARY_INSERT                                                                             \
    "INSERT INTO main.kernel_summary (kernel_id, config_id, launches, profiled_launches,\n"        \
    "  total_ns, mean_ns, min_ns, max_ns, share_pct, shared_bytes, l1_bytes, l2_bytes,\n"          \
    "  dram_bytes, host_bytes, local_bytes, requested_bytes, useful_bytes, floor_ns,\n"            \
    "  floor_measured_ns, floor_ratio, floor_ratio_measured, bound_tier,\n"                        \
    "  theoretical_occupancy_pct, achieved_occupancy_pct, occupancy_limiter,\n"                    \
    "  findings, worst_severity, worst_rule_id, time_lost_ns)\n"

static const char summary_config_sql[] = SUMMARY_INSERT
    "SELECT c.kernel_id, c.config_id, c.launches, c.profiled_launches, CAST(ROUND(c.total_ns) AS "
    "INTEGER), c.mean_ns,\n"
    "  c.min_ns, c.max_ns, 100.0 * c.total_ns / NULLIF(:run_ns, 0), c.shared_bytes, c.l1_bytes, "
    "c.l2_bytes,\n"
    "  c.dram_bytes, c.host_bytes, c.local_bytes, c.requested_bytes, c.useful_bytes, c.floor_ns,\n"
    "  c.floor_measured_ns, c.floor_ratio, c.floor_ratio_measured, c.bound_tier,\n"
    "  c.theoretical_occupancy_pct, c.achieved_occupancy_pct, c.occupancy_limiter,\n"
    "  (SELECT COUNT(*) FROM main.finding f WHERE f.config_id = c.config_id),\n"
    "  (SELECT f.severity FROM main.finding f WHERE f.config_id = c.config_id\n"
    "     ORDER BY CASE f.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END LIMIT 1),\n"
    "  (SELECT f.rule_id FROM main.finding f WHERE f.config_id = c.config_id ORDER BY f.rank LIMIT "
    "1),\n"
    "  (SELECT COALESCE(SUM(f.time_lost_ns), 0) FROM main.finding f WHERE f.config_id = "
    "c.config_id)\n"
    "FROM temp.cfg c ORDER BY c.kernel_id, c.config_id";

static const char summary_kernel_sql[] = SUMMARY_INSERT
    "SELECT k.id, NULL, COALESCE(s.launches, 0), COALESCE(s.profiled, 0), "
    "CAST(ROUND(COALESCE(s.total_ns, 0)) AS INTEGER),\n"
    "  s.total_ns / NULLIF(s.launches, 0), s.min_ns, s.max_ns, 100.0 * COALESCE(s.total_ns, 0) / "
    "NULLIF(:run_ns, 0),\n"
    "  a.shared_bytes, a.l1_bytes, a.l2_bytes, a.dram_bytes, a.host_bytes, a.local_bytes, "
    "a.requested_bytes,\n"
    "  a.useful_bytes, a.floor_ns, a.floor_measured_ns,\n"
    "  a.floored_total_ns / NULLIF(a.floor_total_ns, 0), a.floored_total_ns / "
    "NULLIF(a.floor_measured_total_ns, 0),\n"
    "  (SELECT c.bound_tier FROM temp.cfg c WHERE c.kernel_id = k.id AND c.bound_tier IS NOT NULL\n"
    "     ORDER BY c.total_ns DESC LIMIT 1),\n"
    "  a.theoretical_occupancy_pct, a.achieved_occupancy_pct,\n"
    "  (SELECT c.occupancy_limiter FROM temp.cfg c WHERE c.kernel_id = k.id\n"
    "     ORDER BY c.achieved_occupancy_pct IS NOT NULL DESC, c.total_ns DESC LIMIT 1),\n"
    "  (SELECT COUNT(*) FROM main.finding f WHERE f.kernel_id = k.id),\n"
    "  (SELECT f.severity FROM main.finding f WHERE f.kernel_id = k.id\n"
    "     ORDER BY CASE f.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END LIMIT 1),\n"
    "  (SELECT f.rule_id FROM main.finding f WHERE f.kernel_id = k.id ORDER BY f.rank LIMIT 1),\n"
    "  (SELECT COALESCE(SUM(f.time_lost_ns), 0) FROM main.finding f WHERE f.kernel_id = k.id)\n"
    "FROM main.kernel k\n"
    "LEFT JOIN (SELECT kernel_id, SUM(launches) AS launches, SUM(profiled_launches) AS profiled,\n"
    "    SUM(total_ns) AS total_ns, MIN(min_ns) AS min_ns, MAX(max_ns) AS max_ns\n"
    "  FROM temp.lstat2 GROUP BY kernel_id) s ON s.kernel_id = k.id\n"
    "LEFT JOIN (SELECT kernel_id,\n"
    "    SUM(shared_bytes * launches) / NULLIF(SUM(CASE WHEN shared_bytes IS NOT NULL THEN "
    "launches END), 0) AS shared_bytes,\n"
    "    SUM(l1_bytes * launches) / NULLIF(SUM(CASE WHEN l1_bytes IS NOT NULL THEN launches END), "
    "0) AS l1_bytes,\n"
    "    SUM(l2_bytes * launches) / NULLIF(SUM(CASE WHEN l2_bytes IS NOT NULL THEN launches END), "
    "0) AS l2_bytes,\n"
    "    SUM(dram_bytes * launches) / NULLIF(SUM(CASE WHEN dram_bytes IS NOT NULL THEN launches "
    "END), 0) AS dram_bytes,\n"
    "    SUM(host_bytes * launches) / NULLIF(SUM(CASE WHEN host_bytes IS NOT NULL THEN launches "
    "END), 0) AS host_bytes,\n"
    "    SUM(local_bytes * launches) / NULLIF(SUM(CASE WHEN local_bytes IS NOT NULL THEN launches "
    "END), 0) AS local_bytes,\n"
    "    SUM(requested_bytes * launches) / NULLIF(SUM(CASE WHEN requested_bytes IS NOT NULL THEN "
    "launches END), 0) AS requested_bytes,\n"
    "    SUM(useful_bytes * launches) / NULLIF(SUM(CASE WHEN useful_bytes IS NOT NULL THEN "
    "launches END), 0) AS useful_bytes,\n"
    "    SUM(floor_ns * launches) / NULLIF(SUM(CASE WHEN floor_ns IS NOT NULL THEN launches END), "
    "0) AS floor_ns,\n"
    "    SUM(floor_measured_ns * launches) / NULLIF(SUM(CASE WHEN floor_measured_ns IS NOT NULL "
    "THEN launches END), 0) AS floor_measured_ns,\n"
    "    SUM(CASE WHEN floor_ns > 0 THEN total_ns END) AS floored_total_ns,\n"
    "    SUM(CASE WHEN floor_ns > 0 THEN floor_ns * launches END) AS floor_total_ns,\n"
    "    SUM(CASE WHEN floor_measured_ns > 0 THEN floor_measured_ns * launches END) AS "
    "floor_measured_total_ns,\n"
    /*
     * theoretical over the configurations achieved comes from (the profiled
     * ones) when there are any, so that the two describe the same launches
     * (an XLA GEMM read 59.4 % theoretical over 8 configurations beside
     * 78.6 % achieved on the one profiled, at 100 %); else over all
     */
    "    COALESCE(SUM(CASE WHEN achieved_occupancy_pct IS NOT NULL THEN theoretical_occupancy_pct "
    "* "
    "launches END) / NULLIF(SUM(CASE WHEN achieved_occupancy_pct IS NOT NULL AND "
    "theoretical_occupancy_pct IS NOT NULL THEN launches END), 0),\n"
    "      SUM(theoretical_occupancy_pct * launches) / NULLIF(SUM(CASE WHEN "
    "theoretical_occupancy_pct IS NOT NULL THEN launches END), 0)) AS theoretical_occupancy_pct,\n"
    "    SUM(achieved_occupancy_pct * launches) / NULLIF(SUM(CASE WHEN achieved_occupancy_pct IS "
    "NOT NULL THEN launches END), 0) AS achieved_occupancy_pct\n"
    "  FROM temp.cfg GROUP BY kernel_id) a ON a.kernel_id = k.id\n"
    "ORDER BY k.id";

/*
 * kernel_summary.one_time (added after the table): a report analyzed by an
 * older build has the table without it, and gets it here.
 */
static int
summary_one_time_column(sqlite3 *db)
{
    int has = report_has_column(db, "kernel_summary", "one_time");
    if (has < 0)
        return -1;
    if (!has && store_exec(db, "ALTER TABLE main.kernel_summary ADD COLUMN one_time INTEGER"))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot add kernel_summary.one_time: %s",
                       store_error());
    return 0;
}

int
an_write_summaries(sqlite3 *db, double run_gpu_ns)
{
    if (summary_one_time_column(db))
        return -1;
    const char *sqls[] = {summary_config_sql, summary_kernel_sql};
    for (size_t i = 0; i < 2; i++) {
        sqlite3_stmt *st = NULL;
        if (store_prepare(db, sqls[i], &st))
            return an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
        sqlite3_bind_double(st, sqlite3_bind_parameter_index(st, ":run_ns"), run_gpu_ns);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return an_fail(ANALYZER_ERR_INTERNAL, "cannot write kernel summaries: %s",
                           sqlite3_errstr(rc));
    }
    /*
     * Waiting configurations (temp.waiting, filled by the engine from a
     * `marks: waiting` rule) are bound by the wait, and their time is not
     * in the run's GPU time, so they have no share of it, and no distance
     * to a floor: their time is the wait's, not the bytes' (XLA's
     * DelayKernel read 507x its floor in a JAX report); a kernel is
     * waiting when all its configurations are.
     */
    sqlite3_stmt *w = NULL;
    if (store_prepare(db, "SELECT 1 FROM temp.sqlite_master WHERE name = 'waiting'", &w))
        return an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
    int has_waiting = sqlite3_step(w) == SQLITE_ROW;
    sqlite3_finalize(w);
    if (has_waiting &&
        store_exec(db, "UPDATE main.kernel_summary SET bound_tier = 'waiting', share_pct = NULL,"
                       " floor_ratio = NULL, floor_ratio_measured = NULL"
                       " WHERE config_id IN (SELECT config_id FROM temp.waiting)"
                       " OR (config_id IS NULL AND kernel_id IN (SELECT c.kernel_id FROM temp.cfg c"
                       "   GROUP BY c.kernel_id HAVING SUM(c.config_id NOT IN"
                       "   (SELECT config_id FROM temp.waiting)) = 0))"))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot mark waiting kernels: %s", store_error());
    /* one-time set-up: the configuration's (temp.cfg), a kernel's when all its configurations are */
    if (store_exec(db, "UPDATE main.kernel_summary SET one_time = CASE WHEN config_id IS NOT NULL"
                       " THEN (SELECT c.one_time FROM temp.cfg c WHERE c.config_id ="
                       "   kernel_summary.config_id AND c.kernel_id = kernel_summary.kernel_id)"
                       " ELSE (SELECT MIN(c.one_time) FROM temp.cfg c"
                       "   WHERE c.kernel_id = kernel_summary.kernel_id) END"))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot mark one-time set-up: %s", store_error());
    return 0;
}
