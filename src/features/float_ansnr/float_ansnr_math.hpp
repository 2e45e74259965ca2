// float_ansnr (libvmaf float_ansnr.c + ansnr.c + ansnr_tools.c, f85a853): the
// whole per-frame arithmetic, host and device (docs/features/float_ansnr.md).
//
// Luma samples become floats v = (float)s / scaler - 128 (exact). The
// reference is filtered with the 3x3 kernel (1 2 1)x(1 2 1)/16, the
// distorted picture with the 5x5 kernel /571; both kernels are 2-D loops:
// per output sample, per kernel row fi a float sum over fj from 0 of
// tap * sample, the row sums added in float from 0. Borders mirror as
// ansnr_tools (-k below 0, 2n - k - 1 above: the edge sample repeats at the
// far end, not at the near one; not VIF's 2n - k - 2). Then per picture row
// the float sums of r*r (signal) and (r - d)*(r - d) (noise) from 0, added
// row by row into float frame sums; and
//   float_ansnr  = psnr_max when noise == 0, else 10.0 * log10(sig / noise)
//                  (a float quotient; the flat reference gives log10(0) = -inf),
//   float_anpsnr = MIN(10 * log10(peak * peak * w * h / MAX(noise, 1e-10)), psnr_max)
// in double with R's correctly rounded log10.
#pragma once
#include <cstdint>

#include "features/float_psnr/float_psnr_math.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/exact_ops.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::float_ansnr {

// The same table as float_psnr's (upstream's values per bit depth): peak, the
// psnr cap and picture_copy's divisor.
using float_psnr::Constants;
using float_psnr::constants;

// Upstream's table; init refuses other bit depths (-ENOMEM there).
inline bool supported_bitdepth(unsigned bpc) { return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16; }

// picture_copy with offset -128: (float)s / scaler + (-128), exact (the
// division is by a power of two; 8-bit input divides by 1).
EXACTVMAF_HD_INLINE float sample_value(std::uint16_t s, float scaler) {
  return static_cast<float>(s) / scaler + static_cast<float>(-128);
}

// The kernels: upstream's float taps are double quotients k/16.0 and k/571.0
// rounded to float.
inline constexpr int kRefWidth = 3;
inline constexpr int kDisWidth = 5;
EXACTVMAF_HD_INLINE float ref_tap(int fi, int fj) {
  const int n[3] = {1, 2, 1};
  return static_cast<float>(static_cast<double>(n[fi] * n[fj]) / 16.0);
}
EXACTVMAF_HD_INLINE float dis_tap(int fi, int fj) {
  const int n[5][5] = {{2, 7, 12, 7, 2},
                       {7, 31, 52, 31, 7},
                       {12, 52, 127, 52, 12},
                       {7, 31, 52, 31, 7},
                       {2, 7, 12, 7, 2}};
  return static_cast<float>(static_cast<double>(n[fi][fj]) / 571.0);
}

// ansnr_tools' border: -k below 0, 2n - k - 1 at or above n (one
// reflection: the caller guarantees n >= 3, so a radius of 2 stays inside).
EXACTVMAF_HD_INLINE int mirror(int k, int n) { return k < 0 ? -k : (k >= n ? 2 * n - k - 1 : k); }
inline constexpr unsigned kMinSize = 3;

// One filtered sample at (i, j) of a w x h float plane, as upstream's loop
// (the device's per-sample function and the tests' oracle). taps[fi * W + fj].
template <int W>
EXACTVMAF_HD_INLINE float filter_at(const float* taps, const float* plane, std::ptrdiff_t stride, int w, int h, int i,
                                    int j) {
  float accum = 0.0f;
  for (int fi = 0; fi < W; ++fi) {
    float inner = 0.0f;
    const float* row = plane + static_cast<std::ptrdiff_t>(mirror(i - W / 2 + fi, h)) * stride;
    for (int fj = 0; fj < W; ++fj) inner += taps[fi * W + fj] * row[mirror(j - W / 2 + fj, w)];
    accum += inner;
  }
  return accum;
}

// The same sample for a whole row (the CPU's loop, which the compiler
// vectorises across j). rows[fi] is source row mirror(i - W/2 + fi), each
// extended by two mirrored samples on both sides (ext[k] = row[mirror(k - 2)]).
// The zeros upstream's sums start from are left out: a tap times a sample is
// never -0 (samples are +0 or at least 1/256 in magnitude) and a float sum of
// such terms is never -0 in round-to-nearest, so 0 + x == x bit for bit.
template <int W>
EXACTVMAF_HD inline void filter_row(const float* taps, const float* const* rows, float* out, int w) {
  constexpr int off = 2 - W / 2;
  for (int j = 0; j < w; ++j) {
    float accum = 0.0f;
    for (int fi = 0; fi < W; ++fi) {
      const float* s = rows[fi] + j + off;
      float inner = taps[fi * W] * s[0];
      for (int fj = 1; fj < W; ++fj) inner += taps[fi * W + fj] * s[fj];
      if (fi == 0) accum = inner;
      else accum += inner;
    }
    out[j] = accum;
  }
}

// One row's float sums from 0: sum r*r and sum (r - d)*(r - d) in order.
struct RowSums {
  float sig = 0.0f, noise = 0.0f;
};
// One sample's terms of those sums (the device's ordered sums use them too).
EXACTVMAF_HD_INLINE float signal_term(float r) { return r * r; }
EXACTVMAF_HD_INLINE float noise_term(float r, float d) { return (r - d) * (r - d); }
EXACTVMAF_HD inline RowSums mse_row(const float* ref, const float* dis, int w) {
  RowSums s;
  for (int j = 0; j < w; ++j) {
    s.sig += signal_term(ref[j]);
    s.noise += noise_term(ref[j], dis[j]);
  }
  return s;
}

struct Scores {
  double ansnr, anpsnr;
};

// The frame's two outputs from the float frame sums (rows added from 0).
inline Scores scores(float sig, float noise, int w, int h, const Constants& c) {
  Scores s;
  s.ansnr = noise == 0.0f ? c.psnr_max : 10.0 * rmath::cr_log10(static_cast<double>(sig / noise));
  const double eps = 1e-10;
  s.anpsnr = rmath::c_min(
      10 * rmath::cr_log10(c.peak * c.peak * static_cast<double>(w) * static_cast<double>(h) /
                           rmath::c_max(static_cast<double>(noise), eps)),
      c.psnr_max);
  return s;
}

}  // namespace exactvmaf::float_ansnr
