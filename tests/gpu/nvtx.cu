// NVTX push/pop and start/end around kernels; the report must show the
// ranges and the launch's NVTX path "outer > inner".
#include <cstdio>
#include <nvtx3/nvToolsExt.h>
#include <cuda_runtime.h>

__global__ void marked(float *x) { x[threadIdx.x] += 1.0f; }

int main() {
    float *x;
    cudaMalloc(&x, 256 * sizeof(float));
    nvtxRangeId_t r = nvtxRangeStartA("whole");
    nvtxRangePushA("outer");
    nvtxRangePushA("inner");
    marked<<<1, 256>>>(x);
    nvtxRangePop();
    nvtxRangePop();
    marked<<<2, 128>>>(x);
    nvtxRangeEnd(r);
    cudaError_t e = cudaDeviceSynchronize();
    printf("nvtx: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : 1;
}
