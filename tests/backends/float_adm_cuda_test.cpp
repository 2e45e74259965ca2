// Float ADM on the CUDA backend against the CPU, bit for bit: every golden
// option set on every fixture pair with 1 and 4 threads (and against R's
// golden numbers), synthetic frames of 8 to 16 bits at odd sizes from the
// smallest plane (17x17) to 1920x1080, every option on synthetic frames
// (p-norms other than 3 use the device's powf fast path), graphs off, and
// float_adm with integer adm and motion in one graph. A test that needs a
// GPU and finds none skips with "no CUDA device: <problem>".
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "backends/cuda/cuda_feature.hpp"
#include "exactvmaf/cuda.hpp"
#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

// ---- every golden option set on every fixture pair ---------------------------

class CudaFloatAdmGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaFloatAdmGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const GoldenCase& c = GetParam();
  // Upstream's aim is uninitialised where every denominator is 0 (the flat
  // pair without noise floor); there only cuda == cpu is checked.
  const bool r_comparable = !(c.pair.rfind("flat_", 0) == 0 && c.run == "float_adm_nw_0");
  expect_cuda_equals_cpu_and_r(c, float_adm_golden_runs().at(c.run), r_comparable);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaFloatAdmGolden,
                         ::testing::ValuesIn(golden_cases_for(float_adm_golden_runs())),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaFloatAdmGolden);

TEST(CudaFloatAdmGoldenSet, EveryPairHasEveryRun) {
  EXPECT_EQ(golden_cases_for(float_adm_golden_runs()).size(),
            fixture_pairs().size() * float_adm_golden_runs().size());
}

// ---- the extractor offers a CUDA worker exactly in CUDA builds (every build) --

TEST(CudaFloatAdm, WorkerExistsInCudaBuilds) {
  for (const char* f : {"float_adm", "float_adm=debug=true:adm_skip_scale0=true:adm_p_norm=2.5"})
    expect_cuda_worker_exactly_in_cuda_builds(f, VideoFormat{64, 48, PixelFormat::yuv420, 10});
}

// ---- synthetic frames ----------------------------------------------------------

// RampNoiseContent (tests/support/synthetic.hpp): kind 3's coefficients near
// zero reach the decouple's eps, kind 4 the gain limit. Scale 1 (metric 4)
// of the first frame gives the comparison its teeth.
void expect_cuda_equals_cpu(const VideoFormat& fmt, int kind, const std::string& feature, std::uint64_t frames = 3) {
  expect_cuda_equals_cpu_on_ramp_noise(fmt, kind, feature, 4, frames);
}

TEST(CudaFloatAdm, RandomFramesEveryBitDepthOddSizes) {
  REQUIRE_CUDA_DEVICE();
  struct Size {
    unsigned w, h;
  };
  // 17x17: the smallest plane (2x2 bands at scale 3); 257 and 263 wider than
  // two kernel tiles; 35x301 tall with odd sizes at every scale.
  const Size sizes[] = {{17, 17}, {35, 301}, {257, 37}, {263, 150}, {97, 65}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& s : sizes)
      for (int kind : {0, 1, 2, 3, 4})
        expect_cuda_equals_cpu({s.w, s.h, PixelFormat::yuv420, bpc}, kind, "float_adm=debug=true");
}

TEST(CudaFloatAdm, EveryOptionOnRandomFrames) {
  REQUIRE_CUDA_DEVICE();
  const char* features[] = {
      "float_adm",
      "float_adm=debug=true:adm_enhn_gain_limit=1.0",
      "float_adm=debug=true:adm_enhn_gain_limit=1.2",
      "float_adm=debug=true:adm_enhn_gain_limit=1.1",
      "float_adm=debug=true:adm_skip_scale0=true:adm_skip_aim_scale=1",
      "float_adm=debug=true:adm_noise_weight=0:adm_min_val=0.3:adm_dlm_weight=0.9",
      "float_adm=debug=true:adm_noise_weight=2.5:adm_adm3_apply_hm=true",
      "float_adm=debug=true:adm_p_norm=2",
      "float_adm=debug=true:adm_p_norm=2.5",
      "float_adm=debug=true:adm_p_norm=4.5:adm_bypass_cm=1",
      "float_adm=debug=true:adm_p_norm=1",
      "float_adm=debug=true:adm_csf_mode=1:adm_csf_scale=0.5:adm_csf_diag_scale=2.0:adm_norm_view_dist=4.5",
      "float_adm=debug=true:adm_csf_mode=2:adm_norm_view_dist=5.0:adm_ref_display_height=720",
      "float_adm=debug=true:adm_csf_mode=7:adm_norm_view_dist=1.5:adm_ref_display_height=2160",
      "float_adm=debug=true:adm_f1s0=0.3:adm_f2s1=2.25:adm_f1s3=0",
  };
  for (const char* f : features)
    for (unsigned bpc : {8u, 10u, 16u})
      for (int kind : {0, 1, 3, 4}) expect_cuda_equals_cpu({61, 45, PixelFormat::yuv444, bpc}, kind, f);
}

// Flat frames with no noise floor: the denominator vanishes (adm 1, aim 0).
TEST(CudaFloatAdm, FlatFramesWithoutNoiseFloor) {
  REQUIRE_CUDA_DEVICE();
  const RunResult cpu = expect_cuda_equals_cpu_on_flat_frames("float_adm=debug=true:adm_noise_weight=0");
  const auto adm2 = cpu.scores.get(0, 0);
  const auto aim = cpu.scores.get(1, 0);
  ASSERT_TRUE(adm2 && aim);
  EXPECT_EQ(*adm2, 1.0);
  EXPECT_EQ(*aim, 0.0);
}

TEST(CudaFloatAdm, FullHdFrames) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u})
    expect_cuda_equals_cpu({1920, 1080, PixelFormat::yuv420, bpc}, 0, "float_adm=debug=true", 2);
  expect_cuda_equals_cpu({1921, 1079, PixelFormat::yuv420, 12}, 4, "float_adm=debug=true:adm_enhn_gain_limit=1.2", 2);
  expect_cuda_equals_cpu({1920, 1080, PixelFormat::yuv420, 8}, 1, "float_adm=debug=true:adm_p_norm=2.5", 2);
}

TEST(CudaFloatAdm, GraphsOffAndWithAdmAndMotionInOneGraph) {
  REQUIRE_CUDA_DEVICE();
  expect_cuda_equals_cpu_graphs_on_and_off(
      {"motion=debug=true", "adm=debug=true", "float_adm=debug=true:adm_enhn_gain_limit=1.2"}, "float_adm=debug=true");
}

}  // namespace
}  // namespace exactvmaf::test
