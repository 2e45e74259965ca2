// Integer motion against the golden numbers of upstream libvmaf
// (tests/golden/README.md, runs motion*): bit for bit against R and against
// plain upstream (motion calls no libm function), output names and order,
// thread invariance, and the blur on hand-computed frames.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/simd.hpp"
#include "features/motion/motion_math.hpp"
#include "features/motion/motion_simd.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/simd_check.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

// Golden run name -> --feature arguments and run options, as in
// tools/fixtures/run_goldens.py.
using MotionRun = GoldenRun;

using MotionCase = GoldenCase;

std::vector<MotionCase> motion_cases() { return golden_cases_for(motion_golden_runs()); }

class MotionGolden : public ::testing::TestWithParam<MotionCase> {};

TEST_P(MotionGolden, EqualsRAndUpstreamBitForBit) {
  const auto& mc = GetParam();
  const auto pair = fixture_pair(mc.pair);
  ASSERT_TRUE(pair) << mc.pair << " missing from tests/fixtures/manifest.json";
  const MotionRun& run = motion_golden_runs().at(mc.run);
  const RunResult ours = run_golden(*pair, run);

  const auto r_path = golden_dir() / "r" / mc.pair / (mc.run + ".json");
  const auto r = read_json(r_path);
  ASSERT_EQ(r.at("frames").size(), (ours.frames + run.subsample - 1) / run.subsample);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;

  // Same names in libvmaf's order, nothing more.
  std::vector<std::string> names;
  for (std::size_t id = 0; id < ours.scores.metric_count(); ++id) names.push_back(ours.scores.metric_name(id));
  EXPECT_EQ(names, golden_metric_names(r_path));

  const auto upstream_path = golden_dir() / "upstream" / mc.pair / (mc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(upstream_path));
  const GoldenComparison vs_up = compare_with_golden(read_json(upstream_path), ours, run.subsample);
  // Motion is integers and plain double arithmetic: no libm in the way.
  EXPECT_EQ(vs_up.differing, 0u) << "first: " << vs_up.first_difference;
  std::printf("[ distance ] %s/%s: %zu of %zu values differ from upstream\n", mc.pair.c_str(), mc.run.c_str(),
              vs_up.differing, vs_up.values);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MotionGolden, ::testing::ValuesIn(motion_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MotionGolden);

TEST(MotionGoldenSet, IsPresent) {
  // 8 runs on each pair, 5 more on c01; an empty set would pass vacuously.
  EXPECT_EQ(motion_cases().size(), fixture_pairs().size() * 8u + 5u);
}

TEST(MotionThreads, SameBitsForEveryThreadCount) {
  for (const auto& pair : fixture_pairs()) {
    expect_thread_invariant(pair, {"motion=debug=true"});
    expect_thread_invariant(pair, {"motion=motion_five_frame_window=true:motion_moving_average=true:debug=true"});
  }
}

// ---- names ------------------------------------------------------------------

std::string name_under(const std::string& request, const std::string& base) {
  const FeatureRequest r = parse_feature_request(request);
  return feature_output_name(base, r.options);
}

TEST(MotionNames, SuffixRule) {
  EXPECT_EQ(name_under("motion", "integer_motion2"), "integer_motion2");
  // Sorted by option name, whatever the order given; reals as %g.
  EXPECT_EQ(name_under("motion=motion_max_val=3:motion_fps_weight=2.5", "integer_motion3"),
            "integer_motion3_mfw_2.5_mmxv_3");
  EXPECT_EQ(name_under("motion=motion_blend_offset=1.50:motion_blend_factor=0.5", "x"), "x_mbf_0.5_mbo_1.5");
  // Booleans add their key alone; the non-parameter option debug adds nothing.
  EXPECT_EQ(name_under("motion=motion_moving_average=true:debug=true:motion_force_zero=true", "x"), "x_force_0_mma");
  // A value equal to the default adds nothing.
  EXPECT_EQ(name_under("motion=motion_blend_factor=1:motion_five_frame_window=false", "x"), "x");
  EXPECT_EQ(name_under("motion=motion_blend_offset=0.0001", "x"), "x_mbo_0.0001");
  EXPECT_EQ(name_under("motion=motion_blend_offset=0.00001", "x"), "x_mbo_1e-05");
}

TEST(MotionOptions, RangesAreChecked) {
  EXPECT_THROW(parse_feature_request("motion=motion_blend_factor=1.5"), Error);
  EXPECT_THROW(parse_feature_request("motion=motion_fps_weight=6"), Error);
  EXPECT_THROW(parse_feature_request("motion=motion_max_val=-1"), Error);
  EXPECT_THROW(parse_feature_request("motion=motion_five_frame_window=1"), Error);
  EXPECT_NO_THROW(parse_feature_request("motion=motion_blend_offset=1000"));
}

// ---- the blur, by hand ------------------------------------------------------

using Plane8 = std::array<std::uint8_t, 64>;

std::uint64_t sad8x8(const Plane8& earlier, const Plane8& current) {
  std::int32_t y_row[8];
  return motion::frame_sad(earlier.data(), 8, current.data(), 8, 8, 8, 8, y_row);
}

Plane8 impulse(unsigned row, unsigned col, std::uint8_t v) {
  Plane8 p{};
  p[row * 8 + col] = v;
  return p;
}

TEST(MotionBlur, HandComputedImpulses) {
  // A difference of 100 at (0,0). Vertical taps reaching row 0 after
  // mirroring: row 0 (tap 26386), row 1 (16004), row 2 (3571):
  // (100 * tap + 128) >> 8 = 10307, 6252, 1395.
  std::int32_t y_row[8];
  const Plane8 corner = impulse(0, 0, 100), zero{};
  const std::int32_t column0[3] = {10307, 6252, 1395};
  for (unsigned i = 0; i < 8; ++i) {
    motion::vertical_row(corner.data(), 8, zero.data(), 8, 8, 8, i, 8, y_row);
    EXPECT_EQ(y_row[0], i < 3 ? column0[i] : 0) << "row " << i;
    for (unsigned j = 1; j < 8; ++j) EXPECT_EQ(y_row[j], 0);
  }
  // Horizontally, (v * tap + 32768) >> 16 for columns 0, 1, 2:
  // row 0: 4150 + 2517 + 562, row 1: 2517 + 1527 + 341, row 2: 562 + 341 + 76.
  const std::int32_t row0[8] = {10307, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(motion::horizontal_row_sad(row0, 8), 4150u + 2517u + 562u);
  EXPECT_EQ(sad8x8(corner, zero), 7229u + 4385u + 979u);  // 12593
  // The opposite sign floors the other way but gives the same magnitudes here.
  EXPECT_EQ(sad8x8(zero, corner), 12593u);
  // The far corner mirrors as 2 * size - idx - 2 (upstream's CPU rule since
  // April 2026; the older 2 * size - idx - 1 would count the edge twice).
  EXPECT_EQ(sad8x8(impulse(7, 7, 100), zero), 12593u);
  // Inside, all five taps each way: 1395 + 6252 + 10307 + 6252 + 1395 vertically.
  EXPECT_EQ(sad8x8(impulse(3, 4, 100), zero), 25606u);
  EXPECT_EQ(sad8x8(zero, zero), 0u);
}

TEST(MotionBlur, HighBitDepthShiftsByBitDepth) {
  std::array<std::uint16_t, 64> earlier{}, zero{};
  earlier[63] = 1000;
  std::int32_t y_row[8];
  // 10-bit: (1000 * 26386 + 512) >> 10 = 25767.9 -> 25768 at the corner row.
  motion::vertical_row(earlier.data(), 8, zero.data(), 8, 8, 8, 7, 10, y_row);
  EXPECT_EQ(y_row[7], 25768);
  EXPECT_EQ(motion::frame_sad(earlier.data(), 8, zero.data(), 8, 8, 8, 10, y_row), 31480u);
}

TEST(MotionTail, TemporalScores) {
  const double score[4] = {0., 2., 1., 3.};
  double m2[4], m3[4];
  motion::TemporalOptions o;
  motion::temporal_scores(score, 4, o, m2, m3);
  // motion2 = min(own, next); the last frame keeps its own score.
  EXPECT_EQ(m2[0], 0.);
  EXPECT_EQ(m2[1], 1.);
  EXPECT_EQ(m2[2], 1.);
  EXPECT_EQ(m2[3], 3.);
  // motion3 of frame 0 = frame 1's blended score.
  EXPECT_EQ(m3[0], 2.);
  EXPECT_EQ(m3[3], 3.);
  o.moving_average = true;
  motion::temporal_scores(score, 4, o, m2, m3);
  EXPECT_EQ(m3[1], (1. + 2.) / 2.);
  EXPECT_EQ(m3[3], (3. + 1.) / 2.);
}

// ---- SIMD kernels -----------------------------------------------------------

// Every entry of every SIMD table (the SAD) equals the scalar entry on random
// frames of many widths, bit depths and strides, including extreme
// differences (0 against the maximum); the harness fails if an entry is left
// out.
TEST(MotionSimd, EveryEntryEqualsScalar) {
  KernelTableCheck<motion::Kernels> check(&motion::kernels_for);
  if (!check.has_simd()) GTEST_SKIP() << "no SIMD level on this CPU";
  std::mt19937_64 rng(7);
  std::size_t cases = 0;
  for (unsigned bpc : {8u, 10u, 12u, 14u, 16u}) {
    const unsigned maxv = (1u << bpc) - 1;
    for (unsigned w : {3u, 4u, 5u, 11u, 12u, 15u, 16u, 17u, 31u, 33u, 64u, 97u, 333u}) {
      for (unsigned h : {3u, 4u, 7u}) {
        for (int mode = 0; mode < 3; ++mode) {  // random, extremes, near-equal
          const std::size_t stride = w + (rng() % 5);
          std::vector<std::uint16_t> a(stride * h), b(stride * h);
          for (std::size_t k = 0; k < a.size(); ++k) {
            if (mode == 0) {
              a[k] = static_cast<std::uint16_t>(rng() % (maxv + 1));
              b[k] = static_cast<std::uint16_t>(rng() % (maxv + 1));
            } else if (mode == 1) {
              a[k] = static_cast<std::uint16_t>((rng() & 1) ? maxv : 0);
              b[k] = static_cast<std::uint16_t>(maxv - a[k]);
            } else {
              a[k] = static_cast<std::uint16_t>(rng() % (maxv + 1));
              b[k] = static_cast<std::uint16_t>(std::min<unsigned>(maxv, a[k] + (rng() % 3)));
            }
          }
          const std::string what = fmt::format("bpc {} w {} h {} mode {}", bpc, w, h, mode);
          const auto s = static_cast<std::ptrdiff_t>(stride);
          if (bpc == 8) {
            const std::vector<std::uint8_t> a8(a.begin(), a.end()), b8(b.begin(), b.end());
            ASSERT_TRUE(check.check("frame_sad_u8", &motion::Kernels::frame_sad_u8, what, [&](auto fn) {
              std::vector<std::int32_t> y(w);
              return fn(a8.data(), s, b8.data(), s, w, h, y.data());
            }));
          } else {
            ASSERT_TRUE(check.check("frame_sad_u16", &motion::Kernels::frame_sad_u16, what, [&](auto fn) {
              std::vector<std::int32_t> y(w);
              return fn(a.data(), s, b.data(), s, w, h, bpc, y.data());
            }));
          }
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(cases, 5u * 13u * 3u * 3u);
}

// The whole feature gives the same bits with SIMD off (--simd scalar).
TEST(MotionSimd, ScalarSwitchGivesSameBits) {
  const auto pair = fixture_pair("c01_176x144_8b_420");
  ASSERT_TRUE(pair);
  const RunResult simd = run_fixture(*pair, {"motion=debug=true"}, {});
  set_simd_limit(SimdLevel::scalar);
  const RunResult scalar = run_fixture(*pair, {"motion=debug=true"}, {});
  set_simd_limit(SimdLevel::avx512);
  ASSERT_EQ(simd.frames, scalar.frames);
  for (std::size_t id = 0; id < simd.scores.metric_count(); ++id)
    for (std::uint64_t f = 0; f < simd.frames; ++f)
      ASSERT_TRUE(same_bits(*simd.scores.get(id, f), *scalar.scores.get(id, f))) << f;
}

// ---- the pipeline on synthetic frames --------------------------------------

TEST(MotionPipeline, SyntheticImpulse) {
  const VideoFormat fmt{8, 8, PixelFormat::yuv420, 8};
  // Frame 0 black, frame 1 with one bright sample, frame 2 black again.
  auto fn = [](std::uint64_t frame, unsigned plane, unsigned x, unsigned y) -> unsigned {
    return plane == 0 && frame == 1 && x == 4 && y == 3 ? 100u : 0u;
  };
  SyntheticReader ref("ref", fmt, 3, fn), dist("dist", fmt, 3, [](auto...) { return 0u; });
  std::vector<FeatureRequest> req{parse_feature_request("motion=debug=true")};
  const RunResult r = run(ref, dist, std::move(req), {});
  ASSERT_EQ(r.frames, 3u);
  const auto sad = r.scores.find_metric("VMAF_integer_feature_motion_sad_score");
  ASSERT_TRUE(sad);
  const double expected = 25606. / 256. / 64.;
  EXPECT_EQ(*r.scores.get(*sad, 0), 0.);
  EXPECT_EQ(*r.scores.get(*sad, 1), expected);
  EXPECT_EQ(*r.scores.get(*sad, 2), expected);
  const auto m2 = r.scores.find_metric("integer_motion2");
  ASSERT_TRUE(m2);
  EXPECT_EQ(*r.scores.get(*m2, 2), expected);
}

TEST(MotionPipeline, TooSmallPictureIsAnError) {
  const VideoFormat fmt{2, 8, PixelFormat::yuv444, 8};
  SyntheticReader ref("ref", fmt, 2, [](auto...) { return 0u; }), dist("dist", fmt, 2, [](auto...) { return 0u; });
  std::vector<FeatureRequest> req{parse_feature_request("motion")};
  EXPECT_THROW(run(ref, dist, std::move(req), {}), Error);
}

}  // namespace
}  // namespace exactvmaf::test
