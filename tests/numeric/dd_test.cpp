// dd.hpp and cr_round.hpp: the exact transforms are exact, the dd operations
// stay inside their documented bounds, and the rounding tests never decide
// wrongly next to a rounding boundary (all checked with MPFR).
#include <gtest/gtest.h>

#include <mpfr.h>

#include <cmath>

#include "dd_test_support.hpp"
#include "numeric/cr_round.hpp"
#include "numeric/cr_tables.hpp"
#include "numeric/dd.hpp"

namespace exactvmaf::dd {
namespace {

using rmath::testing::Gen;

// Relative error of hi + lo against the exact value v (MPFR, 600 bits).
double rel_err(const DD& got, mpfr_srcptr v) {
  mpfr_t t;
  mpfr_init2(t, 600);
  mpfr_set_d(t, got.hi, MPFR_RNDN);
  mpfr_add_d(t, t, got.lo, MPFR_RNDN);
  mpfr_sub(t, t, v, MPFR_RNDN);
  if (!mpfr_zero_p(v)) mpfr_div(t, t, v, MPFR_RNDN);
  const double e = std::fabs(mpfr_get_d(t, MPFR_RNDN));
  mpfr_clear(t);
  return e;
}

DD random_dd(Gen& g, int exp_range) {
  const double hi = std::ldexp(g.uniform(1.0, 2.0), static_cast<int>(g.rng() % (2 * exp_range + 1)) - exp_range) *
                    (g.rng() & 1 ? -1.0 : 1.0);
  const double lo = hi * g.uniform(-1.0, 1.0) * 0x1p-53;
  return fast_two_sum(hi, lo);
}

TEST(Dd, ExactTransformsAreExact) {
  Gen g(401);
  mpfr_t a, b, v;
  mpfr_inits2(600, a, b, v, static_cast<mpfr_ptr>(nullptr));
  for (int i = 0; i < 100000; ++i) {
    const double x = std::ldexp(g.uniform(-2.0, 2.0), static_cast<int>(g.rng() % 400) - 200);
    const double y = std::ldexp(g.uniform(-2.0, 2.0), static_cast<int>(g.rng() % 400) - 200);
    mpfr_set_d(a, x, MPFR_RNDN);
    mpfr_set_d(b, y, MPFR_RNDN);
    mpfr_add(v, a, b, MPFR_RNDN);
    ASSERT_EQ(rel_err(two_sum(x, y), v), 0.0);
    const double big = std::fabs(x) >= std::fabs(y) ? x : y;
    const double small = std::fabs(x) >= std::fabs(y) ? y : x;
    ASSERT_EQ(rel_err(fast_two_sum(big, small), v), 0.0);
    mpfr_mul(v, a, b, MPFR_RNDN);
    ASSERT_EQ(rel_err(two_prod(x, y), v), 0.0) << x << " " << y;
    mpfr_mul(v, a, a, MPFR_RNDN);
    ASSERT_EQ(rel_err(two_sqr(x), v), 0.0);
  }
  mpfr_clears(a, b, v, static_cast<mpfr_ptr>(nullptr));
}

TEST(Dd, OperationsWithinTheirBounds) {
  Gen g(402);
  mpfr_t a, b, v;
  mpfr_inits2(600, a, b, v, static_cast<mpfr_ptr>(nullptr));
  double worst_add = 0, worst_addd = 0, worst_mul = 0, worst_muld = 0, worst_sqr = 0, worst_div = 0;
  for (int i = 0; i < 100000; ++i) {
    const DD x = random_dd(g, 30);
    DD y = random_dd(g, 30);
    if (i % 4 == 0) y = fast_two_sum(-x.hi * (1.0 + g.unit() * 0x1p-40), y.lo);  // cancellation
    mpfr_set_d(a, x.hi, MPFR_RNDN);
    mpfr_add_d(a, a, x.lo, MPFR_RNDN);
    mpfr_set_d(b, y.hi, MPFR_RNDN);
    mpfr_add_d(b, b, y.lo, MPFR_RNDN);
    mpfr_add(v, a, b, MPFR_RNDN);
    worst_add = std::max(worst_add, rel_err(add(x, y), v));
    mpfr_set_d(b, y.hi, MPFR_RNDN);
    mpfr_add(v, a, b, MPFR_RNDN);
    worst_addd = std::max(worst_addd, rel_err(add(x, y.hi), v));
    mpfr_mul(v, a, b, MPFR_RNDN);
    worst_muld = std::max(worst_muld, rel_err(mul(x, y.hi), v));
    mpfr_set_d(b, y.hi, MPFR_RNDN);
    mpfr_add_d(b, b, y.lo, MPFR_RNDN);
    mpfr_mul(v, a, b, MPFR_RNDN);
    worst_mul = std::max(worst_mul, rel_err(mul(x, y), v));
    mpfr_div(v, a, b, MPFR_RNDN);
    worst_div = std::max(worst_div, rel_err(div(x, y), v));
    mpfr_mul(v, a, a, MPFR_RNDN);
    worst_sqr = std::max(worst_sqr, rel_err(sqr(x), v));
  }
  EXPECT_LE(worst_add, std::exp2(-104.4));  // documented bounds in dd.hpp
  EXPECT_LE(worst_addd, 0x1p-105);
  EXPECT_LE(worst_muld, std::exp2(-105.4));
  EXPECT_LE(worst_mul, std::exp2(-102.9));
  EXPECT_LE(worst_sqr, std::exp2(-103.4));
  EXPECT_LE(worst_div, 0x1p-102);
  mpfr_clears(a, b, v, static_cast<mpfr_ptr>(nullptr));
}

// round_to_double / round_scaled_to_double / round_scaled_to_float next to
// midpoints: the value hi + lo is put within a few err of a midpoint; when
// the test decides, every point of [v - err, v + err] must round (MPFR) to
// the decided result.
TEST(CrRound, NeverDecidesWronglyNearMidpoints) {
  Gen g(403);
  mpfr_t v, lo_end, hi_end;
  mpfr_inits2(300, v, lo_end, hi_end, static_cast<mpfr_ptr>(nullptr));
  long decided = 0, undecided = 0;
  for (int i = 0; i < 200000; ++i) {
    const double hi = g.uniform(1.0, 2.0);
    const double rel = std::ldexp(1.0, -(60 + static_cast<int>(g.rng() % 40)));  // err_rel 2^-60..2^-99
    // lo: close to the midpoint (+-0.5 ulp(hi)) or anywhere.
    const double ulp = 0x1p-52;
    double lo = (g.rng() & 1 ? 0.5 : -0.5) * ulp + g.uniform(-4.0, 4.0) * rel * hi;
    if (i % 3 == 0) lo = g.uniform(-0.5, 0.5) * ulp;
    if (i % 7 == 0) lo = (g.rng() & 1 ? 0.5 : -0.5) * ulp;  // exactly a midpoint
    const DD x = fast_two_sum(hi, lo);
    const int k = static_cast<int>(g.rng() % 2200) - 1100;
    // Interval ends, exact.
    mpfr_set_d(v, x.hi, MPFR_RNDN);
    mpfr_add_d(v, v, x.lo, MPFR_RNDN);
    mpfr_mul_d(lo_end, v, 1.0 - rel, MPFR_RNDN);
    mpfr_mul_d(hi_end, v, 1.0 + rel, MPFR_RNDN);
    mpfr_mul_2si(lo_end, lo_end, k, MPFR_RNDN);
    mpfr_mul_2si(hi_end, hi_end, k, MPFR_RNDN);
    double r;
    if (rmath::detail::round_scaled_to_double(x.hi, x.lo, rel, k, &r)) {
      ++decided;
      // The reference rounding of both ends, IEEE range (subnormals, overflow).
      const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
      mpfr_set_emin(-1073);
      mpfr_set_emax(1024);
      mpfr_t e1, e2;
      mpfr_init2(e1, 53);
      mpfr_init2(e2, 53);
      int i1 = mpfr_set(e1, lo_end, MPFR_RNDN);
      i1 = mpfr_check_range(e1, i1, MPFR_RNDN);
      mpfr_subnormalize(e1, i1, MPFR_RNDN);
      int i2 = mpfr_set(e2, hi_end, MPFR_RNDN);
      i2 = mpfr_check_range(e2, i2, MPFR_RNDN);
      mpfr_subnormalize(e2, i2, MPFR_RNDN);
      const double d1 = mpfr_get_d(e1, MPFR_RNDN), d2 = mpfr_get_d(e2, MPFR_RNDN);
      mpfr_clear(e1);
      mpfr_clear(e2);
      mpfr_set_emin(emin);
      mpfr_set_emax(emax);
      ASSERT_EQ(d1, r) << std::hexfloat << hi << " " << lo << " " << rel << " " << k;
      ASSERT_EQ(d2, r) << std::hexfloat << hi << " " << lo << " " << rel << " " << k;
    } else {
      ++undecided;
    }
    // Float: scale into the float range.
    const int kf = static_cast<int>(g.rng() % 290) - 155;
    float f;
    if (rmath::detail::round_scaled_to_float(x.hi, x.lo, rel, kf, &f)) {
      mpfr_set_d(v, x.hi, MPFR_RNDN);
      mpfr_add_d(v, v, x.lo, MPFR_RNDN);
      for (double s : {1.0 - rel, 1.0 + rel}) {
        mpfr_mul_d(lo_end, v, s, MPFR_RNDN);
        mpfr_mul_2si(lo_end, lo_end, kf, MPFR_RNDN);
        const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
        mpfr_set_emin(-148);
        mpfr_set_emax(128);
        mpfr_t e1;
        mpfr_init2(e1, 24);
        int i1 = mpfr_set(e1, lo_end, MPFR_RNDN);
        i1 = mpfr_check_range(e1, i1, MPFR_RNDN);
        mpfr_subnormalize(e1, i1, MPFR_RNDN);
        const float want = mpfr_get_flt(e1, MPFR_RNDN);
        mpfr_clear(e1);
        mpfr_set_emin(emin);
        mpfr_set_emax(emax);
        ASSERT_EQ(want, f) << std::hexfloat << hi << " " << lo << " " << rel << " " << kf;
      }
    }
  }
  EXPECT_GT(decided, 0);
  EXPECT_GT(undecided, 0);
  mpfr_clears(v, lo_end, hi_end, static_cast<mpfr_ptr>(nullptr));
}

// The generated tables of cr_tables.hpp against MPFR (each dd within
// 2^-106 relative; constants; the 30-bit first part of ln2/4096).
TEST(CrTables, MatchMpfr) {
  using namespace rmath::detail;
  mpfr_t v, ln2;
  mpfr_inits2(400, v, ln2, static_cast<mpfr_ptr>(nullptr));
  mpfr_const_log2(ln2, MPFR_RNDN);
  const double bound = 0x1p-106;
  for (int i = 0; i < 256; ++i) {
    const LogEntry& e = kLogTableHost[i];
    if (i == 0) EXPECT_EQ(e.r, 1.0);
    if (i == 255) EXPECT_EQ(e.r, 0.5);
    // m r - 1 stays within 2^-8 over the bucket [1 + i/256, 1 + (i+1)/256).
    EXPECT_LE(std::fabs((1.0 + i / 256.0) * e.r - 1.0), 0x1p-8) << i;
    EXPECT_LE(std::fabs((1.0 + (i + 1) / 256.0) * e.r - 1.0), 0x1p-8) << i;
    mpfr_set_d(v, i >= 106 ? 2.0 * e.r : e.r, MPFR_RNDN);
    mpfr_log(v, v, MPFR_RNDN);
    mpfr_neg(v, v, MPFR_RNDN);
    if (i == 0 || i == 255) {
      EXPECT_TRUE(mpfr_zero_p(v));
      EXPECT_EQ(e.lhi, 0.0);
    } else {
      EXPECT_LE(rel_err(DD{e.lhi, e.llo}, v), bound) << i;
    }
  }
  for (int j = 0; j < 64; ++j) {
    mpfr_set_si(v, j, MPFR_RNDN);
    mpfr_div_si(v, v, 64, MPFR_RNDN);
    mpfr_ui_pow(v, 2, v, MPFR_RNDN);
    EXPECT_LE(rel_err(DD{kExp2Table1Host[j].hi, kExp2Table1Host[j].lo}, v), bound) << j;
    mpfr_set_si(v, j, MPFR_RNDN);
    mpfr_div_si(v, v, 4096, MPFR_RNDN);
    mpfr_ui_pow(v, 2, v, MPFR_RNDN);
    EXPECT_LE(rel_err(DD{kExp2Table2Host[j].hi, kExp2Table2Host[j].lo}, v), bound) << j;
  }
  EXPECT_LE(rel_err(DD{kLn2Hi, kLn2Lo}, ln2), bound);
  mpfr_ui_div(v, 1, ln2, MPFR_RNDN);
  EXPECT_LE(rel_err(DD{kInvLn2Hi, kInvLn2Lo}, v), bound);
  mpfr_set_ui(v, 10, MPFR_RNDN);
  mpfr_log(v, v, MPFR_RNDN);
  mpfr_ui_div(v, 1, v, MPFR_RNDN);
  EXPECT_LE(rel_err(DD{kInvLn10Hi, kInvLn10Lo}, v), bound);
  // ln2/4096 = A + B + C to 2^-155, A with at most 30 significant bits.
  mpfr_div_2ui(v, ln2, 12, MPFR_RNDN);
  mpfr_sub_d(v, v, kLn2Over4096A, MPFR_RNDN);
  mpfr_sub_d(v, v, kLn2Over4096B, MPFR_RNDN);
  mpfr_sub_d(v, v, kLn2Over4096C, MPFR_RNDN);
  EXPECT_LE(std::fabs(mpfr_get_d(v, MPFR_RNDN)), 0x1p-155);
  EXPECT_EQ(dd::bits_of(kLn2Over4096A) & ((std::uint64_t{1} << 23) - 1), 0u);
  mpfr_clears(v, ln2, static_cast<mpfr_ptr>(nullptr));
}

}  // namespace
}  // namespace exactvmaf::dd
