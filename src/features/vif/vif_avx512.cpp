// AVX-512 kernels of integer VIF (AVX512F/BW/VL/DQ plus AVX512-VNNI): the
// same integers as vif_math.hpp's row functions, sixteen or thirty-two columns
// at a time; the per-pixel log2 and fp64 islands run lane by lane through the
// very same scalar functions.
//
// The filters' tap sums go through vpdpwssd (signed 16-bit products summed
// into wrapping 32-bit lanes). Unsigned 16-bit values enter as value - 2^15;
// the taps of every scale sum to 2^16, so the bias adds up to -2^31, undone
// modulo 2^32 by starting the accumulator at 2^31. A 32-bit value v (the
// vertical pass's squares and product) is filtered as its two 16-bit halves,
// each sum exact in uint32 (< 2^16 * 2^16), and recombined:
// (2^16 hi + lo + 2^15) >> 16 = hi + (lo >> 16) + (((lo & 0xffff) + 2^15) >> 16).
// A tap of 2^15 or more (scale 3's 43728) goes in as two halves.
#include "features/vif/vif_simd.hpp"

#include "features/vif/vif_host.hpp"

#if EXACTVMAF_SIMD_X86
// gcc 12's AVX-512 intrinsics start from _mm512_undefined_* values and trip these (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>

namespace exactvmaf::vif {
namespace {

// acc += sum over the lanes' 16-bit pairs of a * (lo_tap, hi_tap); taps < 2^16.
template <std::uint32_t LoTap, std::uint32_t HiTap>
EXACTVMAF_TARGET_AVX512 inline __m512i dp_taps(__m512i acc, __m512i a) {
  if constexpr (LoTap < 32768 && HiTap < 32768) {
    return _mm512_dpwssd_epi32(acc, a, _mm512_set1_epi32(static_cast<int>((HiTap << 16) | LoTap)));
  } else {
    constexpr std::uint32_t lo1 = LoTap / 2, lo2 = LoTap - LoTap / 2, hi1 = HiTap / 2, hi2 = HiTap - HiTap / 2;
    acc = _mm512_dpwssd_epi32(acc, a, _mm512_set1_epi32(static_cast<int>((hi1 << 16) | lo1)));
    return _mm512_dpwssd_epi32(acc, a, _mm512_set1_epi32(static_cast<int>((hi2 << 16) | lo2)));
  }
}

EXACTVMAF_TARGET_AVX512 inline __m512i load_u32x16(const std::uint32_t* p) { return _mm512_loadu_si512(p); }

// uint32 lanes of (2^16 hi + lo + 2^15) >> 16, modulo 2^32 (upstream's cast).
EXACTVMAF_TARGET_AVX512 inline __m512i recombine_halves(__m512i lo, __m512i hi) {
  const __m512i low16 = _mm512_set1_epi32(0xffff), half = _mm512_set1_epi32(0x8000);
  const __m512i carry = _mm512_srli_epi32(_mm512_add_epi32(_mm512_and_si512(lo, low16), half), 16);
  return _mm512_add_epi32(_mm512_add_epi32(hi, _mm512_srli_epi32(lo, 16)), carry);
}

// (uint32_t)((a * b + 2^31) >> 32) per uint32 lane.
EXACTVMAF_TARGET_AVX512 inline __m512i mul_round_hi32(__m512i a, __m512i b) {
  const __m512i half = _mm512_set1_epi64(std::int64_t{1} << 31);
  const __m512i e = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epu32(a, b), half), 32);
  const __m512i o = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), half);
  return _mm512_mask_blend_epi32(0xaaaa, e, o);
}

// The horizontal pass runs on pair rows (vif_simd.hpp) built for a chunk of
// output columns at a time, so that they stay in the L1 cache; one vpdpwssd
// then applies two taps (half the instructions of one tap per 32-bit lane).
constexpr unsigned kChunkColumns = 256;
constexpr unsigned kChunkPairs = kChunkColumns + 16;  // + the taps' reach past the chunk (<= 16)
using ChunkPairs = std::uint32_t[kPairRows][kChunkPairs];

// Pair rows of the padded row arrays from entry c0, n entries (a multiple of
// 16; entries up to c0 + n are read, within the rows' slack).
EXACTVMAF_TARGET_AVX512 inline void make_pair_rows(const StatRow& t, unsigned c0, unsigned n, ChunkPairs& out) {
  const std::uint32_t* src[5] = {t.mu1 + c0, t.mu2 + c0, t.xx + c0, t.yy + c0, t.xy + c0};
  const __m512i bias = _mm512_set1_epi32(static_cast<int>(0x80008000u));
  constexpr __mmask32 odd_halves = 0xaaaaaaaau;
  for (unsigned c = 0; c < n; c += 16) {
    for (int a = 0; a < 5; ++a) {
      const __m512i v0 = load_u32x16(src[a] + c), v1 = load_u32x16(src[a] + c + 1);
      const __m512i low = _mm512_mask_blend_epi16(odd_halves, v0, _mm512_slli_epi32(v1, 16));
      _mm512_store_si512(out[a < 2 ? a : 2 * a - 2] + c, _mm512_xor_si512(low, bias));
      if (a >= 2) {
        const __m512i high = _mm512_mask_blend_epi16(odd_halves, _mm512_srli_epi32(v0, 16), v1);
        _mm512_store_si512(out[2 * a - 1] + c, _mm512_xor_si512(high, bias));
      }
    }
  }
}

// table[(x >> k) - 32768] for the lanes of m (zero elsewhere).
EXACTVMAF_TARGET_AVX512 inline __m256i gather_log2_entry(__m256i index, __mmask8 m, const std::uint16_t* table) {
  const __m256i v = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), m, index, table, 2);
  return _mm256_and_si256(v, _mm256_set1_epi32(0xffff));
}

// log2_q11_u64 per 64-bit lane (lanes of m).
EXACTVMAF_TARGET_AVX512 inline __m512i log2_q11_u64x8(__m512i x, __mmask8 m, const std::uint16_t* table) {
  const __m512i k = _mm512_sub_epi64(_mm512_set1_epi64(48), _mm512_lzcnt_epi64(x));
  const __m256i index =
      _mm256_sub_epi32(_mm512_cvtepi64_epi32(_mm512_srlv_epi64(x, k)), _mm256_set1_epi32(log2_table_first));
  return _mm512_add_epi64(_mm512_cvtepi32_epi64(gather_log2_entry(index, m, table)), _mm512_slli_epi64(k, 11));
}

// accumulate_pixel for eight lanes, the log branch (lanes of is_log): the
// same integer steps, the fp64 islands as the same IEEE operations per lane
// (division, products, differences; truncation as cvttsd2si does).
EXACTVMAF_TARGET_AVX512 inline void log_branch_x8(__m256i sigma1, __m256i sigma2, __m256i sigma12, __mmask8 is_log,
                                                  __m512d gain_limit, const std::uint16_t* table, __m512i& den_log,
                                                  __m512i& num_log) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i nsq = _mm256_set1_epi32(sigma_nsq);
  // den_log: log2_q11_u32(sigma_nsq + sigma1) - 2048 * 17.
  const __m256i x = _mm256_add_epi32(sigma1, nsq);
  const __m256i k = _mm256_sub_epi32(_mm256_set1_epi32(16), _mm256_lzcnt_epi32(x));
  const __m256i index = _mm256_sub_epi32(_mm256_srlv_epi32(x, k), _mm256_set1_epi32(log2_table_first));
  const __m256i den = _mm256_sub_epi32(_mm256_add_epi32(gather_log2_entry(index, is_log, table), _mm256_slli_epi32(k, 11)),
                                       _mm256_set1_epi32(log2_sigma_nsq_q11));
  den_log = _mm512_mask_add_epi64(den_log, is_log, den_log, _mm512_cvtepi32_epi64(den));
  // num_log where sigma12 > 0 and sigma2 > 0.
  const __mmask8 m = is_log & _mm256_cmpgt_epi32_mask(sigma12, zero) & _mm256_cmpgt_epi32_mask(sigma2, zero);
  if (m == 0) return;
  const __m512d d1 = _mm512_cvtepi32_pd(sigma1), d2 = _mm512_cvtepi32_pd(sigma2), d12 = _mm512_cvtepi32_pd(sigma12);
  const __m512d g_raw = _mm512_maskz_div_pd(m, d12, _mm512_add_pd(d1, _mm512_set1_pd(gain_eps)));
  const __m256i sv = _mm256_max_epi32(_mm512_cvttpd_epi32(_mm512_sub_pd(d2, _mm512_mul_pd(g_raw, d12))), zero);
  // min_gain: g_raw < limit ? g_raw : limit, as (v)minpd.
  const __m512d g = _mm512_min_pd(g_raw, gain_limit);
  const __m512i numer1 = _mm512_cvtepu32_epi64(_mm256_add_epi32(sv, nsq));
  const __m512i numer1_tmp = _mm512_add_epi64(_mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_mul_pd(g, g), d1)), numer1);
  const __m512i num = _mm512_sub_epi64(log2_q11_u64x8(numer1_tmp, m, table), log2_q11_u64x8(numer1, m, table));
  num_log = _mm512_mask_add_epi64(num_log, m, num_log, num);
}

// accumulate_pixel over n pixels given as arrays, sixteen at a time through
// the vector log branch (tests reach it this way with any values).
EXACTVMAF_TARGET_AVX512 Residuals accumulate_pixels_x16(const std::int32_t* s1, const std::int32_t* s2,
                                                        const std::int32_t* s12, std::size_t n, double gain_limit) {
  const std::uint16_t* table = log2_table();
  const __m512i zero = _mm512_setzero_si512(), nsq_minus_1 = _mm512_set1_epi32(sigma_nsq - 1);
  __m512i den_log = zero, num_log = zero;
  Residuals res;
  std::size_t p = 0;
  for (; p + 16 <= n; p += 16) {
    const __m512i sigma1 = _mm512_loadu_si512(s1 + p), sigma12 = _mm512_loadu_si512(s12 + p);
    const __m512i sigma2 = _mm512_max_epi32(_mm512_loadu_si512(s2 + p), zero);
    const unsigned lanes = _mm512_cmpgt_epi32_mask(sigma1, nsq_minus_1);
    const __m512d limit = _mm512_set1_pd(gain_limit);
    log_branch_x8(_mm512_castsi512_si256(sigma1), _mm512_castsi512_si256(sigma2), _mm512_castsi512_si256(sigma12),
                  static_cast<__mmask8>(lanes), limit, table, den_log, num_log);
    log_branch_x8(_mm512_extracti64x4_epi64(sigma1, 1), _mm512_extracti64x4_epi64(sigma2, 1),
                  _mm512_extracti64x4_epi64(sigma12, 1), static_cast<__mmask8>(lanes >> 8), limit, table, den_log,
                  num_log);
    for (unsigned l = 0; l < 16; ++l)
      if (!((lanes >> l) & 1)) accumulate_pixel(s1[p + l], s2[p + l], s12[p + l], gain_limit, log2_table(), res);
  }
  res.den_log += _mm512_reduce_add_epi64(den_log);
  res.num_log += _mm512_reduce_add_epi64(num_log);
  for (; p < n; ++p) accumulate_pixel(s1[p], s2[p], s12[p], gain_limit, log2_table(), res);
  return res;
}

// Horizontal pass and per-pixel statistic, sixteen columns at a time: the
// tap sums and the variances in vectors; pixels below the noise variance (the
// non-log branch) summed in vectors, the others through accumulate_pixel.
template <int Scale>
EXACTVMAF_TARGET_AVX512 void horizontal(const StatRow& t, unsigned w, double gain_limit,
                                        const std::uint16_t* log2_table, Residuals& res) {
  static_assert(madd_steps_are_the_filter<Scale>());
  constexpr int radius = filter_width(Scale) / 2;
  constexpr MaddSteps steps = madd_steps<Scale>();
  const __m512i zero = _mm512_setzero_si512();
  const __m512i bias_start = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  const __m512i nsq_minus_1 = _mm512_set1_epi32(sigma_nsq - 1);
  __m512i non_log_sum = zero;  // 8 x int64
  std::int64_t non_log_count = 0;
  alignas(64) std::int32_t s1[16], s2[16], s12[16];
  // The vector log branch's gathers need the padded table log2_table() returns.
  const bool vector_log = log2_table == vif::log2_table();
  const __m512d limit = _mm512_set1_pd(gain_limit);
  __m512i den_log = zero, num_log = zero;  // 8 x int64
  const unsigned w16 = w & ~15u;
  alignas(64) ChunkPairs pairs;
  unsigned j = 0;
  for (; j < w16; j += 16) {
    const unsigned p = j % kChunkColumns;  // the first tap's pair entry
    if (p == 0) make_pair_rows(t, row_pad + j - radius, std::min(kChunkColumns, w16 - j) + 16, pairs);
    __m512i acc[kPairRows];
    for (auto& a : acc) a = bias_start;
    for (int m = 0; m < steps.count; ++m) {
      const __m512i taps = _mm512_set1_epi32(static_cast<int>((steps.step[m].hi << 16) | steps.step[m].lo));
      const unsigned at = p + static_cast<unsigned>(steps.step[m].offset);
      for (int r = 0; r < kPairRows; ++r) acc[r] = _mm512_dpwssd_epi32(acc[r], load_u32x16(pairs[r] + at), taps);
    }
    const __m512i mu1 = acc[kMu1], mu2 = acc[kMu2];
    const __m512i xx = recombine_halves(acc[kXxLo], acc[kXxHi]);
    const __m512i yy = recombine_halves(acc[kYyLo], acc[kYyHi]);
    const __m512i xy = recombine_halves(acc[kXyLo], acc[kXyHi]);
    const __m512i sigma1 = _mm512_sub_epi32(xx, mul_round_hi32(mu1, mu1));
    const __m512i sigma2 = _mm512_max_epi32(_mm512_sub_epi32(yy, mul_round_hi32(mu2, mu2)), zero);
    const __m512i sigma12 = _mm512_sub_epi32(xy, mul_round_hi32(mu1, mu2));
    const __mmask16 is_log = _mm512_cmpgt_epi32_mask(sigma1, nsq_minus_1);
    // Non-log lanes: sigma2 (>= 0) into the sum, one count each.
    const __m512i add = _mm512_maskz_mov_epi32(static_cast<__mmask16>(~is_log), sigma2);
    non_log_sum = _mm512_add_epi64(non_log_sum, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(add)));
    non_log_sum = _mm512_add_epi64(non_log_sum, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(add, 1)));
    const unsigned log_lanes = is_log;
    non_log_count += 16 - __builtin_popcount(log_lanes);
    if (log_lanes != 0 && vector_log) {
      log_branch_x8(_mm512_castsi512_si256(sigma1), _mm512_castsi512_si256(sigma2), _mm512_castsi512_si256(sigma12),
                    static_cast<__mmask8>(log_lanes), limit, log2_table, den_log, num_log);
      log_branch_x8(_mm512_extracti64x4_epi64(sigma1, 1), _mm512_extracti64x4_epi64(sigma2, 1),
                    _mm512_extracti64x4_epi64(sigma12, 1), static_cast<__mmask8>(log_lanes >> 8), limit,
                    log2_table, den_log, num_log);
    } else if (log_lanes != 0) {
      _mm512_store_si512(s1, sigma1);
      _mm512_store_si512(s2, sigma2);
      _mm512_store_si512(s12, sigma12);
      for (unsigned lanes = log_lanes; lanes != 0; lanes &= lanes - 1) {
        const int l = __builtin_ctz(lanes);
        accumulate_pixel(s1[l], s2[l], s12[l], gain_limit, log2_table, res);
      }
    }
  }
  res.num_non_log += _mm512_reduce_add_epi64(non_log_sum);
  res.den_log += _mm512_reduce_add_epi64(den_log);
  res.num_log += _mm512_reduce_add_epi64(num_log);
  res.den_non_log += non_log_count;
  if (j < w) statistic_horizontal<Scale>(t, j, w, gain_limit, log2_table, res);
}

EXACTVMAF_TARGET_AVX512 inline __m512i load_u8x32(const std::uint8_t* p) {
  return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

// unpack works within 128-bit blocks: lo holds columns 8b..8b+3 of block b,
// hi 8b+4..8b+7; stores the 32 columns in order.
EXACTVMAF_TARGET_AVX512 inline void store_interleaved(std::uint32_t* dst, __m512i lo, __m512i hi) {
  const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
  const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  _mm512_storeu_si512(dst, _mm512_permutex2var_epi64(lo, first, hi));
  _mm512_storeu_si512(dst + 16, _mm512_permutex2var_epi64(lo, second, hi));
}

// Scale 0's vertical pass for 8-bit samples, 32 columns at a time: pairs of
// rows under a pair of taps (samples < 2^8 enter unbiased; squares and
// product < 2^16 biased, see the top of the file).
template <int K = 0>
EXACTVMAF_TARGET_AVX512 inline void vertical_s0_u8_taps(const std::uint8_t* const* r, const std::uint8_t* const* d,
                                                        unsigned j, __m512i* acc) {
  constexpr int width = filter_width(0);
  if constexpr (K < width) {
    constexpr std::uint32_t tap_a = filter_tap<0>(K), tap_b = K + 1 < width ? filter_tap<0>(K + 1) : 0u;
    const __m512i zero = _mm512_setzero_si512(), bias16 = _mm512_set1_epi16(static_cast<short>(0x8000));
    const __m512i xa = load_u8x32(r[K] + j), ya = load_u8x32(d[K] + j);
    // The unpaired last row pairs with zeros under a zero tap.
    __m512i xb = zero, yb = zero;
    if constexpr (K + 1 < width) {
      xb = load_u8x32(r[K + 1] + j);
      yb = load_u8x32(d[K + 1] + j);
    }
    acc[0] = dp_taps<tap_a, tap_b>(acc[0], _mm512_unpacklo_epi16(xa, xb));
    acc[1] = dp_taps<tap_a, tap_b>(acc[1], _mm512_unpackhi_epi16(xa, xb));
    acc[2] = dp_taps<tap_a, tap_b>(acc[2], _mm512_unpacklo_epi16(ya, yb));
    acc[3] = dp_taps<tap_a, tap_b>(acc[3], _mm512_unpackhi_epi16(ya, yb));
    const __m512i xxa = _mm512_xor_si512(_mm512_mullo_epi16(xa, xa), bias16);
    const __m512i xxb = _mm512_xor_si512(_mm512_mullo_epi16(xb, xb), bias16);
    const __m512i yya = _mm512_xor_si512(_mm512_mullo_epi16(ya, ya), bias16);
    const __m512i yyb = _mm512_xor_si512(_mm512_mullo_epi16(yb, yb), bias16);
    const __m512i xya = _mm512_xor_si512(_mm512_mullo_epi16(xa, ya), bias16);
    const __m512i xyb = _mm512_xor_si512(_mm512_mullo_epi16(xb, yb), bias16);
    acc[4] = dp_taps<tap_a, tap_b>(acc[4], _mm512_unpacklo_epi16(xxa, xxb));
    acc[5] = dp_taps<tap_a, tap_b>(acc[5], _mm512_unpackhi_epi16(xxa, xxb));
    acc[6] = dp_taps<tap_a, tap_b>(acc[6], _mm512_unpacklo_epi16(yya, yyb));
    acc[7] = dp_taps<tap_a, tap_b>(acc[7], _mm512_unpackhi_epi16(yya, yyb));
    acc[8] = dp_taps<tap_a, tap_b>(acc[8], _mm512_unpacklo_epi16(xya, xyb));
    acc[9] = dp_taps<tap_a, tap_b>(acc[9], _mm512_unpackhi_epi16(xya, xyb));
    vertical_s0_u8_taps<K + 2>(r, d, j, acc);
  }
}

EXACTVMAF_TARGET_AVX512 void vertical_s0_u8(const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                                            std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                            const StatRow& t) {
  constexpr int width = filter_width(0);
  const std::uint8_t* r[width];
  const std::uint8_t* d[width];
  filter_rows<width>(ref, ref_stride, dis, dis_stride, static_cast<int>(i), h, r, d);
  const __m512i bias32 = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  const __m512i round_mu = _mm512_set1_epi32(128);
  const __m512i zero = _mm512_setzero_si512();
  unsigned j = 0;
  for (; j + 32 <= w; j += 32) {
    __m512i acc[10] = {zero, zero, zero, zero, bias32, bias32, bias32, bias32, bias32, bias32};
    vertical_s0_u8_taps(r, d, j, acc);
    store_interleaved(t.mu1 + row_pad + j, _mm512_srli_epi32(_mm512_add_epi32(acc[0], round_mu), 8),
                      _mm512_srli_epi32(_mm512_add_epi32(acc[1], round_mu), 8));
    store_interleaved(t.mu2 + row_pad + j, _mm512_srli_epi32(_mm512_add_epi32(acc[2], round_mu), 8),
                      _mm512_srli_epi32(_mm512_add_epi32(acc[3], round_mu), 8));
    store_interleaved(t.xx + row_pad + j, acc[4], acc[5]);
    store_interleaved(t.yy + row_pad + j, acc[6], acc[7]);
    store_interleaved(t.xy + row_pad + j, acc[8], acc[9]);
  }
  if (j < w)
    statistic_vertical<0, std::uint8_t, std::uint32_t>(ref, ref_stride, dis, dis_stride, h, i, statistic_shifts(0, 8),
                                                       j, w, t);
}

// Sixteen samples as uint32 lanes.
EXACTVMAF_TARGET_AVX512 inline __m512i load_x16(const std::uint16_t* p) {
  return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

// Low 32 bits of ((v + round) >> shift) for 64-bit values in even (e) and odd (o) lanes.
EXACTVMAF_TARGET_AVX512 inline __m512i narrow_shift(__m512i e, __m512i o, __m512i round, __m128i shift) {
  const __m512i lo = _mm512_srl_epi64(_mm512_add_epi64(e, round), shift);
  const __m512i hi = _mm512_slli_epi64(_mm512_srl_epi64(_mm512_add_epi64(o, round), shift), 32);
  return _mm512_mask_blend_epi32(0xaaaa, lo, hi);
}

// The vertical pass in 64-bit lanes (16-bit samples), sixteen columns at a
// time: tap * x in uint32 (< 2^32), then times x in uint64.
template <int Scale>
EXACTVMAF_TARGET_AVX512 void vertical_wide(const std::uint16_t* ref, std::ptrdiff_t ref_stride,
                                           const std::uint16_t* dis, std::ptrdiff_t dis_stride, unsigned w, unsigned h,
                                           unsigned i, VerticalShifts s, const StatRow& t) {
  constexpr int width = filter_width(Scale);
  const std::uint16_t* r[width];
  const std::uint16_t* d[width];
  filter_rows<width>(ref, ref_stride, dis, dis_stride, static_cast<int>(i), h, r, d);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i mu_round = _mm512_set1_epi32(static_cast<int>(s.mu_round));
  const __m128i mu_shift = _mm_cvtsi32_si128(static_cast<int>(s.mu_shift));
  const __m512i sq_round = _mm512_set1_epi64(static_cast<long long>(s.sq_round));
  const __m128i sq_shift = _mm_cvtsi32_si128(static_cast<int>(s.sq_shift));
  unsigned j = 0;
  for (; j + 16 <= w; j += 16) {
    __m512i mu1 = zero, mu2 = zero, xx_e = zero, xx_o = zero, yy_e = zero, yy_o = zero, xy_e = zero, xy_o = zero;
#pragma GCC unroll 17
    for (int k = 0; k < width; ++k) {
      const __m512i tap = _mm512_set1_epi32(static_cast<int>(filter_tap<Scale>(k)));
      const __m512i x = load_x16(r[k] + j), y = load_x16(d[k] + j);
      const __m512i fx = _mm512_mullo_epi32(x, tap), fy = _mm512_mullo_epi32(y, tap);
      mu1 = _mm512_add_epi32(mu1, fx);
      mu2 = _mm512_add_epi32(mu2, fy);
      const __m512i fx_o = _mm512_srli_epi64(fx, 32), fy_o = _mm512_srli_epi64(fy, 32);
      const __m512i x_o = _mm512_srli_epi64(x, 32), y_o = _mm512_srli_epi64(y, 32);
      xx_e = _mm512_add_epi64(xx_e, _mm512_mul_epu32(fx, x));
      xx_o = _mm512_add_epi64(xx_o, _mm512_mul_epu32(fx_o, x_o));
      yy_e = _mm512_add_epi64(yy_e, _mm512_mul_epu32(fy, y));
      yy_o = _mm512_add_epi64(yy_o, _mm512_mul_epu32(fy_o, y_o));
      xy_e = _mm512_add_epi64(xy_e, _mm512_mul_epu32(fx, y));
      xy_o = _mm512_add_epi64(xy_o, _mm512_mul_epu32(fx_o, y_o));
    }
    // (uint16_t) of the rounded mu: the sums stay below 2^32 and the results below 2^16.
    _mm512_storeu_si512(t.mu1 + row_pad + j, _mm512_srl_epi32(_mm512_add_epi32(mu1, mu_round), mu_shift));
    _mm512_storeu_si512(t.mu2 + row_pad + j, _mm512_srl_epi32(_mm512_add_epi32(mu2, mu_round), mu_shift));
    _mm512_storeu_si512(t.xx + row_pad + j, narrow_shift(xx_e, xx_o, sq_round, sq_shift));
    _mm512_storeu_si512(t.yy + row_pad + j, narrow_shift(yy_e, yy_o, sq_round, sq_shift));
    _mm512_storeu_si512(t.xy + row_pad + j, narrow_shift(xy_e, xy_o, sq_round, sq_shift));
  }
  if (j < w)
    statistic_vertical<Scale, std::uint16_t, std::uint64_t>(ref, ref_stride, dis, dis_stride, h, i, s, j, w, t);
}

template <int Scale, class Sample>
EXACTVMAF_TARGET_AVX512 Residuals statistic(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                            std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                                            double gain_limit, const std::uint16_t* log2_table, const StatRow& t) {
  constexpr int radius = filter_width(Scale) / 2;
  Residuals res;
  for (unsigned i = 0; i < h; ++i) {
    if constexpr (sizeof(Sample) == 1)
      vertical_s0_u8(ref, ref_stride, dis, dis_stride, w, h, i, t);
    else
      vertical_wide<Scale>(ref, ref_stride, dis, dis_stride, w, h, i, statistic_shifts(Scale, bpc), t);
    pad_row(t.mu1, w, radius);
    pad_row(t.mu2, w, radius);
    pad_row(t.xx, w, radius);
    pad_row(t.yy, w, radius);
    pad_row(t.xy, w, radius);
    horizontal<Scale>(t, w, gain_limit, log2_table, res);
  }
  return res;
}

// ---- decimation ----------------------------------------------------------------
// Both passes on vpdpwssd, two taps per instruction. The vertical pass pairs
// source rows k and k+1 (16-bit lanes unpacked into 32-bit pairs) and writes
// a 16-bit row, each value stored - 2^15 (an int16). The horizontal pass
// needs the even output columns only: a load of that row from column
// 2 jo + offset, read as 32-bit lanes, holds the pair of columns
// (2 jo + offset, 2 jo + offset + 1) in lane jo, ready for the step's taps
// (madd_steps). Sums of biased samples start at 2^31 (the taps sum to 2^16).

// Thirty-two samples as 16-bit lanes: 8-bit ones as they are (< 2^15),
// 16-bit ones - 2^15.
EXACTVMAF_TARGET_AVX512 inline __m512i load_x32(const std::uint8_t* p) { return load_u8x32(p); }
EXACTVMAF_TARGET_AVX512 inline __m512i load_x32(const std::uint16_t* p) {
  return _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_set1_epi16(static_cast<short>(0x8000)));
}

template <int To, class Sample, int K = 0>
EXACTVMAF_TARGET_AVX512 inline void decimate_vertical_taps(const Sample* const* r, const Sample* const* d, unsigned j,
                                                           __m512i* acc) {
  constexpr int width = filter_width(To);
  if constexpr (K < width) {
    constexpr std::uint32_t tap_a = filter_tap<To>(K), tap_b = K + 1 < width ? filter_tap<To>(K + 1) : 0u;
    const __m512i xa = load_x32(r[K] + j), ya = load_x32(d[K] + j);
    __m512i xb = _mm512_setzero_si512(), yb = xb;  // the unpaired last row meets a zero tap
    if constexpr (K + 1 < width) {
      xb = load_x32(r[K + 1] + j);
      yb = load_x32(d[K + 1] + j);
    }
    acc[0] = dp_taps<tap_a, tap_b>(acc[0], _mm512_unpacklo_epi16(xa, xb));
    acc[1] = dp_taps<tap_a, tap_b>(acc[1], _mm512_unpackhi_epi16(xa, xb));
    acc[2] = dp_taps<tap_a, tap_b>(acc[2], _mm512_unpacklo_epi16(ya, yb));
    acc[3] = dp_taps<tap_a, tap_b>(acc[3], _mm512_unpackhi_epi16(ya, yb));
    decimate_vertical_taps<To, Sample, K + 2>(r, d, j, acc);
  }
}

// (lo, hi: the unpacklo/unpackhi sums) + round >> shift (< 2^16), 32 values
// in column order (packus keeps each 128-bit block's order), each - 2^15.
EXACTVMAF_TARGET_AVX512 inline __m512i round_pack_biased(__m512i lo, __m512i hi, __m512i round, __m128i shift) {
  const __m512i a = _mm512_srl_epi32(_mm512_add_epi32(lo, round), shift);
  const __m512i b = _mm512_srl_epi32(_mm512_add_epi32(hi, round), shift);
  return _mm512_xor_si512(_mm512_packus_epi32(a, b), _mm512_set1_epi16(static_cast<short>(0x8000)));
}

template <int To, class Sample>
EXACTVMAF_TARGET_AVX512 void decimate_row_x32(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                              std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                              unsigned bpc, std::uint16_t* row_ref, std::uint16_t* row_dis,
                                              std::uint16_t* out_ref, std::uint16_t* out_dis) {
  static_assert(madd_steps_are_the_filter<To>());
  constexpr int width = filter_width(To), radius = width / 2;
  constexpr MaddSteps steps = madd_steps<To>();
  const unsigned shift = decimation_vertical_shift(To, bpc);
  const std::uint32_t round = std::uint32_t{1} << (shift - 1);
  const Sample* r[width];
  const Sample* d[width];
  filter_rows<width>(ref, ref_stride, dis, dis_stride, 2 * static_cast<int>(i), h, r, d);
  const __m512i start = _mm512_set1_epi32(sizeof(Sample) == 1 ? 0 : static_cast<int>(0x80000000u));
  const __m512i v_round = _mm512_set1_epi32(static_cast<int>(round));
  const __m128i v_shift = _mm_cvtsi32_si128(static_cast<int>(shift));
  unsigned j = 0;
  for (; j + 32 <= w; j += 32) {
    __m512i acc[4] = {start, start, start, start};
    decimate_vertical_taps<To, Sample>(r, d, j, acc);
    _mm512_storeu_si512(row_ref + row_pad + j, round_pack_biased(acc[0], acc[1], v_round, v_shift));
    _mm512_storeu_si512(row_dis + row_pad + j, round_pack_biased(acc[2], acc[3], v_round, v_shift));
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
  const __m512i bias_start = _mm512_set1_epi32(static_cast<int>(0x80000000u)), round16 = _mm512_set1_epi32(32768);
  unsigned jo = 0;
  // Sixteen outputs read 32 entries from column 2 jo - radius + offset (offset <= 2 radius): up
  // to the last padded column, w + radius - 1, while jo + 16 <= w / 2.
  for (; jo + 16 <= wo; jo += 16) {
    const unsigned base = row_pad + 2 * jo - radius;
    __m512i ar = bias_start, ad = bias_start;
    for (int m = 0; m < steps.count; ++m) {
      const __m512i taps = _mm512_set1_epi32(static_cast<int>((steps.step[m].hi << 16) | steps.step[m].lo));
      const unsigned at = base + static_cast<unsigned>(steps.step[m].offset);
      ar = _mm512_dpwssd_epi32(ar, _mm512_loadu_si512(row_ref + at), taps);
      ad = _mm512_dpwssd_epi32(ad, _mm512_loadu_si512(row_dis + at), taps);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_ref + jo),
                        _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_add_epi32(ar, round16), 16)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_dis + jo),
                        _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_add_epi32(ad, round16), 16)));
  }
  for (; jo < wo; ++jo) {
    const unsigned base = row_pad + 2 * jo - radius;
    out_ref[jo] = decimation_sample<To>([&](int k) { return row_ref[base + k] ^ 0x8000u; }, 16, 32768);
    out_dis[jo] = decimation_sample<To>([&](int k) { return row_dis[base + k] ^ 0x8000u; }, 16, 32768);
  }
}

template <int To, class Sample>
EXACTVMAF_TARGET_AVX512 void decimate(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                      std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                                      std::uint16_t* out_ref, std::uint16_t* out_dis) {
  std::uint16_t* row_ref = decimation_rows(w);
  std::uint16_t* row_dis = row_ref + decimation_row_stride(w);
  const unsigned wo = w / 2;
  for (unsigned i = 0; i < h / 2; ++i)
    decimate_row_x32<To>(ref, ref_stride, dis, dis_stride, w, h, i, bpc, row_ref, row_dis, out_ref + i * wo,
                         out_dis + i * wo);
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

Residuals accumulate_pixels(const std::int32_t* sigma1_sq, const std::int32_t* sigma2_sq,
                            const std::int32_t* sigma12, std::size_t n, double gain_limit,
                            const std::uint16_t* log2_table) {
  (void)log2_table;  // the same entries, read from log2_table() by the gathers
  return accumulate_pixels_x16(sigma1_sq, sigma2_sq, sigma12, n, gain_limit);
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

}  // namespace

const Kernels& avx512_kernels() {
  static const Kernels k = {"avx512", &statistic_u8, &statistic_u16, &decimate_u8, &decimate_u16, &accumulate_pixels};
  return k;
}

}  // namespace exactvmaf::vif
#endif
