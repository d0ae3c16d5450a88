/* SPDX-License-Identifier: MIT */
/*
 * test_onepass: the one-pass group plan the range profiler collects by
 * default (collector/onepass.c), packed offline for GH100 through the
 * CUPTI Profiler Host API (no GPU needed), and the order of a
 * configuration's later groups, on made-up values. Prints the plan
 * docs/metrics.md quotes. Exits 77 if libcupti cannot be loaded.
 */
#include "collector/cupti_load.h"
#include "collector/metrics.h"
#include "collector/onepass.h"
#include "tests/check.h"

static const char *chip = "GH100";

static int
plan_has(const struct onepass_plan *p, size_t g, const char *name)
{
    for (size_t i = 0; i < p->packing.count[g]; i++)
        if (!strcmp(p->packing.names[g][i], name))
            return 1;
    return 0;
}

/* Every group fits one pass, no bundle is split, group 1 serves the floor first. */
static void
test_onepass_plan(void)
{
    struct onepass_plan p;
    char err[512] = "";
    int rc = onepass_plan_build(&p, chip, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        return;
    CHECK(p.ngroups >= 2 && p.ngroups <= ONEPASS_MAX_GROUPS);
    CHECK_EQ_INT((int)p.left_out, 0);
    printf("| group | counters | names |\n| --- | --- | --- |\n");
    for (size_t g = 0; g < p.ngroups; g++) {
        int passes = metrics_count_passes(chip, (const char *const *)p.packing.names[g],
                                          p.packing.count[g], err, sizeof err);
        CHECK_EQ_INT(passes, 1);
        printf("| %zu | %zu |", g + 1, p.packing.count[g]);
        for (size_t i = 0; i < p.packing.count[g]; i++)
            printf(" `%s`", p.packing.names[g][i]);
        printf(" |\n");
        /* the ties that join a configuration's groups: instructions and duration in each */
        CHECK(plan_has(&p, g, "gpu__time_duration.sum"));
    }
    for (size_t i = 0; i < p.nbundles; i++) {
        int g = p.packing.group_of[i];
        printf("bundle %zu (%s): group %d\n", i + 1, p.bundles[i].what, g + 1);
        CHECK(g >= 0);
        for (size_t k = 0; g >= 0 && k < p.bundles[i].n; k++)
            CHECK(plan_has(&p, (size_t)g, p.bundles[i].names[k]));
    }
    /*
     * group 1 (a configuration launched once gets only it): the floor's bytes and time, the
     * global sectors and instructions (coalescing: issue 17's struct read launched once),
     * occupancy and the L1 hit rate. On GH100 the shared and local pattern counters do not
     * fit beside the global ones and land in later groups.
     */
    static const char *const first[] = {"dram__bytes_read.sum",
                                        "gpu__time_duration.sum",
                                        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                        "smsp__inst_executed_op_global_ld.sum",
                                        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                        "smsp__inst_executed_op_global_st.sum",
                                        "sm__warps_active.avg.pct_of_peak_sustained_active",
                                        "l1tex__t_sector_hit_rate.pct"};
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
        if (onepass_group_of(&p, first[i]) != 0)
            fprintf(stderr, "not in group 1: %s\n", first[i]);
        CHECK_EQ_INT(onepass_group_of(&p, first[i]), 0);
    }
    /* every name of the core set is in some group: a configuration with all its groups has
       every column a kernel-replay core profile has */
    size_t cn;
    const char *const *core = metrics_default_set(&cn);
    for (size_t i = 0; i < cn; i++) {
        if (onepass_group_of(&p, core[i]) < 0)
            fprintf(stderr, "core name in no group: %s\n", core[i]);
        CHECK(onepass_group_of(&p, core[i]) >= 0);
    }
    /* a ratio's halves share a group: sectors per instruction */
    CHECK_EQ_INT(onepass_group_of(&p, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                 onepass_group_of(&p, "smsp__inst_executed_op_global_ld.sum"));
    /* the L2 hit rate is spread: hits and misses cannot share a pass */
    CHECK(onepass_group_of(&p, "lts__t_sectors_lookup_hit.sum") !=
          onepass_group_of(&p, "lts__t_sectors_lookup_miss.sum"));
    CHECK_EQ_INT(onepass_group_of(&p, "no__such_counter.sum"), -1);
    onepass_plan_release(&p);
    onepass_plan_release(&p); /* idempotent */
}

/* A made-up plan: 4 groups, TMA bytes in group 4, L2 hits and misses in groups 2 and 3. */
static char *g1[] = {"dram__bytes_read.sum", "smsp__inst_executed_op_ldgsts.sum"};
static char *g2[] = {"lts__t_sectors_lookup_hit.sum"};
static char *g3[] = {"lts__t_sectors_lookup_miss.sum"};
static char *g4[] = {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"};

static void
fake_plan(struct onepass_plan *p)
{
    memset(p, 0, sizeof *p);
    p->ngroups = p->packing.ngroups = 4;
    p->packing.names[0] = g1, p->packing.count[0] = 2;
    p->packing.names[1] = g2, p->packing.count[1] = 1;
    p->packing.names[2] = g3, p->packing.count[2] = 1;
    p->packing.names[3] = g4, p->packing.count[3] = 1;
}

static void
test_onepass_order(void)
{
    struct onepass_plan p;
    fake_plan(&p);
    unsigned char o[ONEPASS_MAX_GROUPS];
    const char *names[] = {"dram__bytes_read.sum", "smsp__inst_executed_op_ldgsts.sum"};
    /* no DRAM reads, no LDGSTS: group order */
    double none[] = {0, 0};
    CHECK_EQ_INT((int)onepass_order(&p, names, none, 2, o), 4);
    CHECK(o[0] == 0 && o[1] == 1 && o[2] == 2 && o[3] == 3);
    /* LDGSTS instructions ask for the TMA group (metrics_extras_wanted()): it comes second */
    double ldgsts[] = {0, 10};
    onepass_order(&p, names, ldgsts, 2, o);
    CHECK(o[0] == 0 && o[1] == 3 && o[2] == 1 && o[3] == 2);
    /* DRAM reads without TMA: the L2 halves first, next to each other (already in order) */
    double dram[] = {1 << 20, 0};
    onepass_order(&p, names, dram, 2, o);
    CHECK(o[0] == 0 && o[1] == 1 && o[2] == 2 && o[3] == 3);
    /* unknown values (names missing): group order, a permutation */
    CHECK_EQ_INT((int)onepass_order(&p, names, none, 0, o), 4);
    CHECK(o[0] == 0 && o[1] == 1 && o[2] == 2 && o[3] == 3);
    /* one group: just it */
    p.ngroups = 1;
    CHECK_EQ_INT((int)onepass_order(&p, names, ldgsts, 2, o), 1);
    CHECK_EQ_INT(o[0], 0);
}

/* Packing order: the first state bundles, then the code-only ones, then the rest. */
static void
test_onepass_bundles(void)
{
    struct metrics_bundle b[ONEPASS_MAX_BUNDLES];
    size_t ns, nc;
    metrics_state_bundles(&ns);
    onepass_code_bundles(&nc);
    size_t n = onepass_bundles(b, ONEPASS_MAX_BUNDLES);
    CHECK_EQ_INT((int)n, (int)(ns + nc));
    int found_dram = 0;
    for (size_t k = 0; k < b[0].n; k++)
        found_dram |= !strcmp(b[0].names[k], "dram__bytes_read.sum");
    CHECK(found_dram);
    CHECK_EQ_INT((int)onepass_bundles(b, 3), 3); /* capped */
}

static const struct check_test tests[] = {
    {"test_onepass_order", test_onepass_order},
    {"test_onepass_bundles", test_onepass_bundles},
    {"test_onepass_plan", test_onepass_plan},
};

int
main(int argc, char **argv)
{
    char err[512];
    int rc = check_run(tests, 2, argc, argv); /* the pure tests need no CUPTI */
#ifdef CHECK_ASAN
    /* CUPTI's RTLD_DEEPBIND dlopen cannot run under AddressSanitizer (test_metrics.c) */
    printf("skipped: test_onepass_plan under AddressSanitizer\n");
    return rc;
#endif
    if (!cupti_load(err, sizeof err)) {
        printf("skipped: test_onepass_plan: %s\n", err);
        return rc;
    }
    return rc | check_run(tests + 2, 1, argc, argv);
}
