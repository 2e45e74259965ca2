// The fp64-free arithmetic on the CPU (set_fp64_emulation): every golden run
// of adm, vif, float_adm and float_vif on every fixture equals R bit for bit with the
// fp64 islands on fp32 pairs (undecided ones replayed in Sf64), the pair
// path demonstrably ran, and its replay rate stays under its ceiling. ciede
// (every pixel on pairs first, Sf64 and then R's functions for the few they
// leave undecided) and
// speed (R's doubles in Sf64) on every fixture but the 1080p one (about a
// minute there; the GPU tier runs it).
#include <gtest/gtest.h>

#include <cstdio>

#include "exactvmaf/simd.hpp"
#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/float_adm_golden.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"

namespace exactvmaf::test {
namespace {

// Turns the emulation on while it lives.
struct Fp64Emulation {
  Fp64Emulation() { set_fp64_emulation(true); }
  ~Fp64Emulation() { set_fp64_emulation(false); }
  Fp64Emulation(const Fp64Emulation&) = delete;
  Fp64Emulation& operator=(const Fp64Emulation&) = delete;
};

std::vector<GroupCase> emulation_cases() {
  std::vector<GroupCase> out = golden_cases_of_groups({"adm", "vif", "float_adm", "float_vif"});
  for (auto& c : golden_cases_of_groups({"ciede", "speed"}))
    if (c.golden.pair.rfind("b02_", 0) != 0) out.push_back(std::move(c));
  return out;
}

class Fp64EmulationGolden : public ::testing::TestWithParam<GroupCase> {};

// Replayed pair islands per pair island, at most (measured on the fixtures:
// docs/fp64-free.md); speed's islands are whole covariance chains (325 per
// plane), where a near-zero covariance can leave R's own rounding noise
// within a float step: 1e-3 of them.
constexpr double kReplayCeiling = 1e-4;
constexpr double kChainReplayCeiling = 1e-3;
// ciede's islands are per pixel (its Labs without the 8-bit table, and the
// formula): one colour whose Lab lies within 2^-45 of a float midpoint
// replays in Sf64 at every pixel of that colour (s02: one colour, 102 of
// 229 953 islands); ciede is held to the same 1e-3, and to 1e-4 for the
// pixels left to the host.

TEST_P(Fp64EmulationGolden, EqualsRBitForBit) {
  const auto& c = GetParam();
  const auto pair = fixture_pair(c.golden.pair);
  ASSERT_TRUE(pair) << c.golden.pair;
  const GoldenRun& run = golden_runs_of(c.group).at(c.golden.run);
  auto r = read_json(golden_dir() / "r" / c.golden.pair / (c.golden.run + ".json"));
  const Fp64EmulationCounts before = fp64_emulation_counts();
  RunResult ours;
  {
    Fp64Emulation on;
    ours = run_golden(*pair, run);
  }
  const Fp64EmulationCounts after = fp64_emulation_counts();
  std::size_t aim_checked = 0;
  if (c.group == "float_adm") r = without_uninitialised_aim(std::move(r), ours, &aim_checked);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  if (c.group == "ciede") {
    // The CPU's fp64 run is R (also where ciede's golden is not: 4:2:2, odd sizes).
    EXPECT_GT(expect_same_bits(run_golden(*pair, run), ours, c.golden.pair + "/" + c.golden.run), 0u);
  }
  if (c.group != "ciede" || !ciede_golden_is_not_r(c.golden.pair)) {
    EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                  << " values differ from R; first: " << vs_r.first_difference;
  }
  const unsigned long long islands = after.pair_islands - before.pair_islands;
  const unsigned long long replays = after.replays - before.replays;
  const unsigned long long exact = after.exact_islands - before.exact_islands;
  const unsigned long long host = after.host_replays - before.host_replays;
  std::printf("[ fp32pair ] %s/%s: %llu pair islands, %llu replayed, %llu exact, %llu to R's functions\n",
              c.golden.pair.c_str(), c.golden.run.c_str(), islands, replays, exact, host);
  EXPECT_LE(static_cast<double>(replays),
            (c.group == "speed" || c.group == "ciede" ? kChainReplayCeiling : kReplayCeiling) * static_cast<double>(islands));
  // ciede's pixels left to R's functions, per pixel (on pairs first); the
  // others' per exact island.
  EXPECT_LE(static_cast<double>(host), kReplayCeiling * static_cast<double>(c.group == "ciede" ? islands : exact));
  // The fp32pair kernels ran (the flat pair reaches no island of vif): vif's
  // islands all start on pairs, adm's and float_adm's mostly; speed's
  // covariance chains through the filter, on every pair.
  const bool identical = c.group == "ciede" && c.golden.pair.rfind("id_", 0) == 0;  // no pixel to evaluate
  if (c.group == "speed") {
    EXPECT_GT(islands, 0u);
  }
  if (c.golden.pair.rfind("flat_", 0) != 0 && !identical && c.group != "speed") {
    if (c.group == "adm") {  // its Sf64 islands (float_adm's only with gains such as 1.2)
      EXPECT_GT(exact, 0u);
    }
    EXPECT_GT(islands, 0u);  // ciede: its pixels start on pairs
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Fp64EmulationGolden, ::testing::ValuesIn(emulation_cases()),
                         [](const auto& i) { return group_case_name(i.param); });

TEST(Fp64EmulationSet, IsPresent) { EXPECT_GE(emulation_cases().size(), fixture_pairs().size() * 20u); }

TEST(Fp64Emulation, OffByDefaultAndCountsNothingThen) {
  EXPECT_FALSE(fp64_emulation());
  const auto pair = fixture_pairs().front();
  const Fp64EmulationCounts before = fp64_emulation_counts();
  (void)run_fixture(pair, {"adm", "vif", "float_adm"}, RunOptions{});
  const Fp64EmulationCounts after = fp64_emulation_counts();
  EXPECT_EQ(after.pair_islands, before.pair_islands);
  EXPECT_EQ(after.exact_islands, before.exact_islands);
}

}  // namespace
}  // namespace exactvmaf::test
