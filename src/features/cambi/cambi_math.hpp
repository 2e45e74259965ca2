// CAMBI (libvmaf cambi.c at f85a853): the whole per-sample and per-row
// arithmetic, host and device. Plain integer and float code; the buffers are
// the caller's. Data flow of one picture (docs/features/cambi.md):
//   1. preprocess: luma to 10 bits at the encode size (nearest-neighbour
//      resampling through index maps, see nearest_indices), then the 2x2
//      anti-dithering average when the encode is below 10 bits;
//   2. spatial mask at that size: a pixel is "flat" when it equals its right
//      and lower neighbours (edges count as equal); mask = more flat pixels
//      in the 7x7 window around it than mask_index();
//   3. five scales: decimate image and mask by 2 (scale 0 only with the high
//      resolution speed-up), the 3x3 separable mode filter, the c-value of
//      every masked pixel from the counts of masked pixels of each value in
//      its window (c_value), and the scale's top-k pooling (TopK below);
//   4. the weighted sum of the five pooled values (frame_score).
// Everything is integer except the c-value's float product, the pooling and
// the score (doubles, upstream's order), and three tiny fp64 islands named
// below. The luminance tables (EOTF, tvi, vlt) are computed once on the host
// (cambi_host.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "features/cambi/cambi_reciprocal_table.hpp"
#include "numeric/dd.hpp"
#include "numeric/exact_sum.hpp"
#include "numeric/hd.hpp"

namespace exactvmaf::cambi {

using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

inline constexpr int num_scales = 5;
inline constexpr int mask_filter_size = 7;
inline constexpr int max_num_diffs = 32;  // 1 << max_log_contrast, max_log_contrast <= 5
// Upstream refuses a picture whose width and height are both below this.
inline constexpr unsigned min_size = 216;
// Windows whose pixel count reaches the reciprocal table's size are refused.
inline constexpr int reciprocal_table_size = 4226;

// ---- tables -----------------------------------------------------------------

// g_scale_weights: 16, 8, 4, 2, 1.
EXACTVMAF_HD_INLINE int scale_weight(int scale) { return 16 >> scale; }

// g_contrast_weights (the suprathreshold contrast response) of diff d + 1.
EXACTVMAF_HD_INLINE int contrast_weight(int d) {
  if (d < 4) return d + 1;
  if (d < 5) return 4;
  if (d < 7) return 5;
  if (d < 11) return 6;
  if (d < 15) return 7;
  if (d < 22) return 8;
  return 9;
}

// What the c-values of one run need (copied to the device by value).
struct Params {
  int num_diffs = 4;                 // 1 << max_log_contrast
  u16 tvi_for_diff[max_num_diffs]{};  // upstream's tvi_for_diff: the tvi sample of diff d+1, plus num_diffs
  int diff_weights[max_num_diffs]{};  // contrast_weight(d)
  u16 vlt_luma = 0;                   // smallest 10-bit sample above cambi_vis_lum_threshold (0: none)
  // Only samples in [v_band_base, v_band_base + v_band_size) can reach a
  // non-zero c-value; the histograms hold only those (upstream's band).
  u16 v_band_base = 0, v_band_size = 0;
};

// Fills the derived fields of p from num_diffs, tvi_for_diff and vlt_luma.
// When the visibility threshold lies above every tvi sample no c-value can
// be non-zero and the band is empty (upstream's uint16 size then wraps to a
// band of some 65000 values, whose histograms it allocates, all of whose
// c-values are 0).
EXACTVMAF_HD_INLINE void finish_params(Params& p) {
  for (int d = 0; d < p.num_diffs; ++d) p.diff_weights[d] = contrast_weight(d);
  const int lo = static_cast<int>(p.vlt_luma) - 3 * p.num_diffs + 1;
  p.v_band_base = static_cast<u16>(lo > 0 ? lo : 0);
  const int size = p.tvi_for_diff[p.num_diffs - 1] + 1 - p.v_band_base;
  p.v_band_size = static_cast<u16>(size > 0 ? size : 0);
}

// True when every histogram read of c_value stays inside the band (then the
// band's counts are the window's true counts). Upstream assumes it; it holds
// when tvi_for_diff grows with d (checked for the option ranges, see
// cambi_host.cpp's make_config).
EXACTVMAF_HD_INLINE bool band_covers_reads(const Params& p) {
  if (p.v_band_size == 0) return true;  // nothing is read
  const int top = p.tvi_for_diff[p.num_diffs - 1] + p.num_diffs;
  for (int d = 0; d < p.num_diffs; ++d)
    if (p.tvi_for_diff[d] + d >= top) return false;
  return true;
}

// ---- sizes --------------------------------------------------------------------

// adjust_window_size: window_size scaled by (w + h) / (3840 + 2160), halved
// with the speed-up, made odd.
EXACTVMAF_HD_INLINE int adjusted_window(int window_size, unsigned w, unsigned h, bool high_res_speedup) {
  unsigned ws = static_cast<u16>((static_cast<unsigned>(window_size) * (w + h)) / 375u >> 4);
  if (high_res_speedup) ws = (ws + 1) >> 1;
  return static_cast<int>(static_cast<u16>(ws | 1u));
}

// The pixels of a window (get_pixels_in_window): the odd size squared.
EXACTVMAF_HD_INLINE unsigned window_pixels(int window_size) {
  const unsigned odd = 2u * (static_cast<unsigned>(window_size) >> 1) + 1u;
  return odd * odd;
}

// ceil_log2 as upstream (0 for 0).
EXACTVMAF_HD_INLINE int ceil_log2(u32 n) {
  if (n == 0) return 0;
  u32 t = n - 1;
  int s = 0;
  while (t > 0) {
    t >>= 1;
    ++s;
  }
  return s;
}

// get_mask_index for the 7x7 filter at the full (encode) size.
EXACTVMAF_HD_INLINE u32 mask_index(unsigned w, unsigned h) {
  const u32 shifted = (w >> 6) * (h >> 6);
  const int v = (mask_filter_size * mask_filter_size + 3 * (ceil_log2(shifted) - 11) - 1) >> 1;
  return static_cast<u16>(v);
}

// The size of the next scale.
EXACTVMAF_HD_INLINE unsigned half_up(unsigned n) { return (n + 1) >> 1; }

// Upstream's sliding-window loops give each row and column its true window
// only when the scale has at least pad + 1 rows and pad columns (pad =
// window / 2); below that they read outside the scaled picture.
EXACTVMAF_HD_INLINE bool scale_fits_window(unsigned w, unsigned h, int window_size) {
  const unsigned pad = static_cast<unsigned>(window_size) >> 1;
  return h >= pad + 1 && w >= pad;
}

// ---- 1. preprocessing -------------------------------------------------------

// fp64 island of the resampling: start = (float)(ratio / 2 - 0.5), the
// halving in float and the subtraction of the double 0.5 (upstream's
// `float start_x = ratio_x / 2 - 0.5`).
EXACTVMAF_HD_INLINE float resample_start_f64(float ratio) {
  return static_cast<float>(static_cast<double>(ratio / 2.0f) - 0.5);
}

// fp64 island: (int)(x + 0.5) with the double 0.5 (exact for these x).
EXACTVMAF_HD_INLINE int resample_index_f64(float x) { return static_cast<int>(static_cast<double>(x) + 0.5); }

// The source index of every output row or column of upstream's nearest
// neighbour resampling (decimate_generic_*): the position starts at
// ratio / 2 - 0.5 and grows by the float ratio in a float chain. For some
// sizes above 4200 the chain drifts to index `in` at the end (upstream then
// reads one sample past the row or plane); the index is clamped to the last
// sample and the function returns false.
EXACTVMAF_HD_INLINE bool nearest_indices(unsigned in, unsigned out, u32* idx) {
  const float ratio = static_cast<float>(in) / static_cast<float>(out);
  float x = resample_start_f64(ratio);
  bool inside = true;
  for (unsigned j = 0; j < out; ++j) {
    const int i = resample_index_f64(x);
    const bool ok = i >= 0 && static_cast<unsigned>(i) < in;
    inside = inside && ok;
    idx[j] = ok ? static_cast<u32>(i) : (i < 0 ? 0u : in - 1);
    x += ratio;
  }
  return inside;
}

// A sample of bit depth bpc at 10 bits: shifted up below 10 bits; above, a
// rounding shift (12 and 16 bits can give 1024).
EXACTVMAF_HD_INLINE u16 to_10bit(unsigned v, unsigned bpc) {
  if (bpc <= 10) return static_cast<u16>(v << (10 - bpc));
  const unsigned shift = bpc - 10;
  return static_cast<u16>((v + (1u << (shift - 1))) >> shift);
}

// One output row of the preprocessing: src_row is the input row (already
// chosen through the row map), col_map the column map or null (same width).
template <class Sample>
EXACTVMAF_HD_INLINE void convert_row(const Sample* src_row, const u32* col_map, unsigned w, unsigned bpc, u16* out) {
  if (col_map) {
    for (unsigned j = 0; j < w; ++j) out[j] = to_10bit(src_row[col_map[j]], bpc);
  } else {
    for (unsigned j = 0; j < w; ++j) out[j] = to_10bit(src_row[j], bpc);
  }
}

// anti_dithering_filter of row i (not the last) given the next, original,
// row: the 2x2 average, the last column averaged with the sample below; the
// last row (next == null): averaged with the right neighbour, its last
// sample kept. Sample j from the original samples (every backend).
EXACTVMAF_HD_INLINE u16 anti_dither_sample(const u16* row, const u16* next, unsigned w, unsigned j) {
  if (!next) return j + 1 < w ? static_cast<u16>((row[j] + row[j + 1]) >> 1) : row[j];
  if (j + 1 < w) return static_cast<u16>((row[j] + row[j + 1] + next[j] + next[j + 1]) >> 2);
  return static_cast<u16>((row[j] + next[j]) >> 1);
}

// Upstream works in place from the top left, which reads only samples not
// yet replaced: row by row in place, as here, is the same.
EXACTVMAF_HD_INLINE void anti_dither_row(u16* row, const u16* next, unsigned w) {
  for (unsigned j = 0; j < w; ++j) row[j] = anti_dither_sample(row, next, w, j);
}

EXACTVMAF_HD_INLINE void anti_dither_last_row(u16* row, unsigned w) {
  for (unsigned j = 0; j + 1 < w; ++j) row[j] = anti_dither_sample(row, nullptr, w, j);
}

// ---- 2. spatial mask -----------------------------------------------------------

// Zero-derivative flag of sample j of row r (`below` is the next row, or r
// itself for the last row, which compares as equal): 1 where the sample
// equals its right and lower neighbours (the last column has no right one).
EXACTVMAF_HD_INLINE u16 derivative_sample(const u16* r, const u16* below, unsigned w, unsigned j) {
  if (j + 1 < w) return static_cast<u16>(r[j] == r[j + 1] && r[j] == below[j]);
  return static_cast<u16>(r[j] == below[j]);
}

// The zero-derivative flags of row `row`.
EXACTVMAF_HD_INLINE void derivative_row(const u16* img, std::ptrdiff_t stride, unsigned w, unsigned h, unsigned row,
                                        u16* out) {
  const u16* r = img + static_cast<std::ptrdiff_t>(row) * stride;
  const u16* below = row + 1 < h ? r + stride : r;
  for (unsigned j = 0; j < w; ++j) out[j] = derivative_sample(r, below, w, j);
}

// A pixel is masked when more flags than mask_index lie in its 7x7 window
// (clipped to the picture).
EXACTVMAF_HD_INLINE u16 mask_from_window_flags(u32 flags_in_window, u32 index) {
  return static_cast<u16>(flags_in_window > index);
}

// The mask row from the column counts (flags of the 7 rows around it, per
// column): the 7-wide horizontal sum, zero outside the row, compared with
// mask_index.
EXACTVMAF_HD_INLINE void mask_row_from_column_counts(const u16* column_counts, unsigned w, u32 index, u16* out) {
  constexpr int pad = mask_filter_size / 2;
  u32 sum = 0;
  for (int j = 0; j < pad && j < static_cast<int>(w); ++j) sum += column_counts[j];
  for (int j = 0; j < static_cast<int>(w); ++j) {
    if (j + pad < static_cast<int>(w)) sum += column_counts[j + pad];
    if (j - pad - 1 >= 0) sum -= column_counts[j - pad - 1];
    out[j] = mask_from_window_flags(sum, index);
  }
}

// ---- 3. scales ------------------------------------------------------------------

// decimate: out[j] = src_row[2j] (src_row is row 2i; in place is safe).
EXACTVMAF_HD_INLINE void decimate_row(const u16* src_row, unsigned w_out, u16* out) {
  for (unsigned j = 0; j < w_out; ++j) out[j] = src_row[2 * j];
}

// mode3: the value two of the three share, else the smallest.
EXACTVMAF_HD_INLINE u16 mode3(u16 a, u16 b, u16 c) {
  if (a == b || a == c) return a;
  if (b == c) return b;
  const u16 ab = a <= b ? a : b;
  return ab <= c ? ab : c;
}

// filter_mode, horizontal half: mode3 of each sample and its neighbours,
// the first and last samples copied.
EXACTVMAF_HD_INLINE u16 mode_horizontal_sample(const u16* in, unsigned w, unsigned j) {
  if (j == 0 || j + 1 >= w) return in[j];
  return mode3(in[j - 1], in[j], in[j + 1]);
}

EXACTVMAF_HD_INLINE void mode_horizontal_row(const u16* in, unsigned w, u16* out) {
  for (unsigned j = 0; j < w; ++j) out[j] = mode_horizontal_sample(in, w, j);
}

// filter_mode, vertical half: row i (0 < i < h - 1) becomes mode3 of the
// horizontal results of rows i - 1, i, i + 1. Rows 0 and h - 1 keep their
// unfiltered samples.
EXACTVMAF_HD_INLINE void mode_vertical_row(const u16* a, const u16* b, const u16* c, unsigned w, u16* out) {
  for (unsigned j = 0; j < w; ++j) out[j] = mode3(a[j], b[j], c[j]);
}

// The histograms: one row of `w` uint16 counts per band value (row k counts
// value v_band_base + k); column j counts the masked pixels of that value
// in the window's columns around j and the window's rows around the row
// being computed. Rows enter and leave the window as runs (below).
EXACTVMAF_HD_INLINE bool in_band(u16 v, const Params& p) {
  return static_cast<u16>(v - p.v_band_base) < p.v_band_size;
}

// The histogram row of band value v.
EXACTVMAF_HD_INLINE u16* histogram_row(u16* hist, u16 v, const Params& p, unsigned w) {
  return hist + static_cast<std::size_t>(v - p.v_band_base) * w;
}

// Moving the window down one row, at one column: remove the leaving sample
// (bit 1) and add the entering one (bit 2) where they are counted; nothing
// when both are counted with the same value.
inline constexpr unsigned slide_remove = 1, slide_add = 2;
EXACTVMAF_HD_INLINE unsigned slide_action(u16 out_v, u16 out_m, u16 in_v, u16 in_m, const Params& p) {
  const bool sub = out_m && in_band(out_v, p);
  const bool add = in_m && in_band(in_v, p);
  if (sub && add && out_v == in_v) return 0;
  return (sub ? slide_remove : 0u) | (add ? slide_add : 0u);
}

// Samples of one value in columns [first, last] of one row, to be added to
// (or removed from) the histograms: each counts in the columns within pad
// of it, clipped to the row. Consecutive equal samples (flat areas, where
// the mask is 1) make one run, whose windows together add a trapezoid.
struct CountRun {
  u16 value;
  u16 remove;  // 1: remove
  int first, last;
};

// Appends to runs[*n] the sample of column j, extending the last run when
// it continues it.
EXACTVMAF_HD_INLINE void push_run(CountRun* runs, unsigned* n, u16 v, bool remove, int j, unsigned* open) {
  if (*open != ~0u && runs[*open].value == v && runs[*open].last == j - 1) {
    runs[*open].last = j;
    return;
  }
  *open = *n;
  runs[(*n)++] = CountRun{v, static_cast<u16>(remove ? 1 : 0), j, j};
}

// The runs of the masked in-band samples of one row (at most w).
EXACTVMAF_HD_INLINE unsigned row_runs(const u16* img_row, const u16* mask_row, unsigned w, const Params& p, bool remove,
                                      CountRun* runs) {
  unsigned n = 0, open = ~0u;
  for (int j = 0; j < static_cast<int>(w); ++j)
    if (mask_row[j] && in_band(img_row[j], p)) push_run(runs, &n, img_row[j], remove, j, &open);
  return n;
}

// The runs of one slide (slide_action per column; at most 2w).
EXACTVMAF_HD_INLINE unsigned slide_runs(const u16* out_img, const u16* out_mask, const u16* in_img, const u16* in_mask,
                                        unsigned w, const Params& p, CountRun* runs) {
  unsigned n = 0, open_remove = ~0u, open_add = ~0u;
  for (int j = 0; j < static_cast<int>(w); ++j) {
    const unsigned act = slide_action(out_img[j], out_mask[j], in_img[j], in_mask[j], p);
    if (act & slide_remove) push_run(runs, &n, out_img[j], true, j, &open_remove);
    if (act & slide_add) push_run(runs, &n, in_img[j], false, j, &open_add);
  }
  return n;
}

// Column k's count from a run: its samples within pad of k.
EXACTVMAF_HD_INLINE int run_count_at(const CountRun& r, int k, int pad) {
  const int first = k - pad > r.first ? k - pad : r.first;
  const int last = k + pad < r.last ? k + pad : r.last;
  return last - first + 1;
}

// The columns a run changes: [*left, *right).
EXACTVMAF_HD_INLINE void run_columns(const CountRun& r, int pad, unsigned w, int* left, int* right) {
  *left = r.first - pad < 0 ? 0 : r.first - pad;
  *right = r.last + pad + 1 > static_cast<int>(w) ? static_cast<int>(w) : r.last + pad + 1;
}

// Applies runs to the histograms (uint16 arithmetic: the counts are exact
// in any order).
EXACTVMAF_HD_INLINE void apply_runs(u16* hist, const CountRun* runs, unsigned n, int pad, unsigned w, const Params& p) {
  for (unsigned i = 0; i < n; ++i) {
    const CountRun& r = runs[i];
    u16* row = histogram_row(hist, r.value, p, w);
    int left, right;
    run_columns(r, pad, w, &left, &right);
    for (int k = left; k < right; ++k) {
      const unsigned c = static_cast<unsigned>(run_count_at(r, k, pad));
      row[k] = static_cast<u16>(r.remove ? row[k] - c : row[k] + c);
    }
  }
}

// c_value_pixel: the c-value of a masked pixel of 10-bit value v from the
// window counts, count(k) = masked pixels of value v_band_base + k in its
// window (k inside the band). For each diff d + 1 the pixel's tvi and
// visibility tests gate the contrast term
//   (float)(w_d * p0 * pmax) * reciprocal[p0 + pmax],
// p0 = count of v, pmax = the larger count of v + d + 1 and v - d - 1 (0
// below the band); the c-value is the largest term (0 without one).
// `reciprocal` is reciprocal_table (upstream's table, not 1.0f / i).
template <class Count>
EXACTVMAF_HD_INLINE float c_value(u16 v, const Params& p, const Count& count, const float* reciprocal) {
  const int k = static_cast<int>(v) - static_cast<int>(p.v_band_base);
  if (static_cast<unsigned>(k) >= p.v_band_size) return 0.0f;
  const int value = static_cast<int>(v) + p.num_diffs;  // upstream's shifted sample
  const int p0 = count(k);
  float c = 0.0f;
  for (int d = 0; d < p.num_diffs; ++d) {
    if (value > static_cast<int>(p.tvi_for_diff[d]) || value + d + 1 <= static_cast<int>(p.vlt_luma)) continue;
    const int p1 = count(k + d + 1);
    const int p2 = k - d - 1 >= 0 ? count(k - d - 1) : 0;
    const int pmax = p1 > p2 ? p1 : p2;
    const float term = static_cast<float>(p.diff_weights[d] * p0 * pmax) * reciprocal[pmax + p0];
    if (term > c) c = term;
  }
  return c;
}

// The c-value of column j (sample v, masked) from the histograms of a row
// of width w (layout above).
EXACTVMAF_HD_INLINE float c_value_from_histograms(const u16* hist, unsigned w, unsigned j, u16 v, const Params& p,
                                                  const float* reciprocal) {
  const u16* column = hist + j;
  return c_value(v, p, [&](int k) { return static_cast<int>(column[static_cast<std::size_t>(k) * w]); }, reciprocal);
}

// The c-values of one row (0 where the mask is 0).
EXACTVMAF_HD_INLINE void c_values_row(const u16* hist, const u16* img_row, const u16* mask_row, unsigned w,
                                      const Params& p, const float* reciprocal, float* out) {
  for (unsigned j = 0; j < w; ++j)
    out[j] = mask_row[j] ? c_value_from_histograms(hist, w, j, img_row[j], p, reciprocal) : 0.0f;
}

// ---- 3b. pooling ----------------------------------------------------------------
//
// R's rule (DESIGN.md §2 rule 3, its second exact sum): a scale's pooled value
// is the exact sum of the k largest c-values (a multiset: ties are equal
// floats), rounded once to double, divided by k. Upstream sums them in the
// order its quick-select leaves them. Any exact method gives R's bits; the
// one here is a two-level radix select on the float bits (c-values are
// finite and >= +0, so their bit patterns order like their values):
//   pass 1: count the top 16 bits (topk_count_high), find the bucket B that
//           holds the k-th largest and how many lie above it (topk_find);
//   pass 2: exact-add every value above B, count B's values by their low 16
//           bits (topk_split); then the low counts give the threshold T and
//           the sum of B's part (topk_finish): values above T in full, T as
//           often as the k-th place needs.

// clip((int)(topk * n), 1, n): the double product truncated to int.
EXACTVMAF_HD_INLINE u32 topk_count(double topk, u32 n) {
  const int k = static_cast<int>(topk * static_cast<double>(static_cast<int>(n)));
  if (k < 1) return 1;
  if (k > static_cast<int>(n)) return n;
  return static_cast<u32>(k);
}

EXACTVMAF_HD_INLINE u32 float_key(float c) { return dd::bits_of(c); }

// x * count added exactly (x >= 0 finite, count < 2^32).
EXACTVMAF_HD_INLINE void add_repeated(rmath::ExactSumF32& acc, float x, u32 count) {
  const u32 u = dd::bits_of(x);
  const u32 biased = (u >> 23) & 0xffu;
  const u32 frac = u & 0x7fffffu;
  if (count == 0 || (biased == 0 && frac == 0)) return;
  const u64 m = biased != 0 ? (frac | 0x800000u) : frac;
  const int pos = biased != 0 ? static_cast<int>(biased) - 1 : 0;  // x = m 2^(pos - 149)
  const u64 total = m * count;                                      // < 2^56
  acc.add_scaled(total & 0xffffffffull, pos, false);
  if (total >> 32) acc.add_scaled(total >> 32, pos + 32, false);
}

// Where the k-th largest lies, from counts[0 .. max_key] of the top 16 key
// bits: bucket = its top bits, above = how many values have larger top bits.
struct TopKBucket {
  u32 bucket = 0, above = 0;
};
EXACTVMAF_HD_INLINE TopKBucket topk_find(const u32* counts, u32 max_key, u32 k) {
  TopKBucket b;
  u32 cum = 0;
  for (u32 key = max_key + 1; key-- > 0;) {
    const u32 c = counts[key];
    if (cum + c >= k) {
      b.bucket = key;
      b.above = cum;
      return b;
    }
    cum += c;
  }
  return b;  // not reached: k <= n
}

// Adds the bucket's share: low_counts[lo .. hi] counts its values by their
// low 16 bits; `need` = k - above of them, largest first, are added.
EXACTVMAF_HD_INLINE void topk_finish(rmath::ExactSumF32& acc, u32 bucket, const u32* low_counts, u32 lo, u32 hi,
                                     u32 need) {
  for (u32 low = hi + 1; low-- > lo && need > 0;) {
    const u32 c = low_counts[low];
    if (c == 0) continue;
    const u32 take = c < need ? c : need;
    add_repeated(acc, dd::float_from_bits((bucket << 16) | low), take);
    need -= take;
  }
}

// The pooled value from the exact sum of the top k: rounded once, then
// upstream's `(double)sum / topk_elements`.
EXACTVMAF_HD_INLINE double pooled_value(const rmath::ExactSumF32& top_sum, u32 k) {
  return top_sum.round_to_double() / static_cast<double>(static_cast<int>(k));
}

// Pass 1: high_counts += the top 16 bits of each value; returns the largest.
// Zeros (most c-values) are counted apart: a run of increments of one
// counter would serialise on it.
EXACTVMAF_HD_INLINE u32 topk_count_high(const float* c, u32 n, u32* high_counts) {
  u32 max_key = 0, zeros = 0;
  for (u32 i = 0; i < n; ++i) {
    const u32 bits = float_key(c[i]);
    if (bits == 0) {
      ++zeros;
      continue;
    }
    const u32 key = bits >> 16;
    ++high_counts[key];
    max_key = key > max_key ? key : max_key;
  }
  high_counts[0] += zeros;
  return max_key;
}

// Pass 2: values above the bucket go to acc, the bucket's values are counted
// by their low 16 bits in low_counts, whose used range [*lo, *hi] is returned.
EXACTVMAF_HD_INLINE void topk_split(const float* c, u32 n, u32 bucket, rmath::ExactSumF32& acc, u32* low_counts,
                                    u32* lo, u32* hi) {
  u32 l = 0xffffu, h = 0;
  for (u32 i = 0; i < n; ++i) {
    const u32 key = float_key(c[i]);
    if (key == 0 && bucket != 0) continue;  // below the bucket
    if ((key >> 16) > bucket) {
      acc.add(c[i]);
    } else if ((key >> 16) == bucket) {
      const u32 low = key & 0xffffu;
      ++low_counts[low];
      l = low < l ? low : l;
      h = low > h ? low : h;
    }
  }
  *lo = l;
  *hi = h;
}

// The whole pooling of one scale, sequentially: R's pooled value of the n
// (>= 1) c-values with k = topk_count(topk, n). high_counts and low_counts
// (65536 entries each) must be zero; they are zero again on return.
EXACTVMAF_HD_INLINE double topk_pool(const float* c, u32 n, double topk, u32* high_counts, u32* low_counts) {
  const u32 k = topk_count(topk, n);
  const u32 max_key = topk_count_high(c, n, high_counts);
  const TopKBucket b = topk_find(high_counts, max_key, k);
  rmath::ExactSumF32 acc{};
  u32 lo = 0, hi = 0;
  topk_split(c, n, b.bucket, acc, low_counts, &lo, &hi);
  topk_finish(acc, b.bucket, low_counts, lo, hi, k - b.above);
  for (u32 key = 0; key <= max_key; ++key) high_counts[key] = 0;
  for (u32 low = lo; low <= hi; ++low) low_counts[low] = 0;
  return pooled_value(acc, k);
}

// ---- 4. the frame score ------------------------------------------------------------

// weight_scores_per_scale: sum of pooled * weight in scale order (double
// chain from 0), over the window's pixel count.
EXACTVMAF_HD_INLINE double frame_score(const double* pooled, int window_size) {
  double s = 0.0;
  for (int scale = 0; scale < num_scales; ++scale) s += pooled[scale] * static_cast<double>(scale_weight(scale));
  return s / static_cast<double>(window_pixels(window_size));
}

EXACTVMAF_HD_INLINE double clip_max(double v, double max_val) { return v < max_val ? v : max_val; }

// cambi_full_reference before the clip: max(0, dist - src).
EXACTVMAF_HD_INLINE double full_reference(double dist, double src) {
  const double d = dist - src;
  return 0.0 > d ? 0.0 : d;
}

// ---- heat maps ----------------------------------------------------------------------

// dump_c_values' scale: 65535 / (the largest contrast weight * window^2 / 4,
// in int).
EXACTVMAF_HD_INLINE double heatmap_scale(const Params& p, int window_size) {
  int max_w = p.diff_weights[0];
  for (int d = 0; d < p.num_diffs; ++d) max_w = p.diff_weights[d] > max_w ? p.diff_weights[d] : max_w;
  const int max_c = max_w * window_size * window_size / 4;
  return 65535.0 / static_cast<double>(max_c);
}

// fp64 island: (uint16_t)(scale * c) as upstream's x86-64 build computes it
// (truncation to int32, then the low 16 bits). Values above 65535 wrap; they
// occur only when the largest contrast weight is not a multiple of 4
// (max_log_contrast 0, 1, 3, 5), where the int division of the scale's
// maximum rounds it down.
// A one-pixel window (window_size 15 below about 300x300) has a maximum of 0
// and an infinite scale: the product is inf or NaN, which x86 converts to
// 0x80000000 (low bits 0).
EXACTVMAF_HD_INLINE u16 heatmap_sample_f64(double scale, float c) {
  const double v = scale * static_cast<double>(c);
  if (!(v > -2147483649.0 && v < 2147483648.0)) return 0;
  return static_cast<u16>(static_cast<std::int32_t>(v));
}

}  // namespace exactvmaf::cambi
