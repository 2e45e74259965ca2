// float_ms_ssim against the golden numbers of upstream libvmaf
// (tests/golden/README.md, group float_ms_ssim of runs.json: the pairs of at
// least 176x176): every run bit for bit against R and against plain upstream
// (glibc's pow and log10 gave R's bits on every call here), output names and
// order, thread invariance, option errors and the refusal below 176x176; the
// CPU's low-pass decimation against the per-sample function a device runs.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "features/float_ms_ssim/float_ms_ssim_math.hpp"
#include "numeric/fp32pair.hpp"
#include "numeric/sf64.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/cli_run.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

const std::map<std::string, GoldenRun>& ms_runs() { return golden_runs_of("float_ms_ssim"); }
std::vector<GoldenCase> ms_cases() { return golden_cases_for(ms_runs()); }

class FloatMsSsimGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(FloatMsSsimGolden, EqualsRAndUpstreamBitForBit) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = ms_runs().at(gc.run);
  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  const auto up_path = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(up_path)) << up_path;

  const RunResult ours = run_golden(*pair, run);
  const auto r = read_json(r_path);
  ASSERT_EQ(r.at("frames").size(), ours.frames);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_GT(vs_r.values, 0u);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;
  EXPECT_EQ(metric_names(ours), golden_metric_names(r_path));

  // Measured: the two goldens are identical for every run of the group.
  const GoldenComparison vs_up = compare_with_golden(read_json(up_path), ours, run.subsample);
  EXPECT_EQ(vs_up.differing, 0u) << "first: " << vs_up.first_difference;
  report_upstream_distance(gc, vs_up);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FloatMsSsimGolden, ::testing::ValuesIn(ms_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FloatMsSsimGolden);

TEST(FloatMsSsimGoldenSet, IsPresent) {
  // 4 runs on each of the 4 pairs upstream accepts (an empty set fails here).
  EXPECT_EQ(ms_runs().size(), 4u);
  EXPECT_EQ(ms_cases().size(), 16u);
  for (const char* pair : {"s01_576x324_8b_420", "s04_320x320_8b_444", "b01_320x240_10b_420", "b02_1920x1080_8b_420"})
    for (const auto& [run, _] : ms_runs())
      EXPECT_TRUE(std::filesystem::exists(golden_dir() / "r" / pair / (run + ".json"))) << pair << "/" << run;
}

TEST(FloatMsSsimThreads, SameBitsForEveryThreadCount) {
  for (const char* name : {"s01_576x324_8b_420", "s04_320x320_8b_444", "b01_320x240_10b_420"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair) << name;
    expect_thread_invariant(*pair, {"float_ms_ssim=enable_lcs=true"});
    expect_thread_invariant(*pair, {"float_ms_ssim=enable_db=true:clip_db=true"});
  }
}

// ---- errors ---------------------------------------------------------------------

TEST(FloatMsSsimOptions, BadValuesAreOneLineErrors) {
  const std::map<std::string, std::string> bad = {
      {"float_ms_ssim=enable_lcs=1", "not a boolean"},
      {"float_ms_ssim=enable_db=on", "not a boolean"},
      {"float_ms_ssim=clip_db=", "not a boolean"},
      {"float_ms_ssim=scale=2", "unknown option"},  // float_ssim's, not float_ms_ssim's
  };
  for (const auto& [arg, why] : bad) {
    try {
      parse_feature_request(arg);
      ADD_FAILURE() << arg << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << arg << ": " << e.what();
    }
    expect_one_line_error(cli(fixture_args("s01_576x324_8b_420") + " --frame_cnt 1 --feature '" + arg + "'"), why);
  }
}

// Upstream prints "error: scale below 1x1!" and fails every frame below
// 176 in width or height (its check halves rounding down; the scales round up).
TEST(FloatMsSsimSize, RefusesBelow176) {
  const auto c01 = fixture_pair("c01_176x144_8b_420");
  ASSERT_TRUE(c01);
  try {
    run_fixture(*c01, {"float_ms_ssim"});
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("float_ms_ssim"), std::string::npos) << m;
    EXPECT_NE(m.find("176x144"), std::string::npos) << m;
    EXPECT_NE(m.find("at least 176x176"), std::string::npos) << m;
  }
  expect_one_line_error(cli(fixture_args("c02_175x97_8b_420") + " --feature float_ms_ssim"),
                        "the luma plane is 175x97; MS-SSIM's 5 scales need at least 176x176");

  auto runs = [](unsigned w, unsigned h) {
    const VideoFormat fmt{w, h, PixelFormat::yuv420, 10};
    auto fn = [](std::uint64_t, unsigned, unsigned x, unsigned y) { return (x * 37 + y * 11) % 1024u; };
    SyntheticReader ref("ref", fmt, 1, fn),
        dist("dist", fmt, 1, [&](std::uint64_t f, unsigned p, unsigned x, unsigned y) { return fn(f, p, x, y) ^ 3u; });
    std::vector<FeatureRequest> req{parse_feature_request("float_ms_ssim=enable_lcs=true")};
    try {
      const RunResult r = run(ref, dist, std::move(req), {});
      const auto id = r.scores.find_metric("float_ms_ssim");
      return id && std::isfinite(*r.scores.get(*id, 0));
    } catch (const Error&) {
      return false;
    }
  };
  EXPECT_TRUE(runs(176, 176));  // scales 176, 88, 44, 22, 11
  EXPECT_TRUE(runs(177, 351));
  EXPECT_FALSE(runs(175, 176));
  EXPECT_FALSE(runs(176, 175));
  for (unsigned w = 11; w < 176; w += 11) EXPECT_FALSE(float_ms_ssim::scales_fit(static_cast<int>(w), 1000)) << w;
  for (unsigned w = 176; w < 600; w += 7) EXPECT_TRUE(float_ms_ssim::scales_fit(static_cast<int>(w), 176)) << w;
}

// ---- arithmetic --------------------------------------------------------------------

// The low-pass decimation's loops (phases, eight outputs side by side, the
// row cache) against the per-sample function, one output at a time, with
// R's double and with Sf64 (the fp64-free device variant).
TEST(FloatMsSsimDecimation, PlaneEqualsPerSample) {
  std::mt19937 rng(3);
  rmath::Fp32PairArith pairs;  // islands and replays of the pair-first sums
  std::uniform_int_distribution<int> v(0, 65535);
  ssim::DecimateScratch scratch;
  for (int w : {11, 12, 22, 23, 88, 89, 176, 177, 181})
    for (int h : {11, 12, 44, 45, 97}) {
      std::vector<float> img(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
      for (auto& s : img) s = static_cast<float>(v(rng)) / 256.0f;
      const int sw = ssim::decimated_size(w, 2), sh = ssim::decimated_size(h, 2);
      std::vector<float> out(static_cast<std::size_t>(sw) * static_cast<std::size_t>(sh));
      ssim::decimate_plane(float_ms_ssim::LpfTaps{}, float_ms_ssim::lpf_len, 2, img.data(), w, h, out.data(), scratch);
      for (int y = 0; y < sh; ++y)
        for (int x = 0; x < sw; ++x) {
          ASSERT_TRUE(same_bits(out[static_cast<std::size_t>(y * sw + x)],
                                float_ms_ssim::decimated_sample(img.data(), w, h, x, y)))
              << w << "x" << h << " at " << x << "," << y;
          // The fp64-free device variant's sum, in Sf64 and on pairs first
          // (with the Sf64 replay): the same bits.
          ASSERT_TRUE(same_bits(out[static_cast<std::size_t>(y * sw + x)],
                                float_ms_ssim::decimated_sample(img.data(), w, h, x, y, rmath::Sf64Policy{})))
              << w << "x" << h << " at " << x << "," << y << " (Sf64)";
          const float from_pairs =
              pairs.island([&](auto& f) { return float_ms_ssim::decimated_sample(img.data(), w, h, x, y, f); });
          ASSERT_TRUE(same_bits(out[static_cast<std::size_t>(y * sw + x)], from_pairs))
              << w << "x" << h << " at " << x << "," << y << " (pairs)";
        }
    }
  std::printf("[ fp32pair ] low-pass decimation: %u pair islands, %u replayed\n", pairs.islands, pairs.replays);
  EXPECT_GT(pairs.islands, 10000u);
  EXPECT_LE(static_cast<double>(pairs.replays), 1e-4 * static_cast<double>(pairs.islands));
}

// pow(x, 0) is 1 for every x, NaN included (C99 F.9.4.4): the first four
// scales' l means never reach the product.
TEST(FloatMsSsimMath, ZeroExponentIgnoresTheLuminanceMean) {
  ssim::Means m;
  m.c = 0.75f;
  m.s = 0.5f;
  for (float l : {0.9f, 0.0f, -0.5f, std::numeric_limits<float>::quiet_NaN()}) {
    m.l = l;
    const double want = 2.0 * (rmath::cr_pow(0.75, static_cast<double>(0.0448f)) *
                               rmath::cr_pow(0.5, static_cast<double>(0.0448f)));
    EXPECT_TRUE(same_bits(float_ms_ssim::combine(2.0, m, 0), want)) << l;
  }
  m.l = 0.9f;
  EXPECT_NE(float_ms_ssim::combine(1.0, m, 4), float_ms_ssim::combine(1.0, ssim::Means{0, 0.8f, 0.75f, 0.5f}, 4));
}

}  // namespace
}  // namespace exactvmaf::test
