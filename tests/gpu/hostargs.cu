// Pointers into mapped page-locked host memory given to kernels three ways, each kernel
// launched twice: directly (read_direct), as a field of a structure passed by value
// (read_struct, as CUTLASS's Params do), and as one of an array of pointers inside a
// structure (read_array, as PyTorch's TensorIterator kernels take their operands).
// The device pointers beside them are cudaMalloc's. Prints "launched 6" and "sum ok".
// tests/gpu/t151-collector-quick.sh reads the report's launch_host_arg rows
// (collector/hostargs.c): one row per kernel, each at the parameter that holds the
// host pointer, with the host allocation's 4 MB.
#include <cstdio>
#include <cuda_runtime.h>

struct Args {
    int n;
    const float *src; // host memory, mapped
    float *dst;       // device memory
};

struct Operands {
    const float *ptr[3]; // [0] device output, [1] host input, [2] device scale
    long long n;
};

__global__ void read_direct(const float *src, float *dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i] + 1.0f;
}

__global__ void read_struct(int tag, Args a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.n) a.dst[i] = a.src[i] + (float)tag;
}

__global__ void read_array(Operands o) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < o.n) ((float *)o.ptr[0])[i] = o.ptr[1][i] * o.ptr[2][0];
}

int main() {
    const int n = 1 << 20; // 4 MB of floats
    float *host = nullptr, *host_dev = nullptr, *dst = nullptr, *scale = nullptr;
    if (cudaHostAlloc(&host, n * sizeof(float), cudaHostAllocMapped) != cudaSuccess ||
        cudaHostGetDevicePointer(&host_dev, host, 0) != cudaSuccess ||
        cudaMalloc(&dst, n * sizeof(float)) != cudaSuccess || cudaMalloc(&scale, sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "no memory\n");
        return 2;
    }
    for (int i = 0; i < n; i++) host[i] = (float)(i % 7);
    const float two = 2.0f;
    cudaMemcpy(scale, &two, sizeof(two), cudaMemcpyHostToDevice);
    const int B = 256, G = (n + B - 1) / B;
    Args a = {n, host_dev, dst};
    Operands o = {{dst, host_dev, scale}, n};
    for (int r = 0; r < 2; r++) {
        read_direct<<<G, B>>>(host_dev, dst, n);
        read_struct<<<G, B>>>(3, a);
        read_array<<<G, B>>>(o);
    }
    float last = 0;
    cudaError_t e = cudaMemcpy(&last, dst + (n - 1), sizeof(last), cudaMemcpyDeviceToHost);
    printf("launched 6\n");
    int ok = e == cudaSuccess && last == (float)((n - 1) % 7) * 2.0f;
    printf(ok ? "sum ok\n" : "sum wrong\n");
    cudaFreeHost(host);
    cudaFree(dst);
    cudaFree(scale);
    return ok ? 0 : 1;
}
