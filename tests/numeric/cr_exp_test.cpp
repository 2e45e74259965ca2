// Quick tier for cr_exp (docs/rmath.md): 10^5 arguments per range, bit for
// bit against MPFR, plus special values, the overflow and subnormal edges and
// published hard-to-round cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "dd_test_support.hpp"
#include "numeric/cr_exp.hpp"

namespace exactvmaf::rmath {
namespace {

using testing::check_d;
using testing::Gen;
using testing::Tally;

constexpr int kN = 100000;

// Hard-to-round arguments of exp (at least 45 identical bits after the round
// bit): a sample of CORE-MATH's exp worst-case list (from V. Lefèvre's
// hrcases-explog).
constexpr double kExpHardCases[] = {
    0x1.0122ef37212ebp-1, 0x1.00d48a707b93ep-1, 0x1.00e0e33c8c3fdp-1, 0x1.00bcc31ebded7p-1,
    0x1.012c061237773p-1, 0x1.00c3594568d32p-1, 0x1.005ae04256babp-1, 0x1.0036671ff87efp-1,
    0x1.00cb9ef6145e1p-1, 0x1.01ae25c609a38p-1, 0x1.0303c5638675fp-1, 0x1.03524109555f7p-1,
    0x1.0420cae31f66ep-1, 0x1.0582220d9645ep-1, 0x1.06dbea5b3ec8cp-1, 0x1.074adf23d05c6p-1,
    0x1.008eb56314daap+0, 0x1.0138c96e1a075p+0, 0x1.0133cf37485cfp+0, 0x1.001e6892695eep+0,
    0x1.01b720730f958p+0, 0x1.034b7c73cd59cp+0, 0x1.05439777ada1cp+0, 0x1.053f6a90b554p+0,
    0x1.fedc746ddf8fap-1, 0x1.fdcadaed4b1aap-1, 0x1.fccf0a6788903p-1, 0x1.fc4ee37f259a4p-1,
};

auto exp_fast = [](double x, double, double* r) { return cr_exp_fast(x, r); };
auto exp_host = [](double x, double) { return cr_exp(x); };

TEST(CrExp, RandomRangesAgainstMpfr) {
  Gen g(201);
  Tally wide, svm, subnormal, overflow, tiny, bits;
  for (int i = 0; i < kN; ++i) {
    check_d(wide, MpfrFn::kExp, exp_fast, exp_host, g.uniform(-700.0, 700.0));
    check_d(svm, MpfrFn::kExp, exp_fast, exp_host, -g.uniform(0.0, 50.0));  // the SVM's RBF kernel
    check_d(subnormal, MpfrFn::kExp, exp_fast, exp_host, g.uniform(-746.0, -707.0));
    check_d(overflow, MpfrFn::kExp, exp_fast, exp_host, g.uniform(709.0, 710.5));
    const double t = g.log_uniform(0x1p-70, 0x1p-3);  // crosses the 2^-54 and 2^-20 switches
    check_d(tiny, MpfrFn::kExp, exp_fast, exp_host, i % 2 ? t : -t);
    check_d(bits, MpfrFn::kExp, exp_fast, exp_host, g.any_bits());
  }
  for (const Tally* t : {&wide, &svm, &subnormal, &overflow, &tiny, &bits}) {
    EXPECT_EQ(t->wrong_fast, 0) << t->first_failure;
    EXPECT_EQ(t->wrong_host, 0) << t->first_failure;
    EXPECT_LE(t->undecided, 2);
  }
}

// The list is what it claims: every argument's exp lies within 2^-40 ulp of a
// rounding boundary.
TEST(CrExp, HardCasesAreHardToRound) {
  for (double x : kExpHardCases) EXPECT_LT(testing::distance_to_boundary_ulps(MpfrFn::kExp, x, 0.0), 0x1p-40) << x;
}

TEST(CrExp, HardCases) {
  Tally t;
  int undecided = 0;
  for (double x : kExpHardCases) {
    check_d(t, MpfrFn::kExp, exp_fast, exp_host, x);
    check_d(t, MpfrFn::kExp, exp_fast, exp_host, -x);
    double r;
    if (!cr_exp_fast(x, &r)) ++undecided;
  }
  EXPECT_EQ(t.wrong_fast, 0) << t.first_failure;
  EXPECT_EQ(t.wrong_host, 0) << t.first_failure;
  RecordProperty("undecided", undecided);
}

TEST(CrExp, ArgumentsNearRoundingBoundaries) {
  Gen g(202);
  std::vector<std::pair<double, double>> cands;
  for (int i = 0; i < 200000; ++i) cands.push_back({g.uniform(-700.0, 700.0), 0.0});
  Tally t;
  for (const auto& a : testing::closest_to_midpoint(MpfrFn::kExp, cands, 200)) {
    check_d(t, MpfrFn::kExp, exp_fast, exp_host, a.first);
  }
  EXPECT_EQ(t.n, 200);
  EXPECT_EQ(t.wrong_fast, 0) << t.first_failure;
  EXPECT_EQ(t.wrong_host, 0) << t.first_failure;
}

TEST(CrExp, SmallArgumentsOnTheUlpGridOfOne) {
  // exp(x) = 1 + x + x^2/2 + ...: for x = k 2^-53 (k odd) 1 + x is a midpoint
  // and only x^2/2 decides; likewise k 2^-54 below 1. All k < 10^5, both signs.
  Tally t;
  for (int k = 1; k <= 100000; ++k) {
    for (double x : {k * 0x1p-53, -k * 0x1p-54, k * 0x1p-60, -k * 0x1p-45}) {
      check_d(t, MpfrFn::kExp, exp_fast, exp_host, x);
    }
  }
  EXPECT_EQ(t.wrong_fast, 0) << t.first_failure;
  EXPECT_EQ(t.wrong_host, 0) << t.first_failure;
  EXPECT_EQ(t.undecided, 0);
}

TEST(CrExp, SpecialValuesAndEdges) {
  const double inf = INFINITY;
  EXPECT_TRUE(testing::same_bits(cr_exp(0.0), 1.0));
  EXPECT_TRUE(testing::same_bits(cr_exp(-0.0), 1.0));
  EXPECT_TRUE(testing::same_bits(cr_exp(inf), inf));
  EXPECT_TRUE(testing::same_bits(cr_exp(-inf), 0.0));
  EXPECT_TRUE(std::isnan(cr_exp(NAN)));
  EXPECT_TRUE(testing::same_bits(cr_exp(0x1p-60), 1.0));
  EXPECT_TRUE(testing::same_bits(cr_exp(-0x1p-60), 1.0));
  EXPECT_TRUE(testing::same_bits(cr_exp(-0x1p-54), 1.0));  // 1 - 2^-54 + ... rounds to 1
  EXPECT_TRUE(testing::same_bits(cr_exp(0x1p-53), testing::oracle_d(MpfrFn::kExp, 0x1p-53)));
  // Largest finite result and the first overflow.
  EXPECT_TRUE(testing::same_bits(cr_exp(0x1.62e42fefa39efp+9), testing::oracle_d(MpfrFn::kExp, 0x1.62e42fefa39efp+9)));
  EXPECT_TRUE(std::isfinite(cr_exp(0x1.62e42fefa39efp+9)));
  EXPECT_TRUE(testing::same_bits(cr_exp(0x1.62e42fefa39fp+9), inf));
  EXPECT_TRUE(testing::same_bits(cr_exp(1000.0), inf));
  // Subnormal results, the smallest subnormal and the underflow to 0.
  for (double x : {-708.5, -720.0, -740.0, -744.4, -745.0, -745.1332191019411, -745.1332191019412,
                   -745.2, -1000.0}) {
    EXPECT_TRUE(testing::same_bits(cr_exp(x), testing::oracle_d(MpfrFn::kExp, x))) << x;
  }
  EXPECT_TRUE(testing::same_bits(cr_exp(-746.0), 0.0));
  // Exact: exp(0) is the only exact finite case; exp(1) for reference.
  EXPECT_TRUE(testing::same_bits(cr_exp(1.0), 0x1.5bf0a8b145769p+1));
}

}  // namespace
}  // namespace exactvmaf::rmath
