/* SPDX-License-Identifier: MIT */
/*
 * sanitize: make untrusted report strings safe to print anywhere.
 *
 * One pass over the input, one "piece" (at most 10 bytes) of output per
 * input character, written straight into the destination. The cap is
 * enforced on whole pieces, so a cut never splits a UTF-8 sequence or an
 * escape; the position after the last piece that still leaves room for
 * the ellipsis is remembered so a cut needs no second pass and no
 * allocation (the TUI calls sanitize_into() while drawing).
 */
#include "export/sanitize.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define ELLIPSIS "\xe2\x80\xa6"
#define ELLIPSIS_LEN 3
#define REPLACEMENT "\xef\xbf\xbd"

static const char HEX_LOWER[] = "0123456789abcdef";
static const char HEX_UPPER[] = "0123456789ABCDEF";

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
            /* By hand, not snprintf(): a line of escapes has one every few bytes. */
            memcpy(piece, "\\x", 2);
            piece[2] = HEX_LOWER[cp >> 4];
            piece[3] = HEX_LOWER[cp & 15];
            return 4;
        }
    }
    if (is_hidden_control(cp)) {
        /* cp <= U+FFFF: four digits. */
        memcpy(piece, "\\u{", 3);
        for (int k = 0; k < 4; k++)
            piece[3 + k] = HEX_UPPER[(cp >> (12 - 4 * k)) & 15];
        piece[7] = '}';
        return 8;
    }
    memcpy(piece, s, len);
    return len;
}

/*
 * The length of the run of printable ASCII (0x20..0x7e) at s, at most n
 * bytes; eight bytes a step, since most text is such a run (a 1 MB
 * command line is one).
 */
static size_t
printable_run(const unsigned char *s, size_t n)
{
    if (n == 0 || s[0] < 0x20 || s[0] >= 0x7f)
        return 0; /* between two escapes */
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t v;
        memcpy(&v, s + k, 8);
        if (sanitize_has_below(v, 0x20) | (v & SANITIZE_HIGHS) |
            sanitize_has_below(v ^ (SANITIZE_ONES * 0x7f), 1))
            break;
    }
    while (k < n && s[k] >= 0x20 && s[k] < 0x7f)
        k++;
    return k;
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
    char piece[16] = {0};
    while (i < slen) {
        /*
         * Fast path: printable ASCII is its own piece, one byte each; copy
         * the whole run that fits (most text is this, and a 1 MB command
         * line must sanitize in a few ms).
         */
        size_t run = printable_run(p + i, slen - i), start = out;
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
        /* A piece is at most 8 bytes: a fixed-size copy is a move, not a call. */
        if (out + sizeof(uint64_t) <= cap)
            memcpy(dst + out, piece, sizeof(uint64_t));
        else
            memcpy(dst + out, piece, k);
        out += k;
        i += used;
        if (out + ELLIPSIS_LEN <= cap)
            mark = out;
    }
    return out;
}

/* The pieces of the C0 controls and DEL (sanitize.h: sanitize_put_c0()). */
const char sanitize_c0_piece[33][4] = {
    "\\x00",   "\\x01",   "\\x02", "\\x03", "\\x04",   "\\x05", "\\x06", "\\x07", "\\x08",
    "\\t\0\2", "\\n\0\2", "\\x0b", "\\x0c", "\\r\0\2", "\\x0e", "\\x0f", "\\x10", "\\x11",
    "\\x12",   "\\x13",   "\\x14", "\\x15", "\\x16",   "\\x17", "\\x18", "\\x19", "\\x1a",
    "\\e\0\2", "\\x1c",   "\\x1d", "\\x1e", "\\x1f",   "\\x7f",
};

size_t
sanitize_append(char *dst, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    char *o = dst;
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            if (!(sanitize_has_below(v, 0x20) | (v & SANITIZE_HIGHS) |
                  sanitize_has_below(v ^ (SANITIZE_ONES * 0x7f), 1))) {
                memcpy(o, &v, 8);
                o += 8;
                i += 8;
                continue;
            }
        }
        unsigned char c = p[i];
        if (c >= 0x20 && c < 0x7f) {
            *o++ = (char)c;
            i++;
        } else if (c < 0x80) {
            o += sanitize_put_c0(o, c);
            i++;
        } else {
            size_t used;
            /* A piece is at most 8 bytes, and dst has room for 16 past the worst case. */
            o += next_piece(p + i, n - i, o, &used);
            i += used;
        }
    }
    return (size_t)(o - dst);
}

size_t
sanitize_code_point(char *dst, uint32_t cp)
{
    if (cp >= 0x20 && cp < 0x7f) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x80)
        return sanitize_put_c0(dst, (unsigned char)cp);
    if (cp >= 0xd800 && cp <= 0xdfff) {
        memcpy(dst, REPLACEMENT REPLACEMENT REPLACEMENT, 9);
        return 9;
    }
    unsigned char u[4];
    size_t n, used;
    if (cp < 0x800) {
        u[0] = (unsigned char)(0xc0 | cp >> 6);
        u[1] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (unsigned char)(0xe0 | cp >> 12);
        u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        u[0] = (unsigned char)(0xf0 | cp >> 18);
        u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return next_piece(u, n, dst, &used);
}

char *
sanitize_text(const char *s, size_t max_bytes)
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
sanitize_into(char *buf, size_t n, const char *s)
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

int
sanitize_width(const char *s)
{
    if (!s)
        return 0;
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    int width = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_decode(p + i, n - i, &cp);
        if (len == 0) {
            /* Not sanitized text: count the byte as the U+FFFD it becomes. */
            width++;
            i++;
            continue;
        }
        i += len;
        int w = wcwidth((wchar_t)cp);
        width += w < 0 ? 1 : w;
    }
    return width;
}
