/* SPDX-License-Identifier: MIT */
/*
 * export_int.h: what the format writers of export/ share, and nobody
 * else uses. export.c loads the selected findings and the run into the
 * structs below, every string already sanitized; each writer (md.c,
 * json.c, csv.c, sarif.c, junit.c) only formats them. So no writer ever
 * sees raw report text, and the SQL lives in one file. The exception is
 * html.c, whose charts need the devices, the counters of every profiled
 * configuration and the copies: it reads them itself through r->db and
 * sanitizes every string it reads as export.c does.
 */
#ifndef GPUHIER_EXPORT_EXPORT_INT_H
#define GPUHIER_EXPORT_EXPORT_INT_H

#include "export/export.h"

#include "export/sanitize.h"

#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>

/* Caps (bytes) for sanitized strings: names are long in C++, prose longer. */
#define EX_NAME_MAX 4096
#define EX_TEXT_MAX 8192

struct ex_evidence {
    char *name; /* sanitized */
    double value;
    int has_value;
    char *text_value; /* sanitized, NULL when numeric */
    char *unit;       /* sanitized, may be NULL */
    double threshold;
    int has_threshold;
    char *op; /* '>', '>=', '<', '<=' or NULL */
};

/* One of a finding's worst lines (finding_line), worst first. */
struct ex_line {
    char *location, *file, *sass, *unit; /* sanitized; file and sass may be NULL */
    long long line, pc;                  /* -1 when NULL */
    double excess, share_pct;            /* NaN when NULL */
};

struct ex_finding {
    long long id;
    long long rank;
    char *rule_id, *title, *tier, *severity; /* sanitized; severity is "note" when unknown */
    char *message, *remedy, *doc_ref;        /* sanitized, may be NULL */
    double time_lost_ns_per_launch, time_lost_ns, time_lost_raw_ns, share_pct; /* NaN when NULL */
    long long launches;                                                        /* -1 when NULL */
    long long profiled_launch_id;                                              /* -1 when NULL */
    long long kernel_id;                              /* -1: run-level finding */
    char *mangled_name, *demangled_name, *short_name; /* sanitized; NULL for run-level */
    char *display_name;    /* export/kname.h's name, unique in the report; NULL for run-level */
    char *source_file;     /* sanitized, NULL when unknown */
    long long source_line; /* -1 when unknown */
    long long config_id;   /* -1: whole kernel */
    long long grid[3], block[3]; /* -1 when unknown */
    long long dynamic_smem_bytes, static_smem_bytes, registers_per_thread, local_bytes_per_thread;
    double theoretical_occupancy_pct; /* NaN when unknown */
    char *occupancy_limiter;          /* sanitized, may be NULL */
    char fingerprint[33];             /* hex hash of (rule_id, raw demangled name) */
    char kernel_fp[17];               /* hex hash of the raw demangled name ("" for run level) */
    struct ex_evidence *ev;
    size_t n_ev;
    struct ex_line *lines; /* finding_line, worst first; none for a version-1 report */
    size_t n_lines;
};

struct ex_rule {
    char *id, *title, *tier, *doc, *rationale, *remedy; /* sanitized; any may be NULL but id */
    char *status, *note;                                /* from rule_run, may be NULL */
};

struct ex_kernel {
    long long id;
    char *demangled_name, *short_name, *source_file; /* sanitized */
    char *display_name; /* export/kname.h's name, unique in the report (sanitized) */
    long long source_line;
    char fp[17]; /* hex hash of the raw demangled name: the identity across reports */
    /* kernel_summary (config_id NULL), else from config; NaN / -1 / NULL when unknown */
    long long launches;
    double total_ns, mean_ns, share_pct, floor_ns, floor_ratio, floor_ratio_measured;
    double dram_bytes, useful_bytes, l2_bytes, local_bytes, achieved_occupancy_pct, time_lost_ns;
    char *bound_tier, *worst_severity; /* sanitized */
};

struct ex_report {
    sqlite3 *db; /* borrowed: the report, for writers that draw more than findings (html) */
    /* run */
    char *program, *cwd, *host, *tool_version, *mode, *created_by,
        *provenance;  /* sanitized, may be NULL */
    char *argv_shell; /* the program's argv, shell-quoted, redacted as asked; may be NULL */
    json_t *argv;     /* JSON array of sanitized (redacted) strings; never NULL */
    json_t *env; /* JSON object: allowlisted variables only, sanitized (redacted); never NULL */
    char *device_name; /* sanitized, may be NULL */
    char *repro;       /* `gpuhier run ...` line, may be NULL */
    char *ruleset_version;
    double run_gpu_ns; /* NaN when unknown */
    int has_coverage;  /* coverage read (store_counter_coverage()) and the report has GPU time */
    double pattern_pct, hardware_pct, complete_pct; /* counter coverage by kernel time, 0..100 */
    long long groups_partial; /* configurations missing some one-pass groups */
    double graph_only_pct;    /* ran only as CUDA graph kernel nodes, no counters, 0..100 */
    int has_repeated;         /* one-time set-up found: the repeated work's shares below */
    double repeated_pattern_pct, repeated_hardware_pct;
    int has_run;
    int redact;
    /* selection */
    struct ex_finding *f;
    size_t n;
    size_t n_total; /* findings in the report before filters */
    struct ex_rule *rules;
    size_t n_rules;
    struct ex_kernel *kernels; /* every kernel of the report that the --kernel filter keeps */
    size_t n_kernels;
};

/* Load the run, the rules and the findings `o` selects. Returns 0 or -1 (store_error()). */
int ex_report_load(sqlite3 *db, const struct export_opts *o, struct ex_report *r);
void ex_report_release(struct ex_report *r);

/*
 * Fill display_name of r's findings and kernels (export/names.c): the
 * short, report-unique names of export/kname.h. Returns 0 or -1.
 */
int ex_display_names(sqlite3 *db, struct ex_report *r);

/* Hash of a raw kernel name, as ex_kernel.fp. */
void ex_name_hash(char out[17], const char *raw);

/* The rule record for `id`, or NULL. */
const struct ex_rule *ex_rule_find(const struct ex_report *r, const char *id);

/* Human-readable quantities: "12.3 µs", "1.50 MB". Write into buf, return buf. */
const char *ex_fmt_ns(char *buf, size_t n, double ns);
const char *ex_fmt_num(char *buf, size_t n, double v);
/*
 * An evidence row's value as every text format prints it: its text, or
 * the number and its unit, or "not measured" when the rule's column was
 * NULL (never a unit after an unknown value: "unknown %").
 */
const char *ex_fmt_evidence(char *buf, size_t n, const struct ex_evidence *e);

/* "256x1x1" or "?" pieces; returns buf. */
const char *ex_fmt_dim(char *buf, size_t n, const long long d[3]);

/* Writers. Each returns 0 or -1 with store_error() set. */
int ex_write_md(const struct ex_report *r, const struct export_opts *o, FILE *out);
int ex_write_md_one_ticket(const struct ex_report *r, const struct ex_finding *f, FILE *out);
int ex_write_json(const struct ex_report *r, const struct export_opts *o, FILE *out);
int ex_write_csv(const struct ex_report *r, const struct export_opts *o, FILE *out);
int ex_write_sarif(const struct ex_report *r, const struct export_opts *o, FILE *out);
int ex_write_junit(const struct ex_report *r, const struct export_opts *o, FILE *out);
int ex_write_html(const struct ex_report *r, const struct export_opts *o, FILE *out);

/* The JSON object of one finding (docs/export-json.md), new reference. */
json_t *ex_finding_json(const struct ex_finding *f);

/* jansson helpers: a string or null, a number or null (NaN / -1 sentinel). */
json_t *ex_jstr(const char *s);
json_t *ex_jreal(double v);
json_t *ex_jint(long long v);

/* Column i as sanitized text of at most cap bytes (new string), or NULL for SQL NULL. */
static inline char *
ex_col_text(sqlite3_stmt *st, int i, size_t cap)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    return s ? sanitize_text(s, cap) : NULL;
}

/* Column i as a double, NAN for SQL NULL. */
static inline double
ex_col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

#endif
