/* SPDX-License-Identifier: MIT */
/*
 * engine_rangeprof: the range profiler, a counter engine (engine.h).
 *
 * A launch the sampler gives it is profiled with CUPTI's range profiler
 * (auto range): by default one one-pass group of the plan
 * (collector/onepass.h) under user replay, so nothing is replayed and no
 * device memory is saved or restored; with --replay kernel the core set
 * (and extras) under kernel replay. Enable on the launch's context,
 * configure the group's or the set's config image and Start in the launch ENTER callback,
 * Stop + decode + evaluate in its EXIT, one range per launch, so a range
 * can only belong to the launch it bracketed. The values go to the writer
 * as one REC_PROFILE record. prof_lock is held from that ENTER to that
 * EXIT: an unsampled launch on another thread waits for it, so its kernel
 * never lands in the range. The profiler stays enabled for the profiler
 * hold after a profile and is disabled at the next unsampled launch after
 * it, by the flusher once it has passed, before a graph launch, when its
 * context is destroyed and at exit.
 *
 * By default (since 2026-12-04; GPUHIER_DIAG_SESSION=launch restores one
 * session per profiled launch; "kept session" below) a
 * one-pass group under user replay keeps one session: each profiled
 * launch is one user range of it, decoded by batch, evaluated by the
 * writer thread.
 *
 * Counters refused as busy (another process or tool) defer launches with
 * a doubling backoff; any other failure turns profiling off for the
 * process (limit()), and tracing goes on.
 */
#include "collector/cacheflush.h"
#include "collector/callbacks.h"
#include "collector/collector_int.h"
#include "collector/activity.h"
#include "collector/engine.h"
#include "collector/exit.h"
#include "collector/metrics.h"
#include "collector/notes.h"
#include "collector/onepass.h"
#include "collector/options.h"
#include "collector/sampler.h"
#include "collector/sampling.h"

#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Why the range profiler was disabled (meta profiler_disables; each
 * disable makes the next profile pay a new enable and CUPTI's first
 * Start: docs/collector.md "Profiler hold").
 */
enum prof_disable_why {
    DIS_HOLD,    /* an unsampled launch after the profiler hold */
    DIS_IDLE,    /* the flusher, the hold over with no launch */
    DIS_QUIESCE, /* another engine serves a launch (engine_quiesce()) */
    DIS_SWITCH,  /* another one-pass group's config image */
    DIS_GRAPH,   /* a graph launch */
    DIS_CONTEXT, /* another context, or the profiled one going */
    DIS_BUSY,    /* the counters refused (CUPTI_ERROR_HARDWARE_BUSY) */
    DIS_FAILURE, /* a failed call, or a user-replay session left mid-way */
    DIS_PREWARM, /* GPUHIER_DIAG_PREWARM's empty range without a hold */
    DIS_EXIT,
    DIS_NWHY
};
static const char *const dis_words[DIS_NWHY] = {
    "hold", "idle", "quiesce", "switch", "graph", "context", "busy", "failure", "prewarm", "exit",
};
static struct {
    /* prof_lock is held from a sampled launch's ENTER to its EXIT. */
    pthread_mutex_t prof_lock;
    atomic_int prof_busy;    /* a profiled launch holds prof_lock (its ENTER to its EXIT) */
    atomic_int prof_enabled; /* a range profiler object is enabled (prof_obj) */
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
        unsigned groups;        /* enum metrics_group mask; 0 = core; ENGINE_GROUP | g: group g */
        struct metrics_host *h; /* never freed: queued records point at its names */
        int passes;
        int user;                       /* CUPTI_UserReplay (one pass, nothing replayed) */
        char set[METRICS_SET_NAME_MAX]; /* profile.metric_set, e.g. "core", "tie+tma", "group1/6" */
    } hosts[64], *cur;
    /*
     * The one-pass plan (opt.groups), packed once per chip at the first
     * profiled launch; its groups' host objects are opened on first use
     * and kept (prof_host()). plan_groups counts the plan's groups plus
     * the group of --metrics names, if any; 0 until packed; -1 when
     * packing failed (the core under kernel replay instead, said once).
     */
    struct onepass_plan plan;
    int plan_groups;
    struct prof_host *configured; /* the host whose config image the enabled object last got */
    int nhosts;
    char chip[32];
    uint8_t *counter_data;
    size_t counter_size, counter_cap;
    atomic_int max_passes;     /* written under prof_lock, read by rangeprof_stats() without it */
    atomic_llong profiling_ns; /* written under prof_lock, read by --profile-budget's test */
    atomic_llong first_ns;     /* the first profile's time (CUPTI's set-up), 0 before it */
    atomic_long profiles;      /* profiles taken (prof_finish), for the budget's mean cost */
    atomic_long enables; /* successful cuptiRangeProfilerEnable calls (meta profiler_enables) */
    atomic_long disables[DIS_NWHY]; /* by enum prof_disable_why (meta profiler_disables) */
    int started;               /* a range was started since the object was enabled (prof_lock) */
    long flushes;              /* L2 flushes done (prof_lock) */
    int64_t flush_ns;          /* their time, inside the profiled launches' overhead (prof_lock) */
    int cache_off;             /* --cache-control all failed once: no more flushes (prof_lock) */
    atomic_llong last_prof_ns; /* when the last profile (or prewarm) ended, monotonic ns */
    atomic_int prewarmed;      /* GPUHIER_DIAG_PREWARM's empty range was tried */
    _Atomic(CUcontext) bg_ctx; /* =bg: the first context, for the flusher's prewarm */
    atomic_int launched;       /* the program's first launch reached rangeprof_prepare() */
    atomic_int hosts_prepared; /* rangeprof_prepare() built the host objects (both engines) */
    int64_t prepare_ns;        /* how long that took, on the program's first launch */
    int64_t first_phase_ns[3]; /* the first profile's enable, set-up and start */
} R = {
    .prof_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void prof_disable(enum prof_disable_why why);
static void kept_drain(void);
static struct prof_host *prof_group_host(unsigned key);

static __thread uint64_t tls_prof_t0;
static __thread uint32_t tls_prof_corr;
static __thread uint32_t tls_prof_blocks;
/* local memory the profiled launch's function declares (bytes per thread; -1 unknown): the order */
static __thread long tls_prof_local;
/* Phase times of the current profiled launch (GPUHIER_DEBUG, meta profiler_setup), ns. */
static __thread int64_t tls_t_ensure, tls_t_setup, tls_t_start, tls_t_enter_done;

/*
 * One profile's time into the engine's totals (prof_lock held); the first
 * is also kept apart (CUPTI's set-up: the groups' wait leaves it out,
 * sampling_groups_wait(); its phases for meta profiler_setup), and the
 * first profiles refresh the exit hook: they decode and evaluate for the
 * first time.
 */
static void
profile_counted(int64_t dt)
{
    R.profiling_ns += dt;
    long n = atomic_fetch_add(&R.profiles, 1);
    if (n == 0) {
        atomic_store(&R.first_ns, dt);
        /* the first profile's phases: CUPTI's set-up on the device (meta profiler_setup) */
        R.first_phase_ns[0] = tls_t_ensure;
        R.first_phase_ns[1] = tls_t_setup - tls_t_ensure;
        R.first_phase_ns[2] = tls_t_start - tls_t_setup;
    }
    if (n < 4)
        exit_hook_refresh();
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
    prof_disable(DIS_BUSY);
    long n = atomic_fetch_add(&R.busy_attempts, 1) + 1;
    R.busy_consecutive++;
    atomic_store(&R.busy_until_ns, mono_ns() + sampling_busy_backoff_ns(R.busy_consecutive));
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
    int64_t until = atomic_load_explicit(&R.busy_until_ns, memory_order_relaxed);
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

/* The names a rule asked for that the chip lacks (metrics_set_optional()): one warning. */
static void
say_dropped(const struct metrics_host *h)
{
    if (*metrics_host_dropped(h))
        push_event("warning", "rule_metric_unknown",
                   "metrics a rule asked for are not collected, chip '%s' lacks them: %s", R.chip,
                   metrics_host_dropped(h));
}

/*
 * Keeps host object `h` (opened for `key`, prof_host()'s key) in R.hosts,
 * which the caller checked has room; `user` or GPUHIER_DIAG_REPLAY=user:
 * collected under user replay. The caller names its set (ph->set).
 */
static struct prof_host *
host_add(unsigned key, struct metrics_host *h, int user)
{
    say_dropped(h);
    struct prof_host *ph = &R.hosts[R.nhosts++];
    exit_hook_refresh(); /* nvperf built this host object's state just now */
    ph->groups = key;
    ph->h = h;
    ph->passes = metrics_host_passes(h);
    ph->user = user || opt.user_replay;
    return ph;
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
    for (int i = 0; i < R.nhosts; i++)
        if (R.hosts[i].groups == groups)
            return &R.hosts[i];
    if (R.nhosts == (int)(sizeof(R.hosts) / sizeof(R.hosts[0])))
        return NULL;
    char err[512] = "";
    size_t n = 0;
    if (groups & ENGINE_GROUP)
        return prof_group_host(groups);
    /* extras carry the tie set, or the whole core as before 2026-11-29 (opt.extras_core) */
    unsigned with = opt.extras_core ? 0 : METRICS_NO_CORE | METRICS_TIE;
    char **list =
        groups ? metrics_list_build(groups | with, env("GPUHIER_METRICS"), &n, err, sizeof(err))
               : NULL;
    struct metrics_host *h = NULL;
    int rc =
        groups
            ? (list ? metrics_host_open(R.chip, (const char *const *)list, n, &h, err, sizeof(err))
                    : -1)
            : metrics_host_open(R.chip, (const char *const *)opt.metrics, opt.nmetrics, &h, err,
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
    struct prof_host *ph = host_add(groups, h, 0);
    /*
     * --metric-set none with a one-pass list, under the kept session: user
     * replay, one user range per launch as for the plan's groups (nothing
     * replayed, nothing saved; kept_eligible()). The every-launch row of
     * docs/cost-vs-ncu.md compares such a list with ncu's.
     */
    if (!groups && opt.no_core && opt.session_kept && ph->passes == 1)
        ph->user = 1;
    /* "core", "metrics" (--metric-set none), or "tie+GROUP...": an extras profile */
    metrics_set_name(groups && with ? "tie"
                     : opt.no_core  ? "metrics"
                                    : "core",
                     groups, ph->set, sizeof(ph->set));
    return ph;
}

/*
 * The host object of one-pass group `key` & ENGINE_GROUP_MASK of the
 * plan, opened on its first launch and kept for the process: a group of
 * the packing, or (the last, when GPUHIER_METRICS names some) the tie set
 * with the user's names. A group of one pass is collected under user
 * replay; the user's group, if it needs more, under kernel replay. NULL
 * after saying why (the caller falls back to the core).
 */
static struct prof_host *
prof_group_host(unsigned key)
{
    int g = (int)(key & ENGINE_GROUP_MASK);
    char err[512] = "";
    if (R.plan_groups <= 0 || g >= R.plan_groups)
        return NULL;
    struct metrics_host *h = NULL;
    int rc;
    if (g < (int)R.plan.ngroups) {
        rc = metrics_host_open(R.chip, (const char *const *)R.plan.packing.names[g],
                               R.plan.packing.count[g], &h, err, sizeof(err));
    } else {
        size_t n = 0;
        char **list = metrics_list_build(METRICS_NO_CORE | METRICS_TIE, env("GPUHIER_METRICS"), &n,
                                         err, sizeof(err));
        rc = list ? metrics_host_open(R.chip, (const char *const *)list, n, &h, err, sizeof(err))
                  : -1;
        metrics_list_free(list, n);
    }
    if (rc) {
        push_event("warning", "metric_group_failed", "one-pass group %d of %d not collected: %s",
                   g + 1, R.plan_groups, err);
        return NULL;
    }
    struct prof_host *ph = host_add(key, h, metrics_host_passes(h) == 1);
    snprintf(ph->set, sizeof(ph->set), "group%d/%d", g + 1, R.plan_groups);
    return ph;
}

/*
 * Packs the one-pass plan for R.chip (prof_ensure(), once per chip):
 * tells the sampler how many groups a configuration is profiled in and
 * records it (meta 'metric_groups'). A plan that cannot be packed (a chip
 * whose counters differ) leaves the core set under kernel replay, said
 * once: the sampler then hands out first groups only, each collected as a
 * core profile. Returns 0; -1 only when even the core cannot be opened.
 */
static int
prof_plan(void)
{
    char err[512] = "";
    onepass_plan_release(&R.plan); /* another chip: the old hosts stay alive */
    R.plan_groups = 0;
    enum onepass_order order = opt.plan_roof_early ? ONEPASS_ROOF_EARLY : ONEPASS_CODE_EARLY;
    if (onepass_plan_build_ordered(&R.plan, R.chip, order, err, sizeof(err))) {
        R.plan_groups = -1;
        push_event("warning", "metric_groups_failed",
                   "one-pass groups unavailable for chip '%s' (%s): the core set is collected "
                   "under kernel replay on each configuration's first launch",
                   R.chip, err);
        return prof_host(0) ? 0 : -1;
    }
    R.plan_groups = (int)R.plan.ngroups + (env("GPUHIER_METRICS") ? 1 : 0);
    if (R.plan_groups > SAMPLING_GROUPS_MAX)
        R.plan_groups = SAMPLING_GROUPS_MAX;
    sampler_set_groups(R.plan_groups);
    char v[64];
    snprintf(v, sizeof(v), "%d", R.plan_groups);
    push_meta("metric_groups", v);
    if (order == ONEPASS_ROOF_EARLY)
        push_meta("metric_plan_order", "roof");
    exit_hook_refresh(); /* nvperf's host state was built for the packing */
    return 0;
}

/*
 * Resets the counter-data image and configures the next range (`range`:
 * CUPTI_AutoRange, or CUPTI_UserRange for a kept session, with room for
 * `ranges` ranges a pass): 0, -EBUSY or -1.
 */
static int
prof_configure(CUpti_ProfilerRange range, size_t ranges)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ip.pRangeProfilerObject = R.prof_obj;
    ip.counterDataSize = R.counter_size;
    ip.pCounterData = R.counter_data;
    CUptiResult rc = gh.cuptiRangeProfilerCounterDataImageInitialize(&ip);
    if (rc != CUPTI_SUCCESS) {
        prof_fail("cuptiRangeProfilerCounterDataImageInitialize", rc);
        return -1;
    }
    size_t csize = 0;
    const void *cimg = metrics_host_config_image(R.cur->h, &csize);
    CUpti_RangeProfiler_SetConfig_Params sp = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = R.prof_obj;
    sp.configSize = csize;
    sp.pConfig = cimg;
    sp.counterDataImageSize = R.counter_size;
    sp.pCounterDataImage = R.counter_data;
    sp.range = range;
    sp.replayMode = R.cur->user ? CUPTI_UserReplay : CUPTI_KernelReplay;
    sp.maxRangesPerPass = ranges;
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
prof_disable(enum prof_disable_why why)
{
    if (!R.prof_obj)
        return;
    atomic_fetch_add_explicit(&R.disables[why], 1, memory_order_relaxed);
    if (gh_debug)
        gh_say("profiler disabled (%s)", dis_words[why]);
    kept_drain(); /* a kept session's ranges are decoded before the object goes */
    CUpti_RangeProfiler_Disable_Params dp = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = R.prof_obj;
    gh.cuptiRangeProfilerDisable(&dp);
    atomic_store(&R.prof_enabled, 0);
    R.prof_obj = NULL;
    R.prof_ctx = NULL;
    R.configured = NULL;
    R.started = 0;
}

/* cuptiProfilerInitialize, once (prof_lock held): 0, or -1 after prof_fail(). */
static int
prof_initialize(void)
{
    if (R.prof_inited)
        return 0;
    nvperf_ready(); /* CUPTI loads nvperf by bare name now: its open (started at init) ends */
    CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CUptiResult rc = gh.cuptiProfilerInitialize(&pi);
    if (rc != CUPTI_SUCCESS) {
        prof_fail("cuptiProfilerInitialize", rc);
        return -1;
    }
    R.prof_inited = 1;
    return 0;
}

/*
 * The host objects (the one-pass plan, or the core set) for device
 * `dev`'s chip, built when the chip is new (prof_lock held): host calls
 * only, nothing on the device. 0, or -1 after prof_fail().
 */
static int
prof_chip_hosts(uint32_t dev)
{
    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = dev;
    CUptiResult rc = gh.cuptiDeviceGetChipName(&cn);
    if (rc != CUPTI_SUCCESS || !cn.pChipName || !*cn.pChipName) {
        prof_fail("cuptiDeviceGetChipName", rc != CUPTI_SUCCESS ? rc : CUPTI_ERROR_UNKNOWN);
        return -1;
    }
    if (R.nhosts && !strcmp(R.chip, cn.pChipName))
        return 0;
    rc = fault("host_init");
    if (rc != CUPTI_SUCCESS) {
        prof_fail("cuptiProfilerHostInitialize", rc);
        return -1;
    }
    R.nhosts = 0; /* another chip: start over (old objects stay alive) */
    snprintf(R.chip, sizeof(R.chip), "%s", cn.pChipName);
    return (opt.groups ? prof_plan() : !prof_host(0)) ? -1 : 0;
}

/*
 * Enables the range profiler on `ctx` (disabling it on another context):
 * 0, -EBUSY when the counters are busy, -1 when profiling has ended.
 */
static int
prof_ensure(CUcontext ctx)
{
    if (limited())
        return -1;
    if (R.prof_obj && R.prof_ctx == ctx)
        return 0;
    prof_disable(DIS_CONTEXT);
    CUptiResult rc;
    if (prof_initialize())
        return -1;
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

    if (prof_chip_hosts(dev))
        return -1;

    CUpti_RangeProfiler_Enable_Params ep = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    ep.ctx = ctx;
    rc = fault("range_enable");
    if (rc == CUPTI_SUCCESS)
        rc = gh.cuptiRangeProfilerEnable(&ep);
    if (rc != CUPTI_SUCCESS)
        return prof_refused("cuptiRangeProfilerEnable", rc);
    R.prof_obj = ep.pRangeProfilerObject;
    R.prof_ctx = ctx;
    atomic_store(&R.prof_enabled, 1);
    if (atomic_fetch_add(&R.enables, 1) == 0)
        exit_hook_refresh(); /* CUPTI set up the range profiler's state just now */

    return 0;
}

/* Sizes the counter-data image for host `ph` and `ranges` ranges on the enabled object. */
static int
prof_counter_data(const struct prof_host *ph, size_t ranges)
{
    size_t n = 0;
    const char *const *names = metrics_host_names(ph->h, &n);
    CUpti_RangeProfiler_GetCounterDataSize_Params gs = {
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    gs.pRangeProfilerObject = R.prof_obj;
    gs.pMetricNames = (const char **)names;
    gs.numMetrics = n;
    gs.maxNumOfRanges = ranges;
    gs.maxNumRangeTreeNodes = (uint32_t)ranges;
    CUptiResult rc = gh.cuptiRangeProfilerGetCounterDataSize(&gs);
    if (rc != CUPTI_SUCCESS) {
        prof_fail("cuptiRangeProfilerGetCounterDataSize", rc);
        return -1;
    }
    if (gs.counterDataSize > R.counter_cap) {
        /* Grows a few times per process at most (not per launch). */
        uint8_t *p = realloc(R.counter_data, gs.counterDataSize);
        if (!p) {
            limit("profiler_error",
                  "hardware counters unavailable: out of memory for counter data");
            return -1;
        }
        R.counter_data = p;
        R.counter_cap = gs.counterDataSize;
    }
    R.counter_size = gs.counterDataSize;
    return 0;
}

/* Starts and stops a range with no launch in it, on the enabled object (prof_lock held). */
static CUptiResult
prof_empty_range(void)
{
    CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = R.prof_obj;
    CUptiResult rc = gh.cuptiRangeProfilerStart(&sp);
    if (rc != CUPTI_SUCCESS)
        return rc; /* the real Start meets it again and handles it */
    R.started = 1;
    CUpti_RangeProfiler_Stop_Params tp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    tp.pRangeProfilerObject = R.prof_obj;
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
        R.cache_off = 1;
        char value[sizeof(((struct rec *)0)->u.meta.value)], msg[400];
        snprintf(value, sizeof(value), "none: %s", err);
        push_meta("cache_control", value);
        snprintf(msg, sizeof(msg),
                 "cache control off: the L2 flush before a profiled launch failed (%s)", err);
        note_limited("cache_control_failed", msg,
                     "later profiled launches see the L2 as the program left it");
        return;
    }
    R.flushes++;
    R.flush_ns += mono_ns() - t0;
}

/*
 * cuptiRangeProfilerStart on the enabled object (fault site range_start).
 * 0 with R.started set; else the profiler is disabled and the result of
 * prof_refused() returned.
 */
static int
prof_range_start(void)
{
    CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = R.prof_obj;
    CUptiResult rc = fault("range_start");
    if (rc == CUPTI_SUCCESS)
        rc = gh.cuptiRangeProfilerStart(&sp);
    if (rc != CUPTI_SUCCESS) {
        int ret = prof_refused("cuptiRangeProfilerStart", rc);
        prof_disable(DIS_FAILURE);
        return ret;
    }
    R.started = 1;
    return 0;
}

/*
 * ENTER of a sampled launch or graph launch (prof_lock held): configure
 * `range` (auto range: one range per kernel) with room for `ranges`
 * ranges and start.
 * 0 when started, -EBUSY when the counters are busy (the launch is
 * deferred, profiling goes on), -1 when profiling has ended.
 */
static int
prof_start_ranges(CUcontext ctx, unsigned groups, CUpti_ProfilerRange range, size_t ranges)
{
    int64_t t0 = mono_ns();
    int ret = prof_ensure(ctx);
    if (ret)
        return ret;
    tls_t_ensure = mono_ns() - t0;
    R.cur = groups ? prof_host(groups) : NULL;
    if (!R.cur)
        R.cur = prof_host(0); /* a group that failed, or no plan: the core, as before */
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
    if (R.cur && R.configured && R.configured != R.cur && !opt.switch_keep) {
        prof_disable(DIS_SWITCH);
        if ((ret = prof_ensure(ctx)))
            return ret;
    }
    ret = R.cur && !prof_counter_data(R.cur, ranges) ? prof_configure(range, ranges) : -1;
    if (ret) {
        prof_disable(DIS_FAILURE);
        return ret;
    }
    R.configured = R.cur;
    if (opt.cache_all && !R.cache_off) {
        /*
         * The first Start after an enable sets the profiler up on the
         * device (~200 ms, docs/metrics.md) and leaves about 5 MB of dirty
         * lines in the L2 (measured on the H200, docs/agreement.md A1):
         * an empty range does that before the flush, so the real range
         * starts from the flushed L2.
         */
        if (!R.started)
            prof_empty_range();
        prof_flush_l2(ctx);
    }
    tls_t_setup = mono_ns() - t0;
    if ((ret = prof_range_start()))
        return ret;
    tls_t_start = mono_ns() - t0;
    tls_t_enter_done = mono_ns();
    return 0;
}

/* ENTER of a sampled launch: prof_start_ranges() with room for the launch's one auto range. */
static int
prof_start(CUcontext ctx, unsigned groups)
{
    return prof_start_ranges(ctx, groups, CUPTI_AutoRange, 4);
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
    return opt.lazy_ns > 0 && mono_ns() - atomic_load(&R.last_prof_ns) < opt.lazy_ns;
}

/*
 * prof_disable() from a thread that may have no current context (the
 * flusher, or exit() called by a thread that never used CUDA): CUPTI's
 * calls are made as from the launching thread, with its context pushed.
 * prof_lock is held.
 */
static void
prof_disable_pushed(enum prof_disable_why why)
{
    CUcontext popped = NULL;
    int pushed = gh.cuCtxPushCurrent_v2 && gh.cuCtxPushCurrent_v2(R.prof_ctx) == CUDA_SUCCESS;
    prof_disable(why);
    if (pushed && gh.cuCtxPopCurrent_v2)
        gh.cuCtxPopCurrent_v2(&popped);
}

/* The flusher's half of the profiler hold: it never waits for the profiling lock. */
static void
lazy_disable_if_idle(void)
{
    /* GPUHIER_DIAG_KEEP_ENABLED keeps it for the process's life: no hold ends it */
    if (opt.lazy_ns <= 0 || opt.keep_enabled || !atomic_load(&R.prof_enabled) ||
        lazy_keeps_enabled() || callbacks_capturing())
        return;
    if (pthread_mutex_trylock(&R.prof_lock))
        return;
    if (!atomic_load(&R.prof_busy) && !lazy_keeps_enabled() && R.prof_ctx)
        prof_disable_pushed(DIS_IDLE);
    pthread_mutex_unlock(&R.prof_lock);
}

/*
 * After a Stop with every pass submitted (prof_lock held): decodes the
 * session into R.counter_data. NULL with *ranges and *dropped set, or
 * which call failed and how, written to `failed` (phased's discarded
 * ranges on the H200 said only the error).
 */
static const char *
prof_decode(size_t *ranges, size_t *dropped, char *failed, size_t nfailed)
{
    const char *call = "cuptiRangeProfilerDecodeData";
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = R.prof_obj;
    CUptiResult rc = fault("range_decode"); /* docs/fault-injection.md */
    if (rc == CUPTI_SUCCESS)
        rc = gh.cuptiRangeProfilerDecodeData(&dd);
    CUpti_RangeProfiler_GetCounterDataInfo_Params ci = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    ci.pCounterDataImage = R.counter_data;
    ci.counterDataImageSize = R.counter_size;
    if (rc == CUPTI_SUCCESS) {
        call = "cuptiRangeProfilerGetCounterDataInfo";
        rc = gh.cuptiRangeProfilerGetCounterDataInfo(&ci);
    }
    if (rc != CUPTI_SUCCESS) {
        snprintf(failed, nfailed, "%s: %s", call, cupti_err(rc));
        return failed;
    }
    *ranges = ci.numTotalRanges;
    *dropped = dd.numOfRangeDropped;
    return NULL;
}

/* The name of range i of the decoded image in R.counter_data, or NULL. */
static const char *
range_name(size_t i)
{
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params gi = {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    gi.pCounterDataImage = R.counter_data;
    gi.counterDataImageSize = R.counter_size;
    gi.rangeIndex = i;
    gi.rangeDelimiter = "/";
    if (!gh.cuptiRangeProfilerCounterDataGetRangeInfo ||
        gh.cuptiRangeProfilerCounterDataGetRangeInfo(&gi) != CUPTI_SUCCESS)
        return NULL;
    return gi.rangeName;
}

/* Push a user range named `name` on the started object (CUPTI without the call: not supported). */
static CUptiResult
range_push(const char *name)
{
    if (!gh.cuptiRangeProfilerPushRange)
        return CUPTI_ERROR_NOT_SUPPORTED;
    CUpti_RangeProfiler_PushRange_Params pp = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    pp.pRangeProfilerObject = R.prof_obj;
    pp.pRangeName = name;
    return gh.cuptiRangeProfilerPushRange(&pp);
}

/* Pop the user range range_push() pushed. */
static CUptiResult
range_pop(void)
{
    if (!gh.cuptiRangeProfilerPopRange)
        return CUPTI_ERROR_NOT_SUPPORTED;
    CUpti_RangeProfiler_PopRange_Params pp = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    pp.pRangeProfilerObject = R.prof_obj;
    return gh.cuptiRangeProfilerPopRange(&pp);
}

/*
 * Stop (prof_lock held) a session under user replay (`user`) or kernel
 * replay: NULL when a decode may follow, else why not (in `failed`).
 */
static const char *
prof_stop(int user, int *all_passes, char *failed, size_t nfailed)
{
    CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = R.prof_obj;
    CUptiResult rc = gh.cuptiRangeProfilerStop(&sp);
    *all_passes = !user || sp.isAllPassSubmitted; /* 0 also after a failed Stop */
    if (rc != CUPTI_SUCCESS) {
        snprintf(failed, nfailed, "cuptiRangeProfilerStop: %s", cupti_err(rc));
        return failed;
    }
    return *all_passes ? NULL : "user replay: the configuration needs more than one pass";
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
    char failed[120];
    int all_passes = 1;
    const char *why = prof_stop(R.cur->user, &all_passes, failed, sizeof(failed));
    if (!launch_ok)
        return;
    size_t nranges = 0, ndropped = 0;
    if (!why)
        why = prof_decode(&nranges, &ndropped, failed, sizeof(failed));
    size_t n = 0;
    const char *const *names = metrics_host_names(R.cur->h, &n);
    int64_t t_decoded = mono_ns();
    if (why) {
        /* nothing was decoded */
    } else if (nranges != 1 || ndropped)
        why = "range count differs from launches";
    else if (n > REC_MAX_METRICS)
        why = "too many metrics";
    else if (metrics_host_evaluate(R.cur->h, R.counter_data, R.counter_size, 0, r.u.profile.values))
        why = metrics_host_error(R.cur->h);
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
    r.u.profile.passes = R.cur->passes;
    gh_copy(r.u.profile.set, sizeof(r.u.profile.set), R.cur->set);
    int64_t dt = mono_ns() - (int64_t)tls_prof_t0;
    r.u.profile.overhead_ns = dt;
    profile_counted(dt);
    if (R.cur->passes > atomic_load(&R.max_passes))
        atomic_store(&R.max_passes, R.cur->passes);
    /*
     * A first one-pass group orders the configuration's later groups by
     * what its values and its function's local memory point at
     * (onepass_order()); the group of the user's --metrics names, if any,
     * comes last.
     */
    if (!why && R.cur->groups == ENGINE_GROUP && R.plan_groups > 0) {
        unsigned char order[SAMPLING_GROUPS_MAX];
        size_t k = onepass_order(&R.plan, names, r.u.profile.values, (size_t)r.u.profile.n,
                                 tls_prof_local, order);
        for (int g = (int)k; g < R.plan_groups && k < SAMPLING_GROUPS_MAX; g++)
            order[k++] = (unsigned char)g;
        sampler_set_group_order(order, (int)k);
    }
    /* A core profile may ask for the extra groups on the configuration's next launch. */
    if (!why && !R.cur->groups && opt.sampling_ok && !opt.no_core && !opt.groups) {
        unsigned want = metrics_extras_wanted(names, r.u.profile.values, (size_t)r.u.profile.n);
        if (want)
            sampler_request_extras(want);
    }
    if (why)
        push_event("warning", "batch_dropped", "profiled range discarded: %s", why);
    /*
     * GPUHIER_DIAG_PRINT_METRICS=1 (diagnosis, docs/agreement.md class C):
     * the values on stderr, so a run whose report cannot hold them (with
     * GPUHIER_DIAG_NO_KERNEL_ACTIVITY no launch row is written) still
     * gives them.
     */
    if (opt.print_metrics && !why)
        for (int i = 0; i < r.u.profile.n; i++)
            gh_say("profile %u %s = %.17g", tls_prof_corr, names[i], r.u.profile.values[i]);
    if (!all_passes) {
        /* a user-replay session left mid-way: start the next one afresh */
        prof_disable(DIS_FAILURE);
    }
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
               "stop+decode %.1f evaluate %.1f flush %.1f total %.1f set %s",
               nranges, ndropped, why ? why : "-", tls_t_ensure / 1e6,
               (tls_t_setup - tls_t_ensure) / 1e6, (tls_t_start - tls_t_setup) / 1e6,
               (t_exit - tls_t_enter_done) / 1e6, (t_decoded - t_exit) / 1e6,
               (t_eval - t_decoded) / 1e6, (mono_ns() - t_eval) / 1e6,
               (mono_ns() - (int64_t)tls_prof_t0) / 1e6, R.cur->set);
    writer_push(&r);
}

/* ------------------------------------------------------------ kept session */

/*
 * The kept session (the default since 2026-12-04, with group runs: the
 * H200 gave the PyTorch benchmark 100 % hardware coverage where one
 * session per launch gave 30-45 %; GPUHIER_DIAG_SESSION=launch is the old
 * way; docs/collector.md "Kept session"): a one-pass
 * group under user replay is configured and started once, and each of its
 * profiled launches becomes one user range of that session, pushed in the
 * launch's ENTER and popped in its EXIT, named by the launch's
 * correlation id. User ranges, not auto range: under auto range every
 * kernel on the context while started is a range, so an unsampled launch
 * between two profiled ones would land in the session; under user range
 * only what runs between a push and its pop is counted. The context is
 * synchronized before the push (earlier unsampled kernels end outside the
 * range) and before the pop (the profiled kernel ends inside it), and
 * prof_lock is held from push to pop, as for an auto range, so no other
 * launch is submitted inside it. Kernel replay needs auto range (CUPTI
 * refuses user range with it), so only one-pass groups under user replay
 * are kept; the core, extras and --replay kernel go the per-launch way.
 *
 * The session is stopped and decoded (kept_drain()) when KEPT_RANGES
 * ranges are in it, when another group or a launch that is not kept is
 * profiled, whenever the profiler is disabled (an unsampled launch after
 * the hold, a graph launch, a context going, busy counters, exit), and by
 * the flusher once the session's oldest range is KEPT_FLUSH_NS old.
 * Range i of the decoded image is K.r[i]'s launch; its name must be that
 * launch's correlation id and the image must hold exactly K.n ranges,
 * or the whole batch is discarded.
 */
#define KEPT_RANGES 64
/*
 * A session is drained once it holds KEPT_BATCH ranges, half of what its
 * config and image are sized for. On the H200 (2026-12-04 16:56 UTC,
 * docs/cost-vs-ncu.md) a full batch of 64 ranges of group 2, the first
 * after a group switch, was discarded (CUPTI_ERROR_UNKNOWN from the drain)
 * while full batches of group 1 decoded: until the cause is known, a
 * smaller batch loses less, and the event names the call and the group.
 */
#define KEPT_BATCH 32
#define KEPT_FLUSH_NS (500 * 1000000LL)

static struct {
    int open;             /* Started with ph's user-range config (prof_lock) */
    struct prof_host *ph; /* the group of the session */
    size_t n;             /* ranges pushed and popped so far */
    int64_t first_ns;     /* when the first range of the batch was popped */
    struct kept_range {
        uint32_t corr;   /* the launch's correlation id: its range's name */
        uint32_t blocks; /* the launch's grid, for the CTA tie */
        int failed;      /* the launch API failed: its range is skipped */
        int64_t overhead_ns;
    } r[KEPT_RANGES];
} K;

static __thread int tls_prof_kept; /* the current profiled launch is a range of the kept session */

/* A host the kept session may take: a group of the plan, or the --metric-set none list. */
static int
kept_kind(unsigned groups)
{
    return (groups & ENGINE_GROUP) || (groups == 0 && opt.no_core);
}

/* Whether `ph`'s profiles can be ranges of a kept session. */
static int
kept_eligible(const struct prof_host *ph)
{
    return opt.session_kept && ph && ph->user && ph->passes == 1 && kept_kind(ph->groups) &&
           !opt.cache_all && gh.cuptiRangeProfilerPushRange && gh.cuptiRangeProfilerPopRange;
}

/* The name of a kept range: the launch's correlation id in decimal. */
static void
kept_range_name(uint32_t corr, char *buf, size_t n)
{
    snprintf(buf, n, "%u", corr);
}

/*
 * A drained session for the writer (collector_int.h): the group, why the
 * whole batch is discarded (static text) or NULL, the launches in range
 * order, and a copy of the decoded counter-data image.
 */
struct kept_image {
    struct prof_image pub; /* first: the writer's view */
    struct prof_host *ph;
    const char *why;
    char why_text[160]; /* why, when it names a failed call (why points here) */
    int64_t share_ns;   /* the drain's time, split over the ranges */
    size_t n, size;
    uint8_t *data;
    struct kept_range r[];
};

static void
kept_image_free(struct prof_image *img)
{
    free(img);
}

/*
 * The writer thread: range i of a drained session into `out`. The group's
 * host object is evaluated here only (kept_eligible() is fixed for the
 * process, so a kept group never goes through prof_finish()). 0: skip.
 */
static int
kept_image_evaluate(struct prof_image *pub, size_t i, struct rec_profile *out)
{
    struct kept_image *img = (struct kept_image *)pub;
    if (!img || i >= img->n || img->r[i].failed)
        return 0; /* a failed launch: nothing to attribute */
    const struct prof_host *ph = img->ph;
    size_t n = 0;
    const char *const *names = metrics_host_names(ph->h, &n);
    memset(out, 0, sizeof(*out));
    out->corr = img->r[i].corr;
    const char *bad = img->why;
    if (!bad && n > REC_MAX_METRICS)
        bad = "too many metrics";
    else if (!bad && metrics_host_evaluate(ph->h, img->data, img->size, i, out->values))
        bad = metrics_host_error(ph->h);
    /* A second tie: CTAs counted by the hardware must equal the launch's grid. */
    for (size_t j = 0; !bad && j < n; j++)
        if (!strcmp(names[j], "sm__ctas_launched.sum") && out->values[j] >= 0 &&
            (uint64_t)(out->values[j] + 0.5) != img->r[i].blocks)
            bad = "CTA count differs from the launch's grid";
    out->ok = bad == NULL;
    out->n = (int)(n > REC_MAX_METRICS ? REC_MAX_METRICS : n);
    out->names = names;
    out->passes = ph->passes;
    gh_copy(out->set, sizeof(out->set), ph->set);
    out->overhead_ns = img->r[i].overhead_ns + img->share_ns;
    out->span = 1;
    /* one event for a batch discarded whole, one per range discarded alone */
    if (bad && (bad != img->why || i == 0))
        push_event("warning", "batch_dropped", "profiled range discarded: %s", bad);
    if (opt.print_metrics && !bad)
        for (int j = 0; j < out->n; j++)
            gh_say("profile %u %s = %.17g", out->corr, names[j], out->values[j]);
    return 1;
}

/*
 * Stops the kept session and decodes it; the image goes to the writer,
 * which evaluates each range into one REC_PROFILE of its launch
 * (kept_image_evaluate()). prof_lock held, the object still enabled.
 */
static void
kept_drain(void)
{
    if (!K.open)
        return;
    K.open = 0;
    int64_t t0 = mono_ns();
    /* the session's context, whichever thread drains (the flusher, exit, another context's launch) */
    CUcontext popped = NULL;
    int pushed =
        gh.cuCtxPushCurrent_v2 && R.prof_ctx && gh.cuCtxPushCurrent_v2(R.prof_ctx) == CUDA_SUCCESS;
    char failed[160] = "";
    size_t nranges = 0, ndropped = 0;
    int all_passes;
    const char *why = prof_stop(1, &all_passes, failed, sizeof(failed)); /* kept: user replay */
    if (!why && K.n && prof_decode(&nranges, &ndropped, failed, sizeof(failed)))
        why = failed;
    else if (!why && (nranges != K.n || ndropped))
        why = "range count differs from launches";
    if (why == failed) {
        /* the call, its error and the batch: which of them fails is not yet known (KEPT_BATCH) */
        size_t l = strlen(failed);
        snprintf(failed + l, sizeof(failed) - l, " (%s, %zu ranges)", K.ph->set, K.n);
    }
    /* each range must carry its launch's name: the list and the image are in the same order */
    for (size_t i = 0; !why && i < K.n; i++) {
        char want[16];
        kept_range_name(K.r[i].corr, want, sizeof(want));
        const char *got = fault("kept_range_info") != CUPTI_SUCCESS /* docs/fault-injection.md */
                              ? NULL
                              : range_name(i);
        if (!got || strcmp(got, want))
            why = "range names differ from launches";
    }
    int64_t share =
        K.n ? (mono_ns() - t0) / (int64_t)K.n : 0; /* the drain, split over its ranges */
    size_t size = why ? 0 : R.counter_size;
    struct kept_image *img = calloc(1, sizeof(*img) + K.n * sizeof(img->r[0]) + size);
    if (img) {
        img->pub = (struct prof_image){K.n, kept_image_evaluate, kept_image_free};
        img->ph = K.ph;
        img->why = why;
        if (why == failed) {
            gh_copy(img->why_text, sizeof(img->why_text), failed);
            img->why = img->why_text;
        }
        img->n = K.n;
        img->share_ns = share;
        memcpy(img->r, K.r, K.n * sizeof(K.r[0]));
        img->data = (uint8_t *)(img->r + K.n);
        img->size = size;
        memcpy(img->data, R.counter_data, size);
        R.profiling_ns += share * (int64_t)K.n;
        struct rec r = {.type = REC_PROFILE_IMAGE};
        r.u.image = &img->pub;
        if (writer_push(&r))
            kept_image_free(&img->pub);
    }
    if (gh_debug)
        gh_say("kept session drained: ranges %zu of %zu dropped %zu why %s; ms: stop+decode %.1f "
               "set %s",
               nranges, K.n, ndropped, why ? why : "-", (mono_ns() - t0) / 1e6, K.ph->set);
    if (pushed && gh.cuCtxPopCurrent_v2)
        gh.cuCtxPopCurrent_v2(&popped);
    K.n = 0;
    R.started = 0;  /* the next session re-initializes the image, sets the config, starts */
    flush_forced(); /* DecodeData synchronized the context (prof_finish()) */
}

/*
 * ENTER of a profiled launch of a kept group (prof_lock held): opens the
 * session if needed (image, SetConfig with user ranges, Start), then
 * pushes the launch's range. 0, -EBUSY or -1.
 */
static int
kept_begin(CUcontext ctx, struct prof_host *ph, uint32_t corr, int64_t t0)
{
    int ret;
    if (K.open && K.ph != ph)
        kept_drain(); /* the group changes */
    if (!K.open) {
        if (R.configured && R.configured != ph && !opt.switch_keep) {
            prof_disable(DIS_SWITCH); /* another image: re-enable, as prof_start() does */
            if ((ret = prof_ensure(ctx)))
                return ret;
        }
        R.cur = ph;
        ret =
            prof_counter_data(ph, KEPT_RANGES) ? -1 : prof_configure(CUPTI_UserRange, KEPT_RANGES);
        if (ret) {
            prof_disable(DIS_FAILURE);
            return ret;
        }
        R.configured = ph;
        tls_t_setup = mono_ns() - t0;
        if ((ret = prof_range_start()))
            return ret;
        K.open = 1;
        K.ph = ph;
        K.n = 0;
    } else {
        tls_t_setup = mono_ns() - t0;
    }
    tls_t_start = mono_ns() - t0;
    R.cur = ph;
    /* earlier unsampled kernels end before the range opens */
    if (gh.cuCtxSynchronize)
        gh.cuCtxSynchronize();
    char name[16];
    kept_range_name(corr, name, sizeof(name));
    CUptiResult rc = range_push(name);
    if (rc != CUPTI_SUCCESS) {
        kept_drain();
        prof_fail("cuptiRangeProfilerPushRange", rc);
        prof_disable(DIS_FAILURE);
        return -1;
    }
    tls_prof_kept = 1;
    tls_t_enter_done = mono_ns();
    return 0;
}

/* EXIT of a kept launch (prof_lock held): pop its range; drain a full batch. */
static void
kept_end(int launch_ok)
{
    tls_prof_kept = 0;
    int64_t t_exit = mono_ns();
    if (launch_ok && gh.cuCtxSynchronize)
        gh.cuCtxSynchronize(); /* the profiled kernel ends inside its range */
    CUptiResult rc = range_pop();
    int64_t dt = mono_ns() - (int64_t)tls_prof_t0;
    if (!K.n)
        K.first_ns = mono_ns();
    K.r[K.n++] = (struct kept_range){
        .corr = tls_prof_corr, .blocks = tls_prof_blocks, .failed = !launch_ok, .overhead_ns = dt};
    profile_counted(dt);
    if (K.ph->passes > atomic_load(&R.max_passes))
        atomic_store(&R.max_passes, K.ph->passes);
    if (gh_debug)
        gh_say("profiled: kept range %zu; ms: enable %.1f setup %.1f start %.1f launch %.1f "
               "pop %.1f total %.1f set %s",
               K.n, tls_t_ensure / 1e6, (tls_t_setup - tls_t_ensure) / 1e6,
               (tls_t_start - tls_t_setup) / 1e6, (t_exit - tls_t_enter_done) / 1e6,
               (mono_ns() - t_exit) / 1e6, dt / 1e6, K.ph->set);
    if (rc != CUPTI_SUCCESS) {
        kept_drain();
        prof_fail("cuptiRangeProfilerPopRange", rc);
        prof_disable(DIS_FAILURE);
        return;
    }
    if (K.n >= KEPT_BATCH)
        kept_drain();
}

/*
 * ENTER of a sampled launch (prof_lock held): a range of the kept session
 * when its group is kept (kept_eligible()), else one auto range as
 * before, after decoding any kept session. 0, -EBUSY or -1.
 */
static int
prof_begin(CUcontext ctx, unsigned groups, uint32_t corr)
{
    tls_prof_kept = 0;
    if (opt.session_kept && kept_kind(groups)) {
        int64_t t0 = mono_ns();
        int ret = prof_ensure(ctx);
        if (ret)
            return ret;
        tls_t_ensure = mono_ns() - t0;
        struct prof_host *ph = prof_host(groups);
        if (kept_eligible(ph))
            return kept_begin(ctx, ph, corr, t0);
    }
    kept_drain(); /* a launch that is not kept: the session's ranges first */
    return prof_start(ctx, groups);
}

/* The flusher (never waits for a launch): drain a session whose first range is old. */
static void
kept_drain_if_old(void)
{
    if (!opt.session_kept || pthread_mutex_trylock(&R.prof_lock))
        return;
    if (K.open && K.n && !atomic_load(&R.prof_busy) && mono_ns() - K.first_ns >= KEPT_FLUSH_NS &&
        R.prof_ctx && !callbacks_capturing())
        kept_drain(); /* it pushes the session's context */
    pthread_mutex_unlock(&R.prof_lock);
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
    pthread_mutex_lock(&R.prof_lock);
    int64_t t0 = mono_ns();
    int rc = prof_start(ctx, opt.groups ? ENGINE_GROUP : 0);
    if (rc == 0) {
        CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        sp.pRangeProfilerObject = R.prof_obj;
        gh.cuptiRangeProfilerStop(&sp);
    }
    if (opt.lazy_ns > 0 && rc == 0)
        atomic_store(&R.last_prof_ns, mono_ns()); /* stays enabled: the hold's end disables it */
    else
        prof_disable(DIS_PREWARM);
    gh_say("GPUHIER_DIAG_PREWARM: empty range before the first launch%s: %s, %.1f ms%s",
           opt.prewarm == PREWARM_BG ? " (the flusher's thread)" : "", rc == 0 ? "ok" : "failed",
           (mono_ns() - t0) / 1e6,
           opt.lazy_ns > 0 && rc == 0 ? ", profiler left enabled (profiler hold)" : "");
    pthread_mutex_unlock(&R.prof_lock);
}

/* ------------------------------------------------------------ the engine */

/*
 * At the program's first launch (engine_prepare(), on the launching
 * thread). With both engines the instrumentation engine serves that
 * launch, and the range profiler's first profile may come much later, on
 * any thread, even while the program exits; nvperf builds its host state
 * (and registers its exit-time destructors) in that first profile. On the
 * H200 (2026-12-03, bench/stress bg, 56 of 56 runs under both engines) a
 * thread still launching when main returned was inside that build
 * (cuptiProfilerHostConfigAddMetrics) when those destructors ran: it got
 * CUPTI_ERROR_UNKNOWN, then SIGSEGV in libnvperf_host. So the host
 * objects are built here, at the first launch, before the program can
 * register its own exit handlers after it, and finish() is registered
 * again after them (prof_plan()). Host calls only: nothing runs on the
 * device. Under the range profiler alone its first profile is this launch.
 */
static void
hosts_prepare(CUcontext ctx)
{
    if (opt.instrument != ENGINES_RANGEPROF && opt.instrument != ENGINES_INSTRUMENT &&
        !atomic_exchange(&R.hosts_prepared, 1)) {
        pthread_mutex_lock(&R.prof_lock);
        int64_t t0 = mono_ns();
        uint32_t dev = 0;
        if (!limited() && !prof_initialize() && gh.cuptiGetDeviceId(ctx, &dev) == CUPTI_SUCCESS)
            prof_chip_hosts(dev);
        R.prepare_ns = mono_ns() - t0;
        pthread_mutex_unlock(&R.prof_lock);
    }
}

static void
rangeprof_prepare(CUcontext ctx)
{
    /* (engine_prepare() is never called in trace mode) */
    atomic_store(&R.launched, 1);
    hosts_prepare(ctx);
    /* =bg: a prewarm the flusher did not do before the first launch is not done at all */
    if (opt.prewarm && !atomic_exchange(&R.prewarmed, 1) && opt.prewarm != PREWARM_BG)
        prof_prewarm(ctx);
}

/*
 * GPUHIER_DIAG_PREWARM=bg (diagnosis): the process's first range-profiler
 * enable, the most expensive (0.6-1.0 s on the H200 against about 0.26 s
 * for a later one with a new config image, docs/cost-vs-ncu.md), done on
 * the flusher thread between the context's creation and the program's
 * first launch (a PyTorch program copies its data and builds its model for
 * seconds there: 5.0 s in the benchmark's trace of 2026-12-04), so that
 * what is one-time in it is paid off the program's threads. Whether that
 * part is one-time, and whether CUPTI takes it from a thread that launched
 * nothing, is what the device must say. The host objects are built first,
 * as rangeprof_prepare() would at the first launch. Once the program has
 * launched, nothing is done.
 */
static void
rangeprof_context_created(CUcontext ctx)
{
    CUcontext none = NULL;
    if (opt.prewarm == PREWARM_BG)
        atomic_compare_exchange_strong(&R.bg_ctx, &none, ctx);
}

static int
rangeprof_background_wanted(void)
{
    return opt.prewarm == PREWARM_BG && atomic_load(&R.bg_ctx) && !atomic_load(&R.prewarmed) &&
           !atomic_load(&R.launched);
}

static void
rangeprof_background(void)
{
    CUcontext ctx = atomic_load(&R.bg_ctx), popped = NULL;
    if (atomic_load(&R.launched) || atomic_exchange(&R.prewarmed, 1))
        return;
    int pushed = gh.cuCtxPushCurrent_v2 && gh.cuCtxPushCurrent_v2(ctx) == CUDA_SUCCESS;
    hosts_prepare(ctx);
    prof_prewarm(ctx);
    if (pushed && gh.cuCtxPopCurrent_v2)
        gh.cuCtxPopCurrent_v2(&popped);
}

static int
rangeprof_deferring(void)
{
    return backing_off();
}

/*
 * A launch or graph launch this engine serves holds prof_lock from its
 * ENTER to its EXIT, with prof_busy set for rangeprof_launch_other().
 */
static void
serve_hold(void)
{
    pthread_mutex_lock(&R.prof_lock);
    atomic_store(&R.prof_busy, 1);
    tls_prof_t0 = (uint64_t)mono_ns();
}

/* The end of serve_hold()'s window; `profiled`: a profile ended now (the profiler hold's clock). */
static void
serve_unhold(int profiled)
{
    if (profiled)
        atomic_store(&R.last_prof_ns, mono_ns());
    atomic_store(&R.prof_busy, 0);
    pthread_mutex_unlock(&R.prof_lock);
}

static int
rangeprof_available(void)
{
    return !limited();
}

static int
rangeprof_launch_begin(const struct engine_launch *l, unsigned extras)
{
    serve_hold();
    /*
     * The first one-pass group's values order the later groups, with the
     * local memory the function declares (prof_finish(); asked before the
     * range starts: no driver call inside it)
     */
    tls_prof_local = -1;
    int local = 0;
    if (extras == ENGINE_GROUP && l->func && gh.cuFuncGetAttribute &&
        gh.cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, l->func) == CUDA_SUCCESS)
        tls_prof_local = local;
    /* kernels traced with KIND_KERNEL while the launch is served (GPUHIER_DIAG_RP_KERNEL_SWAP=0: not) */
    if (opt.rp_kernel_swap)
        kernel_activity_pause();
    /* another thread may have met busy counters since this launch was decided */
    int rc = backing_off() ? -EBUSY : prof_begin(l->ctx, extras, l->corr);
    if (rc != 0 && opt.rp_kernel_swap)
        kernel_activity_resume();
    if (rc == 0) {
        if (atomic_load(&R.busy_attempts)) {
            R.busy_consecutive = 0;
            atomic_store(&R.busy_until_ns, 0);
            atomic_fetch_add(&R.busy_profiled, 1);
        }
        tls_prof_corr = l->corr;
        tls_prof_blocks = l->grid[0] * l->grid[1] * l->grid[2];
        return 0; /* prof_lock stays held until the launch's EXIT (rangeprof_launch_end) */
    }
    serve_unhold(0);
    return rc;
}

static void
rangeprof_launch_end(int launch_ok)
{
    if (tls_prof_kept)
        kept_end(launch_ok);
    else
        prof_finish(launch_ok);
    if (opt.rp_kernel_swap)
        kernel_activity_resume();
    serve_unhold(1);
}

/* ------------------------------------------------------------ graph launches */

/*
 * GPUHIER_DIAG_RP_GRAPHS=N (diagnosis; docs/collector.md "Graphs"). A
 * graph's kernel nodes have no launch callback, so no user range can be
 * pushed around one, and the range profiler is disabled before every
 * graph launch. Under auto range CUPTI makes a range of every kernel that
 * runs on the context while started; whether a graph launch's kernel
 * nodes are such kernels on the device is what this path asks (on the
 * H200 on 2026-12-05 the Stop failed with CUPTI_ERROR_UNKNOWN and nothing
 * to decode for every graph tried: kept for a later CUPTI; with
 * GPUHIER_DIAG_RP_GRAPHS_RANGE=user, one user range around the whole
 * launch, CUPTI returned the graph's counters, WaitNs included). The
 * second launch of at most N executable graphs is served with group 1
 * under auto range (room for GRAPH_RANGES ranges; the context synchronized
 * before the Start and before the Stop, so only the graph's kernels are
 * in it); each decoded range becomes an info event `graph_range` (its
 * name, duration, warp instructions, DRAM bytes), and the launch one
 * `graph_profile` (ranges, dropped, the time it took), to be compared with
 * the nodes' kernel records. Nothing is attributed to the nodes: no
 * profile rows. Concurrent kernel tracing stays on (no kind swap), so the
 * nodes keep their times, and its instructions are in the ranges
 * (docs/agreement.md).
 */
#define GRAPH_RANGES 64
#define GRAPH_EXECS 256

static struct {
    pthread_mutex_t lock;
    CUgraphExec exec[GRAPH_EXECS]; /* the executables seen, in order */
    int launches[GRAPH_EXECS];     /* their launches so far */
    size_t n;
    long chosen; /* graph launches given to this engine */
} G = {.lock = PTHREAD_MUTEX_INITIALIZER};

int
rangeprof_graph_wanted(CUgraphExec exec)
{
    if (opt.rp_graphs <= 0 || !exec || limited())
        return 0;
    int want = 0;
    pthread_mutex_lock(&G.lock);
    size_t i = 0;
    while (i < G.n && G.exec[i] != exec)
        i++;
    if (i == G.n && G.n < GRAPH_EXECS) {
        G.exec[i] = exec;
        G.launches[G.n++] = 0;
    }
    if (i < G.n && ++G.launches[i] == 2 && G.chosen < opt.rp_graphs) {
        G.chosen++;
        want = 1;
    }
    pthread_mutex_unlock(&G.lock);
    return want;
}

/* One graph_range event per decoded range of the graph launch `corr` (prof_lock held). */
static const char *
graph_ranges_say(uint32_t corr, size_t nranges)
{
    size_t n = 0;
    const char *const *names = metrics_host_names(R.cur->h, &n);
    if (n > REC_MAX_METRICS)
        return "too many metrics";
    double v[REC_MAX_METRICS];
    for (size_t i = 0; i < nranges; i++) {
        if (metrics_host_evaluate(R.cur->h, R.counter_data, R.counter_size, i, v))
            return metrics_host_error(R.cur->h);
        const char *name = range_name(i);
        if (!name)
            name = "?";
        /* what tells the range's kernel apart: its duration, instructions and DRAM bytes */
        static const char *const shown[] = {"gpu__time_duration.sum", "smsp__inst_executed.sum",
                                            "dram__bytes_read.sum", "dram__bytes_write.sum"};
        char vals[240] = "";
        size_t len = 0;
        for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
            for (size_t j = 0; j < n && len < sizeof(vals); j++)
                if (!strcmp(names[j], shown[k]))
                    len += (size_t)snprintf(vals + len, sizeof(vals) - len, "%s%s=%.0f",
                                            len ? ", " : "", names[j], v[j]);
        push_event("info", "graph_range", "graph launch %u: range %zu of %zu (\"%s\"): %s", corr,
                   i + 1, nranges, name, vals);
    }
    return NULL;
}

/* ENTER of a graph launch rangeprof_graph_wanted() chose: group 1 under auto range, started. */
static int
rangeprof_graph_begin(const struct engine_graph *g)
{
    serve_hold();
    int rc = -EBUSY;
    if (!backing_off()) {
        kept_drain(); /* a kept session's ranges first */
        if (gh.cuCtxSynchronize)
            gh.cuCtxSynchronize(); /* earlier kernels end outside the ranges */
        rc = opt.rp_graph_user
                 ? prof_start_ranges(g->ctx, ENGINE_GROUP, CUPTI_UserRange, 1)
                 : prof_start_ranges(g->ctx, ENGINE_GROUP, CUPTI_AutoRange, GRAPH_RANGES);
    }
    if (rc == 0 && opt.rp_graph_user) {
        CUptiResult prc = range_push("graph");
        if (prc != CUPTI_SUCCESS) {
            /* a diagnosis: said, and the launch goes on unprofiled (stopped before the disable) */
            push_event("warning", "graph_profile",
                       "graph launch %u: cuptiRangeProfilerPushRange: %s", g->corr, cupti_err(prc));
            char failed[8];
            int all_passes;
            prof_stop(R.cur->user, &all_passes, failed, sizeof(failed));
            prof_disable(DIS_FAILURE);
            rc = -1;
        }
    }
    if (rc == 0) {
        tls_prof_corr = g->corr;
        /* CUPTI's WaitNs under the launch's id is not a node: the writer leaves it out */
        struct rec r = {.type = REC_GRAPH};
        r.u.graph.corr = g->corr;
        r.u.graph.ranged = 1;
        writer_push(&r);
        return 0; /* prof_lock stays held until the graph launch's EXIT */
    }
    serve_unhold(0);
    return rc;
}

/* EXIT of the graph launch rangeprof_graph_begin() started: stop, decode, say each range. */
static void
rangeprof_graph_end(int launch_ok)
{
    if (launch_ok && gh.cuCtxSynchronize)
        gh.cuCtxSynchronize(); /* every kernel node ends inside its range */
    char failed[120];
    int all_passes = 1;
    size_t nranges = 0, ndropped = 0;
    CUptiResult prc = opt.rp_graph_user ? range_pop() : CUPTI_SUCCESS;
    const char *why = prof_stop(R.cur->user, &all_passes, failed, sizeof(failed));
    if (prc != CUPTI_SUCCESS) {
        snprintf(failed, sizeof(failed), "cuptiRangeProfilerPopRange: %s", cupti_err(prc));
        why = failed;
    }
    if (!launch_ok)
        why = "the graph launch failed";
    if (!why)
        why = prof_decode(&nranges, &ndropped, failed, sizeof(failed));
    if (!why)
        why = graph_ranges_say(tls_prof_corr, nranges);
    int64_t dt = mono_ns() - (int64_t)tls_prof_t0;
    profile_counted(dt);
    push_event("info", "graph_profile",
               "graph launch %u under %s range (%s): %zu ranges, %zu dropped, %.1f ms%s%s",
               tls_prof_corr, opt.rp_graph_user ? "one user" : "auto", R.cur->set, nranges,
               ndropped, dt / 1e6, why ? ": " : "", why ? why : "");
    if (!all_passes)
        prof_disable(DIS_FAILURE); /* a user-replay session left mid-way */
    flush_forced();
    serve_unhold(1);
}

static void
rangeprof_launch_other(int capturing)
{
    if (atomic_load(&R.prof_enabled) && !capturing && !opt.keep_enabled && !lazy_keeps_enabled()) {
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
        pthread_mutex_lock(&R.prof_lock);
        prof_disable(DIS_HOLD);
        pthread_mutex_unlock(&R.prof_lock);
    } else if (atomic_load(&R.prof_busy) && !capturing) {
        /* Another thread is profiling: wait so our kernel does not land in its range. */
        pthread_mutex_lock(&R.prof_lock);
        pthread_mutex_unlock(&R.prof_lock);
    }
}

static void
rangeprof_launch_deferred(void)
{
    atomic_fetch_add_explicit(&R.busy_deferred, 1, memory_order_relaxed);
}

static void
disable_locked(enum prof_disable_why why)
{
    if (atomic_load(&R.prof_enabled)) {
        pthread_mutex_lock(&R.prof_lock);
        prof_disable(why);
        pthread_mutex_unlock(&R.prof_lock);
    }
}

static void
rangeprof_graph_launch(void)
{
    disable_locked(DIS_GRAPH);
}

static void
rangeprof_quiesce(void)
{
    disable_locked(DIS_QUIESCE);
}

static void
rangeprof_context_destroying(CUcontext ctx)
{
    pthread_mutex_lock(&R.prof_lock);
    if (R.prof_ctx == ctx)
        prof_disable(DIS_CONTEXT);
    cacheflush_forget(ctx);
    pthread_mutex_unlock(&R.prof_lock);
}

static void
rangeprof_flush(void)
{
    kept_drain_if_old();
    lazy_disable_if_idle();
}

/* ------------------------------------------------------------ exit */

static void
rangeprof_exit_stop(void)
{
    /* Another thread may be inside a profiled launch: wait a little, never forever. */
    int locked = 0;
    for (int i = 0; i < 2000 && !(locked = pthread_mutex_trylock(&R.prof_lock) == 0); i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    if (locked) {
        if (R.prof_obj)
            prof_disable_pushed(DIS_EXIT);
        pthread_mutex_unlock(&R.prof_lock);
    }
}

static void
rangeprof_exit_notes(void)
{
    long busy = atomic_load(&R.busy_attempts);
    if (busy) {
        /* run has no column for these: the counts close the busy note of profiling_limited */
        char msg[sizeof(((struct rec *)0)->u.limited)];
        snprintf(msg, sizeof(msg),
                 "hardware counters busy: %ld attempts refused, %ld sampled launches deferred, "
                 "%ld launches profiled after the first refusal",
                 busy, atomic_load(&R.busy_deferred), atomic_load(&R.busy_profiled));
        gh_say("%s", msg);
        push_limited(msg);
    }
    if (R.flushes) {
        char v[64];
        snprintf(v, sizeof(v), "%ld flushes, %.1f ms", R.flushes, R.flush_ns / 1e6);
        push_meta("cache_flushes", v);
    }
    if (atomic_load(&R.profiles)) {
        /* how often the profiles paid a new enable (docs/collector.md "Profiler hold") */
        char v[160];
        snprintf(v, sizeof(v), "%lld", (long long)(opt.lazy_ns / 1000000));
        push_meta("profiler_hold_ms", v);
        snprintf(v, sizeof(v), "%ld", atomic_load(&R.enables));
        push_meta("profiler_enables", v);
        /* why each enable was needed again: "hold=3 quiesce=10 switch=2" (the causes seen) */
        size_t at = 0;
        v[0] = 0;
        for (int i = 0; i < DIS_NWHY; i++) {
            long n = atomic_load(&R.disables[i]);
            if (n && at < sizeof(v))
                at += (size_t)snprintf(v + at, sizeof(v) - at, "%s%s=%ld", at ? " " : "",
                                       dis_words[i], n);
        }
        if (at)
            push_meta("profiler_disables", v);
        /* what the range profiler cost before its first profile's kernel ran */
        snprintf(v, sizeof(v),
                 "plan %.1f ms at the first launch; first profile %.1f ms (enable %.1f, set-up "
                 "%.1f, start %.1f)",
                 R.prepare_ns / 1e6, atomic_load(&R.first_ns) / 1e6, R.first_phase_ns[0] / 1e6,
                 R.first_phase_ns[1] / 1e6, R.first_phase_ns[2] / 1e6);
        push_meta("profiler_setup", v);
    }
}

static void
rangeprof_stats(struct engine_stats *s)
{
    s->profiling_ns += atomic_load(&R.profiling_ns);
    s->profiles += atomic_load(&R.profiles);
    s->first_ns += atomic_load(&R.first_ns);
    int passes = atomic_load(&R.max_passes);
    if (passes > s->max_passes)
        s->max_passes = passes;
}

const struct counter_engine engine_rangeprof = {
    .prepare = rangeprof_prepare,
    .deferring = rangeprof_deferring,
    .available = rangeprof_available,
    .launch_begin = rangeprof_launch_begin,
    .launch_end = rangeprof_launch_end,
    .launch_other = rangeprof_launch_other,
    .launch_deferred = rangeprof_launch_deferred,
    .graph_launch = rangeprof_graph_launch,
    .graph_begin = rangeprof_graph_begin,
    .graph_end = rangeprof_graph_end,
    .quiesce = rangeprof_quiesce,
    .context_destroying = rangeprof_context_destroying,
    .flush = rangeprof_flush,
    .context_created = rangeprof_context_created,
    .background_wanted = rangeprof_background_wanted,
    .background = rangeprof_background,
    .exit_stop = rangeprof_exit_stop,
    .exit_notes = rangeprof_exit_notes,
    .stats = rangeprof_stats,
};
