/* SPDX-License-Identifier: MIT */
/*
 * cupti_load: open libcupti with dlopen, once per process.
 *
 * The collector never links CUPTI (no NEEDED entry): everything it calls is
 * looked up with cupti_sym(). libnvperf_host.so and libnvperf_target.so
 * are opened by absolute path from the directory libcupti lives in,
 * because libcupti dlopens them by bare name and would not find them there
 * (CUPTI-NOTES §1: the host API then fails with CUPTI_ERROR_NOT_INITIALIZED).
 * That open is slow (cupti_load.c says why), so it runs on a thread of its
 * own (cupti_nvperf_start()) or on the first cupti_nvperf_wait(), which
 * every caller of the profiler's API (cuptiProfilerInitialize, the host
 * API) makes first.
 *
 * Search order: $GPUHIER_CUPTI_PATH (a file, or a directory holding
 * libcupti.so*), "libcupti.so.13", "libcupti.so" (the loader's own search),
 * then /usr/local/cuda/extras/CUPTI/lib64, /usr/local/cuda/lib64 and
 * /usr/local/cuda/targets/x86_64-linux/lib.
 */
#ifndef GPUHIER_COLLECTOR_CUPTI_LOAD_H
#define GPUHIER_COLLECTOR_CUPTI_LOAD_H
#include <stddef.h>

/*
 * Opens libcupti (first call only; later calls return the same result,
 * success or failure, without retrying). Thread-safe (pthread_once).
 * Returns the dlopen handle, owned by this module and never closed, or
 * NULL with a one-line reason in `err` (n bytes, may be NULL/0).
 */
void *cupti_load(char *err, size_t n);

/*
 * Looks `name` up in the loaded libcupti. Returns NULL if cupti_load() has
 * not succeeded or the symbol is missing. Thread-safe.
 */
void *cupti_sym(const char *name);

/*
 * Absolute path of the libcupti that was loaded ("" before success).
 * The string is owned by this module and lives for the process.
 */
const char *cupti_load_path(void);

/*
 * Starts opening nvperf (from libcupti's directory) on a thread of its
 * own, with every signal blocked, so the caller goes on. Nothing in trace
 * mode (GPUHIER_MODE=trace), before cupti_load() found libcupti, or after
 * the open started or finished. Where the thread cannot be made, the next
 * cupti_nvperf_wait() opens it. GPUHIER_DIAG_NVPERF_SYNC=1 (diagnosis):
 * opens it here, on the caller's thread, the form before 2026-12-06.
 * Thread-safe.
 */
void cupti_nvperf_start(void);

/*
 * Returns once nvperf is open: joins the thread, or opens it here when it
 * was never started. Call before any profiler API call (CUPTI loads nvperf
 * by bare name then). Cheap after the first call. Thread-safe.
 */
void cupti_nvperf_wait(void);

/*
 * Returns once a started open has ended (joins the thread); opens nothing
 * itself. For fork (a child must not inherit the loader's lock held by
 * the open) and exit. Thread-safe.
 */
void cupti_nvperf_join(void);

/*
 * How the open went, for the report's meta: the ms it took, the ms the
 * first waiter waited for it, and whether it ran on its own thread.
 * Returns 1 once it is done, 0 before (or when nvperf is never opened).
 */
int cupti_nvperf_times(double *open_ms, double *waited_ms, int *on_thread);

#endif
