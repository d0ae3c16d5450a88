/* SPDX-License-Identifier: MIT */
/* optvalue: option values shared by the CLI and the collector (optvalue.h). */
#include "schema/optvalue.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
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
optvalue_switch(const char *s, int dflt)
{
    return s && *s ? strcmp(s, "0") != 0 : dflt;
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

int
optvalue_choice(const char *s, const char *choices)
{
    if (!s || !*s)
        return -1;
    size_t len = strlen(s);
    int i = 0;
    for (const char *w = choices; *w; i++) {
        const char *end = strchr(w, '|');
        size_t wl = end ? (size_t)(end - w) : strlen(w);
        if (wl == len && !strncmp(w, s, len))
            return i;
        if (!end)
            break;
        w = end + 1;
    }
    return -1;
}

const char *
optvalue_choices_text(const char *choices, char *buf, size_t n)
{
    size_t words = 1, k = 0, at = 0;
    for (const char *c = choices; *c; c++)
        words += *c == '|';
    buf[0] = '\0';
    for (const char *w = choices; n > 0;) {
        const char *end = strchr(w, '|');
        size_t wl = end ? (size_t)(end - w) : strlen(w);
        const char *sep = k == 0 ? "" : k + 1 == words ? " or " : ", ";
        int m = snprintf(buf + at, n - at, "%s%.*s", sep, (int)wl, w);
        if (m < 0 || (size_t)m >= n - at)
            break; /* cut: snprintf terminated it */
        at += (size_t)m;
        k++;
        if (!end)
            break;
        w = end + 1;
    }
    return buf;
}
