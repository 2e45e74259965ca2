// Reporting "undecided at sample i" from a kernel (docs/design.md §2: the device
// flags the samples its fast path cannot round and the host recomputes
// them). A thread whose cr_*_fast returned false appends its sample index
// with one atomicAdd; the host reads back count and the first
// min(count, capacity) indices (in no particular order: sort them if the
// order matters) and recomputes those samples with the host functions
// (cr_sin, ... which end in MPFR). count > capacity means some indices were
// dropped: the host must then recompute the whole launch (or rerun with a
// larger queue). At about 2^-40 undecided per call a few dozen entries are
// plenty for any frame.
#pragma once

#include <cuda_runtime.h>
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath::device {

struct UndecidedQueue {
  unsigned int* count;         // device counter, zeroed before the launch
  unsigned long long* index;   // device array of `capacity` sample indices
  unsigned int capacity;

  __device__ void push(unsigned long long sample) const {
    const unsigned int slot = atomicAdd(count, 1u);
    if (slot < capacity) index[slot] = sample;
  }
};

}  // namespace exactvmaf::rmath::device
