// SPDX-License-Identifier: MIT
// cache: the L2 (J "L2", "Lo que esta jerarquía significa"; H §4.4 "Le hint non temporel"; rules 7, 8).
// Built twice: tk_cache (defect) and tk_cache_fixed (-DFIXED); same kernel names.
// Grid = one wave of SMs x 8 blocks x 256 threads (1056 blocks on a 132-SM H200).
// Cases (argv, several allowed):
//   reread  kernel reread_sum: each block owns a 512 KB slice of a 528 MB array (1056 x 512 KB) and
//           reads it 8 times with L2-only loads (__ldcg, so L1 cannot absorb the re-reads).
//           Defect: the 8 passes sweep the whole slice each time: between two reads of a line the
//           grid touches 528 MB >> 60 MB of L2, so every pass comes from device memory.
//           FIXED: the slice is processed in 16 KB chunks, each read 8 times before the next
//           (working set 1056 x 16 KB = 16.5 MB, fits in L2): one pass from DRAM, 7 from L2.
//   evict   kernel stream_table: streams 1 GiB read once (s[i]) and multiplies it by a 16 MB table that
//           is re-read (t[(i/4) mod 4 Mi]): per table pass the stream moves 64 MB, so between two reads
//           of a table line 80 MB go through the 60 MB L2. Defect: plain loads for the stream (LRU:
//           the stream evicts the table every pass). FIXED: __ldcs (ld.global.cs, evict-first) for
//           the stream, so the table stays in L2.
// Findings:
//   reread defect: must l2-reread-miss; may floor-distance.   reread fixed: none; may floor-distance.
//   evict defect: must stream-evicts-reused; may floor-distance, l2-reread-miss.   evict fixed: none;
//   may floor-distance.
// Key metric: device-memory bytes read, dram__bytes_read.sum (on a 132-SM H200):
//   reread defect: 8 x 528 MB = 4 429 185 024 B (1056 x 512 KiB x 8); fixed: 553 648 128 B (1 pass).
//   evict defect: 1 GiB stream + 16 passes x 16 MiB table = 1 342 177 280 B; fixed: 1 GiB + 16 MiB
//   = 1 090 519 040 B.
// Harness: the inputs are produced on the device (tk_fill); the whole 1 MiB of per-thread sums comes
// back through pinned memory (tk_host_copy) and every 13th (reread) or 97th (evict) sum is checked
// against the CPU reference (as before).
#include "tk_common.h"

#define SLICE ((size_t)128 * 1024) // floats per block: 512 KiB
#define CHUNK ((size_t)4096)       // floats: 16 KiB
#define PASSES 8
#define SN ((size_t)256 << 20) // stream: 1 GiB of floats
#define TN ((size_t)4 << 20)   // table: 16 MiB of floats

__global__ void reread_sum(float *__restrict__ out, const float *__restrict__ a)
{
  const float *s = a + (size_t)blockIdx.x * SLICE;
  float acc = 0;
#ifdef FIXED
  for (size_t c = 0; c < SLICE; c += CHUNK)
    for (int p = 0; p < PASSES; p++)
      for (size_t j = c + threadIdx.x; j < c + CHUNK; j += blockDim.x)
        acc += __ldcg(s + j);
#else
  for (int p = 0; p < PASSES; p++)
    for (size_t j = threadIdx.x; j < SLICE; j += blockDim.x)
      acc += __ldcg(s + j);
#endif
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void stream_table(float *__restrict__ out, const float *__restrict__ s, const float *__restrict__ t)
{
  float acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < SN; i += (size_t)gridDim.x * blockDim.x) {
#ifdef FIXED
    float x = __ldcs(s + i);
#else
    float x = s[i];
#endif
    acc += x * t[(i / 4) & (TN - 1)];
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

static int reps(void)
{
  const char *r = getenv("TK_REPS");
  return r ? atoi(r) : 10;
}

int main(int argc, char **argv)
{
  const char *cases = "reread evict";
  if (argc < 2)
    tk_usage(argv[0], cases);
  cudaDeviceProp p = tk_device();
  unsigned blocks = (unsigned)p.multiProcessorCount * 8;
  size_t nthreads = (size_t)blocks * 256;
  float *out;
  CK(cudaMalloc(&out, nthreads * 4));
  for (int a = 1; a < argc; a++) {
    const char *c = argv[a];
    CK(cudaMemset(out, 0xff, nthreads * 4));
    float ms = 0;
    if (!strcmp(c, "reread")) {
      size_t n = (size_t)blocks * SLICE;
      float *d;
      CK(cudaMalloc(&d, n * 4));
      tk_fill_dev(d, n);
      auto go = [&] { reread_sum<<<blocks, 256>>>(out, d); };
      if (reps() <= 0) {
        go();
        CKL();
      } else {
        ms = tk_time(reps(), go);
      }
      float *h = tk_host_copy(out, nthreads);
      for (size_t t = 0; t < nthreads; t += 13) {
        size_t b = t / 256, tid = t % 256;
        double want = 0;
        for (size_t j = tid; j < SLICE; j += 256)
          want += tk_val(b * SLICE + j);
        want *= PASSES;
        if (fabs(h[t] - want) > 1e-4 * want)
          tk_fail("reread_sum", (long long)t, h[t], want);
      }
      tk_free_host(h);
      if (ms > 0)
        tk_report(c, "reread_sum", ms, 4.0 * n * PASSES);
      CK(cudaFree(d));
    } else if (!strcmp(c, "evict")) {
      float *s, *tb;
      CK(cudaMalloc(&s, SN * 4));
      CK(cudaMalloc(&tb, TN * 4));
      tk_fill_dev(s, SN);
      tk_fill_dev(tb, TN, 12345);
      auto go = [&] { stream_table<<<blocks, 256>>>(out, s, tb); };
      if (reps() <= 0) {
        go();
        CKL();
      } else {
        ms = tk_time(reps(), go);
      }
      float *h = tk_host_copy(out, nthreads);
      for (size_t t = 0; t < nthreads; t += 97) {
        double want = 0;
        for (size_t i = t; i < SN; i += nthreads)
          want += (double)tk_val(i) * tk_val(((i / 4) & (TN - 1)) + 12345);
        if (fabs(h[t] - want) > 1e-4 * want)
          tk_fail("stream_table", (long long)t, h[t], want);
      }
      tk_free_host(h);
      if (ms > 0)
        tk_report(c, "stream_table", ms, 4.0 * SN + 4.0 * SN / 8);
      CK(cudaFree(s));
      CK(cudaFree(tb));
    } else {
      tk_usage(argv[0], cases);
    }
  }
  CK(cudaFree(out));
  return 0;
}
