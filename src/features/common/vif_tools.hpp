// libvmaf's vif_tools.c as R computes it (f85a853), host and device: the
// Gaussian filters of float_vif, SpEED and float_motion's scale 1, the
// picture_copy conversion to float and the frame prescaler
// (vif_scale_frame_s: nearest, bilinear, bicubic, lanczos4). Shared by every
// feature that calls these upstream; the separable filter pass itself is in
// separable_filter.hpp. Elementary functions come from a policy M (R's host
// functions, numeric/rmath_policy.hpp): the filters and the lanczos weights
// are built once per run on the host.
#pragma once
#include <string>
#include <vector>

#include "numeric/dd.hpp"
#include "numeric/hd.hpp"
#include "numeric/rmath_policy.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::vif_tools {

inline constexpr int max_filter_taps = 128;  // upstream's filter arrays
inline constexpr double two_pi = 2.0 * 3.14159265358979323846;

enum class ScaleMethod { nearest, bicubic, lanczos4, bilinear };

// IEEE square root (sqrtsd; __dsqrt_rn on the device).
EXACTVMAF_HD_INLINE double sqrt_f64(double x) { return rmath::sqrt_of(x); }

// fabsf / fabs: clear the sign bit (also of -0 and NaN), as libm does.
EXACTVMAF_HD_INLINE float abs_f32(float x) { return dd::float_from_bits(dd::bits_of(x) & 0x7fffffffU); }

// (int)floor(x) and (int)ceil(x) for the |x| < 2^31 this code sees: exact.
EXACTVMAF_HD_INLINE int floor_to_int(float x) {
  int i = static_cast<int>(x);
  if (static_cast<float>(i) > x) --i;
  return i;
}
EXACTVMAF_HD_INLINE int ceil_to_int(float x) {
  int i = static_cast<int>(x);
  if (static_cast<float>(i) < x) ++i;
  return i;
}

// ---- filters (host, once per extractor) ----------------------------------------

struct Filter {
  float taps[max_filter_taps] = {};
  int width = 0;
};

// round_up_to_odd(float): ceil in double of the float, to int, odd.
inline int round_up_to_odd(float f) {
  const int c = ceil_to_int(f);
  return c % 2 == 0 ? c + 1 : c;
}

// vif_get_filter_size(scale, kernelscale): kernelscale is a float parameter.
inline int filter_size(int scale, float kernelscale) {
  const int n = (1 << (4 - scale)) + 1;
  const int odd = round_up_to_odd(static_cast<float>(n) * kernelscale);
  return odd > 3 ? odd : 3;
}

// get_gaussian_pdf(float x, float mean, float stdev).
template <class M>
float gaussian_pdf(float x, float mean, float stdev, M& m) {
  const float d = x - mean;
  const double e = -0.5 * static_cast<double>(d) / static_cast<double>(stdev) * static_cast<double>(d) /
                   static_cast<double>(stdev);
  const float num = static_cast<float>(m.exp_f64(e));
  // sqrt(2 * M_PI) is folded by gcc (correctly rounded): sqrt_f64 is IEEE.
  const float den = static_cast<float>(1.0 / (static_cast<double>(stdev) * sqrt_f64(two_pi)));
  return num / den;
}

template <class M>
void gaussian_kernel(Filter& f, int size, float stdev, M& m) {
  f.width = size;
  float sum = 0;
  const int k = (size - 1) / 2;
  for (int i = 0; i < size; ++i) {
    f.taps[i] = gaussian_pdf(static_cast<float>(i - k), 0.0f, stdev, m);
    sum += f.taps[i];
  }
  for (int i = 0; i < size; ++i) f.taps[i] /= sum;
}

// vif_get_filter(scale, kernelscale): stdev = window / 5.0f in float.
template <class M>
Filter vif_filter(int scale, float kernelscale, M& m) {
  Filter f;
  const int ws = filter_size(scale, kernelscale);
  gaussian_kernel(f, ws, static_cast<float>(ws) / 5.0f, m);
  return f;
}

// ---- samples ----------------------------------------------------------------------

// picture_copy: 8 bit: (float)v + (-128); 10/12/16 bit: (float)v / scaler + (-128).
EXACTVMAF_HD_INLINE float sample_to_float(unsigned v, unsigned bpc) {
  const float f = static_cast<float>(v);
  if (bpc == 10) return f / 4.0f + static_cast<float>(-128);
  if (bpc == 12) return f / 16.0f + static_cast<float>(-128);
  if (bpc == 16) return f / 256.0f + static_cast<float>(-128);
  return f + static_cast<float>(-128);
}

// upstream's float mirror(i, left, right).
EXACTVMAF_HD_INLINE float mirror_f32(float i, float left, float right) {
  return i < left ? -i : i > right ? 2 * right - i : i;
}

// ---- prescaling (vif_scale_frame_s) ------------------------------------------------

// (x + 0.5) * ratio - 0.5 in double, stored to float. Host only: the source
// position of every output column and row is computed once per run (Config;
// the device reads the table).
inline float scale_coord(int x, float ratio) {
  return static_cast<float>((static_cast<double>(x) + 0.5) * static_cast<double>(ratio) - 0.5);
}

EXACTVMAF_HD_INLINE float bicubic_kernel(float t) {
  const float a = -0.75f;
  if (t < 0) t = -t;
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

// Host only, with R's sin (the weights of every output column and row are
// computed once per run).
template <class M>
float lanczos4_kernel(float x, float a, M& m) {
  constexpr double pi = 3.14159265358979323846;
  if (static_cast<double>(x) == 0.0) return 1.0f;
  if (x > -a && x < a) {
    const double xd = static_cast<double>(x);
    return static_cast<float>(static_cast<double>(a) * m.sin_f64(pi * xd) * m.sin_f64(pi * xd / static_cast<double>(a)) /
                              (pi * pi * xd * xd));
  }
  return 0.0f;
}

// lanczos4 along one axis at output coordinate x: the first source index and
// the 9 weights (they depend on x only).
struct Lanczos4Axis {
  int x0 = 0;
  float w[9] = {};
};

template <class M>
Lanczos4Axis lanczos4_axis(int x, float ratio, M& m) {
  constexpr int a = 4;
  Lanczos4Axis ax;
  const float xx = scale_coord(x, ratio);
  ax.x0 = floor_to_int(xx);
  const float dx = xx - static_cast<float>(ax.x0);
  for (int i = -a; i <= a; ++i) ax.w[i + a] = lanczos4_kernel(static_cast<float>(i) - dx, static_cast<float>(a), m);
  return ax;
}

// lanczos4_interpolation's sums (weights and samples, float, iy then ix).
template <class Src>
EXACTVMAF_HD_INLINE float lanczos4_apply(const Src& src, const Lanczos4Axis& ax, const Lanczos4Axis& ay, float right_x,
                                         float right_y) {
  constexpr int a = 4;
  float value = 0.0f, weight_sum = 0.0f;
  for (int iy = -a; iy <= a; ++iy)
    for (int ix = -a; ix <= a; ++ix) {
      const float weight = ax.w[ix + a] * ay.w[iy + a];
      weight_sum += weight;
      const int xi = static_cast<int>(mirror_f32(static_cast<float>(ax.x0 + ix), 0, right_x));
      const int yi = static_cast<int>(mirror_f32(static_cast<float>(ay.x0 + iy), 0, right_y));
      value += src(yi, xi) * weight;
    }
  return value / weight_sum;
}

// One axis of the resampling, per output column (or row): the source
// position scale_coord gives (bilinear, bicubic), or lanczos4's first index
// and weights.
struct ScaleAxis {
  const float* coord = nullptr;
  const Lanczos4Axis* lanczos = nullptr;
};

// One sample of the prescaled plane at (x, y); src(row, col) reads the sw x sh
// source plane. Sizes are different (equal sizes are a copy, handled by the caller).
template <class Src>
EXACTVMAF_HD_INLINE float scaled_sample(ScaleMethod method, const Src& src, int sw, int sh, int dw, int dh, int x,
                                        int y, ScaleAxis ax, ScaleAxis ay) {
  const float right_x = static_cast<float>(sw - 1), right_y = static_cast<float>(sh - 1);
  if (method == ScaleMethod::nearest) {
    const float ratio_x = static_cast<float>(sw) / static_cast<float>(dw);
    const float ratio_y = static_cast<float>(sh) / static_cast<float>(dh);
    const int ry = static_cast<int>(static_cast<float>(y) * ratio_y);
    const int rx = static_cast<int>(static_cast<float>(x) * ratio_x);
    return src(ry, rx);
  }
  if (method == ScaleMethod::lanczos4) return lanczos4_apply(src, ax.lanczos[x], ay.lanczos[y], right_x, right_y);
  const float xx = ax.coord[x];
  const float yy = ay.coord[y];
  if (method == ScaleMethod::bilinear) {
    const int x1 = static_cast<int>(mirror_f32(static_cast<float>(floor_to_int(xx)), 0, right_x));
    const int x2 = static_cast<int>(mirror_f32(static_cast<float>(ceil_to_int(xx)), 0, right_x));
    const float dx = xx - static_cast<float>(x1);
    const int y1 = static_cast<int>(mirror_f32(static_cast<float>(floor_to_int(yy)), 0, right_y));
    const int y2 = static_cast<int>(mirror_f32(static_cast<float>(ceil_to_int(yy)), 0, right_y));
    const float dy = yy - static_cast<float>(y1);
    return (1 - dy) * (1 - dx) * src(y1, x1) + (1 - dy) * dx * src(y1, x2) + dy * (1 - dx) * src(y2, x1) +
           dy * dx * src(y2, x2);
  }
  // bicubic
  const int x0 = floor_to_int(xx);
  const int y0 = floor_to_int(yy);
  const float dx = xx - static_cast<float>(x0);
  const float dy = yy - static_cast<float>(y0);
  float wx[4], wy[4];
  for (int i = -1; i <= 2; ++i) {
    wx[i + 1] = bicubic_kernel(static_cast<float>(i) - dx);
    wy[i + 1] = bicubic_kernel(static_cast<float>(i) - dy);
  }
  float v = 0.0f;
  for (int j = -1; j <= 2; ++j)
    for (int i = -1; i <= 2; ++i) {
      const int xi = static_cast<int>(mirror_f32(static_cast<float>(x0 + i), 0, right_x));
      const int yi = static_cast<int>(mirror_f32(static_cast<float>(y0 + j), 0, right_y));
      const float weight = wx[i + 1] * wy[j + 1];
      v += src(yi, xi) * weight;
    }
  return v;
}

// ---- host: options and the prescaler's tables ---------------------------------------

// vif_validate_kernelscale: within 1e-3 (a double) of one of vif_tools.h's
// 21 values (float literals and float quotients).
inline bool kernelscale_valid(float ks) {
  const float valid[] = {
      1.0f,        1.0f / 2.0f,  3.0f / 2.0f,  2.0f,        2.0f / 3.0f, 24.0f / 10.0f, 360.0f / 97.0f,
      4.0f / 3.0f, 3.5f / 3.0f,  3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f, 3.0f,          1.0f / 2.25f,
      1.4746f,     1.54f,        1.6f,         1.06667f,    0.711111f,   0.740740f,     1.111111f,
  };
  for (float v : valid)
    if (static_cast<double>(abs_f32(ks - v)) < 1e-3) return true;
  return false;
}

// "nearest", "bilinear", "bicubic", "lanczos4"; false for anything else.
inline bool parse_scale_method(const std::string& name, ScaleMethod& out) {
  if (name == "nearest") out = ScaleMethod::nearest;
  else if (name == "bilinear") out = ScaleMethod::bilinear;
  else if (name == "bicubic") out = ScaleMethod::bicubic;
  else if (name == "lanczos4") out = ScaleMethod::lanczos4;
  else return false;
  return true;
}

// The prescaler's per-column and per-row tables for an sw x sh -> dw x dh
// resampling, computed once with R (bilinear, bicubic: source positions;
// lanczos4: first index and weights; nearest: none).
struct ScaleTables {
  std::vector<float> coord_cols, coord_rows;
  std::vector<Lanczos4Axis> lanczos_cols, lanczos_rows;
  ScaleAxis x() const { return {coord_cols.data(), lanczos_cols.data()}; }
  ScaleAxis y() const { return {coord_rows.data(), lanczos_rows.data()}; }
};

inline ScaleTables make_scale_tables(ScaleMethod method, unsigned sw, unsigned sh, unsigned dw, unsigned dh) {
  ScaleTables t;
  if (method == ScaleMethod::nearest) return t;
  rmath::HostMathPolicy m;
  const float ratio_x = static_cast<float>(sw) / static_cast<float>(dw);
  const float ratio_y = static_cast<float>(sh) / static_cast<float>(dh);
  for (unsigned x = 0; x < dw; ++x) {
    if (method == ScaleMethod::lanczos4) t.lanczos_cols.push_back(lanczos4_axis(static_cast<int>(x), ratio_x, m));
    else t.coord_cols.push_back(scale_coord(static_cast<int>(x), ratio_x));
  }
  for (unsigned y = 0; y < dh; ++y) {
    if (method == ScaleMethod::lanczos4) t.lanczos_rows.push_back(lanczos4_axis(static_cast<int>(y), ratio_y, m));
    else t.coord_rows.push_back(scale_coord(static_cast<int>(y), ratio_y));
  }
  return t;
}

}  // namespace exactvmaf::vif_tools
