// Double-double ("dd") building blocks for R's correctly rounded functions,
// host and device (docs/design.md §2). A dd value is hi + lo with
// |lo| <= ulp(hi)/2 (normalised), i.e. about 106 bits.
//
// Conventions used in the error bounds below: u = 2^-53 (unit roundoff of
// binary64, round to nearest). Bounds assume no overflow and no underflow in
// the intermediate products (callers keep arguments in ranges where this
// holds; see each function). Everything here uses only +, -, *, / of IEEE
// binary64 in round-to-nearest: it compiles to the same operations on the CPU
// (-ffp-contract=off) and on the device (--fmad=false), so host and device
// return identical bits. The exact transforms (two_sum, fast_two_sum,
// two_prod) do not depend on FMA: two_prod uses Veltkamp/Dekker splitting,
// which is exact in round-to-nearest without FMA as long as |a|,|b| < 2^995
// and the product's error term is not below 2^-1022 (no underflow).
#pragma once

#include <cstdint>
#include <cstring>

#include "hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::dd {

// T is double, or numeric/sf64.hpp's Sf64 where a caller runs the same
// transforms without fp64 (bit for bit the same results).
template <class T>
struct DDOf {
  T hi;
  T lo;
};
using DD = DDOf<double>;

// ---------------------------------------------------------------- bit access
EXACTVMAF_HD_INLINE std::uint64_t bits_of(double x) {
#if EXACTVMAF_DEVICE_CODE
  // Not __double_as_longlong: in a large out-of-line function the inliner
  // can leave that one a call, whose double argument is an fp64 parameter
  // store in the fp64-free kernels (Sf64's constants).
  return __builtin_bit_cast(std::uint64_t, x);
#else
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

EXACTVMAF_HD_INLINE double double_from_bits(std::uint64_t u) {
#if EXACTVMAF_DEVICE_CODE
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

EXACTVMAF_HD_INLINE std::uint32_t bits_of(float x) {
#if EXACTVMAF_DEVICE_CODE
  return static_cast<std::uint32_t>(__float_as_uint(x));
#else
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

EXACTVMAF_HD_INLINE float float_from_bits(std::uint32_t u) {
#if EXACTVMAF_DEVICE_CODE
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

// 2^e for -1022 <= e <= 1023, built from bits (exact, no arithmetic).
EXACTVMAF_HD_INLINE double pow2i(int e) {
  return double_from_bits(static_cast<std::uint64_t>(e + 1023) << 52);
}

// ------------------------------------------------------- exact transforms
// s + e == a + b exactly, s = RN(a + b). (Knuth; 6 flops; any a, b finite,
// no overflow.)
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> two_sum(T a, T b) {
  const T s = a + b;
  const T bb = s - a;
  const T e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

// s + e == a + b exactly, s = RN(a + b), provided a == 0 or the exponent of
// a is >= that of b (in particular |a| >= |b|). (Dekker; 3 flops.)
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> fast_two_sum(T a, T b) {
  const T s = a + b;
  const T e = b - (s - a);
  return {s, e};
}

// Veltkamp split: a == hi + lo exactly, hi and lo with <= 26 significant bits.
// Valid for |a| < 2^995 (the product by 2^27+1 must not overflow).
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> split(T a) {
  constexpr double kSplitter = 134217729.0;  // 2^27 + 1
  const T c = kSplitter * a;
  const T hi = c - (c - a);
  const T lo = a - hi;
  return {hi, lo};
}

// p + e == a * b exactly, p = RN(a * b). (Dekker's TwoProduct, 17 flops.)
// Exact for |a|, |b| < 2^995 and e not underflowing (|a*b| >= 2^-969 is
// sufficient), or a*b == 0.
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> two_prod(T a, T b) {
  const T p = a * b;
  const DDOf<T> as = split(a);
  const DDOf<T> bs = split(b);
  const T err = ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo;
  return {p, err};
}

// Exact square: p + e == a * a.
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> two_sqr(T a) {
  const T p = a * a;
  const DDOf<T> as = split(a);
  const T err = ((as.hi * as.hi - p) + 2.0 * (as.hi * as.lo)) + as.lo * as.lo;
  return {p, err};
}

// ------------------------------------------------------------ dd arithmetic
// Error bounds: Joldes, Muller, Popescu, "Tight and rigorous error bounds for
// basic building blocks of double-word arithmetic", ACM TOMS 44(2), 2017
// (algorithm numbers in brackets). "rel" = relative to the exact result.

// dd + double [Alg. 4, DWPlusFP]: rel error <= 2u^2 / (1 + 2u) < 2^-105.
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> add(DDOf<T> x, T y) {
  const DDOf<T> s = two_sum(x.hi, y);
  const T v = x.lo + s.lo;
  return fast_two_sum(s.hi, v);
}

// dd + dd [Alg. 6, AccurateDWPlusDW]: rel error <= 3u^2 + 13u^3 < 2^-104.4.
// Holds whatever the signs (cancellation included).
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> add(DDOf<T> x, DDOf<T> y) {
  const DDOf<T> s = two_sum(x.hi, y.hi);
  const DDOf<T> t = two_sum(x.lo, y.lo);
  const T c = s.lo + t.hi;
  const DDOf<T> v = fast_two_sum(s.hi, c);
  const T w = t.lo + v.lo;
  return fast_two_sum(v.hi, w);
}

template <class T>
EXACTVMAF_HD_INLINE DDOf<T> neg(DDOf<T> x) {
  return {-x.hi, -x.lo};
}
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> sub(DDOf<T> x, DDOf<T> y) {
  return add(x, neg(y));
}
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> sub(DDOf<T> x, T y) {
  return add(x, -y);
}

// dd * double [Alg. 7 with the FMA-free TwoProd, DWTimesFP1]:
// rel error <= 1.5u^2 + 4u^3 < 2^-105.4.
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> mul(DDOf<T> x, T y) {
  const DDOf<T> c = two_prod(x.hi, y);
  const T cl2 = x.lo * y;
  const DDOf<T> t = fast_two_sum(c.hi, cl2);
  const T tl2 = t.lo + c.lo;
  return fast_two_sum(t.hi, tl2);
}

// dd * dd without FMA: (ch, cl1) = TwoProd(xh, yh); a = RN(xh*yl);
// b = RN(xl*yh); cl2 = RN(a + b); cl3 = RN(cl1 + cl2); Fast2Sum(ch, cl3).
// Proof sketch of the bound: with |xl| <= u|xh|, |yl| <= u|yh| and
// P = xh*yh: the neglected xl*yl is <= u^2 P; a, b carry <= u^2 P each;
// |a + b| <= 2u(1+u)P so cl2 carries <= 2u^2(1+u)P; |cl1| <= uP and
// |cl2| <= 2u(1+u)^2 P so cl3 carries <= 3u^2(1+u)^2 P; Fast2Sum is exact.
// Total <= 8u^2 P (1 + 3u) and P <= |xy| / (1 - u)^2, hence
// rel error <= 8u^2 (1 + 6u) < 2^-102.9.
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> mul(DDOf<T> x, DDOf<T> y) {
  const DDOf<T> c = two_prod(x.hi, y.hi);
  const T a = x.hi * y.lo;
  const T b = x.lo * y.hi;
  const T cl2 = a + b;
  const T cl3 = c.lo + cl2;
  return fast_two_sum(c.hi, cl3);
}

// dd squared: same scheme as mul(x, x) with one product fewer:
// (1 + 2 + 3)u^2 (1 + 6u) < 2^-103.4.
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> sqr(DDOf<T> x) {
  const DDOf<T> c = two_sqr(x.hi);
  const T cl2 = 2.0 * (x.hi * x.lo);
  const T cl3 = c.lo + cl2;
  return fast_two_sum(c.hi, cl3);
}

// Scale by a power of two (exact unless the result over/underflows).
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> mul_pow2(DDOf<T> x, double p2) {
  return {x.hi * p2, x.lo * p2};
}

// dd / dd [Alg. 17, DWDivDW2, with the FMA-free TwoProd in the DWTimesFP
// step]: th = RN(xh/yh); r = x - th*y (dd); tl = RN(rh/yh);
// Fast2Sum(th, tl). rel error <= 15u^2 + 56u^3 < 2^-102.0.
template <class T>
EXACTVMAF_HD_INLINE DDOf<T> div(DDOf<T> x, DDOf<T> y) {
  const T th = x.hi / y.hi;
  const DDOf<T> r = mul(y, th);
  const T pih = x.hi - r.hi;  // exact (Sterbenz): th*yh ~ xh
  const T dl = x.lo - r.lo;
  const T d = pih + dl;
  const T tl = d / y.hi;
  return fast_two_sum(th, tl);
}

// double / dd, same algorithm and bound.
EXACTVMAF_HD_INLINE DD div(double x, DD y) { return div(DD{x, 0.0}, y); }

}  // namespace exactvmaf::dd
