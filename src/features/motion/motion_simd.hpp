// Integer motion's kernel table (docs/design.md §7): the frame SAD of
// motion_math.hpp for 8-bit and for 9..16-bit samples, one table per SIMD
// level. Integers: every entry returns the scalar entry's value exactly.
#pragma once
#include <cstddef>
#include <cstdint>

#include "features/common/simd.hpp"
#include "features/motion/motion_math.hpp"

namespace exactvmaf::motion {

struct Kernels {
  const char* name;
  // frame_sad of a w x h luma pair (strides in samples); y_row: w values of scratch.
  std::uint64_t (*frame_sad_u8)(const std::uint8_t* earlier, std::ptrdiff_t earlier_stride,
                                const std::uint8_t* current, std::ptrdiff_t current_stride, unsigned w, unsigned h,
                                std::int32_t* y_row);
  std::uint64_t (*frame_sad_u16)(const std::uint16_t* earlier, std::ptrdiff_t earlier_stride,
                                 const std::uint16_t* current, std::ptrdiff_t current_stride, unsigned w, unsigned h,
                                 unsigned bpc, std::int32_t* y_row);
};

inline std::uint64_t frame_sad_u8(const std::uint8_t* earlier, std::ptrdiff_t earlier_stride,
                                  const std::uint8_t* current, std::ptrdiff_t current_stride, unsigned w, unsigned h,
                                  std::int32_t* y_row) {
  return frame_sad(earlier, earlier_stride, current, current_stride, w, h, 8, y_row);
}

inline const Kernels& scalar_kernels() {
  static const Kernels k = {"scalar", &frame_sad_u8, &frame_sad<std::uint16_t>};
  return k;
}

const Kernels& avx2_kernels();  // motion_avx2.cpp

inline const Kernels& kernels_for(SimdLevel level) {
  return simd::pick(level, scalar_kernels(), EXACTVMAF_SIMD_TABLE(avx2_kernels), nullptr);
}

}  // namespace exactvmaf::motion
