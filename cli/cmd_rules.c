/* SPDX-License-Identifier: MIT */
/*
 * gpuhier rules: list the rule set, or print one rule in full
 * (docs/cmd-rules.md). Rule files may be user files (--rules DIR), so
 * their text goes through the sanitizer like any other untrusted string.
 */
#include "analyzer/analyzer.h"
#include "cli/cli.h"
#include "export/sanitize.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: gpuhier rules [--rules DIR]\n"
    "       gpuhier rules [--rules DIR] explain ID\n"
    "\n"
    "Lists the rules (id, tier, title), or prints one rule in full:\n"
    "rationale, thresholds and where they come from, the query, message and remedy.\n";

static void
put(const char *label, const char *s)
{
    char *c = sanitize_text(s ? s : "", 0);
    printf("%-10s %s\n", label, c);
    free(c);
}

/* Print a block of text (the query) sanitized line by line. */
static void
put_block(const char *s)
{
    const char *p = s;
    while (*p) {
        size_t n = strcspn(p, "\n");
        char *line = strndup(p, n);
        char *c = sanitize_text(line, 0);
        printf("    %s\n", c);
        free(c);
        free(line);
        p += n;
        if (*p)
            p++;
    }
}

static void
explain(const struct rule *r)
{
    put("id:", r->id);
    put("title:", r->title);
    put("tier:", r->tier);
    put("doc:", r->doc);
    put("severity:", r->severity ? r->severity
                                 : "from the time lost, its share of GPU and wall time and the "
                                   "estimate's strength (docs/severity.md)");
    put("estimate:", r->estimate);
    if (r->marks)
        put("marks:", r->marks);
    put("capping:", r->capping);
    put("file:", r->path);
    printf("\nrationale:\n");
    put_block(r->rationale);
    if (r->n_thresholds)
        printf("\nthresholds:\n");
    for (size_t i = 0; i < r->n_thresholds; i++) {
        const struct rule_threshold *t = &r->thresholds[i];
        char *name = sanitize_text(t->name, 0), *unit = sanitize_text(t->unit ? t->unit : "", 0);
        char *why = sanitize_text(t->why, 0);
        printf("    %s = %g %s\n        %s\n", name, t->value, unit, why);
        free(name);
        free(unit);
        free(why);
    }
    if (r->n_requires)
        printf("\nrequires:\n");
    for (size_t i = 0; i < r->n_requires; i++) {
        char *k = sanitize_text(r->requires[i].kind, 0),
             *n = sanitize_text(r->requires[i].name ? r->requires[i].name : "", 0);
        printf("    %s %s\n", k, n);
        free(k);
        free(n);
    }
    if (r->n_evidence)
        printf("\nevidence:\n");
    for (size_t i = 0; i < r->n_evidence; i++) {
        const struct rule_evidence *e = &r->evidence[i];
        char buf[512];
        snprintf(buf, sizeof(buf), "%s%s%s%s%s%s%s", e->column, e->unit ? " [" : "",
                 e->unit ? e->unit : "", e->unit ? "]" : "", e->op ? " " : "", e->op ? e->op : "",
                 "");
        char *c = sanitize_text(buf, 0);
        char *t = e->threshold ? sanitize_text(e->threshold, 0) : NULL;
        printf("    %s%s%s\n", c, t ? " " : "", t ? t : "");
        free(c);
        free(t);
    }
    printf("\nmessage:\n");
    put_block(r->message);
    printf("\nremedy:\n");
    put_block(r->remedy);
    printf("\nquery:\n");
    put_block(r->query);
}

int
cmd_rules(int argc, const char **argv)
{
    const char *dir = NULL, *explain_id = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return GH_EXIT_OK;
        } else if (!strcmp(a, "--rules")) {
            if (++i >= argc) {
                error("option '--rules' needs a value");
                return GH_EXIT_USAGE;
            }
            dir = argv[i];
        } else if (!strncmp(a, "--rules=", 8)) {
            dir = a + 8;
        } else if (!strcmp(a, "explain")) {
            if (++i >= argc) {
                error("'rules explain' needs a rule id");
                return GH_EXIT_USAGE;
            }
            explain_id = argv[i];
        } else {
            error("unknown argument '%s'", a);
            fputs(usage_text, stderr);
            return GH_EXIT_USAGE;
        }
    }
    struct ruleset *rs = ruleset_load(dir);
    if (!rs) {
        error("%s", analyzer_error());
        return GH_EXIT_RULES;
    }
    int ret = GH_EXIT_OK;
    if (explain_id) {
        const struct rule *r = ruleset_find(rs, explain_id);
        if (r) {
            explain(r);
        } else {
            char *c = sanitize_text(explain_id, 0);
            error("no rule '%s' (gpuhier rules lists them)", c);
            free(c);
            ret = GH_EXIT_USAGE;
        }
    } else {
        char *d = sanitize_text(rs->dir, 0);
        printf("%zu rules in %s (rule set %s)\n\n", rs->n, d, rs->version);
        free(d);
        printf("%-26s %-9s %-8s %s\n", "id", "tier", "severity", "title");
        for (size_t i = 0; i < rs->n; i++) {
            char *id = sanitize_text(rs->rules[i].id, 0), *t = sanitize_text(rs->rules[i].title, 0);
            printf("%-26s %-9s %-8s %s\n", id, rs->rules[i].tier,
                   rs->rules[i].severity ? rs->rules[i].severity : "-", t);
            free(id);
            free(t);
        }
    }
    ruleset_free(rs);
    return ret;
}
