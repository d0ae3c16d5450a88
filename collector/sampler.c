/* SPDX-License-Identifier: MIT */
/*
 * sampler: which launches the counter engines serve, in profile mode.
 *
 * At a launch's ENTER the sampling decision (sampling.h: the options'
 * filters and mode, --profile-budget, busy counters) says whether to
 * profile it and why not; a launch it chooses is given to one counter
 * engine (engine.h), which starts on it there and ends at its EXIT, and
 * every other engine is told the launch is not theirs. Which engine
 * (GPUHIER_INSTRUMENT, docs/collector.md "Counter engines"): the range
 * profiler (the default), the instrumentation engine alone (=1), or both
 * (=both): the instrumentation engine takes a configuration's first
 * chosen launch, and the choice is given back to the decision
 * (sampling_undo()) so that the configuration's next launch is chosen
 * again, for the range profiler; or one after the other (=phased, "the
 * instrumentation window" below). A launch whose start is refused as busy
 * is given back the same way. Under --profile-budget the writer hands
 * each traced kernel's GPU time to the decision's configurations
 * (sampler_gpu_time()).
 *
 * Both engines never serve at once in one process: on the H200 the range
 * profiler's Start deadlocked inside CUPTI after instrumented launches
 * (docs/collector.md), so with both a served launch holds serve_lock from
 * its ENTER to its EXIT, and every other engine is disabled first
 * (engine_quiesce()). The watchdog (sampler_watchdog(), from the flusher)
 * notices an engine call that never returns: it cannot end the call, but
 * it says so in the report at once and keeps the flusher and the exit
 * out of CUPTI.
 */
#include "collector/sampler.h"
#include "collector/callbacks.h"
#include "collector/collector_int.h"
#include "collector/engine.h"
#include "collector/notes.h"
#include "collector/options.h"
#include "collector/sampling.h"
#include "collector/signals.h"
#include "collector/stacks.h"
#include "schema/severity.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* How long a launch waits for another thread's served launch, with both engines. */
#define SERVE_WAIT_MS 2000
/* Engine calls the watchdog follows at once (one per thread inside an engine). */
#define WATCH_SLOTS 16

/* One engine call in flight, for the watchdog. */
struct watch {
    atomic_llong since_ns;                    /* CLOCK_MONOTONIC at its start; 0: slot free */
    _Atomic(const struct counter_engine *) e; /* the engine called */
    _Atomic(const char *) what;               /* which call (static text) */
    atomic_uint corr;                         /* the launch's correlation id */
};

/* What the watchdog found for one engine: said once, kept for the exit's meta. */
struct stuck {
    atomic_int said;
    int slot;         /* the watch slot of the stuck call */
    int64_t since_ns; /* its start: the slot still holds it while the call has not returned */
    char text[160];
};

static struct {
    struct sampling sampling; /* the decisions (sampling.h) */
    int64_t start_mono_ns;    /* when profiling was set up: the budget's elapsed time starts here */
    atomic_llong first_launch_ns; /* the first launch's decision (the settle's clock), 0 before */
    atomic_long budget_unmatched; /* traced kernels whose configuration sampling never saw */
    atomic_long inst_deferred;    /* launches instrumented past the allowance, by their price */
    pthread_mutex_t serve_lock;   /* with both engines: held by the served launch, ENTER to EXIT */
    atomic_int serving;           /* launches given to an engine and not yet at their EXIT
                                     (sampler_exit_wait()) */
    struct watch watch[WATCH_SLOTS];
    struct stuck stuck_rangeprof, stuck_sass;
} S = {
    .serve_lock = PTHREAD_MUTEX_INITIALIZER,
};

/*
 * The instrumentation window (GPUHIER_INSTRUMENT=phased; docs/collector.md
 * "The instrumentation window"). Measured on the H200 (2026-12-01): a
 * second cuptiSassMetricsSetConfig in a process fails with
 * CUPTI_ERROR_OUT_OF_MEMORY, and cuptiRangeProfilerStart deadlocks inside
 * CUPTI while a SASS metrics config is set; after one SetConfig and one
 * UnsetConfig the range profiler served launches. So the engines share a
 * process in two phases: while the window is open the instrumentation
 * engine serves each configuration's first chosen launch (one SetConfig
 * kept set) and the range profiler none (a chosen launch of a
 * configuration already instrumented is given back, 'instrumentation_
 * window'); at its close the instrumentation engine retires (one
 * UnsetConfig) and from then on the range profiler alone serves.
 *
 * The rule: the window closes at the ENTER of the first launch at which
 * the launches since the last new configuration (this one included)
 * number at least the launches up to and including that last new
 * configuration, and at least opt.phase_repeat (8;
 * GPUHIER_DIAG_PHASE_REPEAT): the program has repeated itself for as long
 * as it took to show its configurations (a training loop of one step per
 * configuration set closes it at the end of its second step; the floor
 * keeps a 2-launch start from closing after 2 launches). It also closes
 * when the instrumentation engine fails (then as 'both' after a failure).
 * "New" is a configuration the sampling decision has no slot for yet
 * (sampling_known()); with the table full (65,536 configurations) every
 * launch reads as new and the window stays open. Launches captured into a
 * graph (not run) are not counted. Lock-free: the counts
 * are atomics, and one thread wins the close (P.open's exchange).
 */
static struct {
    atomic_long launches;  /* launches that reached the sampling decision */
    atomic_long last_new;  /* the count at the last new configuration's first launch */
    atomic_int open;       /* the window is open (set in sampler_init() under =phased) */
    atomic_long closed_at; /* launches before the close (M), when it closed */
    atomic_int by_failure; /* it closed because the instrumentation engine failed */
    atomic_long late;      /* configurations first launched after the close (K) */
    atomic_int done;       /* the close has finished (the engine retired): the range profiler may
                              run. Between another thread's close and this, it may not: the
                              SASS config is still set */
} P;

static __thread struct sampling_launch tls_launch; /* the decided launch, for the extras request */
/* the engine serving this thread's launch, from its ENTER to its EXIT; NULL: none */
static __thread const struct counter_engine *tls_served;
static __thread int tls_serve_locked;                   /* this thread holds serve_lock */
static __thread const struct counter_engine *tls_graph; /* the engine serving this graph launch */
static __thread int tls_serving;      /* this thread counts in S.serving (serve_begin()) */
static __thread int tls_first;        /* the range profiler serves a first group (track_first) */
static __thread int64_t tls_inst_ns0; /* the instrumentation engine's time before this launch */
static __thread int tls_watch = -1;   /* this thread's watch slot, -1: none */

/* ------------------------------------------------------------ both engines */

/*
 * With both engines, serve_lock for a launch `e` serves, then every other
 * engine disabled: 0, or -1 when another thread's served launch kept it
 * SERVE_WAIT_MS (the launch is then not served: an engine may be stuck),
 * or held it at all when `wait` is 0.
 */
static int
serve_lock(const struct counter_engine *e, int wait)
{
    if (opt.instrument != ENGINES_BOTH)
        return 0;
    struct timespec until = deadline_ms(CLOCK_REALTIME, SERVE_WAIT_MS);
    if (wait ? pthread_mutex_timedlock(&S.serve_lock, &until)
             : pthread_mutex_trylock(&S.serve_lock))
        return -1;
    tls_serve_locked = 1;
    /*
     * GPUHIER_DIAG_RP_THROUGH_INST (diagnosis): the range profiler stays
     * enabled through an instrumented launch while its hold lasts. It is
     * never started there: serve_lock keeps every range-profiled launch
     * out until this one's EXIT. The hold is judged here, before the SASS
     * engine enables (launch_other(): disabled if the hold has passed),
     * not only after it. On the H200 (2026-12-03, docs/sampling.md) the
     * quiesce made 10 of the PyTorch benchmark's 33 profiles pay a new
     * enable, about 135 ms each. On 2026-12-04 one of two PyTorch runs
     * with this switch died by SIGSEGV: an enabled range profiler beside
     * a SASS-patched launch is not safe, and the default keeps the quiesce.
     */
    if (opt.rp_through_inst && e == &engine_sass && engine_rangeprof.launch_other)
        engine_rangeprof.launch_other(0);
    else
        engine_quiesce(e);
    return 0;
}

static void
serve_unlock(void)
{
    if (tls_serve_locked) {
        tls_serve_locked = 0;
        pthread_mutex_unlock(&S.serve_lock);
    }
}

/* ------------------------------------------------------------ at exit */

static void
serve_end(void)
{
    if (tls_serving) {
        tls_serving = 0;
        atomic_fetch_sub(&S.serving, 1);
    }
}

/*
 * A launch about to be given to an engine counts in S.serving from here
 * to its EXIT, so the exit can wait for it (sampler_exit_wait()): 0, or
 * -1 when the collector stopped collecting (finish() turns the callbacks
 * off, then waits for S.serving to drain). The count comes before the
 * check, and finish() turns the callbacks off before it reads the count,
 * so either this launch sees the collector off, or the exit sees it.
 */
static int
serve_begin(void)
{
    atomic_fetch_add(&S.serving, 1);
    tls_serving = 1;
    if (callbacks_active() || opt.diag_exit_no_wait)
        return 0;
    serve_end();
    return -1;
}

/*
 * Before a chosen launch is given to engine `e`: it counts for the exit
 * (serve_begin()), then, with both engines, takes serve_lock. 0, or -1
 * when the collector is closing the report, or -2 when another thread's
 * served launch kept serve_lock SERVE_WAIT_MS (with `wait` 0: held it);
 * nothing held on failure. serve_release() undoes both.
 */
static int
serve_acquire(const struct counter_engine *e, int wait)
{
    if (serve_begin())
        return -1;
    if (serve_lock(e, wait)) {
        serve_end();
        return -2;
    }
    return 0;
}

static void
serve_release(void)
{
    serve_unlock();
    serve_end();
}

/* The flusher's turn: an engine's background() held as a served launch, never waiting for one. */
static int
background_hold(const struct counter_engine *e)
{
    return serve_acquire(e, 0);
}

void
sampler_flush(void)
{
    engine_background(background_hold, serve_release);
}

int
sampler_thread_serving(void)
{
    return tls_serving && !opt.diag_exit_no_wait;
}

int
sampler_exit_wait(int ms)
{
    for (int i = 0; i < ms && atomic_load(&S.serving) > 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return atomic_load(&S.serving) == 0;
}

/* ------------------------------------------------------------ watchdog */

static void
watch_begin(const struct counter_engine *e, const char *what, uint32_t corr)
{
    int64_t now = mono_ns();
    for (int i = 0; i < WATCH_SLOTS; i++) {
        long long zero = 0;
        if (atomic_compare_exchange_strong(&S.watch[i].since_ns, &zero, (long long)now)) {
            atomic_store(&S.watch[i].e, e);
            atomic_store(&S.watch[i].what, what);
            atomic_store(&S.watch[i].corr, corr);
            tls_watch = i;
            return;
        }
    }
    tls_watch = -1; /* more threads inside engines than slots: this call is not followed */
}

static void
watch_end(void)
{
    if (tls_watch >= 0) {
        atomic_store(&S.watch[tls_watch].since_ns, 0);
        tls_watch = -1;
    }
}

static const char *
engine_words(const struct counter_engine *e)
{
    return e == &engine_sass ? "the instrumentation engine" : "the range profiler";
}

int
sampler_watchdog(void)
{
    /*
     * Only when the instrumentation engine is on (a deadlock inside CUPTI
     * was seen with it): under the range profiler alone, the default, a
     * launch end waits for the kernel itself (Stop and DecodeData
     * synchronize) and a kernel may run for minutes.
     */
    if (opt.instrument == ENGINES_RANGEPROF)
        return 0;
    int64_t now = mono_ns(), bound = (int64_t)opt.watchdog_ms * 1000000LL;
    int stuck = 0;
    for (int i = 0; i < WATCH_SLOTS; i++) {
        int64_t since = atomic_load(&S.watch[i].since_ns);
        const struct counter_engine *e = atomic_load(&S.watch[i].e);
        if (!since || now - since <= bound || !e)
            continue;
        stuck = 1;
        struct stuck *st = e == &engine_sass ? &S.stuck_sass : &S.stuck_rangeprof;
        if (atomic_exchange(&st->said, 1))
            continue;
        st->slot = i;
        st->since_ns = since;
        const char *what = atomic_load(&S.watch[i].what);
        snprintf(st->text, sizeof(st->text),
                 "%s had not returned after %.0f s (launch correlation id %u)",
                 what ? what : "a call", (now - since) / 1e9, atomic_load(&S.watch[i].corr));
        char msg[sizeof(((struct rec *)0)->u.limited)];
        snprintf(msg, sizeof(msg),
                 "%s seems stuck inside CUPTI (or its kernel runs that long): %s; the launching "
                 "thread waits there, gpuhier cannot end the call (the flusher and the exit no "
                 "longer call CUPTI)",
                 engine_words(e), st->text);
        gh_say("%s", msg);
        push_limited(msg);
        push_event("error", "engine_stuck", "%s", msg);
        writer_wake();
        if (opt.diag_stacks)
            stacks_dump(st->text);
    }
    return stuck;
}

/*
 * The watchdog's own thread (with the instrumentation engine on): the
 * flusher calls it too, but a deadlock inside CUPTI can hold the flusher in
 * cuptiActivityFlushAll before the watchdog ever ran there (measured on the
 * H200, docs/collector.md "Both engines in one process"). This thread never
 * calls CUPTI.
 */
static struct {
    pthread_t t;
    sem_t wake;
    atomic_int stop;
    int running;
} WD;

static void *
watchdog_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&WD.stop)) {
        struct timespec ts = deadline_ms(CLOCK_REALTIME, 500);
        while (sem_timedwait(&WD.wake, &ts) == -1 && errno == EINTR)
            ;
        if (!atomic_load(&WD.stop))
            sampler_watchdog();
    }
    return NULL;
}

void
sampler_watchdog_start(void)
{
    if (opt.instrument == ENGINES_RANGEPROF || WD.running)
        return;
    sem_init(&WD.wake, 0, 0);
    WD.running = signals_thread_start(&WD.t, watchdog_main, NULL, 0) == 0;
}

void
sampler_watchdog_stop(void)
{
    if (!WD.running)
        return;
    atomic_store(&WD.stop, 1);
    sem_post(&WD.wake);
    pthread_join(WD.t, NULL);
    WD.running = 0;
}

int
sampler_stuck(const struct counter_engine *e, char *buf, size_t n)
{
    struct stuck *st = e == &engine_sass ? &S.stuck_sass : &S.stuck_rangeprof;
    if (!atomic_load(&st->said))
        return 0;
    int still = atomic_load(&S.watch[st->slot].since_ns) == st->since_ns;
    snprintf(buf, n, "%s%s", st->text, still ? ", still inside at exit" : ", it returned later");
    return 1;
}

int
sampler_init(const struct sampling_opts *o, char *err, size_t n)
{
    if (sampling_init(&S.sampling, o, 0, err, n))
        return -1;
    S.start_mono_ns = mono_ns();
    atomic_store(&P.open, opt.instrument == ENGINES_PHASED);
    return 0;
}

/*
 * The writer's GPU-time hook under --profile-budget (writer thread): each
 * traced kernel's duration goes to its configuration, which the budget
 * ranks by (sampling_add_gpu_time).
 */
void
sampler_gpu_time(const char *mangled, const uint32_t grid[3], const uint32_t block[3],
                 uint32_t dynamic_smem, int64_t ns)
{
    struct sampling_launch l = {.mangled = mangled, .dynamic_smem_bytes = dynamic_smem};
    memcpy(l.grid, grid, sizeof(l.grid));
    memcpy(l.block, block, sizeof(l.block));
    if (sampling_add_gpu_time(&S.sampling, &l, ns))
        atomic_fetch_add_explicit(&S.budget_unmatched, 1, memory_order_relaxed);
}

/*
 * Closes the window (the caller won P.open): M = `before` launches came
 * before this one. Unless the engine failed, it retires here, on the
 * launching thread, before the range profiler is asked anything.
 */
static void
phase_close(long before, int failed)
{
    atomic_store(&P.closed_at, before);
    atomic_store(&P.by_failure, failed);
    if (!failed) {
        char note[64];
        snprintf(note, sizeof(note), "window closed after %ld launch%s", before,
                 before == 1 ? "" : "es");
        watch_begin(&engine_sass, "its retirement", 0);
        engine_sass.retire(note);
        watch_end();
    }
    atomic_store(&P.done, 1);
}

/* =phased: the range profiler may not run yet (the window is open, or its close not finished). */
static int
phase_holds_rangeprof(void)
{
    return opt.instrument == ENGINES_PHASED && !atomic_load(&P.done);
}

/*
 * =phased, every launch that reaches the sampling decision, before it:
 * counts it, and closes the window when the rule above says so. Whether
 * the window is open after it.
 */
static int
phase_enter(const struct sampling_launch *sl)
{
    if (sl->is_capturing)
        return atomic_load(&P.open); /* captured into a graph, not run: not counted */
    long n = atomic_fetch_add(&P.launches, 1) + 1;
    if (!atomic_load(&P.open))
        return 0; /* closed: no lookup on every later launch */
    if (!engine_sass.available()) {
        if (atomic_exchange(&P.open, 0))
            phase_close(n - 1, 1);
        return 0;
    }
    if (!sampling_known(&S.sampling, sl)) {
        long last = atomic_load(&P.last_new);
        while (last < n && !atomic_compare_exchange_weak(&P.last_new, &last, n))
            ;
        return 1;
    }
    if (!sampling_repeated(n, atomic_load(&P.last_new), opt.phase_repeat))
        return 1;
    if (atomic_exchange(&P.open, 0))
        phase_close(n - 1, 0);
    return 0;
}

/*
 * With both engines, whether the instrumentation engine may take this
 * launch: 1 within its allowance (every configuration's first chosen
 * launch, in launch order, unless another configuration of its kernel was
 * dear: sampling_inst_sibling_dear()), 2 past it (and for such a sibling)
 * when the configuration repeats and its price fits what the budget has
 * left, inst_budget_pct of the program's own time less the engine's time
 * beyond the allowance (sampling_inst_pays()), 0 when it waits. Both times are the
 * instrumentation engine's own, against the program's (the elapsed time
 * less every engine's).
 */
static int
inst_budget(struct sampling_launch *sl)
{
    const struct sampling_opts *o = &S.sampling.opts;
    if (opt.instrument != ENGINES_BOTH || o->inst_allowance_ns < 0)
        return 1;
    struct engine_stats all = {0}, own = {0};
    engine_sass.stats(&own);
    /* within the allowance blind, unless a sibling configuration of its kernel was dear */
    if (own.profiling_ns <= o->inst_allowance_ns &&
        !sampling_inst_sibling_dear(&S.sampling, sl,
                                    o->inst_allowance_ns / SAMPLING_INST_BLIND_SHARE))
        return 1;
    engine_stats(&all); /* past the allowance only: the program's own time */
    int64_t program = mono_ns() - S.start_mono_ns - all.profiling_ns;
    double slack = o->inst_budget_pct / 100.0 * (double)program -
                   (double)(own.profiling_ns - o->inst_allowance_ns);
    int64_t price = 0;
    if (!sampling_inst_pays(&S.sampling, sl, slack, &price))
        return 0;
    sl->inst_later = 1;
    return 2;
}

/*
 * The engine a chosen launch goes to: the range profiler, with
 * GPUHIER_INSTRUMENT=1 the instrumentation engine (never both then: an
 * instrumentation engine that failed is not replaced), with =both the
 * instrumentation engine for a configuration it has not served (while it
 * works; sampling_instrumented()) and the range profiler after it, with
 * =phased the same while the window is open (the sampler gives the range
 * profiler's launches back then) and the range profiler alone after it.
 */
static const struct counter_engine *
pick_engine(struct sampling_launch *sl)
{
    if (opt.instrument == ENGINES_RANGEPROF)
        return &engine_rangeprof;
    if (opt.instrument == ENGINES_INSTRUMENT)
        return &engine_sass;
    if (opt.instrument == ENGINES_PHASED && !phase_enter(sl))
        return &engine_rangeprof;
    if (!engine_sass.available() || sampling_instrumented(&S.sampling, sl))
        return &engine_rangeprof;
    return inst_budget(sl) ? &engine_sass : &engine_rangeprof;
}

/*
 * The sampling decision of on_launch (profile mode), then the start of the
 * engine the launch is given to; what the engine holds (the range
 * profiler: its lock; with both engines: serve_lock) is held from here
 * to sampler_launch_exit().
 */
int
sampler_launch_enter(const struct engine_launch *el, int capturing, const char **whyp,
                     long *config_index)
{
    const struct counter_engine *e = &engine_rangeprof;
    const char *why = NULL;
    int sample = 0, deferred = 0, served = 0;
    unsigned extras = 0;
    int group = -1;
    if (opt.sampling_ok) {
        long long zero = 0; /* the settle's clock: the first launch's time, once */
        if (!atomic_load_explicit(&S.first_launch_ns, memory_order_relaxed))
            atomic_compare_exchange_strong(&S.first_launch_ns, &zero, mono_ns());
        struct sampling_launch sl = {
            .mangled = el->mangled,
            .grid = {el->grid[0], el->grid[1], el->grid[2]},
            .block = {el->block[0], el->block[1], el->block[2]},
            .dynamic_smem_bytes = el->dynamic_smem_bytes,
            .nvtx_path = el->nvtx_path,
            .is_capturing = capturing,
            .track_first = 1, /* sampler_launch_exit() says when a first group ended */
        };
        e = pick_engine(&sl);
        sl.for_inst = e == &engine_sass;
        double budget = S.sampling.opts.budget_pct;
        /* one-pass groups: the later groups' budget (--profile-budget's, when given) */
        double gpct = budget > 0 ? budget : S.sampling.opts.group_budget_pct;
        if (budget > 0 || (opt.groups && gpct > 0)) {
            struct engine_stats st;
            engine_stats(&st);
            int64_t elapsed = mono_ns() - S.start_mono_ns;
            /* every engine's time and the elapsed time it is judged against, for
             * GPUHIER_DIAG_LATER_TOTAL_BUDGET below (st and elapsed may become the range
             * profiler's own) */
            const int64_t all_profiling_ns = st.profiling_ns, all_elapsed = elapsed;
            /*
             * By default the range profiler's allowance and groups count its
             * own profiles, against the program's time less every engine's:
             * the instrumentation engine's time (at most one launch a
             * configuration) is not charged to them. Charged, it spent the
             * allowance in GPUHIER_INSTRUMENT=phased's window (15.1 % of the
             * PyTorch benchmark's GPU time got hardware counters on the H200,
             * 2026-12-01). --profile-budget keeps every engine's time.
             */
            if (budget <= 0 && e == &engine_rangeprof && opt.instrument != ENGINES_RANGEPROF) {
                struct engine_stats own = {0};
                engine_rangeprof.stats(&own);
                elapsed -= st.profiling_ns - own.profiling_ns;
                st = own;
            }
            /*
             * GPUHIER_DIAG_RP_SETTLE=MS (diagnosis, both engines): every
             * configuration has pattern counters from its first launch, so
             * the range profiler's groups wait until the program repeats
             * itself (at most MS of its own time) and rank by GPU time within
             * the allowance too. On the H200 (2026-12-03, docs/cost-vs-ncu.md)
             * the default spent its allowance in the PyTorch benchmark's first
             * step in launch order, 13 of its 33 profiles paying a new enable
             * (about 200 ms each) after an instrumented launch: 31 % of the
             * GPU time got hardware counters.
             */
            int settle = opt.rp_settle_ms > 0 && opt.instrument == ENGINES_BOTH &&
                         e == &engine_rangeprof && budget <= 0;
            /*
             * the settle's time counts from the program's first launch: from
             * the collector's start, a PyTorch run whose import and model
             * building took the MS (2026-12-04 16:56 UTC, docs/sampling.md)
             * profiled from its third launch on, between instrumented ones
             */
            int64_t before_first = atomic_load(&S.first_launch_ns) - S.start_mono_ns;
            int settling = settle && elapsed - before_first < (int64_t)opt.rp_settle_ms * 1000000;
            /* the allowance's slots: ranked by GPU time too under the switch */
            long (*slots_within)(double, int64_t, int64_t, int64_t, long) =
                settle ? sampling_allowance_slots : sampling_first_slots;
            /* the first groups' budget: the range profiler's, by default sampling only */
            if (budget <= 0 && opt.groups && e == &engine_rangeprof &&
                S.sampling.opts.first_allowance_ns >= 0) {
                sl.first_budget = 1;
                sl.first_slots = slots_within(gpct, S.sampling.opts.first_allowance_ns,
                                              st.profiling_ns, elapsed, st.profiles);
                sl.first_over_budget = sl.first_slots == 0;
                sl.first_wait = settling;
            }
            if (budget > 0) {
                sl.budget_slots =
                    sampling_budget_slots(budget, st.profiling_ns, elapsed, st.profiles);
                sl.over_budget = sl.budget_slots == 0;
            }
            if (opt.groups && gpct > 0) {
                /* the same budget as above when --profile-budget is given */
                /*
                 * by default the later groups share the first groups' rule: free
                 * within the allowance, past it one budget on the profiling beyond
                 * it, ranked by GPU time (sampling_first_slots())
                 */
                int64_t allow = S.sampling.opts.first_allowance_ns;
                sl.group_slots =
                    budget > 0 ? sl.budget_slots
                    : allow >= 0
                        ? slots_within(gpct, allow, st.profiling_ns, elapsed, st.profiles)
                        : sampling_budget_slots(gpct, st.profiling_ns, elapsed, st.profiles);
                /*
                 * GPUHIER_DIAG_LATER_TOTAL_BUDGET=PCT (diagnosis): past the allowance, a
                 * later group also waits while both engines' time together is over PCT %
                 * of the program's own time. On the H100 (2026-12-06, docs/cost-vs-ncu.md)
                 * the PyTorch benchmark's later groups were 1.25 s of the default's 3.4 s,
                 * each group's run opened by a config image switch of about 0.25 s, and the
                 * instrumentation engine's time, not charged to the range profiler, already
                 * took 12 % of the program's.
                 */
                if (budget <= 0 && S.sampling.opts.later_total_pct > 0 && e == &engine_rangeprof &&
                    (allow < 0 || st.profiling_ns >= allow) &&
                    !sampling_budget_allows(S.sampling.opts.later_total_pct, all_profiling_ns,
                                            all_elapsed))
                    sl.group_slots = 0;
                sl.group_over_budget = sl.group_slots == 0;
                /* the allowance's second half (past the set-up) is kept for first groups to come */
                sl.groups_wait =
                    settling ||
                    (budget <= 0 && sampling_groups_wait(allow, st.profiling_ns, st.first_ns));
                /* the severity floor's wall share: the program's own time, as the analyzer's */
                sl.own_ns = all_elapsed - all_profiling_ns;
                /* the run's value (sampling_decide_group()): a switch costs about the first profile */
                sl.switch_ns = st.first_ns;
            }
        }
        sl.counters_busy = e->deferring && e->deferring();
        sample =
            sampling_decide_group(&S.sampling, &sl, &why, config_index, &extras,
                                  opt.groups && e == &engine_rangeprof ? &group : NULL) == NULL;
        if (sample && group >= 0)
            extras = ENGINE_GROUP | ((unsigned)group & ENGINE_GROUP_MASK);
        deferred = sl.counters_busy && !sample && !strcmp(why, "counters_busy");
        tls_launch = sl;
        if (sample && ((e->available && !e->available()) || capturing)) {
            sample = 0;
            why = capturing ? "stream_capture" : "profiler_unavailable";
        }
        if (sample && e != &engine_sass && phase_holds_rangeprof()) {
            /*
             * =phased, the window open (or another thread's close still
             * unsetting the config): the range profiler may not run yet (a
             * SASS metrics config is set); the configuration's next launch
             * after the window is chosen again
             */
            sampling_undo(&S.sampling, &tls_launch, why, group);
            sample = 0;
            why = "instrumentation_window";
        }
        if (config_index && *config_index == 0 && opt.instrument == ENGINES_PHASED &&
            !atomic_load(&P.open))
            atomic_fetch_add(&P.late, 1);
    } else {
        why = "profiler_unavailable";
    }
    int refused = sample ? serve_acquire(e, 1) : 0;
    if (refused) {
        /*
         * -1: the collector is closing the report (finish()), no engine
         * starts now; -2: another thread's served launch did not end (an
         * engine may be stuck), not now
         */
        sampling_undo(&S.sampling, &tls_launch, why, group);
        why = refused == -1 ? "profiler_unavailable" : "counters_busy";
        sample = 0;
    }
    if (sample) {
        if (e == &engine_sass) {
            struct engine_stats own = {0};
            engine_sass.stats(&own);
            tls_inst_ns0 = own.profiling_ns;
        }
        watch_begin(e, "its launch start", el->corr);
        int rc = e->launch_begin(el, extras);
        watch_end();
        if (rc == 0) {
            tls_served = e;
            served = 1;
            tls_first = group == 0;
            if (e == &engine_sass) {
                /* the row says which engine; inst_launch.reason keeps the sampling's reason */
                sass_launch_reason(why);
                if (!strcmp(why, "inst_deferred"))
                    atomic_fetch_add_explicit(&S.inst_deferred, 1, memory_order_relaxed);
                if (opt.instrument == ENGINES_BOTH || opt.instrument == ENGINES_PHASED) {
                    /* the range profiler takes the configuration's next chosen launch */
                    sampling_mark_instrumented(&S.sampling, &tls_launch);
                    sampling_inst_served(&S.sampling);
                    sampling_undo(&S.sampling, &tls_launch, why, group);
                }
                why = "instrumented";
            }
        } else if (rc == -EBUSY) {
            /* give the choice back: the configuration's next launch is chosen again */
            sampling_undo(&S.sampling, &tls_launch, why, group);
            why = "counters_busy";
            deferred = 1;
        } else {
            /* with both engines a failed instrumentation leaves the next launch to the other */
            if ((opt.instrument == ENGINES_BOTH || opt.instrument == ENGINES_PHASED) &&
                e == &engine_sass)
                sampling_undo(&S.sampling, &tls_launch, why, group);
            why = "profiler_unavailable";
            if (group == 0)
                sampling_first_landed(&S.sampling, &tls_launch);
        }
        if (!served)
            serve_release();
    }
    engine_launch_other(sample ? e : NULL, capturing);
    if (deferred && e->launch_deferred)
        e->launch_deferred();
    *whyp = why;
    return served;
}

void
sampler_launch_exit(int launch_ok)
{
    const struct counter_engine *e = tls_served;
    engine_launch_other_end(e);
    if (e) {
        tls_served = NULL;
        watch_begin(e, "its launch end", 0);
        e->launch_end(launch_ok);
        watch_end();
        if (e == &engine_sass) {
            /* what it added (serve_lock held: this launch's alone) teaches the price */
            struct engine_stats own = {0};
            engine_sass.stats(&own);
            sampling_inst_cost(&S.sampling, &tls_launch, own.profiling_ns - tls_inst_ns0);
        }
        if (tls_first) {
            tls_first = 0;
            sampling_first_landed(&S.sampling, &tls_launch);
        }
    }
    serve_release();
}

void
sampler_graph_enter(const struct engine_graph *g)
{
    if (opt.trace_only || !opt.sampling_ok)
        return;
    const struct counter_engine *e = NULL;
    /* counted at every launch of the executable, whichever engine takes this one */
    int rp = (opt.instrument == ENGINES_RANGEPROF || opt.instrument == ENGINES_BOTH) &&
             engine_rangeprof.available() && rangeprof_graph_wanted(g->exec);
    if (opt.instrument != ENGINES_RANGEPROF && engine_sass.available() &&
        sass_graph_wanted(g->exec))
        e = &engine_sass;
    else if (rp)
        e = &engine_rangeprof; /* GPUHIER_DIAG_RP_GRAPHS (diagnosis): its nodes in ranges */
    if (!e || serve_acquire(e, 1))
        return;
    watch_begin(e, "its graph launch start", g->corr);
    tls_graph = e->graph_begin(g) == 0 ? e : NULL;
    watch_end();
    if (!tls_graph)
        serve_release();
}

/*
 * A graph's instantiation (docs/collector.md "Graphs"): when the
 * instrumentation engine wants it armed, it is served like a launch (it
 * counts for the exit's wait, holds serve_lock with every other engine
 * quiesced, and the watchdog follows it from the arming to its EXIT).
 */
static __thread int tls_instantiate; /* this thread's instantiation is armed and served */

void
sampler_instantiate_enter(CUcontext ctx, CUgraph graph)
{
    if (!opt.trace_only && opt.instrument != ENGINES_RANGEPROF)
        sass_window_shut();
    if (opt.trace_only || !opt.sampling_ok || opt.instrument == ENGINES_RANGEPROF ||
        !engine_sass.available() || !sass_instantiate_wanted(graph) ||
        serve_acquire(&engine_sass, 1))
        return;
    watch_begin(&engine_sass, "a graph instantiation armed for its kernel nodes", 0);
    tls_instantiate = sass_instantiate_arm(ctx) == 0;
    if (!tls_instantiate) {
        watch_end();
        serve_release();
    }
}

void
sampler_instantiate_exit(CUgraphExec exec)
{
    sass_instantiate_exit(exec);
    if (tls_instantiate) {
        tls_instantiate = 0;
        watch_end();
        serve_release();
    }
}

void
sampler_graph_exit(int launch_ok)
{
    const struct counter_engine *e = tls_graph;
    if (e) {
        tls_graph = NULL;
        watch_begin(e, "its graph launch end", 0);
        e->graph_end(launch_ok);
        watch_end();
    }
    serve_release();
}

int
sampler_request_extras(unsigned groups)
{
    return sampling_request_extras(&S.sampling, &tls_launch, groups);
}

void
sampler_set_groups(int n)
{
    sampling_set_groups(&S.sampling, n);
}

int
sampler_set_group_order(const unsigned char *order, int n)
{
    return sampling_set_group_order(&S.sampling, &tls_launch, order, n);
}

/* =phased: the window's info event (docs/collector.md "The instrumentation window"). */
static void
phase_at_exit(void)
{
    if (opt.instrument != ENGINES_PHASED || opt.trace_only || !opt.sampling_ok)
        return;
    long launches = 0, graphs = 0;
    char st[160];
    sass_state(st, sizeof(st), &launches, &graphs, NULL);
    long n = atomic_load(&P.launches);
    long closed_at = atomic_load(&P.closed_at), late = atomic_load(&P.late);
    if (atomic_load(&P.open))
        push_event("info", "instrumentation_window",
                   "the instrumentation window never closed: pattern counters on %ld "
                   "configuration%s over all %ld launch%s; the range profiler did not run",
                   launches, PLURAL_S(launches), n, PLURAL_ES(n));
    else
        push_event("info", "instrumentation_window",
                   "pattern counters on %ld configuration%s during the first %ld launch%s%s; %ld "
                   "configuration%s first launched after the window %s none",
                   launches, PLURAL_S(launches), closed_at, PLURAL_ES(closed_at),
                   atomic_load(&P.by_failure) ? " (closed when the instrumentation engine failed)"
                                              : "",
                   late, PLURAL_S(late), late == 1 ? "has" : "have");
}

void
sampler_at_exit(void)
{
    phase_at_exit();
    long waited = opt.sampling_ok ? sampling_inst_unserved(&S.sampling) : 0;
    long learned = 0;
    double slowdown = opt.sampling_ok ? sampling_inst_slowdown(&S.sampling, &learned) : 0;
    if (opt.sampling_ok && !opt.trace_only && opt.instrument == ENGINES_BOTH &&
        S.sampling.opts.inst_allowance_ns >= 0) {
        char v[200];
        long deferred = atomic_load(&S.inst_deferred);
        snprintf(v, sizeof v,
                 "%.1f ms and %.0fx the native time (%s %ld configuration%s); %ld launch%s "
                 "instrumented past the allowance, %ld configuration%s waited to the end",
                 SAMPLING_INST_FIXED_NS / 1e6, slowdown, learned ? "learned from" : "default,",
                 learned, PLURAL_S(learned), deferred, PLURAL_ES(deferred), waited,
                 PLURAL_S(waited));
        push_meta("instrumentation_price", v);
    }
    if (waited) {
        push_event(
            "info", "instrumentation_budget",
            "%ld configuration%s %s no exact per-instruction counts: they came after the "
            "instrumentation engine had spent its allowance (%.0f ms), and were launched "
            "fewer than %d times or their price (%.0f ms and %.0fx their native time, %s) "
            "never fit in %.0f %% of the program's own time (GPUHIER_INSTRUMENT_ALLOWANCE_MS, "
            "GPUHIER_INSTRUMENT_BUDGET; docs/sampling.md)",
            waited, PLURAL_S(waited), waited == 1 ? "has" : "have",
            (double)S.sampling.opts.inst_allowance_ns / 1e6, SAMPLING_INST_REPEATS,
            SAMPLING_INST_FIXED_NS / 1e6, slowdown,
            learned ? "learned from this run" : "before any was measured",
            S.sampling.opts.inst_budget_pct);
    }
    long floored = 0;
    int64_t floored_ns = 0;
    if (opt.sampling_ok)
        sampling_floor_left(&S.sampling, &floored, &floored_ns);
    if (floored)
        push_event("info", "groups_below_floor",
                   "%ld configurations (%.3f ms of GPU time) have only some of the plan's "
                   "one-pass groups: past the first half of the allowance, a later group goes "
                   "only to a configuration that holds at least %.1f %% of the GPU time and "
                   "%.1f %% of the program's own time so far, the least a warning needs "
                   "(docs/severity.md); below that every finding on it is a note "
                   "(GPUHIER_DIAG_GROUPS_FLOOR=0 lifts the floor; docs/sampling.md)",
                   floored, (double)floored_ns / 1e6, SEV_WARNING_GPU_PCT, SEV_WARNING_WALL_PCT);
    if (atomic_load(&S.budget_unmatched))
        /* the kernel records' names or geometry did not match the launch callbacks' */
        push_event("warning", "budget_time_unmatched",
                   "--profile-budget: %ld traced kernels matched no configuration of the "
                   "launch callbacks; their GPU time did not count",
                   atomic_load(&S.budget_unmatched));
}
