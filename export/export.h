/* SPDX-License-Identifier: MIT */
/*
 * export: findings for tickets and CI. Writes the findings of an
 * analyzed report as Markdown tickets, JSON (docs/export-json.md), CSV
 * (RFC 4180), SARIF 2.1.0, JUnit XML, or one self-contained HTML page
 * with the findings, a roofline per device, each kernel's hierarchy and
 * the copies timeline. Used by `gpuhier export` and by the TUI ("write a
 * ticket for this finding").
 *
 * The report must already hold findings (the caller opens it with
 * analyzer_open_report(), which analyzes an in-memory copy when needed);
 * export never writes to the database and never analyzes. A report
 * without findings gives a valid, empty document in every format.
 *
 * Every string read from the report goes through sanitize_text() and
 * then through the format's own escaping (jansson for JSON and SARIF,
 * libxml2's xmlTextWriter for XML and HTML, our escaping for Markdown
 * and CSV).
 */
#ifndef GPUHIER_EXPORT_EXPORT_H
#define GPUHIER_EXPORT_EXPORT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

/* Version of the JSON document shape ("schema" member); see docs/export-json.md. */
#define EXPORT_JSON_SCHEMA "gpuhier-export/1"

/* GitHub code scanning limits for one SARIF run. */
#define EXPORT_SARIF_MAX_RESULTS 25000

/* Separator line between tickets when several Markdown tickets go to one stream. */
#define EXPORT_MD_SEPARATOR "<!-- gpuhier:ticket -->"

/*
 * Text of one rule for SARIF's rule descriptions and help, when the
 * caller has the rule files (the cli loads them through the analyzer;
 * export itself never reads rules/). All strings borrowed.
 */
struct export_rule_doc {
    const char *id, *title, *tier, *doc, *rationale, *remedy;
};

/*
 * SQL condition on a finding's severity and time_lost_ns columns: true for
 * the findings readers show by default, every one but a note with no time
 * lost (docs/severity.md); `--all` drops the condition. The TUI uses it too.
 */
#define EXPORT_FINDING_SHOWN "NOT (severity = 'note' AND coalesce(time_lost_ns, 0) <= 0)"

struct export_opts {
    const char *format;       /* "md", "json", "csv", "sarif", "junit", "html" (NULL: "md") */
    const char *rule;         /* only this rule id (NULL: all) */
    const char *kernel_regex; /* POSIX extended regex on the demangled kernel name (NULL: all) */
    const char *min_severity; /* "note", "warning", "error": drop findings below it (NULL: md
                               * "warning", or "note" with `all` or `finding_ids`; other formats
                               * "note"; for junit it is the failure threshold instead, default
                               * "warning") */
    int all;                  /* md, html: also the notes with no time lost (hidden otherwise) */
    int top;                  /* at most this many findings, by rank (0: no limit) */
    int one;                  /* md: all findings in one document instead of one ticket each */
    int redact;               /* 1: redact secrets in the command line (the default); 0: keep */
    const long long *finding_ids; /* only these finding ids (NULL: all); borrowed */
    size_t n_ids;
    const struct export_rule_doc
        *rule_docs; /* optional rule texts (NULL: titles from the report) */
    size_t n_rule_docs;
};

/* One counter engine as a report records it (export_engines_load(), export/engines.c). */
struct export_engine {
    const char *name;    /* "range profiler" or "instrumentation" (static) */
    char *state;         /* what it did, sanitized: meta 'engine_range_profiler' /
                            'engine_instrumentation' (schema.sql: "ran: ...", "refused: ...",
                            "failed: ...", "stuck: ...", "idle: ...", "not used: ..."), or in a
                            report without them told from its tables */
    long launches;       /* stream launches it served (profile, inst_launch rows) */
    long configs;        /* their configurations */
    long graph_launches; /* graph launches it served (the instrumentation engine's) */
};

struct export_engines {
    char *asked;               /* meta 'engines' (sanitized): which the run asked for */
    int derived;               /* 1: the report has no engine keys; states told from tables */
    struct export_engine e[2]; /* the range profiler, the instrumentation engine */
};

/*
 * Fills `x` from `db` (borrowed, only read). Always 0: a table or key a
 * report lacks reads as none. Release with export_engines_release().
 */
int export_engines_load(sqlite3 *db, struct export_engines *x);
void export_engines_release(struct export_engines *x);

/*
 * A kernel's exact per-instruction counts summed over its configurations
 * (schema.sql v_inst_config): global load sectors, their ideal and the
 * load instructions; shared-memory wavefronts, their ideal and the shared
 * instructions; the memory instructions counted (> 0: the kernel was
 * instrumented, so a kind it lacks is none, not unknown). NaN where the
 * kernel has none (the sectors and wavefronts also where an ideal is
 * unknown).
 * 0, or -1 with store_error() when the query fails. The kernel view and
 * the HTML page read a tier from them before the range profiler's
 * estimates where the rules did (export/exact.c).
 */
struct export_exact {
    double gld_sectors, gld_ideal, gld_inst;
    double shared_wavefronts, shared_ideal, shared_inst;
    double instructions;
};
int export_exact_counts(sqlite3 *db, long long kernel_id, struct export_exact *x);

/*
 * What both readers show of them. export_exact_ways(): the shared
 * accesses' n-way, wavefronts over their ideal within the 1 to 32 ways 32
 * banks allow; NaN without exact shared counts. export_exact_no_shared():
 * 1 when the kernel was instrumented and ran no shared-memory instruction.
 * export_exact_loads(): 1 when there are exact global load counts, with
 * the sectors per load, their ideal per load and the ideal's share of the
 * sectors (at most 1) in *per_load, *ideal_per_load and *frac; else 0.
 */
double export_exact_ways(const struct export_exact *x);
int export_exact_no_shared(const struct export_exact *x);
int export_exact_loads(const struct export_exact *x, double *per_load, double *ideal_per_load,
                       double *frac);

/*
 * "range profiler: refused: no permission ... (ERR_NVGPUCTRPERM): ...",
 * "instrumentation: ran on 12 launches (7 configurations) and 2 graph
 * launches": a new string (free()), sanitized.
 */
char *export_engine_line(const struct export_engine *e);

/*
 * Write the findings of `db` selected by `o` to `out` in `o->format`.
 * `db` is borrowed and only read. Returns 0, or -1 with the reason in
 * store_error() (bad option value, bad regex, SQL or library failure,
 * write error on `out`).
 */
int export_write(sqlite3 *db, const struct export_opts *o, FILE *out);

/*
 * Write each selected finding as its own Markdown ticket file in the
 * existing directory `dir`, named "<rank>-<rule>-<kernel short name>.md"
 * (sanitized to [A-Za-z0-9._-], capped). Prints each path written on
 * `list` when not NULL. Returns the number of files or -1.
 */
int export_md_dir(sqlite3 *db, const struct export_opts *o, const char *dir, FILE *list);

/* ------------------------------------------------------------------ */
/* check: the CI gate                                                   */
/* ------------------------------------------------------------------ */

struct export_check_opts {
    const char *fail_on;      /* "note", "warning", "error" (NULL: "warning") */
    const char *rule;         /* only this rule (NULL: all) */
    const char *kernel_regex; /* only matching kernels (NULL: all) */
    double
        tolerance_pct; /* with a baseline: more time lost than baseline * (1 + tol/100) is worse */
};

/*
 * The findings of `db` at or above `o->fail_on`, one line each on `out`:
 *   <severity> <rule> <kernel> [grid G block B]: <time lost> (<share> %): <message>[ [new|worse: why]]
 * With `baseline` (may be NULL), a finding fails only when its
 * (rule, demangled kernel name) is absent from the baseline, has a higher
 * severity there than the worst baseline one, or loses more time than
 * the baseline's findings of that key together (beyond the tolerance).
 * Both databases are borrowed and only read. Returns the number of
 * failing findings, or -1 (store_error()).
 */
int export_check(sqlite3 *db, sqlite3 *baseline, const struct export_check_opts *o, FILE *out);

/* ------------------------------------------------------------------ */
/* diff: did the fix work                                               */
/* ------------------------------------------------------------------ */

struct export_diff_map {
    const char *old_name, *new_name; /* demangled or short kernel names (borrowed) */
};

struct export_diff_opts {
    const char *format;                /* "text" (NULL), "json", "md" */
    const struct export_diff_map *map; /* renamed kernels (borrowed), may be NULL */
    size_t n_map;
    const char *before_name, *after_name; /* how to call the two reports (file names) */
    const char *rule;                     /* only findings of this rule (NULL: all) */
    const char *kernel_regex; /* only kernels whose demangled name matches (NULL: all) */
};

/*
 * Compare two reports: per kernel matched by demangled name (after
 * applying `map`), time, floor ratio and key metrics before and after with
 * the change; findings fixed, new and unchanged, keyed on (rule, kernel).
 * Text for terminals, JSON ("gpuhier-diff/1", docs/cmd-diff.md), or the
 * Markdown "fix verified" comment for the ticket. Returns 0 or -1.
 */
int export_diff(sqlite3 *before, sqlite3 *after, const struct export_diff_opts *o, FILE *out);

/*
 * The pairing export_diff() prints, as data, for the TUI's before/after
 * views: the same kernel matching (demangled name, then `map`) and the
 * same (rule, kernel) finding keys, so both always agree. Every string
 * is sanitized and borrowed from the result.
 */
struct export_diff_kernel {
    const char *name;              /* as the lists name it (export/kname.h) */
    const char *status;            /* "matched", "removed" (before only), "added" (after only) */
    long long before_id, after_id; /* kernel.id in each report, -1 when absent */
    long long before_launches, after_launches; /* -1 when absent or unknown */
    double before_mean_ns, after_mean_ns;      /* NaN when absent or unknown */
    double before_total_ns, after_total_ns;
    double mean_change_pct; /* (after - before) / before * 100 of the mean time; NaN if unknown */
    double before_floor_ratio, after_floor_ratio; /* measured mean / floor; NaN when unknown */
    const char *before_worst, *after_worst;       /* worst finding severity, NULL when none */
};

struct export_diff_finding {
    const char *rule_id;
    const char *kernel;                           /* NULL for a run-level finding */
    const char *status;                           /* "fixed", "new", "unchanged" */
    const char *severity_before, *severity_after; /* worst of the key; NULL when absent */
    double lost_before_ns, lost_after_ns;         /* summed time lost; NaN when absent */
    long long before_id, after_id; /* finding.id of the key's best-ranked finding, -1: none */
};

struct export_diff_result {
    struct export_diff_kernel *kernels; /* before's kernels in report order, then added ones */
    size_t n_kernels;
    struct export_diff_finding *findings; /* before's keys by rank, then the new ones */
    size_t n_findings;
    void *priv; /* the loaded reports the strings point into */
};

/*
 * Pair `before` and `after` (both borrowed, only read) as export_diff()
 * does, honouring o->map, o->rule and o->kernel_regex (o->format is
 * ignored). Fills *r; release it with export_diff_result_release(), also
 * after a failure. Returns 0 or -1 (store_error()).
 */
int export_diff_compute(sqlite3 *before, sqlite3 *after, const struct export_diff_opts *o,
                        struct export_diff_result *r);
/* Free what export_diff_compute() filled; NULL-safe, leaves *r empty. */
void export_diff_result_release(struct export_diff_result *r);

/*
 * Severity helpers shared with `check` and `diff`: rank of "note" (1),
 * "warning" (2), "error" (3); 0 for NULL or anything else.
 */
int export_severity_rank(const char *severity);

/*
 * Format `v` for a reader, never in scientific notation: an integer, or
 * any value of at least 10^(digits-1), rounded to a whole number
 * (16384 -> "16384", not "1.638e+04"); smaller values with `digits`
 * significant digits (0.5, 12.3, 0.0000123). Writes at most n bytes to
 * buf and returns buf. Every user-facing number of the analyzer, the TUI
 * and the exports goes through it.
 */
const char *export_fmt_number(char *buf, size_t n, double v, int digits);

/*
 * `unit` as it reads after the value `v`: a count's plural noun in the
 * singular when v is exactly 1 ("1 warp", "1 copy", "1 SM"; the evidence of
 * idle-kernel and latency-not-hidden on a one-block grid read "1 warps").
 * Units that are not plural nouns (%, x, ns, B/s, requests/inst) come back
 * as they are. Writes at most n bytes to buf and returns buf ("" for NULL).
 */
const char *export_unit_for(char *buf, size_t n, double v, const char *unit);

/*
 * Registers the SQL function gh_kname(kernel_id) on `db`: the kernel's
 * name by the naming rule of export/kname.h, unique among the report's
 * kernels (sanitized; NULL for an unknown id, or when the names cannot
 * be read). The names are computed on the first call and freed with the
 * connection. Readers select kernel names through it, so every view and
 * table shows the same name. Returns 0 or -1 (store_error()).
 */
int export_names_register(sqlite3 *db);

/*
 * Redact secrets in one command-line argument list given as the run
 * table's JSON array of strings. Returns a new, redacted JSON array
 * (free()), or NULL on a malformed array. The rules (docs/cmd-export.md):
 * a key matching /(token|secret|passw(or)?d|api[_-]?key|auth|credential)/i
 * given as `--key=value`, `key=value` or `--key value` has its value
 * replaced by "***"; well-known token shapes (ghp_, gho_, ghs_, github_pat_,
 * glpat-, xox[bpas]-, AKIA..., sk-...) are replaced wherever they appear.
 */
char *export_redact_argv(const char *argv_json);

/*
 * The same redaction, the arguments as plain strings: exactly the
 * strings that parsing export_redact_argv()'s output gives, without a
 * JSON round trip (the report path, docs/bench-redact.md). Returns a
 * NULL-terminated array of `*n` sanitized, redacted arguments in one
 * allocation (free() the array only), or NULL with *n = 0 on a
 * malformed array or no memory.
 */
char **export_redact_args(const char *argv_json, size_t *n);

/*
 * The `gpuhier run` command line that reproduces the run in `db`
 * (shell-quoted, sanitized, redacted when `redact`). New string (free()),
 * NULL when the report has no run row.
 */
char *export_repro_command(sqlite3 *db, int redact);

#endif
