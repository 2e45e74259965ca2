#include "exactvmaf/simd.hpp"

#include <atomic>

namespace exactvmaf {
namespace {

// The one place that reads CPUID (docs/design.md §7). avx512: the set every
// AVX-512 kernel table may use (features/common/simd.hpp's
// EXACTVMAF_TARGET_AVX512); CPUs without all of it run the AVX2 tables.
SimdLevel detect() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vnni"))
    return SimdLevel::avx512;
  if (__builtin_cpu_supports("avx2")) return SimdLevel::avx2;
#endif
  return SimdLevel::scalar;
}

std::atomic<int> limit{static_cast<int>(SimdLevel::avx512)};

}  // namespace

SimdLevel simd_level() {
  static const SimdLevel supported = detect();
  const int cap = limit.load(std::memory_order_relaxed);
  return static_cast<int>(supported) < cap ? supported : static_cast<SimdLevel>(cap);
}

void set_simd_limit(SimdLevel level) { limit.store(static_cast<int>(level), std::memory_order_relaxed); }

const char* simd_level_name(SimdLevel level) {
  switch (level) {
    case SimdLevel::scalar: return "scalar";
    case SimdLevel::avx2: return "avx2";
    case SimdLevel::avx512: return "avx512";
  }
  return "?";
}

}  // namespace exactvmaf
