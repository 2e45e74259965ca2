// _iqa_ssim on the device, shared by float_ssim and float_ms_ssim (their
// _cuda.cu files). The kernels call common/ssim_common.hpp's per-sample
// functions, one output per thread, with R's doubles of the variant's type
// (RealOf<Arith>: the hardware's double, or Sf64 in the fp64-free variant,
// whose kernels then hold no fp64 instruction):
//
//   load_kernel        both luma planes as floats (input_sample);
//   horizontal_kernel  the window along the rows of the five maps
//                      (map_sample, window_sum): h rows of w - 10;
//   terms_kernel       the window down the columns of those (window_sum),
//                      then terms() per pixel of the (w - 10) x (h - 10)
//                      map: l*c*s (only when wanted), l, c and s as the
//                      variant's binary64 bits, four planes;
//   chain_kernel       R's four double sums over a map in raster order, one
//                      thread per chain (a sequential double sum is not
//                      associative); one block per map, so MS-SSIM's five
//                      scales run side by side in one launch. fp64 kernels
//                      only: the fp64-free variant copies the terms back and
//                      adds them on the host (host_chain_sums).
//
// The host takes the sums' bits as doubles and computes the means with the
// CPU's mean_of (SsimRows::run's last lines).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "backends/cuda/check.cuh"
#include "backends/cuda/cuda_feature.hpp"
#include "backends/cuda/grid.cuh"
#include "features/common/ssim_common.hpp"
#include "numeric/device/arith_counts.cuh"
#include "numeric/f64_policy.hpp"
#include "numeric/fp32pair.hpp"
#include "numeric/sf64.hpp"

namespace exactvmaf::ssim::device {

// R's double in a device variant: the hardware's, or binary64 in integers.
template <class Arith>
using RealOf = std::conditional_t<std::is_same_v<Arith, rmath::Fp32PairArith>, rmath::Sf64, double>;

inline constexpr unsigned kThreads = cuda::kSampleThreads;
inline constexpr int kChains = 4;                // l*c*s, l, c, s (Means' order)
inline constexpr unsigned kChainThreads = 256;   // warp 0 adds, the other warps stage the next chunk
inline constexpr int kChainChunk = 512;          // terms per chain staged at a time (2 x 16 KiB shared)
inline constexpr int kArithWords = rmath::device::kArithCounts;
inline constexpr int kMaxMaps = 5;               // MS-SSIM's scales

// The variant's binary64 as bits and back (moves, no arithmetic).
template <class T>
__device__ __forceinline__ std::uint64_t bits_of_real(T x) {
  return rmath::u64_of(x);
}

// CpuFrame::load's samples: w x h floats, stride w.
template <class Sample>
__global__ void __launch_bounds__(kThreads) load_kernel(cuda::DevicePlane ref, cuda::DevicePlane dis, unsigned bpc,
                                                         int w, int h, float* a, float* b) {
  const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  EXACTVMAF_FOR_SAMPLES(n, static_cast<std::size_t>(w)) {
    const std::size_t row = static_cast<std::size_t>(i);
    a[sample] = input_sample(reinterpret_cast<const Sample*>(ref.data + row * ref.pitch)[j], bpc);
    b[sample] = input_sample(reinterpret_cast<const Sample*>(dis.data + row * dis.pitch)[j], bpc);
  }
}

// SsimRows::horizontal: map m's window along input row i at output column j,
// into hz[m * h * mw + i * mw + j] (mw = w - 10).
template <class Arith>
__global__ void __launch_bounds__(kThreads) horizontal_kernel(const float* a, const float* b, int w, int h,
                                                               float* hz, unsigned long long* counts) {
  Arith arith;  // the fp64-free variant: pairs first, Sf64 replays (counted)
  const int mw = windowed_size(w);
  const std::size_t plane = static_cast<std::size_t>(h) * static_cast<std::size_t>(mw);
  EXACTVMAF_FOR_SAMPLES(plane, static_cast<std::size_t>(mw)) {
    const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(w) + static_cast<std::size_t>(j);
    const float* ra = a + at;
    const float* rb = b + at;
    for (int m = 0; m < map_count; ++m)
      hz[static_cast<std::size_t>(m) * plane + sample] = arith.island(
          [&](auto& f) { return window_sum([&](int k) { return map_sample(m, ra[k], rb[k]); }, f); });
  }
  rmath::device::add_arith_counts(arith, counts);
}

// SsimRows::vertical and the per-pixel terms: output (i, j) of the mw x mh
// map, its five windowed values from rows i .. i + 10 of hz, then terms().
// terms[q * n + i * mw + j] (n = mw * mh) holds quantity q's binary64 bits:
// q = 0 the product l*c*s (R's (l*c)*s, only with want_ssim), 1 l, 2 c, 3 s.
template <class Arith>
__global__ void __launch_bounds__(kThreads) terms_kernel(const float* hz, int w, int h, bool want_ssim,
                                                          std::uint64_t* terms, unsigned long long* counts) {
  using T = RealOf<Arith>;
  Arith arith;  // the fp64-free variant counts its window sums (pair islands) and its pixels (exact islands)
  const int mw = windowed_size(w), mh = windowed_size(h);
  const std::size_t plane = static_cast<std::size_t>(h) * static_cast<std::size_t>(mw);
  const std::size_t n = static_cast<std::size_t>(mw) * static_cast<std::size_t>(mh);
  EXACTVMAF_FOR_SAMPLES(n, static_cast<std::size_t>(mw)) {
    float v[map_count];
    for (int m = 0; m < map_count; ++m) {
      const float* col = hz + static_cast<std::size_t>(m) * plane + static_cast<std::size_t>(i) * static_cast<std::size_t>(mw) +
                         static_cast<std::size_t>(j);
      v[m] = arith.island([&](auto& f) {
        return window_sum([&](int k) { return col[static_cast<std::size_t>(k) * static_cast<std::size_t>(mw)]; }, f);
      });
    }
    const TermsOf<T> t = ssim::terms<T>(v[0], v[1], v[2], v[3], v[4]);
    if (want_ssim) terms[sample] = bits_of_real(t.l * t.c * t.s);
    terms[n + sample] = bits_of_real(t.l);
    terms[2 * n + sample] = bits_of_real(t.c);
    terms[3 * n + sample] = bits_of_real(t.s);
    if constexpr (std::is_same_v<Arith, rmath::Fp32PairArith>) ++arith.exact;
  }
  rmath::device::add_arith_counts(arith, counts);
}

// One map's chains: its terms (as terms_kernel wrote them, n per quantity)
// and where the kChains sums go (binary64 bits); quantities from `first`
// (1: no l*c*s chain; sums[0] is left as it is).
struct ChainJob {
  const std::uint64_t* terms;
  std::size_t n;
  std::uint64_t* sums;
  int first;
};
struct ChainJobs {
  ChainJob job[kMaxMaps];
};

// Block b runs job b. Thread q < kChains of warp 0 adds quantity q's terms
// into a binary64 from +0 in raster order (SsimRows::run's sums) from shared
// memory, while warps 1.. stage the next chunk (double-buffered: the chunk
// read in one step is written two steps later, a __syncthreads between).
template <class Arith>
__global__ void __launch_bounds__(kChainThreads) chain_kernel(ChainJobs jobs) {
  using T = RealOf<Arith>;
  // One word of padding per chain: the four adding lanes read different banks.
  __shared__ std::uint64_t staged[2][kChains][kChainChunk + 1];
  const ChainJob job = jobs.job[blockIdx.x];
  const int t = static_cast<int>(threadIdx.x);
  const std::size_t chunks = (job.n + kChainChunk - 1) / kChainChunk;
  // Terms in chunk c (the last one may be partial).
  const auto chunk_len = [&](std::size_t c) {
    const std::size_t left = job.n - c * kChainChunk;
    return left < static_cast<std::size_t>(kChainChunk) ? static_cast<int>(left) : kChainChunk;
  };
  // Chunk c into buffer buf by threads first_thread.. (a stride of `threads`).
  const auto stage = [&](std::size_t c, int buf, int first_thread, int threads) {
    const std::size_t begin = c * kChainChunk;
    const int len = chunk_len(c);
    for (int e = t - first_thread + job.first * kChainChunk; e < kChains * kChainChunk; e += threads) {
      const int q = e / kChainChunk, k = e % kChainChunk;
      if (k < len) staged[buf][q][k] = job.terms[static_cast<std::size_t>(q) * job.n + begin + static_cast<std::size_t>(k)];
    }
  };
  if (chunks > 0) stage(0, 0, 0, static_cast<int>(kChainThreads));
  __syncthreads();
  const bool adds = t >= job.first && t < kChains;
  T sum{};  // +0
  for (std::size_t c = 0; c < chunks; ++c) {
    const int buf = static_cast<int>(c & 1);
    if (t >= 32) {
      if (c + 1 < chunks) stage(c + 1, buf ^ 1, 32, static_cast<int>(kChainThreads) - 32);
    } else if (adds) {
      const int len = chunk_len(c);
      // Eight terms loaded ahead of their additions, which stay in order.
      int k = 0;
      for (; k + 8 <= len; k += 8) {
        std::uint64_t v[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) v[u] = staged[buf][t][k + u];
#pragma unroll
        for (int u = 0; u < 8; ++u) sum = sum + rmath::of_u64<T>(v[u]);
      }
      for (; k < len; ++k) sum = sum + rmath::of_u64<T>(staged[buf][t][k]);
    }
    __syncthreads();
  }
  if (adds) job.sums[t] = bits_of_real(sum);
}

// The windows and terms of a w x h pair (w, h >= 11) on `stream`: hz holds
// 5 * h * (w - 10) floats, terms 4 * (w - 10) * (h - 10) words.
template <class Arith>
void enqueue_terms(const float* a, const float* b, int w, int h, bool want_ssim, float* hz, std::uint64_t* terms,
                   unsigned long long* counts, cuda::Stream stream) {
  const std::size_t rows = static_cast<std::size_t>(h) * static_cast<std::size_t>(windowed_size(w));
  horizontal_kernel<Arith><<<cuda::sample_blocks(rows), kThreads, 0, stream>>>(a, b, w, h, hz, counts);
  EXACTVMAF_CUDA_CHECK(cudaGetLastError());
  const std::size_t n = static_cast<std::size_t>(windowed_size(w)) * static_cast<std::size_t>(windowed_size(h));
  terms_kernel<Arith><<<cuda::sample_blocks(n), kThreads, 0, stream>>>(hz, w, h, want_ssim, terms, counts);
  EXACTVMAF_CUDA_CHECK(cudaGetLastError());
}

// The chains of jobs.job[0 .. count - 1], one block each.
template <class Arith>
void enqueue_chains(const ChainJobs& jobs, int count, cuda::Stream stream) {
  chain_kernel<Arith><<<static_cast<unsigned>(count), kChainThreads, 0, stream>>>(jobs);
  EXACTVMAF_CUDA_CHECK(cudaGetLastError());
}

// The fp64-free variant's chains, on the host: R keeps each running sum as a
// double, so pairs cannot decide it, and one device thread adding the terms
// in Sf64 took 37 ms (float_ssim) to 656 ms (float_ms_ssim) per 1080p frame
// on an H100. The terms' bits come back in pinned memory and are added here
// in the host's binary64, from +0 in raster order, as SsimRows::run and
// chain_kernel add them. `terms` holds chains first.. kChains - 1, n terms
// each; the four chains are interleaved (independent additions, each in its
// own order).
inline void host_chain_sums(const std::uint64_t* terms, std::size_t n, int first, std::uint64_t* sums) {
  double acc[kChains] = {};  // +0
  for (std::size_t k = 0; k < n; ++k)
    for (int q = first; q < kChains; ++q) acc[q] += rmath::of_u64<double>(terms[static_cast<std::size_t>(q - first) * n + k]);
  for (int q = 0; q < kChains; ++q) sums[q] = q < first ? 0 : rmath::u64_of(acc[q]);
}

// A map's means from its sums' bits (host): SsimRows::run's last lines.
inline Means means_of_sums(const std::uint64_t* sums, int w, int h) {
  const int mw = windowed_size(w), mh = windowed_size(h);
  Means m;
  m.ssim = mean_of(rmath::of_u64<double>(sums[0]), mw, mh);
  m.l = mean_of(rmath::of_u64<double>(sums[1]), mw, mh);
  m.c = mean_of(rmath::of_u64<double>(sums[2]), mw, mh);
  m.s = mean_of(rmath::of_u64<double>(sums[3]), mw, mh);
  return m;
}

}  // namespace exactvmaf::ssim::device
