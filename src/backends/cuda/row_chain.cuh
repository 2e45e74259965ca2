// R's float sums on the device, in R's order: upstream's float features add
// each row's per-sample terms into a float from 0 in column order, then the
// row sums into a float from 0 in row order (docs/numerics.md, "Summation").
// A float chain is not associative, so each chain runs on one thread:
//
//   row_chain_kernel   one warp per row: the lanes compute the terms of 32
//                      consecutive columns (Terms::operator(), any per-sample
//                      work), stage them in shared memory, and lane 0 adds
//                      them to the row's N running sums in column order;
//   rows_total_kernel  one block: 256 row sums at a time staged in shared
//                      memory (coalesced), thread q adds quantity q's in row
//                      order.
//
// A Terms type is a device functor, passed by value: `void operator()(int i,
// int j, float (&t)[N])` fills sample (i, j)'s N terms; `void done()` runs
// once per thread after its last call (island counters, for example).
#pragma once
#include <cuda_runtime.h>

#include "backends/cuda/check.cuh"
#include "backends/cuda/cuda_feature.hpp"

namespace exactvmaf::cuda {

inline constexpr unsigned kChainWarps = 8;      // rows per block of row_chain_kernel
inline constexpr unsigned kTotalThreads = 256;  // row sums staged per step of rows_total_kernel

// row_sums[q * h + i]: quantity q's float sum over row i, columns 0..w-1.
template <int N, class Terms>
__global__ void __launch_bounds__(kChainWarps * 32) row_chain_kernel(Terms terms, int w, int h, float* row_sums) {
  __shared__ float staged[kChainWarps][N][32];
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  const int i = static_cast<int>(blockIdx.x) * static_cast<int>(kChainWarps) + warp;
  if (i < h) {  // a whole warp leaves or stays: only __syncwarp below
    float sum[N];
    for (int q = 0; q < N; ++q) sum[q] = 0.0f;
    for (int j0 = 0; j0 < w; j0 += 32) {
      const int j = j0 + lane;
      if (j < w) {
        float t[N];
        terms(i, j, t);
        for (int q = 0; q < N; ++q) staged[warp][q][lane] = t[q];
      }
      __syncwarp();
      if (lane == 0) {
        const int n = w - j0 < 32 ? w - j0 : 32;
        for (int k = 0; k < n; ++k)
          for (int q = 0; q < N; ++q) sum[q] += staged[warp][q][k];
      }
      __syncwarp();  // staged is refilled by the next chunk
    }
    if (lane == 0)
      for (int q = 0; q < N; ++q) row_sums[q * h + i] = sum[q];
  }
  terms.done();
}

// totals[q]: quantity q's float sum of row_sums[q * h + 0 .. h - 1] in row order.
template <int N>
__global__ void __launch_bounds__(kTotalThreads) rows_total_kernel(const float* row_sums, int h, float* totals) {
  __shared__ float staged[N][kTotalThreads];
  const int t = static_cast<int>(threadIdx.x);
  float sum = 0.0f;
  for (int i0 = 0; i0 < h; i0 += static_cast<int>(kTotalThreads)) {
    if (i0 + t < h)
      for (int q = 0; q < N; ++q) staged[q][t] = row_sums[q * h + i0 + t];
    __syncthreads();
    if (t < N) {
      const int n = h - i0 < static_cast<int>(kTotalThreads) ? h - i0 : static_cast<int>(kTotalThreads);
      for (int k = 0; k < n; ++k) sum += staged[t][k];
    }
    __syncthreads();
  }
  if (t < N) totals[t] = sum;
}

// Both kernels on `stream` for a w x h grid of samples: row_sums holds N * h
// floats (scratch), totals N floats (the result, on the device).
template <int N, class Terms>
void enqueue_ordered_sums(const Terms& terms, unsigned w, unsigned h, float* row_sums, float* totals, Stream stream) {
  const unsigned blocks = (h + kChainWarps - 1) / kChainWarps;
  row_chain_kernel<N, Terms><<<blocks, kChainWarps * 32, 0, stream>>>(terms, static_cast<int>(w),
                                                                       static_cast<int>(h), row_sums);
  EXACTVMAF_CUDA_CHECK(cudaGetLastError());
  rows_total_kernel<N><<<1, kTotalThreads, 0, stream>>>(row_sums, static_cast<int>(h), totals);
  EXACTVMAF_CUDA_CHECK(cudaGetLastError());
}

}  // namespace exactvmaf::cuda
