// cambi against the golden numbers of upstream libvmaf (runs cambi*,
// tests/golden/README.md): bit for bit against R (upstream with the exact
// top-k sum and correctly rounded libm) on every frame and pooled value,
// heat-map files byte for byte, output names and order, the measured
// distance to plain upstream; thread and bit-depth invariance; the fp64
// islands and the luminance tables against MPFR; the top-k rule against a
// sort and an MPFR sum; the option and input errors.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "features/cambi/cambi_host.hpp"
#include "features/cambi/cambi_math.hpp"
#include "features/cambi/cambi_simd.hpp"
#include "exactvmaf/simd.hpp"
#include "support/simd_check.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"
#include "cambi_tablegen.hpp"
#include "support/tablegen.hpp"

namespace exactvmaf::test {
namespace {

std::vector<GoldenCase> cambi_cases() { return golden_cases_for(cambi_golden_runs()); }

std::filesystem::path fresh_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / fmt::format("exactvmaf_cambi_{}_{}", ::getpid(), name);
  std::filesystem::remove_all(d);
  return d;
}

// The run with HEATMAPS replaced by `dir`.
GoldenRun with_heatmaps(GoldenRun run, const std::string& dir) {
  for (auto& f : run.features)
    if (const auto at = f.find("HEATMAPS"); at != std::string::npos) f.replace(at, 8, dir);
  return run;
}

std::string fnv1a64(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::uint64_t h = 0xcbf29ce484222325ull;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i)
      h = (h ^ static_cast<unsigned char>(buf[i])) * 0x100000001b3ull;
    if (!in) break;
  }
  return fmt::format("{:016x}", h);
}

class CambiGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CambiGolden, EqualsRBitForBitAndMeasuresUpstream) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  const auto r = read_json(r_path);
  const auto heat_golden = golden_dir() / "r" / gc.pair / (gc.run + ".heatmaps");
  const auto heat_dir = fresh_dir(golden_case_name(gc));
  const GoldenRun run = with_heatmaps(cambi_golden_runs().at(gc.run), heat_dir.string());

  const RunResult ours = run_golden(*pair, run);
  ASSERT_EQ(r.at("frames").size(), (ours.frames + run.subsample - 1) / run.subsample);
  EXPECT_EQ(metric_names(ours), golden_metric_names(r_path));
  {
    const GoldenComparison c = compare_with_golden(r, ours, run.subsample);
    EXPECT_TRUE(c.values > 0 && c.differing == 0)
        << c.differing << " of " << c.values << " values differ from R; first: " << c.first_difference;
  }

  if (std::filesystem::exists(heat_golden)) {
    const auto files = read_json(heat_golden).at("files");
    std::size_t seen = 0;
    for (const auto& e : std::filesystem::directory_iterator(heat_dir)) {
      ++seen;
      const std::string fn = e.path().filename().string();
      ASSERT_TRUE(files.contains(fn)) << "unexpected heat map " << fn;
      EXPECT_EQ(std::filesystem::file_size(e.path()), files.at(fn).at("bytes").get<std::uintmax_t>()) << fn;
      EXPECT_EQ(fnv1a64(e.path()), files.at(fn).at("fnv1a64").get<std::string>()) << fn << " differs from upstream's";
    }
    EXPECT_EQ(seen, files.size());
    std::filesystem::remove_all(heat_dir);
  }

  const auto upstream_path = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(upstream_path));
  report_upstream_distance(gc, compare_with_golden(read_json(upstream_path), ours, run.subsample));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CambiGolden, ::testing::ValuesIn(cambi_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CambiGolden);

TEST(CambiGoldenSet, IsPresent) {
  // Every run on the four pairs upstream accepts (s01, s04, b01 10-bit, b02
  // 1080p), the extra runs on s01.
  EXPECT_GE(cambi_cases().size(), 67u);
  bool hrs_at_1080p = false;
  for (const auto& c : cambi_cases()) hrs_at_1080p = hrs_at_1080p || (c.pair == "b02_1920x1080_8b_420" && c.run == "cambi_v1016");
  EXPECT_TRUE(hrs_at_1080p);
}

TEST(CambiThreads, SameBitsForEveryThreadCount) {
  for (const char* name : {"s01_576x324_8b_420", "b01_320x240_10b_420"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair) << name;
    expect_thread_invariant(*pair, {"cambi=full_ref=true", "cambi=enc_width=300:enc_height=225:max_log_contrast=4"});
  }
}

// The same samples at another bit depth give the same bits: a 10-bit input
// shifted to 12 and 16 bits (to_10bit rounds the shift back exactly), and
// an 8-bit input shifted to 10 bits with enc_bitdepth=8 (the same
// anti-dithering).
TEST(CambiBitDepth, ShiftedInputsGiveTheSameScores) {
  struct Case {
    const char* pair;
    unsigned bpc, shift;
    const char* feature;
    const char* base_feature;
  };
  for (const Case& k : {Case{"b01_320x240_10b_420", 12, 2, "cambi", "cambi"},
                        Case{"b01_320x240_10b_420", 16, 6, "cambi", "cambi"},
                        Case{"s01_576x324_8b_420", 10, 2, "cambi=enc_bitdepth=8", "cambi"}}) {
    const auto pair = fixture_pair(k.pair);
    ASSERT_TRUE(pair);
    const RunResult base = run_fixture(*pair, {k.base_feature});
    auto ref = open_fixture(*pair, true);
    auto dist = open_fixture(*pair, false);
    std::vector<std::unique_ptr<FrameBuffer>> frames[2];
    for (int side = 0; side < 2; ++side) {
      VideoReader& rd = side ? *dist : *ref;
      while (true) {
        auto fb = std::make_unique<FrameBuffer>(rd.info().format);
        if (!rd.read_frame(*fb)) break;
        frames[side].push_back(std::move(fb));
      }
    }
    VideoFormat fmt = ref->info().format;
    const unsigned in_bpc = fmt.bitdepth;
    fmt.bitdepth = k.bpc;
    auto sample = [&, in_bpc](int side, std::uint64_t f, unsigned p, unsigned x, unsigned y) -> unsigned {
      const FrameBuffer& fb = *frames[side][f];
      const std::uint8_t* row = fb.plane(p) + static_cast<std::ptrdiff_t>(y) * fb.stride(p);
      unsigned v = 0;
      if (in_bpc == 8) v = row[x];
      else {
        std::uint16_t s;
        std::memcpy(&s, row + 2 * x, 2);
        v = s;
      }
      return v << k.shift;
    };
    SyntheticReader r2("ref", fmt, frames[0].size(), [&](auto f, auto p, auto x, auto y) { return sample(0, f, p, x, y); });
    SyntheticReader d2("dist", fmt, frames[1].size(), [&](auto f, auto p, auto x, auto y) { return sample(1, f, p, x, y); });
    const RunResult shifted = run(r2, d2, {parse_feature_request(k.feature)}, RunOptions{});
    ASSERT_EQ(shifted.frames, base.frames);
    for (std::uint64_t f = 0; f < base.frames; ++f)
      EXPECT_TRUE(same_bits(*shifted.scores.get(0, f), *base.scores.get(0, f)))
          << k.pair << " at " << k.bpc << " bits, frame " << f;
  }
}

// ---- tables and islands ---------------------------------------------------------

TEST(CambiTables, ReciprocalTableMatchesGenerator) {
  const std::filesystem::path committed = EXACTVMAF_SOURCE_DIR "/src/features/cambi/cambi_reciprocal_table.hpp";
  ASSERT_TRUE(std::filesystem::exists(committed));
  EXPECT_TRUE(read_text_file(committed) == generate_cambi_reciprocal_table())
      << committed.string() << " differs from tests/features/cambi_tablegen.cpp's output";
  // Upstream's nine-digit literals: mostly 1/i, 42 entries an ulp away.
  int off = 0;
  for (int i = 1; i < cambi::reciprocal_table_entries; ++i) {
    const float exact = 1.0f / static_cast<float>(i);
    if (cambi::reciprocal_table[i] != exact) {
      ++off;
      EXPECT_EQ(std::abs(std::bit_cast<std::int32_t>(cambi::reciprocal_table[i]) - std::bit_cast<std::int32_t>(exact)), 1) << i;
    }
  }
  EXPECT_EQ(off, 42);
  EXPECT_EQ(cambi::reciprocal_table[0], 0.0f);
}

// One MPFR operation rounded to binary64 (normal range).
struct Mp {
  mpfr_t v;
  Mp() { mpfr_init2(v, 53); }
  explicit Mp(double d) : Mp() { mpfr_set_d(v, d, MPFR_RNDN); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp& o) : Mp() { mpfr_set(v, o.v, MPFR_RNDN); }
  Mp& operator=(const Mp& o) {
    mpfr_set(v, o.v, MPFR_RNDN);
    return *this;
  }
  double d() const { return mpfr_get_d(v, MPFR_RNDN); }
};
Mp mp_pow(const Mp& a, const Mp& b) {
  Mp r;
  mpfr_pow(r.v, a.v, b.v, MPFR_RNDN);
  return r;
}
Mp mp_op(const Mp& a, const Mp& b, char op) {
  Mp r;
  if (op == '+') mpfr_add(r.v, a.v, b.v, MPFR_RNDN);
  if (op == '-') mpfr_sub(r.v, a.v, b.v, MPFR_RNDN);
  if (op == '*') mpfr_mul(r.v, a.v, b.v, MPFR_RNDN);
  if (op == '/') mpfr_div(r.v, a.v, b.v, MPFR_RNDN);
  return r;
}

// The EOTF chains of luminance_tools.c with every operation correctly
// rounded to double, for all 1024 10-bit samples: the fp64 islands behind
// the tvi and vlt tables.
TEST(CambiIslands, LuminanceEqualsMpfrChainForEverySample) {
  for (int s = 0; s < 1024; ++s) {
    const int clipped = std::clamp(s, 64, 940);
    const Mp v = mp_op(Mp(static_cast<double>(clipped - 64)), Mp(876.0), '/');
    const Mp g = mp_op(Mp(1.0), Mp(2.4), '/');
    const Mp lw = mp_pow(Mp(300.0), g), lb = mp_pow(Mp(0.01), g);
    const Mp a = mp_pow(mp_op(lw, lb, '-'), Mp(2.4));
    const Mp b = mp_op(lb, mp_op(lw, lb, '-'), '/');
    const Mp bt = mp_op(a, mp_pow(mp_op(v, b, '+'), Mp(2.4)), '*');
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cambi::luminance(s, cambi::Eotf::bt1886)),
              std::bit_cast<std::uint64_t>(bt.d()))
        << "bt1886 sample " << s;
    const Mp m2inv = mp_op(Mp(1.0), Mp(78.84375), '/'), m1inv = mp_op(Mp(1.0), Mp(0.1593017578125), '/');
    const Mp pw = mp_pow(v, m2inv);
    Mp num = mp_op(pw, Mp(0.8359375), '-');
    if (!(num.d() > 0)) num = Mp(0.0);
    const Mp den = mp_op(Mp(18.8515625), mp_op(Mp(18.6875), pw, '*'), '-');
    const Mp pq = mp_op(Mp(10000.0), mp_pow(mp_op(num, den, '/'), m1inv), '*');
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cambi::luminance(s, cambi::Eotf::pq)), std::bit_cast<std::uint64_t>(pq.d()))
        << "pq sample " << s;
  }
}

// tvi_for_diff grows with the diff over the option range, so the histogram
// band holds every count c_value reads (what upstream's band assumes); the
// bisection returns a sample whose step is visible and whose next is not.
TEST(CambiIslands, TviTablesGrowWithTheDiff) {
  for (auto eotf : {cambi::Eotf::bt1886, cambi::Eotf::pq})
    for (int i = 0; i <= 160; ++i) {
      const double t = 0.0001 * std::pow(10.0, i / 40.0);  // 1e-4 .. 1
      cambi::Params p;
      p.num_diffs = 32;
      int prev = -1;
      for (int d = 0; d < 32; ++d) {
        const int tvi = cambi::tvi_for_diff(d + 1, t, eotf);
        EXPECT_GE(tvi, prev) << t << " diff " << d + 1;
        prev = tvi;
        p.tvi_for_diff[d] = static_cast<cambi::u16>(tvi + 32);
        if (tvi > 0 && tvi < 1023) {
          const double l = cambi::luminance(tvi, eotf), l1 = cambi::luminance(tvi + 1, eotf);
          EXPECT_GT(cambi::luminance(tvi + d + 1, eotf) - l, t * l) << t << " " << d;
          EXPECT_FALSE(cambi::luminance(tvi + 1 + d + 1, eotf) - l1 > t * l1) << t << " " << d;
        }
      }
      cambi::finish_params(p);
      EXPECT_TRUE(cambi::band_covers_reads(p)) << t;
    }
}

TEST(CambiIslands, VisLumThreshold) {
  EXPECT_EQ(cambi::vlt_luma(0.0, cambi::Eotf::bt1886), 0);
  // The foot's luminance is Lb = 0.01 up to rounding; at or below it: 0.
  const double foot = cambi::luminance(64, cambi::Eotf::bt1886);
  EXPECT_NEAR(foot, 0.01, 1e-15);
  EXPECT_EQ(cambi::vlt_luma(foot, cambi::Eotf::bt1886), 0);
  EXPECT_EQ(cambi::vlt_luma(std::nextafter(foot, 1.0), cambi::Eotf::bt1886), 65);
  const int v = cambi::vlt_luma(0.06, cambi::Eotf::bt1886);
  ASSERT_GT(v, 64);
  EXPECT_LT(cambi::luminance(v - 1, cambi::Eotf::bt1886), 0.06);
  EXPECT_GE(cambi::luminance(v, cambi::Eotf::bt1886), 0.06);
  const double peak = cambi::luminance(940, cambi::Eotf::bt1886);
  EXPECT_EQ(cambi::vlt_luma(std::nextafter(peak, 1e9), cambi::Eotf::bt1886), -1);
  EXPECT_EQ(cambi::vlt_luma(peak, cambi::Eotf::bt1886), 940);
}

// A visibility threshold above every tvi sample leaves no sample that can
// band: the band is empty and cambi is 0 (upstream's band size wraps to some
// 65000 values there and it crashes).
TEST(CambiIslands, EmptyBandGivesZero) {
  const auto pair = fixture_pair("b01_320x240_10b_420");
  ASSERT_TRUE(pair);
  const std::string feature = "cambi=eotf=pq:tvi_threshold=0.2:cambi_vis_lum_threshold=20";
  VideoFormat fmt;
  fmt.width = 320;
  fmt.height = 240;
  fmt.bitdepth = 10;
  const cambi::Config c = cambi::make_config(parse_feature_request(feature).options, fmt);
  EXPECT_EQ(c.params.v_band_size, 0);
  const RunResult r = run_fixture(*pair, {feature});
  for (std::uint64_t f = 0; f < r.frames; ++f) EXPECT_TRUE(same_bits(*r.scores.get(0, f), 0.0)) << f;
}

// resample_index_f64 (the double 0.5) on every float in [-0.5, 2^14) from
// 2^-6 up in magnitude: floor(x + 1/2) exactly; resample_start_f64 against
// MPFR for every ratio of the sizes below.
TEST(CambiIslands, ResampleIslandsExact) {
  std::uint64_t checked = 0;
  for (std::uint32_t u = std::bit_cast<std::uint32_t>(0x1p-6f); u < std::bit_cast<std::uint32_t>(0x1p14f); u += 3) {
    const float x = std::bit_cast<float>(u);
    // floor(x + 0.5) from the bits: x = m 2^e.
    const int e = static_cast<int>((u >> 23) & 0xffu) - 150;
    const std::uint64_t m = (u & 0x7fffffu) | 0x800000u;
    // x + 1/2 = (2m 2^e + 2^0) / 2 ... use 2^-40 units (x >= 2^-6: exact).
    const std::uint64_t units = (m << (e + 40)) + (std::uint64_t{1} << 39);
    ASSERT_EQ(cambi::resample_index_f64(x), static_cast<int>(units >> 40)) << x;
    if (u < std::bit_cast<std::uint32_t>(0.5f)) {
      EXPECT_EQ(cambi::resample_index_f64(-x), 0) << -x;
    }
    ++checked;
  }
  EXPECT_GT(checked, 40000000u);
  mpfr_t r, t;
  mpfr_init2(r, 200);
  mpfr_init2(t, 24);
  for (unsigned in = 200; in <= 7680; in += 37)
    for (unsigned out = 150; out <= 7680; out += 41) {
      const float ratio = static_cast<float>(in) / static_cast<float>(out);
      mpfr_set_flt(r, ratio, MPFR_RNDN);
      mpfr_div_ui(r, r, 2, MPFR_RNDN);
      mpfr_sub_d(r, r, 0.5, MPFR_RNDN);
      mpfr_set(t, r, MPFR_RNDN);
      ASSERT_EQ(cambi::resample_start_f64(ratio), mpfr_get_flt(t, MPFR_RNDN)) << in << "/" << out;
    }
  mpfr_clears(r, t, static_cast<mpfr_ptr>(nullptr));
}

// The nearest-neighbour maps stay inside the picture for every size pair up
// to 4200 (a sample of them here; all were checked once); above, upstream's
// float chain can reach the size itself (7680 -> 6196 does), and the index is
// clamped to the last sample.
TEST(CambiIslands, NearestIndicesStayInside) {
  std::vector<cambi::u32> idx(7680);
  for (unsigned in = 4200; in >= 4000; in -= 1)
    for (unsigned out = 150; out <= in; out += 1 + out / 64)
      ASSERT_TRUE(cambi::nearest_indices(in, out, idx.data())) << in << " -> " << out;
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    const unsigned in = 150 + rng() % 4051, out = 150 + rng() % (in - 149);
    ASSERT_TRUE(cambi::nearest_indices(in, out, idx.data())) << in << " -> " << out;
  }
  EXPECT_FALSE(cambi::nearest_indices(7680, 6196, idx.data()));
  EXPECT_EQ(idx[6195], 7679u);
  // Same size: the identity.
  ASSERT_TRUE(cambi::nearest_indices(1080, 1080, idx.data()));
  for (unsigned j = 0; j < 1080; ++j) ASSERT_EQ(idx[j], j);
}

// heatmap_sample_f64: the double product truncated to int32, low 16 bits.
TEST(CambiIslands, HeatmapSampleAgainstMpfr) {
  std::mt19937_64 rng(3);
  mpfr_t a;
  mpfr_init2(a, 53);
  for (int i = 0; i < 200000; ++i) {
    const int max_w = std::array{1, 2, 4, 6, 8, 9}[rng() % 6];
    const int ws = 1 + 2 * static_cast<int>(rng() % 33);
    const double scale = 65535.0 / static_cast<double>(max_w * ws * ws / 4 ? max_w * ws * ws / 4 : 1);
    const float c = static_cast<float>(rng() % 100000) / 7.0f;
    mpfr_set_d(a, scale, MPFR_RNDN);
    mpfr_mul_d(a, a, static_cast<double>(c), MPFR_RNDN);
    const long t = mpfr_get_si(a, MPFR_RNDZ);
    ASSERT_EQ(cambi::heatmap_sample_f64(scale, c), static_cast<cambi::u16>(t & 0xffff)) << scale << " " << c;
  }
  mpfr_clear(a);
  // Above 65535 the value wraps (max_log_contrast 0: 4225 / 4 rounds down to 1056).
  EXPECT_EQ(cambi::heatmap_sample_f64(65535.0 / 1056.0, 1056.25f), static_cast<cambi::u16>(65550 - 65536));
  // A window of one pixel (window_size 15 at 216x216) makes the scale
  // infinite: x86's conversion gives 0x80000000, whose low bits are 0.
  const double inf = 65535.0 / static_cast<double>(1 * 1 * 1 / 4);
  EXPECT_EQ(cambi::heatmap_sample_f64(inf, 0.0f), 0);
  EXPECT_EQ(cambi::heatmap_sample_f64(inf, 3.0f), 0);
}

// ---- the top-k rule ---------------------------------------------------------------

// R's pooled value: the k largest sorted out, summed exactly with MPFR,
// rounded once, divided by k.
double reference_pool(std::vector<float> c, double topk) {
  const cambi::u32 k = cambi::topk_count(topk, static_cast<cambi::u32>(c.size()));
  std::sort(c.begin(), c.end(), std::greater<float>());
  mpfr_t s;
  mpfr_init2(s, 2048);
  mpfr_set_zero(s, 1);
  for (cambi::u32 i = 0; i < k; ++i) mpfr_add_d(s, s, static_cast<double>(c[i]), MPFR_RNDN);
  const double sum = mpfr_get_d(s, MPFR_RNDN);
  mpfr_clear(s);
  return sum / static_cast<double>(static_cast<int>(k));
}

TEST(CambiTopK, RadixSelectEqualsSortAndExactSum) {
  std::mt19937_64 rng(11);
  std::vector<cambi::u32> high(65536), low(65536);
  std::size_t cases = 0;
  for (std::size_t n : {1u, 2u, 3u, 17u, 1000u, 65537u, 300000u})
    for (int kind = 0; kind < 5; ++kind)
      for (double topk : {0.0001, 0.1, 0.6, 0.999, 1.0}) {
        std::vector<float> c(n);
        for (auto& v : c) {
          const auto r = rng();
          switch (kind) {
            case 0: v = 0.0f; break;                                                  // all zero
            case 1: v = (r % 10) < 7 ? 0.0f : static_cast<float>(r % 5) * 0.25f; break;  // few values, ties
            case 2: v = static_cast<float>((r >> 8) % 1000000) / 97.0f; break;         // many values
            case 3: v = std::bit_cast<float>(static_cast<cambi::u32>(0x3f800000u + (r % 64)));
              break;  // one top-16 bucket
            default: v = static_cast<float>(9 * (r % 2113) * (r % 2111)) * cambi::reciprocal_table[1 + r % 4225];
          }
        }
        const double ours = cambi::topk_pool(c.data(), static_cast<cambi::u32>(n), topk, high.data(), low.data());
        ASSERT_TRUE(same_bits(ours, reference_pool(c, topk))) << "n " << n << " kind " << kind << " topk " << topk;
        ASSERT_TRUE(std::all_of(high.begin(), high.end(), [](cambi::u32 x) { return x == 0; }));
        ASSERT_TRUE(std::all_of(low.begin(), low.end(), [](cambi::u32 x) { return x == 0; }));
        ++cases;
      }
  EXPECT_EQ(cases, 175u);
}

TEST(CambiTopK, CountAndRepeatedAdd) {
  EXPECT_EQ(cambi::topk_count(0.6, 10), 6u);
  EXPECT_EQ(cambi::topk_count(0.0001, 100), 1u);  // clipped to 1
  EXPECT_EQ(cambi::topk_count(1.0, 7), 7u);
  EXPECT_EQ(cambi::topk_count(0.6, 5), 3u);  // 3.0000000000000004 truncated
  rmath::ExactSumF32 a{}, b{};
  const float x = 1234.5678f;
  for (int i = 0; i < 100000; ++i) a.add(x);
  cambi::add_repeated(b, x, 100000);
  EXPECT_TRUE(same_bits(a.round_to_double(), b.round_to_double()));
  rmath::ExactSumF32 z{};
  cambi::add_repeated(z, 0.0f, 5);
  EXPECT_EQ(z.round_to_double(), 0.0);
}

// ---- errors -------------------------------------------------------------------------

std::string config_error(const std::string& feature, unsigned w, unsigned h, unsigned bpc = 8) {
  VideoFormat fmt;
  fmt.width = w;
  fmt.height = h;
  fmt.bitdepth = bpc;
  try {
    const FeatureRequest req = parse_feature_request(feature);
    (void)cambi::make_config(req.options, fmt);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CambiErrors, OptionsAndSizes) {
  struct Case {
    std::string feature;
    unsigned w, h;
    const char* message;
  };
  const std::string heat_under_file = (fresh_dir("file") += "_f").string();
  std::ofstream(heat_under_file) << "x";
  const Case cases[] = {
      {"cambi", 176, 144, "needs a width or height of at least 216"},
      {"cambi=enc_width=320", 640, 480, "enc_width and enc_height must be given together"},
      {"cambi=enc_height=320", 640, 480, "enc_width and enc_height must be given together"},
      {"cambi=full_ref=true:src_width=640", 640, 480, "src_width and src_height must be given together"},
      {"cambi=src_width=640:src_height=480", 640, 480, "used only with full_ref=true"},
      {"cambi=full_ref=true:src_width=640:src_height=200:enc_width=320:enc_height=240", 640, 480,
       "different orientations"},
      {"cambi=window_size=127", 3840, 2160, "window_size 127 is too large"},
      {"cambi", 3840, 216, "too narrow for its window"},
      {"cambi=cambi_high_res_speedup=720", 1920, 1080, "cambi_high_res_speedup=720"},
      {"cambi=eotf=hlg", 640, 480, "unknown EOTF 'hlg'"},
      {"cambi=cambi_eotf=pq:eotf=bt1886", 640, 480, ""},  // eotf at its default: no conflict
      {"cambi=topk=0.3:cambi_topk=0.4", 640, 480, "two names of one option"},
      {"cambi=cambi_vis_lum_threshold=300.5", 640, 480, "out of range"},
      {"cambi=heatmaps_path=" + heat_under_file + "/x", 640, 480, "heatmaps_path"},
  };
  for (const Case& c : cases) {
    const std::string e = config_error(c.feature, c.w, c.h);
    if (std::string(c.message).empty()) {
      EXPECT_EQ(e, "") << c.feature;
      continue;
    }
    EXPECT_NE(e.find(c.message), std::string::npos) << c.feature << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  // bt1886's peak is 300 cd/m^2 up to rounding: a threshold above it is refused.
  const double peak = cambi::luminance(940, cambi::Eotf::bt1886);
  const std::string at_300 = config_error("cambi=cambi_vis_lum_threshold=300", 640, 480);
  EXPECT_EQ(at_300.empty(), peak >= 300.0) << at_300;
  std::filesystem::remove(heat_under_file);
}

// Upstream refuses a luma sample above the bit depth (and so do we, naming
// the frame), also in the reference with full_ref.
TEST(CambiErrors, SampleAboveBitDepth) {
  VideoFormat fmt;
  fmt.width = 256;
  fmt.height = 256;
  fmt.bitdepth = 10;
  SyntheticReader ref("ref", fmt, 3, [](std::uint64_t, unsigned, unsigned x, unsigned y) { return (x + y) % 1024; });
  SyntheticReader dist("dist", fmt, 3, [](std::uint64_t f, unsigned p, unsigned x, unsigned y) {
    return f == 2 && p == 0 && x == 7 && y == 9 ? 1024u : (x * 3 + y) % 1024;
  });
  try {
    run(ref, dist, {parse_feature_request("cambi")}, RunOptions{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("frame 2 of the distorted input has a luma sample of 1024"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace exactvmaf::test

namespace exactvmaf::test {
namespace {

// ---- SIMD kernels: bit for bit the scalar row functions ------------------------------

const unsigned simd_widths[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 18, 31, 33, 47, 64, 100, 257, 600};

// Rows of `w` samples with a few distinct values near `base` (equal
// neighbours, ties and in/out-of-band values all occur).
std::vector<cambi::u16> few_values(std::size_t n, std::mt19937& rng, unsigned base, unsigned spread) {
  std::vector<cambi::u16> v(n + 64);
  for (auto& x : v) x = static_cast<cambi::u16>(base + rng() % spread);
  return v;
}

// The tables of a cambi option set (at 640x480 8-bit).
cambi::Params params_for(const std::string& feature) {
  VideoFormat fmt;
  fmt.width = 640;
  fmt.height = 480;
  return cambi::make_config(parse_feature_request(feature).options, fmt).params;
}

// The histogram update by definition: each masked in-band sample adds
// delta to the columns within pad of it, clipped to the row.
void naive_update(cambi::u16* hist, const cambi::u16* img, const cambi::u16* mask, unsigned w, int pad,
                  const cambi::Params& p, cambi::u16 delta) {
  for (int j = 0; j < static_cast<int>(w); ++j) {
    if (!mask[j] || !cambi::in_band(img[j], p)) continue;
    cambi::u16* row = hist + static_cast<std::size_t>(img[j] - p.v_band_base) * w;
    for (int k = std::max(0, j - pad); k < std::min(static_cast<int>(w), j + pad + 1); ++k)
      row[k] = static_cast<cambi::u16>(row[k] + delta);
  }
}

// Every entry of cambi's kernel table at every SIMD level against the scalar
// entry (the one harness, support/simd_check.hpp), and the histogram update
// against its definition.
TEST(CambiSimd, RowKernelsEqualScalar) {
  KernelTableCheck<cambi::Kernels> check(&cambi::kernels_for);
  const cambi::Kernels& s = cambi::scalar_kernels();
  std::mt19937 rng(7);
  const cambi::Params params[] = {params_for("cambi"), params_for("cambi=max_log_contrast=5:cambi_vis_lum_threshold=0.06"),
                                  params_for("cambi=max_log_contrast=0:tvi_threshold=0.2:cambi_vis_lum_threshold=1:eotf=pq")};
  std::vector<cambi::CountRun> runs(2 * 600);
  std::size_t nonzero_c = 0;
  using Vec = std::vector<cambi::u16>;
  for (unsigned w : simd_widths)
    for (int trial = 0; trial < 6; ++trial) {
      const std::string what = fmt::format("w {} trial {}", w, trial);
      // derivative_row: a 3-row image, rows 0 and 2 (the last).
      const auto img = few_values(3 * w, rng, 100, trial % 2 ? 2 : 4);
      for (unsigned row : {0u, 2u})
        check.check("derivative_row", &cambi::Kernels::derivative_row, what + fmt::format(" row {}", row),
                    [&](auto fn) {
                      Vec out(w + 64, 7);
                      fn(img.data(), w, w, 3, row, out.data());
                      return out;
                    });
      // decimate_row, apart and in place.
      const auto src = few_values(2 * w, rng, 0, 1024);
      check.check("decimate_row", &cambi::Kernels::decimate_row, what, [&](auto fn) {
        Vec out(w + 64, 0), in_place = src;
        fn(src.data(), w, out.data());
        fn(in_place.data(), w, in_place.data());
        in_place.resize(w);
        return std::make_tuple(out, in_place);
      });
      const auto r0 = few_values(w, rng, 500, 3), r1 = few_values(w, rng, 500, 3), r2 = few_values(w, rng, 500, 4);
      check.check("mode_horizontal_row", &cambi::Kernels::mode_horizontal_row, what, [&](auto fn) {
        Vec out(w + 64, 0);
        fn(r0.data(), w, out.data());
        return out;
      });
      check.check("mode_vertical_row", &cambi::Kernels::mode_vertical_row, what, [&](auto fn) {
        Vec out(w + 64, 0);
        fn(r0.data(), r1.data(), r2.data(), w, out.data());
        return out;
      });
      // Histogram updates (enter a row, leave one, slide) and c-values.
      for (const cambi::Params& p : params) {
        const int pad = static_cast<int>(rng() % 34);
        const unsigned base = p.v_band_base + p.v_band_size / 3;
        const auto in_img = few_values(w, rng, base, trial == 0 ? 1 : (trial < 3 ? 6 : 40));
        const auto out_img = few_values(w, rng, base, trial == 0 ? 1 : (trial < 3 ? 6 : 40));
        const auto mask = few_values(w, rng, 0, 2), mask2 = few_values(w, rng, 0, 2);
        const std::size_t cells = static_cast<std::size_t>(p.v_band_size) * w + 64;
        const std::uint32_t salt = rng();
        Vec hist(cells), naive;
        for (std::size_t i = 0; i < cells; ++i) hist[i] = static_cast<cambi::u16>(mix(i ^ salt) % 200);
        naive = hist;
        const unsigned n_add = cambi::row_runs(in_img.data(), mask.data(), w, p, false, runs.data());
        std::vector<cambi::CountRun> add(runs.begin(), runs.begin() + n_add);
        const unsigned n_remove = cambi::row_runs(out_img.data(), mask2.data(), w, p, true, runs.data());
        std::vector<cambi::CountRun> remove(runs.begin(), runs.begin() + n_remove);
        const unsigned n_slide = cambi::slide_runs(out_img.data(), mask2.data(), in_img.data(), mask.data(), w, p, runs.data());
        ASSERT_LE(n_slide, 2 * w);
        std::vector<cambi::CountRun> slide(runs.begin(), runs.begin() + n_slide);
        for (const auto* step : {&add, &remove, &slide}) {
          const std::string step_name = step == &add ? " add" : step == &remove ? " remove" : " slide";
          check.check("apply_runs", &cambi::Kernels::apply_runs, what + step_name, [&](auto fn) {
            Vec h = hist;
            fn(h.data(), step->data(), static_cast<unsigned>(step->size()), pad, w, p);
            return h;
          });
          s.apply_runs(hist.data(), step->data(), static_cast<unsigned>(step->size()), pad, w, p);
        }
        naive_update(naive.data(), in_img.data(), mask.data(), w, pad, p, 1);
        naive_update(naive.data(), out_img.data(), mask2.data(), w, pad, p, 0xffff);
        naive_update(naive.data(), out_img.data(), mask2.data(), w, pad, p, 0xffff);
        naive_update(naive.data(), in_img.data(), mask.data(), w, pad, p, 1);
        ASSERT_EQ(hist, naive) << what << ": apply_runs against the per-sample update";
        // c-values from counts that keep p0 + pmax inside the reciprocal table.
        for (std::size_t i = 0; i < cells; ++i) hist[i] = static_cast<cambi::u16>(mix(i + salt) % 2000);
        check.check("c_values_row", &cambi::Kernels::c_values_row, what, [&](auto fn) {
          std::vector<float> c(w + 8, -1.0f);
          fn(hist.data(), in_img.data(), mask.data(), w, p, cambi::reciprocal_table, c.data());
          c.resize(w);
          return c;
        });
        std::vector<float> c(w + 8, -1.0f);
        s.c_values_row(hist.data(), in_img.data(), mask.data(), w, p, cambi::reciprocal_table, c.data());
        for (unsigned j = 0; j < w; ++j) nonzero_c += c[j] > 0.0f;
      }
    }
  EXPECT_GT(nonzero_c, 5000u);
  std::printf("[ info ] %zu non-zero c-values compared, %llu kernel checks\n", nonzero_c,
              static_cast<unsigned long long>(check.checks()));
}

// The whole feature at each SIMD level on the fixtures, several option sets.
TEST(CambiSimd, FeatureEqualsScalarOnFixtures) {
  const std::vector<std::string> features = {"cambi=full_ref=true", "cambi=max_log_contrast=5:cambi_vis_lum_threshold=0.06",
                                             "cambi=enc_width=300:enc_height=225:window_size=127"};
  for (const char* name : {"s01_576x324_8b_420", "b01_320x240_10b_420"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair);
    expect_levels_agree([&] { return run_fixture(*pair, features); }, name);
  }
}

}  // namespace
}  // namespace exactvmaf::test
