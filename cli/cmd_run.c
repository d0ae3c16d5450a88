/* SPDX-License-Identifier: MIT */
/*
 * gpuhier run: run a program with the collector injected, then summarize.
 *
 * gpuhier itself never touches CUDA here. It points the program at the
 * collector (CUDA_INJECTION64_PATH; LD_PRELOAD as a fallback, the
 * collector guards against initializing twice), passes the options in
 * GPUHIER_* variables, and gets each CUDA process's outcome back through
 * a session file. Every process the program starts inherits all of it,
 * so each process that initializes CUDA writes its own report; the rest
 * (shells, compilers) load the collector and leave without a trace.
 *
 * The exit status is the program's. Nothing here may turn a successful
 * program run into a failure: a summary or analysis that goes wrong is a
 * warning line, never a different status.
 */
#include "analyzer/analyzer.h"
#include "cli/cli.h"
#include "cli/run_int.h"
#include "export/sanitize.h"
#include "schema/outname.h"
#include "schema/store.h"
#include "schema/store_view.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOP_FINDINGS 5

static char *
xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p) {
        fputs("gpuhier: fatal: out of memory\n", stderr);
        abort();
    }
    return p;
}

/*
 * GPUHIER_COLLECTOR, else next to the executable (the build tree puts
 * gpuhier and the collector in the same directory or collector/ below
 * it), else the data directories (install layout).
 */
char *
run_find_collector(int is_quiet)
{
    char buf[PATH_MAX], real[PATH_MAX];
    const char *env = getenv("GPUHIER_COLLECTOR");
    if (env && *env) {
        if (!realpath(env, real)) {
            if (!is_quiet)
                error("run: GPUHIER_COLLECTOR='%s': %s", env, strerror(errno));
            return NULL;
        }
        return xstrdup(real);
    }
    const char *self = cli_self_dir();
    const char *rel[] = {"/" COLLECTOR_NAME, "/collector/" COLLECTOR_NAME};
    for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        snprintf(buf, sizeof(buf), "%s%s", self, rel[i]);
        if (access(buf, R_OK) == 0 && realpath(buf, real))
            return xstrdup(real);
    }
    const char *data[] = {COLLECTOR_NAME, "collector/" COLLECTOR_NAME};
    for (size_t i = 0; i < sizeof(data) / sizeof(data[0]); i++) {
        char *p = cli_data_path(data[i]);
        if (p && realpath(p, real)) {
            free(p);
            return xstrdup(real);
        }
        free(p);
    }
    if (!is_quiet)
        error("run: cannot find the collector library '%s' next to gpuhier (%s); "
              "set GPUHIER_COLLECTOR to its path",
              COLLECTOR_NAME, self);
    return NULL;
}

/*
 * The collector expands the pattern in each process, in that process's
 * working directory; a relative pattern is anchored to gpuhier's, so the
 * reports land where the user ran gpuhier even if the program chdir()s.
 * '%' in the directory name is escaped so it is not read as a macro.
 */
static char *
absolute_pattern(const char *pattern)
{
    if (pattern[0] == '/')
        return xstrdup(pattern);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd)))
        return xstrdup(pattern);
    size_t n = strlen(cwd), extra = 0;
    for (size_t i = 0; i < n; i++)
        extra += cwd[i] == '%';
    size_t len = strlen(pattern);
    char *out = malloc(n + extra + len + 2);
    if (!out)
        return xstrdup(pattern);
    char *q = out;
    for (size_t i = 0; i < n; i++) {
        *q++ = cwd[i];
        if (cwd[i] == '%')
            *q++ = '%';
    }
    *q++ = '/';
    memcpy(q, pattern, len + 1);
    return out;
}

/*
 * Refuse before the run, not after it, when the report cannot be written:
 * a fixed name that exists (without -f), or a directory we cannot write.
 * Names that depend on the process (%p, %q{..}) are checked only as far
 * as they do not.
 */
static int
check_output(const char *pattern, int is_force)
{
    int ret = -1;
    char *a = outname_expand(pattern, 1, NULL, 1);
    char *b = outname_expand(pattern, 2, NULL, 2);
    if (!a || !b) {
        ret = error("run: bad report name pattern '%s'", pattern);
        goto out;
    }
    struct stat st;
    if (!strcmp(a, b) && !is_force && stat(a, &st) == 0) {
        ret = error("run: report '%s' already exists; use -f to overwrite it, "
                    "or %%i in -o for the next free number",
                    a);
        goto out;
    }
    char *slash_a = strrchr(a, '/'), *slash_b = strrchr(b, '/');
    if (slash_a && slash_b && slash_a - a == slash_b - b && !strncmp(a, b, (size_t)(slash_a - a))) {
        *slash_a = '\0';
        const char *dir = a[0] ? a : "/";
        if (access(dir, W_OK | X_OK) != 0) {
            ret = error("run: cannot write reports in '%s': %s", dir, strerror(errno));
            goto out;
        }
    }
    ret = 0;
out:
    free(a);
    free(b);
    return ret;
}

static void
set_or_unset(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

static void
set_count(const char *name, long v)
{
    char num[32];
    snprintf(num, sizeof(num), "%ld", v);
    set_or_unset(name, v >= 0 ? num : NULL);
}

static void
set_environment(const struct run_opts *o, const char *collector, const char *pattern,
                const char *session, const char *metrics, const char *rule_metrics)
{
    const char *old = getenv("CUDA_INJECTION64_PATH");
    if (old && *old && strcmp(old, collector) && !o->is_quiet)
        fprintf(stderr,
                "==gpuhier== warning: replacing CUDA_INJECTION64_PATH=%s "
                "(another tool's injection cannot run beside gpuhier)\n",
                old);
    setenv("CUDA_INJECTION64_PATH", collector, 1);

    const char *no_preload = getenv("GPUHIER_NO_PRELOAD");
    if (!(no_preload && !strcmp(no_preload, "1"))) {
        const char *pre = getenv("LD_PRELOAD");
        if (pre && *pre && !strstr(pre, collector)) {
            size_t n = strlen(collector) + strlen(pre) + 2;
            char *v = malloc(n);
            if (v) {
                snprintf(v, n, "%s:%s", collector, pre);
                setenv("LD_PRELOAD", v, 1);
                free(v);
            }
        } else if (!pre || !*pre) {
            setenv("LD_PRELOAD", collector, 1);
        }
    }

    setenv("GPUHIER_OUTPUT", pattern, 1);
    set_or_unset("GPUHIER_FORCE", o->is_force ? "1" : NULL);
    set_or_unset("GPUHIER_QUIET", o->is_quiet ? "1" : NULL);
    set_or_unset("GPUHIER_MODE", o->mode);
    set_or_unset("GPUHIER_METRICS", metrics);
    set_or_unset("GPUHIER_RULE_METRICS", rule_metrics);
    set_or_unset("GPUHIER_METRIC_SET", o->metric_set);
    set_or_unset("GPUHIER_CACHE_CONTROL", o->cache_control);
    set_or_unset("GPUHIER_REPLAY", o->replay);
    /*
     * Unlike the others, left as it is when --counters is absent: the
     * collector's documented variable (GPUHIER_INSTRUMENT=1 gpuhier run ...)
     * and its diagnosis value 'phased', which has no option, keep working.
     */
    if (o->counters)
        setenv("GPUHIER_INSTRUMENT",
               !strcmp(o->counters, "pattern")    ? "1"
               : !strcmp(o->counters, "hardware") ? "0"
                                                  : "both",
               1);
    set_or_unset("GPUHIER_SAMPLE", o->sample);
    set_or_unset("GPUHIER_KERNEL", o->kernel);
    set_or_unset("GPUHIER_NVTX_INCLUDE", o->nvtx_include);
    set_count("GPUHIER_LAUNCH_SKIP", o->launch_skip);
    set_count("GPUHIER_LAUNCH_COUNT", o->launch_count);
    set_or_unset("GPUHIER_PROFILE_BUDGET", o->profile_budget);
    setenv("GPUHIER_SESSION_FILE", session, 1);
    /* Inherited from an outer gpuhier run, it would stop this run's collector. */
    unsetenv("GPUHIER_COLLECTOR_ACTIVE");
}

/* Copy `text` to `f`, each line prefixed with "==gpuhier== ". */
static void
print_prefixed(FILE *f, const char *text)
{
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "==gpuhier== %.*s\n", (int)n, p);
        p += n;
        if (*p == '\n')
            p++;
    }
}

/*
 * Coverage by GPU time (issue 18): the share of the traced kernel time
 * whose configurations have pattern counters, and hardware counters. After
 * the analysis, of the run's GPU time: kernels that wait (a delay or spin
 * kernel: XLA's DelayKernel held 80 % of a JAX run's kernel time, with a
 * profile) are not work and are left out, as the analysis leaves them out.
 */
static void
print_coverage(sqlite3 *db, const char *shown)
{
    long long configs = 0, profiled = 0;
    double pct = 0;
    const char *of = store_has_waiting(db) ? "working" : "traced";
    /* a budget, a filter or busy counters left configurations without counters */
    if (store_profile_coverage(db, &configs, &profiled, &pct) == 0 && profiled > 0 &&
        profiled < configs)
        fprintf(stderr,
                "==gpuhier==   %s: %lld of %lld configurations profiled; they took %.1f %% of "
                "the %s kernel time\n",
                shown, profiled, configs, pct, of);
    struct store_coverage cov;
    /* nothing profiled says nothing more, unless graphs are why (no engine serves their nodes) */
    if (store_counter_coverage(db, &cov) || cov.gpu_ns <= 0 ||
        (cov.pattern_configs == 0 && cov.hardware_configs == 0 && cov.graph_only_configs == 0))
        return;
    char waiting[96] = "";
    if (cov.waiting_ns > 0)
        snprintf(waiting, sizeof(waiting), "; %.1f ms of kernels that wait left out",
                 cov.waiting_ns / 1e6);
    fprintf(stderr,
            "==gpuhier==   %s: coverage by kernel time: pattern counters %.1f %%, hardware "
            "counters %.1f %% (%.1f %% with all five state counters%s)\n",
            shown, cov.pattern_pct, cov.hardware_pct, cov.complete_pct, waiting);
    if (cov.setup_counts)
        fprintf(stderr,
                "==gpuhier==   %s: of the repeated work alone (one-time set-up, %.1f %% of that "
                "time, left out): pattern counters %.1f %%, hardware counters %.1f %%\n",
                shown, 100.0 * (cov.gpu_ns - cov.repeated_ns) / cov.gpu_ns,
                cov.repeated_pattern_pct, cov.repeated_hardware_pct);
    if (cov.graph_only_configs > 0)
        fprintf(stderr,
                "==gpuhier==   %s: %.1f %% of it ran only as kernel nodes of CUDA graphs that "
                "got no counters (%lld configuration%s: the range profiler never serves graph "
                "nodes, the instrumentation engine only those of graphs it could arm, "
                "docs/collector.md \"Graphs\"): launch them outside a graph too to profile "
                "them (JAX: XLA_FLAGS=--xla_gpu_enable_command_buffer=)\n",
                shown, cov.graph_only_pct, cov.graph_only_configs,
                cov.graph_only_configs == 1 ? "" : "s");
    if (cov.deferred_counts)
        fprintf(stderr,
                "==gpuhier==   %s: %.1f %% of %s in %lld configuration%s without hardware "
                "counters, whose launches were deferred (" STORE_DEFERRED_WHY
                "): `gpuhier run --sample all` profiles every launch, at a "
                "higher cost\n",
                shown, cov.deferred_pct, cov.setup_counts ? "the repeated work" : "it",
                cov.deferred_configs, cov.deferred_configs == 1 ? "" : "s");
    if (cov.groups_partial > 0)
        fprintf(stderr,
                "==gpuhier==   %s: %lld configuration%s got only some one-pass counter "
                "groups (launched fewer times than there are groups, deferred by the "
                "budget, waiting for their group's run, or too small a share of the time "
                "for a warning)\n",
                shown, cov.groups_partial, cov.groups_partial == 1 ? "" : "s");
    /* the instrumentation engine's price left configurations without exact counts: its word */
    sqlite3_stmt *st = NULL;
    if (store_prepare(db,
                      "SELECT message FROM event WHERE code = 'instrumentation_budget' "
                      "ORDER BY id LIMIT 1",
                      &st) == 0 &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        char clean[1024]; /* the report's text is not ours: sanitized */
        fprintf(stderr, "==gpuhier==   %s: %s\n", shown,
                sanitize_into(clean, sizeof(clean), (const char *)sqlite3_column_text(st, 0)));
    }
    sqlite3_finalize(st);
}

/*
 * What the collector recorded about its own limits: why counters are
 * missing, and its warning/error events (the program's output may have
 * scrolled its ==gpuhier== lines away). One line per event code.
 */
static void
print_report_notes(sqlite3 *db, const char *shown)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db, "SELECT profiling_limited, clean_exit FROM run ORDER BY id LIMIT 1",
                      &st) == 0 &&
        sqlite3_step(st) == SQLITE_ROW) {
        const char *why = (const char *)sqlite3_column_text(st, 0);
        char clean[1024]; /* the report's text is not ours: sanitized */
        if (why && *why)
            fprintf(stderr, "==gpuhier==   %s: counters limited: %s\n", shown,
                    sanitize_into(clean, sizeof(clean), why));
        if (sqlite3_column_type(st, 1) != SQLITE_NULL && sqlite3_column_int(st, 1) == 0)
            fprintf(stderr, "==gpuhier==   %s: the collector did not finish cleanly\n", shown);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (store_prepare(
            db,
            "SELECT level, code, count(*), min(message) FROM event "
            "WHERE level IN ('warning', 'error') GROUP BY level, code ORDER BY min(id) LIMIT 10",
            &st) == 0) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *level = (const char *)sqlite3_column_text(st, 0);
            const char *code = (const char *)sqlite3_column_text(st, 1);
            const char *msg = (const char *)sqlite3_column_text(st, 3);
            int n = sqlite3_column_int(st, 2);
            char times[32] = "";
            if (n > 1)
                snprintf(times, sizeof(times), " (%d times)", n);
            char clean[1024], lv[32];
            fprintf(stderr, "==gpuhier==   %s: %s: %s%s\n", shown,
                    sanitize_into(lv, sizeof(lv), level ? level : "warning"),
                    sanitize_into(clean, sizeof(clean), msg ? msg : (code ? code : "")), times);
        }
    }
    sqlite3_finalize(st);
}

/*
 * Analyze in place: the report was just written by this run's collector
 * and is closed, so writing the analysis tables into it now saves every
 * later reader from analyzing it again (`gpuhier analyze` does the same).
 */
static void
finish_report(const struct run_opts *o, const char *path, const char *shown)
{
    sqlite3 *db = NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = NULL;
    struct analyzer_opts ao = {.rules_dir = o->rules_dir};
    int is_analyze = !o->is_no_analyze;
    char msg[2048]; /* messages quote the report's path and SQLite's text: sanitized */

    if (store_open(path, is_analyze ? STORE_READ_WRITE : STORE_READ_ONLY, &db)) {
        if (!o->is_quiet)
            fprintf(stderr, "==gpuhier== cannot read %s: %s\n", shown,
                    sanitize_into(msg, sizeof(msg), store_error()));
        goto out;
    }
    if (!o->is_quiet)
        print_report_notes(db, shown);
    int analyzed = is_analyze && analyzer_analyze(db, &ao) == 0;
    if (o->is_quiet)
        goto out;
    if (is_analyze && !analyzed)
        fprintf(stderr, "==gpuhier== cannot analyze %s: %s\n", shown,
                sanitize_into(msg, sizeof(msg), analyzer_error()));
    print_coverage(db, shown); /* after the analysis: the kernels that wait are known */
    if (!analyzed)
        goto out;
    mem = open_memstream(&text, &len);
    if (!mem)
        goto out;
    int rc = analyzer_print_top(db, mem, TOP_FINDINGS, 0);
    fclose(mem);
    if (rc) {
        fprintf(stderr, "==gpuhier== cannot list findings of %s: %s\n", shown,
                sanitize_into(msg, sizeof(msg), analyzer_error()));
        goto out;
    }
    fprintf(stderr, "==gpuhier== top findings of %s (gpuhier tui %s for all):\n", shown, shown);
    print_prefixed(stderr, text ? text : "");
    long long aside = 0, aside_cfg = 0;
    if (analyzer_profiles_set_aside(db, &aside, &aside_cfg) == 0 && aside > 0)
        fprintf(stderr,
                "==gpuhier==   %s: %lld configuration%s did other work at a later profiled launch "
                "than at the first; findings describe the first (gpuhier analyze %s says more)\n",
                shown, aside_cfg, aside_cfg == 1 ? "" : "s", shown);
out:
    free(text);
    sqlite3_close(db);
}

static void
print_status(int status)
{
    if (WIFSIGNALED(status))
        fprintf(stderr, "==gpuhier== the program was killed by signal %d (%s)%s\n",
                WTERMSIG(status), strsignal(WTERMSIG(status)),
                WCOREDUMP(status) ? ", core dumped" : "");
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        fprintf(stderr, "==gpuhier== the program exited with status %d\n", WEXITSTATUS(status));
}

int
cmd_run(int argc, const char **argv)
{
    struct run_opts o = RUN_OPTS_INIT;
    if (run_opts_parse(argc, argv, &o))
        return GH_EXIT_USAGE;
    if (o.is_help) {
        run_usage(stdout);
        return GH_EXIT_OK;
    }

    int code = GH_EXIT_INTERNAL;
    char *path = run_find_program(o.argv[0], &code);
    if (!path)
        return code;
    char *pattern = absolute_pattern(o.output ? o.output : OUTNAME_DEFAULT);
    char *collector = NULL, *metrics = NULL, *rule_metrics = NULL;
    char session[PATH_MAX] = "";
    char cwd[PATH_MAX] = "";
    if (check_output(pattern, o.is_force)) {
        code = GH_EXIT_OUTPUT;
        goto fail;
    }
    collector = run_find_collector(0);
    if (!collector)
        goto fail;

    const char *tmp = getenv("TMPDIR");
    snprintf(session, sizeof(session), "%s/gpuhier-session-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(session);
    if (fd < 0) {
        error("run: cannot create a session file '%s': %s", session, strerror(errno));
        session[0] = '\0';
        goto fail;
    }
    close(fd);
    if (!getcwd(cwd, sizeof(cwd)))
        cwd[0] = '\0';

    if (run_rule_metrics(&o, &metrics, &rule_metrics))
        goto fail;
    set_environment(&o, collector, pattern, session, metrics, rule_metrics);
    int status;
    if (run_spawn(path, o.argv, &status)) {
        code = status;
        goto fail;
    }

    /* The program has ended; from here on, only report. */
    struct run_session s;
    int rc = run_session_read(session, &s);
    unlink(session);
    if (!o.is_quiet) {
        print_status(status);
        if (rc == 0)
            run_session_print(&s, cwd, stderr);
    }
    for (size_t i = 0; rc == 0 && i < s.n; i++) {
        const char *shown = run_display_path(s.procs[i].report, cwd);
        if (!s.procs[i].has_end) {
            /* Its process may still be writing (a daemon child), or it died: leave it alone. */
            if (!o.is_quiet && !o.is_no_analyze)
                fprintf(stderr,
                        "==gpuhier== not analyzed: %s was not closed; "
                        "'gpuhier analyze %s' reads what it holds\n",
                        shown, shown);
            continue;
        }
        finish_report(&o, s.procs[i].report, shown);
    }
    run_session_release(&s);
    free(path);
    free(pattern);
    free(collector);
    free(metrics);
    free(rule_metrics);
    /*
     * Leave as the program left: its code, or death by its signal. Not via
     * main(): stdout is the program's, and its state is none of our business.
     */
    run_exit_like(status);

fail:
    if (session[0])
        unlink(session);
    free(path);
    free(pattern);
    free(collector);
    free(metrics);
    free(rule_metrics);
    return code;
}
