/* SPDX-License-Identifier: MIT */
/*
 * test_occupancy: the calculator against values read on the H200 with
 * cuOccupancyMaxActiveBlocksPerMultiprocessor (tests/fixtures/occupancy-h200.txt,
 * written by tests/gpu/occupancy_probe.cu), plus hand-checked cases for
 * the limiter names.
 */
#include "collector/occupancy.h"
#include "tests/check.h"

#include <limits.h>

static const char *
kv(const char *line, const char *key, char *buf, size_t n)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    size_t i = 0;
    while (p[i] && p[i] != ' ' && p[i] != '\n' && i + 1 < n) {
        buf[i] = p[i];
        i++;
    }
    buf[i] = 0;
    return buf;
}

static int
kvi(const char *line, const char *key)
{
    char b[64];
    return kv(line, key, b, sizeof b) ? atoi(b) : INT_MIN;
}

static void
test_occupancy_h200_fixture(void)
{
    char path[4096];
    const char *src = getenv("GPUHIER_SOURCE_DIR");
#ifdef GPUHIER_SOURCE_DIR
    if (!src)
        src = GPUHIER_SOURCE_DIR;
#endif
    snprintf(path, sizeof path, "%s/tests/fixtures/occupancy-h200.txt", src ? src : ".");
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    struct occupancy_device d;
    occupancy_device_sm90(&d);
    char line[1024];
    int n = 0, bad = 0, has_device = 0, zero = 0;
    int distinct_regs[256] = {0};
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "device ", 7)) {
            /* the device's own limits, not our sm_90 defaults */
            d.max_warps_per_sm = kvi(line, "max_threads_per_sm") / kvi(line, "warp_size");
            d.max_blocks_per_sm = kvi(line, "max_blocks_per_sm");
            d.regs_per_sm = kvi(line, "regs_per_sm");
            d.regs_per_block = kvi(line, "regs_per_block");
            d.smem_per_sm_bytes = kvi(line, "smem_per_sm");
            d.smem_per_block_optin_bytes = kvi(line, "smem_per_block_optin");
            d.smem_reserved_per_block_bytes = kvi(line, "smem_reserved_per_block");
            d.warp_size = kvi(line, "warp_size");
            d.max_threads_per_block = kvi(line, "max_threads_per_block");
            has_device = 1;
            continue;
        }
        if (strncmp(line, "occ ", 4))
            continue;
        char res[64];
        CHECK_STR(kv(line, "result", res, sizeof res), "CUDA_SUCCESS");
        int pct = kvi(line, "carveout_pct");
        struct occupancy_launch l = {
            .threads_per_block = kvi(line, "block"),
            .regs_per_thread = kvi(line, "regs"),
            .static_smem_bytes = kvi(line, "static_smem"),
            .dynamic_smem_bytes = kvi(line, "dyn_smem"),
            .max_dynamic_smem_bytes = kvi(line, "max_dyn_smem"),
            .carveout_bytes = pct >= 0 ? occupancy_carveout_from_pct(&d, pct) : 0,
        };
        struct occupancy_result r;
        occupancy_compute(&d, &l, &r);
        int want = kvi(line, "blocks_per_sm");
        if (r.blocks_per_sm != want) {
            fprintf(stderr, "mismatch: got %d (%s) for %s", r.blocks_per_sm, r.limiter, line);
            bad++;
        }
        if (want == 0)
            zero++;
        if (l.regs_per_thread >= 0 && l.regs_per_thread < 256)
            distinct_regs[l.regs_per_thread] = 1;
        n++;
    }
    fclose(f);
    int nregs = 0;
    for (int i = 0; i < 256; i++)
        nregs += distinct_regs[i];
    printf(
        "occupancy: %d H200 configurations, %d register counts, %d unlaunchable, %d mismatches\n",
        n, nregs, zero, bad);
    CHECK(has_device);
    CHECK(n >= 20);
    CHECK(nregs >= 8);
    CHECK(zero >= 1);
    CHECK_EQ_INT(bad, 0);
}

static struct occupancy_result
calc(int threads, int regs, int smem, int carveout)
{
    struct occupancy_device d;
    occupancy_device_sm90(&d);
    struct occupancy_launch l = {.threads_per_block = threads,
                                 .regs_per_thread = regs,
                                 .dynamic_smem_bytes = smem,
                                 .carveout_bytes = carveout};
    struct occupancy_result r;
    occupancy_compute(&d, &l, &r);
    return r;
}

static void
test_occupancy_limiters(void)
{
    /* RULES-FROM-DOCS rule 2: 32 regs -> 100 %, 64 -> 50 %, 128 -> 25 %, 255 -> 12.5 % */
    struct occupancy_result r = calc(256, 32, 0, 0);
    CHECK_NEAR(r.occupancy_pct, 100.0, 1e-9);
    CHECK_STR(r.limiter, "warps");
    r = calc(256, 64, 0, 0);
    CHECK_NEAR(r.occupancy_pct, 50.0, 1e-9);
    CHECK_STR(r.limiter, "registers");
    r = calc(256, 128, 0, 0);
    CHECK_NEAR(r.occupancy_pct, 25.0, 1e-9);
    r = calc(128, 255, 0, 0);
    CHECK_NEAR(r.occupancy_pct, 12.5, 1e-9);
    CHECK_STR(r.limiter, "registers");
    /* 32-thread blocks cap at 50 % through the 32 block slots (rule 13) */
    r = calc(32, 16, 0, 0);
    CHECK_EQ_INT(r.blocks_per_sm, 32);
    CHECK_NEAR(r.occupancy_pct, 50.0, 1e-9);
    CHECK_STR(r.limiter, "blocks");
    /* 100 KB of shared memory: 2 blocks of 128 threads (1 KB reserved each) */
    r = calc(128, 32, 100 * 1024, 0);
    CHECK_EQ_INT(r.blocks_per_sm, 2);
    CHECK_STR(r.limiter, "shared_memory");
    /* 113 KB + 1 KB reserved = 114 KB: two fit in 228 KB, 113 KB + 1 byte does not */
    CHECK_EQ_INT(calc(128, 32, 113 * 1024, 0).blocks_per_sm, 2);
    CHECK_EQ_INT(calc(128, 32, 113 * 1024 + 1, 0).blocks_per_sm, 1);
    /* cannot launch */
    r = calc(1025, 32, 0, 0);
    CHECK_EQ_INT(r.blocks_per_sm, 0);
    r = calc(1024, 255, 0, 0);
    CHECK_EQ_INT(r.blocks_per_sm, 0);
    CHECK_STR(r.limiter, "registers");
    r = calc(128, 32, 228 * 1024, 0);
    CHECK_EQ_INT(r.blocks_per_sm, 0);
    CHECK_STR(r.limiter, "shared_memory");
    /* a carveout smaller than the block is raised to the step that fits it */
    r = calc(256, 16, 30000, 32 * 1024);
    CHECK_EQ_INT(r.blocks_per_sm, 1);
    CHECK_EQ_INT(r.carveout_bytes, 32 * 1024);
    /*
     * The driver's own carveout choice, as Nsight Compute showed it on the
     * H200 for a 16-register kernel without shared memory
     * (bench/agreement/testdata): 32 KB for 256-thread blocks, 16 KB for
     * 512; the shared-memory limits are 32 and 16 blocks and never bind.
     */
    r = calc(256, 16, 0, 32768);
    CHECK_EQ_INT(r.limit_shared_memory, 32);
    CHECK_EQ_INT(r.limit_registers, 16);
    CHECK_EQ_INT(r.blocks_per_sm, 8);
    CHECK_STR(r.limiter, "warps");
    r = calc(512, 16, 0, 16384);
    CHECK_EQ_INT(r.limit_shared_memory, 16);
    CHECK_EQ_INT(r.limit_registers, 8);
    CHECK_EQ_INT(r.blocks_per_sm, 4);
    /*
     * 32-thread blocks without shared memory at the 32 KB carveout the
     * driver executed on the H200 (launch-block-32, 2026-11-29): 32 blocks
     * by block slots and 32 by the 1 KB reserved per block. The carveout
     * was sized to the block slots, so the block slots are the limiter.
     */
    r = calc(32, 16, 0, 32768);
    CHECK_EQ_INT(r.limit_shared_memory, 32);
    CHECK_EQ_INT(r.blocks_per_sm, 32);
    CHECK_STR(r.limiter, "blocks");
    CHECK_EQ_INT(occupancy_align_carveout(0), 0);
    CHECK_EQ_INT(occupancy_align_carveout(8193), 16 * 1024);
    CHECK_EQ_INT(occupancy_align_carveout(228 * 1024 + 1), -1);
}

static void
test_occupancy_clusters(void)
{
    struct occupancy_device d;
    occupancy_device_sm90(&d);
    struct occupancy_launch l = {
        .threads_per_block = 128, .regs_per_thread = 32, .cluster_size = 16};
    struct occupancy_result r;
    CHECK_EQ_INT(occupancy_compute(&d, &l, &r), -1);
    CHECK_STR(r.limiter, "clusters");
    l.cluster_size = 8;
    CHECK_EQ_INT(occupancy_compute(&d, &l, &r), 0);
    CHECK_EQ_INT(r.blocks_per_sm, 16);
}

static const struct check_test tests[] = {
    {"test_occupancy_h200_fixture", test_occupancy_h200_fixture},
    {"test_occupancy_limiters", test_occupancy_limiters},
    {"test_occupancy_clusters", test_occupancy_clusters},
};
CHECK_MAIN(tests)
