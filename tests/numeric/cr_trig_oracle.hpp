// Test oracle for cr_trig, independent of src/numeric/mpfr_slow: MPFR
// evaluation correctly rounded to binary64 (IEEE subnormals emulated), and
// the distance of a double-double from the exact value.
#pragma once

#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

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

// Distance of fn(a[, b]) from the nearest rounding boundary (midpoint
// between adjacent doubles), in ulps of the result (0 .. 0.5), at 200 bits.
// Only for ranking candidates; normal results only.
inline double trig_midpoint_distance(TrigFn fn, double a, double b = 0.0) {
  mpfr_t x, y, v, m;
  mpfr_inits2(200, x, y, v, m, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(x, a, MPFR_RNDN);
  mpfr_set_d(y, b, MPFR_RNDN);
  trig_apply(fn, v, x, y);
  double dist = 0.5;
  if (mpfr_regular_p(v)) {
    // scale v so that one ulp is 1: v * 2^(53 - exp), exp as MPFR counts it
    const mpfr_exp_t e = mpfr_get_exp(v);
    mpfr_mul_2si(v, v, 53 - static_cast<long>(e), MPFR_RNDN);
    mpfr_abs(v, v, MPFR_RNDN);
    mpfr_frac(m, v, MPFR_RNDN);                  // position within the ulp, [0, 1)
    mpfr_sub_d(m, m, 0.5, MPFR_RNDN);            // 0 at the midpoint
    dist = std::fabs(mpfr_get_d(m, MPFR_RNDN));
  }
  mpfr_clears(x, y, v, m, static_cast<mpfr_ptr>(nullptr));
  return dist;
}

// Arguments whose result is within about 2^-50 ulp of a midpoint, built by
// solving for them: for small x the distance f(x) - x (sin, atan) or 1 - f(x)
// (cos) moves by only 2^-50..2^-53 ulp per ulp of x, so the double nearest
// the solution of "distance = (m + 1/2) ulp" is such a case. The fast path
// must leave them undecided (its bound is 2^-41 ulp) and the host function
// must still round them correctly.
inline double solve_for_midpoint(TrigFn fn, double target_ulps, int ulp_exp) {
  // g(x) = distance(x) - target, Newton at 300 bits from the leading term.
  mpfr_t x, g, d, t, tmp;
  mpfr_inits2(300, x, g, d, t, tmp, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(t, target_ulps, MPFR_RNDN);
  mpfr_mul_2si(t, t, ulp_exp, MPFR_RNDN);  // target distance
  // start: sin: x^3/6 = t; atan: x^3/3 = t; cos: x^2/2 = t
  mpfr_mul_ui(x, t, fn == TrigFn::kSin ? 6 : (fn == TrigFn::kAtan2 ? 3 : 2), MPFR_RNDN);
  if (fn == TrigFn::kCos) {
    mpfr_sqrt(x, x, MPFR_RNDN);
  } else {
    mpfr_cbrt(x, x, MPFR_RNDN);
  }
  for (int it = 0; it < 20; ++it) {
    if (fn == TrigFn::kSin) {  // g = x - sin x - t, g' = 1 - cos x
      mpfr_sin_cos(g, d, x, MPFR_RNDN);
      mpfr_sub(g, x, g, MPFR_RNDN);
      mpfr_ui_sub(d, 1, d, MPFR_RNDN);
    } else if (fn == TrigFn::kCos) {  // g = 1 - cos x - t, g' = sin x
      mpfr_sin_cos(d, g, x, MPFR_RNDN);
      mpfr_ui_sub(g, 1, g, MPFR_RNDN);
    } else {  // g = x - atan x - t, g' = 1 - 1/(1 + x^2)
      mpfr_atan(g, x, MPFR_RNDN);
      mpfr_sub(g, x, g, MPFR_RNDN);
      mpfr_sqr(tmp, x, MPFR_RNDN);
      mpfr_add_ui(d, tmp, 1, MPFR_RNDN);
      mpfr_div(d, tmp, d, MPFR_RNDN);
    }
    mpfr_sub(g, g, t, MPFR_RNDN);
    mpfr_div(g, g, d, MPFR_RNDN);
    mpfr_sub(x, x, g, MPFR_RNDN);
  }
  const double r = mpfr_get_d(x, MPFR_RNDN);
  mpfr_clears(x, g, d, t, tmp, static_cast<mpfr_ptr>(nullptr));
  return r;
}

// The constructed hard cases used by the tests: {function, distance in
// ulps, exponent of the result's ulp}.
struct TrigHardCase {
  TrigFn fn;
  double target_ulps;
  int ulp_exp;
};

inline std::vector<TrigHardCase> trig_constructed_hard_cases() {
  std::vector<TrigHardCase> cases;
  cases.push_back({TrigFn::kSin, 0.5, -78});  // x in [2^-26, 2^-25)
  for (int m = 1; m <= 4; ++m) cases.push_back({TrigFn::kSin, m + 0.5, -77});  // [2^-25, 2^-24)
  for (int j = 0; j <= 20; ++j) cases.push_back({TrigFn::kCos, j + 0.5, -53});
  for (int m = 0; m <= 2; ++m) cases.push_back({TrigFn::kAtan2, m + 0.5, -78});  // atan2(x, 1)
  return cases;
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
