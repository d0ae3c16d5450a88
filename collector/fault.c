/* SPDX-License-Identifier: MIT */
/* fault: the GPUHIER_FAULT list, parsed without allocation. */
#include "collector/fault.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int
fault_find(const char *list, const char *site, struct fault_entry *e)
{
    if (!list || !*list || !site)
        return 0;
    size_t sl = strlen(site);
    int k = 0;
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL, k++) {
        if (strncmp(p, site, sl) || p[sl] != ':')
            continue;
        const char *err = p + sl + 1;
        size_t el = strcspn(err, ",:");
        *e = (struct fault_entry){.error = err, .error_len = el, .index = k};
        if (err[el] == ':') {
            const char *num = err + el + 1;
            char *end;
            long n = strtol(num, &end, 10);
            if (end != num && (!*end || *end == ',')) {
                e->has_count = 1;
                e->count = n;
            }
        }
        return 1;
    }
    return 0;
}

int
fault_take(const char *site, struct fault_entry *e)
{
    static atomic_long calls[16];
    if (!fault_find(getenv("GPUHIER_FAULT"), site, e))
        return 0;
    if (e->has_count && e->index < (int)(sizeof(calls) / sizeof(calls[0])) &&
        atomic_fetch_add(&calls[e->index], 1) >= e->count)
        return 0;
    return 1;
}
