// AVX2 row kernels of integer ADM (adm_simd.hpp): the integers of
// adm_math.hpp's row functions, 8 or 16 samples at a time. Products that
// upstream forms in int64 are formed in 64-bit lanes (vpmuldq/vpmuludq) or,
// where the operands are small enough, split into exact int32 parts. Edge
// columns (mirrored neighbours) and tails go to the scalar functions.
#include "features/adm/adm_simd.hpp"

#if EXACTVMAF_SIMD_X86
#include <immintrin.h>

namespace exactvmaf::adm {
namespace {

EXACTVMAF_TARGET_AVX2 inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
EXACTVMAF_TARGET_AVX2 inline __m128i load128(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
EXACTVMAF_TARGET_AVX2 inline void store256(void* p, __m256i v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
// Eight int16 samples as int32 lanes.
EXACTVMAF_TARGET_AVX2 inline __m256i load_i16x8(const i16* p) { return _mm256_cvtepi16_epi32(load128(p)); }

// The low 16 bits of each int32 lane, sign-extended (C's (int16_t) cast).
EXACTVMAF_TARGET_AVX2 inline __m256i trunc16(__m256i x) { return _mm256_srai_epi32(_mm256_slli_epi32(x, 16), 16); }

// Sixteen int32 lanes (a: samples 0..7, b: 8..15) stored as int16 with C's
// truncating cast.
EXACTVMAF_TARGET_AVX2 inline void store_trunc16(i16* dst, __m256i a, __m256i b) {
  const __m256i p = _mm256_packs_epi32(trunc16(a), trunc16(b));  // saturation never triggers now
  store256(dst, _mm256_permute4x64_epi64(p, 0xd8));
}

EXACTVMAF_TARGET_AVX2 inline __m256i tap_pair16(i32 first, i32 second) {
  return _mm256_set1_epi32(static_cast<int>((static_cast<u32>(second) << 16) | (static_cast<u32>(first) & 0xffffu)));
}

// Arithmetic right shift of 64-bit lanes (AVX2 has only the logical one):
// floor(x / 2^n) = ~(~x >> n) for negative x.
EXACTVMAF_TARGET_AVX2 inline __m256i srai64(__m256i x, __m128i n) {
  const __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), x);
  return _mm256_xor_si256(_mm256_srl_epi64(_mm256_xor_si256(x, sign), n), sign);
}

EXACTVMAF_TARGET_AVX2 inline u64 hsum64(__m256i v) {
  alignas(32) u64 lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

// ---- DWT, scale 0 -------------------------------------------------------------

// Pairs of rows go through vpmaddwd with a pair of taps. 8-bit samples enter
// as they are; wider ones as s - 2^15 (int16), which takes 2^15 * (sum of
// the taps) off the sum: 2^15 * 46342 for lo, 0 for hi. Each vpmaddwd sum is
// below 2^31 in magnitude; the rest is modulo 2^32, as the scalar uint32.
EXACTVMAF_TARGET_AVX2 inline void dwt0_v_pass(__m256i p01_l, __m256i p01_h, __m256i p23_l, __m256i p23_h, __m256i t01,
                                              __m256i t23, __m256i fix, __m128i shift, i16* dst) {
  __m256i l = _mm256_add_epi32(_mm256_madd_epi16(p01_l, t01), _mm256_madd_epi16(p23_l, t23));
  __m256i u = _mm256_add_epi32(_mm256_madd_epi16(p01_h, t01), _mm256_madd_epi16(p23_h, t23));
  l = trunc16(_mm256_sra_epi32(_mm256_add_epi32(l, fix), shift));
  u = trunc16(_mm256_sra_epi32(_mm256_add_epi32(u, fix), shift));
  store256(dst, _mm256_packs_epi32(l, u));  // back in sample order
}

template <class Sample>
EXACTVMAF_TARGET_AVX2 void dwt0_vertical_avx2(const Sample* src, std::ptrdiff_t stride, int w, int h, int i,
                                              unsigned bpc, i16* lo, i16* hi) {
  constexpr bool wide = sizeof(Sample) == 2;
  const Sample* r[4];
  for (int k = 0; k < 4; ++k) r[k] = src + dwt_src_index(i, k, h) * stride;
  const u32 add = u32{1} << (bpc - 1);
  const u32 lo_fix = (wide ? 32768u * static_cast<u32>(dwt_lo_sum) : 0u) - static_cast<u32>(dwt_lo_sum) * add + add;
  const __m256i lo_fix_v = _mm256_set1_epi32(static_cast<int>(lo_fix));
  const __m256i hi_fix_v = _mm256_set1_epi32(static_cast<int>(add));
  const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(bpc));
  const __m256i lo01 = tap_pair16(dwt_lo(0), dwt_lo(1)), lo23 = tap_pair16(dwt_lo(2), dwt_lo(3));
  const __m256i hi01 = tap_pair16(dwt_hi(0), dwt_hi(1)), hi23 = tap_pair16(dwt_hi(2), dwt_hi(3));
  const __m256i bias = _mm256_set1_epi16(static_cast<short>(0x8000));
  // The source rows come from memory: fetch rows r[3] + 2 and r[3] + 3, which the next two output rows add
  // (prefetches never fault; the address is an integer so no pointer leaves its array).
  const auto next_rows = static_cast<std::uintptr_t>(2 * stride) * sizeof(Sample);
  int j = 0;
  for (; j + 16 <= w; j += 16) {
    const auto ahead = reinterpret_cast<std::uintptr_t>(r[3] + j) + next_rows;
    _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(ahead + next_rows / 2), _MM_HINT_T0);
    __m256i s[4];
    for (int k = 0; k < 4; ++k) {
      if constexpr (wide) s[k] = _mm256_xor_si256(load256(r[k] + j), bias);
      else s[k] = _mm256_cvtepu8_epi16(load128(r[k] + j));
    }
    // unpack works within 128-bit halves: *_l holds samples 0-3 and 8-11, *_h 4-7 and 12-15.
    const __m256i p01_l = _mm256_unpacklo_epi16(s[0], s[1]), p01_h = _mm256_unpackhi_epi16(s[0], s[1]);
    const __m256i p23_l = _mm256_unpacklo_epi16(s[2], s[3]), p23_h = _mm256_unpackhi_epi16(s[2], s[3]);
    dwt0_v_pass(p01_l, p01_h, p23_l, p23_h, lo01, lo23, lo_fix_v, shift, lo + j);
    if (hi) dwt0_v_pass(p01_l, p01_h, p23_l, p23_h, hi01, hi23, hi_fix_v, shift, hi + j);
  }
  if (j < w) dwt0_vertical_row(src + j, stride, w - j, h, i, bpc, lo + j, hi ? hi + j : nullptr);
}

// Output j reads inputs 2j-1 .. 2j+2: an unaligned load at 2j-1 pairs
// (2j-1, 2j) in each int32 lane, one at 2j+1 pairs (2j+1, 2j+2). The int32
// sum of four int16 x tap products is below 2^31 (32768 * 54822).
EXACTVMAF_TARGET_AVX2 inline __m256i dwt0_h8(const i16* p, __m256i t01, __m256i t23) {
  const __m256i acc = _mm256_add_epi32(_mm256_madd_epi16(load256(p), t01), _mm256_madd_epi16(load256(p + 2), t23));
  return _mm256_srai_epi32(_mm256_add_epi32(acc, _mm256_set1_epi32(32768)), 16);
}

EXACTVMAF_TARGET_AVX2 inline void dwt0_h16(const i16* src, int j, __m256i t01, __m256i t23, i16* dst) {
  const __m256i a = dwt0_h8(src + 2 * j - 1, t01, t23), b = dwt0_h8(src + 2 * j + 15, t01, t23);
  store256(dst + j, _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xd8));  // values fit int16
}

EXACTVMAF_TARGET_AVX2 void dwt0_horizontal_avx2(const i16* lo, const i16* hi, int w, i16* a, i16* v, i16* h, i16* d) {
  const int bw = band_size(w);
  const __m256i lo01 = tap_pair16(dwt_lo(0), dwt_lo(1)), lo23 = tap_pair16(dwt_lo(2), dwt_lo(3));
  const __m256i hi01 = tap_pair16(dwt_hi(0), dwt_hi(1)), hi23 = tap_pair16(dwt_hi(2), dwt_hi(3));
  dwt0_horizontal_at(lo, hi, w, 0, a, v, h, d);
  int j = 1;
  // 16 outputs j..j+15 read up to input 2j+32.
  for (; 2 * j + 33 <= w; j += 16) {
    dwt0_h16(lo, j, lo01, lo23, a);
    if (hi) {
      dwt0_h16(lo, j, hi01, hi23, v);
      dwt0_h16(hi, j, lo01, lo23, h);
      dwt0_h16(hi, j, hi01, hi23, d);
    }
  }
  for (; j < bw; ++j) dwt0_horizontal_at(lo, hi, w, j, a, v, h, d);
}

// ---- DWT, scales 1..3 (int32 samples, int64 sums) ----------------------------

// Low 32 bits of (sum + add) >> shift for 64-bit sums in even (e) and odd (o)
// lanes; shift <= 16 keeps those bits inside the 64-bit sum, so a logical
// shift gives the same bits as the arithmetic one.
EXACTVMAF_TARGET_AVX2 inline __m256i narrow64(__m256i e, __m256i o, __m256i add, __m128i shift) {
  const __m256i lo = _mm256_srl_epi64(_mm256_add_epi64(e, add), shift);
  const __m256i hi = _mm256_slli_epi64(_mm256_srl_epi64(_mm256_add_epi64(o, add), shift), 32);
  return _mm256_blend_epi32(lo, hi, 0xaa);
}

EXACTVMAF_TARGET_AVX2 void dwt_vertical_avx2(const i32* src, std::ptrdiff_t stride, int w, int h, int i, int scale,
                                             i32* lo, i32* hi) {
  const i32* r[4];
  for (int k = 0; k < 4; ++k) r[k] = src + dwt_src_index(i, k, h) * stride;
  int j = 0;
  if (dwt_vp_shift(scale) == 0 && dwt_vp_add(scale) == 0) {
    // Scale 1: the low 32 bits of the sum are the sum of the low 32 bits.
    for (; j + 8 <= w; j += 8) {
      __m256i al = _mm256_setzero_si256(), ah = al;
      for (int k = 0; k < 4; ++k) {
        const __m256i x = load256(r[k] + j);
        al = _mm256_add_epi32(al, _mm256_mullo_epi32(x, _mm256_set1_epi32(dwt_lo(k))));
        ah = _mm256_add_epi32(ah, _mm256_mullo_epi32(x, _mm256_set1_epi32(dwt_hi(k))));
      }
      store256(lo + j, al);
      store256(hi + j, ah);
    }
  } else {
    const __m256i add = _mm256_set1_epi64x(dwt_vp_add(scale));
    const __m128i shift = _mm_cvtsi32_si128(dwt_vp_shift(scale));
    const auto next_rows = static_cast<std::uintptr_t>(2 * stride) * sizeof(i32);  // as in dwt0_vertical_avx2
    for (; j + 8 <= w; j += 8) {
      const auto ahead = reinterpret_cast<std::uintptr_t>(r[3] + j) + next_rows;
      _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(ahead + next_rows / 2), _MM_HINT_T0);
      __m256i le = _mm256_setzero_si256(), lodd = le, he = le, hodd = le;
      for (int k = 0; k < 4; ++k) {
        const __m256i x = load256(r[k] + j), xo = _mm256_srli_epi64(x, 32);
        const __m256i tl = _mm256_set1_epi64x(dwt_lo(k)), th = _mm256_set1_epi64x(dwt_hi(k));
        le = _mm256_add_epi64(le, _mm256_mul_epi32(x, tl));
        lodd = _mm256_add_epi64(lodd, _mm256_mul_epi32(xo, tl));
        he = _mm256_add_epi64(he, _mm256_mul_epi32(x, th));
        hodd = _mm256_add_epi64(hodd, _mm256_mul_epi32(xo, th));
      }
      store256(lo + j, narrow64(le, lodd, add, shift));
      store256(hi + j, narrow64(he, hodd, add, shift));
    }
  }
  if (j < w) dwt_vertical_row(src + j, stride, w - j, h, i, scale, lo + j, hi + j);
}

// Scale 1 from int16 samples (dwt1_vertical_i16_row), 16 columns at a time:
// rows in pairs through vpmaddwd as at scale 0. |sum| <= 32768 * 54822 <
// 2^31 with no rounding or shift at scale 1: the int32 sums are exact.
EXACTVMAF_TARGET_AVX2 inline void dwt1_v16(const i16* const r[4], int j, const __m256i taps[4],
                                           std::uintptr_t next_rows, i32* lo, i32* hi) {
  const auto ahead = reinterpret_cast<std::uintptr_t>(r[3] + j) + next_rows;  // as in dwt0_vertical_avx2
  _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(ahead + next_rows / 2), _MM_HINT_T0);
  const __m256i s0 = load256(r[0] + j), s1 = load256(r[1] + j), s2 = load256(r[2] + j), s3 = load256(r[3] + j);
  const __m256i p01_l = _mm256_unpacklo_epi16(s0, s1), p01_h = _mm256_unpackhi_epi16(s0, s1);
  const __m256i p23_l = _mm256_unpacklo_epi16(s2, s3), p23_h = _mm256_unpackhi_epi16(s2, s3);
  for (int band = 0; band < 2; ++band) {
    const __m256i t01 = taps[2 * band], t23 = taps[2 * band + 1];
    // *_l: columns 0-3 and 8-11, *_h: 4-7 and 12-15.
    const __m256i l = _mm256_add_epi32(_mm256_madd_epi16(p01_l, t01), _mm256_madd_epi16(p23_l, t23));
    const __m256i u = _mm256_add_epi32(_mm256_madd_epi16(p01_h, t01), _mm256_madd_epi16(p23_h, t23));
    i32* dst = band ? hi : lo;
    store256(dst + j, _mm256_permute2x128_si256(l, u, 0x20));
    store256(dst + j + 8, _mm256_permute2x128_si256(l, u, 0x31));
  }
}

EXACTVMAF_TARGET_AVX2 void dwt1_vertical_i16_avx2(const i16* src, std::ptrdiff_t stride, int w, int h, int i, i32* lo,
                                                  i32* hi) {
  if (w < 16 || dwt_vp_shift(1) != 0 || dwt_vp_add(1) != 0) return dwt1_vertical_i16_row(src, stride, w, h, i, lo, hi);
  const i16* r[4];
  for (int k = 0; k < 4; ++k) r[k] = src + dwt_src_index(i, k, h) * stride;
  const __m256i taps[4] = {tap_pair16(dwt_lo(0), dwt_lo(1)), tap_pair16(dwt_lo(2), dwt_lo(3)),
                           tap_pair16(dwt_hi(0), dwt_hi(1)), tap_pair16(dwt_hi(2), dwt_hi(3))};
  int j = 0;
  const auto next_rows = static_cast<std::uintptr_t>(2 * stride) * sizeof(i16);
  for (; j + 16 <= w; j += 16) dwt1_v16(r, j, taps, next_rows, lo, hi);
  // Each output column depends on its input column only: the tail is one
  // more block ending at the last column.
  if (j < w) dwt1_v16(r, w - 16, taps, next_rows, lo, hi);
}

// Four outputs j..j+3 in the low halves of 64-bit lanes: an unaligned load
// at 2j-1 holds inputs (2j-1, 2j) in the (low, high) halves of each lane.
EXACTVMAF_TARGET_AVX2 inline __m256i dwt_h4(const i32* p, const __m256i taps[4], __m256i add, __m128i shift) {
  const __m256i x01 = load256(p), x23 = load256(p + 2);
  __m256i acc = _mm256_add_epi64(_mm256_mul_epi32(x01, taps[0]), _mm256_mul_epi32(_mm256_srli_epi64(x01, 32), taps[1]));
  acc = _mm256_add_epi64(acc, _mm256_mul_epi32(x23, taps[2]));
  acc = _mm256_add_epi64(acc, _mm256_mul_epi32(_mm256_srli_epi64(x23, 32), taps[3]));
  return _mm256_srl_epi64(_mm256_add_epi64(acc, add), shift);
}

EXACTVMAF_TARGET_AVX2 inline void dwt_h8(const i32* src, int j, const __m256i taps[4], __m256i add, __m128i shift,
                                         i32* dst) {
  const __m256i a = dwt_h4(src + 2 * j - 1, taps, add, shift), b = dwt_h4(src + 2 * j + 7, taps, add, shift);
  const __m256i mixed = _mm256_blend_epi32(a, _mm256_slli_epi64(b, 32), 0xaa);  // a0 b0 a1 b1 ...
  store256(dst + j, _mm256_permutevar8x32_epi32(mixed, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)));
}

EXACTVMAF_TARGET_AVX2 void dwt_horizontal_avx2(const i32* lo, const i32* hi, int w, int scale, i32* a, i32* v, i32* h,
                                               i32* d) {
  const i64 add = dwt_hp_add(scale);
  const int shift = dwt_hp_shift(scale);
  const int bw = band_size(w);
  const __m256i add_v = _mm256_set1_epi64x(add);
  const __m128i shift_v = _mm_cvtsi32_si128(shift);
  __m256i lo_taps[4], hi_taps[4];
  for (int k = 0; k < 4; ++k) {
    lo_taps[k] = _mm256_set1_epi64x(dwt_lo(k));
    hi_taps[k] = _mm256_set1_epi64x(dwt_hi(k));
  }
  dwt_horizontal_at(lo, hi, w, 0, add, shift, a, v, h, d);
  int j = 1;
  // 8 outputs j..j+7 read up to input 2j+16.
  for (; 2 * j + 17 <= w; j += 8) {
    dwt_h8(lo, j, lo_taps, add_v, shift_v, a);
    dwt_h8(lo, j, hi_taps, add_v, shift_v, v);
    dwt_h8(hi, j, lo_taps, add_v, shift_v, h);
    dwt_h8(hi, j, hi_taps, add_v, shift_v, d);
  }
  for (; j < bw; ++j) dwt_horizontal_at(lo, hi, w, j, add, shift, a, v, h, d);
}

// ---- decouple, scale 0 -----------------------------------------------------------

// Eight 32-bit mask lanes from the 4 + 4 lanes of two double comparisons.
EXACTVMAF_TARGET_AVX2 inline __m256i mask8_from_pd(__m256d lo, __m256d hi) {
  const int bits = _mm256_movemask_pd(lo) | (_mm256_movemask_pd(hi) << 4);
  const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(bits), sel), sel);
}

// The double part of angle_within_1deg for four samples: the dot product and
// the squared norms already rounded to float as upstream does.
EXACTVMAF_TARGET_AVX2 inline __m256d angle_test4(__m128 dp, __m128 om, __m128 tm) {
  const __m256d scale = _mm256_set1_pd(1.0 / 4096.0);  // x / 4096 and x * 2^-12 are the same exact operation
  const __m256d c = _mm256_set1_pd(static_cast<double>(cos_1deg_sq));
  const __m256d dpd = _mm256_mul_pd(_mm256_cvtps_pd(dp), scale);
  const __m256d od = _mm256_mul_pd(_mm256_cvtps_pd(om), scale);
  const __m256d td = _mm256_mul_pd(_mm256_cvtps_pd(tm), scale);
  const __m256d lhs = _mm256_mul_pd(dpd, dpd);
  const __m256d rhs = _mm256_mul_pd(_mm256_mul_pd(c, od), td);
  return _mm256_and_pd(_mm256_cmp_pd(dpd, _mm256_setzero_pd(), _CMP_GE_OQ), _mm256_cmp_pd(lhs, rhs, _CMP_GE_OQ));
}

// The angle island per lane: the int32 lanes hold upstream's int64 dot
// product and squared norms, which are in [-2^31 + 2^17, 2^31]; only +2^31
// wraps (to INT32_MIN), and it is put back before the (exact-rounding)
// float conversion. Then the same double operations as angle_within_1deg.
EXACTVMAF_TARGET_AVX2 inline __m256i angle_mask8(__m256i dp, __m256i om, __m256i tm) {
  const __m256i int_min = _mm256_set1_epi32(INT32_MIN);
  const __m256 two31 = _mm256_set1_ps(2147483648.0f);
  const __m256 dpf = _mm256_blendv_ps(_mm256_cvtepi32_ps(dp), two31, _mm256_castsi256_ps(_mm256_cmpeq_epi32(dp, int_min)));
  const __m256 omf = _mm256_blendv_ps(_mm256_cvtepi32_ps(om), two31, _mm256_castsi256_ps(_mm256_cmpeq_epi32(om, int_min)));
  const __m256 tmf = _mm256_blendv_ps(_mm256_cvtepi32_ps(tm), two31, _mm256_castsi256_ps(_mm256_cmpeq_epi32(tm, int_min)));
  const __m256d lo = angle_test4(_mm256_castps256_ps128(dpf), _mm256_castps256_ps128(omf), _mm256_castps256_ps128(tmf));
  const __m256d hi =
      angle_test4(_mm256_extractf128_ps(dpf, 1), _mm256_extractf128_ps(omf, 1), _mm256_extractf128_ps(tmf, 1));
  return mask8_from_pd(lo, hi);
}

// The gain product per lane: rst * gain truncated. An integral gain below
// 2^15 gives an exact int32 product (the double product is that integer);
// otherwise the same double multiply and truncation as trunc_mul_gain
// (|rst * gain| < 2^31 for |rst| <= 2^15 and gain <= 2^15).
struct GainLimit {
  bool integral;
  i32 as_int;
  double value;
};

inline GainLimit gain_limit_of(double gain) {
  GainLimit g{false, 0, gain};
  if (gain >= -32768.0 && gain <= 32768.0 && static_cast<double>(static_cast<i32>(gain)) == gain) {
    g.integral = true;
    g.as_int = static_cast<i32>(gain);
  }
  return g;
}

EXACTVMAF_TARGET_AVX2 inline __m256i gain_product8(__m256i rst, const GainLimit& g) {
  if (g.integral) return _mm256_mullo_epi32(rst, _mm256_set1_epi32(g.as_int));
  const __m256d gv = _mm256_set1_pd(g.value);
  const __m128i lo = _mm256_cvttpd_epi32(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(rst)), gv));
  const __m128i hi = _mm256_cvttpd_epi32(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(rst, 1)), gv));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

// One band of the scale-0 decouple for eight samples: k from the reciprocal
// table, rst, and the gain limit; returns lim (r = (int16)lim, a = (int16)(t - lim)).
// k = (q * t + 2^14) >> 15 with |q| <= 2^30 is formed exactly in int32 from
// q = qh * 2^15 + ql: qh * t + ((ql * t + 2^14) >> 15).
EXACTVMAF_TARGET_AVX2 inline __m256i decouple0_band8(__m256i o, __m256i t, __m256i angle, const i32* div_centre,
                                                     const GainLimit& g) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i k_max = _mm256_set1_epi32(32768);
  const __m256i q = _mm256_i32gather_epi32(div_centre, o, 4);
  const __m256i qh = _mm256_srai_epi32(q, 15), ql = _mm256_and_si256(q, _mm256_set1_epi32(0x7fff));
  const __m256i low = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(ql, t), _mm256_set1_epi32(16384)), 15);
  __m256i k = _mm256_add_epi32(_mm256_mullo_epi32(qh, t), low);
  k = _mm256_min_epi32(_mm256_max_epi32(k, zero), k_max);
  const __m256i o_zero = _mm256_cmpeq_epi32(o, zero);
  k = _mm256_blendv_epi8(k, k_max, o_zero);
  // |k * o| <= 2^30; the result fits int16.
  const __m256i rst = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(k, o), _mm256_set1_epi32(16384)), 15);
  const __m256i limited = _mm256_andnot_si256(o_zero, _mm256_and_si256(angle, _mm256_cmpgt_epi32(k, zero)));
  const __m256i gp = gain_product8(rst, g);
  const __m256i bounded = _mm256_blendv_epi8(_mm256_max_epi32(gp, t), _mm256_min_epi32(gp, t), _mm256_cmpgt_epi32(o, zero));
  return _mm256_blendv_epi8(rst, bounded, limited);
}

EXACTVMAF_TARGET_AVX2 void decouple0_avx2(const Bands3<const i16>& ref, const Bands3<const i16>& dis, int i, int j0,
                                          int j1, double gain, const i32* div_lookup, const Bands3<i16>& r,
                                          const Bands3<i16>& a) {
  // The vector gain product holds |rst * gain| < 2^31 for |gain| <= 2^15 (the option allows 1..100): scalar beyond.
  if (!(gain >= -32768.0 && gain <= 32768.0)) return decouple0_row(ref, dis, i, j0, j1, gain, div_lookup, r, a);
  const i16 *oh = ref.row(0, i), *ov = ref.row(1, i), *od = ref.row(2, i);
  const i16 *th = dis.row(0, i), *tv = dis.row(1, i), *td = dis.row(2, i);
  i16* rr[3] = {r.row(0, i), r.row(1, i), r.row(2, i)};
  i16* aa[3] = {a.row(0, i), a.row(1, i), a.row(2, i)};
  const GainLimit g = gain_limit_of(gain);
  const i32* div_centre = div_lookup + 32768;
  int j = j0;
  for (; j + 16 <= j1; j += 16) {
    __m256i lim[2][3], tv32[2][3];
    for (int half = 0; half < 2; ++half) {
      const int jj = j + 8 * half;
      const __m256i ohv = load_i16x8(oh + jj), ovv = load_i16x8(ov + jj);
      const __m256i thv = load_i16x8(th + jj), tvv = load_i16x8(tv + jj);
      const __m256i dp = _mm256_add_epi32(_mm256_mullo_epi32(ohv, thv), _mm256_mullo_epi32(ovv, tvv));
      const __m256i om = _mm256_add_epi32(_mm256_mullo_epi32(ohv, ohv), _mm256_mullo_epi32(ovv, ovv));
      const __m256i tm = _mm256_add_epi32(_mm256_mullo_epi32(thv, thv), _mm256_mullo_epi32(tvv, tvv));
      const __m256i angle = angle_mask8(dp, om, tm);
      for (int b = 0; b < 3; ++b) {
        const __m256i o = b == 0 ? ohv : b == 1 ? ovv : load_i16x8(od + jj);
        const __m256i t = b == 0 ? thv : b == 1 ? tvv : load_i16x8(td + jj);
        tv32[half][b] = t;
        lim[half][b] = decouple0_band8(o, t, angle, div_centre, g);
      }
    }
    for (int b = 0; b < 3; ++b) {
      store_trunc16(rr[b] + j, lim[0][b], lim[1][b]);
      store_trunc16(aa[b] + j, _mm256_sub_epi32(tv32[0][b], lim[0][b]), _mm256_sub_epi32(tv32[1][b], lim[1][b]));
    }
  }
  if (j < j1) decouple0_row(ref, dis, i, j, j1, gain, div_lookup, r, a);
}

// ---- decouple, scales 1..3 ---------------------------------------------------------

// int64 -> float for four lanes, rounded once as the scalar cast. From 2^53
// on, float's rounding bit is bit 29 or higher and bits 28..0 only count as
// one sticky bit; collapsed into bit 28, the rest has at most 36 significant
// bits. Either way the magnitude converts to double exactly, and cvtpd_ps
// rounds that once.
EXACTVMAF_TARGET_AVX2 inline __m128 float_of_i64(__m256i x) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i neg = _mm256_cmpgt_epi64(zero, x);
  const __m256i mag = _mm256_sub_epi64(_mm256_xor_si256(x, neg), neg);  // as uint64 (2^63 for INT64_MIN)
  const __m256i below_2p53 = _mm256_cmpeq_epi64(_mm256_srli_epi64(mag, 53), zero);
  const __m256i low = _mm256_andnot_si256(below_2p53, _mm256_set1_epi64x((i64{1} << 28) - 1));  // 0 below 2^53
  const __m256i sticky =
      _mm256_and_si256(_mm256_add_epi64(_mm256_and_si256(mag, low), low), _mm256_set1_epi64x(i64{1} << 28));
  const __m256i m = _mm256_or_si256(_mm256_andnot_si256(low, mag), sticky);
  // uint64 -> double from the doubles 2^84 + hi * 2^32 and 2^52 + lo (both exact), one rounding in the sum.
  const __m256i hi_bits = _mm256_or_si256(_mm256_srli_epi64(m, 32), _mm256_set1_epi64x(0x4530000000000000));
  const __m256d hi = _mm256_sub_pd(_mm256_castsi256_pd(hi_bits), _mm256_set1_pd(0x1p84 + 0x1p52));
  const __m256d lo = _mm256_castsi256_pd(_mm256_blend_epi32(m, _mm256_set1_epi64x(0x4330000000000000), 0xaa));
  const __m256d d = _mm256_add_pd(hi, lo);
  return _mm256_cvtpd_ps(_mm256_xor_pd(d, _mm256_castsi256_pd(_mm256_slli_epi64(neg, 63))));
}

// The angle island for the even (or, shifted down, the odd) int32 lanes of
// oh, ov, th, tv: upstream's int64 dot product and squared norms, wrapping
// as the scalar code's unsigned sums. Returns 64-bit mask lanes.
EXACTVMAF_TARGET_AVX2 inline __m256i angle_mask_s123_4(__m256i oh, __m256i ov, __m256i th, __m256i tv) {
  const __m256i dp = _mm256_add_epi64(_mm256_mul_epi32(oh, th), _mm256_mul_epi32(ov, tv));
  const __m256i om = _mm256_add_epi64(_mm256_mul_epi32(oh, oh), _mm256_mul_epi32(ov, ov));
  const __m256i tm = _mm256_add_epi64(_mm256_mul_epi32(th, th), _mm256_mul_epi32(tv, tv));
  return _mm256_castpd_si256(angle_test4(float_of_i64(dp), float_of_i64(om), float_of_i64(tm)));
}

EXACTVMAF_TARGET_AVX2 inline __m256i angle_mask_s123(__m256i oh, __m256i ov, __m256i th, __m256i tv) {
  const __m256i even = angle_mask_s123_4(oh, ov, th, tv);
  const __m256i odd = angle_mask_s123_4(_mm256_srli_epi64(oh, 32), _mm256_srli_epi64(ov, 32), _mm256_srli_epi64(th, 32),
                                        _mm256_srli_epi64(tv, 32));
  return _mm256_blend_epi32(even, odd, 0xaa);
}

// min((p + 2^(s-1)) >> s, 2^15) = min(((p >> (s-1)) + 1) >> 1, 2^15) per
// 64-bit lane, for p < 2^62 and s - 1 = s1 in [14, 31].
EXACTVMAF_TARGET_AVX2 inline __m256i rounded_shift_k(__m256i p, __m256i s1) {
  const __m256i k_max = _mm256_set1_epi64x(32768);
  const __m256i k = _mm256_srli_epi64(_mm256_add_epi64(_mm256_srlv_epi64(p, s1), _mm256_set1_epi64x(1)), 1);
  return _mm256_blendv_epi8(k, k_max, _mm256_cmpgt_epi64(k, k_max));
}

// decouple_k_s123 for eight samples, exact for all int32 o and t.
EXACTVMAF_TARGET_AVX2 inline __m256i decouple_k_s123_8(__m256i o, __m256i t, const i32* div_centre) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i abs_o = _mm256_abs_epi32(o);  // as uint32 (abs of INT32_MIN is 2^31)
  // best15_from32's shift 17 - clz(|o|) is floor(log2 |o|) - 14, and 0 below
  // 2^15 (for 0 too). The log is the float exponent of |o| with the bit below
  // its leading one cleared, so the conversion cannot round up to the next
  // power of two (2^31 converts as -2^31, with the same exponent).
  const __m256i lead = _mm256_andnot_si256(_mm256_srli_epi32(abs_o, 1), abs_o);
  const __m256i biased_log = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(lead)), 23),
                                              _mm256_set1_epi32(0xff));
  const __m256i shift = _mm256_max_epi32(_mm256_sub_epi32(biased_log, _mm256_set1_epi32(127 + 14)), zero);
  const __m256i half = _mm256_srli_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), shift), 1);  // 0 for shift 0
  const __m256i msb =
      _mm256_and_si256(_mm256_srlv_epi32(_mm256_add_epi32(abs_o, half), shift), _mm256_set1_epi32(0xffff));
  const __m256i q = _mm256_i32gather_epi32(div_centre, msb, 4);  // in [0, 2^30]
  // num = q * t * sign(o) is q * |t| (< 2^61) where o and t have the same
  // sign; otherwise it is <= 0 and k clamps to 0.
  const __m256i abs_t = _mm256_abs_epi32(t);
  const __m256i s1 = _mm256_add_epi32(shift, _mm256_set1_epi32(14));
  const __m256i k_even =
      rounded_shift_k(_mm256_mul_epu32(q, abs_t), _mm256_and_si256(s1, _mm256_set1_epi64x(0xffffffff)));
  const __m256i k_odd = rounded_shift_k(_mm256_mul_epu32(_mm256_srli_epi64(q, 32), _mm256_srli_epi64(abs_t, 32)),
                                        _mm256_srli_epi64(s1, 32));
  __m256i k = _mm256_blend_epi32(k_even, _mm256_slli_epi64(k_odd, 32), 0xaa);
  k = _mm256_andnot_si256(_mm256_srai_epi32(_mm256_xor_si256(o, t), 31), k);
  return _mm256_blendv_epi8(k, _mm256_set1_epi32(32768), _mm256_cmpeq_epi32(o, zero));
}

// One band of decouple_s123_sample for eight samples; returns wrap32(lim).
// For 0 <= gain <= 2^31 (the caller's condition), rst * gain is 0 or has o's
// sign and is at most 2^62 in magnitude, so limit_gain's int64 product is
// outside int32 only where the bound t wins: above INT32_MAX for o > 0, below
// INT32_MIN for o < 0. Clamping the double product to INT32_MAX, and cvttpd2dq's INT32_MIN
// for products below that, keep those results.
EXACTVMAF_TARGET_AVX2 inline __m256i decouple_s123_band8(__m256i o, __m256i t, __m256i angle, const i32* div_centre,
                                                         double gain) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i k = decouple_k_s123_8(o, t, div_centre);  // in [0, 2^15]
  // rst = wrap32((k * o + 2^14) >> 15) with |k * o| <= 2^46: the low 32 bits
  // of the shifted int64 are the same for a logical shift.
  const __m256i round = _mm256_set1_epi64x(16384);
  const __m256i rst_even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(k, o), round), 15);
  const __m256i rst_odd = _mm256_slli_epi64(
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(k, 32), _mm256_srli_epi64(o, 32)), round), 17);
  const __m256i rst = _mm256_blend_epi32(rst_even, rst_odd, 0xaa);
  const __m256d gv = _mm256_set1_pd(gain), int_max = _mm256_set1_pd(2147483647.0);
  const __m128i gp_lo =
      _mm256_cvttpd_epi32(_mm256_min_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(rst)), gv), int_max));
  const __m128i gp_hi = _mm256_cvttpd_epi32(
      _mm256_min_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(rst, 1)), gv), int_max));
  const __m256i gp = _mm256_inserti128_si256(_mm256_castsi128_si256(gp_lo), gp_hi, 1);
  const __m256i o_zero = _mm256_cmpeq_epi32(o, zero);
  const __m256i limited = _mm256_andnot_si256(o_zero, _mm256_and_si256(angle, _mm256_cmpgt_epi32(k, zero)));
  const __m256i o_pos = _mm256_cmpgt_epi32(o, zero);
  const __m256i bounded = _mm256_blendv_epi8(_mm256_max_epi32(gp, t), _mm256_min_epi32(gp, t), o_pos);
  return _mm256_blendv_epi8(rst, bounded, limited);
}

EXACTVMAF_TARGET_AVX2 void decouple_s123_avx2(const Bands3<const i32>& ref, const Bands3<const i32>& dis, int i, int j0,
                                              int j1, double gain, const i32* div_lookup, const Bands3<i32>& r,
                                              const Bands3<i32>& a) {
  // The option allows 1..100; other gains (negative, huge, NaN) can make
  // limit_gain's int64 result leave int32 (see decouple_s123_band8): scalar.
  if (!(gain >= 0.0 && gain <= 2147483648.0)) return decouple_s123_row(ref, dis, i, j0, j1, gain, div_lookup, r, a);
  const i32* o_rows[3] = {ref.row(0, i), ref.row(1, i), ref.row(2, i)};
  const i32* t_rows[3] = {dis.row(0, i), dis.row(1, i), dis.row(2, i)};
  i32* r_rows[3] = {r.row(0, i), r.row(1, i), r.row(2, i)};
  i32* a_rows[3] = {a.row(0, i), a.row(1, i), a.row(2, i)};
  const i32* div_centre = div_lookup + 32768;
  int j = j0;
  for (; j + 8 <= j1; j += 8) {
    __m256i o[3], t[3];
    for (int b = 0; b < 3; ++b) {
      o[b] = load256(o_rows[b] + j);
      t[b] = load256(t_rows[b] + j);
    }
    const __m256i angle = angle_mask_s123(o[0], o[1], t[0], t[1]);
    for (int b = 0; b < 3; ++b) {
      const __m256i lim = decouple_s123_band8(o[b], t[b], angle, div_centre, gain);
      store256(r_rows[b] + j, lim);
      store256(a_rows[b] + j, _mm256_sub_epi32(t[b], lim));
    }
  }
  if (j < j1) decouple_s123_row(ref, dis, i, j, j1, gain, div_lookup, r, a);
}

// ---- CSF ---------------------------------------------------------------------------

EXACTVMAF_TARGET_AVX2 void csf0_avx2(const i16* src, u32 i_rfactor, int band, int j0, int j1, i16* dst, i16* flt) {
  const __m256i rf = _mm256_set1_epi32(static_cast<int>(i_rfactor));  // uint16: the int32 product is exact
  const __m256i round = _mm256_set1_epi32(csf0_round(band));
  const __m128i shift = _mm_cvtsi32_si128(csf0_shift(band));
  const __m256i c4369 = _mm256_set1_epi32(4369), c2048 = _mm256_set1_epi32(2048);
  int j = j0;
  for (; j + 16 <= j1; j += 16) {
    __m256i v[2], f[2];
    for (int half = 0; half < 2; ++half) {
      const __m256i s = load_i16x8(src + j + 8 * half);
      v[half] = trunc16(_mm256_sra_epi32(_mm256_add_epi32(_mm256_mullo_epi32(s, rf), round), shift));
      f[half] = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(_mm256_abs_epi32(v[half]), c4369), c2048), 12);
    }
    store_trunc16(dst + j, v[0], v[1]);
    store_trunc16(flt + j, f[0], f[1]);
  }
  if (j < j1) csf0_row(src, i_rfactor, band, j, j1, dst, flt);
}

// (int64{src} * u32 factor) modulo 2^64 in even 64-bit lanes (src in the low
// halves): vpmuludq treats src as unsigned, which adds factor * 2^32 for a
// negative src.
EXACTVMAF_TARGET_AVX2 inline __m256i mul_i32_u32_even(__m256i src, __m256i factor) {
  const __m256i p = _mm256_mul_epu32(src, factor);
  const __m256i neg = _mm256_srai_epi32(_mm256_shuffle_epi32(src, 0xa0), 31);  // sign of the low half, in both halves
  return _mm256_sub_epi64(p, _mm256_slli_epi64(_mm256_and_si256(neg, factor), 32));
}

// Bits 32..63 of a 64-bit value in each lane, for even and odd lanes merged.
EXACTVMAF_TARGET_AVX2 inline __m256i high_halves(__m256i e, __m256i o) {
  return _mm256_blend_epi32(_mm256_srli_epi64(e, 32), o, 0xaa);
}
// Bits s..s+31 (s <= 32) of 64-bit values.
EXACTVMAF_TARGET_AVX2 inline __m256i bits_at(__m256i e, __m256i o, __m128i s) {
  return _mm256_blend_epi32(_mm256_srl_epi64(e, s), _mm256_slli_epi64(_mm256_srl_epi64(o, s), 32), 0xaa);
}

// csf_s123_value for eight int32 samples.
EXACTVMAF_TARGET_AVX2 inline __m256i csf_s123_value8(__m256i s, __m256i rf) {
  const __m256i round = _mm256_set1_epi64x(i64{1} << 27);
  const __m128i s28 = _mm_cvtsi32_si128(28);
  const __m256i e = _mm256_add_epi64(mul_i32_u32_even(s, rf), round);
  const __m256i o = _mm256_add_epi64(mul_i32_u32_even(_mm256_srli_epi64(s, 32), rf), round);
  return bits_at(e, o, s28);
}

// wrap32((int64{c} * abs32(v) + INT32_MIN) >> 32): bits 32..63 of the sum.
EXACTVMAF_TARGET_AVX2 inline __m256i reciprocal_term8(__m256i v, i32 c) {
  const __m256i a = _mm256_abs_epi32(v);
  const __m256i cv = _mm256_set1_epi64x(c), bias = _mm256_set1_epi64x(INT32_MIN);
  const __m256i e = _mm256_add_epi64(_mm256_mul_epi32(a, cv), bias);
  const __m256i o = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(a, 32), cv), bias);
  return high_halves(e, o);
}

EXACTVMAF_TARGET_AVX2 void csf_s123_avx2(const i32* src, u32 i_rfactor, int j0, int j1, i32* dst, i32* flt) {
  const __m256i rf = _mm256_set1_epi64x(static_cast<i64>(i_rfactor));
  int j = j0;
  for (; j + 8 <= j1; j += 8) {
    const __m256i v = csf_s123_value8(load256(src + j), rf);
    store256(dst + j, v);
    store256(flt + j, reciprocal_term8(v, 143165577));
  }
  if (j < j1) csf_s123_row(src, i_rfactor, j, j1, dst, flt);
}

// ---- contrast masking ------------------------------------------------------------

// Adds ((v_sq * v + add_cub) >> shift_cub) of eight lanes to acc (4 x int64),
// v = max(|x| - thr, 0) and v_sq = wrap32((v^2 + add_sq) >> shift_sq).
struct CubeConsts {
  __m256i add_sq, add_cub;
  __m128i shift_sq, shift_cub;
};

EXACTVMAF_TARGET_AVX2 inline __m256i cube_sum8(__m256i acc, __m256i x, __m256i thr, const CubeConsts& c) {
  __m256i v = _mm256_sub_epi32(_mm256_abs_epi32(x), thr);
  v = _mm256_max_epi32(v, _mm256_setzero_si256());
  // v = 0 gives v_sq = 0 and a term (0 + add_cub) >> shift_cub = 0 (add_cub < 2^shift_cub).
  if (_mm256_testz_si256(v, v)) return acc;
  const __m256i vo = _mm256_srli_epi64(v, 32);
  // v < 2^31: v^2 < 2^62 (unsigned product); the shifted square's low 32 bits are v_sq.
  const __m256i sq_e = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(v, v), c.add_sq), c.shift_sq);
  const __m256i sq_o = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(vo, vo), c.add_sq), c.shift_sq);
  const __m256i p_e = _mm256_add_epi64(_mm256_mul_epi32(sq_e, v), c.add_cub);
  const __m256i p_o = _mm256_add_epi64(_mm256_mul_epi32(sq_o, vo), c.add_cub);
  // Below 2^30, v_sq < 2^31 stays positive (shift_sq >= 29) and so does the product.
  if (_mm256_testz_si256(v, _mm256_set1_epi32(0x40000000)))
    return _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_srl_epi64(p_e, c.shift_cub), _mm256_srl_epi64(p_o, c.shift_cub)));
  return _mm256_add_epi64(acc, _mm256_add_epi64(srai64(p_e, c.shift_cub), srai64(p_o, c.shift_cub)));
}

EXACTVMAF_TARGET_AVX2 inline __m256i load8(const i16* p) { return load_i16x8(p); }
EXACTVMAF_TARGET_AVX2 inline __m256i load8(const i32* p) { return load256(p); }
// The masking threshold's own-sample term (cm0_centre, cm_s123_centre).
EXACTVMAF_TARGET_AVX2 inline __m256i centre8(const i16* p) {
  const __m256i prod = _mm256_mullo_epi32(_mm256_abs_epi32(load_i16x8(p)), _mm256_set1_epi32(8738));
  return trunc16(_mm256_srai_epi32(_mm256_add_epi32(prod, _mm256_set1_epi32(2048)), 12));
}
EXACTVMAF_TARGET_AVX2 inline __m256i centre8(const i32* p) { return reciprocal_term8(load256(p), 286331153); }

// Columns per pass of the threshold buffers (kept in L1).
constexpr int cm_chunk = 256;

// Masking thresholds of columns [c0, c1) of one row (1 <= c0, c1 <= w - 1,
// c1 - c0 a multiple of 8, at most cm_chunk) into thr: first the 3-row sums
// over the bands of columns c0 - 1 .. c1, then three neighbouring sums less
// the middle row's own sample plus the centre term. All modulo 2^32 (the
// scalar int32 sums, which wrap only at scales 1..3, in another order).
template <class T>
EXACTVMAF_TARGET_AVX2 void thresholds8(const T* const up[3], const T* const mid[3], const T* const dn[3],
                                       const T* const ang[3], int c0, int c1, i32* thr) {
  alignas(32) i32 vsum[cm_chunk + 8];
  const int n = c1 - c0;
  int k = 0;
  for (; k + 8 <= n + 2; k += 8) {
    const int c = c0 - 1 + k;
    __m256i sum = _mm256_setzero_si256();
    for (int b = 0; b < 3; ++b)
      sum = _mm256_add_epi32(sum, _mm256_add_epi32(_mm256_add_epi32(load8(up[b] + c), load8(mid[b] + c)),
                                                   load8(dn[b] + c)));
    store256(vsum + k, sum);
  }
  for (; k < n + 2; ++k) {
    const int c = c0 - 1 + k;
    u32 sum = 0;
    for (int b = 0; b < 3; ++b)
      sum += static_cast<u32>(i32{up[b][c]}) + static_cast<u32>(i32{mid[b][c]}) + static_cast<u32>(i32{dn[b][c]});
    vsum[k] = static_cast<i32>(sum);
  }
  for (int j = 0; j < n; j += 8) {
    __m256i t = _mm256_add_epi32(_mm256_add_epi32(load256(vsum + j), load256(vsum + j + 1)), load256(vsum + j + 2));
    for (int b = 0; b < 3; ++b)
      t = _mm256_add_epi32(_mm256_sub_epi32(t, load8(mid[b] + c0 + j)), centre8(ang[b] + c0 + j));
    store256(thr + j, t);
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

inline void add_sums(CmRowSums& s, const CmRowSums& t) {
  s.h = wrap_add(s.h, t.h);
  s.v = wrap_add(s.v, t.v);
  s.d = wrap_add(s.d, t.d);
}

EXACTVMAF_TARGET_AVX2 CmRowSums cm0_avx2(const Bands3<const i16>& src, const Bands3<const i16>& angles,
                                         const Bands3<const i16>& flt, const u32 i_rfactor[3], int w, int h, int i,
                                         int j0, int j1, const Cm0Shifts& s) {
  // Columns with both neighbours inside the band: 1 .. w-2.
  const int vj0 = j0 > 1 ? j0 : 1;
  const int vj1 = vj0 + ((j1 < w - 1 ? j1 : w - 1) - vj0) / 8 * 8;
  if (vj1 - vj0 < 8) return cm0_row(src, angles, flt, i_rfactor, w, h, i, j0, j1, s);
  CmRowSums sums = cm0_row(src, angles, flt, i_rfactor, w, h, i, j0, vj0, s);
  const CmRows<i16> rows(src, angles, flt, h, i);
  const CubeConsts hv{_mm256_set1_epi64x(268435456), _mm256_set1_epi64x(s.add_cub_hv), _mm_cvtsi32_si128(29),
                      _mm_cvtsi32_si128(static_cast<int>(s.cub_hv))};
  const CubeConsts dd{_mm256_set1_epi64x(536870912), _mm256_set1_epi64x(s.add_cub_d), _mm_cvtsi32_si128(30),
                      _mm_cvtsi32_si128(static_cast<int>(s.cub_d))};
  const __m256i rf[3] = {_mm256_set1_epi32(static_cast<int>(i_rfactor[0])),
                         _mm256_set1_epi32(static_cast<int>(i_rfactor[1])),
                         _mm256_set1_epi32(static_cast<int>(i_rfactor[2]))};
  __m256i acc[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  alignas(32) i32 thr_buf[cm_chunk];
  for (int c0 = vj0; c0 < vj1; c0 += cm_chunk) {
    const int c1 = c0 + cm_chunk < vj1 ? c0 + cm_chunk : vj1;
    thresholds8(rows.up, rows.mid, rows.dn, rows.ang, c0, c1, thr_buf);
    for (int j = c0; j < c1; j += 8) {
      const __m256i thr = load256(thr_buf + (j - c0));
      // x = src * factor (uint16 factor: exact in int32); the threshold enters shifted left (as uint32).
      const __m256i thr_hv = _mm256_slli_epi32(thr, 10), thr_d = _mm256_slli_epi32(thr, 12);
      acc[0] = cube_sum8(acc[0], _mm256_mullo_epi32(load_i16x8(rows.src[0] + j), rf[0]), thr_hv, hv);
      acc[1] = cube_sum8(acc[1], _mm256_mullo_epi32(load_i16x8(rows.src[1] + j), rf[1]), thr_hv, hv);
      acc[2] = cube_sum8(acc[2], _mm256_mullo_epi32(load_i16x8(rows.src[2] + j), rf[2]), thr_d, dd);
    }
  }
  sums.h += static_cast<i64>(hsum64(acc[0]));
  sums.v += static_cast<i64>(hsum64(acc[1]));
  sums.d += static_cast<i64>(hsum64(acc[2]));
  add_sums(sums, cm0_row(src, angles, flt, i_rfactor, w, h, i, vj1, j1, s));
  return sums;
}

EXACTVMAF_TARGET_AVX2 CmRowSums cm_s123_avx2(const Bands3<const i32>& src, const Bands3<const i32>& angles,
                                             const Bands3<const i32>& flt, const u32 i_rfactor[3], int w, int h, int i,
                                             int j0, int j1, u32 shift_cub, i64 add_cub) {
  const int vj0 = j0 > 1 ? j0 : 1;
  const int vj1 = vj0 + ((j1 < w - 1 ? j1 : w - 1) - vj0) / 8 * 8;
  if (vj1 - vj0 < 8) return cm_s123_row(src, angles, flt, i_rfactor, w, h, i, j0, j1, shift_cub, add_cub);
  CmRowSums sums = cm_s123_row(src, angles, flt, i_rfactor, w, h, i, j0, vj0, shift_cub, add_cub);
  const CmRows<i32> rows(src, angles, flt, h, i);
  const CubeConsts cc{_mm256_set1_epi64x(536870912), _mm256_set1_epi64x(add_cub), _mm_cvtsi32_si128(30),
                      _mm_cvtsi32_si128(static_cast<int>(shift_cub))};
  __m256i rf[3];
  for (int b = 0; b < 3; ++b) rf[b] = _mm256_set1_epi64x(static_cast<i64>(i_rfactor[b]));
  __m256i acc[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  alignas(32) i32 thr_buf[cm_chunk];
  for (int c0 = vj0; c0 < vj1; c0 += cm_chunk) {
    const int c1 = c0 + cm_chunk < vj1 ? c0 + cm_chunk : vj1;
    thresholds8(rows.up, rows.mid, rows.dn, rows.ang, c0, c1, thr_buf);
    for (int j = c0; j < c1; j += 8) {
      const __m256i thr = load256(thr_buf + (j - c0));
      for (int b = 0; b < 3; ++b)
        acc[b] = cube_sum8(acc[b], csf_s123_value8(load256(rows.src[b] + j), rf[b]), thr, cc);
    }
  }
  sums.h += static_cast<i64>(hsum64(acc[0]));
  sums.v += static_cast<i64>(hsum64(acc[1]));
  sums.d += static_cast<i64>(hsum64(acc[2]));
  add_sums(sums, cm_s123_row(src, angles, flt, i_rfactor, w, h, i, vj1, j1, shift_cub, add_cub));
  return sums;
}

// ---- denominator -------------------------------------------------------------

EXACTVMAF_TARGET_AVX2 DenRowSums den0_avx2(const Bands3<const i16>& ref, int i, int j0, int j1) {
  const i16* rows[3] = {ref.row(0, i), ref.row(1, i), ref.row(2, i)};
  __m256i acc[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  int j = j0;
  for (; j + 8 <= j1; j += 8) {
    for (int b = 0; b < 3; ++b) {
      const __m256i x = _mm256_abs_epi32(load_i16x8(rows[b] + j));  // <= 2^15
      const __m256i sq = _mm256_mullo_epi32(x, x);                     // <= 2^30
      const __m256i e = _mm256_mul_epu32(sq, x);
      const __m256i o = _mm256_mul_epu32(_mm256_srli_epi64(sq, 32), _mm256_srli_epi64(x, 32));
      acc[b] = _mm256_add_epi64(acc[b], _mm256_add_epi64(e, o));
    }
  }
  DenRowSums s = den0_row(ref, i, j, j1);
  s.h += hsum64(acc[0]);
  s.v += hsum64(acc[1]);
  s.d += hsum64(acc[2]);
  return s;
}

// One lane group of den_s123_cube: q = (a^2 + 2^sq) >> sq is below 2^33, so
// q * a (mod 2^64) = lo32(q) * a + (q >> 32) * a * 2^32.
EXACTVMAF_TARGET_AVX2 inline __m256i den_cube4(__m256i a, __m256i add_sq, __m128i shift_sq, __m256i add_cub,
                                               __m128i shift_cub) {
  const __m256i q = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, a), add_sq), shift_sq);
  __m256i p = _mm256_mul_epu32(q, a);
  p = _mm256_add_epi64(p, _mm256_slli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(q, 32), a), 32));
  return _mm256_srl_epi64(_mm256_add_epi64(p, add_cub), shift_cub);
}

EXACTVMAF_TARGET_AVX2 DenRowSums den_s123_avx2(const Bands3<const i32>& ref, int i, int j0, int j1, u32 shift_sq,
                                               u32 shift_cub, u64 add_cub) {
  const i32* rows[3] = {ref.row(0, i), ref.row(1, i), ref.row(2, i)};
  const __m256i add_sq = _mm256_set1_epi64x(i64{1} << shift_sq);
  const __m256i add_cub_v = _mm256_set1_epi64x(static_cast<i64>(add_cub));
  const __m128i ssq = _mm_cvtsi32_si128(static_cast<int>(shift_sq)), scub = _mm_cvtsi32_si128(static_cast<int>(shift_cub));
  __m256i acc[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  int j = j0;
  for (; j + 8 <= j1; j += 8) {
    for (int b = 0; b < 3; ++b) {
      const __m256i a = _mm256_abs_epi32(load256(rows[b] + j));  // as uint32 (abs of INT32_MIN is 2^31)
      acc[b] = _mm256_add_epi64(acc[b], den_cube4(a, add_sq, ssq, add_cub_v, scub));
      acc[b] = _mm256_add_epi64(acc[b], den_cube4(_mm256_srli_epi64(a, 32), add_sq, ssq, add_cub_v, scub));
    }
  }
  DenRowSums s = den_s123_row(ref, i, j, j1, shift_sq, shift_cub, add_cub);
  s.h += hsum64(acc[0]);
  s.v += hsum64(acc[1]);
  s.d += hsum64(acc[2]);
  return s;
}

}  // namespace

const Kernels& avx2_kernels() {
  static const Kernels k = {"avx2",
                            &dwt0_vertical_avx2<std::uint8_t>,
                            &dwt0_vertical_avx2<std::uint16_t>,
                            &dwt0_horizontal_avx2,
                            &dwt_vertical_avx2,
                            &dwt_horizontal_avx2,
                            &decouple0_avx2,
                            &decouple_s123_avx2,
                            &csf0_avx2,
                            &csf_s123_avx2,
                            &cm0_avx2,
                            &cm_s123_avx2,
                            &den0_avx2,
                            &den_s123_avx2,
                            &dwt1_vertical_i16_avx2};
  return k;
}

}  // namespace exactvmaf::adm

#endif
