// SpEED-QA (speed_chroma, speed_temporal) against the golden numbers of
// upstream libvmaf (tests/golden/README.md, runs speed*): bit for bit against
// R on every frame, the measured distance to plain upstream; output names and
// order; thread invariance; option and size errors; the singular cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>

#include <fmt/format.h>
#include <map>
#include <string>
#include <vector>

#include "exactvmaf/error.hpp"
#include "features/speed/speed_math.hpp"
#include "io/warnings.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"

namespace exactvmaf::test {
namespace {

std::vector<GoldenCase> speed_cases() { return golden_cases_for(speed_golden_runs()); }

// Collects io::warn messages while alive.
struct WarningCollector {
  std::vector<std::string> messages;
  io::WarningHandler previous;
  WarningCollector() {
    previous = io::set_warning_handler([this](const std::string& m) { messages.push_back(m); });
  }
  ~WarningCollector() { io::set_warning_handler(previous); }
};

class SpeedGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(SpeedGolden, EqualsRBitForBitAndMeasuresUpstream) {
  const auto& gc = GetParam();
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const GoldenRun& run = speed_golden_runs().at(gc.run);
  const auto r_path = golden_dir() / "r" / gc.pair / (gc.run + ".json");
  const auto r = read_json(r_path);
  const auto upstream_path = golden_dir() / "upstream" / gc.pair / (gc.run + ".json");
  ASSERT_TRUE(std::filesystem::exists(upstream_path));
  const auto up = read_json(upstream_path);

  WarningCollector warnings;
  const RunResult ours = run_golden(*pair, run);
  ASSERT_EQ(r.at("frames").size(), ours.frames);
  const GoldenComparison vs_r = compare_with_golden(r, ours, run.subsample);
  EXPECT_GT(vs_r.values, 0u);
  EXPECT_EQ(vs_r.differing, 0u) << vs_r.differing << " of " << vs_r.values
                                << " values differ from R; first: " << vs_r.first_difference;

  std::vector<std::string> names;
  for (std::size_t id = 0; id < ours.scores.metric_count(); ++id) names.push_back(ours.scores.metric_name(id));
  EXPECT_EQ(names, golden_metric_names(r_path));

  const GoldenComparison vs_up = compare_with_golden(up, ours, run.subsample);
  RecordProperty("upstream_differing", static_cast<int>(vs_up.differing));
  std::printf("[ distance ] %s/%s: %zu of %zu values differ from upstream (max %lld ulp)\n", gc.pair.c_str(),
              gc.run.c_str(), vs_up.differing, vs_up.values, static_cast<long long>(vs_up.max_ulps));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SpeedGolden, ::testing::ValuesIn(speed_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SpeedGolden);

TEST(SpeedGoldenSet, IsPresent) {
  // Every run on the s0x pairs made for SpEED, plus the runs that fit the
  // older pairs (4:4:4 and 4:2:2 chroma, luma for speed_temporal).
  std::size_t on_speed_pairs = 0;
  for (const auto& c : speed_cases())
    if (c.pair.rfind("s0", 0) == 0) ++on_speed_pairs;
  EXPECT_GE(on_speed_pairs, 30u);
  EXPECT_GE(speed_cases().size(), 60u);
  // The v1.0.16 settings with speed_prescale=0.5 must be covered by a regular pair.
  bool prescale_half = false;
  for (const auto& c : speed_cases()) prescale_half = prescale_half || c.run == "speed_chroma_v1016_3d0h_2160";
  EXPECT_TRUE(prescale_half);
}

TEST(SpeedThreads, SameBitsForEveryThreadCount) {
  for (const char* name : {"s01_576x324_8b_420", "s03_160x160_8b_420", "c06_176x144_8b_444"}) {
    const auto pair = fixture_pair(name);
    ASSERT_TRUE(pair) << name;
    expect_thread_invariant(*pair, {"speed_chroma", "speed_temporal", "speed_temporal=speed_use_ref_diff=true"});
  }
  const auto s04 = fixture_pair("s04_320x320_8b_444");
  ASSERT_TRUE(s04);
  expect_thread_invariant(*s04, {"speed_chroma=speed_prescale=0.8:speed_prescale_method=lanczos4",
                                 "speed_temporal=speed_prescale=0.6:speed_prescale_method=bicubic"});
}

// s03: ref's U and V are flat (singular); dist's U is noisy (regular), V flat.
// Upstream: speed_chroma_u is 0 (one side singular), uv takes v's value, and
// it warns "covariance matrix is singular".
TEST(SpeedSingular, OneSidedAndBothSided) {
  const auto pair = fixture_pair("s03_160x160_8b_420");
  ASSERT_TRUE(pair);
  WarningCollector warnings;
  const RunResult r = run_fixture(*pair, {"speed_chroma"});
  const auto u = r.scores.find_metric("speed_chroma_u");
  const auto v = r.scores.find_metric("speed_chroma_v");
  const auto uv = r.scores.find_metric("speed_chroma_uv");
  ASSERT_TRUE(u && v && uv);
  for (std::uint64_t f = 0; f < r.frames; ++f) {
    EXPECT_EQ(*r.scores.get(*u, f), 0.0) << f;
    EXPECT_TRUE(same_bits(*r.scores.get(*uv, f), *r.scores.get(*v, f))) << f;
  }
  ASSERT_EQ(warnings.messages.size(), 1u);  // once per extractor
  EXPECT_NE(warnings.messages[0].find("covariance matrix is singular"), std::string::npos) << warnings.messages[0];
}

TEST(SpeedErrors, TooSmallAndBadOptions) {
  const auto small = fixture_pair("c01_176x144_8b_420");  // 4:2:0 chroma 88x72: 5x4 after the decimation
  ASSERT_TRUE(small);
  try {
    run_fixture(*small, {"speed_chroma"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("image too small"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("88x72"), std::string::npos) << e.what();
  }
  const auto big = fixture_pair("s01_576x324_8b_420");
  ASSERT_TRUE(big);
  EXPECT_THROW(run_fixture(*big, {"speed_chroma=speed_kernelscale=1.3"}), Error);  // not a valid kernelscale
  EXPECT_THROW(run_fixture(*big, {"speed_chroma=speed_prescale_method=area"}), Error);
  EXPECT_THROW(run_fixture(*big, {"speed_temporal=speed_prescale=0.2"}), Error);  // 115x65: too small
  EXPECT_THROW(parse_feature_request("speed_chroma=speed_weight_var_mode=7"), Error);
  EXPECT_THROW(parse_feature_request("speed_temporal=speed_weight_var_mode=1"), Error);  // chroma only
}

// speed_temporal's max_val is not applied (upstream appends the raw score),
// while speed_chroma clips.
TEST(SpeedMaxVal, ChromaClipsTemporalDoesNot) {
  const auto pair = fixture_pair("s01_576x324_8b_420");
  ASSERT_TRUE(pair);
  const RunResult r = run_fixture(*pair, {"speed_chroma=speed_max_val=1", "speed_temporal=speed_max_val=1"});
  const auto u = r.scores.find_metric("speed_chroma_u_mxv_1");
  const auto t = r.scores.find_metric("speed_temporal_mxv_1");
  ASSERT_TRUE(u && t);
  bool temporal_above = false;
  for (std::uint64_t f = 0; f < r.frames; ++f) {
    EXPECT_LE(*r.scores.get(*u, f), 1.0);
    temporal_above = temporal_above || *r.scores.get(*t, f) > 1.0;
  }
  EXPECT_TRUE(temporal_above);
}

// The eigenvalue chain against a plain double-precision reference on random
// symmetric positive definite matrices: R's float chain is not exact, but it
// must be close (a wrong index or sign would not be).
TEST(SpeedMath, EigenvaluesCloseToDoubleJacobi) {
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5;
  };
  const int n = static_cast<int>(speed::block_elems);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> b(n * n), k(n * n, 0.0);
    for (auto& x : b) x = next();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int l = 0; l < n; ++l) k[i * n + j] += b[i * n + l] * b[j * n + l];
    std::vector<float> a(n * n), d(n);
    for (int i = 0; i < n * n; ++i) a[i] = static_cast<float>(k[i]);
    auto sh = std::make_unique<speed::SolveShared>();
    speed::solve_eigenvalues<double>(0, 1, [] {}, *sh, a.data(), d.data());
    ASSERT_EQ(sh->no_convergence, 0);
    double trace = 0, sum = 0;
    for (int i = 0; i < n; ++i) {
      trace += k[i * n + i];
      sum += static_cast<double>(d[i]);
    }
    EXPECT_NEAR(sum, trace, 1e-4 * trace) << trial;
    for (int i = 0; i < n; ++i) EXPECT_GT(d[i], -1e-3f) << trial;  // positive semidefinite
  }
}

// The QR solve of K X = Y recovers X on a well-conditioned system.
TEST(SpeedMath, QrSolveRecoversSolution) {
  const int n = static_cast<int>(speed::block_elems), cols = 7;
  std::vector<float> k(n * n), x(n * cols), y(n * cols, 0.0f), out(n * cols), qy(n * cols);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) k[i * n + j] = i == j ? 4.0f : 1.0f / static_cast<float>(1 + i + j);
  for (int i = 0; i < n * cols; ++i) x[i] = static_cast<float>((i * 37) % 11) - 5.0f;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < cols; ++j)
      for (int l = 0; l < n; ++l) y[i * cols + j] += k[i * n + l] * x[l * cols + j];
  auto sh = std::make_unique<speed::SolveShared>();
  speed::solve_qr<double>(0, 1, [] {}, *sh, k.data(), y.data(), qy.data(), out.data(), cols);
  ASSERT_EQ(sh->solved, 1);
  for (int i = 0; i < n * cols; ++i) EXPECT_NEAR(out[i], x[i], 1e-3f) << i;
}

// The fp64-free covariance filter (speed_math.hpp) against R's double chain,
// bit for bit wherever it decides, on content of every kind: smooth, noise,
// strongly correlated, cancelling (near-zero covariances), sparse near-flat,
// quarter-step integers (exact chains and float-midpoint ties), huge and tiny
// magnitudes, means far from the samples; at sizes up to 4K. The undecided
// rate is printed and bounded, except for kind 9, whose covariances are below
// the pairs' range (2^-100) and are all left to the Sf64 chain by design.
TEST(SpeedMath, CovarianceFilterEqualsRWhereDecided) {
  std::mt19937_64 rng(1234);
  std::normal_distribution<float> gauss(0.0f, 1.0f);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  unsigned long long chains = 0, undecided = 0, exact_zero = 0, undecided_kind[10] = {};
  for (auto [w, h] : {std::pair{160u, 160u}, {176u, 144u}, {320u, 240u}, {1920u, 1080u}, {3840u, 2160u}})
    for (int kind = 0; kind < 10; ++kind) {
      const speed::Dims d = speed::make_dims(w, h, 1.0);
      const unsigned stride = d.dec_w;
      std::vector<float> data(static_cast<std::size_t>(d.dec_w) * d.dec_h);
      for (unsigned i = 0; i < d.dec_h; ++i)
        for (unsigned j = 0; j < d.dec_w; ++j) {
          float v = 0.0f;
          switch (kind) {
            case 0: v = 40.0f * static_cast<float>(i + j) / static_cast<float>(d.dec_w) + 0.1f * gauss(rng); break;
            case 1: v = 60.0f * gauss(rng); break;
            case 2: v = uni(rng) < 0.5f ? 1e-3f * gauss(rng) : 0.0f; break;
            case 3: v = 0.25f * static_cast<float>(static_cast<int>(rng() % 2001) - 1000); break;
            case 4: v = (j % 2 ? 1.0f : -1.0f) * (100.0f + 1e-4f * gauss(rng)); break;
            case 5: v = 1e-12f * gauss(rng); break;
            case 6: v = 3000.0f * uni(rng); break;
            case 7: v = 1000.0f + 1e-3f * gauss(rng); break;
            case 8: v = static_cast<float>(static_cast<int>(rng() % 3) - 1); break;
            default: v = 1e-20f * gauss(rng); break;
          }
          data[i * stride + j] = v;
        }
      std::vector<float> means(25);
      speed::block_means_interleaved(data.data(), stride, d, means.data());
      const std::uint32_t max_abs = speed::max_abs_bits(data.data(), stride, d);
      for (unsigned x = 0; x < 25; ++x)
        for (unsigned y = 0; y <= x; ++y) {
          const float r = speed::block_covariance<double>(data.data(), stride, d, means.data(), x, y);
          float f = 0.0f;
          ++chains;
          if (!speed::block_covariance_filter(data.data(), stride, d, means.data(), x, y, max_abs, &f)) {
            if (kind != 9) ++undecided;
            ++undecided_kind[kind];
            continue;
          }
          if (f == 0.0f) ++exact_zero;
          ASSERT_EQ(std::bit_cast<std::uint32_t>(r), std::bit_cast<std::uint32_t>(f))
              << w << "x" << h << " kind " << kind << " chain " << x << "," << y << ": R " << r << " filter " << f;
        }
    }
  std::printf("[ filter ] %llu chains, %llu undecided, %llu exactly zero; undecided by kind:", chains, undecided,
              exact_zero);
  for (auto u : undecided_kind) std::printf(" %llu", u);
  std::printf("\n");
  EXPECT_LE(undecided * 1000, chains);  // at most 1e-3
}

// The CPU's fp64-free covariance matrix (filter, then R's chain in Sf64)
// equals R's on a plane where the filter leaves chains undecided.
TEST(SpeedMath, Fp64FreeCovarianceMatrixEqualsR) {
  const speed::Dims d = speed::make_dims(320, 240, 1.0);
  std::vector<float> data(static_cast<std::size_t>(d.dec_w) * d.dec_h);
  std::mt19937_64 rng(7);
  for (auto& v : data) v = static_cast<float>(static_cast<int>(rng() % 5) - 2) * 0x1p-30f + 1e-38f * static_cast<float>(rng() % 3);
  std::vector<float> means(25), cov(625), cov_free(625);
  speed::block_means_interleaved(data.data(), d.dec_w, d, means.data());
  speed::covariance_matrix_interleaved<double>(data.data(), d.dec_w, d, means.data(), cov.data());
  speed::Sf64Math m;
  speed::covariance_matrix_fp64_free(data.data(), d.dec_w, d, means.data(), cov_free.data(), m);
  EXPECT_EQ(m.filtered, 325u);
  EXPECT_GT(m.replayed, 0u);  // the truncated tiny terms leave some undecided
  EXPECT_EQ(std::memcmp(cov.data(), cov_free.data(), cov.size() * sizeof(float)), 0);
}

// The eigenvalue iteration without fp64 decides on fp32 pairs first: the
// Givens factor (float)(1.0 / sqrt((double)u)) for every float u in [1, 2]
// (all create_givens can produce), and 1e-6 products compared with a float,
// each against the double expression; undecided ones fall back to Sf64.
TEST(SpeedMath, PairFirstEigenStepsEqualTheDoubleOnes) {
  std::uint64_t undecided = 0, checked = 0;
  for (std::uint32_t bits = std::bit_cast<std::uint32_t>(1.0f); bits <= std::bit_cast<std::uint32_t>(2.0f); ++bits) {
    const float u = std::bit_cast<float>(bits);
    const float want = static_cast<float>(1.0 / std::sqrt(static_cast<double>(u)));
    float got = 0.0f;
    ++checked;
    if (!speed::inverse_sqrt_f32_pairs(u, &got)) {
      ++undecided;
      continue;
    }
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want)) << std::hexfloat << u;
  }
  std::printf("[ fp32pair ] 1/sqrt on [1, 2]: %llu of %llu floats undecided\n", static_cast<unsigned long long>(undecided),
              static_cast<unsigned long long>(checked));
  EXPECT_EQ(checked, (1u << 23) + 1u);
  EXPECT_LE(undecided, 64u);
  EXPECT_FALSE(speed::inverse_sqrt_f32_pairs(0.5f, nullptr));  // outside: Sf64
  // inverse_hypot1 through its Sf64 type, every path, against the double one.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (int i = 0; i < 200000; ++i) {
    const float t = i % 4 == 0 ? std::ldexp(unit(rng), -static_cast<int>(rng() % 40)) : unit(rng);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(speed::inverse_hypot1<rmath::Sf64>(t)),
              std::bit_cast<std::uint32_t>(speed::inverse_hypot1<double>(t)))
        << std::hexfloat << t;
  }
  // a < 1e-6 s: random magnitudes, and a next to the product (within a few
  // float ulps, where the pairs leave the decision to Sf64).
  std::uint64_t cmp_undecided = 0;
  for (int i = 0; i < 1000000; ++i) {
    const float s = std::ldexp(0.5f + 0.5f * std::fabs(unit(rng)), static_cast<int>(rng() % 60) - 30);
    float a = std::ldexp(0.5f + 0.5f * std::fabs(unit(rng)), static_cast<int>(rng() % 60) - 50);
    if (i % 2) {
      a = static_cast<float>(1e-6 * static_cast<double>(s));
      for (int k = static_cast<int>(rng() % 5) - 2; k != 0; k += k > 0 ? -1 : 1)
        a = std::nextafter(a, k > 0 ? 1.0f : 0.0f);
    }
    const bool want = static_cast<double>(a) < 1e-6 * static_cast<double>(s);
    ASSERT_EQ(speed::below_eps_times<rmath::Sf64>(a, s), want) << std::hexfloat << a << " " << s;
    ASSERT_EQ(speed::below_eps_times<double>(a, s), want);
    rmath::Fp32PairF64 p;
    (void)p.lt(rmath::PairF64(a), rmath::PairF64(speed::eigen_eps) * rmath::PairF64(s));
    cmp_undecided += p.undecided ? 1 : 0;
  }
  std::printf("[ fp32pair ] 1e-6 products: %llu of 1000000 undecided (half of them next to the product)\n",
              static_cast<unsigned long long>(cmp_undecided));
  EXPECT_LE(cmp_undecided, 1000u);
}

// The device's chains against the CPU's interleaved loops (means and
// covariances), and the device's split solve (the QR solve run
// speculatively beside the eigenvalues, used only where K is regular) against
// solve_plane, the CPU's order: same bits for eigenvalues, the singular
// decision, variances and entropies. Content: smooth, noisy, near-flat (sparse
// deviations of decreasing size, across the 1e-6 decision) and flat.
TEST(SpeedMath, DeviceSolveEqualsCpuPath) {
  std::uint64_t state = 99;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  };
  unsigned singular = 0, regular = 0;
  for (auto [w, h] : {std::pair{288u, 162u}, {160u, 160u}, {176u, 144u}, {480u, 270u}, {1920u, 1080u}, {3840u, 2160u}})
    for (int kind = 0; kind < 6; ++kind) {
      const speed::Dims d = speed::make_dims(w, h, 1.0);
      ASSERT_TRUE(speed::dims_valid(d));
      const unsigned stride = d.dec_w, nb = d.num_blocks;
      std::vector<float> data(static_cast<std::size_t>(d.dec_w) * d.dec_h);
      for (unsigned i = 0; i < d.dec_h; ++i)
        for (unsigned j = 0; j < d.dec_w; ++j) {
          const std::uint32_t r = next();
          float v = 0.0f;
          if (kind == 0) v = static_cast<float>(static_cast<int>(i * 3 + j * 7) % 23) * 0.37f + static_cast<float>(r % 1000) * 1e-3f;
          if (kind == 1) v = static_cast<float>(static_cast<int>(r % 20001) - 10000) * 1e-2f;
          if (kind >= 2 && kind <= 4) {
            const float amp = kind == 2 ? 1e-1f : kind == 3 ? 1e-3f : 1e-4f;
            v = r % 7 == 0 ? amp : 0.0f;
          }
          data[i * stride + j] = v;  // kind 5: flat
        }
      // Means and covariances: the device's per-chain functions.
      std::vector<float> means(25), means_dev(25), cov(625), cov_dev(625);
      speed::block_means_interleaved(data.data(), stride, d, means.data());
      for (unsigned o = 0; o < 25; ++o) means_dev[o] = speed::block_mean(data.data(), stride, d, o / 5, o % 5);
      ASSERT_EQ(std::memcmp(means.data(), means_dev.data(), 25 * sizeof(float)), 0) << w << "x" << h << " " << kind;
      speed::covariance_matrix_interleaved<double>(data.data(), stride, d, means.data(), cov.data());
      for (unsigned x = 0; x < 25; ++x)
        for (unsigned y = 0; y <= x; ++y)
          cov_dev[x * 25 + y] = cov_dev[y * 25 + x] =
              speed::block_covariance<double>(data.data(), stride, d, means.data(), x, y);
      ASSERT_EQ(std::memcmp(cov.data(), cov_dev.data(), 625 * sizeof(float)), 0) << w << "x" << h << " " << kind;
      // The CUDA chain kernels' form: the plane staged band by band (7 rows,
      // so 3 chain rows per band), padded rows, the covariance's samples
      // widened to double before the chains read them.
      {
        constexpr unsigned kRows = 7, kPad = 3;
        const unsigned bstride = d.trunc_w + kPad;
        std::vector<float> band_f(kRows * bstride);
        std::vector<double> band_d(kRows * bstride);
        float mean_acc[25] = {};
        double cov_acc[625] = {};
        for (unsigned r0 = 0; r0 < d.sub_h;) {
          const unsigned end = std::min(r0 + kRows, d.trunc_h), chain_end = std::min(end - 4, d.sub_h);
          for (unsigned i = r0; i < end; ++i)
            for (unsigned j = 0; j < d.trunc_w; ++j) {
              band_f[(i - r0) * bstride + j] = data[i * stride + j];
              band_d[(i - r0) * bstride + j] = data[i * stride + j];
            }
          for (unsigned o = 0; o < 25; ++o)
            mean_acc[o] =
                speed::block_mean_rows(band_f.data(), bstride, r0, d, o / 5, o % 5, r0, chain_end, mean_acc[o]);
          for (unsigned x = 0; x < 25; ++x)
            for (unsigned y = 0; y <= x; ++y)
              cov_acc[x * 25 + y] = speed::block_covariance_rows<double, double>(
                  band_d.data(), bstride, r0, d, means[x], means[y], x, y, r0, chain_end, cov_acc[x * 25 + y]);
          r0 = chain_end;
        }
        for (unsigned o = 0; o < 25; ++o)
          ASSERT_EQ(std::bit_cast<std::uint32_t>(mean_acc[o] / speed::mean_count(d)),
                    std::bit_cast<std::uint32_t>(means[o]))
              << w << "x" << h << " " << kind << " mean " << o;
        for (unsigned x = 0; x < 25; ++x)
          for (unsigned y = 0; y <= x; ++y)
            ASSERT_EQ(std::bit_cast<std::uint32_t>(rmath::f32_of(cov_acc[x * 25 + y] / speed::term_count<double>(d))),
                      std::bit_cast<std::uint32_t>(cov[x * 25 + y]))
                << w << "x" << h << " " << kind << " covariance " << x << "," << y;
      }
      // The same chains without fp64 (Sf64), on the sizes where that is quick.
      if (w <= 480) {
        std::vector<float> cov_sf(625), cov_sf_dev(625);
        speed::covariance_matrix_interleaved<rmath::Sf64>(data.data(), stride, d, means.data(), cov_sf.data());
        for (unsigned x = 0; x < 25; ++x)
          for (unsigned y = 0; y <= x; ++y)
            cov_sf_dev[x * 25 + y] = cov_sf_dev[y * 25 + x] =
                speed::block_covariance<rmath::Sf64>(data.data(), stride, d, means.data(), x, y);
        ASSERT_EQ(std::memcmp(cov.data(), cov_sf.data(), 625 * sizeof(float)), 0) << w << "x" << h << " " << kind;
        ASSERT_EQ(std::memcmp(cov.data(), cov_sf_dev.data(), 625 * sizeof(float)), 0) << w << "x" << h << " " << kind;
      }
      // The independent term.
      std::vector<float> y(25 * nb);
      for (unsigned i = 0; i < d.trunc_h; ++i)
        for (unsigned j = 0; j < d.trunc_w; ++j)
          y[((i % 5) * 5 + j % 5) * nb + (i / 5) * d.blocks_x + j / 5] = data[i * stride + j];
      // The device's split: parts 1 and 2 unconditionally, then part 3.
      const double l2 = rmath::cr_log2(speed::two_pi_e);
      auto split = std::make_unique<speed::SolveShared>();
      std::vector<float> x(25 * nb, 0.0f), qy(25 * nb), eig(25), var(nb), ent(nb);
      speed::HostMath hm;
      speed::solve_eigenvalues<double>(0, 1, [] {}, *split, cov.data(), eig.data());
      speed::solve_qr<double>(0, 1, [] {}, *split, cov.data(), y.data(), qy.data(), x.data(), static_cast<int>(nb));
      const bool cpu_singular = speed::solve_finish(0, 1, [] {}, *split, y.data(), x.data(), static_cast<int>(nb),
                                                    0.29f, l2, var.data(), ent.data(), hm);
      // The CPU: solve_plane on one thread.
      auto shared = std::make_unique<speed::SolveShared>();
      std::vector<float> x2(25 * nb, 0.0f), qy2(25 * nb), eig2(25), var2(nb), ent2(nb);
      speed::FastMath fm;
      const bool dev_singular = speed::solve_plane(0, 1, [] {}, *shared, cov.data(), y.data(), qy2.data(), x2.data(),
                                                   eig2.data(), static_cast<int>(nb), 0.29f, l2, var2.data(),
                                                   ent2.data(), fm);
      ASSERT_FALSE(fm.undecided);
      const std::string what = fmt::format("{}x{} kind {}", w, h, kind);
      EXPECT_EQ(dev_singular, cpu_singular) << what;
      EXPECT_EQ(std::memcmp(eig.data(), eig2.data(), 25 * sizeof(float)), 0) << what;
      EXPECT_EQ(std::memcmp(x.data(), x2.data(), x.size() * sizeof(float)), 0) << what;
      EXPECT_EQ(std::memcmp(var.data(), var2.data(), nb * sizeof(float)), 0) << what;
      EXPECT_EQ(std::memcmp(ent.data(), ent2.data(), nb * sizeof(float)), 0) << what;
      // Without fp64: R's doubles in Sf64 (the fp32pair device variant).
      auto sf_shared = std::make_unique<speed::SolveShared>();
      std::vector<float> x3(25 * nb, 0.0f), qy3(25 * nb), eig3(25), var3(nb), ent3(nb);
      speed::Sf64Math sm;
      const bool sf_singular = speed::solve_plane(0, 1, [] {}, *sf_shared, cov.data(), y.data(), qy3.data(), x3.data(),
                                                  eig3.data(), static_cast<int>(nb), 0.29f, rmath::Sf64(l2),
                                                  var3.data(), ent3.data(), sm);
      ASSERT_FALSE(sm.undecided) << what;
      EXPECT_EQ(sf_singular, cpu_singular) << what;
      EXPECT_EQ(std::memcmp(eig.data(), eig3.data(), 25 * sizeof(float)), 0) << what;
      EXPECT_EQ(std::memcmp(x.data(), x3.data(), x.size() * sizeof(float)), 0) << what;
      EXPECT_EQ(std::memcmp(var.data(), var3.data(), nb * sizeof(float)), 0) << what;
      EXPECT_EQ(std::memcmp(ent.data(), ent3.data(), nb * sizeof(float)), 0) << what;
      for (int mode = 0; mode <= 6; ++mode)
        for (unsigned b = 0; b + 1 < nb; b += 7) {
          const float ref = speed::block_score(ent[b], var[b], ent[b + 1], var[b + 1], 1.0f, mode, hm);
          const float sf = speed::block_score(ent[b], var[b], ent[b + 1], var[b + 1], 1.0f, mode, sm);
          ASSERT_EQ(std::bit_cast<std::uint32_t>(ref), std::bit_cast<std::uint32_t>(sf)) << what << " mode " << mode;
        }
      ASSERT_FALSE(sm.undecided) << what;
      (cpu_singular ? singular : regular) += 1;
    }
  EXPECT_GT(singular, 0u);
  EXPECT_GT(regular, 0u);
}

}  // namespace
}  // namespace exactvmaf::test
