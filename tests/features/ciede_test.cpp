// ciede (ciede2000) against the R goldens of upstream libvmaf bit for bit,
// and R's own choices where upstream is not well defined: odd sizes (c02),
// 4:2:2 (c05, c08), identical pixels, the exact frame sum.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "features/ciede/ciede_host.hpp"
#include "features/ciede/ciede_math.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/cr_trig.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

// ciede_golden_is_not_r pairs (support/golden_runs.hpp) are checked against
// the same frames converted to 4:4:4.
class CiedeGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CiedeGolden, EqualsRBitForBit) {
  const std::string& name = GetParam();
  const auto pair = fixture_pair(name);
  ASSERT_TRUE(pair);
  const RunResult ours = run_fixture(*pair, {"ciede"});
  const auto r_path = golden_dir() / "r" / name / "ciede.json";
  const auto r = read_json(r_path);
  ASSERT_EQ(r.at("frames").size(), ours.frames);
  std::vector<std::string> names;
  for (std::size_t id = 0; id < ours.scores.metric_count(); ++id) names.push_back(ours.scores.metric_name(id));
  EXPECT_EQ(names, golden_metric_names(r_path));
  const GoldenComparison vs_r = compare_with_golden(r, ours, 1);
  const GoldenComparison vs_up =
      compare_with_golden(read_json(golden_dir() / "upstream" / name / "ciede.json"), ours, 1);
  std::printf("[ distance ] %s: %zu of %zu values differ from R, %zu from upstream (max %lld ulps)\n", name.c_str(),
              vs_r.differing, vs_r.values, vs_up.differing, static_cast<long long>(vs_up.max_ulps));
  if (!ciede_golden_is_not_r(name)) {
    // The exact frame sum equals upstream's sequential double sum on every
    // fixture frame (measured: no frame differs).
    EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                  << " values differ from R; first: " << vs_r.first_difference;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CiedeGolden, ::testing::ValuesIn(ciede_golden_pairs()),
                         [](const auto& i) {
                           std::string n = i.param;
                           for (auto& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CiedeGolden);

TEST(CiedeGoldenSet, IsPresent) {
  // Every fixture pair has its ciede goldens (tools/fixtures/run_goldens.py --runs ciede).
  EXPECT_GE(ciede_golden_pairs().size(), 16u);
  EXPECT_EQ(ciede_golden_pairs().size(), fixture_pairs().size());
}

// ---- R's chroma mapping: the same frames converted to 4:4:4 -----------------

// All frames of one raw fixture file: [frame][plane] samples, storage sizes
// (chroma rounded up).
using RawFrames = std::vector<std::array<std::vector<unsigned>, 3>>;

RawFrames read_raw(const std::filesystem::path& path, const VideoFormat& f, unsigned frames) {
  std::ifstream in(path, std::ios::binary);
  RawFrames out(frames);
  const unsigned bps = f.bytes_per_sample();
  for (auto& fr : out)
    for (unsigned p = 0; p < 3; ++p) {
      const std::size_t n = static_cast<std::size_t>(f.plane_width(p)) * f.plane_height(p);
      std::vector<unsigned char> bytes(n * bps);
      in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      fr[p].resize(n);
      for (std::size_t i = 0; i < n; ++i) fr[p][i] = bps == 1 ? bytes[i] : bytes[2 * i] | (bytes[2 * i + 1] << 8u);
    }
  if (!in) throw Error(path.string() + ": short read");
  return out;
}

// Runs ciede on `pair` converted to 4:4:4 by nearest-neighbour chroma with
// (cx, cy) = (x >> sx, y >> sy) on the stored (rounded-up) chroma planes.
RunResult run_as_444(const FixturePair& pair, unsigned sx, unsigned sy) {
  VideoFormat in_fmt;
  in_fmt.width = pair.raw.width;
  in_fmt.height = pair.raw.height;
  in_fmt.pix_fmt = pair.raw.pix_fmt;
  in_fmt.bitdepth = pair.raw.bitdepth;
  const RawFrames ref = read_raw(pair.ref, in_fmt, pair.frames);
  const RawFrames dist = read_raw(pair.dist, in_fmt, pair.frames);
  VideoFormat out_fmt = in_fmt;
  out_fmt.pix_fmt = PixelFormat::yuv444;
  auto sample = [in_fmt, sx, sy](const RawFrames& frames) {
    return [&frames, in_fmt, sx, sy](std::uint64_t i, unsigned p, unsigned x, unsigned y) {
      if (p == 0) return frames[i][0][static_cast<std::size_t>(y) * in_fmt.width + x];
      return frames[i][p][static_cast<std::size_t>(y >> sy) * in_fmt.plane_width(p) + (x >> sx)];
    };
  };
  SyntheticReader r("ref444", out_fmt, pair.frames, sample(ref));
  SyntheticReader d("dist444", out_fmt, pair.frames, sample(dist));
  std::vector<FeatureRequest> req{parse_feature_request("ciede")};
  return run(r, d, std::move(req), {});
}

void expect_same_frames(const RunResult& a, const RunResult& b, const std::string& what) {
  ASSERT_EQ(a.frames, b.frames) << what;
  ASSERT_GT(a.frames, 0u);
  for (std::uint64_t f = 0; f < a.frames; ++f) {
    const double va = *a.scores.get(0, f), vb = *b.scores.get(0, f);
    EXPECT_TRUE(same_bits(va, vb)) << what << " frame " << f << ": " << va << " vs " << vb;
    EXPECT_TRUE(std::isfinite(va));
  }
}

TEST(CiedeChroma, Yuv422EqualsDuplicatedChromaIn444) {
  for (const char* name : {"c05_176x144_8b_422", "c08_176x144_10b_422"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair);
    expect_same_frames(run_fixture(*pair, {"ciede"}), run_as_444(*pair, 1, 0), name);
  }
}

TEST(CiedeChroma, OddSize420ReadsTheStoredLastChromaColumnAndRow) {
  // 175x97: the stored chroma is 88x49; pixel (174, 96) reads chroma (87, 48),
  // which upstream's 87x48 picture does not have.
  const auto pair = fixture_pair("c02_175x97_8b_420");
  ASSERT_TRUE(pair);
  expect_same_frames(run_fixture(*pair, {"ciede"}), run_as_444(*pair, 1, 1), pair->name);
  // Upstream's numbers differ from run to run there; R's are these (the
  // golden ones are one of upstream's runs).
  const auto golden = read_json(golden_dir() / "r" / pair->name / "ciede.json");
  const RunResult ours = run_fixture(*pair, {"ciede"});
  std::size_t differ = 0;
  for (std::uint64_t f = 0; f < ours.frames; ++f)
    differ += !same_bits(*ours.scores.get(0, f), golden.at("frames").at(f).at("metrics").at("ciede2000").get<double>());
  std::printf("[ distance ] c02: %zu of %llu frames differ from one upstream run\n", differ,
              static_cast<unsigned long long>(ours.frames));
}

TEST(CiedeChroma, Yuv420And444FixturesEqualTheirOwn444Conversion) {
  // Guards the converter used above against the golden-checked paths.
  for (const char* name : {"c01_176x144_8b_420", "c03_176x144_10b_420", "c06_176x144_8b_444"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair);
    const unsigned s = pair->raw.pix_fmt == PixelFormat::yuv444 ? 0 : 1;
    expect_same_frames(run_fixture(*pair, {"ciede"}), run_as_444(*pair, s, s), name);
  }
}

TEST(CiedeChroma, Yuv422WarnsOnce) {
  std::vector<std::string> warnings;
  auto previous = set_input_warning_handler([&](const std::string& w) { warnings.push_back(w); });
  const auto pair = fixture_pair("c05_176x144_8b_422");
  ASSERT_TRUE(pair);
  RunOptions o;
  o.threads = 3;
  run_fixture(*pair, {"ciede"}, o);
  std::size_t n422 = 0;
  for (const auto& w : warnings) n422 += w.find("ciede: 4:2:2") != std::string::npos;
  EXPECT_EQ(n422, 1u);
  warnings.clear();
  run_fixture(*fixture_pair("c01_176x144_8b_420"), {"ciede"});
  for (const auto& w : warnings) EXPECT_EQ(w.find("ciede"), std::string::npos) << w;
  set_input_warning_handler(std::move(previous));
}

// ---- identical inputs and pixels --------------------------------------------

TEST(CiedeIdentical, FramesGivePlusInfinity) {
  const auto pair = fixture_pair("id_176x144_8b_420");
  ASSERT_TRUE(pair);
  const RunResult r = run_fixture(*pair, {"ciede"});
  ASSERT_GT(r.frames, 0u);
  for (std::uint64_t f = 0; f < r.frames; ++f) {
    const double v = *r.scores.get(0, f);
    EXPECT_TRUE(std::isinf(v) && v > 0) << f << ": " << v;
  }
}

TEST(CiedeIdentical, FormulaGivesPlusZeroOnEqualColours) {
  // The shortcut in pixel_delta_e is only valid if the formula itself gives
  // +0 for equal inputs: check through the formula on many colours of every
  // bit depth, range extremes and the neutral axis included.
  ciede::HostMath m;
  std::mt19937 rng(5);
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const ciede::LabScale s = ciede::lab_scale(bpc);
    const unsigned max = (1u << bpc) - 1, mid = 1u << (bpc - 1);
    std::vector<std::array<unsigned, 3>> colours = {
        {0, 0, 0}, {max, max, max}, {0, max, 0}, {max, 0, max}, {mid, mid, mid}, {0, mid, mid}, {max, mid, mid}};
    std::uniform_int_distribution<unsigned> any(0, max);
    for (int i = 0; i < 3000; ++i) colours.push_back({any(rng), any(rng), any(rng)});
    for (const auto& c : colours) {
      const ciede::Lab lab = ciede::lab_from_yuv(c[0], c[1], c[2], s, m);
      const float de = ciede::ciede2000(lab, lab, m);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(de), 0u) << bpc << "-bit " << c[0] << " " << c[1] << " " << c[2];
    }
  }
}

// ---- host fast paths (what the device runs) agree with R when decided ------

TEST(CiedeMath, FastPathsEqualHostWhenDecided) {
  std::mt19937 rng(11);
  std::size_t undecided = 0, n = 0;
  for (unsigned bpc : {8u, 10u, 16u}) {
    const ciede::LabScale s = ciede::lab_scale(bpc);
    std::uniform_int_distribution<unsigned> any(0, (1u << bpc) - 1);
    for (int i = 0; i < 20000; ++i) {
      const unsigned c[6] = {any(rng), any(rng), any(rng), any(rng), any(rng), any(rng)};
      ciede::HostMath host;
      ciede::FastMath fast;
      const float a = ciede::pixel_delta_e(c[0], c[1], c[2], c[3], c[4], c[5], s, host);
      const float b = ciede::pixel_delta_e(c[0], c[1], c[2], c[3], c[4], c[5], s, fast);
      ++n;
      if (fast.undecided) {
        ++undecided;
        continue;
      }
      ASSERT_EQ(std::bit_cast<std::uint32_t>(a), std::bit_cast<std::uint32_t>(b)) << bpc << "-bit sample " << i;
    }
  }
  std::printf("[ undecided ] %zu of %zu random pixel pairs\n", undecided, n);
  // The fast paths decide all but about 2^-40 of their calls: a test that
  // skipped most samples as undecided would compare nothing.
  EXPECT_LE(undecided * 10000, n) << undecided << " of " << n << " pixel pairs undecided";
}

// The fp64-free variant (Sf64Math: R's doubles in integer arithmetic, the
// shortcuts only) gives R's value wherever it decides, on random colour pairs
// of every bit depth, near-neutral ones (zero a or b: the exact atan2, sin and
// pow(0, 7) rules) and close pairs; it leaves few to the host.
TEST(CiedeMath, Sf64MathEqualsRWhereDecided) {
  std::mt19937 rng(23);
  std::size_t undecided = 0, n = 0;
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const ciede::LabScale s = ciede::lab_scale(bpc);
    const ciede::LabScaleOf<rmath::Sf64> s64 = ciede::lab_scale<rmath::Sf64>(bpc);
    const unsigned maxv = (1u << bpc) - 1, mid = 1u << (bpc - 1);
    std::uniform_int_distribution<unsigned> any(0, maxv), step(0, 6);
    for (int i = 0; i < 3000; ++i) {
      unsigned c[6];
      for (auto& v : c) v = any(rng);
      if (i % 4 == 1)
        for (int k = 0; k < 3; ++k) c[3 + k] = std::min(maxv, c[k] + step(rng));
      if (i % 4 == 2) c[1] = c[2] = c[4] = c[5] = mid + (i % 2);
      ciede::HostMathNoShortcuts book;
      ciede::Sf64Math sf;
      const float r = ciede::pixel_delta_e(c[0], c[1], c[2], c[3], c[4], c[5], s, book);
      const float v = ciede::pixel_delta_e(c[0], c[1], c[2], c[3], c[4], c[5], s64, sf);
      ++n;
      if (sf.undecided) {
        ++undecided;
        continue;
      }
      ASSERT_EQ(std::bit_cast<std::uint32_t>(r), std::bit_cast<std::uint32_t>(v))
          << bpc << "-bit " << c[0] << " " << c[1] << " " << c[2] << " / " << c[3] << " " << c[4] << " " << c[5];
    }
  }
  // Lab values with a zero a or b, and pairs of them.
  const ciede::Lab zeros[] = {{50.0f, 0.0f, 10.0f}, {50.0f, 0.0f, -10.0f}, {60.0f, 12.0f, 0.0f},
                              {60.0f, -12.0f, 0.0f}, {40.0f, -0.0f, 3.0f}, {70.0f, 5.0f, -0.0f},
                              {30.0f, 0.0f, 0.0f}, {55.0f, 1e-3f, 0.0f}};
  for (const auto& x : zeros)
    for (const auto& y : zeros) {
      ciede::HostMathNoShortcuts book;
      ciede::Sf64Math sf;
      const float r = ciede::ciede2000(x, y, book);
      const float v = ciede::ciede2000(x, y, sf);
      ASSERT_FALSE(sf.undecided) << x.l << " " << x.a << " " << x.b << " / " << y.l << " " << y.a << " " << y.b;
      ASSERT_EQ(std::bit_cast<std::uint32_t>(r), std::bit_cast<std::uint32_t>(v))
          << x.l << " " << x.a << " " << x.b << " / " << y.l << " " << y.a << " " << y.b;
    }
  std::printf("[ undecided ] Sf64Math: %zu of %zu random pixel pairs\n", undecided, n);
  EXPECT_LE(undecided * 1000, n) << undecided << " of " << n << " pixel pairs undecided";
}

// The fp64-free variant's formula on fp32 pairs first (PairMath, Sf64 where
// the pairs cannot decide: delta_e_fp64_free) gives R's ΔE00 wherever it
// decides, on random colour pairs of every bit depth, close pairs, grey and
// near-grey colours (tiny chroma: the scaled powers, G = 1, tiny R_T),
// pairs with a zero a or b, and hues all round the circle (R_T's exp down to
// zero and subnormal floats); the pairs decide nearly all pixels themselves
// (asserted: a path that replayed everything in Sf64 fails), and the pixels
// left to the host stay below the ceiling the device tests use.
TEST(CiedeMath, PairsFirstEqualRWhereDecided) {
  std::mt19937 rng(31);
  const std::size_t per_depth = std::getenv("EXACTVMAF_LONG_N") ? std::strtoull(std::getenv("EXACTVMAF_LONG_N"), nullptr, 10) : 40000;
  std::size_t n = 0, replays = 0, host = 0, pair_undecided = 0;
  auto check = [&](const ciede::Lab& x, const ciede::Lab& y) {
    ciede::HostMathNoShortcuts book;
    const float r = ciede::ciede2000(x, y, book);
    ciede::PairMath pm;
    const float p = ciede::ciede2000(x, y, pm);
    rmath::Fp32PairArith arith;
    float v = 0.0f;
    const bool decided = ciede::delta_e_fp64_free(x, y, arith, &v);
    ++n;
    replays += arith.replays;
    pair_undecided += pm.undecided ? 1 : 0;
    ASSERT_EQ(arith.replays, pm.undecided ? 1u : 0u);
    if (!pm.undecided) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(r), std::bit_cast<std::uint32_t>(p))
          << "pairs: " << x.l << " " << x.a << " " << x.b << " / " << y.l << " " << y.a << " " << y.b;
    }
    if (!decided) {
      ++host;
      return;
    }
    ASSERT_EQ(std::bit_cast<std::uint32_t>(r), std::bit_cast<std::uint32_t>(v))
        << x.l << " " << x.a << " " << x.b << " / " << y.l << " " << y.a << " " << y.b;
  };
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const ciede::LabScale s = ciede::lab_scale(bpc);
    const unsigned maxv = (1u << bpc) - 1, mid = 1u << (bpc - 1);
    std::uniform_int_distribution<unsigned> any(0, maxv), step(0, 6), near_mid(mid - 3, mid + 3);
    auto lab = [&](unsigned y, unsigned u, unsigned v) {
      ciede::HostMath m;
      return ciede::lab_from_yuv(y, u, v, s, m);
    };
    for (std::size_t i = 0; i < per_depth; ++i) {
      unsigned c[6];
      for (auto& v : c) v = any(rng);
      if (i % 4 == 1)
        for (int k = 0; k < 3; ++k) c[3 + k] = std::min(maxv, c[k] + step(rng));
      if (i % 4 == 2) c[1] = near_mid(rng), c[2] = near_mid(rng), c[4] = near_mid(rng), c[5] = near_mid(rng);
      if (i % 8 == 3) c[1] = c[2] = c[4] = c[5] = mid;
      if (c[0] == c[3] && c[1] == c[4] && c[2] == c[5]) continue;  // exactly +0 without the formula
      check(lab(c[0], c[1], c[2]), lab(c[3], c[4], c[5]));
      if (HasFatalFailure()) return;
    }
  }
  // Lab values directly: zero a or b, tiny chroma, hues round the circle.
  const ciede::Lab zeros[] = {{50.0f, 0.0f, 10.0f}, {50.0f, 0.0f, -10.0f}, {60.0f, 12.0f, 0.0f},
                              {60.0f, -12.0f, 0.0f}, {40.0f, -0.0f, 3.0f}, {70.0f, 5.0f, -0.0f},
                              {30.0f, 0.0f, 0.0f}, {55.0f, 1e-3f, 0.0f}, {55.0f, 3e-6f, -2e-6f},
                              {50.0f, 0x1p-20f, 0x1p-21f}};
  for (const auto& x : zeros)
    for (const auto& y : zeros) {
      check(x, y);
      if (HasFatalFailure()) return;
    }
  std::uniform_real_distribution<float> angle(0.0f, 6.2831853f), radius(0.0f, 1.0f), light(0.0f, 100.0f);
  for (std::size_t i = 0; i < per_depth; ++i) {
    const float scale = std::ldexp(1.0f, -static_cast<int>(i % 24));  // chroma from ~100 down to ~1e-5
    const float r1 = 100.0f * scale * radius(rng), r2 = 100.0f * scale * radius(rng);
    const float t1 = angle(rng), t2 = i % 3 == 0 ? t1 + 1e-3f * radius(rng) : angle(rng);
    check({light(rng), r1 * static_cast<float>(std::cos(t1)), r1 * static_cast<float>(std::sin(t1))},
          {light(rng), r2 * static_cast<float>(std::cos(t2)), r2 * static_cast<float>(std::sin(t2))});
    if (HasFatalFailure()) return;
  }
  std::printf("[ pairs ] %zu pixel pairs: %zu replayed in Sf64 (%.2g), %zu left to R's functions\n", n, replays,
              static_cast<double>(replays) / static_cast<double>(n), host);
  EXPECT_EQ(pair_undecided, replays);
  EXPECT_LE(replays * 1000, n) << replays << " of " << n << " replayed in Sf64";
  EXPECT_LE(host * 10000, n) << host << " of " << n << " left to R's functions";
}

// The fp64-free variant's Lab (lab_fp64_free: R's statements on fp32 pairs
// with the pair pow, Sf64 where they cannot decide) is R's wherever it
// decides, for random colours of every bit depth and the neutral axis, and
// the pairs decide nearly all of them.
TEST(CiedeMath, LabPairsFirstEqualR) {
  std::mt19937 rng(37);
  const std::size_t per_depth = std::getenv("EXACTVMAF_LONG_N") ? std::strtoull(std::getenv("EXACTVMAF_LONG_N"), nullptr, 10) : 40000;
  std::size_t n = 0, host = 0;
  rmath::Fp32PairArith arith;
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const ciede::LabScale s = ciede::lab_scale(bpc);
    const ciede::LabScaleOf<rmath::PairF64> sp = ciede::lab_scale_pairs(bpc);
    const unsigned maxv = (1u << bpc) - 1, mid = 1u << (bpc - 1);
    std::uniform_int_distribution<unsigned> any(0, maxv), near_mid(mid - 4, mid + 4);
    for (std::size_t i = 0; i < per_depth; ++i) {
      const unsigned y = any(rng), u = i % 3 == 0 ? near_mid(rng) : any(rng), v = i % 3 == 0 ? near_mid(rng) : any(rng);
      ciede::HostMathNoShortcuts book;
      const ciede::Lab r = ciede::lab_from_yuv_r(y, u, v, s, book);
      ciede::Lab p{};
      ++n;
      if (!ciede::lab_fp64_free(y, u, v, sp, bpc, arith, &p)) {
        ++host;
        continue;
      }
      ASSERT_EQ(std::bit_cast<std::uint32_t>(r.l), std::bit_cast<std::uint32_t>(p.l)) << bpc << "-bit " << y << " " << u << " " << v;
      ASSERT_EQ(std::bit_cast<std::uint32_t>(r.a), std::bit_cast<std::uint32_t>(p.a)) << bpc << "-bit " << y << " " << u << " " << v;
      ASSERT_EQ(std::bit_cast<std::uint32_t>(r.b), std::bit_cast<std::uint32_t>(p.b)) << bpc << "-bit " << y << " " << u << " " << v;
    }
  }
  std::printf("[ pairs ] %zu Labs: %u replayed in Sf64 (%.2g), %zu left to R's functions\n", n, arith.replays,
              static_cast<double>(arith.replays) / static_cast<double>(n), host);
  EXPECT_EQ(arith.islands, n);
  EXPECT_LE(arith.replays * 1000.0, static_cast<double>(n));
  EXPECT_LE(host * 10000, n);
}

// The exact special cases the shortcuts take (zero arguments) are R's.
TEST(CiedeMath, ZeroArgumentRulesAreRs) {
  ciede::HostMath fast;
  ciede::HostMathNoShortcuts book;
  const double xs[] = {1.0, -1.0, 3.5, -1e-30, 1e30, 0x1p-1000, -0x1p999};
  for (double x : xs)
    for (double z : {0.0, -0.0}) {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(ciede::atan2_to_float(z, x, fast)),
                std::bit_cast<std::uint32_t>(ciede::atan2_to_float(z, x, book)))
          << "atan2(" << z << ", " << x << ")";
      EXPECT_EQ(std::bit_cast<std::uint32_t>(ciede::atan2_to_float(x, z, fast)),
                std::bit_cast<std::uint32_t>(ciede::atan2_to_float(x, z, book)))
          << "atan2(" << x << ", " << z << ")";
      for (double t : {0.0, -0.0, 0.5, -1.5})
        EXPECT_EQ(std::bit_cast<std::uint32_t>(ciede::mul_sin_to_float(z, t, fast)),
                  std::bit_cast<std::uint32_t>(ciede::mul_sin_to_float(z, t, book)))
            << z << " * sin(" << t << ")";
      EXPECT_EQ(std::bit_cast<std::uint32_t>(ciede::mul_sin_to_float(x, z, fast)),
                std::bit_cast<std::uint32_t>(ciede::mul_sin_to_float(x, z, book)))
          << x << " * sin(" << z << ")";
    }
  for (float z : {0.0f, -0.0f}) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(ciede::pow7_f64(z, fast)), std::bit_cast<std::uint64_t>(ciede::pow7_f64(z, book)));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(ciede::powf7_f32(z, fast)), std::bit_cast<std::uint32_t>(ciede::powf7_f32(z, book)));
  }
}

// A cancelling colour (Y=68 U=54 V=80: RGB components cancel near zero) and
// hand-checked properties: symmetric inputs give the same value.
TEST(CiedeMath, SymmetricAndFinite) {
  ciede::HostMath m;
  const ciede::LabScale s = ciede::lab_scale(8);
  const float a = ciede::pixel_delta_e(68, 54, 80, 70, 128, 128, s, m);
  EXPECT_TRUE(std::isfinite(a));
  EXPECT_GT(a, 0.0f);
  const float b = ciede::pixel_delta_e(0, 0, 0, 255, 255, 255, s, m);
  EXPECT_TRUE(std::isfinite(b));
}

// ---- exact frame sum ---------------------------------------------------------

TEST(CiedeSum, ScoreTail) {
  // 45 - 20 log10(mean): a mean of exactly 1 gives 45, of 10 gives 25.
  EXPECT_EQ(ciede::frame_score(100.0, 10, 10), 45.0);
  EXPECT_EQ(ciede::frame_score(1000.0, 10, 10), 25.0);
  EXPECT_TRUE(std::isinf(ciede::frame_score(0.0, 10, 10)));
}

TEST(CiedeThreads, SameBitsForEveryThreadCount) {
  for (const char* name : {"c01_176x144_8b_420", "c02_175x97_8b_420", "c05_176x144_8b_422", "c07_64x48_16b_420"})
    expect_thread_invariant(*fixture_pair(name), {"ciede"});
}

// ---- speed without changing a bit -------------------------------------------

// x^7 as a dd product (ciede_math.hpp) against R's pow and powf.
TEST(CiedeSpeed, Pow7ShortcutsEqualRsPow) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> bits(0, 0x7f7fffffu);  // every positive finite float
  std::uniform_real_distribution<float> chroma(0.0f, 200.0f);         // what the formula passes
  ciede::HostMath m;
  std::size_t n = 0;
  auto check = [&](float x) {
    ++n;
    const double a = ciede::pow7_f64(x, m), b = rmath::cr_pow(static_cast<double>(x), 7.0);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(a), std::bit_cast<std::uint64_t>(b)) << "pow " << x;
    const float fa = ciede::powf7_f32(x, m), fb = rmath::cr_powf(x, 7.0f);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(fa), std::bit_cast<std::uint32_t>(fb)) << "powf " << x;
  };
  for (int i = 0; i < 200000; ++i) {
    check(std::bit_cast<float>(bits(rng)));
    check(chroma(rng));
  }
  // Range ends of the shortcuts and small integers (exact powers, float
  // midpoints of x^7 for x with few significant bits).
  for (float x : {0.0f, 0x1p-60f, 0x1.fffffep-61f, 0x1p60f, 0x1.000002p60f, 0x1p-18f, 0x1.fffffep-19f, 0x1p18f,
                  0x1.000002p18f, 1.0f, 25.0f, 3.0f, 1.5f, 1.25f, 1.125f, 7.0f, 9.0f, 11.0f, 13.0f})
    check(x);
  for (std::uint32_t k = 1; k < 4096; ++k) check(static_cast<float>(k) / 64.0f);
  EXPECT_GT(n, 400000u);
}

// The plain-double approximations keep the error bounds their comments
// prove, against R's functions: cos absolute 2^-50 on |x| < 64 (T's
// arguments), sin relative 2^-49.5 on |x| <= 1.6, exp relative 2^-50.5 on
// [-700, 0].
TEST(CiedeSpeed, TrigApproxWithinTheirBounds) {
  std::mt19937_64 rng(3);
  double worst_cos = 0.0, worst_sin = 0.0, worst_exp = 0.0;
  auto rel = [](double a, double r) { return r == 0.0 ? (a == 0.0 ? 0.0 : 1.0) : (a > r ? a - r : r - a) / (r < 0 ? -r : r); };
  auto check_cos = [&](double x) {
    const double a = ciede::cos_approx(x), r = rmath::cr_cos(x);
    const double e = a > r ? a - r : r - a;
    worst_cos = std::max(worst_cos, e);
    ASSERT_LE(e, 0x1p-50) << "cos x = " << x;
  };
  auto check_sin = [&](double x) {
    const double e = rel(ciede::sin_approx(x), rmath::cr_sin(x));
    worst_sin = std::max(worst_sin, e);
    ASSERT_LE(e, 0x1.6a09e667f3bcdp-50) << "sin x = " << x;  // 2^-49.5
  };
  auto check_exp = [&](double x) {
    const double e = rel(ciede::exp_approx(x), rmath::cr_exp(x));
    worst_exp = std::max(worst_exp, e);
    ASSERT_LE(e, 0x1.6a09e667f3bcdp-51) << "exp x = " << x;  // 2^-50.5
  };
  std::uniform_real_distribution<double> cos_arg(-63.0, 63.0), sin_arg(-1.6, 1.6), exp_arg(-700.0, 0.0),
      exp_small(-130.0, 0.0);
  for (int i = 0; i < 1000000; ++i) {
    check_cos(cos_arg(rng));
    check_sin(sin_arg(rng));
    check_exp(exp_arg(rng));
    check_exp(exp_small(rng));
  }
  // Near the reductions' boundaries (odd multiples of pi/4, ln 2 / 2) and
  // the zeros of cos; tiny arguments.
  for (int j = -80; j < 80; ++j)
    for (int u = -40; u <= 40; ++u) {
      check_cos(j * 0.78539816339744830962 + u * 0x1p-40);
      if (j >= -2 && j <= 2) check_sin(j * 0.78539816339744830962 + u * 0x1p-40);
      if (j <= 0) check_exp(j * 0.34657359027997265471 * 8 + u * 0x1p-40);
    }
  for (double x : {0x1p-1000, 0x1p-30, -0x1p-30, 1e-8, 1.6, -1.6, 1.5707963267948966}) check_sin(x);
  for (double x : {-0.0, -700.0, -0x1p-60, -121.0, -1e-10}) check_exp(x);
  std::printf("[ approx ] largest errors: cos 2^%.1f (abs), sin 2^%.1f (rel), exp 2^%.1f (rel)\n", std::log2(worst_cos),
              std::log2(worst_sin), std::log2(worst_exp));
}

// The atan(j/16) table is correctly rounded, atan2_approx keeps its bound
// (2^-49.5 absolute), and the hue's shortcut gives R's float.
TEST(CiedeSpeed, Atan2ShortcutEqualsR) {
  for (int j = 0; j <= 16; ++j)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(ciede::kAtanTable[j]),
              std::bit_cast<std::uint64_t>(rmath::cr_atan2(static_cast<double>(j), 16.0)))
        << j;
  ciede::HostMath m;
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<float> ab(-130.0f, 130.0f), tiny(-1e-3f, 1e-3f);
  double worst = 0.0;
  for (int i = 0; i < 1000000; ++i) {
    const float y = (i % 7 == 0) ? tiny(rng) : ab(rng), x = (i % 11 == 0) ? tiny(rng) : ab(rng);
    const double yd = y, xd = x;
    if (yd != 0.0 && xd != 0.0) {
      const double a = ciede::atan2_approx(yd, xd), r = rmath::cr_atan2(yd, xd);
      const double e = a > r ? a - r : r - a;
      worst = std::max(worst, e);
      ASSERT_LE(e, 0x1.6a09e667f3bcdp-50) << y << " " << x;  // 2^-49.5
    }
    ASSERT_EQ(std::bit_cast<std::uint32_t>(ciede::atan2_to_float(yd, xd, m)),
              std::bit_cast<std::uint32_t>(ciede::f(rmath::cr_atan2(yd, xd))))
        << y << " " << x;
  }
  // Octant and table boundaries: |y| = |x|, q = (2j + 1) / 32, signs, zeros.
  for (int j = 0; j <= 32; ++j)
    for (double sy : {1.0, -1.0})
      for (double sx : {1.0, -1.0})
        for (int u = -3; u <= 3; ++u) {
          const double q = j / 32.0 + u * 0x1p-50;
          for (const auto& [y, x] : {std::pair{sy * q * 50.0, sx * 50.0}, std::pair{sy * 50.0, sx * q * 50.0}}) {
            const float yf = static_cast<float>(y), xf = static_cast<float>(x);
            ASSERT_EQ(std::bit_cast<std::uint32_t>(ciede::atan2_to_float(yf, xf, m)),
                      std::bit_cast<std::uint32_t>(ciede::f(rmath::cr_atan2(yf, xf))))
                << yf << " " << xf;
          }
        }
  std::printf("[ atan2_approx ] largest error 2^%.1f\n", std::log2(worst));
}

// The whole formula with the shortcuts equals it without them (R's functions
// for every call, as upstream writes it), on random pairs of every bit
// depth: independent, near-identical and neutral colours.
TEST(CiedeSpeed, FormulaWithShortcutsEqualsWithout) {
  std::mt19937 rng(17);
  std::size_t n = 0;
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const ciede::LabScale s = ciede::lab_scale(bpc);
    const unsigned maxv = (1u << bpc) - 1, mid = 1u << (bpc - 1);
    std::uniform_int_distribution<unsigned> any(0, maxv), step(0, 6);
    ciede::HostMath fast;
    ciede::HostMathNoShortcuts book;
    for (int i = 0; i < 15000; ++i) {
      unsigned c[6];
      for (auto& v : c) v = any(rng);
      if (i % 3 == 1)
        for (int k = 0; k < 3; ++k) c[3 + k] = std::min(maxv, c[k] + step(rng));
      if (i % 3 == 2) c[1] = c[2] = c[4] = c[5] = mid + (i % 2);
      const ciede::Lab a = ciede::lab_from_yuv(c[0], c[1], c[2], s, fast), b = ciede::lab_from_yuv(c[3], c[4], c[5], s, fast);
      ASSERT_EQ(std::bit_cast<std::uint32_t>(ciede::ciede2000(a, b, fast)),
                std::bit_cast<std::uint32_t>(ciede::ciede2000(a, b, book)))
          << bpc << "-bit " << c[0] << " " << c[1] << " " << c[2] << " / " << c[3] << " " << c[4] << " " << c[5];
      ++n;
    }
  }
  EXPECT_EQ(n, 60000u);
}

// The Lab shortcut (pow_approx with bounds carried to the float stores)
// gives R's Lab: every 61st 8-bit colour (every one in
// feature_ciede_long_test) and random colours of the deeper bit depths, range
// ends included; ln_approx keeps its bound.
TEST(CiedeSpeed, LabShortcutEqualsR) {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> arg(0.005, 8.0);
  for (int i = 0; i < 200000; ++i) {
    // Against ln x as a double-double (relative error 2^-99).
    const double x = arg(rng), a = ciede::ln_approx(x);
    const dd::DD r = rmath::detail::log_dd(x);
    const double diff = (a - r.hi) - r.lo;  // a - r.hi is exact (Sterbenz) or tiny
    const double e = diff < 0 ? -diff : diff;
    ASSERT_LE(e, 0x1.5p-52 + 0x1p-53 * (r.hi < 0 ? -r.hi : r.hi)) << x;  // 2^-51.6 + 2^-53 |ln x|
  }
  ciede::HostMath fast;
  ciede::HostMathNoShortcuts book;
  std::size_t n = 0, fallback = 0;
  auto check = [&](unsigned bpc, unsigned y, unsigned u, unsigned v) {
    const ciede::LabScale s = ciede::lab_scale(bpc);
    const ciede::Lab a = ciede::lab_from_yuv(y, u, v, s, fast), b = ciede::lab_from_yuv_r(y, u, v, s, book);
    ciede::Lab c;
    fallback += !ciede::lab_from_yuv_shortcut(y, u, v, s, &c);
    ++n;
    ASSERT_TRUE(std::bit_cast<std::uint32_t>(a.l) == std::bit_cast<std::uint32_t>(b.l) &&
                std::bit_cast<std::uint32_t>(a.a) == std::bit_cast<std::uint32_t>(b.a) &&
                std::bit_cast<std::uint32_t>(a.b) == std::bit_cast<std::uint32_t>(b.b))
        << bpc << "-bit " << y << " " << u << " " << v;
  };
  for (std::uint32_t c = 0; c < (1u << 24); c += 61) check(8, c >> 16, (c >> 8) & 255u, c & 255u);
  for (unsigned bpc : {10u, 12u, 16u}) {
    const unsigned maxv = (1u << bpc) - 1;
    std::uniform_int_distribution<unsigned> any(0, maxv);
    for (int i = 0; i < 30000; ++i) check(bpc, any(rng), any(rng), any(rng));
    for (unsigned y : {0u, 1u, maxv - 1, maxv})
      for (unsigned u : {0u, maxv / 2, maxv})
        for (unsigned v : {0u, maxv / 2 + 1, maxv}) check(bpc, y, u, v);
  }
  std::printf("[ lab ] %zu colours, %zu left to R's pow\n", n, fallback);
}

// R_T's and dH's shortcuts (a sine or 60 exp under a rounding test) equal
// R's expression.
TEST(CiedeSpeed, SineAndExpShortcutsEqualR) {
  ciede::HostMath m;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> angle(-1.6f, 1.6f), root(0.0f, 300.0f), sq(0.0f, 130.0f);
  std::size_t n = 0;
  for (int i = 0; i < 1000000; ++i) {
    const double a = -2.0 * static_cast<double>(root(rng)), x = static_cast<double>(angle(rng));
    ASSERT_EQ(std::bit_cast<std::uint32_t>(ciede::mul_sin_to_float(a, x, m)),
              std::bit_cast<std::uint32_t>(ciede::f(a * rmath::cr_sin(x))))
        << a << " " << x;
    const double e = -static_cast<double>(sq(rng));
    ASSERT_EQ(std::bit_cast<std::uint32_t>(ciede::sixty_exp_to_float(e, m)),
              std::bit_cast<std::uint32_t>(ciede::f(60.0 * rmath::cr_exp(e))))
        << e;
    n += 2;
  }
  // Zeros and signs: R's path decides them.
  for (double a : {0.0, -0.0, 2.0, -2.0})
    for (double x : {0.0, -0.0, 1e-300, 1.0}) {
      const float r = ciede::f(a * rmath::cr_sin(x));
      ASSERT_EQ(std::bit_cast<std::uint32_t>(ciede::mul_sin_to_float(a, x, m)), std::bit_cast<std::uint32_t>(r)) << a << " " << x;
    }
  EXPECT_GT(n, 1000000u);
}

// T through cos_approx and a rounding test equals T through R's cosines
// (every 997th float of [0, 3 pi) here; every one in feature_ciede_long_test).
TEST(CiedeSpeed, UpcaseTShortcutEqualsR) {
  ciede::HostMath m;
  const std::uint32_t end = std::bit_cast<std::uint32_t>(9.42477796f) + 1;  // just past 3 pi
  std::size_t n = 0, undecided = 0;
  for (std::uint32_t b = 0; b < end; b += 997) {
    const float h = std::bit_cast<float>(b);
    const float fast = ciede::upcase_t(h, m), r = ciede::upcase_t_r(h, m);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(fast), std::bit_cast<std::uint32_t>(r)) << "h = " << h;
    ++n;
    const double hd = h;
    const double v = 1.0 - 0.17 * ciede::cos_approx(hd - ciede::kPiOver6) + 0.24 * ciede::cos_approx(2.0 * hd) +
                     0.32 * ciede::cos_approx(3.0 * hd + ciede::kPiOver30) -
                     0.20 * ciede::cos_approx(4.0 * hd - ciede::kSevenPiOver20);
    float t;
    undecided += !rmath::detail::round_to_float(v, 0.0, 0x1p-44, &t);
  }
  std::printf("[ T ] %zu floats, %zu left to R's cosines\n", n, undecided);
  EXPECT_GT(n, 1000000u);
}

// The Lab table returns lab_from_yuv's values (strided colours here; every
// colour in feature_ciede_long_test), also when threads fill it together.
TEST(CiedeSpeed, LabTableEqualsDirectOnStridedColours) {
  ciede::LabTable8& table = ciede::LabTable8::instance();
  const ciede::LabScale s = ciede::lab_scale(8);
  auto check_range = [&](std::uint32_t first, std::uint32_t stride, std::size_t* mismatches) {
    ciede::HostMath m;
    for (std::uint32_t c = first; c < (1u << 24); c += stride) {
      const unsigned y = c >> 16, u = (c >> 8) & 255u, v = c & 255u;
      const ciede::Lab direct = ciede::lab_from_yuv(y, u, v, s, m);
      const ciede::Lab t = table.get(y, u, v);
      *mismatches += std::bit_cast<std::uint32_t>(direct.l) != std::bit_cast<std::uint32_t>(t.l) ||
                     std::bit_cast<std::uint32_t>(direct.a) != std::bit_cast<std::uint32_t>(t.a) ||
                     std::bit_cast<std::uint32_t>(direct.b) != std::bit_cast<std::uint32_t>(t.b);
    }
  };
  // Two threads on the same colours (both may fill an entry), then a second
  // pass that reads what they stored.
  std::size_t bad[3] = {0, 0, 0};
  std::thread t1(check_range, 0u, 211u, &bad[0]);
  std::thread t2(check_range, 0u, 211u, &bad[1]);
  t1.join();
  t2.join();
  check_range(0u, 211u, &bad[2]);
  EXPECT_EQ(bad[0] + bad[1] + bad[2], 0u);
  // Entries of colours no one asked for stay empty (the table is lazy).
  EXPECT_GE(table.filled_entries(), (1u << 24) / 211u);
  EXPECT_LT(table.filled_entries(), 1u << 23);
}

TEST(CiedeSpeed, ColourIndexIsABijection) {
  std::vector<bool> seen(ciede::kColours8, false);
  for (unsigned y = 0; y < 256; ++y)
    for (unsigned u = 0; u < 256; ++u)
      for (unsigned v = 0; v < 256; ++v) {
        const std::uint32_t i = ciede::colour_index8(y, u, v);
        ASSERT_LT(i, ciede::kColours8);
        ASSERT_FALSE(seen[i]) << y << " " << u << " " << v;
        seen[i] = true;
        unsigned a = 0, b = 0, c = 0;
        ciede::colour_of_index8(i, &a, &b, &c);
        ASSERT_TRUE(a == y && b == u && c == v) << i;
      }
}

TEST(CiedeSpeed, PairCacheFindsWhatItHolds) {
  ciede::PairCache cache;
  float v = 0.0f;
  EXPECT_FALSE(cache.find(ciede::PairCache::key(0, 0, 0), ciede::PairCache::key(0, 0, 0), &v));
  const auto a = ciede::PairCache::key(65535, 65535, 65535), b = ciede::PairCache::key(1, 2, 3);
  cache.put(a, b, 2.5f);
  ASSERT_TRUE(cache.find(a, b, &v));
  EXPECT_EQ(v, 2.5f);
  EXPECT_FALSE(cache.find(b, a, &v));
}

// The governor: a poor window pauses the cache for kPause pixels, each
// further poor window in a row doubles the pause (up to kMaxDoublings
// times), and a good window starts over.
TEST(CiedeSpeed, PairCacheGovernorBacksOff) {
  using ciede::PairCache;
  PairCache cache;
  bool granted = false;  // the last use() (which ended a pause) opened the next window
  // A window of lookups that all hit or all miss, then the pixels it pauses.
  auto window = [&](bool hit) {
    for (unsigned i = 0; i < PairCache::kWindow; ++i) {
      if (i > 0 || !granted) {
        EXPECT_TRUE(cache.use());
      }
      cache.record(hit);
    }
    unsigned paused = 0;
    while (!cache.use()) ++paused;
    granted = true;
    return paused;
  };
  for (unsigned k = 0; k <= PairCache::kMaxDoublings + 1; ++k)
    EXPECT_EQ(window(false), PairCache::kPause << std::min(k, PairCache::kMaxDoublings)) << k;
  EXPECT_EQ(window(true), 0u);
  EXPECT_EQ(window(false), PairCache::kPause);
}

// The switches change the speed only: lab_table and pair_cache off, alone
// and together, give the same bits on every fixture pair (8-bit ones use
// the table; the rest check that the option is accepted and inert).
TEST(CiedeSpeed, SwitchesGiveTheSameBits) {
  for (const auto& pair : fixture_pairs()) {
    if (!std::filesystem::exists(golden_dir() / "r" / pair.name / "ciede.json")) continue;
    const RunResult base = run_fixture(pair, {"ciede"});
    for (const char* f : {"ciede=lab_table=false", "ciede=pair_cache=false", "ciede=lab_table=false:pair_cache=false",
                          "ciede=cuda_replay_every=7"}) {
      const RunResult other = run_fixture(pair, {f});
      ASSERT_EQ(other.frames, base.frames);
      EXPECT_EQ(other.scores.metric_name(0), "ciede2000") << f;
      for (std::uint64_t i = 0; i < base.frames; ++i)
        EXPECT_TRUE(same_bits(*base.scores.get(0, i), *other.scores.get(0, i))) << pair.name << " " << f << " frame " << i;
    }
  }
}

TEST(CiedeFormat, RejectsLumaOnlyInput) {
  VideoFormat f;
  f.width = 8;
  f.height = 8;
  f.pix_fmt = PixelFormat::yuv400;
  SyntheticReader r("a", f, 1, [](std::uint64_t, unsigned, unsigned, unsigned) { return 0u; });
  SyntheticReader d("b", f, 1, [](std::uint64_t, unsigned, unsigned, unsigned) { return 0u; });
  std::vector<FeatureRequest> req{parse_feature_request("ciede")};
  EXPECT_THROW(run(r, d, std::move(req), {}), Error);
}

}  // namespace
}  // namespace exactvmaf::test
