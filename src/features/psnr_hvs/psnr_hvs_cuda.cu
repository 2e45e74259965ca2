// psnr_hvs on the device. Per frame, on the worker's stream:
//
//   terms_kernel   one thread per 8x8 block of the three planes (positions
//                  0, 7, 14, ... as the CPU): the block's samples, then
//                  block_terms (psnr_hvs_math.hpp) writes its 64 terms in the
//                  order upstream adds them, blocks in raster order, to a
//                  per-plane array;
//   chain_kernel   one thread block per plane: warps 1..7 stage the plane's
//                  terms in shared memory (coalesced, two buffers), and one
//                  thread of warp 0 adds them into the plane's float sum
//                  from 0, in that order: the CPU's chain exactly;
//
// then one copy of the three sums to pinned memory; finish() divides them as
// the CPU does (plane_score) and writes the dB values on the host. The
// kernels hold no fp64 (block_mask's root is a float root: the math header
// says why it is R's value), so there is one variant.
#include <cstdint>
#include <memory>
#include <string>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_memory.cuh"
#include "backends/cuda/grid.cuh"
#include "features/psnr_hvs/psnr_hvs_cuda.hpp"
#include "features/psnr_hvs/psnr_hvs_math.hpp"

namespace exactvmaf::psnr_hvs {

namespace {

constexpr unsigned kTermsThreads = 128;
constexpr unsigned kChainThreads = 256;
constexpr unsigned kLoaders = kChainThreads - 32;  // warps 1..7 load, warp 0 adds
constexpr unsigned kPerLoader = 8;
constexpr unsigned kChunk = kLoaders * kPerLoader;  // terms staged per step

// The three planes' geometry and where their terms go.
struct Planes {
  cuda::DevicePlane ref[3], dis[3];
  int blocks_x[3];           // blocks along a row
  std::size_t blocks[3];     // blocks of the plane
  std::size_t first_term[3]; // the plane's first term in the terms array
};

template <class Sample>
__global__ void __launch_bounds__(kTermsThreads) terms_kernel(Planes pl, const PlaneTables* tables, float* terms) {
  const std::size_t total = pl.blocks[0] + pl.blocks[1] + pl.blocks[2];
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * kTermsThreads + threadIdx.x; k < total;
       k += static_cast<std::size_t>(gridDim.x) * kTermsThreads) {
    const int p = k < pl.blocks[0] ? 0 : k < pl.blocks[0] + pl.blocks[1] ? 1 : 2;
    const std::size_t b = k - (p == 0 ? 0 : p == 1 ? pl.blocks[0] : pl.blocks[0] + pl.blocks[1]);
    const int y = static_cast<int>(b / static_cast<std::size_t>(pl.blocks_x[p])) * 7;
    const int x = static_cast<int>(b % static_cast<std::size_t>(pl.blocks_x[p])) * 7;
    std::int32_t s[64], d[64];
    for (int i = 0; i < 8; ++i) {
      const auto* rs = reinterpret_cast<const Sample*>(pl.ref[p].data + static_cast<std::size_t>(y + i) * pl.ref[p].pitch) + x;
      const auto* ds = reinterpret_cast<const Sample*>(pl.dis[p].data + static_cast<std::size_t>(y + i) * pl.dis[p].pitch) + x;
      for (int j = 0; j < 8; ++j) {
        s[i * 8 + j] = rs[j];
        d[i * 8 + j] = ds[j];
      }
    }
    block_terms(s, d, tables[p], terms + pl.first_term[p] + b * 64);
  }
}

// sums[p]: plane p's float sum of its terms from 0, in order (blockIdx.x = p).
__global__ void __launch_bounds__(kChainThreads) chain_kernel(Planes pl, const float* terms, float* sums) {
  __shared__ __align__(16) float staged[2][kChunk];
  const unsigned p = blockIdx.x;
  const float* src = terms + pl.first_term[p];
  const std::size_t n = pl.blocks[p] * 64;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  const unsigned t = threadIdx.x;
  // Chunk c into staged[c % 2] by the loaders (coalesced: loader l reads l, l + kLoaders, ...).
  auto stage = [&](std::size_t c) {
    if (t < 32) return;
    const std::size_t base = c * kChunk;
    float* dst = staged[c % 2];
    for (unsigned e = t - 32; e < kChunk; e += kLoaders)
      if (base + e < n) dst[e] = src[base + e];
  };
  float sum = 0.0f;
  if (chunks > 0) stage(0);
  __syncthreads();
  for (std::size_t c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) stage(c + 1);  // the other buffer, while thread 0 adds this one
    if (t == 0) {
      const float* in = staged[c % 2];
      const std::size_t len = n - c * kChunk < kChunk ? n - c * kChunk : kChunk;
      // Eight terms loaded ahead of their additions (two 16-byte loads), so
      // the chain waits on the adds alone; the adds stay in order.
      std::size_t e = 0;
      for (; e + 8 <= len; e += 8) {
        const float4 lo = *reinterpret_cast<const float4*>(in + e);
        const float4 hi = *reinterpret_cast<const float4*>(in + e + 4);
        sum += lo.x;
        sum += lo.y;
        sum += lo.z;
        sum += lo.w;
        sum += hi.x;
        sum += hi.y;
        sum += hi.z;
        sum += hi.w;
      }
      for (; e < len; ++e) sum += in[e];
    }
    __syncthreads();
  }
  if (t == 0) sums[p] = sum;
}

class PsnrHvsCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit PsnrHvsCudaWorker(const Config& c) : c_(c) {}

  cuda::PlaneNeeds planes() const override { return cuda::all_planes_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    std::size_t terms = 0;
    for (int p = 0; p < 3; ++p) {
      const cuda::DevicePlane &r = frame.ref.plane[p], &d = frame.dist.plane[p];
      if (!r.data || !d.data || static_cast<int>(r.width) != c_.w[p] || static_cast<int>(r.height) != c_.h[p] ||
          d.width != r.width || d.height != r.height)
        throw InternalError("internal: psnr_hvs's CUDA worker did not get plane " + std::to_string(p) + " at " +
                            std::to_string(c_.w[p]) + "x" + std::to_string(c_.h[p]) + " on the device");
      planes_.ref[p] = r;
      planes_.dis[p] = d;
      planes_.blocks_x[p] = blocks_along(c_.w[p]);
      planes_.blocks[p] = static_cast<std::size_t>(blocks_along(c_.w[p])) * static_cast<std::size_t>(blocks_along(c_.h[p]));
      planes_.first_term[p] = terms;
      terms += planes_.blocks[p] * 64;
    }
    terms_ = cuda::DeviceBuffer<float>(terms);
    sums_ = cuda::DeviceBuffer<float>(3);
    tables_ = cuda::DeviceBuffer<PlaneTables>(3);
    result_ = cuda::PinnedBuffer<float>(3);
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(tables_.get(), c_.tables, sizeof c_.tables, cudaMemcpyHostToDevice, stream));
    // The copy reads pageable host memory: finish it here.
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const cuda::DeviceFrame&, cuda::Stream stream) override {
    const std::size_t blocks = planes_.blocks[0] + planes_.blocks[1] + planes_.blocks[2];
    const std::size_t wanted = (blocks + kTermsThreads - 1) / kTermsThreads;
    const unsigned grid = static_cast<unsigned>(wanted < 1 ? 1 : wanted < 65535 ? wanted : 65535);
    if (c_.bpc == 8)
      terms_kernel<std::uint8_t><<<grid, kTermsThreads, 0, stream>>>(planes_, tables_.get(), terms_.get());
    else
      terms_kernel<std::uint16_t><<<grid, kTermsThreads, 0, stream>>>(planes_, tables_.get(), terms_.get());
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    chain_kernel<<<3, kChainThreads, 0, stream>>>(planes_, terms_.get(), sums_.get());
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), sums_.get(), 3 * sizeof(float), cudaMemcpyDeviceToHost, stream));
  }

  bool reads_host_samples() const override { return false; }

  void finish(const FrameInput&, FrameOutput& out) override {
    float score[3];
    for (int p = 0; p < 3; ++p)
      score[p] = plane_score(result_[static_cast<std::size_t>(p)], static_cast<std::int32_t>(planes_.blocks[p] * 64),
                             c_.bpc);
    write_outputs(score, out);
  }

 private:
  Config c_;
  Planes planes_{};
  cuda::DeviceBuffer<float> terms_, sums_;
  cuda::DeviceBuffer<PlaneTables> tables_;
  cuda::PinnedBuffer<float> result_;  // the graph's last copy lands here
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) { return std::make_unique<PsnrHvsCudaWorker>(c); }

}  // namespace exactvmaf::psnr_hvs
