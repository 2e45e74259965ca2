// Exact operations R needs besides + - * / : no rounding happens in them, so
// they are written here rather than taken from a math library.
#pragma once
#include <cstdint>
#include <cstring>

#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

EXACTVMAF_HD inline std::uint64_t bits_of(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
EXACTVMAF_HD inline double double_of(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// C's ceil(): smallest integral value >= x; NaN, infinities and zeros kept.
EXACTVMAF_HD inline double ceil_f64(double x) {
  const std::uint64_t u = bits_of(x);
  const int e = static_cast<int>((u >> 52) & 0x7ff) - 1023;
  if (e >= 52) return x;  // integral, infinite or NaN
  if (e < 0) {            // |x| < 1
    if ((u << 1) == 0) return x;                 // +-0
    return (u >> 63) ? double_of(0x8000000000000000ull) : 1.0;  // -0.x -> -0, 0.x -> 1
  }
  const std::uint64_t frac_mask = 0x000fffffffffffffull >> e;
  if ((u & frac_mask) == 0) return x;
  std::uint64_t r = u & ~frac_mask;  // truncated towards zero
  double t = double_of(r);
  if (!(u >> 63)) t = t + 1.0;        // exact: t is integral and |t| < 2^52
  return t;
}

// libvmaf's MIN/MAX macros: (a < b ? a : b) and (a > b ? a : b), NaN included.
EXACTVMAF_HD inline double c_min(double a, double b) { return a < b ? a : b; }
EXACTVMAF_HD inline double c_max(double a, double b) { return a > b ? a : b; }

}  // namespace exactvmaf::rmath
