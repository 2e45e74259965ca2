// Correctly rounded logarithms (docs/design.md §2, R1; method and error bounds in
// docs/rmath.md): cr_log, cr_log2, cr_log10 on doubles and cr_log2f on
// floats. Each has a host+device fast path, cr_*_fast(x, &out), which returns
// false ("undecided") in the rare cases its error bound cannot exclude a
// rounding boundary, and a host function that completes those with MPFR.
#pragma once

#include <cstdint>

#include "cr_round.hpp"
#include "cr_tables.hpp"
#include "dd.hpp"
#include "hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

namespace detail {

// Component k (0: r, 1: lhi, 2: llo) of log_table(i) as its bits, read as
// an integer: code without fp64 loads no double.
EXACTVMAF_HD_INLINE std::uint64_t log_table_bits(int i, int k) {
  static_assert(sizeof(LogEntry) == 3 * sizeof(std::uint64_t));
  return reinterpret_cast<const std::uint64_t*>(&log_table(i))[k];
}

// Relative error bound of log_dd (proof sketch in docs/rmath.md; measured
// worst below 2^-102). The tests use it through the fast paths.
inline constexpr double kLogRelErr = 0x1p-99;

// log(x) as a normalised double-double for finite x > 0 (subnormals
// included), with |result - log x| <= kLogRelErr |log x|.
//
// x = 2^e m, m in [1, 2); i = top 8 bits of m's fraction; r_i ~ 1/m (table);
// z = m r_i - 1 exactly (|z| <= 2^-8); log m = -log r_i + log1p(z), and for
// i >= 106 (m > ~sqrt 2) the table holds -log(2 r_i) and the exponent gets +1
// so that the terms never cancel badly; i = 0 (r = 1) and i = 255 (r = 1/2)
// make x near 1 reduce to log1p(z) alone. log1p(z) = 2 atanh(s),
// s = z / (2 + z), |s| < 2^-9, series to s^13.
template <class T>
EXACTVMAF_HD_INLINE dd::DDOf<T> log_dd(T x) {
  using DDT = dd::DDOf<T>;
  const std::uint64_t b = u64_of(x);
  std::uint64_t mant = b & 0x000fffffffffffffULL;
  int e = static_cast<int>(b >> 52) - 1023;
  if ((b >> 52) == 0) {  // subnormal: normalise with integer shifts (no FPU subnormals)
    e = -1022;
    while ((mant & 0x0010000000000000ULL) == 0) {
      mant <<= 1;
      --e;
    }
    mant &= 0x000fffffffffffffULL;
  }
  const int i = static_cast<int>(mant >> 44);
  const T m = of_u64<T>(0x3ff0000000000000ULL | mant);
  const T t_r = of_u64<T>(log_table_bits(i, 0));
  const int big_e = e + (i >= 106 ? 1 : 0);

  // z = m r - 1, exact: the product is exact as a dd, p.hi - 1 is exact
  // (Sterbenz) and two_sum is exact.
  const DDT p = dd::two_prod(m, t_r);
  const DDT z = dd::two_sum(p.hi - 1.0, p.lo);

  DDT log1p_z{T(0.0), T(0.0)};
  if (z.hi != 0.0) {
    const DDT denom = dd::add(dd::two_sum(T(2.0), z.hi), z.lo);
    const DDT s = dd::div(z, denom);
    const DDT s2 = dd::sqr(s);
    const T w = s2.hi;
    // 1/7 + w/9 + w^2/11 + w^3/13 in double: its share of the result is < 2^-36 of s.
    const T q = 1.0 / 7.0 + w * (1.0 / 9.0 + w * (1.0 / 11.0 + w * (1.0 / 13.0)));
    const T s4q = (w * w) * q;
    const DDT poly =
        dd::add(DDT{T(kOneOver3Hi), T(kOneOver3Lo)}, dd::add(dd::mul(s2, DDT{T(kOneOver5Hi), T(kOneOver5Lo)}), s4q));
    const DDT tail = dd::mul(dd::mul(s2, s), poly);
    log1p_z = dd::mul_pow2(dd::add(s, tail), 2.0);
  }
  if (big_e == 0 && (i == 0 || i == 255)) return log1p_z;
  const DDT e_ln2 = dd::mul(DDT{T(kLn2Hi), T(kLn2Lo)}, T(static_cast<std::int32_t>(big_e)));
  const DDT head = dd::add(e_ln2, DDT{of_u64<T>(log_table_bits(i, 1)), of_u64<T>(log_table_bits(i, 2))});
  return dd::add(head, log1p_z);
}

// The double equal to a finite float, built from bits so that a caller's
// denormals-are-zero mode cannot change it.
EXACTVMAF_HD_INLINE double float_to_double_exact(float x) {
  const std::uint32_t b = dd::bits_of(x);
  const std::uint64_t sign = static_cast<std::uint64_t>(b >> 31) << 63;
  std::uint32_t mant = b & 0x007fffffU;
  int e = static_cast<int>((b >> 23) & 0xffU) - 127;
  if (((b >> 23) & 0xffU) == 0xffU) {  // inf stays inf, NaN stays NaN (quiet)
    const std::uint64_t payload = mant ? (0x0008000000000000ULL | (static_cast<std::uint64_t>(mant) << 29)) : 0;
    return dd::double_from_bits(sign | 0x7ff0000000000000ULL | payload);
  }
  if (((b >> 23) & 0xffU) == 0) {
    if (mant == 0) return dd::double_from_bits(sign);
    e = -126;
    while ((mant & 0x00800000U) == 0) {
      mant <<= 1;
      --e;
    }
    mant &= 0x007fffffU;
  }
  return dd::double_from_bits(sign | (static_cast<std::uint64_t>(e + 1023) << 52) |
                              (static_cast<std::uint64_t>(mant) << 29));
}

// Special values shared by the double logs. Returns true when x is not a
// finite positive number other than 1, with *out set.
template <class T>
EXACTVMAF_HD_INLINE bool log_special(T x, T* out) {
  const std::uint64_t b = u64_of(x);
  if (b == 0x3ff0000000000000ULL) {  // log(1) = +0
    *out = of_u64<T>(0);
    return true;
  }
  if ((b & 0x7fffffffffffffffULL) == 0) {  // log(+-0) = -inf
    *out = of_u64<T>(0xfff0000000000000ULL);
    return true;
  }
  if ((b & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL) {  // inf or NaN
    if (b == 0x7ff0000000000000ULL) {
      *out = x;  // log(+inf) = +inf
    } else {
      *out = of_u64<T>(0x7ff8000000000000ULL);  // NaN in, or log(-inf): the one quiet NaN
    }
    return true;
  }
  if (b >> 63) {  // log(negative) = NaN
    *out = of_u64<T>(0x7ff8000000000000ULL);
    return true;
  }
  return false;
}

// log(x) for x within 2^-20 of 1: z = x - 1 is exact, and
// log(x) = z + R, R = -z^2/2 + z^3/3 - z^4/4 + ... is evaluated as a dd with
// relative error < 2^-100 (-z^2/2 exact; z^3/3 in dd; the rest, below
// 2^-60 |z|, in double; truncation after z^7 below 2^-140 |z|). The final
// rounding looks at the exact tail z + R - RN(z + R), so structurally hard
// arguments such as 1 - 2^-52, where z - z^2/2 is a midpoint and only z^3/3
// decides, are decided here instead of going to MPFR.
EXACTVMAF_HD_INLINE bool log_near_one(double x, double* out) {
  const double z = x - 1.0;  // exact (Sterbenz)
  const dd::DD sq = dd::two_sqr(z);
  const dd::DD half_sq{-0.5 * sq.hi, -0.5 * sq.lo};
  const dd::DD cube_third = dd::mul(dd::mul(sq, z), dd::DD{kOneOver3Hi, kOneOver3Lo});
  const double z4 = sq.hi * sq.hi;
  const double rest = z4 * (-0.25 + z * (0.2 + z * (-1.0 / 6.0 + z * (1.0 / 7.0))));
  const dd::DD r = dd::add(half_sq, dd::add(cube_third, rest));
  const dd::DD s = dd::two_sum(z, r.hi);
  const dd::DD t = dd::two_sum(s.lo, r.lo);
  const double err = 0x1p-98 * (r.hi < 0.0 ? -r.hi : r.hi);
  return round_with_exact_tail(s.hi, t, err, out);
}

}  // namespace detail

// Fast paths: true when decided (*out is the correctly rounded result).
EXACTVMAF_HD_INLINE bool cr_log_fast(double x, double* out) {
  if (detail::log_special(x, out)) return true;
  if (x > 1.0 - 0x1p-20 && x < 1.0 + 0x1p-20) return detail::log_near_one(x, out);
  const dd::DD l = detail::log_dd(x);
  const double err = 2.0 * detail::kLogRelErr * (l.hi < 0.0 ? -l.hi : l.hi);
  return detail::round_to_double(l.hi, l.lo, err, out);
}

namespace detail {
// log2 = log * (1/ln 2): adds the dd product's 2^-102.9 and the constant's 2^-106.
// T: double, or Sf64 (the same operations in integer arithmetic, the same bits).
template <class T>
EXACTVMAF_HD_INLINE bool log2_fast(T x, T* out) {
  if (log_special(x, out)) return true;
  const dd::DDOf<T> l = dd::mul(log_dd(x), dd::DDOf<T>{T(kInvLn2Hi), T(kInvLn2Lo)});
  const T err = (2.0 * kLogRelErr) * (l.hi < 0.0 ? -l.hi : l.hi);
  return round_to_double(l.hi, l.lo, err, out);
}
}  // namespace detail

EXACTVMAF_HD_INLINE bool cr_log2_fast(double x, double* out) { return detail::log2_fast(x, out); }
EXACTVMAF_HD_INLINE bool cr_log2_fast(Sf64 x, Sf64* out) { return detail::log2_fast(x, out); }

EXACTVMAF_HD_INLINE bool cr_log10_fast(double x, double* out) {
  if (detail::log_special(x, out)) return true;
  const dd::DD l = dd::mul(detail::log_dd(x), dd::DD{detail::kInvLn10Hi, detail::kInvLn10Lo});
  const double err = 2.0 * detail::kLogRelErr * (l.hi < 0.0 ? -l.hi : l.hi);
  return detail::round_to_double(l.hi, l.lo, err, out);
}

// log2f: the double-double log2 of the (exact) double of x, rounded once to
// float; undecided when the interval holds a float midpoint.
EXACTVMAF_HD_INLINE bool cr_log2f_fast(float x, float* out) {
  const std::uint32_t b = dd::bits_of(x);
  if ((b & 0x7fffffffU) == 0) {
    *out = dd::float_from_bits(0xff800000U);  // -inf
    return true;
  }
  if ((b & 0x7f800000U) == 0x7f800000U) {
    if (b == 0x7f800000U) {
      *out = x;
    } else if (b & 0x007fffffU) {
      *out = dd::float_from_bits(0x7fc00000U);  // NaN in: the one quiet NaN
    } else {
      *out = dd::float_from_bits(0x7fc00000U);
    }
    return true;
  }
  if (b >> 31) {
    *out = dd::float_from_bits(0x7fc00000U);
    return true;
  }
  if ((b & 0x007fffffU) == 0) {  // powers of two: exact integer result
    *out = static_cast<float>(static_cast<int>(b >> 23) - 127);
    return true;
  }
  const double xd = detail::float_to_double_exact(x);
  if ((dd::bits_of(xd) & 0x000fffffffffffffULL) == 0) {  // subnormal powers of two
    *out = static_cast<float>(detail::exponent_of(xd));
    return true;
  }
  const dd::DD l = dd::mul(detail::log_dd(xd), dd::DD{detail::kInvLn2Hi, detail::kInvLn2Lo});
  const double err = 2.0 * detail::kLogRelErr * (l.hi < 0.0 ? -l.hi : l.hi);
  return detail::round_to_float(l.hi, l.lo, err, out);
}

// Host functions: fast path, then MPFR for the undecided rest.
double cr_log(double x);
double cr_log2(double x);
double cr_log10(double x);
float cr_log2f(float x);

}  // namespace exactvmaf::rmath
