// exactvmaf: VMAF and its features with the same bits on every backend.
#pragma once
#include "exactvmaf/cuda.hpp"
#include "exactvmaf/error.hpp"
#include "exactvmaf/feature.hpp"
#include "exactvmaf/format.hpp"
#include "exactvmaf/frame.hpp"
#include "exactvmaf/io.hpp"
#include "exactvmaf/output.hpp"
#include "exactvmaf/run.hpp"
#include "exactvmaf/scores.hpp"
#include "exactvmaf/simd.hpp"

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {
// The numerical contract the results obey (docs/design.md §2 rule 6).
inline constexpr const char* kNumerics = "R1";
const char* version();
}  // namespace exactvmaf

#pragma GCC visibility pop
