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
 * program), and one that looked before the ENTER is waited for before
 * the Enable (X.others); a kernel that got in anyway (that give-up) is
 * another function, whose records the batch leaves out, or the same one,
 * whose counts add up.
 *
 * Graph launches (cuGraphLaunch: kernel nodes have no launch callback):
 * CUPTI patches a graph's kernel nodes only when SASS metrics are enabled
 * while the graph is instantiated, so the instantiation of a graph that
 * graph_scan() finds safe is armed (sass_instantiate_wanted(); graphscan.h
 * says why some are not), and the first launch of each armed executable
 * (up to SASS_MAX_GRAPHS) is served the same way as a launch, Enable at
 * its ENTER and flush at its EXIT; every function's records are kept,
 * each under its name, and the writer gives each function's counts to
 * the graph launch's kernel node of that function (schema.sql
 * inst_launch.graph_corr). The later launches of an armed executable run
 * its patched code unenabled, at its native speed on the H200
 * (docs/collector.md "Graphs").
 *
 * Opt-in for now (GPUHIER_INSTRUMENT=1: it serves every launch the
 * sampling chooses, the range profiler none; =both: it serves each
 * configuration's first chosen launch, and after each one its config is
 * unset (cuptiSassMetricsUnsetConfig) before the range profiler may run,
 * the combination not yet run on the device; sampler.c; =phased: it
 * serves each configuration's first chosen launch while the
 * instrumentation window is open, with one SetConfig kept for the whole
 * window, and retires when it closes: Disable if enabled, one
 * UnsetConfig, never configured again (sass_retire(); on the H200 a
 * second SetConfig in the process failed with CUPTI_ERROR_OUT_OF_MEMORY,
 * docs/collector.md "The instrumentation window"). Any CUPTI
 * failure turns the engine off for the process, with one event; tracing
 * goes on. GPUHIER_FAULT sites 'sass_config' and 'sass_enable' replace
 * SetConfig and Enable (docs/fault-injection.md).
 */
#include "collector/activity.h"
#include "collector/collector_int.h"
#include "collector/engine.h"
#include "collector/exit.h"
#include "collector/graphscan.h"
#include "collector/umap.h"
#include "collector/notes.h"
#include "collector/options.h"

#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * What the engine asks for: what schema.sql's v_inst reads. Not asked
 * since 2026-12-03: smsp__sass_data_bytes_mem_global and
 * smsp__sass_branch_targets, which the H200 (CUDA 13.0, driver 580)
 * refuses (meta instrumentation_metrics_missing of that day's reports;
 * they read 0 on every launch Nsight Compute counted, docs/agreement.md).
 */
static const char *const sass_metrics[] = {
    /*
     * smsp__sass_thread_inst_executed is not asked since 2026-12-06: no
     * rule reads it, and it is one of the two metrics that patch every
     * instruction (without it the engine took 9 % less time on the PyTorch
     * benchmark, H100: docs/instrument-cost.md "Where the engine's time
     * goes, and one metric less"); v_inst's thread_inst_executed reads NULL
     */
    "smsp__sass_inst_executed",
    "smsp__sass_inst_executed_op_global_ld",
    "smsp__sass_inst_executed_op_global_st",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal",
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
    "smsp__sass_branch_targets_threads_divergent",
};
#define NM (sizeof(sass_metrics) / sizeof(sass_metrics[0]))
#define SASS_WAIT_MS 200
#define SASS_MAX_GRAPHS 1024
/* the most launches one enable serves under GPUHIER_DIAG_SASS_CHAIN=1 (sass_arm()) */
#define SASS_CHAIN_MAX 64
/* how long an arming waits for the launches of other threads already under way (sass_arm()) */
#define SASS_OTHERS_WAIT_MS 100
/* how long a graph launch or a quiesce waits to shut an enable left open (sass_graph_launch()) */
#define SERVE_QUIESCE_WAIT_MS 2000

/* The phases of a served launch, in order (sass_phase()). */
/* PH_SWAP: kernel tracing's swap to KIND_KERNEL at the ENTER and back at the EXIT, summed */
enum { PH_DRAIN, PH_SWAP, PH_ENABLE, PH_RUN, PH_FLUSH, PH_DISABLE, PH_N };

static struct {
    pthread_mutex_t lock;       /* held from a served launch's ENTER to its EXIT */
    atomic_int busy;            /* a served launch holds the lock */
    atomic_int off;             /* failed once: the engine is off for the process */
    atomic_int retired;         /* retired (sass_retire()): off for the process, not failed */
    char retired_note[96];      /* retire()'s note (written once, before `retired`) */
    CUcontext enabled_ctx;      /* the context Enable armed, NULL: not enabled (lock) */
    char off_why[160];          /* "CALL: ERROR" of that failure (written once, before `off`) */
    char missing[256];          /* metrics of the list the chip refused, comma-joined (lock) */
    atomic_int ready;           /* metric ids and `missing` resolved (written under the lock,
                                   last; read without it at exit: release/acquire) */
    int configured_dev;         /* the device that got SetConfig, + 1; 0: none (lock) */
    pthread_mutex_t graph_lock; /* graphs, armed */
    CUgraphExec graphs[SASS_MAX_GRAPHS]; /* executable graphs whose first launch was taken */
    size_t ngraphs;
    CUgraphExec armed[SASS_MAX_GRAPHS]; /* executable graphs instantiated under SASS metrics */
    size_t narmed;
    atomic_long served_graphs; /* graph launches served with records */
    atomic_long graphs_left;   /* graph launches of executables not armed: run unpatched */
    atomic_long windows;       /* graph instantiations armed (sass_instantiate_arm()) */
    atomic_long unsafe;        /* graph instantiations the scan kept unarmed (graphscan.h) */
    char unsafe_first[160];    /* the first of them: graph_scan's `first` (graph_lock) */
    atomic_long known;         /* safe graph instantiations with no function not counted yet */
    struct umap counted; /* graph_scan_key()s of functions instrumented or armed (graph_lock) */
    uint64_t ids[NM];
    int have[NM]; /* the chip knows the metric */
    CUpti_SassMetrics_Config cfg[NM];
    size_t ncfg;
    atomic_llong ns;
    /* where ns went (PH_*), summed over the served launches: meta instrumented_launches */
    atomic_llong phase_ns[PH_N];
    atomic_llong launch_call_ns; /* of PH_RUN: the launch calls themselves (sass_collect()) */
    atomic_llong init_ns;        /* cuptiProfilerInitialize at a context's creation */
    atomic_long served;
    atomic_long refused_records; /* records of other functions left out */
    /*
     * GPUHIER_DIAG_SASS_CHAIN=1: enabled past a served launch's EXIT (its
     * counts flushed), so that the next launch, if the engine serves it
     * too, runs in the same enable; any other launch shuts it first
     * (sass_chain_takes(), sass_shut())
     */
    atomic_int open;
    CUfunction chain[SASS_CHAIN_MAX]; /* the functions served in the open enable (lock) */
    size_t nchain;
    atomic_long chained; /* launches served in an enable another launch made */
    /*
     * launches the engine does not serve that looked and went on, from their
     * launch_other() (before it looks at `busy` and `open`) to their EXIT
     * (sass_launch_other()): an arming waits for them before its Enable, and
     * an enable is kept open past a served launch's EXIT, or a launch chained
     * into it, only while there is none (sass_arm(), sass_release()). Each
     * side stores first and loads the other's after (seq_cst), so either
     * that launch sees the engine busy or the enable open, or the engine
     * sees the launch.
     */
    atomic_long others;
    atomic_long shut_by; /* open enables shut by a kernel the engine did not serve */
} X = {.lock = PTHREAD_MUTEX_INITIALIZER, .graph_lock = PTHREAD_MUTEX_INITIALIZER};

static __thread CUcontext tls_ctx;
static __thread uint32_t tls_corr;
static __thread int64_t tls_t0, tls_tmark;

/* Ends phase `ph` of the calling thread's served launch now. */
static void
sass_phase(int ph)
{
    int64_t now = mono_ns();
    atomic_fetch_add(&X.phase_ns[ph], now - tls_tmark);
    tls_tmark = now;
}

/*
 * The served function's name: its first REC_NAME_MAX - 1 bytes, for the
 * record, and its length and hash, so that a record is told the served
 * function's by the whole name (sass_served_name()). Compared on the
 * truncated copy alone, every record of a function whose mangled name
 * was 256 bytes or longer was left out: 23 of the PyTorch benchmark's 145
 * configurations (its batch-norm and elementwise templates, names of
 * 267-1,623 bytes) had no counts on the H200 (2026-12-02).
 */
static __thread char tls_name[REC_NAME_MAX];
static __thread size_t tls_name_len;
static __thread uint64_t tls_name_hash;

static void
sass_serve_name(const char *name)
{
    gh_copy(tls_name, sizeof(tls_name), name ? name : "");
    tls_name_hash = gh_name_hash(name);
    tls_name_len = strlen(name ? name : "");
}

/* Whether `name` is the served function's (always, when the launch had no name). */
static int
sass_served_name(const char *name)
{
    if (!tls_name[0])
        return 1;
    return strlen(name) == tls_name_len && gh_name_hash(name) == tls_name_hash &&
           !strncmp(name, tls_name, sizeof(tls_name) - 1);
}

static __thread char tls_reason[24];

void
sass_launch_reason(const char *why)
{
    gh_copy(tls_reason, sizeof(tls_reason), why ? why : "");
}

static void
sass_off(const char *call, CUptiResult rc)
{
    static atomic_int said;
    if (atomic_exchange(&said, 1))
        return;
    snprintf(X.off_why, sizeof(X.off_why), "%s failed: %s", call, cupti_err(rc));
    atomic_store(&X.off, 1);
    push_event("warning", "instrumentation_failed",
               "the instrumentation engine stopped: %s; tracing goes on%s", X.off_why,
               opt.instrument == ENGINES_BOTH || opt.instrument == ENGINES_PHASED
                   ? " (the range profiler takes the configurations' next launches)"
                   : " (the range profiler is not used in a process that instruments)");
}

void
sass_state(char *buf, size_t n, long *launches, long *graphs, const char **note)
{
    *launches = atomic_load(&X.served);
    *graphs = atomic_load(&X.served_graphs);
    if (note)
        *note = atomic_load(&X.retired) ? X.retired_note : "";
    if (atomic_load(&X.off))
        snprintf(buf, n, "failed: %s", X.off_why);
    else if (!gh.cuptiSassMetricsEnable)
        snprintf(buf, n, "failed: the loaded CUPTI has no SASS metrics API");
    else if (*launches || *graphs)
        snprintf(buf, n, "ran");
    else
        snprintf(buf, n, "idle: no launch was given to it");
}

/*
 * Unsets the config of the configured device (lock held): with both
 * engines after every served launch, so the range profiler never starts
 * while a SASS metrics config is set in the process (the deadlock of
 * docs/collector.md; the hypothesis next to test on the device), and
 * before configuring another device. 0 or -1 (the engine is off).
 */
static int
sass_unconfigure(void)
{
    if (!X.configured_dev)
        return 0;
    CUpti_SassMetricsUnsetConfig_Params up = {CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    up.deviceIndex = (uint32_t)(X.configured_dev - 1);
    X.configured_dev = 0;
    CUptiResult rc =
        gh.cuptiSassMetricsUnsetConfig ? gh.cuptiSassMetricsUnsetConfig(&up) : CUPTI_SUCCESS;
    if (rc != CUPTI_SUCCESS) {
        sass_off("cuptiSassMetricsUnsetConfig", rc);
        return -1;
    }
    return 0;
}

static int
sass_available(void)
{
    return !atomic_load(&X.off) && !atomic_load(&X.retired) && gh.cuptiSassMetricsEnable != NULL;
}

/*
 * GPUHIER_INSTRUMENT=phased, the window closes (sampler.c): on the
 * launching thread before any range-profiler call, Disable if enabled and
 * the one UnsetConfig, so the range profiler never starts while a SASS
 * metrics config is set (cuptiRangeProfilerStart deadlocked inside CUPTI
 * then, on the H200); the engine is then off for the process without
 * having failed. Waits for a launch served on another thread (the lock).
 */
static void
sass_retire_as(const char *note, int resume)
{
    pthread_mutex_lock(&X.lock);
    if (!atomic_load(&X.retired)) {
        gh_copy(X.retired_note, sizeof(X.retired_note), note ? note : "");
        atomic_store(&X.retired, 1);
        if (X.enabled_ctx && gh.cuptiSassMetricsDisable) {
            CUpti_SassMetricsDisable_Params dis = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
            dis.ctx = X.enabled_ctx;
            CUptiResult rc = gh.cuptiSassMetricsDisable(&dis);
            if (rc != CUPTI_SUCCESS)
                sass_off("cuptiSassMetricsDisable", rc);
        }
        X.enabled_ctx = NULL;
        /*
         * an enable left open for a chain (GPUHIER_DIAG_SASS_CHAIN) kept
         * kernels traced serialized: concurrent again, but not at a
         * context's destruction (a resource callback: CUPTI forbids the
         * swap's flush there) nor at exit
         */
        X.nchain = 0;
        /* not swapped back here: counted as resumed, so the next served launch's resume swaps */
        if (atomic_exchange(&X.open, 0)) {
            if (resume)
                kernel_activity_resume();
            else
                kernel_activity_forget();
        }
        sass_unconfigure();
        if (gh_debug)
            gh_say("instrumentation: retired (%s)", X.retired_note);
    }
    pthread_mutex_unlock(&X.lock);
}

static void
sass_retire(const char *note)
{
    sass_retire_as(note, 1);
}

/*
 * CONTEXT_DESTROY_STARTING (cudaDeviceReset, cuCtxDestroy) and the exit
 * (finish() step 3): with the config kept set (both engines),
 * the engine retires, Disable if enabled and the one UnsetConfig, before
 * the context or CUPTI goes. Kept set across a cudaDeviceReset, every run
 * of a one-kernel program died by SIGSEGV at exit on the H200 (2026-12-03,
 * bench/stress rows devreset and bg, 48 of 48 each, default and --sample
 * all; 0 of 48 traced). After a context's destruction the engine stays
 * off: a second SetConfig in a process failed with OUT_OF_MEMORY on the
 * H200, so the range profiler takes the configurations that come after.
 * Any context's destruction retires it (a program that destroys a second
 * context loses pattern counters from then on; the engine_instrumentation
 * meta says so).
 */
static void
sass_context_destroying(CUcontext ctx)
{
    (void)ctx;
    if (opt.instrument == ENGINES_RANGEPROF || atomic_load(&X.retired))
        return;
    pthread_mutex_lock(&X.lock);
    int configured = X.configured_dev != 0 || X.enabled_ctx != NULL;
    pthread_mutex_unlock(&X.lock);
    if (configured)
        sass_retire_as("a context was destroyed: the config unset then, no pattern counters after",
                       0);
}

static void
sass_exit_stop(void)
{
    if (opt.instrument != ENGINES_RANGEPROF && !atomic_load(&X.retired))
        sass_retire_as("", 0);
}

/*
 * cuptiProfilerInitialize, once: at each context's creation
 * (sass_context_created()), as bench/sassprobe does, before any module of
 * the context is loaded; here only when that was missed (a context created
 * before the collector subscribed). Not in InitializeInjection, where it
 * returns CUPTI_ERROR_UNKNOWN. (The zero counts of 2026-12-01 were not
 * this: they came from concurrent-kernel tracing, collector/activity.c.)
 */
static int
sass_initialize(void)
{
    static int done;
    if (done)
        return 0;
    nvperf_ready(); /* CUPTI loads nvperf by bare name now: its open (started at init) ends */
    CUpti_Profiler_Initialize_Params ip = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CUptiResult rc =
        gh.cuptiProfilerInitialize ? gh.cuptiProfilerInitialize(&ip) : CUPTI_ERROR_NOT_INITIALIZED;
    if (rc != CUPTI_SUCCESS) {
        sass_off("cuptiProfilerInitialize", rc);
        return -1;
    }
    done = 1;
    return 0;
}

static void
sass_context_created(CUcontext ctx)
{
    (void)ctx;
    if (opt.instrument == ENGINES_RANGEPROF || !sass_available())
        return;
    pthread_mutex_lock(&X.lock);
    int64_t t0 = mono_ns();
    int rc = sass_initialize();
    atomic_fetch_add(&X.init_ns, mono_ns() - t0);
    pthread_mutex_unlock(&X.lock);
    if (gh_debug)
        gh_say("instrumentation: profiler initialized at the context's creation: %s",
               rc ? X.off_why : "ok");
}

/* Is `name` one of the comma-separated `list`'s words? */
static int
listed(const char *list, const char *name)
{
    size_t l = strlen(name);
    const char *at = list;
    while ((at = strstr(at, name)) && ((at != list && at[-1] != ',') || (at[l] && at[l] != ',')))
        at += l;
    return at != NULL;
}

/* Resolves the metric ids and sets the config for the context's device (lock held). */
static int
sass_configure(CUcontext ctx)
{
    CUptiResult rc;
    (void)ctx; /* the current context's device: the config is per device */
    CUdevice dev = 0;
    if (gh.cuCtxGetDevice)
        gh.cuCtxGetDevice(&dev);
    if (X.configured_dev == (int)dev + 1)
        return 0;
    if (X.configured_dev && sass_unconfigure())
        return -1;
    if (!atomic_load_explicit(&X.ready, memory_order_relaxed)) {
        if (sass_initialize())
            return -1;
        CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
        cn.deviceIndex = (size_t)dev;
        if ((rc = gh.cuptiDeviceGetChipName(&cn)) != CUPTI_SUCCESS || !cn.pChipName) {
            sass_off("cuptiDeviceGetChipName", rc);
            return -1;
        }
        /*
         * GPUHIER_DIAG_SASS_METRICS=a,b,... (diagnosis): only those of the
         * list; =-a,b,...: all but those
         */
        const char *only = opt.sass_metrics;
        int drop = only && only[0] == '-';
        for (size_t i = 0; i < NM; i++) {
            if (only && listed(drop ? only + 1 : only, sass_metrics[i]) == drop)
                continue;
            CUpti_SassMetrics_GetProperties_Params gp = {
                CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
            gp.pChipName = cn.pChipName;
            gp.pMetricName = sass_metrics[i];
            if (gh.cuptiSassMetricsGetProperties(&gp) != CUPTI_SUCCESS) {
                /* this chip has no such metric: its column reads 0, and the report says so */
                size_t n = strlen(X.missing);
                snprintf(X.missing + n, sizeof(X.missing) - n, "%s%s", n ? "," : "",
                         sass_metrics[i]);
                continue;
            }
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
        atomic_store_explicit(&X.ready, 1, memory_order_release);
    }
    CUpti_SassMetricsSetConfig_Params sc = {CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    sc.numOfMetricConfig = X.ncfg;
    sc.pConfigs = X.cfg;
    sc.deviceIndex = (uint32_t)dev;
    rc = fault("sass_config");
    if (rc == CUPTI_SUCCESS)
        rc = gh.cuptiSassMetricsSetConfig(&sc);
    if (rc != CUPTI_SUCCESS) {
        sass_off("cuptiSassMetricsSetConfig", rc);
        return -1;
    }
    X.configured_dev = (int)dev + 1;
    return 0;
}

/*
 * Disable, kernel tracing concurrent again, and the config unset where the
 * mode asks (lock held, enabled): the end of every enable, timed into the
 * calling thread's phases.
 */
static void
sass_shut(CUcontext ctx)
{
    CUptiResult rc;
    CUpti_SassMetricsDisable_Params dis = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    dis.ctx = ctx;
    if ((rc = gh.cuptiSassMetricsDisable(&dis)) != CUPTI_SUCCESS)
        sass_off("cuptiSassMetricsDisable", rc);
    sass_phase(PH_DISABLE);
    X.enabled_ctx = NULL;
    X.nchain = 0;
    atomic_store(&X.open, 0);
    kernel_activity_resume();
    sass_phase(PH_SWAP);
    /*
     * With both engines the config stays set between instrumented launches
     * (a second SetConfig in a process failed with CUPTI_ERROR_OUT_OF_MEMORY
     * on the H200, docs/sassprobe.md "Beside kernel activity");
     * GPUHIER_DIAG_SASS_UNSET_CONFIG=1 (diagnosis) unsets it. With =phased
     * the config stays set for the whole window (one
     * SetConfig) and is unset once, when it closes (sass_retire()); after a
     * failure here the engine is off and the config goes now.
     */
    if (opt.instrument == ENGINES_BOTH && !opt.sass_keep_config)
        sass_unconfigure();
    else if (opt.instrument == ENGINES_PHASED && atomic_load(&X.off))
        sass_unconfigure();
}

/*
 * Whether the launch of `func` on `ctx` may run in the enable left open
 * (lock held): GPUHIER_DIAG_SASS_CHAIN=1, the same context, and a function
 * not yet served in it. With lazy patching CUPTI collects a function "at
 * the very first execution in the enable/disable range"
 * (cupti_sass_metrics.h), so a second launch of one function waits for an
 * enable of its own.
 */
static int
sass_chain_takes(CUcontext ctx, CUfunction func)
{
    if (!opt.sass_chain || !func || ctx != X.enabled_ctx || X.nchain >= SASS_CHAIN_MAX)
        return 0;
    for (size_t i = 0; i < X.nchain; i++)
        if (X.chain[i] == func)
            return 0;
    return 1;
}

/*
 * Takes the lock, synchronizes and enables on `ctx` with lazy patching:
 * 0 with the lock held (sass_collect() releases it), or -1. Under
 * GPUHIER_DIAG_SASS_CHAIN=1 a launch of `func` (NULL: a graph's) that the
 * enable left open by the launch before can take (sass_chain_takes())
 * runs in it: no synchronize (every launch since the enable was served
 * in it: any other shuts it at its ENTER, launch_other()), no kernel
 * tracing swap, no Enable.
 */
static int
sass_arm(CUcontext ctx, uint32_t corr, const char *name, CUfunction func)
{
    if (!sass_available())
        return -1;
    pthread_mutex_lock(&X.lock);
    atomic_store(&X.busy, 1);
    tls_t0 = tls_tmark = mono_ns();
    if (atomic_load(&X.open)) {
        if (sass_chain_takes(ctx, func) && atomic_load(&X.others) == 0) {
            X.chain[X.nchain++] = func;
            atomic_fetch_add(&X.chained, 1);
            tls_ctx = ctx;
            tls_corr = corr;
            sass_serve_name(name);
            return 0;
        }
        sass_shut(X.enabled_ctx);
    }
    /*
     * a launch of another thread that looked before `busy` was set goes on
     * unpatched: its launch call returns first (at most SASS_OTHERS_WAIT_MS;
     * X.others, sass_launch_other()), and the synchronize below drains its
     * kernel; one that looks now finds `busy` and waits for this launch's
     * EXIT. Without this wait, one held at the launch gate during the swap
     * below went on when it opened and could run under the Enable (the
     * fake's 8 threads: 2 of 30 runs in the ASan build, 2026-12-05).
     */
    for (int i = 0; i < SASS_OTHERS_WAIT_MS * 20 && atomic_load(&X.others) > 0; i++)
        nanosleep(&(struct timespec){0, 50000}, NULL);
    /* nothing of the program's queued work may run patched */
    if (gh.cuCtxSynchronize)
        gh.cuCtxSynchronize();
    sass_phase(PH_DRAIN);
    kernel_activity_pause();
    sass_phase(PH_SWAP);
    CUptiResult rc = CUPTI_SUCCESS;
    if (sass_configure(ctx) == 0) {
        CUpti_SassMetricsEnable_Params ep = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
        ep.ctx = ctx;
        /*
         * GPUHIER_DIAG_SASS_EAGER=1 (diagnosis, docs/collector.md "Graphs"):
         * patch every function of the context at Enable instead of each at its
         * first run, to learn whether graph kernel nodes get counts that way.
         */
        ep.enableLazyPatching = !opt.sass_eager;
        rc = fault("sass_enable");
        if (rc == CUPTI_SUCCESS)
            rc = gh.cuptiSassMetricsEnable(&ep);
        if (rc == CUPTI_SUCCESS) {
            sass_phase(PH_ENABLE);
            X.enabled_ctx = ctx;
            X.nchain = 0;
            if (opt.sass_chain && func)
                X.chain[X.nchain++] = func;
            tls_ctx = ctx;
            tls_corr = corr;
            sass_serve_name(name);
            return 0;
        }
        if (gh_debug)
            gh_say("instrumentation: Enable for corr %u failed: %d", corr, (int)rc);
        sass_off("cuptiSassMetricsEnable", rc);
        if (opt.instrument == ENGINES_BOTH || opt.instrument == ENGINES_PHASED)
            sass_unconfigure();
    }
    kernel_activity_resume();
    atomic_store(&X.busy, 0);
    pthread_mutex_unlock(&X.lock);
    return -1;
}

/*
 * The functions that have pattern counters or will (an instrumented launch,
 * an armed graph), as a set of their graph_scan_key()s, at most
 * SASS_MAX_COUNTED: a graph made only of them is not armed again
 * (sass_instantiate_wanted()). graph_lock held.
 */
#define SASS_MAX_COUNTED 65536

static int
counted_has(uint64_t k)
{
    return umap_get(&X.counted, k) != NULL;
}

static void
counted_add(uint64_t k)
{
    if (X.counted.used < SASS_MAX_COUNTED)
        umap_put(&X.counted, k, &X.counted); /* a set: any non-NULL value; key 0 is refused */
}

static int
sass_launch_begin(const struct engine_launch *l, unsigned extras)
{
    (void)extras;
    if (sass_arm(l->ctx, l->corr, l->mangled, l->func))
        return -1;
    pthread_mutex_lock(&X.graph_lock);
    counted_add(graph_scan_key(l->mangled));
    pthread_mutex_unlock(&X.graph_lock);
    return 0;
}

/*
 * Which graph launches are served: the first of each executable made
 * under the instantiation arming. Armed only at the launch (=1, the path
 * of 2026-12-01), a graph launch gave 0 patched instruction records on
 * the H200 and its nodes' kernel records never came (docs/collector.md
 * "Graphs"); that path stays a diagnosis switch for a later CUPTI, tested
 * on the fake driver (t108).
 */
/* Index of exec in set[0..n), or -1 (graph_lock held). */
static long
exec_find(const CUgraphExec *set, size_t n, CUgraphExec exec)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == exec)
            return (long)i;
    return -1;
}

int
sass_graph_wanted(CUgraphExec exec)
{
    if (!sass_available())
        return 0;
    pthread_mutex_lock(&X.graph_lock);
    /* with the instantiation arming, only executables made under it run patched nodes */
    int patched =
        opt.sass_graphs == 1 || (opt.sass_graphs >= 2 && exec_find(X.armed, X.narmed, exec) >= 0);
    int wanted = patched && exec_find(X.graphs, X.ngraphs, exec) < 0 && X.ngraphs < SASS_MAX_GRAPHS;
    pthread_mutex_unlock(&X.graph_lock);
    if (!patched)
        atomic_fetch_add_explicit(&X.graphs_left, 1, memory_order_relaxed);
    return wanted;
}

/*
 * A graph launch's ENTER: its first launch is the one taken (the
 * executable is marked even when arming fails: no retry at every launch).
 * The writer learns the correlation id before any kernel node runs
 * (REC_GRAPH), so it can tell the nodes' records from others.
 */
static int
sass_graph_begin(const struct engine_graph *g)
{
    pthread_mutex_lock(&X.graph_lock);
    int fresh = X.ngraphs < SASS_MAX_GRAPHS && exec_find(X.graphs, X.ngraphs, g->exec) < 0;
    if (fresh)
        X.graphs[X.ngraphs++] = g->exec;
    pthread_mutex_unlock(&X.graph_lock);
    if (!fresh || sass_arm(g->ctx, g->corr, NULL, NULL))
        return -1;
    struct rec r = {.type = REC_GRAPH};
    r.u.graph.corr = g->corr;
    writer_push(&r);
    gh_copy(tls_reason, sizeof(tls_reason), "graph");
    return 0;
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
    if (gh_debug) {
        static int said;
        for (size_t i = 0; i < nr && said < 6; i++, said++)
            for (size_t j = 0; j < ni && j < 4; j++)
                gh_say("instrumentation: record %zu of %zu: %s pc %u crc %u instance %zu: metric "
                       "%llu = %llu (first id %llu)",
                       i, nr, d[i].functionName ? d[i].functionName : "-", (unsigned)d[i].pcOffset,
                       (unsigned)d[i].cubinCrc, j,
                       (unsigned long long)d[i].pInstanceValues[j].metricId,
                       (unsigned long long)d[i].pInstanceValues[j].value,
                       (unsigned long long)X.ids[0]);
    }
    /*
     * each instance's metric index, learned at its first record and checked
     * at the others: the instances come in the config's order, so the scan
     * of the list (NM compares per value) runs once per instance, not per
     * value (the flush's decode of a 3,000-instruction launch: 1.7 ms per
     * launch with the scan on this machine's CPU)
     */
    size_t at[NM];
    for (size_t j = 0; j < NM; j++)
        at[j] = NM;
    /* records of one function share CUPTI's string: one verdict per string, not per record */
    const char *judged = NULL;
    int served = 0;
    for (size_t i = 0; i < nr; i++) {
        const char *name = d[i].functionName ? d[i].functionName : "";
        if (name != judged) {
            judged = name;
            served = sass_served_name(name);
        }
        /* only the served function: a kernel another thread got in is not this launch's */
        if (!served) {
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
        for (size_t j = 0; j < ni; j++) {
            uint64_t id = d[i].pInstanceValues[j].metricId;
            size_t m = j < NM ? at[j] : NM;
            if (m == NM || !X.have[m] || X.ids[m] != id) {
                for (m = 0; m < NM && !(X.have[m] && X.ids[m] == id); m++)
                    ;
                if (j < NM)
                    at[j] = m;
            }
            if (m < NM)
                b->values[k * NM + m] += d[i].pInstanceValues[j].value;
        }
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

/*
 * The end of every armed window (sass_arm()): sass_shut(), or with `keep`
 * the enable left open for the next launch (GPUHIER_DIAG_SASS_CHAIN);
 * then the lock released. Returns the window's time.
 */
static int64_t
sass_release(CUcontext ctx, int keep)
{
    int shut = !keep || !sass_available();
    if (!shut) {
        atomic_store(&X.open, 1);
        /* a launch not served may be on its way since before it could see `open`: not kept */
        shut = atomic_load(&X.others) > 0;
    }
    if (shut)
        sass_shut(ctx);
    int64_t dt = mono_ns() - tls_t0;
    atomic_fetch_add(&X.ns, dt);
    atomic_store(&X.busy, 0);
    pthread_mutex_unlock(&X.lock);
    return dt;
}

/*
 * The served launch's EXIT: synchronize, flush, Disable (and with both
 * engines unset the config), release the lock, and queue the counts as
 * one REC_SASS (is_graph: a graph launch's).
 */
static void
sass_collect(int launch_ok, int is_graph)
{
    CUcontext ctx = tls_ctx;
    struct sass_batch *b = NULL;
    /* the patched run so far is the launch call, where lazy patching happens */
    atomic_fetch_add(&X.launch_call_ns, mono_ns() - tls_tmark);
    if (gh.cuCtxSynchronize)
        gh.cuCtxSynchronize();
    sass_phase(PH_RUN);
    CUpti_SassMetricsGetDataProperties_Params dp = {
        CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    dp.ctx = ctx;
    CUptiResult rc = gh.cuptiSassMetricsGetDataProperties(&dp);
    if (gh_debug)
        gh_say("instrumentation: %s corr %u: %zu patched instruction records, %zu instances (%d)",
               is_graph ? "graph launch" : "launch", tls_corr,
               (size_t)dp.numOfPatchedInstructionRecords, (size_t)dp.numOfInstances, (int)rc);
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
    sass_phase(PH_FLUSH);
    /* a launch's enable may serve the next (its own counts are flushed); a graph's never */
    int64_t dt = sass_release(ctx, opt.sass_chain && !is_graph && launch_ok);
    if (!b)
        return;
    atomic_fetch_add(is_graph ? &X.served_graphs : &X.served, 1);
    struct rec r = {.type = REC_SASS};
    r.u.sass.corr = tls_corr;
    r.u.sass.is_graph = is_graph;
    r.u.sass.overhead_ns = dt;
    gh_copy(r.u.sass.reason, sizeof(r.u.sass.reason), tls_reason);
    r.u.sass.batch = b;
    if (writer_push(&r))
        sass_batch_free(b);
}

/*
 * The instantiation arming (engine.h): measured on the H200 (2026-12-04,
 * docs/sassprobe.md "Graph launches"), CUPTI patches a graph's kernel
 * nodes only when SASS metrics are enabled while the graph is made
 * executable, and the patched code then counts in the executable's later
 * enabled launches (sass_graph_begin()); armed only at the launch, nothing
 * is counted. The same arming crashed every graph that held one of
 * cuBLAS's Hopper GEMM kernels (illegal instruction at its first launch).
 * GPUHIER_DIAG_SASS_GRAPHS=instantiate arms every instantiation; =scanned
 * only those of graphs whose kernel nodes graph_scan() finds safe.
 */
static _Thread_local int tls_window; /* this thread's instantiation is armed */
/* the scan of this thread's instantiation, from wanted() to its exit: its functions count once armed */
static _Thread_local struct graph_scan tls_scan;

int
sass_instantiate_wanted(CUgraph graph)
{
    if (tls_window)
        return 0;
    struct graph_scan *sc = &tls_scan;
    graph_scan_free(sc);
    int scanned = (opt.sass_graphs == 3 || opt.graph_nodes) && graph_scan(graph, sc) == 0;
    int wanted = opt.sass_graphs >= 2 && sass_available();
    if (wanted && opt.sass_graphs == 3 && !(scanned && graph_scan_safe(sc))) {
        wanted = 0;
        if (atomic_fetch_add(&X.unsafe, 1) == 0) {
            pthread_mutex_lock(&X.graph_lock);
            gh_copy(X.unsafe_first, sizeof(X.unsafe_first),
                    scanned ? sc->first : "the driver lacks the graph calls");
            pthread_mutex_unlock(&X.graph_lock);
        }
    }
    /*
     * A graph whose every function has counts already (an instrumented
     * launch, or a graph armed before: a program that instantiates the same
     * graph at every step) is not armed again: nothing new to count, and
     * each armed graph costs a synchronize and a patched first launch. Its
     * functions count once the arming succeeded (sass_instantiate_arm()).
     */
    if (wanted && opt.sass_graphs == 3) {
        int fresh = 0;
        pthread_mutex_lock(&X.graph_lock);
        for (size_t i = 0; i < sc->nkeys && !fresh; i++)
            fresh = !counted_has(sc->keys[i]);
        pthread_mutex_unlock(&X.graph_lock);
        if (!fresh) {
            atomic_fetch_add(&X.known, 1);
            wanted = 0;
        }
    }
    if (!wanted)
        graph_scan_free(sc);
    return wanted;
}

int
sass_instantiate_arm(CUcontext ctx)
{
    /* after sass_instantiate_wanted(), which refuses while this thread's window is open */
    if (sass_arm(ctx, 0, NULL, NULL))
        return -1;
    tls_window = 1;
    atomic_fetch_add(&X.windows, 1);
    pthread_mutex_lock(&X.graph_lock);
    for (size_t i = 0; i < tls_scan.nkeys; i++)
        counted_add(tls_scan.keys[i]);
    pthread_mutex_unlock(&X.graph_lock);
    return 0;
}

void
sass_instantiate_exit(CUgraphExec exec)
{
    graph_scan_free(&tls_scan);
    int armed = tls_window;
    if (armed) {
        tls_window = 0;
        (void)sass_release(tls_ctx, 0);
    }
    if (!exec || opt.sass_graphs < 2)
        return;
    /* a new executable may reuse a destroyed one's handle: its state starts afresh */
    pthread_mutex_lock(&X.graph_lock);
    long i = exec_find(X.graphs, X.ngraphs, exec);
    if (i >= 0)
        X.graphs[i] = X.graphs[--X.ngraphs];
    i = exec_find(X.armed, X.narmed, exec);
    if (i >= 0 && !armed)
        X.armed[i] = X.armed[--X.narmed];
    else if (i < 0 && armed && X.narmed < SASS_MAX_GRAPHS)
        X.armed[X.narmed++] = exec;
    pthread_mutex_unlock(&X.graph_lock);
}

static void
sass_launch_end(int launch_ok)
{
    sass_collect(launch_ok, 0);
}

static void
sass_graph_end(int launch_ok)
{
    sass_collect(launch_ok, 1);
}

/*
 * Shuts an enable left open for a chain (GPUHIER_DIAG_SASS_CHAIN) before
 * a kernel the engine does not serve can run, after waiting at most
 * `wait_ms` for a launch served on another thread (its EXIT may leave the
 * enable open). Timed as the engine's; `shut_by` counts it.
 */
static int
sass_shut_open(int wait_ms)
{
    struct timespec until = deadline_ms(CLOCK_REALTIME, wait_ms);
    if (pthread_mutex_timedlock(&X.lock, &until))
        return -1;
    if (atomic_load(&X.open)) {
        int64_t t0 = tls_tmark = mono_ns();
        sass_shut(X.enabled_ctx);
        atomic_fetch_add(&X.ns, mono_ns() - t0);
        atomic_fetch_add(&X.shut_by, 1);
    }
    pthread_mutex_unlock(&X.lock);
    return 0;
}

static __thread int tls_other; /* this thread's launch counts in X.others (to its EXIT) */

static void
other_count(int on)
{
    if (on != tls_other) {
        tls_other = on;
        atomic_fetch_add(&X.others, on ? 1 : -1);
    }
}

/*
 * A launch the engine does not serve: it may run only with SASS metrics
 * disabled. It counts in X.others before it looks (store, then load); when
 * no launch is served and no enable is open it goes on, counted to its
 * EXIT, so that an arming that began meanwhile waits for it before its
 * Enable (sass_arm()) and an enable is not kept open past it
 * (sass_release()). Otherwise it waits for the served launch (bounded:
 * file comment), uncounted meanwhile so that launch never waits for it,
 * shuts an enable left open, and looks again (a few times, then goes on,
 * as before 2026-12-05).
 */
static void
sass_launch_other(int capturing)
{
    /* a captured launch runs nothing now (and no synchronize may come within a capture) */
    if (capturing || opt.instrument == ENGINES_RANGEPROF)
        return;
    for (int tries = 0; tries < 3; tries++) {
        other_count(1);
        if (!atomic_load(&X.busy) && !atomic_load(&X.open))
            return;
        other_count(0);
        if (sass_shut_open(SASS_WAIT_MS))
            return;
    }
}

static void
sass_launch_other_end(void)
{
    other_count(0);
}

/*
 * cuGraphLaunch's ENTER, and before the range profiler serves a launch
 * (engine_quiesce(), under serve_lock: no launch of this engine is being
 * served then, so the wait is for a shut on another thread): an enable left
 * open is shut. The range profiler never runs beside enabled SASS metrics.
 */
static void
sass_graph_launch(void)
{
    if (atomic_load(&X.open))
        sass_shut_open(SERVE_QUIESCE_WAIT_MS);
}

void
sass_window_shut(void)
{
    sass_graph_launch();
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
    long n = atomic_load(&X.served) + atomic_load(&X.served_graphs);
    if (opt.instrument == ENGINES_RANGEPROF)
        return;
    char v[240];
    snprintf(
        v, sizeof(v),
        "%ld launches, %.1f ms (waiting for queued work %.1f, kernel tracing swaps %.1f, enable "
        "%.1f, patched run %.1f, flush %.1f, disable %.1f)",
        n, atomic_load(&X.ns) / 1e6, atomic_load(&X.phase_ns[PH_DRAIN]) / 1e6,
        atomic_load(&X.phase_ns[PH_SWAP]) / 1e6, atomic_load(&X.phase_ns[PH_ENABLE]) / 1e6,
        atomic_load(&X.phase_ns[PH_RUN]) / 1e6, atomic_load(&X.phase_ns[PH_FLUSH]) / 1e6,
        atomic_load(&X.phase_ns[PH_DISABLE]) / 1e6);
    push_meta("instrumented_launches", v);
    int64_t run = atomic_load(&X.phase_ns[PH_RUN]), call = atomic_load(&X.launch_call_ns);
    snprintf(v, sizeof(v),
             "%.1f ms of the patched run in the launch calls (lazy patching), %.1f ms in the "
             "synchronize after them (the patched kernels' execution)",
             call / 1e6, (run - call) / 1e6);
    push_meta("instrumented_launch_calls", v);
    snprintf(v, sizeof(v), "%.1f ms initializing the profiler at the context's creation",
             atomic_load(&X.init_ns) / 1e6);
    push_meta("instrumentation_setup", v);
    if (opt.sass_chain) {
        snprintf(v, sizeof(v),
                 "%ld launches ran in the enable of the launch before, %ld enables were shut for "
                 "a kernel the engine did not serve",
                 atomic_load(&X.chained), atomic_load(&X.shut_by));
        push_meta("instrumentation_chain", v);
    }
    if (atomic_load_explicit(&X.ready, memory_order_acquire))
        push_meta("instrumentation_metrics_missing", X.missing[0] ? X.missing : "none");
    if (atomic_load(&X.graphs_left))
        push_event("info", "graphs_not_instrumented",
                   "%ld graph launches ran their kernel nodes without pattern counters: CUPTI "
                   "patches a graph's kernel nodes only when SASS metrics are enabled while the "
                   "graph is instantiated, and these graphs were not armed (the events "
                   "graph_instantiations_unarmed and graph_instantiations_known say why; "
                   "docs/collector.md \"Graphs\")",
                   atomic_load(&X.graphs_left));
    if (atomic_load(&X.windows))
        push_event("info", "graph_instantiations_armed",
                   "%ld graph instantiations ran with SASS metrics enabled, so that their kernel "
                   "nodes run patched",
                   atomic_load(&X.windows));
    if (atomic_load(&X.known))
        push_event("info", "graph_instantiations_known",
                   "%ld graph instantiations were not armed: every kernel function in them had "
                   "pattern counters already (an instrumented launch, or a graph armed before)",
                   atomic_load(&X.known));
    if (atomic_load(&X.unsafe))
        push_event("info", "graph_instantiations_unarmed",
                   "%ld graph instantiations were not armed for pattern counters: a kernel node "
                   "ran in thread-block clusters, as every kernel did whose patched graph "
                   "crashed on the H200, or could not be read; the first: %s (docs/collector.md "
                   "\"Graphs\")",
                   atomic_load(&X.unsafe), X.unsafe_first);
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
    .launch_other_end = sass_launch_other_end,
    .graph_launch = sass_graph_launch,
    .graph_begin = sass_graph_begin,
    .context_created = sass_context_created,
    .context_destroying = sass_context_destroying,
    .exit_stop = sass_exit_stop,
    .graph_end = sass_graph_end,
    .exit_notes = sass_exit_notes,
    .stats = sass_stats,
    .retire = sass_retire,
};
