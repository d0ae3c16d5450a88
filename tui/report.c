/* SPDX-License-Identifier: MIT */
/*
 * report: the TUI's views as plain text (`gpuhier report --view V`).
 * It opens the very same views as the browser and writes their rows
 * with the same draw code, without curses: one source of rows, two
 * outputs.
 */
#include "tui/tui_int.h"

#include "export/export.h"

#include "export/sanitize.h"
#include "schema/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Steps `st` (rows of id, name) and keeps the first id in *id; returns
 * the number of rows and lists the first eight in `list` as
 * "'name' (id N)", sanitized, then how many more there are.
 */
static int
candidates(sqlite3_stmt *st, long long *id, char *list, size_t size)
{
    int n = 0;
    size_t len = 0;
    list[0] = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        long long k = sqlite3_column_int64(st, 0);
        if (n++ == 0)
            *id = k;
        if (n > 8)
            continue;
        char buf[320];
        sanitize_into(buf, sizeof(buf), (const char *)sqlite3_column_text(st, 1));
        int w = snprintf(list + len, size - len, "%s'%s' (id %lld)", n > 1 ? ", " : "", buf, k);
        if (w > 0 && (size_t)w < size - len)
            len += (size_t)w;
    }
    sqlite3_finalize(st);
    if (n > 8)
        snprintf(list + len, size - len, " and %d more", n - 8);
    return n;
}

/* Rows of (id, name as listed): the kernels, with gh_kname's name and its base without "<…>". */
#define NAMED_KERNELS                                                                              \
    "WITH n AS (SELECT id, coalesce(gh_kname(id), short_name, demangled_name, mangled_name) AS d," \
    " demangled_name, mangled_name FROM kernel),"                                                  \
    " b AS (SELECT *, CASE WHEN instr(d, '<') > 0 THEN substr(d, 1, instr(d, '<') - 1)"            \
    " WHEN instr(d, ' #') > 0 THEN substr(d, 1, instr(d, ' #') - 1) ELSE d END AS base FROM n) "

/*
 * Kernel id for a name, tried in order: an id ("12" or "#12"), an exact
 * demangled or mangled name, the name the lists show (export/kname.h's
 * rule: unique in the report), that name without its template part
 * ("at::native::reduce_kernel") or also without its namespaces
 * ("reduce_kernel"), else a unique part of the listed, demangled or
 * mangled name. When several kernels match, the error lists them as
 * they are listed, with their ids, either of which picks one.
 */
static int
find_kernel(sqlite3 *db, const char *name, long long *id)
{
    sqlite3_stmt *st = NULL;
    char shown[256], list[4096];
    sanitize_into(shown, sizeof(shown), name);
    const char *digits = name[0] == '#' ? name + 1 : name;
    if (*digits && strspn(digits, "0123456789") == strlen(digits)) {
        long long k = strtoll(digits, NULL, 10);
        if (!isnan(tui_query_num(db, "SELECT id FROM kernel WHERE id = ?1", k))) {
            *id = k;
            return 0;
        }
    }
    if (tui_prepare(db,
                    NAMED_KERNELS "SELECT id FROM b WHERE demangled_name = ?1 OR mangled_name = ?1"
                                  " OR d = ?1 ORDER BY id LIMIT 1",
                    &st))
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (tui_prepare(db,
                    NAMED_KERNELS "SELECT id, d FROM b WHERE base = ?1 OR"
                                  " (substr(base, -length(?1)) = ?1"
                                  " AND substr(base, -length(?1) - 2, 2) = '::') ORDER BY id",
                    &st))
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int n = candidates(st, id, list, sizeof(list));
    if (n == 1)
        return 0;
    if (n > 1)
        return store_set_error("'%s' matches %d kernels: %s; give the name as listed or the id",
                               shown, n, list);
    if (tui_prepare(db,
                    NAMED_KERNELS "SELECT id, d FROM b WHERE instr(d, ?1) > 0"
                                  " OR instr(coalesce(demangled_name, '') || ' ' || mangled_name,"
                                  " ?1) > 0 ORDER BY id",
                    &st))
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    n = candidates(st, id, list, sizeof(list));
    if (n == 0)
        return store_set_error("no kernel matches '%s'", shown);
    if (n > 1)
        return store_set_error("'%s' matches %d kernels: %s; give the name as listed or the id",
                               shown, n, list);
    return 0;
}

int
tui_report(sqlite3 *db, const char *view, const char *arg, int all, FILE *out)
{
    return tui_report_nvtx(db, view, arg, all, NULL, out);
}

int
tui_report_nvtx(sqlite3 *db, const char *view, const char *arg, int all, const char *nvtx,
                FILE *out)
{
    view_show_all = all;
    const struct view_ops *ops = NULL;
    long long id = -1;
    int mode = 0;
    if (export_names_register(db) || nvtx_register(db))
        return -1;
    if (!view || !strcmp(view, "summary"))
        ops = &summary_ops;
    else if (!strcmp(view, "kernels"))
        ops = &kernels_ops;
    else if (!strcmp(view, "configs")) {
        ops = &configs_ops;
        mode = 1;
    } else if (!strcmp(view, "findings"))
        ops = &findings_ops;
    else if (!strcmp(view, "copies"))
        ops = &copies_ops;
    else if (!strcmp(view, "nvtx"))
        ops = &nvtx_ops;
    else if (!strcmp(view, "ranks"))
        ops = &ranks_ops;
    else if (!strcmp(view, "kernel") || !strcmp(view, "profiles")) {
        if (!arg)
            return store_set_error("--view %s needs a kernel name", view);
        if (find_kernel(db, arg, &id))
            return -1;
        ops = !strcmp(view, "kernel") ? &kernel_ops : &profiles_ops;
        mode = 1; /* kernel: text output lists the raw metrics too */
    } else if (!strcmp(view, "source")) {
        if (!arg)
            return store_set_error("--view source needs a kernel name");
        if (find_kernel(db, arg, &id))
            return -1;
        ops = &source_ops; /* mode 0: worst lines first */
    } else if (!strcmp(view, "finding")) {
        if (!arg)
            return store_set_error("--view finding needs a rank");
        char *end;
        long long rank = strtoll(arg, &end, 10);
        if (*end || rank < 1)
            return store_set_error("'%s' is not a finding rank", arg);
        id = tui_query_int(db, "SELECT id FROM finding WHERE rank = ?1", rank, -1);
        if (id < 0 ||
            tui_query_int(db, "SELECT count(*) FROM finding WHERE rank = ?1", rank, 0) < 1)
            return store_set_error("no finding has rank %lld", rank);
        ops = &finding_ops;
    } else {
        char shown[64];
        sanitize_into(shown, sizeof(shown), view);
        return store_set_error(
            "unknown view '%s' (summary, kernels, configs, kernel, profiles, source, findings, "
            "finding, copies, nvtx, ranks)",
            shown);
    }
    struct view *v = view_new(ops, db, id, -1);
    v->mode = mode;
    if (nvtx)
        v->nvtx = xstrdup(nvtx);
    int ret = view_load(v);
    if (ret == 0) {
        ret = view_write_text(v, out);
        if (v->message)
            fprintf(out, "note: %s\n", v->message);
    }
    view_free(v);
    return ret;
}
