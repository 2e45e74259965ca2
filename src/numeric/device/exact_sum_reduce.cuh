// CUDA block/grid reduction of exact sums (src/numeric/exact_sum.hpp).
//
// Each thread adds its terms to its own ExactSumF32/F64; the threads of a
// warp add their limbs with shuffles, each warp adds into the block's limbs
// in shared memory and each block into one accumulator in global memory,
// all with 64-bit integer additions (atomicAdd). Integer addition is exact
// and associative, so the result does not depend on the order in which the
// warps and blocks arrive: the same bits on every run, grid shape and GPU,
// and the same as the host's ExactSum over the same terms.
//
// Headroom: a thread's normalised limbs are < 2^32; a block of at most 1024
// threads adds < 2^42 per limb and the global limbs stay below 2^63 for up
// to 2^20 blocks per accumulation (the launcher below uses far fewer).
//
// Use from a kernel of your own (e.g. ciede's per-pixel values, never
// written out):
//   ExactSumF32 acc; acc.clear(); ... acc.add(value) ...;
//   block_reduce_to_global(acc, global);  // every thread of the block
// then on the host: copy the GlobalExactSum back and call to_double().
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/cuda/device_memory.cuh"
#include "exactvmaf/error.hpp"
#include "numeric/exact_sum.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath::device {

// An accumulator in global memory, zeroed before use (cudaMemset).
template <class Acc>
struct GlobalExactSum {
  unsigned long long limb[Acc::kLimbs];  // two's complement int64 limbs
  unsigned int flags;
};

// Host: the exact sum held by a GlobalExactSum copied back from the device,
// rounded once to double.
template <class Acc>
inline double to_double(const GlobalExactSum<Acc>& g) {
  Acc acc;
  acc.clear();
  for (int i = 0; i < Acc::kLimbs; ++i) acc.limb[i] = static_cast<std::int64_t>(g.limb[i]);
  acc.flags = g.flags;
  return acc.round_to_double();
}

// Adds every thread's acc into *out. Call from all threads of the block
// (blockDim.x a multiple of 32, one-dimensional block), with no thread
// returned early. acc is normalised in place.
template <class Acc>
__device__ inline void block_reduce_to_global(Acc& acc, GlobalExactSum<Acc>* out) {
  __shared__ unsigned long long block_limb[Acc::kLimbs];
  __shared__ unsigned int block_flags;
  for (int i = static_cast<int>(threadIdx.x); i < Acc::kLimbs; i += static_cast<int>(blockDim.x)) {
    block_limb[i] = 0;
  }
  if (threadIdx.x == 0) block_flags = 0;
  __syncthreads();

  acc.normalise();
  const unsigned lane = threadIdx.x & 31u;
  for (int i = 0; i < Acc::kLimbs; ++i) {
    long long v = acc.limb[i];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0 && v != 0) atomicAdd(&block_limb[i], static_cast<unsigned long long>(v));
  }
  unsigned int f = acc.flags;
  for (int offset = 16; offset > 0; offset >>= 1) f |= __shfl_down_sync(0xffffffffu, f, offset);
  if (lane == 0 && f != 0) atomicOr(&block_flags, f);
  __syncthreads();

  for (int i = static_cast<int>(threadIdx.x); i < Acc::kLimbs; i += static_cast<int>(blockDim.x)) {
    if (block_limb[i] != 0) atomicAdd(&out->limb[i], block_limb[i]);
  }
  if (threadIdx.x == 0 && block_flags != 0) atomicOr(&out->flags, block_flags);
}

// Sums terms[0..n) (float or double) into *out (not cleared here). The
// accumulator is large: the bound keeps 256-thread blocks launchable.
inline constexpr int kExactSumMaxThreads = 256;
template <class Acc, class Term>
__global__ void __launch_bounds__(kExactSumMaxThreads) exact_sum_kernel(const Term* terms, std::size_t n, GlobalExactSum<Acc>* out) {
  Acc acc;
  acc.clear();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    acc.add(terms[i]);
  }
  block_reduce_to_global(acc, out);
}

inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("CUDA device: ") + what + ": " + cudaGetErrorString(e));
}

// Host: the exact sum of n device-resident terms, rounded once to double.
// blocks/threads only change the speed, never the result (threads: a
// multiple of 32, at most kExactSumMaxThreads; blocks: at most 2^20).
template <class Acc, class Term>
inline double exact_sum_on_device(const Term* d_terms, std::size_t n, int blocks = 264,
                                  int threads = 256, cudaStream_t stream = nullptr) {
  if (threads <= 0 || threads > kExactSumMaxThreads || threads % 32 != 0 || blocks <= 0 || blocks > (1 << 20)) {
    throw Error("exact_sum_on_device: bad launch shape (threads " + std::to_string(threads) +
                ", blocks " + std::to_string(blocks) + ")");
  }
  const cuda::DeviceBuffer<GlobalExactSum<Acc>> d_out(1);
  GlobalExactSum<Acc> h_out{};
  cudaError_t e = cudaMemsetAsync(d_out.get(), 0, d_out.bytes(), stream);
  if (e == cudaSuccess) {
    exact_sum_kernel<Acc, Term><<<blocks, threads, 0, stream>>>(d_terms, n, d_out.get());
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&h_out, d_out.get(), sizeof h_out, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  check_cuda(e, "exact_sum_on_device");
  return to_double(h_out);
}

}  // namespace exactvmaf::rmath::device
