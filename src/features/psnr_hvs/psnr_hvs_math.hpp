// psnr_hvs (libvmaf third_party/xiph/psnr_hvs.c, f85a853; Xiph/Daala's
// PSNR-HVS-M): the whole per-block arithmetic, host and device
// (docs/features/psnr_hvs.md).
//
// Per plane, on the raw samples (no conversion), 8x8 blocks at a step of 7
// (they overlap by one row and column) for y < h - 7, x < w - 7 in raster
// order. Per block, for the reference s and the distorted d:
//   means and variances of the block and of its four 4x4 quarters (float
//   sums; the variances are divided in float: gvar = (sum of the quarter
//   variances) / gvar when gvar > 0);
//   the integer 8x8 fDCT (Daala's od_bin_fdct8x8: 8-point lifting
//   transforms down the columns, then along the rows);
//   mask = sqrt(sum over AC coefficients of c*c * M[i][j] times gvar) / 32,
//   the larger of the two sides;
//   per coefficient err = |c_s - c_d| less mask / M[i][j] (not below 0; DC
//   unmasked), and the term (err * C[i][j]) * (err * C[i][j]), added into
//   one float sum over the plane's blocks in order;
// then ret / (64 * blocks) / (2^bpc - 1)^2 in float. C is the plane's CSF
// table (luma, or the 4:2:0 Cb / Cr tables for chroma whatever the
// subsampling, as upstream), M[i][j] = (float)((C * k) * (C * k)) with the
// double k = 0.3885746225901003.
//
// Integer arithmetic is int32 as upstream's; for samples within the bit
// depth (at most 12 bits) no product or sum overflows (an affine bound over
// all 8x8 blocks: |coefficient| <= 32796, lifting products below 3.8e8,
// squares below 1.08e9). Samples above 2^bpc - 1 in a file can overflow the
// products: R wraps them modulo 2^32, which is what upstream's binary does.
#pragma once
#include <cstdint>

#include "numeric/cr_log.hpp"
#include "numeric/hd.hpp"
#include "numeric/sf64.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::psnr_hvs {

// ---- the tables -------------------------------------------------------------

// The contrast sensitivity tables (the normalised inverse quantisation
// matrix at the point of transparency of Xiph's PSNR-HVS code, as libvmaf
// ships it: csf_y, csf_cb420, csf_cr420), row-major [i][j] = [vertical
// frequency][horizontal frequency]. Upstream writes these decimal numbers as
// double literals in float arrays: each table value is the double rounded to
// float (csf_of).
inline constexpr double kCsfY[64] = {
    1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411,  // row 0
    1.00227514334, 0.678296995242, 0.466224900598, 0.3265091542,
    2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984,  // row 1
    1.2305666963, 0.868920337363, 0.61280991668, 0.436405793551,
    2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862,  // row 2
    0.875748795257, 0.670882927016, 0.501731932449, 0.372504254596,
    1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575,  // row 3
    0.605636379554, 0.48309405692, 0.380429446972, 0.295774038565,
    1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554,  // row 4
    0.448996256676, 0.352889268808, 0.283006984131, 0.226951348204,
    0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692,  // row 5
    0.352889268808, 0.27032073436, 0.215017739696, 0.17408067321,
    0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972,  // row 6
    0.283006984131, 0.215017739696, 0.168869545842, 0.136153931001,
    0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565,  // row 7
    0.226951348204, 0.17408067321, 0.136153931001, 0.109083846276,
};
inline constexpr double kCsfCb420[64] = {
    1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193,  // row 0
    1.05017074788, 0.898018824055, 0.74725392039, 0.615105596242,
    2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285,  // row 1
    1.33100189972, 1.17428548929, 0.996404342439, 0.830890433625,
    1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078,  // row 2
    1.03145147362, 0.960060382087, 0.849823426169, 0.731221236837,
    1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629,  // row 3
    0.801821139099, 0.751437590932, 0.685398513368, 0.608694761374,
    1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099,  // row 4
    0.676555426187, 0.605503172737, 0.55002013668, 0.495804539034,
    0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932,  // row 5
    0.605503172737, 0.514674450957, 0.454353482512, 0.407050308965,
    0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368,  // row 6
    0.55002013668, 0.454353482512, 0.389234902883, 0.342353999733,
    0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374,  // row 7
    0.495804539034, 0.407050308965, 0.342353999733, 0.295530605237,
};
inline constexpr double kCsfCr420[64] = {
    2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803,  // row 0
    1.01397751469, 0.867069376285, 0.721500455585, 0.593906509971,
    2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857,  // row 1
    1.28513006198, 1.13381474809, 0.962064122248, 0.802254508198,
    1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848,  // row 2
    0.995903384143, 0.926972725286, 0.820534991409, 0.706020324706,
    1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426,  // row 3
    0.77418706195, 0.725539939514, 0.661776842059, 0.587716619023,
    1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195,  // row 4
    0.653238524286, 0.584635025748, 0.531064164893, 0.478717061273,
    0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514,  // row 5
    0.584635025748, 0.496936637883, 0.438694579826, 0.393021669543,
    0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059,  // row 6
    0.531064164893, 0.438694579826, 0.375820256136, 0.330555063063,
    0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023,  // row 7
    0.478717061273, 0.393021669543, 0.330555063063, 0.285345396658,
};

// Upstream's masking constant: its CSF times this, squared, is the masking
// table of the PSNR-HVS-M paper (a double literal).
inline constexpr double kMaskScale = 0.3885746225901003;

struct PlaneTables {
  float csf[64];
  float mask[64];
};

// mask = (csf * k) * (csf * k): float csf times the double k, the product of
// the two doubles rounded to float.
EXACTVMAF_HD_INLINE float mask_of(float csf) {
  const double a = static_cast<double>(csf) * kMaskScale;
  return static_cast<float>(a * a);
}

// Plane p's tables (0: Y, 1: Cb, 2: Cr), made on the host once per run; a
// device worker copies them.
inline PlaneTables plane_tables(unsigned p) {
  const double* t = p == 0 ? kCsfY : p == 1 ? kCsfCb420 : kCsfCr420;
  PlaneTables out{};
  for (int k = 0; k < 64; ++k) {
    out.csf[k] = static_cast<float>(t[k]);
    out.mask[k] = mask_of(out.csf[k]);
  }
  return out;
}

// ---- the integer fDCT -------------------------------------------------------

// (t * c + r) >> s in int32 (c, r, s: the lifting constants), the product
// and the sum modulo 2^32 (never reached for samples within the bit depth).
EXACTVMAF_HD_INLINE std::int32_t lift(std::int32_t t, std::int32_t c, std::int32_t r, int s) {
  const std::uint32_t v = static_cast<std::uint32_t>(t) * static_cast<std::uint32_t>(c) + static_cast<std::uint32_t>(r);
  return static_cast<std::int32_t>(v) >> s;
}

// Daala's OD_DCT_RSHIFT(a, 1): a / 2 rounded towards 0.
EXACTVMAF_HD_INLINE std::int32_t half_toward_zero(std::int32_t a) {
  return static_cast<std::int32_t>((static_cast<std::uint32_t>(a) >> 31) + static_cast<std::uint32_t>(a)) >> 1;
}

// od_bin_fdct8: the 8-point type-II DCT by lifting steps; x[k * xs] in, y[k] out.
EXACTVMAF_HD_INLINE void fdct8(std::int32_t* y, const std::int32_t* x, int xs) {
  std::int32_t t0 = x[0 * xs], t4 = x[1 * xs], t2 = x[2 * xs], t6 = x[3 * xs];
  std::int32_t t7 = x[4 * xs], t3 = x[5 * xs], t5 = x[6 * xs], t1 = x[7 * xs];
  // +1/-1 butterflies
  t1 = t0 - t1;
  const std::int32_t t1h = half_toward_zero(t1);
  t0 -= t1h;
  t4 += t5;
  const std::int32_t t4h = half_toward_zero(t4);
  t5 -= t4h;
  t3 = t2 - t3;
  t2 -= half_toward_zero(t3);
  t6 += t7;
  const std::int32_t t6h = half_toward_zero(t6);
  t7 = t6h - t7;
  // the embedded 4-point type-II DCT
  t0 += t6h;
  t6 = t0 - t6;
  t2 = t4h - t2;
  t4 = t2 - t4;
  // its 2-point type-II DCT: 13573/32768 ~ sqrt(2) - 1, 11585/16384 ~ sqrt(1/2)
  t0 -= lift(t4, 13573, 16384, 15);
  t4 += lift(t0, 11585, 8192, 14);
  t0 -= lift(t4, 13573, 16384, 15);
  // its 2-point type-IV DST: 21895/32768 ~ (1 - cos(3pi/8)) / sin(3pi/8), 15137/16384 ~ sin(3pi/8)
  t6 -= lift(t2, 21895, 16384, 15);
  t2 += lift(t6, 15137, 8192, 14);
  t6 -= lift(t2, 21895, 16384, 15);
  // the embedded 4-point type-IV DST: 19195/32768 ~ 2 - sqrt(2), 7489/8192 ~ sqrt(2) - 1/2
  t3 += lift(t5, 19195, 16384, 15);
  t5 += lift(t3, 11585, 8192, 14);
  t3 -= lift(t5, 7489, 4096, 13);
  t7 = half_toward_zero(t5) - t7;
  t5 -= t7;
  t3 = t1h - t3;
  t1 -= t3;
  // 3227/32768 ~ (1 - cos(pi/16)) / sin(pi/16), 6393/32768 ~ sin(pi/16)
  t7 += lift(t1, 3227, 16384, 15);
  t1 -= lift(t7, 6393, 16384, 15);
  t7 += lift(t1, 3227, 16384, 15);
  // 2485/8192 ~ (1 - cos(3pi/16)) / sin(3pi/16), 18205/32768 ~ sin(3pi/16)
  t5 += lift(t3, 2485, 4096, 13);
  t3 -= lift(t5, 18205, 16384, 15);
  t5 += lift(t3, 2485, 4096, 13);
  y[0] = t0;
  y[1] = t1;
  y[2] = t2;
  y[3] = t3;
  y[4] = t4;
  y[5] = t5;
  y[6] = t6;
  y[7] = t7;
}

// od_bin_fdct8x8 in place on a row-major 8x8 block: each column into a row
// of z, then each column of z into a row of the block. Afterwards b[i * 8 + j]
// is the coefficient of vertical frequency i and horizontal frequency j.
EXACTVMAF_HD_INLINE void fdct8x8(std::int32_t* b) {
  std::int32_t z[64];
  for (int i = 0; i < 8; ++i) fdct8(z + 8 * i, b + i, 8);
  for (int i = 0; i < 8; ++i) fdct8(b + 8 * i, z + i, 8);
}

// ---- one block ----------------------------------------------------------------

// The quarter (4x4 sub-block) of position (i, j) as upstream numbers them,
// ((i & 12) >> 2) + ((j & 12) >> 1): 0 top left, 1 bottom left, 2 top right,
// 3 bottom right.
EXACTVMAF_HD_INLINE int quarter(int i, int j) { return ((i & 12) >> 2) + ((j & 12) >> 1); }

// s_vars[] *= 1 / 15.f * 16 and gvar *= 1 / 63.f * 64: float quotients
// times the power of two.
EXACTVMAF_HD_INLINE float var_scale_quarter() { return 1.0f / 15.0f * 16.0f; }
EXACTVMAF_HD_INLINE float var_scale_block() { return 1.0f / 63.0f * 64.0f; }

// One side's statistics: the variance ratio (gvar after the division).
EXACTVMAF_HD_INLINE float variance_ratio(const std::int32_t* v) {
  float gmean = 0.0f;
  float means[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      const float x = static_cast<float>(v[i * 8 + j]);
      gmean += x;
      means[quarter(i, j)] += x;
    }
  gmean /= 64.0f;
  for (int q = 0; q < 4; ++q) means[q] /= 16.0f;
  float gvar = 0.0f;
  float vars[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      const float x = static_cast<float>(v[i * 8 + j]);
      const int q = quarter(i, j);
      gvar += (x - gmean) * (x - gmean);
      vars[q] += (x - means[q]) * (x - means[q]);
    }
  gvar *= var_scale_block();
  for (int q = 0; q < 4; ++q) vars[q] *= var_scale_quarter();
  if (gvar > 0.0f) gvar = (vars[0] + vars[1] + vars[2] + vars[3]) / gvar;
  return gvar;
}

// One side's mask from its coefficients and variance ratio:
// (float)(sqrt((double)(sum * gvar)) / 32.0), the sum over the AC
// coefficients in raster order of (float)(c * c) * M. Evaluated as the float
// root over 32, the same value without fp64: the double root rounded to
// float is the correctly rounded float root (53 >= 2 * 24 + 2: Figueroa,
// "When is double rounding innocuous?", 1995), and dividing by 32 is exact
// in both formats (the root of a float is at least 2^-75, far above float's
// subnormals).
EXACTVMAF_HD_INLINE float block_mask(const std::int32_t* c, float gvar, const float* mask) {
  float sum = 0.0f;
  for (int k = 1; k < 64; ++k) {
    const std::int32_t sq = static_cast<std::int32_t>(static_cast<std::uint32_t>(c[k]) * static_cast<std::uint32_t>(c[k]));
    sum += static_cast<float>(sq) * mask[k];
  }
  return rmath::sf64_detail::f32_sqrt(sum * gvar) / 32.0f;
}

// One block's 64 terms, in the order upstream adds them to the plane's sum.
// s and d: the block's samples, row-major; overwritten by their DCTs.
EXACTVMAF_HD_INLINE void block_terms(std::int32_t* s, std::int32_t* d, const PlaneTables& t, float* terms) {
  const float s_gvar = variance_ratio(s);
  const float d_gvar = variance_ratio(d);
  fdct8x8(s);
  fdct8x8(d);
  float m = block_mask(s, s_gvar, t.mask);
  const float d_mask = block_mask(d, d_gvar, t.mask);
  if (d_mask > m) m = d_mask;
  for (int k = 0; k < 64; ++k) {
    const std::int32_t diff = s[k] - d[k];
    float err = static_cast<float>(diff < 0 ? -diff : diff);
    if (k != 0) {
      const float threshold = m / t.mask[k];
      err = err < threshold ? 0.0f : err - threshold;
    }
    terms[k] = (err * t.csf[k]) * (err * t.csf[k]);
  }
}

// ---- the plane and the outputs ------------------------------------------------

// ret /= pixels (an int made float); ret /= samplemax^2 (int, made float).
// No block (a plane below 8 samples either way) gives 0/0 = NaN.
EXACTVMAF_HD_INLINE float plane_score(float ret, std::int32_t pixels, unsigned bpc) {
  ret /= static_cast<float>(pixels);
  const std::int32_t samplemax = (std::int32_t{1} << bpc) - 1;
  ret /= static_cast<float>(samplemax * samplemax);
  return ret;
}

// The number of blocks along a dimension of n samples: positions 0, 7, 14, ...
// below n - 7.
EXACTVMAF_HD_INLINE int blocks_along(int n) { return n > 7 ? (n - 8) / 7 + 1 : 0; }

// convert_score_db(score, 1.0): 10 * (-1 * log10(1.0 * score)); 0 gives +inf,
// NaN stays NaN.
inline double score_db(double score) { return 10 * (-1 * rmath::cr_log10(1.0 * score)); }

// psnr_hvs: the planes' float scores (as doubles) combined before the dB.
inline double combined_db(double y, double cb, double cr) { return score_db(y * .8 + .1 * (cb + cr)); }

}  // namespace exactvmaf::psnr_hvs
