/* SPDX-License-Identifier: MIT */
/*
 * catalogue_gen: reads schema/metrics.catalogue (its header documents the
 * format), checks it, and writes what the build derives from it. A build
 * tool, run by schema/CMakeLists.txt; never installed.
 *
 *   catalogue_gen data CATALOGUE OUT.c
 *       the tables of schema/catalogue.h;
 *   catalogue_gen schema CATALOGUE SCHEMA.sql OUT.sql
 *       SCHEMA.sql with its view v_profiled replaced by the one the
 *       catalogue defines (from "CREATE VIEW v_profiled AS" to the first
 *       line ending in ';');
 *   catalogue_gen names CATALOGUE FILE...
 *       fails naming each metric a file names that the catalogue lacks: a
 *       quoted 'a__b.c' name (test fixtures, rule queries) or a name on a
 *       `requires: metric|counts-or-metric|optional` line of a rule.
 *
 * Every check fails with FILE:LINE: so an edit's mistake is found at
 * build time, not in a profiled program.
 */
#include "schema/catalogue.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8
#define MAX_RECORDS 512

struct record {
    char kind[16];
    char *field[MAX_FIELDS];
    int nfields;
    int line;
};

static struct record recs[MAX_RECORDS];
static int nrecs;
static const char *cat_path;

struct metric {
    const char *name, *engine, *bundle, *column, *unit, *what;
    unsigned sets;
    int bundle_index;
    int line;
};
struct group {
    const char *name, *what;
    const char *triggers[16];
    int ntriggers;
};
struct bundle {
    const char *name, *what;
};

static struct metric metrics[MAX_RECORDS];
static int nmetrics;
static struct group groups[CATALOGUE_MAX_GROUPS];
static int ngroups;
static struct bundle bundles[64];
static int nbundles;

static void
die(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: ", cat_path, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static char *
xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p) {
        fputs("catalogue_gen: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static char *
trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Appends " " + text to the last field of the last record. */
static void
continue_record(const char *text, int line)
{
    if (!nrecs)
        die(line, "indented line continues nothing");
    struct record *r = &recs[nrecs - 1];
    char **f = &r->field[r->nfields - 1];
    size_t a = strlen(*f), b = strlen(text);
    char *p = malloc(a + b + 2);
    if (!p)
        die(line, "out of memory");
    memcpy(p, *f, a);
    p[a] = ' ';
    memcpy(p + a + 1, text, b + 1);
    free(*f);
    *f = p;
}

static void
read_catalogue(const char *path)
{
    cat_path = path;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "catalogue_gen: cannot read '%s': %s\n", path, strerror(errno));
        exit(1);
    }
    char buf[4096];
    int line = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        if (!strchr(buf, '\n') && !feof(f))
            die(line, "line longer than %zu bytes", sizeof buf - 2);
        buf[strcspn(buf, "\n")] = '\0';
        if (buf[0] == '#')
            continue;
        char *t = trim(buf);
        if (!*t)
            continue;
        if (buf[0] == ' ' || buf[0] == '\t') {
            continue_record(t, line);
            continue;
        }
        if (nrecs == MAX_RECORDS)
            die(line, "more than %d records", MAX_RECORDS);
        struct record *r = &recs[nrecs++];
        r->line = line;
        size_t k = strcspn(t, " \t");
        if (k == 0 || k >= sizeof r->kind)
            die(line, "expected 'group', 'trigger', 'bundle' or 'metric'");
        memcpy(r->kind, t, k);
        r->kind[k] = '\0';
        char *rest = t + k;
        for (char *p = rest;; p++) {
            char *bar = strchr(p, '|');
            if (bar)
                *bar = '\0';
            if (r->nfields == MAX_FIELDS)
                die(line, "too many fields");
            r->field[r->nfields++] = xstrdup(trim(p));
            if (!bar)
                break;
            p = bar;
        }
    }
    fclose(f);
}

static int
is_word(const char *s)
{
    if (!*s || !(islower((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

/* A Perfworks name as the catalogue spells them: unit__counter[.rollup...], lower case. */
static int
is_metric_name(const char *s, size_t n)
{
    const char *us = NULL;
    size_t dots = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!(islower((unsigned char)c) || isdigit((unsigned char)c) || c == '_' || c == '.'))
            return 0;
        if (c == '_' && i + 1 < n && s[i + 1] == '_' && !us)
            us = s + i;
        dots += c == '.';
    }
    return us && us != s && dots > 0 && s[n - 1] != '.';
}

static int
find_group(const char *name)
{
    for (int i = 0; i < ngroups; i++)
        if (!strcmp(groups[i].name, name))
            return i;
    return -1;
}

static int
find_bundle(const char *name)
{
    for (int i = 0; i < nbundles; i++)
        if (!strcmp(bundles[i].name, name))
            return i;
    return -1;
}

static const struct metric *
find_metric(const char *name, size_t len, int by_column)
{
    for (int i = 0; i < nmetrics; i++) {
        const char *s = by_column ? metrics[i].column : metrics[i].name;
        if (s && strlen(s) == len && !strncmp(s, name, len))
            return &metrics[i];
    }
    return NULL;
}

static void
need_fields(const struct record *r, int n, const char *form)
{
    if (r->nfields != n)
        die(r->line, "%s: expected '%s %s'", r->kind, r->kind, form);
    for (int i = 0; i < n; i++)
        if (!*r->field[i])
            die(r->line, "%s: empty field %d in '%s %s'", r->kind, i + 1, r->kind, form);
}

static void
parse_sets(struct metric *m, char *sets, int line)
{
    if (!strcmp(sets, "-"))
        return;
    char *save = NULL;
    for (char *t = strtok_r(sets, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        t = trim(t);
        int g;
        if (!strcmp(t, "core"))
            m->sets |= CATALOGUE_SET_CORE;
        else if (!strcmp(t, "tie"))
            m->sets |= CATALOGUE_SET_TIE;
        else if ((g = find_group(t)) >= 0)
            m->sets |= 1u << g;
        else
            die(line, "metric %s: unknown set '%s' (core, tie or a group declared above)", m->name,
                t);
    }
    if ((m->sets & CATALOGUE_SET_TIE) && !(m->sets & CATALOGUE_SET_CORE))
        die(line, "metric %s: the tie set is part of the core ('core,tie')", m->name);
}

/* Triggers read only core metrics: a first profile must decide them. */
static int
lookup_core(void *ctx, const char *name, size_t len, double *v)
{
    (void)ctx;
    const struct metric *m = find_metric(name, len, 1);
    if (!m)
        m = find_metric(name, len, 0);
    if (!m || !(m->sets & CATALOGUE_SET_CORE))
        return -1;
    *v = 1;
    return 1;
}

static void
build(void)
{
    static const char *const units[] = {"ns",   "pct",      "cycles",     "bytes",     "sectors",
                                        "inst", "requests", "wavefronts", "conflicts", NULL};
    for (int i = 0; i < nrecs; i++) {
        struct record *r = &recs[i];
        if (!strcmp(r->kind, "group")) {
            need_fields(r, 2, "NAME | WHAT");
            if (!is_word(r->field[0]) || find_group(r->field[0]) >= 0)
                die(r->line, "group '%s': not a new lower-case name", r->field[0]);
            if (ngroups == CATALOGUE_MAX_GROUPS)
                die(r->line, "more than %d groups", CATALOGUE_MAX_GROUPS);
            groups[ngroups++] = (struct group){r->field[0], r->field[1], {0}, 0};
        } else if (!strcmp(r->kind, "bundle")) {
            need_fields(r, 2, "NAME | WHAT");
            if (!is_word(r->field[0]) || find_bundle(r->field[0]) >= 0)
                die(r->line, "bundle '%s': not a new lower-case name", r->field[0]);
            if (nbundles == (int)(sizeof bundles / sizeof bundles[0]))
                die(r->line, "too many bundles");
            bundles[nbundles++] = (struct bundle){r->field[0], r->field[1]};
        } else if (!strcmp(r->kind, "trigger")) {
            need_fields(r, 2, "GROUP | EXPR");
            int g = find_group(r->field[0]);
            if (g < 0)
                die(r->line, "trigger: no group '%s' declared above", r->field[0]);
            if (groups[g].ntriggers == 16)
                die(r->line, "trigger: more than 16 for group '%s'", r->field[0]);
            groups[g].triggers[groups[g].ntriggers++] = r->field[1];
        } else if (!strcmp(r->kind, "metric")) {
            need_fields(r, 7, "NAME | ENGINE | SETS | BUNDLE | COLUMN | UNIT | WHAT");
            struct metric *m = &metrics[nmetrics];
            *m = (struct metric){.name = r->field[0],
                                 .engine = r->field[1],
                                 .bundle = r->field[3],
                                 .column = strcmp(r->field[4], "-") ? r->field[4] : NULL,
                                 .unit = r->field[5],
                                 .what = r->field[6],
                                 .bundle_index = -1,
                                 .line = r->line};
            if (!is_metric_name(m->name, strlen(m->name)))
                die(r->line, "metric '%s': not a Perfworks name (unit__counter.rollup)", m->name);
            if (find_metric(m->name, strlen(m->name), 0))
                die(r->line, "metric %s: listed twice", m->name);
            int sass = strstr(m->name, "__sass_") != NULL;
            if (strcmp(m->engine, "rangeprof") && strcmp(m->engine, "sass"))
                die(r->line, "metric %s: engine '%s' is not rangeprof or sass", m->name, m->engine);
            if (sass != !strcmp(m->engine, "sass"))
                die(r->line, "metric %s: engine sass is for the __sass_ metrics, and only them",
                    m->name);
            parse_sets(m, r->field[2], r->line);
            if (strcmp(m->bundle, "-") && (m->bundle_index = find_bundle(m->bundle)) < 0)
                die(r->line, "metric %s: no bundle '%s' declared above", m->name, m->bundle);
            if (m->column && (!is_word(m->column) || find_metric(m->column, strlen(m->column), 1)))
                die(r->line, "metric %s: column '%s' is not a new lower-case name", m->name,
                    m->column);
            int ok = 0;
            for (size_t u = 0; units[u]; u++)
                ok |= !strcmp(units[u], m->unit);
            if (!ok)
                die(r->line,
                    "metric %s: unit '%s' is not one of ns pct cycles bytes sectors inst "
                    "requests wavefronts conflicts",
                    m->name, m->unit);
            nmetrics++;
        } else {
            die(r->line, "unknown record '%s' (group, trigger, bundle, metric)", r->kind);
        }
    }
    for (int g = 0; g < ngroups; g++) {
        int n = 0;
        for (int i = 0; i < nmetrics; i++)
            n += (metrics[i].sets >> g) & 1;
        if (!n || !groups[g].ntriggers)
            die(0, "group %s needs at least one metric and one trigger", groups[g].name);
        for (int t = 0; t < groups[g].ntriggers; t++) {
            char err[512];
            int truth;
            if (catalogue_eval(groups[g].triggers[t], lookup_core, NULL, &truth, err, sizeof err))
                die(0, "trigger %s: %s (a trigger reads core metrics only)", groups[g].name, err);
        }
    }
    /* profile.metric_set names every group: "tie+a+b..." within METRICS_SET_NAME_MAX (64) */
    size_t setname = strlen("core");
    for (int g = 0; g < ngroups; g++)
        setname += 1 + strlen(groups[g].name);
    if (setname >= 64)
        die(0, "the group names take %zu bytes in profile.metric_set, at most 63", setname);
    for (int b = 0; b < nbundles; b++) {
        int n = 0;
        for (int i = 0; i < nmetrics; i++)
            n += metrics[i].bundle_index == b;
        if (!n)
            die(0, "bundle %s has no metric", bundles[b].name);
    }
}

/* ---------------------------------------------------------------- output */

static void
c_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/*
 * The names of metrics satisfying sel(m, arg), as an array `var` (static
 * unless it is a catalogue_ name), NULL-terminated; returns their count.
 */
static int
emit_names(FILE *f, const char *var, int (*sel)(const struct metric *, int), int arg)
{
    int n = 0;
    fprintf(f, "%sconst char *const %s[] = {\n", strncmp(var, "catalogue_", 10) ? "static " : "",
            var);
    for (int i = 0; i < nmetrics; i++)
        if (sel(&metrics[i], arg)) {
            fputs("    ", f);
            c_string(f, metrics[i].name);
            fputs(",\n", f);
            n++;
        }
    fputs("    NULL,\n};\n", f);
    return n;
}

static int
sel_set(const struct metric *m, int bit)
{
    return (m->sets & (1u << bit)) != 0;
}

static int
sel_bundle(const struct metric *m, int b)
{
    return m->bundle_index == b;
}

static void
write_data(const char *out)
{
    FILE *f = fopen(out, "w");
    if (!f) {
        fprintf(stderr, "catalogue_gen: cannot write '%s': %s\n", out, strerror(errno));
        exit(1);
    }
    fprintf(f,
            "/* generated from %s by schema/catalogue_gen.c; do not edit */\n"
            "#include \"schema/catalogue.h\"\n\n",
            cat_path);
    int ncore = emit_names(f, "catalogue_core", sel_set, 31);
    int ntie = emit_names(f, "catalogue_tie", sel_set, 30);
    fprintf(f, "const size_t catalogue_ncore = %d;\nconst size_t catalogue_ntie = %d;\n\n", ncore,
            ntie);
    int gn[CATALOGUE_MAX_GROUPS];
    for (int g = 0; g < ngroups; g++) {
        char var[32];
        snprintf(var, sizeof var, "group_%d", g);
        gn[g] = emit_names(f, var, sel_set, g);
        fprintf(f, "static const char *const group_%d_triggers[] = {\n", g);
        for (int t = 0; t < groups[g].ntriggers; t++) {
            fputs("    ", f);
            c_string(f, groups[g].triggers[t]);
            fputs(",\n", f);
        }
        fputs("};\n", f);
    }
    fputs("const struct catalogue_group catalogue_groups[] = {\n", f);
    for (int g = 0; g < ngroups; g++) {
        fputs("    {", f);
        c_string(f, groups[g].name);
        fputs(", ", f);
        c_string(f, groups[g].what);
        fprintf(f, ", group_%d, %d, group_%d_triggers, %d},\n", g, gn[g], g, groups[g].ntriggers);
    }
    fprintf(f, "};\nconst size_t catalogue_ngroups = %d;\n\n", ngroups);
    int bn[64];
    for (int b = 0; b < nbundles; b++) {
        char var[32];
        snprintf(var, sizeof var, "bundle_%d", b);
        bn[b] = emit_names(f, var, sel_bundle, b);
    }
    fputs("const struct catalogue_bundle catalogue_bundles[] = {\n", f);
    for (int b = 0; b < nbundles; b++) {
        fputs("    {", f);
        c_string(f, bundles[b].name);
        fputs(", ", f);
        c_string(f, bundles[b].what);
        fprintf(f, ", bundle_%d, %d},\n", b, bn[b]);
    }
    fprintf(f, "};\nconst size_t catalogue_nbundles = %d;\n\n", nbundles);
    fputs("const struct catalogue_metric catalogue_metrics[] = {\n", f);
    for (int i = 0; i < nmetrics; i++) {
        const struct metric *m = &metrics[i];
        fputs("    {", f);
        c_string(f, m->name);
        fputs(", ", f);
        c_string(f, m->engine);
        fprintf(f, ", 0x%xu, %d, ", m->sets, m->bundle_index);
        if (m->column)
            c_string(f, m->column);
        else
            fputs("NULL", f);
        fputs(", ", f);
        c_string(f, m->unit);
        fputs(", ", f);
        c_string(f, m->what);
        fputs("},\n", f);
    }
    fprintf(f, "};\nconst size_t catalogue_nmetrics = %d;\n", nmetrics);
    if (fclose(f)) {
        fprintf(stderr, "catalogue_gen: cannot write '%s'\n", out);
        exit(1);
    }
}

/*
 * The view v_profiled: one column per catalogue metric that has one, in
 * catalogue order, each with its unit, meaning and group in a comment.
 */
static void
write_view(FILE *f)
{
    int last = -1;
    for (int i = 0; i < nmetrics; i++)
        if (metrics[i].column)
            last = i;
    fputs("CREATE VIEW v_profiled AS\n"
          "SELECT l.id AS launch_id, l.kernel_id, l.config_id, l.device_id,\n"
          "       p.passes,\n",
          f);
    for (int i = 0; i < nmetrics; i++) {
        const struct metric *m = &metrics[i];
        if (!m->column)
            continue;
        char set[64] = "";
        for (int g = 0; g < ngroups && !(m->sets & CATALOGUE_SET_CORE); g++)
            if (m->sets & (1u << g))
                snprintf(set, sizeof set, " (group %s)", groups[g].name);
        fprintf(f, "       MAX(CASE WHEN n.name = '%s' THEN m.value END) AS %s%s -- %s: %s%s\n",
                m->name, m->column, i == last ? "" : ",", m->unit, m->what, set);
    }
    fputs("FROM launch l\n"
          "JOIN profile p ON p.launch_id = l.id\n"
          "LEFT JOIN metric m ON m.launch_id = l.id\n"
          "LEFT JOIN metric_name n ON n.id = m.metric_id\n"
          "GROUP BY l.id;\n",
          f);
}

static void
write_schema(const char *in, const char *out)
{
    FILE *fi = fopen(in, "r"), *fo = fopen(out, "w");
    if (!fi || !fo) {
        fprintf(stderr, "catalogue_gen: cannot read '%s' or write '%s': %s\n", in, out,
                strerror(errno));
        exit(1);
    }
    char buf[8192];
    int state = 0; /* 0 before the view, 1 inside it, 2 after */
    while (fgets(buf, sizeof buf, fi)) {
        if (state == 0 && !strncmp(buf, "CREATE VIEW v_profiled AS", 25)) {
            write_view(fo);
            state = 1;
        }
        if (state == 1) {
            size_t n = strcspn(buf, "\n");
            while (n && isspace((unsigned char)buf[n - 1]))
                n--;
            if (n && buf[n - 1] == ';')
                state = 2;
            continue;
        }
        fputs(buf, fo);
    }
    fclose(fi);
    if (state != 2) {
        fprintf(stderr, "catalogue_gen: %s: no complete 'CREATE VIEW v_profiled AS' ... ';'\n", in);
        exit(1);
    }
    if (fclose(fo)) {
        fprintf(stderr, "catalogue_gen: cannot write '%s'\n", out);
        exit(1);
    }
}

/* -------------------------------------------------------------- names */

static int
check_name(const char *path, int line, const char *s, size_t n)
{
    if (find_metric(s, n, 0))
        return 0;
    fprintf(stderr, "%s:%d: metric '%.*s' is not in %s\n", path, line, (int)n, s, cat_path);
    return 1;
}

static int
check_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "catalogue_gen: cannot read '%s': %s\n", path, strerror(errno));
        return 1;
    }
    char buf[16384];
    int line = 0, bad = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        for (char *p = buf; (p = strchr(p, '\''));) {
            char *e = strchr(p + 1, '\'');
            if (!e)
                break;
            if (is_metric_name(p + 1, (size_t)(e - p - 1)))
                bad |= check_name(path, line, p + 1, (size_t)(e - p - 1));
            p = e + 1;
        }
        if (strncmp(buf, "requires:", 9))
            continue;
        char *save = NULL, *kind = strtok_r(buf + 9, " \t\n", &save);
        if (!kind || (strcmp(kind, "metric") && strcmp(kind, "counts-or-metric") &&
                      strcmp(kind, "optional")))
            continue;
        for (char *t; (t = strtok_r(NULL, " \t\n", &save));)
            bad |= check_name(path, line, t, strlen(t));
    }
    fclose(f);
    return bad;
}

int
main(int argc, char **argv)
{
    if (argc < 3 ||
        (strcmp(argv[1], "data") && strcmp(argv[1], "schema") && strcmp(argv[1], "names")) ||
        (!strcmp(argv[1], "data") && argc != 4) || (!strcmp(argv[1], "schema") && argc != 5)) {
        fputs("usage: catalogue_gen data CATALOGUE OUT.c\n"
              "       catalogue_gen schema CATALOGUE SCHEMA.sql OUT.sql\n"
              "       catalogue_gen names CATALOGUE FILE...\n",
              stderr);
        return 2;
    }
    read_catalogue(argv[2]);
    build();
    if (!strcmp(argv[1], "data")) {
        write_data(argv[3]);
        return 0;
    }
    if (!strcmp(argv[1], "schema")) {
        write_schema(argv[3], argv[4]);
        return 0;
    }
    int bad = 0;
    for (int i = 3; i < argc; i++)
        bad |= check_file(argv[i]);
    return bad;
}
