/* SPDX-License-Identifier: MIT */
/*
 * test_export_report.h: the synthetic reports the export tests use.
 * SYNTHETIC: every number below is made up to give the writers something
 * of the right shape (meta.created_by = 'synthetic'); nothing is measured.
 *
 * make_report(path, variant) creates a report file (or ":memory:") with
 * run, device, kernel, config, kernel_summary, analysis, rule_run,
 * finding and finding_evidence rows:
 *   EXR_NASTY  kernel names with quotes, backslashes, control characters,
 *              ESC sequences, <&>, Markdown syntax, invalid UTF-8 and a
 *              64 KB name; a command line and environment with secrets;
 *   EXR_BEFORE / EXR_AFTER  a before/after pair for check --baseline and
 *              diff (same kernels; one finding fixed, one new, one worse);
 *   EXR_EMPTY  a run with kernels but no findings;
 *   EXR_HTML   EXR_NASTY plus what the HTML page draws: two devices,
 *              profiled launches with counters, per-configuration
 *              summaries, copies, and script-shaped kernel, device and
 *              copy names (EXR_HTML_NAME).
 * Also used by the e2e scripts through `test_export --make-report`.
 */
#ifndef GPUHIER_TESTS_TEST_EXPORT_REPORT_H
#define GPUHIER_TESTS_TEST_EXPORT_REPORT_H

#include "schema/store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum exr_variant { EXR_NASTY, EXR_BEFORE, EXR_AFTER, EXR_EMPTY, EXR_HTML };

/* EXR_HTML: the kernel, device and copy names a page must keep inert. */
static const char EXR_HTML_NAME[] = "<script>alert(\"k\")</script><img src=x onerror=alert(1)>"
                                    "\"q' \xe2\x80\xae"
                                    "desrever \xff tail";
#define EXR_HTML_POINTS_DEV0 5 /* profiled configurations placed on device 0's roofline */
#define EXR_HTML_POINTS_DEV1 1
#define EXR_HTML_NOT_PLACED 1 /* config 4: profiled without an instruction count */

#define EXR_SECRET_TOKEN "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
#define EXR_SECRET_PASSWORD "hunter2hunter2"
#define EXR_SECRET_URLPASS "pa55w0rdURL"
#define EXR_SECRET_ENV "s3cr3t-env-value"

static const char EXR_NASTY_NAME[] = "evil\"quote'\\back\x01\x1b[31mred\x1b]0;title\x07<&>`**bold**"
                                     "` [x](http://e.x) | # @here \xff\xfe\xc0\xaf"
                                     " ]]> <!-- --> tail";

static int
exr_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "make_report: %s\n%s\n", msg ? msg : "?", sql);
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* Insert a kernel with raw (possibly invalid UTF-8) names. */
static int
exr_kernel(sqlite3 *db, int id, const char *mangled, const char *demangled, const char *short_name,
           const char *file, int line)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO kernel(id, mangled_name, demangled_name, short_name, "
                           "source_file, source_line)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int(st, 1, id);
    sqlite3_bind_text(st, 2, mangled, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, demangled, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, short_name, -1, SQLITE_TRANSIENT);
    if (file)
        sqlite3_bind_text(st, 5, file, -1, SQLITE_TRANSIENT);
    if (line > 0)
        sqlite3_bind_int(st, 6, line);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* EXR_HTML's rows beyond EXR_NASTY (all made up; see the file comment). */
static int
exr_html_rows(sqlite3 *db)
{
    int bad = exr_kernel(db, 5, "_Z6scriptv", EXR_HTML_NAME, EXR_HTML_NAME, EXR_HTML_NAME, 3);
    bad |= exr_exec(
        db,
        "UPDATE device SET name = '<script>alert(2)</script>H200 (synthetic)',"
        " sm_clock_khz = 1980000, pcie_gen = 5, pcie_width = 16 WHERE id = 0;"
        "INSERT INTO device(id, name, sm_count, sm_clock_khz, peak_dram_bw_bytes_per_s,"
        " measured_copy_bw_bytes_per_s) VALUES (1, 'second GPU (synthetic)', 66, 1500000,"
        " 2.0e12, 1.7e12);"
        "INSERT INTO config(id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y,"
        " block_z, dynamic_smem_bytes, launches, total_ns) VALUES"
        " (6, 5, 0, 8, 1, 1, 64, 1, 1, 0, 2, 60000), (7, 4, 1, 32, 1, 1, 256, 1, 1, 0, 3, 90000);"
        "INSERT INTO launch(id, kernel_id, config_id, device_id, start_ns, end_ns, profiled,"
        " profile_reason, config_launch_index) VALUES"
        " (1, 1, 1, 0, 1000, 401000, 1, 'first_of_config', 0),"
        " (11, 1, 2, 0, 500000, 800000, 1, 'first_of_config', 0),"
        " (3, 2, 3, 0, 900000, 1100000, 1, 'first_of_config', 0),"
        " (4, 3, 4, 0, 1200000, 1700000, 1, 'first_of_config', 0),"
        " (5, 4, 5, 0, 1800000, 1900000, 1, 'first_of_config', 0),"
        " (6, 5, 6, 0, 2000000, 2030000, 1, 'first_of_config', 0),"
        " (7, 4, 7, 1, 2100000, 2130000, 1, 'first_of_config', 0);"
        "INSERT INTO profile(launch_id, passes, metric_set) VALUES (1, 1, 'core'),"
        " (11, 1, 'core'), (3, 1, 'core'), (4, 1, 'core'), (5, 1, 'core'), (6, 1, 'core'),"
        " (7, 1, 'core');"
        "INSERT INTO metric_name(id, name) VALUES (1, 'smsp__inst_executed.sum'),"
        " (2, 'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed'),"
        " (3, 'lts__t_sectors_lookup_hit.sum'), (4, 'lts__t_sectors_lookup_miss.sum'),"
        " (5, 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'),"
        " (6, 'l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum'),"
        " (7, 'sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed'),"
        " (8, 'sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed'),"
        " (9, 'sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed');"
        /*
         * config 3 (launch 3) has every pipe's counter: a pipe tick; config 2
         * (launch 11) the tensor pipe's alone: its busiest pipe is unknown, no tick
         */
        /* config 4 (launch 4) has no instruction count: profiled, not placed */
        "INSERT INTO metric(launch_id, metric_id, value) VALUES"
        " (1, 1, 4.2e6), (1, 3, 1.0e6), (1, 4, 4.0e6), (1, 5, 4.2e6), (1, 6, 1.3e5),"
        " (11, 1, 3.1e6), (11, 2, 0.0003), (3, 1, 9.0e5), (3, 2, 40), (3, 7, 5), (3, 8, 3),"
        " (3, 9, 0), (5, 1, 2.0e5), (6, 1, 5.0e4),"
        " (7, 1, 8.0e5), (4, 3, 10), (4, 4, 10);"
        "INSERT INTO kernel_summary(kernel_id, config_id, launches, profiled_launches,"
        " total_ns, mean_ns, dram_bytes, l2_bytes, floor_ratio, bound_tier) VALUES"
        " (1, 1, 10, 1, 4000000, 400000, 1.34e8, 1.6e8, 14.3, 'dram'),"
        " (1, 2, 10, 1, 3000000, 300000, 1.0e8, 1.2e8, 10.7, 'l2'),"
        " (2, 3, 5, 1, 1000000, 200000, 1.0e6, 2.0e6, 400, 'tensor'),"
        " (3, 4, 1, 1, 500000, 500000, 1.0e5, NULL, 5000, 'shared'),"
        " (4, 5, 1, 1, 100000, 100000, 1.0e5, 3.0e5, 1.1, 'dram'),"
        " (5, 6, 2, 1, 60000, 30000, 2.0e4, NULL, 9.9, '<b>bold</b>'),"
        " (4, 7, 3, 1, 90000, 30000, 5.0e5, 6.0e5, 2.0, 'compute'),"
        " (5, NULL, 2, 1, 60000, 30000, 2.0e4, NULL, 9.9, '<b>bold</b>');"
        "INSERT INTO copy(id, op, copy_kind, src_kind, dst_kind, bytes, start_ns, end_ns,"
        " device_id) VALUES"
        " (1, 'memcpy', 'HtoD', 'pageable', 'device', 4.8e7, 0, 300000, 0),"
        " (2, 'memcpy', 'HtoD', 'pageable', 'device', 1.0e6, 300100, 310000, 0),"
        " (3, 'memcpy', 'DtoH', 'device', 'pinned', 1.0e6, 2200000, 2250000, 0),"
        " (4, 'memset', NULL, NULL, 'device', 4096, 1150000, 1151000, 0),"
        " (5, 'memcpy', '<script>alert(3)</script>', 'x<img>', 'device', 10, 2300000,"
        " 2300100, 0)");
    return bad;
}

static sqlite3 *
make_report(const char *path, enum exr_variant v)
{
    sqlite3 *db = NULL;
    if (strcmp(path, ":memory:"))
        remove(path);
    if (store_create(path, "synthetic", &db)) {
        fprintf(stderr, "make_report: %s\n", store_error());
        return NULL;
    }
    int html = v == EXR_HTML;
    if (html)
        v = EXR_NASTY;
    int after = v == EXR_AFTER;
    int bad = exr_exec(db, "BEGIN");
    bad |= store_meta_set(
        db, "provenance",
        "SYNTHETIC: tests/unit/test_export_report.h, made-up rows for the export tests; "
        "nothing here was measured");
    bad |= exr_exec(
        db,
        "INSERT INTO run(id, command_line, program, cwd, env, host, pid, ppid, start_ns, end_ns,"
        " tool_version, mode, clean_exit) VALUES (1,"
        " '[\"./app\",\"--token=" EXR_SECRET_TOKEN "\",\"--password\",\"" EXR_SECRET_PASSWORD "\","
        "\"-p\",\"keep-me\",\"https://user:" EXR_SECRET_URLPASS "@example.com/x\",\"--size=1024\","
        "\"it''s a \\\"quoted\\\" arg\"]',"
        " '/work/proj/app', '/work/proj',"
        " '{\"CUDA_VISIBLE_DEVICES\":\"0\",\"HOME\":\"/home/"
        "secret-home\",\"GPUHIER_API_TOKEN\":\"" EXR_SECRET_ENV
        "\",\"LD_LIBRARY_PATH\":\"/opt/lib\"}',"
        " 'testhost', 4242, 1, 1000, 2000, '0.1.0', 'profile', 1)");
    bad |= exr_exec(
        db,
        "INSERT INTO device(id, name, chip, cc_major, cc_minor, sm_count, peak_dram_bw_bytes_per_s)"
        " VALUES (0, 'NVIDIA H200 (synthetic)', 'GH100', 9, 0, 132, 4.8e12)");
    bad |=
        exr_kernel(db, 1, "_Z15transpose_naivePfPKfi", "transpose_naive(float*, float const*, int)",
                   "transpose_naive", "/work/proj/src/transpose.cu", 42);
    bad |= exr_kernel(db, 2, "_Z4evilv", EXR_NASTY_NAME, "evil<&>", "src/we ird#file.cu", 7);
    size_t big = 64 * 1024;
    char *huge = malloc(big + 1);
    for (size_t i = 0; i < big; i++)
        huge[i] = "huge_kernel<\x01&\xff>|`*"[i % 19];
    huge[big] = '\0';
    bad |= exr_kernel(db, 3, "_Z4hugev", huge, huge, NULL, 0);
    free(huge);
    bad |= exr_kernel(db, 4, "_Z11good_kernelv", "good_kernel()", "good_kernel", NULL, 0);
    bad |= exr_exec(
        db, "INSERT INTO config(id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, "
            "block_y, block_z,"
            " dynamic_smem_bytes, static_smem_bytes, registers_per_thread, local_bytes_per_thread,"
            " theoretical_occupancy_pct, occupancy_limiter, launches, total_ns) VALUES"
            " (1, 1, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32, 0, 100, 'warps', 10, 4000000),"
            " (2, 1, 0, 2048, 1, 1, 512, 1, 1, 0, 0, 32, 0, 100, 'warps', 10, 3000000),"
            " (3, 2, 0, 64, 1, 1, 128, 1, 1, 1024, 0, 255, 512, 25, 'registers', 5, 1000000),"
            " (4, 3, 0, 1, 1, 1, 32, 1, 1, 0, 4096, 16, 0, 50, 'blocks', 1, 500000),"
            " (5, 4, 0, 128, 1, 1, 128, 1, 1, 0, 0, 16, 0, 100, 'warps', 1, 100000)");
    /* Rule set of the "analysis": one rule skipped, as the analyzer records it. */
    bad |= exr_exec(db, "INSERT INTO analysis(id, ruleset_version, tool_version, analyzed_ns, "
                        "run_gpu_ns, rules_dir)"
                        " VALUES (1, 'synthetic-ruleset', '0.1.0', 3000, 8600000, 'rules')");
    bad |= exr_exec(
        db,
        "INSERT INTO rule_run(rule_id, title, tier, status, note, findings) VALUES"
        " ('uncoalesced-global-load', 'Uncoalesced global loads', 'l1', 'ran', NULL, 1),"
        " ('local-memory-traffic', 'Local memory (spill) traffic', 'registers', 'ran', NULL, 1),"
        " ('shared-bank-conflicts', 'Shared-memory bank conflicts', 'shared', 'ran', NULL, 1),"
        " ('l2-reread-miss', 'Re-read data misses L2', 'l2', 'skipped',"
        "  'metric ''lts__t_sectors_lookup_miss.sum'' not in report', 0),"
        " ('pageable-copy', 'Copies from pageable host memory', 'host', 'ran', NULL, 1)");
    /* Kernel summaries (config_id NULL: per kernel), for diff. */
    char sql[2048];
    snprintf(
        sql, sizeof(sql),
        "INSERT INTO kernel_summary(kernel_id, config_id, launches, profiled_launches, total_ns, "
        "mean_ns,"
        " share_pct, dram_bytes, requested_bytes, useful_bytes, floor_ns, floor_ratio, bound_tier,"
        " achieved_occupancy_pct, findings, worst_severity, time_lost_ns) VALUES"
        " (1, NULL, 20, 2, %d, %g, 81.4, 1.34e8, 1.34e8, 1.34e8, 28000, %g, 'dram', 70, 1, "
        "'error', %d),"
        " (2, NULL, 5, 1, 1000000, 200000, 11.6, 1e6, 1e6, 1e6, 500, 400, 'registers', 20, 1, "
        "'warning', 400000),"
        " (3, NULL, 1, 1, 500000, 500000, 5.8, 1e5, 1e5, 1e5, 100, 5000, 'shared', 40, 1, 'note', "
        "50000),"
        " (4, NULL, 1, 1, 100000, 100000, 1.2, 1e5, 1e5, 1e5, 90, 1.1, 'dram', 90, 0, NULL, 0)",
        after ? 700000 : 7000000, after ? 35000.0 : 350000.0, after ? 1.25 : 12.5,
        after ? 0 : 5000000);
    bad |= exr_exec(db, sql);
    if (v != EXR_EMPTY) {
        /* Finding 1: present before, fixed after. */
        if (!after) {
            bad |= exr_exec(
                db, "INSERT INTO finding(id, rank, rule_id, title, tier, severity, kernel_id, "
                    "config_id,"
                    " message, remedy, doc_ref, time_lost_ns_per_launch, time_lost_ns, "
                    "time_lost_raw_ns,"
                    " share_pct, launches, profiled_launch_id) VALUES"
                    " (1, 1, 'uncoalesced-global-load', 'Uncoalesced global loads', 'l1', 'error', "
                    "1, 1,"
                    "  'Each warp load touches 32 sectors instead of 4 (8x the useful bytes).',"
                    "  'Make consecutive threads read consecutive addresses; stage the tile in "
                    "shared memory.',"
                    "  'H \xc2\xa7"
                    "4.5 La r\xc3\xa8gle de coalescence', 350000, 3500000, 4000000, 40.7, 10, 1),"
                    " (5, 5, 'uncoalesced-global-load', 'Uncoalesced global loads', 'l1', "
                    "'warning', 1, 2,"
                    "  'Same kernel, another launch configuration.', 'Same remedy.', 'H \xc2\xa7"
                    "4.5',"
                    "  50000, 500000, 500000, 5.8, 10, 11)");
            bad |= exr_exec(db, "INSERT INTO finding_evidence(finding_id, seq, name, value, "
                                "text_value, unit, threshold, op) VALUES"
                                " (1, 0, 'sectors_per_request', 32, NULL, 'sectors', 4, '>'),"
                                " (1, 1, 'requested_bytes', 1.34e8, NULL, 'bytes', NULL, NULL),"
                                " (1, 2, 'access', NULL, 'stride 32 floats', NULL, NULL, NULL),"
                                " (5, 0, 'sectors_per_request', 16, NULL, 'sectors', 4, '>')");
        }
        /* Finding 2: on the nasty kernel; worse after (more time lost). */
        sqlite3_stmt *st;
        sqlite3_prepare_v2(
            db,
            "INSERT INTO finding(id, rank, rule_id, title, tier, severity, kernel_id, config_id,"
            " message, remedy, doc_ref, time_lost_ns_per_launch, time_lost_ns, time_lost_raw_ns,"
            " share_pct, launches, profiled_launch_id) VALUES"
            " (2, 2, 'local-memory-traffic', 'Local memory (spill) traffic', 'registers', "
            "'warning',"
            "  2, 3, ?1, ?2, 'E \xc2\xa7"
            "2.1 Registros', ?3, ?4, ?4, ?5, 5, 3)",
            -1, &st, NULL);
        char msg[512];
        snprintf(msg, sizeof(msg),
                 "Kernel %s spills: 512 B local per thread \x1b[2J\r\nforged line", EXR_NASTY_NAME);
        sqlite3_bind_text(st, 1, msg, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(
            st, 2,
            "Reduce register pressure: `__launch_bounds__`, <smaller> & simpler | tiles ## "
            "[click](javascript:alert(1)) @team",
            -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 3, after ? 120000 : 80000);
        sqlite3_bind_double(st, 4, after ? 600000 : 400000);
        sqlite3_bind_double(st, 5, after ? 7.0 : 4.7);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        bad |= rc != SQLITE_DONE;
        bad |= exr_exec(db, "INSERT INTO finding_evidence(finding_id, seq, name, value, "
                            "text_value, unit, threshold, op) VALUES"
                            " (2, 0, 'local_bytes_per_thread', 512, NULL, 'bytes', 0, '>'),"
                            " (2, 1, 'local_sectors', 1.5e6, NULL, 'sectors', 0, '>')");
        /* Finding 3: note on the 64 KB kernel; unchanged. */
        bad |= exr_exec(
            db,
            "INSERT INTO finding(id, rank, rule_id, title, tier, severity, kernel_id, config_id,"
            " message, remedy, doc_ref, time_lost_ns_per_launch, time_lost_ns, time_lost_raw_ns,"
            " share_pct, launches, profiled_launch_id) VALUES"
            " (3, 3, 'shared-bank-conflicts', 'Shared-memory bank conflicts', 'shared', 'note', 3, "
            "4,"
            "  '4-way bank conflicts on shared loads.', 'Pad the shared array by one word per "
            "row.',"
            "  'H \xc2\xa7"
            "5.3', 50000, 50000, 50000, 0.58, 1, 4)");
        bad |= exr_exec(db, "INSERT INTO finding_evidence(finding_id, seq, name, value, "
                            "text_value, unit, threshold, op) VALUES"
                            " (3, 0, 'conflicts_per_request', 3, NULL, 'ways', 1, '>')");
        /* Finding 4: run level (copies); after the fix a new one appears on kernel 4. */
        bad |= exr_exec(
            db,
            "INSERT INTO finding(id, rank, rule_id, title, tier, severity, kernel_id, config_id,"
            " message, remedy, doc_ref, time_lost_ns_per_launch, time_lost_ns, time_lost_raw_ns,"
            " share_pct, launches, profiled_launch_id) VALUES"
            " (4, 4, 'pageable-copy', 'Copies from pageable host memory', 'host', 'warning', NULL, "
            "NULL,"
            "  '12 HtoD copies from pageable memory (48 MB) ran at 6 GB/s.', 'Use cudaMallocHost.',"
            "  'H \xc2\xa7"
            "2.4', NULL, 200000, 200000, 2.3, NULL, NULL)");
        if (after)
            bad |= exr_exec(db, "INSERT INTO finding(id, rank, rule_id, title, tier, severity, "
                                "kernel_id, config_id,"
                                " message, remedy, doc_ref, time_lost_ns_per_launch, time_lost_ns, "
                                "time_lost_raw_ns,"
                                " share_pct, launches, profiled_launch_id) VALUES"
                                " (6, 6, 'shared-bank-conflicts', 'Shared-memory bank conflicts', "
                                "'shared', 'warning', 4, 5,"
                                "  'New conflicts.', 'Pad.', 'H \xc2\xa7"
                                "5.3', 20000, 20000, 20000, 1.5, 1, 5)");
    }
    if (html)
        bad |= exr_html_rows(db);
    bad |= exr_exec(db, "COMMIT");
    if (bad) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

#endif
