/* SPDX-License-Identifier: MIT */
/*
 * test_catalogue: the metric catalogue's tables (generated from
 * schema/metrics.catalogue) and the trigger evaluator, without CUPTI.
 * The sets' pass counts are unit.metrics'; the schema and the fixtures
 * are checked against the catalogue by unit.catalogue_schema and
 * unit.catalogue_names (tests/store.cmake).
 */
#include "schema/catalogue.h"
#include "tests/check.h"

#include <math.h>

/* A lookup over a fixed table: "a" = 2, "b" = 10, "nul" known without a value. */
static int
lookup_fixed(void *ctx, const char *name, size_t len, double *v)
{
    (void)ctx;
    static const struct {
        const char *n;
        double v;
        int has;
    } t[] = {{"a", 2, 1}, {"b", 10, 1}, {"nul", 0, 0}, {"x.sum", 7, 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strlen(t[i].n) == len && !strncmp(t[i].n, name, len)) {
            *v = t[i].v;
            return t[i].has;
        }
    return -1;
}

/* The truth of `e`, or -1 when it does not evaluate. */
static int
truth(const char *e)
{
    char err[256];
    int t = 0;
    return catalogue_eval(e, lookup_fixed, NULL, &t, err, sizeof err) ? -1 : t;
}

static void
test_catalogue_eval_arithmetic(void)
{
    CHECK_EQ_INT(truth("a + b * 2 = 22"), 1);
    CHECK_EQ_INT(truth("(a + b) * 2 = 24"), 1);
    CHECK_EQ_INT(truth("b / a - 5 = 0"), 1);
    CHECK_EQ_INT(truth("-a < 0"), 1);
    CHECK_EQ_INT(truth("1e6 > 999999.5"), 1);
    CHECK_EQ_INT(truth("x.sum >= 7 AND x.sum <= 7 AND x.sum <> 6 AND x.sum != 8"), 1);
    CHECK_EQ_INT(truth("a > b"), 0);
    CHECK_EQ_INT(truth("0"), 0);
    CHECK_EQ_INT(truth("3"), 1);
}

static void
test_catalogue_eval_null(void)
{
    /* SQL: a comparison with NULL is not true, nor is its negation */
    CHECK_EQ_INT(truth("nul > 0"), 0);
    CHECK_EQ_INT(truth("NOT (nul > 0)"), 0);
    CHECK_EQ_INT(truth("nul IS NULL"), 1);
    CHECK_EQ_INT(truth("a IS NOT NULL AND nul IS NULL"), 1);
    CHECK_EQ_INT(truth("COALESCE(nul, a) = 2"), 1);
    CHECK_EQ_INT(truth("COALESCE(nul, nul, b, a) = 10"), 1);
    /* three-valued AND / OR */
    CHECK_EQ_INT(truth("nul > 0 OR a = 2"), 1);
    CHECK_EQ_INT(truth("nul > 0 AND a = 2"), 0);
    CHECK_EQ_INT(truth("NOT (nul > 0 AND a = 3)"), 1); /* NULL AND false is false */
    CHECK_EQ_INT(truth("a / 0 > 0"), 0);               /* division by zero is NULL */
    CHECK_EQ_INT(truth("nul + 1 = 1"), 0);
}

static void
test_catalogue_eval_errors(void)
{
    char err[256];
    int t = 1;
    CHECK_EQ_INT(catalogue_eval("a > nosuch", lookup_fixed, NULL, &t, err, sizeof err), -1);
    CHECK(strstr(err, "unknown name") && strstr(err, "column 5"));
    CHECK_EQ_INT(t, 0);
    CHECK_EQ_INT(truth("a >"), -1);
    CHECK_EQ_INT(truth("(a > 1"), -1);
    CHECK_EQ_INT(truth("a > 1 b"), -1);
    CHECK_EQ_INT(truth("AND a"), -1);
    CHECK_EQ_INT(truth("COALESCE a"), -1);
    CHECK_EQ_INT(truth("a IS 3"), -1);
    CHECK_EQ_INT(truth("2x > 1"), -1);
    CHECK_EQ_INT(truth(""), -1);
    /* keywords in any case */
    CHECK_EQ_INT(truth("a = 2 and not b = 3 or nul is null"), 1);
}

static void
test_catalogue_tables(void)
{
    CHECK(catalogue_ncore >= 30);
    CHECK(catalogue_ntie >= 1);
    CHECK(catalogue_ngroups >= 1 && catalogue_ngroups <= CATALOGUE_MAX_GROUPS);
    /* the tie set is in the core, in the core's order */
    size_t k = 0;
    for (size_t i = 0; i < catalogue_ncore && k < catalogue_ntie; i++)
        k += !strcmp(catalogue_core[i], catalogue_tie[k]);
    CHECK_EQ_INT(k, catalogue_ntie);
    const struct catalogue_metric *m = catalogue_find("dram__bytes_read.sum");
    CHECK(m && m->column && !strcmp(m->column, "dram_read_bytes"));
    CHECK(m && (m->sets & CATALOGUE_SET_CORE) && !strcmp(m->unit, "bytes"));
    CHECK(catalogue_find_column("dram_read_bytes") == m);
    CHECK(catalogue_find("dram__bytes_red.sum") == NULL);
    CHECK(catalogue_collected("dram__bytes_read.sum"));
    /* listed but collected only when a rule asks for it */
    CHECK(catalogue_find("lts__t_sectors_srcunit_tex_evict_first.sum") != NULL);
    CHECK(!catalogue_collected("lts__t_sectors_srcunit_tex_evict_first.sum"));
    CHECK(!catalogue_collected("smsp__warps_launched.sum"));
    for (size_t i = 0; i < catalogue_nmetrics; i++) {
        const struct catalogue_metric *c = &catalogue_metrics[i];
        CHECK((strstr(c->name, "__sass_") != NULL) == !strcmp(c->engine, "sass"));
        CHECK(c->bundle >= -1 && c->bundle < (int)catalogue_nbundles);
    }
    for (size_t g = 0; g < catalogue_ngroups; g++)
        CHECK(catalogue_groups[g].n > 0 && catalogue_groups[g].ntriggers > 0);
}

/* Every trigger evaluates over a core profile; one with nothing known asks for nothing. */
static void
test_catalogue_triggers(void)
{
    struct catalogue_values none = {NULL, NULL, 0, 1};
    for (size_t g = 0; g < catalogue_ngroups; g++)
        for (size_t t = 0; t < catalogue_groups[g].ntriggers; t++) {
            char err[256];
            int truth_ = 1;
            CHECK_EQ_INT(catalogue_eval(catalogue_groups[g].triggers[t], catalogue_values_lookup,
                                        &none, &truth_, err, sizeof err),
                         0);
            CHECK_EQ_INT(truth_, 0);
        }
    /* names by column or by metric; with core_only, a group metric is no name */
    const char *names[] = {"dram__bytes_read.sum", "l1tex__m_xbar2l1tex_read_bytes.sum"};
    double values[] = {5, 6};
    struct catalogue_values cv = {names, values, 2, 1};
    char err[256];
    int t = 0;
    CHECK_EQ_INT(catalogue_eval("dram_read_bytes = 5 AND dram__bytes_read.sum = 5",
                                catalogue_values_lookup, &cv, &t, err, sizeof err),
                 0);
    CHECK_EQ_INT(t, 1);
    CHECK_EQ_INT(
        catalogue_eval("l2_to_l1_bytes > 0", catalogue_values_lookup, &cv, &t, err, sizeof err),
        -1);
    cv.core_only = 0;
    CHECK_EQ_INT(catalogue_eval("l2_to_l1_bytes = 6 AND gld_sectors IS NULL",
                                catalogue_values_lookup, &cv, &t, err, sizeof err),
                 0);
    CHECK_EQ_INT(t, 1);
}

static const struct check_test tests[] = {
    {"test_catalogue_eval_arithmetic", test_catalogue_eval_arithmetic},
    {"test_catalogue_eval_null", test_catalogue_eval_null},
    {"test_catalogue_eval_errors", test_catalogue_eval_errors},
    {"test_catalogue_tables", test_catalogue_tables},
    {"test_catalogue_triggers", test_catalogue_triggers},
};

CHECK_MAIN(tests)
