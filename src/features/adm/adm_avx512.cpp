// AVX-512 row kernels of integer ADM (adm_simd.hpp). The AVX2 kernels are
// kept where 512-bit vectors do not pay on their own; AVX-512 adds what AVX2
// lacks for the scales 1..3 decouple: int64 -> float conversion (vcvtqq2ps,
// correctly rounded as the scalar cast), leading-zero counts and 64-bit
// arithmetic shifts.
#include "features/adm/adm_simd.hpp"

#if EXACTVMAF_ADM_HAVE_AVX2
// gcc 12 warns about the deliberately undefined source operands inside its
// own AVX-512 intrinsic headers (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

namespace exactvmaf::adm {
namespace {

#define EXACTVMAF_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd")))

EXACTVMAF_AVX512 inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
EXACTVMAF_AVX512 inline void store256(void* p, __m256i v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }

// The angle island for eight samples: the int64 products (wrapping as the
// scalar code's unsigned sums), converted to float and compared in double
// with the same operations as angle_within_1deg.
EXACTVMAF_AVX512 inline __mmask8 angle_mask(__m512i oh, __m512i ov, __m512i th, __m512i tv) {
  const __m512i dp = _mm512_add_epi64(_mm512_mul_epi32(oh, th), _mm512_mul_epi32(ov, tv));
  const __m512i om = _mm512_add_epi64(_mm512_mul_epi32(oh, oh), _mm512_mul_epi32(ov, ov));
  const __m512i tm = _mm512_add_epi64(_mm512_mul_epi32(th, th), _mm512_mul_epi32(tv, tv));
  const __m512d scale = _mm512_set1_pd(1.0 / 4096.0);  // x / 4096 and x * 2^-12 are the same exact operation
  const __m512d dpd = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_cvtepi64_ps(dp)), scale);
  const __m512d od = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_cvtepi64_ps(om)), scale);
  const __m512d td = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_cvtepi64_ps(tm)), scale);
  const __m512d lhs = _mm512_mul_pd(dpd, dpd);
  const __m512d rhs = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(static_cast<double>(cos_1deg_sq)), od), td);
  return _mm512_cmp_pd_mask(dpd, _mm512_setzero_pd(), _CMP_GE_OQ) & _mm512_cmp_pd_mask(lhs, rhs, _CMP_GE_OQ);
}

struct Gain {
  bool integral;
  i64 as_int;
  double value;
};

// One band of decouple_s123_sample for eight samples (o, t as int32 and as
// sign-extended int64 lanes); returns wrap32(lim).
EXACTVMAF_AVX512 inline __m256i decouple_s123_band8(__m256i o, __m256i t, __mmask8 angle, const i32* div_centre,
                                                    const Gain& g) {
  const __m512i o64 = _mm512_cvtepi32_epi64(o), t64 = _mm512_cvtepi32_epi64(t);
  // decouple_k_s123: the 15 leading bits of |o| (rounded) index the reciprocal table.
  const __m256i abs_o = _mm256_abs_epi32(o);  // as uint32
  const __mmask8 big = _mm256_cmpge_epu32_mask(abs_o, _mm256_set1_epi32(32768));
  const __m256i shift =
      _mm256_maskz_sub_epi32(big, _mm256_set1_epi32(17), _mm256_lzcnt_epi32(abs_o));
  const __m256i half = _mm256_srli_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), shift), 1);  // 0 for shift 0
  const __m256i rounded = _mm256_and_si256(_mm256_srlv_epi32(_mm256_add_epi32(abs_o, half), shift),
                                           _mm256_set1_epi32(0xffff));
  const __m256i msb = _mm256_mask_blend_epi32(big, abs_o, rounded);
  const __m256i q = _mm256_i32gather_epi32(div_centre, msb, 4);
  __m512i num = _mm512_mul_epi32(_mm512_cvtepi32_epi64(q), t64);
  const __mmask8 o_neg = _mm256_cmplt_epi32_mask(o, _mm256_setzero_si256());
  num = _mm512_mask_sub_epi64(num, o_neg, _mm512_setzero_si512(), num);
  const __m512i shift64 = _mm512_cvtepi32_epi64(shift);
  const __m512i round = _mm512_sllv_epi64(_mm512_set1_epi64(1), _mm512_add_epi64(shift64, _mm512_set1_epi64(14)));
  __m512i k = _mm512_srav_epi64(_mm512_add_epi64(num, round), _mm512_add_epi64(shift64, _mm512_set1_epi64(15)));
  const __m512i k_max = _mm512_set1_epi64(32768);
  k = _mm512_min_epi64(_mm512_max_epi64(k, _mm512_setzero_si512()), k_max);
  const __mmask8 o_zero = _mm256_cmpeq_epi32_mask(o, _mm256_setzero_si256());
  k = _mm512_mask_blend_epi64(o_zero, k, k_max);
  // rst = wrap32((k * o + 2^14) >> 15), k <= 2^15.
  const __m512i rst32 =
      _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(k, o64), _mm512_set1_epi64(16384)), 15);
  const __m512i rst = _mm512_cvtepi32_epi64(_mm512_cvtepi64_epi32(rst32));
  const __mmask8 limited = angle & _mm512_cmpgt_epi64_mask(k, _mm512_setzero_si512()) & static_cast<__mmask8>(~o_zero);
  __m512i gp;
  if (g.integral) {
    gp = _mm512_mul_epi32(rst, _mm512_set1_epi64(g.as_int));
  } else {
    gp = _mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_cvtepi64_pd(rst), _mm512_set1_pd(g.value)));
  }
  const __mmask8 o_pos = _mm256_cmpgt_epi32_mask(o, _mm256_setzero_si256());
  const __m512i bounded = _mm512_mask_blend_epi64(o_pos, _mm512_max_epi64(gp, t64), _mm512_min_epi64(gp, t64));
  return _mm512_cvtepi64_epi32(_mm512_mask_blend_epi64(limited, rst, bounded));
}

EXACTVMAF_AVX512 void decouple_s123_avx512(const Bands3<const i32>& ref, const Bands3<const i32>& dis, int i, int j0,
                                           int j1, double gain, const i32* div_lookup, const Bands3<i32>& r,
                                           const Bands3<i32>& a) {
  const i32* o_rows[3] = {ref.row(0, i), ref.row(1, i), ref.row(2, i)};
  const i32* t_rows[3] = {dis.row(0, i), dis.row(1, i), dis.row(2, i)};
  i32* r_rows[3] = {r.row(0, i), r.row(1, i), r.row(2, i)};
  i32* a_rows[3] = {a.row(0, i), a.row(1, i), a.row(2, i)};
  Gain g{false, 0, gain};
  // An integral gain with |gain| <= 2^20 makes the double product an exact integer (|rst| <= 2^31).
  if (gain >= -1048576.0 && gain <= 1048576.0 && static_cast<double>(static_cast<i32>(gain)) == gain) {
    g.integral = true;
    g.as_int = static_cast<i32>(gain);
  }
  const i32* div_centre = div_lookup + 32768;
  int j = j0;
  for (; j + 8 <= j1; j += 8) {
    __m256i o[3], t[3];
    for (int b = 0; b < 3; ++b) {
      o[b] = load256(o_rows[b] + j);
      t[b] = load256(t_rows[b] + j);
    }
    const __mmask8 angle = angle_mask(_mm512_cvtepi32_epi64(o[0]), _mm512_cvtepi32_epi64(o[1]),
                                      _mm512_cvtepi32_epi64(t[0]), _mm512_cvtepi32_epi64(t[1]));
    for (int b = 0; b < 3; ++b) {
      const __m256i lim = decouple_s123_band8(o[b], t[b], angle, div_centre, g);
      store256(r_rows[b] + j, lim);
      store256(a_rows[b] + j, _mm256_sub_epi32(t[b], lim));
    }
  }
  if (j < j1) decouple_s123_row(ref, dis, i, j, j1, gain, div_lookup, r, a);
}

// Sixteen samples as int32 lanes.
EXACTVMAF_AVX512 inline __m512i load16(const i16* p) {
  return _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
EXACTVMAF_AVX512 inline __m512i load16(const i32* p) { return _mm512_loadu_si512(p); }

// ---- DWT, scales 1..3: 64-bit sums narrowed with vpmovqd ------------------------------

// Eight outputs j..j+7 of one band: an unaligned load at 2j-1 holds inputs
// (2j-1, 2j) in the (low, high) halves of each 64-bit lane, one at 2j+1
// (2j+1, 2j+2). The low 32 bits of the sum shifted by <= 16 are the same for
// logical and arithmetic shifts.
EXACTVMAF_AVX512 inline void dwt_h8(const i32* src, int j, const __m512i taps[4], __m512i add, __m128i shift,
                                    i32* dst) {
  const __m512i x01 = _mm512_loadu_si512(src + 2 * j - 1), x23 = _mm512_loadu_si512(src + 2 * j + 1);
  __m512i acc = _mm512_add_epi64(_mm512_mul_epi32(x01, taps[0]), _mm512_mul_epi32(_mm512_srli_epi64(x01, 32), taps[1]));
  acc = _mm512_add_epi64(acc, _mm512_mul_epi32(x23, taps[2]));
  acc = _mm512_add_epi64(acc, _mm512_mul_epi32(_mm512_srli_epi64(x23, 32), taps[3]));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j),
                      _mm512_cvtepi64_epi32(_mm512_srl_epi64(_mm512_add_epi64(acc, add), shift)));
}

EXACTVMAF_AVX512 void dwt_horizontal_avx512(const i32* lo, const i32* hi, int w, int scale, i32* a, i32* v, i32* h,
                                            i32* d) {
  const int shift = dwt_hp_shift(scale);
  const __m512i add_v = _mm512_set1_epi64(dwt_hp_add(scale));
  const __m128i shift_v = _mm_cvtsi32_si128(shift);
  __m512i lo_taps[4], hi_taps[4];
  for (int k = 0; k < 4; ++k) {
    lo_taps[k] = _mm512_set1_epi64(dwt_lo(k));
    hi_taps[k] = _mm512_set1_epi64(dwt_hi(k));
  }
  const i64 add = dwt_hp_add(scale);
  const auto scalar_at = [&](int j) {
    const int j0 = dwt_src_index(j, 0, w), j1 = dwt_src_index(j, 1, w), j2 = dwt_src_index(j, 2, w),
              j3 = dwt_src_index(j, 3, w);
    a[j] = dwt_h_lo(lo[j0], lo[j1], lo[j2], lo[j3], add, shift);
    v[j] = dwt_h_hi(lo[j0], lo[j1], lo[j2], lo[j3], add, shift);
    h[j] = dwt_h_lo(hi[j0], hi[j1], hi[j2], hi[j3], add, shift);
    d[j] = dwt_h_hi(hi[j0], hi[j1], hi[j2], hi[j3], add, shift);
  };
  scalar_at(0);
  int j = 1;
  // 8 outputs j..j+7 read up to input 2j+16.
  for (; 2 * j + 17 <= w; j += 8) {
    dwt_h8(lo, j, lo_taps, add_v, shift_v, a);
    dwt_h8(lo, j, hi_taps, add_v, shift_v, v);
    dwt_h8(hi, j, lo_taps, add_v, shift_v, h);
    dwt_h8(hi, j, hi_taps, add_v, shift_v, d);
  }
  for (; j < band_size(w); ++j) scalar_at(j);
}

// ---- decouple, scale 0 (16 samples at a time) -----------------------------------------

// The angle island as in the AVX2 kernel: int32 lanes hold the int64 dot
// product and squared norms, in [-2^31 + 2^17, 2^31]; +2^31 (wrapped to
// INT32_MIN) is put back before the float conversion.
EXACTVMAF_AVX512 inline __mmask16 angle_mask16(__m512i dp, __m512i om, __m512i tm) {
  const __m512i int_min = _mm512_set1_epi32(INT32_MIN);
  const __m512 two31 = _mm512_set1_ps(2147483648.0f);
  const __m512 dpf = _mm512_mask_blend_ps(_mm512_cmpeq_epi32_mask(dp, int_min), _mm512_cvtepi32_ps(dp), two31);
  const __m512 omf = _mm512_mask_blend_ps(_mm512_cmpeq_epi32_mask(om, int_min), _mm512_cvtepi32_ps(om), two31);
  const __m512 tmf = _mm512_mask_blend_ps(_mm512_cmpeq_epi32_mask(tm, int_min), _mm512_cvtepi32_ps(tm), two31);
  const __m512d scale = _mm512_set1_pd(1.0 / 4096.0);
  const __m512d c = _mm512_set1_pd(static_cast<double>(cos_1deg_sq));
  unsigned bits = 0;
  for (int half = 0; half < 2; ++half) {
    const __m256 d8 = half ? _mm512_extractf32x8_ps(dpf, 1) : _mm512_castps512_ps256(dpf);
    const __m256 o8 = half ? _mm512_extractf32x8_ps(omf, 1) : _mm512_castps512_ps256(omf);
    const __m256 t8 = half ? _mm512_extractf32x8_ps(tmf, 1) : _mm512_castps512_ps256(tmf);
    const __m512d dpd = _mm512_mul_pd(_mm512_cvtps_pd(d8), scale);
    const __m512d od = _mm512_mul_pd(_mm512_cvtps_pd(o8), scale);
    const __m512d td = _mm512_mul_pd(_mm512_cvtps_pd(t8), scale);
    const __m512d lhs = _mm512_mul_pd(dpd, dpd);
    const __m512d rhs = _mm512_mul_pd(_mm512_mul_pd(c, od), td);
    const unsigned m = _mm512_cmp_pd_mask(dpd, _mm512_setzero_pd(), _CMP_GE_OQ) & _mm512_cmp_pd_mask(lhs, rhs, _CMP_GE_OQ);
    bits |= m << (8 * half);
  }
  return static_cast<__mmask16>(bits);
}

// One band for sixteen samples (see decouple0_band8 in adm_avx2.cpp).
EXACTVMAF_AVX512 inline __m512i decouple0_band16(__m512i o, __m512i t, __mmask16 angle, const i32* div_centre,
                                                 bool integral, i32 gain_int, double gain) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i k_max = _mm512_set1_epi32(32768);
  const __m512i q = _mm512_i32gather_epi32(o, div_centre, 4);
  const __m512i qh = _mm512_srai_epi32(q, 15), ql = _mm512_and_si512(q, _mm512_set1_epi32(0x7fff));
  const __m512i low = _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(ql, t), _mm512_set1_epi32(16384)), 15);
  __m512i k = _mm512_add_epi32(_mm512_mullo_epi32(qh, t), low);
  k = _mm512_min_epi32(_mm512_max_epi32(k, zero), k_max);
  const __mmask16 o_zero = _mm512_cmpeq_epi32_mask(o, zero);
  k = _mm512_mask_mov_epi32(k, o_zero, k_max);
  const __m512i rst = _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(k, o), _mm512_set1_epi32(16384)), 15);
  const __mmask16 limited = angle & _mm512_cmpgt_epi32_mask(k, zero) & static_cast<__mmask16>(~o_zero);
  __m512i gp;
  if (integral) {
    gp = _mm512_mullo_epi32(rst, _mm512_set1_epi32(gain_int));
  } else {
    const __m512d g = _mm512_set1_pd(gain);
    const __m256i lo = _mm512_cvttpd_epi32(_mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(rst)), g));
    const __m256i hi = _mm512_cvttpd_epi32(_mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(rst, 1)), g));
    gp = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
  }
  const __mmask16 o_pos = _mm512_cmpgt_epi32_mask(o, zero);
  const __m512i bounded = _mm512_mask_blend_epi32(o_pos, _mm512_max_epi32(gp, t), _mm512_min_epi32(gp, t));
  return _mm512_mask_blend_epi32(limited, rst, bounded);
}

EXACTVMAF_AVX512 void decouple0_avx512(const Bands3<const i16>& ref, const Bands3<const i16>& dis, int i, int j0,
                                       int j1, double gain, const i32* div_lookup, const Bands3<i16>& r,
                                       const Bands3<i16>& a) {
  const i16* o_rows[3] = {ref.row(0, i), ref.row(1, i), ref.row(2, i)};
  const i16* t_rows[3] = {dis.row(0, i), dis.row(1, i), dis.row(2, i)};
  i16* r_rows[3] = {r.row(0, i), r.row(1, i), r.row(2, i)};
  i16* a_rows[3] = {a.row(0, i), a.row(1, i), a.row(2, i)};
  // An integral gain below 2^15 gives an exact int32 product (|rst| <= 2^15).
  const bool integral =
      gain >= -32768.0 && gain <= 32768.0 && static_cast<double>(static_cast<i32>(gain)) == gain;
  const i32 gain_int = integral ? static_cast<i32>(gain) : 0;
  const i32* div_centre = div_lookup + 32768;
  int j = j0;
  for (; j + 16 <= j1; j += 16) {
    __m512i o[3], t[3];
    for (int b = 0; b < 3; ++b) {
      o[b] = load16(o_rows[b] + j);
      t[b] = load16(t_rows[b] + j);
    }
    const __m512i dp = _mm512_add_epi32(_mm512_mullo_epi32(o[0], t[0]), _mm512_mullo_epi32(o[1], t[1]));
    const __m512i om = _mm512_add_epi32(_mm512_mullo_epi32(o[0], o[0]), _mm512_mullo_epi32(o[1], o[1]));
    const __m512i tm = _mm512_add_epi32(_mm512_mullo_epi32(t[0], t[0]), _mm512_mullo_epi32(t[1], t[1]));
    const __mmask16 angle = angle_mask16(dp, om, tm);
    for (int b = 0; b < 3; ++b) {
      const __m512i lim = decouple0_band16(o[b], t[b], angle, div_centre, integral, gain_int, gain);
      // vpmovdw: C's truncating (int16_t) casts.
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(r_rows[b] + j), _mm512_cvtepi32_epi16(lim));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(a_rows[b] + j),
                          _mm512_cvtepi32_epi16(_mm512_sub_epi32(t[b], lim)));
    }
  }
  if (j < j1) decouple0_row(ref, dis, i, j, j1, gain, div_lookup, r, a);
}

// ---- CSF, scale 0 ---------------------------------------------------------------------

EXACTVMAF_AVX512 void csf0_avx512(const i16* src, u32 i_rfactor, int band, int j0, int j1, i16* dst, i16* flt) {
  const __m512i rf = _mm512_set1_epi32(static_cast<int>(i_rfactor));  // uint16: the int32 product is exact
  const __m512i round = _mm512_set1_epi32(csf0_round(band));
  const __m128i shift = _mm_cvtsi32_si128(csf0_shift(band));
  int j = j0;
  for (; j + 16 <= j1; j += 16) {
    __m512i v = _mm512_sra_epi32(_mm512_add_epi32(_mm512_mullo_epi32(load16(src + j), rf), round), shift);
    v = _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16);  // (int16_t)
    const __m512i f = _mm512_srai_epi32(
        _mm512_add_epi32(_mm512_mullo_epi32(_mm512_abs_epi32(v), _mm512_set1_epi32(4369)), _mm512_set1_epi32(2048)), 12);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j), _mm512_cvtepi32_epi16(v));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(flt + j), _mm512_cvtepi32_epi16(f));  // vpmovdw truncates
  }
  if (j < j1) csf0_row(src, i_rfactor, band, j, j1, dst, flt);
}

// ---- contrast masking (16 samples at a time) --------------------------------------


// The masking threshold's own-sample term (cm0_centre, cm_s123_centre).
EXACTVMAF_AVX512 inline __m512i centre16(const i16* p) {
  const __m512i prod = _mm512_mullo_epi32(_mm512_abs_epi32(load16(p)), _mm512_set1_epi32(8738));
  const __m512i v = _mm512_srai_epi32(_mm512_add_epi32(prod, _mm512_set1_epi32(2048)), 12);
  return _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16);  // (int16_t)
}
// wrap32((int64{c} * abs32(v) + INT32_MIN) >> 32): bits 32..63 of the sum.
EXACTVMAF_AVX512 inline __m512i reciprocal_term16(__m512i v, i32 c) {
  const __m512i a = _mm512_abs_epi32(v);
  const __m512i cv = _mm512_set1_epi64(c), bias = _mm512_set1_epi64(INT32_MIN);
  const __m512i e = _mm512_add_epi64(_mm512_mul_epi32(a, cv), bias);
  const __m512i o = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), cv), bias);
  return _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(e, 32), o);
}
EXACTVMAF_AVX512 inline __m512i centre16(const i32* p) { return reciprocal_term16(load16(p), 286331153); }

// (int64{src} * u32 factor) modulo 2^64 for the low halves of 64-bit lanes.
EXACTVMAF_AVX512 inline __m512i mul_i32_u32_even(__m512i src, __m512i factor) {
  const __m512i p = _mm512_mul_epu32(src, factor);
  const __m512i neg = _mm512_srai_epi32(_mm512_shuffle_epi32(src, static_cast<_MM_PERM_ENUM>(0xa0)), 31);
  return _mm512_sub_epi64(p, _mm512_slli_epi64(_mm512_and_si512(neg, factor), 32));
}

// csf_s123_value: bits 28..59 of src * factor + 2^27.
EXACTVMAF_AVX512 inline __m512i csf_s123_value16(__m512i s, __m512i rf) {
  const __m512i round = _mm512_set1_epi64(i64{1} << 27);
  const __m512i e = _mm512_add_epi64(mul_i32_u32_even(s, rf), round);
  const __m512i o = _mm512_add_epi64(mul_i32_u32_even(_mm512_srli_epi64(s, 32), rf), round);
  return _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(e, 28), _mm512_slli_epi64(_mm512_srli_epi64(o, 28), 32));
}

struct Cube16 {
  __m512i add_sq, add_cub;
  __m128i shift_sq, shift_cub;
};

// Adds ((v_sq * v + add_cub) >> shift_cub) of sixteen lanes to acc (8 x
// int64), v = max(|x| - thr, 0), v_sq = wrap32((v^2 + add_sq) >> shift_sq).
EXACTVMAF_AVX512 inline __m512i cube_sum16(__m512i acc, __m512i x, __m512i thr, const Cube16& c) {
  const __m512i v = _mm512_max_epi32(_mm512_sub_epi32(_mm512_abs_epi32(x), thr), _mm512_setzero_si512());
  if (_mm512_test_epi32_mask(v, v) == 0) return acc;  // every term is (0 + add_cub) >> shift_cub = 0
  const __m512i vo = _mm512_srli_epi64(v, 32);
  const __m512i sq_e = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(v, v), c.add_sq), c.shift_sq);
  const __m512i sq_o = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(vo, vo), c.add_sq), c.shift_sq);
  const __m512i p_e = _mm512_add_epi64(_mm512_mul_epi32(sq_e, v), c.add_cub);
  const __m512i p_o = _mm512_add_epi64(_mm512_mul_epi32(sq_o, vo), c.add_cub);
  return _mm512_add_epi64(acc, _mm512_add_epi64(_mm512_sra_epi64(p_e, c.shift_cub), _mm512_sra_epi64(p_o, c.shift_cub)));
}

constexpr int cm_chunk = 256;

// Thresholds of columns [c0, c1) (1 <= c0, c1 <= w - 1, a multiple of 16
// apart, at most cm_chunk): 3-row band sums, then three neighbouring sums
// less the middle sample plus the centre term, all modulo 2^32.
template <class T>
EXACTVMAF_AVX512 void thresholds16(const T* const up[3], const T* const mid[3], const T* const dn[3],
                                   const T* const ang[3], int c0, int c1, i32* thr) {
  alignas(64) i32 vsum[cm_chunk + 16];
  const int n = c1 - c0;
  int k = 0;
  for (; k + 16 <= n + 2; k += 16) {
    const int c = c0 - 1 + k;
    __m512i sum = _mm512_setzero_si512();
    for (int b = 0; b < 3; ++b)
      sum = _mm512_add_epi32(sum, _mm512_add_epi32(_mm512_add_epi32(load16(up[b] + c), load16(mid[b] + c)),
                                                   load16(dn[b] + c)));
    _mm512_storeu_si512(vsum + k, sum);
  }
  for (; k < n + 2; ++k) {
    const int c = c0 - 1 + k;
    u32 sum = 0;
    for (int b = 0; b < 3; ++b)
      sum += static_cast<u32>(i32{up[b][c]}) + static_cast<u32>(i32{mid[b][c]}) + static_cast<u32>(i32{dn[b][c]});
    vsum[k] = static_cast<i32>(sum);
  }
  for (int j = 0; j < n; j += 16) {
    __m512i t = _mm512_add_epi32(_mm512_add_epi32(_mm512_loadu_si512(vsum + j), _mm512_loadu_si512(vsum + j + 1)),
                                 _mm512_loadu_si512(vsum + j + 2));
    for (int b = 0; b < 3; ++b)
      t = _mm512_add_epi32(_mm512_sub_epi32(t, load16(mid[b] + c0 + j)), centre16(ang[b] + c0 + j));
    _mm512_storeu_si512(thr + j, t);
  }
}

template <class T>
struct CmRows {
  const T* up[3];
  const T* mid[3];
  const T* dn[3];
  const T* ang[3];
  const T* src[3];
  CmRows(const Bands3<const T>& src_b, const Bands3<const T>& angles, const Bands3<const T>& flt, int h, int i) {
    const int ip = cm_prev(i), in = cm_next(i, h);
    for (int b = 0; b < 3; ++b) {
      up[b] = flt.row(b, ip);
      mid[b] = flt.row(b, i);
      dn[b] = flt.row(b, in);
      ang[b] = angles.row(b, i);
      src[b] = src_b.row(b, i);
    }
  }
};

EXACTVMAF_AVX512 inline i64 hsum64(__m512i v) { return static_cast<i64>(_mm512_reduce_add_epi64(v)); }

inline void add_sums(CmRowSums& s, const CmRowSums& t) {
  s.h = wrap_add(s.h, t.h);
  s.v = wrap_add(s.v, t.v);
  s.d = wrap_add(s.d, t.d);
}

EXACTVMAF_AVX512 CmRowSums cm0_avx512(const Bands3<const i16>& src, const Bands3<const i16>& angles,
                                      const Bands3<const i16>& flt, const u32 i_rfactor[3], int w, int h, int i,
                                      int j0, int j1, const Cm0Shifts& s) {
  const int vj0 = j0 > 1 ? j0 : 1;
  const int vj1 = vj0 + ((j1 < w - 1 ? j1 : w - 1) - vj0) / 16 * 16;
  if (vj1 - vj0 < 16) return avx2_kernels().cm0(src, angles, flt, i_rfactor, w, h, i, j0, j1, s);
  CmRowSums sums = cm0_row(src, angles, flt, i_rfactor, w, h, i, j0, vj0, s);
  const CmRows<i16> rows(src, angles, flt, h, i);
  const Cube16 hv{_mm512_set1_epi64(268435456), _mm512_set1_epi64(s.add_cub_hv), _mm_cvtsi32_si128(29),
                  _mm_cvtsi32_si128(static_cast<int>(s.cub_hv))};
  const Cube16 dd{_mm512_set1_epi64(536870912), _mm512_set1_epi64(s.add_cub_d), _mm_cvtsi32_si128(30),
                  _mm_cvtsi32_si128(static_cast<int>(s.cub_d))};
  __m512i rf[3];
  for (int b = 0; b < 3; ++b) rf[b] = _mm512_set1_epi32(static_cast<int>(i_rfactor[b]));
  __m512i acc[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  alignas(64) i32 thr_buf[cm_chunk];
  for (int c0 = vj0; c0 < vj1; c0 += cm_chunk) {
    const int c1 = c0 + cm_chunk < vj1 ? c0 + cm_chunk : vj1;
    thresholds16(rows.up, rows.mid, rows.dn, rows.ang, c0, c1, thr_buf);
    for (int j = c0; j < c1; j += 16) {
      const __m512i thr = _mm512_loadu_si512(thr_buf + (j - c0));
      // x = src * factor (uint16 factor: exact in int32); the threshold enters shifted left (as uint32).
      const __m512i thr_hv = _mm512_slli_epi32(thr, 10), thr_d = _mm512_slli_epi32(thr, 12);
      acc[0] = cube_sum16(acc[0], _mm512_mullo_epi32(load16(rows.src[0] + j), rf[0]), thr_hv, hv);
      acc[1] = cube_sum16(acc[1], _mm512_mullo_epi32(load16(rows.src[1] + j), rf[1]), thr_hv, hv);
      acc[2] = cube_sum16(acc[2], _mm512_mullo_epi32(load16(rows.src[2] + j), rf[2]), thr_d, dd);
    }
  }
  sums.h += hsum64(acc[0]);
  sums.v += hsum64(acc[1]);
  sums.d += hsum64(acc[2]);
  add_sums(sums, avx2_kernels().cm0(src, angles, flt, i_rfactor, w, h, i, vj1, j1, s));
  return sums;
}

EXACTVMAF_AVX512 CmRowSums cm_s123_avx512(const Bands3<const i32>& src, const Bands3<const i32>& angles,
                                          const Bands3<const i32>& flt, const u32 i_rfactor[3], int w, int h, int i,
                                          int j0, int j1, u32 shift_cub, i64 add_cub) {
  const int vj0 = j0 > 1 ? j0 : 1;
  const int vj1 = vj0 + ((j1 < w - 1 ? j1 : w - 1) - vj0) / 16 * 16;
  if (vj1 - vj0 < 16) return avx2_kernels().cm_s123(src, angles, flt, i_rfactor, w, h, i, j0, j1, shift_cub, add_cub);
  CmRowSums sums = cm_s123_row(src, angles, flt, i_rfactor, w, h, i, j0, vj0, shift_cub, add_cub);
  const CmRows<i32> rows(src, angles, flt, h, i);
  const Cube16 cc{_mm512_set1_epi64(536870912), _mm512_set1_epi64(add_cub), _mm_cvtsi32_si128(30),
                  _mm_cvtsi32_si128(static_cast<int>(shift_cub))};
  __m512i rf[3];
  for (int b = 0; b < 3; ++b) rf[b] = _mm512_set1_epi64(static_cast<i64>(i_rfactor[b]));
  __m512i acc[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  alignas(64) i32 thr_buf[cm_chunk];
  for (int c0 = vj0; c0 < vj1; c0 += cm_chunk) {
    const int c1 = c0 + cm_chunk < vj1 ? c0 + cm_chunk : vj1;
    thresholds16(rows.up, rows.mid, rows.dn, rows.ang, c0, c1, thr_buf);
    for (int j = c0; j < c1; j += 16) {
      const __m512i thr = _mm512_loadu_si512(thr_buf + (j - c0));
      for (int b = 0; b < 3; ++b)
        acc[b] = cube_sum16(acc[b], csf_s123_value16(load16(rows.src[b] + j), rf[b]), thr, cc);
    }
  }
  sums.h += hsum64(acc[0]);
  sums.v += hsum64(acc[1]);
  sums.d += hsum64(acc[2]);
  add_sums(sums, avx2_kernels().cm_s123(src, angles, flt, i_rfactor, w, h, i, vj1, j1, shift_cub, add_cub));
  return sums;
}

}  // namespace

const Kernels& avx512_kernels() {
  static const Kernels k = [] {
    Kernels t = avx2_kernels();
    t.name = "avx512";
    t.decouple_s123 = &decouple_s123_avx512;
    t.decouple0 = &decouple0_avx512;
    t.csf0 = &csf0_avx512;
    t.dwt_horizontal = &dwt_horizontal_avx512;
    t.cm0 = &cm0_avx512;
    t.cm_s123 = &cm_s123_avx512;
    return t;
  }();
  return k;
}

}  // namespace exactvmaf::adm

#endif
