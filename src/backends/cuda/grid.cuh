// Grid-stride loops over a plane's samples, the features' simple per-sample
// kernels share them.
#pragma once
#include <cstddef>

namespace exactvmaf::cuda {

inline constexpr unsigned kSampleThreads = 256;  // threads per block of a per-sample kernel
inline constexpr unsigned kMaxSampleBlocks = 4096;

// Blocks for n samples (capped: the loop strides over the rest).
inline unsigned sample_blocks(std::size_t n) {
  const std::size_t b = (n + kSampleThreads - 1) / kSampleThreads;
  return static_cast<unsigned>(b < kMaxSampleBlocks ? b : kMaxSampleBlocks);
}

}  // namespace exactvmaf::cuda

// For each sample index `sample` < n in raster order of a w-wide plane (a
// size_t), with its row i and column j (ints) in scope.
#define EXACTVMAF_FOR_SAMPLES(n, w)                                                                          \
  for (std::size_t sample = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; sample < (n);           \
       sample += static_cast<std::size_t>(gridDim.x) * blockDim.x)                                               \
    if (const int i = static_cast<int>(sample / static_cast<std::size_t>(w)),                                    \
        j = static_cast<int>(sample % static_cast<std::size_t>(w));                                              \
        true)
