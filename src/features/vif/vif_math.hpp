// Integer VIF (libvmaf integer_vif.c at f85a853): the whole arithmetic, host
// and device. Per scale: a separable vertical-then-horizontal filter of the
// luma planes, their squares and product, in integers; per pixel the variances
// and covariance, a double division and truncated double products (the fp64
// islands below), and fixed-point log2 from a table; num/den accumulated in
// int64 per scale (exact in any order), then upstream's double tail stored to
// float. Between scales the planes are filtered and decimated by 2.
//
// Edges reflect without repeating the edge sample (row -k = row k, row
// h-1+k = row h-1-k), as upstream's padding. Every row function below works
// on one output row, so a device kernel can run one row per thread.
#pragma once
#include <cstddef>
#include <cstdint>

#include "features/common/mirror.hpp"
#include "numeric/f64_policy.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::vif {

inline constexpr int num_scales = 4;
inline constexpr int max_filter_radius = 8;  // scale 0's 17 taps
// Scratch rows carry this many samples of mirrored padding on either side.
inline constexpr unsigned row_pad = max_filter_radius;
// Below 16 samples in either direction some scale's filter would reach past
// the mirrored edge (upstream then reads stale memory).
inline constexpr unsigned min_plane_size = 16;
// Upstream's sigma_nsq = 65536 << 1: the noise variance in the sums' units.
inline constexpr std::int32_t sigma_nsq = 65536 << 1;
inline constexpr double default_gain_limit = 100.0;
// 2048 * log2(sigma_nsq) = 2048 * 17.
inline constexpr std::int32_t log2_sigma_nsq_q11 = 2048 * 17;

// Filter of `scale` (0..3): 17, 9, 5 and 3 taps, each set summing to 1 << 16.
EXACTVMAF_HD_INLINE constexpr int filter_width(int scale) { return scale == 0 ? 17 : scale == 1 ? 9 : scale == 2 ? 5 : 3; }

template <int Scale>
EXACTVMAF_HD_INLINE constexpr std::uint32_t filter_tap(int k) {
  if constexpr (Scale == 0) {
    constexpr std::uint16_t t[17] = {489,  935,  1640, 2640, 3896, 5274, 6547, 7455, 7784,
                                     7455, 6547, 5274, 3896, 2640, 1640, 935,  489};
    return t[k];
  } else if constexpr (Scale == 1) {
    constexpr std::uint16_t t[9] = {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244};
    return t[k];
  } else if constexpr (Scale == 2) {
    constexpr std::uint16_t t[5] = {3571, 16004, 26386, 16004, 3571};
    return t[k];
  } else {
    static_assert(Scale == 3);
    constexpr std::uint16_t t[3] = {10904, 43728, 10904};
    return t[k];
  }
}

// ---- fixed-point log2 ------------------------------------------------------

// Upstream's table holds round(log2f(i) * 2048) for i = 32767..65535; the
// lookups only ever read i = 32768..65535, which is what ours holds (64 KiB:
// fits a device's constant memory), entry i - 32768.
inline constexpr unsigned log2_table_first = 32768;
inline constexpr unsigned log2_table_size = 32768;

EXACTVMAF_HD_INLINE int leading_zeros_u32(std::uint32_t x) {
#if EXACTVMAF_DEVICE_CODE
  return __clz(static_cast<int>(x));
#else
  return __builtin_clz(x);
#endif
}

EXACTVMAF_HD_INLINE int leading_zeros_u64(std::uint64_t x) {
#if EXACTVMAF_DEVICE_CODE
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}

// 2048 log2(x) from the top 16 bits of x (upstream's log2_32); x >= 2^16.
EXACTVMAF_HD_INLINE std::int32_t log2_q11_u32(const std::uint16_t* table, std::uint32_t x) {
  const int k = 16 - leading_zeros_u32(x);
  return static_cast<std::int32_t>(table[(x >> k) - log2_table_first]) + 2048 * k;
}

// The same for 64-bit x (upstream's log2_64); x >= 2^17.
EXACTVMAF_HD_INLINE std::int32_t log2_q11_u64(const std::uint16_t* table, std::uint64_t x) {
  const int k = 48 - leading_zeros_u64(x);
  return static_cast<std::int32_t>(table[static_cast<std::uint32_t>(x >> k) - log2_table_first]) + 2048 * k;
}

// fp64 island of the table: upstream's (uint16_t)round(f * 2048) for the float
// f = log2f(i) in [15, 16): f * 2048 is exact, and f * 2048 + 0.5 is exact in
// double, so truncating it rounds half away from zero.
EXACTVMAF_HD_INLINE std::uint16_t log2_table_entry_from_log2f(float log2f_of_i) {
  const double scaled = static_cast<double>(log2f_of_i * 2048.0f);
  return static_cast<std::uint16_t>(static_cast<std::uint32_t>(scaled + 0.5));
}

// ---- fp64 islands of the per-pixel statistic -------------------------------
// Written against the fp64 policy F (numeric/f64_policy.hpp; default: the
// hardware's double).

// x86's conversions (cvttsd2si), as upstream's x86 build executes C's casts.
using rmath::x86_trunc_i32;
using rmath::x86_trunc_i64;

// Upstream's epsilon `65536 * 1.0e-10`, a double product rounded once.
inline constexpr double gain_eps = 65536 * 1.0e-10;

// g = sigma12 / (sigma1_sq + eps): the sum and the quotient each rounded to
// double.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE rmath::f64_of<F> gain_f64(std::int32_t sigma12, std::int32_t sigma1_sq, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  (void)f;
  return D(sigma12) / (D(sigma1_sq) + D(gain_eps));
}

// sv_sq = (int32_t)(sigma2_sq - g * sigma12): product and difference rounded
// to double, then truncated.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE std::int32_t residual_variance_i32(std::int32_t sigma2_sq, rmath::f64_of<F> g, std::int32_t sigma12,
                                                       F&& f = F{}) {
  using D = rmath::f64_of<F>;
  return f.trunc_i32(D(sigma2_sq) - g * D(sigma12));
}

// (int64_t)(g * g * sigma1_sq): (g * g) rounded, times sigma1_sq rounded,
// truncated.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE std::int64_t gain_sq_variance_i64(rmath::f64_of<F> g, std::int32_t sigma1_sq, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  return f.trunc_i64(g * g * D(sigma1_sq));
}

// libvmaf's MIN(g, limit): the limit when g is not less (ties, NaN).
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE rmath::f64_of<F> min_gain(rmath::f64_of<F> g, double limit, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  return f.lt(g, D(limit)) ? g : D(limit);
}

// Do x and y select the same entry of the log2 table (log2_q11_u64: the
// same shift and the same top 16 bits)? Both >= 2^17.
EXACTVMAF_HD_INLINE bool same_log2_entry(std::uint64_t x, std::uint64_t y) {
  const int kx = 48 - leading_zeros_u64(x), ky = 48 - leading_zeros_u64(y);
  return kx == ky && (x >> kx) == (y >> ky);
}

// The whole fp64 chain of one pixel as one island (a pure function of the
// policy, so an fp32-pair evaluation that cannot decide is replayed whole):
// the pixel's num_log term, log2(g^2 sigma1_sq + numer1) - log2(numer1) in
// Q11, with numer1 = max(sv_sq, 0) + sigma_nsq. Its two truncated integers
// are read only through the top 16 bits the log2 table takes, so a policy
// that knows them as ranges (fp32 pairs: identical pictures leave g^2
// sigma1_sq within 2^-16 of an integer) decides the term wherever each
// operand's range stays within one table entry. numer1 is monotone in
// sv_sq, and the sum in both integers, so the ends of the ranges bound them.
//
// sigma12 == sigma1_sq (= s: identical pictures' statistics) gives R's
// integers in closed form, which pairs could not resolve: eps > ulp(s) puts
// den = RN(s + eps) above s, and (den - s) / den >= 2.9e-15 (s < 2^31) keeps
// g = RN(s / den) below 1 by more than 2^-53 and within 5.5e-11 of it (s >=
// 2^17). So RN(g s) = s - d with d in (0, 0.12], and trunc(RN(sigma2_sq -
// RN(g s))) is sigma2_sq - s when that is >= 0 and <= 0 (clamped to 0)
// otherwise; with a gain limit of at least 1, g < limit, RN(g g) s < s and
// RN(RN(g g) s) lies in (s - 0.24, s): trunc is s - 1.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE std::int32_t num_log_term(std::int32_t sigma1_sq, std::int32_t sigma2_sq, std::int32_t sigma12,
                                              double gain_limit, const std::uint16_t* log2_table, F&& f = F{}) {
  using D = rmath::f64_of<F>;
  const bool identical = sigma12 == sigma1_sq;
  const D g_raw = gain_f64(sigma12, sigma1_sq, f);
  rmath::I64Range sv_sq{}, gain_sq_variance{};
  if (identical) {
    const std::int64_t v = sigma2_sq > sigma1_sq ? std::int64_t{sigma2_sq} - sigma1_sq : 0;
    sv_sq = {v, v};
  } else {
    sv_sq = f.trunc_i32_range(D(sigma2_sq) - g_raw * D(sigma12));  // residual_variance_i32
  }
  if (identical && f.ge(D(gain_limit), D(1.0))) {
    gain_sq_variance = {std::int64_t{sigma1_sq} - 1, std::int64_t{sigma1_sq} - 1};
  } else {
    const D g = min_gain(g_raw, gain_limit, f);
    gain_sq_variance = f.trunc_i64_range(g * g * D(sigma1_sq));  // gain_sq_variance_i64
  }
  // sv_sq < 2^31 (an int32), so numer1 fits the uint32 upstream adds in.
  const auto numer1 = [](std::int64_t sv) {
    return static_cast<std::uint32_t>(sv < 0 ? 0 : sv) + static_cast<std::uint32_t>(sigma_nsq);
  };
  const std::uint32_t numer1_lo = numer1(sv_sq.lo), numer1_hi = numer1(sv_sq.hi);
  const auto numer1_tmp_lo = static_cast<std::uint64_t>(gain_sq_variance.lo + numer1_lo);
  const auto numer1_tmp_hi = static_cast<std::uint64_t>(gain_sq_variance.hi + numer1_hi);
  if (!same_log2_entry(numer1_lo, numer1_hi) || !same_log2_entry(numer1_tmp_lo, numer1_tmp_hi)) f.cannot_decide();
  return log2_q11_u64(log2_table, numer1_tmp_lo) - log2_q11_u64(log2_table, numer1_lo);
}

// The per-scale accumulators (upstream's VifResiduals); integers, so the
// pixels may be visited in any order.
struct Residuals {
  std::int64_t num_log = 0, den_log = 0, num_non_log = 0, den_non_log = 0;
  EXACTVMAF_HD_INLINE void add(const Residuals& o) {
    num_log += o.num_log;
    den_log += o.den_log;
    num_non_log += o.num_non_log;
    den_non_log += o.den_non_log;
  }
};

// One pixel's contribution from its variances and covariance.
template <class F = rmath::NativeF64>
EXACTVMAF_HD_INLINE void accumulate_pixel(std::int32_t sigma1_sq, std::int32_t sigma2_sq, std::int32_t sigma12,
                                          double gain_limit, const std::uint16_t* log2_table, Residuals& r,
                                          F&& f = F{}) {
  if (sigma2_sq < 0) sigma2_sq = 0;
  if (sigma1_sq >= sigma_nsq) {
    // sigma1_sq <= 2^31 - 1, so the sum is at most 2^31 + 2^17: unsigned, as
    // upstream's int addition wraps to the same bits.
    r.den_log += log2_q11_u32(log2_table, static_cast<std::uint32_t>(sigma_nsq) + static_cast<std::uint32_t>(sigma1_sq)) -
                 log2_sigma_nsq_q11;
    if (sigma12 > 0 && sigma2_sq > 0)
      r.num_log += f.island([&](auto& g) { return num_log_term(sigma1_sq, sigma2_sq, sigma12, gain_limit, log2_table, g); });
  } else {
    r.num_non_log += sigma2_sq;
    r.den_non_log += 1;
  }
}

// Variances and covariance from the filtered sums of one pixel: mu (the
// filtered samples, 32 fractional bits against the squares' 16) and the
// filtered squares/product before their final rounding shift.
struct Sigmas {
  std::int32_t sigma1_sq, sigma2_sq, sigma12;
};

// One variance or covariance from a pixel's filtered square or product
// (before its rounding shift, 16 fractional bits) and the filtered samples
// mu_a, mu_b (32 fractional bits): upstream's
// (int32_t)((uint32_t)((sq + 2^15) >> 16) - (uint32_t)((mu_a mu_b + 2^31) >> 32)),
// the unsigned difference reinterpreted as int32 (modular in C++20, as
// upstream's gcc build).
EXACTVMAF_HD_INLINE std::int32_t sigma_of(std::uint64_t sq, std::uint32_t mu_a, std::uint32_t mu_b) {
  constexpr std::uint64_t half32 = std::uint64_t{1} << 31;
  const auto mu_ab = static_cast<std::uint32_t>((std::uint64_t{mu_a} * mu_b + half32) >> 32);
  const auto sq_filt = static_cast<std::uint32_t>((sq + 32768) >> 16);
  return static_cast<std::int32_t>(sq_filt - mu_ab);
}

EXACTVMAF_HD_INLINE Sigmas sigmas_from_sums(std::uint32_t mu1, std::uint32_t mu2, std::uint64_t xx, std::uint64_t yy,
                                            std::uint64_t xy) {
  return {sigma_of(xx, mu1, mu1), sigma_of(yy, mu2, mu2), sigma_of(xy, mu1, mu2)};
}

// ---- the statistic of one scale ---------------------------------------------

// Scratch for one row of vertical sums; each array holds w + 2 row_pad
// entries, column j at [row_pad + j].
struct StatRow {
  std::uint32_t* mu1;
  std::uint32_t* mu2;
  std::uint32_t* xx;
  std::uint32_t* yy;
  std::uint32_t* xy;
};

// The vertical pass's rounding: scale 0 brings samples of bpc bits to 16 bits
// (and squares to 32), later scales already hold 16-bit values.
struct VerticalShifts {
  unsigned mu_shift;
  std::uint32_t mu_round;
  unsigned sq_shift;
  std::uint64_t sq_round;
};

EXACTVMAF_HD_INLINE VerticalShifts statistic_shifts(int scale, unsigned bpc) {
  if (scale == 0) {
    const unsigned sq_shift = (bpc - 8) * 2;
    return {bpc, std::uint32_t{1} << (bpc - 1), sq_shift, sq_shift == 0 ? 0 : std::uint64_t{1} << (sq_shift - 1)};
  }
  return {16, 32768, 16, 32768};
}

// ---- per-sample filter helpers (the row functions below and the CUDA kernels
// both go through these) ----------------------------------------------------

// One column of the vertical pass, as stored in a StatRow.
struct VerticalSums {
  std::uint32_t mu1, mu2, xx, yy, xy;
};

// Vertical pass of N columns at `Scale`: x_at(k, c) / y_at(k, c) give the
// reference / distorted sample of the filter's k-th row (top to bottom) in
// column c < N; out[c] is column c's sums. SqAcc: uint32_t is exact for 8-bit
// samples (65536 * 255^2 < 2^32), uint64_t otherwise. Each column has its own
// accumulators, summed in tap order; the columns only share the loop over the
// rows (so that a kernel can read a row's N samples at once).
template <int Scale, class SqAcc, int N, class RefAt, class DisAt>
EXACTVMAF_HD_INLINE void vertical_sums_n(const RefAt& x_at, const DisAt& y_at, VerticalShifts s,
                                         VerticalSums (&out)[N]) {
  constexpr int width = filter_width(Scale);
  std::uint32_t mu1[N], mu2[N];
  SqAcc xx[N], yy[N], xy[N];
  for (int c = 0; c < N; ++c) {
    mu1[c] = mu2[c] = 0;
    xx[c] = yy[c] = xy[c] = 0;
  }
  for (int k = 0; k < width; ++k) {
    for (int c = 0; c < N; ++c) {
      const std::uint32_t x = x_at(k, c), y = y_at(k, c);
      const std::uint32_t fx = filter_tap<Scale>(k) * x, fy = filter_tap<Scale>(k) * y;
      mu1[c] += fx;
      mu2[c] += fy;
      xx[c] += static_cast<SqAcc>(fx) * x;
      yy[c] += static_cast<SqAcc>(fy) * y;
      xy[c] += static_cast<SqAcc>(fx) * y;
    }
  }
  for (int c = 0; c < N; ++c)
    out[c] = {static_cast<std::uint16_t>((mu1[c] + s.mu_round) >> s.mu_shift),
              static_cast<std::uint16_t>((mu2[c] + s.mu_round) >> s.mu_shift),
              static_cast<std::uint32_t>((xx[c] + s.sq_round) >> s.sq_shift),
              static_cast<std::uint32_t>((yy[c] + s.sq_round) >> s.sq_shift),
              static_cast<std::uint32_t>((xy[c] + s.sq_round) >> s.sq_shift)};
}

// Vertical pass of one column at `Scale`: x_at(k) / y_at(k) give the
// reference / distorted sample of the filter's k-th row (top to bottom).
template <int Scale, class SqAcc, class RefAt, class DisAt>
EXACTVMAF_HD_INLINE VerticalSums vertical_sums(const RefAt& x_at, const DisAt& y_at, VerticalShifts s) {
  VerticalSums v[1];
  vertical_sums_n<Scale, SqAcc>([&](int k, int) { return x_at(k); }, [&](int k, int) { return y_at(k); }, s, v);
  return v[0];
}

// Horizontal filter of N adjacent pixels at `Scale` for one quantity:
// at(i) gives the quantity at column j0 - radius + i (i < N + width - 1;
// mirrored), out[n] the filtered sum of pixel j0 + n:
// sum over k of Acc{tap k} * at(n + k). Acc is uint32_t for mu (taps sum to
// 2^16 and mu < 2^16: the sum stays below 2^32) and uint64_t for the squares
// and product (below 2^16 * 2^32): no sum wraps, so the order of the terms
// does not matter and N = 1 is upstream's per-pixel loop.
template <int Scale, int N, class Acc, class At>
EXACTVMAF_HD_INLINE void horizontal_filter_n(const At& at, Acc (&out)[N]) {
  constexpr int width = filter_width(Scale);
  for (int n = 0; n < N; ++n) out[n] = 0;
  for (int k = 0; k < width; ++k) {
    const Acc tap = filter_tap<Scale>(k);
    for (int n = 0; n < N; ++n) out[n] += tap * static_cast<Acc>(at(n + k));
  }
}

// Horizontal pass of one pixel at `Scale`: v_at(k) gives the VerticalSums of
// column j - radius + k (mirrored). Returns the variances and covariance.
template <int Scale, class VAt>
EXACTVMAF_HD_INLINE Sigmas horizontal_sigmas(const VAt& v_at) {
  std::uint32_t mu1[1], mu2[1];
  std::uint64_t xx[1], yy[1], xy[1];
  horizontal_filter_n<Scale, 1>([&](int k) { return v_at(k).mu1; }, mu1);
  horizontal_filter_n<Scale, 1>([&](int k) { return v_at(k).mu2; }, mu2);
  horizontal_filter_n<Scale, 1>([&](int k) { return v_at(k).xx; }, xx);
  horizontal_filter_n<Scale, 1>([&](int k) { return v_at(k).yy; }, yy);
  horizontal_filter_n<Scale, 1>([&](int k) { return v_at(k).xy; }, xy);
  return sigmas_from_sums(mu1[0], mu2[0], xx[0], yy[0], xy[0]);
}

// One filtered value of the decimation at scale `To`: at(k) gives the k-th
// sample under the filter; (sum + round) >> shift, kept to 16 bits.
template <int To, class At>
EXACTVMAF_HD_INLINE std::uint16_t decimation_sample(const At& at, unsigned shift, std::uint32_t round) {
  constexpr int width = filter_width(To);
  std::uint32_t acc = 0;
  for (int k = 0; k < width; ++k) acc += filter_tap<To>(k) * static_cast<std::uint32_t>(at(k));
  return static_cast<std::uint16_t>((acc + round) >> shift);
}

// The decimation's vertical rounding: scale 0's bpc-bit samples to 16 bits,
// later planes already hold 16-bit values. Its horizontal pass always uses
// (16, 32768).
EXACTVMAF_HD_INLINE unsigned decimation_vertical_shift(int to, unsigned bpc) { return to == 1 ? bpc : 16u; }

// The source rows under a filter of Width taps centred on row `centre` of
// an h-row plane pair, mirrored at its edges: r[k], d[k] for tap k.
template <int Width, class Sample>
EXACTVMAF_HD_INLINE void filter_rows(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                     std::ptrdiff_t dis_stride, int centre, unsigned h, const Sample** r,
                                     const Sample** d) {
  for (int k = 0; k < Width; ++k) {
    const std::ptrdiff_t row = mirror(centre - Width / 2 + k, static_cast<int>(h));
    r[k] = ref + row * ref_stride;
    d[k] = dis + row * dis_stride;
  }
}

// Vertical pass of row i at `Scale` over columns [j0, j1): filtered samples,
// squares and product into t (unpadded columns).
template <int Scale, class Sample, class SqAcc>
EXACTVMAF_HD inline void statistic_vertical(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                            std::ptrdiff_t dis_stride, unsigned h, unsigned i, VerticalShifts s,
                                            unsigned j0, unsigned j1, const StatRow& t) {
  constexpr int width = filter_width(Scale);
  const Sample* r[width];
  const Sample* d[width];
  filter_rows<width>(ref, ref_stride, dis, dis_stride, static_cast<int>(i), h, r, d);
  for (unsigned j = j0; j < j1; ++j) {
    const VerticalSums v =
        vertical_sums<Scale, SqAcc>([&](int k) { return r[k][j]; }, [&](int k) { return d[k][j]; }, s);
    t.mu1[row_pad + j] = v.mu1;
    t.mu2[row_pad + j] = v.mu2;
    t.xx[row_pad + j] = v.xx;
    t.yy[row_pad + j] = v.yy;
    t.xy[row_pad + j] = v.xy;
  }
}

// Mirrors `radius` columns at both ends of a row of w values stored from
// row[row_pad] on (upstream's PADDING_SQ_DATA).
template <class T>
EXACTVMAF_HD_INLINE void pad_row(T* row, unsigned w, int radius) {
  T* c = row + row_pad;
  const int last = static_cast<int>(w) - 1;
  for (int f = 1; f <= radius; ++f) {
    c[-f] = c[f];
    c[last + f] = c[last - f];
  }
}

// Horizontal pass and per-pixel statistic of columns [j0, j1) of a padded
// row of vertical sums.
template <int Scale, class F = rmath::NativeF64>
EXACTVMAF_HD inline void statistic_horizontal(const StatRow& t, unsigned j0, unsigned j1, double gain_limit,
                                              const std::uint16_t* log2_table, Residuals& r, F&& f = F{}) {
  constexpr int radius = filter_width(Scale) / 2;
  for (unsigned j = j0; j < j1; ++j) {
    const unsigned base = row_pad + j - radius;
    const Sigmas s = horizontal_sigmas<Scale>([&](int k) {
      return VerticalSums{t.mu1[base + k], t.mu2[base + k], t.xx[base + k], t.yy[base + k], t.xy[base + k]};
    });
    accumulate_pixel(s.sigma1_sq, s.sigma2_sq, s.sigma12, gain_limit, log2_table, r, f);
  }
}

// Residuals of row i of a w x h plane pair at `Scale`.
template <int Scale, class Sample, class SqAcc, class F = rmath::NativeF64>
EXACTVMAF_HD inline Residuals statistic_row(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                            std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i, unsigned bpc,
                                            double gain_limit, const std::uint16_t* log2_table, const StatRow& t,
                                            F&& f = F{}) {
  constexpr int radius = filter_width(Scale) / 2;
  statistic_vertical<Scale, Sample, SqAcc>(ref, ref_stride, dis, dis_stride, h, i, statistic_shifts(Scale, bpc), 0,
                                           w, t);
  pad_row(t.mu1, w, radius);
  pad_row(t.mu2, w, radius);
  pad_row(t.xx, w, radius);
  pad_row(t.yy, w, radius);
  pad_row(t.xy, w, radius);
  Residuals r;
  statistic_horizontal<Scale>(t, 0, w, gain_limit, log2_table, r, f);
  return r;
}

// ---- filtering and decimation between scales --------------------------------

// Scratch for one row of the decimation filter: w + 2 row_pad entries each.
struct ConvolveRow {
  std::uint32_t* ref;
  std::uint32_t* dis;
};

// Output row i (source row 2i) of the decimation from a w x h plane pair to
// scale `To` (1..3), filtered with scale To's taps: out[j] for j < w / 2 is
// the filtered value at source column 2j. The vertical pass brings scale 0's
// bpc-bit samples to 16 bits; later planes already hold 16-bit values.
template <int To, class Sample>
EXACTVMAF_HD inline void decimate_row(const Sample* ref, std::ptrdiff_t ref_stride, const Sample* dis,
                                      std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i, unsigned bpc,
                                      const ConvolveRow& t, std::uint16_t* out_ref, std::uint16_t* out_dis) {
  constexpr int width = filter_width(To), radius = width / 2;
  const unsigned shift = decimation_vertical_shift(To, bpc);
  const std::uint32_t round = std::uint32_t{1} << (shift - 1);
  const Sample* r[width];
  const Sample* d[width];
  filter_rows<width>(ref, ref_stride, dis, dis_stride, 2 * static_cast<int>(i), h, r, d);
  for (unsigned j = 0; j < w; ++j) {
    t.ref[row_pad + j] = decimation_sample<To>([&](int k) { return r[k][j]; }, shift, round);
    t.dis[row_pad + j] = decimation_sample<To>([&](int k) { return d[k][j]; }, shift, round);
  }
  pad_row(t.ref, w, radius);
  pad_row(t.dis, w, radius);
  for (unsigned jo = 0; jo < w / 2; ++jo) {
    const unsigned base = row_pad + 2 * jo - radius;
    out_ref[jo] = decimation_sample<To>([&](int k) { return t.ref[base + k]; }, 16, 32768);
    out_dis[jo] = decimation_sample<To>([&](int k) { return t.dis[base + k]; }, 16, 32768);
  }
}

// ---- per-frame tail -----------------------------------------------------------

struct ScaleScore {
  float num, den;
};

// num = num_log / 2048 + (den_non_log - num_non_log / 16384 / 65025) and
// den = den_log / 2048 + den_non_log, evaluated in double, stored to float.
EXACTVMAF_HD_INLINE ScaleScore scale_score(const Residuals& r) {
  const double num = static_cast<double>(r.num_log) / 2048.0 +
                     (static_cast<double>(r.den_non_log) - (static_cast<double>(r.num_non_log) / 16384.0) / 65025.0);
  const double den = static_cast<double>(r.den_log) / 2048.0 + static_cast<double>(r.den_non_log);
  return {static_cast<float>(num), static_cast<float>(den)};
}

// integer_vif_scaleN: the float quotient.
EXACTVMAF_HD_INLINE double scale_value(ScaleScore s) { return static_cast<double>(s.num / s.den); }

// The debug outputs: sums of the scales' floats in double, scale order.
struct FrameTotals {
  double num, den, score;
};

EXACTVMAF_HD_INLINE FrameTotals frame_totals(const ScaleScore* s, bool skip_scale0) {
  double num, den;
  if (skip_scale0) {
    num = static_cast<double>(s[1].num) + static_cast<double>(s[2].num) + static_cast<double>(s[3].num);
    den = static_cast<double>(s[1].den) + static_cast<double>(s[2].den) + static_cast<double>(s[3].den);
  } else {
    num = static_cast<double>(s[0].num) + static_cast<double>(s[1].num) + static_cast<double>(s[2].num) +
          static_cast<double>(s[3].num);
    den = static_cast<double>(s[0].den) + static_cast<double>(s[1].den) + static_cast<double>(s[2].den) +
          static_cast<double>(s[3].den);
  }
  return {num, den, den == 0.0 ? 1.0 : num / den};
}

}  // namespace exactvmaf::vif
