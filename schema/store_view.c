/* SPDX-License-Identifier: MIT */
/*
 * store_view: a documented view's SELECT, cut out of the compiled
 * schema text.
 */
#include "schema/store_view.h"

#include "schema/store.h"
#include "schema/strbuf.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where `CREATE VIEW name AS` starts a line of the schema, else NULL; *body gets what follows. */
static const char *
find_view(const char *schema, const char *name, const char **body)
{
    static const char create[] = "CREATE VIEW ";
    size_t n = strlen(name);
    for (const char *p = strstr(schema, create); p; p = strstr(p + 1, create)) {
        const char *q = p + strlen(create);
        if ((p == schema || p[-1] == '\n') && !strncmp(q, name, n) && !strncmp(q + n, " AS", 3) &&
            (q[n + 3] == '\n' || q[n + 3] == ' ')) {
            *body = q + n + 3;
            return p;
        }
    }
    return NULL;
}

char *
store_view_query(const char *name, const char *head, const char *tail)
{
    const char *schema = store_schema_sql(), *body = NULL, *end = NULL;
    const char *start = find_view(schema, name, &body);
    if (!start) {
        store_set_error("view '%s' is not in this build's schema", name);
        return NULL;
    }
    /*
     * The statement ends at its first semicolon that sqlite3_complete()
     * accepts: not one inside a comment or a string literal. So the body
     * never ends inside a comment, and the closing parenthesis is code.
     */
    struct strbuf b = STRBUF_INIT;
    for (const char *semi = strchr(body, ';'); semi && !end; semi = strchr(semi + 1, ';')) {
        b.len = 0;
        strbuf_add(&b, start, (size_t)(semi + 1 - start));
        if (b.oom)
            break;
        if (sqlite3_complete(b.p))
            end = semi;
    }
    if (end) {
        b.len = 0;
        strbuf_adds(&b, head);
        strbuf_adds(&b, "(");
        strbuf_add(&b, body, (size_t)(end - body));
        strbuf_adds(&b, ")");
        strbuf_adds(&b, tail);
    }
    if (!end || b.oom) {
        store_set_error(b.oom ? "out of memory reading view '%s'"
                              : "view '%s' has no end in this build's schema",
                        name);
        strbuf_release(&b);
        return NULL;
    }
    return b.p;
}

char *
store_groups_query(const char *head, const char *tail)
{
    /* v_config_groups reads v_profile: a CTE of this build's body shadows the report's */
    char *vp = store_view_query("v_profile", "WITH v_profile AS ", "");
    char *vg = vp ? store_view_query("v_config_groups", "", "") : NULL;
    char *sql = NULL;
    if (vp && vg) {
        size_t n = strlen(vp) + strlen(head) + strlen(vg) + strlen(tail) + 4;
        sql = malloc(n);
        if (sql)
            snprintf(sql, n, "%s %s%s%s", vp, head, vg, tail);
    }
    if (!sql)
        store_set_error("cannot read the one-pass groups' view");
    free(vp);
    free(vg);
    return sql;
}

char *
store_inst_query(const char *filter, const char *view, const char *head, const char *tail)
{
    char *inst = store_view_query("v_inst", "", "");
    char *q = inst ? store_view_query(view, head, tail) : NULL;
    char *sql = NULL;
    if (q) {
        static const char fmt[] = "WITH inst_launch AS (SELECT * FROM main.inst_launch WHERE %s),"
                                  " v_inst AS %s %s";
        size_t n = sizeof(fmt) + strlen(filter) + strlen(inst) + strlen(q);
        sql = malloc(n);
        if (sql)
            snprintf(sql, n, fmt, filter, inst, q);
        else
            store_set_error("out of memory reading view '%s'", view);
    }
    free(inst);
    free(q);
    return sql;
}

int
store_counter_coverage(sqlite3 *db, struct store_coverage *c)
{
    memset(c, 0, sizeof *c);
    sqlite3_stmt *st = NULL;
    int inst = store_query_int(db,
                               "SELECT 1 FROM sqlite_master WHERE name = 'inst_launch'"
                               " UNION SELECT 1 FROM sqlite_temp_master WHERE name = 'inst_launch'",
                               0) == 1;
    char *groups =
        store_groups_query("SELECT COUNT(*) FROM ", " WHERE groups_collected < groups_total");
    const char *pattern_inst = inst ? " OR config.id IN (SELECT config_id FROM inst_launch)" : "";
    /* kernel_summary.one_time: absent in reports analyzed before it existed */
    int onetime = store_has_column(db, "kernel_summary", "one_time") == 1;
    const char *setup = onetime ? "SELECT config_id FROM kernel_summary WHERE one_time = 1"
                                  " AND config_id IS NOT NULL"
                                : "SELECT NULL AS config_id WHERE 0";
    char *kept =
        store_view_query("v_profile", "kept AS MATERIALIZED (SELECT launch_id, config_id FROM ",
                         " WHERE set_aside = 0 AND config_id IS NOT NULL)");
    if (!groups || !kept) {
        free(groups);
        free(kept);
        return -1;
    }
    char sql[8192];
    int len = snprintf(
        sql, sizeof sql,
        "WITH %s,"
        " st AS (SELECT k.config_id, COUNT(DISTINCT n.name) AS n FROM kept k"
        "  JOIN metric m ON m.launch_id = k.launch_id JOIN metric_name n ON n.id = m.metric_id"
        "  WHERE m.value IS NOT NULL AND n.name IN (" STORE_STATE_COUNTERS ")"
        "  GROUP BY k.config_id),"
        " pt AS (SELECT DISTINCT k.config_id FROM kept k"
        "  JOIN metric m ON m.launch_id = k.launch_id JOIN metric_name n ON n.id = m.metric_id"
        "  WHERE m.value IS NOT NULL"
        "  AND n.name = 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'),"
        /* joins, not correlated subqueries: SQLite would evaluate the CTEs once per
           configuration (0.44 s on the 145 configurations of demo.db, the fuzz's timeout) */
        " wt AS (" STORE_WAITING_CONFIGS "),"
        " su AS (%s),"
        " gr AS (SELECT config_id FROM launch WHERE config_id IS NOT NULL"
        "  GROUP BY config_id HAVING MIN(graph_id IS NOT NULL) = 1),"
        " df AS (SELECT DISTINCT config_id FROM launch WHERE profile_reason = 'profile_budget'"
        "  AND config_id IS NOT NULL),"
        " cn AS (" STORE_CONFIG_NS "),"
        " cf AS (SELECT config.id, MAX(cn.ns) AS ns,"
        "  (MAX(pt.config_id) IS NOT NULL)%s AS pat,"
        "  COALESCE(MAX(st.n), 0) AS nst, MAX(wt.config_id) IS NOT NULL AS waiting,"
        "  MAX(gr.config_id) IS NOT NULL AS graph, MAX(su.config_id) IS NOT NULL AS setup,"
        "  MAX(df.config_id) IS NOT NULL AS deferred"
        "  FROM config JOIN cn ON cn.id = config.id"
        "  LEFT JOIN st ON st.config_id = config.id"
        "  LEFT JOIN pt ON pt.config_id = config.id"
        "  LEFT JOIN wt ON wt.config_id = config.id"
        "  LEFT JOIN gr ON gr.config_id = config.id"
        "  LEFT JOIN df ON df.config_id = config.id"
        "  LEFT JOIN su ON su.config_id = config.id GROUP BY config.id)"
        " SELECT COUNT(*), SUM(pat AND NOT waiting), SUM(nst > 0 AND NOT waiting),"
        "  SUM(nst >= 5 AND NOT waiting), total(CASE WHEN NOT waiting THEN ns END),"
        "  total(CASE WHEN pat AND NOT waiting THEN ns END),"
        "  total(CASE WHEN nst > 0 AND NOT waiting THEN ns END),"
        "  total(CASE WHEN nst >= 5 AND NOT waiting THEN ns END),"
        "  total(CASE WHEN waiting THEN ns END),"
        "  SUM(graph AND NOT pat AND nst = 0 AND NOT waiting),"
        "  total(CASE WHEN graph AND NOT pat AND nst = 0 AND NOT waiting THEN ns END),"
        "  SUM(setup AND NOT waiting), total(CASE WHEN NOT setup AND NOT waiting THEN ns END),"
        "  total(CASE WHEN pat AND NOT setup AND NOT waiting THEN ns END),"
        "  total(CASE WHEN nst > 0 AND NOT setup AND NOT waiting THEN ns END),"
        "  SUM(deferred AND nst = 0 AND NOT setup AND NOT waiting),"
        "  total(CASE WHEN deferred AND nst = 0 AND NOT setup AND NOT waiting THEN ns END)"
        " FROM cf",
        kept, setup, pattern_inst);
    free(kept);
    if (len < 0 || (size_t)len >= sizeof sql) {
        free(groups);
        store_set_error("the coverage query does not fit its buffer");
        return -1;
    }
    int rc = store_prepare(db, sql, &st);
    if (rc) {
        free(groups);
        return -1;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        c->configs = sqlite3_column_int64(st, 0);
        c->pattern_configs = sqlite3_column_int64(st, 1);
        c->hardware_configs = sqlite3_column_int64(st, 2);
        c->complete_configs = sqlite3_column_int64(st, 3);
        c->gpu_ns = sqlite3_column_double(st, 4);
        c->waiting_ns = sqlite3_column_double(st, 8);
        c->graph_only_configs = sqlite3_column_int64(st, 9);
        c->setup_configs = sqlite3_column_int64(st, 11);
        c->deferred_configs = sqlite3_column_int64(st, 15);
        double rep = sqlite3_column_double(st, 12);
        if (c->setup_configs > 0 && rep > 0) {
            c->repeated_ns = rep;
            c->repeated_pattern_pct = 100.0 * sqlite3_column_double(st, 13) / rep;
            c->repeated_hardware_pct = 100.0 * sqlite3_column_double(st, 14) / rep;
            /* below 1 % of the time the two pairs differ by less than a point */
            c->setup_counts = c->gpu_ns - rep >= 0.01 * c->gpu_ns;
        }
        if (c->gpu_ns > 0) {
            c->graph_only_pct = 100.0 * sqlite3_column_double(st, 10) / c->gpu_ns;
            c->deferred_pct = 100.0 * sqlite3_column_double(st, 16) /
                              (c->setup_counts ? c->repeated_ns : c->gpu_ns);
            c->deferred_counts =
                c->deferred_configs > 0 && c->deferred_pct >= STORE_DEFERRED_HINT_PCT;
            c->pattern_pct = 100.0 * sqlite3_column_double(st, 5) / c->gpu_ns;
            c->hardware_pct = 100.0 * sqlite3_column_double(st, 6) / c->gpu_ns;
            c->complete_pct = 100.0 * sqlite3_column_double(st, 7) / c->gpu_ns;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) {
        free(groups);
        return store_fail(db, rc, "reading the counters' coverage");
    }
    c->groups_partial = store_query_int(db, groups, 0);
    free(groups);
    return 0;
}
