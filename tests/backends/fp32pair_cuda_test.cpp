// The fp64-free CUDA kernels (--device_fp64 off, docs/fp64-free.md): every
// golden option set of adm, vif and float_adm on every fixture pair gives the
// CPU's and R's bits, the device did the work (the island counters of its
// fp32pair kernels are nonzero; no frame went to the host where none may),
// and the islands replayed in Sf64 stay under their ceiling. The choice of
// --device_fp64 auto is tested with injected fp32:fp64 ratios in every build.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "backends/cuda/runner.hpp"
#include "support/backend_parity.hpp"
#include "support/float_adm_golden.hpp"
#include "support/golden_runs.hpp"

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

std::vector<GroupCase> fp32pair_cases() { return golden_cases_of_groups({"adm", "vif", "float_adm"}); }

// Replayed pair islands per pair island, at most (docs/fp64-free.md).
constexpr double kReplayCeiling = 1e-4;

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
  // float_adm's powf terms (adm_p_norm other than 3) have no fp32-pair form
  // yet: those frames are recomputed on the host.
  bool powf_terms = false;
  for (const auto& f : run.features) powf_terms = powf_terms || f.find("adm_p_norm") != std::string::npos;
  EXPECT_GT(expect_same_bits(cpu, gpu, what, powf_terms), 0u);
  auto r = read_json(golden_dir() / "r" / c.golden.pair / (c.golden.run + ".json"));
  std::size_t aim_checked = 0;
  if (c.group == "float_adm") r = without_uninitialised_aim(std::move(r), gpu, &aim_checked);
  const GoldenComparison vs_r = compare_with_golden(r, gpu, run.subsample);
  EXPECT_EQ(vs_r.differing, 0u) << what << ": " << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;
  std::printf("[ fp32pair ] %s: %llu pair islands, %llu replayed, %llu exact, %llu host frames\n", what.c_str(),
              static_cast<unsigned long long>(gpu.cuda_pair_islands),
              static_cast<unsigned long long>(gpu.cuda_replays),
              static_cast<unsigned long long>(gpu.cuda_exact_islands),
              static_cast<unsigned long long>(gpu.cuda_host_frames));
  EXPECT_LE(static_cast<double>(gpu.cuda_replays), kReplayCeiling * static_cast<double>(gpu.cuda_pair_islands))
      << what;
  if (c.golden.pair.rfind("flat_", 0) != 0 && !powf_terms) {  // the flat pair reaches no vif island
    EXPECT_GT(gpu.cuda_exact_islands, 0u) << what;
    if (c.group != "vif") {
      EXPECT_GT(gpu.cuda_pair_islands, 0u) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaFp32PairGolden, ::testing::ValuesIn(fp32pair_cases()),
                         [](const auto& i) { return group_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaFp32PairGolden);

TEST(CudaFp32PairGoldenSet, IsPresent) { EXPECT_GE(fp32pair_cases().size(), fixture_pairs().size() * 20u); }

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

// A feature without fp64-free kernels is refused under --device_fp64 off,
// with its name.
TEST(CudaFp32Pair, FeatureWithoutFp32PairKernelsIsRefused) {
  REQUIRE_CUDA_DEVICE();
  RunOptions o;
  o.backend = Backend::cuda;
  o.device_fp64 = DeviceFp64::off;
  try {
    (void)run_fixture(fixture_pairs().front(), {"ciede"}, o);
    ADD_FAILURE() << "ciede ran with --device_fp64 off";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ciede"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--device_fp64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace exactvmaf::test
