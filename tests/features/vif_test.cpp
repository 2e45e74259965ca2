// Integer VIF against the golden numbers of upstream libvmaf
// (tests/golden/README.md, runs vif*): bit for bit against R, the measured
// distance to plain upstream; output names and order; thread invariance;
// scalar == SIMD; the log2 table and the fp64 islands against MPFR.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <random>

#include "exactvmaf/simd.hpp"
#include "features/vif/vif_host.hpp"
#include "features/vif/vif_math.hpp"
#include "features/vif/vif_simd.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/simd_check.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

std::vector<GoldenCase> vif_cases() { return golden_cases_for(vif_golden_runs()); }

class VifGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(VifGolden, EqualsRBitForBitAndMeasuresUpstream) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = vif_golden_runs().at(gc.run);
  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  const auto r = read_json(r_path);
  const auto upstream_path = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(upstream_path));
  const auto up = read_json(upstream_path);

  for (SimdLevel level : {SimdLevel::scalar, SimdLevel::avx2, SimdLevel::avx512}) {
    SimdLimit limit(level);
    const RunResult ours = run_golden(*pair, run);
    ASSERT_EQ(r.at("frames").size(), (ours.frames + run.subsample - 1) / run.subsample);
    const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
    EXPECT_EQ(vs_r.differing, 0u) << simd_level_name(simd_level()) << ": " << vs_r.differing << " of "
                                  << vs_r.values << " values differ from R; first: " << vs_r.first_difference;

    // Same names in libvmaf's order, nothing more.
    std::vector<std::string> names;
    for (std::size_t id = 0; id < ours.scores.metric_count(); ++id) names.push_back(ours.scores.metric_name(id));
    EXPECT_EQ(names, golden_metric_names(r_path));

    if (level == SimdLevel::scalar) {
      // VIF's only libm call is log2f in the table; a correctly rounded
      // log2f reproduces glibc's table, so no distance is expected, but it
      // is measured, not required.
      const GoldenComparison vs_up = compare_with_golden(up, ours, run.subsample);
      RecordProperty("upstream_differing", static_cast<int>(vs_up.differing));
      std::printf("[ distance ] %s/%s: %zu of %zu values differ from upstream (max %lld ulp)\n", gc.pair.c_str(),
                  gc.run.c_str(), vs_up.differing, vs_up.values, static_cast<long long>(vs_up.max_ulps));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, VifGolden, ::testing::ValuesIn(vif_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(VifGolden);

TEST(VifGoldenSet, IsPresent) {
  // 4 runs on each pair; an empty set would pass vacuously.
  EXPECT_EQ(vif_cases().size(), fixture_pairs().size() * 4u);
}

TEST(VifThreads, SameBitsForEveryThreadCount) {
  for (const auto& pair : fixture_pairs()) {
    expect_thread_invariant(pair, {"vif=debug=true"});
    expect_thread_invariant(pair, {"vif=vif_skip_scale0=true:vif_enhn_gain_limit=1.2:debug=true"});
  }
}

// ---- names and options -------------------------------------------------------

std::vector<std::string> names_of(const std::string& request, const VideoFormat& fmt) {
  const FeatureRequest r = parse_feature_request(request);
  return r.info->create(r.options)->init(fmt);
}

TEST(VifNames, OrderAndSuffixes) {
  const VideoFormat fmt{64, 48, PixelFormat::yuv420, 8};
  EXPECT_EQ(names_of("vif", fmt), (std::vector<std::string>{"integer_vif_scale0", "integer_vif_scale1",
                                                             "integer_vif_scale2", "integer_vif_scale3"}));
  const auto debug = names_of("vif=debug=true", fmt);
  ASSERT_EQ(debug.size(), 15u);
  EXPECT_EQ(debug[4], "integer_vif");
  EXPECT_EQ(debug[5], "integer_vif_num");
  EXPECT_EQ(debug[6], "integer_vif_den");
  EXPECT_EQ(debug[7], "integer_vif_num_scale0");
  EXPECT_EQ(debug[14], "integer_vif_den_scale3");
  // Aliases egl and ssclz, sorted by option name; debug adds no suffix.
  EXPECT_EQ(names_of("vif=vif_skip_scale0=true:vif_enhn_gain_limit=1.5", fmt)[1], "integer_vif_scale1_egl_1.5_ssclz");
  EXPECT_EQ(names_of("vif=vif_enhn_gain_limit=1.0:debug=true", fmt)[4], "integer_vif_egl_1");
  EXPECT_EQ(names_of("vif=vif_enhn_gain_limit=100", fmt)[0], "integer_vif_scale0");
}

TEST(VifOptions, RangesAreChecked) {
  EXPECT_THROW(parse_feature_request("vif=vif_enhn_gain_limit=0.99"), Error);
  EXPECT_THROW(parse_feature_request("vif=vif_enhn_gain_limit=100.5"), Error);
  EXPECT_THROW(parse_feature_request("vif=vif_skip_scale0=2"), Error);
  EXPECT_NO_THROW(parse_feature_request("vif=vif_enhn_gain_limit=1:vif_skip_scale0=true"));
  // The aliases only name the suffix (upstream ignores unknown option names; we reject them).
  EXPECT_THROW(parse_feature_request("vif=egl=1"), Error);
}

TEST(VifOptions, TooSmallPlaneIsAnError) {
  EXPECT_THROW(names_of("vif", VideoFormat{15, 64, PixelFormat::yuv444, 8}), Error);
  EXPECT_THROW(names_of("vif", VideoFormat{64, 15, PixelFormat::yuv444, 8}), Error);
  EXPECT_NO_THROW(names_of("vif", VideoFormat{16, 16, PixelFormat::yuv444, 8}));
}

// ---- pipeline on synthetic frames: flat, and scalar == SIMD ------------------

RunResult run_synthetic(const VideoFormat& fmt, std::uint64_t frames, SyntheticReader::SampleFn ref_fn,
                        SyntheticReader::SampleFn dist_fn, const std::string& feature) {
  SyntheticReader ref("ref", fmt, frames, std::move(ref_fn)), dist("dist", fmt, frames, std::move(dist_fn));
  std::vector<FeatureRequest> req{parse_feature_request(feature)};
  RunOptions o;
  o.threads = 1;
  return run(ref, dist, std::move(req), o);
}

TEST(VifPipeline, FlatFramesScoreOne) {
  // No variance anywhere: every pixel counts 1 in num and den.
  const VideoFormat fmt{32, 20, PixelFormat::yuv420, 8};
  const RunResult r = run_synthetic(fmt, 1, [](auto...) { return 100u; }, [](auto...) { return 90u; },
                                    "vif=debug=true");
  const std::pair<const char*, double> expected[] = {
      {"integer_vif_scale0", 1.0},          {"integer_vif_scale3", 1.0},
      {"integer_vif_num_scale0", 640.0},    {"integer_vif_den_scale0", 640.0},
      {"integer_vif_den_scale1", 160.0},    {"integer_vif_den_scale2", 40.0},
      {"integer_vif_den_scale3", 8.0},      {"integer_vif", 1.0},
      {"integer_vif_den", 848.0},
  };
  for (const auto& [name, value] : expected) {
    const auto id = r.scores.find_metric(name);
    ASSERT_TRUE(id) << name;
    EXPECT_EQ(*r.scores.get(*id, 0), value) << name;
  }
}

struct SyntheticCase {
  VideoFormat fmt;
  int kind;  // RampNoiseContent's: 0 noise + distortion, 1 full-range noise vs its inverse, 2 extremes
};

// Every value of a run at each SIMD level this CPU runs equals the scalar run's.
void expect_simd_matches_scalar(const SyntheticCase& sc, const std::string& feature) {
  const RampNoiseContent content{(1u << sc.fmt.bitdepth) - 1, sc.fmt.width, sc.kind};
  RunOptions one_thread;
  one_thread.threads = 1;
  expect_levels_agree([&] { return run_synthetic_pair(sc.fmt, content, 2, {feature}, one_thread); },
                      fmt::format("{} kind {} {}", sc.fmt.describe(), sc.kind, feature));
}

TEST(VifSimd, MatchesScalarOnRandomFrames) {
  std::printf("[ simd ] best level here: %s\n", simd_level_name(simd_level()));
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (auto [w, h] : {std::pair{16u, 16u}, {37u, 23u}, {67u, 41u}, {130u, 34u}})
      for (int kind : {0, 1, 2}) expect_simd_matches_scalar({{w, h, PixelFormat::yuv420, bpc}, kind}, "vif=debug=true");
  expect_simd_matches_scalar({{61, 33, PixelFormat::yuv444, 10}, 0}, "vif=debug=true:vif_enhn_gain_limit=1.0");
  expect_simd_matches_scalar({{61, 33, PixelFormat::yuv444, 9}, 1}, "vif=debug=true:vif_enhn_gain_limit=1.3");
}

// Widths around the AVX-512 kernels' 16- and 32-column blocks at every scale
// (scale 3 of 259 is 32 + 0, of 263 is 32 + 0 with odd tails above) and
// their 256-column chunks of pair rows (1100: five chunks at scale 0, the
// last partial; 545: a chunk of 16 columns after two), each bit depth, every
// content kind and the gain-limit / skip options.
TEST(VifSimd, MatchesScalarAroundVectorBlocks) {
  for (unsigned bpc : {8u, 9u, 10u, 12u, 14u, 16u})
    for (auto [w, h] : {std::pair{32u, 17u}, {47u, 16u}, {64u, 19u}, {97u, 18u}, {259u, 20u}, {263u, 35u}, {545u, 18u},
                                      {1100u, 18u}})
      for (int kind : {0, 1, 2}) expect_simd_matches_scalar({{w, h, PixelFormat::yuv420, bpc}, kind}, "vif=debug=true");
  for (const char* opts : {"vif=debug=true:vif_enhn_gain_limit=1.0", "vif=debug=true:vif_enhn_gain_limit=1.7",
                           "vif=debug=true:vif_skip_scale0=true"})
    for (int kind : {0, 1, 2}) expect_simd_matches_scalar({{131, 66, PixelFormat::yuv420, 8}, kind}, opts);
}

TEST(VifSimd, MatchesScalarOnFixtures) {
  for (const auto& pair : fixture_pairs())
    expect_levels_agree([&] { return run_fixture(pair, {"vif=debug=true"}); }, pair.name);
}

using VifCheck = KernelTableCheck<vif::Kernels>;

// The per-pixel log branch (the AVX2 and AVX-512 tables' vector ones) against the
// scalar accumulate_pixel on random and edge variances: huge gains
// (truncations out of int32 / int64 range), sigma1 at and around the noise
// variance, sign edges of sigma2 and sigma12.
void check_accumulate(VifCheck& check) {
  const std::int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -65536, -1, 0, 1, 2, 3, 131071, 131072, 131073, 262143,
                                262144, 1 << 20, (1 << 24) + 7, 1 << 30, INT32_MAX - 1, INT32_MAX};
  std::vector<std::int32_t> s1, s2, s12;
  for (std::int32_t a : edges)
    for (std::int32_t b : edges)
      for (std::int32_t c : edges) {
        s1.push_back(a);
        s2.push_back(b);
        s12.push_back(c);
      }
  // sigma_nsq + sigma1 and sv_sq + sigma_nsq around powers of two, where
  // the log2's shift changes (the AVX2 branch computes it without lzcnt).
  for (int k = 18; k <= 31; ++k)
    for (std::int64_t d = -2; d <= 2; ++d) {
      const auto v = static_cast<std::int32_t>(std::min<std::int64_t>((std::int64_t{1} << k) - 131072 + d, INT32_MAX));
      for (std::int32_t a : {131072, 131073, 1 << 20, 1 << 28, INT32_MAX})
        for (std::int32_t c : {1, 2, 1000, 1 << 20, 1 << 30}) {
          s1.insert(s1.end(), {v, a});
          s2.insert(s2.end(), {c, v});
          s12.insert(s12.end(), {c, c});
        }
    }
  std::uint64_t state = 12345;
  for (int n = 0; n < 200000; ++n) {
    const std::uint64_t r = mix(state++);
    const std::uint64_t q_hi = mix(state++);
    const std::uint64_t q = (q_hi << 32) | mix(state++);
    // Mostly log-branch pixels with realistic and extreme magnitudes.
    const unsigned shift1 = static_cast<unsigned>(r % 31), shift2 = static_cast<unsigned>((r >> 8) % 31);
    s1.push_back(static_cast<std::int32_t>((q & 0x7fffffff) >> shift1));
    s2.push_back(static_cast<std::int32_t>(((q >> 32) & 0x7fffffff) >> shift2) - ((r >> 20) % 7 == 0 ? 1000 : 0));
    s12.push_back(static_cast<std::int32_t>(mix(state++) & 0xffffffff) >> (static_cast<unsigned>(r >> 28) % 31));
  }
  // Also the largest limit the AVX2 vector branch takes (1024) and one above it.
  for (double limit : {1.0, 1.3, 100.0, 1024.0, 1025.0})
    check.check("accumulate_pixels", &vif::Kernels::accumulate_pixels, fmt::format("gain limit {}", limit),
                [&](auto fn) {
                  const vif::Residuals r = fn(s1.data(), s2.data(), s12.data(), s1.size(), limit, vif::log2_table());
                  return std::make_tuple(r.num_log, r.den_log, r.num_non_log, r.den_non_log);
                });
}

// A scale's statistic and the decimation on random planes of every bit depth,
// widths around the vector blocks, full-range, small and extreme samples.
void check_scales(VifCheck& check) {
  std::mt19937_64 rng(21);
  const std::uint16_t* table = vif::log2_table();
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    // Also 16k - 1, 16k, 16k + 1 (the AVX2 horizontal pass's 16-column
    // blocks and their scalar tail) and flat planes at 0 and the maximum
    // (the largest squares: both 16-bit halves of xx near 2^16).
    for (auto [w, h] : {std::pair{16u, 16u}, {17u, 16u}, {31u, 17u}, {32u, 16u}, {33u, 16u}, {47u, 18u}, {48u, 17u},
                        {49u, 16u}, {64u, 16u}, {65u, 16u}, {79u, 16u}, {80u, 17u}, {81u, 16u}, {97u, 19u},
                        {127u, 16u}, {128u, 16u}, {129u, 17u}, {263u, 17u}})
      for (int fill_index = 0; fill_index < std::ssize(all_fills) + 3; ++fill_index) {
        const std::size_t stride = w + 5;
        const std::int64_t max = (std::int64_t{1} << bpc) - 1;
        const int flat = fill_index - static_cast<int>(std::ssize(all_fills));  // 0: max/max, 1: max/0, 2: 0/max
        const Fill fill = flat < 0 ? all_fills[fill_index] : Fill::full;
        auto a = random_values<std::uint16_t>(stride * h, fill, rng, 0, max);
        auto b = random_values<std::uint16_t>(stride * h, Fill::mixed, rng, 0, max);
        for (std::size_t k = 0; k < b.size(); k += 3) b[k] = a[k];  // correlated pixels: the log branch
        if (flat >= 0) {
          std::fill(a.begin(), a.end(), static_cast<std::uint16_t>(flat == 2 ? 0 : max));
          std::fill(b.begin(), b.end(), static_cast<std::uint16_t>(flat == 1 ? 0 : max));
        }
        const std::vector<std::uint8_t> a8(a.begin(), a.end()), b8(b.begin(), b.end());
        const auto row = static_cast<std::size_t>(w) + 2 * vif::row_pad + vif::simd_row_slack;
        const std::string what = fmt::format("{}x{} {}-bit fill {}", w, h, bpc, fill_index);
        for (double limit : {100.0, 1.0}) {
          const auto statistic = [&](auto fn, int scale, const auto* x, const auto* y, auto... depth) {
            std::vector<std::uint32_t> scratch(5 * row, 0);
            const vif::StatRow t{&scratch[0], &scratch[row], &scratch[2 * row], &scratch[3 * row], &scratch[4 * row]};
            const vif::Residuals r = fn(scale, x, static_cast<std::ptrdiff_t>(stride), y,
                                        static_cast<std::ptrdiff_t>(stride), w, h, depth..., limit, table, t);
            return std::make_tuple(r.num_log, r.den_log, r.num_non_log, r.den_non_log);
          };
          if (bpc == 8) {
            ASSERT_TRUE(check.check("statistic_u8", &vif::Kernels::statistic_u8, what,
                                    [&](auto fn) { return statistic(fn, 0, a8.data(), b8.data()); }));
          }
          for (int scale = 0; scale < vif::num_scales; ++scale) {
            if (scale == 0 && bpc == 8) continue;
            ASSERT_TRUE(check.check("statistic_u16", &vif::Kernels::statistic_u16,
                                    fmt::format("{} scale {} limit {}", what, scale, limit),
                                    [&](auto fn) { return statistic(fn, scale, a.data(), b.data(), bpc); }));
          }
        }
        const auto decimate = [&](auto fn, int to, const auto* x, const auto* y, auto... depth) {
          std::vector<std::uint32_t> scratch(2 * row, 0);
          const vif::ConvolveRow t{&scratch[0], &scratch[row]};
          std::vector<std::uint16_t> out_ref((w / 2) * (h / 2)), out_dis((w / 2) * (h / 2));
          fn(to, x, static_cast<std::ptrdiff_t>(stride), y, static_cast<std::ptrdiff_t>(stride), w, h, depth..., t,
             out_ref.data(), out_dis.data());
          return std::make_tuple(out_ref, out_dis);
        };
        if (bpc == 8) {
          ASSERT_TRUE(check.check("decimate_u8", &vif::Kernels::decimate_u8, what,
                                  [&](auto fn) { return decimate(fn, 1, a8.data(), b8.data()); }));
        }
        for (int to = 1; to < vif::num_scales; ++to)
          ASSERT_TRUE(check.check("decimate_u16", &vif::Kernels::decimate_u16, fmt::format("{} to {}", what, to),
                                  [&](auto fn) { return decimate(fn, to, a.data(), b.data(), bpc); }));
      }
}

// Every entry of every SIMD table against the scalar table (the harness
// fails if an entry is left out).
TEST(VifSimdKernels, EveryEntryEqualsScalar) {
  VifCheck check(&vif::kernels_for);
  if (!check.has_simd()) GTEST_SKIP() << "no SIMD level on this CPU";
  check_accumulate(check);
  check_scales(check);
}

// ---- the log2 table -----------------------------------------------------------

// round(x) as C's round: to nearest, ties away from zero (mpfr_round).
long mpfr_round_to_long(mpfr_t x) {
  mpfr_t r;
  mpfr_init2(r, 64);
  mpfr_round(r, x);
  const long v = mpfr_get_si(r, MPFR_RNDN);
  mpfr_clear(r);
  return v;
}

TEST(VifLog2Table, EveryEntryEqualsMpfr) {
  // Independent of rmath: log2(i) rounded once to float (24 bits) by MPFR,
  // times 2048 (exact), rounded half away from zero, as upstream's
  // (uint16_t)round(log2f(i) * 2048).
  const std::uint16_t* table = vif::log2_table();
  mpfr_t x;
  mpfr_init2(x, 24);
  unsigned mismatches = 0;
  for (unsigned i = vif::log2_table_first; i < vif::log2_table_first + vif::log2_table_size; ++i) {
    mpfr_set_ui(x, i, MPFR_RNDN);
    mpfr_log2(x, x, MPFR_RNDN);
    mpfr_mul_2ui(x, x, 11, MPFR_RNDN);
    const long expected = mpfr_round_to_long(x);
    if (table[i - vif::log2_table_first] != expected && ++mismatches <= 5)
      ADD_FAILURE() << "log2 table entry " << i << ": " << table[i - vif::log2_table_first] << ", MPFR " << expected;
  }
  mpfr_clear(x);
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(table[0], 15u * 2048u);
  EXPECT_EQ(table[vif::log2_table_size - 1], 32768u);  // log2(65535) * 2048 = 32767.96
}

TEST(VifLog2Table, EntryRoundingIsExhaustiveOverItsFloats) {
  // Every float in [15, 16] (all values log2f can give for i in 32768..65535).
  mpfr_t x;
  mpfr_init2(x, 64);
  float f = 15.0f;
  unsigned n = 0;
  while (f <= 16.0f) {
    mpfr_set_flt(x, f, MPFR_RNDN);
    mpfr_mul_2ui(x, x, 11, MPFR_RNDN);
    const long expected = mpfr_round_to_long(x);
    ASSERT_EQ(vif::log2_table_entry_from_log2f(f), expected) << f;
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    ++b;
    std::memcpy(&f, &b, 4);
    ++n;
  }
  mpfr_clear(x);
  EXPECT_EQ(n, (1u << 20) + 1);
}

TEST(VifLog2, LookupsShiftToTheTopSixteenBits) {
  const std::uint16_t* table = vif::log2_table();
  // Powers of two are exact: 2048 * k.
  for (unsigned k = 17; k < 32; ++k) EXPECT_EQ(vif::log2_q11_u32(table, 1u << k), static_cast<std::int32_t>(2048 * k));
  for (unsigned k = 17; k < 64; ++k)
    EXPECT_EQ(vif::log2_q11_u64(table, std::uint64_t{1} << k), static_cast<std::int32_t>(2048 * k));
  // Lower bits are dropped: 0x2ffff >> 2 = 0xbfff.
  EXPECT_EQ(vif::log2_q11_u32(table, 0x2ffffu), table[0xbfff - 32768] + 2048 * 2);
  EXPECT_EQ(vif::log2_q11_u64(table, 0xffffffffffffffffULL), table[0xffff - 32768] + 2048 * 48);
}

// ---- the fp64 islands against MPFR ---------------------------------------------

// MPFR at 53 bits, rounding to nearest after each operation: the same IEEE
// double operations, evaluated independently.
struct Mpfr53 {
  mpfr_t a, b, c;
  Mpfr53() {
    mpfr_inits2(53, a, b, c, static_cast<mpfr_ptr>(nullptr));
  }
  ~Mpfr53() { mpfr_clears(a, b, c, static_cast<mpfr_ptr>(nullptr)); }
};

double ref_gain(Mpfr53& m, std::int32_t sigma12, std::int32_t sigma1_sq) {
  mpfr_set_si(m.a, sigma1_sq, MPFR_RNDN);
  mpfr_add_d(m.a, m.a, vif::gain_eps, MPFR_RNDN);
  mpfr_set_si(m.b, sigma12, MPFR_RNDN);
  mpfr_div(m.b, m.b, m.a, MPFR_RNDN);
  return mpfr_get_d(m.b, MPFR_RNDN);
}

// Truncation toward zero; the most negative integer when out of range.
std::int64_t ref_trunc(Mpfr53& m, mpfr_t x, int bits) {
  mpfr_trunc(m.c, x);
  const double lim = bits == 32 ? 2147483648.0 : 9223372036854775808.0;
  const std::int64_t indefinite = bits == 32 ? INT32_MIN : INT64_MIN;
  if (mpfr_cmp_d(m.c, lim) >= 0 || mpfr_cmp_d(m.c, -lim) < 0) return indefinite;
  return mpfr_get_sj(m.c, MPFR_RNDZ);
}

std::int64_t ref_residual(Mpfr53& m, std::int32_t sigma2_sq, double g, std::int32_t sigma12) {
  mpfr_set_d(m.a, g, MPFR_RNDN);
  mpfr_mul_si(m.a, m.a, sigma12, MPFR_RNDN);
  mpfr_set_si(m.b, sigma2_sq, MPFR_RNDN);
  mpfr_sub(m.b, m.b, m.a, MPFR_RNDN);
  return ref_trunc(m, m.b, 32);
}

std::int64_t ref_gain_sq(Mpfr53& m, double g, std::int32_t sigma1_sq) {
  mpfr_set_d(m.a, g, MPFR_RNDN);
  mpfr_mul(m.a, m.a, m.a, MPFR_RNDN);
  mpfr_mul_si(m.a, m.a, sigma1_sq, MPFR_RNDN);
  return ref_trunc(m, m.a, 64);
}

TEST(VifIslands, EqualMpfrOnRandomAndEdgeInputs) {
  Mpfr53 m;
  std::mt19937_64 rng(20240611);
  std::vector<std::int32_t> edges = {1, 2, 3, vif::sigma_nsq - 1, vif::sigma_nsq, vif::sigma_nsq + 1, 65535, 65536,
                                     1 << 20, (1 << 30) + 1, INT32_MAX - 1, INT32_MAX};
  std::vector<std::int32_t> signed_edges = edges;
  for (auto e : edges) signed_edges.push_back(-e);
  signed_edges.push_back(INT32_MIN);
  signed_edges.push_back(0);
  std::size_t n = 0, mismatches = 0;
  auto check = [&](std::int32_t s1, std::int32_t s2, std::int32_t s12) {
    ++n;
    const double g = vif::gain_f64(s12, s1);
    const double g_ref = ref_gain(m, s12, s1);
    bool ok = std::bit_cast<std::uint64_t>(g) == std::bit_cast<std::uint64_t>(g_ref);
    ok = ok && vif::residual_variance_i32(s2, g, s12) == ref_residual(m, s2, g, s12);
    for (double limit : {1.0, 1.2, 1.5, 100.0}) {
      const double gl = vif::min_gain(g, limit);
      ok = ok && vif::gain_sq_variance_i64(gl, s1) == ref_gain_sq(m, gl, s1);
    }
    if (!ok && ++mismatches <= 5) ADD_FAILURE() << "sigma1_sq " << s1 << " sigma2_sq " << s2 << " sigma12 " << s12;
  };
  // Edges: sigma1_sq >= sigma_nsq, sigma12 > 0 and sigma2_sq > 0 in the
  // feature; the islands are checked beyond that too.
  for (auto s1 : edges)
    for (auto s2 : signed_edges)
      for (auto s12 : signed_edges) check(s1, s2, s12);
  std::uniform_int_distribution<std::int32_t> any(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<std::int32_t> big(vif::sigma_nsq, INT32_MAX);
  std::uniform_int_distribution<int> bits(0, 31);
  for (int k = 0; k < 300000; ++k) {
    // Magnitudes spread over every exponent, and covariances near the
    // Cauchy-Schwarz bound, where the residual variance cancels.
    const std::int32_t s1 = static_cast<std::int32_t>(std::max<std::int64_t>(vif::sigma_nsq, big(rng) >> bits(rng)));
    const std::int32_t s2 = any(rng) >> bits(rng);
    std::int32_t s12 = any(rng) >> bits(rng);
    if (k % 2 == 0 && s2 > 0) {
      const double bound = static_cast<double>(s1) * static_cast<double>(s2);
      std::int64_t c = 1;
      while (static_cast<double>(c) * static_cast<double>(c) < bound && c < INT32_MAX / 2) c *= 2;
      s12 = static_cast<std::int32_t>(c - (any(rng) & 0xff));
    }
    check(s1, s2, s12);
  }
  EXPECT_EQ(mismatches, 0u) << " of " << n;
}

TEST(VifIslands, X86ConversionsOutOfRange) {
  EXPECT_EQ(vif::x86_trunc_i32(2147483647.9), INT32_MAX);
  EXPECT_EQ(vif::x86_trunc_i32(2147483648.0), INT32_MIN);
  EXPECT_EQ(vif::x86_trunc_i32(-2147483648.9), INT32_MIN);
  EXPECT_EQ(vif::x86_trunc_i32(-2147483649.0), INT32_MIN);
  EXPECT_EQ(vif::x86_trunc_i32(-1.9), -1);
  EXPECT_EQ(vif::x86_trunc_i32(std::numeric_limits<double>::quiet_NaN()), INT32_MIN);
  EXPECT_EQ(vif::x86_trunc_i64(9223372036854775808.0), INT64_MIN);
  EXPECT_EQ(vif::x86_trunc_i64(9223372036854774784.0), 9223372036854774784LL);
  EXPECT_EQ(vif::x86_trunc_i64(-9223372036854775808.0), INT64_MIN);
  EXPECT_EQ(vif::x86_trunc_i64(2.5), 2);
}

TEST(VifTail, ScaleScoreAndTotals) {
  vif::Residuals r;
  r.num_log = 2048 * 3;
  r.den_log = 2048 * 5;
  r.num_non_log = 16384 * 65025;
  r.den_non_log = 4;
  const vif::ScaleScore s = vif::scale_score(r);
  EXPECT_EQ(s.num, 3.0f + (4.0f - 1.0f));
  EXPECT_EQ(s.den, 9.0f);
  EXPECT_EQ(vif::scale_value(s), static_cast<double>(6.0f / 9.0f));
  const vif::ScaleScore scales[4] = {{1.0f, 2.0f}, {0.5f, 1.0f}, {0.25f, 0.5f}, {0.125f, 0.25f}};
  const vif::FrameTotals all = vif::frame_totals(scales, false);
  EXPECT_EQ(all.num, 1.875);
  EXPECT_EQ(all.den, 3.75);
  EXPECT_EQ(all.score, 0.5);
  const vif::FrameTotals skip = vif::frame_totals(scales, true);
  EXPECT_EQ(skip.num, 0.875);
  const vif::ScaleScore zero[4] = {};
  EXPECT_EQ(vif::frame_totals(zero, false).score, 1.0);
}

}  // namespace
}  // namespace exactvmaf::test
