// Launches kernels (synchronizing every 100) until killed. Prints "started"
// once the first batch completed. The test kills it with SIGKILL.
#include <cstdio>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void spin(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 0.999f + 1.0f;
}

int main() {
    const int n = 1 << 20;
    float *x;
    cudaMalloc(&x, n * sizeof(float));
    for (long k = 0;; k++) {
        spin<<<n / 256, 256>>>(x, n);
        if (k % 100 == 99) {
            cudaDeviceSynchronize();
            if (k == 99) { printf("started\n"); fflush(stdout); }
            usleep(1000);
        }
    }
}
