/* SPDX-License-Identifier: MIT */
/*
 * exact: a kernel's exact per-instruction counts (the instrumentation
 * engine's, schema.sql v_inst_config), summed over its configurations, for
 * the memory-hierarchy rows of the kernel view (TUI, `gpuhier report`) and
 * of the HTML page: both readers say the same thing of a tier the rules
 * judged on exact counts (the HTML page read "no global loads measured"
 * beside the TUI's "18.0 sectors/load (ideal 4.0, exact)", and both
 * "shared not measured" beside a 32-way bank-conflict finding).
 */
#include "export/export.h"
#include "schema/store.h"
#include "schema/store_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
export_exact_counts(sqlite3 *db, long long kernel_id, struct export_exact *x)
{
    x->gld_sectors = x->gld_ideal = x->gld_inst = NAN;
    x->shared_wavefronts = x->shared_ideal = x->shared_inst = x->instructions = NAN;
    if (store_user_version(db) < 2)
        return 0; /* no per-instruction counts before schema version 2 */
    /*
     * Only this kernel's launches are pivoted (store_inst_query()). An
     * ideal missing on an instruction leaves the sums of its kind unknown.
     */
    char *sql = store_inst_query(
        "kernel_id = ?1", "v_inst_config",
        "SELECT sum(CASE WHEN gld_sectors_ideal IS NOT NULL THEN gld_sectors END),"
        " sum(gld_sectors_ideal),"
        " sum(CASE WHEN gld_sectors_ideal IS NOT NULL THEN gld_inst END),"
        " sum(CASE WHEN shared_wavefronts_ideal IS NOT NULL THEN shared_wavefronts END),"
        " sum(shared_wavefronts_ideal), sum(shared_inst), sum(instructions) FROM ",
        "");
    sqlite3_stmt *st = NULL;
    int rc = sql ? store_prepare(db, sql, &st) : -1;
    free(sql);
    if (rc)
        return -1;
    sqlite3_bind_int64(st, 1, kernel_id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        double *v[] = {&x->gld_sectors,  &x->gld_ideal,   &x->gld_inst,    &x->shared_wavefronts,
                       &x->shared_ideal, &x->shared_inst, &x->instructions};
        for (int i = 0; i < 7; i++)
            *v[i] = sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
    }
    sqlite3_finalize(st);
    return 0;
}

double
export_exact_ways(const struct export_exact *x)
{
    if (isnan(x->shared_wavefronts) || isnan(x->shared_ideal) || !(x->shared_ideal > 0))
        return NAN;
    return fmin(32, fmax(1, x->shared_wavefronts / x->shared_ideal));
}

int
export_exact_no_shared(const struct export_exact *x)
{
    return x->instructions > 0 && !(x->shared_inst > 0);
}

int
export_exact_loads(const struct export_exact *x, double *per_load, double *ideal_per_load,
                   double *frac)
{
    if (isnan(x->gld_sectors) || isnan(x->gld_ideal) || !(x->gld_inst > 0) || !(x->gld_sectors > 0))
        return 0;
    *per_load = x->gld_sectors / x->gld_inst;
    *ideal_per_load = x->gld_ideal / x->gld_inst;
    *frac = fmin(1, x->gld_ideal / x->gld_sectors);
    return 1;
}
