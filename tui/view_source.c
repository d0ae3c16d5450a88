/* SPDX-License-Identifier: MIT */
/*
 * view_source: one kernel's source lines (or its SASS, where the cubin
 * has no line info) annotated with the exact per-instruction counts of
 * its instrumented launch: warp instructions executed, global sectors
 * against their ideal, shared-memory wavefronts against their ideal,
 * local sectors, and each line's share of the configuration's excess.
 * Worst lines first; 's' or 'l' sorts by file and line instead.
 *
 * The rows are schema.sql's v_inst_line, one configuration after the
 * other (the one with most traced time first): nothing is summed here
 * (store_inst_query() only keeps the pivot to the kernel's launches).
 * A line's text comes from the file itself when it is readable below the
 * current directory or the run's working directory (export/srcfile.h);
 * otherwise the row shows the SASS of the line's worst instruction.
 */
#include "tui/tui_int.h"

#include "export/srcfile.h"
#include "schema/store.h"
#include "schema/store_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LABEL 12
/* Longest location shown before it is cut (the start of a path says least). */
#define LOCATION_MAX 48

struct file_cache {
    char *name; /* as the report names it (raw) */
    struct srcfile f;
    bool ok;
};

struct source_priv {
    char *name;    /* sanitized kernel name, for the title */
    char *run_cwd; /* raw run.cwd, NULL when unknown */
    struct file_cache *files;
    size_t nfiles;
};

static void
priv_clear(struct source_priv *p)
{
    for (size_t i = 0; i < p->nfiles; i++) {
        free(p->files[i].name);
        srcfile_release(&p->files[i].f);
    }
    free(p->files);
    free(p->name);
    free(p->run_cwd);
    memset(p, 0, sizeof(*p));
}

/* The text of line `line` of `file` when the file is readable here, else NULL (raw). */
static const char *
source_text(struct source_priv *p, const char *file, long long line)
{
    if (!file)
        return NULL;
    for (size_t i = 0; i < p->nfiles; i++)
        if (!strcmp(p->files[i].name, file))
            return p->files[i].ok ? srcfile_line(&p->files[i].f, line) : NULL;
    p->files = xrealloc(p->files, (p->nfiles + 1) * sizeof(*p->files));
    struct file_cache *c = &p->files[p->nfiles++];
    memset(c, 0, sizeof(*c));
    c->name = xstrdup(file);
    char *real = srcfile_resolve(file, p->run_cwd);
    c->ok = real && srcfile_load(&c->f, real) == 0;
    free(real);
    return c->ok ? srcfile_line(&c->f, line) : NULL;
}

/* ------------------------------------------------------------------ */
/* One configuration's table                                           */
/* ------------------------------------------------------------------ */

enum {
    S_LOCATION,
    S_INST,
    S_SECTORS,
    S_SECTORS_IDEAL,
    S_SECTORS_SHARE,
    S_LOCAL,
    S_WAVEFRONTS,
    S_WAVEFRONTS_IDEAL,
    S_WAVEFRONTS_SHARE,
    S_CODE,
    S_NCOLS
};

static const struct {
    const char *title;
    bool right;
} cols[S_NCOLS] = {
    [S_LOCATION] = {"Line", false},
    [S_INST] = {"Warp inst", true},
    [S_SECTORS] = {"Sectors", true},
    [S_SECTORS_IDEAL] = {"Ideal", true},
    [S_SECTORS_SHARE] = {"Excess", true},
    [S_WAVEFRONTS] = {"Wavefronts", true},
    [S_WAVEFRONTS_IDEAL] = {"Ideal", true},
    [S_WAVEFRONTS_SHARE] = {"Excess", true},
    [S_LOCAL] = {"Local", true},
    [S_CODE] = {"Source (or SASS)", false},
};

struct srow {
    char *cell[S_NCOLS]; /* sanitized, owned */
    bool worst;          /* carries excess: drawn as a warning */
};

static void
count_or_dash(char *buf, size_t n, double v)
{
    if (isnan(v) || v == 0)
        snprintf(buf, n, "-");
    else
        fmt_count(buf, n, v);
}

static void
share(char *buf, size_t n, double pct)
{
    if (isnan(pct) || pct <= 0)
        snprintf(buf, n, "-");
    else
        fmt_pct(buf, n, pct);
}

/* The rows of configuration `config_id`, worst first (mode 0) or by line (mode 1). */
static int
load_rows(struct view *v, struct source_priv *p, long long config_id, struct srow **out, size_t *n)
{
    sqlite3_stmt *st = NULL;
    const char *order = v->mode ? " ORDER BY file IS NULL, file, line, function, pc"
                                : " ORDER BY global_excess + shared_excess + local_excess DESC,"
                                  " inst_executed DESC, location";
    char *tail = xasprintf(" WHERE config_id = ?1%s", order);
    char *sql =
        store_inst_query("config_id = ?1", "v_inst_line",
                         "SELECT location, file, line, sass, inst_executed,"
                         " gld_sectors + gst_sectors + atomic_sectors,"
                         " gld_sectors_ideal + gst_sectors_ideal + atomic_sectors_ideal,"
                         " 100.0 * global_excess / NULLIF(SUM(global_excess) OVER (), 0),"
                         " shared_wavefronts, shared_wavefronts_ideal, shared_share_pct,"
                         " local_sectors, global_excess + shared_excess + local_excess, pc,"
                         " function = (SELECT mangled_name FROM kernel WHERE id = ?2), function"
                         " FROM ",
                         tail);
    free(tail);
    if (!sql)
        return -1;
    int rc = tui_prepare(v->db, sql, &st);
    free(sql);
    if (rc)
        return -1;
    sqlite3_bind_int64(st, 1, config_id);
    sqlite3_bind_int64(st, 2, v->id);
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 32;
            *out = xrealloc(*out, cap * sizeof(**out));
        }
        struct srow *r = &(*out)[(*n)++];
        memset(r, 0, sizeof(*r));
        char buf[64];
        const char *file = (const char *)sqlite3_column_text(st, 1);
        long long line = sqlite3_column_int64(st, 2);
        char *rel = file ? srcfile_relative(file, p->run_cwd) : NULL;
        /* Without line info: the pc, and the function when it is not the kernel itself. */
        const char *fn = (const char *)sqlite3_column_text(st, 15);
        char *where = file ? xasprintf("%s:%lld", rel ? rel : file, line)
                      : sqlite3_column_int(st, 14)
                          ? xasprintf("pc 0x%llx", (unsigned long long)sqlite3_column_int64(st, 13))
                          : xasprintf("%s pc 0x%llx", fn ? fn : "?",
                                      (unsigned long long)sqlite3_column_int64(st, 13));
        free(rel);
        size_t wl = strlen(where);
        r->cell[S_LOCATION] = xsanitize(wl > LOCATION_MAX ? where + wl - LOCATION_MAX : where, 0);
        if (wl > LOCATION_MAX) {
            char *cut = xasprintf("…%s", r->cell[S_LOCATION]);
            free(r->cell[S_LOCATION]);
            r->cell[S_LOCATION] = cut;
        }
        free(where);
        count_or_dash(buf, sizeof(buf), tui_col_num(st, 4));
        r->cell[S_INST] = xstrdup(buf);
        count_or_dash(buf, sizeof(buf), tui_col_num(st, 5));
        r->cell[S_SECTORS] = xstrdup(buf);
        count_or_dash(buf, sizeof(buf), tui_col_num(st, 6));
        r->cell[S_SECTORS_IDEAL] = xstrdup(buf);
        share(buf, sizeof(buf), tui_col_num(st, 7));
        r->cell[S_SECTORS_SHARE] = xstrdup(buf);
        count_or_dash(buf, sizeof(buf), tui_col_num(st, 8));
        r->cell[S_WAVEFRONTS] = xstrdup(buf);
        count_or_dash(buf, sizeof(buf), tui_col_num(st, 9));
        r->cell[S_WAVEFRONTS_IDEAL] = xstrdup(buf);
        share(buf, sizeof(buf), tui_col_num(st, 10));
        r->cell[S_WAVEFRONTS_SHARE] = xstrdup(buf);
        count_or_dash(buf, sizeof(buf), tui_col_num(st, 11));
        r->cell[S_LOCAL] = xstrdup(buf);
        const char *text = source_text(p, file, line);
        const char *sass = (const char *)sqlite3_column_text(st, 3);
        if (text) {
            text += strspn(text, " \t");
            r->cell[S_CODE] = xsanitize(text, 512);
        } else if (sass) {
            char *s = xsanitize(sass, 256);
            r->cell[S_CODE] = xasprintf("[SASS] %s", s);
            free(s);
        } else {
            r->cell[S_CODE] = xstrdup("");
        }
        r->worst = tui_col_num(st, 12) > 0;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        for (size_t i = 0; i < *n; i++)
            for (int c = 0; c < S_NCOLS; c++)
                free((*out)[i].cell[c]);
        free(*out);
        *out = NULL;
        *n = 0;
        return store_set_error("cannot read the source lines: %s", sqlite3_errmsg(v->db));
    }
    return 0;
}

static void
add_cells(struct tline *l, const int *w, const char *const *text, enum line_type t)
{
    line_add(l, LINE_DEFAULT, 0, "  ");
    for (int c = 0; c < S_NCOLS; c++) {
        if (cols[c].right) {
            line_add_right(l, t, w[c], text[c]);
            line_add(l, t, 0, "  ");
        } else if (c == S_CODE) {
            line_add(l, t, 0, "%s", text[c]);
        } else {
            line_add(l, t, w[c] + 1, "%s", text[c]);
        }
    }
}

static int
add_table(struct view *v, struct source_priv *p, long long config_id)
{
    struct srow *rows = NULL;
    size_t n = 0;
    if (load_rows(v, p, config_id, &rows, &n))
        return -1;
    int w[S_NCOLS];
    const char *text[S_NCOLS];
    for (int c = 0; c < S_NCOLS; c++)
        w[c] = text_width(cols[c].title);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < S_NCOLS; c++) {
            int cw = text_width(rows[i].cell[c]);
            w[c] = cw > w[c] ? cw : w[c];
        }
    for (int c = 0; c < S_NCOLS; c++)
        text[c] = cols[c].title;
    add_cells(view_add_line(v), w, text, LINE_HEADER);
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < S_NCOLS; c++)
            text[c] = rows[i].cell[c];
        add_cells(view_add_line(v), w, text, rows[i].worst ? LINE_WARNING : LINE_DEFAULT);
        for (int c = 0; c < S_NCOLS; c++)
            free(rows[i].cell[c]);
    }
    free(rows);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The view                                                            */
/* ------------------------------------------------------------------ */

/* "12,288 for an ideal of 4,096 (3.0×)", or "none" */
static void
against(char *buf, size_t n, double x, double ideal)
{
    char a[32], b[32], r[32];
    if (isnan(x) || x == 0) {
        snprintf(buf, n, "none");
        return;
    }
    fmt_count(a, sizeof(a), x);
    if (isnan(ideal)) {
        snprintf(buf, n, "%s (no ideal recorded)", a);
        return;
    }
    fmt_count(b, sizeof(b), ideal);
    fmt_ratio(r, sizeof(r), ideal > 0 ? x / ideal : NAN);
    snprintf(buf, n, "%s for an ideal of %s (%s)", a, b, r);
}

static int
source_open(struct view *v)
{
    struct source_priv *p = v->priv;
    if (!p)
        p = v->priv = xcalloc(1, sizeof(*p));
    priv_clear(p);
    int found = view_kernel_title(v, &p->name, LABEL);
    if (found <= 0)
        return found;
    sqlite3_stmt *st = NULL;
    if (tui_prepare(v->db, "SELECT cwd FROM run ORDER BY id LIMIT 1", &st))
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        p->run_cwd = xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (store_user_version(v->db) < 2) {
        /* Recorded before per-instruction counts existed: the store's TEMP tables are empty. */
        free(v->message);
        v->message = xstrdup("no instrumented launch of this kernel: the report was recorded "
                             "before per-instruction counts existed (schema version 1)");
        return 0;
    }
    char *sql = store_inst_query("kernel_id = ?1 AND (?2 < 0 OR config_id = ?2)", "v_inst_config",
                                 "SELECT i.config_id, c.grid_x, c.grid_y, c.grid_z, c.block_x,"
                                 " c.block_y, c.block_z, c.dynamic_smem_bytes, i.launch_id,"
                                 " i.instructions, i.lines, i.inst_executed, i.gld_sectors + "
                                 "i.gst_sectors + i.atomic_sectors, i.gld_sectors_ideal + "
                                 "i.gst_sectors_ideal + i.atomic_sectors_ideal,"
                                 " i.shared_wavefronts, i.shared_wavefronts_ideal, i.local_sectors,"
                                 " i.async_inst FROM ",
                                 " i LEFT JOIN config c ON c.id = i.config_id"
                                 " ORDER BY c.total_ns DESC, i.config_id");
    int prc = sql ? tui_prepare(v->db, sql, &st) : -1;
    free(sql);
    if (prc)
        return -1;
    sqlite3_bind_int64(st, 1, v->id);
    sqlite3_bind_int64(st, 2, v->id2);
    int rc, configs = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long cfg = sqlite3_column_int64(st, 0);
        char a[160], b[160], c[96], d[32];
        view_printf(v, LINE_DEFAULT, "%s", "");
        struct tline *l = view_printf(
            v, LINE_LABEL,
            "Config %lld: grid %lldx%lldx%lld, block %lldx%lldx%lld, %lld B dynamic shared"
            " memory; instrumented launch %lld",
            cfg, (long long)sqlite3_column_int64(st, 1), (long long)sqlite3_column_int64(st, 2),
            (long long)sqlite3_column_int64(st, 3), (long long)sqlite3_column_int64(st, 4),
            (long long)sqlite3_column_int64(st, 5), (long long)sqlite3_column_int64(st, 6),
            (long long)sqlite3_column_int64(st, 7), (long long)sqlite3_column_int64(st, 8));
        l->target = TARGET_KERNEL;
        l->id = v->id;
        l->id2 = cfg;
        fmt_count(d, sizeof(d), tui_col_num(st, 11));
        view_printf(v, LINE_DEFAULT,
                    "%-*s %s warp instructions, %lld instructions, %lld with a line", LABEL,
                    "Executed", d, (long long)sqlite3_column_int64(st, 9),
                    (long long)sqlite3_column_int64(st, 10));
        against(a, sizeof(a), tui_col_num(st, 12), tui_col_num(st, 13));
        against(b, sizeof(b), tui_col_num(st, 14), tui_col_num(st, 15));
        count_or_dash(c, sizeof(c), tui_col_num(st, 16));
        view_printf(v, LINE_DEFAULT, "%-*s %s", LABEL, "Sectors", a);
        view_printf(v, LINE_DEFAULT, "%-*s %s", LABEL, "Wavefronts", b);
        view_printf(v, LINE_DEFAULT, "%-*s %s", LABEL, "Local", strcmp(c, "-") ? c : "none");
        if (sqlite3_column_int64(st, 17) > 0) {
            fmt_count(d, sizeof(d), tui_col_num(st, 17));
            view_printf(v, LINE_DIM,
                        "%-*s %s LDGSTS/TMA instructions: the bytes they move are not counted here",
                        LABEL, "Not seen", d);
        }
        view_printf(v, LINE_DEFAULT, "%s", "");
        if (add_table(v, p, cfg)) {
            sqlite3_finalize(st);
            return -1;
        }
        configs++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_set_error("cannot read the instrumented configurations: %s",
                               sqlite3_errstr(rc));
    if (!configs) {
        free(v->message);
        v->message = xstrdup("no instrumented launch of this kernel: the report has no "
                             "per-instruction counts for it");
        return 0;
    }
    view_printf(v, LINE_DEFAULT, "%s", "");
    view_printf(v, LINE_DIM, "%s",
                v->mode ? "Lines by file and line; s or l: worst lines first."
                        : "Worst lines first (most excess sectors, wavefronts and local sectors);"
                          " s or l: by line.");
    view_printf(v, LINE_DIM, "Excess: the line's share of the configuration's sectors or");
    view_printf(v, LINE_DIM, "  wavefronts beyond their ideal. Source text when the file is");
    view_printf(v, LINE_DIM, "  readable below this directory or the run's; else the SASS.");
    return 0;
}

static void
source_title(struct view *v, char *buf, size_t n)
{
    struct source_priv *p = v->priv;
    const char *name = p && p->name ? p->name : "?";
    if (v->id2 >= 0)
        snprintf(buf, n, "Source of %s, configuration %lld", name, v->id2);
    else
        snprintf(buf, n, "Source of %s", name);
}

static enum request
source_request(struct view *v, enum request req)
{
    if (req != REQ_SORT_NEXT && req != REQ_SORT_REVERSE)
        return req;
    v->mode = !v->mode;
    view_load(v);
    return REQ_NONE;
}

static void
source_done(struct view *v)
{
    if (v->priv)
        priv_clear(v->priv);
    free(v->priv);
    v->priv = NULL;
}

const struct view_ops source_ops = {
    .name = "source",
    .open = source_open,
    .title = source_title,
    .request = source_request,
    .done = source_done,
};
