#include "exactvmaf/simd.hpp"

#include <atomic>

#include "numeric/fp32pair_counts.hpp"

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
std::atomic<bool> emulation{false};
std::atomic<unsigned long long> pair_islands{0}, replays{0}, exact_islands{0}, host_replays{0};

}  // namespace

SimdLevel simd_level() {
  static const SimdLevel supported = detect();
  const int cap = limit.load(std::memory_order_relaxed);
  return static_cast<int>(supported) < cap ? supported : static_cast<SimdLevel>(cap);
}

void set_simd_limit(SimdLevel level) { limit.store(static_cast<int>(level), std::memory_order_relaxed); }

void set_fp64_emulation(bool on) { emulation.store(on, std::memory_order_relaxed); }
bool fp64_emulation() { return emulation.load(std::memory_order_relaxed); }

Fp64EmulationCounts fp64_emulation_counts() {
  Fp64EmulationCounts c;
  c.pair_islands = pair_islands.load(std::memory_order_relaxed);
  c.replays = replays.load(std::memory_order_relaxed);
  c.exact_islands = exact_islands.load(std::memory_order_relaxed);
  c.host_replays = host_replays.load(std::memory_order_relaxed);
  return c;
}

namespace rmath {
void count_fp64_emulation(const Fp32PairArith& f, unsigned long long host_samples) {
  if (host_samples) host_replays.fetch_add(host_samples, std::memory_order_relaxed);
  if (f.islands) pair_islands.fetch_add(f.islands, std::memory_order_relaxed);
  if (f.replays) replays.fetch_add(f.replays, std::memory_order_relaxed);
  if (f.exact) exact_islands.fetch_add(f.exact, std::memory_order_relaxed);
}
}  // namespace rmath

const char* simd_level_name(SimdLevel level) {
  switch (level) {
    case SimdLevel::scalar: return "scalar";
    case SimdLevel::avx2: return "avx2";
    case SimdLevel::avx512: return "avx512";
  }
  return "?";
}

}  // namespace exactvmaf
