// Correctly rounded sin, cos and atan2 in binary64, round to nearest (R1,
// docs/design.md §2 rule 2), for the CPU and CUDA devices.
//
//   bool cr_sin_fast(double x, double* out)            host + device
//   bool cr_cos_fast(double x, double* out)            host + device
//   bool cr_atan2_fast(double y, double x, double* out) host + device
//     true: *out is the correctly rounded result (the same bits on every
//     host and device). false: undecided here (about 2^-40 of arguments in
//     the fast range, plus the ranges listed below); *out is untouched and
//     the caller must use the slow path (on a device: flag the sample and
//     let the host recompute it).
//   double cr_sin(double), cr_cos(double), cr_atan2(double, double)   host
//     fast path, then MPFR for the undecided rest (cr_trig.cpp).
//
// Only + - * / of binary64 in round-to-nearest, integer and bit operations
// and constant tables: no FMA, no libm, no CUDA math library, so the fast
// paths give identical bits on host and device (the build forbids
// contraction: -ffp-contract=off, --fmad=false). They assume the reference
// FP environment (round to nearest, no FTZ/DAZ): host callers run under
// exactvmaf::FpEnvGuard.
//
// Method and error bounds: docs/rmath.md, section "rmath-trig". In short:
//  sin/cos: |x| < 2^-26 (sin) / 2^-27 (cos): x / 1.0. |x| <= 2^22:
//    x = k pi/2 + r from a triple-double 2/pi (abs error of r
//    <= |r| 2^-101.9 + 2^-135), r = i/64 + b (|b| <= 1/128), tabulated
//    sin, cos(i/64) in double-double, Taylor series of sin b and cos b - 1
//    in double-double; total error <= |y| 2^-98 + 2^-134; the rounding test
//    uses |y| 2^-94 + 2^-128. |x| > 2^22: slow path (documented).
//  atan2: exact special cases (C99 Annex F); both arguments scaled by the
//    same power of two; t = min/max, c = j/128 nearest to t,
//    u = (num - c den) / (den + c num) in double-double, atan(t) =
//    atan(c) + atan(u) (table + odd series to u^13), then pi/2 - . and
//    pi - . for the octant; error <= |y| 2^-98, test uses |y| 2^-92.
//    |x/y| > 2^950 with x > 0 (a result below 2^-949, maybe subnormal):
//    slow path.
#pragma once

#include <cstdint>

#include "numeric/cr_trig_tables.hpp"
#include "numeric/dd.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

namespace trig_detail {

using dd::DD;

inline constexpr std::uint64_t kSignBit = 0x8000000000000000ull;
inline constexpr std::uint64_t kInfBits = 0x7ff0000000000000ull;
// One NaN for every NaN result, so that host and device agree bit for bit.
inline constexpr std::uint64_t kQuietNaNBits = 0x7ff8000000000000ull;

EXACTVMAF_HD_INLINE double quiet_nan() { return dd::double_from_bits(kQuietNaNBits); }

// True (and *out = v.hi) when every real within err of v = hi + lo rounds to
// the same double, which is then v.hi. v must be normalised (hi = RN(hi +
// lo), as fast_two_sum leaves it), finite, with |hi| >= 2^-960. A real
// exactly on a rounding boundary counts as undecided. The comparisons are
// rigorous although lo +- err is rounded: rounding is monotonic and the
// half-ulps are doubles.
EXACTVMAF_HD_INLINE bool round_decided(DD v, double err, double* out) {
  const std::uint64_t hb = dd::bits_of(v.hi);
  const int biased = static_cast<int>((hb >> 52) & 0x7ff);
  const double half_away = dd::pow2i(biased - 1023 - 53);  // half ulp, away from zero
  // Towards zero the gap is half as wide when |hi| is a power of two.
  const double half_toward =
      (hb & 0x000fffffffffffffull) == 0 ? dd::pow2i(biased - 1023 - 54) : half_away;
  const double lo = (hb >> 63) ? -v.lo : v.lo;  // the low part, in the direction of |hi|
  if (lo + err < half_away && lo - err > -half_toward) {
    *out = v.hi;
    return true;
  }
  return false;
}

// x = k pi/2 + r for 2^-27 <= |x| <= 2^22; returns r (|r| <= pi/4 (1 + 2^-30))
// and k mod 4. y = x 2/pi = y0 + y1 + y2 with y0, y1 exact products (Dekker)
// and y2 = RN(x C2); f = y - k exactly summed in double-double. Error of r:
// <= |r| 2^-101.9 + |x| 2^-157.
EXACTVMAF_HD_INLINE DD reduce_pio2(double x, int* quadrant) {
  using namespace trig_tables;
  const DD y0 = dd::two_prod(x, kTwoOverPi0);
  const DD y1 = dd::two_prod(x, kTwoOverPi1);
  const double y2 = x * kTwoOverPi2;
  constexpr double kRoundToInt = 0x1.8p52;
  const double k = (y0.hi + kRoundToInt) - kRoundToInt;  // nearest integer, |k| < 2^22
  DD f = dd::two_sum(y0.hi - k, y0.lo);                  // y0.hi - k is exact
  f = dd::add(f, y1.hi);
  f = dd::add(f, y1.lo);
  f = dd::add(f, y2);
  *quadrant = static_cast<int>(static_cast<long long>(k) & 3);
  return dd::mul(f, DD{kPiOver2_hi, kPiOver2_lo});
}

// sin(r) (cosine == false) or cos(r), |r| <= pi/4 (1 + 2^-30), r normalised,
// relative error < 2^-99.5 (sin: relative to sin r, also for tiny r).
EXACTVMAF_HD_INLINE DD sin_or_cos_reduced(DD r, bool cosine) {
  using namespace trig_tables;
  const bool negative = r.hi < 0.0;
  if (negative) r = dd::neg(r);
  const int i = static_cast<int>(r.hi * 64.0 + 0.5);  // 0 <= i <= 50
  const double a = static_cast<double>(i) * 0x1p-6;
  // r.hi - a is exact (a is a multiple of ulp(r.hi), |r.hi - a| <= 1/128) and
  // is 0 or at least ulp(r.hi) >= 2 |r.lo|, so fast_two_sum is exact: b = r - a.
  const DD b = dd::fast_two_sum(r.hi - a, r.lo);
  const DD z = dd::sqr(b);
  const double zh = z.hi;

  // For i == 0 only one of the two series is needed (sin r = sin b,
  // cos r = 1 + (cos b - 1)); the skipped one would not change the result.
  const bool need_sin = i != 0 || !cosine;
  const bool need_cos = i != 0 || cosine;

  // sin b = b + b z (S3 + z (S5 + z (S7 + z (S9 + z S11)))); |b| <= 2^-7 (1+):
  // truncation b^13/13! < 2^-116 |b|; the double-precision tail contributes
  // <= 2^-54 |b| and carries a relative error < 2^-50.
  DD sin_b{0.0, 0.0};
  if (need_sin) {
    const double sin_tail = kSinS7 + zh * (kSinS9 + zh * kSinS11);
    DD ps = dd::add(DD{kSinS5_hi, kSinS5_lo}, zh * sin_tail);
    ps = dd::add(DD{kSinS3_hi, kSinS3_lo}, dd::mul(z, ps));
    sin_b = dd::add(b, dd::mul(b, dd::mul(z, ps)));
  }

  // cos b - 1 = z (-1/2 + z (C4 + z (C6 + z (C8 + z C10)))); truncation
  // z^6/12! < 2^-112.
  DD cos_b_minus_1{0.0, 0.0};
  if (need_cos) {
    const double cos_tail = kCosC6 + zh * (kCosC8 + zh * kCosC10);
    DD pc = dd::add(DD{kCosC4_hi, kCosC4_lo}, zh * cos_tail);
    pc = dd::add(DD{-0.5, 0.0}, dd::mul(z, pc));
    cos_b_minus_1 = dd::mul(z, pc);
  }

  DD result;
  if (i == 0) {
    result = cosine ? dd::fast_two_sum(1.0, cos_b_minus_1.hi) : sin_b;
    if (cosine) result = dd::add(result, cos_b_minus_1.lo);
  } else {
    const DD sin_a{kSinCos64[i][0], kSinCos64[i][1]};
    const DD cos_a{kSinCos64[i][2], kSinCos64[i][3]};
    if (!cosine) {  // sin(a + b) = sin a + (sin a (cos b - 1) + cos a sin b)
      result = dd::add(sin_a, dd::add(dd::mul(sin_a, cos_b_minus_1), dd::mul(cos_a, sin_b)));
    } else {  // cos(a + b) = cos a + (cos a (cos b - 1) - sin a sin b)
      result = dd::add(cos_a, dd::sub(dd::mul(cos_a, cos_b_minus_1), dd::mul(sin_a, sin_b)));
    }
  }
  if (negative && !cosine) result = dd::neg(result);
  return result;
}

// The double-double value of sin x (cosine == false) or cos x before the
// rounding test, with its error bound: |v - f(x)| <= *err. Only for
// 2^-27 <= |x| <= 2^22 (sin_cos_fast handles the rest). Exposed for the
// tests that measure the error against MPFR.
EXACTVMAF_HD_INLINE DD sin_cos_dd(double x, bool cosine, double* err) {
  const std::uint64_t abs_bits = dd::bits_of(x) & ~kSignBit;
  int quadrant = 0;
  DD r{x, 0.0};
  if (abs_bits >= 0x3fe9000000000000ull) r = reduce_pio2(x, &quadrant);  // |x| >= 0.78125
  // sin(k pi/2 + r) = sin r, cos r, -sin r, -cos r for k = 0, 1, 2, 3 (mod 4);
  // cos(k pi/2 + r) = cos r, -sin r, -cos r, sin r.
  const int shifted = cosine ? quadrant + 1 : quadrant;
  DD v = sin_or_cos_reduced(r, (shifted & 1) != 0);
  if (shifted & 2) v = dd::neg(v);
  const double mag = v.hi < 0.0 ? -v.hi : v.hi;
  *err = mag * 0x1p-94 + 0x1p-128;
  return v;
}

// sin (cosine == false) or cos of x.
EXACTVMAF_HD_INLINE bool sin_cos_fast(double x, bool cosine, double* out) {
  const std::uint64_t abs_bits = dd::bits_of(x) & ~kSignBit;
  if (abs_bits >= kInfBits) {  // NaN, +-inf: NaN
    *out = quiet_nan();
    return true;
  }
  if (!cosine && abs_bits < 0x3e50000000000000ull) {  // |x| < 2^-26: sin x rounds to x
    *out = x;
    return true;
  }
  if (cosine && abs_bits < 0x3e40000000000000ull) {  // |x| < 2^-27: cos x rounds to 1
    *out = 1.0;
    return true;
  }
  if (abs_bits > 0x4150000000000000ull) return false;  // |x| > 2^22: slow path
  double err;
  const DD v = sin_cos_dd(x, cosine, &err);
  return round_decided(v, err, out);
}

// Exponent e with 2^e <= a < 2^(e+1), for finite a > 0 (subnormals included).
EXACTVMAF_HD_INLINE int exponent_of(double a) {
  const std::uint64_t b = dd::bits_of(a);
  const int biased = static_cast<int>(b >> 52);
  if (biased != 0) return biased - 1023;
  const std::uint64_t b2 = dd::bits_of(a * 0x1p64);  // exact
  return static_cast<int>(b2 >> 52) - 1023 - 64;
}

// a 2^s in two exact steps (s in [-1100, 1100]); exact when neither step
// leaves the normal range, which the caller ensures.
EXACTVMAF_HD_INLINE double scale_pow2(double a, int s) {
  const int s1 = s / 2;
  return (a * dd::pow2i(s1)) * dd::pow2i(s - s1);
}

EXACTVMAF_HD_INLINE double with_sign(double v, bool negative) { return negative ? -v : v; }

// atan(u) for |u| <= 2^-8 (1 + 2^-40), u normalised; relative error < 2^-101
// plus that of u.
EXACTVMAF_HD_INLINE DD atan_small(DD u) {
  using namespace trig_tables;
  const DD z = dd::sqr(u);
  const double zh = z.hi;
  const double tail = kAtanA7 + zh * (kAtanA9 + zh * (kAtanA11 + zh * kAtanA13));
  DD p = dd::add(DD{kAtanA5_hi, kAtanA5_lo}, zh * tail);
  p = dd::add(DD{kAtanA3_hi, kAtanA3_lo}, dd::mul(z, p));
  return dd::add(u, dd::mul(u, dd::mul(z, p)));
}

// atan2 of y = +-ay, x = +-ax for scaled magnitudes: max(ay, ax) in [1, 2),
// min(ay, ax) >= 2^-951. Returns the double-double value (relative error
// < 2^-98; the rounding test uses 2^-92). Exposed for the tests.
EXACTVMAF_HD_INLINE DD atan2_scaled_dd(bool y_neg, bool x_neg, double ay, double ax) {
  using namespace trig_tables;
  const bool swap = ay > ax;
  const double num = swap ? ax : ay;
  const double den = swap ? ay : ax;
  const double t = num / den;  // in [0, 1]
  const int j = static_cast<int>(t * 128.0 + 0.5);
  const double c = static_cast<double>(j) * 0x1p-7;
  // u = (num - c den) / (den + c num) = tan(atan t - atan c), |u| <= 2^-8
  // (1 + 2^-45); c den and c num are exact products (two_prod), the sums are
  // accurate to 2^-105 and the quotient to 2^-99.
  const DD cd = dd::two_prod(c, den);
  const DD n = dd::add(dd::two_sum(num, -cd.hi), -cd.lo);
  const DD cn = dd::two_prod(c, num);
  const DD d = dd::add(dd::two_sum(den, cn.hi), cn.lo);
  const DD u = dd::div(n, d);
  DD v = atan_small(u);                                                    // atan(t) - atan(c)
  if (j != 0) v = dd::add(DD{kAtan128[j][0], kAtan128[j][1]}, v);          // atan(num/den)
  if (swap) v = dd::sub(DD{kPiOver2_hi, kPiOver2_lo}, v);                  // atan(ay/ax)
  if (x_neg) v = dd::sub(DD{kPi_hi, kPi_lo}, v);                           // second quadrant
  if (y_neg) v = dd::neg(v);
  return v;
}

// Scales ay, ax (finite, > 0) by a common power of two for atan2_scaled_dd.
// Returns 0 when done, 1 when |y/x| > 2^950, -1 when |x/y| > 2^950.
EXACTVMAF_HD_INLINE int atan2_scale(double* ay, double* ax) {
  const int ey = exponent_of(*ay);
  const int ex = exponent_of(*ax);
  if (ey - ex > 950) return 1;
  if (ex - ey > 950) return -1;
  // max in [1, 2); the smaller is then >= 2^-951 and no step leaves the
  // normal range, so both products are exact.
  const int s = -(ey > ex ? ey : ex);
  *ay = scale_pow2(*ay, s);
  *ax = scale_pow2(*ax, s);
  return 0;
}

}  // namespace trig_detail

EXACTVMAF_HD_INLINE bool cr_sin_fast(double x, double* out) {
  return trig_detail::sin_cos_fast(x, false, out);
}

EXACTVMAF_HD_INLINE bool cr_cos_fast(double x, double* out) {
  return trig_detail::sin_cos_fast(x, true, out);
}

// atan2(y, x) in [-pi, pi], C99 Annex F special values (signed zeros,
// infinities); NaN in either argument gives the quiet NaN 0x7ff8....
EXACTVMAF_HD_INLINE bool cr_atan2_fast(double y, double x, double* out) {
  using namespace trig_tables;
  using namespace trig_detail;
  const std::uint64_t yb = dd::bits_of(y);
  const std::uint64_t xb = dd::bits_of(x);
  const bool y_neg = (yb >> 63) != 0;
  const bool x_neg = (xb >> 63) != 0;
  const std::uint64_t ya = yb & ~kSignBit;
  const std::uint64_t xa = xb & ~kSignBit;
  if (ya > kInfBits || xa > kInfBits) {
    *out = quiet_nan();
    return true;
  }
  if (ya == 0) {  // atan2(+-0, x): +-0 for x = +0 or x > 0, +-pi for x = -0 or x < 0
    *out = with_sign(x_neg ? kPi_hi : 0.0, y_neg);
    return true;
  }
  if (xa == 0) {  // y != 0
    *out = with_sign(kPiOver2_hi, y_neg);
    return true;
  }
  if (ya == kInfBits) {
    *out = with_sign(xa != kInfBits ? kPiOver2_hi : (x_neg ? kThreePiOver4_hi : kPiOver4_hi), y_neg);
    return true;
  }
  if (xa == kInfBits) {  // y finite
    *out = with_sign(x_neg ? kPi_hi : 0.0, y_neg);
    return true;
  }
  double ay = dd::double_from_bits(ya);
  double ax = dd::double_from_bits(xa);
  const int extreme = atan2_scale(&ay, &ax);
  // +-(pi/2 -+ t) and +-(pi - t) with t < 2^-949 round to RN(pi/2) and
  // RN(pi): both constants are more than 0.2 ulp away from a midpoint.
  if (extreme == 1) {
    *out = with_sign(kPiOver2_hi, y_neg);
    return true;
  }
  if (extreme == -1) {
    if (!x_neg) return false;  // a result below 2^-949, possibly subnormal: slow path
    *out = with_sign(kPi_hi, y_neg);
    return true;
  }
  const DD v = atan2_scaled_dd(y_neg, x_neg, ay, ax);
  const double mag = v.hi < 0.0 ? -v.hi : v.hi;
  return round_decided(v, mag * 0x1p-92, out);
}

// Host: correctly rounded for every argument (fast path, then MPFR).
double cr_sin(double x);
double cr_cos(double x);
double cr_atan2(double y, double x);

}  // namespace exactvmaf::rmath
