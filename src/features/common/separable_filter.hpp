// libvmaf's separable float filter as vif_tools.c's scalar vif_filter1d_s
// computes it (SpEED's anti-alias and local-mean filters; float_vif and
// float_motion filter the same way): a vertical pass, then a horizontal pass
// over a row of vertical results, each a float sum over the taps from 0 in
// tap order, edges mirrored (common/mirror.hpp). One output at a time, so
// the CPU and a device thread run the same chain. Host and device.
#pragma once
#include <cstddef>

#include "features/common/mirror.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf {

// The vertical pass at (row y, column x) of a plane h rows high; src(row,
// col) reads the plane.
template <class Src>
EXACTVMAF_HD_INLINE float filter_vertical(const float* taps, int fw, const Src& src, int h, int y, int x) {
  float acc = 0;
  for (int k = 0; k < fw; ++k) {
    const int yy = mirror(y - fw / 2 + k, h);
    acc += taps[k] * src(yy, x);
  }
  return acc;
}

// The filter's output at (y, x) of a w x h plane: the horizontal pass over the
// vertical pass's values of row y (what upstream's tmp row holds).
template <class Src>
EXACTVMAF_HD_INLINE float filter_at(const float* taps, int fw, const Src& src, int w, int h, int y, int x) {
  float acc = 0;
  for (int k = 0; k < fw; ++k) {
    const int xx = mirror(x - fw / 2 + k, w);
    acc += taps[k] * filter_vertical(taps, fw, src, h, y, xx);
  }
  return acc;
}

// A float plane in memory as a filter source.
struct PlaneRef {
  const float* data;
  std::ptrdiff_t stride;
  EXACTVMAF_HD_INLINE float operator()(int y, int x) const { return data[y * stride + x]; }
};

}  // namespace exactvmaf
