// Decoded surfaces (NVDEC) into frame buffers' device planes: one kernel per
// plane de-interleaves NV12/P010 chroma and moves 16-bit samples of 10 and
// 12-bit video from their high bits to their low bits, as software decoders
// give them. Memory bound: a 4K frame is a few microseconds.
#include "backends/cuda/frame_import.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/check.cuh"
#include "backends/cuda/device_memory.cuh"
#include "io/rscale_math.hpp"

namespace exactvmaf::cuda {

namespace {

// Sample x of row y of the destination is sample x * step + offset of the
// source row (step 2 for interleaved chroma), shifted right by `shift`.
template <class T>
__global__ void import_plane_kernel(const std::uint8_t* src, std::size_t src_pitch, unsigned step, unsigned offset,
                                    std::uint8_t* dst, std::size_t dst_pitch, unsigned width, unsigned height,
                                    unsigned shift, unsigned* low_bits) {
  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const T v = reinterpret_cast<const T*>(src + y * src_pitch)[x * step + offset];
  if (v & ((1u << shift) - 1u)) atomicOr(low_bits, 1u);
  reinterpret_cast<T*>(dst + y * dst_pitch)[x] = static_cast<T>(v >> shift);
}

// A frame buffer's device planes, at the buffer's storage sizes.
struct DeviceFrameStorage {
  DeviceBuffer<std::uint8_t> plane[3];
};

DevicePlanes allocate_planes(DeviceFrameStorage& storage, const VideoFormat& f, int gpu) {
  DevicePlanes planes;
  planes.gpu = gpu;
  for (unsigned p = 0; p < f.planes(); ++p) {
    storage.plane[p] = DeviceBuffer<std::uint8_t>::pitched(
        static_cast<std::size_t>(f.plane_width(p)) * f.bytes_per_sample(), f.plane_height(p));
    planes.data[p] = storage.plane[p].get();
    planes.pitch[p] = storage.plane[p].pitch();
  }
  return planes;
}

// The R scaler's two passes (io/rscale_math.hpp, as RScalePlan::scale runs
// them on the host): source rows to 15-bit intermediates, one per source row
// and output column, then output rows from those.
template <class Sample>
__global__ void rscale_horizontal_kernel(const std::uint8_t* src, std::size_t src_pitch, const std::int32_t* pos,
                                         const std::int32_t* count, const std::int16_t* coef, int size, int width,
                                         int rows, int shift, std::int16_t* mid) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= rows) return;
  const Sample* row = reinterpret_cast<const Sample*>(src + static_cast<std::size_t>(y) * src_pitch);
  mid[static_cast<std::size_t>(y) * width + x] =
      io::rscale::hscale_sample(row + pos[x], coef + static_cast<std::size_t>(x) * size, count[x], shift);
}

template <class Sample>
__global__ void rscale_vertical_kernel(const std::int16_t* mid, int width, const std::int32_t* pos,
                                       const std::int32_t* count, const std::int16_t* coef, int size, int rows,
                                       int bits, std::uint8_t* dst, std::size_t dst_pitch) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= rows) return;
  const std::int16_t* col = mid + static_cast<std::size_t>(pos[y]) * width + x;
  const std::int16_t* c = coef + static_cast<std::size_t>(y) * size;
  Sample* out = reinterpret_cast<Sample*>(dst + static_cast<std::size_t>(y) * dst_pitch);
  if constexpr (sizeof(Sample) == 1)
    out[x] = size == 1 ? io::rscale::vscale_one_8(col[0]) : io::rscale::vscale_sample_8(col, width, c, count[y]);
  else
    out[x] = size == 1 ? io::rscale::vscale_one_hi(col[0], bits)
                       : io::rscale::vscale_sample_hi(col, width, c, count[y], bits);
}

template <class T>
DeviceBuffer<T> to_device(const std::vector<T>& v) {
  DeviceBuffer<T> d(v.size());
  if (!v.empty()) EXACTVMAF_CUDA_CHECK(cudaMemcpy(d.get(), v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

// One direction of one plane's filter on the device.
struct DeviceFilter {
  int size = 0, src_size = 0, dst_size = 0;
  DeviceBuffer<std::int32_t> pos, count;
  DeviceBuffer<std::int16_t> coef;
  explicit DeviceFilter(const io::RScaleFilter& f)
      : size(f.size), src_size(f.src_size), dst_size(f.dst_size), pos(to_device(f.pos)), count(to_device(f.count)),
        coef(to_device(f.coef)) {}
};

struct DecodeStream::Scaling {
  VideoFormat src, dst;
  DeviceFrameStorage source;  // the surface, imported at its own size
  DevicePlanes source_planes;
  std::vector<DeviceFilter> h, v;  // per plane
  DeviceBuffer<std::int16_t> mid;  // the intermediates of the largest plane
};

DecodeStream::DecodeStream(int gpu) : gpu_(gpu) {
  EXACTVMAF_CUDA_CHECK(cudaSetDevice(gpu));
  EXACTVMAF_CUDA_CHECK(cudaFree(nullptr));  // the primary context, current on this thread
  // Its handle, from the driver through the runtime (nothing links libcuda).
  void* get_current = nullptr;
  cudaDriverEntryPointQueryResult found{};
  EXACTVMAF_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &get_current, 12000, cudaEnableDefault,
                                                        &found));
  CUcontext ctx = nullptr;
  if (found != cudaDriverEntryPointSuccess || !get_current ||
      reinterpret_cast<CUresult (*)(CUcontext*)>(get_current)(&ctx) != CUDA_SUCCESS || !ctx)
    throw InternalError("CUDA: cannot get the primary context of GPU " + std::to_string(gpu));
  context_ = ctx;
  cudaStream_t s = nullptr;
  EXACTVMAF_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  stream_ = s;
  void* flag = nullptr;
  const cudaError_t e = cudaHostAlloc(&flag, sizeof(unsigned), cudaHostAllocPortable);
  if (e != cudaSuccess) {
    (void)cudaStreamDestroy(s);
    throw InternalError("CUDA: cudaHostAlloc failed: " + error_text(e));
  }
  low_bits_ = static_cast<unsigned*>(flag);
  *low_bits_ = 0;
}

DecodeStream::~DecodeStream() {
  (void)cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  (void)cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
  (void)cudaFreeHost(low_bits_);
}

void DecodeStream::set_scale(const io::RScalePlan& plan) {
  EXACTVMAF_CUDA_CHECK(cudaSetDevice(gpu_));
  auto sc = std::make_unique<Scaling>();
  sc->src = plan.src_format();
  sc->dst = plan.dst_format();
  sc->source_planes = allocate_planes(sc->source, sc->src, gpu_);
  std::size_t mid = 1;
  for (unsigned p = 0; p < sc->src.planes(); ++p) {
    const io::RScalePlane& pl = plan.plane(p);
    sc->h.emplace_back(pl.h);
    sc->v.emplace_back(pl.v);
    mid = std::max(mid, static_cast<std::size_t>(pl.v.src_size) * static_cast<std::size_t>(pl.h.dst_size));
  }
  sc->mid = DeviceBuffer<std::int16_t>(mid);
  scaling_ = std::move(sc);
}

void DecodeStream::import(const DecodedSurface& s, FrameBuffer& dst, bool luma_only, const std::string& path) {
  EXACTVMAF_CUDA_CHECK(cudaSetDevice(gpu_));
  if (!dst.device_planes() || dst.device_planes()->gpu != gpu_) {
    auto storage = std::make_shared<DeviceFrameStorage>();
    const DevicePlanes planes = allocate_planes(*storage, dst.format(), gpu_);
    dst.attach_device_planes(std::move(storage), planes);
  }
  // The surface lands in dst's planes, or, when scaling, in the source planes.
  const VideoFormat& f = scaling_ ? scaling_->src : dst.format();
  const unsigned bytes = f.bytes_per_sample();
  const DevicePlanes& d = scaling_ ? scaling_->source_planes : *dst.device_planes();
  const auto stream = static_cast<cudaStream_t>(stream_);
  const unsigned planes = luma_only ? 1u : f.planes();
  for (unsigned p = 0; p < planes; ++p) {
    const bool interleaved = p > 0 && s.interleaved_chroma;
    const std::uint8_t* src = static_cast<const std::uint8_t*>(s.plane[interleaved ? 1 : p]);
    const unsigned w = f.plane_width(p), h = f.plane_height(p);
    if (!interleaved && s.shift == 0) {
      EXACTVMAF_CUDA_CHECK(cudaMemcpy2DAsync(const_cast<std::uint8_t*>(d.data[p]), d.pitch[p], src, s.pitch[p],
                                             static_cast<std::size_t>(w) * bytes, h, cudaMemcpyDeviceToDevice, stream));
      continue;
    }
    const dim3 block(64, 4);
    const dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
    const unsigned step = interleaved ? 2u : 1u, offset = interleaved ? p - 1 : 0u;
    auto* out = const_cast<std::uint8_t*>(d.data[p]);
    const std::size_t pitch = s.pitch[interleaved ? 1 : p];
    const auto kernel = bytes == 1 ? import_plane_kernel<std::uint8_t> : import_plane_kernel<std::uint16_t>;
    kernel<<<grid, block, 0, stream>>>(src, pitch, step, offset, out, d.pitch[p], w, h, s.shift, low_bits_);
    EXACTVMAF_CUDA_CHECK(cudaGetLastError());
  }
  if (scaling_) scale(*dst.device_planes(), planes);
  EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (*low_bits_)
    throw Error(path + ": the GPU decoder gave 16-bit samples with low bits set (not " +
                std::to_string(f.bitdepth) + "-bit video as its format says); use --hwdec none");
  dst.set_on_device(true);
}

namespace {

// Both passes of one plane, for samples of type Sample.
template <class Sample>
void rscale_plane_on_device(const DeviceFilter& h, const DeviceFilter& v, const std::uint8_t* src,
                            std::size_t src_pitch, std::int16_t* mid, std::uint8_t* dst, std::size_t dst_pitch,
                            int bits, cudaStream_t stream) {
  const dim3 block(64, 4);
  const unsigned cols = (static_cast<unsigned>(h.dst_size) + block.x - 1) / block.x;
  const dim3 hgrid(cols, (static_cast<unsigned>(v.src_size) + block.y - 1) / block.y);
  const dim3 vgrid(cols, (static_cast<unsigned>(v.dst_size) + block.y - 1) / block.y);
  rscale_horizontal_kernel<Sample><<<hgrid, block, 0, stream>>>(src, src_pitch, h.pos.get(), h.count.get(),
                                                                h.coef.get(), h.size, h.dst_size, v.src_size,
                                                                bits == 8 ? 7 : bits - 1, mid);
  rscale_vertical_kernel<Sample><<<vgrid, block, 0, stream>>>(mid, h.dst_size, v.pos.get(), v.count.get(),
                                                              v.coef.get(), v.size, v.dst_size, bits, dst, dst_pitch);
  EXACTVMAF_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void DecodeStream::scale(const DevicePlanes& out, unsigned planes) {
  const Scaling& sc = *scaling_;
  const auto stream = static_cast<cudaStream_t>(stream_);
  const int bits = static_cast<int>(sc.src.bitdepth);
  for (unsigned p = 0; p < planes; ++p) {
    auto* target = const_cast<std::uint8_t*>(out.data[p]);
    const auto run = bits == 8 ? rscale_plane_on_device<std::uint8_t> : rscale_plane_on_device<std::uint16_t>;
    run(sc.h[p], sc.v[p], sc.source_planes.data[p], sc.source_planes.pitch[p], sc.mid.get(), target, out.pitch[p],
        bits, stream);
  }
}

}  // namespace exactvmaf::cuda
