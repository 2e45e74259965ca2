// Shared helpers of the cr_log / cr_exp / cr_pow tests: argument generators
// and a tally that compares a fast path and a host function with the oracle.
//
// Reference: cr_oracle.hpp's oracle_d / oracle_f, MPFR at 256 bits rounded
// once by the test's own code, independent of the library's slow path
// (mpfr_slow.cpp, which the host functions themselves call).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <mpfr.h>

#include "cr_oracle.hpp"
#include "numeric/dd.hpp"
#include "numeric/mpfr_slow.hpp"

namespace exactvmaf::rmath::testing {

inline bool same_bits(double a, double b) {
  if (a != a) return b != b;  // any NaN matches any NaN
  return dd::bits_of(a) == dd::bits_of(b);
}
inline bool same_bits(float a, float b) {
  if (a != a) return b != b;
  return dd::bits_of(a) == dd::bits_of(b);
}

struct Tally {
  long n = 0;
  long undecided = 0;
  long wrong_fast = 0;  // decided fast path != MPFR
  long wrong_host = 0;  // host function != MPFR
  std::string first_failure;

  void note(const char* what, double x, double y, double got, double want) {
    if (first_failure.empty()) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s(%a, %a): got %a, want %a", what, x, y, got, want);
      first_failure = buf;
    }
  }
  double undecided_rate() const { return n ? static_cast<double>(undecided) / static_cast<double>(n) : 0.0; }
};

// Double function of one or two arguments.
template <typename Fast, typename Host>
void check_d(Tally& t, MpfrFn fn, Fast fast, Host host, double x, double y = 0.0) {
  const double want = oracle_d(fn, x, y);
  double got = 0.0;
  ++t.n;
  if (!fast(x, y, &got)) {
    ++t.undecided;
  } else if (!same_bits(got, want)) {
    ++t.wrong_fast;
    t.note("fast", x, y, got, want);
  }
  const double h = host(x, y);
  if (!same_bits(h, want)) {
    ++t.wrong_host;
    t.note("host", x, y, h, want);
  }
}

template <typename Fast, typename Host>
void check_f(Tally& t, MpfrFn fn, Fast fast, Host host, float x, float y = 0.0f) {
  const float want = oracle_f(fn, x, y);
  float got = 0.0f;
  ++t.n;
  if (!fast(x, y, &got)) {
    ++t.undecided;
  } else if (!same_bits(got, want)) {
    ++t.wrong_fast;
    t.note("fast", static_cast<double>(x), static_cast<double>(y), static_cast<double>(got),
           static_cast<double>(want));
  }
  const float h = host(x, y);
  if (!same_bits(h, want)) {
    ++t.wrong_host;
    t.note("host", static_cast<double>(x), static_cast<double>(y), static_cast<double>(h),
           static_cast<double>(want));
  }
}

// Argument generators (deterministic: fixed seeds).
struct Gen {
  std::mt19937_64 rng;
  explicit Gen(std::uint64_t seed) : rng(seed) {}
  double unit() { return static_cast<double>(rng() >> 11) * 0x1p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  // Log-uniform over [lo, hi], lo > 0: a random double of every magnitude.
  double log_uniform(double lo, double hi) {
    const int elo = dd_exponent(lo), ehi = dd_exponent(hi);
    for (;;) {
      const int e = elo + static_cast<int>(rng() % static_cast<std::uint64_t>(ehi - elo + 1));
      const std::uint64_t mant = rng() & 0x000fffffffffffffULL;
      const double x = dd::double_from_bits((static_cast<std::uint64_t>(e + 1023) << 52) | mant);
      if (x >= lo && x <= hi) return x;
    }
  }
  double any_bits() { return dd::double_from_bits(rng()); }
  float any_bits_f() { return dd::float_from_bits(static_cast<std::uint32_t>(rng())); }
  static int dd_exponent(double x) { return static_cast<int>((dd::bits_of(x) >> 52) & 0x7ff) - 1023; }
};

// Distance, in units of the last place of the binary64 result, from
// f(x, y) (evaluated with MPFR at 256 bits) to the nearest midpoint between
// two doubles; used to pick arguments whose results are close to a rounding
// boundary. f must be finite and normal at (x, y).
inline double distance_to_midpoint_ulps(MpfrFn fn, double x, double y) {
  mpfr_t a, b, r, t;
  mpfr_inits2(256, a, b, r, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(a, x, MPFR_RNDN);
  mpfr_set_d(b, y, MPFR_RNDN);
  switch (fn) {
    case MpfrFn::kLog: mpfr_log(r, a, MPFR_RNDN); break;
    case MpfrFn::kLog2: mpfr_log2(r, a, MPFR_RNDN); break;
    case MpfrFn::kLog10: mpfr_log10(r, a, MPFR_RNDN); break;
    case MpfrFn::kExp: mpfr_exp(r, a, MPFR_RNDN); break;
    case MpfrFn::kPow: mpfr_pow(r, a, b, MPFR_RNDN); break;
    default: mpfr_set_nan(r); break;
  }
  double d = 1.0;
  if (mpfr_number_p(r) && !mpfr_zero_p(r)) {
    // Scale so the last place is 1: frac(|r| * 2^(52 - e)) where 2^e <= |r| < 2^(e+1).
    const long e = mpfr_get_exp(r) - 1;  // MPFR: |r| in [2^(exp-1), 2^exp)
    mpfr_abs(t, r, MPFR_RNDN);
    mpfr_mul_2si(t, t, 52 - e, MPFR_RNDN);
    mpfr_frac(t, t, MPFR_RNDN);
    mpfr_sub_d(t, t, 0.5, MPFR_RNDN);
    d = std::abs(mpfr_get_d(t, MPFR_RNDN));
  }
  mpfr_clears(a, b, r, t, static_cast<mpfr_ptr>(nullptr));
  return d;
}

// Distance, in ulps of the binary64 result, from f(x, y) (MPFR, 256 bits)
// to the nearest rounding boundary of any mode: a midpoint between two
// doubles or a double. A published hard case lies within 2^-40 of one.
inline double distance_to_boundary_ulps(MpfrFn fn, double x, double y) {
  mpfr_t a, b, r, t, u;
  mpfr_inits2(256, a, b, r, t, u, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(a, x, MPFR_RNDN);
  mpfr_set_d(b, y, MPFR_RNDN);
  oracle_apply(fn, r, a, b);
  double d = 1.0;
  if (mpfr_number_p(r) && !mpfr_zero_p(r)) {
    const long e = mpfr_get_exp(r) - 1;  // |r| in [2^e, 2^(e+1))
    mpfr_abs(t, r, MPFR_RNDN);
    mpfr_mul_2si(t, t, 52 - e, MPFR_RNDN);
    mpfr_frac(t, t, MPFR_RNDN);            // the fraction of an ulp, in [0, 1)
    mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
    mpfr_frac(t, t, MPFR_RNDN);            // of a half ulp: 0 at doubles and midpoints
    mpfr_ui_sub(u, 1, t, MPFR_RNDN);
    if (mpfr_cmp(u, t) < 0) mpfr_set(t, u, MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);      // back to ulps
    d = mpfr_get_d(t, MPFR_RNDN);
  }
  mpfr_clears(a, b, r, t, u, static_cast<mpfr_ptr>(nullptr));
  return d;
}

// The `keep` arguments among `candidates` whose results lie closest to a
// midpoint.
inline std::vector<std::pair<double, double>> closest_to_midpoint(
    MpfrFn fn, const std::vector<std::pair<double, double>>& candidates, std::size_t keep) {
  std::vector<std::pair<double, std::pair<double, double>>> scored;
  scored.reserve(candidates.size());
  for (const auto& c : candidates) scored.push_back({distance_to_midpoint_ulps(fn, c.first, c.second), c});
  std::sort(scored.begin(), scored.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<double, double>> out;
  for (std::size_t i = 0; i < scored.size() && i < keep; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace exactvmaf::rmath::testing
