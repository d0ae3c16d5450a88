/* SPDX-License-Identifier: MIT */
/*
 * sarif: SARIF 2.1.0 for code scanning (GitHub, GitLab, IDEs).
 *
 * One reportingDescriptor per analyzer rule (the rules that ran, plus any
 * rule with a finding), results in rank order with a stable ruleId, a
 * level from the severity, and partialFingerprints keyed on
 * (rule, demangled kernel name) only, so a finding keeps its identity
 * when the launch configuration changes. A result points at the kernel's
 * source file and line when the report has them (made relative to the
 * run's working directory when it lies below it, so a repository can
 * resolve it), otherwise at the program, unless the program is an
 * interpreter (python, node, a script): a result then has no physical
 * location, and its logical location names the kernel when known.
 * A finding with worst lines (finding_line, from exact per-instruction
 * counts) points at the worst one instead: region.startLine with a uri
 * relative to the run's working directory when the file lies below it,
 * else a plain-text location (its message names file:line, or the
 * function and pc without line info); the other worst lines are
 * relatedLocations.
 *
 * GitHub's upload limits are kept: at most EXPORT_SARIF_MAX_RESULTS
 * results, and at most SARIF_MAX_GZIP_BYTES once compressed (measured
 * with zlib at its fastest level, which compresses no better than the
 * uploader, so the estimate errs on the safe side). What had to be
 * dropped is said in a toolExecutionNotification, lowest ranks first.
 */
#include "export/export_int.h"
#include "export/srcfile.h"
#include "schema/store.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <zlib.h>

#define SARIF_MAX_GZIP_BYTES (10u * 1000u * 1000u)

/* Percent-encode everything but RFC 3986 unreserved characters and '/'. */
static char *
uri_encode(const char *s)
{
    size_t n = strlen(s);
    char *o = malloc(n * 3 + 1), *p = o;
    if (!o)
        abort();
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (isalnum(*c) || strchr("-._~/", *c))
            *p++ = (char)*c;
        else
            p += sprintf(p, "%%%02X", *c);
    }
    *p = '\0';
    return o;
}

/*
 * A path a repository can resolve: relative to `cwd` when below it,
 * "./" stripped; NULL-safe. Sets *relative. Returns a new encoded URI.
 */
static char *
path_uri(const char *path, const char *cwd, int *relative)
{
    const char *p = path;
    size_t cl = cwd ? strlen(cwd) : 0;
    while (cl > 1 && cwd[cl - 1] == '/')
        cl--;
    if (cwd && p[0] == '/' && cl > 0 && !strncmp(p, cwd, cl) && p[cl] == '/')
        p += cl + 1;
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    *relative = p[0] != '/';
    char *enc = uri_encode(*p ? p : ".");
    if (*relative)
        return enc;
    size_t n = strlen(enc) + 8;
    char *abs = malloc(n);
    if (!abs)
        abort();
    snprintf(abs, n, "file://%s", enc);
    free(enc);
    return abs;
}

static const char *
level_of(const char *severity)
{
    switch (export_severity_rank(severity)) {
    case 3:
        return "error";
    case 2:
        return "warning";
    default:
        return "note";
    }
}

/* "l2-reread-miss" -> "L2RereadMiss" (SARIF's optional rule name). */
static char *
camel(const char *id)
{
    char *o = strdup(id);
    if (!o)
        abort();
    size_t j = 0;
    int up = 1;
    for (const char *p = id; *p; p++) {
        if (*p == '-' || *p == '_' || *p == '.') {
            up = 1;
            continue;
        }
        o[j++] = up ? (char)toupper((unsigned char)*p) : *p;
        up = 0;
    }
    o[j] = '\0';
    return o;
}

static json_t *
text_obj(const char *s)
{
    return json_pack("{s:s}", "text", s && *s ? s : "-");
}

static json_t *
rule_json(const struct ex_rule *x)
{
    json_t *o = json_object();
    char *name = camel(x->id);
    json_object_set_new(o, "id", json_string(x->id));
    json_object_set_new(o, "name", json_string(name));
    free(name);
    const char *title = x->title ? x->title : x->id;
    json_object_set_new(o, "shortDescription", text_obj(title));
    size_t n = strlen(title) + (x->rationale ? strlen(x->rationale) : 0) +
               (x->doc ? strlen(x->doc) : 0) + (x->remedy ? strlen(x->remedy) : 0) +
               (x->tier ? strlen(x->tier) : 0) + 256;
    char *full = malloc(n), *help = malloc(n);
    if (!full || !help)
        abort();
    snprintf(full, n, "%s%s%s (tier: %s)%s%s", title, x->rationale ? ". " : "",
             x->rationale ? x->rationale : "", x->tier ? x->tier : "unknown",
             x->doc ? " Source: " : "", x->doc ? x->doc : "");
    snprintf(help, n, "%s%sRun `gpuhier rules explain %s` for the rule in full.%s%s",
             x->remedy ? x->remedy : "", x->remedy ? " " : "", x->id, x->doc ? " Source: " : "",
             x->doc ? x->doc : "");
    json_object_set_new(o, "fullDescription", text_obj(full));
    json_object_set_new(o, "help", text_obj(help));
    json_object_set_new(o, "defaultConfiguration", json_pack("{s:s}", "level", "warning"));
    json_t *props = json_object();
    json_object_set_new(props, "tier", ex_jstr(x->tier));
    json_object_set_new(props, "docRef", ex_jstr(x->doc));
    json_object_set_new(props, "status", ex_jstr(x->status));
    if (x->note)
        json_object_set_new(props, "note", ex_jstr(x->note));
    json_object_set_new(props, "tags",
                        json_pack("[s, s]", "performance", x->tier ? x->tier : "gpu"));
    json_object_set_new(o, "properties", props);
    free(full);
    free(help);
    return o;
}

/*
 * Is `program` an interpreter or a launcher (python3.11, node, bash,
 * torchrun...), whose file says nothing about where a kernel is? By the
 * file name's stem, version digits dropped, and by a "#!" first line
 * when the file can be read here.
 */
static int
is_interpreter(const char *program)
{
    static const char *const names[] = {
        "python", "pypy", "ipython",  "jupyter",    "perl",      "ruby", "node",
        "nodejs", "bash", "sh",       "dash",       "zsh",       "ksh",  "java",
        "julia",  "R",    "Rscript",  "lua",        "luajit",    "php",  "deno",
        "bun",    "env",  "torchrun", "accelerate", "deepspeed",
    };
    if (!program || !*program)
        return 0;
    const char *base = strrchr(program, '/');
    base = base ? base + 1 : program;
    size_t n = strlen(base);
    while (n > 0 && (isdigit((unsigned char)base[n - 1]) || base[n - 1] == '.'))
        n--;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strlen(names[i]) == n && !strncmp(base, names[i], n))
            return 1;
    char head[2] = {0};
    FILE *f = fopen(program, "rb");
    if (f) {
        size_t got = fread(head, 1, 2, f);
        fclose(f);
        return got == 2 && head[0] == '#' && head[1] == '!';
    }
    return 0;
}

/*
 * The location of one worst line: a physical location (a uri relative to
 * the run's working directory, %SRCROOT%, and region.startLine) when the
 * file lies below it; else a plain-text one, its message naming the line
 * ("file:line", or "function+0xPC" without line info): never an absolute
 * path of the recording machine a repository cannot resolve.
 */
static json_t *
line_location(const struct ex_report *r, const struct ex_line *l)
{
    json_t *o = json_object();
    char *rel = l->file && l->line > 0 ? srcfile_relative(l->file, r->cwd) : NULL;
    char text[EX_NAME_MAX + 640];
    snprintf(text, sizeof(text), "%s: %.1f%% of the excess%s%s", l->location,
             isnan(l->share_pct) ? 0.0 : l->share_pct, l->sass ? ", " : "", l->sass ? l->sass : "");
    if (rel) {
        char *uri = uri_encode(rel);
        json_t *art = json_pack("{s:s, s:s}", "uri", uri, "uriBaseId", "%SRCROOT%");
        free(uri);
        json_object_set_new(o, "physicalLocation",
                            json_pack("{s:o, s:{s:I}}", "artifactLocation", art, "region",
                                      "startLine", (json_int_t)l->line));
    }
    json_object_set_new(o, "message", text_obj(text));
    free(rel);
    return o;
}

static size_t
rule_index(const struct ex_report *r, const char *id)
{
    for (size_t i = 0; i < r->n_rules; i++)
        if (!strcmp(r->rules[i].id, id))
            return i;
    return 0;
}

static json_t *
result_json(const struct ex_report *r, const struct ex_finding *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "ruleId", json_string(f->rule_id));
    json_object_set_new(o, "ruleIndex", json_integer((json_int_t)rule_index(r, f->rule_id)));
    json_object_set_new(o, "level", json_string(level_of(f->severity)));
    json_object_set_new(o, "message", text_obj(f->message ? f->message : f->title));

    json_t *loc = json_object();
    /* An interpreter is never where the kernel is: no physical location rather than python. */
    const char *file = f->source_file               ? f->source_file
                       : is_interpreter(r->program) ? NULL
                                                    : r->program;
    json_t *related = NULL;
    if (f->n_lines) {
        /* The worst lines (finding_line): the first is the result's location. */
        file = NULL;
        related = json_array();
        for (size_t i = 0; i < f->n_lines; i++) {
            json_t *l = line_location(r, &f->lines[i]);
            if (i == 0) {
                json_object_update(loc, l);
                json_decref(l);
            } else {
                json_object_set_new(l, "id", json_integer((json_int_t)i));
                json_array_append_new(related, l);
            }
        }
    }
    if (file) {
        int relative;
        char *uri = path_uri(file, r->cwd, &relative);
        json_t *art = json_pack("{s:s}", "uri", uri);
        if (relative)
            json_object_set_new(art, "uriBaseId", json_string("%SRCROOT%"));
        free(uri);
        json_t *phys = json_pack("{s:o}", "artifactLocation", art);
        if (f->source_file && f->source_line > 0)
            json_object_set_new(phys, "region",
                                json_pack("{s:I}", "startLine", (json_int_t)f->source_line));
        json_object_set_new(loc, "physicalLocation", phys);
    }
    /* A finding whose kernel row is missing (a damaged report) has no name to give. */
    const char *name = f->short_name ? f->short_name : f->demangled_name;
    if (f->kernel_id >= 0 && name) {
        json_t *logical = json_pack("{s:o, s:s}", "name", ex_jstr(name), "kind", "function");
        if (f->demangled_name)
            json_object_set_new(logical, "fullyQualifiedName", ex_jstr(f->demangled_name));
        json_object_set_new(loc, "logicalLocations", json_pack("[o]", logical));
    }
    if (json_object_size(loc))
        json_object_set_new(o, "locations", json_pack("[o]", loc));
    else
        json_decref(loc);
    if (related && json_array_size(related))
        json_object_set_new(o, "relatedLocations", related);
    else
        json_decref(related);
    json_object_set_new(o, "partialFingerprints",
                        json_pack("{s:s}", "gpuhierKernelRule/v1", f->fingerprint));

    json_t *p = json_object();
    json_object_set_new(p, "findingId", json_integer(f->id));
    json_object_set_new(p, "rank", ex_jint(f->rank));
    json_object_set_new(p, "severity", ex_jstr(f->severity));
    json_object_set_new(p, "tier", ex_jstr(f->tier));
    json_object_set_new(p, "timeLostNs", ex_jreal(f->time_lost_ns));
    json_object_set_new(p, "timeLostNsPerLaunch", ex_jreal(f->time_lost_ns_per_launch));
    json_object_set_new(p, "sharePct", ex_jreal(f->share_pct));
    json_object_set_new(p, "launches", ex_jint(f->launches));
    json_object_set_new(p, "remedy", ex_jstr(f->remedy));
    json_object_set_new(p, "docRef", ex_jstr(f->doc_ref));
    if (f->config_id >= 0) {
        char g[64], b[64];
        json_object_set_new(p, "grid", json_string(ex_fmt_dim(g, sizeof(g), f->grid)));
        json_object_set_new(p, "block", json_string(ex_fmt_dim(b, sizeof(b), f->block)));
        json_object_set_new(p, "dynamicSmemBytes", ex_jint(f->dynamic_smem_bytes));
    }
    /* Evidence without its null members: a result is repeated 10,000 times. */
    json_t *ev = json_array();
    for (size_t i = 0; i < f->n_ev; i++) {
        const struct ex_evidence *e = &f->ev[i];
        json_t *x = json_pack("{s:s}", "name", e->name);
        if (e->has_value)
            json_object_set_new(x, "value", ex_jreal(e->value));
        if (e->text_value)
            json_object_set_new(x, "textValue", json_string(e->text_value));
        if (e->unit)
            json_object_set_new(x, "unit", json_string(e->unit));
        if (e->has_threshold)
            json_object_set_new(x, "threshold", ex_jreal(e->threshold));
        if (e->op)
            json_object_set_new(x, "op", json_string(e->op));
        json_array_append_new(ev, x);
    }
    json_object_set_new(p, "evidence", ev);
    json_object_set_new(o, "properties", p);
    return o;
}

/* Bytes of the n pieces once deflated at zlib's fastest level (an upper bound on gzip -6). */
static size_t
deflated_size(const char *const *piece, const size_t *len, int n)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (deflateInit(&z, Z_BEST_SPEED) != Z_OK)
        return SIZE_MAX;
    unsigned char buf[1 << 16];
    size_t total = 18; /* gzip header and trailer */
    for (int i = 0; i < n; i++) {
        z.next_in = (Bytef *)piece[i];
        z.avail_in = (uInt)len[i];
        int flush = i == n - 1 ? Z_FINISH : Z_NO_FLUSH;
        int rc;
        do {
            z.next_out = buf;
            z.avail_out = sizeof(buf);
            rc = deflate(&z, flush);
            total += sizeof(buf) - z.avail_out;
        } while (z.avail_out == 0 ||
                 (flush == Z_FINISH && rc != Z_STREAM_END && rc != Z_STREAM_ERROR));
    }
    deflateEnd(&z);
    return total;
}

static json_t *
build_log(const struct ex_report *r, size_t n_results, const char *truncation)
{
    json_t *driver = json_object();
    json_object_set_new(driver, "name", json_string("gpuhier"));
    json_object_set_new(driver, "version", json_string(GPUHIER_VERSION));
    json_object_set_new(driver, "semanticVersion", json_string(GPUHIER_VERSION));
    json_t *rules = json_array();
    for (size_t i = 0; i < r->n_rules; i++)
        json_array_append_new(rules, rule_json(&r->rules[i]));
    json_object_set_new(driver, "rules", rules);

    json_t *inv = json_object();
    json_object_set_new(inv, "executionSuccessful", json_true());
    if (r->repro)
        json_object_set_new(inv, "commandLine", json_string(r->repro));
    if (truncation)
        json_object_set_new(inv, "toolExecutionNotifications",
                            json_pack("[{s:s, s:{s:s}, s:{s:s}}]", "level", "warning", "message",
                                      "text", truncation, "descriptor", "id",
                                      "gpuhier/results-truncated"));

    json_t *run = json_object();
    json_object_set_new(run, "tool", json_pack("{s:o}", "driver", driver));
    json_object_set_new(run, "invocations", json_pack("[o]", inv));
    if (r->cwd && r->cwd[0] == '/') {
        char *enc = uri_encode(r->cwd);
        size_t n = strlen(enc) + 16;
        char *base = malloc(n);
        if (!base)
            abort();
        snprintf(base, n, "file://%s%s", enc, enc[strlen(enc) - 1] == '/' ? "" : "/");
        json_object_set_new(run, "originalUriBaseIds",
                            json_pack("{s:{s:s}}", "%SRCROOT%", "uri", base));
        free(base);
        free(enc);
    }
    json_t *results = json_array();
    for (size_t i = 0; i < n_results; i++)
        json_array_append_new(results, result_json(r, &r->f[i]));
    json_object_set_new(run, "results", results);
    json_t *props = json_object();
    json_object_set_new(props, "findingsTotal", json_integer((json_int_t)r->n_total));
    json_object_set_new(props, "reportCreatedBy", ex_jstr(r->created_by));
    json_object_set_new(props, "reportProvenance", ex_jstr(r->provenance));
    json_object_set_new(props, "rulesetVersion", ex_jstr(r->ruleset_version));
    json_object_set_new(props, "device", ex_jstr(r->device_name));
    json_object_set_new(run, "properties", props);

    json_t *log = json_object();
    json_object_set_new(log, "$schema",
                        json_string("https://json.schemastore.org/sarif-2.1.0.json"));
    json_object_set_new(log, "version", json_string("2.1.0"));
    json_object_set_new(log, "runs", json_pack("[o]", run));
    return log;
}

/*
 * Results are dumped one at a time into one buffer and freed at once,
 * then spliced into the dumped frame of the log (built with an empty
 * results array): a tree of 10,000 results would cost ten times the
 * output in memory, and the page faults to match.
 */
int
ex_write_sarif(const struct ex_report *r, const struct export_opts *o, FILE *out)
{
    (void)o;
    size_t n = r->n < EXPORT_SARIF_MAX_RESULTS ? r->n : EXPORT_SARIF_MAX_RESULTS;
    size_t *ends = malloc((n + 1) * sizeof(*ends));
    size_t cap = 1 << 16, len = 0;
    char *body = malloc(cap), *frame = NULL;
    int ret = -1;
    if (!ends || !body)
        abort();
    for (size_t i = 0; i < n; i++) {
        json_t *res = result_json(r, &r->f[i]);
        char *t = json_dumps(res, JSON_COMPACT | JSON_REAL_PRECISION(10));
        json_decref(res);
        if (!t) {
            store_set_error("cannot build a SARIF result");
            goto out;
        }
        size_t k = strlen(t);
        if (len + k + 2 > cap) {
            cap = (len + k + 2) * 2;
            body = realloc(body, cap);
            if (!body)
                abort();
        }
        if (i)
            body[len++] = ',';
        memcpy(body + len, t, k);
        len += k;
        ends[i] = len;
        free(t);
    }
    char note[256];
    size_t keep = n;
    const char *pre = NULL, *post = NULL;
    size_t pre_len = 0;
    for (;;) {
        const char *why = NULL;
        if (keep < r->n) {
            snprintf(
                note, sizeof(note),
                "%zu of %zu findings kept (the highest ranked): GitHub accepts at most %d results "
                "and %u compressed bytes per run",
                keep, r->n, EXPORT_SARIF_MAX_RESULTS, SARIF_MAX_GZIP_BYTES);
            why = note;
        }
        json_t *log = build_log(r, 0, why);
        free(frame);
        frame = json_dumps(log, JSON_COMPACT | JSON_REAL_PRECISION(10));
        json_decref(log);
        /* Quotes inside strings are escaped, so this text can only be our member. */
        char *slot = frame ? strstr(frame, "\"results\":[]") : NULL;
        if (!slot) {
            store_set_error("cannot build the SARIF document");
            goto out;
        }
        pre = frame;
        pre_len = (size_t)(slot - frame) + strlen("\"results\":[");
        post = slot + strlen("\"results\":[");
        size_t body_len = keep ? ends[keep - 1] : 0;
        size_t total = pre_len + body_len + strlen(post);
        if (total <= SARIF_MAX_GZIP_BYTES || keep == 0)
            break;
        const char *pieces[3] = {pre, body, post};
        size_t lens[3] = {pre_len, body_len, strlen(post)};
        size_t z = deflated_size(pieces, lens, 3);
        if (z <= SARIF_MAX_GZIP_BYTES)
            break;
        /* Shrink in proportion, with a margin, and measure again. */
        size_t next = (size_t)((double)keep * SARIF_MAX_GZIP_BYTES / (double)z * 0.95);
        keep = next < keep ? next : keep - 1;
    }
    if (fwrite(pre, 1, pre_len, out) != pre_len ||
        (keep && fwrite(body, 1, ends[keep - 1], out) != ends[keep - 1]) ||
        fputs(post, out) == EOF || fputc('\n', out) == EOF) {
        store_set_error("cannot write SARIF: %s", strerror(errno));
        goto out;
    }
    ret = 0;
out:
    free(frame);
    free(body);
    free(ends);
    return ret;
}
