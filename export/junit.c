/* SPDX-License-Identifier: MIT */
/*
 * junit: JUnit XML for CI test reports, written with libxml2's
 * xmlTextWriter (which does all XML escaping).
 *
 * One <testsuite> per kernel, one <testcase> per (kernel, rule) for every
 * rule of the analysis: it fails when the kernel has a finding of that
 * rule at or above the threshold severity (--min-severity, default
 * warning), is <skipped> when the rule did not run (with the analyzer's
 * reason), and passes otherwise (findings below the threshold are listed
 * in <system-out>). Run-level findings (copies) form a last suite "run"
 * with one case per rule that has one. Layout follows Jenkins' xUnit
 * junit-10.xsd, which tests/e2e validates against.
 */
#include "export/export_int.h"
#include "schema/store.h"

#include <libxml/xmlwriter.h>
#include <string.h>

#define X(s) ((const xmlChar *)(s))

struct jcase {
    const struct ex_rule *rule;
    int failed, skipped;
};

/* Findings of rule `id` on kernel `kid` (-1: run level). */
static int
has_findings(const struct ex_report *r, long long kid, const char *id, int min_rank, int *failed)
{
    int any = 0;
    *failed = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct ex_finding *f = &r->f[i];
        if (f->kernel_id != kid || strcmp(f->rule_id, id))
            continue;
        any = 1;
        if (export_severity_rank(f->severity) >= min_rank)
            *failed = 1;
    }
    return any;
}

static int
is_skipped(const struct ex_rule *x)
{
    return x->status && !strcmp(x->status, "skipped");
}

static void
write_details(xmlTextWriterPtr w, const struct ex_report *r, long long kid, const char *id,
              int min_rank, int want_failing)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct ex_finding *f = &r->f[i];
        if (f->kernel_id != kid || strcmp(f->rule_id, id) ||
            (export_severity_rank(f->severity) >= min_rank) != want_failing)
            continue;
        char a[64], g[64], b[64];
        xmlTextWriterWriteFormatString(w, "[%s] %s\n", f->severity,
                                       f->message ? f->message : f->title);
        if (f->config_id >= 0)
            xmlTextWriterWriteFormatString(w, "  launch configuration: grid %s, block %s\n",
                                           ex_fmt_dim(g, sizeof(g), f->grid),
                                           ex_fmt_dim(b, sizeof(b), f->block));
        xmlTextWriterWriteFormatString(w, "  estimated time lost: %s\n",
                                       ex_fmt_ns(a, sizeof(a), f->time_lost_ns));
        for (size_t j = 0; j < f->n_ev; j++) {
            const struct ex_evidence *e = &f->ev[j];
            char v[EX_NAME_MAX + 80], t[64];
            xmlTextWriterWriteFormatString(w, "  %s = %s", e->name,
                                           ex_fmt_evidence(v, sizeof(v), e));
            if (e->has_threshold)
                xmlTextWriterWriteFormatString(w, " (threshold %s %s)", e->op ? e->op : "",
                                               ex_fmt_num(t, sizeof(t), e->threshold));
            xmlTextWriterWriteString(w, X("\n"));
        }
        if (f->remedy)
            xmlTextWriterWriteFormatString(w, "  remedy: %s\n", f->remedy);
        if (f->doc_ref)
            xmlTextWriterWriteFormatString(w, "  reference: %s\n", f->doc_ref);
    }
}

/* The first failing finding's message, for the failure's message attribute. */
static const char *
first_failing(const struct ex_report *r, long long kid, const char *id, int min_rank)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct ex_finding *f = &r->f[i];
        if (f->kernel_id == kid && !strcmp(f->rule_id, id) &&
            export_severity_rank(f->severity) >= min_rank)
            return f->message ? f->message : f->title ? f->title : f->rule_id;
    }
    return "";
}

static const char *
worst_failing_severity(const struct ex_report *r, long long kid, const char *id)
{
    int best = 0;
    const char *s = "note";
    for (size_t i = 0; i < r->n; i++) {
        const struct ex_finding *f = &r->f[i];
        if (f->kernel_id == kid && !strcmp(f->rule_id, id) &&
            export_severity_rank(f->severity) > best) {
            best = export_severity_rank(f->severity);
            s = f->severity;
        }
    }
    return s;
}

static void
write_suite(xmlTextWriterPtr w, const struct ex_report *r, long long kid, const char *name,
            const char *classname, const struct jcase *cases, size_t n, int min_rank)
{
    int failures = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        failures += cases[i].failed;
        skipped += cases[i].skipped;
    }
    xmlTextWriterStartElement(w, X("testsuite"));
    xmlTextWriterWriteAttribute(w, X("name"), X(name));
    xmlTextWriterWriteFormatAttribute(w, X("tests"), "%zu", n);
    xmlTextWriterWriteFormatAttribute(w, X("failures"), "%d", failures);
    xmlTextWriterWriteAttribute(w, X("errors"), X("0"));
    xmlTextWriterWriteFormatAttribute(w, X("skipped"), "%d", skipped);
    xmlTextWriterWriteAttribute(w, X("package"), X("gpuhier"));
    for (size_t i = 0; i < n; i++) {
        const struct ex_rule *x = cases[i].rule;
        xmlTextWriterStartElement(w, X("testcase"));
        xmlTextWriterWriteAttribute(w, X("name"), X(x->id));
        xmlTextWriterWriteAttribute(w, X("classname"), X(classname));
        if (cases[i].skipped) {
            xmlTextWriterStartElement(w, X("skipped"));
            xmlTextWriterWriteAttribute(w, X("message"), X(x->note ? x->note : "rule did not run"));
            xmlTextWriterEndElement(w);
        } else if (cases[i].failed) {
            xmlTextWriterStartElement(w, X("failure"));
            xmlTextWriterWriteAttribute(w, X("type"), X(worst_failing_severity(r, kid, x->id)));
            xmlTextWriterWriteAttribute(w, X("message"), X(first_failing(r, kid, x->id, min_rank)));
            write_details(w, r, kid, x->id, min_rank, 1);
            xmlTextWriterEndElement(w);
        }
        int below;
        if (has_findings(r, kid, x->id, 4, &below) && !cases[i].skipped) {
            /* Findings under the threshold: reported, not failing. */
            int any_below = 0;
            for (size_t j = 0; j < r->n; j++)
                if (r->f[j].kernel_id == kid && !strcmp(r->f[j].rule_id, x->id) &&
                    export_severity_rank(r->f[j].severity) < min_rank)
                    any_below = 1;
            if (any_below) {
                xmlTextWriterStartElement(w, X("system-out"));
                write_details(w, r, kid, x->id, min_rank, 0);
                xmlTextWriterEndElement(w);
            }
        }
        xmlTextWriterEndElement(w);
    }
    xmlTextWriterEndElement(w);
}

int
ex_write_junit(const struct ex_report *r, const struct export_opts *o, FILE *out)
{
    int min_rank = export_severity_rank(o->min_severity ? o->min_severity : "warning");
    xmlOutputBufferPtr buf = xmlOutputBufferCreateFile(out, NULL);
    if (!buf)
        return store_set_error("cannot start the XML writer");
    xmlTextWriterPtr w = xmlNewTextWriter(buf);
    if (!w) {
        xmlOutputBufferClose(buf);
        return store_set_error("cannot start the XML writer");
    }
    struct jcase *cases = calloc(r->n_rules + 1, sizeof(*cases));
    if (!cases)
        abort();
    int total = 0, failures = 0;
    /* Totals first: the root's attributes precede its children. */
    for (size_t k = 0; k <= r->n_kernels; k++) {
        long long kid = k < r->n_kernels ? r->kernels[k].id : -1;
        for (size_t i = 0; i < r->n_rules; i++) {
            int failed;
            int any = has_findings(r, kid, r->rules[i].id, min_rank, &failed);
            if (kid < 0 && !any)
                continue;
            total++;
            failures += failed && !is_skipped(&r->rules[i]);
        }
    }
    xmlTextWriterSetIndent(w, 1);
    xmlTextWriterSetIndentString(w, X("  "));
    xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
    xmlTextWriterStartElement(w, X("testsuites"));
    xmlTextWriterWriteAttribute(w, X("name"), X("gpuhier"));
    xmlTextWriterWriteFormatAttribute(w, X("tests"), "%d", total);
    xmlTextWriterWriteFormatAttribute(w, X("failures"), "%d", failures);
    xmlTextWriterWriteAttribute(w, X("errors"), X("0"));
    for (size_t k = 0; k <= r->n_kernels; k++) {
        long long kid = k < r->n_kernels ? r->kernels[k].id : -1;
        size_t n = 0;
        for (size_t i = 0; i < r->n_rules; i++) {
            int failed;
            int any = has_findings(r, kid, r->rules[i].id, min_rank, &failed);
            if (kid < 0 && !any)
                continue;
            cases[n].rule = &r->rules[i];
            cases[n].skipped = is_skipped(&r->rules[i]);
            cases[n].failed = failed && !cases[n].skipped;
            n++;
        }
        if (kid < 0 && n == 0)
            continue;
        const struct ex_kernel *kk = k < r->n_kernels ? &r->kernels[k] : NULL;
        const char *name = kk ? kk->demangled_name : "run";
        const char *cls = !kk                ? "run"
                          : kk->display_name ? kk->display_name
                          : kk->short_name   ? kk->short_name
                                             : kk->demangled_name;
        write_suite(w, r, kid, name, cls, cases, n, min_rank);
    }
    xmlTextWriterEndElement(w);
    int rc = xmlTextWriterEndDocument(w);
    xmlFreeTextWriter(w);
    free(cases);
    if (rc < 0 || ferror(out))
        return store_set_error("cannot write JUnit XML");
    return 0;
}
