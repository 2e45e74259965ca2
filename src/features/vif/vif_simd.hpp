// Integer VIF's kernel table (docs/design.md §7): a scale's statistic, the
// decimation between scales and the per-pixel log branch, one table per SIMD
// level. Integers and the per-pixel fp64 islands run lane by lane with the
// same IEEE operations, so every entry returns exactly what the scalar entry
// (vif_math.hpp's row functions, vif_cpu.cpp) returns.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "features/common/simd.hpp"
#include "features/vif/vif_math.hpp"

namespace exactvmaf::vif {

// Extra scratch entries past a padded row that the vector loops may touch.
inline constexpr unsigned simd_row_slack = 16;

struct Kernels {
  const char* name;
  // The statistic of one whole scale (rows 0..h-1), the sum of statistic_row
  // over the rows. 8-bit samples exist at scale 0 only; the 16-bit entry takes
  // scale 0 at bit depth bpc and the decimated planes of scales 1..3.
  // log2_table: log2_table() (vif_host.hpp); t: one row of scratch, padded.
  Residuals (*statistic_u8)(int scale, const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                            std::ptrdiff_t dis_stride, unsigned w, unsigned h, double gain_limit,
                            const std::uint16_t* log2_table, const StatRow& t);
  Residuals (*statistic_u16)(int scale, const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                             std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc, double gain_limit,
                             const std::uint16_t* log2_table, const StatRow& t);
  // decimate_row for every output row 0..h/2-1 into dense planes of w/2
  // columns, to scale `to` (8-bit input: to 1 only).
  void (*decimate_u8)(int to, const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                      std::ptrdiff_t dis_stride, unsigned w, unsigned h, const ConvolveRow& t, std::uint16_t* out_ref,
                      std::uint16_t* out_dis);
  void (*decimate_u16)(int to, const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                       std::ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc, const ConvolveRow& t,
                       std::uint16_t* out_ref, std::uint16_t* out_dis);
  // accumulate_pixel over n pixels (arrays of sigma1_sq, sigma2_sq, sigma12).
  Residuals (*accumulate_pixels)(const std::int32_t* sigma1_sq, const std::int32_t* sigma2_sq,
                                 const std::int32_t* sigma12, std::size_t n, double gain_limit,
                                 const std::uint16_t* log2_table);
};

// f(std::integral_constant<int, s>{}) for s = scale, First <= s <= 3: the
// table's entries take the scale as an argument, the row code as a template
// parameter.
template <int First = 0, class F>
decltype(auto) at_scale(int scale, F&& f) {
  if constexpr (First < num_scales - 1) {
    if (scale > First) return at_scale<First + 1>(scale, f);
  }
  return f(std::integral_constant<int, First>{});
}

const Kernels& scalar_kernels();  // vif_cpu.cpp
const Kernels& avx2_kernels();    // vif_avx2.cpp
const Kernels& avx512_kernels();  // vif_avx512.cpp (the decimation: AVX2's)

// The scalar kernels with the fp64 islands on the fp64-free arithmetic
// (exactvmaf/simd.hpp's set_fp64_emulation); vif_cpu.cpp.
const Kernels& fp32pair_kernels();

inline const Kernels& kernels_for(SimdLevel level) {
  if (fp64_emulation()) return fp32pair_kernels();
  return simd::pick(level, scalar_kernels(), EXACTVMAF_SIMD_TABLE(avx2_kernels),
                    EXACTVMAF_SIMD_TABLE(avx512_kernels));
}

}  // namespace exactvmaf::vif
