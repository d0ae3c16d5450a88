/* SPDX-License-Identifier: MIT */
/* cacheflush: the L2 flush before a profiled launch (cacheflush.h says why and how). */
#include "collector/cacheflush.h"
#include "collector/collector_int.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/*
 * Two kernels, run one after the other:
 *
 * gpuhier_l2_flush: one thread per 16 bytes of the buffer, grid-stride; each
 * thread XORs what it reads and stores the result only if it equals `never`,
 * so the compiler cannot remove the loads and (but for a 2^-32 chance)
 * nothing is written. Reading twice the L2 evicts every line of earlier
 * work, writing the dirty ones back, and leaves the L2 full of the buffer's
 * clean lines.
 *
 * gpuhier_l2_discard: `discard.global.L2` on every 128-byte line of the
 * buffer, which invalidates it in the L2 without a write-back. The L2 is
 * then empty, as after Nsight Compute's flush and invalidate, rather than
 * full of clean lines the profiled kernel would have to evict (the L2's
 * replacement policy then decides which of the kernel's own lines survive,
 * which changes its hits).
 *
 * PTX 7.4 for sm_80 and later (discard needs both): the driver compiles it
 * for the context's device; an older device fails the module load, and
 * cache control is off with that reason.
 */
const char cacheflush_ptx[] =
    ".version 7.4\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry gpuhier_l2_flush(.param .u64 buf, .param .u64 n16, .param .u32 never)\n"
    "{\n"
    "    .reg .pred %p<3>;\n"
    "    .reg .b32 %r<12>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [buf];\n"
    "    ld.param.u64 %rd2, [n16];\n"
    "    ld.param.u32 %r1, [never];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mul.wide.u32 %rd3, %r2, %r3;\n"
    "    cvt.u64.u32 %rd4, %r4;\n"
    "    add.u64 %rd3, %rd3, %rd4;\n"
    "    mov.u32 %r5, %nctaid.x;\n"
    "    mul.wide.u32 %rd5, %r5, %r3;\n"
    "    mov.u32 %r6, 0;\n"
    "$Lloop:\n"
    "    setp.ge.u64 %p1, %rd3, %rd2;\n"
    "    @%p1 bra $Ldone;\n"
    "    shl.b64 %rd6, %rd3, 4;\n"
    "    add.u64 %rd7, %rd1, %rd6;\n"
    "    ld.global.v4.u32 {%r7, %r8, %r9, %r10}, [%rd7];\n"
    "    xor.b32 %r6, %r6, %r7;\n"
    "    xor.b32 %r6, %r6, %r8;\n"
    "    xor.b32 %r6, %r6, %r9;\n"
    "    xor.b32 %r6, %r6, %r10;\n"
    "    add.u64 %rd3, %rd3, %rd5;\n"
    "    bra $Lloop;\n"
    "$Ldone:\n"
    "    setp.ne.u32 %p2, %r6, %r1;\n"
    "    @%p2 bra $Lend;\n"
    "    st.global.u32 [%rd1], %r6;\n"
    "$Lend:\n"
    "    ret;\n"
    "}\n"
    "\n"
    ".visible .entry gpuhier_l2_discard(.param .u64 buf, .param .u64 n128)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [buf];\n"
    "    ld.param.u64 %rd2, [n128];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mul.wide.u32 %rd3, %r2, %r3;\n"
    "    cvt.u64.u32 %rd4, %r4;\n"
    "    add.u64 %rd3, %rd3, %rd4;\n"
    "    mov.u32 %r5, %nctaid.x;\n"
    "    mul.wide.u32 %rd5, %r5, %r3;\n"
    "$Lloop:\n"
    "    setp.ge.u64 %p1, %rd3, %rd2;\n"
    "    @%p1 bra $Ldone;\n"
    "    shl.b64 %rd6, %rd3, 7;\n"
    "    add.u64 %rd7, %rd1, %rd6;\n"
    "    discard.global.L2 [%rd7], 128;\n"
    "    add.u64 %rd3, %rd3, %rd5;\n"
    "    bra $Lloop;\n"
    "$Ldone:\n"
    "    ret;\n"
    "}\n";

#define FLUSH_NEVER 0x9e3779b9u
#define FLUSH_L2_TIMES 2 /* the buffer is this many times the L2 */
#define FLUSH_THREADS 256
#define FLUSH_BLOCKS_PER_SM 8
#define FLUSH_CTX_MAX 16

static struct flush_ctx {
    CUcontext ctx;
    CUfunction fn_read, fn_discard;
    CUdeviceptr buf;
    uint64_t bytes;
    unsigned blocks;
    int failed; /* setup failed once on this context: do not retry every launch */
} ctxs[FLUSH_CTX_MAX];
static int nctx;
/* Buffer addresses, read by the writer thread (cacheflush_owns). */
static _Atomic uint64_t owned[FLUSH_CTX_MAX];
static __thread int tls_active;

int
cacheflush_active(void)
{
    return tls_active;
}

int
cacheflush_is_kernel(const char *name)
{
    return name && !strncmp(name, CACHEFLUSH_KERNEL_PREFIX, strlen(CACHEFLUSH_KERNEL_PREFIX));
}

int
cacheflush_owns(uint64_t addr)
{
    for (int i = 0; i < FLUSH_CTX_MAX; i++)
        if (addr && atomic_load_explicit(&owned[i], memory_order_acquire) == addr)
            return 1;
    return 0;
}

void
cacheflush_forget(CUcontext ctx)
{
    for (int i = 0; i < nctx; i++) {
        if (ctxs[i].ctx == ctx) {
            /* the context's memory goes with it: the address may come back as the program's */
            atomic_store_explicit(&owned[i], 0, memory_order_release);
            memset(&ctxs[i], 0, sizeof(ctxs[i]));
        }
    }
}

static int
driver_error(char *err, size_t n, const char *what, CUresult r)
{
    const char *name = NULL;
    if (gh.cuGetErrorName)
        gh.cuGetErrorName(r, &name);
    snprintf(err, n, "%s failed: %s", what, name ? name : "unknown error");
    return -1;
}

/* Loads the kernel and allocates the buffer on the current context `ctx`. */
static int
setup(struct flush_ctx *c, char *err, size_t n)
{
    if (!gh.cuCtxGetDevice || !gh.cuDeviceGetAttribute || !gh.cuModuleLoadData ||
        !gh.cuModuleGetFunction || !gh.cuMemAlloc_v2 || !gh.cuLaunchKernel ||
        !gh.cuCtxSynchronize) {
        snprintf(err, n, "the driver library lacks an entry point the flush needs");
        return -1;
    }
    CUdevice dev;
    CUresult r = gh.cuCtxGetDevice(&dev);
    if (r != CUDA_SUCCESS)
        return driver_error(err, n, "cuCtxGetDevice", r);
    int l2 = 0, sms = 0;
    gh.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
    gh.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    if (l2 <= 0 || sms <= 0) {
        snprintf(err, n, "the device reports no L2 size or SM count");
        return -1;
    }
    CUmodule mod;
    if ((r = gh.cuModuleLoadData(&mod, cacheflush_ptx)) != CUDA_SUCCESS)
        return driver_error(err, n, "cuModuleLoadData (the flush kernel's PTX)", r);
    if ((r = gh.cuModuleGetFunction(&c->fn_read, mod, CACHEFLUSH_KERNEL_PREFIX "flush")) !=
            CUDA_SUCCESS ||
        (r = gh.cuModuleGetFunction(&c->fn_discard, mod, CACHEFLUSH_KERNEL_PREFIX "discard")) !=
            CUDA_SUCCESS)
        return driver_error(err, n, "cuModuleGetFunction", r);
    c->bytes = (uint64_t)l2 * FLUSH_L2_TIMES;
    if ((r = gh.cuMemAlloc_v2(&c->buf, (size_t)c->bytes)) != CUDA_SUCCESS)
        return driver_error(err, n, "cuMemAlloc (the flush buffer, twice the L2)", r);
    /*
     * Not cleared: a memset would leave dirty lines for the profiled range
     * to write back. Whatever the buffer holds, its XOR meets FLUSH_NEVER
     * with a chance of 2^-32, and then the kernel stores one word.
     */
    c->blocks = (unsigned)sms * FLUSH_BLOCKS_PER_SM;
    atomic_store_explicit(&owned[c - ctxs], (uint64_t)c->buf, memory_order_release);
    return 0;
}

int
cacheflush_run(CUcontext ctx, uint64_t *bytes_read, char *err, size_t n)
{
    struct flush_ctx *c = NULL;
    for (int i = 0; i < nctx; i++)
        if (ctxs[i].ctx == ctx)
            c = &ctxs[i];
    for (int i = 0; i < nctx && !c; i++)
        if (!ctxs[i].ctx)
            c = &ctxs[i]; /* an entry cacheflush_forget() freed */
    if (!c) {
        if (nctx == FLUSH_CTX_MAX) {
            snprintf(err, n, "more than %d contexts profiled", FLUSH_CTX_MAX);
            return -1;
        }
        c = &ctxs[nctx++];
    }
    if (!c->ctx) {
        c->ctx = ctx;
        tls_active = 1;
        int rc = setup(c, err, n);
        tls_active = 0;
        if (rc) {
            c->failed = 1;
            return -1;
        }
    } else if (c->failed) {
        snprintf(err, n, "its set-up failed earlier on this context");
        return -1;
    }
    tls_active = 1;
    /* the program's earlier work first: it must not run (and dirty lines) after the flush */
    CUresult r = gh.cuCtxSynchronize();
    uint64_t n16 = c->bytes / 16, n128 = c->bytes / 128;
    unsigned never = FLUSH_NEVER;
    void *read_args[] = {&c->buf, &n16, &never};
    void *discard_args[] = {&c->buf, &n128};
    /* the legacy default stream: the discard starts after the read has ended */
    if (r == CUDA_SUCCESS)
        r = gh.cuLaunchKernel(c->fn_read, c->blocks, 1, 1, FLUSH_THREADS, 1, 1, 0, NULL, read_args,
                              NULL);
    if (r == CUDA_SUCCESS)
        r = gh.cuLaunchKernel(c->fn_discard, c->blocks, 1, 1, FLUSH_THREADS, 1, 1, 0, NULL,
                              discard_args, NULL);
    if (r == CUDA_SUCCESS)
        r = gh.cuCtxSynchronize();
    tls_active = 0;
    if (r != CUDA_SUCCESS)
        return driver_error(err, n, "the flush kernel", r);
    if (bytes_read)
        *bytes_read = c->bytes;
    return 0;
}
