// Test oracle for cr_trig, independent of src/numeric/mpfr_slow: MPFR
// evaluation correctly rounded to binary64 (IEEE subnormals emulated), and
// the distance of a double-double from the exact value.
#pragma once

#include <mpfr.h>

#include <cstdint>
#include <cstring>

namespace exactvmaf::test {

enum class TrigFn { kSin, kCos, kAtan2 };

inline int trig_apply(TrigFn fn, mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b) {
  switch (fn) {
    case TrigFn::kSin: return mpfr_sin(r, a, MPFR_RNDN);
    case TrigFn::kCos: return mpfr_cos(r, a, MPFR_RNDN);
    case TrigFn::kAtan2: return mpfr_atan2(r, a, b, MPFR_RNDN);
  }
  return 0;
}

// fn(a[, b]) rounded to nearest binary64 (atan2: a is y, b is x).
inline double trig_oracle(TrigFn fn, double a, double b = 0.0) {
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-1073);
  mpfr_set_emax(1024);
  mpfr_t x, y, r;
  mpfr_inits2(53, x, y, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(x, a, MPFR_RNDN);
  mpfr_set_d(y, b, MPFR_RNDN);
  int inexact = trig_apply(fn, r, x, y);
  inexact = mpfr_check_range(r, inexact, MPFR_RNDN);
  mpfr_subnormalize(r, inexact, MPFR_RNDN);
  const double d = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clears(x, y, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return d;
}

// |(hi + lo) - fn(a[, b])| / err, evaluated with 300-bit MPFR (default
// exponent range). A value >= 1 means the bound err was violated.
inline double trig_error_ratio(TrigFn fn, double hi, double lo, double err, double a,
                               double b = 0.0) {
  mpfr_t x, y, exact, v;
  mpfr_inits2(300, x, y, exact, v, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(x, a, MPFR_RNDN);
  mpfr_set_d(y, b, MPFR_RNDN);
  trig_apply(fn, exact, x, y);
  mpfr_set_d(v, hi, MPFR_RNDN);
  mpfr_add_d(v, v, lo, MPFR_RNDN);
  mpfr_sub(v, v, exact, MPFR_RNDN);
  mpfr_abs(v, v, MPFR_RNDN);
  mpfr_div_d(v, v, err, MPFR_RNDN);
  const double ratio = mpfr_get_d(v, MPFR_RNDU);
  mpfr_clears(x, y, exact, v, static_cast<mpfr_ptr>(nullptr));
  return ratio;
}

inline std::uint64_t bits64(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

inline double from_bits64(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Bit equality, all NaNs equal (the NaN bits are checked separately).
inline bool same_result(double a, double b) {
  if (a != a && b != b) return true;
  return bits64(a) == bits64(b);
}

}  // namespace exactvmaf::test
