// 8 host threads launch into 4 streams; prints how many kernels it launched.
// The collector's report must hold exactly that many launches.
#include <cstdio>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

__global__ void add(float *x, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}
__global__ void scale(float *x, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= v;
}

int main(int argc, char **argv) {
    int per_thread = argc > 1 ? atoi(argv[1]) : 200;
    const int n = 1 << 16;
    cudaStream_t s[4];
    float *buf[4];
    for (int i = 0; i < 4; i++) {
        if (cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking) != cudaSuccess) { fprintf(stderr, "no stream\n"); return 2; }
        cudaMalloc(&buf[i], n * sizeof(float));
    }
    std::vector<std::thread> th;
    for (int t = 0; t < 8; t++)
        th.emplace_back([&, t] {
            for (int k = 0; k < per_thread; k++) {
                if (k % 2) add<<<n / 256, 256, 0, s[t % 4]>>>(buf[t % 4], n, 1.0f);
                else scale<<<n / 128, 128, 0, s[t % 4]>>>(buf[t % 4], n, 0.5f);
            }
        });
    for (auto &x : th) x.join();
    float h[16];
    cudaMemcpy(h, buf[0], sizeof(h), cudaMemcpyDeviceToHost);
    cudaError_t e = cudaDeviceSynchronize();
    printf("launched %d\n", 8 * per_thread);
    return e == cudaSuccess ? 0 : 1;
}
