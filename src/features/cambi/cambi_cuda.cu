// cambi on the device (docs/features/cambi.md, "CUDA").
//
// One picture is a fixed chain of kernels on the worker's stream, captured
// into the backend's graph with the other features:
//   convert (resampling maps, to 10 bits) [-> anti-dither] -> flags -> mask,
//   then per scale [decimate] -> mode filter -> c-values -> top-k pooling.
// Element-wise stages run one thread per sample with cambi_math.hpp's
// per-sample functions, out of place (ping-pong buffers), which equals the
// CPU's in-place row order because every sample reads only original ones.
//
// c-values: a block owns a strip of 32 columns (one per lane) and a segment
// of rows; it keeps, in shared memory, the window counts of its columns for
// the values present (masked, in band) in the region its windows cover, and
// slides them down the segment (a row leaves, a row enters: 8 warps share a
// column's window samples, shared-memory atomics). The counts are exact
// integers, so any order gives the CPU's counts; c_value() is called with
// them. A region with more distinct values than the histogram holds is done
// in several passes over value ranges.
//
// Top-k pooling (cambi_math.hpp's radix select): a histogram of the top 16
// key bits (and of their top 8, to find the bucket in two short scans), the
// bucket's low 16 bits, exact sums of everything above it and of the
// bucket's share (add_repeated), all into one exact accumulator per scale.
// Zeros are skipped in the sums: they add nothing. Only the accumulators
// (and, with heatmaps_path, the c-value maps) come back to the host.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/cambi/cambi_cuda.hpp"
#include "features/cambi/cambi_host.hpp"
#include "features/cambi/cambi_math.hpp"
#include "numeric/device/exact_sum_reduce.cuh"

namespace exactvmaf::cambi {

namespace {

namespace cg = cooperative_groups;
using u8 = std::uint8_t;
using Acc = rmath::ExactSumF32;
using GlobalSum = rmath::device::GlobalExactSum<Acc>;

constexpr unsigned kThreads = 256;     // element-wise and top-k kernels
constexpr unsigned kStrip = 32;        // c-value block: columns, one per lane
constexpr unsigned kStripWarps = 8;    // warps sharing each column's window
constexpr unsigned kCValueThreads = kStrip * kStripWarps;
constexpr int kSegmentRows = 64;       // rows one c-value block slides over
constexpr unsigned kHistSlots = 192;   // histogram values per pass
constexpr int kMaxPad = 32;            // windows of at most 65 (make_config)
constexpr unsigned kRowSpan = kStrip + 2 * kMaxPad;
constexpr unsigned kMaxBand = 1056;    // tvi_for_diff <= 1023 + max_num_diffs
constexpr unsigned kBandWords = (kMaxBand + 31) / 32;
constexpr u16 kNoSlot = 0xffff;
constexpr unsigned kKeys = 65536;      // one 16-bit radix digit
constexpr unsigned kGroups = 256;      // its top 8 bits
constexpr unsigned kKeysPerGroup = kKeys / kGroups;
constexpr std::uint32_t kLocalKeyBase = 0x3f00;  // non-zero c-values are >= 0.5
constexpr unsigned kLocalKeys = 0x800;           // [0.5, 32768): counted in shared memory first

static_assert(kThreads == kGroups, "the find and finish kernels give each thread one group");

// ---- preprocessing, mask, scales (one thread per sample) ------------------------

struct PlaneArgs {
  unsigned w, h, stride;  // samples; stride in samples
};

__device__ __forceinline__ bool sample_index(const PlaneArgs& a, unsigned* i, unsigned* j) {
  *j = blockIdx.x * blockDim.x + threadIdx.x;
  *i = blockIdx.y;
  return *j < a.w;
}

template <class Sample>
__global__ void __launch_bounds__(kThreads)
    convert_kernel(cuda::DevicePlane src, const u32* row_map, const u32* col_map, unsigned bpc, PlaneArgs a, u16* out) {
  unsigned i, j;
  if (!sample_index(a, &i, &j)) return;
  const unsigned si = row_map ? row_map[i] : i, sj = col_map ? col_map[j] : j;
  const Sample* row = reinterpret_cast<const Sample*>(src.data + static_cast<std::size_t>(si) * src.pitch);
  out[static_cast<std::size_t>(i) * a.stride + j] = to_10bit(row[sj], bpc);
}

__global__ void __launch_bounds__(kThreads) anti_dither_kernel(const u16* in, PlaneArgs a, u16* out) {
  unsigned i, j;
  if (!sample_index(a, &i, &j)) return;
  const u16* row = in + static_cast<std::size_t>(i) * a.stride;
  out[static_cast<std::size_t>(i) * a.stride + j] = anti_dither_sample(row, i + 1 < a.h ? row + a.stride : nullptr, a.w, j);
}

__global__ void __launch_bounds__(kThreads) flags_kernel(const u16* img, PlaneArgs a, u8* flags) {
  unsigned i, j;
  if (!sample_index(a, &i, &j)) return;
  const u16* r = img + static_cast<std::size_t>(i) * a.stride;
  flags[static_cast<std::size_t>(i) * a.stride + j] =
      static_cast<u8>(derivative_sample(r, i + 1 < a.h ? r + a.stride : r, a.w, j));
}

// The 7x7 window count, clipped to the picture, in two passes: the flags of
// the 7 rows around each sample (column_counts), then 7 of those.
constexpr int kMaskPad = mask_filter_size / 2;

__global__ void __launch_bounds__(kThreads) column_count_kernel(const u8* flags, PlaneArgs a, u8* counts) {
  unsigned i, j;
  if (!sample_index(a, &i, &j)) return;
  unsigned n = 0;
  for (int r = max(0, static_cast<int>(i) - kMaskPad); r <= min(static_cast<int>(a.h) - 1, static_cast<int>(i) + kMaskPad); ++r)
    n += flags[static_cast<std::size_t>(r) * a.stride + j];
  counts[static_cast<std::size_t>(i) * a.stride + j] = static_cast<u8>(n);
}

__global__ void __launch_bounds__(kThreads) mask_kernel(const u8* counts, PlaneArgs a, u32 index, u8* mask) {
  unsigned i, j;
  if (!sample_index(a, &i, &j)) return;
  const u8* row = counts + static_cast<std::size_t>(i) * a.stride;
  u32 n = 0;
  for (int q = max(0, static_cast<int>(j) - kMaskPad); q <= min(static_cast<int>(a.w) - 1, static_cast<int>(j) + kMaskPad); ++q)
    n += row[q];
  mask[static_cast<std::size_t>(i) * a.stride + j] = static_cast<u8>(mask_from_window_flags(n, index));
}

// a is the output size; the input is row 2i, column 2j.
__global__ void __launch_bounds__(kThreads)
    decimate_kernel(const u16* img, const u8* mask, PlaneArgs a, u16* img_out, u8* mask_out) {
  unsigned i, j;
  if (!sample_index(a, &i, &j)) return;
  const std::size_t from = static_cast<std::size_t>(2 * i) * a.stride + 2 * j, to = static_cast<std::size_t>(i) * a.stride + j;
  img_out[to] = img[from];
  mask_out[to] = mask[from];
}

__global__ void __launch_bounds__(kThreads) mode_kernel(const u16* in, PlaneArgs a, u16* out) {
  unsigned i, j;
  if (!sample_index(a, &i, &j)) return;
  const u16* r = in + static_cast<std::size_t>(i) * a.stride;
  // Rows 0 and h - 1 keep their samples (filter_mode).
  out[static_cast<std::size_t>(i) * a.stride + j] =
      (i == 0 || i + 1 >= a.h) ? r[j]
                               : mode3(mode_horizontal_sample(r - a.stride, a.w, j), mode_horizontal_sample(r, a.w, j),
                                       mode_horizontal_sample(r + a.stride, a.w, j));
}

// ---- c-values -------------------------------------------------------------------

struct CValueArgs {
  const u16* img;
  const u8* mask;
  PlaneArgs plane;
  int pad;
  Params p;
  const float* reciprocal;
  float* c;  // w per row
};

__global__ void __launch_bounds__(kCValueThreads, 4) c_value_kernel(CValueArgs a) {
  __shared__ u32 hist[kHistSlots * kStrip];
  __shared__ u32 present[kBandWords];          // band values in the region
  __shared__ u32 rank_before[kBandWords + 1];  // present values below each word
  __shared__ u16 row_img[2][kRowSpan];         // 0: the row leaving, 1: the row entering
  __shared__ u8 row_mask[2][kRowSpan];
  __shared__ int pass[2];  // this pass's values [c0, c1) (c0 < 0: done)
  __shared__ u16 slot_of[kMaxBand];  // this pass: the histogram row of a band value, kNoSlot if none

  const Params& p = a.p;
  const int w = static_cast<int>(a.plane.w), h = static_cast<int>(a.plane.h), pad = a.pad;
  const std::size_t stride = a.plane.stride;
  const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
  const int x0 = static_cast<int>(blockIdx.x * kStrip), y0 = static_cast<int>(blockIdx.y) * kSegmentRows;
  const int y1 = min(y0 + kSegmentRows, h);
  const int x = x0 + static_cast<int>(lane);
  const int band = p.v_band_size, nd = p.num_diffs;

  // The values present in the region every window of the block covers.
  for (unsigned i = tid; i < kBandWords; i += kCValueThreads) present[i] = 0;
  __syncthreads();
  const int ry0 = max(0, y0 - pad), ry1 = min(h - 1, y1 - 1 + pad);
  const int rx0 = max(0, x0 - pad), rx1 = min(w - 1, x0 + static_cast<int>(kStrip) - 1 + pad);
  const int rw = rx1 - rx0 + 1, region = (ry1 - ry0 + 1) * rw;
  for (int t = static_cast<int>(tid); t < region; t += kCValueThreads) {
    const std::size_t o = static_cast<std::size_t>(ry0 + t / rw) * stride + static_cast<std::size_t>(rx0 + t % rw);
    const u16 v = a.img[o];
    if (a.mask[o] && in_band(v, p)) {
      const unsigned k = v - p.v_band_base;
      atomicOr(&present[k >> 5], 1u << (k & 31u));
    }
  }
  __syncthreads();
  if (tid == 0) {
    u32 s = 0;
    for (unsigned i = 0; i < kBandWords; ++i) {
      rank_before[i] = s;
      s += __popc(present[i]);
    }
    rank_before[kBandWords] = s;
  }
  __syncthreads();
  auto rank = [&](int k) -> u32 {  // present values below k
    if (k <= 0) return 0;
    if (k >= static_cast<int>(kBandWords * 32)) return rank_before[kBandWords];
    return rank_before[k >> 5] + __popc(present[k >> 5] & ((1u << (k & 31)) - 1u));
  };
  auto is_present = [&](int k) { return ((present[k >> 5] >> (k & 31)) & 1u) != 0; };
  auto first_present_from = [&](int k) -> int {  // -1: none
    if (k >= band) return -1;
    unsigned word = static_cast<unsigned>(k) >> 5;
    u32 bits = present[word] & ~((1u << (k & 31)) - 1u);
    while (bits == 0) {
      if (++word >= kBandWords) return -1;
      bits = present[word];
    }
    return static_cast<int>(word * 32 + __ffs(bits) - 1);
  };

  // Rows travel through registers: fetched early (the global loads' latency
  // hides behind the c-values), stored to shared memory after. A block's
  // span (<= 96 samples) fits one sample per thread.
  const bool has_sample = tid < kStrip + 2 * static_cast<unsigned>(pad);
  auto fetch = [&](int r, u16* v, u8* m) {
    const int q = x0 - pad + static_cast<int>(tid);
    const bool inside = has_sample && r >= 0 && r < h && q >= 0 && q < w;
    const std::size_t o = inside ? static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(q) : 0;
    *v = inside ? a.img[o] : u16{0};
    *m = inside ? a.mask[o] : u8{0};
  };
  auto store = [&](int side, u16 v, u8 m) {
    if (!has_sample) return;
    row_img[side][tid] = v;
    row_mask[side][tid] = m;
  };
  auto load_row = [&](int side, int r) {
    u16 v;
    u8 m;
    fetch(r, &v, &m);
    store(side, v, m);
  };

  int c0 = first_present_from(0);
  bool first_pass = true;
  while (true) {
    if (tid == 0) {
      int c1 = -1;
      if (c0 >= 0) {
        // The most values from c0 on whose reads [c0 - nd, c1 - 1 + nd] fit.
        const u32 base = rank(max(c0 - nd, 0));
        int lo = c0 + 1, hi = band;
        while (lo < hi) {
          const int mid = (lo + hi + 1) / 2;
          if (rank(min(mid + nd, band)) - base <= kHistSlots) lo = mid;
          else hi = mid - 1;
        }
        c1 = lo;
      }
      pass[0] = c0;
      pass[1] = c1;
    }
    __syncthreads();
    c0 = pass[0];
    const int c1 = pass[1];
    if (c0 < 0) {
      // No masked band value here: every c-value of the block is 0.
      if (first_pass && x < w)
        for (int y = y0 + static_cast<int>(warp); y < y1; y += kStripWarps) a.c[static_cast<std::size_t>(y) * w + x] = 0.0f;
      return;
    }
    const int hist_lo = max(c0 - nd, 0), hist_hi = min(c1 + nd, band);
    const u32 base_rank = rank(hist_lo);
    const unsigned used = rank(hist_hi) - base_rank;
    for (int k = static_cast<int>(tid); k < band; k += kCValueThreads)
      slot_of[k] = (k >= hist_lo && k < hist_hi && is_present(k)) ? static_cast<u16>(rank(k) - base_rank) : kNoSlot;
    for (unsigned i = tid; i < used * kStrip; i += kCValueThreads) hist[i] = 0;

    // Adds the samples of row_*[1] to, and removes those of row_*[0] from,
    // the counts of the block's columns (side 0 skipped when remove is false).
    auto apply = [&](bool remove) {
      if (x >= w) return;
      for (int o = static_cast<int>(warp); o <= 2 * pad; o += kStripWarps) {
        const int q = static_cast<int>(lane) + o;  // column x - pad + o
        for (int side = remove ? 0 : 1; side < 2; ++side) {
          if (!row_mask[side][q]) continue;
          const u16 v = row_img[side][q];
          if (!in_band(v, p)) continue;
          const unsigned s = slot_of[v - p.v_band_base];
          if (s == kNoSlot) continue;
          if (side == 0) atomicSub(&hist[s * kStrip + lane], 1u);
          else atomicAdd(&hist[s * kStrip + lane], 1u);
        }
      }
    };

    // The window of row y0: its rows enter one by one.
    for (int r = max(0, y0 - pad); r <= min(h - 1, y0 + pad); ++r) {
      __syncthreads();
      load_row(1, r);
      __syncthreads();
      apply(false);
    }
    for (int y = y0; y < y1; ++y) {
      u16 out_v, in_v;
      u8 out_m, in_m;
      if (y + 1 < y1) {
        fetch(y - pad, &out_v, &out_m);
        fetch(y + 1 + pad, &in_v, &in_m);
      }
      __syncthreads();  // the counts are the window of row y
      if (warp == 0 && x < w) {
        const std::size_t o = static_cast<std::size_t>(y) * stride + static_cast<std::size_t>(x);
        const u16 v = a.img[o];
        float* out = a.c + static_cast<std::size_t>(y) * w + x;
        if (a.mask[o] && in_band(v, p)) {
          const int k = v - p.v_band_base;
          if (k >= c0 && k < c1) {
            auto count = [&](int kk) -> int {  // kk < band (band_covers_reads)
              const unsigned s = kk < band ? slot_of[kk] : kNoSlot;
              return s == kNoSlot ? 0 : static_cast<int>(hist[s * kStrip + lane]);
            };
            *out = c_value(v, p, count, a.reciprocal);
          }
        } else if (first_pass) {
          *out = 0.0f;
        }
      }
      if (y + 1 >= y1) break;
      store(0, out_v, out_m);
      store(1, in_v, in_m);
      __syncthreads();
      apply(true);
    }
    __syncthreads();
    first_pass = false;
    c0 = first_present_from(c1);
  }
}

// ---- top-k pooling ----------------------------------------------------------------

struct TopKState {
  u32 bucket, above;  // TopKBucket
};

// The counters of one scale's selection, zeroed before each.
struct PoolCounts {
  u32 high[kKeys], high_groups[kGroups];
  u32 low[kKeys], low_groups[kGroups];
  TopKState state;
};

// Adds one to counts[key] and groups[key / 256] for every lane of the warp
// holding the same key, in one atomic per distinct key (ties are common).
__device__ __forceinline__ void count_key(u32* counts, u32* groups, u32 key) {
  const cg::coalesced_group peers = cg::labeled_partition(cg::coalesced_threads(), key);
  if (peers.thread_rank() == 0) {
    atomicAdd(&counts[key], peers.size());
    atomicAdd(&groups[key / kKeysPerGroup], peers.size());
  }
}

// Pass 1 (topk_count_high): the top 16 bits of every value; zeros apart.
__global__ void __launch_bounds__(kThreads) topk_high_kernel(const float* c, u32 n, PoolCounts* pc) {
  __shared__ u32 local[kLocalKeys];
  __shared__ u32 zeros;
  for (unsigned i = threadIdx.x; i < kLocalKeys; i += blockDim.x) local[i] = 0;
  if (threadIdx.x == 0) zeros = 0;
  __syncthreads();
  u32 my_zeros = 0;
  const u32 step = gridDim.x * blockDim.x;
  for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    const u32 key = float_key(c[i]);
    if (key == 0) {
      ++my_zeros;
      continue;
    }
    const u32 high = key >> 16;
    if (high - kLocalKeyBase < kLocalKeys) atomicAdd(&local[high - kLocalKeyBase], 1u);
    else count_key(pc->high, pc->high_groups, high);
  }
  if (my_zeros) atomicAdd(&zeros, my_zeros);
  __syncthreads();
  for (unsigned i = threadIdx.x; i < kLocalKeys; i += blockDim.x) {
    if (!local[i]) continue;
    atomicAdd(&pc->high[kLocalKeyBase + i], local[i]);
    atomicAdd(&pc->high_groups[(kLocalKeyBase + i) / kKeysPerGroup], local[i]);
  }
  if (threadIdx.x == 0 && zeros) {
    atomicAdd(&pc->high[0], zeros);
    atomicAdd(&pc->high_groups[0], zeros);
  }
}

using GroupScan = cub::BlockScan<u32, kThreads>;

// topk_find: the bucket of the k-th largest and the count above it. Thread t
// owns group 255 - t (largest first).
__global__ void __launch_bounds__(kThreads) topk_find_kernel(u32 k, PoolCounts* pc) {
  __shared__ typename GroupScan::TempStorage scan;
  const u32 group = kGroups - 1 - threadIdx.x;
  const u32 count = pc->high_groups[group];
  u32 before = 0;
  GroupScan(scan).ExclusiveSum(count, before);
  if (before < k && before + count >= k) {
    u32 cum = before;
    for (u32 i = kKeysPerGroup; i-- > 0;) {
      const u32 key = group * kKeysPerGroup + i, c = pc->high[key];
      if (cum + c >= k) {
        pc->state = TopKState{key, cum};
        return;
      }
      cum += c;
    }
  }
}

// Pass 2 (topk_split): values above the bucket into the exact sum, the
// bucket's values counted by their low 16 bits.
__global__ void __launch_bounds__(kThreads) topk_split_kernel(const float* c, u32 n, PoolCounts* pc, GlobalSum* sum) {
  const u32 bucket = pc->state.bucket;
  Acc acc;
  acc.clear();
  const u32 step = gridDim.x * blockDim.x;
  for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    const float v = c[i];
    const u32 key = float_key(v);
    if (key == 0) continue;  // adds nothing
    if ((key >> 16) > bucket) acc.add(v);
    else if ((key >> 16) == bucket) count_key(pc->low, pc->low_groups, key & 0xffffu);
  }
  rmath::device::block_reduce_to_global(acc, sum);
}

// topk_finish: the bucket's largest k - above values, each distinct one
// with add_repeated. Thread t owns low group 255 - t.
__global__ void __launch_bounds__(kThreads) topk_finish_kernel(u32 k, PoolCounts* pc, GlobalSum* sum) {
  __shared__ typename GroupScan::TempStorage scan;
  const TopKState st = pc->state;
  const u32 need = k - st.above;
  const u32 group = kGroups - 1 - threadIdx.x;
  const u32 count = pc->low_groups[group];
  u32 before = 0;
  GroupScan(scan).ExclusiveSum(count, before);
  Acc acc;
  acc.clear();
  if (count != 0 && before < need) {
    u32 left = need - before;
    for (u32 i = kKeysPerGroup; i-- > 0 && left > 0;) {
      const u32 low = group * kKeysPerGroup + i, c = pc->low[low];
      if (c == 0) continue;
      const u32 take = c < left ? c : left;
      add_repeated(acc, dd::float_from_bits((st.bucket << 16) | low), take);
      left -= take;
    }
  }
  rmath::device::block_reduce_to_global(acc, sum);
}

// ---- the worker ---------------------------------------------------------------------

unsigned blocks_for(unsigned n, unsigned per_block) { return (n + per_block - 1) / per_block; }

struct ScaleSize {
  unsigned w = 0, h = 0;
  bool decimate = false;
  u32 k = 0;  // topk_count
};

// One picture's chain: the distorted at the encode size, or the reference
// at the source size.
struct Chain {
  const PictureSetup* setup = nullptr;
  cuda::DeviceBuffer<u32> row_map, col_map;
  ScaleSize scale[num_scales];
};

class CambiCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit CambiCudaWorker(const Config& c) : c_(c) {}

  cuda::PlaneNeeds planes() const override {
    cuda::PlaneNeeds n;
    n.dist = cuda::kLuma;
    if (c_.full_ref) n.ref = cuda::kLuma;
    return n;
  }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    for (const cuda::DevicePicture* pic : {&frame.dist, c_.full_ref ? &frame.ref : nullptr}) {
      if (!pic) continue;
      const cuda::DevicePlane& y = pic->plane[0];
      if (!y.data || y.width != c_.in_w || y.height != c_.in_h)
        throw InternalError("internal: cambi's CUDA worker did not get its luma plane at " + std::to_string(c_.in_w) +
                            "x" + std::to_string(c_.in_h) + " on the device");
    }
    if (c_.params.v_band_size > kMaxBand || c_.enc.window > 2 * kMaxPad + 1 || (c_.full_ref && c_.src.window > 2 * kMaxPad + 1))
      throw InternalError("internal: cambi's CUDA worker got a band or window larger than it holds");
    stride_ = c_.alloc_w;
    const std::size_t plane = static_cast<std::size_t>(stride_) * c_.alloc_h;
    for (int b = 0; b < 2; ++b) {
      img_[b] = cuda::DeviceBuffer<u16>(plane);
      mask_[b] = cuda::DeviceBuffer<u8>(plane);
    }
    flags_ = cuda::DeviceBuffer<u8>(plane);
    init_chain(dist_, c_.enc, stream);
    if (c_.full_ref) init_chain(ref_, c_.src, stream);
    std::size_t largest = 0, heat = 0;
    for (const Chain* ch : {&dist_, c_.full_ref ? &ref_ : nullptr}) {
      if (!ch) continue;
      for (const ScaleSize& s : ch->scale) largest = std::max(largest, static_cast<std::size_t>(s.w) * s.h);
    }
    for (const ScaleSize& s : dist_.scale) heat += static_cast<std::size_t>(s.w) * s.h;
    c_values_ = cuda::DeviceBuffer<float>(largest);
    reciprocal_ = cuda::DeviceBuffer<float>(reciprocal_table_entries);
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(reciprocal_.get(), reciprocal_table, sizeof(float) * reciprocal_table_entries,
                                         cudaMemcpyHostToDevice, stream));
    counts_ = cuda::DeviceBuffer<PoolCounts>(1);
    sums_ = cuda::DeviceBuffer<GlobalSum>(2 * num_scales);
    host_sums_ = cuda::PinnedBuffer<GlobalSum>(2 * num_scales);
    if (c_.heatmaps) host_heat_ = cuda::PinnedBuffer<float>(heat);
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, sums_.bytes(), stream));
    picture(dist_, frame.dist.plane[0], sums_.get(), c_.heatmaps ? host_heat_.get() : nullptr, stream);
    if (c_.full_ref) picture(ref_, frame.ref.plane[0], sums_.get() + num_scales, nullptr, stream);
    EXACTVMAF_CUDA_CHECK(
        cudaMemcpyAsync(host_sums_.get(), sums_.get(), sums_.bytes(), cudaMemcpyDeviceToHost, stream));
  }

  void finish(const FrameInput& in, FrameOutput& out) override {
    check_sample_range(in.dist, c_.bpc, in.index, "distorted");
    if (c_.heatmaps) {
      const double heat_scale = heatmap_scale(c_.params, c_.enc.window);
      const float* c = host_heat_.get();
      for (int s = 0; s < num_scales; ++s) {
        const ScaleSize& sz = dist_.scale[s];
        c_.heatmaps->write(s, in.index, sz.w, sz.h, c, heat_scale);
        c += static_cast<std::size_t>(sz.w) * sz.h;
      }
    }
    const double dist = score(dist_, host_sums_.get());
    double src = 0.0;
    if (c_.full_ref) {
      check_sample_range(in.ref, c_.bpc, in.index, "reference");
      src = score(ref_, host_sums_.get() + num_scales);
    }
    write_outputs(c_, dist, src, out);
  }

 private:
  void init_chain(Chain& ch, const PictureSetup& ps, cuda::Stream stream) {
    ch.setup = &ps;
    auto upload = [&](const std::vector<u32>& map, cuda::DeviceBuffer<u32>& d) {
      if (map.empty()) return;
      d = cuda::DeviceBuffer<u32>(map.size());
      EXACTVMAF_CUDA_CHECK(
          cudaMemcpyAsync(d.get(), map.data(), sizeof(u32) * map.size(), cudaMemcpyHostToDevice, stream));
    };
    upload(ps.row_map, ch.row_map);
    upload(ps.col_map, ch.col_map);
    unsigned w = ps.w, h = ps.h;
    for (int s = 0; s < num_scales; ++s) {
      ScaleSize& sz = ch.scale[s];
      sz.decimate = s > 0 || c_.high_res_speedup;
      if (sz.decimate) {
        w = half_up(w);
        h = half_up(h);
      }
      sz.w = w;
      sz.h = h;
      sz.k = topk_count(c_.topk, w * h);
    }
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));  // the maps' host vectors are the Config's
  }

  PlaneArgs plane_args(unsigned w, unsigned h) const { return PlaneArgs{w, h, stride_}; }
  static dim3 grid_for(const PlaneArgs& a) { return dim3(blocks_for(a.w, kThreads), a.h); }

  void picture(const Chain& ch, const cuda::DevicePlane& src, GlobalSum* sums, float* heat, cuda::Stream stream) {
    const PictureSetup& ps = *ch.setup;
    const PlaneArgs full = plane_args(ps.w, ps.h);
    const bool dither = c_.enc_bitdepth < 10;
    u16* converted = img_[dither ? 1 : 0].get();
    if (c_.bpc == 8)
      convert_kernel<std::uint8_t><<<grid_for(full), kThreads, 0, stream>>>(src, ch.row_map.get(), ch.col_map.get(),
                                                                            c_.bpc, full, converted);
    else
      convert_kernel<std::uint16_t><<<grid_for(full), kThreads, 0, stream>>>(src, ch.row_map.get(), ch.col_map.get(),
                                                                             c_.bpc, full, converted);
    if (dither) anti_dither_kernel<<<grid_for(full), kThreads, 0, stream>>>(img_[1].get(), full, img_[0].get());
    flags_kernel<<<grid_for(full), kThreads, 0, stream>>>(img_[0].get(), full, flags_.get());
    column_count_kernel<<<grid_for(full), kThreads, 0, stream>>>(flags_.get(), full, mask_[1].get());
    mask_kernel<<<grid_for(full), kThreads, 0, stream>>>(mask_[1].get(), full, mask_index(ps.w, ps.h), mask_[0].get());
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    int img = 0, mask = 0;  // the buffers holding the current image and mask
    for (int s = 0; s < num_scales; ++s) {
      const ScaleSize& sz = ch.scale[s];
      const PlaneArgs a = plane_args(sz.w, sz.h);
      if (sz.decimate) {
        decimate_kernel<<<grid_for(a), kThreads, 0, stream>>>(img_[img].get(), mask_[mask].get(), a,
                                                              img_[1 - img].get(), mask_[1 - mask].get());
        img ^= 1;
        mask ^= 1;
      }
      mode_kernel<<<grid_for(a), kThreads, 0, stream>>>(img_[img].get(), a, img_[1 - img].get());
      img ^= 1;
      CValueArgs ca{img_[img].get(), mask_[mask].get(), a, ps.window >> 1, c_.params, reciprocal_.get(),
                    c_values_.get()};
      const dim3 cgrid(blocks_for(sz.w, kStrip), blocks_for(sz.h, kSegmentRows));
      c_value_kernel<<<cgrid, kCValueThreads, 0, stream>>>(ca);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      const u32 n = sz.w * sz.h;
      if (heat) {
        EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(heat, c_values_.get(), sizeof(float) * n, cudaMemcpyDeviceToHost, stream));
        heat += n;
      }
      pool(n, sz.k, sums + s, stream);
    }
  }

  void pool(u32 n, u32 k, GlobalSum* sum, cuda::Stream stream) {
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(counts_.get(), 0, sizeof(PoolCounts), stream));
    const unsigned blocks = std::max(1u, std::min(1024u, blocks_for(n, 8 * kThreads)));
    topk_high_kernel<<<blocks, kThreads, 0, stream>>>(c_values_.get(), n, counts_.get());
    topk_find_kernel<<<1, kThreads, 0, stream>>>(k, counts_.get());
    topk_split_kernel<<<blocks, kThreads, 0, stream>>>(c_values_.get(), n, counts_.get(), sum);
    topk_finish_kernel<<<1, kThreads, 0, stream>>>(k, counts_.get(), sum);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
  }

  double score(const Chain& ch, const GlobalSum* sums) const {
    double pooled[num_scales];
    for (int s = 0; s < num_scales; ++s) {
      Acc acc;
      acc.clear();
      for (int i = 0; i < Acc::kLimbs; ++i) acc.limb[i] = static_cast<std::int64_t>(sums[s].limb[i]);
      acc.flags = sums[s].flags;
      pooled[s] = pooled_value(acc, ch.scale[s].k);
    }
    return frame_score(pooled, ch.setup->window);
  }

  const Config& c_;
  unsigned stride_ = 0;
  Chain dist_, ref_;
  cuda::DeviceBuffer<u16> img_[2];
  cuda::DeviceBuffer<u8> mask_[2], flags_;
  cuda::DeviceBuffer<float> c_values_, reciprocal_;
  cuda::DeviceBuffer<PoolCounts> counts_;
  cuda::DeviceBuffer<GlobalSum> sums_;
  cuda::PinnedBuffer<GlobalSum> host_sums_;  // the graph's last copy lands here
  cuda::PinnedBuffer<float> host_heat_;      // heatmaps_path: the five c-value maps
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) { return std::make_unique<CambiCudaWorker>(c); }

}  // namespace exactvmaf::cambi
