/* SPDX-License-Identifier: MIT */
/*
 * activity: CUPTI activity tracing and the flusher thread.
 *
 * Kernel, memcpy, memset and memory (MEMORY2) records arrive in buffers
 * from a preallocated pool (64 x 1 MB); a completed buffer goes to the
 * writer, which decodes its records where it writes them (writer.c
 * parse_buffer) and gives the buffer back. If the pool is empty CUPTI
 * drops records and counts them (run.activity_dropped).
 *
 * The flusher thread asks CUPTI for completed buffers every 500 ms, runs
 * each counter engine's periodic work, and is the thread that closes the
 * report on a fatal signal (die_commit()): it starts with the writer,
 * CUPTI or not, and blocks every signal.
 */
#include "collector/activity.h"
#include "collector/callbacks.h"
#include "collector/clock.h"
#include "collector/collector_int.h"
#include "collector/engine.h"
#include "collector/sampler.h"
#include "collector/exit.h"
#include "collector/notes.h"
#include "collector/options.h"
#include "collector/signals.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POOL_BUFFERS 64
#define POOL_BUFFER_BYTES (1u << 20)
#define POOL_WAIT_MS 500

static struct {
    /* Activity buffers. */
    uint8_t *pool[POOL_BUFFERS];
    int pool_free[POOL_BUFFERS];
    int npool_free;
    pthread_mutex_t pool_lock;
    pthread_cond_t pool_cond; /* a buffer came back (CLOCK_MONOTONIC) */
    atomic_long pool_waits;   /* requests that found the pool empty */
    int pool_starved;         /* a wait ran out with no buffer back: the next ones do not wait */
    atomic_int activity_on;   /* CUPTI activity is enabled: the flusher may flush */
    uint32_t flush_flag;      /* the periodic flush's flag (GPUHIER_FLUSH_FORCED: forced) */
    atomic_long buffers_seen; /* activity buffers CUPTI returned */

    pthread_t flusher;
    int flusher_running;
    atomic_int flusher_stop;
    sem_t flush_sem;
    atomic_int urgent, urgent_done; /* a fatal signal: die_commit() asked, done */
    atomic_int um_wanted;           /* a context exists: the flusher turns UM events on */
    atomic_int um_done;             /* the flusher has (the meta um_tracking says how) */

    /* The launch gate (kernel_kind_swap()). */
    atomic_long in_flight;  /* launch calls past their ENTER callback, before their EXIT */
    atomic_int gate_closed; /* a kind swap is under way: launches wait at their ENTER */
    pthread_mutex_t gate_lock;
    pthread_cond_t gate_open; /* the swap is done (CLOCK_MONOTONIC) */
    atomic_long gate_swaps;   /* swaps made with the gate closed */
    atomic_long gate_waits;   /* launches that waited at the gate */
    atomic_long gate_late;    /* swaps made with launches still in flight (the drain ran out) */
    atomic_long gate_gave_up; /* launches that went ahead while the gate stayed closed */
} A = {
    .pool_lock = PTHREAD_MUTEX_INITIALIZER,
    .gate_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* The longest a swap waits for launches in flight, and a launch for the gate to open. */
#define GATE_DRAIN_MS 100
#define GATE_WAIT_MS 1000

/* ------------------------------------------------------------ activity buffers */

/*
 * A buffer from the pool. When every buffer is out (each flush hands over
 * the buffer it had, however few records it held: a kernel-kind swap
 * flushes twice per served launch), the writer is woken and the request
 * waits for a buffer it gives back, at most POOL_WAIT_MS, before CUPTI is
 * left without one (and drops records, counting them). After a wait that
 * ran out, requests do not wait again until a buffer comes back, so a
 * writer that cannot keep up costs the program one wait, not one a request.
 */
static void CUPTIAPI
buf_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = NULL;
    *size = 0;
    *max_records = 0;
    pthread_mutex_lock(&A.pool_lock);
    if (A.npool_free == 0 && !A.pool_starved) {
        atomic_fetch_add(&A.pool_waits, 1);
        writer_wake();
        struct timespec until = deadline_ms(CLOCK_MONOTONIC, POOL_WAIT_MS);
        while (A.npool_free == 0 &&
               pthread_cond_timedwait(&A.pool_cond, &A.pool_lock, &until) != ETIMEDOUT)
            ;
        /* nothing came back in time: later requests do not wait until a buffer does */
        A.pool_starved = A.npool_free == 0;
    }
    if (A.npool_free > 0) {
        int i = A.pool_free[--A.npool_free];
        *buffer = A.pool[i];
        *size = POOL_BUFFER_BYTES;
    }
    pthread_mutex_unlock(&A.pool_lock);
}

static void
buf_release(uint8_t *buf)
{
    pthread_mutex_lock(&A.pool_lock);
    for (int i = 0; i < POOL_BUFFERS; i++)
        if (A.pool[i] == buf) {
            A.pool_free[A.npool_free++] = i;
            A.pool_starved = 0;
            pthread_cond_signal(&A.pool_cond);
            break;
        }
    pthread_mutex_unlock(&A.pool_lock);
}

static void CUPTIAPI
buf_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    size_t dropped = 0;
    if (gh.cuptiActivityGetNumDroppedRecords &&
        gh.cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
        writer_add_activity_dropped(dropped);
    atomic_fetch_add(&A.buffers_seen, 1);
    if (valid)
        writer_push_buffer(buffer, valid, buf_release);
    else
        buf_release(buffer);
}

static void um_configure(void);

static void *
flusher_main(void *arg)
{
    (void)arg;
    long last_launches = 0, last_buffers = 0;
    int stalled = 0;
    while (!atomic_load(&A.flusher_stop)) {
        struct timespec ts = deadline_ms(CLOCK_REALTIME, 500);
        while (sem_timedwait(&A.flush_sem, &ts) == -1 && errno == EINTR)
            ;
        if (atomic_load(&A.flusher_stop))
            break;
        /*
         * A default flush returns only buffers whose records are all
         * complete. If launches keep coming but no buffer arrived for 2 s,
         * some record is stuck incomplete: force the flush (its times are lost).
         */
        long l = callbacks_launches(), b = atomic_load(&A.buffers_seen);
        uint32_t flag = A.flush_flag;
        if (b != last_buffers || l == last_launches)
            stalled = 0, last_buffers = b;
        else if (++stalled >= 4)
            flag = CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, stalled = 0;
        last_launches = l;
        if (atomic_load(&A.urgent)) {
            die_commit();
            atomic_store(&A.urgent_done, 1);
            break;
        }
        /* an engine call stuck inside CUPTI may hold its locks: stay out of CUPTI meanwhile */
        if (sampler_watchdog())
            continue;
        if (atomic_load(&A.um_wanted) && !atomic_load(&A.um_done)) {
            um_configure(); /* once: the flusher alone makes these calls */
            atomic_store(&A.um_done, 1);
        }
        sampler_flush();
        engine_flush();
        if (atomic_load(&A.activity_on))
            gh.cuptiActivityFlushAll(flag);
    }
    return NULL;
}

/*
 * Where CUPTI keeps the records the device writes (set before any context
 * exists: we run at cuInit). By default a 3.2 MB buffer in device memory.
 * With the instrumentation engine, pinned host memory: measured on the
 * H200 (2026-12-02, bench/inst_hang.py, docs/collector.md "A hang of the
 * instrumentation engine"), SASS metrics beside serialized kernel tracing
 * with device buffers left 5 of 12 PyTorch runs deadlocked between a
 * CUPTI thread and the launching thread, and 0 of 12 with host buffers.
 * GPUHIER_DIAG_ACTIVITY_BUFFER (diagnosis, docs/agreement.md class A2):
 * =host or =device picks the place, =BYTES sets the device buffer's size.
 */
static void
set_activity_buffer(void)
{
    const char *ab = env("GPUHIER_DIAG_ACTIVITY_BUFFER");
    int host = opt.instrument != ENGINES_RANGEPROF && !opt.trace_only;
    if (ab && (!strcmp(ab, "host") || !strcmp(ab, "device")))
        host = !strcmp(ab, "host");
    if (!gh.cuptiActivitySetAttribute)
        return;
    CUptiResult rc = CUPTI_SUCCESS;
    if (ab && strcmp(ab, "host") && strcmp(ab, "device")) {
        size_t bytes = (size_t)strtoull(ab, NULL, 10), sz = sizeof(bytes);
        rc = gh.cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &bytes);
        gh_say("GPUHIER_DIAG_ACTIVITY_BUFFER=%s: %s (diagnosis only)", ab,
               rc == CUPTI_SUCCESS ? "set" : cupti_err(rc));
    }
    if (host) {
        uint8_t on = 1;
        size_t sz = sizeof(on);
        rc = gh.cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &sz,
                                          &on);
        if (rc != CUPTI_SUCCESS)
            push_event("warning", "activity_buffer_host_failed",
                       "CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED: %s; activity records "
                       "stay in device memory (the instrumentation engine can then hang)",
                       cupti_err(rc));
    }
    push_meta("activity_buffer", host && rc == CUPTI_SUCCESS ? "host-pinned" : "device");
}

/* The kind init_activity() enabled for kernels; 0 when none. */
static _Atomic int kernel_kind;

void
init_activity(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&A.pool_cond, &ca);
    pthread_cond_init(&A.gate_open, &ca);
    pthread_condattr_destroy(&ca);
    for (int i = 0; i < POOL_BUFFERS; i++) {
        A.pool[i] = aligned_alloc(8, POOL_BUFFER_BYTES);
        if (A.pool[i])
            A.pool_free[A.npool_free++] = i;
    }
    gh.cuptiActivityRegisterCallbacks(buf_request, buf_complete);
    set_activity_buffer();
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
        CUpti_ActivityKind kind = kinds[i];
        /*
         * With the instrumentation engine, concurrent-kernel tracing and SASS
         * metrics exclude each other: measured on the H200 (2026-12-01,
         * bench/sassprobe SASSPROBE_ACTIVITY, docs/sassprobe.md "Beside
         * kernel activity"), once CONCURRENT_KERNEL is on every SASS metric
         * value stays 0, and CUPTI refuses to turn it on while SASS metrics
         * are enabled (CUPTI_ERROR_NOT_COMPATIBLE); with KIND_KERNEL, which
         * serializes kernels, the counts are the design's. So concurrent
         * kernels stay on and kernel_activity_pause() swaps them for
         * KIND_KERNEL only while a launch is served; measured on the H200
         * (2026-12-04, docs/collector.md "Kernel tracing beside the
         * instrumentation engine"): the same counts as under KIND_KERNEL for
         * the whole run, and a graph launch's kernel nodes keep their times
         * (under KIND_KERNEL all but its first came untimed).
         * GPUHIER_DIAG_SERIALIZED_KERNELS=1 keeps KIND_KERNEL for the whole
         * run. A range-profiled launch is swapped too (opt.rp_kernel_swap):
         * concurrent-kernel tracing adds instructions to the kernels it
         * traces, and the range profiler counted them (2026-12-04,
         * docs/agreement.md).
         */
        if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && !opt.trace_only) {
            int inst = opt.instrument != ENGINES_RANGEPROF;
            if (inst && !opt.concurrent_toggle) {
                kind = CUPTI_ACTIVITY_KIND_KERNEL;
                const char *why =
                    "serialized: CUPTI_ACTIVITY_KIND_KERNEL, since the instrumentation engine "
                    "counts nothing beside concurrent-kernel tracing; kernels of different "
                    "streams did not overlap in this run";
                push_meta("kernel_activity", why);
                push_event("info", "kernels_serialized", "%s", why);
            } else if (opt.concurrent_toggle && (inst || opt.rp_kernel_swap)) {
                push_meta("kernel_activity",
                          opt.rp_kernel_swap
                              ? "concurrent, serialized (CUPTI_ACTIVITY_KIND_KERNEL) only while a "
                                "launch was served (instrumented or range-profiled)"
                              : "concurrent, serialized (CUPTI_ACTIVITY_KIND_KERNEL) only while an "
                                "instrumented launch ran");
            }
        }
        CUptiResult rc = gh.cuptiActivityEnable(kind);
        if (rc == CUPTI_SUCCESS && kinds[i] == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            atomic_store(&kernel_kind, (int)kind);
        if (rc != CUPTI_SUCCESS)
            push_event("warning", "activity_enable_failed", "cuptiActivityEnable(%d) failed: %s",
                       (int)kind, cupti_err(rc));
        if (kinds[i] == CUPTI_ACTIVITY_KIND_MEMORY2)
            push_meta("alloc_tracking",
                      rc == CUPTI_SUCCESS ? "on" : "off: cuptiActivityEnable(MEMORY2) failed");
    }
    /* CUPTI's worker completes records (timestamps) on its own schedule; make it wake often. */
    if (gh.cuptiActivityFlushPeriod && !env("GPUHIER_NO_FLUSH_PERIOD"))
        gh.cuptiActivityFlushPeriod(500);
    if (env("GPUHIER_FLUSH_FORCED"))
        A.flush_flag = CUPTI_ACTIVITY_FLAG_FLUSH_FORCED;
    atomic_store(&A.activity_on, 1);
}

/*
 * Unified-memory events (schema.sql um_event), in trace and profile mode:
 * page migrations between host and device, CPU page faults, thrashing and
 * throttling, from the driver's unified-memory tracking. GPU page faults
 * are left out: their records cost a faulting program most (Nsight
 * Systems leaves them off by default too), and a kernel's faults show as
 * the migrations they cause inside its time. CUPTI takes the configuration
 * only once the driver is initialized: the first context's creation asks
 * (activity_um_wanted()) and the flusher thread, woken at once, makes the
 * calls, as CUPTI's own sample makes them from a thread after cuInit and
 * not from inside a driver call. A platform without the driver's events
 * says so in meta 'um_tracking' and everything else goes on.
 * GPUHIER_UM_TRACKING=off leaves them off; =migrations asks for the
 * migrations alone (htod, dtoh), what the managed-migration rule reads.
 */
static void
um_configure(void)
{
    const char *want = env("GPUHIER_UM_TRACKING");
    if (want && !strcmp(want, "off")) {
        push_meta("um_tracking", "off: GPUHIER_UM_TRACKING=off");
        return;
    }
    int migrations_only = want && !strcmp(want, "migrations");
    if (!gh.cuptiActivityConfigureUnifiedMemoryCounter) {
        push_meta("um_tracking",
                  "off: this CUPTI has no cuptiActivityConfigureUnifiedMemoryCounter");
        return;
    }
    static const CUpti_ActivityUnifiedMemoryCounterKind kinds[] = {
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING};
    static const char *const words = "htod, dtoh, cpu_fault, thrashing, throttling";
    enum { NKINDS = sizeof(kinds) / sizeof(kinds[0]) };
    CUpti_ActivityUnifiedMemoryCounterConfig cfg[NKINDS];
    memset(cfg, 0, sizeof cfg);
    for (int i = 0; i < NKINDS; i++) {
        cfg[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES;
        cfg[i].kind = kinds[i];
        cfg[i].enable = 1;
    }
    /* the migrations alone when asked for, or when the platform refuses the others */
    int n = migrations_only ? 2 : NKINDS;
    CUptiResult rc = gh.cuptiActivityConfigureUnifiedMemoryCounter(cfg, (uint32_t)n);
    if (rc != CUPTI_SUCCESS && n == NKINDS &&
        gh.cuptiActivityConfigureUnifiedMemoryCounter(cfg, 2) == CUPTI_SUCCESS) {
        n = 2;
        rc = CUPTI_SUCCESS;
    }
    if (rc != CUPTI_SUCCESS) {
        char v[200];
        snprintf(v, sizeof v, "off: cuptiActivityConfigureUnifiedMemoryCounter failed: %s",
                 cupti_err(rc));
        push_meta("um_tracking", v);
        return;
    }
    rc = gh.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    char v[200];
    if (rc != CUPTI_SUCCESS)
        snprintf(v, sizeof v, "off: cuptiActivityEnable(UNIFIED_MEMORY_COUNTER) failed: %s",
                 cupti_err(rc));
    else
        snprintf(v, sizeof v, "on (%s)", n == NKINDS ? words : "htod, dtoh");
    push_meta("um_tracking", v);
}

/*
 * The first context's creation: the flusher configures the counters, and
 * this thread waits for it, at most UM_WAIT_MS, so that a short program's
 * kernels do not run (or the program end) before the events are on. If
 * CUPTI's configuration waits for the context's creation to end, the wait
 * runs out and the events come on a little later.
 */
enum { UM_WAIT_MS = 200 };

void
activity_um_wanted(void)
{
    if (atomic_exchange(&A.um_wanted, 1))
        return;
    if (!A.flusher_running) {
        push_meta("um_tracking", "off: the collector's flusher thread did not start");
        return;
    }
    sem_post(&A.flush_sem);
    wait_flag(&A.um_done, UM_WAIT_MS);
}

/*
 * The pauses not yet resumed, under swap_lock: one swap at a time, and a
 * pause and its resume counted, not flagged. Pauses and resumes come from
 * several threads: a served launch pauses and resumes on its own, an
 * instrumentation enable kept open for a chain pauses on its launch's
 * thread and is resumed by whichever thread shuts it. With a flag and
 * swaps that could overlap, a chain shut on another thread (its resume)
 * and a range-profiled launch's pause ran their swaps at once: one
 * reopened the launch gate while the other's Disable came after its own
 * Enable, so the served launch ran with no kernel kind on and its record
 * was lost (t108-tsan's threads case, 1 run in about 700 under load,
 * 2026-12-05; unit.activity_swap), or the shut turned the served launch
 * back to concurrent tracing. Now the first pause swaps, the last resume
 * swaps back, and the swaps never overlap.
 */
static pthread_mutex_t swap_lock = PTHREAD_MUTEX_INITIALIZER;
static int pauses; /* under swap_lock */

/* Does a pause swap CONCURRENT_KERNEL for KIND_KERNEL (the kind init_activity() enabled)? */
static int
swaps_kinds(int kind)
{
    return opt.concurrent_toggle && kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
}

/*
 * The launch gate. A kernel launched while neither kernel kind is on gets
 * no activity record, and the writer makes a launch row only from its
 * kernel record: on the H200 (2026-12-05, bench/threads_check.py, 8
 * threads launching) one launch in 2 of 60 runs fell between a swap's
 * Disable and Enable and was lost. So a swap closes the gate, waits for
 * the launch calls already past their ENTER callback to reach their EXIT,
 * swaps, and opens it; a launch that finds the gate closed waits at its
 * ENTER. Both waits are bounded (GATE_DRAIN_MS, GATE_WAIT_MS): a launch
 * call that blocks in the driver meanwhile costs the guarantee, counted
 * in meta kernel_kind_swaps, never a hang. The thread-local flag pairs an
 * EXIT with its own ENTER (a callback subscribed between the two).
 */
static _Thread_local int tls_in_flight;

void
activity_launch_begin(void)
{
    /* no kind swap with a kind to turn on can happen (kernel_activity_pause()): no count */
    if (opt.trace_only || !opt.concurrent_toggle)
        return;
    int64_t until = 0;
    for (;;) {
        /* seq_cst: either this launch sees the gate closed or the swap sees it in flight */
        atomic_fetch_add(&A.in_flight, 1);
        if (!atomic_load(&A.gate_closed))
            break;
        if (!until)
            until = mono_ns() + (int64_t)GATE_WAIT_MS * 1000000;
        else if (mono_ns() > until) {
            atomic_fetch_add(&A.gate_gave_up, 1);
            break; /* the swap is stuck: go ahead */
        }
        atomic_fetch_sub(&A.in_flight, 1);
        atomic_fetch_add(&A.gate_waits, 1);
        struct timespec ts = deadline_ms(CLOCK_MONOTONIC, GATE_WAIT_MS);
        pthread_mutex_lock(&A.gate_lock);
        while (atomic_load(&A.gate_closed) &&
               pthread_cond_timedwait(&A.gate_open, &A.gate_lock, &ts) != ETIMEDOUT)
            ;
        pthread_mutex_unlock(&A.gate_lock);
    }
    tls_in_flight = 1;
}

void
activity_launch_end(void)
{
    if (tls_in_flight) {
        tls_in_flight = 0;
        atomic_fetch_sub(&A.in_flight, 1);
    }
}

/* Closes the gate and waits (at most GATE_DRAIN_MS) for the launches in flight. */
static void
gate_close(void)
{
    atomic_store(&A.gate_closed, 1);
    atomic_fetch_add(&A.gate_swaps, 1);
    int64_t until = mono_ns() + (int64_t)GATE_DRAIN_MS * 1000000;
    while (atomic_load(&A.in_flight) > 0) {
        if (mono_ns() > until) {
            atomic_fetch_add(&A.gate_late, 1);
            return;
        }
        nanosleep(&(struct timespec){0, 20 * 1000}, NULL);
    }
}

static void
gate_open(void)
{
    pthread_mutex_lock(&A.gate_lock);
    atomic_store(&A.gate_closed, 0);
    pthread_cond_broadcast(&A.gate_open);
    pthread_mutex_unlock(&A.gate_lock);
}

/*
 * Flushes CUPTI's buffers (the records of the kind going off must be out
 * first), turns kernel kind `off` off and `on` on (when not 0), with the
 * launch gate closed when `on` is given; a refused enable is one
 * activity_enable_failed event saying `when`.
 */
static void
kernel_kind_swap(CUpti_ActivityKind off, CUpti_ActivityKind on, const char *when)
{
    if (gh.cuptiActivityFlushAll)
        gh.cuptiActivityFlushAll(0);
    if (on)
        gate_close();
    gh.cuptiActivityDisable(off);
    if (!on)
        return;
    CUptiResult rc = gh.cuptiActivityEnable(on);
    gate_open();
    if (rc != CUPTI_SUCCESS)
        push_event("warning", "activity_enable_failed", "cuptiActivityEnable(%d) %s failed: %s",
                   (int)on, when, cupti_err(rc));
}

void
kernel_activity_pause(void)
{
    int kind = atomic_load(&kernel_kind);
    if (!kind || !gh.cuptiActivityDisable)
        return;
    pthread_mutex_lock(&swap_lock);
    if (pauses++ == 0) {
        if (swaps_kinds(kind)) {
            kernel_kind_swap(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_KERNEL,
                             "for an instrumented launch");
        } else if (opt.sass_kernel_gate) {
            kernel_kind_swap((CUpti_ActivityKind)kind, (CUpti_ActivityKind)0, NULL);
        }
    }
    pthread_mutex_unlock(&swap_lock);
}

void
kernel_activity_resume(void)
{
    int kind = atomic_load(&kernel_kind);
    if (!kind || !gh.cuptiActivityDisable)
        return;
    pthread_mutex_lock(&swap_lock);
    if (pauses > 0 && --pauses == 0) {
        if (swaps_kinds(kind)) {
            kernel_kind_swap(CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                             "after an instrumented launch");
        } else if (opt.sass_kernel_gate) {
            gh.cuptiActivityEnable((CUpti_ActivityKind)kind);
        }
    }
    pthread_mutex_unlock(&swap_lock);
}

void
kernel_activity_forget(void)
{
    pthread_mutex_lock(&swap_lock);
    if (pauses > 0)
        pauses--;
    pthread_mutex_unlock(&swap_lock);
}

void
activity_exit_notes(void)
{
    long swaps = atomic_load(&A.gate_swaps);
    if (swaps > 0) {
        char v[200];
        snprintf(v, sizeof(v),
                 "%ld, each with the launch gate closed; %ld launches waited at it, %ld swaps "
                 "went ahead with launches in flight, %ld launches went ahead with the gate "
                 "closed",
                 swaps, atomic_load(&A.gate_waits), atomic_load(&A.gate_late),
                 atomic_load(&A.gate_gave_up));
        push_meta("kernel_kind_swaps", v);
    }
    long waits = atomic_load(&A.pool_waits);
    if (waits > 0) {
        char v[160];
        snprintf(v, sizeof(v),
                 "%ld requests found the %d activity buffers out and waited for the writer", waits,
                 POOL_BUFFERS);
        push_meta("activity_buffer_waits", v);
    }
}

void
flush_forced(void)
{
    if (gh.cuptiActivityFlushAll && atomic_load(&A.activity_on))
        gh.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

/* ------------------------------------------------------------ flusher */

/*
 * The flusher starts with the writer, CUPTI or not: besides flushing CUPTI's
 * buffers it is the thread that closes the report on a fatal signal.
 */
void
start_flusher(void)
{
    sem_init(&A.flush_sem, 0, 0);
    A.flusher_running = signals_thread_start(&A.flusher, flusher_main, NULL, 0) == 0;
}

/* Stops and joins the flusher: afterwards no thread of ours calls CUPTI. */
void
stop_flusher(void)
{
    if (!A.flusher_running)
        return;
    atomic_store(&A.flusher_stop, 1);
    sem_post(&A.flush_sem);
    pthread_join(A.flusher, NULL);
    A.flusher_running = 0;
}

int
flusher_running(void)
{
    return A.flusher_running;
}

int
flusher_self(void)
{
    return A.flusher_running && pthread_equal(pthread_self(), A.flusher);
}

void
flusher_urgent(int ms)
{
    atomic_store(&A.urgent_done, 0);
    atomic_store(&A.urgent, 1);
    sem_post(&A.flush_sem);
    wait_flag(&A.urgent_done, ms);
}
