// float_ansnr and float_moment on the CUDA backend against the CPU and R, bit
// for bit: every golden run of both groups on every fixture pair with 1 and 4
// threads, random frames of every bit depth at odd sizes down to 3x3 (the
// least float_ansnr takes), CUDA graphs on and off, float_moment's 16-bit
// second moment on both sides of 2^53 units (the device's integer total just
// below it; the host's R chain, counted as host frames, just above), and the
// workers' presence in CUDA builds. A test that needs a GPU and finds none
// skips with "no CUDA device: <problem>".
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "features/float_moment/float_moment_math.hpp"
#include "features/float_psnr/float_psnr_math.hpp"
#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

std::vector<GroupCase> ansnr_moment_cases() { return golden_cases_of_groups({"float_ansnr", "float_moment"}); }

class CudaAnsnrMomentGolden : public ::testing::TestWithParam<GroupCase> {};

TEST_P(CudaAnsnrMomentGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const GroupCase& c = GetParam();
  expect_cuda_equals_cpu_and_r(c.golden, golden_runs_of(c.group).at(c.golden.run));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaAnsnrMomentGolden, ::testing::ValuesIn(ansnr_moment_cases()),
                         [](const auto& i) { return group_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaAnsnrMomentGolden);

// One run of each group on every pair (an empty or shrunken set fails here).
TEST(CudaAnsnrMomentGoldenSet, IsPresent) { EXPECT_GE(ansnr_moment_cases().size(), fixture_pairs().size() * 2u); }

TEST(CudaAnsnrMoment, WorkerExistsInCudaBuilds) {
  expect_cuda_worker_exactly_in_cuda_builds("float_ansnr", VideoFormat{64, 48, PixelFormat::yuv420, 10});
  expect_cuda_worker_exactly_in_cuda_builds("float_moment", VideoFormat{64, 48, PixelFormat::yuv420, 16});
}

// Random content (RampNoiseContent, every kind) of every bit depth: 257x33
// (a row chain's last 32-column chunk of one sample, rows past one block of
// 8), 3x3 (the mirror's smallest plane: every sample is a border sample) and
// 5x300 (tall and narrow, rows beyond one 256-row stage of the total).
// Teeth: float_ansnr is a real quotient (the noise sum is not 0) and the
// first moment not 0.
TEST(CudaAnsnrMoment, RandomFramesEveryBitDepth) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : {std::pair{257u, 33u}, std::pair{3u, 3u}, std::pair{5u, 300u}})
      for (int kind : {0, 1, 2, 3, 4}) {
        const VideoFormat fmt{w, h, PixelFormat::yuv420, bpc};
        const RampNoiseContent c{(1u << bpc) - 1, fmt.width, kind};
        for (const char* f : {"float_ansnr", "float_moment"}) {
          const std::vector<std::string> features = {f};
          const RunResult cpu = run_synthetic_pair(fmt, c, 3, features, backend_run_options(Backend::cpu, 1));
          const RunResult gpu = run_synthetic_pair(fmt, c, 3, features, backend_run_options(Backend::cuda, 2));
          const std::string what = fmt::format("{} kind {} {}", fmt.describe(), kind, f);
          EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
          EXPECT_EQ(gpu.scores.aggregates(), cpu.scores.aggregates()) << what;
          const auto first = cpu.scores.get(0, 0);  // float_ansnr, float_moment_ref1st
          ASSERT_TRUE(first) << what;
          if (f == std::string("float_ansnr")) {
            EXPECT_NE(*first, float_psnr::constants(bpc).psnr_max) << what;
            EXPECT_TRUE(std::isfinite(*first)) << what;
          } else {
            EXPECT_NE(*first, 0.0) << what;
          }
        }
      }
}

TEST(CudaAnsnrMoment, SameBitsWithGraphsOnAndOff) {
  REQUIRE_CUDA_DEVICE();
  expect_cuda_equals_cpu_graphs_on_and_off({"float_ansnr", "float_moment"}, "float_ansnr");
  expect_cuda_equals_cpu_graphs_on_and_off({"float_moment"}, "float_moment");
}

// Every sample `value`, in both pictures.
struct FlatContent {
  unsigned value;
  unsigned ref(std::uint64_t, unsigned, unsigned, unsigned) const { return value; }
  unsigned dist(std::uint64_t, unsigned, unsigned, unsigned) const { return value; }
};

// 16-bit frames of 65535 only: each sample's second-moment term is
// square_units(65535) (~2^32) units, so 2048x1024 samples stay just below
// 2^53 (the device's exact integer total) and 2048x1025 reach it (each
// picture recomputed on the host with R's double chain, every frame counted).
TEST(CudaAnsnrMoment, MomentAtTheExactChainLimit) {
  REQUIRE_CUDA_DEVICE();
  const std::uint64_t units = float_moment::square_units(65535, float_moment::scaler_of(16));
  struct Case {
    unsigned w, h;
    bool on_host;
  };
  for (const Case& k : {Case{2048, 1024, false}, Case{2048, 1025, true}}) {
    const std::uint64_t total2 = units * k.w * k.h;
    ASSERT_EQ(total2 >= float_moment::kExactChainLimit, k.on_host) << k.w << "x" << k.h << ": " << total2;
    const VideoFormat fmt{k.w, k.h, PixelFormat::yuv400, 16};
    const FlatContent c{65535};
    const std::vector<std::string> features = {"float_moment"};
    constexpr std::uint64_t frames = 2;
    const RunResult cpu = run_synthetic_pair(fmt, c, frames, features, backend_run_options(Backend::cpu, 1));
    const RunResult gpu = run_synthetic_pair(fmt, c, frames, features, backend_run_options(Backend::cuda, 2));
    const std::string what = fmt::format("{} all 65535", fmt.describe());
    EXPECT_EQ(gpu.backend, Backend::cuda) << what;
    EXPECT_EQ(expect_same_bits(cpu, gpu, what, k.on_host), frames * 4) << what;
    EXPECT_EQ(gpu.cuda_host_frames, k.on_host ? frames : 0u) << what;
  }
}

}  // namespace
}  // namespace exactvmaf::test
