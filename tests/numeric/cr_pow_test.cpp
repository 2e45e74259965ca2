// Quick tier for cr_pow and cr_powf (docs/rmath.md): 10^5 arguments per
// feature range, bit for bit against MPFR; C99 Annex F special values; exact
// results and exact midpoints.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "dd_test_support.hpp"
#include "numeric/cr_pow.hpp"

namespace exactvmaf::rmath {
namespace {

using testing::check_d;
using testing::check_f;
using testing::Gen;
using testing::same_bits;
using testing::Tally;

constexpr int kN = 100000;

auto pow_fast = [](double x, double y, double* r) { return cr_pow_fast(x, y, r); };
auto pow_host = [](double x, double y) { return cr_pow(x, y); };
auto powf_fast = [](float x, float y, float* r) { return cr_powf_fast(x, y, r); };
auto powf_host = [](float x, float y) { return cr_powf(x, y); };

void expect_clean(const Tally& t, long max_undecided = 2) {
  EXPECT_EQ(t.wrong_fast, 0) << t.first_failure;
  EXPECT_EQ(t.wrong_host, 0) << t.first_failure;
  EXPECT_LE(t.undecided, max_undecided);
}

TEST(CrPow, CiedeRanges) {
  Gen g(301);
  Tally p24, cube_root, seven, square;
  for (int i = 0; i < kN; ++i) {
    const double x = g.unit();
    check_d(p24, MpfrFn::kPow, pow_fast, pow_host, x, 2.4);              // pow(x, 2.4)
    check_d(cube_root, MpfrFn::kPow, pow_fast, pow_host, x, 1.0 / 3.0);  // the double nearest 1/3
    check_d(seven, MpfrFn::kPow, pow_fast, pow_host, g.uniform(0.0, 150.0), 7.0);
    check_d(square, MpfrFn::kPow, pow_fast, pow_host, g.uniform(-110.0, 110.0), 2.0);
  }
  for (const Tally* t : {&p24, &cube_root, &seven, &square}) expect_clean(*t);
}

TEST(CrPow, AdmAndTransformRanges) {
  Gen g(302);
  Tally inv_p, lum, barten, bits, neg_int;
  for (int i = 0; i < kN; ++i) {
    const double p = g.uniform(1.0, 5.0);
    check_d(inv_p, MpfrFn::kPow, pow_fast, pow_host, g.uniform(0.0, 2.0), 1.0 / p);
    check_d(lum, MpfrFn::kPow, pow_fast, pow_host, g.unit(), g.uniform(0.01, 80.0));  // PQ / BT.1886
    check_d(barten, MpfrFn::kPow, pow_fast, pow_host, g.log_uniform(1e-6, 1e6), g.uniform(-4.0, 4.0));
    check_d(bits, MpfrFn::kPow, pow_fast, pow_host, g.any_bits(), g.any_bits());
    check_d(neg_int, MpfrFn::kPow, pow_fast, pow_host, -g.log_uniform(1e-3, 1e3),
            static_cast<double>(static_cast<int>(g.rng() % 201) - 100));
  }
  for (const Tally* t : {&inv_p, &lum, &barten, &bits, &neg_int}) expect_clean(*t);
}

TEST(CrPow, ExactResults) {
  EXPECT_EQ(cr_pow(25.0, 7.0), 6103515625.0);
  double r;
  EXPECT_TRUE(cr_pow_fast(25.0, 7.0, &r));
  for (int k = -1074; k <= 1023; ++k) {  // pow(2, k): upstream's pow(2, lambda + 1)
    ASSERT_TRUE(cr_pow_fast(2.0, static_cast<double>(k), &r)) << k;
    ASSERT_EQ(r, std::ldexp(1.0, k)) << k;
  }
  double p = 1.0;
  for (int k = 0; k <= 22; ++k, p *= 10.0) ASSERT_EQ(cr_pow(10.0, static_cast<double>(k)), p) << k;
  EXPECT_EQ(cr_pow(16.0, 0.5), 4.0);
  EXPECT_EQ(cr_pow(2.0, 0.5), 0x1.6a09e667f3bcdp+0);  // RN(sqrt 2)
  EXPECT_EQ(cr_pow(0.25, 1.5), 0.125);
  EXPECT_EQ(cr_pow(27.0, 1.0 / 3.0), testing::oracle_d(MpfrFn::kPow, 27.0, 1.0 / 3.0));  // not 3: y != 1/3
  EXPECT_EQ(cr_pow(-3.0, 3.0), -27.0);
  EXPECT_EQ(cr_pow(0x1.8p-530, 2.0), 0x1.2p-1059);  // x*x, exact subnormal result
  EXPECT_EQ(cr_pow(0x1.8p-530, 2.5), testing::oracle_d(MpfrFn::kPow, 0x1.8p-530, 2.5));
  EXPECT_EQ(cr_pow(3.0, 2.0), 9.0);
}

TEST(CrPow, ExactMidpointsGoToTheSlowPath) {
  // (2^18 - 1)^3 has 54 significant bits, the last one set: a midpoint.
  double r;
  EXPECT_FALSE(cr_pow_fast(262143.0, 3.0, &r));
  EXPECT_TRUE(same_bits(cr_pow(262143.0, 3.0), testing::oracle_d(MpfrFn::kPow, 262143.0, 3.0)));
  EXPECT_EQ(cr_pow(262143.0, 3.0), 18014192351838208.0);  // ties to even
  // Float: 321^3 and 11^7 have 25 bits, the last one set. x^3 and x^4 are
  // computed exactly, so their midpoints are decided (to even) by the fast
  // path; so is x^7 (the exact cases of powf_exact_case).
  float f;
  EXPECT_TRUE(cr_powf_fast(321.0f, 3.0f, &f));
  EXPECT_TRUE(same_bits(f, testing::oracle_f(MpfrFn::kPow, 321.0f, 3.0f)));
  EXPECT_EQ(f, 33076160.0f);
  EXPECT_TRUE(cr_powf_fast(11.0f, 7.0f, &f));
  EXPECT_TRUE(same_bits(f, testing::oracle_f(MpfrFn::kPow, 11.0f, 7.0f)));
  EXPECT_EQ(f, 19487172.0f);  // 19487171 ties to even
  // A midpoint whose exact value has more than 63 bits is not one: 3^41
  // (65 bits) is decided by the rounding test.
  EXPECT_TRUE(cr_powf_fast(3.0f, 41.0f, &f));
  EXPECT_TRUE(same_bits(f, testing::oracle_f(MpfrFn::kPow, 3.0f, 41.0f)));
}

// Non-integer y = n / 2^k meets float midpoints when x is a 2^k-th power:
// x = s^2 with s of <= 12 bits, y = 2.5 (ADM's adm_p_norm=2.5 on real
// frames: 0x1.a48p-1 = (0x1.cfp-1)^2 gives a 25-bit s^5). Every one is
// decided by the fast path and equals MPFR; the four undecided floats of
// [0.25, 8) for y = 2.5 before the exact cases were all of this kind.
TEST(CrPowf, DyadicPowersOfPerfectSquaresAreExact) {
  Tally t;
  int midpoints = 0;
  for (const float y : {2.5f, 1.5f, 3.5f, 4.5f, 0.75f, 1.25f, 2.25f, 1.125f, 5.0f, 7.0f})
    for (std::uint32_t s = 1; s < 4096; s += 2)
      for (const int e : {-40, -12, -6, 0, 3}) {
        const double sd = static_cast<double>(s) * dd::double_from_bits(static_cast<std::uint64_t>(e + 1023) << 52);
        double x = sd;
        for (double yy = y; yy != static_cast<double>(static_cast<int>(yy)); yy *= 2.0) x *= x;
        const float xf = static_cast<float>(x);
        if (static_cast<double>(xf) != x) continue;  // not a float
        float r;
        const bool decided = cr_powf_fast(xf, y, &r);
        midpoints += !decided;
        check_f(t, MpfrFn::kPow, powf_fast, powf_host, xf, y);
      }
  EXPECT_EQ(midpoints, 0);
  EXPECT_EQ(t.wrong_fast, 0) << t.first_failure;
  for (const std::uint32_t b : {0x3f524000u, 0x3f704000u, 0x40524000u, 0x40704000u}) {
    float r;
    EXPECT_TRUE(cr_powf_fast(dd::float_from_bits(b), 2.5f, &r)) << b;
    EXPECT_TRUE(same_bits(r, testing::oracle_f(MpfrFn::kPow, dd::float_from_bits(b), 2.5f))) << b;
  }
}

TEST(CrPowf, CubesAndFourthPowersOfShortFloatsAreExact) {
  // Every float with at most 12 significant bits in [2^-60, 2^40) and its
  // negative, cubed and raised to the 4th: many results are float
  // midpoints; all must be decided and right (ties to even).
  Tally t;
  for (int e = -60; e < 40; e += 3) {
    for (int m = 2048; m < 4096; ++m) {
      const float x = std::ldexp(static_cast<float>(m), e - 11);
      for (float y : {3.0f, 4.0f}) {
        check_f(t, MpfrFn::kPow, powf_fast, powf_host, x, y);
        check_f(t, MpfrFn::kPow, powf_fast, powf_host, -x, y);
      }
    }
  }
  EXPECT_EQ(t.wrong_fast, 0) << t.first_failure;
  EXPECT_EQ(t.wrong_host, 0) << t.first_failure;
  EXPECT_EQ(t.undecided, 0);
}

TEST(CrPow, PublishedWorstCases) {
  // CORE-MATH's pow worst cases (102 to 153 identical bits after the round bit).
  const double cases[][2] = {{0x1.ffffffffffffcp-1, 0x1.fffffffffffffp-2},
                             {0x1.ffffffffffffcp-1, -0x1.ffffffffffffdp-2},
                             {0x1.ffffffffffffp-1, -0x1.ffffffffffff6p-3},
                             {0x1.ffffffffffff8p-1, -0x1.ffffffffffffbp-3}};
  Tally t;
  for (const auto& c : cases) check_d(t, MpfrFn::kPow, pow_fast, pow_host, c[0], c[1]);
  EXPECT_EQ(t.wrong_fast, 0) << t.first_failure;
  EXPECT_EQ(t.wrong_host, 0) << t.first_failure;
}

TEST(CrPow, ArgumentsNearRoundingBoundaries) {
  Gen g(303);
  std::vector<std::pair<double, double>> cands;
  for (int i = 0; i < 100000; ++i) cands.push_back({g.unit(), i % 2 ? 2.4 : 1.0 / 3.0});
  Tally t;
  for (const auto& a : testing::closest_to_midpoint(MpfrFn::kPow, cands, 200)) {
    check_d(t, MpfrFn::kPow, pow_fast, pow_host, a.first, a.second);
  }
  EXPECT_EQ(t.n, 200);
  EXPECT_EQ(t.wrong_fast, 0) << t.first_failure;
  EXPECT_EQ(t.wrong_host, 0) << t.first_failure;
}

TEST(CrPow, C99SpecialValues) {
  const double inf = INFINITY;
  const double nan = NAN;
  struct Case {
    double x, y, want;
  };
  const Case cases[] = {
      {0.0, -3.0, inf},    {-0.0, -3.0, -inf}, {0.0, -inf, inf},   {-0.0, -inf, inf},
      {0.0, -2.0, inf},    {-0.0, -2.0, inf},  {-0.0, -0.5, inf},  {0.0, 3.0, 0.0},
      {-0.0, 3.0, -0.0},   {-0.0, 2.0, 0.0},   {-0.0, 0.5, 0.0},   {-0.0, inf, 0.0},
      {-1.0, inf, 1.0},    {-1.0, -inf, 1.0},  {1.0, nan, 1.0},    {1.0, inf, 1.0},
      {1.0, -7.5, 1.0},    {nan, 0.0, 1.0},    {nan, -0.0, 1.0},   {-inf, 0.0, 1.0},
      {0.5, -inf, inf},    {-0.5, -inf, inf},  {2.0, -inf, 0.0},   {-2.0, -inf, 0.0},
      {0.5, inf, 0.0},     {-0.5, inf, 0.0},   {2.0, inf, inf},    {-2.0, inf, inf},
      {-inf, -3.0, -0.0},  {-inf, -2.0, 0.0},  {-inf, -0.5, 0.0},  {-inf, 3.0, -inf},
      {-inf, 2.0, inf},    {-inf, 0.5, inf},   {inf, -1.0, 0.0},   {inf, 0.5, inf},
      {-2.0, 3.0, -8.0},   {-2.0, 2.0, 4.0},   {-1.0, 0x1p60, 1.0}, {-1.0, 0x1p52 + 1.0, -1.0},
      {2.0, 0x1p70, inf},  {0.5, 0x1p70, 0.0}, {2.0, -0x1p70, 0.0}, {-2.0, 0x1p70, inf},
  };
  for (const Case& c : cases) {
    EXPECT_TRUE(same_bits(cr_pow(c.x, c.y), c.want)) << c.x << " " << c.y;
    EXPECT_TRUE(same_bits(cr_pow(c.x, c.y), testing::oracle_d(MpfrFn::kPow, c.x, c.y))) << c.x << " " << c.y;
    const float xf = static_cast<float>(c.x), yf = static_cast<float>(c.y);
    if (static_cast<double>(xf) == c.x && static_cast<double>(yf) == c.y) {  // same case in float
      EXPECT_TRUE(same_bits(cr_powf(xf, yf), static_cast<float>(c.want))) << c.x << " " << c.y;
    }
  }
  EXPECT_TRUE(std::isnan(cr_pow(-2.0, 0.5)));
  EXPECT_TRUE(std::isnan(cr_pow(nan, 1.0)));
  EXPECT_TRUE(std::isnan(cr_pow(2.0, nan)));
  EXPECT_TRUE(std::isnan(cr_powf(-2.0f, 0.5f)));
  EXPECT_TRUE(std::isnan(cr_powf(NAN, 2.0f)));
  // Overflow, underflow and subnormal results.
  EXPECT_TRUE(same_bits(cr_pow(10.0, 309.0), inf));
  EXPECT_TRUE(same_bits(cr_pow(-10.0, 309.0), -inf));
  EXPECT_TRUE(same_bits(cr_pow(10.0, -324.0), 0.0));
  EXPECT_TRUE(same_bits(cr_pow(-10.0, -325.0), -0.0));
  EXPECT_TRUE(same_bits(cr_pow(10.0, -320.0), testing::oracle_d(MpfrFn::kPow, 10.0, -320.0)));
  EXPECT_TRUE(same_bits(cr_pow(0x1p-1074, 0.5), 0x1p-537));
}

TEST(CrPowf, FeatureRanges) {
  Gen g(304);
  Tally c7, sq, adm_p, adm_inv, vif, bits, small;
  for (int i = 0; i < kN; ++i) {
    check_f(c7, MpfrFn::kPow, powf_fast, powf_host, static_cast<float>(g.uniform(0.01, 150.0)), 7.0f);
    check_f(sq, MpfrFn::kPow, powf_fast, powf_host, static_cast<float>(g.uniform(-11.0, 3.4)), 2.0f);
    check_f(adm_p, MpfrFn::kPow, powf_fast, powf_host, static_cast<float>(g.log_uniform(1e-8, 1e4)), 3.0f);
    check_f(adm_inv, MpfrFn::kPow, powf_fast, powf_host, static_cast<float>(g.log_uniform(1e-12, 1e12)),
            1.0f / 3.0f);
    check_f(vif, MpfrFn::kPow, powf_fast, powf_host, static_cast<float>(g.uniform(0.0, 10.0)),
            static_cast<float>(g.uniform(-10.0, 10.0)));
    check_f(bits, MpfrFn::kPow, powf_fast, powf_host, g.any_bits_f(), g.any_bits_f());
    // Float subnormal results.
    check_f(small, MpfrFn::kPow, powf_fast, powf_host, static_cast<float>(g.uniform(1e-6, 1e-4)),
            static_cast<float>(g.uniform(7.5, 13.0)));
  }
  for (const Tally* t : {&c7, &sq, &adm_p, &adm_inv, &vif, &bits, &small}) expect_clean(*t, 5);
}

}  // namespace
}  // namespace exactvmaf::rmath
