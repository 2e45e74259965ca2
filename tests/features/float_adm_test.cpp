// Float ADM against the golden numbers of upstream libvmaf (runs float_adm*):
// bit for bit against R (upstream with IEEE division and R's libm), the
// distance to plain upstream counted; output names and order; thread
// invariance; the fp64 islands against MPFR on boundary and random samples
// (the long tier, float_adm_islands_test, takes 2^32 and 10^9 samples).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <random>

#include <mpfr.h>

#include "exactvmaf/error.hpp"
#include "features/float_adm/float_adm_math.hpp"
#include "numeric/cr_trig.hpp"
#include "support/fixtures.hpp"
#include "support/float_adm_golden.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"
#define FLOAT_ADM_ISLANDS_CHECKER_ONLY
#include "features/float_adm_islands_test.cpp"

namespace exactvmaf::test {
namespace {

class FloatAdmGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(FloatAdmGolden, EqualsRBitForBit) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair;
  const GoldenRun& run = float_adm_golden_runs().at(gc.run);
  const RunResult ours = run_golden(*pair, run);

  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  std::size_t aim_checked = 0;
  const auto r = without_uninitialised_aim(read_json(r_path), ours, &aim_checked);
  ASSERT_EQ(r.at("frames").size(), ours.frames);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_GT(vs_r.values, 0u);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;
  if (gc.pair.rfind("flat_", 0) == 0 && gc.run == "float_adm_nw_0") {
    EXPECT_GT(aim_checked, 0u);
  }

  std::vector<std::string> names;
  for (std::size_t id = 0; id < ours.scores.metric_count(); ++id) names.push_back(ours.scores.metric_name(id));
  EXPECT_EQ(names, golden_metric_names(r_path));

  const auto up = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(up));
  std::size_t unused = 0;
  const auto upj = without_uninitialised_aim(read_json(up), ours, &unused);
  const GoldenComparison vs_up = compare_with_golden(upj, ours, run.subsample);
  // Largest absolute and relative difference per frame value.
  double max_abs = 0, max_rel = 0;
  for (const auto& f : upj.at("frames")) {
    const std::uint64_t i = f.at("frameNum");
    for (const auto& [k, v] : f.at("metrics").items()) {
      const auto id = ours.scores.find_metric(k);
      const auto g = json_number(v);
      if (!id || !g) continue;
      const double o = *ours.scores.get(*id, i), d = std::fabs(o - *g);
      if (!(d <= max_abs)) max_abs = d;
      if (*g != 0 && !(d / std::fabs(*g) <= max_rel)) max_rel = d / std::fabs(*g);
    }
  }
  std::printf("[ distance ] %s/%s: %zu of %zu values differ from upstream (max %lld ulp, abs %.3g, rel %.3g)\n",
              gc.pair.c_str(), gc.run.c_str(), vs_up.differing, vs_up.values,
              static_cast<long long>(vs_up.max_ulps), max_abs, max_rel);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FloatAdmGolden, ::testing::ValuesIn(golden_cases_for(float_adm_golden_runs())),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FloatAdmGolden);

TEST(FloatAdmGoldenSet, EveryPairHasEveryRun) {
  EXPECT_EQ(golden_cases_for(float_adm_golden_runs()).size(), fixture_pairs().size() * float_adm_golden_runs().size());
}

TEST(FloatAdmThreads, SameBitsForEveryThreadCount) {
  for (const auto& pair : fixture_pairs()) {
    expect_thread_invariant(pair, {"float_adm=debug=true"});
    expect_thread_invariant(pair, {"float_adm=adm_enhn_gain_limit=1.2:adm_p_norm=2.5:adm_csf_mode=2:debug=true"});
  }
}

RunResult run_synthetic(unsigned w, unsigned h, const std::string& feature) {
  const VideoFormat fmt{w, h, PixelFormat::yuv420, 8};
  SyntheticReader ref("ref", fmt, 2, [](std::uint64_t f, unsigned p, unsigned x, unsigned y) {
    return static_cast<unsigned>((x * 7 + y * 13 + f * 3 + p) % 256);
  });
  SyntheticReader dist("dist", fmt, 2, [](std::uint64_t f, unsigned p, unsigned x, unsigned y) {
    return static_cast<unsigned>((x * 5 + y * 11 + f + p + (x * y) % 7) % 256);
  });
  std::vector<FeatureRequest> req{parse_feature_request(feature)};
  return run(ref, dist, std::move(req), {});
}

TEST(FloatAdmOptions, RejectsSmallFramesAndBadValues) {
  EXPECT_THROW(parse_feature_request("float_adm=adm_p_norm=0.5"), Error);
  EXPECT_THROW(parse_feature_request("float_adm=adm_csf_mode=10"), Error);
  EXPECT_THROW(parse_feature_request("float_adm=adm_f1s0=11"), Error);
  EXPECT_NO_THROW(parse_feature_request("float_adm=adm_f1s0=0.5:adm_enhn_gain_limit=1.2:adm_norm_view_dist=5:adm_ref_display_height=2160:adm_p_norm=2:adm_skip_aim_scale=1"));
  EXPECT_THROW(run_synthetic(16, 64, "float_adm"), Error);
  EXPECT_THROW(run_synthetic(64, 16, "float_adm"), Error);
  EXPECT_NO_THROW(run_synthetic(17, 17, "float_adm"));
}

// Frames of 17 to 40 samples (every band at least 2 wide) run, and their
// values equal a second run (no uninitialised reads).
TEST(FloatAdmSizes, SmallOddFramesAreDeterministic) {
  for (unsigned w : {17u, 18u, 23u, 33u, 40u}) {
    for (unsigned h : {17u, 19u, 34u}) {
      const auto a = run_synthetic(w, h, "float_adm=debug=true");
      const auto b = run_synthetic(w, h, "float_adm=debug=true");
      ASSERT_EQ(a.scores.metric_count(), b.scores.metric_count());
      for (std::size_t id = 0; id < a.scores.metric_count(); ++id)
        for (std::uint64_t f = 0; f < a.frames; ++f)
          ASSERT_TRUE(same_bits(*a.scores.get(id, f), *b.scores.get(id, f))) << w << "x" << h;
    }
  }
}

// ---- the fp64 islands -----------------------------------------------------------

TEST(FloatAdmIslands, Constants) {
  const double c = rmath::cr_cos(adm::adm_pi / 180.0);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(float_adm::cos_1deg_sq()), std::bit_cast<std::uint32_t>(static_cast<float>(c * c)));
  EXPECT_EQ(std::bit_cast<std::uint32_t>(float_adm::decouple_eps()), std::bit_cast<std::uint32_t>(static_cast<float>(1e-30)));
  EXPECT_EQ(float_adm::one_by_30, 0.0333333351);
  EXPECT_NE(float_adm::one_by_30, static_cast<double>(static_cast<float>(1.0 / 30.0)));
}

TEST(FloatAdmIslands, QuickSamplesAgainstMpfr) {
  IslandChecker chk;
  const std::uint64_t n = 2000000;
  EXPECT_EQ(chk.mul_one_by_30_samples(0, n, 1), 0u);
  EXPECT_EQ(chk.add_mul_one_by_15_samples(1, n), 0u);
  EXPECT_EQ(chk.gain_clamp_samples(2, n), 0u);
  EXPECT_EQ(chk.boundary_cases(), 0u);
}

}  // namespace
}  // namespace exactvmaf::test
