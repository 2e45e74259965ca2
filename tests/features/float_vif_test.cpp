// float_vif against the golden numbers of upstream libvmaf
// (tests/golden/README.md, group float_vif of runs.json): every run bit for
// bit against R on every frame and pooled value, output names and order, and
// plain upstream's bits too (its filter's exp is evaluated once per run and
// its log2f is a float polynomial); thread invariance; upstream's log2f
// polynomial at its exact points; option and size errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "exactvmaf/error.hpp"
#include "features/float_vif/float_vif_math.hpp"
#include "support/cli_run.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

const std::map<std::string, GoldenRun>& vif_runs() { return golden_runs_of("float_vif"); }
std::vector<GoldenCase> vif_cases() { return golden_cases_for(vif_runs()); }

class FloatVifGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(FloatVifGolden, EqualsRAndUpstreamBitForBit) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = vif_runs().at(gc.run);
  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  const auto up_path = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(up_path)) << up_path;
  const auto r = read_json(r_path);

  const RunResult ours = run_golden(*pair, run);
  ASSERT_EQ(r.at("frames").size(), ours.frames);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_GT(vs_r.values, ours.frames * 4);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;
  EXPECT_EQ(metric_names(ours), golden_metric_names(r_path));

  // Measured on the goldens: upstream (AVX2 filters, glibc exp) has the same
  // bits on all 8352 frame and 6912 pooled values.
  const GoldenComparison vs_up = compare_with_golden(read_json(up_path), ours, run.subsample);
  EXPECT_EQ(vs_up.differing, 0u) << "first: " << vs_up.first_difference;
  report_upstream_distance(gc, vs_up);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FloatVifGolden, ::testing::ValuesIn(vif_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FloatVifGolden);

TEST(FloatVifGoldenSet, IsPresent) {
  // 8 runs on each of the 18 pairs (an empty or shrunken set fails here).
  EXPECT_EQ(vif_runs().size(), 8u);
  EXPECT_EQ(fixture_pairs().size(), 18u);
  EXPECT_EQ(vif_cases().size(), 144u);
}

TEST(FloatVifThreads, SameBitsForEveryThreadCount) {
  for (const char* name : {"c02_175x97_8b_420", "c04_160x90_12b_444", "c07_64x48_16b_420", "s01_576x324_8b_420"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair) << name;
    expect_thread_invariant(*pair, {"float_vif=debug=true"});
    expect_thread_invariant(*pair, {"float_vif=vif_prescale=1.25:vif_prescale_method=lanczos4:vif_kernelscale=0.5"});
  }
}

// log2f_approx is exact where its polynomial's input is 0 (powers of two),
// and keeps upstream's special cases.
TEST(FloatVifLog2, PolynomialAtPowersOfTwoAndSpecialCases) {
  for (int e = -126; e <= 127; ++e) {
    const float x = std::ldexp(1.0f, e);
    EXPECT_EQ(float_vif::log2f_approx(x), static_cast<float>(e)) << "2^" << e;
  }
  EXPECT_TRUE(std::isinf(float_vif::log2f_approx(0.0f)) && float_vif::log2f_approx(0.0f) < 0);
  EXPECT_TRUE(std::isnan(float_vif::log2f_approx(-1.0f)));
  // Between powers of two it is an approximation: log2(3) = 1.58496...
  EXPECT_NEAR(float_vif::log2f_approx(3.0f), 1.5849625f, 1e-4f);
  EXPECT_NE(float_vif::log2f_approx(3.0f), 1.5849625f);
}

// The statistic's branches: identical inputs give num = den (sigma12 =
// sigma1² = sigma2²), flat content the low-variance branch.
TEST(FloatVifStatistic, Branches) {
  const auto p = float_vif::make_stat_params(100.0, 2.0);
  EXPECT_EQ(p.sigma_max_inv, static_cast<float>(4.0 / 65025.0));
  const float mu = 3.0f, xx = 9.0f + 40.0f;  // sigma² = 40
  const auto same = float_vif::statistic(mu, mu, xx, xx, xx, p);
  EXPECT_EQ(same.num, same.den);
  const auto flat = float_vif::statistic(mu, mu, 9.0f, 9.0f, 9.0f, p);  // sigma² = 0 < nsq
  EXPECT_EQ(flat.num, 1.0f);
  EXPECT_EQ(flat.den, 1.0f);
  const auto anti = float_vif::statistic(0.0f, 0.0f, 40.0f, 40.0f, -40.0f, p);  // sigma12 < 0
  EXPECT_EQ(anti.num, 0.0f);
}

TEST(FloatVifOptions, BadValuesAreOneLineErrors) {
  const std::map<std::string, std::string> bad = {
      {"float_vif=vif_kernelscale=0.7", "invalid vif_kernelscale 0.7"},
      {"float_vif=vif_prescale_method=area", "invalid vif_prescale_method 'area'"},
      {"float_vif=vif_enhn_gain_limit=0.5", "out of range"},
      {"float_vif=vif_prescale=5", "out of range"},
      {"float_vif=vif_sigma_nsq=x", "not a number"},
      {"float_vif=vif_skip_scale0=2", "not a boolean"},
  };
  for (const auto& [arg, why] : bad)
    expect_one_line_error(cli(fixture_args("c01_176x144_8b_420") + " --feature '" + arg + "'"), why);
}

// Every computed scale's plane must be larger than its filter's radius; the
// 64x48 pair passes at kernel scale 2 (scale 3: 8x6, radius 3) and fails
// with a prescale of 0.5 (scale 3: 4x3, radius 3).
TEST(FloatVifSize, RefusesPlanesSmallerThanAScalesFilter) {
  const auto c07 = fixture_pair("c07_64x48_16b_420");
  ASSERT_TRUE(c07);
  EXPECT_NO_THROW(run_fixture(*c07, {"float_vif=vif_kernelscale=2"}));
  try {
    run_fixture(*c07, {"float_vif=vif_kernelscale=2:vif_prescale=0.5"});
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("float_vif: the 64x48 luma plane (32x24 after vif_prescale) is too small: scale 3 is 4x3"),
              std::string::npos)
        << m;
  }
  expect_one_line_error(cli(fixture_args("c07_64x48_16b_420") + " --feature float_vif=vif_prescale=0.25"),
                        "is too small");
  // Synthetic edge: 9 rows hold scale 0's 17-tap filter (radius 8), 8 do not.
  auto runs = [](unsigned w, unsigned h, const std::string& feature) {
    const VideoFormat fmt{w, h, PixelFormat::yuv420, 8};
    auto fn = [](std::uint64_t f, unsigned, unsigned x, unsigned y) { return (x * 7 + y * 13 + f) % 256u; };
    SyntheticReader ref("ref", fmt, 1, fn), dist("dist", fmt, 1, [&](std::uint64_t f, unsigned p, unsigned x,
                                                                    unsigned y) { return (fn(f, p, x, y) + x % 3) % 256u; });
    std::vector<FeatureRequest> req{parse_feature_request(feature)};
    try {
      run(ref, dist, std::move(req), {});
      return true;
    } catch (const Error&) {
      return false;
    }
  };
  EXPECT_TRUE(runs(64, 64, "float_vif"));   // scale 3: 8x8, radius 1
  EXPECT_FALSE(runs(64, 8, "float_vif"));   // scale 0: 8 rows, radius 8
  EXPECT_TRUE(runs(64, 16, "float_vif"));   // scale 3: 2 rows, radius 1
  EXPECT_FALSE(runs(64, 12, "float_vif"));  // scale 3: 1 row
}

}  // namespace
}  // namespace exactvmaf::test
