// Pooling as libvmaf computes it, and --feature option parsing.
#include <gtest/gtest.h>

#include "support/fixtures.hpp"

namespace exactvmaf::test {
namespace {

TEST(ScoreTable, PoolsLikeLibvmaf) {
  ScoreTable t;
  const auto id = t.add_metric("m");
  const double v[] = {3.0, 1.0, 4.0, 1.5, 9.0};
  for (int i = 0; i < 5; ++i) t.set(id, static_cast<std::uint64_t>(i), v[i]);
  double sum = 0, isum = 0;
  for (double x : v) {
    sum += x;
    isum += 1. / (x + 1.);
  }
  EXPECT_EQ(*t.pooled(id, PoolMethod::mean, 0, 4, 1), sum / 5);
  EXPECT_EQ(*t.pooled(id, PoolMethod::harmonic_mean, 0, 4, 1), 5 / isum - 1.0);
  EXPECT_EQ(*t.pooled(id, PoolMethod::min, 0, 4, 1), 1.0);
  EXPECT_EQ(*t.pooled(id, PoolMethod::max, 0, 4, 1), 9.0);
  // subsample 2: frames 0, 2, 4
  EXPECT_EQ(*t.pooled(id, PoolMethod::mean, 0, 4, 2), (3.0 + 4.0 + 9.0) / 3);
  EXPECT_EQ(*t.pooled(id, PoolMethod::min, 0, 4, 2), 3.0);
  // a frame in range that was never written: libvmaf fails the pooling
  EXPECT_FALSE(t.pooled(id, PoolMethod::mean, 0, 5, 1));
  EXPECT_EQ(t.add_metric("m"), id);
  EXPECT_EQ(t.add_metric("n"), id + 1);
  EXPECT_EQ(t.frame_capacity(), 5u);
}

TEST(FeatureRequest, ParsesOptionsAndReplacesDefaults) {
  const auto r = parse_feature_request("psnr=enable_mse=true:min_sse=0.25:enable_chroma=false");
  EXPECT_EQ(r.info->name, "psnr");
  EXPECT_TRUE(r.options.get_bool("enable_mse"));
  EXPECT_FALSE(r.options.get_bool("enable_chroma"));
  EXPECT_EQ(r.options.get_real("min_sse"), 0.25);
  EXPECT_TRUE(r.options.is_default("enable_apsnr"));
  EXPECT_FALSE(r.options.is_default("enable_mse"));
}

void expect_error(const std::string& arg, const std::string& fragment) {
  try {
    parse_feature_request(arg);
    ADD_FAILURE() << arg << ": no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(fragment), std::string::npos) << arg << " -> " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(FeatureRequest, RejectsBadRequestsWithOneLineNamingTheProblem) {
  expect_error("psnrr", "unknown feature 'psnrr'");
  expect_error("psnr=enable_msee=true", "unknown option 'enable_msee'");
  expect_error("psnr=enable_mse=yes", "enable_mse=yes: not a boolean");
  expect_error("psnr=min_sse=-1", "min_sse=-1: out of range");
  expect_error("psnr=min_sse=abc", "min_sse=abc: not a number");
  expect_error("psnr=min_sse=1e999", "not a number");
  expect_error("psnr=enable_mse", "malformed option 'enable_mse'");
  expect_error("psnr=enable_mse=true:", "malformed option ''");
  expect_error("float_psnr=x=1", "unknown option 'x' (options: none)");
}

}  // namespace
}  // namespace exactvmaf::test

namespace exactvmaf::test {
namespace {

TEST(CudaStatus, SaysWhyNoDeviceIsUsableOrListsDevices) {
  const CudaStatus s = cuda_status();
  if (!s.built) {
    EXPECT_TRUE(s.devices.empty());
    EXPECT_NE(s.problem.find("no CUDA backend"), std::string::npos) << s.problem;
    return;
  }
  if (s.devices.empty()) {
    EXPECT_FALSE(s.problem.empty());
    EXPECT_EQ(s.problem.find('\n'), std::string::npos);
    GTEST_SKIP() << "no CUDA device: " << s.problem;
  }
  for (const auto& d : s.devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.cc_major, 3);
    EXPECT_GT(d.memory_bytes, 0u);
  }
}

}  // namespace
}  // namespace exactvmaf::test
