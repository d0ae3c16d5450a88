/* SPDX-License-Identifier: MIT */
/*
 * collector_int.h: what the collector's own files share (not for other
 * modules). The records that travel from CUPTI callbacks to the writer,
 * the table of CUPTI and driver entry points looked up with dlsym (the
 * collector links neither library), and the writer's interface.
 */
#ifndef GPUHIER_COLLECTOR_INT_H
#define GPUHIER_COLLECTOR_INT_H
#include "schema/hash.h"
#include "collector/hostargs.h"
#include "collector/metrics.h"
#include "schema/strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

/*
 * The ending of a count's noun in the collector's messages: "1 launch",
 * "2 launches", "1 configuration" (a one-kernel program's events read
 * "1 configurations" before).
 */
#define PLURAL_S(n) ((n) == 1 ? "" : "s")
#define PLURAL_ES(n) ((n) == 1 ? "" : "es")

/* ------------------------------------------------------------- records */

#define REC_NAME_MAX 256 /* kernel names in failure records (truncated) */
#define REC_NVTX_PATH_MAX 256
#define REC_NVTX_NAME_MAX 200
#define REC_MAX_METRICS 72

enum rec_type {
    REC_EVENT = 1,  /* an `event` row */
    REC_LAUNCH,     /* driver launch ENTER: correlation ids, sampling decision, NVTX path */
    REC_COPY,       /* memcpy/memset API ENTER: pointers */
    REC_FAILURE,    /* launch API EXIT with an error */
    REC_NVTX_OPEN,  /* push or start */
    REC_NVTX_CLOSE, /* pop or end */
    REC_DEVICE,     /* a context was created on this device */
    REC_CUBIN,      /* a module with line info was loaded (heap copy, writer frees) */
    REC_PROFILE,    /* the range profiler's result for one sampled launch */
    REC_PROFILE_IMAGE, /* a kept session's decoded image, evaluated by the writer (heap, writer frees) */
    REC_SASS,    /* the instrumentation engine's counts for one launch (heap batch, writer frees) */
    REC_GRAPH,   /* a graph launch the instrumentation engine serves, before it runs */
    REC_LIMITED, /* profiling is limited: text for run.profiling_limited */
    REC_META,    /* a `meta` key/value the collector states (e.g. alloc_tracking) */
    REC_TEST,    /* test records (tests/unit/test_collector_queue.c) */
};

struct rec_event {
    char level[8];
    char code[40];
    char message[400];
};

struct rec_launch {
    uint32_t corr;     /* driver API correlation id */
    uint32_t rt_corr;  /* enclosing runtime API correlation id; 0 (no runtime launch callbacks) */
    long config_index; /* sampling's index within the configuration, -1 unknown */
    int sampled;       /* 1: the profiler was started for it */
    char reason[24];   /* schema launch.profile_reason */
    /*
     * Sampled launches: FNV-1a of the function's mangled name (never 0), so
     * the writer tells the program's kernel record from another kernel
     * CUPTI runs under the same correlation id (WaitNs under user replay).
     */
    uint64_t name_hash;
    /* sampled launches: pointer arguments into page-locked host memory (hostargs.h) */
    struct hostargs host;
    char nvtx_path[REC_NVTX_PATH_MAX];
};

struct rec_copy {
    uint32_t corr, rt_corr;
    uint64_t src, dst;
    int is_async;
    char api[40];
};

struct rec_failure {
    uint64_t func; /* CUfunction, for the writer's attribute query */
    int error_code;
    uint32_t grid[3], block[3], dynamic_smem_bytes;
    char api[40];
    char name[REC_NAME_MAX];
};

struct rec_nvtx {
    uint64_t id;        /* nvtx_range.id */
    uint64_t parent_id; /* 0 = none */
    int depth;          /* -1 for start/end ranges */
    int has_thread;
    char domain[40];
    char name[REC_NVTX_NAME_MAX];
};

struct rec_device {
    int device_id;
    char chip[16];
};

struct rec_cubin {
    void *data; /* malloc'd copy, owned by the writer once queued */
    size_t size;
};

struct rec_profile {
    uint32_t corr; /* driver correlation id of the launch */
    int ok;        /* 1: values valid; 0: batch dropped */
    int passes;
    int n; /* values */
    int64_t overhead_ns;
    int span;                 /* a kept session's user range: its elapsed time spans the gap from
                                 its push to the kernel (the writer rescales: write_profile()) */
    const char *const *names; /* metric names, owned by a host object that outlives the writer */
    char set[METRICS_SET_NAME_MAX]; /* profile.metric_set (metrics_set_name()) */
    double values[REC_MAX_METRICS];
};

/*
 * The instrumentation engine's per-instruction counts of one launch
 * (engine_sass.c): one allocation, freed by the writer (sass_batch_free).
 * Record i is instruction pc[i] of function names[fn[i]] in the cubin
 * crc[i]; its values are values[i * nm .. i * nm + nm - 1], one per
 * metric of `metrics` (static names).
 */
struct sass_batch {
    size_t n, nm, nnames;
    const char *const *metrics;
    uint32_t *crc, *pc, *fn;
    char **names;
    uint64_t *values;
};
void sass_batch_free(struct sass_batch *b);

/*
 * A kept range-profiler session's decoded counter-data image
 * (engine_rangeprof.c, GPUHIER_DIAG_SESSION=kept): one allocation, handed
 * to the writer as REC_PROFILE_IMAGE, which evaluates range i into the
 * REC_PROFILE of launch corr[i] (img->evaluate) and frees it
 * (img->release), calls that engine_rangeprof.c fills in. The group's host object is evaluated only there:
 * one object is not thread-safe (metrics.h), and a kept group's images
 * are evaluated by the writer thread alone.
 */
struct prof_image {
    size_t nranges;
    /* range i's REC_PROFILE into *out; 0 when the range is to be skipped (a failed launch) */
    int (*evaluate)(struct prof_image *img, size_t i, struct rec_profile *out);
    void (*release)(struct prof_image *img);
};

struct rec_sass {
    uint32_t corr; /* the launch's driver correlation id (a graph launch: the cuGraphLaunch's) */
    int is_graph; /* 1: the counts of a graph launch's kernel nodes, every function's (REC_GRAPH) */
    int64_t overhead_ns;
    char reason[24]; /* the sampling's reason (inst_launch.reason): first_of_config, ... */
    struct sass_batch *batch;
};

/*
 * REC_GRAPH: kernel records carrying `corr` ran instrumented (writer.c
 * "graph launches"); with `ranged`, the range profiler served the graph
 * launch instead, and a kernel record under `corr` without a graph id is
 * CUPTI's own (foreign_kernel()).
 */
struct rec_graph {
    uint32_t corr; /* the cuGraphLaunch's correlation id */
    int ranged;
};
struct rec_meta {
    char key[32];
    char value[200];
};

struct rec_test {
    int producer;
    long seq;
};

struct rec {
    uint32_t type;
    uint32_t tid;     /* OS thread id of the producer */
    uint64_t time_ns; /* CUPTI timestamp (or CLOCK_REALTIME); REC_LAUNCH: API time, profiled only */
    union {
        struct rec_event event;
        struct rec_launch launch;
        struct rec_copy copy;
        struct rec_failure failure;
        struct rec_nvtx nvtx;
        struct rec_device device;
        struct rec_cubin cubin;
        struct rec_profile profile;
        struct rec_sass sass;
        struct prof_image *image; /* REC_PROFILE_IMAGE */
        struct rec_graph graph;
        struct rec_test test;
        struct rec_meta meta;
        char limited[400];
    } u;
};

/* --------------------------------------------- CUPTI and driver by dlsym */

/* clang-format off: one entry per line (clang-format reflows this macro differently on every run) */
#define GH_CUPTI_FNS(X)                                                                            \
    X(cuptiGetResultString)                                                                        \
    X(cuptiGetVersion)                                                                             \
    X(cuptiSubscribe)                                                                              \
    X(cuptiSubscribe_v2)                                                                           \
    X(cuptiUnsubscribe)                                                                            \
    X(cuptiEnableCallback)                                                                         \
    X(cuptiEnableDomain)                                                                           \
    X(cuptiActivityEnable)                                                                         \
    X(cuptiActivityDisable)                                                                        \
    X(cuptiActivityRegisterCallbacks)                                                              \
    X(cuptiActivityGetNextRecord)                                                                  \
    X(cuptiActivityFlushAll)                                                                       \
    X(cuptiActivityGetNumDroppedRecords)                                                           \
    X(cuptiActivityFlushPeriod)                                                                    \
    X(cuptiActivityConfigureUnifiedMemoryCounter)                                                  \
    X(cuptiActivitySetAttribute)                                                                   \
    X(cuptiGetTimestamp)                                                                           \
    X(cuptiGetDeviceId)                                                                            \
    X(cuptiGetContextId)                                                                           \
    X(cuptiGetSassToSourceCorrelation)                                                             \
    X(cuptiDeviceGetChipName)                                                                      \
    X(cuptiProfilerInitialize)                                                                     \
    X(cuptiProfilerDeviceSupported)                                                                \
    X(cuptiProfilerGetCounterAvailability)                                                         \
    X(cuptiRangeProfilerEnable)                                                                    \
    X(cuptiRangeProfilerDisable)                                                                   \
    X(cuptiRangeProfilerGetCounterDataSize)                                                        \
    X(cuptiRangeProfilerCounterDataImageInitialize)                                                \
    X(cuptiRangeProfilerSetConfig)                                                                 \
    X(cuptiRangeProfilerStart)                                                                     \
    X(cuptiRangeProfilerStop)                                                                      \
    X(cuptiRangeProfilerDecodeData)                                                                \
    X(cuptiRangeProfilerGetCounterDataInfo)                                                        \
    X(cuptiRangeProfilerCounterDataGetRangeInfo)                                                   \
    X(cuptiRangeProfilerPushRange)                                                                 \
    X(cuptiRangeProfilerPopRange)                                                                  \
    X(cuptiSassMetricsGetProperties)                                                               \
    X(cuptiSassMetricsSetConfig)                                                                   \
    X(cuptiSassMetricsUnsetConfig)                                                                 \
    X(cuptiSassMetricsEnable)                                                                      \
    X(cuptiSassMetricsDisable)                                                                     \
    X(cuptiSassMetricsGetDataProperties)                                                           \
    X(cuptiSassMetricsFlushData)                                                                   \
    X(cuptiGetCubinCrc)
/* clang-format on */

/* clang-format off */
#define GH_CU_FNS(X)                                                                               \
    X(cuDeviceGetAttribute)                                                                        \
    X(cuDeviceGetName)                                                                             \
    X(cuDeviceTotalMem_v2)                                                                         \
    X(cuDriverGetVersion)                                                                          \
    X(cuFuncGetAttribute)                                                                          \
    X(cuFuncSetAttribute)                                                                          \
    X(cuDeviceGetUuid_v2)                                                                          \
    X(cuGetErrorName)                                                                              \
    X(cuCtxGetLimit)                                                                               \
    X(cuCtxSetLimit)                                                                               \
    X(cuCtxGetDevice)                                                                              \
    X(cuCtxSynchronize)                                                                            \
    X(cuModuleLoadData)                                                                            \
    X(cuModuleGetFunction)                                                                         \
    X(cuMemAlloc_v2)                                                                               \
    X(cuLaunchKernel)                                                                              \
    X(cuCtxPushCurrent_v2)                                                                         \
    X(cuCtxPopCurrent_v2)                                                                          \
    X(cuFuncGetName)                                                                               \
    X(cuFuncGetParamInfo)                                                                          \
    X(cuKernelGetParamInfo)                                                                        \
    X(cuPointerGetAttribute)                                                                       \
    X(cuKernelGetFunction)                                                                         \
    X(cuGraphGetNodes)                                                                             \
    X(cuGraphGetEdges_v2)                                                                          \
    X(cuGraphNodeGetType)                                                                          \
    X(cuGraphChildGraphNodeGetGraph)                                                               \
    X(cuGraphKernelNodeGetParams_v2)                                                               \
    X(cuGraphKernelNodeGetAttribute)
/* clang-format on */

#define GH_DECL(f) __typeof__(f) *f;
struct gh_api {
    GH_CUPTI_FNS(GH_DECL)
    GH_CU_FNS(GH_DECL)
};
#undef GH_DECL

/* Filled by collector.c once CUPTI and libcuda are open; zero before. */
extern struct gh_api gh;

/* ------------------------------------------------------------- the process */

/*
 * What collector.c's initialize() settled, for the files that close the
 * report (exit.c): whether it got the writer running (set once, never
 * cleared), the pid that initialized (a forked child has another), the
 * report's absolute path ("" before the claim). Any thread.
 */
int collector_initialized(void);
pid_t collector_pid(void);
const char *collector_path(void);

/*
 * Appends `line` to GPUHIER_SESSION_FILE (nothing when unset), with
 * SIGXFSZ blocked: RLIMIT_FSIZE never kills the program for it.
 */
void session_line(const char *line);

/* ------------------------------------------------------------- callbacks */

/*
 * The CUPTI callbacks callbacks.c enables, listed here so that a CPU test
 * (test_collector_callbacks) checks them. Every enabled callback costs
 * CUPTI's dispatch (building its callback data, calling us) on every call
 * of that API, ENTER and EXIT, so only what the schema needs is enabled.
 *
 * Kernel launches are hooked in the driver only: a runtime launch
 * (`<<<>>>`, cudaLaunchKernel, CUDA 13's __cudaLaunchKernel) calls
 * cuLaunchKernel(Ex), whose callback records the launch, and whose EXIT
 * records a failed launch (a runtime launch that the driver refuses, e.g.
 * > 48 KB dynamic shared memory without the opt-in, fails in
 * cuLaunchKernel). Kernel records carry the driver call's correlation id
 * (H200, 47,616 of 47,616 PyTorch kernels): the runtime launch callbacks,
 * which only kept the runtime id, are gone (docs/collector.md).
 */

/*
 * Driver API, always: launches (records, failures), copies (pointers),
 * context teardown (flush). The launch APIs come first (GH_CB_DRIVER_LAUNCHES).
 */
#define GH_CB_DRIVER_LAUNCHES 6
static const CUpti_CallbackId gh_cb_driver[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2,
    /*
     * Memory CUPTI's MEMORY2 records may not include (virtual-memory
     * mappings, other processes' memory, graph memory nodes): after one
     * success meta alloc_tracking stops saying 'on'. Rare calls, never hot.
     */
    CUPTI_DRIVER_TRACE_CBID_cuMemMap,
    CUPTI_DRIVER_TRACE_CBID_cuIpcOpenMemHandle,
    CUPTI_DRIVER_TRACE_CBID_cuIpcOpenMemHandle_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemImportFromShareableHandle,
    CUPTI_DRIVER_TRACE_CBID_cuMemPoolImportPointer,
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddMemAllocNode,
};

/*
 * Driver API, profile mode only: stream capture (no profiling while a
 * capture is open) and graph launches (the profiler is disabled first).
 * Trace mode never starts the profiler, so it needs neither.
 */
static const CUpti_CallbackId gh_cb_driver_profile[] = {
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

/*
 * Driver API, GPUHIER_DIAG_SASS_GRAPHS=instantiate only: a graph made
 * executable, the instrumentation engine's window (engine_sass.c).
 */
static const CUpti_CallbackId gh_cb_driver_instantiate[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz,
};

/* Runtime API, always: copies (pointers and API name) and cudaDeviceReset (flush). No launches. */
static const CUpti_CallbackId gh_cb_runtime[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020,
};

/* Runtime API, profile mode only: stream capture. */
static const CUpti_CallbackId gh_cb_runtime_profile[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000,
};

/*
 * NVTX: the calls on_nvtx handles (push/pop, start/end, domain names,
 * registered strings), not the whole domain (marks, naming, categories
 * ... never call back). If CUPTI refuses one, the whole domain is enabled.
 */
static const CUpti_CallbackId gh_cb_nvtx[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,
    CUPTI_CBID_NVTX_nvtxRangePushW,
    CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangePop,
    CUPTI_CBID_NVTX_nvtxDomainRangePop,
    CUPTI_CBID_NVTX_nvtxRangeStartA,
    CUPTI_CBID_NVTX_nvtxRangeStartEx,
    CUPTI_CBID_NVTX_nvtxDomainRangeStartEx,
    CUPTI_CBID_NVTX_nvtxRangeEnd,
    CUPTI_CBID_NVTX_nvtxDomainRangeEnd,
    CUPTI_CBID_NVTX_nvtxDomainCreateA,
    CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
    CUPTI_CBID_NVTX_nvtxDomainRegisterStringW,
};

#define GH_NCB(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------- writer */

/*
 * The writer owns the report: one thread drains the record queue and the
 * activity-buffer ring into SQLite. Callbacks only call writer_push*.
 */
struct writer_run_info {
    const char *mode;            /* "trace" or "profile" */
    const char *options_json;    /* JSON object text, borrowed */
    const char *metric_set_json; /* JSON array text or NULL */
    int cupti_version;
    int driver_version;
};

/*
 * Creates the report at `path` (store_create; the caller decided about
 * overwriting), writes the run row and starts the writer thread.
 * Queue of `slots` records. Returns 0 or -1 with a message in err.
 * All SQLite work, from the creation to the close in writer_stop, runs on
 * the writer thread, which blocks every signal: a write past RLIMIT_FSIZE
 * fails with EFBIG there instead of SIGXFSZ killing the program. From
 * this call on gh_say writes to a copy of fd 2 (see gh_say).
 */
int writer_start(const char *path, const struct writer_run_info *ri, size_t slots, char *err,
                 size_t errlen);

/*
 * Queues a record (fills tid/time if zero, except for REC_LAUNCH and
 * REC_COPY, whose tid/time the writer never reads). 0 or -1 (dropped,
 * counted).
 */
int writer_push(struct rec *r);

/*
 * As writer_push(), copying only the first `n` bytes of `r` (the header
 * and the union member in use): the launch path copies ~330 bytes, not
 * the whole record. The slot's remaining bytes are stale; handlers read
 * only the member of their type.
 */
int writer_push_n(struct rec *r, size_t n);

/*
 * Hands a completed CUPTI activity buffer to the writer, which parses it
 * and gives it back with `release(buf)`. Never blocks.
 */
void writer_push_buffer(uint8_t *buf, size_t valid, void (*release)(uint8_t *buf));

/* Adds to run.activity_dropped. */
void writer_add_activity_dropped(uint64_t n);

/* Wakes the writer so it commits soon (async-signal-safe). */
void writer_wake(void);

/* Asks the writer to commit now and waits up to `ms` (not from a signal handler). */
void writer_sync(int ms);

/*
 * Drains everything, writes end_ns/clean_exit, checkpoints the WAL into
 * the main file (journal_mode=DELETE) and closes. Joins the thread.
 */
void writer_stop(int clean_exit);

/* Whether the writer is running. */
int writer_active(void);

/*
 * Benchmarks only (bench/collector_push_bench.c): how many queued records
 * wake the writer early (default: an eighth of the queue; 1 = every push,
 * the old behaviour). Call after writer_start.
 */
void writer_set_wake_fill(size_t n);

/*
 * Called by the writer thread for every traced kernel record with GPU
 * times (not the profiled launches, whose records never complete, nor
 * graph kernel nodes, which have no launch callback): the kernel's
 * mangled name, geometry and duration. --profile-budget ranks
 * configurations by it (sampler.c). NULL (the default): not called.
 */
typedef void (*writer_gpu_time_fn)(const char *mangled, const uint32_t grid[3],
                                   const uint32_t block[3], uint32_t dynamic_smem, int64_t ns);
void writer_set_gpu_time_hook(writer_gpu_time_fn fn);

/* Counters for the session summary. */
struct writer_stats {
    uint64_t launches, profiled, dropped, ranges_dropped, copies;
    uint64_t lost_after_error; /* records not in the report because the writer failed */
};
void writer_stats(struct writer_stats *s);

/*
 * The writer's first failure (an SQLite call that did not succeed, or the
 * report's file removed while the program ran), as "cannot write report
 * '<path>': <what>: <why>", or NULL while there is none. It was said once
 * on stderr when it happened; after it the writer writes nothing more but
 * drains the queue and counts writer_stats.lost_after_error, and at stop
 * leaves an `event` 'writer_error' if the file still takes a write
 * (docs/collector.md "When the writer fails"). The string stays valid
 * until the next writer_start. Any thread.
 */
const char *writer_error(void);

/*
 * The report's path as writer_start made it absolute (against the
 * working directory at the call), so that it names the same file after
 * the program changes directory. NULL before the first writer_start.
 */
const char *writer_path(void);

/*
 * One `==gpuhier==` line on stderr unless gh_quiet (GPUHIER_QUIET). Never stdout.
 * After writer_start, on the copy of fd 2 it took: a program that closes
 * fd 2 and opens a file there does not get our lines in it.
 */
extern int gh_quiet;
extern int gh_debug; /* GPUHIER_DEBUG: the writer reports each batch on stderr */
void gh_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copies at most n-1 bytes of src and terminates (truncating is intended). */
static inline void
gh_copy(char *dst, size_t n, const char *src)
{
    size_t l = 0;
    if (!n)
        return;
    if (src)
        while (l + 1 < n && src[l])
            l++;
    if (l)
        __builtin_memcpy(dst, src, l);
    dst[l] = 0;
}

/* FNV-1a of a function name, never 0 (0: unknown); rec_launch.name_hash. */
static inline uint64_t
gh_name_hash(const char *name)
{
    const char *s = name ? name : "";
    uint64_t h = gh_fnv1a(GH_FNV1A_BASIS, s, __builtin_strlen(s));
    return h ? h : 1;
}

/* Time helpers. */
uint64_t gh_now_ns(void); /* CUPTI timestamp when available, else CLOCK_REALTIME */
uint32_t gh_tid(void);

/* JSON helpers (json.c): append a JSON string literal for `s` to buf. */
/* Append `n` bytes of `s` as a JSON string ("escaped"); raw text goes through strbuf_adds. */
void jbuf_str(struct strbuf *b, const char *s, size_t n);
/* JSON array of the NUL-separated strings in data[0..n). New string or NULL. */
char *json_array_nul(const char *data, size_t n);

/*
 * Whether the cubin image has a .nv_debug_line_sass section (built with
 * -lineinfo): read from the ELF section headers, not by scanning the image.
 */
int gh_cubin_has_lineinfo(const void *image, size_t n);

/* Demangling (writer side): new strings, free() them. */
char *gh_demangle(const char *mangled);
char *gh_short_name(const char *demangled);

#endif
