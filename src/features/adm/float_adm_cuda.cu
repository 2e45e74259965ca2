// Float ADM on the device. Per frame, on the worker's stream:
//
//   memset of the undecided-powf flag
//   per scale s = 0..3:
//     dwt_vertical_kernel     one thread per (column, band row): the 4-tap
//                             vertical lo/hi of ref and dis (scale 0 reads
//                             the picture, converting as picture_copy does)
//     dwt_horizontal_kernel   one thread per band sample: a, v, h, d
//     decouple_kernel         one thread per sample of the decouple region:
//                             decouple_sample, then csf_sample for a and
//                             for r (the CPU's two CSF passes)
//     terms_kernel            one thread per scored sample: the denominator,
//                             numerator and aim terms (den_terms, cm_terms),
//                             9 planes
//     row_sum_kernel          one thread per (scored row, plane): the float
//                             sum of the row's terms in column order
//     total_kernel            one thread per plane: the float sum of the rows
//                             in row order
//   one copy of the 36 per-scale totals and the flag into pinned memory
//
// Every per-sample value is the same function of the same inputs as on the
// CPU; every float sum is one sequential chain in upstream's order (per row,
// then the rows), so the totals are the CPU's bits. The powf tails of each
// scale and the frame scores are the CPU's host code (finish()). With
// adm_p_norm != 3 a per-sample powf the device's fast path cannot decide
// (about 2^-40 of them) sets the flag, and finish() recomputes that frame on
// the host.
#include <cstdint>
#include <string>
#include <type_traits>

#include "backends/cuda/check.cuh"
#include "features/adm/float_adm_cuda.hpp"
#include "features/adm/float_adm_math.hpp"

namespace exactvmaf::float_adm {

namespace {

constexpr int kPlanes = 9;  // den h/v/d, num h/v/d, aim h/v/d
constexpr int kTotals = num_scales * kPlanes;
constexpr unsigned kMaxGridY = 65535;
constexpr int kTile = 128;  // threads per block of the per-sample kernels

// Decoupled and CSF planes (h, v, d each): r, a, CSF of a (dst, flt), CSF of r (dst, flt).
enum Kind : int { kR = 0, kA, kDstA, kFltA, kDstR, kFltR, kKinds };

struct Geometry {
  int w_in = 0, h_in = 0, w = 0, h = 0;
  Region dr, sr;
};

struct ScaleBands {  // ref and dis bands a, v, h, d of one scale (stride = band width)
  float* a[2] = {nullptr, nullptr};
  float* v[2] = {nullptr, nullptr};
  float* h[2] = {nullptr, nullptr};
  float* d[2] = {nullptr, nullptr};
};

struct Planes {  // the kKinds x 3 band planes and the 9 term planes, stride = scale-0 band width
  float* kinds = nullptr;
  float* terms = nullptr;
  std::ptrdiff_t stride = 0, plane = 0;
  __host__ __device__ float* at(int kind, int band) const { return kinds + (kind * 3 + band) * plane; }
  __host__ __device__ float* term(int k) const { return terms + k * plane; }
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

struct VerticalArgs {
  const void* src[2] = {nullptr, nullptr};
  std::ptrdiff_t src_stride[2] = {0, 0};  // samples
  Geometry g;
  unsigned bpc = 8;
  float* lo[2] = {nullptr, nullptr};
  float* hi[2] = {nullptr, nullptr};
  std::ptrdiff_t tmp_stride = 0;  // the picture width
};

template <class Sample>
__global__ void __launch_bounds__(kTile) dwt_vertical_kernel(const VerticalArgs p) {
  const int j = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x);
  if (j >= p.g.w_in) return;
  for (int i = static_cast<int>(blockIdx.y); i < p.g.h; i += static_cast<int>(gridDim.y)) {
    for (int k = 0; k < 2; ++k) {
      const Sample* src = static_cast<const Sample*>(p.src[k]);
      const std::ptrdiff_t st = p.src_stride[k];
      const float s0 = load(src + dwt_src_index(i, 0, p.g.h_in) * st + j, p.bpc);
      const float s1 = load(src + dwt_src_index(i, 1, p.g.h_in) * st + j, p.bpc);
      const float s2 = load(src + dwt_src_index(i, 2, p.g.h_in) * st + j, p.bpc);
      const float s3 = load(src + dwt_src_index(i, 3, p.g.h_in) * st + j, p.bpc);
      const std::ptrdiff_t o = i * p.tmp_stride + j;
      p.lo[k][o] = dwt_lo4(s0, s1, s2, s3);
      p.hi[k][o] = dwt_hi4(s0, s1, s2, s3);
    }
  }
}

struct HorizontalArgs {
  Geometry g;
  const float* lo[2] = {nullptr, nullptr};
  const float* hi[2] = {nullptr, nullptr};
  std::ptrdiff_t tmp_stride = 0;
  ScaleBands out;
};

__global__ void __launch_bounds__(kTile) dwt_horizontal_kernel(const HorizontalArgs p) {
  const int j = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x);
  if (j >= p.g.w) return;
  for (int i = static_cast<int>(blockIdx.y); i < p.g.h; i += static_cast<int>(gridDim.y)) {
    for (int k = 0; k < 2; ++k) {
      const std::ptrdiff_t o = i * static_cast<std::ptrdiff_t>(p.g.w) + j;
      dwt_horizontal_sample(p.lo[k] + i * p.tmp_stride, p.hi[k] + i * p.tmp_stride, p.g.w_in, j, &p.out.a[k][o],
                            &p.out.v[k][o], &p.out.h[k][o], &p.out.d[k][o]);
    }
  }
}

struct SampleArgs {
  Geometry g;
  ScaleBands bands;  // this scale's
  Planes planes;
  double gain = 100.0;
  float rfactor[3] = {0, 0, 0};
  bool bypass_cm = false;
  PNorm pn;
  int* undecided = nullptr;
};

__global__ void __launch_bounds__(kTile) decouple_kernel(const SampleArgs p) {
  const Region& dr = p.g.dr;
  const int j = dr.left + static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x);
  if (j >= dr.right) return;
  const std::ptrdiff_t bs = p.g.w;  // band stride
  const Bands3<const float> ref{p.bands.h[0], p.bands.v[0], p.bands.d[0], bs};
  const Bands3<const float> dis{p.bands.h[1], p.bands.v[1], p.bands.d[1], bs};
  for (int i = dr.top + static_cast<int>(blockIdx.y); i < dr.bottom; i += static_cast<int>(gridDim.y)) {
    const std::ptrdiff_t o = i * bs + j;
    const Decoupled s = decouple_sample(ref.h[o], ref.v[o], ref.d[o], dis.h[o], dis.v[o], dis.d[o], p.gain);
    const float r[3] = {s.rh, s.rv, s.rd}, a[3] = {s.ah, s.av, s.ad};
    const std::ptrdiff_t q = i * p.planes.stride;
    for (int b = 0; b < 3; ++b) {
      p.planes.at(kR, b)[q + j] = r[b];
      p.planes.at(kA, b)[q + j] = a[b];
      csf_sample(a[b], p.rfactor[b], p.planes.at(kDstA, b) + q + j, p.planes.at(kFltA, b) + q + j);
      csf_sample(r[b], p.rfactor[b], p.planes.at(kDstR, b) + q + j, p.planes.at(kFltR, b) + q + j);
    }
  }
}

__global__ void __launch_bounds__(kTile) terms_kernel(const SampleArgs p) {
  const Region& sr = p.g.sr;
  const int j = sr.left + static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x);
  if (j >= sr.right) return;
  const Bands3<const float> ref{p.bands.h[0], p.bands.v[0], p.bands.d[0], static_cast<std::ptrdiff_t>(p.g.w)};
  bool undecided = false;
  for (int i = sr.top + static_cast<int>(blockIdx.y); i < sr.bottom; i += static_cast<int>(gridDim.y)) {
    const RowSums den = den_terms(ref, p.rfactor, i, j, p.pn, &undecided);
    const RowSums num = cm_terms(p.planes.cset(kR), p.planes.cset(kDstA), p.planes.cset(kFltA), p.rfactor, p.g.w,
                                 p.g.h, i, j, p.bypass_cm, p.pn, &undecided);
    const RowSums aim = cm_terms(p.planes.cset(kA), p.planes.cset(kDstR), p.planes.cset(kFltR), p.rfactor, p.g.w,
                                 p.g.h, i, j, p.bypass_cm, p.pn, &undecided);
    const std::ptrdiff_t o = i * p.planes.stride + j;
    const float t[kPlanes] = {den.h, den.v, den.d, num.h, num.v, num.d, aim.h, aim.v, aim.d};
    for (int k = 0; k < kPlanes; ++k) p.planes.term(k)[o] = t[k];
  }
  if (undecided) atomicOr(p.undecided, 1);
}

struct SumArgs {
  Region sr;
  Planes planes;
  float* row_sums = nullptr;  // kPlanes x band rows (stride: rows of scale 0)
  std::ptrdiff_t rows_stride = 0;
  float* totals = nullptr;  // this scale's kPlanes
};

// One thread per (scored row, plane): the row's terms in column order.
__global__ void row_sum_kernel(const SumArgs p) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int rows = p.sr.bottom - p.sr.top;
  if (t >= rows * kPlanes) return;
  const int k = t / rows, i = p.sr.top + t % rows;
  const float* term = p.planes.term(k) + i * p.planes.stride;
  float s = 0.0f;
  for (int j = p.sr.left; j < p.sr.right; ++j) s += term[j];
  p.row_sums[k * p.rows_stride + i] = s;
}

// One thread per plane: the rows in order.
__global__ void total_kernel(const SumArgs p) {
  const int k = static_cast<int>(threadIdx.x);
  if (k >= kPlanes) return;
  float s = 0.0f;
  for (int i = p.sr.top; i < p.sr.bottom; ++i) s += p.row_sums[k * p.rows_stride + i];
  p.totals[k] = s;
}

dim3 grid_2d(int cols, int rows) {
  return dim3(static_cast<unsigned>((cols + kTile - 1) / kTile),
              static_cast<unsigned>(rows) < kMaxGridY ? static_cast<unsigned>(rows) : kMaxGridY);
}

struct Result {
  float totals[kTotals];
  int undecided;
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
    for (void* d : {static_cast<void*>(buffer_), static_cast<void*>(result_dev_)})
      if (d) (void)cudaFree(d);
    if (result_) (void)cudaFreeHost(result_);
  }

  cuda::PlaneNeeds planes() const override {
    cuda::PlaneNeeds n;
    n.ref = cuda::kLuma;
    n.dist = cuda::kLuma;
    return n;
  }

  void setup(const cuda::DeviceFrame& frame, cuda::Stream stream) override {
    const cuda::DevicePlane &ref = frame.ref.plane[0], &dis = frame.dist.plane[0];
    if (!ref.data || !dis.data || ref.width != c_.w || ref.height != c_.h || dis.width != c_.w ||
        dis.height != c_.h)
      throw Error("internal: float_adm's CUDA worker did not get both luma planes at " + std::to_string(c_.w) +
                  "x" + std::to_string(c_.h) + " on the device");
    const auto bw0 = static_cast<std::size_t>(g_[0].w), bh0 = static_cast<std::size_t>(g_[0].h);
    const std::size_t tmp = static_cast<std::size_t>(c_.w) * bh0;  // one lo/hi plane
    std::size_t bands = 0;
    for (int s = 0; s < num_scales; ++s) bands += 8 * static_cast<std::size_t>(g_[s].w) * static_cast<std::size_t>(g_[s].h);
    const std::size_t plane = bw0 * bh0;
    const std::size_t total = 4 * tmp + bands + (kKinds * 3 + kPlanes) * plane + kPlanes * bh0;
    EXACTVMAF_CUDA_CHECK(cudaMalloc(&buffer_, sizeof(float) * total));
    EXACTVMAF_CUDA_CHECK(cudaMalloc(&result_dev_, sizeof(Result)));
    EXACTVMAF_CUDA_CHECK(cudaHostAlloc(&result_, sizeof(Result), cudaHostAllocPortable));
    *result_ = {};
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(buffer_, 0, sizeof(float) * total, stream));
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(result_dev_, 0, sizeof(Result), stream));

    float* at = buffer_;
    const auto take = [&at](std::size_t n) {
      float* p = at;
      at += n;
      return p;
    };
    float* lo[2] = {take(tmp), take(tmp)};
    float* hi[2] = {take(tmp), take(tmp)};
    ScaleBands sb[num_scales];
    for (int s = 0; s < num_scales; ++s) {
      const std::size_t n = static_cast<std::size_t>(g_[s].w) * static_cast<std::size_t>(g_[s].h);
      for (int k = 0; k < 2; ++k) {
        sb[s].a[k] = take(n);
        sb[s].v[k] = take(n);
        sb[s].h[k] = take(n);
        sb[s].d[k] = take(n);
      }
    }
    Planes planes;
    planes.stride = static_cast<std::ptrdiff_t>(bw0);
    planes.plane = static_cast<std::ptrdiff_t>(plane);
    planes.kinds = take(kKinds * 3 * plane);
    planes.terms = take(kPlanes * plane);
    float* row_sums = take(kPlanes * bh0);

    const std::size_t sample_bytes = c_.bpc == 8 ? 1 : 2;
    const PNorm pn = p_norm(c_.p_norm);
    for (int s = 0; s < num_scales; ++s) {
      VerticalArgs& v = vertical_[s];
      v.g = g_[s];
      v.bpc = c_.bpc;
      if (s == 0) {
        v.src[0] = ref.data;
        v.src[1] = dis.data;
        v.src_stride[0] = static_cast<std::ptrdiff_t>(ref.pitch / sample_bytes);
        v.src_stride[1] = static_cast<std::ptrdiff_t>(dis.pitch / sample_bytes);
      } else {
        v.src[0] = sb[s - 1].a[0];
        v.src[1] = sb[s - 1].a[1];
        v.src_stride[0] = v.src_stride[1] = g_[s - 1].w;
      }
      for (int k = 0; k < 2; ++k) {
        v.lo[k] = lo[k];
        v.hi[k] = hi[k];
      }
      v.tmp_stride = static_cast<std::ptrdiff_t>(c_.w);

      HorizontalArgs& h = horizontal_[s];
      h.g = g_[s];
      for (int k = 0; k < 2; ++k) {
        h.lo[k] = lo[k];
        h.hi[k] = hi[k];
      }
      h.tmp_stride = v.tmp_stride;
      h.out = sb[s];

      SampleArgs& a = sample_[s];
      a.g = g_[s];
      a.bands = sb[s];
      a.planes = planes;
      a.gain = c_.gain_limit;
      for (int b = 0; b < 3; ++b) a.rfactor[b] = c_.rfactor[s][b];
      a.bypass_cm = c_.bypass_cm;
      a.pn = pn;
      a.undecided = &result_dev_->undecided;

      SumArgs& u = sum_[s];
      u.sr = g_[s].sr;
      u.planes = planes;
      u.row_sums = row_sums;
      u.rows_stride = static_cast<std::ptrdiff_t>(bh0);
      u.totals = result_dev_->totals + s * kPlanes;
    }
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const cuda::DeviceFrame&, cuda::Stream stream) override {
    EXACTVMAF_CUDA_CHECK(cudaMemsetAsync(&result_dev_->undecided, 0, sizeof(int), stream));
    for (int s = 0; s < num_scales; ++s) {
      const Geometry& g = g_[s];
      if (s == 0 && c_.bpc == 8)
        dwt_vertical_kernel<std::uint8_t><<<grid_2d(g.w_in, g.h), kTile, 0, stream>>>(vertical_[s]);
      else if (s == 0)
        dwt_vertical_kernel<std::uint16_t><<<grid_2d(g.w_in, g.h), kTile, 0, stream>>>(vertical_[s]);
      else
        dwt_vertical_kernel<float><<<grid_2d(g.w_in, g.h), kTile, 0, stream>>>(vertical_[s]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      dwt_horizontal_kernel<<<grid_2d(g.w, g.h), kTile, 0, stream>>>(horizontal_[s]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      if (s == 0 && c_.skip_scale0) continue;
      decouple_kernel<<<grid_2d(g.dr.right - g.dr.left, g.dr.bottom - g.dr.top), kTile, 0, stream>>>(sample_[s]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      terms_kernel<<<grid_2d(g.sr.right - g.sr.left, g.sr.bottom - g.sr.top), kTile, 0, stream>>>(sample_[s]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      const int jobs = (g.sr.bottom - g.sr.top) * kPlanes;
      row_sum_kernel<<<static_cast<unsigned>((jobs + 63) / 64), 64, 0, stream>>>(sum_[s]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
      total_kernel<<<1, 32, 0, stream>>>(sum_[s]);
      EXACTVMAF_CUDA_CHECK(cudaGetLastError());
    }
    EXACTVMAF_CUDA_CHECK(cudaMemcpyAsync(result_, result_dev_, sizeof(Result), cudaMemcpyDeviceToHost, stream));
  }

  // The CPU's per-scale tails and frame scores on the device's totals; a
  // frame with an undecided powf term is recomputed on the host.
  void finish(const FrameInput& in, FrameOutput& out) override {
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
  std::uint64_t host_frames_ = 0;
  Geometry g_[num_scales];
  float* buffer_ = nullptr;
  Result* result_dev_ = nullptr;
  Result* result_ = nullptr;  // pinned: the graph's last copy lands here
  VerticalArgs vertical_[num_scales];
  HorizontalArgs horizontal_[num_scales];
  SampleArgs sample_[num_scales];
  SumArgs sum_[num_scales];
};

}  // namespace

std::unique_ptr<cuda::FeatureWorker> make_cuda_worker(const Config& c) {
  return std::make_unique<FloatAdmCudaWorker>(c);
}

}  // namespace exactvmaf::float_adm
