// A launch asking for 64 KB of dynamic shared memory without the opt-in
// fails (cudaErrorInvalidValue); with cudaFuncSetAttribute it succeeds.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void big(float *out) {
    extern __shared__ float s[];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

int main() {
    float *out;
    cudaMalloc(&out, 256 * sizeof(float));
    big<<<1, 256, 64 * 1024>>>(out);
    cudaError_t e1 = cudaGetLastError();
    cudaFuncSetAttribute(big, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
    big<<<1, 256, 64 * 1024>>>(out);
    cudaError_t e2 = cudaDeviceSynchronize();
    printf("first launch: %s; with opt-in: %s\n", cudaGetErrorName(e1), cudaGetErrorName(e2));
    return e1 != cudaSuccess && e2 == cudaSuccess ? 0 : 1;
}
