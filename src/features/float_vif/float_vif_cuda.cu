// float_vif on the device. Per frame, on the worker's stream:
//
//   load_kernel        both luma planes as floats (sample_to_float), into
//                      scale 0's planes, or with vif_prescale into the
//                      source planes of
//   prescale_kernel    vif_scale_frame_s: scaled_sample per output sample,
//                      with the host's tables (R's positions and weights);
//   per scale s:
//   decimate_kernel    (s > 0) scale s's filter at the even rows and columns
//                      of scale s - 1 (filter_at: the vertical pass at each
//                      column the horizontal pass reads, the same chain as
//                      the CPU's row form);
//   vertical_kernel    the vertical pass of the five quantities (x, y, x²,
//                      y², xy) into five planes, taps in order from 0;
//   ordered sums       (row_chain.cuh) the horizontal passes and the
//                      statistic per sample (float_vif_math.hpp, its fp64
//                      islands native or on fp32 pairs), the row sums of num
//                      and den in column order, the rows in row order;
//
// then one copy of the 8 scale sums and the island counts to pinned memory.
// finish() runs the CPU's double tail (scores) on the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_arith.cuh"
#include "backends/cuda/device_memory.cuh"
#include "backends/cuda/grid.cuh"
#include "backends/cuda/row_chain.cuh"
#include "features/common/separable_filter.hpp"
#include "features/common/vif_tools_cuda.cuh"
#include "features/float_vif/float_vif_cuda.hpp"
#include "features/float_vif/float_vif_math.hpp"
#include "numeric/device/arith_counts.cuh"
#include "numeric/fp32pair.hpp"

namespace exactvmaf::float_vif {

namespace {

constexpr unsigned kThreads = cuda::kSampleThreads;
constexpr int kSums = 2 * num_scales;  // num, den per scale
constexpr int kResults = kSums + 2 * rmath::device::kArithCounts;  // floats, then the counts as 2 floats each

struct PlanePair {
  float* ref;
  float* dis;
};

// A scale's filter: its taps in device memory (read by every thread alike).
struct DeviceFilter {
  const float* taps;
  int width;
};

template <class Sample>
__global__ void __launch_bounds__(kThreads) load_kernel(cuda::DevicePlane ref, cuda::DevicePlane dis, unsigned bpc,
                                                         PlanePair out) {
  const unsigned w = ref.width;
  EXACTVMAF_FOR_SAMPLES(static_cast<std::size_t>(w) * ref.height, w) {
    const std::size_t at = static_cast<std::size_t>(i) * w + static_cast<std::size_t>(j);
    out.ref[at] = vif_tools::sample_to_float(reinterpret_cast<const Sample*>(ref.data + i * ref.pitch)[j], bpc);
    out.dis[at] = vif_tools::sample_to_float(reinterpret_cast<const Sample*>(dis.data + i * dis.pitch)[j], bpc);
  }
}

struct PrescaleArgs {
  vif_tools::ScaleMethod method;
  int sw, sh, dw, dh;
  vif_tools::ScaleAxis ax, ay;
};

__global__ void __launch_bounds__(kThreads) prescale_kernel(PrescaleArgs a, PlanePair src, PlanePair dst) {
  EXACTVMAF_FOR_SAMPLES(static_cast<std::size_t>(a.dw) * static_cast<std::size_t>(a.dh), a.dw) {
    const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(a.dw) + static_cast<std::size_t>(j);
    dst.ref[at] = vif_tools::scaled_sample(a.method, PlaneRef{src.ref, a.sw}, a.sw, a.sh, a.dw, a.dh, j, i, a.ax, a.ay);
    dst.dis[at] = vif_tools::scaled_sample(a.method, PlaneRef{src.dis, a.sw}, a.sw, a.sh, a.dw, a.dh, j, i, a.ax, a.ay);
  }
}

// (w / 2) x (h / 2) samples of the filtered w x h planes at even positions.
__global__ void __launch_bounds__(kThreads) decimate_kernel(DeviceFilter f, int w, int h, PlanePair src, PlanePair dst) {
  const int dw = w / 2;
  EXACTVMAF_FOR_SAMPLES(static_cast<std::size_t>(dw) * static_cast<std::size_t>(h / 2), dw) {
    const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(dw) + static_cast<std::size_t>(j);
    dst.ref[at] = filter_at(f.taps, f.width, PlaneRef{src.ref, w}, w, h, 2 * i, 2 * j);
    dst.dis[at] = filter_at(f.taps, f.width, PlaneRef{src.dis, w}, w, h, 2 * i, 2 * j);
  }
}

// The five vertical planes, each w x h: mu1, mu2, xx, yy, xy.
struct Vertical {
  float* q[5];
};

// vif_filter1d_s, _sq_s, _xy_s's vertical passes (filter_rows::vertical5_tap).
__global__ void __launch_bounds__(kThreads) vertical_kernel(DeviceFilter f, int w, int h, PlanePair src, Vertical out) {
  EXACTVMAF_FOR_SAMPLES(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), w) {
    float a[5] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < f.width; ++k) {
      const std::size_t row = static_cast<std::size_t>(mirror(i - f.width / 2 + k, h)) * static_cast<std::size_t>(w);
      const float fk = f.taps[k], r = src.ref[row + j], d = src.dis[row + j];
      a[0] += fk * r;
      a[1] += fk * d;
      a[2] += fk * (r * r);
      a[3] += fk * (d * d);
      a[4] += fk * (r * d);
    }
    const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(w) + static_cast<std::size_t>(j);
    for (int q = 0; q < 5; ++q) out.q[q][at] = a[q];
  }
}

// The statistic's terms of sample (i, j): the horizontal passes of the five
// vertical planes, then statistic(). The gain limit and nsq's double arrive
// as bits (no fp64 register in the fp32pair variant).
template <class Arith>
struct StatTerms {
  DeviceFilter f;
  Vertical v;
  int w;
  float gain_limit, sigma_max_inv;
  bool den_in_sf64;
  std::uint64_t nsq_bits;
  unsigned long long* counts;
  Arith arith;
  __device__ void operator()(int i, int j, float (&t)[2]) {
    float hz[5];
    const std::size_t row = static_cast<std::size_t>(i) * static_cast<std::size_t>(w);
    for (int q = 0; q < 5; ++q) {
      float acc = 0.0f;
      for (int k = 0; k < f.width; ++k) acc += f.taps[k] * v.q[q][row + static_cast<std::size_t>(mirror(j - f.width / 2 + k, w))];
      hz[q] = acc;
    }
    StatParams p;
    p.gain_limit = gain_limit;
    p.sigma_nsq = __longlong_as_double(static_cast<long long>(nsq_bits));
    p.sigma_max_inv = sigma_max_inv;
    p.den_in_sf64 = den_in_sf64;
    const Terms r = statistic(hz[0], hz[1], hz[2], hz[3], hz[4], p, arith);
    t[0] = r.num;
    t[1] = r.den;
  }
  __device__ void done() { rmath::device::add_arith_counts(arith, counts); }
};

class FloatVifCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit FloatVifCudaWorker(const Config& c) : c_(c) {}

  cuda::PlaneNeeds planes() const override { return cuda::luma_pair_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    cuda::require_luma_pair(frame, c_.w, c_.h, "float_vif");
    cuda::ScratchLayout layout;
    std::size_t at_plane[num_scales][2], at_source[2] = {0, 0}, at_vertical[5];
    for (int s = 0; s < num_scales; ++s)
      for (int p = 0; p < 2; ++p) at_plane[s][p] = layout.take(static_cast<std::size_t>(c_.plane_w[s]) * c_.plane_h[s]);
    if (c_.prescale)
      for (int p = 0; p < 2; ++p) at_source[p] = layout.take(static_cast<std::size_t>(c_.w) * c_.h);
    for (int q = 0; q < 5; ++q) at_vertical[q] = layout.take(static_cast<std::size_t>(c_.plane_w[0]) * c_.plane_h[0]);
    const std::size_t at_rows = layout.take(2 * static_cast<std::size_t>(c_.plane_h[0]));
    const std::size_t at_results = layout.take(kResults);
    scratch_ = cuda::DeviceBuffer<float>(layout.floats());
    float* base = scratch_.get();
    for (int s = 0; s < num_scales; ++s) plane_[s] = {base + at_plane[s][0], base + at_plane[s][1]};
    source_ = c_.prescale ? PlanePair{base + at_source[0], base + at_source[1]} : plane_[0];
    for (int q = 0; q < 5; ++q) vertical_.q[q] = base + at_vertical[q];
    row_sums_ = base + at_rows;
    results_ = base + at_results;
    result_ = cuda::PinnedBuffer<float>(kResults);
    taps_ = cuda::DeviceBuffer<float>(num_scales * vif_tools::max_filter_taps);
    for (int s = 0; s < num_scales; ++s)
      EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(taps_.get() + s * vif_tools::max_filter_taps, c_.filter[s].taps,
                                           sizeof(float) * static_cast<std::size_t>(c_.filter[s].width),
                                           cudaMemcpyHostToDevice, stream));
    if (c_.prescale) tables_.upload(c_.tables, stream);
    // The copies read pageable host memory: finish them here.
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    // The island counts are two 32-bit halves of 64-bit counters, after the sums.
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(results_, 0, sizeof(float) * kResults, stream));
    const cuda::DevicePlane& ref = frame.ref.plane[0];
    const cuda::DevicePlane& dis = frame.dist.plane[0];
    const std::size_t n = static_cast<std::size_t>(c_.w) * c_.h;
    if (c_.bpc == 8)
      load_kernel<std::uint8_t><<<cuda::sample_blocks(n), kThreads, 0, stream>>>(ref, dis, c_.bpc, source_);
    else
      load_kernel<std::uint16_t><<<cuda::sample_blocks(n), kThreads, 0, stream>>>(ref, dis, c_.bpc, source_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    if (c_.prescale) {
      const PrescaleArgs a{c_.method,
                           static_cast<int>(c_.w),
                           static_cast<int>(c_.h),
                           static_cast<int>(c_.plane_w[0]),
                           static_cast<int>(c_.plane_h[0]),
                           tables_.x(),
                           tables_.y()};
      prescale_kernel<<<cuda::sample_blocks(static_cast<std::size_t>(c_.plane_w[0]) * c_.plane_h[0]), kThreads, 0, stream>>>(
          a, source_, plane_[0]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    }
    cuda::with_device_arith(frame.arith, [&](auto arith) { enqueue_scales(arith, stream); });
    EXACTVMAF_CUDA_CHECK(
        cudaMemcpyAsync(result_.get(), results_, sizeof(float) * kResults, cudaMemcpyDeviceToHost, stream));
  }

  cuda::DeviceArithCounts arith_counts() const override { return counts_; }

  bool reads_host_samples() const override { return false; }

  void finish(const FrameInput&, FrameOutput& out) override {
    const float* r = result_.get();
    unsigned long long counts[rmath::device::kArithCounts];
    std::memcpy(counts, r + kSums, sizeof counts);
    counts_ += {counts[0], counts[1], counts[2]};
    ScaleSums sums;
    for (int s = 0; s < num_scales; ++s) {
      sums.num[s] = r[2 * s];
      sums.den[s] = r[2 * s + 1];
    }
    write_outputs(c_, sums, out);
  }

 private:
  template <class Arith>
  void enqueue_scales(Arith, cuda::Stream stream) {
    auto* counts = reinterpret_cast<unsigned long long*>(results_ + kSums);
    for (int s = 0; s < num_scales; ++s) {
      const DeviceFilter f{taps_.get() + s * vif_tools::max_filter_taps, c_.filter[s].width};
      const int w = static_cast<int>(c_.plane_w[s]), h = static_cast<int>(c_.plane_h[s]);
      const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
      if (s > 0) {
        const int pw = static_cast<int>(c_.plane_w[s - 1]), ph = static_cast<int>(c_.plane_h[s - 1]);
        decimate_kernel<<<cuda::sample_blocks(n), kThreads, 0, stream>>>(f, pw, ph, plane_[s - 1], plane_[s]);
        EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      }
      if (s == 0 && c_.score.skip_scale0) continue;
      vertical_kernel<<<cuda::sample_blocks(n), kThreads, 0, stream>>>(f, w, h, plane_[s], vertical_);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      const StatTerms<Arith> terms{f,
                                   vertical_,
                                   w,
                                   c_.stat.gain_limit,
                                   c_.stat.sigma_max_inv,
                                   c_.stat.den_in_sf64,
                                   __builtin_bit_cast(std::uint64_t, c_.stat.sigma_nsq),
                                   counts,
                                   Arith{}};
      cuda::enqueue_ordered_sums<2>(terms, static_cast<unsigned>(w), static_cast<unsigned>(h), row_sums_,
                                    results_ + 2 * s, stream);
    }
  }

  Config c_;
  cuda::DeviceBuffer<float> scratch_;
  PlanePair plane_[num_scales] = {}, source_ = {};
  Vertical vertical_ = {};
  float* row_sums_ = nullptr;
  float* results_ = nullptr;  // kSums floats, then the 64-bit island counts
  cuda::DeviceBuffer<float> taps_;  // scale s's filter at s * max_filter_taps
  vif_tools::DeviceScaleTables tables_;
  cuda::PinnedBuffer<float> result_;  // the graph's last copy lands here
  cuda::DeviceArithCounts counts_;
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<FloatVifCudaWorker>(c);
}

}  // namespace exactvmaf::float_vif
