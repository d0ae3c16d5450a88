/* SPDX-License-Identifier: MIT */
/*
 * Minimal JSON string writing for the run row (command line, environment,
 * options). The collector does not link jansson: it must load into any
 * process and carries only what it needs. Bytes that are not valid UTF-8
 * are written as \u00XX of the byte so the result is always valid JSON.
 */
#include "collector/collector_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
    size_t len;
    if (s[0] < 0x80)
        return 1;
    else if ((s[0] & 0xe0) == 0xc0 && s[0] >= 0xc2)
        len = 2;
    else if ((s[0] & 0xf0) == 0xe0)
        len = 3;
    else if ((s[0] & 0xf8) == 0xf0 && s[0] <= 0xf4)
        len = 4;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

void
jbuf_str(struct strbuf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    strbuf_add(b, "\"", 1);
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            strbuf_add(b, esc, 2);
            i++;
        } else if (c == '\n') {
            strbuf_add(b, "\\n", 2);
            i++;
        } else if (c == '\t') {
            strbuf_add(b, "\\t", 2);
            i++;
        } else if (c == '\r') {
            strbuf_add(b, "\\r", 2);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            snprintf(esc, sizeof(esc), "\\u%04x", c);
            strbuf_add(b, esc, 6);
            i++;
        } else {
            size_t l = utf8_len(u + i, n - i);
            if (l == 0) {
                snprintf(esc, sizeof(esc), "\\u%04x", c);
                strbuf_add(b, esc, 6);
                i++;
            } else {
                strbuf_add(b, s + i, l);
                i += l;
            }
        }
    }
    strbuf_add(b, "\"", 1);
}

char *
json_array_nul(const char *data, size_t n)
{
    struct strbuf b = {0};
    strbuf_adds(&b, "[");
    size_t i = 0;
    int first = 1;
    while (i < n) {
        size_t l = strnlen(data + i, n - i);
        if (!first)
            strbuf_adds(&b, ",");
        jbuf_str(&b, data + i, l);
        first = 0;
        i += l + 1;
    }
    strbuf_adds(&b, "]");
    if (b.oom) {
        strbuf_release(&b);
        return NULL;
    }
    return b.p;
}
