/* SPDX-License-Identifier: MIT */
/*
 * hostargs: a launch's pointer arguments into page-locked host memory
 * (schema.sql launch_host_arg). A kernel given such a pointer reads or
 * writes host memory over the host link at every access (zero-copy); the
 * range profiler measures those bytes (host-memory-access), but a launch
 * it did not profile still shows the pointer. Each parameter's 8-byte
 * words are looked at (cuFuncGetParamInfo's sizes): a pointer passed
 * directly, or a pointer field of a structure passed by value (PyTorch's
 * and CUTLASS's kernels take their pointers so), up to HOSTARGS_WORDS
 * words a launch. Pointers behind a pointer (an array of pointers in
 * device memory) are not followed.
 */
#ifndef GPUHIER_COLLECTOR_HOSTARGS_H
#define GPUHIER_COLLECTOR_HOSTARGS_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#define HOSTARGS_MAX 4     /* host pointers recorded per launch; more are counted, not kept */
#define HOSTARGS_PARAMS 64 /* parameters looked at per launch */
#define HOSTARGS_WORDS 256 /* 8-byte words looked at per launch (2 KB of parameters) */

struct hostargs {
    int n;                              /* host pointers kept, at most HOSTARGS_MAX */
    uint8_t index[HOSTARGS_MAX];        /* their parameters, from 0 */
    uint64_t range_bytes[HOSTARGS_MAX]; /* their allocations' sizes, 0 unknown */
    uint8_t in_struct[HOSTARGS_MAX];    /* 1: a structure holding the pointer (GPUHIER_DEBUG) */
    uint8_t params;                     /* the parameters the driver gave (GPUHIER_DEBUG) */
    uint8_t as_kernel;                  /* read as a CUkernel's (GPUHIER_DEBUG) */
};

/* The driver calls the scan makes (the collector's gh table, a test's fakes). */
struct hostargs_api {
    CUresult (*param_info)(CUfunction, size_t, size_t *, size_t *);
    CUresult (*pointer_attribute)(void *, CUpointer_attribute, CUdeviceptr);
    /*
     * For a launch whose "function" is a CUkernel (the runtime's launches
     * since CUDA 12, context-independent loading): cuFuncGetParamInfo
     * answers CUDA_ERROR_INVALID_HANDLE to it. NULL: not asked. Either
     * this or param_info may be NULL (a driver without the other).
     */
    CUresult (*kernel_param_info)(CUkernel, size_t, size_t *, size_t *);
};

/*
 * The parameters of `f`, whose values `params` holds (cuLaunchKernel's
 * kernelParams: params[i] points to parameter i), that are 8-byte pointers
 * into page-locked host memory or structures holding such pointers, into
 * *out (a structure's range_bytes: its distinct allocations' sizes). Returns how many there were
 * (possibly more than out->n), 0 when `params` is NULL or the driver
 * cannot say.
 */
int hostargs_scan(const struct hostargs_api *api, CUfunction f, void *const *params,
                  struct hostargs *out);

#endif
