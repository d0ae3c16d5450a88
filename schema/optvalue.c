/* SPDX-License-Identifier: MIT */
/* optvalue: option values shared by the CLI and the collector (optvalue.h). */
#include "schema/optvalue.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int
optvalue_count(const char *s, long min, long *out)
{
    if (!s || !*s)
        return -1;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (errno || v < min)
        return -1;
    *out = v;
    return 0;
}

int
optvalue_percent(const char *s, double *out)
{
    if (!s || !*s || *s == ' ' || *s == '\t')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v > 0) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int
optvalue_sample(const char *s, enum optvalue_sample *kind, long *n)
{
    if (!s)
        return -1;
    if (!strcmp(s, "config") || !strcmp(s, "all")) {
        *kind = s[0] == 'c' ? OPTVALUE_SAMPLE_CONFIG : OPTVALUE_SAMPLE_ALL;
        *n = 1;
        return 0;
    }
    enum optvalue_sample k;
    if (!strncmp(s, "first:", 6))
        k = OPTVALUE_SAMPLE_FIRST;
    else if (!strncmp(s, "every:", 6))
        k = OPTVALUE_SAMPLE_EVERY;
    else
        return -1;
    long v;
    if (optvalue_count(s + 6, 1, &v))
        return -1;
    *kind = k;
    *n = v;
    return 0;
}
