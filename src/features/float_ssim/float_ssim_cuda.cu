// float_ssim on the device. Per frame, on the worker's stream:
//
//   load_kernel       both luma planes as floats (common/ssim_cuda.cuh);
//   decimate_kernel   with scale > 1: decimated_sample per output (the box's
//                     double sum, R's double of the variant);
//   the windows, terms and chains of common/ssim_cuda.cuh on the (decimated)
//                     pair: R's four double sums in raster order, one thread
//                     per chain;
//
// then one copy of the four sums' bits and the island counts to pinned
// memory (the fp64-free variant copies the terms instead and adds them on
// the host: ssim_cuda.cuh's host_chain_sums). finish() computes the means
// (mean_of) and the outputs with the CPU's write_outputs. The variant (DeviceFrame::arith) picks the kernels:
// NativeF64 (device doubles) or Fp32PairArith (every double in Sf64, no
// fp64 instruction: tests/numeric's PTX check).
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
#include "features/float_ssim/float_ssim_cuda.hpp"
#include "features/float_ssim/float_ssim_math.hpp"

namespace exactvmaf::float_ssim {

namespace {

using ssim::device::kThreads;
constexpr int kResults = ssim::device::kChains + ssim::device::kArithWords;  // sums, then the island counts

// _iqa_decimate of both w x h planes into dw x dh (stride dw).
template <class Arith>
__global__ void __launch_bounds__(kThreads) decimate_kernel(const float* a, const float* b, int w, int h, int factor,
                                                             int dw, int dh, float* da, float* db,
                                                             unsigned long long* counts) {
  Arith arith;  // the fp64-free variant: pairs first, Sf64 replays (counted)
  EXACTVMAF_FOR_SAMPLES(static_cast<std::size_t>(dw) * static_cast<std::size_t>(dh), static_cast<std::size_t>(dw)) {
    da[sample] = arith.island([&](auto& f) { return decimated_sample(a, w, h, factor, j, i, f); });
    db[sample] = arith.island([&](auto& f) { return decimated_sample(b, w, h, factor, j, i, f); });
  }
  rmath::device::add_arith_counts(arith, counts);
}

class FloatSsimCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit FloatSsimCudaWorker(const Config& c) : c_(c) {}

  cuda::PlaneNeeds planes() const override { return cuda::luma_pair_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream) override {
    cuda::require_luma_pair(frame, static_cast<unsigned>(c_.w), static_cast<unsigned>(c_.h), "float_ssim");
    cuda::ScratchLayout layout;
    const std::size_t plane = static_cast<std::size_t>(c_.w) * static_cast<std::size_t>(c_.h);
    const std::size_t decimated = static_cast<std::size_t>(c_.dw) * static_cast<std::size_t>(c_.dh);
    const std::size_t at_input[2] = {layout.take(plane), layout.take(plane)};
    std::size_t at_decimated[2] = {0, 0};
    if (c_.scale > 1) at_decimated[0] = layout.take(decimated), at_decimated[1] = layout.take(decimated);
    const std::size_t at_hz = layout.take(static_cast<std::size_t>(ssim::map_count) * static_cast<std::size_t>(c_.dh) *
                                   static_cast<std::size_t>(ssim::windowed_size(c_.dw)));
    scratch_ = cuda::DeviceBuffer<float>(layout.floats());
    float* base = scratch_.get();
    input_[0] = base + at_input[0];
    input_[1] = base + at_input[1];
    pair_[0] = c_.scale > 1 ? base + at_decimated[0] : input_[0];
    pair_[1] = c_.scale > 1 ? base + at_decimated[1] : input_[1];
    hz_ = base + at_hz;
    terms_ = cuda::DeviceBuffer<std::uint64_t>(static_cast<std::size_t>(ssim::device::kChains) *
                                               static_cast<std::size_t>(ssim::windowed_size(c_.dw)) *
                                               static_cast<std::size_t>(ssim::windowed_size(c_.dh)));
    results_ = cuda::DeviceBuffer<std::uint64_t>(kResults);
    result_ = cuda::PinnedBuffer<std::uint64_t>(kResults);
    host_chains_ = frame.arith == cuda::DeviceArith::fp32pair;
    if (host_chains_) host_terms_ = cuda::PinnedBuffer<std::uint64_t>(ssim::device::kChains * map_size());
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(results_.get(), 0, sizeof(std::uint64_t) * kResults, stream));
    const cuda::DevicePlane& ref = frame.ref.plane[0];
    const cuda::DevicePlane& dis = frame.dist.plane[0];
    const std::size_t n = static_cast<std::size_t>(c_.w) * static_cast<std::size_t>(c_.h);
    if (c_.bpc == 8)
      ssim::device::load_kernel<std::uint8_t>
          <<<cuda::sample_blocks(n), kThreads, 0, stream>>>(ref, dis, c_.bpc, c_.w, c_.h, input_[0], input_[1]);
    else
      ssim::device::load_kernel<std::uint16_t>
          <<<cuda::sample_blocks(n), kThreads, 0, stream>>>(ref, dis, c_.bpc, c_.w, c_.h, input_[0], input_[1]);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    cuda::with_device_arith(frame.arith, [&](auto arith) { enqueue_with<decltype(arith)>(stream); });
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), results_.get(), sizeof(std::uint64_t) * kResults,
                                         cudaMemcpyDeviceToHost, stream));
  }

  cuda::DeviceArithCounts arith_counts() const override { return counts_; }

  bool reads_host_samples() const override { return false; }

  void finish(const FrameInput&, FrameOutput& out) override {
    const std::uint64_t* r = result_.get();
    const std::uint64_t* counts = r + ssim::device::kChains;
    counts_ += {counts[0], counts[1], counts[2]};
    std::uint64_t sums[ssim::device::kChains];
    if (host_chains_)
      ssim::device::host_chain_sums(host_terms_.get(), map_size(), 0, sums);
    else
      std::memcpy(sums, r, sizeof sums);
    write_outputs(c_, ssim::device::means_of_sums(sums, c_.dw, c_.dh), out);
  }

 private:
  template <class Arith>
  void enqueue_with(cuda::Stream stream) {
    auto* counts = reinterpret_cast<unsigned long long*>(results_.get() + ssim::device::kChains);
    if (c_.scale > 1) {
      const std::size_t n = static_cast<std::size_t>(c_.dw) * static_cast<std::size_t>(c_.dh);
      decimate_kernel<Arith><<<cuda::sample_blocks(n), kThreads, 0, stream>>>(
          input_[0], input_[1], c_.w, c_.h, c_.scale, c_.dw, c_.dh, pair_[0], pair_[1], counts);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    }
    ssim::device::enqueue_terms<Arith>(pair_[0], pair_[1], c_.dw, c_.dh, true, hz_, terms_.get(), counts, stream);
    if constexpr (std::is_same_v<Arith, rmath::Fp32PairArith>) {
      if (!host_chains_) throw InternalError("internal: float_ssim's fp64-free kernels without host chains");
      EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(host_terms_.get(), terms_.get(),
                                           sizeof(std::uint64_t) * ssim::device::kChains * map_size(),
                                           cudaMemcpyDeviceToHost, stream));
    } else {
      ssim::device::ChainJobs jobs{};
      jobs.job[0] = {terms_.get(), map_size(), results_.get(), 0};
      ssim::device::enqueue_chains<Arith>(jobs, 1, stream);
    }
  }

  // Terms per quantity: the (dw - 10) x (dh - 10) map.
  std::size_t map_size() const {
    return static_cast<std::size_t>(ssim::windowed_size(c_.dw)) * static_cast<std::size_t>(ssim::windowed_size(c_.dh));
  }

  Config c_;
  cuda::DeviceBuffer<float> scratch_;
  float* input_[2] = {};  // the luma planes as floats, w x h
  float* pair_[2] = {};   // what SSIM reads: input_ or its decimation, dw x dh
  float* hz_ = nullptr;   // the horizontal window of the five maps
  cuda::DeviceBuffer<std::uint64_t> terms_;    // l*c*s, l, c, s per pixel (binary64 bits)
  cuda::DeviceBuffer<std::uint64_t> results_;  // the four sums, then the island counts
  cuda::PinnedBuffer<std::uint64_t> result_;   // the graph's last copy lands here
  bool host_chains_ = false;                   // the fp64-free variant: the chains on the host
  cuda::PinnedBuffer<std::uint64_t> host_terms_;  // then: the terms, copied back
  cuda::DeviceArithCounts counts_;
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<FloatSsimCudaWorker>(c);
}

}  // namespace exactvmaf::float_ssim
