// float_moment against the golden numbers of upstream libvmaf
// (tests/golden/README.md, group float_moment of runs.json): every run bit
// for bit against R on every frame and pooled value, output names and order,
// the distance to plain upstream (none: no libm call), thread invariance;
// the CPU's integer sums against upstream's double chain, written here
// from moment.c's loops, on extreme and random pictures of every bit depth,
// including one whose 16-bit second moment passes 2^53 units (R's chain
// then runs as written).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "features/float_moment/float_moment_host.hpp"
#include "features/float_moment/float_moment_math.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"

namespace exactvmaf::test {
namespace {

const std::map<std::string, GoldenRun>& moment_runs() { return golden_runs_of("float_moment"); }
std::vector<GoldenCase> moment_cases() { return golden_cases_for(moment_runs()); }

class FloatMomentGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(FloatMomentGolden, EqualsRAndUpstreamBitForBit) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = moment_runs().at(gc.run);
  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  const auto up_path = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(up_path)) << up_path;
  const auto r = read_json(r_path);

  const RunResult ours = run_golden(*pair, run);
  ASSERT_EQ(r.at("frames").size(), ours.frames);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_EQ(vs_r.values, ours.frames * 4 + 4 * 4);  // 4 outputs per frame, 4 pooled values each
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;
  EXPECT_EQ(metric_names(ours), golden_metric_names(r_path));

  // Sums and one division, no libm: plain upstream's bits too (measured on
  // the goldens: 0 of 348 frame and 0 of 288 pooled values differ).
  const GoldenComparison vs_up = compare_with_golden(read_json(up_path), ours, run.subsample);
  EXPECT_EQ(vs_up.differing, 0u) << "first: " << vs_up.first_difference;
  report_upstream_distance(gc, vs_up);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FloatMomentGolden, ::testing::ValuesIn(moment_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FloatMomentGolden);

TEST(FloatMomentGoldenSet, IsPresent) {
  // One run on each of the 18 pairs (an empty or shrunken set fails here).
  EXPECT_EQ(moment_runs().size(), 1u);
  EXPECT_EQ(fixture_pairs().size(), 18u);
  EXPECT_EQ(moment_cases().size(), 18u);
}

TEST(FloatMomentThreads, SameBitsForEveryThreadCount) {
  for (const char* name : {"c01_176x144_8b_420", "c04_160x90_12b_444", "c07_64x48_16b_420", "s01_576x324_8b_420"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair) << name;
    expect_thread_invariant(*pair, {"float_moment"});
  }
}

// ---- the integer sums against upstream's chain ------------------------------------

struct Picture {
  VideoFormat fmt;
  std::vector<std::uint8_t> bytes;
  std::ptrdiff_t stride = 0;
  PictureView view() const {
    PictureView v;
    v.format = fmt;
    v.data[0] = bytes.data();
    v.stride[0] = stride;
    return v;
  }
};

// A luma plane (stride padded by 3 samples) filled by fn(x, y).
template <class Fn>
Picture make_picture(unsigned w, unsigned h, unsigned bpc, Fn fn) {
  Picture p;
  p.fmt = VideoFormat{w, h, PixelFormat::yuv444, bpc};
  const unsigned bps = bpc > 8 ? 2 : 1;
  p.stride = static_cast<std::ptrdiff_t>((w + 3) * bps);
  p.bytes.assign(static_cast<std::size_t>(p.stride) * h, 0xA5);
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      const unsigned v = fn(x, y);
      std::uint8_t* at = p.bytes.data() + static_cast<std::ptrdiff_t>(y) * p.stride + x * bps;
      if (bps == 1) at[0] = static_cast<std::uint8_t>(v);
      else {
        at[0] = static_cast<std::uint8_t>(v & 0xff);
        at[1] = static_cast<std::uint8_t>(v >> 8);
      }
    }
  return p;
}

// moment.c's loops as upstream writes them, on picture_copy's floats:
// double cum += v and cum += v * v (a float product), / (w * h).
float_moment::Moments upstream_chain(const Picture& p) {
  const float scaler = p.fmt.bitdepth == 8 ? 1.0f : p.fmt.bitdepth == 10 ? 4.0f : p.fmt.bitdepth == 12 ? 16.0f : 256.0f;
  const int w = static_cast<int>(p.fmt.width), h = static_cast<int>(p.fmt.height);
  double cum1 = 0, cum2 = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::uint8_t* at = p.bytes.data() + static_cast<std::ptrdiff_t>(y) * p.stride;
      const unsigned s = p.fmt.bitdepth == 8 ? at[x] : static_cast<unsigned>(at[2 * x] | (at[2 * x + 1] << 8));
      const float v = p.fmt.bitdepth == 8 ? static_cast<float>(s) + 0 : static_cast<float>(s) / scaler + 0;
      cum1 += v;
      const float sq = v * v;
      cum2 += sq;
    }
  return {cum1 / (w * h), cum2 / (w * h)};
}

void expect_same_moments(const Picture& p, const std::string& what) {
  float_moment::Config c;
  float_moment::init(c, p.fmt);
  const float_moment::Moments ours = float_moment::picture_moments(c, p.view());
  const float_moment::Moments want = upstream_chain(p);
  EXPECT_TRUE(same_bits(ours.first, want.first)) << what << ": " << ours.first << " vs " << want.first;
  EXPECT_TRUE(same_bits(ours.second, want.second)) << what << ": " << ours.second << " vs " << want.second;
}

TEST(FloatMomentSums, IntegerSumsEqualUpstreamsChain) {
  std::mt19937 rng(3);
  std::size_t pictures = 0;
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const unsigned maxv = (1u << bpc) - 1;
    for (auto [w, h] : {std::pair{1u, 1u}, {7u, 3u}, {176u, 144u}, {333u, 77u}}) {
      expect_same_moments(make_picture(w, h, bpc, [&](unsigned, unsigned) { return maxv; }), "max");
      expect_same_moments(make_picture(w, h, bpc, [&](unsigned, unsigned) { return 0u; }), "zero");
      expect_same_moments(make_picture(w, h, bpc, [&](unsigned, unsigned) { return rng() % (maxv + 1); }), "random");
      expect_same_moments(make_picture(w, h, bpc, [&](unsigned x, unsigned y) { return (x + y) % 2 ? maxv : 1u; }),
                          "checkerboard");
      pictures += 4;
    }
  }
  EXPECT_EQ(pictures, 64u);
}

// 2048 x 1100 16-bit samples at 65535: the second moment's total is
// 2252800 * 4294836224 units of 2^-16, above 2^53, so upstream's chain
// rounds and the CPU runs it (the first moment stays exact).
TEST(FloatMomentSums, BeyondTwoToThe53UnitsRunsTheChain) {
  const Picture p = make_picture(2048, 1100, 16, [](unsigned x, unsigned y) { return (x * 7 + y) % 5 ? 65535u : 65534u; });
  const double units = 2048.0 * 1100.0 * 4294836224.0;
  EXPECT_GT(units, 9007199254740992.0);
  expect_same_moments(p, "16-bit 2048x1100");
  // The 2^53 switch is conservative: a 16-bit square is a float near 2^16,
  // a multiple of 2^-8 = 256 units, so the chain's partial sums stay exact up
  // to 2^61 units and here the exact total rounded once is the chain's value
  // too (checked, so a change of units or threshold shows up).
  std::uint64_t total = 0;
  for (unsigned y = 0; y < 1100; ++y)
    for (unsigned x = 0; x < 2048; ++x) {
      const std::uint64_t u = float_moment::square_units((x * 7 + y) % 5 ? 65535 : 65534, 256.0f);
      EXPECT_EQ(u % 256, 0u);
      total += u;
    }
  EXPECT_GT(total, std::uint64_t{1} << 53);
  EXPECT_TRUE(same_bits(float_moment::moment_from_units(total, 0x1p-16, 2048, 1100), upstream_chain(p).second));
}

}  // namespace
}  // namespace exactvmaf::test
