/* SPDX-License-Identifier: MIT */
/*
 * cli: the `gpuhier` command and its subcommands, one file each
 * (cli/cmd_<name>.c), dispatched from the table in cli/gpuhier.c.
 *
 * Adding a subcommand:
 *   1. write `int cmd_<name>(int argc, const char **argv)` in cli/cmd_<name>.c;
 *      argv[0] is the subcommand name; return an exit code from below;
 *   2. declare it here and add a row to the table in cli/gpuhier.c;
 *   3. add the file to cli/CMakeLists.txt;
 *   4. document it in docs/cmd-<name>.md and list it in README.md;
 *   5. test it in tests/e2e/t4xx-<name>.sh.
 *
 * Exit codes (documented in docs/exit-codes.md; stable, scripts rely on them).
 * `gpuhier run` is the exception: it returns the profiled program's status.
 */
#ifndef GPUHIER_CLI_CLI_H
#define GPUHIER_CLI_CLI_H

#include <stdarg.h>

enum gh_exit {
    GH_EXIT_OK = 0,        /* success; `check`: no finding reached the severity */
    GH_EXIT_FINDINGS = 1,  /* `check`: at least one finding at or above --fail-on */
    GH_EXIT_USAGE = 2,     /* bad command line: unknown option, bad value, bad regex */
    GH_EXIT_NO_REPORT = 3, /* report missing, unreadable, not a report, or damaged */
    GH_EXIT_NEWER_REPORT =
        4,              /* report written by a newer gpuhier (or an older one needing migration) */
    GH_EXIT_RULES = 5,  /* a rule file is broken (message names file and line) */
    GH_EXIT_OUTPUT = 6, /* cannot write the output (exists without -f, or I/O error) */
    GH_EXIT_NO_GPU = 7, /* doctor/calibrate: no usable GPU, driver or CUPTI */
    GH_EXIT_INTERNAL = 70,   /* internal error (EX_SOFTWARE); a bug: please report it */
    GH_EXIT_NOT_EXEC = 126,  /* run: the program exists but cannot be executed */
    GH_EXIT_NOT_FOUND = 127, /* run: the program was not found */
};

int cmd_run(int argc, const char **argv);
int cmd_analyze(int argc, const char **argv);
int cmd_tui(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_export(int argc, const char **argv);
int cmd_check(int argc, const char **argv);
int cmd_diff(int argc, const char **argv);
int cmd_rules(int argc, const char **argv);
int cmd_doctor(int argc, const char **argv);
int cmd_demo(int argc, const char **argv);
int cmd_merge(int argc, const char **argv);

/* Print "gpuhier: error: <msg>" to stderr. Returns -1. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "gpuhier: warning: <msg>" to stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Print "gpuhier: note: <msg>" to stderr. All three sanitize the whole
 * message (export/sanitize.h): paths, SQLite's messages and environment
 * values in it are shown with visible escapes, never raw.
 */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Check that `re` compiles as a POSIX extended regular expression. If not,
 * print "<what>: bad regular expression '<re>': <why>" and return -1.
 * `what` names the option, e.g. "--kernel" or "run: --kernel".
 */
int cli_check_regex(const char *what, const char *re);

/* Map the last store_open() failure to an exit code (GH_EXIT_NO_REPORT / _NEWER_REPORT). */
int cli_store_exit_code(void);

/* Print store_note() as a note when the last open recovered something. */
void cli_store_note(void);

/*
 * A reader failed with `msg` after its report(s) opened: when
 * store_diagnose() blames `path` or `path2` (NULL: none), print that
 * and return its exit code (GH_EXIT_NO_REPORT / _NEWER_REPORT);
 * otherwise print `msg` (a placeholder when empty; flagged as a bug for
 * GH_EXIT_INTERNAL) and return `code`.
 */
int cli_report_failed(const char *path, const char *path2, int code, const char *msg);

/*
 * The analyzer failed on the report at `path`: its open failure as it
 * is, anything else through cli_report_failed() (GH_EXIT_RULES for a
 * rule, GH_EXIT_INTERNAL for the analyzer's own SQL, unless the report
 * is to blame). Returns the exit code.
 */
int cli_analyzer_failed(const char *path);

/*
 * Open a report for the readers (tui, report, demo): the analyzed
 * in-memory copy from analyzer_open_report() when it needs analysis,
 * the file itself when it is current; with `raw`, or when analysis
 * fails (warning printed), the file as it is. Returns GH_EXIT_OK with a
 * new connection in *out, or an exit code after printing the error.
 * Defined in cli/cmd_tui.c.
 */
struct sqlite3;
int cli_open_for_reading(const char *path, int raw, struct sqlite3 **out);

/*
 * Open a report for export, check and diff: like cli_open_for_reading(),
 * but a report that cannot be analyzed is an error (a CI gate must not
 * pass on missing findings). `rules_dir` NULL: the default rules.
 * Defined in cli/cmd_export.c.
 */
int cli_open_analyzed(const char *path, int raw, const char *rules_dir, struct sqlite3 **out);

/*
 * Option with a value, as "--name VALUE" or "--name=VALUE" at argv[*i]:
 * returns 1 with *value set (advancing *i past a separate value), else 0.
 * Defined in cli/cmd_export.c.
 */
int cli_opt_value(int argc, const char **argv, int *i, const char *name, const char **value);

/* Directory of the running gpuhier executable (static buffer), "" if unknown. */
const char *cli_self_dir(void);

/*
 * Where data files (rules/, the collector library, the demo report) are:
 * GPUHIER_DATA_DIR if set, else the build/install layout around the
 * executable. Returns a new string (free()) for `rel` under it, or NULL.
 */
char *cli_data_path(const char *rel);

#endif
