/* SPDX-License-Identifier: MIT */
/*
 * view_profiles: every profiled launch of one kernel (or of one of its
 * configurations), grouped by configuration: the launch's index within
 * its configuration and why it was profiled, the metric set, passes and
 * profiler overhead, the tie counters (warp instructions, global load and
 * store sectors, duration), and whether the analyzer set the profile
 * aside because it did other work than its configuration's first profile.
 * Then the launches counted by profile_reason, profiled or not.
 *
 * The kernel view shows means over the profiles; this one shows what the
 * means are made of. The verdict is schema.sql's v_profile as this build
 * defines it (store_view_query()), the very query the analyzer sets
 * profiles aside with: nothing here decides it again. The percentages
 * against the first profile are presentation only.
 */
#include "tui/tui_int.h"

#include "schema/store.h"
#include "schema/store_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LABEL 12

struct prof {
    long long launch_id, config_id;          /* config_id -1: unknown */
    long long grid[3], block[3], smem_bytes; /* of the configuration */
    double config_launches;                  /* traced launches of the configuration */
    double index, passes, overhead_ns;       /* NAN when not recorded */
    double inst, gld_sectors, gst_sectors, duration_ns;
    long long tie_launch_id; /* the profile it is compared with; -1: no tie counters */
    long long ref;           /* index of that profile's row; -1: none */
    bool set_aside;
    char *reason, *set; /* sanitized, owned */
};

struct profiles_priv {
    char *name; /* sanitized short name, for the title */
    struct prof *r;
    size_t n;
};

static void
priv_clear(struct profiles_priv *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->r[i].reason);
        free(p->r[i].set);
    }
    free(p->r);
    free(p->name);
    memset(p, 0, sizeof(*p));
}

static int
load_profiles(struct view *v, struct profiles_priv *p)
{
    sqlite3_stmt *st = NULL;
    char *sql = store_view_query(
        "v_profile",
        "SELECT v.launch_id, v.config_id, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y,"
        " c.block_z, c.dynamic_smem_bytes, c.launches, v.config_launch_index, v.profile_reason,"
        " v.metric_set, v.passes, v.overhead_ns, v.inst_executed, v.gld_sectors, v.gst_sectors,"
        " v.duration_ns, v.tie_launch_id, v.set_aside FROM ",
        " v LEFT JOIN config c ON c.id = v.config_id"
        " WHERE v.kernel_id = ?1 AND (?2 < 0 OR v.config_id = ?2)"
        " ORDER BY v.config_id IS NULL, v.config_id, v.launch_id");
    if (!sql)
        return -1;
    int rc = tui_prepare(v->db, sql, &st);
    free(sql);
    if (rc)
        return -1;
    sqlite3_bind_int64(st, 1, v->id);
    sqlite3_bind_int64(st, 2, v->id2);
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (p->n == cap) {
            cap = cap ? cap * 2 : 16;
            p->r = xrealloc(p->r, cap * sizeof(*p->r));
        }
        struct prof *r = &p->r[p->n++];
        memset(r, 0, sizeof(*r));
        r->launch_id = sqlite3_column_int64(st, 0);
        r->config_id = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
        for (int i = 0; i < 3; i++) {
            r->grid[i] = sqlite3_column_int64(st, 2 + i);
            r->block[i] = sqlite3_column_int64(st, 5 + i);
        }
        r->smem_bytes = sqlite3_column_int64(st, 8);
        r->config_launches = tui_col_num(st, 9);
        r->index = tui_col_num(st, 10);
        r->reason = xsanitize((const char *)sqlite3_column_text(st, 11), 64);
        r->set = xsanitize((const char *)sqlite3_column_text(st, 12), 128);
        r->passes = tui_col_num(st, 13);
        r->overhead_ns = tui_col_num(st, 14);
        r->inst = tui_col_num(st, 15);
        r->gld_sectors = tui_col_num(st, 16);
        r->gst_sectors = tui_col_num(st, 17);
        r->duration_ns = tui_col_num(st, 18);
        r->tie_launch_id =
            sqlite3_column_type(st, 19) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 19);
        r->set_aside = sqlite3_column_int(st, 20) != 0;
    }
    sqlite3_finalize(st);
    /*
     * Rows come by configuration, then launch: a configuration's ref (its
     * first profile with tie counters) precedes the rows compared with it.
     */
    long long ref = -1;
    for (size_t i = 0; i < p->n; i++) {
        struct prof *r = &p->r[i];
        if (i > 0 && r->config_id != p->r[i - 1].config_id)
            ref = -1;
        if (r->tie_launch_id == r->launch_id)
            ref = (long long)i;
        r->ref = ref >= 0 && p->r[ref].launch_id == r->tie_launch_id ? ref : -1;
    }
    return rc == SQLITE_DONE ? 0 : store_set_error("cannot read profiles: %s", sqlite3_errstr(rc));
}

/* "1200 sampled_out, 2 first_of_config": the launches the view covers by reason; total in *n. */
static char *
reason_counts(struct view *v, long long *n)
{
    sqlite3_stmt *st = NULL;
    char *s = xstrdup("");
    *n = 0;
    if (tui_prepare(v->db,
                    "SELECT profile_reason, count(*) FROM launch"
                    " WHERE kernel_id = ?1 AND (?2 < 0 OR config_id = ?2)"
                    " GROUP BY profile_reason ORDER BY count(*) DESC, profile_reason",
                    &st))
        return s;
    sqlite3_bind_int64(st, 1, v->id);
    sqlite3_bind_int64(st, 2, v->id2);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *reason = (const char *)sqlite3_column_text(st, 0);
        long long c = sqlite3_column_int64(st, 1);
        char *shown = xsanitize(reason ? reason : "unknown", 64);
        char *next = xasprintf("%s%s%lld %s", s, *n ? ", " : "", c, shown);
        free(shown);
        free(s);
        s = next;
        *n += c;
    }
    sqlite3_finalize(st);
    return s;
}

/* ------------------------------------------------------------------ */
/* The table                                                           */
/* ------------------------------------------------------------------ */

/*
 * The columns that decide the verdict come first, so that they stay on an
 * 80-column screen; the metric set, whose length has no bound, after them.
 */
enum {
    P_TIE,
    P_LAUNCH,
    P_INDEX,
    P_REASON,
    P_INST,
    P_GLD,
    P_GST,
    P_DURATION,
    P_SET,
    P_PASSES,
    P_OVERHEAD,
    P_VERSUS,
    P_NCOLS
};

static const struct {
    const char *title;
    bool right;
} cols[P_NCOLS] = {
    [P_TIE] = {"Tie", false},          [P_LAUNCH] = {"Launch", true},
    [P_INDEX] = {"Index", true},       [P_REASON] = {"Reason", false},
    [P_INST] = {"Warp inst", true},    [P_GLD] = {"Ld sectors", true},
    [P_GST] = {"St sectors", true},    [P_DURATION] = {"Duration", true},
    [P_SET] = {"Set", false},          [P_PASSES] = {"Passes", true},
    [P_OVERHEAD] = {"Overhead", true}, [P_VERSUS] = {"Against ref", false},
};

/* Load + store sectors as the rule adds them: NAN only when neither was recorded. */
static double
sectors(const struct prof *r)
{
    if (isnan(r->gld_sectors) && isnan(r->gst_sectors))
        return NAN;
    return (isnan(r->gld_sectors) ? 0 : r->gld_sectors) +
           (isnan(r->gst_sectors) ? 0 : r->gst_sectors);
}

static void
pct_change(char *buf, size_t n, const char *what, double x, double ref)
{
    if (isnan(x) || isnan(ref))
        snprintf(buf, n, "%s -", what);
    else if (ref == 0)
        snprintf(buf, n, "%s %.0f (ref 0)", what, x);
    else
        snprintf(buf, n, "%s %+.1f%%", what, 100 * (x - ref) / ref);
}

static void
cell(const struct profiles_priv *p, const struct prof *r, int col, char *buf, size_t n)
{
    snprintf(buf, n, "-");
    switch (col) {
    case P_TIE:
        if (r->set_aside)
            snprintf(buf, n, "aside");
        else if (r->tie_launch_id == r->launch_id)
            snprintf(buf, n, "ref");
        else if (r->tie_launch_id >= 0)
            snprintf(buf, n, "same");
        break;
    case P_LAUNCH:
        snprintf(buf, n, "%lld", r->launch_id);
        break;
    case P_INDEX:
        if (!isnan(r->index))
            snprintf(buf, n, "%.0f", r->index);
        break;
    case P_REASON:
        snprintf(buf, n, "%s", r->reason);
        break;
    case P_SET:
        snprintf(buf, n, "%s", r->set);
        break;
    case P_PASSES:
        if (!isnan(r->passes))
            snprintf(buf, n, "%.0f", r->passes);
        break;
    case P_OVERHEAD:
        if (!isnan(r->overhead_ns))
            snprintf(buf, n, "%.1f ms", r->overhead_ns / 1e6);
        break;
    case P_INST:
        fmt_count(buf, n, r->inst);
        break;
    case P_GLD:
        fmt_count(buf, n, r->gld_sectors);
        break;
    case P_GST:
        fmt_count(buf, n, r->gst_sectors);
        break;
    case P_DURATION:
        fmt_ns(buf, n, r->duration_ns);
        break;
    case P_VERSUS: {
        const struct prof *ref = r->set_aside && r->ref >= 0 ? &p->r[r->ref] : NULL;
        if (!ref) {
            snprintf(buf, n, "%s", r->set_aside ? "?" : "");
            break;
        }
        char a[48], b[48];
        pct_change(a, sizeof(a), "instructions", r->inst, ref->inst);
        pct_change(b, sizeof(b), "sectors", sectors(r), sectors(ref));
        snprintf(buf, n, "%s, %s", a, b);
        break;
    }
    }
}

static void
add_cells(struct tline *l, const int *w, const char *const *text, enum line_type t)
{
    line_add(l, LINE_DEFAULT, 0, "  ");
    for (int c = 0; c < P_NCOLS; c++) {
        if (cols[c].right) {
            line_add_right(l, t, w[c], text[c]);
            line_add(l, t, 0, "  ");
        } else
            line_add(l, t, w[c] + 1, "%s", text[c]);
    }
}

static void
add_config_line(struct view *v, const struct prof *r)
{
    struct tline *l;
    if (r->config_id < 0) {
        view_printf(v, LINE_LABEL, "Config unknown");
        return;
    }
    char launches[32];
    fmt_count(launches, sizeof(launches), r->config_launches);
    l = view_printf(v, LINE_LABEL,
                    "Config %lld: grid %lldx%lldx%lld, block %lldx%lldx%lld, %lld B dynamic shared"
                    " memory; %s launches",
                    r->config_id, r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1],
                    r->block[2], r->smem_bytes, launches);
    l->target = TARGET_KERNEL;
    l->id = v->id;
    l->id2 = r->config_id;
}

static void
add_table(struct view *v, struct profiles_priv *p)
{
    int w[P_NCOLS];
    char buf[P_NCOLS][160];
    const char *text[P_NCOLS];
    for (int c = 0; c < P_NCOLS; c++) {
        w[c] = text_width(cols[c].title);
        text[c] = buf[c];
    }
    for (size_t i = 0; i < p->n; i++)
        for (int c = 0; c < P_NCOLS; c++) {
            cell(p, &p->r[i], c, buf[c], sizeof(buf[c]));
            int cw = text_width(buf[c]);
            w[c] = cw > w[c] ? cw : w[c];
        }
    const char *titles[P_NCOLS];
    for (int c = 0; c < P_NCOLS; c++)
        titles[c] = cols[c].title;
    add_cells(view_add_line(v), w, titles, LINE_HEADER);
    for (size_t i = 0; i < p->n; i++) {
        const struct prof *r = &p->r[i];
        if (i == 0 || r->config_id != p->r[i - 1].config_id)
            add_config_line(v, r);
        for (int c = 0; c < P_NCOLS; c++)
            cell(p, r, c, buf[c], sizeof(buf[c]));
        add_cells(view_add_line(v), w, text, r->set_aside ? LINE_WARNING : LINE_DEFAULT);
    }
}

/* ------------------------------------------------------------------ */
/* The view                                                            */
/* ------------------------------------------------------------------ */

static int
profiles_open(struct view *v)
{
    struct profiles_priv *p = v->priv;
    if (!p)
        p = v->priv = xcalloc(1, sizeof(*p));
    priv_clear(p);
    int found = view_kernel_title(v, &p->name, LABEL);
    if (found <= 0)
        return found;
    if (load_profiles(v, p))
        return -1;
    long long launches;
    char *counts = reason_counts(v, &launches);
    const char *of = v->id2 >= 0 ? "this configuration" : "this kernel";
    if (p->n == 0) {
        /* The table would be empty: say why instead (the report prints it as a note). */
        free(v->message);
        v->message = launches == 1
                         ? xasprintf("the one launch of %s was not profiled: %s", of, counts)
                     : launches ? xasprintf("none of the %lld launches of %s was profiled: %s",
                                            launches, of, counts)
                                : xasprintf("%s has no launch in the report", of);
        free(counts);
        return 0;
    }
    size_t aside = 0, configs = 0;
    for (size_t i = 0; i < p->n; i++) {
        aside += p->r[i].set_aside;
        configs += i == 0 || p->r[i].config_id != p->r[i - 1].config_id;
    }
    char total[32];
    fmt_count(total, sizeof(total), (double)launches);
    view_printf(v, LINE_DEFAULT,
                "%-*s %zu of %s launches profiled, in %zu configuration%s; %zu set aside", LABEL,
                "Profiles", p->n, total, configs, configs == 1 ? "" : "s", aside);
    view_printf(v, LINE_DEFAULT, "%s", "");
    add_table(v, p);
    view_printf(v, LINE_DEFAULT, "%s", "");
    view_printf(v, LINE_DEFAULT, "launches: %s", counts);
    free(counts);
    view_printf(v, LINE_DEFAULT, "%s", "");
    view_printf(v, LINE_DIM, "Tie: ref = the configuration's first profile with tie counters;");
    view_printf(v, LINE_DIM, "  same = the same work as ref (warp instructions and global sectors");
    view_printf(v, LINE_DIM,
                "  within 1 %%); aside = other work: left out of the kernel view's means;");
    view_printf(v, LINE_DIM, "  - = no tie counters, kept. Enter on a Config line opens it.");
    return 0;
}

static void
profiles_title(struct view *v, char *buf, size_t n)
{
    struct profiles_priv *p = v->priv;
    const char *name = p && p->name ? p->name : "?";
    if (v->id2 >= 0)
        snprintf(buf, n, "Profiles of %s, configuration %lld", name, v->id2);
    else
        snprintf(buf, n, "Profiles of %s", name);
}

static void
profiles_done(struct view *v)
{
    if (v->priv)
        priv_clear(v->priv);
    free(v->priv);
    v->priv = NULL;
}

const struct view_ops profiles_ops = {
    .name = "profiles",
    .open = profiles_open,
    .title = profiles_title,
    .done = profiles_done,
};
