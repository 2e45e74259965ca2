// float_vif (libvmaf float_vif.c, vif.c and vif_tools.c at f85a853): the
// per-sample arithmetic, host and device. R is upstream's scalar C
// (--cpumask 63). Four scales; scale s > 0 is the previous scale filtered
// with scale s's Gaussian and decimated by 2 (vif_dec2_s: even rows and
// columns); every scale filters ref, dis, ref², dis² and ref·dis with its
// Gaussian (separable_filter.hpp, taps and window from vif_tools.hpp) and
// sums vif_statistic_s's per-sample terms: float sums per row, rows added in
// float. upstream's log2f there is its own float polynomial
// (VIF_OPT_FAST_LOG2), so no libm function is called per sample.
//
// fp64 islands (docs/numerics.md): the two log arguments, where a float
// meets the double option vif_sigma_nsq, and the sigma1² < nsq test.
#pragma once
#include <cstdint>

#include "numeric/dd.hpp"
#include "numeric/f64_policy.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::float_vif {

inline constexpr int num_scales = 4;

// vif_tools.c log2f_approx: exponent plus a degree-8 polynomial of the
// mantissa in [1, 2) - 1, Horner in float. The coefficients are double
// literals stored in a float array.
EXACTVMAF_HD_INLINE float log2f_approx(float x) {
  if (x == 0) return dd::float_from_bits(0xFF800000U);  // -INFINITY
  if (x < 0) return dd::float_from_bits(0x7FC00000U);   // NAN
  const float poly[9] = {static_cast<float>(-0.012671635276421), static_cast<float>(0.064841182402670),
                         static_cast<float>(-0.157048836463065), static_cast<float>(0.257167726303123),
                         static_cast<float>(-0.353800560300520), static_cast<float>(0.480131410397451),
                         static_cast<float>(-0.721314327952201), static_cast<float>(1.442694803896991), 0.0f};
  const std::uint32_t u = dd::bits_of(x);
  const std::uint32_t exponent = (u & 0x7F800000U) >> 23;
  const float remain = dd::float_from_bits((u & 0x007FFFFFU) | 0x3F800000U);
  const float t = remain - 1.0f;
  float var = 0;
  for (int i = 0; i < 9; ++i) var = var * t + poly[i];
  const float log_base = static_cast<float>(static_cast<std::int32_t>(exponent) - 127);
  return log_base + var;
}

// The statistic's constants for one run.
struct StatParams {
  float gain_limit = 100.0f;  // (float)vif_enhn_gain_limit
  double sigma_nsq = 2.0;     // vif_sigma_nsq, a double
  float sigma_max_inv = 0;    // nsq squared (upstream: powf of nsq and 2.0f) / (255.0 * 255.0), to float
  // nsq is not a float: then R's double 1 + sigma1²/nsq lands exactly on a
  // float midpoint for several percent of sigma1² values (docs/fp64-free.md),
  // which pairs cannot see; that island goes to Sf64 directly.
  bool den_in_sf64 = false;
};

// Host: powf((float)nsq, 2.0f) is the float square (one IEEE product of a
// float, the correctly rounded value), the quotient double, stored to float.
inline StatParams make_stat_params(double gain_limit, double sigma_nsq) {
  StatParams p;
  p.gain_limit = static_cast<float>(gain_limit);
  p.sigma_nsq = sigma_nsq;
  const float n = static_cast<float>(sigma_nsq);
  p.sigma_max_inv = static_cast<float>(static_cast<double>(n * n) / (255.0 * 255.0));
  p.den_in_sf64 = static_cast<double>(n) != sigma_nsq;
  return p;
}

// fp64 islands, written against the fp64 policy F (numeric/f64_policy.hpp):
// the hardware's double, or fp32 pairs with Sf64 replays on devices without
// fp64 (docs/fp64-free.md).

// 1.0f + (g·g·sigma1²) / (sv² + nsq): the quotient and sum in double (sv² +
// nsq is float + double), to float for log2f.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE float num_log_arg_f64(float g2s1, float sv_sq, double nsq, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  return f.to_f32(D(1.0) + D(g2s1) / (D(sv_sq) + D(nsq)));
}

// 1.0f + sigma1² / nsq in double, to float.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE float den_log_arg_f64(float s1, double nsq, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  return f.to_f32(D(1.0) + D(s1) / D(nsq));
}

// sigma1² < nsq compares in double (exact).
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE bool below_nsq_f64(float s1, double nsq, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  return f.lt(D(s1), D(nsq));
}

struct Terms {
  float num, den;
};

// vif_statistic_s's terms of one sample ('matching_matlab' mode) from the
// five filtered values; `arith` evaluates the islands (the outer policy:
// NativeF64, or Fp32PairArith, which counts them).
template <class Arith = rmath::NativeF64>
EXACTVMAF_HD_INLINE Terms statistic(float mu1, float mu2, float xx, float yy, float xy, const StatParams& p,
                                    Arith&& arith = Arith{}) {
  const float eps = 1.0e-10f;
  float sigma1_sq = xx - mu1 * mu1;
  float sigma2_sq = yy - mu2 * mu2;
  const float sigma12 = xy - mu1 * mu2;
  sigma1_sq = sigma1_sq > 0.0f ? sigma1_sq : 0.0f;  // MAX(x, 0.0f)
  sigma2_sq = sigma2_sq > 0.0f ? sigma2_sq : 0.0f;
  float g = sigma12 / (sigma1_sq + eps);
  float sv_sq = sigma2_sq - g * sigma12;
  if (sigma1_sq < eps) {
    g = 0.0f;
    sv_sq = sigma2_sq;
    sigma1_sq = 0.0f;
  }
  if (sigma2_sq < eps) {
    g = 0.0f;
    sv_sq = 0.0f;
  }
  if (g < 0.0f) {
    sv_sq = sigma2_sq;
    g = 0.0f;
  }
  sv_sq = sv_sq > eps ? sv_sq : eps;
  g = g < p.gain_limit ? g : p.gain_limit;  // MIN
  Terms t;
  const float g2s1 = g * g * sigma1_sq;
  t.num = log2f_approx(arith.island([&](auto& f) { return num_log_arg_f64(g2s1, sv_sq, p.sigma_nsq, f); }));
  const auto den_arg = [&](auto& f) { return den_log_arg_f64(sigma1_sq, p.sigma_nsq, f); };
  t.den = log2f_approx(p.den_in_sf64 ? arith.exact_island(den_arg) : arith.island(den_arg));
  if (sigma12 < 0.0f) t.num = 0.0f;
  if (arith.island([&](auto& f) { return below_nsq_f64(sigma1_sq, p.sigma_nsq, f); })) {
    t.num = 1.0f - sigma2_sq * p.sigma_max_inv;
    t.den = 1.0f;
  }
  return t;
}

// One frame's per-scale float sums, as compute_vif stores them to double.
struct ScaleSums {
  float num[num_scales] = {};
  float den[num_scales] = {};
};

// The outputs in float_vif.c's order and arithmetic (double).
struct Scores {
  double scale[num_scales];            // vif_scale0..3
  double score, score_num, score_den;  // vif, vif_num, vif_den (debug)
  double num[num_scales], den[num_scales];
};

struct ScoreOptions {
  bool skip_scale0 = false;
  double min_val[num_scales] = {0, 0, 0, 0};  // vif_scale{1,2,3}_min_val (scale 0 has none)
};

inline Scores scores(const ScaleSums& s, const ScoreOptions& o) {
  Scores r{};
  const int start = o.skip_scale0 ? 1 : 0;
  double v[2 * num_scales] = {};
  for (int k = start; k < num_scales; ++k) {
    v[2 * k] = static_cast<double>(s.num[k]);
    v[2 * k + 1] = static_cast<double>(s.den[k]);
  }
  r.score_num = 0.0;
  r.score_den = 0.0;
  for (int k = start; k < num_scales; ++k) {
    r.score_num += v[2 * k];
    r.score_den += v[2 * k + 1];
  }
  r.score = r.score_den == 0.0 ? static_cast<double>(1.0f) : r.score_num / r.score_den;
  r.scale[0] = o.skip_scale0 ? static_cast<double>(0.0f) : v[0] / v[1];
  for (int k = 1; k < num_scales; ++k) {
    const double q = v[2 * k] / v[2 * k + 1];
    r.scale[k] = q > o.min_val[k] ? q : o.min_val[k];  // MAX
  }
  for (int k = 0; k < num_scales; ++k) {
    r.num[k] = v[2 * k];
    r.den[k] = v[2 * k + 1];
  }
  if (o.skip_scale0) {
    r.num[0] = static_cast<double>(0.0f);
    r.den[0] = static_cast<double>(-1.0f);
  }
  return r;
}

}  // namespace exactvmaf::float_vif
