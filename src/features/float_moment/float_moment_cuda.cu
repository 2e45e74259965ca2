// float_moment on the device. Per frame, on the worker's stream:
//
//   units_kernel   both luma pictures (blockIdx.y: 0 ref, 1 dis): each thread
//                  adds pieces of kPiece samples of a row with the CPU's row
//                  functions (row_sum_units, row_sum_square_units_exact, at
//                  16 bits row_sum_square_units_16), the block's totals go to
//                  the picture's two unsigned 64-bit totals by atomicAdd;
//
// then one copy of the four totals to pinned memory. The totals are
// integers, exact in any order (float_moment_math.hpp), so no chain runs on
// the device and its kernel has no floating-point sum at all. finish() turns
// them into the moments with the CPU's function; a picture whose total
// reached 2^53 (16-bit second moments above 2^21 samples) is recomputed on
// the host with the CPU's R chain, and its frame counted in host_frames().
#include <cstdint>
#include <memory>
#include <optional>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/float_moment/float_moment_cuda.hpp"
#include "features/float_moment/float_moment_math.hpp"

namespace exactvmaf::float_moment {

// float_moment_cpu.cpp: the moments from a picture's totals, nullopt at 2^53.
std::optional<Moments> moments_from_totals(const Config& c, std::uint64_t total1, std::uint64_t total2);

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;  // per picture
constexpr unsigned kPiece = 16;        // consecutive samples of one row per call of the row functions
constexpr int kTotals = 4;             // ref's first, second; dis's first, second

// totals[2 * p]: picture p's sum of samples (units of 1/scaler), totals[2 * p + 1]:
// its sum of square_units (units of 1/scaler^2).
template <class Sample>
__global__ void __launch_bounds__(kThreads) units_kernel(cuda::DevicePlane ref, cuda::DevicePlane dis, bool bpc16,
                                                          unsigned long long* totals) {
  __shared__ unsigned long long warp_sums[2][kThreads / 32];
  const cuda::DevicePlane& pic = blockIdx.y == 0 ? ref : dis;
  const unsigned w = pic.width;
  const std::size_t pieces_per_row = (w + kPiece - 1) / kPiece;
  const std::size_t pieces = pieces_per_row * pic.height;
  unsigned long long sum1 = 0, sum2 = 0;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x; k < pieces;
       k += static_cast<std::size_t>(gridDim.x) * kThreads) {
    const std::size_t i = k / pieces_per_row;
    const unsigned j0 = static_cast<unsigned>(k % pieces_per_row) * kPiece;
    const unsigned n = w - j0 < kPiece ? w - j0 : kPiece;
    const Sample* row = reinterpret_cast<const Sample*>(pic.data + i * pic.pitch) + j0;
    sum1 += row_sum_units(row, n);
    // The CPU's choice of function (moments_of): the units are the same
    // either way below 16 bits, but this is the code R's totals come from.
    if constexpr (sizeof(Sample) == 1) {
      sum2 += row_sum_square_units_exact(row, n);
    } else {
      sum2 += bpc16 ? row_sum_square_units_16(row, n) : row_sum_square_units_exact(row, n);
    }
  }
  for (int off = 16; off > 0; off /= 2) {
    sum1 += __shfl_down_sync(0xffffffffu, sum1, off);
    sum2 += __shfl_down_sync(0xffffffffu, sum2, off);
  }
  if (threadIdx.x % 32 == 0) {
    warp_sums[0][threadIdx.x / 32] = sum1;
    warp_sums[1][threadIdx.x / 32] = sum2;
  }
  __syncthreads();
  if (threadIdx.x < 2) {
    unsigned long long s = 0;
    for (unsigned wi = 0; wi < kThreads / 32; ++wi) s += warp_sums[threadIdx.x][wi];
    if (s) atomicAdd(&totals[2 * blockIdx.y + threadIdx.x], s);
  }
}

class FloatMomentCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit FloatMomentCudaWorker(const Config& c) : c_(c) {}

  cuda::PlaneNeeds planes() const override { return cuda::luma_pair_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream) override {
    cuda::require_luma_pair(frame, static_cast<unsigned>(c_.w), static_cast<unsigned>(c_.h), "float_moment");
    totals_ = cuda::DeviceBuffer<unsigned long long>(kTotals);
    result_ = cuda::PinnedBuffer<unsigned long long>(kTotals);
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    const cuda::DevicePlane& r = frame.ref.plane[0];
    const cuda::DevicePlane& d = frame.dist.plane[0];
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(totals_.get(), 0, sizeof(unsigned long long) * kTotals, stream));
    const std::size_t pieces = (static_cast<std::size_t>(c_.w) + kPiece - 1) / kPiece * static_cast<std::size_t>(c_.h);
    const std::size_t wanted = (pieces + kThreads - 1) / kThreads;
    const dim3 grid(static_cast<unsigned>(wanted < kMaxBlocks ? wanted : kMaxBlocks), 2);
    if (c_.bpc == 8)
      units_kernel<std::uint8_t><<<grid, kThreads, 0, stream>>>(r, d, false, totals_.get());
    else
      units_kernel<std::uint16_t><<<grid, kThreads, 0, stream>>>(r, d, c_.bpc == 16, totals_.get());
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), totals_.get(), sizeof(unsigned long long) * kTotals,
                                         cudaMemcpyDeviceToHost, stream));
  }

  std::uint64_t host_frames() const override { return host_frames_; }

  void finish(const FrameInput& in, FrameOutput& out) override {
    bool on_host = false;
    // Picture p's moments from its totals, or (at 2^53) the CPU's whole computation.
    auto moments = [&](int p, const PictureView& pic) {
      const auto total1 = static_cast<std::uint64_t>(result_[2 * static_cast<std::size_t>(p)]);
      const auto total2 = static_cast<std::uint64_t>(result_[2 * static_cast<std::size_t>(p) + 1]);
      if (const std::optional<Moments> m = moments_from_totals(c_, total1, total2)) return *m;
      on_host = true;
      return picture_moments(c_, pic);
    };
    const Moments r = moments(0, in.ref);
    const Moments d = moments(1, in.dist);
    if (on_host) ++host_frames_;
    out.set(ref1st, r.first);
    out.set(dis1st, d.first);
    out.set(ref2nd, r.second);
    out.set(dis2nd, d.second);
  }

 private:
  Config c_;
  cuda::DeviceBuffer<unsigned long long> totals_;
  cuda::PinnedBuffer<unsigned long long> result_;  // the graph's last copy lands here
  std::uint64_t host_frames_ = 0;
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<FloatMomentCudaWorker>(c);
}

}  // namespace exactvmaf::float_moment
