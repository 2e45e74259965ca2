// docs/design.md §2 rule 4 for .cu files: a*b + c written as one expression is
// not fused, in the host half of a .cu file (-Xcompiler=-ffp-contract=off)
// and in device code (--fmad=false). Operands come from volatile objects or
// device memory so nothing is constant-folded; fused and unfused differ:
// (1 + 2^-30)^2 - (1 + 2^-29) is 0 unfused and 2^-60 fused; in float
// (1 + 2^-12)^2 - (1 + 2^-11) is 0 unfused and 2^-24 fused.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "device_test_util.cuh"

namespace {

volatile double g_a = 1.0 + 0x1p-30;
volatile double g_c = -(1.0 + 0x1p-29);
volatile float g_af = 1.0f + 0x1p-12f;
volatile float g_cf = -(1.0f + 0x1p-11f);

__host__ double host_half_mul_add(double a, double b, double c) { return a * b + c; }
__host__ float host_half_mul_add_f(float a, float b, float c) { return a * b + c; }
// An __host__ __device__ function compiled for the host.
__host__ __device__ double hd_mul_add(double a, double b, double c) { return c + a * b; }

TEST(DeviceProbeContraction, HostHalfOfCuFileIsNotFused) {
  const double a = g_a, c = g_c;
  const float af = g_af, cf = g_cf;
  EXPECT_EQ(std::fma(a, a, c), 0x1p-60);  // the operands do tell an FMA apart
  EXPECT_EQ(a * a + c, 0.0);
  EXPECT_EQ(host_half_mul_add(a, a, c), 0.0);
  EXPECT_EQ(hd_mul_add(a, a, c), 0.0);
  EXPECT_EQ(af * af + cf, 0.0f);
  EXPECT_EQ(host_half_mul_add_f(af, af, cf), 0.0f);
}

__global__ void mul_add_kernel(const double* a, const double* c, const float* af, const float* cf,
                               double* out, float* outf, double* fused, float* fusedf) {
  const int i = static_cast<int>(threadIdx.x);
  out[2 * i] = a[i] * a[i] + c[i];
  out[2 * i + 1] = hd_mul_add(a[i], a[i], c[i]);
  outf[i] = af[i] * af[i] + cf[i];
  fused[i] = fma(a[i], a[i], c[i]);        // explicit FMA: the control
  fusedf[i] = fmaf(af[i], af[i], cf[i]);
}

TEST(DeviceProbeContraction, DeviceCodeIsNotFused) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  constexpr int kN = 64;
  const double a0 = g_a, c0 = g_c;
  const float af0 = g_af, cf0 = g_cf;
  std::vector<double> a(kN, a0), c(kN, c0);
  std::vector<float> af(kN, af0), cf(kN, cf0);
  exactvmaf::test::DeviceBuffer<double> da(a), dc(c), dout(2 * kN), dfused(kN);
  exactvmaf::test::DeviceBuffer<float> daf(af), dcf(cf), doutf(kN), dfusedf(kN);
  mul_add_kernel<<<1, kN>>>(da.ptr, dc.ptr, daf.ptr, dcf.ptr, dout.ptr, doutf.ptr, dfused.ptr, dfusedf.ptr);
  EXACTVMAF_CUDA_OK(cudaGetLastError());
  EXACTVMAF_CUDA_OK(cudaDeviceSynchronize());
  const auto out = dout.to_host();
  const auto outf = doutf.to_host();
  const auto fused = dfused.to_host();
  const auto fusedf = dfusedf.to_host();
  for (int i = 0; i < kN; ++i) {
    EXPECT_EQ(fused[i], 0x1p-60) << i;
    EXPECT_EQ(fusedf[i], 0x1p-24f) << i;
    EXPECT_EQ(out[2 * i], 0.0) << i;
    EXPECT_EQ(out[2 * i + 1], 0.0) << i;
    EXPECT_EQ(outf[i], 0.0f) << i;
  }
}

}  // namespace
