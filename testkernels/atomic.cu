// SPDX-License-Identifier: MIT
// atomic: a histogram with global atomics on a few addresses vs a shared-memory histogram first
// (J practice problem 4; rule 19).
// Built twice: tk_atomic (defect) and tk_atomic_fixed (-DFIXED); same kernel name.
// Case (argv): hist -- kernel histogram: 64 Mi keys (key = hash(i) mod 16) counted into 16 bins;
//   grid = SMs x 8 blocks of 256 threads, grid-stride loop.
//   Defect: atomicAdd(&hist[key], 1) in global memory for every key: every update of every block
//   meets the others at 16 addresses in L2 (RED.E.ADD, serialized per address).
//   FIXED: each block counts into 16 shared-memory bins (shared atomics), then adds its 16 bins to
//   the global histogram once.
// Findings: defect: must atomic-contention; may floor-distance.  fixed: none; may floor-distance.
// Key metric: global reduction warp instructions smsp__inst_executed_op_global_red.sum:
//   defect 64 Mi / 32 = 2 097 152 (one RED per warp per key); fixed: 1056 blocks x 1 warp (threads
//   0..15 of warp 0) = 1056 on a 132-SM H200.
// Harness: the 16 bins (64 B) come back through pinned memory and are checked in full.
#include "tk_common.h"

#define N ((size_t)64 << 20)
#define BINS 16

__host__ __device__ static inline unsigned key_of(size_t i)
{
  unsigned h = (unsigned)i * 0x9E3779B1u;
  h ^= h >> 16;
  return h % BINS;
}

__global__ void histogram(unsigned *__restrict__ hist)
{
#ifdef FIXED
  __shared__ unsigned s[BINS];
  if (threadIdx.x < BINS)
    s[threadIdx.x] = 0;
  __syncthreads();
#endif
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N; i += (size_t)gridDim.x * blockDim.x) {
#ifdef FIXED
    atomicAdd(&s[key_of(i)], 1u);
#else
    atomicAdd(&hist[key_of(i)], 1u);
#endif
  }
#ifdef FIXED
  __syncthreads();
  if (threadIdx.x < BINS)
    atomicAdd(&hist[threadIdx.x], s[threadIdx.x]);
#endif
}

int main(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "hist"))
    tk_usage(argv[0], "hist");
  cudaDeviceProp p = tk_device();
  unsigned blocks = (unsigned)p.multiProcessorCount * 8;
  unsigned *hist;
  CK(cudaMalloc(&hist, BINS * sizeof(unsigned)));
  const char *r = getenv("TK_REPS");
  int reps = r ? atoi(r) : 10;
  auto go = [&] {
    CK(cudaMemsetAsync(hist, 0, BINS * sizeof(unsigned)));
    histogram<<<blocks, 256>>>(hist);
  };
  float ms = 0;
  if (reps <= 0) {
    go();
    CKL();
  } else {
    ms = tk_time(reps, go);
  }
  unsigned *h = tk_host_copy(hist, BINS), want[BINS] = {0};
  for (size_t i = 0; i < N; i++)
    want[key_of(i)]++;
  for (int b = 0; b < BINS; b++)
    if (h[b] != want[b])
      tk_fail("histogram", b, h[b], want[b]);
  tk_free_host(h);
  if (ms > 0)
    tk_report("hist", "histogram", ms, 0);
  CK(cudaFree(hist));
  return 0;
}
