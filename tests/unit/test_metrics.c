/* SPDX-License-Identifier: MIT */
/*
 * test_metrics: metric sets validated and their passes counted offline
 * for GH100 through the CUPTI Profiler Host API (no GPU needed; libcupti
 * comes from /usr/local/cuda or GPUHIER_CUPTI_PATH). Prints the table
 * docs/metrics.md quotes. Exits 77 if libcupti cannot be loaded at all.
 */
#include "collector/cupti_load.h"
#include "collector/metrics.h"
#include "tests/check.h"

#include <link.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *chip = "GH100";

static void
test_metrics_core_passes(void)
{
    char err[512] = "";
    size_t n;
    const char *const *core = metrics_default_set(&n);
    int p = metrics_count_passes(chip, core, n, err, sizeof err);
    if (p < 0)
        fprintf(stderr, "%s\n", err);
    printf("core: %zu metrics, %d passes\n", n, p);
    CHECK(n >= 30);
    CHECK(p >= 1);
    CHECK(p <= 3);
}

static void
test_metrics_every_name_valid(void)
{
    /* metrics_host_open validates each name on its own (GetMetricProperties) */
    char err[512] = "";
    size_t n;
    char **l = metrics_list_build(METRICS_GROUP_ALL, NULL, &n, err, sizeof err);
    CHECK(l != NULL);
    struct metrics_host *h = NULL;
    CHECK_EQ_INT(metrics_host_open(chip, (const char *const *)l, n, &h, err, sizeof err), 0);
    if (!h)
        fprintf(stderr, "%s\n", err);
    metrics_host_free(h);
    metrics_list_free(l, n);
    for (unsigned g = 1; g & METRICS_GROUP_ALL; g <<= 1) {
        size_t gn;
        CHECK(metrics_group_set(g, &gn) != NULL);
        CHECK(gn > 0);
    }
}

static void
test_metrics_group_costs(void)
{
    char err[512];
    size_t cn;
    const char *const *core = metrics_default_set(&cn);
    int base = metrics_count_passes(chip, core, cn, err, sizeof err);
    printf("| group | metrics | passes alone | passes with core | extra passes | passes with the "
           "tie set "
           "(an extras profile) |\n");
    printf("| --- | --- | --- | --- | --- | --- |\n");
    printf("| core | %zu | %d | %d | 0 | |\n", cn, base, base);
    for (unsigned g = 1; g & METRICS_GROUP_ALL; g <<= 1) {
        size_t gn, ln;
        const char *const *gs = metrics_group_set(g, &gn);
        int alone = metrics_count_passes(chip, gs, gn, err, sizeof err);
        char **l = metrics_list_build(g, NULL, &ln, err, sizeof err);
        CHECK(l != NULL);
        int with = l ? metrics_count_passes(chip, (const char *const *)l, ln, err, sizeof err) : -1;
        size_t tn;
        char **t =
            metrics_list_build(g | METRICS_NO_CORE | METRICS_TIE, NULL, &tn, err, sizeof err);
        CHECK(t != NULL);
        int tie = t ? metrics_count_passes(chip, (const char *const *)t, tn, err, sizeof err) : -1;
        printf("| %s | %zu | %d | %d | %d | %d |\n", metrics_group_name(g), gn, alone, with,
               with - base, tie);
        CHECK(alone >= 1);
        CHECK(with >= base);
        /* an extras profile costs fewer passes than the core with the group */
        CHECK(tie >= alone);
        CHECK(tie < with);
        metrics_list_free(t, tn);
        metrics_list_free(l, ln);
    }
    size_t ln;
    char **l = metrics_list_build(METRICS_GROUP_ALL, NULL, &ln, err, sizeof err);
    int all = metrics_count_passes(chip, (const char *const *)l, ln, err, sizeof err);
    size_t tn;
    char **t = metrics_list_build(METRICS_GROUP_ALL | METRICS_NO_CORE | METRICS_TIE, NULL, &tn, err,
                                  sizeof err);
    int tie = t ? metrics_count_passes(chip, (const char *const *)t, tn, err, sizeof err) : -1;
    metrics_list_free(t, tn);
    printf("| all groups | %zu | | %d | %d | %d |\n", ln, all, all - base, tie);
    CHECK(all > base);
    metrics_list_free(l, ln);
}

static void
test_metrics_bad_name(void)
{
    char err[512] = "";
    const char *names[] = {"gpu__time_duration.sum", "dram__bytes_red.sum"};
    struct metrics_host *h = NULL;
    CHECK_EQ_INT(metrics_host_open(chip, names, 2, &h, err, sizeof err), -1);
    CHECK(h == NULL);
    CHECK(strstr(err, "'dram__bytes_red.sum'") != NULL);
    printf("bad name: %s\n", err);
    /* a bad chip is an error too, not a crash */
    CHECK_EQ_INT(metrics_host_open("NOSUCHCHIP", names, 1, &h, err, sizeof err), -1);
    CHECK(strstr(err, "NOSUCHCHIP") != NULL);
}

static void
test_metrics_host_object(void)
{
    char err[512] = "";
    size_t n;
    const char *const *core = metrics_default_set(&n);
    struct metrics_host *h = NULL;
    CHECK_EQ_INT(metrics_host_open(chip, core, n, &h, err, sizeof err), 0);
    if (!h) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    size_t size = 0, hn = 0;
    CHECK(metrics_host_config_image(h, &size) != NULL);
    CHECK(size > 0);
    CHECK(metrics_host_passes(h) <= 3);
    const char *const *names = metrics_host_names(h, &hn);
    CHECK_EQ_INT(hn, n);
    CHECK_STR(names[0], core[0]);
    /* no counter data: evaluate must fail cleanly */
    double v[64];
    unsigned char junk[64] = {0};
    CHECK_EQ_INT(metrics_host_evaluate(h, junk, sizeof junk, 0, v), -1);
    CHECK(metrics_host_error(h)[0] != 0);
    metrics_host_free(h);
    metrics_host_free(NULL);
}

static void
test_metrics_list_build(void)
{
    char err[256];
    size_t n, cn;
    metrics_default_set(&cn);
    char **l = metrics_list_build(0, " gpu__time_duration.sum , foo__bar.sum,foo__bar.sum", &n, err,
                                  sizeof err);
    CHECK(l != NULL);
    CHECK_EQ_INT(n, cn + 1); /* duplicates dropped, spaces trimmed */
    CHECK_STR(l[n - 1], "foo__bar.sum");
    metrics_list_free(l, n);
    /* --metric-set none: only the names given, in their order */
    l = metrics_list_build(METRICS_NO_CORE, "dram__bytes_read.sum,lts__t_sectors_lookup_hit.sum",
                           &n, err, sizeof err);
    CHECK(l != NULL);
    CHECK_EQ_INT(n, 2);
    CHECK_STR(l[0], "dram__bytes_read.sum");
    metrics_list_free(l, n);
    CHECK(metrics_list_build(0, "a.sum,,b.sum", &n, err, sizeof err) == NULL);
    CHECK(strstr(err, "empty") != NULL);
    CHECK_EQ_INT(metrics_group_from_name("tma"), METRICS_GROUP_TMA);
    CHECK_EQ_INT(metrics_group_from_name("nope"), 0);
    CHECK_STR(metrics_group_name(METRICS_GROUP_SASS_BYTES), "sass_bytes");
}

/* the extras policy on synthetic core values */
static void
test_metrics_extras_policy(void)
{
    const char *names[] = {
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "smsp__inst_executed_op_global_ld.sum",
        "lts__t_sectors_srcunit_tex_op_read.sum",
        "smsp__inst_executed.sum",
        "smsp__inst_executed_op_generic_atom.sum",
        "smsp__inst_executed_op_ldc.sum",
        "dram__bytes_read.sum",
        "lts__t_sectors_lookup_miss.sum",
        "smsp__inst_executed_op_ldgsts.sum",
        "lts__t_sectors_aperture_sysmem.sum",
        "lts__t_sectors_srcunit_tex_aperture_sysmem.sum",
        "idc__requests.sum",
    };
    /* coalesced 32-bit copy, memory-heavy: only the width question */
    double copy[] = {4e6, 1e6, 4e6, 5e6, 0, 0, 1.28e8, 4e6, 0, 0, 0, 0};
    CHECK_EQ_INT(metrics_extras_wanted(names, copy, 12), METRICS_GROUP_SASS_BYTES);
    /* 32 sectors per load: uncoalesced or wide -> requested bytes + requests */
    double strided[] = {32e6, 1e6, 32e6, 5e7, 0, 0, 1.024e9, 32e6, 0, 0, 0, 0};
    CHECK_EQ_INT(metrics_extras_wanted(names, strided, 12),
                 METRICS_GROUP_SASS_BYTES | METRICS_GROUP_REQUESTS);
    /* GEMM by TMA: L1 read from L2 far more than the LSU asked */
    double tma[] = {4e2, 1e2, 1e7, 1e8, 0, 0, 3.2e8, 1e7, 0, 0, 0, 0};
    CHECK_EQ_INT(metrics_extras_wanted(names, tma, 12), METRICS_GROUP_TMA);
    /* GEMM by TMA where L1TEX's L2 requests do not show it: DRAM does */
    double tma2[] = {4e2, 1e2, 0, 1e8, 0, 0, 3.2e8, 1e7, 0, 0, 0, 0};
    CHECK_EQ_INT(metrics_extras_wanted(names, tma2, 12), METRICS_GROUP_TMA);
    /* atomics, divergent constant loads (4 requests per LDC), sysmem sectors the SMs asked for */
    double misc[] = {0, 0, 0, 1e6, 10, 5, 0, 0, 0, 30000, 5000, 20};
    CHECK_EQ_INT(metrics_extras_wanted(names, misc, 12),
                 METRICS_GROUP_ATOMIC | METRICS_GROUP_CONST | METRICS_GROUP_HOST);
    /*
     * Every PyTorch kernel on the H200 (device call of 2026-11-29 21:12 UTC): ~25 K sysmem sectors
     * from other L2 clients, none from the SMs, and uniform LDCs (one request each: indexed kernel
     * parameters). Neither detail group would change a finding: nothing wanted.
     */
    double quiet[] = {0, 0, 0, 1e6, 0, 5, 0, 0, 0, 25000, 0, 5};
    CHECK_EQ_INT(metrics_extras_wanted(names, quiet, 12), 0);
    /*
     * without the SM-originated counter the all-units one no longer decides (since 2026-12-06 it
     * is not collected by default and no trigger reads it: other L2 clients' traffic asked for
     * the group on every configuration)
     */
    CHECK_EQ_INT(metrics_extras_wanted(names, misc, 10) & METRICS_GROUP_HOST, 0);
    /* nothing known, nothing wanted */
    CHECK_EQ_INT(metrics_extras_wanted(names, misc, 0), 0);
}

static void
test_metrics_hosts_cache(void)
{
    char err[512] = "";
    struct metrics_hosts c;
    CHECK_EQ_INT(metrics_hosts_init(&c, chip, "smsp__warps_launched.sum", err, sizeof err), 0);
    struct metrics_host *core = metrics_hosts_get(&c, 0, err, sizeof err);
    struct metrics_host *ex =
        metrics_hosts_get(&c, METRICS_GROUP_SASS_BYTES | METRICS_GROUP_ATOMIC, err, sizeof err);
    CHECK(core != NULL && ex != NULL && core != ex);
    CHECK(metrics_hosts_get(&c, METRICS_GROUP_SASS_BYTES | METRICS_GROUP_ATOMIC, err, sizeof err) ==
          ex);
    size_t n0 = 0, n1 = 0, cn;
    metrics_default_set(&cn);
    if (core && ex) {
        const char *const *names = metrics_host_names(core, &n0);
        metrics_host_names(ex, &n1);
        CHECK_EQ_INT(n0, cn + 1); /* the added name is in every host */
        CHECK_STR(names[n0 - 1], "smsp__warps_launched.sum");
        CHECK_EQ_INT(n1, cn + 1 + 6 + 2);
        CHECK(metrics_host_passes(ex) > metrics_host_passes(core));
    }
    metrics_hosts_release(&c);
    metrics_hosts_release(&c);
    /* a bad added name fails at init, naming it */
    CHECK_EQ_INT(metrics_hosts_init(&c, chip, "l2__nope.sum", err, sizeof err), -1);
    CHECK(strstr(err, "'l2__nope.sum'") != NULL);
}

/*
 * profile.metric_set names: "core", "metrics" or "tie", then "+group" for
 * each group in flag order. Every group at once must fit
 * METRICS_SET_NAME_MAX whole (an extras set was once cut to "...sass_by").
 */
static void
test_metrics_set_name(void)
{
    char buf[METRICS_SET_NAME_MAX];
    CHECK_EQ_INT((int)metrics_set_name("core", 0, buf, sizeof buf), 4);
    CHECK_STR(buf, "core");
    metrics_set_name("tie", METRICS_GROUP_SASS_BYTES | METRICS_GROUP_TMA, buf, sizeof buf);
    CHECK_STR(buf, "tie+tma+sass_bytes");
    size_t want = strlen("core");
    for (unsigned g = 1; g <= METRICS_GROUP_ALL; g <<= 1)
        if (metrics_group_name((enum metrics_group)g))
            want += 1 + strlen(metrics_group_name((enum metrics_group)g));
    size_t len = metrics_set_name("core", METRICS_GROUP_ALL, buf, sizeof buf);
    CHECK_EQ_INT((int)len, (int)want);
    CHECK(len < sizeof buf && strlen(buf) == want && strstr(buf, "+sass_bytes") != NULL);
    char small[8];
    CHECK_EQ_INT((int)metrics_set_name("core", METRICS_GROUP_ALL, small, sizeof small), 7);
    CHECK_STR(small, "core+tm"); /* cut, terminated */
}

/* issue 18: the state counters packed into groups that each fit one pass */
static void
test_metrics_one_pass_groups(void)
{
    char err[512] = "";
    size_t nb;
    const struct metrics_bundle *b = metrics_state_bundles(&nb);
    static const char *const tie[] = {"gpu__time_duration.sum", "smsp__inst_executed.sum"};
    struct metrics_packing p;
    int rc = metrics_pack_one_pass(chip, b, nb, tie, 2, &p, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        return;
    CHECK(p.ngroups >= 1 && p.ngroups <= nb);
    printf("| group | passes | names |\n| --- | --- | --- |\n");
    for (size_t g = 0; g < p.ngroups; g++) {
        int passes = metrics_count_passes(chip, (const char *const *)p.names[g], p.count[g], err,
                                          sizeof err);
        CHECK_EQ_INT(passes, 1);
        printf("| %zu | %d |", g + 1, passes);
        for (size_t i = 0; i < p.count[g]; i++)
            printf(" %s", p.names[g][i]);
        printf(" |\n");
    }
    for (size_t i = 0; i < nb; i++) {
        printf("bundle %zu (%s): group %d, %d passes alone\n", i + 1, b[i].what, p.group_of[i] + 1,
               p.passes_alone[i]);
        if (p.group_of[i] < 0) {
            CHECK(p.passes_alone[i] > 1);
            continue;
        }
        /* a bundle is never split: all its names are in its one group */
        for (size_t k = 0; k < b[i].n; k++) {
            int found = 0;
            for (size_t j = 0; j < p.count[p.group_of[i]]; j++)
                found |= !strcmp(p.names[p.group_of[i]][j], b[i].names[k]);
            CHECK(found);
        }
    }
    /* the first bundle (the floor's bytes and time) always lands in the first group */
    CHECK_EQ_INT(p.group_of[0], 0);
    metrics_packing_free(&p);
    metrics_packing_free(&p); /* idempotent */

    /* a bundle that alone needs several passes is reported, not packed */
    size_t cn;
    const char *const *core = metrics_default_set(&cn);
    struct metrics_bundle big = {"the whole core set", core, cn};
    CHECK_EQ_INT(metrics_pack_one_pass(chip, &big, 1, NULL, 0, &p, err, sizeof err), 0);
    CHECK_EQ_INT(p.group_of[0], -1);
    CHECK(p.passes_alone[0] > 1);
    CHECK_EQ_INT((int)p.ngroups, 0);
    metrics_packing_free(&p);

    /* a bad name fails with a message naming it */
    static const char *const bad[] = {"dram__no_such_counter.sum"};
    struct metrics_bundle wrong = {"bad", bad, 1};
    err[0] = 0;
    CHECK_EQ_INT(metrics_pack_one_pass(chip, &wrong, 1, NULL, 0, &p, err, sizeof err), -1);
    CHECK(strstr(err, "dram__no_such_counter") != NULL);
}

/* A name a rule asked for that the chip lacks is dropped, not fatal; a --metrics name still is. */
static void
test_metrics_optional_dropped(void)
{
    char err[512] = "";
    size_t n;
    char **l = metrics_list_build(0, "l2__no_such_counter.sum,smsp__warps_launched.sum", &n, err,
                                  sizeof err);
    CHECK(l != NULL);
    struct metrics_host *h = NULL;
    CHECK_EQ_INT(metrics_host_open(chip, (const char *const *)l, n, &h, err, sizeof err), -1);
    CHECK(strstr(err, "'l2__no_such_counter.sum'") != NULL);
    metrics_set_optional("l2__no_such_counter.sum,smsp__warps_launched.sum");
    CHECK_EQ_INT(metrics_host_open(chip, (const char *const *)l, n, &h, err, sizeof err), 0);
    if (h) {
        size_t hn;
        const char *const *names = metrics_host_names(h, &hn);
        CHECK_EQ_INT(hn, n - 1); /* the valid optional name stays */
        CHECK_STR(names[hn - 1], "smsp__warps_launched.sum");
        CHECK_STR(metrics_host_dropped(h), "'l2__no_such_counter.sum'");
        metrics_host_free(h);
    }
    /* the only name is never dropped: a configuration needs one */
    const char *one[] = {"l2__no_such_counter.sum"};
    CHECK_EQ_INT(metrics_host_open(chip, one, 1, &h, err, sizeof err), -1);
    metrics_set_optional(NULL);
    metrics_list_free(l, n);
}

/* metrics.h's enum names the catalogue's first six groups, in its order. */
static void
test_metrics_groups_are_the_catalogue(void)
{
    static const struct {
        enum metrics_group g;
        const char *name;
    } want[] = {{METRICS_GROUP_TMA, "tma"},       {METRICS_GROUP_REQUESTS, "requests"},
                {METRICS_GROUP_HOST, "host"},     {METRICS_GROUP_CONST, "const"},
                {METRICS_GROUP_ATOMIC, "atomic"}, {METRICS_GROUP_SASS_BYTES, "sass_bytes"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CHECK(metrics_group_name(want[i].g) &&
              !strcmp(metrics_group_name(want[i].g), want[i].name));
        CHECK_EQ_INT(metrics_group_from_name(want[i].name), want[i].g);
    }
    CHECK(METRICS_GROUP_ALL >= 0x3f);
    size_t n;
    CHECK(metrics_default_set(&n) == catalogue_core && n == catalogue_ncore);
    const struct metrics_bundle *b = metrics_state_bundles(&n);
    CHECK_EQ_INT(n, catalogue_nbundles);
    CHECK(n > 0 && b[0].names == catalogue_bundles[0].names);
    /* the names collected only when a rule asks exist on GH100 too */
    for (size_t i = 0; i < catalogue_nmetrics; i++) {
        if (catalogue_metrics[i].sets)
            continue;
        char err[512] = "";
        struct metrics_host *h = NULL;
        const char *one[] = {catalogue_metrics[i].name};
        CHECK_EQ_INT(metrics_host_open(chip, one, 1, &h, err, sizeof err), 0);
        metrics_host_free(h);
    }
}

static const struct check_test tests[] = {
    {"test_metrics_optional_dropped", test_metrics_optional_dropped},
    {"test_metrics_groups_are_the_catalogue", test_metrics_groups_are_the_catalogue},
    {"test_metrics_one_pass_groups", test_metrics_one_pass_groups},
    {"test_metrics_set_name", test_metrics_set_name},
    {"test_metrics_hosts_cache", test_metrics_hosts_cache},
    {"test_metrics_core_passes", test_metrics_core_passes},
    {"test_metrics_every_name_valid", test_metrics_every_name_valid},
    {"test_metrics_group_costs", test_metrics_group_costs},
    {"test_metrics_bad_name", test_metrics_bad_name},
    {"test_metrics_host_object", test_metrics_host_object},
    {"test_metrics_list_build", test_metrics_list_build},
    {"test_metrics_extras_policy", test_metrics_extras_policy},
};

static int
has_lib_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    return info->dlpi_name && strstr(info->dlpi_name, (const char *)data) != NULL;
}

/* Is a library whose path contains `name` mapped in this process? */
static int
has_lib(const char *name)
{
    return dl_iterate_phdr(has_lib_cb, (void *)name);
}

static void *
load_thread(void *arg)
{
    char err[256];
    return cupti_load(err, sizeof err);
}

/*
 * Runs `fn` in a child process (cupti_load() is once per process, so each
 * loading scenario needs a fresh one); returns the child's exit status.
 */
static int
in_child(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int rc = fn();
        fflush(NULL);
        _exit(rc);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

static int
child_bad_override(void)
{
    char err[512] = "";
    setenv("GPUHIER_CUPTI_PATH", "/nonexistent/libcupti.so.13", 1);
    if (cupti_load(err, sizeof err) != NULL)
        return 1;
    printf("override error: %s\n", err);
    /* an explicit override never falls back to another CUPTI */
    return strstr(err, "GPUHIER_CUPTI_PATH='/nonexistent/libcupti.so.13'") && !has_lib("libcupti")
               ? 0
               : 2;
}

static int
child_dir_override(void)
{
    char err[512] = "";
    setenv("GPUHIER_CUPTI_PATH", "/usr/local/cuda/lib64", 1);
    if (!cupti_load(err, sizeof err)) {
        printf("dir override: %s\n", err);
        return 1;
    }
    return strstr(cupti_load_path(), "libcupti.so") ? 0 : 2;
}

static int
child_threads(void)
{
    /*
     * 8 threads race for the first load: one handle. The load does not open
     * nvperf (since 2026-12-06: its own thread or the first wait does); a
     * wait with no thread started opens it on the caller's thread.
     */
    pthread_t t[8];
    void *h[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, load_thread, NULL);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], &h[i]);
    for (int i = 0; i < 8; i++)
        if (!h[i] || h[i] != h[0])
            return 1;
    if (has_lib("libnvperf_host.so"))
        return 2;
    cupti_nvperf_wait();
    double open_ms, waited_ms;
    int on_thread = -1;
    if (!cupti_nvperf_times(&open_ms, &waited_ms, &on_thread) || on_thread != 0)
        return 3;
    return has_lib("libnvperf_host.so") && has_lib("libnvperf_target.so") ? 0 : 4;
}

/* nvperf opened on its own thread: joined by the wait, which sees both libraries mapped */
static int
child_nvperf_thread(void)
{
    if (!cupti_load(NULL, 0))
        return 1;
    cupti_nvperf_start();
    cupti_nvperf_start(); /* a second start starts nothing */
    cupti_nvperf_wait();
    double open_ms, waited_ms;
    int on_thread = 0;
    if (!cupti_nvperf_times(&open_ms, &waited_ms, &on_thread) || on_thread != 1 || open_ms <= 0)
        return 2;
    return has_lib("libnvperf_host.so") && has_lib("libnvperf_target.so") ? 0 : 3;
}

/* trace mode never opens nvperf, started or waited for; a join alone never loads CUPTI */
static int
child_nvperf_trace(void)
{
    cupti_nvperf_join();
    if (has_lib("libcupti"))
        return 1;
    setenv("GPUHIER_MODE", "trace", 1);
    if (!cupti_load(NULL, 0))
        return 2;
    cupti_nvperf_start();
    cupti_nvperf_wait();
    double open_ms, waited_ms;
    int on_thread;
    if (cupti_nvperf_times(&open_ms, &waited_ms, &on_thread))
        return 3;
    return has_lib("libnvperf") ? 4 : 0;
}

/* Loading scenarios, each in a fresh process, before this one loads CUPTI. */
static void
test_metrics_loading(void)
{
    /* CUPTI is no NEEDED entry: nothing maps it before cupti_load() */
    CHECK(!has_lib("libcupti"));
    CHECK(!has_lib("libnvperf"));
    CHECK_EQ_INT(in_child(child_bad_override), 0);
    CHECK_EQ_INT(in_child(child_dir_override), 0);
    CHECK_EQ_INT(in_child(child_threads), 0);
    CHECK_EQ_INT(in_child(child_nvperf_thread), 0);
    CHECK_EQ_INT(in_child(child_nvperf_trace), 0);
    CHECK(cupti_sym("cuptiGetVersion") == NULL || has_lib("libcupti"));
}

int
main(int argc, char **argv)
{
    char err[512];
#ifdef CHECK_ASAN
    /*
     * libcupti dlopens the nvperf libraries with RTLD_DEEPBIND, which the
     * AddressSanitizer runtime refuses (google/sanitizers#611); the
     * collector is never sanitized for the same reason. The plain build
     * runs this test.
     */
    printf("skipped: CUPTI's RTLD_DEEPBIND dlopen cannot run under AddressSanitizer\n");
    return 77;
#endif
    unsetenv("GPUHIER_CUPTI_PATH");
    check_failed = 0;
    test_metrics_loading();
    printf("%s test_metrics_loading\n", check_failed ? "FAIL" : "ok  ");
    int load_failed = check_failed;
    if (!cupti_load(err, sizeof err)) {
        printf("skipped: %s\n", err);
        return 77;
    }
    printf("libcupti: %s\n", cupti_load_path());
    CHECK(!has_lib("libnvperf_host.so")); /* not by the load: by the wait */
    cupti_nvperf_wait();
    CHECK(has_lib("libnvperf_host.so"));
    int rc = check_run(tests, sizeof tests / sizeof tests[0], argc, argv);
    return rc | load_failed | check_failed;
}
