/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of export/kname.c, the one kernel naming rule. The names are
 * SYNTHETIC but shaped like real ones: PyTorch's templated elementwise
 * and reduction kernels, cub, a lambda kernel, an anonymous namespace,
 * and a CUTLASS kernel of cuDNN that libiberty cannot demangle (stored
 * mangled as its own demangled name).
 */
#include "export/kname.h"
#include "tests/check.h"

#define E KNAME_ELLIPSIS

static const char *fill_float =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, "
    "1>)";
static const char *fill_int =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<int>, at::detail::Array<char*, 1>)";
static const char *add_float =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)";
static const char *gamma_beta =
    "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<float, float, "
    "32u, 16u, 32u, false, false>(long, long, float const*, float const*, float const*, float "
    "const*, float*, float*)";
static const char *cub_reduce =
    "void cub::DeviceReduceKernel<cub::DeviceReducePolicy<float, float, int, cub::Sum>::Policy600, "
    "float*, float*, int, cub::Sum>(float*, float*, int, cub::GridEvenShare<int>, cub::Sum)";
/* PyTorch's binary elementwise kernel on a lambda, with `vec` elements per thread. */
static const char *
lambda_kernel(char *buf, size_t n, int vec)
{
    const char *f = "at::native::BinaryFunctor<float, float, float, "
                    "at::native::binary_internal::MulFunctor<float> >";
    snprintf(buf, n,
             "void at::native::elementwise_kernel<128, %d, at::native::gpu_kernel_impl_nocast<%s "
             ">(at::TensorIteratorBase&, %s const&)::{lambda(int)#1}>(int, "
             "at::native::gpu_kernel_impl_nocast<%s >(at::TensorIteratorBase&, %s "
             "const&)::{lambda(int)#1})",
             vec, f, f, f, f);
    return buf;
}
static const char *cutlass =
    "_ZN17cutlass__5x_cudnn6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock"
    "22ImplicitGemmMultistageINS_4gemm9GemmShapeILi64ELi64ELi64EEENS4_"
    "52Conv2dWgradOutputGradientTileAccessIteratorOptimizedINS_11MatrixShapeILi64ELi64EEENS_"
    "10bfloat16_tEEEEEEEEvNT_6ParamsE";

static void
test_kname_short_pytorch(void)
{
    char b[256];
    CHECK_STR(kname_short(fill_float, NULL, b, sizeof(b)),
              "at::native::vectorized_elementwise_kernel<" E ">");
    CHECK_STR(kname_short(gamma_beta, NULL, b, sizeof(b)),
              "at::native::GammaBetaBackwardCUDAKernelTemplate<" E ">");
    CHECK_STR(kname_short(cub_reduce, NULL, b, sizeof(b)), "cub::DeviceReduceKernel<" E ">");
    char l[1024];
    CHECK_STR(kname_short(lambda_kernel(l, sizeof(l), 2), NULL, b, sizeof(b)),
              "at::native::elementwise_kernel<" E ">");
    /* No return type, no parameters, no template: the name as it is. */
    CHECK_STR(kname_short("transpose_naive(float*, float const*, int)", NULL, b, sizeof(b)),
              "transpose_naive");
    CHECK_STR(kname_short("triton_poi_fused_add_0", "triton_poi_fused_add_0", b, sizeof(b)),
              "triton_poi_fused_add_0");
    CHECK_STR(kname_short(NULL, NULL, b, sizeof(b)), "?");
}

static void
test_kname_short_not_demangled(void)
{
    char b[256];
    /* libiberty gave up: the report holds the mangled name as the demangled one. */
    CHECK_STR(kname_short(cutlass, cutlass, b, sizeof(b)), "cutlass__5x_cudnn::Kernel<" E ">");
    CHECK_STR(kname_short(NULL, "_Z15transpose_naivePfPKfi", b, sizeof(b)), "transpose_naive");
    CHECK_STR(kname_short(NULL, "_ZN2at6native12_GLOBAL__N_16kernelIfEEvPf", b, sizeof(b)),
              "at::native::kernel<" E ">");
    CHECK_STR(kname_short(NULL, "_ZNSt6vectorIiE4sortEv", b, sizeof(b)), "std::vector<" E ">");
}

static void
test_kname_short_small_buffer(void)
{
    char b[24];
    kname_short(fill_float, NULL, b, sizeof(b));
    CHECK(strlen(b) < sizeof(b));
    CHECK(strlen(b) >= 3 && !strcmp(b + strlen(b) - 3, E));
}

static void
test_kname_unique_template_argument(void)
{
    const char *d[] = {fill_float, fill_int, add_float, gamma_beta};
    const char *m[] = {"_Za", "_Zb", "_Zc", "_Zd"};
    long long ids[] = {3, 7, 9, 11};
    char *out[4];
    CHECK_EQ_INT(kname_unique(4, d, m, ids, out), 0);
    /* FillFunctor<…> is shared by two: their full argument tells them apart. */
    CHECK_STR(out[0],
              "at::native::vectorized_elementwise_kernel<" E ", FillFunctor<float>, " E ">");
    CHECK_STR(out[1], "at::native::vectorized_elementwise_kernel<" E ", FillFunctor<int>, " E ">");
    /* Elided when the elided argument is already unique. */
    CHECK_STR(out[2],
              "at::native::vectorized_elementwise_kernel<" E ", CUDAFunctor_add<" E ">, " E ">");
    CHECK_STR(out[3], "at::native::GammaBetaBackwardCUDAKernelTemplate<" E ">");
    for (int i = 0; i < 4; i++)
        free(out[i]);
}

static void
test_kname_unique_lambda_and_id(void)
{
    char l2[1024], l4[1024];
    const char *d[] = {lambda_kernel(l2, sizeof(l2), 2),
                       lambda_kernel(l4, sizeof(l4), 4),
                       "k(int)",
                       "k(int)",
                       cutlass,
                       cutlass};
    const char *m[] = {"_Za", "_Zb", "_Z1ki", "_Z1ki", cutlass, cutlass};
    long long ids[] = {1, 2, 5, 6, 8, 12};
    char *out[6];
    CHECK_EQ_INT(kname_unique(6, d, m, ids, out), 0);
    CHECK_STR(out[0], "at::native::elementwise_kernel<" E ", 2, " E ">");
    CHECK_STR(out[1], "at::native::elementwise_kernel<" E ", 4, " E ">");
    /* Nothing tells them apart but the id. */
    CHECK_STR(out[2], "k #5");
    CHECK_STR(out[3], "k #6");
    CHECK_STR(out[4], "cutlass__5x_cudnn::Kernel<" E "> #8");
    CHECK_STR(out[5], "cutlass__5x_cudnn::Kernel<" E "> #12");
    for (int i = 0; i < 6; i++)
        free(out[i]);
    CHECK_EQ_INT(kname_unique(0, d, m, ids, out), 0);
}

static void
test_kname_fit_boundary(void)
{
    char b[128];
    const char *n = "at::native::vectorized_elementwise_kernel<" E ">";
    CHECK_EQ_INT(kname_fit(n, 80, b, sizeof(b)), 0);
    CHECK_STR(b, n);
    /* The namespaces go first: the function's name is what tells kernels apart. */
    CHECK_EQ_INT(kname_fit(n, 40, b, sizeof(b)), 1);
    CHECK_STR(b, E "::vectorized_elementwise_kernel<" E ">");
    CHECK(kname_cols(b) <= 40);
    /* Then the end, with a second ellipsis. */
    CHECK_EQ_INT(kname_fit(n, 30, b, sizeof(b)), 1);
    CHECK_STR(b, E "::vectorized_elementwise_ker" E);
    CHECK_EQ_INT(kname_cols(b), 30);
    /* A template argument's "::" is not a namespace of the function. */
    CHECK_EQ_INT(kname_fit("k<a::b::c, d::e>", 10, b, sizeof(b)), 1);
    CHECK_STR(b, "k<a::b::" E);
    CHECK_EQ_INT(kname_fit("abcdefghijklmnopqrstuvwxyz", 10, b, sizeof(b)), 1);
    CHECK_STR(b, "abcdefghi" E);
    CHECK_EQ_INT(kname_cols(b), 10);
    /* A tiny buffer still ends in the ellipsis, on a character boundary. */
    char t[8];
    kname_fit(n, 40, t, sizeof(t));
    CHECK(strlen(t) < sizeof(t) && !strcmp(t + strlen(t) - 3, E));
    /* No room for the ellipsis: nothing is written past the buffer, and nothing is cut silently. */
    char tiny[8] = "xxxxxxx";
    kname_fit(n, 40, tiny, 3);
    CHECK_STR(tiny, "");
    CHECK(tiny[3] == 'x');
}

/* PyTorch's sum: no one argument tells the four apart, two do (block size, element type). */
static void
test_kname_unique_two_positions(void)
{
    char d[4][512];
    const char *shape[] = {"128, 4", "128, 4", "512, 1", "512, 1"};
    const char *type[] = {"float", "c10::BFloat16", "float", "c10::BFloat16"};
    const char *dp[4], *m[] = {"_Za", "_Zb", "_Zc", "_Zd"};
    for (int i = 0; i < 4; i++) {
        snprintf(d[i], sizeof(d[i]),
                 "void at::native::reduce_kernel<%s, at::native::ReduceOp<%s, "
                 "at::native::func_wrapper_t<%s, at::native::sum_functor<%s, float, %s>::operator()"
                 "(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, %s, 4, 4> >"
                 "(at::native::ReduceOp<%s, at::native::func_wrapper_t<%s, "
                 "at::native::(anonymous namespace)::sum_functor<%s, float, %s> > >)",
                 shape[i], type[i], type[i], type[i], type[i], type[i], type[i], type[i], type[i],
                 type[i]);
        dp[i] = d[i];
    }
    char *out[4];
    CHECK_EQ_INT(kname_unique(4, dp, m, NULL, out), 0);
    CHECK_STR(out[0], "at::native::reduce_kernel<128, " E ", ReduceOp<float, " E ">>");
    CHECK_STR(out[1], "at::native::reduce_kernel<128, " E ", ReduceOp<BFloat16, " E ">>");
    CHECK_STR(out[2], "at::native::reduce_kernel<512, " E ", ReduceOp<float, " E ">>");
    CHECK_STR(out[3], "at::native::reduce_kernel<512, " E ", ReduceOp<BFloat16, " E ">>");
    for (int i = 0; i < 4; i++)
        free(out[i]);
}

/* Hundreds of instances of one template (the shape of bench/sarif_speed.sh's report): all told apart. */
static void
test_kname_unique_many(void)
{
    enum { N = 300 };
    static char d[N][200];
    const char *dp[N], *mp[N];
    char *out[N];
    for (int i = 0; i < N; i++) {
        snprintf(d[i], sizeof(d[i]),
                 "void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::half_t, "
                 "cutlass::layout::RowMajor, %d, cutlass::arch::Sm90> >(Params)",
                 i);
        dp[i] = d[i];
        mp[i] = "_Z6kernel";
    }
    CHECK_EQ_INT(kname_unique(N, dp, mp, NULL, out), 0);
    CHECK_STR(out[7], "cutlass::Kernel<GemmUniversal<half_t, RowMajor, 7, Sm90>>");
    for (int i = 0; i < N; i++) {
        CHECK(strchr(out[i], '#') == NULL);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(out[i], out[j]) != 0);
    }
    for (int i = 0; i < N; i++)
        free(out[i]);
}

static const struct check_test tests[] = {
    {"kname_unique_many", test_kname_unique_many},
    {"kname_unique_two_positions", test_kname_unique_two_positions},
    {"kname_short_pytorch", test_kname_short_pytorch},
    {"kname_short_not_demangled", test_kname_short_not_demangled},
    {"kname_short_small_buffer", test_kname_short_small_buffer},
    {"kname_unique_template_argument", test_kname_unique_template_argument},
    {"kname_unique_lambda_and_id", test_kname_unique_lambda_and_id},
    {"kname_fit_boundary", test_kname_fit_boundary},
};

CHECK_MAIN(tests)
