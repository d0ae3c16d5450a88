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
#include "schema/catalogue.h"
#include "tests/check.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

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
        int sass = 0;
        for (size_t i = 0; i < p.packing.count[g]; i++) {
            printf(" `%s`", p.packing.names[g][i]);
            const struct catalogue_metric *m = catalogue_find(p.packing.names[g][i]);
            sass |= m && !strcmp(m->engine, "sass");
        }
        printf(" |\n");
        /*
         * the ties that join a configuration's groups: instructions and duration in each, but
         * in the group of the SASS-patched names (sass_bytes), which on GH100 cannot be one pass
         * beside any hardware counter: it holds them alone, and nothing else
         */
        if (sass) {
            CHECK(!plan_has(&p, g, "gpu__time_duration.sum"));
            for (size_t i = 0; i < p.packing.count[g]; i++) {
                const struct catalogue_metric *m = catalogue_find(p.packing.names[g][i]);
                CHECK(m && !strcmp(m->engine, "sass"));
            }
            int two = metrics_count_passes(
                chip, (const char *const[]){p.packing.names[g][0], "gpu__time_duration.sum"}, 2,
                err, sizeof err);
            CHECK_EQ_INT(two, 2); /* why it is alone: fails when a CUPTI lets them share */
        } else {
            CHECK(plan_has(&p, g, "gpu__time_duration.sum"));
            CHECK(plan_has(&p, g, "smsp__inst_executed.sum"));
        }
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
    /* every name of every catalogue group is in some group: a configuration launched as many
       times as the plan has groups has every extra a kernel-replay run could ask for */
    for (size_t g = 0; g < catalogue_ngroups; g++)
        for (size_t i = 0; i < catalogue_groups[g].n; i++) {
            if (catalogue_is_patched(catalogue_groups[g].names[i]))
                continue; /* below */
            if (onepass_group_of(&p, catalogue_groups[g].names[i]) < 0)
                fprintf(stderr, "group %s name in no group: %s\n", catalogue_groups[g].name,
                        catalogue_groups[g].names[i]);
            CHECK(onepass_group_of(&p, catalogue_groups[g].names[i]) >= 0);
        }
    /* on the real plan too: with local memory the local sectors' group is the second one */
    {
        unsigned char o[ONEPASS_MAX_GROUPS];
        const char *nm[] = {"dram__bytes_read.sum"};
        double v[] = {1 << 20};
        CHECK_EQ_INT((int)onepass_order(&p, nm, v, 1, 256, o), (int)p.ngroups);
        CHECK(p.ngroups > 1 &&
              o[1] == onepass_group_of(&p, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"));
    }
    /* the roof trigger's value is in group 1, which decides the order of the others */
    CHECK_EQ_INT(onepass_group_of(&p, "dram__bytes.sum.pct_of_peak_sustained_elapsed"), 0);
    /* no SASS-patched name is in any group: under user replay they read 0 (gb_add()) */
    size_t patched = 0;
    for (size_t i = 0; i < catalogue_nmetrics; i++)
        if (catalogue_is_patched(catalogue_metrics[i].name)) {
            patched++;
            CHECK_EQ_INT(onepass_group_of(&p, catalogue_metrics[i].name), -1);
        }
    CHECK(patched >= 6); /* the requested bytes, the instructions by width, LDGSTS bypass bytes */
    CHECK(catalogue_is_patched("smsp__sass_data_bytes_mem_global_op_ld.sum"));
    CHECK(!catalogue_is_patched("dram__bytes_read.sum"));
    CHECK(catalogue_is_patched("smsp__sass_made_up_op.sum")); /* not catalogued: by its name */
    CHECK(!catalogue_is_patched("l1tex__made_up.sum"));
    /* a ratio's halves share a group: sectors per instruction */
    CHECK_EQ_INT(onepass_group_of(&p, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                 onepass_group_of(&p, "smsp__inst_executed_op_global_ld.sum"));
    /* the L2 hit rate is spread: hits and misses cannot share a pass */
    CHECK(onepass_group_of(&p, "lts__t_sectors_lookup_hit.sum") !=
          onepass_group_of(&p, "lts__t_sectors_lookup_miss.sum"));
    CHECK_EQ_INT(onepass_group_of(&p, "no__such_counter.sum"), -1);
    /*
     * the all-unit system-memory counters are in no group by default (their catalogue lines say
     * why: other L2 clients' traffic, gate (b)'s misses); the SMs' own sectors are in group 1
     */
    CHECK_EQ_INT(onepass_group_of(&p, "lts__t_sectors_aperture_sysmem.sum"), -1);
    CHECK_EQ_INT(onepass_group_of(&p, "lts__t_requests_aperture_sysmem.sum"), -1);
    CHECK_EQ_INT(onepass_group_of(&p, "lts__t_sectors_srcunit_tex_aperture_sysmem.sum"), 0);
    onepass_plan_release(&p);
    onepass_plan_release(&p); /* idempotent */
}

/*
 * A made-up plan: 6 groups, TMA bytes in group 4, L2 hits and misses in groups 2 and 3 (local
 * sectors beside the misses, as in GH100's plan), the tensor
 * pipe (group roof) in group 5, the requested bytes (group sass_bytes) in group 6.
 */
static char *g1[] = {"dram__bytes_read.sum", "smsp__inst_executed_op_ldgsts.sum"};
static char *g2[] = {"lts__t_sectors_lookup_hit.sum"};
static char *g3[] = {"lts__t_sectors_lookup_miss.sum",
                     "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"};
static char *g4[] = {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"};
static char *g5[] = {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"};
static char *g6[] = {"smsp__sass_data_bytes_mem_global_op_ld.sum"};

static void
fake_plan(struct onepass_plan *p)
{
    memset(p, 0, sizeof *p);
    char **g[] = {g1, g2, g3, g4, g5, g6};
    size_t n[] = {2, 1, 2, 1, 1, 1};
    p->ngroups = p->packing.ngroups = 6;
    for (size_t i = 0; i < 6; i++)
        p->packing.names[i] = g[i], p->packing.count[i] = n[i];
}

static int
order_is(const unsigned char *o, const char *want)
{
    for (size_t i = 0; want[i]; i++)
        if (o[i] != want[i] - '1') {
            fprintf(stderr, "order: group %d at %zu, expected %c\n", o[i] + 1, i + 1, want[i]);
            return 0;
        }
    return 1;
}

static void
test_onepass_order(void)
{
    struct onepass_plan p;
    fake_plan(&p);
    unsigned char o[ONEPASS_MAX_GROUPS];
    const char *names[] = {"dram__bytes_read.sum", "smsp__inst_executed_op_ldgsts.sum",
                           "dram__bytes.sum.pct_of_peak_sustained_elapsed",
                           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                           "smsp__inst_executed_op_global_ld.sum"};
    /* no DRAM reads, no LDGSTS: group order */
    double none[] = {0, 0};
    CHECK_EQ_INT((int)onepass_order(&p, names, none, 2, -1, o), 6);
    CHECK(order_is(o, "123456"));
    /* LDGSTS instructions ask for the TMA group (metrics_extras_wanted()): it comes second */
    double ldgsts[] = {0, 10};
    onepass_order(&p, names, ldgsts, 2, -1, o);
    CHECK(order_is(o, "142356"));
    /* DRAM reads without TMA: the L2 halves first, next to each other (already in order) */
    double dram[] = {1 << 20, 0};
    onepass_order(&p, names, dram, 2, -1, o);
    CHECK(order_is(o, "123456"));
    /* DRAM busy 20 % of the time (the roof trigger: not near the floor): the pipes second */
    double far[] = {1 << 20, 0, 20, 1000, 250};
    CHECK_EQ_INT((int)onepass_order(&p, names, far, 5, -1, o), 6);
    CHECK(order_is(o, "152346"));
    /* DRAM busy 80 %: near the floor, the pipes keep their place */
    double near[] = {1 << 20, 0, 80, 1000, 250};
    onepass_order(&p, names, near, 5, -1, o);
    CHECK(order_is(o, "123456"));
    /* 8 sectors per load (above the 4 of a coalesced 32-bit one: the sass_bytes trigger), far
       from the floor, LDGSTS: the pipes first, then the other groups asked for (TMA bytes and a
       group with a SASS-patched name, which a real plan never has: gb_add()) in plan order */
    double all[] = {1 << 20, 10, 20, 8000, 1000};
    onepass_order(&p, names, all, 5, -1, o);
    CHECK(order_is(o, "154623"));
    /* the same sectors at 80 %: the group asked for right after group 1, the pipes in place */
    double wide[] = {1 << 20, 0, 80, 8000, 1000};
    onepass_order(&p, names, wide, 5, -1, o);
    CHECK(order_is(o, "162345"));
    /* a function with local memory: the local sectors' group right after group 1, before the
       pipes; without (0) or unknown (-1), as above */
    CHECK_EQ_INT((int)onepass_order(&p, names, none, 2, 64, o), 6);
    CHECK(order_is(o, "132456"));
    onepass_order(&p, names, far, 5, 64, o);
    CHECK(order_is(o, "135246"));
    onepass_order(&p, names, far, 5, 0, o);
    CHECK(order_is(o, "152346"));
    /*
     * local traffic the function does not declare (a stack frame: spill_bounds on the H200,
     * 2026-12-01, declared 0 bytes and wrote 1.05 G sectors from L1 to L2 with 33,793 global
     * store sectors): more than half of L1's L2 sectors are writes that no global store,
     * atomic or reduction explains, so the local group comes right after group 1. A TMA GEMM
     * (the same day's nvjet kernel: 27.5 M sectors, 26.4 M of them reads) does not trigger it,
     * nor do values that are missing. (L1's L2 sectors far above its global sectors also ask
     * for the TMA group, the fake plan's 4th, which then follows: metrics_extras_wanted().)
     */
    const char *tn[] = {"lts__t_sectors_srcunit_tex.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
                        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                        "lts__t_sectors_op_atom.sum", "lts__t_sectors_op_red.sum"};
    double spill[] = {1271812604, 221489659, 33793, 0, 0};
    onepass_order(&p, tn, spill, 5, 0, o);
    CHECK(order_is(o, "134256"));
    double tma[] = {27473715, 26424948, 400, 0, 0};
    onepass_order(&p, tn, tma, 5, 0, o);
    CHECK(order_is(o, "142356"));
    double red[] = {1000000, 100000, 1000, 0, 850000}; /* the writes are reductions */
    onepass_order(&p, tn, red, 5, 0, o);
    CHECK(order_is(o, "142356"));
    onepass_order(&p, tn, spill, 1, 0, o); /* the read sectors unknown */
    CHECK(order_is(o, "123456"));
    /* unknown values (names missing): group order, a permutation */
    CHECK_EQ_INT((int)onepass_order(&p, names, none, 0, -1, o), 6);
    CHECK(order_is(o, "123456"));
    /* one group: just it */
    p.ngroups = 1;
    CHECK_EQ_INT((int)onepass_order(&p, names, ldgsts, 2, -1, o), 1);
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
    size_t ng;
    const struct metrics_bundle *g = onepass_group_bundles(&ng);
    size_t n = onepass_bundles(b, ONEPASS_MAX_BUNDLES);
    /* the state bundles holding no core name are the groups' (with the ties), so counted once */
    CHECK(ng > 0 && n > nc && n <= ns + nc + ng);
    CHECK(b[n - 1].names == g[ng - 1].names); /* the groups' bundles come last */
    /* every group bundle ends with the ties; no bundle holds a SASS-patched name */
    for (size_t i = 0; i < ng; i++) {
        CHECK(g[i].n >= 1);
        CHECK(!strcmp(g[i].names[g[i].n - 1], "smsp__inst_executed.sum"));
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < b[i].n; k++)
            CHECK(!catalogue_is_patched(b[i].names[k]));
    int found_dram = 0;
    for (size_t k = 0; k < b[0].n; k++)
        found_dram |= !strcmp(b[0].names[k], "dram__bytes_read.sum");
    CHECK(found_dram);
    CHECK_EQ_INT((int)onepass_bundles(b, 3), 3); /* capped */
}

/* Whether two plans hold the same names in the same groups. */
static int
same_plan(const struct onepass_plan *a, const struct onepass_plan *b)
{
    if (a->ngroups != b->ngroups)
        return 0;
    for (size_t g = 0; g < a->ngroups; g++) {
        if (a->packing.count[g] != b->packing.count[g])
            return 0;
        for (size_t i = 0; i < a->packing.count[g]; i++)
            if (strcmp(a->packing.names[g][i], b->packing.names[g][i]))
                return 0;
    }
    return 1;
}

static void
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/*
 * The plan cache (onepass_plan_build()): a packed plan is written, read
 * back as the same plan without packing again, and a file that is not a
 * valid plan for these bundles (a group that is not one pass, garbage) is
 * packed again and replaced; GPUHIER_CACHE_DIR="" writes nothing.
 */
static void
test_onepass_plan_cache(void)
{
    char dir[] = "/tmp/gh-onepass-cache-XXXXXX", sub[64], err[512] = "";
    CHECK(mkdtemp(dir) != NULL);
    snprintf(sub, sizeof sub, "%s/a/b", dir); /* missing components are made */
    setenv("GPUHIER_CACHE_DIR", sub, 1);
    struct onepass_plan p1, p2, p3;
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_EQ_INT(onepass_plan_build(&p1, chip, err, sizeof err), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_EQ_INT(p1.from_cache, 0);
    CHECK_EQ_INT(onepass_plan_build(&p2, chip, err, sizeof err), 0);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    CHECK_EQ_INT(p2.from_cache, 1);
    CHECK(same_plan(&p1, &p2));
    printf("plan packed in %.1f ms, read back from the cache in %.1f ms\n",
           (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
           (t2.tv_sec - t1.tv_sec) * 1e3 + (t2.tv_nsec - t1.tv_nsec) / 1e6);
    /* the file: one per chip and key */
    char cmd[256], path[512] = "";
    snprintf(cmd, sizeof cmd, "ls %s/onepass-%s-*.plan", sub, chip);
    FILE *ls = popen(cmd, "r");
    CHECK(ls && fgets(path, sizeof path, ls));
    if (ls)
        pclose(ls);
    path[strcspn(path, "\n")] = 0;
    /* every bundle in group 0: the plan's shape, but group 0 is not one pass */
    FILE *f = fopen(path, "r");
    char head[256] = "", line[128], text[8192] = "";
    size_t at = 0;
    CHECK(f && fgets(head, sizeof head, f) && fgets(line, sizeof line, f));
    if (f)
        fclose(f);
    at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", head, line);
    for (size_t i = 0; i < p1.nbundles; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, "bundle %d %d\n",
                               p1.packing.group_of[i] < 0 ? -1 : 0, p1.packing.passes_alone[i]);
    for (size_t g = 0; g < p1.ngroups; g++)
        at += (size_t)snprintf(text + at, sizeof text - at, "tied 1\n");
    write_file(path, text);
    CHECK_EQ_INT(onepass_plan_build(&p3, chip, err, sizeof err), 0);
    CHECK_EQ_INT(p3.from_cache, 0);
    CHECK(same_plan(&p1, &p3));
    onepass_plan_release(&p3);
    CHECK_EQ_INT(onepass_plan_build(&p3, chip, err, sizeof err), 0);
    CHECK_EQ_INT(p3.from_cache, 1); /* the bad file was replaced */
    onepass_plan_release(&p3);
    write_file(path, "gpuhier one-pass plan 1\nkey zz\n");
    CHECK_EQ_INT(onepass_plan_build(&p3, chip, err, sizeof err), 0);
    CHECK_EQ_INT(p3.from_cache, 0);
    CHECK(same_plan(&p1, &p3));
    onepass_plan_release(&p3);
    /* off: nothing read, nothing written */
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
    setenv("GPUHIER_CACHE_DIR", "", 1);
    CHECK_EQ_INT(onepass_plan_build(&p3, chip, err, sizeof err), 0);
    CHECK_EQ_INT(p3.from_cache, 0);
    struct stat st;
    CHECK(stat(dir, &st) != 0);
    onepass_plan_release(&p3);
    unsetenv("GPUHIER_CACHE_DIR");
    onepass_plan_release(&p1);
    onepass_plan_release(&p2);
}

/* Is `name` in any group of p? */
static int
plan_holds(const struct onepass_plan *p, const char *name)
{
    for (size_t g = 0; g < p->ngroups; g++)
        if (plan_has(p, g, name))
            return 1;
    return 0;
}

/*
 * GPUHIER_DIAG_PLAN_ORDER=roof (docs/metrics.md "The tensor roof in group
 * 1"): group 1 holds the floor and the tensor pipe, not the global
 * sectors; every group is one pass; no name of the default plan is lost.
 */
static void
test_onepass_roof_early(void)
{
    struct metrics_bundle b[ONEPASS_MAX_BUNDLES];
    size_t n = onepass_bundles_ordered(ONEPASS_ROOF_EARLY, b, ONEPASS_MAX_BUNDLES);
    struct metrics_bundle d[ONEPASS_MAX_BUNDLES];
    CHECK_EQ_INT((int)n, (int)onepass_bundles(d, ONEPASS_MAX_BUNDLES)); /* the same bundles */
    const char *tensor = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
    const char *gld = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
    int at_tensor = -1, at_gld = -1;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < b[i].n; k++) {
            if (!strcmp(b[i].names[k], tensor) && at_tensor < 0)
                at_tensor = (int)i;
            if (!strcmp(b[i].names[k], gld) && at_gld < 0)
                at_gld = (int)i;
        }
    CHECK(at_tensor >= 1 && at_gld > at_tensor);
    setenv("GPUHIER_CACHE_DIR", "", 1);
    struct onepass_plan p, q;
    char err[512] = "";
    int rc = onepass_plan_build_ordered(&p, chip, ONEPASS_ROOF_EARLY, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(onepass_plan_build(&q, chip, err, sizeof err), 0);
    unsetenv("GPUHIER_CACHE_DIR");
    if (rc)
        return;
    CHECK_EQ_INT((int)p.left_out, 0);
    CHECK(plan_has(&p, 0, "dram__bytes_read.sum") && plan_has(&p, 0, tensor));
    CHECK(!plan_has(&p, 0, gld) && plan_holds(&p, gld));
    CHECK(!plan_has(&q, 0, tensor) && plan_has(&q, 0, gld)); /* the default's group 1 */
    printf("roof-early plan (GPUHIER_DIAG_PLAN_ORDER=roof):\n");
    for (size_t g = 0; g < p.ngroups; g++) {
        CHECK_EQ_INT(metrics_count_passes(chip, (const char *const *)p.packing.names[g],
                                          p.packing.count[g], err, sizeof err),
                     1);
        printf("  group %zu: %zu counters\n", g + 1, p.packing.count[g]);
    }
    for (size_t g = 0; g < q.ngroups; g++)
        for (size_t i = 0; i < q.packing.count[g]; i++)
            CHECK(plan_holds(&p, q.packing.names[g][i]));
    onepass_plan_release(&p);
    onepass_plan_release(&q);
}

/* the pure tests first (NPURE), then those that pack through CUPTI */
#define NPURE 2
static const struct check_test tests[] = {
    {"test_onepass_order", test_onepass_order},
    {"test_onepass_bundles", test_onepass_bundles},
    {"test_onepass_plan", test_onepass_plan},
    {"test_onepass_plan_cache", test_onepass_plan_cache},
    {"test_onepass_roof_early", test_onepass_roof_early},
};

int
main(int argc, char **argv)
{
    char err[512];
    int rc = check_run(tests, NPURE, argc, argv); /* the pure tests need no CUPTI */
#ifdef CHECK_ASAN
    /* CUPTI's RTLD_DEEPBIND dlopen cannot run under AddressSanitizer (test_metrics.c) */
    printf("skipped: test_onepass_plan under AddressSanitizer\n");
    return rc;
#endif
    if (!cupti_load(err, sizeof err)) {
        printf("skipped: test_onepass_plan: %s\n", err);
        return rc;
    }
    return rc | check_run(tests + NPURE, sizeof tests / sizeof tests[0] - NPURE, argc, argv);
}
