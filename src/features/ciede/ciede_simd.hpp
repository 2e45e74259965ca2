// ciede's kernel table (docs/design.md §7; features/common/simd.hpp): the
// CIEDE2000 formula over a batch of Lab pairs, one table per SIMD level.
// Every entry returns exactly ciede2000<HostMath> (ciede_math.hpp) for every
// pair: the vector entries run its shortcut path's IEEE operations lane by
// lane and recompute with the scalar formula each pair whose lane the
// shortcuts leave undecided (or that the vector code does not cover).
#pragma once
#include <cstddef>
#include <cstdint>

#include "features/common/simd.hpp"
#include "features/ciede/ciede_math.hpp"

namespace exactvmaf::ciede {

// A batch of pairs, structure of arrays: reference (l1, a1, b1), distorted
// (l2, a2, b2). kBatch is a multiple of every vector width.
inline constexpr std::size_t kBatch = 128;
struct LabPairs {
  alignas(64) float l1[kBatch];
  alignas(64) float a1[kBatch];
  alignas(64) float b1[kBatch];
  alignas(64) float l2[kBatch];
  alignas(64) float a2[kBatch];
  alignas(64) float b2[kBatch];
};

// The vector kernels' float rounding test (round_to_float): `normal` for
// results that are normal floats in practice (a cheaper midpoint test; a
// tiny result is left undecided), `any` for those that can be tiny.
enum class FloatRange { normal, any };

struct Kernels {
  const char* name;
  // out[i] = ciede2000(lab1_i, lab2_i, HostMath) for i < n <= kBatch; returns
  // how many of the n pairs were computed by the scalar formula (n for the
  // scalar table; the vector tables' undecided lanes).
  std::size_t (*delta_e)(const LabPairs& pairs, std::size_t n, float* out);
  // (l, a, b)[i] = lab_from_yuv(y[i], u[i], v[i], s, HostMath) for i < n;
  // returns how many came from the scalar function (as delta_e).
  std::size_t (*lab)(const std::uint32_t* y, const std::uint32_t* u, const std::uint32_t* v, std::size_t n,
                     const LabScale& s, float* l, float* a, float* b);
};

const Kernels& scalar_kernels();  // ciede_cpu.cpp
const Kernels& avx2_kernels();    // ciede_avx2.cpp
const Kernels& avx512_kernels();  // ciede_avx512.cpp

inline const Kernels& kernels_for(SimdLevel level) {
  return simd::pick(level, scalar_kernels(), EXACTVMAF_SIMD_TABLE(avx2_kernels),
                    EXACTVMAF_SIMD_TABLE(avx512_kernels));
}

}  // namespace exactvmaf::ciede
