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

// The fp64-free arithmetic on the CPU (docs/fp64-free.md): while on, the CPU
// backend evaluates the fp64 islands of adm, vif and float_adm with the scalar
// kernels as the fp64-free CUDA kernels do (fp32 pairs with an error bound,
// undecided islands replayed in integer binary64), so that arithmetic can be
// checked against R on any machine; the bits are the same. Process-wide,
// like the SIMD cap; off by default.
void set_fp64_emulation(bool on);
bool fp64_emulation();

// Islands evaluated on pairs, those of them replayed, and islands evaluated
// exactly in integer binary64, by the CPU since the process started;
// host_replays: samples (ciede pixels) the fp64-free path could not decide,
// recomputed with R's functions.
struct Fp64EmulationCounts {
  unsigned long long pair_islands = 0, replays = 0, exact_islands = 0, host_replays = 0;
};
Fp64EmulationCounts fp64_emulation_counts();

}  // namespace exactvmaf

#pragma GCC visibility pop
