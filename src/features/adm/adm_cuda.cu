// Integer ADM on the device. Per frame, on the worker's stream:
//
//   memset of the counters
//   dwt_decouple_kernel, scales 0, 1, 2, 3 (one launch each)
//   cm_kernel for scale 0 (on a side stream, forked after scale 0's
//     dwt_decouple_kernel and joined before the copy: it reads only scale 0's
//     planes and writes only scale 0's totals, so it overlaps scales 1..3)
//   cm_kernel for scales 1..3 (one launch)
//   one copy of the 36 per-scale totals into the pinned result buffer
//
// dwt_decouple_kernel: a block makes kDwtTile samples of one band row for
// the reference and the distorted frame. It runs the vertical pass
// (dwt0_vertical_row / dwt_vertical_row on one column) for the 2 * kDwtTile +
// 2 source columns its outputs read into shared memory, then per sample the
// horizontal pass (dwt0_h_* / dwt_h_*), the decouple (decouple0_sample /
// decouple_s123_sample with its fp64 islands) and the CSF of both decoupled
// parts inside the decouple region, reduced per masking pass to two int32
// sums over the bands (masking_sums0 / masking_sums_s123: flt_sum, the /30
// twins, and centre, the threshold's own-sample terms), and the denominator's
// cube of the reference bands inside the scored region. Only what the next
// steps read is stored: the approximation band (the next scale's input), r
// and a per detail band, and the two sums of each pass (4 int32 planes, not
// 12 CSF planes). The denominator's per-block sums are added atomically to a
// per-row counter.
//
// cm_kernel: one block (kCmThreads) per scored row. Per sample and pass the
// threshold is masking_threshold_from_sums (the 8 neighbours' flt_sum plus
// centre: cm0_row's / cm_s123_row's 27 terms regrouped by position, same bits,
// proof in adm_math.hpp) and the cubes are cm0_sample_cubes /
// cm_s123_sample_cubes (what the row functions call per column). The block's
// sums are the row's sums, which thread 0 shifts as the CPU does per row and
// adds to the scale's totals, together with the row's shifted denominator.
//
// Every sum is an integer sum (uint64 arithmetic, modulo 2^64 as the CPU's
// int64/uint64 ones): exact in any order, so the block and atomic orders do
// not matter. The per-frame tail (cube roots, pow, the scores) is the CPU's
// host code in finish().
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_arith.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/adm/adm_cuda.hpp"
#include "features/adm/adm_math.hpp"
#include "numeric/device/arith_counts.cuh"
#include "numeric/fp32pair.hpp"

namespace exactvmaf::adm {

namespace {

using ull = unsigned long long;

constexpr int kDwtTile = 128;   // band samples (and threads) per DWT block
constexpr int kSpan = 2 * kDwtTile + 2;  // source columns read by one DWT block
constexpr int kCmThreads = 128;  // threads per scored row of cm_kernel
// Blocks of cm_kernel per SM the register budget must allow: 65536 / (128 *
// 12) caps ptxas at 40 registers a thread (it allocates in steps of 8): 48 of
// 64 warps resident, where 48 registers (its choice unbounded) would give 40.
// At 40 there are no spills (ptxas -v); at 32 (16 blocks) there are.
constexpr int kCmMinBlocks = 12;
constexpr unsigned kMaxGridY = 65535;
constexpr int kPerScale = 9;  // num h/v/d, aim h/v/d, den h/v/d
constexpr int kCountsAt = num_scales * kPerScale;
constexpr int kTotals = kCountsAt + rmath::device::kArithCounts;  // then the fp32pair island counts

// The stored band planes of one scale: kind x (h, v, d), each stride x rows.
enum Kind : int { kR = 0, kA, kKinds };
// The masking sums of one scale (int32, stride x rows each): per pass
// (numerator: CSF of a, masks r; aim: CSF of r, masks a) flt_sum and centre.
enum SumKind : int { kNumFltSum = 0, kNumCentre, kAimFltSum, kAimCentre, kSumKinds };

struct SumPlanes {
  i32* base = nullptr;
  std::ptrdiff_t stride = 0, plane = 0;
  __host__ __device__ i32* at(int kind) const { return base + kind * plane; }
};

template <class T>
struct BandPlanes {
  T* base = nullptr;
  std::ptrdiff_t stride = 0, plane = 0;
  __host__ __device__ T* at(int kind, int band) const { return base + (kind * 3 + band) * plane; }
  __device__ Bands3<const T> set(int kind) const { return {at(kind, 0), at(kind, 1), at(kind, 2), stride}; }
};

// Sizes, regions and shift constants of one scale (host-computed, as the CPU
// worker computes them).
struct ScaleGeometry {
  int w_in = 0, h_in = 0;  // DWT input (scale 0: the picture)
  int w = 0, h = 0;        // band size
  Region dr, sr;           // decouple/CSF region, scored region
  // Denominator: per-sample cube (scales 1..3), per-row rounding shift, and
  // the tail's divisor.
  u32 den_shift_sq = 0, den_shift_cub = 0;
  u64 den_add_cub = 0;
  u32 den_shift_accum = 0;
  u64 den_add_accum = 0;
  double den_shift_csf = 0;
  // Numerator: cube shifts (scale 0: cm0; scales 1..3: shift_cub/add_cub)
  // and the per-row shift.
  Cm0Shifts cm0;
  u32 cm_shift_cub = 0;
  i64 cm_add_cub = 0;
  RowShift rs;
};

ScaleGeometry scale_geometry(int scale, int w_in, int h_in) {
  ScaleGeometry g;
  g.w_in = w_in;
  g.h_in = h_in;
  g.w = band_size(w_in);
  g.h = band_size(h_in);
  g.dr = decouple_region(g.w, g.h);
  g.sr = score_region(g.w, g.h);
  const Region& sr = g.sr;
  if (scale == 0) {
    const u64 area = static_cast<u64>(sr.bottom - sr.top) * static_cast<u64>(sr.right - sr.left);
    const int shift_accum = static_cast<int>(ceil_log2(area)) - 20 > 0 ? static_cast<int>(ceil_log2(area)) - 20 : 0;
    g.den_shift_accum = static_cast<u32>(shift_accum);
    g.den_add_accum = shift_accum > 0 ? u64{1} << (shift_accum - 1) : 0;
    g.den_shift_csf = pow2(static_cast<double>(18 - shift_accum));
    g.cm0 = cm0_shifts(g.w);
  } else {
    g.den_shift_cub = ceil_log2(static_cast<u64>(sr.right - sr.left));
    g.den_add_cub = half_of_pow2(g.den_shift_cub);
    g.den_shift_accum = ceil_log2(static_cast<u64>(sr.bottom - sr.top));
    g.den_add_accum = half_of_pow2(g.den_shift_accum);
    g.den_shift_sq = den_s123_shift_sq(scale);
    const u32 convert = scale == 1 ? 32u : scale == 2 ? 27u : 23u;
    g.den_shift_csf = pow2(static_cast<double>(convert - g.den_shift_accum - g.den_shift_cub));
    g.cm_shift_cub = ceil_log2(static_cast<u64>(g.w));
    g.cm_add_cub = half_of_pow2(g.cm_shift_cub);
  }
  g.rs = cm_row_shift(g.h);
  return g;
}

__device__ __forceinline__ bool inside(const Region& r, int i, int j) {
  return i >= r.top && i < r.bottom && j >= r.left && j < r.right;
}

// Adds N values over the block; the sums are valid in thread 0.
template <int N, int Threads>
__device__ __forceinline__ void block_sum(ull (&v)[N], ull (&scratch)[Threads / 32][N]) {
  for (int n = 0; n < N; ++n)
    for (int off = 16; off > 0; off /= 2) v[n] += __shfl_down_sync(0xffffffffu, v[n], off);
  if (threadIdx.x % 32 == 0)
    for (int n = 0; n < N; ++n) scratch[threadIdx.x / 32][n] = v[n];
  __syncthreads();
  if (threadIdx.x == 0)
    for (int n = 0; n < N; ++n) {
      ull s = 0;
      for (int w = 0; w < Threads / 32; ++w) s += scratch[w][n];
      v[n] = s;
    }
  __syncthreads();  // scratch is reused by the next call
}

// ---- DWT, decouple, CSF, denominator cubes ------------------------------------

template <class Band>
struct DwtArgs {
  const void* src[2] = {nullptr, nullptr};  // ref, dis: the picture (scale 0) or the previous a bands (int32)
  std::ptrdiff_t src_stride[2] = {0, 0};    // in samples
  int w_in = 0, h_in = 0, scale = 0;
  unsigned bpc = 8;
  bool detail = true;  // decouple, CSF and denominator (false: scale 0 under adm_skip_scale0)
  bool aim = true;     // also a and the CSF of r (false under adm_skip_aim)
  ScaleGeometry g;
  std::uint64_t gain_bits = 0;  // the gain limit's bits: no fp64 register in the fp32pair kernels
  const i32* lookup = nullptr;
  ull* arith_counts = nullptr;
  u32 i_rfactor[3] = {0, 0, 0};
  i32* next_a[2] = {nullptr, nullptr};  // the approximation bands for the next scale (null at scale 3)
  BandPlanes<Band> bands;
  SumPlanes sums;
  ull* den_rows = nullptr;  // 3 per band row
};

__device__ __forceinline__ MaskingSums masking_sums(const i16 (&v)[3], const u32 (&f)[3]) {
  return masking_sums0(v[0], v[1], v[2], f);
}
__device__ __forceinline__ MaskingSums masking_sums(const i32 (&v)[3], const u32 (&f)[3]) {
  return masking_sums_s123(v[0], v[1], v[2], f);
}

// Band is int16 at scale 0 (Sample: the picture's uint8_t/uint16_t), int32 at
// scales 1..3 (Sample int32).
// Arith: the islands' fp64 policy (rmath::NativeF64 or rmath::Fp32PairArith).
template <class Band, class Sample, class Arith>
__global__ void __launch_bounds__(kDwtTile) dwt_decouple_kernel(const DwtArgs<Band> p) {
  constexpr bool scale0 = std::is_same_v<Band, i16>;
  const double gain = __longlong_as_double(static_cast<long long>(p.gain_bits));
  Arith arith;
  __shared__ Band lo[2][kSpan], hi[2][kSpan];
  __shared__ ull den_scratch[kDwtTile / 32][3];
  const ScaleGeometry& g = p.g;
  const int j0 = static_cast<int>(blockIdx.x) * kDwtTile;
  const int x = static_cast<int>(threadIdx.x), j = j0 + x;
  const Sample* src[2] = {static_cast<const Sample*>(p.src[0]), static_cast<const Sample*>(p.src[1])};
  for (int i = static_cast<int>(blockIdx.y); i < g.h; i += static_cast<int>(gridDim.y)) {
    // Vertical pass at the source columns of taps 2j - 1 .. 2j + 2 (mirrored
    // as dwt_src_index mirrors them); column t of the span is tap t % 2 of
    // output j0 + t / 2.
    for (int t = x; t < kSpan; t += kDwtTile) {
      if (2 * j0 - 1 + t > 2 * g.w) break;  // read by no output of this row
      const int col = dwt_src_index(j0 + t / 2, t % 2, g.w_in);
      for (int k = 0; k < 2; ++k) {
        if constexpr (scale0)
          dwt0_vertical_row(src[k] + col, p.src_stride[k], 1, g.h_in, i, p.bpc, &lo[k][t],
                            p.detail ? &hi[k][t] : nullptr);
        else
          dwt_vertical_row(src[k] + col, p.src_stride[k], 1, g.h_in, i, p.scale, &lo[k][t], &hi[k][t]);
      }
    }
    __syncthreads();
    ull den[3] = {0, 0, 0};
    if (j < g.w) {
      Band band[2][3];  // h, v, d of ref (0) and dis (1)
      for (int k = 0; k < 2; ++k) {
        const Band* l = lo[k] + 2 * x;
        const Band* hh = hi[k] + 2 * x;
        Band a;
        if constexpr (scale0) {
          a = dwt0_h_lo(l[0], l[1], l[2], l[3]);
          if (p.detail) {
            band[k][0] = dwt0_h_lo(hh[0], hh[1], hh[2], hh[3]);
            band[k][1] = dwt0_h_hi(l[0], l[1], l[2], l[3]);
            band[k][2] = dwt0_h_hi(hh[0], hh[1], hh[2], hh[3]);
          }
        } else {
          const i64 add = dwt_hp_add(p.scale);
          const int shift = dwt_hp_shift(p.scale);
          a = dwt_h_lo(l[0], l[1], l[2], l[3], add, shift);
          band[k][0] = dwt_h_lo(hh[0], hh[1], hh[2], hh[3], add, shift);
          band[k][1] = dwt_h_hi(l[0], l[1], l[2], l[3], add, shift);
          band[k][2] = dwt_h_hi(hh[0], hh[1], hh[2], hh[3], add, shift);
        }
        if (p.next_a[k]) p.next_a[k][static_cast<std::ptrdiff_t>(i) * g.w + j] = a;
      }
      if (p.detail && inside(g.dr, i, j)) {
        Band r[3], a[3];
        if constexpr (scale0)
          decouple0_sample(band[0][0], band[0][1], band[0][2], band[1][0], band[1][1], band[1][2], gain, p.lookup,
                           &r[0], &r[1], &r[2], &a[0], &a[1], &a[2], arith);
        else
          decouple_s123_sample(band[0][0], band[0][1], band[0][2], band[1][0], band[1][1], band[1][2], gain,
                               p.lookup, &r[0], &r[1], &r[2], &a[0], &a[1], &a[2], arith);
        const std::ptrdiff_t off = static_cast<std::ptrdiff_t>(i) * p.bands.stride + j;
        for (int b = 0; b < 3; ++b) p.bands.at(kR, b)[off] = r[b];
        const MaskingSums num = masking_sums(a, p.i_rfactor);  // the numerator masks r by the CSF of a
        p.sums.at(kNumFltSum)[off] = num.flt_sum;
        p.sums.at(kNumCentre)[off] = num.centre;
        if (p.aim) {
          for (int b = 0; b < 3; ++b) p.bands.at(kA, b)[off] = a[b];
          const MaskingSums aim = masking_sums(r, p.i_rfactor);  // the aim masks a by the CSF of r
          p.sums.at(kAimFltSum)[off] = aim.flt_sum;
          p.sums.at(kAimCentre)[off] = aim.centre;
        }
      }
      if (p.detail && inside(g.sr, i, j))
        for (int b = 0; b < 3; ++b) {
          if constexpr (scale0)
            den[b] = den0_cube(band[0][b]);
          else
            den[b] = den_s123_cube(band[0][b], p.g.den_shift_sq, p.g.den_shift_cub, p.g.den_add_cub);
        }
    }
    if (p.detail && i >= g.sr.top && i < g.sr.bottom) {  // the same for the whole block
      block_sum<3, kDwtTile>(den, den_scratch);
      if (threadIdx.x == 0)
        for (int b = 0; b < 3; ++b)
          if (den[b]) atomicAdd(p.den_rows + 3 * static_cast<std::ptrdiff_t>(i) + b, den[b]);
    }
    __syncthreads();  // lo and hi are reused by the next row
  }
  rmath::device::add_arith_counts(arith, p.arith_counts);
}

// ---- contrast masking: the numerator and aim row sums ---------------------------

template <class Band>
struct CmArgs {
  BandPlanes<Band> bands;
  SumPlanes sums;
  ScaleGeometry g;
  bool aim = true;
  u32 i_rfactor[3] = {0, 0, 0};
  const ull* den_rows = nullptr;
  ull* totals = nullptr;  // this scale's kPerScale values
};

template <class Band>
struct CmLaunch {
  CmArgs<Band> s[3];  // scale 0: s[0] only; scales 1..3: s[0..2]
};

// The masked cubes of sample (i, j) of one pass: the threshold from the
// flt_sum rows ip, i, in and the centre sum, then the cubes of the scored
// band `src` at (i, j). Offsets are int (a plane has fewer than 2^31
// samples): 32-bit indices keep the pass within the register budget.
template <class Band>
__device__ __forceinline__ CmRowSums cm_sample(const CmArgs<Band>& p, int src, int flt_sum, int centre, int row_up,
                                               int row, int row_dn, int jl, int j, int jr) {
  constexpr bool scale0 = std::is_same_v<Band, i16>;
  const i32* fs = p.sums.at(flt_sum);
  const int at = row + j;
  const i32 thr = masking_threshold_from_sums(fs + row_up, fs + row, fs + row_dn, jl, j, jr, p.sums.at(centre)[at]);
  const Band sh = p.bands.at(src, 0)[at], sv = p.bands.at(src, 1)[at], sd = p.bands.at(src, 2)[at];
  if constexpr (scale0)
    return cm0_sample_cubes(sh, sv, sd, thr, p.i_rfactor, p.g.cm0);
  else
    return cm_s123_sample_cubes(sh, sv, sd, thr, p.i_rfactor, p.g.cm_shift_cub, p.g.cm_add_cub);
}

// One masking pass over scored row i (columns split over the block): its
// three row sums, shifted per row as the CPU does (int64 (sum + add) >>
// shift) and added to totals[0..2] by thread 0. The passes run one after the
// other so that only one pass's accumulators and plane pointers are live.
template <class Band>
__device__ __forceinline__ void cm_pass(const CmArgs<Band>& p, int src, int flt_sum, int centre, int ip, int i,
                                        int in, ull* totals, ull (&scratch)[kCmThreads / 32][3]) {
  const ScaleGeometry& g = p.g;
  const int stride = static_cast<int>(p.sums.stride);  // the band planes' stride too (both: the band width)
  const int row_up = ip * stride, row = i * stride, row_dn = in * stride;
  ull v[3] = {0, 0, 0};
  for (int j = g.sr.left + static_cast<int>(threadIdx.x); j < g.sr.right; j += kCmThreads) {
    const CmRowSums c = cm_sample(p, src, flt_sum, centre, row_up, row, row_dn, cm_prev(j), j, cm_next(j, g.w));
    v[0] += static_cast<ull>(c.h);
    v[1] += static_cast<ull>(c.v);
    v[2] += static_cast<ull>(c.d);
  }
  block_sum<3, kCmThreads>(v, scratch);
  if (threadIdx.x == 0)
#pragma unroll
    for (int k = 0; k < 3; ++k) {  // constant bounds: v stays in registers
      const i64 shifted = static_cast<i64>(v[k] + static_cast<ull>(g.rs.add)) >> g.rs.shift;
      atomicAdd(totals + k, static_cast<ull>(shifted));
    }
}

template <class Band>
__device__ __forceinline__ void cm_rows(const CmArgs<Band>& p, ull (&scratch)[kCmThreads / 32][3]) {
  const ScaleGeometry& g = p.g;
  const int rows = g.sr.bottom - g.sr.top;
  for (int row = static_cast<int>(blockIdx.x); row < rows; row += static_cast<int>(gridDim.x)) {
    const int i = g.sr.top + row;
    const int ip = cm_prev(i), in = cm_next(i, g.h);
    cm_pass(p, kR, kNumFltSum, kNumCentre, ip, i, in, p.totals, scratch);
    if (p.aim) cm_pass(p, kA, kAimFltSum, kAimCentre, ip, i, in, p.totals + 3, scratch);
    if (threadIdx.x == 0)  // the row's denominator, shifted per row (uint64) as the CPU does
      for (int b = 0; b < 3; ++b) {
        const ull d = p.den_rows[3 * static_cast<std::ptrdiff_t>(i) + b];
        atomicAdd(p.totals + 6 + b, (d + g.den_add_accum) >> g.den_shift_accum);
      }
  }
}

template <class Band>
__global__ void __launch_bounds__(kCmThreads, kCmMinBlocks) cm_kernel(const CmLaunch<Band> launch) {
  __shared__ ull scratch[kCmThreads / 32][3];
  switch (blockIdx.y) {  // constant indices: the arguments stay in parameter space
    case 0:
      cm_rows(launch.s[0], scratch);
      break;
    case 1:
      cm_rows(launch.s[1], scratch);
      break;
    default:
      cm_rows(launch.s[2], scratch);
      break;
  }
}

__global__ void div_lookup_kernel(i32* table) {
  const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < div_lookup_size) table[k] = div_lookup_entry(k);
}

// ---- the worker ---------------------------------------------------------------

class AdmCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit AdmCudaWorker(const Config& c) : c_(c) {
    int w = static_cast<int>(c.w), h = static_cast<int>(c.h);
    for (int s = 0; s < num_scales; ++s) {
      g_[s] = scale_geometry(s, w, h);
      w = g_[s].w;
      h = g_[s].h;
    }
  }
  ~AdmCudaWorker() override {
    if (side_) (void)cudaStreamSynchronize(side_);
    for (cudaEvent_t e : {scale0_ready_, scale0_done_})
      if (e) (void)cudaEventDestroy(e);
    if (side_) (void)cudaStreamDestroy(side_);
  }

  cuda::PlaneNeeds planes() const override { return cuda::luma_pair_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    cuda::require_luma_pair(frame, c_.w, c_.h, "adm");
    EXACTVMAF_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
    EXACTVMAF_CUDA_CHECK(cudaEventCreateWithFlags(&scale0_ready_, cudaEventDisableTiming));
    EXACTVMAF_CUDA_CHECK(cudaEventCreateWithFlags(&scale0_done_, cudaEventDisableTiming));
    const cuda::DevicePlane &ref = frame.ref.plane[0], &dis = frame.dist.plane[0];
    // Band planes: scale 0 int16, scales 1..3 int32, stride = band width.
    const auto plane_of = [&](int s) { return static_cast<std::size_t>(g_[s].w) * static_cast<std::size_t>(g_[s].h); };
    std::size_t n32 = 0, n_sums = 0, n_next = 0, n_rows = 0;
    for (int s = 1; s < num_scales; ++s) n32 += kKinds * 3 * plane_of(s);
    for (int s = 0; s < num_scales; ++s) n_sums += kSumKinds * plane_of(s);
    for (int s = 0; s + 1 < num_scales; ++s) n_next += 2 * plane_of(s);
    for (int s = 0; s < num_scales; ++s) n_rows += 3 * static_cast<std::size_t>(g_[s].h);
    lookup_ = cuda::DeviceBuffer<i32>(div_lookup_size);
    bands16_ = cuda::DeviceBuffer<i16>(kKinds * 3 * plane_of(0));
    bands32_ = cuda::DeviceBuffer<i32>(n32);
    sums_ = cuda::DeviceBuffer<i32>(n_sums);
    next_a_ = cuda::DeviceBuffer<i32>(n_next);
    counters_ = cuda::DeviceBuffer<ull>(kTotals + n_rows);
    result_ = cuda::PinnedBuffer<ull>(kTotals);

    // Band planes of each scale and the next-scale inputs, carved out of the
    // allocations; den_rows of each scale after the totals.
    std::size_t o32 = 0, osums = 0, onext = 0, orows = kTotals;
    i32* next[num_scales][2] = {};
    for (int s = 0; s < num_scales; ++s) {
      // Same stride (the band width) as the band planes: cm_sample indexes both with one offset.
      sum_planes_[s] = {sums_.get() + osums, g_[s].w, static_cast<std::ptrdiff_t>(plane_of(s))};
      osums += kSumKinds * plane_of(s);
      if (s == 0) {
        planes16_ = {bands16_.get(), g_[0].w, static_cast<std::ptrdiff_t>(plane_of(0))};
      } else {
        planes32_[s] = {bands32_.get() + o32, g_[s].w, static_cast<std::ptrdiff_t>(plane_of(s))};
        o32 += kKinds * 3 * plane_of(s);
      }
      if (s + 1 < num_scales)
        for (int k = 0; k < 2; ++k) {
          next[s][k] = next_a_.get() + onext;
          onext += plane_of(s);
        }
      den_rows_[s] = counters_.get() + orows;
      orows += 3 * static_cast<std::size_t>(g_[s].h);
    }

    // Kernel arguments (the same every frame).
    dwt0_ = {};
    dwt0_.src[0] = ref.data;
    dwt0_.src[1] = dis.data;
    const std::size_t sample_bytes = c_.bpc == 8 ? 1 : 2;
    dwt0_.src_stride[0] = static_cast<std::ptrdiff_t>(ref.pitch / sample_bytes);
    dwt0_.src_stride[1] = static_cast<std::ptrdiff_t>(dis.pitch / sample_bytes);
    fill_common(dwt0_, 0, next[0]);
    dwt0_.detail = !c_.skip_scale0;
    dwt0_.bands = planes16_;
    for (int s = 1; s < num_scales; ++s) {
      DwtArgs<i32>& d = dwt_[s];
      d = {};
      d.src[0] = next[s - 1][0];
      d.src[1] = next[s - 1][1];
      d.src_stride[0] = d.src_stride[1] = g_[s - 1].w;
      fill_common(d, s, next[s]);
      d.bands = planes32_[s];
    }
    cm0_ = {};
    fill_cm(cm0_.s[0], 0, planes16_);
    cm_ = {};
    for (int s = 1; s < num_scales; ++s) fill_cm(cm_.s[s - 1], s, planes32_[s]);

    div_lookup_kernel<<<(div_lookup_size + 255) / 256, 256, 0, stream>>>(lookup_.get());
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    cuda::with_device_arith(frame.arith, [&](auto arith) { enqueue_with<decltype(arith)>(stream); });
  }

  cuda::DeviceArithCounts arith_counts() const override { return counts_; }

 private:
  template <class Arith>
  void enqueue_with(cuda::Stream stream) {
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream));
    const auto grid_of = [](const ScaleGeometry& g) {
      return dim3(static_cast<unsigned>((g.w + kDwtTile - 1) / kDwtTile),
                  static_cast<unsigned>(g.h) < kMaxGridY ? static_cast<unsigned>(g.h) : kMaxGridY);
    };
    if (c_.bpc == 8)
      dwt_decouple_kernel<i16, std::uint8_t, Arith><<<grid_of(g_[0]), kDwtTile, 0, stream>>>(dwt0_);
    else
      dwt_decouple_kernel<i16, std::uint16_t, Arith><<<grid_of(g_[0]), kDwtTile, 0, stream>>>(dwt0_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    if (!c_.skip_scale0) {  // scale 0's masking beside scales 1..3
      EXACTVMAF_CUDA_CHECK(cudaEventRecord(scale0_ready_, stream));
      EXACTVMAF_CUDA_CHECK(cudaStreamWaitEvent(side_, scale0_ready_, 0));
      cm_kernel<i16><<<dim3(static_cast<unsigned>(rows_of(0)), 1), kCmThreads, 0, side_>>>(cm0_);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      EXACTVMAF_CUDA_CHECK(cudaEventRecord(scale0_done_, side_));
    }
    for (int s = 1; s < num_scales; ++s) {
      dwt_decouple_kernel<i32, i32, Arith><<<grid_of(g_[s]), kDwtTile, 0, stream>>>(dwt_[s]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    }
    int rows = 0;
    for (int s = 1; s < num_scales; ++s) rows = rows_of(s) > rows ? rows_of(s) : rows;
    cm_kernel<i32><<<dim3(static_cast<unsigned>(rows), 3), kCmThreads, 0, stream>>>(cm_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    if (!c_.skip_scale0) EXACTVMAF_CUDA_CHECK(cudaStreamWaitEvent(stream, scale0_done_, 0));
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), counters_.get(), result_.bytes(), cudaMemcpyDeviceToHost, stream));
  }

 public:
  bool reads_host_samples() const override { return false; }
  // The CPU worker's tail (adm_cpu.cpp: scale0, scale_s123, extract) on the
  // device's per-scale totals.
  void finish(const FrameInput&, FrameOutput& out) override {
    counts_ += {result_.get()[kCountsAt], result_.get()[kCountsAt + 1], result_.get()[kCountsAt + 2]};
    float num[num_scales], den[num_scales], aim[num_scales];
    for (int s = 0; s < num_scales; ++s) {
      const ScaleGeometry& g = g_[s];
      const ull* t = result_.get() + s * kPerScale;
      if (s == 0 && c_.skip_scale0) {
        num[0] = 0.0f;
        den[0] = 1e-10f;
        aim[0] = 0.0f;
        continue;
      }
      const u64 dacc[3] = {t[6], t[7], t[8]};
      den[s] = den_tail(dacc, g.den_shift_csf, c_.factors[s].rfactor, g.sr, c_.noise_weight);
      const i64 nacc[3] = {static_cast<i64>(t[0]), static_cast<i64>(t[1]), static_cast<i64>(t[2])};
      const i64 aacc[3] = {static_cast<i64>(t[3]), static_cast<i64>(t[4]), static_cast<i64>(t[5])};
      if (s == 0) {
        num[0] = num0_tail(nacc, g.cm0, g.rs.shift, g.sr, c_.noise_weight);
        aim[0] = c_.skip_aim ? 0.0f : num0_tail(aacc, g.cm0, g.rs.shift, g.sr, 0.0);
      } else {
        num[s] = num_s123_tail(nacc, s, g.cm_shift_cub, g.rs.shift, g.sr, c_.noise_weight);
        aim[s] = c_.skip_aim ? 0.0f : num_s123_tail(aacc, s, g.cm_shift_cub, g.rs.shift, g.sr, 0.0);
      }
    }
    const FrameScores fs = frame_scores(num, den, aim, static_cast<int>(c_.w), static_cast<int>(c_.h),
                                        c_.dlm_weight, c_.min_val);
    write_frame_outputs(fs, c_.debug, out);
  }

 private:
  int rows_of(int s) const { return g_[s].sr.bottom - g_[s].sr.top; }

  template <class Band>
  void fill_common(DwtArgs<Band>& d, int s, i32* const next[2]) const {
    d.w_in = g_[s].w_in;
    d.h_in = g_[s].h_in;
    d.scale = s;
    d.bpc = c_.bpc;
    d.detail = true;
    d.aim = !c_.skip_aim;
    d.g = g_[s];
    d.gain_bits = __builtin_bit_cast(std::uint64_t, c_.gain_limit);
    d.lookup = lookup_.get();
    d.arith_counts = counters_.get() + kCountsAt;
    for (int b = 0; b < 3; ++b) d.i_rfactor[b] = c_.factors[s].i_rfactor[b];
    d.next_a[0] = next[0];
    d.next_a[1] = next[1];
    d.den_rows = den_rows_[s];
    d.sums = sum_planes_[s];
  }

  template <class Band>
  void fill_cm(CmArgs<Band>& c, int s, const BandPlanes<Band>& planes) const {
    c.bands = planes;
    c.sums = sum_planes_[s];
    c.g = g_[s];
    c.aim = !c_.skip_aim;
    for (int b = 0; b < 3; ++b) c.i_rfactor[b] = c_.factors[s].i_rfactor[b];
    c.den_rows = den_rows_[s];
    c.totals = counters_.get() + s * kPerScale;
  }

  Config c_;
  ScaleGeometry g_[num_scales];
  cuda::DeviceBuffer<i32> lookup_;
  cuda::DeviceBuffer<i16> bands16_;
  cuda::DeviceBuffer<i32> bands32_;
  cuda::DeviceBuffer<i32> sums_;  // the masking sums of every scale
  cuda::DeviceBuffer<i32> next_a_;
  cuda::DeviceBuffer<ull> counters_;  // kTotals totals, then the per-row denominators of each scale
  ull* den_rows_[num_scales] = {};
  cuda::PinnedBuffer<ull> result_;  // the graph's last copy lands here
  BandPlanes<i16> planes16_;
  BandPlanes<i32> planes32_[num_scales];
  SumPlanes sum_planes_[num_scales];
  DwtArgs<i16> dwt0_;
  DwtArgs<i32> dwt_[num_scales];
  CmLaunch<i16> cm0_;
  CmLaunch<i32> cm_;
  cuda::DeviceArithCounts counts_;
  cudaStream_t side_ = nullptr;  // scale 0's masking, beside scales 1..3
  cudaEvent_t scale0_ready_ = nullptr, scale0_done_ = nullptr;
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<AdmCudaWorker>(c);
}

}  // namespace exactvmaf::adm
