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

// The SIMD horizontal passes multiply two taps per instruction (vpmaddwd,
// vpdpwssd). Each vertical sum is split into 16-bit halves: mu1 and mu2 are
// below 2^16 already (scale 0: (sum + 2^(bpc-1)) >> bpc of 16-bit taps times
// bpc-bit samples; later scales: >> 16 of 16-bit samples), xx, yy and xy
// (uint32) give a low and a high half. A half minus 2^15 is an int16, and
// lane c of a "pair row" holds columns c and c+1, so one instruction applies
// taps k and k+1 to every column of a vector. A half's tap sum is below 2^32
// (the taps sum to 2^16), so the wrapping int32 sum plus 2^15 * 2^16 = 2^31
// is exact; a square's sum is hi * 2^16 + lo, and R's
// (uint32)((sum + 2^15) >> 16) is hi + ((lo / 2 + 2^14) >> 15) modulo 2^32
// (halving first keeps lo + 2^15 from overflowing and floors the same:
// lo + 2^15 odd means lo odd). AVX2 builds no pair rows: it keeps the halves
// as 16-bit rows, whose loads hold the pairs at stride 2 (vif_avx2.cpp).
enum PairRow { kMu1, kMu2, kXxLo, kXxHi, kYyLo, kYyHi, kXyLo, kXyHi, kPairRows };

// The two-tap steps of a scale's filter: taps (lo, hi) on columns
// (offset, offset + 1). The instructions take int16 taps; scale 3's middle tap
// (43728) is not one, so it is split in two halves on both sides of it.
struct MaddStep {
  int offset;
  std::uint32_t lo, hi;
};
struct MaddSteps {
  MaddStep step[9];
  int count;
};
template <int Scale>
constexpr MaddSteps madd_steps() {
  MaddSteps m{};
  if constexpr (Scale == 3) {
    static_assert(filter_tap<3>(1) % 2 == 0);
    m.step[0] = {0, filter_tap<3>(0), filter_tap<3>(1) / 2};
    m.step[1] = {1, filter_tap<3>(1) / 2, filter_tap<3>(2)};
    m.count = 2;
  } else {
    constexpr int width = filter_width(Scale);
    for (int k = 0; k < width; k += 2)
      m.step[m.count++] = {k, filter_tap<Scale>(k), k + 1 < width ? filter_tap<Scale>(k + 1) : 0u};
  }
  return m;
}
template <int Scale>
constexpr bool madd_steps_are_the_filter() {
  std::uint32_t sum[18] = {};
  constexpr MaddSteps m = madd_steps<Scale>();
  for (int i = 0; i < m.count; ++i) {
    if (m.step[i].lo >= 0x8000u || m.step[i].hi >= 0x8000u) return false;
    sum[m.step[i].offset] += m.step[i].lo;
    sum[m.step[i].offset + 1] += m.step[i].hi;
  }
  for (int k = 0; k < filter_width(Scale); ++k)
    if (sum[k] != filter_tap<Scale>(k)) return false;
  return sum[filter_width(Scale)] == 0;
}

// The SIMD decimations' two 16-bit rows (w + 2 row_pad entries each, and
// slack), kept per thread: a fresh allocation per call costs page faults at
// 4K. The second row starts at decimation_row_stride(w). vif_cpu.cpp.
std::uint16_t* decimation_rows(unsigned w);
inline std::size_t decimation_row_stride(unsigned w) { return w + 2 * row_pad + 32; }

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
const Kernels& avx512_kernels();  // vif_avx512.cpp

// The scalar kernels with the fp64 islands on the fp64-free arithmetic
// (exactvmaf/simd.hpp's set_fp64_emulation); vif_cpu.cpp.
const Kernels& fp32pair_kernels();

inline const Kernels& kernels_for(SimdLevel level) {
  if (fp64_emulation()) return fp32pair_kernels();
  return simd::pick(level, scalar_kernels(), EXACTVMAF_SIMD_TABLE(avx2_kernels),
                    EXACTVMAF_SIMD_TABLE(avx512_kernels));
}

}  // namespace exactvmaf::vif
