/* SPDX-License-Identifier: MIT */
/*
 * view_nvtx: GPU time, launches and findings by NVTX range path. One
 * row per path (launch.nvtx_path and every prefix of it, and the paths
 * of the push/pop ranges of nvtx_range), so a parent's row comes before
 * its children's when sorted by path. Self counts the launches made
 * with exactly that path open; Total also those of nested ranges.
 *
 * A finding belongs to a path when launches of its kernel (its
 * configuration, when it has one) ran inside it; the time lost shown is
 * the finding's share by those launches' GPU time, an estimate: the
 * analyzer gives time lost per kernel, not per range.
 *
 * Also here: gh_nvtx_match(path, regex), the SQL function the kernels
 * and findings views filter with (a range filter, `R`, report --nvtx).
 *
 * Cost: open() reads the launch table once, grouped by (path, kernel,
 * configuration), and nvtx_range once; the other views never do.
 */
#include "tui/tui_int.h"

#include "export/export.h"
#include "schema/store.h"

#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NVTX_SEP " > "
#define NVTX_NONE "(no range)"

/* ------------------------------------------------------------------ */
/* gh_nvtx_match                                                       */
/* ------------------------------------------------------------------ */

struct nvtx_re {
    regex_t re;
    char *last; /* the last path tested and its result: launches repeat few paths */
    int last_hit;
};

static void
nvtx_re_free(void *p)
{
    struct nvtx_re *x = p;
    if (!x)
        return;
    regfree(&x->re);
    free(x->last);
    free(x);
}

/* gh_nvtx_match(path, regex): 1 when the POSIX ERE matches the path (NULL: ""), else 0. */
static void
nvtx_match_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *pat = (const char *)sqlite3_value_text(argv[1]);
    if (!pat) {
        sqlite3_result_int(ctx, 1);
        return;
    }
    struct nvtx_re *x = sqlite3_get_auxdata(ctx, 1);
    if (!x) {
        x = xcalloc(1, sizeof(*x));
        if (regcomp(&x->re, pat, REG_EXTENDED | REG_NOSUB)) {
            free(x);
            sqlite3_result_error(ctx, "bad NVTX regular expression", -1);
            return;
        }
        sqlite3_set_auxdata(ctx, 1, x, nvtx_re_free);
        x = sqlite3_get_auxdata(ctx, 1);
        if (!x) {
            sqlite3_result_error_nomem(ctx);
            return;
        }
    }
    const char *path = (const char *)sqlite3_value_text(argv[0]);
    if (!path)
        path = "";
    if (!x->last || strcmp(x->last, path)) {
        free(x->last);
        x->last = xstrdup(path);
        x->last_hit = regexec(&x->re, path, 0, NULL, 0) == 0;
    }
    sqlite3_result_int(ctx, x->last_hit);
}

int
nvtx_register(sqlite3 *db)
{
    if (sqlite3_create_function_v2(db, "gh_nvtx_match", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                   nvtx_match_fn, NULL, NULL, NULL) != SQLITE_OK)
        return store_set_error("cannot register gh_nvtx_match");
    return 0;
}

char *
nvtx_path_regex(const char *path)
{
    if (!path)
        return xstrdup("^$");
    size_t n = strlen(path);
    char *re = xmalloc(2 * n + 16), *p = re;
    *p++ = '^';
    for (const char *s = path; *s; s++) {
        if (strchr("\\^$.|?*+()[]{}", *s))
            *p++ = '\\';
        *p++ = *s;
    }
    memcpy(p, "( > |$)", 8);
    return re;
}

/* ------------------------------------------------------------------ */
/* Paths                                                               */
/* ------------------------------------------------------------------ */

struct node {
    char *path; /* raw, owned; NULL for launches outside every range */
    long long launches, self_launches, calls;
    double total_ns, self_ns, wall_ns, lost_ns;
    long long findings;
};

struct group {
    long long node, kernel_id, config_id; /* config -1: NULL */
    long long n;
    double ns;
};

struct nvtx_priv {
    struct node *nodes;
    size_t n, cap;
    size_t *slot; /* hash of path -> node index + 1 (0 empty) */
    size_t nslot;
};

/* FNV-1a of the first `len` bytes of `s`; NULL (outside every range) has its own value. */
static uint64_t
hash_path(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; s && i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return s ? h : 7;
}

static bool
same_path(const char *stored, const char *s, size_t len)
{
    if (!stored || !s)
        return stored == s;
    return !strncmp(stored, s, len) && stored[len] == '\0';
}

static void
rehash(struct nvtx_priv *p)
{
    free(p->slot);
    p->nslot = p->nslot ? p->nslot * 2 : 64;
    p->slot = xcalloc(p->nslot, sizeof(*p->slot));
    for (size_t i = 0; i < p->n; i++) {
        const char *path = p->nodes[i].path;
        size_t h = hash_path(path, path ? strlen(path) : 0) & (p->nslot - 1);
        while (p->slot[h])
            h = (h + 1) & (p->nslot - 1);
        p->slot[h] = i + 1;
    }
}

/* The node of `path` (its first `len` bytes; NULL: outside every range), added when new. */
static size_t
node_get(struct nvtx_priv *p, const char *path, size_t len)
{
    if (2 * (p->n + 1) > p->nslot)
        rehash(p);
    size_t h = hash_path(path, len) & (p->nslot - 1);
    while (p->slot[h]) {
        if (same_path(p->nodes[p->slot[h] - 1].path, path, len))
            return p->slot[h] - 1;
        h = (h + 1) & (p->nslot - 1);
    }
    char *key = path ? xmalloc(len + 1) : NULL;
    if (key) {
        memcpy(key, path, len);
        key[len] = '\0';
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        p->nodes = xrealloc(p->nodes, p->cap * sizeof(*p->nodes));
    }
    memset(&p->nodes[p->n], 0, sizeof(p->nodes[p->n]));
    p->nodes[p->n].path = key;
    p->slot[h] = p->n + 1;
    return p->n++;
}

/*
 * Calls `fn` with the node index of `path` and of each enclosing path
 * ("a > b > c", "a > b", "a"), adding the nodes that are new. By index:
 * adding a node may move p->nodes.
 */
static void
each_prefix(struct nvtx_priv *p, const char *path, void (*fn)(struct nvtx_priv *, size_t, void *),
            void *arg)
{
    size_t len = path ? strlen(path) : 0;
    for (;;) {
        size_t i = node_get(p, path, len);
        if (fn)
            fn(p, i, arg);
        const char *cut = NULL;
        for (const char *s = path; path && s + 3 <= path + len; s++)
            if (!memcmp(s, NVTX_SEP, 3))
                cut = s;
        if (!cut)
            return;
        len = (size_t)(cut - path);
    }
}

static void
add_total(struct nvtx_priv *p, size_t i, void *arg)
{
    const struct group *g = arg;
    p->nodes[i].launches += g->n;
    p->nodes[i].total_ns += g->ns;
}

struct pair {
    size_t node;
    long long finding;
};

struct finding_part {
    double lost; /* time lost to give each enclosing path */
    long long id;
    struct pair *pairs; /* (path, finding) seen, to count each finding once per path */
    size_t n, cap;
};

static void
add_finding(struct nvtx_priv *p, size_t i, void *arg)
{
    struct finding_part *f = arg;
    p->nodes[i].lost_ns += f->lost;
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 64;
        f->pairs = xrealloc(f->pairs, f->cap * sizeof(*f->pairs));
    }
    f->pairs[f->n++] = (struct pair){i, f->id};
}

static void
free_priv(struct nvtx_priv *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->nodes[i].path);
    free(p->nodes);
    free(p->slot);
    free(p);
}

/*
 * Launch groups: one per (path, kernel, configuration). The launch table
 * is read once in its own order and grouped here: SQLite's GROUP BY
 * sorts every launch first, five times slower on a million launches.
 * A profiled launch has no traced time (replayed, its activity record
 * never completes): it counts its profile's measured duration
 * (gpu__time_duration.sum), looked up only for those launches, so a short
 * program whose every launch was its configuration's first does not show
 * 0 ns everywhere (seen on the H200, docs/gpu-runs.md).
 */
static int
load_groups(struct view *v, struct nvtx_priv *p, struct group **out, size_t *ng)
{
    sqlite3_stmt *st = NULL;
    *out = NULL;
    *ng = 0;
    if (tui_prepare(v->db,
                    "SELECT l.nvtx_path, l.kernel_id, l.config_id,"
                    " CASE WHEN l.end_ns > l.start_ns THEN l.end_ns - l.start_ns"
                    " WHEN l.profiled = 1 THEN COALESCE((SELECT CAST(m.value AS INTEGER)"
                    "   FROM metric m JOIN metric_name n ON n.id = m.metric_id"
                    "   WHERE m.launch_id = l.id AND n.name = 'gpu__time_duration.sum'), 0)"
                    " ELSE 0 END FROM launch l",
                    &st))
        return -1;
    size_t cap = 0, nslot = 0, *slot = NULL, last = SIZE_MAX, last_len = 0;
    char *last_path = NULL; /* launches come in runs of one path: skip the node lookup */
    bool last_null = false;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(st, 0);
        size_t len = path ? (size_t)sqlite3_column_bytes(st, 0) : 0;
        size_t node;
        if (last != SIZE_MAX &&
            (path ? !last_null && len == last_len && !memcmp(path, last_path, len) : last_null)) {
            node = last;
        } else {
            node = node_get(p, path, len);
            free(last_path);
            last_path = path ? xmalloc(len + 1) : NULL;
            if (path)
                memcpy(last_path, path, len);
            last_null = !path;
            last_len = len;
            last = node;
        }
        long long k = sqlite3_column_int64(st, 1);
        long long c = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
        if (2 * (*ng + 1) > nslot) {
            free(slot);
            nslot = nslot ? nslot * 2 : 256;
            slot = xcalloc(nslot, sizeof(*slot));
            for (size_t i = 0; i < *ng; i++) {
                const struct group *g = &(*out)[i];
                size_t h = (size_t)((uint64_t)g->node * 31 + (uint64_t)g->kernel_id * 131071 +
                                    (uint64_t)g->config_id * 524287) &
                           (nslot - 1);
                while (slot[h])
                    h = (h + 1) & (nslot - 1);
                slot[h] = i + 1;
            }
        }
        size_t h = (size_t)((uint64_t)node * 31 + (uint64_t)k * 131071 + (uint64_t)c * 524287) &
                   (nslot - 1);
        while (slot[h]) {
            const struct group *g = &(*out)[slot[h] - 1];
            if ((size_t)g->node == node && g->kernel_id == k && g->config_id == c)
                break;
            h = (h + 1) & (nslot - 1);
        }
        if (!slot[h]) {
            if (*ng == cap) {
                cap = cap ? cap * 2 : 64;
                *out = xrealloc(*out, cap * sizeof(**out));
            }
            (*out)[*ng] = (struct group){.node = (long long)node, .kernel_id = k, .config_id = c};
            slot[h] = ++*ng;
        }
        struct group *g = &(*out)[slot[h] - 1];
        g->n++;
        g->ns += sqlite3_column_double(st, 3);
    }
    sqlite3_finalize(st);
    free(slot);
    free(last_path);
    for (size_t i = 0; i < *ng; i++) {
        struct group *g = &(*out)[i];
        p->nodes[g->node].self_launches += g->n;
        p->nodes[g->node].self_ns += g->ns;
        each_prefix(p, p->nodes[g->node].path, add_total, g);
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

struct range {
    long long id, parent; /* parent -1: outermost */
    char *name;           /* raw, owned */
    double wall_ns;       /* NaN when never closed */
    char *path;           /* built on demand, owned */
};

static int
cmp_range(const void *a, const void *b)
{
    long long x = ((const struct range *)a)->id, y = ((const struct range *)b)->id;
    return x < y ? -1 : x > y;
}

static struct range *
range_find(struct range *r, size_t n, long long id)
{
    struct range key = {.id = id};
    return bsearch(&key, r, n, sizeof(*r), cmp_range);
}

/* The path of range `r`: its ancestors' names joined as the collector joins them. */
static const char *
range_path(struct range *all, size_t n, struct range *r, int depth)
{
    if (r->path)
        return r->path;
    struct range *up = r->parent >= 0 && depth < 256 ? range_find(all, n, r->parent) : NULL;
    const char *name = r->name ? r->name : "";
    if (up && up != r) {
        const char *pp = range_path(all, n, up, depth + 1);
        r->path = xasprintf("%s" NVTX_SEP "%s", pp, name);
    } else {
        r->path = xstrdup(name);
    }
    return r->path;
}

/* Ranges of nvtx_range (push/pop: per thread, nested), counted and timed by path. */
static int
load_ranges(struct view *v, struct nvtx_priv *p)
{
    sqlite3_stmt *st = NULL;
    if (!tui_has_rows(v->db, "SELECT 1 FROM nvtx_range LIMIT 1"))
        return 0;
    if (tui_prepare(v->db,
                    "SELECT id, parent_id, name, end_ns - start_ns FROM nvtx_range"
                    " WHERE thread_id IS NOT NULL ORDER BY id",
                    &st))
        return -1;
    struct range *r = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            r = xrealloc(r, cap * sizeof(*r));
        }
        r[n++] = (struct range){
            .id = sqlite3_column_int64(st, 0),
            .parent = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1),
            .name = xstrdup((const char *)sqlite3_column_text(st, 2)),
            .wall_ns = tui_col_num(st, 3),
        };
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < n; i++) {
        const char *path = range_path(r, n, &r[i], 0);
        size_t k = node_get(p, path, strlen(path));
        p->nodes[k].calls++;
        if (!isnan(r[i].wall_ns))
            p->nodes[k].wall_ns += r[i].wall_ns;
        /* Enclosing paths get a row too, even when no launch ran there. */
        each_prefix(p, path, NULL, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        free(r[i].name);
        free(r[i].path);
    }
    free(r);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int
cmp_pair(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->finding < y->finding ? -1 : x->finding > y->finding;
}

/* Findings: each one's time lost spread over the paths its launches ran in. */
static int
load_findings(struct view *v, struct nvtx_priv *p, const struct group *g, size_t ng)
{
    sqlite3_stmt *st = NULL;
    if (!tui_has_rows(v->db, "SELECT 1 FROM analysis LIMIT 1"))
        return 0;
    if (tui_prepare(v->db,
                    "SELECT id, kernel_id, config_id, coalesce(time_lost_ns, 0) FROM finding"
                    " WHERE kernel_id IS NOT NULL AND (?1 OR " EXPORT_FINDING_SHOWN ")",
                    &st))
        return -1;
    sqlite3_bind_int(st, 1, view_show_all);
    struct finding_part f = {0};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0), k = sqlite3_column_int64(st, 1);
        long long c = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
        double lost = sqlite3_column_double(st, 3), ns = 0, n = 0;
        for (size_t i = 0; i < ng; i++) {
            if (g[i].kernel_id == k && (c < 0 || g[i].config_id == c)) {
                ns += g[i].ns;
                n += (double)g[i].n;
            }
        }
        for (size_t i = 0; i < ng; i++) {
            if (g[i].kernel_id != k || (c >= 0 && g[i].config_id != c))
                continue;
            /* By GPU time; by launch count when the launches have no times (all replayed). */
            f.lost = ns > 0 ? lost * g[i].ns / ns : n > 0 ? lost * (double)g[i].n / n : 0;
            f.id = id;
            each_prefix(p, p->nodes[g[i].node].path, add_finding, &f);
        }
    }
    sqlite3_finalize(st);
    if (f.n)
        qsort(f.pairs, f.n, sizeof(*f.pairs), cmp_pair);
    for (size_t i = 0; i < f.n; i++)
        if (i == 0 || cmp_pair(&f.pairs[i], &f.pairs[i - 1]))
            p->nodes[f.pairs[i].node].findings++;
    free(f.pairs);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* The view                                                            */
/* ------------------------------------------------------------------ */

enum { N_RANGE, N_TOTAL, N_SELF, N_SHARE, N_LAUNCHES, N_FINDINGS, N_LOST, N_CALLS };

static const struct column nvtx_cols[] = {
    [N_RANGE] = {"Range path", COL_TEXT, 0, false},
    [N_TOTAL] = {"Total", COL_NS, 8, true},
    [N_SELF] = {"Self", COL_NS, 8, true},
    [N_SHARE] = {"Share", COL_PCT, 6, true},
    [N_LAUNCHES] = {"Launches", COL_COUNT, 8, true},
    [N_FINDINGS] = {"Finds", COL_COUNT, 5, true},
    [N_LOST] = {"Lost", COL_NS, 8, true},
    [N_CALLS] = {"Calls", COL_COUNT, 5, true},
};

static void
set_num(struct value *val, double x)
{
    val->is_null = isnan(x);
    val->num = x;
}

static int
nvtx_open(struct view *v)
{
    free_priv(v->priv);
    struct nvtx_priv *p = xcalloc(1, sizeof(*p));
    v->priv = p;
    struct group *g = NULL;
    size_t ng = 0;
    int ret = -1;
    if (load_groups(v, p, &g, &ng) || load_ranges(v, p) || load_findings(v, p, g, ng))
        goto out;
    double run_ns = 0;
    for (size_t i = 0; i < ng; i++)
        run_ns += g[i].ns;
    bool analyzed = tui_has_rows(v->db, "SELECT 1 FROM analysis LIMIT 1");
    for (size_t i = 0; i < p->n; i++) {
        const struct node *nd = &p->nodes[i];
        struct row *r = view_add_row(v);
        r->id = (long long)i;
        r->target = TARGET_NVTX;
        set_num(&r->v[N_TOTAL], nd->total_ns);
        set_num(&r->v[N_SELF], nd->self_ns);
        set_num(&r->v[N_SHARE], run_ns > 0 ? nd->total_ns / run_ns * 100 : NAN);
        set_num(&r->v[N_LAUNCHES], (double)nd->launches);
        set_num(&r->v[N_FINDINGS], analyzed ? (double)nd->findings : NAN);
        set_num(&r->v[N_LOST], analyzed ? nd->lost_ns : NAN);
        set_num(&r->v[N_CALLS], nd->path ? (double)nd->calls : NAN);
        value_set_text(&r->v[N_RANGE], nd->path ? nd->path : NVTX_NONE, 0);
        if (nd->launches == 0)
            r->type = LINE_DIM;
        char wall[32], self[32];
        fmt_ns(wall, sizeof(wall), nd->wall_ns);
        fmt_count(self, sizeof(self), (double)nd->self_launches);
        char *shown = xsanitize(nd->path ? nd->path : NVTX_NONE, 0);
        if (nd->calls)
            r->note = xasprintf("%s: %s launches directly inside; %lld calls, %s on the host",
                                shown, self, nd->calls, wall);
        else
            r->note = xasprintf("%s: %s launches directly inside", shown, self);
        free(shown);
    }
    if (p->n == 0 && !v->message)
        v->message = xstrdup("no launches and no NVTX ranges in this report");
    else if (p->n == 1 && !p->nodes[0].path && !v->message)
        v->message = xstrdup("no NVTX ranges: no launch ran inside one");
    ret = 0;
out:
    free(g);
    return ret;
}

static void
nvtx_title(struct view *v, char *buf, size_t n)
{
    snprintf(buf, n, "NVTX ranges (%zu)", v->nrows);
}

static void
nvtx_done(struct view *v)
{
    free_priv(v->priv);
    v->priv = NULL;
}

char *
nvtx_view_regex(struct view *v, long long id)
{
    const struct nvtx_priv *p = v->priv;
    if (!p || id < 0 || (size_t)id >= p->n)
        return NULL;
    return nvtx_path_regex(p->nodes[id].path);
}

const struct view_ops nvtx_ops = {
    .name = "nvtx",
    .open = nvtx_open,
    .title = nvtx_title,
    .done = nvtx_done,
    .cols = nvtx_cols,
    .ncols = sizeof(nvtx_cols) / sizeof(nvtx_cols[0]),
    .default_sort = N_RANGE,
};
