/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for schema/optvalue: the values of `gpuhier run`'s collector
 * options, parsed one way by the CLI and by the collector.
 */
#include "schema/optvalue.h"
#include "tests/check.h"

#include <limits.h>
#include <math.h>

static void
test_optvalue_count(void)
{
    long v = -7;
    CHECK_EQ_INT(optvalue_count("0", 0, &v), 0);
    CHECK_EQ_INT(v, 0);
    CHECK_EQ_INT(optvalue_count("123", 1, &v), 0);
    CHECK_EQ_INT(v, 123);
    CHECK_EQ_INT(optvalue_count("9223372036854775807", 0, &v), 0);
    CHECK(v == LONG_MAX);
    /* digits only: strtol alone would take a sign, leading spaces or a hex prefix */
    const char *bad[] = {"",     "-1",  "+5",  " 5", "5 ",
                         "0x10", "1e3", "3.0", "x",  "9223372036854775808"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = -7;
        CHECK_EQ_INT(optvalue_count(bad[i], 0, &v), -1);
        CHECK_EQ_INT(v, -7);
    }
    CHECK_EQ_INT(optvalue_count("0", 1, &v), -1); /* below min */
    CHECK_EQ_INT(optvalue_count(NULL, 0, &v), -1);
}

static void
test_optvalue_switch(void)
{
    CHECK_EQ_INT(optvalue_switch(NULL, 0), 0);
    CHECK_EQ_INT(optvalue_switch(NULL, 1), 1);
    CHECK_EQ_INT(optvalue_switch("", 1), 1); /* empty reads as unset */
    CHECK_EQ_INT(optvalue_switch("0", 1), 0);
    CHECK_EQ_INT(optvalue_switch("1", 0), 1);
    CHECK_EQ_INT(optvalue_switch("yes", 0), 1);
    CHECK_EQ_INT(optvalue_switch("00", 0), 1); /* only "0" turns a switch off */
}

static void
test_optvalue_percent(void)
{
    double p = 0;
    CHECK_EQ_INT(optvalue_percent("30", &p), 0);
    CHECK(p == 30.0);
    CHECK_EQ_INT(optvalue_percent("2.5", &p), 0);
    CHECK(p == 2.5);
    CHECK_EQ_INT(optvalue_percent("250", &p), 0); /* more than the run's own time is allowed */
    const char *bad[] = {"", "0", "-5", "x", "30%", "nan", "inf", " 30", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = -1;
        CHECK_EQ_INT(optvalue_percent(bad[i], &p), -1);
        CHECK(p == -1);
    }
}

static void
test_optvalue_sample(void)
{
    enum optvalue_sample k;
    long n = 0;
    CHECK_EQ_INT(optvalue_sample("config", &k, &n), 0);
    CHECK_EQ_INT(k, OPTVALUE_SAMPLE_CONFIG);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(optvalue_sample("all", &k, &n), 0);
    CHECK_EQ_INT(k, OPTVALUE_SAMPLE_ALL);
    CHECK_EQ_INT(optvalue_sample("first:3", &k, &n), 0);
    CHECK_EQ_INT(k, OPTVALUE_SAMPLE_FIRST);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(optvalue_sample("every:10", &k, &n), 0);
    CHECK_EQ_INT(k, OPTVALUE_SAMPLE_EVERY);
    CHECK_EQ_INT(n, 10);
    const char *bad[] = {"",         "every:0", "first:",   "first:x",  "every:-2", "some",
                         "first:3x", "all:2",   "first: 3", "every:+4", "Config"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_INT(optvalue_sample(bad[i], &k, &n), -1);
}

static void
test_optvalue_choice(void)
{
    CHECK_EQ_INT(optvalue_choice("trace", OPTVALUE_MODES), 0);
    CHECK_EQ_INT(optvalue_choice("profile", OPTVALUE_MODES), 1);
    CHECK_EQ_INT(optvalue_choice("default", OPTVALUE_METRIC_SETS), 0);
    CHECK_EQ_INT(optvalue_choice("none", OPTVALUE_METRIC_SETS), 1);
    CHECK_EQ_INT(optvalue_choice("all", OPTVALUE_CACHE_CONTROLS), 0);
    CHECK_EQ_INT(optvalue_choice("none", OPTVALUE_CACHE_CONTROLS), 1);
    CHECK_EQ_INT(optvalue_choice("both", OPTVALUE_COUNTERS), 0);
    CHECK_EQ_INT(optvalue_choice("hardware", OPTVALUE_COUNTERS), 1);
    CHECK_EQ_INT(optvalue_choice("pattern", OPTVALUE_COUNTERS), 2);
    /* whole words only, exact case, no prefix of a longer word or of the list */
    const char *bad[] = {"", "Trace", "trac", "traces", " trace", "trace ", "trace|profile", "|"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_INT(optvalue_choice(bad[i], OPTVALUE_MODES), -1);
    CHECK_EQ_INT(optvalue_choice(NULL, OPTVALUE_MODES), -1);
    CHECK_EQ_INT(optvalue_choice("al", OPTVALUE_CACHE_CONTROLS), -1);
    char buf[64];
    CHECK_STR(optvalue_choices_text(OPTVALUE_MODES, buf, sizeof buf), "trace or profile");
    CHECK_STR(optvalue_choices_text("a|b|c", buf, sizeof buf), "a, b or c");
    CHECK_STR(optvalue_choices_text("one", buf, sizeof buf), "one");
    CHECK_STR(optvalue_choices_text("abc|def", buf, 8), "abc or "); /* cut, still terminated */
}

static const struct check_test tests[] = {
    {"optvalue_count", test_optvalue_count},     {"optvalue_switch", test_optvalue_switch},
    {"optvalue_percent", test_optvalue_percent}, {"optvalue_sample", test_optvalue_sample},
    {"optvalue_choice", test_optvalue_choice},
};

CHECK_MAIN(tests)
