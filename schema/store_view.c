/* SPDX-License-Identifier: MIT */
/*
 * store_view: a documented view's SELECT, cut out of the compiled
 * schema text.
 */
#include "schema/store_view.h"

#include "schema/store.h"
#include "schema/strbuf.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* Where `CREATE VIEW name AS` starts a line of the schema, else NULL; *body gets what follows. */
static const char *
find_view(const char *schema, const char *name, const char **body)
{
    static const char create[] = "CREATE VIEW ";
    size_t n = strlen(name);
    for (const char *p = strstr(schema, create); p; p = strstr(p + 1, create)) {
        const char *q = p + strlen(create);
        if ((p == schema || p[-1] == '\n') && !strncmp(q, name, n) && !strncmp(q + n, " AS", 3) &&
            (q[n + 3] == '\n' || q[n + 3] == ' ')) {
            *body = q + n + 3;
            return p;
        }
    }
    return NULL;
}

char *
store_view_query(const char *name, const char *head, const char *tail)
{
    const char *schema = store_schema_sql(), *body = NULL, *end = NULL;
    const char *start = find_view(schema, name, &body);
    if (!start) {
        store_set_error("view '%s' is not in this build's schema", name);
        return NULL;
    }
    /*
     * The statement ends at its first semicolon that sqlite3_complete()
     * accepts: not one inside a comment or a string literal. So the body
     * never ends inside a comment, and the closing parenthesis is code.
     */
    struct strbuf b = STRBUF_INIT;
    for (const char *semi = strchr(body, ';'); semi && !end; semi = strchr(semi + 1, ';')) {
        b.len = 0;
        strbuf_add(&b, start, (size_t)(semi + 1 - start));
        if (b.oom)
            break;
        if (sqlite3_complete(b.p))
            end = semi;
    }
    if (end) {
        b.len = 0;
        strbuf_adds(&b, head);
        strbuf_adds(&b, "(");
        strbuf_add(&b, body, (size_t)(end - body));
        strbuf_adds(&b, ")");
        strbuf_adds(&b, tail);
    }
    if (!end || b.oom) {
        store_set_error(b.oom ? "out of memory reading view '%s'"
                              : "view '%s' has no end in this build's schema",
                        name);
        strbuf_release(&b);
        return NULL;
    }
    return b.p;
}
