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
// Case (argv): scatter -- kernel scatter_add: out[dest(i)] += 1 for 16 Mi updates, each destination once;
//   grid = SMs x 8 blocks of 256 threads, grid-stride loop.
//   Defect: dest(i) = (i * 0x9E3779B1) mod 16 Mi, a permutation that gives a warp's 32 lanes destinations
//   far apart: each warp's RED.E.ADD touches 32 sectors for 128 requested bytes (ideal 4), as a scatter-add
//   indexed by data does (PyTorch's scatter_add_, index_add_).
//   FIXED: the updates sorted by destination, dest(i) = i: the same reductions, 4 sectors each.
// Findings: defect: must uncoalesced-global-atomic; may floor-distance, scalar-access, latency-not-hidden.
//   fixed: none; may floor-distance, scalar-access, latency-not-hidden.
// Key metric: global reduction warp instructions smsp__inst_executed_op_global_red.sum = 16 Mi / 32 =
//   524 288 in both.
// Harness: every one of the 16 Mi destinations must hold 1 after each repetition (checked in full).
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

// TK_REPS timed repetitions of go (10 by default); 0 or less: one untimed run, 0 ms.
template <typename F> static float timed_reps(F go)
{
  const char *r = getenv("TK_REPS");
  int reps = r ? atoi(r) : 10;
  if (reps > 0)
    return tk_time(reps, go);
  go();
  CKL();
  return 0;
}

#define SCATTER_N ((size_t)16 << 20)

__host__ __device__ static inline size_t dest_of(size_t i)
{
#ifdef FIXED
  return i;
#else
  return (size_t)((unsigned)i * 0x9E3779B1u) & (SCATTER_N - 1); /* odd multiplier: a permutation mod 2^24 */
#endif
}

__global__ void scatter_add(float *__restrict__ out)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < SCATTER_N; i += (size_t)gridDim.x * blockDim.x)
    atomicAdd(&out[dest_of(i)], 1.0f);
}

static int scatter(const cudaDeviceProp &p)
{
  unsigned blocks = (unsigned)p.multiProcessorCount * 8;
  float *out;
  CK(cudaMalloc(&out, SCATTER_N * sizeof(float)));
  float ms = timed_reps([&] {
    CK(cudaMemsetAsync(out, 0, SCATTER_N * sizeof(float)));
    scatter_add<<<blocks, 256>>>(out);
  });
  float *h = tk_host_copy(out, SCATTER_N);
  for (size_t j = 0; j < SCATTER_N; j++)
    if (h[j] != 1.0f)
      tk_fail("scatter_add", (long)j, h[j], 1.0f);
  tk_free_host(h);
  if (ms > 0)
    tk_report("scatter", "scatter_add", ms, 0);
  CK(cudaFree(out));
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && !strcmp(argv[1], "scatter"))
    return scatter(tk_device());
  if (argc < 2 || strcmp(argv[1], "hist"))
    tk_usage(argv[0], "hist|scatter");
  cudaDeviceProp p = tk_device();
  unsigned blocks = (unsigned)p.multiProcessorCount * 8;
  unsigned *hist;
  CK(cudaMalloc(&hist, BINS * sizeof(unsigned)));
  float ms = timed_reps([&] {
    CK(cudaMemsetAsync(hist, 0, BINS * sizeof(unsigned)));
    histogram<<<blocks, 256>>>(hist);
  });
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
