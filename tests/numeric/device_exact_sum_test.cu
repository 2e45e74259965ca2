// The CUDA exact-sum reduction (src/numeric/device/exact_sum_reduce.cuh)
// against the host's ExactSum and MPFR: the same bits for every grid shape.
// EXACTVMAF_DEVICE_TEST_N terms per sequence (10^4 quick, 10^7 long).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "device_test_util.cuh"
#include "exact_sum_oracle.hpp"
#include "exact_sum_seqs.hpp"
#include "numeric/device/exact_sum_reduce.cuh"
#include "numeric/exact_sum.hpp"

#ifndef EXACTVMAF_DEVICE_TEST_N
#define EXACTVMAF_DEVICE_TEST_N 10000
#endif

namespace {

using exactvmaf::rmath::ExactSumF32;
using exactvmaf::rmath::ExactSumF64;
using exactvmaf::rmath::device::exact_sum_on_device;
using namespace exactvmaf::test;

constexpr std::size_t kN = EXACTVMAF_DEVICE_TEST_N;

std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

struct Shape {
  int blocks, threads;
};
constexpr Shape kShapes[] = {{1, 32}, {7, 64}, {264, 256}, {1024, 224}, {4096, 128}};

TEST(DeviceExactSum, FloatSequences) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  SplitMix64 rng(77);
  const FloatSeq kinds[] = {FloatSeq::kUniformBits, FloatSeq::kCiedeLike, FloatSeq::kCancellation,
                            FloatSeq::kMaxFloat,    FloatSeq::kSubnormal, FloatSeq::kTies};
  for (FloatSeq kind : kinds) {
    std::vector<float> v = float_sequence(kind, kN, rng);
    if (kind == FloatSeq::kCiedeLike) v[kN / 2] = 0.0f;
    ExactSumF32 host{};
    for (float x : v) host.add(x);
    const double want = host.round_to_double();
    if (kN <= 100000) EXPECT_EQ(bits(want), bits(mpfr_exact_sum(widen(v)))) << float_seq_name(kind);
    DeviceBuffer<float> d(v);
    ASSERT_NE(d.ptr, nullptr);
    for (const Shape& s : kShapes) {
      const double got = exact_sum_on_device<ExactSumF32>(d.ptr, v.size(), s.blocks, s.threads);
      EXPECT_EQ(bits(got), bits(want)) << float_seq_name(kind) << " blocks " << s.blocks << " threads "
                                       << s.threads;
      const double got64 = exact_sum_on_device<ExactSumF64>(d.ptr, v.size(), s.blocks, s.threads);
      EXPECT_EQ(bits(got64), bits(want)) << float_seq_name(kind) << " (F64 accumulator)";
    }
  }
}

TEST(DeviceExactSum, DoubleSequences) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  SplitMix64 rng(78);
  for (int mode = 0; mode < 3; ++mode) {
    std::vector<double> v(kN);
    for (std::size_t i = 0; i < kN; ++i) {
      double x = rng.any_double();
      if (x - x != 0.0) x = 0x1p-1074;
      if (mode == 1) x = rng.log_uniform(-1074, -1000);
      v[i] = x;
    }
    if (mode == 2) {  // everything cancels but one subnormal
      for (std::size_t i = 0; i + 1 < kN; i += 2) v[i + 1] = -v[i];
      v[kN - 1] = 0x1p-1074;
    }
    ExactSumF64 host{};
    for (double x : v) host.add(x);
    const double want = host.round_to_double();
    if (kN <= 100000) EXPECT_EQ(bits(want), bits(mpfr_exact_sum(v)));
    DeviceBuffer<double> d(v);
    ASSERT_NE(d.ptr, nullptr);
    for (const Shape& s : kShapes) {
      const double got = exact_sum_on_device<ExactSumF64>(d.ptr, v.size(), s.blocks, s.threads);
      EXPECT_EQ(bits(got), bits(want)) << "mode " << mode << " blocks " << s.blocks;
    }
  }
}

TEST(DeviceExactSum, NonFinite) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  std::vector<float> v(kN, 1.0f);
  DeviceBuffer<float> d(v);
  EXPECT_EQ(exact_sum_on_device<ExactSumF32>(d.ptr, kN), static_cast<double>(kN));
  v[kN / 3] = -std::numeric_limits<float>::infinity();
  DeviceBuffer<float> d2(v);
  EXPECT_EQ(exact_sum_on_device<ExactSumF32>(d2.ptr, kN), -std::numeric_limits<double>::infinity());
  v[kN / 2] = std::numeric_limits<float>::infinity();
  DeviceBuffer<float> d3(v);
  EXPECT_EQ(bits(exact_sum_on_device<ExactSumF32>(d3.ptr, kN)), 0x7ff8000000000000ull);
}

TEST(DeviceExactSum, RejectsLaunchShapesItCannotRun) {
  EXACTVMAF_REQUIRE_CUDA_DEVICE();
  DeviceBuffer<float> d(std::vector<float>(64, 1.0f));
  EXPECT_THROW(exact_sum_on_device<ExactSumF32>(d.ptr, 64, 4, 1024), exactvmaf::Error);
  EXPECT_THROW(exact_sum_on_device<ExactSumF32>(d.ptr, 64, 4, 48), exactvmaf::Error);
}

}  // namespace
