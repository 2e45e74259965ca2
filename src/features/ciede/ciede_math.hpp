// CIEDE2000 (libvmaf ciede.c at f85a853), the whole per-pixel arithmetic,
// host and device. Upstream's statements with every C type written out:
//   - Lab is computed in double from the YUV samples (BT.709 limited range),
//     with pow(x, 2.4) and pow(c, 1.0 / 3.0) (the double nearest 1/3, not
//     cbrt); xyz_to_lab_map returns float, so the three Lab intermediates and
//     L, a, b are float.
//   - The CIEDE2000 formula stores every named value in float; the
//     sub-expressions are double where C makes them double: a float passed to
//     atan2, sqrt, sin, cos, exp or pow is promoted to double (C has no float
//     overloads), powf(x, 7) is float, pow(x, 2) of a float is the exact
//     double square (gcc emits x * x), float op int stays float.
// The elementary functions come from a policy M (HostMath: R's host
// functions; FastMath: the host+device fast paths, which flag an undecided
// call so that the caller can recompute the sample on the host). sqrt is the
// IEEE square root (correctly rounded by definition).
#pragma once
#include <cstdint>

#include "numeric/cr_exp.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/cr_trig.hpp"
#include "numeric/hd.hpp"

namespace exactvmaf::ciede {

// ---- elementary functions ---------------------------------------------------

EXACTVMAF_HD_INLINE double sqrt_f64(double x) {
#if EXACTVMAF_DEVICE_CODE
  return __dsqrt_rn(x);
#else
  return __builtin_sqrt(x);  // IEEE square root (sqrtsd)
#endif
}

// R's host functions: correct rounding for every argument.
struct HostMath {
  static double pow_f64(double x, double y) { return rmath::cr_pow(x, y); }
  static float powf_f32(float x, float y) { return rmath::cr_powf(x, y); }
  static double atan2_f64(double y, double x) { return rmath::cr_atan2(y, x); }
  static double sin_f64(double x) { return rmath::cr_sin(x); }
  static double cos_f64(double x) { return rmath::cr_cos(x); }
  static double exp_f64(double x) { return rmath::cr_exp(x); }
};

// The fast paths only (host and device): `undecided` becomes true when a call
// could not decide its rounding; the sample's value is then not R's and must
// be recomputed with HostMath.
struct FastMath {
  bool undecided = false;
  EXACTVMAF_HD_INLINE double pow_f64(double x, double y) {
    double r = 0.0;
    if (!rmath::cr_pow_fast(x, y, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE float powf_f32(float x, float y) {
    float r = 0.0f;
    if (!rmath::cr_powf_fast(x, y, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE double atan2_f64(double y, double x) {
    double r = 0.0;
    if (!rmath::cr_atan2_fast(y, x, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE double sin_f64(double x) {
    double r = 0.0;
    if (!rmath::cr_sin_fast(x, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE double cos_f64(double x) {
    double r = 0.0;
    if (!rmath::cr_cos_fast(x, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE double exp_f64(double x) {
    double r = 0.0;
    if (!rmath::cr_exp_fast(x, &r)) undecided = true;
    return r;
  }
};

// ---- constants (C's M_PI and upstream's literals; folded in double) --------

inline constexpr double kPi = 3.14159265358979323846;  // M_PI
inline constexpr double kTwoPi = 2. * kPi;
inline constexpr double kPiOver6 = kPi / 6.0;
inline constexpr double kPiOver30 = kPi / 30.0;
inline constexpr double kSevenPiOver20 = 7.0 * kPi / 20.0;  // (7.0 * M_PI) / 20.0
inline constexpr double kRadToDeg = 180.0 / kPi;
inline constexpr double kDegToRad = kPi / 180.0;
inline constexpr double kPow25_7 = 6103515625.0;  // 25^7, exact in double (upstream constant-folded)
// 25^7 rounded to float, as gcc folds upstream's float power correctly rounded.
inline constexpr float kPowf25_7 = static_cast<float>(6103515625.0);

EXACTVMAF_HD_INLINE double d(float x) { return static_cast<double>(x); }
EXACTVMAF_HD_INLINE float f(double x) { return static_cast<float>(x); }

// ---- YUV -> Lab -------------------------------------------------------------

struct Lab {
  float l, a, b;
};

// Offsets and scales of get_lab_color for a bit depth (scale = 1 << (bpc - 8)).
struct LabScale {
  double y_offset, c_offset;  // 16 * scale, 128 * scale
  double y_mul, c_mul;        // 1. / (219. * scale), 1. / (224. * scale)
};

EXACTVMAF_HD_INLINE LabScale lab_scale(unsigned bpc) {
  const double scale = static_cast<double>(1u << (bpc - 8));
  return {16. * scale, 128. * scale, 1. / (219. * scale), 1. / (224. * scale)};
}

template <class M>
EXACTVMAF_HD_INLINE double rgb_to_xyz_map(double c, M& m) {
  constexpr double kThreshold = 10. / 255.;
  if (c > kThreshold) {
    constexpr double A = 0.055;
    constexpr double D = 1.0 / 1.055;
    return m.pow_f64((c + A) * D, 2.4);
  }
  constexpr double D = 1.0 / 12.92;
  return c * D;
}

template <class M>
EXACTVMAF_HD_INLINE float xyz_to_lab_map(double c, M& m) {
  constexpr double kKappa = 24389.0 / 27.0;
  constexpr double kEpsilon = 216.0 / 24389.0;
  if (c > kEpsilon) return f(m.pow_f64(c, 1.0 / 3.0));
  return f((kKappa * c + 16.0) * (1.0 / 116.0));
}

// get_lab_color with integer samples (upstream converts them to float and
// then to double: both exact).
template <class M>
EXACTVMAF_HD_INLINE Lab lab_from_yuv(unsigned y_sample, unsigned u_sample, unsigned v_sample, const LabScale& s,
                                     M& m) {
  const double y = (static_cast<double>(y_sample) - s.y_offset) * s.y_mul;
  const double u = (static_cast<double>(u_sample) - s.c_offset) * s.c_mul;
  const double v = (static_cast<double>(v_sample) - s.c_offset) * s.c_mul;

  double r = y + 1.28033 * v;
  double g = y - 0.21482 * u - 0.38059 * v;
  double b = y + 2.12798 * u;
  r = rgb_to_xyz_map(r, m);
  g = rgb_to_xyz_map(g, m);
  b = rgb_to_xyz_map(b, m);

  const double x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
  const double yy = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
  const double z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;

  const double lx = d(xyz_to_lab_map(x * (1.0 / 0.95047), m));
  const double ly = d(xyz_to_lab_map(yy, m));
  const double lz = d(xyz_to_lab_map(z * (1.0 / 1.08883), m));
  return {f((116.0 * ly) - 16.0), f(500.0 * (lx - ly)), f(200.0 * (ly - lz))};
}

// ---- CIEDE2000 --------------------------------------------------------------

template <class M>
EXACTVMAF_HD_INLINE float h_prime(float x, float y, M& m) {
  if ((d(x) == 0.0) && (d(y) == 0.0)) return 0.0f;
  float hue_angle = f(m.atan2_f64(d(x), d(y)));
  if (d(hue_angle) < 0.0) hue_angle = f(d(hue_angle) + kTwoPi);
  return hue_angle;
}

EXACTVMAF_HD_INLINE float delta_h_prime(float c1, float c2, float h_prime_1, float h_prime_2) {
  if ((d(c1) == 0.0) || (d(c2) == 0.0)) return 0.0f;
  const float diff = h_prime_2 - h_prime_1;
  const float abs_diff = h_prime_1 - h_prime_2 < 0.0f ? -(h_prime_1 - h_prime_2) : h_prime_1 - h_prime_2;  // fabsf
  if (d(abs_diff) <= kPi) return diff;
  if (h_prime_2 <= h_prime_1) return f(d(diff) + kTwoPi);
  return f(d(diff) - kTwoPi);
}

EXACTVMAF_HD_INLINE float upcase_h_bar_prime(float h_prime_1, float h_prime_2) {
  const double diff = d(h_prime_1 - h_prime_2);  // float difference, then fabs in double
  const double abs_diff = diff < 0.0 ? -diff : diff;
  const float sum = h_prime_1 + h_prime_2;  // float (left operands first)
  return abs_diff > kPi ? f((d(sum) + kTwoPi) / 2.0) : f(d(sum) / 2.0);
}

template <class M>
EXACTVMAF_HD_INLINE float upcase_t(float h_bar, M& m) {
  const double h = d(h_bar);
  return f(1.0 - 0.17 * m.cos_f64(h - kPiOver6) + 0.24 * m.cos_f64(2.0 * h) +
           0.32 * m.cos_f64(3.0 * h + kPiOver30) - 0.20 * m.cos_f64(4.0 * h - kSevenPiOver20));
}

EXACTVMAF_HD_INLINE float radians_to_degrees(float radians) { return f(d(radians) * kRadToDeg); }
EXACTVMAF_HD_INLINE float degrees_to_radians(float degrees) { return f(d(degrees) * kDegToRad); }

template <class M>
EXACTVMAF_HD_INLINE float r_sub_t(float c_bar_prime, float h_bar, M& m) {
  const float degrees = f((d(radians_to_degrees(h_bar)) - 275.0) * (1.0 / 25.0));
  const float c7 = m.powf_f32(c_bar_prime, 7.0f);
  const float ratio = c7 / (c7 + kPowf25_7);  // upstream evaluates c^7 twice: same value
  const float degrees_sq = degrees * degrees;  // upstream squares with a float power; gcc emits this product
  const float angle_deg = f(60.0 * m.exp_f64(d(-degrees_sq)));  // degrees_to_radians takes a float
  return f(-2.0 * sqrt_f64(d(ratio)) * m.sin_f64(d(degrees_to_radians(angle_deg))));
}

// KSubArgs { 0.65, 1.0, 4.0 } as floats.
inline constexpr float kKL = 0.65f, kKC = 1.0f, kKH = 4.0f;

template <class M>
EXACTVMAF_HD_INLINE float ciede2000(const Lab& c1_lab, const Lab& c2_lab, M& m) {
  const float delta_l_prime = c2_lab.l - c1_lab.l;
  const float l_bar = (c1_lab.l + c2_lab.l) / 2.0f;
  const float c1 = f(sqrt_f64(d(c1_lab.a) * d(c1_lab.a) + d(c1_lab.b) * d(c1_lab.b)));
  const float c2 = f(sqrt_f64(d(c2_lab.a) * d(c2_lab.a) + d(c2_lab.b) * d(c2_lab.b)));
  const float c_bar = (c1 + c2) / 2.0f;
  const double c_bar7 = m.pow_f64(d(c_bar), 7.0);
  const double g_factor = 1 - sqrt_f64(c_bar7 / (c_bar7 + kPow25_7));
  const float a_prime_1 = f(d(c1_lab.a) + d(c1_lab.a / 2.0f) * g_factor);
  const float a_prime_2 = f(d(c2_lab.a) + d(c2_lab.a / 2.0f) * g_factor);
  const float c_prime_1 = f(sqrt_f64(d(a_prime_1) * d(a_prime_1) + d(c1_lab.b) * d(c1_lab.b)));
  const float c_prime_2 = f(sqrt_f64(d(a_prime_2) * d(a_prime_2) + d(c2_lab.b) * d(c2_lab.b)));
  const float c_bar_prime = (c_prime_1 + c_prime_2) / 2.0f;
  const float delta_c_prime = c_prime_2 - c_prime_1;
  const double l_off = d(l_bar - 50.0f);
  const double l_off_sq = l_off * l_off;
  const float s_sub_l = f(1. + ((0.015 * l_off_sq) / sqrt_f64(20 + l_off_sq)));
  const float s_sub_c = f(1. + 0.045 * d(c_bar_prime));
  const float h_prime_1 = h_prime(c1_lab.b, a_prime_1, m);
  const float h_prime_2 = h_prime(c2_lab.b, a_prime_2, m);
  const float dh_prime = delta_h_prime(c1, c2, h_prime_1, h_prime_2);
  const float delta_upcase_h_prime =
      f(2.0 * sqrt_f64(d(c_prime_1 * c_prime_2)) * m.sin_f64(d(dh_prime) / 2.0));
  const float h_bar = upcase_h_bar_prime(h_prime_1, h_prime_2);
  const float t = upcase_t(h_bar, m);
  const float s_sub_upcase_h = f(1.0 + 0.015 * d(c_bar_prime) * d(t));
  const float rt = r_sub_t(c_bar_prime, h_bar, m);
  const float lightness = delta_l_prime / (kKL * s_sub_l);
  const float chroma = delta_c_prime / (kKC * s_sub_c);
  const float hue = delta_upcase_h_prime / (kKH * s_sub_upcase_h);
  return f(sqrt_f64(d(lightness) * d(lightness) + d(chroma) * d(chroma) + d(hue) * d(hue) +
                    d(rt * chroma * hue)));
}

// One pixel pair from its samples. Equal samples give exactly +0 without
// evaluating anything (docs/features/ciede.md: every difference in the
// formula is then +0 and every divisor >= 1).
template <class M>
EXACTVMAF_HD_INLINE float pixel_delta_e(unsigned ry, unsigned ru, unsigned rv, unsigned dy, unsigned du, unsigned dv,
                                        const LabScale& s, M& m) {
  if (ry == dy && ru == du && rv == dv) return 0.0f;
  return ciede2000(lab_from_yuv(ry, ru, rv, s, m), lab_from_yuv(dy, du, dv, s, m), m);
}

// The frame value from the (exactly summed, once rounded) per-pixel floats:
// 45. - 20. * log10(sum / (w * h)), w * h an unsigned product as upstream.
// Identical frames: log10(0) = -inf, so +inf.
inline double frame_score(double de00_sum, unsigned w, unsigned h) {
  return 45. - 20. * rmath::cr_log10(de00_sum / static_cast<double>(w * h));
}

}  // namespace exactvmaf::ciede
