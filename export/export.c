/* SPDX-License-Identifier: MIT */
/* export: placeholder entry points until the writers land. */
#include "export/export.h"
#include "schema/store.h"

#include <string.h>

int
export_severity_rank(const char *severity)
{
    if (!severity)
        return 0;
    if (!strcmp(severity, "note"))
        return 1;
    if (!strcmp(severity, "warning"))
        return 2;
    if (!strcmp(severity, "error"))
        return 3;
    return 0;
}

int
export_write(sqlite3 *db, const struct export_opts *o, FILE *out)
{
    (void)db;
    (void)o;
    (void)out;
    return store_set_error("export is not implemented yet");
}

int
export_md_dir(sqlite3 *db, const struct export_opts *o, const char *dir, FILE *list)
{
    (void)db;
    (void)o;
    (void)dir;
    (void)list;
    return store_set_error("export is not implemented yet");
}

char *
export_redact_argv(const char *argv_json)
{
    return argv_json ? strdup(argv_json) : NULL;
}

char *
export_repro_command(sqlite3 *db, int redact)
{
    (void)db;
    (void)redact;
    return NULL;
}
