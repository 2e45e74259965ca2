// Which SIMD kernels the CPU backend may use. Every SIMD kernel gives the
// same bits as the scalar one; the switch exists so users can check that.
#pragma once

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

enum class SimdLevel : int { scalar = 0, avx2 = 1, avx512 = 2 };

// The best level this CPU supports, capped by set_simd_limit().
SimdLevel simd_level();
// Process-wide cap (the CLI's --simd / --no-simd); default: no cap.
void set_simd_limit(SimdLevel limit);
const char* simd_level_name(SimdLevel level);

}  // namespace exactvmaf

#pragma GCC visibility pop
