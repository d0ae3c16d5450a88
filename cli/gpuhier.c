/* SPDX-License-Identifier: MIT */
/*
 * gpuhier: subcommand dispatcher, as git.c and perf.c do it: one table,
 * one cmd_<name>() per subcommand, and a check that stdout was written
 * out without error before the status is returned.
 */
#include "cli/cli.h"
#include "analyzer/analyzer.h"
#include "export/sanitize.h"
#include "schema/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cmd_struct {
    const char *name;
    int (*fn)(int argc, const char **argv);
    const char *help;
};

static const struct cmd_struct commands[] = {
    {"run", cmd_run, "profile a program; prints the top findings at the end"},
    {"analyze", cmd_analyze, "apply the rules, print ranked findings"},
    {"tui", cmd_tui, "browse a report in the terminal"},
    {"report", cmd_report, "the TUI's views as plain text"},
    {"export", cmd_export, "findings for tickets: md, json, csv, sarif, junit, html"},
    {"check", cmd_check, "exit non-zero for CI when findings reach a severity"},
    {"diff", cmd_diff, "compare two reports: did the fix work"},
    {"merge", cmd_merge, "one report for a job of many processes, keyed by rank"},
    {"rules", cmd_rules, "list the rule set, or explain one rule"},
    {"doctor", cmd_doctor, "is this machine ready to profile, and if not, why"},
    {"demo", cmd_demo, "open the report that ships with gpuhier"},
};

/*
 * Print "gpuhier: <level>: <message>" with the whole message sanitized:
 * messages echo file names, SQLite's error text (which quotes a report's
 * view and column text) and environment values, none of them ours, so
 * an escape sequence in any of them must not reach the terminal raw.
 */
static void
report_line(const char *level, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *raw = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (!raw)
        abort();
    vsnprintf(raw, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
    char *clean = sanitize_text(raw, strlen(raw) * 4 + 16);
    fflush(stdout);
    fprintf(stderr, "gpuhier: %s: %s\n", level, clean);
    free(clean);
    free(raw);
}

int
error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_line("error", fmt, ap);
    va_end(ap);
    return -1;
}

void
warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_line("warning", fmt, ap);
    va_end(ap);
}

void
note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_line("note", fmt, ap);
    va_end(ap);
}

int
cli_store_exit_code(void)
{
    switch (store_failure()) {
    case STORE_ERR_NEWER:
    case STORE_ERR_OLDER:
        return GH_EXIT_NEWER_REPORT;
    default:
        return GH_EXIT_NO_REPORT;
    }
}

void
cli_store_note(void)
{
    if (*store_note())
        note("%s", store_note());
}

int
cli_report_failed(const char *path, const char *path2, int code, const char *msg)
{
    const char *paths[] = {path, path2};
    /* `msg` may be store_error() itself, which the diagnosis overwrites. */
    char *what = strdup(msg && *msg ? msg : "a reader failed without a message");
    if (!what)
        abort();
    for (size_t i = 0; i < 2; i++) {
        if (paths[i] && store_diagnose(paths[i])) {
            error("%s", store_error());
            free(what);
            return cli_store_exit_code();
        }
    }
    if (code == GH_EXIT_INTERNAL)
        error("%s (internal error: the report is sound; please report this bug)", what);
    else
        error("%s", what);
    free(what);
    return code;
}

int
cli_analyzer_failed(const char *path)
{
    enum analyzer_failure f = analyzer_failure();
    if (f == ANALYZER_ERR_REPORT && store_failure() != STORE_OK) {
        error("%s", analyzer_error());
        return cli_store_exit_code();
    }
    int code = f == ANALYZER_ERR_RULES    ? GH_EXIT_RULES
               : f == ANALYZER_ERR_REPORT ? GH_EXIT_NO_REPORT
                                          : GH_EXIT_INTERNAL;
    return cli_report_failed(path, NULL, code, analyzer_error());
}

const char *
cli_self_dir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
    if (n <= 0) {
        dir[0] = '\0';
        return dir;
    }
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    return dir;
}

static int
exists(const char *p)
{
    return access(p, F_OK) == 0;
}

char *
cli_data_path(const char *rel)
{
    char buf[PATH_MAX];
    const char *env = getenv("GPUHIER_DATA_DIR");
    if (env && *env) {
        snprintf(buf, sizeof(buf), "%s/%s", env, rel);
        return strdup(buf);
    }
    /*
     * Candidates, in order: next to the executable (build tree: build/cli,
     * data in build/<rel> or the source tree), then the install layout
     * (<prefix>/bin -> <prefix>/share/gpuhier).
     */
    const char *self = cli_self_dir();
    const char *prefixes[] = {"", "/..", "/../share/gpuhier", "/../lib/gpuhier"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        int n = snprintf(buf, sizeof(buf), "%s%s/%s", self, prefixes[i], rel);
        if (n > 0 && (size_t)n < sizeof(buf) && exists(buf))
            return strdup(buf);
    }
#ifdef GPUHIER_SOURCE_DIR
    snprintf(buf, sizeof(buf), "%s/%s", GPUHIER_SOURCE_DIR, rel);
    if (exists(buf))
        return strdup(buf);
#endif
    return NULL;
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: gpuhier <command> [options] [args]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'gpuhier <command> --help' lists a command's options; 'gpuhier help <command>' "
               "shows its manual page.\n");
}

/* Is `prog` an executable file in a directory of PATH? */
static int
on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    while (path && *path) {
        size_t n = strcspn(path, ":");
        int len = snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
        if (n && len > 0 && (size_t)len < sizeof(buf) && access(buf, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

/*
 * The first of `rels` (relative to the executable's directory) that exists,
 * then the same name in the source tree under `src_rel`; a new string or NULL.
 */
static char *
find_beside_self(const char *const *rels, size_t n, const char *src_rel)
{
    char buf[PATH_MAX];
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(buf, sizeof(buf), "%s/%s", cli_self_dir(), rels[i]);
        if (len > 0 && (size_t)len < sizeof(buf) && exists(buf))
            return strdup(buf);
    }
#ifdef GPUHIER_SOURCE_DIR
    if (src_rel) {
        snprintf(buf, sizeof(buf), "%s/%s", GPUHIER_SOURCE_DIR, src_rel);
        if (exists(buf))
            return strdup(buf);
    }
#else
    (void)src_rel;
#endif
    return NULL;
}

/*
 * gpuhier help [COMMAND], as git help: the manual page through `man -l`
 * (the page found beside the executable, so an install that is not on
 * MANPATH works too), else the Markdown the page is made from.
 */
static int
cmd_help(int argc, const char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return GH_EXIT_OK;
    }
    if (argc > 2) {
        error("help: one command at a time ('%s' and '%s')", argv[1], argv[2]);
        return GH_EXIT_USAGE;
    }
    const char *name = argv[1];
    int is_known = !strcmp(name, "gpuhier") || !strcmp(name, "help");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        is_known |= !strcmp(name, commands[i].name);
    if (!is_known) {
        error("'%s' is not a gpuhier command; see 'gpuhier --help'", name);
        return GH_EXIT_USAGE;
    }
    if (!strcmp(name, "help"))
        name = "gpuhier";
    char page[64], md[64], src_md[80];
    int is_main = !strcmp(name, "gpuhier");
    snprintf(page, sizeof(page), is_main ? "gpuhier.1" : "gpuhier-%s.1", name);
    snprintf(md, sizeof(md), is_main ? "gpuhier.md" : "cmd-%s.md", name);
    snprintf(src_md, sizeof(src_md), "docs/%s", md);
    char rel_man[2][96], rel_md[2][96];
    /* Build tree: <build>/man/; install: <prefix>/share/man/man1/ and share/doc/gpuhier/. */
    snprintf(rel_man[0], sizeof(rel_man[0]), "man/%s", page);
    snprintf(rel_man[1], sizeof(rel_man[1]), "../share/man/man1/%s", page);
    snprintf(rel_md[0], sizeof(rel_md[0]), "../share/doc/gpuhier/%s", md);
    snprintf(rel_md[1], sizeof(rel_md[1]), "../%s", src_md);
    const char *mans[] = {rel_man[0], rel_man[1]}, *mds[] = {rel_md[0], rel_md[1]};
    char *path = find_beside_self(mans, 2, NULL);
    if (path && on_path("man")) {
        fflush(stdout);
        execlp("man", "man", "-l", path, (char *)NULL);
        warning("help: cannot run man: %s; printing the page", strerror(errno));
    }
    free(path);
    path = find_beside_self(mds, 2, src_md);
    if (!path) {
        error("help: the manual page of '%s' is not installed", name);
        return GH_EXIT_INTERNAL;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        error("help: cannot read '%s': %s", path, strerror(errno));
        free(path);
        return GH_EXIT_INTERNAL;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(f);
    free(path);
    return GH_EXIT_OK;
}

int
main(int argc, const char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return GH_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        usage(stdout);
        return GH_EXIT_OK;
    }
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("gpuhier %s (schema %d)\n", GPUHIER_VERSION, STORE_SCHEMA_VERSION);
        return GH_EXIT_OK;
    }
    int (*fn)(int, const char **) = !strcmp(name, "help") ? cmd_help : NULL;
    for (size_t i = 0; !fn && i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(name, commands[i].name))
            fn = commands[i].fn;
    if (fn) {
        int status = fn(argc - 1, argv + 1);
        /* Somebody closed stdout, or the disk is full: say so, don't hide it. */
        if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
            if (errno != EPIPE)
                error("write failure on standard output: %s", strerror(errno));
            return status ? status : GH_EXIT_OUTPUT;
        }
        return status;
    }
    error("'%s' is not a gpuhier command; see 'gpuhier --help'", name);
    return GH_EXIT_USAGE;
}
