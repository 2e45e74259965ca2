// The row kernels of integer ADM as a table of function pointers, one table
// per SIMD level (docs/design.md §7). Every entry returns exactly what
// the adm_math.hpp row function of the same name returns: integer arithmetic
// is exact in any order, wrapping included (done modulo 2^32 / 2^64 as the
// scalar code's unsigned casts do), and the fp64 islands run per lane with
// the same IEEE operations (no FMA). SIMD entries handle the vector-sized
// middle of a row and hand edges and tails to the scalar functions.
#pragma once
#include <cstddef>
#include <cstdint>

#include "features/adm/adm_math.hpp"
#include "features/common/simd.hpp"

namespace exactvmaf::adm {

struct Kernels {
  const char* name;
  // dwt0_vertical_row for 8-bit and for 9..16-bit samples.
  void (*dwt0_vertical_u8)(const std::uint8_t* src, std::ptrdiff_t stride, int w, int h, int i, unsigned bpc, i16* lo,
                           i16* hi);
  void (*dwt0_vertical_u16)(const std::uint16_t* src, std::ptrdiff_t stride, int w, int h, int i, unsigned bpc,
                            i16* lo, i16* hi);
  void (*dwt0_horizontal)(const i16* lo, const i16* hi, int w, i16* a, i16* v, i16* h, i16* d);
  void (*dwt_vertical)(const i32* src, std::ptrdiff_t stride, int w, int h, int i, int scale, i32* lo, i32* hi);
  void (*dwt_horizontal)(const i32* lo, const i32* hi, int w, int scale, i32* a, i32* v, i32* h, i32* d);
  void (*decouple0)(const Bands3<const i16>& ref, const Bands3<const i16>& dis, int i, int j0, int j1, double gain,
                    const i32* div_lookup, const Bands3<i16>& r, const Bands3<i16>& a);
  void (*decouple_s123)(const Bands3<const i32>& ref, const Bands3<const i32>& dis, int i, int j0, int j1,
                        double gain, const i32* div_lookup, const Bands3<i32>& r, const Bands3<i32>& a);
  void (*csf0)(const i16* src, u32 i_rfactor, int band, int j0, int j1, i16* dst, i16* flt);
  void (*csf_s123)(const i32* src, u32 i_rfactor, int j0, int j1, i32* dst, i32* flt);
  CmRowSums (*cm0)(const Bands3<const i16>& src, const Bands3<const i16>& angles, const Bands3<const i16>& flt,
                   const u32 i_rfactor[3], int w, int h, int i, int j0, int j1, const Cm0Shifts& s);
  CmRowSums (*cm_s123)(const Bands3<const i32>& src, const Bands3<const i32>& angles, const Bands3<const i32>& flt,
                       const u32 i_rfactor[3], int w, int h, int i, int j0, int j1, u32 shift_cub, i64 add_cub);
  DenRowSums (*den0)(const Bands3<const i16>& ref, int i, int j0, int j1);
  DenRowSums (*den_s123)(const Bands3<const i32>& ref, int i, int j0, int j1, u32 shift_sq, u32 shift_cub,
                         u64 add_cub);
  // dwt_vertical at scale 1 read straight from scale 0's int16 approximation band.
  void (*dwt1_vertical_i16)(const i16* src, std::ptrdiff_t stride, int w, int h, int i, i32* lo, i32* hi);
};

// Scale 1, vertical pass over the int16 approximation band of scale 0: what
// dwt_vertical_row(scale 1) gives on those samples widened to int32 (the
// CPU worker then needs no int32 copy of that band).
inline void dwt1_vertical_i16_row(const i16* src, std::ptrdiff_t stride, int w, int h, int i, i32* lo, i32* hi) {
  const i16* r[4];
  for (int k = 0; k < 4; ++k) r[k] = src + dwt_src_index(i, k, h) * stride;
  const i64 add = dwt_vp_add(1);
  const int shift = dwt_vp_shift(1);
  for (int j = 0; j < w; ++j) {
    const i64 s0 = r[0][j], s1 = r[1][j], s2 = r[2][j], s3 = r[3][j];
    const i64 al = dwt_lo(0) * s0 + dwt_lo(1) * s1 + dwt_lo(2) * s2 + dwt_lo(3) * s3;
    const i64 ah = dwt_hi(0) * s0 + dwt_hi(1) * s1 + dwt_hi(2) * s2 + dwt_hi(3) * s3;
    lo[j] = wrap32((al + add) >> shift);
    hi[j] = wrap32((ah + add) >> shift);
  }
}

inline const Kernels& scalar_kernels() {
  static const Kernels k = {"scalar",
                            &dwt0_vertical_row<std::uint8_t>,
                            &dwt0_vertical_row<std::uint16_t>,
                            &dwt0_horizontal_row,
                            &dwt_vertical_row,
                            &dwt_horizontal_row,
                            &decouple0_row,
                            &decouple_s123_row,
                            &csf0_row,
                            &csf_s123_row,
                            &cm0_row,
                            &cm_s123_row,
                            &den0_row,
                            &den_s123_row,
                            &dwt1_vertical_i16_row};
  return k;
}

const Kernels& avx2_kernels();    // adm_avx2.cpp
const Kernels& avx512_kernels();  // adm_avx512.cpp

// The scalar kernels with the fp64 islands on the fp64-free arithmetic
// (exactvmaf/simd.hpp's set_fp64_emulation); adm_cpu.cpp.
const Kernels& fp32pair_kernels();

// The kernels for a SIMD level (what simd_level() allows by default).
inline const Kernels& kernels_for(SimdLevel level) {
  if (fp64_emulation()) return fp32pair_kernels();
  return simd::pick(level, scalar_kernels(), EXACTVMAF_SIMD_TABLE(avx2_kernels),
                    EXACTVMAF_SIMD_TABLE(avx512_kernels));
}

}  // namespace exactvmaf::adm
