// The row kernels of cambi as a table of function pointers, one table per
// SIMD level (exactvmaf::simd_level()). Every entry returns exactly what the
// cambi_math.hpp row function of the same name returns: the kernels are
// integer code (counts, comparisons, shifts) plus the c-value's float
// conversion, product and maximum, which the AVX2 kernel does per lane with
// the same IEEE operations.
#pragma once
#include <cstddef>

#include "features/cambi/cambi_math.hpp"
#include "features/common/simd.hpp"

namespace exactvmaf::cambi {

struct Kernels {
  const char* name;
  void (*derivative_row)(const u16* img, std::ptrdiff_t stride, unsigned w, unsigned h, unsigned row, u16* out);
  void (*decimate_row)(const u16* src_row, unsigned w_out, u16* out);  // in place allowed
  void (*mode_horizontal_row)(const u16* in, unsigned w, u16* out);
  void (*mode_vertical_row)(const u16* a, const u16* b, const u16* c, unsigned w, u16* out);
  void (*apply_runs)(u16* hist, const CountRun* runs, unsigned n, int pad, unsigned w, const Params& p);
  void (*c_values_row)(const u16* hist, const u16* img_row, const u16* mask_row, unsigned w, const Params& p,
                       const float* reciprocal, float* out);
};

inline const Kernels& scalar_kernels() {
  static const Kernels k = {"scalar",           &derivative_row, &decimate_row, &mode_horizontal_row,
                            &mode_vertical_row, &apply_runs,     &c_values_row};
  return k;
}

const Kernels& avx2_kernels();  // cambi_avx2.cpp

// The kernels for a SIMD level (AVX-512 runs the AVX2 kernels, as upstream,
// which has no AVX-512 cambi).
inline const Kernels& kernels_for(SimdLevel level) {
  return simd::pick(level, scalar_kernels(), EXACTVMAF_SIMD_TABLE(avx2_kernels), nullptr);
}

}  // namespace exactvmaf::cambi
