/* SPDX-License-Identifier: MIT */
/*
 * hostargs: a launch's pointer arguments into page-locked host memory
 * (hostargs.h).
 */
#include "collector/hostargs.h"

#include <string.h>

/* Below this no allocation starts (the first page is never mapped). */
#define LOWEST_POINTER 4096u
/* user addresses lie below 2^48 (x86-64 with 4-level paging, AArch64 with 48-bit addresses) */
#define HIGHEST_POINTER (1ull << 48)

/*
 * The page-locked host allocation `v` points into: 1 with its size in
 * *range (0 unknown) and its start in *start (0 unknown), else 0.
 */
static int
host_pointer(const struct hostargs_api *api, uint64_t v, size_t *range, uint64_t *start)
{
    unsigned int type = 0;
    if (v < LOWEST_POINTER || v >= HIGHEST_POINTER ||
        api->pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)v) !=
            CUDA_SUCCESS ||
        type != CU_MEMORYTYPE_HOST)
        return 0;
    *range = 0;
    *start = 0;
    if (api->pointer_attribute(range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, (CUdeviceptr)v) !=
        CUDA_SUCCESS)
        *range = 0;
    CUdeviceptr s = 0;
    if (api->pointer_attribute(&s, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, (CUdeviceptr)v) ==
        CUDA_SUCCESS)
        *start = (uint64_t)s;
    return 1;
}

/*
 * Parameter `i`, of `size` bytes at `p`: 1 when it is, or (a structure
 * passed by value) holds in one of its 8-byte-aligned words, a pointer
 * into page-locked host memory; *range is the size of the distinct
 * allocations it points into (several pointers into one allocation count
 * it once; 0, unknown, when the driver does not give one of their
 * sizes). *words counts the launch's words looked at, up to HOSTARGS_WORDS.
 */
static int
param_points_to_host(const struct hostargs_api *api, const unsigned char *p, size_t size,
                     size_t *words, uint64_t *range)
{
    /* every allocation start met, so that none is counted twice: at most one a word looked at */
    uint64_t seen[HOSTARGS_WORDS];
    int found = 0, kept = 0, unknown = 0;
    *range = 0;
    for (size_t off = 0; off + sizeof(uint64_t) <= size && *words < HOSTARGS_WORDS;
         off += sizeof(uint64_t), ++*words) {
        uint64_t v, start;
        size_t bytes;
        memcpy(&v, p + off, sizeof(v));
        if (!host_pointer(api, v, &bytes, &start))
            continue;
        int again = 0;
        for (int k = 0; k < kept && start; k++)
            again |= seen[k] == start;
        if (!again) {
            *range += bytes;
            unknown |= bytes == 0;
            if (start && kept < HOSTARGS_WORDS)
                seen[kept++] = start;
        }
        found = 1;
    }
    if (unknown)
        *range = 0;
    return found;
}

int
hostargs_scan(const struct hostargs_api *api, CUfunction f, void *const *params,
              struct hostargs *out)
{
    memset(out, 0, sizeof(*out));
    if (!api || (!api->param_info && !api->kernel_param_info) || !api->pointer_attribute || !f ||
        !params)
        return 0;
    int found = 0;
    int as_kernel = !api->param_info;
    size_t words = 0;
    for (size_t i = 0; i < HOSTARGS_PARAMS; i++) {
        size_t off = 0, size = 0;
        CUresult r = as_kernel ? api->kernel_param_info((CUkernel)f, i, &off, &size)
                               : api->param_info(f, i, &off, &size);
        /* the first parameter tells a CUkernel, which cuFuncGetParamInfo refuses */
        if (i == 0 && r == CUDA_ERROR_INVALID_HANDLE && !as_kernel && api->kernel_param_info) {
            as_kernel = 1;
            r = api->kernel_param_info((CUkernel)f, i, &off, &size);
        }
        if (r != CUDA_SUCCESS)
            break; /* past the last parameter */
        out->params = (uint8_t)(i + 1);
        uint64_t range = 0;
        /* a pointer is 8 bytes; a structure's pointer fields lie at multiples of 8 within it */
        if (size < sizeof(uint64_t) || !params[i] ||
            !param_points_to_host(api, params[i], size, &words, &range))
            continue;
        if (out->n < HOSTARGS_MAX) {
            out->index[out->n] = (uint8_t)i;
            out->range_bytes[out->n] = range;
            out->in_struct[out->n] = size > sizeof(uint64_t);
            out->n++;
        }
        found++;
    }
    out->as_kernel = (uint8_t)as_kernel;
    return found;
}
