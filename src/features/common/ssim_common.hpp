// What float_ssim and float_ms_ssim share (libvmaf's iqa code at f85a853:
// ssim_tools.c, convolve.c with IQA_CONVOLVE_1D, decimate.c): the 11x11
// Gaussian window applied separably where it fits, the decimation sample
// (a 2-D kernel with iqa's symmetric edge), the per-pixel SSIM terms, the
// means, and the dB form. docs/features/float_ssim.md and float_ms_ssim.md.
//
// The per-sample functions (EXACTVMAF_HD_INLINE) are the whole arithmetic; a
// CUDA worker calls them one output per thread. The two sums that end in a
// float store (window_sum, decimate_sample) are islands of an f64 policy F
// (numeric/f64_policy.hpp: the hardware's double, Sf64, or fp32 pairs first
// with an Sf64 replay in the fp64-free variant); elsewhere R's doubles are of
// the type T: double (the CPU, the fp64 device variant) or rmath::Sf64
// (binary64 in integer arithmetic: the fp64-free variant, the same bits). SsimRows and decimate_plane
// below (host only) are the CPU's loops over them: they only choose the
// order in which outputs are computed, never the order of any sum.
#pragma once
#include <cstddef>
#include <vector>

#include "numeric/cr_log.hpp"
#include "numeric/exact_ops.hpp"
#include "numeric/f64_policy.hpp"
#include "numeric/hd.hpp"
#include "numeric/sf64.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::ssim {

// ---- input ---------------------------------------------------------------------

// picture_copy with offset 0: (float)v for 8-bit, (float)v / 4, 16, 256 for
// 10, 12, 16 bit (the int offset 0 adds exactly).
EXACTVMAF_HD_INLINE float input_sample(unsigned v, unsigned bpc) {
  if (bpc == 8) return static_cast<float>(v);
  const float scaler = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
  return static_cast<float>(v) / scaler;
}

// ---- the window ----------------------------------------------------------------

// The Gaussian window's length and its taps (iqa's g_gaussian_window_h, equal
// to its _v; the 2-D table g_gaussian_window is not used with IQA_CONVOLVE_1D).
inline constexpr int window_len = 11;
inline constexpr int window_radius = window_len / 2;

EXACTVMAF_HD_INLINE float window_tap(int k) {
  const float taps[window_len] = {0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,
                                  0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f};
  return taps[k];
}

// One pass of _iqa_convolve (IQA_CONVOLVE_1D) at one output: the double sum,
// from tap 0, of the float products sample * tap, rounded to float (the
// kernel is "normalized", so its scale is 1.0f and multiplies exactly).
// at(k) is the k-th sample under the window: along a row for the horizontal
// pass, down a column of horizontal results for the vertical pass.
template <class F = rmath::NativeF64, class At>
EXACTVMAF_HD_INLINE float window_sum(const At& at, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  D sum{};  // +0
  for (int k = 0; k < window_len; ++k) sum = sum + D(at(k) * window_tap(k));
  return f.to_f32(sum);
}

// The window's output size along one axis (the maps are (w-10) x (h-10)).
EXACTVMAF_HD_INLINE int windowed_size(int n) { return n - window_len + 1; }

// The five planes _iqa_ssim convolves, at one sample: ref, cmp and the float
// products ref*ref, cmp*cmp, ref*cmp (stored to float before the window).
inline constexpr int map_count = 5;
EXACTVMAF_HD_INLINE float map_sample(int map, float ref, float cmp) {
  switch (map) {
    case 0: return ref;
    case 1: return cmp;
    case 2: return ref * ref;
    case 3: return cmp * cmp;
    default: return ref * cmp;
  }
}

// ---- decimation ------------------------------------------------------------------

// iqa's KBND_SYMMETRIC: index -1-i below 0, 2n-1-i above n-1, reflected once
// (upstream does not re-check; callers keep i within [-n, 2n)).
EXACTVMAF_HD_INLINE int reflect(int i, int n) {
  if (i < 0) return -1 - i;
  if (i >= n) return 2 * n - i - 1;
  return i;
}

// The window of a kw-tap kernel around a sample: offsets first..last
// (an even kernel reaches one further left than right: -f/2 .. f/2 - 1).
EXACTVMAF_HD_INLINE int kernel_first(int kw) { return -(kw / 2); }
EXACTVMAF_HD_INLINE int kernel_last(int kw) { return kw / 2 - (kw % 2 == 0 ? 1 : 0); }

// _iqa_decimate's output size: n / f + (n & 1) (upstream's rule: an odd
// size gets one more sample, which for an odd n divisible by f lies one
// sample past the edge, mirrored).
EXACTVMAF_HD_INLINE int decimated_size(int n, int factor) { return n / factor + (n & 1); }

// _iqa_filter_pixel at (x, y) of a w x h float plane (stride w) with a
// kw x kw kernel, taps(k) in row-major order: the double sum of the float
// products, rows outer and columns inner, rounded to float (kscale 1.0f).
// Upstream reads the plane directly where the window fits and through
// KBND_SYMMETRIC elsewhere; both read the same samples whenever the
// reflection stays inside the plane (kw / 2 <= w and <= h, which the
// features' size checks ensure).
template <class F = rmath::NativeF64, class Taps>
EXACTVMAF_HD_INLINE float decimate_sample(const Taps& taps, int kw, const float* img, int w, int h, int x, int y,
                                          F&& f = F{}) {
  using D = rmath::f64_of<F>;
  D sum{};  // +0
  int k = 0;
  for (int v = kernel_first(kw); v <= kernel_last(kw); ++v) {
    const float* row = img + static_cast<std::ptrdiff_t>(reflect(y + v, h)) * w;
    for (int u = kernel_first(kw); u <= kernel_last(kw); ++u, ++k) sum = sum + D(row[reflect(x + u, w)] * taps(k));
  }
  return f.to_f32(sum);
}

// ---- the per-pixel terms ---------------------------------------------------------

// C1 = (K1 L)^2, C2 = (K2 L)^2, C3 = C2 / 2 in float (K1 = 0.01f, K2 = 0.03f,
// L = 255 an int: float products).
EXACTVMAF_HD_INLINE float c1() {
  const float k1l = 0.01f * 255.0f;
  return k1l * k1l;
}
EXACTVMAF_HD_INLINE float c2() {
  const float k2l = 0.03f * 255.0f;
  return k2l * k2l;
}
EXACTVMAF_HD_INLINE float c3() { return c2() / 2.0f; }

template <class T>
struct TermsOf {
  T l, c, s;
};
using Terms = TermsOf<double>;

// One pixel of _iqa_ssim's default path from the five windowed values
// (mu_a, mu_b, the windowed a*a, b*b, a*b), upstream's types at every step:
//   sigma_a^2 = max(0, aa - mu_a^2), sigma_b^2 likewise, sigma_ab = ab - mu_a mu_b (floats);
//   sigma_a sigma_b = (float)sqrt((double)(sigma_a^2 sigma_b^2));
//   l = (2.0 mu_a mu_b + C1) / (float)(mu_a^2 + mu_b^2 + C1)      (double / float)
//   c = (2.0 sigma_a sigma_b + C2) / (float)(sigma_a^2 + sigma_b^2 + C2)
//   s = (float)((sigma_ab' + C3) / (sigma_a sigma_b + C3))          (float division)
// where sigma_ab' is 0 when sigma_ab < 0 and sigma_a sigma_b <= 0.
template <class T = double>
EXACTVMAF_HD_INLINE TermsOf<T> terms(float mu_a, float mu_b, float aa, float bb, float ab) {
  float sa = aa - mu_a * mu_a;
  float sb = bb - mu_b * mu_b;
  // MAX(0.0, x) compares in double and stores the float back (NaN kept).
  sa = 0.0 > T(sa) ? 0.0f : sa;
  sb = 0.0 > T(sb) ? 0.0f : sb;
  const float sab = ab - mu_a * mu_b;
  // (float)sqrt((double)p) of a float p is the correctly rounded float
  // square root: rounding first to 53 bits and then to 24 is innocuous for
  // sqrt, since 53 >= 2 * 24 + 2 (Figueroa, "When is double rounding
  // innocuous?", 1995). IEEE square root on both sides.
#if EXACTVMAF_DEVICE_CODE
  const float sigma = __fsqrt_rn(sa * sb);
#else
  const float sigma = __builtin_sqrtf(sa * sb);
#endif
  TermsOf<T> t;
  t.l = (2.0 * T(mu_a) * T(mu_b) + T(c1())) / T(mu_a * mu_a + mu_b * mu_b + c1());
  t.c = (2.0 * T(sigma) + T(c2())) / T(sa + sb + c2());
  const float clamped = (sab < 0.0f && sigma <= 0.0f) ? 0.0f : sab;
  t.s = T((clamped + c3()) / (sigma + c3()));
  return t;
}

// The mean of a sum over the w x h map, rounded to float: (float)(sum / (double)(w*h)), int w*h.
EXACTVMAF_HD_INLINE float mean_of(double sum, int w, int h) { return static_cast<float>(sum / static_cast<double>(w * h)); }

// _iqa_ssim's results: the means of l*c*s, l, c and s (floats).
struct Means {
  float ssim = 0.0f, l = 0.0f, c = 0.0f, s = 0.0f;
};

// ---- dB ------------------------------------------------------------------------

// clip_db's cap, once per run (host, R's log10): ceil(10 log10(peak^2 / (0.5 / (w h))))
// with the unsigned peak = 2^bpc - 1 and unsigned products, as upstream.
inline double max_db(unsigned bpc, unsigned w, unsigned h) {
  const unsigned peak = (1u << bpc) - 1u;
  const double mse = 0.5 / static_cast<double>(w * h);
  return rmath::ceil_f64(10. * rmath::cr_log10(static_cast<double>(peak * peak) / mse));
}

// convert_to_db: MIN(-10 log10(1 - score), max_db) (host, R's log10; max_db
// is +inf without clip_db).
inline double to_db(double score, double max_db) { return rmath::c_min(-10. * rmath::cr_log10(1 - score), max_db); }

// ---- the CPU's loops (host) ---------------------------------------------------------

// _iqa_ssim on the CPU over a pair of w x h float planes (stride w, w and h
// >= 11), streaming: the horizontal pass of an input row into a ring of 11
// rows per map, the vertical pass of one output row from the ring, then the
// row's terms added to the running sums in raster order (upstream's order).
// One per thread: its buffers are kept between calls.
class SsimRows {
 public:
  // With want_ssim false the mean of l*c*s is not computed (MS-SSIM does not use it).
  Means run(const float* a, const float* b, int w, int h, bool want_ssim) {
    const int dw = windowed_size(w), dh = windowed_size(h);
    const auto n = static_cast<std::size_t>(dw);
    ring_.resize(static_cast<std::size_t>(map_count) * 2 * window_len * n);
    products_.resize(3 * static_cast<std::size_t>(w));
    out_.resize(map_count * n);
    l_.resize(n);
    c_.resize(n);
    s_.resize(n);
    for (int r = 0; r < window_len - 1; ++r) horizontal(a, b, w, r, dw);
    double ssim_sum = 0.0, l_sum = 0.0, c_sum = 0.0, s_sum = 0.0;
    double* l = l_.data();
    double* c = c_.data();
    double* s = s_.data();
    for (int y = 0; y < dh; ++y) {
      horizontal(a, b, w, y + window_len - 1, dw);
      for (int m = 0; m < map_count; ++m) vertical(ring_row(m, y, dw), dw, out_.data() + static_cast<std::size_t>(m) * n);
      const float* mu_a = out_.data();
      const float* mu_b = mu_a + n;
      const float* aa = mu_b + n;
      const float* bb = aa + n;
      const float* ab = bb + n;
      for (int x = 0; x < dw; ++x) {
        const Terms t = terms(mu_a[x], mu_b[x], aa[x], bb[x], ab[x]);
        l[x] = t.l;
        c[x] = t.c;
        s[x] = t.s;
      }
      if (want_ssim)
        for (int x = 0; x < dw; ++x) ssim_sum += l[x] * c[x] * s[x];
      for (int x = 0; x < dw; ++x) {
        l_sum += l[x];
        c_sum += c[x];
        s_sum += s[x];
      }
    }
    Means m;
    m.ssim = mean_of(ssim_sum, dw, dh);
    m.l = mean_of(l_sum, dw, dh);
    m.c = mean_of(c_sum, dw, dh);
    m.s = mean_of(s_sum, dw, dh);
    return m;
  }

 private:
  // Row `row` of a map's ring. The ring holds every row twice (slots i and
  // i + 11), so the 11 rows under the window are consecutive slots.
  float* ring_row(int map, int row, int dw) {
    return ring_.data() +
           (static_cast<std::size_t>(map) * 2 * window_len + static_cast<std::size_t>(row % window_len)) *
               static_cast<std::size_t>(dw);
  }
  // The horizontal pass of input row r of the five maps into the ring.
  void horizontal(const float* a, const float* b, int w, int r, int dw) {
    const float* ra = a + static_cast<std::ptrdiff_t>(r) * w;
    const float* rb = b + static_cast<std::ptrdiff_t>(r) * w;
    float* aa = products_.data();
    float* bb = aa + w;
    float* ab = bb + w;
    for (int x = 0; x < w; ++x) {
      aa[x] = map_sample(2, ra[x], rb[x]);
      bb[x] = map_sample(3, ra[x], rb[x]);
      ab[x] = map_sample(4, ra[x], rb[x]);
    }
    const float* src[map_count] = {ra, rb, aa, bb, ab};
    for (int m = 0; m < map_count; ++m) {
      float* out = ring_row(m, r, dw);
      along_row(src[m], dw, out);
      float* copy = out + static_cast<std::ptrdiff_t>(window_len) * dw;
      for (int x = 0; x < dw; ++x) copy[x] = out[x];
    }
  }
  // The samples under the window (functors rather than lambdas: window_sum
  // is host and device code, and a .cu file compiles this class too).
  struct AlongRow {
    const float* src;
    int x;
    EXACTVMAF_HD_INLINE float operator()(int k) const { return src[x + k]; }
  };
  struct DownColumn {
    const float* top;
    int n, x;
    EXACTVMAF_HD_INLINE float operator()(int k) const { return top[static_cast<std::ptrdiff_t>(k) * n + x]; }
  };
  [[gnu::noinline]] static void along_row(const float* src, int n, float* __restrict out) {
    for (int x = 0; x < n; ++x) out[x] = window_sum(AlongRow{src, x});
  }
  // The vertical pass of one output row from the 11 rows at top, top + n, ...
  [[gnu::noinline]] static void vertical(const float* top, int n, float* __restrict out) {
    for (int x = 0; x < n; ++x) out[x] = window_sum(DownColumn{top, n, x});
  }

  std::vector<float> ring_, products_, out_;
  std::vector<double> l_, c_, s_;
};

// The buffers of decimate_plane, kept between calls (one per thread).
struct DecimateScratch {
  std::vector<float> taps, rows, line;
  std::vector<int> row_key, offset;
  std::vector<const float*> window;
};

// _iqa_decimate of a w x h float plane (stride w) by `factor` with a kw x kw
// kernel (taps(k) row-major), into dst (decimated_size(w) x decimated_size(h),
// stride decimated_size(w)), each output by decimate_sample's sum (rows
// outer, columns inner, from tap 0). The CPU reads each input row of a
// window once per output row through a cache of the rows with their
// reflected ends, split into `factor` phases (column i*factor + p in phase
// p) so that the outputs of a row read consecutive samples for every tap;
// eight outputs are summed side by side.
template <class Taps>
void decimate_plane(const Taps& taps, int kw, int factor, const float* img, int w, int h, float* dst,
                    DecimateScratch& s) {
  const int sw = decimated_size(w, factor), sh = decimated_size(h, factor);
  const int first = kernel_first(kw);
  // Columns read: first .. (sw - 1) * factor + last, i.e. `span` of them.
  const int span = (sw - 1) * factor + kernel_last(kw) - first + 1;
  const int phase_len = sw + (kw - 1) / factor;  // samples per phase
  const int row_len = phase_len * factor;
  s.taps.resize(static_cast<std::size_t>(kw) * static_cast<std::size_t>(kw));
  for (int k = 0; k < kw * kw; ++k) s.taps[static_cast<std::size_t>(k)] = taps(k);
  s.rows.resize(static_cast<std::size_t>(kw) * static_cast<std::size_t>(row_len));
  s.line.resize(static_cast<std::size_t>(row_len));
  s.row_key.assign(static_cast<std::size_t>(kw), -1 - 2 * h);  // no key is below -h
  const float* t = s.taps.data();
  // The cached copy of input row `key` (reflected), phases one after the other.
  const auto row_at = [&](int key) {
    const auto slot = static_cast<std::size_t>(((key % kw) + kw) % kw);
    float* out = s.rows.data() + slot * static_cast<std::size_t>(row_len);
    if (s.row_key[slot] != key) {
      s.row_key[slot] = key;
      const float* row = img + static_cast<std::ptrdiff_t>(reflect(key, h)) * w;
      // Column i + first at line[i] (the entries past `span` are never
      // read), then column j * factor + p + first in phase p, entry j.
      float* line = s.line.data();
      const int inner_begin = -first < span ? -first : span, inner_end = span < w - first ? span : w - first;
      for (int i = 0; i < inner_begin; ++i) line[i] = row[reflect(i + first, w)];
      for (int i = inner_begin; i < inner_end; ++i) line[i] = row[i + first];
      for (int i = inner_end; i < span; ++i) line[i] = row[reflect(i + first, w)];
      for (int i = span; i < row_len; ++i) line[i] = 0.0f;
      for (int p = 0; p < factor; ++p)
        for (int j = 0; j < phase_len; ++j) out[p * phase_len + j] = line[j * factor + p];
    }
    return static_cast<const float*>(out);
  };
  constexpr int block = 8;
  s.window.resize(static_cast<std::size_t>(kw));
  const float** rows = s.window.data();
  // Tap u of a row reads phase u % factor from entry x + u / factor.
  s.offset.resize(static_cast<std::size_t>(kw));
  for (int u = 0; u < kw; ++u) s.offset[static_cast<std::size_t>(u)] = (u % factor) * phase_len + u / factor;
  const int* off = s.offset.data();
  for (int y = 0; y < sh; ++y) {
    for (int v = 0; v < kw; ++v) rows[v] = row_at(y * factor + first + v);
    float* out = dst + static_cast<std::ptrdiff_t>(y) * sw;
    int x0 = 0;
    for (; x0 + block <= sw; x0 += block) {
      double acc[block] = {};
      for (int v = 0, k = 0; v < kw; ++v)
        for (int u = 0; u < kw; ++u, ++k) {
          const float* p = rows[v] + off[u] + x0;
          const float tap = t[k];
          for (int i = 0; i < block; ++i) acc[i] += static_cast<double>(p[i] * tap);
        }
      for (int i = 0; i < block; ++i) out[x0 + i] = static_cast<float>(acc[i]);
    }
    for (; x0 < sw; ++x0) {
      double acc = 0.0;
      for (int v = 0, k = 0; v < kw; ++v)
        for (int u = 0; u < kw; ++u, ++k)
          acc += static_cast<double>(rows[v][off[u] + x0] * t[k]);
      out[x0] = static_cast<float>(acc);
    }
  }
}

}  // namespace exactvmaf::ssim
