// ciede on the device (docs/features/ciede.md, "CUDA").
//
// Per frame, one kernel: a thread takes pixels of a column strip, skips
// identical pairs (R's value there is +0), takes Lab from the device table
// (8-bit) or computes it, runs ciede2000 with FastMath and adds the float to
// its ExactSumF32; a pixel whose fast path was undecided is not added but
// queued (numeric/device/undecided_queue.cuh). The block reduction
// (numeric/device/exact_sum_reduce.cuh) adds the integer limbs atomically:
// the same bits in any order. One copy brings back the limbs, the queue's
// count and its indices (a few KiB; no per-pixel read-back). finish() replays
// the queued pixels with HostMath, adds them to the exact sum, adds the
// pixels whose chroma the device planes lack (odd sizes: libvmaf's pictures
// round chroma down, R reads the stored last column/row), and runs the CPU's
// tail. A queue that overflowed makes the host compute the whole frame.
//
// The 8-bit Lab table (2^24 float4, 256 MiB) is built once per device and
// process by a kernel with FastMath; the entries it could not decide are
// queued and rewritten by the host with HostMath. Every worker and run on
// that device shares it; it stays until the process ends.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_arith.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/ciede/ciede_cuda.hpp"
#include "features/ciede/ciede_host.hpp"
#include "features/ciede/ciede_math.hpp"
#include "numeric/device/arith_counts.cuh"
#include "numeric/device/exact_sum_reduce.cuh"
#include "numeric/device/undecided_queue.cuh"

namespace exactvmaf::ciede {

namespace {

using Acc = rmath::ExactSumF32;
using GlobalSum = rmath::device::GlobalExactSum<Acc>;

constexpr unsigned kThreads = 256;
constexpr unsigned kQueueCapacity = 1024;  // undecided pixels per frame (expected: none)
constexpr unsigned kTargetBlocks = 1056;   // about 8 per SM on an H100/H200

// What one frame brings back, in one copy.
struct DeviceResult {
  GlobalSum sum;
  unsigned long long arith[rmath::device::kArithCounts];  // fp32pair variant: pixels on Sf64 (exact islands)
  unsigned int count;  // undecided pixels (more than kQueueCapacity: some were dropped)
  unsigned int pad;
  unsigned long long index[kQueueCapacity];  // y * w + x
};
constexpr std::size_t kResultHeader = offsetof(DeviceResult, index);  // zeroed per frame

template <class Sample>
__device__ __forceinline__ unsigned sample_at(const cuda::DevicePlane& p, unsigned x, unsigned y) {
  return reinterpret_cast<const Sample*>(p.data + static_cast<std::size_t>(y) * p.pitch)[x];
}

__device__ __forceinline__ Lab table_lab(const float4* table, unsigned y, unsigned u, unsigned v) {
  const float4 e = __ldg(table + colour_index8(y, u, v));
  return {e.x, e.y, e.z};
}

// ---- the frame kernel ---------------------------------------------------------

struct FrameArgs {
  cuda::DevicePlane ref[3], dist[3];
  unsigned w, wd, hd;  // luma width; the region whose chroma is on the device
  unsigned sx, sy;     // chroma shifts
  LabScale scale;
  const float4* table;
  unsigned long long replay_every;  // test switch (Config::cuda_replay_every)
  unsigned bpc;
};

// The device variant's per-pixel policy: FastMath (fp64), or (no fp64
// instruction: docs/fp64-free.md) the Labs and ΔE00 on fp32 pairs first,
// Sf64 where they cannot decide (lab_fp64_free, delta_e_fp64_free).
template <class Arith>
using MathOf = std::conditional_t<std::is_same_v<Arith, rmath::Fp32PairArith>, Sf64Math, FastMath>;

// The Lab scales a kernel uses, each computed only where it is used: the
// fp64 variant's from the host (double); the fp64-free variant's as pairs
// (lab_scale_pairs: R's doubles computed in Sf64 and split; no double
// parameter is read), not needed with the 8-bit table.
struct Scales {
  LabScale fp64;
  LabScaleOf<rmath::PairF64> pairs;
};
template <class Math, bool kPairs>
__device__ __forceinline__ Scales scales_for(const LabScale& host, unsigned bpc) {
  Scales s{};
  if constexpr (std::is_same_v<Math, Sf64Math>) {
    if constexpr (kPairs) s.pairs = lab_scale_pairs(bpc);
  } else {
    s.fp64 = host;
  }
  return s;
}

template <class Sample, bool kTable, class Arith>
__global__ void __launch_bounds__(kThreads) frame_kernel(FrameArgs a, DeviceResult* result) {
  using Math = MathOf<Arith>;
  Acc acc;
  acc.clear();
  Arith arith;  // counts the Sf64 pixels of the fp32pair variant
  const Scales scales = scales_for<Math, !kTable>(a.scale, a.bpc);
  const rmath::device::UndecidedQueue queue{&result->count, result->index, kQueueCapacity};
  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < a.wd) {
    const unsigned cx = x >> a.sx;
    for (unsigned y = blockIdx.y; y < a.hd; y += gridDim.y) {
      const unsigned cy = y >> a.sy;
      const unsigned r0 = sample_at<Sample>(a.ref[0], x, y), r1 = sample_at<Sample>(a.ref[1], cx, cy),
                     r2 = sample_at<Sample>(a.ref[2], cx, cy);
      const unsigned d0 = sample_at<Sample>(a.dist[0], x, y), d1 = sample_at<Sample>(a.dist[1], cx, cy),
                     d2 = sample_at<Sample>(a.dist[2], cx, cy);
      if (r0 == d0 && r1 == d1 && r2 == d2) continue;  // exactly +0
      float de = 0.0f;
      bool undecided = false;
      if constexpr (std::is_same_v<Math, Sf64Math>) {
        Lab l1, l2;
        if (kTable) {
          l1 = table_lab(a.table, r0, r1, r2);
          l2 = table_lab(a.table, d0, d1, d2);
        } else {
          undecided = !lab_fp64_free(r0, r1, r2, scales.pairs, a.bpc, arith, &l1) ||
                      !lab_fp64_free(d0, d1, d2, scales.pairs, a.bpc, arith, &l2);
        }
        undecided = undecided || !delta_e_fp64_free(l1, l2, arith, &de);
      } else {
        Math m;
        const Lab l1 = kTable ? table_lab(a.table, r0, r1, r2) : lab_from_yuv(r0, r1, r2, scales.fp64, m);
        const Lab l2 = kTable ? table_lab(a.table, d0, d1, d2) : lab_from_yuv(d0, d1, d2, scales.fp64, m);
        de = ciede2000(l1, l2, m);
        undecided = m.undecided;
      }
      const unsigned long long i = static_cast<unsigned long long>(y) * a.w + x;
      if (undecided || (a.replay_every != 0 && i % a.replay_every == 0)) {
        queue.push(i);
        continue;
      }
      acc.add(de);
    }
  }
  rmath::device::add_arith_counts(arith, result->arith);
  rmath::device::block_reduce_to_global(acc, &result->sum);
}

// ---- the 8-bit Lab table --------------------------------------------------------

template <class Math>
__global__ void __launch_bounds__(kThreads)
    build_table_kernel(float4* table, LabScale host_scale, rmath::device::UndecidedQueue queue) {
  const Scales scales = scales_for<Math, true>(host_scale, 8);
  const unsigned stride = gridDim.x * blockDim.x;
  for (unsigned idx = blockIdx.x * blockDim.x + threadIdx.x; idx < kColours8; idx += stride) {
    unsigned y = 0, u = 0, v = 0;
    colour_of_index8(idx, &y, &u, &v);
    Lab lab;
    bool undecided = false;
    if constexpr (std::is_same_v<Math, Sf64Math>) {  // the fp64-free table: pairs first
      rmath::Fp32PairArith arith;
      undecided = !lab_fp64_free(y, u, v, scales.pairs, 8, arith, &lab);
    } else {
      Math m;
      lab = lab_from_yuv(y, u, v, scales.fp64, m);
      undecided = m.undecided;
    }
    table[idx] = make_float4(lab.l, lab.a, lab.b, 0.0f);
    if (undecided) queue.push(idx);
  }
}

struct DeviceTable8 {
  cuda::DeviceBuffer<float4> data;
  std::uint64_t fixed = 0;  // entries the host rewrote
};

// Builds the table on the current device with `stream` (synchronises).
template <class Math>
std::unique_ptr<DeviceTable8> build_table8(cudaStream_t stream) {
  auto t = std::make_unique<DeviceTable8>();
  t->data = cuda::DeviceBuffer<float4>(kColours8);
  const LabScale scale = lab_scale(8);
  unsigned capacity = 4096;
  std::vector<unsigned long long> undecided;
  for (;;) {
    cuda::DeviceBuffer<unsigned int> count(1);
    cuda::DeviceBuffer<unsigned long long> index(capacity);
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(count.get(), 0, sizeof(unsigned int), stream));
    build_table_kernel<Math><<<kTargetBlocks, kThreads, 0, stream>>>(t->data.get(), scale, {count.get(), index.get(), capacity});
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    unsigned int n = 0;
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(&n, count.get(), sizeof n, cudaMemcpyDeviceToHost, stream));
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (n <= capacity) {
      undecided.resize(n);
      if (n)
        EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(undecided.data(), index.get(), sizeof(unsigned long long) * n,
                                             cudaMemcpyDeviceToHost, stream));
      EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
      break;
    }
    capacity = n;  // rebuild with room for all of them
  }
  // The host's R values for the entries the device left undecided.
  std::vector<float4> fixes(undecided.size());
  for (std::size_t k = 0; k < undecided.size(); ++k) {
    const unsigned idx = static_cast<unsigned>(undecided[k]);
    unsigned y = 0, u = 0, v = 0;
    colour_of_index8(idx, &y, &u, &v);
    const Lab lab = lab_host(y, u, v, scale);
    fixes[k] = make_float4(lab.l, lab.a, lab.b, 0.0f);
  }
  for (std::size_t k = 0; k < undecided.size(); ++k)
    EXACTVMAF_CUDA_CHECK(
        cudaMemcpyAsync(t->data.get() + undecided[k], &fixes[k], sizeof(float4), cudaMemcpyHostToDevice, stream));
  EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  t->fixed = undecided.size();
  return t;
}

// The current device's table, built on first use and kept until the process
// ends (read-only; every run and pipeline thread on that device shares it,
// so a run does not pay for the build again). The map is never destroyed:
// freeing device memory during static destruction would race the CUDA
// runtime's own teardown; the driver frees it with the context.
// One table per device and variant: the entries are R's either way, but the
// fp32pair variant's is built without fp64.
std::shared_ptr<DeviceTable8> acquire_table8(cudaStream_t stream, bool fp64_free) {
  int device = 0;
  EXACTVMAF_CUDA_CHECK(cudaGetDevice(&device));
  static std::mutex mutex;
  static auto* tables = new std::map<int, std::shared_ptr<DeviceTable8>>;
  const std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<DeviceTable8>& t = (*tables)[2 * device + (fp64_free ? 1 : 0)];
  if (!t) t = fp64_free ? build_table8<Sf64Math>(stream) : build_table8<FastMath>(stream);
  return t;
}

// ---- the worker -------------------------------------------------------------------

unsigned blocks_for(unsigned n, unsigned per_block) { return (n + per_block - 1) / per_block; }

class CiedeCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit CiedeCudaWorker(const Config& c) : c_(c) {}

  cuda::PlaneNeeds planes() const override { return cuda::all_planes_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    for (unsigned p = 0; p < 3; ++p)
      if ((!frame.ref.plane[p].data || !frame.dist.plane[p].data) && frame.ref.plane[p].width != 0)
        throw InternalError("internal: ciede's CUDA worker did not get all three planes on the device");
    if (frame.ref.plane[0].width != c_.w || frame.ref.plane[0].height != c_.h)
      throw InternalError("internal: ciede's CUDA worker got a luma plane of another size");
    // Pixels whose chroma sample is on the device (libvmaf's chroma size);
    // finish() computes the rest (the last column/row of odd sizes).
    wd_ = std::min(c_.w, frame.ref.plane[1].width << c_.chroma_x_shift);
    hd_ = std::min(c_.h, frame.ref.plane[1].height << c_.chroma_y_shift);
    result_ = cuda::DeviceBuffer<DeviceResult>(1);
    host_ = cuda::PinnedBuffer<DeviceResult>(1);
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(result_.get(), 0, sizeof(DeviceResult), stream));
    if (c_.lab_table && c_.bpc == 8) table_ = acquire_table8(stream, frame.arith == cuda::DeviceArith::fp32pair);
    if (c_.pair_cache) cache_ = std::make_unique<PairCache>();
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(result_.get(), 0, kResultHeader, stream));
    if (wd_ != 0 && hd_ != 0) {
      FrameArgs a{};
      for (unsigned p = 0; p < 3; ++p) {
        a.ref[p] = frame.ref.plane[p];
        a.dist[p] = frame.dist.plane[p];
      }
      a.w = c_.w;
      a.wd = wd_;
      a.hd = hd_;
      a.sx = c_.chroma_x_shift;
      a.sy = c_.chroma_y_shift;
      a.scale = c_.scale;
      a.table = table_ ? table_->data.get() : nullptr;
      a.replay_every = c_.cuda_replay_every;
      a.bpc = c_.bpc;
      const unsigned bx = blocks_for(wd_, kThreads);
      const unsigned by = std::max(1u, std::min(hd_, std::min(65535u, kTargetBlocks / bx)));
      const dim3 grid(bx, by);
      cuda::with_device_arith(frame.arith, [&](auto arith) {
        using Arith = decltype(arith);
        if (c_.bpc == 8) {
          if (table_)
            frame_kernel<std::uint8_t, true, Arith><<<grid, kThreads, 0, stream>>>(a, result_.get());
          else
            frame_kernel<std::uint8_t, false, Arith><<<grid, kThreads, 0, stream>>>(a, result_.get());
        } else {
          frame_kernel<std::uint16_t, false, Arith><<<grid, kThreads, 0, stream>>>(a, result_.get());
        }
      });
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    }
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(host_.get(), result_.get(), sizeof(DeviceResult), cudaMemcpyDeviceToHost, stream));
  }

  std::uint64_t host_frames() const override { return host_frames_; }
  cuda::DeviceArithCounts arith_counts() const override { return counts_; }

  bool reads_host_samples() const override { return host_->count > 0 || wd_ < c_.w || hd_ < c_.h; }

  void finish(const FrameInput& in, FrameOutput& out) override {
    Acc acc;
    acc.clear();
    const unsigned count = host_->count;
    cuda::DeviceArithCounts frame_counts{host_->arith[0], host_->arith[1], host_->arith[2]};
    if (frame_counts.pair_islands != 0 || frame_counts.exact_islands != 0)
      frame_counts.host_samples = count;  // the fp32pair variant's queue
    counts_ += frame_counts;
    if (count > kQueueCapacity) {
      // Some indices were dropped: the whole frame on the host.
      add_region(acc, in.ref, in.dist, 0, c_.w, 0, c_.h, c_, cache_.get());
      ++host_frames_;
    } else {
      for (int i = 0; i < Acc::kLimbs; ++i) acc.limb[i] = static_cast<std::int64_t>(host_->sum.limb[i]);
      acc.flags = host_->sum.flags;
      acc.normalise();  // limbs back below 2^32 before more terms come in
      for (unsigned k = 0; k < count; ++k) {
        const unsigned long long i = host_->index[k];
        acc.add(pixel_value(in.ref, in.dist, static_cast<unsigned>(i % c_.w), static_cast<unsigned>(i / c_.w), c_));
      }
      if (wd_ < c_.w) add_region(acc, in.ref, in.dist, wd_, c_.w, 0, c_.h, c_, nullptr);
      if (hd_ < c_.h) add_region(acc, in.ref, in.dist, 0, wd_, hd_, c_.h, c_, nullptr);
    }
    out.set(0, frame_score(acc.round_to_double(), c_.w, c_.h));
  }

 private:
  Config c_;
  unsigned wd_ = 0, hd_ = 0;
  cuda::DeviceBuffer<DeviceResult> result_;
  cuda::PinnedBuffer<DeviceResult> host_;  // the graph's last copy lands here
  std::shared_ptr<DeviceTable8> table_;
  std::unique_ptr<PairCache> cache_;  // for a frame the host computes whole
  std::uint64_t host_frames_ = 0;     // such frames
  cuda::DeviceArithCounts counts_;
};

// ---- test hooks -------------------------------------------------------------------

template <bool kTable, class Math>
__global__ void __launch_bounds__(kThreads)
    pair_kernel(const std::uint16_t* pairs, std::size_t n, unsigned bpc, LabScale host_scale, const float4* table,
                float* values, std::uint8_t* undecided, unsigned long long* counts) {
  const Scales scales = scales_for<Math, !kTable>(host_scale, bpc);
  rmath::Fp32PairArith arith;  // the fp64-free variant's Labs and pixels on pairs, and their Sf64 replays
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint16_t* p = pairs + 6 * i;
    Math m;
    float de = 0.0f;
    bool und = false;
    if (!(p[0] == p[3] && p[1] == p[4] && p[2] == p[5])) {  // else exactly +0
      if constexpr (std::is_same_v<Math, Sf64Math>) {
        Lab l1, l2;
        if (kTable) {
          l1 = table_lab(table, p[0], p[1], p[2]);
          l2 = table_lab(table, p[3], p[4], p[5]);
        } else {
          und = !lab_fp64_free(p[0], p[1], p[2], scales.pairs, bpc, arith, &l1) ||
                !lab_fp64_free(p[3], p[4], p[5], scales.pairs, bpc, arith, &l2);
        }
        und = und || !delta_e_fp64_free(l1, l2, arith, &de);
      } else {
        const Lab l1 = kTable ? table_lab(table, p[0], p[1], p[2]) : lab_from_yuv(p[0], p[1], p[2], scales.fp64, m);
        const Lab l2 = kTable ? table_lab(table, p[3], p[4], p[5]) : lab_from_yuv(p[3], p[4], p[5], scales.fp64, m);
        de = ciede2000(l1, l2, m);
        und = m.undecided;
      }
    }
    values[i] = de;
    undecided[i] = und ? 1 : 0;
  }
  rmath::device::add_arith_counts(arith, counts);
}

template <class Math>
__global__ void __launch_bounds__(kThreads)
    lab_kernel(unsigned bpc, unsigned long long first, std::size_t n, LabScale host_scale, float* lab,
               std::uint8_t* undecided) {
  const Scales scales = scales_for<Math, true>(host_scale, bpc);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const unsigned long long mask = (1ull << bpc) - 1;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned long long c = first + i;
    const unsigned y = static_cast<unsigned>(c >> (2 * bpc)), u = static_cast<unsigned>((c >> bpc) & mask),
                   v = static_cast<unsigned>(c & mask);
    Lab r;
    bool und = false;
    if constexpr (std::is_same_v<Math, Sf64Math>) {
      rmath::Fp32PairArith arith;
      und = !lab_fp64_free(y, u, v, scales.pairs, bpc, arith, &r);
    } else {
      Math m;
      r = lab_from_yuv(y, u, v, scales.fp64, m);
      und = m.undecided;
    }
    lab[3 * i] = r.l;
    lab[3 * i + 1] = r.a;
    lab[3 * i + 2] = r.b;
    undecided[i] = und ? 1 : 0;
  }
}

std::uint64_t count_set(const std::uint8_t* flags, std::size_t n) {
  std::uint64_t k = 0;
  for (std::size_t i = 0; i < n; ++i) k += flags[i] != 0;
  return k;
}

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) { return std::make_unique<CiedeCudaWorker>(c); }

DeviceCheckCounts device_pair_values(unsigned bpc, bool use_table8, const std::uint16_t* pairs, std::size_t n,
                                     float* values, std::uint8_t* undecided, bool fp64_free) {
  const bool table = use_table8 && bpc == 8;
  std::shared_ptr<DeviceTable8> t;
  if (table) t = acquire_table8(nullptr, fp64_free);
  cuda::DeviceBuffer<std::uint16_t> d_pairs(6 * n);
  cuda::DeviceBuffer<float> d_values(n);
  cuda::DeviceBuffer<std::uint8_t> d_undecided(n);
  cuda::DeviceBuffer<unsigned long long> d_counts(rmath::device::kArithCounts);
  EXACTVMAF_CUDA_CHECK(cudaMemset(d_counts.get(), 0, sizeof(unsigned long long) * rmath::device::kArithCounts));
  EXACTVMAF_CUDA_CHECK(cudaMemcpy(d_pairs.get(), pairs, sizeof(std::uint16_t) * 6 * n, cudaMemcpyHostToDevice));
  const unsigned blocks = std::max(1u, std::min(4u * kTargetBlocks, blocks_for(static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30)), kThreads)));
  auto launch = [&](auto math) {
    using Math = decltype(math);
    if (table)
      pair_kernel<true, Math><<<blocks, kThreads>>>(d_pairs.get(), n, bpc, lab_scale(bpc), t->data.get(),
                                                    d_values.get(), d_undecided.get(), d_counts.get());
    else
      pair_kernel<false, Math><<<blocks, kThreads>>>(d_pairs.get(), n, bpc, lab_scale(bpc), nullptr, d_values.get(),
                                                     d_undecided.get(), d_counts.get());
  };
  if (fp64_free)
    launch(Sf64Math{});
  else
    launch(FastMath{});
  EXACTVMAF_CUDA_CHECK(cudaGetLastError());
  EXACTVMAF_CUDA_CHECK(cudaMemcpy(values, d_values.get(), sizeof(float) * n, cudaMemcpyDeviceToHost));
  EXACTVMAF_CUDA_CHECK(cudaMemcpy(undecided, d_undecided.get(), n, cudaMemcpyDeviceToHost));
  unsigned long long counts[rmath::device::kArithCounts] = {};
  EXACTVMAF_CUDA_CHECK(cudaMemcpy(counts, d_counts.get(), sizeof counts, cudaMemcpyDeviceToHost));
  return {count_set(undecided, n), counts[0], counts[1]};
}

DeviceCheckCounts device_lab_values(unsigned bpc, std::uint64_t first, std::size_t n, float* lab,
                                    std::uint8_t* undecided, bool fp64_free) {
  cuda::DeviceBuffer<float> d_lab(3 * n);
  cuda::DeviceBuffer<std::uint8_t> d_undecided(n);
  const unsigned blocks = std::max(1u, std::min(4u * kTargetBlocks, blocks_for(static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30)), kThreads)));
  if (fp64_free)
    lab_kernel<Sf64Math><<<blocks, kThreads>>>(bpc, first, n, lab_scale(bpc), d_lab.get(), d_undecided.get());
  else
    lab_kernel<FastMath><<<blocks, kThreads>>>(bpc, first, n, lab_scale(bpc), d_lab.get(), d_undecided.get());
  EXACTVMAF_CUDA_CHECK(cudaGetLastError());
  EXACTVMAF_CUDA_CHECK(cudaMemcpy(lab, d_lab.get(), sizeof(float) * 3 * n, cudaMemcpyDeviceToHost));
  EXACTVMAF_CUDA_CHECK(cudaMemcpy(undecided, d_undecided.get(), n, cudaMemcpyDeviceToHost));
  return {count_set(undecided, n)};
}

std::uint64_t device_lab_table8(float* lab, bool fp64_free) {
  const std::shared_ptr<DeviceTable8> t = acquire_table8(nullptr, fp64_free);
  std::vector<float4> host(kColours8);
  EXACTVMAF_CUDA_CHECK(cudaMemcpy(host.data(), t->data.get(), sizeof(float4) * kColours8, cudaMemcpyDeviceToHost));
  for (std::size_t c = 0; c < kColours8; ++c) {
    lab[3 * c] = host[c].x;
    lab[3 * c + 1] = host[c].y;
    lab[3 * c + 2] = host[c].z;
  }
  return t->fixed;
}

}  // namespace exactvmaf::ciede
