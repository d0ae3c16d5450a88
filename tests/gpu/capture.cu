// Stream capture of three kernels, the graph launched 5 times, plus plain
// launches before and after. Under gpuhier (profile mode) it must still
// exit 0: captured launches are never profiled or synchronized.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k1(float *x) { x[threadIdx.x] += 1.0f; }
__global__ void k2(float *x) { x[threadIdx.x] *= 2.0f; }

int main() {
    float *x;
    cudaMalloc(&x, 256 * sizeof(float));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    k1<<<1, 256, 0, s>>>(x);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) != cudaSuccess) return 2;
    k1<<<1, 256, 0, s>>>(x);
    k2<<<1, 256, 0, s>>>(x);
    k1<<<1, 128, 0, s>>>(x);
    cudaError_t e = cudaStreamEndCapture(s, &g);
    if (e != cudaSuccess) { fprintf(stderr, "end capture: %s\n", cudaGetErrorString(e)); return 1; }
    if (cudaGraphInstantiate(&ge, g, 0) != cudaSuccess) return 1;
    for (int i = 0; i < 5; i++) cudaGraphLaunch(ge, s);
    k2<<<1, 256, 0, s>>>(x);
    e = cudaStreamSynchronize(s);
    printf("graph launched 5x3, plain 2: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : 1;
}
