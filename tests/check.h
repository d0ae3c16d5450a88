/* SPDX-License-Identifier: MIT */
/*
 * check.h: the test harness every unit test uses. A test file defines
 * `static const struct check_test tests[] = {{"name", fn}, ...}` and
 * `CHECK_MAIN(tests)`. A failing CHECK prints file:line and the
 * expression and marks the test failed; the run exits 1 if any failed.
 * `argv[1]`, if given, runs only tests whose name contains it.
 */
#ifndef GPUHIER_TESTS_CHECK_H
#define GPUHIER_TESTS_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failed;

/* CHECK_ASAN is defined in a build under AddressSanitizer (gcc or clang). */
#if defined(__SANITIZE_ADDRESS__)
#define CHECK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHECK_ASAN 1
#endif
#endif

#define CHECK(e)                                                                                   \
    do {                                                                                           \
        if (!(e)) {                                                                                \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #e);                  \
            check_failed = 1;                                                                      \
        }                                                                                          \
    } while (0)
#define CHECK_EQ_INT(a, b)                                                                         \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b,  \
                    a_, b_);                                                                       \
            check_failed = 1;                                                                      \
        }                                                                                          \
    } while (0)
#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_)) {                                                        \
            fprintf(stderr, "%s:%d: %s == %s failed: '%s' != '%s'\n", __FILE__, __LINE__, #a, #b,  \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)");                                       \
            check_failed = 1;                                                                      \
        }                                                                                          \
    } while (0)
#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(a_ - b_ <= (tol) && b_ - a_ <= (tol))) {                                             \
            fprintf(stderr, "%s:%d: %s ~ %s failed: %g != %g\n", __FILE__, __LINE__, #a, #b, a_,   \
                    b_);                                                                           \
            check_failed = 1;                                                                      \
        }                                                                                          \
    } while (0)

struct check_test {
    const char *name;
    void (*fn)(void);
};

static inline int
check_run(const struct check_test *t, size_t n, int argc, char **argv)
{
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (argc > 1 && !strstr(t[i].name, argv[1]))
            continue;
        check_failed = 0;
        t[i].fn();
        printf("%s %s\n", check_failed ? "FAIL" : "ok  ", t[i].name);
        failed |= check_failed;
    }
    return failed;
}

/*
 * Run the tests with a fresh temporary directory made from `dir` (a
 * mkdtemp template the tests read, e.g. "/tmp/gh_x_XXXXXX"), removed
 * afterwards; a failure to remove it fails the run.
 */
static inline int
check_run_in_tmpdir(char *dir, const struct check_test *t, size_t n, int argc, char **argv)
{
    if (!mkdtemp(dir))
        return 1;
    int rc = check_run(t, n, argc, argv);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}

#define CHECK_MAIN(tests)                                                                          \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        return check_run(tests, sizeof(tests) / sizeof(tests[0]), argc, argv);                     \
    }

#endif
