/* SPDX-License-Identifier: MIT */
/*
 * run_rules: what `gpuhier run` collects for the rules it will analyze
 * with. A rule declares the metrics it reads (`requires:` lines,
 * docs/rules.md); the metric catalogue's sets already hold every name the
 * shipped rules need, so this adds nothing to a default run. A user rule
 * that needs another counter gets it on every profiled launch, like a
 * --metrics name, with no C change.
 *
 * The collector validates every name against the chip. A --metrics name
 * it does not know stops profiling (the user asked for it); a rule's is
 * dropped with a warning (GPUHIER_RULE_METRICS lists them) and the rule is
 * skipped, its note naming the metric: one bad user rule must not cost
 * the other rules their counters.
 */
#include "analyzer/analyzer.h"
#include "cli/cli.h"
#include "cli/run_int.h"
#include "export/sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RULE_METRICS 256

/* Is `name` one of the comma-separated names of `list` (spaces around names ignored)? */
static int
in_csv(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len == n && !strncmp(p, name, n))
            return 1;
        p = e ? e + 1 : p + strlen(p);
    }
    return 0;
}

/* *s += sep + name (s may be NULL). Returns -1 on no memory. */
static int
csv_add(char **s, const char *name)
{
    size_t a = *s ? strlen(*s) : 0, b = strlen(name);
    char *p = realloc(*s, a + b + 2);
    if (!p)
        return -1;
    if (a)
        p[a++] = ',';
    memcpy(p + a, name, b + 1);
    *s = p;
    return 0;
}

int
run_rule_metrics(const struct run_opts *o, char **metrics, char **rule_metrics)
{
    *metrics = *rule_metrics = NULL;
    if (o->metrics && !(*metrics = strdup(o->metrics)))
        return error("run: out of memory");
    /* trace mode collects no metric; --metric-set none collects exactly --metrics */
    if ((o->mode && !strcmp(o->mode, "trace")) || (o->metric_set && !strcmp(o->metric_set, "none")))
        return 0;
    struct ruleset *rs = ruleset_load(o->rules_dir);
    if (!rs) {
        /* the analysis after the run says the same; the program still runs, profiled */
        if (!o->is_quiet)
            fprintf(stderr,
                    "==gpuhier== warning: cannot read the rules to collect their metrics: %s\n",
                    analyzer_error());
        return 0;
    }
    static struct rule_metric rm[MAX_RULE_METRICS];
    size_t n = analyzer_rule_metrics(rs, rm, MAX_RULE_METRICS);
    int ret = 0;
    if (n > MAX_RULE_METRICS && !o->is_quiet)
        fprintf(stderr,
                "==gpuhier== warning: the rules ask for %zu metrics; collecting the first %d\n", n,
                MAX_RULE_METRICS);
    for (size_t i = 0; i < n && i < MAX_RULE_METRICS; i++) {
        char name[256], id[256], path[1024];
        sanitize_into(name, sizeof name, rm[i].name);
        sanitize_into(id, sizeof id, rm[i].rule->id);
        sanitize_into(path, sizeof path, rm[i].rule->path);
        /*
         * A SASS-patched name under user replay would read 0 (docs/metrics.md
         * "SASS-patched metrics under user replay"): not collected, so the
         * rule is skipped for the missing metric instead of judging a 0
         */
        if (run_reads_zero(o, rm[i].name)) {
            if (!o->is_quiet)
                fprintf(stderr,
                        "==gpuhier== warning: rule %s (%s:%d) asks for %s, which the range "
                        "profiler reads only under --replay kernel (0 under the default's user "
                        "replay): not collected\n",
                        id, path, rm[i].line, name);
            continue;
        }
        if (!o->is_quiet)
            fprintf(stderr, "==gpuhier== collecting %s for rule %s (%s:%d)%s\n", name, id, path,
                    rm[i].line,
                    rm[i].in_catalogue ? ""
                                       : ": not in the metric catalogue, checked against the GPU "
                                         "when profiling starts");
        if (in_csv(o->metrics, rm[i].name))
            continue;
        if (csv_add(metrics, rm[i].name) || csv_add(rule_metrics, rm[i].name)) {
            ret = error("run: out of memory");
            break;
        }
    }
    ruleset_free(rs);
    return ret;
}
