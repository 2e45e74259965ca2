// SIMD kernels of integer motion (x86-64 AVX2), chosen at run time through
// exactvmaf::simd_level(); they return motion_math.hpp's frame_sad exactly.
#pragma once
#include <cstddef>
#include <cstdint>

#include "features/motion/motion_math.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define EXACTVMAF_MOTION_HAVE_AVX2 1
#else
#define EXACTVMAF_MOTION_HAVE_AVX2 0
#endif

namespace exactvmaf::motion {

// Largest bit depth the AVX2 kernels take (the tap sums must fit int32).
inline constexpr unsigned avx2_max_bpc = 14;

#if EXACTVMAF_MOTION_HAVE_AVX2
std::uint64_t frame_sad_avx2_u8(const std::uint8_t* earlier, std::ptrdiff_t earlier_stride,
                                const std::uint8_t* current, std::ptrdiff_t current_stride, unsigned w, unsigned h,
                                std::int32_t* y_row);
std::uint64_t frame_sad_avx2_u16(const std::uint16_t* earlier, std::ptrdiff_t earlier_stride,
                                 const std::uint16_t* current, std::ptrdiff_t current_stride, unsigned w, unsigned h,
                                 unsigned bpc, std::int32_t* y_row);
#endif

}  // namespace exactvmaf::motion
