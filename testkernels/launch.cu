// SPDX-License-Identifier: MIT
// launch: launch shapes (G §4.6, §4.8 restated for sm_90; H §4.5 "Elle est loin"; rules 12 and 13).
// One build, tk_launch: here the remedy is the launch configuration, not the code, so each twin is
// another case (same kernel name) of the same binary.
// Cases (argv, several allowed):
//   block=B      kernel block_copy: y = 2x + 1 over 64 Mi floats with B-thread blocks (B = 32, 64, 256).
//                sm_90: 32 blocks per SM at most, so B = 32 caps an SM at 32 warps = 50 % theoretical
//                occupancy (block-slot limit); 64 x 32 = 2048 threads = 100 %; 256 -> 8 blocks = 100 %.
//   grid=small   kernel grid_copy: the same stream with a grid-stride loop and SMs/2 blocks of 256:
//                half of the SMs get no block at all.   grid=full: SMs x 8 blocks (one full wave).
//   wave=partial kernel wave_work: blocks of 256 threads that each hold their SM for a fixed time
//                (a __nanosleep loop of 200 us, so a block lasts as long alone as with neighbours),
//                then write their output. Grid = 9 x SMs blocks: one wave is 8 x SMs blocks (8 per SM),
//                so the second wave is 1/8 full and the kernel takes 2 block-times for 1.125 waves.
//   wave=full    kernel wave_work with 8 x SMs blocks: exactly one wave.
// Findings:
//   block=32: must block-shape; may latency-not-hidden, floor-distance.  block=64, block=256: none
//             (negatives on sm_90: G's "multiples of 64, 128-256 threads" is not a finding here);
//             may floor-distance.
//   grid=small: must latency-not-hidden; may floor-distance.  grid=full: none; may floor-distance.
//   wave=partial: must latency-not-hidden (partial last wave).  wave=full: none.
// Key metrics:
//   block=B: theoretical occupancy sm__maximum_warps_per_active_cycle_pct = 50 (B=32), 100 (64, 256).
//   grid=small: sm__cycles_active.avg / sm__cycles_active.max = 66/132 = 0.5 (one block per busy SM,
//               every busy SM active the whole kernel, the others never).  grid=full: 1.0.
//   wave=partial: achieved occupancy over elapsed cycles, sm__warps_active.avg.pct_of_peak_sustained_elapsed
//               = (9 x SMs blocks x 8 warps x T) / (SMs x 64 warps x 2T) = 56.25 %.  wave=full: 100 %.
//               (Per active cycle it reads 65 %: the tail blocks do not land one per SM, and SMs
//               without one drop out of that average -- ncu 2026-11-29.)
// Harness: the input is produced on the device (tk_fill); the check is SAMPLED: 4 slices of 2048
// outputs (tk_sample, pinned) against the CPU reference.
#include "tk_common.h"
#include <functional>

#define N ((size_t)64 << 20)
#define SLEEP_NS 200000ull

__global__ void block_copy(float *__restrict__ out, const float *__restrict__ in)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  out[i] = in[i] * 2.0f + 1.0f;
}

__global__ void grid_copy(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i] * 2.0f + 1.0f;
}

__global__ void wave_work(float *__restrict__ out, const float *__restrict__ in)
{
  unsigned long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (;;) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 >= SLEEP_NS)
      break;
    __nanosleep(2000);
  }
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  out[i] = in[i] * 2.0f + 1.0f;
}

static int reps(void)
{
  const char *r = getenv("TK_REPS");
  return r ? atoi(r) : 10;
}

static void check(const char *k, const float *d, size_t n)
{
  tk_sample(d, n, [&](size_t i, float v) {
    if (v != tk_val(i) * 2.0f + 1.0f)
      tk_fail(k, (long long)i, v, tk_val(i) * 2.0f + 1.0f);
  });
}

int main(int argc, char **argv)
{
  const char *cases = "block=32|64|256 grid=small|full wave=partial|full";
  if (argc < 2)
    tk_usage(argv[0], cases);
  cudaDeviceProp p = tk_device();
  unsigned sms = (unsigned)p.multiProcessorCount;
  float *in, *out;
  CK(cudaMalloc(&in, N * 4));
  CK(cudaMalloc(&out, N * 4));
  tk_fill_dev(in, N);
  for (int a = 1; a < argc; a++) {
    const char *c = argv[a];
    CK(cudaMemset(out, 0xff, N * 4));
    std::function<void()> go;
    const char *k;
    size_t n = N;
    if (!strncmp(c, "block=", 6)) {
      unsigned b = (unsigned)atoi(c + 6);
      if (b != 32 && b != 64 && b != 256)
        tk_usage(argv[0], cases);
      go = [=] { block_copy<<<(unsigned)(N / b), b>>>(out, in); };
      k = "block_copy";
    } else if (!strcmp(c, "grid=small") || !strcmp(c, "grid=full")) {
      unsigned g = c[5] == 's' ? sms / 2 : sms * 8;
      go = [=] { grid_copy<<<g, 256>>>(out, in, N); };
      k = "grid_copy";
    } else if (!strcmp(c, "wave=partial") || !strcmp(c, "wave=full")) {
      unsigned g = c[5] == 'p' ? sms * 9 : sms * 8;
      n = (size_t)g * 256;
      go = [=] { wave_work<<<g, 256>>>(out, in); };
      k = "wave_work";
    } else {
      tk_usage(argv[0], cases);
      return 2;
    }
    float ms = 0;
    if (reps() <= 0) {
      go();
      CKL();
    } else {
      ms = tk_time(reps(), go);
    }
    check(k, out, n);
    if (ms > 0)
      tk_report(c, k, ms, k[0] == 'w' ? 0 : 8.0 * n);
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  return 0;
}
