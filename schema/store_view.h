/* SPDX-License-Identifier: MIT */
/*
 * store_view: run one of schema.sql's documented views as this build
 * defines it, whatever the report holds.
 *
 * A view added to schema.sql after a report was recorded is absent from
 * that report (schema.sql "Compatibility"), and a report's own copy of a
 * view is the definition of the build that recorded it. A reader that
 * must apply this build's rule (the analyzer's set-aside profiles,
 * v_profile) takes the view's SELECT from the compiled schema instead,
 * as a subquery: schema.sql stays the one place the rule is written, and
 * read-only connections need no temporary view (PRAGMA query_only refuses
 * to create one).
 *
 * Errors: NULL with the message in store_error(). Nothing here aborts.
 */
#ifndef GPUHIER_SCHEMA_STORE_VIEW_H
#define GPUHIER_SCHEMA_STORE_VIEW_H

/*
 * The query `head` "(" SELECT ")" `tail`, where SELECT is the body of
 * `CREATE VIEW name AS ...` in this build's schema.sql (its text after
 * AS, without the final semicolon). The view's tables are named without
 * a schema, so they resolve as in the view itself. For example
 * store_view_query("v_profile", "SELECT count(*) FROM ", " WHERE set_aside")
 * counts the profiles set aside.
 * Returns a new string (free()), or NULL when the schema has no such view
 * or memory ran out. `name`, `head` and `tail` are borrowed.
 */
char *store_view_query(const char *name, const char *head, const char *tail);

#include <sqlite3.h>

/*
 * Counter coverage by kernel time (issue 18; docs/analyzer.md "Coverage"),
 * over each configuration's time (STORE_CONFIG_NS: the analysis's once
 * analyzed, else the traced config.total_ns):
 *   pattern:  the configuration has pattern counters, exact per
 *             instruction (an inst_launch row) or, failing that, the
 *             range profiler's global load sectors
 *             (l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum) in a profile
 *             that is not set aside (v_profile);
 *   hardware: it has at least one state counter (STORE_STATE_COUNTERS:
 *             DRAM bytes read, L2 sector hits, L2 sector misses, L1 hit
 *             rate, achieved occupancy) in such a profile, complete or partial;
 *   complete: it has all five.
 * Configurations an analysis found waiting (kernel_summary.bound_tier
 * 'waiting': a delay or spin kernel, not work) are left out of the time
 * and counted in waiting_ns, as the analysis leaves them out of the run's
 * GPU time; a report never analyzed counts every configuration.
 * groups_partial counts the configurations profiled in one-pass groups
 * that miss some of their plan's groups (store_groups_missing()).
 * When the analysis found one-time set-up (kernel_summary.one_time, docs/
 * analyzer.md "One-time set-up"), repeated_* give the same shares over the
 * repeated work alone (set-up and waiting configurations left out): what
 * the counters say of the program's loop, which a JAX program's autotuning
 * candidates otherwise outweigh.
 * graph_only: a configuration without counters whose every launch was a
 * kernel node of a CUDA graph (launch.graph_id set): the range profiler
 * never serves graph nodes, the instrumentation engine only those of the
 * graphs whose instantiation it armed (docs/collector.md "Graphs"), so no
 * sampling choice could cover that time.
 * deferred: a configuration of the repeated work (not waiting, not
 * set-up) without hardware counters, a launch of which was chosen and
 * deferred (launch.profile_reason 'profile_budget': the budget, or a
 * one-pass group waiting for its run): a sampling choice left that time
 * without them, which `--sample all` would not. deferred_pct is of the
 * repeated work's time when setup_counts, else of gpu_ns.
 */
struct store_coverage {
    long long configs; /* configurations in all */
    long long pattern_configs, hardware_configs, complete_configs, groups_partial;
    long long graph_only_configs; /* no counters, every launch a graph kernel node */
    double gpu_ns;     /* the configurations' time (STORE_CONFIG_NS), less the waiting ones' */
    double waiting_ns; /* the time of configurations an analysis found waiting (left out) */
    double pattern_pct, hardware_pct, complete_pct; /* of gpu_ns, 0..100; 0 without time */
    double graph_only_pct;                          /* of gpu_ns, the graph_only configurations' */
    long long deferred_configs; /* no hardware counters, a launch deferred ('profile_budget') */
    double deferred_pct;        /* the deferred configurations', of repeated_ns or gpu_ns */
    int deferred_counts; /* deferred_pct reaches STORE_DEFERRED_HINT_PCT: worth a line (a note) */
    long long setup_configs; /* one-time set-up configurations (0: none found, or not analyzed) */
    double repeated_ns;      /* gpu_ns less the set-up's; 0 when setup_configs is 0 */
    double repeated_pattern_pct, repeated_hardware_pct; /* of repeated_ns, 0..100 */
    int setup_counts; /* the set-up holds at least 1 % of gpu_ns: the second pair says more */
};
#define STORE_STATE_COUNTERS                                                                       \
    "'dram__bytes_read.sum', 'lts__t_sectors_lookup_hit.sum', 'lts__t_sectors_lookup_miss.sum', "  \
    "'l1tex__t_sector_hit_rate.pct', 'sm__warps_active.avg.pct_of_peak_sustained_active'"

/*
 * The share of the time (deferred_pct) from which the run's summary, the
 * report, the TUI and `gpuhier analyze` say that deferred configurations
 * lack hardware counters and how to give them some (deferred_counts).
 */
#define STORE_DEFERRED_HINT_PCT 10.0

/* Why deferred configurations have no hardware counters, as `gpuhier run` and `gpuhier analyze` say it. */
#define STORE_DEFERRED_WHY                                                                         \
    "the profiling budget, or a one-pass group waiting for its run: a program that rarely "        \
    "repeats a configuration; docs/sampling.md"

/* Fills *c (zeroed first). 0, or -1 with the message. Reads profiles and the launches' reasons. */
int store_counter_coverage(sqlite3 *db, struct store_coverage *c);

/*
 * The query of one-pass group coverage per configuration: this build's
 * v_config_groups (schema.sql) with this build's v_profile, whatever the
 * report holds, as `head` (SELECT ...) `tail`. A new string (free()), or
 * NULL with the message.
 */
char *store_groups_query(const char *head, const char *tail);

/*
 * `head` + the body of the per-instruction view `view` (v_inst or one that
 * reads it: v_inst_config, v_inst_line) + `tail`, its counts restricted to
 * the instrumented launches `filter` selects (an SQL condition on
 * inst_launch's columns): the statement shadows inst_launch and v_inst
 * with CTEs of this build's definitions, so only those launches are
 * pivoted. Reading the views as they are pivots every count of the report
 * (SQLite does not push a condition into the grouped pivot), and a
 * read-only connection cannot materialize them as the analyzer does. A
 * new string (free()), or NULL with the message.
 */
char *store_inst_query(const char *filter, const char *view, const char *head, const char *tail);

#endif
