/* SPDX-License-Identifier: MIT */
/*
 * collector: the library gpuhier injects into the profiled program
 * (libgpuhier-collector.so).
 *
 * Entry points. CUDA calls InitializeInjection() from cuInit when
 * CUDA_INJECTION64_PATH names this library, so only processes that
 * initialize CUDA ever collect. Loaded with LD_PRELOAD instead, the
 * constructor does one thing: when CUDA_INJECTION64_PATH is unset it sets
 * it to this library's own path, so that the same InitializeInjection runs
 * if and when the program calls cuInit; a process that never touches CUDA
 * sees no other effect (no output, no thread, no file). A flag and
 * GPUHIER_COLLECTOR_ACTIVE=<pid> make a second initialization in the same
 * process (two copies of the library) a no-op.
 *
 * What it does inside the program: CUPTI callbacks record launch
 * configurations, sampling decisions, NVTX ranges, copy pointers and failed
 * launches into a bounded queue; activity records (CONCURRENT_KERNEL,
 * MEMCPY, MEMSET) arrive in buffers flushed at least every 500 ms; the
 * writer thread (writer.c) joins them into the report. Sampled launches
 * are profiled with the range profiler (auto range, kernel replay): Start
 * in the launch ENTER callback, Stop + decode + evaluate in its EXIT, one
 * range per batch, so a range can only belong to the launch it bracketed.
 *
 * What it never does: write to stdout, exit, abort, profile or synchronize
 * during stream capture, or profile graph kernels (they have no launch
 * callback). Every failure ends in one `==gpuhier==` line on stderr, a
 * `run.profiling_limited` text and an `event` row; the program runs on.
 */
#include "collector/cacheflush.h"
#include "collector/collector_int.h"
#include "collector/cupti_load.h"
#include "collector/fault.h"
#include "collector/metrics.h"
#include "collector/orphan.h"
#include "collector/sampling.h"
#include "collector/signals.h"
#include "schema/optvalue.h"
#include "schema/outname.h"

#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <generated_nvtx_meta.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#define GH_EXPORT __attribute__((visibility("default")))

#define POOL_BUFFERS 64
#define POOL_BUFFER_BYTES (1u << 20)
#define NVTX_STACK 16
#define NVTX_NAME 64
#define QUEUE_SLOTS 16384

static struct {
    pthread_mutex_t init_lock;
    int initialized;
    atomic_int active; /* collecting in this process */
    int exited;
    /*
     * Closing the report (docs/collector.md "At exit"): the first of finish()
     * (exit) and die_commit() (a fatal signal) to set `closing` closes it and
     * then sets `closed`; the other waits for `closed`, bounded.
     */
    atomic_int closing, closed;
    int death_sig;          /* the signal die_commit() records */
    int exit_hooks;         /* atexit(finish) registrations (exit_hook_refresh) */
    atomic_int activity_on; /* CUPTI activity is enabled: the flusher may flush */
    char image[64];         /* "<pid>:<token>": this program image (image_token) */
    char previous[4096];    /* the report of this process's previous image, if it exec'd us */
    pid_t pid;
    int quiet;
    int trace_only;
    int user_replay;  /* GPUHIER_DIAG_REPLAY=user: CUPTI_UserReplay, one pass only (diagnosis) */
    int keep_enabled; /* GPUHIER_DIAG_KEEP_ENABLED=1: no disable at unsampled launches (diagnosis) */
    int switch_keep; /* GPUHIER_DIAG_SWITCH_KEEP=1: no re-enable when the image changes (diagnosis) */
    int prewarm; /* GPUHIER_DIAG_PREWARM=1: one empty range before the first launch (diagnosis) */
    const char
        *stack_limit_set; /* GPUHIER_DIAG_STACK_LIMIT=BYTES, set at the first launch (diagnosis) */
    int carveout_pct; /* GPUHIER_DIAG_CARVEOUT=PCT: preferred carveout of every launch; -1 = off */
    long pad_mb;      /* GPUHIER_DIAG_PAD_MB=N: N MB allocated at the first launch (diagnosis) */
    atomic_int padded;
    atomic_int prewarmed;
    atomic_llong stack_limit; /* CU_LIMIT_STACK_SIZE last recorded in meta, + 1 (0 = not yet) */
    int extras_core; /* GPUHIER_DIAG_EXTRAS_WITH_CORE=1: extras carry the whole core (diagnosis) */
    int print_metrics; /* GPUHIER_DIAG_PRINT_METRICS=1: each profile's values on stderr (diagnosis) */
    int64_t lazy_ns;   /* GPUHIER_PROFILER_HOLD_MS, in ns (default 100 ms); 0 = off */
    atomic_llong last_prof_ns; /* when the last profile (or prewarm) ended, monotonic ns */
    atomic_long enables; /* successful cuptiRangeProfilerEnable calls (meta profiler_enables) */
    int cache_all;       /* GPUHIER_CACHE_CONTROL=all: flush the L2 before each profiled launch */
    int started;         /* a range was started since the object was enabled (prof_lock) */
    long flushes;        /* L2 flushes done (prof_lock) */
    int64_t flush_ns;    /* their time, inside the profiled launches' overhead (prof_lock) */
    int no_core;         /* GPUHIER_METRIC_SET=none: only GPUHIER_METRICS, no extras */
    CUpti_SubscriberHandle sub;
    char path[4096];
    char session_file[4096];

    struct sampling sampling;
    int sampling_ok;
    char **metrics;
    size_t nmetrics;

    /* Range profiler. prof_lock is held from a sampled launch's ENTER to its EXIT. */
    pthread_mutex_t prof_lock;
    atomic_int prof_busy;
    atomic_int prof_enabled; /* a range profiler object is enabled (prof_obj) */
    int prof_failed;         /* sticky: counters unavailable */
    /*
     * CUPTI_ERROR_HARDWARE_BUSY is transient (prof_busy_refused): sampled
     * launches are deferred until busy_until_ns, then retried.
     */
    atomic_llong busy_until_ns; /* CLOCK_MONOTONIC ns; 0 = counters not refused (cheap test) */
    int busy_consecutive;       /* refusals since the last start (prof_lock) */
    atomic_long busy_attempts;  /* refused enables, set-configs and starts */
    atomic_long busy_deferred;  /* launches whose profile_reason is 'counters_busy' */
    atomic_long busy_profiled;  /* launches profiled after the first refusal */
    int prof_inited;
    CUcontext prof_ctx;
    CUpti_RangeProfiler_Object *prof_obj;
    struct prof_host {
        unsigned groups;        /* enum metrics_group mask; 0 = core */
        struct metrics_host *h; /* never freed: queued records point at its names */
        int passes;
        char set[METRICS_SET_NAME_MAX]; /* profile.metric_set, e.g. "core" or "tie+tma" */
    } hosts[64], *cur;
    struct prof_host *configured; /* the host whose config image the enabled object last got */
    int nhosts;
    char chip[32];
    uint8_t *counter_data;
    size_t counter_size, counter_cap;
    int passes, max_passes;
    atomic_llong profiling_ns;    /* written under prof_lock, read by --profile-budget's test */
    atomic_long profiles;         /* profiles taken (prof_finish), for the budget's mean cost */
    atomic_long budget_unmatched; /* traced kernels whose configuration sampling never saw */
    int64_t start_mono_ns; /* when profiling was set up: the budget's elapsed time starts here */

    atomic_int captures_drv, captures_rt;
    atomic_uint_fast64_t nvtx_seq;

    /* Activity buffers. */
    uint8_t *pool[POOL_BUFFERS];
    int pool_free[POOL_BUFFERS];
    int npool_free;
    pthread_mutex_t pool_lock;

    pthread_t flusher;
    int flusher_running;
    uint32_t flush_flag;
    atomic_int flusher_stop;
    sem_t flush_sem;
    atomic_int urgent, urgent_done;
    atomic_long launches_seen; /* launch ENTER callbacks */
    atomic_long buffers_seen;  /* activity buffers CUPTI returned */

    pthread_mutex_t dom_lock;
    struct {
        void *handle;
        char name[40];
    } domains[32];
    int ndomains;
} G = {
    .init_lock = PTHREAD_MUTEX_INITIALIZER,
    .prof_lock = PTHREAD_MUTEX_INITIALIZER,
    .pool_lock = PTHREAD_MUTEX_INITIALIZER,
    .dom_lock = PTHREAD_MUTEX_INITIALIZER,
};

static __thread uint32_t tls_rt_corr;
static __thread int tls_prof_active;
static __thread uint64_t tls_prof_t0;
static __thread uint32_t tls_prof_corr;
static __thread uint32_t tls_prof_blocks;
static __thread struct sampling_launch
    tls_prof_launch; /* the sampled launch, for the extras request */
static __thread int tls_nvtx_depth;
static __thread uint64_t tls_nvtx_ids[NVTX_STACK];
static __thread char tls_nvtx_names[NVTX_STACK][NVTX_NAME];
/*
 * The thread's NVTX path ("a > b > c", at most REC_NVTX_PATH_MAX - 1
 * bytes), kept up to date at push and pop so that a launch copies it
 * instead of formatting it; tls_nvtx_len[d] is its length at depth d.
 */
static __thread char tls_nvtx_path[REC_NVTX_PATH_MAX];
static __thread size_t tls_nvtx_len[NVTX_STACK + 1];

static const char *env(const char *name);
static void flush_forced(void);
static int64_t mono_ns(void);
static void prof_disable(void);
static void exit_hook_refresh(void);
static void die_commit(void);
static void adopt_previous_image(void);

/* Phase times of the current profiled launch (GPUHIER_DEBUG), ns. */
static __thread int64_t tls_t_ensure, tls_t_setup, tls_t_start, tls_t_enter_done;

/* ------------------------------------------------------------ messages */

static void
push_event(const char *level, const char *code, const char *fmt, ...)
{
    struct rec r = {.type = REC_EVENT};
    snprintf(r.u.event.level, sizeof(r.u.event.level), "%s", level);
    snprintf(r.u.event.code, sizeof(r.u.event.code), "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.u.event.message, sizeof(r.u.event.message), fmt, ap);
    va_end(ap);
    writer_push(&r);
}

static void
push_meta(const char *key, const char *value)
{
    struct rec r = {.type = REC_META};
    snprintf(r.u.meta.key, sizeof(r.u.meta.key), "%s", key);
    snprintf(r.u.meta.value, sizeof(r.u.meta.value), "%s", value);
    writer_push(&r);
}

/* Appends `text` to run.profiling_limited (the writer joins notes with "; "). */
static void
push_limited(const char *text)
{
    struct rec r = {.type = REC_LIMITED};
    gh_copy(r.u.limited, sizeof(r.u.limited), text);
    writer_push(&r);
}

/*
 * Counters are missing or partial: one `==gpuhier==` line (`msg`, then
 * `tail` for stderr only), the run.profiling_limited note and a warning
 * event `code`. Callers say each cause once.
 */
/*
 * A note made before the writer starts (init_profiling's bad options) would
 * be pushed into a queue that does not exist yet and lost: it waits here and
 * initialize() pushes it once the writer runs. limit() says once, so one slot.
 */
static struct {
    char code[32];
    char msg[sizeof(((struct rec *)0)->u.limited)];
} pending_note;

static void
note_limited(const char *code, const char *msg, const char *tail)
{
    gh_say("%s; %s", msg, tail);
    if (!G.initialized) {
        gh_copy(pending_note.code, sizeof(pending_note.code), code);
        gh_copy(pending_note.msg, sizeof(pending_note.msg), msg);
        return;
    }
    push_limited(msg);
    push_event("warning", code, "%s", msg);
}

/* initialize(), once the writer runs: the note made before it, if any. */
static void
push_pending_note(void)
{
    if (!pending_note.msg[0])
        return;
    push_limited(pending_note.msg);
    push_event("warning", pending_note.code, "%s", pending_note.msg);
    pending_note.msg[0] = '\0';
}

/* Profiling is unavailable from now on: say why once, record it. */
static void
limit(const char *code, const char *fmt, ...)
{
    if (G.prof_failed)
        return;
    G.prof_failed = 1;
    char msg[sizeof(((struct rec *)0)->u.limited)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    note_limited(code, msg, "tracing continues without hardware counters");
}

static const char *
cupti_err(CUptiResult rc)
{
    const char *s = NULL;
    if (gh.cuptiGetResultString && gh.cuptiGetResultString(rc, &s) == CUPTI_SUCCESS && s)
        return s;
    return "CUPTI error";
}

/* ------------------------------------------------------------ faults */

static const struct {
    const char *name;
    CUptiResult rc;
} fault_names[] = {
    {"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", CUPTI_ERROR_INSUFFICIENT_PRIVILEGES},
    {"CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED",
     CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED},
    {"CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED", CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED},
    {"CUPTI_ERROR_HARDWARE_BUSY", CUPTI_ERROR_HARDWARE_BUSY},
    {"CUPTI_ERROR_NOT_SUPPORTED", CUPTI_ERROR_NOT_SUPPORTED},
    {"CUPTI_ERROR_NOT_INITIALIZED", CUPTI_ERROR_NOT_INITIALIZED},
    {"CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED", CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED},
    {"CUPTI_ERROR_UNKNOWN", CUPTI_ERROR_UNKNOWN},
};

/*
 * GPUHIER_FAULT=<site>:<error>[:<n>][,<site>:<error>[:<n>]...]: the named
 * call site returns <error> (a CUPTI_ERROR_* name, its short form without
 * the prefix, or a number) instead of calling CUPTI; with <n>, only its
 * first n calls do and later ones call CUPTI, so a transient failure can
 * be shown. Calls are counted per entry, for the first 16 entries (a
 * later entry, or a count that is not a number, fails always). The list
 * is parsed by fault_find() (collector/fault.c, tested on the CPU).
 * docs/fault-injection.md.
 */
static CUptiResult
fault(const char *site)
{
    static atomic_long calls[16];
    struct fault_entry fe;
    if (!fault_find(getenv("GPUHIER_FAULT"), site, &fe))
        return CUPTI_SUCCESS;
    if (fe.has_count && fe.index < (int)(sizeof(calls) / sizeof(calls[0])) &&
        atomic_fetch_add(&calls[fe.index], 1) >= fe.count)
        return CUPTI_SUCCESS;
    const char *e = fe.error;
    size_t el = fe.error_len;
    if (el && e[0] >= '0' && e[0] <= '9')
        return (CUptiResult)strtol(e, NULL, 10);
    for (size_t i = 0; i < sizeof(fault_names) / sizeof(fault_names[0]); i++) {
        const char *n = fault_names[i].name;
        if ((strlen(n) == el && !strncmp(n, e, el)) ||
            (strlen(n + 12) == el && !strncmp(n + 12, e, el)))
            return fault_names[i].rc;
    }
    return CUPTI_ERROR_UNKNOWN;
}

/* ------------------------------------------------------------ range profiler */

static const char *
limit_code(CUptiResult rc)
{
    switch (rc) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return "no_counter_permission";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        return "mig_unsupported";
    case CUPTI_ERROR_HARDWARE_BUSY:
        return "hardware_busy";
    case CUPTI_ERROR_NOT_SUPPORTED:
        return "device_unsupported";
    default:
        return "profiler_error";
    }
}

static void
prof_fail(const char *what, CUptiResult rc)
{
    const char *hint = "";
    if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        hint = " (no permission to read GPU counters: run as root, or set "
               "NVreg_RestrictProfilingToAdminUsers=0; see `gpuhier doctor`)";
    else if (rc == CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED)
        hint = " (MIG instances cannot be profiled)";
    else if (rc == CUPTI_ERROR_HARDWARE_BUSY)
        hint = " (another tool, e.g. DCGM profiling, holds the counters)";
    limit(limit_code(rc), "hardware counters unavailable: %s failed: %s%s", what, cupti_err(rc),
          hint);
}

/*
 * CUPTI_ERROR_HARDWARE_BUSY from the enable, set-config or start of a
 * sampled launch (prof_lock held). Another process or tool holds the
 * counters; the collector itself disables the profiler between profiled
 * launches, so two profiled processes on one GPU, DCGM's profiling
 * window or a tool's process ending collide only for a while. So this
 * is not sticky like prof_fail(): the profiler object is let go, sampled
 * launches are deferred ("counters_busy") for a backoff that doubles
 * with each refusal in a row (sampling_busy_backoff_ns()), and the first
 * chosen launch after it tries again. Returns -EBUSY.
 */
static int
prof_busy_refused(const char *what, CUptiResult rc)
{
    prof_disable();
    long n = atomic_fetch_add(&G.busy_attempts, 1) + 1;
    G.busy_consecutive++;
    atomic_store(&G.busy_until_ns, mono_ns() + sampling_busy_backoff_ns(G.busy_consecutive));
    if (n == 1) {
        char msg[sizeof(((struct rec *)0)->u.limited)];
        snprintf(msg, sizeof(msg),
                 "hardware counters busy: %s failed: %s (held by another process or tool: "
                 "another profiled process on this GPU, DCGM profiling, ncu or nsys); sampled "
                 "launches are deferred to later launches of their configuration and retried",
                 what, cupti_err(rc));
        note_limited("hardware_busy", msg, "tracing continues");
    }
    return -EBUSY;
}

/*
 * Whether sampled launches are being deferred after a refusal
 * (prof_busy_refused()'s backoff has not ended). busy_until_ns is 0
 * unless refused since the last profile started: no clock call then.
 */
static int
backing_off(void)
{
    int64_t until = atomic_load_explicit(&G.busy_until_ns, memory_order_relaxed);
    return until && mono_ns() < until;
}

/*
 * A failed call on the way from enable to start: -EBUSY when the
 * counters are busy (transient, prof_busy_refused()), else -1 with
 * profiling ended for the process (prof_fail()).
 */
static int
prof_refused(const char *what, CUptiResult rc)
{
    if (rc == CUPTI_ERROR_HARDWARE_BUSY)
        return prof_busy_refused(what, rc);
    prof_fail(what, rc);
    return -1;
}

/*
 * The host object (config image, passes) for the core (`groups` 0) or for
 * the tie set plus `groups` (an extras profile: metrics_list_build's
 * METRICS_TIE, docs/metrics.md),
 * built on first use for this chip. Building allocates and takes tens of
 * milliseconds: it happens once per group mask, on the launch that first
 * needs it. An extras set that fails (e.g. a group the chip lacks) is
 * reported and NULL returned; the core failing stops profiling.
 */
static struct prof_host *
prof_host(unsigned groups)
{
    for (int i = 0; i < G.nhosts; i++)
        if (G.hosts[i].groups == groups)
            return &G.hosts[i];
    if (G.nhosts == (int)(sizeof(G.hosts) / sizeof(G.hosts[0])))
        return NULL;
    char err[512] = "";
    size_t n = 0;
    /* extras carry the tie set, or the whole core as before 2026-11-29 (G.extras_core) */
    unsigned with = G.extras_core ? 0 : METRICS_NO_CORE | METRICS_TIE;
    char **list =
        groups ? metrics_list_build(groups | with, env("GPUHIER_METRICS"), &n, err, sizeof(err))
               : NULL;
    struct metrics_host *h = NULL;
    int rc =
        groups
            ? (list ? metrics_host_open(G.chip, (const char *const *)list, n, &h, err, sizeof(err))
                    : -1)
            : metrics_host_open(G.chip, (const char *const *)G.metrics, G.nmetrics, &h, err,
                                sizeof(err));
    metrics_list_free(list, n);
    if (rc) {
        if (!groups)
            limit("metric_config_failed", "hardware counters unavailable: %s", err);
        else
            push_event("warning", "extra_metrics_failed",
                       "extra metric groups 0x%x not collected: %s", groups, err);
        return NULL;
    }
    struct prof_host *ph = &G.hosts[G.nhosts++];
    exit_hook_refresh(); /* nvperf built this host object's state just now */
    ph->groups = groups;
    ph->h = h;
    ph->passes = metrics_host_passes(h);
    /* "core", "metrics" (--metric-set none), or "tie+GROUP...": an extras profile */
    metrics_set_name(groups && with ? "tie"
                     : G.no_core    ? "metrics"
                                    : "core",
                     groups, ph->set, sizeof(ph->set));
    return ph;
}

/* Resets the counter-data image and configures the next range: 0, -EBUSY or -1. */
static int
prof_configure(void)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ip.pRangeProfilerObject = G.prof_obj;
    ip.counterDataSize = G.counter_size;
    ip.pCounterData = G.counter_data;
    CUptiResult rc = gh.cuptiRangeProfilerCounterDataImageInitialize(&ip);
    if (rc != CUPTI_SUCCESS) {
        prof_fail("cuptiRangeProfilerCounterDataImageInitialize", rc);
        return -1;
    }
    size_t csize = 0;
    const void *cimg = metrics_host_config_image(G.cur->h, &csize);
    CUpti_RangeProfiler_SetConfig_Params sp = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = G.prof_obj;
    sp.configSize = csize;
    sp.pConfig = cimg;
    sp.counterDataImageSize = G.counter_size;
    sp.pCounterDataImage = G.counter_data;
    sp.range = CUPTI_AutoRange;
    sp.replayMode = G.user_replay ? CUPTI_UserReplay : CUPTI_KernelReplay;
    sp.maxRangesPerPass = 4;
    sp.numNestingLevels = 1;
    sp.minNestingLevel = 1;
    sp.passIndex = 0;
    sp.targetNestingLevel = 1;
    rc = gh.cuptiRangeProfilerSetConfig(&sp);
    if (rc != CUPTI_SUCCESS)
        return prof_refused("cuptiRangeProfilerSetConfig", rc);
    return 0;
}

static void
prof_disable(void)
{
    if (!G.prof_obj)
        return;
    CUpti_RangeProfiler_Disable_Params dp = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = G.prof_obj;
    gh.cuptiRangeProfilerDisable(&dp);
    atomic_store(&G.prof_enabled, 0);
    G.prof_obj = NULL;
    G.prof_ctx = NULL;
    G.configured = NULL;
    G.started = 0;
}

/*
 * Enables the range profiler on `ctx` (disabling it on another context):
 * 0, -EBUSY when the counters are busy, -1 when profiling has ended.
 */
static int
prof_ensure(CUcontext ctx)
{
    if (G.prof_failed)
        return -1;
    if (G.prof_obj && G.prof_ctx == ctx)
        return 0;
    prof_disable();
    CUptiResult rc;
    if (!G.prof_inited) {
        CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        if ((rc = gh.cuptiProfilerInitialize(&pi)) != CUPTI_SUCCESS) {
            prof_fail("cuptiProfilerInitialize", rc);
            return -1;
        }
        G.prof_inited = 1;
    }
    uint32_t dev = 0;
    gh.cuptiGetDeviceId(ctx, &dev);

    CUpti_Profiler_DeviceSupported_Params ds = {CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    ds.cuDevice = (CUdevice)dev;
    ds.api = CUPTI_PROFILER_RANGE_PROFILING;
    rc = fault("device_supported");
    if (rc == CUPTI_SUCCESS)
        rc = gh.cuptiProfilerDeviceSupported(&ds);
    if (rc != CUPTI_SUCCESS) {
        prof_fail("cuptiProfilerDeviceSupported", rc);
        return -1;
    }
    if (ds.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        const char *why = ds.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "architecture"
                          : ds.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED       ? "vGPU"
                          : ds.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                              ? "confidential computing"
                          : ds.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "SLI"
                          : ds.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "CMP"
                          : ds.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "WSL"
                                                                             : "configuration";
        limit("device_unsupported",
              "hardware counters unavailable: device %u not supported by the "
              "range profiler (%s)",
              dev, why);
        return -1;
    }

    /* Size query only: probes permission without building the image (CUPTI-NOTES §8). */
    CUpti_Profiler_GetCounterAvailability_Params ca = {
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    ca.ctx = ctx;
    rc = fault("counter_availability");
    if (rc == CUPTI_SUCCESS)
        rc = gh.cuptiProfilerGetCounterAvailability(&ca);
    if (rc != CUPTI_SUCCESS) {
        prof_fail("cuptiProfilerGetCounterAvailability", rc);
        return -1;
    }

    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = dev;
    rc = gh.cuptiDeviceGetChipName(&cn);
    if (rc != CUPTI_SUCCESS || !cn.pChipName || !*cn.pChipName) {
        prof_fail("cuptiDeviceGetChipName", rc != CUPTI_SUCCESS ? rc : CUPTI_ERROR_UNKNOWN);
        return -1;
    }
    if (!G.nhosts || strcmp(G.chip, cn.pChipName)) {
        rc = fault("host_init");
        if (rc != CUPTI_SUCCESS) {
            prof_fail("cuptiProfilerHostInitialize", rc);
            return -1;
        }
        G.nhosts = 0; /* another chip: start over (old objects stay alive) */
        snprintf(G.chip, sizeof(G.chip), "%s", cn.pChipName);
        if (!prof_host(0))
            return -1;
    }

    CUpti_RangeProfiler_Enable_Params ep = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    ep.ctx = ctx;
    rc = fault("range_enable");
    if (rc == CUPTI_SUCCESS)
        rc = gh.cuptiRangeProfilerEnable(&ep);
    if (rc != CUPTI_SUCCESS)
        return prof_refused("cuptiRangeProfilerEnable", rc);
    G.prof_obj = ep.pRangeProfilerObject;
    G.prof_ctx = ctx;
    atomic_store(&G.prof_enabled, 1);
    if (atomic_fetch_add(&G.enables, 1) == 0)
        exit_hook_refresh(); /* CUPTI set up the range profiler's state just now */

    return 0;
}

/* Sizes the counter-data image for host `ph` on the enabled object. */
static int
prof_counter_data(const struct prof_host *ph)
{
    size_t n = 0;
    const char *const *names = metrics_host_names(ph->h, &n);
    CUpti_RangeProfiler_GetCounterDataSize_Params gs = {
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    gs.pRangeProfilerObject = G.prof_obj;
    gs.pMetricNames = (const char **)names;
    gs.numMetrics = n;
    gs.maxNumOfRanges = 4;
    gs.maxNumRangeTreeNodes = 4;
    CUptiResult rc = gh.cuptiRangeProfilerGetCounterDataSize(&gs);
    if (rc != CUPTI_SUCCESS) {
        prof_fail("cuptiRangeProfilerGetCounterDataSize", rc);
        return -1;
    }
    if (gs.counterDataSize > G.counter_cap) {
        /* Grows a few times per process at most (not per launch). */
        uint8_t *p = realloc(G.counter_data, gs.counterDataSize);
        if (!p) {
            limit("profiler_error",
                  "hardware counters unavailable: out of memory for counter data");
            return -1;
        }
        G.counter_data = p;
        G.counter_cap = gs.counterDataSize;
    }
    G.counter_size = gs.counterDataSize;
    return 0;
}

/*
 * The writer's GPU-time hook under --profile-budget (writer thread): each
 * traced kernel's duration goes to its configuration, which the budget
 * ranks by (sampling_add_gpu_time).
 */
static void
budget_gpu_time(const char *mangled, const uint32_t grid[3], const uint32_t block[3],
                uint32_t dynamic_smem, int64_t ns)
{
    struct sampling_launch l = {.mangled = mangled, .dynamic_smem_bytes = dynamic_smem};
    memcpy(l.grid, grid, sizeof(l.grid));
    memcpy(l.block, block, sizeof(l.block));
    if (sampling_add_gpu_time(&G.sampling, &l, ns))
        atomic_fetch_add_explicit(&G.budget_unmatched, 1, memory_order_relaxed);
}

/* Starts and stops a range with no launch in it, on the enabled object (prof_lock held). */
static CUptiResult
prof_empty_range(void)
{
    CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = G.prof_obj;
    CUptiResult rc = gh.cuptiRangeProfilerStart(&sp);
    if (rc != CUPTI_SUCCESS)
        return rc; /* the real Start meets it again and handles it */
    G.started = 1;
    CUpti_RangeProfiler_Stop_Params tp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    tp.pRangeProfilerObject = G.prof_obj;
    return gh.cuptiRangeProfilerStop(&tp);
}

/*
 * --cache-control all (prof_lock held): flush the L2 after the profiler's
 * set-up and before its Start, so the range begins with a clean, cold L2
 * (collector/cacheflush.h). A flush that fails ends cache control for the
 * process, said once; profiling goes on with the L2 as the program left it.
 */
static void
prof_flush_l2(CUcontext ctx)
{
    char err[256] = "";
    int64_t t0 = mono_ns();
    CUptiResult frc = fault("cache_flush"); /* docs/fault-injection.md */
    if (frc != CUPTI_SUCCESS)
        snprintf(err, sizeof(err), "injected %s", cupti_err(frc));
    if (frc != CUPTI_SUCCESS || cacheflush_run(ctx, NULL, err, sizeof(err))) {
        G.cache_all = 0;
        char value[sizeof(((struct rec *)0)->u.meta.value)], msg[400];
        snprintf(value, sizeof(value), "none: %s", err);
        push_meta("cache_control", value);
        snprintf(msg, sizeof(msg),
                 "cache control off: the L2 flush before a profiled launch failed (%s)", err);
        note_limited("cache_control_failed", msg,
                     "later profiled launches see the L2 as the program left it");
        return;
    }
    G.flushes++;
    G.flush_ns += mono_ns() - t0;
}

/*
 * ENTER of a sampled launch (prof_lock held): configure and start one
 * range. 0 when started, -EBUSY when the counters are busy (the launch
 * is deferred, profiling goes on), -1 when profiling has ended.
 */
static int
prof_start(CUcontext ctx, unsigned groups)
{
    int64_t t0 = mono_ns();
    int ret = prof_ensure(ctx);
    if (ret)
        return ret;
    tls_t_ensure = mono_ns() - t0;
    G.cur = groups ? prof_host(groups) : NULL;
    if (!G.cur)
        G.cur = prof_host(0);
    /*
     * A range-profiler object that ran one config image collects later
     * images with its first image's passes: on the H200 an extras launch
     * (9 passes) after core launches (3 passes) came back with every
     * metric outside the first 3 passes NaN (stored NULL). Switching
     * images therefore re-enables the object (about 0 ms after the first
     * enable, measured in docs/gpu-runs.md; but the next Start then costs
     * ~150 ms, docs/metrics.md). GPUHIER_DIAG_SWITCH_KEEP=1 skips it, to
     * see which switches (fewer passes? more?) still lose values.
     */
    if (G.cur && G.configured && G.configured != G.cur && !G.switch_keep) {
        prof_disable();
        if ((ret = prof_ensure(ctx)))
            return ret;
    }
    ret = G.cur && !prof_counter_data(G.cur) ? prof_configure() : -1;
    if (ret) {
        prof_disable();
        return ret;
    }
    G.configured = G.cur;
    if (G.cache_all) {
        /*
         * The first Start after an enable sets the profiler up on the
         * device (~200 ms, docs/metrics.md) and leaves about 5 MB of dirty
         * lines in the L2 (measured on the H200, docs/agreement.md A1):
         * an empty range does that before the flush, so the real range
         * starts from the flushed L2.
         */
        if (!G.started)
            prof_empty_range();
        prof_flush_l2(ctx);
    }
    tls_t_setup = mono_ns() - t0;
    CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = G.prof_obj;
    CUptiResult rc = fault("range_start");
    if (rc == CUPTI_SUCCESS)
        rc = gh.cuptiRangeProfilerStart(&sp);
    if (rc != CUPTI_SUCCESS) {
        ret = prof_refused("cuptiRangeProfilerStart", rc);
        prof_disable();
        return ret;
    }
    G.started = 1;
    tls_t_start = mono_ns() - t0;
    tls_t_enter_done = mono_ns();
    return 0;
}

static int64_t
mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The profiler hold (GPUHIER_PROFILER_HOLD_MS=N, default 100; docs/collector.md
 * "Profiler hold"): an unsampled launch less than N ms after the last profiled
 * launch leaves the range profiler enabled (not started), so the next profile
 * pays no new enable and no first Start (its ~150 ms, and the ~5 MB of dirty L2
 * lines that are agreement class A1, docs/agreement.md); the flusher disables it
 * once N ms have passed, so the counters are held at most N ms plus its 500 ms
 * period. Measured on the H200 (2026-11-30): PyTorch default sampling 12 % less
 * wall time, no value lost; the A1 probe agrees on DRAM writes.
 */
static int
lazy_keeps_enabled(void)
{
    return G.lazy_ns > 0 && mono_ns() - atomic_load(&G.last_prof_ns) < G.lazy_ns;
}

/*
 * prof_disable() from a thread that may have no current context (the
 * flusher, or exit() called by a thread that never used CUDA): CUPTI's
 * calls are made as from the launching thread, with its context pushed.
 * prof_lock is held.
 */
static void
prof_disable_pushed(void)
{
    CUcontext popped = NULL;
    int pushed = gh.cuCtxPushCurrent_v2 && gh.cuCtxPushCurrent_v2(G.prof_ctx) == CUDA_SUCCESS;
    prof_disable();
    if (pushed && gh.cuCtxPopCurrent_v2)
        gh.cuCtxPopCurrent_v2(&popped);
}

/* The flusher's half of the profiler hold: it never waits for the profiling lock. */
static void
lazy_disable_if_idle(void)
{
    /* GPUHIER_DIAG_KEEP_ENABLED keeps it for the process's life: no hold ends it */
    if (G.lazy_ns <= 0 || G.keep_enabled || !atomic_load(&G.prof_enabled) || lazy_keeps_enabled() ||
        atomic_load(&G.captures_drv) > 0 || atomic_load(&G.captures_rt) > 0)
        return;
    if (pthread_mutex_trylock(&G.prof_lock))
        return;
    if (!atomic_load(&G.prof_busy) && !lazy_keeps_enabled() && G.prof_ctx)
        prof_disable_pushed();
    pthread_mutex_unlock(&G.prof_lock);
}

/* EXIT of a sampled launch: stop, decode, check there is exactly one range, evaluate. */
static void
prof_finish(int launch_ok)
{
    static struct rec r; /* prof_lock is held: one user at a time */
    memset(&r, 0, sizeof(r));
    r.type = REC_PROFILE;
    r.u.profile.corr = tls_prof_corr;
    int64_t t_exit = mono_ns();
    CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = G.prof_obj;
    CUptiResult rc = gh.cuptiRangeProfilerStop(&sp);
    if (!launch_ok)
        return;
    const char *why = NULL;
    if (rc == CUPTI_SUCCESS && G.user_replay && !sp.isAllPassSubmitted)
        why = "user replay: the configuration needs more than one pass";
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = G.prof_obj;
    if (rc == CUPTI_SUCCESS && !why)
        rc = gh.cuptiRangeProfilerDecodeData(&dd);
    CUpti_RangeProfiler_GetCounterDataInfo_Params ci = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    ci.pCounterDataImage = G.counter_data;
    ci.counterDataImageSize = G.counter_size;
    if (rc == CUPTI_SUCCESS)
        rc = gh.cuptiRangeProfilerGetCounterDataInfo(&ci);
    size_t n = 0;
    const char *const *names = metrics_host_names(G.cur->h, &n);
    int64_t t_decoded = mono_ns();
    if (why) {
        /* user replay with passes left: nothing was decoded */
    } else if (rc != CUPTI_SUCCESS)
        why = cupti_err(rc);
    else if (ci.numTotalRanges != 1 || dd.numOfRangeDropped)
        why = "range count differs from launches";
    else if (n > REC_MAX_METRICS)
        why = "too many metrics";
    else if (metrics_host_evaluate(G.cur->h, G.counter_data, G.counter_size, 0, r.u.profile.values))
        why = metrics_host_error(G.cur->h);
    if (!why) {
        /* A second tie: CTAs counted by the hardware must equal the launch's grid. */
        for (size_t i = 0; i < n; i++)
            if (!strcmp(names[i], "sm__ctas_launched.sum") && r.u.profile.values[i] >= 0 &&
                (uint64_t)(r.u.profile.values[i] + 0.5) != tls_prof_blocks)
                why = "CTA count differs from the launch's grid";
    }
    r.u.profile.ok = why == NULL;
    r.u.profile.n = (int)(n > REC_MAX_METRICS ? REC_MAX_METRICS : n);
    r.u.profile.names = names;
    r.u.profile.passes = G.cur->passes;
    gh_copy(r.u.profile.set, sizeof(r.u.profile.set), G.cur->set);
    int64_t dt = mono_ns() - (int64_t)tls_prof_t0;
    r.u.profile.overhead_ns = dt;
    G.profiling_ns += dt;
    if (atomic_fetch_add(&G.profiles, 1) < 4)
        exit_hook_refresh(); /* the first profiles decode and evaluate for the first time */
    if (G.cur->passes > G.max_passes)
        G.max_passes = G.cur->passes;
    /* A core profile may ask for the extra groups on the configuration's next launch. */
    if (!why && !G.cur->groups && G.sampling_ok && !G.no_core) {
        unsigned want = metrics_extras_wanted(names, r.u.profile.values, (size_t)r.u.profile.n);
        if (want)
            sampling_request_extras(&G.sampling, &tls_prof_launch, want);
    }
    if (why)
        push_event("warning", "batch_dropped", "profiled range discarded: %s", why);
    /*
     * GPUHIER_DIAG_PRINT_METRICS=1 (diagnosis, docs/agreement.md class C):
     * the values on stderr, so a run whose report cannot hold them (with
     * GPUHIER_DIAG_NO_KERNEL_ACTIVITY no launch row is written) still
     * gives them.
     */
    if (G.print_metrics && !why)
        for (int i = 0; i < r.u.profile.n; i++)
            gh_say("profile %u %s = %.17g", tls_prof_corr, names[i], r.u.profile.values[i]);
    if (G.user_replay && !sp.isAllPassSubmitted)
        prof_disable(); /* a user-replay session left mid-way: start the next one afresh */
    /*
     * Seen on the H200: the replayed kernel's own activity record never
     * completes (no timestamps), and a default flush never returns a
     * buffer holding an incomplete record, so every later record of this
     * thread would wait for the program's exit (and be lost on SIGKILL).
     * DecodeData synchronized the context, so a forced flush now returns
     * that buffer with only this launch's record lacking times.
     */
    int64_t t_eval = mono_ns();
    flush_forced();
    if (gh_debug)
        gh_say("profiled: ranges %zu dropped %zu why %s; ms: enable %.1f setup %.1f start %.1f "
               "launch %.1f "
               "stop+decode %.1f evaluate %.1f flush %.1f total %.1f",
               ci.numTotalRanges, dd.numOfRangeDropped, why ? why : "-", tls_t_ensure / 1e6,
               (tls_t_setup - tls_t_ensure) / 1e6, (tls_t_start - tls_t_setup) / 1e6,
               (t_exit - tls_t_enter_done) / 1e6, (t_decoded - t_exit) / 1e6,
               (t_eval - t_decoded) / 1e6, (mono_ns() - t_eval) / 1e6,
               (mono_ns() - (int64_t)tls_prof_t0) / 1e6);
    writer_push(&r);
}

/*
 * meta 'stack_limit_bytes': the launching context's CU_LIMIT_STACK_SIZE
 * (per-thread stack, where spills and local arrays of ABI calls live; the
 * context reserves it for every resident thread, so it shapes the local
 * memory layout), read at the first launch and at each profiled launch,
 * recorded when it changes (CUDA raises it for kernels that need more).
 * docs/agreement.md class C compares it with ncu's launch__stack_size.
 */
static void
note_stack_limit(void)
{
    /* GPUHIER_DIAG_STACK_LIMIT=BYTES (diagnosis, class C): set it first, at the first launch */
    const char *set = G.stack_limit_set;
    if (set && !atomic_load(&G.stack_limit) && gh.cuCtxSetLimit) {
        CUresult sr = gh.cuCtxSetLimit(CU_LIMIT_STACK_SIZE, (size_t)strtoull(set, NULL, 10));
        gh_say("GPUHIER_DIAG_STACK_LIMIT: cuCtxSetLimit(CU_LIMIT_STACK_SIZE, %s): %s", set,
               sr == CUDA_SUCCESS ? "ok" : "failed");
    }
    size_t v = 0;
    if (!gh.cuCtxGetLimit || gh.cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE) != CUDA_SUCCESS) {
        atomic_store(&G.stack_limit, -1); /* unknown: do not ask again */
        return;
    }
    long long was = atomic_exchange(&G.stack_limit, (long long)v + 1);
    if (was != (long long)v + 1) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%zu", v);
        push_meta("stack_limit_bytes", buf);
    }
}

/*
 * GPUHIER_DIAG_PREWARM=1 (diagnosis, docs/agreement.md, A1): before the
 * process's first kernel runs, enable the range profiler, configure the
 * core, start and stop an empty range, disable. Whatever the profiler's
 * first start writes to device memory is then written before the
 * program's own kernels, not right before its first profiled launch.
 */
static void
prof_prewarm(CUcontext ctx)
{
    pthread_mutex_lock(&G.prof_lock);
    int64_t t0 = mono_ns();
    int rc = prof_start(ctx, 0);
    if (rc == 0) {
        CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        sp.pRangeProfilerObject = G.prof_obj;
        gh.cuptiRangeProfilerStop(&sp);
    }
    if (G.lazy_ns > 0 && rc == 0)
        atomic_store(&G.last_prof_ns, mono_ns()); /* stays enabled: the hold's end disables it */
    else
        prof_disable();
    gh_say("GPUHIER_DIAG_PREWARM: empty range before the first launch: %s, %.1f ms%s",
           rc == 0 ? "ok" : "failed", (mono_ns() - t0) / 1e6,
           G.lazy_ns > 0 && rc == 0 ? ", profiler left enabled (profiler hold)" : "");
    pthread_mutex_unlock(&G.prof_lock);
}

/* ------------------------------------------------------------ activity buffers */

static void CUPTIAPI
buf_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = NULL;
    *size = 0;
    *max_records = 0;
    pthread_mutex_lock(&G.pool_lock);
    if (G.npool_free > 0) {
        int i = G.pool_free[--G.npool_free];
        *buffer = G.pool[i];
        *size = POOL_BUFFER_BYTES;
    }
    pthread_mutex_unlock(&G.pool_lock);
}

static void
buf_release(uint8_t *buf)
{
    pthread_mutex_lock(&G.pool_lock);
    for (int i = 0; i < POOL_BUFFERS; i++)
        if (G.pool[i] == buf) {
            G.pool_free[G.npool_free++] = i;
            break;
        }
    pthread_mutex_unlock(&G.pool_lock);
}

static void CUPTIAPI
buf_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    size_t dropped = 0;
    if (gh.cuptiActivityGetNumDroppedRecords &&
        gh.cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
        writer_add_activity_dropped(dropped);
    atomic_fetch_add(&G.buffers_seen, 1);
    if (valid)
        writer_push_buffer(buffer, valid, buf_release);
    else
        buf_release(buffer);
}

static void *
flusher_main(void *arg)
{
    (void)arg;
    long last_launches = 0, last_buffers = 0;
    int stalled = 0;
    while (!atomic_load(&G.flusher_stop)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 500000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        while (sem_timedwait(&G.flush_sem, &ts) == -1 && errno == EINTR)
            ;
        if (atomic_load(&G.flusher_stop))
            break;
        /*
         * A default flush returns only buffers whose records are all
         * complete. If launches keep coming but no buffer arrived for 2 s,
         * some record is stuck incomplete: force the flush (its times are lost).
         */
        long l = atomic_load(&G.launches_seen), b = atomic_load(&G.buffers_seen);
        uint32_t flag = G.flush_flag;
        if (b != last_buffers || l == last_launches)
            stalled = 0, last_buffers = b;
        else if (++stalled >= 4)
            flag = CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, stalled = 0;
        last_launches = l;
        if (atomic_load(&G.urgent)) {
            die_commit();
            atomic_store(&G.urgent_done, 1);
            break;
        }
        lazy_disable_if_idle();
        if (atomic_load(&G.activity_on))
            gh.cuptiActivityFlushAll(flag);
    }
    return NULL;
}

/* ------------------------------------------------------------ NVTX */

static void
nvtx_copy_message(char *out, size_t n, const nvtxEventAttributes_t *a)
{
    out[0] = 0;
    if (!a)
        return;
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii)
        snprintf(out, n, "%s", a->message.ascii);
    else if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE && a->message.unicode) {
        size_t i = 0;
        for (const wchar_t *w = a->message.unicode; *w && i + 1 < n; w++)
            out[i++] = *w < 128 && *w >= 32 ? (char)*w : '?';
        out[i] = 0;
    } else if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED)
        snprintf(out, n, "%s", "(registered string)");
}

static void
nvtx_domain_name(void *handle, char *out, size_t n)
{
    out[0] = 0;
    pthread_mutex_lock(&G.dom_lock);
    for (int i = 0; i < G.ndomains; i++)
        if (G.domains[i].handle == handle)
            snprintf(out, n, "%s", G.domains[i].name);
    pthread_mutex_unlock(&G.dom_lock);
}

/* Appends level d's name to the cached path (a push to depth d + 1). */
static void
nvtx_path_extend(int d)
{
    char *p = tls_nvtx_path;
    size_t len = d > 0 ? tls_nvtx_len[d] : 0, cap = sizeof(tls_nvtx_path);
    const char *parts[2] = {d ? " > " : "", tls_nvtx_names[d]};
    for (int k = 0; k < 2; k++)
        for (const char *c = parts[k]; *c && len + 1 < cap; c++)
            p[len++] = *c;
    p[len] = 0;
    tls_nvtx_len[d + 1] = len;
}

static void
nvtx_open(int is_push, uint64_t start_id, const char *domain, const char *name)
{
    struct rec r = {.type = REC_NVTX_OPEN};
    struct rec_nvtx *n = &r.u.nvtx;
    snprintf(n->name, sizeof(n->name), "%s", name ? name : "");
    if (domain)
        snprintf(n->domain, sizeof(n->domain), "%s", domain);
    if (is_push) {
        int d = tls_nvtx_depth;
        n->id = atomic_fetch_add(&G.nvtx_seq, 1) + 1;
        n->depth = d;
        n->has_thread = 1;
        n->parent_id = d > 0 && d <= NVTX_STACK ? tls_nvtx_ids[d - 1] : 0;
        if (d < NVTX_STACK) {
            tls_nvtx_ids[d] = n->id;
            gh_copy(tls_nvtx_names[d], NVTX_NAME, n->name);
            nvtx_path_extend(d);
        }
        tls_nvtx_depth = d + 1;
    } else {
        n->id = start_id | (1ULL << 40);
        n->depth = -1;
    }
    writer_push(&r);
}

static void
nvtx_close(int is_pop, uint64_t end_id)
{
    struct rec r = {.type = REC_NVTX_CLOSE};
    if (is_pop) {
        if (tls_nvtx_depth <= 0)
            return;
        int d = --tls_nvtx_depth;
        if (d >= NVTX_STACK)
            return;
        r.u.nvtx.id = tls_nvtx_ids[d];
    } else {
        r.u.nvtx.id = end_id | (1ULL << 40);
    }
    writer_push(&r);
}

/* Copies the thread's current NVTX path (truncated to n - 1 bytes) into out; returns its length. */
static size_t
nvtx_path(char *out, size_t n)
{
    int d = tls_nvtx_depth < NVTX_STACK ? tls_nvtx_depth : NVTX_STACK;
    size_t len = d > 0 ? tls_nvtx_len[d] : 0;
    if (len > n - 1)
        len = n - 1;
    memcpy(out, tls_nvtx_path, len);
    out[len] = 0;
    return len;
}

static void
on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData *d)
{
    const void *p = d->functionParams;
    char msg[REC_NVTX_NAME_MAX], dom[40];
    switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
        nvtx_open(1, 0, NULL, ((const nvtxRangePushA_params *)p)->message);
        break;
    case CUPTI_CBID_NVTX_nvtxRangePushW:
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
        if (cbid == CUPTI_CBID_NVTX_nvtxRangePushEx)
            nvtx_copy_message(msg, sizeof(msg), ((const nvtxRangePushEx_params *)p)->eventAttrib);
        else
            snprintf(msg, sizeof(msg), "%s", "(wide string)");
        nvtx_open(1, 0, NULL, msg);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
        const nvtxDomainRangePushEx_params *q = p;
        nvtx_copy_message(msg, sizeof(msg), q->core.eventAttrib);
        nvtx_domain_name(q->domain, dom, sizeof(dom));
        nvtx_open(1, 0, dom[0] ? dom : NULL, msg);
        break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
        nvtx_close(1, 0);
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
        if (!d->functionReturnValue)
            break;
        uint64_t id = *(const nvtxRangeId_t *)d->functionReturnValue;
        if (!id)
            break;
        dom[0] = 0;
        if (cbid == CUPTI_CBID_NVTX_nvtxRangeStartA)
            snprintf(msg, sizeof(msg), "%s", ((const nvtxRangeStartA_params *)p)->message);
        else if (cbid == CUPTI_CBID_NVTX_nvtxRangeStartEx)
            nvtx_copy_message(msg, sizeof(msg), ((const nvtxRangeStartEx_params *)p)->eventAttrib);
        else {
            const nvtxDomainRangeStartEx_params *q = p;
            nvtx_copy_message(msg, sizeof(msg), q->core.eventAttrib);
            nvtx_domain_name(q->domain, dom, sizeof(dom));
        }
        nvtx_open(0, id, dom[0] ? dom : NULL, msg);
        break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
        nvtx_close(0, ((const nvtxRangeEnd_params *)p)->id);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
        nvtx_close(0, ((const nvtxDomainRangeEnd_params *)p)->core.id);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainCreateA:
        if (d->functionReturnValue) {
            void *h = *(void *const *)d->functionReturnValue;
            const char *name = ((const nvtxDomainCreateA_params *)p)->name;
            pthread_mutex_lock(&G.dom_lock);
            if (h && name && G.ndomains < 32) {
                G.domains[G.ndomains].handle = h;
                snprintf(G.domains[G.ndomains].name, sizeof(G.domains[0].name), "%s", name);
                G.ndomains++;
            }
            pthread_mutex_unlock(&G.dom_lock);
        }
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ launches */

struct launch_args {
    CUfunction f;
    uint32_t grid[3], block[3], smem;
};

static int
launch_args(CUpti_CallbackId cbid, const void *params, struct launch_args *a)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *p = params;
        *a = (struct launch_args){p->f,
                                  {p->gridDimX, p->gridDimY, p->gridDimZ},
                                  {p->blockDimX, p->blockDimY, p->blockDimZ},
                                  p->sharedMemBytes};
        return 0;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *p = params;
        *a = (struct launch_args){p->f,
                                  {p->gridDimX, p->gridDimY, p->gridDimZ},
                                  {p->blockDimX, p->blockDimY, p->blockDimZ},
                                  p->sharedMemBytes};
        return 0;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = params;
        const CUlaunchConfig *c = p->config;
        if (!c)
            return -1;
        *a = (struct launch_args){p->f,
                                  {c->gridDimX, c->gridDimY, c->gridDimZ},
                                  {c->blockDimX, c->blockDimY, c->blockDimZ},
                                  c->sharedMemBytes};
        return 0;
    }
    default:
        return -1;
    }
}

static const char *
driver_api_name(CUpti_CallbackId cbid)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        return "cuLaunchKernel";
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        return "cuLaunchKernel_ptsz";
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        return "cuLaunchKernelEx";
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        return "cuLaunchKernelEx_ptsz";
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        return "cuLaunchCooperativeKernel";
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        return "cuLaunchCooperativeKernel_ptsz";
    default:
        return "cuLaunch";
    }
}

/* nvtx_path must stay the last field (only tail padding after it). */
_Static_assert(offsetof(struct rec_launch, nvtx_path) + REC_NVTX_PATH_MAX +
                       _Alignof(struct rec_launch) >
                   sizeof(struct rec_launch),
               "on_launch copies a launch record only up to the end of its NVTX path");

static void
on_launch(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    struct launch_args a;
    if (launch_args(cbid, cb->functionParams, &a))
        return;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        static __thread struct rec r;
        /* nvtx_path is the record's last field: clear and copy only up to its end. */
        const size_t fixed = offsetof(struct rec, u) + offsetof(struct rec_launch, nvtx_path);
        memset(&r, 0, fixed);
        r.type = REC_LAUNCH;
        atomic_fetch_add_explicit(&G.launches_seen, 1, memory_order_relaxed);
        struct rec_launch *l = &r.u.launch;
        l->corr = cb->correlationId;
        /* rt_corr stays 0: kernel records carry the driver id (no runtime launch callbacks). */
        l->config_index = -1;
        size_t used = fixed + nvtx_path(l->nvtx_path, sizeof(l->nvtx_path)) + 1;
        int capturing = atomic_load(&G.captures_drv) > 0 || atomic_load(&G.captures_rt) > 0;
        const char *why = NULL;
        int sample = 0, deferred = 0;
        unsigned extras = 0;
        if (G.prewarm && !G.trace_only && !capturing && !atomic_exchange(&G.prewarmed, 1))
            prof_prewarm(cb->context);
        /* no driver call inside a capture: it could be one the capture mode forbids */
        if (!capturing && !atomic_load_explicit(&G.stack_limit, memory_order_relaxed))
            note_stack_limit();
        /*
         * GPUHIER_DIAG_CARVEOUT=PCT (diagnosis, docs/agreement.md class C): the
         * shared-memory carveout the driver should prefer for this kernel, so the
         * L1 size a profiled launch runs with is known (its own record never
         * completes, so the report cannot say which carveout it got).
         */
        /*
         * GPUHIER_DIAG_PAD_MB=N (diagnosis, docs/agreement.md class C): N MB of
         * device memory taken before the program's first kernel runs, kept to the
         * end, so every later allocation (the local memory the context reserves
         * for a spilling kernel among them) lands at other addresses.
         */
        if (G.pad_mb > 0 && !capturing && !atomic_exchange(&G.padded, 1) && gh.cuMemAlloc_v2) {
            CUdeviceptr pad = 0;
            CUresult pr = gh.cuMemAlloc_v2(&pad, (size_t)G.pad_mb << 20);
            gh_say("GPUHIER_DIAG_PAD_MB: %ld MB at 0x%llx: %s", G.pad_mb, (unsigned long long)pad,
                   pr == CUDA_SUCCESS ? "ok" : "failed");
        }
        if (G.carveout_pct >= 0 && !capturing && gh.cuFuncSetAttribute)
            gh.cuFuncSetAttribute(a.f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                  G.carveout_pct);
        if (G.trace_only) {
            why = "mode_trace";
        } else if (G.sampling_ok) {
            struct sampling_launch sl = {
                .mangled = cb->symbolName,
                .grid = {a.grid[0], a.grid[1], a.grid[2]},
                .block = {a.block[0], a.block[1], a.block[2]},
                .dynamic_smem_bytes = a.smem,
                .nvtx_path = l->nvtx_path[0] ? l->nvtx_path : NULL,
                .is_capturing = capturing,
            };
            double budget = G.sampling.opts.budget_pct;
            if (budget > 0) {
                sl.budget_slots =
                    sampling_budget_slots(budget, atomic_load(&G.profiling_ns),
                                          mono_ns() - G.start_mono_ns, atomic_load(&G.profiles));
                sl.over_budget = sl.budget_slots == 0;
            }
            sl.counters_busy = backing_off();
            sample = sampling_decide_ex(&G.sampling, &sl, &why, &l->config_index, &extras) == NULL;
            deferred = sl.counters_busy && !sample && !strcmp(why, "counters_busy");
            tls_prof_launch = sl;
            if (sample && (G.prof_failed || capturing)) {
                sample = 0;
                why = capturing ? "stream_capture" : "profiler_unavailable";
            }
        } else {
            why = "profiler_unavailable";
        }
        if (sample) {
            pthread_mutex_lock(&G.prof_lock);
            atomic_store(&G.prof_busy, 1);
            tls_prof_t0 = (uint64_t)mono_ns();
            /* another thread may have met busy counters since this launch was decided */
            int rc = backing_off() ? -EBUSY : prof_start(cb->context, extras);
            if (rc == 0) {
                if (atomic_load(&G.busy_attempts)) {
                    G.busy_consecutive = 0;
                    atomic_store(&G.busy_until_ns, 0);
                    atomic_fetch_add(&G.busy_profiled, 1);
                }
                note_stack_limit();
                tls_prof_active = 1;
                tls_prof_corr = cb->correlationId;
                tls_prof_blocks = a.grid[0] * a.grid[1] * a.grid[2];
                l->sampled = 1;
                /*
                 * launch.api_ns: the allocations live at this time bound the
                 * kernel's footprint (v_launch_footprint). Only profiled
                 * launches need it (the rules read counters), and their replay
                 * costs milliseconds: unsampled launches skip the clock call.
                 */
                r.time_ns = gh_now_ns();
            } else {
                if (rc == -EBUSY) {
                    /* give the choice back: the configuration's next launch is chosen again */
                    sampling_undo(&G.sampling, &tls_prof_launch, why);
                    why = "counters_busy";
                    deferred = 1;
                } else {
                    why = "profiler_unavailable";
                }
                atomic_store(&G.prof_busy, 0);
                pthread_mutex_unlock(&G.prof_lock);
            }
        } else if (atomic_load(&G.prof_enabled) && !capturing && !G.keep_enabled &&
                   !lazy_keeps_enabled()) {
            /*
             * Disable the range profiler at the first unsampled launch
             * after a profiled one once the profiler hold has passed (this
             * also waits for a profiling thread to finish its range);
             * consecutive sampled launches, and launches within the hold,
             * keep it. Keeping it enabled for good (GPUHIER_DIAG_KEEP_ENABLED=1) left
             * unsampled kernels' GPU time unchanged and cost 9 % less
             * profiling on the H200, but a process whose profiler is
             * enabled holds the GPU's counters: every other process is
             * refused (CUPTI_ERROR_HARDWARE_BUSY) for as long as it runs
             * (docs/collector.md).
             */
            pthread_mutex_lock(&G.prof_lock);
            prof_disable();
            pthread_mutex_unlock(&G.prof_lock);
        } else if (atomic_load(&G.prof_busy) && !capturing) {
            /* Another thread is profiling: wait so our kernel does not land in its range. */
            pthread_mutex_lock(&G.prof_lock);
            pthread_mutex_unlock(&G.prof_lock);
        }
        if (deferred)
            atomic_fetch_add_explicit(&G.busy_deferred, 1, memory_order_relaxed);
        gh_copy(l->reason, sizeof(l->reason), why);
        writer_push_n(&r, used);
        if (gh_debug) {
            static atomic_long nl;
            long k = atomic_fetch_add(&nl, 1);
            if (k < 3 || k % 1000 == 0)
                gh_say("launch %ld %s: %s sampled %d", k, cb->symbolName, why ? why : "-",
                       l->sampled);
        }
        return;
    }
    /* EXIT */
    CUresult ret =
        cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue : CUDA_SUCCESS;
    if (tls_prof_active) {
        tls_prof_active = 0;
        prof_finish(ret == CUDA_SUCCESS);
        atomic_store(&G.last_prof_ns, mono_ns());
        atomic_store(&G.prof_busy, 0);
        pthread_mutex_unlock(&G.prof_lock);
    }
    if (ret != CUDA_SUCCESS) {
        struct rec r = {.type = REC_FAILURE};
        struct rec_failure *f = &r.u.failure;
        f->func = (uint64_t)(uintptr_t)a.f;
        f->error_code = (int)ret;
        memcpy(f->grid, a.grid, sizeof(f->grid));
        memcpy(f->block, a.block, sizeof(f->block));
        f->dynamic_smem_bytes = a.smem;
        snprintf(f->api, sizeof(f->api), "%s", driver_api_name(cbid));
        snprintf(f->name, sizeof(f->name), "%s", cb->symbolName ? cb->symbolName : "");
        writer_push(&r);
    }
}

/* ------------------------------------------------------------ callbacks */

static void
push_copy(const CUpti_CallbackData *cb, const char *api, int is_async, uint32_t corr,
          uint32_t rt_corr)
{
    /* Every memcpy params struct we hook starts with (dst, src). */
    const uint64_t *p = cb->functionParams;
    struct rec r = {.type = REC_COPY};
    r.u.copy.corr = corr;
    r.u.copy.rt_corr = rt_corr;
    r.u.copy.dst = p[0];
    r.u.copy.src = p[1];
    r.u.copy.is_async = is_async;
    snprintf(r.u.copy.api, sizeof(r.u.copy.api), "%s", api);
    writer_push(&r);
}

static void
flush_forced(void)
{
    if (gh.cuptiActivityFlushAll && atomic_load(&G.activity_on))
        gh.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

/*
 * The program obtained device memory that MEMORY2 may not report: the
 * live bytes of v_launch_footprint would no longer bound what kernels
 * read, so the report stops claiming complete allocation records (once).
 */
static void
untracked_memory(const char *api)
{
    static atomic_int said;
    if (atomic_exchange(&said, 1))
        return;
    char v[200];
    snprintf(v, sizeof(v), "off: the program called %s, whose memory allocation records may miss",
             api ? api : "a memory-mapping API");
    push_meta("alloc_tracking", v);
    push_event("info", "alloc_untracked", "%s", v);
}

static void
on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    int enter = cb->callbackSite == CUPTI_API_ENTER;
    CUresult ret = !enter && cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue
                                                     : CUDA_SUCCESS;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        on_launch(cbid, cb);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
        if (enter && !tls_rt_corr)
            push_copy(cb, cb->functionName, 0, cb->correlationId, 0);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
        if (enter && !tls_rt_corr)
            push_copy(cb, cb->functionName, 1, cb->correlationId, 0);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
        if (!enter && ret == CUDA_SUCCESS)
            atomic_fetch_add(&G.captures_drv, 1);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
        if (!enter && atomic_fetch_sub(&G.captures_drv, 1) <= 0)
            atomic_store(&G.captures_drv, 0);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2:
        if (enter)
            flush_forced();
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap:
    case CUPTI_DRIVER_TRACE_CBID_cuIpcOpenMemHandle:
    case CUPTI_DRIVER_TRACE_CBID_cuIpcOpenMemHandle_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemImportFromShareableHandle:
    case CUPTI_DRIVER_TRACE_CBID_cuMemPoolImportPointer:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddMemAllocNode:
        if (!enter && ret == CUDA_SUCCESS)
            untracked_memory(cb->functionName);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        /* Graph kernels have no launch callback: never let them run under an enabled profiler. */
        if (enter && atomic_load(&G.prof_enabled) && atomic_load(&G.captures_drv) <= 0 &&
            atomic_load(&G.captures_rt) <= 0) {
            pthread_mutex_lock(&G.prof_lock);
            prof_disable();
            pthread_mutex_unlock(&G.prof_lock);
        }
        break;
    default:
        break;
    }
}

static void
on_runtime(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    int enter = cb->callbackSite == CUPTI_API_ENTER;
    cudaError_t ret = !enter && cb->functionReturnValue
                          ? *(const cudaError_t *)cb->functionReturnValue
                          : cudaSuccess;
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
        if (enter)
            push_copy(cb, cb->functionName,
                      cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 ||
                          cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
                      cb->correlationId, 0);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030:
        if (!enter && ret == cudaSuccess)
            atomic_fetch_add(&G.captures_rt, 1);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000:
        if (!enter && atomic_fetch_sub(&G.captures_rt, 1) <= 0)
            atomic_store(&G.captures_rt, 0);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020:
        if (enter)
            flush_forced();
        break;
    default:
        break;
    }
    /* Inside a runtime copy, the nested driver copy callback must not record it again. */
    tls_rt_corr = enter ? cb->correlationId : 0;
}

static void
on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
    switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED: {
        struct rec r = {.type = REC_DEVICE};
        uint32_t dev = 0;
        gh.cuptiGetDeviceId(rd->context, &dev);
        r.u.device.device_id = (int)dev;
        CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
        cn.deviceIndex = dev;
        if (gh.cuptiDeviceGetChipName(&cn) == CUPTI_SUCCESS && cn.pChipName)
            snprintf(r.u.device.chip, sizeof(r.u.device.chip), "%s", cn.pChipName);
        writer_push(&r);
        break;
    }
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
        pthread_mutex_lock(&G.prof_lock);
        if (G.prof_ctx == rd->context)
            prof_disable();
        cacheflush_forget(rd->context);
        pthread_mutex_unlock(&G.prof_lock);
        writer_wake();
        break;
    case CUPTI_CBID_RESOURCE_MODULE_LOADED: {
        const CUpti_ModuleResourceData *m = rd->resourceDescriptor;
        /* Only cubins built with -lineinfo can map a kernel to its source: copy just those. */
        if (!m || !m->pCubin || !m->cubinSize || m->cubinSize > (256u << 20) ||
            !gh_cubin_has_lineinfo(m->pCubin, m->cubinSize))
            break;
        /* Module loads are rare (not the launch path): the copy is the documented exception. */
        void *copy = malloc(m->cubinSize);
        if (!copy)
            break;
        memcpy(copy, m->pCubin, m->cubinSize);
        struct rec r = {.type = REC_CUBIN};
        r.u.cubin.data = copy;
        r.u.cubin.size = m->cubinSize;
        if (writer_push(&r))
            free(copy);
        break;
    }
    default:
        break;
    }
}

static void CUPTIAPI
on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
    (void)ud;
    if (!atomic_load_explicit(&G.active, memory_order_relaxed))
        return;
    /* the L2 flush's own driver calls (module, buffer, kernel) are not the program's */
    if (cacheflush_active())
        return;
    switch (dom) {
    case CUPTI_CB_DOMAIN_DRIVER_API:
        on_driver(cbid, data);
        break;
    case CUPTI_CB_DOMAIN_RUNTIME_API:
        on_runtime(cbid, data);
        break;
    case CUPTI_CB_DOMAIN_RESOURCE:
        on_resource(cbid, data);
        break;
    case CUPTI_CB_DOMAIN_NVTX:
        on_nvtx(cbid, data);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ exit and signals */

/*
 * Writes made on the program's threads (the session file, an exec'd
 * predecessor's report) must not let RLIMIT_FSIZE kill the program:
 * SIGXFSZ is blocked around them, and one they raised is taken back.
 */
static void
xfsz_block(sigset_t *old)
{
    sigset_t x;
    sigemptyset(&x);
    sigaddset(&x, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &x, old);
}

static void
xfsz_restore(const sigset_t *old)
{
    sigset_t x, pending;
    sigemptyset(&x);
    sigaddset(&x, SIGXFSZ);
    struct timespec zero = {0, 0};
    if (!sigismember(old, SIGXFSZ) && sigpending(&pending) == 0 &&
        sigismember(&pending, SIGXFSZ) == 1)
        sigtimedwait(&x, NULL, &zero);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void
session_line(const char *line)
{
    if (!G.session_file[0])
        return;
    sigset_t old;
    xfsz_block(&old);
    int fd = open(G.session_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, line, strlen(line));
        (void)w;
        close(fd);
    }
    xfsz_restore(&old);
}

/*
 * The end line of GPUHIER_SESSION_FILE and, outside `gpuhier run`, the
 * summary line: after the writer stopped.
 */
static void
say_end(void)
{
    struct writer_stats s;
    writer_stats(&s);
    uint64_t skipped = s.launches > s.profiled ? s.launches - s.profiled : 0;
    /* records the writer could not write after its first failure count as dropped */
    uint64_t dropped = s.dropped + s.ranges_dropped + s.lost_after_error;
    char line[8192];
    snprintf(line, sizeof(line), "end\t%ld\t%s\t%llu\t%llu\t%llu\t%llu\t%d\t%lld\n", (long)G.pid,
             G.path, (unsigned long long)s.launches, (unsigned long long)s.profiled,
             (unsigned long long)skipped, (unsigned long long)dropped, G.max_passes,
             (long long)G.profiling_ns);
    session_line(line);
    /* Under `gpuhier run` the session file carries this and run prints it once. */
    if (!env("GPUHIER_SESSION_FILE"))
        gh_say("pid %ld: %llu launches traced, %llu profiled, %llu not profiled, %llu dropped, "
               "%d passes max, %.2f s profiling; report %s",
               (long)G.pid, (unsigned long long)s.launches, (unsigned long long)s.profiled,
               (unsigned long long)skipped, (unsigned long long)dropped, G.max_passes,
               G.profiling_ns / 1e9, G.path);
}

/* Waits at most `ms` for the flag; async-signal-safe. */
static int
wait_flag(atomic_int *flag, int ms)
{
    for (int i = 0; i < ms && !atomic_load(flag); i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return atomic_load(flag);
}

/* Stops and joins the flusher: afterwards no thread of ours calls CUPTI. */
static void
stop_flusher(void)
{
    if (!G.flusher_running)
        return;
    atomic_store(&G.flusher_stop, 1);
    sem_post(&G.flush_sem);
    pthread_join(G.flusher, NULL);
    G.flusher_running = 0;
}

/*
 * At exit (atexit; docs/collector.md "At exit", with the crash this order
 * fixes). The order matters:
 *   1. `active` off: callbacks still arriving (a thread still launching,
 *      the runtime's own teardown) return at once;
 *   2. the flusher is joined before anything else touches CUPTI, so no
 *      thread of ours is inside CUPTI while it or nvperf tear down;
 *   3. the range profiler is disabled from this thread with its context
 *      made current (exit() may be called by a thread that never used CUDA);
 *   4. a forced flush, then the writer drains, commits and closes.
 * finish() runs before CUPTI's and nvperf's own exit-time destructors:
 * those are registered when their state is first built, and
 * exit_hook_refresh() registers finish() again after each such point.
 */
static void
finish(void)
{
    pthread_mutex_lock(&G.init_lock);
    if (G.exited || !G.initialized || getpid() != G.pid || !atomic_load(&G.active)) {
        pthread_mutex_unlock(&G.init_lock);
        return;
    }
    G.exited = 1;
    pthread_mutex_unlock(&G.init_lock);
    if (atomic_exchange(&G.closing, 1))
        return; /* a fatal signal is closing it */
    atomic_store(&G.active, 0);
    stop_flusher();

    /* Another thread may be inside a profiled launch: wait a little, never forever. */
    int locked = 0;
    for (int i = 0; i < 2000 && !(locked = pthread_mutex_trylock(&G.prof_lock) == 0); i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    if (locked) {
        if (G.prof_obj)
            prof_disable_pushed();
        pthread_mutex_unlock(&G.prof_lock);
    }
    flush_forced();
    long busy = atomic_load(&G.busy_attempts);
    if (busy) {
        /* run has no column for these: the counts close the busy note of profiling_limited */
        char msg[sizeof(((struct rec *)0)->u.limited)];
        snprintf(msg, sizeof(msg),
                 "hardware counters busy: %ld attempts refused, %ld sampled launches deferred, "
                 "%ld launches profiled after the first refusal",
                 busy, atomic_load(&G.busy_deferred), atomic_load(&G.busy_profiled));
        gh_say("%s", msg);
        push_limited(msg);
    }
    if (atomic_load(&G.budget_unmatched))
        /* the kernel records' names or geometry did not match the launch callbacks' */
        push_event("warning", "budget_time_unmatched",
                   "--profile-budget: %ld traced kernels matched no configuration of the "
                   "launch callbacks; their GPU time did not count",
                   atomic_load(&G.budget_unmatched));
    if (G.flushes) {
        char v[64];
        snprintf(v, sizeof(v), "%ld flushes, %.1f ms", G.flushes, G.flush_ns / 1e6);
        push_meta("cache_flushes", v);
    }
    if (atomic_load(&G.profiles)) {
        /* how often the profiles paid a new enable (docs/collector.md "Profiler hold") */
        char v[32];
        snprintf(v, sizeof(v), "%lld", (long long)(G.lazy_ns / 1000000));
        push_meta("profiler_hold_ms", v);
        snprintf(v, sizeof(v), "%ld", atomic_load(&G.enables));
        push_meta("profiler_enables", v);
    }
    writer_stop(1);
    say_end();
    atomic_store(&G.closed, 1);
}

/*
 * The flusher's half of a fatal signal (the dying thread waits in
 * on_death): flush CUPTI's buffers, forced (a record still incomplete
 * keeps no times), record the signal, and close the report as at exit but
 * with clean_exit = 0. The range profiler is left alone: the dying thread
 * may hold its lock, and the process is about to end.
 */
static void
die_commit(void)
{
    char name[32];
    signals_name(G.death_sig, name, sizeof(name));
    flush_forced();
    push_event("error", "signal",
               "the program was ended by %s (signal %d); the report holds what the collector "
               "had received until then",
               name, G.death_sig);
    atomic_store(&G.active, 0);
    writer_stop(0);
    say_end();
    atomic_store(&G.closed, 1);
}

/*
 * A signal is about to end the process (signals.c decided; the program's own
 * handler, if any, already ran). Waits, bounded, for the flusher to commit
 * and close the report. Without a flusher (it could not start) what is
 * committed stays and the report is left for readers to call incomplete.
 */
static void
on_death(int sig)
{
    if (!G.initialized || getpid() != G.pid || !atomic_load(&G.active))
        return;
    if (G.flusher_running && pthread_equal(pthread_self(), G.flusher))
        return; /* the flusher itself faulted: nobody is left to commit */
    if (atomic_exchange(&G.closing, 1)) {
        wait_flag(&G.closed, 3000); /* finish() is closing it on another thread */
        return;
    }
    if (!G.flusher_running)
        return;
    G.death_sig = sig;
    atomic_store(&G.urgent_done, 0);
    atomic_store(&G.urgent, 1);
    sem_post(&G.flush_sem);
    wait_flag(&G.urgent_done, 3000);
}

/*
 * Registers finish() with atexit again. Exit handlers run in the reverse
 * order of registration, and CUPTI and nvperf register the destructors of
 * state they build lazily (the range profiler at its first enable, a
 * metrics host object, the first decodes and evaluations) when they build
 * it: a finish() registered before that ran after them and called into
 * freed state (the SIGSEGV at exit, docs/collector.md "At exit"). Called
 * after each such first time; finish() runs once.
 */
static void
exit_hook_refresh(void)
{
    pthread_mutex_lock(&G.init_lock);
    if (G.initialized && G.exit_hooks < 64 && atexit(finish) == 0)
        G.exit_hooks++;
    pthread_mutex_unlock(&G.init_lock);
}

static void
atfork_child(void)
{
    /* A forked child has none of our threads; it must not write the parent's report. */
    atomic_store(&G.active, 0);
}

/* ------------------------------------------------------------ init */

static const char *
env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static void
json_kv(struct strbuf *b, const char *k, const char *v, int *first)
{
    if (!v)
        return;
    strbuf_adds(b, *first ? "" : ",");
    jbuf_str(b, k, strlen(k));
    strbuf_adds(b, ":");
    jbuf_str(b, v, strlen(v));
    *first = 0;
}

static int
load_api(char *err, size_t n)
{
#define GH_LOAD(f) gh.f = (__typeof__(gh.f))cupti_sym(#f);
    GH_CUPTI_FNS(GH_LOAD)
#undef GH_LOAD
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!cuda)
        cuda = dlopen("libcuda.so", RTLD_NOW | RTLD_NOLOAD);
#define GH_LOAD(f) gh.f = cuda ? (__typeof__(gh.f))dlsym(cuda, #f) : NULL;
    GH_CU_FNS(GH_LOAD)
#undef GH_LOAD
    if (!gh.cuptiSubscribe || !gh.cuptiEnableCallback || !gh.cuptiActivityEnable ||
        !gh.cuptiActivityRegisterCallbacks || !gh.cuptiActivityFlushAll || !gh.cuptiGetDeviceId ||
        !gh.cuptiActivityGetNextRecord) {
        snprintf(err, n, "the loaded libcupti lacks the activity/callback API");
        return -1;
    }
    return 0;
}

/* Enables each callback of `ids`; returns how many CUPTI refused. */
static int
enable_list(CUpti_CallbackDomain dom, const CUpti_CallbackId *ids, size_t n)
{
    int refused = 0;
    for (size_t i = 0; i < n; i++)
        refused += gh.cuptiEnableCallback(1, G.sub, dom, ids[i]) != CUPTI_SUCCESS;
    return refused;
}

/* The lists and why each callback is there: collector_int.h. */
static void
enable_callbacks(void)
{
    /*
     * GPUHIER_DIAG_NO_LAUNCH_CALLBACKS=1, for diagnosis only: no launch
     * callbacks, so launches lose their NVTX path and sampling reason and
     * failed launches are not recorded, while CUPTI still traces every
     * kernel. Timed against a normal trace run, it splits the tracing cost
     * into CUPTI's kernel tracing and the launch callbacks (docs/collector.md).
     */
    size_t skip = 0;
    if (env("GPUHIER_DIAG_NO_LAUNCH_CALLBACKS")) {
        skip = GH_CB_DRIVER_LAUNCHES;
        gh_say("GPUHIER_DIAG_NO_LAUNCH_CALLBACKS: launch callbacks off (diagnosis: no NVTX "
               "paths, sampling or failed launches in this report)");
    }
    enable_list(CUPTI_CB_DOMAIN_DRIVER_API, gh_cb_driver + skip, GH_NCB(gh_cb_driver) - skip);
    enable_list(CUPTI_CB_DOMAIN_RUNTIME_API, gh_cb_runtime, GH_NCB(gh_cb_runtime));
    if (!G.trace_only) {
        enable_list(CUPTI_CB_DOMAIN_DRIVER_API, gh_cb_driver_profile, GH_NCB(gh_cb_driver_profile));
        enable_list(CUPTI_CB_DOMAIN_RUNTIME_API, gh_cb_runtime_profile,
                    GH_NCB(gh_cb_runtime_profile));
    }
    gh.cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    gh.cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE,
                           CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    gh.cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
    /* Only the NVTX calls on_nvtx handles; the whole domain if CUPTI refuses one of them. */
    if (enable_list(CUPTI_CB_DOMAIN_NVTX, gh_cb_nvtx, GH_NCB(gh_cb_nvtx)) && gh.cuptiEnableDomain) {
        gh.cuptiEnableDomain(1, G.sub, CUPTI_CB_DOMAIN_NVTX);
        if (gh_debug)
            gh_say("NVTX callbacks refused one by one; the whole NVTX domain is enabled");
    }
}

static int
subscribe(void)
{
    char old[256] = "";
    CUptiResult rc = fault("subscribe");
    if (rc == CUPTI_SUCCESS) {
        if (gh.cuptiSubscribe_v2) {
            CUpti_SubscriberParams sp = {CUpti_SubscriberParams_STRUCT_SIZE};
            sp.subscriberName = "gpuhier";
            sp.oldSubscriberName = old;
            sp.oldSubscriberSize = sizeof(old);
            rc = gh.cuptiSubscribe_v2(&G.sub, on_callback, NULL, &sp);
        } else {
            rc = gh.cuptiSubscribe(&G.sub, on_callback, NULL);
        }
    } else if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        snprintf(old, sizeof(old), "%s", "fault injection");
    }
    if (rc == CUPTI_SUCCESS)
        return 0;
    char msg[512];
    if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        snprintf(msg, sizeof(msg),
                 "CUPTI already has a subscriber (%s); gpuhier collects nothing in this "
                 "process (tools like torch.profiler, nsys and ncu cannot share CUPTI with it)",
                 old[0] ? old : "unknown tool");
    else
        snprintf(msg, sizeof(msg),
                 "cuptiSubscribe failed: %s; gpuhier collects nothing in this process",
                 cupti_err(rc));
    gh_say("%s", msg);
    push_limited(msg);
    push_event("error", "cupti_subscribe_failed", "%s", msg);
    return -1;
}

static void
init_activity(void)
{
    for (int i = 0; i < POOL_BUFFERS; i++) {
        G.pool[i] = aligned_alloc(8, POOL_BUFFER_BYTES);
        if (G.pool[i])
            G.pool_free[G.npool_free++] = i;
    }
    gh.cuptiActivityRegisterCallbacks(buf_request, buf_complete);
    /*
     * Diagnosis only (docs/agreement.md, class A2): where CUPTI keeps the
     * records the device writes. By default a 3.2 MB buffer in device
     * memory, whose writes pass through the L2 the profiled kernels use;
     * GPUHIER_DIAG_ACTIVITY_BUFFER=host puts it in pinned host memory,
     * =BYTES sets its size. Set before any context exists (we run at cuInit).
     */
    const char *ab = env("GPUHIER_DIAG_ACTIVITY_BUFFER");
    if (ab && gh.cuptiActivitySetAttribute) {
        uint8_t host = 1;
        size_t bytes = (size_t)strtoull(ab, NULL, 10), sz;
        CUptiResult rc;
        if (!strcmp(ab, "host")) {
            sz = sizeof(host);
            rc = gh.cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED,
                                              &sz, &host);
        } else {
            sz = sizeof(bytes);
            rc = gh.cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &bytes);
        }
        gh_say("GPUHIER_DIAG_ACTIVITY_BUFFER=%s: %s (diagnosis only)", ab,
               rc == CUPTI_SUCCESS ? "set" : cupti_err(rc));
    }
    /*
     * MEMORY2: one record per allocation and release (cheap: allocations
     * are rare next to launches), in trace and profile mode. The rules
     * bound a kernel's footprint with the memory live at its launch.
     */
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMORY2};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        /* Diagnosis only (bench/overhead_trace.sh): what kernel tracing itself costs. */
        if (kinds[i] == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
            env("GPUHIER_DIAG_NO_KERNEL_ACTIVITY")) {
            gh_say("GPUHIER_DIAG_NO_KERNEL_ACTIVITY: kernel activity off (diagnosis: no kernel "
                   "records in this report)");
            continue;
        }
        CUptiResult rc = gh.cuptiActivityEnable(kinds[i]);
        if (rc != CUPTI_SUCCESS)
            push_event("warning", "activity_enable_failed", "cuptiActivityEnable(%d) failed: %s",
                       (int)kinds[i], cupti_err(rc));
        if (kinds[i] == CUPTI_ACTIVITY_KIND_MEMORY2)
            push_meta("alloc_tracking",
                      rc == CUPTI_SUCCESS ? "on" : "off: cuptiActivityEnable(MEMORY2) failed");
    }
    /* CUPTI's worker completes records (timestamps) on its own schedule; make it wake often. */
    if (gh.cuptiActivityFlushPeriod && !env("GPUHIER_NO_FLUSH_PERIOD"))
        gh.cuptiActivityFlushPeriod(500);
    if (env("GPUHIER_FLUSH_FORCED"))
        G.flush_flag = CUPTI_ACTIVITY_FLAG_FLUSH_FORCED;
    atomic_store(&G.activity_on, 1);
}

/*
 * The flusher starts with the writer, CUPTI or not: besides flushing CUPTI's
 * buffers it is the thread that closes the report on a fatal signal.
 */
static void
start_flusher(void)
{
    sem_init(&G.flush_sem, 0, 0);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    G.flusher_running = pthread_create(&G.flusher, NULL, flusher_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * A GPUHIER_* option that takes one word of `choices`: the word's index,
 * `unset` when the variable is not set, or -1 after saying once that
 * profiling is off (bad_option).
 */
static int
env_word(const char *var, const char *choices, int unset)
{
    const char *v = env(var);
    if (!v)
        return unset;
    int i = optvalue_choice(v, choices);
    if (i < 0) {
        char words[64];
        limit("bad_option", "profiling disabled: %s='%s' is not %s", var, v,
              optvalue_choices_text(choices, words, sizeof(words)));
    }
    return i;
}

static void
init_profiling(void)
{
    char err[512] = "";
    /* the CLI refuses a bad mode; set by hand, it used to profile silently */
    int m = env_word("GPUHIER_MODE", OPTVALUE_MODES, 1);
    if (m == 0)
        G.trace_only = 1;
    if (m != 1)
        return;
    struct sampling_opts o = SAMPLING_OPTS_INIT;
    if (sampling_opts_from_env(&o, err, sizeof(err)) ||
        sampling_init(&G.sampling, &o, 0, err, sizeof(err))) {
        limit("bad_option", "profiling disabled: %s", err);
        return;
    }
    G.sampling_ok = 1;
    G.start_mono_ns = mono_ns();
    int ms = env_word("GPUHIER_METRIC_SET", OPTVALUE_METRIC_SETS, 0);
    if (ms < 0) {
        G.sampling_ok = 0;
        return;
    }
    G.no_core = ms == 1; /* none */
    if (G.no_core && !env("GPUHIER_METRICS")) {
        limit("bad_option", "profiling disabled: GPUHIER_METRIC_SET=none and no GPUHIER_METRICS");
        G.sampling_ok = 0;
        return;
    }
    G.metrics = metrics_list_build(G.no_core ? METRICS_NO_CORE : 0, env("GPUHIER_METRICS"),
                                   &G.nmetrics, err, sizeof(err));
    int c = env_word("GPUHIER_CACHE_CONTROL", OPTVALUE_CACHE_CONTROLS, 1);
    if (c < 0) {
        G.sampling_ok = 0;
        return;
    }
    G.cache_all = c == 0; /* all */
    if (G.sampling.opts.budget_pct > 0)
        writer_set_gpu_time_hook(budget_gpu_time);
    if (!G.metrics) {
        limit("bad_metric", "profiling disabled: %s", err);
        G.sampling_ok = 0;
    }
}

static char *
metric_set_json(void)
{
    if (G.trace_only || !G.metrics)
        return NULL;
    struct strbuf b = {0};
    strbuf_adds(&b, "[");
    for (size_t i = 0; i < G.nmetrics; i++) {
        if (i)
            strbuf_adds(&b, ",");
        jbuf_str(&b, G.metrics[i], strlen(G.metrics[i]));
    }
    strbuf_adds(&b, "]");
    return b.oom ? (strbuf_release(&b), NULL) : b.p;
}

/*
 * The process's place in a parallel job, from its launcher's variables
 * (docs/collector.md "Jobs of several processes"): meta 'rank',
 * 'local_rank', 'world_size' and 'rank_source', the launcher whose
 * variables gave them. The first launcher whose rank variable is a whole
 * number wins; nothing is written outside a job.
 */
static void
push_rank(void)
{
    static const struct {
        const char *source, *rank, *local, *size;
    } launchers[] = {
        {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
        {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
        {"PMIx", "PMIX_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
        {"MPICH (PMI)", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
        {"Slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
    };
    for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
        long v;
        if (!env(launchers[i].rank) || optvalue_count(env(launchers[i].rank), 0, &v))
            continue;
        push_meta("rank", env(launchers[i].rank));
        if (env(launchers[i].local) && optvalue_count(env(launchers[i].local), 0, &v) == 0)
            push_meta("local_rank", env(launchers[i].local));
        if (env(launchers[i].size) && optvalue_count(env(launchers[i].size), 1, &v) == 0)
            push_meta("world_size", env(launchers[i].size));
        push_meta("rank_source", launchers[i].source);
        return;
    }
}

static int
initialize(void)
{
    char err[1024] = "";
    G.pid = getpid();
    gh_quiet = env("GPUHIER_QUIET") && strcmp(env("GPUHIER_QUIET"), "0");
    gh_debug = env("GPUHIER_DEBUG") != NULL;
    /*
     * Diagnosis only (docs/metrics.md, cost): CUPTI_UserReplay instead of
     * kernel replay. Nothing is replayed, so only a configuration whose
     * metrics fit one pass gives values; others are dropped and counted.
     */
    const char *rp = env("GPUHIER_DIAG_REPLAY");
    G.user_replay = rp && !strcmp(rp, "user");
    /* Diagnosis only (docs/collector.md): the profiler stays enabled across unsampled launches. */
    G.keep_enabled = env("GPUHIER_DIAG_KEEP_ENABLED") != NULL;
    G.switch_keep = env("GPUHIER_DIAG_SWITCH_KEEP") != NULL;
    G.extras_core = env("GPUHIER_DIAG_EXTRAS_WITH_CORE") != NULL;
    G.prewarm = env("GPUHIER_DIAG_PREWARM") != NULL;
    G.print_metrics = env("GPUHIER_DIAG_PRINT_METRICS") != NULL;
    G.lazy_ns = 100 * 1000000LL;
    long hold_ms;
    if (env("GPUHIER_PROFILER_HOLD_MS")) {
        if (optvalue_count(env("GPUHIER_PROFILER_HOLD_MS"), 0, &hold_ms) == 0 && hold_ms <= 3600000)
            G.lazy_ns = hold_ms * 1000000LL;
        else
            gh_say("GPUHIER_PROFILER_HOLD_MS: '%s' is not a whole number of milliseconds "
                   "(0-3600000); keeping %.0f ms",
                   env("GPUHIER_PROFILER_HOLD_MS"), G.lazy_ns / 1e6);
    }
    G.stack_limit_set = env("GPUHIER_DIAG_STACK_LIMIT");
    G.carveout_pct = -1;
    if (env("GPUHIER_DIAG_PAD_MB") && optvalue_count(env("GPUHIER_DIAG_PAD_MB"), 1, &G.pad_mb))
        G.pad_mb = 0;
    long pct;
    if (env("GPUHIER_DIAG_CARVEOUT") &&
        optvalue_count(env("GPUHIER_DIAG_CARVEOUT"), 0, &pct) == 0 && pct <= 100) {
        G.carveout_pct = (int)pct;
        gh_say("GPUHIER_DIAG_CARVEOUT: every launch prefers a %d %% shared-memory carveout "
               "(diagnosis)",
               G.carveout_pct);
    }
    if (G.switch_keep)
        gh_say("GPUHIER_DIAG_SWITCH_KEEP: no re-enable when the config image changes (diagnosis "
               "only: values may be lost)");
    if (G.keep_enabled)
        gh_say("GPUHIER_DIAG_KEEP_ENABLED: range profiler stays enabled across unsampled launches "
               "(diagnosis only)");
    if (G.user_replay)
        gh_say("GPUHIER_DIAG_REPLAY=user: CUPTI user replay, one pass per range (diagnosis only)");
    if (env("GPUHIER_SESSION_FILE"))
        snprintf(G.session_file, sizeof(G.session_file), "%s", env("GPUHIER_SESSION_FILE"));
    const char *pattern = env("GPUHIER_OUTPUT") ? env("GPUHIER_OUTPUT") : OUTNAME_DEFAULT;
    int force = env("GPUHIER_FORCE") && strcmp(env("GPUHIER_FORCE"), "0");
    char *path = outname_claim(pattern, (long)G.pid, NULL, force);
    if (!path) {
        if (errno == EEXIST) {
            char *name = outname_expand(pattern, (long)G.pid, NULL, 1);
            gh_say("report '%s' exists; not overwriting it (use -f / GPUHIER_FORCE=1); "
                   "nothing collected in pid %ld",
                   name ? name : pattern, (long)G.pid);
            free(name);
        } else {
            gh_say("bad report name '%s': %s; nothing collected in pid %ld", pattern,
                   strerror(errno), (long)G.pid);
        }
        return -1;
    }
    /*
     * The report's absolute path: a program that changes its working
     * directory still gets its report where it was claimed, and the next
     * program image (exec) can find it.
     */
    char abs[PATH_MAX];
    snprintf(G.path, sizeof(G.path), "%s", realpath(path, abs) ? abs : path);
    free(path);
    adopt_previous_image();
    char act[sizeof(G.path) + 64];
    snprintf(act, sizeof(act), "%s:%s", G.image, G.path);
    setenv("GPUHIER_COLLECTOR_ACTIVE", act, 1);

    void *cupti = cupti_load(err, sizeof(err));
    int api_ok = cupti && load_api(err, sizeof(err)) == 0;
    init_profiling();

    struct strbuf opts = {0};
    int first = 1;
    strbuf_adds(&opts, "{");
    json_kv(&opts, "mode", G.trace_only ? "trace" : "profile", &first);
    json_kv(&opts, "sample", env("GPUHIER_SAMPLE"), &first);
    json_kv(&opts, "kernel", env("GPUHIER_KERNEL"), &first);
    json_kv(&opts, "launch_skip", env("GPUHIER_LAUNCH_SKIP"), &first);
    json_kv(&opts, "launch_count", env("GPUHIER_LAUNCH_COUNT"), &first);
    json_kv(&opts, "nvtx_include", env("GPUHIER_NVTX_INCLUDE"), &first);
    json_kv(&opts, "metrics", env("GPUHIER_METRICS"), &first);
    json_kv(&opts, "metric_set", env("GPUHIER_METRIC_SET"), &first);
    json_kv(&opts, "profile_budget", env("GPUHIER_PROFILE_BUDGET"), &first);
    json_kv(&opts, "cache_control", env("GPUHIER_CACHE_CONTROL"), &first);
    json_kv(&opts, "fault", env("GPUHIER_FAULT"), &first);
    strbuf_adds(&opts, "}");
    char *mjson = metric_set_json();
    uint32_t cv = 0;
    int dv = 0;
    if (api_ok && gh.cuptiGetVersion)
        gh.cuptiGetVersion(&cv);
    if (api_ok && gh.cuDriverGetVersion)
        gh.cuDriverGetVersion(&dv);
    struct writer_run_info ri = {
        .mode = G.trace_only ? "trace" : "profile",
        .options_json = opts.oom ? NULL : opts.p,
        .metric_set_json = mjson,
        .cupti_version = (int)cv,
        .driver_version = dv,
    };
    char werr[512] = "";
    if (writer_start(G.path, &ri, QUEUE_SLOTS, werr, sizeof(werr))) {
        gh_say("cannot write report '%s': %s; nothing collected in pid %ld", G.path, werr,
               (long)G.pid);
        strbuf_release(&opts);
        free(mjson);
        return -1;
    }
    strbuf_release(&opts);
    free(mjson);
    atomic_store(&G.active, 1);
    G.initialized = 1;
    start_flusher();
    signals_install(on_death);
    push_pending_note();
    push_rank();
    if (G.sampling_ok)
        push_meta("cache_control", G.cache_all ? "all" : "none");

    char line[8192];
    snprintf(line, sizeof(line), "start\t%ld\t%s\n", (long)G.pid, G.path);
    session_line(line);
    exit_hook_refresh();
    pthread_atfork(NULL, NULL, atfork_child);

    if (!api_ok) {
        char msg[1100];
        snprintf(msg, sizeof(msg), "cannot use CUPTI: %s; the report has no trace", err);
        gh_say("%s", msg);
        push_limited(msg);
        push_event("error", "cupti_unavailable", "%s", msg);
        return 0;
    }
    /* NVTX ranges reach CUPTI only through NVTX's injection hook. */
    if (!getenv("NVTX_INJECTION64_PATH") && cupti_load_path()[0])
        setenv("NVTX_INJECTION64_PATH", cupti_load_path(), 0);
    if (subscribe())
        return 0;
    enable_callbacks();
    init_activity();
    exit_hook_refresh(); /* after CUPTI's subscription and activity set-up */
    return 0;
}

/*
 * "<pid>:<token>", the token from the 16 random bytes the kernel gives each
 * program image (AT_RANDOM): the same for every copy of this library in one
 * image, different after exec(), which keeps the pid.
 */
static void
image_token(char *out, size_t n)
{
    const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
    unsigned long long t = 0;
    for (int i = 0; r && i < 8; i++)
        t = t << 8 | r[i];
    snprintf(out, n, "%ld:%016llx", (long)getpid(), t);
}

/*
 * This process ran another program image with the collector before it
 * exec'd this one (GPUHIER_COLLECTOR_ACTIVE names our pid with another
 * token): close that image's report, which its exit handlers never did
 * (collector/orphan.h), and write its end line to the session file.
 */
static void
adopt_previous_image(void)
{
    if (!G.previous[0])
        return;
    long long launches = 0, profiled = 0;
    char err[512];
    sigset_t old;
    xfsz_block(&old);
    int rc = orphan_close(G.previous, G.path, &launches, &profiled, err, sizeof(err));
    xfsz_restore(&old);
    if (rc) {
        gh_say("the report of the program this one replaced (exec), '%s', could not be closed: "
               "%s",
               G.previous, err);
        return;
    }
    char line[8400];
    snprintf(line, sizeof(line), "end\t%ld\t%s\t%lld\t%lld\t%lld\t0\t0\t0\n", (long)G.pid,
             G.previous, launches, profiled, launches > profiled ? launches - profiled : 0);
    session_line(line);
}

/* CUDA_INJECTION64_PATH entry point, called by cuInit. Returns 1 (success) always. */
GH_EXPORT int
InitializeInjection(void)
{
    pthread_mutex_lock(&G.init_lock);
    /* GPUHIER_COLLECTOR_ACTIVE=<pid>:<token>:<report> (initialize) */
    const char *act = getenv("GPUHIER_COLLECTOR_ACTIVE");
    char self[64];
    image_token(self, sizeof(self));
    size_t len = strlen(self);
    int same_image = act && !strncmp(act, self, len) && (act[len] == ':' || !act[len]);
    int again = G.initialized || G.pid == getpid() || same_image;
    if (!again) {
        /* the same pid, another image: exec() replaced the program that wrote act's report */
        const char *colon = act ? strchr(act, ':') : NULL;
        const char *rep = colon ? strchr(colon + 1, ':') : NULL;
        if (rep && (size_t)(colon - act) == strcspn(self, ":") && !strncmp(act, self, colon - act))
            snprintf(G.previous, sizeof(G.previous), "%s", rep + 1);
        snprintf(G.image, sizeof(G.image), "%s", self);
        G.pid = getpid();
        setenv("GPUHIER_COLLECTOR_ACTIVE", self, 1);
        pthread_mutex_unlock(&G.init_lock);
        initialize();
        return 1;
    }
    pthread_mutex_unlock(&G.init_lock);
    return 1;
}

/*
 * LD_PRELOAD path: point CUDA at this library so InitializeInjection runs
 * at cuInit, and only then. Nothing else happens in a process that never
 * initializes CUDA. If CUDA_INJECTION64_PATH is already set (by `gpuhier
 * run`, or by another tool), it is left alone.
 */
__attribute__((constructor)) static void
preload_constructor(void)
{
    if (getenv("CUDA_INJECTION64_PATH"))
        return;
    Dl_info di;
    if (!dladdr((void *)preload_constructor, &di) || !di.dli_fname || !*di.dli_fname)
        return;
    char buf[PATH_MAX];
    if (!realpath(di.dli_fname, buf))
        return;
    setenv("CUDA_INJECTION64_PATH", buf, 0);
}
