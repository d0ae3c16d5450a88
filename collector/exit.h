/* SPDX-License-Identifier: MIT */
/*
 * exit: closing the report at exit or on a fatal signal (collector/exit.c,
 * docs/collector.md "At exit" and "Fatal signals").
 */
#ifndef GPUHIER_COLLECTOR_EXIT_H
#define GPUHIER_COLLECTOR_EXIT_H
#include <stdatomic.h>

/*
 * Registers the exit handler (finish()) with atexit again, at most 64
 * times in all; it runs once. Called by initialize() and after each
 * first-time set-up inside CUPTI or nvperf (the subscription, the range
 * profiler's first enable, each metrics host object, the first profiles),
 * so that it runs before the exit-time destructors those register. Any
 * thread; a no-op before initialize() succeeded.
 */
void exit_hook_refresh(void);

/*
 * Before the profiler's first call (cuptiProfilerInitialize): waits for
 * nvperf's open (collector/cupti_load.h) and registers finish() again
 * after the destructors nvperf's constructors registered.
 */
void nvperf_ready(void);

/*
 * signals.c's before_death: a fatal signal is about to end the process.
 * Has the flusher close the report (die_commit()) and waits for it, at
 * most 3 s; waits for finish() instead if it is closing. The dying thread.
 */
void on_death(int sig);

/* The flusher's half of on_death(): the forced flush, the `signal` event, the close. */
void die_commit(void);

/* Waits at most `ms` for `flag` to become non-zero; returns it. Async-signal-safe. */
int wait_flag(atomic_int *flag, int ms);

#endif
