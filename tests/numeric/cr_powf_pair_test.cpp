// powf on fp32 pairs (numeric/cr_powf_pair.hpp; docs/fp64-free.md, F4):
// every decided call equals R's powf (rmath::cr_powf) bit for bit, on
// float_adm's domain (x in [0, ~1e4] with zeros, subnormals and exact powers;
// p = 1, 1.5, 2, 2.5, 4.5, 8 and random in [1, 16]), near overflow and
// underflow, and near float midpoints; exact midpoints are left undecided;
// the measured error stays within the bound the decision uses; the
// undecided rate stays under its ceiling. Built a second time with
// EXACTVMAF_POWF_PAIR_LONG_TIER=1 as the long tier (LABELS long):
// EXACTVMAF_LONG_N random arguments (default 2*10^8).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cr_oracle.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/cr_powf_pair.hpp"

namespace exactvmaf::rmath {
namespace {

// Measured 3e-6 of the random arguments below (docs/fp64-free.md); the
// ceiling leaves a factor of about 7.
constexpr double kUndecidedCeiling = 2e-5;
// The dyadic powers below: 1.3e-3 measured, exact midpoints (s^3 with 25 bits).
constexpr double kDyadicUndecidedCeiling = 2e-2;

struct Count {
  long n = 0, undecided = 0, wrong = 0;
  float first_x = 0.0f, first_p = 0.0f;
};

// One argument: decided => R's bits.
void check(Count& c, float x, float p) {
  ++c.n;
  float got;
  if (!cr_powf_fast_pair(x, p, &got)) {
    ++c.undecided;
    return;
  }
  const float want = cr_powf(x, p);
  if (std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want)) {
    if (c.wrong++ == 0) {
      c.first_x = x;
      c.first_p = p;
    }
  }
}

// float_adm's arguments: x >= 0 as its bands give them (every bit pattern
// up to 1e4, zeros, subnormals, uniform and log-uniform magnitudes, dyadic
// powers whose p-th power is exact), p from the goldens or random in [1, 16].
struct AdmArgs {
  std::mt19937_64 rng;
  explicit AdmArgs(std::uint64_t seed) : rng(seed) {}
  float p(long i) {
    const float fixed[] = {1.0f, 1.5f, 2.0f, 2.5f, 4.5f, 8.0f};
    if (i % 7 < 6) return fixed[i % 7];
    return std::uniform_real_distribution<float>(1.0f, 16.0f)(rng);
  }
  float x(long i) {
    switch ((i / 7) % 6) {
      case 0: return std::bit_cast<float>(static_cast<std::uint32_t>(rng() % 0x461c4001u));  // [0, 1e4] by bits
      case 1: return std::uniform_real_distribution<float>(0.0f, 1e4f)(rng);
      case 2: return std::uniform_real_distribution<float>(0.0f, 4.0f)(rng);
      case 3: return std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(rng), static_cast<int>(rng() % 160) - 150);
      case 4: {  // short significands: squares and fourth powers of <= 12-bit odd numbers (exact cases)
        const float s = static_cast<float>(1 + 2 * (rng() % 2048)) * std::ldexp(1.0f, static_cast<int>(rng() % 20) - 14);
        return (rng() & 1) ? s * s : (s * s) * (s * s);
      }
      default: return rng() % 16 == 0 ? 0.0f : std::bit_cast<float>(static_cast<std::uint32_t>(rng() % 0x00800000u));  // 0, subnormals
    }
  }
};

// Counts apart: the dyadic powers (x = s^2 or s^4, every 6th argument),
// whose p-th powers for p = 1.5, 2.5 are often exact float midpoints (s^3
// or s^5 with 25 bits): left undecided by design, the Sf64 path rounds them.
struct RandomCounts {
  Count general, dyadic;
};
RandomCounts run_random(long n, std::uint64_t seed) {
  AdmArgs a(seed);
  RandomCounts c;
  for (long i = 0; i < n; ++i) {
    const float p = a.p(i);
    const bool dyadic = (i / 7) % 6 == 4;
    check(dyadic ? c.dyadic : c.general, a.x(i), p);
  }
  return c;
}

void expect_clean(const Count& c, double ceiling) {
  EXPECT_EQ(c.wrong, 0) << "first: " << std::hexfloat << c.first_x << " ^ " << c.first_p;
  EXPECT_LE(static_cast<double>(c.undecided), ceiling * static_cast<double>(c.n));
  std::printf("[ powf pair ] %ld arguments, %ld wrong, %ld undecided (rate %.3g)\n", c.n, c.wrong, c.undecided,
              static_cast<double>(c.undecided) / static_cast<double>(c.n));
}

#if !EXACTVMAF_POWF_PAIR_LONG_TIER
TEST(CrPowfPair, EqualsRAtRandomAdmArguments) {
  const RandomCounts c = run_random(10000000, 15);
  EXPECT_EQ(c.general.n + c.dyadic.n, 10000000);
  expect_clean(c.general, kUndecidedCeiling);
  expect_clean(c.dyadic, kDyadicUndecidedCeiling);
}

// The result pair is within eps_of(p) of x^p (cr_pow's double, 2^-53
// relative, is exact enough to see errors of 2^-47); measured below a tenth
// of the bound.
TEST(CrPowfPair, ErrorWithinBound) {
  AdmArgs a(16);
  double worst = 0.0;
  for (long i = 0; i < 1000000; ++i) {
    const float p = (i % 3 == 0) ? 32.0f : a.p(i);
    const float x = a.x(i);
    if (!(x > 0.0f) || p == 1.0f || p == 2.0f) continue;
    int k;
    const pair_detail::Two r = powf_pair_detail::pow_scaled(x, p, &k);
    const double got = static_cast<double>(r.hi) + static_cast<double>(r.lo);  // exact
    const double v = cr_pow(static_cast<double>(x), static_cast<double>(p));
    if (!(v > 0x1p-1000 && v < 0x1p1000)) continue;  // the double reference must be normal
    const double want = std::ldexp(v, -k);
    const double rel = std::fabs(got - want) / (static_cast<double>(powf_pair_detail::eps_of(p)) * std::fabs(r.hi));
    worst = std::max(worst, rel);
    ASSERT_LT(rel, 1.0) << std::hexfloat << x << " ^ " << p;
  }
  std::printf("[ powf pair ] worst error / bound: %.3f\n", worst);
  EXPECT_LT(worst, 0.25);
}

// Exact results and exact midpoints (x = s^(2^k), p = n / 2^k: R rounds
// them in powf_exact_case): a decided call is R's, a midpoint is never
// decided. Then special arguments and the over/underflow thresholds.
TEST(CrPowfPair, ExactCasesAndThresholds) {
  Count c;
  long midpoints_seen = 0;
  for (const float p : {2.5f, 1.5f, 4.5f, 3.5f, 1.25f, 2.25f, 3.0f, 4.0f, 5.0f, 7.0f, 8.0f})
    for (std::uint32_t s = 1; s < 4096; s += 2)
      for (const int e : {-40, -12, -6, 0, 3}) {
        double x = std::ldexp(static_cast<double>(s), e);
        int n = 1;  // p = n / 2^k, x = (s 2^e)^(2^k)
        for (float q = p; q != std::floor(q); q *= 2.0f, n *= 2) x *= x;
        n = static_cast<int>(p * static_cast<float>(n));
        const float xf = static_cast<float>(x);
        if (static_cast<double>(xf) != x || xf > 1e30f) continue;
        // x^p = s^n 2^(e n) with s odd: a float midpoint when s^n has 25 bits
        // (and the value is a normal float's neighbour).
        std::uint64_t sn = 1;
        bool fits = true;
        for (int i = 0; i < n && fits; ++i) {
          fits = sn <= (~0ull >> 1) / s;
          sn *= s;
        }
        const int exp_bits = e * n + std::bit_width(sn);  // x^p in [2^(exp_bits - 1), 2^exp_bits)
        const bool midpoint = fits && std::bit_width(sn) == 25 && exp_bits > -124 && exp_bits < 127;
        float got;
        if (midpoint) {
          ++midpoints_seen;
          EXPECT_FALSE(cr_powf_fast_pair(xf, p, &got)) << std::hexfloat << xf << " ^ " << p;
        }
        check(c, xf, p);
      }
  EXPECT_GT(midpoints_seen, 0);
  // Zero, subnormals, the largest floats, and every float around the
  // thresholds of x^p: 2^128 (overflow), 2^-126, 2^-149 and 2^-150.
  for (const float p : {1.0f, 1.5f, 2.0f, 2.5f, 4.5f, 8.0f, 13.7f, 16.0f, 32.0f, 0.75f}) {
    for (const float x : {0.0f, 0x1p-149f, 0x1p-148f, 0x1.fffffcp-127f, 0x1p-126f, 0x1p-1f, 1.0f, 0x1.000002p0f,
                          0x1.fffffep-1f, 2.0f, 1e4f, 0x1.fffffep127f})
      check(c, x, p);
    for (const double v : {128.0, -126.0, -149.0, -150.0, -125.0}) {
      const float centre = static_cast<float>(std::exp2(v / static_cast<double>(p)));
      float x = centre;
      for (int i = 0; i < 3000; ++i) x = std::nextafter(x, 0.0f);
      for (int i = 0; i < 6000; ++i, x = std::nextafter(x, INFINITY)) check(c, x, p);
    }
  }
  // R's specials outside the pair's domain are left to the Sf64 path.
  float r;
  EXPECT_FALSE(cr_powf_fast_pair(-0.0f, 2.5f, &r));
  EXPECT_FALSE(cr_powf_fast_pair(-1.0f, 2.5f, &r));
  EXPECT_FALSE(cr_powf_fast_pair(INFINITY, 2.5f, &r));
  EXPECT_FALSE(cr_powf_fast_pair(NAN, 2.5f, &r));
  EXPECT_FALSE(cr_powf_fast_pair(2.0f, 0.0f, &r));
  EXPECT_FALSE(cr_powf_fast_pair(2.0f, 33.0f, &r));
  EXPECT_TRUE(cr_powf_fast_pair(0.0f, 2.5f, &r) && std::bit_cast<std::uint32_t>(r) == 0u);
  EXPECT_EQ(c.wrong, 0) << "first: " << std::hexfloat << c.first_x << " ^ " << c.first_p;
  std::printf("[ powf pair ] exact cases and thresholds: %ld arguments, %ld undecided, %ld midpoints\n", c.n,
              c.undecided, midpoints_seen);
}

// Arguments whose x^p lies closest to a float midpoint (the 300 nearest of
// 10^6 per p, by cr_pow's double): decided ones are right, against the
// independent MPFR oracle too.
TEST(CrPowfPair, NearMidpoints) {
  std::mt19937_64 rng(17);
  Count c;
  for (const float p : {2.5f, 4.5f, 1.5f, 8.0f, 11.3f}) {
    std::vector<std::pair<double, float>> near;
    for (int i = 0; i < 1000000; ++i) {
      const float x = std::uniform_real_distribution<float>(0.0f, 1e4f)(rng);
      const double v = cr_pow(static_cast<double>(x), static_cast<double>(p));
      if (!(v > 0x1p-126 && v < 0x1p127)) continue;
      const float f = static_cast<float>(v);
      const float g = std::nextafter(f, v > static_cast<double>(f) ? INFINITY : 0.0f);
      const double mid = (static_cast<double>(f) + static_cast<double>(g)) * 0.5;
      near.push_back({std::fabs(v - mid) / v, x});
      if (near.size() > 4000) {
        std::nth_element(near.begin(), near.begin() + 300, near.end());
        near.resize(300);
      }
    }
    std::sort(near.begin(), near.end());
    near.resize(300);
    for (const auto& [dist, x] : near) {
      check(c, x, p);
      float got;
      if (cr_powf_fast_pair(x, p, &got))
        EXPECT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(testing::oracle_f(MpfrFn::kPow, x, p)));
    }
  }
  EXPECT_EQ(c.wrong, 0) << "first: " << std::hexfloat << c.first_x << " ^ " << c.first_p;
  std::printf("[ powf pair ] near midpoints: %ld arguments, %ld undecided\n", c.n, c.undecided);
}

#else  // the long tier's binary

long long_n() {
  const char* s = std::getenv("EXACTVMAF_LONG_N");
  return s ? std::atol(s) : 200000000L;
}

TEST(CrPowfPairLong, EqualsRAtRandomAdmArguments) {
  const long n = long_n();
  const RandomCounts c = run_random(n, 1015);
  expect_clean(c.general, kUndecidedCeiling);
  expect_clean(c.dyadic, kDyadicUndecidedCeiling);
}
#endif

}  // namespace
}  // namespace exactvmaf::rmath
