/* SPDX-License-Identifier: MIT */
/*
 * engine: runs a rule set on a report and writes the analysis tables.
 *
 * Each rule's query runs under a read-only guard (PRAGMA query_only and
 * an authorizer that allows only reading), even for user rules given
 * with --rules: a rule file is data from somewhere else and must not be
 * able to write, ATTACH a file or change a pragma. Results are collected
 * in memory, then capped, ranked and written in one transaction by our
 * own statements, outside the guard.
 *
 * What the C knows about rules is only the query's result contract
 * (docs/rules.md): config_id or kernel_id, time_lost_ns per launch or
 * time_lost_total_ns, and optional launches, profiled_launch_id,
 * severity, object_kind/object_ids. Everything else is the rule's.
 */
#include "analyzer/analyzer_int.h"
#include "export/export.h"
#include "schema/severity.h"
#include "schema/store.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct evidence_val {
    int is_null, is_text;
    double value;
    char *text;
};

/* One of a finding's worst lines (finding_line). */
struct fline {
    char *location, *file, *function, *sass;
    long long line, pc; /* line 0: none */
    double excess, share_pct;
    double times_ideal; /* the line's sectors or wavefronts over their ideal; 0 unknown */
    int own_pc; /* no line info, in the finding's own kernel (not a callee): named by its pc */
};

/* How many worst lines a finding names. */
#define FINDING_LINES 3

struct found {
    const struct rule *rule;
    struct fline lines[FINDING_LINES];
    size_t n_lines;
    long long config_id, kernel_id; /* 0 when NULL */
    long long launches;
    long long profiled_launch_id; /* 0 when NULL */
    double lost_per_launch;       /* raw, ns */
    double lost_total_raw;        /* raw, ns over the launches */
    double lost_total;            /* capped */
    double gap_ns;                /* config: mean - floor; < 0 unknown */
    int has_config_row;
    int one_time;         /* set-up before the repeated work (row column, else cfg.one_time) */
    int ranks_after_work; /* one_time, under a tenth of the wall time */
    char *severity;       /* row override or NULL */
    char *estimate;       /* row override of the rule's estimate strength, or NULL */
    char *tier;           /* row override of the rule's tier (one of the six), or NULL */
    char *message, *remedy;
    struct evidence_val *ev; /* one per rule evidence line */
    char *object_kind, *object_ids;
    double share_pct;
    const char *final_severity;
};

struct findings {
    struct found *v;
    size_t n, cap;
};

static void
found_release(struct found *f)
{
    for (size_t i = 0; i < f->n_lines; i++) {
        free(f->lines[i].location);
        free(f->lines[i].file);
        free(f->lines[i].function);
        free(f->lines[i].sass);
    }
    free(f->severity);
    free(f->estimate);
    free(f->tier);
    free(f->message);
    free(f->remedy);
    for (size_t j = 0; f->ev && j < f->rule->n_evidence; j++)
        free(f->ev[j].text);
    free(f->ev);
    free(f->object_kind);
    free(f->object_ids);
}

static void
findings_release(struct findings *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        found_release(&fs->v[i]);
    free(fs->v);
    memset(fs, 0, sizeof(*fs));
}

/* ------------------------------------------------------------------ */
/* The read-only guard                                                  */
/* ------------------------------------------------------------------ */

static int
guard_auth(void *arg, int action, const char *a, const char *b, const char *c, const char *d)
{
    (void)arg;
    (void)a;
    (void)b;
    (void)c;
    (void)d;
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    default:
        /* INSERT, UPDATE, DELETE, CREATE_*, DROP_*, ATTACH, DETACH, PRAGMA, TRANSACTION, ... */
        return SQLITE_DENY;
    }
}

int
an_guard_on(sqlite3 *db)
{
    if (sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK)
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot make the rule connection read-only");
    sqlite3_set_authorizer(db, guard_auth, NULL);
    return 0;
}

void
an_guard_off(sqlite3 *db)
{
    sqlite3_set_authorizer(db, NULL, NULL);
    sqlite3_exec(db, "PRAGMA query_only = 0", NULL, NULL, NULL);
}

/* ------------------------------------------------------------------ */
/* Requirements                                                         */
/* ------------------------------------------------------------------ */

static int
ident_ok(const char *s, size_t n)
{
    if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

/*
 * Is the requirement met? Returns 1 yes, 0 no (with `note` filled),
 * -1 on error. Metric presence is read from temp.have_metric, built
 * once (one scan of the metric table).
 */
static int
require_met(sqlite3 *db, const struct rule_require *q, int *have_metric_built, char *note, size_t n)
{
    sqlite3_stmt *st = NULL;
    int met = -1;
    /* Collected for the rule by `gpuhier run`, read when present: never a reason to skip. */
    if (!strcmp(q->kind, "optional"))
        return 1;
    if (!strcmp(q->kind, "counts-or-metric")) {
        /* Exact per-instruction counts stand for the metric (docs/rules.md "requires"). */
        if (store_prepare(
                db, "SELECT EXISTS (SELECT 1 FROM inst_count) OR EXISTS (SELECT 1 FROM inst_run)",
                &st))
            return -1;
        met = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        st = NULL;
        if (met)
            return 1;
        met = -1;
    }
    if (!strcmp(q->kind, "profiled")) {
        if (store_prepare(db, "SELECT EXISTS (SELECT 1 FROM main.profile)", &st))
            return -1;
        met = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
        if (!met)
            snprintf(note, n,
                     "no profiled launches in the report (trace mode, or counters unavailable)");
    } else if (!strcmp(q->kind, "metric") || !strcmp(q->kind, "counts-or-metric")) {
        if (!*have_metric_built) {
            if (store_exec(db, "DROP TABLE IF EXISTS temp.have_metric;"
                               "CREATE TEMP TABLE have_metric AS SELECT DISTINCT n.name FROM "
                               "main.metric_name n"
                               " WHERE n.id IN (SELECT DISTINCT metric_id FROM main.metric WHERE "
                               "value IS NOT NULL)"))
                return -1;
            *have_metric_built = 1;
        }
        if (store_prepare(db, "SELECT EXISTS (SELECT 1 FROM temp.have_metric WHERE name = ?)", &st))
            return -1;
        sqlite3_bind_text(st, 1, q->name, -1, SQLITE_STATIC);
        met = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
        if (!met)
            snprintf(note, n, "metric '%s' not in report", q->name);
    } else {
        const char *dot = strchr(q->name, '.');
        size_t tl = (size_t)(dot - q->name);
        if (!ident_ok(q->name, tl) || !ident_ok(dot + 1, strlen(dot + 1)))
            return an_fail(ANALYZER_ERR_RULES, "bad column requirement '%s'", q->name);
        char sql[512];
        /* Identifiers checked above; a missing table or column means "not in report". */
        snprintf(sql, sizeof(sql),
                 "SELECT EXISTS (SELECT 1 FROM main.\"%.*s\" WHERE \"%s\" IS NOT NULL)", (int)tl,
                 q->name, dot + 1);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
            sqlite3_finalize(st);
            snprintf(note, n, "column '%s' not in report", q->name);
            return 0;
        }
        met = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
        if (!met) {
            sqlite3_stmt *any = NULL;
            snprintf(sql, sizeof(sql), "SELECT EXISTS (SELECT 1 FROM main.\"%.*s\")", (int)tl,
                     q->name);
            int empty = sqlite3_prepare_v2(db, sql, -1, &any, NULL) == SQLITE_OK &&
                        sqlite3_step(any) == SQLITE_ROW && !sqlite3_column_int(any, 0);
            sqlite3_finalize(any);
            if (empty)
                snprintf(note, n, "no rows in table '%.*s' (nothing to judge)", (int)tl, q->name);
            else
                snprintf(note, n, "column '%s' never recorded in report", q->name);
        }
    }
    sqlite3_finalize(st);
    return met;
}

/* ------------------------------------------------------------------ */
/* Templates                                                            */
/* ------------------------------------------------------------------ */

static void
fmt_value(char *buf, size_t n, double v, const char *fmt)
{
    if (!fmt || !*fmt) {
        export_fmt_number(buf, n, v, 3);
    } else if (!strcmp(fmt, "pct")) {
        snprintf(buf, n, "%.1f%%", v);
    } else if (!strcmp(fmt, "x")) {
        snprintf(buf, n, "%.1f\xc3\x97", v);
    } else if (!strcmp(fmt, "int")) {
        snprintf(buf, n, "%.0f", v);
    } else if (!strcmp(fmt, "bytes")) {
        const char *u[] = {"B", "kB", "MB", "GB", "TB"};
        int i = 0;
        while (fabs(v) >= 1000 && i < 4) {
            v /= 1000;
            i++;
        }
        snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
    } else if (!strcmp(fmt, "ns")) {
        if (fabs(v) >= 1e9)
            snprintf(buf, n, "%.2f s", v / 1e9);
        else if (fabs(v) >= 1e6)
            snprintf(buf, n, "%.2f ms", v / 1e6);
        else if (fabs(v) >= 1e3)
            snprintf(buf, n, "%.1f \xc2\xb5s", v / 1e3);
        else
            snprintf(buf, n, "%.0f ns", v);
    } else if (!strcmp(fmt, "bw")) {
        snprintf(buf, n, "%.1f GB/s", v / 1e9);
    } else if (fmt[0] == '.') {
        snprintf(buf, n, "%.*f", fmt[1] - '0', v);
    } else {
        export_fmt_number(buf, n, v, 6);
    }
}

static int
column_index(sqlite3_stmt *st, const char *name)
{
    int n = sqlite3_column_count(st);
    for (int i = 0; i < n; i++)
        if (!strcmp(sqlite3_column_name(st, i), name))
            return i;
    return -1;
}

/* Check a template's placeholders name a column or a threshold. */
static int
check_placeholders(const struct rule *r, sqlite3_stmt *st, const char *t, int line, const char *key)
{
    for (const char *p = t; (p = strchr(p, '{'));) {
        const char *end = strchr(p, '}');
        char name[128];
        size_t len = strcspn(p + 1, ":}");
        snprintf(name, sizeof(name), "%.*s", (int)len, p + 1);
        int found = column_index(st, name) >= 0;
        for (size_t i = 0; !found && i < r->n_thresholds; i++)
            found = !strcmp(r->thresholds[i].name, name);
        if (!found)
            return an_fail(ANALYZER_ERR_RULES,
                           "%s:%d: %s uses {%s} but the query has no such column and no threshold "
                           "has that name",
                           r->path, line, key, name);
        p = end + 1;
    }
    return 0;
}

static char *
render(const struct rule *r, sqlite3_stmt *st, const char *t)
{
    size_t cap = strlen(t) + 256, len = 0;
    char *out = an_xmalloc(cap);
    for (const char *p = t; *p;) {
        char piece[512];
        const char *add;
        size_t addn;
        if (*p == '{') {
            const char *end = strchr(p, '}');
            char name[128], fmt[16] = "";
            size_t len1 = strcspn(p + 1, ":}");
            snprintf(name, sizeof(name), "%.*s", (int)len1, p + 1);
            if (p[1 + len1] == ':')
                snprintf(fmt, sizeof(fmt), "%.*s", (int)(end - (p + 2 + len1)), p + 2 + len1);
            int ci = column_index(st, name);
            if (ci >= 0 && sqlite3_column_type(st, ci) == SQLITE_NULL) {
                snprintf(piece, sizeof(piece), "n/a");
            } else if (ci >= 0 && sqlite3_column_type(st, ci) == SQLITE_TEXT) {
                snprintf(piece, sizeof(piece), "%s", (const char *)sqlite3_column_text(st, ci));
            } else {
                double v = 0;
                if (ci >= 0) {
                    v = sqlite3_column_double(st, ci);
                } else {
                    for (size_t i = 0; i < r->n_thresholds; i++)
                        if (!strcmp(r->thresholds[i].name, name))
                            v = r->thresholds[i].value;
                }
                fmt_value(piece, sizeof(piece), v, fmt);
            }
            add = piece;
            addn = strlen(piece);
            p = end + 1;
        } else {
            add = p;
            addn = strcspn(p, "{");
            p += addn;
        }
        if (len + addn + 1 > cap) {
            cap = 2 * (len + addn + 1);
            out = an_xrealloc(out, cap);
        }
        memcpy(out + len, add, addn);
        len += addn;
        out[len] = '\0';
    }
    if (!len)
        out[0] = '\0';
    return out;
}

/* ------------------------------------------------------------------ */
/* Running one rule                                                     */
/* ------------------------------------------------------------------ */

/* A row's tier must be one of the pyramid's six (docs/rules.md); anything else keeps the rule's. */
static int
is_tier(const char *s)
{
    static const char *const tiers[] = {"registers", "shared", "l1", "l2", "dram", "host"};
    for (size_t i = 0; i < sizeof(tiers) / sizeof(tiers[0]); i++)
        if (!strcmp(s, tiers[i]))
            return 1;
    return 0;
}

static long long
col_ll(sqlite3_stmt *st, int i)
{
    return i >= 0 && sqlite3_column_type(st, i) != SQLITE_NULL ? sqlite3_column_int64(st, i) : 0;
}

static double
col_d(sqlite3_stmt *st, int i, double dflt)
{
    return i >= 0 && sqlite3_column_type(st, i) != SQLITE_NULL ? sqlite3_column_double(st, i)
                                                               : dflt;
}

static char *
col_s(sqlite3_stmt *st, int i)
{
    const char *s = i >= 0 ? (const char *)sqlite3_column_text(st, i) : NULL;
    return s ? an_xstrdup(s) : NULL;
}

/*
 * Prepare and run the rule's query under the guard, appending findings.
 * Returns the number of findings, or -1 (rule error: message names the
 * file and line).
 */
static int
run_rule(sqlite3 *db, const struct rule *r, struct findings *fs, int *n_skipped, char *skip_note,
         size_t skip_n)
{
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int ret = -1, count = 0;
    if (an_guard_on(db))
        return -1;
    int rc = sqlite3_prepare_v2(db, r->query, -1, &st, &tail);
    if (rc != SQLITE_OK) {
        const char *msg = sqlite3_errmsg(db);
        if (rc == SQLITE_AUTH)
            an_fail(ANALYZER_ERR_RULES, "%s:%d: query refused: rule queries may only read (%s)",
                    r->path, r->query_line, msg);
        else
            an_fail(ANALYZER_ERR_RULES, "%s:%d: query: %s", r->path, r->query_line, msg);
        goto out;
    }
    if (!st) {
        an_fail(ANALYZER_ERR_RULES, "%s:%d: query is empty", r->path, r->query_line);
        goto out;
    }
    while (tail && isspace((unsigned char)*tail))
        tail++;
    if (tail && *tail && !(*tail == ';' && !tail[1 + strspn(tail + 1, " \t\r\n;")])) {
        an_fail(ANALYZER_ERR_RULES, "%s:%d: query must be one SELECT statement", r->path,
                r->query_line);
        goto out;
    }
    if (!sqlite3_stmt_readonly(st)) {
        an_fail(ANALYZER_ERR_RULES, "%s:%d: query refused: rule queries may only read", r->path,
                r->query_line);
        goto out;
    }
    for (int i = 1; i <= sqlite3_bind_parameter_count(st); i++) {
        const char *pn = sqlite3_bind_parameter_name(st, i);
        const struct rule_threshold *t = NULL;
        for (size_t j = 0; pn && j < r->n_thresholds; j++)
            if (!strcmp(r->thresholds[j].name, pn + 1))
                t = &r->thresholds[j];
        if (!t) {
            an_fail(ANALYZER_ERR_RULES, "%s:%d: query parameter '%s' is not a declared threshold",
                    r->path, r->query_line, pn ? pn : "?");
            goto out;
        }
        sqlite3_bind_double(st, i, t->value);
    }
    int i_cfg = column_index(st, "config_id"), i_kern = column_index(st, "kernel_id");
    int i_lost = column_index(st, "time_lost_ns"), i_total = column_index(st, "time_lost_total_ns");
    int i_launches = column_index(st, "launches"), i_prof = column_index(st, "profiled_launch_id");
    int i_sev = column_index(st, "severity"), i_est = column_index(st, "estimate");
    int i_tier = column_index(st, "tier"), i_once = column_index(st, "one_time");
    int i_ok = column_index(st, "object_kind"), i_oi = column_index(st, "object_ids");
    int i_skip = column_index(st, "skip_reason");
    if (i_cfg < 0 && i_kern < 0 && i_total < 0) {
        an_fail(
            ANALYZER_ERR_RULES,
            "%s:%d: query must return config_id, kernel_id or time_lost_total_ns (docs/rules.md)",
            r->path, r->query_line);
        goto out;
    }
    if (i_lost < 0 && i_total < 0) {
        an_fail(ANALYZER_ERR_RULES,
                "%s:%d: query must return time_lost_ns (per launch) or time_lost_total_ns", r->path,
                r->query_line);
        goto out;
    }
    int *ev_idx = an_xcalloc(r->n_evidence + 1, sizeof(int));
    for (size_t j = 0; j < r->n_evidence; j++) {
        ev_idx[j] = column_index(st, r->evidence[j].column);
        if (ev_idx[j] < 0) {
            an_fail(ANALYZER_ERR_RULES, "%s:%d: evidence column '%s' is not returned by the query",
                    r->path, r->evidence[j].line, r->evidence[j].column);
            free(ev_idx);
            goto out;
        }
    }
    if (check_placeholders(r, st, r->message, r->message_line, "message") ||
        check_placeholders(r, st, r->remedy, r->remedy_line, "remedy")) {
        free(ev_idx);
        goto out;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        /* A row with a skip_reason is a candidate the rule declines to judge. */
        if (i_skip >= 0 && sqlite3_column_type(st, i_skip) != SQLITE_NULL) {
            if (!(*n_skipped)++)
                snprintf(skip_note, skip_n, "%s", (const char *)sqlite3_column_text(st, i_skip));
            continue;
        }
        if (fs->n == fs->cap) {
            fs->cap = fs->cap ? 2 * fs->cap : 64;
            fs->v = an_xrealloc(fs->v, fs->cap * sizeof(*fs->v));
        }
        struct found *f = &fs->v[fs->n++];
        memset(f, 0, sizeof(*f));
        f->rule = r;
        f->config_id = col_ll(st, i_cfg);
        f->kernel_id = col_ll(st, i_kern);
        f->launches = i_launches >= 0 ? col_ll(st, i_launches) : -1;
        f->profiled_launch_id = col_ll(st, i_prof);
        f->lost_per_launch = fmax(0, col_d(st, i_lost, 0));
        f->lost_total_raw = i_total >= 0 ? fmax(0, col_d(st, i_total, 0)) : -1;
        f->severity = col_s(st, i_sev);
        f->estimate = col_s(st, i_est);
        f->tier = col_s(st, i_tier);
        f->one_time = i_once >= 0 ? (int)col_ll(st, i_once) : -1;
        if (f->tier && !is_tier(f->tier)) {
            free(f->tier);
            f->tier = NULL;
        }
        f->object_kind = col_s(st, i_ok);
        f->object_ids = col_s(st, i_oi);
        f->gap_ns = -1;
        f->message = render(r, st, r->message);
        f->remedy = render(r, st, r->remedy);
        f->ev = an_xcalloc(r->n_evidence + 1, sizeof(*f->ev));
        for (size_t j = 0; j < r->n_evidence; j++) {
            int t = sqlite3_column_type(st, ev_idx[j]);
            f->ev[j].is_null = t == SQLITE_NULL;
            f->ev[j].is_text = t == SQLITE_TEXT;
            f->ev[j].value = sqlite3_column_double(st, ev_idx[j]);
            if (t == SQLITE_TEXT)
                f->ev[j].text = col_s(st, ev_idx[j]);
        }
        count++;
    }
    free(ev_idx);
    if (rc != SQLITE_DONE) {
        an_fail(ANALYZER_ERR_RULES, "%s:%d: query failed: %s", r->path, r->query_line,
                sqlite3_errmsg(db));
        goto out;
    }
    ret = count;
out:
    sqlite3_finalize(st);
    an_guard_off(db);
    return ret;
}

/* ------------------------------------------------------------------ */
/* Worst lines                                                          */
/* ------------------------------------------------------------------ */

/* Append `add` to the heap string *s. */
static void
append(char **s, const char *add)
{
    size_t a = strlen(*s), b = strlen(add);
    *s = an_xrealloc(*s, a + b + 1);
    memcpy(*s + a, add, b + 1);
}

/*
 * Is `file` a header of a CUDA toolkit (its targets/<arch>/include
 * directory, or include/ under a cuda directory)? The line table names
 * an inlined function's own line: the scattered reductions of tk_atomic
 * scatter were charged to sm_20_atomic_functions.hpp:84, atomicAdd's body
 * (H100, 2026-12-07), not to the line that called it.
 */
static int
is_toolkit_header(const char *file)
{
    return file && strstr(file, "/include/") &&
           (strstr(file, "/targets/") || strstr(file, "/cuda/") || strstr(file, "/cuda-"));
}

/*
 * For each finding of a rule with `lines: KIND UNIT` on a configuration
 * with per-instruction counts: its FINDING_LINES worst lines by
 * v_inst_line's KIND_excess, kept for finding_line and named at the end
 * of the message with their share of the excess and their worst
 * instruction's SASS. A configuration without counts (only range-profiler
 * counters) gets none.
 */
static int
attach_lines(sqlite3 *db, struct findings *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        struct found *f = &fs->v[i];
        char kind[16] = "", sql[1024];
        if (!f->rule->lines || !f->config_id || sscanf(f->rule->lines, "%15s", kind) != 1)
            continue;
        /*
         * kind is one of rulefile.c's line_kinds: a column prefix, checked at
         * load. The kinds with an ideal (global sectors, shared wavefronts)
         * also give each line's own ratio to it: a finding's figure is the
         * configuration's average, which conflict-free accesses on other
         * lines dilute (tk_unseen2's transpose of doubles: 8.5 ways on
         * average, 16 at the column read).
         */
        int shared = !strcmp(kind, "shared");
        int sectors = !strcmp(kind, "gld") || !strcmp(kind, "gst") || !strcmp(kind, "atomic");
        /* what a line's share is of: beyond the ideal, or all local traffic, or all narrow
           instructions (scalar-access: none of them is "excess") */
        const char *of = shared || sectors        ? "excess"
                         : !strcmp(kind, "local") ? "local traffic"
                                                  : "narrow instructions";
        char ratio[96] = "NULL";
        if (shared || sectors)
            snprintf(ratio, sizeof(ratio), "%s_%s * 1.0 / NULLIF(%s_%s_ideal, 0)", kind,
                     shared ? "wavefronts" : "sectors", kind, shared ? "wavefronts" : "sectors");
        snprintf(sql, sizeof(sql),
                 "SELECT location, file, line, function, pc, sass, %s_excess, %s_share_pct,"
                 " function = (SELECT mangled_name FROM kernel WHERE id = v_inst_line.kernel_id),"
                 " %s"
                 " FROM v_inst_line WHERE config_id = ?1 AND %s_excess > 0"
                 " ORDER BY %s_excess DESC, location LIMIT %d",
                 kind, kind, ratio, kind, kind, FINDING_LINES);
        sqlite3_stmt *st = NULL;
        if (store_prepare(db, sql, &st))
            return an_fail(ANALYZER_ERR_INTERNAL, "worst lines: %s", store_error());
        sqlite3_bind_int64(st, 1, f->config_id);
        int rc, any_file = 0;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW && f->n_lines < FINDING_LINES) {
            struct fline *l = &f->lines[f->n_lines++];
            l->own_pc = sqlite3_column_type(st, 1) == SQLITE_NULL && sqlite3_column_int(st, 8);
            l->location = col_s(st, 0);
            l->file = col_s(st, 1);
            l->line = col_ll(st, 2);
            l->function = col_s(st, 3);
            l->pc = col_ll(st, 4);
            l->sass = col_s(st, 5);
            l->excess = col_d(st, 6, 0);
            l->share_pct = col_d(st, 7, 0);
            l->times_ideal = col_d(st, 9, 0);
            any_file |= l->file != NULL;
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE && rc != SQLITE_ROW)
            return an_fail(ANALYZER_ERR_INTERNAL, "worst lines: %s", sqlite3_errmsg(db));
        /*
         * Code built without -lineinfo (every library kernel) has pcs, not
         * lines: in the finding's own kernel, already named, the pc alone
         * says where (its mangled name, 100-200 characters for a PyTorch
         * kernel, said it twice per finding); a callee keeps function+pc.
         */
        int header_lines = 0;
        for (size_t j = 0; j < f->n_lines; j++)
            header_lines += is_toolkit_header(f->lines[j].file);
        int headers = header_lines;
        for (size_t j = 0; j < f->n_lines; j++) {
            const struct fline *l = &f->lines[j];
            char piece[160];
            append(&f->message, j          ? "; "
                                : any_file ? " Worst lines: "
                                           : " Worst instructions (no line info): ");
            if (l->own_pc) {
                snprintf(piece, sizeof(piece), "pc 0x%llx", l->pc);
                append(&f->message, piece);
            } else {
                append(&f->message, l->location ? l->location : "?");
            }
            snprintf(piece, sizeof(piece), " (%.1f%% of the %s", l->share_pct, of);
            append(&f->message, piece);
            /* shared wavefronts over their ideal are the line's n ways (1 to 32, as the rule's) */
            if (l->times_ideal >= 1 && shared)
                snprintf(piece, sizeof(piece), ", %.1f-way",
                         l->times_ideal < 32 ? l->times_ideal : 32);
            else if (l->times_ideal >= 1)
                snprintf(piece, sizeof(piece), ", %.1f\xc3\x97 the ideal sectors", l->times_ideal);
            else
                piece[0] = 0;
            append(&f->message, piece);
            append(&f->message, l->sass ? ", " : ")");
            if (l->sass) {
                append(&f->message, l->sass);
                append(&f->message, ")");
            }
            /* said once, after the last such line: two or three of them repeated it */
            if (is_toolkit_header(l->file) && --headers == 0)
                append(&f->message,
                       header_lines > 1
                           ? " (CUDA headers' functions, inlined: the lines that called them are "
                             "not in the line table)"
                           : " (a CUDA header's function, inlined: the line that called it is "
                             "not in the line table)");
        }
        if (f->n_lines)
            append(&f->message, ".");
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Capping, severity, ranking                                           */
/* ------------------------------------------------------------------ */

static int step_done(sqlite3_stmt *st, const char *what);

/*
 * Kernels that wait are not work (DESIGN.md "Findings"): the
 * configurations a `marks: waiting` rule found go into temp.waiting, every
 * other rule's finding on them is dropped (counted in `dropped`, per rule
 * index), and their time leaves the run's GPU time, the denominator of
 * every share. Returns 0 or -1.
 */
static int
apply_waiting(sqlite3 *db, const struct ruleset *rs, struct findings *fs, int *dropped,
              double *run_ns)
{
    sqlite3_stmt *ins = NULL, *t = NULL;
    if (store_exec(db, "DROP TABLE IF EXISTS temp.waiting;"
                       "CREATE TEMP TABLE waiting (config_id INTEGER PRIMARY KEY)") ||
        store_prepare(db, "INSERT OR IGNORE INTO temp.waiting VALUES (?)", &ins))
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot mark waiting kernels: %s", store_error());
    int any = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const struct found *f = &fs->v[i];
        if (!f->rule->marks || !f->config_id)
            continue;
        sqlite3_bind_int64(ins, 1, f->config_id);
        if (step_done(ins, "waiting kernels")) {
            sqlite3_finalize(ins);
            return -1;
        }
        any = 1;
    }
    sqlite3_finalize(ins);
    if (!any)
        return 0;
    size_t kept = 0;
    for (size_t i = 0; i < fs->n; i++) {
        struct found *f = &fs->v[i];
        int waiting = 0;
        for (size_t j = 0; !f->rule->marks && f->config_id && j < fs->n; j++)
            waiting = waiting || (fs->v[j].rule->marks && fs->v[j].config_id == f->config_id);
        if (waiting) {
            dropped[f->rule - rs->rules]++;
            found_release(f);
            continue;
        }
        fs->v[kept++] = *f;
    }
    fs->n = kept;
    if (store_prepare(db,
                      "SELECT COALESCE(SUM(total_ns), 0) FROM temp.cfg"
                      " WHERE config_id IN (SELECT config_id FROM temp.waiting)",
                      &t))
        return an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
    if (sqlite3_step(t) == SQLITE_ROW)
        *run_ns = fmax(0, *run_ns - sqlite3_column_double(t, 0));
    sqlite3_finalize(t);
    return 0;
}

/* Fill kernel_id, launches and the cap budget of config findings from temp.cfg. */
static int
attach_config(sqlite3 *db, struct findings *fs)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db,
                      "SELECT kernel_id, launches, gap_ns, mean_ns, one_time FROM temp.cfg WHERE "
                      "config_id = ?",
                      &st))
        return an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
    for (size_t i = 0; i < fs->n; i++) {
        struct found *f = &fs->v[i];
        if (!f->config_id)
            continue;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, f->config_id);
        if (sqlite3_step(st) == SQLITE_ROW) {
            f->has_config_row = 1;
            if (!f->kernel_id)
                f->kernel_id = sqlite3_column_int64(st, 0);
            if (f->launches < 0)
                f->launches = sqlite3_column_int64(st, 1);
            f->gap_ns =
                sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 2);
            if (f->one_time < 0)
                f->one_time = sqlite3_column_int(st, 4);
        }
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < fs->n; i++) {
        struct found *f = &fs->v[i];
        if (f->launches < 0)
            f->launches = 0;
        if (f->one_time < 0)
            f->one_time = 0;
        if (f->lost_total_raw < 0)
            f->lost_total_raw = f->lost_per_launch * (double)f->launches;
        else if (f->launches > 0 && f->lost_per_launch == 0)
            f->lost_per_launch = f->lost_total_raw / (double)f->launches;
        f->lost_total = f->lost_total_raw;
    }
    return 0;
}

static int
cmp_raw_desc(const void *a, const void *b)
{
    const struct found *x = *(const struct found *const *)a, *y = *(const struct found *const *)b;
    if (x->lost_per_launch != y->lost_per_launch)
        return x->lost_per_launch < y->lost_per_launch ? 1 : -1;
    return strcmp(x->rule->id, y->rule->id);
}

/*
 * Per configuration, all findings together never claim more than the
 * measured time minus the floor (DESIGN.md "Findings"). 'normal' rules
 * take their estimate largest first; 'residual' rules (the floor
 * distance, which overlaps every specific cause) get what is left;
 * 'none' rules are not capped (their time is not the kernel's).
 */
static void
cap_findings(struct findings *fs)
{
    struct found **group = an_xcalloc(fs->n + 1, sizeof(*group));
    for (size_t i = 0; i < fs->n; i++) {
        struct found *lead = &fs->v[i];
        if (!lead->config_id || !lead->has_config_row || lead->gap_ns < 0)
            continue;
        int first = 1;
        for (size_t j = 0; j < i; j++)
            if (fs->v[j].config_id == lead->config_id)
                first = 0;
        if (!first)
            continue;
        double budget = lead->gap_ns;
        for (int pass = 0; pass < 2; pass++) {
            size_t n = 0;
            for (size_t j = i; j < fs->n; j++) {
                struct found *f = &fs->v[j];
                if (f->config_id != lead->config_id || !strcmp(f->rule->capping, "none"))
                    continue;
                if ((pass == 0) == !strcmp(f->rule->capping, "normal"))
                    group[n++] = f;
            }
            qsort(group, n, sizeof(*group), cmp_raw_desc);
            for (size_t j = 0; j < n; j++) {
                double per = fmin(group[j]->lost_per_launch, budget);
                budget -= per;
                group[j]->lost_per_launch = per;
                group[j]->lost_total = per * (double)group[j]->launches;
            }
        }
    }
    free(group);
}

static int
sev_rank(const char *s)
{
    return !strcmp(s, "error") ? 0 : !strcmp(s, "warning") ? 1 : 2;
}

/*
 * Where a finding ranks: the work's findings that lose time, then the
 * set-up's that lose time (unless they are a tenth of the wall time:
 * the set-up is paid once however long the program runs, so what it
 * lost in the run profiled does not put it before the program's own
 * work; docs/severity.md "One-time set-up"), then those that lose none,
 * the set-up's last again. A zero-cost note is hidden by default, so
 * ranking the set-up's after it made the list shown start past rank 1.
 */
static int
rank_class(const struct found *f)
{
    return (f->lost_total > 0 ? 0 : 2) + f->ranks_after_work;
}

/* Most time lost first within a class of rank_class(). */
static int
cmp_rank(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    if (rank_class(x) != rank_class(y))
        return rank_class(x) - rank_class(y);
    if (x->lost_total != y->lost_total)
        return x->lost_total < y->lost_total ? 1 : -1;
    int s = sev_rank(x->final_severity) - sev_rank(y->final_severity);
    if (s)
        return s;
    int c = strcmp(x->rule->id, y->rule->id);
    if (c)
        return c;
    if (x->kernel_id != y->kernel_id)
        return x->kernel_id < y->kernel_id ? -1 : 1;
    if (x->config_id != y->config_id)
        return x->config_id < y->config_id ? -1 : 1;
    return strcmp(x->message, y->message);
}

/* The severity scale: schema/severity.h (docs/severity.md). */

static const char *const sev_names[] = {"error", "warning", "note"};

/* 0 error, 1 warning, 2 note, from the shares (wall_pct < 0: unknown) and the estimate's strength. */
static int
sev_level(double lost, double gpu_pct, double wall_pct, const char *estimate)
{
    if (lost <= 0)
        return 2;
    int lvl = gpu_pct >= SEV_ERROR_GPU_PCT ? 0 : gpu_pct >= SEV_WARNING_GPU_PCT ? 1 : 2;
    if (wall_pct >= 0 && wall_pct < SEV_ERROR_WALL_PCT && lvl < 1)
        lvl = 1;
    if (wall_pct >= 0 && wall_pct < SEV_WARNING_WALL_PCT)
        lvl = 2;
    if (strcmp(estimate, "exact") && lvl < 1)
        lvl = 1;
    return lvl;
}

static int
is_severity(const char *s)
{
    return s && (!strcmp(s, "error") || !strcmp(s, "warning") || !strcmp(s, "note"));
}

static void
grade(struct findings *fs, double run_ns, double wall_ns)
{
    for (size_t i = 0; i < fs->n; i++) {
        struct found *f = &fs->v[i];
        f->share_pct = run_ns > 0 ? 100.0 * f->lost_total / run_ns : 0;
        double wall_pct = wall_ns > 0 ? 100.0 * f->lost_total / wall_ns : -1;
        f->ranks_after_work = f->one_time && !(wall_pct >= SEV_ONE_TIME_WALL_PCT);
        const char *est =
            f->estimate && (!strcmp(f->estimate, "exact") || !strcmp(f->estimate, "bound") ||
                            !strcmp(f->estimate, "model"))
                ? f->estimate
                : f->rule->estimate;
        if (is_severity(f->severity))
            f->final_severity = f->severity;
        else if (f->rule->severity)
            f->final_severity = f->rule->severity;
        else if (f->ranks_after_work)
            f->final_severity = "note";
        else
            f->final_severity = sev_names[sev_level(f->lost_total, f->share_pct, wall_pct, est)];
        if (f->one_time) {
            static const char tail[] =
                " One-time set-up: paid once, not at each repetition of the program's work.";
            size_t n = strlen(f->message);
            f->message = an_xrealloc(f->message, n + sizeof(tail));
            memcpy(f->message + n, tail, sizeof(tail));
        }
    }
    if (fs->n)
        qsort(fs->v, fs->n, sizeof(*fs->v), cmp_rank);
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */
/* ------------------------------------------------------------------ */

static void
bind_id(sqlite3_stmt *st, int i, long long v)
{
    if (v)
        sqlite3_bind_int64(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

static int
step_done(sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return an_fail(ANALYZER_ERR_INTERNAL, "cannot write %s: %s", what, sqlite3_errstr(rc));
    return 0;
}

static int
write_findings(sqlite3 *db, const struct findings *fs)
{
    int ret = -1;
    sqlite3_stmt *fi = NULL, *ev = NULL, *ob = NULL, *fl = NULL;
    if (store_prepare(db,
                      "INSERT INTO main.finding (id, rank, rule_id, title, tier, severity, "
                      "kernel_id, config_id, message,"
                      " remedy, doc_ref, time_lost_ns_per_launch, time_lost_ns, time_lost_raw_ns, "
                      "share_pct, launches,"
                      " profiled_launch_id) VALUES "
                      "(?1,?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)",
                      &fi) ||
        store_prepare(db,
                      "INSERT INTO main.finding_evidence (finding_id, seq, name, value, "
                      "text_value, unit, threshold, op)"
                      " VALUES (?,?,?,?,?,?,?,?)",
                      &ev) ||
        store_prepare(db,
                      "INSERT OR IGNORE INTO main.finding_object (finding_id, kind, object_id) "
                      "VALUES (?,?,?)",
                      &ob) ||
        store_prepare(db,
                      "INSERT INTO finding_line (finding_id, seq, location, file, line, "
                      "function, pc, sass, excess, unit, share_pct)"
                      " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                      &fl)) {
        an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
        goto out;
    }
    for (size_t i = 0; i < fs->n; i++) {
        const struct found *f = &fs->v[i];
        long long id = (long long)i + 1;
        sqlite3_bind_int64(fi, 1, id);
        sqlite3_bind_text(fi, 2, f->rule->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(fi, 3, f->rule->title, -1, SQLITE_STATIC);
        sqlite3_bind_text(fi, 4, f->tier ? f->tier : f->rule->tier, -1, SQLITE_STATIC);
        sqlite3_bind_text(fi, 5, f->final_severity, -1, SQLITE_STATIC);
        bind_id(fi, 6, f->kernel_id);
        bind_id(fi, 7, f->config_id);
        sqlite3_bind_text(fi, 8, f->message, -1, SQLITE_STATIC);
        sqlite3_bind_text(fi, 9, f->remedy, -1, SQLITE_STATIC);
        sqlite3_bind_text(fi, 10, f->rule->doc, -1, SQLITE_STATIC);
        sqlite3_bind_double(fi, 11, f->lost_per_launch);
        sqlite3_bind_double(fi, 12, f->lost_total);
        sqlite3_bind_double(fi, 13, f->lost_total_raw);
        sqlite3_bind_double(fi, 14, f->share_pct);
        sqlite3_bind_int64(fi, 15, f->launches);
        bind_id(fi, 16, f->profiled_launch_id);
        if (step_done(fi, "finding"))
            goto out;
        for (size_t j = 0; j < f->rule->n_evidence; j++) {
            const struct rule_evidence *e = &f->rule->evidence[j];
            sqlite3_bind_int64(ev, 1, id);
            sqlite3_bind_int64(ev, 2, (long long)j + 1);
            sqlite3_bind_text(ev, 3, e->column, -1, SQLITE_STATIC);
            if (f->ev[j].is_text)
                sqlite3_bind_text(ev, 5, f->ev[j].text, -1, SQLITE_STATIC);
            else if (!f->ev[j].is_null)
                sqlite3_bind_double(ev, 4, f->ev[j].value);
            if (e->unit)
                sqlite3_bind_text(ev, 6, e->unit, -1, SQLITE_STATIC);
            for (size_t k = 0; e->threshold && k < f->rule->n_thresholds; k++)
                if (!strcmp(f->rule->thresholds[k].name, e->threshold))
                    sqlite3_bind_double(ev, 7, f->rule->thresholds[k].value);
            if (e->op)
                sqlite3_bind_text(ev, 8, e->op, -1, SQLITE_STATIC);
            if (step_done(ev, "finding evidence"))
                goto out;
        }
        for (size_t j = 0; j < f->n_lines; j++) {
            const struct fline *l = &f->lines[j];
            const char *unit = strchr(f->rule->lines, ' ');
            sqlite3_bind_int64(fl, 1, id);
            sqlite3_bind_int64(fl, 2, (long long)j + 1);
            sqlite3_bind_text(fl, 3, l->location ? l->location : "?", -1, SQLITE_STATIC);
            sqlite3_bind_text(fl, 4, l->file, -1, SQLITE_STATIC);
            bind_id(fl, 5, l->line);
            sqlite3_bind_text(fl, 6, l->function, -1, SQLITE_STATIC);
            sqlite3_bind_int64(fl, 7, l->pc);
            sqlite3_bind_text(fl, 8, l->sass, -1, SQLITE_STATIC);
            sqlite3_bind_double(fl, 9, l->excess);
            sqlite3_bind_text(fl, 10, unit ? unit + 1 : NULL, -1, SQLITE_STATIC);
            sqlite3_bind_double(fl, 11, l->share_pct);
            if (step_done(fl, "finding line"))
                goto out;
        }
        if (f->object_kind && f->object_ids) {
            /* object_ids: comma-separated ids; at most 10000 kept per finding. */
            const char *p = f->object_ids;
            for (int n = 0; *p && n < 10000; n++) {
                char *end;
                long long oid = strtoll(p, &end, 10);
                if (end == p)
                    break;
                sqlite3_bind_int64(ob, 1, id);
                sqlite3_bind_text(ob, 2, f->object_kind, -1, SQLITE_STATIC);
                sqlite3_bind_int64(ob, 3, oid);
                if (step_done(ob, "finding object"))
                    goto out;
                p = end + strspn(end, ", ");
            }
        }
    }
    ret = 0;
out:
    sqlite3_finalize(fi);
    sqlite3_finalize(ev);
    sqlite3_finalize(ob);
    sqlite3_finalize(fl);
    return ret;
}

struct rule_status {
    const char *status;
    char note[512];
    int findings;
};

static int
write_rule_runs(sqlite3 *db, const struct ruleset *rs, const struct rule_status *rst)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db,
                      "INSERT INTO main.rule_run (rule_id, title, tier, status, note, findings) "
                      "VALUES (?,?,?,?,?,?)",
                      &st))
        return an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
    for (size_t i = 0; i < rs->n; i++) {
        sqlite3_bind_text(st, 1, rs->rules[i].id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, rs->rules[i].title, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, rs->rules[i].tier, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, rst[i].status, -1, SQLITE_STATIC);
        if (rst[i].note[0])
            sqlite3_bind_text(st, 5, rst[i].note, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 6, rst[i].findings);
        if (step_done(st, "rule_run")) {
            sqlite3_finalize(st);
            return -1;
        }
    }
    sqlite3_finalize(st);
    return 0;
}

static int
write_analysis(sqlite3 *db, const struct ruleset *rs, double run_ns)
{
    sqlite3_stmt *st = NULL;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (store_prepare(db,
                      "INSERT INTO main.analysis (id, ruleset_version, tool_version, analyzed_ns, "
                      "run_gpu_ns, rules_dir)"
                      " VALUES (1,?,?,?,?,?)",
                      &st))
        return an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
    sqlite3_bind_text(st, 1, rs->version, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, GPUHIER_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    sqlite3_bind_int64(st, 4, (long long)llround(run_ns));
    sqlite3_bind_text(st, 5, rs->dir, -1, SQLITE_STATIC);
    int rc = step_done(st, "analysis");
    sqlite3_finalize(st);
    return rc;
}

/*
 * rank_finding for a merged job report: each finding's time lost shared
 * among the ranks (schema.sql rank_finding says how) and graded against
 * each rank's own GPU and wall time, as grade() does for the run.
 */
static int
write_rank_findings(sqlite3 *db, const struct findings *fs)
{
    sqlite3_stmt *w = NULL, *ins = NULL;
    int ret = -1;
    if (store_prepare(
            db,
            "SELECT x.rank, x.w, g.gpu_ns, g.wall_ns FROM (\n"
            "  SELECT ?1 >> 32 AS rank, 1.0 AS w WHERE ?1 IS NOT NULL\n"
            "  UNION ALL SELECT config_id >> 32, SUM(total_ns) FROM temp.lstat2\n"
            "    WHERE ?1 IS NULL AND kernel_id = ?2 AND config_id IS NOT NULL GROUP BY 1\n"
            "  UNION ALL SELECT object_id >> 32, COUNT(*) FROM main.finding_object\n"
            "    WHERE ?1 IS NULL AND ?2 IS NULL AND finding_id = ?3 GROUP BY 1\n"
            "  UNION ALL SELECT rank, gpu_ns FROM temp.rank_gpu WHERE ?1 IS NULL AND ?2 IS NULL\n"
            "    AND NOT EXISTS (SELECT 1 FROM main.finding_object WHERE finding_id = ?3)\n"
            ") x JOIN temp.rank_gpu g ON g.rank = x.rank",
            &w) ||
        store_prepare(db,
                      "INSERT INTO main.rank_finding (finding_id, rank, time_lost_ns, share_pct,"
                      " severity) VALUES (?1, ?2, ?3, ?4, ?5)",
                      &ins)) {
        an_fail(ANALYZER_ERR_INTERNAL, "%s", store_error());
        goto out;
    }
    for (size_t i = 0; i < fs->n; i++) {
        const struct found *f = &fs->v[i];
        long long id = (long long)i + 1;
        bind_id(w, 1, f->config_id);
        bind_id(w, 2, f->kernel_id);
        sqlite3_bind_int64(w, 3, id);
        double total = 0;
        int rc;
        while ((rc = sqlite3_step(w)) == SQLITE_ROW)
            total += sqlite3_column_double(w, 1);
        sqlite3_reset(w);
        while (rc == SQLITE_DONE || rc == SQLITE_ROW) {
            if ((rc = sqlite3_step(w)) != SQLITE_ROW)
                break;
            double part = total > 0 ? sqlite3_column_double(w, 1) / total : 0;
            double lost = f->lost_total * part, gpu = sqlite3_column_double(w, 2);
            double wall =
                sqlite3_column_type(w, 3) == SQLITE_NULL ? -1 : sqlite3_column_double(w, 3);
            double gpu_pct = gpu > 0 ? 100.0 * lost / gpu : 0;
            double wall_pct = wall > 0 ? 100.0 * lost / wall : -1;
            const char *est =
                f->estimate && (!strcmp(f->estimate, "exact") || !strcmp(f->estimate, "bound") ||
                                !strcmp(f->estimate, "model"))
                    ? f->estimate
                    : f->rule->estimate;
            const char *sev;
            if (is_severity(f->severity))
                sev = f->severity;
            else if (f->rule->severity)
                sev = f->rule->severity;
            else if (f->one_time && !(wall_pct >= SEV_ONE_TIME_WALL_PCT))
                sev = "note";
            else
                sev = sev_names[sev_level(lost, gpu_pct, wall_pct, est)];
            sqlite3_bind_int64(ins, 1, id);
            sqlite3_bind_int64(ins, 2, sqlite3_column_int64(w, 0));
            sqlite3_bind_double(ins, 3, lost);
            sqlite3_bind_double(ins, 4, gpu_pct);
            sqlite3_bind_text(ins, 5, sev, -1, SQLITE_STATIC);
            if (step_done(ins, "rank finding"))
                goto out;
        }
        sqlite3_reset(w);
        sqlite3_clear_bindings(w);
        if (rc != SQLITE_DONE) {
            an_fail(ANALYZER_ERR_INTERNAL, "cannot share a finding among ranks: %s",
                    sqlite3_errstr(rc));
            goto out;
        }
    }
    ret = 0;
out:
    sqlite3_finalize(w);
    sqlite3_finalize(ins);
    return ret;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                          */
/* ------------------------------------------------------------------ */

static int
analyze_with(sqlite3 *db, const struct ruleset *rs)
{
    int ret = -1, have_metric = 0, *dropped = NULL;
    struct findings fs = {0};
    struct rule_status *rst = an_xcalloc(rs->n + 1, sizeof(*rst));
    an_lap(NULL);
    if (an_prepare(db))
        goto out;
    an_lap("prepare (cfg)");
    for (size_t i = 0; i < rs->n; i++) {
        if (strcasestr(rs->rules[i].query, "v_profiled")) {
            if (an_prepare_profiled(db))
                goto out;
            an_lap("prepare (v_profiled)");
            break;
        }
    }
    double run_ns = an_run_gpu_ns(db);
    if (run_ns < 0)
        goto out;
    double wall_ns = an_run_wall_ns(db);
    for (size_t i = 0; i < rs->n; i++) {
        const struct rule *r = &rs->rules[i];
        rst[i].status = "ran";
        for (size_t j = 0; j < r->n_requires; j++) {
            int met =
                require_met(db, &r->requires[j], &have_metric, rst[i].note, sizeof(rst[i].note));
            if (met < 0) {
                if (analyzer_failure() != ANALYZER_ERR_RULES)
                    an_fail(ANALYZER_ERR_INTERNAL, "%s:%d: cannot check requirement: %s", r->path,
                            r->requires[j].line, store_error());
                goto out;
            }
            if (!met) {
                rst[i].status = "skipped";
                break;
            }
        }
        if (strcmp(rst[i].status, "ran"))
            continue;
        size_t before = fs.n;
        int n_skipped = 0;
        char why[400] = "";
        int n = run_rule(db, r, &fs, &n_skipped, why, sizeof(why));
        if (n < 0)
            goto out;
        rst[i].findings = (int)(fs.n - before);
        an_lap(r->id);
        if (n_skipped)
            snprintf(rst[i].note, sizeof(rst[i].note), "not judged on %d configuration%s: %s",
                     n_skipped, n_skipped == 1 ? "" : "s", why);
    }
    dropped = an_xcalloc(rs->n + 1, sizeof(*dropped));
    if (apply_waiting(db, rs, &fs, dropped, &run_ns))
        goto out;
    for (size_t i = 0; i < rs->n; i++) {
        if (!dropped[i])
            continue;
        rst[i].findings -= dropped[i];
        size_t len = strlen(rst[i].note);
        snprintf(rst[i].note + len, sizeof(rst[i].note) - len,
                 "%s%d finding%s on waiting kernels left out", len ? "; " : "", dropped[i],
                 dropped[i] == 1 ? "" : "s");
    }
    if (attach_config(db, &fs) || attach_lines(db, &fs))
        goto out;
    cap_findings(&fs);
    grade(&fs, run_ns, wall_ns);
    if (store_exec(db, "DELETE FROM finding_line;"
                       "DELETE FROM main.finding_object; DELETE FROM main.finding_evidence;"
                       "DELETE FROM main.finding; DELETE FROM main.rule_run;"
                       "DELETE FROM main.kernel_summary; DELETE FROM main.analysis")) {
        an_fail(ANALYZER_ERR_INTERNAL, "cannot clear the analysis tables: %s", store_error());
        goto out;
    }
    if (write_findings(db, &fs) || write_rule_runs(db, rs, rst) || write_analysis(db, rs, run_ns))
        goto out;
    an_lap("write findings");
    int is_job = an_ranks_present(db);
    if (is_job && (store_exec(db, "DELETE FROM main.rank_finding") || an_ranks_prepare(db) ||
                   write_rank_findings(db, &fs))) {
        if (analyzer_failure() == ANALYZER_OK)
            an_fail(ANALYZER_ERR_INTERNAL, "cannot write rank findings: %s", store_error());
        goto out;
    }
    if (an_write_summaries(db, run_ns))
        goto out;
    an_lap("write kernel summaries");
    if (is_job && an_ranks_write(db))
        goto out;
    if (is_job)
        an_lap("ranks");
    ret = 0;
out:
    findings_release(&fs);
    free(rst);
    free(dropped);
    return ret;
}

int
analyzer_analyze(sqlite3 *db, const struct analyzer_opts *o)
{
    if (!db)
        return an_fail(ANALYZER_ERR_REPORT, "cannot analyze: no report is open");
    struct ruleset *rs = ruleset_load(o ? o->rules_dir : NULL);
    if (!rs)
        return -1;
    sqlite3_stmt *qo = NULL;
    int query_only = 0;
    if (sqlite3_prepare_v2(db, "PRAGMA query_only", -1, &qo, NULL) == SQLITE_OK &&
        sqlite3_step(qo) == SQLITE_ROW)
        query_only = sqlite3_column_int(qo, 0);
    sqlite3_finalize(qo);
    /* A reader's connection (query_only) stays a reader's: the guard would otherwise lift it. */
    if (sqlite3_db_readonly(db, "main") == 1 || query_only) {
        ruleset_free(rs);
        return an_fail(ANALYZER_ERR_REPORT, "cannot analyze: the report is open read-only");
    }
    if (store_exec(db, "SAVEPOINT gpuhier_analyze")) {
        ruleset_free(rs);
        return an_fail(ANALYZER_ERR_REPORT, "cannot analyze: %s", store_error());
    }
    int ret = analyze_with(db, rs);
    an_guard_off(db);
    an_ranks_unprepare(db);
    an_unprepare(db);
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.have_metric", NULL, NULL, NULL);
    if (ret) {
        sqlite3_exec(db, "ROLLBACK TO gpuhier_analyze; RELEASE gpuhier_analyze", NULL, NULL, NULL);
    } else if (store_exec(db, "RELEASE gpuhier_analyze")) {
        sqlite3_exec(db, "ROLLBACK TO gpuhier_analyze; RELEASE gpuhier_analyze", NULL, NULL, NULL);
        ret = an_fail(ANALYZER_ERR_REPORT, "cannot save the analysis: %s", store_error());
    }
    ruleset_free(rs);
    return ret;
}
