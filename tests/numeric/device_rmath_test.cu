// Every rmath fast path on a CUDA device against the same fast path on the
// host: identical bits wherever it decides, and the undecided flag set on
// exactly the same arguments. EXACTVMAF_DEVICE_TEST_N arguments per
// function (10^4 in device_rmath_quick, 10^7 in device_rmath_long), mixed
// from the features' ranges, moderate ranges and all bit patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cr_trig_args.hpp"
#include "cr_trig_oracle.hpp"
#include "device_test_util.cuh"
#include "numeric/cr_exp.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/cr_trig.hpp"
#include "numeric/sf64.hpp"
#include "numeric/device/undecided_queue.cuh"

#ifndef EXACTVMAF_DEVICE_TEST_N
#define EXACTVMAF_DEVICE_TEST_N 10000
#endif

namespace {

using namespace exactvmaf::rmath;
using exactvmaf::test::DeviceBuffer;
using exactvmaf::test::SplitMix64;

constexpr std::size_t kN = EXACTVMAF_DEVICE_TEST_N;

// One functor per function: T is the argument/result type; eval is the
// fast path (host and device).
#define EXACTVMAF_FN1(Name, Type, Call)                                               \
  struct Name {                                                                       \
    using T = Type;                                                                   \
    static constexpr const char* kName = #Call;                                       \
    __host__ __device__ static bool eval(T x, T, T* out) { return Call(x, out); }     \
  };
#define EXACTVMAF_FN2(Name, Type, Call)                                               \
  struct Name {                                                                       \
    using T = Type;                                                                   \
    static constexpr const char* kName = #Call;                                       \
    __host__ __device__ static bool eval(T x, T y, T* out) { return Call(x, y, out); } \
  };

EXACTVMAF_FN1(SinFn, double, cr_sin_fast)
EXACTVMAF_FN1(CosFn, double, cr_cos_fast)
EXACTVMAF_FN2(Atan2Fn, double, cr_atan2_fast)
EXACTVMAF_FN1(LogFn, double, cr_log_fast)
EXACTVMAF_FN1(Log2Fn, double, cr_log2_fast)
EXACTVMAF_FN1(Log10Fn, double, cr_log10_fast)
EXACTVMAF_FN1(ExpFn, double, cr_exp_fast)
EXACTVMAF_FN2(PowFn, double, cr_pow_fast)
EXACTVMAF_FN2(PowfFn, float, cr_powf_fast)
EXACTVMAF_FN1(Log2fFn, float, cr_log2f_fast)

EXACTVMAF_FN2(PowfSf64Fn, float, cr_powf_fast_sf64)

// log2's fast path on Sf64 (the fp64-free variant's): the argument and the
// result move as bits; it must decide and round as the double one does.
struct Log2Sf64Fn {
  using T = double;
  static constexpr const char* kName = "cr_log2_fast(Sf64)";
  __host__ __device__ static bool eval(T x, T, T* out) {
    Sf64 r;
    const bool ok = cr_log2_fast(Sf64::from_bits(exactvmaf::dd::bits_of(x)), &r);
    *out = exactvmaf::dd::double_from_bits(r.bits);
    return ok;
  }
};

template <class F>
__global__ void eval_kernel(const typename F::T* a, const typename F::T* b, typename F::T* out,
                            unsigned char* decided, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    typename F::T r = 0;
    decided[i] = F::eval(a[i], b[i], &r) ? 1 : 0;
    out[i] = r;
  }
}

template <class T>
std::uint64_t bits_of(T v) {
  if constexpr (sizeof(T) == 8) {
    std::uint64_t u;
    std::memcpy(&u, &v, 8);
    return u;
  } else {
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
  }
}

template <class T>
bool is_nan(T v) {
  return v != v;
}

template <class F>
void compare_with_host(const std::vector<typename F::T>& a, const std::vector<typename F::T>& b) {
  using T = typename F::T;
  const std::size_t n = a.size();
  DeviceBuffer<T> da(a), db(b), dout(n);
  DeviceBuffer<unsigned char> ddec(n);
  ASSERT_NE(da.ptr, nullptr);
  ASSERT_NE(dout.ptr, nullptr);
  ASSERT_NE(ddec.ptr, nullptr);
  eval_kernel<F><<<1024, 256>>>(da.ptr, db.ptr, dout.ptr, ddec.ptr, n);
  EXACTVMAF_CUDA_OK(cudaGetLastError());
  EXACTVMAF_CUDA_OK(cudaDeviceSynchronize());
  const std::vector<T> out = dout.to_host();
  const std::vector<unsigned char> dec = ddec.to_host();
  std::size_t flag_mismatch = 0, bit_mismatch = 0, undecided = 0, nan_bits_differ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    T r = 0;
    const bool host_decided = F::eval(a[i], b[i], &r);
    if (!host_decided) ++undecided;
    if (host_decided != (dec[i] != 0)) {
      if (flag_mismatch++ < 5) {
        std::printf("  %s(%a, %a): host decided %d, device %d\n", F::kName, static_cast<double>(a[i]),
                    static_cast<double>(b[i]), host_decided ? 1 : 0, dec[i]);
      }
    } else if (host_decided && is_nan(r) && is_nan(out[i]) && bits_of(r) != bits_of(out[i])) {
      // R returns one quiet NaN everywhere, so NaN bits must match too.
      if (nan_bits_differ++ < 5)
        std::printf("  %s(%a, %a): NaN bits host %llx, device %llx\n", F::kName, static_cast<double>(a[i]),
                    static_cast<double>(b[i]), static_cast<unsigned long long>(bits_of(r)),
                    static_cast<unsigned long long>(bits_of(out[i])));
    } else if (host_decided && bits_of(r) != bits_of(out[i])) {
      if (bit_mismatch++ < 5) {
        std::printf("  %s(%a, %a): host %a, device %a\n", F::kName, static_cast<double>(a[i]),
                    static_cast<double>(b[i]), static_cast<double>(r), static_cast<double>(out[i]));
      }
    }
  }
  std::printf("%-16s n=%zu bit mismatches=%zu flag mismatches=%zu undecided=%zu "
              "(NaN results with other NaN bits: %zu)\n",
              F::kName, n, bit_mismatch, flag_mismatch, undecided, nan_bits_differ);
  EXPECT_EQ(bit_mismatch, 0u) << F::kName;
  EXPECT_EQ(flag_mismatch, 0u) << F::kName;
  EXPECT_EQ(nan_bits_differ, 0u) << F::kName;
}

// Arguments: a quarter each from feature ranges (two of them), a moderate
// range and any bit pattern.
template <class Gen>
void fill(std::vector<double>& a, std::vector<double>& b, std::uint64_t seed, Gen gen) {
  SplitMix64 rng(seed);
  a.resize(kN);
  b.resize(kN);
  for (std::size_t i = 0; i < kN; ++i) gen(static_cast<int>(i & 3), rng, &a[i], &b[i]);
}

double any_double(SplitMix64& rng) { return rng.any_double(); }
float any_float(SplitMix64& rng) {
  const std::uint32_t u = static_cast<std::uint32_t>(rng.next());
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

using exactvmaf::test::TrigRange;

TEST(DeviceRmath, SinCos) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  std::vector<double> a, b;
  fill(a, b, 1, [](int k, SplitMix64& rng, double* x, double* y) {
    const TrigRange r[] = {TrigRange::kCiedeSinHalfHue, TrigRange::kCiedeCos, TrigRange::kModerate,
                           TrigRange::kFull};
    *x = (rng.next() & 7) == 0 ? exactvmaf::test::trig_arg(TrigRange::kNearPiOver2, rng)
                               : exactvmaf::test::trig_arg(r[k], rng);
    *y = 0.0;
  });
  compare_with_host<SinFn>(a, b);
  compare_with_host<CosFn>(a, b);
}

TEST(DeviceRmath, Atan2) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  std::vector<double> a, b;
  fill(a, b, 2, [](int k, SplitMix64& rng, double* y, double* x) {
    using exactvmaf::test::Atan2Range;
    const Atan2Range r[] = {Atan2Range::kCiedeLab, Atan2Range::kCiedeLab, Atan2Range::kModerate,
                            Atan2Range::kFull};
    exactvmaf::test::atan2_args(r[k], rng, y, x);
  });
  compare_with_host<Atan2Fn>(a, b);
}

TEST(DeviceRmath, LogFamily) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  std::vector<double> a, b;
  fill(a, b, 3, [](int k, SplitMix64& rng, double* x, double* y) {
    switch (k) {
      case 0: *x = rng.uniform(0.5, 2.0); break;                     // near 1
      case 1: *x = static_cast<double>(1 + rng.next() % 65535); break;  // integers (psnr, SpEED)
      case 2: { const double v = rng.log_uniform(-1074, 1023); *x = v < 0 ? -v : v; } break;
      default: *x = any_double(rng); break;
    }
    *y = 0.0;
  });
  compare_with_host<LogFn>(a, b);
  compare_with_host<Log2Fn>(a, b);
  compare_with_host<Log2Sf64Fn>(a, b);
  compare_with_host<Log10Fn>(a, b);
}

TEST(DeviceRmath, Exp) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  std::vector<double> a, b;
  fill(a, b, 4, [](int k, SplitMix64& rng, double* x, double* y) {
    switch (k) {
      case 0: *x = rng.uniform(-130.0, 0.0); break;     // ciede exp(-d^2), SVM kernels
      case 1: *x = rng.uniform(-746.0, 710.0); break;   // whole finite range, subnormal results
      case 2: *x = rng.log_uniform(-60, 10); break;
      default: *x = any_double(rng); break;
    }
    *y = 0.0;
  });
  compare_with_host<ExpFn>(a, b);
}

TEST(DeviceRmath, Pow) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  std::vector<double> a, b;
  fill(a, b, 5, [](int k, SplitMix64& rng, double* x, double* y) {
    switch (k) {
      case 0: *x = rng.uniform(0.0, 1.2); *y = (rng.next() & 1) ? 2.4 : 1.0 / 3.0; break;  // ciede Lab
      case 1: *x = rng.uniform(-200.0, 200.0); *y = static_cast<double>(rng.next() % 8); break;
      case 2: { const double v = rng.log_uniform(-40, 40); *x = v < 0 ? -v : v; *y = rng.uniform(-20.0, 20.0); } break;
      default: *x = any_double(rng); *y = any_double(rng); break;
    }
  });
  compare_with_host<PowFn>(a, b);
}

TEST(DeviceRmath, FloatFunctions) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  SplitMix64 rng(6);
  std::vector<float> a(kN), b(kN), c(kN), z(kN, 0.0f);
  for (std::size_t i = 0; i < kN; ++i) {
    switch (i & 3) {
      case 0: a[i] = static_cast<float>(rng.uniform(0.01, 150.0)); b[i] = 7.0f; break;   // powf(c, 7)
      case 1: a[i] = static_cast<float>(rng.uniform(-11.0, 3.4)); b[i] = 2.0f; break;    // powf(d, 2)
      case 2: a[i] = static_cast<float>(rng.uniform(0.0, 1e4)); b[i] = static_cast<float>(rng.uniform(-4.0, 4.0)); break;
      default: a[i] = any_float(rng); b[i] = any_float(rng); break;
    }
    c[i] = (i & 1) ? static_cast<float>(1 + rng.next() % 32768) : any_float(rng);  // log2f
  }
  compare_with_host<PowfFn>(a, b);
  compare_with_host<PowfSf64Fn>(a, b);
  compare_with_host<Log2fFn>(c, z);
  // float_adm's p-norm terms: |band| of any magnitude (zeros, subnormals
  // included) to the p_norm powers the goldens use.
  const float p_norms[] = {4.5f, 2.5f, 2.0f, 1.5f, 6.0f, 20.0f};
  for (std::size_t i = 0; i < kN; ++i) {
    const double m = rng.uniform(0.0, 1.0) * rng.log_uniform(-60, 20);
    a[i] = (i % 97 == 0) ? 0.0f : static_cast<float>(m < 0 ? -m : m);
    b[i] = p_norms[i % 6];
  }
  compare_with_host<PowfFn>(a, b);
  compare_with_host<PowfSf64Fn>(a, b);
}

// The undecided queue: a kernel pushes the indices its fast path left
// undecided; they are exactly the host's undecided indices. Arguments
// include huge ones (|x| > 2^22, always undecided), tiny atan2 ratios and
// the constructed near-midpoint cases of the fast range (cr_trig_oracle.hpp)
// placed at every 997th index.
__global__ void sin_atan2_queue_kernel(const double* x, std::size_t n, double* out,
                                       exactvmaf::rmath::device::UndecidedQueue queue) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    double r = 0.0, s = 0.0;
    const bool ok_sin = cr_sin_fast(x[i], &r);
    const bool ok_atan2 = cr_atan2_fast(x[i], 1e300, &s);
    out[i] = r + s;
    if (!ok_sin) queue.push(2 * i);
    if (!ok_atan2) queue.push(2 * i + 1);
  }
}

TEST(DeviceRmath, UndecidedQueueMatchesHost) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  SplitMix64 rng(9);
  std::vector<double> x(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    x[i] = (i % 7 == 0) ? rng.log_uniform(23, 1000) : rng.log_uniform(-40, 20);
  }
  // sin and atan2(x, 1e300) see the same x; the sin/atan2(x, 1) cases are
  // undecided for sin (the atan2 ones land on |x/1e300| < 2^-950: slow path).
  std::vector<double> hard;
  for (const auto& c : exactvmaf::test::trig_constructed_hard_cases()) {
    if (c.fn != exactvmaf::test::TrigFn::kSin) continue;
    const double x0 = exactvmaf::test::solve_for_midpoint(c.fn, c.target_ulps, c.ulp_exp);
    hard.push_back(x0);
    hard.push_back(-x0);
  }
  for (std::size_t k = 0; k < hard.size() && k * 997 < kN; ++k) x[k * 997] = hard[k];
  std::vector<unsigned long long> want;
  for (std::size_t i = 0; i < kN; ++i) {
    double r;
    if (!cr_sin_fast(x[i], &r)) want.push_back(2 * i);
    if (!cr_atan2_fast(x[i], 1e300, &r)) want.push_back(2 * i + 1);
  }
  ASSERT_GT(want.size(), 0u);
  DeviceBuffer<double> dx(x), dout(kN);
  DeviceBuffer<unsigned int> dcount(std::vector<unsigned int>{0u});
  DeviceBuffer<unsigned long long> dindex(2 * kN);
  exactvmaf::rmath::device::UndecidedQueue queue{dcount.ptr, dindex.ptr, static_cast<unsigned int>(2 * kN)};
  sin_atan2_queue_kernel<<<256, 256>>>(dx.ptr, kN, dout.ptr, queue);
  EXACTVMAF_CUDA_OK(cudaGetLastError());
  EXACTVMAF_CUDA_OK(cudaDeviceSynchronize());
  const unsigned int count = dcount.to_host()[0];
  ASSERT_EQ(count, want.size());
  std::vector<unsigned long long> got = dindex.to_host();
  got.resize(count);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  std::printf("undecided queue: %u of %zu calls\n", count, 2 * kN);
  // The constructed cases really were undecided on the device.
  for (std::size_t k = 0; k < hard.size() && k * 997 < kN; ++k) {
    EXPECT_TRUE(std::binary_search(got.begin(), got.end(), 2ull * (k * 997))) << hard[k];
  }
}

}  // namespace
