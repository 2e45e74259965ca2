// Integer motion on the device. One block per 256 columns of one row: the
// vertical pass of motion_math.hpp's vertical_sample for the block's columns
// plus two mirrored columns each side into shared memory, the horizontal
// pass (horizontal_abs), then the row's SAD as uint32 (modulo 2^32, as the
// CPU's per-row uint32_t: integers, exact in any order), added atomically per
// row. A second kernel adds the rows as uint64; one number comes back per
// frame. Edges mirror as the CPU does (2 * size - idx - 2), not as upstream's
// CUDA kernel.
#include <cstdint>

#include <string>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/motion/motion_cuda.hpp"
#include "features/motion/motion_math.hpp"

namespace exactvmaf::motion {

namespace {

constexpr unsigned kBlock = 256;     // columns per block of the row kernel
constexpr unsigned kSumBlock = 512;  // threads adding the row sums
constexpr unsigned kMaxGridY = 65535;

__device__ std::uint32_t block_sum_u32(std::uint32_t v) {
  __shared__ std::uint32_t warp_sums[kBlock / 32];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  std::uint32_t total = 0;
  if (threadIdx.x == 0)
    for (unsigned k = 0; k < kBlock / 32; ++k) total += warp_sums[k];
  return total;  // valid in thread 0
}

template <class Sample, class Acc>
__global__ void __launch_bounds__(kBlock)
    row_sad_kernel(const std::uint8_t* earlier, std::size_t earlier_pitch, const std::uint8_t* current,
                   std::size_t current_pitch, unsigned w, unsigned h, unsigned bpc, std::uint32_t* row_sums) {
  __shared__ std::int32_t ys[kBlock + 2 * filter_radius];
  const int j0 = static_cast<int>(blockIdx.x * kBlock);
  const Acc round = Acc{1} << (bpc - 1);
  for (unsigned i = blockIdx.y; i < h; i += gridDim.y) {
    const Sample* e[filter_width];
    const Sample* c[filter_width];
    for (int k = 0; k < filter_width; ++k) {
      const auto row = static_cast<std::size_t>(mirror(static_cast<int>(i) - filter_radius + k, static_cast<int>(h)));
      e[k] = reinterpret_cast<const Sample*>(earlier + row * earlier_pitch);
      c[k] = reinterpret_cast<const Sample*>(current + row * current_pitch);
    }
    // ys[t]: the vertical pass at column mirror(j0 - 2 + t), as the CPU's
    // horizontal pass reads y_row[mirror(col)].
    for (unsigned t = threadIdx.x; t < kBlock + 2 * filter_radius; t += kBlock) {
      const int col = j0 - filter_radius + static_cast<int>(t);
      if (col < static_cast<int>(w) + filter_radius)
        ys[t] = vertical_sample<Sample, Acc>(e, c, static_cast<unsigned>(mirror(col, static_cast<int>(w))), round, bpc);
    }
    __syncthreads();
    const unsigned j = static_cast<unsigned>(j0) + threadIdx.x;
    std::uint32_t v = 0;
    if (j < w) {
      const std::int32_t* y = ys + threadIdx.x;
      v = horizontal_abs(y[0], y[1], y[2], y[3], y[4]);
    }
    const std::uint32_t sum = block_sum_u32(v);
    if (threadIdx.x == 0 && sum) atomicAdd(row_sums + i, sum);  // unsigned wrap-around: the CPU's uint32_t
    __syncthreads();  // ys and warp_sums are reused by the next row
  }
}

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
    row_sums_ = cuda::DeviceBuffer<std::uint32_t>(c_.h);
    total_ = cuda::DeviceBuffer<unsigned long long>(1);
    result_ = cuda::PinnedBuffer<unsigned long long>(1);
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    if (c_.force_zero) return;
    const cuda::DevicePlane& earlier = frame.prev_ref[back_ - 1].plane[0];
    const cuda::DevicePlane& current = frame.ref.plane[0];
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(row_sums_.get(), 0, row_sums_.bytes(), stream));
    const dim3 grid((c_.w + kBlock - 1) / kBlock, c_.h < kMaxGridY ? c_.h : kMaxGridY);
    if (c_.bpc == 8)
      row_sad_kernel<std::uint8_t, std::int32_t><<<grid, kBlock, 0, stream>>>(
          earlier.data, earlier.pitch, current.data, current.pitch, c_.w, c_.h, c_.bpc, row_sums_.get());
    else if (c_.bpc <= 14)
      row_sad_kernel<std::uint16_t, std::int32_t><<<grid, kBlock, 0, stream>>>(
          earlier.data, earlier.pitch, current.data, current.pitch, c_.w, c_.h, c_.bpc, row_sums_.get());
    else
      row_sad_kernel<std::uint16_t, std::int64_t><<<grid, kBlock, 0, stream>>>(
          earlier.data, earlier.pitch, current.data, current.pitch, c_.w, c_.h, c_.bpc, row_sums_.get());
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    total_kernel<<<1, kSumBlock, 0, stream>>>(row_sums_.get(), c_.h, total_.get());
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
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
  cuda::DeviceBuffer<std::uint32_t> row_sums_;
  cuda::DeviceBuffer<unsigned long long> total_;
  cuda::PinnedBuffer<unsigned long long> result_;  // the graph's last copy lands here
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<MotionCudaWorker>(c);
}

}  // namespace exactvmaf::motion
