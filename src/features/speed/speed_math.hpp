// SpEED-QA (libvmaf speed.c and the vif_tools.c helpers it calls, at
// f85a853): the whole arithmetic of speed_chroma and speed_temporal, host and
// device. R is upstream's scalar C (--cpumask 63). Every C type is written
// out where upstream's expression changes type:
//   - a float passed to sqrt, log2, exp, sin or floor is promoted to double
//     (C has no float overloads), and the double result is stored to float
//     where upstream stores it;
//   - a double literal (2.0, 0.5, 1e-6, 0.75) makes its expression double;
//   - float op int stays float; size_t divisors are converted to float
//     (means, score) or double (covariance) as C converts them.
// Sums keep upstream's sequential order: means in float, covariance in
// double, the matrix products, Householder and QR sweeps as upstream loops
// them, entropies and score in float.
// Elementary functions come from a policy M (HostMath: R's host functions;
// FastMath: the host+device fast paths, which flag an undecided call so that
// the caller recomputes the frame on the host; Sf64Math: the same without
// fp64). R's doubles are of the type T = real_of<M>: double, or Sf64
// (binary64 in integer arithmetic, numeric/sf64.hpp) in the device variant
// without fp64 and its CPU emulation; every double statement below is written
// once for both (docs/fp64-free.md). Where an island is provably one IEEE
// float operation (a float square root of a float, a halving), the Sf64
// variant evaluates it in fp32: the same bits, no emulation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "features/common/separable_filter.hpp"
#include "features/common/vif_tools.hpp"
#include "numeric/cr_exp.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_trig.hpp"
#include "numeric/dd.hpp"
#include "numeric/fp32pair.hpp"
#include "numeric/hd.hpp"
#include "numeric/rmath_policy.hpp"
#include "numeric/sf64.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::speed {

inline constexpr unsigned num_scales = 4;      // 16x decimation
inline constexpr unsigned block_size = 5;      // DEFAULT_BLOCK_SIZE
inline constexpr unsigned block_elems = 25;    // block_size^2: the covariance matrix is 25x25
inline constexpr unsigned covariance_terms = block_elems * (block_elems + 1) / 2;  // its lower triangle: 325
inline constexpr double eigen_eps = 1e-6;      // EIGENVALUE_EPS (a double)
inline constexpr int eigen_max_iters = 500;    // EIGENVALUE_MAX_ITERS

// vif_tools.c's helpers (features/common/vif_tools.hpp).
using vif_tools::abs_f32;
using vif_tools::bicubic_kernel;
using vif_tools::ceil_to_int;
using vif_tools::Filter;
using vif_tools::filter_size;
using vif_tools::floor_to_int;
using vif_tools::gaussian_kernel;
using vif_tools::gaussian_pdf;
using vif_tools::Lanczos4Axis;
using vif_tools::lanczos4_apply;
using vif_tools::lanczos4_axis;
using vif_tools::lanczos4_kernel;
using vif_tools::max_filter_taps;
using vif_tools::mirror_f32;
using vif_tools::round_up_to_odd;
using vif_tools::sample_to_float;
using vif_tools::scale_coord;
using vif_tools::scaled_sample;
using vif_tools::ScaleAxis;
using vif_tools::ScaleMethod;
using vif_tools::sqrt_f64;
using vif_tools::two_pi;

// log2(2 * M_PI * M_E): gcc folds it with MPFR (correctly rounded) from the
// double product (2 * pi) * e; cr_log2 of the same product gives the same bits.
inline constexpr double two_pi_e = two_pi * 2.7182818284590452354;

// ---- exact helpers ------------------------------------------------------------

using rmath::f32_of;
using rmath::real_of;
using rmath::Sf64;
using rmath::sqrt_of;  // IEEE square root of a double or an Sf64


template <class T>
inline constexpr bool is_sf64 = std::is_same_v<T, Sf64>;

// (float)sqrt((double)s) of a float s. With T = Sf64 the IEEE float square
// root, which is the same value: rounding sqrt(s) first to 53 bits and then
// to 24 gives the correctly rounded float, since 53 >= 2 * 24 + 2 (Figueroa,
// "When is double rounding innocuous?", 1995).
template <class T>
EXACTVMAF_HD_INLINE float sqrt_f32_through_f64(float s) {
  if constexpr (is_sf64<T>) {
#if EXACTVMAF_DEVICE_CODE
    return __fsqrt_rn(s);
#else
    return __builtin_sqrtf(s);
#endif
  } else {
    return static_cast<float>(sqrt_f64(static_cast<double>(s)));
  }
}

// get_sign: 1 for x >= 0 (and -0), -1 otherwise (NaN: -1).
EXACTVMAF_HD_INLINE int sign_of(float x) { return x >= 0 ? 1 : -1; }

// ---- elementary functions -------------------------------------------------------

// R's functions (src/numeric/rmath_policy.hpp); FastMath and Sf64Math flag
// undecided calls.
using HostMath = rmath::HostMathPolicy;
using FastMath = rmath::FastMathPolicy;
// The fp64-free variant; it also counts the covariance chains the filter
// decided and those replayed in Sf64 (the CPU's emulation of the device).
struct Sf64Math : rmath::Sf64FastMathPolicy {
  unsigned filtered = 0, replayed = 0;
};

// ---- dimensions -----------------------------------------------------------------

struct Dims {
  unsigned orig_w = 0, orig_h = 0;      // the plane read
  unsigned scaled_w = 0, scaled_h = 0;  // after speed_prescale
  unsigned dec_w = 0, dec_h = 0;        // after the 16x decimation
  unsigned trunc_w = 0, trunc_h = 0;    // whole blocks only
  unsigned blocks_x = 0, blocks_y = 0, num_blocks = 0;
  unsigned sub_w = 0, sub_h = 0;        // samples per covariance term
};

// speed_init_dimensions; valid() false where upstream logs "image too small".
inline Dims make_dims(unsigned w, unsigned h, double prescale) {
  Dims d;
  d.orig_w = w;
  d.orig_h = h;
  d.scaled_w = static_cast<unsigned>(static_cast<int>(static_cast<double>(w) * prescale + 0.5));
  d.scaled_h = static_cast<unsigned>(static_cast<int>(static_cast<double>(h) * prescale + 0.5));
  d.dec_w = d.scaled_w >> num_scales;
  d.dec_h = d.scaled_h >> num_scales;
  d.trunc_w = d.dec_w / block_size * block_size;
  d.trunc_h = d.dec_h / block_size * block_size;
  d.blocks_x = d.trunc_w / block_size;
  d.blocks_y = d.trunc_h / block_size;
  d.num_blocks = d.blocks_x * d.blocks_y;
  d.sub_w = d.trunc_w >= block_size ? d.trunc_w - block_size + 1 : 0;
  d.sub_h = d.trunc_h >= block_size ? d.trunc_h - block_size + 1 : 0;
  return d;
}
inline bool dims_valid(const Dims& d) { return d.trunc_w != 0 && d.trunc_h != 0; }

// ---- filters (host, once per extractor) -------------------------------------------

// vif_get_filter(scale 4): stdev = window / 5.0f in float.
template <class M>
Filter local_mean_filter(float kernelscale, M& m) {
  return vif_tools::vif_filter(static_cast<int>(num_scales), kernelscale, m);
}

// speed_get_antialias_filter(scale 4): the scale-1 window, stdev
// sqrt(4) * window / 5.0f evaluated in double (sqrt(int) is double), to float.
template <class M>
Filter antialias_filter(float kernelscale, M& m) {
  Filter f;
  const int ws = filter_size(1, kernelscale);
  gaussian_kernel(f, ws, static_cast<float>(sqrt_f64(4.0) * static_cast<double>(ws) / static_cast<double>(5.0f)), m);
  return f;
}

// ---- samples ------------------------------------------------------------------------

// ---- filtering: features/common/separable_filter.hpp (filter_at, PlaneRef) -----------------

// ---- est_params -----------------------------------------------------------------------

#if defined(__CUDA_ARCH__)
#define EXACTVMAF_SPEED_UNROLL _Pragma("unroll")
#else
#define EXACTVMAF_SPEED_UNROLL
#endif

// One chain per call (the device's thread per chain): the sub_h x sub_w
// samples in row order, each row read chain_batch samples at a time into
// registers before they are added (so that a device thread has a batch of
// loads in flight instead of one load per dependent add; the last batch of a
// row is partial). The additions are the plain row-order loops' (the host
// test checks them against the CPU's interleaved loops).
inline constexpr unsigned chain_batch = 32;

// Chain rows [i0, i1) of block offset (r, c), continuing acc: row r + i of
// the plane is data's row r + i - first_row (the device stages the plane in
// bands of rows; a whole plane has first_row 0). Sample is the type the
// samples are held in (a device's staged copy may hold them already widened
// to T: the conversion is exact, so the terms are the same).
EXACTVMAF_HD_INLINE float block_mean_rows(const float* data, std::ptrdiff_t stride, unsigned first_row, const Dims& d,
                                          unsigned r, unsigned c, unsigned i0, unsigned i1, float acc) {
  for (unsigned i = i0; i < i1; ++i) {
    const float* row = data + static_cast<std::ptrdiff_t>(r + i - first_row) * stride + c;
    for (unsigned j = 0; j < d.sub_w; j += chain_batch) {
      const unsigned left = d.sub_w - j;
      float v[chain_batch];
      EXACTVMAF_SPEED_UNROLL
      for (unsigned k = 0; k < chain_batch; ++k) v[k] = k < left ? row[j + k] : 0.0f;
      EXACTVMAF_SPEED_UNROLL
      for (unsigned k = 0; k < chain_batch; ++k)
        if (k < left) acc += v[k];
    }
  }
  return acc;
}

// The sample count of block_mean's division (size_t to float).
EXACTVMAF_HD_INLINE float mean_count(const Dims& d) {
  return static_cast<float>(static_cast<std::size_t>(d.sub_w) * d.sub_h);
}

// compute_mean for block offset (r, c): float sum in row order, divided by
// the sample count converted to float.
EXACTVMAF_HD_INLINE float block_mean(const float* data, std::ptrdiff_t stride, const Dims& d, unsigned r, unsigned c) {
  return block_mean_rows(data, stride, 0, d, r, c, 0, d.sub_h, 0.0f) / mean_count(d);
}

// The sample count of a covariance term in R's double (size_t to double).
template <class T>
EXACTVMAF_HD_INLINE T term_count(const Dims& d) {
  return T(static_cast<std::int64_t>(static_cast<std::size_t>(d.sub_w) * d.sub_h));
}

// Chain rows [i0, i1) of the covariance of offsets x and y (0..24),
// continuing acc; data, stride and first_row as for block_mean_rows.
template <class T, class Sample = float>
EXACTVMAF_HD_INLINE T block_covariance_rows(const Sample* data, std::ptrdiff_t stride, unsigned first_row,
                                            const Dims& d, T mean_x, T mean_y, unsigned xi, unsigned yi, unsigned i0,
                                            unsigned i1, T acc) {
  const unsigned rx = xi / block_size, cx = xi % block_size, ry = yi / block_size, cy = yi % block_size;
  for (unsigned i = i0; i < i1; ++i) {
    const Sample* row_x = data + static_cast<std::ptrdiff_t>(rx + i - first_row) * stride + cx;
    const Sample* row_y = data + static_cast<std::ptrdiff_t>(ry + i - first_row) * stride + cy;
    for (unsigned j = 0; j < d.sub_w; j += chain_batch) {
      const unsigned left = d.sub_w - j;
      Sample vx[chain_batch], vy[chain_batch];
      EXACTVMAF_SPEED_UNROLL
      for (unsigned k = 0; k < chain_batch; ++k) {
        vx[k] = k < left ? row_x[j + k] : Sample(0.0f);
        vy[k] = k < left ? row_y[j + k] : Sample(0.0f);
      }
      EXACTVMAF_SPEED_UNROLL
      for (unsigned k = 0; k < chain_batch; ++k)
        if (k < left) acc = acc + (T(vx[k]) - mean_x) * (T(vy[k]) - mean_y);
    }
  }
  return acc;
}

// compute_covariance of offsets x and y (0..24): the double sum of
// (x - mean_x)(y - mean_y), divided by the count in double, stored to float.
template <class T>
EXACTVMAF_HD_INLINE float block_covariance(const float* data, std::ptrdiff_t stride, const Dims& d, const float* means,
                                           unsigned xi, unsigned yi) {
  const T acc = block_covariance_rows<T>(data, stride, 0, d, T(means[xi]), T(means[yi]), xi, yi, 0, d.sub_h, T(0.0));
  return f32_of(acc / term_count<T>(d));
}

// The 25 means and the 325 covariance terms with their chains interleaved
// (the CPU's loop order): the samples in row order outside, the chains inside,
// so that every chain adds the same terms in the same order as block_mean /
// block_covariance (which the device runs one thread per chain).
inline void block_means_interleaved(const float* data, std::ptrdiff_t stride, const Dims& d, float* means) {
  float acc[block_elems] = {};
  for (unsigned i = 0; i < d.sub_h; ++i)
    for (unsigned j = 0; j < d.sub_w; ++j)
      for (unsigned o = 0; o < block_elems; ++o)
        acc[o] += data[(o / block_size + i) * stride + (o % block_size + j)];
  const float count = mean_count(d);
  for (unsigned o = 0; o < block_elems; ++o) means[o] = acc[o] / count;
}

// cov (25 x 25, both triangles) from the means.
template <class T>
void covariance_matrix_interleaved(const float* data, std::ptrdiff_t stride, const Dims& d, const float* means,
                                   float* cov) {
  T acc[block_elems * block_elems];
  T mean[block_elems], c[block_elems];
  for (auto& a : acc) a = T(0.0);
  for (unsigned o = 0; o < block_elems; ++o) mean[o] = T(means[o]);
  for (unsigned i = 0; i < d.sub_h; ++i)
    for (unsigned j = 0; j < d.sub_w; ++j) {
      for (unsigned o = 0; o < block_elems; ++o)
        c[o] = T(data[(o / block_size + i) * stride + (o % block_size + j)]) - mean[o];
      for (unsigned x = 0; x < block_elems; ++x) {
        const T cx = c[x];
        T* row = acc + x * block_elems;
        for (unsigned y = 0; y <= x; ++y) row[y] = row[y] + cx * c[y];
      }
    }
  const T count = term_count<T>(d);
  for (unsigned x = 0; x < block_elems; ++x)
    for (unsigned y = 0; y <= x; ++y) {
      const float v = f32_of(acc[x * block_elems + y] / count);
      cov[x * block_elems + y] = v;
      cov[y * block_elems + x] = v;
    }
}

// ---- the covariance without fp64: an exact filter, then R's chain in Sf64 ------------
//
// R keeps a chain's accumulator in double through n roundings, which a pair
// cannot follow step by step. The filter instead forms the exact sum T of the
// exact terms t_i = (x_i - mx)(y_i - my) (integer products of the floats'
// significands on a grid 2^-unit fitted to the plane's largest sample), and a
// rigorous bound on the distance of R's sum S from T: R rounds x_i - mx,
// y_i - my and their product (3 roundings, together <= 3.0001 u |t_i|) and
// each of its additions (<= u |S_k|), u = 2^-53, and |S_k| <= |T_k| +
// u A (2n + 4) with T_k the exact prefixes and A = sum |t_i|:
//   |S - T| <= u (3.0001 A + sum_k |T_k|) + u^2 A n (2n + 4).
// R's float of S / n is then decided on pairs (Fp32PairF64::to_f32, which adds
// the division's rounding); where R's chain is provably exact (every value a
// multiple of the products' lowest bit and below 2^52 of it: short samples),
// S is T and the quotient is one Sf64 division, exact ties included; where a
// rounding boundary lies within the bound, the chain is replayed in Sf64
// (block_covariance<Sf64>): R's bits either way (docs/fp64-free.md). Each
// thread of a device warp takes every 32nd term (coalesced loads) and the
// prefixes come from a warp scan; the CPU runs the same terms in one
// sequence. Both bound sum_k |T_k| from float prefixes; `depth` is how many
// float additions a prefix or the abs sum went through (their rounding is
// covered by 1 + depth 2^-23).

// The exact part of a chain (or of a thread's share of it).
struct CovExact {
  int unit = 0;                  // the grid is 2^-unit
  float max_difference = 0.0f;   // |x - mean|, |y - mean| are below this (else the chain is replayed)
  std::uint64_t lo = 0, hi = 0;  // the sum, 128-bit two's complement, in units of 2^-unit
  std::uint64_t or_lo = 0, or_hi = 0;  // the OR of the products on the grid: their lowest set bit
  unsigned truncated = 0;        // products with bits below the grid (dropped: less than one unit each)
  unsigned nonzero = 0;          // terms whose product is nonzero
  float abs_sum = 0.0f;          // float sum of |RN_f(s1 s2)|
  bool out_of_range = false;     // a difference not finite or not below max_difference
  bool inexact_difference = false;  // some x - mean or y - mean that R's double rounds
};

// A chain's start for a plane whose samples (and so its means) are at most
// max_abs in magnitude (the float's bits): differences below 2^(E+2), E the
// exponent of max_abs, terms below 2^(2E+4), and n <= 2^17 of them below
// 2^(2E+21); the unit 2^-(104 - 2E) keeps that below 2^125 units.
EXACTVMAF_HD_INLINE CovExact cov_start(std::uint32_t max_abs_bits) {
  CovExact c;
  const int field = static_cast<int>((max_abs_bits >> 23) & 0xffu);
  const int e = field == 0 ? -127 : field - 127;
  if (field == 0xff || e > 60) {  // not finite, or beyond what the grid is for: replay
    c.out_of_range = true;
    return c;
  }
  c.unit = 104 - 2 * e;
  c.max_difference = rmath::pair_detail::pow2_f32(e + 2 > -126 ? e + 2 : -126);
  return c;
}

EXACTVMAF_HD_INLINE void cov_add_u128(CovExact& c, std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t l = c.lo + lo;
  c.hi += hi + (l < lo ? 1u : 0u);
  c.lo = l;
}

// Adds the exact product a * b (floats) on the grid.
EXACTVMAF_HD_INLINE void cov_add_product(CovExact& c, float a, float b) {
  if (a == 0.0f || b == 0.0f) return;
  const std::uint32_t ua = dd::bits_of(a), ub = dd::bits_of(b);
  const std::uint32_t fa = (ua >> 23) & 0xffu, fb = (ub >> 23) & 0xffu;
  const std::uint64_t ma = fa ? (ua & 0x7fffffu) | 0x800000u : ua & 0x7fffffu;
  const std::uint64_t mb = fb ? (ub & 0x7fffffu) | 0x800000u : ub & 0x7fffffu;
  // at most 61: a, b below 2^(E+2)
  const int shift = (fa ? static_cast<int>(fa) - 150 : -149) + (fb ? static_cast<int>(fb) - 150 : -149) + c.unit;
  const std::uint64_t prod = ma * mb;  // < 2^48
  std::uint64_t lo = 0, hi = 0;
  if (shift >= 64) {
    hi = prod << (shift - 64);
  } else if (shift > 0) {
    lo = prod << shift;
    hi = prod >> (64 - shift);
  } else if (shift == 0) {
    lo = prod;
  } else if (shift > -64) {
    lo = prod >> -shift;
    if ((prod & ((std::uint64_t{1} << -shift) - 1)) != 0) ++c.truncated;
  } else {
    ++c.truncated;
  }
  c.or_lo |= lo;
  c.or_hi |= hi;
  if (((ua ^ ub) >> 31) != 0) {  // negative: add the two's complement
    lo = ~lo + 1;
    hi = ~hi + (lo == 0 ? 1u : 0u);
  }
  cov_add_u128(c, lo, hi);
}

EXACTVMAF_HD_INLINE int ctz64(std::uint64_t x) {  // x != 0
  const auto low = static_cast<std::uint32_t>(x);
  return low ? rmath::pair_detail::ctz32(low) : 32 + rmath::pair_detail::ctz32(static_cast<std::uint32_t>(x >> 32));
}

// The exponent of the lowest set bit of a nonzero finite float.
EXACTVMAF_HD_INLINE int lowest_bit_exp(float v) {
  const std::uint32_t u = dd::bits_of(v);
  const std::uint32_t f = (u >> 23) & 0xffu;
  const std::uint32_t m = f ? (u & 0x7fffffu) | 0x800000u : u & 0x7fffffu;
  return (f ? static_cast<int>(f) - 150 : -149) + rmath::pair_detail::ctz32(m);
}

// Whether R's double holds the difference s + e (two_sum's result) exactly:
// its bits from s's leading one (e's bits lie below s's lowest) span at most 53.
EXACTVMAF_HD_INLINE bool difference_fits_f64(rmath::pair_detail::Two d) {
  if (d.hi == 0.0f) return true;
  const std::uint32_t u = dd::bits_of(d.hi);
  const std::uint32_t f = (u >> 23) & 0xffu;
  const int lead = f ? static_cast<int>(f) - 127 : -127;
  return lead - lowest_bit_exp(d.lo != 0.0f ? d.lo : d.hi) <= 52;
}

// One term: the exact differences (two_sum), their exact product on the
// grid; returns RN_f of the differences' float parts' product, for the float
// prefixes and the abs sum.
EXACTVMAF_HD_INLINE float cov_add_term(CovExact& c, float x, float mx, float y, float my) {
  const rmath::pair_detail::Two dx = rmath::pair_detail::two_sum(x, -mx);
  const rmath::pair_detail::Two dy = rmath::pair_detail::two_sum(y, -my);
  if (!(abs_f32(dx.hi) < c.max_difference && abs_f32(dy.hi) < c.max_difference)) {
    c.out_of_range = true;  // also NaN
    return 0.0f;
  }
  if (!difference_fits_f64(dx) || !difference_fits_f64(dy)) c.inexact_difference = true;
  cov_add_product(c, dx.hi, dy.hi);
  cov_add_product(c, dx.hi, dy.lo);
  cov_add_product(c, dx.lo, dy.hi);
  cov_add_product(c, dx.lo, dy.lo);
  const float p = dx.hi * dy.hi;
  if (dx.hi != 0.0f && dy.hi != 0.0f) ++c.nonzero;
  c.abs_sum += abs_f32(p);
  return p;
}

// c += o (o from the same cov_start).
EXACTVMAF_HD_INLINE void cov_merge(CovExact& c, const CovExact& o) {
  cov_add_u128(c, o.lo, o.hi);
  c.or_lo |= o.or_lo;
  c.or_hi |= o.or_hi;
  c.truncated += o.truncated;
  c.nonzero += o.nonzero;
  c.abs_sum += o.abs_sum;
  c.out_of_range = c.out_of_range || o.out_of_range;
  c.inexact_difference = c.inexact_difference || o.inexact_difference;
}

// 2^e as a float: normal, subnormal, or 0 below 2^-149 (e <= 127).
EXACTVMAF_HD_INLINE float pow2_or_zero(int e) {
  if (e >= -126) return rmath::pair_detail::pow2_f32(e);
  return e >= -149 ? dd::float_from_bits(std::uint32_t{1} << (e + 149)) : 0.0f;
}

// R's float of S / n from the exact sum and the bound, when no float rounding
// boundary is within reach; false otherwise (replay the chain). prefix_abs:
// the float sum of |float prefix| over the n prefixes.
EXACTVMAF_HD_INLINE bool cov_decide(const CovExact& c, float prefix_abs, float depth, std::uint64_t n, float* out) {
  using namespace rmath::pair_detail;
  if (c.out_of_range || n == 0 || n > (std::uint64_t{1} << 17)) return false;
  if (c.nonzero == 0 && c.truncated == 0) {  // every term exactly 0: R's sum is +0, its quotient +0
    *out = 0.0f;
    return true;
  }
  const bool negative = (c.hi >> 63) != 0;
  std::uint64_t mlo = c.lo, mhi = c.hi;
  if (negative) {
    mlo = ~mlo + 1;
    mhi = ~mhi + (mlo == 0 ? 1u : 0u);
  }
  const int lz = mhi ? rmath::sf64_detail::clz64(mhi) : (mlo ? 64 + rmath::sf64_detail::clz64(mlo) : 128);
  const int lead = 127 - lz;  // T's leading bit has weight 2^(lead - unit); -1: T = 0
  // |t_i| <= |p_i| (1 + 2^-21) + 2^-148 (the differences' low parts, p's
  // rounding or underflow); a float sum of depth additions is off by at most
  // depth 2^-24 of its terms' magnitudes (plus 2^-150 per addition of a
  // nonzero term where it is subnormal).
  const float nf = static_cast<float>(n);
  const float grow = 1.0f + depth * 0x1p-23f;
  const float a = (c.abs_sum * grow * (1.0f + 0x1p-21f) + static_cast<float>(c.nonzero) * 0x1p-148f) * kSlack;
  // R's chain exact: every difference is, and every product and partial sum,
  // multiples of the products' lowest bit 2^g bounded by sum |t_i| < 2^(g+52),
  // fits a double. Then R's S is T and R's quotient is one Sf64 division.
  if (!c.inexact_difference && c.truncated == 0) {
    const int g = (c.or_lo ? ctz64(c.or_lo) : 64 + ctz64(c.or_hi)) - c.unit;  // some product is nonzero
    if (g + 52 > 127 ? a <= 0x1.fffffep127f : a < pow2_or_zero(g + 52)) {  // 2^(g+52) beyond floats: a finite
      const int drop = lead > 63 ? lead - 63 : 0;  // zero bits (T is a multiple of 2^g)
      const std::uint64_t sig =
          drop == 0 ? mlo : (drop >= 64 ? mhi >> (drop - 64) : (mlo >> drop) | (mhi << (64 - drop)));
      const Sf64 s = lead < 0 ? Sf64(0.0)
                              : Sf64::from_bits(rmath::sf64_detail::round_f64(negative, drop - c.unit, sig, false));
      *out = f32_of(s / Sf64(static_cast<std::int64_t>(n)));
      return true;
    }
  }
  // On pairs: T's top 48 bits (lo's lowest bit may be subnormal), the rest
  // below one unit of lo. Sums too small for that are replayed.
  if (lead < 0 || lead - 47 - c.unit < -149 || lead - 23 - c.unit < -126) return false;
  std::uint64_t window;  // T's bits lead..lead-63
  if (lz == 0) window = mhi;
  else if (lz < 64) window = (mhi << lz) | (mlo >> (64 - lz));
  else window = mlo << (lz - 64);
  const float hi = static_cast<float>(window >> 40) * pow2_f32(lead - 23 - c.unit);
  const float lo = static_cast<float>((window >> 16) & 0xffffffu) * pow2_or_zero(lead - 47 - c.unit);  // exact
  const Two t = fast_two_sum(hi, lo);
  const float conv = pow2_or_zero(lead - 47 - c.unit);  // the dropped bits: below one unit of lo
  const float prefixes = (prefix_abs * grow + nf * (depth * 0x1p-23f + 0x1p-21f) * a + nf * nf * 0x1p-148f) * kSlack;
  const float r_bound = bound_mul(0x1p-53f, 3.0001f * a + prefixes) + bound_mul(a * nf * (2.0f * nf + 4.0f), 0x1p-106f);
  // the dropped products: less than one unit each (a unit below 2^-126 counts as 2^-126)
  const float ours = static_cast<float>(c.truncated) * pow2_f32(-c.unit > -126 ? -c.unit : -126) + conv;
  const float err = (r_bound + ours) * (1.0f + 0x1p-18f);
  const rmath::PairF64 v = negative ? rmath::PairF64{-t.hi, -t.lo, err} : rmath::PairF64{t.hi, t.lo, err};
  rmath::Fp32PairF64 f;
  const float r = f.to_f32(v / rmath::PairF64(static_cast<std::int64_t>(n)));
  if (f.undecided) return false;
  *out = r;
  return true;
}

// The largest |sample| of the region the chains read (rows and columns
// 0..trunc - 1), as its float bits (their order is the magnitudes').
EXACTVMAF_HD_INLINE std::uint32_t max_abs_bits(const float* data, std::ptrdiff_t stride, const Dims& d) {
  std::uint32_t m = 0;
  for (unsigned i = 0; i < d.trunc_h; ++i)
    for (unsigned j = 0; j < d.trunc_w; ++j) {
      const std::uint32_t b = dd::bits_of(data[static_cast<std::ptrdiff_t>(i) * stride + j]) & 0x7fffffffu;
      m = b > m ? b : m;
    }
  return m;
}

// The filter of one chain in R's order (the CPU's fp64-free path): true when
// decided (*out is R's float). max_abs: max_abs_bits of the plane.
EXACTVMAF_HD_INLINE bool block_covariance_filter(const float* data, std::ptrdiff_t stride, const Dims& d,
                                                 const float* means, unsigned xi, unsigned yi, std::uint32_t max_abs,
                                                 float* out) {
  const unsigned rx = xi / block_size, cx = xi % block_size, ry = yi / block_size, cy = yi % block_size;
  const float mean_x = means[xi], mean_y = means[yi];
  CovExact c = cov_start(max_abs);
  float prefix = 0.0f, prefix_abs = 0.0f;
  for (unsigned i = 0; i < d.sub_h; ++i) {
    const float* row_x = data + static_cast<std::ptrdiff_t>(rx + i) * stride + cx;
    const float* row_y = data + static_cast<std::ptrdiff_t>(ry + i) * stride + cy;
    for (unsigned j = 0; j < d.sub_w; ++j) {
      prefix += cov_add_term(c, row_x[j], mean_x, row_y[j], mean_y);
      prefix_abs += abs_f32(prefix);
    }
  }
  const std::uint64_t n = static_cast<std::uint64_t>(d.sub_w) * d.sub_h;
  return cov_decide(c, prefix_abs, static_cast<float>(n), n, out);
}

// cov from the means without fp64, chain by chain (the CPU's emulation of the
// device): the filter, and R's chain in Sf64 where it cannot decide.
inline void covariance_matrix_fp64_free(const float* data, std::ptrdiff_t stride, const Dims& d, const float* means,
                                        float* cov, Sf64Math& m) {
  const std::uint32_t max_abs = max_abs_bits(data, stride, d);
  for (unsigned x = 0; x < block_elems; ++x)
    for (unsigned y = 0; y <= x; ++y) {
      float v = 0.0f;
      ++m.filtered;
      if (!block_covariance_filter(data, stride, d, means, x, y, max_abs, &v)) {
        ++m.replayed;
        v = block_covariance<Sf64>(data, stride, d, means, x, y);
      }
      cov[x * block_elems + y] = v;
      cov[y * block_elems + x] = v;
    }
}

// ---- eigenvalues (adapted GSL symmtd + symm, as upstream) -------------------------------

template <class T>
EXACTVMAF_HD_INLINE float pythagoras(float x, float y) {
  return sqrt_f32_through_f64<T>(x * x + y * y);
}

// compute_column_norm of A[start:size, col] (n x n).
template <class T>
EXACTVMAF_HD_INLINE float column_norm(const float* A, int col, int start, int n) {
  float s = 0;
  for (int i = start; i < n; ++i) s += A[i * n + col] * A[i * n + col];
  return sqrt_f32_through_f64<T>(s);
}

// compute_householder_transform; returns tau.
template <class T>
EXACTVMAF_HD_INLINE float householder(float* A, int col, int start, int n) {
  if (n - start == 1) return 0.0f;
  const float xnorm = column_norm<T>(A, col, start + 1, n);
  if (xnorm == 0.0f) return 0.0f;
  const float alpha = A[start * n + col];
  const float beta = static_cast<float>(-sign_of(alpha)) * pythagoras<T>(alpha, xnorm);
  const float tau = (beta - alpha) / beta;
  const float s = alpha - beta;
  if (s != 0.0f) {
    for (int i = start; i < n; ++i) A[i * n + col] /= s;
    A[start * n + col] = beta;
  }
  return tau;
}

// tridiagonal_multiply's x[i] = sum_j tau * A[i][j] * v[j] (from 0, in j order).
EXACTVMAF_HD_INLINE float tridiag_multiply_entry(const float* A, const float* v, float tau, int i, int start, int n) {
  float x = 0.0f;
  for (int j = start; j < n; ++j) x += tau * A[i * n + j] * v[j];
  return x;
}

// -0.5 * tau * xv in double, stored to float. The double is exact (-0.5 tau
// is, and a product of two floats has 48 bits), so R's float is the float
// rounding of -0.5 tau xv: with T = Sf64, -0.5f times the float product,
// where halving is exact (the product's magnitude in [2^-120, 2^126]) or the
// product is zero.
template <class T>
EXACTVMAF_HD_INLINE float householder_alpha(float tau, float xv) {
  if constexpr (is_sf64<T>) {
    const float p = tau * xv;
    const float ap = abs_f32(p);
    if (p == 0.0f || (ap >= 0x1p-120f && ap <= 0x1p126f)) return -0.5f * p;
  }
  return f32_of(-0.5 * T(tau) * T(xv));
}

// a < 1e-6 * s for floats a and s, the product and the comparison in double
// (chop_small_elements, qr_step's shift test). Without fp64 (T = Sf64) the
// product is first an fp32 pair with a bound (numeric/fp32pair.hpp), which
// decides unless a lies within the bound of it; then Sf64.
template <class T>
EXACTVMAF_HD_INLINE bool below_eps_times(float a, float s) {
  if constexpr (is_sf64<T>) {
    rmath::Fp32PairF64 pairs;
    const bool below = pairs.lt(rmath::PairF64(a), rmath::PairF64(eigen_eps) * rmath::PairF64(s));
    if (!pairs.undecided) return below;
  }
  return T(a) < eigen_eps * T(s);
}

// chop_small_elements: |sd| < 1e-6 * (|d_i| + |d_i+1|), the sum in float, the
// product and comparison in double.
template <class T>
EXACTVMAF_HD_INLINE void chop_small(const float* d, float* sd, int n) {
  for (int i = 0; i < n - 1; ++i)
    if (below_eps_times<T>(abs_f32(sd[i]), abs_f32(d[i]) + abs_f32(d[i + 1]))) sd[i] = 0.0f;
}

// (double)(ta - tb) / 2.0 stored to float: the quotient is exact in double,
// so with T = Sf64 it is the float division by 2 (IEEE, the same rounding).
template <class T>
EXACTVMAF_HD_INLINE float half_difference(float ta, float tb) {
  if constexpr (is_sf64<T>)
    return (ta - tb) / 2.0f;
  else
    return f32_of(T(ta - tb) / 2.0);
}

template <class T>
EXACTVMAF_HD_INLINE float trailing_eigenvalue(const float* d, const float* sd, int n) {
  const float ta = d[n - 2], tb = d[n - 1], tab = sd[n - 2];
  const float dt = half_difference<T>(ta, tb);
  if (dt > 0) return tb - tab * (tab / (dt + pythagoras<T>(dt, tab)));
  if (dt == 0) return tb - abs_f32(tab);
  return tb + tab * (tab / (-dt + pythagoras<T>(dt, tab)));
}

// (float)(1.0 / sqrt((double)u)) for a float u in [1, 2] with fp32
// operations only; false where they cannot decide it (or u is outside).
// y0 = 1 / sqrtf(u) is y = u^-1/2 (1 + e0), |e0| <= 2^-23 (two roundings);
// one Newton step y1 = y0 + y0 eps / 2, eps = 1 - u y0^2 = -2 e0 - e0^2,
// leaves y1 = y (1 - 1.5 e0^2 - 0.5 e0^3): within 1.51 2^-46 y. eps comes
// from the exact products y0^2 = p1 + p2, u p1 = q1 + q2, u p2 = q3 + (q4 <
// 2^-47, dropped); 1 - q1 is exact (q1 in [1/2, 2]), the two float
// subtractions after it round by at most 2^-46 each (|eps| < 2^-21.9), and
// y0 (eps / 2) by 2^-47 y: y1 = y0 + c within 2^-44.3 y of y. R's two
// roundings (the double sqrt, then the quotient) add 2.0001 2^-53 y. The
// bound 2^-43 y1 covers both; the float R stores is decided when no float
// rounding boundary lies within it (Fp32PairF64::to_f32). Every float u in
// [1, 2] is checked against the double expression (speed_test).
EXACTVMAF_HD_INLINE bool inverse_sqrt_f32_pairs(float u, float* out) {
  using namespace rmath::pair_detail;
  if (!(u >= 1.0f && u <= 2.0f)) return false;
#if EXACTVMAF_DEVICE_CODE
  const float y0 = __fdiv_rn(1.0f, __fsqrt_rn(u));
#else
  const float y0 = 1.0f / __builtin_sqrtf(u);
#endif
  const Two p = two_prod(y0, y0);
  const Two q = two_prod(u, p.hi);
  const float q3 = u * p.lo;
  const float eps = ((1.0f - q.hi) - q.lo) - q3;
  const Two y1 = fast_two_sum(y0, y0 * (eps * 0.5f));
  rmath::Fp32PairF64 pairs;
  const float r = pairs.to_f32(rmath::PairF64(y1.hi, y1.lo, y1.hi * 0x1p-43f));
  if (pairs.undecided) return false;
  *out = r;
  return true;
}

// 1.0 / sqrt((double)(1 + t * t)), stored to float. Without fp64 (T = Sf64),
// fp32 pairs first: create_givens's |t| <= 1 keeps 1 + t * t in [1, 2].
template <class T>
EXACTVMAF_HD_INLINE float inverse_hypot1(float t) {
  const float u = 1 + t * t;
  if constexpr (is_sf64<T>) {
    float r;
    if (inverse_sqrt_f32_pairs(u, &r)) return r;
  }
  return f32_of(1.0 / sqrt_of(T(u)));
}

template <class T>
EXACTVMAF_HD_INLINE void create_givens(float a, float b, float* c, float* s) {
  if (b == 0) {
    *c = 1;
    *s = 0;
  } else if (abs_f32(b) > abs_f32(a)) {
    const float t = -a / b;
    const float s1 = inverse_hypot1<T>(t);
    *s = s1;
    *c = s1 * t;
  } else {
    const float t = -b / a;
    const float c1 = inverse_hypot1<T>(t);
    *c = c1;
    *s = c1 * t;
  }
}

// qr_step: one implicit symmetric QR sweep with Wilkinson shift on a block.
template <class T>
EXACTVMAF_HD_INLINE void qr_step(float* d, float* sd, int n) {
  float mu = trailing_eigenvalue<T>(d, sd, n);
  if (below_eps_times<T>(abs_f32(d[0]) + abs_f32(sd[0]), abs_f32(mu))) mu = 0;  // 1e-6 |mu| > |d0| + |sd0|
  float x = d[0] - mu;
  float z = sd[0];
  float ak = 0, bk = 0, zk = 0;
  float ap = d[0], bp = sd[0], aq = d[1];
  if (n == 2) {
    float c, s;
    create_givens<T>(x, z, &c, &s);
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    d[0] = ap1;
    sd[0] = bp1;
    d[1] = aq1;
    return;
  }
  float bq = sd[1];
  for (int k = 0; k < n - 1; ++k) {
    float c, s;
    create_givens<T>(x, z, &c, &s);
    const float bk1 = c * bk - s * zk;
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float zp1 = -s * bq;
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    const float bq1 = c * bq;
    ak = ap1;
    bk = bp1;
    zk = zp1;
    ap = aq1;
    bp = bq1;
    if (k < n - 2) aq = d[k + 2];
    if (k < n - 3) bq = sd[k + 2];
    d[k] = ak;
    if (k > 0) sd[k - 1] = bk1;
    if (k < n - 2) sd[k + 1] = bp;
    x = bk;
    z = zk;
  }
  d[n - 1] = ap;
  sd[n - 2] = bk;
}

// compute_eigenvalues_tridiagonal; the eigenvalues are left in d. Returns
// false when the iteration limit was reached (upstream warns).
template <class T>
EXACTVMAF_HD_INLINE bool tridiagonal_eigenvalues(float* d, float* sd, int n) {
  chop_small<T>(d, sd, n);
  int b = n - 1;
  int iter = 0;
  while (b > 0 && iter < eigen_max_iters) {
    if (sd[b - 1] == 0.0f) {
      --b;
      continue;
    }
    int a = b - 1;
    while (a > 0) {
      if (sd[a - 1] == 0.0f) break;
      --a;
    }
    const int nb = b - a + 1;
    qr_step<T>(d + a, sd + a, nb);
    chop_small<T>(d + a, sd + a, nb);
    ++iter;
  }
  return iter != eigen_max_iters;
}

// The least float above 1e-6 (the double 1e-6 is not a float): for a float e,
// (double)e < 1e-6 exactly when e < this.
inline constexpr float eigen_eps_f32_above = 0x1.0c6f7cp-20f;

// is_matrix_regular: every eigenvalue >= 1e-6 (float compared in double; with
// T = Sf64 the equivalent float comparison).
template <class T>
EXACTVMAF_HD_INLINE bool eigenvalue_regular(float e) {
  if constexpr (is_sf64<T>)
    return !(e < eigen_eps_f32_above);
  else
    return !(T(e) < eigen_eps);
}

// ---- QR decomposition and the linear solve -------------------------------------------------

// One entry of x * y (matrix_mul): from +0, k = 0..inner-1.
EXACTVMAF_HD_INLINE float matmul_entry(const float* x, const float* y, int i, int j, int inner, int x_cols,
                                       int y_cols) {
  float acc = 0;
  for (int k = 0; k < inner; ++k) acc += x[i * x_cols + k] * y[k * y_cols + j];
  return acc;
}

// vector_norm.
template <class T>
EXACTVMAF_HD_INLINE float vector_norm(const float* v, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += v[i] * v[i];
  return sqrt_f32_through_f64<T>(s);
}

// The Householder vector of step k (matrix_qr_decomposition): column k of
// tmp_z after matrix_minor(tmp_z, k), shifted by sign(A[k][k]) * norm and
// normalised. Sequential; vec has n entries.
template <class T>
EXACTVMAF_HD_INLINE void qr_householder_vector(const float* tmp_z, const float* A, int n, int k, float* vec) {
  for (int i = 0; i < n; ++i) vec[i] = tmp_z[i * n + k];  // tmp_z already went through matrix_minor(k)
  const float norm = vector_norm<T>(vec, n);
  const int sign = sign_of(A[k * n + k]);
  vec[k] += static_cast<float>(sign) * norm;
  const float dn = vector_norm<T>(vec, n);
  for (int i = 0; i < n; ++i) vec[i] = vec[i] / dn;
}

// Entry (i, j) of tmp_q = I - 2 v v^T: (-2 * v_i) * v_j, plus 1 on the diagonal.
EXACTVMAF_HD_INLINE float reflector_entry(const float* v, int i, int j) {
  float e = -2 * v[i] * v[j];
  if (i == j) e += 1;
  return e;
}

// matrix_minor(tmp_z, k) applied to entry (i, j).
EXACTVMAF_HD_INLINE float minor_entry(const float* tmp_z, int n, int k, int i, int j) {
  if (i < k || j < k) return i == j ? 1.0f : 0.0f;
  return tmp_z[i * n + j];
}

// ---- entropies, variances and the score --------------------------------------------------

// Step 5-6 of est_params for block b: S = sum over the 25 rows of (X * Y) / 25
// (the division in float by the float 25), from row 0 in order.
EXACTVMAF_HD_INLINE float block_variance(const float* X, const float* Y, int nb, int b) {
  const float denominator = static_cast<float>(block_elems);
  float s = (X[b] * Y[b]) / denominator;
  for (unsigned i = 1; i < block_elems; ++i) s += (X[i * nb + b] * Y[i * nb + b]) / denominator;
  return s;
}

// Step 9: entropy of a block from the 25 eigenvalues (negative ones as 0):
// E = E + (log2(L * S + sigma_nn) + log2(2 pi e)) with E float and the
// right-hand side double.
// Its two parts: the k-th log2 (R's double), and the step that adds it.
template <class M>
EXACTVMAF_HD_INLINE real_of<M> entropy_log2(float eig_k, float variance, float sigma_nn, M& m) {
  const float L = eig_k < 0 ? 0 : eig_k;
  return m.log2_f64(real_of<M>(L * variance + sigma_nn));
}
template <class T>
EXACTVMAF_HD_INLINE float entropy_step(float e, T log2_term, T log2_2pie) {
  return f32_of(T(e) + (log2_term + log2_2pie));
}
template <class M>
EXACTVMAF_HD_INLINE float block_entropy(const float* eig, float variance, float sigma_nn, real_of<M> log2_2pie, M& m) {
  float e = 0;
  for (unsigned k = 0; k < block_elems; ++k) e = entropy_step(e, entropy_log2(eig[k], variance, sigma_nn, m), log2_2pie);
  return e;
}

// base_entropy of get_speed_score.
template <class M>
EXACTVMAF_HD_INLINE float base_entropy(float sigma_nn, float nn_floor, double log2_2pie, M& m) {
  return static_cast<float>(static_cast<double>(block_elems) *
                            (m.log2_f64(static_cast<double>((1 + nn_floor) * sigma_nn)) + log2_2pie));
}

// One block's |spatial_ref - spatial_dis| (0 where both entropies are below
// the base), for speed_weight_var_mode 0..6.
template <class M>
EXACTVMAF_HD_INLINE float block_score(float e_ref, float v_ref, float e_dis, float v_dis, float base, int mode, M& m) {
  using T = real_of<M>;
  if (e_ref < base && e_dis < base) return 0;
  const T er = T(e_ref), ed = T(e_dis);
  float sr = 0.0f, sd = 0.0f;
  switch (mode) {
    case 0:
      sr = f32_of(er * m.log2_f64(T(1 + v_ref)));
      sd = f32_of(ed * m.log2_f64(T(1 + v_dis)));
      break;
    case 1:
      sr = f32_of(er * m.log2_f64(T(1 + v_ref)));
      sd = f32_of(ed * m.log2_f64(T(1 + v_ref)));
      break;
    case 2:
      sr = f32_of(er * m.log2_f64(T(1 + v_dis)));
      sd = f32_of(ed * m.log2_f64(T(1 + v_dis)));
      break;
    case 3: {
      const T avg = 1.0 + T(v_ref + v_dis) / 2.0;
      sr = f32_of(er * m.log2_f64(avg));
      sd = f32_of(ed * m.log2_f64(avg));
      break;
    }
    case 4:
      sr = f32_of(er * m.log2_f64(T(1 + v_ref)));
      sd = f32_of(ed * m.log2_f64(1.0 + T(v_ref + v_dis) / 2.0));
      break;
    case 5:
      sr = f32_of(er * m.log2_f64(T(1 + v_ref)));
      sd = f32_of(ed * m.log2_f64(1.0 + (0.75 * T(v_ref) + 0.25 * T(v_dis))));
      break;
    default:
      sr = f32_of(er * m.log2_f64(T(1 + v_ref)));
      sd = f32_of(ed * m.log2_f64(1.0 + (0.25 * T(v_ref) + 0.75 * T(v_dis))));
      break;
  }
  return abs_f32(sr - sd);
}

// speed_extract_score's combination: 0 where exactly one side was singular;
// otherwise the float mean of the block scores (sum in block order).
EXACTVMAF_HD_INLINE float frame_score(float score_sum, unsigned num_blocks) {
  return score_sum / static_cast<float>(num_blocks);
}

// extract_chroma's uv: the other channel's score where one channel is singular.
EXACTVMAF_HD_INLINE float chroma_uv(float u, bool err_u, float v, bool err_v) {
  if (err_u && !err_v) return v;
  if (err_v && !err_u) return u;
  return static_cast<float>(static_cast<double>(u + v) / 2.0);
}

// MIN(score, speed_max_val) in double.
EXACTVMAF_HD_INLINE double clip_max(float score, double max_val) {
  return static_cast<double>(score) < max_val ? static_cast<double>(score) : max_val;
}

// ---- the per-plane solve, written for any number of threads ------------------------------

// Workspace of one plane's solve (a CUDA block's shared memory; on the CPU
// part of the worker's scratch).
struct SolveShared {
  float A[block_elems * block_elems], Q[block_elems * block_elems], tz[block_elems * block_elems],
      tq[block_elems * block_elems], tm[block_elems * block_elems];
  float vec[block_elems], d[block_elems], sd[block_elems], hv[block_elems], hx[block_elems];
  float tau;
  int regular, solved, no_convergence;
};

// est_params steps 2, 4-9 for one plane with nt threads (this one is tid),
// in three parts that the device can also run side by side (the eigenvalues
// on one group of threads, the QR solve on another, each with its own
// barrier; they use disjoint parts of SolveShared): upstream's
// convert_to_tridiagonal, eigenvalue iteration and QR solve, with the
// independent entries of each step spread over the threads and sync() (a
// barrier of the group) between steps. Every entry is one chain in upstream's
// order whatever nt is. With tid = 0, nt = 1 and a no-op sync it is a
// sequential program: the CPU worker's solve.

// Part 1 (convert_to_tridiagonal, the eigenvalue iteration, the regular
// decision): eig gets the 25 eigenvalues (also left in sh.d), sh.regular and
// sh.no_convergence are set by thread 0 after the last sync (the caller
// synchronises before reading them). Uses sh.A, hv, hx, tau, d, sd.
template <class T, class Sync>
EXACTVMAF_HD_INLINE void solve_eigenvalues(int tid, int nt, Sync sync, SolveShared& sh, const float* K, float* eig) {
  constexpr int n = static_cast<int>(block_elems);
  for (int e = tid; e < n * n; e += nt) sh.A[e] = K[e];
  sync();
  for (int i = 0; i < n - 2; ++i) {
    if (tid == 0) {
      const float tau = householder<T>(sh.A, i, i + 1, n);
      for (int j = i + 1; j < n; ++j) sh.hv[j] = sh.A[j * n + i];
      if (tau != 0.0f) {
        sh.A[(i + 1) * n + i] = sh.hv[i + 1];
        sh.hv[i + 1] = 1.0f;
      }
      sh.tau = tau;
    }
    sync();
    const float tau = sh.tau;
    if (tau != 0.0f) {
      for (int r = i + 1 + tid; r < n; r += nt) sh.hx[r] = tridiag_multiply_entry(sh.A, sh.hv, tau, r, i + 1, n);
      sync();
      if (tid == 0) {
        float xv = 0;
        for (int r = i + 1; r < n; ++r) xv += sh.hx[r] * sh.hv[r];
        const float alpha = householder_alpha<T>(tau, xv);
        for (int r = i + 1; r < n; ++r) sh.hx[r] += alpha * sh.hv[r];
      }
      sync();
      for (int e = tid; e < n * n; e += nt) {
        const int r = e / n, c = e % n;
        if (r > i && c > i) sh.A[r * n + c] -= sh.hx[r] * sh.hv[c] + sh.hv[r] * sh.hx[c];
      }
    }
    sync();
  }
  if (tid == 0) {
    for (int i = 0; i < n; ++i) sh.d[i] = sh.A[i * n + i];
    for (int i = 0; i < n - 1; ++i) sh.sd[i] = sh.A[(i + 1) * n + i];
    sh.no_convergence = tridiagonal_eigenvalues<T>(sh.d, sh.sd, n) ? 0 : 1;
    int regular = 1;
    for (int k = 0; k < n; ++k) {
      eig[k] = sh.d[k];
      if (!eigenvalue_regular<T>(sh.d[k])) regular = 0;
    }
    sh.regular = regular;
  }
}

// Part 2 (matrix_qr_decomposition of K, Q^T^T Y, back substitution): X and
// QY (25 x nb) and sh.solved (whether every |R_ii| >= 1e-6; X is valid only
// then). Does not depend on part 1: the device runs it speculatively, the
// result is used only where the matrix was regular. Uses sh.tz, Q, tq, tm,
// vec, solved.
template <class T, class Sync>
EXACTVMAF_HD_INLINE void solve_qr(int tid, int nt, Sync sync, SolveShared& sh, const float* K, const float* Y,
                                  float* QY, float* X, int nb) {
  constexpr int n = static_cast<int>(block_elems);
  for (int e = tid; e < n * n; e += nt) {
    sh.tz[e] = K[e];
    sh.Q[e] = (e / n == e % n) ? 1.0f : 0.0f;
  }
  sync();
  for (int k = 0; k < n - 1; ++k) {
    for (int e = tid; e < n * n; e += nt) sh.tz[e] = minor_entry(sh.tz, n, k, e / n, e % n);
    sync();
    if (tid == 0) qr_householder_vector<T>(sh.tz, K, n, k, sh.vec);
    sync();
    for (int e = tid; e < n * n; e += nt) sh.tq[e] = reflector_entry(sh.vec, e / n, e % n);
    sync();
    for (int e = tid; e < n * n; e += nt) sh.tm[e] = matmul_entry(sh.tq, sh.tz, e / n, e % n, n, n, n);
    sync();
    for (int e = tid; e < n * n; e += nt) sh.tz[e] = sh.tm[e];
    sync();
    for (int e = tid; e < n * n; e += nt) sh.tm[e] = matmul_entry(sh.tq, sh.Q, e / n, e % n, n, n, n);
    sync();
    for (int e = tid; e < n * n; e += nt) sh.Q[e] = sh.tm[e];
    sync();
  }
  for (int e = tid; e < n * n; e += nt) sh.tm[e] = matmul_entry(sh.Q, K, e / n, e % n, n, n, n);  // R
  for (int e = tid; e < n * nb; e += nt) QY[e] = matmul_entry(sh.Q, Y, e / nb, e % nb, n, n, nb);
  sync();
  if (tid == 0) {
    int ok = 1;
    for (int i = 0; i < n; ++i) ok = ok && eigenvalue_regular<T>(abs_f32(sh.tm[i * n + i]));
    sh.solved = ok;
  }
  sync();
  if (sh.solved)
    for (int j = tid; j < nb; j += nt)
      for (int i = n - 1; i >= 0; --i) {
        float t = QY[i * nb + j];
        for (int k = i + 1; k < n; ++k) t -= X[k * nb + j] * sh.tm[i * n + k];
        X[i * nb + j] = t / sh.tm[i * n + i];
      }
}

// Part 3, after parts 1 and 2 and a barrier of all nt threads: X = 0 where the
// system could not be solved, the variances and entropies per block. Returns
// (in every thread) whether the system could not be solved.
// The variances only (the device computes the entropies in kernels of
// their own, a thread per log2).
template <class Sync>
EXACTVMAF_HD_INLINE bool solve_variances(int tid, int nt, Sync sync, SolveShared& sh, const float* Y, float* X, int nb,
                                         float* variance) {
  constexpr int n = static_cast<int>(block_elems);
  const bool cannot_invert = !sh.regular || !sh.solved;
  if (cannot_invert)
    for (int e = tid; e < n * nb; e += nt) X[e] = 0.0f;
  sync();
  for (int b = tid; b < nb; b += nt) variance[b] = block_variance(X, Y, nb, b);
  return cannot_invert;
}

template <class Sync, class M>
EXACTVMAF_HD_INLINE bool solve_finish(int tid, int nt, Sync sync, SolveShared& sh, const float* Y, float* X, int nb,
                                      float sigma_nn, real_of<M> log2_2pie, float* variance, float* entropy, M& m) {
  const bool cannot_invert = solve_variances(tid, nt, sync, sh, Y, X, nb, variance);
  for (int b = tid; b < nb; b += nt) entropy[b] = block_entropy(sh.d, variance[b], sigma_nn, log2_2pie, m);
  return cannot_invert;
}

// The three parts one after the other on the same threads (the QR solve only
// where the matrix is regular, as upstream). K: the covariance matrix; Y: the
// independent term (25 x nb); QY, X: 25 x nb scratch and solution; eig: the
// 25 eigenvalues; variance, entropy: per block. Returns (in every thread)
// whether the system could not be solved.
template <class Sync, class M>
EXACTVMAF_HD_INLINE bool solve_plane(int tid, int nt, Sync sync, SolveShared& sh, const float* K, const float* Y,
                                     float* QY, float* X, float* eig, int nb, float sigma_nn, real_of<M> log2_2pie,
                                     float* variance, float* entropy, M& m) {
  using T = real_of<M>;
  if (tid == 0) sh.solved = 0;
  solve_eigenvalues<T>(tid, nt, sync, sh, K, eig);
  sync();
  if (sh.regular) solve_qr<T>(tid, nt, sync, sh, K, Y, QY, X, nb);
  sync();
  return solve_finish(tid, nt, sync, sh, Y, X, nb, sigma_nn, log2_2pie, variance, entropy, m);
}

}  // namespace exactvmaf::speed
