/* SPDX-License-Identifier: MIT */
/*
 * tui_int.h: what the files of the TUI share and nobody else may use.
 *
 * Shape (tig): view.c owns scrolling, selection, search, filter and sort;
 * each screen is one view_<name>.c with a struct view_ops; draw.c holds
 * the draw_* helpers; request.h is the one table of requests; keys.c the
 * keymaps. A view's open() runs its SQL and fills rows; drawing only
 * formats rows and never queries.
 *
 * Drawing goes into a `struct canvas` (cells in memory) that display.c
 * copies to curses. The same canvas is what `:dump` writes and what the
 * tests compare, and `gpuhier report` prints the same rows, so the text
 * output, the tests and the terminal cannot disagree.
 */
#ifndef GPUHIER_TUI_TUI_INT_H
#define GPUHIER_TUI_TUI_INT_H

#include "tui/request.h"
#include "tui/tui.h"

#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Sanitized copy of untrusted report text, at most `max` bytes (0: default). */
char *xsanitize(const char *s, size_t max);
/* printf into a new string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------ */
/* Line types: what a piece of text is, mapped to colours/attributes    */
/* ------------------------------------------------------------------ */

/* One entry per line: clang-format reflows X-macros differently each run. */
/* clang-format off */
#define LINE_INFO(X) \
    X(DEFAULT)       \
    X(TITLE)         \
    X(HEADER)        \
    X(CURSOR)        \
    X(STATUS)        \
    X(KEYBAR)        \
    X(KEY)           \
    X(ERROR)         \
    X(WARNING)       \
    X(NOTE)          \
    X(GOOD)          \
    X(DIM)           \
    X(LABEL)         \
    X(BAR)           \
    X(BAR_EMPTY)     \
    X(TAG)           \
    X(SECTION)       \
    X(TIER)
/* clang-format on */

enum line_type {
#define LINE_ENUM(id) LINE_##id,
    LINE_INFO(LINE_ENUM)
#undef LINE_ENUM
        LINE_COUNT
};

/* The line type of a severity string ('error', 'warning', 'note'), DEFAULT otherwise. */
enum line_type line_of_severity(const char *sev);

/* ------------------------------------------------------------------ */
/* Canvas and draw helpers (draw.c)                                     */
/* ------------------------------------------------------------------ */

struct cell {
    char ch[5];         /* one UTF-8 character, NUL-terminated; "" = right half of a wide one */
    unsigned char type; /* enum line_type */
};

struct canvas {
    int cols, rows;
    struct cell *cells; /* rows * cols */
    bool ascii;         /* only ASCII may be drawn: non-ASCII becomes '?' and bars use '#' */
};

void canvas_init(struct canvas *c, int cols, int rows, bool ascii);
void canvas_resize(struct canvas *c, int cols, int rows);
void canvas_release(struct canvas *c);
void canvas_clear(struct canvas *c);
/* Write the canvas as text (trailing blanks trimmed) to `f`. */
int canvas_write(const struct canvas *c, FILE *f);
/* Write each cell's line type as one letter ('a' + type), for tests of colours. */
int canvas_write_types(const struct canvas *c, FILE *f);

/* Where the next draw_* call writes: one line of the canvas, or a text buffer. */
struct draw {
    struct canvas *c; /* NULL: draw into `buf` (text output, no width limit) */
    int row, col, maxcol;
    int skip;    /* canvas: columns at the line's start not drawn (sideways scroll) */
    bool cursor; /* the selected line: everything gets LINE_CURSOR */
    char *buf;   /* text output: growing buffer */
    size_t len, cap;
};

/*
 * Each helper returns true once the line is full, so callers can stop
 * (tig src/draw.c). Text is UTF-8 already sanitized.
 */
bool draw_text(struct draw *d, enum line_type t, const char *s);
/* `s` in a field of `width` columns (cut with "~" or padded), then one blank. */
bool draw_field(struct draw *d, enum line_type t, const char *s, int width, bool right);
bool draw_chars(struct draw *d, enum line_type t, char ch, int n);
/* A bar of `width` cells, `frac` (0..1, clamped) of it filled; a negative frac draws "n/a". */
bool draw_bar(struct draw *d, double frac, int width);
/* Pad with blanks up to column `col` (canvas) or by nothing (text). */
bool draw_pad_to(struct draw *d, int col);
/* Fill the rest of the canvas line with blanks of type t. */
void draw_eol(struct draw *d, enum line_type t);
/* Display width of sanitized UTF-8 text. */
int text_width(const char *s);

/* ------------------------------------------------------------------ */
/* Formatting numbers (draw.c)                                          */
/* ------------------------------------------------------------------ */

void fmt_ns(char *buf, size_t n, double ns);          /* "1.23 ms" */
void fmt_bytes(char *buf, size_t n, double bytes);    /* "1.2 MB" */
void fmt_bw(char *buf, size_t n, double bytes_per_s); /* "4.80 TB/s" */
void fmt_count(char *buf, size_t n, double v);        /* "1,000,000" */
void fmt_pct(char *buf, size_t n, double pct);        /* "12.3%" */
void fmt_ratio(char *buf, size_t n, double r);        /* "12.3×" (x in ASCII) */

/* ------------------------------------------------------------------ */
/* Views                                                               */
/* ------------------------------------------------------------------ */

enum col_kind {
    COL_TEXT,  /* sanitized string */
    COL_COUNT, /* integer count */
    COL_NS,    /* duration in ns */
    COL_BYTES,
    COL_BW, /* bytes per second */
    COL_PCT,
    COL_RATIO,
    COL_RANK, /* small integer, printed plain */
};

struct column {
    const char *title;
    enum col_kind kind;
    int width;      /* columns; 0: the flexible column (takes what is left) */
    bool sort_desc; /* first sort on this column is descending */
};

struct value {
    double num;
    char *text; /* owned; sanitized */
    bool is_null;
};

/* What Enter on a row or line opens. */
enum target_kind {
    TARGET_NONE,
    TARGET_KERNEL,
    TARGET_FINDING,
    TARGET_COPIES,
    TARGET_FINDINGS,
    TARGET_COPY_GROUP,     /* id: the row's group in the copies view */
    TARGET_NVTX,           /* id: the row's path in the NVTX view: kernels in that range */
    TARGET_KERNEL_BEFORE,  /* diff views: a kernel (id, id2) of the before report */
    TARGET_FINDING_BEFORE, /* diff views: a finding (id) of the before report */
};

struct row {
    struct value *v;     /* ncols values */
    enum line_type type; /* colour of the row (severity) */
    enum target_kind target;
    long long id, id2; /* target ids: kernel id + config id (-1 none), or finding id */
    bool tagged;
    char *note; /* owned, sanitized: shown in the status line when selected (full name) */
};

/* One line of a text view: segments of typed text. */
struct seg {
    enum line_type type;
    char *text; /* owned, sanitized; NULL for a bar */
    double bar; /* bar fraction when text is NULL */
    int width;  /* field width (0: natural); for bars: cells */
};

struct tline {
    struct seg *segs;
    int nsegs;
    enum target_kind target;
    long long id, id2;
};

struct view;

struct view_ops {
    const char *name; /* view and keymap name */
    /* Run the SQL and fill rows/lines. Called again on reload. Returns 0 or -1 (store_error()). */
    int (*open)(struct view *v);
    /* Title text for the title bar (into buf). */
    void (*title)(struct view *v, char *buf, size_t n);
    /* Status-line text for the selected line (NULL: the row's note, if any). */
    void (*select)(struct view *v, char *buf, size_t n);
    /* Handle a view-specific request; return REQ_NONE when handled. */
    enum request (*request)(struct view *v, enum request req);
    /* Free view-private data. */
    void (*done)(struct view *v);
    /* Columns of a table view (NULL for a text view). */
    const struct column *cols;
    int ncols;
    int default_sort; /* column sorted on when the view opens */
    bool has_tags;    /* rows can be tagged ('t'): draw the tag column */
};

struct view {
    const struct view_ops *ops;
    sqlite3 *db;
    struct view *prev; /* the view Back returns to */
    /* table views */
    struct row *rows;
    size_t nrows;
    size_t *vis; /* indices of rows passing the filter, in sort order */
    size_t nvis;
    int sort_col;
    bool sort_rev;
    /* text views */
    struct tline *lines;
    size_t nlines, alloc;
    /* both */
    size_t pos;        /* selected line */
    size_t offset;     /* first line on screen */
    int hoffset;       /* columns scrolled sideways (SCROLL_LEFT/RIGHT) */
    int wrap_cols;     /* detail views wrap text to this width; 0: 64 (text output) */
    char filter[256];  /* table views: rows whose name contains it (case-insensitive) */
    char search[256];  /* text views: last search */
    int mode;          /* view-specific toggle (kernels: per config; kernel: raw metrics) */
    long long id, id2; /* what the view shows (kernel id, config id; finding id) */
    char *message;     /* shown in the status line once */
    char *nvtx;        /* kernels, findings: only those with launches in NVTX ranges whose path
                        * matches this POSIX ERE (owned; NULL: all) */
    sqlite3 *db2;      /* diff views: the before report (db is the after one) */
    int text_flex;     /* text output: width of the flexible column */
    int *text_widths;  /* text output: width of each text column */
    void *priv;
};

/*
 * 1: the findings lists show the notes with no time lost too (--all);
 * 0 (default): they hide them (export.h's EXPORT_FINDING_SHOWN). Set once
 * before the first view opens.
 */
extern int view_show_all;

/* The before/after views' renamed kernels (tui_opts.map, borrowed); set once, like view_show_all. */
extern const struct export_diff_map *view_diff_map;
extern size_t view_diff_n_map;

extern const struct view_ops summary_ops, kernels_ops, configs_ops, kernel_ops, profiles_ops,
    findings_ops, finding_ops, copies_ops, help_ops;
extern const struct view_ops source_ops;
extern const struct view_ops nvtx_ops, diff_kernels_ops, diff_findings_ops;

/*
 * NVTX (view_nvtx.c). nvtx_register() adds gh_nvtx_match(path, regex) to
 * `db`: 1 when the POSIX ERE matches the path (a NULL path reads as ""),
 * 0 otherwise, 1 for a NULL regex; returns 0 or -1 (store_error()).
 * nvtx_path_regex() returns a new regex (free()) matching `path` and the
 * paths nested in it ("^$": outside every range, for NULL);
 * nvtx_view_regex() that of row `id` of an NVTX view, or NULL.
 */
int nvtx_register(sqlite3 *db);
char *nvtx_path_regex(const char *path);
char *nvtx_view_regex(struct view *v, long long id);
extern const struct view_ops ranks_ops; /* view_ranks.c: a merged job across its ranks */
/* The summary's lines for a merged job report (ranks, the other ranks' devices); none otherwise. */
void ranks_summary_lines(struct view *v);

/* A new, unloaded view of the copies of group `index` of a copies view, or NULL. */
struct view *copies_group_view(struct view *copies, long long index);

/* The findings shown in a kernel view (borrowed), for export. */
size_t kernel_view_finding_ids(struct view *v, const long long **ids);

struct view *view_new(const struct view_ops *ops, sqlite3 *db, long long id, long long id2);
void view_free(struct view *v);
/* (Re)load the view's rows; keeps the selection where it can. */
int view_load(struct view *v);
void view_reset_rows(struct view *v);
size_t view_lines(const struct view *v);
/* Apply filter and sort to a table view's rows (fills vis). */
void view_refilter(struct view *v);
/* Move the selection; `height` is the body height. */
void view_move(struct view *v, enum request req, int height);
/* Search text views / next match in tables; returns 0 when found. */
int view_find(struct view *v, int dir);
/* Draw line `lineno` of the view (table row or text line). */
void view_draw_line(struct view *v, struct draw *d, size_t lineno);
/* Draw the header of a table view. */
void view_draw_header(struct view *v, struct draw *d);
/* Width of the flexible column for a total width. */
int view_flex_width(const struct view *v, int total);
/* The row under the cursor, or NULL. */
struct row *view_row(struct view *v);
/* Write every line of the view as text (report, `P`). */
int view_write_text(struct view *v, FILE *f);

/* Building rows and lines (view.c). */
struct row *view_add_row(struct view *v);
void value_set_text(struct value *val, const char *untrusted, size_t max);
void value_set_num(struct value *val, sqlite3_stmt *st, int col);
struct tline *view_add_line(struct view *v);
void line_add(struct tline *l, enum line_type t, int width, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Add trusted text right-aligned in `width` columns (UTF-8 aware, unlike "%*s"). */
void line_add_right(struct tline *l, enum line_type t, int width, const char *s);
/* Add untrusted text (sanitized here). */
void line_add_untrusted(struct tline *l, enum line_type t, int width, const char *s, size_t max);
void line_add_bar(struct tline *l, double frac, int width);
/* Add a line of plain text (printf), returns it. */
struct tline *view_printf(struct view *v, enum line_type t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The width detail views wrap their text to: the terminal's, less the labels; 64 in text output. */
int view_wrap(const struct view *v);
/* Wrap long untrusted text over lines, each starting with `indent` blanks. */
void view_add_wrapped(struct view *v, enum line_type t, int indent, const char *label,
                      const char *untrusted, int width);

/* SQL helpers (view.c): -1 with store_error() set on failure. */
int tui_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st);
/*
 * The view's kernel row: prepares `sql` (a SELECT from kernel with ?1 for
 * the view's id) and steps it. 1: *st holds the row (finalize it); 0: no
 * such kernel, an error line says so; -1: SQLite failed.
 */
int view_kernel_row(struct view *v, const char *sql, sqlite3_stmt **st);
/*
 * The "Kernel" line of a view about one kernel (the view's id): its
 * listed name, wrapped with a label `label_width` wide; *name gets the
 * sanitized name (free() it). Returns as view_kernel_row().
 */
int view_kernel_title(struct view *v, char **name, int label_width);
/* Column i of a row as a double, NAN for SQL NULL (a value the report does not have). */
static inline double
tui_col_num(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* Whether the query `sql` (constant text) returns a row; false on error (a missing table). */
bool tui_has_rows(sqlite3 *db, const char *sql);
/* One numeric result (NAN when NULL or on error) for a query with an optional int64 parameter. */
double tui_query_num(sqlite3 *db, const char *sql, long long param);

/*
 * The same as an integer: `fallback` when the query fails or gives no
 * row or a NULL. For counts and ids, which a damaged report may make
 * anything: no conversion of a NAN or a huge double to an integer.
 */
long long tui_query_int(sqlite3 *db, const char *sql, long long param, long long fallback);

/*
 * What the lists left out by default, as their message says it: "N notes
 * with no time lost hidden (--all shows them)", the singular for one, in
 * buf; "" when --all is on or nothing is hidden. Returns the count.
 */
long long tui_hidden_notes(sqlite3 *db, char *buf, size_t n);

/* ------------------------------------------------------------------ */
/* Keys (keys.c)                                                        */
/* ------------------------------------------------------------------ */

/* The request bound to `key` in the keymap of view `name`, else the generic keymap. */
enum request keys_request(const char *view, int key);
/* Printable names of the keys bound to `req` in `view`'s keymap and the generic one ("j, Down"). */
void keys_names(const char *view, enum request req, char *buf, size_t n);
/* For the help screen: every key bound to `req`, view-specific ones marked "(view)". */
void keys_help(enum request req, char *buf, size_t n);
/* Name of a key ("Enter", "F6", "j"). */
const char *keys_name(int key, char *buf, size_t n);
/* Parse "<Down>" etc.: returns the key, or -1. */
int keys_parse(const char *name);

/* The request table rows (for the help view). */
struct request_info {
    enum request req;
    const char *name;
    const char *group;
    const char *help;
};
extern const struct request_info request_info[];
extern const size_t request_info_count;

#endif
