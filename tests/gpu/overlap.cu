// Kernels that must overlap: 4 streams, each launches ROUNDS one-block kernels that
// spin for about 200 us (clock64), so at any time up to 4 run side by side on
// different SMs. Prints "launched N". tests/gpu/t153-concurrent-kernels.sh reads
// the report's kernel times: with concurrent-kernel tracing, kernels of different
// streams overlap; under serialized tracing (KIND_KERNEL) none do.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void spin(long long cycles, int *out) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    if (threadIdx.x == 0) atomicAdd(out, 1);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    if (rounds < 1) { fprintf(stderr, "usage: overlap ROUNDS (>= 1)\n"); return 2; }
    cudaStream_t s[4];
    int *out = nullptr;
    if (cudaMalloc(&out, sizeof(int)) != cudaSuccess) { fprintf(stderr, "no memory\n"); return 2; }
    cudaMemset(out, 0, sizeof(int));
    for (int i = 0; i < 4; i++)
        if (cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking) != cudaSuccess) { fprintf(stderr, "no stream\n"); return 2; }
    // about 200 us at the H200's 1.98 GHz boost clock
    const long long cycles = 400000;
    for (int k = 0; k < rounds; k++)
        for (int i = 0; i < 4; i++) spin<<<1, 32, 0, s[i]>>>(cycles, out);
    // the streams are non-blocking: the legacy stream's copy would not wait for them
    cudaError_t e = cudaDeviceSynchronize();
    int h = 0;
    cudaMemcpy(&h, out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("launched %d\n", 4 * rounds);
    return e == cudaSuccess && h == 4 * rounds ? 0 : 1;
}
