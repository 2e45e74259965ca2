// float_motion against the golden numbers of upstream libvmaf
// (tests/golden/README.md, group float_motion of runs.json): every run bit
// for bit against R and plain upstream (no libm call) on every frame and
// pooled value, output names and order (motion3 at flush, force_zero's
// order), --subsample and --threads runs; thread invariance; the temporal
// tail against float_motion.c's extract/flush sequence written out here;
// option and format errors.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "exactvmaf/error.hpp"
#include "features/float_motion/float_motion_math.hpp"
#include "support/cli_run.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

const std::map<std::string, GoldenRun>& motion_runs() { return golden_runs_of("float_motion"); }
std::vector<GoldenCase> motion_cases() { return golden_cases_for(motion_runs()); }

class FloatMotionGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(FloatMotionGolden, EqualsRAndUpstreamBitForBit) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = motion_runs().at(gc.run);
  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  const auto up_path = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  const auto r = read_json(r_path);

  const RunResult ours = run_golden(*pair, run);
  ASSERT_EQ(r.at("frames").size(), (ours.frames + run.subsample - 1) / run.subsample);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_GT(vs_r.values, 0u);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;
  EXPECT_EQ(metric_names(ours), golden_metric_names(r_path));
  if (std::filesystem::exists(up_path)) {
    // Float sums and one division: measured, 0 of 2307 frame and 1896 pooled values differ.
    const GoldenComparison vs_up = compare_with_golden(read_json(up_path), ours, run.subsample);
    EXPECT_EQ(vs_up.differing, 0u) << "first: " << vs_up.first_difference;
    report_upstream_distance(gc, vs_up);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FloatMotionGolden, ::testing::ValuesIn(motion_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FloatMotionGolden);

TEST(FloatMotionGoldenSet, IsPresent) {
  // 8 runs on each of the 18 pairs, --subsample 2 and --threads 2 on c01.
  EXPECT_EQ(motion_runs().size(), 10u);
  EXPECT_EQ(motion_cases().size(), 146u);
}

TEST(FloatMotionThreads, SameBitsForEveryThreadCount) {
  for (const char* name : {"c02_175x97_8b_420", "c06_176x144_8b_444", "c07_64x48_16b_420", "s01_576x324_8b_420"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair) << name;
    expect_thread_invariant(*pair, {"float_motion"});
    expect_thread_invariant(*pair, {"float_motion=motion_add_uv=true:motion_blend_factor=0.5:motion_fps_weight=2"});
  }
}

// float_motion.c's sequence of writes, frame by frame, as upstream runs it:
// extract(i) computes score(i) (0 at frame 0), writes motion2[i-1] and
// motion3[i-1] from score2 = score(i-1) from frame 2 on, motion3[0] at frame
// 1; flush writes the last frame's (or motion3[0] = 0 for one frame).
void upstream_sequence(const std::vector<double>& score, const float_motion::TemporalOptions& o,
                       std::vector<double>& m2, std::vector<double>& m3) {
  const std::size_t n = score.size();
  m2.assign(n, -1);
  m3.assign(n, -1);
  auto clip = [&](double x) { return x < o.max_val ? x : o.max_val; };
  auto bl = [&](double x) { return float_motion::blend(x, o.blend_factor, o.blend_offset); };
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0) {
      m2[0] = 0;
      continue;
    }
    if (i == 1) {
      m3[0] = clip(bl(score[1] * o.fps_weight));
      continue;
    }
    double score2 = score[i - 1];
    score2 = score2 < score[i] ? score2 : score[i];
    m2[i - 1] = clip(score2 * o.fps_weight);
    m3[i - 1] = clip(bl(score2 * o.fps_weight));
  }
  if (n - 1 > 0) {
    m2[n - 1] = clip(score[n - 1] * o.fps_weight);
    m3[n - 1] = clip(bl(score[n - 1] * o.fps_weight));
  } else {
    m3[0] = 0;
  }
}

TEST(FloatMotionTemporal, EqualsUpstreamsWriteSequence) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 60.0);
  for (const auto& o : {float_motion::TemporalOptions{}, float_motion::TemporalOptions{2.5, 0.5, 1.5, 3.0},
                        float_motion::TemporalOptions{0.0, 0.0, 40.0, 10000.0}}) {
    for (std::size_t n = 1; n <= 9; ++n) {
      std::vector<double> score(n, 0.0);
      for (std::size_t i = 1; i < n; ++i) score[i] = u(rng);
      std::vector<double> want2, want3, got2(n), got3(n);
      upstream_sequence(score, o, want2, want3);
      float_motion::temporal_scores(score.data(), n, o, got2.data(), got3.data());
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_TRUE(same_bits(got2[i], want2[i])) << "n=" << n << " motion2[" << i << "]";
        EXPECT_TRUE(same_bits(got3[i], want3[i])) << "n=" << n << " motion3[" << i << "]";
      }
    }
  }
}

TEST(FloatMotionOptions, BadValuesAreOneLineErrors) {
  expect_one_line_error(cli(fixture_args("c01_176x144_8b_420") + " --feature float_motion=motion_filter_size=10"),
                        "out of range");
  expect_one_line_error(cli(fixture_args("c01_176x144_8b_420") + " --feature float_motion=motion_max_val=-1"),
                        "out of range");
  // Upstream halves 4:2:0 chroma with the wrong stride there.
  expect_one_line_error(cli(fixture_args("c01_176x144_8b_420") +
                            " --feature float_motion=motion_add_uv=true:motion_add_scale1=true"),
                        "motion_add_uv with motion_add_scale1 is only defined for 4:4:4 input");
  EXPECT_NO_THROW(run_fixture(*fixture_pair("c06_176x144_8b_444"),
                              {"float_motion=motion_add_uv=true:motion_add_scale1=true"}));
}

TEST(FloatMotionSize, RefusesPlanesBelowThreeSamplesAndChromaOf400) {
  auto run_synthetic = [](unsigned w, unsigned h, PixelFormat pf, const std::string& feature) {
    const VideoFormat fmt{w, h, pf, 8};
    auto fn = [](std::uint64_t f, unsigned, unsigned x, unsigned y) { return (x * 7 + y * 13 + f * 5) % 256u; };
    SyntheticReader ref("ref", fmt, 3, fn), dist("dist", fmt, 3, fn);
    std::vector<FeatureRequest> req{parse_feature_request(feature)};
    return run(ref, dist, std::move(req), {});
  };
  EXPECT_NO_THROW(run_synthetic(3, 3, PixelFormat::yuv444, "float_motion"));
  EXPECT_THROW(run_synthetic(2, 3, PixelFormat::yuv444, "float_motion"), Error);
  EXPECT_THROW(run_synthetic(6, 4, PixelFormat::yuv420, "float_motion=motion_add_uv=true"), Error);  // chroma 3x2
  EXPECT_NO_THROW(run_synthetic(6, 6, PixelFormat::yuv420, "float_motion=motion_add_uv=true"));
  try {
    run_synthetic(8, 8, PixelFormat::yuv400, "float_motion=motion_add_uv=true");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("motion_add_uv needs chroma planes"), std::string::npos) << e.what();
  }
  // Without motion_add_uv a 4:0:0 input is fine (luma only).
  const RunResult r = run_synthetic(8, 8, PixelFormat::yuv400, "float_motion");
  EXPECT_EQ(r.frames, 3u);
}

}  // namespace
}  // namespace exactvmaf::test
