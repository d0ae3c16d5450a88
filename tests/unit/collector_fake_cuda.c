/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for libcuda.so.1 and libcupti in one library (SONAME
 * libcuda.so.1), so the real collector runs its launch, graph, engine and
 * exit paths on a machine without a GPU (tests/e2e/t108-collector-engines.sh,
 * driven by collector_fake_host.c). Nothing here is a measurement: the
 * kernels do not run, their times come from a virtual clock, and the SASS
 * metrics it returns are synthetic counts made up from the launch's
 * geometry (every report written with it is synthetic).
 *
 * What it plays:
 *   - cuInit loads CUDA_INJECTION64_PATH and calls InitializeInjection, as
 *     the driver does, then creates one context (CONTEXT_CREATED);
 *   - cuLaunchKernel and cuGraphLaunch call the subscriber's driver
 *     callbacks (ENTER, EXIT) when enabled, and queue one kernel activity
 *     record per kernel (graph nodes: graphId and the graph launch's
 *     correlation id), handed over at cuptiActivityFlushAll;
 *   - the SASS metrics API, with CUPTI's documented refusals (SetConfig
 *     twice without UnsetConfig, Enable twice, data outside an enabled
 *     range: CUPTI_ERROR_INVALID_OPERATION): while enabled, every kernel
 *     run adds records for two pcs of its function; and as the H200 answered
 *     (2026-12-01, docs/collector.md "Both engines in one process"): a
 *     second SetConfig in the process, even after UnsetConfig, returns
 *     CUPTI_ERROR_OUT_OF_MEMORY (an answer, not a violation), and
 *     cuptiRangeProfilerStart while a SASS metrics config is set counts a
 *     violation when the activity records are in device memory (it
 *     deadlocked inside CUPTI on the device then; with them in pinned
 *     host memory it ran, 2026-12-02);
 *   - the profiler entry points before the range profiler's permission
 *     probe (which the tests fault, GPUHIER_FAULT); the range profiler
 *     itself answers CUPTI_ERROR_NOT_SUPPORTED unless FAKE_RANGEPROF=1,
 *     then it plays one-pass sessions of auto or user ranges, and the
 *     Profiler Host API with synthetic values (see "The range profiler"
 *     below).
 *
 *   - kernel activity as the H200 answered it: CONCURRENT_KERNEL refused
 *     (CUPTI_ERROR_NOT_COMPATIBLE) while SASS metrics are enabled, and once
 *     on, SASS metrics count nothing; CUPTI_ACTIVITY_KIND_KERNEL does not
 *     stop them, and the records then carry that kind. Either kind can be
 *     turned off again (cuptiActivityDisable). A kernel launched while
 *     neither kind is on gets no record, as on the H200 (2026-12-05: a
 *     launch of another thread between the two calls of a kind swap had
 *     none, docs/collector.md "Kernel tracing beside the instrumentation
 *     engine").
 *
 * Test knobs: FAKE_SASS_HANG_MS=N makes cuptiSassMetricsEnable sleep N ms
 * (-1: forever), FAKE_SASS_NONE=1 makes the chip have no SASS metrics,
 * FAKE_RANGEPROF_START_MS=N makes cuptiRangeProfilerStart sleep N ms (a
 * long kernel's replay, say), FAKE_FLUSH_WAITS=1 makes cuptiActivityFlushAll
 * wait while an Enable hangs (a CUPTI lock the stuck call holds),
 * FAKE_SWAP_GAP_US=N makes cuptiActivityDisable of a kernel kind return N us
 * after the kind went off (a kind swap's gap, widened so that another
 * thread's launch falls into it).
 * FAKE_COST=KEY=MS,... is a cost model for bench/policy_sim.py: the named
 * calls sleep that long (see cost() below; nothing here measures a cost).
 * fake_kernel_ns(NS) gives the next kernel launched its duration on the
 * virtual clock (10 us otherwise). FAKE_PASS_METRICS=N: a config image of
 * more than N metrics takes several passes (the Profiler Host API's answer),
 * so the one-pass plan has several groups (8 as on GH100 with N = 8).
 * fake_violations() counts the calls CUPTI would have refused (or that
 * hung on the device); fake_sass_configs() and fake_sass_unsets() count
 * the SASS SetConfig and UnsetConfig calls.
 */
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_PENDING 4096
#define MAX_SASS 4096
#define MAX_METRICS 64
#define FAKE_GRAPH_NODES 64

/* A fake function (CUfunction) and an executable graph (CUgraphExec). */
struct fake_func {
    char name[2048];
};
struct fake_graph {
    uint32_t id;
    int n;
    struct fake_func *nodes[FAKE_GRAPH_NODES];
    int patched; /* instantiated while SASS metrics were enabled (cuGraphInstantiateWithFlags) */
};

static struct {
    pthread_mutex_t lock;
    CUpti_CallbackFunc cb;
    void *cb_ud;
    uint8_t enabled[8][1024]; /* domain x callback id */
    CUpti_BuffersCallbackRequestFunc req;
    CUpti_BuffersCallbackCompleteFunc done;
    CUpti_ActivityKernel10 pending[MAX_PENDING];
    size_t npending;
    uint32_t corr;
    uint64_t clock_ns;
    uint32_t grid_id;
    /* SASS metrics */
    const char *metric_names[MAX_METRICS];
    size_t nmetric_names;
    uint64_t config[MAX_METRICS];
    size_t nconfig;
    int configured, sass_enabled;
    int unpatched_nodes; /* a graph launch of an executable not instantiated under SASS metrics */
    int host_pinned;     /* activity records in pinned host memory (SetAttribute) */
    int concurrent_on;   /* CONCURRENT_KERNEL activity enabled: SASS values stay 0 */
    CUpti_ActivityKind kernel_kind; /* the kind the kernel records carry (CONCURRENT_KERNEL) */
    struct sass {
        const struct fake_func *f;
        uint32_t pc;
        uint64_t metric, value;
    } sass[MAX_SASS];
    size_t nsass;
    atomic_int violations;
    atomic_int sass_sets, sass_unsets; /* SetConfig and UnsetConfig calls */
    atomic_int sass_enables;           /* Enable calls that succeeded */
    atomic_int patched_runs;           /* stream launches run while SASS metrics were enabled */
    atomic_int untraced; /* kernels that got no record: no kernel kind on, or the queue full */
} F = {.lock = PTHREAD_MUTEX_INITIALIZER};
/* Enables now sleeping in FAKE_SASS_HANG_MS (FAKE_FLUSH_WAITS). */
static atomic_int fake_hanging, fake_in_flush; /* and flushes inside cuptiActivityFlushAll */

static void *the_ctx = (void *)0x1000;

/*
 * The cost model of FAKE_COST (bench/policy_sim.py sets it from what the
 * H200 measured): each key the milliseconds a call sleeps, outside the
 * fake's lock. rp_enable_first and rp_enable: cuptiRangeProfilerEnable, the
 * process's first and later ones; rp_config: SetConfig; rp_start: Start;
 * rp_range: each PopRange (the range's push, pop and the collector's
 * synchronizations); rp_decode: DecodeData; sass_enable, sass_flush,
 * sass_disable: those SASS metrics calls; sass_run: each kernel run while
 * SASS metrics are enabled (lazy patching and the patched run), or
 * sass_run_x times the kernel's duration when that is longer (a patched
 * kernel runs 30-100 times slower on the H200); trace: each kernel run
 * while kernel activity is on (CUPTI's tracing).
 */
enum fake_cost {
    COST_RP_ENABLE_FIRST,
    COST_RP_ENABLE,
    COST_RP_CONFIG,
    COST_RP_START,
    COST_RP_RANGE,
    COST_RP_DECODE,
    COST_SASS_ENABLE,
    COST_SASS_RUN,
    COST_SASS_FLUSH,
    COST_SASS_DISABLE,
    COST_TRACE,
    COST_SASS_RUN_X,
    COST_N
};
static const char *const cost_keys[COST_N] = {
    [COST_RP_ENABLE_FIRST] = "rp_enable_first",
    [COST_RP_ENABLE] = "rp_enable",
    [COST_RP_CONFIG] = "rp_config",
    [COST_RP_START] = "rp_start",
    [COST_RP_RANGE] = "rp_range",
    [COST_RP_DECODE] = "rp_decode",
    [COST_SASS_ENABLE] = "sass_enable",
    [COST_SASS_RUN] = "sass_run",
    [COST_SASS_FLUSH] = "sass_flush",
    [COST_SASS_DISABLE] = "sass_disable",
    [COST_TRACE] = "trace",
    [COST_SASS_RUN_X] = "sass_run_x",
};
_Static_assert(COST_SASS_RUN_X == COST_N - 1, "every cost has its key");
static double cost_ms[COST_N];
static pthread_once_t cost_once = PTHREAD_ONCE_INIT;

static void
cost_parse(void)
{
    const char *v = getenv("FAKE_COST");
    while (v && *v) {
        const char *eq = strchr(v, '='), *end = strchr(v, ',');
        if (!end)
            end = v + strlen(v);
        for (int c = 0; eq && eq < end && c < COST_N; c++)
            if ((size_t)(eq - v) == strlen(cost_keys[c]) && !strncmp(v, cost_keys[c], eq - v))
                cost_ms[c] = strtod(eq + 1, NULL);
        v = *end ? end + 1 : end;
    }
}

/*
 * Sleeps what the cost model says call `c` takes (never with F.lock held); for
 * COST_SASS_RUN at least sass_run_x times `kernel_ns`, the patched kernel's run.
 */
static void
cost_of(enum fake_cost c, long long kernel_ns)
{
    pthread_once(&cost_once, cost_parse);
    long long ns = (long long)(cost_ms[c] * 1e6);
    if (c == COST_SASS_RUN && (long long)(cost_ms[COST_SASS_RUN_X] * kernel_ns) > ns)
        ns = (long long)(cost_ms[COST_SASS_RUN_X] * kernel_ns);
    if (ns <= 0)
        return;
    struct timespec ts = {ns / 1000000000LL, ns % 1000000000LL};
    while (nanosleep(&ts, &ts))
        ;
}

static void
cost(enum fake_cost c)
{
    cost_of(c, 0);
}

/* What one kernel run `ns` long costs beside it: traced, patched (SASS metrics), or both. */
static void
cost_run(int traced, int patched, long long ns)
{
    if (traced)
        cost(COST_TRACE);
    if (patched)
        cost_of(COST_SASS_RUN, ns);
}

static _Thread_local uint64_t next_kernel_ns;

/* The next kernel this thread launches runs `ns` on the virtual clock (bench/policy_sim.py). */
EXPORT void
fake_kernel_ns(uint64_t ns)
{
    next_kernel_ns = ns;
}

/* This thread's next kernel's duration (10 us unless fake_kernel_ns() gave one). */
static uint64_t
kernel_ns(void)
{
    return next_kernel_ns ? next_kernel_ns : 10000;
}
static int rp_on(void);
static void rp_kernel(const unsigned grid[3], uint32_t graph_id);
static void waitns_kernel(uint32_t corr);

EXPORT int
fake_violations(void)
{
    return atomic_load(&F.violations);
}

EXPORT int
fake_sass_configs(void)
{
    return atomic_load(&F.sass_sets);
}

EXPORT int
fake_sass_unsets(void)
{
    return atomic_load(&F.sass_unsets);
}

EXPORT int
fake_sass_enables(void)
{
    return atomic_load(&F.sass_enables);
}

/*
 * Kernels that got no record: run while no kernel kind was on (the gap of a
 * kind swap the launch gate should close), and records the full queue dropped.
 */
EXPORT int
fake_untraced_kernels(void)
{
    return atomic_load(&F.untraced);
}

/* Stream launches that ran while SASS metrics were enabled: patched, at a patched run's cost. */
EXPORT int
fake_patched_runs(void)
{
    return atomic_load(&F.patched_runs);
}

static void
violation(const char *what)
{
    atomic_fetch_add(&F.violations, 1);
    fprintf(stderr, "fake CUPTI: %s\n", what);
}

/* ------------------------------------------------------------ driver */

EXPORT CUresult
cuDriverGetVersion(int *v)
{
    *v = 13000;
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *v = 132;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *v = 9;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *v = 0;
        break;
    default:
        *v = 0;
        break;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuDeviceGetName(char *name, int len, CUdevice d)
{
    (void)d;
    snprintf(name, (size_t)len, "Fake GPU (no hardware)");
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
    (void)d;
    *bytes = (size_t)1 << 30;
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuGetErrorName(CUresult rc, const char **s)
{
    *s = rc ? "CUDA_ERROR_FAKE" : "CUDA_SUCCESS";
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuCtxGetDevice(CUdevice *d)
{
    *d = 0;
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuCtxSynchronize(void)
{
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuCtxPushCurrent_v2(CUcontext c)
{
    (void)c;
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuCtxPopCurrent_v2(CUcontext *c)
{
    if (c)
        *c = the_ctx;
    return CUDA_SUCCESS;
}

static _Thread_local int in_callback;

static void
callback(CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    if (F.cb && dom < 8 && id < 1024 && F.enabled[dom][id]) {
        in_callback++;
        F.cb(F.cb_ud, dom, id, data);
        in_callback--;
    }
}

EXPORT CUresult
cuInit(unsigned flags)
{
    (void)flags;
    static int done;
    if (done++)
        return CUDA_SUCCESS;
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    void *h = inj && *inj ? dlopen(inj, RTLD_NOW | RTLD_GLOBAL) : NULL;
    int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
    if (init)
        init();
    CUpti_ResourceData rd = {.context = the_ctx};
    callback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &rd);
    return CUDA_SUCCESS;
}

/*
 * The program's side: cudaDeviceReset. CONTEXT_DESTROY_STARTING to the
 * subscriber, then the context is gone: a SASS metrics config still set
 * then counts as a violation (on the H200 every such run died by SIGSEGV
 * at exit, 2026-12-03: bench/stress row devreset under both engines).
 */
static CUpti_CallbackData driver_call(const char *name, void *params, CUresult *ret);

EXPORT void
fake_context_destroy(void)
{
    /* the runtime API call's ENTER first, then the resource callback inside it */
    cudaError_t ret = cudaSuccess;
    CUpti_CallbackData api = driver_call("cudaDeviceReset", NULL, NULL);
    api.functionReturnValue = &ret;
    callback(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, &api);
    pthread_mutex_lock(&F.lock);
    int enabled = F.sass_enabled;
    pthread_mutex_unlock(&F.lock);
    /* the collector's rule, kept by the fake: no SASS metrics Disable in a resource callback */
    if (enabled)
        violation("the context's destruction began with SASS metrics enabled");
    CUpti_ResourceData rd = {.context = the_ctx};
    callback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &rd);
    pthread_mutex_lock(&F.lock);
    int set = F.configured;
    pthread_mutex_unlock(&F.lock);
    if (set)
        violation("the context destroyed while a SASS metrics config is set (the H200 died by "
                  "SIGSEGV at exit)");
    api.callbackSite = CUPTI_API_EXIT;
    callback(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, &api);
}

/* The program's side: a function by name (never freed: CUfunctions live as long as modules). */
EXPORT CUfunction
fake_function(const char *name)
{
    struct fake_func *f = calloc(1, sizeof(*f));
    snprintf(f->name, sizeof(f->name), "%s", name);
    return (CUfunction)f;
}

/* A graph of `n` kernel nodes (instantiate it with cuGraphInstantiateWithFlags, or launch it as
   it is: then it was made before any SASS metrics were enabled). */
EXPORT CUgraphExec
fake_graph(int n, CUfunction *nodes)
{
    static uint32_t ids;
    struct fake_graph *g = calloc(1, sizeof(*g));
    g->id = ++ids;
    g->n = n < FAKE_GRAPH_NODES ? n : FAKE_GRAPH_NODES;
    for (int i = 0; i < g->n; i++)
        g->nodes[i] = (struct fake_func *)nodes[i];
    return (CUgraphExec)g;
}

/* Page-locked host memory of the fake: 1 MB at FAKE_HOST_MEMORY (collector/hostargs.c's queries). */
#define FAKE_HOST_MEMORY 0x7f0000000000ull

/*
 * A launch's parameters as the runtime's CUkernel gives them (cuFuncGetParamInfo is left out, see
 * below): a function whose name holds "hostarg" takes (const float *, float *, int), the others none.
 */
EXPORT CUresult
cuKernelGetParamInfo(CUkernel k, size_t i, size_t *off, size_t *size)
{
    static const size_t sizes[] = {8, 8, 4};
    if (!k || !strstr(((const struct fake_func *)k)->name, "hostarg") || i >= 3)
        return CUDA_ERROR_INVALID_VALUE;
    *off = 8 * i;
    *size = sizes[i];
    return CUDA_SUCCESS;
}

/* FAKE_HOST_MEMORY's megabyte is host memory; addresses from 8 GB up to it, device memory. */
EXPORT CUresult
cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr p)
{
    int host = p >= FAKE_HOST_MEMORY && p < FAKE_HOST_MEMORY + (1u << 20);
    if (!host && (p < 0x200000000ull || p >= FAKE_HOST_MEMORY))
        return CUDA_ERROR_INVALID_VALUE;
    if (attr == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) {
        *(unsigned int *)data = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    }
    if (attr == CU_POINTER_ATTRIBUTE_RANGE_SIZE && host) {
        *(size_t *)data = 1u << 20;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

/*
 * What the collector's graph scan reads (collector/graphscan.c): a template's
 * nodes are its kernel nodes, each node handle the address of its slot; a
 * function whose name holds "cluster" runs in clusters of 2 (the property
 * the scan keeps unarmed), a node whose function's name holds "conditional"
 * is a conditional node (whose body the scan cannot read). cuFuncGetParamInfo and cuGraphGetEdges are left
 * out: the scan reads no parameters and no programmatic edges without them.
 */
EXPORT CUresult
cuGraphGetNodes(CUgraph graph, CUgraphNode *nodes, size_t *n)
{
    struct fake_graph *g = (struct fake_graph *)graph;
    if (nodes)
        for (int i = 0; i < g->n && (size_t)i < *n; i++)
            nodes[i] = (CUgraphNode)&g->nodes[i];
    *n = (size_t)g->n;
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuGraphNodeGetType(CUgraphNode node, CUgraphNodeType *t)
{
    const struct fake_func *f = *(struct fake_func **)node;
    *t =
        strstr(f->name, "conditional") ? CU_GRAPH_NODE_TYPE_CONDITIONAL : CU_GRAPH_NODE_TYPE_KERNEL;
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuGraphKernelNodeGetParams_v2(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS *p)
{
    memset(p, 0, sizeof(*p));
    p->func = (CUfunction) * (struct fake_func **)node;
    p->gridDimX = 4;
    p->gridDimY = p->gridDimZ = p->blockDimY = p->blockDimZ = 1;
    p->blockDimX = 128;
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuGraphKernelNodeGetAttribute(CUgraphNode node, CUkernelNodeAttrID a, CUkernelNodeAttrValue *v)
{
    const struct fake_func *f = *(struct fake_func **)node;
    memset(v, 0, sizeof(*v));
    if (a == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION && strstr(f->name, "cluster")) {
        v->clusterDim.x = 2;
        v->clusterDim.y = v->clusterDim.z = 1;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult
cuGraphChildGraphNodeGetGraph(CUgraphNode node, CUgraph *child)
{
    (void)node;
    (void)child;
    return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult
cuFuncGetName(const char **name, CUfunction f)
{
    *name = ((const struct fake_func *)f)->name;
    return CUDA_SUCCESS;
}

static uint64_t
metric_id(const char *name)
{
    for (size_t i = 0; i < F.nmetric_names; i++)
        if (!strcmp(F.metric_names[i], name))
            return i + 1;
    return 0;
}

static int
configured_metric(uint64_t id)
{
    for (size_t i = 0; i < F.nconfig; i++)
        if (F.config[i] == id)
            return 1;
    return 0;
}

static void
sass_add(const struct fake_func *f, uint32_t pc, const char *metric, uint64_t v)
{
    uint64_t id = metric_id(metric);
    if (!id || !configured_metric(id) || !v)
        return;
    for (size_t i = 0; i < F.nsass; i++)
        if (F.sass[i].f == f && F.sass[i].pc == pc && F.sass[i].metric == id) {
            F.sass[i].value += v;
            return;
        }
    if (F.nsass < MAX_SASS)
        F.sass[F.nsass++] = (struct sass){f, pc, id, v};
}

/*
 * A kernel activity record queued (lock held), of the kind kernel activity
 * was enabled with, `ns` long on the virtual clock; NULL when the queue is full or no kernel kind is on.
 */
static CUpti_ActivityKernel10 *
kernel_record(const char *name, uint32_t corr, const unsigned grid[3], const unsigned block[3],
              uint64_t ns, uint32_t stream)
{
    if (F.npending >= MAX_PENDING || (!F.concurrent_on && !F.kernel_kind)) {
        atomic_fetch_add(&F.untraced, 1);
        return NULL;
    }
    CUpti_ActivityKernel10 *k = &F.pending[F.npending++];
    memset(k, 0, sizeof(*k));
    k->kind = F.kernel_kind ? F.kernel_kind : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k->name = name;
    k->correlationId = corr;
    k->gridX = (int32_t)grid[0];
    k->gridY = (int32_t)grid[1];
    k->gridZ = (int32_t)grid[2];
    k->blockX = (int32_t)block[0];
    k->blockY = (int32_t)block[1];
    k->blockZ = (int32_t)block[2];
    k->start = F.clock_ns + 1000;
    k->end = F.clock_ns + 1000 + ns;
    F.clock_ns += ns + 10000;
    k->contextId = 1;
    k->streamId = stream;
    k->gridId = ++F.grid_id;
    return k;
}

/*
 * One kernel "runs" (lock held): its activity record, and while SASS
 * metrics are enabled (every function runs patched: lazy patching of a
 * function at its first run in the range) its synthetic counts: a load at
 * pc 0x10, one instruction per warp, 12 sectors each when the name says
 * "strided" (4 ideal), 4 otherwise; a store at pc 0x20, 4 sectors.
 */
static void
run_kernel(const struct fake_func *f, uint32_t corr, const unsigned grid[3],
           const unsigned block[3], unsigned smem, uint32_t graph_id, uint64_t node)
{
    uint64_t ns = kernel_ns();
    CUpti_ActivityKernel10 *k = kernel_record(f->name, corr, grid, block, ns, 7);
    if (k) {
        k->dynamicSharedMemory = (int32_t)smem;
        k->registersPerThread = 32;
        k->graphId = graph_id;
        k->graphNodeId = node;
        /* as on the H200 under KIND_KERNEL: a graph launch's nodes after its first, untimed */
        if (node > 1 && F.kernel_kind == CUPTI_ACTIVITY_KIND_KERNEL)
            k->start = k->end = 0;
    }
    rp_kernel(grid, graph_id);
    /*
     * As on the H200 (docs/sassprobe.md "Graph launches"): a graph's kernel
     * nodes run patched only when the executable graph was made while SASS
     * metrics were enabled.
     */
    if (!F.sass_enabled || F.concurrent_on || (graph_id && F.unpatched_nodes))
        return;
    uint64_t warps =
        (uint64_t)grid[0] * grid[1] * grid[2] * ((block[0] * block[1] * block[2] + 31) / 32);
    int strided = strstr(f->name, "strided") != NULL;
    sass_add(f, 0x10, "smsp__sass_inst_executed", warps);
    sass_add(f, 0x10, "smsp__sass_inst_executed_op_global_ld", warps);
    sass_add(f, 0x10, "smsp__sass_sectors_mem_global", warps * (strided ? 12 : 4));
    sass_add(f, 0x10, "smsp__sass_sectors_mem_global_ideal", warps * 4);
    sass_add(f, 0x20, "smsp__sass_inst_executed", warps);
    sass_add(f, 0x20, "smsp__sass_inst_executed_op_global_st", warps);
    sass_add(f, 0x20, "smsp__sass_sectors_mem_global", warps * 4);
    sass_add(f, 0x20, "smsp__sass_sectors_mem_global_ideal", warps * 4);
}

/* A driver call's callback data at its ENTER, with a new correlation id (its EXIT reuses it). */
static CUpti_CallbackData
driver_call(const char *name, void *params, CUresult *ret)
{
    pthread_mutex_lock(&F.lock);
    uint32_t corr = ++F.corr;
    pthread_mutex_unlock(&F.lock);
    return (CUpti_CallbackData){.callbackSite = CUPTI_API_ENTER,
                                .functionName = name,
                                .functionParams = params,
                                .functionReturnValue = ret,
                                .context = the_ctx,
                                .correlationId = corr};
}

EXPORT CUresult
cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
               unsigned bz, unsigned smem, CUstream s, void **params, void **extra)
{
    const struct fake_func *f = (const struct fake_func *)fn;
    cuLaunchKernel_params p = {fn, gx, gy, gz, bx, by, bz, smem, s, params, extra};
    CUresult ret = CUDA_SUCCESS;
    CUpti_CallbackData cb = driver_call("cuLaunchKernel", &p, &ret);
    cb.symbolName = f->name;
    uint32_t corr = cb.correlationId;
    callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
    const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    long long ns = (long long)kernel_ns();
    pthread_mutex_lock(&F.lock);
    run_kernel(f, corr, grid, block, smem, 0, 0);
    next_kernel_ns = 0;
    waitns_kernel(corr);
    int traced = F.concurrent_on || F.kernel_kind, patched = F.sass_enabled;
    pthread_mutex_unlock(&F.lock);
    if (patched)
        atomic_fetch_add(&F.patched_runs, 1);
    cost_run(traced, patched, ns);
    cb.callbackSite = CUPTI_API_EXIT;
    callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
    return ret;
}

/*
 * The program's graph (a fake_graph() template, passed as the CUgraph) made
 * executable: a copy, patched when SASS metrics are enabled by the time the
 * ENTER callback returns, as CUPTI patches a graph's kernel nodes on the H200.
 */
EXPORT CUresult
cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph graph, unsigned long long flags)
{
    cuGraphInstantiateWithFlags_params p = {out, graph, flags};
    CUresult ret = CUDA_SUCCESS;
    CUpti_CallbackData cb = driver_call("cuGraphInstantiateWithFlags", &p, &ret);
    callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags, &cb);
    struct fake_graph *g = malloc(sizeof(*g));
    if (g) {
        *g = *(const struct fake_graph *)graph;
        pthread_mutex_lock(&F.lock);
        g->patched = F.sass_enabled;
        pthread_mutex_unlock(&F.lock);
        *out = (CUgraphExec)g;
    } else {
        ret = CUDA_ERROR_OUT_OF_MEMORY;
    }
    cb.callbackSite = CUPTI_API_EXIT;
    callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags, &cb);
    return ret;
}

/* Every node a 4-block, 128-thread launch of its function, each fake_kernel_ns() long. */
EXPORT CUresult
cuGraphLaunch(CUgraphExec exec, CUstream s)
{
    const struct fake_graph *g = (const struct fake_graph *)exec;
    cuGraphLaunch_params p = {exec, s};
    CUresult ret = CUDA_SUCCESS;
    CUpti_CallbackData cb = driver_call("cuGraphLaunch", &p, &ret);
    uint32_t corr = cb.correlationId;
    callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &cb);
    const unsigned grid[3] = {4, 1, 1}, block[3] = {128, 1, 1};
    long long ns = (long long)kernel_ns();
    pthread_mutex_lock(&F.lock);
    F.unpatched_nodes = !g->patched;
    for (int i = 0; i < g->n; i++)
        run_kernel(g->nodes[i], corr, grid, block, 0, g->id, (uint64_t)i + 1);
    /* a graph launch inside a user range gets one too (the H200, 2026-12-05) */
    waitns_kernel(corr);
    F.unpatched_nodes = 0;
    int traced = F.concurrent_on || F.kernel_kind, patched = F.sass_enabled && g->patched;
    pthread_mutex_unlock(&F.lock);
    for (int i = 0; i < g->n; i++) /* the cost model, node by node */
        cost_run(traced, patched, ns);
    cb.callbackSite = CUPTI_API_EXIT;
    callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &cb);
    return ret;
}

/* ------------------------------------------------------------ CUPTI: tracing */

EXPORT CUptiResult
cuptiGetVersion(uint32_t *v)
{
    *v = 130001;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiGetResultString(CUptiResult rc, const char **s)
{
    switch (rc) {
    case CUPTI_SUCCESS:
        *s = "CUPTI_SUCCESS";
        break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        *s = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
        break;
    case CUPTI_ERROR_INVALID_OPERATION:
        *s = "CUPTI_ERROR_INVALID_OPERATION";
        break;
    case CUPTI_ERROR_NOT_SUPPORTED:
        *s = "CUPTI_ERROR_NOT_SUPPORTED";
        break;
    case CUPTI_ERROR_OUT_OF_MEMORY:
        *s = "CUPTI_ERROR_OUT_OF_MEMORY";
        break;
    default:
        *s = "CUPTI_ERROR_FAKE";
        break;
    }
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiSubscribe(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc cb, void *ud)
{
    F.cb = cb;
    F.cb_ud = ud;
    *sub = (CUpti_SubscriberHandle)&F;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiUnsubscribe(CUpti_SubscriberHandle sub)
{
    (void)sub;
    F.cb = NULL;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiEnableCallback(uint32_t on, CUpti_SubscriberHandle sub, CUpti_CallbackDomain dom,
                    CUpti_CallbackId id)
{
    (void)sub;
    if (dom >= 8 || id >= 1024)
        return CUPTI_ERROR_INVALID_PARAMETER;
    F.enabled[dom][id] = (uint8_t)on;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiEnableDomain(uint32_t on, CUpti_SubscriberHandle sub, CUpti_CallbackDomain dom)
{
    (void)on;
    (void)sub;
    (void)dom;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityEnable(CUpti_ActivityKind k)
{
    /*
     * As the H200 answered (2026-12-01, docs/sassprobe.md "Beside kernel
     * activity"): CONCURRENT_KERNEL is refused while SASS metrics are
     * enabled, and once it is on, every SASS metric value stays 0.
     */
    pthread_mutex_lock(&F.lock);
    CUptiResult rc = CUPTI_SUCCESS;
    if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && F.sass_enabled)
        rc = CUPTI_ERROR_NOT_COMPATIBLE;
    else if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        F.concurrent_on = 1;
    else if (k == CUPTI_ACTIVITY_KIND_KERNEL)
        F.kernel_kind = CUPTI_ACTIVITY_KIND_KERNEL;
    pthread_mutex_unlock(&F.lock);
    return rc;
}

/*
 * Unified-memory counters (collector/activity.c um_configure()): FAKE_UM=refuse
 * answers as a platform without the driver's unified-memory events,
 * FAKE_UM=partial takes at most the two migration kinds, FAKE_UM=two counts
 * asking for more than those two a violation (GPUHIER_UM_TRACKING=migrations
 * must ask for them alone). The counters must
 * be configured on a thread that is not inside a driver call, as CUPTI's
 * sample does after cuInit: one configured inside a launch or resource
 * callback is a violation.
 */
EXPORT CUptiResult
cuptiActivityConfigureUnifiedMemoryCounter(CUpti_ActivityUnifiedMemoryCounterConfig *config,
                                           uint32_t count)
{
    const char *um = getenv("FAKE_UM");
    if (!config || !count)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (in_callback)
        violation("cuptiActivityConfigureUnifiedMemoryCounter inside a callback");
    if (um && !strcmp(um, "refuse"))
        return CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED;
    if (um && !strcmp(um, "partial") && count > 2)
        return CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE;
    if (um && !strcmp(um, "two") && count > 2)
        violation("cuptiActivityConfigureUnifiedMemoryCounter asked for more than the migrations");
    return CUPTI_SUCCESS;
}

/* Turning a kernel kind off: CONCURRENT_KERNEL stops zeroing the counts, KIND_KERNEL's tag goes. */
EXPORT CUptiResult
cuptiActivityDisable(CUpti_ActivityKind k)
{
    pthread_mutex_lock(&F.lock);
    if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        F.concurrent_on = 0;
    else if (k == CUPTI_ACTIVITY_KIND_KERNEL)
        F.kernel_kind = 0;
    pthread_mutex_unlock(&F.lock);
    const char *gap = getenv("FAKE_SWAP_GAP_US");
    if (gap && (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || k == CUPTI_ACTIVITY_KIND_KERNEL))
        nanosleep(&(struct timespec){0, atol(gap) * 1000L}, NULL);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                               CUpti_BuffersCallbackCompleteFunc done)
{
    F.req = req;
    F.done = done;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
    uint8_t *next = *rec ? (uint8_t *)*rec + sizeof(CUpti_ActivityKernel10) : buf;
    if (next + sizeof(CUpti_ActivityKernel10) > buf + valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = (CUpti_Activity *)next;
    return CUPTI_SUCCESS;
}

/* Hands the queued kernel records to the collector, in buffers it provides. */
EXPORT CUptiResult
cuptiActivityFlushAll(uint32_t flag)
{
    (void)flag;
    /* FAKE_FLUSH_WAITS=1: a flush waits while an Enable hangs, as on a lock the stuck call holds */
    if (getenv("FAKE_FLUSH_WAITS")) {
        atomic_fetch_add(&fake_in_flush, 1);
        while (atomic_load(&fake_hanging))
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        atomic_fetch_sub(&fake_in_flush, 1);
    }
    /*
     * FAKE_HOLD_BUFFERS=N: at the first flush, N of the collector's buffers
     * are taken and kept for the whole run, as CUPTI keeps one per context
     * and stream, so that few are left for the flushes.
     */
    static atomic_int held;
    const char *hold = getenv("FAKE_HOLD_BUFFERS");
    if (hold && F.req && !atomic_exchange(&held, 1))
        for (int i = 0; i < atoi(hold); i++) {
            uint8_t *b = NULL;
            size_t sz = 0, mr = 0;
            F.req(&b, &sz, &mr);
        }
    for (;;) {
        pthread_mutex_lock(&F.lock);
        if (!F.npending || !F.req || !F.done) {
            pthread_mutex_unlock(&F.lock);
            return CUPTI_SUCCESS;
        }
        uint8_t *buf = NULL;
        size_t size = 0, maxrec = 0;
        F.req(&buf, &size, &maxrec);
        size_t fit = buf ? size / sizeof(CUpti_ActivityKernel10) : 0;
        size_t n = F.npending < fit ? F.npending : fit;
        if (buf && n)
            memcpy(buf, F.pending, n * sizeof(CUpti_ActivityKernel10));
        memmove(F.pending, F.pending + n, (F.npending - n) * sizeof(CUpti_ActivityKernel10));
        F.npending -= n;
        pthread_mutex_unlock(&F.lock);
        if (buf)
            F.done(the_ctx, 0, buf, size, n * sizeof(CUpti_ActivityKernel10));
        if (!n)
            return CUPTI_SUCCESS;
    }
}

EXPORT CUptiResult
cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *n)
{
    (void)c;
    (void)s;
    *n = 0;
    return CUPTI_SUCCESS;
}

/*
 * Where the records go (host-pinned or device buffers): accepted, as on
 * the H200, and remembered: with the records in device memory the range
 * profiler's Enable and Start while a SASS metrics config is set count a
 * violation (they deadlocked on the device then), in pinned host memory
 * they are allowed (run to the end on the device, docs/collector.md
 * "Both engines in one process").
 */
EXPORT CUptiResult
cuptiActivitySetAttribute(CUpti_ActivityAttribute a, size_t *size, void *value)
{
    if (!size || !*size)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (a == CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED) {
        F.host_pinned = value && *(const uint8_t *)value;
        return CUPTI_SUCCESS;
    }
    if (a == CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE)
        return CUPTI_SUCCESS;
    return CUPTI_ERROR_NOT_SUPPORTED;
}

EXPORT CUptiResult
cuptiActivityFlushPeriod(uint32_t ms)
{
    (void)ms;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiGetTimestamp(uint64_t *t)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiGetDeviceId(CUcontext c, uint32_t *dev)
{
    (void)c;
    *dev = 0;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiGetContextId(CUcontext c, uint32_t *id)
{
    (void)c;
    *id = 1;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
    p->pChipName = "GH100";
    return CUPTI_SUCCESS;
}

/* ------------------------------------------------------------ CUPTI: profiler */

EXPORT CUptiResult
cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
    (void)p;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params *p)
{
    p->isSupported = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    p->architecture = p->sli = p->vGpu = p->confidentialCompute = p->cmp = p->wsl =
        CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    return CUPTI_SUCCESS;
}

/* The permission probe: the tests fault it (GPUHIER_FAULT=counter_availability:...). */
EXPORT CUptiResult
cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p)
{
    (void)p;
    return rp_on() ? CUPTI_SUCCESS : CUPTI_ERROR_NOT_SUPPORTED;
}

/*
 * The range profiler, played when FAKE_RANGEPROF=1 (else it answers
 * CUPTI_ERROR_NOT_SUPPORTED, as before): one object, one pass for any
 * list of names. While started, a kernel that runs is counted in a range:
 * under auto range each kernel is a range of its own, named "0", "1", ...;
 * under user range the pushed range counts what runs between its push and
 * its pop, and a kernel outside every range is not counted. DecodeData
 * copies the ranges into the counter-data image (at most
 * maxRangesPerPass and what the image has room for; the rest are
 * dropped, numOfRangeDropped). The synthetic values (nothing is
 * measured): sm__ctas_launched.sum is the sum of the range's kernels'
 * grids, every other metric the number of kernels in the range, so a
 * test sees a launch that landed in another launch's range. Refused as
 * CUPTI refuses (each also counted in fake_violations()): user range
 * with kernel replay, push or pop under auto range, a pop without a push,
 * a nesting deeper than configured, Start twice or Stop without Start,
 * SetConfig or DecodeData while started, a call on an object not enabled.
 */
#define RP_MAX_RANGES 256
#define RP_MAGIC 0x46414b45u

struct rp_range {
    char name[32];
    uint64_t kernels, blocks;
};
/* The counter-data image's layout in this fake: a header, then the ranges. */
struct rp_image {
    uint32_t magic;
    uint32_t cap, n;
    struct rp_range r[];
};

static struct {
    int enabled, started, configured;
    CUpti_ProfilerRange range;
    CUpti_ProfilerReplayMode replay;
    size_t max_ranges;
    struct rp_image *img;
    size_t img_size;
    int depth; /* user ranges open */
    struct rp_range hw[RP_MAX_RANGES];
    size_t nhw, dropped, auto_index;
    int graph_auto; /* a graph's kernel node ran in this auto-range, user-replay session */
    atomic_long pushes, kernels_outside;
    /* kernels counted into a range while CONCURRENT_KERNEL tracing was on: on the H200 that
       tracing adds 8 warp instructions per warp to them (docs/agreement.md) */
    atomic_long ranged_concurrent;
} RP;
static char rp_object; /* the CUpti_RangeProfiler_Object handle */

static int
rp_on(void)
{
    const char *v = getenv("FAKE_RANGEPROF");
    return v && *v == '1';
}

static CUptiResult
rp_refuse(const char *what)
{
    violation(what);
    return CUPTI_ERROR_INVALID_OPERATION;
}

/*
 * A kernel runs (F.lock held): counted in the open range, or a range of its own under auto range.
 * A graph's kernel node under auto range and user replay makes the session's Stop fail with
 * CUPTI_ERROR_UNKNOWN and nothing decodable, as on the H200 (2026-12-05, docs/collector.md
 * "Graphs": tk_graph's three nodes and JAX's twenty, GPUHIER_DIAG_RP_GRAPHS).
 */
static void
rp_kernel(const unsigned grid[3], uint32_t graph_id)
{
    if (!RP.enabled || !RP.started)
        return;
    uint64_t blocks = (uint64_t)grid[0] * grid[1] * grid[2];
    if (graph_id && RP.range == CUPTI_AutoRange && RP.replay == CUPTI_UserReplay)
        RP.graph_auto = 1;
    if (RP.range == CUPTI_AutoRange) {
        if (RP.nhw == RP_MAX_RANGES || RP.nhw >= RP.max_ranges) {
            RP.dropped++;
            return;
        }
        struct rp_range *r = &RP.hw[RP.nhw++];
        snprintf(r->name, sizeof(r->name), "%zu", RP.auto_index++);
        r->kernels = 1;
        r->blocks = blocks;
        if (F.concurrent_on)
            atomic_fetch_add(&RP.ranged_concurrent, 1);
        return;
    }
    if (!RP.depth || !RP.nhw) {
        atomic_fetch_add(&RP.kernels_outside, 1);
        return;
    }
    if (F.concurrent_on)
        atomic_fetch_add(&RP.ranged_concurrent, 1);
    RP.hw[RP.nhw - 1].kernels++;
    RP.hw[RP.nhw - 1].blocks += blocks;
}

/*
 * FAKE_WAITNS=1 (lock held): as CUPTI on the H200 under user replay, a
 * launch inside a started range (an open user range under user ranges) is followed by CUPTI's own one-thread
 * kernel `WaitNs` under the launch's correlation id, on another stream;
 * every second one is recorded before the launch's own kernel record (the
 * order the device gave in 4 of 16 profiled launches).
 */
static void
waitns_kernel(uint32_t corr)
{
    static int on = -1, nth;
    if (on < 0)
        on = getenv("FAKE_WAITNS") != NULL;
    if (!on || !RP.enabled || !RP.started || RP.replay != CUPTI_UserReplay || !F.npending ||
        F.npending >= MAX_PENDING)
        return;
    /* under user ranges only a launch inside a range gets one (the H200: 256 WaitNs records for
       256 ranged launches of a kept session, none for the unsampled launches between them) */
    if (RP.range == CUPTI_UserRange && RP.depth == 0)
        return;
    static const unsigned one[3] = {1, 1, 1};
    CUpti_ActivityKernel10 *w = kernel_record("WaitNs", corr, one, one, 80000, 6);
    w->registersPerThread = 16;
    if (nth++ % 2) {
        CUpti_ActivityKernel10 t = F.pending[F.npending - 2];
        F.pending[F.npending - 2] = *w;
        F.pending[F.npending - 1] = t;
    }
}

/* Test knob output: 1 while the range profiler is started (a profiled launch's range not ended). */
EXPORT int
fake_rangeprof_started(void)
{
    pthread_mutex_lock(&F.lock);
    int v = RP.started;
    pthread_mutex_unlock(&F.lock);
    return v;
}

/* Test knob output: how many user ranges were pushed, how many kernels ran outside them. */
EXPORT long
fake_rangeprof_pushes(void)
{
    return atomic_load(&RP.pushes);
}

EXPORT long
fake_rangeprof_kernels_outside(void)
{
    return atomic_load(&RP.kernels_outside);
}

EXPORT long
fake_rangeprof_ranged_concurrent(void)
{
    return atomic_load(&RP.ranged_concurrent);
}

EXPORT CUptiResult
cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params *p)
{
    if ((F.sass_enabled || F.configured) && !F.host_pinned)
        violation("cuptiRangeProfilerEnable while a SASS metrics config is set (activity records "
                  "in device memory)");
    if (!rp_on())
        return CUPTI_ERROR_NOT_SUPPORTED;
    if (RP.enabled)
        return rp_refuse("cuptiRangeProfilerEnable twice without Disable");
    static atomic_int enables;
    cost(atomic_fetch_add(&enables, 1) ? COST_RP_ENABLE : COST_RP_ENABLE_FIRST);
    pthread_mutex_lock(&F.lock); /* rp_kernel() reads the state under it */
    memset(RP.hw, 0, sizeof(RP.hw));
    RP.enabled = 1;
    RP.started = RP.configured = RP.depth = 0;
    RP.nhw = RP.dropped = RP.auto_index = 0;
    RP.graph_auto = 0;
    pthread_mutex_unlock(&F.lock);
    p->pRangeProfilerObject = (CUpti_RangeProfiler_Object *)&rp_object;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params *p)
{
    if (!RP.enabled || p->pRangeProfilerObject != (void *)&rp_object)
        return rp_refuse("cuptiRangeProfilerDisable without Enable");
    if (RP.started)
        violation("cuptiRangeProfilerDisable while started (a profiled launch's range not ended)");
    pthread_mutex_lock(&F.lock);
    RP.enabled = RP.started = RP.configured = 0;
    pthread_mutex_unlock(&F.lock);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p)
{
    if (!RP.enabled)
        return rp_refuse("cuptiRangeProfilerGetCounterDataSize without Enable");
    if (p->maxNumRangeTreeNodes < p->maxNumOfRanges)
        return rp_refuse("cuptiRangeProfilerGetCounterDataSize: fewer tree nodes than ranges");
    p->counterDataSize = sizeof(struct rp_image) + p->maxNumOfRanges * sizeof(struct rp_range);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerCounterDataImageInitialize(
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p)
{
    if (!RP.enabled)
        return rp_refuse("cuptiRangeProfilerCounterDataImageInitialize without Enable");
    if (p->counterDataSize < sizeof(struct rp_image))
        return CUPTI_ERROR_INVALID_PARAMETER;
    struct rp_image *img = (struct rp_image *)p->pCounterData;
    memset(img, 0, p->counterDataSize);
    img->magic = RP_MAGIC;
    img->cap = (uint32_t)((p->counterDataSize - sizeof(*img)) / sizeof(struct rp_range));
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params *p)
{
    if (!RP.enabled)
        return rp_refuse("cuptiRangeProfilerSetConfig without Enable");
    if (RP.started)
        return rp_refuse("cuptiRangeProfilerSetConfig while started");
    if (p->range == CUPTI_UserRange && p->replayMode == CUPTI_KernelReplay)
        return rp_refuse("cuptiRangeProfilerSetConfig: user range with kernel replay");
    if (p->range == CUPTI_AutoRange && p->numNestingLevels != 1)
        return rp_refuse("cuptiRangeProfilerSetConfig: auto range needs one nesting level");
    if (!p->pConfig || !p->configSize || !p->pCounterDataImage || !p->maxRangesPerPass)
        return CUPTI_ERROR_INVALID_PARAMETER;
    cost(COST_RP_CONFIG);
    pthread_mutex_lock(&F.lock);
    RP.configured = 1;
    RP.range = p->range;
    RP.replay = p->replayMode;
    RP.max_ranges = p->maxRangesPerPass;
    RP.img = (struct rp_image *)p->pCounterDataImage;
    RP.img_size = p->counterDataImageSize;
    RP.nhw = RP.dropped = RP.auto_index = 0;
    RP.graph_auto = 0;
    pthread_mutex_unlock(&F.lock);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params *p)
{
    (void)p;
    if (!RP.enabled || !RP.configured)
        return rp_refuse("cuptiRangeProfilerStart without Enable and SetConfig");
    if (RP.started)
        return rp_refuse("cuptiRangeProfilerStart twice without Stop");
    if (F.configured && !F.host_pinned)
        violation("cuptiRangeProfilerStart while a SASS metrics config is set and activity "
                  "records in device memory (deadlocked on the H200)");
    if (F.sass_enabled)
        violation("cuptiRangeProfilerStart while SASS metrics are enabled (the collector's rule: "
                  "never both at once)");
    const char *slow = getenv("FAKE_RANGEPROF_START_MS");
    long ms = slow ? strtol(slow, NULL, 10) : 0;
    struct timespec ts = {ms > 0 ? ms / 1000 : 0, ms > 0 ? (ms % 1000) * 1000000L : 0};
    while (ms > 0 && nanosleep(&ts, &ts))
        ;
    cost(COST_RP_START);
    pthread_mutex_lock(&F.lock);
    RP.started = 1;
    pthread_mutex_unlock(&F.lock);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params *p)
{
    if (!RP.enabled || !RP.started)
        return rp_refuse("cuptiRangeProfilerStop without Start");
    if (RP.depth)
        violation("cuptiRangeProfilerStop with a user range still pushed");
    pthread_mutex_lock(&F.lock);
    RP.started = 0;
    int graph_auto = RP.graph_auto;
    RP.graph_auto = 0;
    if (graph_auto)
        RP.nhw = 0;
    pthread_mutex_unlock(&F.lock);
    if (graph_auto)
        return CUPTI_ERROR_UNKNOWN; /* the H200's answer (rp_kernel()) */
    p->isAllPassSubmitted = 1;      /* one pass for any list */
    p->passIndex = 0;
    p->targetNestingLevel = 1;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerPushRange(CUpti_RangeProfiler_PushRange_Params *p)
{
    if (!RP.enabled || !RP.started)
        return rp_refuse("cuptiRangeProfilerPushRange outside a started session");
    if (RP.range != CUPTI_UserRange)
        return rp_refuse("cuptiRangeProfilerPushRange under auto range");
    if (RP.depth)
        return rp_refuse("cuptiRangeProfilerPushRange deeper than the one nesting level");
    pthread_mutex_lock(&F.lock);
    RP.depth = 1;
    atomic_fetch_add(&RP.pushes, 1);
    if (RP.nhw < RP_MAX_RANGES && RP.nhw < RP.max_ranges) {
        struct rp_range *r = &RP.hw[RP.nhw++];
        memset(r, 0, sizeof(*r));
        snprintf(r->name, sizeof(r->name), "%s", p->pRangeName ? p->pRangeName : "");
    } else {
        RP.dropped++;
        RP.depth = 2; /* open, but not kept: its kernels count nowhere */
    }
    pthread_mutex_unlock(&F.lock);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerPopRange(CUpti_RangeProfiler_PopRange_Params *p)
{
    (void)p;
    if (!RP.enabled || !RP.started || RP.range != CUPTI_UserRange)
        return rp_refuse("cuptiRangeProfilerPopRange outside a started user-range session");
    if (!RP.depth)
        return rp_refuse("cuptiRangeProfilerPopRange without a push");
    pthread_mutex_lock(&F.lock);
    RP.depth = 0;
    pthread_mutex_unlock(&F.lock);
    cost(COST_RP_RANGE);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params *p)
{
    if (!RP.enabled)
        return rp_refuse("cuptiRangeProfilerDecodeData without Enable");
    cost(COST_RP_DECODE);
    if (RP.started)
        return rp_refuse("cuptiRangeProfilerDecodeData before Stop");
    if (!RP.img || RP.img->magic != RP_MAGIC)
        return rp_refuse("cuptiRangeProfilerDecodeData into an image not initialized");
    size_t dropped = RP.dropped;
    for (size_t i = 0; i < RP.nhw; i++) {
        if (RP.img->n < RP.img->cap)
            RP.img->r[RP.img->n++] = RP.hw[i];
        else
            dropped++;
    }
    RP.nhw = RP.dropped = 0;
    p->numOfRangeDropped = dropped;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p)
{
    const struct rp_image *img = (const struct rp_image *)p->pCounterDataImage;
    if (!img || img->magic != RP_MAGIC)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->numTotalRanges = img->n;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiRangeProfilerCounterDataGetRangeInfo(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params *p)
{
    const struct rp_image *img = (const struct rp_image *)p->pCounterDataImage;
    if (!img || img->magic != RP_MAGIC || p->rangeIndex >= img->n)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->rangeName = img->r[p->rangeIndex].name;
    return CUPTI_SUCCESS;
}

/* ------------------------------------------------------------ CUPTI: profiler host (offline) */

/* Any name is known; every list fits one pass; the config image is the list's count. */
struct rp_host {
    size_t n;
};

EXPORT CUptiResult
cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
    p->pHostObject = (CUpti_Profiler_Host_Object *)calloc(1, sizeof(struct rp_host));
    return p->pHostObject ? CUPTI_SUCCESS : CUPTI_ERROR_OUT_OF_MEMORY;
}

EXPORT CUptiResult
cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p)
{
    free(p->pHostObject);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params *p)
{
    return p->pMetricName && *p->pMetricName ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_METRIC_NAME;
}

EXPORT CUptiResult
cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
    ((struct rp_host *)p->pHostObject)->n += p->numMetrics;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
    p->configImageSize = sizeof(size_t);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p)
{
    memcpy(p->pConfigImage, &((struct rp_host *)p->pHostObject)->n, sizeof(size_t));
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p)
{
    /* FAKE_PASS_METRICS=N (bench/policy_sim.py): N metrics fit one pass, so the one-pass plan has
       several groups, as on a real chip; one pass for any list otherwise */
    const char *v = getenv("FAKE_PASS_METRICS");
    size_t per = v ? strtoul(v, NULL, 10) : 0, n = 0;
    if (p->pConfigImage && p->configImageSize >= sizeof(n))
        memcpy(&n, p->pConfigImage, sizeof(n));
    p->numOfPasses = per && n > per ? (n + per - 1) / per : 1;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
    const struct rp_image *img = (const struct rp_image *)p->pCounterDataImage;
    if (!img || img->magic != RP_MAGIC || p->rangeIndex >= img->n)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const struct rp_range *r = &img->r[p->rangeIndex];
    for (size_t i = 0; i < p->numMetrics; i++)
        p->pMetricValues[i] = !strcmp(p->ppMetricNames[i], "sm__ctas_launched.sum")
                                  ? (double)r->blocks
                                  : (double)r->kernels;
    return CUPTI_SUCCESS;
}

/* ------------------------------------------------------------ CUPTI: SASS metrics */

EXPORT CUptiResult
cuptiSassMetricsGetProperties(CUpti_SassMetrics_GetProperties_Params *p)
{
    const char *none = getenv("FAKE_SASS_NONE");
    /* FAKE_SASS_UNKNOWN=NAME: a metric this chip does not have */
    const char *unknown = getenv("FAKE_SASS_UNKNOWN");
    if ((none && *none == '1') || !p->pMetricName || F.nmetric_names == MAX_METRICS ||
        (unknown && !strcmp(unknown, p->pMetricName)))
        return CUPTI_ERROR_INVALID_METRIC_NAME;
    uint64_t id = metric_id(p->pMetricName);
    if (!id) {
        F.metric_names[F.nmetric_names++] = p->pMetricName; /* the collector's static names */
        id = F.nmetric_names;
    }
    p->metric.metricId = id;
    p->metric.pMetricName = p->pMetricName;
    p->metric.pMetricDescription = "synthetic";
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiSassMetricsSetConfig(CUpti_SassMetricsSetConfig_Params *p)
{
    pthread_mutex_lock(&F.lock);
    CUptiResult rc = CUPTI_SUCCESS;
    int before = atomic_fetch_add(&F.sass_sets, 1);
    if (F.configured) {
        violation("cuptiSassMetricsSetConfig twice without UnsetConfig");
        rc = CUPTI_ERROR_INVALID_OPERATION;
    } else if (before) {
        /* the H200's answer to a second SetConfig in a process: always, even after Unset */
        rc = CUPTI_ERROR_OUT_OF_MEMORY;
    } else {
        F.nconfig = p->numOfMetricConfig < MAX_METRICS ? p->numOfMetricConfig : MAX_METRICS;
        for (size_t i = 0; i < F.nconfig; i++)
            F.config[i] = p->pConfigs[i].metricId;
        F.configured = 1;
    }
    pthread_mutex_unlock(&F.lock);
    return rc;
}

EXPORT CUptiResult
cuptiSassMetricsUnsetConfig(CUpti_SassMetricsUnsetConfig_Params *p)
{
    (void)p;
    atomic_fetch_add(&F.sass_unsets, 1);
    pthread_mutex_lock(&F.lock);
    CUptiResult rc = CUPTI_SUCCESS;
    if (!F.configured || F.sass_enabled) {
        violation("cuptiSassMetricsUnsetConfig without a config, or while enabled");
        rc = CUPTI_ERROR_INVALID_OPERATION;
    }
    if (RP.started)
        violation("cuptiSassMetricsUnsetConfig while the range profiler is started (another "
                  "thread's profiled launch: bench/stress bg under both engines died by SIGSEGV "
                  "on the H200 after its range profiler failed with CUPTI_ERROR_UNKNOWN)");
    F.configured = 0;
    pthread_mutex_unlock(&F.lock);
    return rc;
}

EXPORT CUptiResult
cuptiSassMetricsEnable(CUpti_SassMetricsEnable_Params *p)
{
    const char *hang = getenv("FAKE_SASS_HANG_MS");
    if (hang && *hang) {
        long ms = strtol(hang, NULL, 10);
        struct timespec ts = {ms < 0 ? 1000000 : ms / 1000, ms < 0 ? 0 : (ms % 1000) * 1000000L};
        atomic_fetch_add(&fake_hanging, 1);
        /* FAKE_FLUSH_WAITS: the hang starts once the flusher is inside a flush (at most 2 s) */
        for (int i = 0; getenv("FAKE_FLUSH_WAITS") && !atomic_load(&fake_in_flush) && i < 2000; i++)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        while (nanosleep(&ts, &ts))
            ;
        atomic_fetch_sub(&fake_hanging, 1);
    }
    cost(COST_SASS_ENABLE);
    pthread_mutex_lock(&F.lock);
    CUptiResult rc = CUPTI_SUCCESS;
    if (!F.configured || F.sass_enabled) {
        violation("cuptiSassMetricsEnable without a config, or twice");
        rc = CUPTI_ERROR_INVALID_OPERATION;
    } else if (!p->enableLazyPatching) {
        violation("cuptiSassMetricsEnable without lazy patching (gave no data on the H200)");
    }
    if (RP.enabled)
        violation("cuptiSassMetricsEnable while the range profiler is enabled (a program died by "
                  "SIGSEGV so on the H200: GPUHIER_DIAG_RP_THROUGH_INST, docs/sampling.md)");
    if (!rc) {
        F.sass_enabled = 1;
        atomic_fetch_add(&F.sass_enables, 1);
    }
    pthread_mutex_unlock(&F.lock);
    return rc;
}

EXPORT CUptiResult
cuptiSassMetricsDisable(CUpti_SassMetricsDisable_Params *p)
{
    cost(COST_SASS_DISABLE);
    pthread_mutex_lock(&F.lock);
    CUptiResult rc = CUPTI_SUCCESS;
    if (!F.sass_enabled) {
        violation("cuptiSassMetricsDisable while not enabled");
        rc = CUPTI_ERROR_INVALID_OPERATION;
    }
    p->numOfDroppedRecords = F.nsass;
    F.nsass = 0;
    F.sass_enabled = 0;
    pthread_mutex_unlock(&F.lock);
    return rc;
}

EXPORT CUptiResult
cuptiSassMetricsGetDataProperties(CUpti_SassMetricsGetDataProperties_Params *p)
{
    pthread_mutex_lock(&F.lock);
    CUptiResult rc = CUPTI_SUCCESS;
    if (!F.sass_enabled) {
        violation("cuptiSassMetricsGetDataProperties outside an enabled range");
        rc = CUPTI_ERROR_INVALID_OPERATION;
    }
    p->numOfPatchedInstructionRecords = F.nsass;
    p->numOfInstances = 1;
    pthread_mutex_unlock(&F.lock);
    return rc;
}

/* One record per (function, pc, metric), GPU granularity; names are the caller's to free. */
EXPORT CUptiResult
cuptiSassMetricsFlushData(CUpti_SassMetricsFlushData_Params *p)
{
    cost(COST_SASS_FLUSH);
    pthread_mutex_lock(&F.lock);
    CUptiResult rc = CUPTI_SUCCESS;
    if (!F.sass_enabled || p->numOfInstances != 1 || p->numOfPatchedInstructionRecords > F.nsass) {
        violation("cuptiSassMetricsFlushData with sizes GetDataProperties did not give");
        rc = CUPTI_ERROR_INVALID_OPERATION;
    } else {
        for (size_t i = 0; i < p->numOfPatchedInstructionRecords; i++) {
            CUpti_SassMetrics_Data *d = &p->pMetricsData[i];
            d->cubinCrc = 0xfeed;
            d->functionIndex = 0;
            d->functionName = strdup(F.sass[i].f->name);
            d->pcOffset = F.sass[i].pc;
            d->pInstanceValues[0].metricId = F.sass[i].metric;
            d->pInstanceValues[0].value = F.sass[i].value;
        }
        F.nsass = 0;
    }
    pthread_mutex_unlock(&F.lock);
    return rc;
}
