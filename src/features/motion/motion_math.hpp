// Integer motion (libvmaf integer_motion.c at f85a853): the whole per-sample
// arithmetic, host and device. The score of frame n is the sum of absolute
// values of the 5-tap blur of (earlier reference - current reference), luma
// only, in integers (exact in any order), then upstream's double tail.
#pragma once
#include <cstddef>
#include <cstdint>

#include "features/common/mirror.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::motion {

inline constexpr int filter_width = 5;
inline constexpr int filter_radius = filter_width / 2;
// Luma planes smaller than this in either direction would make the mirrored
// taps leave the plane (upstream reads out of bounds there).
inline constexpr unsigned min_plane_size = 3;

// The blur taps; they sum to 1 << 16.
EXACTVMAF_HD_INLINE std::int64_t filter_tap(int k) {
  const std::int64_t taps[filter_width] = {3571, 16004, 26386, 16004, 3571};
  return taps[k];
}

// The input of the blur: one earlier sample minus the current one, in int32.
template <class Sample>
EXACTVMAF_HD_INLINE std::int32_t sample_difference(Sample earlier, Sample current) {
  return static_cast<std::int32_t>(earlier) - static_cast<std::int32_t>(current);
}

// The vertical pass from the five differences of one column, d[k] from the
// (mirrored) row i - 2 + k, rounded and shifted by the bit depth (round =
// 1 << (bpc - 1)). vertical_sample is exactly this on the differences it
// reads; the CUDA kernel keeps a column's last five differences in registers
// (one new row per output row) and calls it directly.
template <class Acc>
EXACTVMAF_HD_INLINE std::int32_t vertical_from_differences(const std::int32_t* d, Acc round, unsigned bpc) {
  Acc accum = 0;
  for (int k = 0; k < filter_width; ++k) accum += static_cast<Acc>(filter_tap(k)) * static_cast<Acc>(d[k]);
  // Arithmetic shift (C++20): floor division of negative sums, as upstream.
  return static_cast<std::int32_t>((accum + round) >> bpc);
}

// One sample of the vertical pass: column j of the five (mirrored) rows e[k]
// of the earlier and c[k] of the current frame. The CPU row loop calls this.
template <class Sample, class Acc>
EXACTVMAF_HD_INLINE std::int32_t vertical_sample(const Sample* const* e, const Sample* const* c, unsigned j, Acc round,
                                                 unsigned bpc) {
  std::int32_t d[filter_width];
  for (int k = 0; k < filter_width; ++k) d[k] = sample_difference(e[k][j], c[k][j]);
  return vertical_from_differences(d, round, bpc);
}

// Vertical pass of row i over the difference earlier - current: y_row[j] for
// every column, rounded and shifted by the bit depth. Strides in samples.
// Returns whether any value is nonzero (a zero row adds nothing to the SAD).
// |sum of taps * diff| <= 65536 * (2^bpc - 1): int32 holds it up to 14 bits
// (upstream uses int32 for 8-bit input), int64 beyond; the values are the same.
template <class Sample, class Acc>
EXACTVMAF_HD inline bool vertical_row_acc(const Sample* earlier, std::ptrdiff_t earlier_stride, const Sample* current,
                                          std::ptrdiff_t current_stride, unsigned w, unsigned h, unsigned i,
                                          unsigned bpc, std::int32_t* y_row) {
  const Sample* e[filter_width];
  const Sample* c[filter_width];
  for (int k = 0; k < filter_width; ++k) {  // the mirrored rows, once per row
    const std::ptrdiff_t row = mirror(static_cast<int>(i) - filter_radius + k, static_cast<int>(h));
    e[k] = earlier + row * earlier_stride;
    c[k] = current + row * current_stride;
  }
  const Acc round = Acc{1} << (bpc - 1);
  std::int32_t any_nonzero = 0;
  for (unsigned j = 0; j < w; ++j) {
    y_row[j] = vertical_sample<Sample, Acc>(e, c, j, round, bpc);
    any_nonzero |= y_row[j];
  }
  return any_nonzero != 0;
}

template <class Sample>
EXACTVMAF_HD inline bool vertical_row(const Sample* earlier, std::ptrdiff_t earlier_stride, const Sample* current,
                                      std::ptrdiff_t current_stride, unsigned w, unsigned h, unsigned i,
                                      unsigned bpc, std::int32_t* y_row) {
  if (bpc <= 14)
    return vertical_row_acc<Sample, std::int32_t>(earlier, earlier_stride, current, current_stride, w, h, i, bpc,
                                                  y_row);
  return vertical_row_acc<Sample, std::int64_t>(earlier, earlier_stride, current, current_stride, w, h, i, bpc,
                                                y_row);
}

// One column of the horizontal pass: |round(sum of taps * y) >> 16|. The sum
// can reach 2^32, so it is an int64.
EXACTVMAF_HD_INLINE std::uint32_t horizontal_abs(std::int32_t y0, std::int32_t y1, std::int32_t y2, std::int32_t y3,
                                                 std::int32_t y4) {
  // Each product fits int32 (|tap| < 2^15, |y| <= 2^16); their sum may not.
  const auto tap = [](int k) { return static_cast<std::int32_t>(filter_tap(k)); };
  const std::int64_t accum = std::int64_t{tap(0) * y0} + std::int64_t{tap(1) * y1} + std::int64_t{tap(2) * y2} +
                             std::int64_t{tap(3) * y3} + std::int64_t{tap(4) * y4};
  const std::int32_t val = static_cast<std::int32_t>((accum + (std::int64_t{1} << 15)) >> 16);
  return static_cast<std::uint32_t>(val < 0 ? -val : val);
}

// The largest |horizontal_abs| at bit depth bpc (8..16), for the CUDA
// kernel's choice of sum. Proof: |d| <= 2^bpc - 1 and the taps are positive
// with sum 2^16, so |vertical accum| <= 2^16 (2^bpc - 1) and, with floor((x +
// 2^(bpc-1)) / 2^bpc) on both signs, |y| <= 2^(16-bpc) (2^bpc - 1) = 2^16 -
// 2^(16-bpc) =: Y (an integer: bpc <= 16). The horizontal taps also sum to
// 2^16, so |accum| <= 2^16 Y and |(accum + 2^15) >> 16| <= Y. Hence a row of
// w values sums to at most w Y, which fits uint32 (the CPU's per-row type,
// so its row sum is then exact, not wrapped) when w Y <= 2^32 - 1.
EXACTVMAF_HD_INLINE std::uint32_t max_horizontal_abs(unsigned bpc) {
  return (std::uint32_t{1} << 16) - (std::uint32_t{1} << (16 - bpc));
}

// Horizontal pass over one row of vertical results: sum of |blur|, kept in
// uint32_t per row as upstream does (integer: the order does not matter).
EXACTVMAF_HD inline std::uint32_t horizontal_row_sad(const std::int32_t* y_row, unsigned w) {
  std::uint32_t row_sad = 0;
  const auto at = [&](int col) { return y_row[mirror(col, static_cast<int>(w))]; };
  const unsigned interior_end = w >= 2 ? w - 2 : 0;
  for (unsigned j = 0; j < w; ++j) {
    if (j == 2 && interior_end > 2) {  // no mirroring away from the edges
      for (; j < interior_end; ++j)
        row_sad += horizontal_abs(y_row[j - 2], y_row[j - 1], y_row[j], y_row[j + 1], y_row[j + 2]);
      if (j >= w) break;
    }
    const int c = static_cast<int>(j);
    row_sad += horizontal_abs(at(c - 2), at(c - 1), at(c), at(c + 1), at(c + 2));
  }
  return row_sad;
}

// The frame's SAD; y_row holds w values of scratch.
template <class Sample>
EXACTVMAF_HD inline std::uint64_t frame_sad(const Sample* earlier, std::ptrdiff_t earlier_stride,
                                            const Sample* current, std::ptrdiff_t current_stride, unsigned w,
                                            unsigned h, unsigned bpc, std::int32_t* y_row) {
  std::uint64_t sad = 0;
  for (unsigned i = 0; i < h; ++i)
    if (vertical_row(earlier, earlier_stride, current, current_stride, w, h, i, bpc, y_row))
      sad += horizontal_row_sad(y_row, w);
  return sad;
}

// libvmaf's MIN(x, y): y when x is not less (ties, NaN).
EXACTVMAF_HD_INLINE double min_of(double x, double y) { return x < y ? x : y; }

// Per-frame score: MIN(sad / 256 / (w * h) * fps_weight, max_val), with
// w * h an unsigned int product as upstream.
EXACTVMAF_HD_INLINE double sad_score(std::uint64_t sad, unsigned w, unsigned h, double fps_weight,
                                     double max_val) {
  const unsigned pixels = w * h;
  return min_of(static_cast<double>(sad) / 256. / static_cast<double>(pixels) * fps_weight, max_val);
}

// motion_blend_tools.h: score * factor + (1 - factor) * MIN(offset, score).
EXACTVMAF_HD_INLINE double blend(double score, double factor, double offset) {
  return score * factor + (1 - factor) * min_of(offset, score);
}

// The options of the per-clip tail (upstream's flush).
struct TemporalOptions {
  double blend_factor = 1.0, blend_offset = 40.0, max_val = 10000.0;
  bool five_frame_window = false, moving_average = false;
};

// First frame with a score of its own: 1, or 2 with the five-frame window
// (which compares frame n with frame n - 2).
EXACTVMAF_HD_INLINE unsigned first_scored_frame(bool five_frame_window) { return five_frame_window ? 2u : 1u; }

// motion2 and motion3 of frames 0..n-1 from their per-frame scores, as
// upstream's flush: motion2 = the smaller of the neighbours' scores (the
// frame's own score on the last frame), motion3 = blended and clipped
// motion2, optionally averaged with the previous frame's; the frames before
// the first scored one get motion2 = 0 and motion3 = the first scored frame's
// blended score.
EXACTVMAF_HD inline void temporal_scores(const double* score, unsigned n, const TemporalOptions& o, double* motion2,
                                         double* motion3) {
  const unsigned min_idx = first_scored_frame(o.five_frame_window);
  const unsigned stride = o.five_frame_window ? 2u : 1u;
  double stamp = 0.;
  if (n > min_idx) stamp = min_of(blend(score[min_idx], o.blend_factor, o.blend_offset), o.max_val);
  double prev_processed = 0.;
  for (unsigned i = 0; i < n; ++i) {
    double m2;
    if (i < min_idx) {
      m2 = 0.;
    } else {
      const unsigned lo = i - (stride - 1), hi = i + 1;
      if (hi >= n) m2 = score[i];
      else if (lo >= min_idx) m2 = min_of(score[lo], score[hi]);
      else m2 = score[hi];
    }
    motion2[i] = m2;
    if (i < min_idx) {
      motion3[i] = stamp;
      prev_processed = stamp;
    } else {
      const double processed = min_of(blend(m2, o.blend_factor, o.blend_offset), o.max_val);
      motion3[i] = o.moving_average ? (processed + prev_processed) / 2.0 : processed;
      prev_processed = processed;
    }
  }
}

}  // namespace exactvmaf::motion
