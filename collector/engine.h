/* SPDX-License-Identifier: MIT */
/*
 * engine: what a counter engine is given, and the range profiler's calls
 * (collector/engine_rangeprof.c) that the launch path, the flusher and
 * the exit make.
 */
#ifndef GPUHIER_COLLECTOR_ENGINE_H
#define GPUHIER_COLLECTOR_ENGINE_H
#include <cuda.h>
#include <stdint.h>
#include <time.h>

/* One launch, as the driver launch callback saw it at ENTER. Borrowed for the call. */
struct engine_launch {
    CUcontext ctx;
    CUfunction func;
    uint32_t corr;       /* driver API correlation id: the key of the launch's rows */
    const char *mangled; /* CUPTI's symbol name, may be NULL */
    uint32_t grid[3], block[3];
    uint32_t dynamic_smem_bytes;
    const char *nvtx_path; /* the thread's open NVTX push ranges, " > "-joined, or NULL */
};

/* What the engines spent, for the end line and --profile-budget. */
struct engine_stats {
    int64_t profiling_ns; /* time the served launches spent in the engine (CLOCK_MONOTONIC) */
    long profiles;        /* launches served to the end with a result */
    int max_passes;       /* the most replay passes one launch took */
};

/* CLOCK_MONOTONIC in ns: the engines' and the sampler's clock. */
static inline int64_t
mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void rangeprof_prepare(CUcontext ctx);
int rangeprof_deferring(void);
int rangeprof_available(void);
int rangeprof_launch_begin(const struct engine_launch *l, unsigned extras);
void rangeprof_launch_end(int launch_ok);
void rangeprof_launch_other(int capturing);
void rangeprof_launch_deferred(void);
void rangeprof_graph_launch(void);
void rangeprof_context_destroying(CUcontext ctx);
void rangeprof_flush(void);
void rangeprof_exit_stop(void);
void rangeprof_exit_notes(void);
void rangeprof_stats(struct engine_stats *s);

#endif
