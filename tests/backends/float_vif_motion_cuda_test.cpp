// float_vif, float_motion and the vmaf_float models on the CUDA backend
// against the CPU and R, bit for bit: every golden run of the float_vif and
// float_motion groups on every fixture pair with 1 and 4 threads, the four
// vmaf_float models (float_adm, float_vif and float_motion together on the
// device), random frames of every bit depth at odd sizes (float_vif with
// every prescale method; float_motion with scale 1 and the chroma planes),
// CUDA graphs off, and the workers' presence in CUDA builds. Every CUDA run
// must have computed its frames on the device. A test that needs a GPU and
// finds none skips with "no CUDA device: <problem>".
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/model_run.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

// ---- golden runs --------------------------------------------------------------------

std::vector<GroupCase> feature_cases() { return golden_cases_of_groups({"float_vif", "float_motion"}); }

class CudaFloatVifMotionGolden : public ::testing::TestWithParam<GroupCase> {};

TEST_P(CudaFloatVifMotionGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const GroupCase& c = GetParam();
  expect_cuda_equals_cpu_and_r(c.golden, golden_runs_of(c.group).at(c.golden.run));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaFloatVifMotionGolden, ::testing::ValuesIn(feature_cases()),
                         [](const auto& i) { return group_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaFloatVifMotionGolden);

TEST(CudaFloatVifMotionGoldenSet, IsPresent) { EXPECT_GE(feature_cases().size(), fixture_pairs().size() * 16u); }

std::vector<GoldenCase> model_cases() {
  std::vector<GoldenCase> out;
  for (const GroupCase& c : golden_cases_of_groups({"vmaf_float"})) out.push_back(c.golden);
  return out;
}

class CudaFloatModelGolden : public ::testing::TestWithParam<GoldenCase> {};

// Every feature and model output of every frame: the CPU's bits and R's.
TEST_P(CudaFloatModelGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const GoldenCase& gc = GetParam();
  const GoldenRunArgs& g = all_golden_runs().at(gc.run);
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const auto r = read_json(golden_dir() / "r" / gc.pair / (gc.run + ".json"));
  const RunResult cpu = run_models(*pair, g.models, g.run.features, golden_run_options(g.run, Backend::cpu, 1));
  for (unsigned threads : {1u, 4u}) {
    const std::string what = fmt::format("{}/{} threads {}", gc.pair, gc.run, threads);
    const RunResult gpu = run_models(*pair, g.models, g.run.features, golden_run_options(g.run, Backend::cuda, threads));
    EXPECT_EQ(gpu.backend, Backend::cuda) << what;
    EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
    const GoldenComparison vs_r = compare_with_golden(r, gpu, g.run.subsample);
    EXPECT_GT(vs_r.values, 0u) << what;
    EXPECT_EQ(vs_r.differing, 0u) << what << ": " << vs_r.differing << " of " << vs_r.values
                                  << " values differ from R; first: " << vs_r.first_difference;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaFloatModelGolden, ::testing::ValuesIn(model_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaFloatModelGolden);

TEST(CudaFloatModelGoldenSet, CoversTheFourModels) { EXPECT_GE(model_cases().size(), fixture_pairs().size() * 4u); }

// ---- every build ----------------------------------------------------------------------

TEST(CudaFloatVifMotion, WorkersExistInCudaBuilds) {
  expect_cuda_worker_exactly_in_cuda_builds("float_vif", VideoFormat{64, 48, PixelFormat::yuv420, 8});
  expect_cuda_worker_exactly_in_cuda_builds("float_vif=vif_prescale=1.5:vif_prescale_method=lanczos4",
                                            VideoFormat{64, 48, PixelFormat::yuv420, 10});
  expect_cuda_worker_exactly_in_cuda_builds("float_motion", VideoFormat{64, 48, PixelFormat::yuv420, 8});
  expect_cuda_worker_exactly_in_cuda_builds("float_motion=motion_add_uv=true:motion_add_scale1=true",
                                            VideoFormat{64, 48, PixelFormat::yuv444, 12});
}

// ---- synthetic frames ------------------------------------------------------------------

// RampNoiseContent of every bit depth at sizes that end inside a warp's chunk
// of columns and a block of rows; 3 frames (float_motion's history).
void expect_cuda_equals_cpu(const VideoFormat& fmt, int kind, const std::string& feature, unsigned gpu_threads,
                            bool graphs = true) {
  const RampNoiseContent c{(1u << fmt.bitdepth) - 1, fmt.width, kind};
  const std::vector<std::string> features = {feature};
  const RunResult cpu = run_synthetic_pair(fmt, c, 3, features, backend_run_options(Backend::cpu, 1));
  const RunResult gpu = run_synthetic_pair(fmt, c, 3, features, backend_run_options(Backend::cuda, gpu_threads, graphs));
  const std::string what = fmt::format("{} kind {} {} graphs {}", fmt.describe(), kind, feature, graphs);
  EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
}

TEST(CudaFloatVif, RandomFramesEveryBitDepthAndPrescale) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (int kind : {0, 1, 2, 3}) expect_cuda_equals_cpu(VideoFormat{257, 67, PixelFormat::yuv420, bpc}, kind, "float_vif", 2);
  for (const char* method : {"nearest", "bilinear", "bicubic", "lanczos4"})
    for (const char* ps : {"0.5", "1.5"})
      expect_cuda_equals_cpu(VideoFormat{161, 99, PixelFormat::yuv420, 10}, 0,
                             fmt::format("float_vif=vif_prescale={}:vif_prescale_method={}", ps, method), 2);
  expect_cuda_equals_cpu(VideoFormat{300, 140, PixelFormat::yuv420, 8}, 0,
                         "float_vif=vif_kernelscale=0.5:vif_sigma_nsq=0.1:vif_skip_scale0=true:debug=true", 3);
  expect_cuda_equals_cpu(VideoFormat{300, 140, PixelFormat::yuv420, 8}, 1, "float_vif=vif_kernelscale=2", 3, false);
}

TEST(CudaFloatVif, Fp32PairVariantOnRandomFrames) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{257, 67, PixelFormat::yuv420, 10};
  for (int kind : {0, 1, 2, 3}) {
    const RampNoiseContent c{1023, fmt.width, kind};
    const std::vector<std::string> features = {"float_vif=vif_sigma_nsq=0.3"};
    const RunResult cpu = run_synthetic_pair(fmt, c, 3, features, backend_run_options(Backend::cpu, 1));
    RunOptions o = backend_run_options(Backend::cuda, 2);
    o.device_fp64 = DeviceFp64::off;
    const RunResult gpu = run_synthetic_pair(fmt, c, 3, features, o);
    const std::string what = fmt::format("kind {} fp32pair", kind);
    EXPECT_TRUE(gpu.cuda_fp32pair) << what;
    EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
    EXPECT_GT(gpu.cuda_pair_islands, 0u) << what;  // the fp32pair kernels ran
  }
}

TEST(CudaFloatMotion, RandomFramesEveryBitDepthScaleAndPlane) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (int kind : {0, 1, 2}) {
      expect_cuda_equals_cpu(VideoFormat{257, 67, PixelFormat::yuv420, bpc}, kind, "float_motion", 2);
      expect_cuda_equals_cpu(VideoFormat{131, 35, PixelFormat::yuv444, bpc}, kind,
                             "float_motion=motion_add_scale1=true:motion_add_uv=true", 3);
    }
  for (const char* f : {"float_motion=motion_filter_size=3", "float_motion=motion_filter_size=1",
                        "float_motion=motion_add_uv=true", "float_motion=motion_force_zero=true",
                        "float_motion=debug=false:motion_blend_factor=0.5"})
    expect_cuda_equals_cpu(VideoFormat{99, 51, PixelFormat::yuv422, 8}, 0, f, 2);
  expect_cuda_equals_cpu(VideoFormat{3, 3, PixelFormat::yuv444, 8}, 0, "float_motion=motion_add_scale1=true", 1, false);
}

}  // namespace
}  // namespace exactvmaf::test
