// Integer VIF on the device. Per frame: one statistic kernel per scale and
// one decimation kernel between scales, all on the worker's stream.
//
// Statistic kernel: a block scores a tile of kTileW x kTileH pixels. It loads
// the tile's samples plus the filter's mirrored halo into shared memory
// (mirroring as the CPU: row -k = row k, row h-1+k = row h-1-k, the same for
// columns, which is what pad_row does to the vertical sums), runs
// vif_math.hpp's vertical_sums for every tile row and halo column, then
// horizontal_sigmas and accumulate_pixel (the fp64 islands: native fp64, or
// fp32 pairs and Sf64 with --device_fp64 off) per
// pixel. The per-pixel Residuals are int64: the block adds them (warp
// shuffles, then one thread) and adds the four totals atomically to the
// scale's slot. Integer sums are exact in any order, so the result is the
// CPU's row-by-row sum whatever the schedule.
//
// Decimation kernel: a block makes kDecW x kDecH output samples of the next
// scale with decimation_sample (vertical pass at the even source rows from
// global memory into shared memory, horizontal pass at the even columns).
//
// The 16 int64 totals (4 scales x 4 accumulators) come back in one copy to a
// pinned buffer; finish() runs the CPU's tail (scale_score and
// write_frame_outputs) on the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_arith.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/vif/vif_cuda.hpp"
#include "features/vif/vif_math.hpp"
#include "numeric/device/arith_counts.cuh"
#include "numeric/fp32pair.hpp"

namespace exactvmaf::vif {

namespace {

constexpr unsigned kThreads = 256;
constexpr int kTileW = 128, kTileH = 8;  // statistic tile (output pixels)
constexpr int kDecW = 64, kDecH = 8;     // decimation tile (output samples)
constexpr unsigned kMaxGridY = 65535;
constexpr int kCountsAt = num_scales * 4;  // num_log, den_log, num_non_log, den_non_log per scale
constexpr int kTotals = kCountsAt + rmath::device::kArithCounts;  // then the fp32pair island counts

template <int Scale>
constexpr int radius_of = filter_width(Scale) / 2;

template <class Sample>
__device__ __forceinline__ const Sample* row_of(const std::uint8_t* base, std::size_t pitch, int row) {
  return reinterpret_cast<const Sample*>(base + static_cast<std::size_t>(row) * pitch);
}

// Adds v over the block; the result is valid in thread 0.
__device__ __forceinline__ long long block_sum_i64(long long v, long long* warp_sums) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  long long total = 0;
  if (threadIdx.x == 0)
    for (unsigned k = 0; k < kThreads / 32; ++k) total += warp_sums[k];
  __syncthreads();  // warp_sums is reused by the next call
  return total;
}

// The statistic of one scale: `Sample` is the plane's sample type (uint8_t or
// uint16_t at scale 0, uint16_t after), SqAcc the vertical pass's accumulator
// of squares (vif_math.hpp: uint32_t only for 8-bit samples), Arith the fp64
// policy (rmath::NativeF64, or rmath::Fp32PairArith: no fp64 instruction; the
// gain limit then arrives as its bits and never sits in an fp64 register).
template <int Scale, class Sample, class SqAcc, class Arith>
__global__ void __launch_bounds__(kThreads)
    statistic_kernel(const std::uint8_t* ref, std::size_t ref_pitch, const std::uint8_t* dis, std::size_t dis_pitch,
                     unsigned w, unsigned h, VerticalShifts shifts, std::uint64_t gain_limit_bits,
                     const std::uint16_t* __restrict__ log2_table, unsigned long long* totals,
                     unsigned long long* counts) {
  const double gain_limit = __longlong_as_double(static_cast<long long>(gain_limit_bits));
  Arith arith;
  constexpr int r = radius_of<Scale>;
  constexpr int in_w = kTileW + 2 * r, in_h = kTileH + 2 * r;
  __shared__ Sample in_ref[in_h][in_w];
  __shared__ Sample in_dis[in_h][in_w];
  __shared__ std::uint32_t v_mu1[kTileH][in_w], v_mu2[kTileH][in_w], v_xx[kTileH][in_w], v_yy[kTileH][in_w],
      v_xy[kTileH][in_w];
  __shared__ long long warp_sums[kThreads / 32];

  const int iw = static_cast<int>(w), ih = static_cast<int>(h);
  const int j0 = static_cast<int>(blockIdx.x) * kTileW;
  Residuals acc;
  for (int i0 = static_cast<int>(blockIdx.y) * kTileH; i0 < ih; i0 += static_cast<int>(gridDim.y) * kTileH) {
    // Samples of rows i0 - r .. i0 + kTileH - 1 + r and columns j0 - r ..
    // j0 + kTileW - 1 + r, mirrored; those past the mirrored edge are never read.
    for (int t = static_cast<int>(threadIdx.x); t < in_h * in_w; t += kThreads) {
      const int y = t / in_w, x = t % in_w;
      const int row = i0 - r + y, col = j0 - r + x;
      if (row < ih + r && col < iw + r) {
        const int mr = mirror(row, ih), mc = mirror(col, iw);
        in_ref[y][x] = row_of<Sample>(ref, ref_pitch, mr)[mc];
        in_dis[y][x] = row_of<Sample>(dis, dis_pitch, mr)[mc];
      }
    }
    __syncthreads();
    // Vertical sums of every tile row, at every tile and halo column.
    for (int t = static_cast<int>(threadIdx.x); t < kTileH * in_w; t += kThreads) {
      const int y = t / in_w, x = t % in_w;
      if (i0 + y < ih && j0 - r + x < iw + r) {
        const VerticalSums v = vertical_sums<Scale, SqAcc>([&](int k) { return in_ref[y + k][x]; },
                                                           [&](int k) { return in_dis[y + k][x]; }, shifts);
        v_mu1[y][x] = v.mu1;
        v_mu2[y][x] = v.mu2;
        v_xx[y][x] = v.xx;
        v_yy[y][x] = v.yy;
        v_xy[y][x] = v.xy;
      }
    }
    __syncthreads();
    // Horizontal pass and the per-pixel statistic.
    for (int t = static_cast<int>(threadIdx.x); t < kTileH * kTileW; t += kThreads) {
      const int y = t / kTileW, x = t % kTileW;
      if (i0 + y < ih && j0 + x < iw) {
        const Sigmas s = horizontal_sigmas<Scale>([&](int k) {
          return VerticalSums{v_mu1[y][x + k], v_mu2[y][x + k], v_xx[y][x + k], v_yy[y][x + k], v_xy[y][x + k]};
        });
        accumulate_pixel(s.sigma1_sq, s.sigma2_sq, s.sigma12, gain_limit, log2_table, acc, arith);
      }
    }
    __syncthreads();  // the shared tiles are refilled by the next row of tiles
  }
  rmath::device::add_arith_counts(arith, counts);
  const long long sums[4] = {block_sum_i64(acc.num_log, warp_sums), block_sum_i64(acc.den_log, warp_sums),
                             block_sum_i64(acc.num_non_log, warp_sums), block_sum_i64(acc.den_non_log, warp_sums)};
  if (threadIdx.x == 0)
    for (int k = 0; k < 4; ++k)
      if (sums[k]) atomicAdd(totals + k, static_cast<unsigned long long>(sums[k]));  // two's complement: exact
}

// One decimation step to scale `To` (1..3): w x h source planes of `Sample`
// into dense (w / 2) x (h / 2) uint16_t planes.
template <int To, class Sample>
__global__ void __launch_bounds__(kThreads)
    decimate_kernel(const std::uint8_t* ref, std::size_t ref_pitch, const std::uint8_t* dis, std::size_t dis_pitch,
                    unsigned w, unsigned h, unsigned bpc, std::uint16_t* out_ref, std::uint16_t* out_dis) {
  constexpr int r = radius_of<To>;
  constexpr int src_w = 2 * kDecW + 2 * r;
  __shared__ std::uint32_t v_ref[kDecH][src_w], v_dis[kDecH][src_w];
  const int iw = static_cast<int>(w), ih = static_cast<int>(h);
  const int wo = iw / 2, ho = ih / 2;
  const unsigned shift = decimation_vertical_shift(To, bpc);
  const std::uint32_t round = std::uint32_t{1} << (shift - 1);
  const int jo0 = static_cast<int>(blockIdx.x) * kDecW;
  for (int io0 = static_cast<int>(blockIdx.y) * kDecH; io0 < ho; io0 += static_cast<int>(gridDim.y) * kDecH) {
    // Vertical pass at source rows 2 io, columns 2 jo0 - r + x (mirrored).
    for (int t = static_cast<int>(threadIdx.x); t < kDecH * src_w; t += kThreads) {
      const int y = t / src_w, x = t % src_w;
      const int io = io0 + y, col = 2 * jo0 - r + x;
      if (io < ho && col < iw + r) {
        const int mc = mirror(col, iw);
        v_ref[y][x] = decimation_sample<To>(
            [&](int k) { return row_of<Sample>(ref, ref_pitch, mirror(2 * io - r + k, ih))[mc]; }, shift, round);
        v_dis[y][x] = decimation_sample<To>(
            [&](int k) { return row_of<Sample>(dis, dis_pitch, mirror(2 * io - r + k, ih))[mc]; }, shift, round);
      }
    }
    __syncthreads();
    // Horizontal pass at the even source columns.
    for (int t = static_cast<int>(threadIdx.x); t < kDecH * kDecW; t += kThreads) {
      const int y = t / kDecW, x = t % kDecW;
      const int io = io0 + y, jo = jo0 + x;
      if (io < ho && jo < wo) {
        const std::size_t at = static_cast<std::size_t>(io) * static_cast<std::size_t>(wo) + static_cast<std::size_t>(jo);
        out_ref[at] = decimation_sample<To>([&](int k) { return v_ref[y][2 * x + k]; }, 16, 32768);
        out_dis[at] = decimation_sample<To>([&](int k) { return v_dis[y][2 * x + k]; }, 16, 32768);
      }
    }
    __syncthreads();
  }
}

// Blocks along x (every column has one) and along y (capped: the kernels
// loop over the rest).
unsigned blocks_x(unsigned n, unsigned per_block) { return (n + per_block - 1) / per_block; }
unsigned blocks_y(unsigned n, unsigned per_block) {
  const unsigned b = (n + per_block - 1) / per_block;
  return b < kMaxGridY ? b : kMaxGridY;
}

class VifCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit VifCudaWorker(const Config& c) : c_(c) {
    w_[0] = c.w;
    h_[0] = c.h;
    for (int s = 1; s < num_scales; ++s) {
      w_[s] = w_[s - 1] / 2;
      h_[s] = h_[s - 1] / 2;
    }
  }

  cuda::PlaneNeeds planes() const override { return cuda::luma_pair_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    cuda::require_luma_pair(frame, c_.w, c_.h, "vif");
    if (!c_.log2_table) throw InternalError("internal: vif's CUDA worker has no log2 table");
    // Scales 1..3, reference and distorted, dense uint16_t planes.
    std::size_t samples = 0;
    for (int s = 1; s < num_scales; ++s) {
      offset_[s] = samples;
      samples += 2 * static_cast<std::size_t>(w_[s]) * h_[s];
    }
    planes_ = cuda::DeviceBuffer<std::uint16_t>(samples);
    table_ = cuda::DeviceBuffer<std::uint16_t>(log2_table_size);
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(table_.get(), c_.log2_table, sizeof(std::uint16_t) * log2_table_size,
                                         cudaMemcpyHostToDevice, stream));
    totals_ = cuda::DeviceBuffer<unsigned long long>(kTotals);
    result_ = cuda::PinnedBuffer<unsigned long long>(kTotals);
    // The table copy reads pageable host memory: finish it before setup returns.
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    const cuda::DevicePlane& ref = frame.ref.plane[0];
    const cuda::DevicePlane& dis = frame.dist.plane[0];
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(totals_.get(), 0, totals_.bytes(), stream));
    cuda::with_device_arith(frame.arith, [&](auto arith) { enqueue_scales<decltype(arith)>(ref, dis, stream); });
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), totals_.get(), result_.bytes(),
                                         cudaMemcpyDeviceToHost, stream));
  }

  cuda::DeviceArithCounts arith_counts() const override { return counts_; }

  bool reads_host_samples() const override { return false; }

  void finish(const FrameInput&, FrameOutput& out) override {
    counts_ += {result_.get()[kCountsAt], result_.get()[kCountsAt + 1], result_.get()[kCountsAt + 2]};
    ScaleScore scores[num_scales] = {};
    for (int s = 0; s < num_scales; ++s) {
      if (s == 0 && c_.skip_scale0) continue;
      Residuals r;
      const unsigned long long* t = result_.get() + 4 * s;
      r.num_log = static_cast<std::int64_t>(t[0]);
      r.den_log = static_cast<std::int64_t>(t[1]);
      r.num_non_log = static_cast<std::int64_t>(t[2]);
      r.den_non_log = static_cast<std::int64_t>(t[3]);
      scores[s] = scale_score(r);
    }
    write_frame_outputs(scores, c_.debug, c_.skip_scale0, out);
  }

 private:
  std::uint16_t* plane_ref(int s) const { return planes_.get() + offset_[s]; }
  std::uint16_t* plane_dis(int s) const { return planes_.get() + offset_[s] + static_cast<std::size_t>(w_[s]) * h_[s]; }

  template <class Arith>
  void enqueue_scales(const cuda::DevicePlane& ref, const cuda::DevicePlane& dis, cuda::Stream stream) {
    if (c_.bpc == 8)
      scale0<std::uint8_t, std::uint32_t, Arith>(ref, dis, stream);
    else
      scale0<std::uint16_t, std::uint64_t, Arith>(ref, dis, stream);
    scale_n<1, Arith>(stream);
    decimate<2>(plane_ref(1), plane_dis(1), 1, stream);
    scale_n<2, Arith>(stream);
    decimate<3>(plane_ref(2), plane_dis(2), 2, stream);
    scale_n<3, Arith>(stream);
  }

  std::uint64_t gain_bits() const { return __builtin_bit_cast(std::uint64_t, c_.gain_limit); }
  unsigned long long* counts() const { return totals_.get() + kCountsAt; }

  template <class Sample, class SqAcc, class Arith>
  void scale0(const cuda::DevicePlane& ref, const cuda::DevicePlane& dis, cuda::Stream stream) {
    if (!c_.skip_scale0) {
      const dim3 grid(blocks_x(w_[0], kTileW), blocks_y(h_[0], kTileH));
      statistic_kernel<0, Sample, SqAcc, Arith><<<grid, kThreads, 0, stream>>>(
          ref.data, ref.pitch, dis.data, dis.pitch, w_[0], h_[0], statistic_shifts(0, c_.bpc), gain_bits(),
          table_.get(), totals_.get(), counts());
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    }
    const dim3 grid(blocks_x(w_[1], kDecW), blocks_y(h_[1], kDecH));
    decimate_kernel<1, Sample><<<grid, kThreads, 0, stream>>>(ref.data, ref.pitch, dis.data, dis.pitch, w_[0], h_[0],
                                                             c_.bpc, plane_ref(1), plane_dis(1));
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
  }

  template <int Scale, class Arith>
  void scale_n(cuda::Stream stream) {
    const std::size_t pitch = sizeof(std::uint16_t) * w_[Scale];
    const dim3 grid(blocks_x(w_[Scale], kTileW), blocks_y(h_[Scale], kTileH));
    statistic_kernel<Scale, std::uint16_t, std::uint64_t, Arith><<<grid, kThreads, 0, stream>>>(
        reinterpret_cast<const std::uint8_t*>(plane_ref(Scale)), pitch,
        reinterpret_cast<const std::uint8_t*>(plane_dis(Scale)), pitch, w_[Scale], h_[Scale],
        statistic_shifts(Scale, c_.bpc), gain_bits(), table_.get(), totals_.get() + 4 * Scale, counts());
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
  }

  template <int To>
  void decimate(const std::uint16_t* src_ref, const std::uint16_t* src_dis, int from, cuda::Stream stream) {
    const std::size_t pitch = sizeof(std::uint16_t) * w_[from];
    const dim3 grid(blocks_x(w_[To], kDecW), blocks_y(h_[To], kDecH));
    decimate_kernel<To, std::uint16_t><<<grid, kThreads, 0, stream>>>(
        reinterpret_cast<const std::uint8_t*>(src_ref), pitch, reinterpret_cast<const std::uint8_t*>(src_dis), pitch,
        w_[from], h_[from], c_.bpc, plane_ref(To), plane_dis(To));
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
  }

  Config c_;
  unsigned w_[num_scales] = {}, h_[num_scales] = {};
  std::size_t offset_[num_scales] = {};
  cuda::DeviceBuffer<std::uint16_t> planes_;
  cuda::DeviceBuffer<std::uint16_t> table_;
  cuda::DeviceBuffer<unsigned long long> totals_;
  cuda::PinnedBuffer<unsigned long long> result_;  // the graph's last copy lands here
  cuda::DeviceArithCounts counts_;
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<VifCudaWorker>(c);
}

}  // namespace exactvmaf::vif
