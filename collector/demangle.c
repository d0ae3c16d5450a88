/* SPDX-License-Identifier: MIT */
/*
 * Kernel names: libiberty's cplus_demangle for the full signature, and a
 * short name without parameters and template arguments for tables.
 * Runs on the writer thread only (it allocates).
 */
#include "collector/collector_int.h"

#include <demangle.h>
#include <stdlib.h>
#include <string.h>

char *
gh_demangle(const char *mangled)
{
    if (!mangled)
        return NULL;
    char *d = cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI | DMGL_TYPES);
    return d ? d : strdup(mangled);
}

/*
 * "void ns::k<int, 4>(float*, int)" -> "ns::k". Operators keep their
 * name ("operator<" is not a template bracket): we only treat '<' as a
 * bracket when it does not follow "operator".
 */
/*
 * A mangled name libiberty could not demangle (some CUTLASS kernels in
 * cuDNN run to 1,600 characters that c++filt refuses too): keep the
 * leading nested name, "_ZN17cutlass__5x_cudnn6KernelI..." ->
 * "cutlass__5x_cudnn::Kernel", so tables get a short name. NULL when
 * there is no such prefix.
 */
static char *
mangled_prefix(const char *m)
{
    const char *p = m + 2;
    if (*p == 'N')
        p++;
    size_t n = strlen(m);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    while (*p >= '1' && *p <= '9') {
        char *end;
        unsigned long len = strtoul(p, &end, 10);
        if (len == 0 || len > strlen(end))
            break;
        if (o)
            out[o++] = ':', out[o++] = ':';
        memcpy(out + o, end, len);
        o += len;
        p = end + len;
    }
    out[o] = 0;
    if (!o) {
        free(out);
        return NULL;
    }
    return out;
}

char *
gh_short_name(const char *d)
{
    if (!d)
        return NULL;
    if (d[0] == '_' && d[1] == 'Z') {
        char *s = mangled_prefix(d);
        if (s)
            return s;
    }
    size_t n = strlen(d);
    /* Cut the parameter list: the '(' matching the last ')'. */
    size_t end = n;
    if (n && d[n - 1] == ')') {
        int depth = 0;
        for (size_t i = n; i-- > 0;) {
            if (d[i] == ')')
                depth++;
            else if (d[i] == '(' && --depth == 0) {
                end = i;
                break;
            }
        }
    }
    char *out = malloc(end + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    int depth = 0;
    for (size_t i = 0; i < end; i++) {
        char c = d[i];
        int is_op = i >= 8 && strncmp(d + i - 8, "operator", 8) == 0;
        if (c == '<' && !is_op) {
            depth++;
            continue;
        }
        if (c == '>' && depth > 0 && !is_op) {
            depth--;
            continue;
        }
        if (depth == 0)
            out[o++] = c;
    }
    out[o] = 0;
    /* Drop a return type: keep what follows the last space outside parentheses. */
    if (!strstr(out, "operator")) {
        char *cut = NULL;
        int par = 0;
        for (char *p = out; *p; p++) {
            if (*p == '(')
                par++;
            else if (*p == ')')
                par--;
            else if (*p == ' ' && par == 0)
                cut = p;
        }
        if (cut && cut[1])
            memmove(out, cut + 1, strlen(cut + 1) + 1);
    }
    return out;
}
