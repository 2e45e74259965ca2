// cr_sin, cr_cos, cr_atan2 against MPFR (quick tier): 10^5 arguments per
// function and range, exact and special cases, C99 Annex F for atan2,
// error bound of the double-double evaluation, the generated tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>
#include <limits>
#include <sstream>

#include "cr_trig_check.hpp"
#include "cr_trig_tablegen.hpp"
#include "support/tablegen.hpp"

namespace {

using namespace exactvmaf::test;
using exactvmaf::rmath::cr_atan2;
using exactvmaf::rmath::cr_atan2_fast;
using exactvmaf::rmath::cr_cos;
using exactvmaf::rmath::cr_cos_fast;
using exactvmaf::rmath::cr_sin;
using exactvmaf::rmath::cr_sin_fast;

constexpr std::uint64_t kQuickN = 100000;

void expect_clean(const TrigCount& c, bool fast_range) {
  EXPECT_EQ(c.wrong_fast, 0u);
  EXPECT_EQ(c.wrong_full, 0u);
  // The fast path is built to leave about 2^-40 of its arguments undecided.
  EXPECT_LE(c.undecided_in_fast_range, 2u);
  if (fast_range) {
    EXPECT_LE(c.undecided, 2u);
  }
  // The analysis claims the true error is below 1/16 of the bound used.
  EXPECT_LT(c.max_error_ratio, 1.0 / 16.0);
}

TEST(CrTrig, SinRanges) {
  const TrigRange ranges[] = {TrigRange::kCiedeSinHalfHue, TrigRange::kCiedeSinRt,
                              TrigRange::kModerate, TrigRange::kNearPiOver2, TrigRange::kFull};
  std::uint64_t seed = 11;
  for (TrigRange r : ranges) {
    const TrigCount c = check_sin_cos(false, r, kQuickN, seed++, 16);
    print_count("sin", trig_range_name(r), c);
    expect_clean(c, r != TrigRange::kFull);
  }
}

TEST(CrTrig, CosRanges) {
  const TrigRange ranges[] = {TrigRange::kCiedeCos, TrigRange::kCiedeSinHalfHue,
                              TrigRange::kModerate, TrigRange::kNearPiOver2, TrigRange::kFull};
  std::uint64_t seed = 101;
  for (TrigRange r : ranges) {
    const TrigCount c = check_sin_cos(true, r, kQuickN, seed++, 16);
    print_count("cos", trig_range_name(r), c);
    expect_clean(c, r != TrigRange::kFull);
  }
}

TEST(CrTrig, Atan2Ranges) {
  const Atan2Range ranges[] = {Atan2Range::kCiedeLab, Atan2Range::kModerate, Atan2Range::kFull};
  std::uint64_t seed = 1001;
  for (Atan2Range r : ranges) {
    const TrigCount c = check_atan2(r, kQuickN, seed++, 16);
    print_count("atan2", atan2_range_name(r), c);
    expect_clean(c, r != Atan2Range::kFull);
  }
}

TEST(CrTrig, SinCosExactAndSpecial) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(bits64(cr_sin(0.0)), bits64(0.0));
  EXPECT_EQ(bits64(cr_sin(-0.0)), bits64(-0.0));
  EXPECT_EQ(bits64(cr_cos(0.0)), bits64(1.0));
  EXPECT_EQ(bits64(cr_cos(-0.0)), bits64(1.0));
  for (double x : {inf, -inf, nan, -nan}) {
    EXPECT_EQ(bits64(cr_sin(x)), 0x7ff8000000000000ull) << x;
    EXPECT_EQ(bits64(cr_cos(x)), 0x7ff8000000000000ull) << x;
  }
  // Subnormal and tiny arguments: sin x rounds to x, cos x to 1.
  for (double x : {0x1p-1074, -0x1p-1074, 0x0.fffffffffffffp-1022, 0x1p-1022, 0x1p-600,
                   0x1.fffffffffffffp-28, -0x1.fffffffffffffp-28}) {
    EXPECT_EQ(bits64(cr_sin(x)), bits64(x)) << x;
    EXPECT_EQ(bits64(cr_cos(x)), bits64(1.0)) << x;
  }
  // Just below 2^-26 sin x still rounds to x, but cos x = 1 - x^2/2 is 1 - 2^-53.
  EXPECT_EQ(bits64(cr_sin(0x1.fffffffffffffp-27)), bits64(0x1.fffffffffffffp-27));
  EXPECT_EQ(bits64(cr_cos(0x1.fffffffffffffp-27)), bits64(0x1.fffffffffffffp-1));
  // The thresholds of the tiny paths and their neighbours, against MPFR.
  for (double x : {0x1p-27, 0x1.0000000000001p-27, 0x1p-26, 0x1.0000000000001p-26,
                   0x1.fffffffffffffp-28, 0x1.8p-27, 0.78125, 0x1.8fffffffffffffp-1,
                   0x1p22, 0x1.0000000000001p22, 0x1.fffffffffffffp21}) {
    for (double s : {x, -x}) {
      EXPECT_EQ(bits64(cr_sin(s)), bits64(trig_oracle(TrigFn::kSin, s))) << s;
      EXPECT_EQ(bits64(cr_cos(s)), bits64(trig_oracle(TrigFn::kCos, s))) << s;
    }
  }
}

TEST(CrTrig, SinCosHardArguments) {
  // Nearest doubles to multiples of pi/2 and pi/4 (where reduction cancels
  // most), the largest double, and the closest double to a multiple of pi/2
  // known (6381956970095103 * 2^797, Muller's book, whose reduced argument
  // is about 2^-61): the last ones take the slow path.
  std::vector<double> xs = {1.5707963267948966, 3.141592653589793, 4.71238898038469,
                            6.283185307179586, 0.7853981633974483, 2.356194490192345,
                            355.0, 103993.0, 0x1.921fb54442d18p+21,
                            1.7976931348623157e308, 6381956970095103.0 * 0x1p797,
                            0x1.0p1000, 1e22};
  for (int k = 1; k < 2000; ++k) {
    xs.push_back(static_cast<double>(k) * 1.5707963267948966);
    xs.push_back(static_cast<double>(k) * 0.7853981633974483);
  }
  std::uint64_t undecided = 0;
  for (double x0 : xs) {
    for (int step = -2; step <= 2; ++step) {
      const double x = step_ulps(x0, step);
      for (double s : {x, -x}) {
        EXPECT_TRUE(same_result(cr_sin(s), trig_oracle(TrigFn::kSin, s))) << s;
        EXPECT_TRUE(same_result(cr_cos(s), trig_oracle(TrigFn::kCos, s))) << s;
        double out;
        if (!cr_sin_fast(s, &out) && s <= 0x1p22 && s >= -0x1p22) ++undecided;
      }
    }
  }
  EXPECT_LE(undecided, 2u);
}

TEST(CrTrig, Symmetry) {
  SplitMix64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const double x = trig_arg(TrigRange::kModerate, rng);
    EXPECT_EQ(bits64(cr_sin(-x)), bits64(-cr_sin(x))) << x;
    EXPECT_EQ(bits64(cr_cos(-x)), bits64(cr_cos(x))) << x;
    const double y = trig_arg(TrigRange::kModerate, rng);
    EXPECT_EQ(bits64(cr_atan2(-y, x)), bits64(-cr_atan2(y, x))) << y << " " << x;
  }
}

// C99 Annex F.9.1.4 (atan2), plus NaNs.
TEST(CrTrig, Atan2SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double pi = 0x1.921fb54442d18p+1, pi2 = 0x1.921fb54442d18p+0;
  const double pi4 = 0x1.921fb54442d18p-1, pi34 = 0x1.2d97c7f3321d2p+1;
  struct Case {
    double y, x, want;
  };
  const Case cases[] = {
      {0.0, -0.0, pi},      {-0.0, -0.0, -pi},   {0.0, 0.0, 0.0},       {-0.0, 0.0, -0.0},
      {0.0, -1.0, pi},      {-0.0, -1.0, -pi},   {0.0, 1.0, 0.0},       {-0.0, 1.0, -0.0},
      {0.0, -inf, pi},      {-0.0, -inf, -pi},   {0.0, inf, 0.0},       {-0.0, inf, -0.0},
      {-1.0, 0.0, -pi2},    {-1.0, -0.0, -pi2},  {1.0, 0.0, pi2},       {1.0, -0.0, pi2},
      {1.0, -inf, pi},      {-1.0, -inf, -pi},   {1.0, inf, 0.0},       {-1.0, inf, -0.0},
      {inf, 1.0, pi2},      {-inf, 1.0, -pi2},   {inf, -1.0, pi2},      {-inf, 0.0, -pi2},
      {inf, -inf, pi34},    {-inf, -inf, -pi34}, {inf, inf, pi4},       {-inf, inf, -pi4},
      {1.0, 1.0, pi4},      {-1.0, -1.0, -pi34}, {1e300, 1e-300, pi2},  {1e-300, -1e300, pi},
      {0x1p-1074, -1.0, pi}, {-0x1p-1074, -0x1p1023, -pi},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(bits64(cr_atan2(c.y, c.x)), bits64(c.want)) << c.y << ", " << c.x;
    EXPECT_EQ(bits64(cr_atan2(c.y, c.x)), bits64(trig_oracle(TrigFn::kAtan2, c.y, c.x)))
        << c.y << ", " << c.x;
  }
  for (double a : {nan, -nan}) {
    for (double b : {nan, 1.0, 0.0, -inf}) {
      EXPECT_EQ(bits64(cr_atan2(a, b)), 0x7ff8000000000000ull);
      EXPECT_EQ(bits64(cr_atan2(b, a)), 0x7ff8000000000000ull);
    }
  }
}

TEST(CrTrig, Atan2TinyAndExtremeRatios) {
  // Results near and below the fast path's limit (2^-949) and subnormal
  // results: the slow path, rounded at 2^-1074.
  const double ys[] = {0x1p-1074, 0x1.8p-1074, 3 * 0x1p-1074, 0x1p-1022, 0x1p-900, 0x1p-60, 1.0,
                       0x1.fffffffffffffp1023};
  const double xs[] = {0x1p-1074, 0x1p-1022, 1.0, 2.0, 3.0, 0x1p60, 0x1p900, 0x1p1000,
                       0x1.fffffffffffffp1023};
  for (double y : ys) {
    for (double x : xs) {
      for (double sy : {y, -y}) {
        for (double sx : {x, -x}) {
          EXPECT_EQ(bits64(cr_atan2(sy, sx)), bits64(trig_oracle(TrigFn::kAtan2, sy, sx)))
              << sy << ", " << sx;
        }
      }
    }
  }
  // Around the 950-binade cut-off, where the scaled path and the shortcut meet.
  for (int d = 940; d <= 960; ++d) {
    for (double m : {1.0, 1.5, 1.9999999999999998}) {
      const double small = m * 0x1p-500;
      double big = 0x1p-500;
      for (int i = 0; i < d; ++i) big *= 2.0;
      for (double sx : {big, -big}) {
        EXPECT_EQ(bits64(cr_atan2(small, sx)), bits64(trig_oracle(TrigFn::kAtan2, small, sx)));
        EXPECT_EQ(bits64(cr_atan2(sx, small)), bits64(trig_oracle(TrigFn::kAtan2, sx, small)));
      }
    }
  }
}

// Of 2*10^5 candidates per function, the 200 whose exact value lies
// closest to a rounding boundary (about 2^-18 ulp): the fast path must be
// right whenever it decides, the full function always.
TEST(CrTrig, ArgumentsNearRoundingBoundaries) {
  struct Candidate {
    double dist, a, b;
  };
  auto run = [](TrigFn fn, auto gen, const char* name) {
    SplitMix64 rng(fn == TrigFn::kSin ? 21 : fn == TrigFn::kCos ? 22 : 23);
    std::vector<Candidate> c;
    for (int i = 0; i < 200000; ++i) {
      double a = 0.0, b = 0.0;
      gen(rng, &a, &b);
      c.push_back({trig_midpoint_distance(fn, a, b), a, b});
    }
    std::partial_sort(c.begin(), c.begin() + 200, c.end(),
                      [](const Candidate& x, const Candidate& y) { return x.dist < y.dist; });
    int undecided = 0;
    for (int i = 0; i < 200; ++i) {
      const double want = trig_oracle(fn, c[i].a, c[i].b);
      double fast = 0.0;
      bool decided = false;
      double full = 0.0;
      switch (fn) {
        case TrigFn::kSin: decided = cr_sin_fast(c[i].a, &fast); full = cr_sin(c[i].a); break;
        case TrigFn::kCos: decided = cr_cos_fast(c[i].a, &fast); full = cr_cos(c[i].a); break;
        case TrigFn::kAtan2: decided = cr_atan2_fast(c[i].a, c[i].b, &fast); full = cr_atan2(c[i].a, c[i].b); break;
      }
      if (decided) {
        EXPECT_EQ(bits64(fast), bits64(want)) << name << "(" << c[i].a << ", " << c[i].b << ")";
      } else {
        ++undecided;
      }
      EXPECT_EQ(bits64(full), bits64(want)) << name << "(" << c[i].a << ", " << c[i].b << ")";
    }
    std::printf("%s: closest of 2e5 to a midpoint: %.3g ulp; 200th: %.3g ulp; undecided %d of 200\n",
                name, c[0].dist, c[199].dist, undecided);
  };
  run(TrigFn::kSin, [](SplitMix64& r, double* a, double*) { *a = trig_arg(TrigRange::kModerate, r); }, "sin");
  run(TrigFn::kCos, [](SplitMix64& r, double* a, double*) { *a = trig_arg(TrigRange::kCiedeCos, r); }, "cos");
  run(TrigFn::kAtan2, [](SplitMix64& r, double* a, double* b) { atan2_args(Atan2Range::kCiedeLab, r, a, b); },
      "atan2");
}

// Arguments whose result is within about 2^-50 ulp of a midpoint (see
// solve_for_midpoint): the fast path must leave them undecided (its bound is
// 2^-41 ulp) and the host function must still round them correctly.
TEST(CrTrig, ConstructedHardCasesInTheFastRange) {
  int undecided = 0, total = 0;
  for (const TrigHardCase& c : trig_constructed_hard_cases()) {
    const double x0 = solve_for_midpoint(c.fn, c.target_ulps, c.ulp_exp);
    for (int step = -1; step <= 1; ++step) {
      for (double x : {step_ulps(x0, step), -step_ulps(x0, step)}) {
        const double dist = trig_midpoint_distance(c.fn, x, 1.0);
        double want = trig_oracle(c.fn, x, 1.0), fast = 0.0, full = 0.0;
        bool decided = false;
        if (c.fn == TrigFn::kSin) {
          decided = cr_sin_fast(x, &fast);
          full = cr_sin(x);
        } else if (c.fn == TrigFn::kCos) {
          decided = cr_cos_fast(x, &fast);
          full = cr_cos(x);
        } else {
          decided = cr_atan2_fast(x, 1.0, &fast);
          full = cr_atan2(x, 1.0);
        }
        ++total;
        if (!decided) ++undecided;
        if (step == 0) {
          EXPECT_LT(dist, 0x1p-45) << x;  // the construction worked
          EXPECT_FALSE(decided) << x;     // and the bound refuses to decide
        }
        if (decided) {
          EXPECT_EQ(bits64(fast), bits64(want)) << x;
        }
        EXPECT_EQ(bits64(full), bits64(want)) << x;
      }
    }
  }
  std::printf("constructed hard cases: %d arguments, %d undecided by the fast path\n", total, undecided);
}

TEST(CrTrig, TablesMatchGenerator) {
  const std::filesystem::path committed = EXACTVMAF_SOURCE_DIR "/src/numeric/cr_trig_tables.hpp";
  ASSERT_TRUE(std::filesystem::exists(committed));
  EXPECT_TRUE(read_text_file(committed) == generate_cr_trig_tables())
      << "src/numeric/cr_trig_tables.hpp differs from tests/numeric/cr_trig_tablegen.cpp's output";
}

}  // namespace
