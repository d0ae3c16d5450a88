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

#include <cupti_profiler_host.h>
#include <cupti_result.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ sets */

/*
 * The core set (every sampled launch). Names follow the view v_profiled
 * in schema/schema.sql. Instruction counts stand in for LSU requests (one
 * warp-level LDG/STG is one request); raw counters instead of ratios,
 * because a ratio's hidden denominators cost passes.
 */
static const char *const core_set[] = {
    "gpu__time_duration.sum",
    "smsp__inst_executed.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__cycles_active.avg",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "smsp__inst_executed_op_global_ld.sum",
    "smsp__inst_executed_op_global_st.sum",
    "lts__t_sectors_lookup_hit.sum",
    "lts__t_sectors_lookup_miss.sum",
    "l1tex__t_sector_hit_rate.pct",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "smsp__inst_executed_op_local_ld.sum",
    "smsp__inst_executed_op_local_st.sum",
    "smsp__inst_executed_op_generic_atom.sum",
    "smsp__inst_executed_op_global_red.sum",
    "smsp__inst_executed_op_ldc.sum",
    "lts__t_sectors_srcunit_tex.sum",
    "smsp__inst_executed_op_ldgsts.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum",
    "lts__t_sectors_aperture_sysmem.sum",
    "lts__t_sectors_op_atom.sum",
    "lts__t_sectors_op_red.sum",
    "idc__requests.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    /* host-memory-access: system-memory sectors the SMs asked for; the all-units counter
       above also counts other L2 clients' system-memory traffic (~0.8 MB per kernel on the H200,
       with or without replay: docs/agreement.md, class B) */
    "lts__t_sectors_srcunit_tex_aperture_sysmem.sum",
};

/*
 * Extra groups. What moved into the core because it fit in the same 3
 * passes (L2 sysmem sectors, L2 atomic/reduction sectors, constant-cache
 * requests, LDGSTS instructions) is not repeated; these groups add the
 * detail a rule asks for once the core showed the symptom.
 */
static const char *const tma_set[] = {
    "l1tex__m_xbar2l1tex_read_bytes.sum",
    "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum",
    "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum",
    "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_access.sum",
};
static const char *const requests_set[] = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
};
static const char *const host_set[] = {
    "lts__t_sectors_srcunit_tex_aperture_sysmem.sum",
    "lts__t_requests_aperture_sysmem.sum",
};
static const char *const const_set[] = {
    "idc__requests_lookup_miss.sum",
};
static const char *const atomic_set[] = {
    "lts__d_atomic_input_cycles_active.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
};
static const char *const sass_bytes_set[] = {
    "smsp__sass_data_bytes_mem_global_op_ld.sum",
    "smsp__sass_data_bytes_mem_global_op_st.sum",
    "smsp__sass_inst_executed_op_memory_32b.sum",
    "smsp__sass_inst_executed_op_memory_64b.sum",
    "smsp__sass_inst_executed_op_memory_128b.sum",
    "sm__sass_l1tex_m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_bypass.sum",
};

/* The tie set (METRICS_TIE): all in the core; what an extras profile carries of it. */
static const char *const tie_set[] = {
    "gpu__time_duration.sum",
    "smsp__inst_executed.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct group {
    enum metrics_group flag;
    const char *name;
    const char *const *names;
    size_t n;
} groups[] = {
    {METRICS_GROUP_TMA, "tma", tma_set, N(tma_set)},
    {METRICS_GROUP_REQUESTS, "requests", requests_set, N(requests_set)},
    {METRICS_GROUP_HOST, "host", host_set, N(host_set)},
    {METRICS_GROUP_CONST, "const", const_set, N(const_set)},
    {METRICS_GROUP_ATOMIC, "atomic", atomic_set, N(atomic_set)},
    {METRICS_GROUP_SASS_BYTES, "sass_bytes", sass_bytes_set, N(sass_bytes_set)},
};

const char *const *
metrics_default_set(size_t *n)
{
    *n = N(core_set);
    return core_set;
}

static const struct group *
group_of(enum metrics_group g)
{
    for (size_t i = 0; i < N(groups); i++)
        if (groups[i].flag == g)
            return &groups[i];
    return NULL;
}

const char *const *
metrics_group_set(enum metrics_group g, size_t *n)
{
    const struct group *gr = group_of(g);
    *n = gr ? gr->n : 0;
    return gr ? gr->names : NULL;
}

const char *
metrics_group_name(enum metrics_group g)
{
    const struct group *gr = group_of(g);
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
    for (size_t i = 0; name && i < N(groups); i++)
        if (!strcmp(groups[i].name, name))
            return groups[i].flag;
    return 0;
}

/* --------------------------------------------------------- policy */

static double
value_of(const char *const *names, const double *values, size_t n, const char *want)
{
    for (size_t i = 0; i < n; i++)
        if (names[i] && !strcmp(names[i], want))
            return values[i];
    return -1; /* unknown */
}

/*
 * Conditions (docs/metrics.md "When extras are collected"); every one
 * reads only core metrics, so a first profile can decide them.
 */
unsigned
metrics_extras_wanted(const char *const *names, const double *values, size_t n)
{
#define V(s) value_of(names, values, n, s)
    unsigned want = 0;
    double gld = V("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    double gst = V("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    double lld = V("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum");
    double l2rd = V("lts__t_sectors_srcunit_tex_op_read.sum");
    double gld_inst = V("smsp__inst_executed_op_global_ld.sum");
    double gst_inst = V("smsp__inst_executed_op_global_st.sum");
    double ldgsts = V("smsp__inst_executed_op_ldgsts.sum");
    double atom = V("smsp__inst_executed_op_generic_atom.sum");
    double red = V("smsp__inst_executed_op_global_red.sum");
    double ldc = V("smsp__inst_executed_op_ldc.sum");
    double inst = V("smsp__inst_executed.sum");
    double sysmem = V("lts__t_sectors_srcunit_tex_aperture_sysmem.sum");
    double idc = V("idc__requests.sum");
    double dram = V("dram__bytes_read.sum");

    /*
     * TMA/LDGSTS (rule 9): L2 read sectors requested by L1TEX that the
     * LSU's global and local load sectors do not explain. When the LSU
     * accounts for less than half of them (and they are more than 1 MB),
     * something else moved the data: TMA or LDGSTS. Any LDGSTS
     * instruction also asks for the group (its bytes are in it).
     */
    double lsu = (gld > 0 ? gld : 0) + (lld > 0 ? lld : 0);
    if (l2rd > (1 << 20) / 32.0 && lsu < 0.5 * l2rd)
        want |= METRICS_GROUP_TMA;
    /*
     * The same question asked of DRAM, in case TMA requests are not
     * counted as L1TEX's (unverified on the H200): more than 1 MB read
     * from DRAM and the LSU's load sectors cover less than half of it.
     * An LSU kernel's sectors cover its DRAM reads (L2 hits only lower
     * the DRAM side).
     */
    if (dram > 1 << 20 && 32.0 * lsu < 0.5 * dram)
        want |= METRICS_GROUP_TMA;
    if (ldgsts > 0)
        want |= METRICS_GROUP_TMA;
    /*
     * Coalescing and access width (rules 9, 6): more than 4 sectors per
     * warp-level load or store (the 32-bit coalesced figure) is either
     * waste or a wide access; only the requested bytes (SASS-instrumented)
     * tell which. The requests group checks instructions == requests.
     */
    if ((gld_inst > 0 && gld > 4.0 * gld_inst) || (gst_inst > 0 && gst > 4.0 * gst_inst))
        want |= METRICS_GROUP_SASS_BYTES | METRICS_GROUP_REQUESTS;
    /*
     * Scalar accesses in a memory-heavy kernel (rule 10): 3.5 to 4
     * sectors per load (32-bit, coalesced) and global loads more than 5 %
     * of all instructions: the width counts say whether float4 would help.
     */
    if (gld_inst > 0 && inst > 0 && gld <= 4.0 * gld_inst && gld >= 3.5 * gld_inst &&
        gld_inst > 0.05 * inst)
        want |= METRICS_GROUP_SASS_BYTES;
    /* Atomics (rule 19): any ATOM or RED instruction. */
    if (atom > 0 || red > 0)
        want |= METRICS_GROUP_ATOMIC;
    /*
     * Constant divergence (rule 18): LDC instructions that needed more
     * constant-cache requests than instructions (some warp read several
     * addresses). Uniform LDCs (PyTorch's kernels index their parameters
     * with them) have nothing for the group's cache misses to explain.
     * Without the request count, any LDC.
     */
    if (ldc > 0 && (idc < 0 || idc > ldc))
        want |= METRICS_GROUP_CONST;
    /*
     * Host memory (rule 17): any L2 sector to system memory that the SMs
     * asked for. The all-units counter also counts other L2 clients'
     * system-memory traffic (~25 K sectors per kernel on the H200, every
     * kernel: docs/agreement.md, class B), which asked for the group on
     * every configuration; it decides only when the SM-originated counter
     * is missing.
     */
    if (sysmem < 0)
        sysmem = V("lts__t_sectors_aperture_sysmem.sum");
    if (sysmem > 0)
        want |= METRICS_GROUP_HOST;
#undef V
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
    size_t cap = N(core_set) + 1;
    for (size_t i = 0; i < N(groups); i++)
        cap += groups[i].n;
    for (const char *p = added; p && *p; p++)
        cap += *p == ',';
    char **list = calloc(cap + 1, sizeof *list);
    *n = 0;
    if (!list) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; !(mask & METRICS_NO_CORE) && i < N(core_set); i++)
        if (list_add(list, n, core_set[i]) != 0)
            goto oom;
    for (size_t i = 0; (mask & METRICS_NO_CORE) && (mask & METRICS_TIE) && i < N(tie_set); i++)
        if (list_add(list, n, tie_set[i]) != 0)
            goto oom;
    for (size_t g = 0; g < N(groups); g++)
        if (mask & groups[g].flag)
            for (size_t i = 0; i < groups[g].n; i++)
                if (list_add(list, n, groups[g].names[i]) != 0)
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

struct metrics_host {
    CUpti_Profiler_Host_Object *obj;
    char chip[64];
    char **names;
    size_t n;
    uint8_t *image;
    size_t image_size;
    int passes;
    char err[256];
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

    /* validate one by one so the message names the bad metric */
    for (size_t i = 0; i < n; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params pp = {
            CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
        pp.pHostObject = h->obj;
        pp.pMetricName = h->names[i];
        r = props(&pp);
        if (r != CUPTI_SUCCESS) {
            snprintf(err, errlen, "unknown metric '%s' for chip '%s': %s", h->names[i], chip,
                     result_name(r));
            goto out;
        }
    }
    CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    ap.pHostObject = h->obj;
    ap.ppMetricNames = (const char **)h->names;
    ap.numMetrics = h->n;
    if ((r = add(&ap)) != CUPTI_SUCCESS) {
        snprintf(err, errlen, "cannot add %zu metrics to the configuration: %s", n, result_name(r));
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
 * The state counters the rules need (issue 18 point 1), each bundle with
 * the denominators of its ratios. Pattern counters (instructions,
 * sectors, wavefronts, local traffic) depend only on the code: they are
 * the instrumentation engine's (issue 17), not here.
 */
static const char *const b_dram[] = {
    "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex.sum"};
static const char *const b_occupancy[] = {"sm__warps_active.avg.pct_of_peak_sustained_active",
                                          "sm__cycles_active.avg"};
/*
 * An L2 hit rate has no one-pass form on GH100: every tag-lookup counter
 * (lts__t_sectors_lookup_hit/_miss, their srcunit_tex forms, the
 * lts__t_sector_hit_rate ratio) takes a second pass beside any other
 * lts__t_sectors counter, hits beside misses included (counted offline,
 * tests/unit/test_metrics.c). So hits and misses are two bundles, and
 * the rate is spread over two launches of the configuration.
 */
static const char *const b_l2_hit[] = {"lts__t_sectors_lookup_hit.sum"};
static const char *const b_l2_miss[] = {"lts__t_sectors_lookup_miss.sum"};
static const char *const b_l1[] = {"l1tex__t_sector_hit_rate.pct"};
static const char *const b_local_miss[] = {
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"};
static const char *const b_sysmem[] = {"lts__t_sectors_srcunit_tex_aperture_sysmem.sum",
                                       "lts__t_sectors_aperture_sysmem.sum",
                                       "lts__t_requests_aperture_sysmem.sum"};
/* TMA and LDGSTS byte counters: any two of the xbar2l1tex read counters take two passes */
static const char *const b_tma[] = {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum",
                                    "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum"};
static const char *const b_l2_to_l1[] = {"l1tex__m_xbar2l1tex_read_bytes.sum"};
static const char *const b_ldgsts[] = {
    "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_access.sum"};
static const char *const b_atomic[] = {"lts__t_sectors_op_atom.sum", "lts__t_sectors_op_red.sum",
                                       "lts__d_atomic_input_cycles_active.sum"};
static const char *const b_const[] = {"idc__requests.sum", "idc__requests_lookup_miss.sum"};

static const struct metrics_bundle state_bundles[] = {
    {"device-memory bytes, the SMs' L2 sectors and the time they took (floor-distance)", b_dram,
     N(b_dram)},
    {"achieved occupancy and active cycles (latency-not-hidden, occupancy rules)", b_occupancy,
     N(b_occupancy)},
    {"L2 sector hits (l2-reread-miss; the rate's other half is the next bundle)", b_l2_hit,
     N(b_l2_hit)},
    {"L2 sector misses (l2-reread-miss)", b_l2_miss, N(b_l2_miss)},
    {"L1 hit rate (reread-not-staged)", b_l1, N(b_l1)},
    {"local-memory sectors and their L1 misses (local-memory-traffic)", b_local_miss,
     N(b_local_miss)},
    {"system-memory sectors and requests (host-memory-access)", b_sysmem, N(b_sysmem)},
    {"TMA load and store bytes (floor-distance on library kernels)", b_tma, N(b_tma)},
    {"L2-to-L1 read bytes (floor-distance on library kernels)", b_l2_to_l1, N(b_l2_to_l1)},
    {"LDGSTS bytes through L1 (floor-distance on library kernels)", b_ldgsts, N(b_ldgsts)},
    {"L2 atomic and reduction sectors (atomic-contention)", b_atomic, N(b_atomic)},
    {"constant-cache requests and misses (constant-divergent)", b_const, N(b_const)},
};

const struct metrics_bundle *
metrics_state_bundles(size_t *n)
{
    *n = N(state_bundles);
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
    }
    p->ngroups = 0;
}
