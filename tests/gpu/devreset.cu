// Launches a known number of kernels, then cudaDeviceReset() before exit:
// the report must still hold every launch.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void touch(int *x) { x[threadIdx.x] += 1; }

int main() {
    int *x;
    cudaMalloc(&x, 1024 * sizeof(int));
    cudaMemset(x, 0, 1024 * sizeof(int));
    for (int i = 0; i < 300; i++) touch<<<1, 256>>>(x);
    cudaDeviceSynchronize();
    cudaDeviceReset();
    printf("launched 300\n");
    return 0;
}
