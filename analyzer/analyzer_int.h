/* SPDX-License-Identifier: MIT */
/*
 * analyzer_int.h: what the analyzer's files share and outsiders must not
 * use: the error state, the prepared analysis context, the rule runner.
 */
#ifndef GPUHIER_ANALYZER_ANALYZER_INT_H
#define GPUHIER_ANALYZER_ANALYZER_INT_H

#include "analyzer/analyzer.h"

#include <stdarg.h>

/* Set the error of this thread (printf-style); always returns -1. */
int an_fail(enum analyzer_failure f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Allocation that aborts on failure (STYLE.md §4.9). */
void *an_xmalloc(size_t n);
void *an_xcalloc(size_t n, size_t size);
void *an_xrealloc(void *p, size_t n);
char *an_xstrdup(const char *s);

/*
 * Build the temporary tables rules query (temp.v_profiled, temp.cfg,
 * temp.lstat; docs/rules.md documents them) on `db`. They shadow the
 * report's views of the same name for the duration of the analysis.
 * Returns 0 or -1.
 */
int an_prepare(sqlite3 *db);

/*
 * Materialize temp.v_profiled (the report's pivot, one row per profiled
 * launch), only when a rule's query names it: it costs more than all the
 * rest of the preparation together.
 */
int an_prepare_profiled(sqlite3 *db);

/* Drop what an_prepare() created. */
void an_unprepare(sqlite3 *db);

/* Run GPU time (kernels + copies, ns) after an_prepare(); -1 on error. */
double an_run_gpu_ns(sqlite3 *db);

/*
 * The program's wall time (ns): the run's span minus the profiler's own
 * time (profile.overhead_ns), which the program does not spend without
 * gpuhier; -1 when the report lacks the span (a crash, a synthetic report).
 */
double an_run_wall_ns(sqlite3 *db);

/* Write kernel_summary rows from temp.cfg/temp.lstat and the findings. */
int an_write_summaries(sqlite3 *db, double run_gpu_ns);

/*
 * Switch `db` into the read-only guard rule queries run under
 * (PRAGMA query_only plus an authorizer refusing writes, ATTACH, DETACH,
 * PRAGMA and transactions) and back.
 */
int an_guard_on(sqlite3 *db);
void an_guard_off(sqlite3 *db);

/*
 * Across ranks (ranks.c), for a merged job report. an_ranks_present():
 * 1 when `db` is one (job_rank rows and the rank tables), else 0.
 * an_ranks_prepare(): after the waiting kernels are known, builds
 * temp.rank_gpu (rank, gpu_ns, wall_ns: each rank's part of the run's
 * GPU time and its wall time) and temp.comm_kernel; an_ranks_write():
 * after the kernel summaries and rank_finding, writes rank_kernel and
 * rank_summary. 0 or -1; an_ranks_unprepare() drops the temp tables.
 */
int an_ranks_present(sqlite3 *db);
int an_ranks_prepare(sqlite3 *db);
int an_ranks_write(sqlite3 *db);
void an_ranks_unprepare(sqlite3 *db);

/* GPUHIER_ANALYZE_TIMING=1: print the wall time since the last call, labelled `what` (NULL: reset). */
void an_lap(const char *what);

/* FNV-1a 64-bit, for the rule-set version. */
unsigned long long an_fnv1a(unsigned long long h, const void *p, size_t n);

#endif
