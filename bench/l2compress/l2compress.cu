// SPDX-License-Identifier: MIT
// bench/l2compress/l2compress.cu: does the H200's L2 compression see plain
// cudaMalloc memory? (issue 19 point 8, docs/suite.md "MemoryL2Compression")
//
// Writes 64 MiB of zeros and 64 MiB of noise into two buffers: one from
// cudaMalloc, one from cuMemCreate with CU_MEM_ALLOCATION_COMP_GENERIC (when
// the device supports it), then reads each back. Each (data, memory) pair is
// its own kernel name, launched twice, so a profiler's rows say which is
// which: zeros_plain, noise_plain, read_plain, zeros_comp, noise_comp,
// read_comp. Prints what it allocated; exit 0, or 1 on a CUDA error (the
// compressible half is skipped, with a line saying why, where the device or
// driver has no generic compression).
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdint.h>

#define N ((size_t)16 << 20) /* floats: 64 MiB */

__device__ static float noise(size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    return (float)x;
}

#define KERNELS(tag)                                                                               \
    __global__ void zeros_##tag(float *p)                                                          \
    {                                                                                              \
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N;                      \
             i += (size_t)gridDim.x * blockDim.x)                                                  \
            p[i] = 0.0f;                                                                           \
    }                                                                                              \
    __global__ void noise_##tag(float *p)                                                          \
    {                                                                                              \
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N;                      \
             i += (size_t)gridDim.x * blockDim.x)                                                  \
            p[i] = noise(i);                                                                       \
    }                                                                                              \
    __global__ void read_##tag(const float *p, float *out)                                        \
    {                                                                                              \
        float s = 0.0f;                                                                            \
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N;                      \
             i += (size_t)gridDim.x * blockDim.x)                                                  \
            s += p[i];                                                                             \
        if (s == 12345.0f)                                                                         \
            *out = s;                                                                              \
    }
KERNELS(plain)
KERNELS(comp)

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "l2compress: %s: %s\n", #x, cudaGetErrorString(e_));                  \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static const char *cuerr(CUresult r)
{
    const char *s = "unknown";
    cuGetErrorString(r, &s);
    return s;
}

/* a compressible allocation of n bytes, or NULL with the reason printed */
static float *comp_alloc(size_t n, int dev)
{
    CUdevice d;
    int supported = 0;
    CUresult r = cuDeviceGet(&d, dev);
    if (r == CUDA_SUCCESS)
        r = cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, d);
    if (r != CUDA_SUCCESS || !supported) {
        printf("compressible: not supported (%s, attribute %d)\n", cuerr(r), supported);
        return NULL;
    }
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
    size_t gran = 0;
    r = cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
    if (r != CUDA_SUCCESS) {
        printf("compressible: granularity: %s\n", cuerr(r));
        return NULL;
    }
    n = (n + gran - 1) / gran * gran;
    CUmemGenericAllocationHandle h;
    CUdeviceptr p = 0;
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if ((r = cuMemCreate(&h, n, &prop, 0)) != CUDA_SUCCESS ||
        (r = cuMemAddressReserve(&p, n, 0, 0, 0)) != CUDA_SUCCESS ||
        (r = cuMemMap(p, n, 0, h, 0)) != CUDA_SUCCESS || (r = cuMemSetAccess(p, n, &acc, 1)) != CUDA_SUCCESS) {
        printf("compressible: allocation: %s\n", cuerr(r));
        return NULL;
    }
    CUmemAllocationProp got = {};
    cuMemGetAllocationPropertiesFromHandle(&got, h);
    printf("compressible: %zu bytes, compressionType %s\n", n,
           got.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC ? "GENERIC (kept)" : "NONE (dropped)");
    return (float *)p;
}

int main(void)
{
    int dev = 0;
    float *plain, *out;
    CK(cudaSetDevice(dev));
    CK(cudaMalloc(&plain, N * sizeof(float)));
    CK(cudaMalloc(&out, sizeof(float)));
    float *comp = comp_alloc(N * sizeof(float), dev);
    for (int k = 0; k < 2; k++) {
        zeros_plain<<<1056, 512>>>(plain);
        read_plain<<<1056, 512>>>(plain, out);
        noise_plain<<<1056, 512>>>(plain);
        read_plain<<<1056, 512>>>(plain, out);
        if (comp) {
            zeros_comp<<<1056, 512>>>(comp);
            read_comp<<<1056, 512>>>(comp, out);
            noise_comp<<<1056, 512>>>(comp);
            read_comp<<<1056, 512>>>(comp, out);
        }
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("l2compress: %zu MiB written per kernel, %s\n", N * sizeof(float) >> 20,
           comp ? "plain and compressible" : "plain only");
    return 0;
}
