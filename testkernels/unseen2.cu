// SPDX-License-Identifier: MIT
// tk_unseen2: a second set of memory-hierarchy pathologies that no rule was
// written or tuned against (written 2026-12-07, after tk_unseen's set had
// been judged), each beside a clean kernel where one makes sense, for the
// suite's check against Nsight Compute (bench/suite/unseen2.sh, docs/suite.md
// "A second set of pathologies"). Not a manifest case: what each part should
// get is written beside it here, before any run, and the suite's table says
// what gpuhier and ncu made of it.
//
// usage: tk_unseen2 all (every part in turn). TK_REPS (default 3): timed
// launches of each kernel after its warm-up launch.
#include "tk_common.h"
#include <cstdint>

static const int N = 1 << 24; // elements of the streaming kernels (64 MiB of floats)

// Each thread's element of a random permutation (a multiplicative hash of i,
// odd multiplier, modulo a power of two: a bijection).
__host__ __device__ static inline unsigned scatter_index(unsigned i, unsigned mask)
{
  return (i * 2654435761u) & mask;
}

__device__ static inline void gather_body(const float *table, const unsigned *idx, float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = table[idx[i]];
}

// 1. A gather through a random index (a permutation of 64 MiB of floats):
//    each lane's 4-byte load falls in its own sector, 32 sectors per load
//    instruction for an ideal of 4. Expected: uncoalesced-global-load.
__global__ void gather_random(const float *table, const unsigned *idx, float *out, int n)
{
  gather_body(table, idx, out, n);
}

// 1'. The same code through the identity index. Expected: no access-pattern finding.
__global__ void gather_identity(const float *table, const unsigned *idx, float *out, int n)
{
  gather_body(table, idx, out, n);
}

// 2. A copy whose loads start one float past an aligned base: each warp's
//    128 bytes straddle 5 sectors for an ideal of 4 (80 % of the bytes used).
//    Expected: no uncoalesced finding (80 % is the rules' threshold, not under
//    it: docs/analyzer.md); Nsight Compute may count the excess sectors.
__global__ void copy_offset1(const float *in, float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i + 1];
}

// 3. A tiled transpose of doubles through an unpadded 32 x 32 shared tile:
//    the column read puts the 16 lanes of each half-warp 256 bytes apart, in
//    one pair of banks (16-way conflicts). Expected: shared-bank-conflicts.
//    3'. The same with a padded tile [32][33] (2 words of skew per row: the 16
//    lanes of a half-warp in 16 bank pairs). Expected: no shared-memory finding.
template <int PAD> __device__ static inline void transpose_f64_body(const double *in, double *out, int w)
{
  __shared__ double tile[32][32 + PAD];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int k = 0; k < 32; k += 8)
    tile[threadIdx.y + k][threadIdx.x] = in[(size_t)(y + k) * w + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int k = 0; k < 32; k += 8)
    out[(size_t)(y + k) * w + x] = tile[threadIdx.x][threadIdx.y + k];
}
__global__ void transpose_f64_tile(const double *in, double *out, int w) { transpose_f64_body<0>(in, out, w); }
__global__ void transpose_f64_tile_padded(const double *in, double *out, int w)
{
  transpose_f64_body<1>(in, out, w);
}

// 4. A streaming scale-and-add whose launch asks for 120 KB of dynamic shared
//    memory it hardly uses: one 256-thread block fits an SM (228 KB), 8 of its
//    64 warps. Expected: occupancy-shared-memory (and, with so few loads in
//    flight, latency-not-hidden or floor-distance may join it).
__global__ void axpy_smem_reserved(const float *x, float *y, int n)
{
  extern __shared__ float reserved[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    reserved[0] = 2.0f; // touches the reservation, so it is the kernel's
  __syncthreads();
  if (i < n)
    y[i] = reserved[0] * x[i] + y[i];
}

// 5. Each thread holds 64 doubles it loaded (coalesced: element j of thread t
//    is in[j * threads + t]) until it has their sum and largest value, then
//    writes each one back scaled: 170 registers a thread (ptxas of CUDA 13.0), so a
//    256-thread block's registers allow 1 block, 8 warps, per SM.
//    Expected: occupancy-registers.
#define HOG 64
__global__ void __launch_bounds__(256) normalize_held(const double *in, double *out, int threads)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads)
    return;
  double v[HOG], s = 0.0, m = -1e300;
#pragma unroll
  for (int j = 0; j < HOG; j++)
    v[j] = in[(size_t)j * threads + t];
#pragma unroll
  for (int j = 0; j < HOG; j++) {
    s += v[j] * v[j];
    m = fmax(m, v[j]);
  }
  double r = 1.0 / (sqrt(s) + m);
#pragma unroll
  for (int j = 0; j < HOG; j++)
    out[(size_t)j * threads + t] = (v[j] - m) * r + v[(j + 1) % HOG] * r;
}

// 6. A per-lane coefficient from constant memory: the 32 lanes of a warp read
//    32 different words of the constant bank, which serves one address at a
//    time. Expected: constant-divergent.
//    6'. The same table indexed by the block: one address per warp. Expected:
//    no constant-memory finding.
__constant__ float coef[256];
__global__ void scale_by_lane_coef(const float *in, float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * coef[threadIdx.x & 255];
}
__global__ void scale_by_block_coef(const float *in, float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * coef[blockIdx.x & 255];
}

// 7. A byte-wise XOR over 256 MiB, one byte per thread: 1-byte loads and
//    stores in a DRAM-bound kernel, 16 times the instructions of 16-byte ones.
//    Expected: scalar-access (its exact counts take accesses of 32 bits or
//    less as narrow).
__global__ void xor_bytes(const uint8_t *in, uint8_t *out, size_t n)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] ^ 0x5a;
}

// 8. A row sum with one thread per row of a row-major 65,536 x 256 matrix of
//    floats: at each step the 32 lanes of a warp read 32 rows 1 KB apart, 32
//    sectors per load for an ideal of 4, though each sector's other floats are
//    read by the same lane in the next 7 steps (from L1 when they stayed there).
//    Expected: uncoalesced-global-load; the grid (256 blocks of 256 threads) is
//    under one wave, so latency-not-hidden may join it.
__global__ void row_sum_thread_per_row(const float *a, float *sums, int rows, int cols)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f;
  for (int c = 0; c < cols; c++)
    s += a[(size_t)r * cols + c];
  sums[r] = s;
}

// 9. Coalesced atomic adds, one distinct address per thread. Expected: no
//    atomic finding (neither contention nor uncoalesced atomics).
__global__ void accumulate_distinct(const float *in, float *acc, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&acc[i], in[i]);
}

// 10. One thread polls a flag in device memory that nobody sets until its
//     clock says 2 ms have passed: a kernel that waits, as a host-device
//     handshake would. Expected: idle-kernel (its name names no wait).
__global__ void poll_flag(const volatile int *flag, int *seen, long long cycles)
{
  long long t0 = clock64();
  int polls = 0;
  while (*flag == 0 && clock64() - t0 < cycles)
    polls++;
  *seen = polls;
}

// 11. A kernel over managed memory the host rewrites before every launch: each
//     launch faults the pages back to the GPU. Expected: managed-migration (not
//     one-time: every launch migrates).
__global__ void scale_managed(float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = a[i] * 0.5f + 1.0f;
}

static void near(const char *what, long long i, double got, double want, double rel)
{
  if (!(fabs(got - want) <= rel * fabs(want) + 1e-6))
    tk_fail(what, i, got, want);
}

// Host-side parts (no kernel): 12. uploads from pageable memory, 4 x 16 MiB
// (expected: pageable-copy); 13. 2,000 uploads of 512 bytes (expected:
// small-copies); 14. a device buffer copied to the host and back unchanged,
// 3 times (expected: round-trip-copy). Whether transfer-exceeds-work joins
// them depends on the copies' time against all kernels' time, which the
// program prints.
static void host_parts(float *dev, size_t n)
{
  const size_t big = (size_t)4 << 20; // 16 MiB of floats
  float *pageable = (float *)malloc(big * sizeof(float));
  if (!pageable) {
    fprintf(stderr, "tk_unseen2: out of host memory\n");
    exit(2);
  }
  for (size_t i = 0; i < big; i++)
    pageable[i] = tk_val(i);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  for (int k = 0; k < 4; k++)
    CK(cudaMemcpy(dev, pageable, big * sizeof(float), cudaMemcpyHostToDevice));
  for (int k = 0; k < 2000; k++)
    CK(cudaMemcpy(dev + (size_t)k * 128, pageable + (size_t)k * 128, 128 * sizeof(float), cudaMemcpyHostToDevice));
  for (int k = 0; k < 3; k++) {
    CK(cudaMemcpy(pageable, dev, big * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dev, pageable, big * sizeof(float), cudaMemcpyHostToDevice));
  }
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  for (size_t i = 0; i < big && i < n; i += 4099)
    near("host_parts", (long long)i, pageable[i], tk_val(i), 0);
  printf("tk_unseen2: host parts (4 pageable uploads of 16 MiB, 2000 of 512 B, 3 round trips of 16 MiB) %.3f ms\n", ms);
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  free(pageable);
}

int main(int argc, char **argv)
{
  if (argc != 2 || strcmp(argv[1], "all")) {
    fprintf(stderr, "usage: tk_unseen2 all (every pathology and clean kernel in turn; TK_REPS timed launches each)\n");
    return 2;
  }
  const char *r = getenv("TK_REPS");
  int reps = r ? atoi(r) : 3;
  if (reps < 1)
    reps = 1; // tk_time needs one timed launch
  const int launches = reps + 1; // tk_time's warm-up and the timed ones
  const int B = 256, G = (N + B - 1) / B;
  float *in, *out, *table, *acc;
  unsigned *idx;
  CK(cudaMalloc(&in, ((size_t)N + 4) * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)N * sizeof(float)));
  CK(cudaMalloc(&table, (size_t)N * sizeof(float)));
  CK(cudaMalloc(&acc, (size_t)N * sizeof(float)));
  CK(cudaMalloc(&idx, (size_t)N * sizeof(unsigned)));
  tk_fill_dev(in, (size_t)N + 4);
  tk_fill_dev(table, N);
  float ms, kernel_ms = 0;
  auto poison = [&] { CK(cudaMemset(out, 0xff, (size_t)N * sizeof(float))); };

  // 1, 1'
  for (int random = 1; random >= 0; random--) {
    tk_fill_perm_dev(idx, N, random ? 2654435761ull : 1ull, (unsigned long long)N - 1);
    poison();
    ms = tk_time(reps, [&] {
      if (random)
        gather_random<<<G, B>>>(table, idx, out, N);
      else
        gather_identity<<<G, B>>>(table, idx, out, N);
    });
    tk_sample(out, N, [&](size_t i, float v) {
      unsigned j = random ? scatter_index((unsigned)i, (unsigned)N - 1) : (unsigned)i;
      near(random ? "gather_random" : "gather_identity", i, v, tk_val(j), 0);
    });
    tk_report("all", random ? "gather_random" : "gather_identity", ms, 0);
    kernel_ms += ms * launches;
  }

  // 2
  poison();
  ms = tk_time(reps, [&] { copy_offset1<<<G, B>>>(in, out, N); });
  tk_sample(out, N, [](size_t i, float v) { near("copy_offset1", i, v, tk_val(i + 1), 0); });
  tk_report("all", "copy_offset1", ms, 0);
  kernel_ms += ms * launches;

  // 3, 3': a 4096 x 4096 matrix of doubles (128 MiB each way), its own buffers
  {
    const int w = 4096;
    double *din, *dout;
    CK(cudaMalloc(&din, (size_t)w * w * sizeof(double)));
    CK(cudaMalloc(&dout, (size_t)w * w * sizeof(double)));
    tk_fill_dev((float *)din, (size_t)w * w * 2);
    dim3 grid(w / 32, w / 32), block(32, 8);
    for (int pad = 0; pad < 2; pad++) {
      CK(cudaMemset(dout, 0xff, (size_t)w * w * sizeof(double)));
      ms = tk_time(reps, [&] {
        if (pad)
          transpose_f64_tile_padded<<<grid, block>>>(din, dout, w);
        else
          transpose_f64_tile<<<grid, block>>>(din, dout, w);
      });
      double *hin = NULL;
      CK(cudaMallocHost((void **)&hin, sizeof(double)));
      tk_sample(dout, (size_t)w * w, [&](size_t i, double v) {
        size_t row = i / w, col = i % w;
        CK(cudaMemcpy(hin, din + col * w + row, sizeof(double), cudaMemcpyDeviceToHost));
        near(pad ? "transpose_f64_tile_padded" : "transpose_f64_tile", (long long)i, v, *hin, 0);
      }, 4, 16);
      CK(cudaFreeHost(hin));
      tk_report("all", pad ? "transpose_f64_tile_padded" : "transpose_f64_tile", ms, 0);
      kernel_ms += ms * launches;
    }
    CK(cudaFree(dout));
    CK(cudaFree(din));
  }

  // 4
  {
    const int smem = 120 * 1024;
    CK(cudaFuncSetAttribute(axpy_smem_reserved, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    tk_fill_dev(out, N, 7);
    ms = tk_time(reps, [&] { axpy_smem_reserved<<<G, B, smem>>>(in, out, N); });
    // y = 2x + y, launches times over y0 = tk_val(i + 7): y = y0 + 2 x launches
    tk_sample(out, N, [&](size_t i, float v) {
      near("axpy_smem_reserved", i, v, tk_val(i + 7) + 2.0 * launches * tk_val(i), 1e-5);
    });
    tk_report("all", "axpy_smem_reserved", ms, 0);
    kernel_ms += ms * launches;
  }

  // 5: 65,536 threads x 64 doubles = 32 MiB in `table`, out to `acc` (32 MiB of the 64 each)
  {
    const int threads = 1 << 16;
    tk_fill_dev(table, (size_t)threads * HOG * 2);
    ms = tk_time(reps, [&] {
      normalize_held<<<threads / 256, 256>>>((const double *)table, (double *)acc, threads);
    });
    double *h = NULL, *v = NULL;
    CK(cudaMallocHost((void **)&h, HOG * sizeof(double)));
    CK(cudaMallocHost((void **)&v, HOG * sizeof(double)));
    for (int t = 0; t < threads; t += 8191) {
      for (int j = 0; j < HOG; j++) {
        CK(cudaMemcpy(v + j, (const double *)table + (size_t)j * threads + t, sizeof(double),
                      cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(h + j, (const double *)acc + (size_t)j * threads + t, sizeof(double),
                      cudaMemcpyDeviceToHost));
      }
      double s = 0, m = -1e300;
      for (int j = 0; j < HOG; j++) {
        s += v[j] * v[j];
        m = fmax(m, v[j]);
      }
      double rr = 1.0 / (sqrt(s) + m);
      for (int j = 0; j < HOG; j++)
        near("normalize_held", t, h[j], (v[j] - m) * rr + v[(j + 1) % HOG] * rr, 1e-9);
    }
    CK(cudaFreeHost(v));
    CK(cudaFreeHost(h));
    tk_report("all", "normalize_held", ms, 0);
    kernel_ms += ms * launches;
  }

  // 6, 6'
  {
    float hc[256];
    for (int k = 0; k < 256; k++)
      hc[k] = tk_val(1000 + k);
    CK(cudaMemcpyToSymbol(coef, hc, sizeof hc));
    for (int lane = 1; lane >= 0; lane--) {
      poison();
      ms = tk_time(reps, [&] {
        if (lane)
          scale_by_lane_coef<<<G, B>>>(in, out, N);
        else
          scale_by_block_coef<<<G, B>>>(in, out, N);
      });
      tk_sample(out, N, [&](size_t i, float v) {
        size_t k = lane ? (i % B) & 255 : (i / B) & 255;
        near(lane ? "scale_by_lane_coef" : "scale_by_block_coef", i, v, tk_val(i) * hc[k], 1e-6);
      });
      tk_report("all", lane ? "scale_by_lane_coef" : "scale_by_block_coef", ms, 0);
      kernel_ms += ms * launches;
    }
  }

  // 7: 256 MiB each way, its own buffers
  {
    const size_t nb = (size_t)256 << 20;
    uint8_t *bin, *bout;
    CK(cudaMalloc(&bin, nb));
    CK(cudaMalloc(&bout, nb));
    tk_fill_dev((float *)bin, nb / 4);
    CK(cudaMemset(bout, 0, nb));
    ms = tk_time(reps, [&] { xor_bytes<<<(unsigned)((nb + B - 1) / B), B>>>(bin, bout, nb); });
    uint8_t *hb = NULL;
    CK(cudaMallocHost((void **)&hb, 4096));
    for (size_t off = 0; off < nb; off += nb / 4) {
      float f[1024];
      CK(cudaMemcpy(hb, bout + off, 4096, cudaMemcpyDeviceToHost));
      for (int k = 0; k < 1024; k++)
        f[k] = tk_val(off / 4 + k);
      const uint8_t *fb = (const uint8_t *)f;
      for (int k = 0; k < 4096; k++)
        near("xor_bytes", (long long)(off + k), hb[k], fb[k] ^ 0x5a, 0);
    }
    CK(cudaFreeHost(hb));
    tk_report("all", "xor_bytes", ms, 0);
    kernel_ms += ms * launches;
    CK(cudaFree(bout));
    CK(cudaFree(bin));
  }

  // 8: 65,536 x 256 floats = `in`'s 64 MiB
  {
    const int rows = 1 << 16, cols = 256;
    poison();
    ms = tk_time(reps, [&] { row_sum_thread_per_row<<<rows / B, B>>>(in, out, rows, cols); });
    tk_sample(out, rows, [&](size_t rr, float v) {
      double want = 0;
      for (int c = 0; c < cols; c++)
        want += tk_val(rr * cols + c);
      near("row_sum_thread_per_row", rr, v, want, 1e-4);
    }, 4, 64);
    tk_report("all", "row_sum_thread_per_row", ms, 0);
    kernel_ms += ms * launches;
  }

  // 9
  CK(cudaMemset(acc, 0, (size_t)N * sizeof(float)));
  ms = tk_time(reps, [&] { accumulate_distinct<<<G, B>>>(in, acc, N); });
  tk_sample(acc, N, [&](size_t i, float v) { near("accumulate_distinct", i, v, launches * tk_val(i), 1e-6); });
  tk_report("all", "accumulate_distinct", ms, 0);
  kernel_ms += ms * launches;

  // 10: 2 ms at the device's clock
  {
    int *flag, *seen;
    CK(cudaMalloc(&flag, sizeof(int)));
    CK(cudaMalloc(&seen, sizeof(int)));
    CK(cudaMemset(flag, 0, sizeof(int)));
    int khz = 0;
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    long long cycles = (long long)khz * 2; // 2 ms
    ms = tk_time(reps, [&] { poll_flag<<<1, 1>>>(flag, seen, cycles); });
    int *hs = tk_host_copy(seen, 1);
    if (*hs <= 0)
      tk_fail("poll_flag", 0, *hs, 1);
    tk_free_host(hs);
    tk_report("all", "poll_flag", ms, 0);
    kernel_ms += ms * launches;
    CK(cudaFree(seen));
    CK(cudaFree(flag));
  }

  // 11: 16 MiB of managed floats, rewritten by the host before each launch
  {
    const int nm = 1 << 22;
    float *m;
    CK(cudaMallocManaged(&m, (size_t)nm * sizeof(float)));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int k = 0; k < launches; k++) {
      for (int i = 0; i < nm; i++)
        m[i] = tk_val((unsigned long long)i + k);
      CK(cudaEventRecord(a));
      scale_managed<<<(nm + B - 1) / B, B>>>(m, nm);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      CK(cudaGetLastError());
      float e = 0;
      CK(cudaEventElapsedTime(&e, a, b));
      t.push_back(e);
      for (int i = 0; i < nm; i += 4093)
        near("scale_managed", i, m[i], tk_val((unsigned long long)i + k) * 0.5f + 1.0f, 0);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    tk_report("all", "scale_managed", t[t.size() / 2], 0);
    for (float e : t)
      kernel_ms += e;
    CK(cudaFree(m));
  }

  printf("tk_unseen2: kernels %.3f ms in all (timed launches and warm-ups, events)\n", kernel_ms);
  host_parts(out, (size_t)N);

  CK(cudaFree(idx));
  CK(cudaFree(acc));
  CK(cudaFree(table));
  CK(cudaFree(out));
  CK(cudaFree(in));
  printf("tk_unseen2: every sampled result matched the CPU\n");
  return 0;
}
