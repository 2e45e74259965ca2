// The row kernels of float ADM's CPU worker as a table of function pointers,
// one table per SIMD level (docs/design.md §7). Every entry returns
// exactly what the float_adm_math.hpp row function of the same name returns:
// the SIMD code computes each sample with the same IEEE float and double
// operations in the same order (one sample per lane, no FMA), and the sums
// along a row are still added one term at a time in column order. Edge
// columns (mirrored neighbours) and tails go to the scalar functions.
#pragma once
#include <cstddef>

#include "features/common/simd.hpp"
#include "features/float_adm/float_adm_math.hpp"

namespace exactvmaf::float_adm {

struct Kernels {
  const char* name;
  void (*dwt_vertical_row)(const float* src, std::ptrdiff_t stride, int w, int h, int i, float* lo, float* hi);
  void (*dwt_horizontal_row)(const float* lo, const float* hi, int w, float* a, float* v, float* h, float* d);
  void (*decouple_row)(const Bands3<const float>& ref, const Bands3<const float>& dis, int i, int j0, int j1,
                       double gain, const Bands3<float>& r, const Bands3<float>& a);
  void (*csf_row)(const float* src, float rfactor, int j0, int j1, float* dst, float* flt);
  RowSums (*den_row)(const Bands3<const float>& ref, const float rfactor[3], int i, int j0, int j1, const PNorm& pn,
                     bool* undecided);
  RowSums (*cm_row)(const Bands3<const float>& src, const Bands3<const float>& angles,
                    const Bands3<const float>& flt, const float rfactor[3], int w, int h, int i, int j0, int j1,
                    bool bypass_cm, const PNorm& pn, bool* undecided);
};

inline const Kernels& scalar_kernels() {
  static const Kernels k = {"scalar", &dwt_vertical_row, &dwt_horizontal_row, &decouple_row,
                            &csf_row,  &den_row,          &cm_row};
  return k;
}

const Kernels& avx2_kernels();  // float_adm_avx2.cpp

// The scalar kernels with the fp64 islands on the fp64-free arithmetic
// (exactvmaf/simd.hpp's set_fp64_emulation); float_adm_cpu.cpp.
const Kernels& fp32pair_kernels();

// The kernels of `level` (AVX-512 machines use the AVX2 ones).
inline const Kernels& kernels_for(SimdLevel level) {
  if (fp64_emulation()) return fp32pair_kernels();
  return simd::pick(level, scalar_kernels(), EXACTVMAF_SIMD_TABLE(avx2_kernels), nullptr);
}

}  // namespace exactvmaf::float_adm
