/* SPDX-License-Identifier: MIT */
/*
 * diff: two reports side by side, for "did the fix work".
 *
 * Kernels pair up by demangled name (the raw bytes' hash, so sanitizing
 * never merges two kernels), or through --map for renamed ones; the
 * numbers compared are the analyzer's per-kernel summaries. Findings
 * pair up on (rule, paired kernel), the key `check` and SARIF use, and
 * land in fixed, new or unchanged. Writers: text, JSON, Markdown.
 */
#include "export/export_int.h"
#include "export/kname.h"
#include "export/sanitize.h"
#include "schema/store.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct kpair {
    const struct ex_kernel *b, *a; /* either may be NULL */
};

struct fkey {
    const char *rule;
    char kfp[17];       /* after-side kernel identity ("" for run level) */
    const char *kernel; /* display name (short name when known) */
    const char *listed; /* the name the lists show (export/kname.h), NULL for run level */
    int b_rank, a_rank; /* worst severity, 0 when absent */
    double b_lost, a_lost;
    long long b_id, a_id; /* the first (best ranked) finding of the key on each side, -1: none */
};

struct diff {
    struct ex_report b, a;
    struct kpair *k;
    size_t nk;
    struct fkey *f;
    size_t nf;
};

static const char *
sev_name(int rank)
{
    return rank == 3 ? "error" : rank == 2 ? "warning" : rank == 1 ? "note" : "-";
}

static int
name_is(const struct ex_kernel *k, const char *name)
{
    return (k->demangled_name && !strcmp(k->demangled_name, name)) ||
           (k->short_name && !strcmp(k->short_name, name)) ||
           (k->display_name && !strcmp(k->display_name, name));
}

static const char *
kname(const struct ex_kernel *k)
{
    /* As every view names it (export/kname.h); --map also takes that name. */
    return k->display_name     ? k->display_name
           : k->short_name     ? k->short_name
           : k->demangled_name ? k->demangled_name
                               : "?";
}

static void
pair_kernels(struct diff *d, const struct export_diff_opts *o)
{
    int *used = calloc(d->a.n_kernels + 1, sizeof(*used));
    d->k = calloc(d->b.n_kernels + d->a.n_kernels + 1, sizeof(*d->k));
    if (!used || !d->k)
        abort();
    for (size_t i = 0; i < d->b.n_kernels; i++) {
        const struct ex_kernel *b = &d->b.kernels[i];
        const char *target = NULL;
        for (size_t m = 0; m < o->n_map && o->map; m++) {
            char *old = sanitize_text(o->map[m].old_name, EX_NAME_MAX);
            if (name_is(b, old))
                target = o->map[m].new_name;
            free(old);
        }
        const struct ex_kernel *a = NULL;
        char *want = target ? sanitize_text(target, EX_NAME_MAX) : NULL;
        for (size_t j = 0; j < d->a.n_kernels && !a; j++) {
            if (used[j])
                continue;
            if (want ? name_is(&d->a.kernels[j], want) : !strcmp(d->a.kernels[j].fp, b->fp)) {
                a = &d->a.kernels[j];
                used[j] = 1;
            }
        }
        free(want);
        d->k[d->nk++] = (struct kpair){b, a};
    }
    for (size_t j = 0; j < d->a.n_kernels; j++)
        if (!used[j])
            d->k[d->nk++] = (struct kpair){NULL, &d->a.kernels[j]};
    free(used);
}

/* The after-side identity of a before-side kernel id. */
static void
mapped_fp(const struct diff *d, long long before_kid, char out[17])
{
    for (size_t i = 0; i < d->nk; i++) {
        if (d->k[i].b && d->k[i].b->id == before_kid) {
            memcpy(out, d->k[i].a ? d->k[i].a->fp : d->k[i].b->fp, 17);
            return;
        }
    }
    out[0] = '\0';
}

static struct fkey *
fkey_get(struct diff *d, const char *rule, const char *kfp, const char *kernel)
{
    for (size_t i = 0; i < d->nf; i++)
        if (!strcmp(d->f[i].rule, rule) && !strcmp(d->f[i].kfp, kfp))
            return &d->f[i];
    d->f = realloc(d->f, (d->nf + 1) * sizeof(*d->f));
    if (!d->f)
        abort();
    struct fkey *k = &d->f[d->nf++];
    memset(k, 0, sizeof(*k));
    k->rule = rule;
    memcpy(k->kfp, kfp, 17);
    k->kernel = kernel;
    k->b_id = k->a_id = -1;
    return k;
}

static void
pair_findings(struct diff *d)
{
    for (size_t i = 0; i < d->b.n; i++) {
        const struct ex_finding *f = &d->b.f[i];
        char fp[17] = "";
        if (f->kernel_id >= 0)
            mapped_fp(d, f->kernel_id, fp);
        struct fkey *k =
            fkey_get(d, f->rule_id, fp, f->short_name ? f->short_name : f->demangled_name);
        int r = export_severity_rank(f->severity);
        if (k->b_id < 0)
            k->b_id = f->id;
        if (!k->listed)
            k->listed = f->display_name;
        k->b_rank = r > k->b_rank ? r : k->b_rank;
        k->b_lost += isfinite(f->time_lost_ns) ? f->time_lost_ns : 0;
    }
    for (size_t i = 0; i < d->a.n; i++) {
        const struct ex_finding *f = &d->a.f[i];
        struct fkey *k = fkey_get(d, f->rule_id, f->kernel_fp,
                                  f->short_name ? f->short_name : f->demangled_name);
        int r = export_severity_rank(f->severity);
        if (k->a_id < 0)
            k->a_id = f->id;
        if (!k->listed)
            k->listed = f->display_name;
        k->a_rank = r > k->a_rank ? r : k->a_rank;
        k->a_lost += isfinite(f->time_lost_ns) ? f->time_lost_ns : 0;
    }
}

static double
pct_change(double b, double a)
{
    return isfinite(a) && isfinite(b) && b != 0 ? (a - b) / b * 100 : NAN;
}

/* ------------------------------------------------------------------ */
/* Writers                                                              */
/* ------------------------------------------------------------------ */

/* `s` left-aligned in `width` columns: printf's %-Ns counts bytes, and "µs" and "×" take two. */
static void
put_padded(FILE *out, const char *s, int width)
{
    fputs(s, out);
    for (int w = (int)kname_cols(s); w < width; w++)
        fputc(' ', out);
}

static const char *
fmt_ratio(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.2f\xc3\x97", v); /* as the findings' messages write it */
    return buf;
}

static const char *
fmt_pct(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        buf[0] = '\0';
    else
        snprintf(buf, n, "%+.1f %%", v);
    return buf;
}

static const char *
status_of(const struct kpair *p)
{
    return p->b && p->a ? "matched" : p->b ? "removed" : "added";
}

static const char *
fkey_status(const struct fkey *k)
{
    return !k->a_rank ? "fixed" : !k->b_rank ? "new" : "unchanged";
}

static void
write_text(const struct diff *d, const struct export_diff_opts *o, FILE *out)
{
    char x[64], y[64], z[64], u[64], v[64];
    char *bn = sanitize_text(o->before_name ? o->before_name : "before", 200);
    char *an = sanitize_text(o->after_name ? o->after_name : "after", 200);
    fprintf(out, "gpuhier diff: %s -> %s\n\n", bn, an);
    free(bn);
    free(an);
    fprintf(out, "%-32s %-9s %-25s %-10s %-20s %s\n", "kernel", "status",
            "mean time before -> after", "change", "floor ratio", "findings");
    for (size_t i = 0; i < d->nk; i++) {
        const struct kpair *p = &d->k[i];
        const struct ex_kernel *k = p->b ? p->b : p->a;
        /* Cut at a name boundary with an ellipsis, namespaces first (export/kname.h). */
        char name[160];
        kname_fit(kname(k), 32, name, sizeof(name));
        put_padded(out, name, 32);
        fprintf(out, " %-9s ", status_of(p));
        double bm = p->b ? p->b->mean_ns : NAN, am = p->a ? p->a->mean_ns : NAN;
        char times[160];
        snprintf(times, sizeof(times), "%s -> %s", p->b ? ex_fmt_ns(x, sizeof(x), bm) : "-",
                 p->a ? ex_fmt_ns(y, sizeof(y), am) : "-");
        put_padded(out, times, 25);
        fprintf(out, " %-10s ", fmt_pct(z, sizeof(z), pct_change(bm, am)));
        char ratios[160];
        snprintf(ratios, sizeof(ratios), "%s -> %s",
                 fmt_ratio(u, sizeof(u), p->b ? p->b->floor_ratio : NAN),
                 fmt_ratio(v, sizeof(v), p->a ? p->a->floor_ratio : NAN));
        put_padded(out, ratios, 20);
        fprintf(out, " %s -> %s\n", p->b && p->b->worst_severity ? p->b->worst_severity : "-",
                p->a && p->a->worst_severity ? p->a->worst_severity : "-");
    }
    static const char *groups[] = {"fixed", "new", "unchanged"};
    for (int g = 0; g < 3; g++) {
        int n = 0;
        for (size_t i = 0; i < d->nf; i++)
            n += !strcmp(fkey_status(&d->f[i]), groups[g]);
        fprintf(out, "\nfindings %s: %d\n", groups[g], n);
        for (size_t i = 0; i < d->nf; i++) {
            const struct fkey *k = &d->f[i];
            if (strcmp(fkey_status(k), groups[g]))
                continue;
            char name[81];
            sanitize_into(name, sizeof(name), k->kernel ? k->kernel : "(run)");
            fprintf(out, "  %-24s %-32s %s -> %s, time lost %s -> %s\n", k->rule, name,
                    sev_name(k->b_rank), sev_name(k->a_rank),
                    k->b_rank ? ex_fmt_ns(x, sizeof(x), k->b_lost) : "-",
                    k->a_rank ? ex_fmt_ns(y, sizeof(y), k->a_lost) : "-");
        }
    }
}

/*
 * Markdown cell text, capped for display (a comment, not a record):
 * everything CommonMark/GFM could read as syntax is escaped.
 */
static void
md_cell(FILE *out, const char *s)
{
    char *t = sanitize_text(s ? s : "", 120);
    for (const char *p = t; *p; p++) {
        if (strchr("\\`*_{}[]<>()#!|~&@:^$+-=.", *p))
            fputc('\\', out);
        fputc(*p, out);
    }
    free(t);
}

static void
write_md(const struct diff *d, const struct export_diff_opts *o, FILE *out)
{
    char x[64], y[64], z[64];
    int fixed = 0, added = 0, kept = 0;
    for (size_t i = 0; i < d->nf; i++) {
        const char *s = fkey_status(&d->f[i]);
        fixed += !strcmp(s, "fixed");
        added += !strcmp(s, "new");
        kept += !strcmp(s, "unchanged");
    }
    if (fixed > 0 && added == 0)
        fprintf(out, "# Fix verified: %d finding%s fixed\n\n", fixed, fixed == 1 ? "" : "s");
    else
        fprintf(out, "# Before and after: %d fixed, %d new, %d unchanged\n\n", fixed, added, kept);
    fputs("Compared with gpuhier: ", out);
    md_cell(out, o->before_name ? o->before_name : "before");
    fputs(" \xe2\x86\x92 ", out);
    md_cell(out, o->after_name ? o->after_name : "after");
    fputs(".\n\n", out);
    fputs("| kernel | mean time before | after | change | floor ratio before | after |\n"
          "| --- | ---: | ---: | ---: | ---: | ---: |\n",
          out);
    for (size_t i = 0; i < d->nk; i++) {
        const struct kpair *p = &d->k[i];
        fputs("| ", out);
        md_cell(out, kname(p->b ? p->b : p->a));
        double bm = p->b ? p->b->mean_ns : NAN, am = p->a ? p->a->mean_ns : NAN;
        fprintf(out, " | %s | %s | ", p->b ? ex_fmt_ns(x, sizeof(x), bm) : "\\-",
                p->a ? ex_fmt_ns(y, sizeof(y), am) : "\\-");
        md_cell(out, fmt_pct(z, sizeof(z), pct_change(bm, am)));
        fputs(" | ", out);
        md_cell(out, fmt_ratio(x, sizeof(x), p->b ? p->b->floor_ratio : NAN));
        fputs(" | ", out);
        md_cell(out, fmt_ratio(y, sizeof(y), p->a ? p->a->floor_ratio : NAN));
        fputs(" |\n", out);
    }
    static const char *groups[] = {"fixed", "new", "unchanged"};
    static const char *titles[] = {"Fixed", "New", "Still present"};
    for (int g = 0; g < 3; g++) {
        fprintf(out, "\n## %s\n\n", titles[g]);
        int n = 0;
        for (size_t i = 0; i < d->nf; i++) {
            const struct fkey *k = &d->f[i];
            if (strcmp(fkey_status(k), groups[g]))
                continue;
            n++;
            fputs("- ", out);
            md_cell(out, k->rule);
            fputs(" on ", out);
            md_cell(out, k->kernel ? k->kernel : "the run");
            fprintf(out, ": %s \xe2\x86\x92 %s, time lost %s \xe2\x86\x92 %s\n",
                    sev_name(k->b_rank), sev_name(k->a_rank),
                    k->b_rank ? ex_fmt_ns(x, sizeof(x), k->b_lost) : "none",
                    k->a_rank ? ex_fmt_ns(y, sizeof(y), k->a_lost) : "none");
        }
        if (!n)
            fputs("None.\n", out);
    }
}

static json_t *
kernel_json(const struct ex_kernel *k)
{
    if (!k)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "launches", ex_jint(k->launches));
    json_object_set_new(o, "total_ns", ex_jreal(k->total_ns));
    json_object_set_new(o, "mean_ns", ex_jreal(k->mean_ns));
    json_object_set_new(o, "share_pct", ex_jreal(k->share_pct));
    json_object_set_new(o, "floor_ns", ex_jreal(k->floor_ns));
    json_object_set_new(o, "floor_ratio", ex_jreal(k->floor_ratio));
    json_object_set_new(o, "floor_ratio_measured", ex_jreal(k->floor_ratio_measured));
    json_object_set_new(o, "dram_bytes", ex_jreal(k->dram_bytes));
    json_object_set_new(o, "useful_bytes", ex_jreal(k->useful_bytes));
    json_object_set_new(o, "l2_bytes", ex_jreal(k->l2_bytes));
    json_object_set_new(o, "local_bytes", ex_jreal(k->local_bytes));
    json_object_set_new(o, "achieved_occupancy_pct", ex_jreal(k->achieved_occupancy_pct));
    json_object_set_new(o, "time_lost_ns", ex_jreal(k->time_lost_ns));
    json_object_set_new(o, "bound_tier", ex_jstr(k->bound_tier));
    json_object_set_new(o, "worst_severity", ex_jstr(k->worst_severity));
    return o;
}

static int
write_json(const struct diff *d, const struct export_diff_opts *o, FILE *out)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("gpuhier-diff/1"));
    char *bn = sanitize_text(o->before_name ? o->before_name : "before", EX_NAME_MAX);
    char *an = sanitize_text(o->after_name ? o->after_name : "after", EX_NAME_MAX);
    json_object_set_new(
        root, "before",
        json_pack("{s:o, s:o}", "name", ex_jstr(bn), "created_by", ex_jstr(d->b.created_by)));
    json_object_set_new(
        root, "after",
        json_pack("{s:o, s:o}", "name", ex_jstr(an), "created_by", ex_jstr(d->a.created_by)));
    free(bn);
    free(an);
    json_t *ks = json_array();
    for (size_t i = 0; i < d->nk; i++) {
        const struct kpair *p = &d->k[i];
        const struct ex_kernel *k = p->b ? p->b : p->a;
        json_t *o2 = json_object();
        json_object_set_new(o2, "name", ex_jstr(k->demangled_name));
        json_object_set_new(o2, "short_name", ex_jstr(k->short_name));
        if (p->b && p->a && strcmp(p->b->fp, p->a->fp))
            json_object_set_new(o2, "after_name", ex_jstr(p->a->demangled_name));
        json_object_set_new(o2, "status", json_string(status_of(p)));
        json_object_set_new(o2, "before", kernel_json(p->b));
        json_object_set_new(o2, "after", kernel_json(p->a));
        json_t *c = json_object();
        json_object_set_new(
            c, "mean_ns_pct",
            ex_jreal(pct_change(p->b ? p->b->mean_ns : NAN, p->a ? p->a->mean_ns : NAN)));
        json_object_set_new(
            c, "total_ns_pct",
            ex_jreal(pct_change(p->b ? p->b->total_ns : NAN, p->a ? p->a->total_ns : NAN)));
        json_object_set_new(c, "floor_ratio_delta",
                            ex_jreal(p->b && p->a ? p->a->floor_ratio - p->b->floor_ratio : NAN));
        json_object_set_new(o2, "change", c);
        json_array_append_new(ks, o2);
    }
    json_object_set_new(root, "kernels", ks);
    json_t *fs = json_pack("{s:[], s:[], s:[]}", "fixed", "new", "unchanged");
    for (size_t i = 0; i < d->nf; i++) {
        const struct fkey *k = &d->f[i];
        json_array_append_new(
            json_object_get(fs, fkey_status(k)),
            json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "rule_id", k->rule, "kernel",
                      ex_jstr(k->kernel), "severity_before",
                      k->b_rank ? json_string(sev_name(k->b_rank)) : json_null(), "severity_after",
                      k->a_rank ? json_string(sev_name(k->a_rank)) : json_null(),
                      "time_lost_ns_before", k->b_rank ? ex_jreal(k->b_lost) : json_null(),
                      "time_lost_ns_after", k->a_rank ? ex_jreal(k->a_lost) : json_null()));
    }
    json_object_set_new(root, "findings", fs);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    fputc('\n', out);
    return rc;
}

/* Load both reports and pair their kernels and findings; release with diff_release(). */
static int
diff_build(sqlite3 *before, sqlite3 *after, const struct export_diff_opts *o, struct diff *d)
{
    memset(d, 0, sizeof(*d));
    struct export_opts eo = {
        .format = "json", .redact = 1, .rule = o->rule, .kernel_regex = o->kernel_regex};
    if (ex_report_load(before, &eo, &d->b) || ex_report_load(after, &eo, &d->a))
        return -1;
    pair_kernels(d, o);
    pair_findings(d);
    return 0;
}

static void
diff_release(struct diff *d)
{
    ex_report_release(&d->b);
    ex_report_release(&d->a);
    free(d->k);
    free(d->f);
}

int
export_diff(sqlite3 *before, sqlite3 *after, const struct export_diff_opts *o, FILE *out)
{
    const char *fmt = o->format ? o->format : "text";
    if (strcmp(fmt, "text") && strcmp(fmt, "json") && strcmp(fmt, "md") && strcmp(fmt, "markdown"))
        return store_set_error("unknown diff format '%s' (text, json, md)", fmt);
    struct diff d;
    int ret = -1;
    if (diff_build(before, after, o, &d))
        goto out;
    if (!strcmp(fmt, "json")) {
        if (write_json(&d, o, out))
            goto out;
    } else if (!strcmp(fmt, "text")) {
        write_text(&d, o, out);
    } else {
        write_md(&d, o, out);
    }
    if (ferror(out)) {
        store_set_error("cannot write the diff: %s", strerror(errno));
        goto out;
    }
    ret = 0;
out:
    diff_release(&d);
    return ret;
}

int
export_diff_compute(sqlite3 *before, sqlite3 *after, const struct export_diff_opts *o,
                    struct export_diff_result *r)
{
    memset(r, 0, sizeof(*r));
    struct diff *d = calloc(1, sizeof(*d));
    if (!d)
        abort();
    r->priv = d;
    if (diff_build(before, after, o, d)) {
        export_diff_result_release(r);
        return -1;
    }
    r->kernels = calloc(d->nk + 1, sizeof(*r->kernels));
    r->findings = calloc(d->nf + 1, sizeof(*r->findings));
    if (!r->kernels || !r->findings)
        abort();
    for (size_t i = 0; i < d->nk; i++) {
        const struct kpair *p = &d->k[i];
        r->kernels[r->n_kernels++] = (struct export_diff_kernel){
            .name = kname(p->b ? p->b : p->a),
            .status = status_of(p),
            .before_id = p->b ? p->b->id : -1,
            .after_id = p->a ? p->a->id : -1,
            .before_launches = p->b ? p->b->launches : -1,
            .after_launches = p->a ? p->a->launches : -1,
            .before_mean_ns = p->b ? p->b->mean_ns : NAN,
            .after_mean_ns = p->a ? p->a->mean_ns : NAN,
            .before_total_ns = p->b ? p->b->total_ns : NAN,
            .after_total_ns = p->a ? p->a->total_ns : NAN,
            .mean_change_pct = pct_change(p->b ? p->b->mean_ns : NAN, p->a ? p->a->mean_ns : NAN),
            .before_floor_ratio = p->b ? p->b->floor_ratio : NAN,
            .after_floor_ratio = p->a ? p->a->floor_ratio : NAN,
            .before_worst = p->b ? p->b->worst_severity : NULL,
            .after_worst = p->a ? p->a->worst_severity : NULL,
        };
    }
    for (size_t i = 0; i < d->nf; i++) {
        const struct fkey *k = &d->f[i];
        r->findings[r->n_findings++] = (struct export_diff_finding){
            .rule_id = k->rule,
            .kernel = k->listed ? k->listed : k->kernel,
            .status = fkey_status(k),
            .severity_before = k->b_rank ? sev_name(k->b_rank) : NULL,
            .severity_after = k->a_rank ? sev_name(k->a_rank) : NULL,
            .lost_before_ns = k->b_rank ? k->b_lost : NAN,
            .lost_after_ns = k->a_rank ? k->a_lost : NAN,
            .before_id = k->b_id,
            .after_id = k->a_id,
        };
    }
    return 0;
}

void
export_diff_result_release(struct export_diff_result *r)
{
    if (!r)
        return;
    if (r->priv) {
        diff_release(r->priv);
        free(r->priv);
    }
    free(r->kernels);
    free(r->findings);
    memset(r, 0, sizeof(*r));
}
