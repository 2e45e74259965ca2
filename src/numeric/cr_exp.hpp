// Correctly rounded exp on doubles (docs/design.md §2, R1; method and bound in
// docs/rmath.md). exp_dd is also the second half of cr_pow / cr_powf.
#pragma once

#include <cstdint>

#include "cr_round.hpp"
#include "cr_tables.hpp"
#include "dd.hpp"
#include "hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

namespace detail {

// Relative error bound of exp_dd (proof sketch in docs/rmath.md; measured
// worst below 2^-102).
inline constexpr double kExpRelErr = 0x1p-99;

// exp(th + tl) = M * 2^q (1 + d), |d| <= kExpRelErr, M a normalised dd in
// [0.9998, 2.0003], for -746 <= th <= 710 and |tl| <= 2^-52 |th|.
//
// k = nearest integer to t 4096/ln2; r = t - k ln2/4096 (ln2/4096 in three
// parts, the first of 30 bits so that k times it is exact), |r| < 2^-13.4;
// exp(t) = 2^(k >> 12) 2^((k >> 6) & 63 / 64) 2^((k & 63) / 4096) exp(r),
// two 64-entry dd tables; exp(r) = 1 + r + r^2/2 + r^3 (1/6 + r Q(r)),
// Q to r^4/5040 in double.
// T: double, or Sf64 (the same operations in integer arithmetic, the same
// bits; the tables are read as bits).
template <class T>
EXACTVMAF_HD_INLINE dd::DDOf<T> exp_dd(T th, T tl, int* q) {
  using DDT = dd::DDOf<T>;
  const T kf = th * k4096OverLn2;
  const T kr = (kf + 0x1.8p52) - 0x1.8p52;  // nearest integer, |kr| < 2^23
  const std::int64_t k = i64_of(kr);
  const T r1 = th - kr * kLn2Over4096A;  // both exact (Sterbenz when k != 0)
  const DDT p2 = dd::two_prod(kr, T(kLn2Over4096B));
  DDT r = dd::two_sum(r1, -p2.hi);
  r = dd::add(r, tl);
  r = dd::add(r, -p2.lo - kr * kLn2Over4096C);

  const T rh = r.hi;
  const T qpoly = 1.0 / 24.0 + rh * (1.0 / 120.0 + rh * (1.0 / 720.0 + rh * (1.0 / 5040.0)));
  const DDT p = dd::add(DDT{T(kOneOver6Hi), T(kOneOver6Lo)}, rh * qpoly);
  const DDT r2 = dd::sqr(r);
  const DDT r3p = dd::mul(dd::mul(r2, r), p);
  const DDT expm1_r = dd::add(r, dd::add(dd::mul_pow2(r2, 0.5), r3p));
  const DDT exp_r = dd::add(DDT{T(1.0), T(0.0)}, expm1_r);

  // The two table entries, as bits (code without fp64 loads no double).
  static_assert(sizeof(DDEntry) == 2 * sizeof(std::uint64_t));
  const auto* a = reinterpret_cast<const std::uint64_t*>(&exp2_table1(static_cast<int>((k >> 6) & 63)));
  const auto* b = reinterpret_cast<const std::uint64_t*>(&exp2_table2(static_cast<int>(k & 63)));
  const DDT ab = dd::mul(DDT{of_u64<T>(a[0]), of_u64<T>(a[1])}, DDT{of_u64<T>(b[0]), of_u64<T>(b[1])});
  *q = static_cast<int>(k >> 12);  // arithmetic shift: floor(k / 4096)
  return dd::mul(ab, exp_r);
}

// exp(x) for 2^-54 <= |x| < 2^-20: exp(x) = 1 + x + R,
// R = x^2/2 + x^3/6 + ... as a dd with relative error < 2^-100 (x^2/2 exact,
// x^3/6 in dd, the rest below 2^-80 in double, truncation after x^6 below
// 2^-150). The sum is renormalised exactly around RN(1 + x + R.hi) and
// rounded by the exact tail (round_with_exact_tail), so arguments like
// 3 * 2^-53, where 1 + x is a midpoint and only x^2/2 decides, are decided.
EXACTVMAF_HD_INLINE bool exp_near_zero(double x, double* out) {
  const dd::DD sq = dd::two_sqr(x);
  const dd::DD half_sq{0.5 * sq.hi, 0.5 * sq.lo};
  const dd::DD cube_sixth = dd::mul(dd::mul(sq, x), dd::DD{kOneOver6Hi, kOneOver6Lo});
  const double x4 = sq.hi * sq.hi;
  const double rest = x4 * (1.0 / 24.0 + x * (1.0 / 120.0 + x * (1.0 / 720.0)));
  const dd::DD r = dd::add(half_sq, dd::add(cube_sixth, rest));
  const dd::DD a = dd::two_sum(x, r.hi);    // exact
  const dd::DD b = dd::two_sum(1.0, a.hi);  // exact: exp(x) = b.hi + b.lo + a.lo + r.lo + e
  const dd::DD u = dd::two_sum(b.lo, a.lo);
  const double v = u.lo + r.lo;  // rounding error <= 2^-53 (|u.lo| + |r.lo|)
  const dd::DD tail = dd::fast_two_sum(u.hi, v);
  const double abs_r = r.hi < 0.0 ? -r.hi : r.hi;
  const double abs_u = u.hi < 0.0 ? -u.hi : u.hi;
  const double err = 0x1p-98 * abs_r + 0x1p-104 * abs_u;
  return round_with_exact_tail(b.hi, tail, err, out);
}

}  // namespace detail

// Fast path: true when decided (*out is the correctly rounded exp(x)).
EXACTVMAF_HD_INLINE bool cr_exp_fast(double x, double* out) {
  const std::uint64_t b = dd::bits_of(x);
  const std::uint64_t abs_bits = b & 0x7fffffffffffffffULL;
  if (abs_bits >= 0x7ff0000000000000ULL) {  // inf or NaN
    if (abs_bits > 0x7ff0000000000000ULL) {
      *out = dd::double_from_bits(0x7ff8000000000000ULL);  // one NaN everywhere (payloads differ by machine)
    } else {
      *out = (b >> 63) ? 0.0 : x;
    }
    return true;
  }
  if (abs_bits < 0x3c90000000000000ULL) {  // |x| < 2^-54: exp(x) rounds to 1
    *out = 1.0;
    return true;
  }
  if (abs_bits < 0x3eb0000000000000ULL) return detail::exp_near_zero(x, out);  // |x| < 2^-20
  if (x > 710.0) {  // > log(DBL_MAX): overflow
    *out = dd::double_from_bits(0x7ff0000000000000ULL);
    return true;
  }
  if (x < -746.0) {  // < log(2^-1075): rounds to +0
    *out = 0.0;
    return true;
  }
  int q;
  const dd::DD m = detail::exp_dd(x, 0.0, &q);
  return detail::round_scaled_to_double(m.hi, m.lo, 2.0 * detail::kExpRelErr, q, out);
}

// Host function: fast path, then MPFR for the undecided rest.
double cr_exp(double x);

}  // namespace exactvmaf::rmath
