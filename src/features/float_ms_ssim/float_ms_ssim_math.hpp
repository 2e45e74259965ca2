// float_ms_ssim (libvmaf float_ms_ssim.c, ms_ssim.c and iqa/ at f85a853):
// Wang's multi-scale SSIM over 5 scales of the luma plane (picture_copy,
// offset 0). Scale i+1 is scale i low-passed with the 9x9 table of the 9/7
// biorthogonal wavelet and decimated by 2 (common/ssim_common.hpp's
// decimation, iqa's symmetric edge); each scale's l, c, s means come from
// _iqa_ssim's default path (common/ssim_common.hpp); the product of their
// powers is taken in double with R's pow. docs/features/float_ms_ssim.md.
#pragma once
#include "features/common/ssim_common.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::float_ms_ssim {

using ssim::decimated_size;
using ssim::input_sample;

inline constexpr int num_scales = 5;
inline constexpr int lpf_len = 9;

// ms_ssim.c's check before any scale is made: the size halved (rounding
// down) 4 times stays at least the window's 11, i.e. w and h >= 176. (The
// scales themselves round up: n / 2 + (n & 1).)
EXACTVMAF_HD_INLINE bool scales_fit(int w, int h) {
  for (int i = 0; i < num_scales; ++i) {
    if (w < ssim::window_len || h < ssim::window_len) return false;
    w /= 2;
    h /= 2;
  }
  return true;
}
inline constexpr int min_size = 176;

// The 2-D low-pass g_lpf, row-major (the decimation reads the 2-D table, not
// its separable g_lpf_h / g_lpf_v, which are not its factors).
EXACTVMAF_HD_INLINE float lpf_tap(int k) {
  const float taps[lpf_len * lpf_len] = {
      0.000714f,  -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f, 0.000714f,
      -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
      -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f,
      0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,
      0.016114f,  -0.010146f, -0.047149f, 0.160885f,  0.363505f,  0.160885f,  -0.047149f, -0.010146f, 0.016114f,
      0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,
      -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f,
      -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
      0.000714f,  -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f, 0.000714f,
  };
  return taps[k];
}
struct LpfTaps {
  EXACTVMAF_HD_INLINE float operator()(int k) const { return lpf_tap(k); }
};

// One sample (x, y) of scale i+1 from the w x h plane of scale i (F: the f64
// policy, see common/ssim_common.hpp).
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE float decimated_sample(const float* img, int w, int h, int x, int y, F&& f = F{}) {
  return ssim::decimate_sample(LpfTaps{}, lpf_len, img, w, h, 2 * x, 2 * y, f);
}

// Wang's exponents per scale (floats, passed to pow as doubles): alpha for
// l, beta for c, gamma (equal to beta) for s.
EXACTVMAF_HD_INLINE float l_exponent(int scale) {
  const float a[num_scales] = {0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f};
  return a[scale];
}
EXACTVMAF_HD_INLINE float c_exponent(int scale) {
  const float b[num_scales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};
  return b[scale];
}
EXACTVMAF_HD_INLINE float s_exponent(int scale) { return c_exponent(scale); }  // gamma equals beta

// msssim *= pow(l, alpha) * pow(c, beta) * pow(s, gamma) for one scale's
// float means, in double, left to right; R's correctly rounded pow (host),
// with pow(x, 0) = 1 for every x (the first four scales' alpha).
inline double combine(double msssim, const ssim::Means& m, int scale) {
  return msssim * (rmath::cr_pow(static_cast<double>(m.l), static_cast<double>(l_exponent(scale))) *
                   rmath::cr_pow(static_cast<double>(m.c), static_cast<double>(c_exponent(scale))) *
                   rmath::cr_pow(static_cast<double>(m.s), static_cast<double>(s_exponent(scale))));
}

}  // namespace exactvmaf::float_ms_ssim
