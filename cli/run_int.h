/* SPDX-License-Identifier: MIT */
/*
 * run_int.h: the parts of `gpuhier run` (cli/cmd_run.c) kept in their own
 * files so unit tests can link them without the rest of the command:
 *   run_opts.c     the command line: options stop at the program name
 *   run_child.c    fork, exec, signal forwarding, waiting, re-raising
 *   run_session.c  the session file the collector appends to
 * Private to cli/; nothing outside cli/ and its tests includes it.
 */
#ifndef GPUHIER_CLI_RUN_INT_H
#define GPUHIER_CLI_RUN_INT_H

#include <stddef.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

struct run_opts {
    const char *output;         /* -o pattern as given; NULL: OUTNAME_DEFAULT */
    int is_force;               /* -f: overwrite an existing report */
    int is_quiet;               /* -q: no ==gpuhier== lines */
    int is_no_analyze;          /* --no-analyze */
    int is_help;                /* -h/--help was given (nothing else is checked) */
    const char *mode;           /* "trace" or "profile"; NULL: collector default (profile) */
    const char *counters;       /* "hardware" or "pattern"; NULL: GPUHIER_INSTRUMENT left as set */
    const char *metrics;        /* comma-separated metric names to add, or NULL */
    const char *metric_set;     /* "default" or "none" (only --metrics), or NULL: default */
    const char *cache_control;  /* "all" (flush the L2) or "none"; NULL: none */
    const char *replay;         /* "none" (one-pass groups) or "kernel"; NULL: none */
    const char *sample;         /* config|all|first:N|every:N, or NULL */
    const char *kernel;         /* POSIX extended regex, or NULL */
    const char *nvtx_include;   /* POSIX extended regex, or NULL */
    long launch_skip;           /* >= 0; -1: not given */
    long launch_count;          /* >= 0; -1: not given */
    const char *profile_budget; /* --profile-budget PCT as given (checked > 0), or NULL */
    const char *rules_dir;      /* --rules DIR, or NULL */
    const char **argv;          /* the program and its arguments, NULL-terminated (borrowed) */
};
#define RUN_OPTS_INIT                                                                              \
    {                                                                                              \
        .launch_skip = -1, .launch_count = -1                                                      \
    }

/*
 * Parse `gpuhier run` arguments (argv[0] is "run"). Options are read up
 * to `--` or the first argument that is not an option or an option's
 * value; everything from there on is the program and its arguments, kept
 * as is. Values are checked (mode, sample spec, numbers, regexes,
 * output-name pattern, metric-list syntax, rules directory).
 * Returns 0, or -1 after printing one error message (exit GH_EXIT_USAGE).
 * `o` borrows strings from argv.
 */
int run_opts_parse(int argc, const char **argv, struct run_opts *o);

/*
 * Would the range profiler read metric `name` as 0 in this run? A
 * SASS-patched name (catalogue_is_patched()) is read only under
 * --replay kernel (docs/metrics.md "SASS-patched metrics under user
 * replay").
 */
int run_reads_zero(const struct run_opts *o, const char *name);

/* The usage text of `gpuhier run`. */
void run_usage(FILE *f);

/*
 * The metric lists the collector gets (cli/run_rules.c): *metrics for
 * GPUHIER_METRICS (the --metrics names, then every name the rules in use
 * ask for beyond the catalogue's sets, analyzer_rule_metrics()) and
 * *rule_metrics for GPUHIER_RULE_METRICS (the rules' names alone, which
 * the collector drops with a warning instead of stopping when the chip
 * lacks them). Both malloc'd, or NULL when empty. Prints one line per
 * rule metric unless quiet. Returns 0, or -1 after a message (no memory).
 */
int run_rule_metrics(const struct run_opts *o, char **metrics, char **rule_metrics);

/* ------------------------------------------------------------------ */
/* The child                                                            */
/* ------------------------------------------------------------------ */

#define COLLECTOR_NAME "libgpuhier-collector.so"

/*
 * The collector library `gpuhier run` injects, as an absolute path:
 * $GPUHIER_COLLECTOR, else beside the gpuhier executable (or in collector/
 * there), else the data directories (cli_data_path()). Returns a new
 * string (free()), or NULL, printing why unless `is_quiet`.
 * Defined in cmd_run.c; `gpuhier doctor` uses it too.
 */
char *run_find_collector(int is_quiet);

/*
 * Find `prog` as execvp would: as a path if it contains '/', else in
 * $PATH (default "/usr/bin:/bin"). Returns a new string (free()) naming an
 * executable regular file, or NULL after printing the reason; *code gets
 * the exit code for the failure: 127 (not found) or 126 (found, but not
 * executable or a directory).
 */
char *run_find_program(const char *prog, int *code);

/*
 * Fork and exec `path` with `argv` (argv[0] as the user wrote it), the
 * current environment and signal dispositions as gpuhier inherited them.
 * While it runs, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2
 * sent to gpuhier (kill, not the terminal: the terminal already signals
 * the whole foreground group) are forwarded to the child. Waits for it.
 * Returns 0 with its wait status in *status, or -1 after printing a
 * message, with *status set to an exit code (126/127 when exec failed,
 * GH_EXIT_INTERNAL when fork failed).
 */
int run_spawn(const char *path, const char **argv, int *status);

/*
 * End gpuhier the way the child ended: exit with its code, or die by its
 * signal (default disposition restored, signal unblocked, raised). gpuhier
 * makes itself non-dumpable first so it never writes a core file over the
 * program's. Does not return.
 */
void run_exit_like(int status) __attribute__((noreturn));

/* ------------------------------------------------------------------ */
/* Session file                                                         */
/* ------------------------------------------------------------------ */

/* One CUDA process of the run, as the collector described it. */
struct run_process {
    long pid;
    char *report;           /* report path (owned) */
    int has_end;            /* the process wrote its end line */
    long long traced;       /* launches traced */
    long long profiled;     /* launches profiled */
    long long skipped;      /* launches not profiled (filters, sampling) */
    long long dropped;      /* records dropped (queue full) */
    long long passes;       /* most replay passes of one launch */
    long long profiling_ns; /* time spent profiling */
};

struct run_session {
    struct run_process *procs; /* in order of first appearance (owned) */
    size_t n;
    size_t n_bad_lines; /* lines that did not parse */
};

/*
 * Read a session file (lines `start\tPID\tPATH` and
 * `end\tPID\tPATH\tTRACED\tPROFILED\tSKIPPED\tDROPPED\tPASSES\tNS`).
 * A missing or empty file is an empty session. Unknown line kinds are
 * ignored; malformed ones counted. Returns 0 or -1 (read error).
 */
int run_session_read(const char *path, struct run_session *s);

/* Free the contents of `s`; keeps the struct. NULL-safe. */
void run_session_release(struct run_session *s);

/*
 * Print the end-of-run summary, one `==gpuhier==` line per process, or
 * the "never initialized CUDA" line when there is none. Report paths
 * below `cwd` (may be NULL) are shown relative to it.
 */
void run_session_print(const struct run_session *s, const char *cwd, FILE *f);

/* `path` relative to `cwd` when it lies below it, else `path` (borrowed). */
const char *run_display_path(const char *path, const char *cwd);

#endif
