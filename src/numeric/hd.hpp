// Host+device annotations for R's math (docs/design.md §2). Every function that
// must give the same bits on the CPU and on a CUDA device is declared with
// EXACTVMAF_HD (or EXACTVMAF_HD_INLINE for header-only definitions).
#pragma once
#include "numeric/no_libm.hpp"  // last: poisons the libm names

#if defined(__CUDACC__)
#define EXACTVMAF_HD __host__ __device__
#define EXACTVMAF_HD_INLINE __host__ __device__ __forceinline__
// A larger routine called from many places (Sf64's operations): one copy per
// translation unit instead of one per call, so that code written on it
// compiles in seconds rather than minutes.
#define EXACTVMAF_HD_OUTLINE __host__ __device__ __noinline__ inline
#define EXACTVMAF_DEVICE_CONSTANT __device__ __constant__
#else
#define EXACTVMAF_HD
#define EXACTVMAF_HD_INLINE inline
#define EXACTVMAF_HD_OUTLINE inline
#define EXACTVMAF_DEVICE_CONSTANT
#endif

// True while compiling the device half of a CUDA translation unit.
#if defined(__CUDA_ARCH__)
#define EXACTVMAF_DEVICE_CODE 1
#else
#define EXACTVMAF_DEVICE_CODE 0
#endif
