// The CPU's row form of libvmaf's separable float filter (vif_filter1d_s,
// convolution_f32_c_s): the vertical pass of a row into a buffer padded with
// its mirrored borders, then the horizontal pass. Every output is the same
// float chain as separable_filter.hpp's (taps from 0 in order, vertical
// first); the loops run across samples so that vectors never reassociate a
// sample's sum. Used by float_vif and float_motion. Host only.
#pragma once
#include <cstddef>
#include <vector>

#include "features/common/mirror.hpp"
#include "features/common/vif_tools.hpp"

namespace exactvmaf::filter_rows {

// Mirrored source rows of the vertical pass at output row i.
inline void source_rows(const float* plane, std::ptrdiff_t stride, int h, int i, int fw, const float** rows) {
  for (int k = 0; k < fw; ++k) rows[k] = plane + static_cast<std::ptrdiff_t>(mirror(i - fw / 2 + k, h)) * stride;
}

// Fills the mirrored borders of a row whose w samples start at row + radius.
inline void pad_row(float* row, int w, int radius) {
  for (int t = 1; t <= radius; ++t) {
    row[radius - t] = row[radius + t];
    row[radius + w - 1 + t] = row[radius + w - 1 - t];
  }
}

// The vertical pass of one row of a w-wide plane into out[0, w).
inline void vertical(const vif_tools::Filter& f, const float* const* rows, int w, float* __restrict out) {
  for (int j = 0; j < w; ++j) out[j] = 0;
  for (int k = 0; k < f.width; ++k) {
    const float fk = f.taps[k];
    const float* __restrict r = rows[k];
    for (int j = 0; j < w; ++j) out[j] += fk * r[j];
  }
}

// The horizontal pass at every step-th sample of a padded row: out[j] sums
// f[k] * row[j * step + k] from 0 in tap order.
inline void horizontal(const vif_tools::Filter& f, const float* __restrict row, int n, int step,
                       float* __restrict out) {
  for (int j = 0; j < n; ++j) out[j] = 0;
  for (int k = 0; k < f.width; ++k) {
    const float fk = f.taps[k];
    for (int j = 0; j < n; ++j) out[j] += fk * row[j * step + k];
  }
}

// One tap of the vertical passes of float_vif's five quantities: x, y, x²,
// y², xy of rows r and d (vif_filter1d_s, _sq_s, _xy_s).
inline void vertical5_tap(float fk, const float* __restrict r, const float* __restrict d, int w,
                          float* __restrict a0, float* __restrict a1, float* __restrict a2, float* __restrict a3,
                          float* __restrict a4) {
  for (int j = 0; j < w; ++j) {
    a0[j] += fk * r[j];
    a1[j] += fk * d[j];
    a2[j] += fk * (r[j] * r[j]);
    a3[j] += fk * (d[j] * d[j]);
    a4[j] += fk * (r[j] * d[j]);
  }
}

// The whole w x h plane filtered into dst (stride w); `pad` is scratch.
inline void filter_plane(const vif_tools::Filter& f, const float* src, std::ptrdiff_t stride, int w, int h,
                         float* dst, std::vector<float>& pad) {
  const int radius = f.width / 2;
  pad.resize(static_cast<std::size_t>(w + 2 * radius));
  const float* rows[vif_tools::max_filter_taps];
  for (int i = 0; i < h; ++i) {
    source_rows(src, stride, h, i, f.width, rows);
    vertical(f, rows, w, pad.data() + radius);
    pad_row(pad.data(), w, radius);
    horizontal(f, pad.data(), w, 1, dst + static_cast<std::ptrdiff_t>(i) * w);
  }
}

}  // namespace exactvmaf::filter_rows
