// The pieces integer ADM (adm_math.hpp) and float ADM (float_adm_math.hpp)
// share because upstream's two versions agree on them exactly: the scored and
// decouple regions, the DWT's mirrored source indices, the 3x3 masking
// window's edge rule, and the Watson and Barten CSF factors (host only: R's
// correctly rounded pow/log10/exp, evaluated once per run), the frame scores
// and their output slots.
#pragma once
#include "exactvmaf/feature.hpp"
#include "numeric/cr_exp.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::adm {

// ---- regions ------------------------------------------------------------------

// Half-open rectangle of band samples.
struct Region {
  int left = 0, top = 0, right = 0, bottom = 0;
};

// The region decouple and CSF compute: one sample of filter margin around the
// scored region (upstream: 0.1 of the border less 0.5, less 1, clamped).
EXACTVMAF_HD_INLINE Region decouple_region(int w, int h) {
  Region r;
  r.left = static_cast<int>(w * 0.1 - 0.5 - 1);
  r.top = static_cast<int>(h * 0.1 - 0.5 - 1);
  r.right = w - r.left + 2;
  r.bottom = h - r.top + 2;
  if (r.left < 0) r.left = 0;
  if (r.right > w) r.right = w;
  if (r.top < 0) r.top = 0;
  if (r.bottom > h) r.bottom = h;
  return r;
}

// The scored region of the numerator and the denominator.
EXACTVMAF_HD_INLINE Region score_region(int w, int h) {
  Region r;
  r.left = static_cast<int>(w * 0.1 - 0.5);
  r.top = static_cast<int>(h * 0.1 - 0.5);
  r.right = w - r.left;
  r.bottom = h - r.top;
  return r;
}

// Source index of tap k (0..3) of output index i over n inputs: 2i-1+k,
// reflected at the start without repeating the edge and at the end with it
// (upstream's dwt2_src_indices_filt; valid for n >= 5).
EXACTVMAF_HD_INLINE int dwt_src_index(int i, int k, int n) {
  const int idx = 2 * i - 1 + k;
  if (idx < 0) return -idx;
  if (idx >= n) return 2 * n - idx - 1;
  return idx;
}

EXACTVMAF_HD_INLINE int band_size(int n) { return (n + 1) / 2; }

// Neighbour rows/columns of the 3x3 masking window: before index 0 comes 1,
// after n - 1 comes n - 1 again (upstream's edge cases).
EXACTVMAF_HD_INLINE int cm_prev(int i) { return i == 0 ? 1 : i - 1; }
EXACTVMAF_HD_INLINE int cm_next(int i, int n) { return i == n - 1 ? n - 1 : i + 1; }

// M_PI as upstream's header defines it (the double nearest pi).
inline constexpr double adm_pi = 3.14159265358979323846264338327;

// Watson et al. 1997 quantisation step of the 7/9 wavelet (luma), lambda =
// scale, theta = 0..3.
inline float dwt_quant_step(int lambda, int theta, double view_dist, int display_height) {
  const float a = 0.495f, k = 0.466f, f0 = 0.401f;
  const float g[4] = {1.501f, 1.0f, 0.534f, 1.0f};
  const float amplitudes[6][4] = {{0.62171f, 0.67234f, 0.72709f, 0.67234f},
                                  {0.34537f, 0.41317f, 0.49428f, 0.41317f},
                                  {0.18004f, 0.22727f, 0.28688f, 0.22727f},
                                  {0.091401f, 0.11792f, 0.15214f, 0.11792f},
                                  {0.045943f, 0.059758f, 0.077727f, 0.059758f},
                                  {0.023013f, 0.030018f, 0.039156f, 0.030018f}};
  const float r = static_cast<float>(view_dist * display_height * adm_pi / 180.0);
  const double two_pow = rmath::cr_pow(2.0, static_cast<double>(lambda + 1));
  const float temp = static_cast<float>(rmath::cr_log10(two_pow * static_cast<double>(f0) *
                                                        static_cast<double>(g[theta]) / static_cast<double>(r)));
  const float k_temp_sq = k * temp * temp;
  const double q = 2.0 * static_cast<double>(a) * rmath::cr_pow(10.0, static_cast<double>(k_temp_sq)) /
                   static_cast<double>(amplitudes[lambda][theta]);
  return static_cast<float>(q);
}

// Barten's CSF as simplified in HDR-VDP-2 (upstream barten_csf_tools.h).
inline float barten_csf(int lambda, double view_dist, int display_height, double lum_level, double csf_scale) {
  const float anchors[6] = {0.002f, 0.02f, 0.2f, 2.0f, 20.0f, 150.0f};
  const float params[6][5] = {{0.0160737f, 0.991265f, 3.74038f, 0.50722f, 4.46044f},
                              {0.383873f, 0.800889f, 3.54104f, 0.682505f, 4.94958f},
                              {0.929301f, 0.476505f, 4.37453f, 0.750315f, 5.28678f},
                              {1.29776f, 0.405782f, 4.40602f, 0.935314f, 5.61425f},
                              {1.49222f, 0.334278f, 3.79542f, 1.07327f, 6.4635f},
                              {1.46213f, 0.394533f, 2.7755f, 1.16577f, 7.45665f}};
  const float sa[4] = {30.162f, 4.0627f, 1.6596f, 0.2712f};
  const float mtf_a[4] = {0.424838596301290f, 0.572435103936480f, 0.000167576239164937f, 0.00255872352306433f};
  const float mtf_b[4] = {0.028f, 0.37f, 37.0f, 360.0f};
  using rmath::cr_exp;
  using rmath::cr_log10;
  using rmath::cr_pow;
  const auto d = [](float x) { return static_cast<double>(x); };

  const float r = static_cast<float>(view_dist * display_height * adm_pi / 180.0);
  const float sf = static_cast<float>(d(r) / cr_pow(2.0, static_cast<double>(lambda + 1)));
  const double lum = lum_level > d(anchors[5]) ? d(anchors[5]) : (lum_level < d(anchors[0]) ? d(anchors[0]) : lum_level);
  int left = 0, right = 0;
  for (int i = 0; i < 5; ++i) {
    if (lum >= d(anchors[i]) && lum <= d(anchors[i + 1])) {
      left = i;
      right = i + 1;
      break;
    }
  }
  const float left_pos = static_cast<float>(cr_log10(d(anchors[left])));
  const float right_pos = static_cast<float>(cr_log10(d(anchors[right])));
  const float sample_pos = static_cast<float>(cr_log10(lum));
  const auto interp = [&](int p) {
    const float lv = params[left][p], rv = params[right][p];
    return lv + ((rv - lv) / (right_pos - left_pos)) * (sample_pos - left_pos);
  };
  const float p0 = interp(1), p1 = interp(2), p2 = interp(3), p3 = interp(4);
  const float a = static_cast<float>(1.0 + cr_pow(d(p0 * sf), d(p1)));
  const float sf7 = sf / 7.0f;
  const double sf7_sq = d(sf7) * d(sf7);  // upstream squares with a double power; gcc emits x * x
  const float b = static_cast<float>(1.0 / cr_pow(1.0 - cr_exp(-sf7_sq), d(p2)));
  const float csf = static_cast<float>(d(p3) / cr_pow(d(a * b), 0.5));
  float mtf = 0.0f;
  for (int i = 0; i < 4; ++i) mtf = static_cast<float>(d(mtf) + d(mtf_a[i]) * cr_exp(d(-mtf_b[i] * sf)));
  const float lum_f = static_cast<float>(lum_level);
  const float rod_cone =
      static_cast<float>(d(sa[0]) * cr_pow(cr_pow(d(sa[1] / lum_f), d(sa[2])) + 1.0, -d(sa[3])));
  return static_cast<float>(d(csf * mtf * rod_cone) * csf_scale);
}

// The floor under which the frame's numerator and denominator sums count as
// 0: 1e-10 per 1920x1080 of picture (upstream multiplies w * h in int: the
// same value below 2^31).
inline double frame_floor(int w, int h) { return 1e-10 * (static_cast<double>(w) * h) / (1920.0 * 1080.0); }

// One frame's scores (integer and float ADM alike).
struct FrameScores {
  double adm2 = 0, aim = 0, adm3 = 0, num = 0, den = 0;
  double scale_num[4] = {0, 0, 0, 0}, scale_den[4] = {0, 0, 0, 0};
};

// The outputs of one frame in their slots, libvmaf's order (adm and
// float_adm list the same outputs; their CPU and CUDA workers all write here).
inline void write_frame_outputs(const FrameScores& fs, bool debug, FrameOutput& out) {
  unsigned slot = 0;
  out.set(slot++, fs.adm2);
  out.set(slot++, fs.aim);
  out.set(slot++, fs.adm3);
  for (int s = 0; s < 4; ++s) out.set(slot++, fs.scale_num[s] / fs.scale_den[s]);
  if (!debug) return;
  out.set(slot++, fs.adm2);
  out.set(slot++, fs.num);
  out.set(slot++, fs.den);
  for (int s = 0; s < 4; ++s) {
    out.set(slot++, fs.scale_num[s]);
    out.set(slot++, fs.scale_den[s]);
  }
}

}  // namespace exactvmaf::adm
