/* SPDX-License-Identifier: MIT */
/*
 * catalogue: lookups in the generated tables (catalogue_data.c).
 * The trigger evaluator is catalogue_eval.c, apart, so the generator can
 * check triggers before the tables exist.
 */
#include "schema/catalogue.h"

#include <string.h>

const struct catalogue_metric *
catalogue_find(const char *name)
{
    for (size_t i = 0; name && i < catalogue_nmetrics; i++)
        if (!strcmp(catalogue_metrics[i].name, name))
            return &catalogue_metrics[i];
    return NULL;
}

const struct catalogue_metric *
catalogue_find_column(const char *column)
{
    for (size_t i = 0; column && i < catalogue_nmetrics; i++)
        if (catalogue_metrics[i].column && !strcmp(catalogue_metrics[i].column, column))
            return &catalogue_metrics[i];
    return NULL;
}

int
catalogue_collected(const char *name)
{
    const struct catalogue_metric *m = catalogue_find(name);
    return m && m->sets != 0;
}

int
catalogue_is_patched(const char *name)
{
    const struct catalogue_metric *m = catalogue_find(name);
    return m ? !strcmp(m->engine, "sass") : name && strstr(name, "__sass_") != NULL;
}

int
catalogue_values_lookup(void *ctx, const char *name, size_t len, double *v)
{
    const struct catalogue_values *cv = ctx;
    char buf[160];
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, name, len);
    buf[len] = '\0';
    const struct catalogue_metric *m = catalogue_find_column(buf);
    if (!m)
        m = catalogue_find(buf);
    if (!m || (cv->core_only && !(m->sets & CATALOGUE_SET_CORE)))
        return -1;
    for (size_t i = 0; i < cv->n; i++)
        if (cv->names[i] && !strcmp(cv->names[i], m->name)) {
            *v = cv->values[i];
            return 1;
        }
    return 0;
}
