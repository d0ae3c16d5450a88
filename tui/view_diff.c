/* SPDX-License-Identifier: MIT */
/*
 * view_diff: two reports, before and after (`gpuhier tui before.db
 * after.db`). The kernels, matched by demangled name, with their mean
 * time, its change and the floor ratio on each side; the findings fixed,
 * new and unchanged, keyed on (rule, kernel). The pairing is the one
 * `gpuhier diff` prints: export_diff_compute(), never a second copy.
 *
 * The view's db is the after report and db2 the before one; Enter opens
 * a kernel or a finding in the report it comes from.
 */
#include "tui/tui_int.h"

#include "export/export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct export_diff_map *view_diff_map;
size_t view_diff_n_map;

static int
compute(struct view *v, struct export_diff_result *r)
{
    struct export_diff_opts o = {.map = view_diff_map, .n_map = view_diff_n_map};
    memset(r, 0, sizeof(*r));
    if (!v->db2) {
        view_printf(v, LINE_ERROR, "the diff needs two reports");
        return -1;
    }
    return export_diff_compute(v->db2, v->db, &o, r);
}

static void
set_num(struct value *val, double x)
{
    val->is_null = isnan(x);
    val->num = x;
}

/* ------------------------------------------------------------------ */
/* Kernels                                                             */
/* ------------------------------------------------------------------ */

enum { K_NAME, K_STATUS, K_BEFORE, K_AFTER, K_CHANGE, K_FLOOR_B, K_FLOOR_A };

static const struct column kernel_cols[] = {
    [K_NAME] = {"Kernel", COL_TEXT, 0, false},    [K_STATUS] = {"Status", COL_TEXT, 8, false},
    [K_BEFORE] = {"Before", COL_NS, 8, true},     [K_AFTER] = {"After", COL_NS, 8, true},
    [K_CHANGE] = {"Change", COL_PCT, 7, false},   [K_FLOOR_B] = {"FloorB", COL_RATIO, 6, true},
    [K_FLOOR_A] = {"FloorA", COL_RATIO, 6, true},
};

struct counts {
    size_t a, b, c;
};

static int
kernels_open(struct view *v)
{
    struct export_diff_result r;
    int ret = compute(v, &r);
    struct counts *n = xcalloc(1, sizeof(*n));
    free(v->priv);
    v->priv = n;
    for (size_t i = 0; ret == 0 && i < r.n_kernels; i++) {
        const struct export_diff_kernel *k = &r.kernels[i];
        struct row *row = view_add_row(v);
        bool removed = !strcmp(k->status, "removed");
        row->target = removed ? TARGET_KERNEL_BEFORE : TARGET_KERNEL;
        row->id = removed ? k->before_id : k->after_id;
        value_set_text(&row->v[K_NAME], k->name, 0);
        value_set_text(&row->v[K_STATUS], k->status, 0);
        set_num(&row->v[K_BEFORE], k->before_mean_ns);
        set_num(&row->v[K_AFTER], k->after_mean_ns);
        set_num(&row->v[K_CHANGE], k->mean_change_pct);
        set_num(&row->v[K_FLOOR_B], k->before_floor_ratio);
        set_num(&row->v[K_FLOOR_A], k->after_floor_ratio);
        if (removed) {
            row->type = LINE_DIM;
            n->b++;
        } else if (!strcmp(k->status, "added")) {
            row->type = LINE_NOTE;
            n->c++;
        } else {
            row->type = k->mean_change_pct < 0   ? LINE_GOOD
                        : k->mean_change_pct > 0 ? LINE_WARNING
                                                 : LINE_DEFAULT;
            n->a++;
        }
        char bt[32], at[32], bl[32], al[32];
        fmt_ns(bt, sizeof(bt), k->before_total_ns);
        fmt_ns(at, sizeof(at), k->after_total_ns);
        fmt_count(bl, sizeof(bl), k->before_launches < 0 ? NAN : (double)k->before_launches);
        fmt_count(al, sizeof(al), k->after_launches < 0 ? NAN : (double)k->after_launches);
        row->note =
            xasprintf("%s: total %s -> %s, launches %s -> %s, worst finding %s -> %s",
                      row->v[K_NAME].text, bt, at, bl, al, k->before_worst ? k->before_worst : "-",
                      k->after_worst ? k->after_worst : "-");
    }
    export_diff_result_release(&r);
    if (ret == 0 && v->nrows == 0 && !v->message)
        v->message = xstrdup("no kernels in either report");
    return ret;
}

static void
kernels_title(struct view *v, char *buf, size_t n)
{
    const struct counts *c = v->priv;
    snprintf(buf, n, "Before/after: kernels (%zu matched, %zu removed, %zu added)", c ? c->a : 0,
             c ? c->b : 0, c ? c->c : 0);
}

static void
diff_done(struct view *v)
{
    free(v->priv);
    v->priv = NULL;
}

const struct view_ops diff_kernels_ops = {
    .name = "diff-kernels",
    .open = kernels_open,
    .title = kernels_title,
    .done = diff_done,
    .cols = kernel_cols,
    .ncols = sizeof(kernel_cols) / sizeof(kernel_cols[0]),
    .default_sort = K_BEFORE,
};

/* ------------------------------------------------------------------ */
/* Findings                                                            */
/* ------------------------------------------------------------------ */

enum { F_STATUS, F_RULE, F_SEV_B, F_SEV_A, F_LOST_B, F_LOST_A, F_KERNEL };

static const struct column finding_cols[] = {
    [F_STATUS] = {"Status", COL_TEXT, 9, false}, [F_RULE] = {"Rule", COL_TEXT, 20, false},
    [F_SEV_B] = {"Before", COL_TEXT, 7, false},  [F_SEV_A] = {"After", COL_TEXT, 7, false},
    [F_LOST_B] = {"LostB", COL_NS, 8, true},     [F_LOST_A] = {"LostA", COL_NS, 8, true},
    [F_KERNEL] = {"Kernel", COL_TEXT, 0, false},
};

static int
findings_open(struct view *v)
{
    struct export_diff_result r;
    int ret = compute(v, &r);
    struct counts *n = xcalloc(1, sizeof(*n));
    free(v->priv);
    v->priv = n;
    for (size_t i = 0; ret == 0 && i < r.n_findings; i++) {
        const struct export_diff_finding *f = &r.findings[i];
        struct row *row = view_add_row(v);
        bool fixed = !strcmp(f->status, "fixed");
        row->target = fixed ? TARGET_FINDING_BEFORE : TARGET_FINDING;
        row->id = fixed ? f->before_id : f->after_id;
        value_set_text(&row->v[F_STATUS], f->status, 0);
        value_set_text(&row->v[F_RULE], f->rule_id, 0);
        value_set_text(&row->v[F_SEV_B], f->severity_before ? f->severity_before : "-", 0);
        value_set_text(&row->v[F_SEV_A], f->severity_after ? f->severity_after : "-", 0);
        set_num(&row->v[F_LOST_B], f->lost_before_ns);
        set_num(&row->v[F_LOST_A], f->lost_after_ns);
        value_set_text(&row->v[F_KERNEL], f->kernel ? f->kernel : "(run)", 0);
        if (fixed) {
            row->type = LINE_GOOD;
            n->a++;
        } else if (!strcmp(f->status, "new")) {
            row->type = line_of_severity(f->severity_after);
            n->b++;
        } else {
            n->c++;
        }
        char lb[32], la[32];
        fmt_ns(lb, sizeof(lb), f->lost_before_ns);
        fmt_ns(la, sizeof(la), f->lost_after_ns);
        row->note = xasprintf("%s on %s: %s, time lost %s -> %s", row->v[F_RULE].text,
                              row->v[F_KERNEL].text, row->v[F_STATUS].text, lb, la);
    }
    export_diff_result_release(&r);
    if (ret == 0 && v->nrows == 0 && !v->message)
        v->message = xstrdup("no findings in either report");
    return ret;
}

static void
findings_title(struct view *v, char *buf, size_t n)
{
    const struct counts *c = v->priv;
    snprintf(buf, n, "Before/after: findings (%zu fixed, %zu new, %zu unchanged)", c ? c->a : 0,
             c ? c->b : 0, c ? c->c : 0);
}

const struct view_ops diff_findings_ops = {
    .name = "diff-findings",
    .open = findings_open,
    .title = findings_title,
    .done = diff_done,
    .cols = finding_cols,
    .ncols = sizeof(finding_cols) / sizeof(finding_cols[0]),
    .default_sort = F_STATUS,
};
