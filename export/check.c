/* SPDX-License-Identifier: MIT */
/*
 * check: the CI gate behind `gpuhier check`.
 *
 * A finding's identity across reports is (rule, demangled kernel name),
 * the same key SARIF's partialFingerprints use: launch configurations
 * change between commits (a new problem size), kernel names rarely do.
 * Several findings can share a key (one per configuration), so the
 * baseline comparison is made on the key's totals: the worst severity
 * and the summed time lost.
 */
#include "export/export_int.h"
#include "export/sanitize.h"
#include "schema/store.h"

#include <math.h>
#include <string.h>

struct key_total {
    const char *rule, *kfp; /* the key, borrowed from the report */
    int max_rank;           /* worst severity rank, 0 when the key is absent */
    double lost_ns;         /* summed time lost (unknown counts as 0) */
};

static int
key_cmp(const void *a, const void *b)
{
    const struct key_total *x = a, *y = b;
    int c = strcmp(x->rule, y->rule);
    return c ? c : strcmp(x->kfp, y->kfp);
}

/* Totals per (rule, kernel) of a report, sorted for bsearch; free() the result. */
static struct key_total *
key_totals(const struct ex_report *r, size_t *n_out)
{
    struct key_total *t = calloc(r->n + 1, sizeof(*t));
    if (!t)
        abort();
    for (size_t i = 0; i < r->n; i++) {
        const struct ex_finding *f = &r->f[i];
        t[i] = (struct key_total){f->rule_id, f->kernel_fp, export_severity_rank(f->severity),
                                  isfinite(f->time_lost_ns) ? f->time_lost_ns : 0};
    }
    qsort(t, r->n, sizeof(*t), key_cmp);
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (n > 0 && key_cmp(&t[n - 1], &t[i]) == 0) {
            if (t[i].max_rank > t[n - 1].max_rank)
                t[n - 1].max_rank = t[i].max_rank;
            t[n - 1].lost_ns += t[i].lost_ns;
        } else {
            t[n++] = t[i];
        }
    }
    *n_out = n;
    return t;
}

static struct key_total
key_total(const struct key_total *t, size_t n, const char *rule, const char *kfp)
{
    struct key_total want = {rule, kfp, 0, 0};
    const struct key_total *hit = n ? bsearch(&want, t, n, sizeof(*t), key_cmp) : NULL;
    return hit ? *hit : want;
}

static void
print_line(FILE *out, const struct ex_finding *f, const char *why)
{
    char a[64], g[64], b[64];
    /* The short name every view shows (export/kname.h); already sanitized. */
    char *kname = sanitize_text(f->display_name     ? f->display_name
                                : f->demangled_name ? f->demangled_name
                                                    : "(run)",
                                0);
    fprintf(out, "%s %s %s", f->severity, f->rule_id, kname);
    free(kname);
    if (f->config_id >= 0)
        fprintf(out, " [grid %s block %s]", ex_fmt_dim(g, sizeof(g), f->grid),
                ex_fmt_dim(b, sizeof(b), f->block));
    fprintf(out, ": %s lost", ex_fmt_ns(a, sizeof(a), f->time_lost_ns));
    if (isfinite(f->share_pct))
        fprintf(out, " (%.2f %%)", f->share_pct);
    if (f->message) {
        char *m = sanitize_text(f->message, 300);
        fprintf(out, ": %s", m);
        free(m);
    }
    if (why)
        fprintf(out, " [%s]", why);
    fputc('\n', out);
}

/*
 * A merged job report (schema.sql rank_finding) grades each finding on
 * every rank against that rank's own time: the gate takes the worst rank,
 * so a problem of one rank in 64 fails as it would in that rank's own
 * report. Returns the worst severity rank (0: none) and its rank in *which.
 */
static int
worst_rank(sqlite3 *db, long long finding_id, long long *which)
{
    sqlite3_stmt *st = NULL;
    int worst = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT rank, severity FROM rank_finding WHERE finding_id = ?1"
                           " ORDER BY CASE severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1"
                           " ELSE 2 END, rank LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return 0; /* not a job report */
    }
    sqlite3_bind_int64(st, 1, finding_id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        *which = sqlite3_column_int64(st, 0);
        worst = export_severity_rank((const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    return worst;
}

int
export_check(sqlite3 *db, sqlite3 *baseline, const struct export_check_opts *o, FILE *out)
{
    const char *fail_on = o->fail_on ? o->fail_on : "warning";
    int min_rank = export_severity_rank(fail_on);
    if (!min_rank)
        return store_set_error("unknown severity '%s' (note, warning, error)", fail_on);
    struct export_opts eo = {
        .format = "json", .rule = o->rule, .kernel_regex = o->kernel_regex, .redact = 1};
    struct ex_report cur, base;
    int have_base = 0, ret = -1, failing = 0;
    memset(&base, 0, sizeof(base));
    if (ex_report_load(db, &eo, &cur))
        goto out;
    if (baseline) {
        have_base = 1;
        if (ex_report_load(baseline, &eo, &base))
            goto out;
    }
    double tol = o->tolerance_pct > 0 ? o->tolerance_pct : 0;
    size_t n_ct = 0, n_bt = 0;
    struct key_total *ct = key_totals(&cur, &n_ct);
    struct key_total *bt = have_base ? key_totals(&base, &n_bt) : NULL;
    for (size_t i = 0; i < cur.n; i++) {
        const struct ex_finding *f = &cur.f[i];
        int rank = export_severity_rank(f->severity);
        long long which = -1;
        int on_rank = worst_rank(db, f->id, &which);
        char why[256], rank_why[96];
        const char *reason = NULL;
        if (on_rank > rank) {
            snprintf(rank_why, sizeof(rank_why), "rank %lld: %s", which,
                     on_rank == 3   ? "error"
                     : on_rank == 2 ? "warning"
                                    : "note");
            rank = on_rank;
            reason = rank_why;
        }
        if (rank < min_rank)
            continue;
        if (have_base) {
            struct key_total b = key_total(bt, n_bt, f->rule_id, f->kernel_fp);
            struct key_total c = key_total(ct, n_ct, f->rule_id, f->kernel_fp);
            char x[64], y[64];
            if (b.max_rank == 0) {
                reason = "new";
            } else if (rank > b.max_rank) {
                snprintf(why, sizeof(why), "worse: severity was %s",
                         b.max_rank == 3   ? "error"
                         : b.max_rank == 2 ? "warning"
                                           : "note");
                reason = why;
            } else if (c.lost_ns > b.lost_ns * (1 + tol / 100) && c.lost_ns > b.lost_ns) {
                snprintf(why, sizeof(why), "worse: time lost %s -> %s",
                         ex_fmt_ns(x, sizeof(x), b.lost_ns), ex_fmt_ns(y, sizeof(y), c.lost_ns));
                reason = why;
            } else {
                continue; /* known and not worse: the baseline accepts it */
            }
        }
        print_line(out, f, reason);
        failing++;
    }
    free(ct);
    free(bt);
    ret = failing;
out:
    ex_report_release(&cur);
    if (have_base)
        ex_report_release(&base);
    return ret;
}
