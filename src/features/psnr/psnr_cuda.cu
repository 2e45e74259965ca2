// psnr on the device: each plane's SSE as the CPU sums it (psnr_math.hpp),
// integers throughout, so any order gives its bits. A block takes 256
// columns of one row: its squared errors summed with shuffles, added to the
// row's sum atomically; then one block adds the rows, 8-bit rows modulo 2^32
// as the CPU's uint32_t row sums. Three numbers come back per frame; the
// psnr and mse tail (R's log10) is the CPU's host code.
#include <cstdint>
#include <memory>
#include <string>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/psnr/psnr_cuda.hpp"
#include "features/psnr/psnr_math.hpp"

namespace exactvmaf::psnr {

namespace {

constexpr unsigned kBlock = 256;     // columns per block of the row kernel
constexpr unsigned kSumBlock = 512;  // threads adding the row sums
constexpr unsigned kMaxGridY = 65535;

__device__ unsigned long long block_sum(unsigned long long v) {
  __shared__ unsigned long long warp_sums[kBlock / 32];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  unsigned long long total = 0;
  if (threadIdx.x == 0)
    for (unsigned k = 0; k < kBlock / 32; ++k) total += warp_sums[k];
  return total;  // valid in thread 0
}

template <class Sample>
__global__ void __launch_bounds__(kBlock) row_sse_kernel(cuda::DevicePlane ref, cuda::DevicePlane dis,
                                                          unsigned long long* row_sums) {
  const unsigned j = blockIdx.x * kBlock + threadIdx.x;
  for (unsigned i = blockIdx.y; i < ref.height; i += gridDim.y) {
    unsigned long long v = 0;
    if (j < ref.width) {
      const Sample r = reinterpret_cast<const Sample*>(ref.data + static_cast<std::size_t>(i) * ref.pitch)[j];
      const Sample d = reinterpret_cast<const Sample*>(dis.data + static_cast<std::size_t>(i) * dis.pitch)[j];
      if constexpr (sizeof(Sample) == 1)
        v = sq_err_8bit(r, d);
      else
        v = sq_err_hbd(r, d);
    }
    const unsigned long long sum = block_sum(v);
    if (threadIdx.x == 0 && sum) atomicAdd(row_sums + i, sum);
    __syncthreads();  // warp_sums is reused by the next row
  }
}

// total = the rows' sums in uint64 (8-bit rows first reduced modulo 2^32).
__global__ void __launch_bounds__(kSumBlock) total_kernel(const unsigned long long* row_sums, unsigned h,
                                                           bool rows_u32, unsigned long long* total) {
  __shared__ unsigned long long part[kSumBlock];
  unsigned long long s = 0;
  for (unsigned i = threadIdx.x; i < h; i += kSumBlock) s += rows_u32 ? (row_sums[i] & 0xffffffffull) : row_sums[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (unsigned n = kSumBlock / 2; n > 0; n /= 2) {
    if (threadIdx.x < n) part[threadIdx.x] += part[threadIdx.x + n];
    __syncthreads();
  }
  if (threadIdx.x == 0) *total = part[0];
}

class PsnrCudaWorker final : public cuda::FeatureWorker {
 public:
  PsnrCudaWorker(const Config& c, std::shared_ptr<ApsnrSums> sums) : c_(c), sums_(std::move(sums)) {}

  cuda::PlaneNeeds planes() const override {
    cuda::PlaneNeeds n;
    n.ref = c_.planes > 1 ? cuda::kAllPlanes : cuda::kLuma;
    n.dist = n.ref;
    return n;
  }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream) override {
    std::size_t rows = 0;
    for (unsigned p = 0; p < c_.planes; ++p) {
      if (!frame.ref.plane[p].data || !frame.dist.plane[p].data)
        throw InternalError("internal: psnr's CUDA worker did not get plane " + std::to_string(p) + " on the device");
      row_at_[p] = rows;
      rows += frame.ref.plane[p].height;
    }
    row_sums_ = cuda::DeviceBuffer<unsigned long long>(rows > 0 ? rows : 1);
    totals_ = cuda::DeviceBuffer<unsigned long long>(3);
    result_ = cuda::PinnedBuffer<unsigned long long>(3);
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(row_sums_.get(), 0, row_sums_.bytes(), stream));
    for (unsigned p = 0; p < c_.planes; ++p) {
      const cuda::DevicePlane& r = frame.ref.plane[p];
      const cuda::DevicePlane& d = frame.dist.plane[p];
      unsigned long long* rows = row_sums_.get() + row_at_[p];
      const dim3 grid((r.width + kBlock - 1) / kBlock, r.height < kMaxGridY ? r.height : kMaxGridY);
      if (c_.bpc == 8)
        row_sse_kernel<std::uint8_t><<<grid, kBlock, 0, stream>>>(r, d, rows);
      else
        row_sse_kernel<std::uint16_t><<<grid, kBlock, 0, stream>>>(r, d, rows);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      total_kernel<<<1, kSumBlock, 0, stream>>>(rows, r.height, c_.bpc == 8, totals_.get() + p);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    }
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), totals_.get(), 3 * sizeof(unsigned long long),
                                         cudaMemcpyDeviceToHost, stream));
  }

  bool reads_host_samples() const override { return false; }

  void finish(const FrameInput& in, FrameOutput& out) override {
    std::uint64_t sse[3] = {};
    unsigned w[3] = {}, h[3] = {};
    for (unsigned p = 0; p < c_.planes; ++p) {
      sse[p] = static_cast<std::uint64_t>(result_.get()[p]);
      w[p] = in.ref.w(p);
      h[p] = in.ref.h(p);
    }
    write_frame(c_, sse, w, h, *sums_, out);
  }

 private:
  const Config& c_;
  std::shared_ptr<ApsnrSums> sums_;
  std::size_t row_at_[3] = {};  // each plane's first row in row_sums_
  cuda::DeviceBuffer<unsigned long long> row_sums_, totals_;
  cuda::PinnedBuffer<unsigned long long> result_;  // the graph's last copy lands here
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c, std::shared_ptr<ApsnrSums> sums) {
  return std::make_unique<PsnrCudaWorker>(c, std::move(sums));
}

}  // namespace exactvmaf::psnr
