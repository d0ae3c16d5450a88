/* SPDX-License-Identifier: MIT */
/*
 * tui: the browser's top level: curses set-up and tear-down, the view
 * stack, the key loop, prompts (filter, search, export, dump), the
 * scripted input and screen dumps the tests use, and timing.
 *
 * Every frame is drawn into a canvas first (draw.c) and then copied to
 * curses, so a test without a terminal (GPUHIER_TUI_NO_DISPLAY=1) sees
 * exactly the cells a user would.
 */
#include "tui/tui_int.h"

#include "export/export.h"
#include "export/sanitize.h"
#include "schema/store.h"

#include <curses.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEY_SCRIPT_END (-2)
#define KEY_ESC 27
#define NTOP 4

struct tui {
    sqlite3 *db;
    sqlite3 *before;                    /* two reports: the before one (db is after), else NULL */
    const struct view_ops *const *tops; /* top_ops, or diff_tops with two reports */
    char *nvtx;                         /* the NVTX range filter of kernels and findings, or NULL */
    struct tui_opts opts;
    struct canvas canvas;
    bool curses;
    bool color;
    struct view *top[NTOP]; /* summary, kernels, findings, copies: kept while browsing */
    bool top_loaded[NTOP];
    struct view *view; /* the one on screen */
    FILE *script;
    char *line; /* current script line and position in it */
    size_t line_cap;
    const char *lp;
    int script_lineno;
    FILE *timing;
    char status[512];
    char prompt[768]; /* when set, drawn instead of the status */
    bool quit;
    int attrs[LINE_COUNT];
};

static const struct view_ops *const top_ops[NTOP] = {&summary_ops, &kernels_ops, &findings_ops,
                                                     &copies_ops};

/* Two reports: 1 and 2 show the kernels before and after, 3 the findings fixed, new, unchanged. */
static const struct view_ops *const diff_tops[NTOP] = {&diff_kernels_ops, NULL, &diff_findings_ops,
                                                       NULL};

static long long
now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void set_status(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
set_status(struct tui *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->status, sizeof(t->status), fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ */
/* Curses                                                              */
/* ------------------------------------------------------------------ */

static void
init_attrs(struct tui *t)
{
    static const struct {
        enum line_type type;
        short fg, bg;
        int attr, mono;
    } spec[] = {
        {LINE_TITLE, COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE},
        {LINE_HEADER, COLOR_YELLOW, -1, A_BOLD, A_UNDERLINE},
        {LINE_CURSOR, COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE},
        {LINE_STATUS, -1, -1, 0, 0},
        {LINE_KEYBAR, COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE},
        {LINE_KEY, COLOR_BLUE, COLOR_WHITE, A_BOLD, A_REVERSE | A_BOLD},
        {LINE_ERROR, COLOR_RED, -1, A_BOLD, A_BOLD},
        {LINE_WARNING, COLOR_YELLOW, -1, 0, A_BOLD},
        {LINE_NOTE, COLOR_CYAN, -1, 0, 0},
        {LINE_GOOD, COLOR_GREEN, -1, 0, 0},
        {LINE_DIM, COLOR_WHITE, -1, A_DIM, A_DIM},
        {LINE_LABEL, -1, -1, A_BOLD, A_BOLD},
        {LINE_BAR, COLOR_GREEN, -1, 0, 0},
        {LINE_BAR_EMPTY, COLOR_WHITE, -1, A_DIM, A_DIM},
        {LINE_TAG, COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
        {LINE_SECTION, COLOR_CYAN, -1, A_BOLD, A_BOLD | A_UNDERLINE},
        {LINE_TIER, COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE},
    };
    for (int i = 0; i < LINE_COUNT; i++)
        t->attrs[i] = A_NORMAL;
    for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
        if (t->color) {
            short pair = (short)(i + 1);
            init_pair(pair, spec[i].fg, spec[i].bg);
            t->attrs[spec[i].type] = COLOR_PAIR(pair) | spec[i].attr;
        } else {
            t->attrs[spec[i].type] = spec[i].mono;
        }
    }
}

static int
curses_start(struct tui *t)
{
    /* Keys may come from a script while the screen is a real terminal (tmux tests). */
    if (!newterm(NULL, stdout, stdin)) {
        char term[256];
        fprintf(stderr, "gpuhier: error: cannot start the terminal (TERM='%s')\n",
                sanitize_into(term, sizeof(term), getenv("TERM")));
        return -1;
    }
    t->curses = true;
    raw();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    t->color = !t->opts.monochrome && has_colors();
    if (t->color) {
        start_color();
        use_default_colors();
    }
    init_attrs(t);
    if (t->opts.mouse)
        mousemask(BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    canvas_resize(&t->canvas, cols, rows);
    return 0;
}

static void
curses_blit(struct tui *t)
{
    const struct canvas *c = &t->canvas;
    for (int r = 0; r < c->rows; r++) {
        move(r, 0);
        for (int i = 0; i < c->cols; i++) {
            const struct cell *cl = &c->cells[(size_t)r * c->cols + i];
            if (!cl->ch[0])
                continue;
            attrset(t->attrs[cl->type]);
            if (r == c->rows - 1 && i == c->cols - 1)
                break; /* writing the last cell would scroll */
            addstr(cl->ch);
        }
    }
    attrset(A_NORMAL);
    refresh();
}

/* ------------------------------------------------------------------ */
/* Frame                                                               */
/* ------------------------------------------------------------------ */

static bool
is_top(struct tui *t, struct view *v)
{
    for (int i = 0; i < NTOP; i++)
        if (t->top[i] == v)
            return true;
    return false;
}

static int
body_top(struct view *v)
{
    return v->ops->cols ? 2 : 1;
}

static int
body_height(struct tui *t)
{
    return t->canvas.rows - 2 - body_top(t->view);
}

static void
draw_keybar(struct tui *t, struct draw *d)
{
    static const struct {
        enum request req;
        const char *label;
        int when; /* 0 always, 1 tables, 2 not at top, 3 findings, 4 kernels, 5 kernel detail,
                   * 6 export, 7 text views, 8 summary, 9 the diff's top views */
    } items[] = {
        {REQ_VIEW_HELP, "Help", 0},
        {REQ_ENTER, "Open", 0},
        {REQ_BACK, "Back", 2},
        {REQ_FILTER, "Filter", 1},
        {REQ_FILTER, "Search", 7},
        {REQ_SORT_NEXT, "Sort", 1},
        {REQ_SORT_REVERSE, "Rev", 1},
        {REQ_TOGGLE_CONFIG, "Configs", 4},
        {REQ_TAG, "Tag", 3},
        {REQ_EXPORT, "Export", 6},
        {REQ_TOGGLE_METRICS, "Metrics", 5},
        {REQ_VIEW_PROFILES, "Profiles", 5},
        {REQ_VIEW_KERNELS, "Kernels", 8},
        {REQ_VIEW_FINDINGS, "Findings", 8},
        {REQ_VIEW_COPIES, "Copies", 8},
        {REQ_VIEW_KERNELS, "Kernels", 9},
        {REQ_VIEW_FINDINGS, "Findings", 9},
        {REQ_QUIT, "Quit", 0},
    };
    struct view *v = t->view;
    const char *name = v->ops->name;
    for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
        int w = items[i].when;
        bool show = w == 0 || (w == 1 && v->ops->cols) || (w == 2 && !is_top(t, v)) ||
                    (w == 3 && !strcmp(name, "findings")) || (w == 4 && !strcmp(name, "kernels")) ||
                    (w == 5 && !strcmp(name, "kernel")) ||
                    (w == 6 && (!strcmp(name, "findings") || !strcmp(name, "finding") ||
                                !strcmp(name, "kernel"))) ||
                    (w == 7 && !v->ops->cols) || (w == 8 && v == t->top[0] && !t->before) ||
                    (w == 9 && t->before && is_top(t, v));
        if (!show)
            continue;
        char keys[64];
        keys_names(name, items[i].req, keys, sizeof(keys));
        char *comma = strchr(keys, ',');
        if (comma)
            *comma = '\0';
        if (draw_text(d, LINE_KEY, keys) || draw_text(d, LINE_KEYBAR, " ") ||
            draw_text(d, LINE_KEYBAR, items[i].label) || draw_text(d, LINE_KEYBAR, "  "))
            return;
    }
    draw_eol(d, LINE_KEYBAR);
}

static void
redraw(struct tui *t)
{
    struct canvas *c = &t->canvas;
    struct view *v = t->view;
    canvas_clear(c);
    struct draw d = {.c = c, .maxcol = c->cols};
    if (c->rows < 4 || c->cols < 16) {
        /* Title, header, status and key bar need the room: say so instead. */
        draw_text(&d, LINE_WARNING, "terminal too small");
        if (t->curses)
            curses_blit(t);
        return;
    }

    char title[256], pos[64];
    v->ops->title(v, title, sizeof(title));
    size_t n = view_lines(v);
    snprintf(pos, sizeof(pos), " %zu/%zu ", n ? v->pos + 1 : 0, n);
    d.row = 0;
    char name[256], full[600];
    sanitize_into(name, sizeof(name), t->opts.report_name ? t->opts.report_name : "");
    snprintf(full, sizeof(full), " gpuhier %s%s%s", title, name[0] ? " - " : "", name);
    int pw = (int)strlen(pos);
    if (c->cols > pw + 10) {
        /* Long titles (kernel names) are cut so the position stays visible. */
        draw_field(&d, LINE_TITLE, full, c->cols - pw - 1, false);
        draw_text(&d, LINE_TITLE, pos);
    } else {
        draw_text(&d, LINE_TITLE, full);
    }
    draw_eol(&d, LINE_TITLE);

    int top = body_top(v), height = body_height(t);
    if (v->ops->cols) {
        d.row = 1;
        d.col = 0;
        d.skip = v->hoffset;
        view_draw_header(v, &d);
    }
    /* Keep the cursor on screen after a resize. */
    if (height > 0 && v->pos >= v->offset + (size_t)height)
        v->offset = v->pos - (size_t)height + 1;
    if (v->pos < v->offset)
        v->offset = v->pos;
    for (int i = 0; i < height; i++) {
        size_t lineno = v->offset + (size_t)i;
        if (lineno >= n)
            break;
        d.row = top + i;
        d.col = 0;
        d.skip = v->hoffset;
        d.cursor = lineno == v->pos;
        view_draw_line(v, &d, lineno);
    }
    d.cursor = false;
    d.skip = 0;

    d.row = c->rows - 2;
    d.col = 0;
    if (t->prompt[0]) {
        draw_text(&d, LINE_STATUS, t->prompt);
        draw_text(&d, LINE_CURSOR, " ");
    } else if (t->status[0]) {
        draw_text(&d, LINE_STATUS, t->status);
    } else if (v->message) {
        draw_text(&d, LINE_WARNING, v->message);
    } else if (v->ops->cols) {
        struct row *r = view_row(v);
        char note[512] = "";
        if (v->ops->select)
            v->ops->select(v, note, sizeof(note));
        else if (r && r->note)
            snprintf(note, sizeof(note), "%s", r->note);
        if (v->filter[0]) {
            char f[300], buf[400];
            snprintf(buf, sizeof(buf), "filter '%s': %zu of %zu rows%s",
                     sanitize_into(f, sizeof(f), v->filter), v->nvis, v->nrows,
                     note[0] ? " | " : "");
            draw_text(&d, LINE_STATUS, buf);
        } else if (v->nrows == 0) {
            draw_text(&d, LINE_DIM, "(no rows)");
        }
        draw_text(&d, LINE_DIM, note);
    }
    if (c->rows >= 2) {
        d.row = c->rows - 1;
        d.col = 0;
        draw_keybar(t, &d);
    }
    if (t->curses)
        curses_blit(t);
}

/* ------------------------------------------------------------------ */
/* Input                                                               */
/* ------------------------------------------------------------------ */

static int run_command(struct tui *t, const char *cmd);
static void preload_when_idle(struct tui *t);

/* The next key: from the script when there is one, else from the terminal. */
static int
get_key(struct tui *t)
{
    if (!t->script) {
        if (!t->curses)
            return KEY_SCRIPT_END;
        preload_when_idle(t);
        return getch();
    }
    for (;;) {
        if (t->lp && *t->lp) {
            const char *p = t->lp;
            if (*p == '<') {
                const char *end = strchr(p, '>');
                if (end && end - p < 16) {
                    char name[16];
                    snprintf(name, sizeof(name), "%.*s", (int)(end - p - 1), p + 1);
                    int k = keys_parse(name);
                    if (k >= 0) {
                        t->lp = end + 1;
                        return k;
                    }
                }
            }
            t->lp++;
            return (unsigned char)*p;
        }
        ssize_t len = getline(&t->line, &t->line_cap, t->script);
        if (len < 0)
            return KEY_SCRIPT_END;
        t->script_lineno++;
        while (len > 0 && (t->line[len - 1] == '\n' || t->line[len - 1] == '\r'))
            t->line[--len] = '\0';
        t->lp = NULL;
        if (len == 0 || t->line[0] == '#')
            continue;
        if (t->line[0] == ':') {
            int k = run_command(t, t->line + 1);
            if (k)
                return k;
            continue;
        }
        t->lp = t->line;
    }
}

static int
run_command(struct tui *t, const char *cmd)
{
    bool types = !strncmp(cmd, "dump-types ", 11);
    if (types || !strncmp(cmd, "dump ", 5)) {
        const char *file = cmd + (types ? 11 : 5);
        FILE *f = fopen(file, "w");
        if (!f) {
            set_status(t, "cannot write '%s': %s", file, strerror(errno));
            return 0;
        }
        if (types)
            canvas_write_types(&t->canvas, f);
        else
            canvas_write(&t->canvas, f);
        fclose(f);
        return 0;
    }
    int cols, rows;
    if (sscanf(cmd, "resize %d %d", &cols, &rows) == 2) {
        if (!t->curses)
            canvas_resize(&t->canvas, cols, rows);
        return KEY_RESIZE;
    }
    set_status(t, "script line %d: unknown command ':%s'", t->script_lineno, cmd);
    return 0;
}

/*
 * Read a line of text in the status line. on_change (may be NULL) runs
 * after every edit, for incremental filtering. Returns 0 on Enter, -1 on
 * Esc or end of input.
 */
static int
prompt(struct tui *t, const char *label, char *buf, size_t n,
       void (*on_change)(struct tui *, const char *))
{
    size_t len = strlen(buf);
    for (;;) {
        char shown[512];
        snprintf(t->prompt, sizeof(t->prompt), "%s%s", label,
                 sanitize_into(shown, sizeof(shown), buf));
        redraw(t);
        int k = get_key(t);
        if (k == '\n' || k == '\r' || k == KEY_ENTER) {
            t->prompt[0] = '\0';
            return 0;
        }
        if (k == KEY_ESC || k == KEY_SCRIPT_END || k == 3 /* ^C */) {
            t->prompt[0] = '\0';
            if (k == KEY_SCRIPT_END)
                t->quit = true;
            return -1;
        }
        if (k == KEY_RESIZE) {
            if (t->curses) {
                int rows, cols;
                getmaxyx(stdscr, rows, cols);
                canvas_resize(&t->canvas, cols, rows);
            }
            continue;
        }
        if (k == KEY_BACKSPACE || k == 127 || k == 8) {
            if (len > 0) {
                /* Remove one UTF-8 character. */
                do
                    len--;
                while (len > 0 && ((unsigned char)buf[len] & 0xc0) == 0x80);
                buf[len] = '\0';
            }
        } else if (k >= 32 && k < 256 && len + 1 < n) {
            buf[len++] = (char)k;
            buf[len] = '\0';
        } else {
            continue;
        }
        if (on_change)
            on_change(t, buf);
    }
}

/* ------------------------------------------------------------------ */
/* Views                                                               */
/* ------------------------------------------------------------------ */

/* Detail text wraps to the terminal: its width less the labels (64 at 80 columns). */
static int
wrap_cols(const struct tui *t)
{
    return t->canvas.cols - 16 > 24 ? t->canvas.cols - 16 : 24;
}

static void
load_view(struct tui *t, struct view *v)
{
    v->wrap_cols = wrap_cols(t);
    if (view_load(v))
        set_status(t, "cannot read the report: %s", store_error());
}

static void
free_chain(struct tui *t)
{
    /* Free detail views above the nearest top view. */
    struct view *v = t->view;
    while (v && !is_top(t, v)) {
        struct view *prev = v->prev;
        view_free(v);
        v = prev;
    }
    t->view = v;
}

/* Top view i, made when first needed (not loaded); NULL when the mode has none there. */
static struct view *
top_view(struct tui *t, int i)
{
    if (!t->top[i] && t->tops[i]) {
        t->top[i] = view_new(t->tops[i], t->db, -1, -1);
        t->top[i]->db2 = t->before;
        if (t->nvtx && !t->before && (i == 1 || i == 2))
            t->top[i]->nvtx = xstrdup(t->nvtx);
    }
    return t->top[i];
}

static void
switch_top(struct tui *t, int i)
{
    if (t->before && i == 1)
        i = 0;
    if (!t->tops[i]) {
        set_status(t, "two reports: 1 kernels, 3 findings (the copies are in each report)");
        return;
    }
    free_chain(t);
    top_view(t, i);
    t->top[i]->prev = NULL;
    t->view = t->top[i];
    if (!t->top_loaded[i]) {
        load_view(t, t->view);
        t->top_loaded[i] = true;
    }
}

/* A view of the current view's report: with two reports, a detail may be of either. */
static void
push_db(struct tui *t, sqlite3 *db, const struct view_ops *ops, long long id, long long id2)
{
    struct view *v = view_new(ops, db, id, id2);
    v->prev = t->view;
    t->view = v;
    load_view(t, v);
}

static void
push(struct tui *t, const struct view_ops *ops, long long id, long long id2)
{
    push_db(t, t->view ? t->view->db : t->db, ops, id, id2);
}

/*
 * Set (regex) or clear (NULL) the NVTX range filter of the kernels and
 * findings views; they reload when shown. Returns -1 for a bad regex.
 */
static int
set_nvtx(struct tui *t, const char *regex)
{
    if (regex) {
        regex_t re;
        if (regcomp(&re, regex, REG_EXTENDED | REG_NOSUB))
            return -1;
        regfree(&re);
    }
    free(t->nvtx);
    t->nvtx = regex ? xstrdup(regex) : NULL;
    for (int i = 1; i <= 2; i++) {
        if (!t->top[i])
            continue;
        free(t->top[i]->nvtx);
        t->top[i]->nvtx = regex ? xstrdup(regex) : NULL;
        t->top[i]->pos = t->top[i]->offset = 0;
        t->top_loaded[i] = false;
        if (t->view == t->top[i]) {
            load_view(t, t->view);
            t->top_loaded[i] = true;
        }
    }
    return 0;
}

static void
do_nvtx_filter(struct tui *t)
{
    char buf[256] = "", label[400], now[200] = "";
    if (t->nvtx) {
        char shown[160];
        snprintf(now, sizeof(now), "now /%s/; ", sanitize_into(shown, sizeof(shown), t->nvtx));
    }
    snprintf(label, sizeof(label), "NVTX range path regex (%sempty: all ranges): ", now);
    if (prompt(t, label, buf, sizeof(buf), NULL))
        return;
    if (set_nvtx(t, buf[0] ? buf : NULL))
        set_status(t, "bad regular expression: the filter is unchanged");
}

static void
go_back(struct tui *t)
{
    struct view *v = t->view;
    if (v->prev) {
        t->view = v->prev;
        if (!is_top(t, v))
            view_free(v);
    } else if (v != t->top[0]) {
        switch_top(t, 0);
    }
}

static void
open_selected(struct tui *t)
{
    struct view *v = t->view;
    enum target_kind kind = TARGET_NONE;
    long long id = -1, id2 = -1;
    if (v->ops->cols) {
        struct row *r = view_row(v);
        if (r) {
            kind = r->target;
            id = r->id;
            id2 = r->id2;
        }
    } else if (v->pos < v->nlines) {
        kind = v->lines[v->pos].target;
        id = v->lines[v->pos].id;
        id2 = v->lines[v->pos].id2;
    }
    switch (kind) {
    case TARGET_KERNEL:
        push(t, &kernel_ops, id, id2);
        break;
    case TARGET_FINDING:
        push(t, &finding_ops, id, -1);
        break;
    case TARGET_FINDINGS:
        switch_top(t, 2);
        break;
    case TARGET_COPIES:
        switch_top(t, 3);
        break;
    case TARGET_NVTX: {
        /* The kernels that ran in the range (or nested in it); 3 shows its findings. */
        char *re = nvtx_view_regex(v, id);
        if (t->before) {
            set_status(t, "the NVTX range filter is for one report: open it alone");
        } else if (re) {
            set_nvtx(t, re);
            switch_top(t, 1);
        }
        free(re);
        break;
    }
    case TARGET_KERNEL_BEFORE:
        push_db(t, t->before, &kernel_ops, id, id2);
        break;
    case TARGET_FINDING_BEFORE:
        push_db(t, t->before, &finding_ops, id, -1);
        break;
    case TARGET_COPY_GROUP: {
        struct view *nv = copies_group_view(v, id);
        if (nv) {
            nv->prev = t->view;
            t->view = nv;
            load_view(t, nv);
        }
        break;
    }
    case TARGET_NONE:
        set_status(t, "nothing to open on this line");
        break;
    }
}

/*
 * Open the top views nobody asked for yet while no key is waiting, so
 * the first visit to Copies or Findings costs nothing when it happens.
 * Only at the keyboard: scripted runs measure the real cost of a key.
 */
static void
preload_when_idle(struct tui *t)
{
    for (int i = 0; i < NTOP; i++) {
        if (t->top_loaded[i] || !t->tops[i])
            continue;
        timeout(0);
        int k = getch();
        timeout(-1);
        if (k != ERR) {
            ungetch(k);
            return;
        }
        load_view(t, top_view(t, i));
        t->top_loaded[i] = true;
    }
}

static void
filter_changed(struct tui *t, const char *text)
{
    struct view *v = t->view;
    snprintf(v->filter, sizeof(v->filter), "%s", text);
    v->pos = v->offset = 0;
    view_refilter(v);
}

static void
do_filter(struct tui *t)
{
    struct view *v = t->view;
    if (v->ops->cols) {
        char old[sizeof(v->filter)], buf[sizeof(v->filter)];
        snprintf(old, sizeof(old), "%s", v->filter);
        snprintf(buf, sizeof(buf), "%s", v->filter);
        if (prompt(t, "Filter: ", buf, sizeof(buf), filter_changed))
            filter_changed(t, old);
        return;
    }
    char buf[sizeof(v->search)] = "";
    if (prompt(t, "Search: ", buf, sizeof(buf), NULL) || !buf[0])
        return;
    snprintf(v->search, sizeof(v->search), "%s", buf);
    if (view_find(v, 1))
        set_status(t, "'%s' not found", buf);
}

/* The finding ids the current view would export: tagged, else the selected one. */
static size_t
export_ids(struct tui *t, long long **ids)
{
    struct view *v = t->view;
    size_t n = 0;
    *ids = NULL;
    if (!strcmp(v->ops->name, "findings")) {
        *ids = xcalloc(v->nrows + 1, sizeof(**ids));
        for (size_t i = 0; i < v->nrows; i++)
            if (v->rows[i].tagged)
                (*ids)[n++] = v->rows[i].id;
        struct row *r = view_row(v);
        if (n == 0 && r)
            (*ids)[n++] = r->id;
    } else if (!strcmp(v->ops->name, "finding")) {
        *ids = xcalloc(1, sizeof(**ids));
        (*ids)[n++] = v->id;
    } else if (!strcmp(v->ops->name, "kernel")) {
        const long long *k;
        size_t nk = kernel_view_finding_ids(v, &k);
        *ids = xcalloc(nk + 1, sizeof(**ids));
        for (size_t i = 0; i < nk; i++)
            (*ids)[n++] = k[i];
    }
    return n;
}

static void
do_export(struct tui *t)
{
    long long *ids;
    size_t n = export_ids(t, &ids);
    if (n == 0) {
        set_status(t, "no finding to export here");
        free(ids);
        return;
    }
    char label[128], fmt[16] = "", file[512] = "";
    snprintf(label, sizeof(label), "Export %zu finding%s as md, json, csv, sarif, junit [md]: ", n,
             n == 1 ? "" : "s");
    if (prompt(t, label, fmt, sizeof(fmt), NULL))
        goto out;
    if (!fmt[0])
        snprintf(fmt, sizeof(fmt), "md");
    const char *ext = !strcmp(fmt, "junit") ? "xml" : fmt;
    char def[64];
    snprintf(def, sizeof(def), "gpuhier-findings.%s", ext);
    snprintf(label, sizeof(label), "Write to file [%s]: ", def);
    if (prompt(t, label, file, sizeof(file), NULL))
        goto out;
    if (!file[0])
        snprintf(file, sizeof(file), "%s", def);
    if (access(file, F_OK) == 0) {
        set_status(t, "'%s' exists: not overwritten", file);
        goto out;
    }
    FILE *f = fopen(file, "w");
    if (!f) {
        set_status(t, "cannot write '%s': %s", file, strerror(errno));
        goto out;
    }
    struct export_opts o = {.format = fmt, .redact = 1, .finding_ids = ids, .n_ids = n};
    int rc = export_write(t->view->db, &o, f);
    if (fclose(f) != 0)
        rc = -1;
    if (rc) {
        set_status(t, "export failed: %s", store_error());
        unlink(file);
    } else {
        set_status(t, "wrote %zu finding%s as %s to '%s'", n, n == 1 ? "" : "s", fmt, file);
    }
out:
    free(ids);
}

static void
do_dump(struct tui *t)
{
    char label[160], file[512] = "", def[64];
    snprintf(def, sizeof(def), "gpuhier-%s.txt", t->view->ops->name);
    snprintf(label, sizeof(label), "Write this view as text to [%s]: ", def);
    if (prompt(t, label, file, sizeof(file), NULL))
        return;
    if (!file[0])
        snprintf(file, sizeof(file), "%s", def);
    FILE *f = fopen(file, "w");
    if (!f) {
        set_status(t, "cannot write '%s': %s", file, strerror(errno));
        return;
    }
    int rc = view_write_text(t->view, f);
    if (fclose(f) != 0 || rc)
        set_status(t, "cannot write '%s'", file);
    else
        set_status(t, "wrote %zu lines to '%s'", view_lines(t->view), file);
}

static void
handle_mouse(struct tui *t)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return;
    int h = body_height(t);
    if (ev.bstate & BUTTON4_PRESSED) {
        for (int i = 0; i < 3; i++)
            view_move(t->view, REQ_MOVE_UP, h);
    } else if (ev.bstate & BUTTON5_PRESSED) {
        for (int i = 0; i < 3; i++)
            view_move(t->view, REQ_MOVE_DOWN, h);
    } else if (ev.bstate & BUTTON1_CLICKED) {
        int line = ev.y - body_top(t->view);
        if (line >= 0 && line < h && t->view->offset + (size_t)line < view_lines(t->view))
            t->view->pos = t->view->offset + (size_t)line;
    }
}

static void
handle(struct tui *t, int key)
{
    struct view *v = t->view;
    t->status[0] = '\0';
    if (v->message && key != KEY_RESIZE) {
        free(v->message);
        v->message = NULL;
    }
    if (key == KEY_RESIZE) {
        if (t->curses) {
            int rows, cols;
            getmaxyx(stdscr, rows, cols);
            canvas_resize(&t->canvas, cols, rows);
        }
        /* A detail view reflows to the new width (tables lay out at each draw). */
        if (!v->ops->cols && v->wrap_cols != wrap_cols(t))
            load_view(t, v);
        return;
    }
    if (key == KEY_MOUSE) {
        handle_mouse(t);
        return;
    }
    if (key == 3) { /* Ctrl-C: raw mode turns it into a key; it still means quit */
        t->quit = true;
        return;
    }
    enum request req = keys_request(v->ops->name, key);
    if (req != REQ_NONE && v->ops->request)
        req = v->ops->request(v, req);
    switch (req) {
    case REQ_NONE:
        break;
    case REQ_VIEW_SUMMARY:
        switch_top(t, 0);
        break;
    case REQ_VIEW_KERNELS:
        switch_top(t, 1);
        break;
    case REQ_VIEW_FINDINGS:
        switch_top(t, 2);
        break;
    case REQ_VIEW_COPIES:
        switch_top(t, 3);
        break;
    case REQ_VIEW_RANKS:
        if (strcmp(v->ops->name, "ranks"))
            push(t, &ranks_ops, -1, -1);
        break;
    case REQ_VIEW_HELP:
        if (strcmp(v->ops->name, "help"))
            push(t, &help_ops, -1, -1);
        break;
    case REQ_VIEW_NVTX:
        if (strcmp(v->ops->name, "nvtx"))
            push(t, &nvtx_ops, -1, -1);
        break;
    case REQ_NVTX_FILTER:
        do_nvtx_filter(t);
        break;
    case REQ_VIEW_PROFILES:
        if (!strcmp(v->ops->name, "kernel"))
            push(t, &profiles_ops, v->id, v->id2);
        break;
    case REQ_VIEW_SOURCE:
        if (!strcmp(v->ops->name, "kernel"))
            push(t, &source_ops, v->id, v->id2);
        break;
    case REQ_ENTER:
        open_selected(t);
        break;
    case REQ_BACK:
        go_back(t);
        break;
    case REQ_QUIT:
        if (is_top(t, v))
            t->quit = true;
        else
            go_back(t);
        break;
    case REQ_MOVE_UP:
    case REQ_MOVE_DOWN:
    case REQ_MOVE_PAGE_UP:
    case REQ_MOVE_PAGE_DOWN:
    case REQ_MOVE_FIRST:
    case REQ_MOVE_LAST:
        view_move(v, req, body_height(t));
        break;
    case REQ_SCROLL_LEFT:
    case REQ_SCROLL_RIGHT:
        /* Eight columns a step, as far as the widest line (4096 columns at most). */
        v->hoffset += req == REQ_SCROLL_RIGHT ? 8 : -8;
        if (v->hoffset < 0)
            v->hoffset = 0;
        if (v->hoffset > 4096)
            v->hoffset = 4096;
        break;
    case REQ_FILTER:
        do_filter(t);
        break;
    case REQ_FIND_NEXT:
    case REQ_FIND_PREV:
        if (view_find(v, req == REQ_FIND_NEXT ? 1 : -1))
            set_status(t, "no match");
        view_move(v, REQ_NONE, body_height(t));
        break;
    case REQ_SORT_NEXT:
    case REQ_SORT_REVERSE:
        if (!v->ops->cols) {
            set_status(t, "this view is not a table");
            break;
        }
        if (req == REQ_SORT_NEXT) {
            v->sort_col = (v->sort_col + 1) % v->ops->ncols;
            v->sort_rev = false;
        } else {
            v->sort_rev = !v->sort_rev;
        }
        view_refilter(v);
        set_status(t, "sorted by %s%s", v->ops->cols[v->sort_col].title,
                   v->sort_rev ? ", reversed" : "");
        break;
    case REQ_TOGGLE_CONFIG:
    case REQ_TOGGLE_METRICS:
    case REQ_TAG:
        break; /* handled by the view, or not for this view */
    case REQ_EXPORT:
        do_export(t);
        break;
    case REQ_DUMP:
        do_dump(t);
        break;
    case REQ_REFRESH:
        if (t->curses)
            clearok(curscr, TRUE);
        break;
    case REQ_COUNT:
        break;
    }
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

static int
start_view_index(const char *name)
{
    if (!name)
        return 0;
    for (int i = 0; i < NTOP; i++)
        if (!strcmp(top_ops[i]->name, name))
            return i;
    return 0;
}

static int
register_functions(sqlite3 *db)
{
    return db ? export_names_register(db) || nvtx_register(db) : 0;
}

int
tui_main(sqlite3 *db, const struct tui_opts *o)
{
    long long t0 = now_us();
    struct tui t = {.db = db, .tops = top_ops};
    int ret = -1;
    if (o)
        t.opts = *o;
    view_show_all = t.opts.all;
    if (t.opts.before) {
        t.before = t.opts.before;
        t.tops = diff_tops;
        view_diff_map = t.opts.map;
        view_diff_n_map = t.opts.n_map;
    }
    if (register_functions(db) || register_functions(t.before))
        return -1;
    if (t.opts.nvtx && set_nvtx(&t, t.opts.nvtx)) {
        fprintf(stderr, "gpuhier: error: bad NVTX regular expression\n");
        return -1;
    }
    setlocale(LC_ALL, "");
    bool utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        t.opts.monochrome = 1;
    canvas_init(&t.canvas, 80, 24, t.opts.ascii || !utf8);
    const char *script = getenv("GPUHIER_TUI_SCRIPT");
    /* File names from the environment are not ours: shown through the sanitizer. */
    char shown[1024];
    if (script && *script && !(t.script = fopen(script, "r"))) {
        const char *why = strerror(errno);
        fprintf(stderr, "gpuhier: error: cannot read script '%s': %s\n",
                sanitize_into(shown, sizeof(shown), script), why);
        goto out;
    }
    const char *timing = getenv("GPUHIER_TUI_TIMING");
    if (timing && *timing && !(t.timing = fopen(timing, "a"))) {
        const char *why = strerror(errno);
        fprintf(stderr, "gpuhier: error: cannot write timing file '%s': %s\n",
                sanitize_into(shown, sizeof(shown), timing), why);
        goto out;
    }
    const char *nd = getenv("GPUHIER_TUI_NO_DISPLAY");
    bool display = !(nd && *nd && strcmp(nd, "0"));
    if (display) {
        if (!isatty(STDOUT_FILENO) || (!t.script && !isatty(STDIN_FILENO))) {
            fprintf(stderr,
                    "gpuhier: error: the TUI needs a terminal; use 'gpuhier report' for text\n");
            goto out;
        }
        if (curses_start(&t))
            goto out;
    }
    int first = start_view_index(t.opts.start_view);
    switch_top(&t, t.tops[first] ? first : 0);
    redraw(&t);
    if (t.timing)
        fprintf(t.timing, "first_paint_us %lld\n", now_us() - t0);
    while (!t.quit) {
        int key = get_key(&t);
        if (key == KEY_SCRIPT_END)
            break;
        long long k0 = now_us();
        handle(&t, key);
        if (t.quit)
            break;
        redraw(&t);
        if (t.timing) {
            char kn[32];
            fprintf(t.timing, "key %s %lld\n", keys_name(key, kn, sizeof(kn)), now_us() - k0);
        }
    }
    ret = 0;
out:
    if (t.curses)
        endwin();
    free_chain(&t);
    for (int i = 0; i < NTOP; i++)
        view_free(t.top[i]);
    canvas_release(&t.canvas);
    free(t.nvtx);
    if (t.script)
        fclose(t.script);
    if (t.timing)
        fclose(t.timing);
    free(t.line);
    return ret;
}
