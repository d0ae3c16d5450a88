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

/* A context exists (the driver is initialized): the flusher turns unified-memory events on, once. */
void activity_um_wanted(void);

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
 * Kernel tracing around a launch the instrumentation engine serves.
 * kernel_activity_pause(), after the engine's synchronize and before its
 * Enable: where kernels are traced concurrently (the default), flushes
 * CUPTI's buffers and swaps CONCURRENT_KERNEL for KIND_KERNEL (CUPTI
 * refuses concurrent-kernel activity while SASS metrics are enabled);
 * under GPUHIER_DIAG_SASS_KERNEL_GATE=1 (diagnosis of the engine's hang,
 * docs/collector.md "A hang of the instrumentation engine") turns the
 * serialized tracing of GPUHIER_DIAG_SERIALIZED_KERNELS=1 off.
 * kernel_activity_resume(), after the engine's Disable, undoes either.
 * Both do nothing otherwise or before init_activity().
 */
void kernel_activity_pause(void);
void kernel_activity_resume(void);

/*
 * A pause ended where no swap may be made (a context's destruction, the
 * exit: the swap's flush is forbidden there): counted as resumed, the
 * kinds left as they are; the next pause and its resume swap them back.
 * Pauses and resumes are counted (the first pause swaps, the last resume
 * swaps back) and never swap at once: they come from several threads
 * (collector/activity.c, swap_lock).
 */
void kernel_activity_forget(void);

/*
 * The launch gate around a kind swap (activity.c): a launch or graph
 * launch calls activity_launch_begin() at the end of its ENTER callback
 * (after its engine's own swap) and activity_launch_end() first thing at
 * its EXIT (before the engine's swap back); begin waits while a swap is
 * under way, and a swap waits for the launches between the two.
 */
void activity_launch_begin(void);
void activity_launch_end(void);

/* At a clean exit, after the last flush: meta activity_buffer_waits when a buffer request waited. */
void activity_exit_notes(void);

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
