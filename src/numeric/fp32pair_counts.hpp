// The CPU's fp64-emulation counters (exactvmaf/simd.hpp): a kernel that ran
// its islands on an Fp32PairArith adds its counts once, after its row.
#pragma once
#include "numeric/fp32pair.hpp"

namespace exactvmaf::rmath {
// host_samples: samples the fp64-free path left to R's functions (ciede).
void count_fp64_emulation(const Fp32PairArith& f, unsigned long long host_samples = 0);  // src/core/simd.cpp
}  // namespace exactvmaf::rmath
