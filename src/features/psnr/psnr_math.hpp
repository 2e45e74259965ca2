// psnr (libvmaf integer_psnr.c): the whole per-frame arithmetic, host and
// device. Sums are integers (exact in any order); the tail is upstream's
// double expression with R's correctly rounded log10.
#pragma once
#include <cstdint>

#include "exactvmaf/format.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/exact_ops.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::psnr {

// One sample's squared error: 8-bit as int, 10..16-bit as |e| * |e| in
// uint32_t (fits).
EXACTVMAF_HD_INLINE std::uint32_t sq_err_8bit(std::uint8_t ref, std::uint8_t dis) {
  const int e = static_cast<int>(ref) - static_cast<int>(dis);
  return static_cast<std::uint32_t>(e * e);
}
EXACTVMAF_HD_INLINE std::uint32_t sq_err_hbd(std::uint16_t ref, std::uint16_t dis) {
  const int d = static_cast<int>(ref) - static_cast<int>(dis);
  const std::uint32_t e = static_cast<std::uint32_t>(d < 0 ? -d : d);
  return e * e;
}

// One row of 8-bit samples: upstream keeps the row sum in uint32_t.
EXACTVMAF_HD inline std::uint32_t sse_row_8bit(const std::uint8_t* ref, const std::uint8_t* dis, unsigned w) {
  std::uint32_t sum = 0;
  for (unsigned j = 0; j < w; ++j) sum += sq_err_8bit(ref[j], dis[j]);
  return sum;
}

// One row of 10..16-bit samples, summed in uint64_t.
EXACTVMAF_HD inline std::uint64_t sse_row_hbd(const std::uint16_t* ref, const std::uint16_t* dis, unsigned w) {
  std::uint64_t sum = 0;
  for (unsigned j = 0; j < w; ++j) sum += sq_err_hbd(ref[j], dis[j]);
  return sum;
}

// The SSE of plane p of a frame pair (host): the row sums above, in order.
inline std::uint64_t plane_sse(const PictureView& ref, const PictureView& dis, unsigned p) {
  const unsigned w = ref.w(p), h = ref.h(p);
  std::uint64_t sse = 0;
  if (ref.format.bitdepth == 8) {
    for (unsigned y = 0; y < h; ++y) sse += sse_row_8bit(ref.row<std::uint8_t>(p, y), dis.row<std::uint8_t>(p, y), w);
  } else {
    for (unsigned y = 0; y < h; ++y) sse += sse_row_hbd(ref.row<std::uint16_t>(p, y), dis.row<std::uint16_t>(p, y), w);
  }
  return sse;
}

// The peak as upstream's init() sets it (used by the >8-bit path and apsnr).
inline std::uint32_t peak_value(unsigned bpc, bool reduced_hbd_peak) {
  return reduced_hbd_peak ? (255u << (bpc - 8)) : ((1u << bpc) - 1u);
}

// psnr_max for one plane: 6*bpc + 12, or ceil(10*log10(peak^2 / mse_min))
// when min_sse is set, with upstream's w/2, h/2 plane sizes.
inline double psnr_max(unsigned plane, unsigned bpc, std::uint32_t peak, double min_sse, bool ss_hor,
                       bool ss_ver, unsigned w, unsigned h) {
  if (min_sse == 0.0) return static_cast<double>(6 * bpc + 12);
  const unsigned pw = (plane && ss_hor) ? w / 2 : w;
  const unsigned ph = (plane && ss_ver) ? h / 2 : h;
  const double mse = min_sse / static_cast<double>(pw * ph);
  return rmath::ceil_f64(10. * rmath::cr_log10(static_cast<double>(peak * peak) / mse));
}

struct PlaneScore {
  double mse;
  double psnr;
};

// mse = sse / (w*h); psnr = min(10*log10(peak^2 / max(mse, 1e-16)), psnr_max).
// peak_sq is 65025 for 8-bit input (upstream's 8-bit path ignores the
// configured peak) and peak*peak otherwise.
inline PlaneScore plane_score(std::uint64_t sse, unsigned w, unsigned h, std::uint32_t peak_sq, double psnr_max) {
  const double mse = static_cast<double>(sse) / static_cast<double>(w * h);
  const double psnr = rmath::c_min(10. * rmath::cr_log10(static_cast<double>(peak_sq) / rmath::c_max(mse, 1e-16)),
                                   psnr_max);
  return {mse, psnr};
}

// apsnr over all frames (flush), upstream's expression.
inline double apsnr(std::uint32_t peak, std::uint64_t n_pixels, std::uint64_t sse) {
  const double a = 10 * (rmath::cr_log10(static_cast<double>(peak * peak)) +
                         rmath::cr_log10(static_cast<double>(n_pixels)) - rmath::cr_log10(static_cast<double>(sse)));
  const double cap = rmath::ceil_f64(
      10 * rmath::cr_log10(static_cast<double>(static_cast<std::uint64_t>(peak * peak) * n_pixels * 2)));
  return rmath::c_min(a, cap);
}

}  // namespace exactvmaf::psnr
