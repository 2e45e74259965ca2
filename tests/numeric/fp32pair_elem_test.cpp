// sqrt, sin, cos, exp and atan2 on fp32 pairs (numeric/fp32pair_elem.hpp):
// at 10^6+ random arguments per function (uniform and log-uniform
// magnitudes, the edges of each reduction), with exact, rounded (53-bit
// double) and artificially uncertain inputs, the pair lies within its bound
// of R (cr_sin, cr_cos, cr_exp, cr_atan2, IEEE sqrt), the difference computed
// exactly in __float128; the bound stays below 2^-43 relative (absolute for
// cos); Fp32PairF64::to_f32 of the result is R's float whenever it decides,
// and undecided below 1e-4. The constant pairs are checked against MPFR.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>

#include "numeric/cr_exp.hpp"
#include "numeric/cr_trig.hpp"
#include "numeric/fp32pair_elem.hpp"

namespace exactvmaf::rmath {
namespace {

using Quad = __float128;
using namespace pair_elem_detail;

constexpr double kUndecidedCeiling = 1e-4;
constexpr double kRelBoundCeiling = 0x1p-43;
// Near cos's zeros, absolute bounds against results down to 2^-50 (and 2/3
// of the inputs uncertain): measured 0.30.
constexpr double kEdgeUndecidedCeiling = 0.4;

struct Stats {
  const char* name;
  long n = 0, undecided = 0, wrong_f32 = 0, over_bound = 0, infinite = 0;
  long edge_n = 0, edge_undecided = 0;  // arguments near the edges (results near 0, exact cases)
  double max_ratio = 0.0, max_rel_bound = 0.0, max_ratio_exact = 0.0;  // the last: exact inputs
  double first_bad_arg = 0.0, max_ratio_arg = 0.0, max_rel_arg = 0.0;
};

// One result against R: got.hi + got.lo within got.err of want; `scale` is
// |R| for a relative bound, 1 for an absolute one; `propagated` is the part
// of the bound that carries the input's err (the function's condition, not
// the method's: left out of the relative-bound ceiling). `edge`: counted
// apart for the undecided rate.
void check(Stats& s, PairF64 got, double want, double scale, double arg, double propagated = 0.0,
           bool edge = false) {
  ++s.n;
  if (edge) ++s.edge_n;
  if (!(got.err < pair_detail::kInfErr)) {
    ++s.infinite;
    return;
  }
  const Quad diff_q = (static_cast<Quad>(got.hi) + static_cast<Quad>(got.lo)) - static_cast<Quad>(want);
  const double diff = static_cast<double>(diff_q < 0 ? -diff_q : diff_q);
  const double err = static_cast<double>(got.err);
  if (diff > err || (err == 0.0 && diff != 0.0)) {
    if (s.over_bound++ == 0) s.first_bad_arg = arg;
  }
  if (err > 0.0 && propagated == 0.0) s.max_ratio_exact = std::max(s.max_ratio_exact, diff / err);
  if (err > 0.0 && diff / err > s.max_ratio) {
    s.max_ratio = diff / err;
    s.max_ratio_arg = arg;
  }
  if (scale > 0.0 && (err - propagated) / scale > s.max_rel_bound) {
    s.max_rel_bound = (err - propagated) / scale;
    s.max_rel_arg = arg;
  }
  Fp32PairF64 policy;
  const float f = policy.to_f32(got);
  if (policy.undecided) {
    ++(edge ? s.edge_undecided : s.undecided);
  } else if (std::bit_cast<std::uint32_t>(f) != std::bit_cast<std::uint32_t>(static_cast<float>(want))) {
    if (s.wrong_f32++ == 0 && s.over_bound == 0) s.first_bad_arg = arg;
  }
}

void report_and_expect(const Stats& s, long expected_infinite = 0) {
  const long typical = s.n - s.edge_n;
  std::printf("[ %-6s ] %ld args, max err/bound %.3f (exact inputs %.3f; at %a), max bound/|R| 2^%.2f (at %a), undecided %ld of %ld "
              "(rate %.2e; edges %ld of %ld), wrong float %ld, infinite bounds %ld\n",
              s.name, s.n, s.max_ratio, s.max_ratio_exact, s.max_ratio_arg, std::log2(s.max_rel_bound), s.max_rel_arg, s.undecided,
              typical, static_cast<double>(s.undecided) / static_cast<double>(typical), s.edge_undecided, s.edge_n,
              s.wrong_f32, s.infinite);
  EXPECT_EQ(s.over_bound, 0) << s.name << " first: " << std::hexfloat << s.first_bad_arg;
  EXPECT_EQ(s.wrong_f32, 0) << s.name << " first: " << std::hexfloat << s.first_bad_arg;
  EXPECT_LE(s.max_ratio, 1.0);
  EXPECT_LT(s.max_rel_bound, kRelBoundCeiling) << s.name;
  EXPECT_LE(static_cast<double>(s.undecided), kUndecidedCeiling * static_cast<double>(typical)) << s.name;
  EXPECT_LE(static_cast<double>(s.edge_undecided), kEdgeUndecidedCeiling * static_cast<double>(s.edge_n)) << s.name;
  EXPECT_EQ(s.infinite, expected_infinite) << s.name;
  EXPECT_GE(s.n, 1000000);
}

// v with its last 5 significand bits cleared: 48 bits, held exactly by a pair.
double to48(double v) { return std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) & ~std::uint64_t{0x1f}); }

// The three input kinds: 0 exact (48-bit v, err 0), 1 a 53-bit double through
// PairF64(double), 2 exact v with an artificial err (R still at v).
struct Input {
  PairF64 x;
  double v;
};
Input make_input(double v, int kind, double artificial_err) {
  if (kind == 1 && PairF64(v).err < pair_detail::kInfErr) return {PairF64(v), v};
  v = to48(v);
  const float hi = static_cast<float>(v);
  const float lo = static_cast<float>(v - static_cast<double>(hi));
  if (static_cast<double>(hi) + static_cast<double>(lo) != v) return {PairF64(v), v};  // lo subnormal: rounded
  return {PairF64{hi, lo, kind == 2 ? static_cast<float>(artificial_err) : 0.0f}, v};
}

struct Rng {
  std::mt19937_64 g;
  explicit Rng(std::uint64_t seed) : g(seed) {}
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(g); }
  double log_uniform(double lo_exp, double hi_exp) { return std::exp2(uniform(lo_exp, hi_exp)); }
  double sign() { return (g() & 1) ? -1.0 : 1.0; }
  // c plus or minus an offset log-uniform in [2^lo_exp, 2^hi_exp].
  double near(double c, double lo_exp, double hi_exp) { return c + sign() * log_uniform(lo_exp, hi_exp); }
  int below(int n) { return static_cast<int>(g() % static_cast<std::uint64_t>(n)); }
};

constexpr long kN = 1200000;
const double kPi = 3.14159265358979323846;

TEST(Fp32PairElem, Sqrt) {
  Stats s{"sqrt"};
  Rng r(1);
  for (long i = 0; i < kN; ++i) {
    double v;
    switch (i % 5) {
      case 0: v = r.log_uniform(-98, 98); break;
      case 1: v = r.uniform(0x1p-20, 4.0); break;
      case 2: {  // near exact squares of 24-bit floats (exact results, some float midpoints)
        const double sq = static_cast<double>(static_cast<float>(r.uniform(0.5, 2.0)));
        v = sq * sq;
        if (r.below(2)) v = r.near(v, -60, -20);
        break;
      }
      case 3: v = r.near(1.0, -50, -2); break;
      default: v = r.log_uniform(-10, 10); break;
    }
    const Input in = make_input(v, static_cast<int>((i / 5) % 3), 0x1p-50 * v);
    const double want = std::sqrt(in.v);
    check(s, sqrt_pair(in.x), want, want, in.v, static_cast<double>(in.x.err) / (1.69 * want));
  }
  report_and_expect(s);
  // Exact zeros keep their sign and an exact bound; the rest outside the domain has none.
  for (const float z : {0.0f, -0.0f}) {
    const PairF64 y = sqrt_pair(PairF64{z, 0.0f, 0.0f});
    EXPECT_EQ(std::bit_cast<std::uint32_t>(y.hi), std::bit_cast<std::uint32_t>(z));
    EXPECT_EQ(y.err, 0.0f);
  }
  EXPECT_EQ(sqrt_pair(PairF64{0.0f, 0.0f, 0x1p-60f}).err, pair_detail::kInfErr);
  EXPECT_EQ(sqrt_pair(PairF64{-1.0f, 0.0f, 0.0f}).err, pair_detail::kInfErr);
  EXPECT_EQ(sqrt_pair(PairF64{1.0f, 0.0f, 0.5f}).err, pair_detail::kInfErr);
  EXPECT_EQ(sqrt_pair(PairF64{NAN, 0.0f, 0.0f}).err, pair_detail::kInfErr);
}

TEST(Fp32PairElem, Sin) {
  Stats s{"sin"};
  Rng r(2);
  const double edges[] = {0x1p-26, kPi / 4, kPi / 2, 1.6, 2.0, 0.785};
  for (long i = 0; i < kN; ++i) {
    double v;
    switch (i % 4) {
      case 0: v = r.uniform(-2.0, 2.0); break;
      case 1: v = r.sign() * r.log_uniform(-90, 1); break;
      case 2: v = r.sign() * r.near(edges[r.below(6)], -50, -3); break;
      default: v = r.sign() * r.log_uniform(-30, -20); break;
    }
    v = std::clamp(v, -2.0, 2.0);
    if (v == 0.0) continue;
    const Input in = make_input(v, static_cast<int>((i / 4) % 3), 0x1p-50 * std::fabs(v));
    const double want = cr_sin(in.v);
    check(s, sin_pair(in.x), want, std::fabs(want), in.v, static_cast<double>(in.x.err));
  }
  report_and_expect(s);
  const PairF64 z = sin_pair(PairF64{-0.0f, 0.0f, 0.0f});
  EXPECT_EQ(std::bit_cast<std::uint32_t>(z.hi), 0x80000000u);
  EXPECT_EQ(z.err, 0.0f);
  EXPECT_EQ(sin_pair(PairF64{2.01f, 0.0f, 0.0f}).err, pair_detail::kInfErr);
  EXPECT_EQ(sin_pair(PairF64{NAN, 0.0f, 0.0f}).err, pair_detail::kInfErr);
}

TEST(Fp32PairElem, Cos) {
  Stats s{"cos"};
  Rng r(3);
  for (long i = 0; i < kN; ++i) {
    double v;
    switch (i % 4) {
      case 0: v = r.uniform(-64.0, 64.0); break;
      case 1: v = r.sign() * r.near((kPi / 2) * r.below(41), -50, -1); break;
      case 2: v = r.sign() * r.log_uniform(-90, 6); break;
      default: v = r.sign() * r.near((kPi / 4) * (2 * r.below(20) + 1), -50, -3); break;
    }
    v = std::clamp(v, -63.999, 63.999);
    const Input in = make_input(v, static_cast<int>((i / 4) % 3), 0x1p-50 * std::fabs(v));
    const double want = cr_cos(in.v);
    // Absolute bound; near the zeros (case 1, |cos| down to 2^-50) the
    // float decision is hard by nature (and hopeless where the input itself
    // is uncertain to 2^-50 |x|): counted apart.
    check(s, cos_pair(in.x), want, 1.0, in.v, static_cast<double>(in.x.err), i % 4 == 1);
  }
  report_and_expect(s);
  EXPECT_EQ(cos_pair(PairF64{64.0f, 0.0f, 0.0f}).err, pair_detail::kInfErr);
}

TEST(Fp32PairElem, Exp) {
  Stats s{"exp"};
  Rng r(4);
  const double edges[] = {0.0, -1.0, -121.0, -700.0, 1.0, -0.5, -87.0};
  for (long i = 0; i < kN; ++i) {
    double v;
    switch (i % 4) {
      case 0: v = r.uniform(-700.0, 1.0); break;
      case 1: v = r.uniform(-121.0, 1.0); break;
      case 2: v = r.near(edges[r.below(7)], -60, -1); break;
      default: v = -r.log_uniform(-60, 9.45); break;
    }
    v = std::clamp(v, -700.0, 1.0);
    const Input in = make_input(v, static_cast<int>((i / 4) % 3), 0x1p-50);
    const ScaledPair got = exp_pair(in.x);
    const double want = cr_exp(in.v);
    ASSERT_TRUE(got.m.hi >= 0.5f && got.m.hi < 2.0f) << std::hexfloat << in.v;
    const double scaled = std::ldexp(want, -got.e);  // exact: R is a normal double
    check(s, got.m, scaled, scaled, in.v, static_cast<double>(in.x.err) * 1.0001 * scaled);
  }
  report_and_expect(s);
  EXPECT_EQ(exp_pair(PairF64{1.01f, 0.0f, 0.0f}).m.err, pair_detail::kInfErr);
  EXPECT_EQ(exp_pair(PairF64{-701.0f, 0.0f, 0.0f}).m.err, pair_detail::kInfErr);
  EXPECT_EQ(exp_pair(PairF64{-1.0f, 0.0f, 0x1p-19f}).m.err, pair_detail::kInfErr);
}

float random_float(Rng& r, int lo_exp, int hi_exp) {
  return static_cast<float>(r.uniform(1.0, 2.0) * std::exp2(lo_exp + r.below(hi_exp - lo_exp + 1)));
}

TEST(Fp32PairElem, Atan2) {
  Stats s{"atan2"};
  Rng r(5);
  long expected_infinite = 0;
  for (long i = 0; i < kN; ++i) {
    float y, x;
    switch (i % 6) {
      case 0:  // comparable magnitudes
        x = random_float(r, -10, 10);
        y = x * static_cast<float>(r.log_uniform(-8, 8));
        break;
      case 1:  // |y| << |x|
        x = random_float(r, -20, 60);
        y = x * static_cast<float>(r.log_uniform(-95, -20));
        break;
      case 2:  // |y| >> |x|
        y = random_float(r, -20, 60);
        x = y * static_cast<float>(r.log_uniform(-110, -20));
        break;
      case 3:  // |y| == |x| and a few ulps apart
        x = random_float(r, -100, 100);
        y = x;
        for (int k = r.below(5); k > 0; --k) y = std::nextafter(y, r.below(2) ? INFINITY : 0.0f);
        break;
      case 4:  // any exponents, subnormals included
        x = random_float(r, -149, 127);
        y = random_float(r, -149, 127);
        break;
      default:  // the tabulated points q = j/16 and near them
        x = random_float(r, -5, 5);
        y = x * static_cast<float>(r.below(17) + 1) / 16.0f;
        if (r.below(2)) y = std::nextafter(y, INFINITY);
        break;
    }
    if (x == 0.0f || y == 0.0f || !std::isfinite(x) || !std::isfinite(y)) continue;
    if (r.below(2)) x = -x;
    if (r.below(2)) y = -y;
    int ey, ex;
    std::frexp(y, &ey);
    std::frexp(x, &ex);
    const double want = cr_atan2(static_cast<double>(y), static_cast<double>(x));
    const PairF64 got = atan2_pair(y, x);
    // The one place without a bound: a first-octant result below 2^-95
    // (exponent difference below -96).
    if (x > 0.0f && std::fabs(y) <= std::fabs(x) && ey - ex < -96) ++expected_infinite;
    check(s, got, want, std::fabs(want), static_cast<double>(y));
  }
  report_and_expect(s, expected_infinite);
  EXPECT_GT(expected_infinite, 0);
  for (const float bad : {0.0f, -0.0f, INFINITY, NAN}) {
    EXPECT_EQ(atan2_pair(bad, 1.0f).err, pair_detail::kInfErr);
    EXPECT_EQ(atan2_pair(1.0f, bad).err, pair_detail::kInfErr);
  }
}

// The constants: pairs within their stated bounds of the real values
// (MPFR, 256 bits), floats the nearest ones, the splits of pi/2 and ln2/64.
class Mp {
 public:
  Mp() { mpfr_init2(v_, 256); }
  ~Mp() { mpfr_clear(v_); }
  mpfr_ptr get() { return v_; }

 private:
  mpfr_t v_;
};

// |v - (terms...)| / |v|, as a double.
double rel_residual(mpfr_srcptr v, std::initializer_list<float> terms) {
  Mp d;
  mpfr_set(d.get(), v, MPFR_RNDN);
  for (const float t : terms) mpfr_sub_d(d.get(), d.get(), static_cast<double>(t), MPFR_RNDN);
  mpfr_div(d.get(), d.get(), v, MPFR_RNDN);
  return std::fabs(mpfr_get_d(d.get(), MPFR_RNDN));
}
double abs_residual(mpfr_srcptr v, std::initializer_list<float> terms) {
  Mp d;
  mpfr_set(d.get(), v, MPFR_RNDN);
  for (const float t : terms) mpfr_sub_d(d.get(), d.get(), static_cast<double>(t), MPFR_RNDN);
  return std::fabs(mpfr_get_d(d.get(), MPFR_RNDN));
}
bool is_nearest_float(mpfr_srcptr v, float f) { return mpfr_get_flt(v, MPFR_RNDN) == f; }

TEST(Fp32PairElem, ConstantsAgainstMpfr) {
  Mp v;
  auto inv_fact = [&](int n) {
    mpfr_set_ui(v.get(), 1, MPFR_RNDN);
    for (int k = 2; k <= n; ++k) mpfr_div_ui(v.get(), v.get(), static_cast<unsigned>(k), MPFR_RNDN);
    return v.get();
  };
  const struct {
    int n;
    float hi, lo;
  } fact_pairs[] = {{3, kInvFact3Hi, kInvFact3Lo}, {4, kInvFact4Hi, kInvFact4Lo}, {5, kInvFact5Hi, kInvFact5Lo},
                    {6, kInvFact6Hi, kInvFact6Lo}, {7, kInvFact7Hi, kInvFact7Lo}, {8, kInvFact8Hi, kInvFact8Lo},
                    {9, kInvFact9Hi, kInvFact9Lo}, {10, kInvFact10Hi, kInvFact10Lo}};
  for (const auto& p : fact_pairs) {
    EXPECT_LE(rel_residual(inv_fact(p.n), {p.hi, p.lo}), 0x1p-49) << p.n;
    EXPECT_TRUE(is_nearest_float(inv_fact(p.n), p.hi)) << p.n;
  }
  const struct {
    int n;
    float f;
  } fact_floats[] = {{11, kInvFact11}, {12, kInvFact12}, {13, kInvFact13},
                     {14, kInvFact14}, {15, kInvFact15}, {16, kInvFact16}};
  for (const auto& p : fact_floats) EXPECT_TRUE(is_nearest_float(inv_fact(p.n), p.f)) << p.n;
  auto inv = [&](unsigned n) {
    mpfr_set_ui(v.get(), 1, MPFR_RNDN);
    mpfr_div_ui(v.get(), v.get(), n, MPFR_RNDN);
    return v.get();
  };
  EXPECT_LE(rel_residual(inv(3), {kInv3Hi, kInv3Lo}), 0x1p-49);
  EXPECT_LE(rel_residual(inv(5), {kInv5Hi, kInv5Lo}), 0x1p-49);
  EXPECT_TRUE(is_nearest_float(inv(7), kInv7));
  EXPECT_TRUE(is_nearest_float(inv(9), kInv9));
  for (int j = 1; j <= 16; ++j) {
    mpfr_set_ui(v.get(), static_cast<unsigned>(j), MPFR_RNDN);
    mpfr_div_ui(v.get(), v.get(), 16, MPFR_RNDN);
    mpfr_atan(v.get(), v.get(), MPFR_RNDN);
    const AtanEntry& e = atan_entry(j);
    EXPECT_LE(rel_residual(v.get(), {e.hi, e.lo}), 0x1p-49) << j;
    EXPECT_TRUE(is_nearest_float(v.get(), e.hi)) << j;
  }
  EXPECT_EQ(atan_entry(0).hi, 0.0f);
  EXPECT_EQ(atan_entry(0).lo, 0.0f);
  // pi/2: the 18/16/24-bit split, pi/2 - A as a pair, pi/2 and pi as pairs.
  mpfr_const_pi(v.get(), MPFR_RNDN);
  mpfr_div_2ui(v.get(), v.get(), 1, MPFR_RNDN);
  EXPECT_LE(41.0 * abs_residual(v.get(), {kPio2A, kPio2B, kPio2C, kPio2D}), 0x1p-82);
  EXPECT_TRUE(is_nearest_float(v.get(), kPio2Hi));
  EXPECT_LE(abs_residual(v.get(), {kPio2A, kPio2RestHi, kPio2RestLo}), static_cast<double>(kPio2RestErr));
  EXPECT_LE(abs_residual(v.get(), {kPio2Hi, kPio2Lo}), static_cast<double>(kPio2PairErr));
  // k A and k B exact for |k| <= 41 (and j A for |j| < 2^16): significand widths.
  auto sig_bits = [](float f) {
    const std::uint32_t m = (std::bit_cast<std::uint32_t>(f) & 0x7fffffu) | 0x800000u;
    return 24 - std::countr_zero(m);
  };
  EXPECT_LE(sig_bits(kPio2A), 18);
  EXPECT_LE(sig_bits(kPio2B), 18);
  EXPECT_LE(sig_bits(kLn2o64A), 8);
  // |pi/2 - A| is below 2^-16 (the hi - k A exactness argument needs |r1| < 1).
  EXPECT_LT(abs_residual(v.get(), {kPio2A}), 0x1p-16);
  mpfr_mul_2ui(v.get(), v.get(), 1, MPFR_RNDN);
  EXPECT_LE(abs_residual(v.get(), {kPiHi, kPiLo}), static_cast<double>(kPiPairErr));
  mpfr_ui_div(v.get(), 2, v.get(), MPFR_RNDN);
  EXPECT_TRUE(is_nearest_float(v.get(), kTwoOverPi));
  // ln2/64: A < ln2/64 (Sterbenz in exp_pair), the 4-term split, 64/ln2.
  mpfr_const_log2(v.get(), MPFR_RNDN);
  mpfr_div_ui(v.get(), v.get(), 64, MPFR_RNDN);
  EXPECT_GT(mpfr_cmp_d(v.get(), static_cast<double>(kLn2o64A)), 0);
  EXPECT_LE(abs_residual(v.get(), {kLn2o64A, kLn2o64B, kLn2o64C, kLn2o64D}), 0x1p-90);
  mpfr_ui_div(v.get(), 1, v.get(), MPFR_RNDN);
  EXPECT_TRUE(is_nearest_float(v.get(), k64OverLn2));
}

}  // namespace
}  // namespace exactvmaf::rmath
