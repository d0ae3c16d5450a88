/* SPDX-License-Identifier: MIT */
/*
 * engines: which counter engines a report's run asked for and what each
 * did (docs/collector.md "Counter engines"), for the summary (TUI and
 * `gpuhier report`) and the JSON export. The collector's word is meta
 * 'engines', 'engine_range_profiler' and 'engine_instrumentation'
 * (schema.sql); a report recorded before those keys, or one whose program
 * did not exit cleanly, gets the state told from its tables (profile and
 * inst_launch rows, run.mode, run.profiling_limited) and says it was
 * derived. The launch counts always come from the tables.
 */
#include "export/export.h"
#include "export/sanitize.h"
#include "schema/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One number from `sql` (0 when it fails or gives none: the table may be absent). */
static long
count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long v = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* A text column of run, new string or NULL. */
static char *
run_text(sqlite3 *db, const char *col)
{
    char sql[96];
    snprintf(sql, sizeof(sql), "SELECT %s FROM run ORDER BY id LIMIT 1", col);
    sqlite3_stmt *st = NULL;
    char *v = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

int
export_engines_load(sqlite3 *db, struct export_engines *x)
{
    memset(x, 0, sizeof(*x));
    struct export_engine *rp = &x->e[0], *in = &x->e[1];
    rp->name = "range profiler";
    in->name = "instrumentation";
    rp->launches = count(db, "SELECT count(*) FROM profile");
    rp->configs = count(db, "SELECT count(DISTINCT l.config_id) FROM profile p JOIN launch l "
                            "ON l.id = p.launch_id");
    int graphs = store_has_column(db, "inst_launch", "graph_corr") == 1;
    in->launches = count(db, graphs ? "SELECT count(*) FROM inst_launch WHERE graph_corr IS NULL"
                                    : "SELECT count(*) FROM inst_launch");
    in->configs = count(db, "SELECT count(DISTINCT config_id) FROM inst_launch");
    in->graph_launches =
        graphs ? count(db, "SELECT count(DISTINCT graph_corr) FROM inst_launch") : 0;
    char *asked = store_meta_get(db, "engines");
    char *s_rp = store_meta_get(db, "engine_range_profiler");
    char *s_in = store_meta_get(db, "engine_instrumentation");
    if (!asked) {
        /* before the keys (or no clean exit): what the tables say */
        char *mode = run_text(db, "mode"), *lim = run_text(db, "profiling_limited");
        int trace = mode && !strcmp(mode, "trace");
        x->derived = 1;
        asked = strdup(trace                          ? "none (trace mode)"
                       : in->launches && rp->launches ? "instrumentation + range profiler"
                       : in->launches                 ? "instrumentation"
                                                      : "range profiler");
        if (!s_rp) {
            size_t n = (lim ? strlen(lim) : 0) + 64;
            s_rp = malloc(n);
            if (s_rp)
                snprintf(s_rp, n, "%s%s",
                         trace          ? "not used: trace mode"
                         : rp->launches ? "ran"
                         : lim          ? "off: "
                                        : "idle",
                         !trace && !rp->launches && lim ? lim : "");
        }
        if (!s_in)
            s_in = strdup(in->launches ? "ran" : "not used");
        free(mode);
        free(lim);
    }
    x->asked = sanitize_text(asked, 200);
    rp->state = sanitize_text(s_rp ? s_rp : "unknown", SANITIZE_DEFAULT_MAX);
    in->state = sanitize_text(s_in ? s_in : "unknown", SANITIZE_DEFAULT_MAX);
    free(asked);
    free(s_rp);
    free(s_in);
    return 0;
}

void
export_engines_release(struct export_engines *x)
{
    if (!x)
        return;
    free(x->asked);
    for (size_t i = 0; i < 2; i++)
        free(x->e[i].state);
    memset(x, 0, sizeof(*x));
}

char *
export_engine_line(const struct export_engine *e)
{
    char served[160], graphs[64] = "";
    if (e->graph_launches)
        snprintf(graphs, sizeof(graphs), " and %ld graph launch%s", e->graph_launches,
                 e->graph_launches == 1 ? "" : "es");
    snprintf(served, sizeof(served), "%ld launch%s%s (%ld configuration%s)", e->launches,
             e->launches == 1 ? "" : "es", graphs, e->configs, e->configs == 1 ? "" : "s");
    const char *st = e->state ? e->state : "unknown";
    /* "ran: 12 launches" from the collector: the tables' count replaces its own */
    int ran = !strncmp(st, "ran", 3) && (!st[3] || st[3] == ':');
    size_t n = strlen(e->name) + strlen(st) + sizeof(served) + 32;
    char *out = malloc(n);
    if (!out)
        abort();
    if (ran)
        snprintf(out, n, "%s: ran on %s", e->name, served);
    else if (e->launches || e->graph_launches)
        snprintf(out, n, "%s: %s; it served %s", e->name, st, served);
    else
        snprintf(out, n, "%s: %s", e->name, st);
    return out;
}
