/* SPDX-License-Identifier: MIT */
/*
 * run_opts: the command line of `gpuhier run`.
 *
 * Not getopt: getopt (even with "+") would let `-o` swallow a program
 * named like an option and has no notion of "the program's own options
 * start here". We stop at the first non-option, as ncu and nsys do, so
 * `gpuhier run ./app -o x` passes `-o x` to the app. Every value is
 * checked here, before anything runs: a typo must not cost a long run.
 */
#include "cli/cli.h"
#include "cli/run_int.h"
#include "schema/catalogue.h"
#include "schema/optvalue.h"
#include "schema/outname.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum opt_id {
    OPT_OUTPUT,
    OPT_FORCE,
    OPT_QUIET,
    OPT_MODE,
    OPT_COUNTERS,
    OPT_METRICS,
    OPT_METRIC_SET,
    OPT_SAMPLE,
    OPT_KERNEL,
    OPT_LAUNCH_SKIP,
    OPT_LAUNCH_COUNT,
    OPT_PROFILE_BUDGET,
    OPT_CACHE_CONTROL,
    OPT_REPLAY,
    OPT_NVTX_INCLUDE,
    OPT_NO_ANALYZE,
    OPT_RULES,
    OPT_HELP,
};

struct opt {
    enum opt_id id;
    char short_name; /* 0: none */
    const char *long_name;
    int has_value;
    const char *value_name;
    const char *help;
};

static const struct opt opts[] = {
    {OPT_OUTPUT, 'o', "output", 1, "PATTERN",
     "report name; %p pid, %h host, %q{ENV} variable, %i next free number, %% a '%' "
     "(default " OUTNAME_DEFAULT ")"},
    {OPT_FORCE, 'f', "force", 0, NULL, "overwrite an existing report"},
    {OPT_QUIET, 'q', "quiet", 0, NULL,
     "print no ==gpuhier== lines (the program's output is untouched)"},
    {OPT_MODE, 0, "mode", 1, "trace|profile",
     "trace: no hardware counters; profile (default): counters on sampled launches"},
    {OPT_COUNTERS, 0, "counters", 1, "both|hardware|pattern",
     "both (default): exact per-instruction access counts with source lines on each "
     "configuration's first launch (the instrumentation engine; kernels traced serialized), "
     "the range profiler's one-pass groups (DRAM, caches, occupancy) on later launches; "
     "hardware: the range profiler alone; pattern: the instrumentation engine alone"},
    {OPT_METRICS, 0, "metrics", 1, "LIST",
     "comma-separated metric names to collect besides the metric set"},
    {OPT_METRIC_SET, 0, "metric-set", 1, "default|none",
     "default: the core set on every sampled launch; none: only --metrics (one-pass lists)"},
    {OPT_SAMPLE, 0, "sample", 1, "SPEC",
     "which launches get counters: config (default), all, first:N, every:N"},
    {OPT_KERNEL, 'k', "kernel", 1, "REGEX",
     "profile only kernels whose name matches (POSIX extended regex)"},
    {OPT_LAUNCH_SKIP, 0, "launch-skip", 1, "N",
     "skip the first N matching launches before profiling"},
    {OPT_LAUNCH_COUNT, 0, "launch-count", 1, "N", "profile at most N launches"},
    {OPT_PROFILE_BUDGET, 0, "profile-budget", 1, "PCT",
     "let profiling add at most PCT % to the rest of the run's time, spent on the configurations "
     "that took the most GPU time so far; other chosen launches are deferred"},
    {OPT_CACHE_CONTROL, 0, "cache-control", 1, "all|none",
     "all: flush the L2 before each profiled launch (a cold, empty L2, as ncu's default); "
     "none (default): the L2 as the program left it"},
    {OPT_REPLAY, 0, "replay", 1, "none|kernel",
     "none (default): one one-pass counter group per profiled launch, nothing replayed; "
     "kernel: the core set in 3 replay passes per launch, device memory saved and restored"},
    {OPT_NVTX_INCLUDE, 0, "nvtx-include", 1, "REGEX",
     "profile only launches inside NVTX ranges whose path matches"},
    {OPT_NO_ANALYZE, 0, "no-analyze", 0, NULL,
     "do not analyze the reports or print findings at the end"},
    {OPT_RULES, 0, "rules", 1, "DIR",
     "analyze with the rule files in DIR instead of the default rules"},
    {OPT_HELP, 'h', "help", 0, NULL, "show this help"},
};
#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

void
run_usage(FILE *f)
{
    fprintf(f, "usage: gpuhier run [options] [--] program [args...]\n\n"
               "Runs the program with the gpuhier collector injected; each process that\n"
               "initializes CUDA writes one report. Options stop at the program name.\n\n"
               "options:\n");
    /* the left column as wide as its widest entry, so every help text starts in one column */
    char left[N_OPTS][64];
    int width = 0;
    for (size_t i = 0; i < N_OPTS; i++) {
        const struct opt *o = &opts[i];
        if (o->short_name)
            snprintf(left[i], sizeof(left[i]), "-%c, --%s%s%s", o->short_name, o->long_name,
                     o->has_value ? " " : "", o->has_value ? o->value_name : "");
        else
            snprintf(left[i], sizeof(left[i]), "    --%s%s%s", o->long_name,
                     o->has_value ? " " : "", o->has_value ? o->value_name : "");
        int w = (int)strlen(left[i]);
        width = w > width ? w : width;
    }
    for (size_t i = 0; i < N_OPTS; i++)
        fprintf(f, "  %-*s  %s\n", width, left[i], opts[i].help);
    fprintf(f, "\nExit status: the program's (gpuhier dies by the same signal if it was killed);\n"
               "2 bad options, 6 report exists without -f, 126 not executable, 127 not found.\n"
               "See 'gpuhier help run'.\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
usage_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return error("run: %s; see 'gpuhier run --help'", msg);
}

static int
parse_count(const char *name, const char *v, long *out)
{
    if (optvalue_count(v, 0, out))
        return usage_error("--%s: '%s' is not a whole number >= 0", name, v);
    return 0;
}

/* What collector/sampling.c accepts too: both parse with schema/optvalue. */
static int
check_budget(const char *v)
{
    double pct;
    if (optvalue_percent(v, &pct))
        return usage_error("--profile-budget: '%s' is not a percentage > 0", v);
    return 0;
}

static int
check_sample(const char *v)
{
    enum optvalue_sample kind;
    long n;
    if (optvalue_sample(v, &kind, &n))
        return usage_error("--sample: '%s' is not config, all, first:N or every:N (N >= 1)", v);
    return 0;
}

/*
 * Metric names are checked against the device by the collector (only the
 * profiler host API on the target chip knows them). Here: the list's
 * shape, so `--metrics ,` or a pasted sentence fails before the run.
 */
static int
check_metrics(const char *v)
{
    const char *p = v;
    while (1) {
        size_t n = strcspn(p, ",");
        if (n == 0)
            return usage_error("--metrics: empty name in '%s'", v);
        for (size_t i = 0; i < n; i++) {
            char c = p[i];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == ':')) {
                char name[128];
                snprintf(name, sizeof(name), "%.*s", (int)(n < 100 ? n : 100), p);
                return usage_error(
                    "--metrics: '%s' is not a metric name (letters, digits, _ . :) in '%s'", name,
                    v);
            }
        }
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

static int
check_output(const char *v)
{
    char *s = outname_expand(v, 1, "host", 1);
    if (!s)
        return usage_error("-o: bad report name pattern '%s' (macros: %%p %%h %%q{ENV} %%i %%%%)",
                           v);
    size_t n = strlen(s);
    int is_dir_like = n == 0 || s[n - 1] == '/';
    free(s);
    if (is_dir_like)
        return usage_error("-o: '%s' names a directory; give a file name", v);
    return 0;
}

static int
check_rules_dir(const char *v)
{
    struct stat st;
    if (stat(v, &st) != 0)
        return error("run: --rules: cannot use '%s': %s", v, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return error("run: --rules: '%s' is not a directory", v);
    return 0;
}

/* An option that takes one of a few words got another. */
static int
bad_word(const char *opt, const char *v, const char *choices)
{
    char words[64];
    return usage_error("%s: '%s' is not %s", opt, v,
                       optvalue_choices_text(choices, words, sizeof(words)));
}

static int
set_value(struct run_opts *o, const struct opt *op, const char *v)
{
    switch (op->id) {
    case OPT_OUTPUT:
        o->output = v;
        return check_output(v);
    case OPT_MODE:
        if (optvalue_choice(v, OPTVALUE_MODES) < 0)
            return bad_word("--mode", v, OPTVALUE_MODES);
        o->mode = v;
        return 0;
    case OPT_COUNTERS:
        if (optvalue_choice(v, OPTVALUE_COUNTERS) < 0)
            return bad_word("--counters", v, OPTVALUE_COUNTERS);
        o->counters = v;
        return 0;
    case OPT_METRICS:
        o->metrics = v;
        return check_metrics(v);
    case OPT_METRIC_SET:
        if (optvalue_choice(v, OPTVALUE_METRIC_SETS) < 0)
            return bad_word("--metric-set", v, OPTVALUE_METRIC_SETS);
        o->metric_set = v;
        return 0;
    case OPT_CACHE_CONTROL:
        if (optvalue_choice(v, OPTVALUE_CACHE_CONTROLS) < 0)
            return bad_word("--cache-control", v, OPTVALUE_CACHE_CONTROLS);
        o->cache_control = v;
        return 0;
    case OPT_REPLAY:
        if (optvalue_choice(v, OPTVALUE_REPLAYS) < 0)
            return bad_word("--replay", v, OPTVALUE_REPLAYS);
        o->replay = v;
        return 0;
    case OPT_SAMPLE:
        o->sample = v;
        return check_sample(v);
    case OPT_KERNEL:
        o->kernel = v;
        return cli_check_regex("run: --kernel", v);
    case OPT_NVTX_INCLUDE:
        o->nvtx_include = v;
        return cli_check_regex("run: --nvtx-include", v);
    case OPT_LAUNCH_SKIP:
        return parse_count("launch-skip", v, &o->launch_skip);
    case OPT_LAUNCH_COUNT:
        return parse_count("launch-count", v, &o->launch_count);
    case OPT_PROFILE_BUDGET:
        o->profile_budget = v;
        return check_budget(v);
    case OPT_RULES:
        o->rules_dir = v;
        return check_rules_dir(v);
    default:
        return 0;
    }
}

static void
set_flag(struct run_opts *o, const struct opt *op)
{
    switch (op->id) {
    case OPT_FORCE:
        o->is_force = 1;
        break;
    case OPT_QUIET:
        o->is_quiet = 1;
        break;
    case OPT_NO_ANALYZE:
        o->is_no_analyze = 1;
        break;
    case OPT_HELP:
        o->is_help = 1;
        break;
    default:
        break;
    }
}

static const struct opt *
find_long(const char *name, size_t n)
{
    for (size_t i = 0; i < N_OPTS; i++)
        if (strlen(opts[i].long_name) == n && !strncmp(opts[i].long_name, name, n))
            return &opts[i];
    return NULL;
}

static const struct opt *
find_short(char c)
{
    for (size_t i = 0; i < N_OPTS; i++)
        if (opts[i].short_name && opts[i].short_name == c)
            return &opts[i];
    return NULL;
}

int
run_reads_zero(const struct run_opts *o, const char *name)
{
    return catalogue_is_patched(name) && !(o->replay && !strcmp(o->replay, "kernel"));
}

int
run_opts_parse(int argc, const char **argv, struct run_opts *o)
{
    int i = 1;
    while (i < argc) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break; /* the program */
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t n = eq ? (size_t)(eq - name) : strlen(name);
            const struct opt *op = find_long(name, n);
            if (!op)
                return usage_error("unknown option '%s'", a);
            if (!op->has_value) {
                if (eq)
                    return usage_error("option '--%s' takes no value", op->long_name);
                set_flag(o, op);
                i++;
                continue;
            }
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
            if (!v)
                return usage_error("option '--%s' needs a value (%s)", op->long_name,
                                   op->value_name);
            if (set_value(o, op, v))
                return -1;
            i += eq ? 1 : 2;
            continue;
        }
        /* Short options: flags may be bundled (-fq); a value is attached or the next word. */
        const char *p = a + 1;
        int consumed_next = 0;
        for (; *p; p++) {
            const struct opt *op = find_short(*p);
            if (!op) {
                char bad[3] = {'-', *p, '\0'};
                return usage_error("unknown option '%s'", bad);
            }
            if (!op->has_value) {
                set_flag(o, op);
                continue;
            }
            const char *v = p[1] ? p + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
            if (!v) {
                char name[3] = {'-', *p, '\0'};
                return usage_error("option '%s' needs a value (%s)", name, op->value_name);
            }
            consumed_next = !p[1];
            if (set_value(o, op, v))
                return -1;
            break;
        }
        i += consumed_next ? 2 : 1;
    }
    if (o->is_help)
        return 0;
    if (i >= argc)
        return usage_error("no program given");
    if (o->metric_set && !strcmp(o->metric_set, "none") && !o->metrics)
        return usage_error("--metric-set none collects only --metrics, and none were given");
    if (o->replay && !strcmp(o->replay, "kernel") && o->mode && !strcmp(o->mode, "trace"))
        return usage_error("--replay kernel replays profiled launches, and --mode trace profiles "
                           "none");
    int is_pattern = o->counters && !strcmp(o->counters, "pattern");
    int is_both = o->counters && !strcmp(o->counters, "both");
    /* without --counters, --replay kernel and --metric-set none choose the range profiler alone */
    if (is_both && o->replay && !strcmp(o->replay, "kernel"))
        return usage_error("--replay kernel replays the range profiler's launches, and --counters "
                           "both keeps a SASS metrics config set beside them; use --counters "
                           "hardware (or leave --counters out)");
    if (is_both && o->metric_set && !strcmp(o->metric_set, "none"))
        return usage_error("--metric-set none asks the range profiler for your list alone; use "
                           "--counters hardware (or leave --counters out)");
    if (is_pattern && o->mode && !strcmp(o->mode, "trace"))
        return usage_error("--counters pattern counts the profiled launches' accesses, and --mode "
                           "trace profiles none");
    if (is_pattern && o->replay && !strcmp(o->replay, "kernel"))
        return usage_error("--replay kernel is the range profiler's, and --counters pattern "
                           "turns the range profiler off");
    /* the range profiler's options would do nothing: say so rather than ignore them */
    if (is_pattern && (o->metrics || o->metric_set))
        return usage_error("--metrics and --metric-set choose the range profiler's counters, and "
                           "--counters pattern turns the range profiler off");
    /*
     * A SASS-patched metric (smsp__sass_*, sm__sass_*) under user replay,
     * the default: the range profiler read every one of them as 0 on the
     * H200 (docs/metrics.md "SASS-patched metrics under user replay"), so
     * asking for one there can only give a wrong number
     */
    for (const char *p = o->metrics; p && *p;) {
        size_t n = strcspn(p, ",");
        char name[160];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        if (run_reads_zero(o, name))
            return usage_error(
                "--metrics: '%s' is SASS-patched, and the range profiler reads such metrics only "
                "under --replay kernel (0 under the default's user replay); add --replay kernel, "
                "or use --counters pattern for exact per-instruction counts",
                name);
        p += n + (p[n] == ',');
    }
    if (is_pattern && o->cache_control && !strcmp(o->cache_control, "all"))
        return usage_error("--cache-control all flushes the L2 for the range profiler's counters; "
                           "--counters pattern counts accesses exactly, whatever the L2 holds");
    if (o->cache_control && !strcmp(o->cache_control, "all") && o->mode &&
        !strcmp(o->mode, "trace"))
        return usage_error("--cache-control all flushes the L2 before profiled launches, and "
                           "--mode trace profiles none");
    o->argv = argv + i;
    return 0;
}
