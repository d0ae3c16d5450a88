/* SPDX-License-Identifier: MIT */
/*
 * view: what every screen shares: rows (tables) and lines (text views),
 * filtering, sorting, selection, scrolling, search, and drawing one line
 * of either kind. Views fill rows in open(); nothing here queries the
 * report except the small SQL helpers at the end.
 */
#include "tui/tui_int.h"

#include "export/export.h"
#include "export/sanitize.h"
#include "schema/store.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int view_show_all;

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

static void
oom(void)
{
    fputs("gpuhier: out of memory\n", stderr);
    abort();
}

void *
xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *
xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *
xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        oom();
    return p;
}

char *
xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p)
        oom();
    return p;
}

char *
xsanitize(const char *s, size_t max)
{
    return sanitize_text(s ? s : "", max);
}

char *
xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        oom();
    return s;
}

enum line_type
line_of_severity(const char *sev)
{
    if (!sev)
        return LINE_DEFAULT;
    if (!strcmp(sev, "error"))
        return LINE_ERROR;
    if (!strcmp(sev, "warning"))
        return LINE_WARNING;
    if (!strcmp(sev, "note"))
        return LINE_NOTE;
    return LINE_DEFAULT;
}

/* ------------------------------------------------------------------ */
/* Life cycle                                                          */
/* ------------------------------------------------------------------ */

struct view *
view_new(const struct view_ops *ops, sqlite3 *db, long long id, long long id2)
{
    struct view *v = xcalloc(1, sizeof(*v));
    v->ops = ops;
    v->db = db;
    v->id = id;
    v->id2 = id2;
    v->sort_col = ops->cols ? ops->default_sort : -1;
    return v;
}

void
view_reset_rows(struct view *v)
{
    int ncols = v->ops->ncols;
    for (size_t i = 0; i < v->nrows; i++) {
        for (int c = 0; c < ncols; c++)
            free(v->rows[i].v[c].text);
        free(v->rows[i].v);
        free(v->rows[i].note);
    }
    free(v->rows);
    free(v->vis);
    v->rows = NULL;
    v->vis = NULL;
    v->nrows = v->nvis = 0;
    for (size_t i = 0; i < v->nlines; i++) {
        for (int s = 0; s < v->lines[i].nsegs; s++)
            free(v->lines[i].segs[s].text);
        free(v->lines[i].segs);
    }
    free(v->lines);
    v->lines = NULL;
    v->nlines = v->alloc = 0;
}

void
view_free(struct view *v)
{
    if (!v)
        return;
    if (v->ops->done)
        v->ops->done(v);
    view_reset_rows(v);
    free(v->message);
    free(v->nvtx);
    free(v->text_widths);
    free(v);
}

size_t
view_lines(const struct view *v)
{
    return v->ops->cols ? v->nvis : v->nlines;
}

int
view_load(struct view *v)
{
    long long keep_id = -1, keep_id2 = -1;
    struct row *r = view_row(v);
    if (r) {
        keep_id = r->id;
        keep_id2 = r->id2;
    }
    view_reset_rows(v);
    int rc = v->ops->open(v);
    if (v->ops->cols) {
        view_refilter(v);
        if (r) {
            for (size_t i = 0; i < v->nvis; i++)
                if (v->rows[v->vis[i]].id == keep_id && v->rows[v->vis[i]].id2 == keep_id2)
                    v->pos = i;
        }
    }
    size_t n = view_lines(v);
    if (v->pos >= n)
        v->pos = n ? n - 1 : 0;
    if (v->offset > v->pos)
        v->offset = v->pos;
    return rc;
}

/* ------------------------------------------------------------------ */
/* Building rows and lines                                             */
/* ------------------------------------------------------------------ */

struct row *
view_add_row(struct view *v)
{
    if ((v->nrows & (v->nrows - 1)) == 0 || v->nrows == 0) {
        size_t cap = v->nrows ? v->nrows * 2 : 16;
        v->rows = xrealloc(v->rows, cap * sizeof(*v->rows));
    }
    struct row *r = &v->rows[v->nrows++];
    memset(r, 0, sizeof(*r));
    r->v = xcalloc((size_t)v->ops->ncols, sizeof(*r->v));
    for (int c = 0; c < v->ops->ncols; c++)
        r->v[c].is_null = true;
    r->id = r->id2 = -1;
    return r;
}

void
value_set_text(struct value *val, const char *untrusted, size_t max)
{
    free(val->text);
    val->text = xsanitize(untrusted, max);
    val->is_null = untrusted == NULL;
}

void
value_set_num(struct value *val, sqlite3_stmt *st, int col)
{
    val->is_null = sqlite3_column_type(st, col) == SQLITE_NULL;
    val->num = val->is_null ? NAN : sqlite3_column_double(st, col);
}

struct tline *
view_add_line(struct view *v)
{
    if (v->nlines == v->alloc) {
        v->alloc = v->alloc ? v->alloc * 2 : 32;
        v->lines = xrealloc(v->lines, v->alloc * sizeof(*v->lines));
    }
    struct tline *l = &v->lines[v->nlines++];
    memset(l, 0, sizeof(*l));
    l->id = l->id2 = -1;
    return l;
}

static struct seg *
line_seg(struct tline *l)
{
    l->segs = xrealloc(l->segs, (size_t)(l->nsegs + 1) * sizeof(*l->segs));
    struct seg *s = &l->segs[l->nsegs++];
    memset(s, 0, sizeof(*s));
    return s;
}

void
line_add(struct tline *l, enum line_type t, int width, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        oom();
    va_end(ap);
    struct seg *sg = line_seg(l);
    sg->type = t;
    sg->width = width;
    sg->text = s;
}

void
line_add_right(struct tline *l, enum line_type t, int width, const char *s)
{
    /* printf pads by bytes; "µs" and "×" are two bytes for one column. */
    int cols = 0;
    for (const char *p = s; *p; p++)
        cols += ((unsigned char)*p & 0xc0) != 0x80;
    line_add(l, t, 0, "%*s%s", width > cols ? width - cols : 0, "", s);
}

void
line_add_untrusted(struct tline *l, enum line_type t, int width, const char *s, size_t max)
{
    struct seg *sg = line_seg(l);
    sg->type = t;
    sg->width = width;
    sg->text = xsanitize(s ? s : "-", max);
}

void
line_add_bar(struct tline *l, double frac, int width)
{
    struct seg *sg = line_seg(l);
    sg->type = LINE_BAR;
    sg->bar = frac;
    sg->width = width;
}

struct tline *
view_printf(struct view *v, enum line_type t, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        oom();
    va_end(ap);
    struct tline *l = view_add_line(v);
    struct seg *sg = line_seg(l);
    sg->type = t;
    sg->text = s;
    return l;
}

int
view_wrap(const struct view *v)
{
    return v->wrap_cols > 0 ? v->wrap_cols : 64;
}

void
view_add_wrapped(struct view *v, enum line_type t, int indent, const char *label,
                 const char *untrusted, int width)
{
    /* Names up to 1 MB are shown whole here; the lists cut them. */
    char *s = xsanitize(untrusted ? untrusted : "-", 1 << 20);
    const char *p = s;
    bool first = true;
    do {
        /*
         * Take up to `width` columns, counting bytes of whole characters,
         * and remember the last place a line may break without cutting a
         * word or a name: after a blank or "::", before '<' or '('.
         */
        const char *q = p, *brk = NULL;
        int w = 0;
        while (*q && w < width) {
            int len = ((unsigned char)*q < 0x80)   ? 1
                      : ((unsigned char)*q < 0xe0) ? 2
                      : ((unsigned char)*q < 0xf0) ? 3
                                                   : 4;
            if (q > p && (*q == '<' || *q == '('))
                brk = q;
            if (*q == ' ' || (*q == ':' && q > p && q[-1] == ':'))
                brk = q + 1;
            q += len;
            w++;
        }
        /* Break there when the text goes on, unless that wastes most of the line. */
        if (*q && brk && brk > p && brk < q && q - brk < width * 2 / 3)
            q = brk;
        struct tline *l = view_add_line(v);
        line_add(l, LINE_LABEL, indent, "%s", first && label ? label : "");
        struct seg *sg = line_seg(l);
        sg->type = t;
        sg->text = xmalloc((size_t)(q - p) + 1);
        memcpy(sg->text, p, (size_t)(q - p));
        sg->text[q - p] = '\0';
        p = q;
        first = false;
    } while (*p);
    free(s);
}

/* ------------------------------------------------------------------ */
/* Filter and sort                                                     */
/* ------------------------------------------------------------------ */

static bool
row_matches(const struct view *v, const struct row *r, const char *needle)
{
    if (!needle[0])
        return true;
    for (int c = 0; c < v->ops->ncols; c++)
        if (v->ops->cols[c].kind == COL_TEXT && r->v[c].text && strcasestr(r->v[c].text, needle))
            return true;
    return false;
}

static int
compare_rows(const void *a, const void *b, void *arg)
{
    const struct view *v = arg;
    size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
    const struct value *x = &v->rows[ia].v[v->sort_col], *y = &v->rows[ib].v[v->sort_col];
    int c = 0;
    if (x->is_null != y->is_null)
        return x->is_null ? 1 : -1; /* missing values last, whatever the order */
    if (!x->is_null) {
        if (v->ops->cols[v->sort_col].kind == COL_TEXT)
            c = strcasecmp(x->text ? x->text : "", y->text ? y->text : "");
        else
            c = x->num < y->num ? -1 : x->num > y->num ? 1 : 0;
        bool desc = v->ops->cols[v->sort_col].sort_desc != v->sort_rev;
        if (desc)
            c = -c;
    }
    if (c == 0)
        c = ia < ib ? -1 : ia > ib ? 1 : 0;
    return c;
}

void
view_refilter(struct view *v)
{
    free(v->vis);
    v->vis = xcalloc(v->nrows, sizeof(*v->vis));
    v->nvis = 0;
    for (size_t i = 0; i < v->nrows; i++)
        if (row_matches(v, &v->rows[i], v->filter))
            v->vis[v->nvis++] = i;
    if (v->sort_col >= 0 && v->sort_col < v->ops->ncols)
        qsort_r(v->vis, v->nvis, sizeof(*v->vis), compare_rows, v);
    if (v->pos >= v->nvis)
        v->pos = v->nvis ? v->nvis - 1 : 0;
    if (v->offset > v->pos)
        v->offset = v->pos;
}

struct row *
view_row(struct view *v)
{
    if (!v->ops->cols || v->pos >= v->nvis)
        return NULL;
    return &v->rows[v->vis[v->pos]];
}

/* ------------------------------------------------------------------ */
/* Navigation                                                          */
/* ------------------------------------------------------------------ */

void
view_move(struct view *v, enum request req, int height)
{
    size_t n = view_lines(v);
    if (height < 1)
        height = 1;
    if (n == 0) {
        v->pos = v->offset = 0;
        return;
    }
    switch (req) {
    case REQ_MOVE_UP:
        if (v->pos > 0)
            v->pos--;
        break;
    case REQ_MOVE_DOWN:
        if (v->pos + 1 < n)
            v->pos++;
        break;
    case REQ_MOVE_PAGE_UP:
        v->pos = v->pos > (size_t)height ? v->pos - (size_t)height : 0;
        v->offset = v->offset > (size_t)height ? v->offset - (size_t)height : 0;
        break;
    case REQ_MOVE_PAGE_DOWN:
        v->pos = v->pos + (size_t)height < n ? v->pos + (size_t)height : n - 1;
        if (v->offset + 2 * (size_t)height <= n)
            v->offset += (size_t)height;
        else
            v->offset = n > (size_t)height ? n - (size_t)height : 0;
        break;
    case REQ_MOVE_FIRST:
        v->pos = 0;
        break;
    case REQ_MOVE_LAST:
        v->pos = n - 1;
        break;
    default:
        break;
    }
    if (v->pos < v->offset)
        v->offset = v->pos;
    if (v->pos >= v->offset + (size_t)height)
        v->offset = v->pos - (size_t)height + 1;
}

static bool
line_matches(const struct tline *l, const char *needle)
{
    for (int s = 0; s < l->nsegs; s++)
        if (l->segs[s].text && strcasestr(l->segs[s].text, needle))
            return true;
    return false;
}

int
view_find(struct view *v, int dir)
{
    size_t n = view_lines(v);
    const char *needle = v->ops->cols ? v->filter : v->search;
    if (!needle[0] || n == 0)
        return -1;
    for (size_t k = 1; k <= n; k++) {
        size_t i = (v->pos + (dir > 0 ? k : n - k)) % n;
        bool hit = v->ops->cols ? row_matches(v, &v->rows[v->vis[i]], needle)
                                : line_matches(&v->lines[i], needle);
        if (hit) {
            v->pos = i;
            return 0;
        }
    }
    return -1;
}

/* ------------------------------------------------------------------ */
/* Drawing                                                             */
/* ------------------------------------------------------------------ */

int
view_flex_width(const struct view *v, int total)
{
    int fixed = v->ops->has_tags ? 2 : 0; /* tag marker and blank */
    for (int c = 0; c < v->ops->ncols; c++)
        fixed += v->ops->cols[c].width ? v->ops->cols[c].width + 1 : 1;
    int w = total - fixed;
    return w < 8 ? 8 : w;
}

static void
format_value(const struct column *col, const struct value *val, char *buf, size_t n)
{
    if (val->is_null && col->kind != COL_TEXT) {
        snprintf(buf, n, "-");
        return;
    }
    switch (col->kind) {
    case COL_TEXT:
        snprintf(buf, n, "%s", val->text ? val->text : "-");
        break;
    case COL_COUNT:
        fmt_count(buf, n, val->num);
        break;
    case COL_NS:
        fmt_ns(buf, n, val->num);
        break;
    case COL_BYTES:
        fmt_bytes(buf, n, val->num);
        break;
    case COL_BW:
        fmt_bw(buf, n, val->num);
        break;
    case COL_PCT:
        fmt_pct(buf, n, val->num);
        break;
    case COL_RATIO:
        fmt_ratio(buf, n, val->num);
        break;
    case COL_RANK:
        snprintf(buf, n, "%.0f", val->num);
        break;
    }
}

/* Width of column c: text output widens text columns to their longest value. */
static int
col_width(const struct view *v, const struct draw *d, int c, int flex)
{
    const struct column *col = &v->ops->cols[c];
    if (!col->width)
        return flex;
    if (!d->c && col->kind == COL_TEXT && v->text_widths)
        return v->text_widths[c];
    return col->width;
}

static void
draw_row(struct view *v, struct draw *d, const struct row *r, int flex)
{
    char buf[64];
    if (v->ops->has_tags && draw_field(d, LINE_TAG, r->tagged ? "*" : "", 1, false))
        return;
    for (int c = 0; c < v->ops->ncols; c++) {
        const struct column *col = &v->ops->cols[c];
        int w = col_width(v, d, c, flex);
        enum line_type t = col->kind == COL_TEXT && c != 0 && col->width ? r->type : LINE_DEFAULT;
        if (col->width == 0)
            t = LINE_DEFAULT;
        if (col->kind == COL_TEXT) {
            if (draw_field(d, t, r->v[c].text ? r->v[c].text : "-", w, false))
                return;
        } else {
            format_value(col, &r->v[c], buf, sizeof(buf));
            if (draw_field(d, t, buf, w, true))
                return;
        }
    }
}

void
view_draw_header(struct view *v, struct draw *d)
{
    /* Scrolled sideways, the table is as wide as the screen plus the scroll. */
    int flex = d->c ? view_flex_width(v, d->maxcol + v->hoffset) : v->text_flex;
    if (v->ops->has_tags)
        draw_field(d, LINE_HEADER, "", 1, false);
    bool ascii = !d->c || d->c->ascii;
    for (int c = 0; c < v->ops->ncols; c++) {
        const struct column *col = &v->ops->cols[c];
        char title[64];
        const char *arrow = "";
        if (c == v->sort_col) {
            bool desc = col->sort_desc != v->sort_rev;
            arrow = ascii ? (desc ? "v" : "^") : (desc ? "\xe2\x96\xbc" : "\xe2\x96\xb2");
        }
        snprintf(title, sizeof(title), "%s%s", col->title, arrow);
        if (draw_field(d, LINE_HEADER, title, col_width(v, d, c, flex), col->kind != COL_TEXT))
            break;
    }
    draw_eol(d, LINE_HEADER);
}

void
view_draw_line(struct view *v, struct draw *d, size_t lineno)
{
    if (v->ops->cols) {
        if (lineno >= v->nvis)
            return;
        int flex = d->c ? view_flex_width(v, d->maxcol + v->hoffset) : v->text_flex;
        draw_row(v, d, &v->rows[v->vis[lineno]], flex);
        draw_eol(d, d->cursor ? LINE_CURSOR : LINE_DEFAULT);
        return;
    }
    if (lineno >= v->nlines)
        return;
    const struct tline *l = &v->lines[lineno];
    for (int s = 0; s < l->nsegs; s++) {
        const struct seg *sg = &l->segs[s];
        bool full;
        if (!sg->text)
            full = draw_bar(d, sg->bar, sg->width);
        else if (sg->width)
            full = draw_field(d, sg->type, sg->text, sg->width, false);
        else
            full = draw_text(d, sg->type, sg->text);
        if (full)
            break;
    }
    draw_eol(d, d->cursor ? LINE_CURSOR : LINE_DEFAULT);
}

/* Trim trailing blanks of a text buffer line. */
static void
put_trimmed(FILE *f, struct draw *d)
{
    size_t n = d->len;
    while (n > 0 && d->buf[n - 1] == ' ')
        n--;
    fwrite(d->buf, 1, n, f);
    fputc('\n', f);
    d->len = 0;
    if (d->buf)
        d->buf[0] = '\0';
    d->col = 0;
}

int
view_write_text(struct view *v, FILE *f)
{
    struct draw d = {0};
    if (v->ops->cols) {
        /* The flexible column is as wide as its longest value: nothing is cut. */
        int flex = 4;
        free(v->text_widths);
        v->text_widths = xcalloc((size_t)v->ops->ncols, sizeof(int));
        for (int c = 0; c < v->ops->ncols; c++) {
            const struct column *col = &v->ops->cols[c];
            if (col->width && col->kind != COL_TEXT)
                continue;
            int m = text_width(col->title) + 1;
            if (col->width > m)
                m = col->width;
            for (size_t i = 0; i < v->nvis; i++) {
                int w = text_width(v->rows[v->vis[i]].v[c].text);
                if (w > m)
                    m = w;
            }
            v->text_widths[c] = m;
            if (!col->width)
                flex = m;
        }
        v->text_flex = flex;
        view_draw_header(v, &d);
        put_trimmed(f, &d);
    }
    for (size_t i = 0; i < view_lines(v); i++) {
        view_draw_line(v, &d, i);
        put_trimmed(f, &d);
    }
    free(d.buf);
    return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* SQL helpers                                                         */
/* ------------------------------------------------------------------ */

int
tui_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
    return store_prepare(db, sql, st);
}

int
view_kernel_row(struct view *v, const char *sql, sqlite3_stmt **st)
{
    if (tui_prepare(v->db, sql, st))
        return -1;
    sqlite3_bind_int64(*st, 1, v->id);
    if (sqlite3_step(*st) == SQLITE_ROW)
        return 1;
    sqlite3_finalize(*st);
    *st = NULL;
    view_printf(v, LINE_ERROR, "kernel %lld is not in the report", v->id);
    return 0;
}

int
view_kernel_title(struct view *v, char **name, int label_width)
{
    sqlite3_stmt *st = NULL;
    int found = view_kernel_row(
        v,
        "SELECT coalesce(gh_kname(id), short_name, demangled_name, mangled_name) FROM kernel"
        " WHERE id = ?1",
        &st);
    if (found <= 0)
        return found;
    const char *k = (const char *)sqlite3_column_text(st, 0);
    *name = xsanitize(k, 512);
    view_add_wrapped(v, LINE_SECTION, label_width, "Kernel", k, view_wrap(v));
    sqlite3_finalize(st);
    return 1;
}

bool
tui_has_rows(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return false;
    }
    bool has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return has;
}

/*
 * Prepare `sql`, bind ?1 = `param` when it has one, step it: the
 * statement when its first row's first column is not NULL (finalize
 * it), else NULL.
 */
static sqlite3_stmt *
query_first(sqlite3 *db, const char *sql, long long param)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_bind_parameter_count(st) > 0)
            sqlite3_bind_int64(st, 1, param);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
            return st;
    }
    sqlite3_finalize(st);
    return NULL;
}

double
tui_query_num(sqlite3 *db, const char *sql, long long param)
{
    sqlite3_stmt *st = query_first(db, sql, param);
    double v = st ? sqlite3_column_double(st, 0) : NAN;
    sqlite3_finalize(st);
    return v;
}

long long
tui_query_int(sqlite3 *db, const char *sql, long long param, long long fallback)
{
    sqlite3_stmt *st = query_first(db, sql, param);
    long long v = st ? sqlite3_column_int64(st, 0) : fallback;
    sqlite3_finalize(st);
    return v;
}

long long
tui_hidden_notes(sqlite3 *db, char *buf, size_t n)
{
    long long hidden =
        view_show_all
            ? 0
            : tui_query_int(db,
                            "SELECT count(*) FROM finding WHERE NOT (" EXPORT_FINDING_SHOWN
                            ") AND ?1 >= 0",
                            0, 0);
    if (hidden > 0)
        snprintf(buf, n, "%lld note%s with no time lost hidden (--all shows %s)", hidden,
                 hidden == 1 ? "" : "s", hidden == 1 ? "it" : "them");
    else if (n)
        buf[0] = '\0';
    return hidden;
}
