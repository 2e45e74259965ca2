// Integer ADM against the golden numbers of upstream libvmaf (runs adm*):
// bit for bit against R, the distance to plain upstream counted; output
// names and order; thread invariance; the two fp64 islands against exact
// integer references (the gain product exhaustively over all int16 values);
// the option combinations and frame sizes that are rejected.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "exactvmaf/error.hpp"
#include "features/adm/adm_math.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

class AdmGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(AdmGolden, EqualsRBitForBit) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair;
  const GoldenRun& run = adm_golden_runs().at(gc.run);
  const RunResult ours = run_golden(*pair, run);

  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  const auto r = read_json(r_path);
  ASSERT_EQ(r.at("frames").size(), ours.frames);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_GT(vs_r.values, 0u);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;

  std::vector<std::string> names;
  for (std::size_t id = 0; id < ours.scores.metric_count(); ++id) names.push_back(ours.scores.metric_name(id));
  EXPECT_EQ(names, golden_metric_names(r_path));

  const auto up = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(up));
  const GoldenComparison vs_up = compare_with_golden(read_json(up), ours, run.subsample);
  std::printf("[ distance ] %s/%s: %zu of %zu values differ from upstream (max %lld ulp)\n", gc.pair.c_str(),
              gc.run.c_str(), vs_up.differing, vs_up.values, static_cast<long long>(vs_up.max_ulps));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AdmGolden, ::testing::ValuesIn(golden_cases_for(adm_golden_runs())),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AdmGolden);

TEST(AdmGoldenSet, IsPresent) { EXPECT_EQ(golden_cases_for(adm_golden_runs()).size(), fixture_pairs().size() * 8u); }

// The golden restricted to the metrics whose names end with `suffix`.
nlohmann::json golden_subset(const nlohmann::json& g, const std::string& suffix) {
  nlohmann::json out = g;
  const auto keep = [&](const std::string& n) {
    return n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  for (auto& f : out.at("frames")) {
    nlohmann::json m = nlohmann::json::object();
    for (const auto& [k, v] : f.at("metrics").items())
      if (keep(k)) m[k] = v;
    f["metrics"] = m;
  }
  nlohmann::json p = nlohmann::json::object();
  for (const auto& [k, v] : out.at("pooled_metrics").items())
    if (keep(k)) p[k] = v;
  out["pooled_metrics"] = p;
  out["aggregate_metrics"] = nlohmann::json::object();
  return out;
}

// adm_csf_modes runs two adm instances with different options in one run;
// here each instance also runs on its own and must equal its half of the
// golden. (Mode 1's CSF factors of scales 1..3 exceed 0.5: upstream's scalar
// C, and R, use them as uint32; its AVX-512 kernels as negative int32.)
TEST(AdmGoldenCsfModes, EqualsRBitForBit) {
  for (const auto& pair : fixture_pairs()) {
    const auto r = read_json(golden_dir() / "r" / pair.name / "adm_csf_modes.json");
    const RunResult mode3 = run_fixture(pair, {"adm=adm_csf_mode=3:adm_csf_scale=1.5:adm_csf_diag_scale=0.8"});
    const GoldenComparison c3 = compare_with_golden(golden_subset(r, "_scfd_0.8_csf_3_scf_1.5"), mode3, 1);
    EXPECT_GT(c3.values, 0u);
    EXPECT_EQ(c3.differing, 0u) << pair.name << ": " << c3.first_difference;
    const RunResult mode1 = run_fixture(pair, {"adm=adm_csf_mode=1"});
    const GoldenComparison c1 = compare_with_golden(golden_subset(r, "_csf_1"), mode1, 1);
    EXPECT_GT(c1.values, 0u);
    EXPECT_EQ(c1.differing, 0u) << pair.name << ": " << c1.first_difference;
  }
}

TEST(AdmThreads, SameBitsForEveryThreadCount) {
  for (const auto& pair : fixture_pairs()) {
    expect_thread_invariant(pair, {"adm=debug=true"});
    expect_thread_invariant(pair, {"adm=adm_enhn_gain_limit=1.2:adm_csf_mode=1:debug=true"});
  }
}

// ---- the gain island, exhaustively ---------------------------------------

// Exact reference: rst * gain with gain = m * 2^e (m odd or the double's
// integer significand), the product rounded once to 53 bits (ties to even),
// then truncated or rounded to an integer (ties to even), all in integers.
struct ExactProduct {
  bool negative;
  unsigned __int128 mant;  // rounded product's significand (< 2^53)
  int exp;                 // value = mant * 2^exp
};

ExactProduct exact_double_product(std::int64_t rst, double gain) {
  int e = 0;
  // gain = sig * 2^e with sig a 53-bit integer, from its bits.
  const auto bits = std::bit_cast<std::uint64_t>(gain);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t sig = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  e = biased - 1075;
  ExactProduct p{rst < 0, 0, e};
  unsigned __int128 prod = static_cast<unsigned __int128>(rst < 0 ? -rst : rst) * sig;
  if (prod == 0) return p;
  int len = 0;
  for (unsigned __int128 t = prod; t; t >>= 1) ++len;
  if (len > 53) {
    const int drop = len - 53;
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (drop - 1);
    const unsigned __int128 rem = prod & ((static_cast<unsigned __int128>(1) << drop) - 1);
    prod >>= drop;
    if (rem > half || (rem == half && (prod & 1))) prod += 1;
    p.exp += drop;
  }
  p.mant = prod;
  return p;
}

std::int64_t exact_trunc(const ExactProduct& p) {
  const unsigned __int128 v = p.exp >= 0 ? p.mant << p.exp : (p.exp <= -127 ? 0 : p.mant >> -p.exp);
  const auto m = static_cast<std::int64_t>(v);
  return p.negative ? -m : m;
}

TEST(AdmIslands, GainProductExhaustiveOverInt16) {
  // 1.0 (vmaf_v0.6.1neg), 1.1 (a model option in the goldens), 1.2, the default 100.
  for (const double gain : {1.0, 1.1, 1.2, 100.0}) {
    std::size_t checked = 0, exact_hits = 0;
    for (std::int64_t rst = -32768; rst <= 32767; ++rst) {
      const ExactProduct p = exact_double_product(rst, gain);
      ASSERT_EQ(adm::trunc_mul_gain(rst, gain), exact_trunc(p)) << rst << " x " << gain;
      exact_hits += static_cast<double>(rst) * gain == static_cast<double>(adm::trunc_mul_gain(rst, gain));
      ++checked;
    }
    EXPECT_EQ(checked, 65536u);
    if (gain == 1.0 || gain == 100.0) {
      EXPECT_EQ(exact_hits, checked) << "integer gains give integer products";
    }
  }
  // At 1.2 the double product of a multiple of 5 rounds onto the integer.
  EXPECT_EQ(adm::trunc_mul_gain(5, 1.2), 6);
  EXPECT_EQ(adm::trunc_mul_gain(-5, 1.2), -6);
  EXPECT_EQ(adm::trunc_mul_gain(4, 1.2), 4);
}

TEST(AdmIslands, GainProductInt32Samples) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> d(-(std::int64_t{1} << 31), (std::int64_t{1} << 31) - 1);
  for (int n = 0; n < 200000; ++n) {
    const std::int64_t rst = d(rng);
    for (const double gain : {1.1, 1.2, 1.7, 99.9}) {
      const ExactProduct p = exact_double_product(rst, gain);
      ASSERT_EQ(adm::trunc_mul_gain(rst, gain), exact_trunc(p)) << rst << " x " << gain;
    }
  }
}

// ---- the angle island -----------------------------------------------------

// Exact evaluation: x -> float (round to nearest even, 24 bits), then
// dp^2 >= RN53(c * o * t) with c = cos_1deg_sq, all as integers scaled by
// powers of two (the /4096 scalings cancel: both sides carry 2^-24).
struct Scaled {
  unsigned __int128 m = 0;  // value = m * 2^e
  int e = 0;
};

Scaled round_bits(unsigned __int128 v, int bits) {
  Scaled s{v, 0};
  int len = 0;
  for (unsigned __int128 t = v; t; t >>= 1) ++len;
  if (len > bits) {
    const int drop = len - bits;
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (drop - 1);
    const unsigned __int128 rem = v & ((static_cast<unsigned __int128>(1) << drop) - 1);
    s.m = v >> drop;
    if (rem > half || (rem == half && (s.m & 1))) s.m += 1;
    s.e = drop;
  }
  return s;
}

// Compares a * 2^a.e with b * 2^b.e (nonnegative; exponents close enough to
// shift into 128 bits, as for the inputs below).
int compare_scaled(Scaled a, Scaled b) {
  if (a.e > b.e) a.m <<= (a.e - b.e);
  else b.m <<= (b.e - a.e);
  return a.m < b.m ? -1 : (a.m > b.m ? 1 : 0);
}

bool exact_angle_flag(std::int64_t ot_dp, std::int64_t o_mag_sq, std::int64_t t_mag_sq) {
  // A negative integer stays negative as a float.
  if (ot_dp < 0) return false;
  const Scaled dp = round_bits(static_cast<unsigned __int128>(ot_dp), 24);
  const Scaled o = round_bits(static_cast<unsigned __int128>(o_mag_sq), 24);
  const Scaled t = round_bits(static_cast<unsigned __int128>(t_mag_sq), 24);
  // cos_1deg_sq = 0xffec0a * 2^-24. Both sides carry 2^-24 from the /4096
  // scalings, which cancels: dp^2 >= RN53(c * o * t).
  const unsigned __int128 c = 0xffec0au;
  const Scaled prod = round_bits(c * o.m * t.m, 53);
  const Scaled rhs{prod.m, prod.e + o.e + t.e - 24};
  const Scaled lhs{dp.m * dp.m, 2 * dp.e};
  return compare_scaled(lhs, rhs) >= 0;
}

TEST(AdmIslands, AngleTestAgainstExactIntegers) {
  ASSERT_EQ(std::bit_cast<std::uint32_t>(adm::cos_1deg_sq), 0x3f7fec0au);
  std::mt19937_64 rng(11);
  std::size_t agree = 0, total = 0, flagged = 0;
  const auto check = [&](std::int64_t oh, std::int64_t ov, std::int64_t th, std::int64_t tv) {
    const std::int64_t dp = oh * th + ov * tv, o = oh * oh + ov * ov, t = th * th + tv * tv;
    const bool ours = adm::angle_within_1deg(dp, o, t);
    const bool exact = exact_angle_flag(dp, o, t);
    ++total;
    agree += ours == exact;
    flagged += exact;
    EXPECT_EQ(ours, exact) << oh << " " << ov << " " << th << " " << tv;
  };
  // Near-parallel vectors (the decisive cases), random, and edges.
  std::uniform_int_distribution<std::int64_t> big(-(std::int64_t{1} << 20), std::int64_t{1} << 20);
  std::uniform_int_distribution<std::int64_t> small(-40, 40);
  for (int n = 0; n < 300000; ++n) {
    const std::int64_t oh = big(rng) >> (n % 16), ov = big(rng) >> (n % 16);
    const std::int64_t th = oh + small(rng), tv = ov + small(rng);
    check(oh, ov, th, tv);
    check(oh, ov, big(rng), big(rng));
  }
  for (std::int64_t a : {0, 1, -1, 32767, -32768, 4096, -4096})
    for (std::int64_t b : {0, 1, -1, 32767, -32768})
      for (std::int64_t k : {0, 1, 57, -57}) check(a, b, a + k, b - k);
  EXPECT_EQ(agree, total);
  EXPECT_GT(flagged, 1000u);
}

// ---- rejected options and sizes --------------------------------------------

RunResult run_synthetic(unsigned w, unsigned h, const std::string& feature) {
  const VideoFormat fmt{w, h, PixelFormat::yuv420, 8};
  auto fn = [](std::uint64_t frame, unsigned plane, unsigned x, unsigned y) -> unsigned {
    return static_cast<unsigned>((x * 7 + y * 13 + frame * 3 + plane) % 256);
  };
  SyntheticReader ref("ref", fmt, 2, fn), dist("dist", fmt, 2, [](std::uint64_t f, unsigned p, unsigned x, unsigned y) {
    return static_cast<unsigned>((x * 7 + y * 11 + f + p) % 256);
  });
  std::vector<FeatureRequest> req{parse_feature_request(feature)};
  return run(ref, dist, std::move(req), {});
}

std::string error_of(unsigned w, unsigned h, const std::string& feature) {
  try {
    run_synthetic(w, h, feature);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

TEST(AdmOptions, RejectedCombinations) {
  // Upstream's extract() fails with -EINVAL below 3 * 1080 pixels of angular resolution.
  EXPECT_NE(error_of(64, 64, "adm=adm_norm_view_dist=1.5").find("below 3 * 1080"), std::string::npos);
  EXPECT_NE(error_of(64, 64, "adm=adm_norm_view_dist=1.5:adm_csf_mode=2").find("below"), std::string::npos);
  EXPECT_NE(error_of(64, 64, "adm=adm_ref_display_height=720").find("below"), std::string::npos);
  // 1.5 * 2160 is exactly 3 * 1080: accepted.
  EXPECT_EQ(error_of(64, 64, "adm=adm_norm_view_dist=1.5:adm_ref_display_height=2160:adm_csf_mode=2"), "");
  EXPECT_EQ(error_of(64, 64, "adm=adm_norm_view_dist=4"), "");
  // The blended CSF modes have tables for a few set-ups only.
  EXPECT_NE(error_of(64, 64, "adm=adm_csf_mode=2:adm_norm_view_dist=4").find("no CSF table"), std::string::npos);
  EXPECT_NE(error_of(64, 64, "adm=adm_csf_mode=3:adm_ref_display_height=1440").find("no CSF table"),
            std::string::npos);
  EXPECT_EQ(error_of(64, 64, "adm=adm_csf_mode=3:adm_ref_display_height=2160:adm_norm_view_dist=5"), "");
  // Ranges.
  EXPECT_THROW(parse_feature_request("adm=adm_enhn_gain_limit=0.5"), Error);
  EXPECT_THROW(parse_feature_request("adm=adm_csf_mode=4"), Error);
  EXPECT_THROW(parse_feature_request("adm=adm_norm_view_dist=0.5"), Error);
}

TEST(AdmOptions, MinimumFrameSize) {
  EXPECT_NE(error_of(32, 64, "adm").find("at least 33x33"), std::string::npos);
  EXPECT_NE(error_of(64, 32, "adm").find("at least 33x33"), std::string::npos);
  EXPECT_EQ(error_of(33, 33, "adm"), "");
  const RunResult r = run_synthetic(33, 35, "adm=debug=true");
  ASSERT_EQ(r.frames, 2u);
  const auto id = r.scores.find_metric("integer_adm2");
  ASSERT_TRUE(id);
  EXPECT_TRUE(std::isfinite(*r.scores.get(*id, 1)));
}

TEST(AdmNames, SuffixesAndDebugOrder) {
  const RunResult r = run_synthetic(40, 40, "adm=adm_enhn_gain_limit=1.2:adm_skip_aim=true:debug=true");
  std::vector<std::string> names;
  for (std::size_t id = 0; id < r.scores.metric_count(); ++id) names.push_back(r.scores.metric_name(id));
  const std::vector<std::string> expected = {
      "integer_adm2_egl_1.2",           "integer_aim_egl_1.2",           "integer_adm3_egl_1.2",
      "integer_adm_scale0_egl_1.2",     "integer_adm_scale1_egl_1.2",    "integer_adm_scale2_egl_1.2",
      "integer_adm_scale3_egl_1.2",     "integer_adm_egl_1.2",           "integer_adm_num_egl_1.2",
      "integer_adm_den_egl_1.2",        "integer_adm_num_scale0_egl_1.2", "integer_adm_den_scale0_egl_1.2",
      "integer_adm_num_scale1_egl_1.2", "integer_adm_den_scale1_egl_1.2", "integer_adm_num_scale2_egl_1.2",
      "integer_adm_den_scale2_egl_1.2", "integer_adm_num_scale3_egl_1.2", "integer_adm_den_scale3_egl_1.2"};
  EXPECT_EQ(names, expected);
}

TEST(AdmTail, VanishingDenominatorGivesOneAndZeroAim) {
  // Flat frames with no noise floor: upstream leaves aim uninitialised; R says 0.
  const VideoFormat fmt{48, 48, PixelFormat::yuv420, 8};
  SyntheticReader ref("ref", fmt, 2, [](auto...) { return 100u; }), dist("dist", fmt, 2, [](auto...) { return 100u; });
  std::vector<FeatureRequest> req{parse_feature_request("adm=adm_noise_weight=0")};
  const RunResult r = run(ref, dist, std::move(req), {});
  EXPECT_EQ(*r.scores.get(*r.scores.find_metric("integer_adm2_nw_0"), 0), 1.0);
  EXPECT_EQ(*r.scores.get(*r.scores.find_metric("integer_aim_nw_0"), 0), 0.0);
  EXPECT_EQ(*r.scores.get(*r.scores.find_metric("integer_adm3_nw_0"), 0), 1.0);
}

TEST(AdmMath, DwtIndicesAndCeilLog2) {
  // Reflect at the start without repeating the edge, at the end with it.
  EXPECT_EQ(adm::dwt_src_index(0, 0, 9), 1);
  EXPECT_EQ(adm::dwt_src_index(0, 1, 9), 0);
  EXPECT_EQ(adm::dwt_src_index(4, 2, 9), 8);
  EXPECT_EQ(adm::dwt_src_index(4, 3, 9), 7);  // 10 -> 2 * 9 - 10 - 1
  EXPECT_EQ(adm::dwt_src_index(4, 3, 10), 9);
  EXPECT_EQ(adm::ceil_log2(1), 0u);
  EXPECT_EQ(adm::ceil_log2(17), 5u);
  EXPECT_EQ(adm::ceil_log2(1024), 10u);
  EXPECT_EQ(adm::half_of_pow2(0), 0u);  // upstream: (uint32_t)pow(2, 2^32 - 1) = (uint32_t)inf
  EXPECT_EQ(adm::half_of_pow2(5), 16u);
  EXPECT_EQ(adm::u16_from_double(70000.0), static_cast<std::uint16_t>(70000 - 65536));
  EXPECT_EQ(adm::u32_from_double(-1.0), 0xffffffffu);
  EXPECT_EQ(adm::u32_from_double(1e30), 0u);
  // Default Watson factors at scale 0 are upstream's hard-coded ones.
  const adm::ScaleFactors f = adm::scale_factors(0, adm::CsfOptions{});
  EXPECT_EQ(f.i_rfactor[0], 36453u);
  EXPECT_EQ(f.i_rfactor[2], 49417u);
}

}  // namespace
}  // namespace exactvmaf::test
