// float_motion on the device. Per frame and plane (luma; U and V with
// motion_add_uv), on the worker's stream:
//
//   blur_kernel      the previous and the current reference plane as floats
//                    (sample_to_float), blurred with the 5- or 3-tap filter
//                    (filter_at: the CPU's vertical-then-horizontal chain);
//   ordered sums     (row_chain.cuh) |a - b| per sample, float sums per row
//                    in column order, the rows in row order: vmaf_image_sad_c;
//   halve_kernel     (motion_add_scale1) both blurred planes halved with
//                    vif_tools' bilinear prescaler (the host's positions),
//                    then their ordered sums.
//
// One copy brings the planes' sums back; finish() divides (mean_abs), adds
// the scales and planes as the CPU does and hands the score to the
// extractor's record (finish_frame). Frame 0's history slot holds no previous
// frame: its sums are computed and ignored, as on the CPU where frame 0
// scores 0.
#include <cstdint>
#include <memory>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_memory.cuh"
#include "backends/cuda/grid.cuh"
#include "backends/cuda/row_chain.cuh"
#include "features/common/separable_filter.hpp"
#include "features/common/vif_tools_cuda.cuh"
#include "features/float_motion/float_motion_cuda.hpp"
#include "features/float_motion/float_motion_math.hpp"

namespace exactvmaf::float_motion {

namespace {

constexpr unsigned kThreads = cuda::kSampleThreads;
constexpr int kMaxPlanes = 3;
constexpr int kSums = 2 * kMaxPlanes;  // scale 0 and scale 1 per plane

// A device plane's samples as picture_copy's floats.
template <class Sample>
struct RawSource {
  cuda::DevicePlane p;
  unsigned bpc;
  __device__ float operator()(int y, int x) const {
    return vif_tools::sample_to_float(reinterpret_cast<const Sample*>(p.data + static_cast<std::size_t>(y) * p.pitch)[x],
                                      bpc);
  }
};

struct Blur {
  const float* taps;  // device memory
  int width;
};

template <class Sample>
__global__ void __launch_bounds__(kThreads) blur_kernel(Blur f, cuda::DevicePlane earlier, cuda::DevicePlane current,
                                                         unsigned bpc, int w, int h, float* out_a, float* out_b) {
  EXACTVMAF_FOR_SAMPLES(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), w) {
    out_a[sample] = filter_at(f.taps, f.width, RawSource<Sample>{earlier, bpc}, w, h, i, j);
    out_b[sample] = filter_at(f.taps, f.width, RawSource<Sample>{current, bpc}, w, h, i, j);
  }
}

struct HalveArgs {
  int w, h, half_w, half_h;
  vif_tools::ScaleAxis ax, ay;
};

__global__ void __launch_bounds__(kThreads) halve_kernel(HalveArgs a, const float* in_a, const float* in_b,
                                                          float* out_a, float* out_b) {
  EXACTVMAF_FOR_SAMPLES(static_cast<std::size_t>(a.half_w) * static_cast<std::size_t>(a.half_h), a.half_w) {
    out_a[sample] = vif_tools::scaled_sample(vif_tools::ScaleMethod::bilinear, PlaneRef{in_a, a.w}, a.w, a.h, a.half_w,
                                         a.half_h, j, i, a.ax, a.ay);
    out_b[sample] = vif_tools::scaled_sample(vif_tools::ScaleMethod::bilinear, PlaneRef{in_b, a.w}, a.w, a.h, a.half_w,
                                         a.half_h, j, i, a.ax, a.ay);
  }
}

// |a - b| of two dense w-wide planes: the SAD's terms.
struct AbsDiffTerms {
  const float* a;
  const float* b;
  int w;
  __device__ void operator()(int i, int j, float (&t)[1]) const {
    const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(w) + static_cast<std::size_t>(j);
    t[0] = add_abs_diff(0.0f, a[at], b[at]);
  }
  __device__ void done() const {}
};

class FloatMotionCudaWorker final : public cuda::FeatureWorker {
 public:
  FloatMotionCudaWorker(const Config& c, FrameScores& kept) : c_(c), kept_(kept) {}

  cuda::PlaneNeeds planes() const override {
    cuda::PlaneNeeds n;
    n.ref = c_.add_uv ? cuda::kAllPlanes : cuda::kLuma;
    if (!c_.force_zero) n.prev_ref = n.ref;
    return n;
  }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    for (const Plane& pl : c_.planes) {
      const cuda::DevicePlane& cur = frame.ref.plane[pl.index];
      const cuda::DevicePlane& prev = frame.prev_ref[0].plane[pl.index];
      if (!cur.data || static_cast<int>(cur.width) != pl.w || static_cast<int>(cur.height) != pl.h ||
          (!c_.force_zero && (frame.history < 1 || !prev.data)))
        throw InternalError("internal: float_motion's CUDA worker did not get its reference planes on the device");
    }
    const Plane& luma = c_.planes.front();
    const std::size_t n = static_cast<std::size_t>(luma.w) * static_cast<std::size_t>(luma.h);
    const std::size_t half = static_cast<std::size_t>(luma.half_w) * static_cast<std::size_t>(luma.half_h);
    // Luma is the largest plane; the planes run one after the other.
    scratch_ = cuda::DeviceBuffer<float>(2 * n + 2 * half + static_cast<std::size_t>(luma.h) + kSums);
    blur_a_ = scratch_.get();
    blur_b_ = blur_a_ + n;
    half_a_ = blur_b_ + n;
    half_b_ = half_a_ + half;
    row_sums_ = half_b_ + half;
    sums_ = row_sums_ + luma.h;
    result_ = cuda::PinnedBuffer<float>(kSums);
    taps_ = cuda::DeviceBuffer<float>(static_cast<std::size_t>(c_.blur.width));
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(taps_.get(), c_.blur.taps, sizeof(float) * static_cast<std::size_t>(c_.blur.width),
                                         cudaMemcpyHostToDevice, stream));
    if (c_.add_scale1)
      for (std::size_t p = 0; p < c_.planes.size(); ++p) half_tables_[p].upload(c_.planes[p].half, stream);
    // The copies read pageable host memory: finish them here.
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(sums_, 0, sizeof(float) * kSums, stream));
    if (!c_.force_zero)
      for (std::size_t p = 0; p < c_.planes.size(); ++p) enqueue_plane(frame, p, stream);
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), sums_, sizeof(float) * kSums, cudaMemcpyDeviceToHost, stream));
  }

  bool reads_host_samples() const override { return false; }

  void finish(const FrameInput& in, FrameOutput& out) override {
    double score = 0.0;
    if (!c_.force_zero && in.index > 0)
      for (std::size_t p = 0; p < c_.planes.size(); ++p) {
        const Plane& pl = c_.planes[p];
        const float* s = result_.get() + 2 * p;
        float v = mean_abs(s[0], pl.w, pl.h);
        if (c_.add_scale1) v = v + mean_abs(s[1], pl.half_w, pl.half_h);
        score += static_cast<double>(v);
      }
    finish_frame(c_, in.index, score, out, kept_);
  }

 private:
  void enqueue_plane(const cuda::DeviceFrame& frame, std::size_t p, cuda::Stream stream) {
    const Plane& pl = c_.planes[p];
    const cuda::DevicePlane& cur = frame.ref.plane[pl.index];
    const cuda::DevicePlane& prev = frame.prev_ref[0].plane[pl.index];
    const Blur f{taps_.get(), c_.blur.width};
    const std::size_t n = static_cast<std::size_t>(pl.w) * static_cast<std::size_t>(pl.h);
    if (c_.bpc == 8)
      blur_kernel<std::uint8_t><<<cuda::sample_blocks(n), kThreads, 0, stream>>>(f, prev, cur, c_.bpc, pl.w, pl.h, blur_a_, blur_b_);
    else
      blur_kernel<std::uint16_t><<<cuda::sample_blocks(n), kThreads, 0, stream>>>(f, prev, cur, c_.bpc, pl.w, pl.h, blur_a_, blur_b_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    cuda::enqueue_ordered_sums<1>(AbsDiffTerms{blur_a_, blur_b_, pl.w}, static_cast<unsigned>(pl.w),
                                  static_cast<unsigned>(pl.h), row_sums_, sums_ + 2 * p, stream);
    if (!c_.add_scale1) return;
    const HalveArgs a{pl.w, pl.h, pl.half_w, pl.half_h, half_tables_[p].x(), half_tables_[p].y()};
    const std::size_t half = static_cast<std::size_t>(pl.half_w) * static_cast<std::size_t>(pl.half_h);
    halve_kernel<<<cuda::sample_blocks(half), kThreads, 0, stream>>>(a, blur_a_, blur_b_, half_a_, half_b_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    cuda::enqueue_ordered_sums<1>(AbsDiffTerms{half_a_, half_b_, pl.half_w}, static_cast<unsigned>(pl.half_w),
                                  static_cast<unsigned>(pl.half_h), row_sums_, sums_ + 2 * p + 1, stream);
  }

  const Config& c_;
  FrameScores& kept_;
  cuda::DeviceBuffer<float> scratch_, taps_;
  float *blur_a_ = nullptr, *blur_b_ = nullptr, *half_a_ = nullptr, *half_b_ = nullptr;
  float *row_sums_ = nullptr, *sums_ = nullptr;
  vif_tools::DeviceScaleTables half_tables_[kMaxPlanes];
  cuda::PinnedBuffer<float> result_;  // the graph's last copy lands here
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker_for(const Config& c, FrameScores& kept) {
  return std::make_unique<FloatMotionCudaWorker>(c, kept);
}

}  // namespace exactvmaf::float_motion
