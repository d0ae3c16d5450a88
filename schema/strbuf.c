/* SPDX-License-Identifier: MIT */
/* strbuf: see strbuf.h. Doubling growth from 64 bytes. */
#include "schema/strbuf.h"

#include <stdlib.h>
#include <string.h>

void
strbuf_add(struct strbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void
strbuf_adds(struct strbuf *b, const char *s)
{
    strbuf_add(b, s, strlen(s));
}

void
strbuf_release(struct strbuf *b)
{
    if (!b)
        return;
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}
