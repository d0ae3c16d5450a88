/* SPDX-License-Identifier: MIT */
/*
 * cupti_load: open libcupti with dlopen, once per process.
 *
 * The collector never links CUPTI (no NEEDED entry): everything it calls is
 * looked up with cupti_sym(). Before libcupti is opened, libnvperf_host.so
 * and libnvperf_target.so are opened by absolute path from the directory
 * libcupti lives in, because libcupti dlopens them by bare name and would
 * not find them there (CUPTI-NOTES §1: the host API then fails with
 * CUPTI_ERROR_NOT_INITIALIZED).
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

#endif
