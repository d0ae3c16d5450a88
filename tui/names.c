/* SPDX-License-Identifier: MIT */
/*
 * names: the SQL function gh_kname(kernel_id) the views select kernel
 * names with, so every list, detail and message shows the one naming
 * rule of export/kname.h (short, unique in the report) with no change
 * to the rows the queries return. The names are computed once, on the
 * first call, over every kernel of the report.
 */
#include "tui/tui_int.h"

#include "export/kname.h"
#include "export/sanitize.h"
#include "schema/store.h"

#include <stdlib.h>
#include <string.h>

struct knames {
    size_t n;
    long long *ids;
    char **names; /* sanitized, owned */
    int is_loaded;
};

static void
knames_free(void *p)
{
    struct knames *k = p;
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++)
        free(k->names[i]);
    free(k->names);
    free(k->ids);
    free(k);
}

/* Reads every kernel's names and makes them unique; on failure no names (NULL results). */
static void
knames_load(sqlite3 *db, struct knames *k)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    char **dem = NULL, **man = NULL;
    k->is_loaded = 1;
    if (store_prepare(db, "SELECT id, demangled_name, mangled_name FROM kernel ORDER BY id", &st))
        return;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (k->n == cap) {
            cap = cap ? 2 * cap : 64;
            k->ids = xrealloc(k->ids, cap * sizeof(*k->ids));
            dem = xrealloc(dem, cap * sizeof(*dem));
            man = xrealloc(man, cap * sizeof(*man));
        }
        const char *d = (const char *)sqlite3_column_text(st, 1);
        const char *m = (const char *)sqlite3_column_text(st, 2);
        k->ids[k->n] = sqlite3_column_int64(st, 0);
        dem[k->n] = d ? xstrdup(d) : NULL;
        man[k->n] = m ? xstrdup(m) : NULL;
        k->n++;
    }
    sqlite3_finalize(st);
    k->names = xcalloc(k->n ? k->n : 1, sizeof(*k->names));
    if (kname_unique(k->n, (const char *const *)dem, (const char *const *)man, k->ids, k->names))
        memset(k->names, 0, k->n * sizeof(*k->names));
    for (size_t i = 0; i < k->n; i++) {
        if (k->names[i]) {
            char *s = sanitize_text(k->names[i], 4096);
            free(k->names[i]);
            k->names[i] = s;
        }
        free(dem[i]);
        free(man[i]);
    }
    free(dem);
    free(man);
}

static void
gh_kname(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    struct knames *k = sqlite3_user_data(ctx);
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
        return;
    if (!k->is_loaded)
        knames_load(sqlite3_context_db_handle(ctx), k);
    long long id = sqlite3_value_int64(argv[0]);
    /* Ids are ascending: a binary search. */
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < k->n && k->ids[lo] == id && k->names[lo])
        sqlite3_result_text(ctx, k->names[lo], -1, SQLITE_TRANSIENT);
}

int
tui_names_register(sqlite3 *db)
{
    struct knames *k = xcalloc(1, sizeof(*k));
    int rc = sqlite3_create_function_v2(db, "gh_kname", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, k,
                                        gh_kname, NULL, NULL, knames_free);
    return rc == SQLITE_OK ? 0 : store_set_error("cannot register gh_kname");
}
