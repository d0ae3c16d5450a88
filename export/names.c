/* SPDX-License-Identifier: MIT */
/*
 * names: every kernel's name by the one naming rule (export/kname.h),
 * made unique over all the kernels of the report, not only those a
 * filter kept, so a name means the same kernel in every view, export
 * and selection. Two ways in: ex_display_names() for the exporters'
 * loaded report, and the SQL function gh_kname(kernel_id) for readers
 * that select names in SQL (the TUI, report, analyze's table).
 */
#include "export/export.h"
#include "export/export_int.h"
#include "export/kname.h"
#include "export/sanitize.h"
#include "schema/store.h"

#include <stdlib.h>
#include <string.h>

struct knames {
    size_t n;
    long long *ids; /* ascending */
    char **names;   /* sanitized, owned; an entry is NULL when out of memory */
    int is_loaded;
};

static void
knames_release(struct knames *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->names[i]);
    free(k->names);
    free(k->ids);
    memset(k, 0, sizeof(*k));
}

/* Reads and names every kernel. Returns 0, or -1 (store_error()) with k empty. */
static int
knames_load(sqlite3 *db, struct knames *k)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    char **dem = NULL, **man = NULL;
    int ret = -1, rc;
    k->is_loaded = 1;
    if (store_prepare(db, "SELECT id, demangled_name, mangled_name FROM kernel ORDER BY id", &st))
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (k->n == cap) {
            cap = cap ? 2 * cap : 64;
            long long *ids = realloc(k->ids, cap * sizeof(*ids));
            char **d = realloc(dem, cap * sizeof(*d)), **m = realloc(man, cap * sizeof(*m));
            k->ids = ids ? ids : k->ids;
            dem = d ? d : dem;
            man = m ? m : man;
            if (!ids || !d || !m) {
                store_set_error("out of memory naming kernels");
                goto out;
            }
        }
        const char *d = (const char *)sqlite3_column_text(st, 1);
        const char *m = (const char *)sqlite3_column_text(st, 2);
        k->ids[k->n] = sqlite3_column_int64(st, 0);
        dem[k->n] = d ? strdup(d) : NULL;
        man[k->n] = m ? strdup(m) : NULL;
        k->n++;
    }
    if (rc != SQLITE_DONE) {
        store_fail(db, rc, "cannot read kernel names");
        goto out;
    }
    k->names = calloc(k->n ? k->n : 1, sizeof(*k->names));
    if (!k->names ||
        kname_unique(k->n, (const char *const *)dem, (const char *const *)man, k->ids, k->names)) {
        store_set_error("out of memory naming kernels");
        goto out;
    }
    for (size_t i = 0; i < k->n; i++) {
        /* The raw names came from the report: sanitize what is shown. */
        char *s = k->names[i] ? sanitize_text(k->names[i], EX_NAME_MAX) : NULL;
        free(k->names[i]);
        k->names[i] = s;
    }
    ret = 0;
out:
    sqlite3_finalize(st);
    for (size_t i = 0; i < k->n; i++) {
        free(dem ? dem[i] : NULL);
        free(man ? man[i] : NULL);
    }
    free(dem);
    free(man);
    if (ret) {
        if (!k->names)
            k->n = 0;
        knames_release(k);
        k->is_loaded = 1;
    }
    return ret;
}

static const char *
knames_find(const struct knames *k, long long id)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->n && k->ids[lo] == id ? k->names[lo] : NULL;
}

int
ex_display_names(sqlite3 *db, struct ex_report *r)
{
    struct knames k = {0};
    if (knames_load(db, &k))
        return -1;
    int ret = 0;
    for (size_t i = 0; i < r->n; i++) {
        const char *s = r->f[i].kernel_id >= 0 ? knames_find(&k, r->f[i].kernel_id) : NULL;
        if (s && !(r->f[i].display_name = strdup(s)))
            ret = store_set_error("out of memory naming kernels");
    }
    for (size_t i = 0; i < r->n_kernels; i++) {
        const char *s = knames_find(&k, r->kernels[i].id);
        if (s && !(r->kernels[i].display_name = strdup(s)))
            ret = store_set_error("out of memory naming kernels");
    }
    knames_release(&k);
    return ret;
}

/* ------------------------------------------------------------------ */
/* gh_kname(kernel_id)                                                  */

static void
knames_free(void *p)
{
    if (p)
        knames_release(p);
    free(p);
}

static void
gh_kname(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    struct knames *k = sqlite3_user_data(ctx);
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
        return;
    /* Loaded on first use; a failure leaves every name NULL, and callers coalesce. */
    if (!k->is_loaded)
        knames_load(sqlite3_context_db_handle(ctx), k);
    const char *s = knames_find(k, sqlite3_value_int64(argv[0]));
    if (s)
        sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
}

int
export_names_register(sqlite3 *db)
{
    struct knames *k = calloc(1, sizeof(*k));
    if (!k)
        return store_set_error("out of memory registering gh_kname");
    int rc = sqlite3_create_function_v2(db, "gh_kname", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, k,
                                        gh_kname, NULL, NULL, knames_free);
    return rc == SQLITE_OK ? 0 : store_set_error("cannot register gh_kname");
}
