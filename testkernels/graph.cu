// SPDX-License-Identifier: MIT
// graph: kernels launched from a CUDA graph (issue 17 point 8), for the instrumentation engine's
// graph path (docs/collector.md "Graphs"). Not a manifest case: it exists for the GPU test
// tests/gpu/t152-graph-instrument.sh, which checks what the report holds.
// One stream is captured into a graph of three kernel nodes:
//   graph_strided  out[i] = in[3 * i]: a warp's 32 loads span 384 B, 12 sectors for an ideal of 4
//                  (3x the ideal on the load; the store is coalesced, 4 for 4);
//   graph_copy     out[i] = in[i], twice (two nodes of one function): 4 sectors for 4, load and
//                  store (1x).
// The executable graph is launched LAUNCHES times (argv[1]; t152 gives 3), then the outputs are
// checked against the CPU on a sample. N = 1 Mi outputs, 256 threads per block, 4096 blocks.
// Prints "graph launches N nodes 3" on success; exit 1 on a wrong value, 2 on a CUDA error.
#include "tk_common.h"

static const size_t N = (size_t)1 << 20;

__global__ void graph_strided(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[3 * i];
}

__global__ void graph_copy(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 1.0f;
}

int main(int argc, char **argv)
{
  int launches = argc > 1 ? atoi(argv[1]) : 0;
  if (launches < 1) {
    fprintf(stderr, "usage: tk_graph LAUNCHES (the executable graph's launches, >= 1; 3 in t152)\n");
    return 2;
  }
  std::vector<float> h(3 * N);
  for (size_t i = 0; i < 3 * N; i++)
    h[i] = (float)(i % 1000);
  float *in = nullptr, *a = nullptr, *b = nullptr, *c = nullptr;
  CK(cudaMalloc(&in, 3 * N * sizeof(float)));
  CK(cudaMalloc(&a, N * sizeof(float)));
  CK(cudaMalloc(&b, N * sizeof(float)));
  CK(cudaMalloc(&c, N * sizeof(float)));
  CK(cudaMemcpy(in, h.data(), 3 * N * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const unsigned threads = 256, blocks = (unsigned)((N + threads - 1) / threads);
  cudaGraph_t g;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  graph_strided<<<blocks, threads, 0, s>>>(a, in, N);
  graph_copy<<<blocks, threads, 0, s>>>(b, a, N);
  graph_copy<<<blocks, threads, 0, s>>>(c, b, N);
  CK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, g, 0));
  for (int k = 0; k < launches; k++)
    CK(cudaGraphLaunch(exec, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaGetLastError());
  std::vector<float> got(N);
  CK(cudaMemcpy(got.data(), c, N * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < N; i += 997) {
    float want = h[3 * i] + 2.0f;
    if (got[i] != want)
      tk_fail("graph_copy(graph_copy(graph_strided))", (long long)i, got[i], want);
  }
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(g));
  CK(cudaStreamDestroy(s));
  CK(cudaFree(in));
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(c));
  printf("graph launches %d nodes 3\n", launches);
  return 0;
}
