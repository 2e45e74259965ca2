// psnr_hvs on the CUDA backend against the CPU and R, bit for bit: every
// golden run on every fixture pair with 1 and 4 threads, random frames of 8,
// 10 and 12 bits in 4:2:0, 4:2:2 and 4:4:4 at sizes around the 8x8 block
// grid (one block, two overlapping blocks, planes with no block, planes
// whose terms fill several of the chain's staging steps), CUDA graphs on
// and off, and the worker's presence in CUDA builds. A test that needs a GPU
// and finds none skips with "no CUDA device: <problem>".
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

std::vector<GroupCase> psnr_hvs_cases() { return golden_cases_of_groups({"psnr_hvs"}); }

class CudaPsnrHvsGolden : public ::testing::TestWithParam<GroupCase> {};

TEST_P(CudaPsnrHvsGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const GroupCase& c = GetParam();
  expect_cuda_equals_cpu_and_r(c.golden, golden_runs_of(c.group).at(c.golden.run));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaPsnrHvsGolden, ::testing::ValuesIn(psnr_hvs_cases()),
                         [](const auto& i) { return group_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaPsnrHvsGolden);

// Every pair psnr_hvs takes (at most 12 bits) has a golden run.
TEST(CudaPsnrHvsGoldenSet, IsPresent) { EXPECT_GE(psnr_hvs_cases().size(), fixture_pairs().size() - 1); }

TEST(CudaPsnrHvs, WorkerExistsInCudaBuilds) {
  expect_cuda_worker_exactly_in_cuda_builds("psnr_hvs", VideoFormat{64, 48, PixelFormat::yuv420, 10});
}

// Random content (RampNoiseContent, every kind) of 8 to 12 bits: 8x8 (one
// block per luma plane, none in 4:2:0 chroma: NaN as on the CPU), 15x22
// (overlapping blocks), 7x40 (no luma block), 257x33 (9216 luma terms:
// several staging steps of the chain and a partial last one). Teeth: outside
// the near-flat kind 3, psnr_hvs_y of a 257x33 frame is finite and not
// +inf (the pictures differ).
TEST(CudaPsnrHvs, RandomFramesEveryFormat) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u, 12u})
    for (PixelFormat pf : {PixelFormat::yuv420, PixelFormat::yuv422, PixelFormat::yuv444})
      for (const auto& [w, h] : {std::pair{8u, 8u}, std::pair{15u, 22u}, std::pair{7u, 40u}, std::pair{257u, 33u}})
        for (int kind : {0, 1, 2, 3, 4}) {
          const VideoFormat fmt{w, h, pf, bpc};
          const RampNoiseContent c{(1u << bpc) - 1, fmt.width, kind};
          const std::vector<std::string> features = {"psnr_hvs"};
          const RunResult cpu = run_synthetic_pair(fmt, c, 2, features, backend_run_options(Backend::cpu, 1));
          const RunResult gpu = run_synthetic_pair(fmt, c, 2, features, backend_run_options(Backend::cuda, 2));
          const std::string what = fmt::format("{} kind {}", fmt.describe(), kind);
          EXPECT_EQ(gpu.backend, Backend::cuda) << what;
          EXPECT_EQ(expect_same_bits(cpu, gpu, what), 2u * 4u) << what;
          if (w == 257 && kind != 3) {
            const auto y = cpu.scores.get(0, 0);  // psnr_hvs_y
            ASSERT_TRUE(y) << what;
            EXPECT_TRUE(std::isfinite(*y)) << what << ": " << *y;
          }
        }
}

// A 1080p 4:2:0 frame pair: 42 000 luma blocks, the chain over 2.7 million terms.
TEST(CudaPsnrHvs, FullHdFrames) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{1920, 1080, PixelFormat::yuv420, 8};
  const RampNoiseContent c{255, fmt.width, 0};
  const std::vector<std::string> features = {"psnr_hvs"};
  const RunResult cpu = run_synthetic_pair(fmt, c, 2, features, backend_run_options(Backend::cpu, 2));
  const RunResult gpu = run_synthetic_pair(fmt, c, 2, features, backend_run_options(Backend::cuda, 2));
  EXPECT_EQ(expect_same_bits(cpu, gpu, "1080p"), 2u * 4u);
}

// Graphs on and off: 5 frames of 10-bit content, and every fixture pair of at
// most 12 bits without graphs.
TEST(CudaPsnrHvs, SameBitsWithGraphsOnAndOff) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{200, 90, PixelFormat::yuv420, 10};
  const RampNoiseContent c{1023, fmt.width, 0};
  const std::vector<std::string> features = {"psnr_hvs"};
  const RunResult cpu = run_synthetic_pair(fmt, c, 5, features, backend_run_options(Backend::cpu, 1));
  for (bool graphs : {true, false})
    EXPECT_EQ(expect_same_bits(cpu, run_synthetic_pair(fmt, c, 5, features, backend_run_options(Backend::cuda, 3, graphs)),
                               graphs ? "graphs on" : "graphs off"),
              5u * 4u);
  std::size_t pairs = 0;
  for (const auto& pair : fixture_pairs()) {
    if (pair.raw.bitdepth > 12) continue;  // psnr_hvs refuses it (as upstream)
    ++pairs;
    expect_same_bits(run_fixture(pair, features, backend_run_options(Backend::cpu, 1)),
                     run_fixture(pair, features, backend_run_options(Backend::cuda, 2, false)), pair.name + " without graphs");
  }
  EXPECT_GT(pairs, 0u);
}

}  // namespace
}  // namespace exactvmaf::test
