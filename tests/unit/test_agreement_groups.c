/* SPDX-License-Identifier: MIT */
/*
 * test_agreement_groups: every like-for-like group of the agreement script
 * (bench/agreement/groups.txt) needs exactly one pass on GH100, counted
 * offline through the CUPTI Profiler Host API (no GPU). The list is built
 * the way the collector builds it for `--metric-set none --metrics LIST`
 * (metrics_list_build with METRICS_NO_CORE), so a group that would make
 * the device run replay fails here first. Exits 77 if libcupti cannot be
 * loaded.
 */
#include "collector/cupti_load.h"
#include "collector/metrics.h"
#include "tests/check.h"

#include <ctype.h>

static const char *chip = "GH100";

static void
test_agreement_groups_one_pass(void)
{
    const char *path = GPUHIER_SOURCE_DIR "/bench/agreement/groups.txt";
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[4096], err[512];
    int groups = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            continue;
        char *list = p + strcspn(p, " \t");
        CHECK(*list != '\0'); /* "NAME LIST" */
        if (!*list)
            continue;
        *list++ = '\0';
        list[strcspn(list, "\r\n")] = '\0';
        while (isspace((unsigned char)*list))
            list++;
        size_t n = 0;
        char **l = metrics_list_build(METRICS_NO_CORE, list, &n, err, sizeof err);
        CHECK(l != NULL);
        if (!l) {
            fprintf(stderr, "group %s: %s\n", p, err);
            continue;
        }
        int passes = metrics_count_passes(chip, (const char *const *)l, n, err, sizeof err);
        if (passes < 0)
            fprintf(stderr, "group %s: %s\n", p, err);
        printf("group %s: %zu metrics, %d passes\n", p, n, passes);
        CHECK_EQ_INT(passes, 1);
        CHECK(n >= 3);
        metrics_list_free(l, n);
        groups++;
    }
    fclose(f);
    CHECK(groups >= 1);
}

static void
test_agreement_groups_two_pass_caught(void)
{
    /* the check can fail: two L2 sector counters of different kinds need two passes */
    char err[512];
    size_t n = 0;
    char **l = metrics_list_build(METRICS_NO_CORE,
                                  "lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum",
                                  &n, err, sizeof err);
    CHECK(l != NULL);
    if (!l)
        return;
    CHECK(metrics_count_passes(chip, (const char *const *)l, n, err, sizeof err) > 1);
    metrics_list_free(l, n);
}

static const struct check_test tests[] = {
    {"test_agreement_groups_one_pass", test_agreement_groups_one_pass},
    {"test_agreement_groups_two_pass_caught", test_agreement_groups_two_pass_caught},
};

int
main(int argc, char **argv)
{
    char err[512];
#ifdef CHECK_ASAN
    /* libcupti's RTLD_DEEPBIND dlopen cannot run under AddressSanitizer (test_metrics.c) */
    printf("skipped: CUPTI's RTLD_DEEPBIND dlopen cannot run under AddressSanitizer\n");
    return 77;
#endif
    if (!cupti_load(err, sizeof err)) {
        printf("skipped: %s\n", err);
        return 77;
    }
    return check_run(tests, sizeof tests / sizeof tests[0], argc, argv);
}
