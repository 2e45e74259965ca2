// Integer VIF on the CUDA backend against the CPU, bit for bit: every golden
// option set on every fixture pair with 1 and 4 threads (and against R's
// golden numbers), random and extreme frames of 8 to 16 bits at odd sizes
// (the smallest plane, planes narrower and wider than one kernel tile),
// graphs off, and vif together with motion in one graph. A test that needs a
// GPU and finds none skips with "no CUDA device: <problem>".
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "backends/cuda/cuda_feature.hpp"
#include "exactvmaf/cuda.hpp"
#include "support/backend_parity.hpp"
#include "support/golden_runs.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

std::vector<GoldenCase> vif_cases() { return golden_cases_for(vif_golden_runs()); }

// ---- every golden option set on every fixture pair ---------------------------

class CudaVifGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaVifGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  expect_cuda_equals_cpu_and_r(GetParam(), vif_golden_runs().at(GetParam().run));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaVifGolden, ::testing::ValuesIn(vif_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaVifGolden);

TEST(CudaVifGoldenSet, IsPresent) {
  EXPECT_EQ(vif_cases().size(), fixture_pairs().size() * 4u);  // 4 option sets on each pair
}

// ---- the extractor offers a CUDA worker exactly in CUDA builds (every build) --

TEST(CudaVif, WorkerExistsInCudaBuilds) {
  expect_cuda_worker_exactly_in_cuda_builds("vif=debug=true", VideoFormat{64, 48, PixelFormat::yuv420, 10});
}

// ---- synthetic frames ----------------------------------------------------------

// RampNoiseContent (tests/support/synthetic.hpp) kinds 0-3: 0 most pixels
// on the log branch, 1 negative covariances, 2 the largest sums, 3 mostly the
// non-log branch. Scale 1 (metric 1) of the first frame gives the comparison
// its teeth (flat frames give exactly 1).
void expect_cuda_equals_cpu(const VideoFormat& fmt, int kind, const std::string& feature) {
  expect_cuda_equals_cpu_on_ramp_noise(fmt, kind, feature, 1, 3);
}

TEST(CudaVif, RandomFramesEveryBitDepthOddSizes) {
  REQUIRE_CUDA_DEVICE();
  struct Size {
    unsigned w, h;
  };
  // 16x16: the smallest plane (2x2 at scale 3); 129 and 300 cross the
  // statistic kernel's 128-column tile, 9/17/77 rows its 8-row tile; 263x150
  // leaves odd widths at every scale.
  const Size sizes[] = {{16, 16}, {37, 23}, {129, 17}, {300, 77}, {263, 150}, {17, 9 * 16 + 1}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& s : sizes)
      for (int kind : {0, 1, 2, 3}) expect_cuda_equals_cpu({s.w, s.h, PixelFormat::yuv420, bpc}, kind, "vif=debug=true");
}

TEST(CudaVif, EveryOptionOnRandomFrames) {
  REQUIRE_CUDA_DEVICE();
  const char* features[] = {"vif", "vif=vif_enhn_gain_limit=1.0", "vif=vif_enhn_gain_limit=1.3:debug=true",
                            "vif=vif_skip_scale0=true", "vif=vif_enhn_gain_limit=1.5:vif_skip_scale0=true:debug=true"};
  for (const char* f : features)
    for (unsigned bpc : {8u, 9u, 14u})
      for (int kind : {0, 1}) expect_cuda_equals_cpu({61, 33, PixelFormat::yuv444, bpc}, kind, f);
}

// A frame several tiles wide and tall at every scale (1920x1080 has 15 x 135
// scale-0 tiles and 240x135 samples at scale 3).
TEST(CudaVif, FullHdFrames) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u}) expect_cuda_equals_cpu({1920, 1080, PixelFormat::yuv420, bpc}, 0, "vif=debug=true");
}

TEST(CudaVif, GraphsOffAndWithMotionInOneGraph) {
  REQUIRE_CUDA_DEVICE();
  expect_cuda_equals_cpu_graphs_on_and_off({"motion=debug=true", "vif=debug=true:vif_enhn_gain_limit=1.2"},
                                           "vif=debug=true");
}

}  // namespace
}  // namespace exactvmaf::test
