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
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
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

void report_and_expect(const Stats& s, long expected_infinite = 0, double rel_ceiling = kRelBoundCeiling) {
  const long typical = s.n - s.edge_n;
  std::printf("[ %-6s ] %ld args, max err/bound %.3f (exact inputs %.3f; at %a), max bound/|R| 2^%.2f (at %a), undecided %ld of %ld "
              "(rate %.2e; edges %ld of %ld), wrong float %ld, infinite bounds %ld\n",
              s.name, s.n, s.max_ratio, s.max_ratio_exact, s.max_ratio_arg, std::log2(s.max_rel_bound), s.max_rel_arg, s.undecided,
              typical, static_cast<double>(s.undecided) / static_cast<double>(typical), s.edge_undecided, s.edge_n,
              s.wrong_f32, s.infinite);
  EXPECT_EQ(s.over_bound, 0) << s.name << " first: " << std::hexfloat << s.first_bad_arg;
  EXPECT_EQ(s.wrong_f32, 0) << s.name << " first: " << std::hexfloat << s.first_bad_arg;
  EXPECT_LE(s.max_ratio, 1.0);
  EXPECT_LT(s.max_rel_bound, rel_ceiling) << s.name;
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

TEST(Fp32PairElem, Log) {
  Stats s{"log"};
  Rng r(6);
  for (long i = 0; i < kN; ++i) {
    double v;
    switch (i % 6) {
      case 0: v = r.log_uniform(-99.9, 99.9); break;
      case 1: v = r.near(1.0, -52, -2); break;
      case 2: v = r.uniform(0.5, 2.0); break;
      case 3: v = std::ldexp(r.near(1.0, -52, -1), r.below(199) - 99); break;  // near powers of 2
      case 4: v = r.uniform(0.08, 2.4); break;
      default: v = r.uniform(0.008, 9.0); break;
    }
    // The artificial err: relative 2^-50, and 2^-50 |x - 1| near 1 (ln's
    // relative condition number there is 1/|ln x|).
    const double v48 = to48(v);
    const Input in = make_input(v, static_cast<int>((i / 6) % 3), 0x1p-50 * std::min(v48, std::fabs(v48 - 1.0)));
    const double want = cr_log(in.v);
    // An uncertain input near 1 (PairF64 of a 53-bit double drops up to 5
    // bits, 2^-48 |x|) against |ln x| < 2^-8: hard by nature, counted apart.
    const bool edge = in.x.err > 0.0f && std::fabs(in.v - 1.0) < 0x1p-8;
    check(s, log_pair(in.x), want, std::fabs(want), in.v, static_cast<double>(in.x.err) / in.v * 1.0001, edge);
  }
  report_and_expect(s);
  const PairF64 one = log_pair(PairF64{1.0f, 0.0f, 0.0f});
  EXPECT_EQ(one.hi, 0.0f);
  EXPECT_EQ(one.lo, 0.0f);
  EXPECT_EQ(one.err, 0.0f);
  for (const PairF64 bad : {PairF64{0.0f, 0.0f, 0.0f}, PairF64{-1.0f, 0.0f, 0.0f}, PairF64{1.0f, 0.0f, 0.5f},
                            PairF64{0x1p-101f, 0.0f, 0.0f}, PairF64{0x1p101f, 0.0f, 0.0f}, PairF64{NAN, 0.0f, 0.0f}})
    EXPECT_EQ(log_pair(bad).err, pair_detail::kInfErr);
}

// pow_pair against cr_pow at (x, y), y a double through PairF64(double);
// also to_f32_scaled of the scaled result against (float)R.
struct PowStats {
  Stats s;
  long scaled_undecided = 0, scaled_wrong = 0;
};
void check_pow(PowStats& ps, const Input& in, double y) {
  const ScaledPair got = pow_pair(in.x, PairF64(y));
  const double want = cr_pow(in.v, y);
  if (!(got.m.err < pair_detail::kInfErr)) {
    check(ps.s, got.m, 0.0, 0.0, in.v);  // counted as infinite
    return;
  }
  ASSERT_TRUE(got.m.hi >= 0.5f && got.m.hi < 2.0f) << std::hexfloat << in.v;
  const double scaled = std::ldexp(want, -got.e);  // exact: R is a normal double
  check(ps.s, got.m, scaled, scaled, in.v, static_cast<double>(in.x.err) / in.v * std::fabs(y) * 1.0001 * scaled);
  Fp32PairF64 policy;
  const float f = policy.to_f32_scaled(got.m, got.e);
  if (policy.undecided) {
    ++ps.scaled_undecided;
  } else if (std::bit_cast<std::uint32_t>(f) != std::bit_cast<std::uint32_t>(static_cast<float>(want))) {
    ++ps.scaled_wrong;
  }
}
void report_pow(const PowStats& ps, double rel_ceiling = kRelBoundCeiling) {
  report_and_expect(ps.s, 0, rel_ceiling);
  std::printf("[ %-6s ] to_f32_scaled: undecided %ld, wrong %ld\n", ps.s.name, ps.scaled_undecided, ps.scaled_wrong);
  EXPECT_EQ(ps.scaled_wrong, 0);
  EXPECT_LE(static_cast<double>(ps.scaled_undecided), kUndecidedCeiling * static_cast<double>(ps.s.n));
}

// CIEDE's two powers: x^2.4 for x in (0.08, 2.4) and x^0x1.5555555555555p-2
// for x in (0.008, 9).
TEST(Fp32PairElem, PowCiede) {
  const struct {
    const char* name;
    double y, lo, hi;
  } cases[] = {{"pow2.4", 2.4, 0.08, 2.4}, {"cbrt", 0x1.5555555555555p-2, 0.008, 9.0}};
  Rng r(7);
  for (const auto& c : cases) {
    PowStats ps{Stats{c.name}};
    for (long i = 0; i < kN; ++i) {
      double v;
      switch (i % 4) {
        case 0: v = r.uniform(c.lo, c.hi); break;
        case 1: v = std::exp(r.uniform(std::log(c.lo), std::log(c.hi))); break;
        case 2: v = r.near(1.0, -52, -2); break;
        default: v = r.sign() > 0 ? r.near(c.lo, -40, -8) : r.near(c.hi, -40, -4); break;
      }
      v = std::clamp(v, c.lo, c.hi);
      check_pow(ps, make_input(v, static_cast<int>((i / 4) % 3), 0x1p-50 * v), c.y);
    }
    report_pow(ps);
  }
}

// Any x, y with |y ln x| <= 6 and <= 20: t's absolute error (~u^2 |t|)
// is e^t's relative one, so the bound grows with |t| (measured 2^-43.5 and
// 2^-41.7).
TEST(Fp32PairElem, PowGeneral) {
  Rng r(8);
  for (const double t_max : {6.0, 20.0}) {
    PowStats ps{Stats{t_max == 6.0 ? "pow|t|6" : "pow|t|20"}};
    for (long i = 0; i < kN; ++i) {
      const double v = (i % 2) ? r.log_uniform(-99.9, 99.9) : r.log_uniform(-10, 10);
      const Input in = make_input(v, static_cast<int>((i / 2) % 3), 0x1p-50 * v);
      const double ln = std::fabs(std::log(in.v)) + 0x1p-60;
      double y = r.sign() * std::min(t_max / ln, 1e6) * r.uniform(0.0, 0.999);
      if (i % 5 == 0) y = static_cast<double>(static_cast<float>(y));  // exact float exponents too
      check_pow(ps, in, y);
    }
    report_pow(ps, t_max == 6.0 ? kRelBoundCeiling : 0x1p-41);
  }
  EXPECT_EQ(pow_pair(PairF64{2.0f, 0.0f, 0.0f}, PairF64{29.0f, 0.0f, 0.0f}).m.err, pair_detail::kInfErr);
  EXPECT_EQ(pow_pair(PairF64{0.0f, 0.0f, 0.0f}, PairF64{2.0f, 0.0f, 0.0f}).m.err, pair_detail::kInfErr);
  EXPECT_EQ(pow_pair(PairF64{-2.0f, 0.0f, 0.0f}, PairF64{2.0f, 0.0f, 0.0f}).m.err, pair_detail::kInfErr);
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
  // log_kernel's premise: -log2 r_i (- 1 from kSqrt2Index) and ln 2 as pairs
  // within half an ulp of lo (exact where lo is 0).
  for (int i = 0; i < powf_pair_detail::kLogTableSize; ++i) {
    const powf_pair_detail::LogEntry& e = powf_pair_detail::log_entry(i);
    mpfr_set_d(v.get(), static_cast<double>(e.r), MPFR_RNDN);
    mpfr_log2(v.get(), v.get(), MPFR_RNDN);
    mpfr_neg(v.get(), v.get(), MPFR_RNDN);
    if (i >= powf_pair_detail::kSqrt2Index) mpfr_sub_ui(v.get(), v.get(), 1, MPFR_RNDN);
    const double bound = e.l_lo == 0.0f ? 0.0 : static_cast<double>(half_ulp(e.l_lo));
    EXPECT_LE(abs_residual(v.get(), {e.l_hi, e.l_lo}), bound) << i;
    EXPECT_EQ(e.l_hi == 0.0f, i == 0 || i == powf_pair_detail::kLogTableSize - 1) << i;
  }
  mpfr_const_log2(v.get(), MPFR_RNDN);
  EXPECT_LE(abs_residual(v.get(), {powf_pair_detail::kLn2Hi, powf_pair_detail::kLn2Lo}),
            static_cast<double>(half_ulp(powf_pair_detail::kLn2Lo)));
  EXPECT_EQ(half_ulp(powf_pair_detail::kLn2Lo), 0x1p-53f);
}

}  // namespace
}  // namespace exactvmaf::rmath
