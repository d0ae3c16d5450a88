/* SPDX-License-Identifier: MIT */
/*
 * names: the display name of every kernel a loaded report mentions, by
 * the one naming rule (export/kname.h). Uniqueness is over every kernel
 * of the report, not only those the filters kept, so a name means the
 * same kernel whatever --kernel or --rule selected.
 */
#include "export/export_int.h"
#include "export/kname.h"
#include "export/sanitize.h"
#include "schema/store.h"

#include <stdlib.h>
#include <string.h>

int
ex_display_names(sqlite3 *db, struct ex_report *r)
{
    sqlite3_stmt *st = NULL;
    int ret = -1;
    size_t n = 0, cap = 0;
    long long *ids = NULL;
    char **dem = NULL, **man = NULL, **out = NULL;
    if (store_prepare(db, "SELECT id, demangled_name, mangled_name FROM kernel ORDER BY id", &st))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            ids = realloc(ids, cap * sizeof(*ids));
            dem = realloc(dem, cap * sizeof(*dem));
            man = realloc(man, cap * sizeof(*man));
            if (!ids || !dem || !man) {
                store_set_error("out of memory naming kernels");
                goto out;
            }
        }
        const char *d = (const char *)sqlite3_column_text(st, 1);
        const char *m = (const char *)sqlite3_column_text(st, 2);
        ids[n] = sqlite3_column_int64(st, 0);
        dem[n] = d ? strdup(d) : NULL;
        man[n] = m ? strdup(m) : NULL;
        n++;
    }
    if (rc != SQLITE_DONE) {
        store_fail(db, rc, "cannot read kernel names");
        goto out;
    }
    out = calloc(n ? n : 1, sizeof(*out));
    if (!out || kname_unique(n, (const char *const *)dem, (const char *const *)man, ids, out)) {
        store_set_error("out of memory naming kernels");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        /* The raw names came from the report: sanitize what is shown. */
        char *s = sanitize_text(out[i], EX_NAME_MAX);
        free(out[i]);
        out[i] = s;
    }
    for (size_t i = 0; i < r->n; i++)
        for (size_t k = 0; k < n; k++)
            if (r->f[i].kernel_id == ids[k] && out[k])
                r->f[i].display_name = strdup(out[k]);
    for (size_t i = 0; i < r->n_kernels; i++)
        for (size_t k = 0; k < n; k++)
            if (r->kernels[i].id == ids[k] && out[k])
                r->kernels[i].display_name = strdup(out[k]);
    ret = 0;
out:
    sqlite3_finalize(st);
    for (size_t i = 0; i < n; i++) {
        free(dem[i]);
        free(man[i]);
        if (out)
            free(out[i]);
    }
    free(ids);
    free(dem);
    free(man);
    free(out);
    return ret;
}
