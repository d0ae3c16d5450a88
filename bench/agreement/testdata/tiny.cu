#include <cstdio>
__global__ void scale(float *x, int n, float a) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = a * x[i] + 1.0f; }
__global__ void strided(float *x, int n) { int i = (blockIdx.x * blockDim.x + threadIdx.x) * 8; if (i < n) x[i] += 1.0f; }
int main() {
  int n = 1 << 22; float *x; cudaMalloc(&x, n * sizeof(float)); cudaMemset(x, 0, n * sizeof(float));
  for (int i = 0; i < 3; i++) scale<<<n / 256, 256>>>(x, n, 2.0f);
  strided<<<n / 256 / 8, 256>>>(x, n);
  scale<<<n / 512, 512>>>(x, n / 2, 3.0f);
  cudaDeviceSynchronize(); printf("tiny done\n"); return 0; }
