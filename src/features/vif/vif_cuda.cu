// Integer VIF on the device. Per frame: one statistic kernel per scale, all on
// the worker's stream; the statistic kernels of scales 0-2 also decimate to
// the next scale (a standalone decimation kernel makes scale 1 when scale 0's
// statistic is skipped).
//
// Statistic kernel: a block scores a tile of kTileW x kTileH pixels in three
// phases (per-thread functions, so that a host replay can run them thread by
// thread between the barriers):
// 1. stat_load: the tile's samples plus the filter's mirrored halo into
//    shared memory as 32-bit words (mirroring as the CPU: row -k = row k,
//    row h-1+k = row h-1-k, the same for columns, which is what pad_row does
//    to the vertical sums); whole aligned words straight from the plane when
//    the block's columns lie inside it and the planes allow it.
// 2. stat_vertical: vif_math.hpp's vertical_sums_n for every tile row, 2
//    (16-bit) or 4 (8-bit) halo/tile columns per thread from one word per
//    filter row, into five rows of sums (mu1, mu2, xx, yy, xy).
// 3. stat_horizontal: each thread filters 4 adjacent pixels, one quantity at
//    a time from a window read into registers with 128-bit loads
//    (horizontal_filter_n, sigma_of), then accumulate_pixel per pixel (the
//    fp64 islands: native fp64, or fp32 pairs and Sf64 with --device_fp64 off).
// The per-pixel Residuals are int64: the block adds them (warp shuffles, then
// one thread) and adds the four totals atomically to the scale's slot. Integer
// sums are exact in any order, so the result is the CPU's row-by-row sum
// whatever the schedule.
//
// Decimation: each statistic tile of scales 0-2 writes the next scale's
// samples at its even rows and columns with decimation_sample (vertical pass
// from the tile's samples into shared memory in phase 2, horizontal pass in
// phase 3): the filter of the next scale fits inside the tile's halo.
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
constexpr int kQuad = 4;                 // output pixels per thread in the horizontal pass
constexpr int kDecW = 64, kDecH = 8;     // decimation tile (output samples)
constexpr unsigned kMaxGridY = 65535;
constexpr int kCountsAt = num_scales * 4;  // num_log, den_log, num_non_log, den_non_log per scale
constexpr int kTotals = kCountsAt + rmath::device::kArithCounts;  // then the fp32pair island counts
static_assert(kTileH * kTileW / kQuad == static_cast<int>(kThreads), "one quad of pixels per thread and tile");

template <int Scale>
constexpr int radius_of = filter_width(Scale) / 2;

// Every shared and global access of the kernels' phases goes through
// load_at / store_at. A host replay of the kernels (outside the repository)
// defines EXACTVMAF_VIF_REPLAY_CHECK to check each one's bounds and alignment
// (and count the stores); on the device it is nothing.
#ifndef EXACTVMAF_VIF_REPLAY_CHECK
#define EXACTVMAF_VIF_REPLAY_CHECK(ptr, bytes, is_store) ((void)0)
#endif

template <class T>
EXACTVMAF_HD_INLINE T load_at(const T* p) {
  EXACTVMAF_VIF_REPLAY_CHECK(p, sizeof(T), false);
  return *p;
}

template <class T>
EXACTVMAF_HD_INLINE void store_at(T* p, T v) {
  EXACTVMAF_VIF_REPLAY_CHECK(p, sizeof(T), true);
  *p = v;
}

template <class Sample>
EXACTVMAF_HD_INLINE const Sample* row_of(const std::uint8_t* base, std::size_t pitch, int row) {
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

// The statistic's input planes (scale 0: the frame's, with their pitches;
// later scales: the dense uint16_t planes).
struct PlanePair {
  const std::uint8_t* ref;
  std::size_t ref_pitch;
  const std::uint8_t* dis;
  std::size_t dis_pitch;
};

// The decimation to the next scale fused into a statistic kernel: its dense
// output planes (w x h, pitch w) and its vertical rounding shift
// (decimation_vertical_shift).
struct NextScale {
  std::uint16_t* ref;
  std::uint16_t* dis;
  unsigned w, h;
  unsigned shift;
};

// Shared memory of one statistic tile. Samples are kept as 32-bit words
// (kPerWord samples each, the lower column in the lower bits: the byte order
// of a little-endian load of the plane), so that the vertical pass reads
// kPerWord columns per load. The vertical sums of each quantity (mu1, mu2,
// xx, yy, xy) are rows of kVW entries, 16-byte aligned, so that the
// horizontal pass reads its window 4 entries per load. Scales 0-2 also
// decimate to the next scale: `dec` holds the decimation's vertical pass at
// the tile's even rows (kTileH / 2 of them), every tile and halo column.
template <int Scale, class Sample>
struct StatTile {
  static constexpr bool kFuse = Scale + 1 < num_scales;
  static constexpr int kDecRows = kFuse ? kTileH / 2 : 1;
  static constexpr int r = radius_of<Scale>;
  static constexpr int in_w = kTileW + 2 * r, in_h = kTileH + 2 * r;  // samples with the halo
  static constexpr int kPerWord = 4 / static_cast<int>(sizeof(Sample));
  static constexpr int kWordsW = in_w / kPerWord;
  static constexpr int kWindow = (kQuad + 2 * r + 3) / 4 * 4;  // a quad's window, in whole 4-entry loads
  static constexpr int kVW = kTileW - kQuad + kWindow;         // >= in_w: the last quad's window fits
  static_assert(in_w % kPerWord == 0 && kVW % 4 == 0 && kVW >= in_w);
  alignas(16) std::uint32_t ref[in_h][kWordsW];
  alignas(16) std::uint32_t dis[in_h][kWordsW];
  alignas(16) std::uint32_t v[5][kTileH][kVW];  // mu1, mu2, xx, yy, xy
  alignas(16) std::uint16_t dec[2][kDecRows][kFuse ? in_w : 1];  // reference, distorted
};

template <class Sample>
EXACTVMAF_HD_INLINE std::uint32_t sample_in_word(std::uint32_t word, int c) {
  constexpr unsigned bits = 8 * sizeof(Sample);
  return (word >> (bits * static_cast<unsigned>(c))) & ((std::uint32_t{1} << bits) - 1);
}

// True when the tile rows can be copied as aligned 32-bit words: both planes
// and pitches 4-byte aligned, and the tile's first column (j0 - r, j0 a
// multiple of kTileW) at a multiple of 4 bytes.
template <int Scale, class Sample>
EXACTVMAF_HD_INLINE bool words_aligned(const PlanePair& p) {
  if constexpr ((radius_of<Scale> * sizeof(Sample)) % 4 != 0) {
    (void)p;
    return false;
  } else {
    return reinterpret_cast<std::uintptr_t>(p.ref) % 4 == 0 && reinterpret_cast<std::uintptr_t>(p.dis) % 4 == 0 &&
           p.ref_pitch % 4 == 0 && p.dis_pitch % 4 == 0;
  }
}

// Phase 1 (thread `tid`): samples of rows i0 - r .. i0 + kTileH - 1 + r and
// columns j0 - r .. j0 + kTileW - 1 + r, mirrored as the CPU mirrors rows and
// pads its rows of vertical sums. Rows past the mirrored edge (row >= h + r)
// are never read and stay as they were; samples of columns past it are 0,
// also never read for a pixel of the plane. A block whose columns lie inside
// the plane copies whole words when aligned (rows still mirrored).
template <int Scale, class Sample>
EXACTVMAF_HD_INLINE void stat_load(StatTile<Scale, Sample>& t, unsigned tid, const PlanePair& p, int w, int h,
                                   int i0, int j0, bool aligned) {
  using Tile = StatTile<Scale, Sample>;
  constexpr int r = Tile::r;
  const bool word_copy = aligned && j0 - r >= 0 && j0 - r + Tile::in_w <= w;
  for (int item = static_cast<int>(tid); item < Tile::in_h * Tile::kWordsW; item += kThreads) {
    const int y = item / Tile::kWordsW, xw = item % Tile::kWordsW;
    const int row = i0 - r + y;
    if (row >= h + r) continue;
    const int mr = mirror(row, h);
    const Sample* ref_row = row_of<Sample>(p.ref, p.ref_pitch, mr);
    const Sample* dis_row = row_of<Sample>(p.dis, p.dis_pitch, mr);
    const int col0 = j0 - r + Tile::kPerWord * xw;
    std::uint32_t ref_word = 0, dis_word = 0;
    if (word_copy) {
      ref_word = load_at(reinterpret_cast<const std::uint32_t*>(ref_row + col0));
      dis_word = load_at(reinterpret_cast<const std::uint32_t*>(dis_row + col0));
    } else {
      for (int c = 0; c < Tile::kPerWord; ++c) {
        const int col = col0 + c;
        if (col >= w + r) break;
        const int mc = mirror(col, w);
        const unsigned shift = 8 * sizeof(Sample) * static_cast<unsigned>(c);
        ref_word |= std::uint32_t{load_at(ref_row + mc)} << shift;
        dis_word |= std::uint32_t{load_at(dis_row + mc)} << shift;
      }
    }
    store_at(&t.ref[y][xw], ref_word);
    store_at(&t.dis[y][xw], dis_word);
  }
}

// kPerWord consecutive vertical sums of one quantity, stored with one access.
template <int N>
EXACTVMAF_HD_INLINE void store_sums(std::uint32_t* at, const std::uint32_t (&v)[N]) {
  if constexpr (N == 2) {
    store_at(reinterpret_cast<uint2*>(at), make_uint2(v[0], v[1]));
  } else {
    static_assert(N == 4);
    store_at(reinterpret_cast<uint4*>(at), make_uint4(v[0], v[1], v[2], v[3]));
  }
}

// Phase 2: vertical sums of every tile row at every tile and halo column,
// kPerWord columns per item: the filter's rows are read once as words into
// registers, then vertical_sums runs per column from them.
template <int Scale, class Sample, class SqAcc>
EXACTVMAF_HD_INLINE void stat_vertical(StatTile<Scale, Sample>& t, unsigned tid, int w, int h, int i0, int j0,
                                       VerticalShifts shifts) {
  using Tile = StatTile<Scale, Sample>;
  constexpr int r = Tile::r, width = filter_width(Scale), n = Tile::kPerWord;
  for (int item = static_cast<int>(tid); item < kTileH * Tile::kWordsW; item += kThreads) {
    const int y = item / Tile::kWordsW, xw = item % Tile::kWordsW;
    if (i0 + y >= h || j0 - r + n * xw >= w + r) continue;  // no pixel of the plane reads these
    std::uint32_t ref_words[width], dis_words[width];
    for (int k = 0; k < width; ++k) {
      ref_words[k] = load_at(&t.ref[y + k][xw]);
      dis_words[k] = load_at(&t.dis[y + k][xw]);
    }
    VerticalSums v[n];
    vertical_sums_n<Scale, SqAcc>([&](int k, int c) { return sample_in_word<Sample>(ref_words[k], c); },
                                  [&](int k, int c) { return sample_in_word<Sample>(dis_words[k], c); }, shifts, v);
    std::uint32_t sums[5][n];
    for (int c = 0; c < n; ++c) {
      sums[0][c] = v[c].mu1;
      sums[1][c] = v[c].mu2;
      sums[2][c] = v[c].xx;
      sums[3][c] = v[c].yy;
      sums[4][c] = v[c].xy;
    }
    for (int q = 0; q < 5; ++q) store_sums(&t.v[q][y][n * xw], sums[q]);
  }
}

// A quad's window of one quantity: kWindow entries from column x on, 4 per load.
template <int Scale, class Sample>
EXACTVMAF_HD_INLINE void load_window(const StatTile<Scale, Sample>& t, int q, int y, int x,
                                     std::uint32_t (&win)[StatTile<Scale, Sample>::kWindow]) {
  for (int i = 0; i < StatTile<Scale, Sample>::kWindow; i += 4) {
    const uint4 u = load_at(reinterpret_cast<const uint4*>(&t.v[q][y][x + i]));
    win[i] = u.x;
    win[i + 1] = u.y;
    win[i + 2] = u.z;
    win[i + 3] = u.w;
  }
}

// Phase 3: thread tid filters the quad of pixels (i0 + y, j0 + x .. x + 3),
// one quantity at a time from a window in registers (horizontal_filter_n),
// then accumulates each pixel of the plane.
template <int Scale, class Sample, class Arith>
EXACTVMAF_HD_INLINE void stat_horizontal(const StatTile<Scale, Sample>& t, unsigned tid, int w, int h, int i0,
                                         int j0, double gain_limit, const std::uint16_t* log2_table, Residuals& acc,
                                         Arith& arith) {
  using Tile = StatTile<Scale, Sample>;
  const int y = static_cast<int>(tid) / (kTileW / kQuad), x = kQuad * (static_cast<int>(tid) % (kTileW / kQuad));
  if (i0 + y >= h || j0 + x >= w) return;
  std::uint32_t win[Tile::kWindow];
  std::uint32_t mu1[kQuad], mu2[kQuad];
  load_window(t, 0, y, x, win);
  horizontal_filter_n<Scale, kQuad>([&](int i) { return win[i]; }, mu1);
  load_window(t, 1, y, x, win);
  horizontal_filter_n<Scale, kQuad>([&](int i) { return win[i]; }, mu2);
  std::uint64_t sq[kQuad];
  std::int32_t sigma1_sq[kQuad], sigma2_sq[kQuad], sigma12[kQuad];
  load_window(t, 2, y, x, win);
  horizontal_filter_n<Scale, kQuad>([&](int i) { return win[i]; }, sq);
  for (int n = 0; n < kQuad; ++n) sigma1_sq[n] = sigma_of(sq[n], mu1[n], mu1[n]);
  load_window(t, 3, y, x, win);
  horizontal_filter_n<Scale, kQuad>([&](int i) { return win[i]; }, sq);
  for (int n = 0; n < kQuad; ++n) sigma2_sq[n] = sigma_of(sq[n], mu2[n], mu2[n]);
  load_window(t, 4, y, x, win);
  horizontal_filter_n<Scale, kQuad>([&](int i) { return win[i]; }, sq);
  for (int n = 0; n < kQuad; ++n) sigma12[n] = sigma_of(sq[n], mu1[n], mu2[n]);
  // One copy of accumulate_pixel (the fp32pair island is large): the loop
  // stays rolled and the quad shifts down, so that every index is a constant
  // and the sigmas stay in registers.
#pragma unroll 1
  for (int n = 0; n < kQuad; ++n) {
    if (j0 + x + n < w) accumulate_pixel(sigma1_sq[0], sigma2_sq[0], sigma12[0], gain_limit, log2_table, acc, arith);
    for (int m = 0; m + 1 < kQuad; ++m) {
      sigma1_sq[m] = sigma1_sq[m + 1];
      sigma2_sq[m] = sigma2_sq[m + 1];
      sigma12[m] = sigma12[m + 1];
    }
  }
}

// The decimation to scale To = Scale + 1 from a statistic tile. Output sample
// (io, jo) of the next scale is decimation_sample at source row 2 io and
// column 2 jo; the tile owns those with 2 io in [i0, i0 + kTileH) and 2 jo in
// [j0, j0 + kTileW) (io < h / 2, jo < w / 2): the tiles partition the plane,
// so every output sample is written once. Its filter (radius r' = r / 2)
// reaches rows 2 io - r' .. 2 io + r' and columns 2 jo - r' .. 2 jo + r',
// inside the tile's halo, and the halo holds them mirrored as the CPU mirrors
// rows and pads its row of vertical values (a mirrored column's vertical value
// is the vertical value of the column it mirrors).
//
// Phase 2 part: the vertical pass at the tile's even rows i0 + 2 dr, every
// tile and halo column, kPerWord columns per item from one word per row.
template <int Scale, class Sample>
EXACTVMAF_HD_INLINE void stat_decimate_vertical(StatTile<Scale, Sample>& t, unsigned tid, int w, int i0, int j0,
                                                const NextScale& next) {
  using Tile = StatTile<Scale, Sample>;
  constexpr int To = Scale + 1, r = Tile::r, rd = radius_of<To>, width = filter_width(To), n = Tile::kPerWord;
  static_assert(rd < r, "the decimation's filter fits inside the statistic's halo");
  const std::uint32_t round = std::uint32_t{1} << (next.shift - 1);
  for (int item = static_cast<int>(tid); item < Tile::kDecRows * Tile::kWordsW; item += kThreads) {
    const int dr = item / Tile::kWordsW, xw = item % Tile::kWordsW;
    if (i0 / 2 + dr >= static_cast<int>(next.h) || j0 - r + n * xw >= w + r) continue;  // no output reads these
    // Source rows i0 + 2 dr - rd + k are tile rows 2 dr + r - rd + k.
    std::uint32_t ref_words[width], dis_words[width];
    for (int k = 0; k < width; ++k) {
      ref_words[k] = load_at(&t.ref[2 * dr + r - rd + k][xw]);
      dis_words[k] = load_at(&t.dis[2 * dr + r - rd + k][xw]);
    }
    for (int c = 0; c < n; ++c) {
      store_at(&t.dec[0][dr][n * xw + c],
               decimation_sample<To>([&](int k) { return sample_in_word<Sample>(ref_words[k], c); }, next.shift, round));
      store_at(&t.dec[1][dr][n * xw + c],
               decimation_sample<To>([&](int k) { return sample_in_word<Sample>(dis_words[k], c); }, next.shift, round));
    }
  }
}

// Phase 3 part: the horizontal pass at the even columns; thread tid makes
// output sample (i0 / 2 + dr, j0 / 2 + xo) of both planes.
template <int Scale, class Sample>
EXACTVMAF_HD_INLINE void stat_decimate_horizontal(const StatTile<Scale, Sample>& t, unsigned tid, int i0, int j0,
                                                  const NextScale& next) {
  using Tile = StatTile<Scale, Sample>;
  constexpr int To = Scale + 1, r = Tile::r, rd = radius_of<To>;
  static_assert(Tile::kDecRows * kTileW / 2 == static_cast<int>(kThreads), "one output sample per thread and tile");
  const int dr = static_cast<int>(tid) / (kTileW / 2), xo = static_cast<int>(tid) % (kTileW / 2);
  const int io = i0 / 2 + dr, jo = j0 / 2 + xo;
  if (io >= static_cast<int>(next.h) || jo >= static_cast<int>(next.w)) return;
  // Source columns 2 jo - rd + k are tile columns 2 xo + r - rd + k.
  const int base = 2 * xo + r - rd;
  const std::size_t at = static_cast<std::size_t>(io) * next.w + static_cast<std::size_t>(jo);
  store_at(next.ref + at, decimation_sample<To>([&](int k) { return load_at(&t.dec[0][dr][base + k]); }, 16, 32768));
  store_at(next.dis + at, decimation_sample<To>([&](int k) { return load_at(&t.dec[1][dr][base + k]); }, 16, 32768));
}

// The statistic of one scale: `Sample` is the plane's sample type (uint8_t or
// uint16_t at scale 0, uint16_t after), SqAcc the vertical pass's accumulator
// of squares (vif_math.hpp: uint32_t only for 8-bit samples), Arith the fp64
// policy (rmath::NativeF64, or rmath::Fp32PairArith: no fp64 instruction; the
// gain limit then arrives as its bits and never sits in an fp64 register).
// The three phases are per-thread functions above (so that a host replay can
// run them thread by thread between the barriers). Scales 0-2 also write the
// next scale's planes (`next`; unused at scale 3).
template <int Scale, class Sample, class SqAcc, class Arith>
__global__ void __launch_bounds__(kThreads, 4)
    statistic_kernel(PlanePair planes, unsigned w, unsigned h, VerticalShifts shifts, NextScale next,
                     std::uint64_t gain_limit_bits, const std::uint16_t* __restrict__ log2_table,
                     unsigned long long* totals, unsigned long long* counts) {
  const double gain_limit = __longlong_as_double(static_cast<long long>(gain_limit_bits));
  Arith arith;
  __shared__ StatTile<Scale, Sample> tile;
  __shared__ long long warp_sums[kThreads / 32];

  const int iw = static_cast<int>(w), ih = static_cast<int>(h);
  const int j0 = static_cast<int>(blockIdx.x) * kTileW;
  Residuals acc;
  for (int i0 = static_cast<int>(blockIdx.y) * kTileH; i0 < ih; i0 += static_cast<int>(gridDim.y) * kTileH) {
    // words_aligned is recomputed per row of tiles (a few instructions): one
    // live register fewer across the phases (the fp32pair variant spilled).
    stat_load(tile, threadIdx.x, planes, iw, ih, i0, j0, words_aligned<Scale, Sample>(planes));
    __syncthreads();
    stat_vertical<Scale, Sample, SqAcc>(tile, threadIdx.x, iw, ih, i0, j0, shifts);
    if constexpr (StatTile<Scale, Sample>::kFuse) stat_decimate_vertical(tile, threadIdx.x, iw, i0, j0, next);
    __syncthreads();
    stat_horizontal(tile, threadIdx.x, iw, ih, i0, j0, gain_limit, log2_table, acc, arith);
    if constexpr (StatTile<Scale, Sample>::kFuse) stat_decimate_horizontal(tile, threadIdx.x, i0, j0, next);
    __syncthreads();  // the shared tiles are refilled by the next row of tiles
  }
  rmath::device::add_arith_counts(arith, counts);
  const long long sums[4] = {block_sum_i64(acc.num_log, warp_sums), block_sum_i64(acc.den_log, warp_sums),
                             block_sum_i64(acc.num_non_log, warp_sums), block_sum_i64(acc.den_non_log, warp_sums)};
  if (threadIdx.x == 0)
    for (int k = 0; k < 4; ++k)
      if (sums[k]) atomicAdd(totals + k, static_cast<unsigned long long>(sums[k]));  // two's complement: exact
}

// The standalone decimation (scale 0 to 1 when scale 0's statistic is
// skipped): w x h source planes of `Sample` into dense (w / 2) x (h / 2)
// uint16_t planes. A block makes kDecW x kDecH output samples: the vertical
// pass at the even source rows straight from global memory (mirrored rows)
// into shared memory, with mirrored halo columns, then the horizontal pass at
// the even columns.
template <int To>
struct DecTile {
  static constexpr int r = radius_of<To>, src_w = 2 * kDecW + 2 * r;
  std::uint32_t ref[kDecH][src_w], dis[kDecH][src_w];
};

// Phase 1: vertical pass at source rows 2 io, columns 2 jo0 - r + x (mirrored).
template <int To, class Sample>
EXACTVMAF_HD_INLINE void dec_vertical(DecTile<To>& t, unsigned tid, const PlanePair& p, int w, int h, int io0,
                                      int jo0, unsigned shift) {
  constexpr int r = DecTile<To>::r, src_w = DecTile<To>::src_w;
  const int ho = h / 2;
  const std::uint32_t round = std::uint32_t{1} << (shift - 1);
  for (int item = static_cast<int>(tid); item < kDecH * src_w; item += kThreads) {
    const int y = item / src_w, x = item % src_w;
    const int io = io0 + y, col = 2 * jo0 - r + x;
    if (io < ho && col < w + r) {
      const int mc = mirror(col, w);
      store_at(&t.ref[y][x], std::uint32_t{decimation_sample<To>(
                                 [&](int k) { return load_at(row_of<Sample>(p.ref, p.ref_pitch, mirror(2 * io - r + k, h)) + mc); },
                                 shift, round)});
      store_at(&t.dis[y][x], std::uint32_t{decimation_sample<To>(
                                 [&](int k) { return load_at(row_of<Sample>(p.dis, p.dis_pitch, mirror(2 * io - r + k, h)) + mc); },
                                 shift, round)});
    }
  }
}

// Phase 2: horizontal pass at the even source columns.
template <int To>
EXACTVMAF_HD_INLINE void dec_horizontal(const DecTile<To>& t, unsigned tid, int w, int h, int io0, int jo0,
                                        std::uint16_t* out_ref, std::uint16_t* out_dis) {
  const int wo = w / 2, ho = h / 2;
  for (int item = static_cast<int>(tid); item < kDecH * kDecW; item += kThreads) {
    const int y = item / kDecW, x = item % kDecW;
    const int io = io0 + y, jo = jo0 + x;
    if (io < ho && jo < wo) {
      const std::size_t at = static_cast<std::size_t>(io) * static_cast<std::size_t>(wo) + static_cast<std::size_t>(jo);
      store_at(out_ref + at, decimation_sample<To>([&](int k) { return load_at(&t.ref[y][2 * x + k]); }, 16, 32768));
      store_at(out_dis + at, decimation_sample<To>([&](int k) { return load_at(&t.dis[y][2 * x + k]); }, 16, 32768));
    }
  }
}

template <int To, class Sample>
__global__ void __launch_bounds__(kThreads)
    decimate_kernel(PlanePair planes, unsigned w, unsigned h, unsigned bpc, std::uint16_t* out_ref,
                    std::uint16_t* out_dis) {
  __shared__ DecTile<To> tile;
  const int iw = static_cast<int>(w), ih = static_cast<int>(h);
  const unsigned shift = decimation_vertical_shift(To, bpc);
  const int jo0 = static_cast<int>(blockIdx.x) * kDecW;
  for (int io0 = static_cast<int>(blockIdx.y) * kDecH; io0 < ih / 2; io0 += static_cast<int>(gridDim.y) * kDecH) {
    dec_vertical<To, Sample>(tile, threadIdx.x, planes, iw, ih, io0, jo0, shift);
    __syncthreads();
    dec_horizontal(tile, threadIdx.x, iw, ih, io0, jo0, out_ref, out_dis);
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

  // Scale 0's statistic also decimates to scale 1 (the standalone
  // decimate_kernel only when it is skipped), scales 1 and 2 to the next
  // scale: 4 kernels per frame (5 with vif_skip_scale0).
  template <class Arith>
  void enqueue_scales(const cuda::DevicePlane& ref, const cuda::DevicePlane& dis, cuda::Stream stream) {
    if (c_.bpc == 8)
      scale0<std::uint8_t, std::uint32_t, Arith>(ref, dis, stream);
    else
      scale0<std::uint16_t, std::uint64_t, Arith>(ref, dis, stream);
    scale_n<1, Arith>(stream);
    scale_n<2, Arith>(stream);
    scale_n<3, Arith>(stream);
  }

  std::uint64_t gain_bits() const { return __builtin_bit_cast(std::uint64_t, c_.gain_limit); }
  unsigned long long* counts() const { return totals_.get() + kCountsAt; }

  // The planes of scale `s` (1..3) as the next scale of a statistic kernel;
  // nothing after scale 3.
  NextScale next_scale(int s) const {
    if (s >= num_scales) return {nullptr, nullptr, 0, 0, 16};
    return {plane_ref(s), plane_dis(s), w_[s], h_[s], decimation_vertical_shift(s, c_.bpc)};
  }

  template <class Sample, class SqAcc, class Arith>
  void scale0(const cuda::DevicePlane& ref, const cuda::DevicePlane& dis, cuda::Stream stream) {
    const PlanePair planes{ref.data, ref.pitch, dis.data, dis.pitch};
    if (!c_.skip_scale0) {
      const dim3 grid(blocks_x(w_[0], kTileW), blocks_y(h_[0], kTileH));
      statistic_kernel<0, Sample, SqAcc, Arith><<<grid, kThreads, 0, stream>>>(
          planes, w_[0], h_[0], statistic_shifts(0, c_.bpc), next_scale(1), gain_bits(), table_.get(), totals_.get(),
          counts());
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      return;
    }
    const dim3 grid(blocks_x(w_[1], kDecW), blocks_y(h_[1], kDecH));
    decimate_kernel<1, Sample><<<grid, kThreads, 0, stream>>>(planes, w_[0], h_[0], c_.bpc, plane_ref(1),
                                                             plane_dis(1));
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
  }

  template <int Scale, class Arith>
  void scale_n(cuda::Stream stream) {
    const std::size_t pitch = sizeof(std::uint16_t) * w_[Scale];
    const dim3 grid(blocks_x(w_[Scale], kTileW), blocks_y(h_[Scale], kTileH));
    statistic_kernel<Scale, std::uint16_t, std::uint64_t, Arith><<<grid, kThreads, 0, stream>>>(
        PlanePair{reinterpret_cast<const std::uint8_t*>(plane_ref(Scale)), pitch,
                  reinterpret_cast<const std::uint8_t*>(plane_dis(Scale)), pitch},
        w_[Scale], h_[Scale], statistic_shifts(Scale, c_.bpc), next_scale(Scale + 1), gain_bits(), table_.get(),
        totals_.get() + 4 * Scale, counts());
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
