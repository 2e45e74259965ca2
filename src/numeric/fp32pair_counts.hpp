// The CPU's fp64-emulation counters (exactvmaf/simd.hpp): a kernel that ran
// its islands on an Fp32PairArith adds its counts once, after its row.
#pragma once
#include "numeric/fp32pair.hpp"

namespace exactvmaf::rmath {
void count_fp64_emulation(const Fp32PairArith& f);  // src/core/simd.cpp
}  // namespace exactvmaf::rmath
