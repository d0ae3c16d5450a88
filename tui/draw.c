/* SPDX-License-Identifier: MIT */
/*
 * draw: the canvas (a screen of cells in memory) and the draw_* helpers
 * that put sanitized text, fields and bars on one line of it, or into a
 * text buffer for plain-text output. Each helper returns true once the
 * line is full so callers can stop early (tig src/draw.c).
 *
 * Text reaching here is already sanitized UTF-8; this file only measures
 * and places it. In ASCII mode (no UTF-8 locale, or forced) every
 * non-ASCII character is drawn as '?' and bars use '#' and '.'.
 */
#include "tui/tui_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

void
canvas_init(struct canvas *c, int cols, int rows, bool ascii)
{
    c->cols = c->rows = 0;
    c->cells = NULL;
    c->ascii = ascii;
    canvas_resize(c, cols, rows);
}

void
canvas_resize(struct canvas *c, int cols, int rows)
{
    if (cols < 1)
        cols = 1;
    if (rows < 1)
        rows = 1;
    free(c->cells);
    c->cols = cols;
    c->rows = rows;
    c->cells = xcalloc((size_t)cols * rows, sizeof(*c->cells));
    canvas_clear(c);
}

void
canvas_release(struct canvas *c)
{
    free(c->cells);
    c->cells = NULL;
}

void
canvas_clear(struct canvas *c)
{
    for (int i = 0; i < c->cols * c->rows; i++) {
        c->cells[i].ch[0] = ' ';
        c->cells[i].ch[1] = '\0';
        c->cells[i].type = LINE_DEFAULT;
    }
}

int
canvas_write(const struct canvas *c, FILE *f)
{
    for (int r = 0; r < c->rows; r++) {
        const struct cell *line = c->cells + (size_t)r * c->cols;
        int last = c->cols - 1;
        while (last >= 0 && !strcmp(line[last].ch, " "))
            last--;
        for (int i = 0; i <= last; i++)
            fputs(line[i].ch, f);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

int
canvas_write_types(const struct canvas *c, FILE *f)
{
    /* One letter per cell: 'a' + enum line_type, so tests can check colours. */
    for (int r = 0; r < c->rows; r++) {
        for (int i = 0; i < c->cols; i++)
            fputc('a' + c->cells[(size_t)r * c->cols + i].type, f);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* Length of the UTF-8 character at s (valid, sanitized text) and its code point. */
static int
utf8_next(const char *s, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    int len = p[0] < 0x80 ? 1 : p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
    uint32_t c = len == 1 ? p[0] : len == 2 ? p[0] & 0x1f : len == 3 ? p[0] & 0x0f : p[0] & 0x07;
    for (int i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            /* Not valid after all: take the lead byte alone. */
            *cp = 0xfffd;
            return 1;
        }
        c = (c << 6) | (p[i] & 0x3f);
    }
    *cp = c;
    return len;
}

static int
char_width(uint32_t cp, bool ascii)
{
    if (cp < 0x80 || ascii)
        return 1;
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : w;
}

int
text_width(const char *s)
{
    int w = 0;
    while (s && *s) {
        uint32_t cp;
        s += utf8_next(s, &cp);
        w += char_width(cp, false);
    }
    return w;
}

static enum line_type
effective(struct draw *d, enum line_type t)
{
    return d->cursor ? LINE_CURSOR : t;
}

static void
buf_put(struct draw *d, const char *s, size_t n)
{
    if (d->len + n + 1 > d->cap) {
        d->cap = (d->len + n + 1) * 2;
        d->buf = xrealloc(d->buf, d->cap);
    }
    memcpy(d->buf + d->len, s, n);
    d->len += n;
    d->buf[d->len] = '\0';
}

/* Put one character of `len` bytes and width `w`; returns true when the line is full. */
static bool
put_char(struct draw *d, enum line_type t, const char *s, int len, int w)
{
    if (!d->c) {
        buf_put(d, s, (size_t)len);
        d->col += w;
        return false;
    }
    if (d->col >= d->maxcol)
        return true;
    if (d->c->ascii && (unsigned char)s[0] >= 0x80) {
        /* The few non-ASCII characters our own formats use keep a readable stand-in. */
        static const struct {
            const char *utf8, *ascii;
        } sub[] = {{"\xc3\x97", "x"},     {"\xc2\xb5", "u"},     {"\xe2\x80\xa6", "~"},
                   {"\xe2\x80\x93", "-"}, {"\xe2\x80\x94", "-"}, {"\xc2\xb7", "."}};
        const char *to = "?";
        for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
            if ((size_t)len == strlen(sub[i].utf8) && !memcmp(s, sub[i].utf8, (size_t)len))
                to = sub[i].ascii;
        s = to;
        len = 1;
        w = 1;
    }
    if (w == 0) /* combining character: keep it with the previous cell when there is room */
        return false;
    if (d->skip > 0) {
        /* Scrolled sideways: this column is left of the screen. */
        d->skip -= w;
        return false;
    }
    if (d->col + w > d->maxcol) {
        /* A wide character that does not fit: blank the last cell. */
        struct cell *cl = d->c->cells + (size_t)d->row * d->c->cols + d->col;
        strcpy(cl->ch, " ");
        cl->type = effective(d, t);
        d->col = d->maxcol;
        return true;
    }
    struct cell *cl = d->c->cells + (size_t)d->row * d->c->cols + d->col;
    memcpy(cl->ch, s, (size_t)len);
    cl->ch[len] = '\0';
    cl->type = effective(d, t);
    for (int i = 1; i < w; i++) {
        cl[i].ch[0] = '\0';
        cl[i].type = effective(d, t);
    }
    d->col += w;
    return d->col >= d->maxcol;
}

/* put_char, but a stray byte of invalid UTF-8 (unsanitized text) becomes U+FFFD. */
static bool
put_valid(struct draw *d, enum line_type t, const char *s, int len, int w)
{
    if (len == 1 && (unsigned char)s[0] >= 0x80)
        return put_char(d, t, "\xef\xbf\xbd", 3, 1);
    return put_char(d, t, s, len, w);
}

bool
draw_chars(struct draw *d, enum line_type t, char ch, int n)
{
    char s[2] = {ch, '\0'};
    for (int i = 0; i < n; i++)
        if (put_char(d, t, s, 1, 1))
            return true;
    return d->c && d->col >= d->maxcol;
}

bool
draw_text(struct draw *d, enum line_type t, const char *s)
{
    while (s && *s) {
        uint32_t cp;
        int len = utf8_next(s, &cp);
        bool ascii = d->c ? d->c->ascii : false;
        if (put_valid(d, t, s, len, char_width(cp, ascii)))
            return true;
        s += len;
    }
    return d->c && d->col >= d->maxcol;
}

bool
draw_field(struct draw *d, enum line_type t, const char *s, int width, bool right)
{
    if (!s)
        s = "";
    bool ascii = d->c ? d->c->ascii : false;
    int w = 0;
    for (const char *p = s; *p;) {
        uint32_t cp;
        p += utf8_next(p, &cp);
        w += char_width(cp, ascii);
    }
    if (width <= 0)
        return draw_text(d, t, s) || draw_chars(d, t, ' ', 1);
    if (w <= width || !d->c) {
        if (right && w < width && draw_chars(d, t, ' ', width - w))
            return true;
        if (draw_text(d, t, s))
            return true;
        if (!right && w < width && draw_chars(d, t, ' ', width - w))
            return true;
        return draw_chars(d, t, ' ', 1);
    }
    /* Cut: keep width-1 columns and mark the cut. */
    int used = 0;
    while (*s) {
        uint32_t cp;
        int len = utf8_next(s, &cp);
        int cw = char_width(cp, ascii);
        if (used + cw > width - 1)
            break;
        if (put_valid(d, t, s, len, cw))
            return true;
        used += cw;
        s += len;
    }
    if (used < width - 1 && draw_chars(d, t, ' ', width - 1 - used))
        return true;
    if (ascii ? put_char(d, LINE_DIM, "~", 1, 1) : put_char(d, LINE_DIM, "\xe2\x80\xa6", 3, 1))
        return true;
    return draw_chars(d, t, ' ', 1);
}

bool
draw_bar(struct draw *d, double frac, int width)
{
    if (frac < 0 || isnan(frac)) {
        if (draw_field(d, LINE_DIM, "n/a", width, false))
            return true;
        return false;
    }
    if (frac > 1)
        frac = 1;
    int full = (int)lround(frac * width);
    bool ascii = d->c ? d->c->ascii : true;
    for (int i = 0; i < width; i++) {
        bool on = i < full;
        const char *s = ascii ? (on ? "#" : ".") : (on ? "\xe2\x96\x88" : "\xe2\x96\x91");
        if (put_char(d, on ? LINE_BAR : LINE_BAR_EMPTY, s, (int)strlen(s), 1))
            return true;
    }
    return draw_chars(d, LINE_DEFAULT, ' ', 1);
}

bool
draw_pad_to(struct draw *d, int col)
{
    if (d->col < col)
        return draw_chars(d, LINE_DEFAULT, ' ', col - d->col);
    return d->c && d->col >= d->maxcol;
}

void
draw_eol(struct draw *d, enum line_type t)
{
    if (!d->c)
        return;
    while (d->col < d->maxcol)
        put_char(d, t, " ", 1, 1);
}

/* ------------------------------------------------------------------ */
/* Numbers                                                             */
/* ------------------------------------------------------------------ */

void
fmt_ns(char *buf, size_t n, double ns)
{
    if (isnan(ns))
        snprintf(buf, n, "-");
    else if (ns < 1e3)
        snprintf(buf, n, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, n,
                 ns < 1e4   ? "%.2f \xc2\xb5s"
                 : ns < 1e5 ? "%.1f \xc2\xb5s"
                            : "%.0f \xc2\xb5s",
                 ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, n, ns < 1e7 ? "%.2f ms" : ns < 1e8 ? "%.1f ms" : "%.0f ms", ns / 1e6);
    else
        snprintf(buf, n, ns < 1e10 ? "%.2f s" : ns < 1e11 ? "%.1f s" : "%.0f s", ns / 1e9);
}

void
fmt_bytes(char *buf, size_t n, double b)
{
    if (isnan(b))
        snprintf(buf, n, "-");
    else if (b < 1e3)
        snprintf(buf, n, "%.0f B", b);
    else if (b < 1e6)
        snprintf(buf, n, "%.1f kB", b / 1e3);
    else if (b < 1e9)
        snprintf(buf, n, "%.1f MB", b / 1e6);
    else if (b < 1e12)
        snprintf(buf, n, "%.1f GB", b / 1e9);
    else
        snprintf(buf, n, "%.1f TB", b / 1e12);
}

void
fmt_bw(char *buf, size_t n, double bps)
{
    if (isnan(bps))
        snprintf(buf, n, "-");
    else if (bps < 1e9)
        snprintf(buf, n, "%.1f MB/s", bps / 1e6);
    else if (bps < 1e12)
        snprintf(buf, n, "%.1f GB/s", bps / 1e9);
    else
        snprintf(buf, n, "%.2f TB/s", bps / 1e12);
}

void
fmt_count(char *buf, size_t n, double v)
{
    if (isnan(v)) {
        snprintf(buf, n, "-");
        return;
    }
    char tmp[32];
    snprintf(tmp, sizeof(tmp), "%.0f", v);
    size_t len = strlen(tmp), o = 0;
    size_t start = tmp[0] == '-' ? 1 : 0;
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        if (i > start && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
}

void
fmt_pct(char *buf, size_t n, double pct)
{
    if (isnan(pct))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.1f%%", pct);
}

void
fmt_ratio(char *buf, size_t n, double r)
{
    if (isnan(r))
        snprintf(buf, n, "-");
    else if (r < 100)
        snprintf(buf, n, "%.1f\xc3\x97", r);
    else
        snprintf(buf, n, "%.0f\xc3\x97", r);
}
