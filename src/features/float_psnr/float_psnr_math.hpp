// float_psnr (libvmaf float_psnr.c + psnr.c): samples become floats
// (v / 2^(bpc-8)), squared differences are float products summed in double
// in raster order, then 10*log10(peak^2 / max(noise, 1e-10)), capped.
#pragma once
#include <cstdint>

#include "numeric/cr_log.hpp"
#include "numeric/exact_ops.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::float_psnr {

struct Constants {
  double peak;
  double psnr_max;
  float scaler;  // picture_copy's divisor (1 for 8-bit)
};

inline Constants constants(unsigned bpc) {
  switch (bpc) {
    case 8: return {255.0, 60.0, 1.0f};
    case 10: return {255.75, 72.0, 4.0f};
    case 12: return {255.9375, 84.0, 16.0f};
    default: return {255.99609375, 108.0, 256.0f};  // 16
  }
}

// picture_copy: (float)v / scaler + 0 (the int offset 0 adds exactly).
EXACTVMAF_HD inline float to_float(std::uint16_t v, float scaler) { return static_cast<float>(v) / scaler; }

// One sample's contribution: the float product of the float difference.
EXACTVMAF_HD inline float squared_diff(float ref, float dis) {
  const float diff = ref - dis;
  return diff * diff;
}

// For bpc <= 12 every difference, square and partial sum above is exact
// (squares < 2^24 ulps of 2^-2(bpc-8), frame totals < 2^53 of them), so the
// raster-order double sum equals the integer SSE scaled by 2^-2(bpc-8).
// This says when that holds for a frame of n samples.
inline bool integer_sum_is_exact(unsigned bpc, std::uint64_t n) {
  if (bpc > 12) return false;
  const std::uint64_t max_sq = static_cast<std::uint64_t>((1u << bpc) - 1) * ((1u << bpc) - 1);
  return n <= (std::uint64_t{1} << 53) / max_sq;
}

inline double noise_from_integer_sse(std::uint64_t sse, float scaler) {
  const double s = static_cast<double>(scaler);
  return static_cast<double>(sse) / (s * s);  // exact: power-of-two divisor, sse < 2^53
}

// One sample's square in units of scaler^-2: an integer below 2^32 (the
// difference is a multiple of 1/scaler below 256, its float square a
// multiple of 1/scaler^2), so a frame's squares add exactly as integers.
// While that sum stays below 2^53 every partial sum of upstream's double
// chain of these nonnegative terms is exact too: noise_from_integer_sse of
// it is upstream's sum (the device's path; any bit depth).
EXACTVMAF_HD_INLINE std::uint32_t scaled_square(float ref, float dis, float scaler) {
  return static_cast<std::uint32_t>(squared_diff(ref, dis) * (scaler * scaler));
}
inline constexpr std::uint64_t kExactChainLimit = std::uint64_t{1} << 53;

// noise /= (w*h) with int w*h; score = MIN(10*log10(peak^2/MAX(noise,1e-10)), psnr_max).
inline double score(double noise_sum, int w, int h, const Constants& c) {
  const double noise = noise_sum / static_cast<double>(w * h);
  const double eps = 1e-10;
  return rmath::c_min(10 * rmath::cr_log10(c.peak * c.peak / rmath::c_max(noise, eps)), c.psnr_max);
}

}  // namespace exactvmaf::float_psnr
