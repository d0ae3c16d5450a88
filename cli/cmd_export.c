/* SPDX-License-Identifier: MIT */
/*
 * gpuhier export: findings for tickets and CI (docs/cmd-export.md).
 *
 * Also holds cli_open_analyzed(), shared with `check` and `diff`: unlike
 * the browsers' cli_open_for_reading(), it fails when the report cannot
 * be analyzed, because a CI gate or a ticket built from a report whose
 * findings are missing would say "clean" when it is not.
 *
 * Output goes to a temporary file beside the target and is renamed into
 * place, so a failed export never leaves half a file where a CI job
 * expects a complete one.
 */
#include "cli/cli.h"

#include "analyzer/analyzer.h"
#include "export/export.h"
#include "schema/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
cli_open_analyzed(const char *path, int raw, const char *rules_dir, sqlite3 **out)
{
    *out = NULL;
    sqlite3 *db = NULL;
    if (store_open(path, STORE_READ_ONLY, &db)) {
        error("%s", store_error());
        return cli_store_exit_code();
    }
    cli_store_note();
    if (raw) {
        *out = db;
        return GH_EXIT_OK;
    }
    sqlite3_close(db);
    struct analyzer_opts ao = {.rules_dir = rules_dir};
    if (analyzer_open_report(path, &ao, &db) == 0) {
        *out = db;
        return GH_EXIT_OK;
    }
    return cli_analyzer_failed(path);
}

/*
 * An export failed: on its output (GH_EXIT_OUTPUT) when the stream has
 * an error, else while reading `report` (damaged, or a bug).
 */
static int
export_failed(const char *report, FILE *f)
{
    if (ferror(f)) {
        error("%s", store_error());
        return GH_EXIT_OUTPUT;
    }
    return cli_report_failed(report, NULL, GH_EXIT_INTERNAL, store_error());
}

int
cli_opt_value(int argc, const char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (!strcmp(a, name) && *i + 1 < argc) {
        *value = argv[++*i];
        return 1;
    }
    if (!strncmp(a, name, n) && a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    return 0;
}

static void
usage(FILE *f)
{
    fprintf(
        f,
        "usage: gpuhier export report.db [--format md|json|csv|sarif|junit|html] [-o FILE|DIR/]\n"
        "                      [-f] [--rule ID] [--kernel REGEX] [--min-severity SEV] [--top N]\n"
        "                      [--all] [--one] [--no-redact] [--raw] [--rules DIR]\n"
        "  --format F         md (default): one ticket per finding; json, csv, sarif, junit;\n"
        "                     html: one self-contained page with charts\n"
        "  -o FILE            write to FILE instead of standard output (-f to overwrite)\n"
        "  -o DIR/            md: one ticket file per finding in DIR (created if missing)\n"
        "  --rule ID          only findings of this rule\n"
        "  --kernel REGEX     only kernels whose demangled name matches (POSIX extended)\n"
        "  --min-severity S   note, warning (default), error; junit: the failure threshold "
        "(default warning)\n"
        "  --all              md, html: every finding, notes with no time lost included\n"
        "  --top N            only the N highest-ranked findings\n"
        "  --one              md: all findings in one document\n"
        "  --no-redact        keep secret-looking values of the command line and environment\n"
        "  --raw              use the findings stored in the report; never analyze\n"
        "  --rules DIR        analyze with the rules in DIR\n"
        "'gpuhier help export' has the details.\n");
}

static int
is_severity(const char *s)
{
    return export_severity_rank(s) > 0;
}

/*
 * Write a device, FIFO or terminal (`-o /dev/null`, `-o /dev/stdout`, a
 * pipe) directly: renaming a temporary file over it would replace the
 * special file itself, which as root destroys /dev/null for the machine.
 */
static int
write_special(sqlite3 *db, const struct export_opts *o, const char *report, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        error("cannot write '%s': %s", path, strerror(errno));
        return GH_EXIT_OUTPUT;
    }
    int rc = export_write(db, o, f);
    if (rc) {
        rc = export_failed(report, f);
        fclose(f);
        return rc;
    }
    int cerr = fclose(f);
    if (cerr != 0) {
        error("cannot write '%s': %s", path, strerror(errno));
        return GH_EXIT_OUTPUT;
    }
    return GH_EXIT_OK;
}

/* Write a regular file through a temporary file renamed into place. */
static int
write_file(sqlite3 *db, const struct export_opts *o, const char *report, const char *path,
           int force)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        return write_special(db, o, report, path);
    if (!force && access(path, F_OK) == 0) {
        error("'%s' exists; use -f to overwrite it", path);
        return GH_EXIT_OUTPUT;
    }
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp)
        abort();
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        error("cannot write '%s': %s", path, strerror(errno));
        free(tmp);
        return GH_EXIT_OUTPUT;
    }
    int rc = export_write(db, o, f);
    int ret = rc ? export_failed(report, f) : GH_EXIT_OK;
    int cerr = fclose(f);
    if (!rc && (cerr != 0 || rename(tmp, path) != 0)) {
        error("cannot write '%s': %s", path, strerror(errno));
        ret = GH_EXIT_OUTPUT;
    }
    if (ret)
        unlink(tmp);
    free(tmp);
    return ret;
}

static void
load_rule_docs(const char *rules_dir, struct ruleset **rs, struct export_rule_doc **docs, size_t *n)
{
    *rs = ruleset_load(rules_dir);
    *docs = NULL;
    *n = 0;
    if (!*rs)
        return; /* SARIF then describes rules from the report alone */
    *docs = calloc((*rs)->n ? (*rs)->n : 1, sizeof(**docs));
    if (!*docs)
        abort();
    for (size_t i = 0; i < (*rs)->n; i++) {
        const struct rule *r = &(*rs)->rules[i];
        (*docs)[i] = (struct export_rule_doc){.id = r->id,
                                              .title = r->title,
                                              .tier = r->tier,
                                              .doc = r->doc,
                                              .rationale = r->rationale};
    }
    *n = (*rs)->n;
}

int
cmd_export(int argc, const char **argv)
{
    struct export_opts o = {.format = "md", .redact = 1};
    const char *path = NULL, *outp = NULL, *rules_dir = NULL;
    int force = 0, raw = 0, min_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return GH_EXIT_OK;
        } else if (cli_opt_value(argc, argv, &i, "--format", &v)) {
            o.format = v;
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            outp = argv[++i];
        } else if (cli_opt_value(argc, argv, &i, "--output", &v)) {
            outp = v;
        } else if (cli_opt_value(argc, argv, &i, "--rule", &v)) {
            o.rule = v;
        } else if (cli_opt_value(argc, argv, &i, "--kernel", &v)) {
            o.kernel_regex = v;
        } else if (cli_opt_value(argc, argv, &i, "--min-severity", &v)) {
            o.min_severity = v;
            min_set = 1;
        } else if (cli_opt_value(argc, argv, &i, "--top", &v)) {
            char *end;
            long t = strtol(v, &end, 10);
            if (*end || t < 1 || t > 1000000000) {
                error("--top wants a positive number, not '%s'", v);
                return GH_EXIT_USAGE;
            }
            o.top = (int)t;
        } else if (cli_opt_value(argc, argv, &i, "--rules", &v)) {
            rules_dir = v;
        } else if (!strcmp(a, "--all")) {
            o.all = 1;
        } else if (!strcmp(a, "--one")) {
            o.one = 1;
        } else if (!strcmp(a, "--no-redact")) {
            o.redact = 0;
        } else if (!strcmp(a, "--raw")) {
            raw = 1;
        } else if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
            force = 1;
        } else if (a[0] == '-' && a[1]) {
            error("unknown option '%s'", a);
            usage(stderr);
            return GH_EXIT_USAGE;
        } else if (!path) {
            path = a;
        } else {
            error("one report at a time ('%s' and '%s')", path, a);
            return GH_EXIT_USAGE;
        }
    }
    if (!path) {
        usage(stderr);
        return GH_EXIT_USAGE;
    }
    static const char *fmts[] = {"md", "markdown", "json", "csv", "sarif", "junit", "html"};
    int known = 0;
    for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
        known |= !strcmp(o.format, fmts[i]);
    if (!known) {
        error("unknown format '%s' (md, json, csv, sarif, junit, html)", o.format);
        return GH_EXIT_USAGE;
    }
    if (min_set && !is_severity(o.min_severity)) {
        error("unknown severity '%s' (note, warning, error)", o.min_severity);
        return GH_EXIT_USAGE;
    }
    if (o.kernel_regex && cli_check_regex("--kernel", o.kernel_regex))
        return GH_EXIT_USAGE;
    int is_md = !strcmp(o.format, "md") || !strcmp(o.format, "markdown");
    struct stat sb;
    int to_dir = outp && is_md && !o.one &&
                 (outp[strlen(outp) - 1] == '/' || (stat(outp, &sb) == 0 && S_ISDIR(sb.st_mode)));
    if (outp && !to_dir && stat(outp, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        error("'%s' is a directory; only Markdown tickets (without --one) go one file each into a "
              "directory",
              outp);
        return GH_EXIT_USAGE;
    }

    sqlite3 *db = NULL;
    int rc = cli_open_analyzed(path, raw, rules_dir, &db);
    if (rc)
        return rc;
    struct ruleset *rs = NULL;
    struct export_rule_doc *docs = NULL;
    if (!strcmp(o.format, "sarif"))
        load_rule_docs(rules_dir, &rs, &docs, &o.n_rule_docs);
    o.rule_docs = docs;

    if (to_dir) {
        if (mkdir(outp, 0777) != 0 && errno != EEXIST) {
            error("cannot create '%s': %s", outp, strerror(errno));
            rc = GH_EXIT_OUTPUT;
        } else if (export_md_dir(db, &o, outp, stdout) < 0) {
            /* A ticket file that cannot be written says so; anything else is the reading. */
            if (strncmp(store_error(), "cannot write", 12) == 0) {
                error("%s", store_error());
                rc = GH_EXIT_OUTPUT;
            } else {
                rc = export_failed(path, stdout);
            }
        }
    } else if (outp && strcmp(outp, "-")) {
        rc = write_file(db, &o, path, outp, force);
    } else if (export_write(db, &o, stdout)) {
        rc = export_failed(path, stdout);
    }
    free(docs);
    ruleset_free(rs);
    sqlite3_close(db);
    return rc;
}
