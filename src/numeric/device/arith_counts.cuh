// A kernel's fp32pair island counts (docs/fp64-free.md): each thread's
// Fp32PairArith counts, summed over the coalesced threads of its warp, added
// to counts[0..2] (pair islands, their Sf64 replays, exact islands) by one
// atomic per warp. Nothing for the fp64 variant (NativeF64). Its includer
// includes the two cooperative_groups headers first (they are read before
// numeric/no_libm.hpp poisons the libm names).
#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <type_traits>

#include "numeric/fp32pair.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath::device {

inline constexpr int kArithCounts = 3;

template <class Arith>
__device__ __forceinline__ void add_arith_counts(const Arith& a, unsigned long long* counts) {
  if constexpr (std::is_same_v<Arith, Fp32PairArith>) {
    namespace cg = cooperative_groups;
    const cg::coalesced_group g = cg::coalesced_threads();
    const unsigned long long v[kArithCounts] = {a.islands, a.replays, a.exact};
    for (int k = 0; k < kArithCounts; ++k) {
      const unsigned long long s = cg::reduce(g, v[k], cg::plus<unsigned long long>());
      if (g.thread_rank() == 0 && s) atomicAdd(counts + k, s);
    }
  } else {
    (void)a;
    (void)counts;
  }
}

}  // namespace exactvmaf::rmath::device
