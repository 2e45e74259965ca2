// Storage class of cr_trig's constant tables. They are indexed with values
// known only at run time; on the device they live in global memory (cached)
// rather than __constant__ memory, whose reads serialise when the lanes of a
// warp read different entries. Each pass of nvcc sees one definition.
#pragma once
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

#if EXACTVMAF_DEVICE_CODE
#define EXACTVMAF_TRIG_TABLE static __device__ const
#else
#define EXACTVMAF_TRIG_TABLE inline constexpr
#endif
