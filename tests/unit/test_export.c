/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of export/: every format on a synthetic report full of
 * hostile strings must parse (jansson, libxml2, an RFC 4180 reader),
 * carry no raw control bytes, keep secrets out, honour the filters, and
 * stay valid when the report is empty.
 *
 * `test_export --make-report PATH nasty|before|after|empty|html` writes one of
 * the synthetic reports for the e2e scripts instead of running tests;
 * `test_export --slow` runs the slow tests (SARIF truncation at 25,000).
 */
#include "export/export.h"
#include "export/export_int.h"
#include "export/sanitize.h"
#include "tests/check.h"
#include "tests/unit/test_export_report.h"

#include <dirent.h>
#include <jansson.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <strings.h>
#include <math.h>
#include <unistd.h>
#include <zlib.h>

static const char *formats[] = {"md", "json", "csv", "sarif", "junit", "html"};

static char *
run_export(sqlite3 *db, const struct export_opts *o, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *rc = export_write(db, o, f);
    if (*rc)
        fprintf(stderr, "export_write: %s\n", store_error());
    fclose(f);
    return buf;
}

/* Valid UTF-8, no C0 control but \n (and \r before \n when crlf), no DEL, no C1. */
static int
bytes_clean(const char *s, int crlf)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char b = *p;
        if (b == '\n' || (crlf && b == '\r' && p[1] == '\n')) {
            p++;
            continue;
        }
        if (b < 0x20 || b == 0x7f) {
            fprintf(stderr, "raw control byte 0x%02x at offset %ld\n", b,
                    (long)(p - (const unsigned char *)s));
            return 0;
        }
        if (b < 0x80) {
            p++;
            continue;
        }
        int len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 0;
        if (len == 0 || b > 0xf4)
            return 0;
        for (int i = 1; i < len; i++)
            if ((p[i] & 0xc0) != 0x80)
                return 0;
        if (b == 0xc2 && p[1] <= 0x9f)
            return 0;
        p += len;
    }
    return 1;
}

static xmlDocPtr
parse_xml(const char *s)
{
    return xmlReadMemory(s, (int)strlen(s), "junit.xml", NULL,
                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_HUGE);
}

static int
count_elements(xmlNodePtr n, const char *name, const char *child)
{
    int c = 0;
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (!strcmp((const char *)n->name, name)) {
            if (!child) {
                c++;
            } else {
                for (xmlNodePtr k = n->children; k; k = k->next)
                    if (k->type == XML_ELEMENT_NODE && !strcmp((const char *)k->name, child))
                        c++;
            }
        }
        c += count_elements(n->children, name, child);
    }
    return c;
}

/*
 * RFC 4180 reader: returns the number of records, checks every record has
 * `nfields` fields and that records end in CRLF; stores field `want` of
 * record `row` in *cell (new string) when asked.
 */
static int
csv_records(const char *s, int nfields, int row, int want, char **cell)
{
    int records = 0;
    const char *p = s;
    while (*p) {
        int field = 0;
        for (;;) {
            size_t cap = strlen(p) + 1, n = 0;
            char *val = malloc(cap);
            if (*p == '"') {
                p++;
                for (;;) {
                    if (!*p) {
                        free(val);
                        return -1;
                    }
                    if (*p == '"' && p[1] == '"') {
                        val[n++] = '"';
                        p += 2;
                    } else if (*p == '"') {
                        p++;
                        break;
                    } else {
                        val[n++] = *p++;
                    }
                }
            } else {
                while (*p && *p != ',' && *p != '\r' && *p != '\n') {
                    if (*p == '"') {
                        free(val);
                        return -1; /* a quote in an unquoted field */
                    }
                    val[n++] = *p++;
                }
            }
            val[n] = '\0';
            if (cell && records == row && field == want)
                *cell = val;
            else
                free(val);
            field++;
            if (*p == ',') {
                p++;
                continue;
            }
            if (p[0] == '\r' && p[1] == '\n') {
                p += 2;
                break;
            }
            return -1; /* bare LF, or garbage after a quoted field */
        }
        if (field != nfields) {
            fprintf(stderr, "csv record %d has %d fields, want %d\n", records, field, nfields);
            return -1;
        }
        records++;
    }
    return records;
}

static sqlite3 *
nasty(void)
{
    sqlite3 *db = make_report(":memory:", EXR_NASTY);
    CHECK(db != NULL);
    return db;
}

/* ------------------------------------------------------------------ */

static void
test_export_every_format_parses(void)
{
    sqlite3 *db = nasty();
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        for (int one = 0; one < 2; one++) {
            struct export_opts o = {.format = formats[i], .redact = 1, .one = one};
            int rc;
            char *out = run_export(db, &o, &rc);
            CHECK_EQ_INT(rc, 0);
            CHECK(out && bytes_clean(out, !strcmp(formats[i], "csv")));
            if (!strcmp(formats[i], "json") || !strcmp(formats[i], "sarif")) {
                json_error_t err;
                json_t *j = json_loads(out, 0, &err);
                if (!j)
                    fprintf(stderr, "%s: %s at %d\n", formats[i], err.text, err.line);
                CHECK(j != NULL);
                json_decref(j);
            } else if (!strcmp(formats[i], "junit")) {
                xmlDocPtr d = parse_xml(out);
                CHECK(d != NULL);
                xmlFreeDoc(d);
            } else if (!strcmp(formats[i], "csv")) {
                CHECK_EQ_INT(csv_records(out, 22, -1, -1, NULL), 6);
            }
            free(out);
        }
    }
    sqlite3_close(db);
}

static void
test_export_json_records(void)
{
    sqlite3 *db = nasty();
    struct export_opts o = {.format = "json", .redact = 1};
    int rc;
    char *out = run_export(db, &o, &rc);
    json_t *j = json_loads(out, 0, NULL);
    CHECK(j != NULL);
    CHECK_STR(json_string_value(json_object_get(j, "schema")), EXPORT_JSON_SCHEMA);
    json_t *fs = json_object_get(j, "findings");
    CHECK_EQ_INT(json_array_size(fs), 5);
    CHECK_EQ_INT(json_integer_value(json_object_get(j, "findings_total")), 5);
    /* Ranked order; the nasty name arrives exactly as the sanitizer makes it. */
    CHECK_EQ_INT(json_integer_value(json_object_get(json_array_get(fs, 0), "rank")), 1);
    json_t *k = json_object_get(json_array_get(fs, 1), "kernel");
    char *want = sanitize_text(EXR_NASTY_NAME, 0);
    CHECK_STR(json_string_value(json_object_get(k, "demangled_name")), want);
    free(want);
    /* The 64 KB name is capped, and says so with an ellipsis. */
    const char *huge = json_string_value(
        json_object_get(json_object_get(json_array_get(fs, 2), "kernel"), "demangled_name"));
    CHECK(huge && strlen(huge) <= 4096 && strstr(huge, "\xe2\x80\xa6"));
    /* Evidence with threshold and verdict; run-level finding has null kernel. */
    json_t *ev = json_array_get(json_object_get(json_array_get(fs, 0), "evidence"), 0);
    CHECK_STR(json_string_value(json_object_get(ev, "name")), "sectors_per_request");
    CHECK_NEAR(json_real_value(json_object_get(ev, "threshold")), 4, 1e-9);
    CHECK(json_is_true(json_object_get(ev, "fires")));
    CHECK(json_is_null(json_object_get(json_array_get(fs, 3), "kernel")));
    /* Run: allowlisted environment only. */
    json_t *env = json_object_get(json_object_get(j, "run"), "env");
    CHECK(json_object_get(env, "CUDA_VISIBLE_DEVICES") != NULL);
    CHECK(json_object_get(env, "HOME") == NULL);
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "report"), "created_by")),
              "synthetic");
    json_decref(j);
    free(out);
    sqlite3_close(db);
}

static void
test_export_sarif_shape(void)
{
    sqlite3 *db = nasty();
    struct export_opts o = {.format = "sarif", .redact = 1};
    int rc;
    char *out = run_export(db, &o, &rc);
    json_t *j = json_loads(out, 0, NULL);
    CHECK(j != NULL);
    CHECK_STR(json_string_value(json_object_get(j, "version")), "2.1.0");
    json_t *run = json_array_get(json_object_get(j, "runs"), 0);
    json_t *rules =
        json_object_get(json_object_get(json_object_get(run, "tool"), "driver"), "rules");
    json_t *res = json_object_get(run, "results");
    CHECK_EQ_INT(json_array_size(rules), 5); /* every rule of the analysis, skipped one included */
    CHECK_EQ_INT(json_array_size(res), 5);
    size_t i;
    json_t *r;
    json_array_foreach(res, i, r)
    {
        const char *id = json_string_value(json_object_get(r, "ruleId"));
        size_t ri = (size_t)json_integer_value(json_object_get(r, "ruleIndex"));
        CHECK_STR(json_string_value(json_object_get(json_array_get(rules, ri), "id")), id);
        CHECK(json_object_get(json_object_get(r, "partialFingerprints"), "gpuhierKernelRule/v1") !=
              NULL);
    }
    json_t *r0 = json_array_get(res, 0), *r4 = json_array_get(res, 4);
    CHECK_STR(json_string_value(json_object_get(r0, "level")), "error");
    /* Same rule and kernel, another launch configuration: same fingerprint. */
    const char *fp0 = json_string_value(
        json_object_get(json_object_get(r0, "partialFingerprints"), "gpuhierKernelRule/v1"));
    const char *fp4 = json_string_value(
        json_object_get(json_object_get(r4, "partialFingerprints"), "gpuhierKernelRule/v1"));
    const char *fp1 = json_string_value(json_object_get(
        json_object_get(json_array_get(res, 1), "partialFingerprints"), "gpuhierKernelRule/v1"));
    CHECK_STR(fp0, fp4);
    CHECK(fp1 && strcmp(fp0, fp1));
    /*
     * The fingerprint is a baseline's key: it must not move between
     * versions (computed for (uncoalesced-global-load, the kernel's raw
     * demangled name) by an implementation of its definition apart from
     * export.c's; the kernel-name hash against FNV-1a's published vectors)
     */
    CHECK_STR(fp0, "be8b61fae24464de80245387c3ed3778");
    char h[17];
    ex_name_hash(h, "");
    CHECK_STR(h, "cbf29ce484222325");
    ex_name_hash(h, "a");
    CHECK_STR(h, "af63dc4c8601ec8c");
    ex_name_hash(h, "foobar");
    CHECK_STR(h, "85944171f73967e8");
    /* Source location relative to the run's directory; odd names percent-encoded; else the program. */
    json_t *phys =
        json_object_get(json_array_get(json_object_get(r0, "locations"), 0), "physicalLocation");
    CHECK_STR(json_string_value(json_object_get(json_object_get(phys, "artifactLocation"), "uri")),
              "src/transpose.cu");
    CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(phys, "region"), "startLine")),
                 42);
    phys = json_object_get(json_array_get(json_object_get(json_array_get(res, 1), "locations"), 0),
                           "physicalLocation");
    CHECK_STR(json_string_value(json_object_get(json_object_get(phys, "artifactLocation"), "uri")),
              "src/we%20ird%23file.cu");
    phys = json_object_get(json_array_get(json_object_get(json_array_get(res, 3), "locations"), 0),
                           "physicalLocation");
    CHECK_STR(json_string_value(json_object_get(json_object_get(phys, "artifactLocation"), "uri")),
              "app");
    CHECK(json_object_get(phys, "region") == NULL);
    /* Evidence rides in properties. */
    CHECK_EQ_INT(json_array_size(json_object_get(json_object_get(r0, "properties"), "evidence")),
                 3);
    json_decref(j);
    free(out);
    sqlite3_close(db);
}

/*
 * An interpreted program (python) is never a result's location: a
 * finding on a kernel without source has no physical location. A
 * finding whose kernel row is missing (a damaged report) has no logical
 * location rather than "name": null, which the SARIF schema rejects.
 */
static void
test_export_sarif_interpreter_and_missing_kernel(void)
{
    sqlite3 *db = nasty();
    CHECK(store_exec(db, "UPDATE run SET program = '/usr/bin/python3.12';"
                         "DELETE FROM kernel WHERE id IN (3, 4)") == 0);
    struct export_opts o = {.format = "sarif", .redact = 1};
    int rc;
    char *out = run_export(db, &o, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(out && !strstr(out, "python"));
    json_t *j = json_loads(out ? out : "", 0, NULL);
    json_t *res = json_object_get(json_array_get(json_object_get(j, "runs"), 0), "results");
    CHECK(json_array_size(res) == 5);
    size_t i, k, with_source = 0, unnamed = 0;
    json_t *r, *loc;
    json_array_foreach(res, i, r)
    {
        json_t *locs = json_object_get(r, "locations");
        if (!locs) {
            unnamed++;
            continue;
        }
        json_array_foreach(locs, k, loc)
        {
            json_t *phys = json_object_get(loc, "physicalLocation");
            json_t *ll = json_array_get(json_object_get(loc, "logicalLocations"), 0);
            with_source += phys != NULL;
            CHECK(!phys || json_object_get(phys, "region") != NULL);
            CHECK(!ll || json_is_string(json_object_get(ll, "name")));
            CHECK(!ll || !json_is_null(json_object_get(ll, "fullyQualifiedName")));
            unnamed += ll == NULL;
        }
    }
    CHECK(with_source >= 1); /* kernels 1 and 2 have their source file */
    CHECK(unnamed >= 1);     /* kernels 3 and 4 are gone: neither file nor name */
    json_decref(j);
    free(out);
    sqlite3_close(db);
}

/*
 * Findings that cannot be read after the kernels were: every format
 * fails cleanly (the kernels' display names, set last, were freed
 * uninitialized: ASan, found by tests/fuzz).
 */
static void
test_export_findings_unreadable(void)
{
    sqlite3 *db = nasty();
    CHECK(store_exec(db, "DROP VIEW IF EXISTS v_finding; ALTER TABLE finding RENAME TO gone") == 0);
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        struct export_opts o = {.format = formats[i], .redact = 1};
        int rc;
        char *out = run_export(db, &o, &rc);
        CHECK(rc == -1);
        free(out);
    }
    sqlite3_close(db);
}

static void
test_export_sarif_truncates(void)
{
    sqlite3 *db = make_report(":memory:", EXR_EMPTY);
    CHECK(db != NULL);
    int n = EXPORT_SARIF_MAX_RESULTS + 10;
    store_exec(db, "BEGIN");
    sqlite3_stmt *st;
    sqlite3_prepare_v2(
        db,
        "INSERT INTO finding(id, rank, rule_id, severity, kernel_id, config_id, message, "
        "time_lost_ns)"
        " VALUES (?1, ?1, 'uncoalesced-global-load', 'note', 1, 1, 'synthetic', 1000)",
        -1, &st, NULL);
    for (int i = 1; i <= n; i++) {
        sqlite3_bind_int(st, 1, i);
        sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    store_exec(db, "COMMIT");
    struct export_opts o = {.format = "sarif", .redact = 1};
    int rc;
    char *out = run_export(db, &o, &rc);
    json_t *j = json_loads(out, 0, NULL);
    json_t *run = json_array_get(json_object_get(j, "runs"), 0);
    CHECK_EQ_INT(json_array_size(json_object_get(run, "results")), EXPORT_SARIF_MAX_RESULTS);
    json_t *note =
        json_array_get(json_object_get(json_array_get(json_object_get(run, "invocations"), 0),
                                       "toolExecutionNotifications"),
                       0);
    const char *text = json_string_value(json_object_get(json_object_get(note, "message"), "text"));
    CHECK(text && strstr(text, "25000 of 25010"));
    /* The lowest ranks are the ones dropped. */
    json_t *last = json_array_get(json_object_get(run, "results"), EXPORT_SARIF_MAX_RESULTS - 1);
    CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(last, "properties"), "rank")),
                 EXPORT_SARIF_MAX_RESULTS);
    json_decref(j);
    free(out);
    sqlite3_close(db);
}

/* Deterministic printable noise: compresses about as badly as text can. */
static void
noise(char *buf, size_t n, unsigned *seed)
{
    for (size_t i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        buf[i] = (char)(' ' + 1 + (*seed >> 16) % 94);
    }
    buf[n] = '\0';
}

static void
test_export_sarif_compressed_cap(void)
{
    /* 700 findings of ~24 KB of noise each: ~17 MB, over 10 MB even compressed. */
    sqlite3 *db = make_report(":memory:", EXR_EMPTY);
    CHECK(db != NULL);
    int n = 700;
    unsigned seed = 42;
    char *a = malloc(8200), *b = malloc(8200), *k = malloc(4100);
    store_exec(db, "BEGIN");
    sqlite3_stmt *kst, *fst;
    sqlite3_prepare_v2(
        db,
        "INSERT INTO kernel(id, mangled_name, demangled_name, short_name) VALUES (?1, ?2, ?3, ?3)",
        -1, &kst, NULL);
    sqlite3_prepare_v2(
        db,
        "INSERT INTO finding(id, rank, rule_id, severity, kernel_id, message, remedy, time_lost_ns)"
        " VALUES (?1, ?1, 'uncoalesced-global-load', 'warning', ?1 + 100, ?2, ?3, 1000)",
        -1, &fst, NULL);
    for (int i = 1; i <= n; i++) {
        noise(k, 4000, &seed);
        char mangled[32];
        snprintf(mangled, sizeof(mangled), "_Z5noise%d", i);
        sqlite3_bind_int(kst, 1, i + 100);
        sqlite3_bind_text(kst, 2, mangled, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(kst, 3, k, -1, SQLITE_TRANSIENT);
        sqlite3_step(kst);
        sqlite3_reset(kst);
        noise(a, 8000, &seed);
        noise(b, 8000, &seed);
        sqlite3_bind_int(fst, 1, i);
        sqlite3_bind_text(fst, 2, a, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(fst, 3, b, -1, SQLITE_TRANSIENT);
        sqlite3_step(fst);
        sqlite3_reset(fst);
    }
    sqlite3_finalize(kst);
    sqlite3_finalize(fst);
    store_exec(db, "COMMIT");
    free(a);
    free(b);
    free(k);
    struct export_opts o = {.format = "sarif", .redact = 1};
    int rc;
    char *out = run_export(db, &o, &rc);
    CHECK_EQ_INT(rc, 0);
    json_t *j = json_loads(out, 0, NULL);
    json_t *run = json_array_get(json_object_get(j, "runs"), 0);
    size_t kept = json_array_size(json_object_get(run, "results"));
    CHECK(kept > 0 && kept < (size_t)n);
    json_t *note =
        json_array_get(json_object_get(json_array_get(json_object_get(run, "invocations"), 0),
                                       "toolExecutionNotifications"),
                       0);
    const char *text = json_string_value(json_object_get(json_object_get(note, "message"), "text"));
    char want[64];
    snprintf(want, sizeof(want), "%zu of %d findings kept", kept, n);
    CHECK(text && strstr(text, want));
    /* Compressed, what is left fits GitHub's 10 MB. */
    uLongf zlen = compressBound((uLong)strlen(out));
    Bytef *z = malloc(zlen);
    CHECK(compress2(z, &zlen, (const Bytef *)out, (uLong)strlen(out), 6) == Z_OK);
    CHECK(zlen <= 10u * 1000u * 1000u);
    CHECK(strlen(out) > 10u * 1000u * 1000u); /* the cap had to be measured compressed */
    free(z);
    json_decref(j);
    free(out);
    sqlite3_close(db);
}

static void
test_export_junit_cases(void)
{
    sqlite3 *db = nasty();
    const char *sev[] = {NULL, "error", "note"};
    int want_fail[] = {3, 1, 4};
    for (int s = 0; s < 3; s++) {
        struct export_opts o = {.format = "junit", .redact = 1, .min_severity = sev[s]};
        int rc;
        char *out = run_export(db, &o, &rc);
        xmlDocPtr d = parse_xml(out);
        CHECK(d != NULL);
        xmlNodePtr root = xmlDocGetRootElement(d);
        /* 4 kernels x 5 rules, plus the run suite's one rule with a run-level finding. */
        CHECK_EQ_INT(count_elements(root, "testcase", NULL), 21);
        CHECK_EQ_INT(count_elements(root, "testcase", "failure"), want_fail[s]);
        CHECK_EQ_INT(count_elements(root, "testcase", "skipped"), 4);
        xmlChar *f = xmlGetProp(root, (const xmlChar *)"failures");
        CHECK_EQ_INT(atoi((const char *)f), want_fail[s]);
        xmlFree(f);
        xmlFreeDoc(d);
        free(out);
    }
    sqlite3_close(db);
}

static void
test_export_csv_fields(void)
{
    sqlite3 *db = nasty();
    struct export_opts o = {.format = "csv", .redact = 1};
    int rc;
    char *out = run_export(db, &o, &rc);
    char *cell = NULL;
    CHECK_EQ_INT(csv_records(out, 22, 2, 6, &cell), 6); /* row 2 = rank 2, field 6 = kernel */
    char *want = sanitize_text(EXR_NASTY_NAME, 0);
    CHECK_STR(cell, want);
    free(want);
    free(cell);
    /* A formula-looking text field is defused. */
    store_exec(db, "UPDATE finding SET message = '=HYPERLINK(\"http://x\")' WHERE id = 1");
    free(out);
    out = run_export(db, &o, &rc);
    cell = NULL;
    csv_records(out, 22, 1, 17, &cell);
    CHECK_STR(cell, "'=HYPERLINK(\"http://x\")");
    free(cell);
    free(out);
    sqlite3_close(db);
}

static void
test_export_md_escapes(void)
{
    sqlite3 *db = nasty();
    struct export_opts o = {.format = "md", .redact = 1};
    int rc;
    /* By default tickets are warning or worse: the note (finding 3) is left out. */
    char *out = run_export(db, &o, &rc);
    int seps0 = 0;
    for (const char *p = out; p && (p = strstr(p, EXPORT_MD_SEPARATOR)); p++)
        seps0++;
    CHECK_EQ_INT(seps0, 3);
    CHECK(out && !strstr(out, "shared-bank-conflicts"));
    free(out);
    o.all = 1;
    out = run_export(db, &o, &rc);
    CHECK(out && bytes_clean(out, 0));
    /* --all: five tickets, four separators. */
    int seps = 0;
    for (const char *p = out; (p = strstr(p, EXPORT_MD_SEPARATOR)); p++)
        seps++;
    CHECK_EQ_INT(seps, 4);
    /* Prose never carries live Markdown or HTML from the report. */
    CHECK(strstr(out, "[click](javascript") == NULL);
    CHECK(strstr(out, "<smaller>") == NULL);
    CHECK(strstr(out, "\\[click\\]\\(javascript\\:alert\\(1\\)\\)") != NULL);
    CHECK(strstr(out, "\\@team") != NULL);
    /* The forged line from the message stays on the message's line. */
    CHECK(strstr(out, "\nforged line") == NULL);
    /* Ticket sections. */
    CHECK(strstr(out, "## Evidence") && strstr(out, "## Remedy") && strstr(out, "## Reproduce"));
    /* the reference is the documents a reader can open, said plainly (it read "the course chapters on ...") */
    CHECK(strstr(out, "## Reference\n\nSee ") != NULL);
    CHECK(strstr(out, "course") == NULL);
    CHECK(strstr(out, "| sectors\\_per\\_request | 32 sectors | > 4 sectors | yes |") ||
          strstr(out, "| sectors\\_per\\_request | 32 sectors | \\> 4 sectors | yes |"));
    CHECK(strstr(out, "```sh\ngpuhier run ./app") != NULL);
    CHECK(strstr(out, "SYNTHETIC") != NULL);
    free(out);
    o.one = 1;
    out = run_export(db, &o, &rc);
    CHECK(strncmp(out, "# gpuhier findings: 5\n", 22) == 0);
    CHECK(strstr(out, EXPORT_MD_SEPARATOR) == NULL);
    free(out);
    sqlite3_close(db);
}

static void
test_export_md_dir(void)
{
    sqlite3 *db = nasty();
    char dir[] = "/tmp/gh-export-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    struct export_opts o = {.format = "md", .redact = 1, .all = 1};
    CHECK_EQ_INT(export_md_dir(db, &o, dir, NULL), 5);
    DIR *d = opendir(dir);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        files++;
        for (const char *p = e->d_name; *p; p++)
            CHECK(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p));
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
    CHECK_EQ_INT(files, 5);
    CHECK_EQ_INT(export_md_dir(db, &o, "/nonexistent/dir", NULL), -1);
    sqlite3_close(db);
}

static void
test_export_secrets(void)
{
    sqlite3 *db = nasty();
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        for (int redact = 1; redact >= 0; redact--) {
            struct export_opts o = {.format = formats[i], .redact = redact};
            int rc;
            char *out = run_export(db, &o, &rc);
            CHECK(out != NULL);
            /* The allowlist holds with or without redaction. */
            CHECK(strstr(out, "secret-home") == NULL);
            if (redact) {
                CHECK(strstr(out, EXR_SECRET_TOKEN) == NULL);
                CHECK(strstr(out, EXR_SECRET_PASSWORD) == NULL);
                CHECK(strstr(out, EXR_SECRET_URLPASS) == NULL);
                CHECK(strstr(out, EXR_SECRET_ENV) == NULL);
            }
            if (!strcmp(formats[i], "json")) {
                CHECK(strstr(out, "keep-me") != NULL); /* -p names no secret */
                CHECK(strstr(out, "--size=1024") != NULL);
                CHECK((strstr(out, EXR_SECRET_TOKEN) != NULL) == !redact);
                CHECK((strstr(out, EXR_SECRET_PASSWORD) != NULL) == !redact);
                CHECK((strstr(out, EXR_SECRET_ENV) != NULL) == !redact);
            }
            free(out);
        }
    }
    sqlite3_close(db);
}

static void
check_redact(const char *in, const char *want)
{
    char *got = export_redact_argv(in);
    CHECK_STR(got, want);
    free(got);
}

static void
test_export_redact_rules(void)
{
    check_redact("[\"./a\",\"--token=abc\"]", "[\"./a\",\"--token=***\"]");
    check_redact("[\"./a\",\"--api-key\",\"abc\",\"--n\",\"3\"]",
                 "[\"./a\",\"--api-key\",\"***\",\"--n\",\"3\"]");
    check_redact("[\"PASSWORD=x\",\"db_passwd:y\",\"--Secret=z\"]",
                 "[\"PASSWORD=***\",\"db_passwd:***\",\"--Secret=***\"]");
    check_redact("[\"-p\",\"secret\"]", "[\"-p\",\"secret\"]");
    check_redact("[\"--x=ghp_0123456789abcdefghijABCDEF\"]", "[\"--x=***\"]");
    check_redact("[\"glpat-0123456789abcdefghij\",\"AKIAABCDEFGHIJKLMNOP\"]", "[\"***\",\"***\"]");
    check_redact("[\"https://u:pw@h/x\"]", "[\"https://u:***@h/x\"]");
    check_redact("[\"Authorization: Bearer abc\"]", "[\"Authorization:***\"]");
    /* An option that names a secret but is followed by another option masks nothing. */
    check_redact("[\"--token\",\"--verbose\"]", "[\"--token\",\"--verbose\"]");
    check_redact("[\"--size=1024\",\"./in.dat\"]", "[\"--size=1024\",\"./in.dat\"]");
    check_redact("[]", "[]");
    /* The shapes and URLs as the scanners read them (the regexes they replaced). */
    check_redact("[\"t=eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4\"]", "[\"t=***\"]");
    check_redact("[\"eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0\"]",
                 "[\"eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0\"]");
    check_redact("[\"xoxb-0123456789-x\",\"ASIA0123456789ABCDEFGH\"]", "[\"***\",\"***GH\"]");
    check_redact("[\"1a://u:p@h\",\"12://u:p@h\",\"a://u@h:p@\"]",
                 "[\"1a://u:***@h\",\"12://u:p@h\",\"a://u@h:p@\"]");
    CHECK(export_redact_argv("not json") == NULL);
    CHECK(export_redact_argv(NULL) == NULL);
}

static int
count_findings(sqlite3 *db, struct export_opts o)
{
    o.format = "json";
    int rc;
    char *out = run_export(db, &o, &rc);
    json_t *j = rc == 0 ? json_loads(out, 0, NULL) : NULL;
    int n = j ? (int)json_array_size(json_object_get(j, "findings")) : -1;
    json_decref(j);
    free(out);
    return n;
}

static void
test_export_filters(void)
{
    sqlite3 *db = nasty();
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.redact = 1}), 5);
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.rule = "uncoalesced-global-load"}), 2);
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.kernel_regex = "^transpose"}), 2);
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.kernel_regex = "evil"}), 1);
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.min_severity = "warning"}), 4);
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.min_severity = "error"}), 1);
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.top = 2}), 2);
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.top = 1,
                                                         .min_severity = "warning",
                                                         .rule = "local-memory-traffic"}),
                 1);
    long long ids[] = {3, 4};
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.finding_ids = ids, .n_ids = 2}), 2);
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.kernel_regex = "(unclosed"}), -1);
    CHECK_EQ_INT(count_findings(db, (struct export_opts){.min_severity = "fatal"}), -1);
    struct export_opts bad = {.format = "pdf"};
    int rc;
    free(run_export(db, &bad, &rc));
    CHECK_EQ_INT(rc, -1);
    sqlite3_close(db);
}

static void
test_export_empty_reports(void)
{
    sqlite3 *dbs[2] = {make_report(":memory:", EXR_EMPTY), NULL};
    CHECK(store_create(":memory:", "synthetic", &dbs[1]) ==
          0); /* no run, no kernels, never analyzed */
    for (int d = 0; d < 2; d++) {
        for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
            struct export_opts o = {.format = formats[i], .redact = 1};
            int rc;
            char *out = run_export(dbs[d], &o, &rc);
            CHECK_EQ_INT(rc, 0);
            CHECK(out && bytes_clean(out, 1));
            if (!strcmp(formats[i], "json")) {
                json_t *j = json_loads(out, 0, NULL);
                CHECK(j && json_array_size(json_object_get(j, "findings")) == 0);
                json_decref(j);
            } else if (!strcmp(formats[i], "sarif")) {
                json_t *j = json_loads(out, 0, NULL);
                json_t *run = json_array_get(json_object_get(j, "runs"), 0);
                CHECK(json_is_array(json_object_get(run, "results")));
                CHECK_EQ_INT(json_array_size(json_object_get(run, "results")), 0);
                json_decref(j);
            } else if (!strcmp(formats[i], "junit")) {
                xmlDocPtr x = parse_xml(out);
                CHECK(x != NULL);
                CHECK_EQ_INT(count_elements(xmlDocGetRootElement(x), "testcase", "failure"), 0);
                xmlFreeDoc(x);
            } else if (!strcmp(formats[i], "csv")) {
                CHECK_EQ_INT(csv_records(out, 22, -1, -1, NULL), 1);
            } else if (!strcmp(formats[i], "html")) {
                CHECK(strstr(out, "No finding.") != NULL);
                CHECK(strstr(out, "</html>") != NULL);
            } else {
                CHECK_STR(out, "");
            }
            free(out);
        }
    }
    sqlite3_close(dbs[0]);
    sqlite3_close(dbs[1]);
}

static void
test_export_repro_command(void)
{
    sqlite3 *db = nasty();
    char *s = export_repro_command(db, 1);
    CHECK_STR(s, "gpuhier run ./app '--token=***' --password '***' -p keep-me "
                 "'https://user:***@example.com/x' "
                 "--size=1024 'it'\\''s a \"quoted\" arg'");
    free(s);
    /* The collector options in force come back as `gpuhier run` flags. */
    store_exec(db, "UPDATE run SET options = '{\"mode\":\"trace\",\"sample\":\"first:3\","
                   "\"kernel\":\"^scale|add\",\"fault\":\"x\"}', command_line = '[\"-weird\"]'");
    s = export_repro_command(db, 1);
    CHECK_STR(s, "gpuhier run --mode trace --sample first:3 --kernel '^scale|add' -- -weird");
    free(s);
    /* metric set, budget and cache control too, in the order of `gpuhier run --help` */
    store_exec(db, "UPDATE run SET options = '{\"metric_set\":\"none\",\"metrics\":\"a.sum\","
                   "\"profile_budget\":\"30\",\"cache_control\":\"all\"}', "
                   "command_line = '[\"./app\"]'");
    s = export_repro_command(db, 1);
    CHECK_STR(s, "gpuhier run --metrics a.sum --metric-set none --profile-budget 30 "
                 "--cache-control all ./app");
    free(s);
    sqlite3_close(db);
}

/* Numbers readers see are never in scientific notation (a TUI evidence line said "1.638e+04 blocks"). */
static void
test_export_number_format(void)
{
    char b[64];
    CHECK_STR(export_fmt_number(b, sizeof(b), 16384, 4), "16384");
    CHECK_STR(export_fmt_number(b, sizeof(b), 16384.4, 4), "16384");
    CHECK_STR(export_fmt_number(b, sizeof(b), 1.5e20, 4), "150000000000000000000");
    CHECK_STR(export_fmt_number(b, sizeof(b), 12.345, 3), "12.3");
    CHECK_STR(export_fmt_number(b, sizeof(b), 0.5, 4), "0.5");
    CHECK_STR(export_fmt_number(b, sizeof(b), 0.0000123456, 3), "0.0000123");
    CHECK_STR(export_fmt_number(b, sizeof(b), -2.5, 3), "-2.5");
    CHECK_STR(export_fmt_number(b, sizeof(b), 0, 3), "0");
    CHECK(strchr(export_fmt_number(b, sizeof(b), 1e-30, 3), 'e') == NULL);
    /* durations too: a run's 1,500 s of GPU time read "1.5e+03 s" in a ticket */
    CHECK_STR(ex_fmt_ns(b, sizeof(b), 1.5e12), "1500 s");
    CHECK_STR(ex_fmt_ns(b, sizeof(b), 123.456e9), "123 s");
    CHECK_STR(ex_fmt_ns(b, sizeof(b), 2.5e6), "2.5 ms");
    CHECK_STR(ex_fmt_ns(b, sizeof(b), 19400), "19.4 \xc2\xb5s");
    CHECK_STR(ex_fmt_ns(b, sizeof(b), 7), "7 ns");
    CHECK_STR(ex_fmt_ns(b, sizeof(b), 0.25), "0.25 ns");
    CHECK_STR(ex_fmt_ns(b, sizeof(b), -3.2e9), "-3.2 s");
    CHECK(strchr(ex_fmt_ns(b, sizeof(b), 8.64e16), 'e') == NULL);
}

/*
 * An evidence value as the text formats print it: a NULL column read
 * "unknown x" and "unknown %" in tickets (latency-not-hidden on a
 * configuration without a range profile, the H100 suite of 2026-12-06).
 */
static void
test_export_evidence_value(void)
{
    char b[128];
    struct ex_evidence num = {.value = 32, .has_value = 1, .unit = "sectors"};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &num), "32 sectors");
    /* a count of one in the singular; rates and percentages as they are */
    struct ex_evidence one = {.value = 1, .has_value = 1, .unit = "warps"};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &one), "1 warp");
    struct ex_evidence copy = {.value = 1, .has_value = 1, .unit = "copies"};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &copy), "1 copy");
    struct ex_evidence sms = {.value = 1, .has_value = 1, .unit = "SMs"};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &sms), "1 SM");
    struct ex_evidence rate = {.value = 1, .has_value = 1, .unit = "requests/inst"};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &rate), "1 requests/inst");
    struct ex_evidence ns = {.value = 1, .has_value = 1, .unit = "ns"};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &ns), "1 ns");
    struct ex_evidence two = {.value = 2, .has_value = 1, .unit = "warps"};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &two), "2 warps");
    struct ex_evidence bare = {.value = 1.5, .has_value = 1};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &bare), "1.5");
    struct ex_evidence text = {.value = NAN, .text_value = "partial last wave"};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &text), "partial last wave");
    struct ex_evidence null = {.value = NAN, .unit = "%"};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &null), "not measured");
    struct ex_evidence nullx = {.value = NAN, .unit = "x"};
    CHECK_STR(ex_fmt_evidence(b, sizeof(b), &nullx), "not measured");
}

/* Elements named `name` whose class attribute contains the word `cls` (NULL: any). */
static int
count_class(xmlNodePtr n, const char *name, const char *cls)
{
    int c = 0;
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (!strcmp((const char *)n->name, name)) {
            xmlChar *v = xmlGetProp(n, (const xmlChar *)"class");
            if (!cls) {
                c++;
            } else if (v) {
                size_t l = strlen(cls);
                for (const char *p = strstr((const char *)v, cls); p; p = strstr(p + 1, cls))
                    if ((p == (const char *)v || p[-1] == ' ') && (p[l] == ' ' || !p[l])) {
                        c++;
                        break;
                    }
            }
            xmlFree(v);
        }
        c += count_class(n->children, name, cls);
    }
    return c;
}

/* Any attribute named on* (an event handler) anywhere below n. */
static int
has_handler(xmlNodePtr n)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        for (xmlAttrPtr a = n->properties; a; a = a->next)
            if (!strncasecmp((const char *)a->name, "on", 2))
                return 1;
        if (has_handler(n->children))
            return 1;
    }
    return 0;
}

/*
 * The HTML page on the synthetic report with script-shaped names: it
 * parses, holds no script, image or event handler, shows the names as
 * text, and draws one roofline per device with one circle per placed
 * configuration, the hierarchy of every kernel and one lane per kind of
 * copy.
 */
static void
test_export_html_page(void)
{
    sqlite3 *db = make_report(":memory:", EXR_HTML);
    CHECK(db != NULL);
    struct export_opts o = {.format = "html", .redact = 1};
    int rc;
    char *out = run_export(db, &o, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(out && bytes_clean(out, 0));
    CHECK(strncmp(out, "<!DOCTYPE html>\n", 16) == 0);
    htmlDocPtr d = htmlReadMemory(out, (int)strlen(out), "page.html", "UTF-8",
                                  HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
    CHECK(d != NULL);
    xmlNodePtr root = xmlDocGetRootElement(d);
    CHECK_EQ_INT(count_class(root, "script", NULL), 0);
    CHECK_EQ_INT(count_class(root, "img", NULL), 0);
    CHECK_EQ_INT(count_class(root, "b", NULL), 0); /* a bound tier '<b>bold</b>' */
    CHECK(!has_handler(root));
    /* The names are there, as text. */
    xmlChar *all = xmlNodeGetContent(root);
    CHECK(strstr((const char *)all, "<script>alert(\"k\")</script><img src=x onerror") != NULL);
    CHECK(strstr((const char *)all, "<script>alert(2)</script>H200") != NULL);
    CHECK(strstr((const char *)all, "<script>alert(3)</script>") != NULL);
    CHECK(strstr((const char *)all, "\\u{202E}desrever") != NULL); /* bidi control escaped */
    xmlFree(all);
    CHECK(strstr(out, "\xe2\x80\xae") == NULL);
    /* Charts: a roofline per device, a circle per placed configuration. */
    CHECK_EQ_INT(count_class(root, "svg", "roofline"), 2);
    CHECK_EQ_INT(count_class(root, "circle", "pt"), EXR_HTML_POINTS_DEV0 + EXR_HTML_POINTS_DEV1);
    CHECK(strstr(out, "data-points=\"5\"") && strstr(out, "data-points=\"1\""));
    CHECK(strstr(out, "1 profiled configuration not placed") != NULL);
    /* the one with every pipe's counter, not the one with the tensor pipe's alone */
    CHECK_EQ_INT(count_class(root, "line", "pipe-roof"), 1);
    CHECK_EQ_INT(count_class(root, "line", "roof-copy"), 1); /* device 1 is calibrated */
    /* Every kernel's hierarchy: six tiers each. */
    CHECK_EQ_INT(count_class(root, "svg", "hierarchy"), 5);
    CHECK_EQ_INT(count_class(root, "g", "tier-row"), 30);
    /* Copies: four lanes; the two HtoD copies a pixel apart merge into one bar. */
    CHECK_EQ_INT(count_class(root, "rect", "lane"), 4);
    CHECK_EQ_INT(count_class(root, "rect", "c-HtoD"), 1);
    CHECK(strstr(out, "data-copies=\"5\"") != NULL);
    xmlFreeDoc(d);
    free(out);
    /* --kernel keeps the charts to the kernels it keeps: transpose's two configurations. */
    o.kernel_regex = "^transpose";
    out = run_export(db, &o, &rc);
    CHECK_EQ_INT(rc, 0);
    d = htmlReadMemory(out, (int)strlen(out), "page.html", "UTF-8",
                       HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
    CHECK(d != NULL);
    CHECK_EQ_INT(count_class(xmlDocGetRootElement(d), "circle", "pt"), 2);
    CHECK_EQ_INT(count_class(xmlDocGetRootElement(d), "svg", "hierarchy"), 1);
    xmlFreeDoc(d);
    free(out);
    sqlite3_close(db);
}

/*
 * Timestamps are untrusted: a report whose copies and launches span
 * the whole int64 range (the values of the fuzz artifact of 2026-12-01
 * that overflowed the HTML timeline's subtraction) still exports in
 * every format; the sanitizer build aborts on any overflow.
 */
static void
test_export_extreme_timestamps(void)
{
    sqlite3 *db = make_report(":memory:", EXR_HTML);
    CHECK(db != NULL);
    CHECK_EQ_INT(
        sqlite3_exec(db,
                     "UPDATE copy SET start_ns = -7489663287174669433,"
                     " end_ns = 1795977881264399167 WHERE id = 1;"
                     "UPDATE copy SET start_ns = 9223372036854775806,"
                     " end_ns = 9223372036854775807 WHERE id = 2;"
                     "UPDATE launch SET start_ns = -9223372036854775807 - 1,"
                     " end_ns = 9223372036854775807 WHERE id IN (SELECT min(id) FROM launch)",
                     NULL, NULL, NULL),
        SQLITE_OK);
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        struct export_opts o = {.format = formats[i], .redact = 1};
        int rc;
        char *out = run_export(db, &o, &rc);
        CHECK_EQ_INT(rc, 0);
        CHECK(out != NULL);
        if (!strcmp(formats[i], "html")) {
            CHECK(strstr(out, "</html>") != NULL);
            /* No NaN or infinite coordinate in the SVG. */
            CHECK(!strstr(out, "\"nan") && !strstr(out, "\"-nan") && !strstr(out, "\"inf") &&
                  !strstr(out, "\"-inf"));
        }
        free(out);
    }
    sqlite3_close(db);
}

/* The TUI's before/after views get the pairing `gpuhier diff` prints (t470 checks the text). */
static void
test_export_diff_compute(void)
{
    sqlite3 *b = make_report(":memory:", EXR_BEFORE), *a = make_report(":memory:", EXR_AFTER);
    struct export_diff_opts o = {0};
    struct export_diff_result r;
    CHECK_EQ_INT(export_diff_compute(b, a, &o, &r), 0);
    const struct export_diff_kernel *t = NULL;
    for (size_t i = 0; i < r.n_kernels; i++)
        if (!strcmp(r.kernels[i].name, "transpose_naive"))
            t = &r.kernels[i];
    CHECK(t != NULL);
    if (t) {
        CHECK_STR(t->status, "matched");
        CHECK(t->before_id >= 0 && t->after_id >= 0);
        CHECK(fabs(t->mean_change_pct + 90) < 1e-6);
        CHECK(fabs(t->before_floor_ratio - 12.5) < 1e-6 &&
              fabs(t->after_floor_ratio - 1.25) < 1e-6);
    }
    int fixed = 0, added = 0, kept = 0;
    for (size_t i = 0; i < r.n_findings; i++) {
        const struct export_diff_finding *f = &r.findings[i];
        fixed += !strcmp(f->status, "fixed");
        added += !strcmp(f->status, "new");
        kept += !strcmp(f->status, "unchanged");
        /* A side without the key has no finding id, no severity and no time. */
        CHECK((f->before_id < 0) == (f->severity_before == NULL));
        CHECK((f->after_id < 0) == (f->severity_after == NULL));
        CHECK((f->after_id < 0) == isnan(f->lost_after_ns));
        if (!strcmp(f->status, "fixed"))
            CHECK_STR(f->rule_id, "uncoalesced-global-load");
        if (!strcmp(f->status, "new"))
            CHECK_STR(f->kernel, "good_kernel");
    }
    CHECK_EQ_INT(fixed, 1);
    CHECK_EQ_INT(added, 1);
    CHECK_EQ_INT(kept, 3);
    export_diff_result_release(&r);
    CHECK(r.kernels == NULL && r.n_findings == 0);
    export_diff_result_release(&r);
    /* --map pairs a renamed kernel as the text diff does. */
    struct export_diff_map m = {"transpose_naive", "good_kernel"};
    o.map = &m;
    o.n_map = 1;
    CHECK_EQ_INT(export_diff_compute(b, a, &o, &r), 0);
    int paired = 0;
    for (size_t i = 0; i < r.n_kernels; i++)
        paired += !strcmp(r.kernels[i].name, "transpose_naive") &&
                  !strcmp(r.kernels[i].status, "matched");
    CHECK_EQ_INT(paired, 1);
    export_diff_result_release(&r);
    sqlite3_close(b);
    sqlite3_close(a);
}

static const struct check_test tests[] = {
    {"export_html_page", test_export_html_page},
    {"export_extreme_timestamps", test_export_extreme_timestamps},
    {"export_every_format_parses", test_export_every_format_parses},
    {"export_number_format", test_export_number_format},
    {"export_evidence_value", test_export_evidence_value},
    {"export_json_records", test_export_json_records},
    {"export_sarif_shape", test_export_sarif_shape},
    {"export_sarif_interpreter_and_missing_kernel",
     test_export_sarif_interpreter_and_missing_kernel},
    {"export_findings_unreadable", test_export_findings_unreadable},
    {"export_junit_cases", test_export_junit_cases},
    {"export_csv_fields", test_export_csv_fields},
    {"export_md_escapes", test_export_md_escapes},
    {"export_md_dir", test_export_md_dir},
    {"export_secrets", test_export_secrets},
    {"export_redact_rules", test_export_redact_rules},
    {"export_filters", test_export_filters},
    {"export_empty_reports", test_export_empty_reports},
    {"export_repro_command", test_export_repro_command},
    {"export_diff_compute", test_export_diff_compute},
};

int
main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--make-report")) {
        static const char *names[] = {"nasty", "before", "after", "empty", "html"};
        for (int v = 0; v < 5; v++) {
            if (strcmp(argv[3], names[v]))
                continue;
            sqlite3 *db = make_report(argv[2], (enum exr_variant)v);
            if (!db)
                return 1;
            /* A self-contained file, as the collector leaves it. */
            store_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE");
            sqlite3_close(db);
            return 0;
        }
        fprintf(stderr, "usage: test_export --make-report PATH nasty|before|after|empty|html\n");
        return 2;
    }
    /* 25,010 findings take seconds (more under ASan): an e2e test, not a unit test. */
    static const struct check_test slow[] = {
        {"export_sarif_truncates", test_export_sarif_truncates},
        {"export_sarif_compressed_cap", test_export_sarif_compressed_cap},
    };
    if (argc == 2 && !strcmp(argv[1], "--slow"))
        return check_run(slow, sizeof(slow) / sizeof(slow[0]), 1, argv);
    return check_run(tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
