/* SPDX-License-Identifier: MIT */
/*
 * hostargs_scan() (collector/hostargs.c) on a fake driver: a kernel of
 * five parameters (a host pointer, an int, a device pointer, a struct of
 * 16 bytes holding a host pointer at byte 8, a second host pointer whose
 * range the driver will not give) yields parameters 0, 3 and 4, with 0's
 * and 3's ranges; a struct holding two pointers into one allocation
 * counts it once, into two allocations both; words past HOSTARGS_WORDS,
 * values that cannot be user addresses, small values, 4-byte parameters
 * and NULL kernelParams yield nothing; a kernel of more host
 * pointers than HOSTARGS_MAX keeps the first ones and counts them all; a
 * launch whose function is a CUkernel (the runtime's, found on an H100:
 * cuFuncGetParamInfo answered CUDA_ERROR_INVALID_HANDLE) is read through
 * cuKernelGetParamInfo.
 */
#include "collector/hostargs.h"

#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                    \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* the fake kernel's parameter sizes, ended by 0 */
static const size_t *sizes;
/* host allocations: [start, start + bytes); range 0 = the driver will not say */
static const struct {
    uint64_t start, bytes;
    int range_known;
} host[] = {{0x7f0000000000ull, 1 << 20, 1}, {0x7f1000000000ull, 4096, 0},
            {0x7f2000000000ull, 1 << 16, 1}, {0x7f3000000000ull, 4096, 1},
            {0x7f4000000000ull, 4096, 1},    {0x7f5000000000ull, 4096, 1}};
static int queries;

static CUresult
fake_param_info(CUfunction f, size_t i, size_t *off, size_t *size)
{
    (void)f;
    if (!sizes[i])
        return CUDA_ERROR_INVALID_VALUE;
    *off = 0;
    for (size_t k = 0; k < i; k++)
        *off += sizes[k];
    *size = sizes[i];
    return CUDA_SUCCESS;
}

/* the runtime's launches pass a CUkernel: cuFuncGetParamInfo refuses it */
static CUresult
refusing_param_info(CUfunction f, size_t i, size_t *off, size_t *size)
{
    (void)f, (void)i, (void)off, (void)size;
    return CUDA_ERROR_INVALID_HANDLE;
}

static CUresult
fake_kernel_param_info(CUkernel k, size_t i, size_t *off, size_t *size)
{
    return fake_param_info((CUfunction)k, i, off, size);
}

static CUresult
fake_pointer_attribute(void *data, CUpointer_attribute attr, CUdeviceptr p)
{
    queries++;
    for (size_t k = 0; k < sizeof(host) / sizeof(host[0]); k++) {
        if (p < host[k].start || p >= host[k].start + host[k].bytes)
            continue;
        if (attr == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) {
            *(unsigned int *)data = CU_MEMORYTYPE_HOST;
            return CUDA_SUCCESS;
        }
        if (attr == CU_POINTER_ATTRIBUTE_RANGE_SIZE && host[k].range_known) {
            *(size_t *)data = host[k].bytes;
            return CUDA_SUCCESS;
        }
        if (attr == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR) {
            *(CUdeviceptr *)data = (CUdeviceptr)host[k].start;
            return CUDA_SUCCESS;
        }
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (p >= 0x300000000ull && attr == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) { /* device memory */
        *(unsigned int *)data = CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

int
main(void)
{
    const struct hostargs_api api = {fake_param_info, fake_pointer_attribute};
    CUfunction f = (CUfunction)(uintptr_t)1;
    struct hostargs h;

    static const size_t five[] = {8, 4, 8, 16, 8, 0};
    uint64_t p0 = 0x7f0000000100ull, p2 = 0x300001000ull, p4 = 0x7f1000000010ull;
    int n = 7;
    unsigned char rec[16];
    memset(rec, 0, sizeof(rec));
    uint64_t p5 = 0x7f2000000040ull;
    memcpy(rec, &n, sizeof(n));
    memcpy(rec + 8, &p5, sizeof(p5)); /* a structure {int; const float *} holding a host pointer */
    void *params[] = {&p0, &n, &p2, rec, &p4};
    sizes = five;
    CHECK(hostargs_scan(&api, f, params, &h) == 3);
    CHECK(h.n == 3 && h.index[0] == 0 && h.index[1] == 3 && h.index[2] == 4);
    CHECK(h.range_bytes[0] == 1 << 20 && h.range_bytes[1] == 1 << 16 && h.range_bytes[2] == 0);
    CHECK(!h.in_struct[0] && h.in_struct[1] && !h.in_struct[2]);
    CHECK(h.params == 5 && !h.as_kernel);

    /* a structure of four words: two pointers into one allocation, one into another, a float pair */
    static const size_t one_struct[] = {32, 0};
    uint64_t words[4] = {0x7f2000000000ull, 0x7f2000000100ull, 0x7f0000000008ull,
                         0x3f8000003f800000ull};
    void *struct_params[] = {words};
    sizes = one_struct;
    queries = 0;
    CHECK(hostargs_scan(&api, f, struct_params, &h) == 1 && h.n == 1 && h.index[0] == 0);
    CHECK(h.range_bytes[0] == (1 << 16) + (1 << 20) && h.in_struct[0]);
    CHECK(queries == 3 * 3); /* the float pair is no user address: never asked about */
    /* the same with one pointer whose allocation's size the driver will not give: unknown */
    words[3] = 0x7f1000000000ull;
    CHECK(hostargs_scan(&api, f, struct_params, &h) == 1 && h.range_bytes[0] == 0);

    /* pointers into five allocations, more than HOSTARGS_MAX, the last two met again: each counted once */
    static const size_t one_wide[] = {56, 0};
    uint64_t wide[7] = {0x7f0000000000ull, 0x7f2000000000ull, 0x7f3000000000ull, 0x7f4000000000ull,
                        0x7f5000000000ull, 0x7f5000000800ull, 0x7f4000000010ull};
    void *wide_params[] = {wide};
    sizes = one_wide;
    CHECK(hostargs_scan(&api, f, wide_params, &h) == 1 && h.n == 1);
    CHECK(h.range_bytes[0] == (1 << 20) + (1 << 16) + 3 * 4096);

    /* a structure larger than HOSTARGS_WORDS words: its pointer past the last word looked at */
    static uint64_t big[HOSTARGS_WORDS + 1];
    big[HOSTARGS_WORDS] = p0;
    static size_t big_size[] = {sizeof(big), 0};
    void *big_params[] = {big};
    sizes = big_size;
    queries = 0;
    CHECK(hostargs_scan(&api, f, big_params, &h) == 0 && queries == 0);
    big[HOSTARGS_WORDS - 1] = p0;
    CHECK(hostargs_scan(&api, f, big_params, &h) == 1 && h.index[0] == 0);

    /* a small integer in an 8-byte parameter is never asked about */
    static const size_t one[] = {8, 0};
    uint64_t small = 12;
    void *small_params[] = {&small};
    sizes = one;
    queries = 0;
    CHECK(hostargs_scan(&api, f, small_params, &h) == 0 && h.n == 0 && queries == 0);

    /* a launch with `extra` instead of kernelParams, no function, no driver */
    CHECK(hostargs_scan(&api, f, NULL, &h) == 0 && h.n == 0);
    CHECK(hostargs_scan(&api, NULL, params, &h) == 0);
    const struct hostargs_api none = {0};
    CHECK(hostargs_scan(&none, f, params, &h) == 0);

    /* six host pointers: the first HOSTARGS_MAX kept, all six counted */
    static const size_t six[] = {8, 8, 8, 8, 8, 8, 0};
    void *many[] = {&p0, &p0, &p0, &p0, &p0, &p0};
    sizes = six;
    CHECK(hostargs_scan(&api, f, many, &h) == 6);
    CHECK(h.n == HOSTARGS_MAX && h.index[HOSTARGS_MAX - 1] == HOSTARGS_MAX - 1);

    /* a CUkernel: read through cuKernelGetParamInfo, and nothing without it */
    const struct hostargs_api kernel_api = {refusing_param_info, fake_pointer_attribute,
                                            fake_kernel_param_info};
    sizes = five;
    CHECK(hostargs_scan(&kernel_api, f, params, &h) == 3 && h.n == 3 && h.index[2] == 4);
    CHECK(h.params == 5 && h.as_kernel);
    const struct hostargs_api kernel_only_api = {NULL, fake_pointer_attribute,
                                                 fake_kernel_param_info};
    CHECK(hostargs_scan(&kernel_only_api, f, params, &h) == 3 && h.as_kernel);
    const struct hostargs_api no_kernel_api = {refusing_param_info, fake_pointer_attribute, NULL};
    CHECK(hostargs_scan(&no_kernel_api, f, params, &h) == 0 && h.n == 0);

    printf(failures ? "test_hostargs: %d failure(s)\n" : "test_hostargs: ok\n", failures);
    return failures != 0;
}
