// Float ADM (libvmaf float_adm.c, adm.c, adm_tools.c at f85a853): the whole
// arithmetic, host and device. The luma plane as float (sample - 128, high
// bit depths scaled to 8 bits), four scales of a 4-tap Daubechies DWT; per
// scale the distorted detail bands are split into a restored part r and an
// additive part a (decouple), weighted by a CSF factor, masked by a 3x3
// neighbourhood of the other part, raised to the p-norm and summed per row,
// then the rows; per-scale and per-frame tails on the host.
//
// Plain float code, with the types upstream stores at every step, plus three
// fp64 islands (small named functions below): the products with the double
// literals 1/30 and 1/15 (the second added to a float sum in double) and the
// rst x gain-limit clamp. Division is IEEE division (docs/design.md §2 rule 1;
// upstream multiplies by a refined RCPSS estimate). powf is R's correctly
// rounded powf (host: rmath::cr_powf; device: its fast path, with undecided
// samples reported so the host can recompute the frame).
//
// Row functions take pointers and widths so that a CUDA kernel can run one
// row chain per thread, in upstream's order.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "features/common/adm_common.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/cr_powf_pair.hpp"
#include "numeric/f64_policy.hpp"
#include "numeric/hd.hpp"
#include "numeric/sf64.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::float_adm {

using adm::band_size;
using adm::cm_next;
using adm::cm_prev;
using adm::decouple_region;
using adm::frame_floor;
using adm::FrameScores;
using adm::dwt_src_index;
using adm::Region;
using adm::score_region;

inline constexpr int num_scales = 4;
// From 17 luma samples on, every scale's band has at least 2 rows and
// columns: the 3x3 masking window's mirrored neighbour (index 1) exists.
// Below that upstream reads outside its bands.
inline constexpr unsigned min_plane_size = 17;

// ---- small float helpers ------------------------------------------------------

// fabsf: clears the sign bit (of -0 and NaN too).
EXACTVMAF_HD_INLINE float abs_f(float x) {
#if EXACTVMAF_DEVICE_CODE
  return __uint_as_float(__float_as_uint(x) & 0x7fffffffu);
#else
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & 0x7fffffffu);
#endif
}

// ---- fp64 islands -----------------------------------------------------------

// Upstream's FLOAT_ONE_BY_30 and FLOAT_ONE_BY_15 are double literals (not
// the floats nearest 1/30 and 1/15).
inline constexpr double one_by_30 = 0.0333333351;
inline constexpr double one_by_15 = 0.0666666701;

// (float)(FLOAT_ONE_BY_30 * x): the double product of a float and the
// literal, rounded to double, then to float (adm_csf_s).
// The islands are written against the fp64 policy F (numeric/f64_policy.hpp).
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE float mul_one_by_30(float x, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  return f.to_f32(D(one_by_30) * D(x));
}

// sum += FLOAT_ONE_BY_15 * x with a float sum: sum + product in double (the
// product rounded to double first), rounded to float (adm_cm_thresh).
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE float add_mul_one_by_15(float sum, float x, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  return f.to_f32(D(sum) + D(one_by_15) * D(x));
}

// The enhancement-gain clamp of a restored coefficient rst against the
// distorted one t (angle test passed): MIN/MAX(rst * gain, t) in double
// (rst > 0: the smaller, rst < 0: the larger), stored to float. Upstream
// applies the two tests in sequence, the second on the first's result.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE float gain_clamp(float rst, float t, double gain, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  if (f.lt(D(0.0), D(rst))) {
    const D p = D(rst) * D(gain);
    rst = f.to_f32(f.lt(p, D(t)) ? p : D(t));
  }
  if (f.lt(D(rst), D(0.0))) {
    const D p = D(rst) * D(gain);
    rst = f.to_f32(f.lt(D(t), p) ? p : D(t));
  }
  return rst;
}

// ---- input ------------------------------------------------------------------

// picture_copy: (float)sample / scaler - 128, scaler 4, 16, 256 for 10, 12,
// 16 bits (exact: powers of two and small integers).
EXACTVMAF_HD_INLINE float input_sample(std::uint32_t v, unsigned bpc) {
  const float scaler = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : bpc == 16 ? 256.0f : 1.0f;
  if (bpc == 8) return static_cast<float>(v) + -128.0f;
  return static_cast<float>(v) / scaler + -128.0f;
}

// ---- DWT (db2, 4 taps, float) ---------------------------------------------------

// Upstream's float tables are initialised from double literals.
EXACTVMAF_HD_INLINE float dwt_lo(int k) {
  const float taps[4] = {static_cast<float>(0.482962913144690), static_cast<float>(0.836516303737469),
                         static_cast<float>(0.224143868041857), static_cast<float>(-0.129409522550921)};
  return taps[k];
}
EXACTVMAF_HD_INLINE float dwt_hi(int k) {
  const float taps[4] = {static_cast<float>(-0.129409522550921), static_cast<float>(-0.224143868041857),
                         static_cast<float>(0.836516303737469), static_cast<float>(-0.482962913144690)};
  return taps[k];
}

// accum = 0; accum += f0 * s0; ... (float, in order).
EXACTVMAF_HD_INLINE float dwt_lo4(float s0, float s1, float s2, float s3) {
  float acc = 0.0f;
  acc += dwt_lo(0) * s0;
  acc += dwt_lo(1) * s1;
  acc += dwt_lo(2) * s2;
  acc += dwt_lo(3) * s3;
  return acc;
}
EXACTVMAF_HD_INLINE float dwt_hi4(float s0, float s1, float s2, float s3) {
  float acc = 0.0f;
  acc += dwt_hi(0) * s0;
  acc += dwt_hi(1) * s1;
  acc += dwt_hi(2) * s2;
  acc += dwt_hi(3) * s3;
  return acc;
}

// Vertical pass of output row i, column j, of a plane with h rows.
EXACTVMAF_HD_INLINE void dwt_vertical_sample(const float* src, std::ptrdiff_t stride, int h, int i, int j, float* lo,
                                             float* hi) {
  const float s0 = src[dwt_src_index(i, 0, h) * stride + j];
  const float s1 = src[dwt_src_index(i, 1, h) * stride + j];
  const float s2 = src[dwt_src_index(i, 2, h) * stride + j];
  const float s3 = src[dwt_src_index(i, 3, h) * stride + j];
  *lo = dwt_lo4(s0, s1, s2, s3);
  *hi = dwt_hi4(s0, s1, s2, s3);
}

// Vertical pass of output row i over w columns.
EXACTVMAF_HD inline void dwt_vertical_row(const float* src, std::ptrdiff_t stride, int w, int h, int i, float* lo,
                                          float* hi) {
  for (int j = 0; j < w; ++j) dwt_vertical_sample(src, stride, h, i, j, lo + j, hi + j);
}

// Horizontal pass, output column j of rows lo/hi over w columns: bands a, v
// (from lo) and h, d (from hi).
EXACTVMAF_HD_INLINE void dwt_horizontal_sample(const float* lo, const float* hi, int w, int j, float* a, float* v,
                                               float* h, float* d) {
  const int j0 = dwt_src_index(j, 0, w), j1 = dwt_src_index(j, 1, w), j2 = dwt_src_index(j, 2, w),
            j3 = dwt_src_index(j, 3, w);
  *a = dwt_lo4(lo[j0], lo[j1], lo[j2], lo[j3]);
  *v = dwt_hi4(lo[j0], lo[j1], lo[j2], lo[j3]);
  *h = dwt_lo4(hi[j0], hi[j1], hi[j2], hi[j3]);
  *d = dwt_hi4(hi[j0], hi[j1], hi[j2], hi[j3]);
}

// Horizontal pass over one row of vertical results (w columns): bands a, v,
// h, d of (w + 1) / 2 samples.
EXACTVMAF_HD inline void dwt_horizontal_row(const float* lo, const float* hi, int w, float* a, float* v, float* h,
                                            float* d) {
  const int bw = band_size(w);
  for (int j = 0; j < bw; ++j) dwt_horizontal_sample(lo, hi, w, j, a + j, v + j, h + j, d + j);
}

// ---- decouple -------------------------------------------------------------------

// cos(1 degree)^2 as upstream's float: (float)(cos(M_PI/180) * cos(M_PI/180))
// (gcc folds the cosine, correctly rounded); checked in the tests.
EXACTVMAF_HD_INLINE float cos_1deg_sq() { return 0x1.ffd814p-1f; }
// const float eps = 1e-30 (the double literal rounded to float).
EXACTVMAF_HD_INLINE float decouple_eps() { return 0x1.4484cp-100f; }

EXACTVMAF_HD_INLINE float clamp01(float k) { return k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k); }

struct Decoupled {
  float rh, rv, rd, ah, av, ad;
};

// Is gain a normal double whose significand has at most 24 bits (100, 1,
// 2.5: upstream's usual limits)? Then rst * gain has at most 48 bits, R's
// product is exact and so is the pair's, and gain_clamp is decided on pairs
// (products below the pairs' 2^-100 range, or gains beyond the exponents a
// pair splits, still replay in Sf64: the same bits). Other gains (1.2) put
// the rounded product on float midpoints often enough that Sf64 is cheaper.
EXACTVMAF_HD_INLINE bool gain_product_exact(double gain) {
  const std::uint64_t bits = rmath::sf64_detail::double_bits(gain);
  const std::uint64_t field = (bits >> 52) & 0x7ff;
  return field != 0 && field != 0x7ff && (bits & ((std::uint64_t{1} << 29) - 1)) == 0;
}

// One sample of adm_decouple_s (ADM_OPT_AVOID_ATAN), with IEEE division.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE Decoupled decouple_sample(float oh, float ov, float od, float th, float tv, float td,
                                              double gain, F&& f = F{}) {
  const float eps = decouple_eps();
  const float kh = clamp01(th / (oh + eps));
  const float kv = clamp01(tv / (ov + eps));
  const float kd = clamp01(td / (od + eps));
  float rh = kh * oh, rv = kv * ov, rd = kd * od;
  const float ot_dp = oh * th + ov * tv;
  const float o_mag_sq = oh * oh + ov * ov;
  const float t_mag_sq = th * th + tv * tv;
  const bool angle_flag = (ot_dp >= 0.0f) && (ot_dp * ot_dp >= cos_1deg_sq() * o_mag_sq * t_mag_sq);
  if (angle_flag) {
    const bool on_pairs = gain_product_exact(gain);
    const auto clamp = [&](float rst, float t) {
      const auto island = [&](auto& g) { return gain_clamp(rst, t, gain, g); };
      return on_pairs ? f.island(island) : f.exact_island(island);
    };
    rh = clamp(rh, th);
    rv = clamp(rv, tv);
    rd = clamp(rd, td);
  }
  return {rh, rv, rd, th - rh, tv - rv, td - rd};
}

// Three band pointers (h, v, d) with a common stride in samples.
template <class T>
struct Bands3 {
  T* h;
  T* v;
  T* d;
  std::ptrdiff_t stride;
  EXACTVMAF_HD_INLINE T* band(int b) const { return b == 0 ? h : (b == 1 ? v : d); }
  EXACTVMAF_HD_INLINE T* row(int b, int i) const { return band(b) + i * stride; }
};

template <class F>
EXACTVMAF_HD inline void decouple_row_with(F& f, const Bands3<const float>& ref, const Bands3<const float>& dis,
                                           int i, int j0, int j1, double gain, const Bands3<float>& r,
                                           const Bands3<float>& a) {
  const std::ptrdiff_t o = i * ref.stride;
  for (int j = j0; j < j1; ++j) {
    const Decoupled s = decouple_sample(ref.h[o + j], ref.v[o + j], ref.d[o + j], dis.h[o + j], dis.v[o + j],
                                        dis.d[o + j], gain, f);
    r.h[o + j] = s.rh;
    r.v[o + j] = s.rv;
    r.d[o + j] = s.rd;
    a.h[o + j] = s.ah;
    a.v[o + j] = s.av;
    a.d[o + j] = s.ad;
  }
}
EXACTVMAF_HD inline void decouple_row(const Bands3<const float>& ref, const Bands3<const float>& dis, int i, int j0,
                                      int j1, double gain, const Bands3<float>& r, const Bands3<float>& a) {
  rmath::NativeF64 f;
  decouple_row_with(f, ref, dis, i, j0, j1, gain, r, a);
}

// ---- CSF ----------------------------------------------------------------------

// dst = rfactor * src; flt = FLOAT_ONE_BY_30 * |dst| (adm_csf_s).
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE void csf_sample(float src, float rfactor, float* dst, float* flt, F&& f = F{}) {
  const float v = rfactor * src;
  *dst = v;
  *flt = f.island([&](auto& g) { return mul_one_by_30(abs_f(v), g); });
}
template <class F>
EXACTVMAF_HD inline void csf_row_with(F& f, const float* src, float rfactor, int j0, int j1, float* dst, float* flt) {
  for (int j = j0; j < j1; ++j) csf_sample(src[j], rfactor, dst + j, flt + j, f);
}
EXACTVMAF_HD inline void csf_row(const float* src, float rfactor, int j0, int j1, float* dst, float* flt) {
  rmath::NativeF64 f;
  csf_row_with(f, src, rfactor, j0, j1, dst, flt);
}

// ---- p-norm terms -----------------------------------------------------------------

// The p-norm of the sums: p == 3 is x * x * x in float (upstream's special
// case), otherwise powf(x, (float)p).
struct PNorm {
  bool cube = true;
  float p = 3.0f;  // (float)adm_p_norm, the powf argument
};

// powf(x, p) for the per-sample terms. On the device R's fast path; a sample
// it cannot decide sets *undecided (the caller recomputes the frame on the
// host) and contributes 0. With a policy without fp64 (F::native_fp64
// false), on host and device: powf on fp32 pairs (rmath::cr_powf_fast_pair,
// R's bits or undecided, about 3e-6 of calls), then the same fast path on
// Sf64 for those.
// On the device it is called out of line: inlined into row_terms_kernel
// (nvcc 13.0, sm_90) it returned other values than on the host while every
// other build agrees, the out-of-line call agrees on every fixture
// (docs/fp64-free.md §11; EXACTVMAF_FLOAT_ADM_INLINE_SF64_POW builds the
// inlined form, for scripts/float-adm-pnorm-variants.sh).
#if EXACTVMAF_DEVICE_CODE && !defined(EXACTVMAF_FLOAT_ADM_INLINE_SF64_POW)
static __device__ __noinline__ bool powf_sf64_out_of_line(float x, float y, float* r) {
  return rmath::cr_powf_fast_sf64(x, y, r);
}
#define EXACTVMAF_FLOAT_ADM_POWF_SF64 powf_sf64_out_of_line
#else
#define EXACTVMAF_FLOAT_ADM_POWF_SF64 rmath::cr_powf_fast_sf64
#endif
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE float pow_term(float x, const PNorm& pn, bool* undecided, F&& f = F{}) {
  if (pn.cube) return x * x * x;
  float r = 0.0f;
  if constexpr (!std::remove_reference_t<F>::native_fp64) {
    // Pairs first (counted as a pair island), the Sf64 fast path for the
    // few they leave undecided (a replay; exact midpoints go there too).
    ++f.islands;
    if (rmath::cr_powf_fast_pair(x, pn.p, &r)) return r;
    ++f.replays;
    if (EXACTVMAF_FLOAT_ADM_POWF_SF64(x, pn.p, &r)) return r;
  } else {
#if EXACTVMAF_DEVICE_CODE
    if (rmath::cr_powf_fast(x, pn.p, &r)) return r;
#endif
  }
#if EXACTVMAF_DEVICE_CODE
  *undecided = true;
  return 0.0f;
#else
  (void)undecided;
  return rmath::cr_powf(x, pn.p);
#endif
}

struct RowSums {
  float h = 0.0f, v = 0.0f, d = 0.0f;
};

// The denominator terms of sample (i, j) of adm_csf_den_scale_s, per band:
// |rfactor * ref|^p.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE RowSums den_terms(const Bands3<const float>& ref, const float rfactor[3], int i, int j,
                                      const PNorm& pn, bool* undecided, F&& f = F{}) {
  RowSums t;
  t.h = pow_term(abs_f(rfactor[0] * ref.row(0, i)[j]), pn, undecided, f);
  t.v = pow_term(abs_f(rfactor[1] * ref.row(1, i)[j]), pn, undecided, f);
  t.d = pow_term(abs_f(rfactor[2] * ref.row(2, i)[j]), pn, undecided, f);
  return t;
}

// Denominator row i over columns j0..j1-1: the terms summed in float.
template <class F>
EXACTVMAF_HD inline RowSums den_row_with(F& f, const Bands3<const float>& ref, const float rfactor[3], int i, int j0,
                                         int j1, const PNorm& pn, bool* undecided) {
  RowSums s;
  for (int j = j0; j < j1; ++j) {
    const RowSums t = den_terms(ref, rfactor, i, j, pn, undecided, f);
    s.h += t.h;
    s.v += t.v;
    s.d += t.d;
  }
  return s;
}
EXACTVMAF_HD inline RowSums den_row(const Bands3<const float>& ref, const float rfactor[3], int i, int j0, int j1,
                                    const PNorm& pn, bool* undecided) {
  rmath::NativeF64 f;
  return den_row_with(f, ref, rfactor, i, j0, j1, pn, undecided);
}

// ---- contrast masking -------------------------------------------------------------

// The masking threshold at (i, j) of a w x h band (ADM_CM_THRESH_S_*): per
// band the 3x3 window of `flt` with the centre replaced by
// FLOAT_ONE_BY_15 * |angles|, summed in upstream's order; edges mirror
// (before 0 comes 1, after n-1 comes n-1 again).
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE float cm_threshold(const Bands3<const float>& angles, const Bands3<const float>& flt, int w,
                                       int h, int i, int j, F&& f = F{}) {
  const int ip = cm_prev(i), in = cm_next(i, h);
  const int jl = cm_prev(j), jr = cm_next(j, w);
  float thr = 0.0f;
  for (int b = 0; b < 3; ++b) {
    const float* fp = flt.row(b, ip);
    const float* fc = flt.row(b, i);
    const float* fn = flt.row(b, in);
    float sum = 0.0f;
    sum += fp[jl];
    sum += fp[j];
    sum += fp[jr];
    sum += fc[jl];
    const float x = abs_f(angles.row(b, i)[j]);
    sum = f.island([&](auto& g) { return add_mul_one_by_15(sum, x, g); });
    sum += fc[jr];
    sum += fn[jl];
    sum += fn[j];
    sum += fn[jr];
    thr += sum;
  }
  return thr;
}

// The masked terms of sample (i, j) of adm_cm_s, per band:
// max(|src * rfactor| - thr, 0)^p. With bypass_cm the threshold is 0.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE RowSums cm_terms(const Bands3<const float>& src, const Bands3<const float>& angles,
                                     const Bands3<const float>& flt, const float rfactor[3], int w, int h, int i,
                                     int j, bool bypass_cm, const PNorm& pn, bool* undecided, F&& f = F{}) {
  const float thr = bypass_cm ? 0.0f : cm_threshold(angles, flt, w, h, i, j, f);
  float xh = src.row(0, i)[j] * rfactor[0];
  float xv = src.row(1, i)[j] * rfactor[1];
  float xd = src.row(2, i)[j] * rfactor[2];
  xh = abs_f(xh) - thr;
  xv = abs_f(xv) - thr;
  xd = abs_f(xd) - thr;
  xh = xh < 0.0f ? 0.0f : xh;
  xv = xv < 0.0f ? 0.0f : xv;
  xd = xd < 0.0f ? 0.0f : xd;
  RowSums t;
  t.h = pow_term(xh, pn, undecided, f);
  t.v = pow_term(xv, pn, undecided, f);
  t.d = pow_term(xd, pn, undecided, f);
  return t;
}

// Numerator row i of adm_cm_s over columns j0..j1-1: the terms summed in
// float, in column order.
template <class F>
EXACTVMAF_HD inline RowSums cm_row_with(F& f, const Bands3<const float>& src, const Bands3<const float>& angles,
                                        const Bands3<const float>& flt, const float rfactor[3], int w, int h, int i,
                                        int j0, int j1, bool bypass_cm, const PNorm& pn, bool* undecided) {
  RowSums s;
  for (int j = j0; j < j1; ++j) {
    const RowSums t = cm_terms(src, angles, flt, rfactor, w, h, i, j, bypass_cm, pn, undecided, f);
    s.h += t.h;
    s.v += t.v;
    s.d += t.d;
  }
  return s;
}
EXACTVMAF_HD inline RowSums cm_row(const Bands3<const float>& src, const Bands3<const float>& angles,
                                   const Bands3<const float>& flt, const float rfactor[3], int w, int h, int i,
                                   int j0, int j1, bool bypass_cm, const PNorm& pn, bool* undecided) {
  rmath::NativeF64 f;
  return cm_row_with(f, src, angles, flt, rfactor, w, h, i, j0, j1, bypass_cm, pn, undecided);
}

// Rows in order, each row's float sum added to the band's float total.
EXACTVMAF_HD_INLINE void add_row(RowSums* total, const RowSums& row) {
  total->h += row.h;
  total->v += row.v;
  total->d += row.d;
}

// ---- CSF factors (host, per run) -------------------------------------------------------

enum CsfMode { csf_watson97 = 0, csf_barten = 1, csf_adm_native = 2 };

struct CsfOptions {
  int mode = csf_watson97;
  double view_dist = 3.0, csf_scale = 1.0, csf_diag_scale = 1.0;
  int display_height = 1080;
  double f1[4] = {-1, -1, -1, -1}, f2[4] = {-1, -1, -1, -1};  // adm_f1sN, adm_f2sN (< 0: unset)
};

// adm_native_csf (adm_csf_tools.h): the DLM paper's CSF; theta 0 or 45.
inline float native_csf(int lambda, double view_dist, int display_height, int theta) {
  const float r = static_cast<float>(view_dist * display_height * adm::adm_pi / 180.0);
  float sf = static_cast<float>(static_cast<double>(r) / rmath::cr_pow(2.0, static_cast<double>(lambda + 1)));
  if (theta == 45) sf = static_cast<float>(static_cast<double>(sf) / 0.7);
  const double s = static_cast<double>(sf);
  return static_cast<float>((0.31 + 0.69 * s) * rmath::cr_exp(-0.29 * s));
}

// rfactor[3] (h, v, d) of a scale, as adm_csf_s / adm_cm_s / adm_csf_den_scale_s.
inline void scale_rfactors(int scale, const CsfOptions& o, float rfactor[3]) {
  float f1 = 0.0f, f2 = 0.0f;
  if (o.mode == csf_barten) {
    f1 = adm::barten_csf(scale, o.view_dist, o.display_height, 100.0, o.csf_scale);
    f2 = adm::barten_csf(scale, o.view_dist, o.display_height, 100.0, o.csf_diag_scale);
  } else if (o.mode == csf_adm_native) {
    f1 = native_csf(scale, o.view_dist, o.display_height, 0);
    f2 = native_csf(scale, o.view_dist, o.display_height, 45);
  } else {
    f1 = 1.0f / adm::dwt_quant_step(scale, 1, o.view_dist, o.display_height);
    f2 = 1.0f / adm::dwt_quant_step(scale, 2, o.view_dist, o.display_height);
  }
  if (o.f1[scale] >= 0) f1 = static_cast<float>(o.f1[scale]);
  if (o.f2[scale] >= 0) f2 = static_cast<float>(o.f2[scale]);
  rfactor[0] = f1;
  rfactor[1] = f1;
  rfactor[2] = f2;
}

// ---- per-scale and per-frame tails (host) ---------------------------------------------

inline PNorm p_norm(double p) {
  PNorm pn;
  pn.cube = p == 3.0;
  pn.p = static_cast<float>(p);
  return pn;
}

// powf(sum, 1.0f / p) + get_noise_constant(w, h, weight, p) per band, and the
// bands' float sum (h + v) + d.
inline float scale_tail(const RowSums& total, const Region& r, double noise_weight, double p) {
  const float inv_p = static_cast<float>(1.0 / p);
  const int area = (r.right - r.left) * (r.bottom - r.top);
  const float noise = rmath::cr_powf(static_cast<float>(area * noise_weight), inv_p);
  const float bh = rmath::cr_powf(total.h, inv_p) + noise;
  const float bv = rmath::cr_powf(total.v, inv_p) + noise;
  const float bd = rmath::cr_powf(total.d, inv_p) + noise;
  return bh + bv + bd;
}

struct FrameOptions {
  double dlm_weight = 0.5, min_val = 0.0;
  bool adm3_apply_hm = false;
  int skip_aim_scale = -1;
};

// compute_adm's tail and extract's adm3. Where the denominator vanishes
// upstream reports adm 1 and leaves aim uninitialised; R reports aim 0.
inline FrameScores frame_scores(const float num_scale[4], const float den_scale[4], const float aim_scale[4], int w,
                                int h, const FrameOptions& o) {
  FrameScores f;
  double num = 0, den = 0, aim_num = 0, aim_den = 0;
  for (int s = 0; s < 4; ++s) {
    num += static_cast<double>(num_scale[s]);
    den += static_cast<double>(den_scale[s]);
    if (o.skip_aim_scale != s) {
      aim_den += static_cast<double>(den_scale[s]);
      aim_num += static_cast<double>(aim_scale[s]);
    }
    f.scale_num[s] = static_cast<double>(num_scale[s]);
    f.scale_den[s] = static_cast<double>(den_scale[s]);
  }
  const double limit = frame_floor(w, h);
  num = num < limit ? 0 : num;
  den = den < limit ? 0 : den;
  if (den == 0.0) {
    f.adm2 = 1.0;
    f.aim = 0.0;
  } else {
    const double aim = aim_num / aim_den;
    f.aim = aim < 1.0 ? aim : 1.0;
    f.adm2 = num / den;
  }
  f.num = num;
  f.den = den;
  const double adm3 = o.adm3_apply_hm ? 2 * f.adm2 * f.aim / (f.adm2 + f.aim)
                                      : f.adm2 * o.dlm_weight + (1 - f.aim) * (1 - o.dlm_weight);
  f.adm3 = adm3 > o.min_val ? adm3 : o.min_val;
  return f;
}

}  // namespace exactvmaf::float_adm
