/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer: the analyzer's unit tests and its golden-test runner.
 *
 *   test_analyzer [NAME]                       unit tests (NAME filters)
 *   test_analyzer golden FIXTURE RULE EXPECTED golden test of one rule (RULE: files, ','-separated)
 *   test_analyzer mkfixture FIXTURE OUT.db     the synthetic report of a fixture, in a file
 *
 * Golden tests build synthetic reports from tests/fixtures/rule-<id>.sql
 * (rule-base.sql before each report section, rule-tail.sql after; a
 * section starts at a "-- @report LABEL" line), analyze each with only
 * that rule, dump the verdict for every kernel (kernel short names are
 * the case ids, e.g. rule-l2-reread-miss-1.2) and compare with EXPECTED.
 * GPUHIER_UPDATE_GOLDEN=1 rewrites EXPECTED instead (then review the diff).
 */
#include "analyzer/analyzer.h"
#include "analyzer/analyzer_int.h" /* an_prepare(): temp.cfg, which the analysis drops */
#include "schema/store.h"
#include "tests/check.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *
src_dir(void)
{
    const char *s = getenv("GPUHIER_SOURCE_DIR");
    return s ? s : ".";
}

static char *
read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

static int
write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static int
exec_file(sqlite3 *db, const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/fixtures/%s", src_dir(), name);
    char *sql = read_text(path);
    if (!sql) {
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    int rc = store_exec(db, sql);
    if (rc)
        fprintf(stderr, "%s: %s\n", path, store_error());
    free(sql);
    return rc;
}

/* A synthetic report: base, `section` (SQL text), tail. */
static sqlite3 *
build_report(const char *section)
{
    sqlite3 *db = NULL;
    if (store_create(":memory:", "synthetic", &db))
        return NULL;
    if (exec_file(db, "rule-base.sql") || store_exec(db, section) ||
        exec_file(db, "rule-tail.sql")) {
        fprintf(stderr, "fixture: %s\n", store_error());
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

/* A fresh temp directory holding copies of the given rule files. */
static char *
rules_dir_with(const char *const *files, size_t n)
{
    char tmpl[] = "/tmp/gh-an-rules-XXXXXX";
    char *d = mkdtemp(tmpl);
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char *text = read_text(files[i]);
        const char *base = strrchr(files[i], '/');
        char dst[4096];
        snprintf(dst, sizeof(dst), "%s/%s", d, base ? base + 1 : files[i]);
        if (!text || write_text(dst, text))
            return NULL;
        free(text);
    }
    return strdup(d);
}

static void
rm_dir(const char *d)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", d);
}

/* ------------------------------------------------------------------ */
/* Golden dump                                                          */
/* ------------------------------------------------------------------ */

struct buf {
    char *s;
    size_t n, cap;
};

static void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void
bprintf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    char tmp[4096];
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(tmp))
        n = sizeof(tmp) - 1;
    if (b->n + (size_t)n + 1 > b->cap) {
        b->cap = 2 * (b->n + (size_t)n + 1);
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, tmp, (size_t)n + 1);
    b->n += (size_t)n;
}

static const char *
txt(sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    return s ? s : "NULL";
}

/*
 * A sentence a user reads must not show a NULL ("n/a of reads are marked
 * evict-first") or a number in scientific notation ("1.638e+04 blocks").
 * Returns 1 when `s` does.
 */
static int
bad_text(const char *s)
{
    if (!s)
        return 0;
    if (strstr(s, "n/a"))
        return 1;
    for (const char *p = s; *p; p++)
        if ((*p == 'e' || *p == 'E') && p > s && isdigit((unsigned char)p[-1]) &&
            (p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2]))
            return 1;
    return 0;
}

static int golden_bad_text;

static void
dump(sqlite3 *db, struct buf *b, const char *label)
{
    sqlite3_stmt *st = NULL, *ev = NULL;
    bprintf(b, "@report %s\n", label);
    store_prepare(db, "SELECT rule_id, status, findings, note FROM rule_run ORDER BY rule_id", &st);
    while (sqlite3_step(st) == SQLITE_ROW)
        bprintf(b, "rule %s: %s, %d finding(s)%s%s\n", txt(st, 0), txt(st, 1),
                sqlite3_column_int(st, 2), sqlite3_column_type(st, 3) == SQLITE_NULL ? "" : "; ",
                sqlite3_column_type(st, 3) == SQLITE_NULL ? "" : txt(st, 3));
    sqlite3_finalize(st);
    store_prepare(db,
                  "SELECT finding_id, name, value, text_value FROM finding_evidence WHERE "
                  "finding_id = ? ORDER BY seq",
                  &ev);
    store_prepare(db,
                  "SELECT COALESCE(k.short_name, '(run)'), f.id, f.severity, "
                  "f.time_lost_ns_per_launch, f.time_lost_ns,"
                  " f.time_lost_raw_ns, f.share_pct, f.launches, f.message"
                  " FROM kernel k LEFT JOIN finding f ON f.kernel_id = k.id"
                  " UNION ALL SELECT '(run)', f.id, f.severity, f.time_lost_ns_per_launch, "
                  "f.time_lost_ns, f.time_lost_raw_ns,"
                  " f.share_pct, f.launches, f.message FROM finding f WHERE f.kernel_id IS NULL"
                  " ORDER BY 1, 2",
                  &st);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
            bprintf(b, "%s: silent\n", txt(st, 0));
            continue;
        }
        bprintf(
            b,
            "%s: fires %s per_launch_ns=%.6g total_ns=%.6g raw_ns=%.6g share=%.4g%% launches=%d\n",
            txt(st, 0), txt(st, 2), sqlite3_column_double(st, 3), sqlite3_column_double(st, 4),
            sqlite3_column_double(st, 5), sqlite3_column_double(st, 6), sqlite3_column_int(st, 7));
        bprintf(b, "    message: %s\n", txt(st, 8));
        if (bad_text((const char *)sqlite3_column_text(st, 8))) {
            fprintf(stderr, "%s: message shows n/a or scientific notation: %s\n", label,
                    txt(st, 8));
            golden_bad_text = 1;
        }
        sqlite3_reset(ev);
        sqlite3_bind_int64(ev, 1, sqlite3_column_int64(st, 1));
        while (sqlite3_step(ev) == SQLITE_ROW) {
            if (sqlite3_column_type(ev, 2) != SQLITE_NULL)
                bprintf(b, "    %s = %.6g\n", txt(ev, 1), sqlite3_column_double(ev, 2));
            else
                bprintf(b, "    %s = %s\n", txt(ev, 1), txt(ev, 3));
        }
    }
    sqlite3_finalize(st);
    sqlite3_finalize(ev);
}

static int
golden(const char *fixture, const char *rule, const char *expected)
{
    int ret = 1;
    struct buf out = {0};
    char *text = read_text(fixture), *dir = NULL, *want = NULL;
    /* RULE may list several rule files separated by commas (a fixture judged by a rule family). */
    const char *files[16];
    size_t n_files = 0;
    char *rules = strdup(rule), *save = NULL;
    for (char *r = strtok_r(rules, ",", &save); r && n_files < 16; r = strtok_r(NULL, ",", &save))
        files[n_files++] = r;
    if (!text) {
        fprintf(stderr, "cannot read fixture %s\n", fixture);
        free(rules);
        return 1;
    }
    if (!(dir = rules_dir_with(files, n_files))) {
        fprintf(stderr, "cannot copy %s\n", rule);
        goto out;
    }
    struct analyzer_opts o = {.rules_dir = dir};
    const char *base = strrchr(fixture, '/') ? strrchr(fixture, '/') + 1 : fixture;
    /* Split into report sections at "-- @report LABEL" lines. */
    char *p = text;
    int sections = 0;
    while (p && *p) {
        char label[256];
        snprintf(label, sizeof(label), "%.*s", (int)(strlen(base) - 4), base);
        char *start = p;
        if (!strncmp(p, "-- @report ", 11)) {
            size_t n = strcspn(p + 11, "\n");
            snprintf(label, sizeof(label), "%.*s", (int)n, p + 11);
            start = p + 11 + n;
        }
        char *next = strstr(start, "\n-- @report ");
        if (next) {
            *next = '\0';
            p = next + 1;
        } else {
            p = NULL;
        }
        if (!sections && !strstr(start, "INSERT") && next)
            continue; /* a header before the first section */
        sections++;
        sqlite3 *db = build_report(start);
        if (!db)
            goto out;
        if (analyzer_analyze(db, &o)) {
            fprintf(stderr, "%s: analyze: %s\n", label, analyzer_error());
            sqlite3_close(db);
            goto out;
        }
        dump(db, &out, label);
        sqlite3_close(db);
    }
    if (golden_bad_text)
        goto out;
    if (getenv("GPUHIER_UPDATE_GOLDEN")) {
        ret = write_text(expected, out.s ? out.s : "") ? 1 : 0;
        printf("wrote %s\n", expected);
        goto out;
    }
    want = read_text(expected);
    if (!want) {
        fprintf(stderr, "cannot read %s (GPUHIER_UPDATE_GOLDEN=1 creates it)\n", expected);
        fputs(out.s ? out.s : "", stderr);
        goto out;
    }
    if (strcmp(want, out.s ? out.s : "")) {
        fprintf(stderr, "golden mismatch for %s\n--- expected\n%s--- got\n%s", fixture, want,
                out.s ? out.s : "");
        goto out;
    }
    printf("ok   %s (%d report%s)\n", base, sections, sections == 1 ? "" : "s");
    ret = 0;
out:
    if (dir) {
        rm_dir(dir);
        free(dir);
    }
    free(text);
    free(want);
    free(rules);
    free(out.s);
    return ret;
}

/* ------------------------------------------------------------------ */
/* Unit tests                                                           */
/* ------------------------------------------------------------------ */

/* A kernel far from its floor with poor coalescing and exposed latency. */
static const char sample_report[] =
    "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z6stridePf', 'stride'), (2, "
    "'_Z4idlev', 'idle');\n"
    "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, "
    "block_z,\n"
    "  dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
    "  (1, 1, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32), (2, 2, 0, 64, 1, 1, 128, 1, 1, 0, 0, 16);\n"
    "INSERT INTO fx_launch VALUES (1, 10, 100000), (2, 5, 20000);\n"
    "INSERT INTO fx_metric VALUES\n"
    "  (1, 'dram__bytes_read.sum', 16e6), (1, 'dram__bytes_write.sum', 4e6),\n"
    "  (1, 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 4e6),\n"
    "  (1, 'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', 125000),\n"
    "  (1, 'smsp__sass_data_bytes_mem_global_op_ld.sum', 16e6),\n"
    "  (1, 'smsp__sass_data_bytes_mem_global_op_st.sum', 4e6);\n";

static sqlite3 *
sample(void)
{
    return build_report(sample_report);
}

static char *
default_rules(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/rules", src_dir());
    return strdup(path);
}

/* analyzer_analyze() with the shipped rules: 0 on success. */
static int
analyze_default(sqlite3 *db)
{
    char *d = default_rules();
    struct analyzer_opts o = {.rules_dir = d};
    int rc = analyzer_analyze(db, &o);
    free(d);
    return rc;
}

static long long
count(sqlite3 *db, const char *sql)
{
    return store_query_int(db, sql, -1);
}

static double
real(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    double v = NAN;
    if (store_prepare(db, sql, &st) == 0 && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

static char *
tmpdir(void)
{
    char tmpl[] = "/tmp/gh-an-test-XXXXXX";
    return strdup(mkdtemp(tmpl));
}

static void
put_rule(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    CHECK(write_text(path, text) == 0);
}

static const char toy_rule[] = "# a user rule: fires on every configuration slower than :min_ns\n"
                               "id: toy-slow\n"
                               "title: Slow configuration\n"
                               "tier: dram\n"
                               "doc: test\n"
                               "rationale: test rule\n"
                               "threshold: min_ns = 50000 ns | test value\n"
                               "query:\n"
                               "  SELECT config_id, mean_ns, mean_ns - :min_ns AS time_lost_ns\n"
                               "  FROM cfg WHERE mean_ns > :min_ns\n"
                               "message: mean {mean_ns:ns} above {min_ns:ns}\n"
                               "remedy: be faster\n"
                               "evidence: mean_ns ns > min_ns\n";

/* a rule that fires on every configuration and costs nothing (block-shape's kind of note) */
static const char toy_free_rule[] = "id: toy-free\n"
                                    "title: Free note\n"
                                    "tier: registers\n"
                                    "doc: test\n"
                                    "rationale: test rule\n"
                                    "query:\n"
                                    "  SELECT config_id, 0 AS time_lost_ns FROM cfg\n"
                                    "message: costs nothing\n"
                                    "remedy: none\n";

static void
test_analyzer_user_rule_fires(void)
{
    sqlite3 *db = sample();
    char *d = tmpdir();
    put_rule(d, "toy-slow.rule", toy_rule);
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(db && analyzer_analyze(db, &o) == 0);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id = 'toy-slow'"), 1);
    CHECK_EQ_INT(count(db, "SELECT kernel_id FROM finding WHERE rule_id = 'toy-slow'"), 1);
    CHECK_NEAR(real(db, "SELECT time_lost_ns_per_launch FROM finding"), 50000, 1e-6);
    /* 10 traced launches + the profiled one, counted at the traced mean. */
    CHECK_NEAR(real(db, "SELECT time_lost_ns FROM finding"), 550000, 1e-3);
    CHECK_NEAR(real(db, "SELECT threshold FROM finding_evidence WHERE name = 'mean_ns'"), 50000,
               1e-9);
    sqlite3_close(db);
    rm_dir(d);
    free(d);
}

/*
 * No report open (a caller whose open failed): one clear error, not a crash
 * (it crashed inside SQLite, and took this test program with it, before
 * 2026-12-05).
 */
static void
test_analyzer_no_report(void)
{
    struct analyzer_opts o = {0};
    CHECK(analyzer_analyze(NULL, &o) != 0);
    CHECK(strstr(analyzer_error(), "no report is open") != NULL);
}

static void
test_analyzer_threshold_edit_changes_findings(void)
{
    sqlite3 *db = sample();
    char *d = tmpdir();
    put_rule(d, "toy-slow.rule", toy_rule);
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(analyzer_analyze(db, &o) == 0);
    char *v1 = analyzer_ruleset_version(&o);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding"), 1);
    /* Lower the threshold below the idle kernel's 20 us: now both fire. */
    char *edited = strdup(toy_rule);
    char *p = strstr(edited, "50000 ns");
    memcpy(p, "10000 ns", 8);
    put_rule(d, "toy-slow.rule", edited);
    CHECK(analyzer_analyze(db, &o) == 0);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding"), 2);
    char *v2 = analyzer_ruleset_version(&o);
    CHECK(v1 && v2 && strcmp(v1, v2));
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM analysis"), 1);
    free(v1);
    free(v2);
    free(edited);
    sqlite3_close(db);
    rm_dir(d);
    free(d);
}

static void
test_analyzer_user_rule_cannot_write(void)
{
    const char *bad[] = {
        "  INSERT INTO kernel (mangled_name) VALUES ('x') RETURNING id AS config_id, 0 AS "
        "time_lost_ns\n",
        "  SELECT 1 AS config_id, 0 AS time_lost_ns; DELETE FROM kernel\n",
        "  ATTACH DATABASE '/tmp/gh-an-evil.db' AS evil\n",
        "  PRAGMA query_only = 0\n",
        "  SELECT config_id, 0 AS time_lost_ns FROM cfg WHERE (SELECT COUNT(*) FROM "
        "pragma_table_info('kernel')) > 0\n",
        "  WITH x AS (SELECT 1) DELETE FROM kernel\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        sqlite3 *db = sample();
        char *d = tmpdir();
        char text[2048];
        snprintf(text, sizeof(text),
                 "id: evil\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nquery:\n%smessage: "
                 "m\nremedy: r\n",
                 bad[i]);
        put_rule(d, "evil.rule", text);
        long long kernels = count(db, "SELECT COUNT(*) FROM kernel");
        struct analyzer_opts o = {.rules_dir = d};
        CHECK(analyzer_analyze(db, &o) == -1);
        CHECK_EQ_INT(analyzer_failure(), ANALYZER_ERR_RULES);
        CHECK(strstr(analyzer_error(), "evil.rule:6:") != NULL);
        CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM kernel"), kernels);
        CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM pragma_database_list"),
                     2); /* main + temp, no 'evil' */
        /* The connection is writable again afterwards (the guard is lifted). */
        CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding"), 0);
        CHECK(store_exec(db, "DELETE FROM rule_run") == 0);
        sqlite3_close(db);
        rm_dir(d);
        free(d);
    }
    CHECK(access("/tmp/gh-an-evil.db", F_OK) != 0);
}

static void
test_analyzer_rule_errors_name_file_and_line(void)
{
    struct {
        const char *text, *want;
    } cases[] = {
        {"id: x\ntitle: t\nbogus: 1\n", "x.rule:3: unknown key 'bogus'"},
        {"id: x\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nthreshold: a = abc | why\nquery: "
         "SELECT 1\nmessage: m\nremedy: r\n",
         "x.rule:6: threshold 'a': 'abc' is not a number"},
        {"id: x\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nthreshold: a = 1\nquery: SELECT "
         "1\nmessage: m\nremedy: r\n",
         "x.rule:6: threshold 'a' has no justification"},
        {"id: x\ntitle: t\ntier: cache\ndoc: d\nrationale: r\nquery: SELECT 1\nmessage: m\nremedy: "
         "r\n",
         "tier 'cache'"},
        {"id: y\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nquery: SELECT 1\nmessage: m\nremedy: "
         "r\n",
         "does not match the file name"},
        {"id: x\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nquery: SELECT 1\nmessage: "
         "{a:zz}\nremedy: r\n",
         "x.rule:7: message: unknown format 'zz'"},
        {"id: x\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nquery: SELECT 1\nremedy: r\n",
         "missing 'message:'"},
        {"  indented\n", "x.rule:1: indented line continues nothing"},
        {"id: x\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nevidence: a > nope\nquery: SELECT "
         "1\nmessage: m\nremedy: r\n",
         "x.rule:6: evidence: threshold 'nope' is not declared"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *d = tmpdir();
        put_rule(d, "x.rule", cases[i].text);
        struct ruleset *rs = ruleset_load(d);
        CHECK(rs == NULL);
        CHECK_EQ_INT(analyzer_failure(), ANALYZER_ERR_RULES);
        if (!strstr(analyzer_error(), cases[i].want))
            fprintf(stderr, "case %zu: got '%s', want '%s'\n", i, analyzer_error(), cases[i].want);
        CHECK(strstr(analyzer_error(), cases[i].want) != NULL);
        ruleset_free(rs);
        rm_dir(d);
        free(d);
    }
    /* Query errors are found when the rule runs, still at file:line. */
    sqlite3 *db = sample();
    char *d = tmpdir();
    put_rule(d, "q.rule",
             "id: q\ntitle: t\ntier: dram\ndoc: d\nrationale: r\n\nquery:\n  SELECT nope FROM "
             "cfg\nmessage: m\nremedy: r\n");
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(analyzer_analyze(db, &o) == -1);
    CHECK(strstr(analyzer_error(), "q.rule:7: query: no such column: nope") != NULL);
    put_rule(d, "q.rule",
             "id: q\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nquery:\n  SELECT config_id, 0 AS "
             "time_lost_ns FROM cfg WHERE mean_ns > :nope\nmessage: m\nremedy: r\n");
    CHECK(analyzer_analyze(db, &o) == -1);
    CHECK(strstr(analyzer_error(),
                 "q.rule:6: query parameter ':nope' is not a declared threshold") != NULL);
    put_rule(d, "q.rule",
             "id: q\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nquery:\n  SELECT config_id, 0 AS "
             "time_lost_ns FROM cfg\nmessage: {nope}\nremedy: r\n");
    CHECK(analyzer_analyze(db, &o) == -1);
    CHECK(strstr(analyzer_error(), "q.rule:8: message uses {nope}") != NULL);
    /* A failed analysis leaves no partial results. */
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM kernel_summary"), 0);
    sqlite3_close(db);
    rm_dir(d);
    free(d);
}

static void
test_analyzer_default_rules_load(void)
{
    char *d = default_rules();
    struct ruleset *rs = ruleset_load(d);
    CHECK(rs != NULL);
    if (!rs) {
        fprintf(stderr, "%s\n", analyzer_error());
        free(d);
        return;
    }
    const char *ids[] = {"local-memory-traffic",
                         "occupancy-registers",
                         "shared-bank-conflicts",
                         "occupancy-shared-memory",
                         "smem-optin-48k",
                         "reread-not-staged",
                         "stream-evicts-reused",
                         "l2-reread-miss",
                         "uncoalesced-global-load",
                         "uncoalesced-global-store",
                         "scalar-access",
                         "floor-distance",
                         "latency-not-hidden",
                         "block-shape",
                         "pageable-copy",
                         "transfer-exceeds-work",
                         "round-trip-copy",
                         "small-copies",
                         "host-memory-access",
                         "constant-divergent",
                         "atomic-contention",
                         "idle-kernel",
                         "host-pointer-argument",
                         "managed-migration",
                         "uncoalesced-global-atomic"};
    CHECK_EQ_INT(rs->n, sizeof(ids) / sizeof(ids[0]));
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        const struct rule *r = ruleset_find(rs, ids[i]);
        CHECK(r != NULL);
        /* Every threshold says where it comes from (STYLE.md §6.7). */
        for (size_t j = 0; r && j < r->n_thresholds; j++)
            CHECK(r->thresholds[j].why && strlen(r->thresholds[j].why) > 10);
    }
    CHECK_EQ_INT(strlen(rs->version), 16);
    ruleset_free(rs);
    free(d);
}

static void
test_analyzer_summary_for_every_kernel(void)
{
    sqlite3 *db =
        build_report("INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, 'a', 'a'), (2, "
                     "'b', 'b'), (3, 'c', 'c');\n"
                     "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, "
                     "block_x, block_y, block_z,\n"
                     "  dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
                     "  (1, 1, 0, 1024, 1, 1, 256, 1, 1, 0, 0, 32), (2, 1, 0, 2048, 1, 1, 256, 1, "
                     "1, 0, 0, 32),\n"
                     "  (3, 2, 0, 8, 1, 1, 64, 1, 1, 0, 0, 32);\n"
                     "INSERT INTO fx_launch VALUES (1, 3, 10000), (2, 1, 40000), (3, 4, 5000);\n"
                     "INSERT INTO fx_metric VALUES (1, 'dram__bytes_read.sum', 8e6), (1, "
                     "'dram__bytes_write.sum', 4e6),\n"
                     "  (1, 'smsp__sass_data_bytes_mem_global_op_ld.sum', 8e6), (1, "
                     "'smsp__sass_data_bytes_mem_global_op_st.sum', 8e6);\n"
                     /* kernel 3: a launch with no configuration row at all */
                     "INSERT INTO launch (kernel_id, config_id, device_id, start_ns, end_ns, "
                     "profiled) VALUES (3, NULL, 0, 10, 2010, 0);\n");
    CHECK(analyze_default(db) == 0);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM kernel_summary WHERE config_id IS NULL"), 3);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM kernel_summary WHERE config_id IS NOT NULL"), 3);
    /* Mean from traced launches only: the profiled launch (10x, under replay) is left out. */
    CHECK_NEAR(real(db, "SELECT mean_ns FROM kernel_summary WHERE config_id = 1"), 10000, 1e-6);
    CHECK_EQ_INT(count(db, "SELECT launches FROM kernel_summary WHERE config_id = 1"), 4);
    CHECK_EQ_INT(count(db, "SELECT profiled_launches FROM kernel_summary WHERE config_id = 1"), 1);
    /* Useful bytes = min(requested 16 MB, DRAM 12 MB); floor at 4.8e12 and 4.0e12 B/s plus the 2 us of any kernel. */
    CHECK_NEAR(real(db, "SELECT useful_bytes FROM kernel_summary WHERE config_id = 1"), 12e6, 1e-3);
    CHECK_NEAR(real(db, "SELECT floor_ns FROM kernel_summary WHERE config_id = 1"), 2500 + 2000,
               1e-6);
    CHECK_NEAR(real(db, "SELECT floor_measured_ns FROM kernel_summary WHERE config_id = 1"),
               3000 + 2000, 1e-6);
    CHECK_NEAR(real(db, "SELECT floor_ratio FROM kernel_summary WHERE config_id = 1"),
               10000.0 / 4500, 1e-9);
    CHECK(isnan(real(db, "SELECT floor_ns FROM kernel_summary WHERE config_id = 2")));
    /* Kernel 1 overall: 3x10us + the profiled one at 10us + 1x40us = 5 launches, 80 us. */
    CHECK_EQ_INT(
        count(db, "SELECT launches FROM kernel_summary WHERE kernel_id = 1 AND config_id IS NULL"),
        5);
    CHECK_NEAR(
        real(db, "SELECT total_ns FROM kernel_summary WHERE kernel_id = 1 AND config_id IS NULL"),
        80000, 1);
    /* The kernel floor ratio uses only the configurations that have a floor. */
    CHECK_NEAR(
        real(db,
             "SELECT floor_ratio FROM kernel_summary WHERE kernel_id = 1 AND config_id IS NULL"),
        10000.0 / 4500, 1e-9);
    CHECK_NEAR(
        real(db, "SELECT mean_ns FROM kernel_summary WHERE kernel_id = 3 AND config_id IS NULL"),
        2000, 1e-9);
    /* Shares add up to the kernels' part of the run's GPU time (no copies here). */
    CHECK_NEAR(real(db, "SELECT SUM(share_pct) FROM kernel_summary WHERE config_id IS NULL"), 100,
               1e-6);
    CHECK_EQ_INT(
        count(db,
              "SELECT COUNT(*) FROM kernel_summary WHERE bound_tier IS NOT NULL AND config_id = 1"),
        1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM analysis"), 1);
    sqlite3_close(db);
}

/*
 * A kernel's row gives its theoretical and achieved occupancy of the same
 * configurations: achieved comes only from profiled ones, so theoretical
 * does too when any has achieved. A JAX report's XLA GEMM read 59.4 %
 * theoretical (all 8 configurations) beside 78.6 % achieved (the one
 * profiled, at 100 % theoretical). Here configuration 1 (32 registers,
 * 100 % theoretical) is profiled at 80 % achieved, configuration 2 (128
 * registers, 25 %) is not.
 */
static void
test_analyzer_kernel_occupancy_same_configs(void)
{
    sqlite3 *db = build_report(
        "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, 'a', 'a');\n"
        "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, "
        "block_z,\n  dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
        "  (1, 1, 0, 1024, 1, 1, 256, 1, 1, 0, 0, 32), (2, 1, 0, 2048, 1, 1, 256, 1, 1, 0, 0, "
        "128);\n"
        "INSERT INTO fx_launch VALUES (1, 2, 10000), (2, 6, 10000);\n"
        "INSERT INTO fx_metric VALUES (1, 'sm__warps_active.avg.pct_of_peak_sustained_active', "
        "80);\n");
    CHECK(analyze_default(db) == 0);
    double t1 =
        real(db, "SELECT theoretical_occupancy_pct FROM kernel_summary WHERE config_id = 1");
    double t2 =
        real(db, "SELECT theoretical_occupancy_pct FROM kernel_summary WHERE config_id = 2");
    CHECK(t1 > t2); /* the two configurations differ */
    CHECK_NEAR(real(db, "SELECT achieved_occupancy_pct FROM kernel_summary WHERE kernel_id = 1 AND "
                        "config_id IS NULL"),
               80, 1e-9);
    CHECK_NEAR(real(db, "SELECT theoretical_occupancy_pct FROM kernel_summary WHERE kernel_id = 1 "
                        "AND config_id IS NULL"),
               t1, 1e-9);
    CHECK_EQ_INT(count(db,
                       "SELECT (SELECT occupancy_limiter FROM kernel_summary WHERE kernel_id = 1 "
                       "AND config_id IS NULL) IS (SELECT occupancy_limiter FROM kernel_summary "
                       "WHERE config_id = 1)"),
                 1);
    sqlite3_close(db);
}

/*
 * The collector leaves a profiled launch's start_ns/end_ns NULL: a
 * configuration whose only launch was profiled takes its duration from
 * profile.duration_ns (the replayed gpu__time_duration).
 */
static void
test_analyzer_profiled_only_config_timed(void)
{
    sqlite3 *db =
        build_report("INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, 'a', 'a'), (2, "
                     "'fill', 'fill');\n"
                     "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, "
                     "block_x, block_y, block_z,\n"
                     "  dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
                     "  (1, 1, 0, 1024, 1, 1, 256, 1, 1, 0, 0, 32), (2, 2, 0, 1024, 1, 1, 256, 1, "
                     "1, 0, 0, 32);\n"
                     "INSERT INTO fx_launch VALUES (1, 3, 10000);\n"
                     "INSERT INTO launch (kernel_id, config_id, device_id, start_ns, end_ns, "
                     "profiled) VALUES (2, 2, 0, NULL, NULL, 1);\n");
    CHECK(db != NULL);
    if (!db)
        return;
    CHECK(store_exec(db, "UPDATE profile SET duration_ns = 7000 WHERE launch_id ="
                         " (SELECT id FROM launch WHERE config_id = 2)") == 0);
    CHECK(analyze_default(db) == 0);
    CHECK_NEAR(real(db, "SELECT mean_ns FROM kernel_summary WHERE config_id = 2"), 7000, 1e-6);
    CHECK_NEAR(real(db, "SELECT total_ns FROM kernel_summary WHERE config_id = 2"), 7000, 1e-6);
    /* Configuration 1 (three traced launches) keeps its traced mean. */
    CHECK_NEAR(real(db, "SELECT mean_ns FROM kernel_summary WHERE config_id = 1"), 10000, 1e-6);
    CHECK_NEAR(real(db, "SELECT run_gpu_ns FROM analysis"), 3 * 10000 + 7000, 1);
    sqlite3_close(db);
}

static const char capped_rule_a[] =
    "id: cap-a\ntitle: a\ntier: dram\ndoc: d\nrationale: r\ncapping: normal\nestimate: exact\n"
    "query: SELECT config_id, 0.8 * mean_ns AS time_lost_ns FROM cfg WHERE config_id = 1\nmessage: "
    "m\nremedy: r\n";
static const char capped_rule_b[] = "id: cap-b\ntitle: b\ntier: dram\ndoc: d\nrationale: r\n"
                                    "query: SELECT config_id, 0.5 * mean_ns AS time_lost_ns FROM "
                                    "cfg WHERE config_id = 1\nmessage: m\nremedy: r\n";
static const char capped_rule_r[] =
    "id: cap-r\ntitle: r\ntier: dram\ndoc: d\nrationale: r\ncapping: residual\n"
    "query: SELECT config_id, gap_ns AS time_lost_ns FROM cfg WHERE config_id = 1\nmessage: "
    "m\nremedy: r\n";

static void
test_analyzer_capping_and_severity(void)
{
    sqlite3 *db = sample();
    char *d = tmpdir();
    put_rule(d, "cap-a.rule", capped_rule_a);
    put_rule(d, "cap-b.rule", capped_rule_b);
    put_rule(d, "cap-r.rule", capped_rule_r);
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(analyzer_analyze(db, &o) == 0);
    /* mean 100 us; useful bytes min(requested 20 MB, DRAM 20 MB) -> floor 20e6 / 4e12 B/s + 2 us = 7 us. */
    double gap =
        real(db, "SELECT 100000 - floor_measured_ns FROM kernel_summary WHERE config_id = 1");
    CHECK_NEAR(gap, 93000, 1e-6);
    CHECK_NEAR(real(db, "SELECT time_lost_ns_per_launch FROM finding WHERE rule_id = 'cap-a'"),
               80000, 1e-6);
    CHECK_NEAR(real(db, "SELECT time_lost_ns_per_launch FROM finding WHERE rule_id = 'cap-b'"),
               13000, 1e-6);
    CHECK_NEAR(real(db, "SELECT time_lost_raw_ns FROM finding WHERE rule_id = 'cap-b'"), 550000,
               1e-3);
    CHECK_NEAR(real(db, "SELECT time_lost_ns_per_launch FROM finding WHERE rule_id = 'cap-r'"), 0,
               1e-9);
    CHECK_NEAR(real(db, "SELECT SUM(time_lost_ns_per_launch) FROM finding"), gap, 1e-6);
    /* Run time: 10 x 100 us + the profiled one at the mean (1.1 ms) + kernel 2 (100 us) = 1.2 ms. */
    CHECK_NEAR(real(db, "SELECT run_gpu_ns FROM analysis"), 1200000, 1);
    CHECK_EQ_INT(count(db, "SELECT rank FROM finding WHERE rule_id = 'cap-a'"), 1);
    sqlite3_stmt *st = NULL;
    store_prepare(db, "SELECT severity, share_pct FROM finding WHERE rule_id = 'cap-a'", &st);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0), "error"); /* 880 us of 1.2 ms */
    sqlite3_finalize(st);
    store_prepare(db, "SELECT severity FROM finding WHERE rule_id = 'cap-r'", &st);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0), "note");
    sqlite3_finalize(st);
    CHECK_NEAR(real(db, "SELECT time_lost_ns FROM kernel_summary WHERE config_id = 1"),
               10 * 93000 + 93000, 1e-3);
    sqlite3_close(db);
    rm_dir(d);
    free(d);
}

/*
 * The severity scale (docs/severity.md): the same estimate, 880 us of the
 * 1.2 ms of GPU time (73 %), is an error only when it is exact and a
 * hundredth of the program's wall time; a model or a bound is a warning;
 * below a thousandth of the wall time it is a note; no time is a note.
 */
static const char sev_rule[] =
    "id: sev\ntitle: s\ntier: dram\ndoc: d\nrationale: r\nestimate: %s\n"
    "query: SELECT config_id, 0.8 * mean_ns AS time_lost_ns FROM cfg WHERE config_id = 1\n"
    "message: m\nremedy: r\n";
static const char sev_zero_rule[] =
    "id: sev-zero\ntitle: z\ntier: dram\ndoc: d\nrationale: r\nestimate: exact\n"
    "query: SELECT config_id, 0 AS time_lost_ns FROM cfg WHERE config_id = 1\n"
    "message: m\nremedy: r\n";

static const char *
severity_with(const char *estimate, long long wall_ns, long long overhead_ns)
{
    static char sev[32];
    sqlite3 *db = sample();
    char *d = tmpdir();
    char text[512];
    snprintf(text, sizeof(text), sev_rule, estimate);
    put_rule(d, "sev.rule", text);
    put_rule(d, "sev-zero.rule", sev_zero_rule);
    if (wall_ns > 0) {
        char sql[256];
        snprintf(sql, sizeof(sql),
                 "UPDATE run SET start_ns = 1000, end_ns = 1000 + %lld;"
                 " UPDATE profile SET overhead_ns = %lld",
                 wall_ns, overhead_ns);
        CHECK(store_exec(db, sql) == 0);
    }
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(analyzer_analyze(db, &o) == 0);
    sqlite3_stmt *st = NULL;
    snprintf(sev, sizeof(sev), "?");
    if (store_prepare(db, "SELECT severity FROM finding WHERE rule_id = 'sev'", &st) == 0 &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(sev, sizeof(sev), "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id = 'sev-zero' AND "
                           "severity = 'note'"),
                 1);
    sqlite3_close(db);
    rm_dir(d);
    free(d);
    return sev;
}

static void
test_analyzer_severity_scale(void)
{
    /* No wall time in the report: the GPU share alone (73 %). */
    CHECK_STR(severity_with("exact", 0, 0), "error");
    CHECK_STR(severity_with("model", 0, 0), "warning");
    CHECK_STR(severity_with("bound", 0, 0), "warning");
    /* 880 us of 50 ms of wall time: 1.8 %, still an error. */
    CHECK_STR(severity_with("exact", 50000000, 0), "error");
    /* 880 us of 200 ms: 0.44 % of the wall time, a warning. */
    CHECK_STR(severity_with("exact", 200000000, 0), "warning");
    /* 880 us of 2 s: 0.044 %, a note, however large its share of GPU time. */
    CHECK_STR(severity_with("exact", 2000000000, 0), "note");
    /* The profiler's own time is not the program's: 2 s of which 1.95 s profiling is 50 ms. */
    CHECK_STR(severity_with("exact", 2000000000, 1950000000), "error");
}

/*
 * Kernels that wait are not work: a 1x1 grid spinning 89 ms beside a
 * 100 us kernel (the sample's 'stride', whose grid is big). The idle rule
 * marks it; the toy rule's finding on it is dropped, its time leaves the
 * run's GPU time, kernel_summary says 'waiting' with no share, and the
 * stride kernel's finding is measured against the work alone.
 */
static void
test_analyzer_waiting_kernel_not_work(void)
{
    sqlite3 *db = build_report(
        "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z6stridePf', 'stride'),"
        " (2, '_Z5Delayv', 'stream_executor::gpu::DelayKernel');\n"
        "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y,"
        " block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
        "  (1, 1, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32), (2, 2, 0, 1, 1, 1, 32, 1, 1, 0, 0, 16);\n"
        "INSERT INTO fx_launch VALUES (1, 10, 100000), (2, 1, 89000000);\n"
        "INSERT INTO fx_metric VALUES (1, 'dram__bytes_read.sum', 16e6),"
        " (2, 'dram__bytes_read.sum', 1000), (2, 'smsp__inst_executed.sum', 5e7);\n");
    char *d = tmpdir();
    char path[4096];
    snprintf(path, sizeof(path), "%s/rules/idle-kernel.rule", src_dir());
    char *idle = read_text(path);
    CHECK(idle != NULL);
    put_rule(d, "idle-kernel.rule", idle ? idle : "");
    free(idle);
    put_rule(d, "toy-slow.rule", toy_rule);
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(db && analyzer_analyze(db, &o) == 0);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE kernel_id = 2"), 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE kernel_id = 2 AND rule_id = "
                           "'idle-kernel' AND severity = 'note' AND time_lost_ns = 0"),
                 1);
    /* Work: 11 stride launches of 100 us (the profiled one at the mean); the 89 ms wait is out. */
    CHECK_NEAR(real(db, "SELECT run_gpu_ns FROM analysis"), 1100000, 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM kernel_summary WHERE kernel_id = 2 AND "
                           "bound_tier = 'waiting' AND share_pct IS NULL"),
                 2);
    CHECK_NEAR(real(db, "SELECT share_pct FROM kernel_summary WHERE kernel_id = 1 AND "
                        "config_id IS NULL"),
               100, 1e-6);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM rule_run WHERE rule_id = 'toy-slow' AND "
                           "findings = 1 AND note LIKE '%1 finding on waiting kernels left out%'"),
                 1);
    /* The toy finding on stride (50 us x 11 of 1.1 ms of work, no wall time): 50 %, a warning (model). */
    sqlite3_stmt *st = NULL;
    store_prepare(db, "SELECT severity, share_pct FROM finding WHERE rule_id = 'toy-slow'", &st);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0), "warning");
    CHECK_NEAR(sqlite3_column_double(st, 1), 50, 1e-6);
    sqlite3_finalize(st);
    sqlite3_close(db);
    rm_dir(d);
    free(d);
}

/*
 * One-time set-up: 'init' (1 launch of 900 us at 1 s; launch times are
 * 1 s x the configuration id) ends before 'step' (10 launches from 2 s),
 * the first configuration that repeats. The toy finding on 'init' (850 us
 * of 1.9 ms of GPU time) is a note and says one-time; on 'step' it does not.
 */
static const char *text1(sqlite3 *db, const char *sql);

static void
test_analyzer_one_time_setup(void)
{
    sqlite3 *db = build_report(
        "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z4initv', 'init'),"
        " (2, '_Z4stepv', 'step');\n"
        "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y,"
        " block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
        "  (1, 1, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32), (2, 2, 0, 4096, 1, 1, 256, 1, 1, 0, 0, "
        "32);\n"
        "INSERT INTO fx_launch VALUES (1, 1, 900000), (2, 10, 100000);\n");
    char *d = tmpdir();
    put_rule(d, "toy-slow.rule", toy_rule);
    put_rule(d, "toy-free.rule", toy_free_rule);
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(db && analyzer_analyze(db, &o) == 0);
    sqlite3_stmt *st = NULL;
    store_prepare(db,
                  "SELECT kernel_id, severity, message FROM finding WHERE rule_id = 'toy-slow'"
                  " ORDER BY kernel_id",
                  &st);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_INT(sqlite3_column_int(st, 0), 1);
    CHECK_STR((const char *)sqlite3_column_text(st, 1), "note"); /* 850 us of 1.9 ms */
    CHECK(strstr((const char *)sqlite3_column_text(st, 2), "One-time set-up") != NULL);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_INT(sqlite3_column_int(st, 0), 2);
    CHECK(strstr((const char *)sqlite3_column_text(st, 2), "One-time") == NULL);
    sqlite3_finalize(st);
    /*
     * Ranks: the repeated work's finding first, then the set-up's (it lost
     * time), then the findings that lost none, the set-up's last again.
     * The set-up's ranked after
     * zero-cost ones before, so the list that hides them started at its
     * rank (a PyTorch report's only visible finding was #33).
     */
    CHECK_STR(text1(db, "SELECT group_concat(rule_id || ':' || kernel_id, ' ') FROM (SELECT * FROM"
                        " finding ORDER BY rank)"),
              "toy-slow:2 toy-slow:1 toy-free:2 toy-free:1");
    sqlite3_close(db);
    rm_dir(d);
    free(d);
}

/*
 * The program's loop found by repetition (analyzer/prepare.c
 * build_loop): 'cand' is launched twice at 1 s (an autotuner's
 * candidate: XLA times each twice while it compiles), then the loop of
 * 'fwd' and 'bwd' runs 4 times from 2 s, the launches in API order
 * (correlation ids). The earliest configuration launched more than once is
 * 'cand' itself, so without the loop 'cand' is not set-up; with it, 'cand'
 * (launched fewer than 3 times, all before the loop) is one-time set-up: a
 * note that says so. The loop's kernels are not. 'solo', launched twice
 * before a loop of one kernel repeated ('rep' x 6: a benchmark's phase, not
 * a program's loop), stays work.
 */
/* The first column of the first row of `sql`, copied ("" when none). */
static const char *
text1(sqlite3 *db, const char *sql)
{
    static char buf[1024];
    sqlite3_stmt *st = NULL;
    buf[0] = 0;
    if (db && store_prepare(db, sql, &st) == 0 && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_text(st, 0))
        snprintf(buf, sizeof buf, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return buf;
}

static void
test_analyzer_loop_setup(void)
{
    static const char kernels[] =
        "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z4candv', 'cand'),"
        " (2, '_Z3fwdv', 'fwd'), (3, '_Z3bwdv', 'bwd');\n"
        "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y,"
        " block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
        "  (1, 1, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32), (2, 2, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32),"
        "  (3, 3, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32);\n";
    char sql[4096];
    size_t n = (size_t)snprintf(sql, sizeof sql, "%s", kernels);
    /* cand twice (900 us), then fwd, bwd (100 us each) four times, 1 ms apart */
    n += (size_t)snprintf(sql + n, sizeof sql - n,
                          "INSERT INTO launch (kernel_id, config_id, device_id, correlation_id,"
                          " start_ns, end_ns) VALUES (1, 1, 0, 1, 1000000000, 1000900000),"
                          " (1, 1, 0, 2, 1001000000, 1001900000)");
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++) {
            long long t = 2000000000LL + i * 2000000LL + k * 1000000LL;
            n += (size_t)snprintf(sql + n, sizeof sql - n, ", (%d, %d, 0, %d, %lld, %lld)", 2 + k,
                                  2 + k, 3 + 2 * i + k, t, t + 100000);
        }
    snprintf(sql + n, sizeof sql - n, ";\n");
    sqlite3 *db = build_report(sql);
    char *d = tmpdir();
    put_rule(d, "toy-slow.rule", toy_rule);
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(db && analyzer_analyze(db, &o) == 0);
    CHECK(strstr(text1(db, "SELECT message FROM finding WHERE kernel_id = 1"), "One-time set-up") !=
          NULL);
    CHECK_STR(text1(db, "SELECT severity FROM finding WHERE kernel_id = 1"), "note");
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE kernel_id = 2"), 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE kernel_id <> 1 AND message LIKE "
                           "'%One-time%'"),
                 0);
    /* kernel_summary says which configurations and kernels were set-up */
    CHECK_STR(text1(db, "SELECT group_concat(kernel_id || ':' || one_time, ' ') FROM (SELECT * FROM"
                        " kernel_summary WHERE config_id IS NOT NULL ORDER BY kernel_id)"),
              "1:1 2:0 3:0");
    CHECK_STR(text1(db, "SELECT group_concat(kernel_id || ':' || one_time, ' ') FROM (SELECT * FROM"
                        " kernel_summary WHERE config_id IS NULL ORDER BY kernel_id)"),
              "1:1 2:0 3:0");
    sqlite3_close(db);

    /* A loop of one kernel is a phase: 'solo' (twice) before 'rep' (6 times) is work. */
    db = build_report(
        "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z4solov', 'solo'),"
        " (2, '_Z3repv', 'rep');\n"
        "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y,"
        " block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
        "  (1, 1, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32), (2, 2, 0, 4096, 1, 1, 256, 1, 1, 0, 0, "
        "32);\n"
        "INSERT INTO fx_launch VALUES (1, 2, 900000), (2, 6, 100000);\n");
    CHECK(db && analyzer_analyze(db, &o) == 0);
    CHECK(strstr(text1(db, "SELECT message FROM finding WHERE kernel_id = 1"), "One-time") == NULL);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE kernel_id = 1"), 1);
    sqlite3_close(db);
    rm_dir(d);
    free(d);
}

/*
 * An autotuner's harness before the loop is set-up though it runs more
 * often than the loop repeats: 'chk' runs after each of three candidates
 * launched once, 'cand4' three times between 'chk's (set-up by the same
 * test, once 'chk' is set-up). A benchmark's phase before the loop is
 * work though a one-off kernel splits it in two: 'gemm' three times,
 * 'once', 'gemm' three times. Then the loop: 'fwd', 'bwd', four times.
 * Set-up findings rank after the work's.
 */
static void
test_analyzer_setup_harness(void)
{
    static const char *const names[] = {"c1",   "c2",   "c3",  "chk", "cand4",
                                        "gemm", "once", "fwd", "bwd"};
    /* kernel ids (1-based index in names) in API order */
    static const int seq[] = {1, 4, 2, 4, 3, 4, 5, 4, 5, 4, 5, 4, 6, 6,
                              6, 7, 6, 6, 6, 8, 9, 8, 9, 8, 9, 8, 9};
    char sql[8192];
    size_t n = (size_t)snprintf(sql, sizeof sql,
                                "INSERT INTO kernel (id, mangled_name, short_name)"
                                " VALUES ");
    for (int k = 0; k < 9; k++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, "%s(%d, '_Z%zu%sv', '%s')", k ? ", " : "",
                              k + 1, strlen(names[k]), names[k], names[k]);
    n += (size_t)snprintf(sql + n, sizeof sql - n,
                          ";\nINSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z,"
                          " block_x, block_y, block_z, dynamic_smem_bytes, static_smem_bytes,"
                          " registers_per_thread) VALUES ");
    for (int k = 0; k < 9; k++)
        n += (size_t)snprintf(sql + n, sizeof sql - n,
                              "%s(%d, %d, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32)", k ? ", " : "",
                              k + 1, k + 1);
    n += (size_t)snprintf(sql + n, sizeof sql - n,
                          ";\nINSERT INTO launch (kernel_id, config_id, device_id, correlation_id,"
                          " start_ns, end_ns) VALUES ");
    /* 200 us each, 1 ms apart */
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
        long long t = 1000000000LL + (long long)i * 1000000LL;
        n += (size_t)snprintf(sql + n, sizeof sql - n, "%s(%d, %d, 0, %zu, %lld, %lld)",
                              i ? ", " : "", seq[i], seq[i], i + 1, t, t + 200000);
    }
    snprintf(sql + n, sizeof sql - n, ";\n");
    sqlite3 *db = build_report(sql);
    char *d = tmpdir();
    put_rule(d, "toy-slow.rule", toy_rule);
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(db && analyzer_analyze(db, &o) == 0);
    CHECK_STR(text1(db, "SELECT group_concat(kernel_id || ':' || one_time, ' ') FROM (SELECT * FROM"
                        " kernel_summary WHERE config_id IS NOT NULL ORDER BY kernel_id)"),
              "1:1 2:1 3:1 4:1 5:1 6:0 7:1 8:0 9:0");
    CHECK(strstr(text1(db, "SELECT message FROM finding WHERE kernel_id = 4"), "One-time set-up") !=
          NULL);
    CHECK_STR(text1(db, "SELECT severity FROM finding WHERE kernel_id = 4"), "note");
    CHECK(strstr(text1(db, "SELECT message FROM finding WHERE kernel_id = 6"), "One-time") == NULL);
    /* 'chk' loses more than 'fwd' (6 launches to 4) but ranks after the program's work */
    CHECK(count(db, "SELECT rank FROM finding WHERE kernel_id = 4") >
          count(db, "SELECT MAX(rank) FROM finding WHERE message NOT LIKE '%One-time%'"));
    CHECK(real(db, "SELECT time_lost_ns FROM finding WHERE kernel_id = 4") >
          real(db, "SELECT time_lost_ns FROM finding WHERE kernel_id = 8"));
    sqlite3_close(db);
    rm_dir(d);
    free(d);
}

/*
 * Occupancy limits judged without hardware counters (a configuration the
 * range profiler never reached: its floor ratio and pipe use are NULL) say
 * so, never "n/a the floor, memory pipes n/a busy" (seen on 2026-12-04 on
 * recorded PyTorch, GPT-2 and JAX reports: 16-39 such notes each).
 */
static void
test_analyzer_occupancy_unmeasured(void)
{
    sqlite3 *db = build_report(
        "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z4regsv', 'regs'),"
        " (2, '_Z4smemv', 'smem');\n"
        "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y,"
        " block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
        "  (1, 1, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 128),"
        "  (2, 2, 0, 4096, 1, 1, 256, 1, 1, 0, 98304, 32);\n"
        "INSERT INTO fx_launch VALUES (1, 5, 100000), (2, 5, 100000);\n");
    CHECK(db && analyze_default(db) == 0);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id IN"
                           " ('occupancy-registers', 'occupancy-shared-memory')"),
                 2);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE message LIKE '%n/a%'"), 0);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id LIKE 'occupancy-%' AND"
                           " message LIKE '%latency not measured (no hardware counters)%'"),
                 2);
    sqlite3_close(db);
}

/*
 * Rule texts are for CUDA engineers (issue 19): every line of every rule
 * file outside its query is English, cites references a reader can open
 * (not the course chapters' "H §4.5", "G §4.3", "J ..."), and carries no
 * development history ("Added 2026-11-29 after ..."), which belongs in
 * commit messages. Accented Latin letters stand for French or Spanish
 * quotations; × and µ are allowed.
 */
static int
rule_line_bad(const char *l, const char **why)
{
    static const char *const words[] = {
        "H \xc2\xa7",   "G \xc2\xa7",      "J \"",      "(J ",      " J)",
        "(H)",          "RULES-FROM-DOCS", "Added ",    "Changed ", "Until ",
        "changed from", "added 20",        "changed 20"};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strstr(l, words[i])) {
            *why = words[i];
            return 1;
        }
    for (const char *p = l; p[0] && p[1]; p++) {
        if (isdigit((unsigned char)p[0]) && !strncmp(p, "20", 2) && strlen(p) >= 10 &&
            isdigit((unsigned char)p[2]) && isdigit((unsigned char)p[3]) && p[4] == '-' &&
            isdigit((unsigned char)p[5]) && isdigit((unsigned char)p[6]) && p[7] == '-') {
            *why = "a date";
            return 1;
        }
        /* U+00C0..U+00FF (C3 80..C3 BF) except U+00D7 × and U+00F7 ÷. */
        if ((unsigned char)p[0] == 0xc3 && (unsigned char)p[1] != 0x97 &&
            (unsigned char)p[1] != 0xb7) {
            *why = "an accented letter (a French or Spanish quotation)";
            return 1;
        }
        if ((unsigned char)p[0] == 0xc2 &&
            ((unsigned char)p[1] == 0xab || (unsigned char)p[1] == 0xbb)) {
            *why = "a guillemet";
            return 1;
        }
    }
    return 0;
}

static void
test_analyzer_rule_texts_for_engineers(void)
{
    char *d = default_rules();
    struct ruleset *rs = ruleset_load(d);
    CHECK(rs != NULL);
    for (size_t i = 0; rs && i < rs->n; i++) {
        int in_query = 0, line = 0;
        for (const char *p = rs->rules[i].text; p && *p;) {
            size_t n = strcspn(p, "\n");
            char l[2048];
            snprintf(l, sizeof(l), "%.*s", (int)(n < sizeof(l) - 1 ? n : sizeof(l) - 1), p);
            line++;
            if (l[0] && l[0] != ' ' && l[0] != '\t' && l[0] != '#')
                in_query = !strncmp(l, "query:", 6);
            const char *why = NULL;
            if (!in_query && rule_line_bad(l, &why)) {
                fprintf(stderr, "%s:%d: %s: %s\n", rs->rules[i].path, line, why, l);
                CHECK(!"rule text for engineers");
            }
            p += n + (p[n] == '\n');
        }
    }
    ruleset_free(rs);
    free(d);
}

/*
 * The compute roof: a kernel whose tensor pipe is busy 90 % of its 100 us
 * (sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed, as
 * Nsight Compute reports pipe utilization) has a floor of 90 us + 2 us
 * whatever its bytes, and kernel_summary says the tensor roof binds: at
 * its floor, it costs no floor or latency time.
 */
static void
test_analyzer_compute_roof(void)
{
    sqlite3 *db = build_report(
        "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z4gemmv', 'gemm');\n"
        "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y,"
        " block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
        "  (1, 1, 0, 132, 1, 1, 384, 1, 1, 0, 0, 168);\n"
        "INSERT INTO fx_launch VALUES (1, 10, 100000);\n"
        "INSERT INTO fx_metric VALUES (1, 'dram__bytes_read.sum', 64e6), (1, "
        "'dram__bytes_write.sum', 0),\n"
        "  (1, 'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed', 90),\n"
        "  (1, 'sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed', 12);\n");
    char *d = default_rules();
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(db && analyzer_analyze(db, &o) == 0);
    CHECK_NEAR(real(db, "SELECT floor_measured_ns FROM kernel_summary WHERE config_id = 1"), 92000,
               1e-6);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM kernel_summary WHERE bound_tier = 'tensor'"), 2);
    /* No floor or latency finding with time lost; the register limit is a free note. */
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id IN ('floor-distance',"
                           " 'latency-not-hidden', 'occupancy-registers') AND time_lost_ns > 0"),
                 0);
    sqlite3_close(db);
    free(d);
}

/*
 * The compute roof from one-pass groups (issue 19 point 1; synthetic): a
 * GEMM-like configuration (64 MB of DRAM traffic in 100 us: 6x its memory
 * floor) whose first launch collected group 1 (bytes, ties) and whose
 * second collected the group holding the tensor pipe (group roof, with the
 * ties), 75 % busy. The joined profile feeds the same cfg_metric columns a
 * kernel-replay profile does: its floor is 75 us of tensor work + 2 us,
 * the tensor roof binds, and floor-distance stays silent. Launched once
 * (the pipe group never taken), the roof is unknown: the floor is the
 * memory floor alone, and the rule fires as it reads (top tier dram, 3x
 * or more), while the report counts the configuration among those missing
 * groups (analyzer_groups_missing()).
 */
static const char gemm_groups[] =
    "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z4gemmv', 'gemm');\n"
    "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y,"
    " block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
    "  (1, 1, 0, 132, 1, 1, 384, 1, 1, 0, 0, 128);\n"
    "INSERT INTO fx_launch VALUES (1, 10, 100000);\n"
    "INSERT INTO fx_metric VALUES (1, 'dram__bytes_read.sum', 64e6),"
    " (1, 'dram__bytes_write.sum', 0), (1, 'gpu__time_duration.sum', 100000),"
    " (1, 'smsp__inst_executed.sum', 1e6),"
    " (1, 'dram__bytes.sum.pct_of_peak_sustained_elapsed', 14);\n";

/* Makes the fixture's core profile group 1 of 2 and, with `roof`, adds group 2 on another launch. */
static int
gemm_roof_group(sqlite3 *db, int roof, double tensor_pct)
{
    char sql[2048];
    snprintf(sql, sizeof(sql),
             "UPDATE profile SET passes = 1, metric_set = 'group1/2';"
             "%s"
             "INSERT INTO launch (kernel_id, config_id, device_id, stream_id, start_ns, end_ns,"
             " config_launch_index, profiled, profile_reason)"
             " SELECT 1, 1, 0, 7, NULL, NULL, 11, 1, 'metric_group' WHERE %d;"
             "INSERT INTO profile (launch_id, passes, metric_set, duration_ns)"
             " SELECT id, 1, 'group2/2', 100000 FROM launch WHERE profile_reason = 'metric_group';"
             "INSERT OR IGNORE INTO metric_name (name) VALUES"
             " ('sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed');"
             "INSERT INTO metric (launch_id, metric_id, value)"
             " SELECT l.id, n.id, CASE n.name WHEN 'smsp__inst_executed.sum' THEN 1e6"
             "  WHEN 'gpu__time_duration.sum' THEN 100000 ELSE %.17g END"
             " FROM launch l, metric_name n WHERE l.profile_reason = 'metric_group' AND n.name IN"
             " ('smsp__inst_executed.sum', 'gpu__time_duration.sum',"
             "  'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed');"
             "UPDATE config SET launches = (SELECT COUNT(*) FROM launch l WHERE l.config_id = 1);",
             roof ? "" : "-- launched once: no group 2\n", roof, tensor_pct);
    return store_exec(db, sql);
}

/*
 * analyzer_groups_missing's share is of the same time as the summary's
 * coverage lines: each configuration's analysis time (kernel_summary:
 * config 1's untimed launch at its traced mean, 300 where the traced sum
 * says 100), the kernels that wait left out of both sides (config 3, a
 * delay kernel missing a group too). SYNTHETIC values.
 */
static void
test_analyzer_groups_missing_share(void)
{
    sqlite3 *db = NULL;
    CHECK(store_create(":memory:", "synthetic", &db) == 0);
    CHECK_EQ_INT(
        store_exec(db,
                   "INSERT INTO kernel (id, mangled_name) VALUES (1, 'k'), (2, 'delay');"
                   "INSERT INTO config (id, kernel_id, total_ns) VALUES (1, 1, 100), (2, 1, 100),"
                   " (3, 2, 1000);"
                   "INSERT INTO launch (id, kernel_id, config_id, config_launch_index) VALUES"
                   " (1, 1, 1, 0), (2, 1, 2, 0), (3, 1, 2, 1), (4, 2, 3, 0);"
                   "INSERT INTO profile (launch_id, passes, metric_set) VALUES (1, 1, 'group1/2'),"
                   " (2, 1, 'group1/2'), (3, 1, 'group2/2'), (4, 1, 'group1/2');"
                   "INSERT INTO kernel_summary (kernel_id, config_id, total_ns, bound_tier) VALUES"
                   " (1, 1, 300, 'dram'), (1, 2, 100, 'dram'), (2, 3, 1000, 'waiting');"),
        0);
    long long gm = -1;
    double pct = -1;
    CHECK_EQ_INT(analyzer_groups_missing(db, &gm, &pct), 0);
    CHECK_EQ_INT(gm, 2);                      /* configs 1 and 3 */
    CHECK_NEAR(pct, 100.0 * 300 / 400, 1e-9); /* config 1 of the working time, 1 and 2 */
    sqlite3_close(db);
}

static void
test_analyzer_compute_roof_groups(void)
{
    char *d = default_rules();
    struct analyzer_opts o = {.rules_dir = d};
    long long gm = -1;
    double pct = -1;
    /* both groups, tensor 75 %: at the tensor roof, no floor finding */
    sqlite3 *db = build_report(gemm_groups);
    CHECK(db && gemm_roof_group(db, 1, 75) == 0 && analyzer_analyze(db, &o) == 0);
    if (db) {
        CHECK_EQ_INT(analyzer_groups_missing(db, &gm, &pct), 0);
        CHECK_EQ_INT(gm, 0);
        CHECK_NEAR(real(db, "SELECT floor_measured_ns FROM kernel_summary WHERE config_id = 1"),
                   77000, 1e-6);
        CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM kernel_summary WHERE config_id = 1"
                               " AND bound_tier = 'tensor'"),
                     1);
        CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id = 'floor-distance'"), 0);
        sqlite3_close(db);
    }
    /* the same kernel at 10 % tensor: the memory floor binds again and the rule fires */
    db = build_report(gemm_groups);
    CHECK(db && gemm_roof_group(db, 1, 10) == 0 && analyzer_analyze(db, &o) == 0);
    if (db) {
        CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id = 'floor-distance'"), 1);
        sqlite3_close(db);
    }
    /* launched once, the pipe group never taken: the roof is unknown, the memory floor alone */
    db = build_report(gemm_groups);
    CHECK(db && gemm_roof_group(db, 0, 0) == 0 && analyzer_analyze(db, &o) == 0);
    if (db) {
        CHECK_EQ_INT(analyzer_groups_missing(db, &gm, &pct), 0);
        CHECK_EQ_INT(gm, 1);
        CHECK(count(db, "SELECT COUNT(*) FROM kernel_summary WHERE config_id = 1"
                        " AND bound_tier = 'tensor'") == 0);
        CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id = 'floor-distance'"), 1);
        sqlite3_close(db);
    }
    free(d);
}

static void
test_analyzer_open_report_read_only(void)
{
    char *d = tmpdir();
    char path[4096];
    snprintf(path, sizeof(path), "%s/r.db", d);
    sqlite3 *db = NULL;
    CHECK(store_create(path, "synthetic", &db) == 0);
    CHECK(store_exec(db, "PRAGMA journal_mode = DELETE") == 0);
    char *base = NULL;
    {
        char p2[4096];
        snprintf(p2, sizeof(p2), "%s/tests/fixtures/rule-base.sql", src_dir());
        base = read_text(p2);
    }
    char tail[4096];
    snprintf(tail, sizeof(tail), "%s/tests/fixtures/rule-tail.sql", src_dir());
    char *tailsql = read_text(tail);
    CHECK(store_exec(db, base) == 0 && store_exec(db, sample_report) == 0 &&
          store_exec(db, tailsql) == 0);
    sqlite3_close(db);
    chmod(path, 0444);
    struct stat before, after;
    stat(path, &before);
    char *rules = default_rules();
    struct analyzer_opts o = {.rules_dir = rules};
    sqlite3 *r = NULL;
    CHECK(analyzer_open_report(path, &o, &r) == 0);
    CHECK(r != NULL);
    CHECK(count(r, "SELECT COUNT(*) FROM kernel_summary WHERE config_id IS NULL") == 2);
    CHECK(count(r, "SELECT COUNT(*) FROM finding") > 0);
    sqlite3_close(r);
    stat(path, &after);
    CHECK(before.st_mtime == after.st_mtime && before.st_size == after.st_size);
    /* The file itself still has no analysis. */
    CHECK(store_open(path, STORE_READ_ONLY, &db) == 0);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM analysis"), 0);
    sqlite3_close(db);
    /* Analyzed by the current rule set: the file is used as it is. */
    chmod(path, 0644);
    CHECK(store_open(path, STORE_READ_WRITE, &db) == 0);
    CHECK(analyzer_analyze(db, &o) == 0);
    CHECK(store_exec(db, "UPDATE finding SET message = 'from the file'") == 0);
    sqlite3_close(db);
    CHECK(analyzer_open_report(path, &o, &r) == 0);
    CHECK_EQ_INT(count(r, "SELECT COUNT(*) FROM finding WHERE message = 'from the file'"),
                 count(r, "SELECT COUNT(*) FROM finding"));
    CHECK_EQ_INT(sqlite3_db_readonly(r, "main"), 1);
    sqlite3_close(r);
    /* Analyzed by another rule set: readers get a fresh analysis in memory, the file keeps its own. */
    char *other = tmpdir();
    put_rule(other, "toy-slow.rule", toy_rule);
    struct analyzer_opts oo = {.rules_dir = other};
    CHECK(store_open(path, STORE_READ_WRITE, &db) == 0);
    CHECK(analyzer_analyze(db, &oo) == 0);
    sqlite3_close(db);
    CHECK(analyzer_open_report(path, &o, &r) == 0);
    CHECK_EQ_INT(count(r, "SELECT COUNT(*) FROM rule_run"), 25);
    CHECK_EQ_INT(count(r, "SELECT COUNT(*) FROM finding WHERE rule_id = 'toy-slow'"), 0);
    sqlite3_close(r);
    CHECK(store_open(path, STORE_READ_ONLY, &db) == 0);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM rule_run"), 1);
    sqlite3_close(db);
    rm_dir(other);
    free(other);
    /* A read-only connection is refused, and stays read-only. */
    CHECK(store_open(path, STORE_READ_ONLY, &db) == 0);
    CHECK(analyzer_analyze(db, &o) == -1);
    CHECK_EQ_INT(analyzer_failure(), ANALYZER_ERR_REPORT);
    CHECK(store_exec(db, "DELETE FROM finding") == -1);
    sqlite3_close(db);
    /* Missing file: a report failure, not a crash. */
    CHECK(analyzer_open_report("/nonexistent/x.db", &o, &r) == -1);
    CHECK(r == NULL);
    CHECK_EQ_INT(analyzer_failure(), ANALYZER_ERR_REPORT);
    CHECK_EQ_INT(store_failure(), STORE_ERR_MISSING);
    free(base);
    free(tailsql);
    free(rules);
    rm_dir(d);
    free(d);
}

/* One kernel, one configuration, three traced launches of 10 µs, nothing profiled. */
static const char three_launches_sql[] =
    "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, 'a', 'a');\n"
    "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, "
    "block_z,\n"
    "  dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES (1, 1, 0, 8, 1, 1, "
    "256, 1, 1, 0, 0, 32);\n"
    "INSERT INTO fx_launch VALUES (1, 3, 10000);\n";

static void
test_analyzer_no_profiled_launches(void)
{
    sqlite3 *db = build_report(three_launches_sql);
    char *rules = default_rules();
    struct analyzer_opts o = {.rules_dir = rules};
    CHECK(analyzer_analyze(db, &o) == 0);
    CHECK(count(db, "SELECT COUNT(*) FROM rule_run WHERE status = 'skipped'") >= 10);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM rule_run WHERE rule_id = 'shared-bank-conflicts' "
                           "AND note LIKE 'metric %not in report'"),
                 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM kernel_summary"), 2);
    CHECK_NEAR(real(db, "SELECT mean_ns FROM kernel_summary WHERE config_id IS NULL"), 10000, 1e-9);
    sqlite3_close(db);
    free(rules);
}

/*
 * Launch times at the ends of the 64-bit range (a damaged or hostile
 * report): the duration that does not fit is left out, never computed
 * with a signed overflow (UBSan in the sanitized build: prepare.c).
 */
static void
test_analyzer_extreme_times(void)
{
    sqlite3 *db = build_report(three_launches_sql);
    CHECK(store_exec(db, "UPDATE launch SET start_ns = -9223372036854775808, end_ns = "
                         "9223372036854775807 WHERE id = (SELECT min(id) FROM launch)") == 0);
    char *rules = default_rules();
    struct analyzer_opts o = {.rules_dir = rules};
    CHECK(analyzer_analyze(db, &o) == 0);
    CHECK_NEAR(real(db, "SELECT mean_ns FROM kernel_summary WHERE config_id IS NULL"), 10000, 1e-9);
    CHECK_EQ_INT(count(db, "SELECT launches FROM kernel_summary WHERE config_id IS NULL"), 3);
    sqlite3_close(db);
    free(rules);
}

/*
 * The analyzer's own occupancy calculation (used when the collector did not
 * record one) against cuOccupancyMaxActiveBlocksPerMultiprocessor as read
 * on an H200 (tests/fixtures/occupancy-h200.txt, the metrics engineer's
 * probe), for the driver's default carveout.
 */
static void
test_analyzer_occupancy_matches_h200(void)
{
    char path[4096], line[1024];
    snprintf(path, sizeof(path), "%s/tests/fixtures/occupancy-h200.txt", src_dir());
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("skip: %s not found\n", path);
        return;
    }
    sqlite3 *db = build_report("");
    int n = 0, bad = 0;
    long long want[512];
    while (fgets(line, sizeof(line), f) && n < 512) {
        int regs, st, dyn, block, carve, bps;
        char res[64];
        if (sscanf(line,
                   "occ kernel=%*s regs=%d static_smem=%d dyn_smem=%d block=%d carveout_pct=%d "
                   "max_dyn_smem=%*d "
                   "blocks_per_sm=%d result=%63s",
                   &regs, &st, &dyn, &block, &carve, &bps, res) != 7 ||
            carve != -2 || strcmp(res, "CUDA_SUCCESS"))
            continue;
        char *sql = sqlite3_mprintf(
            "INSERT INTO kernel (id, mangled_name, short_name) VALUES (%d, 'k%d', 'k%d');"
            "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, "
            "block_y, block_z,"
            " dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES (%d, %d, 0, 1, "
            "1, 1, %d, 1, 1, %d, %d, %d);",
            n + 1, n + 1, n + 1, n + 1, n + 1, block, dyn, st, regs);
        CHECK(store_exec(db, sql) == 0);
        sqlite3_free(sql);
        want[n++] = bps;
    }
    fclose(f);
    char *d = tmpdir();
    put_rule(d, "toy-slow.rule", toy_rule);
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(analyzer_analyze(db, &o) == 0);
    for (int i = 0; i < n; i++) {
        char q[256];
        snprintf(
            q, sizeof(q),
            "SELECT ROUND(s.theoretical_occupancy_pct * 64 / 100.0 / ((c.block_x + 31) / 32))"
            " FROM kernel_summary s JOIN config c ON c.id = s.config_id WHERE s.config_id = %d",
            i + 1);
        double got = real(db, q);
        if (got != (double)want[i]) {
            bad++;
            fprintf(stderr, "occupancy config %d: %g blocks per SM, H200 says %lld\n", i + 1, got,
                    want[i]);
        }
    }
    printf("occupancy: %d of %d configurations match the H200\n", n - bad, n);
    CHECK(n > 100);
    CHECK_EQ_INT(bad, 0);
    sqlite3_close(db);
    rm_dir(d);
    free(d);
}

/*
 * A report written before allocations were recorded has no `allocation`
 * table, no launch.api_ns and no v_launch_footprint (schema.sql
 * "Compatibility"): the analyzer still runs every rule, and the rules
 * that use the footprint fall back to the counters. The same kernel (the
 * golden case l2-reread-miss 7.2: DRAM reads 1.26x live memory + L2, no
 * counter evidence) fires with the allocation records and not without.
 */
static const char footprint_case[] =
    "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z4rereadv', 'reread');\n"
    "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, "
    "block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES "
    "(1, 1, 0, 1024, 1, 1, 256, 1, 1, 0, 0, 32);\n"
    "INSERT INTO fx_launch VALUES (1, 10, 200000);\n"
    "INSERT INTO fx_alloc VALUES (1, 100000000);\n"
    "INSERT INTO fx_metric VALUES (1, 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', "
    "6414760.8), (1, 'dram__bytes_read.sum', 205272345.6), (1, 'lts__t_sectors_lookup_hit.sum', "
    "2000), (1, 'lts__t_sectors_lookup_miss.sum', 998000), "
    "(1, 'smsp__sass_data_bytes_mem_global_op_ld.sum', 205272345.6);\n";

static void
test_analyzer_footprint_older_report(void)
{
    char rule[4096];
    snprintf(rule, sizeof(rule), "%s/rules/l2-reread-miss.rule", src_dir());
    const char *files[] = {rule};
    char *d = rules_dir_with(files, 1);
    CHECK(d != NULL);
    struct analyzer_opts o = {.rules_dir = d};
    sqlite3 *db = build_report(footprint_case);
    CHECK(db != NULL);
    CHECK(analyzer_analyze(db, &o) == 0);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id = 'l2-reread-miss'"), 1);
    CHECK(real(db, "SELECT value FROM finding_evidence WHERE name = 'live_device_bytes'") == 1e8);
    /* An older report also lacks launch.api_ns, which the analyzer reads only through the view. */
    CHECK(store_exec(db, "DROP VIEW v_launch_footprint; DROP TABLE allocation;"
                         "DELETE FROM meta WHERE key = 'alloc_tracking'") == 0);
    CHECK(analyzer_analyze(db, &o) == 0);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM rule_run WHERE rule_id = 'l2-reread-miss' AND "
                           "status = 'ran'"),
                 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM finding"), 0);
    sqlite3_close(db);
    rm_dir(d);
    free(d);
}

/*
 * A configuration's later profile that did different work (PyTorch's
 * TensorIterator kernels take their strides as arguments: one grid and
 * block, a contiguous copy at one launch and a strided one at the next)
 * is set aside, not averaged into a launch that never ran: recorded on the
 * H200 (docs/analyzer-vs-ncu.md, 2026-11-29), where the average of a
 * coalesced first launch and a strided later one fired
 * uncoalesced-global-load for a configuration whose first launch ncu
 * found coalesced. A later profile of the same work is still used.
 */
static const char two_profiles_report[] =
    "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z4copyPf', 'copy');\n"
    "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, "
    "block_z,\n"
    "  dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
    "  (1, 1, 0, 8192, 1, 1, 128, 1, 1, 0, 0, 18);\n"
    "INSERT INTO fx_launch VALUES (1, 20, 30000);\n"
    "INSERT INTO fx_metric VALUES\n"
    "  (1, 'smsp__inst_executed.sum', 9.27e6), (1, 'dram__bytes_read.sum', 8.4e6),\n"
    "  (1, 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 262144),\n"
    "  (1, 'smsp__inst_executed_op_global_ld.sum', 262144),\n"
    "  (1, 'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', 262144),\n"
    "  (1, 'smsp__sass_data_bytes_mem_global_op_ld.sum', 8388608),\n"
    "  (1, 'smsp__sass_data_bytes_mem_global_op_st.sum', 8388608);\n";

/* The names an extras profile carries (metrics_list_build's METRICS_TIE) and its group. */
#define TIE_AND_SASS_BYTES                                                                         \
    "n.name IN ('gpu__time_duration.sum', 'smsp__inst_executed.sum',"                              \
    " 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum',"                                           \
    " 'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum',"                                           \
    " 'smsp__sass_data_bytes_mem_global_op_ld.sum', 'smsp__sass_data_bytes_mem_global_op_st.sum')"

/* Adds a second profiled launch of configuration 1 with its instruction count and load sectors
   (the other metrics copied from the first: all of them, or those `only` selects). */
static int
add_second_profile(sqlite3 *db, double inst, double gld_sectors, const char *only)
{
    char sql[2048];
    snprintf(sql, sizeof(sql),
             "INSERT INTO launch (kernel_id, config_id, device_id, stream_id, start_ns, end_ns,"
             " config_launch_index, profiled, profile_reason)"
             " VALUES (1, 1, 0, 7, 1950000000, 1950300000, 21, 1, 'extra_metrics');"
             "INSERT INTO profile (launch_id, passes, metric_set, duration_ns)"
             " VALUES (last_insert_rowid(), 3, '%s', 300000);"
             "INSERT INTO metric (launch_id, metric_id, value)"
             " SELECT (SELECT MAX(id) FROM launch), m.metric_id,"
             "  CASE n.name WHEN 'smsp__inst_executed.sum' THEN %.17g"
             "   WHEN 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum' THEN %.17g ELSE m.value END"
             " FROM metric m JOIN metric_name n ON n.id = m.metric_id"
             " WHERE m.launch_id = (SELECT MIN(launch_id) FROM profile) AND (%s);"
             "UPDATE config SET launches = launches + 1;",
             only ? "tie+sass_bytes" : "core", inst, gld_sectors, only ? only : "1");
    return store_exec(db, sql);
}

/* The report with its second profile added and analyzed, after checking how many profiles the
   analysis sets aside; NULL (and a failed check) if any step fails. */
static sqlite3 *
analyzed_two_profiles(double inst, double gld_sectors, const char *only,
                      const struct analyzer_opts *o, long long want_aside)
{
    sqlite3 *db = build_report(two_profiles_report);
    long long np = -1, nc = -1;
    int ok = db && add_second_profile(db, inst, gld_sectors, only) == 0 &&
             analyzer_analyze(db, o) == 0 && analyzer_profiles_set_aside(db, &np, &nc) == 0;
    CHECK(ok);
    CHECK(np == want_aside && nc == want_aside);
    if (!ok && db) {
        sqlite3_close(db);
        db = NULL;
    }
    return db;
}

/*
 * One-pass groups (issue 18): a configuration's groups, taken on three
 * launches, join into the row its kernel-replay core profile gives
 * (synthetic values, made up). Group 1 holds DRAM, occupancy and local
 * counters, group 2 the global sectors and L2 hits, group 3 shared
 * memory and L2 misses; each carries the tie counters.
 */
static const char groups_report[] =
    "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z4scanPf', 'scan');\n"
    "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, "
    "block_z,\n"
    "  dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
    "  (1, 1, 0, 4096, 1, 1, 256, 1, 1, 0, 4096, 32);\n"
    "INSERT INTO fx_launch VALUES (1, 10, 50000);\n"
    "INSERT INTO fx_metric VALUES\n"
    "  (1, 'gpu__time_duration.sum', 51000), (1, 'smsp__inst_executed.sum', 4.2e6),\n"
    "  (1, 'dram__bytes_read.sum', 33554432), (1, 'dram__bytes_write.sum', 16777216),\n"
    "  (1, 'sm__warps_active.avg.pct_of_peak_sustained_active', 61.5),\n"
    "  (1, 'l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum', 1000),\n"
    "  (1, 'smsp__inst_executed_op_local_ld.sum', 250),\n"
    "  (1, 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 1048576),\n"
    "  (1, 'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', 524288),\n"
    "  (1, 'smsp__inst_executed_op_global_ld.sum', 262144),\n"
    "  (1, 'smsp__inst_executed_op_global_st.sum', 131072),\n"
    "  (1, 'lts__t_sectors_lookup_hit.sum', 400000), (1, 'lts__t_sectors_lookup_miss.sum', "
    "1172864),\n"
    "  (1, 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum', 65536),\n"
    "  (1, 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum', 65536),\n"
    "  (1, 'smsp__inst_executed_op_shared_ld.sum', 65536),\n"
    "  (1, 'smsp__inst_executed_op_shared_st.sum', 65536);\n";

#define GROUP2_NAMES                                                                               \
    "'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', "                                           \
    "'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', 'smsp__inst_executed_op_global_ld.sum', "   \
    "'smsp__inst_executed_op_global_st.sum', 'lts__t_sectors_lookup_hit.sum'"
#define GROUP3_NAMES                                                                               \
    "'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum', "                                     \
    "'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum', "                                     \
    "'smsp__inst_executed_op_shared_ld.sum', 'smsp__inst_executed_op_shared_st.sum', "             \
    "'lts__t_sectors_lookup_miss.sum'"

/*
 * Splits the core profile of configuration 1 into `n` (2 or 3) one-pass
 * groups on as many launches, the tie counters copied into each; group
 * 3's warp instructions are `inst3` (other work when they differ).
 */
static int
split_into_groups(sqlite3 *db, int n, double inst3)
{
    char sql[4096];
    int len = snprintf(
        sql, sizeof(sql),
        "CREATE TEMP TABLE g1 AS SELECT launch_id AS id FROM profile;"
        "UPDATE profile SET passes = 1, metric_set = 'group1/3';"
        "INSERT INTO launch (kernel_id, config_id, device_id, stream_id, start_ns, end_ns,"
        " config_launch_index, profiled, profile_reason)"
        " VALUES (1, 1, 0, 7, NULL, NULL, 11, 1, 'metric_group'),"
        " (1, 1, 0, 7, NULL, NULL, 12, 1, 'metric_group');"
        "INSERT INTO profile (launch_id, passes, metric_set, duration_ns)"
        " SELECT id, 1, 'group' || (config_launch_index - 9) || '/3', 51000 FROM launch"
        " WHERE profile_reason = 'metric_group';"
        "UPDATE metric SET launch_id = (SELECT id FROM launch WHERE config_launch_index = 11)"
        " WHERE metric_id IN (SELECT id FROM metric_name WHERE name IN (" GROUP2_NAMES "));"
        "UPDATE metric SET launch_id = (SELECT id FROM launch WHERE config_launch_index = 12)"
        " WHERE metric_id IN (SELECT id FROM metric_name WHERE name IN (" GROUP3_NAMES "));"
        "INSERT INTO metric (launch_id, metric_id, value)"
        " SELECT l.id, m.metric_id, CASE WHEN l.config_launch_index = 12"
        "  AND n.name = 'smsp__inst_executed.sum' THEN %.17g ELSE m.value END"
        " FROM launch l, metric m JOIN metric_name n ON n.id = m.metric_id"
        " WHERE l.profile_reason = 'metric_group' AND m.launch_id = (SELECT id FROM temp.g1)"
        " AND n.name IN ('smsp__inst_executed.sum', 'gpu__time_duration.sum');"
        "UPDATE config SET launches = launches + 2;",
        inst3);
    if (n == 2 && len > 0 && (size_t)len < sizeof(sql))
        snprintf(sql + len, sizeof(sql) - (size_t)len,
                 "DELETE FROM metric WHERE launch_id = (SELECT id FROM launch WHERE "
                 "config_launch_index = 12);"
                 "DELETE FROM profile WHERE launch_id = (SELECT id FROM launch WHERE "
                 "config_launch_index = 12);"
                 "UPDATE launch SET profiled = 0, profile_reason = 'sampled_out'"
                 " WHERE config_launch_index = 12;");
    return store_exec(db, sql) || store_exec(db, "DROP TABLE temp.g1");
}

/*
 * SASS-patched metrics read under user replay (a one-pass group): the
 * range profiler returned 0 for every smsp__sass_* / sm__sass_* metric
 * of every one-pass group on the H200 (docs/metrics.md "SASS-patched
 * metrics under user replay": the README's transpose, recorded
 * 2026-12-01, and every report of the suite), while kernel replay gave
 * real values. A 0 there is no measurement: the store rule judges the
 * transpose against its bound ("at most"), never against "an ideal of 0",
 * and the coalesced twin (4 sectors per store instruction) gets nothing.
 * Synthetic report: the two transposes' store counters as recorded.
 */
static const char transpose_store_report[] =
    "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z9transposePfPKfi', "
    "'transpose');\n"
    "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, "
    "block_z,\n"
    "  dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
    "  (1, 1, 0, 128, 128, 1, 32, 8, 1, 0, 0, 16);\n"
    "INSERT INTO fx_launch VALUES (1, 20, 250000);\n"
    "INSERT INTO fx_metric VALUES\n"
    "  (1, 'gpu__time_duration.sum', 250000), (1, 'smsp__inst_executed.sum', 6.0e6),\n"
    "  (1, 'dram__bytes_read.sum', 67108864), (1, 'dram__bytes_write.sum', 67108864),\n"
    "  (1, 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 2097152),\n"
    "  (1, 'smsp__inst_executed_op_global_ld.sum', 524288),\n"
    "  (1, 'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', %s),\n"
    "  (1, 'smsp__inst_executed_op_global_st.sum', 524288),\n"
    "  (1, 'smsp__sass_data_bytes_mem_global_op_ld.sum', 0),\n"
    "  (1, 'smsp__sass_data_bytes_mem_global_op_st.sum', 0),\n"
    "  (1, 'smsp__sass_inst_executed_op_memory_32b.sum', 0);\n";

/* The report of transpose_store_report with `sectors` store sectors, its profile made a one-pass
   group under user replay (passes 1, 'group1/9') when `user` is set, else left a kernel-replay core
   profile. */
static sqlite3 *
transpose_store(const char *sectors, int user)
{
    char sql[sizeof(transpose_store_report) + 32];
    snprintf(sql, sizeof(sql), transpose_store_report, sectors);
    sqlite3 *db = build_report(sql);
    if (db && user && store_exec(db, "UPDATE profile SET passes = 1, metric_set = 'group1/9'")) {
        sqlite3_close(db);
        db = NULL;
    }
    CHECK(db != NULL);
    return db;
}

static void
test_analyzer_sass_metrics_under_user_replay(void)
{
    char *d = default_rules();
    struct analyzer_opts o = {.rules_dir = d};
    /* the naive transpose, one-pass groups: judged against the bound */
    sqlite3 *db = transpose_store("16777216", 1);
    if (db) {
        CHECK_EQ_INT(analyzer_analyze(db, &o), 0);
        CHECK_EQ_INT(an_prepare(db), 0);
        CHECK_EQ_INT(count(db, "SELECT gst_requested_bytes IS NULL AND mem_inst_32b IS NULL"
                               " FROM temp.cfg WHERE config_id = 1"),
                     1);
        /* the materialized v_profiled (rules that read it, the fallback pivot) says the same */
        CHECK_EQ_INT(an_prepare_profiled(db), 0);
        CHECK_EQ_INT(count(db, "SELECT count(*) FROM temp.v_profiled WHERE gst_requested_bytes IS"
                               " NULL AND mem_inst_32b IS NULL AND gst_sectors > 0"),
                     1);
        CHECK_EQ_INT(count(db,
                           "SELECT count(*) FROM finding WHERE rule_id = 'uncoalesced-global-store'"
                           " AND message LIKE '%at most%' AND message NOT LIKE '%ideal of 0%'"),
                     1);
        /* built once: a second call keeps the table as it is (no second UPDATE) */
        CHECK_EQ_INT(sqlite3_exec(db, "UPDATE temp.v_profiled SET gst_requested_bytes = 7", NULL,
                                  NULL, NULL),
                     SQLITE_OK);
        CHECK_EQ_INT(an_prepare_profiled(db), 0);
        CHECK_EQ_INT(
            count(db, "SELECT count(*) FROM temp.v_profiled WHERE gst_requested_bytes = 7"), 1);
        sqlite3_close(db);
    }
    /* the coalesced twin (4 sectors per store instruction): no finding */
    db = transpose_store("2097152", 1);
    if (db) {
        CHECK_EQ_INT(analyzer_analyze(db, &o), 0);
        CHECK_EQ_INT(count(db, "SELECT count(*) FROM finding WHERE rule_id LIKE 'uncoalesced%'"),
                     0);
        sqlite3_close(db);
    }
    /* kernel replay's values stay measurements: a 0 there is a 0 */
    db = transpose_store("2097152", 0);
    if (db) {
        CHECK_EQ_INT(analyzer_analyze(db, &o), 0);
        CHECK_EQ_INT(an_prepare(db), 0);
        CHECK_EQ_INT(count(db, "SELECT gst_requested_bytes = 0 FROM temp.cfg WHERE config_id = 1"),
                     1);
        CHECK_EQ_INT(an_prepare_profiled(db), 0);
        CHECK_EQ_INT(
            count(db, "SELECT count(*) FROM temp.v_profiled WHERE gst_requested_bytes = 0"), 1);
        sqlite3_close(db);
    }
    free(d);
}

static void
test_analyzer_one_pass_groups_join(void)
{
    char *d = default_rules();
    struct analyzer_opts o = {.rules_dir = d};
    sqlite3 *core = build_report(groups_report), *grp = build_report(groups_report);
    CHECK(core && grp);
    if (!core || !grp)
        goto out;
    CHECK_EQ_INT(split_into_groups(grp, 3, 4.2e6), 0);
    CHECK_EQ_INT(analyzer_analyze(core, &o), 0);
    CHECK_EQ_INT(analyzer_analyze(grp, &o), 0);
    /* the same row: every byte, the floor, occupancy and the L2 hit rate */
    static const char *const cols[] = {
        "dram_bytes",  "l1_bytes",     "l2_bytes", "shared_bytes",
        "local_bytes", "useful_bytes", "floor_ns", "achieved_occupancy_pct"};
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
        char q[256];
        snprintf(q, sizeof(q), "SELECT %s FROM kernel_summary WHERE config_id = 1", cols[i]);
        double a = real(core, q), b = real(grp, q);
        if (!(fabs(a - b) <= 1e-9 * fabs(a)) || isnan(a))
            fprintf(stderr, "%s: core %g, groups %g\n", cols[i], a, b);
        CHECK(!isnan(a) && fabs(a - b) <= 1e-9 * fabs(a));
    }
    /* the L2 hit rate joins two launches, and says so; the core profile's does not */
    CHECK_EQ_INT(an_prepare(grp), 0);
    CHECK_EQ_INT(an_prepare(core), 0);
    CHECK_EQ_INT(count(grp, "SELECT l2_hit_rate_spread FROM temp.cfg WHERE config_id = 1"), 1);
    CHECK_EQ_INT(count(core, "SELECT l2_hit_rate_spread FROM temp.cfg WHERE config_id = 1"), 0);
    CHECK_NEAR(real(grp, "SELECT l2_hit_rate_pct FROM temp.cfg WHERE config_id = 1"),
               100.0 * 400000 / 1572864, 1e-9);
    long long gm = -1;
    double pct = -1;
    CHECK_EQ_INT(analyzer_groups_missing(grp, &gm, &pct), 0);
    CHECK_EQ_INT(gm, 0);
    CHECK_EQ_INT(analyzer_groups_missing(core, &gm, &pct), 0); /* no groups: nothing missing */
    CHECK_EQ_INT(gm, 0);
    sqlite3_close(grp);

    /* group 3 never taken (launched too few times): the report says so, its columns are NULL */
    grp = build_report(groups_report);
    CHECK(grp && split_into_groups(grp, 2, 4.2e6) == 0 && analyzer_analyze(grp, &o) == 0);
    if (grp) {
        CHECK_EQ_INT(analyzer_groups_missing(grp, &gm, &pct), 0);
        CHECK_EQ_INT(gm, 1);
        CHECK_NEAR(pct, 100, 1e-9);
        CHECK(isnan(real(grp, "SELECT shared_bytes FROM kernel_summary WHERE config_id = 1")));
        CHECK_EQ_INT(an_prepare(grp), 0);
        CHECK(count(grp, "SELECT l2_hit_rate_spread IS NULL FROM temp.cfg WHERE config_id = 1") ==
              1);
        CHECK_NEAR(real(grp, "SELECT dram_bytes FROM kernel_summary WHERE config_id = 1"),
                   33554432.0 + 16777216, 1e-6);
        sqlite3_close(grp);
    }

    /* group 3's launch did other work (5 % more warp instructions): set aside, and missing */
    grp = build_report(groups_report);
    CHECK(grp && split_into_groups(grp, 3, 4.41e6) == 0 && analyzer_analyze(grp, &o) == 0);
    if (grp) {
        long long np = -1, nc = -1;
        CHECK_EQ_INT(analyzer_profiles_set_aside(grp, &np, &nc), 0);
        CHECK_EQ_INT(np, 1);
        CHECK_EQ_INT(analyzer_groups_missing(grp, &gm, &pct), 0);
        CHECK_EQ_INT(gm, 1);
        CHECK(isnan(real(grp, "SELECT shared_bytes FROM kernel_summary WHERE config_id = 1")));
        sqlite3_close(grp);
        grp = NULL;
    }
out:
    if (core)
        sqlite3_close(core);
    if (grp)
        sqlite3_close(grp);
    free(d);
}

static void
test_analyzer_profiles_of_other_work_set_aside(void)
{
    char *d = default_rules();
    struct analyzer_opts o = {.rules_dir = d};
    /* Different work: 20 % fewer instructions, 17x the load sectors (a strided copy). */
    sqlite3 *db = analyzed_two_profiles(7.44e6, 4456448, NULL, &o, 1);
    if (db) {
        CHECK(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id = 'uncoalesced-global-load'") ==
              0);
        CHECK(count(db, "SELECT COUNT(*) FROM profile") == 2); /* the report keeps both */
        sqlite3_close(db);
    }
    /* The same work (one sector more of 262144: an alignment): both profiles are averaged. */
    db = analyzed_two_profiles(9.27e6, 262145, NULL, &o, 0);
    if (db) {
        CHECK_NEAR(real(db, "SELECT l1_bytes FROM kernel_summary WHERE config_id = 1"),
                   32.0 * (262144.5 + 262144), 1);
        sqlite3_close(db);
    }
    /*
     * An extras profile (the tie set and one group, not the core): the same
     * work joins the core profile, each metric averaged over the profiles
     * that have it; other work (the same instruction count, 17x the load
     * sectors) is set aside by its tie counters.
     */
    db = analyzed_two_profiles(9.27e6, 262145, TIE_AND_SASS_BYTES, &o, 0);
    if (db) {
        CHECK_NEAR(real(db, "SELECT l1_bytes FROM kernel_summary WHERE config_id = 1"),
                   32.0 * (262144.5 + 262144), 1);
        CHECK(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id = 'uncoalesced-global-load'") ==
              0);
        sqlite3_close(db);
    }
    db = analyzed_two_profiles(9.27e6, 4456448, TIE_AND_SASS_BYTES, &o, 1);
    if (db) {
        CHECK(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id = 'uncoalesced-global-load'") ==
              0);
        sqlite3_close(db);
    }
    /* Without the set-aside the average would fire: the strided profile alone does. */
    db = build_report(two_profiles_report);
    CHECK(db != NULL);
    if (db) {
        CHECK(store_exec(db, "UPDATE metric SET value = 4456448 WHERE metric_id ="
                             " (SELECT id FROM metric_name WHERE name ="
                             " 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum')") == 0);
        CHECK(analyzer_analyze(db, &o) == 0);
        CHECK(count(db, "SELECT COUNT(*) FROM finding WHERE rule_id = 'uncoalesced-global-load'") ==
              1);
        sqlite3_close(db);
    }
    free(d);
}

/*
 * A configuration that was traced and never profiled (filtered out with
 * -k, or past --launch-count) has no memory-pipe figures: the rules that
 * need latency exposed stay silent on it instead of reading "memory pipes
 * 0.0 % busy" (seen on the H200: latency-not-hidden on a one-block
 * launch of a PyTorch kernel that -k had left unprofiled).
 */
static void
test_analyzer_unprofiled_config_not_judged_on_latency(void)
{
    sqlite3 *db = build_report(
        "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, 'a', 'a'), (2, 'b', 'b');\n"
        "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, "
        "block_z,\n"
        "  dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES\n"
        "  (1, 1, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32), (2, 2, 0, 8, 1, 1, 128, 1, 1, 0, 0, 32);\n"
        "INSERT INTO fx_launch VALUES (1, 10, 100000), (2, 50, 200000);\n"
        "INSERT INTO fx_metric VALUES (1, 'dram__bytes_read.sum', 16e6),\n"
        "  (1, 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 5e5);\n");
    CHECK(db != NULL);
    if (!db)
        return;
    char *d = default_rules();
    struct analyzer_opts o = {.rules_dir = d};
    CHECK(analyzer_analyze(db, &o) == 0);
    CHECK(count(db, "SELECT COUNT(*) FROM rule_run WHERE rule_id = 'latency-not-hidden' AND status "
                    "= 'ran'") == 1);
    CHECK(count(db, "SELECT COUNT(*) FROM finding WHERE config_id = 2") == 0);
    sqlite3_close(db);
    free(d);
}

static const struct check_test tests[] = {
    {"analyzer_occupancy_matches_h200", test_analyzer_occupancy_matches_h200},
    {"analyzer_default_rules_load", test_analyzer_default_rules_load},
    {"analyzer_user_rule_fires", test_analyzer_user_rule_fires},
    {"analyzer_threshold_edit_changes_findings", test_analyzer_threshold_edit_changes_findings},
    {"analyzer_no_report", test_analyzer_no_report},
    {"analyzer_user_rule_cannot_write", test_analyzer_user_rule_cannot_write},
    {"analyzer_rule_errors_name_file_and_line", test_analyzer_rule_errors_name_file_and_line},
    {"analyzer_summary_for_every_kernel", test_analyzer_summary_for_every_kernel},
    {"analyzer_kernel_occupancy_same_configs", test_analyzer_kernel_occupancy_same_configs},
    {"analyzer_profiled_only_config_timed", test_analyzer_profiled_only_config_timed},
    {"analyzer_capping_and_severity", test_analyzer_capping_and_severity},
    {"analyzer_severity_scale", test_analyzer_severity_scale},
    {"analyzer_waiting_kernel_not_work", test_analyzer_waiting_kernel_not_work},
    {"analyzer_one_time_setup", test_analyzer_one_time_setup},
    {"analyzer_loop_setup", test_analyzer_loop_setup},
    {"analyzer_setup_harness", test_analyzer_setup_harness},
    {"analyzer_occupancy_unmeasured", test_analyzer_occupancy_unmeasured},
    {"analyzer_rule_texts_for_engineers", test_analyzer_rule_texts_for_engineers},
    {"analyzer_compute_roof", test_analyzer_compute_roof},
    {"analyzer_compute_roof_groups", test_analyzer_compute_roof_groups},
    {"analyzer_open_report_read_only", test_analyzer_open_report_read_only},
    {"analyzer_no_profiled_launches", test_analyzer_no_profiled_launches},
    {"analyzer_extreme_times", test_analyzer_extreme_times},
    {"analyzer_footprint_older_report", test_analyzer_footprint_older_report},
    {"analyzer_profiles_of_other_work_set_aside", test_analyzer_profiles_of_other_work_set_aside},
    {"analyzer_one_pass_groups_join", test_analyzer_one_pass_groups_join},
    {"analyzer_sass_metrics_under_user_replay", test_analyzer_sass_metrics_under_user_replay},
    {"analyzer_groups_missing_share", test_analyzer_groups_missing_share},
    {"analyzer_unprofiled_config_not_judged_on_latency",
     test_analyzer_unprofiled_config_not_judged_on_latency},
};

/* e2e helper: write the sample report (or one without profiled launches) to a file. */
static int
mkreport(const char *path, int profiled)
{
    sqlite3 *db = NULL;
    char *base = NULL, *tail = NULL, p[4096];
    int ret = 1;
    if (store_create(path, "synthetic", &db))
        goto out;
    snprintf(p, sizeof(p), "%s/tests/fixtures/rule-base.sql", src_dir());
    base = read_text(p);
    snprintf(p, sizeof(p), "%s/tests/fixtures/rule-tail.sql", src_dir());
    tail = read_text(p);
    if (!base || !tail || store_exec(db, base) || store_exec(db, sample_report) ||
        (!profiled && store_exec(db, "DELETE FROM fx_metric")) || store_exec(db, tail) ||
        store_exec(db, "PRAGMA journal_mode = DELETE"))
        goto out;
    ret = 0;
out:
    if (ret)
        fprintf(stderr, "mkreport: %s\n", store_error());
    sqlite3_close(db);
    free(base);
    free(tail);
    return ret;
}

/* e2e helper: write the synthetic report of one fixture (base, FIXTURE, tail) to a file. */
static int
mkfixture(const char *fixture, const char *path)
{
    sqlite3 *db = NULL;
    char *text = read_text(fixture);
    int ret = 1;
    if (!text || store_create(path, "synthetic", &db) || exec_file(db, "rule-base.sql") ||
        store_exec(db, text) || exec_file(db, "rule-tail.sql") ||
        store_exec(db, "PRAGMA journal_mode = DELETE"))
        fprintf(stderr, "mkfixture %s: %s\n", fixture, text ? store_error() : "unreadable");
    else
        ret = 0;
    sqlite3_close(db);
    free(text);
    return ret;
}

/* e2e helper: run SQL on a file (no version check) and print rows, '|'-separated. */
static int
run_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fprintf(stderr, "sql: cannot open %s\n", path);
        sqlite3_close(db);
        return 1;
    }
    const char *tail = sql;
    int ret = 0;
    while (tail && *tail && ret == 0) {
        if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
            fprintf(stderr, "sql: %s\n", sqlite3_errmsg(db));
            ret = 1;
            break;
        }
        if (!st)
            break;
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            for (int i = 0; i < sqlite3_column_count(st); i++) {
                const char *v = (const char *)sqlite3_column_text(st, i);
                printf("%s%s", i ? "|" : "", v ? v : "");
            }
            printf("\n");
        }
        if (rc != SQLITE_DONE) {
            fprintf(stderr, "sql: %s\n", sqlite3_errmsg(db));
            ret = 1;
        }
        sqlite3_finalize(st);
        st = NULL;
    }
    sqlite3_close(db);
    return ret;
}

int
main(int argc, char **argv)
{
    if (argc >= 5 && !strcmp(argv[1], "golden"))
        return golden(argv[2], argv[3], argv[4]);
    if (argc >= 4 && !strcmp(argv[1], "mkfixture"))
        return mkfixture(argv[2], argv[3]);
    if (argc >= 3 && !strcmp(argv[1], "mkreport"))
        return mkreport(argv[2], !(argc >= 4 && !strcmp(argv[3], "noprofile")));
    if (argc >= 4 && !strcmp(argv[1], "sql"))
        return run_sql(argv[2], argv[3]);
    /* the checks read the fixtures: without them every check after the first would fail on NULLs */
    char base[4096];
    snprintf(base, sizeof(base), "%s/tests/fixtures/rule-base.sql", src_dir());
    if (access(base, R_OK) != 0) {
        fprintf(stderr,
                "test_analyzer: cannot read %s (set GPUHIER_SOURCE_DIR to the source tree)\n",
                base);
        return 2;
    }
    return check_run(tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
