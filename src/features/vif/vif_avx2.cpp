// AVX2 kernels of integer VIF: the same integers as vif_math.hpp's row
// functions, eight or sixteen columns at a time; the per-pixel log branch
// (log2 and fp64 islands) as the same integer and IEEE operations per lane.
#include "features/vif/vif_simd.hpp"

#include "features/vif/vif_host.hpp"

#if EXACTVMAF_SIMD_X86
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <bit>
#include <vector>

namespace exactvmaf::vif {
namespace {

EXACTVMAF_TARGET_AVX2 inline __m256i load_u8x16(const std::uint8_t* p) {
  return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// The vertical sums of a row as eight uint16 arrays in vif_simd.hpp's
// PairRow order (mu1, mu2, low and high halves of xx, yy, xy), each value
// - 2^15, column j at [row_pad + j], mirrored like the row arrays. A 256-bit
// load from column o, read as 32-bit lanes, holds the pairs (o + 2l, o + 2l + 1):
// the horizontal pass's pair rows at stride 2, with no copy.
struct HalfRows {
  std::uint16_t* a[kPairRows];
};

// Entries per array: the padded row and the slack its loads reach (the
// horizontal pass reads one entry past the padding, under a zero tap).
inline std::size_t half_row_size(unsigned w) { return w + 2 * row_pad + 16; }

inline std::uint16_t biased(std::uint32_t v) { return static_cast<std::uint16_t>(v ^ 0x8000u); }

// Columns [j0, j1) of a StatRow (the scalar tails of the vertical passes) into the halves.
inline void halves_from_stat_row(const StatRow& t, unsigned j0, unsigned j1, const HalfRows& h) {
  const std::uint32_t* sq[3] = {t.xx, t.yy, t.xy};
  for (unsigned c = row_pad + j0; c < row_pad + j1; ++c) {
    h.a[kMu1][c] = biased(t.mu1[c]);  // below 2^16
    h.a[kMu2][c] = biased(t.mu2[c]);
    for (int q = 0; q < 3; ++q) {
      h.a[kXxLo + 2 * q][c] = biased(sq[q][c] & 0xffffu);
      h.a[kXxHi + 2 * q][c] = biased(sq[q][c] >> 16);
    }
  }
}

// Column c's sums back from the halves (the horizontal pass's scalar tail).
inline VerticalSums sums_from_halves(const HalfRows& h, unsigned c) {
  const auto at = [&](int r) { return static_cast<std::uint32_t>(h.a[r][c] ^ 0x8000u); };
  return {at(kMu1), at(kMu2), (at(kXxHi) << 16) | at(kXxLo), (at(kYyHi) << 16) | at(kYyLo),
          (at(kXyHi) << 16) | at(kXyLo)};
}

EXACTVMAF_TARGET_AVX2 inline void store_u16x16(std::uint16_t* p, __m256i v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

// Sixteen uint32 values below 2^16, lo holding columns 0-3 and 8-11 and hi
// 4-7 and 12-15 (the unpacklo / unpackhi lanes), as uint16 - 2^15 in column
// order: packus works within 128-bit halves, so this order comes out sorted.
EXACTVMAF_TARGET_AVX2 inline __m256i pack_biased_x16(__m256i lo, __m256i hi) {
  return _mm256_xor_si256(_mm256_packus_epi32(lo, hi), _mm256_set1_epi16(static_cast<short>(0x8000)));
}

// Eight uint32 values below 2^16 (column order) as uint16 - 2^15.
EXACTVMAF_TARGET_AVX2 inline void store_biased_x8(std::uint16_t* p, __m256i v) {
  const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_xor_si128(packed, _mm_set1_epi16(static_cast<short>(0x8000))));
}

// a * b - 2^15 per 16-bit lane, for products below 2^16: an int16.
EXACTVMAF_TARGET_AVX2 inline __m256i biased_product_u16(__m256i a, __m256i b) {
  return _mm256_xor_si256(_mm256_mullo_epi16(a, b), _mm256_set1_epi16(static_cast<short>(0x8000)));
}

// One half of scale 0's 8-bit vertical sums for 16 columns from j (Hi: the
// unpackhi lanes, columns 4-7 and 12-15), rows K, K+1, ... of r / d under
// pairs of taps: acc = mu1, mu2, xx, yy, xy. Five accumulators per half fit
// the sixteen registers with the taps as constants.
template <bool Hi, int K = 0>
EXACTVMAF_TARGET_AVX2 inline void vertical_s0_u8_half(const std::uint8_t* const* r, const std::uint8_t* const* d,
                                                      unsigned j, __m256i* acc) {
  constexpr int width = filter_width(0);
  if constexpr (K < width) {
    constexpr std::uint32_t lo_tap = filter_tap<0>(K), hi_tap = K + 1 < width ? filter_tap<0>(K + 1) : 0u;
    const __m256i taps = _mm256_set1_epi32(static_cast<int>((hi_tap << 16) | lo_tap));
    const __m256i xa = load_u8x16(r[K] + j), ya = load_u8x16(d[K] + j);
    // The unpaired last row pairs with zeros under a zero tap.
    __m256i xb = _mm256_setzero_si256(), yb = _mm256_setzero_si256();
    if constexpr (K + 1 < width) {
      xb = load_u8x16(r[K + 1] + j);
      yb = load_u8x16(d[K + 1] + j);
    }
    // Rows K and K+1 interleaved; their squares and product are the
    // lane-wise products of these, already interleaved.
    __m256i x, y;
    if constexpr (Hi) {
      x = _mm256_unpackhi_epi16(xa, xb);
      y = _mm256_unpackhi_epi16(ya, yb);
    } else {
      x = _mm256_unpacklo_epi16(xa, xb);
      y = _mm256_unpacklo_epi16(ya, yb);
    }
    acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(x, taps));
    acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(y, taps));
    acc[2] = _mm256_add_epi32(acc[2], _mm256_madd_epi16(biased_product_u16(x, x), taps));
    acc[3] = _mm256_add_epi32(acc[3], _mm256_madd_epi16(biased_product_u16(y, y), taps));
    acc[4] = _mm256_add_epi32(acc[4], _mm256_madd_epi16(biased_product_u16(x, y), taps));
    // Keeps the sums chains, as horizontal_steps does: GCC 12 otherwise
    // reassociated them into trees and spilled the products.
    for (int q = 0; q < 5; ++q) __asm__("" : "+x"(acc[q]));
    vertical_s0_u8_half<Hi, K + 2>(r, d, j, acc);
  }
}

// Scale 0's vertical pass for 8-bit samples, 16 columns at a time. Pairs of
// rows go through vpmaddwd with a pair of taps (taps < 2^15, samples < 2^8).
// The squares and product (< 2^16) enter as value - 2^15 (int16); the taps
// sum to 2^16, so adding 2^15 * 2^16 = 2^31 modulo 2^32 restores the sum,
// which is below 2^32 (65536 * 255^2): exact in uint32.
EXACTVMAF_TARGET_AVX2 void vertical_s0_u8(const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                                          std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                          const StatRow& t, const HalfRows& out) {
  constexpr int width = filter_width(0);
  const std::uint8_t* r[width];
  const std::uint8_t* d[width];
  filter_rows<width>(ref, ref_stride, dis, dis_stride, static_cast<int>(i), h, r, d);
  const __m256i bias32 = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  const __m256i round_mu = _mm256_set1_epi32(128);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i low16 = _mm256_set1_epi32(0xffff);
  unsigned j = 0;
  for (; j + 16 <= w; j += 16) {
    __m256i lo[5] = {zero, zero, bias32, bias32, bias32}, hi[5] = {zero, zero, bias32, bias32, bias32};
    vertical_s0_u8_half<false>(r, d, j, lo);
    // The high half loads the rows again: GCC 12 otherwise kept the low
    // half's 36 loaded vectors for it, on the stack. No instruction.
    __asm__ volatile("" ::: "memory");
    vertical_s0_u8_half<true>(r, d, j, hi);
    const unsigned c = row_pad + j;
    store_u16x16(out.a[kMu1] + c, pack_biased_x16(_mm256_srli_epi32(_mm256_add_epi32(lo[0], round_mu), 8),
                                                  _mm256_srli_epi32(_mm256_add_epi32(hi[0], round_mu), 8)));
    store_u16x16(out.a[kMu2] + c, pack_biased_x16(_mm256_srli_epi32(_mm256_add_epi32(lo[1], round_mu), 8),
                                                  _mm256_srli_epi32(_mm256_add_epi32(hi[1], round_mu), 8)));
    for (int q = 0; q < 3; ++q) {
      store_u16x16(out.a[kXxLo + 2 * q] + c,
                   pack_biased_x16(_mm256_and_si256(lo[2 + q], low16), _mm256_and_si256(hi[2 + q], low16)));
      store_u16x16(out.a[kXxHi + 2 * q] + c,
                   pack_biased_x16(_mm256_srli_epi32(lo[2 + q], 16), _mm256_srli_epi32(hi[2 + q], 16)));
    }
  }
  if (j < w) {
    statistic_vertical<0, std::uint8_t, std::uint32_t>(ref, ref_stride, dis, dis_stride, h, i, statistic_shifts(0, 8),
                                                       j, w, t);
    halves_from_stat_row(t, j, w, out);
  }
}

// Eight 16-bit samples as uint32 lanes.
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
// Scale 0 with samples above 8 bits (scales 1-3: vertical_u16_madd).
template <int Scale, class Sample>
EXACTVMAF_TARGET_AVX2 void vertical_wide(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                         std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                         VerticalShifts s, const StatRow& t, const HalfRows& out) {
  constexpr int width = filter_width(Scale);
  const Sample* r[width];
  const Sample* d[width];
  filter_rows<width>(ref, ref_stride, dis, dis_stride, static_cast<int>(i), h, r, d);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i mu_round = _mm256_set1_epi32(static_cast<int>(s.mu_round));
  const __m128i mu_shift = _mm_cvtsi32_si128(static_cast<int>(s.mu_shift));
  const __m256i sq_round = _mm256_set1_epi64x(static_cast<long long>(s.sq_round));
  const __m128i sq_shift = _mm_cvtsi32_si128(static_cast<int>(s.sq_shift));
  const __m256i low16 = _mm256_set1_epi32(0xffff);
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
    const unsigned c = row_pad + j;
    store_biased_x8(out.a[kMu1] + c, _mm256_srl_epi32(_mm256_add_epi32(mu1, mu_round), mu_shift));
    store_biased_x8(out.a[kMu2] + c, _mm256_srl_epi32(_mm256_add_epi32(mu2, mu_round), mu_shift));
    const __m256i sq[3] = {narrow_shift(xx_e, xx_o, sq_round, sq_shift), narrow_shift(yy_e, yy_o, sq_round, sq_shift),
                           narrow_shift(xy_e, xy_o, sq_round, sq_shift)};
    for (int q = 0; q < 3; ++q) {
      store_biased_x8(out.a[kXxLo + 2 * q] + c, _mm256_and_si256(sq[q], low16));
      store_biased_x8(out.a[kXxHi + 2 * q] + c, _mm256_srli_epi32(sq[q], 16));
    }
  }
  if (j < w) {
    statistic_vertical<Scale, Sample, std::uint64_t>(ref, ref_stride, dis, dis_stride, h, i, s, j, w, t);
    halves_from_stat_row(t, j, w, out);
  }
}

// ---- decimation ----------------------------------------------------------------
// Both passes on vpmaddwd, two taps per instruction. The vertical pass pairs
// source rows k and k+1 (16-bit lanes unpacked into 32-bit pairs) and writes
// a 16-bit row, each value stored - 2^15 (an int16). The horizontal pass
// needs the even output columns only: a load of that row from column
// 2 jo + offset, read as 32-bit lanes, holds the pair of columns
// (2 jo + offset, 2 jo + offset + 1) in lane jo, ready for the step's taps
// (madd_steps). Sums of biased samples start at 2^31 (the taps sum to 2^16).

// Sixteen samples as 16-bit lanes: 8-bit ones as they are, 16-bit ones - 2^15.
EXACTVMAF_TARGET_AVX2 inline __m256i load_x16(const std::uint8_t* p) { return load_u8x16(p); }
EXACTVMAF_TARGET_AVX2 inline __m256i load_x16(const std::uint16_t* p) {
  return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)),
                          _mm256_set1_epi16(static_cast<short>(0x8000)));
}

// acc + the pairs' products with taps (lo, hi) (taps of 2^15 or more in two halves).
template <std::uint32_t LoTap, std::uint32_t HiTap>
EXACTVMAF_TARGET_AVX2 inline __m256i madd_taps(__m256i acc, __m256i pairs) {
  if constexpr (LoTap < 32768 && HiTap < 32768) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi32(static_cast<int>((HiTap << 16) | LoTap))));
  } else {
    constexpr std::uint32_t lo1 = LoTap / 2, lo2 = LoTap - LoTap / 2, hi1 = HiTap / 2, hi2 = HiTap - HiTap / 2;
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi32(static_cast<int>((hi1 << 16) | lo1))));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi32(static_cast<int>((hi2 << 16) | lo2))));
  }
}

// Two filter rows' taps (TapA, TapB) over two quantities' rows (a0 / a1 and
// b0 / b1: 16-bit values of rows K and K + 1): acc[0..1] += a's low and high
// halves, acc[2..3] += b's. The empty asm keeps each sum a chain (as in
// horizontal_steps), so that GCC does not reassociate into spills.
template <std::uint32_t TapA, std::uint32_t TapB>
EXACTVMAF_TARGET_AVX2 inline void madd_row_pairs(__m256i* acc, __m256i a0, __m256i a1, __m256i b0, __m256i b1) {
  acc[0] = madd_taps<TapA, TapB>(acc[0], _mm256_unpacklo_epi16(a0, a1));
  acc[1] = madd_taps<TapA, TapB>(acc[1], _mm256_unpackhi_epi16(a0, a1));
  acc[2] = madd_taps<TapA, TapB>(acc[2], _mm256_unpacklo_epi16(b0, b1));
  acc[3] = madd_taps<TapA, TapB>(acc[3], _mm256_unpackhi_epi16(b0, b1));
  for (int q = 0; q < 4; ++q) __asm__("" : "+x"(acc[q]));
}

template <int To, class Sample, int K = 0>
EXACTVMAF_TARGET_AVX2 inline void decimate_vertical_taps(const Sample* const* r, const Sample* const* d, unsigned j,
                                                         __m256i* acc) {
  constexpr int width = filter_width(To);
  if constexpr (K < width) {
    constexpr std::uint32_t tap_a = filter_tap<To>(K), tap_b = K + 1 < width ? filter_tap<To>(K + 1) : 0u;
    const __m256i xa = load_x16(r[K] + j), ya = load_x16(d[K] + j);
    __m256i xb = _mm256_setzero_si256(), yb = xb;  // the unpaired last row meets a zero tap
    if constexpr (K + 1 < width) {
      xb = load_x16(r[K + 1] + j);
      yb = load_x16(d[K + 1] + j);
    }
    madd_row_pairs<tap_a, tap_b>(acc, xa, xb, ya, yb);
    decimate_vertical_taps<To, Sample, K + 2>(r, d, j, acc);
  }
}

// (lo, hi: the unpacklo/unpackhi sums) + round >> shift (< 2^16), sixteen
// values in column order (packus keeps each 128-bit half's order), each - 2^15.
EXACTVMAF_TARGET_AVX2 inline __m256i round_pack_biased(__m256i lo, __m256i hi, __m256i round, __m128i shift) {
  const __m256i a = _mm256_srl_epi32(_mm256_add_epi32(lo, round), shift);
  const __m256i b = _mm256_srl_epi32(_mm256_add_epi32(hi, round), shift);
  return pack_biased_x16(a, b);
}

// The horizontal sums of output columns 0-7 (a) and 8-15 (b), each
// (sum + 2^15) >> 16 < 2^16, as sixteen uint16 in column order (packus
// interleaves the halves, the permute restores the order).
EXACTVMAF_TARGET_AVX2 inline __m256i round_pack_outputs(__m256i a, __m256i b) {
  const __m256i round = _mm256_set1_epi32(32768);
  const __m256i lo = _mm256_srli_epi32(_mm256_add_epi32(a, round), 16);
  const __m256i hi = _mm256_srli_epi32(_mm256_add_epi32(b, round), 16);
  return _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
}

// acc (ref columns 0-7, 8-15, dis columns 0-7, 8-15 of sixteen outputs) +=
// the madd steps from ref / dis, unrolled: a run-time loop over the steps
// rebuilt each step's taps from memory (GCC 12), as horizontal_steps notes.
template <int To, int M = 0>
EXACTVMAF_TARGET_AVX2 inline void decimate_horizontal_steps(const std::uint16_t* ref, const std::uint16_t* dis,
                                                            __m256i* acc) {
  constexpr MaddSteps steps = madd_steps<To>();
  if constexpr (M < steps.count) {
    constexpr MaddStep step = steps.step[M];
    const __m256i taps = _mm256_set1_epi32(static_cast<int>((step.hi << 16) | step.lo));
    const std::uint16_t* rows[2] = {ref + step.offset, dis + step.offset};
    for (int q = 0; q < 2; ++q)
      for (int v = 0; v < 2; ++v) {
        const __m256i pairs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[q] + 16 * v));
        acc[2 * q + v] = _mm256_add_epi32(acc[2 * q + v], _mm256_madd_epi16(pairs, taps));
      }
    for (int q = 0; q < 4; ++q) __asm__("" : "+x"(acc[q]));  // chains, as in horizontal_steps
    decimate_horizontal_steps<To, M + 1>(ref, dis, acc);
  }
}

template <int To, class Sample>
EXACTVMAF_TARGET_AVX2 void decimate_row_x16(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                            std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i, unsigned bpc,
                                            std::uint16_t* row_ref, std::uint16_t* row_dis, std::uint16_t* out_ref,
                                            std::uint16_t* out_dis) {
  static_assert(madd_steps_are_the_filter<To>());
  constexpr int width = filter_width(To), radius = width / 2;
  const unsigned shift = decimation_vertical_shift(To, bpc);
  const std::uint32_t round = std::uint32_t{1} << (shift - 1);
  const Sample* r[width];
  const Sample* d[width];
  filter_rows<width>(ref, ref_stride, dis, dis_stride, 2 * static_cast<int>(i), h, r, d);
  const __m256i start = _mm256_set1_epi32(sizeof(Sample) == 1 ? 0 : static_cast<int>(0x80000000u));
  const __m256i v_round = _mm256_set1_epi32(static_cast<int>(round));
  const __m128i v_shift = _mm_cvtsi32_si128(static_cast<int>(shift));
  unsigned j = 0;
  for (; j + 16 <= w; j += 16) {
    __m256i acc[4] = {start, start, start, start};
    decimate_vertical_taps<To, Sample>(r, d, j, acc);
    store_u16x16(row_ref + row_pad + j, round_pack_biased(acc[0], acc[1], v_round, v_shift));
    store_u16x16(row_dis + row_pad + j, round_pack_biased(acc[2], acc[3], v_round, v_shift));
  }
  for (; j < w; ++j) {
    const unsigned vr = decimation_sample<To>([&](int k) { return r[k][j]; }, shift, round);
    const unsigned vd = decimation_sample<To>([&](int k) { return d[k][j]; }, shift, round);
    row_ref[row_pad + j] = static_cast<std::uint16_t>(vr ^ 0x8000u);
    row_dis[row_pad + j] = static_cast<std::uint16_t>(vd ^ 0x8000u);
  }
  pad_row(row_ref, w, radius);
  pad_row(row_dis, w, radius);
  const unsigned wo = w / 2;
  const __m256i bias_start = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  unsigned jo = 0;
  // Sixteen outputs (two vectors of eight) read 32 entries from column
  // 2 jo - radius + offset (offset <= 2 radius): up to the last padded
  // column, w + radius - 1, while jo + 16 <= w / 2.
  for (; jo + 16 <= wo; jo += 16) {
    const unsigned base = row_pad + 2 * jo - radius;
    __m256i acc[4] = {bias_start, bias_start, bias_start, bias_start};
    decimate_horizontal_steps<To>(row_ref + base, row_dis + base, acc);
    const __m256i ar[2] = {acc[0], acc[1]}, ad[2] = {acc[2], acc[3]};
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_ref + jo), round_pack_outputs(ar[0], ar[1]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_dis + jo), round_pack_outputs(ad[0], ad[1]));
  }
  for (; jo < wo; ++jo) {
    const unsigned base = row_pad + 2 * jo - radius;
    out_ref[jo] = decimation_sample<To>([&](int k) { return row_ref[base + k] ^ 0x8000u; }, 16, 32768);
    out_dis[jo] = decimation_sample<To>([&](int k) { return row_dis[base + k] ^ 0x8000u; }, 16, 32768);
  }
}

// A vector constant read from memory. In the horizontal pass, which runs out
// of registers, GCC 12 rebuilt each _mm256_set1 constant in every iteration
// (mov, vmovd, vpbroadcastd: three instructions, two of them on port 5);
// a load instead folds into the instruction that uses it. The empty asm hides
// the array's values (its address stays the same), so the compiler cannot
// rebuild the constant from them.
template <class T, T V>
EXACTVMAF_TARGET_AVX2 inline const T* constant_lanes() {
  static constexpr std::size_t n = 32 / sizeof(T);
  alignas(32) static constexpr std::array<T, n> lanes = [] {
    std::array<T, n> a{};
    for (T& x : a) x = V;
    return a;
  }();
  const T* p = lanes.data();
  __asm__("" : "+r"(p));
  return p;
}
template <std::int32_t V>
EXACTVMAF_TARGET_AVX2 inline __m256i const_i32() {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(constant_lanes<std::int32_t, V>()));
}
template <std::int64_t V>
EXACTVMAF_TARGET_AVX2 inline __m256i const_i64() {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(constant_lanes<std::int64_t, V>()));
}
// By its bits: clang before 18 takes no floating-point template argument.
template <std::uint64_t Bits>
EXACTVMAF_TARGET_AVX2 inline __m256d const_f64() {
  return _mm256_castsi256_pd(_mm256_load_si256(reinterpret_cast<const __m256i*>(constant_lanes<std::uint64_t, Bits>())));
}

// (uint32_t)((a * b + 2^31) >> 32) per uint32 lane.
EXACTVMAF_TARGET_AVX2 inline __m256i mul_round_hi32(__m256i a, __m256i b) {
  const __m256i half = const_i64<std::int64_t{1} << 31>();
  const __m256i e = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), half), 32);
  const __m256i o = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), half);
  return _mm256_blend_epi32(e, o, 0xaa);
}

// R's (uint32)((hi * 2^16 + lo + 2^15) >> 16) from the two halves' sums.
EXACTVMAF_TARGET_AVX2 inline __m256i square_sum(__m256i lo, __m256i hi) {
  const __m256i low = _mm256_srli_epi32(_mm256_add_epi32(_mm256_srli_epi32(lo, 1), const_i32<16384>()), 15);
  return _mm256_add_epi32(hi, low);
}

EXACTVMAF_TARGET_AVX2 inline __m256i load_u16x16(const std::uint16_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// One pass of vertical_u16_madd: for the rows K, K+1, ... of r (and d), the
// 16-bit quantities Q of each row (x and y: their biased samples; xx, yy,
// xy: the low and high halves of the products, biased), rows K and K+1
// interleaved under their pair of taps. acc: quantity a's unpacklo and
// unpackhi sums, then quantity b's.
enum class U16Pass { mu, xx, yy, xy };
template <U16Pass P>
EXACTVMAF_TARGET_AVX2 inline void u16_quantities(__m256i x, __m256i y, __m256i& a, __m256i& b) {
  const __m256i bias = _mm256_set1_epi16(static_cast<short>(0x8000));
  if constexpr (P == U16Pass::mu) {
    a = _mm256_xor_si256(x, bias);
    b = _mm256_xor_si256(y, bias);
  } else {
    const __m256i u = P == U16Pass::yy ? y : x, v = P == U16Pass::xx ? x : y;
    a = _mm256_xor_si256(_mm256_mullo_epi16(u, v), bias);  // low 16 bits of the product
    b = _mm256_xor_si256(_mm256_mulhi_epu16(u, v), bias);  // high 16 bits
  }
}
template <int Scale, U16Pass P, int K = 0>
EXACTVMAF_TARGET_AVX2 inline void vertical_u16_pass(const std::uint16_t* const* r, const std::uint16_t* const* d,
                                                    unsigned j, __m256i* acc) {
  constexpr int width = filter_width(Scale);
  if constexpr (K < width) {
    constexpr std::uint32_t tap_a = filter_tap<Scale>(K), tap_b = K + 1 < width ? filter_tap<Scale>(K + 1) : 0u;
    __m256i a0, b0, a1 = _mm256_setzero_si256(), b1 = a1;  // the unpaired last row meets a zero tap
    u16_quantities<P>(load_u16x16(r[K] + j), load_u16x16(d[K] + j), a0, b0);
    if constexpr (K + 1 < width) u16_quantities<P>(load_u16x16(r[K + 1] + j), load_u16x16(d[K + 1] + j), a1, b1);
    madd_row_pairs<tap_a, tap_b>(acc, a0, a1, b0, b1);
    vertical_u16_pass<Scale, P, K + 2>(r, d, j, acc);
  }
}

// The sums of one pass, each started at 2^31 (the taps sum to 2^16: that
// restores the bias of the 16-bit quantities, modulo 2^32).
template <int Scale, U16Pass P>
EXACTVMAF_TARGET_AVX2 inline void vertical_u16_sums(const std::uint16_t* const* r, const std::uint16_t* const* d,
                                                    unsigned j, __m256i* acc) {
  const __m256i start = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  for (int q = 0; q < 4; ++q) acc[q] = start;
  vertical_u16_pass<Scale, P>(r, d, j, acc);
}

// R's (uint32)((sum + 2^15) >> 16) of a square's sum from the sums of its
// low (lo) and high (hi) 16-bit halves: hi + ((lo / 2 + 2^14) >> 15), as
// square_sum, written as biased uint16 halves in column order (lo_l, hi_l:
// the unpacklo sums; lo_h, hi_h: the unpackhi ones).
EXACTVMAF_TARGET_AVX2 inline void store_square_halves(__m256i lo_l, __m256i lo_h, __m256i hi_l, __m256i hi_h,
                                                      std::uint16_t* out_lo, std::uint16_t* out_hi) {
  const __m256i low16 = _mm256_set1_epi32(0xffff);
  const __m256i l = square_sum(lo_l, hi_l), h = square_sum(lo_h, hi_h);
  store_u16x16(out_lo, pack_biased_x16(_mm256_and_si256(l, low16), _mm256_and_si256(h, low16)));
  store_u16x16(out_hi, pack_biased_x16(_mm256_srli_epi32(l, 16), _mm256_srli_epi32(h, 16)));
}

// The vertical pass of scales 1-3 (16-bit samples, shifts 16 and 16) on
// vpmaddwd, sixteen columns at a time, in four passes over the rows (mu1
// and mu2; xx; yy; xy) of four sums each: the products' low and high 16-bit
// halves (vpmullw, vpmulhuw) are summed apart, each sum below 2^32 (halves
// < 2^16, taps summing to 2^16), and combined as the horizontal pass does.
// Where vertical_wide needed 64-bit lanes, two vpmulld and six vpmuludq per
// tap and eight columns.
template <int Scale>
EXACTVMAF_TARGET_AVX2 void vertical_u16_madd(const std::uint16_t* ref, std::ptrdiff_t ref_stride,
                                             const std::uint16_t* dis, std::ptrdiff_t dis_stride, unsigned w,
                                             unsigned h, unsigned i, const StatRow& t, const HalfRows& out) {
  static_assert(Scale >= 1);
  constexpr int width = filter_width(Scale);
  const std::uint16_t* r[width];
  const std::uint16_t* d[width];
  filter_rows<width>(ref, ref_stride, dis, dis_stride, static_cast<int>(i), h, r, d);
  const __m256i round = _mm256_set1_epi32(32768);
  unsigned j = 0;
  for (; j + 16 <= w; j += 16) {
    const unsigned c = row_pad + j;
    __m256i acc[4];
    vertical_u16_sums<Scale, U16Pass::mu>(r, d, j, acc);
    // (uint16_t) of the rounded mu: the sums stay below 2^32 and the results below 2^16.
    store_u16x16(out.a[kMu1] + c, pack_biased_x16(_mm256_srli_epi32(_mm256_add_epi32(acc[0], round), 16),
                                                  _mm256_srli_epi32(_mm256_add_epi32(acc[1], round), 16)));
    store_u16x16(out.a[kMu2] + c, pack_biased_x16(_mm256_srli_epi32(_mm256_add_epi32(acc[2], round), 16),
                                                  _mm256_srli_epi32(_mm256_add_epi32(acc[3], round), 16)));
    vertical_u16_sums<Scale, U16Pass::xx>(r, d, j, acc);
    store_square_halves(acc[0], acc[1], acc[2], acc[3], out.a[kXxLo] + c, out.a[kXxHi] + c);
    vertical_u16_sums<Scale, U16Pass::yy>(r, d, j, acc);
    store_square_halves(acc[0], acc[1], acc[2], acc[3], out.a[kYyLo] + c, out.a[kYyHi] + c);
    vertical_u16_sums<Scale, U16Pass::xy>(r, d, j, acc);
    store_square_halves(acc[0], acc[1], acc[2], acc[3], out.a[kXyLo] + c, out.a[kXyHi] + c);
  }
  if (j < w) {
    statistic_vertical<Scale, std::uint16_t, std::uint64_t>(ref, ref_stride, dis, dis_stride, h, i,
                                                            statistic_shifts(Scale, 16), j, w, t);
    halves_from_stat_row(t, j, w, out);
  }
}

// ---- the per-pixel log branch in vectors ------------------------------------

// table[top - 32768] + 2048 k per lane (top in [2^15, 2^16)).
EXACTVMAF_TARGET_AVX2 inline __m256i log2_from_top(__m256i top, __m256i k, const std::uint16_t* table) {
  const __m256i index = _mm256_sub_epi32(top, const_i32<log2_table_first>());
  const __m256i entry = _mm256_and_si256(
      _mm256_i32gather_epi32(reinterpret_cast<const int*>(table), index, 2), const_i32<0xffff>());
  return _mm256_add_epi32(entry, _mm256_slli_epi32(k, 11));
}

// log2_q11_u32 per lane, 2^16 <= x < 2^32. Its shift 16 - clz(x) is
// floor(log2 x) - 15 (AVX2 has no lzcnt): x >> 8 (< 2^24) converts to float
// exactly, with exponent floor(log2 x) - 8 (x >= 2^8).
EXACTVMAF_TARGET_AVX2 inline __m256i log2_q11_u32x8(__m256i x, const std::uint16_t* table) {
  const __m256i biased = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(_mm256_srli_epi32(x, 8))), 23);
  const __m256i k = _mm256_sub_epi32(biased, const_i32<127 - 8 + 15>());
  return log2_from_top(_mm256_srlv_epi32(x, k), k, table);
}

// The low 32 bits of the 64-bit lanes of a then b, in lane order.
EXACTVMAF_TARGET_AVX2 inline __m256i narrow_u64x8(__m256i a, __m256i b) {
  alignas(32) static constexpr std::int32_t order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  const std::int32_t* p = order;
  __asm__("" : "+r"(p));  // a load, as constant_lanes
  return _mm256_permutevar8x32_epi32(_mm256_blend_epi32(a, _mm256_slli_epi64(b, 32), 0xaa),
                                     _mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
}

// log2_q11_u64 of four integers lo and four hi held exactly as doubles,
// 2^15 <= x < 2^53, as eight int32 lanes in the order lo, hi. With x's
// exponent e = floor(log2 x), the shift 48 - clz(x) is k = e - 15, and
// x >> k = 2^15 + (the top 15 bits of the stored mantissa): the table index
// is those bits, with no shift by k.
EXACTVMAF_TARGET_AVX2 inline __m256i log2_q11_exact_f64x8(__m256d lo, __m256d hi, const std::uint16_t* table) {
  const __m256i bits_lo = _mm256_castpd_si256(lo), bits_hi = _mm256_castpd_si256(hi);
  const __m256i index = _mm256_and_si256(
      narrow_u64x8(_mm256_srli_epi64(bits_lo, 37), _mm256_srli_epi64(bits_hi, 37)), const_i32<0x7fff>());
  const __m256i k = _mm256_sub_epi32(narrow_u64x8(_mm256_srli_epi64(bits_lo, 52), _mm256_srli_epi64(bits_hi, 52)),
                                     const_i32<1023 + 15>());
  const __m256i entry = _mm256_and_si256(
      _mm256_i32gather_epi32(reinterpret_cast<const int*>(table), index, 2), const_i32<0xffff>());
  return _mm256_add_epi32(entry, _mm256_slli_epi32(k, 11));
}

EXACTVMAF_TARGET_AVX2 inline void add_i32x8_to_i64x4(__m256i& acc, __m256i v) {
  acc = _mm256_add_epi64(acc, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)));
  acc = _mm256_add_epi64(acc, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
}

// The log branch's sums: 4 x int64 each, and 8 x int32 of the groups since
// the last spill. A lane's den term is in [0, 15 * 2048] and its num term in
// [0, 53 * 2048] (log2_q11 of numer1_tmp >= numer1, both below 2^53), so
// 8192 groups stay below 2^30 in int32: spilled every spill_groups groups.
struct LogSums {
  __m256i den_log, num_log;
  __m256i den32 = _mm256_setzero_si256(), num32 = _mm256_setzero_si256();
  unsigned groups = 0;
  static constexpr unsigned spill_groups = 8192;
  EXACTVMAF_TARGET_AVX2 void spill() {
    add_i32x8_to_i64x4(den_log, den32);
    add_i32x8_to_i64x4(num_log, num32);
    den32 = num32 = _mm256_setzero_si256();
    groups = 0;
  }
};

// accumulate_pixel's log branch for the lanes of is_log (exactly the lanes with sigma1 >= sigma_nsq;
// sigma2 already clamped at 0): the same integer steps, the fp64 islands as
// the same IEEE operations per lane in the same order. 0 <= gain_limit <=
// max_vector_gain_limit. Ranges where the branch computes numer1_tmp
// (sigma12 > 0, sigma2 > 0): 0 <= g = min(g_raw, limit) <= 2^10, so
// 0 <= p = g * g * sigma1 < 2^20 * 2^31 (1 + 2^-52)^2 < 2^52: its
// truncation (roundpd toward zero) is an integer below 2^52, equal to
// x86_trunc_i64's, and numer1_tmp = trunc(p) + max(sv, 0) + sigma_nsq is a
// sum of integers below 2^53, exact in double in any order.
EXACTVMAF_TARGET_AVX2 inline void log_branch_x8(__m256i sigma1, __m256i sigma2, __m256i sigma12, __m256i is_log,
                                                __m256d gain_limit, const std::uint16_t* table, LogSums& sums) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i nsq = const_i32<sigma_nsq>();
  // s1 = max(sigma1, sigma_nsq): sigma1 on the lanes of is_log (exactly
  // those with sigma1 >= sigma_nsq), sigma_nsq on the others.
  const __m256i s1 = _mm256_max_epi32(sigma1, nsq);
  // den_log: log2_q11_u32(sigma_nsq + sigma1) - 2048 * 17; the other lanes
  // look up sigma_nsq + sigma_nsq and are dropped.
  const __m256i x = _mm256_add_epi32(s1, nsq);
  const __m256i den = _mm256_sub_epi32(log2_q11_u32x8(x, table), const_i32<log2_sigma_nsq_q11>());
  if (++sums.groups == LogSums::spill_groups) sums.spill();
  sums.den32 = _mm256_add_epi32(sums.den32, _mm256_and_si256(den, is_log));
  // num_log where also sigma12 > 0 and sigma2 > 0 (m). Lanes outside m take
  // sigma2 = sigma12 = 0 (and s1 >= sigma_nsq > 0): gain 0, sv = 0,
  // numer1_tmp = numer1, so they add 0.
  const __m256i m = _mm256_and_si256(
      is_log, _mm256_and_si256(_mm256_cmpgt_epi32(sigma12, zero), _mm256_cmpgt_epi32(sigma2, zero)));
  if (_mm256_testz_si256(m, m)) return;
  const __m256i s2 = _mm256_and_si256(sigma2, m), s12 = _mm256_and_si256(sigma12, m);
  const __m256d eps = const_f64<std::bit_cast<std::uint64_t>(gain_eps)>();
  const __m256d nsq_d = const_f64<std::bit_cast<std::uint64_t>(static_cast<double>(sigma_nsq))>();
  const __m128i zero4 = _mm_setzero_si128();
  __m128i sv[2];
  __m256d numer1_tmp[2];
  const __m128i s1_half[2] = {_mm256_castsi256_si128(s1), _mm256_extracti128_si256(s1, 1)};
  const __m128i s2_half[2] = {_mm256_castsi256_si128(s2), _mm256_extracti128_si256(s2, 1)};
  const __m128i s12_half[2] = {_mm256_castsi256_si128(s12), _mm256_extracti128_si256(s12, 1)};
  for (int half = 0; half < 2; ++half) {
    const __m256d d1 = _mm256_cvtepi32_pd(s1_half[half]), d2 = _mm256_cvtepi32_pd(s2_half[half]);
    const __m256d d12 = _mm256_cvtepi32_pd(s12_half[half]);
    const __m256d g_raw = _mm256_div_pd(d12, _mm256_add_pd(d1, eps));
    // cvttpd2dq: INT32_MIN out of range, as x86_trunc_i32.
    sv[half] = _mm_max_epi32(_mm256_cvttpd_epi32(_mm256_sub_pd(d2, _mm256_mul_pd(g_raw, d12))), zero4);
    // min_gain: g_raw < limit ? g_raw : limit, as (v)minpd.
    const __m256d g = _mm256_min_pd(g_raw, gain_limit);
    const __m256d gain_sq_variance =
        _mm256_round_pd(_mm256_mul_pd(_mm256_mul_pd(g, g), d1), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    numer1_tmp[half] = _mm256_add_pd(gain_sq_variance, _mm256_add_pd(_mm256_cvtepi32_pd(sv[half]), nsq_d));
  }
  // numer1 = max(sv, 0) + sigma_nsq < 2^32.
  const __m256i numer1 = _mm256_add_epi32(_mm256_set_m128i(sv[1], sv[0]), nsq);
  // log2_q11_u64 of a uint32 is log2_q11_u32 (48 - clz64 = 16 - clz32).
  sums.num32 = _mm256_add_epi32(sums.num32, _mm256_sub_epi32(log2_q11_exact_f64x8(numer1_tmp[0], numer1_tmp[1], table),
                                                             log2_q11_u32x8(numer1, table)));
}

// The largest gain limit log_branch_x8 takes (the options allow [1, 100]).
inline constexpr double max_vector_gain_limit = 1024.0;

// Whether log_branch_x8 may run: its gathers need the padded table (the one
// log2_table() returns), and its ranges need 0 <= gain limit <= max_vector_gain_limit (not NaN).
inline bool vector_log_branch(double gain_limit, const std::uint16_t* log2_table) {
  return gain_limit >= 0.0 && gain_limit <= max_vector_gain_limit && log2_table == vif::log2_table();
}

// accumulate_pixel over n pixels given as arrays, eight at a time (tests
// reach the vector log branch this way with any values).
EXACTVMAF_TARGET_AVX2 Residuals accumulate_pixels(const std::int32_t* s1, const std::int32_t* s2,
                                                  const std::int32_t* s12, std::size_t n, double gain_limit,
                                                  const std::uint16_t* log2_table) {
  if (!vector_log_branch(gain_limit, log2_table))
    return scalar_kernels().accumulate_pixels(s1, s2, s12, n, gain_limit, log2_table);
  const __m256i zero = _mm256_setzero_si256(), nsq_minus_1 = _mm256_set1_epi32(sigma_nsq - 1);
  const __m256d limit = _mm256_set1_pd(gain_limit);
  LogSums sums{zero, zero};
  __m256i non_log_sum = zero;
  Residuals res;
  std::size_t p = 0;
  for (; p + 8 <= n; p += 8) {
    const __m256i sigma1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s1 + p));
    const __m256i sigma2 = _mm256_max_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s2 + p)), zero);
    const __m256i sigma12 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s12 + p));
    const __m256i is_log = _mm256_cmpgt_epi32(sigma1, nsq_minus_1);
    log_branch_x8(sigma1, sigma2, sigma12, is_log, limit, log2_table, sums);
    const __m256i add = _mm256_andnot_si256(is_log, sigma2);
    non_log_sum = _mm256_add_epi64(non_log_sum, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(add)));
    non_log_sum = _mm256_add_epi64(non_log_sum, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(add, 1)));
    res.den_non_log += 8 - __builtin_popcount(static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(is_log))));
  }
  alignas(32) std::int64_t lanes[3][4];
  sums.spill();
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[0]), sums.den_log);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[1]), sums.num_log);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[2]), non_log_sum);
  for (int l = 0; l < 4; ++l) {
    res.den_log += lanes[0][l];
    res.num_log += lanes[1][l];
    res.num_non_log += lanes[2][l];
  }
  for (; p < n; ++p) accumulate_pixel(s1[p], s2[p], s12[p], gain_limit, log2_table, res);
  return res;
}

// acc[r] += the madd steps from `base` on half row r, unrolled (a loop over
// the steps rebuilt each step's taps at run time, GCC 12). The empty asm
// statements emit nothing and change no value; they only steer GCC's
// register use (below).
template <int Scale, int M = 0>
EXACTVMAF_TARGET_AVX2 inline void horizontal_steps(const HalfRows& h, unsigned base, __m256i* acc) {
  constexpr MaddSteps steps = madd_steps<Scale>();
  if constexpr (M < steps.count) {
    constexpr MaddStep step = steps.step[M];
    __m256i taps = _mm256_set1_epi32(static_cast<int>((step.hi << 16) | step.lo));
    __asm__("" : "+x"(taps));  // in a register: the loads of the rows are the madds' memory operands
    const unsigned at = base + static_cast<unsigned>(step.offset);
    for (int r = 0; r < kPairRows; ++r) {
      const __m256i pairs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h.a[r] + at));
      acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(pairs, taps));
      // Keeps the sum a chain: reassociated into a tree, the 72 products
      // were spilled to the stack (GCC 12).
      __asm__("" : "+x"(acc[r]));
    }
    horizontal_steps<Scale, M + 1>(h, base, acc);
  }
}

// The horizontal pass's columns [j0, j1) one by one from the halves.
template <int Scale>
void horizontal_tail(const HalfRows& h, unsigned j0, unsigned j1, double gain_limit, const std::uint16_t* log2_table,
                     Residuals& res) {
  constexpr int radius = filter_width(Scale) / 2;
  for (unsigned j = j0; j < j1; ++j) {
    const unsigned base = row_pad + j - radius;
    const Sigmas s =
        horizontal_sigmas<Scale>([&](int k) { return sums_from_halves(h, base + static_cast<unsigned>(k)); });
    accumulate_pixel(s.sigma1_sq, s.sigma2_sq, s.sigma12, gain_limit, log2_table, res);
  }
}

#ifndef EXACTVMAF_VIF_AVX2_VECTOR_LOG_MIN
#define EXACTVMAF_VIF_AVX2_VECTOR_LOG_MIN 3
#endif
inline constexpr int vector_log_min = EXACTVMAF_VIF_AVX2_VECTOR_LOG_MIN;

// Horizontal pass and per-pixel statistic, sixteen columns at a time as the
// even then the odd eight (the pixels' sums are integers: any order): the tap
// sums and the variances in vectors; pixels below the noise variance (the
// non-log branch) summed in vectors, the others through log_branch_x8 (scale
// 0) or accumulate_pixel lane by lane. The loads reach column
// j + 16 + radius at most (the last step's offset 2 radius, odd pass), one
// past the padding, and only under a zero tap (the filters have odd widths).
template <int Scale>
EXACTVMAF_TARGET_AVX2 void horizontal(const HalfRows& halves, unsigned w, double gain_limit,
                                      const std::uint16_t* log2_table, Residuals& res) {
  static_assert(madd_steps_are_the_filter<Scale>());
  constexpr int radius = filter_width(Scale) / 2;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i nsq_minus_1 = _mm256_set1_epi32(sigma_nsq - 1);
  const __m256i bias = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  __m256i non_log_sum = zero;  // 4 x int64
  std::int64_t non_log_count = 0;
  alignas(32) std::int32_t s1[8], s2[8], s12[8];
  // The vector log branch for groups with at least vector_log_min log
  // lanes, lane by lane below that (few lanes: the scalar branch costs less).
  const bool vector_log = vector_log_branch(gain_limit, log2_table);
  const __m256d limit = _mm256_set1_pd(gain_limit);
  LogSums log_sums{zero, zero};
  const unsigned w16 = w & ~15u;
  unsigned j = 0;
  for (; j < w16; j += 8) {
    // j % 16 == 0: the even columns of the block from j; 8: the odd ones of the block from j - 8.
    const unsigned base = row_pad + (j & ~15u) - radius + (j & 8u ? 1u : 0u);
    __m256i acc[kPairRows];  // starting at the bias: the 2^31 the sums need back (modulo 2^32)
    for (int r = 0; r < kPairRows; ++r) acc[r] = bias;
    horizontal_steps<Scale>(halves, base, acc);
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
    if (vector_log && __builtin_popcount(static_cast<unsigned>(log_lanes)) >= vector_log_min) {
      log_branch_x8(sigma1, sigma2, sigma12, is_log, limit, log2_table, log_sums);
    } else if (log_lanes != 0) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(s1), sigma1);
      _mm256_store_si256(reinterpret_cast<__m256i*>(s2), sigma2);
      _mm256_store_si256(reinterpret_cast<__m256i*>(s12), sigma12);
      for (unsigned lanes = static_cast<unsigned>(log_lanes); lanes != 0; lanes &= lanes - 1) {
        const int l = __builtin_ctz(lanes);
        accumulate_pixel(s1[l], s2[l], s12[l], gain_limit, log2_table, res);
      }
    }
  }
  alignas(32) std::int64_t sums[3][4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(sums[0]), non_log_sum);
  log_sums.spill();
  _mm256_store_si256(reinterpret_cast<__m256i*>(sums[1]), log_sums.den_log);
  _mm256_store_si256(reinterpret_cast<__m256i*>(sums[2]), log_sums.num_log);
  for (int l = 0; l < 4; ++l) {
    res.num_non_log += sums[0][l];
    res.den_log += sums[1][l];
    res.num_log += sums[2][l];
  }
  res.den_non_log += non_log_count;
  if (j < w) horizontal_tail<Scale>(halves, j, w, gain_limit, log2_table, res);
}

template <int Scale, class Sample>
EXACTVMAF_TARGET_AVX2 Residuals statistic(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                          std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                                          double gain_limit, const std::uint16_t* log2_table, const StatRow& t) {
  constexpr int radius = filter_width(Scale) / 2;
  // The halves, kept per thread (a fresh allocation per call costs page faults at 4K).
  const std::size_t n = half_row_size(w);
  static thread_local std::vector<std::uint16_t> half_store;
  if (half_store.size() < kPairRows * n) half_store.resize(kPairRows * n);
  HalfRows halves;
  for (int r = 0; r < kPairRows; ++r) halves.a[r] = half_store.data() + r * n;
  Residuals res;
  for (unsigned i = 0; i < h; ++i) {
    if constexpr (Scale == 0 && sizeof(Sample) == 1)
      vertical_s0_u8(ref, ref_stride, dis, dis_stride, w, h, i, t, halves);
    else if constexpr (Scale >= 1 && sizeof(Sample) == 2)
      vertical_u16_madd<Scale>(ref, ref_stride, dis, dis_stride, w, h, i, t, halves);
    else
      vertical_wide<Scale, Sample>(ref, ref_stride, dis, dis_stride, w, h, i, statistic_shifts(Scale, bpc), t, halves);
    for (int r = 0; r < kPairRows; ++r) pad_row(halves.a[r], w, radius);
    horizontal<Scale>(halves, w, gain_limit, log2_table, res);
  }
  return res;
}

template <int To, class Sample>
EXACTVMAF_TARGET_AVX2 void decimate(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                    std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                                    std::uint16_t* out_ref, std::uint16_t* out_dis) {
  std::uint16_t* row_ref = decimation_rows(w);
  std::uint16_t* row_dis = row_ref + decimation_row_stride(w);
  const unsigned wo = w / 2;
  for (unsigned i = 0; i < h / 2; ++i)
    decimate_row_x16<To>(ref, ref_stride, dis, dis_stride, w, h, i, bpc, row_ref, row_dis, out_ref + i * wo,
                         out_dis + i * wo);
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
  (void)t;   // the 16-bit rows of decimation_rows() instead
  decimate<1>(ref, ref_stride, dis, dis_stride, w, h, 8, out_ref, out_dis);
}

void decimate_u16(int to, const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                  std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc, const ConvolveRow& t,
                  std::uint16_t* out_ref, std::uint16_t* out_dis) {
  (void)t;
  at_scale<1>(to, [&](auto s) { decimate<s.value>(ref, ref_stride, dis, dis_stride, w, h, bpc, out_ref, out_dis); });
}

}  // namespace

const Kernels& avx2_kernels() {
  static const Kernels k = {"avx2", &statistic_u8, &statistic_u16, &decimate_u8, &decimate_u16, &accumulate_pixels};
  return k;
}

}  // namespace exactvmaf::vif
#endif
