/* SPDX-License-Identifier: MIT */
/*
 * cacheflush: `gpuhier run --cache-control all` (GPUHIER_CACHE_CONTROL=all).
 *
 * Before a profiled launch the collector reads a device buffer of twice the
 * L2's size with a kernel of its own, then invalidates the buffer's lines
 * (PTX discard), so the launch starts with an empty L2: none of the
 * program's lines and no dirty line of earlier work. The DRAM bytes and L2
 * hits of its profile are those of a cold, empty cache, as Nsight
 * Compute's default `--cache-control all` gives, instead of whatever the
 * kernels before it left. Reads and discards write nothing, so nothing is
 * written back inside the profiled range (a memset would leave dirty
 * lines). The L1 is not coherent and holds nothing of earlier kernels at
 * a launch. cacheflush.c says how the two kernels work.
 *
 * CUDA 13.0's CUPTI has no cache control of its own, and kernel replay
 * runs its passes inside CUPTI: the flush precedes the launch, that is
 * the first pass only (docs/collector.md, "Cache control").
 *
 * The kernels are PTX text (cacheflush.c), loaded with cuModuleLoadData into each
 * context that profiles (the driver compiles it for the device once); the
 * buffer is allocated at the first flush of a context and kept (twice the
 * L2: 120 MB of the program's device memory on an H200). Every
 * driver call it makes goes through the collector's own CUPTI callbacks,
 * which ignore them while cacheflush_active() is true; the kernels'
 * activity records and the buffer's allocation record are dropped by the
 * writer (cacheflush_is_kernel, cacheflush_owns).
 *
 * Callers hold the collector's profiling lock (one flush at a time).
 */
#ifndef GPUHIER_COLLECTOR_CACHEFLUSH_H
#define GPUHIER_COLLECTOR_CACHEFLUSH_H
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

/* The flush kernels' PTX (exposed for the CPU test that assembles it). */
extern const char cacheflush_ptx[];

/* What the flush kernels' names start with, as CUPTI's records give them. */
#define CACHEFLUSH_KERNEL_PREFIX "gpuhier_l2_"

/*
 * Flushes the L2 of the device of the current context `ctx`: waits for the
 * context's work, reads the buffer, discards it, waits again. 0 on success; -1 with a
 * one-line reason in err (n bytes) when the kernel or the buffer could not
 * be set up or run. *bytes_read (may be NULL) gets the buffer's size.
 */
int cacheflush_run(CUcontext ctx, uint64_t *bytes_read, char *err, size_t n);

/* 1 while this thread is inside cacheflush_run (its driver calls are the collector's). */
int cacheflush_active(void);

/* 1 when `name` is one of the flush kernels'. */
int cacheflush_is_kernel(const char *name);

/* 1 when device address `addr` is a flush buffer's (its allocation record is not the program's). */
int cacheflush_owns(uint64_t addr);

/*
 * The context is being destroyed (caller holds the profiling lock): its
 * kernel and buffer go with it; a later context, even at the same
 * address, sets up its own, and the buffer's address is no longer owned.
 */
void cacheflush_forget(CUcontext ctx);

#endif
