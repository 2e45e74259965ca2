// Shared loop of the cr_trig quick and long tests: evaluate the fast path
// and the full host function on n arguments, compare with MPFR.
#pragma once

#include <cstdint>
#include <cstdio>

#include "cr_trig_args.hpp"
#include "cr_trig_oracle.hpp"
#include "numeric/cr_trig.hpp"

namespace exactvmaf::test {

struct TrigCount {
  std::uint64_t n = 0;
  std::uint64_t wrong_fast = 0;   // fast path decided and differs from MPFR
  std::uint64_t wrong_full = 0;   // cr_sin/cr_cos/cr_atan2 differ from MPFR
  std::uint64_t undecided = 0;    // fast path returned false
  std::uint64_t undecided_in_fast_range = 0;  // ... for an argument it is designed for
  std::uint64_t bound_checked = 0;
  double max_error_ratio = 0.0;   // max |dd - exact| / error bound used
};

inline void report_mismatch(const char* what, double a, double b, double got, double want) {
  std::printf("  MISMATCH %s(%a, %a): got %a, MPFR %a\n", what, a, b, got, want);
}

// bound_every: measure the dd error against the bound on every k-th
// argument (0: never).
inline TrigCount check_sin_cos(bool cosine, TrigRange range, std::uint64_t n, std::uint64_t seed,
                               std::uint64_t bound_every) {
  using namespace exactvmaf::rmath;
  SplitMix64 rng(seed);
  TrigCount c;
  const TrigFn fn = cosine ? TrigFn::kCos : TrigFn::kSin;
  const char* name = cosine ? "cos" : "sin";
  for (std::uint64_t i = 0; i < n; ++i) {
    const double x = trig_arg(range, rng);
    const double want = trig_oracle(fn, x);
    double fast = 0.0;
    const bool decided = cosine ? cr_cos_fast(x, &fast) : cr_sin_fast(x, &fast);
    ++c.n;
    const double ax = x < 0 ? -x : x;
    const bool in_fast_range = ax <= 0x1p22;
    if (!decided) {
      ++c.undecided;
      if (in_fast_range) ++c.undecided_in_fast_range;
    } else if (!same_result(fast, want)) {
      if (c.wrong_fast < 5) report_mismatch(name, x, 0.0, fast, want);
      ++c.wrong_fast;
    }
    const double full = cosine ? cr_cos(x) : cr_sin(x);
    if (!same_result(full, want)) ++c.wrong_full;
    if (bound_every != 0 && i % bound_every == 0 && ax >= 0x1p-27 && ax <= 0x1p22) {
      double err = 0.0;
      const dd::DD v = trig_detail::sin_cos_dd(x, cosine, &err);
      const double ratio = trig_error_ratio(fn, v.hi, v.lo, err, x);
      if (ratio > c.max_error_ratio) c.max_error_ratio = ratio;
      ++c.bound_checked;
    }
  }
  return c;
}

inline TrigCount check_atan2(Atan2Range range, std::uint64_t n, std::uint64_t seed,
                             std::uint64_t bound_every) {
  using namespace exactvmaf::rmath;
  SplitMix64 rng(seed);
  TrigCount c;
  for (std::uint64_t i = 0; i < n; ++i) {
    double y = 0.0, x = 0.0;
    atan2_args(range, rng, &y, &x);
    const double want = trig_oracle(TrigFn::kAtan2, y, x);
    double fast = 0.0;
    const bool decided = cr_atan2_fast(y, x, &fast);
    ++c.n;
    if (!decided) {
      ++c.undecided;
      // Designed to decide whenever |y/x| >= 2^-900 or so.
      const double ay = y < 0 ? -y : y, ax = x < 0 ? -x : x;
      if (ay >= ax * 0x1p-900) ++c.undecided_in_fast_range;
    } else if (!same_result(fast, want)) {
      if (c.wrong_fast < 5) report_mismatch("atan2", y, x, fast, want);
      ++c.wrong_fast;
    }
    if (!same_result(cr_atan2(y, x), want)) ++c.wrong_full;
    if (bound_every != 0 && i % bound_every == 0 && y == y && x == x && y != 0 && x != 0 &&
        y - y == 0 && x - x == 0) {
      double ay = y < 0 ? -y : y, ax = x < 0 ? -x : x;
      if (trig_detail::atan2_scale(&ay, &ax) == 0) {
        const dd::DD v = trig_detail::atan2_scaled_dd(y < 0, x < 0, ay, ax);
        const double err = (v.hi < 0 ? -v.hi : v.hi) * 0x1p-92;
        const double ratio = trig_error_ratio(TrigFn::kAtan2, v.hi, v.lo, err, y, x);
        if (ratio > c.max_error_ratio) c.max_error_ratio = ratio;
        ++c.bound_checked;
      }
    }
  }
  return c;
}

inline void print_count(const char* fn, const char* range, const TrigCount& c) {
  std::printf("%-6s %-22s n=%llu wrong_fast=%llu wrong_full=%llu undecided=%llu "
              "(in fast range %llu) bound checks=%llu max err/bound=%.3g\n",
              fn, range, static_cast<unsigned long long>(c.n),
              static_cast<unsigned long long>(c.wrong_fast),
              static_cast<unsigned long long>(c.wrong_full),
              static_cast<unsigned long long>(c.undecided),
              static_cast<unsigned long long>(c.undecided_in_fast_range),
              static_cast<unsigned long long>(c.bound_checked), c.max_error_ratio);
}

}  // namespace exactvmaf::test
