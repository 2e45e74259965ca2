// AVX2 kernels of integer VIF: the same integers as vif_math.hpp's row
// functions, eight or sixteen columns at a time; the per-pixel log2 and fp64
// islands run lane by lane through the very same scalar functions.
#include "features/vif/vif_simd.hpp"

#if EXACTVMAF_SIMD_X86
#include <immintrin.h>

#include <vector>

namespace exactvmaf::vif {
namespace {

// Two taps as the (lo, hi) int16 pair of every 32-bit lane, for vpmaddwd.
template <int Scale>
EXACTVMAF_TARGET_AVX2 inline __m256i tap_pair(int k) {
  constexpr int width = filter_width(Scale);
  const std::uint32_t lo = filter_tap<Scale>(k);
  const std::uint32_t hi = k + 1 < width ? filter_tap<Scale>(k + 1) : 0u;
  return _mm256_set1_epi32(static_cast<int>((hi << 16) | lo));
}

EXACTVMAF_TARGET_AVX2 inline __m256i load_u8x16(const std::uint8_t* p) {
  return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

EXACTVMAF_TARGET_AVX2 inline __m256i load_u32x8(const std::uint32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

EXACTVMAF_TARGET_AVX2 inline void store_interleaved(std::uint32_t* dst, __m256i lo, __m256i hi) {
  // unpack works within 128-bit halves: lo holds columns 0-3 and 8-11, hi 4-7 and 12-15.
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_permute2x128_si256(lo, hi, 0x20));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
}

// Scale 0's vertical pass for 8-bit samples, 16 columns at a time. Pairs of
// rows go through vpmaddwd with a pair of taps (taps < 2^15, samples < 2^8).
// The squares and product (< 2^16) enter as value - 2^15 (int16); the taps
// sum to 2^16, so adding 2^15 * 2^16 = 2^31 modulo 2^32 restores the sum,
// which is below 2^32 (65536 * 255^2): exact in uint32.
EXACTVMAF_TARGET_AVX2 void vertical_s0_u8(const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                                          std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                          const StatRow& t) {
  constexpr int width = filter_width(0), radius = width / 2;
  const std::uint8_t* r[width + 1];
  const std::uint8_t* d[width + 1];
  for (int k = 0; k < width; ++k) {
    const std::ptrdiff_t row = mirror(static_cast<int>(i) - radius + k, static_cast<int>(h));
    r[k] = ref + row * ref_stride;
    d[k] = dis + row * dis_stride;
  }
  const __m256i bias16 = _mm256_set1_epi16(static_cast<short>(0x8000));
  const __m256i bias32 = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  const __m256i round_mu = _mm256_set1_epi32(128);
  const __m256i zero = _mm256_setzero_si256();
  unsigned j = 0;
  for (; j + 16 <= w; j += 16) {
    __m256i mu1_lo = zero, mu1_hi = zero, mu2_lo = zero, mu2_hi = zero;
    __m256i xx_lo = bias32, xx_hi = bias32, yy_lo = bias32, yy_hi = bias32, xy_lo = bias32, xy_hi = bias32;
    for (int k = 0; k < width; k += 2) {
      const __m256i taps = tap_pair<0>(k);
      const __m256i xa = load_u8x16(r[k] + j), ya = load_u8x16(d[k] + j);
      // The unpaired last row pairs with zeros under a zero tap.
      const __m256i xb = k + 1 < width ? load_u8x16(r[k + 1] + j) : zero;
      const __m256i yb = k + 1 < width ? load_u8x16(d[k + 1] + j) : zero;
      mu1_lo = _mm256_add_epi32(mu1_lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb), taps));
      mu1_hi = _mm256_add_epi32(mu1_hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb), taps));
      mu2_lo = _mm256_add_epi32(mu2_lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(ya, yb), taps));
      mu2_hi = _mm256_add_epi32(mu2_hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(ya, yb), taps));
      const __m256i xxa = _mm256_xor_si256(_mm256_mullo_epi16(xa, xa), bias16);
      const __m256i xxb = _mm256_xor_si256(_mm256_mullo_epi16(xb, xb), bias16);
      const __m256i yya = _mm256_xor_si256(_mm256_mullo_epi16(ya, ya), bias16);
      const __m256i yyb = _mm256_xor_si256(_mm256_mullo_epi16(yb, yb), bias16);
      const __m256i xya = _mm256_xor_si256(_mm256_mullo_epi16(xa, ya), bias16);
      const __m256i xyb = _mm256_xor_si256(_mm256_mullo_epi16(xb, yb), bias16);
      xx_lo = _mm256_add_epi32(xx_lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(xxa, xxb), taps));
      xx_hi = _mm256_add_epi32(xx_hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(xxa, xxb), taps));
      yy_lo = _mm256_add_epi32(yy_lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(yya, yyb), taps));
      yy_hi = _mm256_add_epi32(yy_hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(yya, yyb), taps));
      xy_lo = _mm256_add_epi32(xy_lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(xya, xyb), taps));
      xy_hi = _mm256_add_epi32(xy_hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(xya, xyb), taps));
    }
    store_interleaved(t.mu1 + row_pad + j, _mm256_srli_epi32(_mm256_add_epi32(mu1_lo, round_mu), 8),
                      _mm256_srli_epi32(_mm256_add_epi32(mu1_hi, round_mu), 8));
    store_interleaved(t.mu2 + row_pad + j, _mm256_srli_epi32(_mm256_add_epi32(mu2_lo, round_mu), 8),
                      _mm256_srli_epi32(_mm256_add_epi32(mu2_hi, round_mu), 8));
    store_interleaved(t.xx + row_pad + j, xx_lo, xx_hi);
    store_interleaved(t.yy + row_pad + j, yy_lo, yy_hi);
    store_interleaved(t.xy + row_pad + j, xy_lo, xy_hi);
  }
  if (j < w) statistic_vertical<0, std::uint8_t, std::uint32_t>(ref, ref_stride, dis, dis_stride, h, i,
                                                                statistic_shifts(0, 8), j, w, t);
}

// Eight samples as uint32 lanes.
EXACTVMAF_TARGET_AVX2 inline __m256i load_x8(const std::uint8_t* p) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}
EXACTVMAF_TARGET_AVX2 inline __m256i load_x8(const std::uint16_t* p) {
  return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// Low 32 bits of ((v + round) >> shift) for 64-bit values in even (e) and odd (o) lanes.
EXACTVMAF_TARGET_AVX2 inline __m256i narrow_shift(__m256i e, __m256i o, __m256i round, __m128i shift) {
  const __m256i lo = _mm256_srl_epi64(_mm256_add_epi64(e, round), shift);
  const __m256i hi = _mm256_slli_epi64(_mm256_srl_epi64(_mm256_add_epi64(o, round), shift), 32);
  return _mm256_blend_epi32(lo, hi, 0xaa);
}

// The vertical pass in 64-bit lanes (any sample up to 16 bits), eight
// columns at a time: tap * x in uint32 (< 2^32), then times x in uint64.
template <int Scale, class Sample>
EXACTVMAF_TARGET_AVX2 void vertical_wide(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                         std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                         VerticalShifts s, const StatRow& t) {
  constexpr int width = filter_width(Scale), radius = width / 2;
  const Sample* r[width];
  const Sample* d[width];
  for (int k = 0; k < width; ++k) {
    const std::ptrdiff_t row = mirror(static_cast<int>(i) - radius + k, static_cast<int>(h));
    r[k] = ref + row * ref_stride;
    d[k] = dis + row * dis_stride;
  }
  const __m256i zero = _mm256_setzero_si256();
  const __m256i mu_round = _mm256_set1_epi32(static_cast<int>(s.mu_round));
  const __m128i mu_shift = _mm_cvtsi32_si128(static_cast<int>(s.mu_shift));
  const __m256i sq_round = _mm256_set1_epi64x(static_cast<long long>(s.sq_round));
  const __m128i sq_shift = _mm_cvtsi32_si128(static_cast<int>(s.sq_shift));
  unsigned j = 0;
  for (; j + 8 <= w; j += 8) {
    __m256i mu1 = zero, mu2 = zero, xx_e = zero, xx_o = zero, yy_e = zero, yy_o = zero, xy_e = zero, xy_o = zero;
    for (int k = 0; k < width; ++k) {
      const __m256i tap = _mm256_set1_epi32(static_cast<int>(filter_tap<Scale>(k)));
      const __m256i x = load_x8(r[k] + j), y = load_x8(d[k] + j);
      const __m256i fx = _mm256_mullo_epi32(x, tap), fy = _mm256_mullo_epi32(y, tap);
      mu1 = _mm256_add_epi32(mu1, fx);
      mu2 = _mm256_add_epi32(mu2, fy);
      const __m256i fx_o = _mm256_srli_epi64(fx, 32), fy_o = _mm256_srli_epi64(fy, 32);
      const __m256i x_o = _mm256_srli_epi64(x, 32), y_o = _mm256_srli_epi64(y, 32);
      xx_e = _mm256_add_epi64(xx_e, _mm256_mul_epu32(fx, x));
      xx_o = _mm256_add_epi64(xx_o, _mm256_mul_epu32(fx_o, x_o));
      yy_e = _mm256_add_epi64(yy_e, _mm256_mul_epu32(fy, y));
      yy_o = _mm256_add_epi64(yy_o, _mm256_mul_epu32(fy_o, y_o));
      xy_e = _mm256_add_epi64(xy_e, _mm256_mul_epu32(fx, y));
      xy_o = _mm256_add_epi64(xy_o, _mm256_mul_epu32(fx_o, y_o));
    }
    // (uint16_t) of the rounded mu: the sums stay below 2^32 and the results below 2^16.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.mu1 + row_pad + j),
                        _mm256_srl_epi32(_mm256_add_epi32(mu1, mu_round), mu_shift));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.mu2 + row_pad + j),
                        _mm256_srl_epi32(_mm256_add_epi32(mu2, mu_round), mu_shift));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.xx + row_pad + j), narrow_shift(xx_e, xx_o, sq_round, sq_shift));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.yy + row_pad + j), narrow_shift(yy_e, yy_o, sq_round, sq_shift));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.xy + row_pad + j), narrow_shift(xy_e, xy_o, sq_round, sq_shift));
  }
  if (j < w) statistic_vertical<Scale, Sample, std::uint64_t>(ref, ref_stride, dis, dis_stride, h, i, s, j, w, t);
}

// The even columns of a (columns 0..7) then b (8..15), each (v + 2^15) >> 16
// (< 2^16), as eight uint16.
EXACTVMAF_TARGET_AVX2 inline __m128i even_columns_u16(__m256i a, __m256i b, __m256i evens, __m256i round) {
  const __m256i ea = _mm256_permutevar8x32_epi32(_mm256_srli_epi32(_mm256_add_epi32(a, round), 16), evens);
  const __m256i eb = _mm256_permutevar8x32_epi32(_mm256_srli_epi32(_mm256_add_epi32(b, round), 16), evens);
  const __m256i both = _mm256_permute2x128_si256(ea, eb, 0x20);
  return _mm_packus_epi32(_mm256_castsi256_si128(both), _mm256_extracti128_si256(both, 1));
}

// decimate_row, eight columns at a time (tap sums < 2^32 in uint32 lanes);
// the horizontal pass filters sixteen columns and keeps the even ones.
template <int To, class Sample>
EXACTVMAF_TARGET_AVX2 void decimate_row_wide(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                             std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                             unsigned bpc, const ConvolveRow& t, std::uint16_t* out_ref,
                                             std::uint16_t* out_dis) {
  constexpr int width = filter_width(To), radius = width / 2;
  const unsigned shift = To == 1 ? bpc : 16;
  const Sample* r[width];
  const Sample* d[width];
  for (int k = 0; k < width; ++k) {
    const std::ptrdiff_t row = mirror(2 * static_cast<int>(i) - radius + k, static_cast<int>(h));
    r[k] = ref + row * ref_stride;
    d[k] = dis + row * dis_stride;
  }
  const __m256i zero = _mm256_setzero_si256();
  const __m256i v_round = _mm256_set1_epi32(static_cast<int>(1u << (shift - 1)));
  const __m128i v_shift = _mm_cvtsi32_si128(static_cast<int>(shift));
  unsigned j = 0;
  for (; j + 8 <= w; j += 8) {
    __m256i ar = zero, ad = zero;
    for (int k = 0; k < width; ++k) {
      const __m256i tap = _mm256_set1_epi32(static_cast<int>(filter_tap<To>(k)));
      ar = _mm256_add_epi32(ar, _mm256_mullo_epi32(load_x8(r[k] + j), tap));
      ad = _mm256_add_epi32(ad, _mm256_mullo_epi32(load_x8(d[k] + j), tap));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.ref + row_pad + j),
                        _mm256_srl_epi32(_mm256_add_epi32(ar, v_round), v_shift));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.dis + row_pad + j),
                        _mm256_srl_epi32(_mm256_add_epi32(ad, v_round), v_shift));
  }
  for (; j < w; ++j) {
    std::uint32_t ar = 0, ad = 0;
    for (int k = 0; k < width; ++k) {
      ar += filter_tap<To>(k) * static_cast<std::uint32_t>(r[k][j]);
      ad += filter_tap<To>(k) * static_cast<std::uint32_t>(d[k][j]);
    }
    t.ref[row_pad + j] = static_cast<std::uint16_t>((ar + (1u << (shift - 1))) >> shift);
    t.dis[row_pad + j] = static_cast<std::uint16_t>((ad + (1u << (shift - 1))) >> shift);
  }
  pad_row(t.ref, w, radius);
  pad_row(t.dis, w, radius);
  const unsigned wo = w / 2;
  const __m256i round16 = _mm256_set1_epi32(32768);
  const __m256i evens = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  unsigned jo = 0;
  // Sixteen source columns 2 jo .. 2 jo + 15 read up to 2 jo + 15 + radius <= w - 1 + radius.
  for (; jo + 8 <= wo && 2 * jo + 16 <= w; jo += 8) {
    const unsigned base = row_pad + 2 * jo - radius;
    __m256i r0 = zero, r1 = zero, d0 = zero, d1 = zero;
    for (int k = 0; k < width; ++k) {
      const __m256i tap = _mm256_set1_epi32(static_cast<int>(filter_tap<To>(k)));
      r0 = _mm256_add_epi32(r0, _mm256_mullo_epi32(load_u32x8(t.ref + base + k), tap));
      r1 = _mm256_add_epi32(r1, _mm256_mullo_epi32(load_u32x8(t.ref + base + k + 8), tap));
      d0 = _mm256_add_epi32(d0, _mm256_mullo_epi32(load_u32x8(t.dis + base + k), tap));
      d1 = _mm256_add_epi32(d1, _mm256_mullo_epi32(load_u32x8(t.dis + base + k + 8), tap));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out_ref + jo), even_columns_u16(r0, r1, evens, round16));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out_dis + jo), even_columns_u16(d0, d1, evens, round16));
  }
  for (; jo < wo; ++jo) {
    const unsigned base = row_pad + 2 * jo - radius;
    std::uint32_t ar = 0, ad = 0;
    for (int k = 0; k < width; ++k) {
      ar += filter_tap<To>(k) * t.ref[base + k];
      ad += filter_tap<To>(k) * t.dis[base + k];
    }
    out_ref[jo] = static_cast<std::uint16_t>((ar + 32768) >> 16);
    out_dis[jo] = static_cast<std::uint16_t>((ad + 32768) >> 16);
  }
}

// (uint32_t)((a * b + 2^31) >> 32) per uint32 lane.
EXACTVMAF_TARGET_AVX2 inline __m256i mul_round_hi32(__m256i a, __m256i b) {
  const __m256i half = _mm256_set1_epi64x(std::int64_t{1} << 31);
  const __m256i e = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), half), 32);
  const __m256i o = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), half);
  return _mm256_blend_epi32(e, o, 0xaa);
}

// The horizontal pass multiplies by vpmaddwd, two taps per instruction. Each
// vertical sum is split into 16-bit halves: mu1 and mu2 are below 2^16
// already (scale 0: (sum + 2^(bpc-1)) >> bpc of 16-bit taps times bpc-bit
// samples; later scales: >> 16 of 16-bit samples), xx, yy and xy (uint32)
// give a low and a high half. A half minus 2^15 is an int16, and lane c of a
// "pair row" holds columns c and c+1, so one vpmaddwd applies taps k and k+1
// to eight columns. A half's tap sum is below 2^32 (the taps sum to 2^16),
// so the wrapping int32 sum plus 2^15 * 2^16 = 2^31 is exact; a square's sum
// is hi * 2^16 + lo, and R's (uint32)((sum + 2^15) >> 16) is
// hi + ((lo / 2 + 2^14) >> 15) modulo 2^32 (halving first keeps lo + 2^15
// from overflowing and floors the same: lo + 2^15 odd means lo odd).
enum PairRow { kMu1, kMu2, kXxLo, kXxHi, kYyLo, kYyHi, kXyLo, kXyHi, kPairRows };

// The vpmaddwd steps of a scale's filter: taps (lo, hi) on columns
// (offset, offset + 1). vpmaddwd takes int16 taps; scale 3's middle tap
// (43728) is not one, so it is split in two halves on both sides of it.
struct MaddStep {
  int offset;
  std::uint32_t lo, hi;
};
struct MaddSteps {
  MaddStep step[9];
  int count;
};
template <int Scale>
constexpr MaddSteps madd_steps() {
  MaddSteps m{};
  if constexpr (Scale == 3) {
    static_assert(filter_tap<3>(1) % 2 == 0);
    m.step[0] = {0, filter_tap<3>(0), filter_tap<3>(1) / 2};
    m.step[1] = {1, filter_tap<3>(1) / 2, filter_tap<3>(2)};
    m.count = 2;
  } else {
    constexpr int width = filter_width(Scale);
    for (int k = 0; k < width; k += 2)
      m.step[m.count++] = {k, filter_tap<Scale>(k), k + 1 < width ? filter_tap<Scale>(k + 1) : 0u};
  }
  return m;
}
template <int Scale>
constexpr bool madd_steps_are_the_filter() {
  std::uint32_t sum[18] = {};
  constexpr MaddSteps m = madd_steps<Scale>();
  for (int i = 0; i < m.count; ++i) {
    if (m.step[i].lo >= 0x8000u || m.step[i].hi >= 0x8000u) return false;
    sum[m.step[i].offset] += m.step[i].lo;
    sum[m.step[i].offset + 1] += m.step[i].hi;
  }
  for (int k = 0; k < filter_width(Scale); ++k)
    if (sum[k] != filter_tap<Scale>(k)) return false;
  return sum[filter_width(Scale)] == 0;
}

// Lanes (low halves of x[c], x[c+1]) and (high halves), each half - 2^15.
inline std::uint32_t low_pair(std::uint32_t a, std::uint32_t b) {
  return ((a & 0xffffu) ^ 0x8000u) | (((b & 0xffffu) ^ 0x8000u) << 16);
}
inline std::uint32_t high_pair(std::uint32_t a, std::uint32_t b) {
  return ((a >> 16) ^ 0x8000u) | (((b >> 16) ^ 0x8000u) << 16);
}

// Pair rows of the padded vertical sums for columns [lo, hi) of the row
// arrays (entries below hi are valid); the last lane pairs with 0, which
// meets only a zero tap.
EXACTVMAF_TARGET_AVX2 void make_pair_rows(const StatRow& t, unsigned lo, unsigned hi, std::uint32_t* const* out) {
  const std::uint32_t* src[5] = {t.mu1, t.mu2, t.xx, t.yy, t.xy};
  const __m256i bias = _mm256_set1_epi32(static_cast<int>(0x80008000u));
  unsigned c = lo;
  for (; c + 9 <= hi; c += 8) {
    for (int a = 0; a < 5; ++a) {
      const __m256i v0 = load_u32x8(src[a] + c), v1 = load_u32x8(src[a] + c + 1);
      const __m256i low = _mm256_xor_si256(_mm256_blend_epi16(v0, _mm256_slli_epi32(v1, 16), 0xaa), bias);
      std::uint32_t* lo_out = out[a < 2 ? a : 2 * a - 2];
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo_out + c), low);
      if (a >= 2) {
        const __m256i high = _mm256_xor_si256(_mm256_blend_epi16(_mm256_srli_epi32(v0, 16), v1, 0xaa), bias);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[2 * a - 1] + c), high);
      }
    }
  }
  for (; c < hi; ++c) {
    for (int a = 0; a < 5; ++a) {
      const std::uint32_t x0 = src[a][c], x1 = c + 1 < hi ? src[a][c + 1] : 0u;
      out[a < 2 ? a : 2 * a - 2][c] = low_pair(x0, x1);
      if (a >= 2) out[2 * a - 1][c] = high_pair(x0, x1);
    }
  }
}

// R's (uint32)((hi * 2^16 + lo + 2^15) >> 16) from the two halves' sums.
EXACTVMAF_TARGET_AVX2 inline __m256i square_sum(__m256i lo, __m256i hi) {
  const __m256i low = _mm256_srli_epi32(_mm256_add_epi32(_mm256_srli_epi32(lo, 1), _mm256_set1_epi32(16384)), 15);
  return _mm256_add_epi32(hi, low);
}

// Horizontal pass and per-pixel statistic, eight columns at a time: the tap
// sums and the variances in vectors; pixels below the noise variance (the
// non-log branch) summed in vectors, the others through accumulate_pixel.
template <int Scale>
EXACTVMAF_TARGET_AVX2 void horizontal(const StatRow& t, unsigned w, double gain_limit, const std::uint16_t* log2_table,
                                      std::uint32_t* const* pairs, Residuals& res) {
  static_assert(madd_steps_are_the_filter<Scale>());
  constexpr int radius = filter_width(Scale) / 2;
  constexpr MaddSteps steps = madd_steps<Scale>();
  make_pair_rows(t, row_pad - radius, row_pad + w + radius, pairs);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i nsq_minus_1 = _mm256_set1_epi32(sigma_nsq - 1);
  const __m256i bias = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  __m256i non_log_sum = zero;  // 4 x int64
  std::int64_t non_log_count = 0;
  alignas(32) std::int32_t s1[8], s2[8], s12[8];
  unsigned j = 0;
  for (; j + 8 <= w; j += 8) {
    const unsigned base = row_pad + j - radius;
    __m256i acc[kPairRows];  // starting at the bias: the 2^31 the sums need back (modulo 2^32)
    for (int r = 0; r < kPairRows; ++r) acc[r] = bias;
    for (int m = 0; m < steps.count; ++m) {
      const __m256i taps = _mm256_set1_epi32(static_cast<int>((steps.step[m].hi << 16) | steps.step[m].lo));
      const unsigned at = base + static_cast<unsigned>(steps.step[m].offset);
      for (int r = 0; r < kPairRows; ++r)
        acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(load_u32x8(pairs[r] + at), taps));
    }
    const __m256i mu1 = acc[kMu1], mu2 = acc[kMu2];
    const __m256i sigma1 = _mm256_sub_epi32(square_sum(acc[kXxLo], acc[kXxHi]), mul_round_hi32(mu1, mu1));
    const __m256i sigma2 =
        _mm256_max_epi32(_mm256_sub_epi32(square_sum(acc[kYyLo], acc[kYyHi]), mul_round_hi32(mu2, mu2)), zero);
    const __m256i sigma12 = _mm256_sub_epi32(square_sum(acc[kXyLo], acc[kXyHi]), mul_round_hi32(mu1, mu2));
    const __m256i is_log = _mm256_cmpgt_epi32(sigma1, nsq_minus_1);
    const int log_lanes = _mm256_movemask_ps(_mm256_castsi256_ps(is_log));
    // Non-log lanes: sigma2 (>= 0) into the sum, one count each.
    const __m256i add = _mm256_andnot_si256(is_log, sigma2);
    non_log_sum = _mm256_add_epi64(non_log_sum, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(add)));
    non_log_sum = _mm256_add_epi64(non_log_sum, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(add, 1)));
    non_log_count += 8 - __builtin_popcount(static_cast<unsigned>(log_lanes));
    if (log_lanes != 0) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(s1), sigma1);
      _mm256_store_si256(reinterpret_cast<__m256i*>(s2), sigma2);
      _mm256_store_si256(reinterpret_cast<__m256i*>(s12), sigma12);
      for (unsigned lanes = static_cast<unsigned>(log_lanes); lanes != 0; lanes &= lanes - 1) {
        const int l = __builtin_ctz(lanes);
        accumulate_pixel(s1[l], s2[l], s12[l], gain_limit, log2_table, res);
      }
    }
  }
  alignas(32) std::int64_t sums[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(sums), non_log_sum);
  res.num_non_log += sums[0] + sums[1] + sums[2] + sums[3];
  res.den_non_log += non_log_count;
  if (j < w) statistic_horizontal<Scale>(t, j, w, gain_limit, log2_table, res);
}

template <int Scale, class Sample>
EXACTVMAF_TARGET_AVX2 Residuals statistic(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                          std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                                          double gain_limit, const std::uint16_t* log2_table, const StatRow& t) {
  constexpr int radius = filter_width(Scale) / 2;
  // The pair rows: kPairRows arrays laid out as the row arrays, kept per
  // thread (a fresh allocation per call costs page faults at 4K).
  const std::size_t n = w + 2 * row_pad;
  static thread_local std::vector<std::uint32_t> pair_store;
  if (pair_store.size() < kPairRows * n) pair_store.resize(kPairRows * n);
  std::uint32_t* pairs[kPairRows];
  for (int r = 0; r < kPairRows; ++r) pairs[r] = pair_store.data() + r * n;
  Residuals res;
  for (unsigned i = 0; i < h; ++i) {
    if constexpr (Scale == 0 && sizeof(Sample) == 1)
      vertical_s0_u8(ref, ref_stride, dis, dis_stride, w, h, i, t);
    else
      vertical_wide<Scale, Sample>(ref, ref_stride, dis, dis_stride, w, h, i, statistic_shifts(Scale, bpc), t);
    pad_row(t.mu1, w, radius);
    pad_row(t.mu2, w, radius);
    pad_row(t.xx, w, radius);
    pad_row(t.yy, w, radius);
    pad_row(t.xy, w, radius);
    horizontal<Scale>(t, w, gain_limit, log2_table, pairs, res);
  }
  return res;
}

template <int To, class Sample>
EXACTVMAF_TARGET_AVX2 void decimate(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                    std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                                    const ConvolveRow& t, std::uint16_t* out_ref, std::uint16_t* out_dis) {
  const unsigned wo = w / 2;
  for (unsigned i = 0; i < h / 2; ++i)
    decimate_row_wide<To>(ref, ref_stride, dis, dis_stride, w, h, i, bpc, t, out_ref + i * wo, out_dis + i * wo);
}

Residuals statistic_u8(int scale, const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                       std::ptrdiff_t dis_stride, unsigned w, unsigned h, double gain_limit,
                       const std::uint16_t* log2_table, const StatRow& t) {
  (void)scale;  // 8-bit samples exist at scale 0 only
  return statistic<0>(ref, ref_stride, dis, dis_stride, w, h, 8, gain_limit, log2_table, t);
}

Residuals statistic_u16(int scale, const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                        std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc, double gain_limit,
                        const std::uint16_t* log2_table, const StatRow& t) {
  return at_scale(scale, [&](auto s) {
    return statistic<s.value>(ref, ref_stride, dis, dis_stride, w, h, bpc, gain_limit, log2_table, t);
  });
}

void decimate_u8(int to, const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                 std::ptrdiff_t dis_stride, unsigned w, unsigned h, const ConvolveRow& t, std::uint16_t* out_ref,
                 std::uint16_t* out_dis) {
  (void)to;  // 8-bit samples are decimated to scale 1 only
  decimate<1>(ref, ref_stride, dis, dis_stride, w, h, 8, t, out_ref, out_dis);
}

void decimate_u16(int to, const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                  std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc, const ConvolveRow& t,
                  std::uint16_t* out_ref, std::uint16_t* out_dis) {
  at_scale<1>(to, [&](auto s) {
    decimate<s.value>(ref, ref_stride, dis, dis_stride, w, h, bpc, t, out_ref, out_dis);
  });
}

}  // namespace

// The per-pixel log branch runs lane by lane inside the statistic: its own
// entry is the scalar one.
const Kernels& avx2_kernels() {
  static const Kernels k = {"avx2", &statistic_u8, &statistic_u16, &decimate_u8, &decimate_u16,
                            scalar_kernels().accumulate_pixels};
  return k;
}

}  // namespace exactvmaf::vif
#endif
