// Integer motion's device kernels (motion_cuda.cu launches them). The
// per-sample arithmetic is motion_math.hpp's; this file moves samples,
// indexes and adds.
//
// strip_sad_kernel: one warp per (column chunk, strip of consecutive rows).
// Lane l loads the 4 adjacent columns col0 = 120 chunk - 4 + 4 l .. col0 + 3
// of each row (32-bit loads of 4 8-bit samples, 64-bit of 4 16-bit ones, when
// the plane's base and pitch allow; one sample at a time otherwise) and keeps
// the last five rows' differences earlier - current per column in registers:
// walking down the strip, each output row loads one new row (the first row
// of a strip primes the window with four). The vertical pass of a column is
// vertical_from_differences on its window; the horizontal pass
// (horizontal_abs) takes the two values each side from the neighbouring
// lanes by shuffles. Lanes 0 and 31 only lend their columns as neighbours:
// the 120 columns of lanes 1..30 are the chunk's outputs, so a chunk's halo
// is the vertical pass recomputed by its edge lanes, and no lane needs a
// value from outside its warp. Columns outside the plane are read mirrored
// (mirror(), as the CPU's at(col)).
//
// The sum: see plan_strips. Exact in any order, either way.
#pragma once
#include <cstddef>
#include <cstdint>

#include "features/common/mirror.hpp"
#include "features/motion/motion_math.hpp"

namespace exactvmaf::motion::device {

inline constexpr unsigned kWarpSize = 32;
inline constexpr unsigned kFullMask = 0xffffffffu;
inline constexpr int kLaneColumns = 4;                                      // columns per lane
inline constexpr int kChunkColumns = kWarpSize * kLaneColumns - 2 * kLaneColumns;  // 120: lanes 1..30
inline constexpr unsigned kBlockThreads = 128;
inline constexpr unsigned kWarpsPerBlock = kBlockThreads / kWarpSize;
// 48 registers without spills on sm_90 (10 blocks, 40 warps per SM); 56
// with no bound (9 blocks), spills at 12.
inline constexpr unsigned kMinBlocksPerSm = 10;
static_assert(kLaneColumns >= filter_radius, "an edge lane must hold a whole halo of the horizontal pass");

// The launch: a grid of one warp per (chunk, strip), small enough to be
// resident at once (plan_strips).
struct StripPlan {
  unsigned chunks = 0;      // warps across a row, kChunkColumns output columns each
  unsigned strip_rows = 0;  // consecutive rows per warp (the last strip may have fewer)
  unsigned strips = 0;
  unsigned blocks = 0;
  // Per-row uint32 sums then total_kernel, rather than one uint64 sum: see
  // row_sums_needed.
  bool row_sums = false;
};

// The CPU adds each row's |values| in uint32 (wrapping) and the rows in
// uint64. A row of w values sums to at most w * max_horizontal_abs(bpc)
// (motion_math.hpp proves the bound); when that fits uint32 each row's uint32
// is its exact sum, so the frame's SAD is the exact sum of all values modulo
// 2^64 (the CPU's uint64), which any order of uint64 additions gives: one
// atomicAdd per warp. Wider rows (w > 65537 at 16 bits) keep the CPU's
// wrapped per-row sums: uint32 atomicAdds per row (addition modulo 2^32, any
// order) and total_kernel.
inline bool row_sums_needed(unsigned w, unsigned bpc) {
  return std::uint64_t{w} * max_horizontal_abs(bpc) > 0xffffffffu;
}

// resident_warps: warps the device holds at once for the kernel (SMs x
// blocks per SM x warps per block). Strips are as tall as needed for every
// warp of the grid to be resident, and no taller: every SM gets work and the
// grid is one wave. Any h >= 1 (a strip of h rows when h is small).
inline StripPlan plan_strips(unsigned w, unsigned h, unsigned bpc, std::uint64_t resident_warps) {
  StripPlan p;
  p.chunks = (w + kChunkColumns - 1) / kChunkColumns;
  std::uint64_t max_strips = resident_warps / p.chunks;
  if (max_strips < 1) max_strips = 1;
  if (max_strips > h) max_strips = h;
  p.strip_rows = static_cast<unsigned>((h + max_strips - 1) / max_strips);
  p.strips = (h + p.strip_rows - 1) / p.strip_rows;
  const std::uint64_t warps = std::uint64_t{p.chunks} * p.strips;
  p.blocks = static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
  p.row_sums = row_sums_needed(w, bpc);
  return p;
}

// The column whose vertical value stands at column col of a chunk. The
// horizontal pass of output column 0 <= j < w reads columns j - 2 .. j + 2,
// mirrored as the CPU does (valid there: w >= min_plane_size). Columns
// further out are never read by an output; any in-plane column does.
__device__ __forceinline__ int source_column(int col, int w) {
  if (col < -filter_radius) return 0;
  if (col >= w + filter_radius) return w - 1;
  return mirror(col, w);
}

// 4 samples in one load.
template <class Sample>
struct PackedSamples;
template <>
struct PackedSamples<std::uint8_t> {
  using type = std::uint32_t;
};
template <>
struct PackedSamples<std::uint16_t> {
  using type = unsigned long long;
};

// d[q] = earlier - current at column col0 + q of one row.
template <class Sample>
__device__ __forceinline__ void load_differences(const std::uint8_t* __restrict__ earlier_row,
                                                 const std::uint8_t* __restrict__ current_row, int col0, int w,
                                                 bool packed, std::int32_t (&d)[kLaneColumns]) {
  const Sample* e = reinterpret_cast<const Sample*>(earlier_row);
  const Sample* c = reinterpret_cast<const Sample*>(current_row);
  if (packed) {  // col0 .. col0 + 3 in the plane, aligned (the caller checked)
    using Packed = typename PackedSamples<Sample>::type;
    static_assert(sizeof(Packed) == kLaneColumns * sizeof(Sample));
    const Packed pe = *reinterpret_cast<const Packed*>(e + col0);
    const Packed pc = *reinterpret_cast<const Packed*>(c + col0);
    constexpr unsigned bits = 8 * sizeof(Sample);
#pragma unroll
    for (int q = 0; q < kLaneColumns; ++q)  // little-endian: the lowest bits are column col0
      d[q] = sample_difference(static_cast<Sample>(pe >> (bits * q)), static_cast<Sample>(pc >> (bits * q)));
  } else {
#pragma unroll
    for (int q = 0; q < kLaneColumns; ++q) {
      const int s = source_column(col0 + q, w);
      d[q] = sample_difference(e[s], c[s]);
    }
  }
}

template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (unsigned off = kWarpSize / 2; off > 0; off /= 2) v += __shfl_down_sync(kFullMask, v, off);
  return v;  // valid in lane 0
}

// packed_loads: both planes' base and pitch are multiples of 4 samples.
// kRowSums: see row_sums_needed; total gets the frame's SAD (zeroed before),
// or row_sums each row's uint32 (zeroed before).
template <class Sample, class Acc, bool kRowSums>
__global__ void __launch_bounds__(kBlockThreads, kMinBlocksPerSm)
    strip_sad_kernel(const std::uint8_t* __restrict__ earlier, std::size_t earlier_pitch,
                     const std::uint8_t* __restrict__ current, std::size_t current_pitch, unsigned w, unsigned h,
                     unsigned bpc, unsigned chunks, unsigned strip_rows, bool packed_loads,
                     unsigned long long* total, std::uint32_t* row_sums) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = blockIdx.x * kWarpsPerBlock + threadIdx.x / kWarpSize;
  const unsigned strip = warp / chunks;
  const unsigned chunk = warp % chunks;
  // Whole warps leave (the grid's last block): the shuffles below see all lanes.
  if (strip >= (h + strip_rows - 1) / strip_rows) return;
  const unsigned first_row = strip * strip_rows;
  const unsigned end_row = h - first_row < strip_rows ? h : first_row + strip_rows;
  const int iw = static_cast<int>(w), ih = static_cast<int>(h);
  const int col0 = static_cast<int>(chunk) * kChunkColumns - kLaneColumns + static_cast<int>(lane) * kLaneColumns;
  const bool packed = packed_loads && col0 >= 0 && col0 + kLaneColumns <= iw;
  const bool output_lane = lane != 0 && lane != kWarpSize - 1;
  const auto load_row = [&](int row, std::int32_t (&d)[kLaneColumns]) {
    const auto r = static_cast<std::size_t>(mirror(row, ih));
    load_differences<Sample>(earlier + r * earlier_pitch, current + r * current_pitch, col0, iw, packed, d);
  };

  // window[q][k]: column col0 + q of row mirror(i - 2 + k); incoming: the
  // next row's (i + 3 when i moves on), loaded a row ahead.
  std::int32_t window[kLaneColumns][filter_width];
  std::int32_t incoming[kLaneColumns];
#pragma unroll
  for (int k = 0; k < filter_width - 1; ++k) {
    load_row(static_cast<int>(first_row) - filter_radius + k, incoming);
#pragma unroll
    for (int q = 0; q < kLaneColumns; ++q) window[q][k] = incoming[q];
  }
  load_row(static_cast<int>(first_row) + filter_radius, incoming);

  const Acc round = Acc{1} << (bpc - 1);
  unsigned long long lane_sum = 0;
  for (unsigned i = first_row; i < end_row; ++i) {
#pragma unroll
    for (int q = 0; q < kLaneColumns; ++q) window[q][filter_width - 1] = incoming[q];
    if (i + 1 < end_row) load_row(static_cast<int>(i) + 1 + filter_radius, incoming);

    std::int32_t y[kLaneColumns];
#pragma unroll
    for (int q = 0; q < kLaneColumns; ++q) y[q] = vertical_from_differences<Acc>(window[q], round, bpc);
    // Columns col0 - 2, col0 - 1 from the lane before, col0 + 4, col0 + 5 from
    // the lane after (lanes 0 and 31 get their own: they output nothing).
    const std::int32_t left2 = __shfl_up_sync(kFullMask, y[2], 1);
    const std::int32_t left1 = __shfl_up_sync(kFullMask, y[3], 1);
    const std::int32_t right1 = __shfl_down_sync(kFullMask, y[0], 1);
    const std::int32_t right2 = __shfl_down_sync(kFullMask, y[1], 1);
    const std::uint32_t a[kLaneColumns] = {horizontal_abs(left2, left1, y[0], y[1], y[2]),
                                           horizontal_abs(left1, y[0], y[1], y[2], y[3]),
                                           horizontal_abs(y[0], y[1], y[2], y[3], right1),
                                           horizontal_abs(y[1], y[2], y[3], right1, right2)};
    std::uint32_t row_part = 0;  // <= 4 * 65535: no wrap
#pragma unroll
    for (int q = 0; q < kLaneColumns; ++q)
      if (output_lane && col0 + q < iw) row_part += a[q];
    if constexpr (kRowSums) {
      // <= 120 * 65535 per warp; the row's uint32 wraps as the CPU's.
      const std::uint32_t warp_part = warp_sum(row_part);
      if (lane == 0 && warp_part) atomicAdd(row_sums + i, warp_part);
    } else {
      lane_sum += row_part;
    }

#pragma unroll
    for (int q = 0; q < kLaneColumns; ++q)
#pragma unroll
      for (int k = 0; k < filter_width - 1; ++k) window[q][k] = window[q][k + 1];
  }
  if constexpr (!kRowSums) {
    const unsigned long long warp_total = warp_sum(lane_sum);
    if (lane == 0 && warp_total) atomicAdd(total, warp_total);  // modulo 2^64, as the CPU's uint64
  }
}

}  // namespace exactvmaf::motion::device
