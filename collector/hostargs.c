/* SPDX-License-Identifier: MIT */
/*
 * hostargs: a launch's pointer arguments into page-locked host memory
 * (hostargs.h).
 */
#include "collector/hostargs.h"

#include <string.h>

/* Below this no allocation starts (the first page is never mapped). */
#define LOWEST_POINTER 4096u

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
        if (size != sizeof(uint64_t) || !params[i])
            continue;
        uint64_t v;
        memcpy(&v, params[i], sizeof(v));
        unsigned int type = 0;
        if (v < LOWEST_POINTER ||
            api->pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)v) !=
                CUDA_SUCCESS ||
            type != CU_MEMORYTYPE_HOST)
            continue;
        if (out->n < HOSTARGS_MAX) {
            size_t range = 0;
            if (api->pointer_attribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, (CUdeviceptr)v) !=
                CUDA_SUCCESS)
                range = 0;
            out->index[out->n] = (uint8_t)i;
            out->range_bytes[out->n] = range;
            out->n++;
        }
        found++;
    }
    out->as_kernel = (uint8_t)as_kernel;
    return found;
}
