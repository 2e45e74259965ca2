// AVX2 kernels of integer motion: the same integers as motion_math.hpp's
// vertical_row and horizontal_row_sad (exact in any order), eight or sixteen
// columns at a time.
#include "features/motion/motion_simd.hpp"

#if EXACTVMAF_SIMD_X86
#include <immintrin.h>

namespace exactvmaf::motion {
namespace {

// Largest bit depth these kernels take (the tap sums must fit int32); above
// it the entries hand the frame to the scalar entry.
constexpr unsigned avx2_max_bpc = 14;

EXACTVMAF_TARGET_AVX2 inline __m256i tap_pair(std::int64_t lo, std::int64_t hi) {
  return _mm256_set1_epi32(
      static_cast<int>((static_cast<std::uint32_t>(hi) << 16) | (static_cast<std::uint32_t>(lo) & 0xffffu)));
}

// 16 differences earlier - current as int16.
EXACTVMAF_TARGET_AVX2 inline __m256i diff16(const std::uint8_t* e, const std::uint8_t* c) {
  const __m256i a = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(e)));
  const __m256i b = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(c)));
  return _mm256_sub_epi16(a, b);
}
EXACTVMAF_TARGET_AVX2 inline __m256i diff16(const std::uint16_t* e, const std::uint16_t* c) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c));
  return _mm256_sub_epi16(a, b);
}

// Vertical pass, bpc <= 14: the tap sums fit int32 and the row differences
// fit int16, so pairs of rows go through one multiply-add (vpmaddwd).
template <class Sample>
EXACTVMAF_TARGET_AVX2 bool vertical_row_avx2(const Sample* earlier, std::ptrdiff_t earlier_stride,
                                             const Sample* current, std::ptrdiff_t current_stride, unsigned w,
                                             unsigned h, unsigned i, unsigned bpc, std::int32_t* y_row) {
  const Sample* e[filter_width];
  const Sample* c[filter_width];
  for (int k = 0; k < filter_width; ++k) {
    const std::ptrdiff_t row = mirror(static_cast<int>(i) - filter_radius + k, static_cast<int>(h));
    e[k] = earlier + row * earlier_stride;
    c[k] = current + row * current_stride;
  }
  const __m256i t01 = tap_pair(filter_tap(0), filter_tap(1));
  const __m256i t23 = tap_pair(filter_tap(2), filter_tap(3));
  const __m256i t4 = tap_pair(filter_tap(4), 0);
  const __m256i round = _mm256_set1_epi32(1 << (bpc - 1));
  const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(bpc));
  const __m256i zero = _mm256_setzero_si256();
  __m256i any = zero;
  unsigned j = 0;
  for (; j + 16 <= w; j += 16) {
    const __m256i d0 = diff16(e[0] + j, c[0] + j), d1 = diff16(e[1] + j, c[1] + j), d2 = diff16(e[2] + j, c[2] + j), d3 = diff16(e[3] + j, c[3] + j), d4 = diff16(e[4] + j, c[4] + j);
    // unpack works within 128-bit halves: lo holds columns 0-3 and 8-11, hi 4-7 and 12-15.
    __m256i lo = _mm256_madd_epi16(_mm256_unpacklo_epi16(d0, d1), t01);
    __m256i hi = _mm256_madd_epi16(_mm256_unpackhi_epi16(d0, d1), t01);
    lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(d2, d3), t23));
    hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(d2, d3), t23));
    lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(d4, zero), t4));
    hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(d4, zero), t4));
    lo = _mm256_sra_epi32(_mm256_add_epi32(lo, round), shift);
    hi = _mm256_sra_epi32(_mm256_add_epi32(hi, round), shift);
    any = _mm256_or_si256(any, _mm256_or_si256(lo, hi));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y_row + j), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y_row + j + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
  }
  std::int32_t any_tail = 0;
  const std::int32_t tail_round = std::int32_t{1} << (bpc - 1);
  for (; j < w; ++j) {
    y_row[j] = vertical_sample<Sample, std::int32_t>(e, c, j, tail_round, bpc);
    any_tail |= y_row[j];
  }
  return !_mm256_testz_si256(any, any) || any_tail != 0;
}

EXACTVMAF_TARGET_AVX2 inline __m256i load8(const std::int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// Horizontal pass. The tap sum of y (|y| <= 2^16) can pass 2^31, so a value
// v is split as v = 256 * vh + vl (0 <= vl < 256): with A = sum t*vh and
// B = sum t*vl, (256 A + B + 2^15) >> 16 == (A + ((B + 2^15) >> 8)) >> 8.
// The taps are symmetric, so v runs over s04 = y0 + y4, s13 = y1 + y3
// (|s| <= 2^17) and y2: their halves fit int16, and A and B (below 2^26) are
// each two vpmaddwd, (s04, s13) against (t0, t1) and (y2, 0) against (t2, 0)
// (MotionSimd compares it with the scalar pass on random and extreme rows).
EXACTVMAF_TARGET_AVX2 std::uint32_t horizontal_row_sad_avx2(const std::int32_t* y_row, unsigned w) {
  std::uint32_t row_sad = 0;
  const auto at = [&](int col) { return y_row[mirror(col, static_cast<int>(w))]; };
  const auto scalar_col = [&](unsigned j) {
    const int c = static_cast<int>(j);
    row_sad += horizontal_abs(at(c - 2), at(c - 1), at(c), at(c + 1), at(c + 2));
  };
  if (w < 4) {
    for (unsigned j = 0; j < w; ++j) scalar_col(j);
    return row_sad;
  }
  scalar_col(0);
  scalar_col(1);
  const unsigned interior_end = w - 2;
  const __m256i t01 = tap_pair(filter_tap(0), filter_tap(1));
  const __m256i t2 = tap_pair(filter_tap(2), 0);
  const __m256i low8 = _mm256_set1_epi32(0xff);
  const __m256i low8_pairs = _mm256_set1_epi32(0x00ff00ff);
  const __m256i half = _mm256_set1_epi32(1 << 15);
  __m256i acc = _mm256_setzero_si256();  // per-lane partial sums; < 2^17 * (w / 8) fits uint32 as the row sum does
  unsigned j = 2;
  for (; j + 8 <= interior_end; j += 8) {
    const __m256i y2 = load8(y_row + j);
    const __m256i s04 = _mm256_add_epi32(load8(y_row + j - 2), load8(y_row + j + 2));
    const __m256i s13 = _mm256_add_epi32(load8(y_row + j - 1), load8(y_row + j + 1));
    // Word 0 of each lane s04's half, word 1 s13's: bits 8..23 of s13 are
    // the low 16 bits of s13 >> 8.
    const __m256i high_halves = _mm256_blend_epi16(_mm256_srai_epi32(s04, 8), _mm256_slli_epi32(s13, 8), 0xaa);
    const __m256i low_halves =
        _mm256_and_si256(_mm256_blend_epi16(s04, _mm256_slli_epi32(s13, 16), 0xaa), low8_pairs);
    // (y2 >> 8)'s word 1 is its sign, which meets the 0 tap.
    const __m256i a = _mm256_add_epi32(_mm256_madd_epi16(high_halves, t01),
                                       _mm256_madd_epi16(_mm256_srai_epi32(y2, 8), t2));
    const __m256i b = _mm256_add_epi32(_mm256_madd_epi16(low_halves, t01),
                                       _mm256_madd_epi16(_mm256_and_si256(y2, low8), t2));
    const __m256i q = _mm256_srai_epi32(_mm256_add_epi32(b, half), 8);
    const __m256i val = _mm256_srai_epi32(_mm256_add_epi32(a, q), 8);
    acc = _mm256_add_epi32(acc, _mm256_abs_epi32(val));
  }
  alignas(32) std::uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  for (std::uint32_t v : lanes) row_sad += v;  // uint32 wraps exactly as the scalar row sum does
  for (; j < interior_end; ++j)
    row_sad += horizontal_abs(y_row[j - 2], y_row[j - 1], y_row[j], y_row[j + 1], y_row[j + 2]);
  for (; j < w; ++j) scalar_col(j);
  return row_sad;
}

template <class Sample>
EXACTVMAF_TARGET_AVX2 std::uint64_t frame_sad_avx2(const Sample* earlier, std::ptrdiff_t earlier_stride,
                                                   const Sample* current, std::ptrdiff_t current_stride, unsigned w,
                                                   unsigned h, unsigned bpc, std::int32_t* y_row) {
  std::uint64_t sad = 0;
  for (unsigned i = 0; i < h; ++i)
    if (vertical_row_avx2(earlier, earlier_stride, current, current_stride, w, h, i, bpc, y_row))
      sad += horizontal_row_sad_avx2(y_row, w);
  return sad;
}

std::uint64_t frame_sad_avx2_u8(const std::uint8_t* earlier, std::ptrdiff_t earlier_stride,
                                const std::uint8_t* current, std::ptrdiff_t current_stride, unsigned w, unsigned h,
                                std::int32_t* y_row) {
  return frame_sad_avx2(earlier, earlier_stride, current, current_stride, w, h, 8, y_row);
}

std::uint64_t frame_sad_avx2_u16(const std::uint16_t* earlier, std::ptrdiff_t earlier_stride,
                                 const std::uint16_t* current, std::ptrdiff_t current_stride, unsigned w, unsigned h,
                                 unsigned bpc, std::int32_t* y_row) {
  if (bpc > avx2_max_bpc) return frame_sad(earlier, earlier_stride, current, current_stride, w, h, bpc, y_row);
  return frame_sad_avx2(earlier, earlier_stride, current, current_stride, w, h, bpc, y_row);
}

}  // namespace

const Kernels& avx2_kernels() {
  static const Kernels k = {"avx2", &frame_sad_avx2_u8, &frame_sad_avx2_u16};
  return k;
}

}  // namespace exactvmaf::motion
#endif
