// Float ADM on the device. Per frame, per scale s = 0..3:
//
//   dwt_decouple_kernel  one thread per band sample: the 4x4 DWT window of
//                        ref and dis (scale 0 reads the picture, converting
//                        as picture_copy does; the vertical lo/hi of each of
//                        the 4 columns, then the horizontal taps: a, v, h,
//                        d), the a bands for the next scale, and inside the
//                        decouple region decouple_sample and csf_sample for
//                        a and r (the CPU's two CSF passes; dst and flt
//                        stored, r and a not) plus ref's h, v, d for the
//                        denominator. Scale 0's also clears the
//                        undecided-powf flag (no memset node).
//   row_terms_kernel     one block per scored row: the block computes the
//                        row's 9 terms (den_terms, cm_terms for num and aim)
//                        a chunk of columns at a time into shared memory, and
//                        9 of its threads add each chunk to their running
//                        row sum in column order.
//   total_kernel         one thread per plane adds the row sums in row order
//                        (staged through shared memory).
//   then one copy of the 36 per-scale totals and the flag into pinned memory.
//
// The DWT kernels and scales 1..3 run on the worker's stream; scale 0's row
// and total kernels on a second stream, forked after scale 0's DWT and
// joined before the copy (events: edges in a captured graph).
//
// Every per-sample value is the same function of the same inputs as on the
// CPU (a vertical DWT sample is recomputed by each horizontal output that
// reads it: same inputs, same bits); every float sum is one sequential chain
// in upstream's order (per row, then the rows), so the totals are the CPU's
// bits. The powf tails of each scale and the frame scores are the CPU's host
// code (finish()). With adm_p_norm != 3 a per-sample powf the device's fast
// path (on Sf64 in the fp32pair variant) cannot decide (about 2^-40 of them)
// sets the flag, and finish() recomputes that frame on the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_arith.cuh"
#include "backends/cuda/device_memory.cuh"
#include "features/float_adm/float_adm_cuda.hpp"
#include "features/float_adm/float_adm_math.hpp"
#include "numeric/device/arith_counts.cuh"
#include "numeric/fp32pair.hpp"

namespace exactvmaf::float_adm {

namespace {

constexpr int kPlanes = 9;  // den h/v/d, num h/v/d, aim h/v/d
constexpr int kTotals = num_scales * kPlanes;
constexpr unsigned kMaxGridY = 65535;
constexpr int kTile = 128;        // threads per block of the DWT kernel
constexpr int kRowThreads = 128;  // threads per block of the row kernel
constexpr int kRowChunk = 256;    // columns per shared-memory chunk of a row
constexpr int kTotalThreads = 256;
constexpr int kTotalChunk = 512;  // row sums per shared-memory chunk

// CSF planes (h, v, d each) of the decoupled a and r: dst = rfactor * x and
// flt. The masking terms need no more: cm_terms' x = src * rfactor is, for
// num, r * rfactor = dst_r (the product commutes), got as cm_terms(dst_r, ...)
// with unit factors (dst_r * 1 is exact), its window's centre angle dst_a;
// aim's the reverse. r and a themselves never reach global memory.
enum Kind : int { kDstA = 0, kFltA, kDstR, kFltR, kKinds };

struct Geometry {
  int w_in = 0, h_in = 0, w = 0, h = 0;
  Region dr, sr;
};

struct Planes {  // the kKinds x 3 band planes, stride = scale-0 band width
  float* kinds = nullptr;
  std::ptrdiff_t stride = 0, plane = 0;
  __host__ __device__ float* at(int kind, int band) const { return kinds + (kind * 3 + band) * plane; }
  __device__ Bands3<const float> cset(int kind) const { return {at(kind, 0), at(kind, 1), at(kind, 2), stride}; }
};

template <class Sample>
__device__ __forceinline__ float load(const Sample* p, unsigned bpc) {
  if constexpr (std::is_same_v<Sample, float>) {
    (void)bpc;
    return *p;
  } else {
    return input_sample(*p, bpc);
  }
}

struct DwtArgs {
  const void* src[2] = {nullptr, nullptr};  // ref, dis: the picture (scale 0) or the previous scale's a bands
  std::ptrdiff_t src_stride[2] = {0, 0};    // samples
  Geometry g;
  unsigned bpc = 8;
  float* next_a[2] = {nullptr, nullptr};  // this scale's a bands (stride g.w); null at the last scale
  float* ref_h = nullptr;                 // ref's h, v, d bands inside the decouple region (stride g.w)
  float* ref_v = nullptr;
  float* ref_d = nullptr;
  bool decouple = true;  // false: scale 0 with adm_skip_scale0
  Planes planes;
  std::uint64_t gain_bits = 0;  // the gain limit's bits: no fp64 register in the fp32pair kernels
  unsigned long long* arith_counts = nullptr;
  float rfactor[3] = {0, 0, 0};
  int* clear_flag = nullptr;  // scale 0: the undecided flag, cleared here
};

// Arith: the islands' fp64 policy (rmath::NativeF64 or rmath::Fp32PairArith).
template <class Sample, class Arith>
__global__ void __launch_bounds__(kTile) dwt_decouple_kernel(const DwtArgs p) {
  const int j = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x);
  if (j >= p.g.w) return;
  const double gain = __longlong_as_double(static_cast<long long>(p.gain_bits));
  Arith arith;
  if (p.clear_flag && j == 0 && blockIdx.y == 0) *p.clear_flag = 0;
  const Region& dr = p.g.dr;
  const bool decouple_col = p.decouple && j >= dr.left && j < dr.right;
  int col[4];
  for (int c = 0; c < 4; ++c) col[c] = dwt_src_index(j, c, p.g.w_in);
  for (int i = static_cast<int>(blockIdx.y); i < p.g.h; i += static_cast<int>(gridDim.y)) {
    const std::ptrdiff_t r0 = dwt_src_index(i, 0, p.g.h_in), r1 = dwt_src_index(i, 1, p.g.h_in),
                         r2 = dwt_src_index(i, 2, p.g.h_in), r3 = dwt_src_index(i, 3, p.g.h_in);
    float a[2], v[2], h[2], d[2];
    for (int k = 0; k < 2; ++k) {
      const Sample* src = static_cast<const Sample*>(p.src[k]);
      const std::ptrdiff_t st = p.src_stride[k];
      float lo[4], hi[4];  // the vertical pass at the 4 source columns
      for (int c = 0; c < 4; ++c) {
        const float s0 = load(src + r0 * st + col[c], p.bpc);
        const float s1 = load(src + r1 * st + col[c], p.bpc);
        const float s2 = load(src + r2 * st + col[c], p.bpc);
        const float s3 = load(src + r3 * st + col[c], p.bpc);
        lo[c] = dwt_lo4(s0, s1, s2, s3);
        hi[c] = dwt_hi4(s0, s1, s2, s3);
      }
      // dwt_horizontal_sample's taps on those columns
      a[k] = dwt_lo4(lo[0], lo[1], lo[2], lo[3]);
      v[k] = dwt_hi4(lo[0], lo[1], lo[2], lo[3]);
      h[k] = dwt_lo4(hi[0], hi[1], hi[2], hi[3]);
      d[k] = dwt_hi4(hi[0], hi[1], hi[2], hi[3]);
    }
    const std::ptrdiff_t o = i * static_cast<std::ptrdiff_t>(p.g.w) + j;
    if (p.next_a[0]) {
      p.next_a[0][o] = a[0];
      p.next_a[1][o] = a[1];
    }
    if (!decouple_col || i < dr.top || i >= dr.bottom) continue;
    p.ref_h[o] = h[0];
    p.ref_v[o] = v[0];
    p.ref_d[o] = d[0];
    const Decoupled s = decouple_sample(h[0], v[0], d[0], h[1], v[1], d[1], gain, arith);
    const float rr[3] = {s.rh, s.rv, s.rd}, aa[3] = {s.ah, s.av, s.ad};
    const std::ptrdiff_t q = i * p.planes.stride + j;
    for (int b = 0; b < 3; ++b) {
      csf_sample(aa[b], p.rfactor[b], p.planes.at(kDstA, b) + q, p.planes.at(kFltA, b) + q, arith);
      csf_sample(rr[b], p.rfactor[b], p.planes.at(kDstR, b) + q, p.planes.at(kFltR, b) + q, arith);
    }
  }
  rmath::device::add_arith_counts(arith, p.arith_counts);
}

struct RowArgs {
  Geometry g;
  const float* ref_h = nullptr;  // stride g.w
  const float* ref_v = nullptr;
  const float* ref_d = nullptr;
  Planes planes;
  float rfactor[3] = {0, 0, 0};
  bool bypass_cm = false;
  PNorm pn;
  int* undecided = nullptr;
  unsigned long long* arith_counts = nullptr;
  float* row_sums = nullptr;  // kPlanes x band rows (stride: rows of scale 0)
  std::ptrdiff_t rows_stride = 0;
};

// One block per scored row: its terms a chunk at a time into shared memory;
// thread k < kPlanes adds plane k's chunk to its row sum in column order.
template <class Arith>
__global__ void __launch_bounds__(kRowThreads) row_terms_kernel(const RowArgs p) {
  Arith arith;
  __shared__ float terms[kPlanes][kRowChunk + 1];  // +1: the 9 summing threads hit different banks
  const Region& sr = p.g.sr;
  const int t = static_cast<int>(threadIdx.x);
  const Bands3<const float> ref{p.ref_h, p.ref_v, p.ref_d, static_cast<std::ptrdiff_t>(p.g.w)};
  const float kUnit[3] = {1.0f, 1.0f, 1.0f};
  bool undecided = false;
  for (int i = sr.top + static_cast<int>(blockIdx.x); i < sr.bottom; i += static_cast<int>(gridDim.x)) {
    float sum = 0.0f;  // thread t < kPlanes: plane t's row sum
    for (int base = sr.left; base < sr.right; base += kRowChunk) {
      const int n = sr.right - base < kRowChunk ? sr.right - base : kRowChunk;
      for (int c = t; c < n; c += kRowThreads) {
        const int j = base + c;
        const RowSums den = den_terms(ref, p.rfactor, i, j, p.pn, &undecided, arith);
        // cm_terms on the CSF products with unit factors: x = dst_r * 1 = r * rfactor (num), dst_a * 1 (aim)
        const RowSums num = cm_terms(p.planes.cset(kDstR), p.planes.cset(kDstA), p.planes.cset(kFltA), kUnit,
                                     p.g.w, p.g.h, i, j, p.bypass_cm, p.pn, &undecided, arith);
        const RowSums aim = cm_terms(p.planes.cset(kDstA), p.planes.cset(kDstR), p.planes.cset(kFltR), kUnit,
                                     p.g.w, p.g.h, i, j, p.bypass_cm, p.pn, &undecided, arith);
        terms[0][c] = den.h;
        terms[1][c] = den.v;
        terms[2][c] = den.d;
        terms[3][c] = num.h;
        terms[4][c] = num.v;
        terms[5][c] = num.d;
        terms[6][c] = aim.h;
        terms[7][c] = aim.v;
        terms[8][c] = aim.d;
      }
      __syncthreads();
      if (t < kPlanes) {
        const float* row = terms[t];
#pragma unroll 8
        for (int c = 0; c < n; ++c) sum += row[c];
      }
      __syncthreads();
    }
    if (t < kPlanes) p.row_sums[t * p.rows_stride + i] = sum;
  }
  if (undecided) atomicOr(p.undecided, 1);
  rmath::device::add_arith_counts(arith, p.arith_counts);
}

struct TotalArgs {
  Region sr;
  const float* row_sums = nullptr;
  std::ptrdiff_t rows_stride = 0;
  float* totals = nullptr;  // this scale's kPlanes
};

// One block; thread k < kPlanes adds plane k's row sums in row order, a
// shared-memory chunk at a time.
__global__ void __launch_bounds__(kTotalThreads) total_kernel(const TotalArgs p) {
  __shared__ float rows[kPlanes][kTotalChunk + 1];
  const int t = static_cast<int>(threadIdx.x);
  float sum = 0.0f;
  for (int base = p.sr.top; base < p.sr.bottom; base += kTotalChunk) {
    const int n = p.sr.bottom - base < kTotalChunk ? p.sr.bottom - base : kTotalChunk;
    for (int e = t; e < kPlanes * kTotalChunk; e += kTotalThreads) {
      const int k = e / kTotalChunk, c = e % kTotalChunk;
      if (c < n) rows[k][c] = p.row_sums[k * p.rows_stride + base + c];
    }
    __syncthreads();
    if (t < kPlanes) {
      const float* row = rows[t];
#pragma unroll 8
      for (int c = 0; c < n; ++c) sum += row[c];
    }
    __syncthreads();
  }
  if (t < kPlanes) p.totals[t] = sum;
}

dim3 grid_2d(int cols, int rows) {
  return dim3(static_cast<unsigned>((cols + kTile - 1) / kTile),
              static_cast<unsigned>(rows) < kMaxGridY ? static_cast<unsigned>(rows) : kMaxGridY);
}

struct Result {
  float totals[kTotals];
  int undecided;
  unsigned long long arith[rmath::device::kArithCounts];  // fp32pair island counts (zeroed per frame)
};

class FloatAdmCudaWorker final : public cuda::FeatureWorker {
 public:
  explicit FloatAdmCudaWorker(const Config& c) : c_(c), host_(c_) {
    int w = static_cast<int>(c.w), h = static_cast<int>(c.h);
    for (int s = 0; s < num_scales; ++s) {
      Geometry& g = g_[s];
      g.w_in = w;
      g.h_in = h;
      g.w = band_size(w);
      g.h = band_size(h);
      g.dr = decouple_region(g.w, g.h);
      g.sr = score_region(g.w, g.h);
      w = g.w;
      h = g.h;
    }
  }
  ~FloatAdmCudaWorker() override {
    if (side_) (void)cudaStreamSynchronize(side_);
    for (cudaEvent_t e : {scale0_ready_, scale0_done_})
      if (e) (void)cudaEventDestroy(e);
    if (side_) (void)cudaStreamDestroy(side_);
  }

  cuda::PlaneNeeds planes() const override { return cuda::luma_pair_needs(); }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    cuda::require_luma_pair(frame, c_.w, c_.h, "float_adm");
    const cuda::DevicePlane &ref = frame.ref.plane[0], &dis = frame.dist.plane[0];
    const auto bw0 = static_cast<std::size_t>(g_[0].w), bh0 = static_cast<std::size_t>(g_[0].h);
    std::size_t bands = 0;  // per scale: a of ref and dis, h, v, d of ref
    for (int s = 0; s < num_scales; ++s) bands += 5 * static_cast<std::size_t>(g_[s].w) * static_cast<std::size_t>(g_[s].h);
    // Scale 0's terms run beside scales 1..3 (enqueue()): its CSF planes and
    // row sums are its own; scales 1..3 share a set sized for scale 1.
    const std::size_t plane = bw0 * bh0;
    const auto bw1 = static_cast<std::size_t>(g_[1].w), bh1 = static_cast<std::size_t>(g_[1].h);
    const std::size_t plane1 = bw1 * bh1;
    const std::size_t total = bands + kKinds * 3 * (plane + plane1) + kPlanes * (bh0 + bh1);
    EXACTVMAF_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
    EXACTVMAF_CUDA_CHECK(cudaEventCreateWithFlags(&scale0_ready_, cudaEventDisableTiming));
    EXACTVMAF_CUDA_CHECK(cudaEventCreateWithFlags(&scale0_done_, cudaEventDisableTiming));
    buffer_ = cuda::DeviceBuffer<float>(total);
    result_dev_ = cuda::DeviceBuffer<Result>(1);
    result_ = cuda::PinnedBuffer<Result>(1);
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes(), stream));
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(result_dev_.get(), 0, result_dev_.bytes(), stream));

    float* at = buffer_.get();
    const auto take = [&at](std::size_t n) {
      float* p = at;
      at += n;
      return p;
    };
    float* next_a[num_scales][2];
    float* ref_hvd[num_scales][3];
    for (int s = 0; s < num_scales; ++s) {
      const std::size_t n = static_cast<std::size_t>(g_[s].w) * static_cast<std::size_t>(g_[s].h);
      for (int k = 0; k < 2; ++k) next_a[s][k] = take(n);
      for (int b = 0; b < 3; ++b) ref_hvd[s][b] = take(n);
    }
    Planes planes[2];  // scale 0, scales 1..3
    planes[0].stride = static_cast<std::ptrdiff_t>(bw0);
    planes[0].plane = static_cast<std::ptrdiff_t>(plane);
    planes[0].kinds = take(kKinds * 3 * plane);
    planes[1].stride = static_cast<std::ptrdiff_t>(bw1);
    planes[1].plane = static_cast<std::ptrdiff_t>(plane1);
    planes[1].kinds = take(kKinds * 3 * plane1);
    float* row_sums[2] = {take(kPlanes * bh0), take(kPlanes * bh1)};
    const std::ptrdiff_t rows_stride[2] = {static_cast<std::ptrdiff_t>(bh0), static_cast<std::ptrdiff_t>(bh1)};

    const std::size_t sample_bytes = c_.bpc == 8 ? 1 : 2;
    const PNorm pn = p_norm(c_.p_norm);
    for (int s = 0; s < num_scales; ++s) {
      DwtArgs& v = dwt_[s];
      v.g = g_[s];
      v.bpc = c_.bpc;
      if (s == 0) {
        v.src[0] = ref.data;
        v.src[1] = dis.data;
        v.src_stride[0] = static_cast<std::ptrdiff_t>(ref.pitch / sample_bytes);
        v.src_stride[1] = static_cast<std::ptrdiff_t>(dis.pitch / sample_bytes);
        v.clear_flag = &result_dev_.get()->undecided;
      } else {
        v.src[0] = next_a[s - 1][0];
        v.src[1] = next_a[s - 1][1];
        v.src_stride[0] = v.src_stride[1] = g_[s - 1].w;
      }
      if (s + 1 < num_scales) {
        v.next_a[0] = next_a[s][0];
        v.next_a[1] = next_a[s][1];
      }
      v.ref_h = ref_hvd[s][0];
      v.ref_v = ref_hvd[s][1];
      v.ref_d = ref_hvd[s][2];
      v.decouple = !(s == 0 && c_.skip_scale0);
      v.planes = planes[s == 0 ? 0 : 1];
      v.gain_bits = __builtin_bit_cast(std::uint64_t, c_.gain_limit);
      v.arith_counts = result_dev_.get()->arith;
      for (int b = 0; b < 3; ++b) v.rfactor[b] = c_.rfactor[s][b];

      RowArgs& r = row_[s];
      r.g = g_[s];
      r.ref_h = ref_hvd[s][0];
      r.ref_v = ref_hvd[s][1];
      r.ref_d = ref_hvd[s][2];
      r.planes = planes[s == 0 ? 0 : 1];
      for (int b = 0; b < 3; ++b) r.rfactor[b] = c_.rfactor[s][b];
      r.bypass_cm = c_.bypass_cm;
      r.pn = pn;
      r.undecided = &result_dev_.get()->undecided;
      r.arith_counts = result_dev_.get()->arith;
      r.row_sums = row_sums[s == 0 ? 0 : 1];
      r.rows_stride = rows_stride[s == 0 ? 0 : 1];

      TotalArgs& u = total_[s];
      u.sr = g_[s].sr;
      u.row_sums = row_sums[s == 0 ? 0 : 1];
      u.rows_stride = rows_stride[s == 0 ? 0 : 1];
      u.totals = result_dev_.get()->totals + s * kPlanes;
    }
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  // Scale 0's DWT on `stream`, then its terms and totals on side_ (forked
  // and joined through events, which a graph capture turns into edges)
  // while scales 1..3 run on `stream`.
  void enqueue(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    cuda::with_device_arith(frame.arith, [&](auto arith) { enqueue_with<decltype(arith)>(stream); });
  }

  cuda::DeviceArithCounts arith_counts() const override { return counts_; }

  template <class Arith>
  void enqueue_with(cuda::Stream stream) {
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(result_dev_.get()->arith, 0, sizeof(Result::arith), stream));
    for (int s = 0; s < num_scales; ++s) {
      const Geometry& g = g_[s];
      const dim3 grid = grid_2d(g.w, g.h);
      if (s == 0 && c_.bpc == 8)
        dwt_decouple_kernel<std::uint8_t, Arith><<<grid, kTile, 0, stream>>>(dwt_[s]);
      else if (s == 0)
        dwt_decouple_kernel<std::uint16_t, Arith><<<grid, kTile, 0, stream>>>(dwt_[s]);
      else
        dwt_decouple_kernel<float, Arith><<<grid, kTile, 0, stream>>>(dwt_[s]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      if (s == 0 && c_.skip_scale0) continue;
      cudaStream_t terms_stream = stream;
      if (s == 0) {
        EXACTVMAF_CUDA_CHECK(cudaEventRecord(scale0_ready_, stream));
        EXACTVMAF_CUDA_CHECK(cudaStreamWaitEvent(side_, scale0_ready_, 0));
        terms_stream = side_;
      }
      row_terms_kernel<Arith><<<static_cast<unsigned>(g.sr.bottom - g.sr.top), kRowThreads, 0, terms_stream>>>(row_[s]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      total_kernel<<<1, kTotalThreads, 0, terms_stream>>>(total_[s]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      if (s == 0) EXACTVMAF_CUDA_CHECK(cudaEventRecord(scale0_done_, side_));
    }
    if (!c_.skip_scale0) EXACTVMAF_CUDA_CHECK(cudaStreamWaitEvent(stream, scale0_done_, 0));
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_.get(), result_dev_.get(), sizeof(Result), cudaMemcpyDeviceToHost, stream));
  }

  std::uint64_t host_frames() const override { return host_frames_; }

  bool reads_host_samples() const override { return result_->undecided; }

  // The CPU's per-scale tails and frame scores on the device's totals; a
  // frame with an undecided powf term is recomputed on the host.
  void finish(const FrameInput& in, FrameOutput& out) override {
    counts_ += {result_->arith[0], result_->arith[1], result_->arith[2]};
    if (result_->undecided) {
      ++host_frames_;
      write_frame_outputs(host_.compute(in.ref, in.dist), c_.debug, out);
      return;
    }
    float num[num_scales], den[num_scales], aim[num_scales];
    for (int s = 0; s < num_scales; ++s) {
      if (s == 0 && c_.skip_scale0) {
        num[0] = 0.0f;
        den[0] = static_cast<float>(1e-10);
        aim[0] = 0.0f;
        continue;
      }
      const float* t = result_->totals + s * kPlanes;
      const Region& sr = g_[s].sr;
      den[s] = scale_tail({t[0], t[1], t[2]}, sr, c_.noise_weight, c_.p_norm);
      num[s] = scale_tail({t[3], t[4], t[5]}, sr, c_.noise_weight, c_.p_norm);
      aim[s] = scale_tail({t[6], t[7], t[8]}, sr, 0.0, c_.p_norm);
    }
    write_frame_outputs(frame_scores(num, den, aim, static_cast<int>(c_.w), static_cast<int>(c_.h), c_.frame),
                        c_.debug, out);
  }

 private:
  Config c_;
  CpuFrame host_;
  std::uint64_t host_frames_ = 0;  // frames recomputed by host_
  Geometry g_[num_scales];
  cuda::DeviceBuffer<float> buffer_;
  cudaStream_t side_ = nullptr;  // scale 0's terms, beside scales 1..3
  cudaEvent_t scale0_ready_ = nullptr, scale0_done_ = nullptr;
  cuda::DeviceBuffer<Result> result_dev_;
  cuda::PinnedBuffer<Result> result_;  // the graph's last copy lands here
  DwtArgs dwt_[num_scales];
  RowArgs row_[num_scales];
  TotalArgs total_[num_scales];
  cuda::DeviceArithCounts counts_;
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<FloatAdmCudaWorker>(c);
}

}  // namespace exactvmaf::float_adm
