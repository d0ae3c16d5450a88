// NVTX push/pop and start/end around kernels; the report must show the
// ranges and the launch's NVTX path "outer > inner". A domain range named by
// a registered string (as XLA names its ranges) must keep its text.
// (nvtxRangePushW is not tried: CUPTI 13.0 made no callback for it on the
// H100 of 2026-12-06 23:27 UTC, docs/gpu-runs.md.)
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
    nvtxDomainHandle_t dom = nvtxDomainCreateA("gh_domain");
    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(dom, "registered_range");
    nvtxEventAttributes_t a = {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
    nvtxDomainRangePushEx(dom, &a);
    marked<<<1, 64>>>(x);
    nvtxDomainRangePop(dom);
    cudaError_t e = cudaDeviceSynchronize();
    printf("nvtx: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : 1;
}
