# SPDX-License-Identifier: MIT
"""bench/suite/cupy_kernels.py: the suite's CuPy workload, three raw kernels (cupy.RawModule).

copy_coalesced reads and writes 64 Mi floats in order; copy_strided32 reads them
as a 2-Mi x 32 transpose, so the 32 lanes of a warp read 32 floats 128 bytes
apart (one sector per lane: 32 sectors for 4 useful ones); transpose_smem
transposes an 8192 x 8192 matrix through a 32 x 32 shared-memory tile without
padding, so its column reads are 32-way bank conflicts. Each runs REPS times;
the results are checked on the GPU. Fixed data (arange), no download.
Prints one line at the end.
"""
# suite: class=CuPy native=60 gpuhier=60 ncu=90
# suite-ncu: --kernel-name-base function --kernel-name regex:^(copy_coalesced|copy_strided32|transpose_smem)$ --filter-mode per-launch-config --launch-count 1
import sys
import time

import cupy as cp

REPS = 5
N = 1 << 26          # floats per vector (256 MiB)
M = 8192             # transpose side (256 MiB)

SRC = r"""
extern "C" __global__ void copy_coalesced(const float *__restrict__ in, float *__restrict__ out, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 2.0f;
}

// out[i] = in[j] with j the transpose of i in an (n / 32) x 32 layout: consecutive i, 32 floats apart.
extern "C" __global__ void copy_strided32(const float *__restrict__ in, float *__restrict__ out, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long m = n / 32;
    if (i < n)
        out[i] = in[(i % m) * 32 + i / m] * 2.0f;
}

// 32 x 32 tiles, block 32 x 8; the tile has no padding column, so tile[threadIdx.x][...] hits one bank.
extern "C" __global__ void transpose_smem(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int k = 0; k < 32; k += 8)
        tile[threadIdx.y + k][threadIdx.x] = in[(long long)(y + k) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int k = 0; k < 32; k += 8)
        out[(long long)(y + k) * n + x] = tile[threadIdx.x][threadIdx.y + k];
}
"""


def main():
    t0 = time.time()
    mod = cp.RawModule(code=SRC)
    coalesced, strided, transpose = (mod.get_function(n) for n in ("copy_coalesced", "copy_strided32",
                                                                     "transpose_smem"))
    x = cp.arange(N, dtype=cp.float32)
    y = cp.empty_like(x)
    a = cp.arange(M * M, dtype=cp.float32).reshape(M, M)
    at = cp.empty_like(a)
    threads = 256
    blocks = (N + threads - 1) // threads
    for _ in range(REPS):
        coalesced((blocks,), (threads,), (x, y, cp.int64(N)))
        strided((blocks,), (threads,), (x, y, cp.int64(N)))
        transpose((M // 32, M // 32), (32, 8), (a, at, cp.int32(M)))
    cp.cuda.Device().synchronize()
    ok = bool(cp.all(at == a.T)) and bool(y[N - 1] == 2.0 * x[N - 1])
    m = N // 32
    ok = ok and float(y[1]) == 2.0 * float(x[32]) and float(y[m]) == 2.0 * float(x[1])
    if not ok:
        print("cupy_kernels: wrong result", file=sys.stderr)
        return 1
    print("cupy_kernels ok: 3 kernels x %d in %.2f s (cupy %s)" % (REPS, time.time() - t0, cp.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
