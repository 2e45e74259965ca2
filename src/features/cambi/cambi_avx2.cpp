// AVX2 kernels of cambi: the cambi_math.hpp row functions 16 uint16 or 8
// int32/float lanes at a time, the same integers and the same per-lane IEEE
// float operations (int32 -> float conversion, product, maximum), so the same
// bits as the scalar functions (tests/features/cambi_test.cpp checks them
// against each other).
#include "features/cambi/cambi_simd.hpp"

#if EXACTVMAF_CAMBI_HAVE_AVX2
#include <immintrin.h>

namespace exactvmaf::cambi {
namespace {

#define EXACTVMAF_AVX2 __attribute__((target("avx2")))

EXACTVMAF_AVX2 inline __m256i load16(const u16* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
EXACTVMAF_AVX2 inline void store16(u16* p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }

EXACTVMAF_AVX2 void derivative_row_avx2(const u16* img, std::ptrdiff_t stride, unsigned w, unsigned h, unsigned row,
                                        u16* out) {
  const u16* r = img + static_cast<std::ptrdiff_t>(row) * stride;
  const u16* below = row + 1 < h ? r + stride : r;
  const __m256i one = _mm256_set1_epi16(1);
  unsigned j = 0;
  for (; j + 17 <= w; j += 16) {  // reads r[j + 16]: needs j + 16 < w
    const __m256i a = load16(r + j);
    const __m256i eq = _mm256_and_si256(_mm256_cmpeq_epi16(a, load16(r + j + 1)), _mm256_cmpeq_epi16(a, load16(below + j)));
    store16(out + j, _mm256_and_si256(eq, one));
  }
  for (; j + 1 < w; ++j) out[j] = static_cast<u16>(r[j] == r[j + 1] && r[j] == below[j]);
  out[w - 1] = static_cast<u16>(r[w - 1] == below[w - 1]);
}

// out[j] = src[2j]: the even uint16 of 32 samples packed into 16 (in place
// safe: each vector reads src[2j .. 2j + 31] before writing out[j .. j + 15]).
EXACTVMAF_AVX2 void decimate_row_avx2(const u16* src, unsigned w_out, u16* out) {
  const __m256i low = _mm256_set1_epi32(0xffff);
  unsigned j = 0;
  for (; j + 16 <= w_out; j += 16) {
    const __m256i a = _mm256_and_si256(load16(src + 2 * j), low);
    const __m256i b = _mm256_and_si256(load16(src + 2 * j + 16), low);
    store16(out + j, _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8));
  }
  for (; j < w_out; ++j) out[j] = src[2 * j];
}

// mode3 per lane: a if a equals b or c, else b if b equals c, else the minimum.
EXACTVMAF_AVX2 inline __m256i mode3_avx2(__m256i a, __m256i b, __m256i c) {
  const __m256i a_dup = _mm256_or_si256(_mm256_cmpeq_epi16(a, b), _mm256_cmpeq_epi16(a, c));
  const __m256i bc = _mm256_cmpeq_epi16(b, c);
  const __m256i mn = _mm256_min_epu16(_mm256_min_epu16(a, b), c);
  return _mm256_blendv_epi8(_mm256_blendv_epi8(mn, b, bc), a, a_dup);
}

EXACTVMAF_AVX2 void mode_horizontal_row_avx2(const u16* in, unsigned w, u16* out) {
  out[0] = in[0];
  unsigned j = 1;
  for (; j + 17 <= w; j += 16)  // in[j + 16] must exist: j + 16 < w
    store16(out + j, mode3_avx2(load16(in + j - 1), load16(in + j), load16(in + j + 1)));
  for (; j + 1 < w; ++j) out[j] = mode3(in[j - 1], in[j], in[j + 1]);
  out[w - 1] = in[w - 1];
}

EXACTVMAF_AVX2 void mode_vertical_row_avx2(const u16* a, const u16* b, const u16* c, unsigned w, u16* out) {
  unsigned j = 0;
  for (; j + 16 <= w; j += 16) store16(out + j, mode3_avx2(load16(a + j), load16(b + j), load16(c + j)));
  for (; j < w; ++j) out[j] = mode3(a[j], b[j], c[j]);
}

// Lane masks: the first n of 16 lanes (n = 0..16).
alignas(32) const u16 lane_mask_table[32] = {0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
                                             0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
                                             0,      0,      0,      0,      0,      0,      0,      0,
                                             0,      0,      0,      0,      0,      0,      0,      0};

// row[left .. right) += delta: whole vectors, the last one with the lanes past
// `right` adding 0 (they read and write back the samples after the range:
// the next histogram row or the buffer's slack).
EXACTVMAF_AVX2 inline void add_range(u16* row, int left, int right, __m256i delta) {
  int k = left;
  for (; k + 16 <= right; k += 16) store16(row + k, _mm256_add_epi16(load16(row + k), delta));
  if (k < right) {
    const __m256i m = load16(lane_mask_table + 16 - (right - k));
    store16(row + k, _mm256_add_epi16(load16(row + k), _mm256_and_si256(delta, m)));
  }
}

EXACTVMAF_AVX2 void histogram_row_update_avx2(u16* hist, const u16* img_row, const u16* mask_row, unsigned w, int pad,
                                              const Params& p, u16 delta) {
  const __m256i d = _mm256_set1_epi16(static_cast<short>(delta));
  for (int j = 0; j < static_cast<int>(w); ++j) {
    if (!mask_row[j] || !in_band(img_row[j], p)) continue;
    int left, right;
    window_columns(j, pad, w, &left, &right);
    add_range(histogram_row(hist, img_row[j], p, w), left, right, d);
  }
}

EXACTVMAF_AVX2 void histogram_row_slide_avx2(u16* hist, const u16* out_img, const u16* out_mask, const u16* in_img,
                                             const u16* in_mask, unsigned w, int pad, const Params& p) {
  const __m256i plus = _mm256_set1_epi16(1), minus = _mm256_set1_epi16(-1);
  for (int j = 0; j < static_cast<int>(w); ++j) {
    const unsigned act = slide_action(out_img[j], out_mask[j], in_img[j], in_mask[j], p);
    if (!act) continue;
    int left, right;
    window_columns(j, pad, w, &left, &right);
    if (act & slide_remove) add_range(histogram_row(hist, out_img[j], p, w), left, right, minus);
    if (act & slide_add) add_range(histogram_row(hist, in_img[j], p, w), left, right, plus);
  }
}

// Eight c-values at once: the counts are gathered (32-bit gathers of
// uint16 cells, the high half masked off: the buffer has slack after the
// last cell), the gating and the term as c_value computes them per lane.
EXACTVMAF_AVX2 void c_values_row_avx2(const u16* hist, const u16* img_row, const u16* mask_row, unsigned w,
                                      const Params& p, const float* reciprocal, float* out) {
  const int* cells = reinterpret_cast<const int*>(hist);
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i low16 = _mm256_set1_epi32(0xffff);
  const __m256i base = _mm256_set1_epi32(p.v_band_base);
  const __m256i size = _mm256_set1_epi32(p.v_band_size);
  const __m256i top = _mm256_set1_epi32(p.v_band_size - 1);
  const __m256i width = _mm256_set1_epi32(static_cast<int>(w));
  const __m256i nd = _mm256_set1_epi32(p.num_diffs);
  const __m256i vlt = _mm256_set1_epi32(p.vlt_luma);
  unsigned j = 0;
  for (; j + 8 <= w; j += 8) {
    const __m256i m = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(mask_row + j)));
    const __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(img_row + j)));
    const __m256i k = _mm256_sub_epi32(v, base);
    const __m256i in_band_lanes = _mm256_andnot_si256(_mm256_cmpgt_epi32(zero, k), _mm256_cmpgt_epi32(size, k));
    const __m256i active = _mm256_andnot_si256(_mm256_cmpeq_epi32(m, zero), in_band_lanes);
    if (_mm256_testz_si256(active, active)) {
      _mm256_storeu_ps(out + j, _mm256_setzero_ps());
      continue;
    }
    const __m256i kc = _mm256_min_epi32(_mm256_max_epi32(k, zero), top);
    const __m256i col = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(j)), lanes);
    const __m256i p0 =
        _mm256_and_si256(_mm256_i32gather_epi32(cells, _mm256_add_epi32(_mm256_mullo_epi32(kc, width), col), 2), low16);
    const __m256i value = _mm256_add_epi32(v, nd);
    __m256 c = _mm256_setzero_ps();
    for (int d = 0; d < p.num_diffs; ++d) {
      const __m256i gate_tvi = _mm256_cmpgt_epi32(value, _mm256_set1_epi32(p.tvi_for_diff[d]));  // skip where set
      const __m256i gate_vlt = _mm256_cmpgt_epi32(_mm256_add_epi32(value, _mm256_set1_epi32(d + 1)), vlt);
      const __m256i pred = _mm256_andnot_si256(gate_tvi, _mm256_and_si256(gate_vlt, active));
      if (_mm256_testz_si256(pred, pred)) continue;
      const __m256i k1 = _mm256_min_epi32(_mm256_add_epi32(kc, _mm256_set1_epi32(d + 1)), top);
      const __m256i k2raw = _mm256_sub_epi32(kc, _mm256_set1_epi32(d + 1));
      const __m256i k2_ok = _mm256_cmpgt_epi32(k2raw, _mm256_set1_epi32(-1));
      const __m256i k2 = _mm256_max_epi32(k2raw, zero);
      const __m256i p1 =
          _mm256_and_si256(_mm256_i32gather_epi32(cells, _mm256_add_epi32(_mm256_mullo_epi32(k1, width), col), 2), low16);
      const __m256i p2 = _mm256_and_si256(
          _mm256_and_si256(_mm256_i32gather_epi32(cells, _mm256_add_epi32(_mm256_mullo_epi32(k2, width), col), 2), low16),
          k2_ok);
      const __m256i pmax = _mm256_max_epi32(p1, p2);
      const __m256i num = _mm256_mullo_epi32(_mm256_set1_epi32(p.diff_weights[d]), _mm256_mullo_epi32(p0, pmax));
      const __m256 rcp = _mm256_i32gather_ps(reciprocal, _mm256_add_epi32(pmax, p0), 4);
      const __m256 term = _mm256_and_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(num), rcp), _mm256_castsi256_ps(pred));
      c = _mm256_max_ps(c, term);  // c > term ? c : term: the scalar's maximum (no NaN, equal values same bits)
    }
    _mm256_storeu_ps(out + j, c);
  }
  for (; j < w; ++j) out[j] = mask_row[j] ? c_value_from_histograms(hist, w, j, img_row[j], p, reciprocal) : 0.0f;
}

}  // namespace

const Kernels& avx2_kernels() {
  static const Kernels k = {"avx2",
                            &derivative_row_avx2,
                            &decimate_row_avx2,
                            &mode_horizontal_row_avx2,
                            &mode_vertical_row_avx2,
                            &histogram_row_update_avx2,
                            &histogram_row_slide_avx2,
                            &c_values_row_avx2};
  return k;
}

}  // namespace exactvmaf::cambi
#endif
