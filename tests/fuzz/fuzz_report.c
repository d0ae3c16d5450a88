/* SPDX-License-Identifier: MIT */
/*
 * fuzz_report: a libFuzzer target for everything that reads a report.
 *
 * Each input is written as a report file and goes through the store's
 * open path (store_open, store_diagnose, the in-memory copy), then each
 * reader on what opened: the analyzer (analyzer_open_report, which
 * analyzes a copy in memory), every plain-text view of `gpuhier report`
 * (tui_report), every export format, check and diff. Outputs go to
 * /dev/null; what is checked is that nothing crashes, hangs, leaks or
 * trips ASan/UBSan, whatever the bytes. Failures of the readers are
 * expected (most mutations damage the file) and ignored.
 *
 * Seeds: the shipped demo reports (demo/*.db); run it with
 * tests/fuzz/run.sh. Built only with -DGPUHIER_FUZZ=ON and clang.
 */
#include "analyzer/analyzer.h"
#include "export/export.h"
#include "schema/store.h"
#include "tui/tui.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/gh-fuzz-XXXXXX";
static char path[64];
static FILE *devnull;
static const char *rules_dir = GPUHIER_SOURCE_DIR "/rules";

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (!mkdtemp(dir))
        abort();
    snprintf(path, sizeof(path), "%s/r.db", dir);
    devnull = fopen("/dev/null", "w");
    if (!devnull)
        abort();
    const char *env = getenv("GPUHIER_RULES_DIR");
    if (env && *env)
        rules_dir = env;
    return 0;
}

/* Remove the report and whatever SQLite left beside it. */
static void
clean(void)
{
    static const char *const parts[] = {"", "-journal", "-wal", "-shm"};
    char p[96];
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        snprintf(p, sizeof(p), "%s%s", path, parts[i]);
        unlink(p);
    }
}

static void
readers(sqlite3 *db)
{
    static const char *const views[][2] = {
        {"summary", NULL}, {"kernels", NULL}, {"configs", NULL}, {"findings", NULL},
        {"copies", NULL},  {"finding", "1"},  {"kernel", "t"},   {"profiles", "t"},
        {"kernel", "tk_"}, {"finding", "2"},  {"finding", "-1"}, {"kernel", "_Z"},
        {"source", "t"},   {"source", "_Z"},
    };
    for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
        for (int all = 0; all < 2; all++)
            tui_report(db, views[i][0], views[i][1], all, devnull);
    static const char *const formats[] = {"md", "json", "csv", "sarif", "junit", "html"};
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        struct export_opts o = {.format = formats[i], .redact = 1};
        export_write(db, &o, devnull);
    }
    struct export_check_opts c = {.fail_on = "note"};
    export_check(db, NULL, &c, devnull);
    export_check(db, db, &c, devnull);
    static const char *const diffs[] = {"text", "json", "md"};
    for (size_t i = 0; i < sizeof(diffs) / sizeof(diffs[0]); i++) {
        struct export_diff_opts d = {.format = diffs[i], .before_name = "a", .after_name = "b"};
        export_diff(db, db, &d, devnull);
    }
    long long configs, profiled;
    double pct;
    store_profile_coverage(db, &configs, &profiled, &pct);
    analyzer_profiles_set_aside(db, &configs, &profiled);
    analyzer_print_top(db, devnull, 20, 0);
    analyzer_print_top(db, devnull, 0, 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clean();
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    sqlite3 *db = NULL;
    if (store_open(path, STORE_READ_ONLY, &db) == 0) {
        readers(db); /* the report as it is, as --raw reads it */
        sqlite3_close(db);
        store_diagnose(path);
        struct analyzer_opts o = {.rules_dir = rules_dir};
        if (analyzer_open_report(path, &o, &db) == 0) {
            readers(db);
            sqlite3_close(db);
        }
    }
    (void)store_error();
    (void)store_failure();
    clean();
    return 0;
}
