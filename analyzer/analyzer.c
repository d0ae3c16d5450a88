/* SPDX-License-Identifier: MIT */
/*
 * analyzer: stub until the rule engine lands (issue 5). It loads nothing
 * and writes nothing, so readers can link against the interface now.
 */
#include "analyzer/analyzer.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[1024];
static _Thread_local enum analyzer_failure last_failure;

const char *
analyzer_error(void)
{
    return last_error;
}

enum analyzer_failure
analyzer_failure(void)
{
    return last_failure;
}

static int
fail(enum analyzer_failure f, const char *msg)
{
    last_failure = f;
    snprintf(last_error, sizeof(last_error), "%s", msg);
    return -1;
}

int
analyzer_analyze(sqlite3 *db, const struct analyzer_opts *o)
{
    (void)db;
    (void)o;
    return fail(ANALYZER_ERR_INTERNAL, "analyzer not implemented yet");
}

int
analyzer_open_report(const char *path, const struct analyzer_opts *o, sqlite3 **out)
{
    (void)path;
    (void)o;
    *out = NULL;
    return fail(ANALYZER_ERR_INTERNAL, "analyzer not implemented yet");
}

int
analyzer_print_top(sqlite3 *db, FILE *f, int n)
{
    (void)db;
    (void)f;
    (void)n;
    return 0;
}

char *
analyzer_ruleset_version(const struct analyzer_opts *o)
{
    (void)o;
    return strdup("stub");
}

char *
analyzer_default_rules_dir(void)
{
    return NULL;
}

struct ruleset *
ruleset_load(const char *dir)
{
    (void)dir;
    fail(ANALYZER_ERR_RULES, "rule loading not implemented yet");
    return NULL;
}

const struct rule *
ruleset_find(const struct ruleset *rs, const char *id)
{
    (void)rs;
    (void)id;
    return NULL;
}

void
ruleset_free(struct ruleset *rs)
{
    (void)rs;
}
