// SPDX-License-Identifier: MIT
//
// libgh_sassprobe.so: a bench probe for issue 17's open problem (CUPTI's
// SASS Metrics API returned data for only the first one or two functions
// of a framework process). Loaded with CUDA_INJECTION64_PATH; the driver
// calls InitializeInjection inside cuInit. SASSPROBE_PATTERN picks how the
// metrics are armed (see docs/sassprobe.md); for every function launched
// it records launches, whether any SASS record came back and the sums of
// each metric, and CUPTI errors by call, into SASSPROBE_OUT/sassprobe-PID.json
// at exit. It never writes to stdout and never stops the host: a failed
// call is counted and the probe goes on (or goes quiet).
// Not part of gpuhier: it links CUPTI directly and resolves the few driver
// calls it needs from the libcuda that loaded it.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SP_EXPORT __attribute__((visibility("default")))

/* ---- patterns ------------------------------------------------------------ */

enum sp_pattern {
    SP_CTX_LAZY,   /* (a) Enable(lazy) at CONTEXT_CREATED, kept; flush after launches */
    SP_CTX_EAGER,  /* (b) the same, lazy patching off */
    SP_PER_LAUNCH, /* (c) Enable at launch ENTER, flush+Disable at EXIT (the control) */
    SP_MODULE,     /* (d) Disable+Enable again at every MODULE_LOADED */
    SP_THREAD,     /* (e) a helper thread enables and flushes, with the context pushed */
    SP_EXIT_ONLY,  /* (f) as (a) but flushed only at exit: no flush between launches */
    SP_REARM,      /* (g) flush+Disable+Enable at every launch EXIT: armed before the next */
    SP_OUTER,      /* (h) as (g), at the EXIT of the outermost API call (runtime or driver) */
    SP_NONE,       /* (i) nothing at contexts or launches: only SASSPROBE_GRAPH arms */
};

static const char *const pattern_names[] = {
    [SP_CTX_LAZY] = "ctx-lazy", [SP_CTX_EAGER] = "ctx-eager", [SP_PER_LAUNCH] = "per-launch",
    [SP_MODULE] = "module",     [SP_THREAD] = "thread",       [SP_EXIT_ONLY] = "exit-only",
    [SP_REARM] = "rearm",       [SP_OUTER] = "outer",         [SP_NONE] = "none",
};

enum sp_init { SP_INIT_BEFORE, SP_INIT_AFTER, SP_INIT_CTX };

/*
 * SASSPROBE_GRAPH, with any pattern (per-launch is the natural one): how a graph launch is
 * armed. launch: Enable at the cuGraphLaunch ENTER (after a synchronize), flush and Disable at
 * its EXIT (after a synchronize): the collector's GPUHIER_DIAG_SASS_GRAPHS path, which gave 0
 * records on 2026-12-01. instantiate: Enable at the ENTER of the graph's instantiation, kept
 * until the EXIT of the next graph launch, which flushes and disables: whether an executable
 * graph made while the metrics are enabled runs patched code. window: enabled only for the
 * instantiation (Disable at its EXIT, nothing flushed), then as launch: whether patched code
 * that the executable graph took at its instantiation still counts in a later range.
 */
enum sp_graph { SP_GRAPH_OFF, SP_GRAPH_LAUNCH, SP_GRAPH_INSTANTIATE, SP_GRAPH_WINDOW };

#define SP_MAX_METRICS 16
#define SP_TAB_SLOTS 8192
#define SP_MAX_ERRS 64
#define SP_TOP_PCS 3
#define SP_MAX_CUBINS 4096
#define SP_CUBIN_CAP_BYTES (1024UL * 1024 * 1024)

static const char *const default_metrics[] = {
    "smsp__sass_inst_executed",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_inst_executed_op_local_ld",
};

struct sp_func {
    char *name;            /* mangled, heap */
    uint64_t launches;     /* launch callbacks seen (driver API) */
    uint64_t records;      /* SASS records returned, all flushes */
    uint64_t first_launch; /* 1-based launch number (all functions) of its first launch */
    uint64_t first_flush;  /* 1-based flush number that first returned a record of it */
    uint64_t sums[SP_MAX_METRICS];
    uint32_t crc;                /* cubin of the first record */
    uint32_t top_pc[SP_TOP_PCS]; /* pcs with the most executed instructions */
    uint64_t top_val[SP_TOP_PCS];
};

struct sp_err {
    const char *call;
    int result;
    uint64_t count;
};

struct sp_cubin {
    void *data;
    size_t size;
};

static struct {
    pthread_mutex_t tab_mu;   /* function table, errors, counters: no CUPTI call under it */
    pthread_mutex_t cupti_mu; /* serializes enable/flush/disable sequences */
    enum sp_pattern pattern;
    enum sp_init init;
    int lazy;
    int flush_every;
    int is_keep;     /* pattern outer: keep enabled, flush only (SASSPROBE_KEEP=1) */
    int graph;       /* SASSPROBE_GRAPH (enum sp_graph): off, launch, instantiate, window */
    int graph_armed; /* SP_GRAPH_INSTANTIATE: enabled at an instantiate, not yet flushed */
    int is_pending;  /* pattern outer: act at the next outermost API exit */
    CUcontext pending_ctx;
    char out_dir[512];
    int is_on;
    int is_profiler_ready;
    int is_configured;
    int is_resolved; /* metric names looked up (once: a retry must not list them twice) */
    int n_cfg;
    CUpti_SassMetrics_Config cfg[SP_MAX_METRICS];
    int is_enabled;
    int did_write;
    CUcontext ctx;
    uint32_t device;
    CUpti_SubscriberHandle sub;
    const char *init_where;
    /* metrics */
    int n_metrics;
    const char *metric_names[SP_MAX_METRICS];
    uint64_t metric_ids[SP_MAX_METRICS];
    int n_missing;
    const char *missing[SP_MAX_METRICS];
    size_t n_chip_metrics;
    char chip[32];
    /* counters */
    uint64_t launches, graph_launches, module_loads, enables, disables, flushes, empty_flushes;
    uint64_t records_total, records_unknown_fn, busy_skips, dropped_on_disable, tab_full;
    double enable_ms, flush_ms, max_flush_ms;
    uint64_t launch_seq;
    /* tables */
    struct sp_func *tab[SP_TAB_SLOTS];
    int n_funcs;
    struct sp_err errs[SP_MAX_ERRS];
    int n_errs;
    struct sp_cubin cubins[SP_MAX_CUBINS];
    int n_cubins;
    size_t cubin_bytes;
    uint64_t cubins_skipped;
    /* driver entry points from the libcuda that loaded us */
    CUresult (*ctx_sync)(void);
    CUresult (*ctx_get_current)(CUcontext *);
    CUresult (*ctx_push)(CUcontext);
    CUresult (*ctx_pop)(CUcontext *);
    CUresult (*ctx_get_device)(CUdevice *);
    CUresult (*func_get_name)(const char **, CUfunction);
    int trace_fd;     /* sassprobe-PID.log: the first steps, for a run killed by its timeout */
    int last_fd;      /* sassprobe-PID.last: the latest step, rewritten in place */
    unsigned trace_n; /* lines written to trace_fd */
    double t0_ms;
    /* helper thread (pattern thread) */
    pthread_t helper;
    int has_helper;
    pthread_mutex_t req_mu;
    pthread_cond_t req_cv;
    int req;      /* 0 none, 1 enable, 2 flush, 3 quit */
    int req_done; /* generation finished */
    int req_gen;
    CUcontext req_ctx;
} sp = {
    .tab_mu = PTHREAD_MUTEX_INITIALIZER,
    .cupti_mu = PTHREAD_MUTEX_INITIALIZER,
    .req_mu = PTHREAD_MUTEX_INITIALIZER,
    .req_cv = PTHREAD_COND_INITIALIZER,
    .trace_fd = -1,
    .last_fd = -1,
};

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- step trace ------------------------------------------------------------- */

/* Records that WHAT is about to run (or ran): the first 400 steps go to the .log file, the
 * latest to the .last file, so a run killed by its timeout still says where it stopped. */
static void
step(const char *what)
{
    char line[160];
    int n = snprintf(line, sizeof(line), "%.3f %s\n", now_ms() - sp.t0_ms, what);
    if (n <= 0)
        return;
    if (n > (int)sizeof(line) - 1)
        n = (int)sizeof(line) - 1;
    unsigned k = __atomic_fetch_add(&sp.trace_n, 1, __ATOMIC_RELAXED);
    if (sp.trace_fd >= 0 && k < 400 && write(sp.trace_fd, line, (size_t)n) < 0)
        sp.trace_fd = -1;
    if (sp.last_fd >= 0) {
        char pad[160];
        memset(pad, ' ', sizeof(pad));
        memcpy(pad, line, (size_t)n);
        if (pwrite(sp.last_fd, pad, sizeof(pad) - 1, 0) < 0)
            sp.last_fd = -1;
    }
}

/* ---- errors ---------------------------------------------------------------- */

static void
note_err(const char *call, int result)
{
    pthread_mutex_lock(&sp.tab_mu);
    int i = 0;
    for (; i < sp.n_errs; i++)
        if (sp.errs[i].result == result && strcmp(sp.errs[i].call, call) == 0)
            break;
    if (i == sp.n_errs && sp.n_errs < SP_MAX_ERRS)
        sp.errs[sp.n_errs++] = (struct sp_err){.call = call, .result = result};
    if (i < sp.n_errs)
        sp.errs[i].count++;
    pthread_mutex_unlock(&sp.tab_mu);
}

/* Returns 0 on CUPTI_SUCCESS, else records the error under the call's name and returns -1. */
static int
ck(const char *call, CUptiResult r)
{
    if (r == CUPTI_SUCCESS)
        return 0;
    note_err(call, (int)r);
    return -1;
}

static int
ckd(const char *call, CUresult r)
{
    if (r == CUDA_SUCCESS)
        return 0;
    note_err(call, 100000 + (int)r); /* driver errors are told apart by the offset */
    return -1;
}

/* ---- driver calls ---------------------------------------------------------- */

static int
load_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return -1;
    sp.ctx_sync = (CUresult(*)(void))dlsym(h, "cuCtxSynchronize");
    sp.ctx_get_current = (CUresult(*)(CUcontext *))dlsym(h, "cuCtxGetCurrent");
    sp.ctx_push = (CUresult(*)(CUcontext))dlsym(h, "cuCtxPushCurrent_v2");
    sp.ctx_pop = (CUresult(*)(CUcontext *))dlsym(h, "cuCtxPopCurrent_v2");
    sp.ctx_get_device = (CUresult(*)(CUdevice *))dlsym(h, "cuCtxGetDevice");
    sp.func_get_name = (CUresult(*)(const char **, CUfunction))dlsym(h, "cuFuncGetName");
    return sp.ctx_sync && sp.ctx_get_current && sp.ctx_push && sp.ctx_pop && sp.ctx_get_device ? 0
                                                                                               : -1;
}

static void
sync_ctx(void)
{
    if (sp.ctx_sync) {
        step("cuCtxSynchronize");
        ckd("cuCtxSynchronize", sp.ctx_sync());
    }
}

/* ---- function table -------------------------------------------------------- */

static uint64_t
hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Finds or adds NAME; call with tab_mu held. NULL when the table is full or out of memory. */
static struct sp_func *
func_get(const char *name)
{
    uint64_t h = hash_str(name);
    for (int k = 0; k < SP_TAB_SLOTS; k++) {
        struct sp_func **slot = &sp.tab[(h + k) % SP_TAB_SLOTS];
        if (*slot && strcmp((*slot)->name, name) == 0)
            return *slot;
        if (!*slot) {
            struct sp_func *f = calloc(1, sizeof(*f));
            if (!f || !(f->name = strdup(name))) {
                free(f);
                sp.tab_full++;
                return NULL;
            }
            *slot = f;
            sp.n_funcs++;
            return f;
        }
    }
    sp.tab_full++;
    return NULL;
}

/* ---- metrics configuration ------------------------------------------------- */

static int
profiler_init(const char *where)
{
    if (sp.is_profiler_ready)
        return 0;
    /* libcupti dlopens the Perfworks libraries by bare name: help it find them. */
    dlopen("/usr/local/cuda/lib64/libnvperf_target.so", RTLD_NOW | RTLD_GLOBAL);
    dlopen("/usr/local/cuda/lib64/libnvperf_host.so", RTLD_NOW | RTLD_GLOBAL);
    CUpti_Profiler_Initialize_Params p = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    step(where);
    if (ck(where, cuptiProfilerInitialize(&p)) != 0)
        return -1;
    sp.is_profiler_ready = 1;
    sp.init_where = where;
    return 0;
}

/* Resolves the metric names and sets the config for the context's device. */
static int
configure(CUcontext ctx)
{
    if (sp.is_configured)
        return 0;
    if (profiler_init("cuptiProfilerInitialize@configure") != 0)
        return -1;
    CUdevice dev = 0;
    CUcontext cur = NULL;
    if (sp.ctx_get_current && sp.ctx_get_current(&cur) == CUDA_SUCCESS && cur == ctx) {
        ckd("cuCtxGetDevice", sp.ctx_get_device(&dev));
    } else if (sp.ctx_push && ckd("cuCtxPushCurrent", sp.ctx_push(ctx)) == 0) {
        ckd("cuCtxGetDevice", sp.ctx_get_device(&dev));
        CUcontext popped;
        ckd("cuCtxPopCurrent", sp.ctx_pop(&popped));
    }
    sp.device = (uint32_t)dev;
    if (!sp.is_resolved) {
        CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
        cn.deviceIndex = (size_t)dev;
        if (ck("cuptiDeviceGetChipName", cuptiDeviceGetChipName(&cn)) != 0)
            return -1;
        snprintf(sp.chip, sizeof(sp.chip), "%s", cn.pChipName ? cn.pChipName : "?");
        sp.is_resolved = 1;
        CUpti_SassMetrics_GetNumOfMetrics_Params nm = {
            CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
        nm.pChipName = sp.chip;
        if (ck("cuptiSassMetricsGetNumOfMetrics", cuptiSassMetricsGetNumOfMetrics(&nm)) == 0)
            sp.n_chip_metrics = nm.numOfMetrics;
        for (int i = 0; i < sp.n_metrics; i++) {
            CUpti_SassMetrics_GetProperties_Params gp = {
                CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
            gp.pChipName = sp.chip;
            gp.pMetricName = sp.metric_names[i];
            if (ck("cuptiSassMetricsGetProperties", cuptiSassMetricsGetProperties(&gp)) != 0) {
                sp.missing[sp.n_missing++] = sp.metric_names[i];
                sp.metric_ids[i] = UINT64_MAX;
                continue;
            }
            sp.metric_ids[i] = gp.metric.metricId;
            sp.cfg[sp.n_cfg++] = (CUpti_SassMetrics_Config){
                .metricId = gp.metric.metricId,
                .outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU};
        }
    }
    if (sp.n_cfg == 0)
        return -1;
    CUpti_SassMetricsSetConfig_Params sc = {CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    sc.numOfMetricConfig = (size_t)sp.n_cfg;
    sc.pConfigs = sp.cfg;
    sc.deviceIndex = sp.device;
    step("cuptiSassMetricsSetConfig");
    if (ck("cuptiSassMetricsSetConfig", cuptiSassMetricsSetConfig(&sc)) != 0)
        return -1;
    sp.is_configured = 1;
    return 0;
}

static int
enable(CUcontext ctx)
{
    if (sp.is_enabled)
        return 0;
    if (configure(ctx) != 0)
        return -1;
    double t0 = now_ms();
    CUpti_SassMetricsEnable_Params ep = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
    ep.ctx = ctx;
    ep.enableLazyPatching = (uint8_t)sp.lazy;
    step("cuptiSassMetricsEnable");
    if (ck(sp.lazy ? "cuptiSassMetricsEnable(lazy)" : "cuptiSassMetricsEnable(eager)",
           cuptiSassMetricsEnable(&ep)) != 0)
        return -1;
    sp.enable_ms += now_ms() - t0;
    sp.is_enabled = 1;
    sp.ctx = ctx;
    sp.enables++;
    return 0;
}

static int
metric_index(uint64_t id)
{
    for (int i = 0; i < sp.n_metrics; i++)
        if (sp.metric_ids[i] == id)
            return i;
    return -1;
}

/* Adds one flushed record to its function; call with tab_mu held. */
static void
take_record(const CUpti_SassMetrics_Data *d, size_t n_inst)
{
    const char *name = d->functionName ? d->functionName : "(unknown)";
    struct sp_func *f = func_get(name);
    if (!f) {
        sp.records_unknown_fn++;
        return;
    }
    if (f->records == 0) {
        f->crc = d->cubinCrc;
        f->first_flush = sp.flushes;
    }
    f->records++;
    uint64_t inst = 0;
    for (size_t j = 0; j < n_inst; j++) {
        int m = metric_index(d->pInstanceValues[j].metricId);
        if (m < 0)
            continue;
        f->sums[m] += d->pInstanceValues[j].value;
        if (m == 0)
            inst += d->pInstanceValues[j].value;
    }
    if (d->cubinCrc != f->crc)
        return;
    /* keep the busiest pcs for the source-line sample */
    for (int k = 0; k < SP_TOP_PCS; k++) {
        if (f->top_val[k] > 0 && f->top_pc[k] == d->pcOffset) {
            f->top_val[k] += inst;
            return;
        }
    }
    int lo = 0;
    for (int k = 1; k < SP_TOP_PCS; k++)
        if (f->top_val[k] < f->top_val[lo])
            lo = k;
    if (inst > f->top_val[lo]) {
        f->top_val[lo] = inst;
        f->top_pc[lo] = d->pcOffset;
    }
}

static int
cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return x < y ? -1 : x > y;
}

/* The caller frees the records' function names (NVIDIA's sample does); records of one function
 * may share one string, so each distinct pointer is freed once. */
static void
free_names(CUpti_SassMetrics_Data *data, size_t nr)
{
    void **p = malloc(nr * sizeof(*p));
    if (!p)
        return; /* leak rather than risk a double free */
    for (size_t i = 0; i < nr; i++)
        p[i] = (void *)data[i].functionName;
    qsort(p, nr, sizeof(*p), cmp_ptr);
    for (size_t i = 0; i < nr; i++)
        if (p[i] && (i == 0 || p[i] != p[i - 1]))
            free(p[i]);
    free(p);
}

/* Flushes what the context has collected so far; call with cupti_mu held. */
static int
flush(CUcontext ctx)
{
    if (!sp.is_enabled)
        return 0;
    double t0 = now_ms();
    CUpti_SassMetricsGetDataProperties_Params dp = {
        CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    dp.ctx = ctx;
    step("cuptiSassMetricsGetDataProperties");
    if (ck("cuptiSassMetricsGetDataProperties", cuptiSassMetricsGetDataProperties(&dp)) != 0)
        return -1;
    sp.flushes++;
    if (dp.numOfPatchedInstructionRecords == 0 || dp.numOfInstances == 0) {
        sp.empty_flushes++;
        return 0;
    }
    size_t nr = dp.numOfPatchedInstructionRecords, ni = dp.numOfInstances;
    CUpti_SassMetrics_Data *data = calloc(nr, sizeof(*data));
    CUpti_SassMetrics_InstanceValue *vals = calloc(nr * ni, sizeof(*vals));
    int ret = -1;
    if (!data || !vals) {
        note_err("malloc", ENOMEM);
        goto out;
    }
    for (size_t i = 0; i < nr; i++) {
        data[i].structSize = sizeof(data[i]);
        data[i].pInstanceValues = &vals[i * ni];
    }
    CUpti_SassMetricsFlushData_Params fp = {CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
    fp.ctx = ctx;
    fp.numOfPatchedInstructionRecords = nr;
    fp.numOfInstances = ni;
    fp.pMetricsData = data;
    step("cuptiSassMetricsFlushData");
    if (ck("cuptiSassMetricsFlushData", cuptiSassMetricsFlushData(&fp)) != 0)
        goto out;
    pthread_mutex_lock(&sp.tab_mu);
    sp.records_total += nr;
    for (size_t i = 0; i < nr; i++)
        take_record(&data[i], ni);
    pthread_mutex_unlock(&sp.tab_mu);
    free_names(data, nr);
    ret = 0;
out:
    free(data);
    free(vals);
    double dt = now_ms() - t0;
    sp.flush_ms += dt;
    if (dt > sp.max_flush_ms)
        sp.max_flush_ms = dt;
    return ret;
}

static int
disable(CUcontext ctx)
{
    if (!sp.is_enabled)
        return 0;
    CUpti_SassMetricsDisable_Params dp = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    dp.ctx = ctx;
    sp.is_enabled = 0;
    sp.disables++;
    step("cuptiSassMetricsDisable");
    if (ck("cuptiSassMetricsDisable", cuptiSassMetricsDisable(&dp)) != 0)
        return -1;
    sp.dropped_on_disable += dp.numOfDroppedRecords;
    return 0;
}

/* ---- helper thread (pattern thread) ---------------------------------------- */

static void *
helper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&sp.req_mu);
    for (;;) {
        while (sp.req == 0)
            pthread_cond_wait(&sp.req_cv, &sp.req_mu);
        int req = sp.req;
        CUcontext ctx = sp.req_ctx;
        pthread_mutex_unlock(&sp.req_mu);
        if (req == 3)
            return NULL;
        if (ckd("cuCtxPushCurrent", sp.ctx_push(ctx)) == 0) {
            pthread_mutex_lock(&sp.cupti_mu);
            sync_ctx();
            if (req == 1)
                enable(ctx);
            else
                flush(ctx);
            pthread_mutex_unlock(&sp.cupti_mu);
            CUcontext popped;
            ckd("cuCtxPopCurrent", sp.ctx_pop(&popped));
        }
        pthread_mutex_lock(&sp.req_mu);
        sp.req = 0;
        sp.req_done = sp.req_gen;
        pthread_cond_broadcast(&sp.req_cv);
    }
}

/* Asks the helper for REQ on CTX and waits at most 5 s, so a deadlock inside CUPTI cannot hang
 * the host: a timeout is counted as an error and the probe goes on. */
static void
helper_request(int req, CUcontext ctx)
{
    if (!sp.has_helper)
        return;
    pthread_mutex_lock(&sp.req_mu);
    if (sp.req != 0) {
        pthread_mutex_unlock(&sp.req_mu);
        note_err("helper(busy)", 0);
        return;
    }
    sp.req = req;
    sp.req_ctx = ctx;
    int gen = ++sp.req_gen;
    pthread_cond_broadcast(&sp.req_cv);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 5;
    while (sp.req_done != gen) {
        if (pthread_cond_timedwait(&sp.req_cv, &sp.req_mu, &dl) == ETIMEDOUT) {
            note_err("helper(timeout)", req);
            sp.has_helper = 0; /* a wedged helper would cost 5 s per launch */
            break;
        }
    }
    pthread_mutex_unlock(&sp.req_mu);
}

/* ---- callbacks ------------------------------------------------------------- */

static void
on_module_loaded(const CUpti_ResourceData *rd)
{
    const CUpti_ModuleResourceData *md = rd->resourceDescriptor;
    pthread_mutex_lock(&sp.tab_mu);
    sp.module_loads++;
    pthread_mutex_unlock(&sp.tab_mu);
    /* Copy only: computing the CRC here can deadlock on CUPTI's patching locks (it is done at
     * exit). The data is valid only inside this callback. */
    if (md && md->pCubin && md->cubinSize > 0) {
        void *copy = NULL;
        pthread_mutex_lock(&sp.tab_mu);
        int room =
            sp.n_cubins < SP_MAX_CUBINS && sp.cubin_bytes + md->cubinSize <= SP_CUBIN_CAP_BYTES;
        pthread_mutex_unlock(&sp.tab_mu);
        if (room && (copy = malloc(md->cubinSize)))
            memcpy(copy, md->pCubin, md->cubinSize);
        pthread_mutex_lock(&sp.tab_mu);
        if (copy && sp.n_cubins < SP_MAX_CUBINS) {
            sp.cubins[sp.n_cubins++] = (struct sp_cubin){.data = copy, .size = md->cubinSize};
            sp.cubin_bytes += md->cubinSize;
        } else {
            free(copy);
            sp.cubins_skipped++;
        }
        pthread_mutex_unlock(&sp.tab_mu);
    }
    if (sp.pattern == SP_MODULE && rd->context) {
        pthread_mutex_lock(&sp.cupti_mu);
        if (sp.is_enabled) {
            flush(rd->context);
            disable(rd->context);
        }
        enable(rd->context);
        pthread_mutex_unlock(&sp.cupti_mu);
    }
}

static void
on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
        on_module_loaded(rd);
        return;
    }
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
        if (sp.init == SP_INIT_CTX || !sp.is_profiler_ready)
            profiler_init("cuptiProfilerInitialize@context");
        if (sp.pattern == SP_PER_LAUNCH || sp.pattern == SP_THREAD || sp.pattern == SP_NONE)
            return;
        if (sp.pattern == SP_OUTER) {
            sp.pending_ctx = rd->context;
            __atomic_store_n(&sp.is_pending, 1, __ATOMIC_RELAXED);
            return;
        }
        pthread_mutex_lock(&sp.cupti_mu);
        if (!sp.ctx || sp.ctx == rd->context)
            enable(rd->context);
        pthread_mutex_unlock(&sp.cupti_mu);
        return;
    }
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        pthread_mutex_lock(&sp.cupti_mu);
        if (sp.is_enabled && sp.ctx == rd->context) {
            sync_ctx();
            flush(rd->context);
            disable(rd->context);
        }
        pthread_mutex_unlock(&sp.cupti_mu);
    }
}

static int
is_launch(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
}

/* The launched function's mangled name: the callback's symbolName, else cuFuncGetName. */
static const char *
launch_name(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (cb->symbolName && *cb->symbolName)
        return cb->symbolName;
    CUfunction fn = NULL;
    if (cb->functionParams) {
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
            cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz)
            fn = ((const cuLaunchKernelEx_params *)cb->functionParams)->f;
        else /* cuLaunchKernel, cuLaunchCooperativeKernel and _ptsz: f comes first */
            fn = ((const cuLaunchKernel_params *)cb->functionParams)->f;
    }
    const char *name = NULL;
    if (fn && sp.func_get_name && sp.func_get_name(&name, fn) == CUDA_SUCCESS && name)
        return name;
    return "(unnamed)";
}

static void
on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    const char *name = launch_name(cbid, cb);
    pthread_mutex_lock(&sp.tab_mu);
    sp.launches++;
    struct sp_func *f = func_get(name);
    if (f && f->launches++ == 0)
        f->first_launch = sp.launches;
    pthread_mutex_unlock(&sp.tab_mu);
    if (sp.pattern != SP_PER_LAUNCH)
        return;
    /* the control: armed from inside the launch's own callback */
    if (pthread_mutex_trylock(&sp.cupti_mu) != 0) {
        __atomic_add_fetch(&sp.busy_skips, 1, __ATOMIC_RELAXED);
        return;
    }
    sync_ctx();
    enable(cb->context);
    pthread_mutex_unlock(&sp.cupti_mu);
}

/* Pattern outer: the launch's (or context's) work is done at the EXIT of the outermost API call,
 * once the driver has returned, as public code that got data for every kernel does. */
static void
outer_exit(CUcontext ctx)
{
    if (!__atomic_load_n(&sp.is_pending, __ATOMIC_RELAXED))
        return;
    if (pthread_mutex_trylock(&sp.cupti_mu) != 0) {
        __atomic_add_fetch(&sp.busy_skips, 1, __ATOMIC_RELAXED);
        return;
    }
    if (!ctx)
        ctx = sp.pending_ctx;
    sp.is_pending = 0;
    sync_ctx();
    if (sp.is_enabled) {
        flush(ctx);
        if (!sp.is_keep)
            disable(ctx);
    }
    enable(ctx);
    pthread_mutex_unlock(&sp.cupti_mu);
}

static void
on_launch_exit(const CUpti_CallbackData *cb)
{
    uint64_t seq = __atomic_add_fetch(&sp.launch_seq, 1, __ATOMIC_RELAXED);
    static int late = -1;
    if (late < 0)
        late = getenv("SASSPROBE_ACTIVITY") && !strcmp(getenv("SASSPROBE_ACTIVITY"), "late");
    if (late && seq == 2)
        ck("cuptiActivityEnable(CONCURRENT_KERNEL)@late",
           cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    if (sp.pattern == SP_EXIT_ONLY || sp.pattern == SP_NONE)
        return;
    if (sp.pattern == SP_OUTER) {
        sp.pending_ctx = cb->context;
        __atomic_store_n(&sp.is_pending, 1, __ATOMIC_RELAXED);
        return;
    }
    if (sp.pattern == SP_THREAD) {
        helper_request(sp.is_enabled ? 2 : 1, cb->context);
        return;
    }
    int every = sp.pattern == SP_PER_LAUNCH || sp.pattern == SP_REARM ? 1 : sp.flush_every;
    if (seq % (uint64_t)every != 0)
        return;
    if (pthread_mutex_trylock(&sp.cupti_mu) != 0) {
        __atomic_add_fetch(&sp.busy_skips, 1, __ATOMIC_RELAXED);
        return;
    }
    sync_ctx();
    flush(cb->context);
    if (sp.pattern == SP_PER_LAUNCH || sp.pattern == SP_REARM)
        disable(cb->context);
    if (sp.pattern == SP_REARM)
        enable(cb->context);
    pthread_mutex_unlock(&sp.cupti_mu);
}

static int
is_instantiate(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2 ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz;
}

/* SASSPROBE_GRAPH=instantiate: armed at the ENTER of an instantiation (kept to the next graph
 * launch's EXIT). */
static void
on_graph_instantiate(const CUpti_CallbackData *cb)
{
    if (sp.graph == SP_GRAPH_WINDOW) {
        pthread_mutex_lock(&sp.cupti_mu);
        if (cb->callbackSite == CUPTI_API_ENTER && !sp.is_enabled) {
            sync_ctx();
            enable(cb->context);
        } else if (cb->callbackSite == CUPTI_API_EXIT && sp.is_enabled) {
            disable(cb->context);
        }
        pthread_mutex_unlock(&sp.cupti_mu);
        return;
    }
    if (sp.graph != SP_GRAPH_INSTANTIATE || cb->callbackSite != CUPTI_API_ENTER)
        return;
    pthread_mutex_lock(&sp.cupti_mu);
    if (!sp.is_enabled) {
        sync_ctx();
        enable(cb->context);
    }
    sp.graph_armed = sp.is_enabled;
    pthread_mutex_unlock(&sp.cupti_mu);
}

static void
on_graph_launch(const CUpti_CallbackData *cb)
{
    if (sp.graph == SP_GRAPH_OFF)
        return;
    pthread_mutex_lock(&sp.cupti_mu);
    if (cb->callbackSite == CUPTI_API_ENTER) {
        if ((sp.graph == SP_GRAPH_LAUNCH || sp.graph == SP_GRAPH_WINDOW) && !sp.is_enabled) {
            sync_ctx();
            enable(cb->context);
        }
    } else if (sp.is_enabled &&
               (sp.graph == SP_GRAPH_LAUNCH || sp.graph == SP_GRAPH_WINDOW || sp.graph_armed)) {
        sync_ctx();
        flush(cb->context);
        disable(cb->context);
        sp.graph_armed = 0;
    }
    pthread_mutex_unlock(&sp.cupti_mu);
}

static _Thread_local int api_depth; /* nesting of the API calls we get callbacks for */

static void CUPTIAPI
on_callback(void *ud, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    (void)ud;
    if (!sp.is_on)
        return;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        on_resource(cbid, data);
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API && domain != CUPTI_CB_DOMAIN_RUNTIME_API)
        return;
    const CUpti_CallbackData *cb = data;
    if (sp.pattern == SP_OUTER) {
        api_depth += cb->callbackSite == CUPTI_API_ENTER ? 1 : -1;
        if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
            if (api_depth <= 0) {
                api_depth = 0;
                outer_exit(cb->context);
            }
            return;
        }
        if (cb->callbackSite == CUPTI_API_EXIT && is_launch(cbid))
            on_launch_exit(cb);
        else if (cb->callbackSite == CUPTI_API_ENTER && is_launch(cbid))
            on_launch_enter(cbid, cb);
        if (cb->callbackSite == CUPTI_API_EXIT && api_depth <= 0) {
            api_depth = 0;
            outer_exit(cb->context);
        }
        if (is_launch(cbid))
            return;
    }
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
        if (cb->callbackSite == CUPTI_API_ENTER) {
            pthread_mutex_lock(&sp.tab_mu);
            sp.graph_launches++;
            pthread_mutex_unlock(&sp.tab_mu);
        }
        on_graph_launch(cb);
        return;
    }
    if (is_instantiate(cbid)) {
        on_graph_instantiate(cb);
        return;
    }
    if (!is_launch(cbid))
        return;
    if (cb->callbackSite == CUPTI_API_ENTER)
        on_launch_enter(cbid, cb);
    else
        on_launch_exit(cb);
}

/* ---- output ---------------------------------------------------------------- */

static void
json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static const char *
result_name(int r)
{
    if (r < 0)
        return "failed";
    if (r >= 100000)
        return "CUDA_ERROR";
    const char *s = NULL;
    if (cuptiGetResultString((CUptiResult)r, &s) != CUPTI_SUCCESS || !s)
        return "?";
    return s;
}

/* Finds the captured cubin whose CRC is CRC (computed here, at exit, off the callbacks). */
static const struct sp_cubin *
cubin_by_crc(uint32_t crc, uint32_t *crcs, int *n_done)
{
    for (int i = 0; i < sp.n_cubins; i++) {
        if (i >= *n_done) {
            CUpti_GetCubinCrcParams cp = {CUpti_GetCubinCrcParamsSize};
            cp.cubin = sp.cubins[i].data;
            cp.cubinSize = sp.cubins[i].size;
            crcs[i] =
                ck("cuptiGetCubinCrc", cuptiGetCubinCrc(&cp)) == 0 ? (uint32_t)cp.cubinCrc : 0;
            *n_done = i + 1;
        }
        if (crcs[i] == crc)
            return &sp.cubins[i];
    }
    return NULL;
}

static void
write_lines(FILE *out)
{
    uint32_t *crcs = calloc((size_t)sp.n_cubins + 1, sizeof(*crcs));
    int n_done = 0, n_out = 0;
    fprintf(out, "  \"source_lines\": [");
    for (int s = 0; crcs && s < SP_TAB_SLOTS && n_out < 60; s++) {
        struct sp_func *f = sp.tab[s];
        if (!f || f->records == 0)
            continue;
        const struct sp_cubin *cb = cubin_by_crc(f->crc, crcs, &n_done);
        for (int k = 0; k < SP_TOP_PCS; k++) {
            if (f->top_val[k] == 0)
                continue;
            CUpti_GetSassToSourceCorrelationParams p = {CUpti_GetSassToSourceCorrelationParamsSize};
            const char *file = "", *dir = "";
            uint32_t line = 0;
            int ok = 0;
            if (cb) {
                p.cubin = cb->data;
                p.cubinSize = cb->size;
                p.functionName = f->name;
                p.pcOffset = f->top_pc[k];
                ok =
                    ck("cuptiGetSassToSourceCorrelation", cuptiGetSassToSourceCorrelation(&p)) == 0;
                if (ok) {
                    file = p.fileName ? p.fileName : "";
                    dir = p.dirName ? p.dirName : "";
                    line = p.lineNumber;
                }
            }
            fprintf(out, "%s\n    {\"function\": ", n_out ? "," : "");
            json_str(out, f->name);
            fprintf(out,
                    ", \"crc\": %u, \"pc\": %u, \"inst\": %llu, \"cubin\": %s, \"file\": ", f->crc,
                    f->top_pc[k], (unsigned long long)f->top_val[k], cb ? "true" : "false");
            json_str(out, file);
            fprintf(out, ", \"dir\": ");
            json_str(out, dir);
            fprintf(out, ", \"line\": %u}", line);
            if (ok) {
                free(p.fileName);
                free(p.dirName);
            }
            n_out++;
        }
    }
    fprintf(out, "\n  ],\n");
    free(crcs);
}

static void
write_output(void)
{
    if (sp.did_write)
        return;
    sp.did_write = 1;
    char path[600];
    snprintf(path, sizeof(path), "%s/sassprobe-%ld.json", sp.out_dir, (long)getpid());
    FILE *out = fopen(path, "w");
    if (!out)
        return;
    fprintf(out, "{\n  \"pattern\": \"%s\",\n  \"lazy\": %d,\n  \"flush_every\": %d,\n",
            pattern_names[sp.pattern], sp.lazy, sp.flush_every);
    fprintf(out, "  \"keep\": %d,\n  \"graph\": %d,\n", sp.is_keep, sp.graph);
    /* which CUPTI our calls bound to: a framework may have loaded its own copy globally first */
    Dl_info di;
    uint32_t api = 0;
    cuptiGetVersion(&api);
    fprintf(out, "  \"cupti_api_version\": %u,\n  \"cupti_library\": ", api);
    json_str(out, dladdr((void *)cuptiSubscribe, &di) && di.dli_fname ? di.dli_fname : "?");
    fprintf(out, ",\n  \"cuda_module_loading\": ");
    json_str(out, getenv("CUDA_MODULE_LOADING") ? getenv("CUDA_MODULE_LOADING") : "");
    fprintf(out, ",\n");
    fprintf(out, "  \"init\": \"%s\",\n  \"profiler_initialized_at\": ",
            sp.init == SP_INIT_BEFORE  ? "before"
            : sp.init == SP_INIT_AFTER ? "after"
                                       : "ctx");
    json_str(out, sp.init_where ? sp.init_where : "");
    fprintf(out, ",\n  \"pid\": %ld,\n  \"chip\": ", (long)getpid());
    json_str(out, sp.chip);
    fprintf(out, ",\n  \"chip_sass_metrics\": %zu,\n  \"metrics\": [", sp.n_chip_metrics);
    for (int i = 0; i < sp.n_metrics; i++) {
        fprintf(out, "%s", i ? ", " : "");
        json_str(out, sp.metric_names[i]);
    }
    fprintf(out, "],\n  \"metrics_missing\": [");
    for (int i = 0; i < sp.n_missing; i++) {
        fprintf(out, "%s", i ? ", " : "");
        json_str(out, sp.missing[i]);
    }
    fprintf(out,
            "],\n  \"counts\": {\"launches\": %llu, \"graph_launches\": %llu, \"module_loads\": "
            "%llu, \"cubins\": %d, \"cubins_skipped\": %llu, \"enables\": %llu, \"disables\": "
            "%llu, \"flushes\": %llu, \"empty_flushes\": %llu, \"records\": %llu, "
            "\"busy_skips\": %llu, \"dropped_on_disable\": %llu, \"table_full\": %llu},\n",
            (unsigned long long)sp.launches, (unsigned long long)sp.graph_launches,
            (unsigned long long)sp.module_loads, sp.n_cubins, (unsigned long long)sp.cubins_skipped,
            (unsigned long long)sp.enables, (unsigned long long)sp.disables,
            (unsigned long long)sp.flushes, (unsigned long long)sp.empty_flushes,
            (unsigned long long)sp.records_total, (unsigned long long)sp.busy_skips,
            (unsigned long long)sp.dropped_on_disable, (unsigned long long)sp.tab_full);
    fprintf(out, "  \"ms\": {\"enable\": %.3f, \"flush\": %.3f, \"max_flush\": %.3f},\n",
            sp.enable_ms, sp.flush_ms, sp.max_flush_ms);
    fprintf(out, "  \"errors\": [");
    for (int i = 0; i < sp.n_errs; i++) {
        fprintf(out, "%s\n    {\"call\": ", i ? "," : "");
        json_str(out, sp.errs[i].call);
        fprintf(out, ", \"result\": %d, \"name\": ", sp.errs[i].result);
        json_str(out, result_name(sp.errs[i].result));
        fprintf(out, ", \"count\": %llu}", (unsigned long long)sp.errs[i].count);
    }
    fprintf(out, "\n  ],\n");
    write_lines(out);
    fprintf(out, "  \"functions\": [");
    int n = 0;
    for (int s = 0; s < SP_TAB_SLOTS; s++) {
        struct sp_func *f = sp.tab[s];
        if (!f)
            continue;
        fprintf(out, "%s\n    {\"name\": ", n++ ? "," : "");
        json_str(out, f->name);
        fprintf(out,
                ", \"launches\": %llu, \"first_launch\": %llu, \"first_flush\": %llu, "
                "\"has_data\": %s, \"records\": %llu, \"sums\": {",
                (unsigned long long)f->launches, (unsigned long long)f->first_launch,
                (unsigned long long)f->first_flush, f->records ? "true" : "false",
                (unsigned long long)f->records);
        for (int i = 0; i < sp.n_metrics; i++) {
            fprintf(out, "%s", i ? ", " : "");
            json_str(out, sp.metric_names[i]);
            fprintf(out, ": %llu", (unsigned long long)f->sums[i]);
        }
        fprintf(out, "}}");
    }
    fprintf(out, "\n  ]\n}\n");
    fclose(out);
}

static void
at_exit(void)
{
    if (!sp.is_on)
        return;
    /* A helper or callback wedged inside CUPTI holds cupti_mu: then write what we have. */
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 3;
    int is_locked = pthread_mutex_timedlock(&sp.cupti_mu, &dl) == 0;
    if (!is_locked)
        note_err("exit(cupti lock busy)", -1);
    if (is_locked && sp.is_enabled && sp.ctx) {
        CUcontext cur = NULL;
        int pushed = 0;
        if (sp.ctx_get_current && sp.ctx_get_current(&cur) == CUDA_SUCCESS && cur != sp.ctx)
            pushed = sp.ctx_push && sp.ctx_push(sp.ctx) == CUDA_SUCCESS;
        sync_ctx();
        flush(sp.ctx);
        if (pushed) {
            CUcontext popped;
            sp.ctx_pop(&popped);
        }
    }
    if (is_locked)
        pthread_mutex_unlock(&sp.cupti_mu);
    if (sp.has_helper) {
        pthread_mutex_lock(&sp.req_mu);
        sp.req = 3;
        pthread_cond_broadcast(&sp.req_cv);
        pthread_mutex_unlock(&sp.req_mu);
    }
    step("exit: writing output");
    write_output();
    step("exit: done");
}

/* ---- entry ----------------------------------------------------------------- */

static void
read_env(void)
{
    const char *p = getenv("SASSPROBE_PATTERN");
    sp.pattern = SP_CTX_LAZY;
    for (int i = 0; p && i < (int)(sizeof(pattern_names) / sizeof(pattern_names[0])); i++) {
        /* a single letter a..g names the pattern too */
        if (strcmp(p, pattern_names[i]) == 0 || (p[0] == 'a' + i && p[1] == '\0'))
            sp.pattern = (enum sp_pattern)i;
    }
    sp.lazy = sp.pattern != SP_CTX_EAGER;
    const char *l = getenv("SASSPROBE_LAZY");
    if (l && *l)
        sp.lazy = atoi(l) != 0;
    const char *e = getenv("SASSPROBE_FLUSH_EVERY");
    sp.flush_every = e && atoi(e) > 0 ? atoi(e) : 1;
    const char *k = getenv("SASSPROBE_KEEP");
    sp.is_keep = k && atoi(k) != 0;
    const char *g = getenv("SASSPROBE_GRAPH");
    sp.graph = !g                          ? SP_GRAPH_OFF
               : !strcmp(g, "launch")      ? SP_GRAPH_LAUNCH
               : !strcmp(g, "instantiate") ? SP_GRAPH_INSTANTIATE
               : !strcmp(g, "window")      ? SP_GRAPH_WINDOW
                                           : SP_GRAPH_OFF;
    const char *in = getenv("SASSPROBE_INIT");
    sp.init = SP_INIT_BEFORE;
    if (in && strcmp(in, "after") == 0)
        sp.init = SP_INIT_AFTER;
    else if (in && strcmp(in, "ctx") == 0)
        sp.init = SP_INIT_CTX;
    const char *o = getenv("SASSPROBE_OUT");
    snprintf(sp.out_dir, sizeof(sp.out_dir), "%s", o && *o ? o : "/tmp");
    mkdir(sp.out_dir, 0755);
    char path[600];
    snprintf(path, sizeof(path), "%s/sassprobe-%ld.log", sp.out_dir, (long)getpid());
    sp.trace_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    snprintf(path, sizeof(path), "%s/sassprobe-%ld.last", sp.out_dir, (long)getpid());
    sp.last_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const char *m = getenv("SASSPROBE_METRICS");
    if (m && *m) {
        char *copy = strdup(m), *save = NULL;
        for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && sp.n_metrics < SP_MAX_METRICS;
             t = strtok_r(NULL, ",", &save))
            sp.metric_names[sp.n_metrics++] = t; /* copy kept for the process's life */
    }
    if (sp.n_metrics == 0) {
        for (size_t i = 0; i < sizeof(default_metrics) / sizeof(default_metrics[0]); i++)
            sp.metric_names[sp.n_metrics++] = default_metrics[i];
    }
}

/* SASSPROBE_ACTIVITY's buffers: records are counted and dropped. */
static void CUPTIAPI
act_request(uint8_t **buf, size_t *size, size_t *max)
{
    *size = 1 << 20;
    *buf = aligned_alloc(8, *size);
    *max = 0;
}

static void CUPTIAPI
act_complete(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    (void)valid;
    free(buf);
}

SP_EXPORT int
InitializeInjection(void)
{
    static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
    static int done;
    pthread_mutex_lock(&once);
    if (done) {
        pthread_mutex_unlock(&once);
        return 1;
    }
    done = 1;
    pthread_mutex_unlock(&once);
    sp.t0_ms = now_ms();
    read_env();
    step("InitializeInjection");
    atexit(at_exit);
    if (load_driver() != 0)
        note_err("dlopen(libcuda.so.1)", -1);
    if (sp.init == SP_INIT_BEFORE)
        profiler_init("cuptiProfilerInitialize@inject-before-subscribe");
    if (ck("cuptiSubscribe", cuptiSubscribe(&sp.sub, on_callback, NULL)) != 0) {
        sp.is_on = 1; /* so at_exit writes the errors; no callback will come */
        return 1;
    }
    if (sp.init == SP_INIT_AFTER)
        profiler_init("cuptiProfilerInitialize@inject-after-subscribe");
    ck("cuptiEnableDomain(resource)", cuptiEnableDomain(1, sp.sub, CUPTI_CB_DOMAIN_RESOURCE));
    const CUpti_CallbackId ids[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
        CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
        CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
        CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
        CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz,
    };
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        ck("cuptiEnableCallback",
           cuptiEnableCallback(1, sp.sub, CUPTI_CB_DOMAIN_DRIVER_API, ids[i]));
    if (sp.pattern == SP_OUTER)
        ck("cuptiEnableDomain(runtime)", cuptiEnableDomain(1, sp.sub, CUPTI_CB_DOMAIN_RUNTIME_API));
    if (sp.pattern == SP_THREAD && sp.ctx_push) {
        if (pthread_create(&sp.helper, NULL, helper_main, NULL) == 0) {
            pthread_detach(sp.helper);
            sp.has_helper = 1;
        } else {
            note_err("pthread_create", errno);
        }
    }
    /*
     * SASSPROBE_ACTIVITY: kernel activity on, as the collector has it: 1 (concurrent
     * kernels, from the start), kernel (CUPTI_ACTIVITY_KIND_KERNEL, from the start),
     * late (concurrent kernels, from the first launch's EXIT on).
     */
    const char *act = getenv("SASSPROBE_ACTIVITY");
    if (act) {
        ck("cuptiActivityRegisterCallbacks",
           cuptiActivityRegisterCallbacks(act_request, act_complete));
        if (!strcmp(act, "kernel"))
            ck("cuptiActivityEnable(KERNEL)", cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL));
        else if (strcmp(act, "late"))
            ck("cuptiActivityEnable(CONCURRENT_KERNEL)",
               cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    }
    sp.is_on = 1;
    return 1;
}
