// float_ssim and float_ms_ssim on the CUDA backend against the CPU and R, bit
// for bit, in both device variants (--device_fp64 on: device doubles; off:
// every double in Sf64, no fp64 instruction): every golden run of both
// groups on every fixture pair with 1 and 4 threads, random frames of every
// bit depth at odd sizes (decimation factors, MS-SSIM's rounded-up scales,
// maps that end inside a chain's staged chunk), CUDA graphs on and off, and
// the workers' presence in CUDA builds. Every CUDA run must have computed
// its frames on the device (no host frames; the fp64-free kernels' pixel
// counter is nonzero, the fp64 kernels' zero). A test that needs a GPU and
// finds none skips with "no CUDA device: <problem>".
#include <gtest/gtest.h>

#include <cstdio>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

std::vector<GroupCase> ssim_cases() { return golden_cases_of_groups({"float_ssim", "float_ms_ssim"}); }

// A CUDA run's options with the variant forced.
RunOptions variant_options(RunOptions o, bool fp64) {
  o.device_fp64 = fp64 ? DeviceFp64::on : DeviceFp64::off;
  return o;
}

// The device variant that ran is the one asked for, and it did the work.
void expect_variant_ran(const RunResult& gpu, bool fp64, const std::string& what) {
  EXPECT_EQ(gpu.backend, Backend::cuda) << what;
  EXPECT_EQ(gpu.cuda_fp32pair, !fp64) << what;
  EXPECT_EQ(gpu.cuda_host_frames, 0u) << what;
  if (fp64) {
    EXPECT_EQ(gpu.cuda_exact_islands + gpu.cuda_pair_islands, 0u) << what;
  } else {
    EXPECT_GT(gpu.cuda_exact_islands, 0u) << what;  // the fp64-free kernels' pixels
    // The window sums and decimations: on pairs, Sf64 only where undecided.
    EXPECT_GT(gpu.cuda_pair_islands, 0u) << what;
    EXPECT_LE(static_cast<double>(gpu.cuda_replays), 1e-4 * static_cast<double>(gpu.cuda_pair_islands)) << what;
    std::printf("[ fp32pair ] %s: %llu pair islands, %llu replayed, %llu exact\n", what.c_str(),
                static_cast<unsigned long long>(gpu.cuda_pair_islands),
                static_cast<unsigned long long>(gpu.cuda_replays),
                static_cast<unsigned long long>(gpu.cuda_exact_islands));
  }
}

const char* variant_name(bool fp64) { return fp64 ? "fp64" : "fp64-free"; }

class CudaSsimGolden : public ::testing::TestWithParam<GroupCase> {};

TEST_P(CudaSsimGolden, SameBitsAsCpuAndRInBothVariants) {
  REQUIRE_CUDA_DEVICE();
  const GroupCase& c = GetParam();
  const GoldenRun& run = golden_runs_of(c.group).at(c.golden.run);
  const auto pair = fixture_pair(c.golden.pair);
  ASSERT_TRUE(pair) << c.golden.pair << " missing from tests/fixtures/manifest.json";
  const RunResult cpu = run_fixture(*pair, run.features, golden_run_options(run, Backend::cpu, 1));
  const auto r = read_json(golden_dir() / "r" / c.golden.pair / (c.golden.run + ".json"));
  for (bool fp64 : {true, false})
    for (unsigned threads : {1u, 4u}) {
      const std::string what =
          fmt::format("{}/{} {} threads {}", c.golden.pair, c.golden.run, variant_name(fp64), threads);
      const RunResult gpu =
          run_fixture(*pair, run.features, variant_options(golden_run_options(run, Backend::cuda, threads), fp64));
      expect_variant_ran(gpu, fp64, what);
      EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
      const GoldenComparison vs_r = compare_with_golden(r, gpu, run.subsample);
      EXPECT_GT(vs_r.values, 0u) << what;
      EXPECT_EQ(vs_r.differing, 0u) << what << ": " << vs_r.differing << " of " << vs_r.values
                                    << " values differ from R; first: " << vs_r.first_difference;
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaSsimGolden, ::testing::ValuesIn(ssim_cases()),
                         [](const auto& i) { return group_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaSsimGolden);

// float_ssim's 6 runs on every pair and scale=1 on the 1080p pair, and
// float_ms_ssim's 4 runs on its 4 pairs (an empty or shrunken set fails here).
TEST(CudaSsimGoldenSet, IsPresent) { EXPECT_GE(ssim_cases().size(), fixture_pairs().size() * 6u + 1u + 4u * 4u); }

TEST(CudaSsim, WorkersExistInCudaBuilds) {
  expect_cuda_worker_exactly_in_cuda_builds("float_ssim", VideoFormat{64, 48, PixelFormat::yuv420, 8});
  expect_cuda_worker_exactly_in_cuda_builds("float_ssim=scale=2:enable_lcs=true",
                                            VideoFormat{64, 48, PixelFormat::yuv420, 10});
  expect_cuda_worker_exactly_in_cuda_builds("float_ms_ssim", VideoFormat{176, 176, PixelFormat::yuv420, 8});
  expect_cuda_worker_exactly_in_cuda_builds("float_ms_ssim=enable_lcs=true:enable_db=true",
                                            VideoFormat{200, 180, PixelFormat::yuv444, 12});
}

// RampNoiseContent: CUDA (both variants, `threads` pipeline threads, graphs
// on or off) gives the CPU's bits with 1 thread on 3 frames. Teeth: with
// float_ssim first, its first frame's value is a real SSIM (finite, not the
// 1 of identical pictures) outside the near-flat kind 3 (MS-SSIM may be
// NaN: pow of a negative structure mean).
void expect_cuda_equals_cpu(const VideoFormat& fmt, int kind, const std::vector<std::string>& features,
                            unsigned threads, bool graphs = true) {
  const RampNoiseContent c{(1u << fmt.bitdepth) - 1, fmt.width, kind};
  const std::string feature = fmt::format("{}", fmt::join(features, " "));
  const RunResult cpu = run_synthetic_pair(fmt, c, 3, features, backend_run_options(Backend::cpu, 1));
  for (bool fp64 : {true, false}) {
    const std::string what =
        fmt::format("{} kind {} {} {} graphs {}", fmt.describe(), kind, feature, variant_name(fp64), graphs);
    const RunResult gpu = run_synthetic_pair(
        fmt, c, 3, features, variant_options(backend_run_options(Backend::cuda, threads, graphs), fp64));
    expect_variant_ran(gpu, fp64, what);
    EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
  }
  if (features.front().rfind("float_ssim", 0) != 0) return;
  const auto first = cpu.scores.get(0, 0);
  ASSERT_TRUE(first) << feature;
  EXPECT_TRUE(std::isfinite(*first)) << feature << " kind " << kind;
  if (kind != 3) {
    EXPECT_NE(*first, 1.0) << feature << " kind " << kind;
  }
}

// Sizes: 300x140 (automatic scale 1, a 290x130 map: chains of 37700 terms,
// the last staged chunk partial), 97x61 with scale 3 (a 33x21 decimation,
// odd sizes, the box's edge reflected), 23x25 with scale 2 (12x13: the
// smallest maps, a chain of 6 terms in one chunk), 181x177 for MS-SSIM
// (odd sizes at every scale, the smallest scale 12x12).
TEST(CudaSsim, RandomFramesEveryBitDepth) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (int kind : {0, 1, 2, 3}) {
      expect_cuda_equals_cpu(VideoFormat{300, 140, PixelFormat::yuv420, bpc}, kind, {"float_ssim=enable_lcs=true"}, 2);
      expect_cuda_equals_cpu(VideoFormat{97, 61, PixelFormat::yuv420, bpc}, kind,
                             {"float_ssim=scale=3:enable_lcs=true"}, 3);
      expect_cuda_equals_cpu(VideoFormat{23, 25, PixelFormat::yuv444, bpc}, kind,
                             {"float_ssim=scale=2:enable_db=true:clip_db=true"}, 1);
      expect_cuda_equals_cpu(VideoFormat{181, 177, PixelFormat::yuv420, bpc}, kind,
                             {"float_ms_ssim=enable_lcs=true"}, 2);
    }
}

TEST(CudaSsim, SameBitsWithGraphsOnAndOff) {
  REQUIRE_CUDA_DEVICE();
  for (bool graphs : {true, false}) {
    expect_cuda_equals_cpu(VideoFormat{640, 360, PixelFormat::yuv420, 10}, 0, {"float_ssim=enable_lcs=true"}, 3, graphs);
    // Both features in one run (one graph per thread).
    expect_cuda_equals_cpu(VideoFormat{200, 190, PixelFormat::yuv422, 8}, 1,
                           {"float_ssim=enable_lcs=true", "float_ms_ssim=enable_lcs=true"}, 3, graphs);
  }
  // float_ssim with another device feature in one graph (200x90 is below
  // MS-SSIM's 176x176), then alone on every fixture pair without graphs.
  expect_cuda_equals_cpu_graphs_on_and_off({"float_ssim=enable_lcs=true", "float_ansnr"}, "float_ssim");
}

}  // namespace
}  // namespace exactvmaf::test
