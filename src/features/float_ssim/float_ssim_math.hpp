// float_ssim (libvmaf float_ssim.c, ssim.c and iqa/ at f85a853): the luma
// plane as floats (picture_copy, offset 0), decimated by `scale` with an
// f x f box when f > 1, then _iqa_ssim's default path (common/ssim_common.hpp:
// the 11x11 Gaussian window where it fits, the per-pixel l, c, s, their
// double sums in raster order and the float means); the dB form on the host.
// docs/features/float_ssim.md.
#pragma once
#include "features/common/ssim_common.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::float_ssim {

using ssim::decimated_size;
using ssim::input_sample;

// compute_ssim's automatic factor: max(1, _round((float)min(w, h) / 256.0f))
// with iqa's _round (half away from zero, through a float difference
// compared in double).
EXACTVMAF_HD_INLINE int auto_scale(int w, int h) {
  const float a = static_cast<float>(w <= h ? w : h) / 256.0f;
  const int sign = a > 0.0f ? 1 : -1;
  const int t = static_cast<int>(a);
  const int r = static_cast<double>(a - static_cast<float>(t)) >= 0.5 ? t + sign : t;
  return 1 >= r ? 1 : r;
}

// The box low-pass of the decimation: f x f taps of 1.0f / (f*f) (an int
// product converted to float, then a float division).
struct BoxTaps {
  float tap;
  EXACTVMAF_HD_INLINE explicit BoxTaps(int factor) : tap(1.0f / static_cast<float>(factor * factor)) {}
  EXACTVMAF_HD_INLINE float operator()(int) const { return tap; }
};

// One decimated sample at (x, y) of the w x h float plane: _iqa_decimate's
// _iqa_filter_pixel with the box (F: the f64 policy, see common/ssim_common.hpp).
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE float decimated_sample(const float* img, int w, int h, int factor, int x, int y, F&& f = F{}) {
  return ssim::decimate_sample(BoxTaps(factor), factor, img, w, h, x * factor, y * factor, f);
}

}  // namespace exactvmaf::float_ssim
