/* SPDX-License-Identifier: MIT */
/*
 * engine_sass: the instrumentation engine, a counter engine (engine.h),
 * on CUPTI's SASS metrics API (cupti_sass_metrics.h).
 *
 * A launch the sampler gives it runs with its function patched: CUPTI
 * counts, per SASS instruction, the pattern metrics below (instructions,
 * global sectors and their ideal, shared wavefronts and their ideal, local
 * traffic, access widths, branch targets), exactly, with no replay and no
 * memory saved or restored. The counts go to the writer as one REC_SASS
 * record (a heap batch), which it turns into inst_launch and inst_count
 * rows with the line table of the function's cubin (schema.sql
 * "Per-instruction counts").
 *
 * How it arms, from bench/sassprobe on the H200 (docs/sassprobe.md
 * "Results"): with lazy patching (never eager: eager patching returned no
 * data in any workload), from the launch callbacks (the context callback
 * fails under JAX, whose context is not current there), Enable at the
 * ENTER of the served launch after a context synchronize, and at its EXIT
 * a synchronize, a flush and Disable: every function of PyTorch, Triton,
 * JAX and CUDA C programs returned counts that way.
 *
 * sass_lock is held from that ENTER to that EXIT, so the counts are the
 * served launch's: a launch on another thread waits for it (at most
 * SASS_WAIT_MS, then goes on: the range profiler's lock may be held by
 * that thread, and two engines waiting on each other would hang the
 * program); a kernel that got in anyway is another function, whose
 * records the batch leaves out, or the same one, whose counts add up
 * (a rare overlap the docs name).
 *
 * Opt-in for now (GPUHIER_INSTRUMENT=1): it then serves every launch the
 * sampling chooses, and the range profiler none in that process
 * (sampler.c: on the H200 the range profiler's Start deadlocked inside
 * CUPTI after this engine had served launches). Any CUPTI failure turns
 * the engine off for the process, with one event; tracing goes on.
 */
#include "collector/collector_int.h"
#include "collector/engine.h"
#include "collector/notes.h"
#include "collector/options.h"

#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What the engine asks for: what schema.sql's v_inst reads. */
static const char *const sass_metrics[] = {
    "smsp__sass_inst_executed",
    "smsp__sass_thread_inst_executed",
    "smsp__sass_inst_executed_op_global_ld",
    "smsp__sass_inst_executed_op_global_st",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal",
    "smsp__sass_data_bytes_mem_global",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_inst_executed_op_local_ld",
    "smsp__sass_inst_executed_op_local_st",
    "smsp__sass_sectors_mem_local",
    "smsp__sass_inst_executed_op_memory_8b",
    "smsp__sass_inst_executed_op_memory_16b",
    "smsp__sass_inst_executed_op_memory_32b",
    "smsp__sass_inst_executed_op_memory_64b",
    "smsp__sass_inst_executed_op_memory_128b",
    "smsp__sass_inst_executed_op_ldgsts",
    "smsp__sass_inst_executed_op_tma",
    "smsp__sass_branch_targets",
    "smsp__sass_branch_targets_threads_divergent",
};
#define NM (sizeof(sass_metrics) / sizeof(sass_metrics[0]))
#define SASS_WAIT_MS 200

static struct {
    pthread_mutex_t lock; /* held from a served launch's ENTER to its EXIT */
    atomic_int busy;      /* a served launch holds the lock */
    atomic_int off;       /* failed once: the engine is off for the process */
    int ready;            /* metric ids resolved (lock) */
    CUcontext configured; /* the context whose device got SetConfig (lock) */
    uint64_t ids[NM];
    int have[NM]; /* the chip knows the metric */
    CUpti_SassMetrics_Config cfg[NM];
    size_t ncfg;
    atomic_llong ns;
    atomic_long served;
    atomic_long refused_records; /* records of other functions left out */
} X = {.lock = PTHREAD_MUTEX_INITIALIZER};

static __thread CUcontext tls_ctx;
static __thread uint32_t tls_corr;
static __thread int64_t tls_t0;
static __thread char tls_name[REC_NAME_MAX];
static __thread char tls_reason[24];

void
sass_launch_reason(const char *why)
{
    gh_copy(tls_reason, sizeof(tls_reason), why ? why : "");
}

static void
sass_off(const char *call, CUptiResult rc)
{
    if (atomic_exchange(&X.off, 1))
        return;
    push_event("warning", "instrumentation_failed",
               "the instrumentation engine stopped: %s failed: %s; tracing goes on (the range "
               "profiler is not used in a process that instruments)",
               call, cupti_err(rc));
}

/* Resolves the metric ids and sets the config for the context's device (lock held). */
static int
sass_configure(CUcontext ctx)
{
    CUptiResult rc;
    if (X.configured == ctx)
        return 0;
    CUdevice dev = 0;
    if (gh.cuCtxGetDevice)
        gh.cuCtxGetDevice(&dev);
    if (!X.ready) {
        CUpti_Profiler_Initialize_Params ip = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        if ((rc = gh.cuptiProfilerInitialize(&ip)) != CUPTI_SUCCESS) {
            sass_off("cuptiProfilerInitialize", rc);
            return -1;
        }
        CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
        cn.deviceIndex = (size_t)dev;
        if ((rc = gh.cuptiDeviceGetChipName(&cn)) != CUPTI_SUCCESS || !cn.pChipName) {
            sass_off("cuptiDeviceGetChipName", rc);
            return -1;
        }
        for (size_t i = 0; i < NM; i++) {
            CUpti_SassMetrics_GetProperties_Params gp = {
                CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
            gp.pChipName = cn.pChipName;
            gp.pMetricName = sass_metrics[i];
            if (gh.cuptiSassMetricsGetProperties(&gp) != CUPTI_SUCCESS)
                continue; /* this chip has no such metric: its column reads 0 */
            X.ids[i] = gp.metric.metricId;
            X.have[i] = 1;
            X.cfg[X.ncfg++] = (CUpti_SassMetrics_Config){
                .metricId = gp.metric.metricId,
                .outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU};
        }
        if (!X.ncfg) {
            sass_off("cuptiSassMetricsGetProperties", CUPTI_ERROR_INVALID_METRIC_NAME);
            return -1;
        }
        X.ready = 1;
    }
    CUpti_SassMetricsSetConfig_Params sc = {CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    sc.numOfMetricConfig = X.ncfg;
    sc.pConfigs = X.cfg;
    sc.deviceIndex = (uint32_t)dev;
    if ((rc = gh.cuptiSassMetricsSetConfig(&sc)) != CUPTI_SUCCESS) {
        sass_off("cuptiSassMetricsSetConfig", rc);
        return -1;
    }
    X.configured = ctx;
    return 0;
}

static int
sass_available(void)
{
    return !atomic_load(&X.off) && gh.cuptiSassMetricsEnable != NULL;
}

static int
sass_launch_begin(const struct engine_launch *l, unsigned extras)
{
    (void)extras;
    if (!sass_available())
        return -1;
    pthread_mutex_lock(&X.lock);
    atomic_store(&X.busy, 1);
    tls_t0 = mono_ns();
    /* nothing of the program's queued work may run patched */
    if (gh.cuCtxSynchronize)
        gh.cuCtxSynchronize();
    CUptiResult rc = CUPTI_SUCCESS;
    if (sass_configure(l->ctx) == 0) {
        CUpti_SassMetricsEnable_Params ep = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
        ep.ctx = l->ctx;
        ep.enableLazyPatching = 1;
        if ((rc = gh.cuptiSassMetricsEnable(&ep)) == CUPTI_SUCCESS) {
            tls_ctx = l->ctx;
            tls_corr = l->corr;
            gh_copy(tls_name, sizeof(tls_name), l->mangled ? l->mangled : "");
            return 0;
        }
        sass_off("cuptiSassMetricsEnable", rc);
    }
    atomic_store(&X.busy, 0);
    pthread_mutex_unlock(&X.lock);
    return -1;
}

/* The flushed records of the served function, as one batch; NULL when none or no memory. */
static struct sass_batch *
sass_take(const CUpti_SassMetrics_Data *d, size_t nr, size_t ni)
{
    struct sass_batch *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    b->nm = NM;
    b->metrics = sass_metrics;
    b->crc = calloc(nr, sizeof(*b->crc));
    b->pc = calloc(nr, sizeof(*b->pc));
    b->fn = calloc(nr, sizeof(*b->fn));
    b->names = calloc(nr, sizeof(*b->names));
    b->values = calloc(nr * NM, sizeof(*b->values));
    if (!b->crc || !b->pc || !b->fn || !b->names || !b->values)
        goto fail;
    for (size_t i = 0; i < nr; i++) {
        const char *name = d[i].functionName ? d[i].functionName : "";
        /* only the served function: a kernel another thread got in is not this launch's */
        if (tls_name[0] && strcmp(name, tls_name)) {
            atomic_fetch_add_explicit(&X.refused_records, 1, memory_order_relaxed);
            continue;
        }
        /* a launch without a symbol name keeps every function's records, each under its name */
        size_t f = 0;
        while (f < b->nnames && strcmp(b->names[f], name))
            f++;
        if (f == b->nnames && !(b->names[b->nnames++] = strdup(name)))
            goto fail;
        size_t k = b->n++;
        b->crc[k] = d[i].cubinCrc;
        b->pc[k] = d[i].pcOffset;
        b->fn[k] = (uint32_t)f;
        for (size_t j = 0; j < ni; j++)
            for (size_t m = 0; m < NM; m++)
                if (X.have[m] && X.ids[m] == d[i].pInstanceValues[j].metricId)
                    b->values[k * NM + m] += d[i].pInstanceValues[j].value;
    }
    if (b->n)
        return b;
fail:
    sass_batch_free(b);
    return NULL;
}

static int
cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (const char *const *)a, y = (uintptr_t) * (const char *const *)b;
    return x < y ? -1 : x > y;
}

/*
 * Frees the function names CUPTI allocated; records of one function may
 * share a string, so each distinct pointer is freed once (sorted: a
 * launch may have thousands of records).
 */
static void
sass_free_names(CUpti_SassMetrics_Data *d, size_t nr)
{
    const char **p = malloc(nr * sizeof(*p));
    if (!p)
        return; /* leak rather than risk a double free */
    for (size_t i = 0; i < nr; i++)
        p[i] = d[i].functionName;
    qsort(p, nr, sizeof(*p), cmp_ptr);
    for (size_t i = 0; i < nr; i++)
        if (p[i] && (i == 0 || p[i] != p[i - 1]))
            free((void *)p[i]);
    free(p);
}

static void
sass_launch_end(int launch_ok)
{
    CUcontext ctx = tls_ctx;
    struct sass_batch *b = NULL;
    if (gh.cuCtxSynchronize)
        gh.cuCtxSynchronize();
    CUpti_SassMetricsGetDataProperties_Params dp = {
        CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    dp.ctx = ctx;
    CUptiResult rc = gh.cuptiSassMetricsGetDataProperties(&dp);
    if (rc == CUPTI_SUCCESS && launch_ok && dp.numOfPatchedInstructionRecords &&
        dp.numOfInstances) {
        size_t nr = dp.numOfPatchedInstructionRecords, ni = dp.numOfInstances;
        CUpti_SassMetrics_Data *d = calloc(nr, sizeof(*d));
        CUpti_SassMetrics_InstanceValue *v = calloc(nr * ni, sizeof(*v));
        if (d && v) {
            for (size_t i = 0; i < nr; i++) {
                d[i].structSize = sizeof(d[i]);
                d[i].pInstanceValues = &v[i * ni];
            }
            CUpti_SassMetricsFlushData_Params fp = {CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
            fp.ctx = ctx;
            fp.numOfPatchedInstructionRecords = nr;
            fp.numOfInstances = ni;
            fp.pMetricsData = d;
            if ((rc = gh.cuptiSassMetricsFlushData(&fp)) == CUPTI_SUCCESS) {
                b = sass_take(d, nr, ni);
                sass_free_names(d, nr);
            } else {
                sass_off("cuptiSassMetricsFlushData", rc);
            }
        }
        free(d);
        free(v);
    } else if (rc != CUPTI_SUCCESS) {
        sass_off("cuptiSassMetricsGetDataProperties", rc);
    }
    CUpti_SassMetricsDisable_Params dis = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    dis.ctx = ctx;
    if ((rc = gh.cuptiSassMetricsDisable(&dis)) != CUPTI_SUCCESS)
        sass_off("cuptiSassMetricsDisable", rc);
    int64_t dt = mono_ns() - tls_t0;
    atomic_fetch_add(&X.ns, dt);
    atomic_store(&X.busy, 0);
    pthread_mutex_unlock(&X.lock);
    if (!b)
        return;
    atomic_fetch_add(&X.served, 1);
    struct rec r = {.type = REC_SASS};
    r.u.sass.corr = tls_corr;
    r.u.sass.overhead_ns = dt;
    gh_copy(r.u.sass.reason, sizeof(r.u.sass.reason), tls_reason);
    r.u.sass.batch = b;
    if (writer_push(&r))
        sass_batch_free(b);
}

static void
sass_launch_other(int capturing)
{
    if (capturing || !atomic_load(&X.busy))
        return;
    /* another thread's launch is instrumented: wait for it, boundedly (file comment) */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += SASS_WAIT_MS * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    if (pthread_mutex_timedlock(&X.lock, &until) == 0)
        pthread_mutex_unlock(&X.lock);
}

static void
sass_stats(struct engine_stats *s)
{
    s->profiling_ns += atomic_load(&X.ns);
    s->profiles += atomic_load(&X.served);
}

static void
sass_exit_notes(void)
{
    long n = atomic_load(&X.served);
    if (!opt.instrument)
        return;
    char v[96];
    snprintf(v, sizeof(v), "%ld launches, %.1f ms", n, atomic_load(&X.ns) / 1e6);
    push_meta("instrumented_launches", v);
    if (atomic_load(&X.refused_records))
        push_event("info", "instrumentation_overlap",
                   "%ld instruction records of kernels launched on other threads while a launch "
                   "was instrumented were left out",
                   atomic_load(&X.refused_records));
}

const struct counter_engine engine_sass = {
    .available = sass_available,
    .launch_begin = sass_launch_begin,
    .launch_end = sass_launch_end,
    .launch_other = sass_launch_other,
    .exit_notes = sass_exit_notes,
    .stats = sass_stats,
};
