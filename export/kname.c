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

/*
 * One template argument as a label, without namespaces or "(anonymous
 * namespace)::", in one of three forms: FORM_ELIDED "ReduceOp<…>",
 * FORM_FIRST "ReduceOp<BFloat16, …>" (each template keeps its first
 * argument, itself elided), FORM_FULL as written. A new string or NULL.
 */
enum { FORM_ELIDED, FORM_FIRST, FORM_FULL, FORM_COUNT };

/* The longest name a distinguishing label may make. */
#define KNAME_LABEL_COLS 100

static void
form_into(struct out *o, const char *a, size_t from, size_t to, int form)
{
    size_t word = o->len;
    for (size_t i = from; i < to && !o->is_full; i++) {
        if (!strncmp(a + i, "(anonymous namespace)::", 23)) {
            i += 22;
            continue;
        }
        if (a[i] == ':' && a[i + 1] == ':') {
            /* Drop the qualifier just written. */
            o->len = word;
            o->buf[o->len] = '\0';
            i++;
            continue;
        }
        /* A parameter list inside an argument (a lambda's enclosing function): "(…)". */
        if (a[i] == '(' && form != FORM_FULL && !(i >= 6 && !strncmp(a + i - 6, "lambda", 6))) {
            int depth = 0;
            size_t j = i;
            for (; a[j]; j++)
                if (a[j] == '(')
                    depth++;
                else if (a[j] == ')' && --depth == 0)
                    break;
            out_str(o, "(" KNAME_ELLIPSIS ")");
            i = a[j] ? j : j - 1;
            word = o->len;
            continue;
        }
        if (a[i] == '<' && form != FORM_FULL) {
            size_t close = skip_angle(a, i);
            if (form == FORM_ELIDED) {
                out_str(o, "<" KNAME_ELLIPSIS ">");
            } else {
                /* The first argument: up to the first comma at this depth. */
                size_t end = i + 1;
                int depth = 0;
                for (; end + 1 < close; end++) {
                    if (a[end] == '<' || a[end] == '(')
                        depth++;
                    else if ((a[end] == '>' || a[end] == ')') && depth > 0)
                        depth--;
                    else if (a[end] == ',' && !depth)
                        break;
                }
                out_str(o, "<");
                form_into(o, a, i + 1, end, FORM_ELIDED);
                out_str(o, end + 1 < close ? ", " KNAME_ELLIPSIS ">" : ">");
            }
            i = close - 1;
            word = o->len;
            continue;
        }
        out_put(o, a + i, 1);
        if (!(isalnum((unsigned char)a[i]) || a[i] == '_'))
            word = o->len;
    }
}

static char *
arg_form(const char *a, int form)
{
    char buf[1024];
    struct out o = {.buf = buf, .size = sizeof(buf)};
    buf[0] = '\0';
    form_into(&o, a, 0, strlen(a), form);
    return strdup(buf);
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

/*
 * The label of one member: "base<" then the arguments at positions j1
 * and j2 (j2 = (size_t)-1 for one) in `form`, each run of the others as
 * "…", then ">". A new string, or NULL when a position is missing.
 */
static char *
label_for(const char *base, size_t base_len, char **args, size_t na, size_t j1, size_t j2, int form)
{
    if (j1 >= na || (j2 != (size_t)-1 && j2 >= na))
        return NULL;
    char buf[1200];
    struct out o = {.buf = buf, .size = sizeof(buf)};
    buf[0] = '\0';
    out_put(&o, base, base_len);
    out_str(&o, "<");
    int gap = 0, first = 1;
    for (size_t j = 0; j < na; j++) {
        if (j != j1 && j != j2) {
            gap = 1;
            continue;
        }
        if (gap) {
            out_str(&o, first ? KNAME_ELLIPSIS ", " : ", " KNAME_ELLIPSIS ", ");
            gap = 0;
        } else if (!first) {
            out_str(&o, ", ");
        }
        char *f = arg_form(args[j], form);
        if (f)
            out_str(&o, f);
        free(f);
        first = 0;
    }
    out_str(&o, gap ? ", " KNAME_ELLIPSIS ">" : ">");
    /* A label longer than a line is no help: another position, form, or the id. */
    return o.is_full || kname_cols(buf) > KNAME_LABEL_COLS ? NULL : strdup(buf);
}

struct cand {
    char *label;
    size_t g;      /* the member, in the group */
    int is_unique; /* no other member has this label */
};

static int
cand_cmp(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    int c = strcmp(x->label, y->label);
    return c ? c : (x->g > y->g) - (x->g < y->g);
}

/*
 * One try for the members of a group still without a label: each one's
 * label at positions j1, j2 in `form`; a member whose label no other
 * member has keeps it. Sorting the labels finds the unique ones in
 * n log n, so a group of hundreds (CUTLASS instances) stays fast.
 */
static void
try_labels(const char *base, size_t base_len, char ***args, const size_t *nargs,
           const size_t *group, size_t ng, size_t j1, size_t j2, int form, char **labels,
           struct cand *c)
{
    size_t n = 0;
    for (size_t g = 0; g < ng; g++) {
        char *l = label_for(base, base_len, args[group[g]], nargs[group[g]], j1, j2, form);
        if (l)
            c[n++] = (struct cand){.label = l, .g = g};
    }
    qsort(c, n, sizeof(*c), cand_cmp);
    /* A label equal to neither neighbour is unique; taken only after all are compared. */
    for (size_t i = 0; i < n; i++)
        c[i].is_unique = (i == 0 || strcmp(c[i].label, c[i - 1].label)) &&
                         (i + 1 == n || strcmp(c[i].label, c[i + 1].label));
    for (size_t i = 0; i < n; i++) {
        if (c[i].is_unique && !labels[c[i].g])
            labels[c[i].g] = c[i].label;
        else
            free(c[i].label);
    }
}

/*
 * Labels the members of a group sharing one short name: each takes the
 * first of these whose label no other member has: one template argument
 * position, then two, each in the shortest form first. Members nothing
 * tells apart keep labels[g] NULL.
 */
static void
distinguish(const char *base, size_t base_len, char ***args, const size_t *nargs,
            const size_t *group, size_t ng, char **labels)
{
    size_t na = 0, left = ng;
    for (size_t g = 0; g < ng; g++)
        na = nargs[group[g]] > na ? nargs[group[g]] : na;
    struct cand *c = malloc(ng * sizeof(*c));
    if (!c)
        return;
#define KNAME_TRY(j1, j2, form)                                                                    \
    do {                                                                                           \
        try_labels(base, base_len, args, nargs, group, ng, j1, j2, form, labels, c);               \
        left = 0;                                                                                  \
        for (size_t g = 0; g < ng; g++)                                                            \
            left += !labels[g];                                                                    \
    } while (0)
    for (int form = 0; left && form < FORM_COUNT; form++)
        for (size_t j1 = 0; left && j1 < na; j1++)
            KNAME_TRY(j1, (size_t)-1, form);
    for (int form = 0; left && form < FORM_COUNT; form++)
        for (size_t j1 = 0; left && j1 < na; j1++)
            for (size_t j2 = j1 + 1; left && j2 < na; j2++)
                KNAME_TRY(j1, j2, form);
#undef KNAME_TRY
    free(c);
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
        distinguish(shared, base, args, nargs, group, ng, labels);
        for (size_t g = 0; g < ng; g++) {
            if (!labels[g]) {
                size_t len = strlen(shared) + 32;
                labels[g] = malloc(len);
                if (labels[g])
                    snprintf(labels[g], len, "%s #%lld", shared,
                             ids ? ids[group[g]] : (long long)group[g]);
            }
        }
        for (size_t g = 0; g < ng; g++) {
            size_t k = group[g];
            if (labels[g]) {
                free(out[k]);
                out[k] = labels[g];
            }
            done[k] = 1;
        }
        for (size_t g = 0; g < ng; g++) {
            size_t k = group[g];
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

/* Cut at the end: the longest prefix that fits, backed up to a name boundary. */
static void fit_end(const char *name, size_t cols, char *buf, size_t size);

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
    /*
     * The function's own name matters more than its namespaces: drop
     * leading qualifiers first ("…::GammaBetaBackwardCUDAKernelTemplate<…>"),
     * then cut what is left at its end.
     */
    const char *tail = NULL;
    int depth = 0;
    for (const char *p = name; *p; p++) {
        if (*p == '<' || *p == '(')
            depth++;
        else if ((*p == '>' || *p == ')') && depth > 0)
            depth--;
        else if (!depth && p[0] == ':' && p[1] == ':') {
            tail = p;
            if (kname_cols(p) + 1 <= cols && strlen(p) + 4 < size)
                break;
            p++;
        }
    }
    if (tail && size >= 8) {
        memcpy(buf, KNAME_ELLIPSIS, 3);
        if (kname_cols(tail) + 1 <= cols && strlen(tail) + 4 < size) {
            memcpy(buf + 3, tail, strlen(tail) + 1);
        } else {
            fit_end(tail, cols > 1 ? cols - 1 : 1, buf + 3, size - 3);
        }
        return 1;
    }
    fit_end(name, cols, buf, size);
    return 1;
}

static void
fit_end(const char *name, size_t cols, char *buf, size_t size)
{
    size_t len = strlen(name);
    if (size < 4) {
        /* No room for the ellipsis: nothing rather than a silent cut. */
        buf[0] = '\0';
        return;
    }
    if (kname_cols(name) <= cols && len < size) {
        memcpy(buf, name, len + 1);
        return;
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
}
