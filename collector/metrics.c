/* SPDX-License-Identifier: MIT */
/*
 * metrics: metric sets and the Profiler Host API wrapper.
 *
 * Every CUPTI function is looked up with cupti_sym() so the collector has
 * no NEEDED entry on libcupti; the prototypes come from the installed
 * header through __typeof__, so a signature change breaks the build
 * instead of the call.
 *
 * Pass counts drive the cost of profiling: every pass replays the kernel
 * (kernel replay saves and restores its memory each time). The core set
 * is chosen for <= 3 passes on GH100; docs/metrics.md lists the measured
 * counts, which test_metrics recomputes offline.
 */
#include "collector/metrics.h"
#include "collector/cupti_load.h"
#include "schema/catalogue.h"

#include <cupti_profiler_host.h>
#include <cupti_result.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ sets */

/*
 * The sets are schema/metrics.catalogue's (schema/catalogue.h: generated
 * at build time): the core every sampled launch pays, the tie set, and
 * the extra groups, each in the catalogue's order. The catalogue's header
 * says why the core's order must not change.
 */

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *const *
metrics_default_set(size_t *n)
{
    *n = catalogue_ncore;
    return catalogue_core;
}

/* The catalogue's group for flag g (a single bit), or NULL. */
static const struct catalogue_group *
group_of(enum metrics_group g)
{
    for (size_t i = 0; i < catalogue_ngroups; i++)
        if ((unsigned)g == 1u << i)
            return &catalogue_groups[i];
    return NULL;
}

const char *const *
metrics_group_set(enum metrics_group g, size_t *n)
{
    const struct catalogue_group *gr = group_of(g);
    *n = gr ? gr->n : 0;
    return gr ? gr->names : NULL;
}

const char *
metrics_group_name(enum metrics_group g)
{
    const struct catalogue_group *gr = group_of(g);
    return gr ? gr->name : NULL;
}

/* Appends `sep` and `s` at buf + len (n bytes in all), cut to fit; returns the new length. */
static size_t
append(char *buf, size_t n, size_t len, const char *sep, const char *s)
{
    int w = snprintf(buf + len, n - len, "%s%s", sep, s);
    return w < 0 ? len : len + (size_t)w < n ? len + (size_t)w : n - 1;
}

size_t
metrics_set_name(const char *base, unsigned mask, char *buf, size_t n)
{
    if (!n)
        return 0;
    size_t len = append(buf, n, 0, "", base);
    for (unsigned g = 1; g <= METRICS_GROUP_ALL; g <<= 1)
        if ((mask & g) && metrics_group_name((enum metrics_group)g))
            len = append(buf, n, len, "+", metrics_group_name((enum metrics_group)g));
    return len;
}

enum metrics_group
metrics_group_from_name(const char *name)
{
    for (size_t i = 0; name && i < catalogue_ngroups; i++)
        if (!strcmp(catalogue_groups[i].name, name))
            return (enum metrics_group)(1u << i);
    return 0;
}

/* --------------------------------------------------------- policy */

/*
 * Each group's triggers are the catalogue's (docs/metrics.md "When extras
 * are collected"); the generator checked that they parse and read only
 * core metrics, so a first profile can decide them. A trigger that fails
 * here anyway (it cannot, short of a corrupt build) asks for nothing.
 */
unsigned
metrics_extras_wanted(const char *const *names, const double *values, size_t n)
{
    struct catalogue_values cv = {names, values, n, 1};
    unsigned want = 0;
    for (size_t g = 0; g < catalogue_ngroups; g++) {
        for (size_t t = 0; t < catalogue_groups[g].ntriggers; t++) {
            char err[256];
            int truth = 0;
            if (catalogue_eval(catalogue_groups[g].triggers[t], catalogue_values_lookup, &cv,
                               &truth, err, sizeof err) == 0 &&
                truth) {
                want |= 1u << g;
                break;
            }
        }
    }
    return want;
}

/* ----------------------------------------------------------- lists */

static int
list_add(char **list, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(list[i], name))
            return 0;
    list[*n] = strdup(name);
    if (!list[*n])
        return -1;
    (*n)++;
    return 0;
}

char **
metrics_list_build(unsigned mask, const char *added, size_t *n, char *err, size_t errlen)
{
    size_t cap = catalogue_ncore + catalogue_ntie + 1;
    for (size_t i = 0; i < catalogue_ngroups; i++)
        cap += catalogue_groups[i].n;
    for (const char *p = added; p && *p; p++)
        cap += *p == ',';
    char **list = calloc(cap + 1, sizeof *list);
    *n = 0;
    if (!list) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; !(mask & METRICS_NO_CORE) && i < catalogue_ncore; i++)
        if (list_add(list, n, catalogue_core[i]) != 0)
            goto oom;
    for (size_t i = 0; (mask & METRICS_NO_CORE) && (mask & METRICS_TIE) && i < catalogue_ntie; i++)
        if (list_add(list, n, catalogue_tie[i]) != 0)
            goto oom;
    for (size_t g = 0; g < catalogue_ngroups; g++)
        if (mask & (1u << g))
            for (size_t i = 0; i < catalogue_groups[g].n; i++)
                if (list_add(list, n, catalogue_groups[g].names[i]) != 0)
                    goto oom;
    for (const char *p = added; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t'))
            p++, len--;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (!len) {
            snprintf(err, errlen, "empty metric name in '%s'", added);
            metrics_list_free(list, *n);
            *n = 0;
            return NULL;
        }
        char *name = strndup(p, len);
        if (!name || list_add(list, n, name) != 0) {
            free(name);
            goto oom;
        }
        free(name);
        p = e ? e + 1 : p + len;
    }
    return list;
oom:
    snprintf(err, errlen, "out of memory");
    metrics_list_free(list, *n);
    *n = 0;
    return NULL;
}

void
metrics_list_free(char **list, size_t n)
{
    if (!list)
        return;
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

/* ------------------------------------------------------------ host */

/*
 * The names a rule asked for (GPUHIER_RULE_METRICS, set by `gpuhier run`):
 * a chip without one drops it instead of refusing the configuration.
 */
static char *optional_names;

void
metrics_set_optional(const char *csv)
{
    free(optional_names);
    optional_names = csv && *csv ? strdup(csv) : NULL;
}

static int
is_optional(const char *name)
{
    size_t n = strlen(name);
    for (const char *p = optional_names; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p = e ? e + 1 : p + len;
    }
    return 0;
}

struct metrics_host {
    CUpti_Profiler_Host_Object *obj;
    char chip[64];
    char **names;
    size_t n;
    uint8_t *image;
    size_t image_size;
    int passes;
    char err[256];
    char dropped[512]; /* the optional names the chip lacks, quoted, ", "-separated */
};

/* Looks up a CUPTI function with the header's prototype. */
#define SYM(f) ((__typeof__(&f))cupti_sym(#f))

static const char *
result_name(CUptiResult r)
{
    const char *s = NULL;
    __typeof__(&cuptiGetResultString) get = SYM(cuptiGetResultString);
    if (get && get(r, &s) == CUPTI_SUCCESS && s)
        return s;
    return "CUPTI_ERROR_UNKNOWN";
}

static int
cupti_ready(char *err, size_t errlen)
{
    char e[256];
    if (!cupti_load(e, sizeof e)) {
        snprintf(err, errlen, "%s", e);
        return -1;
    }
    cupti_nvperf_wait(); /* the host API needs nvperf */
    return 0;
}

void
metrics_host_free(struct metrics_host *h)
{
    if (!h)
        return;
    if (h->obj) {
        __typeof__(&cuptiProfilerHostDeinitialize) deinit = SYM(cuptiProfilerHostDeinitialize);
        CUpti_Profiler_Host_Deinitialize_Params p = {
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        p.pHostObject = h->obj;
        if (deinit)
            deinit(&p);
    }
    for (size_t i = 0; i < h->n; i++)
        free(h->names[i]);
    free(h->names);
    free(h->image);
    free(h);
}

int
metrics_host_open(const char *chip, const char *const *names, size_t n, struct metrics_host **out,
                  char *err, size_t errlen)
{
    int ret = -1;
    struct metrics_host *h = NULL;
    *out = NULL;
    if (!chip || !*chip) {
        snprintf(err, errlen, "no chip name (cuptiDeviceGetChipName returned none)");
        return -1;
    }
    if (n == 0) {
        snprintf(err, errlen, "no metrics to configure");
        return -1;
    }
    if (cupti_ready(err, errlen) != 0)
        return -1;
    __typeof__(&cuptiProfilerHostInitialize) init = SYM(cuptiProfilerHostInitialize);
    __typeof__(&cuptiProfilerHostGetMetricProperties) props =
        SYM(cuptiProfilerHostGetMetricProperties);
    __typeof__(&cuptiProfilerHostConfigAddMetrics) add = SYM(cuptiProfilerHostConfigAddMetrics);
    __typeof__(&cuptiProfilerHostGetConfigImageSize) isize =
        SYM(cuptiProfilerHostGetConfigImageSize);
    __typeof__(&cuptiProfilerHostGetConfigImage) image = SYM(cuptiProfilerHostGetConfigImage);
    __typeof__(&cuptiProfilerHostGetNumOfPasses) passes = SYM(cuptiProfilerHostGetNumOfPasses);
    if (!init || !props || !add || !isize || !image || !passes) {
        snprintf(err, errlen, "libcupti '%s' lacks the Profiler Host API (CUPTI 12.6+ needed)",
                 cupti_load_path());
        return -1;
    }
    h = calloc(1, sizeof *h);
    if (!h || !(h->names = calloc(n, sizeof *h->names))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    snprintf(h->chip, sizeof h->chip, "%s", chip);
    for (size_t i = 0; i < n; i++) {
        if (!names[i] || !(h->names[i] = strdup(names[i]))) {
            snprintf(err, errlen, names[i] ? "out of memory" : "NULL metric name");
            goto out;
        }
        h->n++;
    }

    /*
     * NULL availability image: allowed for chips known at CUPTI's release,
     * and an image taken inside a CUDA callback crashed this call on the
     * H200 (CUPTI-NOTES §8).
     */
    CUpti_Profiler_Host_Initialize_Params ip = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    ip.pChipName = h->chip;
    CUptiResult r = init(&ip);
    if (r != CUPTI_SUCCESS) {
        snprintf(err, errlen, "cannot initialize the profiler host for chip '%s': %s%s", chip,
                 result_name(r),
                 r == CUPTI_ERROR_NOT_INITIALIZED
                     ? " (libnvperf_host.so not found next to libcupti?)"
                     : "");
        goto out;
    }
    h->obj = ip.pHostObject;

    /*
     * Validate one by one so the message names the bad metric. A name a
     * rule asked for (metrics_set_optional()) is dropped instead, and
     * said in metrics_host_dropped().
     */
    for (size_t i = 0; i < h->n;) {
        CUpti_Profiler_Host_GetMetricProperties_Params pp = {
            CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
        pp.pHostObject = h->obj;
        pp.pMetricName = h->names[i];
        r = props(&pp);
        if (r == CUPTI_SUCCESS) {
            i++;
            continue;
        }
        if (!is_optional(h->names[i]) || h->n == 1) {
            snprintf(err, errlen, "unknown metric '%s' for chip '%s': %s", h->names[i], chip,
                     result_name(r));
            goto out;
        }
        size_t used = strlen(h->dropped);
        snprintf(h->dropped + used, sizeof h->dropped - used, "%s'%s'", used ? ", " : "",
                 h->names[i]);
        free(h->names[i]);
        memmove(&h->names[i], &h->names[i + 1], (h->n - i - 1) * sizeof *h->names);
        h->n--;
    }
    CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    ap.pHostObject = h->obj;
    ap.ppMetricNames = (const char **)h->names;
    ap.numMetrics = h->n;
    if ((r = add(&ap)) != CUPTI_SUCCESS) {
        snprintf(err, errlen, "cannot add %zu metrics to the configuration: %s", h->n,
                 result_name(r));
        goto out;
    }
    CUpti_Profiler_Host_GetConfigImageSize_Params sp = {
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sp.pHostObject = h->obj;
    if ((r = isize(&sp)) != CUPTI_SUCCESS || sp.configImageSize == 0) {
        snprintf(err, errlen, "cannot size the config image: %s", result_name(r));
        goto out;
    }
    h->image_size = sp.configImageSize;
    if (!(h->image = malloc(h->image_size))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    CUpti_Profiler_Host_GetConfigImage_Params gp = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    gp.pHostObject = h->obj;
    gp.configImageSize = h->image_size;
    gp.pConfigImage = h->image;
    if ((r = image(&gp)) != CUPTI_SUCCESS) {
        snprintf(err, errlen, "cannot build the config image: %s", result_name(r));
        goto out;
    }
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = h->image_size;
    np.pConfigImage = h->image;
    if ((r = passes(&np)) != CUPTI_SUCCESS) {
        snprintf(err, errlen, "cannot count passes: %s", result_name(r));
        goto out;
    }
    h->passes = (int)np.numOfPasses;
    *out = h;
    h = NULL;
    ret = 0;
out:
    metrics_host_free(h);
    return ret;
}

const void *
metrics_host_config_image(const struct metrics_host *h, size_t *size)
{
    *size = h->image_size;
    return h->image;
}

int
metrics_host_passes(const struct metrics_host *h)
{
    return h->passes;
}

const char *const *
metrics_host_names(const struct metrics_host *h, size_t *n)
{
    *n = h->n;
    return (const char *const *)h->names;
}

const char *
metrics_host_error(const struct metrics_host *h)
{
    return h->err;
}

const char *
metrics_host_dropped(const struct metrics_host *h)
{
    return h->dropped;
}

int
metrics_host_evaluate(struct metrics_host *h, const void *counter_data, size_t size,
                      size_t range_index, double *values)
{
    __typeof__(&cuptiProfilerHostEvaluateToGpuValues) eval =
        SYM(cuptiProfilerHostEvaluateToGpuValues);
    if (!eval) {
        snprintf(h->err, sizeof h->err, "cuptiProfilerHostEvaluateToGpuValues not found");
        return -1;
    }
    CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    p.pHostObject = h->obj;
    p.pCounterDataImage = counter_data;
    p.counterDataImageSize = size;
    p.rangeIndex = range_index;
    p.ppMetricNames = (const char **)h->names;
    p.numMetrics = h->n;
    p.pMetricValues = values;
    CUptiResult r = eval(&p);
    if (r != CUPTI_SUCCESS) {
        snprintf(h->err, sizeof h->err, "cannot evaluate range %zu: %s", range_index,
                 result_name(r));
        return -1;
    }
    return 0;
}

int
metrics_count_passes(const char *chip, const char *const *names, size_t n, char *err, size_t errlen)
{
    struct metrics_host *h;
    if (metrics_host_open(chip, names, n, &h, err, errlen) != 0)
        return -1;
    int p = h->passes;
    metrics_host_free(h);
    return p;
}

/* ------------------------------------------------------ host cache */

struct metrics_host *
metrics_hosts_get(struct metrics_hosts *c, unsigned mask, char *err, size_t errlen)
{
    mask &= METRICS_GROUP_ALL;
    if (c->by_mask[mask])
        return c->by_mask[mask];
    size_t n;
    char **list = metrics_list_build(mask, c->added, &n, err, errlen);
    if (!list)
        return NULL;
    struct metrics_host *h = NULL;
    if (metrics_host_open(c->chip, (const char *const *)list, n, &h, err, errlen) == 0)
        c->by_mask[mask] = h;
    metrics_list_free(list, n);
    return h;
}

int
metrics_hosts_init(struct metrics_hosts *c, const char *chip, const char *added, char *err,
                   size_t errlen)
{
    memset(c, 0, sizeof *c);
    snprintf(c->chip, sizeof c->chip, "%s", chip ? chip : "");
    if (added && *added && !(c->added = strdup(added))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (!metrics_hosts_get(c, 0, err, errlen)) {
        metrics_hosts_release(c);
        return -1;
    }
    return 0;
}

void
metrics_hosts_release(struct metrics_hosts *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < N(c->by_mask); i++)
        metrics_host_free(c->by_mask[i]);
    free(c->added);
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------ one-pass groups */

/*
 * The state bundles are the catalogue's, in its order (each bundle's
 * names in the catalogue's order too); metrics.h's struct metrics_bundle
 * is filled from them once.
 */
static struct metrics_bundle state_bundles[METRICS_PACK_MAX];
static size_t nstate_bundles;
static pthread_once_t state_bundles_once = PTHREAD_ONCE_INIT;

static void
state_bundles_fill(void)
{
    for (size_t i = 0; i < catalogue_nbundles && i < METRICS_PACK_MAX; i++)
        state_bundles[nstate_bundles++] = (struct metrics_bundle){
            catalogue_bundles[i].what, catalogue_bundles[i].names, catalogue_bundles[i].n};
}

const struct metrics_bundle *
metrics_state_bundles(size_t *n)
{
    pthread_once(&state_bundles_once, state_bundles_fill);
    *n = nstate_bundles;
    return state_bundles;
}

static int
names_has(char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

/* names + what (deduplicated) into a fresh array; NULL on no memory */
static char **
names_with(char *const *names, size_t n, const char *const *what, size_t wn, size_t *out_n)
{
    char **l = calloc(n + wn + 1, sizeof *l);
    if (!l)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        l[k++] = names[i];
    for (size_t i = 0; i < wn; i++)
        if (!names_has(l, k, what[i]))
            l[k++] = (char *)what[i];
    *out_n = k;
    return l;
}

/* Passes of names + what; -1 with err */
static int
passes_with(const char *chip, char *const *names, size_t n, const char *const *what, size_t wn,
            char *err, size_t errlen)
{
    size_t k;
    char **l = names_with(names, n, what, wn, &k);
    if (!l) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int p = metrics_count_passes(chip, (const char *const *)l, k, err, errlen);
    free(l);
    return p;
}

/* group g becomes g + what (copies the names) */
static int
group_add(struct metrics_packing *p, size_t g, const char *const *what, size_t wn)
{
    size_t k;
    char **l = names_with(p->names[g], p->count[g], what, wn, &k);
    if (!l)
        return -1;
    for (size_t i = p->count[g]; i < k; i++)
        if (!(l[i] = strdup(l[i]))) {
            for (size_t j = p->count[g]; j < i; j++)
                free(l[j]);
            free(l);
            return -1;
        }
    free(p->names[g]);
    p->names[g] = l;
    p->count[g] = k;
    return 0;
}

int
metrics_pack_one_pass(const char *chip, const struct metrics_bundle *b, size_t nb,
                      const char *const *tie, size_t ntie, struct metrics_packing *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (nb > METRICS_PACK_MAX) {
        snprintf(err, errlen, "%zu bundles, at most %d", nb, METRICS_PACK_MAX);
        return -1;
    }
    for (size_t i = 0; i < nb; i++) {
        int alone = metrics_count_passes(chip, b[i].names, b[i].n, err, errlen);
        if (alone < 0)
            goto fail;
        out->passes_alone[i] = alone;
        out->group_of[i] = -1;
        if (alone != 1)
            continue;
        size_t g = 0;
        for (; g < out->ngroups; g++) {
            int p =
                passes_with(chip, out->names[g], out->count[g], b[i].names, b[i].n, err, errlen);
            if (p < 0)
                goto fail;
            if (p == 1)
                break;
        }
        if (g == out->ngroups)
            out->ngroups++;
        if (group_add(out, g, b[i].names, b[i].n)) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        out->group_of[i] = (int)g;
    }
    for (size_t g = 0; tie && g < out->ngroups; g++) {
        int p = passes_with(chip, out->names[g], out->count[g], tie, ntie, err, errlen);
        if (p < 0)
            goto fail;
        if (p == 1 && group_add(out, g, tie, ntie)) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        out->tied[g] = p == 1;
    }
    return 0;
fail:
    metrics_packing_free(out);
    return -1;
}

int
metrics_pack_restore(const char *chip, const struct metrics_bundle *b, size_t nb,
                     const char *const *tie, size_t ntie, size_t ngroups, const int *group_of,
                     const int *passes_alone, const unsigned char *tied,
                     struct metrics_packing *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (nb > METRICS_PACK_MAX || ngroups == 0 || ngroups > METRICS_PACK_MAX) {
        snprintf(err, errlen, "%zu bundles in %zu groups", nb, ngroups);
        return -1;
    }
    out->ngroups = ngroups;
    for (size_t i = 0; i < nb; i++) {
        int g = group_of[i];
        /* a bundle is in a group exactly when it alone fits one pass; first fit opens groups in order */
        if (g < -1 || g >= (int)ngroups || (g >= 0) != (passes_alone[i] == 1) ||
            passes_alone[i] < 1 || (g > 0 && out->count[g - 1] == 0)) {
            snprintf(err, errlen, "bundle %zu: group %d, %d passes alone", i, g, passes_alone[i]);
            goto fail;
        }
        out->group_of[i] = g;
        out->passes_alone[i] = passes_alone[i];
        if (g >= 0 && group_add(out, (size_t)g, b[i].names, b[i].n)) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
    }
    for (size_t g = 0; g < ngroups; g++) {
        if (!out->count[g]) {
            snprintf(err, errlen, "group %zu is empty", g);
            goto fail;
        }
        if (tied[g] && tie && group_add(out, g, tie, ntie)) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        out->tied[g] = tied[g] != 0;
        int p = metrics_count_passes(chip, (const char *const *)out->names[g], out->count[g], err,
                                     errlen);
        if (p != 1) {
            if (p > 1)
                snprintf(err, errlen, "group %zu needs %d passes", g, p);
            goto fail;
        }
    }
    return 0;
fail:
    metrics_packing_free(out);
    return -1;
}

void
metrics_packing_free(struct metrics_packing *p)
{
    for (size_t g = 0; g < METRICS_PACK_MAX; g++) {
        for (size_t i = 0; p->names[g] && i < p->count[g]; i++)
            free(p->names[g][i]);
        free(p->names[g]);
        p->names[g] = NULL;
        p->count[g] = 0;
        p->tied[g] = 0;
    }
    p->ngroups = 0;
}
