/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for `gpuhier run`'s pieces: option parsing (cli/run_opts.c),
 * program lookup (cli/run_child.c) and the session file
 * (cli/run_session.c). Spawning and signals are tested end to end in
 * tests/e2e/t40*.sh.
 */
#include "cli/cli.h"
#include "cli/run_int.h"
#include "tests/check.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

/* The parts under test report through error(); count instead of exiting. */
static int n_errors;
static char last_error[1024];

int
error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    n_errors++;
    return -1;
}

void
warning(const char *fmt, ...)
{
    (void)fmt;
}

static int
parse(struct run_opts *o, const char **args)
{
    int argc = 0;
    while (args[argc])
        argc++;
    *o = (struct run_opts)RUN_OPTS_INIT;
    n_errors = 0;
    last_error[0] = '\0';
    return run_opts_parse(argc, args, o);
}

static void
test_cli_run_stops_at_program(void)
{
    struct run_opts o;
    const char *a[] = {"run", "./app", "-o", "x.db", "-f", NULL};
    CHECK_EQ_INT(parse(&o, a), 0);
    CHECK_STR(o.argv[0], "./app");
    CHECK_STR(o.argv[1], "-o");
    CHECK_STR(o.argv[2], "x.db");
    CHECK(o.argv[4] == NULL);
    CHECK(o.output == NULL);
    CHECK_EQ_INT(o.is_force, 0);
}

static void
test_cli_run_options_before_program(void)
{
    struct run_opts o;
    const char *a[] = {"run",
                       "-o",
                       "r-%p.db",
                       "-f",
                       "-q",
                       "--mode",
                       "trace",
                       "--sample=every:10",
                       "-k",
                       "gemm|conv",
                       "--launch-skip",
                       "5",
                       "--launch-count=10",
                       "--profile-budget",
                       "30",
                       "--nvtx-include",
                       "^fwd",
                       "--metrics",
                       "dram__bytes_read.sum,smsp__inst_executed.sum",
                       "--no-analyze",
                       "--rules",
                       ".",
                       "python3",
                       "train.py",
                       NULL};
    CHECK_EQ_INT(parse(&o, a), 0);
    CHECK_STR(o.output, "r-%p.db");
    CHECK_EQ_INT(o.is_force, 1);
    CHECK_EQ_INT(o.is_quiet, 1);
    CHECK_STR(o.mode, "trace");
    CHECK_STR(o.sample, "every:10");
    CHECK_STR(o.kernel, "gemm|conv");
    CHECK_EQ_INT(o.launch_skip, 5);
    CHECK_EQ_INT(o.launch_count, 10);
    CHECK_STR(o.profile_budget, "30");
    CHECK_STR(o.nvtx_include, "^fwd");
    CHECK_STR(o.metrics, "dram__bytes_read.sum,smsp__inst_executed.sum");
    CHECK_EQ_INT(o.is_no_analyze, 1);
    CHECK_STR(o.rules_dir, ".");
    CHECK_STR(o.argv[0], "python3");
    CHECK_STR(o.argv[1], "train.py");
    CHECK_EQ_INT(n_errors, 0);
}

static void
test_cli_run_double_dash(void)
{
    struct run_opts o;
    const char *a[] = {"run", "-f", "--", "-weird-name", "--", NULL};
    CHECK_EQ_INT(parse(&o, a), 0);
    CHECK_STR(o.argv[0], "-weird-name");
    CHECK_STR(o.argv[1], "--");
    CHECK_EQ_INT(o.is_force, 1);
}

static void
test_cli_run_short_forms(void)
{
    struct run_opts o;
    const char *a[] = {"run", "-fq", "-or.db", "-kfoo", "app", NULL};
    CHECK_EQ_INT(parse(&o, a), 0);
    CHECK_EQ_INT(o.is_force, 1);
    CHECK_EQ_INT(o.is_quiet, 1);
    CHECK_STR(o.output, "r.db");
    CHECK_STR(o.kernel, "foo");
    CHECK_STR(o.argv[0], "app");
    /* A value that looks like the program is still the option's value. */
    const char *b[] = {"run", "-k", "./app", "./app", NULL};
    CHECK_EQ_INT(parse(&o, b), 0);
    CHECK_STR(o.kernel, "./app");
    CHECK_STR(o.argv[0], "./app");
    /* A lone "-" is a program name (as a shell would see it), not an option. */
    const char *c[] = {"run", "-", NULL};
    CHECK_EQ_INT(parse(&o, c), 0);
    CHECK_STR(o.argv[0], "-");
}

static void
test_cli_run_help(void)
{
    struct run_opts o;
    const char *a[] = {"run", "--help", NULL};
    CHECK_EQ_INT(parse(&o, a), 0);
    CHECK_EQ_INT(o.is_help, 1);
    const char *b[] = {"run", "-h", NULL};
    CHECK_EQ_INT(parse(&o, b), 0);
    CHECK_EQ_INT(o.is_help, 1);
}

static void
expect_bad(const char **a, const char *needle)
{
    struct run_opts o;
    int rc = parse(&o, a);
    CHECK_EQ_INT(rc, -1);
    CHECK_EQ_INT(n_errors, 1);
    if (!strstr(last_error, needle)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", last_error, needle);
        CHECK(0);
    }
}

static void
test_cli_run_bad_values(void)
{
    expect_bad((const char *[]){"run", NULL}, "no program");
    expect_bad((const char *[]){"run", "-f", "--", NULL}, "no program");
    expect_bad((const char *[]){"run", "-x", "app", NULL}, "unknown option '-x'");
    expect_bad((const char *[]){"run", "--frobnicate", "app", NULL},
               "unknown option '--frobnicate'");
    expect_bad((const char *[]){"run", "-o", NULL}, "needs a value");
    expect_bad((const char *[]){"run", "--mode", NULL}, "needs a value");
    expect_bad((const char *[]){"run", "--force=1", "app", NULL}, "takes no value");
    expect_bad((const char *[]){"run", "--mode", "fast", "app", NULL},
               "'fast' is not trace or profile");
    expect_bad((const char *[]){"run", "--sample", "every:0", "app", NULL}, "every:0");
    expect_bad((const char *[]){"run", "--sample", "first:", "app", NULL}, "first:");
    expect_bad((const char *[]){"run", "--sample", "some", "app", NULL}, "'some'");
    expect_bad((const char *[]){"run", "--sample", "every:3x", "app", NULL}, "every:3x");
    expect_bad((const char *[]){"run", "--launch-skip", "-1", "app", NULL}, "whole number");
    expect_bad((const char *[]){"run", "--launch-count", "10k", "app", NULL}, "whole number");
    expect_bad((const char *[]){"run", "--launch-count", "", "app", NULL}, "whole number");
    expect_bad((const char *[]){"run", "--profile-budget", "0", "app", NULL}, "percentage > 0");
    expect_bad((const char *[]){"run", "--profile-budget", "30%", "app", NULL}, "percentage > 0");
    expect_bad((const char *[]){"run", "--profile-budget", "-5", "app", NULL}, "percentage > 0");
    expect_bad((const char *[]){"run", "-k", "(", "app", NULL}, "bad regular expression '('");
    expect_bad((const char *[]){"run", "--nvtx-include", "[a", "app", NULL},
               "bad regular expression");
    expect_bad((const char *[]){"run", "--metrics", "", "app", NULL}, "empty name");
    expect_bad((const char *[]){"run", "--metrics", "a,,b", "app", NULL}, "empty name");
    expect_bad((const char *[]){"run", "--metrics", "dram bytes", "app", NULL},
               "'dram bytes' is not a metric");
    expect_bad((const char *[]){"run", "-o", "r%x.db", "app", NULL}, "bad report name pattern");
    expect_bad((const char *[]){"run", "-o", "reports/", "app", NULL}, "names a directory");
    expect_bad((const char *[]){"run", "--rules", "/nonexistent-gpuhier-rules", "app", NULL},
               "--rules");
    expect_bad((const char *[]){"run", "--rules", "/etc/passwd", "app", NULL}, "not a directory");
}

static void
test_cli_run_counters(void)
{
    struct run_opts o;
    /* Absent: NULL, so GPUHIER_INSTRUMENT stays as the user set it. */
    CHECK_EQ_INT(parse(&o, (const char *[]){"run", "app", NULL}), 0);
    CHECK(o.counters == NULL);
    CHECK_EQ_INT(parse(&o, (const char *[]){"run", "--counters", "pattern", "app", NULL}), 0);
    CHECK_STR(o.counters, "pattern");
    CHECK_EQ_INT(parse(&o, (const char *[]){"run", "--counters=hardware", "app", NULL}), 0);
    CHECK_STR(o.counters, "hardware");
    CHECK_EQ_INT(parse(&o, (const char *[]){"run", "--counters", "both", "app", NULL}), 0);
    CHECK_STR(o.counters, "both");
    /* both beside the range profiler's kernel replay or a list of the user's alone: refused */
    expect_bad((const char *[]){"run", "--counters", "both", "--replay", "kernel", "app", NULL},
               "--counters hardware");
    expect_bad((const char *[]){"run", "--metric-set", "none", "--metrics", "x.sum", "--counters",
                                "both", "app", NULL},
               "--counters hardware");
    /* left out, they are the range profiler's alone (the collector chooses it) */
    CHECK_EQ_INT(parse(&o, (const char *[]){"run", "--replay", "kernel", "app", NULL}), 0);
    /* Each engine's own companions are fine. */
    CHECK_EQ_INT(parse(&o, (const char *[]){"run", "--counters", "pattern", "--replay", "none",
                                            "--mode", "profile", "app", NULL}),
                 0);
    CHECK_EQ_INT(parse(&o, (const char *[]){"run", "--counters", "hardware", "--replay", "kernel",
                                            "app", NULL}),
                 0);
    CHECK_EQ_INT(parse(&o, (const char *[]){"run", "--counters", "hardware", "--mode", "trace",
                                            "app", NULL}),
                 0);
    expect_bad((const char *[]){"run", "--counters", "sass", "app", NULL},
               "--counters: 'sass' is not both, hardware or pattern");
    expect_bad((const char *[]){"run", "--counters", "Pattern", "app", NULL}, "'Pattern'");
    /* The conflicts, in either order. */
    expect_bad((const char *[]){"run", "--counters", "pattern", "--mode", "trace", "app", NULL},
               "--mode trace");
    expect_bad((const char *[]){"run", "--mode=trace", "--counters=pattern", "app", NULL},
               "--counters pattern");
    expect_bad((const char *[]){"run", "--counters", "pattern", "--replay", "kernel", "app", NULL},
               "--replay kernel");
    expect_bad((const char *[]){"run", "--replay", "kernel", "--counters", "pattern", "app", NULL},
               "--counters pattern");
    /* the range profiler's own options would do nothing with pattern counters */
    expect_bad((const char *[]){"run", "--counters", "pattern", "--metrics", "x.sum", "app", NULL},
               "--metrics and --metric-set");
    expect_bad(
        (const char *[]){"run", "--metric-set", "default", "--counters", "pattern", "app", NULL},
        "--metrics and --metric-set");
    expect_bad(
        (const char *[]){"run", "--counters", "pattern", "--cache-control", "all", "app", NULL},
        "--cache-control all");
    CHECK_EQ_INT(parse(&o, (const char *[]){"run", "--counters", "pattern", "--cache-control",
                                            "none", "app", NULL}),
                 0);
    /* a SASS-patched metric reads 0 under user replay (docs/metrics.md): only with --replay kernel */
    expect_bad((const char *[]){"run", "--metrics",
                                "dram__bytes_read.sum,smsp__sass_data_bytes_mem_global_op_ld.sum",
                                "app", NULL},
               "--replay kernel");
    expect_bad((const char *[]){"run", "--replay", "none", "--metrics",
                                "sm__sass_inst_executed.sum", "app", NULL},
               "SASS-patched");
    CHECK_EQ_INT(
        parse(&o, (const char *[]){"run", "--replay", "kernel", "--metrics",
                                   "smsp__sass_data_bytes_mem_global_op_ld.sum", "app", NULL}),
        0);
    CHECK_EQ_INT(
        parse(&o, (const char *[]){"run", "--metrics", "dram__bytes_read.sum", "app", NULL}), 0);
}

static void
test_cli_run_sample_specs(void)
{
    const char *ok[] = {"config", "all", "first:1", "first:20", "every:7"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct run_opts o;
        const char *a[] = {"run", "--sample", ok[i], "app", NULL};
        CHECK_EQ_INT(parse(&o, a), 0);
        CHECK_STR(o.sample, ok[i]);
    }
}

static void
test_cli_run_find_program(void)
{
    int code = 0;
    char *p = run_find_program("sh", &code);
    CHECK(p != NULL && p[0] == '/');
    free(p);

    code = 0;
    CHECK(run_find_program("/nonexistent/gpuhier-prog", &code) == NULL);
    CHECK_EQ_INT(code, GH_EXIT_NOT_FOUND);
    code = 0;
    CHECK(run_find_program("gpuhier-no-such-command-xyz", &code) == NULL);
    CHECK_EQ_INT(code, GH_EXIT_NOT_FOUND);
    CHECK(strstr(last_error, "not found in PATH") != NULL);
    code = 0;
    CHECK(run_find_program("/tmp", &code) == NULL);
    CHECK_EQ_INT(code, GH_EXIT_NOT_EXEC);

    char dir[] = "/tmp/gh-cli-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char file[256];
    snprintf(file, sizeof(file), "%s/notexec", dir);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    code = 0;
    CHECK(run_find_program(file, &code) == NULL);
    CHECK_EQ_INT(code, GH_EXIT_NOT_EXEC);
    /* Found in PATH but not executable: 126, as a shell says. */
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    setenv("PATH", dir, 1);
    code = 0;
    CHECK(run_find_program("notexec", &code) == NULL);
    CHECK_EQ_INT(code, GH_EXIT_NOT_EXEC);
    chmod(file, 0755);
    p = run_find_program("notexec", &code);
    CHECK_STR(p, file);
    free(p);
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
    unlink(file);
    rmdir(dir);
}

static void
test_cli_run_session_file(void)
{
    char path[] = "/tmp/gh-session-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char *text = "start\t100\t/r/gpuhier-1.db\n"
                       "start\t200\t/r/gpuhier-2.db\n"
                       "something-new\tx\n"
                       "end\t100\t/r/gpuhier-1.db\t5000\t12\t4988\t3\t2\t1500000000\n"
                       "end\t300\n"
                       "end\t300\t/r/x.db\t1\t2\t3\tfour\t5\t6\n";
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);

    struct run_session s;
    CHECK_EQ_INT(run_session_read(path, &s), 0);
    CHECK_EQ_INT(s.n, 2);
    CHECK_EQ_INT(s.n_bad_lines, 2);
    if (s.n == 2) {
        CHECK_EQ_INT(s.procs[0].pid, 100);
        CHECK_STR(s.procs[0].report, "/r/gpuhier-1.db");
        CHECK_EQ_INT(s.procs[0].has_end, 1);
        CHECK_EQ_INT(s.procs[0].traced, 5000);
        CHECK_EQ_INT(s.procs[0].profiled, 12);
        CHECK_EQ_INT(s.procs[0].skipped, 4988);
        CHECK_EQ_INT(s.procs[0].dropped, 3);
        CHECK_EQ_INT(s.procs[0].passes, 2);
        CHECK_EQ_INT(s.procs[0].profiling_ns, 1500000000LL);
        CHECK_EQ_INT(s.procs[1].pid, 200);
        CHECK_EQ_INT(s.procs[1].has_end, 0);
    }
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    run_session_print(&s, NULL, m);
    fclose(m);
    CHECK(strstr(out, "process 100: report /r/gpuhier-1.db") != NULL);
    CHECK(strstr(out, "5000 traced, 12 profiled") != NULL);
    CHECK(strstr(out, "1.50 s") != NULL);
    CHECK(strstr(out, "process 200: report /r/gpuhier-2.db (not closed") != NULL);
    CHECK(strstr(out, "3 records were dropped") != NULL);
    free(out);
    run_session_release(&s);
    unlink(path);

    /* Missing file and empty file: nobody initialized CUDA. */
    CHECK_EQ_INT(run_session_read(path, &s), 0);
    CHECK_EQ_INT(s.n, 0);
    m = open_memstream(&out, &len);
    run_session_print(&s, "/", m);
    fclose(m);
    CHECK_STR(out, "==gpuhier== the program never initialized CUDA: no report written\n");
    free(out);
    run_session_release(&s);
}

static const struct check_test tests[] = {
    {"cli_run_stops_at_program", test_cli_run_stops_at_program},
    {"cli_run_options_before_program", test_cli_run_options_before_program},
    {"cli_run_double_dash", test_cli_run_double_dash},
    {"cli_run_short_forms", test_cli_run_short_forms},
    {"cli_run_help", test_cli_run_help},
    {"cli_run_bad_values", test_cli_run_bad_values},
    {"cli_run_counters", test_cli_run_counters},
    {"cli_run_sample_specs", test_cli_run_sample_specs},
    {"cli_run_find_program", test_cli_run_find_program},
    {"cli_run_session_file", test_cli_run_session_file},
};

CHECK_MAIN(tests)
