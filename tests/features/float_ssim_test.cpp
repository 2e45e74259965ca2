// float_ssim against the golden numbers of upstream libvmaf (tests/golden/README.md,
// group float_ssim of runs.json): every run bit for bit against R on every
// frame and pooled value, output names and order, the distance to plain
// upstream as the goldens measure it, thread invariance, option errors and
// the refusal of planes smaller than the window after decimation; the CPU's
// loops against the per-sample functions a device runs, and the in-place
// decimation of upstream against ours.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "features/float_ssim/float_ssim_math.hpp"
#include "numeric/fp32pair.hpp"
#include "numeric/sf64.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/cli_run.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

const std::map<std::string, GoldenRun>& ssim_runs() { return golden_runs_of("float_ssim"); }
std::vector<GoldenCase> ssim_cases() { return golden_cases_for(ssim_runs()); }
bool is_db_run(const std::string& run) { return run.find("_db") != std::string::npos; }

class FloatSsimGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(FloatSsimGolden, EqualsRBitForBitAndMeasuresUpstream) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = ssim_runs().at(gc.run);
  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  const auto up_path = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(up_path)) << up_path;
  const auto r = read_json(r_path);
  const auto up = read_json(up_path);

  const RunResult ours = run_golden(*pair, run);
  ASSERT_EQ(r.at("frames").size(), ours.frames);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_GT(vs_r.values, 0u);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;
  EXPECT_EQ(metric_names(ours), golden_metric_names(r_path));

  // The distance to plain upstream (glibc's log10 in the dB runs) is the
  // distance between the two goldens: measured there, asserted here.
  const GoldenComparison vs_up = compare_with_golden(up, ours, run.subsample);
  const FileDistance files = file_distance(r, up);
  EXPECT_EQ(vs_up.differing, files.frame_differing + files.pooled_differing) << "first: " << vs_up.first_difference;
  EXPECT_EQ(vs_up.max_ulps, files.max_ulps);
  if (!is_db_run(gc.run)) {
    EXPECT_EQ(vs_up.differing, 0u) << "no libm call outside the dB form";
  }
  report_upstream_distance(gc, vs_up);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FloatSsimGolden, ::testing::ValuesIn(ssim_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FloatSsimGolden);

TEST(FloatSsimGoldenSet, IsPresent) {
  // 6 runs on each of the 18 pairs, float_ssim_scale1 on b02 (an empty or
  // shrunken set fails here).
  EXPECT_EQ(ssim_runs().size(), 7u);
  EXPECT_EQ(fixture_pairs().size(), 18u);
  EXPECT_EQ(ssim_cases().size(), 18u * 6u + 1u);
  for (const auto& [run, _] : ssim_runs()) {
    std::size_t n = 0;
    for (const auto& c : ssim_cases()) n += c.run == run ? 1 : 0;
    EXPECT_GE(n, 1u) << run;
  }
}

// Upstream vs R over the group, from the goldens (tests/golden/README.md):
// only the dB runs differ, through glibc's log10, by a few ulp.
TEST(FloatSsimGoldenSet, UpstreamDistanceAsMeasured) {
  FileDistance all, db;
  for (const auto& c : ssim_cases()) {
    const auto d = file_distance(read_json(golden_dir() / "r" / c.pair / (c.run + ".json")),
                                 read_json(golden_dir() / "upstream" / c.pair / (c.run + ".json")));
    for (FileDistance* t : {&all, is_db_run(c.run) ? &db : nullptr}) {
      if (!t) continue;
      t->frame_values += d.frame_values;
      t->frame_differing += d.frame_differing;
      t->pooled_values += d.pooled_values;
      t->pooled_differing += d.pooled_differing;
      t->max_abs = std::max(t->max_abs, d.max_abs);
      t->max_ulps = std::max(t->max_ulps, d.max_ulps);
    }
  }
  std::printf("[ distance ] float_ssim: %zu of %zu frame values and %zu of %zu pooled values differ from upstream "
              "(max %.3g, %lld ulp)\n",
              all.frame_differing, all.frame_values, all.pooled_differing, all.pooled_values, all.max_abs,
              static_cast<long long>(all.max_ulps));
  EXPECT_EQ(all.frame_values, 1046u);
  EXPECT_EQ(all.frame_differing, 16u);
  EXPECT_EQ(all.pooled_values, 868u);
  EXPECT_EQ(all.pooled_differing, 10u);
  EXPECT_EQ(db.frame_differing, all.frame_differing);
  EXPECT_EQ(db.pooled_differing, all.pooled_differing);
  EXPECT_LE(all.max_abs, 1.8e-15);
  EXPECT_EQ(all.max_ulps, 2);
}

TEST(FloatSsimThreads, SameBitsForEveryThreadCount) {
  for (const char* name : {"c01_176x144_8b_420", "c02_175x97_8b_420", "b01_320x240_10b_420", "s01_576x324_8b_420"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair) << name;
    expect_thread_invariant(*pair, {"float_ssim=enable_lcs=true"});
    expect_thread_invariant(*pair, {"float_ssim=scale=3:enable_lcs=true:enable_db=true:clip_db=true"});
  }
}

// ---- errors ---------------------------------------------------------------------

TEST(FloatSsimOptions, OutOfRangeAndBadTypeAreOneLineErrors) {
  const std::map<std::string, std::string> bad = {
      {"float_ssim=scale=11", "out of range"},      {"float_ssim=scale=-1", "out of range"},
      {"float_ssim=scale=two", "not an integer"},   {"float_ssim=scale=2.5", "not an integer"},
      {"float_ssim=enable_lcs=1", "not a boolean"}, {"float_ssim=enable_db=yes", "not a boolean"},
      {"float_ssim=clip_db=TRUE", "not a boolean"}, {"float_ssim=scales=2", "unknown option"},
  };
  for (const auto& [arg, why] : bad) {
    try {
      parse_feature_request(arg);
      ADD_FAILURE() << arg << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << arg << ": " << e.what();
    }
    expect_one_line_error(cli(fixture_args("c01_176x144_8b_420") + " --feature '" + arg + "'"), why);
  }
  // The whole range is accepted.
  for (int s = 0; s <= 10; ++s) EXPECT_NO_THROW(parse_feature_request(fmt::format("float_ssim=scale={}", s)));
}

// The decimated plane must hold the 11x11 window; upstream then scores no
// pixel and prints 0, -0 or NaN without a word (no golden has such a run).
TEST(FloatSsimSize, RefusesPlanesSmallerThanTheWindow) {
  const auto c07 = fixture_pair("c07_64x48_16b_420");
  ASSERT_TRUE(c07);
  try {
    run_fixture(*c07, {"float_ssim=scale=5"});  // 64x48 -> 12x9
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("float_ssim"), std::string::npos) << m;
    EXPECT_NE(m.find("64x48 luma plane is 12x9 after decimation by scale 5"), std::string::npos) << m;
    EXPECT_NE(m.find("at least 11x11"), std::string::npos) << m;
    EXPECT_NE(m.find("55x55"), std::string::npos) << m;
  }
  expect_one_line_error(cli(fixture_args("c07_64x48_16b_420") + " --feature float_ssim=scale=10"),
                        "is 6x4 after decimation by scale 10");
  EXPECT_NO_THROW(run_fixture(*c07, {"float_ssim=scale=4"}));  // 16x12

  // Synthetic planes at the edge: scale 1 (automatic below 384) needs 11x11;
  // at scale 3 an odd width gets one more column (31 -> 11, 32 -> 10, 33 -> 11).
  auto runs = [](unsigned w, unsigned h, const std::string& feature) {
    const VideoFormat fmt{w, h, PixelFormat::yuv444, 8};
    auto fn = [](std::uint64_t f, unsigned, unsigned x, unsigned y) { return (x * 7 + y * 13 + f) % 256u; };
    SyntheticReader ref("ref", fmt, 2, fn), dist("dist", fmt, 2, [&](std::uint64_t f, unsigned p, unsigned x,
                                                                    unsigned y) { return (fn(f, p, x, y) + x % 3) % 256u; });
    std::vector<FeatureRequest> req{parse_feature_request(feature)};
    try {
      const RunResult r = run(ref, dist, std::move(req), {});
      const auto id = r.scores.find_metric("float_ssim");
      return id && std::isfinite(*r.scores.get(*id, 0));
    } catch (const Error&) {
      return false;
    }
  };
  EXPECT_TRUE(runs(11, 11, "float_ssim"));
  EXPECT_FALSE(runs(10, 11, "float_ssim"));
  EXPECT_FALSE(runs(11, 10, "float_ssim"));
  EXPECT_FALSE(runs(1, 1, "float_ssim"));
  EXPECT_TRUE(runs(31, 33, "float_ssim=scale=3"));
  EXPECT_FALSE(runs(32, 33, "float_ssim=scale=3"));
  EXPECT_TRUE(runs(33, 33, "float_ssim=scale=3"));
}

// ---- the CPU's loops against the per-sample functions --------------------------------

std::vector<float> random_plane(int w, int h, std::mt19937& rng, int kind) {
  std::vector<float> p(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
  std::uniform_int_distribution<int> v8(0, 255), v16(0, 65535), flat(0, 9);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float& s = p[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)];
      switch (kind) {
        case 0: s = static_cast<float>(v8(rng)); break;
        case 1: s = static_cast<float>(v16(rng)) / 256.0f; break;                   // 16-bit input
        case 2: s = flat(rng) == 0 ? static_cast<float>(v8(rng)) : 128.0f; break;  // mostly flat
        default: s = static_cast<float>((x / 4 + y / 3) % 2 ? 235 : 16); break;     // blocks
      }
    }
  return p;
}

// Upstream's _iqa_decimate writes each output over the plane it reads (in
// place, raster order). Ours writes a second buffer: the same values for
// every size and factor, because no sample is overwritten before its last read.
TEST(FloatSsimDecimation, InPlaceEqualsSeparateBufferAndPerSample) {
  std::mt19937 rng(7);
  ssim::DecimateScratch scratch;
  std::size_t planes = 0;
  for (int factor = 2; factor <= 10; ++factor)
    for (int w : {10 * factor - 1, 10 * factor, 11 * factor, 11 * factor + 1, 13 * factor + 3, 64})
      for (int h : {10 * factor + 1, 11 * factor, 12 * factor + 5}) {
        if (ssim::decimated_size(w, factor) < 1 || ssim::decimated_size(h, factor) < 1) continue;
        const auto img = random_plane(w, h, rng, planes % 4 == 1 ? 1 : 0);
        const int sw = ssim::decimated_size(w, factor), sh = ssim::decimated_size(h, factor);
        std::vector<float> ours(static_cast<std::size_t>(sw) * static_cast<std::size_t>(sh));
        ssim::decimate_plane(float_ssim::BoxTaps(factor), factor, factor, img.data(), w, h, ours.data(), scratch);
        std::vector<float> in_place = img;
        for (int y = 0; y < sh; ++y)
          for (int x = 0; x < sw; ++x)
            in_place[static_cast<std::size_t>(y * sw + x)] =
                float_ssim::decimated_sample(in_place.data(), w, h, factor, x, y);
        for (int y = 0; y < sh; ++y)
          for (int x = 0; x < sw; ++x) {
            const auto i = static_cast<std::size_t>(y * sw + x);
            const float sample = float_ssim::decimated_sample(img.data(), w, h, factor, x, y);
            ASSERT_TRUE(same_bits(ours[i], sample)) << w << "x" << h << " f " << factor << " at " << x << "," << y;
            ASSERT_TRUE(same_bits(ours[i], in_place[i])) << w << "x" << h << " f " << factor << " at " << x << "," << y;
          }
        ++planes;
      }
  EXPECT_GT(planes, 100u);
}

// SsimRows (the streaming loops) against the per-sample functions applied
// one output at a time, as a device would: same means, bit for bit.
TEST(FloatSsimRows, EqualPerSampleFunctions) {
  std::mt19937 rng(11);
  ssim::SsimRows rows;
  for (auto [w, h] : {std::pair{11, 11}, {12, 17}, {64, 48}, {175, 97}, {33, 200}})
    for (int kind = 0; kind < 4; ++kind) {
      const auto a = random_plane(w, h, rng, kind);
      auto b = random_plane(w, h, rng, kind);
      if (kind == 2)  // identical flat areas: sigma_ab below 0 with sigma_a sigma_b = 0
        for (std::size_t i = 0; i < b.size(); ++i)
          if (i % 3) b[i] = a[i];
      const ssim::Means got = rows.run(a.data(), b.data(), w, h, true);

      const int dw = ssim::windowed_size(w), dh = ssim::windowed_size(h);
      std::vector<float> hor(static_cast<std::size_t>(ssim::map_count) * static_cast<std::size_t>(h * dw));
      for (int m = 0; m < ssim::map_count; ++m)
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < dw; ++x)
            hor[static_cast<std::size_t>((m * h + y) * dw + x)] = ssim::window_sum([&](int k) {
              const auto i = static_cast<std::size_t>(y * w + x + k);
              return ssim::map_sample(m, a[i], b[i]);
            });
      double ssim_sum = 0, l_sum = 0, c_sum = 0, s_sum = 0;
      for (int y = 0; y < dh; ++y)
        for (int x = 0; x < dw; ++x) {
          float v[ssim::map_count];
          for (int m = 0; m < ssim::map_count; ++m)
            v[m] = ssim::window_sum(
                [&](int k) { return hor[static_cast<std::size_t>((m * h + y + k) * dw + x)]; });
          const ssim::Terms t = ssim::terms(v[0], v[1], v[2], v[3], v[4]);
          ssim_sum += t.l * t.c * t.s;
          l_sum += t.l;
          c_sum += t.c;
          s_sum += t.s;
        }
      EXPECT_TRUE(same_bits(got.ssim, ssim::mean_of(ssim_sum, dw, dh))) << w << "x" << h << " kind " << kind;
      EXPECT_TRUE(same_bits(got.l, ssim::mean_of(l_sum, dw, dh))) << w << "x" << h << " kind " << kind;
      EXPECT_TRUE(same_bits(got.c, ssim::mean_of(c_sum, dw, dh))) << w << "x" << h << " kind " << kind;
      EXPECT_TRUE(same_bits(got.s, ssim::mean_of(s_sum, dw, dh))) << w << "x" << h << " kind " << kind;
      EXPECT_TRUE(std::isfinite(got.ssim));
    }
}

// The fp64-free device variant's arithmetic on the host: the per-sample
// functions with R's doubles as rmath::Sf64 (binary64 in integers), and the
// sums that end in a float store (decimation, both window passes) also as
// that variant runs them, on fp32 pairs first with an Sf64 replay, give the
// double version's bits at every step: the box decimation, both window
// passes, the terms, the product l*c*s and the four raster-order chains.
TEST(FloatSsimSf64, PerSampleFunctionsEqualTheDoubleOnes) {
  using rmath::Sf64;
  using rmath::Sf64Policy;
  std::mt19937 rng(23);
  std::size_t samples = 0;
  rmath::Fp32PairArith pairs;  // islands and replays of the pair-first sums
  for (auto [w, h] : {std::pair{11, 11}, {40, 23}, {97, 61}})
    for (int kind = 0; kind < 4; ++kind) {
      const auto a = random_plane(w, h, rng, kind);
      auto b = random_plane(w, h, rng, kind);
      if (kind == 2)
        for (std::size_t i = 0; i < b.size(); ++i)
          if (i % 3) b[i] = a[i];
      for (int factor = 2; factor <= 3; ++factor)
        for (int y = 0; y < ssim::decimated_size(h, factor); ++y)
          for (int x = 0; x < ssim::decimated_size(w, factor); ++x) {
            const float d = float_ssim::decimated_sample(a.data(), w, h, factor, x, y);
            ASSERT_TRUE(same_bits(float_ssim::decimated_sample(a.data(), w, h, factor, x, y, Sf64Policy{}), d))
                << w << "x" << h << " f " << factor << " at " << x << "," << y;
            ASSERT_TRUE(same_bits(
                pairs.island([&](auto& f) { return float_ssim::decimated_sample(a.data(), w, h, factor, x, y, f); }), d))
                << w << "x" << h << " f " << factor << " at " << x << "," << y << " (pairs)";
          }
      const int dw = ssim::windowed_size(w), dh = ssim::windowed_size(h);
      std::vector<float> hor(static_cast<std::size_t>(ssim::map_count) * static_cast<std::size_t>(h * dw));
      for (int m = 0; m < ssim::map_count; ++m)
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < dw; ++x) {
            const auto at = [&](int k) {
              const auto i = static_cast<std::size_t>(y * w + x + k);
              return ssim::map_sample(m, a[i], b[i]);
            };
            const float d = ssim::window_sum(at);
            ASSERT_TRUE(same_bits(ssim::window_sum(at, Sf64Policy{}), d)) << w << "x" << h << " map " << m;
            ASSERT_TRUE(same_bits(pairs.island([&](auto& f) { return ssim::window_sum(at, f); }), d))
                << w << "x" << h << " map " << m << " (pairs)";
            hor[static_cast<std::size_t>((m * h + y) * dw + x)] = d;
          }
      double sums[4] = {0, 0, 0, 0};
      Sf64 soft_sums[4] = {};
      for (int y = 0; y < dh; ++y)
        for (int x = 0; x < dw; ++x) {
          float v[ssim::map_count];
          for (int m = 0; m < ssim::map_count; ++m) {
            const auto at = [&](int k) { return hor[static_cast<std::size_t>((m * h + y + k) * dw + x)]; };
            v[m] = ssim::window_sum(at);
            ASSERT_TRUE(same_bits(ssim::window_sum(at, Sf64Policy{}), v[m])) << w << "x" << h << " map " << m;
            ASSERT_TRUE(same_bits(pairs.island([&](auto& f) { return ssim::window_sum(at, f); }), v[m]))
                << w << "x" << h << " map " << m << " (pairs)";
          }
          const ssim::Terms t = ssim::terms(v[0], v[1], v[2], v[3], v[4]);
          const ssim::TermsOf<Sf64> st = ssim::terms<Sf64>(v[0], v[1], v[2], v[3], v[4]);
          ASSERT_EQ(st.l.bits, std::bit_cast<std::uint64_t>(t.l)) << w << "x" << h << " at " << x << "," << y;
          ASSERT_EQ(st.c.bits, std::bit_cast<std::uint64_t>(t.c)) << w << "x" << h << " at " << x << "," << y;
          ASSERT_EQ(st.s.bits, std::bit_cast<std::uint64_t>(t.s)) << w << "x" << h << " at " << x << "," << y;
          const double q[4] = {t.l * t.c * t.s, t.l, t.c, t.s};
          const Sf64 sq[4] = {st.l * st.c * st.s, st.l, st.c, st.s};
          for (int k = 0; k < 4; ++k) {
            sums[k] += q[k];
            soft_sums[k] = soft_sums[k] + sq[k];
            ASSERT_EQ(soft_sums[k].bits, std::bit_cast<std::uint64_t>(sums[k])) << w << "x" << h << " chain " << k;
          }
          ++samples;
        }
    }
  EXPECT_GT(samples, 10000u);
  std::printf("[ fp32pair ] window sums and decimation: %u pair islands, %u replayed\n", pairs.islands, pairs.replays);
  EXPECT_GT(pairs.islands, 100000u);
  EXPECT_LE(static_cast<double>(pairs.replays), 1e-4 * static_cast<double>(pairs.islands));
}

// compute_ssim's automatic factor: max(1, round(min(w, h) / 256)), halves up.
TEST(FloatSsimScale, AutomaticFactor) {
  EXPECT_EQ(float_ssim::auto_scale(176, 144), 1);
  EXPECT_EQ(float_ssim::auto_scale(1920, 383), 1);
  EXPECT_EQ(float_ssim::auto_scale(1920, 384), 2);
  EXPECT_EQ(float_ssim::auto_scale(1920, 1080), 4);
  EXPECT_EQ(float_ssim::auto_scale(3840, 2160), 8);
  EXPECT_EQ(float_ssim::auto_scale(1, 1), 1);
}

}  // namespace
}  // namespace exactvmaf::test
