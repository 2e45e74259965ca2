// Elementary functions on fp32 pairs (numeric/fp32pair.hpp) for R's double
// islands that call sqrt, sin, cos, exp, atan2, log and pow (CIEDE2000 on
// devices without fp64). Each returns a pair and a rigorous bound err with
// |(hi + lo) - R| <= err, R being the double upstream computes: the
// correctly rounded double of the function of R's double argument
// (rmath::cr_sin, cr_cos, cr_exp, cr_atan2, cr_log, cr_pow; IEEE sqrt). fp32 and integer
// operations only. Outside a function's domain, err = pair_detail::kInfErr.
//
//   PairF64 sqrt_pair(PairF64 x)       x.hi > 0, x.err < x.hi / 2; exact +-0
//   PairF64 sin_pair(PairF64 x)        |x.hi| <= 2, bound relative to |sin|
//   PairF64 cos_pair(PairF64 x)        |x.hi| < 64, absolute bound
//   ScaledPair exp_pair(PairF64 x)     x.hi in [-700, 1], x.err <= 2^-20:
//                                      m 2^e, m.hi in [0.5, 2), m.err relative
//   PairF64 atan2_pair(float y, float x)  finite nonzero floats, relative bound
//   PairF64 log_pair(PairF64 x)        x.hi in [2^-100, 2^100], x.err < x.hi / 2:
//                                      bound relative to |ln| (cr_log)
//   ScaledPair pow_pair(PairF64 x, PairF64 y)  as log_pair, |y ln x| <= 20:
//                                      m 2^e as exp_pair (cr_pow)
//
// Common to all bounds (u = 2^-24). The argument is first renormalised
// (two_sum, exact). The polynomial kernels run on a copy of the argument with
// err 0: their err is then a bound on the distance to the function of the
// pair's own value X, and the argument's err is added at the end through the
// function's Lipschitz constant (sin, cos: 1; atan: 1; exp: e^X (e^err - 1);
// sqrt: 1/(sqrt X + sqrt X_R)); R's final rounding adds 2^-53 |f|.
//
// The kernels use four pair operations whose err is computed at run time
// (each a rigorous bound on the distance to the exact real result of the
// same operation on the exact values the operands stand for):
//  - add: Joldes, Muller, Popescu's Algorithm 6 with its two roundings made
//    error-free (pair_detail::add_pairs): a + b = z + dropped exactly, so
//    err = a.err + b.err + |dropped|.
//  - mul: two_prod(ah, bh) exact; t1 = ah bl, t2 = al bh, cross = t1 + t2,
//    lo = p.lo + cross each rounded (<= u |result| each); al bl dropped;
//    fast_two_sum exact (|lo| <= 4u |p.hi| for normalised operands). err =
//    u (|t1| + |t2| + |cross| + |lo|) + |al bl| + |a| b.err + |b'| a.err.
//  - mul_f: a float times a pair: two exact products summed by add.
//  - div: q1 = a.hi / b.hi, the residual a - q1 b with a.hi - q1 b.hi exact
//    (a float: Boldo, Daumas) and three roundings, q2 = residual / b.hi; err covers
//    those roundings, the division by b.hi instead of b, q2's rounding and
//    the propagation (|a/b| b.err + a.err) / (|b| - b.err).
// Every float rounding below 2^-126 (subnormal results, two_prod error
// terms that underflow) is off by at most 2^-149 absolute; each mul and div
// adds kTiny = 2^-140 for them, and bound_finish (relative 2^-18 for the
// roundings of the bound arithmetic itself, at most ~10 per operation, and
// an absolute 2^-145) closes each operation's err. These absolute terms are
// below 2^-110 relative to every result whose bound is relative (the
// kernels' relative paths have results >= 2^-27; ln of a double near 1:
// >= 2^-54).
// Constant pairs (Taylor coefficients, atan(j/16), pi/2, pi) are (RN(v),
// RN(v - RN(v))), checked against MPFR by the test to |hi + lo - v| <=
// 2^-49 |v| (pi/2: 2^-49.05, pi: 2^-48.05 absolute); 2^(j/64) is
// powf_pair's table (2^-48 relative, checked by powf_pair_tables_check).
// On the device the functions and their kernels are out of line
// (EXACTVMAF_HD_OUTLINE): one copy each per translation unit. Inlined at
// every call, ciede's fp64-free kernel was ~35 000 PTX instructions and ran
// at 25 4K frames/s on an H200, its code far beyond the instruction caches.
#pragma once
#include <cstdint>

#include "numeric/cr_powf_pair.hpp"  // exp2_entry: 2^(j/64) as pairs; nearest_int
#include "numeric/fp32pair.hpp"
#include "numeric/hd.hpp"
#include "numeric/sf64.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

struct ScaledPair {
  PairF64 m;  // m.hi in [0.5, 2); m.err relative to m
  int e;      // the value is m 2^e
};

namespace pair_elem_detail {

using pair_detail::abs_f32;
using pair_detail::bound_finish;
using pair_detail::bound_mul;
using pair_detail::fast_two_sum;
using pair_detail::kInfErr;
using pair_detail::Two;
using pair_detail::two_prod;
using pair_detail::two_sum;

inline constexpr float kU = 0x1p-24f;
inline constexpr float kTiny = 0x1p-140f;
// A constant pair's err: |hi + lo - v| <= 2^-49 |v| <= 2^-49 (1 + 2^-23) |hi|.
inline constexpr float kCoefRel = 0x1.00001p-49f;

// atan(j / 16), j = 0..16, as (RN(v), RN(v - RN(v))); MPFR-checked by the test.
#define EXACTVMAF_PAIR_ELEM_ATAN_DATA                                                                        \
  {                                                                                                          \
    {0.0f, 0.0f}, {0x1.ff55bcp-5f, -0x1.1a6042p-30f}, {0x1.fd5baap-4f, -0x1.54f424p-30f},                   \
        {0x1.7b97b4p-3f, 0x1.79cb6p-28f}, {0x1.f5b76p-3f, -0x1.b4dfc8p-29f},                                 \
        {0x1.362774p-2f, -0x1.1f0286p-27f}, {0x1.6f6194p-2f, 0x1.e4defp-30f},                               \
        {0x1.a64eecp-2f, 0x1.e611fep-29f}, {0x1.dac67p-2f, 0x1.586ed4p-28f},                                 \
        {0x1.0657eap-1f, -0x1.6499e6p-26f}, {0x1.1e00bap-1f, 0x1.7bdfd6p-26f},                              \
        {0x1.345f02p-1f, -0x1.98e422p-28f}, {0x1.4978fap-1f, 0x1.934f7p-28f},                               \
        {0x1.5d5898p-1f, 0x1.c5a6c6p-27f}, {0x1.700a7cp-1f, 0x1.5e118cp-27f},                               \
        {0x1.819d0cp-1f, -0x1.1d4eb6p-26f}, {0x1.921fb6p-1f, -0x1.777a5cp-26f},                             \
  }

struct AtanEntry {
  float hi, lo;
};
inline constexpr AtanEntry kAtanTableHost[17] = EXACTVMAF_PAIR_ELEM_ATAN_DATA;
#if defined(__CUDACC__)
static __device__ const AtanEntry kAtanTableDevice[17] = EXACTVMAF_PAIR_ELEM_ATAN_DATA;
#endif

EXACTVMAF_HD_INLINE const AtanEntry& atan_entry(int j) {
#if EXACTVMAF_DEVICE_CODE
  return kAtanTableDevice[j];
#else
  return kAtanTableHost[j];
#endif
}

// Constants (generator: MPFR/mpmath, checked by the test).
// pi/2 = kPio2A + kPio2B + kPio2C + kPio2D + d, |d| <= 2^-88.1; A and B have
// 18 and 16 significant bits, so k A and k B are exact for |k| <= 41 (6 bits).
inline constexpr float kPio2A = 0x1.921f8p+0f, kPio2B = 0x1.aa22p-19f, kPio2C = 0x1.68c234p-39f,
                       kPio2D = 0x1.898cc6p-64f;
// pi/2 - kPio2A as a normalised pair (add_pairs needs |lo| <= ulp(hi)/2), off
// by 2^-68.7.
inline constexpr float kPio2RestHi = 0x1.aa2216p-19f, kPio2RestLo = 0x1.184698p-44f, kPio2RestErr = 0x1p-68f;
// pi/2 and pi as plain pairs, |hi + lo - v| <= 2^-49.05 and 2^-48.05.
inline constexpr float kPio2Hi = 0x1.921fb6p+0f, kPio2Lo = -0x1.777a5cp-25f, kPio2PairErr = 0x1p-49f;
inline constexpr float kPiHi = 0x1.921fb6p+1f, kPiLo = -0x1.777a5cp-24f, kPiPairErr = 0x1p-48f;
inline constexpr float kTwoOverPi = 0x1.45f306p-1f;
// ln2/64 = kLn2o64A + B + C + D + d, |d| <= 2^-90.3; A has 8 bits (j A exact
// for |j| < 2^16).
inline constexpr float kLn2o64A = 0x1.62p-7f, kLn2o64B = 0x1.c85fep-16f, kLn2o64C = -0x1.718432p-41f,
                       kLn2o64D = -0x1.4361c4p-66f;
inline constexpr float k64OverLn2 = 0x1.715476p+6f;
// 1/n! as pairs (n <= 10) and floats (RN), 1/3, 1/5 as pairs, 1/7, 1/9 as floats.
inline constexpr float kInvFact3Hi = 0x1.555556p-3f, kInvFact3Lo = -0x1.555556p-28f;
inline constexpr float kInvFact4Hi = 0x1.555556p-5f, kInvFact4Lo = -0x1.555556p-30f;
inline constexpr float kInvFact5Hi = 0x1.111112p-7f, kInvFact5Lo = -0x1.dddddep-32f;
inline constexpr float kInvFact6Hi = 0x1.6c16c2p-10f, kInvFact6Lo = -0x1.27d27ep-35f;
inline constexpr float kInvFact7Hi = 0x1.a01a02p-13f, kInvFact7Lo = -0x1.7f97fap-39f;
inline constexpr float kInvFact8Hi = 0x1.a01a02p-16f, kInvFact8Lo = -0x1.7f97fap-42f;
inline constexpr float kInvFact9Hi = 0x1.71de3ap-19f, kInvFact9Lo = 0x1.55b1ccp-45f;
inline constexpr float kInvFact10Hi = 0x1.27e4fcp-22f, kInvFact10Lo = -0x1.10ec14p-47f;
inline constexpr float kInvFact11 = 0x1.ae6456p-26f, kInvFact12 = 0x1.1eed8ep-29f, kInvFact13 = 0x1.612462p-33f;
inline constexpr float kInvFact14 = 0x1.93974ap-37f, kInvFact15 = 0x1.ae7f3ep-41f, kInvFact16 = 0x1.ae7f3ep-45f;
inline constexpr float kInv3Hi = 0x1.555556p-2f, kInv3Lo = -0x1.555556p-27f;
inline constexpr float kInv5Hi = 0x1.99999ap-3f, kInv5Lo = -0x1.99999ap-29f;
inline constexpr float kInv7 = 0x1.24924ap-3f, kInv9 = 0x1.c71c72p-4f;

EXACTVMAF_HD_INLINE PairF64 coef(float hi, float lo) { return {hi, lo, abs_f32(hi) * kCoefRel}; }
EXACTVMAF_HD_INLINE PairF64 neg(PairF64 a) { return {-a.hi, -a.lo, a.err}; }
EXACTVMAF_HD_INLINE PairF64 exact_copy(PairF64 a) { return {a.hi, a.lo, 0.0f}; }
EXACTVMAF_HD_INLINE PairF64 normalise(PairF64 a) {
  const Two s = two_sum(a.hi, a.lo);
  return {s.hi, s.lo, a.err};
}

EXACTVMAF_HD_INLINE PairF64 add(PairF64 a, PairF64 b) {
  float dropped;
  const Two z = pair_detail::add_pairs(a.hi, a.lo, b.hi, b.lo, &dropped);
  return {z.hi, z.lo, bound_finish(a.err + b.err + dropped)};
}

EXACTVMAF_HD_INLINE PairF64 mul(PairF64 a, PairF64 b) {
  const Two p = two_prod(a.hi, b.hi);
  const float t1 = a.hi * b.lo, t2 = a.lo * b.hi;
  const float cross = t1 + t2;
  const float lo = p.lo + cross;
  const Two z = fast_two_sum(p.hi, lo);
  const float rounding = kU * (abs_f32(t1) + abs_f32(t2) + abs_f32(cross) + abs_f32(lo)) +
                         bound_mul(abs_f32(a.lo), abs_f32(b.lo)) + kTiny;
  const float prop = bound_mul(abs_f32(a.hi) + abs_f32(a.lo), b.err) +
                     bound_mul(abs_f32(b.hi) + abs_f32(b.lo) + b.err, a.err);
  return {z.hi, z.lo, bound_finish(rounding + prop)};
}

EXACTVMAF_HD_INLINE PairF64 mul_f(float a, PairF64 b) {
  const Two p = two_prod(a, b.hi), q = two_prod(a, b.lo);
  float dropped;
  const Two z = pair_detail::add_pairs(p.hi, p.lo, q.hi, q.lo, &dropped);
  return {z.hi, z.lo, bound_finish(dropped + kTiny + bound_mul(abs_f32(a), b.err))};
}

// b.hi > 0 is required (the callers' denominators are in [1, 2]).
EXACTVMAF_HD_INLINE PairF64 div(PairF64 a, PairF64 b) {
  const float q1 = a.hi / b.hi;
  const Two p = two_prod(q1, b.hi);
  // a.hi - q1 b.hi is a float (the remainder of a rounded-to-nearest
  // quotient) and a.hi - p.hi is exact (Sterbenz): r1 is exact.
  const float r1 = (a.hi - p.hi) - p.lo;
  const float r2 = r1 + a.lo;
  const float m = q1 * b.lo;
  const float r = r2 - m;
  const float q2 = r / b.hi;
  const Two z = fast_two_sum(q1, q2);
  const float inv = 1.0f / b.hi;  // only in the bound (slack covers its rounding)
  const float rounding = kU * (abs_f32(r2) + abs_f32(m) + abs_f32(r)) * inv +
                         abs_f32(q2) * (abs_f32(b.lo) * inv + kU) + kTiny;
  const float den = b.hi * (1.0f - 0x1p-22f) - b.err;
  if (!(den > 0.0f)) return {z.hi, z.lo, kInfErr};
  const float prop = pair_detail::bound_div(a.err + bound_mul(abs_f32(q1) + abs_f32(q2), b.err), den);
  return {z.hi, z.lo, bound_finish(rounding + prop)};
}

// sin r for |r| <= 0.79 (r's err ignored; the result's err bounds the
// distance to sin(r.hi + r.lo)).
// sin r = r + r T, T = z V1, V_k = (-1)^k / (2k+1)! + z V_{k+1}, z = r^2
// (<= 0.6241). V4..V1, T, r T and the sum on pairs; V5 = -1/11! + z/13! -
// z^2/15! in float from z.hi, off the whole series' V5 by at most kSinTailErr:
// c11's rounding 2^-50 + the final sum's 2^-50 + the inner roundings and
// c13's, z.lo's effect (<= 2^-57 each) + truncation z^3/17! (<= 2^-50.4):
// 2^-48.5. Its contribution z^5 kSinTailErr <= 2^-51.9 |T| scale, and the
// term magnitudes z^k / (2k+1)! (0.10, 3e-3, 5e-5, 4e-7, 2e-9 at k = 1..5)
// are why V1..V4 need pairs and V5 does not.
inline constexpr float kSinTailErr = 0x1p-48f;
EXACTVMAF_HD_OUTLINE PairF64 sin_kernel(PairF64 r_in) {
  const PairF64 r = exact_copy(r_in);
  const PairF64 z = mul(r, r);
  const float zh = z.hi;
  const float v5 = -kInvFact11 + zh * (kInvFact13 - zh * kInvFact15);
  PairF64 v = add(coef(kInvFact9Hi, kInvFact9Lo), mul(z, PairF64{v5, 0.0f, kSinTailErr}));
  v = add(coef(-kInvFact7Hi, -kInvFact7Lo), mul(z, v));
  v = add(coef(kInvFact5Hi, kInvFact5Lo), mul(z, v));
  v = add(coef(-kInvFact3Hi, -kInvFact3Lo), mul(z, v));
  const PairF64 t = mul(z, v);
  return add(r, mul(r, t));
}

// cos r for |r| <= 0.79, as sin_kernel: cos r = 1 + z W1, W_k = (-1)^k /
// (2k)! + z W_{k+1}. W5..W1, z W1 and the sum on pairs; W6 = 1/12! - z/14! +
// z^2/16! in float, off the series' W6 by at most kCosTailErr: c12's and the
// final sum's roundings 2^-53 each, truncation z^3/18! <= 2^-54.5, the rest
// below 2^-60: 2^-51.6. Term magnitudes z^k / (2k)!: 0.31, 0.016, 3e-4,
// 4e-6, 2.5e-8, 1.2e-10 at k = 1..6.
inline constexpr float kCosTailErr = 0x1p-51f;
EXACTVMAF_HD_OUTLINE PairF64 cos_kernel(PairF64 r_in) {
  const PairF64 r = exact_copy(r_in);
  const PairF64 z = mul(r, r);
  const float zh = z.hi;
  const float w6 = kInvFact12 - zh * (kInvFact14 - zh * kInvFact16);
  PairF64 w = add(coef(-kInvFact10Hi, -kInvFact10Lo), mul(z, PairF64{w6, 0.0f, kCosTailErr}));
  w = add(coef(kInvFact8Hi, kInvFact8Lo), mul(z, w));
  w = add(coef(-kInvFact6Hi, -kInvFact6Lo), mul(z, w));
  w = add(coef(kInvFact4Hi, kInvFact4Lo), mul(z, w));
  w = add(PairF64{-0.5f, 0.0f, 0.0f}, mul(z, w));
  return add(PairF64{1.0f, 0.0f, 0.0f}, mul(z, w));
}

// The final bound: kernel err + propagated err + R's rounding 2^-53 |f|
// (|f| <= |hi| (1 + 2^-23) + err; the 2^-18 slack covers the factor).
// A plain product: below 2^-126 its rounding (2^-150) is in bound_finish's
// 2^-145, where bound_mul's floor of 2^-140 would spoil results near 2^-97.
EXACTVMAF_HD_INLINE float final_err(PairF64 v, float propagated) {
  return bound_finish(v.err + propagated + 0x1p-53f * (abs_f32(v.hi) + propagated));
}

// float v > 0 finite = m 2^e with m in [1, 2) (subnormals normalised).
EXACTVMAF_HD_INLINE float split_exponent(float v, int* e) {
  std::uint32_t b = sf64_detail::float_bits(v) & 0x7fffffffu;
  int ex;
  if (b < 0x00800000u) {
    const int shift = powf_pair_detail::clz32(b) - 8;
    b <<= shift;
    ex = -126 - shift;
  } else {
    ex = static_cast<int>(b >> 23) - 127;
  }
  *e = ex;
  return sf64_detail::float_of_bits(0x3f800000u | (b & 0x007fffffu));
}

}  // namespace pair_elem_detail

// sqrt. y0 = RN(sqrt(hi)); hi - y0^2 is a float (Boldo, Daumas; exact:
// two_prod, Sterbenz, and the exactly representable remainder), r = RN(hi -
// y0^2 + lo), c = RN(r / (2 y0)), result y0 + c (fast_two_sum exact). With X
// = hi + lo, sqrt X = y0 + d, X - y0^2 = 2 y0 d + d^2:
//   |y0 + c - sqrt X| <= (u |r| + 2^-150) / (2 y0) (r's rounding)
//                        + u |c| (c's rounding) + d^2 / (2 y0) (Newton),
// |d| <= |c| + 2^-45 y0 (the first two terms are below 4.3 u^2 y0); the
// factors (1 + 2u) of 2 y0 vs the exact denominators are in the slack. Run
// time values: typically 2u^2 y0, at most 4.3 u^2 y0 = 2^-45.9 y0.
// Propagation: |sqrt X - sqrt X_R| <= err / (sqrt X + sqrt(X - err)) <= err /
// (1.7 y0) (err < X/2). R's rounding: 2^-53 sqrt(X_R) <= 1.25 2^-53 y0.
EXACTVMAF_HD_OUTLINE PairF64 sqrt_pair(PairF64 x_in) {
  using namespace pair_elem_detail;
  if (x_in.hi == 0.0f && x_in.lo == 0.0f && x_in.err == 0.0f) return {x_in.hi, 0.0f, 0.0f};  // sqrt(+-0) = +-0
  const PairF64 x = normalise(x_in);
  if (!(x.hi > 0.0f) || !(x.err < 0.5f * x.hi) || !pair_detail::in_range(x.hi)) return {x.hi, 0.0f, kInfErr};
  const float y0 = sf64_detail::f32_sqrt(x.hi);
  const Two sq = two_prod(y0, y0);
  const float r1 = (x.hi - sq.hi) - sq.lo;  // exact
  const float r = r1 + x.lo;
  const float two_y0 = 2.0f * y0;
  const float c = r / two_y0;
  const Two z = fast_two_sum(y0, c);
  const float d = abs_f32(c) + 0x1p-45f * y0;
  // r below 2^-126 is rounded by at most 2^-150: 2^-151 / y0, computed
  // without underflowing to 0.
  const float r_subnormal = bound_mul(0x1p-75f / y0, 0x1p-76f);
  const float rounding = kU * (abs_f32(r) / two_y0) + r_subnormal + kU * abs_f32(c) + d * (d / two_y0);
  const float prop = pair_detail::bound_div(x.err, 1.7f * y0);
  return {z.hi, z.lo, bound_finish(rounding + prop + 0x1.4p-53f * y0)};
}

// sin, |x.hi| <= 2. |x| < 2^-26: sin X = X with |sin X - X| <= |X|^3/6 <=
// 2^-54.58 |X|, plus R's rounding 2^-53: 0x1.6p-53 |hi| covers both. |x| <=
// 0.785: sin_kernel(|x|). Above: sin X = cos(pi/2 - X), r = (A - hi) [exact,
// A is a multiple of 2^-17, hi of 2^-24, |A - hi| < 1] - lo + (pi/2 - A) as
// a pair (2^-68.7) with the sums on pairs (runtime err), r in [-0.43, 0.786]; cos_kernel(r) (absolute
// bound, cos r >= 0.7 there so relative too).
// Bound: kernel err (relative: every kernel term scales with |x|; at most
// ~3u^2 |sin|, typically ~u^2) + x.err (+ r's err) + R's 2^-53 |sin|. Note the
// bound is relative to |sin x| only as far as x.err is relative to |x|.
EXACTVMAF_HD_OUTLINE PairF64 sin_pair(PairF64 x_in) {
  using namespace pair_elem_detail;
  if (!(abs_f32(x_in.hi) <= 2.0f)) return {x_in.hi, 0.0f, kInfErr};
  // sin(+-0) = +-0; a zero with a bound: |sin x_R| <= |x_R| (the slack covers R's rounding)
  if (x_in.hi == 0.0f && x_in.lo == 0.0f) return {x_in.hi, 0.0f, bound_finish(x_in.err)};
  const PairF64 x = normalise(x_in);
  const float ah = abs_f32(x.hi);
  if (ah < 0x1p-26f) return {x.hi, x.lo, bound_finish(x.err + 0x1.6p-53f * ah)};  // as final_err
  const bool negative = x.hi < 0.0f;
  const PairF64 a = negative ? neg(x) : x;
  PairF64 s;
  float propagated = x.err;
  if (a.hi <= 0.785f) {
    s = sin_kernel(a);
  } else {
    const Two n = two_sum(kPio2A - a.hi, -a.lo);
    const PairF64 r = add(PairF64{n.hi, n.lo, 0.0f}, PairF64{kPio2RestHi, kPio2RestLo, kPio2RestErr});
    s = cos_kernel(r);
    propagated += r.err;
  }
  const float err = final_err(s, propagated);
  return negative ? PairF64{-s.hi, -s.lo, err} : PairF64{s.hi, s.lo, err};
}

// cos, |x.hi| < 64. k = nearest(hi 2/pi) (|k| <= 41), r = X - k pi/2 =
// (hi - k A) [exact: a multiple of 2^-24 below 1] + lo - k B [exact] - (k C
// [two_prod, exact] + k D [with the sum to (k C).lo, two roundings <= 2^-80.5]),
// summed on pairs (runtime err), plus |k| |d| <= 2^-82.7: 2^-78 in all, so
// that r keeps a relative bound down to |r| ~ 2^-30 (cos near its zeros);
// |r| <= pi/4 + 2^-16 < 0.79. cos X = cos r, -sin r, -cos r, sin r for k mod
// 4 = 0..3, by the kernels. Bound: kernel err (absolute, at most ~6u^2,
// typically ~u^2) + r's err + x.err + R's 2^-53 |cos|.
EXACTVMAF_HD_OUTLINE PairF64 cos_pair(PairF64 x_in) {
  using namespace pair_elem_detail;
  if (!(abs_f32(x_in.hi) < 64.0f)) return {1.0f, 0.0f, kInfErr};
  const PairF64 x = normalise(x_in);
  const float kf = powf_pair_detail::nearest_int(x.hi * kTwoOverPi);
  const Two n = two_sum(x.hi - kf * kPio2A, x.lo);
  Two kc = two_prod(kf, kPio2C);
  kc = fast_two_sum(kc.hi, kc.lo + kf * kPio2D);  // two roundings <= 2^-80
  PairF64 r = add(PairF64{n.hi, n.lo, 0.0f}, PairF64{-(kf * kPio2B), 0.0f, 0.0f});
  r = add(r, PairF64{-kc.hi, -kc.lo, kf == 0.0f ? 0.0f : 0x1p-78f});
  const int quadrant = static_cast<int>(kf) & 3;
  PairF64 c = (quadrant & 1) ? sin_kernel(r) : cos_kernel(r);
  if (quadrant == 1 || quadrant == 2) c = neg(c);
  return {c.hi, c.lo, final_err(c, x.err + r.err)};
}

// exp, x.hi in [-700, 1], x.err <= 2^-20. j = nearest(hi 64/ln 2) (|j| <=
// 64638), r = X - j ln2/64 = (hi - j A) [j A exact (8 bits), the difference
// exact by Sterbenz: A < ln2/64 so hi/(jA) in [0.5, 1.6]] + lo - j B - (j C
// + j D) [two_prods exact; j D and its sum with (j C).lo rounded, <= 2^-72]
// on pairs, plus |j d| <= 2^-74: r off by its runtime err + 2^-70; |r| <=
// 0.0056. j = 64 e + i, i in [-32, 31]; exp X = 2^e 2^(i/64) e^r.
// e^r - 1 = r + r^2 H, H = 1/2 + r G, G = 1/6 + r F, F = 1/24 + r/120 in
// float from r.hi: off the series' F by truncation r^2/720 <= 2^-24.4 plus
// roundings <= 2^-28.5: kExpTailErr = 2^-24 (contributes r^4 2^-24 <=
// 2^-54). G, H, r^2, r^2 H, the sum, T (1 + E) on pairs, T = 2^(i/64) with
// err 2^-48 |T|. m in [0.70, 1.43].
// Bound: m.err (at most ~u^2 table + 3u^2 the last sum, typically ~2u^2)
// + propagation |m| (e^x.err - 1) <= |m| x.err (1 + 2^-19) + R's 2^-53 |m|.
// The method is pair_elem_detail::exp_core, shared with pow_pair: it holds
// for x.hi in [-700, 20] too (j in [1, 1847] keeps hi/(jA) in [0.5, 1.51]
// and |r| <= 0.00542; x.err <= 2^-20 is the caller's check).
namespace pair_elem_detail {
EXACTVMAF_HD_OUTLINE ScaledPair exp_core(PairF64 x_in) {
  const PairF64 x = normalise(x_in);
  const float jf = powf_pair_detail::nearest_int(x.hi * k64OverLn2);
  const Two n = two_sum(x.hi - jf * kLn2o64A, x.lo);
  const Two pb = two_prod(jf, kLn2o64B);
  Two pc = two_prod(jf, kLn2o64C);
  pc = fast_two_sum(pc.hi, pc.lo + jf * kLn2o64D);
  PairF64 r = add(PairF64{n.hi, n.lo, 0.0f}, PairF64{-pb.hi, -pb.lo, 0.0f});
  r = add(r, PairF64{-pc.hi, -pc.lo, 0x1p-70f});
  const float reduction_err = r.err;
  r.err = 0.0f;  // the kernel below on r's value; reduction_err propagates like x.err
  constexpr float kExpTailErr = 0x1p-24f;
  const float f = kInvFact4Hi + r.hi * kInvFact5Hi;
  const PairF64 g = add(coef(kInvFact3Hi, kInvFact3Lo), mul(r, PairF64{f, 0.0f, kExpTailErr}));
  const PairF64 h = add(PairF64{0.5f, 0.0f, 0.0f}, mul(r, g));
  const PairF64 e = add(r, mul(mul(r, r), h));
  const int j = static_cast<int>(jf);
  const int i = ((j + 32) & 63) - 32;
  const powf_pair_detail::PairEntry& te = powf_pair_detail::exp2_entry(i);
  const PairF64 t{te.hi, te.lo, te.lo == 0.0f ? 0.0f : bound_mul(0x1.00001p-48f, te.hi)};
  const PairF64 m = add(t, mul(t, e));
  const float propagated = bound_mul(abs_f32(m.hi) * 1.0001f, x.err + reduction_err);
  return {{m.hi, m.lo, final_err(m, propagated)}, (j - i) / 64};
}
}  // namespace pair_elem_detail

EXACTVMAF_HD_INLINE ScaledPair exp_pair(PairF64 x_in) {
  if (!(x_in.hi >= -700.0f && x_in.hi <= 1.0f) || !(x_in.err <= 0x1p-20f))
    return {{1.0f, 0.0f, pair_detail::kInfErr}, 0};
  return pair_elem_detail::exp_core(x_in);
}

// atan2 of exact floats. q = min(|y|,|x|) / max(|y|,|x|) from the mantissas
// (in [1, 2)) and the exponent difference dexp: q' = q1 + q2 (the remainder
// exact, q2 rounded: err u |q2|), q = q' 2^dexp (lo's scaling may round below
// 2^-126: 2^-149). dexp < -96: q < 2^-95; atan2 is then R's tiny q in the
// first octant (no pair holds it: kInfErr) and otherwise +-pi/2 -+ q, pi -
// q with q as 0 with err 2^-94. q.hi < 2^-26: atan q = q within q^3/3 <=
// 2^-53.58 q. Otherwise j = nearest(16 q) in [0, 16], t = (q - j/16) / (1 +
// q j/16) on pairs (t = q for j = 0), |t| <= 2^-5 (1 + 2^-19); atan t = t + t
// s W, s = t^2, W = -1/3 + s V, V = 1/5 + f, f = s.hi (-1/7 + s.hi/9) in
// float: off the series' V - 1/5 by truncation s^3/11 <= 2^-33.5, roundings
// and 1/7's 2^-27 s, s.lo: 2^-33.1 in all, kAtanTailErr = 2^-32
// (contributes t s^2 2^-32 <= 2^-52 |t|). atan q = atan(j/16) + atan t.
// Octants: pi/2 -+ a (|y| > |x|), pi - a (x < 0), sign of y; the constant
// pairs' errors 2^-49, 2^-48 against results >= pi/4.
// Bound: q's err (atan is 1-Lipschitz, and atan q >= (pi/4) q on [0, 1]) +
// kernel err (typically ~2u^2, at most ~5u^2) + table 2^-49 + R's 2^-53.
EXACTVMAF_HD_OUTLINE PairF64 atan2_pair(float y, float x) {
  using namespace pair_elem_detail;
  const float ay = abs_f32(y), ax = abs_f32(x);
  constexpr float kMaxFloat = 0x1.fffffep127f;
  if (!(ay > 0.0f && ay <= kMaxFloat && ax > 0.0f && ax <= kMaxFloat)) return {0.0f, 0.0f, kInfErr};
  const bool swap = ay > ax;
  int en, ed;
  const float mn = split_exponent(swap ? ax : ay, &en);
  const float md = split_exponent(swap ? ay : ax, &ed);
  const int dexp = en - ed;
  PairF64 a;  // atan(q), q in [0, 1]
  if (dexp < -96) {
    a = PairF64{0.0f, 0.0f, 0x1p-94f};
  } else {
    const float q1 = mn / md;
    const Two p = two_prod(q1, md);
    const float q2 = ((mn - p.hi) - p.lo) / md;
    const Two qs = fast_two_sum(q1, q2);
    const float scale = pair_detail::pow2_f32(dexp);
    const PairF64 q{qs.hi * scale, qs.lo * scale,
                    bound_finish(kU * abs_f32(q2) * scale + 0x1p-149f)};
    if (q.hi < 0x1p-26f) {
      a = PairF64{q.hi, q.lo, bound_finish(q.err + 0x1.6p-54f * q.hi)};
    } else {
      const float jf = powf_pair_detail::nearest_int(16.0f * q.hi);
      const float c = jf * 0.0625f;
      PairF64 t = exact_copy(q);
      if (jf != 0.0f) {
        const PairF64 num = add(t, PairF64{-c, 0.0f, 0.0f});
        const PairF64 den = add(PairF64{1.0f, 0.0f, 0.0f}, mul_f(c, t));
        t = div(num, den);
      }
      const PairF64 s = mul(t, t);
      const float sh = s.hi;
      constexpr float kAtanTailErr = 0x1p-32f;
      const float f = sh * (-kInv7 + sh * kInv9);
      const PairF64 v = add(coef(kInv5Hi, kInv5Lo), PairF64{f, 0.0f, kAtanTailErr});
      const PairF64 w = add(coef(-kInv3Hi, -kInv3Lo), mul(s, v));
      PairF64 at = add(t, mul(t, mul(s, w)));
      if (jf != 0.0f) {
        const AtanEntry& te = atan_entry(static_cast<int>(jf));
        at = add(coef(te.hi, te.lo), at);
      }
      at.err = bound_finish(at.err + q.err);
      a = at;
    }
  }
  PairF64 res;
  if (!swap && !(x < 0.0f)) {
    if (dexp < -96) return {0.0f, 0.0f, kInfErr};
    res = a;
  } else if (swap) {
    const PairF64 pio2{kPio2Hi, kPio2Lo, kPio2PairErr};
    res = add(pio2, x < 0.0f ? a : neg(a));
  } else {
    res = add(PairF64{kPiHi, kPiLo, kPiPairErr}, neg(a));
  }
  const float err = final_err(res, 0.0f);
  return y < 0.0f ? PairF64{-res.hi, -res.lo, err} : PairF64{res.hi, res.lo, err};
}

// R's IEEE square root of a pair: an exact zero is itself; an exact float
// below the pairs' range (a subnormal ratio) is scaled by 2^128 first and
// its root by 2^-64 (R's root scales exactly: it is a normal double).
EXACTVMAF_HD_INLINE PairF64 sqrt_of(PairF64 x) {
  if (x.hi == 0.0f && x.lo == 0.0f && x.err == 0.0f) return x;
  if (x.lo == 0.0f && x.err == 0.0f && x.hi > 0.0f && x.hi < 0x1p-100f)
    return scale_pair(sqrt_pair(PairF64(pair_detail::scale_f32(x.hi, 128))), -64);
  return sqrt_pair(x);
}

namespace pair_elem_detail {

// Half an ulp of a normal float v != 0 with |v| >= 2^-102: the largest
// distance of a pair's lo = RN(v - hi) to the real v - hi.
EXACTVMAF_HD_INLINE float half_ulp(float v) {
  return sf64_detail::float_of_bits((sf64_detail::float_bits(v) & 0x7f800000u) - (24u << 23));
}

// a b with the three cross products exact (two_prod) and the sums' dropped
// parts measured at run time: err is about the result pair's own rounding
// (~u^2 |ab| / 4 typically) where mul's bound is up to ~5u^2 |ab|. For the
// products whose absolute error matters relative to something smaller
// (L_i ln 2 in ln, t = y ln x in pow: it becomes e^t's relative error).
// The two_prod error terms may underflow below 2^-126 (kTiny); a.lo b.lo
// is rounded once (u |s|) and so is its sum with c.lo (two_sum, not
// fast_two_sum: q and r may cancel below |s|).
EXACTVMAF_HD_INLINE PairF64 mul_accurate(PairF64 a, PairF64 b) {
  const Two p = two_prod(a.hi, b.hi), q = two_prod(a.hi, b.lo), r = two_prod(a.lo, b.hi);
  const float s = a.lo * b.lo;
  float dropped_cross, dropped_sum;
  const Two c = pair_detail::add_pairs(q.hi, q.lo, r.hi, r.lo, &dropped_cross);
  const float c_lo = c.lo + s;
  const Two cs = two_sum(c.hi, c_lo);
  const Two z = pair_detail::add_pairs(p.hi, p.lo, cs.hi, cs.lo, &dropped_sum);
  const float rounding = dropped_cross + dropped_sum + kU * (abs_f32(c_lo) + abs_f32(s)) + kTiny;
  const float prop = bound_mul(abs_f32(a.hi) + abs_f32(a.lo), b.err) +
                     bound_mul(abs_f32(b.hi) + abs_f32(b.lo) + b.err, a.err);
  return {z.hi, z.lo, bound_finish(rounding + prop)};
}

// ln(1 + z) for |z| <= 2^-7 + 2^-24 (z's err ignored, as the other kernels).
// ln(1 + z) = z + z^2 P2, P2 = -1/2 + z P3, P3 = 1/3 + z P4, P4 = -1/4 + z Q,
// on pairs; Q = 1/5 - z/6 + z^2/7 - z^3/8 in float from z.hi, off the
// series' Q by truncation z^4/9 / (1 - z) <= 2^-31.1, RN(1/5) and the last
// rounding 2^-27 each, the inner ones and z.lo's effect below 2^-33:
// 2^-25.9 <= kLog1pTailErr, which adds |z|^5 2^-25 <= 2^-53 |ln(1 + z)|.
// Coefficient k's float rounding would cost z^(k-1) u / k relative: pair
// steps through k = 4 (-1/4, -1/2 are exact; 1/3 is a 2^-49 pair).
inline constexpr float kLog1pTailErr = 0x1p-25f;
EXACTVMAF_HD_INLINE PairF64 log1p_kernel(PairF64 z_in) {
  const PairF64 z = exact_copy(z_in);
  if (z.hi == 0.0f) return {0.0f, 0.0f, 0.0f};  // normalised: lo is 0 too
  const float zh = z.hi;
  const float q = kInv5Hi + zh * (-kInvFact3Hi + zh * (kInv7 - zh * 0.125f));
  PairF64 p = add(PairF64{-0.25f, 0.0f, 0.0f}, mul(z, PairF64{q, 0.0f, kLog1pTailErr}));
  p = add(coef(kInv3Hi, kInv3Lo), mul(z, p));
  p = add(PairF64{-0.5f, 0.0f, 0.0f}, mul(z, p));
  return add(z, mul(mul(z, z), p));
}

// ln X for the value X = hi + lo of a normalised pair with hi in the pairs'
// range and > 0; err bounds |result - ln X| (x.err is the caller's).
// X = 2^e (m + lo') with m = hi 2^-e in [1, 2), lo' = lo 2^-e; r = r_i, L_i
// = -log2 r_i (- 1, e' = e + 1 from sqrt 2 on) from powf_pair's table (i =
// the top 7 fraction bits of m); z = (m r - 1) + lo' r: m r exact
// (two_prod), minus 1 exact (Sterbenz), lo' r exact (two_prod; lo' rounded
// or the product's error term underflowing only where below 2^-126: kTiny),
// summed by add; |z| <= 2^-7 (table generator) + 2^-24. Then
//   ln X = e' ln 2 + L_i ln 2 + ln(1 + z).
// ln(1 + z): log1p_kernel plus z's err times 1.01 (ln(1 + z) is 1.008-
// Lipschitz there). L_i and ln 2 are (RN(v), RN(v - RN(v))) pairs, off by at
// most half an ulp of lo (checked against MPFR by the test); L_i = 0 (r = 1
// or 1/2: X near 1) and e' = 0 skip their terms, so that ln X near 0 keeps a
// relative bound. e' ln 2 = 64 e' (A + B + C + D + d), the ln2/64 split of
// exp_pair: 64 e' A exact (8-bit A, |e'| <= 101), 64 e' B and 64 e' C
// exact (two_prod), 64 e' D and its sum with (64 e' C).lo rounded (<=
// 2^-75 together) and 64 |e'| |d| <= 2^-77.6: 2^-72 for the lot. With e' !=
// 0, |e' ln 2| >= 0.69 and |L_i ln 2 + ln(1 + z)| <= 0.36: no cancellation,
// and L_i ln 2 + ln(1 + z) cancels by 2x at most (the buckets next to 1), so
// every pair sum's dropped part is ~u^2 of |ln X|. Run time values:
// relative ~2^-49 typically, at most 2^-46.1 (measured).
EXACTVMAF_HD_OUTLINE PairF64 log_kernel(PairF64 x) {
  using powf_pair_detail::kLn2Hi;
  using powf_pair_detail::kLn2Lo;
  int e;
  const float m = split_exponent(x.hi, &e);
  const int i = static_cast<int>((sf64_detail::float_bits(m) & 0x007fffffu) >> 16);
  const powf_pair_detail::LogEntry& le = powf_pair_detail::log_entry(i);
  const Two mr = two_prod(m, le.r);
  const Two z0 = fast_two_sum(mr.hi - 1.0f, mr.lo);
  const Two lr = two_prod(pair_detail::scale_f32(x.lo, -e), le.r);
  const PairF64 z = add(PairF64{z0.hi, z0.lo, 0.0f}, PairF64{lr.hi, lr.lo, x.lo == 0.0f ? 0.0f : kTiny});
  PairF64 result = log1p_kernel(z);
  result.err = bound_finish(result.err + 1.01f * z.err);
  if (le.l_hi != 0.0f) {
    const PairF64 l_i{le.l_hi, le.l_lo, le.l_lo == 0.0f ? 0.0f : half_ulp(le.l_lo)};
    const PairF64 ln2{kLn2Hi, kLn2Lo, half_ulp(kLn2Lo)};
    result = add(mul_accurate(l_i, ln2), result);
  }
  const int e_total = e + (i >= powf_pair_detail::kSqrt2Index ? 1 : 0);
  if (e_total != 0) {
    const float jf = 64.0f * static_cast<float>(e_total);
    const Two pb = two_prod(jf, kLn2o64B);
    Two pc = two_prod(jf, kLn2o64C);
    pc = fast_two_sum(pc.hi, pc.lo + jf * kLn2o64D);
    PairF64 e_ln2 = add(PairF64{jf * kLn2o64A, 0.0f, 0.0f}, PairF64{pb.hi, pb.lo, 0.0f});
    e_ln2 = add(e_ln2, PairF64{pc.hi, pc.lo, 0x1p-72f});
    result = add(e_ln2, result);
  }
  return result;
}

// |ln X - ln x_R| <= x.err / (X - x.err) for x_R within x.err of X (ln is
// 1/t-Lipschitz on [X - err, inf)); X >= hi (1 - 2^-24) (normalised), and
// the (1 - 2^-22) and bound_finish's slack cover the roundings here.
EXACTVMAF_HD_INLINE float log_propagation(PairF64 x) {
  if (x.err == 0.0f) return 0.0f;
  return pair_detail::bound_div(x.err, x.hi * (1.0f - 0x1p-22f) - x.err);
}

EXACTVMAF_HD_INLINE bool log_domain(PairF64 x) {
  return x.hi > 0.0f && x.err < 0.5f * x.hi && pair_detail::in_range(x.hi);
}

}  // namespace pair_elem_detail

// ln, R = RN(ln x_R) (cr_log). Bound: log_kernel's err + the propagation
// x.err / (X - x.err) + R's rounding 2^-53 |ln x_R|. An exact 1 gives an
// exact 0.
EXACTVMAF_HD_OUTLINE PairF64 log_pair(PairF64 x_in) {
  using namespace pair_elem_detail;
  const PairF64 x = normalise(x_in);
  if (!log_domain(x)) return {0.0f, 0.0f, kInfErr};
  const PairF64 l = log_kernel(x);
  return {l.hi, l.lo, final_err(l, log_propagation(x))};
}

// pow, R = RN(x_R^y_R) (cr_pow: one rounding, of the real power), for x in
// log_pair's domain and |t| <= 20, t = y ln x. Method: t = mul_accurate(y, l), l =
// log_kernel(x) with err log_kernel's + log_propagation(x), so that l.err
// bounds |l - ln x_R| (no rounding of R's: R rounds no log) and t.err bounds
// |t - t_R|, t_R = y_R ln x_R real (the product propagates y.err, l.err); then
// exp_core(t). Proof of the bound: P = x_R^y_R = e^t_R; exp_core's err is
// |m 2^e - e^T| (kernel) + |m| (e^t.err - 1) (>= |e^T - e^t_R| 2^-e, T the
// value of t) + 2^-53 |m| (>= |R - P| 2^-e, P normal), all relative to m;
// its proof only uses |T - t_R| <= t.err and R = RN(e^t_R), so it holds for
// the real t_R. Relative bound: exp's ~2^-46.5 + |y| l.err + |ln x| y.err
// (PairF64(2.4).err = 2^-47.3) + t's rounding, i.e. ~u^2 |t| on top of
// exp's (mul_accurate keeps t's own rounding near the pair's); measured at
// most 2^-43.9 for y = 2.4 on (0.08, 2.4), 2^-45.6 for the cube root on
// (0.008, 9), 2^-43.5 for |t| <= 6, 2^-41.7 for |t| <= 20. t.err > 2^-20
// or |t.hi| > 20: kInfErr.
EXACTVMAF_HD_OUTLINE ScaledPair pow_pair(PairF64 x_in, PairF64 y_in) {
  using namespace pair_elem_detail;
  const PairF64 x = normalise(x_in), y = normalise(y_in);
  const ScaledPair none{{1.0f, 0.0f, kInfErr}, 0};
  if (!log_domain(x) || !(y.err < kInfErr)) return none;
  PairF64 l = log_kernel(x);
  l.err = bound_finish(l.err + log_propagation(x));
  // y = n + f with an integer n in [1, 4] (the Lab's 2.4 = 2 + 0.4): x^y =
  // x^n e^(f ln x), so that ln x's error is amplified by |f| rather than |y|
  // (x^2.4: 2^-46 instead of 2^-43.9). f = y - n: y.hi - n is exact
  // (Sterbenz: n <= y.hi < n + 1 <= 2n), its sum with y.lo is add's. x^n on
  // pairs carries x.err (mul_accurate propagates both operands' err, valid
  // for the same x_R twice); the product with m 2^e then bounds |x^n m 2^e -
  // x_R^n e^(f_R ln x_R)| with R's one rounding in m's 2^-53 |m| (relative,
  // so scaled by x^n it is 2^-53 of the product).
  const float n = pair_detail::floor_f32(y.hi);
  if (n >= 1.0f && n <= 4.0f) {
    const PairF64 f = add(PairF64{y.hi - n, 0.0f, 0.0f}, PairF64{y.lo, 0.0f, y.err});
    const PairF64 t = mul_accurate(f, l);
    if (!(abs_f32(t.hi) <= 20.0f) || !(t.err <= 0x1p-20f)) return none;
    const ScaledPair e = exp_core(t);
    PairF64 xn = x;
    for (int k = 1; k < static_cast<int>(n); ++k) xn = mul_accurate(xn, x);
    const PairF64 p = mul_accurate(xn, e.m);
    const int k = pair_detail::exponent_f32(p.hi);  // back to m in [1, 2): exact power-of-two scaling
    return {scale_pair(PairF64{p.hi, p.lo, bound_finish(p.err)}, -k), e.e + k};
  }
  const PairF64 t = mul_accurate(y, l);
  if (!(abs_f32(t.hi) <= 20.0f) || !(t.err <= 0x1p-20f)) return none;
  return exp_core(t);
}

}  // namespace exactvmaf::rmath
