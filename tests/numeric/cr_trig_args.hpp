// Argument generators for the cr_trig tests (host): the ranges ciede feeds
// sin, cos and atan2 (libvmaf ciede.c at f85a853), moderate and full ranges.
#pragma once

#include <cstdint>
#include <cstring>

namespace exactvmaf::test {

// splitmix64: small, fast, the same sequence everywhere.
struct SplitMix64 {
  std::uint64_t state;
  explicit SplitMix64(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  double any_double() {
    const std::uint64_t u = next();
    double d;
    std::memcpy(&d, &u, sizeof d);
    return d;
  }
  // |x| log-uniform in [2^lo_exp, 2^hi_exp), random sign.
  double log_uniform(int lo_exp, int hi_exp) {
    const int e = lo_exp + static_cast<int>(next() % static_cast<std::uint64_t>(hi_exp - lo_exp));
    double m = 1.0 + uniform();  // [1, 2)
    for (int i = 0; i < e; ++i) m *= 2.0;
    for (int i = 0; i > e; --i) m *= 0.5;
    return (next() & 1) ? -m : m;
  }
};

enum class TrigRange {
  kCiedeSinHalfHue,  // sin(delta_h_prime / 2.0): a float in [-pi/2, pi/2]
  kCiedeSinRt,       // sin(degrees_to_radians(60 exp(-d^2))): a float in (0, 1.0472]
  kCiedeCos,         // the four cos() arguments of get_upcase_t for a float hue in [0, 2 pi)
  kModerate,         // |x| log-uniform in [2^-30, 2^22]
  kNearPiOver2,      // nearest doubles (+- a few ulps) to k pi/2, k up to 2^22
  kFull,             // any bit pattern
};

inline const char* trig_range_name(TrigRange r) {
  switch (r) {
    case TrigRange::kCiedeSinHalfHue: return "ciede sin(dh/2)";
    case TrigRange::kCiedeSinRt: return "ciede sin(R_T)";
    case TrigRange::kCiedeCos: return "ciede cos(T)";
    case TrigRange::kModerate: return "moderate 2^-30..2^22";
    case TrigRange::kNearPiOver2: return "near k pi/2";
    case TrigRange::kFull: return "all doubles";
  }
  return "?";
}

inline double step_ulps(double x, int k) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  u += static_cast<std::uint64_t>(static_cast<std::int64_t>(k));
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// One argument for sin/cos from the range.
inline double trig_arg(TrigRange range, SplitMix64& rng) {
  constexpr double kPi = 3.141592653589793;
  switch (range) {
    case TrigRange::kCiedeSinHalfHue: {
      const float dh = static_cast<float>(rng.uniform(-kPi, kPi));
      return static_cast<double>(dh) / 2.0;
    }
    case TrigRange::kCiedeSinRt: {
      const double e = rng.uniform(0.0, 1.0);  // stands for exp(-d^2)
      const float deg = static_cast<float>(60.0 * e);
      return static_cast<double>(static_cast<float>(static_cast<double>(deg) * (kPi / 180.0)));
    }
    case TrigRange::kCiedeCos: {
      const float h = static_cast<float>(rng.uniform(0.0, 2.0 * kPi));
      const double hd = static_cast<double>(h);
      switch (rng.next() & 3) {
        case 0: return hd - kPi / 6.0;
        case 1: return 2.0 * hd;
        case 2: return 3.0 * hd + kPi / 30.0;
        default: return 4.0 * hd - 7.0 * kPi / 20.0;
      }
    }
    case TrigRange::kModerate: return rng.log_uniform(-30, 22);
    case TrigRange::kNearPiOver2: {
      const double k = static_cast<double>(1 + rng.next() % 2670176ull);  // k pi/2 < 2^22
      const double x = k * 1.5707963267948966;  // within 2^-30 relative of k pi/2
      // step to the double nearest the exact multiple by a few ulps either way
      return step_ulps(x, static_cast<int>(rng.next() % 65) - 32);
    }
    case TrigRange::kFull: return rng.any_double();
  }
  return 0.0;
}

enum class Atan2Range {
  kCiedeLab,   // atan2(b, a'): floats in [-200, 200], a quarter of them within 1e-3 of 0
  kModerate,   // both log-uniform in [2^-60, 2^60]
  kFull,       // any bit patterns
};

inline const char* atan2_range_name(Atan2Range r) {
  switch (r) {
    case Atan2Range::kCiedeLab: return "ciede atan2(b, a')";
    case Atan2Range::kModerate: return "moderate 2^-60..2^60";
    case Atan2Range::kFull: return "all doubles";
  }
  return "?";
}

inline void atan2_args(Atan2Range range, SplitMix64& rng, double* y, double* x) {
  switch (range) {
    case Atan2Range::kCiedeLab: {
      const double sy = (rng.next() & 3) == 0 ? 1e-3 : 200.0;
      const double sx = (rng.next() & 3) == 0 ? 1e-3 : 200.0;
      *y = static_cast<double>(static_cast<float>(rng.uniform(-sy, sy)));
      *x = static_cast<double>(static_cast<float>(rng.uniform(-sx, sx)));
      return;
    }
    case Atan2Range::kModerate:
      *y = rng.log_uniform(-60, 60);
      *x = rng.log_uniform(-60, 60);
      return;
    case Atan2Range::kFull:
      *y = rng.any_double();
      *x = rng.any_double();
      return;
  }
}

}  // namespace exactvmaf::test
