/* SPDX-License-Identifier: MIT */
/*
 * callbacks: the collector's one CUPTI subscriber and its callback
 * dispatch (driver, runtime, resource and NVTX domains).
 *
 * Launches are hooked in the driver only (cuLaunchKernel and its forms,
 * collector_int.h says why): ENTER fills a launch record (correlation id,
 * NVTX path, the sampler's decision) and pushes it, and the sampler
 * starts the engine that serves the launch; EXIT ends it and records a
 * failed launch. Copies keep their API pointers, stream captures are
 * counted (nothing is profiled while one is open), module loads with line
 * information are copied for the writer, and context teardown flushes
 * and disables the engines on that context. Every callback returns at
 * once when collecting is off (`active`; but the EXIT of a launch an
 * engine serves, which ends that engine's launch) or while the L2 flush of
 * cache control makes its own driver calls.
 *
 * What a callback never does: allocate (but for the cubin copy at module
 * load), touch SQLite, or hold a lock across a CUPTI call (but the range
 * profiler's lock, held from a profiled launch's ENTER to its EXIT).
 */
#include "collector/callbacks.h"
#include "collector/cacheflush.h"
#include "collector/collector_int.h"
#include "collector/diagprobe.h"
#include "collector/activity.h"
#include "collector/engine.h"
#include "collector/notes.h"
#include "collector/nvtx.h"
#include "collector/options.h"
#include "collector/sampler.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    CUpti_SubscriberHandle sub;
    atomic_int active;                    /* collecting in this process */
    atomic_int captures_drv, captures_rt; /* stream captures open (driver, runtime API) */
    atomic_long launches_seen;            /* launch ENTER callbacks */
    atomic_llong stack_limit; /* CU_LIMIT_STACK_SIZE last recorded in meta, + 1 (0 = not yet) */
    atomic_int padded;        /* GPUHIER_DIAG_PAD_MB's allocation was made */
} C;

static __thread uint32_t tls_rt_corr;

/*
 * meta 'stack_limit_bytes': the launching context's CU_LIMIT_STACK_SIZE
 * (per-thread stack, where spills and local arrays of ABI calls live; the
 * context reserves it for every resident thread, so it shapes the local
 * memory layout), read at the first launch and at each profiled launch,
 * recorded when it changes (CUDA raises it for kernels that need more).
 * docs/agreement.md class C compares it with ncu's launch__stack_size.
 */
static void
note_stack_limit(void)
{
    /* GPUHIER_DIAG_STACK_LIMIT=BYTES (diagnosis, class C): set it first, at the first launch */
    const char *set = opt.stack_limit_set;
    if (set && !atomic_load(&C.stack_limit) && gh.cuCtxSetLimit) {
        CUresult sr = gh.cuCtxSetLimit(CU_LIMIT_STACK_SIZE, (size_t)strtoull(set, NULL, 10));
        gh_say("GPUHIER_DIAG_STACK_LIMIT: cuCtxSetLimit(CU_LIMIT_STACK_SIZE, %s): %s", set,
               sr == CUDA_SUCCESS ? "ok" : "failed");
    }
    size_t v = 0;
    if (!gh.cuCtxGetLimit || gh.cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE) != CUDA_SUCCESS) {
        atomic_store(&C.stack_limit, -1); /* unknown: do not ask again */
        return;
    }
    long long was = atomic_exchange(&C.stack_limit, (long long)v + 1);
    if (was != (long long)v + 1) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%zu", v);
        push_meta("stack_limit_bytes", buf);
    }
}

/* ------------------------------------------------------------ launches */

struct launch_args {
    CUfunction f;
    uint32_t grid[3], block[3], smem;
    void **params; /* kernelParams, NULL when the launch passed `extra` */
};

static int
launch_args(CUpti_CallbackId cbid, const void *params, struct launch_args *a)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *p = params;
        *a = (struct launch_args){p->f,
                                  {p->gridDimX, p->gridDimY, p->gridDimZ},
                                  {p->blockDimX, p->blockDimY, p->blockDimZ},
                                  p->sharedMemBytes,
                                  p->kernelParams};
        return 0;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *p = params;
        *a = (struct launch_args){p->f,
                                  {p->gridDimX, p->gridDimY, p->gridDimZ},
                                  {p->blockDimX, p->blockDimY, p->blockDimZ},
                                  p->sharedMemBytes,
                                  p->kernelParams};
        return 0;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = params;
        const CUlaunchConfig *c = p->config;
        if (!c)
            return -1;
        *a = (struct launch_args){p->f,
                                  {c->gridDimX, c->gridDimY, c->gridDimZ},
                                  {c->blockDimX, c->blockDimY, c->blockDimZ},
                                  c->sharedMemBytes,
                                  p->kernelParams};
        return 0;
    }
    default:
        return -1;
    }
}

static const char *
driver_api_name(CUpti_CallbackId cbid)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        return "cuLaunchKernel";
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        return "cuLaunchKernel_ptsz";
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        return "cuLaunchKernelEx";
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        return "cuLaunchKernelEx_ptsz";
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        return "cuLaunchCooperativeKernel";
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        return "cuLaunchCooperativeKernel_ptsz";
    default:
        return "cuLaunch";
    }
}

/*
 * A sampled launch's pointer arguments into page-locked host memory
 * (hostargs.h, schema.sql launch_host_arg): a few driver queries, made
 * only for the launches the engines serve; meta host_args says the
 * collector looked (once).
 */
static void
host_args(const struct launch_args *a, struct hostargs *out)
{
    const struct hostargs_api api = {gh.cuFuncGetParamInfo, gh.cuPointerGetAttribute,
                                     gh.cuKernelGetParamInfo};
    if ((!api.param_info && !api.kernel_param_info) || !api.pointer_attribute)
        return;
    static atomic_int said;
    if (!atomic_exchange(&said, 1))
        push_meta("host_args", "on");
    int found = hostargs_scan(&api, a->f, a->params, out);
    if (gh_debug) { /* GPUHIER_DEBUG: what the driver gave, for the first 40 served launches */
        static atomic_int shown;
        if (atomic_fetch_add(&shown, 1) < 40)
            gh_say("host args: kernelParams %s, %d parameters read%s, %d host pointers",
                   a->params ? "given" : "NULL", out->params,
                   out->as_kernel ? " as a CUkernel's" : "", found);
    }
}

/* nvtx_path must stay the last field (only tail padding after it). */
_Static_assert(offsetof(struct rec_launch, nvtx_path) + REC_NVTX_PATH_MAX +
                       _Alignof(struct rec_launch) >
                   sizeof(struct rec_launch),
               "on_launch copies a launch record only up to the end of its NVTX path");

/*
 * A context's teardown begins (its API ENTER, before the resource
 * callback, where CUPTI forbids the kernel tracing swap's flush): an
 * instrumentation enable left open for a chain is shut now
 * (GPUHIER_DIAG_SASS_CHAIN, docs/collector.md "Chained instrumented
 * launches"), so the context goes with SASS metrics disabled.
 */
static void
teardown_shut(void)
{
    if (opt.sass_chain && !opt.trace_only && opt.instrument != ENGINES_RANGEPROF &&
        !callbacks_capturing())
        sass_window_shut();
}

static void
on_launch(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    struct launch_args a;
    if (launch_args(cbid, cb->functionParams, &a))
        return;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        static __thread struct rec r;
        /* nvtx_path is the record's last field: clear and copy only up to its end. */
        const size_t fixed = offsetof(struct rec, u) + offsetof(struct rec_launch, nvtx_path);
        memset(&r, 0, fixed);
        r.type = REC_LAUNCH;
        long seen = atomic_fetch_add_explicit(&C.launches_seen, 1, memory_order_relaxed) + 1;
        struct rec_launch *l = &r.u.launch;
        l->corr = cb->correlationId;
        /* rt_corr stays 0: kernel records carry the driver id (no runtime launch callbacks). */
        l->config_index = -1;
        size_t used = fixed + nvtx_path(l->nvtx_path, sizeof(l->nvtx_path)) + 1;
        int capturing = callbacks_capturing();
        const char *why = NULL;
        /* each engine's set-up before the program's first kernel (GPUHIER_DIAG_PREWARM) */
        if (!opt.trace_only && !capturing)
            engine_prepare(cb->context);
        if (!capturing)
            diagprobe_launch(); /* GPUHIER_DIAG_PMPROBE: nothing without it */
        /* no driver call inside a capture: it could be one the capture mode forbids */
        if (!capturing && !atomic_load_explicit(&C.stack_limit, memory_order_relaxed))
            note_stack_limit();
        /*
         * GPUHIER_DIAG_CARVEOUT=PCT (diagnosis, docs/agreement.md class C): the
         * shared-memory carveout the driver should prefer for this kernel, so the
         * L1 size a profiled launch runs with is known (its own record never
         * completes, so the report cannot say which carveout it got).
         */
        /*
         * GPUHIER_DIAG_PAD_MB=N (diagnosis, docs/agreement.md class C): N MB of
         * device memory taken before the program's first kernel runs, kept to the
         * end, so every later allocation (the local memory the context reserves
         * for a spilling kernel among them) lands at other addresses.
         */
        if (opt.pad_mb > 0 && !capturing && !atomic_exchange(&C.padded, 1) && gh.cuMemAlloc_v2) {
            CUdeviceptr pad = 0;
            CUresult pr = gh.cuMemAlloc_v2(&pad, (size_t)opt.pad_mb << 20);
            gh_say("GPUHIER_DIAG_PAD_MB: %ld MB at 0x%llx: %s", opt.pad_mb, (unsigned long long)pad,
                   pr == CUDA_SUCCESS ? "ok" : "failed");
        }
        if (opt.carveout_pct >= 0 && !capturing && gh.cuFuncSetAttribute)
            gh.cuFuncSetAttribute(a.f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                  opt.carveout_pct);
        if (opt.trace_only) {
            why = "mode_trace";
        } else {
            struct engine_launch el = {
                .ctx = cb->context,
                .func = a.f,
                .corr = cb->correlationId,
                .mangled = cb->symbolName,
                .grid = {a.grid[0], a.grid[1], a.grid[2]},
                .block = {a.block[0], a.block[1], a.block[2]},
                .dynamic_smem_bytes = a.smem,
                .nvtx_path = l->nvtx_path[0] ? l->nvtx_path : NULL,
            };
            if (sampler_launch_enter(&el, capturing, &why, &l->config_index)) {
                note_stack_limit();
                l->sampled = 1;
                l->name_hash =
                    cb->symbolName && cb->symbolName[0] ? gh_name_hash(cb->symbolName) : 0;
                /*
                 * launch.api_ns: the allocations live at this time bound the
                 * kernel's footprint (v_launch_footprint). Only profiled
                 * launches need it (the rules read counters), and their replay
                 * costs milliseconds: unsampled launches skip the clock call.
                 */
                r.time_ns = gh_now_ns();
                if (!capturing)
                    host_args(&a, &l->host);
            }
        }
        gh_copy(l->reason, sizeof(l->reason), why);
        writer_push_n(&r, used);
        /*
         * GPUHIER_DIAG_LAUNCH_HOLD=N:MS (tests): the process's N-th launch
         * waits MS ms between the engines' look at it and the launch gate, as
         * a thread the scheduler holds there (t108 case `overlap`)
         */
        if (seen == opt.diag_launch_hold_n && opt.diag_launch_hold_ms > 0)
            nanosleep(&(struct timespec){opt.diag_launch_hold_ms / 1000,
                                         (opt.diag_launch_hold_ms % 1000) * 1000000L},
                      NULL);
        /* from here to the EXIT the driver makes the kernel's record: no kind swap meanwhile */
        activity_launch_begin();
        if (gh_debug) {
            static atomic_long nl;
            long k = atomic_fetch_add(&nl, 1);
            if (k < 3 || k % 1000 == 0)
                gh_say("launch %ld %s: %s sampled %d", k, cb->symbolName, why ? why : "-",
                       l->sampled);
        }
        return;
    }
    /* EXIT */
    activity_launch_end();
    CUresult ret =
        cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue : CUDA_SUCCESS;
    if (!opt.trace_only)
        sampler_launch_exit(ret == CUDA_SUCCESS);
    if (ret != CUDA_SUCCESS) {
        struct rec r = {.type = REC_FAILURE};
        struct rec_failure *f = &r.u.failure;
        f->func = (uint64_t)(uintptr_t)a.f;
        f->error_code = (int)ret;
        memcpy(f->grid, a.grid, sizeof(f->grid));
        memcpy(f->block, a.block, sizeof(f->block));
        f->dynamic_smem_bytes = a.smem;
        snprintf(f->api, sizeof(f->api), "%s", driver_api_name(cbid));
        snprintf(f->name, sizeof(f->name), "%s", cb->symbolName ? cb->symbolName : "");
        writer_push(&r);
    }
}

/* ------------------------------------------------------------ callbacks */

static void
push_copy(const CUpti_CallbackData *cb, const char *api, int is_async, uint32_t corr,
          uint32_t rt_corr)
{
    /* Every memcpy params struct we hook starts with (dst, src). */
    const uint64_t *p = cb->functionParams;
    struct rec r = {.type = REC_COPY};
    r.u.copy.corr = corr;
    r.u.copy.rt_corr = rt_corr;
    r.u.copy.dst = p[0];
    r.u.copy.src = p[1];
    r.u.copy.is_async = is_async;
    snprintf(r.u.copy.api, sizeof(r.u.copy.api), "%s", api);
    writer_push(&r);
}

/*
 * The program obtained device memory that MEMORY2 may not report: the
 * live bytes of v_launch_footprint would no longer bound what kernels
 * read, so the report stops claiming complete allocation records (once).
 */
static void
untracked_memory(const char *api)
{
    static atomic_int said;
    if (atomic_exchange(&said, 1))
        return;
    char v[200];
    snprintf(v, sizeof(v), "off: the program called %s, whose memory allocation records may miss",
             api ? api : "a memory-mapping API");
    push_meta("alloc_tracking", v);
    push_event("info", "alloc_untracked", "%s", v);
}

static void
on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    int enter = cb->callbackSite == CUPTI_API_ENTER;
    CUresult ret = !enter && cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue
                                                     : CUDA_SUCCESS;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        on_launch(cbid, cb);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
        if (enter && !tls_rt_corr)
            push_copy(cb, cb->functionName, 0, cb->correlationId, 0);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
        if (enter && !tls_rt_corr)
            push_copy(cb, cb->functionName, 1, cb->correlationId, 0);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
        if (!enter && ret == CUDA_SUCCESS)
            atomic_fetch_add(&C.captures_drv, 1);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
        if (!enter && atomic_fetch_sub(&C.captures_drv, 1) <= 0)
            atomic_store(&C.captures_drv, 0);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2:
        if (enter) {
            teardown_shut();
            flush_forced();
        }
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap:
    case CUPTI_DRIVER_TRACE_CBID_cuIpcOpenMemHandle:
    case CUPTI_DRIVER_TRACE_CBID_cuIpcOpenMemHandle_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemImportFromShareableHandle:
    case CUPTI_DRIVER_TRACE_CBID_cuMemPoolImportPointer:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddMemAllocNode:
        if (!enter && ret == CUDA_SUCCESS)
            untracked_memory(cb->functionName);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        /*
         * Graph kernels have no launch callback: never let them run under
         * an enabled range profiler; the instrumentation engine may serve
         * the whole graph launch instead (its counts per function, the
         * writer gives them to the kernel nodes: docs/collector.md "Graphs").
         */
        if (enter && !callbacks_capturing()) {
            engine_graph_launch();
            /* cuGraphLaunch_params and its _ptsz form both start with the executable graph */
            const cuGraphLaunch_params *p = cb->functionParams;
            struct engine_graph g = {
                .ctx = cb->context, .exec = p ? p->hGraph : NULL, .corr = cb->correlationId};
            sampler_graph_enter(&g);
            activity_launch_begin(); /* its kernel nodes' records: no kind swap until its EXIT */
        } else if (!enter) {
            activity_launch_end();
            sampler_graph_exit(ret == CUDA_SUCCESS);
        }
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz:
        /*
         * The instantiation arming (docs/collector.md "Graphs"): the sampler
         * quiesces the other engines only when it arms; nothing runs here.
         */
        if (enter && !callbacks_capturing()) {
            /* every cuGraphInstantiate* form's parameters start with the executable and the graph */
            const cuGraphInstantiateWithFlags_params *p = cb->functionParams;
            sampler_instantiate_enter(cb->context, p ? p->hGraph : NULL);
        } else if (!enter) {
            const cuGraphInstantiateWithFlags_params *p = cb->functionParams;
            sampler_instantiate_exit(ret == CUDA_SUCCESS && p && p->phGraphExec ? *p->phGraphExec
                                                                                : NULL);
        }
        break;
    default:
        break;
    }
}

static void
on_runtime(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    int enter = cb->callbackSite == CUPTI_API_ENTER;
    cudaError_t ret = !enter && cb->functionReturnValue
                          ? *(const cudaError_t *)cb->functionReturnValue
                          : cudaSuccess;
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
        if (enter)
            push_copy(cb, cb->functionName,
                      cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 ||
                          cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
                      cb->correlationId, 0);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030:
        if (!enter && ret == cudaSuccess)
            atomic_fetch_add(&C.captures_rt, 1);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000:
        if (!enter && atomic_fetch_sub(&C.captures_rt, 1) <= 0)
            atomic_store(&C.captures_rt, 0);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020:
        if (enter) {
            teardown_shut();
            flush_forced();
        }
        break;
    default:
        break;
    }
    /* Inside a runtime copy, the nested driver copy callback must not record it again. */
    tls_rt_corr = enter ? cb->correlationId : 0;
}

static void
on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
    switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED: {
        struct rec r = {.type = REC_DEVICE};
        uint32_t dev = 0;
        gh.cuptiGetDeviceId(rd->context, &dev);
        r.u.device.device_id = (int)dev;
        CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
        cn.deviceIndex = dev;
        if (gh.cuptiDeviceGetChipName(&cn) == CUPTI_SUCCESS && cn.pChipName)
            snprintf(r.u.device.chip, sizeof(r.u.device.chip), "%s", cn.pChipName);
        writer_push(&r);
        activity_um_wanted();
        if (!opt.trace_only)
            engine_context_created(rd->context);
        break;
    }
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
        engine_context_destroying(rd->context);
        writer_wake();
        break;
    case CUPTI_CBID_RESOURCE_MODULE_LOADED: {
        const CUpti_ModuleResourceData *m = rd->resourceDescriptor;
        /* Only cubins built with -lineinfo can map a kernel to its source: copy just those. */
        if (!m || !m->pCubin || !m->cubinSize || m->cubinSize > (256u << 20) ||
            !gh_cubin_has_lineinfo(m->pCubin, m->cubinSize))
            break;
        /* Module loads are rare (not the launch path): the copy is the documented exception. */
        void *copy = malloc(m->cubinSize);
        if (!copy)
            break;
        memcpy(copy, m->pCubin, m->cubinSize);
        struct rec r = {.type = REC_CUBIN};
        r.u.cubin.data = copy;
        r.u.cubin.size = m->cubinSize;
        if (writer_push(&r))
            free(copy);
        break;
    }
    default:
        break;
    }
}

static void CUPTIAPI
on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
    (void)ud;
    /*
     * Off (the exit closed the report): nothing, except on a thread whose
     * launch an engine serves, whose EXIT must still end that engine's
     * launch (sampler_thread_serving(); finish() waits for it).
     */
    if (!atomic_load_explicit(&C.active, memory_order_relaxed) && !sampler_thread_serving())
        return;
    /* the L2 flush's own driver calls (module, buffer, kernel) are not the program's */
    if (cacheflush_active())
        return;
    switch (dom) {
    case CUPTI_CB_DOMAIN_DRIVER_API:
        on_driver(cbid, data);
        break;
    case CUPTI_CB_DOMAIN_RUNTIME_API:
        on_runtime(cbid, data);
        break;
    case CUPTI_CB_DOMAIN_RESOURCE:
        on_resource(cbid, data);
        break;
    case CUPTI_CB_DOMAIN_NVTX:
        on_nvtx(cbid, data);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ subscription */

/* Enables each callback of `ids`; returns how many CUPTI refused. */
static int
enable_list(CUpti_CallbackDomain dom, const CUpti_CallbackId *ids, size_t n)
{
    int refused = 0;
    for (size_t i = 0; i < n; i++)
        refused += gh.cuptiEnableCallback(1, C.sub, dom, ids[i]) != CUPTI_SUCCESS;
    return refused;
}

/* The lists and why each callback is there: collector_int.h. */
void
enable_callbacks(void)
{
    /*
     * GPUHIER_DIAG_NO_LAUNCH_CALLBACKS=1, for diagnosis only: no launch
     * callbacks, so launches lose their NVTX path and sampling reason and
     * failed launches are not recorded, while CUPTI still traces every
     * kernel. Timed against a normal trace run, it splits the tracing cost
     * into CUPTI's kernel tracing and the launch callbacks (docs/collector.md).
     */
    size_t skip = 0;
    if (env("GPUHIER_DIAG_NO_LAUNCH_CALLBACKS")) {
        skip = GH_CB_DRIVER_LAUNCHES;
        gh_say("GPUHIER_DIAG_NO_LAUNCH_CALLBACKS: launch callbacks off (diagnosis: no NVTX "
               "paths, sampling or failed launches in this report)");
    }
    enable_list(CUPTI_CB_DOMAIN_DRIVER_API, gh_cb_driver + skip, GH_NCB(gh_cb_driver) - skip);
    enable_list(CUPTI_CB_DOMAIN_RUNTIME_API, gh_cb_runtime, GH_NCB(gh_cb_runtime));
    if (!opt.trace_only) {
        enable_list(CUPTI_CB_DOMAIN_DRIVER_API, gh_cb_driver_profile, GH_NCB(gh_cb_driver_profile));
        enable_list(CUPTI_CB_DOMAIN_RUNTIME_API, gh_cb_runtime_profile,
                    GH_NCB(gh_cb_runtime_profile));
        /* with chained launches, an instantiation shuts an open enable (sass_window_shut()) */
        if (opt.sass_graphs >= 2 || opt.graph_nodes || opt.sass_chain)
            enable_list(CUPTI_CB_DOMAIN_DRIVER_API, gh_cb_driver_instantiate,
                        GH_NCB(gh_cb_driver_instantiate));
    }
    gh.cuptiEnableCallback(1, C.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    gh.cuptiEnableCallback(1, C.sub, CUPTI_CB_DOMAIN_RESOURCE,
                           CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    gh.cuptiEnableCallback(1, C.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
    /* Only the NVTX calls on_nvtx handles; the whole domain if CUPTI refuses one of them. */
    if (enable_list(CUPTI_CB_DOMAIN_NVTX, gh_cb_nvtx, GH_NCB(gh_cb_nvtx)) && gh.cuptiEnableDomain) {
        gh.cuptiEnableDomain(1, C.sub, CUPTI_CB_DOMAIN_NVTX);
        if (gh_debug)
            gh_say("NVTX callbacks refused one by one; the whole NVTX domain is enabled");
    }
}

int
subscribe(void)
{
    char old[256] = "";
    CUptiResult rc = fault("subscribe");
    if (rc == CUPTI_SUCCESS) {
        if (gh.cuptiSubscribe_v2) {
            CUpti_SubscriberParams sp = {CUpti_SubscriberParams_STRUCT_SIZE};
            sp.subscriberName = "gpuhier";
            sp.oldSubscriberName = old;
            sp.oldSubscriberSize = sizeof(old);
            rc = gh.cuptiSubscribe_v2(&C.sub, on_callback, NULL, &sp);
        } else {
            rc = gh.cuptiSubscribe(&C.sub, on_callback, NULL);
        }
    } else if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        snprintf(old, sizeof(old), "%s", "fault injection");
    }
    if (rc == CUPTI_SUCCESS)
        return 0;
    char msg[512];
    if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        snprintf(msg, sizeof(msg),
                 "CUPTI already has a subscriber (%s); gpuhier collects nothing in this "
                 "process (tools like torch.profiler, nsys and ncu cannot share CUPTI with it)",
                 old[0] ? old : "unknown tool");
    else
        snprintf(msg, sizeof(msg),
                 "cuptiSubscribe failed: %s; gpuhier collects nothing in this process",
                 cupti_err(rc));
    gh_say("%s", msg);
    push_limited(msg);
    push_event("error", "cupti_subscribe_failed", "%s", msg);
    return -1;
}

/* ------------------------------------------------------------ state */

void
callbacks_set_active(int on)
{
    atomic_store(&C.active, on);
}

int
callbacks_active(void)
{
    return atomic_load(&C.active);
}

int
callbacks_capturing(void)
{
    return atomic_load(&C.captures_drv) > 0 || atomic_load(&C.captures_rt) > 0;
}

long
callbacks_launches(void)
{
    return atomic_load(&C.launches_seen);
}
