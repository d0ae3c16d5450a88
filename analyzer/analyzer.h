/* SPDX-License-Identifier: MIT */
/*
 * analyzer: applies the memory-hierarchy rules (data files in rules/, one
 * rule per file, format in docs/rules.md) to a gpuhier report and writes
 * the analysis tables of schema.sql section 4: analysis, rule_run,
 * finding, finding_evidence, finding_object, kernel_summary.
 *
 * The C code only loads rule files, binds their thresholds, runs their
 * queries on a read-only connection, caps, ranks and writes. What a rule
 * means lives in its file. It never touches CUDA or CUPTI and never exits.
 *
 * Errors: functions return 0 / non-NULL on success, -1 / NULL on failure;
 * the message is read with analyzer_error() and the kind of failure with
 * analyzer_failure() (callers map it to an exit code).
 * Not thread-safe across calls on the same connection; the error state is
 * per thread.
 */
#ifndef GPUHIER_ANALYZER_ANALYZER_H
#define GPUHIER_ANALYZER_ANALYZER_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

struct analyzer_opts {
    const char *rules_dir; /* NULL: the default rules/ (see analyzer_default_rules_dir()) */
};

/* Why the last call of this thread failed. */
enum analyzer_failure {
    ANALYZER_OK = 0,
    ANALYZER_ERR_RULES, /* a rule file is missing, unreadable or broken (message names file:line) */
    ANALYZER_ERR_REPORT,   /* the report cannot be opened or read (see store_failure() for why) */
    ANALYZER_ERR_INTERNAL, /* an SQL error in our own statements: a bug */
};

/*
 * Analyze the open, writable report `db`: replaces the analysis tables'
 * rows (and only those) with the findings and kernel summaries of the
 * current rule set, in one transaction. Other tables are never written.
 * `o` may be NULL (defaults). Returns 0 or -1.
 */
int analyzer_analyze(sqlite3 *db, const struct analyzer_opts *o);

/*
 * Open a report for reading. If it was analyzed by the current rule set,
 * returns a read-only connection to the file itself; otherwise (never
 * analyzed, or an older rule set) returns an analyzed in-memory copy.
 * Never modifies the file, so reports in read-only places work.
 * On success *out is a new connection (sqlite3_close() it); on failure
 * *out is NULL and analyzer_failure() says why.
 */
int analyzer_open_report(const char *path, const struct analyzer_opts *o, sqlite3 **out);

/*
 * Print the `n` top-ranked findings of an analyzed report as a table
 * (the one `gpuhier run` ends with). Notes with no time lost are left out
 * unless `all` (docs/severity.md). Untrusted strings go through the
 * export sanitizer. Returns 0 or -1.
 */
int analyzer_print_top(sqlite3 *db, FILE *f, int n, int all);

/*
 * Profiled launches left out of their configuration's counters because
 * they did other work than its first profiled launch (warp instructions or
 * global sectors more than 1 % apart; docs/analyzer.md): *profiles of them,
 * over *configs configurations. Reads the report only. 0, or -1 with
 * analyzer_error() set.
 */
int analyzer_profiles_set_aside(sqlite3 *db, long long *profiles, long long *configs);

/*
 * Configurations profiled in one-pass groups that did not get every group
 * of their plan (schema.sql v_config_groups: launched fewer times than
 * there are groups, their later groups deferred by the budget, or a group
 * set aside): *configs of them, holding *gpu_pct % of the traced kernel
 * time (config.total_ns). The counters of their missing groups are NULL
 * and the rules that read them do not judge them (docs/analyzer.md
 * "One-pass groups"). Reads the report only. 0, or -1 with
 * analyzer_error() set.
 */
int analyzer_groups_missing(sqlite3 *db, long long *configs, double *gpu_pct);

/*
 * Version of the rule set in `o->rules_dir`: a hex hash of the rule files'
 * names and contents. Returns a new string (free()) or NULL.
 */
char *analyzer_ruleset_version(const struct analyzer_opts *o);

/*
 * The rules directory used when opts->rules_dir is NULL: $GPUHIER_RULES_DIR,
 * then $GPUHIER_DATA_DIR/rules, then rules/ beside or above the running
 * executable (build tree, <prefix>/share/gpuhier), then the source tree.
 * Returns a new string (free()) or NULL when none exists.
 */
char *analyzer_default_rules_dir(void);

/* ------------------------------------------------------------------ */
/* Rule files, for `gpuhier rules` and `rules explain`                  */
/* ------------------------------------------------------------------ */

struct rule_threshold {
    char *name; /* bound as :name in the query */
    double value;
    char *unit; /* may be NULL */
    char *why;  /* justification (where the value comes from) */
    int line;   /* line in the rule file */
};

/* One `requires:` item: a metric the report must hold, or a column that must be non-NULL somewhere. */
struct rule_require {
    char *
        kind; /* 'metric' (a metric_name row with values), 'counts-or-metric' (per-instruction counts, inst_count, else the metric), 'optional' (a metric read when present: never unmet), 'column' ('table.column' with a non-NULL value) or 'profiled'; `gpuhier run` collects the names of the first three (analyzer_rule_metrics()) */
    char *name; /* metric or table.column; NULL for 'profiled' */
    int line;
};

/* One `evidence:` line: a query column shown with the finding. */
struct rule_evidence {
    char *column;    /* query column */
    char *unit;      /* display unit, may be NULL */
    char *op;        /* '<', '<=', '>', '>=' or NULL (informative) */
    char *threshold; /* threshold name compared with, or NULL */
    int line;
};

struct rule {
    char *path; /* file it was read from */
    char *id;   /* e.g. 'l2-reread-miss' (the file name without .rule) */
    char *title;
    char *tier;      /* 'registers', 'shared', 'l1', 'l2', 'dram', 'host' */
    char *doc;       /* section of the documents */
    char *severity;  /* override ('error', 'warning', 'note') or NULL: from share of time */
    char *capping;   /* 'normal' (default), 'residual' (gets what other findings leave), 'none' */
    char *estimate;  /* how strong the time estimate is: 'exact' (counts at hardware rates), 'bound'
                      * (an upper bound of the saving), 'model' (a rule of thumb; default);
                      * only 'exact' findings can be errors (docs/severity.md) */
    char *marks;     /* 'waiting' or NULL: the configurations this rule finds wait instead of
                      * working; no other rule judges them and their time is not the run's work */
    char *lines;     /* 'KIND UNIT' or NULL: each finding names the configuration's worst source
                      * lines by v_inst_line's KIND_excess (finding_line, docs/rules.md) */
    char *rationale; /* free text */
    struct rule_require *requires;
    size_t n_requires;
    struct rule_threshold *thresholds;
    size_t n_thresholds;
    char *query;   /* SQL selecting candidates and evidence columns */
    char *message; /* template, {column} / {column:fmt} placeholders */
    char *remedy;  /* template */
    struct rule_evidence *evidence;
    size_t n_evidence;
    int query_line, message_line, remedy_line; /* where they start in the file */
    char *text;                                /* the whole file, for `rules explain` */
};

struct ruleset {
    char *dir;
    char *version; /* hash of the files */
    struct rule *rules;
    size_t n;
};

/*
 * Load every *.rule file of `dir` (NULL: default), sorted by file name.
 * Returns a new rule set (free with ruleset_free()) or NULL with a message
 * naming file:line.
 */
struct ruleset *ruleset_load(const char *dir);

/* Find a rule by id; NULL if absent. The rule is owned by `rs`. */
const struct rule *ruleset_find(const struct ruleset *rs, const char *id);

/* Free a rule set; NULL is a no-op. */
void ruleset_free(struct ruleset *rs);

/* A metric a rule asks for that the catalogue's sets do not collect. */
struct rule_metric {
    const char *name;        /* borrowed from the rule set */
    const struct rule *rule; /* the first rule asking for it */
    int line;                /* its `requires:` line */
    int in_catalogue;        /* 1: schema/metrics.catalogue lists it (collected only when asked) */
};

/*
 * What `gpuhier run` collects for the rules of `rs` beyond the metric
 * catalogue's core, tie and group sets (docs/rules.md "requires"): every
 * name of a `requires: metric`, `counts-or-metric` or `optional` line that
 * schema/catalogue.h does not collect by itself, once, in rule order.
 * Fills up to `max` entries of out[]; returns how many there are in all.
 */
size_t analyzer_rule_metrics(const struct ruleset *rs, struct rule_metric *out, size_t max);

/* The last error message of this thread (static buffer, never NULL). */
const char *analyzer_error(void);

/* Why the last failed call of this thread failed. */
enum analyzer_failure analyzer_failure(void);

#endif
