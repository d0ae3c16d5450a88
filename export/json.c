/* SPDX-License-Identifier: MIT */
/*
 * json: the complete finding records, in the versioned shape that
 * docs/export-json.md documents (EXPORT_JSON_SCHEMA). Built with jansson
 * from already sanitized strings, so the output is valid UTF-8 JSON
 * whatever the report holds. Adding a member is compatible; renaming or
 * removing one bumps the schema string.
 */
#include "export/export_int.h"
#include "schema/store.h"

#include <errno.h>
#include <string.h>

static json_t *
dim_json(const long long d[3])
{
    if (d[0] < 0)
        return json_null();
    return json_pack("[III]", (json_int_t)d[0], (json_int_t)(d[1] < 0 ? 1 : d[1]),
                     (json_int_t)(d[2] < 0 ? 1 : d[2]));
}

/* 1 when value `op` threshold holds (the rule fired on it), 0 when not, -1 unknown. */
static int
evidence_fires(const struct ex_evidence *e)
{
    if (!e->has_value || !e->has_threshold || !e->op)
        return -1;
    if (!strcmp(e->op, ">"))
        return e->value > e->threshold;
    if (!strcmp(e->op, ">="))
        return e->value >= e->threshold;
    if (!strcmp(e->op, "<"))
        return e->value < e->threshold;
    if (!strcmp(e->op, "<="))
        return e->value <= e->threshold;
    return -1;
}

json_t *
ex_finding_json(const struct ex_finding *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(f->id));
    json_object_set_new(o, "rank", ex_jint(f->rank));
    json_object_set_new(o, "rule_id", ex_jstr(f->rule_id));
    json_object_set_new(o, "title", ex_jstr(f->title));
    json_object_set_new(o, "tier", ex_jstr(f->tier));
    json_object_set_new(o, "severity", ex_jstr(f->severity));
    json_object_set_new(o, "message", ex_jstr(f->message));
    json_object_set_new(o, "remedy", ex_jstr(f->remedy));
    json_object_set_new(o, "doc_ref", ex_jstr(f->doc_ref));
    json_object_set_new(o, "time_lost_ns", ex_jreal(f->time_lost_ns));
    json_object_set_new(o, "time_lost_ns_per_launch", ex_jreal(f->time_lost_ns_per_launch));
    json_object_set_new(o, "time_lost_raw_ns", ex_jreal(f->time_lost_raw_ns));
    json_object_set_new(o, "share_pct", ex_jreal(f->share_pct));
    json_object_set_new(o, "launches", ex_jint(f->launches));
    json_object_set_new(o, "profiled_launch_id", ex_jint(f->profiled_launch_id));
    json_object_set_new(o, "fingerprint", json_string(f->fingerprint));
    if (f->kernel_id >= 0) {
        json_t *k = json_object();
        json_object_set_new(k, "id", json_integer(f->kernel_id));
        json_object_set_new(k, "demangled_name", ex_jstr(f->demangled_name));
        json_object_set_new(k, "mangled_name", ex_jstr(f->mangled_name));
        json_object_set_new(k, "short_name", ex_jstr(f->short_name));
        json_object_set_new(k, "source_file", ex_jstr(f->source_file));
        json_object_set_new(k, "source_line", ex_jint(f->source_line));
        json_object_set_new(o, "kernel", k);
    } else {
        json_object_set_new(o, "kernel", json_null());
    }
    if (f->config_id >= 0) {
        json_t *c = json_object();
        json_object_set_new(c, "id", json_integer(f->config_id));
        json_object_set_new(c, "grid", dim_json(f->grid));
        json_object_set_new(c, "block", dim_json(f->block));
        json_object_set_new(c, "dynamic_smem_bytes", ex_jint(f->dynamic_smem_bytes));
        json_object_set_new(c, "static_smem_bytes", ex_jint(f->static_smem_bytes));
        json_object_set_new(c, "registers_per_thread", ex_jint(f->registers_per_thread));
        json_object_set_new(c, "local_bytes_per_thread", ex_jint(f->local_bytes_per_thread));
        json_object_set_new(c, "theoretical_occupancy_pct", ex_jreal(f->theoretical_occupancy_pct));
        json_object_set_new(c, "occupancy_limiter", ex_jstr(f->occupancy_limiter));
        json_object_set_new(o, "config", c);
    } else {
        json_object_set_new(o, "config", json_null());
    }
    json_t *ev = json_array();
    for (size_t i = 0; i < f->n_ev; i++) {
        const struct ex_evidence *e = &f->ev[i];
        int fires = evidence_fires(e);
        json_array_append_new(
            ev, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "name", ex_jstr(e->name), "value",
                          ex_jreal(e->value), "text_value", ex_jstr(e->text_value), "unit",
                          ex_jstr(e->unit), "threshold", ex_jreal(e->threshold), "op",
                          ex_jstr(e->op), "fires", fires < 0 ? json_null() : json_boolean(fires)));
    }
    json_object_set_new(o, "evidence", ev);
    json_t *lines = json_array();
    for (size_t i = 0; i < f->n_lines; i++) {
        const struct ex_line *l = &f->lines[i];
        json_array_append_new(lines,
                              json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "location",
                                        l->location, "file", ex_jstr(l->file), "line",
                                        ex_jint(l->line), "pc", ex_jint(l->pc), "sass",
                                        ex_jstr(l->sass), "excess", ex_jreal(l->excess), "unit",
                                        ex_jstr(l->unit), "share_pct", ex_jreal(l->share_pct)));
    }
    json_object_set_new(o, "lines", lines);
    return o;
}

int
ex_write_json(const struct ex_report *r, const struct export_opts *o, FILE *out)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string(EXPORT_JSON_SCHEMA));
    json_object_set_new(root, "tool",
                        json_pack("{s:s, s:s}", "name", "gpuhier", "version", GPUHIER_VERSION));
    json_object_set_new(root, "report",
                        json_pack("{s:o, s:o, s:o, s:o}", "created_by", ex_jstr(r->created_by),
                                  "provenance", ex_jstr(r->provenance), "ruleset_version",
                                  ex_jstr(r->ruleset_version), "run_gpu_ns",
                                  ex_jreal(r->run_gpu_ns)));
    /* counter coverage by kernel time (docs/export-json.md): null without traced kernel time */
    json_t *cov = NULL;
    if (r->has_coverage)
        cov = json_pack("{s:f, s:f, s:f, s:I, s:f, s:o, s:o}", "pattern_pct", r->pattern_pct,
                        "hardware_pct", r->hardware_pct, "hardware_complete_pct", r->complete_pct,
                        "configurations_missing_groups", (json_int_t)r->groups_partial,
                        "graph_only_pct", r->graph_only_pct, "repeated_pattern_pct",
                        r->has_repeated ? json_real(r->repeated_pattern_pct) : json_null(),
                        "repeated_hardware_pct",
                        r->has_repeated ? json_real(r->repeated_hardware_pct) : json_null());
    json_object_set_new(root, "coverage", cov ? cov : json_null());
    if (r->has_run) {
        json_t *run = json_object();
        json_object_set_new(run, "program", ex_jstr(r->program));
        json_object_set(run, "argv", r->argv);
        json_object_set_new(run, "cwd", ex_jstr(r->cwd));
        json_object_set_new(run, "host", ex_jstr(r->host));
        json_object_set(run, "env", r->env);
        json_object_set_new(run, "tool_version", ex_jstr(r->tool_version));
        json_object_set_new(run, "mode", ex_jstr(r->mode));
        json_object_set_new(run, "device", ex_jstr(r->device_name));
        json_object_set_new(run, "reproduce", ex_jstr(r->repro));
        json_object_set_new(run, "redacted", json_boolean(r->redact));
        json_object_set_new(root, "run", run);
    } else {
        json_object_set_new(root, "run", json_null());
    }
    /* Which counter engines ran (export/engines.c; docs/export-json.md "engines"). */
    if (r->db) {
        struct export_engines x;
        export_engines_load(r->db, &x);
        json_t *en = json_pack("{s:o, s:b}", "asked", ex_jstr(x.asked), "derived", x.derived);
        static const char *const keys[] = {"range_profiler", "instrumentation"};
        for (size_t i = 0; i < 2; i++)
            json_object_set_new(en, keys[i],
                                json_pack("{s:o, s:I, s:I, s:I}", "state", ex_jstr(x.e[i].state),
                                          "launches", (json_int_t)x.e[i].launches, "configurations",
                                          (json_int_t)x.e[i].configs, "graph_launches",
                                          (json_int_t)x.e[i].graph_launches));
        json_object_set_new(root, "engines", en);
        export_engines_release(&x);
    }
    /* Options come from the command line, not the report: still sanitized. */
    json_t *fo = json_object();
    json_object_set_new(fo, "rule", ex_jstr(o->rule));
    json_object_set_new(fo, "kernel", ex_jstr(o->kernel_regex));
    json_object_set_new(fo, "min_severity", ex_jstr(o->min_severity ? o->min_severity : "note"));
    json_object_set_new(fo, "top", o->top > 0 ? json_integer(o->top) : json_null());
    json_object_set_new(root, "filters", fo);
    json_object_set_new(root, "findings_total", json_integer((json_int_t)r->n_total));
    json_object_set_new(root, "findings", json_array());
    /*
     * The frame is dumped with an empty findings array and each finding is
     * dumped on its own line into it: memory stays one finding deep, and
     * `grep` finds a finding on one line.
     */
    char *frame = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    /* Quotes inside strings are escaped, so this text can only be our member. */
    char *slot = frame ? strstr(frame, "\"findings\": []") : NULL;
    if (!slot) {
        free(frame);
        return store_set_error("cannot build the JSON document");
    }
    size_t pre = (size_t)(slot - frame) + strlen("\"findings\": [");
    int bad = fwrite(frame, 1, pre, out) != pre;
    for (size_t i = 0; i < r->n && !bad; i++) {
        json_t *f = ex_finding_json(&r->f[i]);
        char *t = json_dumps(f, JSON_COMPACT | JSON_REAL_PRECISION(10));
        json_decref(f);
        bad = !t || fprintf(out, "%s\n    %s", i ? "," : "", t) < 0;
        free(t);
    }
    bad = bad || fputs(r->n ? "\n  " : "", out) == EOF ||
          fputs(slot + strlen("\"findings\": ["), out) == EOF || fputc('\n', out) == EOF;
    free(frame);
    if (bad)
        return store_set_error("cannot write JSON: %s", strerror(errno));
    return 0;
}
