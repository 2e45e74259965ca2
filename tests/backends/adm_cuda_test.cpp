// Integer ADM on the CUDA backend against the CPU, bit for bit: every golden
// option set on every fixture pair with 1 and 4 threads (and against R's
// golden numbers), synthetic frames of 8 to 16 bits at odd sizes from the
// smallest plane (33x33) to 1920x1080, every option on synthetic frames,
// graphs off, and adm with motion in one graph. A test that needs a GPU and
// finds none skips with "no CUDA device: <problem>".
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

// ---- every golden option set on every fixture pair ---------------------------

class CudaAdmGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaAdmGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  expect_cuda_equals_cpu_and_r(GetParam(), adm_golden_runs().at(GetParam().run));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaAdmGolden, ::testing::ValuesIn(golden_cases_for(adm_golden_runs())),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaAdmGolden);

TEST(CudaAdmGoldenSet, IsPresent) {
  EXPECT_EQ(golden_cases_for(adm_golden_runs()).size(), fixture_pairs().size() * 8u);  // 8 option sets on each pair
}

// ---- the extractor offers a CUDA worker exactly in CUDA builds (every build) --

TEST(CudaAdm, WorkerExistsInCudaBuilds) {
  for (const char* f : {"adm", "adm=debug=true:adm_skip_scale0=true:adm_skip_aim=true"})
    expect_cuda_worker_exactly_in_cuda_builds(f, VideoFormat{64, 48, PixelFormat::yuv420, 10});
}

// ---- synthetic frames ----------------------------------------------------------

// RampNoiseContent (tests/support/synthetic.hpp): kind 0 the angle test and
// the gain limit both ways, 1 large negative products, 2 the largest
// coefficients (16-bit wrap-around in the DWT), 3 the decouple's o == 0 path,
// 4 k > 1 (the enhancement-gain limit).
// Scale 1 (metric 4) of the first frame gives the comparison its teeth.
void expect_cuda_equals_cpu(const VideoFormat& fmt, int kind, const std::string& feature, std::uint64_t frames = 3) {
  expect_cuda_equals_cpu_on_ramp_noise(fmt, kind, feature, 4, frames);
}

TEST(CudaAdm, RandomFramesEveryBitDepthOddSizes) {
  REQUIRE_CUDA_DEVICE();
  struct Size {
    unsigned w, h;
  };
  // 33x33: the smallest plane (3x3 bands at scale 3); 257 and 263 make band
  // rows of one DWT tile plus a few samples (129, 132); 35x301 a tall plane
  // with odd sizes at every scale.
  const Size sizes[] = {{33, 33}, {35, 301}, {257, 37}, {263, 150}, {97, 65}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& s : sizes)
      for (int kind : {0, 1, 2, 3, 4}) expect_cuda_equals_cpu({s.w, s.h, PixelFormat::yuv420, bpc}, kind, "adm=debug=true");
}

TEST(CudaAdm, EveryOptionOnRandomFrames) {
  REQUIRE_CUDA_DEVICE();
  const char* features[] = {
      "adm",
      "adm=debug=true:adm_enhn_gain_limit=1.0",
      "adm=debug=true:adm_enhn_gain_limit=1.2",
      "adm=debug=true:adm_enhn_gain_limit=1.1",
      "adm=debug=true:adm_skip_aim=true",
      "adm=debug=true:adm_skip_scale0=true",
      "adm=debug=true:adm_skip_scale0=true:adm_skip_aim=true",
      "adm=debug=true:adm_noise_weight=0:adm_min_val=0.3:adm_dlm_weight=0.9",
      "adm=debug=true:adm_noise_weight=2.5",
      "adm=debug=true:adm_csf_mode=1",
      "adm=debug=true:adm_csf_mode=1:adm_csf_scale=0.5:adm_csf_diag_scale=2.0:adm_norm_view_dist=4.5",
      "adm=debug=true:adm_csf_mode=2:adm_norm_view_dist=5.0:adm_ref_display_height=720",
      "adm=debug=true:adm_csf_mode=3:adm_norm_view_dist=1.5:adm_ref_display_height=2160",
      "adm=debug=true:adm_csf_mode=0:adm_norm_view_dist=6.0:adm_ref_display_height=1080",
      "adm=debug=true:adm_csf_mode=0:adm_norm_view_dist=3.0:adm_ref_display_height=2160",
  };
  for (const char* f : features)
    for (unsigned bpc : {8u, 9u, 14u})
      for (int kind : {0, 1, 3, 4}) expect_cuda_equals_cpu({61, 45, PixelFormat::yuv444, bpc}, kind, f);
}

// Flat frames with no noise floor: the denominator vanishes (adm 1, aim 0).
TEST(CudaAdm, FlatFramesWithoutNoiseFloor) {
  REQUIRE_CUDA_DEVICE();
  const RunResult cpu = expect_cuda_equals_cpu_on_flat_frames("adm=debug=true:adm_noise_weight=0");
  const auto adm2 = cpu.scores.get(0, 0);
  ASSERT_TRUE(adm2);
  EXPECT_EQ(*adm2, 1.0);
}

// Frames several DWT tiles wide and many rows tall at every scale
// (1920x1080: 960 band samples at scale 0, 120 at scale 3).
TEST(CudaAdm, FullHdFrames) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u}) expect_cuda_equals_cpu({1920, 1080, PixelFormat::yuv420, bpc}, 0, "adm=debug=true", 2);
  expect_cuda_equals_cpu({1921, 1079, PixelFormat::yuv420, 12}, 4, "adm=debug=true:adm_enhn_gain_limit=1.2", 2);
}

TEST(CudaAdm, GraphsOffAndWithMotionInOneGraph) {
  REQUIRE_CUDA_DEVICE();
  expect_cuda_equals_cpu_graphs_on_and_off({"motion=debug=true", "adm=debug=true:adm_enhn_gain_limit=1.2"},
                                           "adm=debug=true");
}

}  // namespace
}  // namespace exactvmaf::test
