/* SPDX-License-Identifier: MIT */
/*
 * strbuf: a growable NUL-terminated string for building names and JSON
 * text. It uses plain realloc and never aborts: on allocation failure it
 * sets `oom`, drops further additions, and the caller checks `oom` once
 * at the end. That is what the collector needs inside someone else's
 * process (STYLE.md §4.9), and what outname shares with it.
 */
#ifndef GPUHIER_SCHEMA_STRBUF_H
#define GPUHIER_SCHEMA_STRBUF_H

#include <stddef.h>

struct strbuf {
    char *p;    /* the text, NUL-terminated once anything was added; owned */
    size_t len; /* bytes of text, without the NUL */
    size_t cap; /* bytes allocated */
    int oom;    /* 1 once an allocation failed: the text is incomplete */
};

#define STRBUF_INIT                                                                                \
    {                                                                                              \
        0                                                                                          \
    }

/* Append `n` bytes of `s` (which need not be NUL-terminated). */
void strbuf_add(struct strbuf *b, const char *s, size_t n);

/* Append the NUL-terminated string `s`. */
void strbuf_adds(struct strbuf *b, const char *s);

/* Free the text and reset to STRBUF_INIT. NULL-safe. */
void strbuf_release(struct strbuf *b);

#endif
