// psnr and float_psnr against the golden numbers of upstream libvmaf
// (tests/golden/README.md): bit for bit against R (upstream with correctly
// rounded libm), and the measured distance to plain upstream.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"

namespace exactvmaf::test {
namespace {

std::vector<GoldenCase> golden_cases() { return golden_cases_for(psnr_golden_runs()); }

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, EqualsRBitForBitAndMeasuresUpstream) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = psnr_golden_runs().at(gc.run);
  const RunResult ours = run_golden(*pair, run);
  const auto r = read_json(golden_dir() / "r" / gc.pair / (gc.run + ".json"));
  ASSERT_EQ(r.at("frames").size(), (ours.frames + run.subsample - 1) / run.subsample);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;

  const auto upstream_path = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  if (std::filesystem::exists(upstream_path)) {
    const GoldenComparison vs_up = compare_with_golden(read_json(upstream_path), ours, run.subsample);
    // Upstream's glibc log10 is not correctly rounded on a few percent of
    // arguments: such values differ in their last bits only.
    EXPECT_LE(vs_up.max_ulps, 16) << "first: " << vs_up.first_difference;
    RecordProperty("upstream_differing", static_cast<int>(vs_up.differing));
    std::printf("[ distance ] %s/%s: %zu of %zu values differ from upstream (max %lld ulp)\n", gc.pair.c_str(),
                gc.run.c_str(), vs_up.differing, vs_up.values, static_cast<long long>(vs_up.max_ulps));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Golden, ::testing::ValuesIn(golden_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Golden);

TEST(GoldenSet, IsPresent) {
  // The goldens are part of the repository; an empty set would pass vacuously.
  EXPECT_GE(golden_cases().size(), 40u);
}

// Every thread count gives the same bits (docs/design.md §1).
TEST(ThreadInvariance, AllFixturesAllThreadCounts) {
  for (const auto& pair : fixture_pairs())
    expect_thread_invariant(pair, {"psnr=enable_mse=true:enable_apsnr=true", "float_psnr"});
}

}  // namespace
}  // namespace exactvmaf::test
