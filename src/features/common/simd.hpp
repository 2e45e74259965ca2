// The one SIMD mechanism of the features (docs/design.md §7): per feature a
// kernel table (struct Kernels { const char* name; function pointers... }) in
// <name>_simd.hpp, one table per level, every entry returning exactly what the
// scalar entry returns; the level comes from exactvmaf::simd_level(), the one
// reader of CPUID (src/core/simd.cpp).
#pragma once
#include <type_traits>

#include "exactvmaf/simd.hpp"

// x86-64 with gcc or clang: the <name>_avx2.cpp / _avx512.cpp files hold
// their kernels (elsewhere they compile to nothing and every level uses the
// scalar table).
#if defined(__x86_64__) && defined(__GNUC__)
#define EXACTVMAF_SIMD_X86 1
#else
#define EXACTVMAF_SIMD_X86 0
#endif

// The kernels' function attributes. The SIMD files are compiled without -m
// flags: the attribute enables the instructions in that function only, so
// header code inlined elsewhere is never built for a CPU the machine may not
// have. One AVX-512 set: what SimdLevel::avx512 requires.
#define EXACTVMAF_TARGET_AVX2 __attribute__((target("avx2")))
#define EXACTVMAF_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd,avx512vnni")))

// A feature's table of a SIMD level for simd::pick: the table where this
// build has the SIMD files' kernels, nullptr elsewhere.
#if EXACTVMAF_SIMD_X86
#define EXACTVMAF_SIMD_TABLE(kernels) (&kernels())
#else
#define EXACTVMAF_SIMD_TABLE(kernels) nullptr
#endif

namespace exactvmaf::simd {

// The best of a feature's tables at or below `level`; avx2 / avx512 may be
// null where the feature has no table of that level (or the build no SIMD).
template <class Kernels>
const Kernels& pick(SimdLevel level, const Kernels& scalar, std::type_identity_t<const Kernels*> avx2,
                    std::type_identity_t<const Kernels*> avx512) {
  if (level >= SimdLevel::avx512 && avx512) return *avx512;
  if (level >= SimdLevel::avx2 && avx2) return *avx2;
  return scalar;
}

}  // namespace exactvmaf::simd
