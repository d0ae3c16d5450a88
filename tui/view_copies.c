/* SPDX-License-Identifier: MIT */
/*
 * view_copies: host<->device traffic, one row per (direction, source
 * memory kind, destination memory kind): copies, bytes, time and the
 * achieved bandwidth, so pageable copies stand out next to pinned ones.
 * One aggregate query; the copy table is read once per open.
 * Enter on a row lists that kind's copies, largest first (at most
 * COPY_LIST_MAX of them: the list is for finding the big ones).
 */
#include "tui/tui_int.h"

#include "export/sanitize.h"

#include <math.h>
#include <string.h>
#include <stdlib.h>

#define COPY_LIST_MAX 1000

/* The raw column values of one group (NULL allowed), to query its copies. */
struct copy_group {
    char *op, *kind, *src, *dst;
};

struct copies_priv {
    struct copy_group *g;
    size_t n;
};

static char *
dup_or_null(const unsigned char *s)
{
    return s ? xstrdup((const char *)s) : NULL;
}

static void
group_release(struct copy_group *g)
{
    free(g->op);
    free(g->kind);
    free(g->src);
    free(g->dst);
}

static void
copies_done(struct view *v)
{
    struct copies_priv *p = v->priv;
    for (size_t i = 0; p && i < p->n; i++)
        group_release(&p->g[i]);
    if (p)
        free(p->g);
    free(p);
    v->priv = NULL;
}

enum { C_KIND, C_MEM, C_COUNT, C_BYTES, C_TIME, C_BW, C_MEAN };

static const struct column copy_cols[] = {
    [C_KIND] = {"Kind", COL_TEXT, 7, false},      [C_MEM] = {"Memory", COL_TEXT, 0, false},
    [C_COUNT] = {"Copies", COL_COUNT, 9, true},   [C_BYTES] = {"Bytes", COL_BYTES, 9, true},
    [C_TIME] = {"Time", COL_NS, 9, true},         [C_BW] = {"Bandwidth", COL_BW, 10, true},
    [C_MEAN] = {"Mean size", COL_BYTES, 9, true},
};

/*
 * "src -> dst"; a memset has no source (schema.sql: its src_kind is NULL),
 * so it reads as its destination alone, not "? -> device".
 */
static void
memory_of(char *buf, size_t n, const struct copy_group *g)
{
    char src[64], dst[64];
    sanitize_into(dst, sizeof(dst), g->dst ? g->dst : "?");
    if (!g->src && g->op && !strcmp(g->op, "memset")) {
        snprintf(buf, n, "%s", dst);
        return;
    }
    sanitize_into(src, sizeof(src), g->src ? g->src : "?");
    snprintf(buf, n, "%s -> %s", src, dst);
}

static int
copies_open(struct view *v)
{
    sqlite3_stmt *st = NULL;
    copies_done(v);
    struct copies_priv *p = v->priv = xcalloc(1, sizeof(*p));
    /* Group on the columns themselves: no string building per copy row. */
    if (tui_prepare(v->db,
                    "SELECT coalesce(copy_kind, op), src_kind, dst_kind, count(*), sum(bytes),"
                    " sum(end_ns - start_ns), avg(bytes), op, copy_kind FROM copy"
                    " GROUP BY op, copy_kind, src_kind, dst_kind",
                    &st))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct row *r = view_add_row(v);
        p->g = xrealloc(p->g, (p->n + 1) * sizeof(*p->g));
        p->g[p->n] = (struct copy_group){
            .op = dup_or_null(sqlite3_column_text(st, 7)),
            .kind = dup_or_null(sqlite3_column_text(st, 8)),
            .src = dup_or_null(sqlite3_column_text(st, 1)),
            .dst = dup_or_null(sqlite3_column_text(st, 2)),
        };
        r->target = TARGET_COPY_GROUP;
        r->id = (long long)p->n++;
        const char *src = (const char *)sqlite3_column_text(st, 1);
        const char *dst = (const char *)sqlite3_column_text(st, 2);
        char mem[160];
        memory_of(mem, sizeof(mem), &p->g[p->n - 1]);
        value_set_text(&r->v[C_KIND], (const char *)sqlite3_column_text(st, 0), 32);
        value_set_text(&r->v[C_MEM], mem, 0);
        value_set_num(&r->v[C_COUNT], st, 3);
        value_set_num(&r->v[C_BYTES], st, 4);
        value_set_num(&r->v[C_TIME], st, 5);
        double t = sqlite3_column_double(st, 5);
        r->v[C_BW].is_null = !(t > 0);
        r->v[C_BW].num = t > 0 ? sqlite3_column_double(st, 4) * 1e9 / t : NAN;
        value_set_num(&r->v[C_MEAN], st, 6);
        bool pageable = (src && !strcmp(src, "pageable")) || (dst && !strcmp(dst, "pageable"));
        r->type = pageable ? LINE_WARNING : LINE_DEFAULT;
    }
    sqlite3_finalize(st);
    if (v->nrows == 0 && !v->message)
        v->message = xstrdup("no memory copies in this report");
    return rc == SQLITE_DONE ? 0 : -1;
}

static void
copies_title(struct view *v, char *buf, size_t n)
{
    snprintf(buf, n, "Memory copies (%zu kinds)", v->nrows);
}

const struct view_ops copies_ops = {
    .name = "copies",
    .open = copies_open,
    .title = copies_title,
    .done = copies_done,
    .cols = copy_cols,
    .ncols = sizeof(copy_cols) / sizeof(copy_cols[0]),
    .default_sort = C_BYTES,
};

/* ------------------------------------------------------------------ */
/* The copies of one kind                                               */
/* ------------------------------------------------------------------ */

enum { L_ID, L_START, L_BYTES, L_TIME, L_BW, L_STREAM, L_API };

static const struct column list_cols[] = {
    [L_ID] = {"Copy", COL_RANK, 8, false},     [L_START] = {"At", COL_NS, 9, false},
    [L_BYTES] = {"Bytes", COL_BYTES, 9, true}, [L_TIME] = {"Time", COL_NS, 9, true},
    [L_BW] = {"Bandwidth", COL_BW, 10, true},  [L_STREAM] = {"Stream", COL_RANK, 6, false},
    [L_API] = {"API", COL_TEXT, 0, false},
};

static void
bind_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static int
list_open(struct view *v)
{
    struct copy_group *g = v->priv;
    sqlite3_stmt *st = NULL;
    /* "At" counts from the run's start (same clock), else from the first copy. */
    if (tui_prepare(
            v->db,
            "SELECT id, start_ns - coalesce((SELECT start_ns FROM run ORDER BY id LIMIT 1),"
            " (SELECT min(start_ns) FROM copy)), bytes, end_ns - start_ns,"
            " CASE WHEN end_ns > start_ns THEN bytes * 1e9 / (end_ns - start_ns) END,"
            " stream_id, api FROM copy WHERE op IS ?1 AND copy_kind IS ?2 AND src_kind IS ?3"
            " AND dst_kind IS ?4 ORDER BY bytes DESC, id LIMIT ?5",
            &st))
        return -1;
    bind_or_null(st, 1, g->op);
    bind_or_null(st, 2, g->kind);
    bind_or_null(st, 3, g->src);
    bind_or_null(st, 4, g->dst);
    sqlite3_bind_int(st, 5, COPY_LIST_MAX);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct row *r = view_add_row(v);
        for (int c = L_ID; c < L_API; c++)
            value_set_num(&r->v[c], st, c);
        value_set_text(&r->v[L_API], (const char *)sqlite3_column_text(st, 6), 64);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static void
list_title(struct view *v, char *buf, size_t n)
{
    struct copy_group *g = v->priv;
    char kind[40], mem[140];
    sanitize_into(kind, sizeof(kind), g->kind ? g->kind : g->op ? g->op : "?");
    memory_of(mem, sizeof(mem), g);
    snprintf(buf, n, "Copies %s %s (%s%zu)", kind, mem, v->nrows == COPY_LIST_MAX ? "largest " : "",
             v->nrows);
}

static void
list_done(struct view *v)
{
    if (v->priv)
        group_release(v->priv);
    free(v->priv);
    v->priv = NULL;
}

static const struct view_ops copy_list_ops = {
    .name = "copy-list",
    .open = list_open,
    .title = list_title,
    .done = list_done,
    .cols = list_cols,
    .ncols = sizeof(list_cols) / sizeof(list_cols[0]),
    .default_sort = L_BYTES,
};

struct view *
copies_group_view(struct view *copies, long long index)
{
    struct copies_priv *p = copies->priv;
    if (!p || index < 0 || (size_t)index >= p->n)
        return NULL;
    const struct copy_group *g = &p->g[index];
    struct view *v = view_new(&copy_list_ops, copies->db, index, -1);
    struct copy_group *own = xcalloc(1, sizeof(*own));
    own->op = g->op ? xstrdup(g->op) : NULL;
    own->kind = g->kind ? xstrdup(g->kind) : NULL;
    own->src = g->src ? xstrdup(g->src) : NULL;
    own->dst = g->dst ? xstrdup(g->dst) : NULL;
    v->priv = own;
    return v;
}
