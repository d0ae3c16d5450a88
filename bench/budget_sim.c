/* SPDX-License-Identifier: MIT */
/*
 * bench/budget_sim.c: which configurations does --profile-budget profile?
 * A model, replayed offline on a recorded trace-mode report.
 *
 *   budget_sim REPORT [PCT...]
 *
 * The launches of REPORT (a `gpuhier run --mode trace` report: every
 * launch has its GPU times) go, in API order (correlation id), through
 * the collector's own decision code (collector/sampling.c) under
 * --profile-budget PCT, twice:
 *
 *   first-come: the budget test alone (sampling_budget_allows(), the
 *     collector before 2026-11-30): any chosen launch is profiled while
 *     profiling is within budget;
 *   by GPU time: the collector since 2026-11-30: a chosen launch is
 *     profiled only if its configuration has GPU time recorded and fewer
 *     than sampling_budget_slots() waiting configurations took more.
 *
 * The model (stated, not measured here): the program's clock is the
 * report's own timeline (the collector's start, run.start_ns, then each
 * launch at its kernel's GPU start), delayed by the profiling done so
 * far; a profile costs 0.8 s for the process's first and 0.2 s after
 * (measured on the H200, docs/metrics.md); a kernel's GPU time reaches
 * the sampler 0.5 s after it ended (the collector's flush period) or at
 * the forced flush after each profile. A profiled launch has no GPU time
 * of its own (its record never completes), as in the collector.
 *
 * Prints, per budget and policy: profiles, configurations profiled, the
 * share of the report's GPU time in profiled configurations (what the
 * profiles can explain) and in as many of the heaviest configurations (the
 * most that many profiles could reach), profiling time and the modelled
 * run time against the trace's. docs/sampling.md holds a run.
 */
#include "collector/sampling.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_PROFILE_NS 800000000LL
#define PROFILE_NS 200000000LL
#define FEED_DELAY_NS 500000000LL

struct launch {
    char *name;
    uint32_t grid[3], block[3], smem;
    int64_t start, end; /* report's GPU times */
    long config;        /* report's config id */
};

struct trace {
    struct launch *l;
    size_t n;
    int64_t run_start, run_end, total_gpu;
    long max_config;
    int64_t *config_gpu; /* per config id */
};

static int
load(const char *path, struct trace *t)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    memset(t, 0, sizeof(*t));
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "budget_sim: cannot open %s\n", path);
        return -1;
    }
    if (sqlite3_prepare_v2(db, "SELECT start_ns, end_ns FROM run", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        fprintf(stderr, "budget_sim: %s has no run row\n", path);
        sqlite3_close(db);
        return -1;
    }
    t->run_start = sqlite3_column_int64(st, 0);
    t->run_end = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    const char *sql = "SELECT k.mangled_name, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y,"
                      " c.block_z, c.dynamic_smem_bytes, l.start_ns, l.end_ns, c.id"
                      " FROM launch l JOIN config c ON c.id = l.config_id"
                      " JOIN kernel k ON k.id = l.kernel_id"
                      " WHERE l.start_ns IS NOT NULL AND l.end_ns > l.start_ns"
                      " ORDER BY l.correlation_id";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "budget_sim: %s: %s\n", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (t->n == cap) {
            cap = cap ? 2 * cap : 4096;
            t->l = realloc(t->l, cap * sizeof(*t->l));
            if (!t->l)
                abort();
        }
        struct launch *l = &t->l[t->n++];
        l->name = strdup((const char *)sqlite3_column_text(st, 0));
        for (int i = 0; i < 3; i++) {
            l->grid[i] = (uint32_t)sqlite3_column_int64(st, 1 + i);
            l->block[i] = (uint32_t)sqlite3_column_int64(st, 4 + i);
        }
        l->smem = (uint32_t)sqlite3_column_int64(st, 7);
        l->start = sqlite3_column_int64(st, 8);
        l->end = sqlite3_column_int64(st, 9);
        l->config = (long)sqlite3_column_int64(st, 10);
        if (l->config > t->max_config)
            t->max_config = l->config;
        t->total_gpu += l->end - l->start;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    t->config_gpu = calloc((size_t)t->max_config + 1, sizeof(*t->config_gpu));
    if (!t->config_gpu)
        abort();
    for (size_t i = 0; i < t->n; i++)
        t->config_gpu[t->l[i].config] += t->l[i].end - t->l[i].start;
    if (!t->n || !t->run_start) {
        fprintf(stderr, "budget_sim: %s has no traced launch with GPU times\n", path);
        return -1;
    }
    return 0;
}

static void
trace_free(struct trace *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->l[i].name);
    free(t->l);
    free(t->config_gpu);
    memset(t, 0, sizeof(*t));
}

static struct sampling_launch
as_launch(const struct launch *l)
{
    struct sampling_launch s = {.mangled = l->name, .dynamic_smem_bytes = l->smem};
    memcpy(s.grid, l->grid, sizeof(s.grid));
    memcpy(s.block, l->block, sizeof(s.block));
    return s;
}

struct result {
    long profiles, configs;
    double coverage_pct, best_pct, profiling_s, run_s;
};

static int
cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The share of GPU time the `n` heaviest configurations hold: what n profiles could reach. */
static double
best_pct(const struct trace *t, long n)
{
    int64_t *v = malloc(((size_t)t->max_config + 1) * sizeof(*v));
    if (!v)
        abort();
    memcpy(v, t->config_gpu, ((size_t)t->max_config + 1) * sizeof(*v));
    qsort(v, (size_t)t->max_config + 1, sizeof(*v), cmp_desc);
    int64_t sum = 0;
    for (long i = 0; i < n && i <= t->max_config; i++)
        sum += v[i];
    free(v);
    return 100.0 * (double)sum / (double)t->total_gpu;
}

/* One replay of `t` under --profile-budget pct; by_time selects the policy. */
static int
replay(const struct trace *t, double pct, int by_time, struct result *r)
{
    struct sampling s;
    struct sampling_opts o = SAMPLING_OPTS_INIT;
    o.budget_pct = by_time ? pct : 0; /* first-come: the budget test is the caller's only */
    char err[256];
    if (sampling_init(&s, &o, 0, err, sizeof(err))) {
        fprintf(stderr, "budget_sim: %s\n", err);
        return -1;
    }
    char *profiled = calloc((size_t)t->max_config + 1, 1);
    char *fed = calloc(t->n, 1);
    if (!profiled || !fed)
        abort();
    memset(r, 0, sizeof(*r));
    int64_t profiling = 0;
    size_t next_feed = 0; /* launches before it were fed (or profiled) */
    for (size_t i = 0; i < t->n; i++) {
        const struct launch *l = &t->l[i];
        /* the program's clock at this launch: its trace time, delayed by profiling */
        int64_t now = l->start + profiling;
        /* kernels that ended FEED_DELAY before now reach the sampler */
        while (next_feed < i && t->l[next_feed].end + FEED_DELAY_NS <= now) {
            if (!fed[next_feed]) {
                struct sampling_launch f = as_launch(&t->l[next_feed]);
                sampling_add_gpu_time(&s, &f, t->l[next_feed].end - t->l[next_feed].start);
                fed[next_feed] = 1;
            }
            next_feed++;
        }
        struct sampling_launch sl = as_launch(l);
        int64_t elapsed = now - t->run_start;
        if (by_time) {
            sl.budget_slots = sampling_budget_slots(pct, profiling, elapsed, r->profiles);
            sl.over_budget = sl.budget_slots == 0;
        } else {
            sl.over_budget = !sampling_budget_allows(pct, profiling, elapsed);
        }
        const char *why;
        unsigned ex;
        if (sampling_decide_ex(&s, &sl, &why, NULL, &ex) != NULL) {
            continue;
        }
        /* profiled: no GPU time of its own; the forced flush feeds what has ended */
        fed[i] = 1;
        profiling += r->profiles ? PROFILE_NS : FIRST_PROFILE_NS;
        r->profiles++;
        if (!profiled[l->config]) {
            profiled[l->config] = 1;
            r->configs++;
        }
        for (size_t j = next_feed; j < i; j++) {
            if (!fed[j]) {
                struct sampling_launch f = as_launch(&t->l[j]);
                sampling_add_gpu_time(&s, &f, t->l[j].end - t->l[j].start);
                fed[j] = 1;
            }
        }
        next_feed = i;
    }
    int64_t covered = 0;
    for (long c = 0; c <= t->max_config; c++)
        if (profiled[c])
            covered += t->config_gpu[c];
    r->coverage_pct = 100.0 * (double)covered / (double)t->total_gpu;
    r->best_pct = best_pct(t, r->configs);
    r->profiling_s = (double)profiling / 1e9;
    r->run_s = (double)(t->run_end - t->run_start + profiling) / 1e9;
    free(profiled);
    free(fed);
    sampling_release(&s);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: budget_sim TRACE_REPORT [PCT...]\n");
        return 2;
    }
    struct trace t;
    if (load(argv[1], &t)) {
        trace_free(&t);
        return 1;
    }
    double trace_s = (double)(t.run_end - t.run_start) / 1e9;
    long configs = 0;
    for (long c = 0; c <= t.max_config; c++)
        configs += t.config_gpu[c] > 0;
    printf("%s: %zu launches with GPU times, %ld configurations, %.1f ms of GPU time, "
           "collector's run %.2f s\n\n",
           argv[1], t.n, configs, (double)t.total_gpu / 1e6, trace_s);
    printf("| budget | policy | profiles | configurations | GPU time in profiled configurations "
           "| in as many of the heaviest | profiling | modelled run / trace run |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    static const double defaults[] = {10, 30, 100};
    int npct = argc > 2 ? argc - 2 : 3;
    for (int k = 0; k < npct; k++) {
        double pct = argc > 2 ? strtod(argv[2 + k], NULL) : defaults[k];
        for (int by_time = 0; by_time <= 1; by_time++) {
            struct result r;
            if (replay(&t, pct, by_time, &r)) {
                trace_free(&t);
                return 1;
            }
            printf("| %g %% | %s | %ld | %ld | %.1f %% | %.1f %% | %.2f s | %.2fx |\n", pct,
                   by_time ? "by GPU time" : "first-come", r.profiles, r.configs, r.coverage_pct,
                   r.best_pct, r.profiling_s, r.run_s / trace_s);
        }
    }
    trace_free(&t);
    return 0;
}
