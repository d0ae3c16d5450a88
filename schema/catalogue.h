/* SPDX-License-Identifier: MIT */
/*
 * catalogue: the metric catalogue (schema/metrics.catalogue) as C tables,
 * and the evaluator of its triggers.
 *
 * The tables are generated at build time (schema/catalogue_gen.c writes
 * catalogue_data.c in the build tree); nothing here is written by hand.
 * The collector builds its metric sets from them (collector/metrics.c),
 * `gpuhier run` looks up which names a rule needs beyond them, and the
 * view v_profiled of schema.sql is generated from the same file. The
 * format and the meaning of each field are in the catalogue's header and
 * docs/metrics.md "The metric catalogue".
 */
#ifndef GPUHIER_SCHEMA_CATALOGUE_H
#define GPUHIER_SCHEMA_CATALOGUE_H
#include <stddef.h>

/* The most extra groups a catalogue may declare (a group is a bit of an unsigned mask). */
#define CATALOGUE_MAX_GROUPS 8

/* struct catalogue_metric.sets: the core and tie sets, then group i as 1 << i. */
#define CATALOGUE_SET_CORE (1u << 31)
#define CATALOGUE_SET_TIE (1u << 30)

struct catalogue_metric {
    const char *name;   /* Perfworks name, e.g. "dram__bytes_read.sum" */
    const char *engine; /* "rangeprof" or "sass" */
    unsigned sets;      /* CATALOGUE_SET_CORE, CATALOGUE_SET_TIE, group bits; 0: only when asked */
    int bundle;         /* index in catalogue_bundles, or -1 */
    const char *column; /* v_profiled column, or NULL */
    const char *unit;   /* ns, pct, cycles, bytes, sectors, inst, requests, wavefronts, conflicts */
    const char *what;
};

/* An extra group: its names in catalogue order, and the triggers that ask for it (any true). */
struct catalogue_group {
    const char *name; /* short name, as in profile.metric_set ("tma") */
    const char *what;
    const char *const *names;
    size_t n;
    const char *const *triggers; /* catalogue_eval() expressions */
    size_t ntriggers;
};

/* A one-pass state bundle, in priority order. */
struct catalogue_bundle {
    const char *name;
    const char *what;
    const char *const *names;
    size_t n;
};

extern const struct catalogue_metric catalogue_metrics[];
extern const size_t catalogue_nmetrics;
extern const char *const catalogue_core[]; /* the core set, in order */
extern const size_t catalogue_ncore;
extern const char *const catalogue_tie[]; /* the tie set, in order */
extern const size_t catalogue_ntie;
extern const struct catalogue_group catalogue_groups[]; /* group i is flag 1 << i */
extern const size_t catalogue_ngroups;
extern const struct catalogue_bundle catalogue_bundles[];
extern const size_t catalogue_nbundles;

/* The metric named `name`, or NULL. */
const struct catalogue_metric *catalogue_find(const char *name);

/* The metric whose v_profiled column is `column`, or NULL. */
const struct catalogue_metric *catalogue_find_column(const char *column);

/* Is `name` collected without being asked for: in the core, the tie set or a group? */
int catalogue_collected(const char *name);

/*
 * Is `name` SASS-patched: the catalogue's engine "sass", or, for a name
 * the catalogue lacks, Perfworks' naming (smsp__sass_*, sm__sass_*)? The
 * range profiler reads such a metric only under kernel replay: 0 in a
 * one-pass group under user replay (docs/metrics.md "SASS-patched metrics
 * under user replay").
 */
int catalogue_is_patched(const char *name);

/*
 * Looks up identifier `name` (`len` bytes, not terminated) of an
 * expression: 1 with *v set when it has a value, 0 when it is known but
 * has none (NULL), -1 when it is no name the caller knows (an error).
 */
typedef int (*catalogue_lookup_fn)(void *ctx, const char *name, size_t len, double *v);

/*
 * Evaluates `expr`, a trigger of the catalogue: numbers, identifiers
 * (letters, digits, '_' and '.', resolved by `lookup`), + - * /,
 * < <= > >= = <> !=, AND OR NOT, IS [NOT] NULL, COALESCE(a, ...), and
 * parentheses; keywords in any case. Values follow SQL: a missing value is
 * NULL, arithmetic and comparisons with NULL give NULL, x / 0 is NULL, AND
 * and OR are three-valued. *truth gets 1 when the result is a non-zero
 * number, else 0 (NULL is not true). Returns 0, or -1 with a message
 * naming the position in err (a syntax error, an unknown name).
 */
int catalogue_eval(const char *expr, catalogue_lookup_fn lookup, void *ctx, int *truth, char *err,
                   size_t errlen);

/*
 * A lookup for catalogue_eval() over one profile's values: names[i] ->
 * values[i] (metric names, any order). An identifier may be a metric name
 * or a v_profiled column of the catalogue; with `core_only`, only core
 * metrics are names (what a trigger may read). A metric absent from
 * `names` is NULL.
 */
struct catalogue_values {
    const char *const *names;
    const double *values;
    size_t n;
    int core_only;
};
int catalogue_values_lookup(void *ctx, const char *name, size_t len, double *v);

#endif
