/* SPDX-License-Identifier: MIT */
/*
 * store_view: run one of schema.sql's documented views as this build
 * defines it, whatever the report holds.
 *
 * A view added to schema.sql after a report was recorded is absent from
 * that report (schema.sql "Compatibility"), and a report's own copy of a
 * view is the definition of the build that recorded it. A reader that
 * must apply this build's rule (the analyzer's set-aside profiles,
 * v_profile) takes the view's SELECT from the compiled schema instead,
 * as a subquery: schema.sql stays the one place the rule is written, and
 * read-only connections need no temporary view (PRAGMA query_only refuses
 * to create one).
 *
 * Errors: NULL with the message in store_error(). Nothing here aborts.
 */
#ifndef GPUHIER_SCHEMA_STORE_VIEW_H
#define GPUHIER_SCHEMA_STORE_VIEW_H

/*
 * The query `head` "(" SELECT ")" `tail`, where SELECT is the body of
 * `CREATE VIEW name AS ...` in this build's schema.sql (its text after
 * AS, without the final semicolon). The view's tables are named without
 * a schema, so they resolve as in the view itself. For example
 * store_view_query("v_profile", "SELECT count(*) FROM ", " WHERE set_aside")
 * counts the profiles set aside.
 * Returns a new string (free()), or NULL when the schema has no such view
 * or memory ran out. `name`, `head` and `tail` are borrowed.
 */
char *store_view_query(const char *name, const char *head, const char *tail);

#endif
