// SPDX-License-Identifier: MIT
// tk_unseen: memory-hierarchy pathologies that no rule was written or tuned
// against, each beside a clean kernel, for the suite's check against Nsight
// Compute (bench/suite/unseen.sh, docs/suite.md "Pathologies no rule was
// tuned on"). Not a manifest case: what each kernel should get is written
// beside it here, and the suite's table says what gpuhier and ncu made of it.
//
// usage: tk_unseen all (every kernel in turn). TK_REPS (default 3): timed
// launches of each kernel after its warm-up launch.
#include "tk_common.h"
#include <cuda_fp16.h>

static const int N = 1 << 24; // elements of the streaming kernels (64 MiB of floats)

// 1. A field of a 32-byte record (three doubles and a float): one float per
//    thread at a 32-byte stride, 32 sectors per load instruction for an ideal
//    of 4. Expected: uncoalesced-global-load.
struct Particle {
  double px, py, pz;
  float mass;
};
__global__ void aos_mass(const Particle *p, float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = p[i].mass * 2.0f;
}

// 2. Half-precision stores at a stride of two: 64 bytes requested per warp
//    over 128 bytes. Expected: uncoalesced-global-store (50 % of each sector).
__global__ void half_stride2_store(const float *in, __half *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[2 * (size_t)i] = __float2half(in[i]);
}

// 3. The interleaved-addressing tree reduction with strided indices (Harris,
//    "Optimizing Parallel Reduction in CUDA", kernel 2): 2-, 4-, ... 32-way
//    shared-memory bank conflicts. Expected: shared-bank-conflicts.
__global__ void reduce_strided_index(const float *in, float *out, int n)
{
  __shared__ float s[256];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  s[t] = i < (unsigned)n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned d = 1; d < blockDim.x; d *= 2) {
    unsigned k = 2 * d * t;
    if (k < blockDim.x)
      s[k] += s[k + d];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// 3'. The same reduction with sequential addressing (Harris, kernel 3): no
//     conflicts. Expected: no shared-memory finding.
__global__ void reduce_sequential(const float *in, float *out, int n)
{
  __shared__ float s[256];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  s[t] = i < (unsigned)n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
    if (t < d)
      s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// 4. A histogram of 8 bins with global atomics: every thread of the grid
//    adds to one of 8 addresses. Expected: atomic-contention.
__global__ void hist8_global(const float *in, unsigned *bins, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[__float_as_uint(in[i]) & 7u], 1u);
}

// 5. A per-thread array indexed by data: it lives in local memory although
//    nothing spills. Expected: local-memory-traffic.
__global__ void local_lookup(const float *in, float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float table[48];
  for (int k = 0; k < 48; k++)
    table[k] = in[(i + k * 1024) & (n - 1)];
  float acc = 0.0f;
  unsigned h = (unsigned)i * 2654435761u;
  for (int k = 0; k < 16; k++) {
    h = h * 1664525u + 1013904223u;
    acc += table[h % 48u];
  }
  out[i] = acc;
}

// 6. A coalesced copy in blocks of 48 threads: the second warp of each block
//    runs 16 of its 32 lanes. Expected: block-shape.
__global__ void copy_block48(const float *in, float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

// 7. Clean kernels, expected to get no access-pattern finding: a float4
//    copy, and a broadcast (each warp reads one float, all lanes alike).
__global__ void copy_float4(const float4 *in, float4 *out, int n4)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4)
    out[i] = in[i];
}
__global__ void broadcast_scale(const float *scale, float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = scale[blockIdx.x & 1023] * (float)i;
}

// 8. A streaming sum over the whole array by 8 blocks of 128 threads (a grid-
//    stride loop): 32 warps in flight on a 132-SM GPU, so the memory system
//    waits. Expected: latency-not-hidden (or floor-distance).
__global__ void sum_few_blocks(const float *in, float *out, int n)
{
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += in[i];
  atomicAdd(out, acc);
}

// 9. A kernel reading mapped pinned host memory (zero-copy) element by
//    element, every launch. Expected: host-memory-access.
__global__ void read_host_mapped(const float *host, float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = host[i] + 1.0f;
}

int main(int argc, char **argv)
{
  if (argc != 2 || strcmp(argv[1], "all")) {
    fprintf(stderr, "usage: tk_unseen all (every pathology and clean kernel in turn; TK_REPS timed launches each)\n");
    return 2;
  }
  const char *r = getenv("TK_REPS");
  int reps = r ? atoi(r) : 3;
  if (reps < 1)
    reps = 1;
  float *in, *out, *host, *host_dev;
  Particle *parts;
  __half *halves;
  unsigned *bins;
  const int nparts = N / 4, nhost = 1 << 20;
  CK(cudaMalloc(&in, (size_t)N * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)N * sizeof(float)));
  CK(cudaMalloc(&parts, (size_t)nparts * sizeof(Particle)));
  CK(cudaMalloc(&halves, 2 * (size_t)N * sizeof(__half)));
  CK(cudaMalloc(&bins, 8 * sizeof(unsigned)));
  CK(cudaHostAlloc(&host, (size_t)nhost * sizeof(float), cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer(&host_dev, host, 0));
  {
    std::vector<float> h(N);
    for (int i = 0; i < N; i++)
      h[i] = tk_val((unsigned long long)i);
    CK(cudaMemcpy(in, h.data(), (size_t)N * sizeof(float), cudaMemcpyHostToDevice));
    for (int i = 0; i < nhost; i++)
      host[i] = h[i];
  }
  CK(cudaMemset(parts, 0, (size_t)nparts * sizeof(Particle)));
  CK(cudaMemset(bins, 0, 8 * sizeof(unsigned)));

  const int B = 256, G = (N + B - 1) / B;
  struct {
    const char *name;
    float ms;
  } t[12];
  int k = 0;
  t[k++] = {"aos_mass", tk_time(reps, [&] { aos_mass<<<(nparts + B - 1) / B, B>>>(parts, out, nparts); })};
  t[k++] = {"half_stride2_store", tk_time(reps, [&] { half_stride2_store<<<G, B>>>(in, halves, N); })};
  t[k++] = {"reduce_strided_index", tk_time(reps, [&] { reduce_strided_index<<<G, B>>>(in, out, N); })};
  t[k++] = {"reduce_sequential", tk_time(reps, [&] { reduce_sequential<<<G, B>>>(in, out, N); })};
  t[k++] = {"hist8_global", tk_time(reps, [&] { hist8_global<<<G, B>>>(in, bins, N); })};
  t[k++] = {"local_lookup", tk_time(reps, [&] { local_lookup<<<(N / 16 + B - 1) / B, B>>>(in, out, N / 16); })};
  t[k++] = {"copy_block48", tk_time(reps, [&] { copy_block48<<<(N + 47) / 48, 48>>>(in, out, N); })};
  t[k++] = {"copy_float4", tk_time(reps, [&] { copy_float4<<<(N / 4 + B - 1) / B, B>>>((const float4 *)in, (float4 *)out, N / 4); })};
  t[k++] = {"broadcast_scale", tk_time(reps, [&] { broadcast_scale<<<G, B>>>(in, out, N); })};
  t[k++] = {"sum_few_blocks", tk_time(reps, [&] { sum_few_blocks<<<8, 128>>>(in, out, N); })};
  t[k++] = {"read_host_mapped", tk_time(reps, [&] { read_host_mapped<<<(nhost + B - 1) / B, B>>>(host_dev, out, nhost); })};
  CKL();
  for (int j = 0; j < k; j++)
    printf("%-22s %8.3f ms\n", t[j].name, t[j].ms);
  CK(cudaFreeHost(host));
  CK(cudaFree(bins));
  CK(cudaFree(halves));
  CK(cudaFree(parts));
  CK(cudaFree(out));
  CK(cudaFree(in));
  return 0;
}
