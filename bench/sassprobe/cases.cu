// SPDX-License-Identifier: MIT
//
// bench/sassprobe/cases.cu: the CUDA workload of the SASS-metrics probe
// (issue 17). Seven distinct kernels with a known access pattern, each
// launched LAUNCHES (3) times, in one module loaded lazily (the CUDA 12+
// default). Built with -lineinfo so pcs map to lines of this file. The
// expected ratios (kernel-level, loads and stores together) are in
// bench/sassprobe/table.py. Prints one line at the end, nothing else.
#include <cstdio>
#include <cuda_runtime.h>

#define LAUNCHES 3

struct s12 {
    float x, y, z;
};

// 12-byte stride: a warp's load of .x touches 12 sectors, ideal 4; the store is coalesced.
__global__ void struct12_read(const s12 *a, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i].x;
}

// Thread per row of a row-major matrix: each A load touches 32 sectors (ideal 4), x is broadcast.
__global__ void matvec_row(const float *A, const float *x, float *y, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n)
        return;
    float acc = 0.f;
    for (int j = 0; j < n; j++)
        acc += A[(size_t)row * n + j] * x[j];
    y[row] = acc;
}

__global__ void copy_coalesced(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

__global__ void copy_float4(const float4 *in, float4 *out, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4)
        out[i] = in[i];
}

// 32x32 tile, written by rows (1 wavefront) and read by columns (32-way bank conflict).
__global__ void smem_conflict(const float *in, float *out, int n)
{
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[(size_t)y * n + x];
    __syncthreads();
    out[(size_t)y * n + x] = tile[threadIdx.x][threadIdx.y];
}

// The padded twin: one column of padding puts a column's 32 words in 32 banks.
__global__ void smem_padded(const float *in, float *out, int n)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[(size_t)y * n + x];
    __syncthreads();
    out[(size_t)y * n + x] = tile[threadIdx.x][threadIdx.y];
}

// A dynamically indexed per-thread array lives in local memory: local loads are not zero.
__global__ void local_array(const int *idx, float *out, int n)
{
    float buf[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int k = 0; k < 64; k++)
        buf[k] = (float)(k + i);
    float acc = 0.f;
    for (int k = 0; k < 16; k++)
        acc += buf[(idx[i] + k * 7) & 63];
    out[i] = acc;
}

static int
check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        printf("cases failed: %s: %s\n", what, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

int
main(void)
{
    const int n = 1 << 22;   // 4 Mi elements for the streaming kernels
    const int nm = 4096;     // matrix side for matvec_row (64 MiB)
    const int nt = 2048;     // transpose side for the shared tiles
    float *a, *b, *x, *y;
    int *idx;
    if (check(cudaMalloc(&a, (size_t)nm * nm * sizeof(float)), "cudaMalloc a") ||
        check(cudaMalloc(&b, (size_t)nm * nm * sizeof(float)), "cudaMalloc b") ||
        check(cudaMalloc(&x, nm * sizeof(float)), "cudaMalloc x") ||
        check(cudaMalloc(&y, nm * sizeof(float)), "cudaMalloc y") ||
        check(cudaMalloc(&idx, n * sizeof(int)), "cudaMalloc idx"))
        return 1;
    cudaMemset(a, 0, (size_t)nm * nm * sizeof(float));
    cudaMemset(x, 0, nm * sizeof(float));
    cudaMemset(idx, 0, n * sizeof(int));
    for (int r = 0; r < LAUNCHES; r++) {
        struct12_read<<<(n / 2 + 255) / 256, 256>>>((const s12 *)a, b, n / 2);
        matvec_row<<<nm / 128, 128>>>(a, x, y, nm);
        copy_coalesced<<<(n + 255) / 256, 256>>>(a, b, n);
        copy_float4<<<(n / 4 + 255) / 256, 256>>>((const float4 *)a, (float4 *)b, n / 4);
        smem_conflict<<<dim3(nt / 32, nt / 32), dim3(32, 32)>>>(a, b, nt);
        smem_padded<<<dim3(nt / 32, nt / 32), dim3(32, 32)>>>(a, b, nt);
        local_array<<<(n / 8 + 255) / 256, 256>>>(idx, b, n / 8);
        if (check(cudaDeviceSynchronize(), "kernels"))
            return 1;
    }
    cudaFree(a);
    cudaFree(b);
    cudaFree(x);
    cudaFree(y);
    cudaFree(idx);
    printf("cases ok: 7 kernels x %d launches\n", LAUNCHES);
    return 0;
}
