// Final rounding of R's correctly rounded functions (docs/design.md §2, R1):
// turn an approximation v ~ hi + lo with a proven error bound into the
// nearest double/float, or report "undecided" when the bound does not
// exclude a rounding boundary. Host and device; bit manipulation and
// + - * only.
#pragma once

#include <cstdint>

#include "dd.hpp"
#include "hd.hpp"
#include "sf64.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath::detail {

// Unbiased exponent of a finite nonzero normal double.
EXACTVMAF_HD_INLINE int exponent_of(double x) {
  return static_cast<int>((dd::bits_of(x) >> 52) & 0x7ff) - 1023;
}

// Nearest double to the true value V, given a normalised dd hi + lo with
// |V - (hi + lo)| <= err_abs, where err_abs >= 2^-104 |hi| (all callers use
// bounds >= 2^-99 |hi|) or err_abs == 0 with hi + lo exact.
// Why it is right: RN is monotonic. With e = 2 err_abs, the computed
// RN(lo + e) exceeds lo + err_abs (its rounding error is <= u(|lo| + e) <=
// u^2|hi| + 2u err_abs < err_abs), so up = RN(hi + RN(lo + e)) >= RN(V) and
// likewise dn <= RN(V). up == dn therefore pins RN(V). Exact results are no
// boundary (only midpoints between doubles are), so they are decided too.
// T: double, or Sf64 (numeric/sf64.hpp) in code without fp64.
template <class T>
EXACTVMAF_HD_INLINE bool round_to_double(T hi, T lo, T err_abs, T* out) {
  const T e = 2.0 * err_abs;
  const T up = hi + (lo + e);
  const T dn = hi + (lo - e);
  if (up != dn) return false;
  *out = up;
  return true;
}

// Nearest double to V = (hi + lo) * 2^k for hi > 0 in [2^-4, 2^4], with
// |V - (hi + lo) 2^k| <= err_rel * hi * 2^k, 2^-104 <= err_rel <= 2^-60.
// Handles results that overflow (-> +inf) or are subnormal (rounded at
// 2^-1074, ties to even) without relying on the FPU's subnormal support: a
// subnormal result is assembled from its integer significand.
EXACTVMAF_HD_INLINE bool round_scaled_to_double(double hi, double lo, double err_rel, int k,
                                                double* out) {
  const int eh = exponent_of(hi);
  if (eh + k >= -1022) {
    double r;
    if (!round_to_double(hi, lo, err_rel * hi, &r)) return false;
    const int er = exponent_of(r);
    if (er + k > 1023) {  // rounds to >= 2^1024 in unbounded range: overflow
      *out = dd::double_from_bits(0x7ff0000000000000ULL);
      return true;
    }
    if (er + k < -1022) return false;  // fell just below 2^-1022: leave it to the slow path
    *out = dd::double_from_bits(dd::bits_of(r) + (static_cast<std::uint64_t>(static_cast<std::int64_t>(k)) << 52));
    return true;
  }
  // Subnormal range: V < 2^(eh + 1 + k) <= 2^-1022.
  if (eh + k < -1076) {  // V < 2^-1075: rounds to +0 (2^-1075 itself ties to 0)
    *out = 0.0;
    return true;
  }
  // Work in units of 2^-1074: w = V * 2^1074 < 2^52, scale exact (s in [-4, 54]).
  const int s = k + 1074;
  const double scale = dd::pow2i(s);
  const double wh = hi * scale;
  const double wl = lo * scale;
  const double werr = err_rel * hi * scale;
  const dd::DD a = dd::two_sum(0x1p52, wh);  // a.hi integer in [2^52, 2^53]
  const dd::DD t = dd::two_sum(a.lo, wl);    // exact: V*2^1074 - a.hi = t.hi + t.lo
  // t.hi + t.lo lies in about [-0.5, 0.5]: the integer is a.hi, a.hi - 1 or
  // a.hi + 1 depending on which side of +-0.5 it is.
  std::int64_t n = static_cast<std::int64_t>(a.hi);
  const double mag = t.hi < 0.0 ? -t.hi : t.hi;
  if (mag >= 0.25) {
    const double c = mag - 0.5;  // exact (Sterbenz)
    const double dist = c + (t.hi < 0.0 ? -t.lo : t.lo);
    const double dist_abs = dist < 0.0 ? -dist : dist;
    // dist's rounding error is <= 2^-53 |dist| + 2^-106; require a clear margin.
    if (!(dist_abs > 4.0 * werr + 0x1p-100)) return false;
    if (dist > 0.0) n += t.hi < 0.0 ? -1 : 1;
  }
  n -= static_cast<std::int64_t>(0x1p52);
  *out = dd::double_from_bits(static_cast<std::uint64_t>(n));  // n * 2^-1074, n <= 2^53
  return true;
}

// Nearest double to a + t.hi + t.lo + e with |e| <= err, where a is a
// nonzero finite double, t a normalised dd and |t| no more than about half an
// ulp of a (a = RN(a + t.hi + t.lo) up to the err). Decides by the exact
// distance of the tail to the rounding boundary next to a (half an ulp; a
// quarter of one below a power of two), so it resolves values far closer to
// a midpoint than a dd error bound relative to a would.
EXACTVMAF_HD_INLINE bool round_with_exact_tail(double a, dd::DD t, double err, double* out) {
  const bool neg = a < 0.0;
  const double mag = neg ? -a : a;
  const double th = neg ? -t.hi : t.hi;  // tail towards larger magnitude when > 0
  const double tl = neg ? -t.lo : t.lo;
  const std::uint64_t mb = dd::bits_of(mag);
  const double up = dd::double_from_bits(mb + 1);
  const double down = dd::double_from_bits(mb - 1);
  const bool grow = th > 0.0 || (th == 0.0 && tl > 0.0);
  const double half = grow ? (up - mag) * 0.5 : (mag - down) * 0.5;  // exact
  const double tmag = grow ? th : -th;
  double r = mag;
  if (tmag >= 0.5 * half) {
    const double d = (tmag - half) + (grow ? tl : -tl);  // tmag - half exact (Sterbenz)
    const double dabs = d < 0.0 ? -d : d;
    // d's own rounding error is <= 2^-53 |d|; ask for a clear margin.
    if (!(dabs > 2.0 * err + 0x1p-1070)) return false;
    if (d > 0.0) r = grow ? up : down;
  } else if (!(half * 0.5 - tmag > 2.0 * err)) {
    return false;
  }
  *out = neg ? -r : r;
  return true;
}

// True when the double d lies exactly halfway between two adjacent floats
// (a float rounding boundary, including the overflow threshold).
template <class T>
EXACTVMAF_HD_INLINE bool is_float_midpoint(T d) {
  const T a = d < 0.0 ? -d : d;
  const float f = f32_of(a);
  const T fd = T(f);
  if (fd == a) return false;
  if (dd::bits_of(f) == 0x7f800000U) return a == 0x1.ffffffp127;
  const std::uint32_t fb = dd::bits_of(f);
  const float g = dd::float_from_bits(a > fd ? fb + 1U : fb - 1U);
  return a == (fd + T(g)) * 0.5;
}

// Nearest float to V = hi + lo exactly (a normalised dd, no error term):
// RN_float(hi) unless hi is itself a float midpoint, in which case lo's sign
// picks the side and lo == 0 is a true tie (to even, as the conversion does).
// Why: a float midpoint strictly between V and hi = RN_double(V) would be a
// double nearer to V than hi.
template <class T>
EXACTVMAF_HD_INLINE float round_exact_to_float(T hi, T lo) {
  if (lo == 0.0 || !is_float_midpoint(hi)) return f32_of(hi);
  const bool neg = hi < 0.0;
  const T a = neg ? -hi : hi;
  const bool away = neg ? lo < 0.0 : lo > 0.0;  // towards larger magnitude
  const float even = f32_of(a);
  const std::uint32_t eb = dd::bits_of(even);
  float lower, upper;
  if (T(even) < a) {
    lower = even;
    upper = dd::float_from_bits(eb + 1U);
  } else {
    upper = even;
    lower = dd::float_from_bits(eb - 1U);
  }
  const float r = away ? upper : lower;
  return neg ? -r : r;
}

// Nearest float to V = (hi + lo) * 2^k, hi > 0 in [2^-4, 2^4],
// |V - (hi + lo) 2^k| <= err_rel * hi * 2^k, 2^-104 <= err_rel <= 2^-60,
// -1000 <= k <= 1000. Rounds the two ends of the interval to double and
// then to float; decided when both give the same float and neither double is
// a float midpoint (then no float midpoint lies inside the interval, so
// double rounding cannot occur: see docs/rmath.md).
template <class T>
EXACTVMAF_HD_INLINE bool round_scaled_to_float(T hi, T lo, T err_rel, int k, float* out) {
  const int eh = static_cast<int>((u64_of(hi) >> 52) & 0x7ff) - 1023;
  if (eh + k > 130) {
    *out = dd::float_from_bits(0x7f800000U);
    return true;
  }
  if (eh + k < -160) {
    *out = 0.0f;
    return true;
  }
  const T scale = of_u64<T>(static_cast<std::uint64_t>(k + 1023) << 52);  // 2^k
  const T sh = hi * scale;  // exact: normal double range
  const T sl = lo * scale;
  const T e = 2.0 * err_rel * sh;
  const T up = sh + (sl + e);
  const T dn = sh + (sl - e);
  const float fu = f32_of(up);
  const float fd = f32_of(dn);
  if (fu != fd) return false;
  if (is_float_midpoint(up) || is_float_midpoint(dn)) return false;
  *out = fu;
  return true;
}

// Same for a value of either sign with k = 0 (log2f).
template <class T>
EXACTVMAF_HD_INLINE bool round_to_float(T hi, T lo, T err_abs, float* out) {
  const T e = 2.0 * err_abs;
  const T up = hi + (lo + e);
  const T dn = hi + (lo - e);
  const float fu = f32_of(up);
  const float fd = f32_of(dn);
  if (fu != fd) return false;
  if (is_float_midpoint(up) || is_float_midpoint(dn)) return false;
  *out = fu;
  return true;
}

}  // namespace exactvmaf::rmath::detail
