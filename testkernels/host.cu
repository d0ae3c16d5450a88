// SPDX-License-Identifier: MIT
// host: the host link (H §4.6; G §4.7; rules 14-17).
// Built twice: tk_host (defect) and tk_host_fixed (-DFIXED); same kernel names.
// Every copy is done once per case (no repetitions), so copy counts are exact. After its first launch
// (the one Nsight Compute profiles under TK_REPS=0) each case's kernel runs again TK_REPS times
// (default 10), timed, without any copy: the copies stay the case's own, and the run has a measured
// kernel time to set them against (a kernel launched once is only profiled, and its time is unknown).
// The round trip's 10 steps are its repetitions.
// Cases (argv, several allowed):
//   pageable   256 MiB host->device, kernel consume (y = x + 1), 256 MiB device->host.
//              Defect: the host buffers come from malloc (pageable: the driver stages them).
//              FIXED: cudaMallocHost (pinned).
//   small      16 MiB host->device from pinned memory, then kernel consume, then one 16 MiB copy back.
//              Defect: 4096 copies of 4 KiB. FIXED: one copy of 16 MiB.
//   roundtrip  64 MiB, 10 steps of kernel step (x = x/2 + 1). Defect: after each step the buffer goes
//              device->host and straight back host->device (pinned), unchanged. FIXED: the steps run
//              back to back on resident data. Both copy a 1 MiB slice of the result back once at the
//              end and check it (SAMPLED); the defect also checks all 64 MiB of its last round trip.
//   transfer   kernel scale (y = 3x, about 0.1 ms of work on 256 MiB) fed by a 256 MiB host->device copy
//              (pinned, about 5 ms over PCIe). FIXED: the input is produced on the device (kernel
//              produce), no input copy. Both check a 1 MiB slice copied back.
//   mapped     kernel read_mapped sums 64 MiB (per thread, grid-stride). Defect: reads mapped pinned host
//              memory (zero-copy) directly. FIXED: reads a device copy made once before the kernel.
//              Both copy the 1 MiB of per-thread sums back through pinned memory and check them all.
//   managed    64 MiB of managed memory (cudaMallocManaged), 10 steps: the host adds 1 to every element
//              (its pages migrate back to the host), then kernel step runs on it. Defect: the kernel's
//              first touch of each page faults and the driver migrates it host->device inside the
//              kernel's time, at every step. FIXED: cudaMemPrefetchAsync to the device on the kernel's
//              stream before each step: the same migrations, asked for, before the kernel. Both check a
//              1 MiB slice of the result.
// Findings:
//   pageable defect: must pageable-copy; may transfer-exceeds-work.   fixed: may transfer-exceeds-work.
//   small defect: must small-copies; may transfer-exceeds-work.   fixed: may transfer-exceeds-work.
//   roundtrip defect: must round-trip-copy; may transfer-exceeds-work.   fixed: none (one 1 MiB copy
//   against ten 64 MiB steps).
//   transfer defect: must transfer-exceeds-work.   fixed: none.
//   managed defect: must managed-migration; may floor-distance, latency-not-hidden, scalar-access.
//   managed fixed: may floor-distance, scalar-access (step's 4-byte accesses).
//   mapped defect: must host-memory-access; may floor-distance, latency-not-hidden.
//   mapped fixed: may transfer-exceeds-work (the one 64 MiB copy feeds 11 launches of 20-35 us),
//   floor-distance.
//   pageable and small fixed keep transfer-exceeds-work as a may for the same reason: their fix
//   changes how the bytes cross the link, not how many.
// Key metrics (copies come from CUPTI activity records, not from Nsight Compute):
//   pageable: copies whose host side is pageable = 2 (fixed 0).
//   small: host->device copies = 4096 (fixed 1).
//   roundtrip: device->host copies = 11 (10 round trips + the result; fixed 1).
//   transfer: host->device bytes = 268 435 456 (fixed 0).
//   mapped: system-memory sectors the SMs read through L2,
//           lts__t_sectors_srcunit_tex_aperture_sysmem_op_read.sum = 64 MiB / 32 B = 2 097 152 (fixed 0).
//           (All units, lts__t_sectors_aperture_sysmem_op_read, read 1.5x that -- ncu 2026-11-29 --
//           for reasons not established.)
#include "tk_common.h"

#define BIG ((size_t)64 << 20) // floats: 256 MiB

__global__ void consume(float *__restrict__ y, const float *__restrict__ x, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    y[i] = x[i] + 1.0f;
}

__global__ void step(float *__restrict__ x, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x[i] = x[i] * 0.5f + 1.0f;
}

__global__ void scale(float *__restrict__ y, const float *__restrict__ x, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    y[i] = 3.0f * x[i];
}

__global__ void produce(float *__restrict__ x, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x[i] = tk_val(i);
}

__global__ void read_mapped(float *__restrict__ out, const float *__restrict__ x, size_t n)
{
  float acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    acc += x[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

static float *host_alloc(size_t bytes, bool pinned)
{
  void *p = NULL;
  if (pinned)
    CK(cudaMallocHost(&p, bytes));
  else if (!(p = malloc(bytes))) {
    fprintf(stderr, "malloc(%zu) failed\n", bytes);
    exit(2);
  }
  return (float *)p;
}

static void host_free(float *p, bool pinned)
{
  if (pinned)
    CK(cudaFreeHost(p));
  else
    free(p);
}

static unsigned g_blocks;

static int reps(void)
{
  const char *r = getenv("TK_REPS");
  return r ? atoi(r) : 10;
}

// The case kernel again, TK_REPS times after a warm-up, timed (see the header); no copy.
template <typename F> static void again(const char *kase, const char *kernel, F fn)
{
  int r = reps();
  if (r > 0)
    tk_report(kase, kernel, tk_time(r, fn), 0);
}

static void run_pageable(void)
{
#ifdef FIXED
  bool pinned = true;
#else
  bool pinned = false;
#endif
  size_t n = BIG;
  float *h = host_alloc(n * 4, pinned), *hy = host_alloc(n * 4, pinned), *x, *y;
  for (size_t i = 0; i < n; i++)
    h[i] = tk_val(i);
  CK(cudaMalloc(&x, n * 4));
  CK(cudaMalloc(&y, n * 4));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  CK(cudaMemcpy(x, h, n * 4, cudaMemcpyHostToDevice));
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms;
  CK(cudaEventElapsedTime(&ms, a, b));
  consume<<<g_blocks, 256>>>(y, x, n);
  CKL();
  again("pageable", "consume", [&] { consume<<<g_blocks, 256>>>(y, x, n); });
  CK(cudaMemcpy(hy, y, n * 4, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++)
    if (hy[i] != h[i] + 1.0f)
      tk_fail("consume", (long long)i, hy[i], h[i] + 1.0f);
  printf("%s pageable: host->device %s %.1f MB in %.3f ms = %.1f GB/s\n", TK_VARIANT,
         pinned ? "pinned" : "pageable", n * 4 / 1e6, ms, n * 4 / (ms * 1e-3) / 1e9);
  host_free(h, pinned);
  host_free(hy, pinned);
  CK(cudaFree(x));
  CK(cudaFree(y));
}

static void run_small(void)
{
  size_t n = (size_t)4 << 20; // floats: 16 MiB (the defect copies it in 4 KiB pieces)
  float *h = host_alloc(n * 4, true), *x, *y;
  for (size_t i = 0; i < n; i++)
    h[i] = tk_val(i);
  CK(cudaMalloc(&x, n * 4));
  CK(cudaMalloc(&y, n * 4));
#ifdef FIXED
  CK(cudaMemcpy(x, h, n * 4, cudaMemcpyHostToDevice));
#else
  const size_t chunk = 1024;
  for (size_t off = 0; off < n; off += chunk)
    CK(cudaMemcpy(x + off, h + off, chunk * 4, cudaMemcpyHostToDevice));
#endif
  consume<<<g_blocks, 256>>>(y, x, n);
  CKL();
  again("small", "consume", [&] { consume<<<g_blocks, 256>>>(y, x, n); });
  CK(cudaMemcpy(h, y, n * 4, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++)
    if (h[i] != tk_val(i) + 1.0f)
      tk_fail("consume", (long long)i, h[i], tk_val(i) + 1.0f);
  printf("%s small: ok\n", TK_VARIANT);
  host_free(h, true);
  CK(cudaFree(x));
  CK(cudaFree(y));
}

static void run_roundtrip(void)
{
  size_t n = (size_t)16 << 20; // 64 MiB
  float *h = host_alloc(n * 4, true), *x;
  CK(cudaMalloc(&x, n * 4));
  produce<<<g_blocks, 256>>>(x, n);
  CKL();
  for (int s = 0; s < 10; s++) {
    step<<<g_blocks, 256>>>(x, n);
    CKL();
#ifndef FIXED
    CK(cudaMemcpy(h, x, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(x, h, n * 4, cudaMemcpyHostToDevice));
#endif
  }
  auto want = [](size_t i) {
    float v = tk_val(i);
    for (int s = 0; s < 10; s++)
      v = v * 0.5f + 1.0f;
    return v;
  };
#ifndef FIXED
  for (size_t i = 0; i < n; i++) // the last round trip left all of step 10's result in h
    if (fabsf(h[i] - want(i)) > 1e-6f * fabsf(want(i)))
      tk_fail("step", (long long)i, h[i], want(i));
#endif
  // The result: one 1 MiB slice from the middle (one device->host copy, as the case counts).
  tk_sample(x, n, [&](size_t i, float v) {
    if (fabsf(v - want(i)) > 1e-6f * fabsf(want(i)))
      tk_fail("step", (long long)i, v, want(i));
  }, 1, (size_t)256 << 10);
  printf("%s roundtrip: ok\n", TK_VARIANT);
  host_free(h, true);
  CK(cudaFree(x));
}

static void run_transfer(void)
{
  size_t n = BIG, slice = (size_t)256 << 10, off = n / 2; // check 1 MiB in the middle
  float *x, *y, *h = host_alloc(slice * 4, true);
  CK(cudaMalloc(&x, n * 4));
  CK(cudaMalloc(&y, n * 4));
#ifdef FIXED
  produce<<<g_blocks, 256>>>(x, n);
  CKL();
#else
  float *hx = host_alloc(n * 4, true);
  for (size_t i = 0; i < n; i++)
    hx[i] = tk_val(i);
  CK(cudaMemcpy(x, hx, n * 4, cudaMemcpyHostToDevice));
  host_free(hx, true);
#endif
  scale<<<g_blocks, 256>>>(y, x, n);
  CKL();
  again("transfer", "scale", [&] { scale<<<g_blocks, 256>>>(y, x, n); });
  CK(cudaMemcpy(h, y + off, slice * 4, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < slice; i++)
    if (h[i] != 3.0f * tk_val(off + i))
      tk_fail("scale", (long long)(off + i), h[i], 3.0f * tk_val(off + i));
  printf("%s transfer: ok\n", TK_VARIANT);
  host_free(h, true);
  CK(cudaFree(x));
  CK(cudaFree(y));
}

static void run_mapped(void)
{
  size_t n = (size_t)16 << 20; // 64 MiB
  size_t nt = (size_t)g_blocks * 256;
  float *hm, *src, *out;
  CK(cudaHostAlloc((void **)&hm, n * 4, cudaHostAllocMapped));
  for (size_t i = 0; i < n; i++)
    hm[i] = tk_val(i);
#ifdef FIXED
  CK(cudaMalloc(&src, n * 4));
  CK(cudaMemcpy(src, hm, n * 4, cudaMemcpyHostToDevice));
#else
  CK(cudaHostGetDevicePointer((void **)&src, hm, 0));
#endif
  CK(cudaMalloc(&out, nt * 4));
  read_mapped<<<g_blocks, 256>>>(out, src, n);
  CKL();
  again("mapped", "read_mapped", [&] { read_mapped<<<g_blocks, 256>>>(out, src, n); });
  float *h = tk_host_copy(out, nt);
  for (size_t t = 0; t < nt; t++) {
    double want = 0;
    for (size_t i = t; i < n; i += nt)
      want += hm[i];
    if (fabs(h[t] - want) > 1e-5 * want)
      tk_fail("read_mapped", (long long)t, h[t], want);
  }
  tk_free_host(h);
  printf("%s mapped: ok\n", TK_VARIANT);
#ifdef FIXED
  CK(cudaFree(src));
#endif
  CK(cudaFreeHost(hm));
  CK(cudaFree(out));
}

static void run_managed(void)
{
  size_t n = (size_t)16 << 20; // 64 MiB
  float *x;
  CK(cudaMallocManaged(&x, n * 4));
  for (size_t i = 0; i < n; i++) // first touched on the host
    x[i] = tk_val(i);
#ifdef FIXED
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = dev;
#endif
  for (int s = 0; s < 10; s++) {
    if (s)
      for (size_t i = 0; i < n; i++) // the host's update between steps: its pages come back
        x[i] += 1.0f;
#ifdef FIXED
    CK(cudaMemPrefetchAsync(x, n * 4, loc, 0, 0));
#endif
    step<<<g_blocks, 256>>>(x, n);
    CKL();
    CK(cudaDeviceSynchronize());
  }
  auto want = [](size_t i) {
    float v = tk_val(i);
    for (int s = 0; s < 10; s++)
      v = (s ? v + 1.0f : v) * 0.5f + 1.0f;
    return v;
  };
  size_t off = n / 2;
  for (size_t i = off; i < off + ((size_t)256 << 10); i++)
    if (fabsf(x[i] - want(i)) > 1e-6f * fabsf(want(i)))
      tk_fail("step", (long long)i, x[i], want(i));
  printf("%s managed: ok\n", TK_VARIANT);
  CK(cudaFree(x));
}

int main(int argc, char **argv)
{
  const char *cases = "pageable small roundtrip transfer mapped managed";
  if (argc < 2)
    tk_usage(argv[0], cases);
  cudaDeviceProp p = tk_device();
  g_blocks = (unsigned)p.multiProcessorCount * 8;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "pageable"))
      run_pageable();
    else if (!strcmp(argv[a], "small"))
      run_small();
    else if (!strcmp(argv[a], "roundtrip"))
      run_roundtrip();
    else if (!strcmp(argv[a], "transfer"))
      run_transfer();
    else if (!strcmp(argv[a], "mapped"))
      run_mapped();
    else if (!strcmp(argv[a], "managed"))
      run_managed();
    else
      tk_usage(argv[0], cases);
  }
  return 0;
}
