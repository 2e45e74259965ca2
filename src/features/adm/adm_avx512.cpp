// AVX-512 row kernels of integer ADM (adm_simd.hpp). The AVX2 kernels are
// kept where 512-bit vectors do not pay on their own; AVX-512 adds what AVX2
// lacks for the scales 1..3 decouple: int64 -> float conversion (vcvtqq2ps,
// correctly rounded as the scalar cast), leading-zero counts and 64-bit
// arithmetic shifts.
#include "features/adm/adm_simd.hpp"

#if EXACTVMAF_SIMD_X86
// gcc 12 warns about the deliberately undefined source operands inside its
// own AVX-512 intrinsic headers (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

namespace exactvmaf::adm {
namespace {

EXACTVMAF_TARGET_AVX512 inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
EXACTVMAF_TARGET_AVX512 inline void store256(void* p, __m256i v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }

// The angle island for eight samples: the int64 products (wrapping as the
// scalar code's unsigned sums), converted to float and compared in double
// with the same operations as angle_within_1deg.
EXACTVMAF_TARGET_AVX512 inline __mmask8 angle_mask(__m512i oh, __m512i ov, __m512i th, __m512i tv) {
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
// decouple_k_s123's table lookup: the 15 leading bits of |o| (rounded) index
// the reciprocal table; returns the entry and sets the extra shift.
EXACTVMAF_TARGET_AVX512 inline __m256i reciprocal8(__m256i o, const i32* div_centre, __m256i* shift_out) {
  const __m256i abs_o = _mm256_abs_epi32(o);  // as uint32
  const __mmask8 big = _mm256_cmpge_epu32_mask(abs_o, _mm256_set1_epi32(32768));
  const __m256i shift =
      _mm256_maskz_sub_epi32(big, _mm256_set1_epi32(17), _mm256_lzcnt_epi32(abs_o));
  const __m256i half = _mm256_srli_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), shift), 1);  // 0 for shift 0
  const __m256i rounded = _mm256_and_si256(_mm256_srlv_epi32(_mm256_add_epi32(abs_o, half), shift),
                                           _mm256_set1_epi32(0xffff));
  const __m256i msb = _mm256_mask_blend_epi32(big, abs_o, rounded);
  *shift_out = shift;
  return _mm256_i32gather_epi32(div_centre, msb, 4);
}

// q and shift from reciprocal8 (gathered early by the caller: the gather's
// latency is what this loop waits on).
EXACTVMAF_TARGET_AVX512 inline __m256i decouple_s123_band8(__m256i o, __m256i t, __m256i q, __m256i shift,
                                                           __mmask8 angle, const Gain& g) {
  const __m512i o64 = _mm512_cvtepi32_epi64(o), t64 = _mm512_cvtepi32_epi64(t);
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

EXACTVMAF_TARGET_AVX512 void decouple_s123_avx512(const Bands3<const i32>& ref, const Bands3<const i32>& dis, int i,
                                                  int j0, int j1, double gain, const i32* div_lookup,
                                                  const Bands3<i32>& r, const Bands3<i32>& a) {
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
    __m256i o[3], t[3], q[3], shift[3];
    for (int b = 0; b < 3; ++b) {
      o[b] = load256(o_rows[b] + j);
      t[b] = load256(t_rows[b] + j);
      q[b] = reciprocal8(o[b], div_centre, &shift[b]);
    }
    const __mmask8 angle = angle_mask(_mm512_cvtepi32_epi64(o[0]), _mm512_cvtepi32_epi64(o[1]),
                                      _mm512_cvtepi32_epi64(t[0]), _mm512_cvtepi32_epi64(t[1]));
    for (int b = 0; b < 3; ++b) {
      const __m256i lim = decouple_s123_band8(o[b], t[b], q[b], shift[b], angle, g);
      store256(r_rows[b] + j, lim);
      store256(a_rows[b] + j, _mm256_sub_epi32(t[b], lim));
    }
  }
  if (j < j1) decouple_s123_row(ref, dis, i, j, j1, gain, div_lookup, r, a);
}

// Sixteen samples as int32 lanes.
EXACTVMAF_TARGET_AVX512 inline __m512i load16(const i16* p) {
  return _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
EXACTVMAF_TARGET_AVX512 inline __m512i load16(const i32* p) { return _mm512_loadu_si512(p); }

// ---- DWT, scale 0 (32 samples at a time) -----------------------------------------------

// Low 16 bits of the int32 lanes of l (samples 0-3, 8-11, ... of each
// 128-bit lane pair after the unpacks) and u (4-7, 12-15, ...), back in
// sample order: C's truncating (int16_t) casts, as vpackssdw of the
// truncated values in the AVX2 kernel.
EXACTVMAF_TARGET_AVX512 inline __m512i interleave_low16(__m512i l, __m512i u) {
  alignas(64) static constexpr short index[32] = {0,  2,  4,  6,  32, 34, 36, 38, 8,  10, 12, 14, 40, 42, 44, 46,
                                                  16, 18, 20, 22, 48, 50, 52, 54, 24, 26, 28, 30, 56, 58, 60, 62};
  return _mm512_permutex2var_epi16(l, _mm512_load_si512(index), u);
}

// One band of the vertical pass (see dwt0_v_pass in adm_avx2.cpp): the row
// pairs through vpmaddwd with a pair of taps, the sum modulo 2^32.
EXACTVMAF_TARGET_AVX512 inline void dwt0_v_pass32(__m512i p01_l, __m512i p01_h, __m512i p23_l, __m512i p23_h,
                                                  __m512i t01, __m512i t23, __m512i fix, __m128i shift, i16* dst) {
  __m512i l = _mm512_add_epi32(_mm512_madd_epi16(p01_l, t01), _mm512_madd_epi16(p23_l, t23));
  __m512i u = _mm512_add_epi32(_mm512_madd_epi16(p01_h, t01), _mm512_madd_epi16(p23_h, t23));
  l = _mm512_sra_epi32(_mm512_add_epi32(l, fix), shift);
  u = _mm512_sra_epi32(_mm512_add_epi32(u, fix), shift);
  _mm512_storeu_si512(dst, interleave_low16(l, u));
}

EXACTVMAF_TARGET_AVX512 inline __m512i tap_pair32(i32 first, i32 second) {
  return _mm512_set1_epi32(static_cast<int>((static_cast<u32>(second) << 16) | (static_cast<u32>(first) & 0xffffu)));
}

struct Dwt0VerticalConsts {
  __m512i lo_fix, hi_fix, lo01, lo23, hi01, hi23, bias;
  __m128i shift;
  std::uintptr_t next_rows;  // bytes of two source rows
};

// Columns j..j+31 of the vertical pass (lambdas would not inherit the target attribute).
template <class Sample>
EXACTVMAF_TARGET_AVX512 inline void dwt0_v_block(const Sample* const r[4], int j, const Dwt0VerticalConsts& c, i16* lo,
                                                 i16* hi) {
  // The source rows come from memory (each is read by two output rows): fetch rows r[3] + 2 and r[3] + 3, which
  // the next two output rows add. Prefetches never fault; the address is an integer so no pointer leaves its
  // array. Measured: this pass took 11% of adm's time without, 2% with.
  const auto ahead = reinterpret_cast<std::uintptr_t>(r[3] + j) + c.next_rows;
  _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(ahead + c.next_rows / 2), _MM_HINT_T0);
  __m512i s[4];
  for (int k = 0; k < 4; ++k) {
    if constexpr (sizeof(Sample) == 2) s[k] = _mm512_xor_si512(_mm512_loadu_si512(r[k] + j), c.bias);
    else s[k] = _mm512_cvtepu8_epi16(load256(r[k] + j));
  }
  const __m512i p01_l = _mm512_unpacklo_epi16(s[0], s[1]), p01_h = _mm512_unpackhi_epi16(s[0], s[1]);
  const __m512i p23_l = _mm512_unpacklo_epi16(s[2], s[3]), p23_h = _mm512_unpackhi_epi16(s[2], s[3]);
  dwt0_v_pass32(p01_l, p01_h, p23_l, p23_h, c.lo01, c.lo23, c.lo_fix, c.shift, lo + j);
  if (hi) dwt0_v_pass32(p01_l, p01_h, p23_l, p23_h, c.hi01, c.hi23, c.hi_fix, c.shift, hi + j);
}

template <class Sample>
EXACTVMAF_TARGET_AVX512 void dwt0_vertical_avx512(const Sample* src, std::ptrdiff_t stride, int w, int h, int i,
                                                  unsigned bpc, i16* lo, i16* hi) {
  if (w < 32) return dwt0_vertical_row(src, stride, w, h, i, bpc, lo, hi);
  constexpr bool wide = sizeof(Sample) == 2;
  const Sample* r[4];
  for (int k = 0; k < 4; ++k) r[k] = src + dwt_src_index(i, k, h) * stride;
  // Wider samples enter as s - 2^15 (int16): that takes 2^15 * 46342 off the lo sum and nothing off hi.
  const u32 add = u32{1} << (bpc - 1);
  const u32 lo_fix = (wide ? 32768u * static_cast<u32>(dwt_lo_sum) : 0u) - static_cast<u32>(dwt_lo_sum) * add + add;
  const Dwt0VerticalConsts c{_mm512_set1_epi32(static_cast<int>(lo_fix)),
                             _mm512_set1_epi32(static_cast<int>(add)),
                             tap_pair32(dwt_lo(0), dwt_lo(1)),
                             tap_pair32(dwt_lo(2), dwt_lo(3)),
                             tap_pair32(dwt_hi(0), dwt_hi(1)),
                             tap_pair32(dwt_hi(2), dwt_hi(3)),
                             _mm512_set1_epi16(static_cast<short>(0x8000)),
                             _mm_cvtsi32_si128(static_cast<int>(bpc)),
                             static_cast<std::uintptr_t>(2 * stride) * sizeof(Sample)};
  int j = 0;
  for (; j + 32 <= w; j += 32) dwt0_v_block(r, j, c, lo, hi);
  // Each output column depends on its input column only: the tail is one
  // more block ending at the last column (recomputing a few equal values).
  if (j < w) dwt0_v_block(r, w - 32, c, lo, hi);
}

// Sixteen outputs from the int16 inputs at p .. p+33 (see dwt0_h8 in
// adm_avx2.cpp): int32 sums below 2^31, (sum + 2^15) >> 16 fits int16.
EXACTVMAF_TARGET_AVX512 inline __m512i dwt0_h16(const i16* p, __m512i t01, __m512i t23) {
  const __m512i acc = _mm512_add_epi32(_mm512_madd_epi16(_mm512_loadu_si512(p), t01),
                                       _mm512_madd_epi16(_mm512_loadu_si512(p + 2), t23));
  return _mm512_srai_epi32(_mm512_add_epi32(acc, _mm512_set1_epi32(32768)), 16);
}

EXACTVMAF_TARGET_AVX512 inline void dwt0_h32(const i16* src, int j, __m512i t01, __m512i t23, i16* dst) {
  const __m512i a = dwt0_h16(src + 2 * j - 1, t01, t23), b = dwt0_h16(src + 2 * j + 31, t01, t23);
  const __m512i packed = _mm512_packs_epi32(a, b);  // per 128-bit lane: 4 of a, 4 of b
  _mm512_storeu_si512(dst + j, _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), packed));
}

EXACTVMAF_TARGET_AVX512 void dwt0_horizontal_avx512(const i16* lo, const i16* hi, int w, i16* a, i16* v, i16* h,
                                                    i16* d) {
  const __m512i lo01 = tap_pair32(dwt_lo(0), dwt_lo(1)), lo23 = tap_pair32(dwt_lo(2), dwt_lo(3));
  const __m512i hi01 = tap_pair32(dwt_hi(0), dwt_hi(1)), hi23 = tap_pair32(dwt_hi(2), dwt_hi(3));
  const auto scalar_at = [&](int j) { dwt0_horizontal_at(lo, hi, w, j, a, v, h, d); };  // edges, tail
  scalar_at(0);
  int j = 1;
  // 32 outputs j..j+31 read up to input 2j+64.
  for (; 2 * j + 65 <= w; j += 32) {
    dwt0_h32(lo, j, lo01, lo23, a);
    if (hi) {
      dwt0_h32(lo, j, hi01, hi23, v);
      dwt0_h32(hi, j, lo01, lo23, h);
      dwt0_h32(hi, j, hi01, hi23, d);
    }
  }
  // The tail: one more block ending at the last output with in-range inputs
  // (outputs depend on the inputs only, so overlapping blocks agree).
  const int last = (w - 65) / 2;
  if (j < band_size(w) && j > 1 && last > j - 32) {
    dwt0_h32(lo, last, lo01, lo23, a);
    if (hi) {
      dwt0_h32(lo, last, hi01, hi23, v);
      dwt0_h32(hi, last, lo01, lo23, h);
      dwt0_h32(hi, last, hi01, hi23, d);
    }
    j = last + 32;
  }
  for (; j < band_size(w); ++j) scalar_at(j);
}

// ---- DWT, scales 1..3: 64-bit sums, low 32 bits ------------------------------------------

struct DwtTaps {
  __m512i lo[4], hi[4], add;
  __m128i shift;
};

// Both bands (lo and hi taps) of outputs j..j+15 from one input row: the
// inputs are loaded once; the 64-bit sums of 8 + 8 outputs are narrowed
// (low 32 bits, as vpmovqd) and put in order by one vpermt2d.
EXACTVMAF_TARGET_AVX512 inline void dwt_h16x2(const i32* src, int j, const DwtTaps& t, i32* dst_lo, i32* dst_hi) {
  __m512i x[4], y[4];  // x: outputs j..j+7, y: j+8..j+15; taps 0..3
  for (int half = 0; half < 2; ++half) {
    __m512i* v = half ? y : x;
    const i32* p = src + 2 * j - 1 + 16 * half;
    v[0] = _mm512_loadu_si512(p);
    v[2] = _mm512_loadu_si512(p + 2);
    v[1] = _mm512_srli_epi64(v[0], 32);
    v[3] = _mm512_srli_epi64(v[2], 32);
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  for (int band = 0; band < 2; ++band) {
    const __m512i* taps = band ? t.hi : t.lo;
    __m512i ax = _mm512_add_epi64(_mm512_mul_epi32(x[0], taps[0]), _mm512_mul_epi32(x[1], taps[1]));
    __m512i ay = _mm512_add_epi64(_mm512_mul_epi32(y[0], taps[0]), _mm512_mul_epi32(y[1], taps[1]));
    ax = _mm512_add_epi64(ax, _mm512_add_epi64(_mm512_mul_epi32(x[2], taps[2]), _mm512_mul_epi32(x[3], taps[3])));
    ay = _mm512_add_epi64(ay, _mm512_add_epi64(_mm512_mul_epi32(y[2], taps[2]), _mm512_mul_epi32(y[3], taps[3])));
    // (The four products are summed in a different order than the scalar code: int64 sums are exact here,
    // |sum| < 2^31 * 54822 < 2^47.)
    ax = _mm512_srl_epi64(_mm512_add_epi64(ax, t.add), t.shift);
    ay = _mm512_srl_epi64(_mm512_add_epi64(ay, t.add), t.shift);
    _mm512_storeu_si512((band ? dst_hi : dst_lo) + j, _mm512_permutex2var_epi32(ax, even, ay));
  }
}

EXACTVMAF_TARGET_AVX512 void dwt_horizontal_avx512(const i32* lo, const i32* hi, int w, int scale, i32* a, i32* v,
                                                   i32* h, i32* d) {
  const int shift = dwt_hp_shift(scale);
  const i64 add = dwt_hp_add(scale);
  DwtTaps t;
  for (int k = 0; k < 4; ++k) {
    t.lo[k] = _mm512_set1_epi64(dwt_lo(k));
    t.hi[k] = _mm512_set1_epi64(dwt_hi(k));
  }
  t.add = _mm512_set1_epi64(add);
  t.shift = _mm_cvtsi32_si128(shift);
  const auto scalar_at = [&](int j) { dwt_horizontal_at(lo, hi, w, j, add, shift, a, v, h, d); };  // edges, tail
  scalar_at(0);
  int j = 1;
  // 16 outputs j..j+15 read up to input 2j+32.
  for (; 2 * j + 33 <= w; j += 16) {
    dwt_h16x2(lo, j, t, a, v);
    dwt_h16x2(hi, j, t, h, d);
  }
  // The tail: one more block ending at the last output with in-range inputs
  // (outputs depend on the inputs only, so overlapping blocks agree).
  const int last = (w - 33) / 2;
  if (j < band_size(w) && j > 1 && last > j - 16) {
    dwt_h16x2(lo, last, t, a, v);
    dwt_h16x2(hi, last, t, h, d);
    j = last + 16;
  }
  for (; j < band_size(w); ++j) scalar_at(j);
}

// Scale 1 columns j..j+15: the low 32 bits of the sum are the sum of the low 32 bits.
EXACTVMAF_TARGET_AVX512 inline void dwt_v1_block(const i32* const r[4], int j, i32* lo, i32* hi) {
  __m512i al = _mm512_setzero_si512(), ah = al;
  for (int k = 0; k < 4; ++k) {
    const __m512i x = _mm512_loadu_si512(r[k] + j);
    al = _mm512_add_epi32(al, _mm512_mullo_epi32(x, _mm512_set1_epi32(dwt_lo(k))));
    ah = _mm512_add_epi32(ah, _mm512_mullo_epi32(x, _mm512_set1_epi32(dwt_hi(k))));
  }
  _mm512_storeu_si512(lo + j, al);
  _mm512_storeu_si512(hi + j, ah);
}

// Low 32 bits of (sum + add) >> shift for 64-bit sums in even (e) and odd
// (o) lanes; shift <= 16 keeps those bits inside the sum, so the logical
// shift gives the arithmetic one's bits.
EXACTVMAF_TARGET_AVX512 inline __m512i narrow64(__m512i e, __m512i o, __m512i add, __m128i shift) {
  return _mm512_mask_blend_epi32(0xaaaa, _mm512_srl_epi64(_mm512_add_epi64(e, add), shift),
                                 _mm512_slli_epi64(_mm512_srl_epi64(_mm512_add_epi64(o, add), shift), 32));
}

// Scales 2 and 3, columns j..j+15: 64-bit sums.
EXACTVMAF_TARGET_AVX512 inline void dwt_v23_block(const i32* const r[4], int j, __m512i add, __m128i shift,
                                                  std::ptrdiff_t stride, i32* lo, i32* hi) {
  // As in dwt0_v_block: fetch rows r[3] + 2 and r[3] + 3 (the input was written one scale earlier).
  const auto ahead = reinterpret_cast<std::uintptr_t>(r[3] + j) + static_cast<std::uintptr_t>(2 * stride) * 4;
  _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(ahead + static_cast<std::uintptr_t>(stride) * 4), _MM_HINT_T0);
  __m512i le = _mm512_setzero_si512(), lodd = le, he = le, hodd = le;
  for (int k = 0; k < 4; ++k) {
    const __m512i x = _mm512_loadu_si512(r[k] + j), xo = _mm512_srli_epi64(x, 32);
    const __m512i tl = _mm512_set1_epi64(dwt_lo(k)), th = _mm512_set1_epi64(dwt_hi(k));
    le = _mm512_add_epi64(le, _mm512_mul_epi32(x, tl));
    lodd = _mm512_add_epi64(lodd, _mm512_mul_epi32(xo, tl));
    he = _mm512_add_epi64(he, _mm512_mul_epi32(x, th));
    hodd = _mm512_add_epi64(hodd, _mm512_mul_epi32(xo, th));
  }
  _mm512_storeu_si512(lo + j, narrow64(le, lodd, add, shift));
  _mm512_storeu_si512(hi + j, narrow64(he, hodd, add, shift));
}

// Vertical pass of scales 1..3, 16 columns at a time (see dwt_vertical_avx2).
// Each output column depends on its input column only: the tail is one more
// block ending at the last column.
EXACTVMAF_TARGET_AVX512 void dwt_vertical_avx512(const i32* src, std::ptrdiff_t stride, int w, int h, int i, int scale,
                                                 i32* lo, i32* hi) {
  if (w < 16) return dwt_vertical_row(src, stride, w, h, i, scale, lo, hi);
  const i32* r[4];
  for (int k = 0; k < 4; ++k) r[k] = src + dwt_src_index(i, k, h) * stride;
  int j = 0;
  if (dwt_vp_shift(scale) == 0 && dwt_vp_add(scale) == 0) {
    for (; j + 16 <= w; j += 16) dwt_v1_block(r, j, lo, hi);
    if (j < w) dwt_v1_block(r, w - 16, lo, hi);
    return;
  }
  const __m512i add = _mm512_set1_epi64(dwt_vp_add(scale));
  const __m128i shift = _mm_cvtsi32_si128(dwt_vp_shift(scale));
  for (; j + 16 <= w; j += 16) dwt_v23_block(r, j, add, shift, stride, lo, hi);
  if (j < w) dwt_v23_block(r, w - 16, add, shift, stride, lo, hi);
}

// Scale 1 from int16 samples (dwt1_vertical_i16_row), 32 columns at a time
// (see dwt1_v16 in adm_avx2.cpp: exact int32 sums from vpmaddwd).
EXACTVMAF_TARGET_AVX512 inline void dwt1_v32(const i16* const r[4], int j, const __m512i taps[4], std::ptrdiff_t stride,
                                             i32* lo, i32* hi) {
  // As in dwt0_v_block: fetch rows r[3] + 2 and r[3] + 3 (the band was written long before, out of cache).
  const auto ahead = reinterpret_cast<std::uintptr_t>(r[3] + j) + static_cast<std::uintptr_t>(2 * stride) * 2;
  _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(ahead + static_cast<std::uintptr_t>(stride) * 2), _MM_HINT_T0);
  const __m512i s0 = _mm512_loadu_si512(r[0] + j), s1 = _mm512_loadu_si512(r[1] + j);
  const __m512i s2 = _mm512_loadu_si512(r[2] + j), s3 = _mm512_loadu_si512(r[3] + j);
  const __m512i p01_l = _mm512_unpacklo_epi16(s0, s1), p01_h = _mm512_unpackhi_epi16(s0, s1);
  const __m512i p23_l = _mm512_unpacklo_epi16(s2, s3), p23_h = _mm512_unpackhi_epi16(s2, s3);
  // *_l holds columns 0-3, 8-11, 16-19, 24-27 and *_h the others: 64-bit index pairs put them back in order.
  const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
  const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  for (int band = 0; band < 2; ++band) {
    const __m512i t01 = taps[2 * band], t23 = taps[2 * band + 1];
    const __m512i l = _mm512_add_epi32(_mm512_madd_epi16(p01_l, t01), _mm512_madd_epi16(p23_l, t23));
    const __m512i u = _mm512_add_epi32(_mm512_madd_epi16(p01_h, t01), _mm512_madd_epi16(p23_h, t23));
    i32* dst = band ? hi : lo;
    _mm512_storeu_si512(dst + j, _mm512_permutex2var_epi64(l, first, u));
    _mm512_storeu_si512(dst + j + 16, _mm512_permutex2var_epi64(l, second, u));
  }
}

EXACTVMAF_TARGET_AVX512 void dwt1_vertical_i16_avx512(const i16* src, std::ptrdiff_t stride, int w, int h, int i,
                                                      i32* lo, i32* hi) {
  if (w < 32 || dwt_vp_shift(1) != 0 || dwt_vp_add(1) != 0)
    return avx2_kernels().dwt1_vertical_i16(src, stride, w, h, i, lo, hi);
  const i16* r[4];
  for (int k = 0; k < 4; ++k) r[k] = src + dwt_src_index(i, k, h) * stride;
  const __m512i taps[4] = {tap_pair32(dwt_lo(0), dwt_lo(1)), tap_pair32(dwt_lo(2), dwt_lo(3)),
                           tap_pair32(dwt_hi(0), dwt_hi(1)), tap_pair32(dwt_hi(2), dwt_hi(3))};
  int j = 0;
  for (; j + 32 <= w; j += 32) dwt1_v32(r, j, taps, stride, lo, hi);
  if (j < w) dwt1_v32(r, w - 32, taps, stride, lo, hi);  // one more block ending at the last column
}

// ---- decouple, scale 0 (16 samples at a time) -----------------------------------------

// The angle island as in the AVX2 kernel: int32 lanes hold the int64 dot
// product and squared norms, in [-2^31 + 2^17, 2^31]; +2^31 (wrapped to
// INT32_MIN) is put back before the float conversion.
EXACTVMAF_TARGET_AVX512 inline __mmask16 angle_mask16(__m512i dp, __m512i om, __m512i tm) {
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
// q is div_lookup[o + 32768] (gathered by the caller, early: its latency is
// what this loop waits on).
EXACTVMAF_TARGET_AVX512 inline __m512i decouple0_band16(__m512i o, __m512i t, __m512i q, __mmask16 angle, bool integral,
                                                        i32 gain_int, double gain) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i k_max = _mm512_set1_epi32(32768);
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

EXACTVMAF_TARGET_AVX512 void decouple0_avx512(const Bands3<const i16>& ref, const Bands3<const i16>& dis, int i, int j0,
                                              int j1, double gain, const i32* div_lookup, const Bands3<i16>& r,
                                              const Bands3<i16>& a) {
  // The vector gain product holds |rst * gain| < 2^31 for |gain| <= 2^15 (the option allows 1..100): scalar beyond.
  if (!(gain >= -32768.0 && gain <= 32768.0)) return decouple0_row(ref, dis, i, j0, j1, gain, div_lookup, r, a);
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
    __m512i o[3], t[3], q[3];
    for (int b = 0; b < 3; ++b) {
      o[b] = load16(o_rows[b] + j);
      t[b] = load16(t_rows[b] + j);
      q[b] = _mm512_i32gather_epi32(o[b], div_centre, 4);
    }
    // The int32 sums of two int16 x int16 products as vpmaddwd forms them: (h, v) pairs in the two halves of
    // each lane (both sums wrap the same way, +2^31 to INT32_MIN, only when all four are -2^15).
    const __m512i o_pairs = _mm512_mask_blend_epi16(0xaaaaaaaa, o[0], _mm512_slli_epi32(o[1], 16));
    const __m512i t_pairs = _mm512_mask_blend_epi16(0xaaaaaaaa, t[0], _mm512_slli_epi32(t[1], 16));
    const __m512i dp = _mm512_madd_epi16(o_pairs, t_pairs);
    const __m512i om = _mm512_madd_epi16(o_pairs, o_pairs);
    const __m512i tm = _mm512_madd_epi16(t_pairs, t_pairs);
    const __mmask16 angle = angle_mask16(dp, om, tm);
    for (int b = 0; b < 3; ++b) {
      const __m512i lim = decouple0_band16(o[b], t[b], q[b], angle, integral, gain_int, gain);
      // vpmovdw: C's truncating (int16_t) casts.
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(r_rows[b] + j), _mm512_cvtepi32_epi16(lim));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(a_rows[b] + j),
                          _mm512_cvtepi32_epi16(_mm512_sub_epi32(t[b], lim)));
    }
  }
  if (j < j1) decouple0_row(ref, dis, i, j, j1, gain, div_lookup, r, a);
}

// ---- CSF, scale 0 ---------------------------------------------------------------------

EXACTVMAF_TARGET_AVX512 void csf0_avx512(const i16* src, u32 i_rfactor, int band, int j0, int j1, i16* dst, i16* flt) {
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
EXACTVMAF_TARGET_AVX512 inline __m512i centre16(const i16* p) {
  const __m512i prod = _mm512_mullo_epi32(_mm512_abs_epi32(load16(p)), _mm512_set1_epi32(8738));
  const __m512i v = _mm512_srai_epi32(_mm512_add_epi32(prod, _mm512_set1_epi32(2048)), 12);
  return _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16);  // (int16_t)
}
// wrap32((int64{c} * abs32(v) + INT32_MIN) >> 32): bits 32..63 of the sum.
EXACTVMAF_TARGET_AVX512 inline __m512i reciprocal_term16(__m512i v, i32 c) {
  const __m512i a = _mm512_abs_epi32(v);
  const __m512i cv = _mm512_set1_epi64(c), bias = _mm512_set1_epi64(INT32_MIN);
  const __m512i e = _mm512_add_epi64(_mm512_mul_epi32(a, cv), bias);
  const __m512i o = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), cv), bias);
  return _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(e, 32), o);
}
EXACTVMAF_TARGET_AVX512 inline __m512i centre16(const i32* p) { return reciprocal_term16(load16(p), 286331153); }

// (int64{src} * u32 factor) modulo 2^64 for the low halves of 64-bit lanes.
EXACTVMAF_TARGET_AVX512 inline __m512i mul_i32_u32_even(__m512i src, __m512i factor) {
  const __m512i p = _mm512_mul_epu32(src, factor);
  const __m512i neg = _mm512_srai_epi32(_mm512_shuffle_epi32(src, static_cast<_MM_PERM_ENUM>(0xa0)), 31);
  return _mm512_sub_epi64(p, _mm512_slli_epi64(_mm512_and_si512(neg, factor), 32));
}

// csf_s123_value: bits 28..59 of src * factor + 2^27.
EXACTVMAF_TARGET_AVX512 inline __m512i csf_s123_value16(__m512i s, __m512i rf) {
  const __m512i round = _mm512_set1_epi64(i64{1} << 27);
  const __m512i e = _mm512_add_epi64(mul_i32_u32_even(s, rf), round);
  const __m512i o = _mm512_add_epi64(mul_i32_u32_even(_mm512_srli_epi64(s, 32), rf), round);
  return _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(e, 28), _mm512_slli_epi64(_mm512_srli_epi64(o, 28), 32));
}

EXACTVMAF_TARGET_AVX512 void csf_s123_avx512(const i32* src, u32 i_rfactor, int j0, int j1, i32* dst, i32* flt) {
  const __m512i rf = _mm512_set1_epi64(static_cast<i64>(i_rfactor));
  int j = j0;
  for (; j + 16 <= j1; j += 16) {
    const __m512i v = csf_s123_value16(_mm512_loadu_si512(src + j), rf);
    _mm512_storeu_si512(dst + j, v);
    _mm512_storeu_si512(flt + j, reciprocal_term16(v, 143165577));
  }
  if (j < j1) avx2_kernels().csf_s123(src, i_rfactor, j, j1, dst, flt);
}

struct Cube16 {
  __m512i add_sq, add_cub;
  __m128i shift_sq, shift_cub;
};

// Adds ((v_sq * v + add_cub) >> shift_cub) of sixteen lanes to acc (8 x
// int64), v = max(|x| - thr, 0), v_sq = wrap32((v^2 + add_sq) >> shift_sq).
EXACTVMAF_TARGET_AVX512 inline __m512i cube_sum16(__m512i acc, __m512i x, __m512i thr, const Cube16& c) {
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
EXACTVMAF_TARGET_AVX512 void thresholds16(const T* const up[3], const T* const mid[3], const T* const dn[3],
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

EXACTVMAF_TARGET_AVX512 inline i64 hsum64(__m512i v) { return static_cast<i64>(_mm512_reduce_add_epi64(v)); }

inline void add_sums(CmRowSums& s, const CmRowSums& t) {
  s.h = wrap_add(s.h, t.h);
  s.v = wrap_add(s.v, t.v);
  s.d = wrap_add(s.d, t.d);
}

EXACTVMAF_TARGET_AVX512 CmRowSums cm0_avx512(const Bands3<const i16>& src, const Bands3<const i16>& angles,
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

EXACTVMAF_TARGET_AVX512 CmRowSums cm_s123_avx512(const Bands3<const i32>& src, const Bands3<const i32>& angles,
                                                 const Bands3<const i32>& flt, const u32 i_rfactor[3], int w, int h,
                                                 int i, int j0, int j1, u32 shift_cub, i64 add_cub) {
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

// ---- denominator --------------------------------------------------------------------

EXACTVMAF_TARGET_AVX512 DenRowSums den0_avx512(const Bands3<const i16>& ref, int i, int j0, int j1) {
  const i16* rows[3] = {ref.row(0, i), ref.row(1, i), ref.row(2, i)};
  __m512i acc[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  int j = j0;
  for (; j + 16 <= j1; j += 16) {
    for (int b = 0; b < 3; ++b) {
      const __m512i x = _mm512_abs_epi32(load16(rows[b] + j));  // <= 2^15
      const __m512i sq = _mm512_mullo_epi32(x, x);                 // <= 2^30
      const __m512i e = _mm512_mul_epu32(sq, x);
      const __m512i o = _mm512_mul_epu32(_mm512_srli_epi64(sq, 32), _mm512_srli_epi64(x, 32));
      acc[b] = _mm512_add_epi64(acc[b], _mm512_add_epi64(e, o));
    }
  }
  DenRowSums s = avx2_kernels().den0(ref, i, j, j1);  // unsigned sums: any order
  s.h += static_cast<u64>(hsum64(acc[0]));
  s.v += static_cast<u64>(hsum64(acc[1]));
  s.d += static_cast<u64>(hsum64(acc[2]));
  return s;
}

// den_s123_cube of the even 32-bit halves: q = (a^2 + 2^sq) >> sq is below
// 2^33, so q * a (mod 2^64) = lo32(q) * a + (q >> 32) * a * 2^32.
EXACTVMAF_TARGET_AVX512 inline __m512i den_cube8(__m512i a, __m512i add_sq, __m128i shift_sq, __m512i add_cub,
                                                 __m128i shift_cub) {
  const __m512i q = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(a, a), add_sq), shift_sq);
  __m512i p = _mm512_mul_epu32(q, a);
  p = _mm512_add_epi64(p, _mm512_slli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(q, 32), a), 32));
  return _mm512_srl_epi64(_mm512_add_epi64(p, add_cub), shift_cub);
}

EXACTVMAF_TARGET_AVX512 DenRowSums den_s123_avx512(const Bands3<const i32>& ref, int i, int j0, int j1, u32 shift_sq,
                                                   u32 shift_cub, u64 add_cub) {
  const i32* rows[3] = {ref.row(0, i), ref.row(1, i), ref.row(2, i)};
  const __m512i add_sq = _mm512_set1_epi64(i64{1} << shift_sq);
  const __m512i add_cub_v = _mm512_set1_epi64(static_cast<i64>(add_cub));
  const __m128i ssq = _mm_cvtsi32_si128(static_cast<int>(shift_sq));
  const __m128i scub = _mm_cvtsi32_si128(static_cast<int>(shift_cub));
  __m512i acc[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  int j = j0;
  for (; j + 16 <= j1; j += 16) {
    for (int b = 0; b < 3; ++b) {
      const __m512i a = _mm512_abs_epi32(_mm512_loadu_si512(rows[b] + j));  // as uint32
      acc[b] = _mm512_add_epi64(acc[b], den_cube8(a, add_sq, ssq, add_cub_v, scub));
      acc[b] = _mm512_add_epi64(acc[b], den_cube8(_mm512_srli_epi64(a, 32), add_sq, ssq, add_cub_v, scub));
    }
  }
  DenRowSums s = avx2_kernels().den_s123(ref, i, j, j1, shift_sq, shift_cub, add_cub);
  s.h += static_cast<u64>(hsum64(acc[0]));
  s.v += static_cast<u64>(hsum64(acc[1]));
  s.d += static_cast<u64>(hsum64(acc[2]));
  return s;
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
    t.dwt0_vertical_u8 = &dwt0_vertical_avx512<std::uint8_t>;
    t.dwt0_vertical_u16 = &dwt0_vertical_avx512<std::uint16_t>;
    t.dwt0_horizontal = &dwt0_horizontal_avx512;
    t.dwt_vertical = &dwt_vertical_avx512;
    t.dwt1_vertical_i16 = &dwt1_vertical_i16_avx512;
    t.csf_s123 = &csf_s123_avx512;
    t.den0 = &den0_avx512;
    t.den_s123 = &den_s123_avx512;
    return t;
  }();
  return k;
}

}  // namespace exactvmaf::adm

#endif
