// The oracle of the log / exp / pow tests, independent of the library's own
// slow path (src/numeric/mpfr_slow.cpp, which R's host functions call for the
// arguments their fast path leaves undecided): MPFR evaluates the function at
// 256 bits in its default (huge) exponent range, and the code below rounds
// that value once to binary64 or binary32 itself: round to nearest, ties to
// even, IEEE subnormals, overflow to infinity. The double rounding 256 -> 53
// bits can only go wrong for a result within 2^-256 (relative) of a midpoint
// without being one; the known hardest cases of these functions are
// around 2^-(53+70), and an exact result or midpoint (exact powers) is exact
// at 256 bits. A bug in mpfr_slow.cpp (a rounding mode, the exponent range,
// the subnormal emulation) therefore shows as a wrong host value here.
#pragma once

#include <gmp.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "numeric/mpfr_slow.hpp"

namespace exactvmaf::rmath::testing {

inline void oracle_apply(MpfrFn fn, mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b) {
  switch (fn) {
    case MpfrFn::kLog: mpfr_log(r, a, MPFR_RNDN); return;
    case MpfrFn::kLog2: mpfr_log2(r, a, MPFR_RNDN); return;
    case MpfrFn::kLog10: mpfr_log10(r, a, MPFR_RNDN); return;
    case MpfrFn::kExp: mpfr_exp(r, a, MPFR_RNDN); return;
    case MpfrFn::kExp2: mpfr_exp2(r, a, MPFR_RNDN); return;
    case MpfrFn::kPow: mpfr_pow(r, a, b, MPFR_RNDN); return;
    default: mpfr_set_nan(r); return;  // not a function of these tests
  }
}

// |v| (finite, non-zero) rounded to `bits` significant bits with the ulp of
// the smallest subnormal 2^min_ulp_exp: the integer n and exponent q with
// n * 2^q the rounded value (n <= 2^bits).
inline void oracle_round(mpfr_srcptr v, int bits, long min_ulp_exp, std::uint64_t* n, long* q) {
  mpfr_t a, t, frac;
  mpfr_inits2(mpfr_get_prec(v) + 2, a, t, frac, static_cast<mpfr_ptr>(nullptr));
  mpfr_abs(a, v, MPFR_RNDN);                    // exact
  const long e = mpfr_get_exp(a);               // |v| = m 2^e, 1/2 <= m < 1
  long ulp = e - bits;
  if (ulp < min_ulp_exp) ulp = min_ulp_exp;     // subnormal range: a fixed ulp
  mpfr_mul_2si(t, a, -ulp, MPFR_RNDN);          // exact: a power of two
  mpz_t z;
  mpz_init(z);
  mpfr_get_z(z, t, MPFR_RNDZ);                  // the integer part (t < 2^bits + 1)
  mpfr_sub_z(frac, t, z, MPFR_RNDN);            // exact: the fraction in [0, 1)
  std::uint64_t m = mpz_get_ui(z);
  const int half = mpfr_cmp_d(frac, 0.5);
  if (half > 0 || (half == 0 && (m & 1u))) ++m;  // to nearest, ties to even
  mpz_clear(z);
  mpfr_clears(a, t, frac, static_cast<mpfr_ptr>(nullptr));
  *n = m;
  *q = ulp;
}

template <typename T>
T oracle(MpfrFn fn, T x, T y) {
  constexpr int bits = std::numeric_limits<T>::digits;                          // 53 or 24
  constexpr long min_ulp = std::numeric_limits<T>::min_exponent - bits;        // -1074 or -149
  mpfr_t a, b, r;
  mpfr_inits2(256, a, b, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(a, static_cast<double>(x), MPFR_RNDN);  // exact
  mpfr_set_d(b, static_cast<double>(y), MPFR_RNDN);
  oracle_apply(fn, r, a, b);
  T out;
  if (mpfr_nan_p(r)) {
    out = std::numeric_limits<T>::quiet_NaN();
  } else if (mpfr_inf_p(r)) {
    out = mpfr_signbit(r) ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  } else if (mpfr_zero_p(r)) {
    out = mpfr_signbit(r) ? -T(0) : T(0);
  } else {
    std::uint64_t n = 0;
    long q = 0;
    oracle_round(r, bits, min_ulp, &n, &q);
    // n * 2^q: exact unless it overflows (ldexp then gives infinity).
    const T mag = std::ldexp(static_cast<T>(n), static_cast<int>(q));
    out = mpfr_signbit(r) ? -mag : mag;
  }
  mpfr_clears(a, b, r, static_cast<mpfr_ptr>(nullptr));
  return out;
}

inline double oracle_d(MpfrFn fn, double x, double y = 0.0) { return oracle<double>(fn, x, y); }
inline float oracle_f(MpfrFn fn, float x, float y = 0.0f) { return oracle<float>(fn, x, y); }

}  // namespace exactvmaf::rmath::testing
