// SIMD kernels of integer VIF (x86-64 AVX2 and AVX-512), chosen at run time through
// exactvmaf::simd_level(); each returns exactly what the vif_math.hpp row
// functions give (integers are exact in any order; the per-pixel fp64
// islands run per lane with the same scalar functions).
#pragma once
#include <cstddef>
#include <cstdint>

#include "features/vif/vif_math.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define EXACTVMAF_VIF_HAVE_AVX2 1
#else
#define EXACTVMAF_VIF_HAVE_AVX2 0
#endif

namespace exactvmaf::vif {

// Extra scratch entries past a padded row that the vector loops may touch.
inline constexpr unsigned simd_row_slack = 16;

#if EXACTVMAF_VIF_HAVE_AVX2
// The statistic of one whole scale (rows 0..h-1), as the sum of
// statistic_row over the rows. Scale 0 takes the input samples (uint8_t for
// 8-bit, uint16_t otherwise); scales 1..3 the 16-bit decimated planes.
Residuals scale_statistic_avx2(int scale, const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                               std::ptrdiff_t dis_stride, unsigned w, unsigned h, double gain_limit,
                               const std::uint16_t* log2_table, const StatRow& t);
Residuals scale_statistic_avx2(int scale, const std::uint16_t* ref, std::ptrdiff_t ref_stride,
                               const std::uint16_t* dis, std::ptrdiff_t dis_stride, unsigned w, unsigned h,
                               unsigned bpc, double gain_limit, const std::uint16_t* log2_table, const StatRow& t);
// The same with AVX-512 (F/BW/VL/DQ and VNNI; vif_avx512.cpp), used when
// avx512_vif_supported() and simd_level() allows AVX-512.
bool avx512_vif_supported();
Residuals scale_statistic_avx512(int scale, const std::uint8_t* ref, std::ptrdiff_t ref_stride,
                                 const std::uint8_t* dis, std::ptrdiff_t dis_stride, unsigned w, unsigned h,
                                 double gain_limit, const std::uint16_t* log2_table, const StatRow& t);
Residuals scale_statistic_avx512(int scale, const std::uint16_t* ref, std::ptrdiff_t ref_stride,
                                 const std::uint16_t* dis, std::ptrdiff_t dis_stride, unsigned w, unsigned h,
                                 unsigned bpc, double gain_limit, const std::uint16_t* log2_table, const StatRow& t);
// accumulate_pixel over n pixels (arrays of sigma1_sq, sigma2_sq, sigma12)
// through the AVX-512 log branch; for tests. Needs avx512_vif_supported().
Residuals accumulate_pixels_avx512(const std::int32_t* sigma1_sq, const std::int32_t* sigma2_sq,
                                   const std::int32_t* sigma12, std::size_t n, double gain_limit);
// decimate_row for every output row 0..h/2-1 into dense planes of w/2 columns.
void decimate_avx2(int to, const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                   std::ptrdiff_t dis_stride, unsigned w, unsigned h, const ConvolveRow& t, std::uint16_t* out_ref,
                   std::uint16_t* out_dis);
void decimate_avx2(int to, const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                   std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc, const ConvolveRow& t,
                   std::uint16_t* out_ref, std::uint16_t* out_dis);
#endif

}  // namespace exactvmaf::vif
