/* SPDX-License-Identifier: MIT */
/*
 * rulefile: reads rules/<id>.rule files (format in docs/rules.md) into
 * struct rule. It only parses and checks the file on its own; whether
 * the query compiles against a report is checked when it runs, with the
 * error still pointing at the file and line of the query.
 *
 * The format is line-oriented so an error can always name one line:
 * `key: value` at column 0, continuation lines indented, `#` comments.
 */
#include "analyzer/analyzer_int.h"
#include "schema/catalogue.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const tiers[] = {"registers", "shared", "l1", "l2", "dram", "host", NULL};
static const char *const severities[] = {"error", "warning", "note", NULL};
static const char *const cappings[] = {"normal", "residual", "none", NULL};
/* `lines:` kinds: the v_inst_line columns KIND_excess and KIND_share_pct. */
static const char *const line_kinds[] = {"gld", "gst", "atomic", "shared", "local", "narrow", NULL};
static const char *const estimates[] = {"exact", "bound", "model", NULL};
static const char *const markings[] = {"waiting", NULL};
static const char *const ops[] = {"<", "<=", ">", ">=", NULL};
static const char *const formats[] = {"pct", "x", "bytes", "ns", "int", "bw", NULL};

static int
in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(s, list[i]))
            return 1;
    return 0;
}

static int
is_ident(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

static char *
trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Append `line` to *dst, separated by `sep` (both may be empty). */
static void
append(char **dst, const char *line, const char *sep)
{
    size_t a = *dst ? strlen(*dst) : 0, b = strlen(line), c = strlen(sep);
    char *p = an_xrealloc(*dst, a + c + b + 1);
    if (a) {
        memcpy(p + a, sep, c);
        a += c;
    }
    memcpy(p + a, line, b + 1);
    *dst = p;
}

static void
rule_release(struct rule *r)
{
    free(r->path);
    free(r->id);
    free(r->title);
    free(r->tier);
    free(r->doc);
    free(r->severity);
    free(r->capping);
    free(r->estimate);
    free(r->marks);
    free(r->lines);
    free(r->rationale);
    for (size_t i = 0; i < r->n_requires; i++) {
        free(r->requires[i].kind);
        free(r->requires[i].name);
    }
    free(r->requires);
    for (size_t i = 0; i < r->n_thresholds; i++) {
        free(r->thresholds[i].name);
        free(r->thresholds[i].unit);
        free(r->thresholds[i].why);
    }
    free(r->thresholds);
    free(r->query);
    free(r->message);
    free(r->remedy);
    for (size_t i = 0; i < r->n_evidence; i++) {
        free(r->evidence[i].column);
        free(r->evidence[i].unit);
        free(r->evidence[i].op);
        free(r->evidence[i].threshold);
    }
    free(r->evidence);
    free(r->text);
    memset(r, 0, sizeof(*r));
}

static const struct rule_threshold *
find_threshold(const struct rule *r, const char *name)
{
    for (size_t i = 0; i < r->n_thresholds; i++)
        if (!strcmp(r->thresholds[i].name, name))
            return &r->thresholds[i];
    return NULL;
}

/* Which continuation joiner a key uses: SQL keeps its lines. */
static const char *
joiner(const char *key)
{
    return !strcmp(key, "query") ? "\n" : " ";
}

static int
parse_threshold(struct rule *r, const char *path, int line, char *v)
{
    char *bar = strchr(v, '|');
    char *why = NULL;
    if (bar) {
        *bar = '\0';
        why = trim(bar + 1);
    }
    char *eq = strchr(v, '=');
    if (!eq)
        return an_fail(ANALYZER_ERR_RULES, "%s:%d: threshold: expected 'name = value [unit] | why'",
                       path, line);
    *eq = '\0';
    char *name = trim(v), *rest = trim(eq + 1);
    if (!is_ident(name))
        return an_fail(ANALYZER_ERR_RULES, "%s:%d: threshold: bad name '%s'", path, line, name);
    if (find_threshold(r, name))
        return an_fail(ANALYZER_ERR_RULES, "%s:%d: threshold '%s' declared twice", path, line,
                       name);
    char *end;
    errno = 0;
    double value = strtod(rest, &end);
    if (end == rest || errno)
        return an_fail(ANALYZER_ERR_RULES, "%s:%d: threshold '%s': '%s' is not a number", path,
                       line, name, rest);
    char *unit = trim(end);
    if (!why || !*why)
        return an_fail(ANALYZER_ERR_RULES, "%s:%d: threshold '%s' has no justification ('| why')",
                       path, line, name);
    r->thresholds = an_xrealloc(r->thresholds, (r->n_thresholds + 1) * sizeof(*r->thresholds));
    r->thresholds[r->n_thresholds++] = (struct rule_threshold){
        .name = an_xstrdup(name),
        .value = value,
        .unit = *unit ? an_xstrdup(unit) : NULL,
        .why = an_xstrdup(why),
        .line = line,
    };
    return 0;
}

static int
parse_requires(struct rule *r, const char *path, int line, char *v)
{
    char *save = NULL;
    char *kind = strtok_r(v, " \t", &save);
    if (!kind)
        return an_fail(
            ANALYZER_ERR_RULES,
            "%s:%d: requires: expected 'metric NAME...', 'counts-or-metric NAME...', 'optional "
            "NAME...', 'column TABLE.COLUMN...' or 'profiled'",
            path, line);
    if (strcmp(kind, "metric") && strcmp(kind, "counts-or-metric") && strcmp(kind, "optional") &&
        strcmp(kind, "column") && strcmp(kind, "profiled"))
        return an_fail(ANALYZER_ERR_RULES,
                       "%s:%d: requires: unknown kind '%s' (metric, counts-or-metric, optional, "
                       "column, profiled)",
                       path, line, kind);
    int n = 0;
    for (char *name; (name = strtok_r(NULL, " \t", &save)) || (!n && !strcmp(kind, "profiled"));
         n++) {
        if (!strcmp(kind, "column") && name && (!strchr(name, '.') || strchr(name, '.') == name))
            return an_fail(ANALYZER_ERR_RULES,
                           "%s:%d: requires: column '%s' must be 'table.column'", path, line, name);
        if (!strcmp(kind, "profiled") && name)
            return an_fail(ANALYZER_ERR_RULES, "%s:%d: requires: 'profiled' takes no names", path,
                           line);
        r->requires = an_xrealloc(r->requires, (r->n_requires + 1) * sizeof(*r->requires));
        r->requires[r->n_requires++] = (struct rule_require){
            .kind = an_xstrdup(kind), .name = name ? an_xstrdup(name) : NULL, .line = line};
        if (!name)
            break;
    }
    if (!n && strcmp(kind, "profiled"))
        return an_fail(ANALYZER_ERR_RULES, "%s:%d: requires %s: no names given", path, line, kind);
    return 0;
}

static int
parse_evidence(struct rule *r, const char *path, int line, char *v)
{
    char *tok[5];
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == 4)
            return an_fail(ANALYZER_ERR_RULES,
                           "%s:%d: evidence: expected 'column [unit] [op threshold]'", path, line);
        tok[n++] = t;
    }
    if (!n || !is_ident(tok[0]))
        return an_fail(ANALYZER_ERR_RULES,
                       "%s:%d: evidence: expected 'column [unit] [op threshold]'", path, line);
    struct rule_evidence e = {.line = line};
    int i = 1;
    if (i < n && !in_list(tok[i], ops))
        e.unit = tok[i++];
    if (i < n) {
        if (!in_list(tok[i], ops) || i + 1 != n - 1)
            return an_fail(
                ANALYZER_ERR_RULES,
                "%s:%d: evidence: expected 'column [unit] [op threshold]' with op one of < <= > >=",
                path, line);
        if (!find_threshold(r, tok[i + 1]))
            return an_fail(ANALYZER_ERR_RULES,
                           "%s:%d: evidence: threshold '%s' is not declared (declare thresholds "
                           "before evidence)",
                           path, line, tok[i + 1]);
        e.op = tok[i];
        e.threshold = tok[i + 1];
    }
    r->evidence = an_xrealloc(r->evidence, (r->n_evidence + 1) * sizeof(*r->evidence));
    r->evidence[r->n_evidence++] = (struct rule_evidence){
        .column = an_xstrdup(tok[0]),
        .unit = e.unit ? an_xstrdup(e.unit) : NULL,
        .op = e.op ? an_xstrdup(e.op) : NULL,
        .threshold = e.threshold ? an_xstrdup(e.threshold) : NULL,
        .line = line,
    };
    return 0;
}

/* Check the {name} / {name:fmt} placeholders of a template. */
static int
check_template(const char *path, int line, const char *key, const char *t)
{
    for (const char *p = t; (p = strchr(p, '{'));) {
        const char *end = strchr(p, '}');
        if (!end)
            return an_fail(ANALYZER_ERR_RULES, "%s:%d: %s: '{' without '}'", path, line, key);
        char buf[128];
        size_t n = (size_t)(end - p - 1);
        if (n == 0 || n >= sizeof(buf))
            return an_fail(ANALYZER_ERR_RULES, "%s:%d: %s: bad placeholder", path, line, key);
        memcpy(buf, p + 1, n);
        buf[n] = '\0';
        char *colon = strchr(buf, ':');
        if (colon) {
            *colon = '\0';
            const char *fmt = colon + 1;
            int ok = in_list(fmt, formats) ||
                     (fmt[0] == '.' && isdigit((unsigned char)fmt[1]) && !fmt[2]);
            if (!ok)
                return an_fail(ANALYZER_ERR_RULES,
                               "%s:%d: %s: unknown format '%s' (pct x bytes ns int bw .N)", path,
                               line, key, fmt);
        }
        if (!is_ident(buf))
            return an_fail(ANALYZER_ERR_RULES, "%s:%d: %s: bad placeholder name '%s'", path, line,
                           key, buf);
        p = end + 1;
    }
    return 0;
}

/* Single-valued keys: where each is stored. */
static char **
single_slot(struct rule *r, const char *key, int **line_slot)
{
    *line_slot = NULL;
    if (!strcmp(key, "id"))
        return &r->id;
    if (!strcmp(key, "title"))
        return &r->title;
    if (!strcmp(key, "tier"))
        return &r->tier;
    if (!strcmp(key, "doc"))
        return &r->doc;
    if (!strcmp(key, "severity"))
        return &r->severity;
    if (!strcmp(key, "capping"))
        return &r->capping;
    if (!strcmp(key, "estimate"))
        return &r->estimate;
    if (!strcmp(key, "marks"))
        return &r->marks;
    if (!strcmp(key, "lines"))
        return &r->lines;
    if (!strcmp(key, "rationale"))
        return &r->rationale;
    if (!strcmp(key, "query")) {
        *line_slot = &r->query_line;
        return &r->query;
    }
    if (!strcmp(key, "message")) {
        *line_slot = &r->message_line;
        return &r->message;
    }
    if (!strcmp(key, "remedy")) {
        *line_slot = &r->remedy_line;
        return &r->remedy;
    }
    return NULL;
}

/*
 * Parse one rule file. Multi-valued keys (threshold, requires, evidence)
 * are parsed when their last continuation line has been read, so the
 * line of an error is the key's first line.
 */
static int
parse_rule(struct rule *r, const char *path, const char *stem)
{
    int ret = -1;
    FILE *f = fopen(path, "r");
    char *line = NULL, *pending = NULL, pending_key[32] = "";
    size_t cap = 0;
    int lineno = 0, pending_line = 0;
    char **slot = NULL;
    const char *slot_key = NULL;
    if (!f)
        return an_fail(ANALYZER_ERR_RULES, "cannot read rule file '%s': %s", path, strerror(errno));
    r->path = an_xstrdup(path);
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        append(&r->text, line, "");
        if (memchr(line, '\0', (size_t)len)) {
            an_fail(ANALYZER_ERR_RULES, "%s:%d: NUL byte in rule file", path, lineno);
            goto out;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#')
            continue;
        if (!line[strspn(line, " \t")])
            continue; /* blank lines end nothing: SQL may have them */
        if (line[0] == ' ' || line[0] == '\t') {
            char *t = trim(line);
            if (!*t)
                continue;
            if (pending) {
                append(&pending, t, " ");
            } else if (slot && !strcmp(slot_key, "query")) {
                /* SQL keeps its indentation beyond the continuation's own two columns. */
                char *q = line + strspn(line, " \t");
                q = q - line > 2 ? line + 2 : q;
                append(slot, q, "\n");
            } else if (slot) {
                append(slot, t, joiner(slot_key));
            } else {
                an_fail(ANALYZER_ERR_RULES, "%s:%d: indented line continues nothing", path, lineno);
                goto out;
            }
            continue;
        }
        /* A new key (or a blank line) ends the pending multi-valued one. */
        if (pending) {
            int rc =
                !strcmp(pending_key, "threshold")  ? parse_threshold(r, path, pending_line, pending)
                : !strcmp(pending_key, "requires") ? parse_requires(r, path, pending_line, pending)
                                                   : parse_evidence(r, path, pending_line, pending);
            free(pending);
            pending = NULL;
            if (rc)
                goto out;
        }
        slot = NULL;
        char *colon = strchr(line, ':');
        if (!colon) {
            an_fail(ANALYZER_ERR_RULES, "%s:%d: expected 'key: value'", path, lineno);
            goto out;
        }
        *colon = '\0';
        char *key = trim(line), *val = trim(colon + 1);
        if (!strcmp(key, "threshold") || !strcmp(key, "requires") || !strcmp(key, "evidence")) {
            snprintf(pending_key, sizeof(pending_key), "%s", key);
            pending = an_xstrdup(val);
            pending_line = lineno;
            continue;
        }
        int *line_slot;
        char **s = single_slot(r, key, &line_slot);
        if (!s) {
            an_fail(ANALYZER_ERR_RULES, "%s:%d: unknown key '%s'", path, lineno, key);
            goto out;
        }
        if (*s) {
            an_fail(ANALYZER_ERR_RULES, "%s:%d: '%s' given twice", path, lineno, key);
            goto out;
        }
        *s = an_xstrdup(val);
        if (line_slot)
            *line_slot = lineno;
        slot = s;
        slot_key = key;
        /* slot_key must outlive `line`: point it at a static name. */
        static const char *const keys[] = {"id",      "title",    "tier",  "doc",       "severity",
                                           "capping", "estimate", "marks", "rationale", "query",
                                           "message", "remedy",   "lines", NULL};
        for (size_t i = 0; keys[i]; i++)
            if (!strcmp(keys[i], key))
                slot_key = keys[i];
    }
    if (pending) {
        int rc = !strcmp(pending_key, "threshold") ? parse_threshold(r, path, pending_line, pending)
                 : !strcmp(pending_key, "requires")
                     ? parse_requires(r, path, pending_line, pending)
                     : parse_evidence(r, path, pending_line, pending);
        free(pending);
        pending = NULL;
        if (rc)
            goto out;
    }
    static const char *const required[] = {"id",    "title",   "tier",   "doc", "rationale",
                                           "query", "message", "remedy", NULL};
    for (size_t i = 0; required[i]; i++) {
        int *ls;
        char **s = single_slot(r, required[i], &ls);
        if (!*s || !**s) {
            an_fail(ANALYZER_ERR_RULES, "%s:%d: missing '%s:'", path, lineno, required[i]);
            goto out;
        }
    }
    if (strcmp(r->id, stem)) {
        an_fail(ANALYZER_ERR_RULES, "%s:1: id '%s' does not match the file name '%s.rule'", path,
                r->id, stem);
        goto out;
    }
    if (!in_list(r->tier, tiers)) {
        an_fail(ANALYZER_ERR_RULES, "%s: tier '%s' is not one of registers shared l1 l2 dram host",
                path, r->tier);
        goto out;
    }
    if (r->severity && !in_list(r->severity, severities)) {
        an_fail(ANALYZER_ERR_RULES, "%s: severity '%s' is not one of error warning note", path,
                r->severity);
        goto out;
    }
    if (r->capping && !in_list(r->capping, cappings)) {
        an_fail(ANALYZER_ERR_RULES, "%s: capping '%s' is not one of normal residual none", path,
                r->capping);
        goto out;
    }
    if (!r->capping)
        r->capping = an_xstrdup("normal");
    if (r->estimate && !in_list(r->estimate, estimates)) {
        an_fail(ANALYZER_ERR_RULES, "%s: estimate '%s' is not one of exact bound model", path,
                r->estimate);
        goto out;
    }
    if (r->marks && !in_list(r->marks, markings)) {
        an_fail(ANALYZER_ERR_RULES, "%s: marks '%s' is not 'waiting'", path, r->marks);
        goto out;
    }
    if (r->lines) {
        char kind[16] = "", unit[32] = "";
        if (sscanf(r->lines, "%15s %31s", kind, unit) != 2 || !in_list(kind, line_kinds)) {
            an_fail(ANALYZER_ERR_RULES,
                    "%s: lines '%s' is not 'KIND UNIT' with KIND one of gld gst shared local "
                    "narrow",
                    path, r->lines);
            goto out;
        }
    }
    /* Unknown strength is not enough for an error: a user rule says 'exact' when it is. */
    if (!r->estimate)
        r->estimate = an_xstrdup("model");
    if (check_template(path, r->message_line, "message", r->message) ||
        check_template(path, r->remedy_line, "remedy", r->remedy))
        goto out;
    ret = 0;
out:
    free(pending);
    free(line);
    fclose(f);
    return ret;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct ruleset *
ruleset_load(const char *dir)
{
    char *to_free = NULL;
    struct ruleset *rs = NULL;
    char **names = NULL;
    size_t n = 0;
    if (!dir) {
        dir = to_free = analyzer_default_rules_dir();
        if (!dir) {
            an_fail(ANALYZER_ERR_RULES,
                    "cannot find the rules directory (set GPUHIER_RULES_DIR or pass --rules DIR)");
            return NULL;
        }
    }
    DIR *d = opendir(dir);
    if (!d) {
        an_fail(ANALYZER_ERR_RULES, "cannot read rules directory '%s': %s", dir, strerror(errno));
        goto out;
    }
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".rule") || e->d_name[0] == '.')
            continue;
        names = an_xrealloc(names, (n + 1) * sizeof(*names));
        names[n++] = an_xstrdup(e->d_name);
    }
    closedir(d);
    if (!n) {
        an_fail(ANALYZER_ERR_RULES, "no rule files (*.rule) in '%s'", dir);
        goto out;
    }
    qsort(names, n, sizeof(*names), cmp_str);
    rs = an_xcalloc(1, sizeof(*rs));
    rs->dir = an_xstrdup(dir);
    rs->rules = an_xcalloc(n, sizeof(*rs->rules));
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        char path[4096], stem[256];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        snprintf(stem, sizeof(stem), "%.*s", (int)(strlen(names[i]) - 5), names[i]);
        struct rule *r = &rs->rules[rs->n++];
        if (parse_rule(r, path, stem)) {
            ruleset_free(rs);
            rs = NULL;
            goto out;
        }
        h = an_fnv1a(h, names[i], strlen(names[i]) + 1);
        h = an_fnv1a(h, r->text, strlen(r->text) + 1);
    }
    char ver[32];
    snprintf(ver, sizeof(ver), "%016llx", h);
    rs->version = an_xstrdup(ver);
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(to_free);
    return rs;
}

const struct rule *
ruleset_find(const struct ruleset *rs, const char *id)
{
    for (size_t i = 0; rs && i < rs->n; i++)
        if (!strcmp(rs->rules[i].id, id))
            return &rs->rules[i];
    return NULL;
}

void
ruleset_free(struct ruleset *rs)
{
    if (!rs)
        return;
    for (size_t i = 0; i < rs->n; i++)
        rule_release(&rs->rules[i]);
    free(rs->rules);
    free(rs->dir);
    free(rs->version);
    free(rs);
}

size_t
analyzer_rule_metrics(const struct ruleset *rs, struct rule_metric *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; rs && i < rs->n; i++) {
        const struct rule *r = &rs->rules[i];
        for (size_t j = 0; j < r->n_requires; j++) {
            const struct rule_require *q = &r->requires[j];
            if (!q->name || (strcmp(q->kind, "metric") && strcmp(q->kind, "counts-or-metric") &&
                             strcmp(q->kind, "optional")))
                continue;
            if (catalogue_collected(q->name))
                continue;
            int seen = 0;
            for (size_t k = 0; k < n && k < max && !seen; k++)
                seen = !strcmp(out[k].name, q->name);
            /* past `max` a repeat may be counted twice: the count is then an upper bound */
            if (seen)
                continue;
            if (n < max)
                out[n] = (struct rule_metric){q->name, r, q->line, catalogue_find(q->name) != NULL};
            n++;
        }
    }
    return n;
}

unsigned long long
an_fnv1a(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}
