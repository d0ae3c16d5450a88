/* SPDX-License-Identifier: MIT */
/*
 * activity: CUPTI activity tracing and the flusher thread
 * (collector/activity.c).
 */
#ifndef GPUHIER_COLLECTOR_ACTIVITY_H
#define GPUHIER_COLLECTOR_ACTIVITY_H

/*
 * initialize(), once subscribed: allocates the buffer pool, registers
 * CUPTI's buffer callbacks and enables CONCURRENT_KERNEL, MEMCPY, MEMSET
 * and MEMORY2 (meta alloc_tracking says whether MEMORY2 is on; an
 * activity CUPTI refuses is an `activity_enable_failed` event). From then
 * on flush_forced() and the flusher flush.
 */
void init_activity(void);

/*
 * cuptiActivityFlushAll(FORCED): every buffer goes to the writer, an
 * incomplete record without its times. Nothing before init_activity().
 * Not from a CUPTI resource callback (CUPTI forbids it there).
 */
void flush_forced(void);

/*
 * initialize(), once the writer runs, CUPTI or not: starts the flusher
 * with every signal blocked. If it cannot start, nothing is flushed
 * periodically and a fatal signal leaves the report as last committed.
 */
void start_flusher(void);

/*
 * GPUHIER_DIAG_SASS_KERNEL_GATE=1 (diagnosis of the instrumentation
 * engine's hang, docs/collector.md "A hang of the instrumentation
 * engine"): kernel_activity_pause() flushes CUPTI's buffers and turns
 * serialized kernel tracing off for the launch the instrumentation
 * engine serves, kernel_activity_resume() turns it on again after the
 * engine's Disable. Both do nothing without the switch or before
 * init_activity(). The served launch then has no kernel record (its
 * duration under patching is not the program's anyway).
 */
void kernel_activity_pause(void);
void kernel_activity_resume(void);

/* Stops and joins the flusher: afterwards no thread of ours calls CUPTI. */
void stop_flusher(void);

/* Whether the flusher runs; whether the calling thread is the flusher. */
int flusher_running(void);
int flusher_self(void);

/*
 * A fatal signal (on_death): has the flusher run die_commit() now and
 * waits for it at most `ms`. Async-signal-safe. Only while it runs.
 */
void flusher_urgent(int ms);

#endif
