/* SPDX-License-Identifier: MIT */
/*
 * kname: short, unique, cut-at-a-boundary kernel names (kname.h).
 *
 * Names are parsed by bracket depth only, not as C++: a demangled name is
 * "[return type ]qualified::name[<args>](params)[ const]", and the only
 * traps are the operators whose names hold brackets ("operator<",
 * "operator()") and "(anonymous namespace)", handled where they occur.
 */
#include "export/kname.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing output buffer that stops (and remembers it did) at its end. */
struct out {
    char *buf;
    size_t size, len;
    int is_full;
};

static void
out_put(struct out *o, const char *s, size_t n)
{
    if (o->is_full)
        return;
    if (o->len + n + 1 > o->size) {
        o->is_full = 1;
        return;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void
out_str(struct out *o, const char *s)
{
    out_put(o, s, strlen(s));
}

/* Index just past the '>' closing the '<' at s[i], or strlen(s) when unclosed. */
static size_t
skip_angle(const char *s, size_t i)
{
    int depth = 0;
    for (; s[i]; i++) {
        if (s[i] == '<')
            depth++;
        else if (s[i] == '>' && --depth == 0)
            return i + 1;
    }
    return i;
}

/* Does an operator name end at s[i] (so a bracket there is part of the name)? */
static int
after_operator(const char *s, size_t i)
{
    size_t j = i;
    while (j > 0 && strchr("<>=!()[]+-*/%&|^~,", s[j - 1]))
        j--;
    return j >= 8 && !strncmp(s + j - 8, "operator", 8) && j < i + 1;
}

/*
 * "_ZN2at6native6kernelIfEEvPf" -> "at::native::kernel<…>": the nested
 * name's source names, as far as they go; 0 when `m` has none.
 */
static int
mangled_short(const char *m, struct out *o)
{
    if (strncmp(m, "_Z", 2))
        return 0;
    const char *p = m + 2;
    if (*p == 'N')
        p++;
    /* CV-qualifiers of a member function's nested name. */
    while (*p == 'K' || *p == 'V' || *p == 'r')
        p++;
    int parts = 0;
    for (;;) {
        if (!strncmp(p, "St", 2)) {
            out_str(o, "std::");
            p += 2;
            continue;
        }
        if (!isdigit((unsigned char)*p))
            break;
        char *end;
        unsigned long len = strtoul(p, &end, 10);
        if (len == 0 || len > strlen(end))
            break;
        if (parts++)
            out_str(o, "::");
        /* _GLOBAL__N_1 is the anonymous namespace: left out, as in demangled names. */
        if (len == 12 && !strncmp(end, "_GLOBAL__N_1", 12)) {
            if (--parts && o->len >= 2 && !o->is_full)
                o->buf[o->len -= 2] = '\0';
        } else {
            out_put(o, end, len);
        }
        p = end + len;
    }
    if (!parts)
        return 0;
    if (*p == 'I')
        out_str(o, "<" KNAME_ELLIPSIS ">");
    return 1;
}

/* The short name of a demangled signature (see the header). */
static void
demangled_short(const char *d, struct out *o)
{
    size_t n = strlen(d), start = 0, end = n;
    /* The return type: the last space at bracket depth 0 before the name's '('. */
    int angle = 0, paren = 0;
    for (size_t i = 0; i < n; i++) {
        char c = d[i];
        if (c == '<' && !after_operator(d, i)) {
            angle++;
        } else if (c == '>' && angle > 0 && !after_operator(d, i)) {
            angle--;
        } else if (c == '(' && !angle) {
            if (!strncmp(d + i, "(anonymous namespace)", 21)) {
                i += 20;
                continue;
            }
            if (after_operator(d, i) && d[i + 1] == ')') {
                i++;
                continue;
            }
            if (!paren) {
                end = i;
                break;
            }
            paren++;
        } else if (c == ' ' && !angle && !paren) {
            start = i + 1;
        }
    }
    for (size_t i = start; i < end && !o->is_full;) {
        if (!strncmp(d + i, "(anonymous namespace)::", 23)) {
            i += 23;
        } else if (d[i] == '<' && !after_operator(d, i)) {
            out_str(o, "<" KNAME_ELLIPSIS ">");
            i = skip_angle(d, i);
        } else {
            out_put(o, d + i, 1);
            i++;
        }
    }
    /* "foo " of "foo const" and similar leftovers. */
    while (o->len && o->buf[o->len - 1] == ' ')
        o->buf[--o->len] = '\0';
}

char *
kname_short(const char *demangled, const char *mangled, char *buf, size_t size)
{
    struct out o = {.buf = buf, .size = size};
    if (!size)
        return buf;
    buf[0] = '\0';
    const char *name = demangled ? demangled : mangled;
    if (!name || !*name) {
        out_str(&o, "?");
        return buf;
    }
    /* Not demangled (libiberty gave up): the structure of the mangled name. */
    if (!strncmp(name, "_Z", 2) && mangled_short(name, &o))
        goto done;
    o.len = 0;
    o.is_full = 0;
    buf[0] = '\0';
    demangled_short(name, &o);
    if (!o.len)
        out_str(&o, name);
done:
    if (o.is_full && size >= 5) {
        /* Cut where the buffer ended, on a character boundary, and say so. */
        size_t cut = o.len + 4 < size ? o.len : size - 4;
        while (cut && ((unsigned char)buf[cut] & 0xc0) == 0x80)
            cut--;
        memcpy(buf + cut, KNAME_ELLIPSIS, 4);
    }
    return buf;
}

/* ------------------------------------------------------------------ */
/* Uniqueness                                                           */

/*
 * The top-level template arguments of a demangled name's function
 * ("ns::k<4, F<float>, A<char*, 1> >(...)" -> "4", "F<float>",
 * "A<char*, 1>"), as new strings in *args; returns their count.
 */
static size_t
template_args(const char *d, char ***args)
{
    *args = NULL;
    if (!d)
        return 0;
    size_t n = strlen(d), open = n;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == '(' && !strncmp(d + i, "(anonymous namespace)", 21)) {
            i += 20;
        } else if (d[i] == '(') {
            break;
        } else if (d[i] == '<' && !after_operator(d, i)) {
            /* The last top-level '<' before the parameters belongs to the function. */
            open = i;
            i = skip_angle(d, i) - 1;
        }
    }
    if (open == n)
        return 0;
    size_t close = skip_angle(d, open), count = 0;
    int depth = 0;
    size_t from = open + 1;
    for (size_t i = open + 1; i < close; i++) {
        char c = d[i];
        if (c == '<' || c == '(')
            depth++;
        else if ((c == '>' || c == ')') && depth > 0)
            depth--;
        else if ((c == ',' || c == '>') && depth == 0) {
            size_t a = from, b = i;
            while (a < b && d[a] == ' ')
                a++;
            while (b > a && d[b - 1] == ' ')
                b--;
            char **grown = realloc(*args, (count + 1) * sizeof(**args));
            if (!grown)
                break;
            *args = grown;
            (*args)[count] = strndup(d + a, b - a);
            if (!(*args)[count])
                break;
            count++;
            from = i + 1;
        }
    }
    return count;
}

/* An argument without its namespaces: "at::native::F<at::Half>" -> "F<Half>". */
static char *
strip_namespaces(const char *a, int elide)
{
    size_t n = strlen(a);
    /* Eliding "<>" (2 bytes) writes "<…>" (5): at most 5/2 of the input. */
    char *s = malloc(n * 3 + 8);
    if (!s)
        return NULL;
    size_t o = 0, word = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i] == ':' && a[i + 1] == ':') {
            o = word;
            i++;
            continue;
        }
        if (elide && a[i] == '<') {
            memcpy(s + o, "<" KNAME_ELLIPSIS ">", 5);
            o += 5;
            i = skip_angle(a, i) - 1;
            word = o;
            continue;
        }
        s[o++] = a[i];
        if (!(isalnum((unsigned char)a[i]) || a[i] == '_'))
            word = o;
    }
    s[o] = '\0';
    return s;
}

static void
free_args(char **args, size_t n)
{
    if (!args)
        return;
    for (size_t i = 0; i < n; i++)
        free(args[i]);
    free(args);
}

/* Is `v` the argument j of member `self` only, among the group's members? */
static int
unique_at(char ***args, const size_t *nargs, const size_t *group, size_t ng, size_t self, size_t j,
          int elide, char **label)
{
    *label = NULL;
    if (j >= nargs[group[self]])
        return 0;
    char *mine = strip_namespaces(args[group[self]][j], elide);
    if (!mine)
        return 0;
    for (size_t k = 0; k < ng; k++) {
        if (k == self || j >= nargs[group[k]])
            continue;
        char *theirs = strip_namespaces(args[group[k]][j], elide);
        int same = theirs && !strcmp(mine, theirs);
        free(theirs);
        if (same) {
            free(mine);
            return 0;
        }
    }
    *label = mine;
    return 1;
}

int
kname_unique(size_t n, const char *const *demangled, const char *const *mangled,
             const long long *ids, char **out)
{
    int ret = -1;
    char buf[512];
    char ***args = calloc(n ? n : 1, sizeof(*args));
    size_t *nargs = calloc(n ? n : 1, sizeof(*nargs)), *group = calloc(n ? n : 1, sizeof(*group));
    int *done = calloc(n ? n : 1, sizeof(*done));
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    if (!args || !nargs || !group || !done)
        goto out;
    for (size_t i = 0; i < n; i++) {
        out[i] = strdup(kname_short(demangled[i], mangled[i], buf, sizeof(buf)));
        if (!out[i])
            goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t ng = 0;
        for (size_t k = i; k < n; k++)
            if (!done[k] && !strcmp(out[k], out[i]))
                group[ng++] = k;
        if (ng == 1) {
            done[i] = 1;
            continue;
        }
        for (size_t g = 0; g < ng; g++) {
            size_t k = group[g];
            const char *d = demangled[k] ? demangled[k] : mangled[k];
            nargs[k] = d && strncmp(d, "_Z", 2) ? template_args(d, &args[k]) : 0;
        }
        /* The base of the shared name, without its trailing "<…>". */
        const char *shared = out[i];
        size_t base = strlen(shared);
        if (base >= 5 && !strcmp(shared + base - 5, "<" KNAME_ELLIPSIS ">"))
            base -= 5;
        char **labels = calloc(ng, sizeof(*labels));
        if (!labels)
            goto out;
        for (size_t g = 0; g < ng; g++) {
            size_t k = group[g], na = nargs[k], j = 0;
            char *label = NULL;
            for (int elide = 1; elide >= 0 && !label; elide--)
                for (j = 0; j < na && !label; j++)
                    if (unique_at(args, nargs, group, ng, g, j, elide, &label))
                        break;
            size_t len = base + (label ? strlen(label) : 0) + 64;
            labels[g] = malloc(len);
            if (labels[g] && label)
                snprintf(labels[g], len, "%.*s<%s%s%s>", (int)base, shared,
                         j > 0 ? KNAME_ELLIPSIS ", " : "", label,
                         j + 1 < na ? ", " KNAME_ELLIPSIS : "");
            else if (labels[g])
                snprintf(labels[g], len, "%s #%lld", shared, ids ? ids[k] : (long long)k);
            free(label);
        }
        for (size_t g = 0; g < ng; g++) {
            size_t k = group[g];
            if (labels[g]) {
                free(out[k]);
                out[k] = labels[g];
            }
            done[k] = 1;
            free_args(args[k], nargs[k]);
            args[k] = NULL;
            nargs[k] = 0;
        }
        free(labels);
    }
    ret = 0;
out:
    if (ret)
        for (size_t i = 0; i < n; i++) {
            free(out[i]);
            out[i] = NULL;
        }
    for (size_t i = 0; args && i < n; i++)
        free_args(args[i], nargs ? nargs[i] : 0);
    free(args);
    free(nargs);
    free(group);
    free(done);
    return ret;
}

/* ------------------------------------------------------------------ */
/* Fitting                                                              */

size_t
kname_cols(const char *s)
{
    size_t c = 0;
    for (; *s; s++)
        c += ((unsigned char)*s & 0xc0) != 0x80;
    return c;
}

int
kname_fit(const char *name, size_t cols, char *buf, size_t size)
{
    if (!size)
        return 0;
    if (!name)
        name = "";
    size_t len = strlen(name);
    if (kname_cols(name) <= cols && len < size) {
        memcpy(buf, name, len + 1);
        return 0;
    }
    /* The longest prefix of cols - 1 columns that fits the buffer with the ellipsis. */
    size_t keep = 0, c = 0;
    while (keep < len && c + 1 < cols && keep + 4 < size) {
        size_t step = 1;
        while (keep + step < len && ((unsigned char)name[keep + step] & 0xc0) == 0x80)
            step++;
        if (keep + step + 4 > size)
            break;
        keep += step;
        c++;
    }
    /* Back up to a boundary, unless that would keep less than a quarter of it. */
    size_t cut = keep;
    while (cut > 0) {
        char prev = name[cut - 1], next = name[cut];
        int is_boundary = (prev == ':' && cut >= 2 && name[cut - 2] == ':') || next == '<' ||
                          next == '(' || prev == ' ' || prev == ',' || next == ' ';
        if (is_boundary)
            break;
        cut--;
    }
    if (cut < keep / 4)
        cut = keep;
    while (cut > 0 && name[cut - 1] == ' ')
        cut--;
    memcpy(buf, name, cut);
    memcpy(buf + cut, KNAME_ELLIPSIS, 4);
    return 1;
}
