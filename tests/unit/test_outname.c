/* SPDX-License-Identifier: MIT */
/* Unit tests for schema/outname: report file-name patterns. */
#include "schema/outname.h"
#include "tests/check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *
expand(const char *pattern)
{
    return outname_expand(pattern, 4242, "node7", 3);
}

static void
test_outname_plain(void)
{
    char *s = expand("report.db");
    CHECK_STR(s, "report.db");
    free(s);
}

static void
test_outname_macros(void)
{
    setenv("GH_TEST_RANK", "5", 1);
    char *s = expand("r-%p-%h-%q{GH_TEST_RANK}-%i.db");
    CHECK_STR(s, "r-4242-node7-5-3.db");
    free(s);
    s = expand("%p%p%h%h");
    CHECK_STR(s, "42424242node7node7");
    free(s);
}

static void
test_outname_percent(void)
{
    char *s = expand("100%%-%%i.db");
    CHECK_STR(s, "100%-%i.db");
    free(s);
    CHECK_EQ_INT(outname_has_index("100%%-%%i.db"), 0);
    CHECK_EQ_INT(outname_has_index("a%%%i"), 1);
}

static void
test_outname_unset_env_is_empty(void)
{
    unsetenv("GH_TEST_UNSET_VAR");
    char *s = expand("r%q{GH_TEST_UNSET_VAR}.db");
    CHECK_STR(s, "r.db");
    free(s);
}

static void
test_outname_bad_patterns(void)
{
    const char *bad[] = {"",    "trailing%", "%x.db",      "%q", "%qENV",
                         "%q{", "%q{}",      "%q{OPEN.db", "%P"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        char *s = expand(bad[i]);
        if (s)
            fprintf(stderr, "pattern '%s' accepted as '%s'\n", bad[i], s);
        CHECK(s == NULL);
        CHECK_EQ_INT(errno, EINVAL);
        free(s);
    }
    CHECK(outname_expand(NULL, 1, NULL, 1) == NULL);
    CHECK_EQ_INT(outname_has_index("%x%i"), 0);
}

static void
test_outname_host_default(void)
{
    char want[256] = "";
    gethostname(want, sizeof(want) - 1);
    char *s = outname_expand("%h", 1, NULL, 1);
    CHECK_STR(s, want);
    free(s);
}

static void
test_outname_has_index(void)
{
    CHECK_EQ_INT(outname_has_index("gpuhier-%i.db"), 1);
    CHECK_EQ_INT(outname_has_index(OUTNAME_DEFAULT), 1);
    CHECK_EQ_INT(outname_has_index("gpuhier.db"), 0);
    CHECK_EQ_INT(outname_has_index(NULL), 0);
}

static char *
tmpdir(void)
{
    char t[] = "/tmp/gh-outname-XXXXXX";
    char *d = mkdtemp(t);
    CHECK(d != NULL);
    return d ? strdup(d) : NULL;
}

static void
touch(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
}

static void
rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

static void
test_outname_next_free(void)
{
    char *d = tmpdir();
    if (!d)
        return;
    char pat[512], want[512];
    snprintf(pat, sizeof(pat), "%s/g-%%i.db", d);
    char *s = outname_next_free(pat, 1, NULL);
    snprintf(want, sizeof(want), "%s/g-1.db", d);
    CHECK_STR(s, want);
    free(s);
    touch(d, "g-1.db");
    touch(d, "g-2.db");
    touch(d, "g-4.db");
    s = outname_next_free(pat, 1, NULL);
    snprintf(want, sizeof(want), "%s/g-3.db", d);
    CHECK_STR(s, want);
    free(s);
    /* Without %i: the one name, existing or not. */
    snprintf(pat, sizeof(pat), "%s/g-1.db", d);
    s = outname_next_free(pat, 1, NULL);
    CHECK_STR(s, pat);
    free(s);
    CHECK(outname_next_free("%z", 1, NULL) == NULL);
    rm_rf(d);
    free(d);
}

static void
test_outname_claim(void)
{
    char *d = tmpdir();
    if (!d)
        return;
    char pat[512], want[512];
    snprintf(pat, sizeof(pat), "%s/c-%%i.db", d);
    touch(d, "c-1.db");
    char *a = outname_claim(pat, 1, NULL, 0);
    char *b = outname_claim(pat, 1, NULL, 0);
    snprintf(want, sizeof(want), "%s/c-2.db", d);
    CHECK_STR(a, want);
    snprintf(want, sizeof(want), "%s/c-3.db", d);
    CHECK_STR(b, want);
    struct stat st;
    CHECK(a && stat(a, &st) == 0 && st.st_size == 0);
    free(a);
    free(b);

    /* No %i: refuse an existing file unless forced; forced also drops -wal. */
    snprintf(pat, sizeof(pat), "%s/fixed.db", d);
    char *c = outname_claim(pat, 1, NULL, 0);
    CHECK_STR(c, pat);
    free(c);
    errno = 0;
    CHECK(outname_claim(pat, 1, NULL, 0) == NULL);
    CHECK_EQ_INT(errno, EEXIST);
    touch(d, "fixed.db-wal");
    c = outname_claim(pat, 1, NULL, 1);
    CHECK_STR(c, pat);
    free(c);
    snprintf(want, sizeof(want), "%s/fixed.db-wal", d);
    CHECK(access(want, F_OK) != 0);

    /* A directory that does not exist: NULL with the open() errno. */
    snprintf(pat, sizeof(pat), "%s/nodir/x-%%i.db", d);
    errno = 0;
    CHECK(outname_claim(pat, 1, NULL, 0) == NULL);
    CHECK_EQ_INT(errno, ENOENT);
    rm_rf(d);
    free(d);
}

static const struct check_test tests[] = {
    {"outname_plain", test_outname_plain},
    {"outname_macros", test_outname_macros},
    {"outname_percent", test_outname_percent},
    {"outname_unset_env_is_empty", test_outname_unset_env_is_empty},
    {"outname_bad_patterns", test_outname_bad_patterns},
    {"outname_host_default", test_outname_host_default},
    {"outname_has_index", test_outname_has_index},
    {"outname_next_free", test_outname_next_free},
    {"outname_claim", test_outname_claim},
};

CHECK_MAIN(tests)
