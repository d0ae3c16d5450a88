/* SPDX-License-Identifier: MIT */
/*
 * cacheflush: `gpuhier run --cache-control all` (GPUHIER_CACHE_CONTROL=all).
 *
 * Before a profiled launch the collector reads a device buffer of twice the
 * L2's size with a kernel of its own, so the launch starts with an L2 that
 * holds none of the program's lines and no dirty line of earlier work: the
 * DRAM bytes and L2 hits of its profile are those of a cold, clean cache,
 * as Nsight Compute's default `--cache-control all` gives, instead of
 * whatever the kernels before it (and the profiler's own set-up) left.
 * Reads leave only clean lines, so nothing is written back inside the
 * profiled range (a memset would leave dirty ones). The L1 is not
 * coherent and holds nothing of earlier kernels at a launch.
 *
 * CUDA 13.0's CUPTI has no cache control of its own, and kernel replay
 * runs its passes inside CUPTI: the flush precedes the launch, that is
 * the first pass only (docs/collector.md, "Cache control").
 *
 * The kernel is PTX text (below), loaded with cuModuleLoadData into each
 * context that profiles (the driver compiles it for the device once); the
 * buffer is allocated at the first flush of a context and kept. Every
 * driver call it makes goes through the collector's own CUPTI callbacks,
 * which ignore them while cacheflush_active() is true; the kernel's
 * activity record and the buffer's allocation record are dropped by the
 * writer (cacheflush_is_kernel, cacheflush_owns).
 *
 * Callers hold the collector's profiling lock (one flush at a time).
 */
#ifndef GPUHIER_COLLECTOR_CACHEFLUSH_H
#define GPUHIER_COLLECTOR_CACHEFLUSH_H
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

/* The flush kernel's PTX (exposed for the CPU test that assembles it). */
extern const char cacheflush_ptx[];

/* The kernel's name, as CUPTI's records give it. */
#define CACHEFLUSH_KERNEL "gpuhier_l2_flush"

/*
 * Flushes the L2 of the device of the current context `ctx`: waits for the
 * context's work, reads the buffer, waits again. 0 on success; -1 with a
 * one-line reason in err (n bytes) when the kernel or the buffer could not
 * be set up or run. *bytes_read (may be NULL) gets the buffer's size.
 */
int cacheflush_run(CUcontext ctx, uint64_t *bytes_read, char *err, size_t n);

/* 1 while this thread is inside cacheflush_run (its driver calls are the collector's). */
int cacheflush_active(void);

/* 1 when `name` is the flush kernel's. */
int cacheflush_is_kernel(const char *name);

/* 1 when device address `addr` is a flush buffer's (its allocation record is not the program's). */
int cacheflush_owns(uint64_t addr);

#endif
