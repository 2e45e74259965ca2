// AVX2 kernels of cambi: the cambi_math.hpp row functions 16 uint16/int16
// or 8 int32/float lanes at a time, the same integers and the same per-lane IEEE
// float operations (int32 -> float conversion, product, maximum), so the same
// bits as the scalar functions (tests/features/cambi_test.cpp checks them
// against each other).
#include "features/cambi/cambi_simd.hpp"

#if EXACTVMAF_SIMD_X86
#include <immintrin.h>

namespace exactvmaf::cambi {
namespace {

EXACTVMAF_TARGET_AVX2 inline __m256i load16(const u16* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
EXACTVMAF_TARGET_AVX2 inline void store16(u16* p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }

EXACTVMAF_TARGET_AVX2 void derivative_row_avx2(const u16* img, std::ptrdiff_t stride, unsigned w, unsigned h, unsigned row,
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
EXACTVMAF_TARGET_AVX2 void decimate_row_avx2(const u16* src, unsigned w_out, u16* out) {
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
EXACTVMAF_TARGET_AVX2 inline __m256i mode3_avx2(__m256i a, __m256i b, __m256i c) {
  const __m256i a_dup = _mm256_or_si256(_mm256_cmpeq_epi16(a, b), _mm256_cmpeq_epi16(a, c));
  const __m256i bc = _mm256_cmpeq_epi16(b, c);
  const __m256i mn = _mm256_min_epu16(_mm256_min_epu16(a, b), c);
  return _mm256_blendv_epi8(_mm256_blendv_epi8(mn, b, bc), a, a_dup);
}

EXACTVMAF_TARGET_AVX2 void mode_horizontal_row_avx2(const u16* in, unsigned w, u16* out) {
  out[0] = in[0];
  unsigned j = 1;
  for (; j + 17 <= w; j += 16)  // in[j + 16] must exist: j + 16 < w
    store16(out + j, mode3_avx2(load16(in + j - 1), load16(in + j), load16(in + j + 1)));
  for (; j + 1 < w; ++j) out[j] = mode3(in[j - 1], in[j], in[j + 1]);
  out[w - 1] = in[w - 1];
}

EXACTVMAF_TARGET_AVX2 void mode_vertical_row_avx2(const u16* a, const u16* b, const u16* c, unsigned w, u16* out) {
  unsigned j = 0;
  for (; j + 16 <= w; j += 16) store16(out + j, mode3_avx2(load16(a + j), load16(b + j), load16(c + j)));
  for (; j < w; ++j) out[j] = mode3(a[j], b[j], c[j]);
}

// apply_runs, 16 columns at a time: column k's count min(k + pad, last) -
// max(k - pad, first) + 1 in int16 lanes (rows of up to 16000 columns; wider
// ones take the scalar function), lanes past the run's columns adding 0
// (they read and write back the samples after them: the next histogram row
// or the buffer's slack).
EXACTVMAF_TARGET_AVX2 void apply_runs_avx2(u16* hist, const CountRun* runs, unsigned n, int pad, unsigned w, const Params& p) {
  if (w + static_cast<unsigned>(pad) >= 16000u) {
    apply_runs(hist, runs, n, pad, w, p);
    return;
  }
  const __m256i lanes = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m256i vpad = _mm256_set1_epi16(static_cast<short>(pad)), one = _mm256_set1_epi16(1);
  for (unsigned i = 0; i < n; ++i) {
    const CountRun& r = runs[i];
    u16* row = histogram_row(hist, r.value, p, w);
    int left, right;
    run_columns(r, pad, w, &left, &right);
    const __m256i first = _mm256_set1_epi16(static_cast<short>(r.first));
    const __m256i last = _mm256_set1_epi16(static_cast<short>(r.last));
    const __m256i end = _mm256_set1_epi16(static_cast<short>(right));
    for (int k = left; k < right; k += 16) {
      const __m256i kv = _mm256_add_epi16(_mm256_set1_epi16(static_cast<short>(k)), lanes);
      const __m256i lo = _mm256_max_epi16(_mm256_sub_epi16(kv, vpad), first);
      const __m256i hi = _mm256_min_epi16(_mm256_add_epi16(kv, vpad), last);
      const __m256i count = _mm256_and_si256(_mm256_add_epi16(_mm256_sub_epi16(hi, lo), one), _mm256_cmpgt_epi16(end, kv));
      const __m256i cells = load16(row + k);
      store16(row + k, r.remove ? _mm256_sub_epi16(cells, count) : _mm256_add_epi16(cells, count));
    }
  }
}

// Eight c-values at once: the counts are gathered (32-bit gathers of
// uint16 cells, the high half masked off: the buffer has slack after the
// last cell), the gating and the term as c_value computes them per lane.
EXACTVMAF_TARGET_AVX2 void c_values_row_avx2(const u16* hist, const u16* img_row, const u16* mask_row, unsigned w,
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
                            &apply_runs_avx2,
                            &c_values_row_avx2};
  return k;
}

}  // namespace exactvmaf::cambi
#endif
