/* SPDX-License-Identifier: MIT */
/*
 * view_copies: host<->device traffic, one row per (direction, source
 * memory kind, destination memory kind): copies, bytes, time and the
 * achieved bandwidth, so pageable copies stand out next to pinned ones.
 * One aggregate query; the copy table is read once per open.
 */
#include "tui/tui_int.h"

#include <math.h>
#include <string.h>
#include <stdlib.h>

enum { C_KIND, C_MEM, C_COUNT, C_BYTES, C_TIME, C_BW, C_MEAN };

static const struct column copy_cols[] = {
    [C_KIND] = {"Kind", COL_TEXT, 7, false},      [C_MEM] = {"Memory", COL_TEXT, 0, false},
    [C_COUNT] = {"Copies", COL_COUNT, 9, true},   [C_BYTES] = {"Bytes", COL_BYTES, 9, true},
    [C_TIME] = {"Time", COL_NS, 9, true},         [C_BW] = {"Bandwidth", COL_BW, 10, true},
    [C_MEAN] = {"Mean size", COL_BYTES, 9, true},
};

static int
copies_open(struct view *v)
{
    sqlite3_stmt *st = NULL;
    /* Group on the columns themselves: no string building per copy row. */
    if (tui_prepare(v->db,
                    "SELECT coalesce(copy_kind, op), src_kind, dst_kind, count(*), sum(bytes),"
                    " sum(end_ns - start_ns), avg(bytes) FROM copy"
                    " GROUP BY op, copy_kind, src_kind, dst_kind",
                    &st))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct row *r = view_add_row(v);
        const char *src = (const char *)sqlite3_column_text(st, 1);
        const char *dst = (const char *)sqlite3_column_text(st, 2);
        char mem[160];
        snprintf(mem, sizeof(mem), "%.60s -> %.60s", src ? src : "?", dst ? dst : "?");
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
    .cols = copy_cols,
    .ncols = sizeof(copy_cols) / sizeof(copy_cols[0]),
    .default_sort = C_BYTES,
};
