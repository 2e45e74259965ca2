// The fp64-free CUDA kernels (--device_fp64 off, docs/fp64-free.md): every
// golden option set of adm, vif, float_adm, ciede, speed and float_vif on every fixture
// pair gives the CPU's and R's bits, the device did the work (the island
// counters of its fp32pair kernels are nonzero; no frame went to the host
// where none may), and the islands replayed in Sf64 stay under their ceiling. The choice of
// --device_fp64 auto is tested with injected fp32:fp64 ratios in every build.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <bit>
#include <random>

#include "backends/cuda/runner.hpp"
#include "features/ciede/ciede_cuda.hpp"
#include "features/ciede/ciede_math.hpp"
#include "support/backend_parity.hpp"
#include "support/float_adm_golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

TEST(DeviceFp64Choice, OnOffAndAutoByThroughputRatio) {
  using cuda::DeviceArith;
  using cuda::choose_device_arith;
  EXPECT_EQ(choose_device_arith(DeviceFp64::on, 64), DeviceArith::fp64);
  EXPECT_EQ(choose_device_arith(DeviceFp64::off, 2), DeviceArith::fp32pair);
  EXPECT_EQ(choose_device_arith(DeviceFp64::automatic, 2), DeviceArith::fp64);  // H200, A100, H100
  EXPECT_EQ(choose_device_arith(DeviceFp64::automatic, 8), DeviceArith::fp64);
  EXPECT_EQ(choose_device_arith(DeviceFp64::automatic, 9), DeviceArith::fp32pair);
  EXPECT_EQ(choose_device_arith(DeviceFp64::automatic, 32), DeviceArith::fp32pair);  // GeForce
  EXPECT_EQ(choose_device_arith(DeviceFp64::automatic, 64), DeviceArith::fp32pair);
  EXPECT_EQ(choose_device_arith(DeviceFp64::automatic, 0), DeviceArith::fp64);  // unknown: the device's fp64
  EXPECT_STREQ(device_fp64_name(DeviceFp64::automatic), "auto");
  EXPECT_STREQ(device_fp64_name(DeviceFp64::off), "off");
}

std::vector<GroupCase> fp32pair_cases() {
  return golden_cases_of_groups({"adm", "vif", "float_adm", "ciede", "speed", "float_vif"});
}

// Replayed pair islands per pair island, at most (docs/fp64-free.md);
// speed's islands are whole covariance chains (325 per plane), where a
// near-zero covariance can leave R's own rounding noise within a float step:
// 1e-3 of them.
constexpr double kReplayCeiling = 1e-4;
constexpr double kChainReplayCeiling = 1e-3;
// ciede's islands are per pixel (its Labs without the 8-bit table, and the
// formula): one colour whose Lab lies within 2^-45 of a float midpoint
// replays in Sf64 at every pixel of that colour (s02: one colour, 102 of
// 229 953 islands); ciede is held to the same 1e-3, and to 1e-4 for the
// pixels left to the host.

class CudaFp32PairGolden : public ::testing::TestWithParam<GroupCase> {};

TEST_P(CudaFp32PairGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const auto& c = GetParam();
  const auto pair = fixture_pair(c.golden.pair);
  ASSERT_TRUE(pair) << c.golden.pair;
  const GoldenRun& run = golden_runs_of(c.group).at(c.golden.run);
  const RunResult cpu = run_fixture(*pair, run.features, golden_run_options(run, Backend::cpu, 1));
  RunOptions o = golden_run_options(run, Backend::cuda, 2);
  o.device_fp64 = DeviceFp64::off;
  const RunResult gpu = run_fixture(*pair, run.features, o);
  const std::string what = fmt::format("{}/{} fp32pair", c.golden.pair, c.golden.run);
  EXPECT_TRUE(gpu.cuda_fp32pair) << what;
  EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u);  // and 0 host frames
  auto r = read_json(golden_dir() / "r" / c.golden.pair / (c.golden.run + ".json"));
  std::size_t aim_checked = 0;
  if (c.group == "float_adm") r = without_uninitialised_aim(std::move(r), gpu, &aim_checked);
  const GoldenComparison vs_r = compare_with_golden(r, gpu, run.subsample);
  if (c.group != "ciede" || !ciede_golden_is_not_r(c.golden.pair)) {  // else the CPU is R (compared above)
    EXPECT_EQ(vs_r.differing, 0u) << what << ": " << vs_r.differing << " of " << vs_r.values
                                  << " values differ from R; first: " << vs_r.first_difference;
  }
  std::printf("[ fp32pair ] %s: %llu pair islands, %llu replayed, %llu exact, %llu host samples, %llu host frames\n",
              what.c_str(), static_cast<unsigned long long>(gpu.cuda_pair_islands),
              static_cast<unsigned long long>(gpu.cuda_replays),
              static_cast<unsigned long long>(gpu.cuda_exact_islands),
              static_cast<unsigned long long>(gpu.cuda_host_samples),
              static_cast<unsigned long long>(gpu.cuda_host_frames));
  EXPECT_LE(static_cast<double>(gpu.cuda_replays),
            (c.group == "speed" || c.group == "ciede" ? kChainReplayCeiling : kReplayCeiling) * static_cast<double>(gpu.cuda_pair_islands))
      << what;
  // ciede's pixels left to the host, per pixel (on pairs first); the others'
  // per exact island.
  EXPECT_LE(static_cast<double>(gpu.cuda_host_samples),
            kReplayCeiling * static_cast<double>(c.group == "ciede" ? gpu.cuda_pair_islands : gpu.cuda_exact_islands))
      << what;
  const bool identical = c.group == "ciede" && c.golden.pair.rfind("id_", 0) == 0;  // no pixel to evaluate
  if (c.group == "speed") {
    EXPECT_GT(gpu.cuda_pair_islands, 0u) << what;  // its covariance chains
  }
  if (c.golden.pair.rfind("flat_", 0) != 0 && !identical && c.group != "speed") {  // the flat pair reaches no vif island
    if (c.group == "adm") {  // its Sf64 islands (float_adm's only with gains such as 1.2)
      EXPECT_GT(gpu.cuda_exact_islands, 0u) << what;
    }
    EXPECT_GT(gpu.cuda_pair_islands, 0u) << what;  // ciede: its pixels start on pairs
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaFp32PairGolden, ::testing::ValuesIn(fp32pair_cases()),
                         [](const auto& i) { return group_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaFp32PairGolden);

TEST(CudaFp32PairGoldenSet, IsPresent) { EXPECT_GE(fp32pair_cases().size(), fixture_pairs().size() * 29u); }

// The fp64 kernels count nothing: the counters are the fp32pair kernels'.
TEST(CudaFp32Pair, Fp64KernelsCountNoIsland) {
  REQUIRE_CUDA_DEVICE();
  RunOptions o;
  o.backend = Backend::cuda;
  o.device_fp64 = DeviceFp64::on;
  const RunResult gpu = run_fixture(fixture_pairs().front(), {"adm", "vif", "float_adm"}, o);
  EXPECT_FALSE(gpu.cuda_fp32pair);
  EXPECT_EQ(gpu.cuda_pair_islands + gpu.cuda_replays + gpu.cuda_exact_islands, 0u);
}

// float_adm's p-norm terms (adm_p_norm other than 3: powf on Sf64, out of
// line) on synthetic frames of 8 to 16 bits and 1080p: the CPU's bits with
// every frame on the device and every term an exact island.
TEST(CudaFp32Pair, FloatAdmPNormOnSyntheticFrames) {
  REQUIRE_CUDA_DEVICE();
  struct Case {
    VideoFormat fmt;
    const char* feature;
  };
  const Case cases[] = {
      {{61, 45, PixelFormat::yuv444, 8}, "float_adm=debug=true:adm_p_norm=2"},
      {{61, 45, PixelFormat::yuv444, 10}, "float_adm=debug=true:adm_p_norm=2.5"},
      {{97, 65, PixelFormat::yuv420, 16}, "float_adm=debug=true:adm_p_norm=4.5:adm_bypass_cm=1"},
      {{35, 301, PixelFormat::yuv420, 12}, "float_adm=debug=true:adm_p_norm=1"},
      {{1920, 1080, PixelFormat::yuv420, 8}, "float_adm=debug=true:adm_p_norm=2.5"},
  };
  RunOptions off = backend_run_options(Backend::cuda, 2);
  off.device_fp64 = DeviceFp64::off;
  for (const Case& c : cases)
    for (int kind : {0, 1, 4}) {
      const RampNoiseContent content{(1u << c.fmt.bitdepth) - 1, c.fmt.width, kind};
      const std::vector<std::string> features = {c.feature};
      const std::string what = fmt::format("{} kind {} {} fp32pair", c.fmt.describe(), kind, c.feature);
      const RunResult cpu = run_synthetic_pair(c.fmt, content, 2, features, backend_run_options(Backend::cpu, 1));
      const RunResult gpu = run_synthetic_pair(c.fmt, content, 2, features, off);
      EXPECT_TRUE(gpu.cuda_fp32pair) << what;
      EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u);  // and 0 host frames
      // powf runs on pairs first (pair islands); the few it leaves undecided
      // are replayed on Sf64: a policy that replayed everything fails here.
      EXPECT_GT(gpu.cuda_pair_islands, 0u) << what;
      EXPECT_LE(gpu.cuda_replays * 100, gpu.cuda_pair_islands) << what << ": " << gpu.cuda_replays << " replays";
      if (kind == 1)
        std::printf("[ fp32pair ] %s: %llu pair islands, %llu replays\n", what.c_str(),
                    static_cast<unsigned long long>(gpu.cuda_pair_islands),
                    static_cast<unsigned long long>(gpu.cuda_replays));
    }
}

// The fp64-free ciede kernels on random colour pairs of every bit depth (Lab
// per pixel and, for 8-bit, the device table built without fp64) equal the
// host's R wherever they decide, and leave few to the host.
TEST(CudaFp32Pair, CiedePixelFunctionOnRandomPairs) {
  REQUIRE_CUDA_DEVICE();
  std::mt19937 rng(29);
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    for (bool table : {false, true}) {
      if (table && bpc != 8) continue;
      const std::size_t n = 200000;
      std::vector<std::uint16_t> pairs(6 * n);
      std::uniform_int_distribution<unsigned> any(0, (1u << bpc) - 1);
      for (auto& v : pairs) v = static_cast<std::uint16_t>(any(rng));
      std::vector<float> values(n);
      std::vector<std::uint8_t> undecided(n);
      const auto counts = ciede::device_pair_values(bpc, table, pairs.data(), n, values.data(), undecided.data(), true);
      const ciede::LabScale s = ciede::lab_scale(bpc);
      for (std::size_t i = 0; i < n; ++i) {
        if (undecided[i]) continue;
        const std::uint16_t* p = pairs.data() + 6 * i;
        ciede::HostMath m;
        const float r = ciede::pixel_delta_e(p[0], p[1], p[2], p[3], p[4], p[5], s, m);
        ASSERT_EQ(std::bit_cast<std::uint32_t>(r), std::bit_cast<std::uint32_t>(values[i]))
            << bpc << "-bit" << (table ? " table" : "") << " pair " << i;
      }
      std::printf("[ fp32pair ] ciede %u-bit%s: %llu of %zu undecided, %llu pixels on pairs, %llu replayed in Sf64\n",
                  bpc, table ? " table" : "", static_cast<unsigned long long>(counts.undecided), n,
                  static_cast<unsigned long long>(counts.pair_pixels),
                  static_cast<unsigned long long>(counts.sf64_replays));
      EXPECT_LE(static_cast<double>(counts.undecided), kReplayCeiling * static_cast<double>(n));
      // The pixels ran on pairs, and few went to Sf64: a path that sent
      // every pixel to Sf64 fails here.
      EXPECT_GT(counts.pair_pixels, n / 2);
      EXPECT_LE(static_cast<double>(counts.sf64_replays), kReplayCeiling * static_cast<double>(counts.pair_pixels));
    }
  }
}

}  // namespace
}  // namespace exactvmaf::test
