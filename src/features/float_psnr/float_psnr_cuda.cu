// float_psnr on the device: every luma sample's float square as an integer
// in units of scaler^-2 (float_psnr_math.hpp's scaled_square), summed exactly
// in any order; one number comes back per frame. Below 2^53 that sum is
// upstream's double chain exactly; above it (extreme 16-bit noise at large
// sizes only) finish() recomputes the frame on the host, counted.
#include <cstdint>
#include <memory>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/float_psnr/float_psnr_cuda.hpp"
#include "features/float_psnr/float_psnr_math.hpp"

namespace exactvmaf::float_psnr {

double host_noise(const FrameInput& in, const Config& c);  // float_psnr_cpu.cpp

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;

template <class Sample>
__global__ void __launch_bounds__(kThreads) squares_kernel(cuda::DevicePlane ref, cuda::DevicePlane dis, float scaler,
                                                           unsigned long long* total) {
  __shared__ unsigned long long warp_sums[kThreads / 32];
  const std::size_t n = static_cast<std::size_t>(ref.width) * ref.height;
  unsigned long long v = 0;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * kThreads) {
    const std::size_t i = k / ref.width, j = k % ref.width;
    const Sample r = reinterpret_cast<const Sample*>(ref.data + i * ref.pitch)[j];
    const Sample d = reinterpret_cast<const Sample*>(dis.data + i * dis.pitch)[j];
    v += scaled_square(to_float(r, scaler), to_float(d, scaler), scaler);
  }
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long s = 0;
    for (unsigned w = 0; w < kThreads / 32; ++w) s += warp_sums[w];
    if (s) atomicAdd(total, s);
  }
}

class FloatPsnrCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit FloatPsnrCudaWorker(const Config& c) : c_(c) {}

  cuda::PlaneNeeds planes() const override { return cuda::luma_pair_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream) override {
    const cuda::DevicePlane& r = frame.ref.plane[0];
    cuda::require_luma_pair(frame, r.width, r.height, "float_psnr");
    total_ = cuda::DeviceBuffer<unsigned long long>(1);
    result_ = cuda::PinnedBuffer<unsigned long long>(1);
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    const cuda::DevicePlane& r = frame.ref.plane[0];
    const cuda::DevicePlane& d = frame.dist.plane[0];
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(total_.get(), 0, sizeof(unsigned long long), stream));
    const std::size_t n = static_cast<std::size_t>(r.width) * r.height;
    const unsigned blocks = static_cast<unsigned>(n / kThreads + 1 < kMaxBlocks ? n / kThreads + 1 : kMaxBlocks);
    if (frame.format.bitdepth == 8)
      squares_kernel<std::uint8_t><<<blocks, kThreads, 0, stream>>>(r, d, c_.k.scaler, total_.get());
    else
      squares_kernel<std::uint16_t><<<blocks, kThreads, 0, stream>>>(r, d, c_.k.scaler, total_.get());
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), total_.get(), sizeof(unsigned long long),
                                         cudaMemcpyDeviceToHost, stream));
  }

  std::uint64_t host_frames() const override { return host_frames_; }

  bool reads_host_samples() const override { return static_cast<std::uint64_t>(result_.get()[0]) >= kExactChainLimit; }

  void finish(const FrameInput& in, FrameOutput& out) override {
    const std::uint64_t sum = static_cast<std::uint64_t>(result_.get()[0]);
    double noise;
    if (sum < kExactChainLimit) {
      noise = noise_from_integer_sse(sum, c_.k.scaler);
    } else {
      noise = host_noise(in, c_);
      ++host_frames_;
    }
    out.set(0, score(noise, static_cast<int>(in.ref.w(0)), static_cast<int>(in.ref.h(0)), c_.k));
  }

 private:
  Config c_;
  cuda::DeviceBuffer<unsigned long long> total_;
  cuda::PinnedBuffer<unsigned long long> result_;  // the graph's last copy lands here
  std::uint64_t host_frames_ = 0;
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<FloatPsnrCudaWorker>(c);
}

}  // namespace exactvmaf::float_psnr
