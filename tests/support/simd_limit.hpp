// The SIMD level of the CPU backend in tests: a scoped cap on the
// process-wide level, and the levels this CPU runs.
#pragma once
#include <vector>

#include "exactvmaf/simd.hpp"

namespace exactvmaf::test {

// Caps simd_level() while alive; afterwards no cap.
struct SimdLimit {
  explicit SimdLimit(SimdLevel l) { set_simd_limit(l); }
  ~SimdLimit() { set_simd_limit(SimdLevel::avx512); }
  SimdLimit(const SimdLimit&) = delete;
  SimdLimit& operator=(const SimdLimit&) = delete;
};

// The SIMD levels this CPU runs, above scalar.
inline std::vector<SimdLevel> simd_levels() {
  std::vector<SimdLevel> out;
  for (SimdLevel l : {SimdLevel::avx2, SimdLevel::avx512}) {
    SimdLimit cap(l);
    if (simd_level() == l) out.push_back(l);
  }
  return out;
}

}  // namespace exactvmaf::test
