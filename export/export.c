/* SPDX-License-Identifier: MIT */
/*
 * export: load what a ticket needs from an analyzed report, then hand it
 * to the writer of the asked format.
 *
 * All SQL of the module is here. Strings are sanitized as they leave
 * SQLite, so the writers never see raw report text; redaction of the
 * command line and environment happens here too, for the same reason.
 * Filters that need more than equality (severity order, regex on names,
 * an id list, top N) run in C after the query, which keeps the SQL free
 * of formatted fragments.
 */
#include "export/export_int.h"
#include "export/sanitize.h"
#include "schema/hash.h"
#include "schema/store.h"
#include "schema/store_view.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

int
export_severity_rank(const char *severity)
{
    if (!severity)
        return 0;
    if (!strcmp(severity, "note"))
        return 1;
    if (!strcmp(severity, "warning"))
        return 2;
    if (!strcmp(severity, "error"))
        return 3;
    return 0;
}

static long long
col_int(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

json_t *
ex_jstr(const char *s)
{
    json_t *j = s ? json_string(s) : NULL;
    return j ? j : json_null();
}

json_t *
ex_jreal(double v)
{
    json_t *j = isfinite(v) ? json_real(v) : NULL;
    return j ? j : json_null();
}

json_t *
ex_jint(long long v)
{
    return v < 0 ? json_null() : json_integer(v);
}

/*
 * Three significant digits in the largest unit under the value, as %.3g
 * gave, but never in scientific notation: %.3g wrote 1,500 s as
 * "1.5e+03 s". Seconds are the largest unit, so they take every digit.
 */
const char *
ex_fmt_ns(char *buf, size_t n, double ns)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\xc2\xb5s"}, {1, "ns"}};
    if (!isfinite(ns)) {
        snprintf(buf, n, "unknown");
        return buf;
    }
    size_t u = 0;
    while (u + 1 < sizeof(units) / sizeof(units[0]) && fabs(ns) < units[u].scale)
        u++;
    char num[64];
    export_fmt_number(num, sizeof(num), ns / units[u].scale, 3);
    snprintf(buf, n, "%s %s", num, units[u].unit);
    return buf;
}

const char *
export_fmt_number(char *buf, size_t n, double v, int digits)
{
    if (digits < 1)
        digits = 1;
    if (!isfinite(v)) {
        snprintf(buf, n, "unknown");
        return buf;
    }
    double a = fabs(v);
    if (v == floor(v) || a >= pow(10, digits - 1)) {
        snprintf(buf, n, "%.0f", v);
        return buf;
    }
    /* Decimals for `digits` significant digits; beyond 12 the value reads as 0. */
    int dec = digits - 1 - (int)floor(log10(a));
    if (dec > 12)
        dec = 12;
    snprintf(buf, n, "%.*f", dec, v);
    /* Trailing zeros say nothing ("0.500" -> "0.5"), as %g would. */
    char *dot = strchr(buf, '.');
    if (dot) {
        char *e = buf + strlen(buf);
        while (e > dot + 1 && e[-1] == '0')
            *--e = '\0';
        if (e == dot + 1)
            *dot = '\0';
    }
    return buf;
}

const char *
export_unit_for(char *buf, size_t n, double v, const char *unit)
{
    snprintf(buf, n, "%s", unit ? unit : "");
    size_t len = strlen(buf);
    if (v != 1 || len < 2 || buf[len - 1] != 's' || !strcmp(buf, "ns"))
        return buf;
    for (size_t i = 0; i < len; i++)
        if (!isalpha((unsigned char)buf[i]))
            return buf; /* B/s, requests/inst: a rate, not a count */
    if (len > 3 && !strcmp(buf + len - 3, "ies"))
        strcpy(buf + len - 3, "y"); /* copies -> copy */
    else
        buf[len - 1] = '\0';
    return buf;
}

const char *
ex_fmt_num(char *buf, size_t n, double v)
{
    return export_fmt_number(buf, n, v, 4);
}

const char *
ex_fmt_evidence(char *buf, size_t n, const struct ex_evidence *e)
{
    if (e->text_value)
        snprintf(buf, n, "%s", e->text_value);
    else if (!e->has_value || !isfinite(e->value))
        snprintf(buf, n, "not measured");
    else {
        char v[64], u[64];
        snprintf(buf, n, "%s%s%s", ex_fmt_num(v, sizeof(v), e->value), e->unit ? " " : "",
                 export_unit_for(u, sizeof(u), e->value, e->unit));
    }
    return buf;
}

const char *
ex_fmt_dim(char *buf, size_t n, const long long d[3])
{
    if (d[0] < 0)
        snprintf(buf, n, "?");
    else
        snprintf(buf, n, "%lldx%lldx%lld", d[0], d[1] < 0 ? 1 : d[1], d[2] < 0 ? 1 : d[2]);
    return buf;
}

/*
 * Stable fingerprint of (rule, demangled kernel name): two FNV-1a 64
 * hashes with different offsets, hex. Not cryptographic; it only has to
 * be stable across runs and launch configurations (SARIF
 * partialFingerprints), and is computed on the raw name so sanitizer
 * changes never move it.
 */
static void
fingerprint(char out[33], const char *rule, const char *name)
{
    uint64_t h1 = GH_FNV1A_BASIS, h2 = 0x84222325cbf29ce4ULL;
    const char *parts[2] = {rule ? rule : "", name ? name : ""};
    for (int p = 0; p < 2; p++) {
        /* each part with its NUL, which separates the parts */
        h1 = gh_fnv1a(h1, parts[p], strlen(parts[p]) + 1);
        for (const unsigned char *s = (const unsigned char *)parts[p];; s++) {
            h2 = gh_fnv1a(h2, &(unsigned char){(unsigned char)(*s + 0x5b)}, 1);
            if (!*s)
                break;
        }
    }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h1, (unsigned long long)h2);
}

void
ex_name_hash(char out[17], const char *raw)
{
    raw = raw ? raw : "";
    snprintf(out, 17, "%016llx", (unsigned long long)gh_fnv1a(GH_FNV1A_BASIS, raw, strlen(raw)));
}

/* ------------------------------------------------------------------ */
/* Run                                                                  */
/* ------------------------------------------------------------------ */

static int
is_allowlisted_env(const char *key)
{
    static const char *prefixes[] = {"CUDA_", "NVIDIA_", "LD_", "OMP_", "GPUHIER_"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (!strncmp(key, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

/* Load a JSON column that may hold invalid UTF-8 or raw controls. */
static json_t *
load_json_column(sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    if (!s)
        return NULL;
    size_t len = strlen(s);
    char *clean = sanitize_text(s, len * 4 + 16);
    json_t *j = json_loads(clean, 0, NULL);
    free(clean);
    return j;
}

/* Single-quote for a POSIX shell. Appends to a growing buffer. */
static void
shell_quote_append(char **buf, size_t *len, size_t *cap, const char *s)
{
    int plain = *s != '\0';
    for (const char *p = s; *p; p++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,+%@",
                    *p) &&
            !((unsigned char)*p & 0x80))
            plain = 0;
    size_t need = strlen(s) * 4 + 4;
    if (*len + need + 1 > *cap) {
        *cap = (*len + need + 1) * 2;
        *buf = realloc(*buf, *cap);
        if (!*buf)
            abort();
    }
    char *o = *buf + *len;
    if (*len)
        *o++ = ' ';
    if (plain) {
        memcpy(o, s, strlen(s));
        o += strlen(s);
    } else {
        *o++ = '\'';
        for (const char *p = s; *p; p++) {
            if (*p == '\'') {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else {
                *o++ = *p;
            }
        }
        *o++ = '\'';
    }
    *o = '\0';
    *len = (size_t)(o - *buf);
}

static int
load_run(sqlite3 *db, struct ex_report *r)
{
    sqlite3_stmt *st = NULL;
    json_t *options = NULL;
    int ret = -1;
    r->argv = json_array();
    r->env = json_object();
    r->run_gpu_ns = NAN;
    if (store_prepare(db,
                      "SELECT command_line, program, cwd, env, host, tool_version, mode, options "
                      "FROM run ORDER BY id LIMIT 1",
                      &st))
        goto out;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        r->has_run = 1;
        r->program = ex_col_text(st, 1, EX_NAME_MAX);
        r->cwd = ex_col_text(st, 2, EX_NAME_MAX);
        r->host = ex_col_text(st, 4, EX_NAME_MAX);
        r->tool_version = ex_col_text(st, 5, 256);
        r->mode = ex_col_text(st, 6, 64);
        /*
         * Redacting, the column's text goes straight to export_redact_args(),
         * which reads the JSON array, sanitizes and redacts each argument in
         * one pass and hands the arguments over as plain strings: no JSON
         * parse at all (docs/bench-redact.md, "report path"). A column it
         * cannot read takes the path through jansson.
         */
        const char *txt = r->redact ? (const char *)sqlite3_column_text(st, 0) : NULL;
        size_t nargs = 0;
        char **args = txt ? export_redact_args(txt, &nargs) : NULL;
        json_t *argv = args ? NULL : load_json_column(st, 0);
        char **dumped_args = NULL;
        if (!args && json_is_array(argv) && r->redact) {
            char *dumped = json_dumps(argv, JSON_COMPACT);
            dumped_args = dumped ? export_redact_args(dumped, &nargs) : NULL;
            free(dumped);
        }
        if (args || dumped_args || json_is_array(argv)) {
            char *line = NULL;
            size_t len = 0, cap = 0;
            char **use = args ? args : dumped_args;
            size_t n = use ? nargs : json_array_size(argv);
            for (size_t i = 0; i < n; i++) {
                json_t *v = use ? NULL : json_array_get(argv, i);
                const char *a = use ? use[i] : json_is_string(v) ? json_string_value(v) : "?";
                char *s = sanitize_text(a, EX_NAME_MAX);
                json_array_append_new(r->argv, ex_jstr(s));
                shell_quote_append(&line, &len, &cap, s);
                free(s);
            }
            r->argv_shell = line;
        }
        free(args);
        free(dumped_args);
        json_decref(argv);
        json_t *env = load_json_column(st, 3);
        if (json_is_object(env)) {
            const char *k;
            json_t *v;
            json_object_foreach(env, k, v)
            {
                if (!is_allowlisted_env(k) || !json_is_string(v))
                    continue;
                char *ks = sanitize_text(k, 256);
                char *vs = sanitize_text(json_string_value(v), EX_NAME_MAX);
                if (r->redact) {
                    /* One code path for both: redact "KEY=value" as an argument. */
                    size_t n = strlen(ks) + strlen(vs) + 2;
                    char *kv = malloc(n);
                    json_t *arr = json_array();
                    if (!kv)
                        abort();
                    snprintf(kv, n, "%s=%s", ks, vs);
                    json_array_append_new(arr, ex_jstr(kv));
                    char *d = json_dumps(arr, JSON_COMPACT);
                    size_t nred = 0;
                    char **red = d ? export_redact_args(d, &nred) : NULL;
                    const char *rv = nred == 1 ? red[0] : NULL;
                    if (rv && strchr(rv, '=')) {
                        free(vs);
                        vs = strdup(strchr(rv, '=') + 1);
                    }
                    free(red);
                    free(d);
                    json_decref(arr);
                    free(kv);
                }
                json_object_set_new(r->env, ks, ex_jstr(vs));
                free(ks);
                free(vs);
            }
        }
        json_decref(env);
        options = load_json_column(st, 7);
    } else if (rc != SQLITE_DONE) {
        store_fail(db, rc, "reading the run");
        goto out;
    }
    sqlite3_finalize(st);
    st = NULL;

    if (store_prepare(db, "SELECT name FROM device ORDER BY id LIMIT 1", &st))
        goto out;
    if (sqlite3_step(st) == SQLITE_ROW)
        r->device_name = ex_col_text(st, 0, 256);
    sqlite3_finalize(st);
    st = NULL;

    if (store_prepare(
            db, "SELECT ruleset_version, run_gpu_ns FROM analysis ORDER BY id DESC LIMIT 1", &st))
        goto out;
    if (sqlite3_step(st) == SQLITE_ROW) {
        r->ruleset_version = ex_col_text(st, 0, 256);
        r->run_gpu_ns = ex_col_real(st, 1);
    }
    sqlite3_finalize(st);
    st = NULL;

    struct store_coverage cov;
    if (store_counter_coverage(db, &cov) == 0 && cov.gpu_ns > 0) {
        r->has_coverage = 1;
        r->pattern_pct = cov.pattern_pct;
        r->hardware_pct = cov.hardware_pct;
        r->complete_pct = cov.complete_pct;
        r->groups_partial = cov.groups_partial;
        r->graph_only_pct = cov.graph_only_pct;
        r->has_repeated = cov.repeated_ns > 0; /* set only when set-up was found */
        r->repeated_pattern_pct = cov.repeated_pattern_pct;
        r->repeated_hardware_pct = cov.repeated_hardware_pct;
    }

    char *m = store_meta_get(db, "created_by");
    r->created_by = m ? sanitize_text(m, 64) : NULL;
    free(m);
    m = store_meta_get(db, "provenance");
    r->provenance = m ? sanitize_text(m, EX_TEXT_MAX) : NULL;
    free(m);

    if (r->argv_shell) {
        /* The collector options in force, as the `gpuhier run` flags that set them. */
        static const struct {
            const char *key, *flag;
        } flags[] = {{"mode", "--mode"},
                     {"sample", "--sample"},
                     {"kernel", "--kernel"},
                     {"launch_skip", "--launch-skip"},
                     {"launch_count", "--launch-count"},
                     {"nvtx_include", "--nvtx-include"},
                     {"metrics", "--metrics"},
                     {"metric_set", "--metric-set"},
                     {"profile_budget", "--profile-budget"},
                     {"cache_control", "--cache-control"},
                     {"replay", "--replay"}};
        char *line = NULL;
        size_t len = 0, cap = 0;
        shell_quote_append(&line, &len, &cap, "gpuhier");
        shell_quote_append(&line, &len, &cap, "run");
        for (size_t i = 0; options && i < sizeof(flags) / sizeof(flags[0]); i++) {
            const char *v = json_string_value(json_object_get(options, flags[i].key));
            if (!v || !*v || (!strcmp(flags[i].key, "mode") && !strcmp(v, "profile")))
                continue;
            char *sv = sanitize_text(v, EX_NAME_MAX);
            shell_quote_append(&line, &len, &cap, flags[i].flag);
            shell_quote_append(&line, &len, &cap, sv);
            free(sv);
        }
        const char *a0 = json_string_value(json_array_get(r->argv, 0));
        if (a0 && a0[0] == '-')
            shell_quote_append(&line, &len, &cap, "--");
        size_t n = len + strlen(r->argv_shell) + 2;
        r->repro = malloc(n);
        if (!r->repro)
            abort();
        snprintf(r->repro, n, "%s %s", line, r->argv_shell);
        free(line);
    }
    ret = 0;
out:
    json_decref(options);
    sqlite3_finalize(st);
    return ret;
}

char *
export_repro_command(sqlite3 *db, int redact)
{
    struct ex_report r = {.redact = redact};
    char *s = NULL;
    if (load_run(db, &r) == 0 && r.repro)
        s = strdup(r.repro);
    ex_report_release(&r);
    return s;
}

/* ------------------------------------------------------------------ */
/* Rules, kernels, findings                                             */
/* ------------------------------------------------------------------ */

static struct ex_rule *
rule_add(struct ex_report *r, const char *id)
{
    for (size_t i = 0; i < r->n_rules; i++)
        if (!strcmp(r->rules[i].id, id))
            return &r->rules[i];
    r->rules = realloc(r->rules, (r->n_rules + 1) * sizeof(*r->rules));
    if (!r->rules)
        abort();
    struct ex_rule *x = &r->rules[r->n_rules++];
    memset(x, 0, sizeof(*x));
    x->id = sanitize_text(id, 256);
    return x;
}

const struct ex_rule *
ex_rule_find(const struct ex_report *r, const char *id)
{
    for (size_t i = 0; i < r->n_rules; i++)
        if (!strcmp(r->rules[i].id, id))
            return &r->rules[i];
    return NULL;
}

static void
set_if_null(char **dst, const char *src, size_t cap)
{
    if (!*dst && src)
        *dst = sanitize_text(src, cap);
}

static int
rule_cmp(const void *a, const void *b)
{
    return strcmp(((const struct ex_rule *)a)->id, ((const struct ex_rule *)b)->id);
}

static int
load_rules(sqlite3 *db, const struct export_opts *o, struct ex_report *r)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(
            db, "SELECT rule_id, title, tier, status, note FROM rule_run ORDER BY rule_id", &st))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(st, 0);
        if (!id || (o->rule && strcmp(o->rule, id)))
            continue;
        struct ex_rule *x = rule_add(r, id);
        x->title = ex_col_text(st, 1, 512);
        x->tier = ex_col_text(st, 2, 64);
        x->status = ex_col_text(st, 3, 64);
        x->note = ex_col_text(st, 4, EX_TEXT_MAX);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_fail(db, rc, "reading rule_run");
    for (size_t i = 0; i < o->n_rule_docs && o->rule_docs; i++) {
        const struct export_rule_doc *d = &o->rule_docs[i];
        if (!d->id || (o->rule && strcmp(o->rule, d->id)))
            continue;
        struct ex_rule *x = rule_add(r, d->id);
        set_if_null(&x->title, d->title, 512);
        set_if_null(&x->tier, d->tier, 64);
        set_if_null(&x->doc, d->doc, 512);
        set_if_null(&x->rationale, d->rationale, EX_TEXT_MAX);
        set_if_null(&x->remedy, d->remedy, EX_TEXT_MAX);
    }
    return 0;
}

static int
load_kernels(sqlite3 *db, const regex_t *re, struct ex_report *r)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(
            db,
            "SELECT k.id, k.demangled_name, k.mangled_name, k.short_name, k.source_file, "
            "k.source_line,"
            " coalesce(s.launches, (SELECT sum(launches) FROM config WHERE kernel_id = k.id)),"
            " coalesce(s.total_ns, (SELECT sum(total_ns) FROM config WHERE kernel_id = k.id)),"
            " s.mean_ns, s.share_pct, s.floor_ns, s.floor_ratio, s.floor_ratio_measured, "
            "s.dram_bytes,"
            " s.useful_bytes, s.l2_bytes, s.local_bytes, s.achieved_occupancy_pct, s.time_lost_ns,"
            " s.bound_tier, s.worst_severity "
            "FROM kernel k LEFT JOIN kernel_summary s ON s.id = (SELECT min(id) FROM kernel_summary"
            " WHERE kernel_id = k.id AND config_id IS NULL) ORDER BY k.id",
            &st))
        return -1;
    int rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char *name = ex_col_text(st, 1, EX_NAME_MAX);
        if (!name)
            name = ex_col_text(st, 2, EX_NAME_MAX);
        if (!name)
            name = strdup("?");
        if (re && regexec(re, name, 0, NULL, 0) != 0) {
            free(name);
            continue;
        }
        if (r->n_kernels == cap) {
            cap = cap ? cap * 2 : 16;
            r->kernels = realloc(r->kernels, cap * sizeof(*r->kernels));
            if (!r->kernels)
                abort();
        }
        struct ex_kernel *k = &r->kernels[r->n_kernels++];
        /* display_name is set later (ex_display_names()); a failure before must free NULL. */
        memset(k, 0, sizeof(*k));
        k->id = sqlite3_column_int64(st, 0);
        k->demangled_name = name;
        k->short_name = ex_col_text(st, 3, EX_NAME_MAX);
        k->source_file = ex_col_text(st, 4, EX_NAME_MAX);
        k->source_line = col_int(st, 5);
        const char *raw = (const char *)sqlite3_column_text(st, 1);
        ex_name_hash(k->fp, raw ? raw : (const char *)sqlite3_column_text(st, 2));
        k->launches = col_int(st, 6);
        k->total_ns = ex_col_real(st, 7);
        k->mean_ns = ex_col_real(st, 8);
        /* No traced time (every launch ran instrumented, a patched run keeps none) is unknown,
           not 0 ns: `gpuhier diff` read "tk_fill 0 ns -> 24 us" */
        if (isnan(k->mean_ns) && !(k->total_ns > 0))
            k->total_ns = NAN;
        if (isnan(k->mean_ns) && k->launches > 0 && isfinite(k->total_ns))
            k->mean_ns = k->total_ns / (double)k->launches;
        k->share_pct = ex_col_real(st, 9);
        k->floor_ns = ex_col_real(st, 10);
        k->floor_ratio = ex_col_real(st, 11);
        k->floor_ratio_measured = ex_col_real(st, 12);
        k->dram_bytes = ex_col_real(st, 13);
        k->useful_bytes = ex_col_real(st, 14);
        k->l2_bytes = ex_col_real(st, 15);
        k->local_bytes = ex_col_real(st, 16);
        k->achieved_occupancy_pct = ex_col_real(st, 17);
        k->time_lost_ns = ex_col_real(st, 18);
        k->bound_tier = ex_col_text(st, 19, 64);
        k->worst_severity = ex_col_text(st, 20, 64);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_fail(db, rc, "reading kernels");
}

static int
id_selected(const struct export_opts *o, long long id)
{
    if (!o->finding_ids)
        return 1;
    for (size_t i = 0; i < o->n_ids; i++)
        if (o->finding_ids[i] == id)
            return 1;
    return 0;
}

static int
load_evidence(sqlite3 *db, sqlite3_stmt *st, struct ex_finding *f)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, f->id);
    int rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (f->n_ev == cap) {
            cap = cap ? cap * 2 : 4;
            f->ev = realloc(f->ev, cap * sizeof(*f->ev));
            if (!f->ev)
                abort();
        }
        struct ex_evidence *e = &f->ev[f->n_ev++];
        memset(e, 0, sizeof(*e));
        e->name = ex_col_text(st, 0, 256);
        if (!e->name)
            e->name = strdup("?");
        e->has_value = sqlite3_column_type(st, 1) != SQLITE_NULL;
        e->value = e->has_value ? sqlite3_column_double(st, 1) : NAN;
        e->text_value = ex_col_text(st, 2, EX_NAME_MAX);
        e->unit = ex_col_text(st, 3, 64);
        e->has_threshold = sqlite3_column_type(st, 4) != SQLITE_NULL;
        e->threshold = e->has_threshold ? sqlite3_column_double(st, 4) : NAN;
        e->op = ex_col_text(st, 5, 8);
    }
    return rc == SQLITE_DONE ? 0 : store_fail(db, rc, "reading finding_evidence");
}

static int
load_lines(sqlite3 *db, sqlite3_stmt *st, struct ex_finding *f)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, f->id);
    int rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (f->n_lines == cap) {
            cap = cap ? cap * 2 : 4;
            f->lines = realloc(f->lines, cap * sizeof(*f->lines));
            if (!f->lines)
                abort();
        }
        struct ex_line *l = &f->lines[f->n_lines++];
        memset(l, 0, sizeof(*l));
        l->location = ex_col_text(st, 0, EX_NAME_MAX);
        if (!l->location)
            l->location = strdup("?");
        l->file = ex_col_text(st, 1, EX_NAME_MAX);
        l->line = col_int(st, 2);
        l->pc = col_int(st, 3);
        l->sass = ex_col_text(st, 4, 512);
        l->excess = ex_col_real(st, 5);
        l->unit = ex_col_text(st, 6, 64);
        l->share_pct = ex_col_real(st, 7);
    }
    return rc == SQLITE_DONE ? 0 : store_fail(db, rc, "reading finding_line");
}

static const char FINDINGS_SQL[] =
    "SELECT f.id, f.rank, f.rule_id, f.title, f.tier, f.severity, f.message, f.remedy, f.doc_ref,"
    " f.time_lost_ns_per_launch, f.time_lost_ns, f.time_lost_raw_ns, f.share_pct, f.launches,"
    " f.profiled_launch_id, f.kernel_id, k.mangled_name, k.demangled_name, k.short_name,"
    " k.source_file, k.source_line, f.config_id, c.grid_x, c.grid_y, c.grid_z,"
    " c.block_x, c.block_y, c.block_z, c.dynamic_smem_bytes, c.static_smem_bytes,"
    " c.registers_per_thread, c.local_bytes_per_thread, c.theoretical_occupancy_pct,"
    " c.occupancy_limiter "
    "FROM finding f LEFT JOIN kernel k ON k.id = f.kernel_id LEFT JOIN config c ON c.id = "
    "f.config_id "
    "WHERE (?1 IS NULL OR f.rule_id = ?1) AND (?2 OR " EXPORT_FINDING_SHOWN ") "
    "ORDER BY f.rank IS NULL, f.rank, f.time_lost_ns DESC, f.id";

static int
load_findings(sqlite3 *db, const struct export_opts *o, const regex_t *re, int min_rank, int all,
              struct ex_report *r)
{
    sqlite3_stmt *st = NULL, *ev = NULL, *ln = NULL;
    int ret = -1, rc;
    size_t cap = 0;
    long long total = store_query_int(db, "SELECT count(*) FROM finding", -1);
    if (total < 0)
        goto out;
    r->n_total = (size_t)total;
    if (store_prepare(db, FINDINGS_SQL, &st) ||
        store_prepare(db,
                      "SELECT name, value, text_value, unit, threshold, op FROM finding_evidence "
                      "WHERE finding_id = ?1 ORDER BY seq",
                      &ev) ||
        store_prepare(db,
                      "SELECT location, file, line, pc, sass, excess, unit, share_pct"
                      " FROM finding_line WHERE finding_id = ?1 ORDER BY seq",
                      &ln))
        goto out;
    if (o->rule)
        sqlite3_bind_text(st, 1, o->rule, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, all);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (o->top > 0 && r->n >= (size_t)o->top)
            break;
        long long id = sqlite3_column_int64(st, 0);
        const char *sev = (const char *)sqlite3_column_text(st, 5);
        if (export_severity_rank(sev) < min_rank || !id_selected(o, id))
            continue;
        const char *raw_dem = (const char *)sqlite3_column_text(st, 17);
        if (!raw_dem)
            raw_dem = (const char *)sqlite3_column_text(st, 16);
        char *dem = raw_dem ? sanitize_text(raw_dem, EX_NAME_MAX) : NULL;
        if (re && (!dem || regexec(re, dem, 0, NULL, 0) != 0)) {
            free(dem);
            continue;
        }
        if (r->n == cap) {
            cap = cap ? cap * 2 : 16;
            r->f = realloc(r->f, cap * sizeof(*r->f));
            if (!r->f)
                abort();
        }
        struct ex_finding *f = &r->f[r->n++];
        memset(f, 0, sizeof(*f));
        f->id = id;
        f->rank = col_int(st, 1);
        f->rule_id = ex_col_text(st, 2, 256);
        f->title = ex_col_text(st, 3, 512);
        f->tier = ex_col_text(st, 4, 64);
        f->severity = strdup(export_severity_rank(sev) ? sev : "note");
        f->message = ex_col_text(st, 6, EX_TEXT_MAX);
        f->remedy = ex_col_text(st, 7, EX_TEXT_MAX);
        f->doc_ref = ex_col_text(st, 8, 512);
        f->time_lost_ns_per_launch = ex_col_real(st, 9);
        f->time_lost_ns = ex_col_real(st, 10);
        f->time_lost_raw_ns = ex_col_real(st, 11);
        f->share_pct = ex_col_real(st, 12);
        f->launches = col_int(st, 13);
        f->profiled_launch_id = col_int(st, 14);
        f->kernel_id = col_int(st, 15);
        f->mangled_name = ex_col_text(st, 16, EX_NAME_MAX);
        f->demangled_name = dem;
        f->short_name = ex_col_text(st, 18, EX_NAME_MAX);
        f->source_file = ex_col_text(st, 19, EX_NAME_MAX);
        f->source_line = col_int(st, 20);
        f->config_id = col_int(st, 21);
        for (int i = 0; i < 3; i++) {
            f->grid[i] = col_int(st, 22 + i);
            f->block[i] = col_int(st, 25 + i);
        }
        f->dynamic_smem_bytes = col_int(st, 28);
        f->static_smem_bytes = col_int(st, 29);
        f->registers_per_thread = col_int(st, 30);
        f->local_bytes_per_thread = col_int(st, 31);
        f->theoretical_occupancy_pct = ex_col_real(st, 32);
        f->occupancy_limiter = ex_col_text(st, 33, 64);
        if (!f->rule_id)
            f->rule_id = strdup("unknown");
        fingerprint(f->fingerprint, (const char *)sqlite3_column_text(st, 2), raw_dem);
        if (f->kernel_id >= 0)
            ex_name_hash(f->kernel_fp, raw_dem);
        if (load_evidence(db, ev, f) || load_lines(db, ln, f))
            goto out;
        struct ex_rule *x = rule_add(r, f->rule_id);
        set_if_null(&x->title, f->title, 512);
        set_if_null(&x->tier, f->tier, 64);
        set_if_null(&x->doc, f->doc_ref, 512);
        set_if_null(&x->remedy, f->remedy, EX_TEXT_MAX);
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        store_fail(db, rc, "reading findings");
        goto out;
    }
    ret = 0;
out:
    sqlite3_finalize(st);
    sqlite3_finalize(ev);
    sqlite3_finalize(ln);
    return ret;
}

int
ex_report_load(sqlite3 *db, const struct export_opts *o, struct ex_report *r)
{
    regex_t re;
    int has_re = 0, ret = -1;
    memset(r, 0, sizeof(*r));
    const char *fmt = o->format ? o->format : "md";
    /*
     * Markdown tickets are for findings worth one (docs/severity.md): warning
     * or worse, and never a note with no time lost, unless asked (--all,
     * --min-severity, or findings named by id: the TUI's tagged rows). The
     * machine formats (json, csv, sarif, junit) keep every finding.
     */
    int tickets = !strcmp(fmt, "md") || !strcmp(fmt, "markdown");
    /* The HTML page is for a reader, who sees what analyze and the TUI show: no free notes. */
    int page = !strcmp(fmt, "html");
    int all = (!tickets && !page) || o->all || o->finding_ids;
    const char *minsev = o->min_severity ? o->min_severity : all || page ? "note" : "warning";
    int min_rank = export_severity_rank(minsev);
    if (!min_rank)
        return store_set_error("unknown severity '%s' (note, warning, error)", minsev);
    /* JUnit reports passing test cases too: its severity is the failure line, not a filter. */
    if (!strcmp(fmt, "junit"))
        min_rank = 1;
    r->redact = o->redact;
    r->db = db;
    if (o->kernel_regex) {
        int rc = regcomp(&re, o->kernel_regex, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            char msg[256];
            regerror(rc, &re, msg, sizeof(msg));
            return store_set_error("bad kernel regex '%s': %s", o->kernel_regex, msg);
        }
        has_re = 1;
    }
    if (load_run(db, r) || load_rules(db, o, r) || load_kernels(db, has_re ? &re : NULL, r) ||
        load_findings(db, o, has_re ? &re : NULL, min_rank, all, r) || ex_display_names(db, r))
        goto out;
    if (r->n_rules > 1)
        qsort(r->rules, r->n_rules, sizeof(*r->rules), rule_cmp);
    ret = 0;
out:
    if (has_re)
        regfree(&re);
    return ret;
}

void
ex_report_release(struct ex_report *r)
{
    if (!r)
        return;
    free(r->program);
    free(r->cwd);
    free(r->host);
    free(r->tool_version);
    free(r->mode);
    free(r->created_by);
    free(r->provenance);
    free(r->argv_shell);
    free(r->device_name);
    free(r->repro);
    free(r->ruleset_version);
    json_decref(r->argv);
    json_decref(r->env);
    for (size_t i = 0; i < r->n; i++) {
        struct ex_finding *f = &r->f[i];
        free(f->rule_id);
        free(f->title);
        free(f->tier);
        free(f->severity);
        free(f->message);
        free(f->remedy);
        free(f->doc_ref);
        free(f->mangled_name);
        free(f->demangled_name);
        free(f->short_name);
        free(f->display_name);
        free(f->source_file);
        free(f->occupancy_limiter);
        for (size_t j = 0; j < f->n_ev; j++) {
            free(f->ev[j].name);
            free(f->ev[j].text_value);
            free(f->ev[j].unit);
            free(f->ev[j].op);
        }
        free(f->ev);
        for (size_t j = 0; j < f->n_lines; j++) {
            free(f->lines[j].location);
            free(f->lines[j].file);
            free(f->lines[j].sass);
            free(f->lines[j].unit);
        }
        free(f->lines);
    }
    free(r->f);
    for (size_t i = 0; i < r->n_rules; i++) {
        struct ex_rule *x = &r->rules[i];
        free(x->id);
        free(x->title);
        free(x->tier);
        free(x->doc);
        free(x->rationale);
        free(x->remedy);
        free(x->status);
        free(x->note);
    }
    free(r->rules);
    for (size_t i = 0; i < r->n_kernels; i++) {
        free(r->kernels[i].demangled_name);
        free(r->kernels[i].short_name);
        free(r->kernels[i].display_name);
        free(r->kernels[i].source_file);
        free(r->kernels[i].bound_tier);
        free(r->kernels[i].worst_severity);
    }
    free(r->kernels);
    memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

int
export_write(sqlite3 *db, const struct export_opts *o, FILE *out)
{
    static const struct {
        const char *name;
        int (*fn)(const struct ex_report *, const struct export_opts *, FILE *);
    } writers[] = {
        {"md", ex_write_md},     {"markdown", ex_write_md}, {"json", ex_write_json},
        {"csv", ex_write_csv},   {"sarif", ex_write_sarif}, {"junit", ex_write_junit},
        {"html", ex_write_html},
    };
    const char *fmt = o->format ? o->format : "md";
    int (*fn)(const struct ex_report *, const struct export_opts *, FILE *) = NULL;
    for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
        if (!strcmp(fmt, writers[i].name))
            fn = writers[i].fn;
    if (!fn)
        return store_set_error("unknown format '%s' (md, json, csv, sarif, junit, html)", fmt);
    struct ex_report r;
    int ret = -1;
    if (ex_report_load(db, o, &r) == 0 && fn(&r, o, out) == 0) {
        if (fflush(out) != 0 || ferror(out))
            store_set_error("cannot write the export: %s", strerror(errno));
        else
            ret = 0;
    }
    ex_report_release(&r);
    return ret;
}

/* File name piece: [A-Za-z0-9._-] only, capped; never empty, never "." or "..". */
static void
safe_name(char *dst, size_t n, const char *s)
{
    size_t j = 0;
    for (const char *p = s ? s : ""; *p && j + 1 < n; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || (c == '.' && j > 0);
        if (ok)
            dst[j++] = c;
        else if (j > 0 && dst[j - 1] != '_')
            dst[j++] = '_';
    }
    dst[j] = '\0';
    if (j == 0)
        snprintf(dst, n, "run");
}

int
export_md_dir(sqlite3 *db, const struct export_opts *o, const char *dir, FILE *list)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return store_set_error("'%s' is not a directory", dir);
    struct ex_report r;
    struct export_opts oo = *o;
    oo.format = "md";
    int ret = -1;
    if (ex_report_load(db, &oo, &r))
        goto out;
    for (size_t i = 0; i < r.n; i++) {
        const struct ex_finding *f = &r.f[i];
        char rule[64], kern[64], path[4096];
        safe_name(rule, sizeof(rule), f->rule_id);
        safe_name(kern, sizeof(kern), f->short_name ? f->short_name : f->demangled_name);
        size_t dl = strlen(dir);
        while (dl > 1 && dir[dl - 1] == '/')
            dl--;
        snprintf(path, sizeof(path), "%.*s/%04lld-%s-%s.md", (int)dl, dir,
                 f->rank > 0 ? f->rank : (long long)i + 1, rule, kern);
        FILE *fp = fopen(path, "w");
        if (!fp) {
            store_set_error("cannot write '%s': %s", path, strerror(errno));
            goto out;
        }
        int bad = ex_write_md_one_ticket(&r, f, fp);
        if (fclose(fp) != 0 || bad) {
            if (!bad)
                store_set_error("cannot write '%s': %s", path, strerror(errno));
            goto out;
        }
        if (list)
            fprintf(list, "%s\n", path);
    }
    ret = (int)r.n;
out:
    ex_report_release(&r);
    return ret;
}
