// Integer motion on the device: strip_sad_kernel (motion_cuda_kernels.cuh),
// one warp per chunk of 120 columns and strip of rows, the vertical pass
// (motion_math.hpp) from a sliding window of five rows of differences in
// registers and the horizontal pass from the neighbouring lanes, summed
// exactly (row_sums_needed). One number comes back per frame. Edges mirror as
// the CPU does (2 * size - idx - 2), not as upstream's CUDA kernel.
#include <cstddef>
#include <cstdint>

#include <string>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/motion/motion_cuda.hpp"
#include "features/motion/motion_cuda_kernels.cuh"
#include "features/motion/motion_math.hpp"

namespace exactvmaf::motion {

namespace {

constexpr unsigned kSumBlock = 512;  // threads adding the row sums (planes wider than 65537)

__global__ void __launch_bounds__(kSumBlock) total_kernel(const std::uint32_t* row_sums, unsigned h,
                                                           unsigned long long* total) {
  __shared__ unsigned long long part[kSumBlock];
  unsigned long long s = 0;
  for (unsigned i = threadIdx.x; i < h; i += kSumBlock) s += row_sums[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (unsigned n = kSumBlock / 2; n > 0; n /= 2) {
    if (threadIdx.x < n) part[threadIdx.x] += part[threadIdx.x + n];
    __syncthreads();
  }
  if (threadIdx.x == 0) *total = part[0];
}

using SadKernel = void (*)(const std::uint8_t*, std::size_t, const std::uint8_t*, std::size_t, unsigned, unsigned,
                          unsigned, unsigned, unsigned, bool, unsigned long long*, std::uint32_t*);

// The sample type and accumulator of motion_math.hpp's vertical_row per bit
// depth: 8 bits uint8 / int32, up to 14 uint16 / int32, beyond uint16 / int64.
template <bool kRowSums>
SadKernel select_kernel_sums(unsigned bpc) {
  if (bpc == 8) return device::strip_sad_kernel<std::uint8_t, std::int32_t, kRowSums>;
  if (bpc <= 14) return device::strip_sad_kernel<std::uint16_t, std::int32_t, kRowSums>;
  return device::strip_sad_kernel<std::uint16_t, std::int64_t, kRowSums>;
}

SadKernel select_kernel(unsigned bpc, bool row_sums) {
  return row_sums ? select_kernel_sums<true>(bpc) : select_kernel_sums<false>(bpc);
}

class MotionCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit MotionCudaWorker(const Config& c) : c_(c), back_(c.back()) {}

  cuda::PlaneNeeds planes() const override {
    cuda::PlaneNeeds n;
    if (c_.force_zero) return n;  // nothing to compute
    n.ref = cuda::kLuma;
    n.prev_ref = cuda::kLuma;
    return n;
  }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream) override {
    if (c_.force_zero) return;
    if (frame.history < back_ || !frame.ref.plane[0].data || !frame.prev_ref[back_ - 1].plane[0].data)
      throw InternalError("internal: motion's CUDA worker did not get the previous reference on the device");
    kernel_ = select_kernel(c_.bpc, device::row_sums_needed(c_.w, c_.bpc));
    int device_index = 0, sm_count = 0, blocks_per_sm = 0;
    EXACTVMAF_CUDA_CHECK(cudaGetDevice(&device_index));
    EXACTVMAF_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device_index));
    EXACTVMAF_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel_, device::kBlockThreads, 0));
    const std::uint64_t resident_warps = std::uint64_t(sm_count > 0 ? sm_count : 1) *
                                         std::uint64_t(blocks_per_sm > 0 ? blocks_per_sm : 1) *
                                         device::kWarpsPerBlock;
    plan_ = device::plan_strips(c_.w, c_.h, c_.bpc, resident_warps);
    if (plan_.row_sums) row_sums_ = cuda::DeviceBuffer<std::uint32_t>(c_.h);
    total_ = cuda::DeviceBuffer<unsigned long long>(1);
    result_ = cuda::PinnedBuffer<unsigned long long>(1);
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    if (c_.force_zero) return;
    const cuda::DevicePlane& earlier = frame.prev_ref[back_ - 1].plane[0];
    const cuda::DevicePlane& current = frame.ref.plane[0];
    // The same planes every frame (a captured graph keeps the decision).
    const std::size_t packed_bytes = device::kLaneColumns * (c_.bpc == 8 ? 1 : 2);
    const bool packed_loads = reinterpret_cast<std::uintptr_t>(earlier.data) % packed_bytes == 0 &&
                              earlier.pitch % packed_bytes == 0 &&
                              reinterpret_cast<std::uintptr_t>(current.data) % packed_bytes == 0 &&
                              current.pitch % packed_bytes == 0;
    if (plan_.row_sums)
      EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(row_sums_.get(), 0, row_sums_.bytes(), stream));
    else
      EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(total_.get(), 0, total_.bytes(), stream));
    kernel_<<<plan_.blocks, device::kBlockThreads, 0, stream>>>(earlier.data, earlier.pitch, current.data,
                                                               current.pitch, c_.w, c_.h, c_.bpc, plan_.chunks,
                                                               plan_.strip_rows, packed_loads, total_.get(),
                                                               row_sums_.get());
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    if (plan_.row_sums) {
      total_kernel<<<1, kSumBlock, 0, stream>>>(row_sums_.get(), c_.h, total_.get());
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    }
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), total_.get(), sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
  }

  bool reads_host_samples() const override { return false; }

  void finish(const FrameInput& in, FrameOutput& out) override {
    std::uint64_t sad = 0;
    if (!c_.force_zero && in.index >= back_) {
      if (in.prev_ref.size() < back_)
        throw InternalError("internal: motion at frame " + std::to_string(in.index) + " got " +
                    std::to_string(in.prev_ref.size()) + " previous frames, needs " + std::to_string(back_));
      sad = static_cast<std::uint64_t>(result_[0]);
    }
    write_frame_outputs(c_, in.index, sad, out);
  }

 private:
  Config c_;
  unsigned back_;
  SadKernel kernel_ = nullptr;
  device::StripPlan plan_;
  cuda::DeviceBuffer<std::uint32_t> row_sums_;  // planes wider than 65537 only (row_sums_needed)
  cuda::DeviceBuffer<unsigned long long> total_;
  cuda::PinnedBuffer<unsigned long long> result_;  // the graph's last copy lands here
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<MotionCudaWorker>(c);
}

}  // namespace exactvmaf::motion
