// float_ms_ssim on the device. Per frame, on the worker's stream:
//
//   load_kernel       both luma planes as floats, scale 0 (common/ssim_cuda.cuh);
//   decimate_kernel   scales 1..4, each from the one before: decimated_sample
//                     per output (the 9x9 low-pass's double sum, R's double
//                     of the variant);
//   per scale, the windows and terms of common/ssim_cuda.cuh (no l*c*s:
//                     MS-SSIM does not use it), then one chain_kernel launch
//                     whose five blocks run the scales' l, c and s double
//                     sums in raster order, one thread per chain;
//
// then one copy of the sums' bits and the island counts to pinned memory.
// The fp64-free variant copies each scale's l, c and s terms back instead of
// launching chain_kernel, and adds them on the host in finish()
// (host_chain_sums: a sequential double sum in Sf64 on one device thread
// took 656 ms per 1080p frame).
// finish() computes each scale's means (mean_of), the product over the
// scales with R's pow (combine_scales) and the outputs, with the CPU's code.
// The variant (DeviceFrame::arith) picks the kernels: NativeF64 (device
// doubles) or Fp32PairArith (every double in Sf64, no fp64 instruction:
// tests/numeric's PTX check).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_arith.cuh"
#include "backends/cuda/device_memory.cuh"
#include "backends/cuda/grid.cuh"
#include "exactvmaf/error.hpp"
#include "features/common/ssim_cuda.cuh"
#include "features/float_ms_ssim/float_ms_ssim_cuda.hpp"
#include "features/float_ms_ssim/float_ms_ssim_math.hpp"

namespace exactvmaf::float_ms_ssim {

namespace {

using ssim::device::kChains;
using ssim::device::kThreads;
constexpr int kResults = kChains * num_scales + ssim::device::kArithWords;  // sums per scale, then the island counts
static_assert(num_scales <= ssim::device::kMaxMaps);

// Scale s + 1 of both planes (dw x dh, stride dw) from scale s (w x h).
template <class Arith>
__global__ void __launch_bounds__(kThreads) decimate_kernel(const float* a, const float* b, int w, int h, int dw,
                                                             int dh, float* da, float* db, unsigned long long* counts) {
  Arith arith;  // the fp64-free variant: pairs first, Sf64 replays (counted)
  EXACTVMAF_FOR_SAMPLES(static_cast<std::size_t>(dw) * static_cast<std::size_t>(dh), static_cast<std::size_t>(dw)) {
    da[sample] = arith.island([&](auto& f) { return decimated_sample(a, w, h, j, i, f); });
    db[sample] = arith.island([&](auto& f) { return decimated_sample(b, w, h, j, i, f); });
  }
  rmath::device::add_arith_counts(arith, counts);
}

std::size_t map_samples(int w, int h) {
  return static_cast<std::size_t>(ssim::windowed_size(w)) * static_cast<std::size_t>(ssim::windowed_size(h));
}

class FloatMsSsimCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit FloatMsSsimCudaWorker(const Config& c) : c_(c) {}

  cuda::PlaneNeeds planes() const override { return cuda::luma_pair_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream) override {
    cuda::require_luma_pair(frame, static_cast<unsigned>(c_.w[0]), static_cast<unsigned>(c_.h[0]), "float_ms_ssim");
    cuda::ScratchLayout layout;
    std::size_t at_plane[num_scales][2];
    for (int s = 0; s < num_scales; ++s)
      for (int p = 0; p < 2; ++p) at_plane[s][p] = layout.take(static_cast<std::size_t>(c_.w[s]) * static_cast<std::size_t>(c_.h[s]));
    // Scale 0's horizontal maps are the largest; the scales use them in turn.
    const std::size_t at_hz = layout.take(static_cast<std::size_t>(ssim::map_count) * static_cast<std::size_t>(c_.h[0]) *
                                   static_cast<std::size_t>(ssim::windowed_size(c_.w[0])));
    scratch_ = cuda::DeviceBuffer<float>(layout.floats());
    float* base = scratch_.get();
    for (int s = 0; s < num_scales; ++s) plane_[s][0] = base + at_plane[s][0], plane_[s][1] = base + at_plane[s][1];
    hz_ = base + at_hz;
    // Each scale's terms stay until the chains run, all scales at once.
    std::size_t words = 0;
    for (int s = 0; s < num_scales; ++s) {
      terms_at_[s] = words;
      words += kChains * map_samples(c_.w[s], c_.h[s]);
    }
    terms_ = cuda::DeviceBuffer<std::uint64_t>(words);
    results_ = cuda::DeviceBuffer<std::uint64_t>(kResults);
    result_ = cuda::PinnedBuffer<std::uint64_t>(kResults);
    // The fp64-free variant adds the chains on the host (ssim_cuda.cuh's
    // host_chain_sums): l, c and s of every scale come back.
    host_chains_ = frame.arith == cuda::DeviceArith::fp32pair;
    if (host_chains_) {
      std::size_t host_words = 0;
      for (int s = 0; s < num_scales; ++s) {
        host_at_[s] = host_words;
        host_words += (kChains - 1) * map_samples(c_.w[s], c_.h[s]);
      }
      host_terms_ = cuda::PinnedBuffer<std::uint64_t>(host_words);
    }
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(results_.get(), 0, sizeof(std::uint64_t) * kResults, stream));
    const cuda::DevicePlane& ref = frame.ref.plane[0];
    const cuda::DevicePlane& dis = frame.dist.plane[0];
    const std::size_t n = static_cast<std::size_t>(c_.w[0]) * static_cast<std::size_t>(c_.h[0]);
    if (c_.bpc == 8)
      ssim::device::load_kernel<std::uint8_t><<<cuda::sample_blocks(n), kThreads, 0, stream>>>(
          ref, dis, c_.bpc, c_.w[0], c_.h[0], plane_[0][0], plane_[0][1]);
    else
      ssim::device::load_kernel<std::uint16_t><<<cuda::sample_blocks(n), kThreads, 0, stream>>>(
          ref, dis, c_.bpc, c_.w[0], c_.h[0], plane_[0][0], plane_[0][1]);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    cuda::with_device_arith(frame.arith, [&](auto arith) { enqueue_with<decltype(arith)>(stream); });
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), results_.get(), sizeof(std::uint64_t) * kResults,
                                         cudaMemcpyDeviceToHost, stream));
  }

  cuda::DeviceArithCounts arith_counts() const override { return counts_; }

  bool reads_host_samples() const override { return false; }

  void finish(const FrameInput& in, FrameOutput& out) override {
    const std::uint64_t* r = result_.get();
    const std::uint64_t* counts = r + kChains * num_scales;
    counts_ += {counts[0], counts[1], counts[2]};
    FrameScores f;
    for (int s = 0; s < num_scales; ++s) {
      std::uint64_t sums[kChains];
      if (host_chains_)
        ssim::device::host_chain_sums(host_terms_.get() + host_at_[s], map_samples(c_.w[s], c_.h[s]), 1, sums);
      else
        std::memcpy(sums, r + kChains * s, sizeof sums);
      f.scale[s] = ssim::device::means_of_sums(sums, c_.w[s], c_.h[s]);
    }
    combine_scales(f, in.index);
    write_outputs(c_, f, out);
  }

 private:
  template <class Arith>
  void enqueue_with(cuda::Stream stream) {
    auto* counts = reinterpret_cast<unsigned long long*>(results_.get() + kChains * num_scales);
    for (int s = 1; s < num_scales; ++s) {
      const std::size_t n = static_cast<std::size_t>(c_.w[s]) * static_cast<std::size_t>(c_.h[s]);
      decimate_kernel<Arith><<<cuda::sample_blocks(n), kThreads, 0, stream>>>(
          plane_[s - 1][0], plane_[s - 1][1], c_.w[s - 1], c_.h[s - 1], c_.w[s], c_.h[s], plane_[s][0], plane_[s][1],
          counts);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    }
    ssim::device::ChainJobs jobs{};
    for (int s = 0; s < num_scales; ++s) {
      std::uint64_t* terms = terms_.get() + terms_at_[s];
      ssim::device::enqueue_terms<Arith>(plane_[s][0], plane_[s][1], c_.w[s], c_.h[s], false, hz_, terms, counts,
                                         stream);
      jobs.job[s] = {terms, map_samples(c_.w[s], c_.h[s]), results_.get() + kChains * s, 1};
      if constexpr (std::is_same_v<Arith, rmath::Fp32PairArith>) {  // l, c and s: chains 1..3
        if (!host_chains_) throw InternalError("internal: float_ms_ssim's fp64-free kernels without host chains");
        const std::size_t n = map_samples(c_.w[s], c_.h[s]);
        EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(host_terms_.get() + host_at_[s], terms + n,
                                             sizeof(std::uint64_t) * (kChains - 1) * n, cudaMemcpyDeviceToHost, stream));
      }
    }
    if constexpr (!std::is_same_v<Arith, rmath::Fp32PairArith>) ssim::device::enqueue_chains<Arith>(jobs, num_scales, stream);
  }

  Config c_;
  cuda::DeviceBuffer<float> scratch_;
  float* plane_[num_scales][2] = {};  // each scale's pair as floats, w[s] x h[s]
  float* hz_ = nullptr;               // the horizontal window of the five maps (one scale at a time)
  std::size_t terms_at_[num_scales] = {};
  cuda::DeviceBuffer<std::uint64_t> terms_;    // per scale: l*c*s (unused), l, c, s per pixel (binary64 bits)
  cuda::DeviceBuffer<std::uint64_t> results_;  // each scale's four sums, then the island counts
  cuda::PinnedBuffer<std::uint64_t> result_;   // the graph's last copy lands here
  bool host_chains_ = false;                   // the fp64-free variant: the chains on the host
  std::size_t host_at_[num_scales] = {};
  cuda::PinnedBuffer<std::uint64_t> host_terms_;  // then: each scale's l, c and s terms, copied back
  cuda::DeviceArithCounts counts_;
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<FloatMsSsimCudaWorker>(c);
}

}  // namespace exactvmaf::float_ms_ssim
