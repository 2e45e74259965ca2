// CIEDE2000 (libvmaf ciede.c at f85a853), the whole per-pixel arithmetic,
// host and device. Upstream's statements with every C type written out:
//   - Lab is computed in double from the YUV samples (BT.709 limited range),
//     with pow(x, 2.4) and pow(c, 1.0 / 3.0) (the double nearest 1/3, not
//     cbrt); xyz_to_lab_map returns float, so the three Lab intermediates and
//     L, a, b are float.
//   - The CIEDE2000 formula stores every named value in float; the
//     sub-expressions are double where C makes them double: a float passed to
//     atan2, sqrt, sin, cos, exp or pow is promoted to double (C has no float
//     overloads), powf(x, 7) is float, pow(x, 2) of a float is the exact
//     double square (gcc emits x * x), float op int stays float.
// The elementary functions come from a policy M (HostMath: R's host
// functions; FastMath: the host+device fast paths, which flag an undecided
// call so that the caller can recompute the sample on the host). sqrt is the
// IEEE square root (correctly rounded by definition).
// Speed without changing a bit: x^7 as a double-double product, and
// plain-double sin, cos, exp, atan2 and pow whose proven error bounds are
// carried to the float store they feed; where round_to_float cannot decide
// that store from the bound, R's function decides ("shortcuts under a
// rounding test" below; HostMathNoShortcuts turns them off for the tests).
// R's doubles are of the type T = M::real: double, or Sf64 (numeric/sf64.hpp,
// binary64 in integer arithmetic) in the variant without fp64 (Sf64Math),
// which runs the same statements and so gives the same bits wherever it
// decides (docs/fp64-free.md).
#pragma once
#include <bit>
#include <cstdint>
#include <type_traits>

#include "numeric/cr_exp.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/cr_round.hpp"
#include "numeric/cr_trig.hpp"
#include "numeric/dd.hpp"
#include "numeric/fp32pair.hpp"
#include "numeric/fp32pair_elem.hpp"
#include "numeric/hd.hpp"
#include "numeric/rmath_policy.hpp"
#include "numeric/sf64.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::ciede {

// ---- elementary functions ---------------------------------------------------

using rmath::f32_of;
using rmath::i32_of;
using rmath::of_u64;
using rmath::sqrt_of;  // IEEE square root of a double or an Sf64
using rmath::Sf64;

// R's functions (src/numeric/rmath_policy.hpp). The shortcuts below (x^7
// as a dd product, plain-double sin/cos/exp/atan2 under a rounding test) give
// R's values; HostMathNoShortcuts leaves them out, as the tests' oracle.
struct HostMath : rmath::HostMathPolicy {
  using real = double;
  static constexpr bool kShortcuts = true;
  static float f32(double x) { return static_cast<float>(x); }  // C's (float) of a double
};

// R's host functions for every call: the formula exactly as upstream writes it.
struct HostMathNoShortcuts : HostMath {
  static constexpr bool kShortcuts = false;
};

// The fast paths only (host and device): after an undecided call the
// sample's value is not R's and must be recomputed with HostMath.
struct FastMath : rmath::FastMathPolicy {
  using real = double;
  static constexpr bool kShortcuts = true;
  EXACTVMAF_HD_INLINE static float f32(double x) { return static_cast<float>(x); }
};

// No fp64 at all (the fp32pair device variant, and the CPU's emulation of
// it): R's doubles as Sf64, the shortcuts only. A call that would need R's
// function marks the sample undecided (its value is then not R's: the host
// recomputes it with HostMath).
struct Sf64Math {
  using real = Sf64;
  static constexpr bool kShortcuts = true;
  bool undecided = false;
  EXACTVMAF_HD_INLINE static float f32(Sf64 x) { return f32_of(x); }
  EXACTVMAF_HD_INLINE Sf64 none() {
    undecided = true;
    return Sf64{};
  }
  EXACTVMAF_HD_INLINE Sf64 exp_f64(Sf64) { return none(); }
  EXACTVMAF_HD_INLINE Sf64 pow_f64(Sf64, Sf64) { return none(); }
  EXACTVMAF_HD_INLINE float powf_f32(float, float) {
    undecided = true;
    return 0.0f;
  }
  EXACTVMAF_HD_INLINE Sf64 sin_f64(Sf64) { return none(); }
  EXACTVMAF_HD_INLINE Sf64 cos_f64(Sf64) { return none(); }
  EXACTVMAF_HD_INLINE Sf64 atan2_f64(Sf64, Sf64) { return none(); }
};

// fp32 pairs first (the fp64-free variant's first try; docs/fp64-free.md,
// ciede): R's doubles as rmath::PairF64, each carrying a bound on its
// distance to R's double, and every float store decided from that bound
// (f32). R's functions are pair functions with proven bounds
// (numeric/fp32pair_elem.hpp) in the shortcuts' place. Where a store cannot
// be decided, or a value leaves the pairs' range, `undecided` is set and the
// caller replays the pixel with Sf64Math. A pair does not carry R's sign of
// zero: where the formula can make a signed zero on this path (ΔH and R_T
// with a zero factor), the sign cannot reach ΔE00 (ΔH is squared, R_T's
// product is added to a sum of squares).
struct PairMath {
  using real = rmath::PairF64;
  static constexpr bool kShortcuts = true;
  bool undecided = false;
  EXACTVMAF_HD_INLINE float f32(rmath::PairF64 x) {
    rmath::Fp32PairF64 d;
    const float r = d.to_f32(x);
    undecided = undecided || d.undecided;
    return r;
  }
  // The integer nearest to x (|x| < 2^24).
  EXACTVMAF_HD_INLINE bool nearest_integer(rmath::PairF64 x, float* n) {
    rmath::Fp32PairF64 d;
    const bool ok = d.nearest_integer(x, n);
    undecided = undecided || d.undecided;
    return ok;
  }
  // RN32(x * 2^e), subnormal results included.
  EXACTVMAF_HD_INLINE float f32_scaled(rmath::PairF64 x, int e) {
    rmath::Fp32PairF64 d;
    const float r = d.to_f32_scaled(x, e);
    undecided = undecided || d.undecided;
    return r;
  }
  EXACTVMAF_HD_INLINE rmath::PairF64 none() {
    undecided = true;
    return rmath::PairF64{};
  }
  EXACTVMAF_HD_INLINE rmath::PairF64 exp_f64(rmath::PairF64) { return none(); }
  // R's pow (the Lab's x^2.4 and cube root) on pairs, its bound relative.
  EXACTVMAF_HD_INLINE rmath::PairF64 pow_f64(rmath::PairF64 x, rmath::PairF64 y) {
    const rmath::ScaledPair p = rmath::pow_pair(x, y);
    return rmath::scale_pair(p.m, p.e);
  }
  EXACTVMAF_HD_INLINE float powf_f32(float, float) {
    undecided = true;
    return 0.0f;
  }
  // c > k, decided by the bound.
  EXACTVMAF_HD_INLINE bool greater(rmath::PairF64 c, double k) {
    rmath::Fp32PairF64 d;
    const int r = d.compare(c, rmath::PairF64(k));
    undecided = undecided || d.undecided;
    return r == 1;
  }
  EXACTVMAF_HD_INLINE rmath::PairF64 sin_f64(rmath::PairF64) { return none(); }
  EXACTVMAF_HD_INLINE rmath::PairF64 cos_f64(rmath::PairF64) { return none(); }
  EXACTVMAF_HD_INLINE rmath::PairF64 atan2_f64(rmath::PairF64, rmath::PairF64) { return none(); }
};

using rmath::real_of;
template <class T>
inline constexpr bool kIsPair = std::is_same_v<T, rmath::PairF64>;

// (float) of an expression R evaluates in double from float operands only:
// `expr` is written once for any type of R's doubles and applied to the
// floats xs. On pairs, where the store cannot be decided (R's double lies
// on or next to a rounding boundary: 1 + 0.045 c' is exactly a float
// midpoint for some chromas), the expression alone is evaluated in Sf64 (R's
// bits), not the whole pixel again.
template <class M, class Expr, class... Floats>
EXACTVMAF_HD_INLINE float float_store(M& m, Expr&& expr, Floats... xs) {
  using T = real_of<M>;
  if constexpr (kIsPair<T>) {
    rmath::Fp32PairF64 d;
    const float v = d.to_f32(expr(T(xs)...));
    if (!d.undecided) return v;
    return f32_of(expr(Sf64(xs)...));
  } else {
    return m.f32(expr(T(xs)...));
  }
}

// x^7 of a float on pairs: x^2 exact (two_prod), then x^3 = x^2 x, x^4 =
// (x^2)^2, x^7 = x^3 x^4; the bound covers the exact power (the pairs' err
// also counts roundings of three products R does not make: harmless).
// |x| in [2^-8, 2^14] keeps every product in the pairs' range.
EXACTVMAF_HD_INLINE rmath::PairF64 pow7_pair(float x) {
  const rmath::pair_detail::Two s = rmath::pair_detail::two_prod(x, x);
  const rmath::PairF64 x2{s.hi, s.lo, 0.0f};
  return (x2 * rmath::PairF64(x)) * (x2 * x2);
}

// x^7 for a float x, the two powers the formula takes (pow(c_bar, 7) in
// double, powf(c, 7) in float), without exp/log: x^2 is exact in double (48
// bits), x^3 = two_prod(x^2, x) and x^4 = two_sqr(x^2) are exact as dds (72 and
// 96 bits), x^7 = mul(x^3, x^4) has a relative error below 2^-102.9
// (dd.hpp). cr_round.hpp's tests then give the correctly rounded result or
// "undecided", in which case the policy's pow decides (R's value either way).
// Range: x in [2^-60, 2^60] keeps every product and error term normal.
template <class T>
EXACTVMAF_HD_INLINE dd::DDOf<T> pow7_dd(T x) {
  const T x2 = x * x;  // exact: x is a float
  const dd::DDOf<T> x3 = dd::two_prod(x2, x);
  const dd::DDOf<T> x4 = dd::two_sqr(x2);
  return dd::mul(x3, x4);
}

// pow(x, 7) of a float x, correctly rounded to double. pow(+-0, 7) = +-0
// (an odd integer power).
template <class M>
EXACTVMAF_HD_INLINE real_of<M> pow7_f64(float x, M& m) {
  using T = real_of<M>;
  if constexpr (kIsPair<T>) {
    // R's pow is correctly rounded: the pair's bound plus 2^-53 x^7.
    const float ax = x < 0.0f ? -x : x;
    if (x == 0.0f) return T(x);
    if (ax >= 0x1p-8f && ax <= 0x1p14f) {
      T p = pow7_pair(x);
      p.err = rmath::pair_detail::bound_finish(p.err + rmath::pair_detail::bound_mul(0x1p-53f, p.hi < 0.0f ? -p.hi : p.hi));
      return p;
    }
    return m.pow_f64(T(x), T(7.0f));
  } else {
    const T xd = T(x);
    if (M::kShortcuts && xd == 0.0) return xd;
    if (M::kShortcuts && xd >= 0x1p-60 && xd <= 0x1p60) {
      const dd::DDOf<T> p = pow7_dd(xd);
      T r{};
      if (rmath::detail::round_to_double(p.hi, p.lo, 0x1p-102 * p.hi, &r)) return r;
    }
    return m.pow_f64(xd, T(7.0));
  }
}

// powf(x, 7), correctly rounded to float; [2^-18, 2^18] keeps x^7 a normal
// float; powf(+-0, 7) = +-0.
template <class M>
EXACTVMAF_HD_INLINE float powf7_f32(float x, M& m) {
  using T = real_of<M>;
  if constexpr (kIsPair<T>) {
    // powf rounds x^7 once, to float: the pair's bound decides it. Below
    // 2^-22, |x^7| < 2^-154 rounds to a zero of x's sign; below 2^-8, x is
    // scaled by 2^16 (exactly) to keep the pairs in range, and the float is
    // decided on the scaled value (subnormal results included).
    const float ax = x < 0.0f ? -x : x;
    if (x == 0.0f) return x;
    if (ax < 0x1p-22f) return x < 0.0f ? -0.0f : 0.0f;
    if (ax < 0x1p-8f) return m.f32_scaled(pow7_pair(x * 0x1p16f), -112);
    if (ax <= 0x1p14f) return m.f32(pow7_pair(x));
    return m.powf_f32(x, 7.0f);
  } else {
    const T xd = T(x);
    if (M::kShortcuts && x == 0.0f) return x;
    if (M::kShortcuts && xd >= 0x1p-18 && xd <= 0x1p18) {
      const dd::DDOf<T> p = pow7_dd(xd);
      float r = 0.0f;
      if (rmath::detail::round_to_float(p.hi, p.lo, 0x1p-102 * p.hi, &r)) return r;
    }
    return m.powf_f32(x, 7.0f);
  }
}

// ---- constants (C's M_PI and upstream's literals; folded in double) --------

inline constexpr double kPi = 3.14159265358979323846;  // M_PI
inline constexpr double kTwoPi = 2. * kPi;
inline constexpr double kPiOver2 = kPi / 2.0;  // exact: RN(pi) / 2
inline constexpr double kPiOver6 = kPi / 6.0;
inline constexpr double kPiOver30 = kPi / 30.0;
inline constexpr double kSevenPiOver20 = 7.0 * kPi / 20.0;  // (7.0 * M_PI) / 20.0
inline constexpr double kRadToDeg = 180.0 / kPi;
inline constexpr double kDegToRad = kPi / 180.0;
inline constexpr double kPow25_7 = 6103515625.0;  // 25^7, exact in double (upstream constant-folded)
// 25^7 rounded to float, as gcc folds upstream's float power correctly rounded.
inline constexpr float kPowf25_7 = static_cast<float>(6103515625.0);
// The largest float not above RN64(pi): for a float f, (double)f <= kPi
// exactly when f <= kPiFloorF (kPi is not a float), so the formula's
// comparisons of a float with M_PI need no double.
inline constexpr float kPiFloorF = static_cast<double>(static_cast<float>(kPi)) <= kPi
                                       ? static_cast<float>(kPi)
                                       : std::bit_cast<float>(std::bit_cast<std::uint32_t>(static_cast<float>(kPi)) - 1u);
// (float) of R's double constants pi and pi/2 (the exact atan2 results).
inline constexpr float kPiF = static_cast<float>(kPi), kPiOver2F = static_cast<float>(kPiOver2);

EXACTVMAF_HD_INLINE double d(float x) { return static_cast<double>(x); }
EXACTVMAF_HD_INLINE float f(double x) { return static_cast<float>(x); }

// ---- shortcuts under a rounding test ----------------------------------------
// The formula stores most results as floats. Where a stored float depends on
// one transcendental call, the call is first evaluated in plain double
// arithmetic with a proven error bound; if every value within the bound
// rounds to the same float (cr_round.hpp's round_to_float), that float is
// R's. Otherwise (rarely) R's function decides. Host and device.

// x = k pi/2 + r for |x| < 64: pi/2 = P1 + P2 + P3 (P1, P2 of 33 bits, so
// k P1 and k P2 are exact for |k| < 2^6; P3 within 2^-122 of the rest); the
// three subtractions and k P3 leave |r - r_true| < 2^-51 with |r| < 0.8, and
// r == x exactly when k == 0.
template <class T>
struct ReducedPio2 {
  T r;
  int k;
};
template <class T>
EXACTVMAF_HD_INLINE ReducedPio2<T> reduce_pio2_approx(T x) {
  constexpr double kTwoOverPi = 0.63661977236758138243;
  constexpr double P1 = 0x1.921fb544p0;         // pi/2, first 33 bits
  constexpr double P2 = 0x1.0b4611a6p-34;       // next 33 bits
  constexpr double P3 = 0x1.3198a2e037073p-69;  // the rest, rounded
  constexpr double kShift = 0x1.8p52;           // (y + kShift) - kShift rounds y to an integer
  const T kd = (x * kTwoOverPi + kShift) - kShift;
  return {((x - kd * P1) - kd * P2) - kd * P3, i32_of(kd)};
}

// Taylor polynomials in z = r^2 for |r| < 0.8: cos through r^16, sin through
// r^17 (truncation < 2^-58); Horner's roundings, z's and the coefficients'
// add < 2^-51.5 absolute for cos and < 2^-51.4 relative for sin.
template <class T>
EXACTVMAF_HD_INLINE T cos_poly(T z) {
  return 1.0 + z * (-0.5 + z * (1.0 / 24.0 + z * (-1.0 / 720.0 + z * (1.0 / 40320.0 + z * (-1.0 / 3628800.0 +
               z * (1.0 / 479001600.0 + z * (-1.0 / 87178291200.0 + z * (1.0 / 20922789888000.0))))))));
}
template <class T>
EXACTVMAF_HD_INLINE T sin_poly(T r, T z) {
  return r * (1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362880.0 + z * (-1.0 / 39916800.0 +
               z * (1.0 / 6227020800.0 + z * (-1.0 / 1307674368000.0 + z * (1.0 / 355687428096000.0)))))))));
}

// cos(x), |x| < 64: absolute error below 2^-50 (reduction 2^-51, polynomial
// 2^-51.5; cos is 1-Lipschitz). Tests: CiedeSpeed.TrigApprox*.
template <class T>
EXACTVMAF_HD_INLINE T cos_approx(T x) {
  const ReducedPio2<T> t = reduce_pio2_approx(x);
  const T z = t.r * t.r;
  switch (t.k & 3) {
    case 0: return cos_poly(z);
    case 1: return -sin_poly(t.r, z);
    case 2: return -cos_poly(z);
    default: return sin_poly(t.r, z);
  }
}

// sin(x), |x| <= 1.6: relative error below 2^-49.5 (k == 0: r == x, only the
// polynomial's 2^-51.4; k == +-1: +-cos(r) >= 0.69 with absolute error 2^-50).
template <class T>
EXACTVMAF_HD_INLINE T sin_approx(T x) {
  const ReducedPio2<T> t = reduce_pio2_approx(x);
  const T z = t.r * t.r;
  if (t.k == 0) return sin_poly(t.r, z);
  return t.k > 0 ? cos_poly(z) : -cos_poly(z);
}

// exp(x), -700 <= x <= 700: relative error below 2^-50.5. x = k ln2 + r with
// ln2 = L1 + L2 (L1 of 32 bits: k L1 exact for |k| < 2^21), |r| < 0.35,
// |r - r_true| < 2^-52.9; Taylor through r^14 (truncation < 2^-62 relative),
// Horner < 2^-50.9 relative; 2^k exact (normal range).
template <class T>
EXACTVMAF_HD_INLINE T pow2_of(int e) {  // 2^e, -1022 <= e <= 1023, from its bits
  return of_u64<T>(static_cast<std::uint64_t>(e + 1023) << 52);
}

template <class T>
EXACTVMAF_HD_INLINE T exp_approx(T x) {
  constexpr double kInvLn2 = 1.44269504088896338700;
  constexpr double L1 = 0x1.62e42feep-1;          // ln 2, first 32 bits
  constexpr double L2 = 0x1.a39ef35793c76p-33;    // the rest, rounded
  constexpr double kShift = 0x1.8p52;
  const T kd = (x * kInvLn2 + kShift) - kShift;
  const T r = (x - kd * L1) - kd * L2;
  const T p =
      1.0 + r * (1.0 + r * (1.0 / 2.0 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 +
      r * (1.0 / 5040.0 + r * (1.0 / 40320.0 + r * (1.0 / 362880.0 + r * (1.0 / 3628800.0 + r * (1.0 / 39916800.0 +
      r * (1.0 / 479001600.0 + r * (1.0 / 6227020800.0 + r * (1.0 / 87178291200.0))))))))))))));
  return p * pow2_of<T>(i32_of(kd));
}

// ln(x) for normal x > 0: absolute error below 2^-51.6 + 2^-53 |ln x|.
// x = 2^e m with m in [sqrt(1/2), sqrt(2)) (exact), s = (m - 1) / (m + 1)
// (m - 1 exact by Sterbenz; s within 2^-52 relative), |s| < 0.1716, ln m =
// 2 atanh(s) by its series through s^21 (truncation < 2^-62; Horner and s:
// below 2^-50.6 relative, 2^-52.1 absolute); e ln2 = e L1 (exact) + e L2;
// the two additions round within 2^-53 |ln x| plus 2^-54.
template <class T>
EXACTVMAF_HD_INLINE T ln_approx(T x) {
  constexpr double L1 = 0x1.62e42feep-1, L2 = 0x1.a39ef35793c76p-33;
  std::uint64_t bits = rmath::u64_of(x);
  int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  T m = of_u64<T>((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);  // [1, 2)
  if (m > 1.4142135623730951) {
    m = m * 0.5;
    ++e;
  }
  const T sv = (m - 1.0) / (m + 1.0);
  const T s2 = sv * sv;
  const T lnm =
      sv * (2.0 + s2 * (2.0 / 3.0 + s2 * (2.0 / 5.0 + s2 * (2.0 / 7.0 + s2 * (2.0 / 9.0 + s2 * (2.0 / 11.0 + s2 * (2.0 / 13.0 +
      s2 * (2.0 / 15.0 + s2 * (2.0 / 17.0 + s2 * (2.0 / 19.0 + s2 * (2.0 / 21.0)))))))))));
  const T ed = T(e);
  return ed * L1 + (ed * L2 + lnm);
}

// pow(x, y) for normal x > 0 and |y ln x| <= 12: relative error below
// |y| (2^-51.6 + 2^-53 |ln x|) + 2^-53 |y ln x| (t = y ln x) + 2^-50.5
// (exp) + 2^-60; the caller states the bound for its arguments.
template <class T>
EXACTVMAF_HD_INLINE T pow_approx(T x, double y) { return exp_approx(y * ln_approx(x)); }

// atan(j / 16), j = 0..16, correctly rounded (test: CiedeSpeed.AtanTable
// compares them with cr_atan2(j, 16)). Device code reads its own copy.
#define EXACTVMAF_CIEDE_ATAN_TABLE                                                                          \
  {0x0p+0, 0x1.ff55bb72cfdeap-5, 0x1.fd5ba9aac2f6ep-4, 0x1.7b97b4bce5b02p-3, 0x1.f5b75f92c80ddp-3,         \
   0x1.362773707ebccp-2, 0x1.6f61941e4def1p-2, 0x1.a64eec3cc23fdp-2, 0x1.dac670561bb4fp-2,                \
   0x1.0657e94db30dp-1, 0x1.1e00babdefeb4p-1, 0x1.345f01cce37bbp-1, 0x1.4978fa3269ee1p-1,                 \
   0x1.5d58987169b18p-1, 0x1.700a7c5784634p-1, 0x1.819d0b7158a4dp-1, 0x1.921fb54442d18p-1}
inline constexpr double kAtanTable[17] = EXACTVMAF_CIEDE_ATAN_TABLE;
#if defined(__CUDACC__)
static __device__ const double kAtanTableDevice[17] = EXACTVMAF_CIEDE_ATAN_TABLE;
#endif
// The Sf64 variant reads the entries' bits as integers (no fp64 load).
template <class T>
EXACTVMAF_HD_INLINE T atan_table(int j) {
#if EXACTVMAF_DEVICE_CODE
  const double* table = kAtanTableDevice;
#else
  const double* table = kAtanTable;
#endif
  if constexpr (std::is_same_v<T, Sf64>)
    return Sf64::from_bits(reinterpret_cast<const std::uint64_t*>(table)[j]);
  else
    return table[j];
}

// atan2(y, x) for finite non-zero x and y with min(|x|,|y|) / max(...) >=
// 2^-500: absolute error below 2^-49.5. q = min / max (rounded), j =
// nearest of 16 q, c = j / 16: atan(q) = atan(c) + atan(t) with t = (q - c)
// / (1 + q c), |t| <= 1/32; q - c is exact (Sterbenz), t carries < 2^-51.9
// (q's rounding through |dt/dq| <= 2, and three more roundings); atan(t) by
// its series through t^11 (truncation < 2^-68); the table entry < 2^-53.3,
// the sum < 2^-53.3: atan(q) within 2^-51. Then pi/2 - a and pi - a (the
// constants within 2^-53.6 and 2^-52.6, the roundings 2^-52.3 and 2^-51.35):
// below 2^-49.5 on [-pi, pi].
template <class T>
EXACTVMAF_HD_INLINE T atan2_approx(T y, T x) {
  constexpr double kPio2 = 0x1.921fb54442d18p+0, kPiD = 0x1.921fb54442d18p+1;
  const T ay = y < 0.0 ? -y : y, ax = x < 0.0 ? -x : x;
  const bool swap = ay > ax;
  const T q = swap ? ax / ay : ay / ax;
  const int j = i32_of(q * 16.0 + 0.5);
  const T c = T(j) * 0.0625;
  const T t = (q - c) / (1.0 + q * c);
  const T t2 = t * t;
  const T at = t * (1.0 + t2 * (-1.0 / 3.0 + t2 * (1.0 / 5.0 + t2 * (-1.0 / 7.0 + t2 * (1.0 / 9.0 + t2 * (-1.0 / 11.0))))));
  T a = atan_table<T>(j) + at;
  if (swap) a = kPio2 - a;
  if (x < 0.0) a = kPiD - a;
  return y < 0.0 ? -a : a;
}

// f(atan2(y, x)) as R computes it. A zero argument (one of them) has C's
// exact values: atan2(+-0, x > 0) = +-0, atan2(+-0, x < 0) = +-RN(pi),
// atan2(y != 0, +-0) = +-RN(pi)/2 with y's sign.
template <class M>
EXACTVMAF_HD_INLINE float atan2_to_float(real_of<M> y, real_of<M> x, M& m) {
  using T = real_of<M>;
  if constexpr (kIsPair<T>) {
    // The formula passes floats (b and a'): the same rules on their values.
    const bool exact = y.lo == 0.0f && y.err == 0.0f && x.lo == 0.0f && x.err == 0.0f;
    const float yf = y.hi, xf = x.hi;
    if (exact && yf != 0.0f && xf != 0.0f) return m.f32(rmath::atan2_pair(yf, xf));
    if (exact && (yf == 0.0f) != (xf == 0.0f)) {
      const bool y_neg = (rmath::sf64_detail::float_bits(yf) >> 31) != 0;
      if (xf == 0.0f) return y_neg ? -kPiOver2F : kPiOver2F;
      if (xf > 0.0f) return yf;
      return y_neg ? -kPiF : kPiF;
    }
    return m.f32(m.atan2_f64(y, x));
  } else {
    const T ay = y < 0.0 ? -y : y, ax = x < 0.0 ? -x : x;
    if (M::kShortcuts && ay > 0.0 && ax > 0.0 && ay < 0x1p500 && ax < 0x1p500 && ay > 0x1p-500 && ax > 0x1p-500) {
      const T v = atan2_approx(y, x);
      float out = 0.0f;
      if (rmath::detail::round_to_float(v, T(0.0), T(0x1p-46), &out)) return out;
    }
    if (M::kShortcuts && (ay == 0.0) != (ax == 0.0) && ay < 0x1p1000 && ax < 0x1p1000) {
      const bool y_neg = (rmath::u64_of(y) >> 63) != 0;
      if (ax == 0.0) return y_neg ? -f32_of(T(kPiOver2)) : f32_of(T(kPiOver2));
      if (x > 0.0) return f32_of(y);
      return y_neg ? -f32_of(T(kPi)) : f32_of(T(kPi));
    }
    return f32_of(m.atan2_f64(y, x));
  }
}

// f(a * sin(x)) as R computes it (a a double, the sine R's). With the
// approximation, |v - v_R| < |v| (2^-49.3 + 2 * 2^-53) < |v| 2^-49; the test
// uses 2^-46. Zero products go to R's path (their sign is R's business).
// A zero a or x gives the signed zero a * x (sin(+-0) = +-0, and sin(x) has
// x's sign on [-1.6, 1.6]).
template <class M>
EXACTVMAF_HD_INLINE float mul_sin_to_float(real_of<M> a, real_of<M> x, M& m) {
  using T = real_of<M>;
  if constexpr (kIsPair<T>) {
    // x is a float here (dh'/2 or the radians): R's sin(x) is x itself for
    // |x| < 2^-26 (|sin x - x| <= |x|^3/6 < 2^-54.5 |x|, under half an ulp),
    // else sin_pair's. a and small x are scaled by powers of two (exactly)
    // so that the product stays in the pairs' range; f32_scaled decides the
    // float of the unscaled product, subnormal ones included.
    const float xf = x.hi, ax = xf < 0.0f ? -xf : xf;
    if (x.lo == 0.0f && x.err == 0.0f && ax <= 1.6f) {
      if (xf == 0.0f || (a.hi == 0.0f && a.lo == 0.0f && a.err == 0.0f)) return a.hi * xf;  // a zero (sign: PairMath)
      const float aa = a.hi < 0.0f ? -a.hi : a.hi;
      const int ka = aa < 0x1p-40f ? 64 : 0;
      const T as = rmath::scale_pair(a, ka);
      if (ax < 0x1p-26f) return m.f32_scaled(as * T(rmath::pair_detail::scale_f32(xf, 100)), -(ka + 100));
      return m.f32_scaled(as * rmath::sin_pair(x), -ka);
    }
    return m.f32(a * m.sin_f64(x));
  } else {
    if (M::kShortcuts && x >= -1.6 && x <= 1.6) {
      if ((a == 0.0 || x == 0.0) && a < 0x1p1000 && a > -0x1p1000) return f32_of(a * x);
      const T v = a * sin_approx(x);
      const T av = v < 0.0 ? -v : v;
      float out = 0.0f;
      if (av > 0x1p-900 && av < 0x1p100 && rmath::detail::round_to_float(v, T(0.0), av * 0x1p-46, &out)) return out;
    }
    return f32_of(a * m.sin_f64(x));
  }
}

// f(60.0 * exp(x)) as R computes it, for x = -degrees^2.
template <class M>
EXACTVMAF_HD_INLINE float sixty_exp_to_float(real_of<M> x, M& m) {
  using T = real_of<M>;
  if constexpr (kIsPair<T>) {
    // exp_pair gives m 2^e; 60 m (R's product, its rounding in the bound) is
    // decided at that scale, down to zero and subnormal floats (x reaches
    // about -121 here).
    if (x.lo == 0.0f && x.err == 0.0f && x.hi >= -700.0f && x.hi <= 0.0f) {
      const rmath::ScaledPair e = rmath::exp_pair(x);
      return m.f32_scaled(T(60.0f) * e.m, e.e);
    }
    return m.f32(60.0 * m.exp_f64(x));
  } else {
    if (M::kShortcuts && x >= -700.0 && x <= 0.0) {
      const T v = 60.0 * exp_approx(x);  // |v - v_R| < v (2^-50.5 + 2 * 2^-53) < v 2^-49.5
      float out = 0.0f;
      if (rmath::detail::round_to_float(v, T(0.0), v * 0x1p-46, &out)) return out;
    }
    return f32_of(60.0 * m.exp_f64(x));
  }
}

// ---- YUV -> Lab -------------------------------------------------------------

struct Lab {
  float l, a, b;
};

// Offsets and scales of get_lab_color for a bit depth (scale = 1 << (bpc - 8)).
template <class T>
struct LabScaleOf {
  T y_offset, c_offset;  // 16 * scale, 128 * scale
  T y_mul, c_mul;        // 1. / (219. * scale), 1. / (224. * scale)
};
using LabScale = LabScaleOf<double>;

template <class T = double>
EXACTVMAF_HD_INLINE LabScaleOf<T> lab_scale(unsigned bpc) {
  const T scale = T(1u << (bpc - 8));
  return {16. * scale, 128. * scale, 1. / (219. * scale), 1. / (224. * scale)};
}

// c > k for R's double c and a constant k (on pairs: decided by the bound,
// else the pixel is undecided).
template <class T, class M>
EXACTVMAF_HD_INLINE bool greater_than(const T& c, double k, M& m) {
  if constexpr (kIsPair<T>)
    return m.greater(c, k);
  else
    return c > k;
}

// R's LabScale as pairs: the doubles computed exactly in Sf64 and split
// (each within 2^-49 of R's; a pair quotient would carry 2^-43, which every
// Lab value would inherit).
EXACTVMAF_HD_INLINE LabScaleOf<rmath::PairF64> lab_scale_pairs(unsigned bpc) {
  const LabScaleOf<Sf64> s = lab_scale<Sf64>(bpc);
  using rmath::PairF64;
  return {PairF64::of_f64_bits(s.y_offset.bits), PairF64::of_f64_bits(s.c_offset.bits),
          PairF64::of_f64_bits(s.y_mul.bits), PairF64::of_f64_bits(s.c_mul.bits)};
}

template <class T, class M>
EXACTVMAF_HD_INLINE T rgb_to_xyz_map(T c, M& m) {
  constexpr double kThreshold = 10. / 255.;
  if (greater_than(c, kThreshold, m)) {
    constexpr double A = 0.055;
    constexpr double D = 1.0 / 1.055;
    return m.pow_f64((c + A) * D, T(2.4));
  }
  constexpr double D = 1.0 / 12.92;
  return c * D;
}

template <class T, class M>
EXACTVMAF_HD_INLINE float xyz_to_lab_map(T c, M& m) {
  constexpr double kKappa = 24389.0 / 27.0;
  constexpr double kEpsilon = 216.0 / 24389.0;
  if (greater_than(c, kEpsilon, m)) return m.f32(m.pow_f64(c, T(1.0 / 3.0)));
  return m.f32((kKappa * c + 16.0) * (1.0 / 116.0));
}

// L, a, b from the three floats of xyz_to_lab_map, as R computes them.
template <class M>
EXACTVMAF_HD_INLINE Lab lab_of(float fx, float fy, float fz, M& m) {
  return {float_store(m, [](auto ly) { return (116.0 * ly) - 16.0; }, fy),
          float_store(m, [](auto lx, auto ly) { return 500.0 * (lx - ly); }, fx, fy),
          float_store(m, [](auto ly, auto lz) { return 200.0 * (ly - lz); }, fy, fz)};
}

// get_lab_color with integer samples (upstream converts them to float and
// then to double: both exact), with R's functions for every call.
template <class M>
EXACTVMAF_HD_INLINE Lab lab_from_yuv_r(unsigned y_sample, unsigned u_sample, unsigned v_sample,
                                       const LabScaleOf<real_of<M>>& s, M& m) {
  using T = real_of<M>;
  const T y = (T(y_sample) - s.y_offset) * s.y_mul;
  const T u = (T(u_sample) - s.c_offset) * s.c_mul;
  const T v = (T(v_sample) - s.c_offset) * s.c_mul;

  T r = y + 1.28033 * v;
  T g = y - 0.21482 * u - 0.38059 * v;
  T b = y + 2.12798 * u;
  r = rgb_to_xyz_map(r, m);
  g = rgb_to_xyz_map(g, m);
  b = rgb_to_xyz_map(b, m);

  const T x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
  const T yy = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
  const T z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;

  const float lx = xyz_to_lab_map(x * (1.0 / 0.95047), m);
  const float ly = xyz_to_lab_map(yy, m);
  const float lz = xyz_to_lab_map(z * (1.0 / 1.08883), m);
  return lab_of(lx, ly, lz, m);
}

// The same with pow_approx and error bounds carried to the three float
// stores of xyz_to_lab_map; false when a bound does not decide a float (or
// the epsilon branch), and then R's functions decide. L, a, b are computed
// from those floats exactly as R does.
//   - linearisation: pow((c + A) D, 2.4) for (c + A) D in (0.089, 2.3)
//     (every bit depth): ln in (-2.42, 0.84), t in (-5.8, 2.0), relative
//     error < 2.4 (2^-51.6 + 2^-53 2.42) + 2^-53 5.8 + 2^-50.5 < 2^-48.3;
//     with R's own rounding each linear value is within 2^-48.2 |value| of
//     R's, taken as 2^-47 (the c D branch is R's double exactly);
//   - XYZ: both chains round 3 products and 2 sums (each < 2^-53 of its
//     magnitude, all below S = sum |a_i value_i|): |x - x_R| < sum a_i err_i
//     + 6 * 2^-53 S; the scale by 1/0.95047 or 1/1.08883 adds 2^-52 |x|;
//   - epsilon branch: decided when |x - epsilon| exceeds the bound;
//   - cube root: pow(x, 1/3) for x in (epsilon, 8): ln in (-4.73, 2.08),
//     relative error < (2^-51.6 + 2^-53 4.73) / 3 + 2^-53 1.58 + 2^-50.5 <
//     2^-49.7, taken as 2^-49, plus one third of x's relative error plus R's
//     rounding 2^-53;
//     linear branch (kappa x + 16) / 116: kappa/116 times x's error plus both
//     chains' 3 roundings;
//   - each float is decided with 4 times the bound (round_to_float).
namespace lab_shortcut {
inline constexpr double kKappa = 24389.0 / 27.0, kEpsilon = 216.0 / 24389.0;

// One linear RGB value and its bound against R's.
template <class T>
EXACTVMAF_HD_INLINE T linear(T c, T* err) {
  constexpr double kThreshold = 10. / 255.;
  if (c > kThreshold) {
    constexpr double A = 0.055;
    constexpr double D = 1.0 / 1.055;
    const T v = pow_approx((c + A) * D, 2.4);
    *err = v * 0x1p-47;
    return v;
  }
  constexpr double D = 1.0 / 12.92;
  *err = T(0.0);
  return c * D;
}

// xyz_to_lab_map's float for an argument within err of R's.
template <class T>
EXACTVMAF_HD_INLINE bool lab_map(T c, T err, float* out) {
  const T lo = c - err, hi = c + err;
  if (lo > kEpsilon) {
    if (c > 8.0) return false;
    const T v = pow_approx(c, 1.0 / 3.0);
    const T rel = (err / c) * (1.0 / 3.0) * 1.01 + 0x1p-49 + 0x1p-53;
    return rmath::detail::round_to_float(v, T(0.0), 4.0 * v * rel, out);
  }
  if (hi <= kEpsilon) {
    const T v = (kKappa * c + 16.0) * (1.0 / 116.0);
    const T mag = (kKappa * (c < 0.0 ? -c : c) + 16.0) * (1.0 / 116.0);
    const T e = (kKappa / 116.0) * err * 1.01 + 6.0 * 0x1p-53 * mag * 1.01;
    return rmath::detail::round_to_float(v, T(0.0), 4.0 * e + 0x1p-1000, out);
  }
  return false;
}
}  // namespace lab_shortcut

template <class T>
EXACTVMAF_HD_INLINE bool lab_from_yuv_shortcut(unsigned y_sample, unsigned u_sample, unsigned v_sample,
                                               const LabScaleOf<T>& s, Lab* out) {
  const T y = (T(y_sample) - s.y_offset) * s.y_mul;
  const T u = (T(u_sample) - s.c_offset) * s.c_mul;
  const T v = (T(v_sample) - s.c_offset) * s.c_mul;
  const T rc = y + 1.28033 * v;
  const T gc = y - 0.21482 * u - 0.38059 * v;
  const T bc = y + 2.12798 * u;
  T er{}, eg{}, eb{};
  const T r = lab_shortcut::linear(rc, &er);
  const T g = lab_shortcut::linear(gc, &eg);
  const T b = lab_shortcut::linear(bc, &eb);
  const T ar = r < 0.0 ? -r : r, ag = g < 0.0 ? -g : g, ab = b < 0.0 ? -b : b;

  const T x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
  const T yy = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
  const T z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;
  const T ex = 0.4124564390896921 * er + 0.357576077643909 * eg + 0.18043748326639894 * eb +
                    6.0 * 0x1p-53 * (0.4124564390896921 * ar + 0.357576077643909 * ag + 0.18043748326639894 * ab);
  const T ey = 0.21267285140562248 * er + 0.715152155287818 * eg + 0.07217499330655958 * eb +
                    6.0 * 0x1p-53 * (0.21267285140562248 * ar + 0.715152155287818 * ag + 0.07217499330655958 * ab);
  const T ez = 0.019333895582329317 * er + 0.119192025881303 * eg + 0.9503040785363677 * eb +
                    6.0 * 0x1p-53 * (0.019333895582329317 * ar + 0.119192025881303 * ag + 0.9503040785363677 * ab);
  const T xs = x * (1.0 / 0.95047), zs = z * (1.0 / 1.08883);
  const T axs = xs < 0.0 ? -xs : xs, azs = zs < 0.0 ? -zs : zs;
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  if (!lab_shortcut::lab_map(xs, (ex * (1.0 / 0.95047) + 0x1p-52 * axs) * 1.01, &fx)) return false;
  if (!lab_shortcut::lab_map(yy, ey * 1.01, &fy)) return false;
  if (!lab_shortcut::lab_map(zs, (ez * (1.0 / 1.08883) + 0x1p-52 * azs) * 1.01, &fz)) return false;
  const T lx = T(fx), ly = T(fy), lz = T(fz);
  *out = {f32_of((116.0 * ly) - 16.0), f32_of(500.0 * (lx - ly)), f32_of(200.0 * (ly - lz))};
  return true;
}

template <class M>
EXACTVMAF_HD_INLINE Lab lab_from_yuv(unsigned y_sample, unsigned u_sample, unsigned v_sample,
                                     const LabScaleOf<real_of<M>>& s, M& m) {
  if constexpr (M::kShortcuts && !kIsPair<real_of<M>>) {  // pairs: R's statements, pair pow
    Lab lab{};
    if (lab_from_yuv_shortcut(y_sample, u_sample, v_sample, s, &lab)) return lab;
  }
  return lab_from_yuv_r(y_sample, u_sample, v_sample, s, m);
}

// Index of an 8-bit colour in the Lab tables (host and device): blocks of
// 16 luma x 4 x 4 chroma values, 256 entries = one 4 KiB page of the host
// table. A clip's colours cluster, so it touches fewer pages than with a
// plain (y, u, v) order: 74 MB against 138-153 MB on the 1080p bench clip.
EXACTVMAF_HD_INLINE std::uint32_t colour_index8(unsigned y, unsigned u, unsigned v) {
  return ((y >> 4) << 20) | ((u >> 2) << 14) | ((v >> 2) << 8) | ((y & 15u) << 4) | ((u & 3u) << 2) | (v & 3u);
}
// The colour of an index (the inverse of colour_index8).
EXACTVMAF_HD_INLINE void colour_of_index8(std::uint32_t i, unsigned* y, unsigned* u, unsigned* v) {
  *y = ((i >> 20) << 4) | ((i >> 4) & 15u);
  *u = (((i >> 14) & 63u) << 2) | ((i >> 2) & 3u);
  *v = (((i >> 8) & 63u) << 2) | (i & 3u);
}
inline constexpr std::uint32_t kColours8 = 1u << 24;

// ---- CIEDE2000 --------------------------------------------------------------

// Comparisons of a float with 0 or with M_PI are written on the float
// (exactly C's double comparison: kPiFloorF), so that no policy needs a
// double comparison.
template <class M>
EXACTVMAF_HD_INLINE float h_prime(float x, float y, M& m) {
  using T = real_of<M>;
  if (x == 0.0f && y == 0.0f) return 0.0f;
  float hue_angle = atan2_to_float(T(x), T(y), m);
  if (hue_angle < 0.0f) hue_angle = float_store(m, [](auto h) { return h + kTwoPi; }, hue_angle);
  return hue_angle;
}

template <class M>
EXACTVMAF_HD_INLINE float delta_h_prime(float c1, float c2, float h_prime_1, float h_prime_2, M& m) {
  if (c1 == 0.0f || c2 == 0.0f) return 0.0f;
  const float diff = h_prime_2 - h_prime_1;
  const float abs_diff = h_prime_1 - h_prime_2 < 0.0f ? -(h_prime_1 - h_prime_2) : h_prime_1 - h_prime_2;  // fabsf
  if (abs_diff <= kPiFloorF) return diff;
  if (h_prime_2 <= h_prime_1) return float_store(m, [](auto d) { return d + kTwoPi; }, diff);
  return float_store(m, [](auto d) { return d - kTwoPi; }, diff);
}

template <class M>
EXACTVMAF_HD_INLINE float upcase_h_bar_prime(float h_prime_1, float h_prime_2, M& m) {
  const float diff = h_prime_1 - h_prime_2;  // float difference, then fabs in double
  const float abs_diff = diff < 0.0f ? -diff : diff;
  const float sum = h_prime_1 + h_prime_2;  // float (left operands first)
  return abs_diff > kPiFloorF ? float_store(m, [](auto x) { return (x + kTwoPi) / 2.0; }, sum)
                               : float_store(m, [](auto x) { return x / 2.0; }, sum);
}

// T with R's correctly rounded cosines.
template <class M>
EXACTVMAF_HD_INLINE float upcase_t_r(float h_bar, M& m) {
  using T = real_of<M>;
  const T h = T(h_bar);
  return m.f32(1.0 - 0.17 * m.cos_f64(h - kPiOver6) + 0.24 * m.cos_f64(2.0 * h) +
           0.32 * m.cos_f64(3.0 * h + kPiOver30) - 0.20 * m.cos_f64(4.0 * h - kSevenPiOver20));
}

// T: the expression evaluated with cos_approx first. R's value v_R and this
// v differ by less than 0.93 * 2^-50 (the cosines, weights 0.17 + 0.24 +
// 0.32 + 0.20) plus both chains' eight roundings (< 2^-48.4): below 2^-48.
// With that bound widened to 2^-44, round_to_float decides the float that
// every value within it rounds to, which is R's; otherwise (about 2^-17 of
// the calls) R's cosines decide.
template <class M>
EXACTVMAF_HD_INLINE float upcase_t(float h_bar, M& m) {
  using T = real_of<M>;
  const T h = T(h_bar);
  if constexpr (kIsPair<T>) {
    // The same sum on pairs: cos_pair's bounds cover R's cosines of R's
    // arguments, and the pairs' own bounds R's eight roundings.
    if (h_bar >= 0.0f && h_bar < 12.0f)
      return m.f32(1.0 - 0.17 * rmath::cos_pair(h - kPiOver6) + 0.24 * rmath::cos_pair(2.0 * h) +
                   0.32 * rmath::cos_pair(3.0 * h + kPiOver30) - 0.20 * rmath::cos_pair(4.0 * h - kSevenPiOver20));
    return upcase_t_r(h_bar, m);
  } else {
    if (M::kShortcuts && h_bar >= 0.0f && h_bar < 12.0f) {  // h_bar is in [0, 3 pi): arguments below 64
      const T v = 1.0 - 0.17 * cos_approx(h - kPiOver6) + 0.24 * cos_approx(2.0 * h) +
                       0.32 * cos_approx(3.0 * h + kPiOver30) - 0.20 * cos_approx(4.0 * h - kSevenPiOver20);
      float t = 0.0f;
      if (rmath::detail::round_to_float(v, T(0.0), T(0x1p-44), &t)) return t;
    }
    return upcase_t_r(h_bar, m);
  }
}

// (float)((double)x * c) for a positive double constant c. On pairs a small
// x (the radians of a tiny angle) is scaled by 2^100 first (exactly), and
// the float is decided at the scale, subnormal ones included.
template <class M>
EXACTVMAF_HD_INLINE float mul_pos_const_to_float(float x, double c, M& m) {
  using T = real_of<M>;
  if constexpr (kIsPair<T>) {
    if (x == 0.0f) return x;  // (+-0) c = +-0
    const float ax = x < 0.0f ? -x : x;
    const int k = ax < 0x1p-60f ? 100 : 0;
    return m.f32_scaled(T(rmath::pair_detail::scale_f32(x, k)) * c, -k);
  } else {
    return m.f32(T(x) * c);
  }
}

template <class M>
EXACTVMAF_HD_INLINE float radians_to_degrees(float radians, M& m) {
  return mul_pos_const_to_float(radians, kRadToDeg, m);
}
template <class M>
EXACTVMAF_HD_INLINE float degrees_to_radians(float degrees, M& m) {
  return mul_pos_const_to_float(degrees, kDegToRad, m);
}

template <class M>
EXACTVMAF_HD_INLINE float r_sub_t(float c_bar_prime, float h_bar, M& m) {
  using T = real_of<M>;
  const float degrees = float_store(m, [](auto deg) { return (deg - 275.0) * (1.0 / 25.0); }, radians_to_degrees(h_bar, m));
  const float c7 = powf7_f32(c_bar_prime, m);
  const float ratio = c7 / (c7 + kPowf25_7);  // upstream evaluates c^7 twice: same value
  const float degrees_sq = degrees * degrees;  // upstream squares with a float power; gcc emits this product
  const float angle_deg = sixty_exp_to_float(T(-degrees_sq), m);  // degrees_to_radians takes a float
  return mul_sin_to_float(-2.0 * sqrt_of(T(ratio)), T(degrees_to_radians(angle_deg, m)), m);
}

// G = 1 - sqrt(c_bar^7 / (c_bar^7 + 25^7)) in R's doubles. On pairs, for a
// small c_bar (near-neutral colours, common):
//   - c_bar < 2^-11: R's c7 < 2^-77, its quotient < 2^-109 and root <
//     2^-54.5, and 1 - s rounds to 1 (the double below 1 is 1 - 2^-53): G = 1;
//   - c_bar < 2^-4: c7 < 2^-28 is below half an ulp of 25^7 (2^-21), so R's
//     denominator is 25^7 exactly; c7 is taken as (2^16 c_bar)^7 (2^112
//     times R's, with R's rounding in the bound), the quotient and root at
//     that scale (R's roundings commute with it: no double underflows), and
//     the root scaled back by 2^-56.
template <class M>
EXACTVMAF_HD_INLINE real_of<M> g_factor(float c_bar, M& m) {
  using T = real_of<M>;
  if constexpr (kIsPair<T>) {
    if (c_bar >= 0.0f && c_bar < 0x1p-11f) return T(1.0f);
    if (c_bar >= 0.0f && c_bar < 0x1p-4f) {
      T c7s = pow7_pair(c_bar * 0x1p16f);
      c7s.err = rmath::pair_detail::bound_finish(c7s.err + rmath::pair_detail::bound_mul(0x1p-53f, c7s.hi));
      const T s = rmath::scale_pair(sqrt_of(c7s / T(kPow25_7)), -56);
      if (s.hi < 0x1p-40f) {
        // R's 1 - s is 1 - k 2^-53 with k = round(s 2^53) (the doubles
        // below 1 are 2^-53 apart; a tie takes the even k): held exactly, so
        // that a' = a + (a/2) G, which is then within 2^-41 of the midpoint
        // 1.5 a, can be decided (a_prime).
        float k = 0.0f;
        if (!m.nearest_integer(rmath::scale_pair(s, 53), &k)) return T(1.0f);
        return T{1.0f, -k * 0x1p-53f, 0.0f};
      }
      return 1.0 - s;
    }
  }
  const T c_bar7 = pow7_f64(c_bar, m);
  return 1.0 - sqrt_of(c_bar7 / (c_bar7 + kPow25_7));
}

// a' = (float)(a + (a / 2) G). On pairs, G exactly 1 - k 2^-53 with a small
// k (g_factor) puts R's value within 2^-41 of the midpoint 1.5 a, where R's
// own roundings of the product and the sum decide the float: those two
// operations in Sf64 (exact), as R performs them.
template <class M>
EXACTVMAF_HD_INLINE float a_prime(float a, const real_of<M>& g, M& m) {
  using T = real_of<M>;
  if constexpr (kIsPair<T>) {
    if (g.err == 0.0f && g.hi == 1.0f && g.lo < 0.0f)
      return f32_of(Sf64(a) + Sf64(a / 2.0f) * (Sf64(1.0f) + Sf64(g.lo)));  // 1 - k 2^-53: exact in Sf64
  }
  return m.f32(T(a) + T(a / 2.0f) * g);
}

// KSubArgs { 0.65, 1.0, 4.0 } as floats.
inline constexpr float kKL = 0.65f, kKC = 1.0f, kKH = 4.0f;

template <class M>
EXACTVMAF_HD_INLINE float ciede2000(const Lab& c1_lab, const Lab& c2_lab, M& m) {
  using T = real_of<M>;
  const float delta_l_prime = c2_lab.l - c1_lab.l;
  const float l_bar = (c1_lab.l + c2_lab.l) / 2.0f;
  auto chroma_of = [](auto a, auto b) { return sqrt_of(a * a + b * b); };
  const float c1 = float_store(m, chroma_of, c1_lab.a, c1_lab.b);
  const float c2 = float_store(m, chroma_of, c2_lab.a, c2_lab.b);
  const float c_bar = (c1 + c2) / 2.0f;
  const T g = g_factor(c_bar, m);
  const float a_prime_1 = a_prime(c1_lab.a, g, m);
  const float a_prime_2 = a_prime(c2_lab.a, g, m);
  const float c_prime_1 = float_store(m, chroma_of, a_prime_1, c1_lab.b);
  const float c_prime_2 = float_store(m, chroma_of, a_prime_2, c2_lab.b);
  const float c_bar_prime = (c_prime_1 + c_prime_2) / 2.0f;
  const float delta_c_prime = c_prime_2 - c_prime_1;
  const float s_sub_l = float_store(
      m,
      [](auto l_off) {
        const auto l_off_sq = l_off * l_off;
        return 1. + ((0.015 * l_off_sq) / sqrt_of(20.0 + l_off_sq));
      },
      l_bar - 50.0f);
  const float s_sub_c = float_store(m, [](auto c) { return 1. + 0.045 * c; }, c_bar_prime);
  const float h_prime_1 = h_prime(c1_lab.b, a_prime_1, m);
  const float h_prime_2 = h_prime(c2_lab.b, a_prime_2, m);
  const float dh_prime = delta_h_prime(c1, c2, h_prime_1, h_prime_2, m);
  const float delta_upcase_h_prime = mul_sin_to_float(2.0 * sqrt_of(T(c_prime_1 * c_prime_2)), T(dh_prime) / 2.0, m);
  const float h_bar = upcase_h_bar_prime(h_prime_1, h_prime_2, m);
  const float t = upcase_t(h_bar, m);
  const float s_sub_upcase_h = float_store(m, [](auto c, auto tt) { return 1.0 + 0.015 * c * tt; }, c_bar_prime, t);
  const float rt = r_sub_t(c_bar_prime, h_bar, m);
  const float lightness = delta_l_prime / (kKL * s_sub_l);
  const float chroma = delta_c_prime / (kKC * s_sub_c);
  const float hue = delta_upcase_h_prime / (kKH * s_sub_upcase_h);
  return float_store(
      m, [](auto l, auto c, auto h, auto rch) { return sqrt_of(l * l + c * c + h * h + rch); }, lightness, chroma, hue,
      rt * chroma * hue);
}

// The fp64-free variant's ΔE00 of two Labs (device, and the CPU's
// emulation of it): fp32 pairs first, the pixel replayed in Sf64 where the
// pairs leave a store undecided (arith counts both); false where Sf64 cannot
// decide either (the caller then takes R's value on the host). The Sf64
// formula is one out-of-line copy, so the kernel's registers serve the pairs.
EXACTVMAF_HD_OUTLINE float ciede2000_sf64(const Lab& c1, const Lab& c2, bool* undecided) {
  Sf64Math m;
  const float v = ciede2000(c1, c2, m);
  *undecided = m.undecided;
  return v;
}

// on_pairs(PairMath&) first; where it is undecided, on_sf64(bool*
// undecided), the same R value in Sf64. False where Sf64 cannot decide.
template <class Out, class OnPairs, class OnSf64>
EXACTVMAF_HD_INLINE bool pairs_then_sf64(rmath::Fp32PairArith& arith, Out* out, OnPairs&& on_pairs, OnSf64&& on_sf64) {
  ++arith.islands;
  PairMath pm;
  *out = on_pairs(pm);
  if (!pm.undecided) return true;
  ++arith.replays;
  bool undecided = false;
  *out = on_sf64(&undecided);
  return !undecided;
}

EXACTVMAF_HD_INLINE bool delta_e_fp64_free(const Lab& c1, const Lab& c2, rmath::Fp32PairArith& arith, float* out) {
  return pairs_then_sf64(
      arith, out, [&](PairMath& pm) { return ciede2000(c1, c2, pm); },
      [&](bool* undecided) { return ciede2000_sf64(c1, c2, undecided); });
}

// The fp64-free variant's Lab of a colour: R's statements on fp32 pairs
// first (pow on pairs, the branches and float stores decided by the
// bounds), Sf64 where they cannot decide; false where Sf64 cannot either
// (the caller then takes R's Lab on the host). arith counts both.
EXACTVMAF_HD_OUTLINE Lab lab_sf64(unsigned y, unsigned u, unsigned v, unsigned bpc, bool* undecided) {
  Sf64Math m;
  const Lab lab = lab_from_yuv(y, u, v, lab_scale<Sf64>(bpc), m);
  *undecided = m.undecided;
  return lab;
}

EXACTVMAF_HD_INLINE bool lab_fp64_free(unsigned y, unsigned u, unsigned v, const LabScaleOf<rmath::PairF64>& s,
                                       unsigned bpc, rmath::Fp32PairArith& arith, Lab* out) {
  return pairs_then_sf64(
      arith, out, [&](PairMath& pm) { return lab_from_yuv_r(y, u, v, s, pm); },
      [&](bool* undecided) { return lab_sf64(y, u, v, bpc, undecided); });
}

// One pixel pair from its samples. Equal samples give exactly +0 without
// evaluating anything (docs/features/ciede.md: every difference in the
// formula is then +0 and every divisor >= 1).
template <class M>
EXACTVMAF_HD_INLINE float pixel_delta_e(unsigned ry, unsigned ru, unsigned rv, unsigned dy, unsigned du, unsigned dv,
                                        const LabScaleOf<real_of<M>>& s, M& m) {
  if (ry == dy && ru == du && rv == dv) return 0.0f;
  return ciede2000(lab_from_yuv(ry, ru, rv, s, m), lab_from_yuv(dy, du, dv, s, m), m);
}

// The frame value from the (exactly summed, once rounded) per-pixel floats:
// 45. - 20. * log10(sum / (w * h)), w * h an unsigned product as upstream.
// Identical frames: log10(0) = -inf, so +inf.
inline double frame_score(double de00_sum, unsigned w, unsigned h) {
  return 45. - 20. * rmath::cr_log10(de00_sum / static_cast<double>(w * h));
}

}  // namespace exactvmaf::ciede
