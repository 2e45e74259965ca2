// float_motion (libvmaf float_motion.c, motion.c, motion_tools.h and
// motion_blend_tools.h at f85a853): the arithmetic, host and device. Frame
// n's score is the mean absolute difference of the blurred reference frames
// n - 1 and n (separable float blur, separable_filter.hpp; float sums per
// row, rows added in float, divided by the sample count in float), plus the
// same on the planes halved by vif_tools' bilinear prescaler with
// motion_add_scale1, plus the chroma planes' with motion_add_uv (double
// sums). motion2, motion3: upstream's double tail.
#pragma once
#include <cstddef>

#include "features/common/vif_tools.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::float_motion {

// Planes smaller than this either way would make the 5-tap blur's mirrored
// taps leave the plane (upstream reads outside it).
inline constexpr unsigned min_plane_size = 3;

// motion_tools.h: FILTER_5_s, FILTER_3_s, FILTER_5_NO_OP_s (float arrays of
// double literals). motion_filter_size 1 and 3 pick the last two, any other
// value the first.
inline vif_tools::Filter blur_filter(int filter_size) {
  vif_tools::Filter f;
  if (filter_size == 3) {
    const float t[3] = {static_cast<float>(0.166378498), static_cast<float>(0.667243004),
                        static_cast<float>(0.166378498)};
    f.width = 3;
    for (int k = 0; k < 3; ++k) f.taps[k] = t[k];
    return f;
  }
  const float five[5] = {static_cast<float>(0.054488685), static_cast<float>(0.244201342),
                         static_cast<float>(0.402619947), static_cast<float>(0.244201342),
                         static_cast<float>(0.054488685)};
  const float no_op[5] = {0.0f, 0.0f, 1.0f, 0.0f, 0.0f};
  f.width = 5;
  for (int k = 0; k < 5; ++k) f.taps[k] = filter_size == 1 ? no_op[k] : five[k];
  return f;
}

// accum_line += fabs(a - b): the float difference is exact to double, and
// adding it to the float sum in double and rounding back is the float sum
// (53 >= 2 * 24 + 2, no double rounding error).
EXACTVMAF_HD_INLINE float add_abs_diff(float acc, float a, float b) { return acc + vif_tools::abs_f32(a - b); }

// accum / (width * height): float over an int product converted to float.
EXACTVMAF_HD_INLINE float mean_abs(float accum, int w, int h) { return accum / static_cast<float>(w * h); }

// (int)(w * 0.5 + 0.5): motion_add_scale1's plane size.
EXACTVMAF_HD_INLINE int half_size(int n) { return static_cast<int>(static_cast<double>(n) * 0.5 + 0.5); }

struct TemporalOptions {
  double fps_weight = 1.0, blend_factor = 1.0, blend_offset = 40.0, max_val = 10000.0;
};

// MIN(x, y) as upstream's macro: x < y ? x : y.
inline double min_of(double x, double y) { return x < y ? x : y; }

// motion_blend: x * factor + (1 - factor) * MIN(offset, x).
inline double blend(double x, double factor, double offset) { return x * factor + (1 - factor) * min_of(offset, x); }

// The debug output "motion" of a frame with score s.
inline double motion_value(double s, const TemporalOptions& o) { return min_of(s * o.fps_weight, o.max_val); }

// motion2 and motion3 of n frames from their scores (score[0] unused), as
// float_motion.c writes them across extract() and flush(): frame 0's motion2
// is 0 and its motion3 the blend of frame 1's score; frame i in 1..n-2 takes
// the smaller of its and the next frame's score; the last frame its own.
inline void temporal_scores(const double* score, std::size_t n, const TemporalOptions& o, double* m2, double* m3) {
  if (n == 0) return;
  m2[0] = 0.0;
  m3[0] = n >= 2 ? min_of(blend(score[1] * o.fps_weight, o.blend_factor, o.blend_offset), o.max_val) : 0.0;
  for (std::size_t i = 1; i < n; ++i) {
    double v = score[i];
    if (i + 1 < n) v = score[i] < score[i + 1] ? score[i] : score[i + 1];  // score2 < score ? score2 : score
    m2[i] = min_of(v * o.fps_weight, o.max_val);
    m3[i] = min_of(blend(v * o.fps_weight, o.blend_factor, o.blend_offset), o.max_val);
  }
}

}  // namespace exactvmaf::float_motion
