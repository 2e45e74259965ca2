// SpEED-QA on the device: the whole per-frame chain of speed_math.hpp on the
// worker's stream, captured once into the backend's graph; only the frame's
// two scores and flags come back (one small copy). Per frame, 9 kernels plus
// one memset and one copy (11 graph nodes):
//
//   1. decimate: one thread per 16x-decimated sample of every plane (chroma:
//      ref U, dis U, ref V, dis V; temporal: ref[t-1] - ref[t], dis[t-1] -
//      dis[t]): the samples are converted (picture_copy), differenced,
//      prescaled (scaled_sample) on the fly and anti-alias filtered at the
//      decimation point only (filter_at), as the CPU.
//   2. residual: one thread per sample of the truncated plane: sample minus
//      its local mean (filter_at), also written into the independent term Y.
//   3. means: one thread per (plane, block offset): the float sum in row
//      order (a sequential chain; loads in batches of 32 ahead of the adds),
//      a block per plane reading the plane from shared memory, staged there
//      band of rows by band of rows (below).
//   4. covariance: fp64 variant: one thread per (plane, offset pair), the
//      double sum in row order (a sequential chain, batched loads; one warp
//      of chains per block: the few long chains spread over as many SMs as
//      possible), each block reading its plane staged in shared memory
//      in bands, the samples widened to double there once (the conversion
//      is exact; per term it had cost two slow-pipe conversions per chain).
//      fp32pair variant: one warp per (plane, offset pair): speed_math.hpp's
//      exact filter over coalesced rounds of 32 terms, R's chain replayed in
//      Sf64 (products on the lanes, the sums on lane 0) where it cannot decide.
//   5. solve: one block per plane, two groups side by side: warp 0 runs the
//      Householder tridiagonalisation (vectors on lane 0, the products over
//      the warp, each entry a sequential chain), the implicit QR sweeps on
//      lane 0 and the regular/singular decision; warps 1-19 meanwhile run
//      the QR decomposition of K (reflector products in parallel), Q Y and
//      back substitution (a thread per column), used only where K is
//      regular; then all threads: variances (a thread per block).
//   6. entropies: a thread per log2 term (plane, block, eigenvalue), then a
//      thread per (plane, block) adding them in R's order.
//   7. score terms: a thread per (pair, block); 8. score: one warp per
//      ref/dis pair, the float sum on its first thread in block order.
//
// log2 uses R's fast path; an undecided call (about 2^-40 of them) flags the
// frame and finish() recomputes it on the host with the CPU code. The
// prescaling's positions and lanczos4 weights come from the host (Config).
// Kernels 4-6 exist in two variants (--device_fp64, docs/fp64-free.md): R's
// doubles in the device's fp64, or in Sf64 (integer operations only; no
// fp64 instruction in the kernel); the same bits either way.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_arith.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/common/vif_tools_cuda.cuh"
#include "features/speed/speed_cuda.hpp"
#include "features/speed/speed_math.hpp"
#include "numeric/device/arith_counts.cuh"

namespace exactvmaf::speed {

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kChainThreads = 32;    // means and covariance: few long chains, one warp per SM
constexpr unsigned kStageThreads = 256;   // a chain block's threads while it stages its plane
constexpr unsigned kCovarianceBlocks = (covariance_terms + kChainThreads - 1) / kChainThreads;  // per plane
constexpr unsigned kSolveThreads = 640;   // warp 0: eigenvalues; 608 threads (~ 625 entries) the QR solve
constexpr unsigned kMaxPlanes = 4;

enum Flag : unsigned { kUndecided = 1u, kNoConvergence = 2u };

struct Result {
  float score[2];
  int err[2];
  unsigned flags;
  unsigned max_abs[kMaxPlanes];  // per plane: the largest |residual| (float bits), for the fp32pair filter
  unsigned pad;
  unsigned long long arith[rmath::device::kArithCounts];  // fp32pair variant: chains filtered, replayed
};

struct PlaneSource {
  const std::uint8_t* a = nullptr;  // samples (uint8_t at 8 bits, else uint16_t)
  std::size_t pitch_a = 0;
  const std::uint8_t* b = nullptr;  // subtracted plane (speed_temporal), or null
  std::size_t pitch_b = 0;
};

struct Sources {
  PlaneSource p[kMaxPlanes];
};

// A band of plane rows staged in a chain block's shared memory: the row
// stride (in samples) and how many rows a band holds.
struct Band {
  unsigned stride = 0, rows = 0;
};

struct Params {
  Dims dims;
  ScaleMethod method = ScaleMethod::nearest;
  bool scale = false;
  unsigned bpc = 8;
  unsigned planes = 2, pairs = 1;
  Filter antialias, local_mean;
  ScaleAxis axis_x, axis_y;  // device copies of Config's tables
  float sigma_nn = 0.0f;
  std::uint64_t log2_2pie = 0;  // R's double, as its bits (read as the variant's type)
  float base_entropy = 0.0f;
  int weight_var_mode = 0;
  Band mean_band;  // means_kernel's staged rows (floats)
  Band cov_band;   // covariance_kernel's staged rows (the fp64 variant's doubles)
};

// The variant's policy for R's elementary functions and doubles: FastMath
// (fp64) or Sf64Math (Sf64, no fp64 instruction).
template <class Arith>
using MathOf = std::conditional_t<std::is_same_v<Arith, rmath::Fp32PairArith>, Sf64Math, FastMath>;

// Device scratch (one allocation), offsets in floats.
struct DeviceScratch {
  float* dec;       // planes x dec_h x dec_w
  float* resid;     // planes x dec_h x dec_w (truncated region used)
  float* means;     // planes x 25
  float* cov;       // planes x 625
  float* eig;       // planes x 25
  float* y;         // planes x 25 x nb: the independent term
  float* qy;        // planes x 25 x nb: Q Y
  float* x;         // planes x 25 x nb: the solution
  float* entropy;   // planes x nb
  float* variance;  // planes x nb
  std::uint64_t* log2_terms;  // planes x nb x 25: the entropies' log2 terms (R's doubles, as bits)
  float* bscore;    // pairs x nb
  int* plane_err;   // planes
  Result* result;
};

template <class Sample>
struct RawSource {
  PlaneSource s;
  unsigned bpc;
  __device__ float operator()(int y, int x) const {
    const Sample* ra = reinterpret_cast<const Sample*>(s.a + static_cast<std::size_t>(y) * s.pitch_a);
    float v = sample_to_float(ra[x], bpc);
    if (s.b) {
      const Sample* rb = reinterpret_cast<const Sample*>(s.b + static_cast<std::size_t>(y) * s.pitch_b);
      v = v - sample_to_float(rb[x], bpc);
    }
    return v;
  }
};

template <class Sample>
struct ScaledSource {
  RawSource<Sample> raw;
  const Params* p;
  __device__ float operator()(int y, int x) const {
    return scaled_sample(p->method, raw, static_cast<int>(p->dims.orig_w), static_cast<int>(p->dims.orig_h),
                         static_cast<int>(p->dims.scaled_w), static_cast<int>(p->dims.scaled_h), x, y, p->axis_x,
                         p->axis_y);
  }
};

__device__ void flag(Result* r, unsigned f) { atomicOr(&r->flags, f); }

template <class Sample>
__global__ void __launch_bounds__(kThreads) decimate_kernel(const Params p, const Sources src, DeviceScratch s) {
  const Dims& d = p.dims;
  const unsigned per_plane = d.dec_w * d.dec_h;
  const unsigned total = per_plane * p.planes;
  for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const unsigned plane = t / per_plane, k = t % per_plane;
    const int i = static_cast<int>(k / d.dec_w), j = static_cast<int>(k % d.dec_w);
    const RawSource<Sample> raw{src.p[plane], p.bpc};
    float v;
    if (p.scale) {
      const ScaledSource<Sample> scaled{raw, &p};
      v = filter_at(p.antialias.taps, p.antialias.width, scaled, static_cast<int>(d.scaled_w),
                    static_cast<int>(d.scaled_h), i << num_scales, j << num_scales);
    } else {
      v = filter_at(p.antialias.taps, p.antialias.width, raw, static_cast<int>(d.orig_w), static_cast<int>(d.orig_h),
                    i << num_scales, j << num_scales);
    }
    s.dec[t] = v;
  }
}

__global__ void __launch_bounds__(kThreads) residual_kernel(const Params p, DeviceScratch s) {
  const Dims& d = p.dims;
  const unsigned per_plane = d.trunc_w * d.trunc_h;
  const unsigned total = per_plane * p.planes;
  const unsigned nb = d.num_blocks;
  __shared__ unsigned block_max[kMaxPlanes];  // the largest |residual| per plane (bits: ordered as magnitudes)
  if (threadIdx.x < kMaxPlanes) block_max[threadIdx.x] = 0;
  __syncthreads();
  for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const unsigned plane = t / per_plane, k = t % per_plane;
    const unsigned i = k / d.trunc_w, j = k % d.trunc_w;
    const float* dec = s.dec + static_cast<std::size_t>(plane) * d.dec_w * d.dec_h;
    const int dw = static_cast<int>(d.dec_w);
    const float v = dec[i * d.dec_w + j] - filter_at(p.local_mean.taps, p.local_mean.width, PlaneRef{dec, dw}, dw,
                                                     static_cast<int>(d.dec_h), static_cast<int>(i),
                                                     static_cast<int>(j));
    s.resid[static_cast<std::size_t>(plane) * d.dec_w * d.dec_h + i * d.dec_w + j] = v;
    atomicMax(&block_max[plane], __float_as_uint(v) & 0x7fffffffu);
    // compute_independent_term: row (i % 5) * 5 + j % 5, column (i / 5) * blocks_x + j / 5.
    const unsigned row = (i % block_size) * block_size + j % block_size;
    const unsigned col = (i / block_size) * d.blocks_x + j / block_size;
    s.y[static_cast<std::size_t>(plane) * block_elems * nb + row * nb + col] = v;
  }
  __syncthreads();
  if (threadIdx.x < p.planes && block_max[threadIdx.x] != 0) atomicMax(&s.result->max_abs[threadIdx.x], block_max[threadIdx.x]);
}

// The chain kernels reread each residual sample once per chain, from lanes
// that sit up to 4 rows apart (the 25 block offsets), so every chain block
// copies its plane into shared memory, a band of rows at a time (a 4K luma
// plane in doubles, or 8K in floats, is more than a block may have); the
// chains go on from band to band (chain rows [r0, r0 + rows - 4) in the
// band of plane rows [r0, r0 + rows)). Rows are padded to a stride whose
// 25 offsets of one load fall in distinct banks (floats) or mostly distinct
// bank pairs (doubles).
template <class Sample>
__device__ void stage_band(const Dims& d, const float* plane, Band b, unsigned r0, unsigned r1, Sample* shared) {
  __syncthreads();  // the previous band's chains are done with it
  const unsigned n = (r1 - r0) * d.trunc_w;
#pragma unroll 4
  for (unsigned k = threadIdx.x; k < n; k += blockDim.x) {
    const unsigned i = k / d.trunc_w, j = k - i * d.trunc_w;
    shared[i * b.stride + j] = Sample(plane[(r0 + i) * d.dec_w + j]);
  }
  __syncthreads();
}

// The band's last plane row and the chain rows it serves.
struct BandRows {
  unsigned end, chain_end;
};
__device__ BandRows band_rows(const Dims& d, Band b, unsigned r0) {
  const unsigned end = min(r0 + b.rows, d.trunc_h);
  return {end, min(end - (block_size - 1), d.sub_h)};
}

// A block per plane; its first 25 threads run the chains.
__global__ void __launch_bounds__(kStageThreads) means_kernel(const Params p, DeviceScratch s) {
  extern __shared__ __align__(16) unsigned char staged_bytes[];
  float* const staged = reinterpret_cast<float*>(staged_bytes);
  const Dims& d = p.dims;
  const unsigned plane = blockIdx.x, o = threadIdx.x;
  const float* data = s.resid + static_cast<std::size_t>(plane) * d.dec_w * d.dec_h;
  float acc = 0.0f;
  for (unsigned r0 = 0; r0 < d.sub_h;) {
    const BandRows r = band_rows(d, p.mean_band, r0);
    stage_band(d, data, p.mean_band, r0, r.end, staged);
    if (o < block_elems)
      acc = block_mean_rows(staged, p.mean_band.stride, r0, d, o / block_size, o % block_size, r0, r.chain_end, acc);
    r0 = r.chain_end;
  }
  if (o < block_elems) s.means[plane * block_elems + o] = acc / mean_count(d);
}

// A chain block's shared memory at most: a 4K luma plane takes three bands
// of doubles (two of floats), and an SM keeps room for other streams' blocks.
constexpr std::size_t kBandBytes = 96 * 1024;

// The band of `sample` bytes per sample that `bytes` of shared memory hold:
// rows padded to a stride = 5 (mod 128 / sample) samples, so that 16 or 32
// consecutive block offsets (r * stride + c) fall in distinct banks.
Band band_for(const Dims& d, std::size_t sample, std::size_t bytes, const char* feature) {
  const unsigned period = static_cast<unsigned>(128 / sample);
  Band b;
  b.stride = d.trunc_w + (5 + period - d.trunc_w % period) % period;
  const std::size_t rows = bytes / (std::size_t{b.stride} * sample);
  if (rows < block_size)
    throw Error(std::string("--feature ") + feature + ": a decimated plane " + std::to_string(d.trunc_w) +
                " samples wide is too wide for the GPU's shared memory (" + std::to_string(bytes) +
                " bytes per block)");
  b.rows = static_cast<unsigned>(std::min<std::size_t>(rows, d.trunc_h));
  return b;
}

std::size_t band_bytes(Band b, std::size_t sample) { return std::size_t{b.stride} * b.rows * sample; }

// Covariance term k of a plane (0..324) -> its offsets (xi, yi), yi <= xi.
__device__ void offsets_of_term(unsigned k, unsigned* xi, unsigned* yi) {
  unsigned x = 0;
  while (k > x) {
    k -= x + 1;
    ++x;
  }
  *xi = x;
  *yi = k;
}

// kCovarianceBlocks blocks per plane; the first warp of each runs its chains
// (the fp64 variant: T is double).
template <class Arith>
__global__ void __launch_bounds__(kStageThreads) covariance_kernel(const Params p, DeviceScratch s) {
  using T = real_of<MathOf<Arith>>;
  extern __shared__ __align__(16) unsigned char staged_bytes[];
  T* const staged = reinterpret_cast<T*>(staged_bytes);
  const Dims& d = p.dims;
  const unsigned plane = blockIdx.x / kCovarianceBlocks;
  const unsigned term = blockIdx.x % kCovarianceBlocks * kChainThreads + threadIdx.x;
  const bool chain = threadIdx.x < kChainThreads && term < covariance_terms;
  unsigned xi = 0, yi = 0;
  if (chain) offsets_of_term(term, &xi, &yi);
  const float* data = s.resid + static_cast<std::size_t>(plane) * d.dec_w * d.dec_h;
  const float* means = s.means + plane * block_elems;
  const T mean_x = T(means[xi]), mean_y = T(means[yi]);
  T acc = T(0.0);
  for (unsigned r0 = 0; r0 < d.sub_h;) {
    const BandRows r = band_rows(d, p.cov_band, r0);
    stage_band(d, data, p.cov_band, r0, r.end, staged);
    if (chain)
      acc = block_covariance_rows<T, T>(staged, p.cov_band.stride, r0, d, mean_x, mean_y, xi, yi, r0, r.chain_end, acc);
    r0 = r.chain_end;
  }
  if (!chain) return;
  const float v = f32_of(acc / term_count<T>(d));
  float* cov = s.cov + plane * block_elems * block_elems;
  cov[xi * block_elems + yi] = v;
  cov[yi * block_elems + xi] = v;
}

// The fp32pair variant: a warp per chain (block_covariance_filter's terms,
// lane l taking the row's terms l, l + 32, ...; the prefixes from a warp scan
// continued across rounds).
constexpr unsigned kFilterThreads = 128;
__global__ void __launch_bounds__(kFilterThreads) covariance_filter_kernel(const Params p, DeviceScratch s) {
  const unsigned chain = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (chain >= p.planes * covariance_terms) return;  // whole warps
  constexpr unsigned kAll = 0xffffffffu;
  const unsigned plane = chain / covariance_terms;
  unsigned xi, yi;
  offsets_of_term(chain % covariance_terms, &xi, &yi);
  const Dims& d = p.dims;
  const float* data = s.resid + static_cast<std::size_t>(plane) * d.dec_w * d.dec_h;
  const std::ptrdiff_t stride = d.dec_w;
  const float* means = s.means + plane * block_elems;
  const float mean_x = means[xi], mean_y = means[yi];
  const unsigned rx = xi / block_size, cx = xi % block_size, ry = yi / block_size, cy = yi % block_size;
  CovExact c = cov_start(s.result->max_abs[plane]);
  const CovExact start = c;
  float run = 0.0f, prefix_abs = 0.0f;
  unsigned rounds = 0;
  for (unsigned i = 0; i < d.sub_h; ++i) {
    const float* row_x = data + static_cast<std::ptrdiff_t>(rx + i) * stride + cx;
    const float* row_y = data + static_cast<std::ptrdiff_t>(ry + i) * stride + cy;
    for (unsigned j0 = 0; j0 < d.sub_w; j0 += 32, ++rounds) {
      const unsigned j = j0 + lane;
      const bool active = j < d.sub_w;
      float v = active ? cov_add_term(c, row_x[j], mean_x, row_y[j], mean_y) : 0.0f;
#pragma unroll
      for (unsigned o = 1; o < 32; o <<= 1) {
        const float w = __shfl_up_sync(kAll, v, o);
        if (lane >= o) v += w;
      }
      const float f = run + v;
      if (active) prefix_abs += abs_f32(f);
      run = __shfl_sync(kAll, f, 31);
    }
  }
  // The warp's totals on lane 0 (tree sums: 5 more additions deep).
#pragma unroll
  for (unsigned o = 16; o > 0; o >>= 1) {
    CovExact other = start;
    other.lo = __shfl_down_sync(kAll, c.lo, o);
    other.hi = __shfl_down_sync(kAll, c.hi, o);
    other.or_lo = __shfl_down_sync(kAll, c.or_lo, o);
    other.or_hi = __shfl_down_sync(kAll, c.or_hi, o);
    other.inexact_difference = __shfl_down_sync(kAll, c.inexact_difference ? 1 : 0, o) != 0;
    other.truncated = __shfl_down_sync(kAll, c.truncated, o);
    other.nonzero = __shfl_down_sync(kAll, c.nonzero, o);
    other.abs_sum = __shfl_down_sync(kAll, c.abs_sum, o);
    other.out_of_range = __shfl_down_sync(kAll, c.out_of_range ? 1 : 0, o) != 0;
    prefix_abs += __shfl_down_sync(kAll, prefix_abs, o);
    cov_merge(c, other);
  }
  const std::uint64_t n = static_cast<std::uint64_t>(d.sub_w) * d.sub_h;
  float v = 0.0f;
  const bool decided = __shfl_sync(kAll, lane == 0 && cov_decide(c, prefix_abs, static_cast<float>(rounds + 6), n, &v) ? 1 : 0, 0) != 0;
  if (!decided) {
    // R's chain in Sf64: each round's 32 products on the lanes, their sums in
    // order on lane 0.
    Sf64 acc(0.0);
    const Sf64 mx(mean_x), my(mean_y);
    for (unsigned i = 0; i < d.sub_h; ++i) {
      const float* row_x = data + static_cast<std::ptrdiff_t>(rx + i) * stride + cx;
      const float* row_y = data + static_cast<std::ptrdiff_t>(ry + i) * stride + cy;
      for (unsigned j0 = 0; j0 < d.sub_w; j0 += 32) {
        const unsigned j = j0 + lane;
        const Sf64 term = j < d.sub_w ? (Sf64(row_x[j]) - mx) * (Sf64(row_y[j]) - my) : Sf64(0.0);
        const unsigned count = d.sub_w - j0 < 32 ? d.sub_w - j0 : 32;
        for (unsigned k = 0; k < count; ++k) {
          const std::uint64_t b = __shfl_sync(kAll, term.bits, k);
          if (lane == 0) acc = acc + Sf64::from_bits(b);
        }
      }
    }
    v = f32_of(acc / term_count<Sf64>(d));
  }
  if (lane == 0) {
    float* cov = s.cov + plane * block_elems * block_elems;
    cov[xi * block_elems + yi] = v;
    cov[yi * block_elems + xi] = v;
    rmath::Fp32PairArith arith;
    arith.islands = 1;
    arith.replays = decided ? 0 : 1;
    rmath::device::add_arith_counts(arith, s.result->arith);
  }
}

struct BlockSync {
  __device__ void operator()() const { __syncthreads(); }
};

struct WarpSync {
  __device__ void operator()() const { __syncwarp(); }
};

// Barrier 1 over the block's threads from warp 1 on (a multiple of 32);
// the non-.aligned form, as thread 0's steps leave its warp diverged.
struct QrGroupSync {
  unsigned count;
  __device__ void operator()() const { asm volatile("barrier.sync 1, %0;" ::"r"(count) : "memory"); }
};

// speed_math.hpp's solve_plane with the block's threads, its first two parts
// side by side: warp 0 runs the tridiagonalisation and the (serial)
// eigenvalue iteration, warps 1.. the QR solve (speculatively: X is used
// only where the matrix is regular, as solve_plane decides). Same chains,
// same bits; the frame's critical path is the longer of the two instead of
// their sum.
template <class Arith>
__global__ void __launch_bounds__(kSolveThreads) solve_kernel(const Params p, DeviceScratch s) {
  using M = MathOf<Arith>;
  using T = real_of<M>;
  __shared__ SolveShared sh;
  const unsigned plane = blockIdx.x;
  const int nb = static_cast<int>(p.dims.num_blocks);
  const std::size_t at = static_cast<std::size_t>(plane) * block_elems * nb;
  const float* K = s.cov + plane * block_elems * block_elems;
  const int tid = static_cast<int>(threadIdx.x), nt = static_cast<int>(blockDim.x);
  constexpr int kEigenThreads = 32;
  if (tid < kEigenThreads)
    solve_eigenvalues<T>(tid, kEigenThreads, WarpSync{}, sh, K, s.eig + plane * block_elems);
  else
    solve_qr<T>(tid - kEigenThreads, nt - kEigenThreads, QrGroupSync{static_cast<unsigned>(nt - kEigenThreads)}, sh, K,
             s.y + at, s.qy + at, s.x + at, nb);
  __syncthreads();
  const bool cannot_invert = solve_variances(tid, nt, BlockSync{}, sh, s.y + at, s.x + at, nb, s.variance + plane * nb);
  if (threadIdx.x == 0) {
    s.plane_err[plane] = cannot_invert ? 1 : 0;
    if (sh.no_convergence) flag(s.result, kNoConvergence);
  }
}

// The entropies (block_entropy), in two kernels: a thread per log2 term
// (plane, block, eigenvalue), R's double kept as its bits; then a thread per
// (plane, block) adds them in R's order.
template <class Arith>
__global__ void __launch_bounds__(kThreads) entropy_log2_kernel(const Params p, DeviceScratch s) {
  using M = MathOf<Arith>;
  const unsigned nb = p.dims.num_blocks, total = p.planes * nb * block_elems;
  M m;
  for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const unsigned plane = t / (nb * block_elems), b = (t / block_elems) % nb, k = t % block_elems;
    s.log2_terms[t] =
        rmath::u64_of(entropy_log2(s.eig[plane * block_elems + k], s.variance[plane * nb + b], p.sigma_nn, m));
  }
  if (m.undecided) flag(s.result, kUndecided);
}

template <class Arith>
__global__ void __launch_bounds__(kThreads) entropy_sum_kernel(const Params p, DeviceScratch s) {
  using T = real_of<MathOf<Arith>>;
  const unsigned nb = p.dims.num_blocks, total = p.planes * nb;
  const T log2_2pie = rmath::of_u64<T>(p.log2_2pie);
  for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const std::uint64_t* terms = s.log2_terms + static_cast<std::size_t>(t) * block_elems;
    float e = 0;
    for (unsigned k = 0; k < block_elems; ++k) e = entropy_step(e, rmath::of_u64<T>(terms[k]), log2_2pie);
    s.entropy[t] = e;
  }
}

// The per-block score terms, a thread per (pair, block).
template <class Arith>
__global__ void __launch_bounds__(kThreads) score_terms_kernel(const Params p, DeviceScratch s) {
  const unsigned nb = p.dims.num_blocks, total = p.pairs * nb;
  MathOf<Arith> m;
  for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const unsigned pair = t / nb, b = t % nb, ref = 2 * pair, dis = 2 * pair + 1;
    s.bscore[t] = block_score(s.entropy[ref * nb + b], s.variance[ref * nb + b], s.entropy[dis * nb + b],
                              s.variance[dis * nb + b], p.base_entropy, p.weight_var_mode, m);
  }
  if (m.undecided) flag(s.result, kUndecided);
}

// The frame's score per pair: the block terms summed in block order.
__global__ void __launch_bounds__(32) score_kernel(const Params p, DeviceScratch s) {
  const unsigned pair = blockIdx.x;
  const unsigned ref = 2 * pair, dis = 2 * pair + 1;
  const int nb = static_cast<int>(p.dims.num_blocks);
  const float* bscore = s.bscore + pair * nb;
  if (threadIdx.x == 0) {
    const bool er = s.plane_err[ref] != 0, ed = s.plane_err[dis] != 0;
    float score = 0;
    if (er == ed) {
      // In block order; a batch of loads in flight ahead of the adds.
      for (int b0 = 0; b0 < nb; b0 += static_cast<int>(chain_batch)) {
        float v[chain_batch];
#pragma unroll
        for (int k = 0; k < static_cast<int>(chain_batch); ++k) v[k] = b0 + k < nb ? bscore[b0 + k] : 0.0f;
#pragma unroll
        for (int k = 0; k < static_cast<int>(chain_batch); ++k)
          if (b0 + k < nb) score += v[k];
      }
      score = frame_score(score, p.dims.num_blocks);
    }
    s.result->score[pair] = score;
    s.result->err[pair] = (er || ed) ? 1 : 0;
  }
}

unsigned grid_for(unsigned n, unsigned threads) {
  const unsigned b = (n + threads - 1) / threads;
  return b == 0 ? 1 : (b < 65535 ? b : 65535);
}

class SpeedCudaWorker final : public cuda::FeatureWorker {
 public:
  SpeedCudaWorker(const Config& c, std::shared_ptr<Warnings> w) : c_(c), warnings_(std::move(w)) {
    p_.dims = c.dims;
    p_.method = c.method;
    p_.scale = c.scale;
    p_.bpc = c.bpc;
    p_.planes = c.chroma ? 4 : 2;
    p_.pairs = c.chroma ? 2 : 1;
    p_.antialias = c.antialias;
    p_.local_mean = c.local_mean;
    p_.sigma_nn = c.sigma_nn;
    p_.log2_2pie = rmath::u64_of(c.log2_2pie);
    p_.base_entropy = c.base_entropy;
    p_.weight_var_mode = c.weight_var_mode;
  }

  cuda::PlaneNeeds planes() const override {
    cuda::PlaneNeeds n;
    if (c_.chroma) {
      n.ref = cuda::kChroma;
      n.dist = cuda::kChroma;
    } else {
      n.ref = cuda::kLuma;
      n.dist = cuda::kLuma;
      n.prev_ref = cuda::kLuma;
      n.prev_dist = cuda::kLuma;
    }
    return n;
  }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    (void)sources_of(frame);  // checks that the planes are there
    // The prescaling's axes (Config's tables, computed with R on the host).
    axes_.upload(c_.lanczos_cols, c_.lanczos_rows, c_.coord_cols, c_.coord_rows, stream);
    p_.axis_x = axes_.x();
    p_.axis_y = axes_.y();
    const Dims& d = c_.dims;
    const std::size_t P = p_.planes, nb = d.num_blocks, plane = static_cast<std::size_t>(d.dec_w) * d.dec_h;
    cuda::ScratchLayout layout;
    const std::size_t o_dec = layout.take(P * plane), o_resid = layout.take(P * plane),
                      o_means = layout.take(P * block_elems), o_cov = layout.take(P * block_elems * block_elems),
                      o_eig = layout.take(P * block_elems), o_y = layout.take(P * block_elems * nb),
                      o_qy = layout.take(P * block_elems * nb), o_x = layout.take(P * block_elems * nb),
                      o_ent = layout.take(P * nb), o_var = layout.take(P * nb), o_bs = layout.take(p_.pairs * nb),
                      o_err = layout.take(P), o_res = layout.take(sizeof(Result) / sizeof(float) + 1),
                      o_log2 = layout.take(2 * P * nb * block_elems);
    block_ = cuda::DeviceBuffer<float>(layout.floats());
    float* const base = block_.get();
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(base, 0, block_.bytes(), stream));
    s_.dec = base + o_dec;
    s_.resid = base + o_resid;
    s_.means = base + o_means;
    s_.cov = base + o_cov;
    s_.eig = base + o_eig;
    s_.y = base + o_y;
    s_.qy = base + o_qy;
    s_.x = base + o_x;
    s_.entropy = base + o_ent;
    s_.variance = base + o_var;
    s_.bscore = base + o_bs;
    s_.log2_terms = reinterpret_cast<std::uint64_t*>(base + o_log2);
    s_.plane_err = reinterpret_cast<int*>(base + o_err);
    s_.result = reinterpret_cast<Result*>(base + o_res);
    host_ = cuda::PinnedBuffer<Result>(1);
    int device = 0, optin = 0;
    EXACTVMAF_CUDA_CHECK(cudaGetDevice(&device));
    EXACTVMAF_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    // The same limit for every worker on this device (the attribute is the
    // kernel's, not the launch's: a smaller per-worker value would break
    // another worker's launches).
    const int limit = std::min(optin, static_cast<int>(kBandBytes));
    EXACTVMAF_CUDA_CHECK(cudaFuncSetAttribute(means_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
    EXACTVMAF_CUDA_CHECK(
        cudaFuncSetAttribute(covariance_kernel<rmath::NativeF64>, cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
    const char* feature = c_.chroma ? "speed_chroma" : "speed_temporal";
    p_.mean_band = band_for(d, sizeof(float), static_cast<std::size_t>(limit), feature);
    p_.cov_band = band_for(d, sizeof(double), static_cast<std::size_t>(limit), feature);
    mean_bytes_ = band_bytes(p_.mean_band, sizeof(float));
    cov_bytes_ = band_bytes(p_.cov_band, sizeof(double));
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    const Sources src = sources_of(frame);
    const Dims& d = c_.dims;
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(s_.result, 0, sizeof(Result), stream));
    const unsigned n_dec = d.dec_w * d.dec_h * p_.planes;
    if (c_.bpc == 8)
      decimate_kernel<std::uint8_t><<<grid_for(n_dec, kThreads), kThreads, 0, stream>>>(p_, src, s_);
    else
      decimate_kernel<std::uint16_t><<<grid_for(n_dec, kThreads), kThreads, 0, stream>>>(p_, src, s_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    residual_kernel<<<grid_for(d.trunc_w * d.trunc_h * p_.planes, kThreads), kThreads, 0, stream>>>(p_, s_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    means_kernel<<<p_.planes, kStageThreads, mean_bytes_, stream>>>(p_, s_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    cuda::with_device_arith(frame.arith, [&](auto arith) {
      using Arith = decltype(arith);
      if constexpr (std::is_same_v<Arith, rmath::Fp32PairArith>)
        covariance_filter_kernel<<<grid_for(p_.planes * covariance_terms * 32, kFilterThreads), kFilterThreads, 0,
                                   stream>>>(p_, s_);
      else
        covariance_kernel<Arith><<<p_.planes * kCovarianceBlocks, kStageThreads, cov_bytes_, stream>>>(p_, s_);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      solve_kernel<Arith><<<p_.planes, kSolveThreads, 0, stream>>>(p_, s_);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      entropy_log2_kernel<Arith><<<grid_for(p_.planes * d.num_blocks * block_elems, kThreads), kThreads, 0, stream>>>(
          p_, s_);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      entropy_sum_kernel<Arith><<<grid_for(p_.planes * d.num_blocks, kThreads), kThreads, 0, stream>>>(p_, s_);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      score_terms_kernel<Arith><<<grid_for(p_.pairs * d.num_blocks, kThreads), kThreads, 0, stream>>>(p_, s_);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    });
    score_kernel<<<p_.pairs, 32, 0, stream>>>(p_, s_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(host_.get(), s_.result, sizeof(Result), cudaMemcpyDeviceToHost, stream));
  }

  std::uint64_t host_frames() const override { return host_frames_; }
  cuda::DeviceArithCounts arith_counts() const override { return counts_; }

  bool reads_host_samples() const override { return (host_->flags & kUndecided) != 0; }

  void finish(const FrameInput& in, FrameOutput& out) override {
    counts_ += {host_->arith[0], host_->arith[1], host_->arith[2]};
    FrameResult r;
    if (!c_.chroma && in.index == 0) {
      // speed_temporal is 0 at frame 0 (the device ran on stale history).
    } else if (host_->flags & kUndecided) {
      // A log2/sin fast path could not decide its rounding: the frame on the host.
      if (cpu_scratch_.cov.empty()) cpu_scratch_.resize(c_.dims);
      compute_frame(c_, cpu_scratch_, in, r);
      ++host_frames_;
    } else {
      for (unsigned k = 0; k < p_.pairs; ++k) {
        r.score[k] = host_->score[k];
        r.err[k] = host_->err[k] != 0;
        r.singular = r.singular || r.err[k];
      }
      r.no_convergence = (host_->flags & kNoConvergence) != 0;
    }
    warnings_->report(r, in.index);
    write_outputs(c_, r, out);
  }

 private:
  Sources sources_of(const cuda::DeviceFrame& frame) const {
    Sources s;
    if (c_.chroma) {
      for (unsigned ch = 0; ch < 2; ++ch) {
        const cuda::DevicePlane& r = frame.ref.plane[1 + ch];
        const cuda::DevicePlane& t = frame.dist.plane[1 + ch];
        if (!r.data || !t.data) throw InternalError("internal: speed_chroma's CUDA worker did not get the chroma planes");
        s.p[2 * ch] = {r.data, r.pitch, nullptr, 0};
        s.p[2 * ch + 1] = {t.data, t.pitch, nullptr, 0};
      }
    } else {
      if (frame.history < 1) throw InternalError("internal: speed_temporal's CUDA worker got no history frame");
      const cuda::DevicePlane& ref = frame.ref.plane[0];
      const cuda::DevicePlane& dis = frame.dist.plane[0];
      const cuda::DevicePlane& pref = frame.prev_ref[0].plane[0];
      const cuda::DevicePlane& pdis = frame.prev_dist[0].plane[0];
      if (!ref.data || !dis.data || !pref.data || !pdis.data)
        throw InternalError("internal: speed_temporal's CUDA worker did not get the luma planes");
      const cuda::DevicePlane& minus = c_.use_ref_diff ? ref : dis;
      s.p[0] = {pref.data, pref.pitch, ref.data, ref.pitch};
      s.p[1] = {pdis.data, pdis.pitch, minus.data, minus.pitch};
    }
    return s;
  }

  Config c_;
  std::shared_ptr<Warnings> warnings_;
  Params p_;
  DeviceScratch s_{};
  std::size_t mean_bytes_ = 0, cov_bytes_ = 0;  // the chain kernels' shared memory (their bands)
  cuda::DeviceBuffer<float> block_;
  vif_tools::DeviceScaleTables axes_;  // the prescaling's tables (p_.axis_x, p_.axis_y)
  cuda::PinnedBuffer<Result> host_;  // the graph's last copy lands here
  speed::Scratch cpu_scratch_;
  std::uint64_t host_frames_ = 0;  // frames compute_frame() recomputed
  cuda::DeviceArithCounts counts_;
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c, std::shared_ptr<Warnings> warnings) {
  return std::make_unique<SpeedCudaWorker>(c, std::move(warnings));
}

}  // namespace exactvmaf::speed
