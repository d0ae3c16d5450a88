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
//    element, every launch. Expected: host-memory-access, or, where no range
//    profile measured its system-memory sectors, host-pointer-argument.
__global__ void read_host_mapped(const float *host, float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = host[i] + 1.0f;
}

// Fills the records: every field from tk_val, one record (two 16-byte stores) per thread.
__global__ void fill_particles(Particle *p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = Particle{tk_val(4ull * i), tk_val(4ull * i + 1), tk_val(4ull * i + 2), tk_val(4ull * i + 3)};
}

static void near(const char *what, long long i, double got, double want, double rel)
{
  if (!(fabs(got - want) <= rel * fabs(want) + 1e-6))
    tk_fail(what, i, got, want);
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
    reps = 1; // tk_time needs one timed launch
  const int launches = reps + 1; // tk_time's warm-up and the timed ones
  float *in, *out, *host, *host_dev;
  Particle *parts;
  __half *halves;
  unsigned *bins;
  const int nparts = N / 4, nhost = 1 << 20, nloc = N / 16;
  CK(cudaMalloc(&in, (size_t)N * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)N * sizeof(float)));
  CK(cudaMalloc(&parts, (size_t)nparts * sizeof(Particle)));
  CK(cudaMalloc(&halves, 2 * (size_t)N * sizeof(__half)));
  CK(cudaMalloc(&bins, 8 * sizeof(unsigned)));
  CK(cudaHostAlloc(&host, (size_t)nhost * sizeof(float), cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer(&host_dev, host, 0));
  // inputs on the device (docs/testkernels.md "Harness"); the mapped buffer is host memory by design
  tk_fill_dev(in, N);
  fill_particles<<<(nparts + 255) / 256, 256>>>(parts, nparts);
  CKL();
  for (int i = 0; i < nhost; i++)
    host[i] = tk_val((unsigned long long)i);
  CK(cudaMemset(bins, 0, 8 * sizeof(unsigned)));

  const int B = 256, G = (N + B - 1) / B;
  float ms;
  // outputs poisoned with NaN before each kernel (docs/testkernels.md), so a kernel that wrote nothing fails its check
  auto poison = [&] { CK(cudaMemset(out, 0xff, (size_t)N * sizeof(float))); };
  // SAMPLED: each kernel's output is checked on tk_sample's 4 slices of 2048 elements (all of the 8 bins, the
  // sum's one value) against the CPU, before the next kernel overwrites it.
  poison();
  ms = tk_time(reps, [&] { aos_mass<<<(nparts + B - 1) / B, B>>>(parts, out, nparts); });
  tk_sample(out, nparts, [](size_t i, float v) { near("aos_mass", i, v, 2.0f * tk_val(4ull * i + 3), 0); });
  tk_report("all", "aos_mass", ms, 0);
  CK(cudaMemset(halves, 0xff, 2 * (size_t)N * sizeof(__half)));
  ms = tk_time(reps, [&] { half_stride2_store<<<G, B>>>(in, halves, N); });
  tk_sample(halves, 2 * (size_t)N, [](size_t i, __half v) {
    if (i % 2 == 0)
      near("half_stride2_store", i, __half2float(v), __half2float(__float2half(tk_val(i / 2))), 0);
  });
  tk_report("all", "half_stride2_store", ms, 0);
  for (int seq = 0; seq < 2; seq++) {
    poison();
    ms = tk_time(reps, [&] {
      if (seq)
        reduce_sequential<<<G, B>>>(in, out, N);
      else
        reduce_strided_index<<<G, B>>>(in, out, N);
    });
    tk_sample(out, G, [&](size_t b, float v) {
      double want = 0;
      for (int k = 0; k < B; k++)
        want += tk_val(b * B + k);
      near(seq ? "reduce_sequential" : "reduce_strided_index", b, v, want, 1e-5);
    });
    tk_report("all", seq ? "reduce_sequential" : "reduce_strided_index", ms, 0);
  }
  ms = tk_time(reps, [&] { hist8_global<<<G, B>>>(in, bins, N); });
  {
    unsigned *h = tk_host_copy(bins, 8);
    std::vector<unsigned long long> want(8, 0);
    for (int i = 0; i < N; i++) {
      float v = tk_val((unsigned long long)i);
      unsigned u;
      memcpy(&u, &v, sizeof u);
      want[u & 7u] += launches;
    }
    for (int b = 0; b < 8; b++)
      near("hist8_global", b, h[b], (double)want[b], 0);
    tk_free_host(h);
  }
  tk_report("all", "hist8_global", ms, 0);
  poison();
  ms = tk_time(reps, [&] { local_lookup<<<(nloc + B - 1) / B, B>>>(in, out, nloc); });
  tk_sample(out, nloc, [&](size_t i, float v) {
    float table[48], acc = 0.0f;
    for (int k = 0; k < 48; k++)
      table[k] = tk_val((i + k * 1024) & (size_t)(nloc - 1));
    unsigned h = (unsigned)i * 2654435761u;
    for (int k = 0; k < 16; k++) {
      h = h * 1664525u + 1013904223u;
      acc += table[h % 48u];
    }
    near("local_lookup", i, v, acc, 1e-6);
  });
  tk_report("all", "local_lookup", ms, 0);
  poison();
  ms = tk_time(reps, [&] { copy_block48<<<(N + 47) / 48, 48>>>(in, out, N); });
  tk_sample(out, N, [](size_t i, float v) { near("copy_block48", i, v, tk_val(i), 0); });
  tk_report("all", "copy_block48", ms, 0);
  poison();
  ms = tk_time(reps, [&] { copy_float4<<<(N / 4 + B - 1) / B, B>>>((const float4 *)in, (float4 *)out, N / 4); });
  tk_sample(out, N, [](size_t i, float v) { near("copy_float4", i, v, tk_val(i), 0); });
  tk_report("all", "copy_float4", ms, 0);
  poison();
  ms = tk_time(reps, [&] { broadcast_scale<<<G, B>>>(in, out, N); });
  tk_sample(out, N, [&](size_t i, float v) {
    near("broadcast_scale", i, v, tk_val((i / B) & 1023) * (float)i, 1e-6);
  });
  tk_report("all", "broadcast_scale", ms, 0);
  CK(cudaMemset(out, 0, sizeof(float))); // the sum accumulates here: zero, not poison
  ms = tk_time(reps, [&] { sum_few_blocks<<<8, 128>>>(in, out, N); });
  {
    float *h = tk_host_copy(out, 1);
    double want = 0;
    for (int i = 0; i < N; i++)
      want += tk_val((unsigned long long)i);
    near("sum_few_blocks", 0, h[0], want * launches, 1e-4);
    tk_free_host(h);
  }
  tk_report("all", "sum_few_blocks", ms, 0);
  poison();
  ms = tk_time(reps, [&] { read_host_mapped<<<(nhost + B - 1) / B, B>>>(host_dev, out, nhost); });
  tk_sample(out, nhost, [](size_t i, float v) { near("read_host_mapped", i, v, tk_val(i) + 1.0f, 0); });
  tk_report("all", "read_host_mapped", ms, 0);
  CK(cudaFreeHost(host));
  CK(cudaFree(bins));
  CK(cudaFree(halves));
  CK(cudaFree(parts));
  CK(cudaFree(out));
  CK(cudaFree(in));
  printf("tk_unseen: every sampled result matched the CPU\n");
  return 0;
}
