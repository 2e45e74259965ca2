// The edge rule of libvmaf's filters (vif_tools.c, integer_vif.c, integer
// motion since April 2026): reflect without repeating the edge sample, index
// -k reads k and size - 1 + k reads size - 1 - k. Valid for
// -size < idx < 2 size - 1. Host and device.
#pragma once
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf {

EXACTVMAF_HD_INLINE int mirror(int idx, int size) {
  if (idx < 0) return -idx;
  if (idx >= size) return 2 * size - idx - 2;
  return idx;
}

}  // namespace exactvmaf
