// MPFR reference for the exact-sum tests: the exact sum of doubles (exact
// 2300-bit MPFR additions) rounded once to binary64 (round to nearest even, IEEE subnormals and overflow),
// with ExactSum's rules for non-finite terms and zero sums.
#pragma once

#include <mpfr.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace exactvmaf::test {

inline double mpfr_exact_sum(const std::vector<double>& terms) {
  bool nan = false, pos_inf = false, neg_inf = false;
  std::vector<double> finite;
  for (double t : terms) {
    if (t != t) {
      nan = true;
    } else if (t == std::numeric_limits<double>::infinity()) {
      pos_inf = true;
    } else if (t == -std::numeric_limits<double>::infinity()) {
      neg_inf = true;
    } else {
      finite.push_back(t);
    }
  }
  if (nan || (pos_inf && neg_inf)) return std::numeric_limits<double>::quiet_NaN();
  if (pos_inf) return std::numeric_limits<double>::infinity();
  if (neg_inf) return -std::numeric_limits<double>::infinity();
  // Exact accumulation: 2300 bits cover 2^-1074 .. 2^1024 with 2^64 terms
  // of headroom, so every mpfr_add is exact; then one rounding to binary64.
  mpfr_t acc, r;
  mpfr_init2(acc, 2300);
  mpfr_set_zero(acc, 1);
  for (double t : finite) {
    const int inexact = mpfr_add_d(acc, acc, t, MPFR_RNDN);
    (void)inexact;  // always 0 (exact)
  }
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-1073);
  mpfr_set_emax(1024);
  mpfr_init2(r, 53);
  int inexact = mpfr_set(r, acc, MPFR_RNDN);
  inexact = mpfr_check_range(r, inexact, MPFR_RNDN);
  mpfr_subnormalize(r, inexact, MPFR_RNDN);
  double d = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clears(acc, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  if (d == 0.0) d = 0.0;  // an exact zero sum is +0
  return d;
}

inline std::vector<double> widen(const std::vector<float>& f) {
  std::vector<double> d;
  d.reserve(f.size());
  for (float x : f) d.push_back(static_cast<double>(x));
  return d;
}

}  // namespace exactvmaf::test
