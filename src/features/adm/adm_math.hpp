// Integer ADM (libvmaf integer_adm.c at f85a853): the whole arithmetic, host
// and device. Four scales of a 4-tap Daubechies DWT of the luma plane; per
// scale the detail bands of the distorted frame are split into a restored
// part r (reference bands scaled towards the distorted ones, with the
// enhancement-gain limit) and an additive part a; both are weighted by a
// contrast sensitivity factor, masked by a 3x3 neighbourhood of the other
// part, cubed and summed per row; per-frame tails turn the sums into scores.
//
// Everything per sample is integer code except two fp64 islands, written as
// small named functions: angle_within_1deg (the angle test compares a 72-bit
// product rounded to double) and trunc_mul_gain (rst x gain limit truncated).
// Upstream's other float expressions on samples only decide a sign
// (rst_f > 0), which is done on the integers. Row functions take pointers and
// widths so a CUDA kernel can call them per row or per sample.
//
// Where upstream's C relies on implementation-defined or undefined behaviour
// that gcc on x86-64 resolves one way (narrowing stores, signed overflow,
// (uint16_t)/(uint32_t) of out-of-range doubles), R is that x86-64 result and
// the code below spells it out (wrapping through unsigned types).
#pragma once
#include <cstddef>
#include <cstdint>

#include "numeric/cr_exp.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
#include "features/common/adm_common.hpp"
#include "numeric/f64_policy.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::adm {

using i16 = std::int16_t;
using i32 = std::int32_t;
using i64 = std::int64_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

inline constexpr int num_scales = 4;
// Below 33 luma samples in either direction the DWT of scale 3 has fewer than
// 5 input rows/columns, where upstream's mirrored indices reach row -1 (it
// reads outside its buffers); from 33 on every index and shift is defined.
inline constexpr unsigned min_plane_size = 33;

// ---- integer helpers with upstream's (gcc, x86-64) semantics ----------------

// Two's-complement wrap (what gcc does for C's signed overflow and narrowing).
EXACTVMAF_HD_INLINE i32 wrap32(i64 x) { return static_cast<i32>(static_cast<u32>(static_cast<u64>(x))); }
EXACTVMAF_HD_INLINE i32 add32(i32 a, i32 b) { return static_cast<i32>(static_cast<u32>(a) + static_cast<u32>(b)); }
EXACTVMAF_HD_INLINE i32 sub32(i32 a, i32 b) { return static_cast<i32>(static_cast<u32>(a) - static_cast<u32>(b)); }
// C's abs(int): abs(INT32_MIN) stays INT32_MIN on x86-64.
EXACTVMAF_HD_INLINE i32 abs32(i32 x) { return x < 0 ? static_cast<i32>(0u - static_cast<u32>(x)) : x; }

// gcc's (uint16_t)double: 32-bit cvttsd2si (numeric/f64_policy.hpp), low 16
// bits. (uint32_t)double: 64-bit cvttsd2si, low 32 bits.
EXACTVMAF_HD_INLINE u16 u16_from_double(double d) {
  return static_cast<u16>(static_cast<u32>(rmath::x86_trunc_i32(d)));
}
EXACTVMAF_HD_INLINE u32 u32_from_double(double d) {
  return static_cast<u32>(static_cast<u64>(rmath::x86_trunc_i64(d)));
}

// pow(2, e) for an integral e (exact: a power of two, +inf above 1023, 0 below
// the subnormals).
EXACTVMAF_HD_INLINE double pow2(double e) {
  if (e > 1023.0) return 1.0 / 0.0;
  if (e < -1074.0) return 0.0;
  const int k = static_cast<int>(e);
  double r = 1.0;
  if (k >= 0) {
    for (int i = 0; i < k; ++i) r *= 2.0;
  } else {
    for (int i = 0; i < -k; ++i) r *= 0.5;
  }
  return r;
}

// ceil(log2(n)) for n >= 1, as upstream's ceil(log2((double)n)) with a
// correctly rounded log2 (log2 of a non-power of two below 2^53 never rounds
// to an integer).
EXACTVMAF_HD_INLINE u32 ceil_log2(u64 n) {
  u32 k = 0;
  while ((u64{1} << k) < n) ++k;
  return k;
}

EXACTVMAF_HD_INLINE int count_leading_zeros32(u32 x) {
#if EXACTVMAF_DEVICE_CODE
  return __clz(static_cast<int>(x));
#else
  return __builtin_clz(x);
#endif
}

// ---- DWT (db2, 4 taps) --------------------------------------------------------

EXACTVMAF_HD_INLINE i32 dwt_lo(int k) {
  const i32 taps[4] = {15826, 27411, 7345, -4240};
  return taps[k];
}
EXACTVMAF_HD_INLINE i32 dwt_hi(int k) {
  const i32 taps[4] = {-4240, -7345, 27411, -15826};
  return taps[k];
}
inline constexpr i32 dwt_lo_sum = 46342;


// Scale 0, vertical pass of output row i over w columns of a w x h plane
// (stride in samples): lo (and hi unless null) as int16, upstream's int32
// arithmetic (wrapping, which only matters for 16-bit input) with the
// normalisation of the lo band to a signed range.
template <class Sample>
EXACTVMAF_HD inline void dwt0_vertical_row(const Sample* src, std::ptrdiff_t stride, int w, int h, int i, unsigned bpc,
                                           i16* lo, i16* hi) {
  const Sample* r0 = src + dwt_src_index(i, 0, h) * stride;
  const Sample* r1 = src + dwt_src_index(i, 1, h) * stride;
  const Sample* r2 = src + dwt_src_index(i, 2, h) * stride;
  const Sample* r3 = src + dwt_src_index(i, 3, h) * stride;
  const i32 add = i32{1} << (bpc - 1);
  const u32 lo_offset = static_cast<u32>(dwt_lo_sum) * static_cast<u32>(add);
  for (int j = 0; j < w; ++j) {
    const i32 s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
    // Each product fits int32 (|tap| < 2^15, sample < 2^16); sums wrap as in C.
    u32 acc = static_cast<u32>(dwt_lo(0) * s0) + static_cast<u32>(dwt_lo(1) * s1) +
              static_cast<u32>(dwt_lo(2) * s2) + static_cast<u32>(dwt_lo(3) * s3);
    acc -= lo_offset;
    lo[j] = static_cast<i16>(static_cast<i32>(acc + static_cast<u32>(add)) >> bpc);
    if (hi) {
      u32 acch = static_cast<u32>(dwt_hi(0) * s0) + static_cast<u32>(dwt_hi(1) * s1) +
                 static_cast<u32>(dwt_hi(2) * s2) + static_cast<u32>(dwt_hi(3) * s3);
      hi[j] = static_cast<i16>(static_cast<i32>(acch + static_cast<u32>(add)) >> bpc);
    }
  }
}

// One horizontal tap sum of scale 0: (sum + 2^15) >> 16 stored as int16.
EXACTVMAF_HD_INLINE i16 dwt0_h_lo(i32 s0, i32 s1, i32 s2, i32 s3) {
  const i32 acc = dwt_lo(0) * s0 + dwt_lo(1) * s1 + dwt_lo(2) * s2 + dwt_lo(3) * s3;
  return static_cast<i16>((acc + 32768) >> 16);
}
EXACTVMAF_HD_INLINE i16 dwt0_h_hi(i32 s0, i32 s1, i32 s2, i32 s3) {
  const i32 acc = dwt_hi(0) * s0 + dwt_hi(1) * s1 + dwt_hi(2) * s2 + dwt_hi(3) * s3;
  return static_cast<i16>((acc + 32768) >> 16);
}

// Scale 0, horizontal pass over one row of vertical results (w columns):
// bands a, v (from lo) and h, d (from hi) of (w + 1) / 2 samples. With hi
// null only a is made (adm_skip_scale0).
// Output j of the scale-0 horizontal pass (mirrored at the edges).
EXACTVMAF_HD_INLINE void dwt0_horizontal_at(const i16* lo, const i16* hi, int w, int j, i16* a, i16* v, i16* h,
                                            i16* d) {
  const int j0 = dwt_src_index(j, 0, w), j1 = dwt_src_index(j, 1, w), j2 = dwt_src_index(j, 2, w),
            j3 = dwt_src_index(j, 3, w);
  a[j] = dwt0_h_lo(lo[j0], lo[j1], lo[j2], lo[j3]);
  if (hi) {
    v[j] = dwt0_h_hi(lo[j0], lo[j1], lo[j2], lo[j3]);
    h[j] = dwt0_h_lo(hi[j0], hi[j1], hi[j2], hi[j3]);
    d[j] = dwt0_h_hi(hi[j0], hi[j1], hi[j2], hi[j3]);
  }
}

EXACTVMAF_HD inline void dwt0_horizontal_row(const i16* lo, const i16* hi, int w, i16* a, i16* v, i16* h, i16* d) {
  const int bw = band_size(w);
  for (int j = 0; j < bw; ++j) dwt0_horizontal_at(lo, hi, w, j, a, v, h, d);
}

// Scales 1..3: rounding and shifts of the vertical (VP) and horizontal (HP)
// passes.
EXACTVMAF_HD_INLINE i64 dwt_vp_add(int scale) { return scale == 1 ? 0 : 32768; }
EXACTVMAF_HD_INLINE int dwt_vp_shift(int scale) { return scale == 1 ? 0 : 16; }
EXACTVMAF_HD_INLINE i64 dwt_hp_add(int scale) { return scale == 2 ? 32768 : 16384; }
EXACTVMAF_HD_INLINE int dwt_hp_shift(int scale) { return scale == 2 ? 16 : 15; }

// Scales 1..3, vertical pass of output row i over an int32 w x h input.
EXACTVMAF_HD inline void dwt_vertical_row(const i32* src, std::ptrdiff_t stride, int w, int h, int i, int scale,
                                          i32* lo, i32* hi) {
  const i32* r0 = src + dwt_src_index(i, 0, h) * stride;
  const i32* r1 = src + dwt_src_index(i, 1, h) * stride;
  const i32* r2 = src + dwt_src_index(i, 2, h) * stride;
  const i32* r3 = src + dwt_src_index(i, 3, h) * stride;
  const i64 add = dwt_vp_add(scale);
  const int shift = dwt_vp_shift(scale);
  for (int j = 0; j < w; ++j) {
    const i64 s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
    const i64 al = dwt_lo(0) * s0 + dwt_lo(1) * s1 + dwt_lo(2) * s2 + dwt_lo(3) * s3;
    const i64 ah = dwt_hi(0) * s0 + dwt_hi(1) * s1 + dwt_hi(2) * s2 + dwt_hi(3) * s3;
    lo[j] = wrap32((al + add) >> shift);
    hi[j] = wrap32((ah + add) >> shift);
  }
}

EXACTVMAF_HD_INLINE i32 dwt_h_lo(i64 s0, i64 s1, i64 s2, i64 s3, i64 add, int shift) {
  return wrap32((dwt_lo(0) * s0 + dwt_lo(1) * s1 + dwt_lo(2) * s2 + dwt_lo(3) * s3 + add) >> shift);
}
EXACTVMAF_HD_INLINE i32 dwt_h_hi(i64 s0, i64 s1, i64 s2, i64 s3, i64 add, int shift) {
  return wrap32((dwt_hi(0) * s0 + dwt_hi(1) * s1 + dwt_hi(2) * s2 + dwt_hi(3) * s3 + add) >> shift);
}

// Scales 1..3, horizontal pass: bands a, v, h, d of (w + 1) / 2 samples.
// Output j of a scales 1..3 horizontal pass (mirrored at the edges).
EXACTVMAF_HD_INLINE void dwt_horizontal_at(const i32* lo, const i32* hi, int w, int j, i64 add, int shift, i32* a,
                                           i32* v, i32* h, i32* d) {
  const int j0 = dwt_src_index(j, 0, w), j1 = dwt_src_index(j, 1, w), j2 = dwt_src_index(j, 2, w),
            j3 = dwt_src_index(j, 3, w);
  a[j] = dwt_h_lo(lo[j0], lo[j1], lo[j2], lo[j3], add, shift);
  v[j] = dwt_h_hi(lo[j0], lo[j1], lo[j2], lo[j3], add, shift);
  h[j] = dwt_h_lo(hi[j0], hi[j1], hi[j2], hi[j3], add, shift);
  d[j] = dwt_h_hi(hi[j0], hi[j1], hi[j2], hi[j3], add, shift);
}

EXACTVMAF_HD inline void dwt_horizontal_row(const i32* lo, const i32* hi, int w, int scale, i32* a, i32* v, i32* h,
                                            i32* d) {
  const i64 add = dwt_hp_add(scale);
  const int shift = dwt_hp_shift(scale);
  const int bw = band_size(w);
  for (int j = 0; j < bw; ++j) dwt_horizontal_at(lo, hi, w, j, add, shift, a, v, h, d);
}

// ---- decouple -------------------------------------------------------------

// cos(1 degree)^2 as upstream's float: cos(M_PI / 180) squared in double
// (constant-folded with a correctly rounded cos), stored to float.
inline constexpr float cos_1deg_sq = 0x1.ffd814p-1f;

// fp64 island: is the angle between (oh, ov) and (th, tv) below 1 degree?
// Upstream converts the int64 dot product and squared norms to float, scales
// by 1/4096 in double, and compares dp^2 (exact in double) with
// cos^2 * |o|^2 * |t|^2, a 72-bit product rounded to double.
// Written against the fp64 policy F (numeric/f64_policy.hpp).
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE bool angle_within_1deg(i64 ot_dp, i64 o_mag_sq, i64 t_mag_sq, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  const D dp = D(static_cast<float>(ot_dp)) / D(4096.0);
  if (!f.ge(dp, D(0.0))) return false;
  const D o = D(static_cast<float>(o_mag_sq)) / D(4096.0);
  const D t = D(static_cast<float>(t_mag_sq)) / D(4096.0);
  return f.ge(dp * dp, D(cos_1deg_sq) * o * t);
}

// fp64 island: upstream's rst * adm_enhn_gain_limit (int times double, one
// rounding) truncated back to an integer, as its scalar C does (R). Its
// AVX-512 decouple rounds to nearest even on 16-wide blocks instead, so plain
// upstream differs at non-integer gains (docs/numerics.md). The caller's
// MIN/MAX with the distorted coefficient commutes with the conversion (that
// bound is an integer), so it is done on integers.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE i64 trunc_mul_gain(i64 rst, double gain, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  return f.trunc_i64(D(rst) * D(gain));
}

// The enhancement-gain limit on a restored coefficient: only where the angle
// test passed and rst's float twin (k / 2^15 * o / 64) is nonzero, i.e. k > 0
// and o != 0; then min(rst * gain, t) for o > 0, max(rst * gain, t) for o < 0.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE i64 limit_gain(bool angle_flag, i64 k, i64 o, i64 rst, i64 t, double gain, F&& f = F{}) {
  if (!angle_flag || k <= 0 || o == 0) return rst;
  const i64 g = f.exact_island([&](auto& p) { return trunc_mul_gain(rst, gain, p); });
  if (o > 0) return g < t ? g : t;
  return g > t ? g : t;
}

EXACTVMAF_HD_INLINE i64 clamp_k(i64 k) { return k < 0 ? 0 : (k > 32768 ? 32768 : k); }

// div_lookup[32768 + i] = 2^30 / i (truncated), div_lookup[32768 - i] = -that,
// for i = 1..32768 (index 32768 unused).
EXACTVMAF_HD_INLINE i32 div_lookup_entry(int index) {
  const int i = index - 32768;
  if (i == 0) return 0;
  const i32 r = static_cast<i32>(1073741824 / (i < 0 ? -i : i));
  return i < 0 ? -r : r;
}
inline constexpr int div_lookup_size = 65537;

// Scale 0 decouple of one sample (o: reference, t: distorted coefficients of
// the h, v, d bands); writes r and a.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE void decouple0_sample(i16 oh, i16 ov, i16 od, i16 th, i16 tv, i16 td, double gain,
                                          const i32* div_lookup, i16* rh, i16* rv, i16* rd, i16* ah, i16* av,
                                          i16* ad, F&& f = F{}) {
  const i64 ot_dp = i64{oh} * th + i64{ov} * tv;
  const i64 o_mag_sq = i64{oh} * oh + i64{ov} * ov;
  const i64 t_mag_sq = i64{th} * th + i64{tv} * tv;
  const bool angle_flag = f.island([&](auto& g) { return angle_within_1deg(ot_dp, o_mag_sq, t_mag_sq, g); });
  const i16 o[3] = {oh, ov, od}, t[3] = {th, tv, td};
  i16* r[3] = {rh, rv, rd};
  i16* a[3] = {ah, av, ad};
  for (int b = 0; b < 3; ++b) {
    const i64 k = o[b] == 0 ? 32768 : clamp_k((i64{div_lookup[o[b] + 32768]} * t[b] + 16384) >> 15);
    // k <= 2^15 and |o| <= 2^15: the int32 product of upstream cannot overflow.
    const i64 rst = static_cast<i16>((k * o[b] + 16384) >> 15);
    const i64 lim = limit_gain(angle_flag, k, o[b], rst, t[b], gain, f);
    *r[b] = static_cast<i16>(lim);
    *a[b] = static_cast<i16>(t[b] - lim);
  }
}

// Scales 1..3: the reciprocal of |o| >= 2^15 from its 15 leading bits
// (upstream's get_best15_from32): the rounded bits and the extra shift.
EXACTVMAF_HD_INLINE u32 best15_from32(u32 v, int* shift) {
  const int k = 17 - count_leading_zeros32(v);
  *shift = k;
  return static_cast<u16>((v + (u32{1} << (k - 1))) >> k);
}

EXACTVMAF_HD_INLINE i64 decouple_k_s123(i32 o, i32 t, const i32* div_lookup) {
  if (o == 0) return 32768;
  const u32 abs_o = static_cast<u32>(abs32(o));
  const i64 sign = o < 0 ? -1 : 1;
  int shift = 0;
  const u32 msb = abs_o < 32768u ? abs_o : best15_from32(abs_o, &shift);
  const i64 num = (i64{div_lookup[msb + 32768]} * t) * sign;
  return clamp_k((num + (i64{1} << (14 + shift))) >> (15 + shift));
}

template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE void decouple_s123_sample(i32 oh, i32 ov, i32 od, i32 th, i32 tv, i32 td, double gain,
                                              const i32* div_lookup, i32* rh, i32* rv, i32* rd, i32* ah, i32* av,
                                              i32* ad, F&& f = F{}) {
  // Wrapping as upstream's int64 arithmetic would (never reached by real bands).
  const i64 ot_dp = static_cast<i64>(static_cast<u64>(i64{oh} * th) + static_cast<u64>(i64{ov} * tv));
  const i64 o_mag_sq = static_cast<i64>(static_cast<u64>(i64{oh} * oh) + static_cast<u64>(i64{ov} * ov));
  const i64 t_mag_sq = static_cast<i64>(static_cast<u64>(i64{th} * th) + static_cast<u64>(i64{tv} * tv));
  const bool angle_flag = f.island([&](auto& g) { return angle_within_1deg(ot_dp, o_mag_sq, t_mag_sq, g); });
  const i32 o[3] = {oh, ov, od}, t[3] = {th, tv, td};
  i32* r[3] = {rh, rv, rd};
  i32* a[3] = {ah, av, ad};
  for (int b = 0; b < 3; ++b) {
    const i64 k = decouple_k_s123(o[b], t[b], div_lookup);
    const i64 rst = wrap32((k * o[b] + 16384) >> 15);
    const i64 lim = limit_gain(angle_flag, k, o[b], rst, t[b], gain, f);
    *r[b] = wrap32(lim);
    *a[b] = sub32(t[b], wrap32(lim));
  }
}

// The three detail bands of one frame at one scale (h, v, d), row pointers
// built from a base and a stride in samples.
template <class T>
struct Bands3 {
  T* h;
  T* v;
  T* d;
  std::ptrdiff_t stride;
  EXACTVMAF_HD_INLINE T* row(int band, int i) const {
    return (band == 0 ? h : band == 1 ? v : d) + static_cast<std::ptrdiff_t>(i) * stride;
  }
};

// Decouple of columns [j0, j1) of row i, the islands on policy f.
template <class F>
EXACTVMAF_HD inline void decouple0_row_with(F& f, const Bands3<const i16>& ref, const Bands3<const i16>& dis, int i,
                                            int j0, int j1, double gain, const i32* div_lookup, const Bands3<i16>& r,
                                            const Bands3<i16>& a) {
  const i16 *oh = ref.row(0, i), *ov = ref.row(1, i), *od = ref.row(2, i);
  const i16 *th = dis.row(0, i), *tv = dis.row(1, i), *td = dis.row(2, i);
  i16 *rh = r.row(0, i), *rv = r.row(1, i), *rd = r.row(2, i);
  i16 *ah = a.row(0, i), *av = a.row(1, i), *ad = a.row(2, i);
  for (int j = j0; j < j1; ++j)
    decouple0_sample(oh[j], ov[j], od[j], th[j], tv[j], td[j], gain, div_lookup, rh + j, rv + j, rd + j, ah + j,
                     av + j, ad + j, f);
}

template <class F>
EXACTVMAF_HD inline void decouple_s123_row_with(F& f, const Bands3<const i32>& ref, const Bands3<const i32>& dis,
                                                int i, int j0, int j1, double gain, const i32* div_lookup,
                                                const Bands3<i32>& r, const Bands3<i32>& a) {
  const i32 *oh = ref.row(0, i), *ov = ref.row(1, i), *od = ref.row(2, i);
  const i32 *th = dis.row(0, i), *tv = dis.row(1, i), *td = dis.row(2, i);
  i32 *rh = r.row(0, i), *rv = r.row(1, i), *rd = r.row(2, i);
  i32 *ah = a.row(0, i), *av = a.row(1, i), *ad = a.row(2, i);
  for (int j = j0; j < j1; ++j)
    decouple_s123_sample(oh[j], ov[j], od[j], th[j], tv[j], td[j], gain, div_lookup, rh + j, rv + j, rd + j, ah + j,
                         av + j, ad + j, f);
}

EXACTVMAF_HD inline void decouple0_row(const Bands3<const i16>& ref, const Bands3<const i16>& dis, int i, int j0,
                                       int j1, double gain, const i32* div_lookup, const Bands3<i16>& r,
                                       const Bands3<i16>& a) {
  rmath::NativeF64 f;
  decouple0_row_with(f, ref, dis, i, j0, j1, gain, div_lookup, r, a);
}

EXACTVMAF_HD inline void decouple_s123_row(const Bands3<const i32>& ref, const Bands3<const i32>& dis, int i, int j0,
                                           int j1, double gain, const i32* div_lookup, const Bands3<i32>& r,
                                           const Bands3<i32>& a) {
  rmath::NativeF64 f;
  decouple_s123_row_with(f, ref, dis, i, j0, j1, gain, div_lookup, r, a);
}

// ---- contrast sensitivity (per-sample weighting) ----------------------------

// Fixed-point CSF factors of one scale: rfactor (float, for the denominator),
// and the integer factors of the h, v, d bands.
struct ScaleFactors {
  float rfactor[3] = {0, 0, 0};
  u32 i_rfactor[3] = {0, 0, 0};  // scale 0: uint16 values; scales 1..3: uint32
};

// Scale 0: shifts and rounding of the h/v and d bands (upstream's rounding
// constant of the d band is 65535, not 2^16).
EXACTVMAF_HD_INLINE int csf0_shift(int band) { return band == 2 ? 17 : 15; }
EXACTVMAF_HD_INLINE i32 csf0_round(int band) { return band == 2 ? 65535 : 16384; }

// Scale 0 CSF of one sample: the weighted value and its /30 "filtered" twin.
EXACTVMAF_HD_INLINE void csf0_sample(i16 src, u32 i_rfactor, int band, i16* dst, i16* flt) {
  const i32 prod = static_cast<i32>(i_rfactor) * i32{src};  // < 2^31: uint16 x int16
  const i16 v = static_cast<i16>(add32(prod, csf0_round(band)) >> csf0_shift(band));
  *dst = v;
  *flt = static_cast<i16>((4369 * abs32(v) + 2048) >> 12);
}

// Scales 1..3. Upstream keeps 2^31 in an int32 as its rounding term for the
// /30 twin, so that term is -2^31.
EXACTVMAF_HD_INLINE void csf_s123_sample(i32 src, u32 i_rfactor, i32* dst, i32* flt) {
  const i32 v = wrap32((i64{i_rfactor} * src + (i64{1} << 27)) >> 28);
  *dst = v;
  *flt = wrap32((i64{143165577} * abs32(v) + i64{INT32_MIN}) >> 32);
}

EXACTVMAF_HD inline void csf0_row(const i16* src, u32 i_rfactor, int band, int j0, int j1, i16* dst, i16* flt) {
  for (int j = j0; j < j1; ++j) csf0_sample(src[j], i_rfactor, band, dst + j, flt + j);
}
EXACTVMAF_HD inline void csf_s123_row(const i32* src, u32 i_rfactor, int j0, int j1, i32* dst, i32* flt) {
  for (int j = j0; j < j1; ++j) csf_s123_sample(src[j], i_rfactor, dst + j, flt + j);
}

// ---- contrast masking and the numerator sums --------------------------------


// The masking threshold's own-sample term: |x| / 15 in fixed point.
EXACTVMAF_HD_INLINE i32 cm0_centre(i16 x) { return static_cast<i16>((8738 * abs32(x) + 2048) >> 12); }
EXACTVMAF_HD_INLINE i32 cm_s123_centre(i32 x) { return wrap32((i64{286331153} * abs32(x) + i64{INT32_MIN}) >> 32); }

// Scale 0 cubing constants: the square is shifted by 29 (h, v) / 30 (d), the
// threshold by 10 / 12, the cube by shift_cub (per band, from the width).
struct Cm0Shifts {
  u32 cub_hv = 0, cub_d = 0;
  i64 add_cub_hv = 0, add_cub_d = 0;
};

EXACTVMAF_HD_INLINE i64 cm0_cube(i32 x, i32 thr, int shift_sub, int shift_sq, i64 add_sq, u32 shift_cub,
                                 i64 add_cub) {
  // C++20 shifts of negative values are arithmetic/modular, as gcc does in C.
  i32 v = sub32(abs32(x), static_cast<i32>(static_cast<u32>(thr) << shift_sub));
  v = v < 0 ? 0 : v;
  const i32 v_sq = wrap32((i64{v} * v + add_sq) >> shift_sq);
  return (i64{v_sq} * v + add_cub) >> shift_cub;
}

struct CmRowSums {
  i64 h = 0, v = 0, d = 0;
};

// Upstream's int64 row sums, wrapping as x86 does where extreme (non-image)
// bands overflow them (signed overflow is undefined in C++).
EXACTVMAF_HD_INLINE i64 wrap_add(i64 a, i64 b) { return static_cast<i64>(static_cast<u64>(a) + static_cast<u64>(b)); }

// Scale 0: the masked cubes of one scored sample (h, v, d) under threshold
// thr (cm0_row per column; the CUDA masking kernel per sample).
EXACTVMAF_HD_INLINE CmRowSums cm0_sample_cubes(i16 sh, i16 sv, i16 sd, i32 thr, const u32 i_rfactor[3],
                                               const Cm0Shifts& s) {
  // uint16 factor x int16 sample: |product| <= 65535 * 32768 < 2^31.
  const i32 xh = i32{sh} * static_cast<i32>(i_rfactor[0]);
  const i32 xv = i32{sv} * static_cast<i32>(i_rfactor[1]);
  const i32 xd = i32{sd} * static_cast<i32>(i_rfactor[2]);
  CmRowSums c;
  c.h = cm0_cube(xh, thr, 10, 29, 268435456, s.cub_hv, s.add_cub_hv);
  c.v = cm0_cube(xv, thr, 10, 29, 268435456, s.cub_hv, s.add_cub_hv);
  c.d = cm0_cube(xd, thr, 12, 30, 536870912, s.cub_d, s.add_cub_d);
  return c;
}

// Sums of one row i (columns [j0, j1)) of the scale-0 numerator: src is the
// decoupled band being scored, angles the CSF of the other band and flt its
// /30 twin (all three bands each), w x h band size.
EXACTVMAF_HD inline CmRowSums cm0_row(const Bands3<const i16>& src, const Bands3<const i16>& angles,
                                      const Bands3<const i16>& flt, const u32 i_rfactor[3], int w, int h, int i,
                                      int j0, int j1, const Cm0Shifts& s) {
  const int ip = cm_prev(i), in = cm_next(i, h);
  const i16* f_up[3];
  const i16* f_mid[3];
  const i16* f_dn[3];
  const i16* ang[3];
  for (int b = 0; b < 3; ++b) {
    f_up[b] = flt.row(b, ip);
    f_mid[b] = flt.row(b, i);
    f_dn[b] = flt.row(b, in);
    ang[b] = angles.row(b, i);
  }
  const i16 *sh = src.row(0, i), *sv = src.row(1, i), *sd = src.row(2, i);
  CmRowSums sums;
  for (int j = j0; j < j1; ++j) {
    const int jl = cm_prev(j), jr = cm_next(j, w);
    i32 thr = 0;
    for (int b = 0; b < 3; ++b) {
      thr += i32{f_up[b][jl]} + f_up[b][j] + f_up[b][jr];
      thr += i32{f_mid[b][jl]} + cm0_centre(ang[b][j]) + f_mid[b][jr];
      thr += i32{f_dn[b][jl]} + f_dn[b][j] + f_dn[b][jr];
    }
    const CmRowSums c = cm0_sample_cubes(sh[j], sv[j], sd[j], thr, i_rfactor, s);
    sums.h = wrap_add(sums.h, c.h);
    sums.v = wrap_add(sums.v, c.v);
    sums.d = wrap_add(sums.d, c.d);
  }
  return sums;
}

EXACTVMAF_HD_INLINE i64 cm_s123_cube(i32 x, i32 thr, u32 shift_cub, i64 add_cub) {
  i32 v = sub32(abs32(x), thr);
  v = v < 0 ? 0 : v;
  const i32 v_sq = wrap32((i64{v} * v + 536870912) >> 30);
  return (i64{v_sq} * v + add_cub) >> shift_cub;
}

EXACTVMAF_HD_INLINE i32 csf_s123_value(i32 src, u32 i_rfactor) {
  return wrap32((i64{src} * i_rfactor + (i64{1} << 27)) >> 28);
}

// Scales 1..3: the masked cubes of one scored sample (h, v, d; CSF applied
// here) under threshold thr (cm_s123_row per column; the CUDA masking kernel
// per sample).
EXACTVMAF_HD_INLINE CmRowSums cm_s123_sample_cubes(i32 sh, i32 sv, i32 sd, i32 thr, const u32 i_rfactor[3],
                                                   u32 shift_cub, i64 add_cub) {
  CmRowSums c;
  c.h = cm_s123_cube(csf_s123_value(sh, i_rfactor[0]), thr, shift_cub, add_cub);
  c.v = cm_s123_cube(csf_s123_value(sv, i_rfactor[1]), thr, shift_cub, add_cub);
  c.d = cm_s123_cube(csf_s123_value(sd, i_rfactor[2]), thr, shift_cub, add_cub);
  return c;
}

EXACTVMAF_HD inline CmRowSums cm_s123_row(const Bands3<const i32>& src, const Bands3<const i32>& angles,
                                          const Bands3<const i32>& flt, const u32 i_rfactor[3], int w, int h, int i,
                                          int j0, int j1, u32 shift_cub, i64 add_cub) {
  const int ip = cm_prev(i), in = cm_next(i, h);
  const i32* f_up[3];
  const i32* f_mid[3];
  const i32* f_dn[3];
  const i32* ang[3];
  for (int b = 0; b < 3; ++b) {
    f_up[b] = flt.row(b, ip);
    f_mid[b] = flt.row(b, i);
    f_dn[b] = flt.row(b, in);
    ang[b] = angles.row(b, i);
  }
  const i32 *sh = src.row(0, i), *sv = src.row(1, i), *sd = src.row(2, i);
  CmRowSums sums;
  for (int j = j0; j < j1; ++j) {
    const int jl = cm_prev(j), jr = cm_next(j, w);
    i32 thr = 0;  // int32 sums as upstream (wrapping)
    for (int b = 0; b < 3; ++b) {
      i32 t = 0;
      t = add32(t, f_up[b][jl]);
      t = add32(t, f_up[b][j]);
      t = add32(t, f_up[b][jr]);
      t = add32(t, f_mid[b][jl]);
      t = add32(t, cm_s123_centre(ang[b][j]));
      t = add32(t, f_mid[b][jr]);
      t = add32(t, f_dn[b][jl]);
      t = add32(t, f_dn[b][j]);
      t = add32(t, f_dn[b][jr]);
      thr = add32(thr, t);
    }
    const CmRowSums c = cm_s123_sample_cubes(sh[j], sv[j], sd[j], thr, i_rfactor, shift_cub, add_cub);
    sums.h = wrap_add(sums.h, c.h);
    sums.v = wrap_add(sums.v, c.v);
    sums.d = wrap_add(sums.d, c.d);
  }
  return sums;
}

// ---- masking thresholds from per-position sums (the CUDA kernels' form) -----
//
// cm0_row / cm_s123_row add, per scored sample (i, j), 27 terms into the
// threshold: for each band b in (h, v, d) the /30 twin flt_b at the 8
// neighbours (ip|i|in) x (jl|j|jr) other than (i, j), and centre_b(dst_b) at
// (i, j) (cm0_centre / cm_s123_centre of the band's CSF value). The CUDA
// kernels store two int32 planes per masking pass instead of the six CSF
// planes: flt_sum = flt_h + flt_v + flt_d per position, and centre =
// centre_h + centre_v + centre_d; the threshold is then the 8 neighbours'
// flt_sum plus centre: the same 27 terms, grouped by position instead of by
// band.
//
// Why the bits are the same:
// - Scales 1..3: the CPU adds in int32 with wrapping (add32), so its result
//   is the exact integer sum of the 27 terms modulo 2^32. Addition modulo
//   2^32 is associative and commutative, and every partial sum here is also
//   taken with add32 (modulo 2^32); so any grouping of the same 27 terms,
//   stored in int32 at any point, gives the same residue, i.e. the same
//   int32. (The twins lie in [-71582789, 71582787] and the centre terms in
//   [-143165577, 143165575], below -1 only where a CSF value is
//   INT32_MIN, which abs32 keeps negative; so 27 terms stay below 2^31 but can
//   reach -2147483667 < -2^31: the wrap can occur, and the proof does not
//   depend on its absence.)
// - Scale 0: every term is an int16 (the twins and the centre are stored to
//   int16), so every partial sum of at most 27 of them is below 27 * 2^15 <
//   2^20 in magnitude: the CPU's int32 `+=` never overflows and gives the
//   exact sum; add32 below never wraps either and gives the same exact sum.
// The neighbour indices are the caller's cm_prev / cm_next, as in the row
// functions (also where cm_next(j) == j at the right edge: that position is
// then a neighbour with its flt_sum, as the CPU reads f_mid[b][jr] there).
struct MaskingSums {
  i32 flt_sum = 0;  // flt_h + flt_v + flt_d at this position
  i32 centre = 0;   // centre_h + centre_v + centre_d at this position
};

// Scale 0: the CSF (csf0_sample) of the three bands of the masking band at
// one position, reduced to its two sums.
EXACTVMAF_HD_INLINE MaskingSums masking_sums0(i16 h, i16 v, i16 d, const u32 i_rfactor[3]) {
  const i16 src[3] = {h, v, d};
  MaskingSums m;
  for (int b = 0; b < 3; ++b) {
    i16 dst, flt;
    csf0_sample(src[b], i_rfactor[b], b, &dst, &flt);
    m.flt_sum = add32(m.flt_sum, flt);
    m.centre = add32(m.centre, cm0_centre(dst));
  }
  return m;
}

// Scales 1..3: the same with csf_s123_sample and cm_s123_centre.
EXACTVMAF_HD_INLINE MaskingSums masking_sums_s123(i32 h, i32 v, i32 d, const u32 i_rfactor[3]) {
  const i32 src[3] = {h, v, d};
  MaskingSums m;
  for (int b = 0; b < 3; ++b) {
    i32 dst, flt;
    csf_s123_sample(src[b], i_rfactor[b], &dst, &flt);
    m.flt_sum = add32(m.flt_sum, flt);
    m.centre = add32(m.centre, cm_s123_centre(dst));
  }
  return m;
}

// The threshold at column j of a row from the flt_sum rows above (up), at
// (mid) and below (dn) and the centre sum at (i, j): equal to the thr of
// cm0_row / cm_s123_row at (i, j) (proof above). jl = cm_prev(j), jr =
// cm_next(j, w).
EXACTVMAF_HD_INLINE i32 masking_threshold_from_sums(const i32* up, const i32* mid, const i32* dn, int jl, int j,
                                                    int jr, i32 centre) {
  i32 thr = centre;
  thr = add32(thr, up[jl]);
  thr = add32(thr, up[j]);
  thr = add32(thr, up[jr]);
  thr = add32(thr, mid[jl]);
  thr = add32(thr, mid[jr]);
  thr = add32(thr, dn[jl]);
  thr = add32(thr, dn[j]);
  thr = add32(thr, dn[jr]);
  return thr;
}

// ---- denominator sums ------------------------------------------------------

struct DenRowSums {
  u64 h = 0, v = 0, d = 0;
};

// Scale 0: |x|^3 of one reference coefficient (its magnitude as uint16).
EXACTVMAF_HD_INLINE u64 den0_cube(i16 x) {
  const u64 m = static_cast<u16>(abs32(x));
  return m * m * m;
}

// Scale 0: sum of |x|^3 of the reference bands over columns [j0, j1).
EXACTVMAF_HD inline DenRowSums den0_row(const Bands3<const i16>& ref, int i, int j0, int j1) {
  const i16 *bh = ref.row(0, i), *bv = ref.row(1, i), *bd = ref.row(2, i);
  DenRowSums s;
  for (int j = j0; j < j1; ++j) {
    s.h += den0_cube(bh[j]);
    s.v += den0_cube(bv[j]);
    s.d += den0_cube(bd[j]);
  }
  return s;
}

// Scales 1..3: ((x^2 + 2^shift_sq) >> shift_sq) * x, rounded by shift_cub
// (upstream's rounding term of the square is 2^shift_sq, not half of it).
EXACTVMAF_HD_INLINE u32 den_s123_shift_sq(int scale) { return scale == 2 ? 30 : 31; }

EXACTVMAF_HD_INLINE u64 den_s123_cube(i32 x, u32 shift_sq, u32 shift_cub, u64 add_cub) {
  const u64 a = static_cast<u32>(abs32(x));
  return ((((a * a) + (u64{1} << shift_sq)) >> shift_sq) * a + add_cub) >> shift_cub;
}

EXACTVMAF_HD inline DenRowSums den_s123_row(const Bands3<const i32>& ref, int i, int j0, int j1, u32 shift_sq,
                                            u32 shift_cub, u64 add_cub) {
  const i32 *bh = ref.row(0, i), *bv = ref.row(1, i), *bd = ref.row(2, i);
  DenRowSums s;
  for (int j = j0; j < j1; ++j) {
    s.h += den_s123_cube(bh[j], shift_sq, shift_cub, add_cub);
    s.v += den_s123_cube(bv[j], shift_sq, shift_cub, add_cub);
    s.d += den_s123_cube(bd[j], shift_sq, shift_cub, add_cub);
  }
  return s;
}

// ---- per-scale shift constants (from the band size) ----------------------------

// (uint32_t)pow(2, shift - 1) with shift unsigned: for shift 0 upstream's
// exponent wraps to 2^32 - 1, pow gives +inf and the conversion 0.
EXACTVMAF_HD_INLINE u32 half_of_pow2(u32 shift) {
  return u32_from_double(pow2(static_cast<double>(static_cast<u32>(shift - 1u))));
}

// Rounding shift of the per-row sums: the row's sum is shifted by
// ceil(log2(h)) before it joins the frame's sum.
struct RowShift {
  u32 shift = 0;
  i64 add = 0;
};
EXACTVMAF_HD_INLINE RowShift cm_row_shift(int h) {
  RowShift r;
  r.shift = ceil_log2(static_cast<u64>(h));
  r.add = half_of_pow2(r.shift);
  return r;
}

EXACTVMAF_HD_INLINE Cm0Shifts cm0_shifts(int w) {
  Cm0Shifts s;
  // ceil(log2(w) - 4) and ceil(log2(w) - 3) (w >= 17 here).
  s.cub_hv = ceil_log2(static_cast<u64>(w)) - 4u;
  s.cub_d = ceil_log2(static_cast<u64>(w)) - 3u;
  s.add_cub_hv = half_of_pow2(s.cub_hv);
  s.add_cub_d = half_of_pow2(s.cub_d);
  return s;
}

// ---- per-frame tails (host: R's correctly rounded powf/pow) -----------------------

inline float cbrtf_r(float x) { return rmath::cr_powf(x, 1.0f / 3.0f); }

// powf((bottom - top) * (right - left) * noise_weight, 1/3): the noise floor
// added to each band's norm.
inline float noise_floor(const Region& r, double noise_weight) {
  const int area = (r.bottom - r.top) * (r.right - r.left);
  return cbrtf_r(static_cast<float>(area * noise_weight));
}

// Scale 0 numerator from the frame sums (accum_h, v, d after the row shifts).
inline float num0_tail(const i64 accum[3], const Cm0Shifts& s, u32 row_shift, const Region& r, double noise_weight) {
  const u32 shifts[3] = {52u - s.cub_hv - row_shift, 52u - s.cub_hv - row_shift, 57u - s.cub_d - row_shift};
  const float floor_term = noise_floor(r, noise_weight);
  float band[3];
  for (int b = 0; b < 3; ++b) {
    const float f = static_cast<float>(static_cast<double>(accum[b]) / pow2(static_cast<double>(shifts[b])));
    band[b] = cbrtf_r(f) + floor_term;
  }
  return band[0] + band[1] + band[2];
}

// Scales 1..3: the final shift is a float and the division is in float.
inline float num_s123_tail(const i64 accum[3], int scale, u32 shift_cub, u32 row_shift, const Region& r,
                           double noise_weight) {
  const u32 base = scale == 1 ? 45u : scale == 2 ? 39u : 36u;
  const float final_shift = static_cast<float>(pow2(static_cast<double>(base - shift_cub - row_shift)));
  const float floor_term = noise_floor(r, noise_weight);
  float band[3];
  for (int b = 0; b < 3; ++b) band[b] = cbrtf_r(static_cast<float>(accum[b]) / final_shift) + floor_term;
  return band[0] + band[1] + band[2];
}

// Denominator of one scale: csf = accum / 2^shift * rfactor^3 (double, pow),
// then the cube roots (float).
inline float den_tail(const u64 accum[3], double shift_csf, const float rfactor[3], const Region& r,
                      double noise_weight) {
  const float floor_term = noise_floor(r, noise_weight);
  float band[3];
  for (int b = 0; b < 3; ++b) {
    const double csf =
        static_cast<double>(accum[b]) / shift_csf * rmath::cr_pow(static_cast<double>(rfactor[b]), 3.0);
    band[b] = cbrtf_r(static_cast<float>(csf)) + floor_term;
  }
  return band[0] + band[1] + band[2];
}

// ---- CSF factors (per run: they depend on the options only) ---------------------

enum CsfMode { csf_watson97 = 0, csf_barten = 1, csf_barten_watson_blend = 2, csf_barten_watson_blend_mae = 3 };

// The blended Barten/Watson CSF tables (modes 2 and 3): factor of band
// (theta 0: h and v, 1: d) at each scale for the supported viewing set-ups.
// Returns false where upstream has no table (it would use -EINVAL, -22, as
// the factor).
inline bool blended_csf(bool mae, int scale, int theta, double view_dist, int display_height, float* out) {
  static const float t1080_3h[2][4] = {{0.01183f, 0.025026f, 0.04295f, 0.058621f},
                                       {0.004302f, 0.011778f, 0.023918f, 0.035901f}};
  static const float t1080_5h[2][4] = {{0.004212f, 0.014809f, 0.029642f, 0.047464f},
                                       {0.000984f, 0.005852f, 0.0146f, 0.027574f}};
  static const float t2160_3h[2][4] = {{0.00226f, 0.01183f, 0.025026f, 0.04295f},
                                       {0.000479f, 0.004302f, 0.011778f, 0.023918f}};
  static const float t2160_5h[2][4] = {{0.000092f, 0.004212f, 0.014809f, 0.029642f},
                                       {0.000050f, 0.000984f, 0.005852f, 0.0146f}};
  static const float t720_3h[2][4] = {{0.018715f, 0.035637f, 0.052798f, 0.061509f},
                                      {0.007999f, 0.018396f, 0.031851f, 0.037718f}};
  static const float t720_5h[2][4] = {{0.010144f, 0.022561f, 0.040309f, 0.05672f},
                                      {0.003463f, 0.010282f, 0.021839f, 0.034641f}};
  static const float t480_3h[2][4] = {{0.027961f, 0.045875f, 0.060275f, 0.056234f},
                                      {0.013572f, 0.026277f, 0.036959f, 0.034511f}};
  static const float t480_5h[2][4] = {{0.016781f, 0.032822f, 0.05032f, 0.061594f},
                                      {0.00691f, 0.016545f, 0.029917f, 0.037777f}};
  static const float m1080_3h[2][4] = {{0.011249f, 0.022606f, 0.035930f, 0.045673f},
                                       {0.004097f, 0.010921f, 0.021430f, 0.031313f}};
  static const float m1080_5h[2][4] = {{0.004052f, 0.013939f, 0.026298f, 0.038833f},
                                       {0.000927f, 0.005544f, 0.013415f, 0.024515f}};
  static const float m2160_3h[2][4] = {{0.002166f, 0.011249f, 0.022606f, 0.035930f},
                                       {0.000447f, 0.004097f, 0.010921f, 0.021430f}};
  static const float m2160_5h[2][4] = {{0.000077f, 0.004052f, 0.013939f, 0.026298f},
                                       {0.000045f, 0.000927f, 0.005544f, 0.013415f}};
  static const float m720_3h[2][4] = {{0.017329f, 0.030870f, 0.042134f, 0.047410f},
                                      {0.007509f, 0.016707f, 0.028072f, 0.032722f}};
  static const float m720_5h[2][4] = {{0.009689f, 0.020577f, 0.034162f, 0.044523f},
                                      {0.003302f, 0.009579f, 0.019661f, 0.030318f}};
  static const float m480_3h[2][4] = {{0.024969f, 0.037825f, 0.046676f, 0.043974f},
                                      {0.012511f, 0.023424f, 0.032139f, 0.030166f}};
  static const float m480_5h[2][4] = {{0.015665f, 0.028766f, 0.040612f, 0.047483f},
                                      {0.006514f, 0.015107f, 0.026476f, 0.032776f}};
  const float(*t)[4] = nullptr;
  const int hgt = display_height;
  const double nvd = view_dist;
  if (hgt == 1080 && nvd == 3.0) t = mae ? m1080_3h : t1080_3h;
  else if (hgt == 1080 && nvd == 5.0) t = mae ? m1080_5h : t1080_5h;
  else if (hgt == 2160 && nvd == 1.5) t = mae ? m1080_3h : t1080_3h;  // same pixels per degree as 1080 at 3H
  else if (hgt == 2160 && nvd == 3.0) t = mae ? m2160_3h : t2160_3h;
  else if (hgt == 2160 && nvd == 5.0) t = mae ? m2160_5h : t2160_5h;
  else if (hgt == 720 && nvd == 3.0) t = mae ? m720_3h : t720_3h;
  else if (hgt == 720 && nvd == 5.0) t = mae ? m720_5h : t720_5h;
  else if (hgt == 480 && nvd == 3.0) t = mae ? m480_3h : t480_3h;
  else if (hgt == 480 && nvd == 5.0) t = mae ? m480_5h : t480_5h;
  if (!t) return false;
  *out = t[theta][scale];
  return true;
}

struct CsfOptions {
  int mode = csf_watson97;
  double view_dist = 3.0, csf_scale = 1.0, csf_diag_scale = 1.0;
  int display_height = 1080;
};

// Whether the blended modes have a table for these options.
inline bool csf_supported(const CsfOptions& o) {
  if (o.mode != csf_barten_watson_blend && o.mode != csf_barten_watson_blend_mae) return true;
  float unused;
  return blended_csf(o.mode == csf_barten_watson_blend_mae, 0, 0, o.view_dist, o.display_height, &unused);
}

// The factors of one scale (upstream recomputes them per frame and per use;
// they depend on the options only).
inline ScaleFactors scale_factors(int scale, const CsfOptions& o) {
  float f1 = 0, f2 = 0;
  if (o.mode == csf_barten) {
    f1 = barten_csf(scale, o.view_dist, o.display_height, 100.0, o.csf_scale);
    f2 = barten_csf(scale, o.view_dist, o.display_height, 100.0, o.csf_diag_scale);
  } else if (o.mode == csf_barten_watson_blend || o.mode == csf_barten_watson_blend_mae) {
    const bool mae = o.mode == csf_barten_watson_blend_mae;
    if (!blended_csf(mae, scale, 0, o.view_dist, o.display_height, &f1)) f1 = -22.0f;
    if (!blended_csf(mae, scale, 1, o.view_dist, o.display_height, &f2)) f2 = -22.0f;
  } else {
    f1 = 1.0f / dwt_quant_step(scale, 1, o.view_dist, o.display_height);
    f2 = 1.0f / dwt_quant_step(scale, 2, o.view_dist, o.display_height);
  }
  ScaleFactors s;
  s.rfactor[0] = f1;
  s.rfactor[1] = f1;
  s.rfactor[2] = f2;
  if (scale == 0) {
    const double diff = o.view_dist * o.display_height - 3.0 * 1080;
    if ((diff < 0 ? -diff : diff) < 1.0e-8 && o.mode == csf_watson97) {
      s.i_rfactor[0] = 36453;
      s.i_rfactor[1] = 36453;
      s.i_rfactor[2] = 49417;
    } else {
      s.i_rfactor[0] = u16_from_double(static_cast<double>(f1) * 2097152.0);
      s.i_rfactor[1] = u16_from_double(static_cast<double>(f1) * 2097152.0);
      s.i_rfactor[2] = u16_from_double(static_cast<double>(f2) * 8388608.0);
    }
  } else {
    for (int b = 0; b < 3; ++b) s.i_rfactor[b] = u32_from_double(static_cast<double>(s.rfactor[b]) * 4294967296.0);
  }
  return s;
}

// ---- frame scores -----------------------------------------------------------

// From the per-scale floats, as upstream's integer_compute_adm and extract.
// Where the denominator vanishes upstream reports adm 1 and leaves aim
// uninitialised; R reports aim 0 there.
inline FrameScores frame_scores(const float num_scale[4], const float den_scale[4], const float aim_scale[4], int w,
                                int h, double dlm_weight, double min_val) {
  FrameScores f;
  double num = 0, den = 0, aim_num = 0;
  for (int s = 0; s < 4; ++s) {
    num += static_cast<double>(num_scale[s]);
    den += static_cast<double>(den_scale[s]);
    aim_num += static_cast<double>(aim_scale[s]);
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
    f.aim = aim_num / den;
    f.adm2 = num / den;
  }
  f.num = num;
  f.den = den;
  const double adm3 = f.adm2 * dlm_weight + (1 - f.aim) * (1 - dlm_weight);
  f.adm3 = adm3 > min_val ? adm3 : min_val;
  return f;
}

}  // namespace exactvmaf::adm
