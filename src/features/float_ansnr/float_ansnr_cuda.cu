// float_ansnr on the device. Per frame, on the worker's stream:
//
//   convert_kernel   both luma planes as floats (sample_value: s / scaler -
//                    128), w x h each, unpadded (filter_at mirrors);
//   filter_kernel    per output sample the reference's 3x3 filter_at and the
//                    distorted plane's 5x5 filter_at (upstream's 2-D loop:
//                    kernel rows from 0, taps from 0, ansnr_tools' mirror),
//                    into two float planes; equal bit for bit to the CPU's
//                    filter_row (float_ansnr_math.hpp says why its sums may
//                    skip the zeros they start from);
//   ordered sums     (row_chain.cuh) per sample mse_row's terms r*r and
//                    (r - d)*(r - d), per row their float sums from 0 in
//                    column order, then the rows' float sums from 0 in row
//                    order: CpuFrame::compute's RowSums chain exactly;
//
// then one copy of the two frame sums to pinned memory. finish() runs the
// CPU's double tail, scores(), on the host. Every device operation is float
// or integer: no fp64 (tests/numeric's PTX check).
#include <cstdint>
#include <memory>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_memory.cuh"
#include "backends/cuda/grid.cuh"
#include "backends/cuda/row_chain.cuh"
#include "features/float_ansnr/float_ansnr_cuda.hpp"
#include "features/float_ansnr/float_ansnr_math.hpp"

namespace exactvmaf::float_ansnr {

namespace {

constexpr unsigned kThreads = cuda::kSampleThreads;
constexpr int kSums = 2;  // signal, noise

struct PlanePair {
  float* ref;
  float* dis;
};

// CpuFrame::load's samples (without its mirrored columns: filter_at mirrors).
template <class Sample>
__global__ void __launch_bounds__(kThreads) convert_kernel(cuda::DevicePlane ref, cuda::DevicePlane dis, float scaler,
                                                            int w, int h, PlanePair out) {
  EXACTVMAF_FOR_SAMPLES(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), static_cast<std::size_t>(w)) {
    const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(w) + static_cast<std::size_t>(j);
    const std::size_t row = static_cast<std::size_t>(i);
    out.ref[at] = sample_value(reinterpret_cast<const Sample*>(ref.data + row * ref.pitch)[j], scaler);
    out.dis[at] = sample_value(reinterpret_cast<const Sample*>(dis.data + row * dis.pitch)[j], scaler);
  }
}

// The filtered planes: the reference 3x3, the distorted plane 5x5 (taps in
// device memory, Config's ref_taps / dis_taps).
__global__ void __launch_bounds__(kThreads) filter_kernel(const float* ref_taps, const float* dis_taps, int w, int h,
                                                           PlanePair src, PlanePair dst) {
  EXACTVMAF_FOR_SAMPLES(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), static_cast<std::size_t>(w)) {
    const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(w) + static_cast<std::size_t>(j);
    dst.ref[at] = filter_at<kRefWidth>(ref_taps, src.ref, w, w, h, i, j);
    dst.dis[at] = filter_at<kDisWidth>(dis_taps, src.dis, w, w, h, i, j);
  }
}

// mse_row's two terms of sample (i, j) (no contraction: --fmad=false).
struct MseTerms {
  const float* ref;
  const float* dis;
  int w;
  __device__ void operator()(int i, int j, float (&t)[kSums]) const {
    const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(w) + static_cast<std::size_t>(j);
    t[0] = signal_term(ref[at]);
    t[1] = noise_term(ref[at], dis[at]);
  }
  __device__ void done() const {}
};

class FloatAnsnrCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit FloatAnsnrCudaWorker(const Config& c) : c_(c) {}

  cuda::PlaneNeeds planes() const override { return cuda::luma_pair_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    cuda::require_luma_pair(frame, static_cast<unsigned>(c_.w), static_cast<unsigned>(c_.h), "float_ansnr");
    cuda::ScratchLayout layout;
    const std::size_t plane = static_cast<std::size_t>(c_.w) * static_cast<std::size_t>(c_.h);
    const std::size_t at_samples[2] = {layout.take(plane), layout.take(plane)};
    const std::size_t at_filtered[2] = {layout.take(plane), layout.take(plane)};
    const std::size_t at_rows = layout.take(kSums * static_cast<std::size_t>(c_.h));
    const std::size_t at_sums = layout.take(kSums);
    const std::size_t at_ref_taps = layout.take(kRefWidth * kRefWidth);
    const std::size_t at_dis_taps = layout.take(kDisWidth * kDisWidth);
    scratch_ = cuda::DeviceBuffer<float>(layout.floats());
    float* base = scratch_.get();
    samples_ = {base + at_samples[0], base + at_samples[1]};
    filtered_ = {base + at_filtered[0], base + at_filtered[1]};
    row_sums_ = base + at_rows;
    sums_ = base + at_sums;
    ref_taps_ = base + at_ref_taps;
    dis_taps_ = base + at_dis_taps;
    result_ = cuda::PinnedBuffer<float>(kSums);
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(ref_taps_, c_.ref_taps, sizeof c_.ref_taps, cudaMemcpyHostToDevice, stream));
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(dis_taps_, c_.dis_taps, sizeof c_.dis_taps, cudaMemcpyHostToDevice, stream));
    // The copies read pageable host memory: finish them here.
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    const cuda::DevicePlane& ref = frame.ref.plane[0];
    const cuda::DevicePlane& dis = frame.dist.plane[0];
    const std::size_t n = static_cast<std::size_t>(c_.w) * static_cast<std::size_t>(c_.h);
    const unsigned blocks = cuda::sample_blocks(n);
    if (frame.format.bitdepth == 8)
      convert_kernel<std::uint8_t><<<blocks, kThreads, 0, stream>>>(ref, dis, c_.k.scaler, c_.w, c_.h, samples_);
    else
      convert_kernel<std::uint16_t><<<blocks, kThreads, 0, stream>>>(ref, dis, c_.k.scaler, c_.w, c_.h, samples_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    filter_kernel<<<blocks, kThreads, 0, stream>>>(ref_taps_, dis_taps_, c_.w, c_.h, samples_, filtered_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    cuda::enqueue_ordered_sums<kSums>(MseTerms{filtered_.ref, filtered_.dis, c_.w}, static_cast<unsigned>(c_.w),
                                      static_cast<unsigned>(c_.h), row_sums_, sums_, stream);
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), sums_, sizeof(float) * kSums, cudaMemcpyDeviceToHost, stream));
  }

  bool reads_host_samples() const override { return false; }

  void finish(const FrameInput&, FrameOutput& out) override {
    const Scores s = scores(result_[0], result_[1], c_.w, c_.h, c_.k);
    out.set(0, s.ansnr);
    out.set(1, s.anpsnr);
  }

 private:
  Config c_;
  cuda::DeviceBuffer<float> scratch_;
  PlanePair samples_ = {}, filtered_ = {};
  float* row_sums_ = nullptr;  // kSums * h: the chain's row sums
  float* sums_ = nullptr;      // signal, noise
  float* ref_taps_ = nullptr;
  float* dis_taps_ = nullptr;
  cuda::PinnedBuffer<float> result_;  // the graph's last copy lands here
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<FloatAnsnrCudaWorker>(c);
}

}  // namespace exactvmaf::float_ansnr
