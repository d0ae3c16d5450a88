/* SPDX-License-Identifier: MIT */
/*
 * csv: one row per finding, RFC 4180 (CRLF line ends, fields quoted when
 * they hold a comma, a quote or a line break, quotes doubled).
 * Text fields that a spreadsheet would read as a formula (starting with
 * = + - @) get a leading apostrophe (OWASP "CSV injection"); numbers are
 * written bare so they stay numbers.
 */
#include "export/export_int.h"
#include "schema/store.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static void
csv_text(FILE *out, const char *s, int last)
{
    if (!s)
        s = "";
    int quote = strpbrk(s, ",\"\r\n") != NULL || (*s && strchr("=+-@", *s));
    if (quote) {
        fputc('"', out);
        if (*s && strchr("=+-@", *s))
            fputc('\'', out);
        for (const char *p = s; *p; p++) {
            if (*p == '"')
                fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    } else {
        fputs(s, out);
    }
    fputs(last ? "\r\n" : ",", out);
}

static void
csv_real(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.10g", v);
    fputc(',', out);
}

static void
csv_int(FILE *out, long long v)
{
    if (v >= 0)
        fprintf(out, "%lld", v);
    fputc(',', out);
}

int
ex_write_csv(const struct ex_report *r, const struct export_opts *o, FILE *out)
{
    (void)o;
    fputs(
        "rank,id,rule_id,severity,tier,title,kernel,short_name,source_file,source_line,grid,block,"
        "dynamic_smem_bytes,time_lost_ns,time_lost_ns_per_launch,share_pct,launches,message,remedy,"
        "doc_ref,evidence,fingerprint\r\n",
        out);
    for (size_t i = 0; i < r->n; i++) {
        const struct ex_finding *f = &r->f[i];
        char g[64], b[64];
        csv_int(out, f->rank);
        csv_int(out, f->id);
        csv_text(out, f->rule_id, 0);
        csv_text(out, f->severity, 0);
        csv_text(out, f->tier, 0);
        csv_text(out, f->title, 0);
        csv_text(out, f->demangled_name, 0);
        csv_text(out, f->short_name, 0);
        csv_text(out, f->source_file, 0);
        csv_int(out, f->source_line);
        csv_text(out, f->grid[0] >= 0 ? ex_fmt_dim(g, sizeof(g), f->grid) : NULL, 0);
        csv_text(out, f->block[0] >= 0 ? ex_fmt_dim(b, sizeof(b), f->block) : NULL, 0);
        csv_int(out, f->dynamic_smem_bytes);
        csv_real(out, f->time_lost_ns);
        csv_real(out, f->time_lost_ns_per_launch);
        csv_real(out, f->share_pct);
        csv_int(out, f->launches);
        csv_text(out, f->message, 0);
        csv_text(out, f->remedy, 0);
        csv_text(out, f->doc_ref, 0);
        /* Evidence as "name=value unit (op threshold)" joined by "; ". */
        size_t cap = 64, len = 0;
        char *ev = malloc(cap);
        if (!ev)
            abort();
        ev[0] = '\0';
        for (size_t j = 0; j < f->n_ev; j++) {
            const struct ex_evidence *e = &f->ev[j];
            char v[EX_NAME_MAX + 80], t[64], item[512];
            snprintf(item, sizeof(item), "%s%s=%s%s%s%s%s", j ? "; " : "", e->name,
                     ex_fmt_evidence(v, sizeof(v), e), e->has_threshold ? " (" : "",
                     e->has_threshold && e->op ? e->op : "",
                     e->has_threshold ? ex_fmt_num(t, sizeof(t), e->threshold) : "",
                     e->has_threshold ? ")" : "");
            size_t k = strlen(item);
            if (len + k + 1 > cap) {
                cap = (len + k + 1) * 2;
                ev = realloc(ev, cap);
                if (!ev)
                    abort();
            }
            memcpy(ev + len, item, k + 1);
            len += k;
        }
        csv_text(out, ev, 0);
        free(ev);
        csv_text(out, f->fingerprint, 1);
    }
    if (ferror(out))
        return store_set_error("cannot write CSV: %s", strerror(errno));
    return 0;
}
