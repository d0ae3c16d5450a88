/* SPDX-License-Identifier: MIT */
/*
 * catalogue_eval: the evaluator of the catalogue's triggers
 * (schema/catalogue.h, catalogue_eval()).
 *
 * It computes while it parses (recursive descent, no tree): a trigger is
 * a line of text evaluated once per profiled launch and group, so building
 * and freeing a tree would cost more than reading it again. The collector
 * calls it inside the profiled program: it allocates nothing and never
 * aborts. It reads no table, so schema/catalogue_gen.c links it to check
 * the triggers before the tables exist.
 */
#include "schema/catalogue.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ values */

/* A value: NULL, or a number. */
struct val {
    int null;
    double v;
};

static const struct val VNULL = {1, 0};

static struct val
num(double v)
{
    return (struct val){0, v};
}

struct parser {
    const char *s, *p;
    catalogue_lookup_fn lookup;
    void *ctx;
    char *err;
    size_t errlen;
    int failed;
};

static void
fail(struct parser *ps, const char *what)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    snprintf(ps->err, ps->errlen, "%s at column %d of '%s'", what, (int)(ps->p - ps->s) + 1, ps->s);
}

static void
skip_space(struct parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static int
ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Is the next token keyword `kw` (any case, not a prefix of a longer name)? Consumes it if so. */
static int
keyword(struct parser *ps, const char *kw)
{
    skip_space(ps);
    size_t n = strlen(kw);
    if (strncasecmp(ps->p, kw, n) || ident_char(ps->p[n]))
        return 0;
    ps->p += n;
    return 1;
}

/* Is the next token the punctuation `op`? Consumes it if so. */
static int
punct(struct parser *ps, const char *op)
{
    skip_space(ps);
    size_t n = strlen(op);
    if (strncmp(ps->p, op, n))
        return 0;
    ps->p += n;
    return 1;
}

static struct val expr_or(struct parser *ps);

static struct val
primary(struct parser *ps)
{
    skip_space(ps);
    if (ps->failed)
        return VNULL;
    if (punct(ps, "(")) {
        struct val v = expr_or(ps);
        if (!punct(ps, ")"))
            fail(ps, "expected ')'");
        return v;
    }
    if (isdigit((unsigned char)*ps->p) || (*ps->p == '.' && isdigit((unsigned char)ps->p[1]))) {
        char *end;
        double d = strtod(ps->p, &end);
        ps->p = end;
        if (ident_char(*ps->p))
            fail(ps, "bad number");
        return num(d);
    }
    if (keyword(ps, "NULL"))
        return VNULL;
    if (keyword(ps, "COALESCE")) {
        if (!punct(ps, "(")) {
            fail(ps, "expected '(' after COALESCE");
            return VNULL;
        }
        struct val r = VNULL;
        do {
            struct val v = expr_or(ps);
            if (r.null)
                r = v;
        } while (!ps->failed && punct(ps, ","));
        if (!punct(ps, ")"))
            fail(ps, "expected ')' closing COALESCE");
        return r;
    }
    static const char *const reserved[] = {"AND", "OR", "NOT", "IS", NULL};
    for (size_t i = 0; reserved[i]; i++) {
        const char *save = ps->p;
        if (keyword(ps, reserved[i])) {
            ps->p = save;
            fail(ps, "expected a value");
            return VNULL;
        }
    }
    if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
        const char *b = ps->p;
        while (ident_char(*ps->p))
            ps->p++;
        double d = 0;
        int rc = ps->lookup(ps->ctx, b, (size_t)(ps->p - b), &d);
        if (rc < 0) {
            ps->p = b;
            fail(ps, "unknown name");
            return VNULL;
        }
        return rc ? num(d) : VNULL;
    }
    fail(ps, *ps->p ? "expected a value" : "unexpected end");
    return VNULL;
}

static struct val
unary(struct parser *ps)
{
    if (punct(ps, "-")) {
        struct val v = unary(ps);
        return v.null ? v : num(-v.v);
    }
    return primary(ps);
}

static struct val
product(struct parser *ps)
{
    struct val a = unary(ps);
    for (;;) {
        int mul = punct(ps, "*");
        if (!mul && !punct(ps, "/"))
            return a;
        struct val b = unary(ps);
        if (a.null || b.null || (!mul && b.v == 0))
            a = VNULL;
        else
            a = num(mul ? a.v * b.v : a.v / b.v);
    }
}

static struct val
sum(struct parser *ps)
{
    struct val a = product(ps);
    for (;;) {
        int add = punct(ps, "+");
        if (!add && !punct(ps, "-"))
            return a;
        struct val b = product(ps);
        a = a.null || b.null ? VNULL : num(add ? a.v + b.v : a.v - b.v);
    }
}

static struct val
comparison(struct parser *ps)
{
    struct val a = sum(ps);
    if (keyword(ps, "IS")) {
        int negate = keyword(ps, "NOT");
        if (!keyword(ps, "NULL"))
            fail(ps, "expected NULL after IS");
        return num(negate ? !a.null : a.null);
    }
    /* two-character operators first */
    static const char *const ops[] = {"<=", ">=", "<>", "!=", "<", ">", "=", NULL};
    for (size_t i = 0; ops[i]; i++) {
        if (!punct(ps, ops[i]))
            continue;
        struct val b = sum(ps);
        if (a.null || b.null)
            return VNULL;
        double x = a.v, y = b.v;
        int r = i == 0   ? x <= y
                : i == 1 ? x >= y
                : i <= 3 ? x != y
                : i == 4 ? x < y
                : i == 5 ? x > y
                         : x == y;
        return num(r);
    }
    return a;
}

/* SQL's truth of a value: -1 NULL, else 0 or 1 (NaN is not true). */
static int
truth3(struct val v)
{
    return v.null ? -1 : v.v != 0 && !isnan(v.v);
}

static struct val
from3(int t)
{
    return t < 0 ? VNULL : num(t);
}

static struct val
negation(struct parser *ps)
{
    if (keyword(ps, "NOT")) {
        int t = truth3(negation(ps));
        return from3(t < 0 ? -1 : !t);
    }
    return comparison(ps);
}

static struct val
conjunction(struct parser *ps)
{
    struct val a = negation(ps);
    while (keyword(ps, "AND")) {
        int x = truth3(a), y = truth3(negation(ps));
        a = from3(x == 0 || y == 0 ? 0 : x < 0 || y < 0 ? -1 : 1);
    }
    return a;
}

static struct val
expr_or(struct parser *ps)
{
    struct val a = conjunction(ps);
    while (keyword(ps, "OR")) {
        int x = truth3(a), y = truth3(conjunction(ps));
        a = from3(x == 1 || y == 1 ? 1 : x < 0 || y < 0 ? -1 : 0);
    }
    return a;
}

int
catalogue_eval(const char *expr, catalogue_lookup_fn lookup, void *ctx, int *truth, char *err,
               size_t errlen)
{
    struct parser ps = {expr ? expr : "", expr ? expr : "", lookup, ctx, err, errlen, 0};
    *truth = 0;
    struct val v = expr_or(&ps);
    skip_space(&ps);
    if (!ps.failed && *ps.p)
        fail(&ps, "unexpected text");
    if (ps.failed)
        return -1;
    *truth = truth3(v) == 1;
    return 0;
}
