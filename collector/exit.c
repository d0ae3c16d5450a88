/* SPDX-License-Identifier: MIT */
/*
 * exit: how the report is closed, at exit (finish(), an atexit handler)
 * or when a fatal signal ends the program (on_death(), die_commit()), in
 * the fixed order docs/collector.md "At exit" gives; and the end line of
 * the session file. Whichever of the two starts first closes the report;
 * the other waits for it, bounded.
 */
#include "collector/exit.h"
#include "collector/activity.h"
#include "collector/callbacks.h"
#include "collector/collector_int.h"
#include "collector/cupti_load.h"
#include "collector/diagprobe.h"
#include "collector/engine.h"
#include "collector/notes.h"
#include "collector/options.h"
#include "collector/sampler.h"
#include "collector/signals.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* How long the exit waits for another thread's launch an engine serves (finish()). */
#define EXIT_SERVE_WAIT_MS 5000

static struct {
    pthread_mutex_t lock; /* exited, exit_hooks */
    int exited;           /* finish() ran */
    /*
     * Closing the report (docs/collector.md "At exit"): the first of finish()
     * (exit) and die_commit() (a fatal signal) to set `closing` closes it and
     * then sets `closed`; the other waits for `closed`, bounded.
     */
    atomic_int closing, closed;
    int death_sig;  /* the signal die_commit() records */
    int exit_hooks; /* atexit(finish) registrations (exit_hook_refresh) */
} X = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

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
    struct engine_stats e;
    engine_stats(&e);
    snprintf(line, sizeof(line), "end\t%ld\t%s\t%llu\t%llu\t%llu\t%llu\t%d\t%lld\n",
             (long)collector_pid(), collector_path(), (unsigned long long)s.launches,
             (unsigned long long)s.profiled, (unsigned long long)skipped,
             (unsigned long long)dropped, e.max_passes, (long long)e.profiling_ns);
    session_line(line);
    /* Under `gpuhier run` the session file carries this and run prints it once. */
    if (!env("GPUHIER_SESSION_FILE"))
        gh_say("pid %ld: %llu launches traced, %llu profiled, %llu not profiled, %llu dropped, "
               "%d passes max, %.2f s profiling; report %s",
               (long)collector_pid(), (unsigned long long)s.launches,
               (unsigned long long)s.profiled, (unsigned long long)skipped,
               (unsigned long long)dropped, e.max_passes, e.profiling_ns / 1e9, collector_path());
}

/* Waits at most `ms` for the flag; async-signal-safe. */
int
wait_flag(atomic_int *flag, int ms)
{
    for (int i = 0; i < ms && !atomic_load(flag); i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return atomic_load(flag);
}

/*
 * nvperf's open (collector/cupti_load.c), ended before anything is torn
 * down: a program that exits before its first profiled launch may exit
 * while the open runs. Its times go to the meta nvperf_open
 * (docs/instrument-cost.md): how long it took, and how long the profiler's
 * first call (or this exit) waited for it.
 */
static void
nvperf_settle(void)
{
    cupti_nvperf_join();
    double open_ms = 0, waited_ms = 0;
    int on_thread = 0;
    if (!cupti_nvperf_times(&open_ms, &waited_ms, &on_thread))
        return;
    char v[200];
    snprintf(v, sizeof(v), "opened in %.1f ms %s; waited for %.1f ms", open_ms,
             on_thread ? "on its own thread" : "on the caller's thread", waited_ms);
    push_meta("nvperf_open", v);
}

void
nvperf_ready(void)
{
    cupti_nvperf_wait();
    /*
     * nvperf's constructors registered its destructors when they ran, on
     * the open's thread, maybe after finish() was registered: register it
     * again so it runs before them (exit_hook_refresh() says why).
     */
    exit_hook_refresh();
}

/*
 * At exit (atexit; docs/collector.md "At exit", with the crash this order
 * fixes). The order matters:
 *   0. nvperf's open, if it still runs on its thread, ends (nvperf_settle());
 *   1. `active` off: callbacks still arriving (a thread still launching,
 *      the runtime's own teardown) return at once;
 *   2. the flusher is joined before anything else touches CUPTI, so no
 *      thread of ours is inside CUPTI while it or nvperf tear down;
 *      a launch another thread's engine serves reaches its EXIT (the
 *      callbacks let it through, sampler_exit_wait());
 *   3. the counter engines stop (engine_exit_stop()): the range profiler is
 *      disabled from this thread with its context made current (exit() may
 *      be called by a thread that never used CUDA);
 *   4. a forced flush, then the writer drains, commits and closes.
 * finish() runs before CUPTI's and nvperf's own exit-time destructors:
 * those are registered when their state is first built, and
 * exit_hook_refresh() registers finish() again after each such point.
 */
static void
finish(void)
{
    pthread_mutex_lock(&X.lock);
    if (X.exited || !collector_initialized() || getpid() != collector_pid() ||
        !callbacks_active()) {
        pthread_mutex_unlock(&X.lock);
        return;
    }
    X.exited = 1;
    pthread_mutex_unlock(&X.lock);
    if (atomic_exchange(&X.closing, 1))
        return; /* a fatal signal is closing it */
    nvperf_settle();
    callbacks_set_active(0);
    stop_flusher();
    sampler_watchdog_stop();
    /*
     * An engine call still stuck inside CUPTI (sampler_watchdog()) may hold
     * CUPTI's locks: the engines are not stopped and CUPTI is not flushed,
     * so the exit cannot hang on it; the report says so.
     */
    if (!sampler_watchdog()) {
        /*
         * A launch another thread was profiling when the program began to
         * exit ends first (its EXIT still comes through the callbacks).
         * Before, that EXIT was dropped: the range profiler stayed started
         * under it, its lock held, and with both engines the SASS config
         * was unset under the started range (t108 `bgold` counts it). If
         * the launch does not end in time the engines are left as they
         * are, as for a stuck call. (The SIGSEGV of bench/stress `bg` on
         * the H200 had another cause: rangeprof_prepare().)
         */
        if (opt.diag_exit_no_wait || sampler_exit_wait(EXIT_SERVE_WAIT_MS)) {
            engine_exit_stop();
        } else {
            char msg[200];
            snprintf(msg, sizeof(msg),
                     "a launch on another thread was still being profiled %d s after the exit "
                     "began: the counter engines were not stopped, its counters are lost",
                     EXIT_SERVE_WAIT_MS / 1000);
            gh_say("%s", msg);
            push_event("warning", "exit_launch_in_engine", "%s", msg);
        }
        flush_forced();
        activity_exit_notes();
        diagprobe_exit(); /* GPUHIER_DIAG_PMPROBE: nothing without it */
    }
    engine_exit_notes();
    sampler_at_exit();
    writer_stop(1);
    say_end();
    atomic_store(&X.closed, 1);
}

/*
 * The flusher's half of a fatal signal (the dying thread waits in
 * on_death): flush CUPTI's buffers, forced (a record still incomplete
 * keeps no times), record the signal, and close the report as at exit but
 * with clean_exit = 0. The counter engines are left alone (the range
 * profiler among them): the dying thread may hold an engine's lock, and
 * the process is about to end.
 */
void
die_commit(void)
{
    char name[32];
    signals_name(X.death_sig, name, sizeof(name));
    if (!sampler_watchdog())
        flush_forced();
    push_event("error", "signal",
               "the program was ended by %s (signal %d); the report holds what the collector "
               "had received until then",
               name, X.death_sig);
    callbacks_set_active(0);
    writer_stop(0);
    say_end();
    atomic_store(&X.closed, 1);
}

/*
 * A signal is about to end the process (signals.c decided; the program's own
 * handler, if any, already ran). Waits, bounded, for the flusher to commit
 * and close the report. Without a flusher (it could not start) what is
 * committed stays and the report is left for readers to call incomplete.
 */
void
on_death(int sig)
{
    if (!collector_initialized() || getpid() != collector_pid() || !callbacks_active())
        return;
    if (flusher_self())
        return; /* the flusher itself faulted: nobody is left to commit */
    if (atomic_exchange(&X.closing, 1)) {
        wait_flag(&X.closed, 3000); /* finish() is closing it on another thread */
        return;
    }
    if (!flusher_running())
        return;
    X.death_sig = sig;
    flusher_urgent(3000);
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
void
exit_hook_refresh(void)
{
    pthread_mutex_lock(&X.lock);
    if (collector_initialized() && X.exit_hooks < 64 && atexit(finish) == 0)
        X.exit_hooks++;
    pthread_mutex_unlock(&X.lock);
}
