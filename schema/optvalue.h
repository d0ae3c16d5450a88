/* SPDX-License-Identifier: MIT */
/*
 * optvalue: the values of `gpuhier run`'s collector options, parsed one
 * way for both sides. The CLI (cli/run_opts.c) checks them before the
 * program starts, so a typo never costs a run; the collector
 * (collector/sampling.c) reads the same values from GPUHIER_* variables,
 * which may also be set by hand. Pure functions, no allocation.
 */
#ifndef GPUHIER_SCHEMA_OPTVALUE_H
#define GPUHIER_SCHEMA_OPTVALUE_H

#include <stddef.h>

enum optvalue_sample {
    OPTVALUE_SAMPLE_CONFIG, /* "config": the first launch of each configuration */
    OPTVALUE_SAMPLE_ALL,    /* "all" */
    OPTVALUE_SAMPLE_FIRST,  /* "first:N" */
    OPTVALUE_SAMPLE_EVERY,  /* "every:N" */
};

/*
 * A whole number written in decimal digits only (no sign, space or
 * prefix), at least `min` and at most LONG_MAX. 0 and *out set, or -1
 * and *out unchanged.
 */
int optvalue_count(const char *s, long min, long *out);

/*
 * An on/off switch (GPUHIER_QUIET, GPUHIER_DIAG_*): unset (NULL) or empty
 * gives `dflt`, "0" gives 0, any other value 1.
 */
int optvalue_switch(const char *s, int dflt);

/* A finite number > 0 (a percentage; above 100 allowed). 0 and *out set, or -1. */
int optvalue_percent(const char *s, double *out);

/*
 * --sample: config, all, first:N or every:N with N a count >= 1. 0 with
 * *kind and *n set (n = 1 for config and all), or -1.
 */
int optvalue_sample(const char *s, enum optvalue_sample *kind, long *n);

/* The word lists of the options that take one word (optvalue_choice). */
#define OPTVALUE_MODES "trace|profile"            /* --mode, GPUHIER_MODE */
#define OPTVALUE_METRIC_SETS "default|none"       /* --metric-set, GPUHIER_METRIC_SET */
#define OPTVALUE_CACHE_CONTROLS "all|none"        /* --cache-control, GPUHIER_CACHE_CONTROL */
#define OPTVALUE_REPLAYS "none|kernel"            /* --replay, GPUHIER_REPLAY */
#define OPTVALUE_COUNTERS "both|hardware|pattern" /* --counters, GPUHIER_INSTRUMENT */

/*
 * One of the '|'-separated words of `choices`, whole and in the same case.
 * Its index (0 for the first word), or -1.
 */
int optvalue_choice(const char *s, const char *choices);

/*
 * `choices` for a message: "trace or profile", "a, b or c". Written to buf
 * (cut to n - 1 bytes, always terminated); returns buf.
 */
const char *optvalue_choices_text(const char *choices, char *buf, size_t n);

#endif
