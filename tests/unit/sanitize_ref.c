/* SPDX-License-Identifier: MIT */
/*
 * sanitize_ref: the reference the sanitizer is compared with.
 *
 * This is sanitize_text() and sanitize_into() of export/sanitize.c as
 * they were at commit 443d007, under other names (sanitize_width() is
 * left out: it did not change). test_sanitize compares the two on
 * random strings and caps, byte for byte.
 */
#include "export/sanitize.h"
#include "tests/unit/sanitize_ref.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELLIPSIS "\xe2\x80\xa6"
#define ELLIPSIS_LEN 3
#define REPLACEMENT "\xef\xbf\xbd"

/*
 * Decode one UTF-8 character at s (n bytes available, n >= 1).
 * Returns its length and stores the code point in *cp, or returns 0 when
 * s does not start a well-formed sequence (RFC 3629 table: no overlongs,
 * no surrogates, nothing above U+10FFFF).
 */
static size_t
utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char b = s[0];
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf;
    uint32_t c;
    if (b >= 0xc2 && b <= 0xdf) {
        len = 2;
        c = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
        len = 3;
        c = b & 0x0f;
        if (b == 0xe0)
            lo = 0xa0;
        else if (b == 0xed)
            hi = 0x9f; /* U+D800..U+DFFF are surrogates */
    } else if (b >= 0xf0 && b <= 0xf4) {
        len = 4;
        c = b & 0x07;
        if (b == 0xf0)
            lo = 0x90;
        else if (b == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        unsigned char t = s[i];
        if (i == 1 ? (t < lo || t > hi) : (t < 0x80 || t > 0xbf))
            return 0;
        c = (c << 6) | (t & 0x3f);
    }
    *cp = c;
    return len;
}

/* Code points above ASCII that must not reach a reader raw (U+FFFE/U+FFFF: not allowed in XML). */
static int
is_hidden_control(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0xfffe || cp == 0xffff;
}

/*
 * The output piece for the character at s: fills piece (>= 16 bytes),
 * returns its length, stores the input bytes consumed in *used.
 */
static size_t
next_piece(const unsigned char *s, size_t n, char *piece, size_t *used)
{
    uint32_t cp;
    size_t len = utf8_decode(s, n, &cp);
    if (len == 0) {
        *used = 1;
        memcpy(piece, REPLACEMENT, 3);
        return 3;
    }
    *used = len;
    if (cp < 0x20 || cp == 0x7f) {
        switch (cp) {
        case '\n':
            memcpy(piece, "\\n", 2);
            return 2;
        case '\t':
            memcpy(piece, "\\t", 2);
            return 2;
        case '\r':
            memcpy(piece, "\\r", 2);
            return 2;
        case 0x1b:
            memcpy(piece, "\\e", 2);
            return 2;
        default:
            return (size_t)snprintf(piece, 16, "\\x%02x", (unsigned)cp);
        }
    }
    if (is_hidden_control(cp))
        return (size_t)snprintf(piece, 16, "\\u{%04X}", (unsigned)cp);
    memcpy(piece, s, len);
    return len;
}

/*
 * Write the sanitized form of s (slen bytes) into dst, at most cap bytes
 * (no NUL). Returns the length written.
 */
static size_t
sanitize_core(char *dst, size_t cap, const char *s, size_t slen)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t out = 0, mark = 0, i = 0;
    char piece[16];
    while (i < slen) {
        /*
         * Fast path: printable ASCII is its own piece, one byte each; copy
         * the whole run that fits (most text is this, and a 1 MB command
         * line must sanitize in a few ms).
         */
        size_t run = 0, start = out;
        while (i + run < slen && p[i + run] >= 0x20 && p[i + run] < 0x7f)
            run++;
        if (run > 0) {
            size_t fit = out + run <= cap ? run : cap - out;
            memcpy(dst + out, p + i, fit);
            if (fit < run) {
                /* Cut inside the run: every byte of it is a boundary. */
                if (cap < ELLIPSIS_LEN)
                    return cap;
                size_t at = cap >= start + ELLIPSIS_LEN ? cap - ELLIPSIS_LEN : mark;
                memcpy(dst + at, ELLIPSIS, ELLIPSIS_LEN);
                return at + ELLIPSIS_LEN;
            }
            out += run;
            i += run;
            if (cap >= start + ELLIPSIS_LEN)
                mark = out + ELLIPSIS_LEN <= cap ? out : cap - ELLIPSIS_LEN;
            continue;
        }
        size_t used;
        size_t k = next_piece(p + i, slen - i, piece, &used);
        if (out + k > cap) {
            /* Cut: back to the last boundary that leaves room for "…". */
            if (cap < ELLIPSIS_LEN)
                return out;
            memcpy(dst + mark, ELLIPSIS, ELLIPSIS_LEN);
            return mark + ELLIPSIS_LEN;
        }
        memcpy(dst + out, piece, k);
        out += k;
        i += used;
        if (out + ELLIPSIS_LEN <= cap)
            mark = out;
    }
    return out;
}

char *
sanitize_ref_text(const char *s, size_t max_bytes)
{
    if (!s)
        return NULL;
    size_t cap = max_bytes ? max_bytes : SANITIZE_DEFAULT_MAX;
    size_t slen = strlen(s);
    /* A piece is at most 8 bytes per 2 input bytes (C1) or 4 per 1 byte. */
    size_t worst = slen > SIZE_MAX / 4 ? SIZE_MAX : slen * 4;
    size_t size = (worst < cap ? worst : cap) + 1;
    /*
     * Exports sanitize every string of thousands of findings: work on the
     * stack and allocate the exact length, so memory follows the text
     * rather than its worst-case expansion.
     */
    char stack[8192];
    char *work = size <= sizeof(stack) ? stack : malloc(size);
    if (!work)
        goto oom;
    size_t n = sanitize_core(work, size - 1, s, slen);
    work[n] = '\0';
    if (work != stack) {
        char *shrunk = realloc(work, n + 1);
        return shrunk ? shrunk : work;
    }
    char *buf = malloc(n + 1);
    if (!buf)
        goto oom;
    memcpy(buf, work, n + 1);
    return buf;
oom:
    fputs("gpuhier: out of memory\n", stderr);
    abort();
}

char *
sanitize_ref_into(char *buf, size_t n, const char *s)
{
    if (n == 0)
        return buf;
    if (!s) {
        buf[0] = '\0';
        return buf;
    }
    size_t len = sanitize_core(buf, n - 1, s, strlen(s));
    buf[len] = '\0';
    return buf;
}
