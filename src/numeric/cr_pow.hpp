// Correctly rounded power functions (docs/design.md §2, R1; method and bound in
// docs/rmath.md): cr_pow on doubles (upstream's pow, including
// pow(c, 1.0 / 3.0) with the double nearest 1/3) and cr_powf on floats.
// Special values follow C99 Annex F.9.4.4.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cr_exp.hpp"
#include "cr_log.hpp"
#include "cr_round.hpp"
#include "dd.hpp"
#include "hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

namespace detail {

enum class IntClass { kNotInteger, kOdd, kEven };

// Finite nonzero y.
EXACTVMAF_HD_INLINE IntClass classify_integer(std::uint64_t b) {  // y's bits
  const int e = static_cast<int>((b >> 52) & 0x7ff) - 1023;
  if (e < 0) return IntClass::kNotInteger;
  if (e > 52) return IntClass::kEven;
  const std::uint64_t frac_mask = (std::uint64_t{1} << (52 - e)) - 1;
  if (b & frac_mask) return IntClass::kNotInteger;
  const std::uint64_t unit = std::uint64_t{1} << (52 - e);  // the bit of 2^0
  return (b & unit) ? IntClass::kOdd : IntClass::kEven;
}

// Special cases of pow common to both precisions, decided on doubles (a float
// argument is passed exactly). Returns true with *out set when x or y is
// zero, infinite or NaN, x == 1, or x < 0 with non-integer y. Otherwise sets
// *negative (x < 0 and y odd).
template <class T>
EXACTVMAF_HD_INLINE bool pow_special(T x, T y, T* out, bool* negative) {
  const std::uint64_t bx = u64_of(x);
  const std::uint64_t by = u64_of(y);
  const std::uint64_t ax = bx & 0x7fffffffffffffffULL;
  const std::uint64_t ay = by & 0x7fffffffffffffffULL;
  constexpr std::uint64_t kInf = 0x7ff0000000000000ULL;
  const T inf = of_u64<T>(kInf);
  const T one = of_u64<T>(0x3ff0000000000000ULL), zero = of_u64<T>(0), neg_zero = of_u64<T>(0x8000000000000000ULL);
  if (ay == 0 || bx == 0x3ff0000000000000ULL) {  // pow(x, +-0) = pow(+1, y) = 1, even for NaN
    *out = one;
    return true;
  }
  if (ax > kInf || ay > kInf) {
    *out = of_u64<T>(0x7ff8000000000000ULL);  // the one quiet NaN (payloads differ by machine)
    return true;
  }
  const bool x_neg = (bx >> 63) != 0;
  const bool y_neg = (by >> 63) != 0;
  if (ay == kInf) {
    if (ax == 0x3ff0000000000000ULL) {
      *out = one;  // pow(-1, +-inf) = 1
    } else {
      const bool x_small = ax < 0x3ff0000000000000ULL;
      *out = (x_small != y_neg) ? zero : inf;
    }
    return true;
  }
  const IntClass yc = classify_integer(by);
  const bool odd = yc == IntClass::kOdd;
  if (ax == 0) {  // +-0
    const bool neg = x_neg && odd;
    if (y_neg) {
      *out = neg ? -inf : inf;
    } else {
      *out = neg ? neg_zero : zero;
    }
    return true;
  }
  if (ax == kInf) {  // +-inf
    const bool neg = x_neg && odd;
    if (y_neg) {
      *out = neg ? neg_zero : zero;
    } else {
      *out = neg ? -inf : inf;
    }
    return true;
  }
  if (x_neg && yc == IntClass::kNotInteger) {
    *out = of_u64<T>(0x7ff8000000000000ULL);
    return true;
  }
  *negative = x_neg && odd;
  return false;
}

}  // namespace detail

// Fast path: true when decided (*out is the correctly rounded pow(x, y)).
// pow(x, y) = exp(y log|x|): log_dd (rel. 2^-99), t = y log|x| as a dd
// (rel. 2^-105.4), exp_dd (rel. 2^-99); |t| <= 746, so the result's relative
// error is below 1.03 * 2^-99 |t| + 2^-99 (the rounding test uses twice that).
EXACTVMAF_HD_INLINE bool cr_pow_fast(double x, double y, double* out) {
  bool negative = false;
  if (detail::pow_special(x, y, out, &negative)) return true;
  if (y == 1.0) {
    *out = x;
    return true;
  }
  if (y == 2.0) {  // one IEEE product: correctly rounded, subnormal and overflow included
    *out = x * x;
    return true;
  }
  if (y == -1.0) {  // one IEEE division
    *out = 1.0 / x;
    return true;
  }
  const double ax = x < 0.0 ? -x : x;
  const double inf = dd::double_from_bits(0x7ff0000000000000ULL);
  const double ay = y < 0.0 ? -y : y;
  if (ay >= 0x1p64) {  // |y log|x|| >= 2^64 * 2^-53 for any |x| != 1: over/underflow
    if (ax == 1.0) {
      *out = 1.0;  // x == -1, y even
    } else {
      *out = ((ax > 1.0) == (y > 0.0)) ? inf : 0.0;
    }
    return true;
  }
  const dd::DD l = detail::log_dd(ax);
  const dd::DD t = dd::mul(l, y);
  double r;
  if (t.hi > 710.0) {
    r = inf;
  } else if (t.hi < -746.0) {
    r = 0.0;
  } else {
    int q;
    const dd::DD m = detail::exp_dd(t.hi, t.lo, &q);
    const double abs_t = t.hi < 0.0 ? -t.hi : t.hi;
    const double err_rel = 2.0 * (detail::kLogRelErr * abs_t * 1.03 + detail::kExpRelErr);
    if (!detail::round_scaled_to_double(m.hi, m.lo, err_rel, q, &r)) return false;
  }
  *out = negative ? -r : r;
  return true;
}

namespace detail {

// floor(sqrt(m)) of an integer m < 2^62 (digit by digit, no libm).
EXACTVMAF_HD_INLINE std::uint64_t isqrt_u64(std::uint64_t m) {
  std::uint64_t r = 0, bit = 1ULL << 62;
  while (bit > m) bit >>= 2;
  while (bit != 0) {
    if (m >= r + bit) {
      m -= r + bit;
      r = (r >> 1) + bit;
    } else {
      r >>= 1;
    }
    bit >>= 2;
  }
  return r;
}

// The exact cases of powf (ax = |x| > 0 a float, y > 0): x^y is a float or a
// float midpoint only if it is a dyadic rational, i.e. y = n / 2^k and ax =
// s^(2^k) for a dyadic s; then x^y = s^n. A midpoint is what the rounding
// test cannot decide (ADM's p_norm 2.5 meets them on real frames), so these
// are rounded exactly here, like CORE-MATH's powf. Handles k <= 3, n <= 64
// and s^n's odd part below 2^63; false otherwise (then x^y is not a
// midpoint, or the caller's slow path decides).
template <class T>
EXACTVMAF_HD_INLINE bool powf_exact_case(T ax, T y, float* out) {
  int k = 0;
  T yk = y;
  while (k <= 3 && !(yk >= 1.0 && yk <= 64.0 && T(static_cast<std::int32_t>(i32_of(yk))) == yk)) {
    if (yk > 64.0) return false;
    yk = yk * 2.0;
    ++k;
  }
  if (k > 3) return false;
  const int n = i32_of(yk);
  const std::uint64_t b = u64_of(ax);  // a normal double (ax is a float)
  std::uint64_t m = (b & 0x000fffffffffffffULL) | 0x0010000000000000ULL;
  int e = static_cast<int>((b >> 52) & 0x7ffU) - 1075;
  while ((m & 1U) == 0) {
    m >>= 1;
    ++e;
  }
  for (int i = 0; i < k; ++i) {  // ax = m 2^e with m odd: a square iff m is and e is even
    const std::uint64_t r = isqrt_u64(m);
    if (r * r != m || (e & 1) != 0) return false;
    m = r;
    e /= 2;
  }
  std::uint64_t p = 1;
  for (int i = 0; i < n; ++i) {
    if (p > (~0ULL >> 1) / m) return false;
    p *= m;
  }
  const int pe = n * e;  // x^y = p 2^pe; |pe| stays far inside double's range here
  if (pe < -1000 || pe > 1000) return false;
  const T scale = of_u64<T>(static_cast<std::uint64_t>(pe + 1023) << 52);
  const dd::DDOf<T> v = dd::two_sum(T(static_cast<std::int64_t>(p & 0xffffffff00000000ULL)),
                                    T(static_cast<std::int64_t>(p & 0xffffffffULL)));
  *out = round_exact_to_float(v.hi * scale, v.lo * scale);
  return true;
}

// The double equal to a finite float, of type T (double: built from bits,
// so that a caller's denormals-are-zero mode cannot change it).
template <class T>
EXACTVMAF_HD_INLINE T exact_of_float(float x) {
  if constexpr (std::is_same_v<T, Sf64>)
    return Sf64(x);
  else
    return float_to_double_exact(x);
}

// powf: the same evaluation on the exact doubles of x and y, rounded once to
// float; undecided when the error interval holds a float midpoint (so double
// rounding cannot happen). T: double, or Sf64 (no fp64; the same bits).
template <class T>
EXACTVMAF_HD_INLINE bool powf_fast(float x, float y, float* out) {
  const T xd = exact_of_float<T>(x);
  const T yd = exact_of_float<T>(y);
  bool negative = false;
  T special{};
  if (pow_special(xd, yd, &special, &negative)) {
    // The special results are 0, 1, inf or NaN: exact in float.
    if (special != special) {
      *out = dd::float_from_bits(0x7fc00000U);  // the one quiet NaN
    } else {
      *out = f32_of(special);
    }
    return true;
  }
  if (yd == 1.0) {
    *out = x;
    return true;
  }
  if (yd == 2.0) {  // the double product of two floats is exact: one rounding
    *out = f32_of(xd * xd);
    return true;
  }
  // x^3 and x^4 are exact as a dd (x*x is exact in double; one exact
  // two_prod / two_sqr more), so they are rounded exactly, midpoints
  // included (ADM's default p_norm is 3; x^3 of a float with <= 9
  // significant bits can be a float midpoint).
  if (yd == 3.0) {
    const dd::DDOf<T> c = dd::two_prod(xd * xd, xd);
    *out = round_exact_to_float(c.hi, c.lo);
    return true;
  }
  if (yd == 4.0) {
    const dd::DDOf<T> c = dd::two_sqr(xd * xd);
    *out = round_exact_to_float(c.hi, c.lo);
    return true;
  }
  const T ax = xd < 0.0 ? -xd : xd;
  const float inf = dd::float_from_bits(0x7f800000U);
  const dd::DDOf<T> l = log_dd(ax);
  const dd::DDOf<T> t = dd::mul(l, yd);
  float r;
  if (t.hi > 89.0) {  // > log(2^128)
    r = inf;
  } else if (t.hi < -104.0) {  // < log(2^-150): rounds to 0
    r = 0.0f;
  } else {
    int q;
    const dd::DDOf<T> m = exp_dd(t.hi, t.lo, &q);
    const T abs_t = t.hi < 0.0 ? -t.hi : t.hi;
    const T err_rel = 2.0 * (kLogRelErr * abs_t * 1.03 + kExpRelErr);
    if (!round_scaled_to_float(m.hi, m.lo, err_rel, q, &r) && !(yd > 0.0 && powf_exact_case(ax, yd, &r)))
      return false;
  }
  *out = negative ? -r : r;
  return true;
}

}  // namespace detail

EXACTVMAF_HD_INLINE bool cr_powf_fast(float x, float y, float* out) { return detail::powf_fast<double>(x, y, out); }
// The same without fp64 (Sf64): the same decisions and bits.
EXACTVMAF_HD_INLINE bool cr_powf_fast_sf64(float x, float y, float* out) {
  return detail::powf_fast<Sf64>(x, y, out);
}

// Host functions: fast path, then MPFR for the undecided rest.
double cr_pow(double x, double y);
float cr_powf(float x, float y);

}  // namespace exactvmaf::rmath
