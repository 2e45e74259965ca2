// psnr and float_psnr on the CUDA backend against the CPU and R, bit for
// bit: every golden run of the psnr group (psnr with every option set,
// float_psnr, apsnr) on every fixture pair with 1 and 4 threads, random
// frames of every bit depth and layout at odd sizes, and the worker's
// presence in CUDA builds. A test that needs a GPU and finds none skips with
// "no CUDA device: <problem>".
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

std::vector<GoldenCase> psnr_cases() { return golden_cases_for(psnr_golden_runs()); }

class CudaPsnrGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaPsnrGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  expect_cuda_equals_cpu_and_r(GetParam(), psnr_golden_runs().at(GetParam().run));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaPsnrGolden, ::testing::ValuesIn(psnr_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaPsnrGolden);

TEST(CudaPsnrGoldenSet, IsPresent) { EXPECT_GE(psnr_cases().size(), fixture_pairs().size() * 6u); }

TEST(CudaPsnr, WorkerExistsInCudaBuilds) {
  expect_cuda_worker_exactly_in_cuda_builds("psnr=enable_mse=true", VideoFormat{64, 48, PixelFormat::yuv420, 10});
  expect_cuda_worker_exactly_in_cuda_builds("float_psnr", VideoFormat{64, 48, PixelFormat::yuv420, 16});
}

// Random content (RampNoiseContent) of every bit depth and chroma layout,
// sizes that end inside a 256-column block and rows beyond one block: psnr
// with mse and apsnr, float_psnr (its 16-bit squares through the exact
// integer sum); metric 0 is a real PSNR (not the cap) outside kind 3.
TEST(CudaPsnr, RandomFramesEveryBitDepthAndLayout) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (PixelFormat pf : {PixelFormat::yuv420, PixelFormat::yuv422, PixelFormat::yuv444, PixelFormat::yuv400})
      for (int kind : {0, 1, 2}) {
        const VideoFormat fmt{257, 33, pf, bpc};
        const RampNoiseContent c{(1u << bpc) - 1, fmt.width, kind};
        for (const char* f : {"psnr=enable_mse=true:enable_apsnr=true", "float_psnr"}) {
          const std::vector<std::string> features = {f};
          const RunResult cpu = run_synthetic_pair(fmt, c, 3, features, backend_run_options(Backend::cpu, 1));
          const RunResult gpu = run_synthetic_pair(fmt, c, 3, features, backend_run_options(Backend::cuda, 2));
          const std::string what = fmt::format("{} kind {} {}", fmt.describe(), kind, f);
          EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
          EXPECT_EQ(gpu.scores.aggregates(), cpu.scores.aggregates()) << what;
        }
      }
}

}  // namespace
}  // namespace exactvmaf::test
