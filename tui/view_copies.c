/* SPDX-License-Identifier: MIT */
/*
 * view_copies: host<->device traffic, one row per (direction, source
 * memory kind, destination memory kind): copies, bytes, time and the
 * achieved bandwidth, so pageable copies stand out next to pinned ones.
 * One aggregate query; the copy table is read once per open.
 */
#include "tui/tui_int.h"

#include <math.h>
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
    if (tui_prepare(v->db,
                    "SELECT coalesce(copy_kind, op), coalesce(src_kind, '?') || ' -> ' || "
                    "coalesce(dst_kind, '?'),"
                    " count(*), sum(bytes), sum(end_ns - start_ns),"
                    " CASE WHEN sum(end_ns - start_ns) > 0 THEN sum(bytes) * 1e9 / sum(end_ns - "
                    "start_ns) END,"
                    " avg(bytes), max(src_kind = 'pageable' OR dst_kind = 'pageable')"
                    " FROM copy GROUP BY 1, 2",
                    &st))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct row *r = view_add_row(v);
        value_set_text(&r->v[C_KIND], (const char *)sqlite3_column_text(st, 0), 32);
        value_set_text(&r->v[C_MEM], (const char *)sqlite3_column_text(st, 1), 64);
        for (int c = C_COUNT; c <= C_MEAN; c++)
            value_set_num(&r->v[c], st, c);
        r->type = sqlite3_column_int(st, 7) ? LINE_WARNING : LINE_DEFAULT;
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
